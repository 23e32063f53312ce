"""jax.random: the same keys give JAX's numbers (recorded once from real JAX in
data/random_bits.json), and the samples follow their distributions (Kolmogorov-Smirnov against
the exact CDF, moments, frequencies), at fixed seeds with wide margins."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.checks import show_call
from conformance.impl import Impl
from conformance.random_cases import CASES, Case, decode

# jax_threefry_partitionable=True where the implementation has the flag (older JAX releases).
pytestmark = [pytest.mark.area("random"), pytest.mark.requires("eval"), pytest.mark.usefixtures("random_flags")]

DATA = json.loads((Path(__file__).resolve().parent / "data" / "random_bits.json").read_text())


@pytest.fixture
def random(impl: Impl) -> Any:
    return impl.module.random


# ----------------------------------------------------------------------------------------------
# JAX's numbers.


def test_data_was_recorded_with_the_default_prng() -> None:
    assert DATA["meta"] == {
        "jax_version": "0.10.2",
        "jax_default_prng_impl": "threefry2x32",
        "jax_threefry_partitionable": True,
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_key_gives_jaxs_numbers(case: Case, random: Any, flags: Callable[[str, object], None]) -> None:
    flags("jax_enable_x64", case.x64)
    show_call("np.asarray(fn(jax.random)), decode(DATA['cases'][name])  # got, and JAX's numbers",
              fn=case.fn, name=case.name)  # fmt: skip
    want = decode(DATA["cases"][case.name])
    got = np.asarray(case.fn(random))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if case.rtol == 0 and case.atol == 0:
        assert np.array_equal(got.view(f"u{got.dtype.itemsize}") if got.dtype != np.bool_ else got,
                              want.view(f"u{want.dtype.itemsize}") if want.dtype != np.bool_ else want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol)


def test_a_key_is_used_up_by_nothing(random: Any) -> None:
    key = random.PRNGKey(3)
    first, second = np.asarray(random.uniform(key, (4,))), np.asarray(random.uniform(key, (4,)))
    assert np.array_equal(first, second)  # no hidden state: same key, same numbers


def test_split_keys_differ_from_each_other_and_from_the_parent(random: Any) -> None:
    key = random.PRNGKey(0)
    keys = np.asarray(random.split(key, 4))
    rows = {tuple(k) for k in keys.tolist()} | {tuple(np.asarray(key).tolist())}
    assert len(rows) == 5


def test_fold_in_rejects_data_outside_uint32(random: Any) -> None:
    with pytest.raises(OverflowError):
        random.fold_in(random.PRNGKey(0), -1)


def test_split_of_a_batch_of_keys_asks_for_vmap(random: Any) -> None:
    keys = random.split(random.PRNGKey(0), 3)
    with pytest.raises(ValueError, match="single key"):
        random.split(keys)


# name: a draw from a key, as an array of numbers (keys as their words).
FROM_A_KEY: dict[str, Callable[[Any, Any], Any]] = {
    "bits": lambda r, k: r.bits(k, (4,)),
    "uniform": lambda r, k: r.uniform(k, (4,)),
    "normal": lambda r, k: r.normal(k, (4,)),
    "split": lambda r, k: r.key_data(r.split(k, 3)),
    "fold_in": lambda r, k: r.key_data(r.fold_in(k, 5)),
}


@pytest.mark.parametrize("name", list(FROM_A_KEY))
def test_a_wrapped_key_draws_what_its_words_draw(name: str, random: Any) -> None:
    """wrap_key_data makes keys from uint32 words (a batch of them here); key_data gives the words
    back, and every key of the batch draws what its raw words do."""
    words = np.array([[0, 7], [2**32 - 1, 12345], [42, 0]], np.uint32)
    keys = random.wrap_key_data(words)
    np.testing.assert_array_equal(np.asarray(random.key_data(keys)), words)
    for i, raw in enumerate(words):
        got, want = np.asarray(FROM_A_KEY[name](random, keys[i])), np.asarray(FROM_A_KEY[name](random, raw))
        assert got.dtype == want.dtype and np.array_equal(got, want), (i, got, want)


def test_wrap_key_data_round_trips_the_words(random: Any) -> None:
    # Whether the key copies a NumPy buffer is not checked here: JAX 0.10.2 sometimes shares it
    # (an aligned buffer), so a test of it flakes on JAX. didax's own tests check that it copies.
    words = np.asarray(random.key_data(random.key(7)))
    np.testing.assert_array_equal(np.asarray(random.key_data(random.wrap_key_data(words))), words)
    key = random.wrap_key_data(np.array([3, 4], np.uint32))
    np.testing.assert_array_equal(np.asarray(random.key_data(key)), [3, 4])


def test_uniform_refuses_an_integer_dtype(random: Any) -> None:
    with pytest.raises(ValueError, match="float dtype"):
        random.uniform(random.PRNGKey(0), (), np.int32)


# ----------------------------------------------------------------------------------------------
# Distributions: Kolmogorov-Smirnov statistics against exact CDFs.


def ks_statistic(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray]) -> float:
    """sup |empirical CDF - CDF|, checked on both sides of every jump of the empirical CDF."""
    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    n = x.size
    f = cdf(x)
    above = np.arange(1, n + 1) / n - f
    below = f - np.arange(0, n) / n
    return float(max(above.max(), below.max()))


def ks_threshold(n: int) -> float:
    """A bound the statistic of a correct sampler exceeds with probability about 1e-6."""
    return math.sqrt(-math.log(0.5e-6) / (2 * n))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + _erf(x / math.sqrt(2)))


def regularized_lower_gamma(a: float, x: np.ndarray) -> np.ndarray:
    """P(a, x): a power series below a + 1, Lentz's continued fraction for Q above."""
    return np.array([_lower_gamma_one(a, float(v)) for v in x])


