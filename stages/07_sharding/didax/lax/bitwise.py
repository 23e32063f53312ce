"""Bit-level lax primitives: shifts, xor, counting bits, and reading a value's bits as another
dtype. didax.random's Threefry hash is built from them. Stage 01 introduced them.

Shifts follow XLA, not C: a shift amount is read as unsigned, and one of at least the bit width
shifts every bit out (0, or the sign bit repeated for an arithmetic right shift).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from .. import dtypes
from ..core import Primitive, ShapedArray
from .standard import (
    BOOL,
    INTEGER,
    broadcasting_shape,
    check_dtype,
    check_same_dtypes,
    never_weak,
    standard_primitive,
)

# ----------------------------------------------------------------------------------------------
# Shifts: two integer operands of one dtype.


def _as_unsigned(x: np.ndarray) -> np.ndarray:
    """The same bits, read as the unsigned type of the same width."""
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _in_range(y: np.ndarray, bits: int) -> np.ndarray:
    """Where a shift amount is below the bit width, reading it as unsigned (so -1 is huge)."""
    return _as_unsigned(np.asarray(y)) < bits


def _shift_left(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    ok = _in_range(y, bits)
    ux = _as_unsigned(x)  # shift the bits as unsigned: no sign to keep on the left
    shifted = np.left_shift(ux, np.where(ok, y, 0).astype(ux.dtype))
    return np.where(ok, shifted.view(x.dtype), np.zeros((), x.dtype))


def _shift_right_logical(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    ok = _in_range(y, bits)
    ux = _as_unsigned(x)
    shifted = np.right_shift(ux, np.where(ok, y, 0).astype(ux.dtype))  # unsigned: zeros come in
    return np.where(ok, shifted.view(x.dtype), np.zeros((), x.dtype))


def _shift_right_arithmetic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))  # copies of the top bit come in
    # Shifting by bits - 1 already fills every bit with the sign: the most any shift can do.
    amount = np.where(_in_range(y, bits), y, bits - 1).astype(signed.dtype)
    return np.right_shift(signed, amount).view(x.dtype)


def shift_op(name: str, numpy_fn: Any, numpy_name: str) -> Primitive:
    """A primitive shifting integer x by y bits, elementwise; both operands of one integer dtype."""
    def dtype_rule(x: ShapedArray, y: ShapedArray) -> np.dtype:
        check_dtype(name, x, (INTEGER,), position=0)
        check_dtype(name, y, (INTEGER,), position=1)
        return check_same_dtypes(name, [x, y], tip=f"jnp.{numpy_name}")

    return standard_primitive(name, numpy_fn, partial(broadcasting_shape, name), dtype_rule)


shift_left_p = shift_op("shift_left", _shift_left, "left_shift")
shift_right_logical_p = shift_op("shift_right_logical", _shift_right_logical, "right_shift")
shift_right_arithmetic_p = shift_op("shift_right_arithmetic", _shift_right_arithmetic, "right_shift")


def _xor_dtype(x: ShapedArray, y: ShapedArray) -> np.dtype:
    check_dtype("xor", x, (INTEGER, BOOL), position=0)
    check_dtype("xor", y, (INTEGER, BOOL), position=1)
    return check_same_dtypes("xor", [x, y], tip="jnp.bitwise_xor")


xor_p = standard_primitive("xor", np.bitwise_xor, partial(broadcasting_shape, "xor"), _xor_dtype)

# ----------------------------------------------------------------------------------------------
# Counting bits: the result has the operand's integer dtype.


def _population_count(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(_as_unsigned(x)).astype(x.dtype)


def _clz(x: np.ndarray) -> np.ndarray:
    """Leading zeros: the bit width minus the length of the number's binary form."""
    ux = _as_unsigned(x).astype(np.uint64)
    bits = x.dtype.itemsize * 8
    length = np.zeros(ux.shape, np.int64)
    for shift in (32, 16, 8, 4, 2, 1):  # binary search for the highest set bit, all at once
        big = ux >= (np.uint64(1) << np.uint64(shift))
        length = np.where(big, length + shift, length)
        ux = np.where(big, ux >> np.uint64(shift), ux)
    length = length + (ux > 0)
    return (bits - length).astype(x.dtype)


