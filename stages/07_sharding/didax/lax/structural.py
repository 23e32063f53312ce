"""Structural lax primitives: they move, copy or cut elements without computing new values
(broadcasting, reshaping, transposing, slicing, padding, joining) plus ``iota``; and the helpers
jax.lax builds from them (``full``, ``collapse``, ``slice_in_dim``, ``dynamic_index_in_dim``, ...).
Stage 01 introduced them.
"""

from __future__ import annotations

import builtins  # `slice` below is lax.slice; NumPy indexing needs the built-in one
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import Primitive, ShapedArray, get_aval
from .elementwise import add, convert_to, lt, select_n, select_n_p
from .standard import (
    INTEGER,
    as_shape,
    check_axes,
    check_dtype,
    check_same_dtypes,
    never_weak,
    PhysicalRule,
    physical_rules,
    standard_primitive,
    trailing_axes,
)


Shape = tuple[int, ...]


def _keep_dtype(x: ShapedArray, *rest: Any, **params: Any) -> np.dtype:
    return x.dtype


# ----------------------------------------------------------------------------------------------
# broadcast_in_dim: operand dimension i becomes output dimension broadcast_dimensions[i]. The
# dimensions need not be in increasing order: then the operand's axes are also transposed.


def _broadcast_in_dim_shape(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> tuple[int, ...]:
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            f"broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
            f"broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}."
        )
    check_axes("broadcast_in_dim", broadcast_dimensions, len(shape), "broadcast_dimensions", TypeError)
    for size, dim in zip(x.shape, broadcast_dimensions):
        if size != 1 and size != shape[dim]:
            raise TypeError(
                "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
                f"corresponding dimensions in the target broadcast shape; got operand of shape "
                f"{x.shape}, target broadcast shape {shape}, broadcast_dimensions "
                f"{broadcast_dimensions}."
            )
    return shape


def _broadcast_in_dim(
    x: np.ndarray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> np.ndarray:
    # Put x's axes in the order they take in the output, give x the output's rank (size-1 axes
    # where it has none), then let NumPy broadcast.
    x = np.transpose(x, np.argsort(broadcast_dimensions))
    expanded = [1] * len(shape)
    for size, dim in zip(x.shape, sorted(broadcast_dimensions)):
        expanded[dim] = size
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = standard_primitive(
    "broadcast_in_dim", _broadcast_in_dim, _broadcast_in_dim_shape, _keep_dtype
)


def _broadcast_in_dim_physical(key_shape: Shape, x: Any, *, shape: Shape, broadcast_dimensions: Shape) -> Any:
    return broadcast_in_dim_p.bind(x, shape=(*shape, *key_shape),
                                   broadcast_dimensions=(*broadcast_dimensions, *trailing_axes(len(shape), key_shape)))


physical_rules[broadcast_in_dim_p] = _broadcast_in_dim_physical


def broadcast_in_dim(operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """``operand`` broadcast to ``shape``, its axis i becoming axis ``broadcast_dimensions[i]``."""
    return broadcast_in_dim_p.bind(
        operand,
        shape=as_shape("broadcast_in_dim", shape),
        broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions),
    )


def broadcast(operand: Any, sizes: Sequence[int]) -> Any:
    """Add leading dimensions of the given ``sizes``."""
    sizes = tuple(sizes)
    shape = sizes + get_aval(operand).shape
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(shape))))


def _select_n_physical(key_shape: Shape, which: Any, *cases: Any) -> Any:
    """select_n (elementwise.py) on keys selects their words: a ``which`` that is not a scalar
    spreads over the words' trailing axes."""
    shape = get_aval(which).shape
    if shape:
        which = broadcast_in_dim_p.bind(which, shape=(*shape, *key_shape), broadcast_dimensions=tuple(range(len(shape))))
    return select_n_p.bind(which, *cases)


physical_rules[select_n_p] = _select_n_physical


# ----------------------------------------------------------------------------------------------
# reshape, transpose, squeeze, expand_dims, rev


def _reshape_shape(
    x: ShapedArray, *, new_sizes: tuple[int, ...], dimensions: tuple[int, ...] | None
) -> tuple[int, ...]:
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(
            f"reshape total size must be unchanged, got new_sizes {new_sizes} (of total size "
            f"{int(np.prod(new_sizes))}) for shape {x.shape} (of total size {x.size})."
        )
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(f"reshape dimensions must be a permutation of {tuple(range(x.ndim))}, got {dimensions}.")
    return new_sizes


