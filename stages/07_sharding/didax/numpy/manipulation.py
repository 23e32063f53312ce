"""Rearranging arrays without computing new values: atleast_*d, splitting, stacking, flipping,
rolling, tiling, repeating, padding, inserting and deleting. Every one is slices, reversals,
concatenations, broadcasts or gathers from didax.lax. Stage 01 introduced it.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, to_concrete_value
from ..errors import ConcretizationTypeError
from . import reductions
from .indexing import take
from .shapes import concatenate, moveaxis, ravel, reshape
from .util import (
    ArrayLike,
    as_array,
    broadcast_to,
    canonicalize_axis,
    check_arraylike,
    convert,
    is_arraylike,
)


def _shape_of(a: ArrayLike) -> tuple[int, ...]:
    return get_aval(as_array(a)).shape


def _concrete_ints(name: str, x: Any) -> Any:
    """The Python int(s) of an argument that fixes a result's shape, which must be known now."""
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (list, tuple)) and all(isinstance(i, (int, np.integer)) for i in x):
        return [int(i) for i in x]
    value = to_concrete_value(as_array(x)) if not isinstance(x, (list, tuple)) else None
    if value is None and isinstance(x, (list, tuple)):
        return [_concrete_ints(name, i) for i in x]
    if value is None:
        raise ConcretizationTypeError(x, f"The problem arose with didax.numpy.{name}: the shape of its "
                                         "result depends on this value, so it must be known.\n")
    return value.tolist()


# ----------------------------------------------------------------------------------------------
# Ranks, shapes, sizes


def atleast_1d(*arys: ArrayLike) -> Any:
    """Each input with at least one axis; one input gives an array, several a list."""
    check_arraylike("atleast_1d", *arys)
    out = [x if get_aval(x).ndim >= 1 else lax.reshape(x, (1,)) for x in map(as_array, arys)]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: ArrayLike) -> Any:
    """Each input with at least two axes (new ones in front); one input gives an array."""
    check_arraylike("atleast_2d", *arys)
    out = []
    for x in map(as_array, arys):
        shape = get_aval(x).shape
        out.append(x if len(shape) >= 2 else lax.reshape(x, (1,) * (2 - len(shape)) + shape))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: ArrayLike) -> Any:
    """Each input with at least three axes: (n,) becomes (1, n, 1) and (m, n) becomes (m, n, 1)."""
    check_arraylike("atleast_3d", *arys)
    out = []
    for x in map(as_array, arys):
        shape = get_aval(x).shape
        new = {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}.get(len(shape), shape)
        out.append(x if new == shape else lax.reshape(x, new))
    return out[0] if len(out) == 1 else out


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape that the given shapes broadcast to together."""
    shapes = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def broadcast_arrays(*args: ArrayLike) -> list[ArrayLike]:
    """The inputs broadcast to their common shape."""
    check_arraylike("broadcast_arrays", *args)
    shape = broadcast_shapes(*(_shape_of(a) for a in args))
    return [broadcast_to(as_array(a), shape) for a in args]


def shape(a: ArrayLike) -> tuple[int, ...]:
    """The shape of an array (or of anything NumPy can make one from)."""
    return tuple(a.shape) if hasattr(a, "shape") else np.shape(a)


def ndim(a: ArrayLike) -> int:
    """The number of axes of an array."""
    return len(shape(a))


def size(a: ArrayLike, axis: int | Sequence[int] | None = None) -> int:
    """The number of elements, in all or along the given axes."""
    s = shape(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return int(np.prod([s[canonicalize_axis(i, len(s))] for i in axes], dtype=np.int64))


def isscalar(element: Any) -> bool:
    """Whether ``element`` is a Python or NumPy scalar, or an array of rank 0 (as in JAX)."""
    if isinstance(element, (int, float, complex, bool, np.generic)):
        return True
    if is_arraylike(element):
        return len(shape(element)) == 0
    return False


def iterable(y: Any) -> bool:
    """Whether ``iter(y)`` works."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def permute_dims(a: ArrayLike, /, axes: Sequence[int]) -> ArrayLike:
    """The array API's transpose: the axes in the given order. As in JAX it is lax.transpose itself,
    so `axes` must be a permutation of (0, ..., ndim - 1): negative axes are a TypeError."""
    check_arraylike("permute_dims", a)
    return lax.transpose(as_array(a), tuple(axes))