def count_op(name: str, numpy_fn: Any) -> Primitive:
    """A primitive counting bits of each element of an integer array, in its dtype."""
    def dtype_rule(x: ShapedArray) -> np.dtype:
        check_dtype(name, x, (INTEGER,))
        return x.dtype

    return standard_primitive(name, numpy_fn, lambda x: x.shape, dtype_rule)


population_count_p = count_op("population_count", _population_count)
clz_p = count_op("clz", _clz)

# ----------------------------------------------------------------------------------------------
# bitcast_convert_type: the same bytes, another dtype. A narrower dtype adds a last axis holding
# the pieces of each element; a wider one consumes a last axis of exactly that many pieces.


def _bitcast_shape(x: ShapedArray, *, new_dtype: np.dtype) -> tuple[int, ...]:
    old_bits, new_bits = x.dtype.itemsize * 8, new_dtype.itemsize * 8
    if old_bits == new_bits:
        return x.shape
    if old_bits > new_bits:
        return (*x.shape, old_bits // new_bits)
    ratio = new_bits // old_bits
    last = x.shape[-1] if x.shape else 1
    if not x.shape or last != ratio:
        raise ValueError(
            f"Attempting to convert array of shape {x.shape} from {x.dtype.name} of size {old_bits} "
            f"bits to {new_dtype.name} of size {new_bits}, bits but {last} * {old_bits} != {new_bits}"
        )
    return x.shape[:-1]


def _bitcast_dtype(x: ShapedArray, *, new_dtype: np.dtype) -> np.dtype:
    odd = ("b", "c")  # bool and complex have no single agreed bit layout to reinterpret
    if (x.dtype.kind in odd or new_dtype.kind in odd) and x.dtype != new_dtype:
        raise TypeError(
            "lax.bitcast_convert_type does not support bool or complex values unless the operand "
            f"and destination types match. Got operand dtype={x.dtype}, new_dtype={new_dtype!r}. "
            "Consider using the arr.view() method instead."
        )
    return new_dtype


def _bitcast(x: np.ndarray, *, new_dtype: np.dtype) -> np.ndarray:
    contiguous = np.ascontiguousarray(x)
    if new_dtype.itemsize > x.dtype.itemsize:  # the last axis is consumed by the wider type
        return contiguous.view(new_dtype).reshape(x.shape[:-1])
    out = contiguous.reshape(*x.shape, 1).view(new_dtype)
    return out if new_dtype.itemsize < x.dtype.itemsize else out.reshape(x.shape)


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type", _bitcast, _bitcast_shape, _bitcast_dtype, never_weak
)

# ----------------------------------------------------------------------------------------------
# The functions users call.


def shift_left(x: Any, y: Any) -> Any:
    """x shifted left by y bits; y >= the bit width gives 0."""
    return shift_left_p.bind(x, y)


def shift_right_logical(x: Any, y: Any) -> Any:
    """x shifted right by y bits with zeros coming in; y >= the bit width gives 0."""
    return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x: Any, y: Any) -> Any:
    """x shifted right by y bits with copies of the sign bit coming in."""
    return shift_right_arithmetic_p.bind(x, y)


def bitwise_xor(x: Any, y: Any) -> Any:
    """Elementwise exclusive or of booleans or integers (the primitive is named ``xor``)."""
    return xor_p.bind(x, y)


def population_count(x: Any) -> Any:
    """The number of bits set in each element."""
    return population_count_p.bind(x)


def clz(x: Any) -> Any:
    """The number of leading zero bits in each element."""
    return clz_p.bind(x)


def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """The operand's bits read as ``new_dtype`` (widths differing: a last axis is added or removed)."""
    new_dtype = dtypes.check_user_dtype(new_dtype, "bitcast_convert_type")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)
