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

from conformance.checks import release_detail, show_call
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
# Typed keys: random.key makes an array of dtype key<fry>, whose uint32 words (key_data) hide in a
# trailing axis. A typed key draws what its words draw as a raw key, JAX's numbers; structural
# operations move whole keys (NumPy on the words is the oracle); arithmetic refuses them.


def _is_key(x: Any, impl: Impl) -> bool:
    return impl.dtypes.issubdtype(x.dtype, impl.dtypes.prng_key)


def _words(x: Any, random: Any, impl: Impl) -> np.ndarray:
    """An output as NumPy: a key array as its words."""
    return np.asarray(random.key_data(x) if _is_key(x, impl) else x)


TYPED_CASES = [c for c in CASES if "_key" in c.fn.__code__.co_names]  # the cases drawing from _key(r)


@pytest.mark.parametrize("case", TYPED_CASES, ids=[c.name for c in TYPED_CASES])
def test_a_typed_key_gives_jaxs_numbers(case: Case, random: Any, impl: Impl, flags: Callable[[str, object], None],
                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Every recorded case again, drawn from the typed key random.key(seed) instead of the raw
    PRNGKey(seed): the same bits (keys that come out are compared by their words)."""
    import conformance.random_cases as random_cases

    flags("jax_enable_x64", case.x64)
    monkeypatch.setattr(random_cases, "_key", lambda r, seed=1701: r.key(seed))
    show_call("_key = lambda r, seed=1701: r.key(seed)  # a typed key\nfn(jax.random), decode(DATA['cases'][name])",
              fn=case.fn, name=case.name)  # fmt: skip
    out = case.fn(random)
    assert case.name.startswith(("split", "fold_in")) == _is_key(out, impl), f"{case.name} gave dtype {out.dtype}"
    got, want = _words(out, random, impl), decode(DATA["cases"][case.name])
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if case.rtol == 0 and case.atol == 0:
        same = got == want if got.dtype == np.bool_ else got.view(f"u{got.dtype.itemsize}") == want.view(f"u{want.dtype.itemsize}")
        assert same.all()
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol)


def test_a_typed_key_is_a_scalar_of_an_extended_dtype(random: Any, impl: Impl) -> None:
    key = random.key(0)
    assert key.shape == () and key.ndim == 0 and str(key.dtype) == "key<fry>" and key.dtype.itemsize == 8
    assert _is_key(key, impl) and impl.dtypes.issubdtype(key.dtype, impl.dtypes.extended)
    assert not impl.dtypes.issubdtype(key.dtype, np.integer) and not impl.numpy.issubdtype(key.dtype, np.number)
    assert not impl.dtypes.issubdtype(np.dtype(np.uint32), impl.dtypes.prng_key)
    assert random.key_impl(key) == random.key_impl(random.PRNGKey(0)) == "threefry2x32"
    assert key.dtype == random.key_dtype() == random.key_dtype("threefry2x32") and key.dtype != np.dtype(np.uint32)
    keys = random.split(key, (2, 3))
    assert keys.shape == (2, 3) and keys.dtype == key.dtype and keys.size == 6 and keys.nbytes == 48


@pytest.mark.parametrize("seed", [0, 1, -1, 2**31, 2**32 + 5])
def test_the_words_of_a_typed_key_are_the_raw_key(seed: int, random: Any) -> None:
    np.testing.assert_array_equal(np.asarray(random.key_data(random.key(seed))), np.asarray(random.PRNGKey(seed)))


def test_split_and_fold_in_give_typed_keys_for_a_typed_key_and_raw_for_raw(random: Any, impl: Impl) -> None:
    typed, raw = random.key(11), random.PRNGKey(11)
    for op in (lambda k: random.split(k, 3), lambda k: random.fold_in(k, 9)):
        t, r = op(typed), op(raw)
        assert _is_key(t, impl) and not _is_key(r, impl) and np.dtype(r.dtype) == np.uint32
        assert tuple(r.shape) == (*t.shape, 2)
        np.testing.assert_array_equal(np.asarray(random.key_data(t)), np.asarray(r))


KEY_WORDS = np.arange(12, dtype=np.uint32).reshape(6, 2) * np.uint32(0x9E3779B9)
MASK = np.array([True, False, True, True, False, False])
# name: (the operation on keys, with jnp and lax of the implementation; the same on their words, NumPy)
KEY_STRUCTURE: dict[str, tuple[Callable[..., Any], Callable[[np.ndarray], np.ndarray]]] = {
    "index": (lambda k, jnp, lax: k[1], lambda w: w[1]),
    "negative index": (lambda k, jnp, lax: k[-2], lambda w: w[-2]),
    "slice": (lambda k, jnp, lax: k[1:5:2], lambda w: w[1:5:2]),
    "integer array": (lambda k, jnp, lax: k[jnp.array([4, 0, 4])], lambda w: w[[4, 0, 4]]),
    "boolean mask": (lambda k, jnp, lax: k[MASK], lambda w: w[MASK]),
    "2d index": (lambda k, jnp, lax: k.reshape(2, 3)[1, ::-1], lambda w: w.reshape(2, 3, 2)[1, ::-1]),
    "reshape": (lambda k, jnp, lax: jnp.reshape(k, (3, 2)), lambda w: w.reshape(3, 2, 2)),
    "transpose": (lambda k, jnp, lax: k.reshape(2, 3).T, lambda w: w.reshape(2, 3, 2).transpose(1, 0, 2)),
    "ravel": (lambda k, jnp, lax: k.reshape(3, 2).ravel(), lambda w: w),
    "squeeze": (lambda k, jnp, lax: jnp.squeeze(k[None, :, None]), lambda w: w),
    "expand_dims": (lambda k, jnp, lax: jnp.expand_dims(k, -1), lambda w: w[:, None]),
    "stack": (lambda k, jnp, lax: jnp.stack([k, k[::-1]], axis=1), lambda w: np.stack([w, w[::-1]], axis=1)),
    "concatenate": (lambda k, jnp, lax: jnp.concatenate([k, k[:2]]), lambda w: np.concatenate([w, w[:2]])),
    "broadcast_to": (lambda k, jnp, lax: jnp.broadcast_to(k[2], (2, 3)), lambda w: np.broadcast_to(w[2], (2, 3, 2))),
    "where": (lambda k, jnp, lax: jnp.where(MASK, k, k[::-1]), lambda w: np.where(MASK[:, None], w, w[::-1])),
    "where with one key": (lambda k, jnp, lax: jnp.where(MASK, k[2], k), lambda w: np.where(MASK[:, None], w[2], w)),
    "select_n": (lambda k, jnp, lax: lax.select_n(MASK, k, k[::-1]), lambda w: np.where(MASK[:, None], w[::-1], w)),
    "select": (lambda k, jnp, lax: lax.select(MASK, k, k[::-1]), lambda w: np.where(MASK[:, None], w, w[::-1])),
    "flip": (lambda k, jnp, lax: jnp.flip(k), lambda w: w[::-1]),
    "take": (lambda k, jnp, lax: jnp.take(k, jnp.array([5, 1])), lambda w: w[[5, 1]]),
    "at set": (lambda k, jnp, lax: k.at[1].set(k[4]), lambda w: w[[0, 4, 2, 3, 4, 5]]),
    "at set many": (lambda k, jnp, lax: k.at[jnp.array([0, 5])].set(k[2:4]), lambda w: w[[2, 1, 2, 3, 4, 3]]),
    "dynamic_slice": (lambda k, jnp, lax: lax.dynamic_slice(k, (np.int32(4),), (3,)), lambda w: w[3:6]),
    "dynamic_update_slice": (lambda k, jnp, lax: lax.dynamic_update_slice(k, k[:2], (np.int32(3),)),
                             lambda w: w[[0, 1, 2, 0, 1, 5]]),  # fmt: skip
    "broadcast_in_dim": (lambda k, jnp, lax: lax.broadcast_in_dim(k[:3], (3, 2), (0,)),
                         lambda w: np.repeat(w[:3, None], 2, axis=1)),  # fmt: skip
}


@pytest.mark.parametrize("name", list(KEY_STRUCTURE))
def test_structural_operations_move_whole_keys(name: str, random: Any, impl: Impl) -> None:
    on_keys, on_words = KEY_STRUCTURE[name]
    show_call(f"keys = jax.random.wrap_key_data(words)\njax.random.key_data(op(keys, jnp, lax))  # {name}",
              words=KEY_WORDS)  # fmt: skip
    out = on_keys(random.wrap_key_data(KEY_WORDS), impl.numpy, impl.lax)
    assert _is_key(out, impl), f"{name} gave dtype {out.dtype}"
    np.testing.assert_array_equal(np.asarray(random.key_data(out)), on_words(KEY_WORDS))


def test_iterating_over_keys_gives_single_keys(random: Any) -> None:
    keys = random.wrap_key_data(KEY_WORDS)
    assert len(keys) == 6
    assert [np.asarray(random.key_data(k)).tolist() for k in keys] == KEY_WORDS.tolist()


def test_arithmetic_on_keys_raises_jaxs_type_errors(random: Any, impl: Impl) -> None:
    keys, jnp, lax = random.split(random.key(0), 3), impl.numpy, impl.lax
    with pytest.raises(TypeError, match=r"^add does not accept dtypes key<fry>, int32\."):
        keys + 1
    with pytest.raises(TypeError, match=r"^subtract does not accept dtypes int32, key<fry>\."):
        1 - keys
    with pytest.raises(TypeError, match=r"^add does not accept dtype key<fry> at position 0\."):
        lax.add(keys, keys)
    with pytest.raises(TypeError, match=r"^mul does not accept dtype key<fry> at position 0\."):
        keys * keys
    with pytest.raises(TypeError, match=r"^neg does not accept dtype key<fry>\."):
        lax.neg(keys)
    with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
        jnp.sin(keys)
    with pytest.raises(ValueError, match=r"dtype=key<fry> is not a valid dtype for JAX type promotion"):
        jnp.result_type(keys, 1)
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to uint32"):
        lax.convert_element_type(keys, np.uint32)


def test_a_key_is_no_number(random: Any) -> None:
    """A typed key refuses NumPy, bool and int with TypeError; the words are JAX 0.10.2's (a release
    detail: JAX 0.4.38 refuses bool(key) with Python's "len() of unsized object")."""
    key = random.key(0)
    with pytest.raises(TypeError) as to_numpy:
        np.asarray(key)
    with pytest.raises(TypeError) as to_bool:
        bool(key)
    with pytest.raises(TypeError):
        int(key)
    release_detail("key_data" in str(to_numpy.value), f"np.asarray(key): {to_numpy.value}")
    release_detail("key array cannot be converted to boolean" in str(to_bool.value), f"bool(key): {to_bool.value}")


def test_typed_keys_check_their_seeds_and_words(random: Any) -> None:
    with pytest.raises(TypeError, match=r"key accepts a scalar seed, but was given an array of shape \(2,\)"):
        random.key(np.array([1, 2]))
    with pytest.raises(TypeError, match="key accepts a scalar seed, but was given a PRNG key"):
        random.key(random.key(0))
    with pytest.raises(TypeError, match=r"expected key_data.shape to end with \(2,\)"):
        random.wrap_key_data(np.zeros((4, 3), np.uint32))
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32"):
        random.wrap_key_data(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match="expected key_data.ndim >= 1"):
        random.wrap_key_data(random.key(0))
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "nope"'):
        random.key(0, impl="nope")
    with pytest.raises(ValueError, match="single key"):
        random.normal(random.split(random.key(0)))


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
    ("cauchy", lambda r, k: r.cauchy(k, (N,)), lambda x: 0.5 + np.arctan(x) / np.pi),
    ("laplace", lambda r, k: r.laplace(k, (N,)), lambda x: np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0)), 1 - 0.5 * np.exp(-np.maximum(x, 0)))),
    ("logistic", lambda r, k: r.logistic(k, (N,)), lambda x: 1 / (1 + np.exp(-x))),
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
    samples = np.asarray(random.gamma(random.PRNGKey(5), a, (300,)))
    assert (samples > 0).all()
    assert ks_statistic(samples, lambda x: regularized_lower_gamma(a, x)) < ks_threshold(samples.size)


