"""Reductions: sums, products, maxima, minima and bitwise logic over axes, arg-reductions, and
cumulative (running) sums, products, maxima, minima and log-sum-exps. Stage 01 introduced them.
Like XLA, lax takes only non-negative axes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import ShapedArray
from .standard import (
    ANY,
    BOOL_OR_INT,
    INEXACT,
    NUMBER,
    ORDERED,
    check_axes,
    check_dtype,
    never_weak,
    preferred_zeros,
    sign_zeros,
    standard_primitive,
)


def _reduced_shape(name: str, x: ShapedArray, axes: tuple[int, ...]) -> tuple[int, ...]:
    if any(not 0 <= a < x.ndim for a in axes):
        raise ValueError(
            f"reduction axes {axes} contains out-of-bounds indices for {x.str_short()}."
        )
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    return tuple(size for i, size in enumerate(x.shape) if i not in axes)


@functools.cache
def _accumulation_dtype(dtype: np.dtype) -> np.dtype | None:
    """Sum 16-bit floats in float32 and round once at the end, as XLA does on CPU."""
    return np.dtype(np.float32) if dtype.itemsize == 2 and dtypes.is_float(dtype) else None


# The ufuncs' own reduce methods: np.sum and np.prod would only add a layer of Python around them.
def _sum(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
    return np.add.reduce(x, axis=axes, dtype=_accumulation_dtype(x.dtype))


def _prod(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
    return np.multiply.reduce(x, axis=axes, dtype=_accumulation_dtype(x.dtype))


def _lowest(dtype: np.dtype) -> Any:
    """The identity of max: -inf, the smallest integer, or False."""
    if dtype == np.bool_:
        return False
    return -np.inf if dtypes.is_float(dtype) else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    return np.inf if dtypes.is_float(dtype) else np.iinfo(dtype).max


def _max(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
    if x.dtype.kind == "c":  # NumPy orders complex numbers lexicographically, as XLA does
        return np.max(x, axis=axes)
    return _signed_zero_extremum(np.max(x, axis=axes, initial=_lowest(x.dtype)), x, axes, negative=False)


def _min(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
    if x.dtype.kind == "c":
        return np.min(x, axis=axes)
    return _signed_zero_extremum(np.min(x, axis=axes, initial=_highest(x.dtype)), x, axes, negative=True)


def _signed_zero_extremum(out: np.ndarray, x: np.ndarray, axes: tuple[int, ...], negative: bool) -> np.ndarray:
    """A zero maximum is +0.0 if any reduced element is +0.0 (a zero minimum -0.0 if any is -0.0),
    as XLA orders them; NumPy keeps whichever zero it met last."""
    if not dtypes.is_float(x.dtype):
        return out
    return sign_zeros(out, np.any(preferred_zeros(x, negative), axis=axes), negative)


def reduction(name: str, numpy_fn: Any, categories: tuple[str, ...], weak_type_rule: Any = None) -> Any:
    """A primitive reducing its operand over ``axes``, accepting the dtype ``categories``."""
    def shape_rule(x: ShapedArray, *, axes: tuple[int, ...]) -> tuple[int, ...]:
        return _reduced_shape(name, x, axes)

    def dtype_rule(x: ShapedArray, *, axes: tuple[int, ...]) -> np.dtype:
        check_dtype(name, x, categories)
        return x.dtype

    return standard_primitive(name, numpy_fn, shape_rule, dtype_rule, weak_type_rule)


def _bitwise_reduction(ufunc: np.ufunc) -> Any:
    """and/or/xor over axes; on bools they are logical. An empty reduction gives the identity:
    all bits set for and, none for or and xor."""

    def reduce(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
        return ufunc.reduce(x, axis=axes)

    return reduce


reduce_sum_p = reduction("reduce_sum", _sum, NUMBER)
reduce_prod_p = reduction("reduce_prod", _prod, NUMBER)
reduce_max_p = reduction("reduce_max", _max, ANY)
reduce_min_p = reduction("reduce_min", _min, ANY)
# Unlike the arithmetic reductions, JAX gives these a strong result even for a weak operand.
reduce_and_p = reduction("reduce_and", _bitwise_reduction(np.bitwise_and), BOOL_OR_INT, never_weak)
reduce_or_p = reduction("reduce_or", _bitwise_reduction(np.bitwise_or), BOOL_OR_INT, never_weak)
reduce_xor_p = reduction("reduce_xor", _bitwise_reduction(np.bitwise_xor), BOOL_OR_INT, never_weak)


def _axes_param(axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(map(int, axes))


def reduce_sum(operand: Any, axes: Sequence[int]) -> Any:
    """The sum of the operand's elements over ``axes``, in its dtype."""
    return reduce_sum_p.bind(operand, axes=_axes_param(axes))


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
    """The product of the operand's elements over ``axes``, in its dtype."""
    return reduce_prod_p.bind(operand, axes=_axes_param(axes))


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
    """The largest of the operand's elements over ``axes``."""
    return reduce_max_p.bind(operand, axes=_axes_param(axes))


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
    """The smallest of the operand's elements over ``axes``."""
    return reduce_min_p.bind(operand, axes=_axes_param(axes))


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """Bitwise (for bools: logical) and over ``axes``."""
    return reduce_and_p.bind(operand, axes=_axes_param(axes))


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """Bitwise (for bools: logical) or over ``axes``."""
    return reduce_or_p.bind(operand, axes=_axes_param(axes))


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """Bitwise (for bools: logical) exclusive or over ``axes``."""
    return reduce_xor_p.bind(operand, axes=_axes_param(axes))


# ----------------------------------------------------------------------------------------------
# argmax / argmin: the index of the first extreme element along one axis (a NaN counts as the
# extreme, so the first NaN wins).