def matrix_transpose(x: ArrayLike, /) -> ArrayLike:
    """Swap the last two axes (a stack of matrices, each transposed)."""
    check_arraylike("matrix_transpose", x)
    nd = get_aval(as_array(x)).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> ArrayLike:
    """Move ``axis`` so that it comes before the axis now at ``start`` (moveaxis is clearer)."""
    check_arraylike("rollaxis", a)
    nd = get_aval(as_array(a)).ndim
    axis = canonicalize_axis(axis, nd)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd} <= start <= {nd}")
    start = start + nd if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


# ----------------------------------------------------------------------------------------------
# Splitting


def _split(name: str, ary: ArrayLike, sections: Any, axis: int, even: bool) -> list[ArrayLike]:
    check_arraylike(name, ary)
    ary = as_array(ary)
    shp = get_aval(ary).shape
    axis = canonicalize_axis(axis, len(shp))
    n = shp[axis]
    if np.ndim(sections) == 0 and not isinstance(sections, (list, tuple)):
        parts = _concrete_ints(name, sections)
        if parts <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % parts:
            raise ValueError("array split does not result in an equal division")
        q, r = divmod(n, parts)
        cuts = [i * q + builtins.min(i, r) for i in range(1, parts)]
    else:
        cuts = list(_concrete_ints(name, sections))
    bounds = [0, *(builtins.min(builtins.max(c if c >= 0 else c + n, 0), n) for c in cuts), n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = builtins.max(lo, hi)
        out.append(lax.slice_in_dim(ary, lo, hi, axis=axis))
    return out


def split(ary: ArrayLike, indices_or_sections: Any, axis: int = 0) -> list[ArrayLike]:
    """Equal pieces (an int) or pieces between the given indices (a sequence), along ``axis``."""
    return _split("split", ary, indices_or_sections, axis, even=True)


def array_split(ary: ArrayLike, indices_or_sections: Any, axis: int = 0) -> list[ArrayLike]:
    """Like split, but ``n`` sections need not divide the axis: the first pieces are one longer."""
    return _split("array_split", ary, indices_or_sections, axis, even=False)


def hsplit(ary: ArrayLike, indices_or_sections: Any) -> list[ArrayLike]:
    """Split along the second axis (the first, for 1-d input)."""
    nd = len(_shape_of(ary))
    if nd == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if nd > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: Any) -> list[ArrayLike]:
    """Split along the first axis of an array of rank 2 or more."""
    if len(_shape_of(ary)) < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary: ArrayLike, indices_or_sections: Any) -> list[ArrayLike]:
    """Split along the third axis of an array of rank 3 or more."""
    if len(_shape_of(ary)) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[ArrayLike, ...]:
    """The slices of ``x`` along ``axis``, each without that axis."""
    check_arraylike("unstack", x)
    x = as_array(x)
    shp = get_aval(x).shape
    if not shp:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = canonicalize_axis(axis, len(shp))
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(shp[axis]))


# ----------------------------------------------------------------------------------------------
# Stacking


def _sequence(name: str, tup: Any) -> list[ArrayLike]:
    if hasattr(tup, "shape") and hasattr(tup, "dtype"):  # an array stacks its rows
        arr = as_array(tup)
        return [lax.index_in_dim(arr, i, 0, keepdims=False) for i in range(get_aval(arr).shape[0])]
    return list(tup)


def _with_dtype(arrays: list[ArrayLike], dtype: Any) -> list[ArrayLike]:
    if dtype is None:
        return arrays
    dt = dtypes.check_user_dtype(dtype, "stack")
    return [convert(as_array(a), dt) for a in arrays]


def hstack(tup: Any, dtype: Any = None) -> ArrayLike:
    """Concatenate along the second axis (the first, for 1-d inputs)."""
    arrays = _with_dtype(atleast_1d_list(_sequence("hstack", tup)), dtype)
    return concatenate(arrays, 0 if get_aval(arrays[0]).ndim == 1 else 1)


def vstack(tup: Any, dtype: Any = None) -> ArrayLike:
    """Concatenate along the first axis, after making each input at least 2-d."""
    arrays = [atleast_2d(a) for a in _sequence("vstack", tup)]
    return concatenate(_with_dtype(arrays, dtype), 0)


