"""didax.scipy.special: special functions as jax.scipy.special has them. Integer and boolean
inputs become the default float, as in JAX; each function is a lax primitive or a few.
Stage 01 introduced it.
"""

from __future__ import annotations

from .. import lax
from .. import numpy as jnp
from ..nn.functions import logsumexp, promote_inexact
from ..numpy.util import ArrayLike


def erf(x: ArrayLike) -> ArrayLike:
    """The error function 2/sqrt(pi) * integral from 0 to x of exp(-t**2) dt."""
    (x,) = promote_inexact("erf", x)
    return lax.erf(x)


def erfc(x: ArrayLike) -> ArrayLike:
    """The complementary error function 1 - erf(x), accurate where erf(x) is near 1."""
    (x,) = promote_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x: ArrayLike) -> ArrayLike:
    """The inverse of erf on (-1, 1)."""
    (x,) = promote_inexact("erfinv", x)
    return lax.erf_inv(x)


def gammaln(x: ArrayLike) -> ArrayLike:
    """log|Gamma(x)|."""
    (x,) = promote_inexact("gammaln", x)
    return lax.lgamma(x)


def digamma(x: ArrayLike) -> ArrayLike:
    """The logarithmic derivative of Gamma: Gamma'(x) / Gamma(x)."""
    (x,) = promote_inexact("digamma", x)
    return lax.digamma(x)


def xlogy(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """x * log(y), and 0 where x is 0 (whatever y is)."""
    x, y = promote_inexact("xlogy", x, y)
    x_ok = x != 0.0
    safe_x, safe_y = jnp.where(x_ok, x, 1.0), jnp.where(x_ok, y, 1.0)
    return jnp.where(x_ok, lax.mul(safe_x, lax.log(safe_y)), jnp.zeros_like(x))


def xlog1py(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """x * log1p(y), and 0 where x is 0 (whatever y is)."""
    x, y = promote_inexact("xlog1py", x, y)
    x_ok = x != 0.0
    safe_x, safe_y = jnp.where(x_ok, x, 1.0), jnp.where(x_ok, y, 0.0)
    return jnp.where(x_ok, lax.mul(safe_x, lax.log1p(safe_y)), jnp.zeros_like(x))


def expit(x: ArrayLike) -> ArrayLike:
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    (x,) = promote_inexact("expit", x)
    return lax.logistic(x)


def logit(x: ArrayLike) -> ArrayLike:
    """The inverse of expit: log(x / (1 - x))."""
    (x,) = promote_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(lax.full_like(x, 1), x)))


__all__ = ["digamma", "erf", "erfc", "erfinv", "expit", "gammaln", "logit", "logsumexp", "xlog1py", "xlogy"]
