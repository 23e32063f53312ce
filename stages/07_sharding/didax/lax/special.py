"""Special functions as lax primitives: erf, erfc, erf_inv, lgamma, digamma, polygamma, the Hurwitz
zeta function, bessel_i0e and bessel_i1e. Stage 01 introduced them.

NumPy has none of them, so their evaluation rules are written here, vectorized over whole arrays.
Each is computed in float64 and rounded once to the operand's dtype, so float32 and the 16-bit
floats get nearly correctly rounded results, and float64 ones are within a few ulps (about 1e-15
relative; absolute near a zero of the function). The exceptions are float32 erf and erf_inv, which
use XLA's own float32 formulas so that didax.random draws JAX's very numbers. The methods are the classic ones: a power series
where it converges fast, a continued fraction or an asymptotic series elsewhere, and a functional
equation (reflection, recurrence) to move an argument to where a series works.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .elementwise import binop, unop
from .standard import FLOATING
from .xla_float32 import erf_f32, erf_inv_f32

SQRT_PI = math.sqrt(math.pi)

# ----------------------------------------------------------------------------------------------
# erf and erfc. For |x| < 1.5 a power series; beyond, Laplace's continued fraction for erfc, which
# keeps erfc's small values accurate to the last bits (1 - erf(x) would lose them).

_SERIES_CUTOFF = 1.5
_SERIES_TERMS = 30  # the series' terms fall below 1e-25 of its sum at |x| = 1.5
_FRACTION_TERMS = 80  # the continued fraction's error falls below 1e-15 for x >= 1.5


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2x/sqrt(pi) exp(-x^2) sum_n (2x^2)^n / (1*3*...*(2n+1)): all terms positive, so no
    cancellation. Summed from the last term (Horner's rule), the smallest first."""
    x2 = x * x
    total = np.ones_like(x)
    for n in range(_SERIES_TERMS, 0, -1):
        total = 1 + total * (2 * x2 / (2 * n + 1))
    return 2 * x / SQRT_PI * np.exp(-x2) * total


def _exp_minus_square(x: np.ndarray) -> np.ndarray:
    """exp(-x^2) without the rounding error of x*x, which exp would blow up 700 times at x = 26:
    split x into a 24-bit head (whose square is exact in float64) and a small tail."""
    head = x.astype(np.float32).astype(np.float64)
    tail = x - head
    return np.exp(-head * head) * np.exp(-tail * (x + head))


def _erfc_fraction(x: np.ndarray) -> np.ndarray:
    """erfc(x) for x >= 1.5: exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))),
    evaluated from the bottom up, to a fixed depth."""
    x = np.minimum(x, 30.0)  # erfc(x) underflows to 0 beyond 27.3; this keeps inf out of the arithmetic
    f = x
    for k in range(_FRACTION_TERMS, 0, -1):
        f = x + (k / 2) / f
    return _exp_minus_square(x) / (SQRT_PI * f)


def erf_f64(x: np.ndarray) -> np.ndarray:
    """erf on a float64 array (erf(-x) = -erf(x); erf(+-inf) = +-1)."""
    ax = np.abs(x)
    small = ax < _SERIES_CUTOFF
    tail = np.copysign(1 - _erfc_fraction(np.where(small, _SERIES_CUTOFF, ax)), x)
    return np.where(small, _erf_series(np.where(small, x, 0.0)), tail)


def erfc_f64(x: np.ndarray) -> np.ndarray:
    """erfc = 1 - erf on a float64 array, accurate also where it is tiny (erfc(-x) = 2 - erfc(x))."""
    ax = np.abs(x)
    small = ax < _SERIES_CUTOFF
    upper = _erfc_fraction(np.where(small, _SERIES_CUTOFF, ax))
    tail = np.where(x < 0, 2 - upper, upper)
    return np.where(small, 1 - _erf_series(np.where(small, x, 0.0)), tail)


# ----------------------------------------------------------------------------------------------
# erf_inv: a rough first guess, then Halley's method on erf (or, near +-1, on erfc: 1 - |x| is
# exact there, while erf(y) - |x| would cancel away the digits that matter).


def _erf_inv_guess(ax: np.ndarray) -> np.ndarray:
    """Winitzki's closed-form approximation (2008), within 0.2% of erf_inv for 0 <= ax < 1."""
    a = 0.147
    log_1_minus_x2 = np.log1p(-ax) + np.log1p(ax)  # log(1 - x^2) without cancelling 1 - x^2
    t = 2 / (np.pi * a) + log_1_minus_x2 / 2
    return np.sqrt(np.sqrt(t * t - log_1_minus_x2 / a) - t)