def _reshape(x: np.ndarray, *, new_sizes: tuple[int, ...], dimensions: Any) -> np.ndarray:
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


reshape_p = standard_primitive("reshape", _reshape, _reshape_shape, _keep_dtype)


def _reshape_physical(key_shape: Shape, x: Any, *, new_sizes: Shape, dimensions: Shape | None) -> Any:
    if dimensions is not None:
        dimensions = (*dimensions, *trailing_axes(len(dimensions), key_shape))
    return reshape_p.bind(x, new_sizes=(*new_sizes, *key_shape), dimensions=dimensions)


physical_rules[reshape_p] = _reshape_physical


def reshape(operand: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """``operand`` with shape ``new_sizes`` (elements in row-major order, after transposing by ``dimensions`` if given)."""
    dims = None if dimensions is None else tuple(int(d) for d in dimensions)
    return reshape_p.bind(operand, new_sizes=as_shape("reshape", new_sizes), dimensions=dims)


def _transpose_shape(x: ShapedArray, *, permutation: tuple[int, ...]) -> tuple[int, ...]:
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got permutation "
            f"{permutation} for operand shape {x.shape}; give each of its {x.ndim} axes exactly once."
        )
    return tuple(x.shape[p] for p in permutation)


transpose_p = standard_primitive(
    "transpose", lambda x, *, permutation: np.transpose(x, permutation), _transpose_shape, _keep_dtype
)


def _transpose_physical(key_shape: Shape, x: Any, *, permutation: Shape) -> Any:
    return transpose_p.bind(x, permutation=(*permutation, *trailing_axes(len(permutation), key_shape)))


physical_rules[transpose_p] = _transpose_physical


def transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """``operand`` with its axes permuted: output axis i is input axis ``permutation[i]``."""
    return transpose_p.bind(operand, permutation=tuple(int(p) for p in permutation))


def _squeeze_shape(x: ShapedArray, *, dimensions: tuple[int, ...]) -> tuple[int, ...]:
    check_axes("squeeze", dimensions, x.ndim, what="dimensions")
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(
            "cannot select an axis to squeeze out which has size not equal to one, got "
            f"shape={x.shape} and dimensions={dimensions}"
        )
    return tuple(s for i, s in enumerate(x.shape) if i not in dimensions)


squeeze_p = standard_primitive(
    "squeeze", lambda x, *, dimensions: np.squeeze(x, dimensions), _squeeze_shape, _keep_dtype
)


def _same_params(prim: Primitive) -> PhysicalRule:
    """The physical rule of a primitive whose parameters name leading axes only (squeeze, rev,
    concatenate): the words' trailing axes come along unchanged."""
    return lambda key_shape, *operands, **params: prim.bind(*operands, **params)


physical_rules[squeeze_p] = _same_params(squeeze_p)


