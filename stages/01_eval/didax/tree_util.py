"""Pytrees: take nested containers apart into a flat list of leaves and a ``PyTreeDef``, and back.

Stage 01 introduced it, with the same containers, printing and errors as ``jax.tree_util``.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

Leaf = Any
PyTree = Any
T = TypeVar("T")
IsLeaf = Callable[[Any], bool] | None

__all__ = [
    "PyTreeDef",
    "all_leaves",
    "register_pytree_node",
    "register_pytree_node_class",
    "tree_all",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_reduce",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
]


# --- The registry: which types are containers, and how each comes apart ---------------------------


class NodeType(NamedTuple):
    """How values of one container type come apart into children and go back together."""

    name: str  # shown as CustomNode(name[aux_data], ...) when the node is printed
    flatten: Callable[[Any], tuple[Iterable[Any], Any]]  # node -> (children, aux_data)
    unflatten: Callable[[Any, tuple[Any, ...]], Any]  # (aux_data, children) -> node


# Keyed by exact type: a subclass of a registered type is a leaf unless it is registered itself.
_registry: dict[type, NodeType] = {}


@functools.cache  # asked once per leaf and node; registering a type clears it
def _node_entry(node_type: type) -> NodeType | None:
    """The registry entry for ``node_type``, or None if its values are leaves."""
    entry = _registry.get(node_type)
    if entry is None and issubclass(node_type, tuple) and hasattr(node_type, "_fields"):
        return _NAMEDTUPLE
    return entry


def register_pytree_node(
    nodetype: type[T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]],
    unflatten_func: Callable[[Any, tuple[Any, ...]], T],
) -> None:
    """Make ``nodetype`` a container: ``flatten_func(x) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> x``. ``aux_data`` is kept in the treedef, so it
    should be small, static and comparable with ``==``."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    _registry[nodetype] = NodeType(nodetype.__name__, flatten_func, unflatten_func)
    _node_entry.cache_clear()  # a type it saw as a leaf may be this one


def register_pytree_node_class(cls: type[T]) -> type[T]:
    """Class decorator: register ``cls`` using its ``tree_flatten`` method and its
    ``tree_unflatten(aux_data, children)`` classmethod."""
    unflatten = cls.tree_unflatten  # type: ignore[attr-defined]
    register_pytree_node(cls, lambda node: node.tree_flatten(), unflatten)
    return cls


def _sorted_keys(d: dict[Any, Any]) -> tuple[Any, ...]:
    # Sorting makes {'a':..,'b':..} and {'b':..,'a':..} the same structure.
    try:
        return tuple(sorted(d))
    except TypeError as e:
        raise ValueError(
            f"Can't sort the keys {list(d)} of a dict in a pytree: dict children are ordered "
            "by sorted key, so the keys must be comparable with each other."
        ) from e


def _flatten_dict(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = _sorted_keys(d)
    return [d[k] for k in keys], keys


def _flatten_defaultdict(d: collections.defaultdict[Any, Any]) -> tuple[list[Any], Any]:
    values, keys = _flatten_dict(d)
    return values, (d.default_factory, keys)


def _unflatten_defaultdict(aux_data: Any, children: tuple[Any, ...]) -> Any:
    default_factory, keys = aux_data
    return collections.defaultdict(default_factory, zip(keys, children))


# list, tuple, dict and None print in their own syntax, so their names are never shown.
_registry[type(None)] = NodeType("None", lambda _: ((), None), lambda _aux, _children: None)
_registry[tuple] = NodeType("tuple", lambda t: (t, None), lambda _aux, children: tuple(children))
_registry[list] = NodeType("list", lambda xs: (xs, None), lambda _aux, children: list(children))
_registry[dict] = NodeType("dict", _flatten_dict, lambda keys, children: dict(zip(keys, children)))
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d)),  # insertion order is part of the structure
    lambda keys, children: collections.OrderedDict(zip(keys, children)),
)
register_pytree_node(collections.defaultdict, _flatten_defaultdict, _unflatten_defaultdict)

# Namedtuples are recognised by shape (a tuple subclass with _fields), not registered one by
# one; the aux data is the class itself, so unflatten can rebuild it.
_NAMEDTUPLE = NodeType("namedtuple", lambda t: (t, type(t)), lambda cls, children: cls(*children))


