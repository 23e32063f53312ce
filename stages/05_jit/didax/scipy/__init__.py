"""didax.scipy: the part of jax.scipy that stage 01 has, ``special`` and ``linalg``. Stage 01
introduced it."""

from . import linalg, special

__all__ = ["linalg", "special"]
