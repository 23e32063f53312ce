"""Tests for didax.tree_util: containers, printing, errors, and a differential check against JAX."""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from didax import tree, tree_util

try:  # JAX is an independent oracle when it is installed; those tests skip otherwise.
    import jax.tree_util as jax_tree_util
except ImportError:
    jax_tree_util = None

needs_jax = pytest.mark.skipif(jax_tree_util is None, reason="jax is not installed")


# --- Types used across the tests, registered with didax (and with JAX when it is there) -----------


class Point(NamedTuple):
    x: Any
    y: Any


class Special:
    """Unregistered, so a leaf (the JAX docs' example)."""

    def __init__(self, x: Any, y: Any) -> None:
        self.x = x
        self.y = y


class RegisteredSpecial(Special):
    pass


class Box:
    """A custom node with aux data: children are ``items``, the aux data is ``label``."""

    def __init__(self, items: tuple[Any, ...], label: str) -> None:
        self.items = items
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and (self.items, self.label) == (other.items, other.label)

    def __repr__(self) -> str:
        return f"Box({self.items!r}, {self.label!r})"


def _special_flatten(v: Special) -> tuple[tuple[Any, Any], None]:
    return (v.x, v.y), None


def _special_unflatten(_aux: None, children: tuple[Any, ...]) -> RegisteredSpecial:
    return RegisteredSpecial(*children)


def _box_flatten(b: Box) -> tuple[tuple[Any, ...], str]:
    return b.items, b.label


def _box_unflatten(label: str, items: tuple[Any, ...]) -> Box:
    return Box(tuple(items), label)


for _module in [tree_util] + ([jax_tree_util] if jax_tree_util else []):
    _module.register_pytree_node(RegisteredSpecial, _special_flatten, _special_unflatten)
    _module.register_pytree_node(Box, _box_flatten, _box_unflatten)


# --- The documented examples ----------------------------------------------------------------------


def test_dict_children_come_in_sorted_key_order() -> None:
    leaves, treedef = tree_util.tree_flatten((1.0, {"b": 2.0, "a": 3.0}))
    assert leaves == [1.0, 3.0, 2.0]
    assert repr(treedef) == "PyTreeDef((*, {'a': *, 'b': *}))"


def test_unflatten_rebuilds_a_dict_with_sorted_keys() -> None:
    leaves, treedef = tree_util.tree_flatten({"b": 2.0, "a": 3.0})
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert rebuilt == {"a": 3.0, "b": 2.0}
    assert list(rebuilt) == ["a", "b"]


def test_none_is_an_empty_node_not_a_leaf() -> None:
    leaves, treedef = tree_util.tree_flatten(None)
    assert leaves == []
    assert repr(treedef) == "PyTreeDef(None)"
    assert (treedef.num_leaves, treedef.num_nodes) == (0, 1)
    assert tree_util.tree_unflatten(treedef, []) is None


def test_a_list_of_nones_has_no_leaves() -> None:
    assert tree_util.tree_leaves([None] * 3) == []


def test_is_leaf_can_make_none_a_leaf() -> None:
    assert tree_util.tree_leaves([None] * 3, is_leaf=lambda x: x is None) == [None] * 3
    leaves, treedef = tree_util.tree_flatten(None, is_leaf=lambda x: x is None)
    assert (leaves, repr(treedef)) == ([None], "PyTreeDef(*)")


def test_namedtuple_fields_are_children_even_strings() -> None:
    leaves, treedef = tree_util.tree_flatten(Point(1.0, "a string"))
    assert leaves == [1.0, "a string"]
    assert repr(treedef) == "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"
    rebuilt = tree_util.tree_unflatten(treedef, [3, 4])
    assert type(rebuilt) is Point and rebuilt == Point(3, 4)


def test_unregistered_class_is_a_leaf() -> None:
    special = Special(1.0, 2.0)
    leaves, treedef = tree_util.tree_flatten(special)
    assert leaves == [special]
    assert repr(treedef) == "PyTreeDef(*)"


def test_registered_class_is_a_custom_node() -> None:
    leaves, treedef = tree_util.tree_flatten(RegisteredSpecial(1.0, 2.0))
    assert leaves == [1.0, 2.0]
    assert repr(treedef) == "PyTreeDef(CustomNode(RegisteredSpecial[None], [*, *]))"
    rebuilt = tree_util.tree_unflatten(treedef, [3.0, 4.0])
    assert type(rebuilt) is RegisteredSpecial and (rebuilt.x, rebuilt.y) == (3.0, 4.0)


@pytest.mark.parametrize(
    "tree",
    [
        [[("a",)], [["b"]]],  # a height-2 list met before the height-1 list its sibling holds
        {"b": [1, (2, None)], "a": (RegisteredSpecial(3, [4]), None)},
        functools.reduce(lambda t, _: [t, None], range(120), 0),  # deeper than the plan goes
        None,
        "leaf",
    ],
)
def test_a_treedef_used_again_rebuilds_by_its_plan_the_same_tree(tree: Any) -> None:
    # The first rebuild walks the spec, the second makes the plan and later ones follow it: each
    # must give the tree the first gave (the oracle: what flattening it gives back).
    leaves, treedef = tree_util.tree_flatten(tree)
    for _ in range(4):
        tags = [object() for _ in leaves]
        rebuilt = tree_util.tree_unflatten(treedef, tags)
        got_leaves, got_def = tree_util.tree_flatten(rebuilt)
        assert got_def == treedef and all(a is b for a, b in zip(got_leaves, tags, strict=True))


