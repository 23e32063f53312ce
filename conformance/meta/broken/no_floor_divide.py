"""jax, except that numpy has no floor_divide: its tests must be reported as "missing: jnp.floor_divide",
the others must run (and pass)."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)

numpy = module_with(jax.numpy, __name__ + ".numpy")
del numpy.floor_divide
