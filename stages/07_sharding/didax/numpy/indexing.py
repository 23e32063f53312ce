"""NumPy indexing, ``x[index]``, and the functions that share its machinery: ``take`` and
``take_along_axis``. ``x.at[index]`` (numpy/at.py) reuses it too. Stage 01 introduced it.

Basic indexing (integers, slices, None, Ellipsis, an integer scalar array) takes a fast path of
JAX's steps (so that its jaxpr is JAX's): take one static ``lax.slice``, a ``lax.dynamic_slice``
for integer indices held in arrays, reverse the axes with negative steps, squeeze out the
integer-indexed axes and insert the None axes (``lax.squeeze``, ``lax.expand_dims``). As in
JAX, an out-of-range integer is clamped rather than raising IndexError.

Any other index (integer arrays, boolean masks, lists inside a tuple) becomes one ``lax.gather``
(see lax/slicing.py for its dimension numbers), built by ``index_to_gather``:

- integer arrays, and integers once an array is present, broadcast together to one shape S.
  Each one's operand axis goes into ``start_index_map`` and ``collapsed_slice_dims`` (slice size
  1), and its values, negative ones wrapped once, make that axis's column of the start indices;
- a slice with step 1 is a window: slice size is its length, it starts at its start (a column
  holding that constant, unless it is 0), and its result axis is one of the ``offset_dims``;
- a slice with another step becomes a batch axis of its own, its column ``start + step * iota``;
- a boolean mask stands for the integer arrays of its True positions, so its value must be
  known (``core.to_concrete_value``); a scalar boolean adds an axis of size 1 (True) or 0;
- None adds a size-1 axis, put in by a reshape after the gather.

The gather's batch axes (S, and one per strided slice) and offset axes are laid out as NumPy lays
out the result: S stands where the first array index stood when the array indices are adjacent,
and in front when a slice or None separates them.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes, lax
from ..array import Array, to_array
from ..core import Tracer, get_aval, to_concrete_value
from ..errors import NonConcreteBooleanIndexError
from ..lax.slicing import GatherDimensionNumbers, GatherScatterMode
from . import creation
from .shapes import ravel
from .ufuncs import remainder
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axis, check_arraylike, convert


def getitem(x: ArrayLike, index: Any) -> ArrayLike:
    """``x[index]``, as JAX computes it: basic indices by slicing, anything else by one gather."""
    entries = index if isinstance(index, tuple) else (index,)
    if not all(map(_is_basic, entries)):
        return gather_index(x, index)
    shape = get_aval(x).shape
    entries = _expand_ellipsis(_static_slices(entries), len(shape))
    plan = _Basic([], [], [], {}, [], [], [])
    axis = 0
    for entry in entries:
        if entry is None:  # an axis of the result once sliced and squeezed, as expand_dims counts
            plan.new_axes.append(axis - len(plan.squeeze) + len(plan.new_axes))
            continue
        size = shape[axis]
        if isinstance(entry, slice):
            start, limit, stride, flip = _slice_bounds(entry, size)
            if flip:
                plan.reverse.append(axis)
        elif _is_static_int(entry):
            start = _clamp(int(entry), size)
            limit, stride = start + 1, 1
            plan.squeeze.append(axis)
        else:
            start, limit, stride = 0, size, 1
            plan.dynamic[axis] = entry
            plan.squeeze.append(axis)
        plan.starts.append(start)
        plan.limits.append(limit)
        plan.strides.append(stride)
        axis += 1
    # Axes not named by the index are taken whole.
    plan.starts.extend([0] * (len(shape) - axis))
    plan.limits.extend(shape[axis:])
    plan.strides.extend([1] * (len(shape) - axis))
    return _apply(x, plan)


def setitem(x: ArrayLike, index: Any, value: Any) -> None:
    """``x[index] = value`` is refused: arrays are immutable, ``x.at[index].set(value)`` makes a new one."""
    raise TypeError(
        "JAX arrays are immutable and do not support in-place item assignment. Instead of "
        "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
    )


class _Basic(NamedTuple):
    """A basic index as the steps JAX's static slicing takes, in its order: one ``lax.slice``
    (``strides`` None when every step is 1), a ``lax.dynamic_slice`` for integers held in arrays,
    ``lax.rev`` of the axes walked backwards, ``lax.squeeze`` of the integer-indexed axes, and
    ``lax.expand_dims`` for the None axes."""

    starts: list[int]
    limits: list[int]
    strides: list[int]
    dynamic: dict[int, Any]  # axis -> integer index held in an array
    reverse: list[int]
    squeeze: list[int]
    new_axes: list[int]


def _apply(x: ArrayLike, plan: _Basic) -> ArrayLike:
    shape = get_aval(x).shape
    if (plan.starts, plan.limits, plan.strides) != ([0] * len(shape), list(shape), [1] * len(shape)):
        strides = None if all(s == 1 for s in plan.strides) else plan.strides
        x = lax.slice(x, plan.starts, plan.limits, strides)
    if plan.dynamic:
        sliced = get_aval(x).shape
        indices = [plan.dynamic.get(i, 0) for i in range(len(sliced))]
        sizes = [1 if i in plan.dynamic else n for i, n in enumerate(sliced)]
        x = lax.dynamic_slice(x, indices, sizes)
    if plan.reverse:
        x = lax.rev(x, plan.reverse)
    if plan.squeeze:
        x = lax.squeeze(x, plan.squeeze)
    return lax.expand_dims(x, plan.new_axes) if plan.new_axes else x


def _expand_ellipsis(entries: tuple[Any, ...], ndim: int) -> list[Any]:
    named = sum(e is not None and e is not Ellipsis for e in entries)
    _check_count(entries, named, ndim)
    if Ellipsis not in entries:
        return list(entries)
    at = next(i for i, e in enumerate(entries) if e is Ellipsis)
    return list(entries[:at]) + [slice(None)] * (ndim - named) + list(entries[at + 1 :])


def _check_count(entries: Any, named: int, ndim: int) -> None:
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if named > ndim:
        raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {named} were indexed")


def _is_basic(entry: Any) -> bool:
    """Whether the fast path can take ``entry``: None, Ellipsis, a slice, an integer."""
    if entry is None or entry is Ellipsis or isinstance(entry, slice) or _is_static_int(entry):
        return True
    # An integer scalar held in an array is a dynamic index: lax.dynamic_slice takes it.
    return isinstance(entry, (Array, Tracer)) and entry.ndim == 0 and entry.dtype.kind in "iu"


def _is_static_int(entry: Any) -> bool:
    return isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_))


def _clamp(index: int, size: int) -> int:
    if size == 0:
        raise IndexError("index into a zero-size axis")
    index = index + size if index < 0 else index
    return min(max(index, 0), size - 1)


def _slice_bounds(entry: slice, size: int) -> tuple[int, int, int, bool]:
    """(start, limit, stride, reversed): a slice as a forward lax.slice, reversed after if its step
    is negative (JAX's bounds, so that the jaxpr is JAX's)."""
    start, stop, step = entry.indices(size)
    if step > 0:
        return start, max(start, stop), step, False
    # Walking backwards from start takes the same elements as walking forwards from the last one it
    # reaches, first, up to start.
    first = min(size, stop + 1 + abs(start - stop - 1) % -step)
    return first, max(first, start + 1), -step, True


# ----------------------------------------------------------------------------------------------
# Advanced indexing: an index as one gather.


class Indexer(NamedTuple):
    """An index as a gather: ``x[index]`` is ``gather(x, indices, dnums, slice_sizes)``
    reshaped to ``result_shape``, and ``x.at[index]`` scatters into the same places."""

    indices: ArrayLike  # the start indices: batch shape + (len(start_index_map),)
    dnums: GatherDimensionNumbers
    slice_sizes: tuple[int, ...]
    gather_shape: tuple[int, ...]  # what the gather returns
    result_shape: tuple[int, ...]  # x[index].shape: gather_shape with the None axes put in
    unique_indices: bool  # no index array, only integers and slices: no place is reached twice

    @property
    def empty(self) -> bool:
        """Whether an index array reaches into a zero-size axis (so it holds no index at all):
        gather collapses slices of size 1 only, so there is no gather to make, and nothing to read."""
        return any(self.slice_sizes[a] == 0 for a in self.dnums.collapsed_slice_dims)


class _Advanced(NamedTuple):
    """An integer index array (or integer) on operand ``axis``; a scalar boolean has no axis."""

    axis: int | None
    value: ArrayLike | None
    shape: tuple[int, ...]


class _Sliced(NamedTuple):
    """A slice on operand ``axis``, as ``start + step * arange(size)``."""

    axis: int
    start: int
    size: int
    step: int


def _index_dtype() -> np.dtype:
    """Start indices are int32, or int64 with x64 on."""
    return dtypes.canonicalize_dtype(np.int64)


def gather_index(
    x: ArrayLike,
    index: Any,
    *,
    mode: Any = None,
    fill_value: Any = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    wrap_negative_indices: bool = True,
) -> ArrayLike:
    """``x[index]`` through one lax.gather, for any index."""
    aval = get_aval(x)
    ix = index_to_gather(aval.shape, index, wrap_negative_indices)
    if ix.empty:
        return _zeros(ix.result_shape, aval.dtype, aval.weak_type)
    out = lax.gather(
        x,
        ix.indices,
        ix.dnums,
        ix.slice_sizes,
        mode=mode,
        fill_value=fill_value,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices or ix.unique_indices,
    )
    return out if ix.gather_shape == ix.result_shape else lax.reshape(out, ix.result_shape)


def index_to_gather(shape: tuple[int, ...], index: Any, wrap_negative_indices: bool = True) -> Indexer:
    """The gather that reads ``x[index]`` from an ``x`` of this ``shape`` (see the module docstring)."""
    items = _place(_parse(index), shape)
    advanced = [item for item in items if isinstance(item, _Advanced)]
    adv_shape = _broadcast_index_shapes([a.shape for a in advanced])
    where = [k for k, item in enumerate(items) if isinstance(item, _Advanced)]
    adjacent = where == list(range(where[0], where[-1] + 1)) if where else True
    # Lay out the result in NumPy's order, noting what each start-index column holds.
    batch_shape: list[int] = []
    gather_shape: list[int] = []
    result_shape: list[int] = []
    offset_dims: list[int] = []
    slice_sizes = list(shape)
    columns: dict[int, tuple[Any, ...]] = {}  # operand axis -> how to build its column
    adv_dims: tuple[int, ...] = ()

    def place_advanced() -> None:
        nonlocal adv_dims
        adv_dims = tuple(range(len(batch_shape), len(batch_shape) + len(adv_shape)))
        batch_shape.extend(adv_shape)
        gather_shape.extend(adv_shape)
        result_shape.extend(adv_shape)

    if advanced and not adjacent:
        place_advanced()
    for item in items:
        if item is None:
            result_shape.append(1)
        elif isinstance(item, _Advanced):
            if adjacent and item is advanced[0]:
                place_advanced()
            if item.axis is not None:
                _check_not_empty(shape, item.axis, adv_shape)
                slice_sizes[item.axis] = min(1, shape[item.axis])  # 0: see Indexer.empty
                columns[item.axis] = ("advanced", item.value)
        elif item.step == 1:  # a window
            offset_dims.append(len(gather_shape))
            gather_shape.append(item.size)
            result_shape.append(item.size)
            slice_sizes[item.axis] = item.size
            if item.start != 0:
                columns[item.axis] = ("constant", item.start)
        else:  # a strided slice: a batch axis of its own
            columns[item.axis] = ("strided", item, len(batch_shape))
            batch_shape.append(item.size)
            gather_shape.append(item.size)
            result_shape.append(item.size)
            slice_sizes[item.axis] = min(1, shape[item.axis])
    start_index_map = tuple(sorted(columns))
    collapsed = tuple(a for a in start_index_map if columns[a][0] != "constant")
    built = [
        _column(columns[a], shape[a], tuple(batch_shape), adv_dims, wrap_negative_indices)
        for a in start_index_map
    ]
    dnums = GatherDimensionNumbers(tuple(offset_dims), collapsed, start_index_map)
    return Indexer(
        _stack_columns(built, tuple(batch_shape)),
        dnums,
        tuple(slice_sizes),
        tuple(gather_shape),
        tuple(result_shape),
        adv_shape == (),
    )


def _zeros(shape: tuple[int, ...], dtype: np.dtype, weak_type: bool) -> ArrayLike:
    """An empty result (some size is 0), made as JAX makes it: a broadcast zero."""
    return lax.broadcast_in_dim(convert(0, dtype, weak_type), shape, ())


def _check_not_empty(shape: tuple[int, ...], axis: int, adv_shape: tuple[int, ...]) -> None:
    if shape[axis] == 0 and 0 not in adv_shape:
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")


def _broadcast_index_shapes(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def _column(
    spec: tuple[Any, ...], size: int, batch_shape: tuple[int, ...], adv_dims: tuple[int, ...], wrap: bool
) -> ArrayLike:
    """One column of the start indices, broadcast to ``batch_shape``."""
    dtype = _index_dtype()
    kind = spec[0]
    if kind == "constant":
        return lax.broadcast_in_dim(convert(spec[1], dtype), batch_shape, ())
    if kind == "strided":
        item, dim = spec[1], spec[2]
        steps = lax.mul(lax.iota(dtype, item.size), convert(item.step, dtype))
        return lax.broadcast_in_dim(lax.add(steps, convert(item.start, dtype)), batch_shape, (dim,))
    value = spec[1]
    if _is_static_int(value):  # known now: wrap in Python
        value = int(value) + size if wrap and int(value) < 0 else int(value)
        return lax.broadcast_in_dim(convert(value, dtype), batch_shape, ())
    value = convert(value, dtype)
    if wrap:
        value = wrap_negative(value, size)
    ndim = get_aval(value).ndim  # NumPy broadcasting: aligned on the right of S
    return lax.broadcast_in_dim(value, batch_shape, adv_dims[len(adv_dims) - ndim :])


def wrap_negative(index: ArrayLike, size: int) -> ArrayLike:
    """Negative indices count from the end: ``i + size`` where ``i < 0`` (once, as in NumPy)."""
    dtype = get_aval(index).dtype
    return lax.select_n(lax.lt(index, convert(0, dtype)), index, lax.add(index, convert(size, dtype)))


def _stack_columns(columns: list[ArrayLike], batch_shape: tuple[int, ...]) -> ArrayLike:
    """The start indices: the columns side by side on a new last axis."""
    if not columns:
        return lax.broadcast_in_dim(convert(0, _index_dtype()), batch_shape + (0,), ())
    ends = [lax.reshape(c, batch_shape + (1,)) for c in columns]
    return ends[0] if len(ends) == 1 else lax.concatenate(ends, len(batch_shape))


# ----------------------------------------------------------------------------------------------
# Reading an index: every entry becomes None, Ellipsis, a slice, an integer or an integer array.


def _parse(index: Any) -> list[Any]:
    """The entries of ``index``, with masks and lists turned into integer arrays.

    Returns a list of None, Ellipsis, slices, ``("int", value)`` and ``("mask", bool ndarray)``.
    """
    if isinstance(index, list):
        raise TypeError(_non_tuple_message(index))
    entries = index if isinstance(index, tuple) else (index,)
    return _static_slices([_parse_entry(entry) for entry in entries])


def _non_tuple_message(index: list) -> str:
    nested = any(isinstance(e, (list, tuple, slice)) or e is None or e is Ellipsis for e in index)
    hint = "arr[tuple(seq)]" if nested else "arr[array(seq)]"
    return (
        "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
        f"`{hint}` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more "
        "information."
    )


def _parse_entry(entry: Any) -> Any:
    if entry is None or entry is Ellipsis or isinstance(entry, slice):
        return entry
    if _is_static_int(entry):
        return ("int", entry)
    if isinstance(entry, str):
        raise TypeError(f"JAX does not support string indexing; got idx={entry!r}")
    if isinstance(entry, (list, tuple)):
        # A sequence inside the index is an array; an empty one holds integers.
        entry = creation.asarray(entry, dtype=None if entry else _index_dtype())
    elif isinstance(entry, (bool, np.bool_, np.ndarray, np.generic)):
        entry = to_array(entry)
    if not isinstance(entry, (Array, Tracer)):
        raise TypeError(
            f"Indexer must be an integer, slice, None, Ellipsis, array or tuple of them; got {entry!r}."
        )
    kind = get_aval(entry).dtype.kind
    if kind == "b":
        return ("mask", _concrete_mask(entry))
    if kind not in "iu":
        raise TypeError(
            f"Indexer must have integer or boolean type, got indexer with type {get_aval(entry).dtype}"
        )
    return ("int", entry)


def _concrete_mask(mask: ArrayLike) -> np.ndarray:
    """A boolean index's value: the result's shape depends on it, so it must be known now."""
    value = to_concrete_value(mask)
    if value is None:
        raise NonConcreteBooleanIndexError(
            f"Array boolean indices must be concrete; got {get_aval(mask).str_short()}.\n"
            "The number of True values decides the result's shape, and inside a transformation "
            "it is not known yet. Keep the shape fixed instead: use didax.numpy.where(mask, x, "
            "fill) to choose values, or multiply by the mask before a sum.\n"
            "See https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError"
        )
    return value


def _place(entries: list[Any], shape: tuple[int, ...]) -> list[Any]:
    """Give every entry its operand axis: Ellipsis and the missing tail become whole slices."""
    ndim = len(shape)
    named = sum(
        1 if _kind(e) in ("slice", "int") else e[1].ndim if _kind(e) == "mask" else 0 for e in entries
    )
    _check_count(entries, named, ndim)
    items: list[Any] = []
    axis = 0
    for position, entry in enumerate(entries):
        kind = _kind(entry)
        if kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            for _ in range(ndim - named):
                items.append(_Sliced(axis, 0, shape[axis], 1))
                axis += 1
        elif kind == "slice":
            start, stop, step = entry.indices(shape[axis])
            items.append(_Sliced(axis, start, len(range(start, stop, step)), step))
            axis += 1
        elif kind == "int":
            items.append(_Advanced(axis, entry[1], get_aval(entry[1]).shape))
            axis += 1
        else:
            items.extend(_mask_to_indices(entry[1], shape, axis, position))
            axis += entry[1].ndim
    items.extend(_Sliced(a, 0, shape[a], 1) for a in range(axis, ndim))
    return items


def _kind(entry: Any) -> str:
    if entry is None:
        return "none"
    if entry is Ellipsis:
        return "ellipsis"
    if isinstance(entry, slice):
        return "slice"
    return entry[0]


def _static_slices(entries: Sequence[Any]) -> list[Any]:
    """The entries of an index, each slice's bounds made Python integers (see _static_slice)."""
    return [_static_slice(e, k) if type(e) is slice else e for k, e in enumerate(entries)]


