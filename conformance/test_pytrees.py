"""Pytrees: flatten/unflatten round trips, leaf order, tree_map, is_leaf, None, treedef equality and
printing; key paths and keystr; register_dataclass, register_static, Partial, broadcast and the `tree`
module. The oracle is the small reference flattener below (which also spells each leaf's key path),
plus the strings printed in the JAX documentation (seeds/000, "Pytrees") and hand-written expected
values. Custom classes are registered with each implementation."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import itertools
import typing
from collections import OrderedDict, namedtuple
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


@pytest.fixture(scope="module")
def tree(impl: Impl) -> Any:
    """The implementation's `tree` module (`jax.tree`: the same functions under short names)."""
    found = getattr(impl.module, "tree", None)
    return found if found is not None else importlib.import_module(f"{impl.module.__name__}.tree")


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
    return with_children(tree, [reference_rebuild(c, leaves) for c in node[1]])


def with_children(node: Any, children: list) -> Any:
    """A node of `node`'s type and aux data (dict keys, tag) holding `children`, in flattening order."""
    kind = type(node)
    if node is None:
        return None
    if kind is dict:
        return dict(zip(sorted(node), children))
    if kind is OrderedDict:
        return OrderedDict(zip(node, children))
    if kind in (tuple, list):
        return kind(children)
    if kind is Box:
        return Box(children, node.tag)
    return kind(*children)  # Point and the two Specials


def reference_one_level(tree: Any) -> list | None:
    """A node's children in flattening order ([] for None), or None for a leaf."""
    if tree is None:
        return []
    node = children_of(tree)
    return None if node is None else node[1]


def reference_aux(tree: Any) -> Any:
    """A node's aux data: a dict's sorted keys, an OrderedDict's keys, the namedtuple class, a Box's
    (tag,); None for the other nodes (the two Specials flatten to None)."""
    kind = type(tree)
    if kind is dict:
        return tuple(sorted(tree))
    if kind is OrderedDict:
        return tuple(tree)
    if kind is Box:
        return (tree.tag,)
    return Point if kind is Point else None


def keyed_children_of(tree: Any) -> list[tuple[str, str, Any]] | None:
    """(key as keystr prints it, key as keystr(simple=True) prints it, child) for each child of a
    node in flattening order, or None for a leaf: [i] for sequences, ['k'] for dicts, .name for
    namedtuple fields, [<flat index i>] for custom nodes registered without keys."""
    kind = type(tree)
    if kind in (tuple, list):
        return [(f"[{i}]", str(i), child) for i, child in enumerate(tree)]
    if kind is dict:
        return [(f"[{k!r}]", str(k), tree[k]) for k in sorted(tree)]
    if kind is OrderedDict:
        return [(f"[{k!r}]", str(k), v) for k, v in tree.items()]
    if kind is Point:
        return [(f".{name}", name, getattr(tree, name)) for name in ("x", "y")]
    node = children_of(tree)
    if node is None:
        return None
    return [(f"[<flat index {i}>]", str(i), child) for i, child in enumerate(node[1])]


