"""didax.lax.linalg: matrix decompositions and solves, as jax.lax.linalg offers them. Stage 01
introduced it.

Seven primitives so far: ``cholesky``, the lower-triangular L with A = L L^H of a Hermitian
positive-definite A; ``triangular_solve``, which solves op(A) X = B (or X op(A) = B) for a
triangular A; ``lu``, the factors of P A = L U with partial pivoting;
``lu_pivots_to_permutation``, which turns LU's row swaps into the permutation P applies;
``eigh``, the eigenvectors and eigenvalues of a Hermitian A; ``svd``, A = U diag(s) V^H; and
``qr``, A = Q R with Q's columns orthonormal and R upper triangular. Each acts
on the last two axes (pivots: the last one); the axes before them are a batch, the same for every
operand. Where a Cholesky factorization fails (A is not positive definite), the matrix of the
result is all NaN, as JAX's is. Stage 01 evaluates them with LAPACK and BLAS through NumPy and SciPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from ..core import ShapedArray, get_aval
from .dot import dot_general
from .elementwise import add, conj, convert_element_type, div, ge, select_n
from .sorting import multiple_results_primitive
from .standard import COMPLEX, FLOATING, check_dtype, check_same_dtypes, standard_primitive
from .structural import broadcast_in_dim, broadcasted_iota, full_like, reshape, transpose

# ----------------------------------------------------------------------------------------------
# Shapes and dtypes, with JAX's messages: each operand is a batch of matrices.


def _matrices(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """The batch shape the operands share (each has rank 2 at least)."""
    for i, aval in enumerate(avals):
        if aval.ndim < 2:
            raise TypeError(f"Input {i} to {name} must have rank at least 2, but got shape={aval.shape}")
        check_dtype(name, aval, (FLOATING, COMPLEX), i)
    batches = [aval.shape[:-2] for aval in avals]
    if len({len(b) for b in batches}) > 1:
        raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, but got "
                        f"{[len(b) for b in batches]} batch dimensions for the inputs.")
    if len(set(batches)) > 1:
        raise ValueError(f"The inputs to {name} have different batch dimensions: "
                         f"{' and '.join(str(b) for b in batches)}.")
    return batches[0]


def _cholesky_shape(x: ShapedArray) -> tuple[int, ...]:
    _matrices("cholesky", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to cholesky must be a square matrix. Got shape {x.shape[-2:]}.")
    return x.shape


def _triangular_solve_shape(a: ShapedArray, b: ShapedArray, *, left_side: bool, **_: Any) -> tuple[int, ...]:
    _matrices("triangular_solve", a, b)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The first input to triangular_solve must be a square matrix. Got shape {a.shape[-2:]}.")
    if a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape[-2:]} and "
                         f"{b.shape[-2:]}.")
    return b.shape


def _cholesky_dtype(x: ShapedArray) -> np.dtype:
    return x.dtype


def _triangular_solve_dtype(a: ShapedArray, b: ShapedArray, **_: Any) -> np.dtype:
    return check_same_dtypes("triangular_solve", (a, b), tip="jax.scipy.linalg.solve_triangular")


# ----------------------------------------------------------------------------------------------
# Evaluation: one matrix at a time where LAPACK takes one.


def _in_lapack_precision(f: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """LAPACK has no 16-bit floats: those are computed in float32 and rounded back."""

    def g(*xs: np.ndarray, **params: Any) -> np.ndarray:
        dtype = xs[0].dtype
        if dtype.itemsize == 2:
            return f(*(x.astype(np.float32) for x in xs), **params).astype(dtype)
        return f(*xs, **params)

    return g


def _per_matrix(out: np.ndarray, f: Callable[..., np.ndarray], *xs: np.ndarray) -> np.ndarray:
    for index in np.ndindex(out.shape[:-2]):
        out[index] = f(*(x[index] for x in xs))
    return out


@_in_lapack_precision
def _cholesky(x: np.ndarray) -> np.ndarray:
    def one(a: np.ndarray) -> np.ndarray:
        try:
            return np.linalg.cholesky(a)  # (LAPACK's potrf reads the lower triangle only)
        except np.linalg.LinAlgError:  # not positive definite: all NaN, as JAX's LAPACK call gives
            return np.full(a.shape, np.nan, a.dtype)

    return _per_matrix(np.empty_like(x), one, x)


@_in_lapack_precision
def _triangular_solve(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool, transpose_a: bool,
                      conjugate_a: bool, unit_diagonal: bool) -> np.ndarray:  # fmt: skip
    # BLAS's trsm solves op(A) X = B or X op(A) = B as asked, with no check that A is invertible
    # (a zero on the diagonal gives infinities, as on JAX's CPU).
    from scipy.linalg import blas  # (here, not at the top: importing SciPy's linalg takes half a second)

    if conjugate_a and not transpose_a:
        a = np.conj(a)
    trsm = blas.get_blas_funcs("trsm", (a, b))
    trans = (2 if conjugate_a else 1) if transpose_a else 0
    solve = lambda a, b: trsm(1.0, a, b, side=int(not left_side), lower=int(lower), trans_a=trans,  # noqa: E731
                              diag=int(unit_diagonal))
    return _per_matrix(np.empty_like(b), solve, a, b)


def _lu_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    batch = _matrices("lu", x)
    m, n = x.shape[-2:]
    index = np.dtype(np.int32)
    return [ShapedArray(x.shape, x.dtype, x.weak_type), ShapedArray((*batch, min(m, n)), index),
            ShapedArray((*batch, m), index)]  # fmt: skip


def _lu(x: np.ndarray) -> list[np.ndarray]:
    """LAPACK's getrf on each matrix: L (unit diagonal, not stored) and U packed in one matrix, and
    the row swapped with row i at step i; a singular matrix still has factors (a zero on U's
    diagonal)."""
    from scipy.linalg import lapack

    dtype = x.dtype
    x = x.astype(np.float32) if dtype.itemsize == 2 else x  # LAPACK has no 16-bit floats
    m, n = x.shape[-2:]
    factors, pivots = np.empty_like(x), np.empty((*x.shape[:-2], min(m, n)), np.int32)
    for index in np.ndindex(x.shape[:-2]):
        if min(m, n) == 0:  # (LAPACK's wrapper refuses an empty matrix)
            factors[index] = x[index]
            continue
        getrf = lapack.get_lapack_funcs("getrf", (x[index],))
        factors[index], pivots[index], _ = getrf(x[index])  # SciPy counts rows from 0
    return [factors.astype(dtype), pivots, _lu_pivots_to_permutation(pivots, permutation_size=m)]


def _lu_pivots_to_permutation_abstract_eval(pivots: ShapedArray, *, permutation_size: int) -> list[ShapedArray]:
    if pivots.ndim < 1 or pivots.dtype != np.int32:
        raise ValueError("Argument to lu_pivots_to_permutation must have rank >= 1 and dtype int32. "
                         f"Got shape={pivots.shape} and dtype={pivots.dtype}")
    if permutation_size < pivots.shape[-1]:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing dimension of "
                         f"the pivots. Got pivots size {pivots.shape[-1]}")
    return [ShapedArray((*pivots.shape[:-1], permutation_size), pivots.dtype)]


def _lu_pivots_to_permutation(pivots: np.ndarray, *, permutation_size: int) -> np.ndarray:
    """Apply the swaps in order to the identity permutation: at step i, rows i and pivots[i]."""
    out = np.empty((*pivots.shape[:-1], permutation_size), np.int32)
    for index in np.ndindex(pivots.shape[:-1]):
        perm = np.arange(permutation_size, dtype=np.int32)
        for i, j in enumerate(pivots[index]):
            perm[i], perm[j] = perm[j], perm[i]
        out[index] = perm
    return out


def _eigh_abstract_eval(x: ShapedArray, *, lower: bool, sort_eigenvalues: bool, subset_by_index: tuple[int, int] | None,
                        algorithm: Any) -> list[ShapedArray]:  # fmt: skip
    _matrices("eigh", x)
    n = x.shape[-1]
    if x.shape[-2] != n:
        raise ValueError(f"Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {x.shape}")
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [ShapedArray((*x.shape[:-1], d), x.dtype, x.weak_type),
            ShapedArray((*x.shape[:-2], d), _real(x.dtype), x.weak_type)]  # fmt: skip


def _real(dtype: np.dtype) -> np.dtype:
    """The type of a complex number's real part; a real type itself."""
    return _REAL_PART.get(dtype, dtype)


