"""Arrays with structure: diagonals and triangles, index grids (meshgrid, indices, mgrid, r_),
geometric ranges, Vandermonde matrices and window functions. Each one is iotas, comparisons,
selects and slices from didax.lax. Stage 01 introduced it.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..array import Array
from ..core import get_aval, to_concrete_value
from ..errors import ConcretizationTypeError
from . import ufuncs
from .array_api import with_device
from .creation import arange, array, eye, linspace, ones, zeros_like
from .manipulation import atleast_1d, broadcast_arrays, resize
from .shapes import concatenate, moveaxis, ravel, reshape
from .sorting import nonzero
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axes, canonicalize_axis, check_arraylike, convert


def _index_array(values: Any) -> ArrayLike:
    """Known integer positions (Python ints, computed from static sizes) as a default-int array."""
    return Array(np.asarray(values, dtype=dtypes.default_dtype("i")))


# ----------------------------------------------------------------------------------------------
# Simple creation


def identity(n: int, dtype: Any = None) -> ArrayLike:
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


@with_device
def empty_like(prototype: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    """An array like ``prototype``; didax fills it with zeros, as JAX does."""
    return zeros_like(prototype, dtype, shape)


def copy(a: ArrayLike, order: str | None = None) -> ArrayLike:
    """A copy of ``a`` (arrays are immutable, so this is ``a`` itself as an array)."""
    return array(a, copy=True)


# ----------------------------------------------------------------------------------------------
# Diagonals and triangles


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ArrayLike:
    """The ``offset`` diagonal of the matrices on ``axis1`` and ``axis2``, as the last axis."""
    check_arraylike("diagonal", a)
    a = as_array(a)
    nd = get_aval(a).ndim
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1, ax2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 must not be equal")
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    shp = get_aval(a).shape
    n, m = shp[-2:]
    offset = operator.index(offset)
    length = builtins.max(0, builtins.min(n, m - offset) if offset >= 0 else builtins.min(n + offset, m))
    # On the flattened matrix, the diagonal is every (m+1)-th element from its first one.
    flat = lax.reshape(a, (*shp[:-2], n * m))
    if length == 0:
        return lax.slice_in_dim(flat, 0, 0, axis=-1 % get_aval(flat).ndim)
    start = offset if offset >= 0 else -offset * m
    last = start + (length - 1) * (m + 1)
    k = len(shp) - 2
    return lax.slice(flat, (0,) * k + (start,), (*shp[:-2], last + 1), (1,) * k + (m + 1,))


def diag(v: ArrayLike, k: int = 0) -> ArrayLike:
    """A 1-d input's values on the k-th diagonal of a square matrix, or a matrix's k-th diagonal."""
    check_arraylike("diag", v)
    v = as_array(v)
    shp = get_aval(v).shape
    k = operator.index(k)
    if len(shp) == 2:
        return diagonal(v, k)
    if len(shp) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = shp[0] + builtins.abs(k)
    padded = lax.pad(v, convert(0, get_aval(v).dtype), [(0, builtins.abs(k), 0)])
    # Row i holds padded[i] at column i + k (k >= 0); column j holds padded[j] at row j - k (k < 0).
    values = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
    return lax.select_n(_diagonal_mask(n, n, k), zeros_like(values), values)


def _diagonal_mask(n: int, m: int, k: int) -> ArrayLike:
    rows = lax.broadcasted_iota(np.int32, (n, m), 0)
    cols = lax.broadcasted_iota(np.int32, (n, m), 1)
    return lax.eq(lax.sub(cols, rows), np.int32(k))


def diagflat(v: ArrayLike, k: int = 0) -> ArrayLike:
    """The flattened input on the k-th diagonal of a square matrix."""
    return diag(ravel(as_array(v)), k)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> ArrayLike:
    """Ones at and below the k-th diagonal of an N x M matrix, zeros above."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    rows = lax.broadcasted_iota(np.int32, (N, M), 0)
    cols = lax.broadcasted_iota(np.int32, (N, M), 1)
    mask = lax.ge(lax.add(rows, np.int32(operator.index(k))), cols)
    # float32 by default even with x64 on, as in JAX.
    out_dtype = np.dtype(np.float32) if dtype is None else dtypes.check_user_dtype(dtype, "tri")
    return convert(mask, out_dtype)


