"""What every didax.numpy function does before calling lax: promote dtypes on JAX's lattice,
broadcast ranks, and check axes. Stage 01 introduced it.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.exceptions import AxisError

from .. import dtypes, lax
from ..array import Array, to_array
from ..core import Tracer, get_aval
from ..lax.standard import as_dims

ArrayLike = Any  # an Array, a Tracer, a NumPy value or a Python scalar


def check_arraylike(name: str, *args: Any) -> None:
    """jax.numpy takes arrays and scalars, not lists: ``jnp.sum([1, 2])`` is an error."""
    for position, arg in enumerate(args):
        if type(arg) not in _ARRAYLIKE_TYPES and not isinstance(arg, Tracer) and not is_arraylike(arg):
            if hasattr(arg, "__jax_array__"):  # JAX converts these only in asarray, and says so
                raise ValueError(
                    f"{name} got a {type(arg).__name__}, which converts itself with __jax_array__; "
                    "that happens only in didax.numpy.asarray: call it first."
                )
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(arg).__name__} at "
                f"position {position}. Convert it with didax.numpy.asarray first."
            )


def is_arraylike(x: Any) -> bool:
    """Whether ``x`` is an array, a tracer, a NumPy value or a Python scalar."""
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic)) or type(x) in dtypes.PYTHON_SCALAR_DTYPES


# The exact types almost every argument has, recognised with one set lookup.
_ARRAYLIKE_TYPES = frozenset({Array, np.ndarray, *dtypes.PYTHON_SCALAR_DTYPES})


def as_array(x: ArrayLike) -> ArrayLike:
    """An Array or a tracer for ``x`` (NumPy values are canonicalized, scalars become weak)."""
    return x if isinstance(x, (Array, Tracer)) else to_array(x)


def convert(x: ArrayLike, dtype: np.dtype, weak_type: bool = False) -> ArrayLike:
    """``x`` as ``dtype`` (a no-op when it is already), with the given weak_type."""
    if type(x) in dtypes.PYTHON_SCALAR_DTYPES:
        # A Python scalar becomes the default type of its kind, then wraps or rounds to ``dtype``.
        return Array(dtypes.python_scalar_to_numpy(x, dtype), weak_type)
    aval = get_aval(x)
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return x
    return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak_type)


def promote_dtypes(*args: ArrayLike) -> list[ArrayLike]:
    """Convert ``args`` to the dtype they join to on the promotion lattice."""
    if len(args) < 2:
        return list(args)
    promoted = _promote_simply(args)
    if promoted is not None:
        return promoted
    dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
    return [convert(x, dtype, weak_type) for x in args]


def promote_dtypes_inexact(*args: ArrayLike) -> list[ArrayLike]:
    """Like promote_dtypes, then integers and bools become the default float (sin(1) is 0.84...)."""
    promoted = _promote_simply(args, inexact=True)
    if promoted is not None:
        return promoted
    dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
    # A weak int (the default int) becomes the default float; a weak complex stays complex.
    inexact = dtypes.to_inexact_dtype(dtype)
    return [convert(x, inexact, weak_type) for x in args]


_WEAK_SCALARS = (int, float)


def _promote_simply(
    args: tuple[ArrayLike, ...], inexact: bool = False, same_shape: bool = False
) -> list[ArrayLike] | None:
    """``args`` promoted, in the common cases that need no lattice (with ``inexact``, to an
    inexact dtype; with ``same_shape``, only where the arrays have one shape already, so that
    there are no ranks to match either); None for the others.

    Those cases: every array or tracer among ``args`` is strongly typed and of one canonical
    dtype, and any Python int or float beside them meets an inexact dtype, which a weakly typed
    scalar never changes (``x * 2.0`` stays float32). Nothing but the scalars needs converting.
    Arrays, tracers and Python scalars are what check_arraylike accepts, so that check is done.
    """
    dtype, shape, scalars = None, None, False
    for x in args:
        if type(x) in _WEAK_SCALARS:
            scalars = True
            continue
        aval = getattr(x, "aval", None)  # Arrays and tracers; NumPy values go to the lattice
        if aval is None or aval.weak_type or (dtype is not None and aval.dtype != dtype):
            return None
        if same_shape:
            if shape is not None and aval.shape != shape:
                return None
            shape = aval.shape
        dtype = aval.dtype
    if dtype is None or not dtypes.is_canonical(dtype):
        return None
    if (scalars or inexact) and not dtypes.is_inexact(dtype):
        return None
    if not scalars:
        return list(args)
    return [convert(x, dtype) if type(x) in _WEAK_SCALARS else x for x in args]


def promote_shapes(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """Give every non-scalar the same rank by adding leading size-1 axes; lax broadcasts the rest."""
    shapes = [get_aval(x).shape for x in args]
    if len(set(shapes) - {()}) < 2:
        return list(args)  # the common case: one shape, and scalars, which lax broadcasts itself
    shape = broadcast_shapes(*shapes)
    if shape is None:
        if len({len(s) for s in shapes if s}) > 1:
            # Ranks to match: JAX's lax.broadcast_shapes finds the mismatch, a ValueError.
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        # One rank: JAX leaves the shapes to the lax operation, whose shape rule says TypeError.
        shown = ", ".join(map(str, shapes))
        raise TypeError(f"{name} got incompatible shapes for broadcasting: {shown}.") from None
    rank = len(shape)
    # Leading size-1 axes by broadcast_in_dim, as JAX's expand_dims adds them (its jaxprs show it);
    # the primitive directly: lax.broadcast_in_dim would check a shape that comes from an aval.
    return [
        x if len(s) in (0, rank)
        else lax.broadcast_in_dim_p.bind(
            x, shape=(1,) * (rank - len(s)) + s, broadcast_dimensions=tuple(range(rank - len(s), rank))
        )
        for x, s in zip(args, shapes)
    ]


@functools.lru_cache(maxsize=4096)  # a program broadcasts the same few shapes again and again
def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy's broadcast shape of ``shapes``, None if they do not broadcast (np.broadcast_shapes
    builds arrays to find it: ten times slower for the two or three shapes of an operation)."""
    rank = max(map(len, shapes))
    out = [1] * rank
    for shape in shapes:
        for i, n in enumerate(shape, rank - len(shape)):
            if n != out[i]:
                if out[i] != 1 and n != 1:
                    return None
                if n != 1:
                    out[i] = n
    return tuple(out)


