"""Golden values of the special functions (closed forms and tables), in float64, to the accuracy their
module promises (a few ulps); and the identities that tie them together."""

import decimal
import math

import numpy as np
import pytest

import didax
from didax import lax

EULER_GAMMA = 0.5772156649015329


@pytest.fixture(autouse=True)
def x64():
    with didax.enable_x64():
        yield


@pytest.mark.parametrize(
    "name, x, want",
    [
        ("erf", 1.0, 0.8427007929497149),
        ("erf", 0.5, 0.5204998778130465),
        ("erfc", 3.0, 2.209049699858544e-05),
        ("erfc", 10.0, 2.088487583762545e-45),
        ("erfc", -1.0, 1.8427007929497148),
        ("erf_inv", 0.5, 0.4769362762044699),
        ("erf_inv", 1 - 1e-9, 4.320005388105362),  # the tail: from mpmath at 40 digits
        ("erf_inv", 1 - 1e-15, 5.675915739744713),
        ("lgamma", 0.5, math.log(math.pi) / 2),
        ("lgamma", -0.5, math.log(2 * math.sqrt(math.pi))),
        ("lgamma", 10.0, math.log(362880)),
        ("lgamma", 100.0, 359.1342053695754),
        ("digamma", 1.0, -EULER_GAMMA),
        ("digamma", 0.5, -EULER_GAMMA - 2 * math.log(2)),
        ("digamma", 0.25, -EULER_GAMMA - math.pi / 2 - 3 * math.log(2)),
        ("digamma", 10.0, sum(1 / k for k in range(1, 10)) - EULER_GAMMA),
        ("digamma", -0.5, 2 - EULER_GAMMA - 2 * math.log(2)),
    ],
)
def test_special_function_golden_values(name, x, want):
    got = getattr(lax, name)(np.float64(x))
    assert got.dtype == np.float64
    assert float(got) == pytest.approx(want, rel=1e-14, abs=0)


def test_erf_inv_undoes_erf():
    # Beyond |y| = 2.5 erf(y) is so near 1 that its rounding alone moves erf_inv by 1e-13 or more.
    y = np.linspace(-2.5, 2.5, 1001)
    np.testing.assert_allclose(np.asarray(lax.erf_inv(lax.erf(y))), y, rtol=1e-13, atol=1e-300)


def test_lgamma_and_digamma_follow_their_recurrences():
    x = np.linspace(-7.9, 12.3, 301)
    x = x[np.abs(x - np.round(x)) > 1e-3]  # away from the poles
    np.testing.assert_allclose(
        np.asarray(lax.lgamma(x + 1)), np.asarray(lax.lgamma(x)) + np.log(np.abs(x)), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(np.asarray(lax.digamma(x + 1)), np.asarray(lax.digamma(x)) + 1 / x, rtol=1e-12, atol=1e-12)


def test_float32_erf_and_erf_inv_follow_xlas_formulas():
    # float32 erf and erf_inv follow XLA's float32 formulas (so random.normal draws JAX's numbers):
    # not always the correctly rounded value, but within a few ulps of it.
    x = np.linspace(-3, 3, 601, dtype=np.float32)
    got = np.asarray(lax.erf(x))
    assert got.dtype == np.float32
    exact = np.array([math.erf(float(v)) for v in x], np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - exact.view(np.int32).astype(np.int64))
    assert ulps.max() <= 4
    jax = pytest.importorskip("jax")  # installed with the tests: the reference, bit for bit
    np.testing.assert_array_equal(got, np.asarray(jax.lax.erf(x)))
    # erf_inv goes through log1p, which XLA rounds its own way: within 2 ulps of JAX's.
    y = np.linspace(-0.999, 0.999, 301, dtype=np.float32)
    mine, theirs = np.asarray(lax.erf_inv(y)), np.asarray(jax.lax.erf_inv(y))
    assert np.abs(mine.view(np.int32).astype(np.int64) - theirs.view(np.int32).astype(np.int64)).max() <= 2
    # lgamma has no XLA formula to follow: rounded once from float64.
    assert float(lax.lgamma(np.float32(0.3))) == float(np.float32(math.lgamma(float(np.float32(0.3)))))


def i0e_reference(x: float) -> float:
    """exp(-|x|) I0(x) to about 40 digits: the power series of I0, sum_k (x^2/4)^k / (k!)^2, in
    decimal arithmetic (all its terms are positive, so nothing cancels)."""
    with decimal.localcontext() as context:
        context.prec = 50
        ax = abs(decimal.Decimal(float(x)))
        t, term, total, k = ax * ax / 4, decimal.Decimal(1), decimal.Decimal(1), 0
        while term > total * decimal.Decimal("1e-45"):
            k += 1
            term = term * t / (k * k)
            total += term
        return float(total * (-ax).exp())


def test_bessel_i0e_is_within_a_few_ulps_in_float64():
    # Both sides of |x| = 20, where the power series hands over to the asymptotic one.
    x = np.concatenate([np.linspace(-45, 45, 361), np.geomspace(1e-6, 700, 120), [19.999, 20.0, 20.001]])
    got = np.asarray(lax.bessel_i0e(x))
    assert got.dtype == np.float64
    want = np.array([i0e_reference(v) for v in x])
    assert np.max(np.abs(got - want) / want) < 4e-15  # measured: 1.1e-15


def test_bessel_i0e_limits_and_symmetry():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300])
    np.testing.assert_array_equal(np.asarray(lax.bessel_i0e(x))[:5], [1, 1, 0, 0, np.nan])
    assert float(lax.bessel_i0e(1e300)) == pytest.approx(1 / math.sqrt(2 * math.pi * 1e300), rel=1e-15)
    y = np.linspace(0, 60, 241)
    np.testing.assert_array_equal(np.asarray(lax.bessel_i0e(-y)), np.asarray(lax.bessel_i0e(y)))


def test_float32_bessel_i0e_is_rounded_once_from_float64():
    # Computed in float64 and rounded once: within half an ulp of the exact value, where XLA's float32
    # Chebyshev formula is within a few ulps (it gives 1.0000001 at 0).
    x = np.linspace(-40, 40, 801, dtype=np.float32)
    got = np.asarray(lax.bessel_i0e(x))
    assert got.dtype == np.float32
    exact = np.array([i0e_reference(v) for v in x])
    np.testing.assert_array_equal(got, exact.astype(np.float32))
    jax = pytest.importorskip("jax")
    theirs = np.asarray(jax.lax.bessel_i0e(x))
    assert np.abs(got.view(np.int32).astype(np.int64) - theirs.view(np.int32).astype(np.int64)).max() <= 4