_REAL_PART = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def _eigh(x: np.ndarray, *, lower: bool, sort_eigenvalues: bool, subset_by_index: tuple[int, int] | None,
          algorithm: Any) -> list[np.ndarray]:  # fmt: skip
    """LAPACK's syevd (heevd for complex) through NumPy, reading one triangle: the eigenvalues in
    ascending order, and the unit eigenvectors as the columns of v."""
    n = x.shape[-1]
    if subset_by_index not in (None, (0, n)):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if algorithm is not None:
        raise NotImplementedError(f"eigh implementation {algorithm!r}: didax has LAPACK's (QR) only")
    dtype = x.dtype
    x = x.astype(np.float32) if dtype.itemsize == 2 else x  # LAPACK has no 16-bit floats
    w, v = np.linalg.eigh(x, UPLO="L" if lower else "U")
    return [v.astype(dtype), w.astype(_real(dtype))]


def _svd_abstract_eval(x: ShapedArray, *, full_matrices: bool, compute_uv: bool,
                       subset_by_index: tuple[int, int] | None, algorithm: Any) -> list[ShapedArray]:  # fmt: skip
    batch = _matrices("svd", x)
    m, n = x.shape[-2:]
    k = min(m, n)
    if subset_by_index not in (None, (0, k)):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    s = ShapedArray((*batch, k), _real(x.dtype), x.weak_type)
    if not compute_uv:
        return [s]
    u = ShapedArray((*batch, m, m if full_matrices else k), x.dtype, x.weak_type)
    vt = ShapedArray((*batch, n if full_matrices else k, n), x.dtype, x.weak_type)
    return [s, u, vt]