def erf_inv_f64(x: np.ndarray) -> np.ndarray:
    """erf_inv on a float64 array: erf_inv(+-1) = +-inf, nan outside [-1, 1]."""
    ax = np.abs(x)
    near_one = ax > 0.5
    y = _erf_inv_guess(np.where(ax < 1, ax, 0.0))
    for _ in range(3):  # Halley's method triples the correct digits per step: 3e-3 -> 1e-8 -> 1e-16
        residual = np.where(near_one, (1 - ax) - erfc_f64(y), erf_f64(y) - ax)  # erf(y) - |x|
        step = residual / (2 / SQRT_PI * np.exp(-y * y))  # Newton's step; erf'' = -2y erf'
        y = y - step / (1 + y * step)
    y = np.where(ax == 1, np.inf, np.where(ax < 1, y, np.nan))
    return np.copysign(y, x)  # erf_inv is odd; keeps -0.0 and nan


# ----------------------------------------------------------------------------------------------
# lgamma and digamma: the recurrences Gamma(x+1) = x Gamma(x) and psi(x+1) = psi(x) + 1/x move x
# up to 10 or more, where Stirling's asymptotic series is accurate to 1e-18 with eight terms; the
# reflection formulas handle x < 1/2.

_ASYMPTOTIC_FROM = 10.0
# Bernoulli numbers B2, B4, ..., B16, which both asymptotic series use.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _shift_up(x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """z = x + n with the smallest n >= 0 that makes z >= 10; and the steps on the way: x + k and
    whether step k was taken (k < n), for k = 0, ..., 9."""
    z, steps, taken = x, [], []
    for _ in range(int(_ASYMPTOTIC_FROM)):
        low = z < _ASYMPTOTIC_FROM
        steps.append(z)
        taken.append(low)
        z = np.where(low, z + 1, z)
    return z, steps, taken


def _abs_sin_pi(x: np.ndarray) -> np.ndarray:
    """|sin(pi x)|, from x's distance to the nearest integer: that subtraction is exact, while the
    rounding of pi * x would spoil the result near the integers, where it is tiny."""
    return np.abs(np.sin(np.pi * (x - np.round(x))))


def _tan_pi(x: np.ndarray) -> np.ndarray:
    """tan(pi x); tan has period pi, so only the distance to the nearest integer matters."""
    return np.tan(np.pi * (x - np.round(x)))


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x >= 1/2."""
    z, steps, taken = _shift_up(x)
    series = sum(b / (2 * k * (2 * k - 1) * z ** (2 * k - 1)) for k, b in enumerate(_BERNOULLI, 1))
    stirling = (z - 0.5) * np.log(z) - z + 0.5 * math.log(2 * math.pi) + series
    # Gamma(z) = x (x+1) ... (z-1) Gamma(x)
    product = np.prod([np.where(t, s, 1.0) for s, t in zip(steps, taken)], axis=0)
    return stirling - np.log(product)


