"""Lowering rules of gather and the scatters (stage 05).

XLA's gather and scatter take the same dimension numbers as lax's, so each is one operation;
what differs is what happens to a window that does not fit in the operand. XLA's gather moves
it back inside (CLIP, and PROMISE_IN_BOUNDS as it runs) and XLA's scatter skips it
(FILL_OR_DROP, PROMISE_IN_BOUNDS). The other two cases are written around the operation, as JAX
does: gather's FILL_OR_DROP replaces the misfits' windows by the fill value afterwards, and
scatter's CLIP clamps the indices first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from ..lax.slicing import GatherScatterMode, default_fill_value
from .core import LoweringContext, constant, i64_array, lower_jaxpr, lowering_rules, tensor_type
from .elementwise import compare


def _dims(name: str, dims: Sequence[int]) -> str:
    return f"{name} = [{', '.join(map(str, dims))}]"


def _bool_attr(value: bool) -> str:
    return "true" if value else "false"


def _index_bounds(indices: ShapedArray, highest: Sequence[int]) -> np.ndarray:
    """``highest`` (one bound per index vector component) as an array of the indices' type and
    shape, saturated where the type cannot hold it (an int8 index cannot exceed 127 anyway)."""
    info = np.iinfo(indices.dtype)
    bounds = np.clip(np.asarray(highest, np.int64), 0, min(info.max, np.iinfo(np.int64).max))
    return np.broadcast_to(bounds.astype(indices.dtype), indices.shape)


def _fits(ctx: LoweringContext, indices: str, aval: ShapedArray, highest: Sequence[int]) -> str:
    """For each index vector (the last axis of ``indices``), whether every component lies in
    [0, highest]: a boolean of the indices' batch shape."""
    fb = ctx.fb
    pred = tensor_type(ShapedArray(aval.shape, np.dtype(np.bool_)))
    zero = constant(fb, np.zeros(aval.shape, aval.dtype))
    high = constant(fb, _index_bounds(aval, highest))
    ok = fb.op1("stablehlo.and", [compare(ctx, indices, zero, "GE", aval.dtype, pred),
                                  compare(ctx, indices, high, "LE", aval.dtype, pred)], pred)  # fmt: skip
    scalar = tensor_type(ShapedArray((), np.dtype(np.bool_)))
    body = fb.region([scalar, scalar])
    body.ret([body.builder.op1("stablehlo.and", body.args, scalar)])
    batch = tensor_type(ShapedArray(aval.shape[:-1], np.dtype(np.bool_)))
    true = constant(fb, np.ones((), np.bool_))
    return fb.op("stablehlo.reduce", [ok, true], [batch], {"dimensions": i64_array([aval.ndim - 1])},
                 regions=[body])[0]  # fmt: skip


# ----------------------------------------------------------------------------------------------
# gather


def _gather(ctx: LoweringContext, operand: str, indices: str, *, dimension_numbers: Any, slice_sizes: Any,
            indices_are_sorted: bool, unique_indices: bool, mode: GatherScatterMode, fill_value: Any) -> str:  # fmt: skip
    dn = dimension_numbers
    op_aval, idx_aval = ctx.avals_in
    numbers = ", ".join([
        _dims("offset_dims", dn.offset_dims), _dims("collapsed_slice_dims", dn.collapsed_slice_dims),
        _dims("operand_batching_dims", dn.operand_batching_dims),
        _dims("start_indices_batching_dims", dn.start_indices_batching_dims),
        _dims("start_index_map", dn.start_index_map), f"index_vector_dim = {idx_aval.ndim - 1}",
    ])  # fmt: skip
    attrs = {"dimension_numbers": f"#stablehlo.gather<{numbers}>", "slice_sizes": i64_array(slice_sizes),
             "indices_are_sorted": _bool_attr(indices_are_sorted)}  # fmt: skip
    out = ctx.fb.op1("stablehlo.gather", [operand, indices], ctx.out_type(), attrs)
    if mode != GatherScatterMode.FILL_OR_DROP:
        return out  # XLA clamps every window into the operand
    # FILL_OR_DROP: the windows whose start did not fit are replaced by the fill value.
    highest = [op_aval.shape[d] - slice_sizes[d] for d in dn.start_index_map]
    fits = _fits(ctx, indices, idx_aval, highest)
    out_aval = ctx.avals_out[0]
    batch_axes = [d for d in range(out_aval.ndim) if d not in dn.offset_dims]
    mask = ctx.fb.op1("stablehlo.broadcast_in_dim", [fits], tensor_type(ShapedArray(out_aval.shape, np.bool_)),
                      {"broadcast_dimensions": i64_array(batch_axes)})  # fmt: skip
    fill = default_fill_value(op_aval.dtype) if fill_value is None else fill_value
    fill_name = constant(ctx.fb, np.full(out_aval.shape, fill, op_aval.dtype))
    return ctx.fb.op1("stablehlo.select", [mask, out, fill_name], ctx.out_type())