def _svd(x: np.ndarray, *, full_matrices: bool, compute_uv: bool, subset_by_index: tuple[int, int] | None,
         algorithm: Any) -> list[np.ndarray]:  # fmt: skip
    """LAPACK's gesdd through NumPy: the singular values in descending order and, if asked, U
    and V^H (square with ``full_matrices``, else of min(m, n) columns and rows)."""
    if algorithm is not None:
        raise NotImplementedError(f"svd algorithm {algorithm!r}: didax has LAPACK's gesdd only")
    dtype = x.dtype
    x = x.astype(np.float32) if dtype.itemsize == 2 else x  # LAPACK has no 16-bit floats
    m, n = x.shape[-2:]
    if min(m, n) == 0:  # (NumPy refuses an empty matrix) no singular values, identities for U and V^H
        rows, cols = (m, n) if full_matrices else (0, 0)
        u = np.broadcast_to(np.eye(m, rows, dtype=dtype), (*x.shape[:-2], m, rows))
        vt = np.broadcast_to(np.eye(cols, n, dtype=dtype), (*x.shape[:-2], cols, n))
        s = np.zeros((*x.shape[:-2], 0), _real(dtype))
        return [s, u, vt] if compute_uv else [s]
    if not compute_uv:
        return [np.linalg.svd(x, compute_uv=False).astype(_real(dtype))]
    u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    return [s.astype(_real(dtype)), u.astype(dtype), vt.astype(dtype)]


