"""Keys and raw bits: the Threefry-2x32 hash, written with didax.lax on uint32, and the four key
operations built on it (seed, split, fold_in, bits). Stage 01 introduced it.

Counter-based randomness
------------------------
NumPy's generator is a machine with hidden state: every draw changes the state, so a result
depends on every draw made before it. JAX uses a *counter-based* generator instead: a random
number is a hash of two things, a key and a counter,

    bits[i] = threefry2x32(key, i)

and nothing is ever changed. The hash is a pure function, so:

* the same key always gives the same numbers (a key is used once, then split into fresh keys);
* bits[i] does not depend on bits[i-1], so a whole array is one elementwise computation, and
  any part of it can be computed anywhere (on another device: JAX calls this "partitionable");
* a transformation (jit, vmap, grad) sees only lax operations on uint32 arrays, which it already
  knows how to handle: randomness needs no special support from any interpreter.

Threefry-2x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011) maps a key
of two 32-bit words and a counter of two 32-bit words to two 32-bit words, with twenty rounds of
add, rotate and xor, the key mixed in every four rounds. didax follows JAX 0.10.2's defaults:
``jax_default_prng_impl="threefry2x32"`` and ``jax_threefry_partitionable=True``, the newer
scheme in which ``split``, ``bits`` and the distributions hash the counter ``(0, i)`` for the
i-th element (the row-major index, split into high and low words).

Keys come in two kinds, as in JAX. ``key(0)`` makes a *typed* key: a key array of shape () and
dtype ``key<fry>`` (dtypes.py), whose two uint32 words sit in a trailing axis the array does not
show (array.py's ``PRNGKeyArray``). ``PRNGKey(0)`` makes a *raw* key: the words themselves, a
``uint32[2]`` array. Every function here takes either and gives the same numbers: a raw key is
wrapped into a typed one first (``random_wrap``), and ``split``/``fold_in`` unwrap their result
again for a raw key (``random_unwrap``).

The four key operations are primitives, as in JAX: ``random_seed``, ``random_split``,
``random_fold_in`` and ``random_bits`` (and ``random_wrap``/``random_unwrap``, which change the
kind of key). Their evaluation runs the hash below on the keys' words; a transformation sees one
operation on keys, which it handles with one rule, instead of the hash's hundred uint32 operations.
Each is vectorized over keys, as JAX's are: ``random_bits`` of keys of shape K draws shape
(*K, *shape), one independent draw per key (the functions users call take a single key and
leave batching to vmap).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes, lax
from .array import Array, PRNGKeyArray, to_array
from .core import Primitive, ShapedArray, Tracer, get_aval
from .dtypes import KeyTy, PRNGImpl
from .lax.standard import broadcasting_shape

UINT32 = np.dtype(np.uint32)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: UINT32, 64: np.dtype(np.uint64)}

# Threefry's rotation distances: rounds alternate between these two groups of four.
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
# The key schedule's parity constant (from Threefish); a third key word is k0 ^ k1 ^ this.
KEY_PARITY = 0x1BD11BDA


def u32(value: int) -> Any:
    """A uint32 constant."""
    return lax.convert_element_type(value, UINT32)


# ----------------------------------------------------------------------------------------------
# The hash.


def rotate_left(x: Any, distance: Any) -> Any:
    """Rotate 32-bit words left: the bits shifted out on the left come back on the right.
    (``distance``: an int, or a uint32 scalar read from the carry of the looped hash in
    lowering/random.py.)"""
    return lax.bitwise_or(lax.shift_left(x, u32(distance)), lax.shift_right_logical(x, u32(32 - distance)))


def threefry2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """Threefry-2x32 with 20 rounds: hash counters (x0, x1) under key (k0, k1), elementwise."""
    ks = (k0, k1, lax.bitwise_xor(lax.bitwise_xor(k0, k1), u32(KEY_PARITY)))
    x0, x1 = lax.add(x0, ks[0]), lax.add(x1, ks[1])
    for group in range(5):
        for distance in ROTATIONS[group % 2]:
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(rotate_left(x1, distance), x0)
        # Inject the key again, rotated through its three words, plus the group number: without
        # the number, a key whose three words are equal would give every group the same mix.
        x0 = lax.add(x0, ks[(group + 1) % 3])
        x1 = lax.add(lax.add(x1, ks[(group + 2) % 3]), u32(group + 1))
    return x0, x1


# ----------------------------------------------------------------------------------------------
# The hash on words: a key's two uint32 words, for arrays of keys. ``words`` has shape
# (*K, 2) for keys of shape K; every function computes one independent result per key.


def key_words(words: Any) -> tuple[Any, Any]:
    """The first and second uint32 word of every key: two arrays of the keys' shape."""
    axis = get_aval(words).ndim - 1
    return lax.index_in_dim(words, 0, axis, keepdims=False), lax.index_in_dim(words, 1, axis, keepdims=False)


