"""jax, except that jit keeps no cache: every call traces the function again (its values are right)."""

import jax
from jax import config, dtypes, errors, lax, numpy, numpy_dtype_promotion, random, tree_util  # noqa: F401
from jax import block_until_ready, device_get, device_put, devices  # noqa: F401

__capabilities__ = ("eval", "jit")


def jit(fun, **kwargs):
    def call(*args, **kw):
        return jax.jit(lambda *a, **k: fun(*a, **k), **kwargs)(*args, **kw)

    return call
