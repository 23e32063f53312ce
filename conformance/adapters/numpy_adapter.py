"""NumPy behind a thin adapter with JAX's module layout. It has `numpy` (NumPy's own functions), a
`lax` subset, a small `tree_util` and `config`, so that the conformance suite can run on it.

It is a yardstick, not a goal: NumPy promotes types by value and by its own table, has no weak
types, no `bfloat16` of its own, mutable arrays, no `random` like JAX's and no `PyTreeDef` text, so
many of its tests fail or are missing; the matrix shows how much of the suite plain NumPy already
meets. It can only evaluate: capabilities ("eval",).

    pytest conformance --impl=conformance.adapters.numpy_adapter
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np

__capabilities__ = ("eval",)
__conformance_name__ = "numpy-adapter"


# --- config and dtypes -------------------------------------------------------------------------


class _Config:
    """JAX's flags as attributes, set with `update`; NumPy ignores them."""

    jax_enable_x64 = False
    jax_numpy_dtype_promotion = "standard"

    def update(self, name: str, value: object) -> None:
        setattr(self, name, value)


config = _Config()


class TypePromotionError(ValueError):
    pass


dtypes = types.SimpleNamespace(TypePromotionError=TypePromotionError)


@contextlib.contextmanager
def numpy_dtype_promotion(mode: str) -> Iterator[None]:
    saved = config.jax_numpy_dtype_promotion
    config.update("jax_numpy_dtype_promotion", mode)
    try:
        yield
    finally:
        config.update("jax_numpy_dtype_promotion", saved)


# --- numpy: NumPy itself, plus the 16-bit float it lacks ----------------------------------------

numpy = types.ModuleType(__name__ + ".numpy", "NumPy, with ml_dtypes' bfloat16.")
numpy.__dict__.update({k: v for k, v in vars(np).items() if not k.startswith("__")})
numpy.bfloat16 = ml_dtypes.bfloat16


# --- lax: the primitives that are one NumPy call -----------------------------------------------


def _convert_element_type(x: Any, new_dtype: Any) -> np.ndarray:
    return np.asarray(x).astype(new_dtype)


def _broadcast_in_dim(x: Any, shape: tuple[int, ...], dims: tuple[int, ...]) -> np.ndarray:
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for axis, dim in zip(dims, x.shape):
        expanded[axis] = dim
    return np.broadcast_to(x.reshape(expanded), shape)


def _slice(x: Any, starts: Any, limits: Any, strides: Any = None) -> np.ndarray:
    steps = strides or (1,) * len(starts)
    return np.asarray(x)[tuple(slice(a, b, s) for a, b, s in zip(starts, limits, steps))]


_LAX: dict[str, Callable[..., Any]] = {
    "neg": np.negative, "sign": np.sign, "abs": np.abs, "exp": np.exp, "log": np.log,
    "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "sqrt": np.sqrt, "bitwise_not": np.invert, "add": np.add, "sub": np.subtract,
    "mul": np.multiply, "rem": np.fmod, "max": np.maximum, "min": np.minimum, "pow": np.power,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "real": np.real, "imag": np.imag,
    "convert_element_type": _convert_element_type, "broadcast_in_dim": _broadcast_in_dim,
    "reshape": lambda x, shape, dimensions=None: np.reshape(x, shape),
    "transpose": np.transpose, "squeeze": np.squeeze, "expand_dims": np.expand_dims,
    "concatenate": lambda xs, dim: np.concatenate(xs, axis=dim), "slice": _slice,
    "reduce_sum": lambda x, axes: np.sum(x, axis=tuple(axes)),
    "reduce_max": lambda x, axes: np.max(x, axis=tuple(axes)),
    "iota": lambda dtype, size: np.arange(size, dtype=dtype),
}  # fmt: skip
lax = types.ModuleType(__name__ + ".lax", "The lax primitives that are one NumPy call.")
lax.__dict__.update(_LAX)


# --- tree_util: lists, tuples, dicts and None ---------------------------------------------------


class PyTreeDef:
    """The structure of a tree of lists, tuples, dicts and None; `*` for a leaf."""

    def __init__(self, kind: str, children: list[PyTreeDef], keys: tuple[Any, ...] = ()) -> None:
        self.kind, self.children, self.keys = kind, children, keys

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind == "leaf" else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PyTreeDef) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"PyTreeDef({self._text()})"

    def _text(self) -> str:
        inner = [c._text() for c in self.children]
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind == "list":
            return "[" + ", ".join(inner) + "]"
        if self.kind == "tuple":
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        return "{" + ", ".join(f"{k!r}: {t}" for k, t in zip(self.keys, inner)) + "}"


def tree_flatten(tree: Any) -> tuple[list[Any], PyTreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> PyTreeDef:
    if tree is None:
        return PyTreeDef("none", [])
    if isinstance(tree, list | tuple) and type(tree) in (list, tuple):
        return PyTreeDef(type(tree).__name__, [_flatten(t, leaves) for t in tree])
    if type(tree) is dict:
        keys = tuple(sorted(tree))
        return PyTreeDef("dict", [_flatten(tree[k], leaves) for k in keys], keys)
    leaves.append(tree)
    return PyTreeDef("leaf", [])


def tree_unflatten(treedef: PyTreeDef, leaves: Any) -> Any:
    return _unflatten(treedef, iter(leaves))


def _unflatten(treedef: PyTreeDef, leaves: Iterator[Any]) -> Any:
    if treedef.kind == "leaf":
        return next(leaves)
    if treedef.kind == "none":
        return None
    children = [_unflatten(c, leaves) for c in treedef.children]
    if treedef.kind == "dict":
        return dict(zip(treedef.keys, children))
    return list(children) if treedef.kind == "list" else tuple(children)


def tree_leaves(tree: Any) -> list[Any]:
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> PyTreeDef:
    return tree_flatten(tree)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    leaves, treedef = tree_flatten(tree)
    others = [tree_leaves(r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


tree_util = types.ModuleType(__name__ + ".tree_util", "Flattening lists, tuples, dicts and None.")
tree_util.__dict__.update(
    PyTreeDef=PyTreeDef, tree_flatten=tree_flatten, tree_unflatten=tree_unflatten,
    tree_leaves=tree_leaves, tree_structure=tree_structure, tree_map=tree_map,
)  # fmt: skip
