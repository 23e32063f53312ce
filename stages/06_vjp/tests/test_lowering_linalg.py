"""cholesky, triangular_solve, lu, eigh, svd and qr compiled by XLA against their eager values: a factor per matrix
of a batch, NaNs for one that is not positive definite, and every flag of the solve, the
conjugate without the transpose included. Each is run as lowered for the CPU (jaxlib's LAPACK
calls) and as lowered for other platforms (StableHLO's operations), both compiled here."""

import itertools

import numpy as np
import pytest
from lowering_harness import check_compiled, run_compiled

import didax
from didax.lax import linalg
from didax.lowering import lower_module

rng = np.random.default_rng(0)


PLATFORMS = ["cpu", "cuda"]


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float16])
def test_cholesky_of_a_batch_and_of_a_matrix_that_fails(dtype, platform):
    m = rng.normal(size=(2, 4, 4)) + (1j * rng.normal(size=(2, 4, 4)) if dtype == np.complex64 else 0)
    a = (m @ np.conj(np.swapaxes(m, -1, -2)) + 4 * np.eye(4)).astype(dtype)
    check_compiled(linalg.cholesky, a, rtol=1e-2 if dtype == np.float16 else 1e-5,
                   atol=1e-2 if dtype == np.float16 else 1e-6, platform=platform)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]], dtype)
    (got,) = run_compiled(linalg.cholesky, bad, platform=platform)
    assert np.isnan(got[np.tril_indices(2)]).all() and got[0, 1] == 0
    if platform == "cpu" and dtype != np.float16:  # the primitive where LAPACK's info says it failed: all NaN, as eagerly
        check_compiled(linalg.cholesky_p.bind, np.stack([bad, np.eye(2, dtype=dtype)]))


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("left_side, lower, transpose_a, conjugate_a, unit_diagonal",
                         list(itertools.product([False, True], repeat=5)))  # fmt: skip
def test_triangular_solve_with_every_flag(left_side, lower, transpose_a, conjugate_a, unit_diagonal, platform):
    t = np.tril(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))) * 0.3 + 2 * np.eye(3)
    a = (t if lower else t.T).astype(np.complex64)
    b = rng.normal(size=(3, 2) if left_side else (2, 3)).astype(np.complex64)
    solve = lambda a, b: linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,  # noqa: E731
                                                 conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    check_compiled(solve, a, b, rtol=1e-5, atol=1e-6, platform=platform)


@pytest.mark.parametrize("dtype, letter", [(np.float32, "s"), (np.complex64, "c")])
def test_the_cpu_calls_lapack_in_the_operands_precision_and_other_platforms_stablehlo(dtype, letter):
    a, b = np.eye(3, dtype=dtype), np.ones((3, 2), dtype)

    def f(a, b):
        return linalg.cholesky(a), linalg.triangular_solve(a, b, left_side=True)

    closed = didax.make_jaxpr(f)(a, b)
    cpu, cuda = lower_module("f", closed, platform="cpu"), lower_module("f", closed, platform="cuda")
    assert f"lapack_{letter}potrf_ffi" in cpu and f"lapack_{letter}trsm_ffi" in cpu
    assert "stablehlo.cholesky" not in cpu and "stablehlo.triangular_solve" not in cpu
    assert "stablehlo.cholesky" in cuda and "stablehlo.triangular_solve" in cuda and "lapack" not in cuda
    # float16 has no LAPACK routine: StableHLO's operations on the CPU too
    assert "stablehlo.cholesky" in lower_module("f", didax.make_jaxpr(f)(a.real.astype(np.float16), b.real.astype(np.float16)))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_lu_is_getrf_with_pivots_from_zero_and_the_permutation(shape, dtype):
    x = (rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype == np.complex64 else 0)).astype(dtype)
    check_compiled(linalg.lu, x, rtol=1e-5, atol=1e-6)  # pivots and permutation exactly


def test_the_permutation_of_a_batch_of_swaps_and_what_lu_gives():
    pivots = np.array([[2, 2, 2], [1, 1, 2], [0, 2, 2]], np.int32)
    check_compiled(lambda p: linalg.lu_pivots_to_permutation(p, 5), pivots)
    a, b = rng.normal(size=(2, 4, 4)).astype(np.float32), rng.normal(size=(2, 4, 2)).astype(np.float32)
    check_compiled(lambda a, b: (didax.numpy.linalg.solve(a, b), *didax.numpy.linalg.slogdet(a)), a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["lu", "eigh", "svd", "qr"])
def test_lu_eigh_svd_and_qr_off_the_cpu_or_in_float16_are_not_implemented(name):
    for dtype, platform in [(np.float32, "cuda"), (np.float16, "cpu")]:
        with pytest.raises(NotImplementedError, match=f"{name} has no lowering rule for {np.dtype(dtype)} on '{platform}'"):
            lower_module("f", didax.make_jaxpr(getattr(linalg, name))(np.eye(3, dtype=dtype)), platform=platform)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eigh_is_syevd_or_heevd_reading_one_triangle(dtype, lower):
    """The eigenvalues as eager evaluation gives them; the eigenvectors (each up to a phase, which
    LAPACK builds may choose differently) orthonormal, with a v = v diag(w)."""
    m = (rng.normal(size=(2, 4, 4)) + (1j * rng.normal(size=(2, 4, 4)) if dtype == np.complex64 else 0)).astype(dtype)
    f = lambda a: linalg.eigh(a, lower=lower, symmetrize_input=False)  # noqa: E731
    v, w = run_compiled(f, m)
    np.testing.assert_allclose(w, f(m)[1], rtol=1e-5, atol=1e-5)
    strict = np.tril(m, -1) if lower else np.triu(m, 1)  # the diagonal's imaginary part is not read
    hermitian = strict + np.conj(np.swapaxes(strict, -1, -2)) + np.eye(4) * np.diagonal(m, axis1=-2, axis2=-1).real[..., None, :]
    np.testing.assert_allclose(hermitian @ v, v * w[..., None, :], atol=1e-4)
    np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v, np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_svd_is_gesdd_in_each_mode(shape, full_matrices, dtype):
    """The singular values as eager evaluation gives them, U and V^H of the asked shapes rebuilding
    the matrix (each singular pair is defined up to a phase), and s alone without compute_uv."""
    x = (rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype == np.complex64 else 0)).astype(dtype)
    u, s, vh = run_compiled(lambda a: linalg.svd(a, full_matrices=full_matrices), x)
    want_u, want_s, want_vh = linalg.svd(x, full_matrices=full_matrices)
    assert u.shape == want_u.shape and vh.shape == want_vh.shape and s.dtype == want_s.dtype
    np.testing.assert_allclose(s, want_s, rtol=1e-5, atol=1e-6)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, atol=1e-5)
    check_compiled(lambda a: linalg.svd(a, compute_uv=False), x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_qr_is_geqrf_or_geqp3_then_orgqr(shape, dtype):
    """Q, R and the pivots as eager evaluation (SciPy's LAPACK) gives them, in every mode (one
    program)."""
    x = (rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype == np.complex64 else 0)).astype(dtype)
    modes = list(itertools.product([True, False], [False, True]))  # full_matrices, pivoting
    check_compiled(lambda a: [out for full, pivoting in modes for out in linalg.qr(a, full_matrices=full, pivoting=pivoting)],
                   x, rtol=1e-5, atol=1e-5)  # fmt: skip