def reference_paths(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[tuple[str, str, Any]]:
    """(keystr(path), keystr(path, simple=True, separator="/"), leaf) for each leaf, in order."""
    found: list[tuple[str, str, Any]] = []

    def walk(t: Any, path: str, simple: list[str]) -> None:
        if is_leaf is not None and is_leaf(t):
            found.append((path, "/".join(simple), t))
            return
        if t is None:
            return
        children = keyed_children_of(t)
        if children is None:
            found.append((path, "/".join(simple), t))
            return
        for key, simple_key, child in children:
            walk(child, path + key, [*simple, simple_key])

    walk(tree, "", [])
    return found


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
REGRESSIONS = [
    {"aa": 0, "a": 1},
    OrderedDict([("b", [1, None]), ("a", (2,))]),
    [[(1,)], [[2]]],  # a node of height 2 met before the node of height 1 that its sibling holds
    [[(1,)], [[2]], (3,), (4,), [5], [6]],  # the same, in a tree with enough nodes to be rebuilt by a plan
    # Sixteen pairs but for a 1-tuple and a triple: one after the other, 32 leaves, not 16 pairs.
    [(1, 2)] * 7 + [(3,), (4, 5, 6)] + [(7, 8)] * 7,
]


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
    show_call("tree_util.tree_unflatten(tree_util.tree_structure(tree), tags)", tree=tree, tags=tags)
    rebuilt = tu.tree_unflatten(treedef, tags)
    got_leaves, got_structure = reference_flatten(rebuilt)
    assert got_structure == reference_flatten(tree)[1]
    assert_same_leaves(got_leaves, tags)


@given(tree=TREES)
@with_regressions
def test_a_treedef_rebuilds_its_tree_every_time_it_is_used(tu: Any, tree: Any) -> None:
    # jit rebuilds its output tree from one treedef on every call: each rebuild must give the whole
    # structure again (didax prepares a treedef for the rebuilds after its first), in new containers.
    leaves, treedef = tu.tree_flatten(tree)
    want_structure = reference_flatten(tree)[1]
    rebuilt = []
    for call in range(4):
        tags = [Tag(call * 1000 + i) for i in range(len(leaves))]
        show_call("tree_util.tree_unflatten(treedef, tags)  # the same treedef, again", tree=tree, tags=tags)
        rebuilt.append(tu.tree_unflatten(treedef, tags))
        got_leaves, got_structure = reference_flatten(rebuilt[-1])
        assert got_structure == want_structure
        assert_same_leaves(got_leaves, tags)
    if isinstance(rebuilt[0], (list, dict)):
        assert rebuilt[2] is not rebuilt[3], "each rebuild makes new containers"


@given(
    template=TREES,
    count=st.integers(16, 40),
    odd=st.one_of(st.none(), st.tuples(st.integers(0, 39), TREES)),
    outer=st.sampled_from(["list", "tuple", "dict"]),
)
@example(template=(0, 0), count=16, odd=None, outer="list")  # a network's (w, b) pairs
@example(template=[0, (0, 0)], count=34, odd=None, outer="dict")  # the dict of 102 leaves
@example(template=(0, None), count=20, odd=(5, (0, 0, 0)), outer="list")  # one longer sibling
@example(template=(0, 0), count=20, odd=(19, (0,)), outer="list")  # one shorter, last
@example(template=[0, (0, 0)], count=16, odd=(3, [0, 0]), outer="tuple")  # a leaf where pairs are
@example(template=Point(0, OrderedDict(a=0)), count=17, odd=(2, Point(0, OrderedDict(b=0))), outer="list")
def test_many_siblings_built_alike(tu: Any, template: Any, count: int, odd: Any, outer: str) -> None:
    # A network's parameters are many siblings of one shape (a list of (w, b) pairs, a dict of
    # layers), which an implementation may take apart all at once (didax does, column by column):
    # leaves, structure and rebuilds must still be the walk's, when all are alike and when one is not.
    size = len(reference_flatten(template)[0])
    siblings = [reference_rebuild(template, iter([Tag(i, j) for j in range(size)])) for i in range(count)]
    if odd is not None:
        siblings[odd[0] % count] = odd[1]
    tree = {"list": siblings, "tuple": tuple(siblings), "dict": {f"k{i:02d}": s for i, s in enumerate(siblings)}}[outer]
    show_call("tree_util.tree_flatten(tree)", tree=tree)
    want_leaves, want_structure = reference_flatten(tree)
    leaves, treedef = tu.tree_flatten(tree)
    assert_same_leaves(leaves, want_leaves)
    assert str(treedef) == f"PyTreeDef({want_structure})"
    for _ in range(3):  # the first rebuild, then those of a kept treedef
        got_leaves, got_structure = reference_flatten(tu.tree_unflatten(treedef, leaves))
        assert got_structure == want_structure
        assert_same_leaves(got_leaves, want_leaves)


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
    show_call("tree_util.tree_structure(tree) == tree_util.tree_structure(same_shape)", tree=tree, same_shape=same_shape)
    a, b = tu.tree_structure(tree), tu.tree_structure(same_shape)
    assert a == b
    assert hash(a) == hash(b)
    assert a != tu.tree_structure([tree])
    assert a != tu.tree_structure((tree, None))


@given(tree=TREES)
@with_regressions
def test_flatten_with_path_gives_each_leaf_its_key_path(tu: Any, tree: Any) -> None:
    """Each path is a KeyPath: a tuple of key entries. is_leaf stops the walk as in tree_flatten."""

    def is_leaf(x: Any) -> bool:
        return isinstance(x, list)

    for stop in (None, is_leaf):
        show_call(f"tree_util.tree_flatten_with_path(tree, is_leaf={stop and 'is_list'})", tree=tree)
        path_leaves, treedef = tu.tree_flatten_with_path(tree, is_leaf=stop)
        want = reference_paths(tree, stop)
        assert all(type(path) is tuple for path, _ in path_leaves)
        got = [(tu.keystr(path), tu.keystr(path, simple=True, separator="/")) for path, _ in path_leaves]
        assert got == [(path, simple) for path, simple, _ in want]
        assert_same_leaves([leaf for _, leaf in path_leaves], [leaf for _, _, leaf in want])
        assert str(treedef) == f"PyTreeDef({reference_flatten(tree, stop)[1]})"


@given(tree=TREES)
@with_regressions
def test_tree_map_with_path_calls_f_with_each_path(tu: Any, tree: Any) -> None:
    show_call("tree_util.tree_map_with_path(lambda p, x: Tag(tree_util.keystr(p), x), tree)", tree=tree)
    got = tu.tree_map_with_path(lambda path, x: Tag(tu.keystr(path), x), tree)
    got_leaves, got_structure = reference_flatten(got)
    assert got_structure == reference_flatten(tree)[1]
    assert [t.values for t in got_leaves] == [(path, leaf) for path, _, leaf in reference_paths(tree)]


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


# --- one level at a time, treedefs taken apart, and whole-tree helpers ------------------------------


@given(tree=TREES)
@with_regressions
def test_flatten_one_level_gives_a_nodes_children_and_aux_data(tu: Any, tree: Any) -> None:
    """The very children, in flattening order, and the aux data; with keys, each child's key entry
    (as tree_flatten_with_path gives it). A leaf is a ValueError."""
    children = reference_one_level(tree)
    show_call("tree_util.flatten_one_level(tree), tree_util.flatten_one_level_with_keys(tree)", tree=tree)
    if children is None:
        for flatten in (tu.flatten_one_level, tu.flatten_one_level_with_keys):
            with pytest.raises(ValueError):
                flatten(tree)
        return
    got, aux = tu.flatten_one_level(tree)
    assert_same_leaves(list(got), children)
    assert aux == reference_aux(tree)
    pairs, keyed_aux = tu.flatten_one_level_with_keys(tree)
    assert_same_leaves([child for _, child in pairs], children)
    assert keyed_aux == reference_aux(tree)
    if type(tree) is Point:  # JAX 0.10.2 names every field here after the first one: only the kind is sure
        assert all(isinstance(key, tu.GetAttrKey) for key, _ in pairs)
    else:
        assert [str(key) for key, _ in pairs] == [key for key, _, _ in keyed_children_of(tree) or []]


@given(tree=TREES)
@with_regressions
def test_is_tree_node_says_whether_a_type_is_a_container(tu: Any, tree: Any) -> None:
    """True for the types of built-in, registered and namedtuple nodes, and of None."""
    show_call("tree_util.is_tree_node(type(tree))", tree=tree)
    assert tu.is_tree_node(type(tree)) == (reference_one_level(tree) is not None)


@given(tree=TREES)
@with_regressions
def test_treedef_children_and_treedef_is_leaf(tu: Any, tree: Any) -> None:
    """treedef_children: the root's children's treedefs, in flattening order (none below a leaf or
    None); treedef_is_leaf: the treedef is one node (a leaf, None or an empty container)."""
    show_call("tree_util.treedef_children(tree_util.tree_structure(tree))", tree=tree)
    treedef = tu.tree_structure(tree)
    assert isinstance(treedef, tu.PyTreeDef)
    children = reference_one_level(tree) or []
    got = tu.treedef_children(treedef)
    assert all(isinstance(child, tu.PyTreeDef) for child in got)
    assert [str(child) for child in got] == [f"PyTreeDef({reference_flatten(c)[1]})" for c in children]
    assert tu.treedef_is_leaf(treedef) == (not children)


@given(trees=st.lists(TREES, max_size=3))
def test_treedef_tuple_is_the_structure_of_a_tuple(tu: Any, trees: list) -> None:
    show_call("tree_util.treedef_tuple([tree_util.tree_structure(t) for t in trees])", trees=trees)
    got = tu.treedef_tuple([tu.tree_structure(t) for t in trees])
    assert isinstance(got, tu.PyTreeDef)
    assert got == tu.tree_structure(tuple(trees))
    assert str(got) == f"PyTreeDef({reference_flatten(tuple(trees))[1]})"


@given(tree=TREES)
@with_regressions
def test_all_leaves(tu: Any, tree: Any) -> None:
    """True when tree_leaves would give the items back: leaves only, no None, no container. With
    is_leaf, literally that (so is_leaf is asked about the list of items too)."""
    leaves, _ = reference_flatten(tree)
    show_call("tree_util.all_leaves([tree]), tree_util.all_leaves(tree_util.tree_leaves(tree))", tree=tree)
    assert tu.all_leaves(leaves)
    assert not tu.all_leaves([*leaves, None])
    assert tu.all_leaves([tree]) == (reference_one_level(tree) is None)

    def is_leaf(x: Any) -> bool:
        return isinstance(x, tuple)

    items = [tree, *leaves]
    stopped = reference_flatten(items, is_leaf)[0]
    want = len(stopped) == len(items) and all(a is b for a, b in zip(stopped, items))
    assert tu.all_leaves(items, is_leaf=is_leaf) == want


LEAF_VALUES = st.sampled_from([0, 1, 2.5, 0.0, True, False, "", "x"])


@given(tree=TREES, data=st.data())
def test_tree_all_is_all_over_the_leaves(tu: Any, tree: Any, data: st.DataObject) -> None:
    count = len(reference_flatten(tree)[0])
    values = data.draw(st.lists(LEAF_VALUES, min_size=count, max_size=count), label="leaf values")
    tree = reference_rebuild(tree, iter(values))
    show_call("tree_util.tree_all(tree)", tree=tree)
    assert tu.tree_all(tree) == all(values)

    def is_leaf(x: Any) -> bool:
        return isinstance(x, list)  # a list leaf is true when it is not empty

    assert tu.tree_all(tree, is_leaf=is_leaf) == all(reference_flatten(tree, is_leaf)[0])


def prefix_and_broadcast(data: st.DataObject, tree: Any) -> tuple[Any, Any]:
    """A prefix of `tree`, cut at drawn places (always at leaves) and a new leaf put there; and `tree`
    with each of its leaves replaced by the prefix leaf above it (what tree_broadcast returns)."""
    children = reference_one_level(tree)
    if children is None or data.draw(st.booleans(), label="cut here"):
        cut = Tag("prefix leaf")
        return cut, reference_rebuild(tree, itertools.repeat(cut))
    pairs = [prefix_and_broadcast(data, child) for child in children]
    return with_children(tree, [p for p, _ in pairs]), with_children(tree, [b for _, b in pairs])


@given(tree=TREES, data=st.data())
def test_tree_broadcast_repeats_each_prefix_leaf_over_its_subtree(tu: Any, tree: Any, data: st.DataObject) -> None:
    prefix, want = prefix_and_broadcast(data, tree)
    show_call("tree_util.tree_broadcast(prefix, tree)", prefix=prefix, tree=tree)
    got_leaves, got_structure = reference_flatten(tu.tree_broadcast(prefix, tree))
    want_leaves, want_structure = reference_flatten(want)
    assert got_structure == want_structure
    assert_same_leaves(got_leaves, want_leaves)


def halves(items: list) -> Any:
    """The leaves paired up as JAX splits them: the first half (rounded down), then the rest."""
    if len(items) == 1:
        return items[0]
    middle = len(items) // 2
    return (halves(items[:middle]), halves(items[middle:]))


@given(tree=TREES)
@with_regressions
def test_tree_reduce_associative_pairs_up_halves(tu: Any, tree: Any) -> None:
    """With no leaves: the identity, or a TypeError without one."""
    count = len(reference_flatten(tree)[0])
    numbered = reference_rebuild(tree, itertools.count())
    show_call("tree_util.tree_reduce_associative(lambda a, b: (a, b), numbered)", numbered=numbered)

    def pair(a: Any, b: Any) -> tuple:
        return (a, b)

    if count:
        assert tu.tree_reduce_associative(pair, numbered) == halves(list(range(count)))
    else:
        assert tu.tree_reduce_associative(pair, numbered, identity="none") == "none"
        with pytest.raises(TypeError):
            tu.tree_reduce_associative(pair, numbered)


# --- fixed cases: leaf order, None, and the documentation's printed treedefs ---------------------


def test_dict_children_come_in_sorted_key_order(tu: Any) -> None:
    leaves, treedef = tu.tree_flatten({"b": 1, "c": 2, "a": 3})
    assert leaves == [3, 1, 2]
    assert str(treedef) == "PyTreeDef({'a': *, 'b': *, 'c': *})"


def test_ordered_dict_children_come_in_insertion_order(tu: Any) -> None:
    leaves, treedef = tu.tree_flatten(OrderedDict([("b", 1), ("c", 2), ("a", 3)]))
    assert leaves == [1, 2, 3]
    assert str(treedef) == "PyTreeDef(CustomNode(OrderedDict[('b', 'c', 'a')], [*, *, *]))"


# A namedtuple of the same name and fields as strategies.Point, but another class.
OtherPoint = namedtuple("Point", ["x", "y"])


def _differ(tu: Any, a: Any, b: Any) -> None:
    sa, sb = tu.tree_structure(a), tu.tree_structure(b)
    assert sa != sb, f"{a!r} and {b!r} should have different treedefs"
    assert not (sa == sb)  # noqa: SIM201 (== and != are separate methods)
    assert tu.tree_structure(a) == sa and hash(tu.tree_structure(a)) == hash(sa)


@given(tree=TREES, keys=st.lists(st.text("abc", min_size=1, max_size=2), min_size=2, max_size=2, unique=True))
def test_treedefs_differ_in_keys_classes_and_aux_data_alone(tu: Any, tree: Any, keys: list[str]) -> None:
    """Same leaves, same shape: a dict key, an OrderedDict's key order, a namedtuple class or a custom
    node's aux data differs, and so do the treedefs (equal ones hash equally)."""
    k1, k2 = keys
    show_call("tree_util.tree_structure({k1: tree}) != tree_util.tree_structure({k2: tree})", tree=tree, k1=k1, k2=k2)
    _differ(tu, {k1: tree}, {k2: tree})
    if reference_flatten(tree)[1] != "*":
        _differ(tu, {k1: tree, k2: 0}, {k1: 0, k2: tree})
    _differ(tu, OrderedDict([(k1, tree), (k2, tree)]), OrderedDict([(k2, tree), (k1, tree)]))
    _differ(tu, S.Point(tree, 1), OtherPoint(tree, 1))
    _differ(tu, S.Point(tree, 1), (tree, 1))
    _differ(tu, Box([tree], k1), Box([tree], k2))
    _differ(tu, RegisteredSpecial(tree, 1), RegisteredSpecial2(tree, 1))


@given(tree=TREES)
@with_regressions
def test_tree_map_with_is_leaf(tu: Any, tree: Any) -> None:
    """tree_map(f, tree, is_leaf=...) hands f whole subtrees where is_leaf says so, keeping the rest."""

    def is_leaf(x: Any) -> bool:
        return isinstance(x, list)

    want_leaves, want_structure = reference_flatten(tree, is_leaf)
    show_call("tree_util.tree_map(Tag, tree, is_leaf=lambda x: isinstance(x, list))", tree=tree)
    got = tu.tree_map(Tag, tree, is_leaf=is_leaf)
    got_leaves, got_structure = reference_flatten(got)
    assert got_structure == want_structure
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, Tag) and g.values[0] is w
    show_call("tree_util.tree_structure(tree, is_leaf=lambda x: isinstance(x, list)), "
              "tree_util.tree_structure(tree_util.tree_map(Tag, tree, is_leaf=lambda x: isinstance(x, list)))",
              tree=tree)  # fmt: skip
    assert tu.tree_structure(tree, is_leaf=is_leaf) == tu.tree_structure(got)


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


