"""Special functions compiled by XLA, against eager evaluation (NumPy in float64, rounded): those
without an XLA operation (written again with lax, lowering/special.py) and those lowered to CHLO's
expansions. Tolerances are what XLA's float32 formulas reach; where they differ more, it says why."""

import numpy as np
import pytest
from lowering_harness import run_compiled

import didax
import didax.numpy as jnp
from didax import lax
from didax.lax.incomplete_gamma import random_gamma_grad_da_p

rng = np.random.default_rng(3)
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-30, -1e-30, 1e-8, 0.5, -0.5, 2.0, -2.0, 3.5, -3.5, 10.0,
         -10.0, 50.0, -50.0, 1e4, -1e4, 1e30, -1e30, 0.999999, -0.999999, 1.000001]  # fmt: skip
POINTS = np.concatenate([EDGES, np.linspace(-20, 20, 201), np.linspace(-1, 1, 101)])
# (a, x) for the incomplete gamma function: both branches (series, fraction), the domain's edges
A_EDGES = [0.5, 1, 1, 2, 0, 0, -1, np.nan, 3, np.inf, 1e-3, 100.0, 2, 5, 1, 0]
X_EDGES = [0.5, 1, 0.3, 2, 0, 2, 1, 1, np.inf, 1, 1e-3, 99.0, -1, 0, np.nan, 0.5]
A = np.concatenate([rng.uniform(0.01, 30, 40), A_EDGES])
X = np.concatenate([rng.uniform(0.0, 40, 40), X_EDGES])


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    if request.param == "float64":
        didax.config.update("jax_enable_x64", True)
    try:
        yield np.dtype(request.param)
    finally:
        didax.config.update("jax_enable_x64", False)


def check(f, *args, rtol, atol=0.0):
    """Compiled equals eager: NaN where it is NaN, infinities equal, finite values within tolerance."""
    args = [jnp.asarray(a) for a in args]
    (got,) = run_compiled(f, *args)
    want = np.asarray(f(*args))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


# ----------------------------------------------------------------------------------------------
# Without an XLA operation: lax-level methods, staged and lowered.


def test_bessel_i0e(dtype):
    check(lax.bessel_i0e, POINTS.astype(dtype), rtol=2e-6 if dtype == np.float32 else 1e-14)


# float32 runs the sums in float32, as XLA's own expansions do; its error there is about JAX's own
# (JAX's float32 igammac differs from its float64 one by up to 1.2e-4 on these points)
INCOMPLETE_GAMMA = [
    ("igamma", lax.igamma, 1e-4, 1e-12),
    ("igammac", lax.igammac, 1e-4, 1e-12),
    ("igamma_grad_a", lax.igamma_grad_a, 1e-4, 1e-12),
    ("random_gamma_grad", lax.random_gamma_grad, 1e-5, 1e-12),
    ("random_gamma_grad_da 1", lambda a, x: random_gamma_grad_da_p.bind(a, x, order=1), 1e-4, 1e-12),
]


@pytest.mark.parametrize("name, f, rtol32, rtol64", INCOMPLETE_GAMMA, ids=[c[0] for c in INCOMPLETE_GAMMA])
def test_incomplete_gamma(name, f, rtol32, rtol64, dtype):
    rtol = rtol32 if dtype == np.float32 else rtol64
    # Q = 1 - P where P is near 1 (a = x = 1e-3): a small difference, so an absolute tolerance
    check(f, A.astype(dtype), X.astype(dtype), rtol=rtol, atol=1e-6 if dtype == np.float32 else 0.0)


def test_second_derivative_in_a_float64():
    """random_gamma_grad_da of order 2, checked once, in float64 (in float32 too it would double
    this file's time for little: the float32 path is the same code)."""
    with didax.enable_x64():
        f = lambda a, x: random_gamma_grad_da_p.bind(a, x, order=2)  # noqa: E731
        check(f, A.astype(np.float64), X.astype(np.float64), rtol=1e-10, atol=0.0)


def test_16_bit_floats_compute_in_float32():
    a, x = A[:20].astype(np.float16), X[:20].astype(np.float16)
    check(lax.igamma, a, x, rtol=2e-3, atol=1e-3)
    check(lax.bessel_i0e, POINTS.astype(jnp.bfloat16), rtol=1e-2)


def test_gamma_sample_gradient_lowered_inside_jvp():
    a = jnp.asarray(np.array([0.5, 2.0, 7.0], np.float32))
    key = didax.random.key(0)
    f = lambda a: didax.jvp(lambda a: didax.random.gamma(key, a), (a,), (jnp.ones_like(a),))  # noqa: E731
    got = run_compiled(f, a)
    for g, w in zip(got, f(a)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5)


# ----------------------------------------------------------------------------------------------
# CHLO: XLA's own expansions of the functions it knows.

# name: (float32 rtol, float32 atol, float64 rtol, float64 atol)
CHLO = {
    "erf": (0, 0, 1e-15, 0),  # float32 erf is XLA's formula, also eagerly: bit for bit
    "erf_inv": (3e-7, 0, 1e-12, 0),  # eager follows XLA's float32 polynomial to 2 ulp
    "erfc": (5e-6, 1.2e-38, 1e-13, 0),  # XLA flushes float32 subnormals (erfc(9.2)) to zero
    "lgamma": (2e-6, 1e-6, 1e-14, 1e-14),  # absolute near its zeros at 1 and 2 (eager's lgamma(1) is 1.8e-15)
    "digamma": (1e-5, 1e-6, 1e-13, 0),
    "bessel_i1e": (2e-6, 0, 1e-14, 0),
    "asin": (3e-7, 0, 1e-15, 0), "acos": (3e-7, 0, 1e-15, 0), "atan": (3e-7, 0, 1e-15, 0),
    "asinh": (3e-7, 0, 1e-15, 0), "acosh": (3e-7, 0, 1e-15, 0), "atanh": (3e-7, 0, 1e-14, 0),
    "sinh": (2e-6, 0, 1e-14, 0), "cosh": (2e-6, 0, 1e-14, 0),  # float32: exp(x)/2 rounded twice
}  # fmt: skip


@pytest.mark.parametrize("name", list(CHLO))
def test_chlo_unary(name, dtype):
    rtol32, atol32, rtol64, atol64 = CHLO[name]
    rtol, atol = (rtol32, atol32) if dtype == np.float32 else (rtol64, atol64)
    check(getattr(lax, name), POINTS.astype(dtype), rtol=rtol, atol=atol)


def test_chlo_binary(dtype):
    tight = dtype == np.float64
    s = np.array([1.5, 2, 3, 4.5, 10, 1, 0.5, -1, np.nan, np.inf, 2, 2, 2, 2], dtype)
    q = np.array([1, 0.5, 2, 0.1, 3, 1, 1, 1, 1, 1, -1.5, 0, -2, np.inf], dtype)
    check(lax.zeta, s, q, rtol=1e-15 if tight else 2e-7)
    m = np.array([0, 1, 2, 3, 4, 1, 1, 1, 1.5, -1, 2, 0, 1, 1], dtype)
    check(lax.polygamma, m, q, rtol=1e-14 if tight else 5e-6)
    x = POINTS.astype(dtype)
    check(lax.nextafter, x, np.roll(x, 7), rtol=0)
