"""jax, except that a treedef prints as `TreeDef(...)` instead of `PyTreeDef(...)`."""

import jax
from jax import config, dtypes, lax, numpy, numpy_dtype_promotion  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


class _TreeDef:
    """jax's treedef in every respect but its printed form."""

    def __init__(self, inner):
        self.inner = inner

    def __str__(self):
        return str(self.inner).replace("PyTreeDef", "TreeDef", 1)

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, _TreeDef) and self.inner == other.inner

    def __hash__(self):
        return hash(self.inner)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _tree_flatten(tree, is_leaf=None):
    leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=is_leaf)
    return leaves, _TreeDef(treedef)


tree_util = module_with(
    jax.tree_util,
    __name__ + ".tree_util",
    tree_flatten=_tree_flatten,
    tree_structure=lambda tree, is_leaf=None: _tree_flatten(tree, is_leaf)[1],
    tree_unflatten=lambda treedef, leaves: jax.tree_util.tree_unflatten(treedef.inner, leaves),
)