def _lower_gamma_one(a: float, x: float) -> float:
    if x <= 0:
        return 0.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > 1e-16 * abs(total):
            n += 1
            term *= x / n
            total += term
        return total * math.exp(log_prefix)
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1 - math.exp(log_prefix) * h


N = 20000
CONTINUOUS: list[tuple[str, Callable[[Any, Any], Any], Callable[[np.ndarray], np.ndarray]]] = [
    ("uniform", lambda r, k: r.uniform(k, (N,)), lambda x: np.clip(x, 0, 1)),
    ("uniform(-2, 3)", lambda r, k: r.uniform(k, (N,), minval=-2.0, maxval=3.0), lambda x: np.clip((x + 2) / 5, 0, 1)),
    ("normal", lambda r, k: r.normal(k, (N,)), normal_cdf),
    ("exponential", lambda r, k: r.exponential(k, (N,)), lambda x: 1 - np.exp(-np.maximum(x, 0))),
    ("gumbel", lambda r, k: r.gumbel(k, (N,)), lambda x: np.exp(-np.exp(-x))),
    ("gumbel(mode='high')", lambda r, k: r.gumbel(k, (N,), mode="high"), lambda x: np.exp(-np.exp(-x))),
    ("gumbel(mode='highest')", lambda r, k: r.gumbel(k, (N,), mode="highest"), lambda x: np.exp(-np.exp(-x))),
    (
        "truncated_normal(-1, 2)",
        lambda r, k: r.truncated_normal(k, -1.0, 2.0, (N,)),
        lambda x: (normal_cdf(x) - normal_cdf(np.array(-1.0))) / (normal_cdf(np.array(2.0)) - normal_cdf(np.array(-1.0))),
    ),
]


