"""Pytrees: flatten/unflatten round trips, leaf order, tree_map, is_leaf, None, treedef equality and
printing. The oracle is the small reference flattener below, plus the strings printed in the JAX
documentation (seeds/000, "Pytrees"). Custom classes are registered with each implementation."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.checks import show_call
from conformance.impl import Impl
from conformance.strategies import Point

pytestmark = [pytest.mark.area("pytrees"), pytest.mark.requires("eval")]


class Special:
    """Not registered: a leaf, whatever it holds."""

    def __init__(self, x: Any, y: Any) -> None:
        self.x, self.y = x, y

    def __repr__(self) -> str:
        return f"{type(self).__name__}(x={self.x!r}, y={self.y!r})"


class RegisteredSpecial(Special):
    """Registered with register_pytree_node, with aux data None (the documentation's example)."""


class RegisteredSpecial2(Special):
    """Registered with register_pytree_node_class."""

    def tree_flatten(self) -> tuple[tuple[Any, Any], None]:
        return (self.x, self.y), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: tuple) -> RegisteredSpecial2:
        return cls(*children)


class Box:
    """A node with a variable number of children and aux data: (tag,)."""

    def __init__(self, items: list, tag: str) -> None:
        self.items, self.tag = list(items), tag

    def __repr__(self) -> str:
        return f"Box({self.items!r}, {self.tag!r})"

    def tree_flatten(self) -> tuple[tuple, tuple[str]]:
        return tuple(self.items), (self.tag,)

    @classmethod
    def tree_unflatten(cls, aux: tuple[str], children: tuple) -> Box:
        return cls(list(children), aux[0])


_registered: set[int] = set()


@pytest.fixture(scope="module")
def tu(impl: Impl) -> Any:
    """The implementation's tree_util, with this module's classes registered in its own registry."""
    tree_util = impl.tree_util
    if id(tree_util) not in _registered:
        tree_util.register_pytree_node(
            RegisteredSpecial,
            lambda s: ((s.x, s.y), None),
            lambda aux, children: RegisteredSpecial(*children),
        )
        tree_util.register_pytree_node_class(RegisteredSpecial2)
        tree_util.register_pytree_node_class(Box)
        _registered.add(id(tree_util))
    return tree_util


TREES = S.pytrees(
    extra_nodes=[
        lambda children: st.builds(RegisteredSpecial, children, children),
        lambda children: st.builds(RegisteredSpecial2, children, children),
        lambda children: st.builds(Box, st.lists(children, max_size=3), st.sampled_from(["p", "q"])),
    ]
)


# --- the reference -------------------------------------------------------------------------------


def children_of(tree: Any) -> tuple[str, list] | None:
    """(how JAX prints the node, its children in flattening order), or None for a leaf."""
    kind = type(tree)
    if kind is tuple:
        return "tuple", list(tree)
    if kind is list:
        return "list", list(tree)
    if kind is dict:  # children in sorted key order
        return "dict", [tree[k] for k in sorted(tree)]
    if kind is OrderedDict:  # insertion order
        return f"OrderedDict[{tuple(tree)}]", list(tree.values())
    if kind is Point:
        return "namedtuple[Point]", list(tree)
    if kind in (RegisteredSpecial, RegisteredSpecial2):
        return f"{kind.__name__}[None]", [tree.x, tree.y]
    if kind is Box:
        return f"Box[{(tree.tag,)}]", list(tree.items)
    return None


def reference_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, str]:
    """The leaves of `tree` and its structure printed the way JAX prints a PyTreeDef."""
    leaves: list = []

    def walk(t: Any) -> str:
        if is_leaf is not None and is_leaf(t):
            leaves.append(t)
            return "*"
        if t is None:
            return "None"
        node = children_of(t)
        if node is None:
            leaves.append(t)
            return "*"
        name, children = node
        parts = [walk(c) for c in children]
        inner = ", ".join(parts)
        if name == "tuple":
            return f"({inner},)" if len(parts) == 1 else f"({inner})"
        if name == "list":
            return f"[{inner}]"
        if name == "dict":
            return "{" + ", ".join(f"{k!r}: {part}" for k, part in zip(sorted(t), parts)) + "}"
        return f"CustomNode({name}, [{inner}])"

    return leaves, walk(tree)


