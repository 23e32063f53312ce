"""Typed PRNG keys: ``random.key`` makes arrays of dtype ``key<fry>`` whose uint32 words sit in a
hidden trailing axis. Structural operations on keys are checked against NumPy on the words;
draws from a typed key against the same draws from its raw words; the vectorized primitives
against a loop over single keys. (JAX's own numbers are checked by the conformance suite.)"""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import dtypes, lax, random
from didax import prng

WORDS = np.array([[0, 7], [2**32 - 1, 12345], [42, 0], [1, 2], [3, 4], [5, 6]], np.uint32)


def words_of(keys):
    return np.asarray(random.key_data(keys))


def test_a_typed_key_is_a_scalar_of_dtype_key_fry():
    key = random.key(0)
    assert key.shape == () and key.ndim == 0 and key.size == 1
    assert key.dtype.name == "key<fry>" and str(key.dtype) == repr(key.dtype) == "key<fry>"
    assert key.dtype == random.key_dtype() == random.key(1).dtype and key.dtype != np.uint32
    assert key.itemsize == 8 and random.split(key, 3).nbytes == 24
    assert dtypes.issubdtype(key.dtype, dtypes.prng_key) and dtypes.issubdtype(key.dtype, dtypes.extended)
    assert not jnp.issubdtype(key.dtype, jnp.integer) and not dtypes.issubdtype(np.uint32, dtypes.prng_key)
    assert isinstance(key, didax.Array) and random.key_impl(key) == "threefry2x32"
    assert repr(key) == str(key) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"


def test_key_data_of_a_typed_key_is_the_raw_key():
    for seed in (0, 1, 42, -1, 2**31):
        assert words_of(random.key(seed)).tolist() == np.asarray(random.PRNGKey(seed)).tolist()
    assert words_of(random.PRNGKey(5)).tolist() == np.asarray(random.PRNGKey(5)).tolist()


def test_wrap_key_data_and_key_data_round_trip():
    keys = random.wrap_key_data(WORDS)
    assert keys.shape == (6,) and dtypes.issubdtype(keys.dtype, dtypes.prng_key)
    assert np.array_equal(words_of(keys), WORDS)
    assert words_of(random.wrap_key_data(WORDS, impl="threefry2x32")).tolist() == WORDS.tolist()
    assert words_of(random.wrap_key_data(WORDS, dtype=keys.dtype)).tolist() == WORDS.tolist()


def test_split_and_fold_in_keep_the_kind_of_key_they_are_given():
    typed, raw = random.key(3), random.PRNGKey(3)
    typed_split, raw_split = random.split(typed, (2, 3)), random.split(raw, (2, 3))
    assert typed_split.shape == (2, 3) and typed_split.dtype.name == "key<fry>"
    assert raw_split.shape == (2, 3, 2) and raw_split.dtype == np.uint32
    assert np.array_equal(words_of(typed_split), np.asarray(raw_split))
    typed_fold, raw_fold = random.fold_in(typed, 7), random.fold_in(raw, 7)
    assert typed_fold.dtype.name == "key<fry>" and raw_fold.dtype == np.uint32
    assert np.array_equal(words_of(typed_fold), np.asarray(raw_fold))


SAMPLERS = {
    "bits": lambda k: random.bits(k, (5,)),
    "uniform": lambda k: random.uniform(k, (5,)),
    "normal": lambda k: random.normal(k, (5,)),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 2.0, (5,)),
    "exponential": lambda k: random.exponential(k, (5,)),
    "gumbel": lambda k: random.gumbel(k, (5,)),
    "bernoulli": lambda k: random.bernoulli(k, 0.3, (5,)),
    "randint": lambda k: random.randint(k, (5,), 0, 100),
    "permutation": lambda k: random.permutation(k, 10),
    "choice": lambda k: random.choice(k, 10, (4,), replace=False),
    "categorical": lambda k: random.categorical(k, np.zeros(4, np.float32), shape=(5,)),
    "gamma": lambda k: random.gamma(k, 2.0, (3,)),
    "beta": lambda k: random.beta(k, 2.0, 3.0, (2,)),
    "dirichlet": lambda k: random.dirichlet(k, np.ones(3, np.float32)),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_every_sampler_draws_the_same_numbers_from_a_typed_key_and_from_its_words(name):
    raw = WORDS[1]
    typed = random.wrap_key_data(raw)
    got, want = np.asarray(SAMPLERS[name](typed)), np.asarray(SAMPLERS[name](raw))
    assert got.dtype == want.dtype and np.array_equal(got, want)


