"""didax.scipy.special: special functions as jax.scipy.special has them. Integer and boolean
inputs become the default float, as in JAX; each function is a lax primitive or a few.
Stage 01 introduced it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
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


def gammainc(a: ArrayLike, x: ArrayLike) -> ArrayLike:
    """The regularized lower incomplete gamma function, the integral of t**(a-1) e**-t from 0 to x
    divided by Gamma(a)."""
    a, x = promote_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a: ArrayLike, x: ArrayLike) -> ArrayLike:
    """The regularized upper incomplete gamma function, 1 - gammainc(a, x), accurate where that is tiny."""
    a, x = promote_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> ArrayLike:
    """The Hurwitz zeta function, the sum over k >= 0 of (q + k)**-x. As in JAX, q is required: the
    Riemann zeta function (q=None) is not implemented."""
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta function."
        )
    x, q = promote_inexact("zeta", x, q)
    return lax.zeta(x, q)


def polygamma(n: ArrayLike, x: ArrayLike) -> ArrayLike:
    """The n-th derivative of digamma; n must have an integer dtype (it is then promoted with x)."""
    n_dtype = dtypes.result_type(n)
    if not dtypes.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n, x = promote_inexact("polygamma", n, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("polygamma does not support complex-valued inputs.")
    return lax.polygamma(n, x)


def i1e(x: ArrayLike) -> ArrayLike:
    """The exponentially scaled modified Bessel function of order 1, exp(-|x|) * i1(x)."""
    (x,) = promote_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x: ArrayLike) -> ArrayLike:
    """The modified Bessel function of order 1, as JAX computes it: exp(|x|) * i1e(x), which
    overflows to inf beyond |x| = 709.78 (i1 itself does not until about 714)."""
    (x,) = promote_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def xlogy(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """x * log(y), and 0 where x is 0 (whatever y is but NaN, which goes through, as SciPy's)."""
    x, y = promote_inexact("xlogy", x, y)
    return _x_times_log(x, y, lax.log, 0.0)


def xlog1py(x: ArrayLike, y: ArrayLike) -> ArrayLike:
    """x * log1p(y), and 0 where x is 0 (whatever y is but NaN, which goes through, as SciPy's)."""
    x, y = promote_inexact("xlog1py", x, y)
    return _x_times_log(x, y, lax.log1p, -1.0)


def _x_times_log(x: Any, y: Any, log: Any, pole: float) -> Any:
    """``x * log(y)``, 0 where x is 0 and y is not NaN. Written so that the derivative in x at x = 0
    is log(y), as JAX's rule gives, wherever that is finite: there the value is ``0 + 0 * log(y)``
    (0, not -0), not a constant. Where x is 0 and log(y) would not be finite, log reads a safe 1."""
    keep = (x != 0.0) | lax.ne(y, y)  # x nonzero, or y NaN
    finite_log = (y > pole) & (y < jnp.inf)
    log_y = log(jnp.where(keep | finite_log, y, 1.0 if pole == 0.0 else 0.0))
    product = lax.mul(x, log_y)
    return jnp.where(keep, product, lax.add(jnp.zeros_like(x), product))


def expit(x: ArrayLike) -> ArrayLike:
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    (x,) = promote_inexact("expit", x)
    return lax.logistic(x)


def logit(x: ArrayLike) -> ArrayLike:
    """The inverse of expit: log(x / (1 - x))."""
    (x,) = promote_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(lax.full_like(x, 1), x)))


__all__ = [
    "digamma", "erf", "erfc", "erfinv", "expit", "gammainc", "gammaincc", "gammaln", "i1", "i1e", "logit",
    "logsumexp", "polygamma", "xlog1py", "xlogy", "zeta",
]
