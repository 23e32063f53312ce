"""Sorting and searching: sort, argsort, lexsort, partition, nonzero and the functions whose
result length depends on the data (nonzero, unique, compress...), which take ``size=`` to fix
it (else the input must be known), and the set operations built on them. Everything is
lax.sort, cumulative sums, comparisons and gathers. Stage 01 introduced it.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes, lax
from ..array import Array
from ..core import get_aval, to_concrete_value
from ..errors import ConcretizationTypeError
from . import ufuncs
from .indexing import take, take_along_axis
from .manipulation import atleast_1d, broadcast_arrays
from .shapes import concatenate, moveaxis, ravel, reshape, stack
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axis, check_arraylike, convert


def _index_dtype() -> np.dtype:
    return dtypes.default_dtype("i")


# ----------------------------------------------------------------------------------------------
# Sorting


def _sort_input(name: str, a: ArrayLike, axis: int | None) -> tuple[ArrayLike, int]:
    check_arraylike(name, a)
    a = as_array(a)
    if axis is None:
        return ravel(a), 0
    return a, canonicalize_axis(axis, get_aval(a).ndim)


def sort(
    a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
    descending: bool = False,
) -> ArrayLike:
    """The values sorted along ``axis`` (flattened if None); NaNs go last."""
    if order is not None:
        raise ValueError("The 'order' argument to sort is not supported.")
    a, axis = _sort_input("sort", a, axis)
    if get_aval(a).ndim == 0:
        return a
    if descending:
        return lax.rev(lax.sort(a, dimension=axis, is_stable=stable), (axis,))
    return lax.sort(a, dimension=axis, is_stable=stable)


def argsort(
    a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
    descending: bool = False, dtype: Any = None,
) -> ArrayLike:
    """The indices that sort ``a`` along ``axis``; equal values keep their order (stable)."""
    if order is not None:
        raise ValueError("The 'order' argument to argsort is not supported.")
    a, axis = _sort_input("argsort", a, axis)
    shp = get_aval(a).shape
    index_dtype = _index_dtype() if dtype is None else dtypes.check_user_dtype(dtype, "argsort")
    if not shp:
        return convert(0, index_dtype)
    iota = lax.broadcasted_iota(index_dtype, shp, axis)
    if descending:
        # Sort the reversed array, and read the result backwards: ties stay in their first order.
        _, idx = lax.sort((lax.rev(a, (axis,)), lax.rev(iota, (axis,))), dimension=axis, is_stable=stable, num_keys=1)
        return lax.rev(idx, (axis,))
    _, idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
    return idx


def lexsort(keys: Any, axis: int = -1) -> ArrayLike:
    """The indices that sort by several keys; the last key is the primary one."""
    keys = list(keys) if not hasattr(keys, "shape") else [keys[i] for i in range(keys.shape[0])]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    check_arraylike("lexsort", *keys)
    keys = broadcast_arrays(*keys)
    shp = get_aval(keys[0]).shape
    if not shp:
        raise TypeError("Cannot lexsort a 0-dimensional array.")
    axis = canonicalize_axis(axis, len(shp))
    iota = lax.broadcasted_iota(_index_dtype(), shp, axis)
    out = lax.sort((*reversed(keys), iota), dimension=axis, is_stable=True, num_keys=len(keys))
    return out[-1]


def _partition(name: str, a: ArrayLike, kth: int, axis: int, indices: bool) -> ArrayLike:
    """JAX's arrangement: the kth+1 smallest in ascending order, then the rest largest first."""
    a, axis = _sort_input(name, a, axis)
    n = get_aval(a).shape[axis]
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"kth={kth} is out of bounds for axis of size {n}.")
    kth %= n
    a = moveaxis(a, axis, -1)
    order = argsort(a, axis=-1)
    bottom = lax.slice_in_dim(order, 0, kth + 1, axis=-1)
    last = get_aval(a).ndim - 1
    if indices:
        # The other indices in increasing order: a stable sort on "is among the smallest".
        rank = argsort(order, axis=-1)
        among = convert(lax.le(rank, convert(kth, get_aval(rank).dtype)), np.dtype(np.int32))
        _, rest = lax.sort((among, lax.broadcasted_iota(get_aval(order).dtype, get_aval(order).shape, last)),
                           dimension=last, num_keys=1)
        picked = lax.concatenate([bottom, lax.slice_in_dim(rest, 0, n - kth - 1, axis=last)], last)
        return moveaxis(picked, -1, axis)
    top, _ = lax.top_k(a, n - kth - 1)  # the largest ones, largest first
    return moveaxis(lax.concatenate([take_along_axis(a, bottom, axis=-1), top], last), -1, axis)


