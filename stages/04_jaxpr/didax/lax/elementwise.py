"""Elementwise lax primitives: arithmetic, transcendental functions, comparisons, bitwise logic,
selection and conversion. Stage 01 introduced them.

Like jax.lax, they do no type promotion: operands must share one dtype (a Python scalar becomes
the default dtype of its kind). Shapes must match, except for size-1 and rank-0 operands.
"""

from __future__ import annotations

import enum
import operator
import warnings
from functools import partial
from typing import Any

import numpy as np

from .. import dtypes, tree_util
from ..array import Array
from ..core import Primitive, ShapedArray, Tracer, get_aval
from .standard import (
    ANY,
    BOOL_OR_INT,
    COMPLEX,
    FLOATING,
    INEXACT,
    INTEGER,
    NUMBER,
    ORDERED,
    SIGNED_NUMBER,
    broadcasting_shape,
    check_dtype,
    check_same_dtypes,
    preferred_zeros,
    sign_zeros,
    standard_primitive,
)

# ----------------------------------------------------------------------------------------------
# Unary operations: the result has the operand's shape and dtype.


def unop(name: str, numpy_fn: Any, categories: tuple[str, ...]) -> Primitive:
    """A one-operand elementwise primitive accepting the dtype ``categories``, its result in x's dtype."""
    def dtype_rule(x: ShapedArray) -> np.dtype:
        check_dtype(name, x, categories)
        return x.dtype

    return standard_primitive(name, numpy_fn, lambda x: x.shape, dtype_rule)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _sign(x: np.ndarray) -> np.ndarray:
    """-1, 0 or 1, with XLA's edge cases where NumPy's differ: sign(-0.0) is -0.0, and a complex
    z is z / |z| (0 stays 0), computed part by part, so sign(inf + 1j) is nan + 0j."""
    if x.dtype.kind == "c":
        magnitude = _complex_abs(x)
        safe = np.where(magnitude == 0, 1, magnitude)
        unit = np.empty_like(x)  # set the parts: 1j * nan would also spoil the real part
        unit.real, unit.imag = x.real / safe, x.imag / safe
        return np.where(magnitude == 0, x, unit)
    if dtypes.is_float(x.dtype):
        return np.where(x == 0, x, np.sign(x))  # keeps the sign of a zero, and nan
    return np.sign(x)


def _complex_abs(x: np.ndarray) -> np.ndarray:
    """|z|, as XLA computes it: nan if either part is nan (NumPy gives inf for inf + nan j)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x.real) | np.isnan(x.imag), np.nan, np.abs(x)).astype(x.real.dtype)


def _abs(x: np.ndarray) -> np.ndarray:
    return _complex_abs(x) if x.dtype.kind == "c" else np.abs(x)


neg_p = unop("neg", np.negative, NUMBER)
sign_p = unop("sign", _sign, NUMBER)
exp_p = unop("exp", np.exp, INEXACT)
log_p = unop("log", np.log, INEXACT)
log1p_p = unop("log1p", np.log1p, INEXACT)
expm1_p = unop("expm1", np.expm1, INEXACT)
sin_p = unop("sin", np.sin, INEXACT)
cos_p = unop("cos", np.cos, INEXACT)
tan_p = unop("tan", np.tan, INEXACT)
tanh_p = unop("tanh", np.tanh, INEXACT)
logistic_p = unop("logistic", _logistic, INEXACT)
sqrt_p = unop("sqrt", np.sqrt, INEXACT)
rsqrt_p = unop("rsqrt", _rsqrt, INEXACT)
not_p = unop("not", np.invert, BOOL_OR_INT)
exp2_p = unop("exp2", np.exp2, INEXACT)
sinh_p = unop("sinh", np.sinh, INEXACT)
cosh_p = unop("cosh", np.cosh, INEXACT)
asin_p = unop("asin", np.arcsin, INEXACT)
acos_p = unop("acos", np.arccos, INEXACT)
atan_p = unop("atan", np.arctan, INEXACT)
asinh_p = unop("asinh", np.arcsinh, INEXACT)
acosh_p = unop("acosh", np.arccosh, INEXACT)
atanh_p = unop("atanh", np.arctanh, INEXACT)
cbrt_p = unop("cbrt", np.cbrt, (FLOATING,))
floor_p = unop("floor", np.floor, (FLOATING,))
ceil_p = unop("ceil", np.ceil, (FLOATING,))
square_p = unop("square", np.square, NUMBER)  # integers wrap around, as in XLA
# The identity when evaluated; it matters to differentiation (stage 02 on), which sees no
# dependence of its result on its operand.
stop_gradient_p = unop("stop_gradient", lambda x: x, ANY)


def _is_finite_dtype(x: ShapedArray) -> np.dtype:
    check_dtype("is_finite", x, (FLOATING,))
    return np.dtype(np.bool_)


is_finite_p = standard_primitive("is_finite", np.isfinite, lambda x: x.shape, _is_finite_dtype)


class RoundingMethod(enum.IntEnum):
    """How lax.round breaks ties: 0.5 to 1 and -0.5 to -1, or 0.5 to 0 and 1.5 to 2."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _round(x: np.ndarray, *, rounding_method: RoundingMethod) -> np.ndarray:
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    # np.round breaks ties to even. Away from zero: x - trunc(x) is exact, so compare it with 1/2.
    # (floor(x + 0.5) would be wrong for 0.49999999999999994, whose sum with 0.5 rounds up to 1.)
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)


