"""The Python operators and methods of arrays (``x + y``, ``x @ y``, ``x[i]``, ``x.T``,
``x.sum()``...), installed on both ``Array`` and ``Tracer`` so that traced code reads like NumPy.
Stage 01 introduced it.
"""

from __future__ import annotations

from collections.abc import Callable
import sys
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..array import Array
from ..core import Tracer
from . import at, creation, indexing, manipulation, reductions, shapes, sorting, structure, ufuncs
from .array_api import __array_api_version__, place
from .util import _ARRAYLIKE_TYPES, is_arraylike


def _binary(fn: Callable[..., Any], swap: bool = False) -> Callable[..., Any]:
    """An operator method; unknown operand types get NotImplemented, so Python tries the other."""

    def method(self: Any, other: Any) -> Any:
        if type(other) not in _ARRAYLIKE_TYPES and not is_arraylike(other):
            return NotImplemented
        return fn(other, self) if swap else fn(self, other)

    return method


def _astype(self: Any, dtype: Any) -> Any:
    return creation.astype(self, dtype)


def _reshape(self: Any, *shape: Any, order: str = "C") -> Any:
    # x.reshape(2, 3) and x.reshape((2, 3)) both work, as in NumPy.
    return shapes.reshape(self, shape[0] if len(shape) == 1 else shape, order)


def _to_device(self: Any, device: Any, /, *, stream: Any = None) -> Any:
    """The array on ``device`` (the array API's method; JAX's ``device_put``)."""
    return place(self, device)


def _transpose(self: Any, *axes: Any) -> Any:
    return shapes.transpose(self, (axes[0] if len(axes) == 1 else axes) if axes else None)


def _view(self: Any, dtype: Any = None, type: None = None) -> Any:  # noqa: A002 - NumPy's name
    """The same bits read as ``dtype`` (JAX's ``Array.view``): a dtype of another width changes the
    last axis as NumPy's view does. lax.bitcast_convert_type takes neither bool nor complex, so
    those go through uint8 and pairs of floats, as JAX has them."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = dtypes.check_user_dtype(dtype, "view")
    bits_in, bits_out = self.dtype.itemsize * 8, dtype.itemsize * 8
    if self.ndim == 0:
        if bits_in != bits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
        return shapes.squeeze(_view(lax.expand_dims(self, (0,)), dtype))
    if (self.shape[-1] * bits_in) % bits_out:
        raise ValueError(
            "When changing to a larger dtype, its size must be a divisor of the total size in bytes "
            "of the last axis of the array."
        )
    if self.dtype == dtype:
        return self
    if self.dtype == np.bool_:
        return _view(creation.astype(self, np.uint8), dtype)
    if self.dtype.kind == "c":  # the real and imaginary parts side by side along the last axis
        pairs = shapes.stack([ufuncs.real(self), ufuncs.imag(self)], axis=-1)
        return _view(_reshape(pairs, *self.shape[:-1], 2 * self.shape[-1]), dtype)
    if dtype == np.bool_:
        return creation.astype(_view(self, np.uint8), np.bool_)
    if dtype.kind == "c":
        parts = creation.astype(_view(self, dtypes.finfo(dtype).dtype), dtype)
        return parts[..., 0::2] + 1j * parts[..., 1::2]
    if bits_in < bits_out:  # groups of the last axis become one element
        factor = bits_out // bits_in
        return lax.bitcast_convert_type(_reshape(self, *self.shape[:-1], self.shape[-1] // factor, factor), dtype)
    out = lax.bitcast_convert_type(self, dtype)
    if bits_in > bits_out:  # each element becomes a new last axis, merged into the one before
        out = _reshape(out, *out.shape[:-2], out.shape[-2] * out.shape[-1])
    return out


def _iter(self: Any) -> Any:
    if not self.shape:
        raise TypeError("iteration over a 0-d array")
    return (indexing.getitem(self, i) for i in range(self.shape[0]))


def _by_name(name: str) -> Callable[..., Any]:
    """A method that calls ``didax.numpy.<name>``, looked up when called: the function may be
    defined in a module that this one cannot import first (the math functions)."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(sys.modules[__package__], name, None)
        if fn is None:  # TODO: defined by the math functions (ufuncs, reductions); until then, none
            raise NotImplementedError(f"didax.numpy.{name} is not available yet, so neither is x.{name}().")
        return fn(self, *args, **kwargs)

    method.__name__ = name
    return method


def _divmod(self: Any, other: Any) -> Any:
    if not is_arraylike(other):
        return NotImplemented
    return _by_name("divmod")(self, other)


def _rdivmod(self: Any, other: Any) -> Any:
    if not is_arraylike(other):
        return NotImplemented
    return _by_name("divmod")(other, self)


def _round(self: Any, ndigits: int | None = None) -> Any:
    """round(x) rounds to an integer array (as on JAX arrays); round(x, n) to n decimals."""
    out = _by_name("round")(self, ndigits or 0)
    return creation.astype(out, int) if ndigits is None else out


