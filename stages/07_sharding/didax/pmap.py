"""``didax.pmap``: a function run once per device, on slices of its arguments (stage 07).

``pmap(f, 'i')(xs)`` is vmap's contract (``f`` mapped over axis 0 of ``xs``, ``psum(x, 'i')``
summing over the examples) kept on devices: example k runs on device k. As JAX 0.10.2 builds it,
it is made of two pieces this stage already has:

- ``shard_map`` over a one-axis mesh of the first n devices (n: the size of the mapped axis),
  named ``axis_name``, each argument's mapped axis split over it (``in_axes`` k becomes the spec
  ``P(None, ..., None, name)`` with the name at position k; ``None``, ``P()``); the body squeezes
  each mapped axis away (each device holds a block of size 1), calls ``f``, and puts a unit axis
  back at ``out_axes`` for the outputs to be stacked along;
- ``jit`` of that, so it is compiled once per signature.

The replication check is off (``check_vma=False``): pmap never had one, and under it psum
transposes to psum, as pmap's gradients always have.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from .core import Tracer, is_staging
from .devices import _put_sharded, devices as all_devices, process_count
from .array import to_array
from .jit import _Static, jit
from .lax.structural import expand_dims, squeeze
from .shard_map import shard_map
from .sharding import Mesh, NamedSharding, PartitionSpec
from .tree_util import _flatten_up_to, tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten

_DEFAULT_NAME = "_internal_pmap_axis_name"


def pmap(fun: Callable[..., Any], axis_name: Hashable | None = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Iterable[int] = (), devices: Sequence[Any] | None = None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Iterable[int] = ()) -> Callable[..., Any]:  # fmt: skip
    """``fun`` mapped over an axis of its arguments, example k on device k (see the module's
    docstring). ``in_axes``, ``out_axes``: as vmap's (ints or None, prefixes of the arguments'
    tuple and of the result); keyword arguments are mapped over axis 0. The static arguments are
    the same on every device and part of the signature; ``devices`` says which devices run it
    (default: the first ones of ``backend``); ``axis_size``, if given, must be the mapped size."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    name = _DEFAULT_NAME if axis_name is None else axis_name
    statics = _index_tuple(static_broadcasted_argnums)
    donated = tuple(i - sum(s < i for s in statics) for i in _index_tuple(donate_argnums) if i not in statics)
    for what, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(a) is int for a in tree_leaves(axes)):
            raise TypeError(f"pmap {what} must be an int, None, or (nested) container with those types as "
                            f"leaves, but got {axes}.")  # fmt: skip
    options = (name, _hashable(in_axes), _hashable(out_axes), statics, donated, devices, backend)

    @functools.wraps(fun)
    def mapped(*args: Any, **kwargs: Any) -> Any:
        if statics and max(statics) >= len(args):
            raise ValueError(f"pmapped function has static_broadcasted_argnums={statics} but was called with only "
                             f"{len(args)} positional argument{'s' if len(args) > 1 else ''}. All static broadcasted "
                             "arguments must be passed positionally.")  # fmt: skip
        dyn_args = tuple(a for i, a in enumerate(args) if i not in statics)
        static_args = tuple((i, _Static(args[i])) for i in statics)
        leaves, tree = tree_flatten((dyn_args, kwargs))
        dyn_in_axes = tuple(in_axes[i] for i in range(len(args)) if i not in statics) \
            if statics and isinstance(in_axes, tuple) else in_axes  # fmt: skip
        axes = _axes_of.get((options, tree))
        if axes is None:  # (a new structure of arguments: worked out once)
            axes = _axes_of[options, tree] = _flat_in_axes(dyn_in_axes, dyn_args, kwargs)
        size = _mapped_size(leaves, axes)
        if axis_size is not None and axis_size != size:
            raise ValueError(f"Specified axis_size {axis_size} doesn't match received axis_size {size}.")
        if process_count(backend) > 1:  # (JAX stitches each process's slices into one global array)
            raise NotImplementedError("didax's pmap runs within one process; across processes, use shard_map "
                                      "over a mesh of every process's devices")
        mesh = _mesh(devices or tuple(all_devices(backend)), size, name)
        flags = tuple(i in donated for i, a in enumerate(dyn_args) for _ in tree_leaves(a))
        flags += (False,) * (len(leaves) - len(flags))  # keyword arguments are never donated
        key = (options, tree, axes, mesh, static_args, flags)
        cache = _cache_of(fun)
        run = cache.get(key)
        if run is None:
            run = cache[key] = _compiled_map(fun, name, mesh, tree, axes, out_axes, static_args, flags)
        if not is_staging() and not any(isinstance(x, Tracer) for x in leaves):
            # Each argument goes to the devices in slices, as the specs say (JAX's jit does so
            # with in_shardings): a mapped axis longer than the mesh fails here, as in JAX.
            leaves = [_put_sharded(to_array(x), _named(mesh, _spec(name, a))) for x, a in zip(leaves, axes)]
        return run(*leaves)

    return mapped