def lgamma_f64(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)| on a float64 array: inf at 0, the negative integers and +-inf."""
    reflect = x < 0.5
    positive = _lgamma_positive(np.where(reflect, 1 - x, x))
    # Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    reflected = np.log(np.pi / _abs_sin_pi(x)) - positive
    out = np.where(reflect, reflected, positive)
    return np.where(np.isinf(x), np.inf, out)


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    """psi(x) = d/dx log Gamma(x) for x >= 1/2."""
    z, steps, taken = _shift_up(x)
    series = sum(b / (2 * k * z ** (2 * k)) for k, b in enumerate(_BERNOULLI, 1))
    asymptotic = np.log(z) - 0.5 / z - series
    # psi(z) = psi(x) + 1/x + 1/(x+1) + ... + 1/(z-1)
    return asymptotic - sum(np.where(t, 1 / s, 0.0) for s, t in zip(steps, taken))


def digamma_f64(x: np.ndarray) -> np.ndarray:
    """psi(x) on a float64 array: nan at 0, the negative integers and -inf, as XLA gives."""
    reflect = x < 0.5
    positive = _digamma_positive(np.where(reflect, 1 - x, x))
    reflected = positive - np.pi / _tan_pi(x)  # psi(1 - x) - psi(x) = pi / tan(pi x)
    out = np.where(reflect, reflected, positive)
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole | (x == -np.inf), np.nan, out)


# ----------------------------------------------------------------------------------------------
# bessel_i0e(x) = exp(-|x|) I0(x), the scaled modified Bessel function of order 0: I0 itself
# overflows beyond |x| = 713, the scaled one never does. Up to |x| = 20 the power series of I0, whose
# terms are all positive (no cancellation), times exp(-|x|); beyond, the asymptotic series, whose
# terms shrink until k ~ 2|x|: at |x| = 20 the 30th is below 1e-17. Both within 2e-15 relative.

_I0E_SERIES_UP_TO = 20.0
_I0E_SERIES_TERMS = 40  # at |x| = 20 the 36th term is 2e-18 of the sum
_I0E_ASYMPTOTIC_TERMS = 30


def _i0_series(ax: np.ndarray) -> np.ndarray:
    """I0(x) = sum_k (x^2/4)^k / (k!)^2, by Horner's rule from the last (smallest) term."""
    t = ax * ax / 4
    total = np.ones_like(ax)
    for k in range(_I0E_SERIES_TERMS, 0, -1):
        total = 1 + total * (t / (k * k))
    return total


def _i0e_asymptotic(ax: np.ndarray) -> np.ndarray:
    """exp(-x) I0(x) ~ 1/sqrt(2 pi x) sum_k ((2k-1)!!)^2 / (k! (8x)^k), for large x (0 at inf)."""
    u = 1 / (8 * ax)
    total = np.ones_like(ax)
    for k in range(_I0E_ASYMPTOTIC_TERMS, 0, -1):
        total = 1 + total * ((2 * k - 1) ** 2 * u / k)
    return total / np.sqrt(2 * np.pi * ax)


