"""Lowering rule of top_k (stage 05); sort's, with its comparator, is in ``slicing``.

XLA has top_k as one operation of CHLO (``chlo.top_k``, the k largest along the last axis, largest
first, ties to the lower index, floats in total order: NaN above inf, -NaN below -inf, as in eager
evaluation); an other axis is moved last and back.
"""

from __future__ import annotations

from .. import lax
from ..core import ShapedArray
from .core import LoweringContext, i64_array, lowering_rules, tensor_type


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


lowering_rules[lax.top_k_p] = _top_k
