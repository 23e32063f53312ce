"""Lowering rules of the elementwise primitives: arithmetic, comparisons, conversions, bits,
transcendental and special functions (stage 05).

Most are one StableHLO (or CHLO, its companion dialect of composite operations that XLA expands)
operation of the same name. didax's lax broadcasts scalars and size-1 axes itself, as NumPy does,
where StableHLO wants equal shapes: ``broadcast`` below makes them equal first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from .core import LoweringContext, constant, i64_array, lowering_rules, tensor_type


def broadcast(ctx: LoweringContext, x: str, aval: ShapedArray, shape: tuple[int, ...]) -> str:
    """``x`` (of type ``aval``) broadcast to ``shape``, aligning trailing axes, as lax does."""
    if aval.shape == shape:
        return x
    rank = len(shape)
    dims = range(rank - len(aval.shape), rank)
    out = tensor_type(ShapedArray(shape, aval.dtype))
    return ctx.fb.op1("stablehlo.broadcast_in_dim", [x], out, {"broadcast_dimensions": i64_array(dims)})


def _operands(ctx: LoweringContext, args: tuple[str, ...]) -> list[str]:
    """The operands broadcast to the output's shape."""
    shape = ctx.avals_out[0].shape
    return [broadcast(ctx, x, a, shape) for x, a in zip(args, ctx.avals_in)]


def simple(op_name: str) -> Any:
    """The rule of a primitive that is one operation ``op_name`` on its (broadcast) operands."""

    def rule(ctx: LoweringContext, *args: str, **params: Any) -> str:
        return ctx.fb.op1(op_name, _operands(ctx, args), ctx.out_type())

    rule.__name__ = f"lower_{op_name.split('.')[-1]}"
    return rule


_SIMPLE = {
    lax.add_p: "stablehlo.add", lax.sub_p: "stablehlo.subtract", lax.mul_p: "stablehlo.multiply",
    lax.max_p: "stablehlo.maximum",
    lax.min_p: "stablehlo.minimum", lax.atan2_p: "stablehlo.atan2",
    lax.neg_p: "stablehlo.negate", lax.sign_p: "stablehlo.sign", lax.exp_p: "stablehlo.exponential",
    lax.log_p: "stablehlo.log", lax.log1p_p: "stablehlo.log_plus_one",
    lax.expm1_p: "stablehlo.exponential_minus_one", lax.sin_p: "stablehlo.sine",
    lax.cos_p: "stablehlo.cosine", lax.tan_p: "stablehlo.tan", lax.tanh_p: "stablehlo.tanh",
    lax.logistic_p: "stablehlo.logistic", lax.sqrt_p: "stablehlo.sqrt", lax.rsqrt_p: "stablehlo.rsqrt",
    lax.cbrt_p: "stablehlo.cbrt", lax.floor_p: "stablehlo.floor", lax.ceil_p: "stablehlo.ceil",
    lax.abs_p: "stablehlo.abs", lax.is_finite_p: "stablehlo.is_finite", lax.real_p: "stablehlo.real",
    lax.imag_p: "stablehlo.imag", lax.complex_p: "stablehlo.complex", lax.not_p: "stablehlo.not", lax.and_p: "stablehlo.and",
    lax.or_p: "stablehlo.or", lax.xor_p: "stablehlo.xor", lax.shift_left_p: "stablehlo.shift_left",
    lax.shift_right_logical_p: "stablehlo.shift_right_logical",
    lax.shift_right_arithmetic_p: "stablehlo.shift_right_arithmetic",
    lax.population_count_p: "stablehlo.popcnt", lax.clz_p: "stablehlo.count_leading_zeros",
    lax.sinh_p: "chlo.sinh", lax.cosh_p: "chlo.cosh", lax.asin_p: "chlo.asin", lax.acos_p: "chlo.acos",
    lax.atan_p: "chlo.atan", lax.asinh_p: "chlo.asinh", lax.acosh_p: "chlo.acosh", lax.atanh_p: "chlo.atanh",
    lax.erf_p: "chlo.erf", lax.erfc_p: "chlo.erfc", lax.erf_inv_p: "chlo.erf_inv", lax.lgamma_p: "chlo.lgamma",
    lax.digamma_p: "chlo.digamma", lax.bessel_i1e_p: "chlo.bessel_i1e", lax.zeta_p: "chlo.zeta",
    lax.polygamma_p: "chlo.polygamma", lax.nextafter_p: "chlo.next_after",
}  # fmt: skip
for _prim, _op in _SIMPLE.items():
    lowering_rules[_prim] = simple(_op)


def _stop_gradient(ctx: LoweringContext, x: str) -> str:
    return x  # the identity once compiled: it only ever mattered to differentiation


def _square(ctx: LoweringContext, x: str) -> str:
    return ctx.fb.op1("stablehlo.multiply", [x, x], ctx.out_type())


