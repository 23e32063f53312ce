"""jax, except that flattening a dict gives its leaves in insertion order, not sorted by key
(the treedef is still right)."""

import jax
from jax import config, dtypes, lax, numpy, numpy_dtype_promotion  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _leaves(tree):
    if type(tree) is dict:
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    children = jax.tree_util.tree_leaves(tree, is_leaf=lambda x: x is not tree)  # one level down
    if len(children) == 1 and children[0] is tree:
        return children
    return [leaf for child in children for leaf in _leaves(child)]


def _tree_flatten(tree, is_leaf=None):
    leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=is_leaf)
    return (leaves if is_leaf is not None else _leaves(tree)), treedef


def _tree_leaves(tree, is_leaf=None):
    return _tree_flatten(tree, is_leaf)[0]


tree_util = module_with(
    jax.tree_util, __name__ + ".tree_util", tree_flatten=_tree_flatten, tree_leaves=_tree_leaves
)
