"""Where an array's pieces live: meshes, partition specs and shardings (stage 07), ``jax.sharding``.

A ``Mesh`` arranges devices in an n-dimensional grid whose axes have names. A ``PartitionSpec``
says, for each axis of an array, which mesh axes split it (``P('a', None)``: the array's first
axis is cut into ``mesh.shape['a']`` blocks, its second is whole). A ``NamedSharding`` pairs the
two; every device gets one block, and the devices along mesh axes the spec does not name hold
copies (replicas) of the same block.

Everything here is plain Python and NumPy: devices are opaque objects that didax.xla hands out.
didax.xla turns a sharding into XLA's form (``_tile_assignment``) when it puts an array's pieces
on their devices. ``make_mesh``, which asks for the devices, is in devices.py.
"""

from __future__ import annotations

import enum
import math
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .core import is_staging

# didax.xla, given here by devices.py (as jit.py gives it to array.py: neither module imports it,
# so that eager didax never loads jaxlib). Only ``addressable_devices`` reads it.
xla: Any = None


class AxisType(enum.Enum):
    """How a mesh axis is used: left to XLA (Auto), tracked in types (Explicit), or in manual SPMD
    code (Manual, inside shard_map). didax records it; this stage treats Explicit like Auto."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class IndivisibleError(ValueError):
    """An array axis that the mesh axes splitting it do not divide evenly."""


class DuplicateSpecError(Exception):
    """A spec naming one mesh axis for two array axes (JAX's class: not a ValueError)."""


# ----------------------------------------------------------------------------------------------
# Mesh and PartitionSpec.


class Mesh:
    """Devices in a grid with named axes: ``Mesh(np.array(devices).reshape(2, 4), ('a', 'b'))``."""

    def __init__(self, devices: Any, axis_names: str | Sequence[str], axis_types: Any = None) -> None:
        grid = np.array(devices, dtype=object)  # a copy, read-only: a mesh never changes
        grid.flags.writeable = False
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if grid.ndim != len(names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length of its second "
                f"argument (`axis_names`), but got devices.ndim == {grid.ndim} and len(axis_names) == {len(names)}."
            )
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(names)
        types = (axis_types,) if isinstance(axis_types, AxisType) else tuple(axis_types)
        if len(types) != len(names):
            raise ValueError("Number of axis names should match the number of axis_types. Got "
                             f"axis_names={names} and axis_types={types}")  # fmt: skip
        self.devices, self.axis_names, self.axis_types = grid, names, types

    @property
    def shape(self) -> OrderedDict[str, int]:
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return self.devices.shape

    @property
    def size(self) -> int:
        return self.devices.size

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    def _key(self) -> tuple:
        return (self.axis_names, self.axis_types, self.devices.shape, tuple(self.devices.flat))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        types = f", axis_types={self.axis_types}" if self.axis_types else ""
        return f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}{types})"

    def __str__(self) -> str:  # the short form, as a NamedSharding prints its mesh
        sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({sizes}, axis_types={self.axis_types})"


class PartitionSpec:
    """One entry per array axis: None (not split), a mesh axis name, or a tuple of names (split
    by all of them, the first major). Shorter than the array's rank means None for the rest.

    Equality is exact: ``P('a', None) != P('a')``, as in JAX 0.10.2, though both mean the same on
    a 2-d array (``NamedSharding.is_equivalent_to`` says so)."""

    def __init__(self, *partitions: Any, unreduced: Any = frozenset(), reduced: Any = frozenset()) -> None:
        self._partitions = tuple(tuple(p) if isinstance(p, list) else p for p in partitions)
        self.unreduced, self.reduced = frozenset(unreduced), frozenset(reduced)

    def __len__(self) -> int:
        return len(self._partitions)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._partitions)

    def __getitem__(self, index: Any) -> Any:
        return self._partitions[index]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PartitionSpec) and self._partitions == other._partitions
                and (self.unreduced, self.reduced) == (other.unreduced, other.reduced))  # fmt: skip

    def __hash__(self) -> int:
        return hash((self._partitions, self.unreduced, self.reduced))

    def __repr__(self) -> str:
        extra = [f"{k}={set(v)!r}" for k, v in (("unreduced", self.unreduced), ("reduced", self.reduced)) if v]
        if not extra:
            return f"P{self._partitions!r}"  # P('a',): a tuple's repr, comma and all, as JAX prints it
        return f"P({', '.join([*map(repr, self._partitions), *extra])})"

    def _axes(self, ndim: int) -> list[tuple[str, ...]]:
        """The mesh axes splitting each of ``ndim`` array axes (``()`` for an axis not split)."""
        padded = self._partitions + (None,) * (ndim - len(self._partitions))
        return [() if p is None else (p,) if isinstance(p, str) else tuple(p) for p in padded]


P = PartitionSpec


# ----------------------------------------------------------------------------------------------
# Shardings.


