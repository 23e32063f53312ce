"""Lowering rules of the special functions XLA has no operation for: bessel_i0e, igamma, igammac,
igamma_grad_a, random_gamma_grad and random_gamma_grad_da (stage 05).

Their eager evaluation is NumPy in float64 (lax/special.py, lax/incomplete_gamma.py), which
cannot be staged. So this module writes the same methods again with lax operations, and each rule
stages them (``lower_fun``): a fixed number of terms where that is enough (bessel_i0e), while
loops that run until every element has converged for the incomplete gamma function's series and
continued fraction. They compute in the operands' dtype (float32 for the 16-bit floats), as XLA's
own expansions do, so float32 results agree with eager's correctly rounded ones to about 1e-5
relative, less where a result is a small difference (Q = 1 - P near P = 1).

The derivatives in a come from the same sums differentiated term by term in forward mode: the
eager code's ``_Jet`` (a value with its derivatives, and Leibniz's rule for * and /) works on
staged values as it does on NumPy arrays, since it uses nothing but Python's arithmetic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..lax.incomplete_gamma import (
    _Jet,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    random_gamma_grad_da_p,
    random_gamma_grad_p,
)
from ..lax.special import bessel_i0e_p
from .core import lower_fun, lowering_rules

_SERIES_STEPS = 2000  # a bound on the series' steps (it converges long before, once a + n > x)
_FRACTION_STEPS = 2000  # XLA's limit for the continued fraction


def _working(fn: Any) -> Any:
    """``fn`` on operands broadcast together and, for 16-bit floats, widened to float32; its
    result in the operands' dtype."""

    def run(*xs: Any, **params: Any) -> Any:
        dtype = xs[0].dtype
        shape = np.broadcast_shapes(*(x.shape for x in xs))
        work = np.float32 if np.dtype(dtype).itemsize < 4 else dtype
        xs = [jnp.broadcast_to(lax.convert_element_type(x, work), shape) for x in xs]
        return lax.convert_element_type(fn(*xs, **params), dtype)

    return run


# ----------------------------------------------------------------------------------------------
# bessel_i0e: the eager method (a power series up to |x| = 20, an asymptotic series beyond),
# with its fixed numbers of terms.

_I0E_SERIES_UP_TO = 20.0
_I0E_SERIES_TERMS = 40
_I0E_ASYMPTOTIC_TERMS = 30


def bessel_i0e(x: Any) -> Any:
    """exp(-|x|) I0(x): I0's series sum_k (x^2/4)^k / (k!)^2, or 1/sqrt(2 pi x) sum_k
    ((2k-1)!!)^2 / (k! (8x)^k) past 20; both summed from the smallest term (Horner's rule)."""
    ax = jnp.abs(x)
    small = ax <= _I0E_SERIES_UP_TO
    s = jnp.where(small, ax, 0.0)
    t = s * s / 4
    total = jnp.ones_like(ax)
    for k in range(_I0E_SERIES_TERMS, 0, -1):
        total = 1 + total * (t / (k * k))
    series = total * jnp.exp(-s)
    b = jnp.where(small, 2 * _I0E_SERIES_UP_TO, ax)  # a stand-in where the series is used
    u = 1 / (8 * b)
    total = jnp.ones_like(ax)
    for k in range(_I0E_ASYMPTOTIC_TERMS, 0, -1):
        total = 1 + total * ((2 * k - 1) ** 2 * u / k)
    return jnp.where(small, series, total / jnp.sqrt(2 * np.pi * b))


# ----------------------------------------------------------------------------------------------
# The incomplete gamma function: Cephes' and XLA's method, as in lax/incomplete_gamma.py. Every
# element runs both sums; the one its branch does not use gets harmless stand-in operands, and an
# element that has converged keeps its sum while the others go on.


def _variable(a: Any, order: int) -> _Jet:
    """a with its derivatives 1, 0, ... up to ``order``."""
    return _Jet([a, jnp.ones_like(a), *[jnp.zeros_like(a)] * (order - 1)][: order + 1])


def _const(like: Any, c: float, order: int) -> _Jet:
    return _Jet([jnp.full_like(like, c), *[jnp.zeros_like(like)] * order])


def _where(mask: Any, u: _Jet, v: _Jet) -> _Jet:
    return _Jet([jnp.where(mask, p, q) for p, q in zip(u.parts, v.parts)])


