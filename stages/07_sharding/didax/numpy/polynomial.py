"""Polynomials as 1-D arrays of coefficients, highest power first: poly (from roots), polyadd,
polysub, polymul (a convolution), polydiv (long division), polyder and polyint. Stage 01
introduced it. polyval is in counting.py; polyfit and roots, which need linear-algebra
decompositions, are out of scope at this stage (so is poly of a square matrix: eigenvalues).
"""

from __future__ import annotations

import operator
import numpy as np

from .. import dtypes, lax
from ..core import get_aval, to_concrete_value
from ..errors import ConcretizationTypeError
from .counting import convolve
from .creation import arange, ones, zeros
from .manipulation import atleast_1d
from .reductions import prod
from .shapes import concatenate
from .structure import trim_zeros
from .ufuncs import maximum, multiply, negative, true_divide
from .util import ArrayLike, as_array, check_arraylike, convert, promote_dtypes, promote_dtypes_inexact


def _length(x: ArrayLike) -> int:
    """len(x), refusing a scalar as len() does: these functions take arrays of coefficients."""
    shape = get_aval(x).shape
    if not shape:
        raise TypeError("len() of unsized object: pass the coefficients as a 1-D array")
    return shape[0]


def poly(seq_of_zeros: ArrayLike) -> ArrayLike:
    """The coefficients of the monic polynomial with the given roots: prod_k (x - root_k), as a
    chain of convolutions with [1, -root_k]. Always inexact; a scalar counts as one root."""
    check_arraylike("poly", seq_of_zeros)
    (roots,) = promote_dtypes_inexact(as_array(seq_of_zeros))
    roots = atleast_1d(roots)
    shape, dt = get_aval(roots).shape, get_aval(roots).dtype
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        raise NotImplementedError(
            "didax.numpy.poly of a square matrix needs the matrix's eigenvalues, and eigenvalue "
            "decompositions are out of scope at this stage: pass the roots as a 1-D array."
        )
    if len(shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if shape[0] == 0:
        return ones((), dtype=dt)
    coefficients = ones((1,), dtype=dt)
    for k in range(shape[0]):
        factor = concatenate([ones((1,), dtype=dt), negative(lax.index_in_dim(roots, k))])
        coefficients = convolve(coefficients, factor, mode="full")
    return coefficients


def polyadd(a1: ArrayLike, a2: ArrayLike) -> ArrayLike:
    """The sum of two polynomials: the shorter one added to the end of the longer."""
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(as_array(a1), as_array(a2))
    shape1, shape2 = get_aval(a1).shape, get_aval(a2).shape
    if not shape1 or not shape2:
        raise IndexError("polyadd takes arrays of coefficients, not scalars: use didax.numpy.atleast_1d")
    if shape2[0] <= shape1[0]:
        return a1.at[-shape2[0]:].add(a2)
    return a2.at[-shape1[0]:].add(a1)


def polysub(a1: ArrayLike, a2: ArrayLike) -> ArrayLike:
    """The difference of two polynomials."""
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(as_array(a1), as_array(a2))
    return polyadd(a1, negative(a2))


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> ArrayLike:
    """The product of two polynomials: the full convolution of their coefficients."""
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes_inexact(as_array(a1), as_array(a2))
    if trim_leading_zeros and (_length(a1) > 1 or _length(a2) > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if _length(a1) == 0:
        a1 = zeros(1, dtype=get_aval(a2).dtype)
    if _length(a2) == 0:
        a2 = zeros(1, dtype=get_aval(a1).dtype)
    return convolve(a1, a2, mode="full")


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False) -> tuple[ArrayLike, ArrayLike]:
    """The quotient and remainder of u / v, by long division: one step per power of the quotient.
    The remainder keeps u's length unless ``trim_leading_zeros`` (which needs known values)."""
    check_arraylike("polydiv", u, v)
    u, v = promote_dtypes_inexact(as_array(u), as_array(v))
    m, n = _length(u) - 1, _length(v) - 1
    dt = get_aval(u).dtype
    scale = true_divide(1.0, lax.index_in_dim(v, 0, keepdims=False))
    q = zeros(max(m - n + 1, 1), dtype=dt)
    for k in range(m - n + 1):
        d = multiply(scale, lax.index_in_dim(u, k, keepdims=False))
        q = q.at[k].set(d)
        u = u.at[k : k + n + 1].add(multiply(negative(d), v))
    if trim_leading_zeros:
        # NumPy's tolerance, about: the square root of the machine epsilon.
        u = _trim_leading_small(u, float(np.sqrt(dtypes.finfo(dt).eps)))
    return q, u


def _trim_leading_small(x: ArrayLike, tol: float) -> ArrayLike:
    """``x`` without its leading entries of magnitude below ``tol``; the length depends on the
    values, which must be known."""
    magnitude = lax.abs(x)
    big = lax.bitwise_not(lax.lt(magnitude, convert(tol, get_aval(magnitude).dtype)))  # NaN counts as big
    if to_concrete_value(big) is None:
        raise ConcretizationTypeError(x, "The problem arose with polydiv's trim_leading_zeros=True: the length "
                                         "of the remainder depends on the values.\n")  # fmt: skip
    if not bool(to_concrete_value(lax.reduce_or(big, (0,)))):
        return zeros(0, dtype=get_aval(x).dtype)
    start = int(to_concrete_value(lax.argmax(big, 0, np.int32)))
    return lax.slice_in_dim(x, start, None)


def polyder(p: ArrayLike, m: int = 1) -> ArrayLike:
    """The m-th derivative: each coefficient times the falling factorial of its power."""
    check_arraylike("polyder", p)
    m = operator.index(m)
    (p,) = promote_dtypes_inexact(as_array(p))
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n, dt = _length(p), get_aval(p).dtype
    # grid[j, i] = (m + i) - j; its product over j is the power's falling factorial.
    grid = lax.sub(_row(arange(m, max(n, m), dtype=dt)), _column(arange(m, dtype=dt)))
    factors = lax.rev(prod(grid, axis=0), (0,))
    return multiply(lax.slice_in_dim(p, 0, max(n - m, 0)), factors)


def polyint(p: ArrayLike, m: int = 1, k: int | ArrayLike | None = None) -> ArrayLike:
    """The m-th antiderivative, with integration constants ``k`` (one, or one per integration)."""
    m = operator.index(m)
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = promote_dtypes_inexact(as_array(p), as_array(k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if get_aval(k).shape == (1,):
        k = lax.broadcast_in_dim(lax.reshape(k, ()), (m,), ())
    if get_aval(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    n, dt = _length(p), get_aval(p).dtype
    # grid[j, i] = i - j, at least 1: the product over j divides coefficient i's power m times.
    grid = lax.sub(_row(arange(n + m, dtype=dt)), _column(arange(m, dtype=dt)))
    divisors = lax.rev(prod(maximum(1, grid), axis=0), (0,))
    return true_divide(concatenate((p, k)), divisors)


def _row(x: ArrayLike) -> ArrayLike:
    return lax.reshape(x, (1, get_aval(x).shape[0]))


def _column(x: ArrayLike) -> ArrayLike:
    return lax.reshape(x, (get_aval(x).shape[0], 1))

