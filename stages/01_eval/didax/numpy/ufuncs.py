"""Elementwise functions with NumPy's broadcasting and JAX's type promotion, built on lax.
Stage 01 introduced it.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import Tracer, get_aval
from .util import (
    ArrayLike,
    as_array,
    broadcast_to,
    check_arraylike,
    convert,
    promote_args,
    promote_args_inexact,
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


def _zero_like(x: ArrayLike) -> ArrayLike:
    aval = get_aval(x)
    return convert(0, aval.dtype, aval.weak_type)


def _differs_in_sign(r: ArrayLike, y: ArrayLike) -> ArrayLike:
    """Where the C-style remainder r is nonzero and has the opposite sign of the divisor y."""
    zero = _zero_like(r)
    return lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))


def floor_divide(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """Division rounded toward -inf: lax.div truncates, so step down where the signs differ."""
    x, y = promote_args("floor_divide", x, y)
    if get_aval(x).dtype.kind == "c":
        raise TypeError("floor_divide does not support complex numbers.")
    x, y = _bool_to_int(x), _bool_to_int(y)
    r = lax.rem(x, y)
    q = lax.div(lax.sub(x, r), y) if dtypes.is_float(get_aval(x).dtype) else lax.div(x, y)
    one = convert(1, get_aval(q).dtype, get_aval(q).weak_type)
    return lax.select_n(_differs_in_sign(r, y), q, lax.sub(q, one))


def remainder(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    """The remainder with the sign of the divisor (Python's %), from lax.rem's C-style one."""
    x, y = promote_args("remainder", x, y)
    if get_aval(x).dtype.kind == "c":
        raise TypeError("remainder does not support complex numbers.")
    x, y = _bool_to_int(x), _bool_to_int(y)
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
    x, y = promote_args("power", x, y)
    if get_aval(x).dtype.kind in "biu":
        return _integer_array_power(x, y)
    return lax.pow(x, y)


def _known_integer(y: ArrayLike) -> int | None:
    """The value of an integer (or bool) scalar that is not traced, else None."""
    if isinstance(y, Tracer):
        return None
    try:
        return operator.index(y)
    except TypeError:
        return None


def _integer_array_power(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """Integer x ** integer y, elementwise, by binary exponentiation over the bits of y."""
    x, y = broadcast_all("power", _bool_to_int(x), _bool_to_int(y))
    aval = get_aval(x)
    one, two = convert(1, aval.dtype), convert(2, aval.dtype)
    acc = lax.broadcast_in_dim(one, aval.shape, ())
    for _ in range(aval.dtype.itemsize * 8):
        odd = lax.ne(lax.bitwise_and(y, one), _zero_like(y))
        acc = lax.select_n(odd, acc, lax.mul(acc, x))
        x = lax.mul(x, x)
        y = lax.div(y, two)
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
    aval = get_aval(x)
    return x if aval.dtype == np.bool_ else lax.ne(x, convert(0, aval.dtype, aval.weak_type))


def logical_and(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    check_arraylike("logical_and", x, y)
    return bitwise_and(_to_bool(x), _to_bool(y))


def logical_or(x: ArrayLike, y: ArrayLike, /) -> ArrayLike:
    check_arraylike("logical_or", x, y)
    return bitwise_or(_to_bool(x), _to_bool(y))


def logical_not(x: ArrayLike, /) -> ArrayLike:
    check_arraylike("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


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
