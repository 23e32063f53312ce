"""jax, except that vmap counts a negative out_axes among the output's own dimensions, not the batched
output's (out_axes=-1 puts the batch axis before the last dimension instead of after it)."""

import jax
from jax import config, dtypes, lax, numpy, numpy_dtype_promotion, random, tree_util  # noqa: F401

__capabilities__ = ("eval", "jvp", "vmap")


def vmap(fun, in_axes=0, out_axes=0, **kwargs):
    if isinstance(out_axes, int) and out_axes < 0:
        out_axes -= 1
    return jax.vmap(fun, in_axes=in_axes, out_axes=out_axes, **kwargs)
