"""Gather and scatter: reading and writing many slices of an array at positions held in an array.
Stage 01 introduced them; every kind of NumPy indexing and ``x.at[...]`` is built on them.

``gather(operand, indices, dimension_numbers, slice_sizes)`` reads one slice of size
``slice_sizes`` for each index vector in ``indices`` (its last axis holds the vectors). The
dimension numbers say how the pieces fit together:

- ``start_index_map[k]``: the operand axis that component ``k`` of an index vector starts;
  the other axes start at 0 (or at the batch position, below);
- ``collapsed_slice_dims``: operand axes whose slice has size 1 and is dropped from the output;
- ``offset_dims``: where the remaining slice axes go in the output (in operand order); every
  other output axis is a batch axis of ``indices``, in order;
- ``operand_batching_dims`` / ``start_indices_batching_dims``: pairs of axes that are walked in
  step (batch position ``b`` of ``indices`` reads position ``b`` of the operand axis).

A scatter is a gather run backwards: ``update_window_dims``, ``inserted_window_dims`` and
``scatter_dims_to_operand_dims`` are offset_dims, collapsed_slice_dims and start_index_map seen
from the updates. scatter writes (the last write wins where slices overlap), and scatter_add,
scatter_sub, scatter_mul, scatter_min and scatter_max combine every update into the operand.

From stage 04 on the scatter primitives carry ``update_jaxpr`` and ``update_consts``, as JAX's
do: ``scatter_apply`` (``x.at[...].apply(f)``) stages ``f`` into a jaxpr of two scalars, and
the overwriting scatter applies it once per update, so a position reached twice gets ``f``
twice. The combining scatters keep their NumPy operation (JAX puts its jaxpr there; didax None).
``GatherScatterMode.ONE_HOT`` is not implemented.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..core import Primitive, ShapedArray, Tracer, get_aval
from ..jaxpr import Jaxpr, eval_jaxpr
from ..staging import trace_to_jaxpr
from ..tree_util import tree_flatten
from .structural import broadcast_in_dim
from .standard import (
    ANY,
    INTEGER,
    NUMBER,
    accepts,
    as_shape,
    check_dtype,
    check_same_dtypes,
    physical_rules,
    preferred_zeros,
    sign_zeros,
    standard_primitive,
    trailing_axes,
)


class GatherDimensionNumbers(NamedTuple):
    """How a gather's index vectors and slices map onto operand and output axes."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a scatter's index vectors and update windows map onto operand and updates axes."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What to do with an index whose slice does not fit inside the operand.

    CLIP moves the slice back inside; FILL_OR_DROP makes gather return ``fill_value`` for it
    and scatter skip it; PROMISE_IN_BOUNDS is the caller's promise that it never happens (when
    broken, didax does what XLA does on CPU: gather clips, scatter skips).
    """

    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """A mode from its name ('clip', 'fill', 'drop', 'promise_in_bounds'); None is fill/drop."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


# ----------------------------------------------------------------------------------------------
# Checks shared by gather and scatter.


def _check_dims(name: str, what: str, dims: Sequence[int], bound: int, sorted_: bool = True) -> None:
    """``dims`` must be distinct axes in range(bound), and sorted where XLA asks for it."""
    if any(not 0 <= d < bound for d in dims):
        raise TypeError(f"{name}: {what} {tuple(dims)} must all be in range({bound}).")
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name}: {what} {tuple(dims)} must not repeat an axis.")
    if sorted_ and list(dims) != sorted(dims):
        raise TypeError(f"{name}: {what} {tuple(dims)} must be sorted.")


def _check_indices(name: str, indices: ShapedArray) -> None:
    if not accepts(indices.dtype, (INTEGER,)):
        raise ValueError("indices must have an integer type")
    if indices.ndim == 0:
        raise TypeError(f"{name}: indices must have rank >= 1, its last axis holding the index vectors.")


