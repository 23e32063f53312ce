"""Pytrees, every stage: ``tree_flatten`` and ``tree_unflatten`` beside JAX's, whose pytrees are C++.

Each kind of tree is timed at about 10, 100 and 1,000 leaves (Python ints: a leaf's type costs
neither library anything), so the table shows both the fixed cost of a call and the cost per node:

- ``dict``: one flat dict of n entries (its keys are sorted on every flatten);
- ``dict of [x, (x, x)]``: n / 3 keys, each a list holding a leaf and a pair (the issue's tree);
- ``list of (w, b)``: a list of n / 2 pairs, the shape of a network's parameters;
- ``namedtuples``: a list of n / 2 namedtuples of two fields (nodes found by their shape, unregistered);
- ``(x, None)``: a list of n pairs whose second item is None, an empty node, not a leaf;
- ``register_pytree_node``: a list of n / 2 objects of a class registered with two functions;
- ``register_dataclass``: a list of n / 2 dataclasses of two data fields and one static field.

``tree_unflatten`` rebuilds the same tree from its leaves and treedef, made once beforehand. The
registered classes are defined anew for every run of ``cases`` (a class may be registered only once
in each library), and registered in each library's own registry.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable
from functools import partial
from typing import Any

from .cases import Case, Libs

SUITE = "pytrees"
TITLE = "pytrees (tree_flatten, tree_unflatten)"
SIZES = (10, 100, 1000)  # leaves, about: each kind rounds to its own unit (3 leaves per dict entry)

Point = collections.namedtuple("Point", ["x", "y"])


def cases(libs: Libs) -> list[Case]:
    """For each kind of tree and each size, a flatten case and an unflatten case."""
    node_classes = {impl: _registered_classes(getattr(libs, impl).tree_util) for impl in ("didax", "jax")}
    out = []
    for kind, build in KINDS.items():
        for size in SIZES:
            trees = {impl: build(size, node_classes[impl]) for impl in ("didax", "jax")}
            out += [_flatten(libs, kind, trees), _unflatten(libs, kind, trees)]
    return out


def tables(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The suite's own table: didax's time over JAX's, flatten and unflatten side by side, per tree."""
    by_key = {(c["tree"], c["leaves"], c["op"]): c for c in cases}
    rows = []
    for (tree, leaves, op), case in by_key.items():
        if op != "flatten":
            continue
        unflatten = by_key.get((tree, leaves, "unflatten"))
        cells = [_ratio(case)] + ([_ratio(unflatten)] if unflatten else ["—"])
        rows.append([f"`{tree}`", f"{leaves:,}", *cells])
    if not rows:
        return []
    return [{"title": "didax over JAX, per tree (target: at most 3.00)",
             "columns": ["tree", "leaves", "tree_flatten didax/JAX", "tree_unflatten didax/JAX"], "rows": rows}]


def _ratio(case: dict[str, Any]) -> str:
    return "—" if case["didax/jax"] is None else f"{case['didax/jax']:.2f}"


# --- The trees ---------------------------------------------------------------------------------


def _registered_classes(tree_util: Any) -> dict[str, type]:
    """A class registered with ``register_pytree_node`` and a dataclass registered with
    ``register_dataclass``, new ones, in ``tree_util``'s registry."""

    class Node:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    tree_util.register_pytree_node(Node, lambda n: ((n.a, n.b), None), lambda _aux, children: Node(*children))

    @dataclasses.dataclass
    class Layer:
        w: Any
        b: Any
        name: str = dataclasses.field(metadata={"static": True}, default="dense")

    tree_util.register_dataclass(Layer)
    return {"Node": Node, "Layer": Layer}


def _dict(n: int, _classes: dict[str, type]) -> Any:
    return {f"k{i:04d}": i for i in range(n)}


def _dict_of_lists(n: int, _classes: dict[str, type]) -> Any:
    return {f"k{i:04d}": [3 * i, (3 * i + 1, 3 * i + 2)] for i in range(-(-n // 3))}


def _list_of_pairs(n: int, _classes: dict[str, type]) -> Any:
    return [(2 * i, 2 * i + 1) for i in range(n // 2)]


def _namedtuples(n: int, _classes: dict[str, type]) -> Any:
    return [Point(2 * i, 2 * i + 1) for i in range(n // 2)]


def _with_none(n: int, _classes: dict[str, type]) -> Any:
    return [(i, None) for i in range(n)]


def _registered_nodes(n: int, classes: dict[str, type]) -> Any:
    return [classes["Node"](2 * i, 2 * i + 1) for i in range(n // 2)]


def _dataclasses(n: int, classes: dict[str, type]) -> Any:
    return [classes["Layer"](2 * i, 2 * i + 1) for i in range(n // 2)]


KINDS: dict[str, Callable[[int, dict[str, type]], Any]] = {
    "dict": _dict,
    "dict of [x, (x, x)]": _dict_of_lists,
    "list of (w, b)": _list_of_pairs,
    "namedtuples": _namedtuples,
    "(x, None)": _with_none,
    "register_pytree_node": _registered_nodes,
    "register_dataclass": _dataclasses,
}


# --- The cases ---------------------------------------------------------------------------------


def _flatten(libs: Libs, kind: str, trees: dict[str, Any]) -> Case:
    leaves = len(libs.jax.tree_util.tree_leaves(trees["jax"]))
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}  # NumPy has no pytrees
    for impl in ("didax", "jax"):
        calls[impl] = partial(getattr(libs, impl).tree_util.tree_flatten, trees[impl])
    return Case(f"flatten {kind} ×{leaves}", f"tree_flatten of a {kind} tree of {leaves} leaves", calls,
                extra={"tree": kind, "leaves": leaves, "op": "flatten"})


def _unflatten(libs: Libs, kind: str, trees: dict[str, Any]) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        tree_util = getattr(libs, impl).tree_util
        leaves, treedef = tree_util.tree_flatten(trees[impl])
        calls[impl] = partial(tree_util.tree_unflatten, treedef, leaves)
    n = len(leaves)
    return Case(f"unflatten {kind} ×{n}", f"tree_unflatten of a {kind} tree of {n} leaves", calls,
                extra={"tree": kind, "leaves": n, "op": "unflatten"})