def _exp2(ctx: LoweringContext, x: str) -> str:
    """2 ** x as exp(x * log 2), as JAX lowers it."""
    log2 = constant(ctx.fb, np.full(ctx.avals_in[0].shape, np.log(2), ctx.avals_in[0].dtype))
    return ctx.fb.op1("stablehlo.exponential", [ctx.fb.op1("stablehlo.multiply", [x, log2], ctx.out_type())],
                      ctx.out_type())  # fmt: skip


def _integer_pow(ctx: LoweringContext, x: str, *, y: int) -> str:
    """x ** y by repeated squaring (a negative y: its reciprocal), as JAX lowers it."""
    fb, typ = ctx.fb, ctx.out_type()
    if y == 0:
        return constant(fb, np.ones(ctx.avals_in[0].shape, ctx.avals_in[0].dtype))
    acc, base, n = None, x, abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else fb.op1("stablehlo.multiply", [acc, base], typ)
        n >>= 1
        if n:
            base = fb.op1("stablehlo.multiply", [base, base], typ)
    if y < 0:
        one = constant(fb, np.ones(ctx.avals_in[0].shape, ctx.avals_in[0].dtype))
        acc = fb.op1("stablehlo.divide", [one, acc], typ)
    return acc  # type: ignore[return-value]


def _conj(ctx: LoweringContext, x: str, *, input_dtype: Any) -> str:
    """complex(real(x), -imag(x)); a real x: complex(x, 0). (StableHLO has no conjugate.)"""
    fb, aval = ctx.fb, ctx.avals_in[0]
    if aval.dtype.kind != "c":
        return fb.op1("stablehlo.complex", [x, constant(fb, np.zeros(aval.shape, aval.dtype))], ctx.out_type())
    part = tensor_type(ShapedArray(aval.shape, np.empty((), aval.dtype).real.dtype))
    re, im = fb.op1("stablehlo.real", [x], part), fb.op1("stablehlo.imag", [x], part)
    return fb.op1("stablehlo.complex", [re, fb.op1("stablehlo.negate", [im], part)], ctx.out_type())


def _round(ctx: LoweringContext, x: str, *, rounding_method: Any) -> str:
    op = "stablehlo.round_nearest_even" if int(rounding_method) == 1 else "stablehlo.round_nearest_afz"
    return ctx.fb.op1(op, [x], ctx.out_type())


def _reduce_precision(ctx: LoweringContext, x: str, *, exponent_bits: int, mantissa_bits: int) -> str:
    attrs = {"exponent_bits": f"{exponent_bits} : i32", "mantissa_bits": f"{mantissa_bits} : i32"}
    return ctx.fb.op1("stablehlo.reduce_precision", [x], ctx.out_type(), attrs)


def compare_type(dtype: np.dtype) -> str:
    """How StableHLO compares values of ``dtype``: as floats, signed or unsigned integers."""
    kind = np.dtype(dtype).kind
    return {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}.get(kind, "FLOAT")


def compare(ctx: LoweringContext, x: str, y: str, direction: str, dtype: np.dtype, out: str) -> str:
    attrs = {
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
        "compare_type": f"#stablehlo<comparison_type {compare_type(dtype)}>",
    }
    return ctx.fb.op1("stablehlo.compare", [x, y], out, attrs)


def _comparison(direction: str) -> Any:
    def rule(ctx: LoweringContext, x: str, y: str) -> str:
        x, y = _operands(ctx, (x, y))
        return compare(ctx, x, y, direction, ctx.avals_in[0].dtype, ctx.out_type())

    return rule


for _prim, _dir in [(lax.eq_p, "EQ"), (lax.ne_p, "NE"), (lax.lt_p, "LT"), (lax.le_p, "LE"),
                    (lax.gt_p, "GT"), (lax.ge_p, "GE")]:  # fmt: skip
    lowering_rules[_prim] = _comparison(_dir)


def _select_n(ctx: LoweringContext, which: str, *cases: str) -> str:
    """select_n(which, *cases) as a tree of selects: a boolean picks between two cases; an int32
    index is compared against the middle of the range (XLA's select takes a boolean predicate)."""
    shape, typ = ctx.avals_out[0].shape, ctx.out_type()
    which_aval = ctx.avals_in[0]
    if which_aval.shape != shape:
        which = broadcast(ctx, which, which_aval, shape)
    pred_type = tensor_type(ShapedArray(shape, np.dtype(np.bool_)))

    def pick(lo: int, hi: int) -> str:  # the case for an index in [lo, hi)
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        bound = constant(ctx.fb, np.full(shape, mid, np.int32))
        pred = compare(ctx, which, bound, "LT", np.dtype(np.int32), pred_type)
        return ctx.fb.op1("stablehlo.select", [pred, pick(lo, mid), pick(mid, hi)], typ)

    if which_aval.dtype == np.bool_:  # select(pred, on_true, on_false): case 1 where true
        return ctx.fb.op1("stablehlo.select", [which, cases[1], cases[0]], typ) if len(cases) == 2 else cases[0]
    return pick(0, len(cases))