def _check_batching(
    name: str, operand: ShapedArray, indices: ShapedArray, operand_dims: Sequence[int], index_dims: Sequence[int]
) -> None:
    """Batching axes come in pairs of equal size; an index array's last axis is never one."""
    _check_dims(name, "operand_batching_dims", operand_dims, operand.ndim)
    _check_dims(name, "indices batching dims", index_dims, indices.ndim - 1, sorted_=False)
    if len(operand_dims) != len(index_dims):
        raise TypeError(f"{name}: operand and indices must have as many batching dims, got "
                        f"{tuple(operand_dims)} and {tuple(index_dims)}.")
    for o, i in zip(operand_dims, index_dims):
        if operand.shape[o] != indices.shape[i]:
            raise TypeError(f"{name}: batching dims must have equal sizes, got operand dim {o} of "
                            f"size {operand.shape[o]} and indices dim {i} of size {indices.shape[i]}.")


# ----------------------------------------------------------------------------------------------
# gather


def _gather_shape(
    operand: ShapedArray, indices: ShapedArray, *, dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...], **_: Any,
) -> tuple[int, ...]:
    dn = dimension_numbers
    _check_indices("gather", indices)
    batch_shape = indices.shape[:-1]
    out_rank = len(dn.offset_dims) + len(batch_shape)
    _check_dims("gather", "offset_dims", dn.offset_dims, out_rank)
    _check_dims("gather", "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    _check_dims("gather", "start_index_map", dn.start_index_map, operand.ndim, sorted_=False)
    _check_batching("gather", operand, indices, dn.operand_batching_dims, dn.start_indices_batching_dims)
    if len(dn.start_index_map) != indices.shape[-1]:
        raise TypeError(
            f"Gather op has {len(dn.start_index_map)} elements in start_index_map and the bound of "
            f"dimension index_vector_dim={indices.ndim - 1} of indices is {indices.shape[-1]}. "
            "These two numbers must be equal."
        )
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"gather: slice_sizes {slice_sizes} must have one size per operand axis {operand.shape}.")
    for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= size <= bound:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be within "
                            f"[0, {bound} + 1), got {size}.")
    for i, d in enumerate((*dn.collapsed_slice_dims, *dn.operand_batching_dims)):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        raise TypeError("gather: an axis cannot be both collapsed and batching.")
    window = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    if len(window) != len(dn.offset_dims):
        raise TypeError(f"gather: offset_dims {dn.offset_dims} must name one output axis for each of "
                        f"the {len(window)} slice axes that are neither collapsed nor batching.")
    # Offset axes take the slice sizes in order; the other axes take the batch shape in order.
    windows, batches = iter(window), iter(batch_shape)
    return tuple(next(windows) if d in dn.offset_dims else next(batches) for d in range(out_rank))