@pytest.mark.parametrize("a", [0.01, 3.0])
def test_loggamma_samples_follow_the_distribution(a: float, random: Any) -> None:
    """log of a Gamma(a) sample: P(X <= x) = P(a, e**x). With a = 0.01 about 40% of gamma's own float32
    samples would underflow to 0; their logarithms must still be there."""
    samples = np.asarray(random.loggamma(random.PRNGKey(7), a, (300,)))
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


# ----------------------------------------------------------------------------------------------
# The samplers built on the others (cauchy, laplace, logistic, rademacher, t, ball, poisson): their
# shapes, dtypes and errors, then their distributions.

# name: (a draw, its shape, its dtype)
SHAPES_AND_DTYPES: dict[str, tuple[Callable[[Any, Any], Any], tuple[int, ...], str]] = {
    "cauchy": (lambda r, k: r.cauchy(k), (), "float32"),
    "laplace float16": (lambda r, k: r.laplace(k, (2, 3), "float16"), (2, 3), "float16"),
    "logistic": (lambda r, k: r.logistic(k, (4,)), (4,), "float32"),
    "rademacher": (lambda r, k: r.rademacher(k, (5,)), (5,), "int32"),
    "rademacher int8": (lambda r, k: r.rademacher(k, (5,), "int8"), (5,), "int8"),
    "t df's shape": (lambda r, k: r.t(k, np.ones((2, 3), np.float32)), (2, 3), "float32"),
    "t broadcast df": (lambda r, k: r.t(k, np.ones(3, np.float32), (2, 3)), (2, 3), "float32"),
    "ball": (lambda r, k: r.ball(k, 3), (3,), "float32"),
    "ball batch": (lambda r, k: r.ball(k, 2, 1.5, (4, 5)), (4, 5, 2), "float32"),
    "poisson lam's shape": (lambda r, k: r.poisson(k, np.ones((3, 2), np.float32)), (3, 2), "int32"),
    "poisson broadcast lam": (lambda r, k: r.poisson(k, np.ones(2, np.float32), (3, 2), "int16"), (3, 2), "int16"),
    "generalized_normal": (lambda r, k: r.generalized_normal(k, 1.5, (2, 3)), (2, 3), "float32"),
    "lognormal sigma's shape": (lambda r, k: r.lognormal(k, np.ones((2, 1), np.float32)), (2, 1), "float32"),
    "maxwell float16": (lambda r, k: r.maxwell(k, (4,), "float16"), (4,), "float16"),
    # The parameters' shape is appended to the shape asked for, and is the shape asked for when it is ().
    "double_sided_maxwell": (lambda r, k: r.double_sided_maxwell(k, np.zeros(2, np.float32), 1.0, (3,)), (3, 2), "float32"),
    "double_sided_maxwell no shape": (lambda r, k: r.double_sided_maxwell(k, np.zeros(2, np.float32), 1.0), (2, 2), "float32"),
    "weibull_min": (lambda r, k: r.weibull_min(k, 1.0, 2.0, (5,)), (5,), "float32"),
    "pareto b's shape": (lambda r, k: r.pareto(k, np.ones(3, np.float32)), (3,), "float32"),
    "rayleigh": (lambda r, k: r.rayleigh(k, 1.0, (2, 2)), (2, 2), "float32"),
    "wald mean's shape": (lambda r, k: r.wald(k, np.ones(4, np.float32)), (4,), "float32"),
    "triangular": (lambda r, k: r.triangular(k, 0.0, np.ones(3, np.float32), 2.0), (3,), "float32"),
    "chisquare": (lambda r, k: r.chisquare(k, 2.0, (3,)), (3,), "float32"),
    "f": (lambda r, k: r.f(k, 2.0, np.full(2, 3.0, np.float32)), (2,), "float32"),
    "geometric": (lambda r, k: r.geometric(k, 0.5, (6,)), (6,), "int32"),
    "geometric int8": (lambda r, k: r.geometric(k, np.full(2, 0.5, np.float32), None, "int8"), (2,), "int8"),
}