def _children_and_aux(entry: NodeType, node: Any) -> tuple[list[Any], Any]:
    """Call the flatten function registered for ``node``'s type, checking what it returned."""
    out = entry.flatten(node)
    what = f"The flatten function registered for {type(node).__name__}"
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"{what} must return a (children, aux_data) tuple, got {out!r}.")
    children, aux_data = out
    try:
        children = iter(children)
    except TypeError:
        raise ValueError(
            f"{what} must return a (children, aux_data) tuple whose children are iterable, got {out!r}."
        ) from None
    return list(children), aux_data


# --- PyTreeDef: the structure with the leaves taken out -------------------------------------------


@dataclass(frozen=True, repr=False)
class PyTreeDef:
    """One node of a tree's structure; leaves are the ``*`` slots.

    ``node_type`` is the container's Python type, or None for a leaf slot. ``aux_data`` is what
    the type's flatten returned besides the children (sorted keys for a dict, the class for a
    namedtuple). Two treedefs are equal when types, aux data and children all are.
    """

    node_type: type | None
    aux_data: Any = None
    child_defs: tuple[PyTreeDef, ...] = ()
    # Counted once, from the children's counts: no method needs to walk the whole tree for them.
    num_leaves: int = field(init=False, compare=False)
    num_nodes: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        leaves = 1 if self.node_type is None else sum(child.num_leaves for child in self.child_defs)
        object.__setattr__(self, "num_leaves", leaves)  # the dataclass is frozen
        object.__setattr__(self, "num_nodes", 1 + sum(child.num_nodes for child in self.child_defs))

    def __hash__(self) -> int:
        # aux_data may be unhashable (JAX allows a dict there), so leave it out; equal treedefs
        # still get equal hashes.
        return hash((self.node_type, self.child_defs))

    def children(self) -> list[PyTreeDef]:
        """The treedefs of this node's children; a leaf or None has none."""
        return list(self.child_defs)

    def unflatten(self, leaves: Iterable[Leaf]) -> PyTree:
        """Put ``leaves`` into the ``*`` slots, in order, and rebuild the containers."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            too = "few" if len(leaves) < self.num_leaves else "many"
            raise ValueError(
                f"Too {too} leaves for PyTreeDef; expected {self.num_leaves}, got {len(leaves)}."
            )
        return _build(self, iter(leaves))

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` sitting where this treedef has leaves. ``tree`` must have this
        structure down to those leaves (this treedef is a prefix of it); below them, anything goes.
        """
        return _flatten_up_to(self, tree, "tree", hint="")

    def __repr__(self) -> str:
        return f"PyTreeDef({_render(self)})"


_LEAF = PyTreeDef(None)

# Flattening and unflattening walk the tree with a loop and an explicit stack of frames, not with
# recursion, so that the depth of a tree is limited by memory, not by Python's recursion limit.


@dataclass
class _Frame:
    """A node being walked: the children still to visit, and the results for those visited."""

    node_type: type | None
    aux_data: Any
    pending: Iterator[Any]
    done: list[Any] = field(default_factory=list)


_END = object()  # what next() gives for a node with no children left (None is a valid child)


def _build(treedef: PyTreeDef, leaves: Iterator[Leaf]) -> PyTree:
    """Rebuild ``treedef``'s containers around ``leaves``, children before their parent."""
    root = _Frame(None, None, iter([treedef]))  # a frame holding the whole tree as its one child
    stack = [root]
    while stack:
        frame = stack[-1]
        child_def = next(frame.pending, _END)
        if child_def is _END:  # all of frame's children are rebuilt: rebuild frame's node
            stack.pop()
            if stack:
                stack[-1].done.append(_rebuild(frame.node_type, frame.aux_data, frame.done))
        elif child_def.node_type is None:
            frame.done.append(next(leaves))
        else:
            stack.append(_Frame(child_def.node_type, child_def.aux_data, iter(child_def.child_defs)))
    return root.done[0]


