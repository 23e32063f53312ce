"""Build a broken implementation out of real jax: copy one of its modules and replace a few names."""

from __future__ import annotations

import types
from typing import Any


def module_with(base: types.ModuleType, name: str, **replacements: Any) -> types.ModuleType:
    """A new module holding everything `base` holds, except `replacements`."""
    copy = types.ModuleType(name, base.__doc__)
    copy.__dict__.update(
        {k: v for k, v in vars(base).items() if k not in ("__name__", "__spec__", "__loader__")}
    )
    copy.__dict__.update(replacements)
    return copy