def partition(a: ArrayLike, kth: int, axis: int = -1) -> ArrayLike:
    """``a`` rearranged so that its kth element is where sorting would put it, with the smaller
    ones before it (ascending) and the larger ones after it (descending, as in JAX)."""
    return _partition("partition", a, kth, axis, indices=False)


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> ArrayLike:
    """The indices that partition ``a`` around its kth element (see partition)."""
    return _partition("argpartition", a, kth, axis, indices=True)


def sort_complex(a: ArrayLike) -> ArrayLike:
    """``a`` sorted (real part first, then imaginary) along its last axis, as complex numbers."""
    out = sort(a, axis=-1 if get_aval(as_array(a)).ndim else None)
    # The complex type of the inexact one (as jnp.sin's): int32 gives complex64 even with x64 on,
    # where NumPy's result_type would say complex128.
    dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(get_aval(out).dtype))
    if dt.kind != "c":  # float64 becomes complex128; every narrower float, complex64
        dt = np.dtype(np.complex128 if dt == np.float64 else np.complex64)
    return convert(out, dt)


# ----------------------------------------------------------------------------------------------
# Results whose length depends on the values


def _known_count(name: str, mask: ArrayLike, culprit: Any) -> int:
    """How many entries of a boolean mask are True, which must be known: it is a result's length."""
    count = to_concrete_value(lax.reduce_sum(convert(mask, np.dtype(np.int32)), tuple(range(get_aval(mask).ndim))))
    if count is None:
        raise _size_needed(name, culprit)
    return int(count)


def _known_input(name: str, x: ArrayLike) -> Array:
    """``x``'s value, which must be known, as a constant: without ``size`` JAX reads the input's
    value first, so the result is computed from constants and has zero derivatives."""
    value = to_concrete_value(x)
    if value is None:
        raise _size_needed(name, x)
    return Array(value, get_aval(x).weak_type)


def _size_needed(name: str, culprit: Any) -> ConcretizationTypeError:
    return ConcretizationTypeError(
        culprit,
        f"The size argument of didax.numpy.{name} must be given when the input is not known "
        "(under a transformation): the length of the result depends on the values.\n",
    )


def _true_positions(mask: ArrayLike, size: int) -> tuple[ArrayLike, ArrayLike]:
    """The positions of the first ``size`` True entries of a 1-d mask, in order, and whether each
    of the ``size`` slots holds one (the rest are padding)."""
    n = get_aval(mask).shape[0]
    idx_dtype = _index_dtype()
    # Stable sort on "is False": the True entries come first, in their original order.
    iota = lax.iota(idx_dtype, n)
    _, order = lax.sort((convert(lax.bitwise_not(mask), np.dtype(np.int32)), iota), dimension=0, num_keys=1)
    count = lax.reduce_sum(convert(mask, idx_dtype), (0,))
    if size <= n:
        order = lax.slice(order, (0,), (size,))
    else:
        order = lax.pad(order, convert(0, idx_dtype), [(0, size - n, 0)])
    valid = lax.lt(lax.iota(idx_dtype, size), count)
    return order, valid