@pytest.mark.parametrize("name", list(SHAPES_AND_DTYPES))
def test_samplers_give_their_shape_and_dtype(name: str, random: Any) -> None:
    draw, shape, dtype = SHAPES_AND_DTYPES[name]
    out = draw(random, random.PRNGKey(0))
    assert tuple(out.shape) == shape and np.dtype(out.dtype) == np.dtype(dtype), (out.shape, out.dtype)


def test_rademacher_gives_only_minus_one_and_one(random: Any) -> None:
    samples = np.asarray(random.rademacher(random.PRNGKey(1), (N,)))
    assert set(np.unique(samples).tolist()) == {-1, 1}
    assert_frequencies((samples + 1) // 2, np.array([0.5, 0.5]))


@pytest.mark.parametrize("name", ["cauchy", "laplace", "logistic", "t"])
def test_float_samplers_refuse_an_integer_dtype(name: str, random: Any) -> None:
    key = random.PRNGKey(0)
    with pytest.raises(ValueError, match=f"dtype argument to `{name}` must be a float dtype"):
        random.t(key, 3.0, (2,), np.int32) if name == "t" else getattr(random, name)(key, (2,), np.int32)


# name: a call with an integer dtype (geometric: a float one). JAX's message goes on "float dtype",
# "float or complex dtype" (lognormal) or "an int dtype" (geometric).
WRONG_DTYPES: dict[str, Callable[[Any, Any], Any]] = {
    "maxwell": lambda r, k: r.maxwell(k, (2,), np.int32),
    "lognormal": lambda r, k: r.lognormal(k, shape=(2,), dtype=np.int32),
    "pareto": lambda r, k: r.pareto(k, 2.0, (2,), np.int32),
    "wald": lambda r, k: r.wald(k, 2.0, (2,), np.int32),
    "chisquare": lambda r, k: r.chisquare(k, 2.0, (2,), np.int32),
    "geometric": lambda r, k: r.geometric(k, 0.5, (2,), np.float32),
}


@pytest.mark.parametrize("name", list(WRONG_DTYPES))
def test_more_samplers_refuse_the_wrong_kind_of_dtype(name: str, random: Any) -> None:
    with pytest.raises(ValueError, match=f"dtype argument to `{name}` must be a"):
        WRONG_DTYPES[name](random, random.PRNGKey(0))


def test_generalized_normal_leaves_the_dtype_to_gamma(random: Any) -> None:
    with pytest.raises(ValueError, match="dtype argument to `gamma` must be a float dtype"):
        random.generalized_normal(random.PRNGKey(0), 2.0, (2,), np.int32)


def test_t_refuses_a_df_that_does_not_fit_its_dtype(random: Any) -> None:
    """df must convert to dtype without loss: a Python float may, a float32 array may not go to float16."""
    key = random.PRNGKey(0)
    assert random.t(key, 3.0, (2,), np.float16).dtype == np.float16
    with pytest.raises(ValueError, match="cannot safely cast argument of type float32 to float16"):
        random.t(key, np.ones(2, np.float32), (2,), np.float16)


@pytest.mark.parametrize("name", ["t", "poisson"])
def test_a_parameter_that_does_not_broadcast_to_shape_raises_value_error(name: str, random: Any) -> None:
    with pytest.raises(ValueError):
        getattr(random, name)(random.PRNGKey(0), np.ones(3, np.float32), (2,))


def test_ball_needs_an_integer_dimension(random: Any) -> None:
    with pytest.raises(TypeError):
        random.ball(random.PRNGKey(0), 2.0)


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_ball_points_lie_inside_the_unit_ball(p: float, random: Any) -> None:
    """Inside the Lp ball, and uniform there: the radius r of a point in d dimensions has P(r <= x) = x**d."""
    d = 3
    points = np.asarray(random.ball(random.PRNGKey(11), d, p, (2000,)), np.float64)
    radii = (np.abs(points) ** p).sum(-1) ** (1 / p)
    assert (radii < 1).all()
    assert ks_statistic(radii, lambda x: np.clip(x, 0, 1) ** d) < ks_threshold(radii.size)


def test_t_samples_have_the_t_quantiles(random: Any) -> None:
    """Student's t with 3 degrees of freedom has a closed-form CDF."""
    samples = np.asarray(random.t(random.PRNGKey(12), 3.0, (3000,)), np.float64)

    def cdf(x: np.ndarray) -> np.ndarray:
        s = x / np.sqrt(3)
        return 0.5 + (np.arctan(s) + s / (1 + s * s)) / np.pi

    assert ks_statistic(samples, cdf) < ks_threshold(samples.size)


@pytest.mark.parametrize("lam", [0.0, 3.0, 40.0])
def test_poisson_frequencies(lam: float, random: Any) -> None:
    """Counts 0 .. 3 lam + 10 against the Poisson probabilities (the rest of the tail lumped into the last)."""
    samples = np.asarray(random.poisson(random.PRNGKey(13), lam, (N,)))
    top = int(3 * lam + 10)
    pmf = np.array([math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1)) if lam else float(k == 0)
                    for k in range(top + 1)])  # fmt: skip
    pmf[-1] = max(0.0, 1 - pmf[:-1].sum())  # the tail (rounding could make it a hair below 0)
    assert_frequencies(np.minimum(samples, top), pmf)
