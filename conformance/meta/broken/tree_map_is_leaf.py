"""jax, except that tree_map never asks is_leaf about the tree itself, only about what it holds (a
whole tree that is_leaf would stop at is mapped leaf by leaf)."""

import jax
from jax import config, dtypes, lax, numpy, numpy_dtype_promotion  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _tree_map(f, tree, *rest, is_leaf=None):
    if is_leaf is None:
        return jax.tree_util.tree_map(f, tree, *rest)
    root = tree
    return jax.tree_util.tree_map(f, tree, *rest, is_leaf=lambda x: x is not root and is_leaf(x))


tree_util = module_with(jax.tree_util, __name__ + ".tree_util", tree_map=_tree_map)
