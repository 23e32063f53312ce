"""Counting and searching: bincount, histogram, digitize, searchsorted, interp, convolve,
correlate and polyval, built from comparisons, sums and dot_general. Stage 01 introduced it.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, to_concrete_value
from .creation import linspace
from .indexing import take
from .manipulation import ravel_multi_index
from .reductions import max, min, sum
from .shapes import ravel, stack
from .statistics import diff
from .structure import ix_
from .ufuncs import add, clip, conjugate, multiply, subtract, true_divide, where
from .util import ArrayLike, as_array, check_arraylike, convert, promote_dtypes, promote_dtypes_inexact


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left", sorter: ArrayLike | None = None, *,
                 method: str = "scan") -> ArrayLike:  # fmt: skip
    """Where each v would go in the sorted 1-D array a to keep it sorted (its index)."""
    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"invalid method {method!r} for searchsorted")
    a, v = promote_dtypes(as_array(a), as_array(v))
    if get_aval(a).ndim != 1:
        raise ValueError("searchsorted: a must be one-dimensional.")
    if sorter is not None:
        a = take(a, sorter)
    v_shape = get_aval(v).shape
    n = get_aval(a).shape[0]
    full = v_shape + (n,)
    a_b = lax.broadcast_in_dim(a, full, (len(v_shape),))
    v_b = lax.broadcast_in_dim(v, full, tuple(range(len(v_shape))))
    before = lax.lt(a_b, v_b) if side == "left" else lax.le(a_b, v_b)  # every method counts the same
    return sum(before, axis=-1, dtype=np.int32) if n else lax.full(v_shape, 0, np.dtype(np.int32))


def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False, *, method: str | None = None) -> ArrayLike:
    """The index of the bin each x falls in (bins increasing or decreasing)."""
    check_arraylike("digitize", x, bins)
    bins = as_array(bins)
    if get_aval(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = get_aval(bins).shape[0]
    if n == 0:
        return lax.full(get_aval(as_array(x)).shape, 0, np.dtype(np.int32))
    side = "left" if right else "right"
    up = searchsorted(bins, x, side=side)
    down = lax.sub(lax.full((), n, np.dtype(np.int32)), searchsorted(lax.rev(bins, (0,)), x, side=side))
    increasing = lax.le(
        lax.index_in_dim(bins, 0, keepdims=False), lax.index_in_dim(bins, n - 1, keepdims=False)
    )
    return where(increasing, up, down)


def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *,
             length: int | None = None) -> ArrayLike:  # fmt: skip
    """How many times each non-negative integer occurs in x (or the sum of its weights)."""
    check_arraylike("bincount", x)
    x = as_array(x)
    if get_aval(x).dtype.kind not in "biu":
        raise TypeError(f"x argument to bincount must have an integer type; got {get_aval(x).dtype}")
    if get_aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    if length is None:
        value = to_concrete_value(x)
        if value is None:
            raise ValueError("bincount needs a static length= when x is not known (under a transformation).")
        length = int(np.max(value, initial=-1)) + 1
        length = int(np.maximum(length, minlength))
    n = get_aval(x).shape[0]
    x = convert(x, np.dtype(np.int32))
    hits = lax.eq(
        lax.broadcast_in_dim(x, (n, length), (0,)), lax.broadcasted_iota(np.dtype(np.int32), (n, length), 1)
    )
    if weights is None:
        return sum(hits, axis=0, dtype=dtypes.default_dtype("i"))
    check_arraylike("bincount", weights)
    w = as_array(weights)
    w = lax.broadcast_in_dim(
        ravel(w) if get_aval(w).ndim else w, (n, length), (0,) if get_aval(w).ndim else ()
    )
    return sum(where(hits, w, convert(0, get_aval(w).dtype)), axis=0)


def histogram_bin_edges(
    a: ArrayLike, bins: Any = 10, range: Any = None, weights: ArrayLike | None = None
) -> ArrayLike:  # noqa: A002
    """The edges of histogram's bins: bins+1 evenly spaced over range (default: a's min to max),
    the last one exactly the range's end, so that the largest value is counted."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    a = ravel(as_array(a))
    dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(get_aval(a).dtype))
    if np.ndim(bins) == 1:
        return convert(as_array(bins), dtype)
    bins = int(bins)
    if range is None:
        lo, hi = convert(min(a), dtype), convert(max(a), dtype)
    else:
        lo, hi = convert(as_array(range[0]), dtype), convert(as_array(range[1]), dtype)
    # An empty range (lo == hi) is widened by 0.5 on each side, as in NumPy.
    same = lax.eq(lo, hi)
    half = convert(0.5, dtype)
    lo = where(same, lax.sub(lo, half), lo)
    hi = where(same, lax.add(hi, half), hi)
    return linspace(lo, hi, bins + 1, dtype=dtype)