def _clamp(ctx: LoweringContext, lo: str, x: str, hi: str) -> str:
    lo, x, hi = _operands(ctx, (lo, x, hi))
    return ctx.fb.op1("stablehlo.clamp", [lo, x, hi], ctx.out_type())


def _convert(ctx: LoweringContext, x: str, *, new_dtype: Any, weak_type: bool) -> str:
    """convert_element_type with XLA's rules; two need care: complex to real keeps the real part
    (stablehlo.convert would refuse), and anything to bool means "is not zero"."""
    fb, aval = ctx.fb, ctx.avals_in[0]
    if aval.dtype.kind == "c" and np.dtype(new_dtype).kind != "c":
        real = ShapedArray(aval.shape, np.empty((), aval.dtype).real.dtype)
        x = fb.op1("stablehlo.real", [x], tensor_type(real))
        aval = real
    if np.dtype(new_dtype) == np.bool_ and aval.dtype != np.bool_:
        zero = constant(fb, np.zeros(aval.shape, aval.dtype))
        return compare(ctx, x, zero, "NE", aval.dtype, ctx.out_type())
    if tensor_type(aval) == ctx.out_type():
        return x
    return fb.op1("stablehlo.convert", [x], ctx.out_type())


def _bitcast_convert(ctx: LoweringContext, x: str, *, new_dtype: Any) -> str:
    return ctx.fb.op1("stablehlo.bitcast_convert", [x], ctx.out_type())


def _pow(ctx: LoweringContext, x: str, y: str) -> str:
    """x ** y; an integer exponent is converted to x's dtype first, as JAX lowers it."""
    x, y = _operands(ctx, (x, y))
    if ctx.avals_in[1].dtype != ctx.avals_out[0].dtype:
        y = ctx.fb.op1("stablehlo.convert", [y], ctx.out_type())
    return ctx.fb.op1("stablehlo.power", [x, y], ctx.out_type())


def _integer_division(op_name: str) -> Any:
    """div and rem. On floats, one operation. On integers, XLA defines x / 0 as -1 (all bits set)
    and x % 0 as x, and the most negative int divided by -1 as itself, with remainder 0; but its
    compiler, folding such an operation on constants, divides in C++ and the process dies
    (SIGFPE; JAX's jit crashes the same way). So those divisors are replaced by 1 first, and the
    defined results selected afterwards."""

    def rule(ctx: LoweringContext, x: str, y: str) -> str:
        x, y = _operands(ctx, (x, y))
        aval, fb, typ = ctx.avals_out[0], ctx.fb, ctx.out_type()
        if aval.dtype.kind not in "iu":
            return fb.op1(op_name, [x, y], typ)
        pred = tensor_type(ShapedArray(aval.shape, np.dtype(np.bool_)))

        def full(value: int) -> str:  # -1 of an unsigned type: all bits set
            return constant(fb, np.full(aval.shape, value).astype(aval.dtype))

        zero = compare(ctx, y, full(0), "EQ", aval.dtype, pred)
        bad = zero
        if aval.dtype.kind == "i":  # most negative / -1 overflows
            lowest = np.iinfo(aval.dtype).min
            overflow = fb.op1("stablehlo.and", [compare(ctx, x, full(lowest), "EQ", aval.dtype, pred),
                                                 compare(ctx, y, full(-1), "EQ", aval.dtype, pred)], pred)  # fmt: skip
            bad = fb.op1("stablehlo.or", [zero, overflow], pred)
        safe = fb.op1("stablehlo.select", [bad, full(1), y], typ)
        out = fb.op1(op_name, [x, safe], typ)
        if op_name == "stablehlo.divide":  # x / 1 is x already where -1 overflowed: right as it is
            return fb.op1("stablehlo.select", [zero, full(-1), out], typ)
        if aval.dtype.kind == "i":  # the remainder of the overflowing division is 0
            out = fb.op1("stablehlo.select", [overflow, full(0), out], typ)
        return fb.op1("stablehlo.select", [zero, x, out], typ)

    return rule


lowering_rules.update({
    lax.pow_p: _pow, lax.div_p: _integer_division("stablehlo.divide"), lax.rem_p: _integer_division("stablehlo.remainder"),
    lax.stop_gradient_p: _stop_gradient, lax.square_p: _square, lax.exp2_p: _exp2,
    lax.integer_pow_p: _integer_pow, lax.conj_p: _conj, lax.round_p: _round, lax.select_n_p: _select_n, lax.clamp_p: _clamp,
    lax.convert_element_type_p: _convert, lax.bitcast_convert_type_p: _bitcast_convert,
    lax.reduce_precision_p: _reduce_precision,
})  # fmt: skip