def _rebuild(node_type: Any, aux_data: Any, children: list[Any]) -> PyTree:
    entry = _node_entry(node_type)
    assert entry is not None, f"{node_type} was a node when flattened"
    # No validation of the children: transformations put placeholders such as object() here.
    return entry.unflatten(aux_data, tuple(children))


def _render(treedef: PyTreeDef) -> str:
    """The text inside ``PyTreeDef(...)``, spelled exactly as JAX spells it."""
    if treedef.node_type is None:
        return "*"
    kids = [_render(child) for child in treedef.child_defs]
    if treedef.node_type is type(None):
        return "None"
    if treedef.node_type is list:
        return "[" + ", ".join(kids) + "]"
    if treedef.node_type is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if treedef.node_type is dict:
        pairs = [f"{key!r}: {kid}" for key, kid in zip(treedef.aux_data, kids)]
        return "{" + ", ".join(pairs) + "}"
    entry = _node_entry(treedef.node_type)
    assert entry is not None
    # JAX shows a namedtuple's class by name, and any other aux data with str().
    aux = treedef.node_type.__name__ if entry is _NAMEDTUPLE else treedef.aux_data
    return f"CustomNode({entry.name}[{aux}], [{', '.join(kids)}])"


# --- Flattening and unflattening ------------------------------------------------------------------


def tree_flatten(tree: PyTree, is_leaf: IsLeaf = None) -> tuple[list[Leaf], PyTreeDef]:
    """The leaves of ``tree`` left to right, and its structure. A subtree for which
    ``is_leaf`` returns True is kept whole as a leaf."""
    leaves: list[Leaf] = []
    return leaves, _flatten_into(tree, is_leaf, leaves)


def _flatten_into(tree: PyTree, is_leaf: IsLeaf, leaves: list[Leaf]) -> PyTreeDef:
    """Append ``tree``'s leaves to ``leaves`` and return its structure, children before parent.

    A frame's children are walked by a for loop that stops at the first child that is a node: the
    node's frame goes on the stack, and once it is done the loop resumes where it stopped (the
    iterator remembers the place). Leaves, the common case, never touch the stack.
    """
    root = _Frame(None, None, iter([tree]))  # a frame holding the whole tree as its one child
    stack = [root]
    while stack:
        frame = stack[-1]
        for child in frame.pending:
            entry = None if is_leaf is not None and is_leaf(child) else _node_entry(type(child))
            if entry is not None:
                children, aux_data = _children_and_aux(entry, child)
                stack.append(_Frame(type(child), aux_data, iter(children)))
                break
            leaves.append(child)
            frame.done.append(_LEAF)
        else:  # all of frame's children are flattened: make frame's treedef
            stack.pop()
            if stack:
                stack[-1].done.append(PyTreeDef(frame.node_type, frame.aux_data, tuple(frame.done)))
    return root.done[0]


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Leaf]) -> PyTree:
    """Inverse of ``tree_flatten``: after ``leaves, treedef = tree_flatten(t)``, rebuilds ``t``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: IsLeaf = None) -> list[Leaf]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: IsLeaf = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single node: a leaf, but also None, (), [] and {} (JAX counts nodes)."""
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return treedef.children()


def all_leaves(iterable: Iterable[Any], is_leaf: IsLeaf = None) -> bool:
    """True if every item is a leaf, i.e. ``tree_leaves`` would leave the list unchanged."""
    return all(
        (is_leaf is not None and is_leaf(x)) or _node_entry(type(x)) is None for x in iterable
    )


# --- Matching one structure against another tree --------------------------------------------------


class _Mismatch(Exception):
    """Raised deep in the walk; ``_flatten_up_to`` turns it into a ValueError with the path."""


def _flatten_up_to(treedef: PyTreeDef, tree: PyTree, root: str, hint: str) -> list[PyTree]:
    """``treedef.flatten_up_to(tree)``; errors name the path from ``root`` and end with ``hint``."""
    subtrees: list[PyTree] = []
    path: list[str] = []  # keys from root to the node being matched; pushed and popped
    try:
        _match_prefix(treedef, tree, path, subtrees)
    except _Mismatch as e:
        where = root + "".join(path)
        raise ValueError(f"Pytree structure mismatch at {where}: {e}.{hint}") from None
    return subtrees


