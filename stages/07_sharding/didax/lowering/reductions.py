"""Lowering rules of argmax/argmin and the cumulative reductions (stage 05).

argmax is a reduction of two arrays at once, the values and their indices (an iota), whose
combiner keeps the larger value and, on a tie, the smaller index; a NaN counts as the largest,
and two NaNs tie, so the first NaN wins, as in eager evaluation. XLA may combine elements in any
order (the GPU reduces in a tree), so the combiner must not care which operand comes first. A cumulative reduction is a reduce_window as long
as its axis, padded in front (at the back when ``reverse``), so that each window ends at its
element: what JAX does on CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import ShapedArray
from .core import FunctionBuilder, LoweringContext, Region, constant, dense, i64_array, lowering_rules, tensor_type
from .elementwise import compare_type
from .structural import _highest, _lowest


def _cmp(b: FunctionBuilder, x: str, y: str, direction: str, dtype: np.dtype) -> str:
    attrs = {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
             "compare_type": f"#stablehlo<comparison_type {compare_type(dtype)}>"}  # fmt: skip
    return b.op1("stablehlo.compare", [x, y], "tensor<i1>", attrs)


def _arg_reduction(direction: str, identity: Any) -> Any:
    """argmax (``direction`` GT) or argmin (LT) along one axis, as an index of ``index_dtype``."""

    def rule(ctx: LoweringContext, x: str, *, axes: tuple[int, ...], index_dtype: Any) -> str:
        fb, aval = ctx.fb, ctx.avals_in[0]
        axis, dtype, index_dtype = axes[0], aval.dtype, np.dtype(index_dtype)
        iota_type = tensor_type(ShapedArray(aval.shape, index_dtype))
        iota = fb.op1("stablehlo.iota", [], iota_type, {"iota_dimension": f"{axis} : i64"})
        init = [constant(fb, np.asarray(identity(dtype), dtype)), constant(fb, np.zeros((), index_dtype))]
        value_t, index_t = tensor_type(ShapedArray((), dtype)), tensor_type(ShapedArray((), index_dtype))
        body = fb.region([value_t, index_t, value_t, index_t])
        b = body.builder
        v1, i1, v2, i2 = body.args
        pick = _cmp(b, v1, v2, direction, dtype)  # v1 is more extreme...
        same = _cmp(b, v1, v2, "EQ", dtype)
        if dtypes.is_float(dtype):  # ...or the only NaN; two NaNs are the same
            nan1, nan2 = _cmp(b, v1, v1, "NE", dtype), _cmp(b, v2, v2, "NE", dtype)
            only_nan1 = b.op1("stablehlo.and", [nan1, b.op1("stablehlo.not", [nan2], "tensor<i1>")], "tensor<i1>")
            pick = b.op1("stablehlo.or", [pick, only_nan1], "tensor<i1>")
            same = b.op1("stablehlo.or", [same, b.op1("stablehlo.and", [nan1, nan2], "tensor<i1>")], "tensor<i1>")
        tie = b.op1("stablehlo.and", [same, _cmp(b, i1, i2, "LT", index_dtype)], "tensor<i1>")
        first = b.op1("stablehlo.or", [pick, tie], "tensor<i1>")
        body.ret([b.op1("stablehlo.select", [pick, v1, v2], value_t),
                  b.op1("stablehlo.select", [first, i1, i2], index_t)])  # fmt: skip
        out_shape = ctx.avals_out[0].shape
        outs = fb.op("stablehlo.reduce", [x, iota, *init],
                     [tensor_type(ShapedArray(out_shape, dtype)), ctx.out_type()],
                     {"dimensions": i64_array([axis])}, regions=[body])  # fmt: skip
        return outs[1]

    return rule


lowering_rules[lax.argmax_p] = _arg_reduction("GT", _lowest)
lowering_rules[lax.argmin_p] = _arg_reduction("LT", _highest)


# ----------------------------------------------------------------------------------------------
# Cumulative reductions.


def _logaddexp(b: FunctionBuilder, x: str, y: str, typ: str, dtype: np.dtype) -> str:
    """log(exp(x) + exp(y)) = max + log1p(exp(-|x - y|)), as JAX writes it; where x - y is NaN
    (both infinite of one sign, or a NaN) x + y is the answer. For complex numbers, eager
    evaluation's hi + log1p(exp(lo - hi)), hi the one of larger real part."""
    if dtype.kind == "c":
        part = tensor_type(ShapedArray((), np.empty((), dtype).real.dtype))
        real_x, real_y = (b.op1("stablehlo.real", [v], part) for v in (x, y))
        pick = _cmp(b, real_x, real_y, "GE", np.dtype(np.float32))
        hi = b.op1("stablehlo.select", [pick, x, y], typ)
        lo = b.op1("stablehlo.select", [pick, y, x], typ)
        diff = b.op1("stablehlo.subtract", [lo, hi], typ)
        tail = b.op1("stablehlo.log_plus_one", [b.op1("stablehlo.exponential", [diff], typ)], typ)
        return b.op1("stablehlo.add", [hi, tail], typ)
    delta = b.op1("stablehlo.subtract", [x, y], typ)
    is_nan = _cmp(b, delta, delta, "NE", dtype)
    minus_abs = b.op1("stablehlo.negate", [b.op1("stablehlo.abs", [delta], typ)], typ)
    tail = b.op1("stablehlo.log_plus_one", [b.op1("stablehlo.exponential", [minus_abs], typ)], typ)
    smooth = b.op1("stablehlo.add", [b.op1("stablehlo.maximum", [x, y], typ), tail], typ)
    return b.op1("stablehlo.select", [is_nan, b.op1("stablehlo.add", [x, y], typ), smooth], typ)


