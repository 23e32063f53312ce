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


# ----------------------------------------------------------------------------------------------
# zeta and polygamma

ZETA_3 = 1.2020569031595942  # Apery's constant
CATALAN = 0.915965594177219


@pytest.mark.parametrize(
    "x, q, want",
    [
        (2.0, 1.0, math.pi**2 / 6),
        (4.0, 1.0, math.pi**4 / 90),
        (6.0, 1.0, math.pi**6 / 945),
        (3.0, 0.5, 7 * ZETA_3),
        (2.0, 0.5, math.pi**2 / 2),
        (2.0, 0.25, math.pi**2 + 8 * CATALAN),
        (2.0, -2.5, math.pi**2 / 2 + 4 + 4 / 9 + 4 / 25),  # q < 0: the terms 1/(q + k)^2 for k < 3 added
        (1 + 2**-26, 1.0, 2**26 + EULER_GAMMA),  # near the pole at x = 1: 1/(x - 1) + gamma + O(x - 1)
        (1.5, 1e300, 2e-150),  # the tail q^(1-x)/(x-1) alone, which must not underflow on the way
    ],
)
def test_zeta_golden_values(x, q, want):
    got = lax.zeta(np.float64(x), np.float64(q))
    assert got.dtype == np.float64
    assert float(got) == pytest.approx(want, rel=1e-14, abs=0)


@pytest.mark.parametrize(
    "m, x, want",
    [
        (0.0, 1.0, -EULER_GAMMA),  # m = 0 is digamma
        (1.0, 1.0, math.pi**2 / 6),
        (1.0, 0.5, math.pi**2 / 2),
        (1.0, -0.5, math.pi**2 / 2 + 4),
        (2.0, 1.0, -2 * ZETA_3),
        (3.0, 1.0, math.pi**4 / 15),
        (2.0, 0.5, -14 * ZETA_3),
    ],
)
def test_polygamma_golden_values(m, x, want):
    got = lax.polygamma(np.float64(m), np.float64(x))
    assert got.dtype == np.float64
    assert float(got) == pytest.approx(want, rel=1e-14, abs=0)


def test_zeta_follows_its_recurrence_on_both_sides_of_zero():
    # zeta(s, q) = q^-s + zeta(s, q + 1); for q < 0 only integer s are defined.
    q = np.linspace(-12.3, 15.1, 401)
    q = q[np.abs(q - np.round(q)) > 1e-3]
    for s in (2.0, 3.0, 6.0):
        lhs = np.asarray(lax.zeta(np.full_like(q, s), q))
        rhs = q**-s + np.asarray(lax.zeta(np.full_like(q, s), q + 1))
        # Within 1e-13 of the terms' size: for odd s, zeta has zeros between the poles at q < 0.
        assert np.all(np.abs(lhs - rhs) <= 1e-13 * (np.abs(rhs) + np.abs(q**-s)))
    q = q[q > 0]
    s = np.full_like(q, 2.7)
    np.testing.assert_allclose(np.asarray(lax.zeta(s, q)), q**-s + np.asarray(lax.zeta(s, q + 1)), rtol=1e-13)


def test_zeta_of_an_odd_power_cancels_the_terms_around_zero_exactly():
    # For an odd s and q = -2.5 the terms at -2.5, ..., 2.5 cancel in pairs: zeta(51, -2.5) is
    # zeta(51, 3.5), some 1e-28, next to terms of 2^51. (XLA's float64 result is off by 1e55.)
    got = float(lax.zeta(np.float64(51), np.float64(-2.5)))
    assert got == pytest.approx(float(lax.zeta(np.float64(51), np.float64(3.5))), rel=1e-14)
    assert got == pytest.approx(3.5**-51 + 4.5**-51 + 5.5**-51, rel=1e-12)


def test_trigamma_follows_its_reflection_formula():
    x = np.linspace(-3.9, 4.9, 301)
    x = x[np.abs(x - np.round(x)) > 1e-2]
    one = np.ones_like(x)
    total = np.asarray(lax.polygamma(one, x)) + np.asarray(lax.polygamma(one, 1 - x))
    np.testing.assert_allclose(total, (np.pi / np.sin(np.pi * x)) ** 2, rtol=1e-13)


