"""``Array``: a concrete didax value, in NumPy memory, in device memory, or both (stage 05).

Stage 01 introduced it. An Array is what evaluation produces; it remembers ``weak_type`` so that
a value made from a Python scalar keeps promoting like one.

Stage 05 gives it a second home: a buffer on an XLA device. What a compiled function returns
lives there, and is read into NumPy only when an eager operation, a print or ``np.asarray`` needs
it (``_value``); what eager evaluation makes lives in NumPy, and is copied to the device the first
time a compiled function takes it (``device_buffer``). Either copy, once made, is kept: an Array
never changes, so neither copy can go stale.

Arrays are immutable values, as in JAX. Two rules keep them so: NumPy data coming in is copied
(core.canonicalize_value), and NumPy views going out are read-only (``__array__``). Inside, many
Arrays may share one buffer (a reshape is a view); that is safe because nobody can write to it.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

import numpy as np

from .core import ConcreteArray, ShapedArray, canonicalize_value
from .dtypes import KeyTy, PRNGImpl

# The device half of an Array: didax.xla, given here by jit.py when it is imported. array.py does
# not import it, so eager evaluation alone never loads jaxlib; an Array with a device buffer was
# made through xla, so whatever reads a buffer finds it set.
xla: Any = None

# Every Array's place in the order of creation (stage 04): staging tells an Array the function
# closed over (made before staging began: a constvar, as in JAX) from one didax made while
# staging (a constant of its own, such as a Python scalar converted to a dtype: a literal).
serials = itertools.count()

# An Array's device buffer (None while it has none), as a C callable: jit's fast path and
# block_until_ready map it over their arguments without a Python frame per Array.
buffer_of = operator.attrgetter("_buffer")


class Array:
    """An immutable n-dimensional array with a dtype and a weak_type flag.

    Its Python operators and methods (``+``, ``@``, ``[]``, ``.sum()`` ...) are installed by
    didax/numpy/array_methods.py, the same ones tracers get.
    """

    __slots__ = ("_host", "_buffer", "_type", "weak_type", "serial")
    __array_priority__ = 100

    def __init__(self, value: np.ndarray, weak_type: bool = False) -> None:
        self._host: np.ndarray | None = value  # never handed out writable, so never changed
        self._buffer: Any = None  # the device copy, made when a compiled function first needs it
        self._type: ShapedArray | None = None  # its type, once it has a device copy
        self.weak_type = weak_type
        self.serial = next(serials)

    @classmethod
    def from_buffer(cls, buffer: Any, aval: ShapedArray) -> Array:
        """The Array of a device buffer of type ``aval`` (an output of a compiled function)."""
        array = cls.__new__(cls)
        array._host, array._buffer, array._type = None, buffer, aval
        array.weak_type, array.serial = aval.weak_type, next(serials)
        return array

    @property
    def _value(self) -> np.ndarray:
        """The NumPy copy, read from the device the first time it is asked for (waiting for the
        computation that makes it, if it is still running)."""
        host = self._host
        if host is None:
            if xla.is_deleted(self._buffer):
                shape = self._type.str_short()  # type: ignore[union-attr]
                raise RuntimeError(f"Array has been deleted with shape={shape}.")
            host = self._host = xla.fetch(self._buffer, self._type.dtype)  # type: ignore[union-attr]
        return host

    def device_buffer(self, device: Any) -> Any:
        """The device copy on ``device``, put there the first time it is asked for; the Array's
        ``_type`` is set then too (jit's fast path finds executables by it)."""
        buffer = self._buffer
        if buffer is None:
            buffer = self._buffer = xla.put(self._host, device)  # type: ignore[arg-type]
            self._type = ShapedArray(self.shape, self.dtype, self.weak_type)
        elif xla.device_of(buffer) != device:
            return xla.put(self._value, device)
        return buffer

    def is_deleted(self) -> bool:
        return self._host is None and xla.is_deleted(self._buffer)

    def delete(self) -> None:
        """Free the device copy now (JAX's ``x.delete()``); the array cannot be used afterwards."""
        if self._buffer is None:  # an Array in NumPy only gets a device copy, to delete
            self.device_buffer(xla.default_device())
        self._host = None
        xla.delete(self._buffer)

    @property
    def device(self) -> Any:
        """The device holding the array (the default device for one that lives in NumPy only)."""
        return xla.default_device() if self._buffer is None else xla.device_of(self._buffer)

    def devices(self) -> set[Any]:
        return {self.device}

    @property
    def is_fully_replicated(self) -> bool:
        return True  # one device holds it all (stage 07 shards arrays over several)

    def addressable_data(self, index: int) -> Array:
        """The data on this process's ``index``-th device: all of it, on the one device."""
        if index != 0:
            raise IndexError(f"addressable_data({index}): the array is on one device, index 0")
        return self

    @property
    def aval(self) -> ConcreteArray:
        """The array's abstract value: its type, and its value read from the device only if someone
        asks for it (Python control flow on the array, say). Made anew on each request: held by the
        Array, it would hold the Array (and its device buffer) in a reference cycle."""
        return _Known(self)

    @property
    def shape(self) -> tuple[int, ...]:
        host = self._host
        return host.shape if host is not None else self._type.shape  # type: ignore[union-attr]

    @property
    def dtype(self) -> np.dtype:
        host = self._host
        return host.dtype if host is not None else self._type.dtype  # type: ignore[union-attr]

    # Each of these is read from the type: none reads a device buffer back to the host.
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    # Conversions to NumPy and Python values.
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy's view of the array: read-only, unless a copy was asked for (or a new dtype)."""
        if copy:
            return np.array(self._value, dtype=dtype, copy=True)
        if dtype is not None and np.dtype(dtype) != self.dtype:
            if copy is False:
                raise ValueError(f"converting {self.dtype} to {np.dtype(dtype)} needs a copy, and copy=False")
            return self._value.astype(dtype)
        view = self._value.view()
        view.flags.writeable = False
        return view

    def __bool__(self) -> bool:
        return bool(self._value)  # NumPy's rule: one element, or "truth value is ambiguous"

    def _scalar(self) -> np.ndarray:
        if self.shape != ():
            raise TypeError(
                f"Only scalar arrays can be converted to Python scalars; got an array of shape "
                f"{self.shape}. Index it first (x[0]) or use x.item()."
            )
        return self._value

    def __int__(self) -> int:
        return int(self._scalar())

    def __float__(self) -> float:
        return float(self._scalar())

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def __index__(self) -> int:
        if self.shape != () or self.dtype.kind not in "iu":
            raise TypeError(
                f"Only integer scalar arrays can be converted to a scalar index; got a "
                f"{self.aval.str_short()} array."
            )
        return int(self._value)

    def item(self, *args: Any) -> Any:
        """The element at ``args`` (a flat index or one index per axis) as a Python scalar."""
        return self._value.item(*args)

    def tolist(self) -> Any:
        return self._value.tolist()

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """The DLPack capsule of the value (``np.from_dlpack(x)``): NumPy's, read back once, with the
        standard's keywords."""
        # marked read-only: the reader must not write
        return self._value.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._value.__dlpack_device__()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (and copy.deepcopy) save the value: a device buffer cannot be pickled."""
        return (Array, (self._value, self.weak_type))

    def block_until_ready(self) -> Array:
        """Wait until the computation making this array has finished (compiled functions return
        before their results are ready: XLA runs them asynchronously)."""
        if self._buffer is not None:
            xla.block_until_ready(self._buffer)
        return self

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    __hash__ = None  # type: ignore[assignment]  # == is elementwise, so arrays are unhashable

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        if self.size == 0:  # nothing to show but the shape, as JAX prints it
            return f"Array([], shape={self.shape}, dtype={self.dtype.name}{weak})"
        body = np.array2string(self._value, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(self._value)

    def __format__(self, spec: str) -> str:
        if self.shape == ():
            return format(self._value.item(), spec)
        return format(str(self), spec)


class _Known(ConcreteArray):
    """An Array's ConcreteArray: the type is read at once, the value (``val``) from the Array only
    when it is asked for."""

    __slots__ = ("_array",)

    def __init__(self, array: Array) -> None:
        self.shape, self.dtype, self.weak_type, self._array = array.shape, array.dtype, array.weak_type, array

    @property  # type: ignore[override]
    def val(self) -> np.ndarray:
        return self._array._value


class PRNGKeyArray(Array):
    """An array of PRNG keys, dtype ``key<fry>``: an Array whose elements are whole keys.

    Its NumPy value holds the keys' uint32 words in a trailing axis the array does not show: keys
    of shape (3,) hold words of shape (3, 2). Structural operations (indexing, reshape,
    concatenate, ...) act on those words with the axis appended (lax/standard.py); arithmetic
    refuses the key dtype; ``random.key_data`` gives the words and ``random.wrap_key_data``
    makes keys of them.
    """

    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl, key_data: np.ndarray) -> None:
        super().__init__(key_data)  # uint32 of shape (*shape, *impl.key_shape), never written
        self._impl = impl

    @property
    def aval(self) -> ShapedArray:  # type: ignore[override]  # its words are not its value
        return ShapedArray(self.shape, self.dtype)  # type: ignore[return-value]

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape[: self._value.ndim - len(self._impl.key_shape)]

    @property
    def dtype(self) -> KeyTy:  # type: ignore[override]
        return KeyTy(self._impl)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.itemsize * self.size

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise TypeError(
            "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
            "jax.random.key_data(arr) if you wish to extract the underlying integer array."
        )

    def __bool__(self) -> bool:
        raise TypeError("key array cannot be converted to boolean.")

    def _scalar(self) -> np.ndarray:  # int(key), float(key), key.item() ...
        raise TypeError(f"A key array ({self.aval.str_short()}) has no Python value: use random.key_data(key).")

    def __index__(self) -> int:
        return self._scalar()  # type: ignore[return-value]

    def item(self, *args: Any) -> Any:
        return self._scalar()

    def tolist(self) -> Any:
        return self._scalar()

    def __repr__(self) -> str:
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._value}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PRNGKeyArray, (self._impl, self._value))

    def __str__(self) -> str:
        return repr(self)  # JAX prints a key array the same way both times

    def __format__(self, spec: str) -> str:
        return repr(self)


def to_array(x: Any) -> Array:
    """An Array for ``x``: an Array already, a NumPy value (copied), or a Python scalar (weakly
    typed)."""
    if isinstance(x, Array):
        return x
    value, weak_type = canonicalize_value(x)
    return Array(value, weak_type)
