"""Lowering rules of the primitives that cut arrays up and put them together: slice, squeeze,
rev, concatenate, pad, dynamic_slice, dynamic_update_slice, and sort (stage 05).

Each is one StableHLO operation. Two details differ from lax: StableHLO's dynamic slices want
their start indices of one type (lax allows a mix), and its sort takes the comparison as a region,
which says how floats are ordered (NaNs last, -0.0 equal to 0.0, as lax's sort orders them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from ..dtypes import is_float
from .core import FunctionBuilder, LoweringContext, constant, i64_array, lowering_rules, physical, tensor_type


def _slice(ctx: LoweringContext, x: str, *, start_indices: Any, limit_indices: Any, strides: Any) -> str:
    strides = strides or (1,) * len(start_indices)
    attrs = {"start_indices": i64_array(start_indices), "limit_indices": i64_array(limit_indices),
             "strides": i64_array(strides)}  # fmt: skip
    return ctx.fb.op1("stablehlo.slice", [x], ctx.out_type(), attrs)


def _squeeze(ctx: LoweringContext, x: str, *, dimensions: Any) -> str:
    return ctx.fb.op1("stablehlo.reshape", [x], ctx.out_type())


def _rev(ctx: LoweringContext, x: str, *, dimensions: Any) -> str:
    return ctx.fb.op1("stablehlo.reverse", [x], ctx.out_type(), {"dimensions": i64_array(dimensions)})


def _concatenate(ctx: LoweringContext, *xs: str, dimension: int) -> str:
    return ctx.fb.op1("stablehlo.concatenate", list(xs), ctx.out_type(), {"dimension": f"{dimension} : i64"})


def _pad(ctx: LoweringContext, x: str, value: str, *, padding_config: Any) -> str:
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    attrs = {"edge_padding_low": i64_array(lo), "edge_padding_high": i64_array(hi),
             "interior_padding": i64_array(interior)}  # fmt: skip
    return ctx.fb.op1("stablehlo.pad", [x, value], ctx.out_type(), attrs)


def same_type_indices(fb: FunctionBuilder, indices: Any, avals: Any) -> list[str]:
    """Start indices converted to one integer type (the first's, or int64 where they differ)."""
    dtypes = {np.dtype(a.dtype) for a in avals}
    if len(dtypes) <= 1:
        return list(indices)
    target = tensor_type(ShapedArray((), np.dtype(np.int64)))
    return [i if fb.types[i] == target else fb.op1("stablehlo.convert", [i], target) for i in indices]


def dynamic_slice(fb: FunctionBuilder, x: str, starts: list[str], sizes: Any, out_type: str) -> str:
    return fb.op1("stablehlo.dynamic_slice", [x, *starts], out_type, {"slice_sizes": i64_array(sizes)})


def dynamic_update_slice(fb: FunctionBuilder, x: str, update: str, starts: list[str]) -> str:
    return fb.op1("stablehlo.dynamic_update_slice", [x, update, *starts], fb.types[x])


def _dynamic_slice(ctx: LoweringContext, x: str, *indices: str, slice_sizes: Any) -> str:
    starts = same_type_indices(ctx.fb, indices, ctx.avals_in[1:])
    return dynamic_slice(ctx.fb, x, starts, slice_sizes, ctx.out_type())


def _dynamic_update_slice(ctx: LoweringContext, x: str, update: str, *indices: str) -> str:
    return dynamic_update_slice(ctx.fb, x, update, same_type_indices(ctx.fb, indices, ctx.avals_in[2:]))


# ----------------------------------------------------------------------------------------------
# sort: the comparator region says "a before b", lexicographically over the first num_keys operands.


def _canonical(fb: FunctionBuilder, x: str, dtype: np.dtype) -> str:
    """A float with -0.0 made 0.0 and every NaN the one positive NaN, so that a total order
    compares it as lax's sort does."""
    typ = fb.types[x]
    bool_type = "tensor<i1>"
    zero = constant(fb, np.zeros((), dtype))
    is_zero = fb.op1("stablehlo.compare", [x, zero], bool_type,
                     {"comparison_direction": "#stablehlo<comparison_direction EQ>",
                      "compare_type": "#stablehlo<comparison_type FLOAT>"})  # fmt: skip
    x = fb.op1("stablehlo.select", [is_zero, zero, x], typ)
    is_nan = fb.op1("stablehlo.compare", [x, x], bool_type,
                    {"comparison_direction": "#stablehlo<comparison_direction NE>",
                     "compare_type": "#stablehlo<comparison_type FLOAT>"})  # fmt: skip
    return fb.op1("stablehlo.select", [is_nan, constant(fb, np.full((), np.nan, dtype)), x], typ)


def _compare(fb: FunctionBuilder, a: str, b: str, direction: str, dtype: np.dtype) -> str:
    # (bfloat16's kind is "V", not "f": ask is_float)
    kind = "TOTALORDER" if is_float(dtype) else {"i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[dtype.kind]
    attrs = {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
             "compare_type": f"#stablehlo<comparison_type {kind}>"}  # fmt: skip
    return fb.op1("stablehlo.compare", [a, b], "tensor<i1>", attrs)


def _key_parts(fb: FunctionBuilder, x: str, dtype: np.dtype) -> list[tuple[str, np.dtype]]:
    """The scalars a key compares by: a complex number's real then imaginary part."""
    if dtype.kind == "c":
        part = np.empty((), dtype).real.dtype
        typ = tensor_type(ShapedArray((), part))
        return [(fb.op1(op, [x], typ), part) for op in ("stablehlo.real", "stablehlo.imag")]
    return [(x, dtype)]


def _sort(ctx: LoweringContext, *xs: str, dimension: int, is_stable: bool, num_keys: int) -> list[str]:
    fb = ctx.fb
    scalars = [tensor_type(ShapedArray((), physical(a).dtype)) for a in ctx.avals_in]
    region = fb.region([t for t in scalars for _ in (0, 1)])  # (a0, b0, a1, b1, ...)
    rb = region.builder
    pairs: list[tuple[str, str, np.dtype]] = []
    for k in range(num_keys):
        dtype = np.dtype(ctx.avals_in[k].dtype)
        a_parts = _key_parts(rb, region.args[2 * k], dtype)
        b_parts = _key_parts(rb, region.args[2 * k + 1], dtype)
        for (a, d), (b, _) in zip(a_parts, b_parts):
            if is_float(d):
                a, b = _canonical(rb, a, d), _canonical(rb, b, d)
            pairs.append((a, b, d))
    # a < b lexicographically: built from the last key back, lt_k or (eq_k and rest).
    a, b, d = pairs[-1]
    less = _compare(rb, a, b, "LT", d)
    for a, b, d in reversed(pairs[:-1]):
        tie = rb.op1("stablehlo.and", [_compare(rb, a, b, "EQ", d), less], "tensor<i1>")
        less = rb.op1("stablehlo.or", [_compare(rb, a, b, "LT", d), tie], "tensor<i1>")
    region.ret([less])
    attrs = {"dimension": f"{dimension} : i64", "is_stable": "true" if is_stable else "false"}
    out_types = [ctx.out_type(i) for i in range(len(xs))]
    return fb.op("stablehlo.sort", list(xs), out_types, attrs, regions=[region])


lowering_rules.update({
    lax.slice_p: _slice, lax.squeeze_p: _squeeze, lax.rev_p: _rev, lax.concatenate_p: _concatenate,
    lax.pad_p: _pad, lax.dynamic_slice_p: _dynamic_slice, lax.dynamic_update_slice_p: _dynamic_update_slice,
    lax.sort_p: _sort,
})  # fmt: skip