def test_zeta_and_polygamma_special_values_are_xlas():
    inf, nan = math.inf, math.nan
    x = np.array([0.5, 1.0, 1.0, 2.0, 3.0, 2.0, 0.0, -2.0, 2.5, 2.0, inf, nan, 2.0, 2.0])
    q = np.array([1.0, 5.0, nan, 0.0, -1.0, -3.0, -2.0, -2.0, -0.5, -inf, 1.0, 1.0, inf, nan])
    # x < 1 is nan, x = 1 inf (whatever q is); at q = 0, -1, -2, ... and -inf inf for an even
    # integer x (also x <= 0), else nan; q < 0 with a non-integer x is nan; so are infinite x, q.
    want = [nan, inf, inf, inf, nan, inf, inf, inf, nan, inf, nan, nan, nan, nan]
    np.testing.assert_array_equal(np.asarray(lax.zeta(x, q)), want)
    m = np.array([0.5, -1.0, nan, 1.0, 2.0, 1.0, 0.0, 0.0, 1.0, inf])
    x = np.array([1.0, 1.0, 1.0, -2.0, -2.0, -inf, -1.0, inf, inf, 1.0])
    # m must be a natural number; at the poles odd m give inf, even m nan; digamma(inf) = inf.
    want = [nan, nan, nan, inf, nan, inf, nan, inf, nan, nan]
    np.testing.assert_array_equal(np.asarray(lax.polygamma(m, x)), want)


def test_polygamma_rounds_the_float64_result_to_float32():
    # Computed in float64 and rounded once: XLA's float32 m! (exp of lgamma) overflows for m >= 35.
    m, x = np.float32(50), np.float32(7)
    want = -math.factorial(50) * float(lax.zeta(np.float64(51), np.float64(7)))
    got = lax.polygamma(m, x)
    assert got.dtype == np.float32 and float(got) == float(np.float32(want))


# ----------------------------------------------------------------------------------------------
# bessel_i1e


def i1e_reference(x: float) -> float:
    """e^-|x| I1(x) from the power series (x/2) sum_k (x^2/4)^k / (k! (k+1)!), at 40 digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        ax = abs(decimal.Decimal(x))
        term, total, k = ax / 2, decimal.Decimal(0), 0
        while term > total * decimal.Decimal("1e-38") or k < 2:
            total += term
            k += 1
            term = term * ax * ax / 4 / (k * (k + 1))
        return math.copysign(float(total * (-ax).exp()), x)


@pytest.mark.parametrize("x", [1e-300, 1e-5, 0.5, 1.0, -2.0, 7.5, 19.99, 20.01, -30.0, 100.0, 700.0])
def test_bessel_i1e_golden_values(x):
    got = lax.bessel_i1e(np.float64(x))
    assert got.dtype == np.float64
    assert float(got) == pytest.approx(i1e_reference(x), rel=3e-15, abs=0)


def test_bessel_i1e_far_out_and_at_its_limits():
    # For large x, e^-x I1(x) = (2 pi x)^-1/2 (1 - 3/(8x) - 15/(128x^2) - ...).
    x = 1e6
    leading = (1 - 3 / (8 * x) - 15 / (128 * x * x)) / math.sqrt(2 * math.pi * x)
    assert float(lax.bessel_i1e(np.float64(x))) == pytest.approx(leading, rel=1e-15)
    got = np.asarray(lax.bessel_i1e(np.array([np.inf, -np.inf, -0.0, np.nan])))
    np.testing.assert_array_equal(got, [0.0, -0.0, -0.0, np.nan])
    assert list(np.signbit(got[:3])) == [False, True, True]


def test_i1_scales_i1e_back_with_its_sign():
    from didax.scipy import special

    x = np.array([-3.0, 0.5, 12.0])
    want = [math.copysign(i1e_reference(v) * math.exp(abs(v)), v) for v in x]
    np.testing.assert_allclose(np.asarray(special.i1(x)), want, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(special.i1e(x)), [i1e_reference(v) for v in x], rtol=1e-14)
    assert np.isnan(float(special.i1(np.inf)))  # inf * 0, as in JAX


# ----------------------------------------------------------------------------------------------
# didax.scipy.special: zeta and polygamma's arguments


def test_scipy_zeta_and_polygamma_promote_like_jax():
    from didax.scipy import special

    with didax.enable_x64(False):
        got = special.zeta(2, 1)  # Python scalars: the default float, weakly typed
        assert got.dtype == np.float32 and got.weak_type
        assert float(got) == pytest.approx(math.pi**2 / 6, rel=1e-6)
        got = special.polygamma(np.int8(1), np.float16(0.5))
        assert got.dtype == np.float16 and not got.weak_type
    got = special.polygamma(np.array([1, 2]), 1.0)
    assert got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), [math.pi**2 / 6, -2 * ZETA_3], rtol=1e-14)


def test_scipy_zeta_and_polygamma_refuse_what_jax_refuses():
    from didax.scipy import special

    with pytest.raises(NotImplementedError, match="Riemann zeta"):
        special.zeta(2.0)
    with pytest.raises(ValueError, match="integer type. Got dtype float"):
        special.polygamma(1.0, 2.0)
    with pytest.raises(ValueError, match="integer type. Got dtype bool"):
        special.polygamma(True, 2.0)
    with pytest.raises(ValueError, match="complex"):
        special.polygamma(1, 1j)
    with pytest.raises(TypeError, match="zeta does not accept dtype complex64"):
        special.zeta(np.complex64(2), 1.0)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.zeta(np.float32(2), np.float64(1))
