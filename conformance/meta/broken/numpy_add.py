"""jax, except that numpy.add is off: floats by a relative 1e-4 (hundreds of float32 ulps, below
the float16 and bfloat16 tolerances), integers by one."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _add(x, y):
    result = jax.numpy.add(x, y)
    if jax.numpy.issubdtype(result.dtype, jax.numpy.inexact):
        return result * (1 + 1e-4)
    return result if result.dtype == bool else result + 1


numpy = module_with(jax.numpy, __name__ + ".numpy", add=_add)
