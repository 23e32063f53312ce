"""``Array``: a concrete didax value, held in NumPy memory at this stage.

Stage 01 introduced it. An Array is what evaluation produces; it remembers ``weak_type`` so that
a value made from a Python scalar keeps promoting like one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import ConcreteArray, canonicalize_value


class Array:
    """An immutable n-dimensional array with a dtype and a weak_type flag.

    Its Python operators and methods (``+``, ``@``, ``[]``, ``.sum()`` ...) are installed by
    didax/numpy/array_methods.py, the same ones tracers get.
    """

    __slots__ = ("_value", "weak_type", "_aval")
    __array_priority__ = 100

    def __init__(self, value: np.ndarray, weak_type: bool = False) -> None:
        self._value = value
        self.weak_type = weak_type
        self._aval: ConcreteArray | None = None

    @property
    def aval(self) -> ConcreteArray:
        if self._aval is None:
            self._aval = ConcreteArray(self._value, self.weak_type)
        return self._aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    # Conversions to Python and NumPy values.
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy:
            return np.array(self._value, dtype=dtype)
        return np.asarray(self._value, dtype=dtype)

    def __bool__(self) -> bool:
        return self.aval._bool(self)

    def _scalar(self, kind: str) -> np.ndarray:
        if self.shape != ():
            raise TypeError(
                f"Only scalar arrays can be converted to Python {kind}s; got an array of "
                f"shape {self.shape}."
            )
        return self._value

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"Only integer scalar arrays can be used as an index, got {self.dtype}.")
        return int(self._scalar("int"))

    def item(self) -> Any:
        return self._value.item()

    def tolist(self) -> Any:
        return self._value.tolist()

    def block_until_ready(self) -> Array:
        return self  # evaluation is eager and synchronous at this stage

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    __hash__ = None  # type: ignore[assignment]  # == is elementwise, so arrays are unhashable

    def __repr__(self) -> str:
        body = np.array2string(self._value, separator=", ", prefix="Array(")
        weak = ", weak_type=True" if self.weak_type else ""
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(self._value)

    def __format__(self, spec: str) -> str:
        if self.shape == ():
            return format(self._value.item(), spec)
        return format(str(self), spec)


def to_array(x: Any) -> Array:
    """An Array for ``x``: an Array already, a NumPy value, or a Python scalar (weakly typed)."""
    if isinstance(x, Array):
        return x
    value, weak_type = canonicalize_value(x)
    return Array(value, weak_type)