def _static_slice(entry: slice, position: int) -> slice:
    """``entry`` with Python integers for bounds. As in JAX, a bound whose value is known (a Python
    or NumPy integer, an integer scalar array, a tracer over a known one) is static; a staged
    value is not, and that is JAX's IndexError, naming the entry's position in the index."""
    parts = [entry.start, entry.stop, entry.step]
    if all(part is None or _is_static_int(part) for part in parts):
        return entry
    for k, part in enumerate(parts):
        if isinstance(part, (Array, Tracer)):
            part = to_concrete_value(part)
            if part is None:
                raise IndexError(f"Slice entries must be static integers. Got {entry} at position {position}")
        if part is not None:
            parts[k] = operator.index(part)  # a float or a non-integer array: NumPy's TypeError
    return slice(*parts)


def _mask_to_indices(mask: np.ndarray, shape: tuple[int, ...], axis: int, position: int) -> list[_Advanced]:
    """A boolean mask as the integer arrays of its True positions, one per axis it covers."""
    if mask.ndim == 0:  # a scalar: a new axis of size 1 (True) or 0 (False)
        return [_Advanced(None, None, (int(mask),))]
    covered = shape[axis : axis + mask.ndim]
    if mask.shape != covered:
        raise IndexError(
            f"boolean index did not match shape of indexed array in index {position}: got "
            f"{mask.shape}, expected {covered}"
        )
    dtype = _index_dtype()
    return [
        _Advanced(axis + k, Array(np.asarray(nz, dtype)), nz.shape) for k, nz in enumerate(np.nonzero(mask))
    ]


