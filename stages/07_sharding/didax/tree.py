"""``didax.tree``: the pytree functions under short names (``didax.tree.map``), as in ``jax.tree``.

Stage 01 introduced it. Each name is the ``tree_util`` function of the same meaning; only ``static``
is new here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .tree_util import tree_all as all
from .tree_util import tree_broadcast as broadcast
from .tree_util import tree_flatten as flatten
from .tree_util import tree_flatten_with_path as flatten_with_path
from .tree_util import tree_leaves as leaves
from .tree_util import tree_leaves_with_path as leaves_with_path
from .tree_util import tree_map as map
from .tree_util import tree_map_with_path as map_with_path
from .tree_util import tree_reduce as reduce
from .tree_util import tree_reduce_associative as reduce_associative
from .tree_util import tree_structure as structure
from .tree_util import tree_transpose as transpose
from .tree_util import tree_unflatten as unflatten

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]


def static(**kwargs: Any) -> Any:
    """``dataclasses.field(**kwargs)`` marked static, so ``register_dataclass`` makes it aux data."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
