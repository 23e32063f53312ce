"""Making arrays: array/asarray/astype, zeros/ones/full and their *_like forms, arange, linspace,
eye; all through lax (a filled array is a broadcast scalar, a range an iota), as in JAX.
Stage 01 introduced it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..array import Array, to_array
from ..core import Tracer, canonicalize_value, get_aval, to_concrete_value
from ..errors import ConcretizationTypeError
from .array_api import place, with_device
from .ufuncs import add, floor_toward_minus_inf, multiply, subtract, true_divide
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axis, check_arraylike, convert, promote_dtypes


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


def _dtype_or(dtype: Any, default_kind: str, name: str) -> np.dtype:
    """``dtype`` (a 64-bit one warns while x64 is off), or the default type of ``default_kind``."""
    return dtypes.default_dtype(default_kind) if dtype is None else dtypes.check_user_dtype(dtype, name)


# ----------------------------------------------------------------------------------------------
# array / asarray


@with_device
def array(object: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> ArrayLike:  # noqa: A002
    """An array from an Array, a tracer, a NumPy value, a Python scalar, or nested lists of them.

    A bare Python scalar stays weakly typed (``asarray(2)`` is a weak int32); lists and an
    explicit ``dtype`` make strong types.
    """
    object = _from_protocols(object)
    if object is None:
        raise ValueError("None is not a valid value for jnp.array")
    if isinstance(object, (list, tuple)):
        out = _array_from_sequence(object, dtype)
    elif isinstance(object, (Array, Tracer)):
        out = object if dtype is None else convert(object, dtypes.check_user_dtype(dtype, "asarray"))
    elif dtype is not None:
        # A NumPy value or a Python scalar is converted by NumPy, as in JAX (so asarray(300,
        # dtype=np.uint8) is NumPy's OverflowError, and complex to bool asks for nonzero).
        out = to_array(np.asarray(object, dtype=dtypes.check_user_dtype(dtype, "asarray")))
    else:
        out = to_array(_known_leaf(object))
    ndim = get_aval(out).ndim
    if ndmin > ndim:
        out = lax.reshape(out, (1,) * (ndmin - ndim) + get_aval(out).shape)
    return out


def _from_protocols(x: Any) -> Any:
    """An object that says how to become an array: ``__jax_array__`` gives a didax value, and
    ``__array__`` (NumPy's protocol) a NumPy one, which is then copied like any NumPy array."""
    if isinstance(x, (Array, Tracer)):
        return x
    if hasattr(x, "__jax_array__"):
        return x.__jax_array__()
    if hasattr(x, "__array__") and not isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    return x


def _known_leaf(x: Any) -> Any:
    """``x``, or for a value of no type didax knows (a range, a memoryview) what NumPy makes of
    it, as JAX does; NumPy's array of a dict or a string is no number, and is refused here."""
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic)) or type(x) in dtypes.PYTHON_SCALAR_DTYPES:
        return x
    if x is None:  # JAX checks every leaf for None first, a ValueError
        raise ValueError("None is not a valid value for jnp.array")
    value = np.asarray(x)
    if value.dtype not in dtypes.SUPPORTED_DTYPES:
        canonicalize_value(x)  # raises the TypeError that names x
    return value


@with_device
def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None) -> ArrayLike:
    """An array from ``a``, converted only where needed (see array)."""
    return array(a, dtype=dtype, copy=False)


@with_device
def astype(x: ArrayLike, dtype: Any, /, *, copy: bool = False) -> ArrayLike:
    """``x`` as ``dtype``, strongly typed. Complex to bool asks whether the number is nonzero, as
    in NumPy (lax.convert_element_type, like XLA, would look at the real part only)."""
    x = as_array(x)
    dtype = dtypes.check_user_dtype(dtype, "astype")
    if get_aval(x).dtype.kind == "c" and dtype == np.bool_:
        return lax.ne(x, convert(0, get_aval(x).dtype))
    return convert(x, dtype)


def _array_from_sequence(seq: Sequence[Any], dtype: Any) -> ArrayLike:
    leaves = list(_leaves(seq))
    if any(isinstance(x, (Array, Tracer)) for x in leaves):
        # Arrays or tracers inside: stack them with lax, so it works under transformations.
        return _stack_nested(seq, dtype)
    if not leaves:
        return Array(np.zeros(np.shape(seq), _dtype_or(dtype, "f", "asarray")))
    target = dtypes.result_type(*leaves) if dtype is None else dtypes.check_user_dtype(dtype, "asarray")
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
            yield _known_leaf(x)


