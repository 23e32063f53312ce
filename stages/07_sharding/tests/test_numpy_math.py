"""didax.numpy's Bessel function i0 and Kaiser window, einsum's diagonals, weighted quantiles,
complex logaddexp, cov, corrcoef, gradient and unwrap, against NumPy (and Python's decimal module
for I0); float32 power against Python's float power."""

import decimal
from fractions import Fraction

import numpy as np
import pytest

import didax
import didax.numpy as jnp


def i0_reference(x: float) -> float:
    """I0(x) to about 40 digits: its power series sum_k (x^2/4)^k / (k!)^2, in decimal arithmetic."""
    with decimal.localcontext() as context:
        context.prec = 50
        t = decimal.Decimal(float(x)) ** 2 / 4
        term = total = decimal.Decimal(1)
        k = 0
        while term > total * decimal.Decimal("1e-45"):
            k += 1
            term = term * t / (k * k)
            total += term
        return float(total)


# --- i0 and kaiser ---------------------------------------------------------------------------------


def test_i0_is_accurate_in_float64_and_float32():
    x = np.linspace(-80, 80, 321)
    want = np.array([i0_reference(v) for v in x])
    with didax.enable_x64():
        got = np.asarray(jnp.i0(x))
    assert got.dtype == np.float64
    assert np.max(np.abs(got - want) / want) < 2e-15  # measured: 5e-16
    x32 = x.astype(np.float32)
    got32 = np.asarray(jnp.i0(x32))
    assert got32.dtype == np.float32
    # exp(|x|) and bessel_i0e(|x|) are each rounded to float32, then their product: a few ulps.
    want32 = np.array([i0_reference(v) for v in x32])
    assert np.max(np.abs(got32 - want32) / want32) < 4e-7  # measured: 2e-7


def test_i0_promotes_like_jax_and_refuses_complex_numbers():
    assert jnp.i0(1).dtype == np.float32 and jnp.i0(1).weak_type  # a weak int: the weak default float
    assert jnp.i0(np.int8(3)).dtype == np.float32 and not jnp.i0(np.int8(3)).weak_type
    assert jnp.i0(np.float16(2)).dtype == np.float16
    assert float(jnp.i0(np.float32(0))) == 1.0
    np.testing.assert_array_equal(np.asarray(jnp.i0(np.array([np.nan, 100.0], np.float32))), [np.nan, np.inf])
    with pytest.raises(ValueError, match="complex64"):
        jnp.i0(np.complex64(1j))


@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("beta", [0.0, 2.5, 8.6, -3, 14])
def test_kaiser_window_matches_numpy(M, beta):
    with didax.enable_x64():
        got = jnp.kaiser(M, beta)
        assert got.dtype == np.float64 and not got.weak_type
        np.testing.assert_allclose(np.asarray(got), np.kaiser(M, beta), rtol=1e-14)
    got = jnp.kaiser(M, beta)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.kaiser(M, beta), rtol=2e-6)


def test_kaiser_takes_i0_of_beta_in_betas_own_dtype():
    # As in JAX: with x64 on, the window is float64, but I0(beta) of a float16 beta is a float16 one.
    with didax.enable_x64():
        got = np.asarray(jnp.kaiser(4, np.float16(3)))
        beta_i0 = float(np.float16(np.i0(3.0)))
        np.testing.assert_allclose(got[0], np.i0(3.0 * np.sqrt(0.0)) / beta_i0, rtol=1e-12)
        assert got.dtype == np.float64


# --- einsum: a label repeated within one operand ------------------------------------------------