def _starts(
    shape: tuple[int, ...], indices: np.ndarray, start_map: Sequence[int], batch_pairs: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Each index vector as a full start position in the operand, shape (count, operand rank).

    Axes named by ``start_map`` start where the vector says, batching axes at the vector's own
    batch position, and every other axis at 0.
    """
    batch_shape = indices.shape[:-1]
    vectors = indices.reshape(int(np.prod(batch_shape, dtype=np.int64)), indices.shape[-1])
    if vectors.dtype == np.uint64:  # beyond int64's range is out of bounds anyway
        vectors = np.minimum(vectors, np.iinfo(np.int64).max)
    starts = np.zeros((vectors.shape[0], len(shape)), np.int64)
    starts[:, list(start_map)] = vectors
    if batch_pairs:
        position = np.indices(batch_shape).reshape(len(batch_shape), -1)
        for operand_dim, index_dim in batch_pairs:
            starts[:, operand_dim] = position[index_dim]
    return starts


def _fits(shape: tuple[int, ...], sizes: Sequence[int], starts: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """Which rows of ``starts`` put a whole window of ``sizes`` inside the operand on ``axes``."""
    axes = list(axes)
    highest = np.asarray(shape, np.int64)[axes] - np.asarray(sizes, np.int64)[axes]
    return np.all((starts[:, axes] >= 0) & (starts[:, axes] <= highest), axis=1)


def _clip_starts(shape: tuple[int, ...], sizes: Sequence[int], starts: np.ndarray) -> np.ndarray:
    """Move every window back inside the operand."""
    return np.clip(starts, 0, np.asarray(shape, np.int64) - np.asarray(sizes, np.int64))


class _Windows(NamedTuple):
    """How NumPy reaches every window at once. Axes that index vectors or batching move to the
    front of a view of the operand, behind a new size-1 axis (so a rank-0 operand works too); the
    view is indexed by arrays on those axes and plain slices on the rest (which every window
    takes from 0). ``view[index]`` then has shape (count, *indexed sizes, *other sizes)."""

    order: list[int]  # operand axes in the view's order (after its new leading axis)
    index: tuple[Any, ...]

    def view(self, operand: np.ndarray) -> np.ndarray:
        """The operand as this index reads it: a view, so writing to it writes to the operand."""
        return np.transpose(operand, self.order)[None]

    def to_operand_order(self, windows: np.ndarray) -> np.ndarray:
        """(count, *sizes in view order) -> (count, *sizes in operand order)."""
        return np.transpose(windows, [0] + [1 + self.order.index(d) for d in range(len(self.order))])

    def from_operand_order(self, windows: np.ndarray) -> np.ndarray:
        """(count, *sizes in operand order) -> (count, *sizes in view order)."""
        return np.transpose(windows, [0] + [1 + d for d in self.order])


def _windows(starts: np.ndarray, sizes: Sequence[int], indexed: Sequence[int]) -> _Windows:
    """The index reaching every window of ``sizes`` at ``starts`` (rows of full start positions).

    The index arrays broadcast (they are not materialized), and the axes no index vector moves
    are sliced, so reading whole rows costs what NumPy's own ``x[i]`` does.
    """
    indexed = sorted(indexed)
    rest = [d for d in range(len(sizes)) if d not in indexed]
    k = len(indexed)
    arrays = [np.zeros((starts.shape[0],) + (1,) * k, np.intp)]  # the view's new leading axis
    for j, d in enumerate(indexed):
        offsets = np.arange(sizes[d]).reshape([sizes[d] if a == j else 1 for a in range(k)])
        arrays.append(starts[:, d].reshape((-1,) + (1,) * k) + offsets)
    return _Windows(indexed + rest, tuple(arrays) + tuple(slice(0, sizes[d]) for d in rest))


def default_fill_value(dtype: np.dtype) -> Any:
    """gather's fill for out-of-bounds slices: NaN, the lowest signed or highest unsigned
    integer, or True; chosen to stand out, as in JAX."""
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtypes.issubdtype(dtype, np.signedinteger):
        return int(dtypes.iinfo(dtype).min)
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return int(dtypes.iinfo(dtype).max)
    return True


def _gather(
    operand: np.ndarray, indices: np.ndarray, *, dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...], indices_are_sorted: bool, unique_indices: bool,
    mode: GatherScatterMode, fill_value: Any,
) -> np.ndarray:
    dn = dimension_numbers
    batch_pairs = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    starts = _starts(operand.shape, indices, dn.start_index_map, batch_pairs)
    fits = _fits(operand.shape, slice_sizes, starts, dn.start_index_map)
    # Read every window from a position inside the operand; FILL_OR_DROP overwrites the misfits.
    reach = _windows(_clip_starts(operand.shape, slice_sizes, starts), slice_sizes,
                     [*dn.start_index_map, *dn.operand_batching_dims])
    windows = reach.to_operand_order(reach.view(operand)[reach.index])
    if mode == GatherScatterMode.FILL_OR_DROP and not fits.all():
        fill = default_fill_value(operand.dtype) if fill_value is None else fill_value
        windows[~fits] = np.asarray(fill).astype(operand.dtype)
    # (count, *slice_sizes) -> (*batch shape, *kept slice sizes), then offset axes into place.
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    kept = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    batch_rank = indices.ndim - 1
    out = windows.reshape(indices.shape[:-1] + tuple(kept))
    return np.moveaxis(out, list(range(batch_rank, out.ndim)), list(dn.offset_dims))


gather_p = standard_primitive(
    "gather", _gather, _gather_shape, lambda operand, indices, **_: operand.dtype,
    lambda operand, indices, **_: operand.weak_type,
)


def _gather_physical(key_shape: tuple[int, ...], operand: Any, indices: Any, *,
                     dimension_numbers: GatherDimensionNumbers, slice_sizes: tuple[int, ...], **params: Any) -> Any:
    """Gathering keys gathers their words: each slice takes the trailing axes whole, and they
    become the output's last axes."""
    dn = dimension_numbers
    out_rank = len(dn.offset_dims) + get_aval(indices).ndim - 1
    dn = dn._replace(offset_dims=(*dn.offset_dims, *trailing_axes(out_rank, key_shape)))
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=(*slice_sizes, *key_shape), **params)