# ----------------------------------------------------------------------------------------------
# take and take_along_axis: one axis indexed by an array, through the same gather.


def take(
    a: ArrayLike,
    indices: ArrayLike,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> ArrayLike:
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None).

    ``mode``: 'fill' (the default: out-of-range gives ``fill_value``), 'clip' or 'wrap'.
    """
    check_arraylike("take", a, indices)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = as_array(a), as_array(indices)
    if axis is None:
        a, axis = ravel(a), 0
    shape = get_aval(a).shape
    axis = canonicalize_axis(axis, len(shape))
    indices = _integer_indices(indices)
    gather_mode, indices = _take_mode(mode, indices, shape[axis])
    index_shape = get_aval(indices).shape
    if shape[axis] == 0 and 0 not in index_shape:
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(axis))
        + tuple(range(axis + len(index_shape), len(shape) - 1 + len(index_shape))),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
    )
    if shape[axis] == 0:  # and so no indices: nothing to read
        out_shape = shape[:axis] + index_shape + shape[axis + 1 :]
        return _zeros(out_shape, get_aval(a).dtype, get_aval(a).weak_type)
    sizes = shape[:axis] + (1,) + shape[axis + 1 :]
    return lax.gather(
        a,
        lax.reshape(indices, index_shape + (1,)),
        dnums,
        sizes,
        mode=gather_mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
    )


def _integer_indices(indices: ArrayLike) -> ArrayLike:
    if get_aval(indices).dtype.kind not in "iu":
        raise ValueError("indices must have an integer type")
    return convert(indices, _index_dtype())


def _take_mode(mode: str | None, indices: ArrayLike, size: int) -> tuple[GatherScatterMode, ArrayLike]:
    """np.take's modes as a gather mode, and the indices that mode reads."""
    if mode is None or mode == "fill":
        return GatherScatterMode.FILL_OR_DROP, wrap_negative(indices, size)
    if mode == "clip":  # as NumPy: -1 clips to 0, it does not count from the end
        return GatherScatterMode.CLIP, indices
    if mode == "wrap":
        return GatherScatterMode.PROMISE_IN_BOUNDS, remainder(indices, convert(max(size, 1), _index_dtype()))
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    raise ValueError(f"Invalid mode '{mode}' for np.take")


