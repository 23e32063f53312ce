"""Real jax that declares no capabilities at all: every test must be reported as not applicable."""

from jax import config, dtypes, lax, numpy, numpy_dtype_promotion, tree_util  # noqa: F401

__capabilities__ = ()