def dstack(tup: Any, dtype: Any = None) -> ArrayLike:
    """Concatenate along the third axis, after making each input at least 3-d."""
    arrays = [atleast_3d(a) for a in _sequence("dstack", tup)]
    return concatenate(_with_dtype(arrays, dtype), 2)


def column_stack(tup: Any) -> ArrayLike:
    """1-d inputs become columns; then concatenate along the second axis."""
    arrays = []
    for a in _sequence("column_stack", tup):
        a = as_array(a)
        shp = get_aval(a).shape
        arrays.append(lax.reshape(a, (*shp, 1) if shp else (1, 1)) if len(shp) < 2 else a)
    return concatenate(arrays, 1)


def atleast_1d_list(arrays: list[ArrayLike]) -> list[ArrayLike]:
    """atleast_1d of each array, always as a list."""
    out = atleast_1d(*arrays)
    return out if isinstance(out, list) else [out]


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> ArrayLike:
    """The array API's name for concatenate."""
    return concatenate(arrays, axis)


def block(arrays: Any) -> ArrayLike:
    """An array assembled from nested lists of blocks: the innermost lists join along the last axis."""

    def depth(x: Any) -> int:
        if isinstance(x, list):
            if not x:
                raise ValueError("block: lists cannot be empty.")
            depths = {depth(y) for y in x}
            if len(depths) > 1:
                raise ValueError("block: list depths are mismatched.")
            return 1 + depths.pop()
        if isinstance(x, tuple):
            raise TypeError("block: arrays is a tuple; only lists can be used to arrange blocks.")
        return 0

    list_depth = depth(arrays)
    leaves: list[ArrayLike] = []

    def collect(x: Any) -> None:
        if isinstance(x, list):
            for y in x:
                collect(y)
        else:
            leaves.append(as_array(x))

    collect(arrays)
    rank = builtins.max([list_depth, *(get_aval(a).ndim for a in leaves)])

    def assemble(x: Any, level: int) -> ArrayLike:
        if not isinstance(x, list):
            x = as_array(x)
            shp = get_aval(x).shape
            return lax.reshape(x, (1,) * (rank - len(shp)) + shp) if len(shp) < rank else x
        parts = [assemble(y, level + 1) for y in x]
        return concatenate(parts, rank - list_depth + level)

    return assemble(arrays, 0)


# ----------------------------------------------------------------------------------------------
# Flipping and rolling


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> ArrayLike:
    """Reverse the order of elements along the given axes (all by default)."""
    check_arraylike("flip", m)
    m = as_array(m)
    nd = get_aval(m).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(canonicalize_axis(a, nd) for a in ((axis,) if np.ndim(axis) == 0 else axis))
    return lax.rev(m, axes)


def fliplr(m: ArrayLike) -> ArrayLike:
    """Reverse the columns (the second axis)."""
    if len(_shape_of(m)) < 2:
        raise ValueError("fliplr requires an array with at least 2 dimensions.")
    return flip(m, 1)


def flipud(m: ArrayLike) -> ArrayLike:
    """Reverse the rows (the first axis)."""
    if len(_shape_of(m)) < 1:
        raise ValueError("flipud requires an array with at least 1 dimension.")
    return flip(m, 0)


def _roll_axis(a: ArrayLike, shift: Any, axis: int) -> ArrayLike:
    """Roll along one axis: the array twice over, and a (possibly traced) window into it."""
    n = get_aval(a).shape[axis]
    if n == 0:
        return a
    known = to_concrete_value(as_array(shift)) if not isinstance(shift, (int, np.integer)) else np.asarray(shift)
    if known is not None:
        s = int(known) % n
        if s == 0:
            return a
        return concatenate([lax.slice_in_dim(a, n - s, n, axis=axis), lax.slice_in_dim(a, 0, n - s, axis=axis)], axis)
    shift = convert(as_array(shift), np.dtype(np.int32))
    start = lax.rem(lax.sub(np.int32(n), lax.rem(shift, np.int32(n))), np.int32(n))
    twice = lax.concatenate([a, a], axis)
    return lax.dynamic_slice_in_dim(twice, start, n, axis)


