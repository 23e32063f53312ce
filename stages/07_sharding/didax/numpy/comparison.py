"""Comparing whole arrays: isclose, allclose, array_equal, array_equiv, all through lax
comparisons and reductions. Stage 01 introduced it.
"""

from __future__ import annotations


import numpy as np

from .. import dtypes, lax
from ..array import Array
from ..core import get_aval
from .util import ArrayLike, as_array, check_arraylike, convert, promote_args


def _finite(x: ArrayLike) -> ArrayLike:
    if get_aval(x).dtype.kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def _isnan(x: ArrayLike) -> ArrayLike:
    return lax.ne(x, x)


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> ArrayLike:
    """Whether ``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close only to themselves."""
    check_arraylike("isclose", a, b)
    a, b = promote_args("isclose", a, b)
    dt = get_aval(a).dtype
    if not dtypes.is_inexact(dt):
        return lax.eq(a, b)
    real = np.dtype(np.float32 if dt == np.complex64 else np.float64) if dt.kind == "c" else dt
    rtol, atol = convert(as_array(rtol), real), convert(as_array(atol), real)
    close = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    both_finite = lax.bitwise_and(_finite(a), _finite(b))
    out = lax.bitwise_or(lax.bitwise_and(close, both_finite), lax.bitwise_and(lax.eq(a, b), lax.bitwise_not(
        both_finite)))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(_isnan(a), _isnan(b)))
    return out


def _all(x: ArrayLike) -> ArrayLike:
    return lax.reduce_and(x, tuple(range(get_aval(x).ndim)))


def allclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
             equal_nan: bool = False) -> ArrayLike:
    """Whether every pair of entries is close (see isclose)."""
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> ArrayLike:
    """Whether the arrays have one shape and equal entries (NaNs equal when ``equal_nan``)."""
    check_arraylike("array_equal", a1, a2)
    a1, a2 = as_array(a1), as_array(a2)
    if get_aval(a1).shape != get_aval(a2).shape:
        return Array(np.asarray(False))
    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_inexact(get_aval(a1).dtype):
        eq = lax.bitwise_or(eq, lax.bitwise_and(_isnan(a1), _isnan(a2)))
    return _all(eq)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> ArrayLike:
    """Whether the arrays are equal everywhere once broadcast together (shapes that do not
    broadcast are a TypeError, as in JAX)."""
    check_arraylike("array_equiv", a1, a2)
    a1, a2 = promote_args("array_equiv", a1, a2)
    return _all(lax.eq(a1, a2))