lowering_rules[lax.gather_p] = _gather


# ----------------------------------------------------------------------------------------------
# scatter: the combining operation is the region XLA applies to (old value, update).


def _combiner(op_name: str | None) -> Any:
    """Write the region of a scatter whose update meets the old value through ``op_name`` (None:
    the update replaces it; a scatter_apply's ``update_jaxpr`` is applied to the old value)."""

    def write(ctx: LoweringContext, body: Any, update_jaxpr: Any, update_consts: Sequence[Any]) -> None:
        b = body.builder
        old, update = body.args
        if update_jaxpr is not None:
            consts = [constant(b, np.asarray(c)) for c in update_consts]
            body.ret(lower_jaxpr(b, update_jaxpr, consts, [old, update]))
        elif op_name is None:
            body.ret([update])
        else:
            body.ret([b.op1(op_name, [old, update], body.arg_types[0])])

    return write


def _clamp_indices(ctx: LoweringContext, indices: str, aval: ShapedArray, highest: Sequence[int]) -> str:
    """CLIP: every index vector component clamped to [0, highest] so its window fits."""
    zero = constant(ctx.fb, np.zeros(aval.shape, aval.dtype))
    high = constant(ctx.fb, _index_bounds(aval, highest))
    return ctx.fb.op1("stablehlo.clamp", [zero, indices, high], tensor_type(aval))


def _scatter_rule(op_name: str | None) -> Any:
    write_combiner = _combiner(op_name)

    def rule(ctx: LoweringContext, operand: str, indices: str, updates: str, *, dimension_numbers: Any,
             indices_are_sorted: bool, unique_indices: bool, mode: GatherScatterMode, update_jaxpr: Any = None,
             update_consts: Sequence[Any] = ()) -> str:  # fmt: skip
        dn = dimension_numbers
        op_aval, idx_aval, upd_aval = ctx.avals_in
        if mode == GatherScatterMode.CLIP:
            dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
            window = iter(upd_aval.shape[u] for u in dn.update_window_dims)
            sizes = [1 if d in dropped else next(window) for d in range(op_aval.ndim)]
            highest = [op_aval.shape[d] - sizes[d] for d in dn.scatter_dims_to_operand_dims]
            indices = _clamp_indices(ctx, indices, idx_aval, highest)
        numbers = ", ".join([
            _dims("update_window_dims", dn.update_window_dims), _dims("inserted_window_dims", dn.inserted_window_dims),
            _dims("input_batching_dims", dn.operand_batching_dims),
            _dims("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
            _dims("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims),
            f"index_vector_dim = {idx_aval.ndim - 1}",
        ])  # fmt: skip
        attrs = {"scatter_dimension_numbers": f"#stablehlo.scatter<{numbers}>",
                 "indices_are_sorted": _bool_attr(indices_are_sorted), "unique_indices": _bool_attr(unique_indices)}  # fmt: skip
        scalar = tensor_type(ShapedArray((), op_aval.dtype))
        body = ctx.fb.region([scalar, scalar])
        write_combiner(ctx, body, update_jaxpr, update_consts)
        return ctx.fb.op("stablehlo.scatter", [operand, indices, updates], [ctx.out_type()], attrs, regions=[body])[0]

    return rule


lowering_rules.update({
    lax.scatter_p: _scatter_rule(None), lax.scatter_add_p: _scatter_rule("stablehlo.add"),
    lax.scatter_sub_p: _scatter_rule("stablehlo.subtract"), lax.scatter_mul_p: _scatter_rule("stablehlo.multiply"),
    lax.scatter_min_p: _scatter_rule("stablehlo.minimum"), lax.scatter_max_p: _scatter_rule("stablehlo.maximum"),
})  # fmt: skip