def _match_prefix(treedef: PyTreeDef, tree: PyTree, path: list[str], out: list[PyTree]) -> None:
    if treedef.node_type is None:
        out.append(tree)  # a leaf of the prefix takes the whole subtree, whatever it is
        return
    if type(tree) is not treedef.node_type:
        raise _Mismatch(f"expected {_describe_type(treedef.node_type)}, got {_describe(tree)}")
    entry = _node_entry(treedef.node_type)
    assert entry is not None
    children, aux_data = _children_and_aux(entry, tree)
    node = _describe_type(treedef.node_type)
    if aux_data != treedef.aux_data:  # dict keys, namedtuple class, custom aux data
        raise _Mismatch(
            f"expected {node} with aux data {treedef.aux_data!r}, got aux data {aux_data!r}"
        )
    if len(children) != len(treedef.child_defs):
        raise _Mismatch(
            f"expected {node} with {len(treedef.child_defs)} children, got {len(children)}"
        )
    for i, (child_def, child) in enumerate(zip(treedef.child_defs, children)):
        path.append(_child_key(treedef, i))
        _match_prefix(child_def, child, path, out)
        path.pop()


def _child_key(treedef: PyTreeDef, i: int) -> str:
    """How child ``i`` is reached, for error messages: ``['key']``, ``.field`` or ``[i]``."""
    node_type = treedef.node_type
    assert node_type is not None
    if node_type is dict:
        return f"[{treedef.aux_data[i]!r}]"
    if _node_entry(node_type) is _NAMEDTUPLE:
        return f".{node_type._fields[i]}"  # type: ignore[attr-defined]
    return f"[{i}]"  # lists, tuples, and the i-th child of a custom node


def _describe_type(node_type: type) -> str:
    return "None" if node_type is type(None) else f"a node of type {node_type.__name__}"


def _describe(x: Any, limit: int = 60) -> str:
    """A value for an error message: its repr, cut short, and its type (reprs can look alike)."""
    if x is None:
        return "None"
    text = repr(x)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} of type {type(x).__name__}"


# --- Mapping and reducing -------------------------------------------------------------------------


def tree_map(f: Callable[..., Any], tree: PyTree, *rest: PyTree, is_leaf: IsLeaf = None) -> PyTree:
    """Apply ``f`` leaf-wise: the result has ``tree``'s structure, with ``f(x, *ys)`` at each leaf
    ``x`` of ``tree`` and ``ys`` the subtrees at the same place in each of ``rest``. Each tree in
    ``rest`` must have ``tree``'s structure at least down to ``tree``'s leaves."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    hint = " Every tree in rest must have the first tree's structure, at least down to its leaves."
    others = [_flatten_up_to(treedef, r, f"rest[{i}]", hint) for i, r in enumerate(rest)]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_all(tree: PyTree, *, is_leaf: IsLeaf = None) -> bool:
    return all(tree_leaves(tree, is_leaf))


_NO_INITIALIZER = object()  # tells "no initializer given" apart from an initializer of None


def tree_reduce(
    function: Callable[[T, Any], T],
    tree: PyTree,
    initializer: Any = _NO_INITIALIZER,
    is_leaf: IsLeaf = None,
) -> T:
    """``functools.reduce`` over the leaves of ``tree``."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: PyTree
) -> PyTree:
    """Turn an outer tree of inner trees into an inner tree of outer trees, e.g.
    ``[(1, 2), (3, 4)]`` into ``([1, 3], [2, 4])``. With ``inner_treedef=None`` it is read
    from the first inner tree."""
    inner_trees = outer_treedef.flatten_up_to(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(inner_trees[0])
    columns = []  # one list of inner leaves per outer leaf
    for inner_tree in inner_trees:
        leaves, treedef = tree_flatten(inner_tree)
        if treedef != inner_treedef:
            raise TypeError(
                f"tree_transpose: every inner tree must have structure {inner_treedef}, "
                f"got one with {treedef}."
            )
        columns.append(leaves)
    outer_trees = [outer_treedef.unflatten(row) for row in zip(*columns)]
    return inner_treedef.unflatten(outer_trees)
