"""didax.scipy: the part of jax.scipy that stage 01 has, ``special``. Stage 01 introduced it."""

from . import special

__all__ = ["special"]