def reference_rebuild(tree: Any, leaves: Iterator) -> Any:
    """`tree` with its leaves replaced, in order, by the next items of `leaves`."""
    if tree is None:
        return None
    node = children_of(tree)
    if node is None:
        return next(leaves)
    kind = type(tree)
    if kind is dict:
        return {k: reference_rebuild(tree[k], leaves) for k in sorted(tree)}
    if kind is OrderedDict:
        return OrderedDict((k, reference_rebuild(v, leaves)) for k, v in tree.items())
    children = [reference_rebuild(c, leaves) for c in node[1]]
    if kind in (tuple, list):
        return kind(children)
    if kind is Box:
        return Box(children, tree.tag)
    return kind(*children)  # Point and the two Specials


class Tag:
    """An unregistered wrapper, so that new leaves stay leaves."""

    def __init__(self, *values: Any) -> None:
        self.values = values

    def __repr__(self) -> str:
        return f"Tag{self.values!r}"


def assert_same_leaves(got: list, want: list) -> None:
    """The very same objects, in the same order (flattening never copies a leaf)."""
    assert len(got) == len(want), f"{len(got)} leaves, expected {len(want)}: {got!r} vs {want!r}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g is w, f"leaf {i} is {g!r}, expected {w!r}"


# --- hypothesis-drawn trees ----------------------------------------------------------------------

# Examples the full profile found (against the broken implementations in meta/broken), kept so that
# the quick ci profile tries them too.
REGRESSIONS = [{"aa": 0, "a": 1}, OrderedDict([("b", [1, None]), ("a", (2,))])]


def with_regressions(test: Callable) -> Callable:
    for tree in REGRESSIONS:
        test = example(tree=tree)(test)
    return test


@given(tree=TREES)
@with_regressions
def test_flatten_gives_leaves_in_order_and_prints_the_structure(tu: Any, tree: Any) -> None:
    show_call("tree_util.tree_flatten(tree)", tree=tree)
    leaves, treedef = tu.tree_flatten(tree)
    want_leaves, want_structure = reference_flatten(tree)
    assert_same_leaves(leaves, want_leaves)
    assert str(treedef) == f"PyTreeDef({want_structure})"
    assert treedef.num_leaves == len(want_leaves)


@given(tree=TREES)
@with_regressions
def test_unflatten_round_trips(tu: Any, tree: Any) -> None:
    show_call("tree_util.tree_unflatten(*reversed(tree_util.tree_flatten(tree)))", tree=tree)
    leaves, treedef = tu.tree_flatten(tree)
    rebuilt = tu.tree_unflatten(treedef, leaves)
    got_leaves, got_structure = reference_flatten(rebuilt)
    want_leaves, want_structure = reference_flatten(tree)
    assert got_structure == want_structure
    assert_same_leaves(got_leaves, want_leaves)


@given(tree=TREES)
@with_regressions
def test_unflatten_puts_new_leaves_in_place(tu: Any, tree: Any) -> None:
    leaves, treedef = tu.tree_flatten(tree)
    tags = [Tag(i) for i in range(len(leaves))]
    show_call("tree_util.tree_unflatten(treedef, tags)", tree=tree)
    rebuilt = tu.tree_unflatten(treedef, tags)
    got_leaves, got_structure = reference_flatten(rebuilt)
    assert got_structure == reference_flatten(tree)[1]
    assert_same_leaves(got_leaves, tags)


@given(tree=TREES)
@with_regressions
def test_tree_leaves_and_tree_structure_agree_with_flatten(tu: Any, tree: Any) -> None:
    show_call("tree_util.tree_leaves(tree), tree_util.tree_structure(tree)", tree=tree)
    want_leaves, want_structure = reference_flatten(tree)
    assert_same_leaves(tu.tree_leaves(tree), want_leaves)
    assert str(tu.tree_structure(tree)) == f"PyTreeDef({want_structure})"