def arg_reduction(name: str, numpy_fn: Any) -> Any:
    """A primitive giving the index, along one axis, of the element ``numpy_fn`` picks."""
    def shape_rule(x: ShapedArray, *, axes: tuple[int, ...], index_dtype: np.dtype) -> tuple[int, ...]:
        if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
            raise ValueError(f"Invalid axis {axes[0] if axes else axes} for operand shape {x.shape}")
        if x.shape[axes[0]] == 0:
            raise ValueError(f"{name} of an empty axis ({axes[0]} of shape {x.shape}) has no answer.")
        return _reduced_shape(name, x, axes)

    def dtype_rule(x: ShapedArray, *, axes: tuple[int, ...], index_dtype: np.dtype) -> np.dtype:
        check_dtype(name, x, ORDERED)  # complex numbers have no order to take the extreme of
        if index_dtype.kind not in "iu":
            raise TypeError(f"{name} index_dtype must be an integer type, got {index_dtype.name}.")
        return index_dtype

    def impl(x: np.ndarray, *, axes: tuple[int, ...], index_dtype: np.dtype) -> np.ndarray:
        return numpy_fn(x, axis=axes[0])

    return standard_primitive(name, impl, shape_rule, dtype_rule, never_weak)


argmax_p = arg_reduction("argmax", np.argmax)
argmin_p = arg_reduction("argmin", np.argmin)


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the largest element along ``axis`` (the first, on ties), in ``index_dtype``."""
    return argmax_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the smallest element along ``axis`` (the first, on ties), in ``index_dtype``."""
    return argmin_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize_dtype(index_dtype))


# ----------------------------------------------------------------------------------------------
# Cumulative reductions: running sums, products, maxima, minima and log-sum-exps along one axis,
# optionally from the end. 16-bit floats accumulate in float32, as in the reductions above.


def cumulative(name: str, accumulate: Any, categories: tuple[str, ...]) -> Any:
    """A primitive that applies ``accumulate(x, axis, dtype)`` along ``axis``, or from its end."""

    def shape_rule(x: ShapedArray, *, axis: int, reverse: bool) -> tuple[int, ...]:
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        check_axes(name, (axis,), x.ndim, what="axis")
        return x.shape

    def dtype_rule(x: ShapedArray, *, axis: int, reverse: bool) -> np.dtype:
        check_dtype(name, x, categories)
        return x.dtype

    def impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        # Rounded back to x's dtype here, where NumPy's warnings are off: overflow to inf is a result.
        acc = _accumulation_dtype(x.dtype) or x.dtype
        if reverse:
            return np.flip(accumulate(np.flip(x, axis), axis, acc), axis).astype(x.dtype)
        return accumulate(x, axis, acc).astype(x.dtype)

    return standard_primitive(name, impl, shape_rule, dtype_rule)


def _ufunc_accumulate(ufunc: np.ufunc) -> Any:
    def accumulate(x: np.ndarray, axis: int, acc: np.dtype) -> np.ndarray:
        return ufunc.accumulate(x.astype(acc), axis=axis)  # integers stay in their type, and wrap

    return accumulate


def _extremum_accumulate(ufunc: np.ufunc, negative: bool) -> Any:
    """Running max (min when ``negative``), with XLA's signed zeros: a zero so far is +0.0 once a
    +0.0 was seen (-0.0 once a -0.0 was, for min). NaN propagates, as in XLA."""

    def accumulate(x: np.ndarray, axis: int, acc: np.dtype) -> np.ndarray:
        out = ufunc.accumulate(x, axis=axis)
        if not dtypes.is_float(x.dtype):
            return out
        return sign_zeros(out, np.logical_or.accumulate(preferred_zeros(x, negative), axis=axis), negative)

    return accumulate


def _logaddexp_accumulate(x: np.ndarray, axis: int, acc: np.dtype) -> np.ndarray:
    """log(exp(x0) + ... + exp(xi)) without overflow. NumPy's logaddexp takes no complex numbers:
    for them, add pairwise, log(exp(a) + exp(b)) = a + log1p(exp(b - a)) with a the larger real part."""
    x = x.astype(acc)
    if x.dtype.kind != "c":
        return np.logaddexp.accumulate(x, axis=axis)
    out = np.moveaxis(x.copy(), axis, 0)
    for i in range(1, out.shape[0]):
        prev, new = out[i - 1], out[i]
        hi = np.where(prev.real >= new.real, prev, new)
        lo = np.where(prev.real >= new.real, new, prev)
        out[i] = hi + np.log1p(np.exp(lo - hi))
    return np.moveaxis(out, 0, axis)


cumsum_p = cumulative("cumsum", _ufunc_accumulate(np.add), NUMBER)
cumprod_p = cumulative("cumprod", _ufunc_accumulate(np.multiply), NUMBER)
cummax_p = cumulative("cummax", _extremum_accumulate(np.maximum, negative=False), NUMBER)
cummin_p = cumulative("cummin", _extremum_accumulate(np.minimum, negative=True), NUMBER)
cumlogsumexp_p = cumulative("cumlogsumexp", _logaddexp_accumulate, INEXACT)


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sums along ``axis`` (from its end if ``reverse``)."""
    return cumsum_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running products along ``axis`` (from its end if ``reverse``)."""
    return cumprod_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running maxima along ``axis`` (from its end if ``reverse``)."""
    return cummax_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running minima along ``axis`` (from its end if ``reverse``)."""
    return cummin_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running log(sum(exp(x))) along ``axis`` (from its end if ``reverse``), without overflow."""
    return cumlogsumexp_p.bind(operand, axis=int(axis), reverse=bool(reverse))
