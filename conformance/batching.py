"""The oracle of the vmap area: a Python loop.

``vmap(f, in_axes, out_axes)(*args)`` must equal calling ``f`` on each slice of the mapped arguments,
one after another, with the same implementation and no transformation, and stacking the results with
NumPy along ``out_axes``. The slices are NumPy arrays (``np.take`` along the mapped axis); unmapped
arguments are passed as they are, whatever they are. The implementation's own values are checked
against NumPy by the other areas: here only batching is on trial.

``in_axes`` and ``out_axes`` are JAX's prefix trees, written anew here for the containers the suite
builds (tuples, lists, dicts, None): an int or None stands for every leaf below it; a top-level list
of ``in_axes`` counts as a tuple (as in JAX); keyword arguments are always mapped along axis 0.

The loop is split in two, so that a test can draw ``out_axes`` once it knows what ``f`` returns:
``slices`` runs ``f`` per slice, ``stack`` stacks the results. ``loop`` is both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from conformance.checks import RTOL, assert_dtype, assert_values, is_weak, wide
from conformance.derivatives import leaves, structure, tree_map


class Spec(Exception):
    """An in_axes/out_axes that the oracle cannot read: a mistake of the test, not of the impl."""


def broadcast_prefix(prefix: Any, tree: Any) -> Any:
    """``prefix`` (an int or None at any node) expanded to the structure of ``tree``: the tree's
    containers, the axis of each leaf in place of the leaf (None for None leaves)."""
    if prefix is None or isinstance(prefix, int):
        return tree_map(lambda leaf: None if leaf is None else prefix, tree)
    if isinstance(tree, (tuple, list)) and type(prefix) is type(tree) and len(prefix) == len(tree):
        return type(tree)(broadcast_prefix(p, t) for p, t in zip(prefix, tree))
    if isinstance(tree, dict) and isinstance(prefix, dict) and sorted(prefix) == sorted(tree):
        return {k: broadcast_prefix(prefix[k], tree[k]) for k in tree}
    raise Spec(f"{prefix!r} is no prefix of {structure(tree)}")


def _axis(ax: int, ndim: int) -> int:
    if not -ndim <= ax < ndim:
        raise Spec(f"axis {ax} out of range for rank {ndim}")
    return ax % ndim


def axis_size(args: Any, axes: Any) -> int:
    """The size of the mapped axes (all equal: the oracle is no judge of errors)."""
    sizes: set[int] = set()
    tree_map(lambda x, ax: None if ax is None else sizes.add(np.shape(x)[_axis(ax, np.ndim(x))]), args, axes)
    if len(sizes) != 1:
        raise Spec(f"mapped axes of sizes {sorted(sizes)}")
    return sizes.pop()


def take(x: Any, i: int, ax: int | None) -> Any:
    """Slice ``i`` of ``x`` along ``ax``, as a NumPy array (``x`` itself when unmapped)."""
    if ax is None:
        return x
    x = np.asarray(x)
    return np.take(x, i, axis=_axis(ax, x.ndim))


def slices(f: Callable[..., Any], args: Sequence[Any], in_axes: Any = 0, size: int | None = None,
           kwargs: dict[str, Any] | None = None) -> list[Any]:  # fmt: skip
    """``[f(*args_i, **kwargs_i) for i in range(size)]``: ``args_i`` the slices along ``in_axes``,
    ``kwargs_i`` those along axis 0. ``size`` defaults to the mapped axes' size."""
    args, kwargs = tuple(args), dict(kwargs or {})
    if isinstance(in_axes, list):  # a top-level list is a tuple, in JAX as here
        in_axes = tuple(in_axes)
    axes = broadcast_prefix(in_axes, args)
    kw_axes = broadcast_prefix(0, kwargs)
    if size is None:
        size = axis_size((args, kwargs), (axes, kw_axes))
    outs = []
    for i in range(size):
        a = tree_map(lambda x, ax, i=i: take(x, i, ax), args, axes)
        k = tree_map(lambda x, ax, i=i: take(x, i, ax), kwargs, kw_axes)
        outs.append(f(*a, **k))
    return outs