def _compiled_map(fun: Callable[..., Any], name: Hashable, mesh: Mesh, tree: Any, axes: tuple, out_axes: Any,
                  static_args: tuple, donated: tuple[bool, ...]) -> Callable[..., Any]:  # fmt: skip
    """jit of shard_map of ``fun``'s body, for one signature: flat arguments in, ``fun``'s result out."""

    statics = dict(static_args)

    def body(*flat: Any) -> Any:
        flat = [x if a is None else squeeze(x, (a,)) for x, a in zip(flat, axes)]
        dyn_args, kwargs = tree_unflatten(tree, flat)
        it = iter(dyn_args)
        full = [statics[i].value if i in statics else next(it) for i in range(len(dyn_args) + len(statics))]
        out = fun(*full, **kwargs)
        per_leaf = _flatten_up_to(tree_structure(out_axes, is_leaf=lambda x: x is None), out, "pmap out_axes", "")
        out_flat, out_tree = tree_flatten(out)
        leaf_axes = [a for a, sub in zip(tree_leaves(out_axes, is_leaf=lambda x: x is None), per_leaf)
                     for _ in tree_leaves(sub)]  # fmt: skip
        return tree_unflatten(out_tree, [x if a is None else expand_dims(x, (a,)) for x, a in zip(out_flat, leaf_axes)])

    body.__name__ = getattr(fun, "__name__", "pmapped")
    out_specs = tree_map(lambda a: _spec(name, a), out_axes, is_leaf=lambda x: x is None)
    in_specs = tuple(_spec(name, a) for a in axes)
    spread = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)
    return jit(spread, donate_argnums=tuple(i for i, d in enumerate(donated) if d))


_axes_of: dict[Any, tuple[int | None, ...]] = {}  # (pmap's options, the arguments' tree) -> each leaf's axis


@functools.lru_cache(maxsize=64)
def _mesh(devices: tuple[Any, ...], size: int, name: Hashable) -> Mesh:
    """The one-axis mesh of the first ``size`` devices (made once: pmap asks on every call)."""
    return Mesh(np.array(devices[:size], dtype=object), (name,))


_named = functools.lru_cache(maxsize=256)(NamedSharding)  # (pmap asks for the same few on every call)


@functools.lru_cache(maxsize=256)
def _spec(name: Hashable, axis: int | None) -> PartitionSpec:
    """The spec of an argument mapped at ``axis``: the mesh's one axis splits that array axis."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, name)


def _flat_in_axes(in_axes: Any, args: tuple, kwargs: dict) -> tuple[int | None, ...]:
    """One axis per leaf of ``(args, kwargs)``: ``in_axes`` is a prefix of ``args``; keyword
    arguments are mapped over axis 0."""
    prefix = (in_axes, 0)
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        msg = (f"pytree structure error: different lengths of tuple at key path\n    pmap in_axes[0]\nAt that key "
               f"path, the prefix pytree pmap in_axes has a subtree of type tuple of length {len(in_axes)}, but the "
               f"full pytree has a subtree of the same type but of length {len(args)}.")  # fmt: skip
    else:
        try:
            subtrees = _flatten_up_to(tree_structure(prefix, is_leaf=lambda x: x is None), (args, kwargs),
                                      "pmap in_axes", "")  # fmt: skip
        except ValueError as e:
            msg = str(e)
        else:
            axes = tree_leaves(prefix, is_leaf=lambda x: x is None)
            return tuple(a for a, sub in zip(axes, subtrees) for _ in tree_leaves(sub))
    raise ValueError(
        msg + "\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the pmapped function, and "
        "the value of `in_axes` must be a tree prefix of that tuple. But it was not a prefix.\n\nCheck that the "
        "value of the `in_axes` argument to `pmap` is a tree prefix of the tuple of arguments passed positionally "
        "to the pmapped function."
    )


def _mapped_size(leaves: list[Any], axes: tuple[int | None, ...]) -> int:
    """The size of the mapped axis, read off the first mapped argument that has a shape (as JAX
    reads it: shard_map checks that the others agree)."""
    for x, a in zip(leaves, axes):
        if a is not None and hasattr(x, "shape"):
            return int(x.shape[a])
    raise ValueError("pmap requires at least one argument with a mapped axis.")


def _index_tuple(x: int | Iterable[int]) -> tuple[int, ...]:
    return (x,) if isinstance(x, int) else tuple(x)


def _hashable(axes: Any) -> tuple:
    leaves, tree = tree_flatten(axes, is_leaf=lambda x: x is None)
    return tree, tuple(leaves)


# fun -> signature -> its jitted shard_map, as jit keeps its caches: pmap(f)(x) in a loop compiles once.
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cache_of(fun: Callable[..., Any]) -> dict:
    try:
        return _CACHES.setdefault(fun, {})
    except TypeError:  # not weakly referable: no cache across calls
        return {}
