"""XLA's own float32 formulas for erf and erf_inv, in NumPy, for evaluation rules that must give
JAX's bits (didax.random's normal and truncated_normal go through them). Stage 01 introduced it.

XLA does not compute these functions correctly rounded: it evaluates fixed rational or
polynomial approximations with fused multiply-adds. Reproducing the same formula, in the same
order, with the same fused steps, reproduces its results. A float32 fused multiply-add is
emulated in float64: the product of two float32 values is exact there, so only the sum rounds
(and then once more to float32, which very rarely differs from one rounding).
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray | float) -> np.ndarray:
    """a * b + c in float32, rounded as a fused multiply-add (nearly always)."""
    return (a.astype(np.float64) * b.astype(np.float64) + np.asarray(c, np.float64)).astype(F32)


def horner(x: np.ndarray, coefficients: list[float]) -> np.ndarray:
    """The polynomial with these coefficients (highest power first), by fused Horner steps."""
    p = np.full_like(x, F32(coefficients[0]))
    for c in coefficients[1:]:
        p = fma(p, x, F32(c))
    return p


# Eigen's fast float erf (XLA's CPU erf): odd polynomial over even polynomial on [-c, c].
_ERF_CLAMP = 3.832506856900711
_ERF_NUMERATOR = [0.00022905065861350646, 0.0034082910107109506, 0.050955695062380861, 0.18520832239976145, 1.128379143519084]
_ERF_DENOMINATOR = [
    -1.1791602954361697e-7, 0.000023547966471313185, 0.0010179625278914885, 0.014070470171167667,
    0.11098505178285362, 0.49746925110067538, 1.0,
]


def erf_f32(x: np.ndarray) -> np.ndarray:
    """erf(x) as XLA computes it for float32 (beyond the clamp, the result rounds to +-1)."""
    x = np.clip(x.astype(F32), F32(-_ERF_CLAMP), F32(_ERF_CLAMP))
    x2 = x * x
    return ((x * horner(x2, _ERF_NUMERATOR)) / horner(x2, _ERF_DENOMINATOR)).astype(F32)


# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single precision:
# a polynomial in w = -log(1 - x^2), one for the centre (w < 5) and one for the tails.
_ERF_INV_CENTRE = [
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
    -0.00417768164, 0.246640727, 1.50140941,
]
_ERF_INV_TAIL = [
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
    0.00943887047, 1.00167406, 2.83297682,
]


def erf_inv_f32(x: np.ndarray) -> np.ndarray:
    """erf_inv(x) as XLA computes it for float32. XLA's own log1p rounds differently from
    NumPy's in about 1.5% of cases, which moves the result by at most 2 ulp."""
    x = x.astype(F32)
    w = -np.log1p(-(x * x))
    centre = w < F32(5)
    w = np.where(centre, w - F32(2.5), np.sqrt(w) - F32(3)).astype(F32)
    p = np.where(centre, F32(_ERF_INV_CENTRE[0]), F32(_ERF_INV_TAIL[0]))
    for a, b in zip(_ERF_INV_CENTRE[1:], _ERF_INV_TAIL[1:]):
        p = fma(p, w, np.where(centre, F32(a), F32(b)))
    # erf_inv(+-1) is +-inf: the polynomial would give nan or a finite number there.
    return np.where(np.abs(x) == F32(1), x * F32(np.inf), p * x).astype(F32)