def stack_words(x0: Any, x1: Any) -> Any:
    """Keys' words from their first and second words: a new trailing axis of size 2."""
    axis = get_aval(x0).ndim
    return lax.concatenate([lax.expand_dims(x0, (axis,)), lax.expand_dims(x1, (axis,))], axis)


def spread(x: Any, shape: tuple[int, ...], dims: Sequence[int]) -> Any:
    """``x`` broadcast to ``shape``, its axes becoming ``dims`` (a scalar is left to lax's broadcasting)."""
    return x if not get_aval(x).shape else lax.broadcast_in_dim(x, shape, tuple(dims))


def threefry_seed(seeds: Any) -> Any:
    """Keys from integer seeds: the high and low 32 bits of each seed, as [hi, lo].

    With x64 off a seed is an int32, so only its low 32 bits count, and the high word is 0.
    """
    if get_aval(seeds).dtype == np.bool_:
        seeds = lax.convert_element_type(seeds, np.int32)
    width = get_aval(seeds).dtype
    # Shifting by the full bit width gives 0 (XLA's rule): a 32-bit seed has no high word.
    high = lax.shift_right_logical(seeds, lax.convert_element_type(32, width))
    words = [lax.convert_element_type(w, UINT32) for w in (high, seeds)]  # keep the low 32 bits
    return stack_words(*words)


def counters(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The high and low words of each element's row-major index, as two uint32 arrays."""
    size = math.prod(shape)
    if size > 2**32:
        raise NotImplementedError("didax.random: arrays of more than 2**32 random values are not supported.")
    low = lax.reshape(lax.iota(UINT32, size), shape)
    high = lax.broadcast(u32(0), shape)
    return high, low


Hash = Callable[[Any, Any, Any, Any], tuple[Any, Any]]


def hash_counters(words: Any, shape: tuple[int, ...], hash: Hash = threefry2x32) -> tuple[Any, Any]:
    """Threefry of every counter in ``shape`` under every key: two uint32 arrays of shape (*K, *shape).
    (``hash``: compiled code passes the same hash written as a loop, lowering/random.py.)"""
    k0, k1 = key_words(words)
    keys_rank = get_aval(k0).ndim
    out_shape = get_aval(k0).shape + shape
    k0, k1 = (spread(k, out_shape, range(keys_rank)) for k in (k0, k1))
    high, low = (spread(c, out_shape, range(keys_rank, len(out_shape))) for c in counters(shape))
    return hash(k0, k1, high, low)


def threefry_split(words: Any, shape: tuple[int, ...], hash: Hash = threefry2x32) -> Any:
    """New keys, ``shape`` of them under each key: independent of each other and of their key."""
    return stack_words(*hash_counters(words, shape, hash))


def threefry_fold_in(words: Any, data: Any, hash: Hash = threefry2x32) -> Any:
    """A new key mixing uint32 ``data`` into each key (same key and data, same result). Keys and
    data broadcast against each other, as lax's elementwise operations do."""
    k0, k1 = key_words(words)
    shape = broadcasting_shape("random_fold_in", get_aval(k0), get_aval(data))
    k0, k1, data = (spread(x, shape, range(len(shape))) for x in (k0, k1, data))
    # The data is hashed as a counter (0, data): a seed made from a 32-bit number.
    x0, x1 = hash(k0, k1, u32(0), data)
    return stack_words(x0, x1)


def threefry_random_bits(words: Any, bit_width: int, shape: tuple[int, ...], hash: Hash = threefry2x32) -> Any:
    """Uniformly random unsigned integers of ``bit_width`` bits, one hash per element."""
    bits0, bits1 = hash_counters(words, shape, hash)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:  # both words, side by side
        high = lax.convert_element_type(bits0, dtype)
        low = lax.convert_element_type(bits1, dtype)
        return lax.bitwise_or(lax.shift_left(high, lax.convert_element_type(32, dtype)), low)
    mixed = lax.bitwise_xor(bits0, bits1)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)  # keep the low bits


