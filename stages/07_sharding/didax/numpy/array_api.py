"""What the array API standard (version 2024.12) asks of a namespace beyond its functions: the
version, ``__array_namespace_info__`` (which devices and dtypes there are), and the ``device=``
argument of the functions that make arrays. Stage 01 introduced it.

Stage 01 kept every value in host memory and had no devices to name; from stage 05, ``device=``
puts the result on a device, as ``device_put`` does.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import array, dtypes

__array_api_version__ = "2024.12"

# The standard's dtype kinds, by the dtypes of each (float16 and bfloat16 are not in the standard).
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


# didax.devices.device_put, given here by devices.py when it is imported. This module does not import
# it, so that eager use alone never loads jaxlib (as array.py's xla); to name a device, one has it.
device_put: Any = None


def place(x: Any, device: Any) -> Any:
    """``x`` on ``device``; None leaves it where it was made."""
    return x if device is None else device_put(x, device)


def with_device(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with the keyword-only ``device=None`` the standard gives every function that makes an
    array: its result is put there."""

    @functools.wraps(fn)
    def made_on(*args: Any, device: Any = None, **kwargs: Any) -> Any:
        return place(fn(*args, **kwargs), device)

    signature = inspect.signature(fn)
    device = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)
    parameters = [*signature.parameters.values(), device]
    made_on.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return made_on


class ArrayNamespaceInfo:
    """The namespace's answers to "what can it do, on which devices, with which dtypes"."""

    def capabilities(self) -> dict[str, Any]:
        # No boolean masks or data-dependent shapes: every shape is known before the values, as in JAX.
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self) -> Any:
        return None  # no device committed to: values stay where they are made

    def devices(self) -> list[Any]:
        return [None] if array.xla is None else [None, *array.xla.devices()]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        return {"real floating": dtypes.default_dtype("f"), "complex floating": dtypes.default_dtype("c"),
                "integral": dtypes.default_dtype("i"), "indexing": dtypes.default_dtype("i")}  # fmt: skip

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict[str, np.dtype]:
        """The dtypes of ``kind`` (a kind's name, or a tuple of them; every kind by default) that
        didax stores as they are: no 64-bit types while x64 is off."""
        kinds = ("bool", "numeric") if kind is None else (kind,) if isinstance(kind, str) else kind
        names = [name for k in kinds for name in _KINDS[k]]  # an unknown kind is a KeyError, as in JAX
        return {name: np.dtype(name) for name in dict.fromkeys(names) if dtypes.is_canonical(np.dtype(name))}


def __array_namespace_info__() -> ArrayNamespaceInfo:
    return ArrayNamespaceInfo()
