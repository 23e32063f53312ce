"""Basic indexing, ``x[...]``: integers, slices, None and Ellipsis, lowered to lax slicing.
Stage 01 introduced it.

An index is turned into four simple steps: reverse the axes with negative steps, take one static
``lax.slice``, take a ``lax.dynamic_slice`` for integer indices held in arrays, and finish with
one ``lax.reshape`` that drops the integer-indexed axes and inserts the None axes.
As in JAX, an out-of-range integer index is clamped rather than raising IndexError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from ..array import Array
from ..core import Tracer, get_aval
from .util import ArrayLike


def getitem(x: ArrayLike, index: Any) -> ArrayLike:
    shape = get_aval(x).shape
    entries = _expand_ellipsis(index if isinstance(index, tuple) else (index,), len(shape))
    reverse, starts, limits, strides = [], [], [], []
    dynamic: dict[int, Any] = {}  # axis -> integer index held in an array
    out_shape: list[int] = []
    axis = 0
    for entry in entries:
        if entry is None:
            out_shape.append(1)
            continue
        size = shape[axis]
        if isinstance(entry, slice):
            start, limit, stride, flip = _slice_bounds(entry, size)
            out_shape.append(len(range(start, limit, stride)))
            if flip:
                reverse.append(axis)
        elif _is_static_int(entry):
            start = _clamp(int(entry), size)
            limit, stride = start + 1, 1
        else:
            start, limit, stride = 0, size, 1
            dynamic[axis] = entry
        starts.append(start)
        limits.append(limit)
        strides.append(stride)
        axis += 1
    # Axes not named by the index are taken whole.
    starts += [0] * (len(shape) - axis)
    limits += shape[axis:]
    strides += [1] * (len(shape) - axis)
    out_shape += shape[axis:]
    return _apply(x, reverse, starts, limits, strides, dynamic, tuple(out_shape))


def _apply(x: ArrayLike, reverse: list[int], starts: list[int], limits: list[int], strides: list[int],
           dynamic: dict[int, Any], out_shape: tuple[int, ...]) -> ArrayLike:
    shape = get_aval(x).shape
    if reverse:
        x = lax.rev(x, reverse)
    if (starts, limits, strides) != ([0] * len(shape), list(shape), [1] * len(shape)):
        x = lax.slice(x, starts, limits, strides)
    if dynamic:
        sliced = get_aval(x).shape
        indices = [dynamic.get(i, 0) for i in range(len(sliced))]
        sizes = [1 if i in dynamic else n for i, n in enumerate(sliced)]
        x = lax.dynamic_slice(x, indices, sizes)
    return x if get_aval(x).shape == out_shape else lax.reshape(x, out_shape)


def _expand_ellipsis(entries: tuple[Any, ...], ndim: int) -> list[Any]:
    for entry in entries:
        _check_entry(entry)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    named = sum(e is not None and e is not Ellipsis for e in entries)
    if named > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with {named} regular indices.")
    if Ellipsis not in entries:
        return list(entries)
    at = next(i for i, e in enumerate(entries) if e is Ellipsis)
    return list(entries[:at]) + [slice(None)] * (ndim - named) + list(entries[at + 1 :])


def _check_entry(entry: Any) -> None:
    if entry is None or entry is Ellipsis or isinstance(entry, slice) or _is_static_int(entry):
        return
    if isinstance(entry, (Array, Tracer)) and get_aval(entry).shape == () and get_aval(entry).dtype.kind in "iu":
        return  # an integer scalar held in an array: a dynamic index
    raise TypeError(
        f"didax.numpy indexing supports integers, slices, None, Ellipsis and integer scalar arrays; "
        f"got {entry!r}. Advanced indexing with lists, boolean masks or integer arrays is not "
        "implemented at this stage."
    )


def _is_static_int(entry: Any) -> bool:
    return isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_))


def _clamp(index: int, size: int) -> int:
    if size == 0:
        raise IndexError("index into a zero-size axis")
    index = index + size if index < 0 else index
    return min(max(index, 0), size - 1)


def _slice_bounds(entry: slice, size: int) -> tuple[int, int, int, bool]:
    """(start, limit, stride, reversed): a slice as a forward lax.slice, maybe on a reversed axis."""
    for part in (entry.start, entry.stop, entry.step):
        if part is not None and not _is_static_int(part):
            raise TypeError(f"slice bounds must be static integers, got {entry!r}.")
    start, stop, step = entry.indices(size)
    if step > 0:
        return start, max(start, stop), step, False
    # Walking backwards from start is walking forwards on the reversed axis from size-1-start.
    return size - 1 - start, max(size - 1 - start, size - 1 - stop), -step, True
