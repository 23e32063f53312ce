"""The regularized incomplete gamma functions as lax primitives: igamma, P(a, x) = gamma(a, x) / Gamma(a),
igammac, Q(a, x) = 1 - P(a, x), and two derivatives in a: igamma_grad_a, dP/da, and random_gamma_grad,
the derivative of a Gamma(a) sample with respect to a. Stage 01 introduced them.

The method is Cephes' and XLA's: where x <= 1 or x <= a, P's power series; elsewhere Q's continued
fraction (each converges fast on its side), both times the prefactor x^a e^-x / Gamma(a), taken
through its logarithm. The derivatives in a come from the same sums, differentiated term by term in
forward mode (XLA does the same), here by a small class that carries derivatives through the
arithmetic. Everything is computed in float64 and rounded once to the operands' dtype; the special
values (nan, 0 and 1 at the edges of the domain) are JAX's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import ShapedArray
from .elementwise import binop
from .special import digamma_f64, lgamma_f64, polygamma_f64
from .standard import FLOATING, broadcasting_shape, check_dtype, check_same_dtypes, standard_primitive

_EPS = float(np.finfo(np.float64).eps)
_FRACTION_STEPS = 2000  # XLA's limit for the continued fraction; the series runs until it converges
_NOISE = 1e-8  # a relative change below this that stops shrinking is rounding noise

Value = Any  # an array of values, or a _Jet of them and their derivatives


class _Jet:
    """A function of a and its first derivatives in a, (f, f', f'', ...), each a float64 array of one
    shape. It has the arithmetic the series and the continued fraction need (+, -, *, / by Leibniz's
    rule), so the code that sums them sums their derivatives too: forward-mode differentiation, as in
    stage 02, done by hand on NumPy arrays. A plain array in the arithmetic is a constant."""

    __array_ufunc__ = None  # `array / jet` is the jet's __rtruediv__, not NumPy's object arithmetic

    def __init__(self, parts: Sequence[np.ndarray]) -> None:
        self.parts = tuple(parts)

    @staticmethod
    def variable(a: np.ndarray, order: int) -> _Jet:
        """a itself, with its derivatives 1, 0, ... up to ``order``."""
        return _Jet([a, np.ones_like(a), *[np.zeros_like(a)] * (order - 1)][: order + 1])

    def derivative(self) -> _Jet:
        """f' with its derivatives: one order fewer."""
        return _Jet(self.parts[1:])

    def truncated(self) -> _Jet:
        """f with one derivative fewer."""
        return _Jet(self.parts[:-1])

    def __add__(self, other: Any) -> _Jet:
        if isinstance(other, _Jet):
            return _Jet([p + q for p, q in zip(self.parts, other.parts)])
        return _Jet([self.parts[0] + other, *self.parts[1:]])

    __radd__ = __add__

    def __neg__(self) -> _Jet:
        return _Jet([-p for p in self.parts])

    def __sub__(self, other: Any) -> _Jet:
        return self + -other

    def __rsub__(self, other: Any) -> _Jet:
        return -self + other

    def __mul__(self, other: Any) -> _Jet:
        if not isinstance(other, _Jet):
            return _Jet([p * other for p in self.parts])
        return _Jet([_leibniz(self.parts, other.parts, k) for k in range(len(self.parts))])

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> _Jet:
        if not isinstance(other, _Jet):
            return _Jet([p / other for p in self.parts])
        f, g, h = self.parts, other.parts, []
        for k in range(len(f)):  # h = f / g, so f = g h: solve Leibniz's rule for h^(k)
            h.append((f[k] - _leibniz(g, h, k, first=1)) / g[0] if k else f[0] / g[0])
        return _Jet(h)

    def __rtruediv__(self, other: Any) -> _Jet:
        return _constant(self, other) / self

    def __getitem__(self, index: Any) -> _Jet:
        return _Jet([p[index] for p in self.parts])


def _leibniz(f: Sequence[np.ndarray], g: Sequence[np.ndarray], k: int, first: int = 0) -> np.ndarray:
    """sum_j C(k, j) f^(j) g^(k-j) for j = first, ..., k: from j = 0, the k-th derivative of f g."""
    terms = [f[j] * g[k - j] if j in (0, k) else math.comb(k, j) * f[j] * g[k - j] for j in range(first, k + 1)]
    return terms[0] if len(terms) == 1 else sum(terms[1:], terms[0])


def _parts(v: Value) -> tuple[np.ndarray, ...]:
    return v.parts if isinstance(v, _Jet) else (v,)


def _constant(like: Value, c: Any) -> Value:
    """The constant c, shaped as ``like`` (and a jet of its order, if it is one)."""
    zero = np.zeros_like(_parts(like)[0])
    return _Jet([zero + c, *[zero] * (len(like.parts) - 1)]) if isinstance(like, _Jet) else zero + c


def _where(mask: np.ndarray, u: Value, v: Value) -> Value:
    parts = [np.where(mask, p, q) for p, q in zip(_parts(u), _parts(v))]
    return _Jet(parts) if isinstance(u, _Jet) else parts[0]


def _converged(change: Value, total: Value, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ``change`` no longer moves ``total``, in every part: below eps of it (XLA's test), or
    below 1e-8 of it and no smaller than the change ``before`` (one row per part), which makes it
    rounding noise: derivatives computed through quotients carry more of it than eps, and a value
    may keep changing in its last bit. Also the sizes of the change, the next ``before``."""
    sizes = np.abs(np.stack(_parts(change)))
    scale = np.abs(np.stack(_parts(total)))
    done = (sizes <= _EPS * scale) | ((sizes <= _NOISE * scale) & (sizes >= before))
    return np.logical_and.reduce(done, axis=0), sizes


def _store(out: list[np.ndarray], index: np.ndarray, v: Value, which: np.ndarray) -> None:
    """out[k][index] = the k-th part of v where ``which``."""
    for o, p in zip(out, _parts(v)):
        o[index] = p[which]


def _lower_series(a: Value, x: np.ndarray) -> list[np.ndarray]:
    """S = sum_n x^n / ((a+1)(a+2)...(a+n)) over n >= 0, P's series, with its derivatives in a; term by
    term, each element until its terms no longer change its sum (_converged; they shrink at least
    geometrically once a + n > x). Elements that are done leave the arrays, so a slow one costs only itself."""
    out = [np.empty_like(x) for _ in _parts(a)]
    left = np.arange(x.size)  # the elements still summing
    r, term = a, _constant(a, 1.0)
    total, before = term, np.full((len(out), x.size), np.inf)
    while left.size:
        r = r + 1.0
        term = term * x / r
        total = total + term
        done, before = _converged(term, total, before)
        if done.any():
            _store(out, left[done], total, done)
            keep = ~done
            left, x, r, term, total, before = left[keep], x[keep], r[keep], term[keep], total[keep], before[:, keep]
    return out


def _upper_fraction(a: Value, x: np.ndarray) -> list[np.ndarray]:
    """F, Q's continued fraction (Cephes' igamc), with its derivatives in a: the convergents p_k / q_k
    of 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))), each element until
    they stop changing it, or for XLA's 2000 steps. p and q grow without bound; when they get large,
    all four kept are scaled by eps (their ratios are what count)."""
    out = [np.empty_like(x) for _ in _parts(a)]
    left = np.arange(x.size)
    y = 1.0 - a
    z = y + x + 1.0
    p2, q2 = _constant(a, 1.0), _constant(a, x)  # p_(k-2), q_(k-2)
    p1, q1 = _constant(a, x + 1.0), z * x  # p_(k-1), q_(k-1)
    ans, before = p1 / q1, np.full((len(out), x.size), np.inf)
    for c in range(1, _FRACTION_STEPS + 1):
        if not left.size:
            break
        y, z = y + 1.0, z + 2.0
        yc = y * float(c)
        p, q = p1 * z - p2 * yc, q1 * z - q2 * yc
        nonzero = _parts(q)[0] != 0
        new = _where(nonzero, p / _where(nonzero, q, _constant(q, 1.0)), ans)
        converged, before = _converged(new - ans, new, before)
        done, ans = nonzero & converged, new
        big = np.abs(_parts(p)[0]) > 1 / _EPS
        scale = np.where(big, _EPS, 1.0)
        p2, q2, p1, q1 = p1 * scale, q1 * scale, p * scale, q * scale
        if c == _FRACTION_STEPS:
            done = np.ones_like(done)
        if done.any():
            _store(out, left[done], ans, done)
            keep = ~done
            left, x, y, z, before = left[keep], x[keep], y[keep], z[keep], before[:, keep]
            ans, p1, q1, p2, q2 = ans[keep], p1[keep], q1[keep], p2[keep], q2[keep]
    return out


def _log_prefactor(a: np.ndarray, x: np.ndarray, order: int, shift: np.ndarray) -> list[np.ndarray]:
    """lp = a log x - x - lgamma(a + shift), the log of x^a e^-x / Gamma(a + shift), and its
    derivatives in a up to ``order``: log x - digamma(a + shift), then -polygamma(k - 1, a + shift)."""
    log_x, b = np.log(x), a + shift
    parts = [a * log_x - x - lgamma_f64(b), log_x - digamma_f64(b)][: order + 1]
    return parts + [-polygamma_f64(np.full_like(b, k - 1), b) for k in range(2, order + 1)]


def _sum(a: np.ndarray, x: np.ndarray, order: int, fraction: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """lp and U, each with its derivatives in a up to ``order``, such that Q = e^lp U where
    ``fraction`` (U = F, the continued fraction; the prefactor x^a e^-x / Gamma(a)) and P = e^lp U
    elsewhere (U = S, the series; x^a e^-x / Gamma(a + 1), which has S / a's 1/a inside, so that the
    derivatives of a tiny a do not cancel two huge terms)."""
    a_jet = _Jet.variable(a, order) if order else a  # values alone go fastest as plain arrays
    series = _lower_series(a_jet[~fraction], x[~fraction])
    continued = _upper_fraction(a_jet[fraction], x[fraction])
    u = [np.empty_like(x) for _ in range(order + 1)]
    for o, s, f in zip(u, series, continued):
        o[~fraction], o[fraction] = s, f
    return _log_prefactor(a, x, order, np.where(fraction, 0.0, 1.0)), u


def _regular(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Where the sums are needed: a and x positive and finite (false for nan)."""
    return (a > 0) & (a < np.inf) & (x > 0) & (x < np.inf)


