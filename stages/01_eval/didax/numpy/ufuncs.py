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
    return get_aval(x).dtype == np.bool_


def _bool_to_int(x: ArrayLike) -> ArrayLike:
    """Arithmetic beyond + and * counts booleans as int32 (even with x64 on), as JAX does."""
    return convert(x, np.dtype(np.int32)) if _is_bool(x) else x


def add(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    x, y = promote_args("add", x, y)
    return lax.bitwise_or(x, y) if _is_bool(x) else lax.add(x, y)  # True + True is True


def subtract(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    x, y = promote_args("subtract", x, y)
    if _is_bool(x):
        raise TypeError("didax.numpy.subtract does not take booleans; use logical_xor or cast first.")
    return lax.sub(x, y)


def multiply(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    x, y = promote_args("multiply", x, y)
    return lax.bitwise_and(x, y) if _is_bool(x) else lax.mul(x, y)


def true_divide(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
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
    acc = lax.select_n(zero_base, _filled_like(x, 1), _filled_like(x, 0))
    for bit in range(_EXPONENT_BITS):
        bit_set = lax.ne(lax.bitwise_and(y, _constant_like(y, 1 << bit)), _constant_like(y, 0))
        acc = lax.select_n(bit_set, acc, lax.mul(acc, x))
        x = lax.mul(x, x)
    return acc


def negative(x: ArrayLike, /) -> ArrayLike:
    check_arraylike("negative", x)
    return lax.neg(x)


def positive(x: ArrayLike, /) -> ArrayLike:
    check_arraylike("positive", x)
    return as_array(x)


def absolute(x: ArrayLike, /) -> ArrayLike:
    check_arraylike("absolute", x)
    x = as_array(x)
    return x if get_aval(x).dtype.kind in "bu" else lax.abs(x)  # already non-negative


abs = absolute  # noqa: A001 - NumPy's name


def sign(x: ArrayLike, /) -> ArrayLike:
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
    check_arraylike("bitwise_not", x)
    return lax.bitwise_not(x)


invert = bitwise_not


def _to_bool(x: ArrayLike) -> ArrayLike:
    """x != 0. As JAX makes its constants, the 0 is weakly typed only when x is a weak scalar: so
    logical_not(3) is a weak bool, but logical_not of a weak array is not."""
    aval = get_aval(x)
    if aval.dtype == np.bool_:
        return x
    return lax.ne(x, convert(0, aval.dtype, aval.weak_type and aval.shape == ()))


def logical_and(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Promote first, then compare with 0: logical_and(True, 3) compares two weak ints."""
    x, y = promote_args("logical_and", x, y)
    return lax.bitwise_and(_to_bool(x), _to_bool(y))


def logical_or(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    x, y = promote_args("logical_or", x, y)
    return lax.bitwise_or(_to_bool(x), _to_bool(y))


def logical_not(x: ArrayLike, /) -> ArrayLike:
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
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:  # JAX's where says ValueError here, where its binary ufuncs say TypeError
        shown = ", ".join(map(str, shapes))
        raise ValueError(f"{name}: incompatible shapes for broadcasting: {shown}.") from None
    args = promote_shapes(name, *args)
    return [broadcast_to(a, shape) for a in args]


# ----------------------------------------------------------------------------------------------
# Bits: exclusive or, shifts, counting. Booleans count as int32 for shifts, as in JAX.

bitwise_xor = _binary_elementwise("bitwise_xor", lax.bitwise_xor)


def left_shift(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x shifted left by y bits, elementwise; a shift of the bit width or more gives 0."""
    x, y = promote_args("left_shift", _bool_to_int(x), _bool_to_int(y))
    return lax.shift_left(x, y)


def right_shift(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """x shifted right by y bits: arithmetic (sign-filling) for signed types, logical for unsigned."""
    x, y = promote_args("right_shift", _bool_to_int(x), _bool_to_int(y))
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
