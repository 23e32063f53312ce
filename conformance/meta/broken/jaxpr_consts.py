"""jax, except that make_jaxpr stages only what depends on its arguments: operations on constants
run at once (omnistaging off), so ``jnp.ones(1000)`` inside the function is a constant of the jaxpr."""

import jax
import jax.extend.core
from jax import config, core, dtypes, errors, eval_shape, extend, jvp, lax, numpy, numpy_dtype_promotion  # noqa: F401
from jax import random, tree_util, vmap, ShapeDtypeStruct  # noqa: F401

__capabilities__ = ("eval", "jvp", "vmap", "jaxpr")


def make_jaxpr(fun, *args, **kwargs):
    def eager_constants(*a, **k):
        with jax.ensure_compile_time_eval():
            return fun(*a, **k)

    return jax.make_jaxpr(eager_constants, *args, **kwargs)
