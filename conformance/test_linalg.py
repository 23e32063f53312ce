"""jax.lax.linalg's ``cholesky``, ``triangular_solve``, ``lu``, ``lu_pivots_to_permutation``,
``eigh``, ``svd`` and ``qr``; jnp.linalg's ``cholesky``, ``qr``, ``solve``, ``inv``, ``det``, ``slogdet``,
``tensorsolve``, ``matrix_power``, ``multi_dot``, ``eigh``, ``eigvalsh``, ``svd``, ``svdvals``,
``matrix_rank``, ``pinv``, ``lstsq`` and the 2- and nuclear norms; jax.scipy.linalg's ``cholesky``,
``cho_factor``, ``cho_solve``, ``solve_triangular``, ``lu_factor``, ``lu_solve``, ``lu``, ``qr``,
``solve``, ``inv`` and ``det``, against
NumPy and SciPy in float64: drawn batches of well-conditioned matrices in every inexact dtype, every
flag of the triangular solve, the NaNs of a failed factorization, and JAX's errors.

The positive-definite matrices are M M^H + n I for a drawn M (eigenvalues at least n, so the factor
is well conditioned); the triangular ones have ones and twos on their diagonal and small entries
below it, and large ones in the triangle a solve must not read.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call
from conformance.impl import Impl
from conformance.missing import Namespace

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]

INEXACT = ("float32", "float64", "complex64", "complex128")


@pytest.fixture
def linalg(impl: Impl) -> Any:
    return Namespace(impl.lax.linalg, "lax.linalg")


@pytest.fixture
def scipy_linalg(impl: Impl) -> Any:
    return Namespace(importlib.import_module(impl.module.__name__ + ".scipy.linalg"), "jax.scipy.linalg")


def positive_definite(m: np.ndarray) -> np.ndarray:
    n = m.shape[-1]
    return m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)


def draw_matrices(data: st.DataObject, dt: np.dtype, shape: tuple[int, ...], label: str) -> np.ndarray:
    values = data.draw(st.lists(st.floats(-1, 1, width=32), min_size=int(np.prod(shape)) * 2,
                                max_size=int(np.prod(shape)) * 2), label=label)  # fmt: skip
    parts = np.array(values, np.float64).reshape(2, *shape)
    return parts[0] + 1j * parts[1] if dt.kind == "c" else parts[0]


def triangular(data: st.DataObject, dt: np.dtype, batch: tuple[int, ...], n: int, lower: bool) -> np.ndarray:
    small = 0.3 * draw_matrices(data, dt, (*batch, n, n), "off-diagonal entries")
    diagonal = np.array(data.draw(st.lists(st.sampled_from([-2.0, -1.0, 1.0, 2.0]), min_size=n, max_size=n),
                                  label="diagonal"))  # fmt: skip
    inside = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    return np.where(inside, small + np.diag(diagonal), 100.0 + small)  # (the other triangle: large)


def reference_solve(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool, transpose_a: bool,
                    conjugate_a: bool, unit_diagonal: bool) -> np.ndarray:  # fmt: skip
    """X with op(T) X = B or X op(T) = B, by NumPy's general solver on the triangle T made by hand."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1.0
    op = np.swapaxes(t, -1, -2) if transpose_a else t
    op = np.conj(op) if conjugate_a else op
    if left_side:
        return np.linalg.solve(op, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


@given(data=st.data(), n=st.integers(0, 4), batch=st.lists(st.integers(1, 2), max_size=2).map(tuple),
       dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_cholesky_factors_a_batch_of_positive_definite_matrices(impl: Impl, linalg: Any, flags: Any, data: Any,
                                                                n: int, batch: tuple[int, ...], dtype: str) -> None:
    """L is lower triangular (zeros above its diagonal), with a real positive diagonal, and is
    NumPy's factor of the matrix: the unique one."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = positive_definite(draw_matrices(data, dt, (*batch, n, n), "M")).astype(dt)
    show_call("lax.linalg.cholesky(a)", a=a)
    got = linalg.cholesky(a)
    assert_dtype(got, dt, weak=False)
    want = np.linalg.cholesky(a.astype(np.complex128 if dt.kind == "c" else np.float64))
    assert_values(got, want, dt, atol=RTOL[dt.name] * 4 * max(n, 1))
    assert not np.triu(np.asarray(got), 1).any(), "entries above the diagonal"


def test_cholesky_symmetrizes_or_reads_the_lower_triangle(impl: Impl, linalg: Any) -> None:
    a = positive_definite(np.random.default_rng(1).normal(size=(3, 3)))
    skew = a + np.triu(np.full((3, 3), 5.0), 1)  # the upper triangle no longer mirrors the lower
    show_call("lax.linalg.cholesky(a, symmetrize_input=False)", a=skew.astype(np.float32))
    lower_only = linalg.cholesky(skew.astype(np.float32), symmetrize_input=False)
    assert_values(lower_only, np.linalg.cholesky(a), np.dtype("float32"), atol=1e-5)
    both = linalg.cholesky(skew.astype(np.float32))  # the factor of (skew + skew^T) / 2
    assert_values(both, np.linalg.cholesky((skew + skew.T) / 2), np.dtype("float32"), atol=1e-5)


def test_a_matrix_that_is_not_positive_definite_gives_nans_and_its_batch_neighbours_do_not(
        impl: Impl, linalg: Any) -> None:  # fmt: skip
    good = positive_definite(np.eye(2))
    a = np.stack([good, np.array([[1.0, 2.0], [2.0, 1.0]])]).astype(np.float32)
    show_call("lax.linalg.cholesky(a)", a=a)
    got = np.asarray(linalg.cholesky(a))
    assert_values(got[0], np.linalg.cholesky(good), np.dtype("float32"), atol=1e-6)
    assert np.isnan(got[1][np.tril_indices(2)]).all() and got[1, 0, 1] == 0, got[1]


@given(data=st.data(), n=st.integers(1, 4), k=st.integers(1, 3), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       options=st.tuples(*[st.booleans()] * 5), dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_triangular_solve_solves_op_a_x_equals_b(impl: Impl, linalg: Any, flags: Any, data: Any, n: int, k: int,
                                                  batch: tuple[int, ...], options: tuple[bool, ...], dtype: str) -> None:
    """Every flag: which side, which triangle, transposed, conjugated, a unit diagonal (not read)."""
    left_side, lower, transpose_a, conjugate_a, unit_diagonal = options
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = triangular(data, dt, batch, n, lower)
    b = draw_matrices(data, dt, (*batch, n, k) if left_side else (*batch, k, n), "b")
    a, b = a.astype(dt), b.astype(dt)
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                  unit_diagonal=unit_diagonal)
    show_call("lax.linalg.triangular_solve(a, b, **params)", a=a, b=b, params=params)
    got = linalg.triangular_solve(a, b, **params)
    assert_dtype(got, dt, weak=False)
    want = reference_solve(a.astype(np.complex128), b.astype(np.complex128), **params)
    if dt.kind == "f":
        want = want.real
    assert_values(got, want, dt, atol=RTOL[dt.name] * 100)


def test_triangular_solve_takes_a_batch_of_vectors(impl: Impl, linalg: Any) -> None:
    """A b with one axis fewer than a is a vector per matrix, on either side."""
    a = np.stack([np.tril(np.full((3, 3), 0.5)) + np.eye(3)] * 2).astype(np.float32)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    for left_side in (True, False):
        show_call(f"lax.linalg.triangular_solve(a, b, left_side={left_side}, lower=True)", a=a, b=b)
        got = linalg.triangular_solve(a, b, left_side=left_side, lower=True)
        assert np.shape(got) == (2, 3)
        want = [np.linalg.solve(np.tril(m) if left_side else np.tril(m).T, v) for m, v in zip(a, b)]
        assert_values(got, np.array(want), np.dtype("float32"), atol=1e-5)


def test_jnp_linalg_cholesky_gives_either_factor_and_promotes_integers(impl: Impl) -> None:
    a = np.array([[4, 2], [2, 3]])
    show_call("jnp.linalg.cholesky(a, upper=True)", a=a)
    lower = np.linalg.cholesky(a.astype(np.float64))
    assert_values(impl.numpy.linalg.cholesky(a), lower, np.dtype("float32"), atol=1e-6)
    upper = impl.numpy.linalg.cholesky(a, upper=True)
    assert_dtype(upper, np.dtype("float32"), weak=False)
    assert_values(upper, lower.T, np.dtype("float32"), atol=1e-6)


@pytest.mark.parametrize("lower", [False, True])
def test_scipy_cholesky_and_cho_solve_match_scipy(impl: Impl, scipy_linalg: Any, flags: Any, lower: bool) -> None:
    """Only the triangle asked for is read; cho_solve solves with cho_factor's pair, for a vector and
    a matrix of right-hand sides."""
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(2)
    a = positive_definite(rng.normal(size=(4, 4)))
    one_triangle = np.tril(a) if lower else np.triu(a)
    show_call(f"jax.scipy.linalg.cholesky(a, lower={lower})", a=one_triangle)
    assert_values(scipy_linalg.cholesky(one_triangle, lower=lower), scipy.linalg.cholesky(a, lower=lower),
                  np.dtype("float64"), atol=1e-12)  # fmt: skip
    factor = scipy_linalg.cho_factor(a, lower=lower)
    assert factor[1] is lower
    for b in (rng.normal(size=4), rng.normal(size=(4, 2))):
        show_call(f"jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a, lower={lower}), b)", a=a, b=b)
        assert_values(scipy_linalg.cho_solve(factor, b), np.linalg.solve(a, b), np.dtype("float64"), atol=1e-10)


@pytest.mark.parametrize("trans, lower", list(itertools.product([0, 1, 2, "N", "T", "C"], [False, True])))
def test_solve_triangular_matches_scipy(impl: Impl, scipy_linalg: Any, flags: Any, trans: Any, lower: bool) -> None:
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(3)
    a = np.tril(rng.normal(size=(3, 3)) * 0.3) + 2 * np.eye(3) + 1j * np.tril(rng.normal(size=(3, 3)) * 0.2)
    a = a if lower else np.conj(a.T)
    b = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    show_call(f"jax.scipy.linalg.solve_triangular(a, b, trans={trans!r}, lower={lower})", a=a, b=b)
    got = scipy_linalg.solve_triangular(a, b, trans=trans, lower=lower)
    assert_values(got, scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower), np.dtype("complex128"),
                  atol=1e-12)  # fmt: skip


def test_solve_triangular_broadcasts_the_batch(impl: Impl, scipy_linalg: Any) -> None:
    a = np.stack([np.eye(3) * (i + 1) for i in range(2)]).astype(np.float32)  # two matrices, one vector
    b = np.array([1.0, 2.0, 3.0], np.float32)
    show_call("jax.scipy.linalg.solve_triangular(a, b)", a=a, b=b)
    got = scipy_linalg.solve_triangular(a, b)
    assert_values(got, np.array([b, b / 2]), np.dtype("float32"), atol=1e-6)


def test_linalg_errors_are_jaxs(impl: Impl, linalg: Any, scipy_linalg: Any) -> None:
    f32 = np.float32
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        scipy_linalg.solve_triangular(np.eye(2), np.ones(2), trans=3)
    with pytest.raises(ValueError, match="must be a square matrix"):
        linalg.cholesky(np.ones((2, 3), f32), symmetrize_input=False)
    with pytest.raises(ValueError, match="The first input to triangular_solve must be a square matrix"):
        linalg.triangular_solve(np.ones((2, 3), f32), np.ones((2, 3), f32))
    with pytest.raises(ValueError, match="Incompatible shapes for arguments to triangular_solve"):
        linalg.triangular_solve(np.eye(3, dtype=f32), np.ones((2, 2), f32), left_side=True)
    with pytest.raises(TypeError, match="triangular_solve does not accept dtype int32"):
        linalg.triangular_solve(np.eye(2, dtype=np.int32), np.ones((2, 1), np.int32), left_side=True)
    with pytest.raises(TypeError, match="must have the same number of batch dimensions"):
        linalg.triangular_solve(np.eye(3, dtype=f32), np.ones((2, 3, 1), f32), left_side=True)


# ----------------------------------------------------------------------------------------------
# LU and what is built on it. Matrices are drawn near a well-conditioned one: a drawn M / 3 plus a
# diagonal of +-2 (so that pivoting has choices to make, but nothing is near singular).


def well_conditioned(data: st.DataObject, dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    m, n = shape[-2:]
    signs = np.array(data.draw(st.lists(st.sampled_from([-2.0, 2.0]), min_size=min(m, n), max_size=min(m, n)),
                               label="diagonal"))  # fmt: skip
    return draw_matrices(data, dt, shape, "M") / 3 + np.eye(m, n) * np.pad(signs, (0, max(m, n) - min(m, n)))[:n]


def swaps_to_permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    perm = np.arange(m)
    for i, j in enumerate(pivots):
        perm[[i, j]] = perm[[j, i]]
    return perm


@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_lu_factors_a_row_permutation_of_the_matrix(impl: Impl, linalg: Any, flags: Any, data: Any, m: int, n: int,
                                                    batch: tuple[int, ...], dtype: str) -> None:
    """x[permutation] = L U with L unit lower triangular and U upper triangular, packed in one matrix;
    the pivots are LAPACK's row swaps (SciPy's, counted from 0), and the permutation is what they make."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    x = well_conditioned(data, dt, (*batch, m, n)).astype(dt)
    show_call("lax.linalg.lu(x)", x=x)
    lu, pivots, permutation = linalg.lu(x)
    assert_dtype(lu, dt, weak=False)
    assert_dtype(pivots, np.dtype("int32"), weak=False)
    assert_dtype(permutation, np.dtype("int32"), weak=False)
    k = min(m, n)
    assert np.shape(pivots) == (*batch, k) and np.shape(permutation) == (*batch, m)
    for index in np.ndindex(batch):
        want_lu, want_pivots = scipy.linalg.lu_factor(x[index].astype(np.complex128 if dt.kind == "c" else np.float64))
        assert_values(np.asarray(lu)[index], want_lu, dt, atol=RTOL[dt.name] * 20)
        np.testing.assert_array_equal(np.asarray(pivots)[index], want_pivots)
        np.testing.assert_array_equal(np.asarray(permutation)[index], swaps_to_permutation(want_pivots, m))


def test_lu_pivots_to_permutation_applies_the_swaps_in_order(impl: Impl, linalg: Any) -> None:
    pivots = np.array([[2, 2, 2], [1, 1, 2]], np.int32)
    show_call("lax.linalg.lu_pivots_to_permutation(pivots, 5)", pivots=pivots)
    got = linalg.lu_pivots_to_permutation(pivots, 5)
    assert_dtype(got, np.dtype("int32"), weak=False)
    np.testing.assert_array_equal(got, [swaps_to_permutation(p, 5) for p in pivots])


@given(data=st.data(), n=st.integers(1, 4), k=st.integers(1, 2), dtype=st.sampled_from(INEXACT),
       shapes=st.sampled_from([((), (-1,)), ((), (-1, -2)), ((2,), (-1, -2)), ((), (2, -1, -2))]))  # fmt: skip
def test_solve_and_inv_match_numpy(impl: Impl, flags: Any, data: Any, n: int, k: int, dtype: str,
                                   shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    """b a vector, or a batch of matrices whose batch axes broadcast with a's."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a_batch, b_shape = shapes
    a = well_conditioned(data, dt, (*a_batch, n, n)).astype(dt)
    b = draw_matrices(data, dt, tuple({-1: n, -2: k}.get(d, d) for d in b_shape), "b").astype(dt)
    show_call("jnp.linalg.solve(a, b)", a=a, b=b)
    wide = np.complex128 if dt.kind == "c" else np.float64
    got = impl.numpy.linalg.solve(a, b)
    assert_dtype(got, dt, weak=False)
    assert_values(got, np.linalg.solve(a.astype(wide), b.astype(wide)), dt, atol=RTOL[dt.name] * 50)
    show_call("jnp.linalg.inv(a)", a=a)
    assert_values(impl.numpy.linalg.inv(a), np.linalg.inv(a.astype(wide)), dt, atol=RTOL[dt.name] * 50)


@given(data=st.data(), n=st.integers(1, 5), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_det_and_slogdet_match_numpy(impl: Impl, flags: Any, data: Any, n: int, batch: tuple[int, ...],
                                     dtype: str) -> None:
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = well_conditioned(data, dt, (*batch, n, n)).astype(dt)
    wide = a.astype(np.complex128 if dt.kind == "c" else np.float64)
    show_call("jnp.linalg.det(a)", a=a)
    det = impl.numpy.linalg.det(a)
    assert_dtype(det, dt, weak=False)
    assert_values(det, np.linalg.det(wide), dt, atol=RTOL[dt.name] * 50 * np.abs(np.linalg.det(wide)).max())
    show_call("jnp.linalg.slogdet(a)", a=a)
    sign, log_abs = impl.numpy.linalg.slogdet(a)
    want_sign, want_log = np.linalg.slogdet(wide)
    assert_dtype(sign, dt, weak=False)
    assert_dtype(log_abs, dr.real_dtype(dt), weak=False)
    assert_values(sign, want_sign, dt, atol=RTOL[dt.name] * 50)
    assert_values(log_abs, want_log, dt, atol=RTOL[dt.name] * 50)


def test_det_and_slogdet_of_singular_matrices(impl: Impl) -> None:
    """A zero on U's diagonal: sign 0 and a log of -inf, for the sizes with formulas of their own too."""
    for n in (2, 3, 4):
        a = np.ones((n, n), np.float32)
        show_call("jnp.linalg.slogdet(a)", a=a)
        sign, log_abs = impl.numpy.linalg.slogdet(a)
        assert float(sign) == 0.0 and float(log_abs) == -np.inf, (sign, log_abs)
        assert float(impl.numpy.linalg.det(a)) == 0.0


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_scipy_lu_factor_and_lu_solve_match_scipy(impl: Impl, scipy_linalg: Any, flags: Any, trans: int) -> None:
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(2)
    a = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))  # rows permuted by [1 2 3 0]: not its own inverse
    show_call("jax.scipy.linalg.lu_factor(a)", a=a)
    lu, piv = scipy_linalg.lu_factor(a)
    want_lu, want_piv = scipy.linalg.lu_factor(a)
    assert_values(lu, want_lu, np.dtype("complex128"), atol=1e-12)
    np.testing.assert_array_equal(piv, want_piv)
    for b in (rng.normal(size=4), rng.normal(size=(4, 2))):
        show_call(f"jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), b, trans={trans})", a=a, b=b)
        got = scipy_linalg.lu_solve((lu, piv), b, trans=trans)
        assert_values(got, scipy.linalg.lu_solve((want_lu, want_piv), b, trans=trans), np.dtype("complex128"),
                      atol=1e-10)  # fmt: skip


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos"])
def test_scipy_solve_inv_and_det_match_scipy(impl: Impl, scipy_linalg: Any, flags: Any, assume_a: str,
                                             lower: bool) -> None:  # fmt: skip
    """solve for a vector and a batch of matrices (with assume_a="pos" from the ``lower`` or upper
    triangle alone: the other holds junk), inv and det, against SciPy in complex128."""
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(3)
    m = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
    a = positive_definite(m)
    given = np.where(np.tri(3, dtype=bool) if lower else np.tri(3, dtype=bool).T, a, 100.0) if assume_a == "pos" else a
    for b in (rng.normal(size=3), rng.normal(size=(2, 3, 2))):
        x = given[0] if b.ndim == 1 else given
        show_call(f"jax.scipy.linalg.solve(a, b, lower={lower}, assume_a={assume_a!r})", a=x, b=b)
        want = np.linalg.solve(a[0], b) if b.ndim == 1 else np.linalg.solve(a, b)
        assert_values(scipy_linalg.solve(x, b, lower=lower, assume_a=assume_a), want, np.dtype("complex128"), atol=1e-10)
    show_call("jax.scipy.linalg.inv(a), jax.scipy.linalg.det(a)", a=a)
    assert_values(scipy_linalg.inv(a), np.linalg.inv(a), np.dtype("complex128"), atol=1e-10)
    assert_values(scipy_linalg.det(a), np.linalg.det(a), np.dtype("complex128"), atol=1e-9)
    with pytest.raises(ValueError):
        scipy_linalg.solve(a, a, assume_a="diagonal")


