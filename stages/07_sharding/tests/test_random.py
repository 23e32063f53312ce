"""didax.random's raw keys: key_data and wrap_key_data hand back didax arrays, never the caller's buffer;
the sampling modes; and gamma's rejection loops, staged as while loops in stage 04."""

import numpy as np
import pytest

import didax
from didax import random
from didax.array import Array


@pytest.mark.parametrize("fn", [random.key_data, random.wrap_key_data])
def test_a_key_made_from_a_numpy_buffer_does_not_change_with_it(fn):
    buf = np.array([[1, 2], [3, 4]], np.uint32)
    keys = fn(buf)
    assert isinstance(keys, Array)
    before = random.uniform(keys[1], (3,)).tolist()
    buf[:] = 9  # JAX copies the words into its own array: so does didax
    assert np.asarray(random.key_data(keys)).tolist() == [[1, 2], [3, 4]]
    assert random.uniform(keys[1], (3,)).tolist() == before


# --- sampling modes ----------------------------------------------------------------------------


def test_fixed_point_to_float32_keeps_the_24_bits_after_the_leading_one() -> None:
    """gumbel's mode='highest' reads 64 random bits as a fraction in (0, 1); the float32 it makes
    is that fraction rounded toward zero (Python's integers are the oracle)."""
    from didax.random.distributions import _fixed_point_to_float32

    words = [(2**31, 0), (1, 0), (0, 1), (0x12345678, 0x9ABCDEF0), (0, 0xFFFFFFFF), (0x00000ABC, 0xDEF01234)]
    got = np.asarray(_fixed_point_to_float32(np.array(words, np.uint32).T))
    for (hi, lo), value in zip(words, got):
        v = hi << 32 | lo
        drop = max(v.bit_length() - 24, 0)
        assert value == np.float32((v >> drop << drop) / 2**64), (hi, lo)


@pytest.mark.parametrize("mode", ["low", "high", "highest"])
def test_gumbel_modes_have_the_gumbel_mean_and_variance(mode: str) -> None:
    x = np.asarray(random.gumbel(random.PRNGKey(3), (40000,), mode=mode), np.float64)
    assert abs(x.mean() - np.euler_gamma) < 0.03
    assert abs(x.var() - np.pi**2 / 6) < 0.06


def test_bernoulli_mode_high_draws_p_as_often_as_it_says_and_checks_its_mode() -> None:
    """mode='high' compares u1 + u2 * 2**-23 with p: a small p is still True about N * p times."""
    p = np.array([2.0**-10], np.float32)
    x = np.asarray(random.bernoulli(random.PRNGKey(0), p, (50000, 1), mode="high"))
    assert 20 < x.sum() < 80  # 49 expected
    with pytest.raises(ValueError, match="expected 'high' or 'low'"):
        random.bernoulli(random.PRNGKey(0), 0.5, mode="highest")
    with pytest.raises(ValueError, match="valid mode for gumbel"):
        random.gumbel(random.PRNGKey(0), mode="medium")


# --- gamma: its rejection loops staged (stage 04) ----------------------------------------------


def gamma_by_python_loops(key, alpha: float, log_space: bool = False) -> np.ndarray:
    """The oracle: Marsaglia and Tsang's method with Python loops on known values (stage 01's
    sampler), drawing from the same keys in the same order as JAX's _gamma_one."""
    dtype = np.float32
    boost = alpha >= 1
    a = np.float32(alpha if boost else alpha + 1)
    d = a - np.float32(1 / 3)
    c = np.float32(1 / 3) / np.sqrt(d)
    key, subkey = random.split(key)
    X, V, U = np.float32(0), np.float32(1), np.float32(2)
    while U >= 1 - np.float32(0.0331) * X * X and np.log(U) >= X * np.float32(0.5) + d * (1 - V + np.log(V)):
        key, x_key, u_key = random.split(key, 3)
        x, v = np.float32(0), np.float32(-1)
        while v <= 0:
            x_key, normal_key = random.split(x_key)
            x = np.float32(random.normal(normal_key, (), dtype))
            v = 1 + x * c
        X, V, U = x * x, v * v * v, np.float32(random.uniform(u_key, (), dtype))
    if log_space:
        log_u = -np.float32(random.exponential(subkey, (), dtype))
        log_boost = 0 if boost or log_u == 0 else log_u * (1 / np.float32(alpha))
        return np.log(d) + np.log(V) + np.float32(log_boost)
    u = 1 - np.float32(random.uniform(subkey, (), dtype))
    return d * V * (1 if boost else np.float32(np.float64(u) ** np.float64(1 / np.float32(alpha))))