@given(tree=TREES)
@with_regressions
def test_tree_map_over_several_trees(tu: Any, tree: Any) -> None:
    """tree_map(f, t1, t2) calls f on corresponding leaves and keeps t1's structure."""
    leaves, _ = reference_flatten(tree)
    second = reference_rebuild(tree, iter([Tag("second", i) for i in range(len(leaves))]))
    show_call("tree_util.tree_map(Tag, tree, second)", tree=tree, second=second)
    got = tu.tree_map(Tag, tree, second)
    got_leaves, got_structure = reference_flatten(got)
    assert got_structure == reference_flatten(tree)[1]
    second_leaves = reference_flatten(second)[0]
    assert [t.values for t in got_leaves] == [(a, b) for a, b in zip(leaves, second_leaves)]


@given(tree=TREES)
@with_regressions
def test_is_leaf_stops_flattening(tu: Any, tree: Any) -> None:
    def is_leaf(x: Any) -> bool:
        return isinstance(x, list)  # lists (Box's items never appear as lists: Box flattens to a tuple)

    show_call("tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, list))", tree=tree)
    leaves, treedef = tu.tree_flatten(tree, is_leaf=is_leaf)
    want_leaves, want_structure = reference_flatten(tree, is_leaf)
    assert_same_leaves(leaves, want_leaves)
    assert str(treedef) == f"PyTreeDef({want_structure})"


@given(tree=TREES)
@with_regressions
def test_treedefs_compare_by_structure(tu: Any, tree: Any) -> None:
    """Equal structures give equal treedefs with equal hashes, whatever the leaves; a different
    structure gives an unequal one."""
    leaves, _ = reference_flatten(tree)
    same_shape = reference_rebuild(tree, iter([Tag(i) for i in range(len(leaves))]))
    show_call("tree_util.tree_structure(tree) == tree_util.tree_structure(same_shape)", tree=tree)
    a, b = tu.tree_structure(tree), tu.tree_structure(same_shape)
    assert a == b
    assert hash(a) == hash(b)
    assert a != tu.tree_structure([tree])
    assert a != tu.tree_structure((tree, None))


@given(tree=TREES)
@with_regressions
def test_tree_map_passes_is_leaf_on(tu: Any, tree: Any) -> None:
    """tree_map(f, tree, is_leaf=...) calls f on the subtrees that is_leaf stops at, as flatten does."""

    def is_leaf(x: Any) -> bool:
        return isinstance(x, list)

    show_call("tree_util.tree_map(Tag, tree, is_leaf=lambda x: isinstance(x, list))", tree=tree)
    got = tu.tree_map(Tag, tree, is_leaf=is_leaf)
    want_leaves, want_structure = reference_flatten(tree, is_leaf)
    got_leaves, got_structure = reference_flatten(got)
    assert got_structure == want_structure
    assert len(got_leaves) == len(want_leaves)
    assert all(t.values[0] is w for t, w in zip(got_leaves, want_leaves)), (got_leaves, want_leaves)


# --- fixed cases: leaf order, None, and the documentation's printed treedefs ---------------------


def test_dict_children_come_in_sorted_key_order(tu: Any) -> None:
    leaves, treedef = tu.tree_flatten({"b": 1, "c": 2, "a": 3})
    assert leaves == [3, 1, 2]
    assert str(treedef) == "PyTreeDef({'a': *, 'b': *, 'c': *})"


def test_ordered_dict_children_come_in_insertion_order(tu: Any) -> None:
    leaves, treedef = tu.tree_flatten(OrderedDict([("b", 1), ("c", 2), ("a", 3)]))
    assert leaves == [1, 2, 3]
    assert str(treedef) == "PyTreeDef(CustomNode(OrderedDict[('b', 'c', 'a')], [*, *, *]))"


