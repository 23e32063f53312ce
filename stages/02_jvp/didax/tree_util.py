"""Pytrees: take nested containers apart into a flat list of leaves and a ``PyTreeDef``, and back;
key paths say where each leaf sits (``['params'][0].w``).

Stage 01 introduced it, with the same containers, printing, key paths and errors as ``jax.tree_util``.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import operator
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

Leaf = Any
PyTree = Any
T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
IsLeaf = Callable[[Any], bool] | None

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "Partial",
    "PyTreeDef",
    "SequenceKey",
    "all_leaves",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]


# --- Keys: how a child is reached from its parent -------------------------------------------------
# A key path is a tuple of these, from the root down to a leaf. They are frozen dataclasses, so two
# keys are equal only when their classes are: DictKey(0) != SequenceKey(0).


@dataclass(frozen=True, slots=True)
class DictKey:
    """The key of a dict entry, printed ``['a']``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True, slots=True)
class SequenceKey:
    """The position of an item in a tuple or list, printed ``[0]``."""

    idx: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "idx", operator.index(self.idx))  # TypeError for a non-integer

    def __str__(self) -> str:
        return f"[{self.idx}]"


@dataclass(frozen=True, slots=True)
class GetAttrKey:
    """The name of an attribute (a namedtuple or dataclass field), printed ``.name``."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"GetAttrKey(name) needs a str, got {self.name!r}.")
        object.__setattr__(self, "name", str(self.name))  # a str subclass becomes a plain str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """The position of a child of a custom node registered without keys, printed
    ``[<flat index 0>]``."""

    key: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", operator.index(self.key))

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


KeyEntry = TypeVar("KeyEntry", bound=Any)  # any of the four above, or a user's own key class
KeyPath = tuple[KeyEntry, ...]
KeyLeafPair = tuple[KeyEntry, Any]


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Join a key path into one string: ``['a'][0].x``, or ``a/0/x`` with ``simple=True,
    separator='/'``."""
    to_text = _simple_key_str if simple else str
    return separator.join(to_text(key) for key in keys)


def _simple_key_str(key: Any) -> str:
    """A key without its brackets: ``a`` for ``['a']``, ``0`` for ``[0]``, ``x`` for ``.x``."""
    if isinstance(key, DictKey | FlattenedIndexKey):
        return str(key.key)
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, GetAttrKey):
        return key.name
    return str(key)


# --- The registry: which types are containers, and how each comes apart ---------------------------


class NodeType(NamedTuple):
    """How values of one container type come apart into children and go back together."""

    name: str  # shown as CustomNode(name[aux_data], ...) when the node is printed
    flatten: Callable[[Any], tuple[Iterable[Any], Any]]  # node -> (children, aux_data)
    unflatten: Callable[[Any, tuple[Any, ...]], Any]  # (aux_data, children) -> node
    # node -> ((key, child) pairs, aux_data); None: the children are keyed FlattenedIndexKey(i)
    flatten_with_keys: Callable[[Any], tuple[Iterable[KeyLeafPair], Any]] | None = None


# Keyed by exact type: a subclass of a registered type is a leaf unless it is registered itself.
_registry: dict[type, NodeType] = {}


@functools.cache  # asked once per leaf and node; registering a type clears it
def _node_entry(node_type: type) -> NodeType | None:
    """The registry entry for ``node_type``, or None if its values are leaves."""
    entry = _registry.get(node_type)
    if entry is None and issubclass(node_type, tuple) and hasattr(node_type, "_fields"):
        return _NAMEDTUPLE
    return entry


# What flattening and rebuilding learnt about each exact type (see "What each type is" below).
# Registering a type empties them, with _node_entry's cache.
_leaf_types: set[type] = set()
_all_leaf_types = _leaf_types.issuperset  # bound once: the set is only ever emptied, never replaced

_splitters: dict[type, Callable[[Any], tuple[Sequence[Any], Any]]] = {}
_joiners: dict[type, Callable[[Any, list[Any]], Any]] = {}
# Flatten functions of this module's own (register_dataclass makes one per class): each returns a
# tuple or list of children, so the walk calls them without checking what they return.
# A dataclass's maps to its two getters (data fields, meta fields), which flatten many at once.
_OWN_FLATTENS: dict[Callable[[Any], Any], tuple[Callable[[Any], Any], Callable[[Any], Any]] | None] = {}


def _forget_types() -> None:
    """Empty every table that remembers what a type is, after the registry changed."""
    _node_entry.cache_clear()
    _leaf_types.clear()
    _splitters.clear()
    _joiners.clear()


def register_pytree_node(
    nodetype: type[T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]],
    unflatten_func: Callable[[Any, tuple[Any, ...]], T],
    flatten_with_keys_func: Callable[[T], tuple[Iterable[KeyLeafPair], Any]] | None = None,
) -> None:
    """Make ``nodetype`` a container: ``flatten_func(x) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> x``. ``aux_data`` is kept in the treedef, so it
    should be small, static and comparable with ``==``. The optional ``flatten_with_keys_func``
    is as in ``register_pytree_with_keys``; without it, key paths name children by flat index."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    entry = NodeType(nodetype.__name__, flatten_func, unflatten_func, flatten_with_keys_func)
    _registry[nodetype] = entry
    _forget_types()  # a type seen as a leaf may be this one


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: register ``cls`` using its ``tree_flatten`` method and its
    ``tree_unflatten(aux_data, children)`` classmethod."""
    unflatten = cls.tree_unflatten  # type: ignore[attr-defined]
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), unflatten)
    return cls


def register_pytree_with_keys(
    nodetype: type[T],
    flatten_with_keys: Callable[[T], tuple[Iterable[KeyLeafPair], Any]],
    unflatten_func: Callable[[Any, tuple[Any, ...]], T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]] | None = None,
) -> None:
    """Like ``register_pytree_node``, with ``flatten_with_keys(x) -> ((key, child) pairs, aux_data)``
    so that key paths name the children; ``flatten_func`` is an optional faster keyless version."""
    if flatten_func is None:
        flatten_func = functools.partial(_drop_keys, flatten_with_keys)
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def _drop_keys(flatten_with_keys: Callable[[Any], Any], node: Any) -> tuple[list[Any], Any]:
    key_children, aux_data = flatten_with_keys(node)
    return [child for _, child in key_children], aux_data


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: register ``cls`` using its ``tree_flatten_with_keys`` method (and its
    ``tree_flatten`` method, if it has one) and its ``tree_unflatten`` classmethod."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    with_keys = operator.methodcaller("tree_flatten_with_keys")
    register_pytree_with_keys(cls, with_keys, cls.tree_unflatten, flatten)  # type: ignore[attr-defined]
    return cls


