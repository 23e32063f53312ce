"""Reductions with NumPy's signatures: sum, prod, mean, max, min, argmax, argmin.
Stage 01 introduced it.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..config import config
from ..core import get_aval
from .util import (
    ArrayLike,
    as_array,
    broadcast_to,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    convert,
)


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
    try:
        return canonicalize_axes(axis, ndim)
    except (TypeError, ValueError):  # strings looked for only now: valid axes pay nothing for it
        for name in axis if isinstance(axis, (tuple, list)) else (axis,):
            if isinstance(name, str):
                raise NameError(
                    f"Found an unbound axis name: {name}. Array axes are given by integer position "
                    "(axis=0); a string names an axis of a mapped function."
                ) from None
        raise


def _keep_dims(out: ArrayLike, axes: tuple[int, ...]) -> ArrayLike:
    return lax.expand_dims(out, axes)  # a broadcast_in_dim, as JAX's keepdims gives


def _upcast_16_bit_floats(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 sums accumulate in float32 and round once at the end, as in JAX."""
    return np.dtype(np.float32) if dtypes.is_float(dtype) and dtype.itemsize == 2 else dtype


def _reduce(
    name: str, lax_fn: Any, a: ArrayLike, axis: Any, dtype: Any, keepdims: bool, upcast: bool,
    initial: ArrayLike | None = None, where: ArrayLike | None = None, identity: Any = None,
) -> ArrayLike:  # fmt: skip
    """A reduction through ``lax_fn``; the result is strongly typed, even for a weak input.

    Elements where ``where`` is False are replaced by the reduction's ``identity`` first; ``initial``
    joins the result (with the same binary operation the reduction folds with).
    """
    check_arraylike(name, a)
    a = as_array(a)
    aval = get_aval(a)
    axes = _reduction_axes(axis, aval.ndim)
    return _reduce_axes(lax_fn, a, aval, axes, dtype, keepdims, upcast, initial, where, identity, name)


def _reduce_axes(
    lax_fn: Any, a: ArrayLike, aval: Any, axes: tuple[int, ...], dtype: Any, keepdims: bool, upcast: bool,
    initial: ArrayLike | None, where: ArrayLike | None, identity: Any, name: str,
) -> ArrayLike:  # fmt: skip
    """_reduce, once ``a`` is checked and its axes are canonical (mean has done both already)."""
    if dtype is not None:
        out_dtype = compute_dtype = dtypes.check_user_dtype(dtype, name)
    elif upcast:
        out_dtype, compute_dtype = _sum_dtypes(aval.dtype, config.jax_enable_x64)
    else:
        out_dtype = compute_dtype = aval.dtype
    a = convert(a, compute_dtype)
    if where is not None:
        a = _masked(a, where, identity(compute_dtype))
    out = lax_fn(a, axes)
    if initial is not None:
        combine = _COMBINE[lax_fn]
        out = combine(out, convert(as_array(initial), compute_dtype))
    out = convert(out, out_dtype)  # strong, and back from float32 for 16-bit floats
    return _keep_dims(out, axes) if keepdims else out


def _masked(a: ArrayLike, where: ArrayLike, fill: Any) -> ArrayLike:
    """``a`` where ``where`` holds, ``fill`` elsewhere (``where`` broadcasts to a's shape)."""
    aval = get_aval(a)
    mask = broadcast_to(convert(as_array(where), np.dtype(np.bool_)), aval.shape)
    filler = lax.broadcast_in_dim(convert(fill, aval.dtype), aval.shape, ())
    return lax.select_n(mask, filler, a)


_COMBINE = {lax.reduce_sum: lax.add, lax.reduce_prod: lax.mul, lax.reduce_max: lax.max, lax.reduce_min: lax.min,
            lax.reduce_and: lax.bitwise_and, lax.reduce_or: lax.bitwise_or, lax.reduce_xor: lax.bitwise_xor}  # fmt: skip


def _zero(dtype: np.dtype) -> Any:
    return np.zeros((), dtype)[()]


def _one(dtype: np.dtype) -> Any:
    return np.ones((), dtype)[()]


def _lowest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return np.False_
    return -np.inf if dtypes.is_inexact(dtype) else dtypes.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return np.True_
    return np.inf if dtypes.is_inexact(dtype) else dtypes.iinfo(dtype).max


def sum(  # noqa: A001
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None, promote_integers: bool = True,
) -> ArrayLike:  # fmt: skip
    """The sum of the elements over the given axes."""
    _no_out("sum", out)
    return _reduce("sum", lax.reduce_sum, a, axis, dtype, keepdims, promote_integers, initial, where, _zero)


