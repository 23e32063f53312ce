"""Order statistics (median, quantile, percentile), weighted averages, covariance and correlation,
differences (diff, gradient, unwrap) and the trapezoidal rule, built on lax's sort and gather and
on the other didax.numpy functions. Stage 01 introduced it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from . import ufuncs
from .creation import full
from .indexing import take_along_axis
from .manipulation import atleast_2d
from .reductions import _no_out, _reduction_axes, count_nonzero, cumsum, sum
from .shapes import concatenate, dot, moveaxis, ravel, transpose
from .structure import diag
from .ufuncs import _isnan, not_equal, subtract
from .util import (
    ArrayLike,
    as_array,
    broadcast_to,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
)

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _inexact(a: ArrayLike) -> ArrayLike:
    dtype = get_aval(a).dtype
    return convert(a, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype)))


def _with_weights(name: str, a: ArrayLike, weights: ArrayLike | None, method: str, axis: Any,
                  axes: tuple[int, ...]) -> tuple[ArrayLike, ArrayLike | None]:  # fmt: skip
    """a and its weights in one inexact dtype, the weights broadcast to a's shape. As in JAX, only
    'inverted_cdf' takes weights, which have a's shape or that of the reduced axes (in axis order)."""
    if weights is None:
        return _inexact(a), None
    check_arraylike(name, weights)
    weights = as_array(weights)
    if get_aval(weights).dtype.kind == "c":
        raise ValueError(f"{name}: weights cannot be complex numbers.")
    if method != "inverted_cdf":
        raise NotImplementedError(
            f"{name}: method {method!r} does not take weights; only 'inverted_cdf' does."
        )
    dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtypes.result_type(a, weights)))
    a, weights = convert(a, dtype), convert(weights, dtype)
    shape, w_shape = get_aval(a).shape, get_aval(weights).shape
    if w_shape != shape:
        reduced = tuple(shape[i] for i in axes)
        if axis is None:
            raise ValueError(
                f"{name}: with axis=None the weights must have a's shape {shape}, not {w_shape}."
            )
        if w_shape != reduced:
            raise ValueError(
                f"{name}: weights of shape {w_shape} must have a's shape {shape} or that of the reduced "
                f"axes, {reduced}."
            )
        order = sorted(range(len(axes)), key=lambda k: axes[k])  # broadcast_in_dim wants them sorted
        weights = lax.broadcast_in_dim(lax.transpose(weights, tuple(order)), shape, tuple(sorted(axes)))
    return a, weights


def _inverted_cdf(
    a: ArrayLike, w: ArrayLike | None, qs: ArrayLike, count: ArrayLike
) -> tuple[ArrayLike, ArrayLike]:
    """The first sorted element of a (last axis) whose running weight reaches q times the total
    weight, as JAX computes it; and where a weight is negative or NaN (the result is NaN there).
    NaN elements weigh nothing. ``count`` is the number of elements that may be picked."""
    shape, m = get_aval(a).shape, get_aval(qs).shape[-1]
    rest, n = shape[:-1], shape[-1]
    w = lax.full_like(a, 1) if w is None else w
    zero = lax.full_like(w, 0)
    bad = lax.bitwise_or(lax.lt(w, zero), _isnan(w))
    cum = lax.cumsum(lax.select_n(lax.bitwise_or(bad, _isnan(a)), w, zero), axis=len(rest))
    total = lax.slice_in_dim(cum, n - 1, n, axis=len(rest))  # rest + (1,)
    target = lax.mul(qs, lax.broadcast_in_dim(total, rest + (m,), tuple(range(len(rest) + 1))))
    # For each q, how many running weights fall short of its target: the index of the pick.
    dims = tuple(range(len(rest)))
    below = lax.lt(lax.broadcast_in_dim(cum, rest + (m, n), dims + (len(rest) + 1,)),
                   lax.broadcast_in_dim(target, rest + (m, n), dims + (len(rest),)))  # fmt: skip
    index = lax.reduce_sum(convert(below, np.dtype(np.int32)), (len(rest) + 1,))
    last = convert(lax.sub(count, lax.full_like(count, 1)), np.dtype(np.int32))  # count may be 0
    out = take_along_axis(a, lax.max(lax.min(index, last), lax.full_like(index, 0)), axis=-1, mode="clip")
    any_bad = lax.broadcast_in_dim(lax.reduce_or(bad, (len(rest),)), rest + (m,), dims)
    return out, any_bad


