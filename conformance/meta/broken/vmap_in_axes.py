"""jax, except that vmap reverses the order of the examples of an argument batched along an axis
other than 0 (a rule that is right at axis 0 and indexes the wrong way elsewhere)."""

import jax
from jax import config, core, dtypes, extend, lax, numpy, numpy_dtype_promotion, random, tree_util  # noqa: F401

__capabilities__ = ("eval", "jvp", "vmap", "jaxpr")


def vmap(fun, in_axes=0, out_axes=0, **kwargs):
    batched = jax.vmap(fun, in_axes=in_axes, out_axes=out_axes, **kwargs)
    if not isinstance(in_axes, tuple | list):
        return batched

    def wrong(*args):
        flipped = [numpy.flip(a, axis) if type(axis) is int and axis > 0 and hasattr(a, "ndim") else a
                   for a, axis in zip(args, in_axes)]  # fmt: skip
        return batched(*flipped, *args[len(flipped):])

    return wrong


jacfwd, jvp, make_jaxpr, eval_shape = jax.jacfwd, jax.jvp, jax.make_jaxpr, jax.eval_shape