physical_rules[gather_p] = _gather_physical


def gather(
    operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers, slice_sizes: Sequence[int],
    *, unique_indices: bool = False, indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None, fill_value: Any = None,
) -> Any:
    """Read a slice of ``slice_sizes`` at each index vector (the last axis of ``start_indices``).

    ``mode`` defaults to PROMISE_IN_BOUNDS; ``fill_value`` is used by FILL_OR_DROP only, and
    defaults to :func:`default_fill_value` of the operand's dtype.
    """
    parsed = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if parsed == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:  # the operand's dtype chooses the fill
            fill_value = default_fill_value(get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(
        operand, start_indices, dimension_numbers=_as_gather_dnums(dimension_numbers),
        slice_sizes=as_shape("gather", slice_sizes), unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted), mode=parsed, fill_value=fill_value,
    )


def _as_gather_dnums(dn: GatherDimensionNumbers) -> GatherDimensionNumbers:
    """Dimension numbers with every field a tuple of ints, so they compare and hash."""
    return GatherDimensionNumbers(*(tuple(int(d) for d in field) for field in dn))


# ----------------------------------------------------------------------------------------------
# scatter and its combining variants: one shape rule, one NumPy rule parametrized by how an
# update meets the value already there.


def _scatter_shape(
    operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *,
    dimension_numbers: ScatterDimensionNumbers, **_: Any,
) -> tuple[int, ...]:
    dn = dimension_numbers
    _check_indices("scatter", indices)
    _check_dims("scatter", "update_window_dims", dn.update_window_dims, updates.ndim)
    _check_dims("scatter", "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
    _check_dims("scatter", "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, operand.ndim,
                sorted_=False)
    _check_batching("scatter", operand, indices, dn.operand_batching_dims, dn.scatter_indices_batching_dims)
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
        raise TypeError(
            f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
            f"scatter_dims_to_operand_dims and the bound of dimension index_vector_dim="
            f"{indices.ndim - 1} of indices is {indices.shape[-1]}. These two numbers must be equal."
        )
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_axes = [d for d in range(operand.ndim) if d not in dropped]
    if len(window_axes) != len(dn.update_window_dims):
        raise TypeError(f"scatter: update_window_dims {dn.update_window_dims} must name one updates axis "
                        f"for each of the {len(window_axes)} operand axes that are neither inserted nor batching.")
    if updates.ndim != len(dn.update_window_dims) + indices.ndim - 1:
        raise TypeError(f"scatter: updates of shape {updates.shape} must have rank "
                        f"{len(dn.update_window_dims) + indices.ndim - 1}: the update window dims plus "
                        f"the indices' batch dims {indices.shape[:-1]}.")
    for axis, u in zip(window_axes, dn.update_window_dims):
        if updates.shape[u] > operand.shape[axis]:
            raise TypeError(f"scatter: update window dim {u} of size {updates.shape[u]} is larger than "
                            f"operand dim {axis} of size {operand.shape[axis]}.")
    scatter_sizes = [s for d, s in enumerate(updates.shape) if d not in dn.update_window_dims]
    if tuple(scatter_sizes) != indices.shape[:-1]:
        raise TypeError(f"scatter: the updates' scatter dims {tuple(scatter_sizes)} must match the "
                        f"indices' batch dims {indices.shape[:-1]}.")
    return operand.shape


def _scatter_with(combine: np.ufunc | None) -> Any:
    """The NumPy rule of a scatter whose updates meet old values through ``combine`` (None: replace)."""

    def rule(
        operand: np.ndarray, indices: np.ndarray, updates: np.ndarray, *,
        dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool, unique_indices: bool,
        mode: GatherScatterMode, update_jaxpr: Jaxpr | None, update_consts: tuple[Any, ...],
    ) -> np.ndarray:
        dn = dimension_numbers
        sizes = _window_sizes(operand.ndim, updates, dn)
        batch_pairs = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims))
        starts = _starts(operand.shape, indices, dn.scatter_dims_to_operand_dims, batch_pairs)
        # Updates as (count, *window sizes): scatter axes first, window axes after.
        scatter_rank = indices.ndim - 1
        windows = np.moveaxis(updates, dn.update_window_dims, range(scatter_rank, updates.ndim))
        windows = windows.reshape((starts.shape[0], *sizes))
        if mode == GatherScatterMode.CLIP:
            starts = _clip_starts(operand.shape, sizes, starts)
        else:  # FILL_OR_DROP, and PROMISE_IN_BOUNDS as XLA on CPU runs it: skip what does not fit
            fits = _fits(operand.shape, sizes, starts, dn.scatter_dims_to_operand_dims)
            if not fits.all():  # (selecting copies, and updates are often a broadcast scalar)
                starts, windows = starts[fits], windows[fits]
        out = operand.copy()
        reach = _windows(starts, sizes, [*dn.scatter_dims_to_operand_dims, *dn.operand_batching_dims])
        view, windows = reach.view(out), reach.from_operand_order(windows)
        if update_jaxpr is not None:  # scatter_apply: the updates are placeholders
            _apply_per_update(update_jaxpr, update_consts, view, reach.index)
        elif combine is None:
            view[reach.index] = windows
        elif combine in (np.maximum, np.minimum) and dtypes.is_float(out.dtype):
            _combine_extremum(combine, view, reach.index, windows)
        else:
            combine.at(view, reach.index, windows)  # unbuffered: repeated positions all count
        return out

    return rule