DIAGONAL_CASES = [
    ("ii->i", [(3, 3)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("iii->i", [(3, 3, 3)]),
    ("ijij->ij", [(2, 3, 2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("bii,bij->bj", [(2, 3, 3), (2, 3, 4)]),
    ("ij,jj,jk->ik", [(2, 3), (3, 3), (3, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", DIAGONAL_CASES, ids=[c[0] for c in DIAGONAL_CASES])
@pytest.mark.parametrize("optimize", [False, "greedy"])
def test_einsum_reads_the_diagonal_of_a_repeated_label(subscripts, shapes, optimize):
    rng = np.random.default_rng(0)
    operands = [rng.integers(-5, 6, shape).astype(np.float32) for shape in shapes]
    got = jnp.einsum(subscripts, *operands, optimize=optimize)
    want = np.einsum(subscripts, *operands)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), want)


def test_einsum_diagonal_ignores_what_is_off_it():
    x = np.array([[1.0, np.inf], [np.nan, 2.0]], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ii->i", x)), [1.0, 2.0])
    b = np.array([[False, True], [True, False]])
    assert jnp.einsum("ii", b).dtype == np.bool_ and not bool(jnp.einsum("ii", b))  # an or of bools
    assert bool(jnp.einsum("ii", ~b))
    with pytest.raises(ValueError, match="more than once in the output"):
        jnp.einsum("ii->ii", np.ones((2, 2)))


# --- quantiles with weights ------------------------------------------------------------------------

Q = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0], np.float32)


def weight_cases(w: np.ndarray, axis) -> list[tuple[np.ndarray, np.ndarray]]:
    """(weights as given to quantile, the same weights at every element of x, as NumPy takes them):
    a's shape, or with an axis given, the shape of the reduced axes in axis order."""
    cases = [(w, w)]
    if axis == 0:
        cases.append((w[:, 0], np.broadcast_to(w[:, :1], w.shape)))
    if axis in (1, -1):
        cases.append((w[0], np.broadcast_to(w[:1], w.shape)))
    if axis == (1, 0):
        cases.append((w.T, w))
    return cases


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), (1, 0)])
def test_weighted_quantile_is_numpys_inverted_cdf(axis):
    rng = np.random.default_rng(1)
    x = rng.integers(-9, 10, (4, 6)).astype(np.float32)
    w = rng.integers(1, 4, (4, 6)).astype(np.float32)  # positive: NumPy skips zero weights at q = 0
    for weights, full in weight_cases(w, axis):
        got = jnp.quantile(x, Q, axis=axis, method="inverted_cdf", weights=weights)
        want = np.quantile(x, Q, axis=axis, method="inverted_cdf", weights=full)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), want)
        got = jnp.percentile(x, Q * 100, axis=axis, method="inverted_cdf", weights=weights, keepdims=True)
        want = np.percentile(x, Q * 100, axis=axis, method="inverted_cdf", weights=full, keepdims=True)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_weighted_nanquantile_gives_nans_no_weight():
    x = np.array([[3.0, np.nan, 4.0, 1.5, 9.0], [2.0, 7.0, 1.0, 8.0, np.nan]], np.float32)
    w = np.array([[1.0, 2.0, 1.0, 1.0, 3.0], [1.0, 2.0, 3.0, 1.0, 1.0]], np.float32)
    for name in ["nanquantile", "nanpercentile"]:
        scale = 100 if "percent" in name else 1
        got = getattr(jnp, name)(x, Q * scale, axis=1, method="inverted_cdf", weights=w)
        want = getattr(np, name)(x, Q * scale, axis=1, method="inverted_cdf", weights=w)
        np.testing.assert_array_equal(np.asarray(got), want)
    # quantile (not nan-) of a row holding a NaN is NaN
    got = np.asarray(jnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=w))
    assert np.isnan(got).all()


def test_inverted_cdf_without_weights_matches_numpy():
    x = np.arange(10.0, dtype=np.float32)[::-1].reshape(2, 5)
    got = jnp.quantile(x, Q, axis=1, method="inverted_cdf")
    np.testing.assert_array_equal(np.asarray(got), np.quantile(x, Q, axis=1, method="inverted_cdf"))


def test_a_negative_or_nan_weight_makes_the_quantile_nan():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    w = np.array([[1.0, -1.0, 1.0], [1.0, 1.0, np.nan]], np.float32)
    assert np.isnan(np.asarray(jnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=w))).all()


def test_weights_errors_name_the_problem():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(NotImplementedError, match="only 'inverted_cdf'"):
        jnp.quantile(x, 0.5, axis=1, weights=np.ones(3))
    with pytest.raises(ValueError, match="complex"):
        jnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=np.ones(3, np.complex64))
    with pytest.raises(ValueError, match="axis=None"):
        jnp.quantile(x, 0.5, method="inverted_cdf", weights=np.ones(3))
    with pytest.raises(ValueError, match="reduced axes"):
        jnp.quantile(x, 0.5, axis=0, method="inverted_cdf", weights=np.ones(3))
    with pytest.raises(ValueError, match="method must be one of"):
        jnp.quantile(x, 0.5, method="hazen")


