"""Devices and moving values to and from them: ``didax.devices()``, ``device_put``, ``device_get``
and ``block_until_ready`` (stage 05). Each works on a whole pytree, as in JAX."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import xla
from .array import Array, PRNGKeyArray, buffer_of, to_array
from .core import Tracer
from .numpy import array_api
from .staging import shaped_abstractify
from .tree_util import tree_leaves, tree_map


def devices(backend: str | None = None) -> list[Any]:
    """The devices of ``backend`` ('cpu', 'gpu'/'cuda'), by default of the configured platform."""
    return xla.devices(backend)


def default_backend() -> str:
    """The platform of the default device: 'cpu', or 'gpu' on an NVIDIA GPU, as JAX names them."""
    return xla.default_device().platform


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Any]:
    """The devices this process can address: all of them, in one process."""
    return xla.devices(backend)


def device_put(x: Any, device: Any = None) -> Any:
    """Every array leaf of ``x`` as a didax Array on ``device`` (default: the default device).
    NumPy arrays are copied, so that writing to them later changes nothing here."""
    target = xla.default_device() if device is None else device

    def put(leaf: Any) -> Any:
        if isinstance(leaf, Tracer):
            return leaf  # inside a transformation a put changes no value
        array = to_array(leaf)
        if isinstance(array, PRNGKeyArray):
            return array
        if array._buffer is not None and xla.device_of(array._buffer) == target:
            return array
        # A ShapedArray, not the value's ConcreteArray (equal only to itself): the fast path of jit
        # finds executables by this type, so arrays of one type must have equal ones.
        aval = shaped_abstractify(array)
        return Array.from_buffer(xla.put(array._value, target), aval)

    return tree_map(put, x)


def device_get(x: Any) -> Any:
    """Every Array leaf of ``x`` as a NumPy array (read-only: a view of the Array's own copy)."""
    return tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


def block_until_ready(x: Any) -> Any:
    """Wait for every Array leaf of ``x`` to be computed; ``x`` itself."""
    if type(x) is Array:  # the commonest cases first, without a tree walk: one Array,
        return x.block_until_ready()
    if type(x) in (tuple, list) and set(map(type, x)) == {Array}:  # or a tuple of them
        buffers = [b for b in map(buffer_of, x) if b is not None]
    else:
        arrays = [leaf for leaf in tree_leaves(x) if isinstance(leaf, Array)]
        buffers = [a._buffer for a in arrays if a._buffer is not None]
    if buffers:
        xla.block_until_all_ready(buffers)
    return x


array_api.device_put = device_put  # the numpy namespace's device= arguments put values with it