def test_a_class_flattened_as_a_leaf_is_a_node_once_registered(tu: Any) -> None:
    class Late(Special):
        """Registered only after it was flattened once, as a leaf."""

    late = Late(1, (2, 3))
    assert tu.tree_leaves([late, 4]) == [late, 4]
    tu.register_pytree_node(Late, lambda s: ((s.x, s.y), None), lambda _aux, children: Late(*children))
    assert tu.tree_leaves([late, 4]) == [1, 2, 3, 4]
    assert str(tu.tree_structure([late, 4])) == "PyTreeDef([CustomNode(Late[None], [*, (*, *)]), *])"


def test_a_flatten_function_may_return_its_children_as_a_generator(tu: Any) -> None:
    class Lazy(Special):
        """Its flatten gives a generator of children: any iterable will do."""

    tu.register_pytree_node(Lazy, lambda s: ((c for c in (s.x, s.y)), None),
                            lambda _aux, children: Lazy(*children))
    leaves, treedef = tu.tree_flatten([Lazy(1, 2), (Lazy(3, (4, 5)), 6)])
    assert leaves == [1, 2, 3, 4, 5, 6]
    assert str(treedef) == "PyTreeDef([CustomNode(Lazy[None], [*, *]), (CustomNode(Lazy[None], [*, (*, *)]), *)])"
    rebuilt = tu.tree_unflatten(treedef, leaves)
    assert (rebuilt[1][0].x, rebuilt[1][0].y) == (3, (4, 5))


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