def _triangle(name: str, m: ArrayLike, k: int, lower: bool) -> ArrayLike:
    check_arraylike(name, m)
    m = as_array(m)
    shp = get_aval(m).shape
    if len(shp) < 2:
        raise ValueError(f"Argument to didax.numpy.{name} must be at least 2D")
    n, cols = shp[-2:]
    r = lax.broadcasted_iota(np.int32, (n, cols), 0)
    c = lax.broadcasted_iota(np.int32, (n, cols), 1)
    k = np.int32(operator.index(k))
    keep = lax.ge(lax.add(r, k), c) if lower else lax.le(lax.add(r, k), c)
    keep = lax.broadcast_in_dim(keep, shp, (len(shp) - 2, len(shp) - 1))
    return lax.select_n(keep, zeros_like(m), m)


def tril(m: ArrayLike, k: int = 0) -> ArrayLike:
    """``m`` with the entries above the k-th diagonal set to zero."""
    return _triangle("tril", m, k, lower=True)


def triu(m: ArrayLike, k: int = 0) -> ArrayLike:
    """``m`` with the entries below the k-th diagonal set to zero."""
    return _triangle("triu", m, k, lower=False)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[ArrayLike, ArrayLike]:
    """Row and column indices of the lower triangle of an n x m matrix."""
    rows, cols = np.tril_indices(operator.index(n), operator.index(k), None if m is None else operator.index(m))
    return _index_array(rows), _index_array(cols)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[ArrayLike, ArrayLike]:
    """Row and column indices of the upper triangle of an n x m matrix."""
    rows, cols = np.triu_indices(operator.index(n), operator.index(k), None if m is None else operator.index(m))
    return _index_array(rows), _index_array(cols)


def mask_indices(n: int, mask_func: Callable[[ArrayLike, int], ArrayLike], k: int = 0, *,
                 size: int | None = None) -> tuple[ArrayLike, ArrayLike]:  # fmt: skip
    """Row and column indices of the nonzero entries of ``mask_func(ones((n, n)), k)`` (such as
    triu or tril); give ``size`` when the count cannot be known."""
    rows, cols = nonzero(mask_func(ones((n, n)), k), size=size)
    return rows, cols


def _matrix_shape(name: str, arr: Any) -> tuple[int, int]:
    shp = tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)
    if len(shp) != 2:
        raise ValueError(f"{name} only supports 2D arrays, got shape {shp}.")
    return shp


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[ArrayLike, ArrayLike]:
    """Indices of the lower triangle of a matrix of ``arr``'s shape."""
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[ArrayLike, ArrayLike]:
    """Indices of the upper triangle of a matrix of ``arr``'s shape."""
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k, m)