def roll(a: ArrayLike, shift: Any, axis: int | Sequence[int] | None = None) -> ArrayLike:
    """Shift elements along axes, wrapping around; without an axis, roll the flattened array."""
    check_arraylike("roll", a)
    a = as_array(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), get_aval(a).shape)
    nd = get_aval(a).ndim
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    shifts = (shift,) if np.ndim(shift) == 0 else tuple(shift)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("len(shift) must equal len(axis)")
    for s, ax in zip(shifts, axes):
        a = _roll_axis(a, s, canonicalize_axis(ax, nd))
    return a


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> ArrayLike:
    """Rotate by 90 degrees ``k`` times, from the first named axis toward the second."""
    check_arraylike("rot90", m)
    m = as_array(m)
    nd = get_aval(m).ndim
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    ax1, ax2 = canonicalize_axis(axes[0], nd), canonicalize_axis(axes[1], nd)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return lax.rev(m, (ax1, ax2))
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return lax.transpose(lax.rev(m, (ax2,)), perm)
    return lax.rev(lax.transpose(m, perm), (ax2,))


# ----------------------------------------------------------------------------------------------
# Tiling and repeating


def tile(A: ArrayLike, reps: int | Sequence[int]) -> ArrayLike:
    """``A`` repeated ``reps`` times along each axis (NumPy's rules when the ranks differ)."""
    check_arraylike("tile", A)
    A = as_array(A)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    shp = get_aval(A).shape
    rank = builtins.max(len(shp), len(reps))
    shp = (1,) * (rank - len(shp)) + shp
    reps = (1,) * (rank - len(reps)) + reps
    A = lax.reshape(A, shp)
    # Broadcast to (r0, s0, r1, s1, ...), then merge each pair of axes.
    paired = tuple(d for r, s in zip(reps, shp) for d in (r, s))
    out = lax.broadcast_in_dim(A, paired, tuple(range(1, 2 * rank, 2)))
    return lax.reshape(out, tuple(r * s for r, s in zip(reps, shp)))


def repeat(
    a: ArrayLike, repeats: ArrayLike, axis: int | None = None, *, total_repeat_length: int | None = None
) -> ArrayLike:
    """Each element repeated ``repeats`` times (one count, or one per element along ``axis``).

    The result's length depends on the counts: they must be known, unless ``total_repeat_length``
    says it (then the result is cut or padded with the last element to that length, as in JAX).
    """
    check_arraylike("repeat", a, repeats)
    a = as_array(a)
    if axis is None:
        a, axis = ravel(a), 0
    shp = get_aval(a).shape
    axis = canonicalize_axis(axis, len(shp))
    n = shp[axis]
    known = repeats if isinstance(repeats, (int, np.integer)) else to_concrete_value(as_array(repeats))
    if known is not None and np.ndim(known) == 0 and total_repeat_length is None:
        r = int(known)
        if r < 0:
            raise ValueError(f"repeats may not contain negative values, got {r}.")
        expanded = lax.broadcast_in_dim(a, (*shp[: axis + 1], r, *shp[axis + 1 :]),
                                        (*range(axis + 1), *range(axis + 2, len(shp) + 1)))
        return lax.reshape(expanded, (*shp[:axis], n * r, *shp[axis + 1 :]))
    counts = broadcast_to(convert(as_array(repeats), np.dtype(np.int32)), (n,))
    if total_repeat_length is None:
        if known is None:
            raise ConcretizationTypeError(repeats, "The problem arose with didax.numpy.repeat: without "
                                                   "total_repeat_length, the repeats must be known.\n")
        total = int(np.sum(np.broadcast_to(known, (n,)), dtype=np.int64))
    else:
        total = operator.index(total_repeat_length)
    if n == 0 or total == 0:
        return lax.slice_in_dim(a, 0, 0, axis=axis) if total == 0 else a
    # Output position j comes from element i, where i counts the running totals that are <= j.
    ends = lax.cumsum(counts, 0)
    positions = lax.broadcasted_iota(np.int32, (total, n), 0)
    source = lax.reduce_sum(lax.convert_element_type(lax.ge(positions, lax.broadcast_in_dim(ends, (total, n), (1,))),
                                                     np.int32), (1,))
    source = lax.min(source, np.int32(n - 1))
    return take(a, source, axis=axis)


# ----------------------------------------------------------------------------------------------
# Padding