def _normalize_axes(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Negative axes count from the end, as lax.squeeze and lax.expand_dims allow."""
    return tuple(int(a) + ndim if int(a) < 0 else int(a) for a in axes)


def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """``array`` without the size-1 axes ``dimensions``."""
    ndim = get_aval(array).ndim
    return squeeze_p.bind(array, dimensions=_normalize_axes(dimensions, ndim))


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """Insert size-1 axes at ``dimensions`` (of the result); a broadcast_in_dim, as in JAX."""
    shape = list(get_aval(array).shape)
    out_ndim = len(shape) + len(dimensions)
    axes = check_axes("expand_dims", _normalize_axes(dimensions, out_ndim), out_ndim, "dimensions")
    for axis in sorted(axes):
        shape.insert(axis, 1)
    return broadcast_in_dim(array, shape, [i for i in range(out_ndim) if i not in axes])


def _rev_shape(x: ShapedArray, *, dimensions: tuple[int, ...]) -> tuple[int, ...]:
    check_axes("rev", dimensions, x.ndim, "dimensions", TypeError)
    return x.shape


rev_p = standard_primitive(
    "rev", lambda x, *, dimensions: np.flip(x, dimensions), _rev_shape, _keep_dtype
)
physical_rules[rev_p] = _same_params(rev_p)


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverse the order of the elements along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(int(d) for d in dimensions))


# ----------------------------------------------------------------------------------------------
# concatenate and pad


def _concatenate_shape(*xs: ShapedArray, dimension: int) -> tuple[int, ...]:
    if len({x.ndim for x in xs}) > 1:
        raise TypeError(f"concatenate operands must have equal ranks, got shapes {[x.shape for x in xs]}.")
    check_axes("concatenate", (dimension,), xs[0].ndim, "dimension", TypeError)
    other_dims = {x.shape[:dimension] + x.shape[dimension + 1 :] for x in xs}
    if len(other_dims) > 1:
        raise TypeError(
            "concatenate operands must have equal dimensions except on the concatenated "
            f"dimension {dimension}, got shapes {[x.shape for x in xs]}."
        )
    total = sum(x.shape[dimension] for x in xs)
    return xs[0].shape[:dimension] + (total,) + xs[0].shape[dimension + 1 :]


concatenate_p = standard_primitive(
    "concatenate",
    lambda *xs, dimension: np.concatenate(xs, axis=dimension),
    _concatenate_shape,
    lambda *xs, dimension: check_same_dtypes("concatenate", xs),
)
physical_rules[concatenate_p] = _same_params(concatenate_p)


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """``operands`` joined along axis ``dimension``; the other sizes must agree."""
    if not len(operands):
        raise ValueError("concatenate requires at least one operand: got an empty sequence of arrays.")
    return concatenate_p.bind(*operands, dimension=int(dimension))


PaddingConfig = tuple[tuple[int, int, int], ...]


def _pad_shape(x: ShapedArray, value: ShapedArray, *, padding_config: PaddingConfig) -> tuple[int, ...]:
    if value.shape != ():
        raise ValueError(f"pad padding_value must be a scalar, got shape {value.shape}.")
    if len(padding_config) != x.ndim:
        raise ValueError(f"pad padding_config has {len(padding_config)} entries for an operand of rank {x.ndim}.")
    shape = []
    for size, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"pad interior padding must be non-negative, got {padding_config}.")
        out = lo + hi + size + max(size - 1, 0) * interior
        if out < 0:
            raise ValueError(f"pad: dimension size would be negative: {padding_config} on {x.shape}.")
        shape.append(out)
    return tuple(shape)


def _pad(x: np.ndarray, value: np.ndarray, *, padding_config: PaddingConfig) -> np.ndarray:
    if x.ndim == 0:
        return x  # a scalar has no dimensions to pad
    # Interior padding first: spread the elements out with `interior` fill values between them.
    spread_shape = [n + max(n - 1, 0) * interior for n, (_, _, interior) in zip(x.shape, padding_config)]
    out = np.full(spread_shape, value, dtype=x.dtype)
    out[tuple(builtins.slice(None, None, interior + 1) for _, _, interior in padding_config)] = x
    # Then the edges: positive amounts add fill values, negative amounts cut elements away.
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    out = np.pad(out, grow, constant_values=value)
    cut = tuple(builtins.slice(-min(lo, 0), out.shape[i] + min(hi, 0)) for i, (lo, hi, _) in enumerate(padding_config))
    return out[cut]


pad_p = standard_primitive(
    "pad",
    _pad,
    _pad_shape,
    lambda x, value, *, padding_config: check_same_dtypes("pad", [x, value]),
    lambda x, value, *, padding_config: x.weak_type,
)


def pad(operand: Any, padding_value: Any, padding_config: Sequence[Sequence[int]]) -> Any:
    """``operand`` padded with ``padding_value``: (low, high, interior) per axis; negative low or high crops."""
    config = tuple((int(lo), int(hi), int(interior)) for lo, hi, interior in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


# ----------------------------------------------------------------------------------------------
# Static slicing: start, limit and stride are known before evaluation.


def _slice_shape(
    x: ShapedArray, *, start_indices: tuple[int, ...], limit_indices: tuple[int, ...], strides: Any
) -> tuple[int, ...]:
    strides = strides or (1,) * x.ndim
    if not len(start_indices) == len(limit_indices) == x.ndim:
        raise ValueError(
            f"slice needs one start index and one limit index per operand dimension; got "
            f"start_indices {start_indices} and limit_indices {limit_indices} for operand shape {x.shape}."
        )
    if len(strides) != x.ndim:
        raise TypeError(
            f"slice needs one stride per operand dimension; got strides {strides} for operand "
            f"shape {x.shape}."
        )
    for start, limit, stride, size in zip(start_indices, limit_indices, strides, x.shape):
        if not 0 <= start <= limit <= size or stride < 1:
            raise TypeError(
                f"slice indices must satisfy 0 <= start <= limit <= size and stride >= 1, got "
                f"start_indices {start_indices}, limit_indices {limit_indices}, strides {strides} "
                f"for operand shape {x.shape}."
            )
    return tuple(-(-(lim - s) // st) for s, lim, st in zip(start_indices, limit_indices, strides))


def _slice(x: np.ndarray, *, start_indices: Any, limit_indices: Any, strides: Any) -> np.ndarray:
    strides = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(s, lim, st) for s, lim, st in zip(start_indices, limit_indices, strides))]


slice_p = standard_primitive("slice", _slice, _slice_shape, _keep_dtype)


def _slice_physical(key_shape: Shape, x: Any, *, start_indices: Shape, limit_indices: Shape, strides: Any) -> Any:
    return slice_p.bind(x, start_indices=(*start_indices, *(0 for _ in key_shape)),
                        limit_indices=(*limit_indices, *key_shape),
                        strides=None if strides is None else (*strides, *(1 for _ in key_shape)))


physical_rules[slice_p] = _slice_physical


def slice(  # noqa: A001 - JAX's name
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """The part of ``operand`` from ``start_indices`` up to ``limit_indices``, with optional ``strides``."""
    return slice_p.bind(
        operand,
        start_indices=tuple(int(i) for i in start_indices),
        limit_indices=tuple(int(i) for i in limit_indices),
        strides=None if strides is None else tuple(int(s) for s in strides),
    )


# ----------------------------------------------------------------------------------------------
# Dynamic slicing: start indices are array values; they are clamped so the slice fits.


def _check_index_count(name: str, shape: Sequence[int], count: int) -> None:
    if count != len(shape):
        raise ValueError(
            f"{name} needs one start index per operand dimension: got {count} start indices for "
            f"an operand of shape {tuple(shape)}."
        )


def _check_start_indices(name: str, x: ShapedArray, indices: Sequence[ShapedArray]) -> None:
    _check_index_count(name, x.shape, len(indices))
    for i, index in enumerate(indices):
        if index.shape != ():
            raise TypeError(f"{name} start indices must be scalars, got shape {index.shape} at {i}.")
        check_dtype(name, index, (INTEGER,), position=i + 1)


def _clamped_starts(shape: Sequence[int], sizes: Sequence[int], indices: Sequence[np.ndarray]) -> list[int]:
    return [int(np.clip(int(i), 0, dim - size)) for i, dim, size in zip(indices, shape, sizes)]


def _dynamic_slice_shape(x: ShapedArray, *indices: ShapedArray, slice_sizes: tuple[int, ...]) -> tuple[int, ...]:
    _check_start_indices("dynamic_slice", x, indices)
    if len(slice_sizes) != x.ndim:
        raise ValueError(
            f"dynamic_slice needs one slice size per operand dimension: got slice_sizes "
            f"{slice_sizes} for operand shape {x.shape}."
        )
    if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape)):
        raise TypeError(
            f"dynamic_slice slice_sizes must be non-negative and at most the operand shape; got "
            f"slice_sizes {slice_sizes} for operand shape {x.shape}."
        )
    return slice_sizes


def _dynamic_slice(x: np.ndarray, *indices: np.ndarray, slice_sizes: tuple[int, ...]) -> np.ndarray:
    starts = _clamped_starts(x.shape, slice_sizes, indices)
    return x[tuple(np.s_[s : s + n] for s, n in zip(starts, slice_sizes))]


dynamic_slice_p = standard_primitive(
    "dynamic_slice",
    _dynamic_slice,
    _dynamic_slice_shape,
    _keep_dtype,
    lambda x, *indices, slice_sizes: x.weak_type,
)


def _zero_starts(key_shape: Shape, indices: Sequence[Any]) -> list[Any]:
    """Start indices for the words: the keys', then 0 on each trailing axis (the words are taken whole)."""
    dtype = get_aval(indices[0]).dtype if indices else np.dtype(np.int32)
    return [*indices, *(np.zeros((), dtype) for _ in key_shape)]


def _dynamic_slice_physical(key_shape: Shape, x: Any, *indices: Any, slice_sizes: Shape) -> Any:
    return dynamic_slice_p.bind(x, *_zero_starts(key_shape, indices), slice_sizes=(*slice_sizes, *key_shape))


physical_rules[dynamic_slice_p] = _dynamic_slice_physical


def _dynamic_update_slice_shape(x: ShapedArray, update: ShapedArray, *indices: ShapedArray) -> tuple[int, ...]:
    _check_start_indices("dynamic_update_slice", x, indices)
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        raise TypeError(
            f"dynamic_update_slice update shape {update.shape} must have the operand's rank and "
            f"fit inside the operand shape {x.shape}."
        )
    return x.shape


def _dynamic_update_slice(x: np.ndarray, update: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    starts = _clamped_starts(x.shape, update.shape, indices)
    out = x.copy()
    out[tuple(np.s_[s : s + n] for s, n in zip(starts, update.shape))] = update
    return out


dynamic_update_slice_p = standard_primitive(
    "dynamic_update_slice",
    _dynamic_update_slice,
    _dynamic_update_slice_shape,
    lambda x, update, *indices: check_same_dtypes("dynamic_update_slice", [x, update]),
    lambda x, update, *indices: x.weak_type,
)
physical_rules[dynamic_update_slice_p] = (
    lambda key_shape, x, update, *indices: dynamic_update_slice_p.bind(x, update, *_zero_starts(key_shape, indices))
)


def _wrap_negative(index: Any, size: int, allow_negative: bool = True) -> Any:
    """A negative start index counts from the end, as in jax.lax (then it is clamped). Without
    ``allow_negative``, the index is only clamped, and a negative Python or NumPy int is an error."""
    if not allow_negative:
        if isinstance(index, (int, np.integer)) and index < 0:
            raise ValueError(
                f"Index {index} is out of bounds for dimension {size} if allow_negative_indices=False"
            )
        return index
    if isinstance(index, int):  # known now: wrap it in Python
        return index + size if index < 0 else index
    dtype = get_aval(index).dtype
    if dtype.kind == "u":  # never negative: nothing to stage
        return index
    negative = lt(index, np.zeros((), dtype))  # before the add, as JAX stages them
    return select_n(negative, index, add(index, np.asarray(size, dtype)))


def _start_indices(
    name: str, shape: Sequence[int], start_indices: Sequence[Any], allow_negative: bool | Sequence[bool]
) -> list[Any]:
    _check_index_count(name, shape, len(start_indices))  # before zip drops extras
    allow = [allow_negative] * len(shape) if isinstance(allow_negative, bool) else list(allow_negative)
    return [_wrap_negative(i, d, a) for i, d, a in zip(start_indices, shape, allow)]


def dynamic_slice(
    operand: Any,
    start_indices: Sequence[Any],
    slice_sizes: Sequence[int],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """The block of ``slice_sizes`` starting at ``start_indices`` (array values, clamped to fit)."""
    shape = get_aval(operand).shape
    starts = _start_indices("dynamic_slice", shape, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=as_shape("dynamic_slice", slice_sizes))


def dynamic_update_slice(
    operand: Any,
    update: Any,
    start_indices: Sequence[Any],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """``operand`` with ``update`` written over the block at ``start_indices`` (clamped to fit)."""
    shape = get_aval(operand).shape
    starts = _start_indices("dynamic_update_slice", shape, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


# ----------------------------------------------------------------------------------------------
# Slicing along one axis: the helpers jax.lax offers on top of slice, dynamic_slice and
# dynamic_update_slice. Their axis may be negative.


def _axis(name: str, axis: int, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}.")
    return axis % ndim


def slice_in_dim(
    operand: Any, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
) -> Any:
    """lax.slice along one axis; None means the axis' start (or end), and negative indices count
    from the end."""
    shape = get_aval(operand).shape
    axis = _axis("slice_in_dim", axis, len(shape))
    size = shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = size if limit_index is None else int(limit_index)
    start, limit = (start + size if start < 0 else start), (limit + size if limit < 0 else limit)
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """The slice at a known ``index`` of ``axis`` (negative counts from the end); ``keepdims=False``
    drops the axis."""
    shape = get_aval(operand).shape
    axis = _axis("index_in_dim", axis, len(shape))
    size, index = shape[axis], int(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index = index + size if index < 0 else index
    sliced = slice_in_dim(operand, index, index + 1, 1, axis)
    return sliced if keepdims else squeeze(sliced, (axis,))


def dynamic_slice_in_dim(
    operand: Any, start_index: Any, slice_size: int, axis: int = 0, *, allow_negative_indices: bool = True
) -> Any:
    """dynamic_slice along one axis: ``slice_size`` elements from ``start_index`` (clamped to fit)."""
    shape = get_aval(operand).shape
    axis = _axis("dynamic_slice_in_dim", axis, len(shape))
    starts: list[Any] = [0] * len(shape)
    sizes = list(shape)
    starts[axis], sizes[axis] = start_index, int(slice_size)
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(
    operand: Any, index: Any, axis: int = 0, keepdims: bool = True, *, allow_negative_indices: bool = True
) -> Any:
    """The slice at ``index`` (an array value, clamped) of ``axis``; ``keepdims=False`` drops it."""
    axis = _axis("dynamic_index_in_dim", axis, get_aval(operand).ndim)
    sliced = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return sliced if keepdims else squeeze(sliced, (axis,))


def dynamic_update_slice_in_dim(
    operand: Any, update: Any, start_index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """dynamic_update_slice along one axis: ``update`` written from ``start_index`` on."""
    shape = get_aval(operand).shape
    axis = _axis("dynamic_update_slice_in_dim", axis, len(shape))
    starts: list[Any] = [0] * len(shape)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(
    operand: Any, update: Any, index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """``update`` written at ``index`` of ``axis``; it may lack that axis (it is then added)."""
    ndim = get_aval(operand).ndim
    axis = _axis("dynamic_update_index_in_dim", axis, ndim)
    if get_aval(update).ndim == ndim - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis, allow_negative_indices=allow_negative_indices)


# ----------------------------------------------------------------------------------------------
# iota: 0, 1, 2, ... along one dimension. It has no operands, only parameters.


def _iota(*, dtype: np.dtype, shape: tuple[int, ...], dimension: int) -> np.ndarray:
    counts = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(counts.reshape([-1 if i == dimension else 1 for i in range(len(shape))]), shape)


def _iota_shape(*, dtype: np.dtype, shape: tuple[int, ...], dimension: int) -> tuple[int, ...]:
    check_axes("iota", (dimension,), len(shape), what="dimension")
    return shape


iota_p = standard_primitive(
    "iota", _iota, _iota_shape, lambda *, dtype, shape, dimension: dtype, never_weak
)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """An array of ``shape`` whose elements count 0, 1, 2, ... along ``dimension``."""
    return iota_p.bind(
        dtype=dtypes.check_user_dtype(dtype, "broadcasted_iota"), shape=as_shape("iota", shape),
        dimension=int(dimension),
    )


def iota(dtype: Any, size: int) -> Any:
    """The vector [0, 1, ..., size - 1] of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


# ----------------------------------------------------------------------------------------------
# Filled arrays and collapsing dimensions: compositions of the primitives above.


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of ``shape`` filled with the scalar ``fill_value`` (in ``dtype`` if given; else a
    Python scalar's weak type is kept)."""
    shape = as_shape("full", (shape,) if isinstance(shape, int) else shape)
    aval = get_aval(fill_value)
    if aval.ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {aval.shape}.")
    if dtype is None:
        fill = fill_value
    else:
        fill = convert_to(fill_value, dtypes.check_user_dtype(dtype, "full"), weak_type=False)
    return broadcast_in_dim(fill, shape, ())


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Any:
    """An array like ``x`` (its shape and dtype, or the ``shape`` and ``dtype`` given) filled with
    ``fill_value``; without ``dtype`` it also keeps x's weak type."""
    aval = get_aval(x)
    if dtype is None:
        new_dtype, weak = aval.dtype, aval.weak_type
    else:
        new_dtype, weak = dtypes.check_user_dtype(dtype, "full_like"), False
    fill = convert_to(fill_value, new_dtype, weak_type=weak)
    return full(aval.shape if shape is None else shape, fill)


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """Merge dimensions ``start_dimension`` up to (not including) ``stop_dimension`` into one (a
    reshape); the bounds are read as a Python slice's."""
    shape = get_aval(operand).shape
    start, stop, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if start > stop:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:start] + (math.prod(shape[start:stop]),) + shape[stop:])
