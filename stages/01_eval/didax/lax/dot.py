"""``dot_general``: the one contraction primitive behind dot, matmul and tensordot.
Stage 01 introduced it.

dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)). The result's
dimensions are: the batch dimensions, then lhs's free dimensions, then rhs's free dimensions.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import ShapedArray, get_aval
from .standard import ANY, check_axes, check_dtype, never_weak, standard_primitive

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
    check_dtype("dot_general", lhs, ANY, position=0)
    check_dtype("dot_general", rhs, ANY, position=1)
    if preferred_element_type is not None:
        return preferred_element_type
    return dtypes.promote_types(lhs.dtype, rhs.dtype)


def _einsum_spec(lhs_ndim: int, rhs_ndim: int, dimension_numbers: DimensionNumbers) -> str:
    """The same contraction written for np.einsum, one letter per dimension."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    letters = iter(string.ascii_letters)
    lhs = [next(letters) for _ in range(lhs_ndim)]
    rhs = [next(letters) for _ in range(rhs_ndim)]
    for l_dim, r_dim in zip(lhs_contract + lhs_batch, rhs_contract + rhs_batch):
        rhs[r_dim] = lhs[l_dim]
    out = [lhs[d] for d in lhs_batch]
    out += [lhs[d] for d in _free_dims(lhs_ndim, lhs_contract, lhs_batch)]
    out += [rhs[d] for d in _free_dims(rhs_ndim, rhs_contract, rhs_batch)]
    return f"{''.join(lhs)},{''.join(rhs)}->{''.join(out)}"


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """Accumulate in a wide type: 16-bit floats in float32, integers and bools in 64 bits."""
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
    common = _compute_dtype(dtypes.promote_types(lhs.dtype, rhs.dtype))
    spec = _einsum_spec(lhs.ndim, rhs.ndim, dimension_numbers)
    out = np.einsum(spec, lhs.astype(common), rhs.astype(common))
    out_dtype = preferred_element_type or dtypes.promote_types(lhs.dtype, rhs.dtype)
    return out != 0 if out_dtype == np.bool_ else out


dot_general_p = standard_primitive(
    "dot_general", _dot_general, _dot_general_shape, _dot_general_dtype, never_weak
)


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
