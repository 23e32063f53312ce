"""jax, except that jnp.maximum marks every result weakly typed and jnp.reshape every result strongly
typed: the dtypes and values are right, only the weak type is wrong."""

import jax
from jax import config, dtypes, lax, numpy_dtype_promotion, tree_util  # noqa: F401
from jax._src.lax import lax as lax_internal

from conformance.meta.broken._jax_like import module_with

__capabilities__ = ("eval",)


def _with_weak_type(x, weak: bool):
    return lax_internal._convert_element_type(x, x.dtype, weak_type=weak)


def _maximum(x, y, /):
    return _with_weak_type(jax.numpy.maximum(x, y), True)


def _reshape(a, shape=None, order="C", *, copy=None, **kwargs):
    return _with_weak_type(jax.numpy.reshape(a, shape, order, copy=copy, **kwargs), False)


numpy = module_with(jax.numpy, __name__ + ".numpy", maximum=_maximum, reshape=_reshape)
