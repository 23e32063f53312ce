"""The incomplete gamma functions (lax/incomplete_gamma.py): closed forms in float64, the derivatives
in a against central differences, JAX's special values, float32 rounded once, and the dtype rules."""

import math

import numpy as np
import pytest

import didax
from didax import lax
from didax.lax import incomplete_gamma


@pytest.fixture(autouse=True)
def x64():
    with didax.enable_x64():
        yield


def poisson_tail(n: int, x: float) -> float:
    """Q(n, x) for a whole n: e^-x (1 + x + x^2/2! + ... + x^(n-1)/(n-1)!)."""
    return math.exp(-x) * math.fsum(x**k / math.factorial(k) for k in range(n))


@pytest.mark.parametrize("x", [1e-8, 0.3, 1.0, 2.5, 7.0, 30.0])
def test_igamma_matches_its_closed_forms(x):
    xs = np.float64(x)
    assert float(lax.igamma(np.float64(1), xs)) == pytest.approx(-math.expm1(-x), rel=4e-15)
    assert float(lax.igamma(np.float64(0.5), xs)) == pytest.approx(math.erf(math.sqrt(x)), rel=4e-15)
    assert float(lax.igammac(np.float64(0.5), xs)) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-14)
    for n in (1, 2, 5, 12):
        assert float(lax.igammac(np.float64(n), xs)) == pytest.approx(poisson_tail(n, x), rel=1e-14)


def test_igammac_keeps_its_tiny_values():
    # Q(1, x) = e^-x: no 1 - P, which would be 0 long before. (Within the rounding of the prefactor's
    # log, about 700 here, which exp turns into a relative error of 700 eps.)
    got = np.asarray(lax.igammac(np.ones(3), np.array([40.0, 200.0, 700.0])))
    np.testing.assert_allclose(got, np.exp(-np.array([40.0, 200.0, 700.0])), rtol=2e-13)


A = np.array([0.05, 0.7, 1.5, 3.0, 12.0, 40.0])
X = np.array([0.02, 0.5, 2.0, 2.5, 9.0, 47.0])


def central(f, a, x, step=1e-6):
    h = step * a
    return (np.asarray(f(a + h, x)) - np.asarray(f(a - h, x))) / (2 * h)


def test_igamma_grad_a_is_the_derivative_of_igamma_in_a():
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(A, X)), central(lax.igamma, A, X), rtol=2e-8)


def test_random_gamma_grad_keeps_the_cdf_fixed():
    # Implicit differentiation of P(a, x(a)) = u: dx/da = -(dP/da) / (dP/dx), dP/dx the density.
    density = np.exp((A - 1) * np.log(X) - X - np.array([math.lgamma(v) for v in A]))
    want = -np.asarray(lax.igamma_grad_a(A, X)) / density
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(A, X)), want, rtol=1e-13)


def test_random_gamma_grad_is_accurate_where_the_density_underflows():
    # a = 1: x = -log(1 - u), so dx/da at fixed u is what Q(a, x) = 1 - u gives: log x + gamma + 1/x - ...
    # (E1's asymptotic series); the density e^-1000 is 0 in float64.
    x = 1000.0
    want = math.log(x) + 0.5772156649015329 + 1 / x - 1 / x**2 + 2 / x**3
    assert float(lax.random_gamma_grad(np.float64(1), np.float64(x))) == pytest.approx(want, rel=1e-12)


def test_random_gamma_grad_da_gives_its_derivatives_in_a():
    def derivative(order):
        return lambda a, x: incomplete_gamma.random_gamma_grad_da_p.bind(a, x, order=order)

    np.testing.assert_allclose(np.asarray(derivative(1)(A, X)), central(lax.random_gamma_grad, A, X), rtol=2e-7)
    # Each order comes from sums stopped where their terms no longer count, with a relative error
    # near 1e-10 that wobbles with a: differences need a longer step as the order grows.
    np.testing.assert_allclose(np.asarray(derivative(2)(A, X)), central(derivative(1), A, X, 1e-4), rtol=2e-5)
    np.testing.assert_allclose(np.asarray(derivative(3)(A, X)), central(derivative(2), A, X, 1e-4), rtol=2e-5)
    with pytest.raises(ValueError, match="order must be an int >= 1"):
        derivative(0)(A, X)


def test_special_values_are_jaxs():
    inf, nan = math.inf, math.nan
    a = np.array([0, 0, 0, 0, 1, inf, inf, inf, -1, 1, nan, 1, 2])
    x = np.array([0, 0.5, 2, inf, 0, 0, 1, inf, 1, -1, 1, inf, nan])
    np.testing.assert_array_equal(np.asarray(lax.igamma(a, x)), [nan, nan, 1, 1, 0, 0, nan, 1, nan, nan, nan, 1, nan])
    np.testing.assert_array_equal(np.asarray(lax.igammac(a, x)), [nan, 0, 0, 0, 1, 1, nan, 0, nan, nan, nan, 0, nan])
    derivative = [nan, nan, nan, nan, 0, 0, nan, nan, nan, nan, nan, nan, nan]
    np.testing.assert_array_equal(np.asarray(lax.igamma_grad_a(a, x)), derivative)
    np.testing.assert_array_equal(np.asarray(lax.random_gamma_grad(a, x)), derivative)


def test_float32_is_the_float64_result_rounded_once():
    a, x = A.astype(np.float32), X.astype(np.float32)
    for f in (lax.igamma, lax.igammac, lax.igamma_grad_a, lax.random_gamma_grad):
        got = f(a, x)
        assert got.dtype == np.float32
        want = np.asarray(f(a.astype(np.float64), x.astype(np.float64))).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_dtype_and_shape_rules_are_laxs():
    with pytest.raises(TypeError, match="igamma does not accept dtype int32 at position 0"):
        lax.igamma(np.int32(1), np.int32(2))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.igammac(np.float32(1), np.float64(2))
    with pytest.raises(TypeError, match="same number of dimensions"):
        lax.igamma_grad_a(np.ones((2, 3)), np.ones(3))
    got = lax.random_gamma_grad(np.ones((2, 3)), np.full((2, 1), 2.0))
    assert got.shape == (2, 3)
    with didax.enable_x64(False):
        got = lax.igamma(1.0, 2.0)
        assert got.dtype == np.float32 and got.weak_type


def test_scipy_gammainc_and_gammaincc_promote_like_jax():
    from didax.scipy import special

    got = special.gammainc(1, np.float16(2))  # an int and a float16: float16
    assert got.dtype == np.float16
    got = special.gammaincc(np.array([1, 2]), 3)
    assert got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), [math.exp(-3), 4 * math.exp(-3)], rtol=1e-14)
    with pytest.raises(TypeError, match="igamma does not accept dtype complex"):
        special.gammainc(1j, 2.0)
