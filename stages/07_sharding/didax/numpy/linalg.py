"""didax.numpy.linalg: vector and matrix norms and the Cholesky factor. Stage 01 introduced it.

Only norms that need no singular values: the 2-norm and nuclear norm of a matrix need them, and
didax has no primitive for them yet, so they are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from .reductions import max, min, sum
from .ufuncs import absolute, power, sqrt
from .util import ArrayLike, as_array, canonicalize_axes, check_arraylike, convert, promote_dtypes_inexact


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
    elif ord in (2, -2, "nuc"):
        raise NotImplementedError(
            f"didax.numpy.linalg.norm: ord={ord!r} needs singular values (no SVD in didax)."
        )
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