def _qr_abstract_eval(x: ShapedArray, *, pivoting: bool, full_matrices: bool, use_magma: Any) -> list[ShapedArray]:
    batch = _matrices("qr", x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    q, r = ShapedArray((*batch, m, k), x.dtype, x.weak_type), ShapedArray((*batch, k, n), x.dtype, x.weak_type)
    return [q, r, ShapedArray((*batch, n), np.dtype(np.int32))] if pivoting else [q, r]


def _qr(x: np.ndarray, *, pivoting: bool, full_matrices: bool, use_magma: Any) -> list[np.ndarray]:
    """LAPACK's geqrf (geqp3, with column pivoting) and orgqr through SciPy, one matrix at a time:
    Q with orthonormal columns, R upper triangular, and with ``pivoting`` the columns p of x that
    Q R is (|R|'s diagonal non-increasing)."""
    from scipy import linalg as scipy_linalg

    dtype = x.dtype
    x = x.astype(np.float32) if dtype.itemsize == 2 else x  # LAPACK has no 16-bit floats
    q_aval, r_aval, *p_aval = _qr_abstract_eval(ShapedArray(x.shape, x.dtype), pivoting=pivoting,
                                                full_matrices=full_matrices, use_magma=use_magma)  # fmt: skip
    q, r = np.zeros(q_aval.shape, x.dtype), np.zeros(r_aval.shape, x.dtype)
    p = np.zeros(p_aval[0].shape if pivoting else (0,), np.int32)
    m, n = x.shape[-2:]
    for index in np.ndindex(x.shape[:-2]):
        if min(m, n) == 0:  # (SciPy takes no empty matrix) Q's columns are the identity's, R is empty
            q[index] = np.eye(*q.shape[-2:], dtype=x.dtype)
            continue
        out = scipy_linalg.qr(x[index], mode="full" if full_matrices else "economic", pivoting=pivoting)
        q[index], r[index] = out[0], out[1]
        if pivoting:
            p[index] = out[2]
    outs = [q.astype(dtype), r.astype(dtype)]
    return [*outs, p] if pivoting else outs


cholesky_p = standard_primitive("cholesky", _cholesky, _cholesky_shape, _cholesky_dtype)
triangular_solve_p = standard_primitive("triangular_solve", _triangular_solve, _triangular_solve_shape,
                                        _triangular_solve_dtype)
lu_p = multiple_results_primitive("lu", _lu, _lu_abstract_eval)
eigh_p = multiple_results_primitive("eigh", _eigh, _eigh_abstract_eval)
svd_p = multiple_results_primitive("svd", _svd, _svd_abstract_eval)
qr_p = multiple_results_primitive("qr", _qr, _qr_abstract_eval)
lu_pivots_to_permutation_p = multiple_results_primitive(
    "lu_pivots_to_permutation", lambda p, **params: [_lu_pivots_to_permutation(p, **params)],
    _lu_pivots_to_permutation_abstract_eval)


# ----------------------------------------------------------------------------------------------
# The functions users call.


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower-triangular L with x = L L^H, for each matrix of the batch x (Hermitian,
    positive definite); a matrix of NaNs where x is not positive definite. With
    ``symmetrize_input`` the factored matrix is (x + x^H) / 2, else only x's lower triangle is read."""
    if symmetrize_input:
        x = symmetrize(x)
    return tril(cholesky_p.bind(x))


def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                     conjugate_a: bool = False, unit_diagonal: bool = False) -> Any:  # fmt: skip
    """X with op(a) X = b (``left_side``) or X op(a) = b, where op transposes a if
    ``transpose_a`` and conjugates it if ``conjugate_a``. Only the ``lower`` (or upper) triangle of
    a is read, and with ``unit_diagonal`` not its diagonal, taken to be ones. A b with one axis
    fewer than a is a batch of vectors."""
    conjugate_a = conjugate_a and dtypes.issubdtype(get_aval(a).dtype, np.complexfloating)
    shape = get_aval(b).shape
    vectors = len(shape) == get_aval(a).ndim - 1
    if vectors:  # a column (or, on the right, a row) of its own
        b = reshape(b, (*shape, 1) if left_side else (*shape[:-1], 1, shape[-1]))
    out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return reshape(out, shape) if vectors else out


def lu(x: Any) -> list[Any]:
    """The LU decomposition of each matrix of the batch x (m by n), with partial pivoting:
    ``(lu, pivots, permutation)``, where x[permutation] = L U, L is unit lower triangular (m by
    min(m, n)) below lu's diagonal and U upper triangular (min(m, n) by n) on and above it; at step
    i, row i was swapped with row pivots[i]."""
    return lu_p.bind(x)  # (a list, as in JAX)