def test_is_leaf_returning_a_non_boolean_raises_value_error(tu: Any) -> None:
    with pytest.raises(ValueError):
        tu.tree_flatten([1, [2]], is_leaf=lambda x: "yes")
    assert tu.tree_leaves([1, [2]], is_leaf=lambda x: None) == [1, 2]  # None counts as False


# --- key paths: fixed cases ----------------------------------------------------------------------


def test_documented_key_paths(tu: Any) -> None:
    """The example in the documentation of jax.tree_util.keystr."""
    params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}}
    paths = [path for path, _ in tu.tree_leaves_with_path(params)]
    assert [tu.keystr(p) for p in paths] == [
        "['foo']['bar']['bat'][0]",
        "['foo']['bar']['bat'][1]",
        "['foo']['bar']['baz']",
    ]
    assert [tu.keystr(p, simple=True, separator="/") for p in paths] == [
        "foo/bar/bat/0",
        "foo/bar/bat/1",
        "foo/bar/baz",
    ]


def test_key_path_entries_of_each_container(tu: Any) -> None:
    tree = [
        (1, None, {"b": 2, "a": 3}),
        OrderedDict([("z", 4), ("y", 5)]),
        Point(6, 7),
        RegisteredSpecial(8, [9]),
    ]
    K = tu  # the key classes live in tree_util
    want = [
        ((K.SequenceKey(0), K.SequenceKey(0)), 1),
        ((K.SequenceKey(0), K.SequenceKey(2), K.DictKey("a")), 3),
        ((K.SequenceKey(0), K.SequenceKey(2), K.DictKey("b")), 2),
        ((K.SequenceKey(1), K.DictKey("z")), 4),
        ((K.SequenceKey(1), K.DictKey("y")), 5),
        ((K.SequenceKey(2), K.GetAttrKey("x")), 6),
        ((K.SequenceKey(2), K.GetAttrKey("y")), 7),
        ((K.SequenceKey(3), K.FlattenedIndexKey(0)), 8),
        ((K.SequenceKey(3), K.FlattenedIndexKey(1), K.SequenceKey(0)), 9),
    ]
    assert tu.tree_leaves_with_path(tree) == want
    assert tu.tree_leaves_with_path(5) == [((), 5)]
    assert tu.tree_leaves_with_path(None) == []