def test_unflatten_passes_placeholders_to_custom_unflatten_unchecked() -> None:
    # Transformations rebuild user trees from object() or None placeholders; didax must not care.
    treedef = tree_util.tree_structure(RegisteredSpecial(1.0, 2.0))
    marker = object()
    rebuilt = tree_util.tree_unflatten(treedef, [marker, None])
    assert rebuilt.x is marker and rebuilt.y is None


def test_custom_unflatten_receives_aux_data_and_a_tuple_of_children() -> None:
    seen = []

    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    def unflatten(aux: Any, children: Any) -> Pair:
        seen.append((aux, children))
        return Pair(*children)

    tree_util.register_pytree_node(Pair, lambda p: ([p.a, p.b], "aux"), unflatten)
    tree_util.tree_map(lambda x: x * 10, Pair(1, 2))
    assert seen == [("aux", (10, 20))]


def test_register_pytree_node_class_uses_the_class_methods() -> None:
    @tree_util.register_pytree_node_class
    class Scaled:
        def __init__(self, value: Any, scale: float) -> None:
            self.value, self.scale = value, scale

        def tree_flatten(self) -> tuple[tuple[Any], float]:
            return (self.value,), self.scale

        @classmethod
        def tree_unflatten(cls, scale: float, children: tuple[Any, ...]) -> Scaled:
            return cls(children[0], scale)

    doubled = tree_util.tree_map(lambda x: 2 * x, Scaled(5, 0.5))
    assert isinstance(doubled, Scaled) and (doubled.value, doubled.scale) == (10, 0.5)
    assert (
        repr(tree_util.tree_structure(Scaled(5, "hi"))) == "PyTreeDef(CustomNode(Scaled[hi], [*]))"
    )


def test_registering_a_type_twice_raises_value_error() -> None:
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        tree_util.register_pytree_node(Box, _box_flatten, _box_unflatten)
    with pytest.raises(ValueError, match="Duplicate"):
        tree_util.register_pytree_node(list, lambda x: (x, None), lambda _, c: list(c))
    with pytest.raises(ValueError, match="Duplicate"):
        tree_util.register_pytree_node(collections.OrderedDict, lambda x: (x, None), dict)


def test_a_subclass_of_a_container_is_a_leaf() -> None:
    class MyList(list):
        pass

    class MoreSpecial(RegisteredSpecial):
        pass

    for value in [MyList([1, 2]), MoreSpecial(1, 2)]:
        assert tree_util.tree_leaves(value) == [value]


def test_a_subclass_of_a_namedtuple_is_still_a_namedtuple() -> None:
    class Point3(Point):
        pass

    treedef = tree_util.tree_structure(Point3(1, 2))
    assert repr(treedef) == "PyTreeDef(CustomNode(namedtuple[Point3], [*, *]))"
    assert type(treedef.unflatten([5, 6])) is Point3


def test_ordered_dict_keeps_insertion_order() -> None:
    tree = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"
    assert list(treedef.unflatten([5, 6]).items()) == [("b", 5), ("a", 6)]


def test_defaultdict_is_a_node_with_its_factory_and_sorted_keys() -> None:
    tree = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [2, 1]
    assert repr(treedef) == (
        "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))"
    )
    rebuilt = treedef.unflatten([7, 8])
    assert type(rebuilt) is collections.defaultdict and rebuilt.default_factory is list
    assert rebuilt == {"a": 7, "b": 8}


# --- Printing: the exact strings JAX 0.10.2 prints (checked against JAX below) --------------------

REPR_CASES: list[tuple[Any, str]] = [
    (1.0, "PyTreeDef(*)"),
    ("text", "PyTreeDef(*)"),
    (None, "PyTreeDef(None)"),
    ((), "PyTreeDef(())"),
    ([], "PyTreeDef([])"),
    ({}, "PyTreeDef({})"),
    ((1,), "PyTreeDef((*,))"),
    ([1, 2], "PyTreeDef([*, *])"),
    ((1.0, [2.0, 3.0]), "PyTreeDef((*, [*, *]))"),
    ([None, None, None], "PyTreeDef([None, None, None])"),
    ({"a": None}, "PyTreeDef({'a': None})"),
    ({3: 1, 1: 2}, "PyTreeDef({1: *, 3: *})"),
    ({"a": 1, "b'c": 2}, "PyTreeDef({'a': *, \"b'c\": *})"),
    ([1, [2, (3,)]], "PyTreeDef([*, [*, (*,)]])"),
    (Point(1, 2), "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"),
    (
        Point(Point(1, 2), None),
        "PyTreeDef(CustomNode(namedtuple[Point], [CustomNode(namedtuple[Point], [*, *]), None]))",
    ),
    (RegisteredSpecial(1, 2), "PyTreeDef(CustomNode(RegisteredSpecial[None], [*, *]))"),
    (Box((1, (2,)), "lbl"), "PyTreeDef(CustomNode(Box[lbl], [*, (*,)]))"),
    (collections.OrderedDict(), "PyTreeDef(CustomNode(OrderedDict[()], []))"),
    (
        collections.defaultdict(None, {"b": 1}),
        "PyTreeDef(CustomNode(defaultdict[(None, ('b',))], [*]))",
    ),
]