@pytest.mark.parametrize("log_space", [False, True])
def test_staged_gamma_accepts_the_python_loops_candidates(log_space: bool) -> None:
    """Each element's sample comes from its own key of split(key, n), by the same candidates the
    Python loops accept (values within a few ulps: the oracle rounds with NumPy scalars)."""
    alphas = np.array([0.05, 0.5, 1.0, 2.5, 30.0], np.float32)
    fn = random.loggamma if log_space else random.gamma
    for seed in range(4):
        key = random.PRNGKey(seed)
        got = np.asarray(fn(key, alphas))
        want = [gamma_by_python_loops(k, a, log_space) for k, a in zip(random.split(key, 5), alphas)]
        np.testing.assert_allclose(got, np.array(want, np.float32), rtol=2e-6)


def test_make_jaxpr_of_gamma_shows_one_random_gamma_equation() -> None:
    """As JAX's: the sampler is one primitive; its evaluation (the loops) is not in the jaxpr."""
    key = random.PRNGKey(3)
    closed = didax.make_jaxpr(lambda k, a: random.gamma(k, a))(key, 0.7)
    names = [e.primitive.name for e in closed.eqns]
    assert names == ["random_wrap", "convert_element_type", "random_gamma"]
    assert closed.eqns[-1].params == {"log_space": False}
    logs = didax.make_jaxpr(lambda k, a: random.loggamma(k, a))(key, 0.7)
    assert logs.eqns[-1].params == {"log_space": True}


def test_random_gamma_impl_stages_the_rejection_loops_as_nested_whiles() -> None:
    """A while for the accept/reject loop, and in its body the while that redraws x until
    1 + c x > 0; the jaxpr is well typed and runs to the eager bits."""
    from didax.jaxpr import check_jaxpr, eval_jaxpr
    from didax.random.distributions import _gamma_impl

    key, a = random.key(3), np.float32(0.7)
    closed = didax.make_jaxpr(lambda k, a: _gamma_impl(k, a, log_space=False))(key, a)
    (outer,) = [e for e in closed.eqns if e.primitive.name == "while"]
    assert [e.primitive.name for e in outer.params["body_jaxpr"].eqns].count("while") == 1
    check_jaxpr(closed.jaxpr)
    (got,) = eval_jaxpr(closed.jaxpr, closed.consts, key, a)
    assert np.asarray(got).view(np.uint32) == np.asarray(random.gamma(key, 0.7)).view(np.uint32)


def test_jvp_of_gamma_stages_random_gamma_grad_not_the_loops() -> None:
    closed = didax.make_jaxpr(lambda a: didax.jvp(lambda a: random.gamma(random.key(0), a), (a,), (1.0,)))(2.0)
    names = [e.primitive.name for e in closed.eqns]
    assert "random_gamma" in names and "random_gamma_grad" in names and "while" not in names


def test_jvp_through_gamma_keeps_its_bits() -> None:
    key = random.PRNGKey(4)
    sample = random.gamma(key, 2.5, (3,))
    primal, tangent = didax.jvp(lambda s: s * random.gamma(key, 2.5, (3,)), (2.0,), (1.0,))
    np.testing.assert_array_equal(np.asarray(tangent), np.asarray(sample))
    np.testing.assert_array_equal(np.asarray(primal), 2.0 * np.asarray(sample))


def test_random_gamma_splits_each_key_over_the_elements_it_covers():
    # JAX's random_gamma on keys of shape K and a of shape (*K, *S) splits each key into prod(S)
    # keys: the sample under key i is gamma(keys[i], a[i]) (oracle: the loop over keys).
    from didax.random.distributions import random_gamma_p

    keys = random.split(random.key(7), 2)
    a = np.array([[0.5, 2.0, 3.0], [1.0, 0.25, 8.0]], np.float32)
    batched = np.asarray(random_gamma_p.bind(keys, Array(a), log_space=False))
    looped = np.stack([np.asarray(random.gamma(keys[i], a[i])) for i in range(2)])
    np.testing.assert_array_equal(batched, looped)
    logs = np.asarray(random_gamma_p.bind(keys, Array(a), log_space=True))
    np.testing.assert_array_equal(logs, np.stack([np.asarray(random.loggamma(keys[i], a[i])) for i in range(2)]))


def test_random_gamma_refuses_keys_that_a_does_not_start_with():
    from didax.random.distributions import random_gamma_p

    with pytest.raises(TypeError, match="must start with"):
        random_gamma_p.abstract_eval(random.split(random.key(0), 2).aval, Array(np.ones(3, np.float32)).aval, log_space=False)