KEY_ENTRIES = [  # (class name, argument, repr, str)
    ("DictKey", "a", "DictKey(key='a')", "['a']"),
    ("DictKey", 1, "DictKey(key=1)", "[1]"),
    ("SequenceKey", 3, "SequenceKey(idx=3)", "[3]"),
    ("GetAttrKey", "x", "GetAttrKey(name='x')", ".x"),
    ("FlattenedIndexKey", 2, "FlattenedIndexKey(key=2)", "[<flat index 2>]"),
]


@pytest.mark.parametrize(("name", "arg", "printed", "text"), KEY_ENTRIES, ids=[e[2] for e in KEY_ENTRIES])
def test_key_entries_print_and_compare(tu: Any, name: str, arg: Any, printed: str, text: str) -> None:
    entry = getattr(tu, name)(arg)
    assert (repr(entry), str(entry)) == (printed, text)
    assert entry == getattr(tu, name)(arg) and hash(entry) == hash(getattr(tu, name)(arg))
    others = [getattr(tu, n)(a) for n, a, _, _ in KEY_ENTRIES if n != name]
    assert all(entry != other for other in others)
    assert tu.keystr((entry,), simple=True) == str(arg)


def test_key_path_is_a_tuple_of_key_entries(tu: Any) -> None:
    """KeyEntry is a type variable (any key class, a user's own too); KeyPath is tuple[KeyEntry, ...]."""
    assert isinstance(tu.KeyEntry, typing.TypeVar)
    assert typing.get_origin(tu.KeyPath) is tuple
    assert typing.get_args(tu.KeyPath) == (tu.KeyEntry, ...)


