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


# ----------------------------------------------------------------------------------------------
# LU: lax.linalg.lu against SciPy's getrf, and what is built on it.


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_lu_is_scipys_getrf_with_the_permutation_its_swaps_make(shape, dtype):
    a = rng.normal(size=shape) + (1j * rng.normal(size=shape) if np.dtype(dtype).kind == "c" else 0)
    a = a.astype(dtype)
    lu, pivots, permutation = linalg.lu(a)
    assert pivots.dtype == permutation.dtype == np.int32
    assert pivots.shape == (*shape[:-2], min(shape[-2:])) and permutation.shape == shape[:-1]
    for index in np.ndindex(shape[:-2]):
        if min(shape[-2:]):
            want_lu, want_pivots = scipy.linalg.lu_factor(a[index])
            np.testing.assert_allclose(lu[index], want_lu, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(pivots[index], want_pivots)
        perm = list(range(shape[-2]))  # the swaps, made one after the other
        for i, j in enumerate(np.asarray(pivots[index])):
            perm[i], perm[j] = perm[j], perm[i]
        np.testing.assert_array_equal(permutation[index], perm)
        p, lower, upper = scipy.linalg.lu(a[index])
        np.testing.assert_allclose(a[index][np.asarray(permutation[index])], lower @ upper, rtol=1e-5, atol=1e-5)


def test_lu_pivots_to_permutation_grows_the_identity():
    pivots = np.array([[2, 2, 2], [1, 1, 2]], np.int32)
    np.testing.assert_array_equal(linalg.lu_pivots_to_permutation(pivots, 5), [[2, 0, 1, 3, 4], [1, 0, 2, 3, 4]])
    with pytest.raises(ValueError, match="Output permutation size 2 has to exceed"):
        linalg.lu_pivots_to_permutation(pivots, 2)
    with pytest.raises(ValueError, match="must have rank >= 1 and dtype int32"):
        linalg.lu_pivots_to_permutation(pivots.astype(np.float32), 5)


@pytest.mark.parametrize("a_shape, b_shape", [((4, 4), (4,)), ((2, 4, 4), (4, 3)), ((3, 3), (2, 3, 2)), ((2, 2), (2, 1))])
def test_solve_inv_det_and_slogdet_are_numpys(a_shape, b_shape):
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    np.testing.assert_allclose(jnp.linalg.solve(a.astype(np.float32), b.astype(np.float32)), np.linalg.solve(a, b),
                               rtol=1e-4, atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(jnp.linalg.inv(a), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(jnp.linalg.det(a), np.linalg.det(a), rtol=1e-4, atol=1e-6)
    for got, want in zip(jnp.linalg.slogdet(a), np.linalg.slogdet(a)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_det_and_slogdet_of_singular_and_complex_matrices():
    for n in (2, 3, 5):
        assert float(jnp.linalg.det(np.ones((n, n), np.float32))) == 0.0
        sign, log_abs = jnp.linalg.slogdet(np.ones((n, n), np.float32))
        assert float(sign) == 0 and float(log_abs) == -np.inf
    c = (rng.normal(size=(2, 5, 5)) + 1j * rng.normal(size=(2, 5, 5))).astype(np.complex64)
    for got, want in zip(jnp.linalg.slogdet(c), np.linalg.slogdet(c)):
        np.testing.assert_allclose(got, want, rtol=1e-4)
    np.testing.assert_allclose(jnp.linalg.det(c), np.linalg.det(c), rtol=1e-4)


def test_scipy_lu_factor_lu_solve_and_lu():
    a, b = rng.normal(size=(4, 4)).astype(np.float32), rng.normal(size=(4, 2)).astype(np.float32)
    factors = dsl.lu_factor(a)
    for trans in (0, 1, 2):
        np.testing.assert_allclose(dsl.lu_solve(factors, b, trans=trans),
                                   scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=trans), rtol=1e-4, atol=1e-5)
    batch = rng.normal(size=(3, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(dsl.lu_solve(dsl.lu_factor(batch), b), np.linalg.solve(batch, b), rtol=1e-4, atol=1e-5)
    for shape in [(4, 4), (5, 3), (3, 5)]:
        x = rng.normal(size=shape).astype(np.float32)
        for got, want in zip(dsl.lu(x), scipy.linalg.lu(x)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        for got, want in zip(dsl.lu(x, permute_l=True), scipy.linalg.lu(x, permute_l=True)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2, got 3"):
        dsl.lu_solve(factors, b, trans=3)


def test_lu_errors_are_jaxs():
    with pytest.raises(TypeError, match="Input 0 to lu must have rank at least 2"):
        linalg.lu(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Argument to slogdet"):
        jnp.linalg.slogdet(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Argument to inv must have shape"):
        jnp.linalg.inv(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Invalid shapes for solve"):
        jnp.linalg.solve(np.ones((2, 3, 3)), np.ones((2, 3)))


def test_matrix_power_multi_dot_and_tensorsolve_are_numpys():
    a = rng.normal(size=(2, 3, 3)) + 2 * np.eye(3)
    for n in (-2, 0, 1, 3, 6):
        np.testing.assert_allclose(jnp.linalg.matrix_power(a, n), np.linalg.matrix_power(a, n), rtol=1e-4, atol=1e-5)
    chain = [rng.normal(size=(10,)), rng.normal(size=(10, 3)), rng.normal(size=(3, 20)), rng.normal(size=(20, 2))]
    np.testing.assert_allclose(jnp.linalg.multi_dot(chain), np.linalg.multi_dot(chain), rtol=1e-4)
    t, b = rng.normal(size=(6, 2, 3)) + np.eye(6).reshape(6, 2, 3), rng.normal(size=(2, 3))
    np.testing.assert_allclose(jnp.linalg.tensorsolve(t, b, axes=(0,)), np.linalg.tensorsolve(t, b, axes=(0,)),
                               rtol=1e-3, atol=1e-4)  # fmt: skip
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(a, 1.5)
    with pytest.raises(ValueError, match="multi_dot requires at least two arrays"):
        jnp.linalg.multi_dot([a[0]])


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eigh_diagonalizes_a_hermitian_batch(dtype):
    m = rng.normal(size=(2, 4, 4)) + (1j * rng.normal(size=(2, 4, 4)) if np.dtype(dtype).kind == "c" else 0)
    a = m.astype(dtype)
    hermitian = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    v, w = linalg.eigh(a)
    assert v.dtype == dtype and w.dtype == np.empty(0, dtype).real.dtype
    np.testing.assert_allclose(w, np.linalg.eigvalsh(hermitian), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hermitian @ v, np.asarray(v) * np.asarray(w)[..., None, :], atol=1e-5)
    np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v, np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-5)
    # only one triangle read without symmetrizing
    upper = np.triu(hermitian) + 100 * np.tril(np.ones((4, 4)), -1)
    np.testing.assert_allclose(linalg.eigh(upper.astype(dtype), lower=False, symmetrize_input=False)[1], w, rtol=1e-4, atol=1e-4)
    result = jnp.linalg.eigh(a)
    np.testing.assert_allclose(result.eigenvalues, w)
    np.testing.assert_allclose(jnp.linalg.eigvalsh(a), w)
    with pytest.raises(ValueError, match="UPLO must be one of None, 'L', or 'U', got X"):
        jnp.linalg.eigh(a, UPLO="X")
    with pytest.raises(ValueError, match="must have shape"):
        linalg.eigh(np.ones((2, 3), np.float32), symmetrize_input=False)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 2)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_reconstructs_the_batch_with_numpys_singular_values(shape, full_matrices):
    a = rng.normal(size=shape).astype(np.float32)
    u, s, vh = linalg.svd(a, full_matrices=full_matrices)
    *batch, m, n = shape
    k = min(m, n)
    assert np.shape(u) == (*batch, m, m if full_matrices else k) and np.shape(s) == (*batch, k)
    assert np.shape(vh) == (*batch, n if full_matrices else k, n)
    want = np.linalg.svd(a, full_matrices=full_matrices) if k else None
    if want:
        np.testing.assert_allclose(s, want[1], rtol=1e-5)
        np.testing.assert_allclose((np.asarray(u)[..., :k] * np.asarray(s)[..., None, :]) @ np.asarray(vh)[..., :k, :], a,
                                   atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(linalg.svd(a, compute_uv=False), s)


def test_jnp_svd_family_against_numpy_and_jaxs_cutoffs():
    a = rng.normal(size=(4, 3)).astype(np.float32)
    result = jnp.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(result.S, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose(jnp.linalg.svdvals(a), result.S)
    h = a.T @ a - 2 * np.eye(3, dtype=np.float32)  # symmetric, with negative eigenvalues
    u, s, vh = jnp.linalg.svd(h, hermitian=True)
    np.testing.assert_allclose(s, np.linalg.svd(h, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), h, atol=1e-5)
    low = (rng.normal(size=(5, 2)) @ rng.normal(size=(2, 4))).astype(np.float32)
    assert int(jnp.linalg.matrix_rank(low)) == 2 and int(jnp.linalg.matrix_rank(np.eye(3))) == 3
    np.testing.assert_allclose(jnp.linalg.pinv(a), np.linalg.pinv(a), rtol=1e-4, atol=1e-5)
    # the float32 noise below the cutoff (10 max(m, n) eps times the largest) is left out
    np.testing.assert_allclose(jnp.linalg.pinv(low), np.linalg.pinv(low.astype(np.float64), rcond=1e-5), rtol=1e-3, atol=1e-4)
    b = rng.normal(size=4).astype(np.float32)
    for got, want in zip(jnp.linalg.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for order in (2, -2, "nuc"):
        np.testing.assert_allclose(jnp.linalg.norm(a, order), np.linalg.norm(a, order), rtol=1e-5)
    with pytest.raises(ValueError, match="only one of tol or rtol"):
        jnp.linalg.matrix_rank(a, 0.1, tol=0.1)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3), (3, 0)])
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_qr_is_numpys_factorization(shape, full_matrices, dtype):
    a = (rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype == np.complex64 else 0)).astype(dtype)
    q, r = linalg.qr(a, full_matrices=full_matrices)
    *batch, m, n = shape
    k = m if full_matrices else min(m, n)
    assert np.shape(q) == (*batch, m, k) and np.shape(r) == (*batch, k, n) and q.dtype == r.dtype == dtype
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-5)
    eye = np.broadcast_to(np.eye(k), (*batch, k, k))
    np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ np.asarray(q), eye, atol=1e-5)
    assert np.array_equal(np.triu(r), r)
    if min(m, n):  # LAPACK's geqrf, as NumPy's: the same signs on R's diagonal
        np.testing.assert_allclose(r, np.linalg.qr(a, mode="complete" if full_matrices else "reduced")[1], atol=1e-5)


def test_pivoted_qr_orders_the_columns_by_r_and_the_wrappers_modes():
    a = rng.normal(size=(4, 6)).astype(np.float32) * np.array([1, 10, 0.1, 5, 1, 2], np.float32)
    q, r, p = linalg.qr(a, pivoting=True)
    want_q, want_r, want_p = scipy.linalg.qr(a, pivoting=True)
    assert p.dtype == np.int32 and np.array_equal(p, want_p)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a[:, want_p], atol=1e-5)
    assert np.all(np.diff(np.abs(np.diag(r))) <= 0)
    result = jnp.linalg.qr(a.T)
    assert type(result).__name__ == "QRResult" and result.Q.shape == (6, 4) and result.R.shape == (4, 4)
    assert jnp.linalg.qr(a.T, mode="complete").Q.shape == (6, 6)
    np.testing.assert_allclose(jnp.linalg.qr(a.T, mode="r"), result.R)
    assert [np.shape(x) for x in dsl.qr(a.T)] == [(6, 6), (6, 4)]
    assert [np.shape(x) for x in dsl.qr(a.T, mode="economic")] == [(6, 4), (4, 4)]
    r_only, p_only = dsl.qr(a, mode="r", pivoting=True)
    np.testing.assert_allclose(r_only, r) and np.testing.assert_array_equal(p_only, p)
    assert len(dsl.qr(a, mode="r")) == 1 and jnp.linalg.qr(np.eye(2, dtype=int)).Q.dtype == np.float32
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'x'"):
        jnp.linalg.qr(a, mode="x")
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'reduced'"):
        dsl.qr(a, mode="reduced")
    with pytest.raises(TypeError, match="Input 0 to qr must have rank at least 2"):
        linalg.qr(np.ones(3, np.float32))
    with pytest.raises(NotImplementedError, match="geqrf"):
        jnp.linalg.qr(a, mode="raw")


@pytest.mark.parametrize("lower", [False, True])
def test_scipy_solve_inv_and_det(lower):
    """solve through LU (assume_a "gen", "sym", "her") or Cholesky ("pos", one triangle read), for
    a vector, a batch of vectors and a batch of matrices; inv and det as jnp.linalg's."""
    a = positive_definite(3, (2,)).astype(np.float64)
    b, bs, bm = rng.normal(size=3), rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 4))
    junk = np.where(np.tri(3, dtype=bool) if lower else np.tri(3, dtype=bool).T, a, 100.0)  # the other triangle
    for kind in ("gen", "sym", "her", "pos"):
        given = junk if kind == "pos" else a
        np.testing.assert_allclose(dsl.solve(given[0], b, lower=lower, assume_a=kind), np.linalg.solve(a[0], b), rtol=1e-5)
        np.testing.assert_allclose(dsl.solve(given, bm, lower=lower, assume_a=kind), np.linalg.solve(a, bm), rtol=1e-5)
    np.testing.assert_allclose(dsl.solve(junk, bs, lower=lower, assume_a="pos"), np.linalg.solve(a, bs[..., None])[..., 0],
                               rtol=1e-5)  # fmt: skip
    np.testing.assert_allclose(dsl.inv(a), np.linalg.inv(a), rtol=1e-5)
    np.testing.assert_allclose(dsl.det(a), np.linalg.det(a), rtol=1e-5)
    with pytest.raises(ValueError, match="Expected assume_a to be one of"):
        dsl.solve(a, b, assume_a="diagonal")
    with pytest.raises(ValueError, match="The arguments to solve must have shapes"):
        dsl.solve(a, b, assume_a="pos")  # (JAX's rule: b has a's rank, or one less)


def test_slogdet_by_qr_is_numpys():
    a = np.stack([rng.normal(size=(4, 4)), np.ones((4, 4)), -np.eye(4)[[1, 0, 2, 3]]]).astype(np.float32)
    sign, log_abs = jnp.linalg.slogdet(a, method="qr")
    want_sign, want_log = np.linalg.slogdet(a.astype(np.float64))
    np.testing.assert_array_equal(np.asarray(sign)[[0, 2]], want_sign[[0, 2]])  # (a row swap: -1)
    np.testing.assert_allclose(np.asarray(log_abs)[[0, 2]], want_log[[0, 2]], rtol=1e-5, atol=1e-6)
    assert np.asarray(log_abs)[1] < -10  # singular: R's last diagonal entry is rounding (as in JAX), or 0
    with pytest.raises(NotImplementedError, match="slogdet method='qr' not implemented for complex inputs"):
        jnp.linalg.slogdet(np.eye(2, dtype=np.complex64), method="qr")