def register_static(cls: Typ) -> Typ:
    """Class decorator: make ``cls``'s values nodes with no children, the value itself being the
    aux data, so transformations treat them as static. ``cls`` must be hashable."""
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _children: obj)
    return cls


def register_dataclass(
    nodetype: Typ,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> Typ:
    """Register a dataclass-like ``nodetype``: ``data_fields`` are its children, ``meta_fields`` its
    (static) aux data. For a dataclass both may be left out: fields are data unless declared with
    ``field(metadata={'static': True})``. Returns ``nodetype``, so it works as a decorator."""
    if data_fields is None or meta_fields is None:
        data_fields, meta_fields = _dataclass_fields(nodetype, data_fields, meta_fields)
    data, meta = tuple(data_fields), tuple(meta_fields)  # copies: later changes to the lists are not seen
    if dataclasses.is_dataclass(nodetype):
        _check_all_init_fields_named(nodetype, data, meta, drop_fields)
    if overlap := set(data) & set(meta):
        raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}.")

    get_data, get_meta = _attributes_getter(data), _attributes_getter(meta)

    def flatten(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return get_data(x), get_meta(x)

    def flatten_with_keys(x: Any) -> tuple[list[KeyLeafPair], tuple[Any, ...]]:
        children, aux_data = flatten(x)
        return [(GetAttrKey(name), child) for name, child in zip(data, children)], aux_data

    names = meta + data  # the order of aux_data + children

    def unflatten(aux_data: tuple[Any, ...], children: tuple[Any, ...]) -> Any:
        return nodetype(**dict(zip(names, aux_data + children)))

    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
    _OWN_FLATTENS[flatten] = (get_data, get_meta)  # it gives a tuple of children: the walk need not check
    return nodetype


def _attributes_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the tuple of ``x``'s attributes ``names``: ``operator.attrgetter``, which
    reads them all in C, but gives a bare value for one name and needs at least one."""
    if len(names) >= 2:
        return operator.attrgetter(*names)
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda x: (get(x),)
    return lambda _x: ()


def _dataclass_fields(
    nodetype: type, data_fields: Sequence[str] | None, meta_fields: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """The (data, meta) field names read from a dataclass: meta are those marked static."""
    if (data_fields is None) != (meta_fields is None):
        raise TypeError(
            "register_dataclass: data_fields and meta_fields must both be specified when either "
            f"is specified. Got {data_fields=} {meta_fields=}."
        )
    if not dataclasses.is_dataclass(nodetype):
        raise TypeError(
            "register_dataclass: data_fields and meta_fields are required when nodetype is not a "
            f"dataclass. Got {nodetype=}."
        )
    # Every field counts here, even those with init=False or in drop_fields: JAX does the same, and
    # then complains about them below.
    fields = dataclasses.fields(nodetype)
    meta = [f.name for f in fields if f.metadata.get("static", False)]
    return [f.name for f in fields if f.name not in meta], meta


def _check_all_init_fields_named(
    nodetype: type, data: tuple[str, ...], meta: tuple[str, ...], drop_fields: Sequence[str]
) -> None:
    """Unflatten calls ``nodetype(**fields)``, so data and meta must be exactly its __init__ fields."""
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    named = {*data, *meta}
    if named == init_fields:
        return
    msg = "data_fields and meta_fields must include all dataclass fields with ``init=True`` and only them."
    if missing := init_fields - named:
        msg += f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
    if unexpected := named - init_fields:
        msg += f" Unexpected fields: {unexpected}."
    raise ValueError(msg)


def is_tree_node(typ: type) -> bool:
    """True if values of type ``typ`` are containers (built in, registered, or a namedtuple)."""
    return _node_entry(typ) is not None


def _sorted_keys(d: dict[Any, Any]) -> tuple[Any, ...]:
    # Sorting makes {'a':..,'b':..} and {'b':..,'a':..} the same structure.
    try:
        return tuple(sorted(d))
    except TypeError as e:
        raise ValueError(
            f"Can't sort the keys {list(d)} of a dict in a pytree: dict children are ordered "
            "by sorted key, so the keys must be comparable with each other."
        ) from e


# Each built-in container has a flatten and a flatten_with_keys; the second gives the same
# children in the same order, each paired with its key.


def _flatten_sequence(xs: tuple[Any, ...] | list[Any]) -> tuple[tuple[Any, ...] | list[Any], None]:
    return xs, None


def _flatten_sequence_with_keys(xs: tuple[Any, ...] | list[Any]) -> tuple[list[KeyLeafPair], None]:
    return [(SequenceKey(i), x) for i, x in enumerate(xs)], None


def _flatten_dict(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = _sorted_keys(d)
    return [d[k] for k in keys], keys


def _flatten_dict_with_keys(d: dict[Any, Any]) -> tuple[list[KeyLeafPair], tuple[Any, ...]]:
    keys = _sorted_keys(d)
    return [(DictKey(k), d[k]) for k in keys], keys


def _flatten_ordered_dict(d: collections.OrderedDict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    return list(d.values()), tuple(d)  # insertion order is part of the structure


def _flatten_ordered_dict_with_keys(d: collections.OrderedDict[Any, Any]) -> tuple[list[KeyLeafPair], Any]:
    return [(DictKey(k), v) for k, v in d.items()], tuple(d)


def _flatten_defaultdict(d: collections.defaultdict[Any, Any]) -> tuple[list[Any], Any]:
    values, keys = _flatten_dict(d)
    return values, (d.default_factory, keys)


def _flatten_defaultdict_with_keys(d: collections.defaultdict[Any, Any]) -> tuple[list[KeyLeafPair], Any]:
    pairs, keys = _flatten_dict_with_keys(d)
    return pairs, (d.default_factory, keys)


def _unflatten_defaultdict(aux_data: Any, children: tuple[Any, ...]) -> Any:
    default_factory, keys = aux_data
    return collections.defaultdict(default_factory, zip(keys, children))


def _flatten_namedtuple_with_keys(t: Any) -> tuple[list[KeyLeafPair], type]:
    return [(GetAttrKey(name), x) for name, x in zip(t._fields, t)], type(t)


# list, tuple, dict and None print in their own syntax, so their names are never shown.
_registry[type(None)] = NodeType(
    "None", lambda _: ((), None), lambda _aux, _children: None, lambda _: ((), None)
)
_registry[tuple] = NodeType(
    "tuple", _flatten_sequence, lambda _aux, children: tuple(children), _flatten_sequence_with_keys
)
_registry[list] = NodeType(
    "list", _flatten_sequence, lambda _aux, children: list(children), _flatten_sequence_with_keys
)
_registry[dict] = NodeType(
    "dict", _flatten_dict, lambda keys, children: dict(zip(keys, children)), _flatten_dict_with_keys
)
register_pytree_node(
    collections.OrderedDict,
    _flatten_ordered_dict,
    lambda keys, children: collections.OrderedDict(zip(keys, children)),
    _flatten_ordered_dict_with_keys,
)
register_pytree_node(
    collections.defaultdict, _flatten_defaultdict, _unflatten_defaultdict, _flatten_defaultdict_with_keys
)

# Their flatten functions return a list or tuple of children, so the fast walk calls them unchecked;
# so do those of OrderedDict, defaultdict and the classes register_dataclass registers.
_OWN_CONTAINERS = frozenset({type(None), tuple, list, dict})
_OWN_FLATTENS.update({_flatten_ordered_dict: None, _flatten_defaultdict: None})

# Namedtuples are recognised by shape (a tuple subclass with _fields), not registered one by
# one; the aux data is the class itself, so unflatten can rebuild it.
_NAMEDTUPLE = NodeType(
    "namedtuple",
    lambda t: (t, type(t)),
    lambda cls, children: cls(*children),
    _flatten_namedtuple_with_keys,
)


def _children_and_aux(entry: NodeType, node: Any) -> tuple[list[Any], Any]:
    """Call the flatten function registered for ``node``'s type, checking what it returned."""
    return _checked_flatten(entry.flatten, node, "flatten function")


def _keyed_children_and_aux(entry: NodeType, node: Any) -> tuple[list[KeyLeafPair], Any]:
    """``(key, child)`` pairs and aux data; a type registered without keys gets flat indices."""
    if entry.flatten_with_keys is None:
        children, aux_data = _children_and_aux(entry, node)
        return [(FlattenedIndexKey(i), child) for i, child in enumerate(children)], aux_data
    return _checked_flatten(entry.flatten_with_keys, node, "flatten_with_keys function")


def _checked_flatten(flatten: Callable[[Any], Any], node: Any, name: str) -> tuple[Sequence[Any], Any]:
    """``flatten(node)``, checked as ``_checking`` checks it."""
    return _checking(flatten, name)(node)


def _checked_result(out: Any, node: Any, name: str) -> tuple[list[Any], Any]:
    """What the ``name`` registered for ``node``'s type returned, as (list of children, aux data);
    ValueError if it is not a pair whose children are iterable."""
    what = f"The {name} registered for {type(node).__name__}"
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


def flatten_one_level(tree: PyTree) -> tuple[tuple[Any, ...], Any]:
    """The children and aux data of the container ``tree`` (one level only); ValueError for a leaf."""
    children, aux_data = _children_and_aux(_entry_or_error(tree), tree)
    return tuple(children), aux_data


def flatten_one_level_with_keys(tree: PyTree) -> tuple[tuple[KeyLeafPair, ...], Any]:
    """Like ``flatten_one_level``, with each child paired with its key."""
    pairs, aux_data = _keyed_children_and_aux(_entry_or_error(tree), tree)
    return tuple(pairs), aux_data


def _entry_or_error(tree: PyTree) -> NodeType:
    entry = _node_entry(type(tree))
    if entry is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return entry


# --- PyTreeDef: the structure with the leaves taken out -------------------------------------------
# A treedef holds its structure as a *spec*, nested plain tuples: None for a leaf's slot, and
# ``(node_type, aux_data, *child_specs)`` for a node. Tuples are what Python builds, compares and
# frees fastest (in C), so flattening makes one tuple per node and nothing else, and ``==`` on
# treedefs (which jit asks on every call) is one tuple comparison. Two specs are equal exactly when
# their types, aux data and children all are, as treedefs must be.


class PyTreeDef:
    """One node of a tree's structure; leaves are the ``*`` slots.

    ``node_type`` is the container's Python type, or None for a leaf slot. ``aux_data`` is what
    the type's flatten returned besides the children (sorted keys for a dict, the class for a
    namedtuple). Two treedefs are equal when types, aux data and children all are.
    """

    __slots__ = ("_spec", "_num_leaves", "_num_nodes", "_hash", "_plan")

    def __init__(self, node_type: type | None, aux_data: Any = None, child_defs: tuple[PyTreeDef, ...] = ()) -> None:
        spec = None if node_type is None else (node_type, aux_data, *[child._spec for child in child_defs])
        _init_treedef(self, spec, None)

    @classmethod
    def _of(cls, spec: Any, num_leaves: int | None = None) -> PyTreeDef:
        """The treedef of ``spec``, without copying it (``num_leaves`` when the caller knows it)."""
        treedef = object.__new__(cls)
        # _init_treedef's work, written out: flattening makes a treedef on every call.
        treedef._spec, treedef._num_leaves, treedef._num_nodes, treedef._hash, treedef._plan = (
            spec, num_leaves, None, None, None)  # fmt: skip
        return treedef

    # The fields of the structure, read from the spec when asked: nothing on the fast paths asks.

    @property
    def node_type(self) -> type | None:
        return None if self._spec is None else self._spec[0]

    @property
    def aux_data(self) -> Any:
        return None if self._spec is None else self._spec[1]

    @property
    def child_defs(self) -> tuple[PyTreeDef, ...]:
        return () if self._spec is None else tuple(map(PyTreeDef._of, self._spec[2:]))

    @property
    def num_leaves(self) -> int:
        if self._num_leaves is None:  # flattening knows it; a treedef made otherwise counts once
            self._num_leaves, self._num_nodes = _count(self._spec)
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        if self._num_nodes is None:
            self._num_leaves, self._num_nodes = _count(self._spec)
        return self._num_nodes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self._spec == other._spec

    def __hash__(self) -> int:
        # aux_data may be unhashable (JAX allows a dict there), so it is left out; equal treedefs
        # still get equal hashes. Walking the tree costs about what flattening does, so the hash
        # is kept: a treedef used as a cache key is hashed again on every lookup.
        if self._hash is None:
            self._hash = _structure_hash(self._spec)
        return self._hash

    def children(self) -> list[PyTreeDef]:
        """The treedefs of this node's children; a leaf or None has none."""
        return list(self.child_defs)

    def unflatten(self, leaves: Iterable[Leaf]) -> PyTree:
        """Put ``leaves`` into the ``*`` slots, in order, and rebuild the containers."""
        values = [*leaves, None]  # the leaves, and the value of every None node (see _make_plan)
        num_leaves = self._num_leaves if self._num_leaves is not None else self.num_leaves
        if len(values) - 1 != num_leaves:
            too = "few" if len(values) - 1 < num_leaves else "many"
            raise ValueError(f"Too {too} leaves for PyTreeDef; expected {num_leaves}, got {len(values) - 1}.")
        # Most treedefs are rebuilt once (tree_map flattens, maps and rebuilds): the first rebuild
        # walks the spec. One rebuilt again (jit's output tree, on every call) is worth a plan, made
        # by the second rebuild and kept: a treedef never changes.
        plan = self._plan
        if plan is None:
            self._plan = _PLAN_NEXT_TIME
            return _rebuild_by_walking(self._spec, values)
        if plan is _PLAN_NEXT_TIME:
            plan = self._plan = _make_plan(self._spec, num_leaves)
        return plan(values)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` sitting where this treedef has leaves. ``tree`` must have this
        structure down to those leaves (this treedef is a prefix of it); below them, anything goes.
        """
        return _flatten_up_to(self, tree, "tree", hint="")

    def __repr__(self) -> str:
        return f"PyTreeDef({_render(self._spec)})"


def _init_treedef(treedef: PyTreeDef, spec: Any, num_leaves: int | None) -> None:
    # Its fields are read-only properties; these are the spec and what is counted from it, once.
    treedef._spec = spec
    treedef._num_leaves = num_leaves
    treedef._num_nodes = None
    treedef._hash = None
    treedef._plan = None  # how unflatten rebuilds it: None until the first rebuild


def _count(spec: Any) -> tuple[int, int]:
    """The leaves and the nodes (leaves included) of ``spec``, with a stack: trees may be deep."""
    leaves = nodes = 0
    stack = [spec]
    while stack:
        spec = stack.pop()
        nodes += 1
        if spec is None:
            leaves += 1
        else:
            stack += spec[2:]
    return leaves, nodes


def _structure_hash(spec: Any) -> int:
    """A hash of ``spec``'s node types and shape, not of its aux data, walked with a stack. (Python's
    own hash of the nested tuples would recurse in C, and crash on a tree thousands deep.)"""
    shape: list[Any] = []
    stack = [spec]
    while stack:
        spec = stack.pop()
        if spec is None:
            shape.append(None)
        else:
            shape += (spec[0], len(spec))
            stack += spec[2:]
    return hash(tuple(shape))


_LEAF = PyTreeDef._of(None, 1)

# --- What each type is, kept per exact type ------------------------------------------------------
# Flattening asks "leaf or node, and how does it come apart?" once per value, and rebuilding asks
# "how does it go together?" once per node. The answers are kept in tables keyed by exact type, so
# each question is one dict or set lookup: the types known to be leaves; each node type's function
# giving (children, aux_data), whose children are a list or tuple; and each node type's function
# rebuilding it from (aux_data, list of children); the tables are defined with the registry, above.

def _splitter(node_type: type) -> Callable[[Any], tuple[Sequence[Any], Any]] | None:
    """How values of ``node_type`` come apart, or None (and remembered as a leaf type) for a leaf."""
    entry = _node_entry(node_type)
    if entry is None:
        _leaf_types.add(node_type)
        return None
    if node_type in _OWN_CONTAINERS or entry is _NAMEDTUPLE or entry.flatten in _OWN_FLATTENS:
        split = entry.flatten  # this module's own: it returns a sequence and aux data, unchecked
    else:
        split = _checking(entry.flatten)  # a user's: checked
    _splitters[node_type] = split
    return split


def _checking(flatten: Callable[[Any], Any], name: str = "flatten function") -> Callable[[Any], tuple[Sequence[Any], Any]]:
    """``flatten``, with its result checked: ``(children, aux_data)`` with iterable children, made
    a list unless they are a list or tuple already."""

    def split(node: Any) -> tuple[Sequence[Any], Any]:
        out = flatten(node)
        # The usual answer, a pair whose children are a list or tuple, is let through at once: this
        # runs for every custom node, and the messages are made only when there is something to say.
        if type(out) is tuple and len(out) == 2 and type(out[0]) in (list, tuple):
            return out
        return _checked_result(out, node, name)

    return split


def _joiner(node_type: type) -> Callable[[Any, list[Any]], Any]:
    """How values of the node type ``node_type`` are rebuilt from aux data and a list of children."""
    entry = _node_entry(node_type)
    assert entry is not None, f"{node_type} was a node when flattened"
    join = _joiners[node_type] = functools.partial(_rebuild, entry)
    return join


def _rebuild(entry: NodeType, aux_data: Any, children: list[Any]) -> PyTree:
    # No validation of the children: transformations put placeholders such as object() here.
    return entry.unflatten(aux_data, tuple(children))


# --- Flattening and unflattening ------------------------------------------------------------------
# Both walk the tree by recursion, which is Python's fastest way to walk it, down to _MAX_DEPTH;
# a subtree deeper than that is handed to a walk with an explicit stack of frames, so that the depth
# of a tree is limited by memory, not by Python's recursion limit. ``is_leaf`` takes the stack walk
# too: asking it about every value is the slow part then, and the fast walk need not test for it.

_MAX_DEPTH = 50  # one frame per level: well inside Python's recursion limit of 1,000


def tree_flatten(tree: PyTree, is_leaf: IsLeaf = None) -> tuple[list[Leaf], PyTreeDef]:
    """The leaves of ``tree`` left to right, and its structure. A subtree for which
    ``is_leaf`` returns True is kept whole as a leaf."""
    if is_leaf is not None:
        leaves: list[Leaf] = []
        spec = _flatten_into(tree, is_leaf, leaves)
        return leaves, PyTreeDef._of(spec, len(leaves))
    # The root is taken apart here as _node_spec takes apart each child: a tree that is a leaf, or
    # a container of leaves (the commonest trees), costs no more.
    tree_type = type(tree)
    if tree_type is tuple or tree_type is list:
        children, aux_data = tree, None
    elif tree_type in _leaf_types or (split := _splitters.get(tree_type) or _splitter(tree_type)) is None:
        return [tree], _LEAF
    else:
        children, aux_data = split(tree)
    if _all_leaf_types(map(type, children)):
        if (tree_type is tuple or tree_type is list) and len(children) < _SHORT:
            return list(children), PyTreeDef._of(_SEQUENCE_OF_LEAVES[tree_type][len(children)], len(children))
        return list(children), PyTreeDef._of((tree_type, aux_data) + (None,) * len(children), len(children))
    leaves = []
    spec = _node_spec(tree_type, aux_data, children, leaves, 1)
    return leaves, PyTreeDef._of(spec, len(leaves))


# The specs of short tuples and lists of leaves, the commonest nodes, made once and shared.
_SHORT = 16
_SEQUENCE_OF_LEAVES = {kind: [(kind, None) + (None,) * n for n in range(_SHORT)] for kind in (tuple, list)}
_NONE_SPEC = (type(None), None)  # None is a node with no children, not a leaf


def _node_spec(node_type: Any, aux_data: Any, children: Sequence[Any], leaves: list[Leaf], depth: int) -> Any:
    """The spec of a node, given its children, whose leaves are appended to ``leaves``.

    The node's own loop takes its leaves, and its children that hold only leaves (a (w, b) pair, a
    dict of arrays: the commonest nodes), so that neither costs a call; only a child holding nodes
    is a call, one level down.
    """
    if len(children) >= _UNIFORM_MIN and (uniform := _uniform_spec(node_type, aux_data, children, leaves)):
        return uniform
    spec = [node_type, aux_data]
    for child in children:
        child_type = type(child)
        if child_type in _leaf_types:
            leaves.append(child)
            spec.append(None)
            continue
        elif child is None:
            spec.append(_NONE_SPEC)
            continue
        elif depth == _MAX_DEPTH:  # deeper down, a walk with a stack takes over
            spec.append(_flatten_into(child, None, leaves))
            continue
        elif child_type is tuple or child_type is list:  # the commonest nodes, taken apart here
            grandchildren, child_aux = child, None
        else:
            split = _splitters.get(child_type) or _splitter(child_type)
            if split is None:  # a leaf, of a type not seen before
                leaves.append(child)
                spec.append(None)
                continue
            grandchildren, child_aux = split(child)
        # A loop in C says whether the child holds only leaves: then they are its leaves, and its
        # spec is its type, its aux data and a None for each.
        if _all_leaf_types(map(type, grandchildren)):
            leaves += grandchildren
            if (child_type is tuple or child_type is list) and len(grandchildren) < _SHORT:
                spec.append(_SEQUENCE_OF_LEAVES[child_type][len(grandchildren)])  # a spec made once
            else:
                spec.append((child_type, child_aux) + (None,) * len(grandchildren))
        else:
            spec.append(_node_spec(child_type, child_aux, grandchildren, leaves, depth + 1))
    return tuple(spec)


# --- Siblings of one shape, taken apart in C -------------------------------------------------------
# A network's parameters are a list of (w, b) pairs, or a dict of layers of one shape: many siblings
# built alike. Such siblings are flattened column by column: the first children of all of them, then
# the second children, and so on, each column by a few passes in C (``map``, ``zip``, ``set``) instead
# of a Python loop over the siblings; a column of containers is taken apart the same way, one level
# down. Their leaves are then woven back into the order of a walk, sibling by sibling, also in C.

_UNIFORM_MIN = 16  # fewer children than this: the loop is as quick as the passes
_CHILDREN_AND_AUX = (operator.itemgetter(0), operator.itemgetter(1))


def _uniform_spec(node_type: Any, aux_data: Any, children: Sequence[Any], leaves: list[Leaf]) -> Any:
    """The spec of a node whose children are built alike, or None for any other node."""
    columns = _columns(children, 0)
    if columns is None:
        return None
    specs, alike, column_leaves, _ = columns
    leaves += column_leaves
    return (node_type, aux_data) + (specs * len(children) if alike else specs)


# What _columns finds out about some siblings: their specs (one, if ``alike``, else one per sibling),
# their leaves in walk order, and how many leaves each sibling has.
_Columns = tuple[tuple[Any, ...], bool, list[Leaf], int]


def _columns(siblings: Sequence[Any], depth: int) -> _Columns | None:
    """What ``siblings`` are made of, if they are all leaves, all None, or all containers of one type
    and length whose children, column by column, are alike in the same way; None if they are not."""
    types = set(map(type, siblings))
    if _all_leaf_types(types) or _all_leaf_types_learnt(types):
        return (None,), True, list(siblings), 1
    if len(types) != 1 or depth == _MAX_DEPTH:
        return None
    kind = types.pop()
    if kind is type(None):
        return (_NONE_SPEC,), True, [], 0
    heads: Any  # the start of each sibling's spec: one for all, or an iterator of one per sibling
    if kind is tuple or kind is list:
        parts, heads = siblings, (kind, None)
    elif (entry := _node_entry(kind)) is _NAMEDTUPLE:
        parts, heads = siblings, (kind, kind)
    elif entry is not None and entry.flatten in _OWN_FLATTENS:  # pure: called again if this fails
        getters = _OWN_FLATTENS[entry.flatten]  # a dataclass's: data fields, meta fields, read in C
        if getters is None:  # an OrderedDict's or a defaultdict's: (children, aux data) pairs
            siblings, getters = list(map(entry.flatten, siblings)), _CHILDREN_AND_AUX
        parts = list(map(getters[0], siblings))
        heads = zip(itertools.repeat(kind), map(getters[1], siblings))
    else:
        return None
    sizes = set(map(len, parts))
    if len(sizes) != 1:
        return None
    below = list(itertools.chain.from_iterable(parts))  # all the siblings' children
    if _all_leaf_types(map(type, below)):  # the commonest: containers of leaves only
        nones = (None,) * sizes.pop()
        if type(heads) is tuple:
            return (heads + nones,), True, below, len(nones)
        return tuple(map(tuple.__add__, heads, itertools.repeat(nones))), False, below, len(nones)
    columns = []
    for column in zip(*parts):
        got = _columns(column, depth + 1)
        if got is None:
            return None
        columns.append(got)
    specs, alike = _specs_of(heads, columns)
    return specs, alike, _woven(columns), sum(c[3] for c in columns)


def _all_leaf_types_learnt(types: set[type]) -> bool:
    """Whether ``types`` are all leaf types, asking about each type not seen before (as the loop
    does, which learns them), so that a first flatten takes the same path as the next ones."""
    return all(_splitters.get(t) is None and _splitter(t) is None for t in types)


def _specs_of(heads: Any, columns: list[_Columns]) -> tuple[tuple[Any, ...], bool]:
    """The siblings' specs: each one's head, then its children's specs read across the columns."""
    if type(heads) is tuple and all(alike for _, alike, _, _ in columns):
        return (heads + tuple(specs[0] for specs, _, _, _ in columns),), True
    if type(heads) is tuple:
        heads = itertools.repeat(heads)
    rows = zip(*[itertools.repeat(specs[0]) if alike else specs for specs, alike, _, _ in columns])
    return tuple(map(tuple.__add__, heads, rows if columns else itertools.repeat(()))), False


def _woven(columns: list[_Columns]) -> list[Leaf]:
    """The siblings' leaves in walk order, from each column's leaves."""
    columns = [c for c in columns if c[3]]  # the columns holding leaves
    if len(columns) == 1:
        return columns[0][2]
    if all(per == 1 for _, _, _, per in columns):
        return list(itertools.chain.from_iterable(zip(*[leaves for _, _, leaves, _ in columns])))
    groups = [zip(leaves) if per == 1 else zip(*[iter(leaves)] * per) for _, _, leaves, per in columns]
    return list(itertools.chain.from_iterable(itertools.chain.from_iterable(zip(*groups))))


def _build(spec: Any, leaves: Iterator[Leaf], depth: int) -> PyTree:
    """Rebuild the node ``spec``'s container around the next of ``leaves``, children first."""
    node_type, child_specs = spec[0], spec[2:]
    if not any(child_specs):  # only leaves (a node's spec is a non-empty tuple, a leaf's None)
        if node_type is tuple:
            return tuple(itertools.islice(leaves, len(child_specs)))  # taken in one go, in C
        children = list(itertools.islice(leaves, len(child_specs)))
    else:
        children = []
        for child in child_specs:
            if child is None:
                children.append(next(leaves))
            elif child is _NONE_SPEC:
                children.append(None)
            elif depth == _MAX_DEPTH:  # deeper down, a walk with a stack takes over
                children.append(_build_deep(child, leaves))
            else:
                children.append(_build(child, leaves, depth + 1))
    if node_type is list:
        return children  # made here, for this node only
    if node_type is tuple:
        return tuple(children)
    join = _joiners.get(node_type) or _joiner(node_type)
    return join(spec[1], children)


@dataclass
class _Frame:
    """A node being walked: the children still to visit, and the results for those visited."""

    node_type: type | None
    aux_data: Any
    pending: Iterator[Any]
    done: list[Any] = field(default_factory=list)


_END = object()  # what next() gives for a node with no children left (None is a valid child)


def _flatten_into(tree: PyTree, is_leaf: IsLeaf, leaves: list[Leaf]) -> Any:
    """``_node_spec``'s walk with a stack, for deep trees and for ``is_leaf``.

    A frame's children are walked by a for loop that stops at the first child that is a node: the
    node's frame goes on the stack, and once it is done the loop resumes where it stopped (the
    iterator remembers the place). Leaves, the common case, never touch the stack.
    """
    root = _Frame(None, None, iter([tree]))  # a frame holding the whole tree as its one child
    stack = [root]
    while stack:
        frame = stack[-1]
        for child in frame.pending:
            if is_leaf is not None and _says_leaf(is_leaf(child)):
                entry = None
            else:
                entry = _node_entry(type(child))
            if entry is not None:
                children, aux_data = _children_and_aux(entry, child)
                stack.append(_Frame(type(child), aux_data, iter(children)))
                break
            leaves.append(child)
            frame.done.append(None)  # a leaf's spec
        else:  # all of frame's children are flattened: make frame's spec
            _close(stack)
    return root.done[0]


def _close(stack: list[_Frame]) -> None:
    """Pop the finished frame on top of ``stack`` and hand its spec to the frame below."""
    frame = stack.pop()
    if stack:
        stack[-1].done.append((frame.node_type, frame.aux_data, *frame.done))


def _build_deep(spec: Any, leaves: Iterator[Leaf]) -> PyTree:
    """``_build`` with a stack, for deep trees."""
    root = _Frame(None, None, iter([spec]))  # a frame holding the whole tree as its one child
    stack = [root]
    while stack:
        frame = stack[-1]
        child = next(frame.pending, _END)
        if child is _END:  # all of frame's children are rebuilt: rebuild frame's node
            stack.pop()
            if stack:
                join = _joiners.get(frame.node_type) or _joiner(frame.node_type)
                stack[-1].done.append(join(frame.aux_data, frame.done))
        elif child is None:
            frame.done.append(next(leaves))
        else:
            stack.append(_Frame(child[0], child[1], iter(child[2:])))
    return root.done[0]


def _rebuild_by_walking(spec: Any, values: list[Any]) -> PyTree:
    """The tree of ``spec`` around the leaves that begin ``values``, rebuilt by walking the spec."""
    return values[0] if spec is None else _build(spec, iter(values), 0)


# --- Rebuilding by a plan -------------------------------------------------------------------------
# A plan rebuilds a tree bottom up, into one list of values: the leaves, then None (the value of
# every None node, which has no children), then every node of height 1 (whose children are leaves
# or Nones), then every node of height 2, and so on; the root comes last. A node's children are
# picked from that list by an ``operator.itemgetter`` of their places, which gives them as a tuple,
# in C; and the nodes of one height and one type are made by one ``map``, so that no Python
# function is called for a tuple, a list or a dict: JAX's C++ walks no faster. For example
# ``[(a, b), (c, None)]`` is values ``[a, b, c, None]``, then the tuples ``itemgetter(0, 1)`` and
# ``itemgetter(2, 3)`` of them (places 4 and 5), then the list of ``itemgetter(4, 5)``.

_PLAN_NEXT_TIME = object()  # in a treedef's _plan: rebuilt once already, so make a plan next time


class _Step(NamedTuple):
    """The nodes of one height and one type: each node's children are ``pick(values)``, or, for a
    run of equal nodes, ``picks(values)`` gives them all."""

    make: Callable[[Iterator[tuple[Any, ...]], list[Any]], Iterable[Any]]  # (children, aux data) -> nodes
    picks: list[Callable[[list[Any]], tuple[Any, ...]]] | Callable[[list[Any]], Iterator[tuple[Any, ...]]]
    aux_data: list[Any]


class _TooDeep(Exception):
    """A tree deeper than _MAX_DEPTH: rebuilt by walking it, which takes any depth."""


def _make_plan(spec: Any, num_leaves: int) -> Callable[[list[Any]], PyTree]:
    """What rebuilds ``spec``'s tree from the list of its leaves followed by None."""
    if spec is not None and spec[0] in (tuple, list, dict) and not any(spec[2:]):  # leaves in a container
        return functools.partial(_CONTAINER_OF_LEAVES[spec[0]], spec[1])
    nodes: dict[tuple[int, Any], list[tuple[Any, list[Any]]]] = {}  # (height, type): (aux, child places)
    next_leaf = itertools.count()

    def visit(spec: Any, depth: int) -> tuple[int, Any]:
        """The height of ``spec``'s node, and its place in the values: a leaf's or None's is a
        number; a node's, until the nodes are counted, is its group's key and its index there."""
        if spec is None:
            return 0, next(next_leaf)
        if spec[0] is type(None):
            return 0, num_leaves
        if depth == _MAX_DEPTH:
            raise _TooDeep
        children = [visit(child, depth + 1) for child in spec[2:]]
        height = 1 + max([h for h, _ in children], default=0)
        group = nodes.setdefault((height, spec[0]), [])
        group.append((spec[1], [place for _, place in children]))
        return height, ((height, spec[0]), len(group) - 1)

    try:
        root = visit(spec, 0)[1]
    except _TooDeep:
        return functools.partial(_rebuild_by_walking, spec)
    if 2 * len(nodes) > sum(map(len, nodes.values())):  # few nodes of each kind: walking is quicker
        return functools.partial(_rebuild_by_walking, spec)
    first: dict[tuple[int, Any], int] = {}  # each group's first place, lowest height first
    place = num_leaves + 1
    for key in sorted(nodes, key=operator.itemgetter(0)):
        first[key] = place
        place += len(nodes[key])

    def number(place: Any) -> int:
        return place if type(place) is int else first[place[0]] + place[1]

    steps = []
    for key in first:
        group = nodes[key]
        places = [[number(p) for p in places] for _, places in group]
        steps.append(_Step(_maker(key[1]), _children_getter(places), [aux for aux, _ in group]))
    return functools.partial(_run_plan, steps, number(root))


def _children_getter(places: list[list[int]]) -> Any:
    """How a step's nodes find their children, each node's at its ``places`` in the values: one
    picker per node, or one function for a run of equal nodes."""
    size, start = len(places[0]), places[0][0] if places[0] else 0
    stop = start + size * len(places)
    if (size and len(places) >= _UNIFORM_MIN and set(map(len, places)) == {size}
            and list(itertools.chain.from_iterable(places)) == list(range(start, stop))):
        # Children one after the other, n to a node (a list's (w, b) pairs): cut by zip, in C.
        return functools.partial(_chunks, start, stop, size)
    return [_picker(p) for p in places]


def _chunks(start: int, stop: int, size: int, values: list[Any]) -> Iterator[tuple[Any, ...]]:
    return zip(*[iter(values[start:stop])] * size)


# The plans of a tuple, a list or a dict of leaves, given (aux data, the leaves followed by None).
_CONTAINER_OF_LEAVES = {
    tuple: lambda _aux, values: tuple(values[:-1]),
    list: lambda _aux, values: values[:-1],
    dict: lambda keys, values: dict(zip(keys, values)),  # zip stops before the None
}


def _run_plan(steps: list[_Step], root: int, values: list[Any]) -> PyTree:
    """Follow a plan: ``values`` holds the leaves and None, and gets every node, root last."""
    for make, picks, aux_data in steps:
        # Children are read only from values that earlier steps made, so values grows meanwhile.
        if type(picks) is list:  # one picker per node: called in C, with no frame of ours
            values += make(map(operator.call, picks, itertools.repeat(values)), aux_data)
        else:
            values += make(picks(values), aux_data)
    return values[root]


def _picker(places: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """A function giving the tuple of ``values[i]`` for each place ``i``: ``itemgetter``, which gives
    a bare value for one place and needs at least one."""
    if len(places) >= 2:
        return operator.itemgetter(*places)
    if len(places) == 1:
        (i,) = places
        return lambda values: (values[i],)
    return lambda _values: ()


def _make_tuples(children: Iterator[tuple[Any, ...]], _aux: list[Any]) -> Iterable[Any]:
    return children  # the pickers give tuples already


def _make_lists(children: Iterator[tuple[Any, ...]], _aux: list[Any]) -> Iterable[Any]:
    return map(list, children)


def _make_dicts(children: Iterator[tuple[Any, ...]], keys: list[Any]) -> Iterable[Any]:
    return map(dict, map(zip, keys, children))


def _make_nodes(unflatten: Callable[[Any, tuple[Any, ...]], Any], children: Iterator[tuple[Any, ...]],
                aux_data: list[Any]) -> Iterable[Any]:  # fmt: skip
    # No validation of the children: transformations put placeholders such as object() here.
    return map(unflatten, aux_data, children)


def _maker(node_type: type) -> Callable[[Iterator[tuple[Any, ...]], list[Any]], Iterable[Any]]:
    """How a plan makes nodes of type ``node_type`` from their children and aux data."""
    if node_type is tuple:
        return _make_tuples
    if node_type is list:
        return _make_lists
    if node_type is dict:
        return _make_dicts
    entry = _node_entry(node_type)
    assert entry is not None, f"{node_type} was a node when flattened"
    return functools.partial(_make_nodes, entry.unflatten)


def _says_leaf(answer: Any) -> bool:
    """Read what ``is_leaf`` returned: True or False (None counts as False), nothing else."""
    if answer is True:
        return True
    if answer is False or answer is None:
        return False
    raise ValueError(f"is_leaf predicate returned a non-boolean value {answer!r}; expected a boolean")


def _render(spec: Any) -> str:
    """The text inside ``PyTreeDef(...)``, spelled exactly as JAX spells it."""
    if spec is None:
        return "*"
    node_type, aux_data = spec[0], spec[1]
    kids = [_render(child) for child in spec[2:]]
    if node_type is type(None):
        return "None"
    if node_type is list:
        return "[" + ", ".join(kids) + "]"
    if node_type is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if node_type is dict:
        pairs = [f"{key!r}: {kid}" for key, kid in zip(aux_data, kids)]
        return "{" + ", ".join(pairs) + "}"
    entry = _node_entry(node_type)
    assert entry is not None
    # JAX shows a namedtuple's class by name, and any other aux data with str().
    aux = node_type.__name__ if entry is _NAMEDTUPLE else aux_data
    return f"CustomNode({entry.name}[{aux}], [{', '.join(kids)}])"


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Leaf]) -> PyTree:
    """Inverse of ``tree_flatten``: after ``leaves, treedef = tree_flatten(t)``, rebuilds ``t``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: IsLeaf = None) -> list[Leaf]:
    """The leaves of ``tree``, left to right (``tree_flatten`` without the structure)."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: IsLeaf = None) -> PyTreeDef:
    """The structure of ``tree`` (``tree_flatten`` without the leaves)."""
    return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single node: a leaf, but also None, (), [] and {} (JAX counts nodes)."""
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The treedefs of the root's children."""
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have the structures ``treedefs``."""
    return PyTreeDef(tuple, None, tuple(treedefs))


def all_leaves(iterable: Iterable[Any], is_leaf: IsLeaf = None) -> bool:
    """True if every item is a leaf, i.e. ``tree_leaves`` would leave the list unchanged."""
    if is_leaf is None:
        return all(_node_entry(type(x)) is None for x in iterable)
    # Literally the definition, as JAX does it: is_leaf is asked about the list itself too.
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(leaf is item for leaf, item in zip(leaves, items))


# --- Key paths: flattening that also says where each leaf sits ------------------------------------


def tree_flatten_with_path(
    tree: PyTree, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> tuple[list[tuple[KeyPath, Leaf]], PyTreeDef]:
    """Like ``tree_flatten``, with each leaf paired with its key path. With
    ``is_leaf_takes_path=True``, ``is_leaf`` is called as ``is_leaf(path, subtree)``."""
    path_leaves: list[tuple[KeyPath, Leaf]] = []
    predicate = is_leaf if is_leaf is None or is_leaf_takes_path else _ignoring_path(is_leaf)
    spec = _flatten_with_path_into(tree, predicate, path_leaves)
    return path_leaves, PyTreeDef._of(spec, len(path_leaves))


def _ignoring_path(is_leaf: Callable[[Any], bool]) -> Callable[[KeyPath, Any], bool]:
    return lambda _path, x: is_leaf(x)


def _flatten_with_path_into(
    tree: PyTree, is_leaf: Callable[[KeyPath, Any], bool] | None, out: list[tuple[KeyPath, Leaf]]
) -> Any:
    """``_flatten_into``'s walk, where each frame's pending children come with their paths."""
    root = _Frame(None, None, iter([((), tree)]))
    stack = [root]
    while stack:
        frame = stack[-1]
        for path, child in frame.pending:
            if is_leaf is not None and _says_leaf(is_leaf(path, child)):
                entry = None
            else:
                entry = _node_entry(type(child))
            if entry is not None:
                pairs, aux_data = _keyed_children_and_aux(entry, child)
                with_paths = [((*path, key), grandchild) for key, grandchild in pairs]
                stack.append(_Frame(type(child), aux_data, iter(with_paths)))
                break
            out.append((path, child))
            frame.done.append(None)
        else:
            _close(stack)
    return root.done[0]


def tree_leaves_with_path(
    tree: PyTree, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> list[tuple[KeyPath, Leaf]]:
    """The ``(key path, leaf)`` pairs of ``tree``, left to right."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


# --- Matching one structure against another tree --------------------------------------------------


class _Mismatch(Exception):
    """Raised deep in the walk; ``_flatten_up_to`` turns it into a ValueError with the path."""


def _flatten_up_to(treedef: PyTreeDef, tree: PyTree, root: str, hint: str) -> list[PyTree]:
    """``treedef.flatten_up_to(tree)``; errors name the path from ``root`` and end with ``hint``."""
    subtrees: list[PyTree] = []
    path: list[str] = []  # keys from root to the node being matched; pushed and popped
    try:
        _match_prefix(treedef._spec, tree, path, subtrees)
    except _Mismatch as e:
        where = root + "".join(path)
        raise ValueError(f"Pytree structure mismatch at {where}: {e}.{hint}") from None
    return subtrees


def _match_prefix(spec: Any, tree: PyTree, path: list[str], out: list[PyTree]) -> None:
    if spec is None:
        out.append(tree)  # a leaf of the prefix takes the whole subtree, whatever it is
        return
    node_type, want_aux, child_specs = spec[0], spec[1], spec[2:]
    if type(tree) is not node_type:
        raise _Mismatch(f"expected {_describe_type(node_type)}, got {_describe(tree)}")
    entry = _node_entry(node_type)
    assert entry is not None
    children, aux_data = _children_and_aux(entry, tree)
    node = _describe_type(node_type)
    if aux_data != want_aux:  # dict keys, namedtuple class, custom aux data
        raise _Mismatch(f"expected {node} with aux data {want_aux!r}, got aux data {aux_data!r}")
    if len(children) != len(child_specs):
        raise _Mismatch(f"expected {node} with {len(child_specs)} children, got {len(children)}")
    for i, (child_spec, child) in enumerate(zip(child_specs, children)):
        path.append(_child_key(spec, i))
        _match_prefix(child_spec, child, path, out)
        path.pop()


def _child_key(spec: Any, i: int) -> str:
    """How child ``i`` of the node ``spec`` is reached, for error messages: ``['key']``, ``.field``
    or ``[i]``."""
    node_type = spec[0]
    if node_type is dict:
        return f"[{spec[1][i]!r}]"
    if _node_entry(node_type) is _NAMEDTUPLE:
        return f".{node_type._fields[i]}"
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


def tree_map_with_path(
    f: Callable[..., Any],
    tree: PyTree,
    *rest: PyTree,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> PyTree:
    """Like ``tree_map``, with ``f(path, x, *ys)``: each call also gets the leaf's key path."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    hint = " Every tree in rest must have the first tree's structure, at least down to its leaves."
    others = [_flatten_up_to(treedef, r, f"rest[{i}]", hint) for i, r in enumerate(rest)]
    return treedef.unflatten(f(path, x, *ys) for (path, x), *ys in zip(path_leaves, *others))


def tree_broadcast(prefix_tree: PyTree, full_tree: PyTree, is_leaf: IsLeaf = None) -> PyTree:
    """``full_tree``'s structure, with each leaf of ``prefix_tree`` repeated over the subtree of
    ``full_tree`` at the same place: ``tree_broadcast([1, 2], [[a, b], c])`` is ``[[1, 1], 2]``."""
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    hint = " The first tree must be a prefix of the second: the same structure down to its own leaves."
    subtrees = _flatten_up_to(prefix_def, full_tree, "full_tree", hint)
    leaves = []
    for leaf, subtree in zip(prefix_leaves, subtrees):
        leaves += [leaf] * tree_structure(subtree).num_leaves
    return tree_structure(full_tree).unflatten(leaves)


def tree_all(tree: PyTree, *, is_leaf: IsLeaf = None) -> bool:
    """True if every leaf of ``tree`` is truthy (``all`` over the leaves)."""
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


def tree_reduce_associative(
    operation: Callable[[T, T], T],
    tree: PyTree,
    *,
    identity: Any = _NO_INITIALIZER,
    is_leaf: IsLeaf = None,
) -> T:
    """Combine the leaves of ``tree`` pairwise, as a balanced tree of ``operation`` calls (so
    ``operation`` must be associative); ``identity`` is the result for a tree with no leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INITIALIZER:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return _reduce_halves(operation, leaves)


def _reduce_halves(operation: Callable[[T, T], T], items: list[T]) -> T:
    """``operation(reduce(left half), reduce(right half))``; the left half is the smaller one.
    Recursion is safe here: the depth is only log2(len(items))."""
    if len(items) == 1:
        return items[0]
    middle = len(items) // 2
    return operation(_reduce_halves(operation, items[:middle]), _reduce_halves(operation, items[middle:]))


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


# --- Partial: a functools.partial that is a pytree ------------------------------------------------


class Partial(functools.partial):
    """``functools.partial`` as a pytree: the bound arguments are its children (so transformations
    see them), the function is aux data. ``Partial(f, x)(y)`` is ``f(x, y)``."""

    def __new__(cls, func: Callable[..., Any], *args: Any, **kw: Any) -> Partial:
        # functools.partial(partial(f, a), b) merges into partial(f, a, b), which would make the
        # inner partial's arguments children too. Only this Partial's own arguments are children,
        # so an inner partial is hidden behind a shim that is not a partial.
        if isinstance(func, functools.partial):
            func = _HashableCallableShim(func)
        return super().__new__(cls, func, *args, **kw)


class _HashableCallableShim:
    """Calls, hashes and compares like the partial it wraps, without being a partial. (The name
    is JAX's, so that treedefs print the same.)"""

    def __init__(self, fun: functools.partial[Any]) -> None:
        self.fun = fun
        # Seen from outside it still looks like a partial: .func, .args and .keywords work.
        self.func, self.args, self.keywords = fun.func, fun.args, fun.keywords

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self) -> str:
        return f"_HashableCallableShim({self.fun!r})"


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),  # two children: the tuple of args and the kwargs dict
    lambda func, children: Partial(func, *children[0], **children[1]),
)
