"""didax.numpy.linalg: vector and matrix norms, the Cholesky and QR factors, what an LU decomposition
gives (solve, inv, det, slogdet, tensorsolve), the eigenvalues of Hermitian matrices (eigh,
eigvalsh), what singular values give (svd, svdvals, matrix_rank, pinv, lstsq), and products of
matrices (matrix_power, multi_dot). Stage 01 introduced it.

"""

from __future__ import annotations

import builtins
import operator
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from .indexing import take_along_axis
from .reductions import max, min, prod, sum
from .shapes import dot, matmul, moveaxis, reshape
from .sorting import argsort
from .structure import diagonal
from .ufuncs import absolute, power, sqrt
from .util import (ArrayLike, as_array, broadcast_to, canonicalize_axes, check_arraylike, convert,
                   promote_dtypes_inexact)


def norm(x: ArrayLike, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ArrayLike:  # noqa: A002
    """The vector norm (1-D or one axis) or matrix norm (2-D or two axes) of x."""
    check_arraylike("norm", x)
    x = as_array(x)
    aval = get_aval(x)
    x = convert(x, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(aval.dtype)))
    if axis is None:
        if ord is None:
            return _keep(sqrt(sum(_abs2(x))), aval.ndim, keepdims)
        axes = tuple(range(aval.ndim))
    else:
        axes = canonicalize_axes(axis, aval.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values ({axis}) for norm: one or two axes only.")


def _keep(out: ArrayLike, ndim: int, keepdims: bool) -> ArrayLike:
    return lax.reshape(out, (1,) * ndim) if keepdims else out


def _abs2(x: ArrayLike) -> ArrayLike:
    if get_aval(x).dtype.kind == "c":
        return lax.add(lax.square(lax.real(x)), lax.square(lax.imag(x)))
    return lax.mul(x, x)


def _vector_norm(x: ArrayLike, ord: Any, axes: tuple[int, ...], keepdims: bool) -> ArrayLike:  # noqa: A002
    if ord is None or ord == 2:
        return sqrt(sum(_abs2(x), axis=axes, keepdims=keepdims))
    if ord == np.inf:
        return max(absolute(x), axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return min(absolute(x), axis=axes, keepdims=keepdims)
    if ord == 0:
        a = absolute(x)
        return sum(
            convert(lax.ne(a, convert(0, get_aval(a).dtype)), get_aval(a).dtype), axis=axes, keepdims=keepdims
        )
    if ord == 1:
        return sum(absolute(x), axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    a = absolute(x)
    dtype = get_aval(a).dtype
    total = sum(power(a, convert(float(ord), dtype)), axis=axes, keepdims=keepdims)
    return power(total, convert(1.0 / float(ord), dtype))


def _matrix_norm(x: ArrayLike, ord: Any, axes: tuple[int, ...], keepdims: bool) -> ArrayLike:  # noqa: A002
    row, col = axes
    if ord is None or ord == "fro":
        return sqrt(sum(_abs2(x), axis=axes, keepdims=keepdims))
    if ord in (1, -1):
        sums = sum(absolute(x), axis=row, keepdims=True)
        pick = max if ord == 1 else min
    elif ord in (np.inf, -np.inf):
        sums = sum(absolute(x), axis=col, keepdims=True)
        pick = max if ord == np.inf else min
    elif ord in (2, -2, "nuc"):  # from the singular values, the matrix axes moved last
        values = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        out = sum(values, axis=-1) if ord == "nuc" else (max if ord == 2 else min)(values, axis=-1)
        if keepdims:
            return lax.expand_dims(out, sorted(axes))
        return out
    else:
        raise ValueError(f"Invalid order {ord!r} for matrix norm.")
    out = pick(sums, axis=axes, keepdims=True)
    if keepdims:
        return out
    return lax.reshape(out, tuple(n for i, n in enumerate(get_aval(out).shape) if i not in axes))


def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> ArrayLike:
    """The Cholesky factor of each matrix of a (Hermitian, positive definite): the lower-triangular
    L with a = L L^H, or with ``upper`` the upper-triangular U = L^H; NaNs where a is not positive
    definite."""
    check_arraylike("jnp.linalg.cholesky", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    factor = lax.linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return lax.linalg.H(factor) if upper else factor


# ----------------------------------------------------------------------------------------------
# Through an LU decomposition: a[perm] = L U, so a x = b is L U x = b[perm], two triangular solves.


def solve(a: ArrayLike, b: ArrayLike) -> ArrayLike:
    """x with a x = b, for each matrix of the batch a (n by n): b is a vector (n,) or a batch of
    matrices (..., n, k), whose batch axes broadcast with a's. NaNs or infinities where a is singular."""
    check_arraylike("jnp.linalg.solve", a, b)
    a, b = promote_dtypes_inexact(as_array(a), as_array(b))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if len(a_shape) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
    if len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1] != b_shape[-2]:
        raise ValueError(f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, this would have "
                         "been treated as a batched 1-dimensional solve. To recover this behavior, use "
                         "solve(a, b[..., None]).squeeze(-1).")
    _square("solve", a_shape)
    vector = len(b_shape) == 1
    if vector:
        b = lax.reshape(b, (*b_shape, 1))
    a, b = _broadcast_batches(a, b)
    lu, _, permutation = lax.linalg.lu(a)
    x = _lu_solve(lu, permutation, b, trans=0)
    return lax.reshape(x, get_aval(x).shape[:-1]) if vector else x


def _lu_solve(lu: ArrayLike, permutation: ArrayLike, b: ArrayLike, trans: int) -> ArrayLike:
    """x with op(a) x = b, given a's packed LU factors and permutation (one batch shape, b a batch
    of matrices): op is nothing (``trans`` 0), the transpose (1) or the conjugate transpose (2)."""
    if trans == 0:  # L U x = b[perm]
        x = take_along_axis(b, lax.expand_dims(permutation, (-1,)), axis=-2)
        x = lax.linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        return lax.linalg.triangular_solve(lu, x, left_side=True, lower=False)
    # a^T = U^T L^T P: solve U^T y = b, then L^T z = y; x is z with its rows put back, x[perm] = z
    conjugate = trans == 2
    x = lax.linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conjugate)
    x = lax.linalg.triangular_solve(lu, x, left_side=True, lower=True, transpose_a=True, conjugate_a=conjugate,
                                    unit_diagonal=True)  # fmt: skip
    return take_along_axis(x, lax.expand_dims(argsort(permutation, axis=-1), (-1,)), axis=-2)


def inv(a: ArrayLike) -> ArrayLike:
    """The inverse of each matrix of the batch a: the solve of a x = I."""
    check_arraylike("jnp.linalg.inv", a)
    shape = get_aval(as_array(a)).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {shape}.")
    (a,) = promote_dtypes_inexact(as_array(a))
    eye = lax.broadcast_in_dim(np.eye(shape[-1], dtype=get_aval(a).dtype), shape, (len(shape) - 2, len(shape) - 1))
    return solve(a, eye)


class SlogdetResult(NamedTuple):
    """What slogdet returns: the determinant's sign (a unit complex number for complex matrices)
    and the natural logarithm of its absolute value."""

    sign: Any
    logabsdet: Any


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """The sign and log of the absolute value of each determinant of the batch a, from LU: the
    product of U's diagonal, its sign flipped once per row swap (or, with ``method="qr"``, from
    QR). A singular matrix: sign 0, -inf."""
    check_arraylike("jnp.linalg.slogdet", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    shape = get_aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {shape}")
    if method not in (None, "lu", "qr"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'.")
    if method == "qr":
        return _slogdet_qr(a)
    lu, pivots, _ = lax.linalg.lu(a)
    u_diagonal = _diagonal(lu)
    dtype = get_aval(a).dtype
    zero = lax.full_like(u_diagonal, 0)
    singular = lax.reduce_or(lax.eq(u_diagonal, zero), (len(shape) - 2,))
    steps = lax.broadcasted_iota(np.int32, get_aval(pivots).shape, len(shape) - 2)
    swaps = _count(lax.ne(pivots, steps))
    if dtypes.issubdtype(dtype, np.complexfloating):
        sign = prod(lax.div(u_diagonal, lax.convert_element_type(absolute(u_diagonal), dtype)), axis=-1)
    else:
        sign = lax.full_like(singular, 1, dtype)
        swaps = lax.add(swaps, _count(lax.lt(u_diagonal, zero)))
    odd = lax.eq(lax.rem(swaps, lax.full_like(swaps, 2)), lax.full_like(swaps, 1))
    sign = lax.select_n(odd, sign, lax.neg(sign))
    sign = lax.select_n(singular, sign, lax.full_like(sign, 0))
    log_abs = sum(lax.log(absolute(u_diagonal)), axis=-1)
    log_abs = lax.select_n(singular, log_abs, lax.full_like(log_abs, -np.inf))
    return SlogdetResult(sign, log_abs)


def _slogdet_qr(a: ArrayLike) -> SlogdetResult:
    """From a = Q R: log |det a| is the sum of log |R_ii|, and det a's sign is det Q's (1 or -1,
    read from Q's LU) times the signs of R's diagonal. (JAX counts geqrf's reflections instead.)"""
    if dtypes.issubdtype(get_aval(a).dtype, np.complexfloating):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    q, r = lax.linalg.qr(a)
    r_diagonal = _diagonal(r)
    sign = lax.mul(slogdet(q).sign, prod(lax.sign(r_diagonal), axis=-1))
    return SlogdetResult(sign, sum(lax.log(absolute(r_diagonal)), axis=-1))


def det(a: ArrayLike) -> ArrayLike:
    """The determinant of each matrix of the batch a: written out for 2 by 2 and 3 by 3 matrices
    (as JAX does), from slogdet for the others."""
    check_arraylike("jnp.linalg.det", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    shape = get_aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {shape}")
    if shape[-1] in (2, 3):
        return _det_small(a, shape[-1])
    sign, log_abs = slogdet(a)
    return lax.mul(sign, lax.convert_element_type(lax.exp(log_abs), get_aval(sign).dtype))


def _det_small(a: ArrayLike, n: int) -> ArrayLike:
    """The Leibniz formula: a sum over the permutations of the columns, each with its sign."""
    e = lambda i, j: a[..., i, j]  # noqa: E731
    if n == 2:
        return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)
    return (e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0) + e(0, 2) * e(1, 0) * e(2, 1)
            - e(0, 2) * e(1, 1) * e(2, 0) - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2))  # fmt: skip


def _square(name: str, shape: tuple[int, ...]) -> None:
    if shape[-1] != shape[-2]:
        raise ValueError(f"{name}: the matrices must be square, got shape {shape}.")


def _broadcast_batches(a: ArrayLike, b: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
    """a (..., n, n) and b (..., n, k) with their batch axes broadcast to one shape."""
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    return broadcast_to(a, batch + a_shape[-2:]), broadcast_to(b, batch + b_shape[-2:])


def _diagonal(x: ArrayLike) -> ArrayLike:
    """The diagonal of each matrix of the batch x."""
    n = len(get_aval(x).shape)
    return diagonal(x, axis1=n - 2, axis2=n - 1)


def _count(flags: ArrayLike) -> ArrayLike:
    """How many of the last axis's flags are True, as int32."""
    return sum(lax.convert_element_type(flags, np.int32), axis=-1, dtype=np.int32)


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> ArrayLike:
    """x with tensordot(a, x, x.ndim) = b: a's leading axes (b's shape) become one axis of rows,
    its others (x's shape) one of columns, and the square system is solved; ``axes`` of a are
    moved to the end first."""
    check_arraylike("tensorsolve", a, b)
    a, b = as_array(a), as_array(b)
    if axes is not None:
        a = moveaxis(a, axes, (get_aval(a).ndim - 1,) * len(axes))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    out_shape = a_shape[len(b_shape):]
    if a_shape[:len(b_shape)] != b_shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={a_shape}, b.shape={b_shape}")
    size = int(np.prod(b_shape))
    if size != int(np.prod(out_shape)):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
                         f"got a.shape={a_shape}, b.ndim={len(b_shape)}.")
    return reshape(solve(reshape(a, (size, size)), reshape(b, (size,))), out_shape)


def matrix_power(a: ArrayLike, n: int) -> ArrayLike:
    """a multiplied by itself n times, by repeated squaring (a's inverse for a negative n, the
    identity for 0)."""
    check_arraylike("jnp.linalg.matrix_power", a)
    a = as_array(a)
    shape = get_aval(a).shape
    if len(shape) < 2:
        raise TypeError(f"{len(shape)}-dimensional array given. Array must be at least two-dimensional")
    if shape[-2] != shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError(f"exponent must be an integer, got {n}") from e
    if n == 0:
        eye = np.eye(shape[-1], dtype=get_aval(a).dtype)
        return lax.broadcast_in_dim(eye, shape, (len(shape) - 2, len(shape) - 1))
    if n < 0:
        a, n = inv(a), -n
    result, square = None, a
    while True:  # the bits of n, lowest first: a^(2^k) is in the product where bit k is set
        if n % 2:
            result = square if result is None else matmul(result, square)
        n //= 2
        if not n:
            return result
        square = matmul(square, square)


def multi_dot(arrays: Any, *, precision: Any = None) -> ArrayLike:
    """The product of a chain of matrices (the first and last may be vectors), multiplied in the
    order that costs the fewest multiplications, found by dynamic programming over the chain."""
    del precision  # (didax computes every product at full precision)
    arrays = [as_array(x) for x in arrays]
    check_arraylike("jnp.linalg.multi_dot", *arrays)
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrays)}")
    shapes = [get_aval(x).shape for x in arrays]
    if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2) and all(len(s) == 2 for s in shapes[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the first and last array "
                         f"which may be 1 or 2 dimensional. Got array shapes {shapes}")
    if any(s[-1] != t[0] for s, t in zip(shapes[:-1], shapes[1:])):
        raise ValueError(f"multi_dot: last dimension of each array must match first dimension of following array. "
                         f"Got array shapes {shapes}")
    # matrix i is dims[i] by dims[i + 1] (a vector first or last counts as one row or one column)
    dims = [1 if len(shapes[0]) == 1 else shapes[0][0], *(s[-1] for s in shapes[:-1]),
            1 if len(shapes[-1]) == 1 else shapes[-1][-1]]
    split = _chain_order(dims)

    def product(i: int, j: int) -> ArrayLike:  # arrays[i] to arrays[j], both included
        if i == j:
            return arrays[i]
        k = split[i][j]
        return dot(product(i, k), product(k + 1, j))

    return product(0, len(arrays) - 1)


def _chain_order(dims: list[int]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i to j is split in two (the textbook
    dynamic program for a chain of matrix products)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            # the cost of (i..k)(k+1..j): each half's, and the product of a dims[i] by dims[k + 1]
            # matrix with a dims[k + 1] by dims[j + 1] one
            cost[i][j], split[i][j] = builtins.min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k) for k in range(i, j))
    return split