def _fill(valid: ArrayLike, values: ArrayLike, fill_value: Any) -> ArrayLike:
    dt = get_aval(values).dtype
    fill = broadcast_to(convert(lax.convert_element_type(as_array(fill_value), dt), dt), get_aval(values).shape)
    return lax.select_n(valid, fill, values)


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple[ArrayLike, ...]:
    """The indices of the nonzero entries, one array per axis. Their number depends on the values:
    give ``size`` (pad with ``fill_value``, default 0, or cut) or a known input."""
    check_arraylike("nonzero", a)
    a = as_array(a)
    shp = get_aval(a).shape
    if not shp:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar) instead.")
    mask = lax.ne(a, convert(0, get_aval(a).dtype)) if get_aval(a).dtype != np.bool_ else a
    if get_aval(a).dtype.kind == "c":
        mask = lax.ne(a, convert(0, get_aval(a).dtype))
    flat = ravel(mask)
    size = _known_count("nonzero", flat, a) if size is None else operator.index(size)
    positions, valid = _true_positions(flat, size)
    # Flat positions to coordinates, last axis fastest.
    coords = []
    rest = positions
    idx_dtype = _index_dtype()
    for d in reversed(shp):
        coords.append(lax.rem(rest, convert(builtins.max(d, 1), idx_dtype)))
        rest = lax.div(rest, convert(builtins.max(d, 1), idx_dtype))
    coords = coords[::-1]
    if get_aval(a).size == 0:  # nothing to find: JAX gives zeros, whatever the fill_value
        fill_value = None
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * len(shp)
    if len(fills) != len(shp):
        raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shp)}; got {fill_value!r}")
    return tuple(_fill(valid, c, 0 if f is None else f) for c, f in zip(coords, fills))


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> ArrayLike:
    """The indices of the nonzero entries of the flattened array."""
    check_arraylike("flatnonzero", a)
    return nonzero(ravel(as_array(a)), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> ArrayLike:
    """The coordinates of the nonzero entries, one row each."""
    check_arraylike("argwhere", a)
    a = as_array(a)
    nd = get_aval(a).ndim
    coords = nonzero(atleast_1d(a), size=size, fill_value=fill_value)
    out = stack(coords, axis=-1) if len(coords) > 1 else lax.reshape(coords[0], (get_aval(coords[0]).shape[0], 1))
    return lax.slice_in_dim(out, 0, 0, axis=1) if nd == 0 else out


def where(condition: ArrayLike, x: ArrayLike = None, y: ArrayLike = None, /, *, size: int | None = None,
          fill_value: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``y``; with the condition alone, nonzero(condition)."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to jax.numpy.where")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value apply only to where(condition) with one argument.")
    return ufuncs.where(condition, x, y)


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> ArrayLike:
    """The slices of ``a`` along ``axis`` (flattened if None) where ``condition`` is true."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    check_arraylike("compress", condition, a)
    cond = as_array(condition)
    if get_aval(cond).ndim != 1:
        raise ValueError("condition must be a 1D array")
    cond = lax.ne(cond, convert(0, get_aval(cond).dtype)) if get_aval(cond).dtype != np.bool_ else cond
    a = as_array(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    n, m = get_aval(a).shape[axis], get_aval(cond).shape[0]
    if m > n:
        extra = to_concrete_value(lax.reduce_or(lax.slice(cond, (n,), (m,)), (0,)))
        if extra is not None and bool(extra):
            raise ValueError("condition contains entries that are out of bounds")
        cond = lax.slice(cond, (0,), (n,))
    elif m < n:
        a = lax.slice_in_dim(a, 0, m, axis=axis)
        n = m
    size = _known_count("compress", cond, condition) if size is None else operator.index(size)
    if not 0 <= size <= n:
        raise ValueError("size must be positive and not greater than the size of the array axis; "
                         f"got size={size} for a.shape[axis]={n}")
    positions, valid = _true_positions(cond, size)
    positions = lax.select_n(valid, broadcast_to(convert(n, get_aval(positions).dtype), (size,)), positions)
    return take(a, positions, axis=axis, mode="fill", fill_value=fill_value)


def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: Any = 0) -> ArrayLike:
    """The entries of ``arr`` where ``condition`` is true, flattened."""
    check_arraylike("extract", condition, arr)
    return compress(ravel(as_array(condition)), ravel(as_array(arr)), size=size, fill_value=fill_value)


def choose(a: ArrayLike, choices: Any, out: None = None, mode: str = "raise") -> ArrayLike:
    """Each entry from the choice that ``a`` names there (choices broadcast against ``a``)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    choices = list(choices) if not hasattr(choices, "shape") else [choices[i] for i in range(choices.shape[0])]
    check_arraylike("choose", a, *choices)
    a = as_array(a)
    if get_aval(a).dtype.kind not in "iu":
        raise TypeError(f"choose: the index array must be of integer type, got {get_aval(a).dtype}.")
    n = len(choices)
    dt = dtypes.result_type(*choices)
    arrays = broadcast_arrays(a, *(convert(as_array(c), dt) for c in choices))
    idx, cases = convert(arrays[0], np.dtype(np.int32)), arrays[1:]
    if mode == "raise":
        known = to_concrete_value(idx)
        if known is None:
            raise ConcretizationTypeError(a, "The problem arose with jnp.choose's mode='raise': use "
                                             "mode='wrap' or 'clip' under transformations.\n")
        if np.any((known < 0) | (known >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        r = lax.rem(idx, np.int32(n))
        idx = lax.select_n(lax.lt(r, np.int32(0)), r, lax.add(r, np.int32(n)))
    elif mode == "clip":
        idx = lax.clamp(np.int32(0), idx, np.int32(n - 1))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    return lax.select_n(idx, *cases)


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0) -> ArrayLike:
    """From the choice of the first true condition, elementwise; ``default`` where none holds."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    dt, weak = dtypes.result_type(*choicelist, default, return_weak_type_flag=True)
    values = broadcast_arrays(*(convert(as_array(c), dt, weak) for c in (*choicelist, default)), *condlist)
    k = len(choicelist)
    choices, fallback, conds = values[:k], values[k], values[k + 1 :]
    out = fallback
    for cond, choice in reversed(list(zip(conds, choices))):
        if get_aval(cond).dtype != np.bool_:
            raise ValueError(f"condlist entries must be boolean, got {get_aval(cond).dtype}")
        out = lax.select_n(cond, out, choice)
    return out


# ----------------------------------------------------------------------------------------------
# unique


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def _first_of_runs(s: ArrayLike, equal_nan: bool) -> ArrayLike:
    """On sorted 1-d values, True where a value differs from the one before it (and at 0)."""
    n = get_aval(s).shape[0]
    if n == 0:
        return lax.convert_element_type(s, np.bool_)
    prev, cur = lax.slice(s, (0,), (n - 1,)), lax.slice(s, (1,), (n,))
    differs = lax.ne(prev, cur)
    if equal_nan and dtypes.is_inexact(get_aval(s).dtype):  # bfloat16 too (its NumPy kind is "V")
        both_nan = lax.bitwise_and(lax.ne(prev, prev), lax.ne(cur, cur))
        differs = lax.bitwise_and(differs, lax.bitwise_not(both_nan))
    return lax.concatenate([broadcast_to(np.bool_(True), (1,)), differs], 0)


def unique(
    ar: ArrayLike, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
    axis: int | None = None, *, equal_nan: bool = True, size: int | None = None, fill_value: Any = None,
    sorted: bool = True,  # noqa: A002
) -> Any:
    """The sorted distinct values (or slices along ``axis``), and optionally where each first occurs,
    how to rebuild the input from them, and how often each occurs. Give ``size`` under transformations."""
    check_arraylike("unique", ar)
    x = as_array(ar) if size is not None else _known_input("unique", as_array(ar))
    in_shape = get_aval(x).shape
    if axis is None:
        return _unique_flat(x, in_shape, return_index, return_inverse, return_counts, equal_nan, size, fill_value,
                            ar)
    axis = canonicalize_axis(axis, len(in_shape))
    moved = moveaxis(x, axis, 0)
    rest = get_aval(moved).shape[1:]
    n = in_shape[axis]
    m = int(np.prod(rest, dtype=np.int64))
    rows = lax.reshape(moved, (n, m))
    idx_dtype = _index_dtype()
    iota = lax.iota(idx_dtype, n)
    columns = [lax.index_in_dim(rows, j, 1, keepdims=False) for j in range(m)]
    # Sort the rows lexicographically (first column first), keeping where each came from.
    *sorted_columns, perm = lax.sort((*columns, iota), dimension=0, num_keys=m) if n and m else (*columns, iota)
    first = broadcast_to(np.bool_(True), (n,)) if n else lax.convert_element_type(iota, np.bool_)
    if n and m:
        differs = [lax.bitwise_not(_first_of_runs(c, equal_nan)) for c in sorted_columns]
        same = differs[0]
        for d in differs[1:]:
            same = lax.bitwise_and(same, d)
        first = lax.bitwise_not(same)
    elif n:
        first = lax.eq(iota, convert(0, idx_dtype))
    size_out = _known_count("unique", first, ar) if size is None else operator.index(size)
    starts, valid = _true_positions(first, size_out)
    picked = take(perm, starts, mode="clip") if n else starts
    values = take(moved, picked, axis=0, mode="clip") if n else moved
    if size is not None and n:
        vshape, vdtype = get_aval(values).shape, get_aval(values).dtype
        if fill_value is None:  # the first (smallest) distinct slice
            fill = lax.broadcast_in_dim(lax.index_in_dim(values, 0, 0, keepdims=False), vshape,
                                        tuple(range(1, len(vshape))))
        else:
            fill = broadcast_to(convert(lax.convert_element_type(as_array(fill_value), vdtype), vdtype), vshape)
        keep = lax.broadcast_in_dim(valid, get_aval(values).shape, (0,))
        values = lax.select_n(keep, fill, values)
    outs = [moveaxis(values, 0, axis)]
    return _unique_extras(outs, perm, starts, valid, first, n, size, size_out, (n,), return_index, return_inverse,
                          return_counts)


def _unique_flat(x: ArrayLike, in_shape: tuple[int, ...], return_index: bool, return_inverse: bool,
                 return_counts: bool, equal_nan: bool, size: int | None, fill_value: Any, culprit: Any) -> Any:
    flat = ravel(x)
    n = get_aval(flat).shape[0]
    iota = lax.iota(_index_dtype(), n)
    s, perm = lax.sort((flat, iota), dimension=0, num_keys=1) if n else (flat, iota)
    first = _first_of_runs(s, equal_nan)
    size_out = _known_count("unique", first, culprit) if size is None else operator.index(size)
    starts, valid = _true_positions(first, size_out)
    values = take(s, starts, mode="clip") if n else s
    if size is not None and n:
        default_fill = lax.index_in_dim(s, 0, 0, keepdims=False)
        values = _fill(valid, values, default_fill if fill_value is None else fill_value)
    return _unique_extras([values], perm, starts, valid, first, n, size, size_out, in_shape, return_index,
                          return_inverse, return_counts)


def _unique_extras(outs: list, perm: ArrayLike, starts: ArrayLike, valid: ArrayLike, first: ArrayLike, n: int,
                   size: int | None, size_out: int, inverse_shape: tuple[int, ...], return_index: bool,
                   return_inverse: bool, return_counts: bool) -> Any:
    """The optional results of unique, from the sorting permutation and the starts of the runs."""
    idx_dtype = _index_dtype()
    if return_index:
        index = take(perm, starts, mode="clip") if n else starts
        if size is not None and n:
            index = _fill(valid, index, lax.index_in_dim(perm, 0, 0, keepdims=False))
        outs.append(index)
    group = lax.sub(lax.cumsum(convert(first, idx_dtype), 0), convert(1, idx_dtype)) if n else perm
    if return_inverse:
        # Each sorted position's group, put back at the position it came from.
        _, inverse = lax.sort((perm, group), dimension=0, num_keys=1) if n else (perm, group)
        outs.append(reshape(inverse, inverse_shape))
    if return_counts:
        # How many entries fall in each group: compare every group id with every slot.
        slots = lax.broadcasted_iota(idx_dtype, (size_out, n), 0)
        hits = lax.eq(slots, lax.broadcast_in_dim(group, (size_out, n), (1,)))
        outs.append(lax.reduce_sum(convert(hits, idx_dtype), (1,)))
    return outs[0] if len(outs) == 1 else tuple(outs)


# The array API's unique_* functions count every NaN as distinct (equal_nan=False), as JAX and NumPy
# do there; jnp.unique itself puts the NaNs together.


def unique_values(x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None) -> ArrayLike:
    """The array API's unique: the sorted distinct values."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueCountsResult:
    """The distinct values and how often each occurs."""
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_inverse(x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueInverseResult:
    """The distinct values and, for each input entry, the index of its value among them."""
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_all(x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
    """The distinct values, first indices, inverse indices and counts."""
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                                    equal_nan=False, size=size, fill_value=fill_value))


# ----------------------------------------------------------------------------------------------
# Set operations on flattened arrays


def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto") -> ArrayLike:
    """Whether each entry of ``element`` equals some entry of ``test_elements``."""
    check_arraylike("isin", element, test_elements)
    element, test = as_array(element), ravel(as_array(test_elements))
    dt = dtypes.result_type(element, test)
    element, test = convert(element, dt), convert(test, dt)
    shp = get_aval(element).shape
    m = get_aval(test).shape[0]
    eq = lax.eq(lax.broadcast_in_dim(element, (*shp, m), tuple(range(len(shp)))),
                lax.broadcast_in_dim(test, (*shp, m), (len(shp),)))
    found = lax.reduce_or(eq, (len(shp),))
    return lax.bitwise_not(found) if invert else found


def _select_sorted(name: str, s: ArrayLike, keep: ArrayLike, size: int | None, fill_value: Any,
                   default_fill: Any, culprit: Any) -> tuple[ArrayLike, ArrayLike, ArrayLike]:
    """The entries of sorted ``s`` where ``keep``, padded or cut to ``size``; their positions too."""
    size_out = _known_count(name, keep, culprit) if size is None else operator.index(size)
    positions, valid = _true_positions(keep, size_out)
    n = get_aval(s).shape[0]
    values = take(s, positions, mode="clip") if n else broadcast_to(convert(0, get_aval(s).dtype), (size_out,))
    if size is not None:
        if fill_value is None:
            fill_value = default_fill(values, valid) if n else 0
        values = _fill(valid, values, fill_value)
    return values, positions, valid


def _smallest_kept(values: ArrayLike, valid: ArrayLike) -> ArrayLike:
    return lax.index_in_dim(values, 0, 0, keepdims=False) if get_aval(values).shape[0] else 0


def _sorted_flat(*arrays: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
    flat = concatenate([ravel(as_array(a)) for a in arrays], 0) if len(arrays) > 1 else ravel(as_array(arrays[0]))
    n = get_aval(flat).shape[0]
    iota = lax.iota(_index_dtype(), n)
    return lax.sort((flat, iota), dimension=0, num_keys=1) if n else (flat, iota)


def union1d(ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> ArrayLike:
    """The sorted distinct values found in either input."""
    check_arraylike("union1d", ar1, ar2)
    return unique(concatenate([ravel(as_array(ar1)), ravel(as_array(ar2))], 0), size=size, fill_value=fill_value)


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> ArrayLike:
    """The sorted distinct values of ``ar1`` that are not in ``ar2``."""
    check_arraylike("setdiff1d", ar1, ar2)
    if size is None and not assume_unique:  # JAX takes unique(ar1), whose input must be known
        ar1 = _known_input("setdiff1d", as_array(ar1))
    s, _ = _sorted_flat(ar1)
    keep = lax.bitwise_and(_first_of_runs(s, True), lax.bitwise_not(isin(s, ar2)))
    return _select_sorted("setdiff1d", s, keep, size, fill_value, lambda v, ok: 0, ar1)[0]


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted distinct values found in both inputs (and, optionally, where each first occurs)."""
    check_arraylike("intersect1d", ar1, ar2)
    if size is None and not assume_unique:  # JAX takes unique of each, whose inputs must be known
        ar1, ar2 = _known_input("intersect1d", as_array(ar1)), _known_input("intersect1d", as_array(ar2))
    s, perm = _sorted_flat(ar1)
    keep = lax.bitwise_and(_first_of_runs(s, True), isin(s, ar2))
    values, positions, valid = _select_sorted("intersect1d", s, keep, size, fill_value, _smallest_kept, ar1)
    if not return_indices:
        return values
    idx_dtype = _index_dtype()
    n1 = get_aval(s).shape[0]
    index1 = take(perm, positions, mode="clip") if n1 else positions
    b = ravel(as_array(ar2))
    n2 = get_aval(b).shape[0]
    k = get_aval(values).shape[0]
    dt = dtypes.result_type(values, b)
    eq = lax.eq(lax.broadcast_in_dim(convert(values, dt), (k, n2), (0,)),
                lax.broadcast_in_dim(convert(b, dt), (k, n2), (1,)))
    index2 = lax.argmax(eq, 1, idx_dtype) if n2 and k else broadcast_to(convert(0, idx_dtype), (k,))
    if size is not None:
        index1 = _fill(valid, index1, n1)
        index2 = _fill(valid, index2, n2)
    return values, index1, index2


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> ArrayLike:
    """The sorted distinct values found in exactly one of the inputs."""
    check_arraylike("setxor1d", ar1, ar2)
    if size is None and not assume_unique:  # JAX takes unique of each, whose inputs must be known
        ar1, ar2 = _known_input("setxor1d", as_array(ar1)), _known_input("setxor1d", as_array(ar2))
    s, _ = _sorted_flat(ar1, ar2)
    in1, in2 = isin(s, ar1), isin(s, ar2)
    keep = lax.bitwise_and(_first_of_runs(s, True), lax.ne(in1, in2))
    return _select_sorted("setxor1d", s, keep, size, fill_value, _smallest_kept, ar1)[0]


def piecewise(x: ArrayLike, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> ArrayLike:
    """Each function (or constant) of ``funclist`` where its condition holds; a later true condition
    wins, and one extra function gives the value where none holds (else 0)."""
    check_arraylike("piecewise", x)
    x = as_array(x)
    shp, dt = get_aval(x).shape, get_aval(x).dtype
    conds = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    if len(funclist) not in (len(conds), len(conds) + 1):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} functions are "
                         f"expected; got {len(funclist)}")

    def value(f: Any) -> ArrayLike:
        out = f(x, *args, **kw) if callable(f) else f
        return broadcast_to(convert(lax.convert_element_type(as_array(out), dt), dt), shp)

    out = value(funclist[-1]) if len(funclist) == len(conds) + 1 else broadcast_to(convert(0, dt), shp)
    for cond, f in zip(conds, funclist):
        cond = broadcast_to(as_array(cond), shp)
        if get_aval(cond).dtype != np.bool_:
            cond = lax.ne(cond, convert(0, get_aval(cond).dtype))
        out = lax.select_n(cond, out, value(f))
    return out