def prod(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None, promote_integers: bool = True,
) -> ArrayLike:  # fmt: skip
    """The product of the elements over the given axes."""
    _no_out("prod", out)
    return _reduce("prod", lax.reduce_prod, a, axis, dtype, keepdims, promote_integers, initial, where, _one)


def _extremum(
    name: str, lax_fn: Any, a: ArrayLike, axis: Any, keepdims: bool, initial: Any, where: Any, identity: Any
) -> ArrayLike:
    check_arraylike(name, a)
    aval = get_aval(a)
    axes = _reduction_axes(axis, aval.ndim)
    if initial is None and builtins.any(aval.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if initial is None and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a where mask one has "
                         "to specify 'initial'.")  # fmt: skip
    return _reduce(name, lax_fn, a, axis, None, keepdims, False, initial, where, identity)


def max(  # noqa: A001
    a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The largest element over the given axes."""
    _no_out("max", out)
    return _extremum("max", lax.reduce_max, a, axis, keepdims, initial, where, _lowest)


def min(  # noqa: A001
    a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The smallest element over the given axes."""
    _no_out("min", out)
    return _extremum("min", lax.reduce_min, a, axis, keepdims, initial, where, _highest)


amax, amin = max, min


def _mean_dtypes(a_dtype: np.dtype, dtype: Any, name: str) -> tuple[np.dtype, np.dtype]:
    """(result, computation) dtypes of a mean-like reduction."""
    if dtype is not None:
        out_dtype = dtypes.check_user_dtype(dtype, name)
        return out_dtype, out_dtype
    out_dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(a_dtype))
    return out_dtype, _upcast_16_bit_floats(out_dtype)


def _count(
    aval: Any, axes: tuple[int, ...], where: ArrayLike | None, dtype: np.dtype, keepdims: bool
) -> ArrayLike:
    """How many elements each result is reduced from: a constant, or the mask's count."""
    if where is None:
        return convert(math.prod([aval.shape[i] for i in axes]), dtype)
    mask = broadcast_to(convert(as_array(where), np.dtype(np.bool_)), aval.shape)
    return sum(mask, axis=axes, dtype=dtype, keepdims=keepdims)


