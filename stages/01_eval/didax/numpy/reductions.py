"""Reductions with NumPy's signatures: sum, prod, mean, max, min, argmax, argmin.
Stage 01 introduced it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..config import config
from ..core import get_aval
from .util import ArrayLike, canonicalize_axes, canonicalize_axis, check_arraylike, convert


@functools.cache
def _sum_dtypes(dtype: np.dtype, x64: bool) -> tuple[np.dtype, np.dtype]:
    """(result, accumulation) dtypes of a sum or product of ``dtype`` when no dtype is asked for.
    Remembered per x64 mode: the default integer depends on it."""
    out_dtype = _upcast_small_ints(dtype)
    return out_dtype, _upcast_16_bit_floats(out_dtype)


def _upcast_small_ints(dtype: np.dtype) -> np.dtype:
    """sum and prod of bools and small integers accumulate in the default int (uint) type."""
    if dtype == np.bool_:
        return dtypes.default_dtype("i")
    if dtype.kind == "i" and dtype.itemsize < dtypes.default_dtype("i").itemsize:
        return dtypes.default_dtype("i")
    if dtype.kind == "u" and dtype.itemsize < dtypes.default_dtype("i").itemsize:
        return dtypes.canonicalize_dtype(np.uint64)
    return dtype


def _no_out(name: str, out: Any) -> None:
    """didax arrays are immutable, so there is no output array to write into."""
    if out is not None:
        raise NotImplementedError(
            f"The 'out' argument to didax.numpy.{name} is not supported; use the returned array."
        )


def _reduction_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """canonicalize_axes, but a string is refused as JAX refuses it: as an axis *name*, which
    only exists inside a mapped function (pmap, shard_map)."""
    if axis is None:
        return tuple(range(ndim))
    for name in axis if isinstance(axis, (tuple, list)) else (axis,):
        if isinstance(name, str):
            raise NameError(
                f"Found an unbound axis name: {name}. Array axes are given by integer position "
                "(axis=0); a string names an axis of a mapped function."
            )
    return canonicalize_axes(axis, ndim)


def _keep_dims(out: ArrayLike, in_shape: tuple[int, ...], axes: tuple[int, ...]) -> ArrayLike:
    return lax.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(in_shape)))


def _upcast_16_bit_floats(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 sums accumulate in float32 and round once at the end, as in JAX."""
    return np.dtype(np.float32) if dtypes.is_float(dtype) and dtype.itemsize == 2 else dtype


def _reduce(name: str, lax_fn: Any, a: ArrayLike, axis: Any, dtype: Any, keepdims: bool, upcast: bool) -> ArrayLike:
    """A reduction through ``lax_fn``; the result is strongly typed, even for a weak input."""
    check_arraylike(name, a)
    aval = get_aval(a)
    axes = _reduction_axes(axis, aval.ndim)
    if dtype is not None:
        out_dtype = compute_dtype = dtypes.check_user_dtype(dtype, name)
    elif upcast:
        out_dtype, compute_dtype = _sum_dtypes(aval.dtype, config.jax_enable_x64)
    else:
        out_dtype = compute_dtype = aval.dtype
    out = lax_fn(convert(a, compute_dtype), axes)
    out = convert(out, out_dtype)  # strong, and back from float32 for 16-bit floats
    return _keep_dims(out, aval.shape, axes) if keepdims else out


def sum(a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:  # noqa: A001
    _no_out("sum", out)
    return _reduce("sum", lax.reduce_sum, a, axis, dtype, keepdims, upcast=True)


def prod(a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    _no_out("prod", out)
    return _reduce("prod", lax.reduce_prod, a, axis, dtype, keepdims, upcast=True)


def _extremum(name: str, lax_fn: Any, a: ArrayLike, axis: Any, keepdims: bool) -> ArrayLike:
    aval = get_aval(a)
    axes = _reduction_axes(axis, aval.ndim)
    if any(aval.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    return _reduce(name, lax_fn, a, axis, None, keepdims, upcast=False)


def max(a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:  # noqa: A001
    _no_out("max", out)
    return _extremum("max", lax.reduce_max, a, axis, keepdims)


def min(a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:  # noqa: A001
    _no_out("min", out)
    return _extremum("min", lax.reduce_min, a, axis, keepdims)


amax, amin = max, min


def mean(a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    """The sum divided by the count; integers and bools average as the default float, and 16-bit
    floats in float32 (unless a dtype is asked for), rounded once at the end."""
    _no_out("mean", out)
    check_arraylike("mean", a)
    aval = get_aval(a)
    if dtype is not None:
        out_dtype = compute_dtype = dtypes.check_user_dtype(dtype, "mean")
    else:
        out_dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(aval.dtype))
        compute_dtype = _upcast_16_bit_floats(out_dtype)
    axes = _reduction_axes(axis, aval.ndim)
    count = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    total = sum(a, axis=axes, dtype=compute_dtype, keepdims=keepdims)
    return convert(lax.div(total, convert(count, compute_dtype)), out_dtype)


def _arg_extremum(name: str, lax_fn: Any, a: ArrayLike, axis: Any, keepdims: bool) -> ArrayLike:
    check_arraylike(name, a)
    aval = get_aval(a)
    if axis is None:
        a = lax.reshape(a, (aval.size,))
        axis_ = 0
    else:
        axis_ = canonicalize_axis(axis, aval.ndim)
    if get_aval(a).shape[axis_] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = lax_fn(a, axis_, dtypes.default_dtype("i"))
    if keepdims:
        axes = tuple(range(aval.ndim)) if axis is None else (axis_,)
        out = _keep_dims(out, aval.shape, axes)
    return out


def argmax(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    _no_out("argmax", out)
    return _arg_extremum("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    _no_out("argmin", out)
    return _arg_extremum("argmin", lax.argmin, a, axis, keepdims)
