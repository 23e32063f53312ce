"""Collective operations over named axes, as jax.lax offers them (psum, all_gather, ppermute...).
Stage 07 introduced them.

A collective names an axis: ``psum(x, 'i')`` sums ``x`` over the examples of the axis ``i`` that a
``vmap(f, axis_name='i')`` around it maps (later, over the devices of a shard_map). core.py's axis
environment says which axes are bound, with their sizes. Binding a collective hands it to the
interpreter of the axis it names, even when its operand does not vary over that axis; vmap's
rules (batching.py) then rewrite it into ordinary array operations on the batch axis. With no
axis bound there is nothing to gather or sum over, and each raises JAX's NameError.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from .. import tree_util
from ..core import (Primitive, ShapedArray, Tracer, axis_frame, axis_size as _bound_size, find_top_trace, get_aval,
                    trace_state)
from .elementwise import convert_element_type, convert_to, mul
from .reductions import reduce_max, reduce_min, reduce_sum
from .structural import expand_dims, squeeze

AxisName = Hashable


class CollectivePrimitive(Primitive):
    """A primitive over named axes (its ``axes`` or ``axis_name`` parameter).

    ``bind`` gives it to the interpreter that maps the innermost axis it names, or to a higher
    one: ``psum(2.0, 'i')`` has no tracer among its operands, yet vmap over ``i`` must see it.
    ``api`` is the function JAX's unbound-axis error names (JAX says psum for pmax and pmin too).
    """

    def __init__(self, name: str, api: str | None = None) -> None:
        super().__init__(name)
        self.api = api or name

    def bind(self, *args: Any, **params: Any) -> Any:
        trace = find_top_trace(args)
        for name in axis_names(params):
            frame = axis_frame(name)
            if frame is None:
                raise NameError(
                    f"Found an unbound axis name: {name}. To fix this, please call {self.api} under `jax.shard_map`."
                )
            if frame.main is not None and frame.main.level > trace.main.level:
                trace = frame.main.trace_type(frame.main)
        return self.bind_with_trace(trace, args, params)


def axis_names(params: dict) -> tuple[AxisName, ...]:
    """The axes a collective's parameters name (psum's ``axes``, the others' ``axis_name``)."""
    names = params["axes"] if "axes" in params else params["axis_name"]
    return names if isinstance(names, tuple) else (names,)


def _same_type(x: ShapedArray, **_: Any) -> ShapedArray:
    return ShapedArray(x.shape, x.dtype, x.weak_type)


psum_p = CollectivePrimitive("psum")
pmax_p = CollectivePrimitive("pmax", api="psum")
pmin_p = CollectivePrimitive("pmin", api="psum")
ppermute_p = CollectivePrimitive("ppermute")
for _p in (psum_p, pmax_p, pmin_p, ppermute_p):
    _p.def_abstract_eval(_same_type)


all_gather_p = CollectivePrimitive("all_gather")


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x: ShapedArray, *, all_gather_dimension: int, axis_size: int, tiled: bool,
                              **_: Any) -> ShapedArray:
    shape, d = list(x.shape), all_gather_dimension
    if tiled:
        shape[d] *= axis_size
    else:
        shape.insert(d, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type)


reduce_scatter_p = CollectivePrimitive("reduce_scatter")


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(x: ShapedArray, *, scatter_dimension: int, axis_size: int, tiled: bool,
                                  **_: Any) -> ShapedArray:
    shape, d = list(x.shape), scatter_dimension
    if tiled:
        if shape[d] % axis_size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {shape[d]} must be divisible "
                             f"by shard_count {axis_size}")  # fmt: skip
        shape[d] //= axis_size
    else:
        if shape[d] != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {shape[d]} must match shard count "
                             f"{axis_size}")  # fmt: skip
        del shape[d]
    return ShapedArray(shape, x.dtype, x.weak_type)


all_to_all_p = CollectivePrimitive("all_to_all")
all_to_all_p.abstract_eval_reads_axis_env = True  # its type depends on the axis size: staging must not remember it


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x: ShapedArray, *, axis_name: Any, split_axis: int, concat_axis: int,
                              **_: Any) -> ShapedArray:
    # Always tiled: chunk j of the split axis goes to example j, and the chunks received are
    # concatenated along the concat axis (the untiled form adds and removes a unit axis around it).
    size = _size(axis_name)
    shape = list(x.shape)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return ShapedArray(shape, x.dtype, x.weak_type)