def mean(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False, *,
    where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The sum divided by the count; integers and bools average as the default float, and 16-bit
    floats in float32 (unless a dtype is asked for), rounded once at the end."""
    _no_out("mean", out)
    check_arraylike("mean", a)
    aval = get_aval(a)
    out_dtype, compute_dtype = _mean_dtypes(aval.dtype, dtype, "mean")
    axes = _reduction_axes(axis, aval.ndim)
    a = as_array(a)
    total = _reduce_axes(
        lax.reduce_sum, a, aval, axes, compute_dtype, keepdims, True, None, where, _zero, "mean"
    )
    return convert(lax.div(total, _count(aval, axes, where, compute_dtype, keepdims)), out_dtype)


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
        out = _keep_dims(out, axes)
    return out


def argmax(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    """The index of the largest element along an axis (of the flattened array for axis=None)."""
    _no_out("argmax", out)
    return _arg_extremum("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    """The index of the smallest element along an axis (of the flattened array for axis=None)."""
    _no_out("argmin", out)
    return _arg_extremum("argmin", lax.argmin, a, axis, keepdims)


# ----------------------------------------------------------------------------------------------
# Logical reductions, counting, spreads; NaN-ignoring variants; running reductions.


def _boolean_reduction(name: str, lax_fn: Any) -> Any:
    def fn(a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False, *,
           where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
        _no_out(name, out)
        check_arraylike(name, a)
        a = as_array(a)
        aval = get_aval(a)
        if dtypes.issubdtype(aval.dtype, np.complexfloating):
            a = lax.real(a)  # as JAX: a complex element counts by its real part (NumPy: by both)
            aval = get_aval(a)
        if aval.dtype != np.bool_:
            a = lax.ne(a, convert(0, aval.dtype))
        identity = _highest if lax_fn is lax.reduce_and else _lowest
        return _reduce(name, lax_fn, a, axis, None, keepdims, False, None, where, identity)

    fn.__name__ = name
    fn.__doc__ = f"Whether {'all' if name == 'all' else 'any'} of the elements over the given axes are true."
    return fn


all = _boolean_reduction("all", lax.reduce_and)  # noqa: A001
any = _boolean_reduction("any", lax.reduce_or)  # noqa: A001


def count_nonzero(a: ArrayLike, axis: Any = None, keepdims: bool = False) -> ArrayLike:
    """How many elements over the given axes are not zero, as the default int."""
    check_arraylike("count_nonzero", a)
    a = as_array(a)
    nonzero = lax.ne(a, convert(0, get_aval(a).dtype))
    return sum(nonzero, axis=axis, dtype=dtypes.default_dtype("i"), keepdims=keepdims)


def ptp(a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False) -> ArrayLike:
    """The range (maximum minus minimum) of the elements over the given axes."""
    _no_out("ptp", out)
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def _isnan(a: ArrayLike) -> ArrayLike:
    return lax.ne(a, a)


def _nan_free(a: ArrayLike, fill: Any) -> ArrayLike:
    """``a`` with its NaNs replaced by ``fill`` (integers have none)."""
    a = as_array(a)
    if not dtypes.is_inexact(get_aval(a).dtype):
        return a
    return _masked(a, lax.bitwise_not(_isnan(a)), fill)


def nansum(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The sum over the given axes, counting NaNs as zero."""
    check_arraylike("nansum", a)
    return sum(_nan_free(a, 0), axis, dtype, out, keepdims, initial, where)


def nanprod(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
    initial: ArrayLike | None = None, where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The product over the given axes, counting NaNs as one."""
    check_arraylike("nanprod", a)
    return prod(_nan_free(a, 1), axis, dtype, out, keepdims, initial, where)


def _nan_extremum(name: str, reduce: Any, fill: float) -> Any:
    def fn(a: ArrayLike, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
        check_arraylike(name, a)
        a = as_array(a)
        if not dtypes.is_inexact(get_aval(a).dtype):
            return reduce(a, axis, out, keepdims, initial, where)
        out_ = reduce(_nan_free(a, fill), axis, out, keepdims, initial, where)
        all_nan = all(_isnan(a), axis, keepdims=keepdims, where=where)
        nan = lax.broadcast_in_dim(convert(np.nan, get_aval(out_).dtype), get_aval(out_).shape, ())
        return lax.select_n(all_nan, out_, nan)

    fn.__name__ = name
    fn.__doc__ = (
        f"The {'largest' if reduce is max else 'smallest'} element over the given axes, ignoring NaNs."
    )
    return fn


nanmax = _nan_extremum("nanmax", max, -np.inf)
nanmin = _nan_extremum("nanmin", min, np.inf)


def _nan_arg_extremum(name: str, arg_fn: Any, fill: float) -> Any:
    def fn(
        a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
    ) -> ArrayLike:
        _no_out(name, out)
        check_arraylike(name, a)
        a = as_array(a)
        keepdims = bool(keepdims)
        if not dtypes.is_inexact(get_aval(a).dtype):
            return arg_fn(a, axis, keepdims=keepdims)
        nan = _isnan(a)
        index = arg_fn(_nan_free(a, fill), axis, keepdims=keepdims)
        all_nan = all(nan, axis, keepdims=keepdims)
        return lax.select_n(
            all_nan,
            index,
            lax.broadcast_in_dim(convert(-1, get_aval(index).dtype), get_aval(index).shape, ()),
        )

    fn.__name__ = name
    fn.__doc__ = f"The index of the {'largest' if arg_fn is argmax else 'smallest'} element, ignoring NaNs (-1 if all are)."
    return fn


nanargmax = _nan_arg_extremum("nanargmax", argmax, -np.inf)
nanargmin = _nan_arg_extremum("nanargmin", argmin, np.inf)


def nanmean(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
    where: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The mean over the given axes, ignoring NaNs."""
    _no_out("nanmean", out)
    check_arraylike("nanmean", a)
    a = as_array(a)
    if not dtypes.is_inexact(get_aval(a).dtype):
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    valid = lax.bitwise_not(_isnan(a))
    if where is not None:
        valid = lax.bitwise_and(
            valid, broadcast_to(convert(as_array(where), np.dtype(np.bool_)), get_aval(a).shape)
        )
    return mean(a, axis, dtype, keepdims=keepdims, where=valid)


def var(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: bool = False, *,
    where: ArrayLike | None = None, mean: ArrayLike | None = None, correction: int | float | None = None,
) -> ArrayLike:  # fmt: skip
    """The variance over the given axes: the mean squared deviation, divided by N - ddof."""
    _no_out("var", out)
    check_arraylike("var", a)
    if correction is not None:
        if ddof != 0:
            raise ValueError("var: ddof and correction can't both be given; correction is its newer name.")
        ddof = correction
    a = as_array(a)
    aval = get_aval(a)
    out_dtype, compute_dtype = _mean_dtypes(aval.dtype, dtype, "var")
    real_dtype = dtypes.canonicalize_dtype(np.zeros((), compute_dtype).real.dtype)
    axes = _reduction_axes(axis, aval.ndim)
    a = convert(a, compute_dtype)
    center = (
        _mean_fn(a, axes, keepdims=True, where=where)
        if mean is None
        else convert(as_array(mean), compute_dtype)
    )
    centered = lax.sub(a, center)
    if compute_dtype.kind == "c":
        squared = lax.add(lax.square(lax.real(centered)), lax.square(lax.imag(centered)))
    else:
        squared = lax.square(centered)
    total = sum(squared, axis=axes, keepdims=keepdims, where=where)
    count = _count(aval, axes, where, real_dtype, keepdims)
    # N - ddof, never below 0 (as JAX): no data left gives 0/0, a NaN, not a negative zero.
    dof = lax.max(lax.sub(count, convert(ddof, real_dtype)), convert(0, real_dtype))
    out_ = lax.div(total, dof)
    return convert(out_, dtypes.canonicalize_dtype(np.zeros((), out_dtype).real.dtype))


_mean_fn = mean


def std(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: bool = False, *,
    where: ArrayLike | None = None, mean: ArrayLike | None = None, correction: int | float | None = None,
) -> ArrayLike:  # fmt: skip
    """The standard deviation over the given axes: the square root of var."""
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


def _nan_valid(a: ArrayLike, where: ArrayLike | None) -> ArrayLike | None:
    if not dtypes.is_inexact(get_aval(a).dtype):
        return where
    valid = lax.bitwise_not(_isnan(a))
    if where is not None:
        valid = lax.bitwise_and(
            valid, broadcast_to(convert(as_array(where), np.dtype(np.bool_)), get_aval(a).shape)
        )
    return valid


def nanvar(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: bool = False,
    where: ArrayLike | None = None, mean: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The variance over the given axes, ignoring NaNs."""
    check_arraylike("nanvar", a)
    a = as_array(a)
    valid = _nan_valid(a, where)
    return var(_nan_free(a, 0), axis, dtype, out, ddof, keepdims, where=valid, mean=mean)


def nanstd(
    a: ArrayLike, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: bool = False,
    where: ArrayLike | None = None, mean: ArrayLike | None = None,
) -> ArrayLike:  # fmt: skip
    """The standard deviation over the given axes, ignoring NaNs."""
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where, mean))


def _cumulative(name: str, lax_fn: Any, nan_fill: Any = None) -> Any:
    def fn(a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None) -> ArrayLike:
        _no_out(name, out)
        check_arraylike(name, a)
        a = as_array(a)
        aval = get_aval(a)
        if axis is None or (aval.ndim == 0 and aval.weak_type):  # a Python scalar is a 1-element array
            a = lax.reshape(a, (aval.size,))
            axis = 0
        if nan_fill is not None:
            a = _nan_free(a, nan_fill)
        axis = canonicalize_axis(axis, get_aval(a).ndim)
        if dtype is not None:
            a = convert(a, dtypes.check_user_dtype(dtype, name))
        elif aval.dtype == np.bool_:
            a = convert(a, dtypes.default_dtype("i"))
        return convert(lax_fn(a, axis), get_aval(a).dtype)  # strongly typed

    fn.__name__ = name
    what = "sum" if lax_fn is lax.cumsum else "product"
    fn.__doc__ = f"The running {what} along an axis (of the flattened array for axis=None)" + (
        ", counting NaNs as " + ("zero." if nan_fill == 0 else "one.") if nan_fill is not None else "."
    )
    return fn


cumsum = _cumulative("cumsum", lax.cumsum)
cumprod = _cumulative("cumprod", lax.cumprod)
nancumsum = _cumulative("nancumsum", lax.cumsum, 0)
nancumprod = _cumulative("nancumprod", lax.cumprod, 1)


def _cumulative_array_api(name: str, running: Any, identity: int) -> Any:
    def fn(
        x: ArrayLike, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
    ) -> ArrayLike:
        check_arraylike(name, x)
        x = as_array(x)
        ndim = get_aval(x).ndim
        if axis is None:
            if ndim > 1:
                raise ValueError(f"{name}: the input array has rank {ndim}, however axis was not set to an "
                                 "explicit value. The axis argument is only optional for one-dimensional arrays.")  # fmt: skip
            axis = 0
        if ndim == 0:
            raise ValueError(f"{name} does not take zero-dimensional arrays.")
        axis = canonicalize_axis(axis, ndim)
        if dtype is None and identity == 0:  # cumulative_sum upcasts small ints as sum does; cumsum does not
            dtype = _sum_dtypes(get_aval(x).dtype, config.jax_enable_x64)[0]
        out = running(x, axis, dtype)
        if include_initial:
            aval = get_aval(out)
            pad = [(0, 0, 0)] * aval.ndim
            pad[axis] = (1, 0, 0)
            out = lax.pad(out, convert(identity, aval.dtype), pad)
        return out

    fn.__name__ = name
    fn.__doc__ = f"The running {'sum' if identity == 0 else 'product'} along an axis, optionally starting with the identity."
    return fn


cumulative_sum = _cumulative_array_api("cumulative_sum", cumsum, 0)
cumulative_prod = _cumulative_array_api("cumulative_prod", cumprod, 1)