def _apply_per_update(jaxpr: Jaxpr, consts: tuple[Any, ...], view: np.ndarray, index: tuple) -> None:
    """``view[index] = f(view[index])`` once per update: a position that ``n`` updates reach gets
    ``f`` applied ``n`` times. ``f`` is the scalar jaxpr (its second input, the update, unused),
    batched over every position still to go."""
    from ..batching import vmap  # batching.py imports didax.lax, so not at the top

    f = vmap(lambda x: eval_jaxpr(jaxpr, consts, x, x)[0])
    hits = np.zeros(view.shape, np.int64)
    np.add.at(hits, index, 1)
    for n in range(int(hits.max(initial=0))):
        again = hits > n
        view[again] = np.asarray(f(view[again]))


def _combine_extremum(combine: np.ufunc, view: np.ndarray, index: tuple, windows: np.ndarray) -> None:
    """scatter-max/min into ``view`` with XLA's signed zeros: a zero result is +0.0 for max (-0.0
    for min) if the old value or any update written there was that zero."""
    negative = combine is np.minimum
    seen = preferred_zeros(view, negative)
    np.logical_or.at(seen, index, preferred_zeros(windows, negative))
    combine.at(view, index, windows)
    view[...] = sign_zeros(view, seen, negative)


def _window_sizes(rank: int, updates: np.ndarray, dn: ScatterDimensionNumbers) -> list[int]:
    """The size of an update window along every operand axis (1 on inserted and batching axes)."""
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = iter(updates.shape[u] for u in dn.update_window_dims)
    return [1 if d in dropped else next(window) for d in range(rank)]


def _scatter_primitive(name: str, combine: np.ufunc | None, categories: tuple[str, ...] | None) -> Primitive:
    """A scatter primitive; ``categories`` are the dtypes its combining operation accepts (None:
    every dtype, keys included)."""

    def dtype_rule(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, **_: Any) -> np.dtype:
        if categories is not None:
            check_dtype(name, operand, categories, position=0)
        return check_same_dtypes(name.replace("-", "_"), [operand, updates])

    return standard_primitive(
        name, _scatter_with(combine), _scatter_shape, dtype_rule,
        lambda operand, indices, updates, **_: operand.weak_type,
    )


