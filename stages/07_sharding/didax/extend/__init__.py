"""didax.extend: the internals JAX offers to people writing their own transformations, as
``jax.extend`` does. Stage 04 introduced it with ``didax.extend.core``: jaxprs and primitives."""

from . import core

__all__ = ["core"]