axis_index_p = CollectivePrimitive("axis_index")
axis_index_p.def_abstract_eval(lambda **_: ShapedArray((), np.int32))

# pvary marks a value that is the same on every device of the axes as one that may vary over them.
# It changes no number (every rule is the identity); only the replication check of a shard_map
# body reads it. (JAX's types need it on a loop's initial carry that the body makes vary; didax's
# check, which walks the loop, does not, and takes it for JAX's programs that have it.)
pvary_p = CollectivePrimitive("pvary")
pvary_p.def_abstract_eval(_same_type)
pvary_p.def_impl(lambda x, **_: x)


# ----------------------------------------------------------------------------------------------
# The functions. Each maps its operand pytree leaf by leaf.


def _names(axis_name: Any) -> tuple[AxisName, ...]:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _size(axis_name: Any) -> int:
    """The number of examples along all the named axes together (NameError if one is unbound)."""
    return math.prod(_bound_size(n) for n in _names(axis_name))


def _split_axes(axis_name: Any) -> tuple[tuple[AxisName, ...], tuple[int, ...]]:
    """Named axes, and the array axes (ints) that psum, pmax and pmin also accept."""
    axes = _names(axis_name)
    return tuple(a for a in axes if not isinstance(a, int)), tuple(a for a in axes if isinstance(a, int))


def _checked(x: Any) -> Any:
    try:
        get_aval(x)
    except TypeError:
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type") from None
    return x


