"""``dot_general``: the one contraction primitive behind dot, matmul and tensordot.
Stage 01 introduced it.

dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)). The result's
dimensions are: the batch dimensions, then lhs's free dimensions, then rhs's free dimensions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import ShapedArray, get_aval
from .standard import ANY, check_axes, check_dtype, standard_primitive

DimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]


def _free_dims(ndim: int, contracting: Sequence[int], batch: Sequence[int]) -> list[int]:
    return [d for d in range(ndim) if d not in contracting and d not in batch]


def _dot_general_shape(
    lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers: DimensionNumbers, preferred_element_type: Any
) -> tuple[int, ...]:
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    check_axes("dot_general", lhs_contract + lhs_batch, lhs.ndim, "lhs contracting and batch dims", TypeError)
    check_axes("dot_general", rhs_contract + rhs_batch, rhs.ndim, "rhs contracting and batch dims", TypeError)
    for name, lhs_dims, rhs_dims in (("contracting", lhs_contract, rhs_contract), ("batch", lhs_batch, rhs_batch)):
        lhs_sizes = tuple(lhs.shape[d] for d in lhs_dims)
        rhs_sizes = tuple(rhs.shape[d] for d in rhs_dims)
        if lhs_sizes != rhs_sizes:
            raise TypeError(
                f"dot_general requires {name} dimensions to have the same shape, got "
                f"{lhs_sizes} and {rhs_sizes}."
            )
    batch = [lhs.shape[d] for d in lhs_batch]
    lhs_free = [lhs.shape[d] for d in _free_dims(lhs.ndim, lhs_contract, lhs_batch)]
    rhs_free = [rhs.shape[d] for d in _free_dims(rhs.ndim, rhs_contract, rhs_batch)]
    return tuple(batch + lhs_free + rhs_free)


def _dot_general_dtype(
    lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers: DimensionNumbers, preferred_element_type: Any
) -> np.dtype:
    """Not NumPy promotion: the operand type of higher precision, as XLA picks it (so int8 with
    uint32 gives uint32); ``preferred_element_type`` may widen it, never narrow an integer."""
    check_dtype("dot_general", lhs, ANY, position=0)
    check_dtype("dot_general", rhs, ANY, position=1)
    result = _higher_precision_type(lhs.dtype, rhs.dtype)
    if preferred_element_type is None or preferred_element_type == result:
        return result
    if not dtypes.is_float(result) and _bit_width(preferred_element_type) < _bit_width(result):
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred_element_type.name} for result type of {result.name}."
        )
    return preferred_element_type


@functools.cache  # every evaluation asks again, for a handful of dtype pairs
def _higher_precision_type(a: np.dtype, b: np.dtype) -> np.dtype:
    if _precision_key(a) == _precision_key(b) and a != b:
        raise TypeError(f"lax.dot_general argument type error: {a.name}, {b.name}")
    return max(a, b, key=_precision_key)


def _precision_key(dtype: np.dtype) -> tuple[bool, int, int, int, bool]:
    """XLA's order of precision: complex above real, then exponent range, mantissa, bit width,
    and signed above unsigned (a bool is a 1-bit integer)."""
    real = np.empty((), dtype).real.dtype if dtype.kind == "c" else dtype
    info = dtypes.finfo(real) if dtypes.is_float(real) else None
    return (
        dtype.kind == "c",
        info.maxexp if info else -1,
        info.nmant if info else -1,
        _bit_width(real),
        dtype.kind != "u",
    )


def _bit_width(dtype: np.dtype) -> int:
    return 1 if dtype == np.bool_ else dtype.itemsize * 8


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """Accumulate in a wide type: 16-bit floats in float32, integers and bools in 64 bits
    (integer products then wrap around exactly as they would in the narrow type)."""
    if dtype == np.bool_ or dtype.kind == "i":
        return np.dtype(np.int64)
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    if dtype.itemsize == 2:
        return np.dtype(np.float32)
    return dtype


def _dot_general(
    lhs: np.ndarray, rhs: np.ndarray, *, dimension_numbers: DimensionNumbers, preferred_element_type: Any
) -> np.ndarray:
    # Like XLA, convert both operands to the result type before multiplying (uint32 @ int8: the
    # int8 values wrap to uint32), then accumulate in a wide type.
    operand_dtype = _higher_precision_type(lhs.dtype, rhs.dtype)
    common = _compute_dtype(operand_dtype)
    lhs, rhs = (x.astype(operand_dtype, copy=False).astype(common, copy=False) for x in (lhs, rhs))
    out = _contract(lhs, rhs, dimension_numbers)
    out_dtype = preferred_element_type or operand_dtype
    return out != 0 if out_dtype == np.bool_ else out


def _contract(lhs: np.ndarray, rhs: np.ndarray, dimension_numbers: DimensionNumbers) -> np.ndarray:
    """The contraction as one batched matrix product, the form XLA also brings a dot to: lhs laid
    out as (batch, free, contracting), rhs as (batch, contracting, free), each flattened to three
    axes. np.matmul runs that through BLAS, many times faster than np.einsum's loops."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_free = _free_dims(lhs.ndim, lhs_contract, lhs_batch)
    rhs_free = _free_dims(rhs.ndim, rhs_contract, rhs_batch)
    batch = [lhs.shape[d] for d in lhs_batch]
    m, k, n = (math.prod(lhs.shape[d] for d in lhs_free), math.prod(lhs.shape[d] for d in lhs_contract),
               math.prod(rhs.shape[d] for d in rhs_free))
    a = lhs.transpose([*lhs_batch, *lhs_free, *lhs_contract]).reshape(math.prod(batch), m, k)
    b = rhs.transpose([*rhs_batch, *rhs_contract, *rhs_free]).reshape(math.prod(batch), k, n)
    shape = batch + [lhs.shape[d] for d in lhs_free] + [rhs.shape[d] for d in rhs_free]
    return np.matmul(a, b).reshape(shape)


# Weakly typed only when both operands are, like the elementwise primitives.
dot_general_p = standard_primitive("dot_general", _dot_general, _dot_general_shape, _dot_general_dtype)


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """A general tensor contraction; ``precision`` is accepted for JAX's signature and ignored."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    numbers = (
        (tuple(map(int, lhs_contract)), tuple(map(int, rhs_contract))),
        (tuple(map(int, lhs_batch)), tuple(map(int, rhs_batch))),
    )
    preferred = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=numbers, preferred_element_type=preferred)


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Vector/matrix products: contract lhs's last dimension with rhs's first."""
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    lhs_ndim = len(lhs_shape)
    if lhs_ndim not in (1, 2) or len(rhs_shape) not in (1, 2) or lhs_shape[-1] != rhs_shape[0]:
        raise ValueError(
            f"lax.dot multiplies matrices and vectors whose inner sizes match, got shapes {lhs_shape} "
            f"and {rhs_shape}. For other contractions use lax.dot_general with dimension_numbers."
        )
    numbers = (((lhs_ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, numbers, precision, preferred_element_type)