def _pad_widths(pad_width: Any, nd: int) -> list[tuple[int, int]]:
    widths = np.asarray(_concrete_ints("pad", pad_width) if not isinstance(pad_width, np.ndarray) else pad_width)
    if widths.dtype.kind not in "iu" and widths.size:
        raise TypeError(f"`pad_width` must be of integral type, got {pad_width!r}.")
    try:
        widths = np.broadcast_to(widths.astype(np.int64), (nd, 2))
    except ValueError:
        raise ValueError(f"jnp.pad: pad_width with nd={nd} has unsupported shape {np.shape(widths)}.") from None
    if (widths < 0).any():
        raise ValueError(f"index can't contain negative values, got pad_width={pad_width!r}.")
    return [(int(b), int(e)) for b, e in widths]


def _per_axis(value: Any, nd: int) -> list[tuple[Any, Any]]:
    """A pad argument (constant_values, end_values, stat_length) as a (before, after) pair per axis."""
    if isinstance(value, (list, tuple)) or (hasattr(value, "shape") and np.ndim(value) > 0):
        if not isinstance(value, (list, tuple)):
            value = [value[i] for i in range(value.shape[0])]
        if len(value) == 1:
            return _per_axis(value[0], nd)
        if len(value) == 2 and all(np.ndim(v) == 0 and not isinstance(v, (list, tuple)) for v in value):
            return [(value[0], value[1])] * nd
        if len(value) == nd:
            out = []
            for v in value:
                pair = v if isinstance(v, (list, tuple)) else (v, v)
                out.append((pair[0], pair[-1]))
            return out
        raise ValueError(f"jnp.pad: could not broadcast {value!r} to {nd} axes.")
    return [(value, value)] * nd


def _runs(indices: list[int]) -> list[tuple[int, int, int]]:
    """Split a list of indices into runs of consecutive ones: (first, length, +1 or -1)."""
    runs: list[tuple[int, int, int]] = []
    for i in indices:
        if runs:
            first, length, step = runs[-1]
            last = first + (length - 1) * step
            if length == 1 and abs(i - last) == 1:
                runs[-1] = (first, 2, i - last)
                continue
            if i - last == step and length > 1:
                runs[-1] = (first, length + 1, step)
                continue
        runs.append((i, 1, 1))
    return runs


def _gather_static(a: ArrayLike, indices: list[int], axis: int) -> ArrayLike:
    """``a`` at the given (known) indices along ``axis``, as slices, reversals and a concatenation."""
    pieces = []
    for first, length, step in _runs(indices):
        if step == 1:
            pieces.append(lax.slice_in_dim(a, first, first + length, axis=axis))
        else:
            piece = lax.slice_in_dim(a, first - length + 1, first + 1, axis=axis)
            pieces.append(lax.rev(piece, (axis,)))
    return pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)


def _index_for(mode: str, p: int, n: int) -> int:
    if mode == "edge":
        return builtins.min(builtins.max(p, 0), n - 1)
    if mode == "wrap":
        return p % n
    if mode == "symmetric":
        m = p % (2 * n)
        return m if m < n else 2 * n - 1 - m
    if n == 1:  # reflect
        return 0
    m = p % (2 * (n - 1))
    return m if m < n else 2 * (n - 1) - m


def _stat(mode: str, x: ArrayLike, axis: int) -> ArrayLike:
    dt = get_aval(x).dtype
    if mode == "maximum":
        return lax.reduce_max(x, (axis,))
    if mode == "minimum":
        return lax.reduce_min(x, (axis,))
    if mode == "mean":
        out = reductions.mean(x, axis=axis)
        if dt.kind in "iub":
            out = lax.round(out, lax.RoundingMethod.TO_NEAREST_EVEN)
        return convert(out, dt)
    # median: the middle of the sorted values (the mean of the two middle ones for even counts)
    n = get_aval(x).shape[axis]
    s = lax.sort(x, dimension=axis)
    lo = lax.index_in_dim(s, (n - 1) // 2, axis, keepdims=False)
    hi = lax.index_in_dim(s, n // 2, axis, keepdims=False)
    work = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dt))
    out = lax.div(lax.add(convert(lo, work), convert(hi, work)), convert(2, work))
    if dt.kind in "iub":
        out = lax.round(out, lax.RoundingMethod.TO_NEAREST_EVEN)
    return convert(out, dt)