def test_weights_join_the_dtype_of_the_data():
    x = np.arange(6, dtype=np.int32)
    assert jnp.quantile(x, 0.5, method="inverted_cdf", weights=np.ones(6, np.int8)).dtype == np.float32
    with didax.enable_x64():
        got = jnp.quantile(x.astype(np.float32), 0.5, method="inverted_cdf", weights=np.ones(6))
        assert got.dtype == np.float64 and not got.weak_type


# --- complex logaddexp -----------------------------------------------------------------------------


def test_complex_logaddexp_is_the_principal_log_of_the_sum():
    rng = np.random.default_rng(2)
    x = rng.uniform(-30, 30, 500) + 1j * rng.uniform(-1, 1, 500)  # |Im(x - y)| < 2: no cancellation
    y = rng.uniform(-30, 30, 500) + 1j * rng.uniform(-1, 1, 500)
    with didax.enable_x64():
        got = np.asarray(jnp.logaddexp(x, y))
        got2 = np.asarray(jnp.logaddexp2(x, y))
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, np.log(np.exp(x) + np.exp(y)), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got2, np.log2(2**x + 2**y), rtol=1e-13, atol=1e-13)


def test_complex_logaddexp_turns_the_imaginary_part_into_the_principal_range():
    # log1p(exp(.)) adds up to pi to Im(big): the result is brought back into [-pi, pi).
    x = np.array([3 + 3j, -2 - 3j, 1e4 + 1j], np.complex64)
    y = np.array([3 + 3j, -2.5 + 3.1j, 0j], np.complex64)
    got = np.asarray(jnp.logaddexp(x, y))
    with np.errstate(over="ignore"):
        want = np.log(np.exp(x.astype(complex)) + np.exp(y.astype(complex)))
    want[2] = x[2]  # exp(1e4) overflows the oracle; the result is x
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.all(np.abs(got.imag) <= np.pi)
    assert jnp.logaddexp(1j, 2.0).weak_type and not jnp.logaddexp(np.float32(1), 2j).weak_type


# --- cov, corrcoef, gradient, unwrap ---------------------------------------------------------------

X = np.array([[1.0, 2, 4, 7, 3], [0, 1, 0, 3, 2], [2, 2, 5, 1, -1]])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rowvar": False},
        {"bias": True},
        {"ddof": 2},
        {"fweights": np.array([1, 2, 1, 1, 3])},
        {"aweights": np.array([0.5, 1, 2, 1, 0.25])},
        {"fweights": np.array([1, 2, 1, 1, 3]), "aweights": np.array([0.5, 1, 2, 1, 0.25])},
        {"aweights": np.array([0.5, 1, 2, 1, 0.25]), "ddof": 0},
    ],
    ids=lambda kwargs: ",".join(kwargs) or "plain",
)
def test_cov_and_corrcoef_match_numpy(kwargs):
    with didax.enable_x64():
        got = jnp.cov(X, **kwargs)
        assert got.dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), np.cov(X, **kwargs), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(jnp.cov(X[0], X[2])), np.cov(X[0], X[2]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.corrcoef(X)), np.corrcoef(X), rtol=1e-6)
    got = jnp.corrcoef(X, rowvar=False)
    np.testing.assert_allclose(np.asarray(got), np.corrcoef(X, rowvar=False), rtol=1e-5)
    z = X + 1j * X[::-1]
    np.testing.assert_allclose(np.asarray(jnp.cov(z)), np.cov(z), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.corrcoef(z)), np.corrcoef(z), rtol=1e-6, atol=1e-7)


def test_cov_edge_cases_and_errors():
    assert jnp.cov(X[0]).shape == () and jnp.corrcoef(X[0]).shape == ()
    assert float(jnp.corrcoef(X[0])) == 1.0 and np.isnan(float(jnp.corrcoef(np.ones(3))))  # 0 / 0
    assert jnp.cov(np.ones((0, 3))).shape == (0, 0)
    assert np.isnan(np.asarray(jnp.cov(np.ones((2, 0), np.float32)))).all()
    assert jnp.cov(X.astype(np.int32)).dtype == np.float32
    assert jnp.cov(X, dtype=np.float16).dtype == np.float16
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        jnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="fweights must be integer"):
        jnp.cov(X, fweights=np.ones(5))
    with pytest.raises(RuntimeError, match="incompatible numbers of samples"):
        jnp.cov(X, aweights=np.ones(4))
    with pytest.raises(ValueError, match="float or complex"):
        jnp.cov(X, dtype=np.int32)


