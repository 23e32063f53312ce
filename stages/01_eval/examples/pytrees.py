"""Stage 01, pytrees: nested containers flatten to a list of leaves and a structure.

Run from the stage folder: python -m examples.pytrees
"""

from collections import namedtuple

from didax import tree_util

leaves, treedef = tree_util.tree_flatten((1.0, {"b": 2.0, "a": 3.0}))
print(leaves, treedef)  # dict children come in sorted key order

Point = namedtuple("Point", ["x", "y"])
print(tree_util.tree_structure(Point(1, 2)))
print(tree_util.tree_leaves([None, None, None]))  # None is an empty node, not a leaf

doubled = tree_util.tree_map(lambda v: 2 * v, {"w": [1, 2], "b": 3})
print(doubled)
