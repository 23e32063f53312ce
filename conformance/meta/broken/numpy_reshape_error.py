"""jax, except that jnp.reshape to the wrong size raises ValueError instead of JAX's TypeError."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def reshape(a, *args, **kwargs):
    try:
        return jax.numpy.reshape(a, *args, **kwargs)
    except TypeError as err:
        raise ValueError(str(err)) from None


numpy = module_with(jax.numpy, __name__ + ".numpy", reshape=reshape)
