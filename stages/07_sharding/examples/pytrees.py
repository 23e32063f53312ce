"""Stage 01, pytrees: nested containers flatten to a list of leaves and a structure.

Run from the stage folder: python -m examples.pytrees
"""

from collections import namedtuple

from didax import tree_util

print("Flattening a tuple that holds a dict gives its leaves, left to right, and its structure;")
print("the dict's children come in sorted key order, so 'a' (3.0) comes before 'b' (2.0):")
leaves, treedef = tree_util.tree_flatten((1.0, {"b": 2.0, "a": 3.0}))
print(leaves, treedef)

print()
print("A namedtuple is a node too, and its structure names the class:")
Point = namedtuple("Point", ["x", "y"])
print(tree_util.tree_structure(Point(1, 2)))

print()
print("None is an empty node, not a leaf, so a list of three Nones has no leaves (the [] is right):")
print(tree_util.tree_leaves([None, None, None]))

print()
print("tree_map applies a function to every leaf and keeps the structure (here, doubling):")
doubled = tree_util.tree_map(lambda v: 2 * v, {"w": [1, 2], "b": 3})
print(doubled)
