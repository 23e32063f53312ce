"""What the array API standard (version 2024.12) asks of a namespace beyond its functions: the
version, ``__array_namespace_info__`` (which devices and dtypes there are), and the ``device=``
argument of the functions that make arrays. Stage 01 introduced it.

Stage 01 keeps every value in host memory and has no devices to name: ``device=None`` is the only
place it accepts (stage 05 adds devices).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes

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


def place(x: Any, device: Any) -> Any:
    """``x`` on ``device``. Stage 01 has no devices: only None, "wherever it is", is accepted."""
    if device is not None:
        raise NotImplementedError(f"device={device!r}: didax has no devices to choose before stage 05; "
                                  "leave device=None.")  # fmt: skip
    return x


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
        return [None]

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
