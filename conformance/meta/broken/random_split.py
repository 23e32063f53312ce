"""jax, except that random.split returns its new keys in reverse order (each key is right, the
order is not)."""

import jax
from jax import config, dtypes, lax, numpy, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _split(key, num=2):
    return jax.random.split(key, num)[::-1]


random = module_with(jax.random, __name__ + ".random", split=_split)