def _undefined(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """JAX's domain error for P and Q: nan."""
    return (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | np.isnan(a) | np.isnan(x)


def _derivative_undefined(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """JAX's domain error for the derivatives in a, which need a > 0: nan."""
    return (x < 0) | (a <= 0) | np.isnan(a) | np.isnan(x)


def _p_and_q(a: np.ndarray, x: np.ndarray, fraction_if: Any) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) on the regular elements of a and x, nan elsewhere; ``fraction_if(a, x)`` says where
    Q's fraction is used (XLA's two functions choose differently where x = 1)."""
    p, q = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    ok = _regular(a, x)
    a, x = a[ok], x[ok]
    fraction = fraction_if(a, x)
    (lp,), (u,) = _sum(a, x, 0, fraction)
    scaled = np.exp(lp) * u
    p[ok] = np.where(fraction, 1 - scaled, scaled)
    q[ok] = np.where(fraction, scaled, 1 - scaled)
    return p, q


def igamma_f64(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) on flat float64 arrays: 0 at x = 0, 1 at x = inf, nan outside the domain; for a = 0, 1
    where x >= 1 and nan where x < 1, as in JAX."""
    p, _ = _p_and_q(a, x, lambda a, x: (x >= 1) & (x > a))
    p = np.where((a == 0) & (x >= 1), 1.0, p)
    p = np.where(x == 0, 0.0, p)
    p = np.where(x == np.inf, 1.0, p)
    return np.where(_undefined(a, x), np.nan, p)


def igammac_f64(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) = 1 - P(a, x) on flat float64 arrays: 1 at x = 0, 0 at x = inf and at a = 0, nan
    outside the domain, as in JAX."""
    _, q = _p_and_q(a, x, lambda a, x: (x >= 1) & (x >= a))
    q = np.where(x == 0, 1.0, q)
    q = np.where((x == np.inf) | (a == 0), 0.0, q)
    return np.where(_undefined(a, x), np.nan, q)


def _derivative(a: np.ndarray, x: np.ndarray, order: int) -> tuple[np.ndarray, ...]:
    """On the regular elements of a and x: a, x, lp and U of _sum, each with its derivatives in a up
    to ``order``, and where Q's fraction was used (XLA's choice for the derivatives)."""
    ok = _regular(a, x)
    a, x = a[ok], x[ok]
    fraction = (x > 1) & (x > a)
    return ok, a, x, *_sum(a, x, order, fraction), fraction


def _with_derivative_edges(a: np.ndarray, x: np.ndarray, ok: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` on the regular elements; 0 at x = 0 and nan outside the domain, as in JAX (also nan
    at a = inf or x = inf, where JAX's sums give nan)."""
    out = np.full(a.shape, np.nan)
    out[ok] = values
    out = np.where(x == 0, 0.0, out)
    return np.where(_derivative_undefined(a, x), np.nan, out)