_OPERATORS: dict[str, Callable[..., Any]] = {
    "__add__": _binary(ufuncs.add),
    "__radd__": _binary(ufuncs.add, swap=True),
    "__sub__": _binary(ufuncs.subtract),
    "__rsub__": _binary(ufuncs.subtract, swap=True),
    "__mul__": _binary(ufuncs.multiply),
    "__rmul__": _binary(ufuncs.multiply, swap=True),
    "__truediv__": _binary(ufuncs.true_divide),
    "__rtruediv__": _binary(ufuncs.true_divide, swap=True),
    "__floordiv__": _binary(ufuncs.floor_divide),
    "__rfloordiv__": _binary(ufuncs.floor_divide, swap=True),
    "__mod__": _binary(ufuncs.remainder),
    "__rmod__": _binary(ufuncs.remainder, swap=True),
    "__pow__": _binary(ufuncs.power),
    "__rpow__": _binary(ufuncs.power, swap=True),
    "__matmul__": _binary(shapes.matmul),
    "__rmatmul__": _binary(shapes.matmul, swap=True),
    "__and__": _binary(ufuncs.bitwise_and),
    "__rand__": _binary(ufuncs.bitwise_and, swap=True),
    "__or__": _binary(ufuncs.bitwise_or),
    "__ror__": _binary(ufuncs.bitwise_or, swap=True),
    "__xor__": _binary(ufuncs.bitwise_xor),
    "__rxor__": _binary(ufuncs.bitwise_xor, swap=True),
    "__lshift__": _binary(ufuncs.left_shift),
    "__rlshift__": _binary(ufuncs.left_shift, swap=True),
    "__rshift__": _binary(ufuncs.right_shift),
    "__rrshift__": _binary(ufuncs.right_shift, swap=True),
    "__eq__": _binary(ufuncs.equal),
    "__ne__": _binary(ufuncs.not_equal),
    "__lt__": _binary(ufuncs.less),
    "__le__": _binary(ufuncs.less_equal),
    "__gt__": _binary(ufuncs.greater),
    "__ge__": _binary(ufuncs.greater_equal),
    "__neg__": ufuncs.negative,
    "__pos__": ufuncs.positive,
    "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.bitwise_not,
    "__getitem__": indexing.getitem,
    "__setitem__": indexing.setitem,
    "__iter__": _iter,
    "__divmod__": _divmod,
    "__rdivmod__": _rdivmod,
    "__round__": _round,
}

# The package this module is part of, taken while it imports this module (complete by the time an
# array asks). Looked up later by name, it could be another copy of didax loaded since.
_NAMESPACE = sys.modules[__package__]


def _array_namespace(self: Any, *, api_version: str | None = None) -> Any:
    """The array API standard's way from an array to its namespace: didax.numpy."""
    if api_version not in (None, __array_api_version__):
        raise ValueError(f"api_version={api_version!r} is not available; available versions are: "
                         f"[{__array_api_version__!r}]")  # fmt: skip
    return _NAMESPACE


_METHODS: dict[str, Callable[..., Any]] = {
    "__array_namespace__": _array_namespace,
    "astype": _astype,
    "view": _view,
    "reshape": _reshape,
    "to_device": _to_device,
    "transpose": _transpose,
    "ravel": shapes.ravel,
    "flatten": shapes.ravel,
    "squeeze": shapes.squeeze,
    "swapaxes": shapes.swapaxes,
    "sum": reductions.sum,
    "prod": reductions.prod,
    "mean": reductions.mean,
    "max": reductions.max,
    "min": reductions.min,
    "argmax": reductions.argmax,
    "argmin": reductions.argmin,
    "dot": shapes.dot,
    "take": indexing.take,
    "sort": sorting.sort,
    "argsort": sorting.argsort,
    "nonzero": sorting.nonzero,
    "repeat": manipulation.repeat,
    "diagonal": structure.diagonal,
    "copy": structure.copy,
    # Defined with the math functions; looked up by name when called.
    "all": _by_name("all"),
    "any": _by_name("any"),
    "clip": _by_name("clip"),
    "round": _by_name("round"),
    "cumsum": _by_name("cumsum"),
    "cumprod": _by_name("cumprod"),
    "std": _by_name("std"),
    "var": _by_name("var"),
    "trace": _by_name("trace"),
    "conj": _by_name("conj"),
    "conjugate": _by_name("conjugate"),
}


def install(cls: type) -> None:
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(cls, name, fn)
    cls.T = property(lambda self: shapes.transpose(self))  # type: ignore[attr-defined]
    cls.mT = property(manipulation.matrix_transpose)  # type: ignore[attr-defined]  # the last two axes
    cls.at = property(at._IndexUpdateHelper)  # type: ignore[attr-defined]
    cls.real = property(_by_name("real"))  # type: ignore[attr-defined]
    cls.imag = property(_by_name("imag"))  # type: ignore[attr-defined]
    if not hasattr(cls, "itemsize"):  # a tracer's, from its abstract value
        cls.itemsize = property(lambda self: self.dtype.itemsize)  # type: ignore[attr-defined]
        cls.nbytes = property(lambda self: self.size * self.dtype.itemsize)  # type: ignore[attr-defined]
    cls.__hash__ = None  # type: ignore[assignment]  # == is elementwise


for _cls in (Array, Tracer):
    install(_cls)