# ----------------------------------------------------------------------------------------------
# The primitives. Each evaluates by running the hash on the keys' words (the Array under a key
# array is its words: PRNGKeyArray in array.py); abstract evaluation gives the types.


def _words(keys: PRNGKeyArray) -> Array:
    return Array(keys._value)


def _keys(impl: PRNGImpl, words: Any) -> PRNGKeyArray:
    return PRNGKeyArray(impl, to_array(words)._value)


def _check_keys(name: str, keys: ShapedArray) -> None:
    if not dtypes.issubdtype(keys.dtype, dtypes.prng_key):
        raise TypeError(f"{name} takes a key array operand, got dtype={keys.dtype}.")


random_seed_p = Primitive("random_seed")


@random_seed_p.def_abstract_eval
def _random_seed_abstract_eval(seeds: ShapedArray, *, impl: PRNGImpl) -> ShapedArray:
    if not dtypes.issubdtype(seeds.dtype, np.integer) and seeds.dtype != np.bool_:
        raise TypeError(f"PRNG key seed must be an integer; got {seeds}")
    return ShapedArray(seeds.shape, KeyTy(impl))


random_seed_p.def_impl(lambda seeds, *, impl: _keys(impl, threefry_seed(seeds)))

random_split_p = Primitive("random_split")


@random_split_p.def_abstract_eval
def _random_split_abstract_eval(keys: ShapedArray, *, shape: tuple[int, ...]) -> ShapedArray:
    _check_keys("random_split", keys)
    return ShapedArray((*keys.shape, *shape), keys.dtype)


random_split_p.def_impl(lambda keys, *, shape: _keys(keys._impl, threefry_split(_words(keys), shape)))

random_fold_in_p = Primitive("random_fold_in")


@random_fold_in_p.def_abstract_eval
def _random_fold_in_abstract_eval(keys: ShapedArray, msgs: ShapedArray) -> ShapedArray:
    _check_keys("random_fold_in", keys)
    if msgs.dtype != UINT32:
        raise TypeError(f"random_fold_in takes uint32 data, got dtype={msgs.dtype}.")
    return ShapedArray(broadcasting_shape("random_fold_in", keys, msgs), keys.dtype)


random_fold_in_p.def_impl(lambda keys, msgs: _keys(keys._impl, threefry_fold_in(_words(keys), msgs)))

random_bits_p = Primitive("random_bits")


@random_bits_p.def_abstract_eval
def _random_bits_abstract_eval(keys: ShapedArray, *, bit_width: int, shape: tuple[int, ...]) -> ShapedArray:
    _check_keys("random_bits", keys)
    if bit_width not in UINT_DTYPES:
        raise TypeError(f"random_bits bit_width must be one of {tuple(UINT_DTYPES)}, got {bit_width}.")
    return ShapedArray((*keys.shape, *shape), UINT_DTYPES[bit_width])


random_bits_p.def_impl(
    lambda keys, *, bit_width, shape: threefry_random_bits(_words(keys), bit_width, shape)
)