def _round_dtype(x: ShapedArray, *, rounding_method: RoundingMethod) -> np.dtype:
    check_dtype("round", x, (FLOATING,))
    return x.dtype


round_p = standard_primitive("round", _round, lambda x, **_: x.shape, _round_dtype)


def _reduce_precision(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """Round ``x`` to the float format with these bit counts, keeping its dtype: the mantissa to
    nearest, ties to even (a bias added to the bits below the kept ones, then cut off); then an
    exponent past the format's range becomes a signed infinity, one below its normal range a
    signed zero. NaNs stay as they are. XLA's algorithm, on the integer view of the bits."""
    info = dtypes.finfo(x.dtype)
    width = 8 * x.dtype.itemsize
    src_mantissa, src_exponent = info.nmant, width - 1 - info.nmant
    word = np.dtype(f"uint{width}").type
    bits = x.view(f"uint{width}").copy()
    one = word(1)
    if mantissa_bits < src_mantissa:
        shift = word(src_mantissa - mantissa_bits)
        last_kept = one << shift
        bias = ((bits & last_kept) >> shift) + (last_kept >> one) - one  # ties round to the even one
        bits = (bits + bias) & ~(last_kept - one)
    if exponent_bits < src_exponent:
        sign = bits & (one << word(width - 1))
        exponent_mask = ((one << word(src_exponent)) - one) << word(src_mantissa)
        bias, reduced_bias = (1 << (src_exponent - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > (word(bias + reduced_bias) << word(src_mantissa))
        underflows = exponent <= (word(bias - reduced_bias) << word(src_mantissa))
        bits = np.where(overflows, sign | exponent_mask, np.where(underflows, sign, bits))
    out = bits.view(x.dtype)
    return np.where(np.isnan(x), x, out) if mantissa_bits < src_mantissa else out


def _reduce_precision_shape(x: ShapedArray, *, exponent_bits: int, mantissa_bits: int) -> tuple[int, ...]:
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
    return x.shape


def _reduce_precision_dtype(x: ShapedArray, **params: int) -> np.dtype:
    check_dtype("reduce_precision", x, (FLOATING,))
    return x.dtype


reduce_precision_p = standard_primitive(
    "reduce_precision", _reduce_precision, _reduce_precision_shape, _reduce_precision_dtype
)


def _real_dtype(x: ShapedArray) -> np.dtype:
    check_dtype("real", x, (COMPLEX,))
    return np.empty((), x.dtype).real.dtype


def _abs_dtype(x: ShapedArray) -> np.dtype:
    check_dtype("abs", x, SIGNED_NUMBER)
    # |complex| is real: complex64 -> float32, complex128 -> float64.
    return _real_dtype(x) if x.dtype.kind == "c" else x.dtype


abs_p = standard_primitive("abs", _abs, lambda x: x.shape, _abs_dtype)


real_p = standard_primitive("real", np.real, lambda x: x.shape, _real_dtype)
imag_p = standard_primitive("imag", np.imag, lambda x: x.shape, _real_dtype)


# conj and complex make complex numbers of float32 and float64 parts only (XLA has no complex32).
# conj takes a real x too, giving x + 0j; its parameter input_dtype says which it had, for the
# transpose (stage 06), which must give a real x a real cotangent.
def _complex_of(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex128 if dtype in (np.float64, np.complex128) else np.complex64)


def _conj(x: np.ndarray, *, input_dtype: np.dtype) -> np.ndarray:
    # (a real x's imaginary part is +0, as XLA's complex(x, 0); np.conj would negate it to -0)
    return np.conj(x) if x.dtype.kind == "c" else x.astype(_complex_of(x.dtype))


def _conj_dtype(x: ShapedArray, *, input_dtype: np.dtype) -> np.dtype:
    check_dtype("conj", x, ("float32", COMPLEX, "float64"))  # JAX's order, in its message
    return _complex_of(x.dtype)


def _complex(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + iy, part by part: x + 1j * y would turn an infinite y into a NaN real part."""
    x, y = np.broadcast_arrays(x, y)
    out = np.empty(x.shape, _complex_of(x.dtype))
    out.real, out.imag = x, y
    return out


def _complex_dtype(x: ShapedArray, y: ShapedArray) -> np.dtype:
    check_dtype("complex", x, ("float32", "float64"), position=0)
    check_dtype("complex", y, ("float32", "float64"), position=1)
    return _complex_of(check_same_dtypes("complex", [x, y]))


conj_p = standard_primitive("conj", _conj, lambda x, **_: x.shape, _conj_dtype)
complex_p = standard_primitive("complex", _complex, partial(broadcasting_shape, "complex"), _complex_dtype)


def _integer_pow_dtype(x: ShapedArray, *, y: int) -> np.dtype:
    check_dtype("integer_pow", x, NUMBER)
    if y < 0 and x.dtype.kind in "iu":
        raise TypeError(
            f"Integers cannot be raised to negative powers, got integer_pow({x.str_short()}, {y})"
        )
    return x.dtype


def _integer_pow(x: np.ndarray, *, y: int) -> np.ndarray:
    if x.dtype.kind in "iu":
        # Compute in 64 bits and keep the low bits: the same wrap-around as XLA's integers.
        wide = np.uint64 if x.dtype.kind == "u" else np.int64
        return np.power(x.astype(wide), wide(y)).astype(x.dtype)
    return x**y


integer_pow_p = standard_primitive(
    "integer_pow", _integer_pow, lambda x, *, y: x.shape, _integer_pow_dtype
)

# ----------------------------------------------------------------------------------------------
# Binary operations: both operands have one dtype; the result has it too (bool for comparisons).


def binop(name: str, numpy_fn: Any, categories: tuple[str, ...], out_bool: bool = False) -> Primitive:
    """A two-operand elementwise primitive: operands of one dtype; bool out if ``out_bool``."""
    def dtype_rule(x: ShapedArray, y: ShapedArray) -> np.dtype:
        check_dtype(name, x, categories, position=0)
        check_dtype(name, y, categories, position=1)
        dtype = check_same_dtypes(name, [x, y])
        return np.dtype(np.bool_) if out_bool else dtype

    return standard_primitive(name, numpy_fn, partial(broadcasting_shape, name), dtype_rule)


def _div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Division; integers round toward zero (C semantics), and x / 0 is -1 as in XLA."""
    if x.dtype.kind not in "iu":
        return np.true_divide(x, y)
    safe_y = np.where(y == 0, 1, y)
    quotient = np.abs(x) // np.abs(safe_y) if x.dtype.kind == "i" else x // safe_y
    if x.dtype.kind == "i":
        quotient = np.where((x < 0) != (y < 0), -quotient, quotient)
    return np.where(y == 0, np.array(-1).astype(x.dtype), quotient)


def _rem(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Remainder with the sign of x (C fmod); an integer x % 0 is x, as in XLA."""
    if x.dtype.kind in "iu":
        return np.where(y == 0, x, np.fmod(x, np.where(y == 0, 1, y)))
    return np.fmod(x, y)


def _lexicographic_greater(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x > y for complex numbers, comparing (real, imag) lexicographically, as XLA does."""
    return (x.real > y.real) | ((x.real == y.real) & (x.imag > y.imag))


def _max(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":  # y on ties and NaNs: XLA selects x only where x > y
        return np.where(_lexicographic_greater(x, y), x, y)
    out = np.maximum(x, y)  # propagates NaN, as XLA does
    if not dtypes.is_float(x.dtype):
        return out
    return sign_zeros(out, preferred_zeros(x, False) | preferred_zeros(y, False), negative=False)


def _min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return np.where(_lexicographic_greater(y, x), x, y)
    out = np.minimum(x, y)
    if not dtypes.is_float(x.dtype):
        return out
    return sign_zeros(out, preferred_zeros(x, True) | preferred_zeros(y, True), negative=True)


add_p = binop("add", np.add, NUMBER)
sub_p = binop("sub", np.subtract, NUMBER)
mul_p = binop("mul", np.multiply, NUMBER)
div_p = binop("div", _div, NUMBER)
rem_p = binop("rem", _rem, (INTEGER, FLOATING))
max_p = binop("max", _max, ANY)
min_p = binop("min", _min, ANY)
and_p = binop("and", np.bitwise_and, BOOL_OR_INT)
or_p = binop("or", np.bitwise_or, BOOL_OR_INT)
eq_p = binop("eq", np.equal, ANY, out_bool=True)
ne_p = binop("ne", np.not_equal, ANY, out_bool=True)
lt_p = binop("lt", np.less, ORDERED, out_bool=True)
le_p = binop("le", np.less_equal, ORDERED, out_bool=True)
gt_p = binop("gt", np.greater, ORDERED, out_bool=True)
ge_p = binop("ge", np.greater_equal, ORDERED, out_bool=True)


def _atan2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The angle of the point (y, x): atan(x / y) in the right quadrant. For complex numbers the
    same formula continued analytically, -i log((y + i x) / sqrt(x^2 + y^2)), as XLA has it."""
    if x.dtype.kind == "c":
        return -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))
    return np.arctan2(x, y)


atan2_p = binop("atan2", _atan2, INEXACT)
nextafter_p = binop("nextafter", np.nextafter, (FLOATING,))  # subnormals too: XLA keeps them here

# ----------------------------------------------------------------------------------------------
# clamp(min, x, max): x limited to [min, max] elementwise; min and max are scalars or have x's shape.


def _clamp_shape(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> tuple[int, ...]:
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape not in ((), x.shape):
            raise TypeError(
                f"clamp requires {name}.shape == operand.shape or {name}.shape == (), got "
                f"{bound.shape} for an operand of shape {x.shape}."
            )
    return x.shape


def _clamp_dtype(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> np.dtype:
    return check_same_dtypes("clamp", [lo, x, hi], tip="jnp.clip")


def _clamp(lo: np.ndarray, x: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return _min(_max(x, lo), hi)  # max first: where min > max, the result is max, as in XLA


clamp_p = standard_primitive("clamp", _clamp, _clamp_shape, _clamp_dtype)


def _pow_dtype(x: ShapedArray, y: ShapedArray) -> np.dtype:
    """pow: an inexact base, raised to the same dtype or to any integer exponent."""
    check_dtype("pow", x, INEXACT, position=0)
    check_dtype("pow", y, (INTEGER, *INEXACT), position=1)
    if y.dtype.kind not in "iu":
        check_same_dtypes("pow", [x, y])
    return x.dtype


def _pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y. NumPy's float power is often an ulp off, and not the same way for a 0-d array as for
    a longer one; XLA's nearly never is. Floats are raised in a wider type (float64, or for float64
    the long double, 80 bits on x86) and the result is rounded once, to their dtype."""
    if dtypes.is_float(x.dtype):
        wider = np.float64 if x.dtype.itemsize < 8 else np.longdouble
        wide = np.power(x.astype(wider), y.astype(wider) if dtypes.is_float(y.dtype) else y)
        return wide.astype(x.dtype)  # here, where overflow to inf is quiet
    return np.power(x, y)


pow_p = standard_primitive("pow", _pow, partial(broadcasting_shape, "pow"), _pow_dtype)

# ----------------------------------------------------------------------------------------------
# select_n(which, *cases): elementwise, pick cases[which]; which is bool (two cases) or int32.


def _select_n_shape(which: ShapedArray, *cases: ShapedArray) -> tuple[int, ...]:
    if not cases:
        raise ValueError("select_n requires at least one case.")
    shapes = {c.shape for c in cases}
    if len(shapes) > 1:
        raise TypeError(f"select_n cases must have the same shapes, got {sorted(shapes)}.")
    shape = cases[0].shape
    if which.shape not in ((), shape):
        raise TypeError(
            f"select_n which must be scalar or have the same shape as cases, got which shape "
            f"{which.shape} but case shape {shape}."
        )
    return shape


def _select_n_dtype(which: ShapedArray, *cases: ShapedArray) -> np.dtype:
    if which.dtype != np.bool_ and which.dtype != np.int32:
        raise TypeError(f"select_n which must be boolean or int32, got {which.dtype.name}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select_n with a boolean which takes at most two cases.")
    return check_same_dtypes("select", list(cases), tip="jnp.where")


def _select_n(which: np.ndarray, *cases: np.ndarray) -> np.ndarray:
    return np.choose(which.astype(np.int32), cases, mode="clip")


def _select_n_weak(which: ShapedArray, *cases: ShapedArray) -> bool:
    return all(c.weak_type for c in cases)


select_n_p = standard_primitive("select_n", _select_n, _select_n_shape, _select_n_dtype, _select_n_weak)


# ----------------------------------------------------------------------------------------------
# convert_element_type: change dtype, with XLA's rules where NumPy's differ.


def _convert(x: np.ndarray, *, new_dtype: np.dtype, weak_type: bool) -> np.ndarray:
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = x.real  # complex to real (bool included) keeps only the real part, as XLA does
    if new_dtype == np.bool_:
        return x != 0
    if dtypes.is_float(x.dtype) and new_dtype.kind in "iu":
        return _float_to_int(x, new_dtype)
    return x.astype(new_dtype)


def _float_to_int(x: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
    """Truncate toward zero, saturate at the integer limits, and map NaN to 0, as XLA does."""
    info = np.iinfo(new_dtype)
    t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
    too_big, too_small = t >= float(info.max), t <= float(info.min)
    out = np.where(too_big | too_small, 0, t).astype(new_dtype)
    out[too_big] = info.max
    out[too_small] = info.min
    return out


def _convert_dtype(x: ShapedArray, *, new_dtype: Any, weak_type: bool) -> Any:
    if isinstance(x.dtype, dtypes.ExtendedDType) or isinstance(new_dtype, dtypes.ExtendedDType):
        # A key is no number: random.key_data and random.wrap_key_data go between keys and words.
        raise ValueError(f"Cannot convert_element_type from {x.dtype} to {new_dtype}")
    return new_dtype


convert_element_type_p = standard_primitive(
    "convert_element_type",
    _convert,
    lambda x, *, new_dtype, weak_type: x.shape,
    _convert_dtype,
    lambda x, *, new_dtype, weak_type: weak_type,
)

# ----------------------------------------------------------------------------------------------
# The functions users call.


def neg(x: Any) -> Any:
    """Elementwise -x."""
    return neg_p.bind(x)


def sign(x: Any) -> Any:
    """Elementwise sign of x: -1, 0 or 1 (x / |x| for complex numbers), in x's dtype."""
    return sign_p.bind(x)


def abs(x: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise |x|; a complex x gives its real modulus."""
    return abs_p.bind(x)


def real(x: Any) -> Any:
    """The real part of a complex x, in the matching real dtype."""
    return real_p.bind(x)


def imag(x: Any) -> Any:
    """The imaginary part of a complex x, in the matching real dtype."""
    return imag_p.bind(x)


def conj(x: Any) -> Any:
    """The complex conjugate of x; a real x (float32 or float64) becomes complex, x + 0j."""
    return conj_p.bind(x, input_dtype=get_aval(x).dtype)


def complex(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """x + iy, of two float32 or two float64 arrays: complex64 or complex128."""
    return complex_p.bind(x, y)


def exp(x: Any) -> Any:
    """Elementwise e to the power x."""
    return exp_p.bind(x)


def log(x: Any) -> Any:
    """Elementwise natural logarithm of x."""
    return log_p.bind(x)


def log1p(x: Any) -> Any:
    """Elementwise log(1 + x), accurate for x near 0."""
    return log1p_p.bind(x)


def expm1(x: Any) -> Any:
    """Elementwise exp(x) - 1, accurate for x near 0."""
    return expm1_p.bind(x)


def sin(x: Any) -> Any:
    """Elementwise sine of x (radians)."""
    return sin_p.bind(x)


def cos(x: Any) -> Any:
    """Elementwise cosine of x (radians)."""
    return cos_p.bind(x)


def tan(x: Any) -> Any:
    """Elementwise tangent of x (radians)."""
    return tan_p.bind(x)


def tanh(x: Any) -> Any:
    """Elementwise hyperbolic tangent of x."""
    return tanh_p.bind(x)


def logistic(x: Any) -> Any:
    """Elementwise logistic sigmoid 1 / (1 + exp(-x))."""
    return logistic_p.bind(x)


def sqrt(x: Any) -> Any:
    """Elementwise square root of x."""
    return sqrt_p.bind(x)


def rsqrt(x: Any) -> Any:
    """Elementwise reciprocal square root 1 / sqrt(x)."""
    return rsqrt_p.bind(x)


def bitwise_not(x: Any) -> Any:
    """Elementwise bitwise NOT of an integer x, or logical NOT of a bool x."""
    return not_p.bind(x)


def exp2(x: Any) -> Any:
    """2 to the power x, elementwise."""
    return exp2_p.bind(x)


def sinh(x: Any) -> Any:
    """Hyperbolic sine, elementwise."""
    return sinh_p.bind(x)


def cosh(x: Any) -> Any:
    """Hyperbolic cosine, elementwise."""
    return cosh_p.bind(x)


def asin(x: Any) -> Any:
    """Inverse sine, elementwise."""
    return asin_p.bind(x)


def acos(x: Any) -> Any:
    """Inverse cosine, elementwise."""
    return acos_p.bind(x)


def atan(x: Any) -> Any:
    """Inverse tangent, elementwise."""
    return atan_p.bind(x)


def asinh(x: Any) -> Any:
    """Inverse hyperbolic sine, elementwise."""
    return asinh_p.bind(x)


def acosh(x: Any) -> Any:
    """Inverse hyperbolic cosine, elementwise."""
    return acosh_p.bind(x)


def atanh(x: Any) -> Any:
    """Inverse hyperbolic tangent, elementwise."""
    return atanh_p.bind(x)


def cbrt(x: Any) -> Any:
    """Cube root, elementwise (real: cbrt(-8.0) is -2.0)."""
    return cbrt_p.bind(x)


def floor(x: Any) -> Any:
    """The largest integer not above x, elementwise, in x's float dtype."""
    return floor_p.bind(x)


def ceil(x: Any) -> Any:
    """The smallest integer not below x, elementwise, in x's float dtype."""
    return ceil_p.bind(x)


def round(x: Any, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO) -> Any:  # noqa: A001 - JAX's name
    """Round to the nearest integer, ties away from zero unless ``rounding_method`` says to even."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def is_finite(x: Any) -> Any:
    """True where x is neither infinite nor NaN."""
    return is_finite_p.bind(x)


def square(x: Any) -> Any:
    """x * x, elementwise."""
    return square_p.bind(x)


def stop_gradient(x: Any) -> Any:
    """The value of every leaf of the pytree ``x``, as a constant to differentiation."""
    return tree_util.tree_map(stop_gradient_p.bind, x)


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """``operand`` rounded to a float format with ``exponent_bits`` and ``mantissa_bits`` (bfloat16
    is 8 and 7, float16 5 and 10), its dtype unchanged: a narrower type simulated in a wider one."""
    exponent_bits = operator.index(exponent_bits)
    mantissa_bits = operator.index(mantissa_bits)
    return reduce_precision_p.bind(operand, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)


def integer_pow(x: Any, y: int) -> Any:
    """x to the fixed integer power ``y`` (a Python int, negative only for inexact x)."""
    return integer_pow_p.bind(x, y=int(y))


def add(x: Any, y: Any) -> Any:
    """Elementwise x + y, with no type promotion: both operands must have one dtype."""
    return add_p.bind(x, y)


def sub(x: Any, y: Any) -> Any:
    """Elementwise x - y, with no type promotion: both operands must have one dtype."""
    return sub_p.bind(x, y)


def mul(x: Any, y: Any) -> Any:
    """Elementwise x * y, with no type promotion: both operands must have one dtype."""
    return mul_p.bind(x, y)


def div(x: Any, y: Any) -> Any:
    """Elementwise x / y; integers round toward zero, as in C."""
    return div_p.bind(x, y)


def rem(x: Any, y: Any) -> Any:
    """Elementwise remainder of x / y with the sign of x (C's fmod), not Python's %."""
    return rem_p.bind(x, y)


def pow(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise x to the power y, for an inexact x and y of its dtype or an integer dtype."""
    return pow_p.bind(x, y)


def max(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise maximum of x and y; NaN if either is NaN."""
    return max_p.bind(x, y)


def min(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise minimum of x and y; NaN if either is NaN."""
    return min_p.bind(x, y)


def bitwise_and(x: Any, y: Any) -> Any:
    """Elementwise bitwise AND of integers, or logical AND of bools."""
    return and_p.bind(x, y)


def bitwise_or(x: Any, y: Any) -> Any:
    """Elementwise bitwise OR of integers, or logical OR of bools."""
    return or_p.bind(x, y)


def eq(x: Any, y: Any) -> Any:
    """Elementwise x == y, as bools."""
    return eq_p.bind(x, y)


def ne(x: Any, y: Any) -> Any:
    """Elementwise x != y, as bools."""
    return ne_p.bind(x, y)


def lt(x: Any, y: Any) -> Any:
    """Elementwise x < y, as bools."""
    return lt_p.bind(x, y)


def le(x: Any, y: Any) -> Any:
    """Elementwise x <= y, as bools."""
    return le_p.bind(x, y)


def gt(x: Any, y: Any) -> Any:
    """Elementwise x > y, as bools."""
    return gt_p.bind(x, y)


def ge(x: Any, y: Any) -> Any:
    """Elementwise x >= y, as bools."""
    return ge_p.bind(x, y)


def atan2(x: Any, y: Any) -> Any:
    """The angle of the point (y, x), in [-pi, pi]: atan(x / y) in the right quadrant."""
    return atan2_p.bind(x, y)


def nextafter(x1: Any, x2: Any) -> Any:
    """The float next to x1 in the direction of x2, elementwise."""
    return nextafter_p.bind(x1, x2)


def clamp(min: Any, x: Any, max: Any) -> Any:  # noqa: A002 - JAX's names
    """x limited to [min, max], elementwise; min and max are scalars or have x's shape."""
    return clamp_p.bind(min, x, max)


def select_n(which: Any, *cases: Any) -> Any:
    """Pick, elementwise, ``cases[which]``: a bool ``which`` selects between two cases, an int32 one among many."""
    return select_n_p.bind(which, *cases)


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """Elementwise ``on_true`` where ``pred``, else ``on_false``: select_n with the cases reversed."""
    return select_n_p.bind(pred, on_false, on_true)


def convert_element_type(operand: Any, new_dtype: Any) -> Any:
    """Cast to ``new_dtype`` (canonicalized: 32-bit while x64 is off); the result is strong.
    Complex to real keeps the real part, with NumPy's ComplexWarning, as in JAX."""
    new_dtype = dtypes.check_user_dtype(new_dtype, "convert_element_type")
    if new_dtype.kind != "c" and _is_complex(operand):
        warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=2)  # fmt: skip
    return convert_to(operand, new_dtype, weak_type=False)


def _is_complex(x: Any) -> bool:
    return type(x) is complex or getattr(getattr(x, "dtype", None), "kind", None) == "c"


def convert_to(operand: Any, new_dtype: np.dtype, weak_type: bool) -> Any:
    """Cast to ``new_dtype``, already checked and canonical, with the given weak type (lax.full
    keeps a Python scalar's weak type). An array already of that type is returned as it is, as
    JAX does: no equation."""
    if isinstance(operand, (Array, Tracer)):
        aval = operand.aval
        if aval.dtype == new_dtype and aval.weak_type == weak_type:
            return operand
    constant = _convert_constant(operand, new_dtype)
    if constant is not None:
        return Array(constant, weak_type)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type)


def _convert_constant(x: Any, new_dtype: np.dtype) -> np.ndarray | None:
    """A Python or NumPy scalar is a constant, which JAX converts at once with NumPy's rules:
    so ``convert_element_type(1j, bool)`` is True (the primitive, as XLA, keeps only the real part),
    a Python int wraps (2**40 to uint8 is 0), and 1j to float32 is NumPy's TypeError. Inexact to
    integer stays with the primitive, which saturates where NumPy's result is undefined.
    None: not such a constant."""
    is_constant = type(x) in dtypes.PYTHON_SCALAR_DTYPES or (
        isinstance(x, np.generic) and x.dtype in dtypes.SUPPORTED_DTYPES
    )
    if not is_constant or (new_dtype.kind in "iu" and not isinstance(x, (bool, int, np.bool_, np.integer))):
        return None
    try:
        if type(x) is int:  # as a NumPy int64 first, which then wraps
            return np.asarray(x).astype(new_dtype)
        return np.asarray(x, dtype=new_dtype)
    except OverflowError:  # beyond 64 bits: the primitive's error says what went wrong
        return None