def _stack_nested(seq: Sequence[Any], dtype: Any) -> ArrayLike:
    items = [_stack_nested(x, dtype) if isinstance(x, (list, tuple)) else _known_leaf(x) for x in seq]
    items = promote_dtypes(*items) if len(items) > 1 else items
    if dtype is not None:
        items = [convert(x, dtypes.check_user_dtype(dtype, "asarray")) for x in items]
    shapes = {get_aval(x).shape for x in items}
    if len(shapes) > 1:
        raise TypeError(f"didax.numpy.array: elements have different shapes {sorted(shapes)}.")
    expanded = [lax.reshape(x, (1,) + get_aval(x).shape) for x in items]
    out = lax.concatenate(expanded, 0)
    return convert(out, get_aval(out).dtype, weak_type=False)


# ----------------------------------------------------------------------------------------------
# Filled arrays: one scalar broadcast by lax.broadcast_in_dim, never a full-size constant, so a
# traced program holds a small equation, as in JAX.


def _filled(
    shape: tuple[int, ...], fill_value: ArrayLike, dtype: np.dtype, weak_type: bool = False
) -> ArrayLike:
    """``fill_value`` as ``dtype`` (converted as lax.convert_element_type does), broadcast to ``shape``."""
    value = lax.convert_element_type(fill_value, dtype)
    if weak_type:
        value = convert(value, dtype, weak_type=True)
    return broadcast_to(value, shape)


def _is_scalar(x: ArrayLike) -> bool:
    """A Python scalar (of any size: it is converted later) or a rank-0 value."""
    return type(x) in dtypes.PYTHON_SCALAR_DTYPES or get_aval(x).shape == ()


@with_device
def full(shape: Any, fill_value: ArrayLike, dtype: Any = None) -> ArrayLike:
    """``fill_value`` broadcast to ``shape``; a Python scalar fill keeps its weak type."""
    check_arraylike("full", fill_value)
    shape = _shape(shape)
    if dtype is None:
        return broadcast_to(as_array(fill_value), shape)
    if not _is_scalar(fill_value):  # an array of fill values, converted as asarray would
        return broadcast_to(asarray(fill_value, dtype=dtype), shape)
    return _filled(shape, fill_value, dtypes.check_user_dtype(dtype, "full"))


@with_device
def zeros(shape: Any, dtype: Any = None) -> ArrayLike:
    """An array of zeros of the given shape (float32 by default)."""
    return _filled(_shape(shape), 0, _dtype_or(dtype, "f", "zeros"))


@with_device
def ones(shape: Any, dtype: Any = None) -> ArrayLike:
    """An array of ones of the given shape (float32 by default)."""
    return _filled(_shape(shape), 1, _dtype_or(dtype, "f", "ones"))


empty = zeros


@with_device
def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    """``fill_value`` in the shape and dtype of ``a`` (or those given); weakly typed when ``a`` is
    and no dtype is given, as in JAX (zeros_like of a weak array is weak)."""
    check_arraylike("full_like", a, fill_value)
    aval = get_aval(a)
    out_shape = aval.shape if shape is None else _shape(shape)
    out_dtype = aval.dtype if dtype is None else dtypes.check_user_dtype(dtype, "full_like")
    if not _is_scalar(fill_value):
        return broadcast_to(asarray(fill_value, dtype=out_dtype), out_shape)
    return _filled(out_shape, fill_value, out_dtype, weak_type=dtype is None and aval.weak_type)


@with_device
def zeros_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    """Zeros in the shape and dtype of ``a`` (or those given)."""
    return full_like(a, 0, dtype, shape)


@with_device
def ones_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> ArrayLike:
    """Ones in the shape and dtype of ``a`` (or those given)."""
    return full_like(a, 1, dtype, shape)


# ----------------------------------------------------------------------------------------------
# Ranges: lax.iota scaled and shifted, as in JAX.


def _concrete_scalar(name: str, x: Any) -> Any:
    """The Python value of a bound that must be known now: the result's shape depends on it."""
    if type(x) in dtypes.PYTHON_SCALAR_DTYPES:
        return x
    value = to_concrete_value(x)
    if value is None:
        raise ConcretizationTypeError(
            x,
            f"The problem arose with the bounds of didax.numpy.{name}: "
            "the length of its result must be known.\n",
        )
    if value.shape:
        raise ValueError(f"didax.numpy.{name}: arguments must be scalars; got {x!r}.")
    return value.item()