# Anything can be written (keys too: x.at[i].set(key)); booleans' min and max can be taken, but
# they cannot be added or multiplied (as lax.add).
scatter_p = _scatter_primitive("scatter", None, None)
scatter_add_p = _scatter_primitive("scatter-add", np.add, NUMBER)
scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract, NUMBER)
scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply, NUMBER)
scatter_min_p = _scatter_primitive("scatter-min", np.minimum, ANY)
scatter_max_p = _scatter_primitive("scatter-max", np.maximum, ANY)


def _scatter_physical(key_shape: tuple[int, ...], operand: Any, indices: Any, updates: Any, *,
                      dimension_numbers: ScatterDimensionNumbers, **params: Any) -> Any:
    """Writing keys writes their words: each update window takes the trailing axes whole."""
    dn = dimension_numbers
    updates_rank = len(dn.update_window_dims) + get_aval(indices).ndim - 1
    dn = dn._replace(update_window_dims=(*dn.update_window_dims, *trailing_axes(updates_rank, key_shape)))
    return scatter_p.bind(operand, indices, updates, dimension_numbers=dn, **params)


physical_rules[scatter_p] = _scatter_physical


def _bind_scatter(
    prim: Primitive, operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool, unique_indices: bool, mode: str | GatherScatterMode | None,
    update_jaxpr: Jaxpr | None = None, update_consts: tuple[Any, ...] = (),
) -> Any:
    dn = ScatterDimensionNumbers(*(tuple(int(d) for d in field) for field in dimension_numbers))
    return prim.bind(
        operand, scatter_indices, updates, dimension_numbers=dn, indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode), update_jaxpr=update_jaxpr,
        update_consts=update_consts,
    )


def scatter(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Write each update window at its index vector; where windows overlap, one write wins."""
    return _bind_scatter(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Add each update window into the operand at its index vector; repeats accumulate."""
    return _bind_scatter(scatter_add_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_sub(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Subtract each update window from the operand at its index vector; repeats accumulate."""
    return _bind_scatter(scatter_sub_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_mul(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Multiply the operand by each update window at its index vector; repeats accumulate."""
    return _bind_scatter(scatter_mul_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_min(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Keep the smaller of the operand and each update window at its index vector."""
    return _bind_scatter(scatter_min_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_max(
    operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
    indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Any:
    """Keep the larger of the operand and each update window at its index vector."""
    return _bind_scatter(scatter_max_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_apply(
    operand: Any, scatter_indices: Any, func: Any, dimension_numbers: ScatterDimensionNumbers, *,
    update_shape: tuple[int, ...] = (), indices_are_sorted: bool = False, unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Any:
    """Replace the operand's entries in each update window by ``func`` of them; where windows
    overlap, ``func`` is applied as many times. ``func`` maps a scalar of the operand's dtype to
    one: it is staged once into a jaxpr, the scatter's ``update_jaxpr``; the updates, of
    ``update_shape``, are placeholder zeros."""
    dtype = get_aval(operand).dtype
    scalar = ShapedArray((), dtype)
    closed, _ = trace_to_jaxpr(lambda x, _: tree_flatten(func(x))[0], [scalar, scalar])
    outs = closed.out_avals
    if len(outs) != 1 or (outs[0].shape, outs[0].dtype) != ((), dtype):
        returned = ", ".join(a.str_short() for a in outs)
        raise ValueError(f"scatter_apply: func must map a {scalar.str_short()} to a {scalar.str_short()}, "
                         f"but it returns {returned}.")  # fmt: skip
    if any(isinstance(c, Tracer) for c in closed.consts):  # a param cannot hold a traced value
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue at https://github.com/jax-ml/jax."
        )
    updates = broadcast_in_dim(np.zeros((), dtype), tuple(update_shape), ())
    return _bind_scatter(scatter_p, operand, scatter_indices, updates, dimension_numbers, indices_are_sorted,
                         unique_indices, mode, closed.jaxpr, tuple(closed.consts))  # fmt: skip