def _quantile(name: str, a: ArrayLike, q: ArrayLike, axis: Any, method: str, keepdims: bool,
              ignore_nan: bool, weights: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """Sort the reduced axes (gathered last), then read each quantile between two neighbours."""
    check_arraylike(name, a, q)
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}, got {method!r}.")
    a = as_array(a)
    axes = _reduction_axes(axis, get_aval(a).ndim)
    a, weights = _with_weights(name, a, weights, method, axis, axes)
    aval = get_aval(a)
    dtype = aval.dtype
    if dtype.kind == "c":
        raise ValueError(f"{name} does not support complex numbers.")
    q = convert(as_array(q), dtype)
    q_shape = get_aval(q).shape
    kept = tuple(i for i in range(aval.ndim) if i not in axes)
    # Move the reduced axes last and merge them into one of n elements (the weights alike).
    n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    rest = tuple(aval.shape[i] for i in kept)
    a = lax.reshape(lax.transpose(a, kept + axes), rest + (n,))
    if weights is None:
        a = lax.sort(a, dimension=len(rest))  # NaNs sort last
    else:
        weights = lax.reshape(lax.transpose(weights, kept + axes), rest + (n,))
        a, weights = lax.sort((a, weights), dimension=len(rest), num_keys=1)
    m = int(np.prod(q_shape, dtype=np.int64))
    qs = lax.broadcast_in_dim(lax.reshape(q, (m,)), rest + (m,), (len(rest),))
    nan = _isnan(a)
    if ignore_nan:
        nans = count_nonzero(nan, axis=-1, keepdims=True)
        count = convert(lax.sub(convert(n, get_aval(nans).dtype), nans), dtype)
        count = lax.broadcast_in_dim(count, rest + (m,), tuple(range(len(rest) + 1)))
    else:
        count = lax.broadcast_in_dim(convert(n, dtype), rest + (m,), ())
    pos = lax.mul(qs, lax.max(lax.sub(count, convert(1, dtype)), convert(0, dtype)))
    low = lax.floor(pos)
    high = lax.ceil(pos)
    index_dtype = np.dtype(np.int32)
    lo_val = take_along_axis(a, convert(low, index_dtype), axis=-1, mode="clip")
    hi_val = take_along_axis(a, convert(high, index_dtype), axis=-1, mode="clip")
    bad_weight = None
    if method == "lower":
        out = lo_val
    elif method == "higher":
        out = hi_val
    elif method == "nearest":  # JAX takes the lower neighbour at a tie (NumPy the even one)
        out = lax.select_n(lax.gt(lax.sub(pos, low), convert(0.5, dtype)), lo_val, hi_val)
    elif method == "midpoint":
        out = lax.mul(lax.add(lo_val, hi_val), convert(0.5, dtype))
    elif method == "inverted_cdf":
        out, bad_weight = _inverted_cdf(a, weights, qs, count)
    else:
        frac = lax.sub(pos, low)
        out = lax.add(lax.mul(lo_val, lax.sub(convert(1, dtype), frac)), lax.mul(hi_val, frac))
    if not ignore_nan:  # any NaN makes the whole quantile NaN, as in NumPy
        any_nan = lax.reduce_or(nan, (len(rest),))
        make_nan = lax.broadcast_in_dim(any_nan, rest + (m,), tuple(range(len(rest))))
    else:
        make_nan = lax.eq(count, convert(0, dtype))
    if bad_weight is not None:  # a negative or NaN weight makes the quantile NaN
        make_nan = lax.bitwise_or(make_nan, bad_weight)
    out = lax.select_n(make_nan, out, lax.broadcast_in_dim(convert(np.nan, dtype), rest + (m,), ()))
    if keepdims:
        rest = tuple(1 if i in axes else s for i, s in enumerate(aval.shape))
    out = lax.transpose(out, (len(get_aval(out).shape) - 1,) + tuple(range(len(get_aval(out).shape) - 1)))
    return lax.reshape(out, q_shape + rest)


