"""jax, except that jit's results lose their weak types: a Python scalar's result comes back as a
strongly typed array (as a cache or a lowering that ignores weak types would give it)."""

import jax
from jax import config, dtypes, errors, lax, numpy, numpy_dtype_promotion, random, tree_util  # noqa: F401
from jax import block_until_ready, device_get, device_put, devices  # noqa: F401

__capabilities__ = ("eval", "jit")


def _strong(x):
    return lax.convert_element_type(x, x.dtype) if getattr(x, "weak_type", False) else x


def jit(fun, **kwargs):
    return jax.jit(lambda *a, **k: jax.tree_util.tree_map(_strong, fun(*a, **k)), **kwargs)