def diag_indices(n: int, ndim: int = 2) -> tuple[ArrayLike, ...]:
    """Indices of the main diagonal of an n x n x ... array with ``ndim`` axes."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dtypes.default_dtype("i"), n),) * ndim


def diag_indices_from(arr: ArrayLike) -> tuple[ArrayLike, ...]:
    """Indices of the main diagonal of ``arr``, whose axes must all have one length."""
    shp = tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)
    if len(shp) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shp[0], len(shp))


def fill_diagonal(a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True) -> ArrayLike:
    """A new array: ``a`` with its main diagonal set to ``val`` (call it with inplace=False)."""
    if inplace:
        raise NotImplementedError("didax arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    a = as_array(a)
    shp = get_aval(a).shape
    if len(shp) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shp) > 2 and len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    count = builtins.min(shp)
    values = ravel(convert(as_array(val), get_aval(a).dtype))
    n_values = get_aval(values).shape[0]
    if n_values == 0 or count == 0:
        return a

    values = resize(values, (count,))  # values cycle, as in NumPy
    # The diagonal in flat order: position i * (1 + s1 + s1*s2 + ...) on the flattened array.
    step = sum(int(np.prod(shp[j + 1 :], dtype=np.int64)) for j in range(len(shp)))
    flat = ravel(a)
    return reshape(flat.at[_index_array([i * step for i in range(count)])].set(values), shp)


# ----------------------------------------------------------------------------------------------
# Index grids


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list[ArrayLike]:
    """Coordinate arrays from 1-d coordinate vectors ('xy': the first two axes are swapped)."""
    check_arraylike("meshgrid", *xi)
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    args = [as_array(x) for x in xi]
    for x in args:
        if get_aval(x).ndim != 1:
            raise ValueError(f"Arguments to didax.numpy.meshgrid must be 1D, got shape {get_aval(x).shape}")
    sizes = [get_aval(x).shape[0] for x in args]
    nd = len(args)
    if indexing == "xy" and nd > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(args):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and nd > 1 else i
        if sparse:
            shape = tuple(sizes[axis] if j == axis else 1 for j in range(nd))
            out.append(lax.reshape(x, shape))
        else:
            out.append(lax.broadcast_in_dim(x, tuple(sizes), (axis,)))
    return out


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """A grid of the indices of an array of shape ``dimensions``, one array per axis."""
    dims = tuple(map(operator.index, dimensions))
    dt = dtypes.default_dtype("i") if dtype is None else dtypes.check_user_dtype(dtype, "indices")
    out = []
    for i, d in enumerate(dims):
        shape = tuple(d if j == i else 1 for j in range(len(dims))) if sparse else dims
        out.append(lax.broadcasted_iota(dt, shape, i))
    if sparse:
        return tuple(out)
    return lax.concatenate([lax.reshape(x, (1, *dims)) for x in out], 0) if out else Array(
        np.zeros((0,), dt))


def _grid_axis(s: Any) -> ArrayLike:
    """One slice of mgrid/ogrid/r_: a step ``Nj`` means N points with the stop included."""
    if not isinstance(s, slice):
        return s
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return linspace(start, s.stop, int(abs(step)), endpoint=True)
    return arange(start, s.stop, step)


class _Grid:
    """mgrid (dense) and ogrid (open): ``mgrid[0:3, 0:4]`` as indices would give, from slices."""

    def __init__(self, sparse: bool, name: str) -> None:
        self.sparse, self.name = sparse, name

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return _grid_axis(key)
        axes = [_grid_axis(k) for k in key]
        if not axes:
            return Array(np.zeros((0,), dtypes.default_dtype("i")))
        axes = _promote_all(axes)
        grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return grids
        return lax.concatenate([lax.reshape(g, (1, *get_aval(g).shape)) for g in grids], 0)

    def __repr__(self) -> str:
        return f"didax.numpy.{self.name}"


def _promote_all(arrays: list[ArrayLike]) -> list[ArrayLike]:
    dt = dtypes.result_type(*arrays)
    return [convert(as_array(a), dt) for a in arrays]


mgrid = _Grid(sparse=False, name="mgrid")
ogrid = _Grid(sparse=True, name="ogrid")


class _Concatenator:
    """r_ and c_: ``r_[1:3, [5, 6], 7]`` joins slices (as ranges), arrays and scalars."""

    def __init__(self, axis: int, ndmin: int, trans1d: int, name: str) -> None:
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key: Any) -> ArrayLike:
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if key and isinstance(key[0], str):
            directive, key = key[0], key[1:]
            if directive in ("r", "c"):
                raise NotImplementedError("didax.numpy.r_ does not support the 'r' and 'c' matrix directives.")
            parts = [int(p) for p in directive.split(",")]
            axis = parts[0]
            if len(parts) > 1:
                ndmin = parts[1]
            if len(parts) > 2:
                trans1d = parts[2]
        items = []
        for item in key:
            if isinstance(item, slice):
                x = _grid_axis(item)
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                x = array(item, copy=False)
            x = as_array(x)
            shp = get_aval(x).shape
            if len(shp) < ndmin:
                new = [1] * ndmin
                t = trans1d if trans1d >= 0 else ndmin + trans1d
                # The input's axes go where trans1d says (-1: the last ones).
                start = t if t + len(shp) <= ndmin else ndmin - len(shp)
                new[start : start + len(shp)] = shp
                x = lax.reshape(x, tuple(new))
            items.append(x)
        items = [atleast_1d(x) for x in items]
        return concatenate(items, axis)

    def __repr__(self) -> str:
        return f"didax.numpy.{self.name}"


r_ = _Concatenator(0, 1, -1, "r_")
c_ = _Concatenator(-1, 2, 0, "c_")
s_ = np.s_
index_exp = np.index_exp


def ix_(*args: ArrayLike) -> tuple[ArrayLike, ...]:
    """An open mesh from 1-d index arrays: the i-th gets shape (1, ..., n, ..., 1)."""
    check_arraylike("ix_", *args)
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = as_array(a)
        if get_aval(a).ndim != 1:
            raise ValueError(f"Arguments to didax.numpy.ix_ must be 1-dimensional, got shape {get_aval(a).shape}")
        if get_aval(a).dtype == np.bool_:  # NumPy takes a mask's nonzero positions; JAX does not
            raise NotImplementedError("Boolean arguments to didax.numpy.ix_ are not implemented; "
                                      "pass jnp.nonzero(mask)[0] instead.")
        size = get_aval(a).shape[0]
        if size == 0:  # an empty index is an integer one, whatever its dtype (as in NumPy and JAX)
            a = _index_array(np.zeros(0))
        out.append(lax.reshape(a, tuple(size if j == i else 1 for j in range(n))))
    return tuple(out)


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """``function`` called with the index grid of ``shape`` (one array per axis)."""
    grid = indices(shape, dtype=dtype)
    return function(*(lax.index_in_dim(grid, i, 0, keepdims=False) for i in range(len(tuple(shape)))), **kwargs)


# ----------------------------------------------------------------------------------------------
# Geometric ranges


def _space_dtypes(name: str, start: ArrayLike, stop: ArrayLike, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """The result dtype (``dtype``, else the bounds' type made inexact) and the inexact one the
    values are computed in (a float16 result is computed in float16, as in JAX)."""
    if dtype is None:
        out = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    else:
        out = dtypes.check_user_dtype(dtype, name)
    return out, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(out))


def logspace(
    start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, base: ArrayLike = 10.0,
    dtype: Any = None, axis: int = 0,
) -> ArrayLike:
    """``base`` raised to ``num`` evenly spaced exponents from start to stop (see linspace)."""
    check_arraylike("logspace", start, stop, base)
    out_dtype, compute = _space_dtypes("logspace", start, stop, dtype)
    exponents = linspace(convert(start, compute), convert(stop, compute), num, endpoint=endpoint, axis=axis)
    return convert(ufuncs.power(base, exponents), out_dtype)  # an integer dtype truncates, as in JAX


def geomspace(
    start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> ArrayLike:
    """``num`` values from start to stop, evenly spaced on a log scale (a geometric progression).

    As JAX computes it: start's sign times a logspace between the log10s of start and stop divided by
    that sign. So complex bounds rotate along the way, and a zero bound (or bounds of opposite signs)
    gives nan rather than NumPy's ValueError."""
    check_arraylike("geomspace", start, stop)
    out_dtype, compute = _space_dtypes("geomspace", start, stop, dtype)
    start, stop = convert(as_array(start), compute), convert(as_array(stop), compute)
    sign = ufuncs.sign(start)
    magnitudes = logspace(ufuncs.log10(ufuncs.true_divide(start, sign)), ufuncs.log10(ufuncs.true_divide(stop, sign)),
                          num, endpoint=endpoint, dtype=compute)  # fmt: skip
    out = ufuncs.multiply(sign, magnitudes)  # along axis 0, where sign broadcasts against each row
    return convert(moveaxis(out, 0, axis), out_dtype)


# ----------------------------------------------------------------------------------------------
# Vandermonde matrices and windows


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> ArrayLike:
    """Columns are powers of ``x``: decreasing (x**(N-1) ... x**0) unless ``increasing``."""
    check_arraylike("vander", x)
    x = as_array(x)
    shp = get_aval(x).shape
    if len(shp) != 1:
        raise ValueError("x must be a one-dimensional array")
    n = shp[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    # Running products of [1, x, x, ...] along each row: 1, x, x**2, ...
    ones = broadcast_to(convert(1, get_aval(x).dtype), (shp[0], 1))
    columns = lax.concatenate([ones, lax.broadcast_in_dim(x, (shp[0], builtins.max(n - 1, 0)), (0,))], 1)
    out = lax.cumprod(lax.slice_in_dim(columns, 0, n, axis=1), 1)
    out = convert(out, get_aval(out).dtype)
    return out if increasing else lax.rev(out, (1,))


def _window_positions(name: str, M: int) -> tuple[int, ArrayLike]:
    M = operator.index(M)
    return M, convert(lax.iota(np.int32, builtins.max(M, 0)), dtypes.default_dtype("f"))


def _cosine_window(name: str, M: int, coefficients: Sequence[float]) -> ArrayLike:
    M, n = _window_positions(name, M)
    if M <= 1:
        return convert(broadcast_to(convert(1, dtypes.default_dtype("f")), (builtins.max(M, 0),)),
                       dtypes.default_dtype("f"))
    dt = dtypes.default_dtype("f")
    out = broadcast_to(convert(coefficients[0], dt), (M,))
    for j, c in enumerate(coefficients[1:], start=1):
        angle = lax.mul(n, convert(2.0 * np.pi * j / (M - 1), dt))
        out = lax.add(out, lax.mul(convert(c, dt), ufuncs.cos(angle)))
    return out


def hamming(M: int) -> ArrayLike:
    """The Hamming window of M points."""
    return _cosine_window("hamming", M, (0.54, -0.46))


def hanning(M: int) -> ArrayLike:
    """The Hann window of M points."""
    return _cosine_window("hanning", M, (0.5, -0.5))


def blackman(M: int) -> ArrayLike:
    """The Blackman window of M points."""
    return _cosine_window("blackman", M, (0.42, -0.5, 0.08))


def bartlett(M: int) -> ArrayLike:
    """The Bartlett (triangular) window of M points."""
    M, n = _window_positions("bartlett", M)
    dt = dtypes.default_dtype("f")
    if M <= 1:
        return convert(broadcast_to(convert(1, dt), (builtins.max(M, 0),)), dt)
    half = convert((M - 1) / 2.0, dt)
    return lax.sub(convert(1, dt), lax.abs(lax.div(lax.sub(n, half), half)))


def kaiser(M: int, beta: ArrayLike) -> ArrayLike:
    """The Kaiser window of M points: I0(beta sqrt(1 - r^2)) / I0(beta), r running from -1 to 1."""
    check_arraylike("kaiser", beta)
    M, n = _window_positions("kaiser", M)
    dt = dtypes.default_dtype("f")
    if M <= 1:
        return convert(broadcast_to(convert(1, dt), (builtins.max(M, 0),)), dt)
    half = convert((M - 1) / 2.0, dt)
    r = lax.div(lax.sub(n, half), half)
    root = lax.sqrt(lax.sub(convert(1, dt), lax.integer_pow(r, 2)))
    # As JAX does: the numerator in the default float, I0(beta) in beta's own dtype, then converted.
    beta = as_array(beta)
    return ufuncs.divide(ufuncs.i0(ufuncs.multiply(convert(beta, dt), root)), convert(ufuncs.i0(beta), dt))


# ----------------------------------------------------------------------------------------------
# trim_zeros: the result's length depends on the values, which must be known.


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> ArrayLike:
    """``filt`` without its leading ('f') and/or trailing ('b') zeros along each axis of ``axis``
    (every axis by default): the smallest box that keeps every nonzero entry. Its shape depends on
    the values, which must be known."""
    check_arraylike("trim_zeros", filt)
    x = as_array(filt)
    aval = get_aval(x)
    trim = trim.lower()
    if "f" not in trim and "b" not in trim:
        return x  # nothing asked for (JAX's reading; NumPy raises)
    nonzero = lax.ne(x, convert(0, aval.dtype))
    starts, limits = [0] * aval.ndim, list(aval.shape)
    for ax in canonicalize_axes(axis, aval.ndim):
        # Along `ax`: the positions holding a nonzero entry anywhere in the rest of the array.
        others = tuple(a for a in range(aval.ndim) if a != ax)
        ends = _known_ends(lax.reduce_or(nonzero, others) if others else nonzero, filt)
        if ends is None:  # no nonzero entry at all: nothing is kept
            starts[ax] = limits[ax] = 0
            continue
        starts[ax] = ends[0] if "f" in trim else 0
        limits[ax] = ends[1] + 1 if "b" in trim else aval.shape[ax]
    return lax.slice(x, tuple(starts), tuple(limits))


def _known_ends(mask: ArrayLike, culprit: ArrayLike) -> tuple[int, int] | None:
    """The first and last True of a known 1-d mask, or None where it has none."""
    any_true = to_concrete_value(lax.reduce_or(mask, (0,)))
    if any_true is None:
        raise ConcretizationTypeError(culprit, "The problem arose with didax.numpy.trim_zeros: the shape "
                                               "of its result depends on the values.\n")
    if not bool(any_true):
        return None
    n = get_aval(mask).shape[0]
    first = to_concrete_value(lax.argmax(mask, 0, np.int32))
    from_end = to_concrete_value(lax.argmax(lax.rev(mask, (0,)), 0, np.int32))
    return int(first), n - 1 - int(from_end)


_unused = (broadcast_arrays,)