def _pad_axis(x: ArrayLike, axis: int, before: int, after: int, mode: str, kwargs: dict, pair: Any) -> ArrayLike:
    shp = get_aval(x).shape
    n = shp[axis]
    dt = get_aval(x).dtype
    if before == 0 and after == 0:
        return x
    if mode in ("constant", "empty"):
        pieces = []
        for width, value in ((before, pair[0]), (after, pair[1])):
            fill = convert(lax.convert_element_type(as_array(value), dt), dt) if mode == "constant" else convert(0, dt)
            pieces.append(broadcast_to(fill, (*shp[:axis], width, *shp[axis + 1 :])))
        return lax.concatenate([pieces[0], x, pieces[1]], axis)
    if n == 0:
        raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    if mode in ("edge", "wrap", "symmetric", "reflect"):
        reflect_type = kwargs.get("reflect_type", "even")
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
        if reflect_type == "odd":
            return _pad_odd(x, axis, before, after, mode)
        indices = [_index_for(mode, p, n) for p in range(-before, n + after)]
        return _gather_static(x, indices, axis)
    if mode == "linear_ramp":
        work = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dt))
        pieces = []
        for side, width in (("before", before), ("after", after)):
            edge = lax.index_in_dim(x, 0 if side == "before" else n - 1, axis, keepdims=True)
            end = convert(lax.convert_element_type(as_array(pair[0 if side == "before" else 1]), dt), work)
            edge_w = convert(edge, work)
            # i = 0 is the outermost position (the end value), i = width - 1 is next to the edge.
            i = convert(lax.broadcasted_iota(np.int32, (*shp[:axis], width, *shp[axis + 1 :]), axis), work)
            frac = lax.div(i, convert(width, work))
            ramp = lax.add(end, lax.mul(lax.sub(edge_w, end), frac))
            if side == "after":
                ramp = lax.rev(ramp, (axis,))
            pieces.append(convert(ramp, dt))
        return lax.concatenate([pieces[0], x, pieces[1]], axis)
    if mode in ("maximum", "minimum", "mean", "median"):
        pieces = []
        for side, width, length in (("before", before, pair[0]), ("after", after, pair[1])):
            length = n if length is None else builtins.min(builtins.max(operator.index(length), 1), n)
            region = lax.slice_in_dim(x, 0, length, axis=axis) if side == "before" else lax.slice_in_dim(
                x, n - length, n, axis=axis)
            value = lax.expand_dims(_stat(mode, region, axis), (axis,))
            pieces.append(broadcast_to(value, (*shp[:axis], width, *shp[axis + 1 :])))
        return lax.concatenate([pieces[0], x, pieces[1]], axis)
    raise ValueError(f"Unimplemented padding mode '{mode}' for didax.numpy.pad.")


def _pad_odd(x: ArrayLike, axis: int, before: int, after: int, mode: str) -> ArrayLike:
    """reflect_type='odd': the mirror image turned about the edge value (2 * edge - mirrored)."""
    n = get_aval(x).shape[axis]
    limit = n - 1 if mode == "reflect" else n
    if before > limit or after > limit:
        raise NotImplementedError(f"didax.numpy.pad with reflect_type='odd' pads at most {limit} entries on a "
                                  f"side of an axis of length {n}.")
    pieces = []
    for side, width in (("before", before), ("after", after)):
        if width == 0:
            continue
        edge_at = 0 if side == "before" else n - 1
        edge = lax.index_in_dim(x, edge_at, axis, keepdims=True)
        positions = range(-width, 0) if side == "before" else range(n, n + width)
        mirrored = _gather_static(x, [_index_for(mode, p, n) for p in positions], axis)
        two = convert(2, get_aval(x).dtype)
        turned = lax.sub(lax.mul(two, lax.broadcast_in_dim(lax.squeeze(edge, (axis,)), get_aval(mirrored).shape,
                                                            tuple(d for d in range(get_aval(x).ndim) if d != axis))),
                         mirrored)
        pieces.append((side, turned))
    parts = [p for s, p in pieces if s == "before"] + [x] + [p for s, p in pieces if s == "after"]
    return lax.concatenate(parts, axis) if len(parts) > 1 else x


