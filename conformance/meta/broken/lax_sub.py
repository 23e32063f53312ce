"""jax, except that lax.sub swaps its operands."""

import jax
from jax import config, dtypes, numpy, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)

lax = module_with(jax.lax, __name__ + ".lax", sub=lambda x, y: jax.lax.sub(y, x))
