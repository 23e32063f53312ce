"""didax.random's raw keys: key_data and wrap_key_data hand back didax arrays, never the caller's buffer."""

import numpy as np
import pytest

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