@pytest.mark.parametrize("name, draw, cdf", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_samples_follow_the_distribution(name: str, draw: Callable, cdf: Callable, random: Any) -> None:
    samples = np.asarray(draw(random, random.PRNGKey(20240)))
    assert ks_statistic(samples, cdf) < ks_threshold(samples.size)


@pytest.mark.parametrize("a", [0.5, 3.0])
def test_gamma_samples_follow_the_distribution(a: float, random: Any) -> None:
    samples = np.asarray(random.gamma(random.PRNGKey(5), a, (300,)))  # rejection sampling: slow in eval
    assert (samples > 0).all()
    assert ks_statistic(samples, lambda x: regularized_lower_gamma(a, x)) < ks_threshold(samples.size)


@pytest.mark.parametrize("a", [0.01, 3.0])
def test_loggamma_samples_follow_the_distribution(a: float, random: Any) -> None:
    """log of a Gamma(a) sample: P(X <= x) = P(a, e**x). With a = 0.01 about 40% of gamma's own float32
    samples would underflow to 0; their logarithms must still be there."""
    samples = np.asarray(random.loggamma(random.PRNGKey(7), a, (300,)))  # rejection sampling: slow in eval
    assert np.isfinite(samples).all()
    assert ks_statistic(samples, lambda x: regularized_lower_gamma(a, np.exp(x))) < ks_threshold(samples.size)


def test_beta_samples_have_the_beta_moments(random: Any) -> None:
    a, b, n = 2.0, 5.0, 150
    samples = np.asarray(random.beta(random.PRNGKey(6), a, b, (n,)), dtype=np.float64)
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    assert ((samples > 0) & (samples < 1)).all()
    assert abs(samples.mean() - mean) < 6 * math.sqrt(var / n)
    assert abs(samples.var() - var) < 0.5 * var


def test_dirichlet_samples_lie_on_the_simplex_with_the_right_mean(random: Any) -> None:
    alpha = np.array([1.0, 2.0, 3.0], np.float32)
    samples = np.asarray(random.dirichlet(random.PRNGKey(8), alpha, (100,)), dtype=np.float64)
    np.testing.assert_allclose(samples.sum(-1), 1.0, rtol=1e-5)
    mean = alpha / alpha.sum()
    assert np.all(np.abs(samples.mean(0) - mean) < 0.06)


# ----------------------------------------------------------------------------------------------
# Frequencies of discrete samples: each count within 6 standard deviations of its expectation.


def assert_frequencies(samples: np.ndarray, probabilities: np.ndarray) -> None:
    n = samples.size
    counts = np.bincount(samples.ravel().astype(np.int64), minlength=probabilities.size)
    assert counts.size == probabilities.size, counts
    expected = n * probabilities
    spread = np.sqrt(n * probabilities * (1 - probabilities))
    assert np.all(np.abs(counts - expected) <= 6 * spread + 1), (counts, expected)


def test_bernoulli_frequencies(random: Any) -> None:
    samples = np.asarray(random.bernoulli(random.PRNGKey(1), 0.3, (N,)))
    assert samples.dtype == np.bool_
    assert_frequencies(samples, np.array([0.7, 0.3]))


def test_bernoulli_frequencies_with_mode_high(random: Any) -> None:
    samples = np.asarray(random.bernoulli(random.PRNGKey(1), 0.3, (N,), mode="high"))
    assert_frequencies(samples, np.array([0.7, 0.3]))


@pytest.mark.parametrize("call", ["gumbel", "bernoulli", "categorical"])
def test_an_unknown_sampling_mode_raises_value_error(call: str, random: Any) -> None:
    key = random.PRNGKey(0)
    with pytest.raises(ValueError):
        if call == "gumbel":
            random.gumbel(key, (3,), mode="medium")
        elif call == "bernoulli":
            random.bernoulli(key, 0.5, (3,), mode="highest")  # gumbel's third mode only
        else:
            random.categorical(key, np.zeros(3, np.float32), mode="medium")


def test_randint_frequencies(random: Any) -> None:
    samples = np.asarray(random.randint(random.PRNGKey(2), (N,), 3, 10)) - 3
    assert_frequencies(samples, np.full(7, 1 / 7))


def test_choice_frequencies_with_p(random: Any) -> None:
    p = np.array([0.1, 0.2, 0.3, 0.15, 0.25], np.float32)
    samples = np.asarray(random.choice(random.PRNGKey(3), 5, (N,), p=p))
    assert_frequencies(samples, p.astype(np.float64))


def test_choice_without_replacement_draws_distinct_elements(random: Any) -> None:
    samples = np.asarray(random.choice(random.PRNGKey(4), 50, (50,), replace=False))
    assert sorted(samples.tolist()) == list(range(50))


def test_categorical_frequencies(random: Any) -> None:
    p = np.array([0.1, 0.2, 0.7])
    samples = np.asarray(random.categorical(random.PRNGKey(5), np.log(p).astype(np.float32), shape=(N,)))
    assert_frequencies(samples, p)


def test_permutation_positions_are_uniform(random: Any) -> None:
    """Where element 0 lands, over many keys: every position equally often."""
    keys = np.asarray(random.split(random.PRNGKey(9), 600))
    landed = [int(np.argmax(np.asarray(random.permutation(k, 6)) == 0)) for k in keys]
    assert_frequencies(np.array(landed), np.full(6, 1 / 6))