def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: tuple[int, int] | None = None, implementation: Any = None) -> tuple[Any, Any]:
    """``(v, w)``: the eigenvalues w of each Hermitian matrix of the batch x in ascending order,
    and its unit eigenvectors, the columns of v (x v = v diag(w)). With ``symmetrize_input`` the
    matrix is (x + x^H) / 2, else only its ``lower`` (or upper) triangle is read."""
    if symmetrize_input:
        x = symmetrize(x)
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues, subset_by_index=subset_by_index,
                       algorithm=implementation)  # fmt: skip
    return v, w


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index: tuple[int, int] | None = None,
        algorithm: Any = None) -> Any:
    """The singular value decomposition of each matrix of the batch x (m by n): ``(u, s, vh)``
    with x = u diag(s) vh, s descending; u m by m and vh n by n with ``full_matrices``, else
    min(m, n) columns of u and rows of vh. Without ``compute_uv``, s alone."""
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv, subset_by_index=subset_by_index,
                      algorithm=algorithm)  # fmt: skip
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None) -> tuple[Any, ...]:
    """The QR decomposition of each matrix of the batch x (m by n): ``(q, r)`` with x = q r, q's
    columns orthonormal and r upper triangular; q m by m and r m by n with ``full_matrices``, else
    min(m, n) columns of q and rows of r. With ``pivoting``, ``(q, r, p)`` with x[..., p] = q r, the
    columns chosen so that |r|'s diagonal does not increase. ``use_magma`` (JAX's GPU choice) is
    accepted and ignored."""
    return tuple(qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma))


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation of ``permutation_size`` rows that the row swaps ``pivots`` (int32, as lu gives
    them) make, applied in order."""
    (out,) = lu_pivots_to_permutation_p.bind(pivots, permutation_size=permutation_size)
    return out


# ----------------------------------------------------------------------------------------------
# Helpers on batches of matrices, shared with the rules of later stages.


def mT(x: Any) -> Any:  # noqa: N802 (JAX's name for the matrix transpose)
    """Each matrix of the batch transposed."""
    n = get_aval(x).ndim
    return transpose(x, (*range(n - 2), n - 1, n - 2))


def H(x: Any) -> Any:  # noqa: N802
    """Each matrix of the batch conjugated and transposed."""
    x = mT(x)
    return conj(x) if dtypes.issubdtype(get_aval(x).dtype, np.complexfloating) else x


def symmetrize(x: Any) -> Any:
    """(x + x^H) / 2: the Hermitian part of each matrix (integers become the default float)."""
    if not dtypes.issubdtype(get_aval(x).dtype, np.inexact):
        x = convert_element_type(x, dtypes.canonicalize_dtype(dtypes.float_))
    return div(add(x, H(x)), np.array(2, get_aval(x).dtype))  # (a scalar goes with any shape)


def tril(x: Any, k: int = 0) -> Any:
    """Each matrix of the batch with the entries above its ``k``-th diagonal set to zero."""
    return _triangle(x, k, lower=True)


def triu(x: Any, k: int = 0) -> Any:
    """Each matrix of the batch with the entries below its ``k``-th diagonal set to zero."""
    return _triangle(x, k, lower=False)


def _triangle(x: Any, k: int, lower: bool) -> Any:
    aval = get_aval(x)
    index = dtypes.canonicalize_dtype(np.int64)  # (the default integer, as JAX's mask has)
    rows = broadcasted_iota(index, aval.shape[-2:], 0)
    cols = broadcasted_iota(index, aval.shape[-2:], 1)
    if k:
        rows = add(rows, full_like(rows, k))
    keep = ge(rows, cols) if lower else ge(cols, rows)  # column <= row + k, or column >= row + k
    if aval.ndim > 2:
        keep = broadcast_in_dim(keep, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return select_n(keep, full_like(x, 0), x)


def batch_matmul(a: Any, b: Any) -> Any:
    """The matrix product of each pair of matrices of two batches of one shape."""
    n = get_aval(a).ndim
    batch = tuple(range(n - 2))
    return dot_general(a, b, (((n - 1,), (n - 2,)), (batch, batch)))
