"""Making arrays: array/asarray, zeros/ones/full and their *_like forms, arange, linspace, eye.
Stage 01 introduced it.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..array import Array, to_array
from ..core import Tracer, canonicalize_value, get_aval
from .ufuncs import add, floor_toward_minus_inf, multiply, subtract, true_divide
from .util import ArrayLike, as_array, broadcast_to, check_arraylike, convert, promote_dtypes


def _shape(shape: Any) -> tuple[int, ...]:
    """An int or a sequence of ints, as a shape."""
    try:
        dims = tuple(map(operator.index, (shape,) if np.ndim(shape) == 0 else shape))
    except TypeError:
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape!r}."
        ) from None
    if any(d < 0 for d in dims):  # JAX finds it in broadcast_in_dim's shape rule: a TypeError
        raise TypeError(f"Shapes must have every element be nonnegative, got {dims}.")
    return dims


def _dtype_or(dtype: Any, default_kind: str) -> np.dtype:
    return dtypes.default_dtype(default_kind) if dtype is None else dtypes.canonicalize_dtype(dtype)


# ----------------------------------------------------------------------------------------------
# array / asarray


def array(object: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> ArrayLike:  # noqa: A002
    """An array from an Array, a tracer, a NumPy value, a Python scalar, or nested lists of them.

    A bare Python scalar stays weakly typed (``asarray(2)`` is a weak int32); lists and an
    explicit ``dtype`` make strong types.
    """
    if isinstance(object, (list, tuple)):
        out = _array_from_sequence(object, dtype)
    elif isinstance(object, (Array, Tracer)):
        out = object if dtype is None else convert(object, dtypes.canonicalize_dtype(dtype))
    elif dtype is not None:
        # A NumPy value or a Python scalar is converted by NumPy, as in JAX (so asarray(300,
        # dtype=np.uint8) is NumPy's OverflowError, and complex to bool asks for nonzero).
        out = to_array(np.asarray(object, dtype=dtypes.canonicalize_dtype(dtype)))
    else:
        out = to_array(object)
    ndim = get_aval(out).ndim
    if ndmin > ndim:
        out = lax.reshape(out, (1,) * (ndmin - ndim) + get_aval(out).shape)
    return out


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None) -> ArrayLike:
    return array(a, dtype=dtype, copy=False)


def astype(x: ArrayLike, dtype: Any, /, *, copy: bool = False) -> ArrayLike:
    """``x`` as ``dtype``, strongly typed. Complex to bool asks whether the number is nonzero, as
    in NumPy (lax.convert_element_type, like XLA, would look at the real part only)."""
    x = as_array(x)
    dtype = dtypes.canonicalize_dtype(dtype)
    if get_aval(x).dtype.kind == "c" and dtype == np.bool_:
        return lax.ne(x, convert(0, get_aval(x).dtype))
    return convert(x, dtype)


def _array_from_sequence(seq: Sequence[Any], dtype: Any) -> ArrayLike:
    leaves = list(_leaves(seq))
    if any(isinstance(x, (Array, Tracer)) for x in leaves):
        # Arrays or tracers inside: stack them with lax, so it works under transformations.
        return _stack_nested(seq, dtype)
    if not leaves:
        return Array(np.zeros(np.shape(seq), _dtype_or(dtype, "f")))
    target = dtypes.result_type(*leaves) if dtype is None else dtypes.canonicalize_dtype(dtype)
    try:
        value = np.array(seq, dtype=target)
    except ValueError as err:
        raise ValueError(f"didax.numpy.array: could not build an array from {seq!r}: {err}") from None
    return Array(value)


def _leaves(seq: Any) -> Any:
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _leaves(x)
        else:
            if not (isinstance(x, (Array, Tracer, np.ndarray, np.generic)) or type(x) in dtypes.PYTHON_SCALAR_DTYPES):
                canonicalize_value(x)  # raises a TypeError naming the bad element
            yield x


def _stack_nested(seq: Sequence[Any], dtype: Any) -> ArrayLike:
    items = [_stack_nested(x, dtype) if isinstance(x, (list, tuple)) else x for x in seq]
    items = promote_dtypes(*items) if len(items) > 1 else items
    if dtype is not None:
        items = [convert(x, dtypes.canonicalize_dtype(dtype)) for x in items]
    shapes = {get_aval(x).shape for x in items}
    if len(shapes) > 1:
        raise TypeError(f"didax.numpy.array: elements have different shapes {sorted(shapes)}.")
    expanded = [lax.reshape(x, (1,) + get_aval(x).shape) for x in items]
    out = lax.concatenate(expanded, 0)
    return convert(out, get_aval(out).dtype, weak_type=False)


# ----------------------------------------------------------------------------------------------
# Filled arrays


def full(shape: Any, fill_value: ArrayLike, dtype: Any = None) -> ArrayLike:
    """``fill_value`` broadcast to ``shape``; a Python scalar fill keeps its weak type."""
    check_arraylike("full", fill_value)
    value = asarray(fill_value) if dtype is None else asarray(fill_value, dtype=dtype)
    return broadcast_to(value, _shape(shape))


def zeros(shape: Any, dtype: Any = None) -> Array:
    return Array(np.zeros(_shape(shape), _dtype_or(dtype, "f")))


def ones(shape: Any, dtype: Any = None) -> Array:
    return Array(np.ones(_shape(shape), _dtype_or(dtype, "f")))


empty = zeros


def _like(a: ArrayLike, dtype: Any, shape: Any) -> tuple[tuple[int, ...], np.dtype, bool]:
    aval = get_aval(a)
    out_shape = aval.shape if shape is None else _shape(shape)
    if dtype is None:
        return out_shape, aval.dtype, aval.weak_type
    return out_shape, dtypes.canonicalize_dtype(dtype), False


def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    out_shape, out_dtype, weak = _like(a, dtype, shape)
    return broadcast_to(convert(fill_value, out_dtype, weak), out_shape)


def zeros_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    return full_like(a, 0, dtype, shape)


def ones_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    return full_like(a, 1, dtype, shape)


# ----------------------------------------------------------------------------------------------
# Ranges


def _concrete_scalar(name: str, x: Any) -> Any:
    if isinstance(x, Tracer):
        raise TypeError(f"{name} needs concrete (known) bounds, got a traced value {x!r}.")
    return x.item() if isinstance(x, (Array, np.ndarray, np.generic)) else x


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Array:
    """Evenly spaced values in [start, stop); the bounds must be known (its shape depends on them)."""
    bounds = [_concrete_scalar("arange", b) for b in (start, stop, step) if b is not None]
    out_dtype = dtypes.result_type(*bounds) if dtype is None else dtypes.canonicalize_dtype(dtype)
    values = np.arange(*bounds)
    return Array(values.astype(out_dtype))


def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``num`` evenly spaced scalars from start to stop (``stop`` included when ``endpoint``)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if axis != 0 or get_aval(start).shape or get_aval(stop).shape:
        raise NotImplementedError("didax.numpy.linspace takes scalar start and stop, and axis=0.")
    compute = dtypes.result_type(start, stop, dtypes.default_dtype("f"))
    start, stop = convert(start, compute), convert(stop, compute)
    divisions = num - 1 if endpoint else num
    step = true_divide(subtract(stop, start), max(divisions, 1))
    out = add(start, multiply(lax.iota(compute, num), step))
    if endpoint and num > 1:  # make the last value exactly `stop`
        out = lax.concatenate([lax.slice(out, (0,), (num - 1,)), lax.reshape(stop, (1,))], 0)
    out_dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else compute
    if out_dtype.kind in "iu":  # NumPy rounds toward -inf when it makes integers
        out = floor_toward_minus_inf(out)
    out = convert(out, out_dtype)
    return (out, convert(step, out_dtype)) if retstep else out


def _eye_size(name: str, n: Any) -> int:
    """N or M of eye: an integer (else TypeError) that is not negative (else ValueError, as NumPy)."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"eye: {name} must be an integer, got {n!r}.") from None
    if n < 0:
        raise ValueError(f"eye: negative dimensions are not allowed, got {name}={n}.")
    return n


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> ArrayLike:
    """Ones on the k-th diagonal of an N x M matrix, zeros elsewhere."""
    N, M = _eye_size("N", N), _eye_size("M", N if M is None else M)
    try:
        k = operator.index(k)
    except TypeError:
        raise ValueError(f"eye: k must be a scalar integer, got {k!r}.") from None
    rows = lax.broadcasted_iota(np.int32, (N, M), 0)
    cols = lax.broadcasted_iota(np.int32, (N, M), 1)
    on_diagonal = lax.eq(lax.sub(cols, rows), np.int32(k))
    return convert(on_diagonal, _dtype_or(dtype, "f"))
