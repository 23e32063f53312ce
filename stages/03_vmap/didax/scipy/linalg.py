"""didax.scipy.linalg: Cholesky, LU and QR factors, solves (general, positive definite and
triangular), inverses and determinants, with SciPy's signatures,
as jax.scipy.linalg offers them. Stage 01 introduced it.

SciPy's ``overwrite_*`` and ``check_finite`` arguments are accepted and ignored, as in JAX: didax
arrays are immutable, and nothing is checked for NaNs.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import lax
from ..core import get_aval
from ..numpy import linalg as numpy_linalg
from ..numpy.linalg import _lu_solve
from ..numpy.util import ArrayLike, as_array, broadcast_to, check_arraylike, promote_dtypes_inexact


def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> ArrayLike:
    """The Cholesky factor of each matrix of a: upper-triangular U with a = U^H U, or with
    ``lower`` the lower-triangular L with a = L L^H. Only that triangle of a is read."""
    del overwrite_a, check_finite
    check_arraylike("jax.scipy.linalg.cholesky", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    factor = lax.linalg.cholesky(a if lower else lax.linalg.H(a), symmetrize_input=False)
    return factor if lower else lax.linalg.H(factor)


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[ArrayLike, bool]:  # fmt: skip
    """``(c, lower)`` for cho_solve: c is ``cholesky(a, lower)``."""
    return cholesky(a, lower=lower, overwrite_a=overwrite_a, check_finite=check_finite), lower


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> ArrayLike:  # fmt: skip
    """x with a x = b, given ``cho_factor(a)``: two triangular solves."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    check_arraylike("jax.scipy.linalg.cho_solve", c, b)
    c, b = promote_dtypes_inexact(as_array(c), as_array(b))
    c, b = _batched(c, b, "cho_solve")
    # a = L L^H: solve L y = b, then L^H x = y (or, from U = L^H: U^H y = b, then U x = y).
    b = lax.linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower, conjugate_a=not lower)
    return lax.linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower)