def test_slogdet_by_qr_matches_numpy(impl: Impl, flags: Any) -> None:
    """method="qr": the log of |det| from R's diagonal, and the sign (a row swap, and a reflection,
    flip it), for a batch of real matrices."""
    flags("jax_enable_x64", True)
    a = np.stack([np.random.default_rng(4).normal(size=(4, 4)), -np.eye(4)[[1, 0, 2, 3]], np.diag([2.0, -3, 1, 1])])
    show_call("jnp.linalg.slogdet(a, method='qr')", a=a)
    sign, log_abs = impl.numpy.linalg.slogdet(a, method="qr")
    want_sign, want_log = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign, want_sign)
    assert_values(log_abs, want_log, np.dtype("float64"), atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_scipy_lu_gives_p_l_u(impl: Impl, scipy_linalg: Any, shape: tuple[int, int]) -> None:
    x = np.random.default_rng(5).normal(size=shape).astype(np.float32)
    show_call("jax.scipy.linalg.lu(x)", x=x)
    for got, want in zip(scipy_linalg.lu(x), scipy.linalg.lu(x)):
        assert_values(got, want, np.dtype("float32"), atol=1e-5)
    show_call("jax.scipy.linalg.lu(x, permute_l=True)", x=x)
    for got, want in zip(scipy_linalg.lu(x, permute_l=True), scipy.linalg.lu(x, permute_l=True)):
        assert_values(got, want, np.dtype("float32"), atol=1e-5)


def test_lu_errors_are_jaxs(impl: Impl, linalg: Any, scipy_linalg: Any) -> None:
    with pytest.raises(TypeError, match="Input 0 to lu must have rank at least 2"):
        linalg.lu(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Output permutation size 2 has to exceed the trailing dimension"):
        linalg.lu_pivots_to_permutation(np.zeros(3, np.int32), 2)
    with pytest.raises(ValueError, match="Argument to slogdet"):
        impl.numpy.linalg.slogdet(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Argument to inv must have shape"):
        impl.numpy.linalg.inv(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Invalid shapes for solve"):
        impl.numpy.linalg.solve(np.ones((2, 3, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2, got 3"):
        scipy_linalg.lu_solve((np.eye(2, dtype=np.float32), np.zeros(2, np.int32)), np.ones(2, np.float32), trans=3)


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 3, 7])
def test_matrix_power_matches_numpy(impl: Impl, n: int) -> None:
    """Powers by repeated squaring, a negative one through the inverse, the identity for 0."""
    a = (np.random.default_rng(6).normal(size=(2, 3, 3)) / 2 + np.eye(3)).astype(np.float32)
    show_call(f"jnp.linalg.matrix_power(a, {n})", a=a)
    got = impl.numpy.linalg.matrix_power(a, n)
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.linalg.matrix_power(a.astype(np.float64), n), np.dtype("float32"), atol=1e-4)


def test_multi_dot_and_tensorsolve_match_numpy(impl: Impl) -> None:
    rng = np.random.default_rng(7)
    chain = [rng.normal(size=s).astype(np.float32) for s in [(10,), (10, 3), (3, 20), (20, 2), (2,)]]
    show_call("jnp.linalg.multi_dot(chain)", chain=chain)
    assert_values(impl.numpy.linalg.multi_dot(chain), np.linalg.multi_dot([c.astype(np.float64) for c in chain]),
                  np.dtype("float32"), atol=1e-3)  # fmt: skip
    t = (rng.normal(size=(6, 2, 3)) / 3 + np.eye(6).reshape(6, 2, 3)).astype(np.float32)
    b = rng.normal(size=(2, 3)).astype(np.float32)
    show_call("jnp.linalg.tensorsolve(t, b, axes=(0,))", t=t, b=b)
    got = impl.numpy.linalg.tensorsolve(t, b, axes=(0,))
    assert np.shape(got) == (6,)
    assert_values(got, np.linalg.tensorsolve(t.astype(np.float64), b.astype(np.float64), axes=(0,)),
                  np.dtype("float32"), atol=1e-4)  # fmt: skip
    with pytest.raises(TypeError, match="exponent must be an integer"):
        impl.numpy.linalg.matrix_power(np.eye(2, dtype=np.float32), 1.5)


@given(data=st.data(), n=st.integers(0, 4), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       dtype=st.sampled_from(INEXACT), lower=st.booleans())  # fmt: skip
def test_eigh_diagonalizes_a_batch_of_hermitian_matrices(impl: Impl, linalg: Any, flags: Any, data: Any, n: int,
                                                          batch: tuple[int, ...], dtype: str, lower: bool) -> None:
    """w is NumPy's eigenvalues, ascending, in the real dtype; v's columns are orthonormal and
    a v = v diag(w). Without symmetrizing, only the ``lower`` (or upper) triangle is read."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    m = draw_matrices(data, dt, (*batch, n, n), "M")
    hermitian = (m + np.conj(np.swapaxes(m, -1, -2))) / 2
    junk = np.triu(np.full((n, n), 50.0), 1)  # in the triangle not read
    a = (hermitian + (junk.T if not lower else junk)).astype(dt)
    kept = np.tril(hermitian) if lower else np.triu(hermitian)
    reference = (kept + np.conj(np.swapaxes(kept, -1, -2)) - np.eye(n) * np.diagonal(kept, axis1=-2, axis2=-1)[..., None, :])
    show_call(f"lax.linalg.eigh(a, lower={lower}, symmetrize_input=False)", a=a)
    v, w = linalg.eigh(a, lower=lower, symmetrize_input=False)
    assert_dtype(v, dt, weak=False)
    assert_dtype(w, dr.real_dtype(dt), weak=False)
    wide = reference.astype(np.complex128 if dt.kind == "c" else np.float64)
    tol = RTOL[dt.name] * 20 * max(n, 1)
    assert_values(w, np.linalg.eigvalsh(wide), dr.real_dtype(dt), atol=tol)
    v, w = np.asarray(v).astype(wide.dtype), np.asarray(w).astype(np.float64)
    assert_values(wide @ v, v * w[..., None, :], dt, atol=tol * 4)
    assert_values(np.conj(np.swapaxes(v, -1, -2)) @ v, np.broadcast_to(np.eye(n), (*batch, n, n)), dt, atol=tol)


def test_jnp_eigh_and_eigvalsh(impl: Impl) -> None:
    """EighResult(eigenvalues, eigenvectors); UPLO picks the triangle read; integers promote."""
    a = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
    show_call("jnp.linalg.eigh(a)", a=a)
    eigenvalues, eigenvectors = impl.numpy.linalg.eigh(a)
    assert_dtype(eigenvalues, np.dtype("float32"), weak=False)
    assert_values(eigenvalues, np.linalg.eigvalsh(a.astype(np.float64)), np.dtype("float32"), atol=1e-5)
    assert_values(a @ np.asarray(eigenvectors), np.asarray(eigenvectors) * np.asarray(eigenvalues), np.dtype("float32"),
                  atol=1e-5)  # fmt: skip
    upper = np.triu(a) + np.tril(np.full((3, 3), 9), -1)
    show_call("jnp.linalg.eigvalsh(a, UPLO='U', symmetrize_input=False)", a=upper)
    assert_values(impl.numpy.linalg.eigvalsh(upper, UPLO="U", symmetrize_input=False), np.linalg.eigvalsh(a),
                  np.dtype("float32"), atol=1e-5)  # fmt: skip
    with pytest.raises(ValueError, match="UPLO must be one of None, 'L', or 'U', got X"):
        impl.numpy.linalg.eigh(a, UPLO="X")
    with pytest.raises(ValueError, match="Argument to symmetric eigendecomposition must have shape"):
        impl.lax.linalg.eigh(np.ones((2, 3), np.float32), symmetrize_input=False)


@given(data=st.data(), m=st.integers(0, 4), n=st.integers(0, 4), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       dtype=st.sampled_from(INEXACT), full_matrices=st.booleans())  # fmt: skip
def test_svd_decomposes_a_batch(impl: Impl, linalg: Any, flags: Any, data: Any, m: int, n: int, batch: tuple[int, ...],
                                dtype: str, full_matrices: bool) -> None:
    """s is NumPy's singular values, descending, real; U and V^H have orthonormal columns and rows
    (square with full_matrices) and U diag(s) V^H is the matrix."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = draw_matrices(data, dt, (*batch, m, n), "a").astype(dt)
    show_call(f"lax.linalg.svd(a, full_matrices={full_matrices})", a=a)
    u, s, vh = linalg.svd(a, full_matrices=full_matrices)
    k = min(m, n)
    assert_dtype(u, dt, weak=False)
    assert_dtype(s, dr.real_dtype(dt), weak=False)
    assert np.shape(u) == (*batch, m, m if full_matrices else k) and np.shape(vh) == (*batch, n if full_matrices else k, n)
    wide = a.astype(np.complex128 if dt.kind == "c" else np.float64)
    tol = RTOL[dt.name] * 20 * max(m, n, 1)
    if k:
        assert_values(s, np.linalg.svd(wide, compute_uv=False), dr.real_dtype(dt), atol=tol)
    u, s, vh = (np.asarray(x).astype(wide.dtype) for x in (u, s, vh))
    assert_values((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], wide, dt, atol=tol * 4)
    for q, axis in ((u, -1), (vh, -2)):  # the columns of U and the rows of V^H: orthonormal
        gram = np.conj(np.swapaxes(q, -1, -2)) @ q if axis == -1 else q @ np.conj(np.swapaxes(q, -1, -2))
        assert_values(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape), dt, atol=tol)
    show_call("lax.linalg.svd(a, compute_uv=False)", a=a)
    assert_values(linalg.svd(a, compute_uv=False), s.real, dr.real_dtype(dt), atol=tol)


def test_jnp_svd_svdvals_matrix_rank_pinv_and_norms(impl: Impl) -> None:
    """SVDResult, the hermitian path through eigh, and what is built on the singular values, with
    JAX's default cutoffs (10 max(m, n) eps for pinv, max(m, n) eps for matrix_rank)."""
    lin = impl.numpy.linalg
    rng = np.random.default_rng(11)
    a = rng.normal(size=(2, 4, 3)).astype(np.float32)
    show_call("jnp.linalg.svd(a, full_matrices=False)", a=a)
    result = lin.svd(a, full_matrices=False)
    assert_values(result.S, np.linalg.svd(a.astype(np.float64), compute_uv=False), np.dtype("float32"), atol=1e-5)
    assert_values(lin.svdvals(a), np.asarray(result.S), np.dtype("float32"), atol=1e-6)
    h = (a[0].T @ a[0] - 2 * np.eye(3)).astype(np.float32)  # symmetric, some eigenvalues negative
    show_call("jnp.linalg.svd(h, hermitian=True)", h=h)
    u, s, vh = lin.svd(h, hermitian=True)
    assert_values(s, np.linalg.svd(h.astype(np.float64), compute_uv=False), np.dtype("float32"), atol=1e-5)
    assert_values((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), h, np.dtype("float32"), atol=1e-5)
    low = (rng.normal(size=(5, 2)) @ rng.normal(size=(2, 4))).astype(np.float32)
    show_call("jnp.linalg.matrix_rank(m)", m=np.stack([low, np.eye(5, 4, dtype=np.float32)]))
    np.testing.assert_array_equal(lin.matrix_rank(np.stack([low, np.eye(5, 4, dtype=np.float32)])), [2, 4])
    show_call("jnp.linalg.pinv(low)", low=low)
    assert_values(lin.pinv(low), np.linalg.pinv(low.astype(np.float64), rcond=1e-5), np.dtype("float32"), atol=1e-4)
    assert_values(lin.pinv(a), np.linalg.pinv(a.astype(np.float64)), np.dtype("float32"), atol=1e-4)
    for order in (2, -2, "nuc"):
        show_call(f"jnp.linalg.norm(a, {order!r}, axis=(2, 1))", a=a)
        assert_values(lin.norm(a, order, axis=(2, 1)), np.linalg.norm(a.astype(np.float64), order, axis=(2, 1)),
                      np.dtype("float32"), atol=1e-5)  # fmt: skip


# ----------------------------------------------------------------------------------------------
# QR: Q's columns orthonormal, R upper triangular, Q R the matrix, and R unique up to a phase per
# row for a matrix of full rank: |R| is NumPy's.


def check_qr(q: Any, r: Any, a: np.ndarray, dt: np.dtype, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Q (..., m, k) and R (..., k, n) of dtype dt, with Q^H Q = I, R upper triangular and Q R = a."""
    m, n = a.shape[-2:]
    assert_dtype(q, dt, weak=False)
    assert_dtype(r, dt, weak=False)
    assert np.shape(q) == (*a.shape[:-2], m, k) and np.shape(r) == (*a.shape[:-2], k, n), (np.shape(q), np.shape(r))
    q, r = (np.asarray(x).astype(np.complex128 if dt.kind == "c" else np.float64) for x in (q, r))
    tol = RTOL[dt.name] * 20 * max(m, n, 1)
    assert_values(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(k), (*a.shape[:-2], k, k)), dt, atol=tol)
    assert np.array_equal(np.triu(r), r), "R is not upper triangular"
    assert_values(q @ r, a, dt, atol=tol * 4)
    return q, r


@given(data=st.data(), m=st.integers(0, 4), n=st.integers(0, 4), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       dtype=st.sampled_from(INEXACT), mode=st.sampled_from(["reduced", "complete", "r"]))  # fmt: skip
def test_qr_decomposes_a_batch(impl: Impl, linalg: Any, flags: Any, data: Any, m: int, n: int, batch: tuple[int, ...],
                               dtype: str, mode: str) -> None:  # fmt: skip
    """lax.linalg.qr in both shapes of Q, and jnp.linalg.qr's modes, on a well-conditioned batch."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = well_conditioned(data, dt, (*batch, m, n)).astype(dt)
    wide = a.astype(np.complex128 if dt.kind == "c" else np.float64)
    k = m if mode == "complete" else min(m, n)
    show_call(f"lax.linalg.qr(a, full_matrices={mode == 'complete'})", a=a)
    q, r = check_qr(*linalg.qr(a, full_matrices=mode == "complete"), wide, dt, k)
    if min(m, n):
        want = np.linalg.qr(wide, mode="complete" if mode == "complete" else "reduced")[1]
        assert_values(np.abs(r), np.abs(want), dr.real_dtype(dt), atol=RTOL[dt.name] * 20 * max(m, n))
    show_call(f"jnp.linalg.qr(a, mode={mode!r})", a=a)
    result = impl.numpy.linalg.qr(a, mode=mode)
    if mode == "r":
        assert_values(result, r, dt, atol=RTOL[dt.name] * 20 * max(m, n, 1))
    else:
        assert type(result).__name__ == "QRResult" and result._fields == ("Q", "R")
        check_qr(result.Q, result.R, wide, dt, k)


@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 5), dtype=st.sampled_from(INEXACT),
       mode=st.sampled_from(["full", "economic", "r"]))  # fmt: skip
def test_pivoted_qr_orders_the_columns(impl: Impl, scipy_linalg: Any, flags: Any, data: Any, m: int, n: int,
                                       dtype: str, mode: str) -> None:  # fmt: skip
    """jax.scipy.linalg.qr with pivoting: p a permutation of the columns, a[:, p] = Q R, and R's
    diagonal non-increasing in magnitude (the rank-revealing order), in each of SciPy's modes."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = draw_matrices(data, dt, (m, n), "a").astype(dt)
    show_call(f"jax.scipy.linalg.qr(a, mode={mode!r}, pivoting=True)", a=a)
    out = scipy_linalg.qr(a, mode=mode, pivoting=True)
    assert len(out) == (2 if mode == "r" else 3)
    p = np.asarray(out[-1])
    assert_dtype(out[-1], np.dtype(np.int32), weak=False)
    assert sorted(p.tolist()) == list(range(n)), p
    k = min(m, n) if mode == "economic" else m
    if mode == "r":
        r = np.asarray(out[0])
        assert np.shape(r) == (m, n) and np.array_equal(np.triu(r), r)
    else:
        _, r = check_qr(out[0], out[1], a.astype(np.complex128 if dt.kind == "c" else np.float64)[:, p], dt, k)
    diagonal = np.abs(np.diagonal(r))
    assert np.all(diagonal[1:] <= diagonal[:-1] * (1 + RTOL[dt.name] * 20)), diagonal


def test_qr_errors_are_jaxs(impl: Impl, linalg: Any, scipy_linalg: Any) -> None:
    a = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'x'"):
        impl.numpy.linalg.qr(a, mode="x")
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'reduced'"):
        scipy_linalg.qr(a, mode="reduced")
    with pytest.raises(TypeError, match="Input 0 to qr must have rank at least 2"):
        linalg.qr(np.ones(3, np.float32))


def test_lstsq_fits_a_line(impl: Impl) -> None:
    """The least-squares line through noisy points, its residual, the rank and the singular values,
    as NumPy's; a rank-deficient system's minimum-norm solution."""
    rng = np.random.default_rng(12)
    t = np.linspace(0, 1, 20)
    a = np.stack([t, np.ones_like(t)], axis=1).astype(np.float32)
    b = (3 * t + 1 + 0.05 * rng.normal(size=20)).astype(np.float32)
    show_call("jnp.linalg.lstsq(a, b)", a=a, b=b)
    x, residuals, rank, s = impl.numpy.linalg.lstsq(a, b)
    want = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)
    for got, expected in zip((x, residuals, s), (want[0], want[1], want[3])):
        assert_values(got, expected, np.dtype("float32"), atol=1e-4)
    assert int(rank) == 2
    twice = np.concatenate([a, a], axis=1)  # rank 2 of 4 columns
    show_call("jnp.linalg.lstsq(a, b)", a=twice, b=b)
    x, _, rank, _ = impl.numpy.linalg.lstsq(twice, b)
    assert int(rank) == 2
    assert_values(x, np.linalg.lstsq(twice.astype(np.float64), b.astype(np.float64), rcond=None)[0], np.dtype("float32"),
                  atol=1e-4)  # fmt: skip