def test_dict_and_ordered_dict_structures_differ(tu: Any) -> None:
    assert tu.tree_structure({"a": 1}) != tu.tree_structure(OrderedDict([("a", 1)]))


def test_treedefs_with_different_aux_data_differ(tu: Any) -> None:
    """Dict keys, OrderedDict order and a custom node's aux data are part of the structure."""
    structure = tu.tree_structure
    assert structure({"a": 1}) != structure({"b": 1})
    assert structure(OrderedDict([("a", 1), ("b", 2)])) != structure(OrderedDict([("b", 1), ("a", 2)]))
    assert structure(Box([1, 2], "p")) != structure(Box([1, 2], "q"))
    assert structure(Box([1, 2], "p")) == structure(Box([3, 4], "p"))


def test_none_is_an_empty_node(tu: Any) -> None:
    assert tu.tree_leaves([None] * 3) == []
    assert tu.tree_leaves([None] * 3, is_leaf=lambda x: x is None) == [None] * 3
    leaves, treedef = tu.tree_flatten(None)
    assert leaves == []
    assert str(treedef) == "PyTreeDef(None)"
    assert tu.tree_map(lambda x: x + 1, [None, 1]) == [None, 2]


DOCUMENTED = [  # (tree, leaves, printed treedef), from the JAX documentation's examples
    ([1.0, (2.0, 3.0)], [1.0, 2.0, 3.0], "PyTreeDef([*, (*, *)])"),
    ((1.0, [2.0, 3.0]), [1.0, 2.0, 3.0], "PyTreeDef((*, [*, *]))"),
    ((1.0, {"b": 2.0, "a": 3.0}), [1.0, 3.0, 2.0], "PyTreeDef((*, {'a': *, 'b': *}))"),
    (1.0, [1.0], "PyTreeDef(*)"),
    (None, [], "PyTreeDef(None)"),
    (Point(1.0, 2.0), [1.0, 2.0], "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"),
    ([1, {"k1": 2, "k2": (3, 4)}, 5], [1, 2, 3, 4, 5], "PyTreeDef([*, {'k1': *, 'k2': (*, *)}, *])"),
    (RegisteredSpecial(1.0, 2.0), [1.0, 2.0], "PyTreeDef(CustomNode(RegisteredSpecial[None], [*, *]))"),
    (RegisteredSpecial2(1.0, 2.0), [1.0, 2.0], "PyTreeDef(CustomNode(RegisteredSpecial2[None], [*, *]))"),
]


@pytest.mark.parametrize(("tree", "leaves", "printed"), DOCUMENTED, ids=[p for _, _, p in DOCUMENTED])
def test_documented_examples(tu: Any, tree: Any, leaves: list, printed: str) -> None:
    got_leaves, treedef = tu.tree_flatten(tree)
    assert got_leaves == leaves
    assert str(treedef) == printed


def test_unregistered_objects_and_arrays_are_leaves(tu: Any, impl: Impl) -> None:
    special = Special(1.0, 2.0)
    array = impl.numpy.zeros(2)
    for leaf in (special, array, np.zeros(2), "text"):
        leaves, treedef = tu.tree_flatten(leaf)
        assert_same_leaves(leaves, [leaf])
        assert str(treedef) == "PyTreeDef(*)"


# --- errors --------------------------------------------------------------------------------------


def test_unflatten_with_the_wrong_number_of_leaves_raises_value_error(tu: Any) -> None:
    treedef = tu.tree_structure({"a": 1, "b": 2})
    with pytest.raises(ValueError):
        tu.tree_unflatten(treedef, [1])
    with pytest.raises(ValueError):
        tu.tree_unflatten(treedef, [1, 2, 3])


def test_tree_map_over_different_structures_raises_value_error(tu: Any) -> None:
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, [1, 2], (1, 2))


def test_tree_map_over_dicts_with_different_keys_raises_value_error(tu: Any) -> None:
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 2})
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, Box([1], "p"), Box([2], "q"))