def scaled(x: Any, n: int) -> Any:
    """``x * n`` in x's dtype and weak type: the sum of n examples that all hold x."""
    aval = get_aval(x)
    return mul(x, convert_to(n, aval.dtype, aval.weak_type))


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The sum of ``x`` over the examples of the named axes (a name, or a tuple of them; ints
    name array axes). A constant, the same on every example, gives ``size * x``."""
    names, positional = _split_axes(axis_name)

    def leaf(v: Any) -> Any:
        if get_aval(_checked(v)).dtype == np.bool_:
            v = convert_element_type(v, np.int32)
        if positional:
            v = reduce_sum(v, positional)
        if not isinstance(v, Tracer):
            return scaled(v, _size(names))
        return psum_p.bind(v, axes=names, axis_index_groups=axis_index_groups) if names else v

    return tree_util.tree_map(leaf, x)


def _chooser(prim: Primitive, reduce: Any, x: Any, axis_name: Any, axis_index_groups: Any) -> Any:
    names, positional = _split_axes(axis_name)

    def leaf(v: Any) -> Any:
        v = reduce(_checked(v), positional) if positional else v
        return prim.bind(v, axes=names, axis_index_groups=axis_index_groups) if names else v

    return tree_util.tree_map(leaf, x)


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The largest of ``x``'s values over the examples of the named axes."""
    return _chooser(pmax_p, reduce_max, x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The smallest of ``x``'s values over the examples of the named axes."""
    return _chooser(pmin_p, reduce_min, x, axis_name, axis_index_groups)


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of ``x`` over the examples of the named axes: psum divided by their number (an
    integer ``x`` gives a float, as ``/`` does)."""
    names, positional = _split_axes(axis_name)
    sums = psum(x, axis_name, axis_index_groups=axis_index_groups)
    return tree_util.tree_map(
        lambda s, v: s / (_size(names) * math.prod(get_aval(v).shape[a] for a in positional)), sums, x
    )


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False,
               to: str = "varying") -> Any:
    """Every example's ``x``, stacked along a new axis ``axis`` (or concatenated along it, if
    ``tiled``). ``to`` matters only to shard_map's replication types, which didax lacks yet."""
    if to not in ("varying", "invarying", "reduced"):
        raise ValueError("Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: "
                         "{'reduced', 'invarying', 'varying'}")  # fmt: skip
    if to == "reduced":
        raise NotImplementedError("all_gather(to='reduced') is not implemented in didax")
    names, size = _names(axis_name), _size(axis_name)

    def leaf(v: Any) -> Any:
        d = axis % (get_aval(_checked(v)).ndim + (not tiled))
        return all_gather_p.bind(v, all_gather_dimension=d, axis_name=names, axis_index_groups=axis_index_groups,
                                 axis_size=size, tiled=tiled)  # fmt: skip

    return tree_util.tree_map(leaf, x)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0, axis_index_groups: Any = None,
                 tiled: bool = False) -> Any:
    """psum, of which example k keeps only part k along ``scatter_dimension``: element k (that
    dimension's size must be the axis size), or the k-th of as many blocks if ``tiled``."""
    names, size = _names(axis_name), _size(axis_name)

    def leaf(v: Any) -> Any:
        aval = get_aval(_checked(v))
        params = dict(scatter_dimension=scatter_dimension % aval.ndim, axis_name=names,
                      axis_index_groups=axis_index_groups, axis_size=size, tiled=tiled)  # fmt: skip
        reduce_scatter_p.abstract_eval(aval, **params)  # the shape errors, under vmap too
        return reduce_scatter_p.bind(v, **params)

    return tree_util.tree_map(leaf, x)


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *, axis_index_groups: Any = None,
               tiled: bool = False) -> Any:
    """Split ``x`` along ``split_axis`` into one chunk per example, send chunk j to example j,
    and concatenate the chunks received along ``concat_axis``. Untiled, the split axis's size
    must be the axis size: it disappears, and a new axis of that size appears at concat_axis."""
    axis_name = tuple(axis_name) if isinstance(axis_name, list) else axis_name
    size = _size(axis_name)

    def leaf(v: Any) -> Any:
        shape = get_aval(_checked(v)).shape
        split, concat = split_axis % len(shape), concat_axis % len(shape)
        params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled)
        if tiled:
            if shape[split] % size:
                raise ValueError(f"The size of all_to_all split_axis ({shape[split]}) has to be divisible by the "
                                 f"size of the named axis {axis_name} ({size})")  # fmt: skip
            return all_to_all_p.bind(v, split_axis=split, concat_axis=concat, **params)
        if shape[split] != size:
            raise ValueError("all_to_all requires the size of the mapped axis axis_name to equal "
                             f"x.shape[split_axis], but they are {size} and {shape[split]} respectively.")
        if split == concat:
            return all_to_all_p.bind(v, split_axis=split, concat_axis=concat, **params)
        # A unit axis at concat_axis receives the chunks; the split axis, now of size 1, goes.
        if split < concat:
            concat += 1
        else:
            split += 1
        out = all_to_all_p.bind(expand_dims(v, (concat,)), split_axis=split, concat_axis=concat, **params)
        return squeeze(out, (split,))

    return tree_util.tree_map(leaf, x)


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Example ``src`` sends its ``x`` to example ``dst`` for each pair of ``perm``; an example
    that receives nothing gets zeros."""
    perm = tuple((int(src), int(dst)) for src, dst in perm)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) < len(srcs) or len(set(dsts)) < len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    names = _names(axis_name)
    return tree_util.tree_map(lambda v: ppermute_p.bind(_checked(v), axis_name=names, perm=perm), x)


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """Example i receives the ``x`` of example ``perm[i]``: a ppermute by a full permutation."""
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


def axis_index(axis_name: Any) -> Any:
    """The index of the current example along the named axis (an int32 scalar). Over several
    names it counts row-major: the last name varies fastest."""
    names = _names(axis_name)
    if len(names) == 1:
        return axis_index_p.bind(axis_name=names[0])
    index, stride = 0, 1
    for name in reversed(names):
        index = index + axis_index_p.bind(axis_name=name) * stride
        stride *= _bound_size(name)
    return index


_PCAST_TO = ("varying", "reduced", "unreduced")


def pcast(x: Any, axis_name: Any, *, to: str) -> Any:
    """``x`` cast to the replication type ``to`` over the named axes. didax has ``to='varying'``
    only: in the body of a shard_map with check_vma=True, ``x`` then counts as varying over them."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    if to not in _PCAST_TO:
        raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: {set(_PCAST_TO)}")
    if to != "varying":
        raise NotImplementedError(f"pcast(to={to!r}) is not implemented in didax: it has no reduced types")
    axes = _names(axis_name)
    _size(axes)  # NameError for an unbound name
    if not trace_state.check_vma:  # unchecked (pmap, vmap, check_vma=False): nothing to mark
        return x
    return tree_util.tree_map(lambda v: pvary_p.bind(_checked(v), axes=axes), x)


def axis_size(axis_name: Any) -> int:
    """The number of examples along the named axes (a Python int)."""
    return _size(axis_name)
