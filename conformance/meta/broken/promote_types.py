"""jax, except that numpy.promote_types(bfloat16, float16) answers float16 (the table says float32)."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _promote_types(a, b):
    names = {jax.numpy.dtype(a).name, jax.numpy.dtype(b).name}
    if names == {"bfloat16", "float16"}:
        return jax.numpy.dtype("float16")
    return jax.numpy.promote_types(a, b)


numpy = module_with(jax.numpy, __name__ + ".numpy", promote_types=_promote_types)