class QRResult(NamedTuple):
    """What qr returns: Q, with orthonormal columns, and the upper-triangular R, with a = Q R."""

    Q: Any
    R: Any


def qr(a: ArrayLike, mode: str = "reduced") -> Any:
    """The QR decomposition of each matrix of the batch a (m by n), as a QRResult: with ``mode``
    "reduced" (or NumPy's old name "full"), min(m, n) columns of Q and rows of R; "complete", Q m by
    m and R m by n; "r", R alone (reduced)."""
    check_arraylike("jnp.linalg.qr", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    if mode == "raw":
        raise NotImplementedError("jnp.linalg.qr(mode='raw'): didax has no geqrf primitive for LAPACK's own "
                                  "representation; use mode='reduced' or 'complete'.")  # fmt: skip
    if mode not in ("reduced", "r", "full", "complete"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax.linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


class EighResult(NamedTuple):
    """What eigh returns: the eigenvalues in ascending order, and the unit eigenvectors (columns)."""

    eigenvalues: Any
    eigenvectors: Any


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803
    """The eigenvalues (ascending) and eigenvectors of each Hermitian matrix of the batch a; with
    ``symmetrize_input=False`` only its lower (``UPLO`` "L", the default) or upper triangle is read."""
    check_arraylike("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    (a,) = promote_dtypes_inexact(as_array(a))
    v, w = lax.linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> ArrayLike:  # noqa: N803
    """The eigenvalues of each Hermitian matrix of the batch a, in ascending order."""
    check_arraylike("jnp.linalg.eigvalsh", a)
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


class SVDResult(NamedTuple):
    """What svd returns: U, the singular values (descending) and V^H, with a = U diag(S) Vh."""

    U: Any
    S: Any
    Vh: Any


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: tuple[int, int] | None = None) -> Any:  # fmt: skip
    """The singular value decomposition of each matrix of the batch a, as an SVDResult, or the
    singular values alone without ``compute_uv``. A ``hermitian`` a is decomposed by eigh: its
    singular values are its eigenvalues' magnitudes."""
    check_arraylike("jnp.linalg.svd", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    out = lax.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, subset_by_index=subset_by_index)
    return SVDResult(*out) if compute_uv else out


def _hermitian_svd(a: ArrayLike, compute_uv: bool) -> Any:
    """a = V diag(w) V^H = V diag(|w|) (V diag(sign(w)))^H, the magnitudes sorted descending."""
    w, v = eigh(a)
    order = argsort(lax.neg(absolute(w)), axis=-1)  # largest magnitude first
    s = take_along_axis(absolute(w), order, axis=-1)
    if not compute_uv:
        return s
    w = take_along_axis(w, order, axis=-1)
    v = take_along_axis(v, lax.expand_dims(order, (get_aval(order).ndim - 1,)), axis=-1)
    signs = lax.convert_element_type(lax.sign(w), get_aval(v).dtype)
    return SVDResult(v, s, lax.linalg.H(lax.mul(v, lax.expand_dims(signs, (get_aval(signs).ndim - 1,)))))


def svdvals(x: ArrayLike, /) -> ArrayLike:
    """The singular values of each matrix of the batch x, descending."""
    check_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False)


def matrix_rank(M: ArrayLike, rtol: ArrayLike | None = None, *, tol: ArrayLike | None = None,  # noqa: N803
                hermitian: bool = False) -> ArrayLike:  # fmt: skip
    """How many singular values of each matrix of the batch M exceed ``rtol`` (by default the
    largest singular value times max(m, n) times the dtype's epsilon)."""
    check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (M,) = promote_dtypes_inexact(as_array(M))
    shape = get_aval(M).shape
    if len(shape) < 2:
        return lax.convert_element_type(lax.reduce_or(lax.ne(M, lax.full_like(M, 0)), tuple(range(len(shape)))),
                                        np.int32)  # fmt: skip
    values = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    dtype = get_aval(values).dtype
    if rtol is None:
        rtol = lax.mul(max(values, axis=-1), convert(builtins.max(shape[-2:]) * float(np.finfo(dtype).eps), dtype))
    rtol = lax.expand_dims(as_array(rtol), (get_aval(as_array(rtol)).ndim,))
    return sum(lax.gt(values, lax.convert_element_type(rtol, dtype)), axis=-1)


def pinv(a: ArrayLike, rtol: ArrayLike | None = None, hermitian: bool = False, *,
         rcond: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The Moore-Penrose pseudo-inverse of each matrix of the batch a: V diag(1 / s) U^H, with
    the singular values at most ``rtol`` times the largest taken as zero."""
    check_arraylike("jnp.linalg.pinv", a)
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    (a,) = promote_dtypes_inexact(as_array(a))
    shape, dtype = get_aval(a).shape, get_aval(a).dtype
    m, n = shape[-2:]
    if m == 0 or n == 0:
        return lax.full((*shape[:-2], n, m), 0, dtype)
    u, s, vh = svd(lax.conj(a) if dtypes.issubdtype(dtype, np.complexfloating) else a, full_matrices=False,
                   hermitian=hermitian)  # fmt: skip
    if rtol is None:
        rtol = 10.0 * builtins.max(m, n) * float(np.finfo(get_aval(s).dtype).eps)
    rtol = as_array(rtol)
    rtol = lax.expand_dims(rtol, tuple(range(get_aval(rtol).ndim, get_aval(s).ndim)))  # one per matrix, or one
    cutoff = lax.mul(lax.convert_element_type(rtol, get_aval(s).dtype), lax.slice_in_dim(s, 0, 1, axis=-1))
    s = lax.select_n(lax.gt(s, cutoff), lax.full_like(s, np.inf), s)
    scaled = lax.div(lax.linalg.mT(u), lax.expand_dims(lax.convert_element_type(s, dtype), (get_aval(s).ndim,)))
    return matmul(lax.linalg.mT(vh), scaled)


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike]:  # fmt: skip
    """The least-squares solution x of a x = b (a one matrix, b one or more columns), from a's
    SVD, with singular values below ``rcond`` times the largest left out: ``(x, residuals, rank, s)``."""
    check_arraylike("jnp.linalg.lstsq", a, b)
    a, b = promote_dtypes_inexact(as_array(a), as_array(b))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if a_shape[0] != b_shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = len(b_shape) == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    if len(a_shape) != 2:
        raise TypeError(f"{len(a_shape)}-dimensional array given. Array must be two-dimensional")
    if get_aval(b).ndim != 2:
        raise TypeError(f"{len(b_shape)}-dimensional array given. Array must be one or two-dimensional")
    m, n = a_shape
    dtype = get_aval(a).dtype
    u, s, vh = svd(a, full_matrices=False)
    eps = float(np.finfo(get_aval(s).dtype).eps)
    rcond = eps * builtins.max(m, n) if rcond is None else (eps if rcond < 0 else rcond)
    keep = lax.bitwise_and(lax.gt(s, lax.full_like(s, 0)), lax.ge(s, lax.mul(lax.full_like(s, rcond), s[0:1])))
    rank = sum(lax.convert_element_type(keep, np.int32), dtype=np.int32)
    safe = lax.select_n(keep, lax.full_like(s, 1), s)  # (no division by a dropped value)
    inverse = lax.select_n(keep, lax.full_like(s, 0), lax.div(lax.full_like(s, 1), safe))
    x = matmul(lax.linalg.H(vh), lax.mul(lax.expand_dims(lax.convert_element_type(inverse, dtype), (1,)),
                                        matmul(lax.linalg.H(u), b)))  # fmt: skip
    if numpy_resid and (int(rank) < n or m <= n):
        residuals = as_array(np.zeros(0, get_aval(s).dtype))
    else:
        residuals = sum(_abs2(lax.sub(b, matmul(a, x))), axis=0)
    return (reshape(x, (n,)) if vector else x), residuals, rank, s
