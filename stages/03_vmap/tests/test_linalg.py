"""lax.linalg's Cholesky factor and triangular solve against NumPy and SciPy, with the wrappers of
jnp.linalg and didax.scipy.linalg, the NaNs of a failed factorization, and the errors."""

import itertools

import numpy as np
import pytest
import scipy.linalg

import didax.numpy as jnp
import didax.scipy.linalg as dsl
from didax.lax import linalg

rng = np.random.default_rng(0)


def positive_definite(n: int, batch: tuple[int, ...] = (), dtype: type = np.float32) -> np.ndarray:
    m = rng.normal(size=(*batch, n, n))
    if np.dtype(dtype).kind == "c":
        m = m + 1j * rng.normal(size=m.shape)
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)).astype(dtype)


def triangular(n: int, lower: bool, dtype: type = np.float32) -> np.ndarray:
    """Well conditioned: ones and twos on the diagonal, small entries off it (the other triangle
    holds large ones, which a solve must not read)."""
    a = rng.uniform(-0.3, 0.3, (n, n)) + np.diag(rng.choice([-2.0, -1.0, 1.0, 2.0], n))
    junk = 100 * rng.normal(size=(n, n))
    return np.where(np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T, a, junk).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16])
def test_cholesky_is_numpys_factor_for_a_batch(dtype):
    a = positive_definite(4, (2, 3), dtype)
    got = np.asarray(linalg.cholesky(a))
    want = np.linalg.cholesky(a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
    assert got.dtype == (np.dtype(dtype) if dtype != np.float64 else np.float32)  # (x64 is off)
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-2 if dtype == np.float16 else 1e-5)
    assert np.all(np.triu(got, 1) == 0)


def test_cholesky_reads_the_lower_triangle_or_the_hermitian_part():
    a = positive_definite(3, dtype=np.float64)
    garbage = a + np.triu(rng.normal(size=(3, 3)), 1)  # (not symmetric)
    np.testing.assert_allclose(linalg.cholesky(garbage, symmetrize_input=False), np.linalg.cholesky(a), rtol=1e-6)
    symmetric = (garbage + garbage.T) / 2
    np.testing.assert_allclose(linalg.cholesky(garbage), np.linalg.cholesky(symmetric), rtol=1e-6)


def test_a_matrix_that_is_not_positive_definite_factors_to_nans_alone():
    a = np.stack([positive_definite(2), np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)])
    got = np.asarray(linalg.cholesky(a))
    np.testing.assert_allclose(got[0], np.linalg.cholesky(a[0]), rtol=1e-6)
    assert np.isnan(got[1][np.tril_indices(2)]).all() and got[1, 0, 1] == 0  # JAX's [[nan, 0], [nan, nan]]


def test_jnp_and_scipy_cholesky():
    a = positive_definite(3, dtype=np.float64)
    lower = np.linalg.cholesky(a)
    np.testing.assert_allclose(jnp.linalg.cholesky(a), lower, rtol=1e-6)
    np.testing.assert_allclose(jnp.linalg.cholesky(a, upper=True), lower.T, rtol=1e-6)
    np.testing.assert_allclose(dsl.cholesky(a), scipy.linalg.cholesky(a), rtol=1e-6)
    np.testing.assert_allclose(dsl.cholesky(np.triu(a), lower=False), scipy.linalg.cholesky(a), rtol=1e-6)
    assert jnp.linalg.cholesky(np.array([[4, 2], [2, 3]])).dtype == np.float32  # integers become float


@pytest.mark.parametrize("left_side, lower, transpose_a, unit_diagonal",
                         list(itertools.product([True, False], repeat=4)))  # fmt: skip
def test_triangular_solve_solves_what_it_says(left_side, lower, transpose_a, unit_diagonal):
    a = triangular(3, lower, np.float64)
    b = rng.normal(size=(3, 2) if left_side else (2, 3))
    x = np.asarray(linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                           unit_diagonal=unit_diagonal), np.float64)  # fmt: skip
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        np.fill_diagonal(t, 1.0)
    op = t.T if transpose_a else t
    np.testing.assert_allclose(op @ x if left_side else x @ op, b, atol=1e-5)


def test_triangular_solve_conjugates_complex_matrices_and_takes_vectors():
    a = triangular(3, True, np.complex64) + 1j * np.tril(rng.uniform(-0.2, 0.2, (3, 3))).astype(np.complex64)
    b = rng.normal(size=(3,)).astype(np.complex64)
    for transpose_a, conjugate_a in itertools.product([False, True], repeat=2):
        op = np.tril(a)
        op = op.T if transpose_a else op
        op = op.conj() if conjugate_a else op
        x = linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=transpose_a, conjugate_a=conjugate_a)
        assert x.shape == (3,)
        np.testing.assert_allclose(op @ np.asarray(x), b, atol=1e-5)


def test_scipy_solve_triangular_and_cho_solve_match_scipy():
    a = triangular(4, False, np.float64)
    b = rng.normal(size=(4, 2))
    for trans in (0, 1, 2, "N", "T", "C"):
        np.testing.assert_allclose(dsl.solve_triangular(a, b, trans=trans), scipy.linalg.solve_triangular(a, b, trans=trans),
                                   rtol=1e-5)  # fmt: skip
    batch = np.stack([np.tril(triangular(4, True))] * 3)
    np.testing.assert_allclose(dsl.solve_triangular(batch, b[:, 0], lower=True)[1],
                               scipy.linalg.solve_triangular(batch[1], b[:, 0], lower=True), rtol=1e-5)  # fmt: skip
    spd = positive_definite(4, dtype=np.float64)
    for lower in (False, True):
        c = dsl.cho_factor(spd, lower=lower)
        assert c[1] is lower
        np.testing.assert_allclose(dsl.cho_solve(c, b), scipy.linalg.cho_solve(scipy.linalg.cho_factor(spd), b), rtol=1e-4)
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        dsl.solve_triangular(a, b, trans=3)


def test_errors_are_jaxs():
    with pytest.raises(ValueError, match="must be a square matrix"):
        linalg.cholesky_p.bind(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="must have rank at least 2"):
        linalg.cholesky_p.bind(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="cholesky does not accept dtype int32"):
        linalg.cholesky(np.eye(2, dtype=np.int32), symmetrize_input=False)
    with pytest.raises(ValueError, match="Incompatible shapes for arguments to triangular_solve"):
        linalg.triangular_solve(np.eye(3, dtype=np.float32), np.ones((2, 2), np.float32), left_side=True)
    with pytest.raises(TypeError, match="same number of batch dimensions"):
        linalg.triangular_solve(np.eye(3, dtype=np.float32), np.ones((2, 3, 1), np.float32), left_side=True)