def test_keystr_joins_with_a_separator(tu: Any) -> None:
    path = (tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"), tu.FlattenedIndexKey(3))
    assert tu.keystr(path) == "['a'][0].x[<flat index 3>]"
    assert tu.keystr(path, separator="|") == "['a']|[0]|.x|[<flat index 3>]"
    assert tu.keystr(path, simple=True) == "a0x3"
    assert tu.keystr(()) == ""


def test_key_entry_constructors_check_types(tu: Any) -> None:
    with pytest.raises(TypeError):
        tu.SequenceKey("a")
    with pytest.raises(TypeError):
        tu.GetAttrKey(1)
    with pytest.raises(TypeError):
        tu.FlattenedIndexKey("a")


def test_is_leaf_can_take_the_key_path(tu: Any) -> None:
    tree = {"a": [1, 2], "b": [3]}
    stop_at_a = lambda path, x: path == (tu.DictKey("a"),)  # noqa: E731
    got = tu.tree_leaves_with_path(tree, is_leaf=stop_at_a, is_leaf_takes_path=True)
    assert got == [((tu.DictKey("a"),), [1, 2]), ((tu.DictKey("b"), tu.SequenceKey(0)), 3)]


def test_tree_map_with_path_zips_several_trees(tu: Any) -> None:
    got = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), {"a": [1, 2], "b": 3}, {"a": [5, 6], "b": 7})
    assert got == {"a": [("['a'][0]", 1, 5), ("['a'][1]", 2, 6)], "b": ("['b']", 3, 7)}
    with pytest.raises(ValueError):
        tu.tree_map_with_path(lambda p, x, y: x, {"a": [1, 2]}, {"a": [1, 2, 3]})


