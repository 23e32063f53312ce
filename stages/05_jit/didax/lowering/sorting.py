"""Lowering rules of sort and top_k (stage 05).

XLA's sort takes its order as a region: a comparator of two elements of every operand that says
whether the first goes before the second. didax writes the one JAX writes: the keys compared
lexicographically, floats in IEEE's total order once -0.0 is made 0.0 and every NaN the same
positive NaN, so NaNs sort last and the zeros are equal, as in eager evaluation.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, lax
from ..core import ShapedArray
from .core import FunctionBuilder, LoweringContext, constant, i64_array, lowering_rules, tensor_type
from .elementwise import compare_type


def _cmp(b: FunctionBuilder, x: str, y: str, direction: str, kind: str) -> str:
    attrs = {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
             "compare_type": f"#stablehlo<comparison_type {kind}>"}  # fmt: skip
    return b.op1("stablehlo.compare", [x, y], "tensor<i1>", attrs)


def _canonical(b: FunctionBuilder, x: str, dtype: np.dtype) -> str:
    """A float scalar with -0.0 made 0.0 and any NaN made the positive NaN."""
    typ = tensor_type(ShapedArray((), dtype))
    zero = constant(b, np.zeros((), dtype))
    x = b.op1("stablehlo.select", [_cmp(b, x, zero, "EQ", "FLOAT"), zero, x], typ)
    nan = constant(b, np.full((), np.nan, dtype))
    return b.op1("stablehlo.select", [_cmp(b, x, x, "NE", "FLOAT"), nan, x], typ)


def _keys(b: FunctionBuilder, x: str, dtype: np.dtype) -> list[tuple[str, str]]:
    """The scalar ``x`` as keys to compare, each with the comparison type it needs: a complex
    number is its real, then its imaginary part."""
    if dtype.kind == "c":
        part = np.empty((), dtype).real.dtype
        typ = tensor_type(ShapedArray((), part))
        return [(_canonical(b, b.op1(op, [x], typ), part), "TOTALORDER") for op in ("stablehlo.real", "stablehlo.imag")]
    if dtypes.is_float(dtype):
        return [(_canonical(b, x, dtype), "TOTALORDER")]
    return [(x, compare_type(dtype))]


def _sort(ctx: LoweringContext, *operands: str, dimension: int, is_stable: bool, num_keys: int) -> list[str]:
    fb = ctx.fb
    scalars = [tensor_type(ShapedArray((), a.dtype)) for a in ctx.avals_in]
    body = fb.region([t for t in scalars for _ in (0, 1)])  # (lhs, rhs) of each operand in turn
    b = body.builder
    pairs = []  # (lhs key, rhs key, comparison type), most significant first
    for k in range(num_keys):
        dtype = ctx.avals_in[k].dtype
        lhs, rhs = _keys(b, body.args[2 * k], dtype), _keys(b, body.args[2 * k + 1], dtype)
        pairs += [(lk, rk, kind) for (lk, kind), (rk, _) in zip(lhs, rhs)]
    # Lexicographic: lt(k0) or (eq(k0) and (lt(k1) or (eq(k1) and ...))), built from the last key.
    less = None
    for lk, rk, kind in reversed(pairs):
        lt = _cmp(b, lk, rk, "LT", kind)
        if less is not None:
            tied = b.op1("stablehlo.and", [_cmp(b, lk, rk, "EQ", kind), less], "tensor<i1>")
            lt = b.op1("stablehlo.or", [lt, tied], "tensor<i1>")
        less = lt
    body.ret([less])  # type: ignore[list-item]
    attrs = {"dimension": f"{dimension} : i64", "is_stable": "true" if is_stable else "false"}
    return fb.op("stablehlo.sort", list(operands), [ctx.out_type(i) for i in range(len(operands))], attrs,
                 regions=[body])  # fmt: skip


def _top_k(ctx: LoweringContext, x: str, *, k: int, axis: int) -> list[str]:
    """chlo.top_k works on the last axis: another axis is moved there and back."""
    fb, aval = ctx.fb, ctx.avals_in[0]
    last = aval.ndim - 1
    perm = list(range(aval.ndim))
    perm[axis], perm[last] = last, axis  # a swap is its own inverse
    moved = [ShapedArray(tuple(a.shape[p] for p in perm), a.dtype) for a in ctx.avals_out]
    if axis != last:
        in_moved = ShapedArray(tuple(aval.shape[p] for p in perm), aval.dtype)
        x = fb.op1("stablehlo.transpose", [x], tensor_type(in_moved), {"permutation": i64_array(perm)})
    outs = fb.op("chlo.top_k", [x], [tensor_type(a) for a in moved], {"k": f"{k} : i64"})
    if axis == last:
        return outs
    return [fb.op1("stablehlo.transpose", [o], ctx.out_type(i), {"permutation": i64_array(perm)})
            for i, o in enumerate(outs)]  # fmt: skip


lowering_rules.update({lax.sort_p: _sort, lax.top_k_p: _top_k})
