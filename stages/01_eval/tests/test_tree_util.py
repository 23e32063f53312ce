"""Tests for didax.tree_util: containers, printing, errors, and a differential check against JAX."""

from __future__ import annotations

import collections
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from didax import tree_util

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