def quantile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The q-th quantiles (q in [0, 1]) of the elements over the given axes; weights (one per
    element, or per element of the reduced axes) go with method 'inverted_cdf'."""
    _no_out("quantile", out)
    return _quantile("quantile", a, q, axis, method, keepdims, ignore_nan=False, weights=weights)


def nanquantile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The q-th quantiles (q in [0, 1]) of the elements over the given axes, ignoring NaNs;
    weights go with method 'inverted_cdf', as in quantile."""
    _no_out("nanquantile", out)
    return _quantile("nanquantile", a, q, axis, method, keepdims, ignore_nan=True, weights=weights)


def _percent(q: ArrayLike) -> ArrayLike:
    q = _inexact(as_array(q))
    return lax.div(q, convert(100, get_aval(q).dtype))


def percentile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The q-th percentiles (q in [0, 100]) of the elements over the given axes."""
    check_arraylike("percentile", a, q)
    return quantile(a, _percent(q), axis, out, overwrite_input, method, keepdims, weights=weights)


def nanpercentile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The q-th percentiles (q in [0, 100]) of the elements over the given axes, ignoring NaNs."""
    check_arraylike("nanpercentile", a, q)
    return nanquantile(a, _percent(q), axis, out, overwrite_input, method, keepdims, weights=weights)


def median(a: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> ArrayLike:  # fmt: skip
    """The median of the elements over the given axes."""
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def nanmedian(a: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> ArrayLike:  # fmt: skip
    """The median of the elements over the given axes, ignoring NaNs."""
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def average(a: ArrayLike, axis: Any = None, weights: ArrayLike | None = None, returned: bool = False,
            keepdims: bool = False) -> ArrayLike | tuple[ArrayLike, ArrayLike]:  # fmt: skip
    """The weighted mean over the given axes (with the sum of the weights, if returned)."""
    check_arraylike("average", a)
    a = as_array(a)
    aval = get_aval(a)
    axes = _reduction_axes(axis, aval.ndim)
    if weights is None:
        a = _inexact(a)
        count = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
        total = sum(a, axis=axes, keepdims=keepdims)
        avg = lax.div(total, convert(count, get_aval(total).dtype))
        weight_sum = lax.broadcast_in_dim(convert(count, get_aval(avg).dtype), get_aval(avg).shape, ())
    else:
        check_arraylike("average", weights)
        a, w = promote_dtypes(a, as_array(weights))
        a, w = _inexact(a), _inexact(w)
        a, w = promote_dtypes(a, w)
        w_shape = get_aval(w).shape
        if w_shape != aval.shape:
            if axis is None or len(w_shape) != 1 or len(axes) != 1:
                raise ValueError(
                    "average: 1D weights need an integer axis; otherwise weights must have a's shape."
                )
            if w_shape[0] != aval.shape[axes[0]]:
                raise ValueError("average: the length of weights differs from the length of a along axis.")
            w = lax.broadcast_in_dim(w, aval.shape, axes)
        weight_sum = sum(w, axis=axes, keepdims=keepdims)
        avg = lax.div(sum(lax.mul(a, w), axis=axes, keepdims=keepdims), weight_sum)
    if returned:
        return avg, weight_sum
    return avg


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike | None = None,
         append: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """The n-th discrete difference along an axis (a[1:] - a[:-1], n times)."""
    check_arraylike("diff", a)
    a = as_array(a)
    n = int(n)
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    if n == 0:
        return a
    ndim = get_aval(a).ndim
    if ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = canonicalize_axis(axis, ndim)
    combined = []
    if prepend is not None:
        combined.append(_edge(prepend, a, axis))
    combined.append(a)
    if append is not None:
        combined.append(_edge(append, a, axis))
    if len(combined) > 1:
        a = concatenate(combined, axis)
    for _ in range(n):
        size = get_aval(a).shape[axis]
        upper = lax.slice_in_dim(a, min(1, size), size, axis=axis)  # an empty axis stays empty
        lower = lax.slice_in_dim(a, 0, max(size - 1, 0), axis=axis)
        a = not_equal(upper, lower) if get_aval(a).dtype == np.bool_ else subtract(upper, lower)
    return a


def _edge(extra: ArrayLike, a: ArrayLike, axis: int) -> ArrayLike:
    """prepend/append for diff: a scalar becomes a slab one element thick along ``axis``."""
    extra = as_array(extra)
    if get_aval(extra).ndim == 0:
        shape = list(get_aval(a).shape)
        shape[axis] = 1
        extra = broadcast_to(extra, tuple(shape))
    return extra


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None) -> ArrayLike:
    """The differences between consecutive elements of the flattened array, with optional ends."""
    check_arraylike("ediff1d", ary)
    flat = ravel(as_array(ary))
    out = diff(flat)
    dtype = get_aval(out).dtype
    parts = []
    if to_begin is not None:
        parts.append(ravel(convert(as_array(to_begin), dtype)))
    parts.append(out)
    if to_end is not None:
        parts.append(ravel(convert(as_array(to_end), dtype)))
    return concatenate(parts) if len(parts) > 1 else out


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1) -> ArrayLike:
    """The integral of y along an axis by the trapezoidal rule, at points x (or spaced dx)."""
    check_arraylike("trapezoid", y)
    y = _inexact(as_array(y))
    y = moveaxis(y, axis, -1)
    size = get_aval(y).shape[-1]
    if x is None:
        check_arraylike("trapezoid", dx)
        y, dx = promote_dtypes(y, as_array(dx))
        dx = _inexact(dx)
    else:
        check_arraylike("trapezoid", x)
        x = as_array(x)
        x = moveaxis(x, axis, -1) if get_aval(x).ndim > 1 else x
        y, x = promote_dtypes(y, x)
        dx = diff(x, axis=-1)
    last = get_aval(y).ndim - 1
    pair_sum = lax.add(
        lax.slice_in_dim(y, min(1, size), size, axis=last), lax.slice_in_dim(y, 0, max(size - 1, 0), axis=last)
    )
    halves = lax.mul(pair_sum, convert(0.5, get_aval(pair_sum).dtype))
    y_dx, dx = promote_dtypes(halves, dx)
    return sum(lax.mul(*_same_shape(y_dx, dx)), axis=-1)