# The derivative of a Gamma(a) sample in a is random_gamma_grad's (implicit reparameterization), as
# JAX's: the sample x moves with a so that its quantile P(a, x) stays fixed. Real JAX 0.10.2's
# figures for key PRNGKey(1) and a = ALPHAS, computed once; the oracle below checks them too.
ALPHAS = np.array([0.05, 0.7, 2.5, 9.0], np.float32)
JAX_GAMMA_TANGENTS = np.array([1.4281301e-13, 1.3046650, 1.4005425, 1.0573064], np.float32)
JAX_LOGGAMMA_TANGENTS = np.array([7.1297693e02, 1.7032871, 3.1758955e-01, 1.0900850e-01], np.float32)
JAX_BETA_TANGENTS = np.array([2.5016205e-05, 2.1180432e-01, 1.5773624e-02, 3.3238370e-02], np.float32)
JAX_DIRICHLET_TANGENTS = np.array([0.020760607, 0.04153537, -0.062295962], np.float32)


def _inverse_cdf_derivative(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/da at fixed quantile q = P(a, x), by central differences of scipy's inverse CDF in float64."""
    special = pytest.importorskip("scipy.special")
    a, x = a.astype(np.float64), x.astype(np.float64)
    q, h = special.gammainc(a, x), 1e-6 * a
    return (special.gammaincinv(a + h, q) - special.gammaincinv(a - h, q)) / (2 * h)


def test_jvp_of_gamma_in_a_is_the_implicit_reparameterization_derivative():
    from didax import jvp

    key = random.PRNGKey(1)
    x, dx = jvp(lambda a: random.gamma(key, a), (ALPHAS,), (np.ones(4, np.float32),))
    x, dx = np.asarray(x), np.asarray(dx)
    np.testing.assert_allclose(dx, JAX_GAMMA_TANGENTS, rtol=2e-6)
    # float32 rounding of random_gamma_grad (computed in float64) is ~1e-7; the differences' error
    # is ~h^2 ~ 1e-12 of it: 1e-5 leaves room, and a wrong factor is off by far more.
    np.testing.assert_allclose(dx, _inverse_cdf_derivative(ALPHAS, x), rtol=1e-5)


def test_jvp_of_loggamma_in_a_divides_by_the_sample():
    from didax import jvp

    key = random.PRNGKey(1)
    logx, dlogx = jvp(lambda a: random.loggamma(key, a), (ALPHAS,), (np.ones(4, np.float32),))
    logx, dlogx = np.asarray(logx), np.asarray(dlogx)
    np.testing.assert_allclose(dlogx, JAX_LOGGAMMA_TANGENTS, rtol=2e-6)
    x = np.exp(logx.astype(np.float64))  # 7.4e-16 at a = 0.05: beyond float32's gamma, not loggamma's
    np.testing.assert_allclose(dlogx, _inverse_cdf_derivative(ALPHAS, x) / x, rtol=1e-5)


def test_jvp_of_beta_and_dirichlet_follow_from_gamma():
    from didax import jvp

    key = random.PRNGKey(1)
    _, db = jvp(lambda a: random.beta(key, a, 1.5), (ALPHAS,), (np.ones(4, np.float32),))
    np.testing.assert_allclose(np.asarray(db), JAX_BETA_TANGENTS, rtol=5e-6)
    _, dd = jvp(lambda a: random.dirichlet(key, a), (ALPHAS[1:],), (np.ones(3, np.float32),))
    np.testing.assert_allclose(np.asarray(dd), JAX_DIRICHLET_TANGENTS, rtol=5e-6, atol=1e-7)


def test_random_gamma_keys_get_no_tangent():
    from didax import jvp

    def f(a):
        return random.gamma(random.PRNGKey(1), a)

    _, dx = jvp(f, (np.float32(2.0),), (np.float32(0.0),))
    assert float(dx) == 0.0


def test_gamma_samples_all_elements_at_once_as_jax_samples_each_alone() -> None:
    """gamma's loops run over all elements together, each element drawing from its own key: with
    key(0) and these 1,000 elements, 23 are rejected once and one twice, and 3 draw x again (v <= 0)
    while the others wait. Real JAX samples each element by itself: the oracle."""
    jax = pytest.importorskip("jax")
    a = np.array([0.01, 0.3, 1.0, 2.5, 10.0], np.float32)
    got = np.asarray(random.gamma(random.key(0), a, (200, 5)))
    want = np.asarray(jax.random.gamma(jax.random.key(0), a, (200, 5)))
    # The same draws, rounded alike but for ulps (XLA's log and pow); XLA flushes subnormal results to 0.
    normal = want >= np.finfo(np.float32).tiny
    assert normal.sum() > 900
    np.testing.assert_allclose(got[normal], want[normal], rtol=1e-5)