def histogram(a: ArrayLike, bins: Any = 10, range: Any = None, weights: ArrayLike | None = None,  # noqa: A002
              density: bool | None = None) -> tuple[ArrayLike, ArrayLike]:  # fmt: skip
    """Counts of a's values in each bin (the last bin closed), and the bin edges."""
    check_arraylike("histogram", a)
    edges = histogram_bin_edges(a, bins, range, weights)
    a = ravel(as_array(a))
    nbins = get_aval(edges).shape[0] - 1
    index = lax.sub(searchsorted(edges, a, side="right"), lax.full((), 1, np.dtype(np.int32)))
    last = lax.index_in_dim(edges, nbins, keepdims=False)
    index = where(lax.eq(convert(a, get_aval(edges).dtype), last), nbins - 1, index)  # the last bin is closed
    outside = lax.bitwise_or(
        lax.lt(index, lax.full((), 0, np.dtype(np.int32))),
        lax.ge(index, lax.full((), nbins, np.dtype(np.int32))),
    )
    index = where(outside, nbins, index)  # counted in an extra bin, then dropped
    w = as_array(1.0 if weights is None else weights)
    w = (
        lax.broadcast_in_dim(convert(w, get_aval(edges).dtype), get_aval(a).shape, ())
        if get_aval(w).ndim == 0
        else ravel(w)
    )
    counts = lax.slice_in_dim(bincount(index, w, length=nbins + 1), 0, nbins)
    if density:
        widths = subtract(lax.slice_in_dim(edges, 1, nbins + 1), lax.slice_in_dim(edges, 0, nbins))
        counts = true_divide(true_divide(counts, widths), sum(counts))
    return counts, edges


def histogramdd(sample: ArrayLike, bins: Any = 10, range: Any = None, weights: ArrayLike | None = None,  # noqa: A002
                density: bool | None = None) -> tuple[ArrayLike, list[ArrayLike]]:  # fmt: skip
    """Counts of the N points of ``sample`` (shape (N, D)) in each cell of a D-dimensional grid of
    bins, and each dimension's bin edges: a bin index per dimension, raveled into one flat index,
    then counted with bincount."""
    if weights is None:
        check_arraylike("histogramdd", sample)
        (sample,) = promote_dtypes_inexact(as_array(sample))
    else:
        check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(as_array(sample), as_array(weights))
    n, d = get_aval(sample).shape
    if range is not None and (len(range) != d or any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or Nones; got {range=}")
    try:
        bins_per_dimension = list(bins)
    except TypeError:  # one number of bins for every dimension
        bins_per_dimension = d * [bins]
    else:
        if len(bins_per_dimension) != d:
            raise ValueError("should be a bin for each dimension.")

    bin_indices, bin_edges = [], []
    for i in builtins.range(d):
        column = lax.index_in_dim(sample, i, axis=1, keepdims=False)
        edges = histogram_bin_edges(column, bins_per_dimension[i], None if range is None else range[i], weights)
        # Bin j + 1 holds edges[j] <= x < edges[j + 1]; 0 and the last are outside. The last
        # edge belongs to the last bin.
        index = searchsorted(edges, column, side="right")
        last = lax.index_in_dim(edges, get_aval(edges).shape[0] - 1, keepdims=False)
        index = where(lax.eq(column, last), lax.sub(index, lax.full((), 1, np.dtype(np.int32))), index)
        bin_indices.append(index)
        bin_edges.append(edges)
    nbins = tuple(get_aval(edges).shape[0] + 1 for edges in bin_edges)
    flat = ravel_multi_index(tuple(bin_indices), nbins, mode="clip")
    hist = lax.reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = lax.slice(hist, (1,) * d, tuple(b - 1 for b in nbins))  # drop the outside bins
    if density:
        hist = convert(hist, get_aval(sample).dtype)
        hist = true_divide(hist, sum(hist))
        for width in ix_(*(diff(edges) for edges in bin_edges)):
            hist = true_divide(hist, width)
    return hist, bin_edges


def histogram2d(x: ArrayLike, y: ArrayLike, bins: Any = 10, range: Any = None,  # noqa: A002
                weights: ArrayLike | None = None, density: bool | None = None) -> tuple[ArrayLike, ArrayLike, ArrayLike]:  # fmt: skip
    """histogramdd of the points (x[i], y[i]): the counts, then the x and y edges."""
    check_arraylike("histogram2d", x, y)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # one array of edges, for both dimensions
        bins = [as_array(bins), as_array(bins)]

    sample = stack([as_array(x), as_array(y)], axis=1)
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ArrayLike | None = None,
           right: ArrayLike | None = None, period: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """Piecewise-linear interpolation of the points (xp, fp) at x (xp increasing)."""
    check_arraylike("interp", x, xp, fp)
    if period is not None:
        raise NotImplementedError("didax.numpy.interp does not support period=.")
    x, xp, fp = (as_array(t) for t in (x, xp, fp))
    dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtypes.result_type(x, xp, fp)))
    x, xp, fp = (convert(t, dtype) for t in (x, xp, fp))
    n = get_aval(xp).shape[0]
    i = clip(searchsorted(xp, x, side="right"), 1, n - 1)

    x0, x1 = take(xp, lax.sub(i, lax.full((), 1, np.dtype(np.int32)))), take(xp, i)
    f0, f1 = take(fp, lax.sub(i, lax.full((), 1, np.dtype(np.int32)))), take(fp, i)
    dx = subtract(x1, x0)
    t = true_divide(subtract(x, x0), where(lax.eq(dx, convert(0, dtype)), convert(1, dtype), dx))
    out = add(f0, multiply(t, subtract(f1, f0)))
    first, last = lax.index_in_dim(xp, 0, keepdims=False), lax.index_in_dim(xp, n - 1, keepdims=False)
    left_value = lax.index_in_dim(fp, 0, keepdims=False) if left is None else convert(left, dtype)
    right_value = lax.index_in_dim(fp, n - 1, keepdims=False) if right is None else convert(right, dtype)
    out = where(lax.lt(x, first), left_value, out)
    return where(lax.gt(x, last), right_value, out)