def test_gradient_matches_numpy():
    f = X**2
    with didax.enable_x64():
        for got, want in zip(jnp.gradient(f), np.gradient(f)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)
        for got, want in zip(jnp.gradient(f, 2.0, 0.5), np.gradient(f, 2.0, 0.5)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)
        coordinates = (np.array([0.0, 1, 3]), np.array([0.0, 0.5, 2, 2.5, 4]))
        for got, want in zip(jnp.gradient(f, *coordinates), np.gradient(f, *coordinates)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
        got = jnp.gradient(f, axis=-1)
        np.testing.assert_allclose(np.asarray(got), np.gradient(f, axis=-1), rtol=1e-14)
    assert jnp.gradient(np.array([1, 4, 9, 16])).dtype == np.float32
    assert jnp.gradient(f, axis=()) == []
    with pytest.raises(NotImplementedError, match="edge_order"):
        jnp.gradient(f, edge_order=1)
    with pytest.raises(ValueError, match="at least 2 elements"):
        jnp.gradient(np.ones(1))
    with pytest.raises(TypeError, match="3 spacing arguments for 2 axes"):
        jnp.gradient(f, 1.0, 2.0, 3.0)


def test_unwrap_matches_numpy():
    rng = np.random.default_rng(3)
    p = np.cumsum(rng.uniform(-4, 4, (3, 20)), axis=1)
    with didax.enable_x64():
        for kwargs in [{}, {"axis": 0}, {"discont": 4.0}, {"period": 5.0}, {"period": 5.0, "discont": 1.0}]:
            got = jnp.unwrap(p, **kwargs)
            np.testing.assert_allclose(np.asarray(got), np.unwrap(p, **kwargs), rtol=1e-13)
        steps = np.array([0, 3, 6, 1, -3, 5, 9, 2])
        np.testing.assert_array_equal(np.asarray(jnp.unwrap(steps, period=4)), np.unwrap(steps, period=4))
    assert jnp.unwrap(np.array([0, 3, 6])).dtype == np.float32  # the period, 2 pi, is a float
    assert jnp.unwrap(np.zeros((2, 0))).shape == (2, 0)
    with pytest.raises(ValueError, match="complex"):
        jnp.unwrap(np.zeros(3, np.complex64))


def test_log10_multiplies_by_the_rounded_reciprocal_of_log_10_as_jax_does() -> None:
    """log10(2) in float32: log(2) * float32(1 / log(10)) is one ulp above log(2) / log(10)."""
    x = np.float32(2.0)
    want = np.log(x) * np.float32(0.4342944819032518)
    assert np.asarray(jnp.log10(x)).view(np.uint32) == want.view(np.uint32)
    assert jnp.log10(np.float16(3)).dtype == np.float16


# --- pow ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_pow_is_the_exact_power_rounded_once_at_any_rank(dtype):
    """XLA's float pow is nearly always the exact power rounded to the dtype, and so is didax's, for
    a 0-d array as for a longer one (NumPy's own float power is neither). The oracle: Python's
    Fraction for float64 (an integer power of the exact base), its float power for float32."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 2, 400).astype(dtype)
    if dtype == "float32":
        y = rng.uniform(-3, 3, 400).astype(dtype)
        want = np.array([np.float32(float(a) ** float(b)) for a, b in zip(x, y)])
    else:  # exponents whose exact power a Fraction computes
        y = rng.integers(-6, 7, 400).astype(dtype)
        want = np.array([float(Fraction(float(a)) ** int(b)) for a, b in zip(x, y)])  # a > 0
    with didax.enable_x64():
        np.testing.assert_array_equal(np.asarray(jnp.power(x, y)), want)
        scalars = [np.asarray(jnp.power(a, b)) for a, b in zip(x[:40], y[:40])]
    np.testing.assert_array_equal(np.array(scalars), want[:40])