def igamma_grad_a_f64(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dP/da on flat float64 arrays: (e^lp U)' = e^lp (lp' U + U'), negated where U is Q's fraction."""
    ok, _, _, lp, u, fraction = _derivative(a, x, 1)
    dp = np.exp(lp[0]) * (lp[1] * u[0] + u[1])
    return _with_derivative_edges(a, x, ok, np.where(fraction, -dp, dp))


def _sample_derivative(a: np.ndarray, x: np.ndarray, order: int) -> np.ndarray:
    """The derivative in a of a sample x from Gamma(a, 1) whose CDF P(a, x) is held fixed (implicit
    reparameterization), g = dx/da = -(dP/da) / (dP/dx), and then its ``order``-th partial derivative in
    a (x held fixed), on flat float64 arrays. dP/dx is the density x^(a-1) e^-x / Gamma(a): e^lp / x
    next to the fraction, e^lp a / x next to the series. The prefactor e^lp cancels, so g = x w next
    to the fraction and -x w / a next to the series, with w = lp' U + U': accurate even where e^lp
    underflows. Its derivatives in a are w's as a jet, from the sums' jets one order longer."""
    ok, a_ok, x_ok, lp, u, fraction = _derivative(a, x, order + 1)
    lp, u = _Jet(lp), _Jet(u)
    w = lp.derivative() * u.truncated() + u.derivative()
    g = _where(fraction, w * x_ok, -(w / _Jet.variable(a_ok, order)) * x_ok)
    return _with_derivative_edges(a, x, ok, g.parts[order])


def random_gamma_grad_f64(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The derivative in a of a sample x from Gamma(a, 1), its CDF held fixed (see _sample_derivative)."""
    return _sample_derivative(a, x, 0)


# ----------------------------------------------------------------------------------------------
# The primitives: two float operands of one dtype, broadcast as lax broadcasts; computed in float64
# and rounded to that dtype.


def _in_float64(fn: Any) -> Any:
    """``fn`` on the flattened, broadcast operands in float64, rounded back to their dtype."""

    def numpy_fn(a: np.ndarray, x: np.ndarray, **params: Any) -> np.ndarray:
        a, x = np.broadcast_arrays(a, x)
        out = fn(a.astype(np.float64).ravel(), x.astype(np.float64).ravel(), **params)
        return out.reshape(a.shape).astype(a.dtype)

    numpy_fn.__name__ = fn.__name__
    return numpy_fn


igamma_p = binop("igamma", _in_float64(igamma_f64), (FLOATING,))
igammac_p = binop("igammac", _in_float64(igammac_f64), (FLOATING,))
igamma_grad_a_p = binop("igamma_grad_a", _in_float64(igamma_grad_a_f64), (FLOATING,))
# JAX has no primitive for these two: its random_gamma_grad is a composition of lax operations with
# while loops, which stage 01 cannot trace; didax makes it a primitive. Stage 02's JVP rules for it
# need its derivatives in a, of every order (JAX differentiates its loops as often as asked): the
# second primitive, whose parameter says which.
random_gamma_grad_p = binop("random_gamma_grad", _in_float64(random_gamma_grad_f64), (FLOATING,))


def _sample_derivative_dtype(a: ShapedArray, x: ShapedArray, *, order: int) -> np.dtype:
    if type(order) is not int or order < 1:
        raise ValueError(f"random_gamma_grad_da: order must be an int >= 1, got {order!r}")
    for position, aval in enumerate((a, x)):
        check_dtype("random_gamma_grad_da", aval, (FLOATING,), position=position)
    return check_same_dtypes("random_gamma_grad_da", [a, x])


random_gamma_grad_da_p = standard_primitive(
    "random_gamma_grad_da",
    _in_float64(_sample_derivative),
    lambda a, x, *, order: broadcasting_shape("random_gamma_grad_da", a, x),
    _sample_derivative_dtype,
)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function P(a, x)."""
    return igamma_p.bind(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """The derivative of igamma(a, x) with respect to a."""
    return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a: Any, x: Any) -> Any:
    """The derivative with respect to a of a sample x from Gamma(a, 1) (its CDF held fixed)."""
    return random_gamma_grad_p.bind(a, x)