def _same_shape(a: ArrayLike, b: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
    shape = np.broadcast_shapes(get_aval(a).shape, get_aval(b).shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


# ----------------------------------------------------------------------------------------------
# Covariance and correlation: each row of m is a variable, each column an observation.


def _as_inexact_dtype(name: str, dtype: Any) -> np.dtype | None:
    if dtype is None:
        return None
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    if dtype.kind not in "fc":
        raise ValueError(f"{name}: dtype must be a float or complex type; got dtype={dtype}.")
    return dtype


def _sample_weights(name: str, weights: ArrayLike, n: int, integer: bool) -> ArrayLike:
    """fweights or aweights: one per observation, taken as their absolute values (as in JAX)."""
    check_arraylike("cov", weights)
    weights = as_array(weights)
    if get_aval(weights).ndim > 1:
        raise RuntimeError(f"cov: cannot handle multidimensional {name}.")
    if get_aval(weights).shape[0] != n:
        raise RuntimeError(f"cov: incompatible numbers of samples ({n}) and {name}.")
    if integer and get_aval(weights).dtype.kind not in "iu":
        raise TypeError("cov: fweights must be integer.")
    return ufuncs.abs(weights)


def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: ArrayLike | None = None, aweights: ArrayLike | None = None,
        dtype: Any = None) -> ArrayLike:  # fmt: skip
    """The covariance matrix of the variables in m's rows (columns if not rowvar) and in y's,
    with fweights (integer repeat counts) and aweights (relative importances) per observation."""
    check_arraylike("cov", m, *([] if y is None else [y]))
    m, *ys = promote_dtypes_inexact(*([m] if y is None else [m, y]))
    if get_aval(m).ndim > 2 or any(get_aval(v).ndim > 2 for v in ys):
        raise ValueError("cov: m and y may have at most 2 dimensions.")
    dtype = _as_inexact_dtype("cov", dtype)
    x = atleast_2d(m)
    if not rowvar and get_aval(m).ndim != 1:
        x = transpose(x)
    if get_aval(x).shape[0] == 0:  # no variables
        return full((0, 0), np.nan, dtype=dtypes.default_dtype("f"))
    for v in ys:
        v = atleast_2d(v)
        x = concatenate([x, v if rowvar or get_aval(v).shape[0] == 1 else transpose(v)], axis=0)
    k, n = get_aval(x).shape
    if n == 0:  # no observations: NaN, as NumPy gives (with a warning)
        return full(() if k == 1 else (k, k), np.nan, dtype=get_aval(x).dtype)
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None if fweights is None else _sample_weights("fweights", fweights, n, integer=True)
    if aweights is not None:
        aweights = _sample_weights("aweights", aweights, n, integer=False)
        w = aweights if w is None else ufuncs.multiply(w, aweights)
    if dtype is not None:
        x = convert(x, dtype)
        w = None if w is None else convert(w, dtype)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = lax.index_in_dim(w_sum, 0, keepdims=False)
    if w is None:
        f = n - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = ufuncs.subtract(w_sum, ddof)
    else:  # the unbiased estimate for importance weights: NumPy's formula
        correction = ufuncs.multiply(ddof, sum(ufuncs.multiply(w, aweights)))
        f = ufuncs.subtract(w_sum, ufuncs.divide(correction, w_sum))
    x = ufuncs.subtract(x, lax.expand_dims(avg, (1,)))
    x_t = transpose(x if w is None else ufuncs.multiply(x, lax.expand_dims(w, (0,))))
    c = ufuncs.true_divide(dot(x, ufuncs.conjugate(x_t)), f)
    return lax.reshape(c, ()) if k == 1 else c


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, dtype: Any = None) -> ArrayLike:
    """The correlation coefficients of the variables: cov normalized by the standard deviations,
    each part clipped to [-1, 1] (rounding can step just outside)."""
    check_arraylike("corrcoef", x)
    _as_inexact_dtype("corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if get_aval(c).ndim == 0:  # one variable: 1 (nan for a constant one, 0/0)
        return ufuncs.divide(c, c)
    dt = get_aval(c).dtype
    stddev = convert(ufuncs.sqrt(ufuncs.real(diag(c))), dt)
    c = ufuncs.divide(ufuncs.divide(c, lax.expand_dims(stddev, (1,))), lax.expand_dims(stddev, (0,)))
    re = ufuncs.clip(ufuncs.real(c), -1, 1)
    if dt.kind != "c":
        return re
    im = ufuncs.clip(ufuncs.imag(c), -1, 1)
    return lax.complex(re, im)


# ----------------------------------------------------------------------------------------------
# gradient and unwrap


def _gradient_along(a: ArrayLike, h: ArrayLike, axis: int) -> ArrayLike:
    """Central differences inside, one-sided ones at the two ends; ``h`` is a scalar spacing or
    the coordinates along ``axis`` (second-order accurate for uneven spacing too)."""
    n = get_aval(a).shape[axis]

    def part(x: ArrayLike, start: int, stop: int) -> ArrayLike:
        return lax.slice_in_dim(x, start, stop, axis=axis)

    first = ufuncs.subtract(part(a, 1, 2), part(a, 0, 1))
    last = ufuncs.subtract(part(a, n - 1, n), part(a, n - 2, n - 1))
    if get_aval(h).ndim == 0:
        inner = ufuncs.divide(ufuncs.multiply(ufuncs.subtract(part(a, 2, n), part(a, 0, n - 2)), 0.5), h)
        return concatenate([ufuncs.divide(first, h), inner, ufuncs.divide(last, h)], axis=axis)
    if get_aval(h).ndim != 1:
        raise ValueError("gradient: spacing arrays must be 1D arrays or scalars.")
    if get_aval(h).shape[0] != n:
        raise ValueError("gradient: spacing arrays must have the length of the axis they are for.")
    h = lax.broadcast_in_dim(h, tuple(n if i == axis else 1 for i in range(get_aval(a).ndim)), (axis,))
    dx1 = ufuncs.subtract(part(h, 1, n - 1), part(h, 0, n - 2))  # the steps left of each inner point
    dx2 = ufuncs.subtract(part(h, 2, n), part(h, 1, n - 1))  # and right of it
    # The derivative at the middle of three points of the parabola through them.
    c0 = ufuncs.divide(ufuncs.negative(dx2), ufuncs.multiply(dx1, ufuncs.add(dx1, dx2)))
    c1 = ufuncs.divide(ufuncs.subtract(dx2, dx1), ufuncs.multiply(dx1, dx2))
    c2 = ufuncs.divide(dx1, ufuncs.multiply(dx2, ufuncs.add(dx1, dx2)))
    inner = ufuncs.add(
        ufuncs.add(ufuncs.multiply(c0, part(a, 0, n - 2)), ufuncs.multiply(c1, part(a, 1, n - 1))),
        ufuncs.multiply(c2, part(a, 2, n)),
    )
    first = ufuncs.divide(first, ufuncs.subtract(part(h, 1, 2), part(h, 0, 1)))
    last = ufuncs.divide(last, ufuncs.subtract(part(h, n - 1, n), part(h, n - 2, n - 1)))
    return concatenate([first, inner, last], axis=axis)


def gradient(f: ArrayLike, *varargs: ArrayLike, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> ArrayLike | list[ArrayLike]:  # fmt: skip
    """The derivative of sampled values along each axis (or the given ones): one array per axis,
    or one array for one axis. varargs: one spacing for all axes, or one per axis, each a scalar
    or the coordinates of the samples. JAX supports no edge_order."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to didax.numpy.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    a, *spacing = promote_dtypes_inexact(*(as_array(v) for v in (f, *varargs)))
    axes = canonicalize_axes(axis, get_aval(a).ndim)
    if not axes:
        return []
    if min(get_aval(a).shape[i] for i in axes) < 2:
        raise ValueError("gradient: the array is too small; it needs at least 2 elements along each axis.")
    if len(spacing) == 0:
        spacing = [convert(1.0, get_aval(a).dtype)] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"gradient: {len(spacing)} spacing arguments for {len(axes)} axes (axis={axis}).")
    grads = [_gradient_along(a, h, i) for i, h in zip(axes, spacing)]
    return grads[0] if len(axes) == 1 else grads


def unwrap(p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1,
           period: ArrayLike = 2 * np.pi) -> ArrayLike:  # fmt: skip
    """p with each jump of more than discont (default: half the period) along the axis undone by
    adding a multiple of the period, as NumPy does."""
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(as_array(p), as_array(period))
    if get_aval(p).dtype.kind == "c":
        raise ValueError("didax.numpy.unwrap does not support complex inputs.")
    axis = canonicalize_axis(axis, get_aval(p).ndim)
    n = get_aval(p).shape[axis]
    if n == 0:
        return p
    integral = get_aval(p).dtype.kind in "iu"
    interval = ufuncs.floor_divide(period, 2) if integral else ufuncs.divide(period, 2)
    discont = ufuncs.divide(period, 2) if discont is None else discont
    dd = diff(p, axis=axis)
    # Each step brought into [-period/2, period/2), a step of exactly +period/2 kept as it is.
    ddmod = ufuncs.subtract(ufuncs.mod(ufuncs.add(dd, interval), period), interval)
    keep_half = ufuncs.logical_and(ufuncs.equal(ddmod, ufuncs.negative(interval)), ufuncs.greater(dd, 0))
    ddmod = ufuncs.where(keep_half, interval, ddmod)
    correction = ufuncs.where(ufuncs.less(ufuncs.abs(dd), discont), 0, ufuncs.subtract(ddmod, dd))
    rest = ufuncs.add(lax.slice_in_dim(p, 1, n, axis=axis), cumsum(correction, axis=axis))
    return concatenate([lax.slice_in_dim(p, 0, 1, axis=axis), rest], axis=axis)