@pytest.mark.parametrize(("tree", "expected"), REPR_CASES)
def test_treedef_prints_like_jax(tree: Any, expected: str) -> None:
    assert repr(tree_util.tree_structure(tree)) == expected


@needs_jax
@pytest.mark.parametrize(("tree", "expected"), REPR_CASES)
def test_jax_prints_the_same_strings(tree: Any, expected: str) -> None:
    assert repr(jax_tree_util.tree_structure(tree)) == expected


# --- PyTreeDef: counts, children, equality --------------------------------------------------------


def test_num_leaves_and_num_nodes_count_every_node() -> None:
    treedef = tree_util.tree_structure((1.0, {"b": 2.0, "a": 3.0}, None))
    assert treedef.num_leaves == 3
    assert treedef.num_nodes == 6  # tuple, dict, three leaves, None


def test_children_are_the_child_treedefs() -> None:
    treedef = tree_util.tree_structure((1, {"a": 2}))
    assert [repr(c) for c in treedef.children()] == ["PyTreeDef(*)", "PyTreeDef({'a': *})"]
    assert tree_util.treedef_children(treedef) == treedef.children()
    assert tree_util.tree_structure(1).children() == []


def test_treedef_is_leaf_is_true_for_any_single_node() -> None:
    for single in [1, None, (), [], {}]:
        assert tree_util.treedef_is_leaf(tree_util.tree_structure(single))
    assert not tree_util.treedef_is_leaf(tree_util.tree_structure((1,)))


def test_treedefs_are_equal_exactly_when_structures_are() -> None:
    s = tree_util.tree_structure
    assert s((1, {"a": 2, "b": 3})) == s(("x", {"b": 4, "a": 5}))
    assert hash(s((1, {"a": 2, "b": 3}))) == hash(s(("x", {"b": 4, "a": 5})))
    assert s([1, 2]) != s((1, 2))
    assert s({"a": 1}) != s({"b": 1})
    assert s(None) != s(1)
    assert s(Box((1,), "p")) != s(Box((1,), "q"))
    ordered = collections.OrderedDict
    assert s(ordered(a=1, b=2)) != s(ordered(b=2, a=1))  # insertion order is structure
    assert s((1, 2)) != (1, 2)


def test_namedtuple_classes_with_the_same_name_are_different_structures() -> None:
    OtherPoint = collections.namedtuple("Point", ["x", "y"])
    assert tree_util.tree_structure(Point(1, 2)) != tree_util.tree_structure(OtherPoint(1, 2))


def test_treedef_with_unhashable_aux_data_is_still_hashable() -> None:
    treedef = tree_util.tree_structure(Box((1,), {"unhashable": "aux"}))  # type: ignore[arg-type]
    assert isinstance(hash(treedef), int)


def test_unflatten_with_too_few_leaves_names_expected_and_got() -> None:
    treedef = tree_util.tree_structure((1, 2))
    with pytest.raises(ValueError, match=r"Too few leaves for PyTreeDef; expected 2, got 1"):
        treedef.unflatten([1])


def test_unflatten_with_too_many_leaves_names_expected_and_got() -> None:
    treedef = tree_util.tree_structure((1, 2))
    with pytest.raises(ValueError, match=r"Too many leaves for PyTreeDef; expected 2, got 3"):
        tree_util.tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises(ValueError, match="expected 0, got 1"):
        tree_util.tree_structure(None).unflatten([1])


def test_unflatten_accepts_any_iterable_of_leaves() -> None:
    treedef = tree_util.tree_structure([1, (2, 3)])
    assert treedef.unflatten(x for x in "abc") == ["a", ("b", "c")]


def test_unsortable_dict_keys_raise_value_error() -> None:
    with pytest.raises(ValueError, match="keys must be comparable"):
        tree_util.tree_flatten({1: "a", "b": 2})


def test_a_flatten_function_must_return_children_and_aux_data() -> None:
    class Bad:
        pass

    results = iter([[[1], None], ((1,), None, 0), None, (5, None)])
    tree_util.register_pytree_node(Bad, lambda node: next(results), lambda aux, children: Bad())
    for _ in range(4):
        with pytest.raises(ValueError, match="flatten function registered for Bad must return a"):
            tree_util.tree_leaves(Bad())


def test_deeply_nested_lists_flatten_and_rebuild_without_recursion_errors() -> None:
    tree: Any = [1.0]
    for _ in range(4999):
        tree = [tree]
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [1.0] and (treedef.num_leaves, treedef.num_nodes) == (1, 5001)
    assert tree_util.tree_leaves(tree_util.tree_map(lambda x: x + 1, tree)) == [2.0]


# --- is_leaf --------------------------------------------------------------------------------------


def test_is_leaf_keeps_a_matching_subtree_whole() -> None:
    tree = [(1, 2), [3, (4, 5)]]
    leaves, treedef = tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), 3, (4, 5)]
    assert repr(treedef) == "PyTreeDef([*, [*, *]])"


def test_is_leaf_true_at_the_root_makes_the_whole_tree_one_leaf() -> None:
    tree = [(1, 2), (3, 4)]
    assert tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, list)) == [tree]


