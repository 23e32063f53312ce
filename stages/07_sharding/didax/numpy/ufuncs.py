"""Elementwise functions with NumPy's broadcasting and JAX's type promotion, built on lax.
Stage 01 introduced it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, to_concrete_value
from .util import (
    ArrayLike,
    as_array,
    broadcast_shapes,
    broadcast_to,
    check_arraylike,
    convert,
    is_arraylike,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    promote_shapes,
)

# ----------------------------------------------------------------------------------------------
# Arithmetic


def _is_bool(x: ArrayLike) -> bool:
    return get_aval(x).dtype.kind == "b"  # kind: comparing with np.bool_ costs ten times more


def _bool_to_int(x: ArrayLike) -> ArrayLike:
    """Arithmetic beyond + and * counts booleans as int32 (even with x64 on), as JAX does."""
    return convert(x, np.dtype(np.int32)) if _is_bool(x) else x


def add(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x + y, elementwise (logical or for booleans)."""
    x, y = promote_args("add", x, y)
    return lax.bitwise_or(x, y) if _is_bool(x) else lax.add(x, y)  # True + True is True


def subtract(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x - y, elementwise."""
    x, y = promote_args("subtract", x, y)
    if _is_bool(x):
        raise TypeError("didax.numpy.subtract does not take booleans; use logical_xor or cast first.")
    return lax.sub(x, y)


def multiply(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x * y, elementwise (logical and for booleans)."""
    x, y = promote_args("multiply", x, y)
    return lax.bitwise_and(x, y) if _is_bool(x) else lax.mul(x, y)


def true_divide(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x / y, elementwise, as a float."""
    x, y = promote_args_inexact("true_divide", x, y)
    return lax.div(x, y)


divide = true_divide


def _constant_like(x: ArrayLike, value: int) -> ArrayLike:
    """``value`` in ``x``'s dtype, weakly typed when ``x`` is, so it never changes a result's type."""
    aval = get_aval(x)
    return convert(value, aval.dtype, aval.weak_type)


def _filled_like(x: ArrayLike, value: int) -> ArrayLike:
    """``value`` in ``x``'s shape and dtype (select_n takes no scalar cases)."""
    return lax.broadcast_in_dim(_constant_like(x, value), get_aval(x).shape, ())


def _jax_constant(x: ArrayLike, value: float, shape: tuple[int, ...] | None = None) -> ArrayLike:
    """``value`` in ``x``'s dtype (broadcast to ``shape``, default x's), weakly typed only when
    ``x`` is a weak 0-d value, as JAX's ``lax._const`` makes the constants of its functions. So a
    result JAX builds from one is weak for weak scalars (logaddexp2(1.0, 2.0)) and strong for weak
    arrays (logaddexp2(jnp.full(2, 1.0), 2.0)): didax does the same where JAX does."""
    aval = get_aval(x)
    constant = convert(value, aval.dtype, aval.weak_type and aval.shape == ())
    return lax.broadcast_in_dim(constant, aval.shape if shape is None else shape, ())


def _differs_in_sign(r: ArrayLike, y: ArrayLike) -> ArrayLike:
    """Where the C-style remainder r is nonzero and has the opposite sign of the divisor y."""
    zero = _constant_like(r, 0)
    return lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))


def floor_divide(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Division rounded toward -inf. lax.div truncates toward zero (and an integer x // 0 is -1,
    all bits set), so step the quotient down where the exact result was negative and inexact."""
    x, y = promote_args("floor_divide", x, y)
    kind = get_aval(x).dtype.kind
    if kind == "c":
        raise TypeError("floor_divide does not support complex numbers.")
    # One shape for both: select_n, below, takes no broadcasting.
    x, y = broadcast_all("floor_divide", _bool_to_int(x), _bool_to_int(y))
    if kind == "u":
        return lax.div(x, y)  # no negative quotients: truncating is flooring
    if kind in "bi":
        zero = _constant_like(x, 0)
        inexact = lax.ne(lax.rem(x, y), zero)
        step_down = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), inexact)
        q = lax.div(x, y)
        return lax.select_n(step_down, q, lax.sub(q, _constant_like(q, 1)))
    return _float_floor_divide(x, y)


def _float_floor_divide(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """Python's float //: divide the exact multiple x - (x % y), then correct the sign. By zero,
    x itself is divided, so x // 0 is +-inf (nan for 0 // 0), as in JAX."""
    zero = _constant_like(x, 0)
    r = lax.rem(x, y)
    q = lax.div(lax.select_n(lax.eq(y, zero), lax.sub(x, r), x), y)
    step_down = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.sign(y), lax.sign(r)))
    return lax.select_n(step_down, q, lax.sub(q, _constant_like(q, 1)))