class Sharding:
    """Where each block of an array lives. A subclass gives its devices in order (``_devices``)
    and ``_layout``: per device, which block it holds and which copy of that block it is."""

    memory_kind: str
    _devices: tuple[Any, ...]

    def _tiles(self, ndim: int) -> tuple[int, ...]:
        """How many blocks each of ``ndim`` array axes is cut into."""
        raise NotImplementedError

    def _layout(self, ndim: int) -> list[tuple[Any, tuple[int, ...], int]]:
        """(device, its block's position along each array axis, replica id), in ``_devices`` order."""
        raise NotImplementedError

    @property
    def device_set(self) -> set[Any]:
        return set(self._devices)

    @property
    def num_devices(self) -> int:
        return len(self._devices)

    @property
    def addressable_devices(self) -> set[Any]:
        """The devices of this process."""
        here = xla.process_index(self._devices[0].platform)
        return {d for d in self._devices if d.process_index == here}

    @property
    def is_fully_replicated(self) -> bool:
        return self.num_devices == 1 or math.prod(self._tiles(0)) == 1

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of each block of an array of ``global_shape``: JAX's IndivisibleError if an axis
        does not divide."""
        shape = tuple(global_shape)
        tiles = self._tiles(len(shape))
        if len(tiles) > len(shape):
            raise ValueError(f"Sharding {self!r} is only valid for values of rank at least {len(tiles)}, but was "
                             f"applied to a value of rank {len(shape)}.")  # fmt: skip
        for axis, (n, size) in enumerate(zip(tiles, shape)):
            if size % n:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {axis} is partitioned {n} times, but the dimension "
                    f"size is {size} (full shape: {shape}, per-dimension tiling factors: {list(tiles)} should "
                    "evenly divide the shape)"
                )
        return tuple(size // n for n, size in zip(tiles, shape))

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict[Any, tuple[slice, ...]]:
        """Each device's block of an array of ``global_shape``, as the index that slices it out."""
        block = self.shard_shape(global_shape)
        tiles = self._tiles(len(block))
        return {d: tuple(slice(c * b, (c + 1) * b) if n > 1 else slice(None) for c, b, n in zip(where, block, tiles))
                for d, where, _ in self._layout(len(block))}  # fmt: skip

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        """Whether both put the same block of an ``ndim``-d array on each device."""
        blocks = lambda s: (s._tiles(ndim), {d: where for d, where, _ in s._layout(ndim)})  # noqa: E731
        return self.memory_kind == other.memory_kind and blocks(self) == blocks(other)

    def _tile_assignment(self, ndim: int) -> np.ndarray:
        """For XLA: an array of shape (*blocks per axis, copies) holding each device's position in
        ``_devices`` (a "tile assignment" with the replicas last)."""
        layout = self._layout(ndim)
        copies = 1 + max(r for _, _, r in layout)
        assignment = np.zeros((*self._tiles(ndim), copies), dtype=np.int64)
        for position, (_, where, replica) in enumerate(layout):
            assignment[(*where, replica)] = position
        return assignment


class SingleDeviceSharding(Sharding):
    """All of the array on one device."""

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        self._device, self.memory_kind = device, memory_kind or "device"
        self._devices = (device,)

    def _tiles(self, ndim: int) -> tuple[int, ...]:
        return (1,) * ndim

    def _layout(self, ndim: int) -> list[tuple[Any, tuple[int, ...], int]]:
        return [(self._device, (0,) * ndim, 0)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleDeviceSharding) and (self._device, self.memory_kind) == (
            other._device, other.memory_kind)  # fmt: skip

    def __hash__(self) -> int:
        return hash((self._device, self.memory_kind))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class NamedSharding(Sharding):
    """An array split over a mesh as ``spec`` says: ``NamedSharding(mesh, P('a'))``."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec, *, memory_kind: str | None = None) -> None:
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding expects a PartitionSpec as its spec, got {spec!r}: use P(...)")
        named = [a for axes in spec._axes(0) for a in axes]
        for axis in named:
            if axis not in mesh.axis_names:
                raise ValueError(f"Resource axis: {axis} of {spec!r} is not found in mesh: {mesh.axis_names}.")
        duplicate = next((a for i, a in enumerate(named) if a in named[:i]), None)
        if duplicate is not None:
            raise DuplicateSpecError(
                "A single NamedSharding spec specification can map every mesh axis to at most one positional "
                f"dimension, but {spec!r} has duplicate entries for `{duplicate}`"
            )
        self.mesh, self.spec, self.memory_kind = mesh, spec, memory_kind or "device"
        self._devices = tuple(mesh.devices.flat)

    def _tiles(self, ndim: int) -> tuple[int, ...]:
        sizes = self.mesh.shape
        return tuple(math.prod(sizes[a] for a in axes) for axes in self.spec._axes(ndim))

    def _layout(self, ndim: int) -> list[tuple[Any, tuple[int, ...], int]]:
        axes, sizes = self.spec._axes(ndim), self.mesh.shape
        unused = [a for a in self.mesh.axis_names if not any(a in named for named in axes)]

        def number(names: Sequence[str], at: dict[str, int]) -> int:  # mixed radix, first name major
            value = 0
            for name in names:
                value = value * sizes[name] + at[name]
            return value

        layout = []
        for position in np.ndindex(self.mesh.devices.shape):
            at = dict(zip(self.mesh.axis_names, position))
            layout.append((self.mesh.devices[position], tuple(number(a, at) for a in axes), number(unused, at)))
        return layout

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedSharding) and (self.mesh, self.spec, self.memory_kind) == (
            other.mesh, other.spec, other.memory_kind)  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.mesh, self.spec, self.memory_kind))

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}, memory_kind={self.memory_kind})"


# ----------------------------------------------------------------------------------------------
# The mesh in use.


_mesh: Mesh | None = None  # the mesh set_mesh set


def get_mesh() -> Mesh:
    """The mesh ``set_mesh`` set (an empty mesh if none)."""
    return Mesh(np.empty((), dtype=object), ()) if _mesh is None else _mesh


class set_mesh:  # noqa: N801  (JAX's name: a function to its callers, a class to be a `with` block too)
    """Use ``mesh`` where no mesh is given (``device_put(x, P('a'))``): from now on, or, in a
    ``with`` block, until it ends."""

    def __init__(self, mesh: Mesh) -> None:
        global _mesh
        if not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if is_staging():
            raise ValueError("`set_mesh` can only be used outside of `jax.jit`.")
        self._previous: Mesh | None = _mesh
        _mesh = mesh

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        global _mesh
        _mesh = self._previous