# --- flatten_up_to: matching a prefix structure ---------------------------------------------------


def test_flatten_up_to_returns_the_subtrees_at_the_prefix_leaves() -> None:
    prefix = tree_util.tree_structure((0, {"a": 0, "b": 0}))
    subtrees = prefix.flatten_up_to((1, {"a": [2, 3], "b": (4,)}))
    assert subtrees == [1, [2, 3], (4,)]


@pytest.mark.parametrize(
    ("prefix", "tree", "message"),
    [
        ((0, 0), [1, 2], r"at tree: expected a node of type tuple, got \[1, 2\] of type list"),
        ((0, 0), (1, 2, 3), "at tree: expected a node of type tuple with 2 children, got 3"),
        ((0, {"a": 0}), (1, {"b": 2}), r"at tree\[1\]: .*aux data \('a',\), got aux data \('b',\)"),
        ((None, 0), (5, 1), r"at tree\[0\]: expected None, got 5 of type int"),
        (Point(0, [0]), Point(1, 2), r"at tree\.y: expected a node of type list, got 2"),
    ],
)
def test_flatten_up_to_mismatch_raises_value_error_naming_the_path(
    prefix: Any, tree: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        tree_util.tree_structure(prefix).flatten_up_to(tree)


def test_flatten_up_to_wants_the_exact_container_type() -> None:
    class MyList(list):
        pass

    with pytest.raises(ValueError, match=r"expected a node of type list, got \[1\] of type MyList"):
        tree_util.tree_structure([0]).flatten_up_to(MyList([1]))


def test_a_leaf_of_the_prefix_matches_none() -> None:
    assert tree_util.tree_structure(3).flatten_up_to(None) == [None]


# --- tree_map and friends -------------------------------------------------------------------------


def test_tree_map_applies_f_leafwise_and_keeps_the_structure() -> None:
    result = tree_util.tree_map(lambda x: x + 1, {"b": 1, "a": (2, None)})
    assert result == {"a": (3, None), "b": 2}


def test_tree_map_zips_several_trees() -> None:
    result = tree_util.tree_map(lambda x, y, z: x + y + z, [1, (2,)], [10, (20,)], [100, (200,)])
    assert result == [111, (222,)]


def test_tree_map_passes_whole_subtrees_of_deeper_trees() -> None:
    result = tree_util.tree_map(lambda x, y: (x, y), [1, 2], [(3, 4), {"a": 5}])
    assert result == [(1, (3, 4)), (2, {"a": 5})]


def test_tree_map_over_none_returns_none() -> None:
    assert tree_util.tree_map(lambda x: x + 1, None) is None


def test_tree_map_is_leaf_applies_to_the_first_tree_only() -> None:
    result = tree_util.tree_map(lambda a, b: (a, b), [None, 1], [5, 6], is_leaf=lambda x: x is None)
    assert result == [(None, 5), (1, 6)]


@pytest.mark.parametrize(
    ("tree", "other", "message"),
    [
        ([1, 2], (3, 4), r"at rest\[0\]: expected a node of type list, got \(3, 4\) of type tuple"),
        ([1, 2], [3, 4, 5], r"at rest\[0\]: expected a node of type list with 2 children, got 3"),
        ([1, (2, 3)], [1, 2], r"at rest\[0\]\[1\]: expected a node of type tuple, got 2"),
        ({"a": 1, "b": 2}, {"a": 1, "c": 2}, r"got aux data \('a', 'c'\)"),
        ([None, 1], [2, 3], r"at rest\[0\]\[0\]: expected None, got 2 of type int"),
        (Box((1,), "p"), Box((1,), "q"), r"with aux data 'p', got aux data 'q'"),
        ({"a": 1}, collections.OrderedDict(a=1), r"expected a node of type dict, got OrderedDict"),
    ],
)
def test_tree_map_structure_mismatch_raises_value_error(
    tree: Any, other: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message) as info:
        tree_util.tree_map(lambda *xs: xs, tree, other)
    assert "Every tree in rest must have the first tree's structure" in str(info.value)


def test_all_leaves_says_whether_nothing_would_be_flattened() -> None:
    assert tree_util.all_leaves([1, "a", Special(1, 2)])
    assert not tree_util.all_leaves([1, (2,)])
    assert not tree_util.all_leaves([1, None])  # None is a node
    assert tree_util.all_leaves([None], is_leaf=lambda x: x is None)


def test_tree_all_checks_every_leaf() -> None:
    assert tree_util.tree_all([1, (True, {"a": 2.0})])
    assert not tree_util.tree_all([1, (0,)])
    assert tree_util.tree_all([None, ()])  # no leaves at all


def test_tree_reduce_folds_the_leaves_in_order() -> None:
    assert tree_util.tree_reduce(lambda a, b: a + b, [1, (2, {"x": 3})]) == 6
    assert tree_util.tree_reduce(lambda a, b: a + b, [1, 2], 10) == 13
    assert tree_util.tree_reduce(lambda a, b: a + [b], {"b": 1, "a": 2}, []) == [2, 1]
    assert tree_util.tree_reduce(lambda a, b: a + b, [], 0) == 0
    with pytest.raises(TypeError):
        tree_util.tree_reduce(lambda a, b: a + b, [])


def test_tree_transpose_swaps_outer_and_inner_structure() -> None:
    outer = tree_util.tree_structure([0, 0])
    inner = tree_util.tree_structure((0, 0))
    assert tree_util.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tree_util.tree_transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


def test_tree_transpose_rejects_inner_trees_of_another_structure() -> None:
    outer = tree_util.tree_structure([0, 0])
    inner = tree_util.tree_structure((0, 0))
    with pytest.raises(TypeError, match="every inner tree must have structure"):
        tree_util.tree_transpose(outer, inner, [(1, 2), (3, [4, 5])])


# --- Properties on random trees -------------------------------------------------------------------

leaf_values = st.one_of(
    st.integers(-5, 5), st.floats(allow_nan=False), st.text("xyz", max_size=2), st.booleans()
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    small_lists = st.lists(children, max_size=3)
    return st.one_of(
        small_lists,
        small_lists.map(tuple),
        st.dictionaries(st.text("abcd", max_size=2), children, max_size=3),
        st.dictionaries(st.integers(0, 9), children, max_size=3),
        st.builds(Point, children, children),
        st.dictionaries(st.text("abcd", max_size=2), children, max_size=3).map(
            lambda d: collections.OrderedDict(reversed(list(d.items())))
        ),
        st.builds(Box, small_lists.map(tuple), st.sampled_from(["p", "q"])),
    )


trees = st.recursive(st.one_of(leaf_values, st.none()), _containers, max_leaves=12)


@settings(deadline=None)
@given(trees)
def test_flatten_then_unflatten_rebuilds_the_tree(tree: Any) -> None:
    leaves, treedef = tree_util.tree_flatten(tree)
    assert len(leaves) == treedef.num_leaves
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert rebuilt == tree
    assert tree_util.tree_structure(rebuilt) == treedef
    assert tree_util.tree_map(lambda x: x, tree) == tree


@settings(deadline=None)
@given(trees)
def test_a_treedef_is_a_prefix_of_its_own_tree(tree: Any) -> None:
    leaves, treedef = tree_util.tree_flatten(tree)
    assert treedef.flatten_up_to(tree) == leaves


@needs_jax
@settings(deadline=None)
@given(trees)
def test_flatten_agrees_with_jax(tree: Any) -> None:
    leaves, treedef = tree_util.tree_flatten(tree)
    jax_leaves, jax_treedef = jax_tree_util.tree_flatten(tree)
    assert leaves == jax_leaves
    assert repr(treedef) == repr(jax_treedef)
    assert (treedef.num_leaves, treedef.num_nodes) == (
        jax_treedef.num_leaves,
        jax_treedef.num_nodes,
    )


@st.composite
def tree_pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """Two unrelated trees, or a tree and one that extends it below its leaves."""
    a = draw(trees)
    if draw(st.booleans()):
        return a, draw(trees)
    leaves, treedef = tree_util.tree_flatten(a)
    return a, treedef.unflatten([draw(trees) for _ in leaves])


@needs_jax
@settings(deadline=None)
@given(tree_pairs())
def test_structure_equality_and_tree_map_agree_with_jax(pair: tuple[Any, Any]) -> None:
    a, b = pair
    assert (tree_util.tree_structure(a) == tree_util.tree_structure(b)) == (
        jax_tree_util.tree_structure(a) == jax_tree_util.tree_structure(b)
    )
    outcomes = []
    for module in (tree_util, jax_tree_util):
        try:
            outcomes.append(module.tree_map(lambda x, y: (x, y), a, b))
        except ValueError:
            outcomes.append("ValueError")
    assert outcomes[0] == outcomes[1]


# --- Key entries and keystr -----------------------------------------------------------------------

KEY_ENTRIES = [  # (entry, repr, str), as JAX 0.10.2 prints them
    (tree_util.DictKey("a"), "DictKey(key='a')", "['a']"),
    (tree_util.DictKey(1), "DictKey(key=1)", "[1]"),
    (tree_util.DictKey((1, "a")), "DictKey(key=(1, 'a'))", "[(1, 'a')]"),
    (tree_util.SequenceKey(3), "SequenceKey(idx=3)", "[3]"),
    (tree_util.GetAttrKey("x"), "GetAttrKey(name='x')", ".x"),
    (tree_util.FlattenedIndexKey(2), "FlattenedIndexKey(key=2)", "[<flat index 2>]"),
]


@pytest.mark.parametrize(("entry", "expected_repr", "expected_str"), KEY_ENTRIES)
def test_key_entries_print_like_jax(entry: Any, expected_repr: str, expected_str: str) -> None:
    assert (repr(entry), str(entry)) == (expected_repr, expected_str)


def test_key_entries_are_equal_only_to_the_same_class_and_value() -> None:
    assert tree_util.DictKey("a") == tree_util.DictKey("a")
    assert hash(tree_util.DictKey("a")) == hash(tree_util.DictKey("a"))
    assert tree_util.DictKey(0) != tree_util.SequenceKey(0)
    assert tree_util.SequenceKey(0) != tree_util.FlattenedIndexKey(0)
    assert tree_util.DictKey("x") != tree_util.GetAttrKey("x")
    assert tree_util.SequenceKey(0) != 0


def test_key_entries_are_frozen_and_match_by_field() -> None:
    key = tree_util.DictKey("a")
    with pytest.raises(AttributeError):
        key.key = "b"  # type: ignore[misc]
    match tree_util.SequenceKey(4):
        case tree_util.SequenceKey(idx=i):
            assert i == 4


def test_key_entries_check_their_argument_types() -> None:
    with pytest.raises(TypeError):
        tree_util.SequenceKey("a")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tree_util.FlattenedIndexKey(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tree_util.GetAttrKey(1)  # type: ignore[arg-type]
    assert tree_util.SequenceKey(True).idx == 1 and type(tree_util.SequenceKey(True).idx) is int


def test_keystr_joins_the_keys_plain_or_simple() -> None:
    path = (
        tree_util.DictKey("a"),
        tree_util.SequenceKey(0),
        tree_util.GetAttrKey("x"),
        tree_util.FlattenedIndexKey(3),
    )
    assert tree_util.keystr(path) == "['a'][0].x[<flat index 3>]"
    assert tree_util.keystr(path, simple=True) == "a0x3"
    assert tree_util.keystr(path, simple=True, separator="/") == "a/0/x/3"
    assert tree_util.keystr(()) == ""
    assert tree_util.keystr((tree_util.DictKey("a"), "raw", 5), separator=".") == "['a'].raw.5"


# --- Key paths ------------------------------------------------------------------------------------


def test_key_paths_of_the_builtin_containers() -> None:
    tree = {
        "b": [1, (2, None, 3)],
        "a": Point(4, 5),
        "c": collections.OrderedDict([("z", 6), ("y", 7)]),
        "d": collections.defaultdict(list, {"q": 8, "p": 9}),
    }
    path_leaves, treedef = tree_util.tree_flatten_with_path(tree)
    assert [(tree_util.keystr(path), leaf) for path, leaf in path_leaves] == [
        ("['a'].x", 4),
        ("['a'].y", 5),
        ("['b'][0]", 1),
        ("['b'][1][0]", 2),
        ("['b'][1][2]", 3),
        ("['c']['z']", 6),
        ("['c']['y']", 7),
        ("['d']['p']", 9),
        ("['d']['q']", 8),
    ]
    assert path_leaves[3][0] == (
        tree_util.DictKey("b"),
        tree_util.SequenceKey(1),
        tree_util.SequenceKey(0),
    )
    assert treedef == tree_util.tree_structure(tree)


def test_a_leaf_at_the_root_has_the_empty_path() -> None:
    assert tree_util.tree_flatten_with_path(5)[0] == [((), 5)]
    assert tree_util.tree_flatten_with_path(None)[0] == []


def test_a_custom_node_registered_without_keys_gets_flat_indices() -> None:
    path_leaves = tree_util.tree_leaves_with_path(Box((1, [2]), "p"))
    assert [path for path, _ in path_leaves] == [
        (tree_util.FlattenedIndexKey(0),),
        (tree_util.FlattenedIndexKey(1), tree_util.SequenceKey(0)),
    ]


def test_register_pytree_with_keys_names_the_children() -> None:
    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    def flatten_with_keys(p: Pair) -> tuple[Any, None]:
        return ((tree_util.GetAttrKey("a"), p.a), (tree_util.DictKey("bee"), p.b)), None

    tree_util.register_pytree_with_keys(Pair, flatten_with_keys, lambda _aux, kids: Pair(*kids))
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(Pair(1, [2]))]
    assert paths == [".a", "['bee'][0]"]
    assert tree_util.tree_leaves(Pair(1, [2])) == [1, 2]  # flatten_func made from flatten_with_keys


def test_register_pytree_with_keys_class_uses_both_flatten_methods() -> None:
    @tree_util.register_pytree_with_keys_class
    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

        def tree_flatten(self) -> tuple[Any, str]:
            return (self.a, self.b), "aux"

        def tree_flatten_with_keys(self) -> tuple[Any, str]:
            return ((tree_util.GetAttrKey("a"), self.a), (tree_util.GetAttrKey("b"), self.b)), "aux"

        @classmethod
        def tree_unflatten(cls, aux: str, children: tuple[Any, ...]) -> Any:
            return cls(*children)

    assert [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(Pair(1, 2))] == [".a", ".b"]
    assert repr(tree_util.tree_structure(Pair(1, 2))) == "PyTreeDef(CustomNode(Pair[aux], [*, *]))"


def test_is_leaf_can_take_the_path() -> None:
    tree = {"a": [1, 2], "b": [3]}
    stop_at_a = lambda path, x: path == (tree_util.DictKey("a"),)  # noqa: E731
    path_leaves = tree_util.tree_leaves_with_path(tree, is_leaf=stop_at_a, is_leaf_takes_path=True)
    assert [(tree_util.keystr(p), x) for p, x in path_leaves] == [("['a']", [1, 2]), ("['b'][0]", 3)]
    one_arg = tree_util.tree_leaves_with_path(tree, is_leaf=lambda x: x == [3])
    assert [x for _, x in one_arg] == [1, 2, [3]]


def test_is_leaf_must_return_a_bool() -> None:
    for bad in (1, "yes", np.True_):
        with pytest.raises(ValueError, match="is_leaf predicate returned a non-boolean value"):
            tree_util.tree_leaves([1, [2]], is_leaf=lambda x, bad=bad: bad)
    assert tree_util.tree_leaves([1, [2]], is_leaf=lambda x: None) == [1, 2]  # None counts as False


def test_deep_trees_flatten_with_paths_without_recursion_errors() -> None:
    tree: Any = [1.0]
    for _ in range(4999):
        tree = [tree]
    [(path, leaf)] = tree_util.tree_leaves_with_path(tree)
    assert leaf == 1.0 and len(path) == 5000


def test_tree_map_with_path_passes_the_path_and_the_other_trees() -> None:
    out = tree_util.tree_map_with_path(
        lambda path, x, y: (tree_util.keystr(path), x + y), {"a": [1, 2], "b": 3}, {"a": [10, 20], "b": 30}
    )
    assert out == {"a": [("['a'][0]", 11), ("['a'][1]", 22)], "b": ("['b']", 33)}
    with pytest.raises(ValueError):
        tree_util.tree_map_with_path(lambda path, x, y: x, [1, 2], [1])


# --- register_dataclass, register_static ----------------------------------------------------------


def test_register_dataclass_as_a_decorator_reads_static_fields() -> None:
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: Any
        y: Any
        name: str = dataclasses.field(default="add", metadata={"static": True})

    leaves, treedef = tree_util.tree_flatten(Op(1, [2, 3]))
    assert leaves == [1, 2, 3]
    assert repr(treedef) == "PyTreeDef(CustomNode(Op[('add',)], [*, [*, *]]))"
    assert tree_util.tree_unflatten(treedef, [7, 8, 9]) == Op(7, [8, 9])
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(Op(1, [2]))]
    assert paths == [".x", ".y[0]"]


def test_didax_tree_static_declares_a_static_field() -> None:
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: Any
        name: str = tree.static(default="mul")

    assert tree.structure(Op(1)) != tree.structure(Op(1, "add"))
    assert tree.map(lambda v: v + 1, Op(1)) == Op(2, "mul")


def test_register_dataclass_with_explicit_fields_works_for_any_class() -> None:
    class Plain:
        def __init__(self, a: Any, b: Any, tag: str) -> None:
            self.a, self.b, self.tag = a, b, tag

    assert tree_util.register_dataclass(Plain, data_fields=["a", "b"], meta_fields=["tag"]) is Plain
    doubled = tree_util.tree_map(lambda v: 2 * v, Plain(1, 2, "t"))
    assert (doubled.a, doubled.b, doubled.tag) == (2, 4, "t")


@dataclasses.dataclass
class _XY:
    x: Any
    y: Any


@dataclasses.dataclass
class _WithInitFalse:
    x: Any
    y: Any = dataclasses.field(init=False, default=0)


@pytest.mark.parametrize(
    ("nodetype", "kwargs", "error", "match"),
    [
        (_XY, {"data_fields": ["x"]}, TypeError, "must both be specified"),
        (Special, {}, TypeError, "required when nodetype is not a dataclass"),
        (_XY, {"data_fields": ["x"], "meta_fields": []}, ValueError, "Missing fields: {'y'}"),
        (_XY, {"data_fields": ["x", "y", "z"], "meta_fields": []}, ValueError, "Unexpected fields: {'z'}"),
        (_XY, {"data_fields": ["x", "y"], "meta_fields": ["y"]}, ValueError, "must not overlap"),
        (_WithInitFalse, {}, ValueError, "Unexpected fields: {'y'}"),  # as in JAX: list fields yourself
    ],
)
def test_register_dataclass_rejects_bad_fields(
    nodetype: type, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        tree_util.register_dataclass(nodetype, **kwargs)
    assert not tree_util.is_tree_node(nodetype)


def test_register_dataclass_drop_fields_leaves_init_false_fields_out() -> None:
    @dataclasses.dataclass
    class Cached:
        x: Any
        cache: Any = dataclasses.field(init=False, default=None)

    tree_util.register_dataclass(Cached, data_fields=["x"], meta_fields=[], drop_fields=["cache"])
    assert tree_util.tree_leaves(Cached(1)) == [1]


def test_register_static_values_are_aux_data_with_no_leaves() -> None:
    @tree_util.register_static
    class Mode(str):
        pass

    mode = Mode("train")
    leaves, treedef = tree_util.tree_flatten([mode, 1])
    assert leaves == [1]
    assert repr(treedef) == "PyTreeDef([CustomNode(Mode[train], []), *])"
    assert tree_util.tree_map(lambda x: x + 1, [mode, 1])[0] is mode
    assert treedef != tree_util.tree_structure([Mode("eval"), 1])


# --- Partial --------------------------------------------------------------------------------------


def _f(a: Any, b: Any = 0, *, c: Any = 1) -> tuple[Any, Any, Any]:
    return a, b, c


def test_partial_args_are_children_and_the_function_is_aux_data() -> None:
    p = tree_util.Partial(_f, 1, c=2)
    assert isinstance(p, functools.partial) and p(5) == (1, 5, 2)
    leaves, treedef = tree_util.tree_flatten(p)
    assert leaves == [1, 2]
    assert repr(treedef) == f"PyTreeDef(CustomNode(Partial[{_f!r}], [(*,), {{'c': *}}]))"
    assert tree_util.tree_map(lambda x: 10 * x, p)(3) == (10, 3, 20)
    paths = [tree_util.keystr(path) for path, _ in tree_util.tree_leaves_with_path(p)]
    assert paths == ["[<flat index 0>][0]", "[<flat index 1>]['c']"]


def test_partial_of_a_partial_keeps_the_inner_arguments_out_of_the_leaves() -> None:
    inner = tree_util.Partial(_f, 1)
    outer = tree_util.Partial(inner, 2)
    assert outer() == (1, 2, 1)
    assert tree_util.tree_leaves(outer) == [2]
    assert outer.func.args == (1,)  # the shim still looks like the partial it hides
    assert tree_util.tree_structure(outer) == tree_util.tree_structure(tree_util.Partial(inner, 3))


def test_partial_needs_a_callable() -> None:
    with pytest.raises(TypeError):
        tree_util.Partial(3)


# --- broadcast, reduce_associative, one level -----------------------------------------------------


def test_tree_broadcast_repeats_each_prefix_leaf_over_its_subtree() -> None:
    full = {"a": (1, 2), "b": [None, {"x": 4}]}
    assert tree_util.tree_broadcast({"a": 1, "b": [2, 3]}, full) == {"a": (1, 1), "b": [None, {"x": 3}]}
    assert tree_util.tree_broadcast(0, [1, [2, 3]]) == [0, [0, 0]]
    for prefix, target in [([1, 2], [1, 2, 3]), ([1, 2], (1, 2)), ({"a": 1}, {"b": 1}), ([None, 1], [2, 3])]:
        with pytest.raises(ValueError):
            tree_util.tree_broadcast(prefix, target)


def test_tree_reduce_associative_combines_halves() -> None:
    pair = lambda a, b: (a, b)  # noqa: E731
    assert tree_util.tree_reduce_associative(pair, [1, 2, 3, 4, 5]) == ((1, 2), (3, (4, 5)))
    assert tree_util.tree_reduce_associative(pair, [[7]]) == 7
    assert tree_util.tree_reduce_associative(pair, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tree_util.tree_reduce_associative(pair, [None])


def test_flatten_one_level_goes_down_one_level_only() -> None:
    assert tree_util.flatten_one_level({"b": 1, "a": [2]}) == (([2], 1), ("a", "b"))
    keyed, _ = tree_util.flatten_one_level_with_keys([4, [5]])
    assert keyed == ((tree_util.SequenceKey(0), 4), (tree_util.SequenceKey(1), [5]))
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tree_util.flatten_one_level(3)


def test_is_tree_node_knows_registered_types_and_namedtuples() -> None:
    assert tree_util.is_tree_node(list) and tree_util.is_tree_node(type(None))
    assert tree_util.is_tree_node(Point) and tree_util.is_tree_node(Box)
    assert not tree_util.is_tree_node(int) and not tree_util.is_tree_node(Special)


def test_treedef_tuple_builds_a_tuple_of_structures() -> None:
    treedef = tree_util.treedef_tuple([tree_util.tree_structure(1), tree_util.tree_structure([2])])
    assert repr(treedef) == "PyTreeDef((*, [*]))"
    assert tree_util.tree_unflatten(treedef, [5, 6]) == (5, [6])


def test_all_leaves_with_is_leaf_asks_about_the_list_itself_too() -> None:
    assert tree_util.all_leaves([1, Special(1, 2)])
    assert not tree_util.all_leaves([1, [2]])
    assert tree_util.all_leaves([1, [2]], is_leaf=lambda x: x == [2])
    assert not tree_util.all_leaves([1, [2]], is_leaf=lambda x: True)  # the whole list is one leaf


# --- didax.tree -----------------------------------------------------------------------------------


def test_didax_tree_functions_are_the_tree_util_ones() -> None:
    t = {"b": [1, 2], "a": 3}
    assert tree.leaves(t) == [3, 1, 2]
    assert tree.structure(t) == tree_util.tree_structure(t)
    leaves, treedef = tree.flatten(t)
    assert tree.unflatten(treedef, leaves) == t
    assert tree.map(lambda x: x + 1, t) == {"b": [2, 3], "a": 4}
    assert tree.reduce(lambda a, b: a + b, t, 10) == 16
    assert tree.all(t) and not tree.all([1, 0])
    assert tree.broadcast(1, [2, (3,)]) == [1, (1,)]
    assert tree.transpose(tree.structure([0, 0]), None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert [tree_util.keystr(p) for p, _ in tree.leaves_with_path(t)] == ["['a']", "['b'][0]", "['b'][1]"]


@needs_jax
def test_didax_tree_has_jax_trees_names_and_parameters() -> None:
    import inspect

    import jax

    for name in dir(jax.tree):
        if name.startswith("_"):
            continue
        ours, theirs = inspect.signature(getattr(tree, name)), inspect.signature(getattr(jax.tree, name))
        assert [(p.name, p.kind) for p in ours.parameters.values()] == [
            (p.name, p.kind) for p in theirs.parameters.values()
        ], name


@needs_jax
@settings(deadline=None)
@given(trees)
def test_flatten_with_path_agrees_with_jax(tree_: Any) -> None:
    ours, treedef = tree_util.tree_flatten_with_path(tree_)
    theirs, jax_treedef = jax_tree_util.tree_flatten_with_path(tree_)
    assert [(repr(p), tree_util.keystr(p), x) for p, x in ours] == [
        (repr(p), jax_tree_util.keystr(p), x) for p, x in theirs
    ]
    assert repr(treedef) == repr(jax_treedef)
