"""Lowering rules of the collectives (stage 07): psum, all_gather, ppermute ... inside a shard_map.

Inside a shard_map each device runs the same program on its own block (manual SPMD), and a
collective is one StableHLO operation that the devices run together. It names the devices that
take part by their positions in the mesh (a program's partition id): ``replica_groups`` lists,
per group, the positions that differ only along the axes the collective names (core's
``device_groups``), so that ``psum(x, 'j')`` on a mesh ``(i=2, j=4)`` sums within each row.
Every collective carries a channel (``CHANNEL``), which tells XLA the groups hold partition
ids, not replica ids; all_reduce, all_gather and reduce_scatter also say so with
``use_global_device_ids``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from .core import CHANNEL, LoweringContext, axis_context, constant, dense, device_groups, lowering_rules, tensor_type


def _groups(ctx: LoweringContext, primitive: str, names: Any, axis_index_groups: Any = None) -> np.ndarray:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{primitive} with axis_index_groups inside shard_map is not implemented in didax")
    return device_groups(axis_context(ctx, primitive).mesh, names if isinstance(names, tuple) else (names,))


def _with_groups(groups: np.ndarray, global_ids: bool = True) -> dict[str, str]:
    attrs = {"channel_handle": CHANNEL, "replica_groups": dense(groups.astype(np.int64))}
    return {**attrs, "use_global_device_ids": "unit"} if global_ids else attrs


def _all_reduce(name: str, combine: str) -> Any:
    """psum, pmax, pmin: every device of a group gets the group's sum (max, min)."""

    def rule(ctx: LoweringContext, x: str, *, axes: tuple, axis_index_groups: Any) -> str:
        groups = _groups(ctx, name, axes, axis_index_groups)
        scalar = tensor_type(ShapedArray((), ctx.avals_in[0].dtype))
        body = ctx.fb.region([scalar, scalar])
        body.ret([body.builder.op1(combine, body.args, scalar)])
        return ctx.fb.op("stablehlo.all_reduce", [x], [ctx.out_type()], _with_groups(groups), regions=[body])[0]

    return rule


def _with_unit_axis(ctx: LoweringContext, x: str, d: int) -> str:
    """``x`` with a new axis of size 1 at ``d``: the untiled collectives gather or scatter it."""
    shape = list(ctx.avals_in[0].shape)
    shape.insert(d, 1)
    return ctx.fb.op1("stablehlo.reshape", [x], tensor_type(ShapedArray(tuple(shape), ctx.avals_in[0].dtype)))


def _all_gather(ctx: LoweringContext, x: str, *, all_gather_dimension: int, axis_name: tuple, axis_index_groups: Any,
                axis_size: int, tiled: bool) -> str:  # fmt: skip
    """The group's blocks concatenated along ``all_gather_dimension`` (stacked: along a new axis
    there, which XLA sees as concatenating blocks of size 1)."""
    groups = _groups(ctx, "all_gather", axis_name, axis_index_groups)
    x = x if tiled else _with_unit_axis(ctx, x, all_gather_dimension)
    attrs = {"all_gather_dim": f"{all_gather_dimension} : i64", **_with_groups(groups)}
    return ctx.fb.op1("stablehlo.all_gather", [x], ctx.out_type(), attrs)


def _reduce_scatter(ctx: LoweringContext, x: str, *, scatter_dimension: int, axis_name: tuple, axis_index_groups: Any,
                    axis_size: int, tiled: bool) -> str:  # fmt: skip
    """The group's sum, of which device k keeps block k along ``scatter_dimension`` (untiled:
    element k, a block of size 1 that a reshape then removes)."""
    groups = _groups(ctx, "reduce_scatter", axis_name, axis_index_groups)
    aval, d = ctx.avals_in[0], scatter_dimension
    block = [n // axis_size if i == d else n for i, n in enumerate(aval.shape)]
    block_type = tensor_type(ShapedArray(tuple(block), aval.dtype))
    scalar = tensor_type(ShapedArray((), aval.dtype))
    body = ctx.fb.region([scalar, scalar])
    body.ret([body.builder.op1("stablehlo.add", body.args, scalar)])
    attrs = {"scatter_dimension": f"{d} : i64", **_with_groups(groups)}
    out = ctx.fb.op("stablehlo.reduce_scatter", [x], [block_type], attrs, regions=[body])[0]
    return out if tiled else ctx.fb.op1("stablehlo.reshape", [out], ctx.out_type())


def _all_to_all(ctx: LoweringContext, x: str, *, axis_name: Any, split_axis: int, concat_axis: int,
                axis_index_groups: Any, tiled: bool) -> str:  # fmt: skip
    """Chunk j of ``split_axis`` goes to the group's device j; the chunks received are
    concatenated along ``concat_axis`` (the untiled form is tiled around unit axes, see lax)."""
    groups = _groups(ctx, "all_to_all", axis_name, axis_index_groups)
    attrs = {"split_dimension": f"{split_axis} : i64", "concat_dimension": f"{concat_axis} : i64",
             "split_count": f"{groups.shape[1]} : i64", **_with_groups(groups, global_ids=False)}  # fmt: skip
    return ctx.fb.op1("stablehlo.all_to_all", [x], ctx.out_type(), attrs)


def _ppermute(ctx: LoweringContext, x: str, *, axis_name: tuple, perm: tuple) -> str:
    """Within each group, the device at index ``src`` sends its block to the one at ``dst``, for
    every pair; a device that receives nothing gets zeros."""
    groups = _groups(ctx, "ppermute", axis_name)
    pairs = np.array([(g[src], g[dst]) for g in groups for src, dst in perm], np.int64).reshape(-1, 2)
    attrs = {"source_target_pairs": dense(pairs), "channel_handle": CHANNEL}
    return ctx.fb.op1("stablehlo.collective_permute", [x], ctx.out_type(), attrs)


def _axis_index(ctx: LoweringContext, *, axis_name: Any) -> str:
    """The device's index along ``axis_name``, read off its partition id (its position in the
    mesh, row-major): divided by the sizes of the later axes, modulo the axis's own size."""
    mesh = axis_context(ctx, "axis_index").mesh
    sizes = list(mesh.shape.values())
    at = mesh.axis_names.index(axis_name)
    fb, u32 = ctx.fb, tensor_type(ShapedArray((), np.dtype(np.uint32)))
    index = fb.op1("stablehlo.partition_id", [], u32)
    stride = int(np.prod(sizes[at + 1 :], dtype=np.int64))
    index = fb.op1("stablehlo.divide", [index, constant(fb, np.uint32(stride))], u32)
    index = fb.op1("stablehlo.remainder", [index, constant(fb, np.uint32(sizes[at]))], u32)
    return fb.op1("stablehlo.convert", [index], ctx.out_type())


lowering_rules.update({
    lax.psum_p: _all_reduce("psum", "stablehlo.add"),
    lax.pmax_p: _all_reduce("pmax", "stablehlo.maximum"),
    lax.pmin_p: _all_reduce("pmin", "stablehlo.minimum"),
    lax.all_gather_p: _all_gather,
    lax.reduce_scatter_p: _reduce_scatter,
    lax.all_to_all_p: _all_to_all,
    lax.ppermute_p: _ppermute,
    lax.axis_index_p: _axis_index,
    lax.pvary_p: lambda ctx, x, **_: x,  # a mark for the replication check only
})  # fmt: skip