# --- structural operations: what they do to the words, with the trailing axis kept whole ---------

KEYS = random.wrap_key_data(WORDS)
MASK = np.array([True, False, True, True, False, False])
STRUCTURAL = {  # name: (on keys, on their words with NumPy)
    "index": (lambda k: k[1], lambda w: w[1]),
    "negative index": (lambda k: k[-2], lambda w: w[-2]),
    "slice": (lambda k: k[1:5:2], lambda w: w[1:5:2]),
    "integer array": (lambda k: k[jnp.array([4, 0, 4])], lambda w: w[[4, 0, 4]]),
    "boolean mask": (lambda k: k[MASK], lambda w: w[MASK]),
    "2d index": (lambda k: k.reshape(2, 3)[1, ::-1], lambda w: w.reshape(2, 3, 2)[1, ::-1]),
    "reshape": (lambda k: jnp.reshape(k, (3, 2)), lambda w: w.reshape(3, 2, 2)),
    "transpose": (lambda k: k.reshape(2, 3).T, lambda w: w.reshape(2, 3, 2).transpose(1, 0, 2)),
    "swapaxes": (lambda k: jnp.swapaxes(k.reshape(2, 3), 0, 1), lambda w: w.reshape(2, 3, 2).swapaxes(0, 1)),
    "ravel": (lambda k: k.reshape(3, 2).ravel(), lambda w: w),
    "stack": (lambda k: jnp.stack([k[0], k[3]]), lambda w: w[[0, 3]]),
    "stack on axis 1": (lambda k: jnp.stack([k, k[::-1]], axis=1), lambda w: np.stack([w, w[::-1]], axis=1)),
    "concatenate": (lambda k: jnp.concatenate([k, k[:2]]), lambda w: np.concatenate([w, w[:2]])),
    "broadcast_to": (lambda k: jnp.broadcast_to(k, (2, 6)), lambda w: np.broadcast_to(w, (2, 6, 2))),
    "where": (lambda k: jnp.where(MASK, k, k[::-1]), lambda w: np.where(MASK[:, None], w, w[::-1])),
    "where with a scalar": (lambda k: jnp.where(MASK, k[2], k), lambda w: np.where(MASK[:, None], w[2], w)),
    "select": (lambda k: lax.select(MASK, k, k[::-1]), lambda w: np.where(MASK[:, None], w, w[::-1])),
    "squeeze": (lambda k: jnp.squeeze(k[None, :, None]), lambda w: w),
    "expand_dims": (lambda k: jnp.expand_dims(k, -1), lambda w: w[:, None]),
    "flip": (lambda k: jnp.flip(k), lambda w: w[::-1]),
    "roll": (lambda k: jnp.roll(k, 2), lambda w: np.roll(w, 2, axis=0)),
    "take": (lambda k: jnp.take(k, jnp.array([5, 1])), lambda w: w[[5, 1]]),
    "tile": (lambda k: jnp.tile(k[:2], 2), lambda w: np.concatenate([w[:2], w[:2]])),
    "repeat": (lambda k: jnp.repeat(k[:2], 2), lambda w: w[[0, 0, 1, 1]]),
    "at set": (lambda k: k.at[1].set(k[4]), lambda w: np.concatenate([w[:1], w[4:5], w[2:]])),
    "at set many": (lambda k: k.at[jnp.array([0, 5])].set(k[2:4]), lambda w: w[[2, 1, 2, 3, 4, 3]]),
    "dynamic_slice": (lambda k: lax.dynamic_slice(k, (jnp.int32(4),), (3,)), lambda w: w[3:6]),
    "dynamic_update_slice": (lambda k: lax.dynamic_update_slice(k, k[:2], (3,)), lambda w: w[[0, 1, 2, 0, 1, 5]]),
    "broadcast_in_dim": (lambda k: lax.broadcast_in_dim(k[:3], (3, 2), (0,)), lambda w: np.repeat(w[:3, None], 2, 1)),
    "rev": (lambda k: lax.rev(k.reshape(2, 3), (1,)), lambda w: w.reshape(2, 3, 2)[:, ::-1]),
    "lax.full": (lambda k: lax.full((2,), k[1]), lambda w: w[[1, 1]]),
}


@pytest.mark.parametrize("name", list(STRUCTURAL))
def test_structural_operations_move_whole_keys(name):
    on_keys, on_words = STRUCTURAL[name]
    out = on_keys(KEYS)
    assert out.dtype.name == "key<fry>"
    assert np.array_equal(words_of(out), on_words(WORDS))