def bessel_i0e_f64(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I0(x) on a float64 array: even, 1 at 0, 0 at +-inf, nan at nan."""
    ax = np.abs(x)
    small = ax <= _I0E_SERIES_UP_TO
    series = _i0_series(np.where(small, ax, 0.0)) * np.exp(-np.where(small, ax, 0.0))
    # (the asymptotic branch gets a harmless stand-in where the series is used, and vice versa)
    return np.where(small, series, _i0e_asymptotic(np.where(small, 2 * _I0E_SERIES_UP_TO, ax)))


# ----------------------------------------------------------------------------------------------
# The primitives: float operands only, computed in float64 and rounded to the operand's dtype.


def in_float64(fn: Any) -> Any:
    """``fn`` computed in float64 and rounded back to the input's dtype."""
    def numpy_fn(x: np.ndarray) -> np.ndarray:
        # Rounded back here, where NumPy's warnings are off: overflow to inf is a result.
        return fn(x.astype(np.float64)).astype(x.dtype)

    numpy_fn.__name__ = fn.__name__
    return numpy_fn


def like_xla(f64: Any, f32: Any) -> Any:
    """float64 by ``f64``; float32 and the 16-bit floats by ``f32``, XLA's own float32 formula
    (lax/xla_float32.py), so that results match JAX's bit for bit: didax.random's normal
    samples go through erf_inv, and must be JAX's."""

    def numpy_fn(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float64:
            return f64(x)
        return f32(x.astype(np.float32)).astype(x.dtype)

    numpy_fn.__name__ = f64.__name__
    return numpy_fn


erf_p = unop("erf", like_xla(erf_f64, erf_f32), (FLOATING,))
erfc_p = unop("erfc", in_float64(erfc_f64), (FLOATING,))
erf_inv_p = unop("erf_inv", like_xla(erf_inv_f64, erf_inv_f32), (FLOATING,))
lgamma_p = unop("lgamma", in_float64(lgamma_f64), (FLOATING,))
digamma_p = unop("digamma", in_float64(digamma_f64), (FLOATING,))
bessel_i0e_p = unop("bessel_i0e", in_float64(bessel_i0e_f64), (FLOATING,))


def erf(x: Any) -> Any:
    """The error function, 2/sqrt(pi) times the integral of exp(-t^2) from 0 to x."""
    return erf_p.bind(x)


def erfc(x: Any) -> Any:
    """The complementary error function, 1 - erf(x), accurate where it is tiny."""
    return erfc_p.bind(x)


def erf_inv(x: Any) -> Any:
    """The inverse of erf on [-1, 1]."""
    return erf_inv_p.bind(x)


def lgamma(x: Any) -> Any:
    """The natural logarithm of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


def digamma(x: Any) -> Any:
    """The digamma function, the derivative of lgamma."""
    return digamma_p.bind(x)


def bessel_i0e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x)."""
    return bessel_i0e_p.bind(x)


# ----------------------------------------------------------------------------------------------
# zeta and polygamma. The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s: the first terms
# summed directly, the rest by the Euler-Maclaurin formula; polygamma(m, x) is
# (-1)^(m+1) m! zeta(m + 1, x). Special values (the poles, s < 1, infinite arguments) are XLA's.

_DIRECT_TERMS = 12  # the Euler-Maclaurin tail starts at a = q + 12, where its series converges fast
# Bernoulli numbers B2, B4, ..., B24 as exact fractions, and the tail's coefficients B_2j / (2j)!.
# With a >= 12 the first term left out is below 3e-21 of zeta(s, q) for every q > 0 and s up to
# 1000 (below 3e-16 up to s = 1e8): where s is large, the direct terms outweigh the tail.
_BERNOULLI_TO_24 = ("1/6", "-1/30", "1/42", "-1/30", "5/66", "-691/2730", "7/6", "-3617/510",
                    "43867/798", "-174611/330", "854513/138", "-236364091/2730")
_EULER_MACLAURIN = tuple(float(Fraction(b) / math.factorial(2 * j)) for j, b in enumerate(_BERNOULLI_TO_24, 1))


def _zeta_positive(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) for finite s > 1 and q > 0."""
    a = q + _DIRECT_TERMS
    # The tail sum_{k >= 0} (a + k)^-s = a^(1-s)/(s-1) + a^-s/2 + sum_j c_j s(s+1)...(s+2j-2) a^(-s-2j+1),
    # its corrections by Horner's rule in 1/a^2.
    corrections = np.zeros_like(a)
    for j in range(len(_EULER_MACLAURIN), 1, -1):
        corrections = (s + 2 * j - 3) * (s + 2 * j - 2) / (a * a) * (_EULER_MACLAURIN[j - 1] + corrections)
    corrections = s / a * (_EULER_MACLAURIN[0] + corrections)
    a_power = np.power(a, -s)
    # Where a^-s underflows the corrections do not count, but for a huge s their factor may overflow.
    tail = np.power(a, 1 - s) / (s - 1) + np.where(a_power == 0, 0.0, a_power * (0.5 + corrections))
    for k in range(_DIRECT_TERMS - 1, -1, -1):  # the smallest terms first
        tail = tail + np.power(q + k, -s)
    return tail


def zeta_f64(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) on float64 arrays, for s > 1; for q < 0 only where s is an integer, as in XLA."""
    out = _zeta_positive(np.where(np.isfinite(s) & (s > 1), s, 2.0), np.where(q > 0, q, 1.0))
    if np.any(q < 0):  # three more sums: skipped when no q needs them
        out = np.where(q < 0, _zeta_negative(s, q), out)
    out = np.where(np.isfinite(s) & np.isfinite(q), out, np.nan)  # XLA's nan for zeta(inf, q) and q = inf
    # XLA's special values, in XLA's order (each overrides the ones before).
    integer_s = s == np.floor(s)
    out = np.where(s < 1, np.nan, out)
    out = np.where((q <= 0) & ~integer_s, np.nan, out)
    pole = (q <= 0) & (q == np.floor(q))  # -inf included
    even_s = integer_s & (np.fmod(s, 2) == 0)
    out = np.where(pole, np.where(even_s, np.inf, np.nan), out)
    return np.where(s == 1, np.inf, out)  # the harmonic series


def _zeta_negative(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) for an integer s > 1 and a q < 0 not an integer, by three sums instead of a term per
    unit of |q|. With f = q - floor(q) in (0, 1), the terms with q + k > 0 sum to zeta(s, f); those
    with q + k < 0 are (f - j)^-s = (-1)^s (j - f)^-s for j = 1, ..., -floor(q), which sum to
    (-1)^s (zeta(s, 1 - f) - zeta(s, 1 - q)). The terms at f and 1 - f are added first: for an odd s
    they cancel (exactly when f = 1/2), and what is left must not be lost beside them."""
    s = np.where(np.isfinite(s) & (s > 1), s, 2.0)
    q = np.where((q < 0) & np.isfinite(q), q, -0.5)
    f = q - np.floor(q)  # exact
    g = np.where(q > -1, -q, 1 - f)  # 1 - f, exact also for a tiny |q|, where f = 1 + q rounds
    sign = np.where(np.fmod(s, 2) == 0, 1.0, -1.0)
    return (_zeta_positive(s, f) + sign * _zeta_positive(s, g)) - sign * _zeta_positive(s, 1 - q)


# m! for m = 0, ..., 170 (each rounded once from the exact integer); inf beyond.
_FACTORIALS = np.array([float(math.factorial(m)) for m in range(171)] + [np.inf])


def polygamma_f64(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The m-th derivative of digamma on float64 arrays; nan unless m is a natural number."""
    natural = (m >= 0) & (m == np.floor(m))  # false for nan; true for inf, which zeta makes nan
    factorial = _FACTORIALS[np.minimum(np.where(natural, m, 0), 171).astype(np.int64)]
    sign = np.where(np.fmod(m, 2) == 1, 1.0, -1.0)  # (-1)^(m+1)
    out = sign * factorial * zeta_f64(m + 1, x)
    out = np.where(m == 0, digamma_f64(x), out)
    return np.where(natural, out, np.nan)


def in_float64_binary(fn: Any) -> Any:
    """Two-operand ``fn`` computed in float64 and rounded back to the operands' dtype."""
    def numpy_fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return fn(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)

    numpy_fn.__name__ = fn.__name__
    return numpy_fn


zeta_p = binop("zeta", in_float64_binary(zeta_f64), (FLOATING,))
polygamma_p = binop("polygamma", in_float64_binary(polygamma_f64), (FLOATING,))


def zeta(x: Any, q: Any) -> Any:
    """The Hurwitz zeta function, the sum over k >= 0 of (q + k)^-x."""
    return zeta_p.bind(x, q)


def polygamma(m: Any, x: Any) -> Any:
    """The m-th derivative of digamma, for a natural number m given as a float."""
    return polygamma_p.bind(m, x)


# ----------------------------------------------------------------------------------------------
# bessel_i1e: e^-|x| I1(x), the exponentially scaled modified Bessel function of order 1. A power
# series (all terms positive) up to |x| = 20, the asymptotic series beyond (its 30th term is below
# 3e-18 there); I1 is odd.

_I1_SERIES_TO = 20.0
_I1_SERIES_TERMS = 40  # the series' terms fall below 1e-18 of its sum at |x| = 20 after 35
_I1_ASYMPTOTIC_TERMS = 30


def _i1e_series(x: np.ndarray) -> np.ndarray:
    """e^-x I1(x) = e^-x (x/2) sum_k (x^2/4)^k / (k! (k+1)!), summed by Horner's rule."""
    y = x * x / 4
    total = np.ones_like(x)
    for k in range(_I1_SERIES_TERMS, 0, -1):
        total = 1 + total * (y / (k * (k + 1)))
    return x / 2 * total * np.exp(-x)


def _i1e_asymptotic(x: np.ndarray) -> np.ndarray:
    """e^-x I1(x) ~ (2 pi x)^-1/2 sum_k t_k for large x > 0: t_0 = 1, and each term is the one
    before times (2k-3)(2k+1) / (8kx); the exponentially small rest is below e^-2x."""
    total = np.ones_like(x)
    for k in range(_I1_ASYMPTOTIC_TERMS, 0, -1):
        total = 1 + total * ((2 * k - 3) * (2 * k + 1) / (8 * k * x))
    return total / np.sqrt(2 * np.pi * x)


def bessel_i1e_f64(x: np.ndarray) -> np.ndarray:
    """e^-|x| I1(x) on a float64 array: 0 at +-inf (with x's sign), nan for nan."""
    ax = np.abs(x)
    near = ax <= _I1_SERIES_TO
    series = _i1e_series(np.where(near, ax, 0.0))
    asymptotic = _i1e_asymptotic(np.where(near, _I1_SERIES_TO, ax))
    return np.copysign(np.where(near, series, asymptotic), x)  # odd; keeps -0.0 and nan


bessel_i1e_p = unop("bessel_i1e", in_float64(bessel_i1e_f64), (FLOATING,))


def bessel_i1e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 1, e^-|x| I1(x)."""
    return bessel_i1e_p.bind(x)
