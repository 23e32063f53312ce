"""``jnp.ufunc``: NumPy's universal-function objects, with their methods ``reduce``,
``accumulate``, ``outer``, ``at`` and ``reduceat``, and ``frompyfunc`` to make one from a scalar
function. Stage 01 introduced it.

As in JAX, fourteen functions of didax.numpy are ufuncs (``jnp.add``, ``jnp.maximum``,
``jnp.logical_and``, ...): called, they run the function of ufuncs.py; their methods use the
matching reduction (``jnp.add.reduce`` is ``sum`` along axis 0), running reduction or ``x.at``
update. A method a ufunc has no such shortcut for is derived from its function: a fold along the
axis, written here as a Python loop of lax operations over the axis' known length.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from . import reductions, ufuncs
from .creation import astype
from .indexing import _non_tuple_message, take
from .manipulation import append
from .shapes import moveaxis, ravel, stack
from .util import (
    ArrayLike,
    as_array,
    broadcast_shapes,
    broadcast_to,
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes_inexact,
)
from .vectorize import vectorize

_AT_INPLACE_WARNING = """\
Because didax arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


class ufunc:
    """A function applied elementwise to broadcast arrays, with NumPy's ufunc methods. Binary
    ufuncs reduce, accumulate, take outer products and update in place (``at``)."""

    def __init__(
        self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
        nargs: int | None = None, identity: Any = None, call: Callable[..., Any] | None = None,
        reduce: Callable[..., Any] | None = None, accumulate: Callable[..., Any] | None = None,
        at: Callable[..., Any] | None = None, reduceat: Callable[..., Any] | None = None,
    ) -> None:  # fmt: skip
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # Read-only from outside (properties below): a ufunc is a hashable, unchanging value.
        self._func = func
        self._nin, self._nout = operator.index(nin), operator.index(nout)
        self._nargs = operator.index(nargs or nin)
        self._identity = identity
        self._call, self._reduce, self._accumulate, self._at, self._reduceat = call, reduce, accumulate, at, reduceat

    nin = property(lambda self: self._nin)
    nout = property(lambda self: self._nout)
    nargs = property(lambda self: self._nargs)
    identity = property(lambda self: self._identity)

    def _key(self) -> tuple[Any, ...]:
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: ArrayLike, out: None = None, where: None = None) -> Any:
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if self._call is not None:
            return self._call(*args)  # a function of ufuncs.py, which checks its arguments itself
        check_arraylike(self.__name__, *args)
        return self._call_elementwise(*args)

    def _call_elementwise(self, *args: ArrayLike) -> Any:
        """The function mapped over every axis of the broadcast arguments with vmap, as
        jnp.vectorize does: it runs once, on batched values, not once per element."""
        return vectorize(self._func)(*args)

    def _result_dtype(self, *args: ArrayLike) -> np.dtype:
        """The dtype the function gives for these arguments' types (JAX asks eval_shape)."""
        return get_aval(self._func(*(_one(as_array(a)) for a in args))).dtype

    def _check_binary(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    # --- reduce -----------------------------------------------------------------------------------

    def reduce(
        self, a: ArrayLike, axis: int | None = 0, dtype: Any = None, out: None = None, keepdims: bool = False,
        initial: ArrayLike | None = None, where: ArrayLike | None = None,
    ) -> ArrayLike:  # fmt: skip
        """The function folded over ``axis`` (None: every axis): add.reduce is a sum."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._check_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                                 "so to use a where mask one has to specify 'initial'.")  # fmt: skip
            if get_aval(where).dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={get_aval(where).dtype}")
        reduce = self._reduce or self._reduce_by_folding
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_by_folding(
        self, a: ArrayLike, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
        initial: ArrayLike | None = None, where: ArrayLike | None = None,
    ) -> ArrayLike:  # fmt: skip
        arr = as_array(a)
        shape = get_aval(arr).shape
        initial = self.identity if initial is None else initial
        dtype = self._result_dtype(arr, arr) if dtype is None else dtype
        if where is not None:
            where = broadcast_to(as_array(where), shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr, where, axis = ravel(arr), None if where is None else ravel(where), 0
        else:
            axis = canonicalize_axis(axis, len(shape))
            final_shape = (*shape[:axis], 1, *shape[axis + 1 :]) if keepdims else (*shape[:axis], *shape[axis + 1 :])
        arr, where = moveaxis(arr, axis, 0), None if where is None else moveaxis(where, axis, 0)
        n = get_aval(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return lax.full(final_shape, initial, dtypes.canonicalize_dtype(dtype))
        start = 1 if initial is None else 0
        value = lax.index_in_dim(arr, 0, keepdims=False) if initial is None else as_array(initial)
        value = broadcast_to(astype(value, dtype), get_aval(arr).shape[1:])
        for i in range(start, n):
            step = self(value, astype(lax.index_in_dim(arr, i, keepdims=False), dtype))
            value = step if where is None else ufuncs.where(lax.index_in_dim(where, i, keepdims=False), step, value)
        return lax.reshape(value, final_shape) if keepdims else value

    # --- accumulate ---------------------------------------------------------------------------------

    def accumulate(self, a: ArrayLike, axis: int = 0, dtype: Any = None, out: None = None) -> ArrayLike:
        """The running fold along ``axis``: add.accumulate is a cumulative sum."""
        self._check_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        return (self._accumulate or self._accumulate_by_folding)(a, axis=axis, dtype=dtype)

    def _accumulate_by_folding(self, a: ArrayLike, axis: int = 0, dtype: Any = None) -> ArrayLike:
        check_arraylike(f"{self.__name__}.accumulate", a)
        arr = as_array(a)
        dtype = self._result_dtype(arr, arr) if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, get_aval(arr).ndim)
        if get_aval(arr).size == 0:
            return lax.full(get_aval(arr).shape, 0, dtypes.canonicalize_dtype(dtype))
        arr = moveaxis(arr, axis, 0)
        value = astype(lax.index_in_dim(arr, 0, keepdims=False), dtype)
        running = [value]
        for i in range(1, get_aval(arr).shape[0]):
            value = self(astype(value, dtype), astype(lax.index_in_dim(arr, i, keepdims=False), dtype))
            running.append(value)
        return moveaxis(stack(running), 0, axis)

    # --- at -----------------------------------------------------------------------------------------

    def at(self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *, inplace: bool = True) -> ArrayLike:
        """``a`` with the function applied at ``indices`` (with ``b`` for a binary ufunc); a
        repeated index is applied as many times. Returns the new array: pass inplace=False."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE_WARNING)
        at = self._at or self._at_by_looping
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_by_looping(self, a: ArrayLike, indices: Any, *args: ArrayLike) -> ArrayLike:
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = self._result_dtype(a, *args)
        a = astype(a, dtype)
        args = tuple(astype(arg, dtype) for arg in args)
        index = _index_tuple(indices)
        if not index:
            return a
        shapes = [get_aval(i).shape for i in index if not isinstance(i, slice) and i is not None and i is not Ellipsis]
        shape = broadcast_shapes(*shapes) if shapes else ()
        if not shape:  # one place (or one block of slices): a single update
            return a.at[index].set(self(a.at[index].get(), *args))
        # One update per position of the broadcast index arrays, in order, so repeats accumulate.
        count = math.prod(shape)
        if args:
            rest = get_aval(args[0]).shape[len(shape) :]
            args = (lax.reshape(broadcast_to(args[0], (*shape, *rest)), (count, *rest)),)
        flat = [i if isinstance(i, slice) else ravel(broadcast_to(as_array(i), shape)) for i in index]
        for k in range(count):
            place = tuple(i if isinstance(i, slice) else lax.index_in_dim(i, k, keepdims=False) for i in flat)
            step_args = (lax.index_in_dim(arg, k, keepdims=False) for arg in args)
            a = a.at[place].set(self(a.at[place].get(), *step_args))
        return a

    # --- reduceat -----------------------------------------------------------------------------------

    def reduceat(self, a: ArrayLike, indices: Any, axis: int = 0, dtype: Any = None, out: None = None) -> ArrayLike:
        """The fold over each segment ``indices[i]:indices[i + 1]`` along ``axis`` (the last one
        to the end; a segment whose end is not after its start gives ``a[indices[i]]``)."""
        self._check_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        return (self._reduceat or self._reduceat_by_looping)(a, indices, axis=axis, dtype=dtype)

    def _reduceat_by_looping(self, a: ArrayLike, indices: Any, axis: int = 0, dtype: Any = None) -> ArrayLike:
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a = as_array(a)
        (indices,) = _index_tuple(indices)
        indices = as_array(indices)
        shape = get_aval(a).shape
        if not shape:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={shape}")
        if get_aval(indices).ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got indices.shape={get_aval(indices).shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, len(shape))
        out = take(a, indices, axis=axis)
        # Each segment's start and end, shaped to broadcast along ``axis``.
        ends = append(indices, shape[axis])
        k = get_aval(indices).shape[0]
        along = tuple(k + 1 if d == axis else 1 for d in range(len(shape)))
        bounds = lax.reshape(ends, along)
        start, end = lax.slice_in_dim(bounds, 0, k, axis=axis), lax.slice_in_dim(bounds, 1, k + 1, axis=axis)
        for i in range(shape[axis]):
            inside = ufuncs.logical_and(ufuncs.less(start, i), ufuncs.greater(end, i))
            out = ufuncs.where(inside, self(out, lax.index_in_dim(a, i, axis)), out)
        return out

    # --- outer --------------------------------------------------------------------------------------

    def outer(self, A: ArrayLike, B: ArrayLike, /) -> ArrayLike:
        """The function of every pair (A[i...], B[j...]): the result has shape A.shape + B.shape."""
        self._check_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = as_array(A), as_array(B)
        a_shape, b_ndim = get_aval(A).shape, get_aval(B).ndim
        return self(lax.reshape(A, a_shape + (1,) * b_ndim), B)  # A's axes first, broadcast against B's


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A ufunc from a function of ``nin`` scalars that returns ``nout`` scalars (written with
    didax.numpy or lax), with every ufunc method."""
    return ufunc(func, nin, nout, identity=identity)


def _one(x: ArrayLike) -> ArrayLike:
    """A 0-d one of x's dtype and weak type: a stand-in to learn a function's result type."""
    aval = get_aval(x)
    return convert(1, aval.dtype, aval.weak_type)


def _index_tuple(index: Any) -> tuple[Any, ...]:
    """An index as a tuple of entries; a list is refused, as in indexing."""
    if isinstance(index, list):
        raise TypeError(_non_tuple_message(index))
    return index if isinstance(index, tuple) else (index,)


# ----------------------------------------------------------------------------------------------
# The ufuncs of didax.numpy, each with the shortcuts JAX gives it.


def _add_at(a: ArrayLike, indices: Any, b: ArrayLike) -> ArrayLike:
    a = as_array(a)
    if get_aval(a).dtype == np.bool_:  # or-ing repeated places: count them as int32, then test
        int32 = np.dtype(np.int32)
        b = convert(convert(as_array(b), np.dtype(np.bool_)), int32)
        return astype(convert(a, int32).at[indices].add(b), bool)
    return a.at[indices].add(b)


def _multiply_at(a: ArrayLike, indices: Any, b: ArrayLike) -> ArrayLike:
    a = as_array(a)
    if get_aval(a).dtype == np.bool_:
        int32 = np.dtype(np.int32)
        b = convert(convert(as_array(b), np.dtype(np.bool_)), int32)
        return astype(convert(a, int32).at[indices].multiply(b), bool)
    return a.at[indices].multiply(b)


def _subtract_at(a: ArrayLike, indices: Any, b: ArrayLike) -> ArrayLike:
    return as_array(a).at[indices].subtract(b)


def _sum(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
         initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    return reductions.sum(a, axis, dtype, keepdims=keepdims, initial=initial, where=where)


def _prod(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
          initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    return reductions.prod(a, axis, dtype, keepdims=keepdims, initial=initial, where=where)


def _extremum(fn: Callable[..., ArrayLike]) -> Callable[..., ArrayLike]:
    """max or min, which take no dtype: the input is converted to it first."""

    def reduce(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
        if dtype is not None:
            a = convert(as_array(a), dtypes.check_user_dtype(dtype, fn.__name__))
        return fn(a, axis, keepdims=keepdims, initial=initial, where=where)

    return reduce


def _require_integer(a: ArrayLike) -> ArrayLike:
    dt = get_aval(a).dtype
    if dt.kind not in "biu":
        raise ValueError(f"integer argument required; got dtype={dt}")
    return a


def _cast_to_bool(a: ArrayLike) -> ArrayLike:
    """A truth value per element; of a complex number, JAX looks at the real part only."""
    if get_aval(a).dtype.kind == "c":
        a = lax.real(a)
    return convert(a, np.dtype(np.bool_))


def _bit_reduction(name: str, lax_fn: Any, identity: int, preprocess: Callable[..., ArrayLike]) -> Callable:
    """A reduction with a bitwise lax reduction, after ``preprocess`` (integers required, or
    truth values); ``identity`` fills the places ``where`` leaves out."""

    def reduce(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
        check_arraylike(name, a)
        a = preprocess(as_array(a))
        return reductions._reduce(name, lax_fn, a, axis, dtype, keepdims, False, initial, where, lambda dt: identity)

    return reduce


def _logsumexp(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """log(sum(exp(a))), after subtracting the largest element so that exp cannot overflow.
    ``dtype`` is checked but not used, as in JAX."""
    if dtype is not None:
        dtypes.check_user_dtype(dtype, "jnp.logaddexp.reduce")
    check_arraylike("logsumexp", a)
    (a,) = promote_dtypes_inexact(as_array(a))
    shape = get_aval(a).shape
    axes = reductions._reduction_axes(axis, len(shape))
    amax = reductions.max(ufuncs.real(a), axes, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(ufuncs.where(ufuncs.isfinite(amax), amax, lax.full_like(amax, 0)))
    kept = amax if keepdims else lax.reshape(amax, tuple(1 if d in axes else n for d, n in enumerate(shape)))
    exp_a = lax.exp(lax.sub(a, convert(kept, get_aval(a).dtype)))
    sumexp = reductions.sum(exp_a, axes, keepdims=keepdims, where=where)
    result = lax.add(lax.log(sumexp), convert(amax, get_aval(sumexp).dtype))
    return result if initial is None else ufuncs.logaddexp(initial, result)


_LN2 = float(np.log(2))


def _logsumexp2(a: ArrayLike, axis: Any = None, dtype: Any = None, keepdims: bool = False,
                initial: ArrayLike | None = None, where: ArrayLike | None = None) -> ArrayLike:  # fmt: skip
    """log2(sum(2 ** a)), as logsumexp of a * ln 2, divided by ln 2."""
    if dtype is not None:
        dtypes.check_user_dtype(dtype, "jnp.logaddexp2.reduce")
    check_arraylike("logsumexp2", a)
    if initial is not None:
        initial = ufuncs.multiply(initial, _LN2)
    scaled = ufuncs.multiply(a, _LN2)
    return ufuncs.true_divide(_logsumexp(scaled, axis, keepdims=keepdims, initial=initial, where=where), _LN2)


def _binary(fn: Callable[..., Any], identity: Any, **methods: Any) -> ufunc:
    return ufunc(fn, nin=2, nout=1, name=fn.__name__, call=fn, identity=identity, **methods)


add = _binary(ufuncs.add, 0, reduce=_sum, accumulate=reductions.cumsum, at=_add_at)
multiply = _binary(ufuncs.multiply, 1, reduce=_prod, accumulate=reductions.cumprod, at=_multiply_at)
subtract = _binary(ufuncs.subtract, None, at=_subtract_at)
maximum = _binary(ufuncs.maximum, None, reduce=_extremum(reductions.max))
minimum = _binary(ufuncs.minimum, None, reduce=_extremum(reductions.min))
bitwise_and = _binary(ufuncs.bitwise_and, -1, reduce=_bit_reduction("reduce_bitwise_and", lax.reduce_and, -1,
                                                                     _require_integer))  # fmt: skip
bitwise_or = _binary(ufuncs.bitwise_or, 0, reduce=_bit_reduction("reduce_bitwise_or", lax.reduce_or, 0,
                                                                  _require_integer))  # fmt: skip
bitwise_xor = _binary(ufuncs.bitwise_xor, 0, reduce=_bit_reduction("reduce_bitwise_xor", lax.reduce_xor, 0,
                                                                    _require_integer))  # fmt: skip
logical_and = _binary(ufuncs.logical_and, True, reduce=_bit_reduction("reduce_logical_and", lax.reduce_and, True,
                                                                       _cast_to_bool))  # fmt: skip
logical_or = _binary(ufuncs.logical_or, False, reduce=_bit_reduction("reduce_logical_or", lax.reduce_or, False,
                                                                      _cast_to_bool))  # fmt: skip
logical_xor = _binary(ufuncs.logical_xor, False, reduce=_bit_reduction("reduce_logical_xor", lax.reduce_xor, False,
                                                                        _cast_to_bool))  # fmt: skip
logaddexp = _binary(ufuncs.logaddexp, -np.inf, reduce=_logsumexp)
logaddexp2 = _binary(ufuncs.logaddexp2, -np.inf, reduce=_logsumexp2)
negative = ufunc(ufuncs.negative, nin=1, nout=1, name="negative", call=ufuncs.negative)