def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen") -> ArrayLike:  # fmt: skip
    """x with a x = b, b a batch of vectors (..., m) or of matrices (..., m, k): through LU, as
    jnp.linalg.solve, or with ``assume_a="pos"`` (a Hermitian and positive definite) through the
    Cholesky factor of a's ``lower`` (or upper) triangle, the only one read."""
    del overwrite_a, overwrite_b, debug, check_finite
    kinds = ["gen", "sym", "her", "pos"]
    if assume_a not in kinds:
        raise ValueError(f"Expected assume_a to be one of {kinds}; got {assume_a!r}")
    if assume_a != "pos":
        return numpy_linalg.solve(a, b)
    check_arraylike("jax.scipy.linalg.solve", a, b)
    a, b = promote_dtypes_inexact(as_array(a), as_array(b))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if not (len(a_shape) >= 2 and len(b_shape) in (len(a_shape), len(a_shape) - 1)
            and a_shape[-1] == a_shape[-2] == b_shape[len(a_shape) - 2]):  # fmt: skip
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or b=[..., m]; "
                         f"got a={a_shape} and b={b_shape}")
    vector = len(b_shape) == len(a_shape) - 1
    if vector:  # a column of its own
        b = lax.expand_dims(b, (len(b_shape),))
    x = cho_solve(cho_factor(a, lower=lower), b)
    return lax.squeeze(x, (len(b_shape),)) if vector else x


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> ArrayLike:
    """The inverse of each matrix of the batch a, as jnp.linalg.inv computes it."""
    del overwrite_a, check_finite
    return numpy_linalg.inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> ArrayLike:
    """The determinant of each matrix of the batch a, as jnp.linalg.det computes it."""
    del overwrite_a, check_finite
    return numpy_linalg.det(a)


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> ArrayLike:  # fmt: skip
    """x with op(a) x = b for a triangular a: op is nothing (``trans`` 0 or "N"), the transpose
    (1 or "T") or the conjugate transpose (2 or "C"). Only the ``lower`` (or upper) triangle of a
    is read, and with ``unit_diagonal`` not its diagonal."""
    del overwrite_b, debug, check_finite
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    check_arraylike("jax.scipy.linalg.solve_triangular", a, b)
    a, b = promote_dtypes_inexact(as_array(a), as_array(b))
    a, b = _batched(a, b, "solve_triangular")
    return lax.linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                       conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> tuple[ArrayLike, ArrayLike]:
    """``(lu, piv)`` for lu_solve: L and U packed in one matrix, and the row swaps (LAPACK's
    getrf, counted from 0)."""
    del overwrite_a, check_finite
    check_arraylike("jax.scipy.linalg.lu_factor", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    lu, pivots, _ = lax.linalg.lu(a)
    return lu, pivots


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> ArrayLike:  # fmt: skip
    """x with op(a) x = b, given ``lu_factor(a)``: op is nothing (``trans`` 0), the transpose (1)
    or the conjugate transpose (2)."""
    del overwrite_b, check_finite
    lu, pivots = lu_and_piv
    check_arraylike("jax.scipy.linalg.lu_solve", lu, pivots, b)
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    lu, b = promote_dtypes_inexact(as_array(lu), as_array(b))
    m = get_aval(lu).shape[-2]
    lu, b = _batched(lu, b, "lu_solve")
    shape = get_aval(lu).shape
    permutation = broadcast_to(lax.linalg.lu_pivots_to_permutation(pivots, m), (*shape[:-2], m))
    vectors = get_aval(b).ndim == len(shape) - 1
    if vectors:
        b = lax.expand_dims(b, (len(shape) - 1,))
    x = _lu_solve(lu, permutation, b, trans)
    return lax.squeeze(x, (len(shape) - 1,)) if vectors else x


def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[ArrayLike, ...]:  # fmt: skip
    """``(p, l, u)`` with a = p l u: p a permutation matrix, l unit lower triangular (m by k),
    u upper triangular (k by n), k = min(m, n); with ``permute_l``, ``(p l, u)``."""
    del overwrite_a, check_finite
    check_arraylike("jax.scipy.linalg.lu", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    packed, _, permutation = lax.linalg.lu(a)
    shape = get_aval(a).shape
    m, n = shape[-2:]
    k = min(m, n)
    dtype = get_aval(a).dtype
    eye = lax.broadcast_in_dim(np.eye(m, k, dtype=dtype), (*shape[:-2], m, k), (len(shape) - 2, len(shape) - 1))
    lower = lax.add(lax.linalg.tril(lax.slice_in_dim(packed, 0, k, axis=len(shape) - 1), -1), eye)
    upper = lax.linalg.triu(lax.slice_in_dim(packed, 0, k, axis=len(shape) - 2))
    # p's column permutation[i] is e_i: row permutation[i] of a is row i of l u
    rows = lax.broadcasted_iota(np.int32, (*shape[:-2], m, m), len(shape) - 2)
    p = lax.convert_element_type(lax.eq(rows, lax.expand_dims(permutation, (len(shape) - 2,))), dtype)
    if permute_l:
        return lax.linalg.batch_matmul(p, lower), upper
    return p, lower, upper


def qr(a: ArrayLike, overwrite_a: bool = False, lwork: Any = None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True) -> tuple[ArrayLike, ...]:  # fmt: skip
    """``(q, r)`` with a = q r (``mode`` "full": q m by m; "economic": min(m, n) columns of q and
    rows of r), or ``(r,)`` alone (``mode`` "r", r m by n); with ``pivoting`` the columns p of a
    that q r is come last: ``(q, r, p)`` or ``(r, p)``."""
    del overwrite_a, lwork, check_finite
    check_arraylike("jax.scipy.linalg.qr", a)
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = promote_dtypes_inexact(as_array(a))
    q, r, *p = lax.linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
    return (r, *p) if mode == "r" else (q, r, *p)


def _batched(a: ArrayLike, b: ArrayLike, name: str) -> tuple[ArrayLike, ArrayLike]:
    """a (..., n, n) and b (..., n) or (..., n, k) broadcast to one batch shape: NumPy's rules on
    the axes before the matrices (JAX's jnp.vectorize with the signature (n,n),(n)->(n) or
    (n,n),(n,k)->(n,k))."""
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    vectors = len(b_shape) == 1 or (len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1])
    if vectors and len(b_shape) > 1:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in the "
                      f"future will be treated as a batched 2D solve. Use {name}(..., b[..., None]).squeeze(-1) "
                      "to avoid this warning.", FutureWarning, stacklevel=3)
    core = 1 if vectors else 2
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:len(b_shape) - core])
    return broadcast_to(a, batch + a_shape[-2:]), broadcast_to(b, batch + b_shape[len(b_shape) - core:])
