"""Lowering rules of the primitives that make, move and combine whole arrays: iota, reshape,
broadcast, transpose, reductions and dot_general (stage 05)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import ShapedArray
from ..lax.dot import _higher_precision_type
from .core import LoweringContext, constant, i64_array, lowering_rules, tensor_type


def _iota(ctx: LoweringContext, *, dtype: Any, shape: tuple[int, ...], dimension: int, **_: Any) -> str:
    return ctx.fb.op1("stablehlo.iota", [], ctx.out_type(), {"iota_dimension": f"{dimension} : i64"})


def _reshape(ctx: LoweringContext, x: str, *, new_sizes: tuple[int, ...], dimensions: Any) -> str:
    if dimensions is not None and tuple(dimensions) != tuple(range(len(dimensions))):
        aval = ctx.avals_in[0]
        moved = ShapedArray(tuple(aval.shape[d] for d in dimensions), aval.dtype)
        x = ctx.fb.op1("stablehlo.transpose", [x], tensor_type(moved), {"permutation": i64_array(dimensions)})
    return ctx.fb.op1("stablehlo.reshape", [x], ctx.out_type())


def _broadcast_in_dim(ctx: LoweringContext, x: str, *, shape: tuple[int, ...], broadcast_dimensions: Any,
                      **_: Any) -> str:  # fmt: skip
    attrs = {"broadcast_dimensions": i64_array(broadcast_dimensions)}
    return ctx.fb.op1("stablehlo.broadcast_in_dim", [x], ctx.out_type(), attrs)


def _transpose(ctx: LoweringContext, x: str, *, permutation: tuple[int, ...]) -> str:
    return ctx.fb.op1("stablehlo.transpose", [x], ctx.out_type(), {"permutation": i64_array(permutation)})


def reduce(ctx: LoweringContext, x: str, init: np.ndarray, combine: str, axes: tuple[int, ...]) -> str:
    """``x`` reduced over ``axes`` with the binary operation ``combine``, starting from ``init``."""
    fb = ctx.fb
    scalar = tensor_type(ShapedArray((), ctx.avals_in[0].dtype))
    init_name = constant(fb, np.asarray(init, ctx.avals_in[0].dtype))
    body = fb.region([scalar, scalar])
    body.ret([body.builder.op1(combine, body.args, scalar)])
    return fb.op("stablehlo.reduce", [x, init_name], [ctx.out_type()], {"dimensions": i64_array(axes)},
                 regions=[body])[0]  # fmt: skip


def _reducer(combine: str, identity: Any) -> Any:
    def rule(ctx: LoweringContext, x: str, *, axes: tuple[int, ...]) -> str:
        return reduce(ctx, x, identity(ctx.avals_in[0].dtype), combine, axes)

    return rule


def _lowest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return False
    return -np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).min  # (bfloat16's kind is not "f")


def _highest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    return np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).max


lowering_rules.update({
    lax.reduce_sum_p: _reducer("stablehlo.add", lambda d: 0),
    lax.reduce_prod_p: _reducer("stablehlo.multiply", lambda d: 1),
    lax.reduce_max_p: _reducer("stablehlo.maximum", _lowest),
    lax.reduce_min_p: _reducer("stablehlo.minimum", _highest),
    lax.reduce_and_p: _reducer("stablehlo.and", lambda d: np.invert(np.zeros((), d))),  # all bits set
    lax.reduce_or_p: _reducer("stablehlo.or", lambda d: 0),
    lax.reduce_xor_p: _reducer("stablehlo.xor", lambda d: 0),
})  # fmt: skip


def _dot_general(ctx: LoweringContext, x: str, y: str, *, dimension_numbers: Any, preferred_element_type: Any = None,
                 **_: Any) -> str:  # fmt: skip
    (lc, rc), (lb, rb) = dimension_numbers
    dims = (
        f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
        f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
        f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
        f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>"
    )
    x, y = _same_operand_type(ctx, x, y)
    return ctx.fb.op1("stablehlo.dot_general", [x, y], ctx.out_type(), {"dot_dimension_numbers": dims})


def _same_operand_type(ctx: LoweringContext, x: str, y: str) -> tuple[str, str]:
    """Both operands converted to the one of higher precision, as the eager rule (and JAX) does:
    int8 with uint32 multiplies as uint32. (preferred_element_type is the result's type only.)"""
    lhs, rhs = ctx.avals_in
    if lhs.dtype == rhs.dtype:
        return x, y
    common = _higher_precision_type(lhs.dtype, rhs.dtype)
    x = x if lhs.dtype == common else ctx.fb.op1("stablehlo.convert", [x], tensor_type(ShapedArray(lhs.shape, common)))
    y = y if rhs.dtype == common else ctx.fb.op1("stablehlo.convert", [y], tensor_type(ShapedArray(rhs.shape, common)))
    return x, y


lowering_rules.update({
    lax.iota_p: _iota, lax.reshape_p: _reshape, lax.broadcast_in_dim_p: _broadcast_in_dim,
    lax.transpose_p: _transpose, lax.dot_general_p: _dot_general,
})  # fmt: skip