def _convolution(a: ArrayLike, v: ArrayLike, mode: str, name: str, preferred_element_type: Any) -> ArrayLike:
    """NumPy's 1-D convolve and correlate as one conv_general_dilated: sum_k a[n + k] * v'[k] for
    every shift n the mode keeps, v' being v reversed (convolve) or conjugated (correlate)."""
    check_arraylike(name, a, v)
    if get_aval(as_array(a)).ndim != 1 or get_aval(as_array(v)).ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    # Integers convolve as floats, as in NumPy, unless a result type is asked for.
    promote = promote_dtypes_inexact if preferred_element_type is None else promote_dtypes
    a, v = promote(as_array(a), as_array(v))
    n, m = get_aval(a).shape[0], get_aval(v).shape[0]
    if n == 0 or m == 0:
        raise ValueError(f"{name}: inputs cannot be empty, got shapes {(n,)} and {(m,)}.")
    backwards = False
    if name == "correlate":
        v = conjugate(v)
        if n < m:  # NumPy slides the shorter one, and reverses the result to make up for it
            a, v, backwards = v, a, True
    else:
        if n < m:
            a, v = v, a
        v = lax.rev(v, (0,))
    m = get_aval(v).shape[0]
    pads = {"valid": (0, 0), "same": (m // 2, m - 1 - m // 2), "full": (m - 1, m - 1)}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = lax.conv_general_dilated(a[None, None, :], v[None, None, :], (1,), [pads[mode]],
                                   preferred_element_type=preferred_element_type)
    out = lax.reshape(out, get_aval(out).shape[2:])
    return lax.rev(out, (0,)) if backwards else out


def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> ArrayLike:  # fmt: skip
    """The cross-correlation of two 1-D arrays (v conjugated), in mode full, same or valid."""
    return _convolution(a, v, mode, "correlate", preferred_element_type)


def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> ArrayLike:  # fmt: skip
    """The discrete linear convolution of two 1-D arrays, in mode full, same or valid."""
    return _convolution(a, v, mode, "convolve", preferred_element_type)


def polyval(p: ArrayLike, x: ArrayLike, *, unroll: int = 16) -> ArrayLike:
    """The polynomial with coefficients p (highest power first) evaluated at x, by Horner's rule."""
    check_arraylike("polyval", p, x)
    p, x = promote_dtypes(as_array(p), as_array(x))
    if get_aval(p).ndim != 1:
        raise ValueError("polyval: p must be one-dimensional.")
    out = lax.full(get_aval(x).shape, 0, get_aval(x).dtype)
    for i in range(get_aval(p).shape[0]):
        out = add(multiply(out, x), lax.index_in_dim(p, i, keepdims=False))
    return out