def _converged(change: _Jet, total: _Jet, before: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Where ``change`` no longer moves ``total`` in any part: below eps of it, or (rounding noise
    in a derivative) below sqrt(eps) of it and no smaller than the change before."""
    eps = float(jnp.finfo(change.parts[0].dtype).eps)
    sizes = tuple(jnp.abs(c) for c in change.parts)
    done = None
    for size, t, b in zip(sizes, total.parts, before):
        scale = jnp.abs(t)
        part = (size <= eps * scale) | ((size <= np.sqrt(eps) * scale) & (size >= b))
        done = part if done is None else done & part
    return done, sizes


def _lower_series(a: _Jet, x: Any, order: int) -> _Jet:
    """S = sum_n x^n / ((a+1)...(a+n)), with its derivatives in a, each element until converged."""

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        steps, done, r, term, total, before = state
        r = _Jet(r) + 1.0
        term = _Jet(term) * x / r
        new_total = _Jet(total) + term
        converged, before = _converged(term, new_total, before)
        total = _where(done, _Jet(total), new_total)
        return steps + 1, done | converged, r.parts, term.parts, total.parts, before

    one = _const(x, 1.0, order)
    inf = tuple(jnp.full_like(x, np.inf) for _ in range(order + 1))
    start = (0, jnp.zeros(x.shape, bool), a.parts, one.parts, one.parts, inf)
    cond = lambda s: (s[0] < _SERIES_STEPS) & ~jnp.all(s[1])  # noqa: E731
    return _Jet(lax.while_loop(cond, body, start)[4])


def _upper_fraction(a: _Jet, x: Any, order: int) -> _Jet:
    """F, Q's continued fraction (Cephes' igamc), with its derivatives in a: convergents p_k / q_k,
    rescaled by eps when they grow large, for each element until converged or for 2000 steps."""
    eps = float(jnp.finfo(x.dtype).eps)

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        c, done, y, z, p1, q1, p2, q2, ans, before = state
        y, z = _Jet(y) + 1.0, _Jet(z) + 2.0
        yc = y * lax.convert_element_type(c, x.dtype)
        p, q = _Jet(p1) * z - _Jet(p2) * yc, _Jet(q1) * z - _Jet(q2) * yc
        nonzero = q.parts[0] != 0
        new = _where(nonzero, p / _where(nonzero, q, _const(x, 1.0, order)), _Jet(ans))
        converged, before = _converged(new - _Jet(ans), new, before)
        ans = _where(done, _Jet(ans), new)
        scale = jnp.where(jnp.abs(p.parts[0]) > 1 / eps, eps, 1.0)
        p2, q2, p1, q1 = _Jet(p1) * scale, _Jet(q1) * scale, p * scale, q * scale
        return (c + 1, done | (nonzero & converged), y.parts, z.parts, p1.parts, q1.parts, p2.parts, q2.parts,
                ans.parts, before)  # fmt: skip

    y = 1.0 - a
    z = y + x + 1.0
    p2, q2 = _const(x, 1.0, order), _Jet([x, *[jnp.zeros_like(x)] * order])
    p1, q1 = _Jet([x + 1.0, *[jnp.zeros_like(x)] * order]), z * x
    inf = tuple(jnp.full_like(x, np.inf) for _ in range(order + 1))
    start = (1, jnp.zeros(x.shape, bool), y.parts, z.parts, p1.parts, q1.parts, p2.parts, q2.parts,
             (p1 / q1).parts, inf)  # fmt: skip
    cond = lambda s: (s[0] <= _FRACTION_STEPS) & ~jnp.all(s[1])  # noqa: E731
    return _Jet(lax.while_loop(cond, body, start)[8])


def _log_prefactor(a: Any, x: Any, order: int, shift: Any) -> _Jet:
    """lp = a log x - x - lgamma(a + shift) and its derivatives in a: log x - digamma(a + shift),
    then -polygamma(k - 1, a + shift)."""
    log_x, b = jnp.log(x), a + shift
    parts = [a * log_x - x - lax.lgamma(b), log_x - lax.digamma(b)][: order + 1]
    parts += [-lax.polygamma(jnp.full_like(b, k - 1), b) for k in range(2, order + 1)]
    return _Jet(parts)


def _regular(a: Any, x: Any) -> Any:
    return (a > 0) & (a < np.inf) & (x > 0) & (x < np.inf)


def _sum(a: Any, x: Any, order: int, fraction: Any) -> tuple[_Jet, _Jet]:
    """(lp, U) with Q = e^lp U where ``fraction`` (U Q's fraction) and P = e^lp U elsewhere (U the
    series, lp with Gamma(a + 1)), each with its derivatives in a up to ``order``; the elements
    outside the regular domain get stand-ins (their results are replaced by the callers)."""
    ok = _regular(a, x)
    a = jnp.where(ok, a, 1.0)
    x = jnp.where(ok, x, 1.0)
    series_a, series_x = jnp.where(fraction, 1.0, a), jnp.where(fraction, 0.5, x)
    fraction_a, fraction_x = jnp.where(fraction, a, 1.0), jnp.where(fraction, x, 2.0)
    series = _lower_series(_variable(series_a, order), series_x, order)
    continued = _upper_fraction(_variable(fraction_a, order), fraction_x, order)
    lp = _log_prefactor(a, x, order, jnp.where(fraction, 0.0, 1.0))
    return lp, _where(fraction, continued, series)


def _undefined(a: Any, x: Any) -> Any:
    return (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | jnp.isnan(a) | jnp.isnan(x)


def _p_and_q(a: Any, x: Any, fraction: Any) -> tuple[Any, Any]:
    lp, u = _sum(a, x, 0, fraction)
    scaled = jnp.exp(lp.parts[0]) * u.parts[0]
    ok = _regular(a, x)
    p = jnp.where(ok, jnp.where(fraction, 1 - scaled, scaled), np.nan)
    q = jnp.where(ok, jnp.where(fraction, scaled, 1 - scaled), np.nan)
    return p, q


def igamma(a: Any, x: Any) -> Any:
    """P(a, x), with eager's edges: 0 at x = 0, 1 at x = inf, for a = 0 1 where x >= 1."""
    p, _ = _p_and_q(a, x, (x >= 1) & (x > a))
    p = jnp.where((a == 0) & (x >= 1), 1.0, p)
    p = jnp.where(x == 0, 0.0, p)
    p = jnp.where(x == np.inf, 1.0, p)
    return jnp.where(_undefined(a, x), np.nan, p)