def test_iterating_over_keys_gives_single_keys():
    k1, k2 = random.split(random.key(0))
    assert k1.shape == () and words_of(k1).tolist() == np.asarray(random.split(random.PRNGKey(0)))[0].tolist()
    assert len(KEYS) == 6 and [words_of(k).tolist() for k in KEYS] == WORDS.tolist()


# --- what keys refuse --------------------------------------------------------------------------


def test_arithmetic_on_keys_raises_jaxs_type_errors():
    keys = random.split(random.key(0), 3)
    with pytest.raises(TypeError, match=r"^add does not accept dtypes key<fry>, int32\.$"):
        keys + 1
    with pytest.raises(TypeError, match=r"^add does not accept dtypes int32, key<fry>\.$"):
        1 + keys
    with pytest.raises(TypeError, match=r"^mul does not accept dtype key<fry> at position 0\."):
        keys * keys
    with pytest.raises(TypeError, match=r"^neg does not accept dtype key<fry>\."):
        lax.neg(keys)
    with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
        jnp.sin(keys)
    with pytest.raises(ValueError, match="dtype=key<fry> is not a valid dtype for JAX type promotion"):
        jnp.result_type(keys, 1)
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to uint32"):
        lax.convert_element_type(keys, np.uint32)


def test_keys_have_no_numpy_or_python_value():
    key = random.key(0)
    with pytest.raises(TypeError, match="key_data"):
        np.asarray(key)
    with pytest.raises(TypeError, match="cannot be converted to boolean"):
        bool(key)
    for convert in (int, float, lambda k: k.item()):
        with pytest.raises(TypeError):
            convert(key)


def test_bad_seeds_and_bad_key_data_raise_jaxs_errors():
    with pytest.raises(TypeError, match="key accepts a scalar seed, but was given an array of shape"):
        random.key(np.array([1, 2]))
    with pytest.raises(TypeError, match="accepts a scalar seed, but was given a PRNG key"):
        random.key(random.key(0))
    with pytest.raises(TypeError, match="seed must be an integer"):
        random.key(1.0)
    with pytest.raises(TypeError, match=r"expected key_data.shape to end with \(2,\)"):
        random.wrap_key_data(np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32"):
        random.key_data(np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="expected key_data.ndim >= 1"):
        random.wrap_key_data(random.key(0))
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "rbg"'):
        random.key(0, impl="rbg")
    with pytest.raises(ValueError, match="single key"):
        random.normal(KEYS)


# --- the primitives are vectorized over keys; the front ends take one key ------------------------


def test_random_bits_and_split_of_a_batch_of_keys_are_each_keys_own():
    """The primitives draw for every key of a batch at once (vmap relies on it): the loop over
    single keys is the oracle."""
    bits = prng.random_bits_p.bind(KEYS.reshape(2, 3), bit_width=8, shape=(4,))
    assert bits.shape == (2, 3, 4) and bits.dtype == np.uint8
    split = prng.random_split_p.bind(KEYS.reshape(2, 3), shape=(2,))
    assert split.shape == (2, 3, 2)
    for i, row in enumerate(WORDS.reshape(2, 3, 2)):
        for j, words in enumerate(row):
            assert np.array_equal(np.asarray(bits)[i, j], np.asarray(random.bits(words, (4,), np.uint8)))
            assert np.array_equal(words_of(split[i, j]), np.asarray(random.split(words)))


def test_random_fold_in_broadcasts_keys_against_data():
    data = np.array([0, 5, 2**32 - 1], np.uint32)
    for keys, msgs in [(KEYS[:3], data), (KEYS[1], data), (KEYS[:3], data[1])]:
        out = prng.random_fold_in_p.bind(keys, msgs)
        assert out.shape == (3,)
        for i in range(3):
            key_words = WORDS[:3][i] if keys.shape else WORDS[1]
            msg = msgs[i] if np.ndim(msgs) else msgs
            assert np.array_equal(words_of(out[i]), np.asarray(random.fold_in(key_words, int(msg))))


def test_random_seed_makes_one_key_per_seed():
    seeds = np.array([[0, 1], [-1, 2**31 - 1]], np.int32)
    keys = prng.random_seed_p.bind(seeds, impl=dtypes.threefry2x32)
    assert keys.shape == (2, 2)
    for index in np.ndindex(2, 2):
        assert np.array_equal(words_of(keys[index]), np.asarray(random.PRNGKey(int(seeds[index]))))