def take_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    axis: int | None = -1,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
    *,
    wrap_negative_indices: bool | None = None,
) -> ArrayLike:
    """``arr``'s elements at ``indices`` along ``axis``, the other axes matched up (broadcast).

    ``mode`` defaults to 'fill'; negative indices count from the end, except under
    'promise_in_bounds'.
    """
    check_arraylike("take_along_axis", arr, indices)
    arr, indices = as_array(arr), as_array(indices)
    index_aval = get_aval(indices)
    if index_aval.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {index_aval.dtype}")
    if axis is None:
        if index_aval.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape {index_aval.shape}")
        arr, axis = ravel(arr), 0
    shape = get_aval(arr).shape
    if index_aval.ndim != len(shape):
        raise ValueError(
            f"indices and arr must have the same number of dimensions; {index_aval.ndim} vs. {len(shape)}"
        )
    axis = canonicalize_axis(axis, len(shape))
    arr, indices = _broadcast_along(arr, indices, axis)
    shape, index_shape = get_aval(arr).shape, get_aval(indices).shape
    if shape[axis] == 0 and 0 not in index_shape:
        raise IndexError("Cannot do a non-empty jnp.take_along_axis() from an empty axis.")
    parsed = GatherScatterMode.from_any(mode)
    wrap = (
        parsed != GatherScatterMode.PROMISE_IN_BOUNDS
        if wrap_negative_indices is None
        else wrap_negative_indices
    )
    indices = convert(indices, _index_dtype())
    if wrap:
        indices = wrap_negative(indices, shape[axis])
    others = tuple(d for d in range(len(shape)) if d != axis)
    # Every other axis is a batching axis: index position b reads operand position b there.
    dnums = GatherDimensionNumbers((), (axis,), (axis,), others, others)
    if 0 in shape:  # nothing to read
        return _zeros(index_shape, get_aval(arr).dtype, get_aval(arr).weak_type)
    sizes = (1,) * len(shape)
    return lax.gather(
        arr, lax.reshape(indices, index_shape + (1,)), dnums, sizes, mode=parsed, fill_value=fill_value
    )


def _broadcast_along(arr: ArrayLike, indices: ArrayLike, axis: int) -> tuple[ArrayLike, ArrayLike]:
    """Broadcast every axis but ``axis`` between ``arr`` and ``indices``."""
    arr_shape, index_shape = list(get_aval(arr).shape), list(get_aval(indices).shape)
    arr_shape[axis] = index_shape[axis] = 1
    try:
        common = list(np.broadcast_shapes(tuple(arr_shape), tuple(index_shape)))
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(index_shape), tuple(arr_shape)]}"
        ) from None
    arr_target = common.copy()
    arr_target[axis] = get_aval(arr).shape[axis]
    common[axis] = get_aval(indices).shape[axis]
    return broadcast_to(arr, tuple(arr_target)), broadcast_to(indices, tuple(common))