_PAD_KWARGS = {
    "constant": ("constant_values",),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "minimum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def pad(array: ArrayLike, pad_width: Any, mode: str = "constant", **kwargs: Any) -> ArrayLike:
    """Add values around the array's edges; the modes are NumPy's (constant, edge, wrap, reflect...)."""
    check_arraylike("pad", array)
    x = as_array(array)
    nd = get_aval(x).ndim
    if not isinstance(mode, str):
        raise NotImplementedError("didax.numpy.pad does not take a callable mode.")
    allowed = _PAD_KWARGS.get(mode, ())
    unexpected = set(kwargs) - set(allowed)
    if unexpected:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {sorted(unexpected)}")
    widths = _pad_widths(pad_width, nd)
    if mode == "constant":
        pairs = _per_axis(kwargs.get("constant_values", 0), nd)
    elif mode == "linear_ramp":
        pairs = _per_axis(kwargs.get("end_values", 0), nd)
    else:
        pairs = _per_axis(kwargs.get("stat_length"), nd)
    for axis, ((before, after), pair) in enumerate(zip(widths, pairs)):
        x = _pad_axis(x, axis, before, after, mode, kwargs, pair)
    return x


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> ArrayLike:
    """A new shape filled with the elements of ``a`` in order, repeated as often as needed."""
    check_arraylike("resize", a)
    a = ravel(as_array(a))
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(map(operator.index, new_shape))
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(new_shape, dtype=np.int64))
    n = get_aval(a).shape[0]
    if n == 0:
        return broadcast_to(convert(0, get_aval(a).dtype), new_shape)
    reps = -(-total // n)
    out = lax.slice_in_dim(tile(a, reps), 0, total) if total else lax.slice_in_dim(a, 0, 0)
    return lax.reshape(out, new_shape)


# ----------------------------------------------------------------------------------------------
# append, insert, delete


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> ArrayLike:
    """``values`` added at the end of ``arr`` (both flattened when no axis is given)."""
    check_arraylike("append", arr, values)
    if axis is None:
        return concatenate([ravel(as_array(arr)), ravel(as_array(values))], 0)
    return concatenate([arr, values], axis)


def _static_positions(name: str, obj: Any, n: int) -> tuple[list[int], bool]:
    """Known positions named by ``obj`` (an int, a slice, or a sequence), and whether it was a scalar."""
    if isinstance(obj, slice):
        return list(range(n))[obj], False
    value = _concrete_ints(name, obj)
    if isinstance(value, list):
        if np.asarray(value).dtype == np.bool_:
            raise ValueError(f"{name}: boolean indices are not supported.")
        return [int(v) for v in np.ravel(value)], False
    return [int(value)], True


def insert(arr: ArrayLike, obj: Any, values: ArrayLike, axis: int | None = None) -> ArrayLike:
    """``values`` inserted before the given position(s) along ``axis`` (flattened if none is given)."""
    check_arraylike("insert", arr, values)
    a = as_array(arr)
    if axis is None:
        a, axis = ravel(a), 0
    shp = get_aval(a).shape
    axis = canonicalize_axis(axis, len(shp))
    n = shp[axis]
    positions, scalar = _static_positions("insert", obj, n + 1)
    for p in positions:
        if not -n <= p <= n:
            raise IndexError(f"index {p} is out of bounds for axis {axis} with size {n}")
    positions = [p + n if p < 0 else p for p in positions]
    v = convert(as_array(values), get_aval(a).dtype)
    v_shape = get_aval(v).shape
    if len(v_shape) < len(shp):
        v = lax.reshape(v, (1,) * (len(shp) - len(v_shape)) + v_shape)
    if scalar:
        v = moveaxis(v, 0, axis) if get_aval(v).ndim else v
        count = get_aval(v).shape[axis]
    else:
        count = len(positions)
    v = broadcast_to(v, (*shp[:axis], count, *shp[axis + 1 :]))
    if scalar:
        positions = positions * count
    # The new order: old element i goes after the inserted ones whose position is <= i.
    order = sorted(range(count), key=lambda j: positions[j])
    new_at = {}
    for rank, j in enumerate(order):
        new_at[positions[j] + rank] = n + j
    out_index, old = [], 0
    for k in range(n + count):
        if k in new_at:
            out_index.append(new_at[k])
        else:
            out_index.append(old)
            old += 1
    both = lax.concatenate([a, v], axis)
    return _gather_static(both, out_index, axis) if out_index else lax.slice_in_dim(both, 0, 0, axis=axis)


def delete(arr: ArrayLike, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False) -> ArrayLike:
    """``arr`` without the entries at the given (known) position(s) along ``axis``."""
    check_arraylike("delete", arr)
    a = as_array(arr)
    if axis is None:
        a, axis = ravel(a), 0
    shp = get_aval(a).shape
    axis = canonicalize_axis(axis, len(shp))
    n = shp[axis]
    positions, _ = _static_positions("delete", obj, n)
    for p in positions:
        if not -n <= p < n:
            raise IndexError(f"index {p} is out of bounds for axis {axis} with size {n}")
    gone = {p % n for p in positions}
    keep = [i for i in range(n) if i not in gone]
    return _gather_static(a, keep, axis) if keep else lax.slice_in_dim(a, 0, 0, axis=axis)


# ----------------------------------------------------------------------------------------------
# Flat and multi-dimensional indices


def ravel_multi_index(
    multi_index: Sequence[ArrayLike], dims: Sequence[int], mode: str = "raise", order: str = "C", *, dtype: Any = None
) -> ArrayLike:
    """Flat indices of the given coordinates in an array of shape ``dims``."""
    dims = tuple(map(operator.index, dims))
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    check_arraylike("ravel_multi_index", *multi_index)
    # The indices' own (promoted) type, as in JAX: int8 and int16 coordinates give an int16 result.
    out_dtype = dtypes.result_type(*multi_index) if dtype is None else dtypes.check_user_dtype(
        dtype, "ravel_multi_index")
    indices = []
    for idx, d in zip(multi_index, dims):
        idx = as_array(idx)
        if get_aval(idx).dtype.kind not in "iub":
            raise TypeError("only int indices permitted")
        idx = convert(idx, out_dtype)
        if mode == "raise":
            known = to_concrete_value(idx)
            if known is None:
                raise ConcretizationTypeError(idx, "The problem arose with ravel_multi_index's mode='raise': "
                                                   "use mode='clip' or mode='wrap' under transformations.\n")
            if np.any((known < 0) | (known >= d)):
                raise ValueError("invalid entry in coordinates array")
        elif mode == "clip":
            idx = lax.clamp(convert(0, out_dtype), idx, convert(builtins.max(d - 1, 0), out_dtype))
        elif mode == "wrap":
            r = lax.rem(idx, convert(d, out_dtype))
            idx = lax.select_n(lax.lt(r, convert(0, out_dtype)), r, lax.add(r, convert(d, out_dtype)))
        else:
            raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
        indices.append(idx)
    indices = broadcast_arrays(*indices)
    axis_order = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    result = convert(0, out_dtype)
    for i in axis_order:
        result = lax.add(lax.mul(result, convert(dims[i], out_dtype)), indices[i])
    return broadcast_to(result, get_aval(indices[0]).shape) if indices else result


def unravel_index(indices: ArrayLike, shape: Sequence[int]) -> tuple[ArrayLike, ...]:
    """The coordinates, in an array of ``shape``, of flat indices (clipped to the array, as in JAX)."""
    check_arraylike("unravel_index", indices)
    idx = as_array(indices)
    dt = get_aval(idx).dtype
    if dt.kind not in "iu":
        raise TypeError(f"Only int indices permitted, got dtype {dt}.")
    shape = tuple(map(operator.index, (shape,) if np.ndim(shape) == 0 else shape))
    total = int(np.prod(shape, dtype=np.int64))
    if total == 0:
        raise ValueError("cannot unravel index into an empty shape")
    idx = convert(idx, dt)  # strong, as in JAX
    # Negative indices count from the end; then clip into the array.
    idx = lax.select_n(lax.lt(idx, convert(0, dt)), idx, lax.add(idx, convert(total, dt))) if dt.kind == "i" else idx
    idx = lax.clamp(convert(0, dt), idx, convert(total - 1, dt)) if dt.kind == "i" else lax.min(idx, convert(total - 1, dt))
    out = []
    for d in reversed(shape):
        out.append(lax.rem(idx, convert(d, dt)))
        idx = lax.div(idx, convert(d, dt))
    return tuple(reversed(out))