def out_ranks(out: Any) -> Any:
    """The tree of an output's leaves' ranks (what out_axes may be drawn from)."""
    return tree_map(lambda leaf: None if leaf is None else np.ndim(leaf), out)


def stack(outs: list[Any], out_axes: Any = 0) -> Any:
    """The per-slice outputs ``outs`` stacked leaf by leaf along ``out_axes`` (a prefix of their
    tree) as NumPy arrays; a leaf of out_axes None must be the same in every slice: it is the first."""
    axes = broadcast_prefix(out_axes, outs[0])

    def one(ax: int | None, *values: Any) -> Any:
        arrays = [np.asarray(v) for v in values]
        if ax is None:
            for other in arrays[1:]:
                if not np.array_equal(other, arrays[0], equal_nan=arrays[0].dtype.kind in "fc"):
                    raise Spec("out_axes None for an output that differs between slices")
            return arrays[0]
        return np.stack(arrays, axis=_axis(ax, arrays[0].ndim + 1))

    return tree_map(lambda ax, *values: None if values[0] is None else one(ax, *values), axes, *outs)


def loop(f: Callable[..., Any], args: Sequence[Any], in_axes: Any = 0, out_axes: Any = 0,
         size: int | None = None, kwargs: dict[str, Any] | None = None) -> Any:  # fmt: skip
    """What ``vmap(f, in_axes, out_axes, axis_size=size)(*args, **kwargs)`` must return."""
    return stack(slices(f, args, in_axes, size, kwargs), out_axes)


# --- the check ---------------------------------------------------------------------------------------


def _bytes(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).reshape(-1).view(np.uint8)


def _weak(x: Any) -> bool:
    return (
        is_weak(x)
        if hasattr(x, "aval") or hasattr(x, "weak_type")
        else isinstance(x, (bool, int, float, complex))
    )


def assert_batched(got: Any, outs: list[Any], out_axes: Any = 0, *, asarray: Callable[[Any], Any],
                   exact: bool = False, weak: bool = True) -> None:  # fmt: skip
    """``got`` (what vmap returned) against ``stack(outs, out_axes)``: the same tree, and per leaf the
    dtype and weak type of the slices' results (as ``asarray`` makes them: the implementation's
    ``jnp.asarray``, for Python scalars), and their values stacked. Floats agree to the dtype's
    tolerance, relative to the largest magnitude (a batched reduction may add in another order);
    with ``exact``, and for integers and booleans, bit for bit."""
    want = stack(outs, out_axes)
    assert structure(got) == structure(want), f"output tree {structure(got)}, expected {structure(want)}"
    firsts = leaves(outs[0])
    for k, (g, w, first) in enumerate(zip(leaves(got), leaves(want), firsts)):
        first = asarray(first)
        dt = np.dtype(first.dtype)
        if isinstance(g, (np.ndarray, np.generic)):  # JAX hands some inputs back as they came: strongly typed
            g = asarray(g)
        assert_dtype(g, dt, f"output {k}", weak=_weak(first) if weak else None)
        assert np.shape(g) == w.shape, f"output {k} has shape {np.shape(g)}, expected {w.shape}"
        if exact or dt.kind not in "fc":
            g_np = np.asarray(g)
            same = _bytes(g_np) == _bytes(w.astype(dt))
            assert np.all(same), f"output {k} differs (bit for bit):\n got  {g_np!r}\n want {w!r}"
            continue
        scale = float(np.max(np.abs(wide(w)), initial=0.0, where=np.isfinite(w)))
        try:
            assert_values(g, wide(w), dt, atol=RTOL[dt.name] * scale)
        except AssertionError as err:
            raise AssertionError(f"output {k}: vmap and the loop differ\n{err}") from None