def test_register_pytree_with_keys_gives_the_children_their_keys(tu: Any) -> None:
    class Pair:  # a new class each time, so each implementation registers its own
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    def flatten_with_keys(p: Pair) -> tuple[Any, str]:
        return ((tu.GetAttrKey("a"), p.a), (tu.DictKey("bee"), p.b)), "aux"

    tu.register_pytree_with_keys(Pair, flatten_with_keys, lambda aux, children: Pair(*children))
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path([Pair(1, (2,))])]
    assert paths == ["[0].a", "[0]['bee'][0]"]
    assert str(tu.tree_structure(Pair(1, 2))) == "PyTreeDef(CustomNode(Pair[aux], [*, *]))"
    assert tu.tree_map(lambda x: x + 1, Pair(1, 2)).b == 3


def test_register_pytree_with_keys_class(tu: Any) -> None:
    @tu.register_pytree_with_keys_class
    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

        def tree_flatten_with_keys(self) -> tuple[Any, None]:
            return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

        @classmethod
        def tree_unflatten(cls, aux: None, children: tuple) -> Any:
            return cls(*children)

    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Pair(1, 2))] == [".a", ".b"]
    assert tu.tree_leaves(Pair(1, [2])) == [1, 2]


# --- register_dataclass, register_static, Partial ------------------------------------------------


def test_register_dataclass_as_a_decorator(tu: Any, tree: Any) -> None:
    @tu.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: Any
        y: Any
        name: str = tree.static(default="add")  # field(metadata={'static': True})

    leaves, treedef = tu.tree_flatten(Op(1, [2, 3]))
    assert leaves == [1, 2, 3]
    assert str(treedef) == "PyTreeDef(CustomNode(Op[('add',)], [*, [*, *]]))"
    assert tu.tree_unflatten(treedef, [4, 5, 6]) == Op(4, [5, 6], "add")
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Op(1, 2))] == [".x", ".y"]
    assert tu.tree_structure(Op(1, 2)) != tu.tree_structure(Op(1, 2, "mul"))


def test_many_dataclasses_keep_their_own_static_fields(tu: Any, tree: Any) -> None:
    @tu.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: Any
        b: Any
        name: str = tree.static(default="dense")

    for odd in (False, True):  # all of one shape; one of them holding a pair
        layers = [Layer(Tag(i, "w"), (Tag(i, "b"), None) if odd and i == 7 else Tag(i, "b"), f"l{i % 3}")
                  for i in range(20)]  # fmt: skip
        leaves, treedef = tu.tree_flatten(layers)
        want = [leaf for i, layer in enumerate(layers) for leaf in (layer.w, layer.b[0] if odd and i == 7 else layer.b)]
        assert_same_leaves(leaves, want)
        shapes = ["[*, (*, None)]" if odd and i == 7 else "[*, *]" for i in range(20)]
        nodes = [f"CustomNode(Layer[('l{i % 3}',)], {shape})" for i, shape in enumerate(shapes)]
        assert str(treedef) == f"PyTreeDef([{', '.join(nodes)}])"
        for _ in range(3):  # the first rebuild, then those of a kept treedef
            assert tu.tree_unflatten(treedef, leaves) == layers


def test_register_dataclass_with_explicit_fields(tu: Any) -> None:
    class Plain:  # not a dataclass: the fields must be named
        def __init__(self, a: Any, tag: str) -> None:
            self.a, self.tag = a, tag

    assert tu.register_dataclass(Plain, data_fields=["a"], meta_fields=["tag"]) is Plain
    out = tu.tree_map(lambda v: v * 2, Plain([1, 2], "t"))
    assert (out.a, out.tag) == ([2, 4], "t")