random_wrap_p = Primitive("random_wrap")


@random_wrap_p.def_abstract_eval
def _random_wrap_abstract_eval(words: ShapedArray, *, impl: PRNGImpl) -> ShapedArray:
    check_key_data(impl, words)
    return ShapedArray(words.shape[: words.ndim - len(impl.key_shape)], KeyTy(impl))


random_wrap_p.def_impl(lambda words, *, impl: _keys(impl, words))  # to_array copies a NumPy buffer

random_unwrap_p = Primitive("random_unwrap")


@random_unwrap_p.def_abstract_eval
def _random_unwrap_abstract_eval(keys: ShapedArray) -> ShapedArray:
    _check_keys("random_unwrap", keys)
    return ShapedArray((*keys.shape, *keys.dtype._impl.key_shape), UINT32)


random_unwrap_p.def_impl(_words)


def check_key_data(impl: PRNGImpl, words: ShapedArray) -> None:
    """Words that can be keys: uint32, with the implementation's key shape last (JAX's errors)."""
    key_shape = impl.key_shape
    if words.ndim < 1:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim={words.ndim}")
    if words.shape[words.ndim - len(key_shape) :] != key_shape:
        raise TypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.shape to end with {key_shape}; got "
            f"shape={words.shape} for the {impl.name} PRNG"
        )
    if words.dtype != UINT32:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype={words.dtype}")


# ----------------------------------------------------------------------------------------------
# Keys: making them, and the two kinds.


def resolve_prng_impl(spec: Any) -> PRNGImpl:
    """A PRNG implementation from its name, a key dtype, or None (the default, threefry2x32)."""
    if spec is None:
        return dtypes.threefry2x32
    if isinstance(spec, PRNGImpl):
        return spec
    if isinstance(spec, KeyTy):
        return spec._impl
    if isinstance(spec, str):
        if spec in dtypes.PRNG_IMPLS:
            return dtypes.PRNG_IMPLS[spec]
        names = ", ".join(f'"{name}"' for name in dtypes.PRNG_IMPLS)
        raise ValueError(f'unrecognized PRNG implementation "{spec}". Did you mean one of: {names}?')
    raise TypeError(f"unrecognized type {type(spec)} for specifying PRNG implementation.")


def is_typed_key(x: Any) -> bool:
    return dtypes.is_key_dtype(getattr(x, "dtype", None))


def check_key(name: str, key: Any, allow_batched: bool = False) -> Any:
    """``key`` as a typed key: a typed key as it is, a raw one wrapped (``random_wrap`` checks its
    words). Unless ``allow_batched``, a single key, with JAX's error for a batch."""
    key, _ = _check_prng_key(name, key, allow_batched)
    return key


def _check_prng_key(name: str, key: Any, allow_batched: bool = False) -> tuple[Any, bool]:
    """(the typed key, whether it was raw and got wrapped)."""
    if is_typed_key(key):
        typed, wrapped = key, False
    elif isinstance(key, (Array, Tracer, np.ndarray, np.generic)):
        typed, wrapped = random_wrap(key, impl=dtypes.threefry2x32), True
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and get_aval(typed).shape:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {get_aval(key).shape} != (). "
            "Use jax.vmap for batching."
        )
    return typed, wrapped


def _return_keys(wrapped: bool, keys: Any) -> Any:
    """New keys of the kind that came in: raw keys give raw keys."""
    return random_unwrap_p.bind(keys) if wrapped else keys


def random_wrap(words: Any, *, impl: PRNGImpl) -> Any:
    """Keys from their uint32 words (the words' trailing axis becomes the keys' element)."""
    check_key_data(impl, get_aval(words))
    return random_wrap_p.bind(words, impl=impl)