def igammac(a: Any, x: Any) -> Any:
    """Q(a, x) = 1 - P(a, x): 1 at x = 0, 0 at x = inf and at a = 0."""
    _, q = _p_and_q(a, x, (x >= 1) & (x >= a))
    q = jnp.where(x == 0, 1.0, q)
    q = jnp.where((x == np.inf) | (a == 0), 0.0, q)
    return jnp.where(_undefined(a, x), np.nan, q)


def _with_derivative_edges(a: Any, x: Any, values: Any) -> Any:
    """0 at x = 0, nan outside the domain of the derivatives (a <= 0, x < 0, nan, infinities)."""
    out = jnp.where(_regular(a, x), values, np.nan)
    out = jnp.where(x == 0, 0.0, out)
    return jnp.where((x < 0) | (a <= 0) | jnp.isnan(a) | jnp.isnan(x), np.nan, out)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """dP/da = e^lp (lp' U + U'), negated where U is Q's fraction."""
    fraction = (x > 1) & (x > a)
    lp, u = _sum(a, x, 1, fraction)
    dp = jnp.exp(lp.parts[0]) * (lp.parts[1] * u.parts[0] + u.parts[1])
    return _with_derivative_edges(a, x, jnp.where(fraction, -dp, dp))


def random_gamma_grad_da(a: Any, x: Any, *, order: int) -> Any:
    """The ``order``-th derivative in a of g = dx/da for a Gamma(a) sample x at fixed CDF (order 0:
    g itself): x w next to the fraction, -x w / a next to the series, w = lp' U + U' (see
    lax/incomplete_gamma.py's _sample_derivative)."""
    fraction = (x > 1) & (x > a)
    lp, u = _sum(a, x, order + 1, fraction)
    w = lp.derivative() * u.truncated() + u.derivative()
    a_ok = jnp.where(_regular(a, x), a, 1.0)
    g = _where(fraction, w * x, -(w / _variable(a_ok, order)) * x)
    return _with_derivative_edges(a, x, g.parts[order])


lowering_rules.update({
    bessel_i0e_p: lower_fun(_working(bessel_i0e)),
    igamma_p: lower_fun(_working(igamma)),
    igammac_p: lower_fun(_working(igammac)),
    igamma_grad_a_p: lower_fun(_working(igamma_grad_a)),
    random_gamma_grad_p: lower_fun(_working(lambda a, x: random_gamma_grad_da(a, x, order=0))),
    random_gamma_grad_da_p: lower_fun(_working(random_gamma_grad_da)),
})  # fmt: skip
