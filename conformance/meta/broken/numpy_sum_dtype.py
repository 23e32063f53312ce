"""jax, except that numpy.sum keeps the input dtype instead of accumulating small integers and bools in
the default int (NumPy-like thinking gone wrong)."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _sum(a, axis=None, dtype=None, keepdims=False, **kwargs):
    a = jax.numpy.asarray(a)
    return jax.numpy.sum(a, axis=axis, dtype=dtype or a.dtype, keepdims=keepdims, **kwargs)


numpy = module_with(jax.numpy, __name__ + ".numpy", sum=_sum)