def _combine(op_name: str) -> Any:
    def write(body: Region, typ: str, dtype: np.dtype) -> None:
        if op_name == "logaddexp":
            body.ret([_logaddexp(body.builder, *body.args, typ, dtype)])
        else:
            body.ret([body.builder.op1(op_name, body.args, typ)])

    return write


def _cumulative(op_name: str, identity: Any) -> Any:
    write = _combine(op_name)

    def rule(ctx: LoweringContext, x: str, *, axis: int, reverse: bool) -> str:
        fb, aval = ctx.fb, ctx.avals_in[0]
        if aval.shape[axis] == 0:
            return x  # empty: nothing to accumulate (and XLA wants windows of positive size)
        dtype = aval.dtype
        # 16-bit floats accumulate in float32 and round once, as eager evaluation does.
        wide = np.dtype(np.float32) if dtypes.is_float(dtype) and dtype.itemsize == 2 else dtype
        wide_type = tensor_type(ShapedArray(aval.shape, wide))
        if wide != dtype:
            x = fb.op1("stablehlo.convert", [x], wide_type)
        scalar = tensor_type(ShapedArray((), wide))
        body = fb.region([scalar, scalar])
        write(body, scalar, wide)
        n, rank = aval.shape[axis], aval.ndim
        window = [n if d == axis else 1 for d in range(rank)]
        padding = np.zeros((rank, 2), np.int64)
        padding[axis, 1 if reverse else 0] = n - 1
        attrs = {"window_dimensions": i64_array(window), "window_strides": i64_array([1] * rank),
                 "base_dilations": i64_array([1] * rank), "window_dilations": i64_array([1] * rank),
                 "padding": dense(padding)}  # fmt: skip
        init = constant(fb, np.asarray(identity(wide), wide))
        out = fb.op("stablehlo.reduce_window", [x, init], [wide_type], attrs, regions=[body])[0]
        return out if wide == dtype else fb.op1("stablehlo.convert", [out], ctx.out_type())

    return rule


lowering_rules.update({
    lax.cumsum_p: _cumulative("stablehlo.add", lambda d: 0),
    lax.cumprod_p: _cumulative("stablehlo.multiply", lambda d: 1),
    lax.cummax_p: _cumulative("stablehlo.maximum", _lowest),
    lax.cummin_p: _cumulative("stablehlo.minimum", _highest),
    lax.cumlogsumexp_p: _cumulative("logaddexp", lambda d: -np.inf),
})  # fmt: skip


def _windowed(prim: Any, op_name: str) -> Any:
    """A windowed reduction is stablehlo.reduce_window with the combining operation as its region
    and the identity as its initial value (16-bit floats summed in float32, as eagerly)."""
    def rule(ctx: LoweringContext, x: str, *, window_dimensions: tuple[int, ...], window_strides: tuple[int, ...],
             padding: tuple, base_dilation: tuple[int, ...], window_dilation: tuple[int, ...]) -> str:  # fmt: skip
        fb, dtype = ctx.fb, ctx.avals_in[0].dtype
        summed_wide = prim is lax.reduce_window_sum_p and dtypes.is_float(dtype) and dtype.itemsize == 2
        wide = np.dtype(np.float32) if summed_wide else dtype
        if wide != dtype:
            x = fb.op1("stablehlo.convert", [x], tensor_type(ShapedArray(ctx.avals_in[0].shape, wide)))
        scalar = tensor_type(ShapedArray((), wide))
        body = fb.region([scalar, scalar])
        body.ret([body.builder.op1(op_name, body.args, scalar)])
        attrs = {"window_dimensions": i64_array(window_dimensions), "window_strides": i64_array(window_strides),
                 "base_dilations": i64_array(base_dilation), "window_dilations": i64_array(window_dilation),
                 "padding": dense(np.asarray(padding, np.int64).reshape(len(padding), 2))}  # fmt: skip
        init = constant(fb, lax.windowed.identity(prim, wide))
        out_type = tensor_type(ShapedArray(ctx.avals_out[0].shape, wide))
        out = fb.op("stablehlo.reduce_window", [x, init], [out_type], attrs, regions=[body])[0]
        return out if wide == dtype else fb.op1("stablehlo.convert", [out], ctx.out_type())

    return rule


lowering_rules.update({
    lax.reduce_window_sum_p: _windowed(lax.reduce_window_sum_p, "stablehlo.add"),
    lax.reduce_window_max_p: _windowed(lax.reduce_window_max_p, "stablehlo.maximum"),
    lax.reduce_window_min_p: _windowed(lax.reduce_window_min_p, "stablehlo.minimum"),
})  # fmt: skip
