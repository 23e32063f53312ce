"""NumPy's function-mapping helpers, built on vmap: ``vectorize`` and ``apply_along_axis``.
Stage 03 introduced them.

Both turn a function written for one element (or one core slice) into one for whole arrays by
mapping it over the other axes with nested vmaps, one vmap per axis: the function runs once, on
batched values, never once per element as NumPy's versions do.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..batching import vmap
from .creation import asarray
from .manipulation import broadcast_shapes
from .shapes import expand_dims, squeeze

CoreDims = tuple[str, ...]

_DIMS = r"\((?:\w+(?:,\w+)*)?\)"  # "(m,n)" or "()"
_SIGNATURE = re.compile(rf"^{_DIMS}(?:,{_DIMS})*->{_DIMS}(?:,{_DIMS})*$")


def _parse_signature(signature: str) -> tuple[list[CoreDims], list[CoreDims]]:
    """``"(m,n),(n)->(m)"`` as ([("m", "n"), ("n",)], [("m",)])."""
    signature = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = signature.split("->")
    in_dims = [_core_dims(a) for a in re.findall(_DIMS, inputs)]
    return in_dims, [_core_dims(a) for a in re.findall(_DIMS, outputs)]


def _core_dims(text: str) -> CoreDims:
    return tuple(d for d in text[1:-1].split(",") if d)


def vectorize(pyfunc: Callable[..., Any], *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable[..., Any]:
    """``pyfunc`` applied over the leading (loop) axes of its array arguments, which broadcast
    against each other; ``signature`` names the trailing (core) axes each argument and output
    keeps, as in ``np.vectorize``. Arguments in ``excluded`` (positions or keyword names), and
    keyword arguments, are passed through unchanged. (JAX 0.10.2 drops keyword arguments that
    are not excluded; didax passes them on, as NumPy does.)"""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(
            f"jax.numpy.vectorize can only exclude integer or string arguments, but excluded={excluded!r}"
        )
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        mapped = [i for i in range(len(args)) if i not in excluded and args[i] is not None]
        if signature is None:
            in_core: list[CoreDims] = [()] * len(mapped)
            out_core = None
        else:
            in_core, out_core = _parse_signature(signature)
            if len(in_core) != len(mapped):
                raise TypeError(
                    f"wrong number of positional arguments: expected {len(in_core)}, got {len(mapped)}"
                )
        arrays = [asarray(args[i]) for i in mapped]
        sizes = _core_sizes(arrays, in_core)

        def core_fun(*core_args: Any) -> Any:
            full = list(args)
            for i, x in zip(mapped, core_args):
                full[i] = x
            return _check_output(pyfunc(*full, **kwargs), out_core, sizes)

        return _map_loop_axes(core_fun, arrays, in_core)

    return wrapped


def _core_sizes(arrays: list[Any], in_core: list[CoreDims]) -> dict[str, int]:
    """The size of each named core dimension, which every argument must agree on."""
    sizes: dict[str, int] = {}
    for x, dims in zip(arrays, in_core):
        if x.ndim < len(dims):
            raise ValueError(
                f"input with shape {x.shape} does not have enough dimensions for its core dimensions {dims}"
            )
        for name, size in zip(dims, x.shape[x.ndim - len(dims):]):
            if sizes.setdefault(name, size) != size:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs {sizes[name]}")
    return sizes


def _check_output(out: Any, out_core: list[CoreDims] | None, sizes: dict[str, int]) -> Any:
    if out_core is None:
        return out
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(out_core):
        raise ValueError(f"wrong number of output arguments: expected {len(out_core)}, got {len(outs)}")
    for x, dims in zip(outs, out_core):
        shape = asarray(x).shape
        if len(shape) != len(dims) or any(sizes.setdefault(d, s) != s for d, s in zip(dims, shape)):
            raise ValueError(f"output shape {shape} does not match its core dimensions {dims}")
    return out


def _map_loop_axes(fun: Callable[..., Any], arrays: list[Any], in_core: list[CoreDims]) -> Any:
    """``fun`` over the broadcast loop axes of ``arrays``: one vmap per loop axis, innermost
    last. An argument whose loop axis has size 1 (or is missing) is not mapped there: vmap shares
    it across the batch instead of copying it."""
    loop_shapes = [x.shape[: x.ndim - len(dims)] for x, dims in zip(arrays, in_core)]
    shape = broadcast_shapes(*loop_shapes)
    # Each argument's loop axes, aligned at the right with the broadcast shape; size-1 ones go.
    padded = [(1,) * (len(shape) - len(s)) + tuple(s) for s in loop_shapes]
    squeezed = [squeeze(x, tuple(i for i, n in enumerate(s) if n == 1)) for x, s in zip(arrays, loop_shapes)]
    expand = []
    for axis in reversed(range(len(shape))):  # vmap the innermost axis first: it is inside
        in_axes = tuple(None if p[axis] == 1 else 0 for p in padded)
        if all(a is None for a in in_axes):
            expand.append(axis)  # every argument has size 1 here: the output gets a size-1 axis
        else:
            fun = vmap(fun, in_axes)
    out = fun(*squeezed)
    if not expand:
        return out
    if isinstance(out, tuple):
        return tuple(expand_dims(o, tuple(expand)) for o in out)
    return expand_dims(out, tuple(expand))


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``; the axes it returns take
    that axis's place in the result."""
    arr = asarray(arr)
    ndim = arr.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim

    def fun(x: Any) -> Any:
        return func1d(x, *args, **kwargs)

    for _ in range(axis + 1, ndim):  # the axes after it, innermost first...
        fun = vmap(fun, in_axes=-1, out_axes=-1)
    for _ in range(axis):  # ...then the ones before it
        fun = vmap(fun, in_axes=0, out_axes=0)
    return fun(arr)


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Any:
    """``func(a, axis)`` for each axis in turn, keeping the rank: a result with one axis fewer gets
    it back, of size 1."""
    out = asarray(a)
    for axis in axes:
        result = asarray(func(out, axis))
        if result.ndim == out.ndim - 1:
            result = expand_dims(result, axis)
        elif result.ndim != out.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        out = result
    return out