def promote_args(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """Check, promote to a common dtype, and give the non-scalars a common rank."""
    promoted = _promote_simply(args, same_shape=True)  # the common case, all three steps at once
    if promoted is not None:
        return promoted
    check_arraylike(name, *args)
    try:
        promoted = promote_dtypes(*args)
    except ValueError:
        check_for_prngkeys(name, *args)
        raise
    return promote_shapes(name, *promoted)


def promote_args_inexact(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """Like promote_args, with integers and bools made the default float."""
    promoted = _promote_simply(args, inexact=True, same_shape=True)
    if promoted is not None:
        return promoted
    check_arraylike(name, *args)
    try:
        args = promote_dtypes_inexact(*args)
    except ValueError:
        check_for_prngkeys(name, *args)
        raise
    return promote_shapes(name, *args) if len(args) > 1 else args  # one operand: no shapes to match


def check_for_prngkeys(name: str, *args: ArrayLike) -> None:
    """Keys mixed with anything else in a function that promotes: JAX's TypeError, naming it."""
    kinds = [dtypes.result_type(x) for x in args]
    if any(dtypes.is_key_dtype(k) for k in kinds):
        raise TypeError(f"{name} does not accept dtypes {', '.join(map(str, kinds))}.")


def broadcast_to(x: ArrayLike, shape: int | Sequence[int]) -> ArrayLike:
    """NumPy's broadcast_to, through lax.broadcast_in_dim; an int ``shape`` means ``(shape,)``."""
    shape = as_dims("broadcast_to", (shape,) if np.ndim(shape) == 0 else shape)
    x_shape = get_aval(x).shape
    if x_shape == shape:
        return x
    try:
        if np.broadcast_shapes(x_shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: {x_shape} and requested shape {shape}"
        ) from None
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))


def canonicalize_axis(axis: Any, ndim: int) -> int:
    """A NumPy axis (negative counts from the end) as a lax axis.

    Out of range raises NumPy's AxisError, which is both a ValueError and an IndexError: JAX's
    functions raise one or the other.
    """
    try:
        axis = operator.index(axis)  # ints, NumPy ints and integer scalar arrays; not 1.0 or "0"
    except TypeError:
        raise TypeError(f"axis must be an integer, got {axis!r} of type {type(axis).__name__}.") from None
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def canonicalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """None means every axis; an integer (or integer scalar array) or a sequence of them, each
    checked, duplicates refused."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without NumPy
        return (axis % ndim,)
    # A tuple or list needs no np.ndim, which would make an array of it to count its dimensions.
    axes = tuple(axis) if isinstance(axis, (tuple, list)) or np.ndim(axis) != 0 else (axis,)
    result = tuple(canonicalize_axis(a, ndim) for a in axes)
    if len(set(result)) != len(result):
        raise ValueError(f"repeated axis in {axis!r}: each axis may be named once.")
    return result
