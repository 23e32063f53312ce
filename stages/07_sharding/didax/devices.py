"""Devices and moving values to and from them: ``didax.devices()``, ``device_put``, ``device_get``
and ``block_until_ready`` (stage 05). Each works on a whole pytree, as in JAX. Stage 07 counts
devices and processes, and puts arrays on several devices at once (``device_put(x, sharding)``)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import xla
from . import sharding as sh
from .array import Array, PRNGKeyArray, ShardedType, buffer_of, to_array
from .core import Tracer
from .numpy import array_api
from .staging import shaped_abstractify
from .tree_util import tree_broadcast, tree_leaves, tree_map

sh.xla = xla  # (see there)


def devices(backend: str | None = None) -> list[Any]:
    """The devices of ``backend`` ('cpu', 'gpu'/'cuda'), by default of the configured platform."""
    return xla.devices(backend)


def default_backend() -> str:
    """The platform of the default device: 'cpu', or 'gpu' on an NVIDIA GPU, as JAX names them."""
    return xla.default_device().platform


def local_devices(process_index: int | None = None, backend: str | None = None,
                  host_id: int | None = None) -> list[Any]:  # fmt: skip
    """The devices of process ``process_index`` (default: this one; ``host_id``, its old name)."""
    if host_id is not None:
        warnings.warn("The argument to jax.local_devices has been renamed from `host_id` to `process_index`. This "
                      "alias will eventually be removed; please update your code.")  # fmt: skip
        process_index = host_id
    if process_index is None:
        process_index = xla.process_index(backend)
    if not 0 <= process_index < process_count(backend):
        raise ValueError(f"Unknown process_index {process_index}")
    return [d for d in xla.devices(backend) if d.process_index == process_index]


def device_count(backend: str | None = None) -> int:
    """How many devices all the processes have together."""
    return len(xla.devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
    return xla.process_index(backend)


def process_count(backend: str | None = None) -> int:
    return 1 + max(d.process_index for d in xla.devices(backend))


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None, *,
              devices: Sequence[Any] | None = None) -> sh.Mesh:  # fmt: skip
    """A mesh of the first ``prod(axis_shapes)`` devices, in order. Its axes are Explicit unless
    ``axis_types`` says otherwise, as JAX's make_mesh makes them."""
    if devices is None:
        devices = xla.devices()
    shape = tuple(axis_shapes)
    if len(devices) < math.prod(shape):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape {shape}")
    grid = np.array(list(devices)[: math.prod(shape)], dtype=object).reshape(shape)
    return sh.Mesh(grid, axis_names, (sh.AxisType.Explicit,) * len(shape) if axis_types is None else axis_types)


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: bool = False, may_alias: Any = None) -> Any:
    """Every array leaf of ``x`` as a didax Array on ``device``: a device (default: the default
    device), a sharding, or a PartitionSpec of the mesh ``set_mesh`` set. NumPy arrays are copied,
    so that writing to them later changes nothing here. (``src``, ``donate`` and ``may_alias`` are
    accepted and change nothing: every put copies.) ``device`` may also be a tree whose leaves are
    such targets, a prefix of ``x``'s: each subtree of ``x`` goes to the target at its place."""
    if _is_target_tree(device):
        targets = tree_broadcast(device, x, is_leaf=lambda t: not _is_target_tree(t))
        return tree_map(lambda leaf, t: device_put(leaf, t), x, targets)
    target = _target(device)

    def put(leaf: Any) -> Any:
        if isinstance(leaf, Tracer):
            return leaf  # inside a transformation a put changes no value
        array = to_array(leaf)
        if isinstance(array, PRNGKeyArray):
            return array
        if isinstance(target, sh.Sharding):
            return _put_sharded(array, target)
        if array._buffer is not None and type(array._type) is not ShardedType and xla.device_of(array._buffer) == target:
            return array  # already there
        # A ShapedArray, not the value's ConcreteArray (equal only to itself): the fast path of jit
        # finds executables by this type, so arrays of one type must have equal ones.
        aval = shaped_abstractify(array)
        return Array.from_buffer(xla.put(array._value, target), aval)

    return tree_map(put, x)


def _is_target_tree(device: Any) -> bool:
    """Whether ``device`` is a container of targets (a PartitionSpec is a tuple, but one target)."""
    return isinstance(device, (tuple, list, dict)) and not isinstance(device, sh.PartitionSpec)


def _target(device: Any) -> Any:
    """Where device_put puts: a device, or a sharding over several devices."""
    if device is None:
        return xla.default_device()
    if isinstance(device, sh.PartitionSpec):
        mesh = sh.get_mesh()
        if not mesh.axis_names:
            raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put")
        device = sh.NamedSharding(mesh, device)
    if isinstance(device, sh.SingleDeviceSharding):
        return device._device
    return device


def _put_sharded(array: Array, sharding: sh.Sharding) -> Array:
    """``array`` spread over the devices of ``sharding``: each device gets its block, copied."""
    if type(array._type) is ShardedType and array._type.sharding == sharding:
        return array
    try:
        indices = sharding.devices_indices_map(array.shape)
    except ValueError as e:
        if isinstance(e, sh.IndivisibleError):
            raise
        raise ValueError(  # the rank does not fit the spec
            f"One of device_put args is incompatible with its sharding annotation {sharding}: {e}"
        ) from None
    value = array._value
    devices = sharding._devices
    buffer = xla.put_global([value[indices[d]] for d in devices], devices, value.shape,
                            sharding._tile_assignment(value.ndim))  # fmt: skip
    return Array.from_buffer(buffer, ShardedType(value.shape, value.dtype, array.weak_type, sharding))


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