@with_device
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> ArrayLike:
    """Evenly spaced values in [start, stop); the bounds must be known (its shape depends on them).

    Without a dtype the result has the bounds' promoted type, so NumPy scalars keep theirs
    (``arange(np.int8(5))`` is int8); Python scalars give the default types, strongly typed.
    """
    check_arraylike("arange", *(b for b in (start, stop, step) if b is not None))
    bounds = [b for b in (start, stop, step) if b is not None]
    out_dtype = dtypes.result_type(*bounds) if dtype is None else dtypes.check_user_dtype(dtype, "arange")
    start, stop, step = (None if b is None else _concrete_scalar("arange", b) for b in (start, stop, step))
    if any(isinstance(b, complex) for b in (start, stop, step)):
        raise ValueError("didax.numpy.arange does not take complex start, stop or step (nor does JAX).")
    if stop is None:
        start, stop = 0, start
    if step is None:
        size = max(0, math.ceil(stop - start))
        if start == 0:
            return lax.iota(out_dtype, size)
        return lax.add(lax.convert_element_type(start, out_dtype), lax.iota(out_dtype, size))
    if step == 0:
        raise ValueError("didax.numpy.arange: step must not be 0.")
    size = max(0, math.ceil((stop - start) / step))
    # 16-bit floats would round the larger multiples of step: work in float32, round once.
    work = np.dtype(np.float32) if dtypes.is_float(out_dtype) and out_dtype.itemsize < 4 else out_dtype
    values = lax.mul(lax.convert_element_type(step, work), lax.iota(work, size))
    return convert(lax.add(lax.convert_element_type(start, work), values), out_dtype)


@with_device
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``num`` evenly spaced values from start to stop (``stop`` included when ``endpoint``). Array
    bounds broadcast together and give one range per element, laid along the new axis ``axis``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    # The bounds' type, made inexact: NumPy scalars keep theirs (a float16 start gives float16).
    compute = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    start, stop = convert(start, compute), convert(stop, compute)
    bounds = np.broadcast_shapes(get_aval(start).shape, get_aval(stop).shape)
    axis = canonicalize_axis(axis, len(bounds) + 1)
    divisions = num - 1 if endpoint else num
    step = true_divide(subtract(stop, start), max(divisions, 1))

    def along(x: ArrayLike, size: int) -> ArrayLike:
        """x (of the bounds' shape, once broadcast) repeated `size` times along the new axis."""
        shape = (*bounds[:axis], size, *bounds[axis:])
        return lax.broadcast_in_dim(broadcast_to(x, bounds), shape, tuple(d for d in range(len(shape)) if d != axis))

    positions = lax.broadcasted_iota(compute, (*bounds[:axis], num, *bounds[axis:]), axis)
    out = add(along(start, num), multiply(positions, along(step, num)))
    if endpoint and num > 1:  # make the last value exactly `stop`
        out = lax.concatenate([lax.slice_in_dim(out, 0, num - 1, axis=axis), along(stop, 1)], axis)
    out_dtype = dtypes.check_user_dtype(dtype, "linspace") if dtype is not None else compute
    if out_dtype.kind in "iu":  # NumPy rounds toward -inf when it makes integers
        out = floor_toward_minus_inf(out)
    out = convert(out, out_dtype)
    if not retstep:
        return out
    # As JAX (and NumPy): the step is in the range's float type, a float for an integer dtype, and
    # nan when there is no step (no values, or one with the endpoint).
    step = convert(step, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(out_dtype)))
    if num == 0 or (num == 1 and endpoint):
        step = lax.full_like(step, np.nan)
    return out, step


def _eye_size(name: str, n: Any) -> int:
    """N or M of eye: an integer (else TypeError) that is not negative (else ValueError, as NumPy)."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"eye: {name} must be an integer, got {n!r}.") from None
    if n < 0:
        raise ValueError(f"eye: negative dimensions are not allowed, got {name}={n}.")
    return n


@with_device
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
    return convert(on_diagonal, _dtype_or(dtype, "f", "eye"))


# ----------------------------------------------------------------------------------------------
# Arrays from host data: NumPy reads the bytes, text or DLPack buffer (only known values can be
# read), and the result becomes a didax array like any NumPy array.


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> ArrayLike:
    """The bytes of ``buffer`` read as a 1-D array of ``dtype``."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> ArrayLike:
    """The numbers in the text ``string``, separated by ``sep``, as a 1-D array of ``dtype``."""
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def fromiter(*args: Any, **kwargs: Any) -> ArrayLike:
    """Refused, as in JAX: reading an iterator uses it up, which a pure function must not do."""
    raise NotImplementedError(
        "didax.numpy.fromiter() is not implemented because it may be non-pure and thus unsafe under "
        "transformations (it consumes the iterator). Consider didax.numpy.asarray(np.fromiter(...)) "
        "instead, outside any transformation."
    )


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> ArrayLike:
    """An array from any object that exports a DLPack buffer (``__dlpack__``): a NumPy array, a
    PyTorch CPU tensor... didax copies it (its arrays never change), so ``copy=False`` is refused."""
    if copy is False:
        raise BufferError("didax.numpy.from_dlpack cannot share the buffer (copy=False): didax arrays own "
                          "their data, so that nothing done to the source changes them.")  # fmt: skip
    return place(asarray(np.from_dlpack(x)), device)