def test_register_dataclass_rejects_wrong_fields(tu: Any) -> None:
    def fresh() -> type:
        @dataclasses.dataclass
        class XY:
            x: Any
            y: Any

        return XY

    with pytest.raises(TypeError):
        tu.register_dataclass(fresh(), data_fields=["x"])  # meta_fields missing
    with pytest.raises(TypeError):
        tu.register_dataclass(Special)  # not a dataclass, and no fields named
    with pytest.raises(ValueError):
        tu.register_dataclass(fresh(), data_fields=["x"], meta_fields=[])  # y is missing
    with pytest.raises(ValueError):
        tu.register_dataclass(fresh(), data_fields=["x", "y"], meta_fields=["y"])  # overlap


def test_register_static_makes_values_aux_data(tu: Any) -> None:
    @tu.register_static
    class Mode(str):
        pass

    leaves, treedef = tu.tree_flatten([Mode("train"), 1])
    assert leaves == [1]
    assert str(treedef) == "PyTreeDef([CustomNode(Mode[train], []), *])"
    assert treedef != tu.tree_structure([Mode("eval"), 1])


def _three(a: Any, b: Any = 0, *, c: Any = 1) -> tuple:
    return a, b, c


def test_partial_is_a_pytree_of_its_arguments(tu: Any) -> None:
    p = tu.Partial(_three, 1, c=2)
    assert isinstance(p, functools.partial) and p(5) == (1, 5, 2)
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 2]
    assert str(treedef) == f"PyTreeDef(CustomNode(Partial[{_three}], [(*,), {{'c': *}}]))"
    assert tu.tree_map(lambda x: x * 10, p)(3) == (10, 3, 20)
    assert tu.tree_structure(tu.Partial(_three, 1)) == tu.tree_structure(tu.Partial(_three, 2))
    assert tu.tree_structure(tu.Partial(_three, 1)) != tu.tree_structure(tu.Partial(print, 1))


def test_partial_of_a_partial_keeps_the_inner_arguments_static(tu: Any) -> None:
    outer = tu.Partial(tu.Partial(_three, 1), 2)
    assert outer() == (1, 2, 1)
    assert tu.tree_leaves(outer) == [2]


# --- the tree module -------------------------------------------------------------------------------


def test_tree_module_functions(tree: Any) -> None:
    t = {"b": [1, 2], "a": 3}
    leaves, treedef = tree.flatten(t)
    assert leaves == [3, 1, 2] and tree.leaves(t) == leaves
    assert str(tree.structure(t)) == str(treedef) == "PyTreeDef({'a': *, 'b': [*, *]})"
    assert tree.unflatten(treedef, [4, 5, 6]) == {"a": 4, "b": [5, 6]}
    assert tree.map(lambda x, y: x + y, t, t) == {"a": 6, "b": [2, 4]}
    assert tree.reduce(lambda a, b: a + b, t) == 6 and tree.reduce(lambda a, b: a + b, t, 10) == 16
    assert tree.all(t) and not tree.all([1, 0])
    assert tree.transpose(tree.structure([0, 0]), None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert [p for p, _ in tree.leaves_with_path([5])] == [p for p, _ in tree.flatten_with_path([5])[0]]
    assert tree.map_with_path(lambda p, x: len(p), {"a": [1]}) == {"a": [2]}


def test_tree_broadcast_repeats_prefix_leaves(tree: Any) -> None:
    full = {"a": (1, 2), "b": [None, {"x": 4}]}
    assert tree.broadcast({"a": 1, "b": [2, 3]}, full) == {"a": (1, 1), "b": [None, {"x": 3}]}
    assert tree.broadcast(0, [1, [2, 3]]) == [0, [0, 0]]
    with pytest.raises(ValueError):
        tree.broadcast([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        tree.broadcast([1, 2], (1, 2))


def test_tree_reduce_associative_splits_in_halves(tree: Any) -> None:
    pair = lambda a, b: (a, b)  # noqa: E731
    assert tree.reduce_associative(pair, [1, 2, 3, 4, 5]) == ((1, 2), (3, (4, 5)))
    assert tree.reduce_associative(pair, [], identity=0) == 0
    with pytest.raises(TypeError):
        tree.reduce_associative(pair, [])


def test_tree_map_over_dicts_with_different_keys_raises_value_error(tu: Any) -> None:
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 2})
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, Box([1], "p"), Box([2], "q"))