def remainder(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """The remainder with the sign of the divisor (Python's %), from lax.rem's C-style one.
    An integer x % 0 is 0, as in JAX (lax.rem would give x); a float one is nan."""
    x, y = promote_args("remainder", x, y)
    if get_aval(x).dtype.kind == "c":
        raise TypeError("remainder does not support complex numbers.")
    x, y = broadcast_all("remainder", _bool_to_int(x), _bool_to_int(y))
    if get_aval(y).dtype.kind in "iu":
        y = lax.select_n(lax.eq(y, _constant_like(y, 0)), y, _filled_like(y, 1))
    r = lax.rem(x, y)
    return lax.select_n(_differs_in_sign(r, y), r, lax.add(r, y))


mod = remainder


def power(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x ** y, elementwise; a known integer exponent multiplies exactly."""
    check_arraylike("power", x, y)
    exponent = _known_integer(y)
    if exponent is not None:
        # An integer exponent known now (x ** 2): exact repeated multiplication, and the base's
        # dtype is the result's, as in JAX.
        return lax.integer_pow(_bool_to_int(as_array(x)), exponent)
    x, y = promote_shapes("power", as_array(x), as_array(y))
    x_dtype, y_dtype = get_aval(x).dtype, get_aval(y).dtype
    if dtypes.is_inexact(x_dtype) and y_dtype.kind in "iu":
        # An inexact base with integer exponents: no promotion, lax.pow takes them as they are
        # (2.0 ** int32_array is a float32, strongly typed because the exponents are).
        return lax.pow(x, y)
    x, y = promote_dtypes(x, y)
    if get_aval(x).dtype.kind in "biu":
        return _integer_array_power(x, y)
    return lax.pow(x, y)


def _known_integer(y: ArrayLike) -> int | None:
    """The value of an integer scalar (or a Python bool) known now, else None.

    Known is read from the abstract value: under a transformation that still carries the value
    (stage 02's forward mode over a constant), ``x ** n`` keeps using integer_pow.
    """
    if type(y) in (int, bool):
        return int(y)
    value = to_concrete_value(y) if is_arraylike(y) else None
    if value is None or value.shape != () or value.dtype.kind not in "iu":
        return None
    return int(value)


# Only the low bits of an integer exponent are used, as in JAX: for |x| > 1 any larger power
# overflows anyway. So a negative exponent acts as its low bits: 2 ** -1 is 0, (-1) ** -1 is -1.
_EXPONENT_BITS = 6


def _integer_array_power(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """Integer x ** integer y, elementwise, by binary exponentiation over the low bits of y."""
    x, y = broadcast_all("power", _bool_to_int(x), _bool_to_int(y))
    zero = _constant_like(x, 0)
    # 0 ** y is 0 for every y but 0 (negative ones too); anything ** 0 is 1.
    zero_base = lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero))
    # JAX starts the product from strongly typed constants: an integer power is never weak.
    ones, zeros = (lax.broadcast_in_dim(convert(v, get_aval(x).dtype), get_aval(x).shape, ()) for v in (1, 0))
    acc = lax.select_n(zero_base, ones, zeros)
    for bit in range(_EXPONENT_BITS):
        bit_set = lax.ne(lax.bitwise_and(y, _constant_like(y, 1 << bit)), _constant_like(y, 0))
        acc = lax.select_n(bit_set, acc, lax.mul(acc, x))
        x = lax.mul(x, x)
    return acc


def negative(x: ArrayLike, /) -> ArrayLike:
    """-x, elementwise."""
    check_arraylike("negative", x)
    return lax.neg(x)


def positive(x: ArrayLike, /) -> ArrayLike:
    """+x, elementwise: x itself."""
    check_arraylike("positive", x)
    return as_array(x)


def absolute(x: ArrayLike, /) -> ArrayLike:
    """The absolute value of x, elementwise (real for complex x)."""
    check_arraylike("absolute", x)
    x = as_array(x)
    return x if get_aval(x).dtype.kind in "bu" else lax.abs(x)  # already non-negative


abs = absolute  # noqa: A001 - NumPy's name


def sign(x: ArrayLike, /) -> ArrayLike:
    """The sign of x, elementwise: -1, 0 or 1 (x / |x| for complex x)."""
    check_arraylike("sign", x)
    return lax.sign(x)


def _binary_elementwise(name: str, lax_fn: Any) -> Any:
    def fn(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
        return lax_fn(*promote_args(name, x, y))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}, with NumPy broadcasting and JAX promotion."
    return fn


maximum = _binary_elementwise("maximum", lax.max)
minimum = _binary_elementwise("minimum", lax.min)


def square(x: ArrayLike, /) -> ArrayLike:
    """x * x, elementwise."""
    check_arraylike("square", x)
    return lax.integer_pow(_bool_to_int(x), 2)


# ----------------------------------------------------------------------------------------------
# Transcendental functions: integers and bools become the default float first.


def _inexact_unary(name: str, lax_fn: Any) -> Any:
    def fn(x: ArrayLike, /) -> ArrayLike:
        (x,) = promote_args_inexact(name, x)
        return lax_fn(x)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}; integer and bool inputs become the default float."
    return fn


exp = _inexact_unary("exp", lax.exp)
log = _inexact_unary("log", lax.log)
log1p = _inexact_unary("log1p", lax.log1p)
expm1 = _inexact_unary("expm1", lax.expm1)
sin = _inexact_unary("sin", lax.sin)
cos = _inexact_unary("cos", lax.cos)
tan = _inexact_unary("tan", lax.tan)
tanh = _inexact_unary("tanh", lax.tanh)
sqrt = _inexact_unary("sqrt", lax.sqrt)


def reciprocal(x: ArrayLike, /) -> ArrayLike:
    """1 / x, elementwise, as a float."""
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.div(convert(1, get_aval(x).dtype, get_aval(x).weak_type), x)


def floor_toward_minus_inf(x: ArrayLike) -> ArrayLike:
    """floor() for real floats, from a truncating cast (didax has no floor primitive yet)."""
    aval = get_aval(x)
    int_dtype = np.dtype(np.int64) if aval.dtype.itemsize == 8 else np.dtype(np.int32)
    truncated = convert(convert(x, int_dtype), aval.dtype)
    one = convert(1, aval.dtype, aval.weak_type)
    return lax.select_n(lax.lt(x, truncated), truncated, lax.sub(truncated, one))


# ----------------------------------------------------------------------------------------------
# Comparisons and logic


def _ordering(name: str, lax_fn: Any) -> Any:
    """An order comparison; complex numbers compare (real, imag) lexicographically, as in NumPy."""

    def fn(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
        x, y = promote_args(name, x, y)
        if get_aval(x).dtype.kind != "c":
            return lax_fn(x, y)
        x_re, y_re = lax.real(x), lax.real(y)
        ties = lax.bitwise_and(lax.eq(x_re, y_re), lax_fn(lax.imag(x), lax.imag(y)))
        strict = lax.lt if lax_fn in (lax.lt, lax.le) else lax.gt
        return lax.bitwise_or(strict(x_re, y_re), ties)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}; complex numbers compare (real, imag) lexicographically."
    return fn


equal = _binary_elementwise("equal", lax.eq)
not_equal = _binary_elementwise("not_equal", lax.ne)
less = _ordering("less", lax.lt)
less_equal = _ordering("less_equal", lax.le)
greater = _ordering("greater", lax.gt)
greater_equal = _ordering("greater_equal", lax.ge)
bitwise_and = _binary_elementwise("bitwise_and", lax.bitwise_and)
bitwise_or = _binary_elementwise("bitwise_or", lax.bitwise_or)


def bitwise_not(x: ArrayLike, /) -> ArrayLike:
    """The bitwise complement of x, elementwise (logical not for booleans)."""
    check_arraylike("bitwise_not", x)
    return lax.bitwise_not(x)


invert = bitwise_not


def _to_bool(x: ArrayLike) -> ArrayLike:
    """x != 0. As JAX makes its constants, the 0 is weakly typed only when x is a weak scalar: so
    logical_not(3) is a weak bool, but logical_not of a weak array is not."""
    if get_aval(x).dtype == np.bool_:
        return x
    return lax.ne(x, _jax_constant(x, 0))


def logical_and(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Promote first, then compare with 0: logical_and(True, 3) compares two weak ints."""
    x, y = promote_args("logical_and", x, y)
    return lax.bitwise_and(_to_bool(x), _to_bool(y))


def logical_or(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Whether x or y is true, elementwise."""
    x, y = promote_args("logical_or", x, y)
    return lax.bitwise_or(_to_bool(x), _to_bool(y))


def logical_not(x: ArrayLike, /) -> ArrayLike:
    """Whether x is false, elementwise."""
    check_arraylike("logical_not", x)
    return lax.bitwise_not(_to_bool(as_array(x)))


def where(condition: ArrayLike, x: ArrayLike = None, y: ArrayLike = None, /) -> ArrayLike:
    """Elementwise ``x if condition else y``, with broadcasting and promotion of x and y."""
    if x is None or y is None:
        raise NotImplementedError(
            "didax.numpy.where takes three arguments; the one-argument form (nonzero) has a "
            "data-dependent shape and is not implemented."
        )
    check_arraylike("where", condition, x, y)
    x, y = promote_args("where", x, y)
    condition, x, y = broadcast_all("where", _to_bool(condition), x, y)
    return lax.select_n(condition, y, x)


def broadcast_all(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """Broadcast every argument to one shape (select_n needs equal shapes), keeping dtypes."""
    shapes = [get_aval(a).shape for a in args]
    if shapes.count(shapes[0]) == len(shapes):  # all equal already
        return list(args)
    shape = broadcast_shapes(*shapes)
    if shape is None:  # a ValueError, as JAX's lax.broadcast_shapes raises
        shown = ", ".join(map(str, shapes))
        raise ValueError(f"{name}: incompatible shapes for broadcasting: {shown}.") from None
    args = promote_shapes(name, *args)
    return [broadcast_to(a, shape) for a in args]


# ----------------------------------------------------------------------------------------------
# Bits: exclusive or, shifts, counting. Booleans count as int32 for shifts, as in JAX.

bitwise_xor = _binary_elementwise("bitwise_xor", lax.bitwise_xor)


def left_shift(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x shifted left by y bits, elementwise; a shift of the bit width or more gives 0."""
    # Promote first, then make bools int32: True << uint8 is uint8, only bool << bool is int32.
    x, y = map(_bool_to_int, promote_args("left_shift", x, y))
    return lax.shift_left(x, y)


def right_shift(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x shifted right by y bits: arithmetic (sign-filling) for signed types, logical for unsigned."""
    x, y = map(_bool_to_int, promote_args("right_shift", x, y))  # as in left_shift
    if get_aval(x).dtype.kind == "u":
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def bitwise_count(x: ArrayLike, /) -> ArrayLike:
    """The number of bits set in |x|, as uint8 (NumPy counts the magnitude's bits)."""
    check_arraylike("bitwise_count", x)
    x = _bool_to_int(as_array(x))
    if get_aval(x).dtype.kind == "i":
        x = lax.abs(x)
    return convert(lax.population_count(x), np.dtype(np.uint8))


# ----------------------------------------------------------------------------------------------
# More transcendental functions, rounding, floating-point classification and complex parts.

arccos = acos = _inexact_unary("arccos", lax.acos)
arcsin = asin = _inexact_unary("arcsin", lax.asin)
arctan = atan = _inexact_unary("arctan", lax.atan)
arccosh = acosh = _inexact_unary("arccosh", lax.acosh)
arcsinh = asinh = _inexact_unary("arcsinh", lax.asinh)
arctanh = atanh = _inexact_unary("arctanh", lax.atanh)
sinh = _inexact_unary("sinh", lax.sinh)
cosh = _inexact_unary("cosh", lax.cosh)
exp2 = _inexact_unary("exp2", lax.exp2)
cbrt = _inexact_unary("cbrt", lax.cbrt)


def _inexact_binary(name: str, lax_fn: Any) -> Any:
    def fn(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
        return lax_fn(*promote_args_inexact(name, x, y))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}; integer and bool inputs become the default float."
    return fn


arctan2 = _inexact_binary("arctan2", lax.atan2)


def atan2(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """arctan2 of the promoted arguments, as JAX writes this alias: a Python int first takes an
    integer array's dtype (atan2(uint8_array, -1) sees 255, where arctan2 sees -1)."""
    return arctan2(*promote_args("atan2", x1, x2))


nextafter = _inexact_binary("nextafter", lax.nextafter)


def _log_base(name: str, base: int) -> Any:
    def fn(x: ArrayLike, /) -> ArrayLike:
        (x,) = promote_args_inexact(name, x)
        return lax.div(lax.log(x), lax.log(convert(base, get_aval(x).dtype)))

    fn.__name__ = name
    fn.__doc__ = f"The base-{base} logarithm, elementwise."
    return fn


log2 = _log_base("log2", 2)


def log10(x: ArrayLike, /) -> ArrayLike:
    """The base-10 logarithm, elementwise: log(x) times 1/log(10) rounded to x's precision, as JAX
    computes it (dividing by log(10) can round the other way: log10(2) in float32 is then one ulp
    low, and geomspace(2, 32, 5, dtype=int32) truncates 1.9999999 to 1)."""
    (x,) = promote_args_inexact("log10", x)
    dtype = get_aval(x).dtype
    one_over_ln10 = lax.convert_element_type(np.array(0.4342944819032518), dtypes.finfo(dtype).dtype)
    r = lax.log(x)
    if dtype.kind == "c":  # both parts scaled by the real constant
        return lax.mul(r, lax.convert_element_type(one_over_ln10, dtype))
    return lax.mul(r, one_over_ln10)


def _real_floats(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """Promote to a common inexact type, refusing complex numbers, and broadcast to one shape."""
    args = promote_args_inexact(name, *args)
    if get_aval(args[0]).dtype.kind == "c":
        raise TypeError(f"{name} does not support complex numbers.")
    return broadcast_all(name, *args)


def logaddexp(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """log(exp(x1) + exp(x2)), elementwise, without overflow; complex numbers too."""
    a, b = broadcast_all("logaddexp", *promote_args_inexact("logaddexp", x1, x2))
    if get_aval(a).dtype.kind == "c":
        return _complex_logaddexp(a, b, lax.exp, 1.0)
    return _larger_plus_log1p(a, b, lambda d: lax.log1p(lax.exp(d)))


def logaddexp2(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """log2(2**x1 + 2**x2), elementwise, without overflow; complex numbers too."""
    a, b = broadcast_all("logaddexp2", *promote_args_inexact("logaddexp2", x1, x2))
    if get_aval(a).dtype.kind == "c":
        return _complex_logaddexp(a, b, lax.exp2, 1 / np.log(2))
    return _logaddexp2(a, b)


def _complex_logaddexp(x1: ArrayLike, x2: ArrayLike, exp: Any, scale: float) -> ArrayLike:
    """JAX's complex logaddexp (exp = lax.exp, scale 1) and logaddexp2 (lax.exp2, 1/log(2)): the
    larger operand (real parts first) plus scale * log1p(exp(other - larger)), its imaginary part
    then brought into [-pi, pi) * scale, the principal branch (the sum may have turned past it).
    Its constants are JAX's: weak only for weak scalars."""
    big = lax.max(x1, x2)
    other = lax.sub(lax.add(x1, x2), lax.mul(big, _jax_constant(big, 2)))  # the smaller one, minus big
    out = lax.add(big, lax.mul(_jax_constant(big, scale), lax.log1p(exp(other))))
    re, im = lax.real(out), lax.imag(out)
    half_turn, turn = _jax_constant(im, np.pi * scale), _jax_constant(im, 2 * np.pi * scale)
    im = lax.rem(lax.add(im, half_turn), turn)  # in (-turn, turn): rem keeps the sign of its dividend
    im = lax.sub(lax.select_n(lax.lt(im, _jax_constant(im, 0)), im, lax.add(im, turn)), half_turn)
    return lax.complex(re, im)


def _logaddexp2(x1: ArrayLike, x2: ArrayLike) -> ArrayLike:
    ln2 = _jax_constant(x1, np.log(2))  # weak only for weak scalars, as JAX's constant
    return _larger_plus_log1p(x1, x2, lambda d: lax.div(lax.log1p(lax.exp2(d)), ln2))


def _larger_plus_log1p(x1: ArrayLike, x2: ArrayLike, log1p_exp: Any) -> ArrayLike:
    """logaddexp's real form: the larger operand plus log1p_exp(-|x1 - x2|). It is written per
    side, so that at a tie the derivative (stage 02) splits evenly between x1 and x2, as JAX's
    does; equal infinities give their sum."""
    delta = lax.sub(x1, x2)
    x1_larger = lax.add(x1, log1p_exp(lax.neg(delta)))
    x2_larger = lax.add(x2, log1p_exp(delta))
    out = lax.select_n(lax.gt(delta, lax.full_like(delta, 0)), x2_larger, x1_larger)
    return lax.select_n(_isnan(delta), out, lax.add(x1, x2))


def _integer_as_is(name: str, x: ArrayLike) -> tuple[ArrayLike, bool]:
    """``x`` as an array, and whether it is already integral (bools and integers pass through)."""
    check_arraylike(name, x)
    x = as_array(x)
    kind = get_aval(x).dtype.kind
    if kind == "c":
        raise TypeError(f"{name} does not support complex numbers.")
    return x, kind in "biu"


def floor(x: ArrayLike, /) -> ArrayLike:
    """The largest integer not above x, elementwise; integers and bools are returned as they are."""
    x, integral = _integer_as_is("floor", x)
    return x if integral else lax.floor(x)


def ceil(x: ArrayLike, /) -> ArrayLike:
    """The smallest integer not below x, elementwise; integers and bools are returned as they are."""
    x, integral = _integer_as_is("ceil", x)
    return x if integral else lax.ceil(x)


def trunc(x: ArrayLike) -> ArrayLike:
    """x rounded toward zero, elementwise; integers and bools are returned as they are."""
    x, integral = _integer_as_is("trunc", x)
    if integral:
        return x
    return lax.select_n(lax.lt(x, _constant_like(x, 0)), lax.floor(x), lax.ceil(x))


def rint(x: ArrayLike, /) -> ArrayLike:
    """x rounded to the nearest integer (ties to even), as a float."""
    check_arraylike("rint", x)
    x = as_array(x)
    aval = get_aval(x)
    if aval.dtype.kind in "biu":
        return convert(x, dtypes.default_dtype("f"))  # the default float, even for int8
    if aval.dtype.kind == "c":
        return _complex_rint(x)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _complex_rint(x: ArrayLike) -> ArrayLike:
    return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> ArrayLike:  # noqa: A001 - NumPy's name
    """a rounded to the given number of decimals, ties to even."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to didax.numpy.round is not supported.")
    check_arraylike("round", a)
    a = as_array(a)
    aval = get_aval(a)
    if aval.dtype == np.bool_:
        raise ValueError("round does not take booleans: their data type is not inexact.")
    if aval.dtype.kind in "iu":
        if decimals < 0:
            raise NotImplementedError("integer round is not implemented for decimals < 0")
        return a
    if aval.dtype.kind == "c":
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)
    factor = convert(10.0**decimals, aval.dtype, aval.weak_type)
    return lax.div(lax.round(lax.mul(a, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)


around = round


def _isnan(x: ArrayLike) -> ArrayLike:
    return lax.ne(x, x)


def isnan(x: ArrayLike, /) -> ArrayLike:
    """Whether x is a NaN, elementwise (never for integers and bools)."""
    check_arraylike("isnan", x)
    x = as_array(x)
    if get_aval(x).dtype.kind == "c":
        return lax.bitwise_or(_isnan(lax.real(x)), _isnan(lax.imag(x)))
    return _isnan(x)


def isfinite(x: ArrayLike, /) -> ArrayLike:
    """Whether x is neither infinite nor NaN, elementwise."""
    check_arraylike("isfinite", x)
    x = as_array(x)
    kind = get_aval(x).dtype.kind
    if kind in "biu":
        return lax.broadcast_in_dim(convert(True, np.dtype(np.bool_)), get_aval(x).shape, ())
    if kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def _isinf_real(x: ArrayLike) -> ArrayLike:
    aval = get_aval(x)
    if aval.dtype.kind in "biu":
        return convert(lax.ne(x, x), np.dtype(np.bool_))  # all False
    return convert(lax.eq(lax.abs(x), convert(np.inf, aval.dtype)), np.dtype(np.bool_))  # strong, as in JAX


def isinf(x: ArrayLike, /) -> ArrayLike:
    """Whether x is +inf or -inf, elementwise."""
    check_arraylike("isinf", x)
    x = as_array(x)
    if get_aval(x).dtype.kind == "c":
        return lax.bitwise_or(_isinf_real(lax.real(x)), _isinf_real(lax.imag(x)))
    return _isinf_real(x)


def _signed_inf(name: str, sign: float) -> Any:
    def fn(x: ArrayLike, /) -> ArrayLike:
        x, _ = _integer_as_is(name, x)
        aval = get_aval(x)
        if aval.dtype.kind in "biu":
            return convert(lax.ne(x, x), np.dtype(np.bool_))
        return convert(lax.eq(x, convert(sign * np.inf, aval.dtype)), np.dtype(np.bool_))

    fn.__name__ = name
    fn.__doc__ = f"Whether x is {'+' if sign > 0 else '-'}inf, elementwise."
    return fn


isposinf = _signed_inf("isposinf", 1.0)
isneginf = _signed_inf("isneginf", -1.0)


def signbit(x: ArrayLike, /) -> ArrayLike:
    """Whether the sign bit of x is set, elementwise (so -0.0 counts as negative)."""
    x, _ = _integer_as_is("signbit", x)
    dtype = get_aval(x).dtype
    if dtype == np.bool_:
        return lax.broadcast_in_dim(convert(False, dtype), get_aval(x).shape, ())
    if dtype.kind == "i":
        return lax.lt(x, convert(0, dtype))
    if dtype.kind == "u":
        return lax.broadcast_in_dim(convert(False, np.dtype(np.bool_)), get_aval(x).shape, ())
    int_dtype = np.dtype(f"int{8 * dtype.itemsize}")
    return lax.lt(lax.bitcast_convert_type(convert(x, dtype), int_dtype), convert(0, int_dtype))


def copysign(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The magnitude of x1 with the sign of x2, elementwise."""
    x1, x2 = _real_floats("copysign", x1, x2)
    magnitude = lax.abs(x1)
    return lax.select_n(signbit(x2), magnitude, lax.neg(magnitude))


def fmod(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The C-style remainder, with the sign of the dividend; an integer x % 0 is 0."""
    x1, x2 = promote_args("fmod", x1, x2)
    if get_aval(x1).dtype.kind == "c":
        raise TypeError("fmod does not support complex numbers.")
    x1, x2 = broadcast_all("fmod", _bool_to_int(x1), _bool_to_int(x2))
    if get_aval(x2).dtype.kind in "iu":
        zero = lax.eq(x2, _constant_like(x2, 0))
        return lax.select_n(
            zero, lax.rem(x1, lax.select_n(zero, x2, _filled_like(x2, 1))), _filled_like(x1, 0)
        )
    return lax.rem(x1, x2)


def fmax(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The elementwise maximum, ignoring NaNs (NaN only where both are)."""
    x1, x2 = broadcast_all("fmax", *promote_args("fmax", x1, x2))
    pick_x1 = lax.bitwise_or(greater(x1, x2), isnan(x2))
    return lax.select_n(pick_x1, x2, x1)


def fmin(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The elementwise minimum, ignoring NaNs (NaN only where both are)."""
    x1, x2 = broadcast_all("fmin", *promote_args("fmin", x1, x2))
    pick_x1 = lax.bitwise_or(less(x1, x2), isnan(x2))
    return lax.select_n(pick_x1, x2, x1)


def hypot(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """sqrt(x1**2 + x2**2), elementwise, without overflow for large inputs."""
    return _hypot(*_real_floats("hypot", x1, x2))


def _hypot(x1: ArrayLike, x2: ArrayLike) -> ArrayLike:
    x1, x2 = lax.abs(x1), lax.abs(x2)
    infinite = lax.bitwise_or(_isinf_real(x1), _isinf_real(x2))
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    zero = lax.eq(big, _constant_like(big, 0))
    safe = lax.select_n(zero, big, _filled_like(big, 1))
    ratio = lax.div(small, safe)
    out = lax.mul(big, lax.sqrt(lax.add(_constant_like(ratio, 1), lax.mul(ratio, ratio))))
    out = lax.select_n(zero, out, big)
    return lax.select_n(infinite, out, _jax_constant(out, np.inf))  # weak only for weak scalars


def _scaled(name: str, factor: float) -> Any:
    def fn(x: ArrayLike, /) -> ArrayLike:
        (x,) = promote_args_inexact(name, x)
        aval = get_aval(x)
        return lax.mul(x, convert(factor, aval.dtype, aval.weak_type))

    fn.__name__ = name
    fn.__doc__ = f"x multiplied by {factor!r}, elementwise ({name})."
    return fn


deg2rad = radians = _scaled("deg2rad", np.pi / 180)
rad2deg = degrees = _scaled("rad2deg", 180 / np.pi)


def sinc(x: ArrayLike, /) -> ArrayLike:
    """sin(pi x) / (pi x), elementwise, with sinc(0) = 1."""
    (x,) = promote_args_inexact("sinc", x)
    aval = get_aval(x)
    zero = lax.eq(x, _constant_like(x, 0))
    pi_x = lax.mul(lax.select_n(zero, x, _filled_like(x, 1)), convert(np.pi, aval.dtype, aval.weak_type))
    return lax.select_n(zero, lax.div(lax.sin(pi_x), pi_x), _filled_like(x, 1))


def i0(x: ArrayLike) -> ArrayLike:
    """The modified Bessel function of the first kind of order 0, elementwise, for real x.

    As in JAX, exp(|x|) times lax.bessel_i0e(|x|): the scaled function is the primitive, so later
    stages need rules for it alone. (exp(|x|) overflows a little before I0 does.)"""
    (x,) = promote_args_inexact("i0", x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        raise ValueError(f"Unsupported input type to didax.numpy.i0: {dtype}. I0 takes real numbers only.")
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), lax.bessel_i0e(ax))


def heaviside(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The step function: 0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0."""
    unbroadcast_x1, _ = promote_args_inexact("heaviside", x1, x2)
    x1, x2 = _real_floats("heaviside", x1, x2)
    # JAX makes its 0 and 1 from x1 before broadcasting: weak only when x1 is a weak scalar.
    shape = get_aval(x1).shape
    zeros, ones = _jax_constant(unbroadcast_x1, 0, shape), _jax_constant(unbroadcast_x1, 1, shape)
    out = lax.select_n(lax.eq(x1, _constant_like(x1, 0)), x1, x2)  # NaN stays NaN
    out = lax.select_n(lax.gt(x1, _constant_like(x1, 0)), out, ones)
    return lax.select_n(lax.lt(x1, _constant_like(x1, 0)), out, zeros)


def float_power(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x ** y computed in floating point, elementwise."""
    return lax.pow(*promote_args_inexact("float_power", x, y))


def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """x1 * 2**x2, elementwise; x2 must hold integers."""
    check_arraylike("ldexp", x1, x2)
    if get_aval(x2).dtype.kind not in "biu":
        raise ValueError(f"ldexp: x2 must be an integer array, got {get_aval(x2).dtype}.")
    (x1,) = promote_args_inexact("ldexp", x1)
    aval = get_aval(x1)
    if aval.dtype.kind == "c":
        raise TypeError("ldexp does not support complex numbers.")
    x1, x2 = broadcast_all("ldexp", x1, as_array(x2))
    # Two half steps, so that 2**x2 stays finite where x1 * 2**x2 is.
    half = convert(
        lax.shift_right_arithmetic(convert(x2, np.dtype(np.int32)), convert(1, np.dtype(np.int32))),
        aval.dtype,
    )
    rest = lax.sub(convert(x2, aval.dtype), half)
    return lax.mul(lax.mul(x1, lax.exp2(half)), lax.exp2(rest))


def frexp(x: ArrayLike, /) -> tuple[ArrayLike, ArrayLike]:
    """x as mantissa * 2**exponent, the mantissa in [0.5, 1) in magnitude, the exponent int32."""
    (x,) = promote_args_inexact("frexp", x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        raise TypeError("frexp does not support complex numbers.")
    info = dtypes.finfo(dtype)
    nbits = 8 * dtype.itemsize
    int_dtype, nmant = np.dtype(f"int{nbits}"), int(info.nmant)
    bias = -int(info.minexp) + 1  # the exponent field of 0.5 is bias - 1
    # Scale subnormals up into the normal range first, then read the exponent field.
    subnormal = lax.lt(lax.abs(x), convert(float(info.smallest_normal), dtype))
    scaled = lax.select_n(subnormal, x, lax.mul(x, convert(2.0 ** (nmant + 1), dtype)))
    bits = lax.bitcast_convert_type(scaled, int_dtype)
    field = lax.bitwise_and(
        lax.shift_right_logical(bits, convert(nmant, int_dtype)),
        convert((1 << (nbits - 1 - nmant)) - 1, int_dtype),
    )
    exponent = lax.sub(field, convert(bias - 1, int_dtype))
    exponent = lax.select_n(subnormal, exponent, lax.sub(exponent, convert(nmant + 1, int_dtype)))
    mask = convert(~(((1 << (nbits - 1 - nmant)) - 1) << nmant), int_dtype)
    mant_bits = lax.bitwise_or(lax.bitwise_and(bits, mask), convert((bias - 1) << nmant, int_dtype))
    mantissa = lax.bitcast_convert_type(mant_bits, dtype)
    special = lax.bitwise_or(lax.bitwise_not(lax.is_finite(x)), lax.eq(x, _constant_like(x, 0)))
    mantissa = lax.select_n(special, mantissa, x)
    exponent = lax.select_n(
        special, convert(exponent, np.dtype(np.int32)), _filled_like(convert(exponent, np.dtype(np.int32)), 0)
    )
    return mantissa, exponent


def modf(x: ArrayLike, /, out: None = None) -> tuple[ArrayLike, ArrayLike]:
    """The fractional and integral parts of x, both with x's sign."""
    (x,) = promote_args_inexact("modf", x)
    whole = trunc(x)
    return lax.sub(x, whole), whole


def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[ArrayLike, ArrayLike]:  # noqa: A001 - NumPy's name
    """(floor_divide(x1, x2), remainder(x1, x2))."""
    return floor_divide(x1, x2), remainder(x1, x2)


def _integer_args(name: str, x1: ArrayLike, x2: ArrayLike) -> list[ArrayLike]:
    x1, x2 = promote_args(name, x1, x2)
    if get_aval(x1).dtype.kind not in "iu":
        raise ValueError(f"{name} requires integer arguments, got {get_aval(x1).dtype}.")
    return broadcast_all(name, _bool_to_int(x1), _bool_to_int(x2))


def gcd(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The greatest common divisor of |x1| and |x2|, elementwise."""
    x1, x2 = _integer_args("gcd", x1, x2)
    a, b = absolute(x1), absolute(x2)
    zero = _constant_like(a, 0)
    # Euclid's algorithm, unrolled: it ends within about 1.44 * bits steps (Lamé's bound).
    for _ in range(int(1.45 * 8 * get_aval(a).dtype.itemsize) + 2):
        done = lax.eq(b, zero)
        safe_b = lax.select_n(done, b, _filled_like(b, 1))
        # where b is 0 it stays 0: JAX's 0 there is a constant, weak only for weak scalars
        a, b = lax.select_n(done, b, a), lax.select_n(done, lax.rem(a, safe_b), _jax_constant(b, 0))
    return a


def lcm(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """The least common multiple of |x1| and |x2|, elementwise (0 if either is 0)."""
    x1, x2 = _integer_args("lcm", x1, x2)
    d = gcd(x1, x2)
    zero = lax.eq(d, _constant_like(d, 0))
    safe = lax.select_n(zero, d, _filled_like(d, 1))
    out = lax.mul(absolute(x1), lax.div(absolute(x2), safe))
    return lax.select_n(zero, out, _filled_like(out, 0))


def spacing(x: ArrayLike, /) -> ArrayLike:
    """The distance from x to the next float away from zero, with x's sign."""
    (x,) = promote_args_inexact("spacing", x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        raise TypeError("spacing does not support complex numbers.")
    x = convert(x, dtype)
    inf = convert(np.inf, dtype)
    toward = lax.select_n(
        signbit(x),
        lax.broadcast_in_dim(inf, get_aval(x).shape, ()),
        lax.broadcast_in_dim(lax.neg(inf), get_aval(x).shape, ()),
    )
    return lax.sub(lax.nextafter(x, toward), x)


def isreal(x: ArrayLike) -> ArrayLike:
    """Whether x has a zero imaginary part, elementwise (always for real dtypes)."""
    check_arraylike("isreal", x)
    x = as_array(x)
    if get_aval(x).dtype.kind != "c":
        return lax.eq(x, x) if get_aval(x).dtype.kind in "biu" else lax.eq(_isnan(x), _isnan(x))
    return lax.eq(lax.imag(x), _constant_like(lax.imag(x), 0))


def iscomplex(x: ArrayLike) -> ArrayLike:
    """Whether x has a nonzero imaginary part, elementwise."""
    return lax.bitwise_not(isreal(x))


def isrealobj(x: Any) -> bool:
    """Whether x's dtype is not complex."""
    return not iscomplexobj(x)


def iscomplexobj(x: Any) -> bool:
    """Whether x's dtype is complex."""
    if x is None:
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = dtypes.result_type(x)
    return np.dtype(dtype).kind == "c"


def nan_to_num(x: ArrayLike, copy: bool = True, nan: ArrayLike = 0.0, posinf: ArrayLike | None = None,
               neginf: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """x with NaN, +inf and -inf replaced (by default: 0, the largest and the lowest float)."""
    check_arraylike("nan_to_num", x)
    x = as_array(x)
    aval = get_aval(x)
    if aval.dtype.kind in "biu":
        return x
    if aval.dtype.kind == "c":
        re = nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(aval.dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf

    def filled(value: ArrayLike) -> ArrayLike:
        return broadcast_to(convert(as_array(value), aval.dtype), aval.shape)

    out = lax.select_n(_isnan(x), x, filled(nan))
    out = lax.select_n(lax.eq(x, convert(np.inf, aval.dtype)), out, filled(posinf))
    return lax.select_n(lax.eq(x, convert(-np.inf, aval.dtype)), out, filled(neginf))


def clip(
    arr: ArrayLike | None = None, /, min: ArrayLike | None = None, max: ArrayLike | None = None
) -> ArrayLike:  # noqa: A002
    """arr limited to [min, max], elementwise; either bound may be None."""
    check_arraylike("clip", arr)
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return as_array(arr)


def real(val: ArrayLike, /) -> ArrayLike:
    """The real part of val (val itself for real dtypes)."""
    check_arraylike("real", val)
    val = as_array(val)
    return lax.real(val) if get_aval(val).dtype.kind == "c" else val


def imag(val: ArrayLike, /) -> ArrayLike:
    """The imaginary part of val (zeros for real dtypes)."""
    check_arraylike("imag", val)
    val = as_array(val)
    return lax.imag(val) if get_aval(val).dtype.kind == "c" else _filled_like(val, 0)


def conjugate(x: ArrayLike, /) -> ArrayLike:
    """The complex conjugate of x (x itself for real dtypes)."""
    check_arraylike("conjugate", x)
    x = as_array(x)
    return lax.conj(x) if get_aval(x).dtype.kind == "c" else x


conj = conjugate


def angle(z: ArrayLike, deg: bool = False) -> ArrayLike:
    """The counterclockwise angle of z from the positive real axis, in radians (or degrees)."""
    check_arraylike("angle", z)
    z = as_array(z)
    dtype = get_aval(z).dtype
    if dtype.kind == "c":
        re, im = lax.real(z), lax.imag(z)
    else:
        float_dtype = dtypes.default_dtype("f") if dtype.kind in "biu" else dtype
        re = convert(z, float_dtype)
        im = _filled_like(re, 0)
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def logical_xor(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Whether exactly one of x and y is true, elementwise."""
    x, y = promote_args("logical_xor", x, y)
    return lax.bitwise_xor(_to_bool(x), _to_bool(y))


bitwise_invert = bitwise_not
pow = power  # noqa: A001 - NumPy's name


def fabs(x: ArrayLike, /) -> ArrayLike:
    """The absolute value of x as a float; complex numbers are refused."""
    (x,) = promote_args_inexact("fabs", x)
    if get_aval(x).dtype.kind == "c":
        raise TypeError("fabs does not support complex numbers.")
    return lax.abs(x)