def _seed(ctor_name: str, seed: Any, impl: Any) -> Any:
    impl = resolve_prng_impl(impl)
    if is_typed_key(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(
            f"{ctor_name} accepts a scalar seed, but was given an array of shape {np.shape(seed)} != (). "
            "Use jax.vmap for batching"
        )
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = np.int64(seed)  # raises OverflowError beyond 64 bits, as JAX does
    seeds = seed if isinstance(seed, Tracer) else to_array(seed)  # canonical: int32 with x64 off
    if get_aval(seeds).dtype.kind not in "biu":
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return random_seed_p.bind(seeds, impl=impl)


def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> Any:
    """A typed key, ``key<fry>[]``, from an integer seed."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _seed("key", seed, impl)


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:  # noqa: N802 - JAX's name
    """A raw key, ``uint32[2]``, from an integer seed: the words of ``key(seed)``."""
    return random_unwrap_p.bind(_seed("PRNGKey", seed, impl))


def key_data(keys: Any) -> Any:
    """The uint32 words under a key array (typed or raw): shape (*keys.shape, 2).

    Always a didax array of its own, never the caller's NumPy array: that one may be changed
    later, and a key (like every didax value) must not change with it.
    """
    return random_unwrap_p.bind(check_key("key_data", keys, allow_batched=True))


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> Any:
    """Typed keys from their uint32 words: shape ``key_bits_array.shape[:-1]``."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data")
        impl = dtype
    return random_wrap(key_bits_array, impl=resolve_prng_impl(impl))


def key_impl(keys: Any) -> str:
    """The name of the PRNG implementation of ``keys`` (typed or raw)."""
    return check_key("key_impl", keys, allow_batched=True).dtype._impl.name


def key_dtype(impl: Any = None) -> KeyTy:
    """The key dtype of a PRNG implementation (by default threefry2x32's, ``key<fry>``)."""
    return KeyTy(resolve_prng_impl(impl))


# ----------------------------------------------------------------------------------------------
# split, fold_in, bits: on a single key (vmap batches them).


def as_shape(name: str, shape: Any) -> tuple[int, ...]:
    """A shape argument: an int or a sequence of non-negative ints."""
    dims = (shape,) if isinstance(shape, int) else shape
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"{name}: shape must be an int or a sequence of ints, got {shape!r}.") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{name}: shape {dims} has a negative dimension.")
    return dims


def clone(key: Any) -> Any:
    """``key`` unchanged. JAX's ``clone`` tells its key-reuse checker that the key is used again
    on purpose; didax has no such checker, so there is nothing else to do."""
    return key


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """New keys, independent of each other and of ``key``: shape (num,) (or num), raw if ``key`` is."""
    typed, wrapped = _check_prng_key("split", key)
    return _return_keys(wrapped, random_split_p.bind(typed, shape=as_shape("split", num)))


def fold_in(key: Any, data: Any) -> Any:
    """A new key that mixes the integer ``data`` into ``key`` (same key and data, same result)."""
    typed, wrapped = _check_prng_key("fold_in", key)
    if isinstance(data, int) and not isinstance(data, bool):  # read as uint32, as jnp.uint32 does
        if not 0 <= data < 2**32:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        data = lax.convert_element_type(np.uint32(data), UINT32)
    aval = get_aval(data)
    if aval.shape:
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array ofshape {aval.shape} != (). "
            "Use jax.vmap for batching."
        )
    if aval.dtype != UINT32:
        data = lax.convert_element_type(data, UINT32)
    return _return_keys(wrapped, random_fold_in_p.bind(typed, data))


def random_bits(key: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Uniformly random unsigned integers of ``bit_width`` bits from a typed key."""
    return random_bits_p.bind(key, bit_width=bit_width, shape=shape)


def bits(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Random unsigned integers of ``dtype`` (default: uint32, uint64 with x64 on)."""
    key = check_key("bits", key)
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(np.uint64)
    else:
        requested = dtypes.check_dtype(dtype)
        if requested.kind != "u":
            raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {requested.name}")
        dtype = dtypes.check_user_dtype(dtype, "bits")
    return random_bits(key, dtype.itemsize * 8, as_shape("bits", shape))
