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

Keys are raw ``uint32[2]`` arrays, as ``jax.random.PRNGKey`` makes them. JAX's ``key`` makes a
*typed* key (dtype ``key<fry>``), which needs extended dtypes that stage 01 does not have; here
``key`` returns the same raw ``uint32[2]``, and ``key_data``/``wrap_key_data`` pass it through
(as a didax array of its own).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval

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


def rotate_left(x: Any, distance: int) -> Any:
    """Rotate 32-bit words left: the bits shifted out on the left come back on the right."""
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
# Keys.


def key_words(key: Any) -> tuple[Any, Any]:
    """The two uint32 scalars of a single raw key."""
    first = lax.reshape(lax.slice(key, (0,), (1,)), ())
    second = lax.reshape(lax.slice(key, (1,), (2,)), ())
    return first, second


def check_key(name: str, key: Any) -> Any:
    """A single raw key: a uint32 array of shape (2,), with JAX's errors for anything else."""
    aval = get_aval(key)
    if aval.dtype != UINT32:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype={aval.dtype}")
    if aval.shape[-1:] != (2,):
        raise TypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.shape to end with (2,); got shape={aval.shape} "
            "for the threefry2x32 PRNG"
        )
    if aval.shape != (2,):
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {aval.shape} != (). "
            "Use jax.vmap for batching."
        )
    return key


def seed_words(seed: Any) -> Any:
    """A key from an integer seed: the high and low 32 bits of the seed, as [hi, lo].

    A Python int is read as an int64 first (beyond that: OverflowError), then becomes the default
    integer type; so with x64 off only its low 32 bits count, and the high word is 0.
    """
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = np.int64(seed)  # raises OverflowError beyond 64 bits, as JAX does
    aval = get_aval(seed)
    if aval.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if aval.dtype.kind not in "biu":
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    seed = lax.convert_element_type(seed, dtypes.canonicalize_dtype(aval.dtype))
    if get_aval(seed).dtype == np.bool_:
        seed = lax.convert_element_type(seed, np.int32)
    width = get_aval(seed).dtype
    # Shifting by the full bit width gives 0 (XLA's rule): a 32-bit seed has no high word.
    high = lax.shift_right_logical(seed, lax.convert_element_type(32, width))
    words = [lax.convert_element_type(w, UINT32) for w in (high, seed)]  # keep the low 32 bits
    return lax.concatenate([lax.reshape(w, (1,)) for w in words], 0)


def PRNGKey(seed: Any) -> Any:  # noqa: N802 - JAX's name
    """A raw key, uint32[2], from an integer seed."""
    return seed_words(seed)


def key(seed: Any) -> Any:
    """A key from an integer seed; JAX's is typed (key<fry>), didax's is raw uint32[2] (see above)."""
    return seed_words(seed)


def key_data(keys: Any) -> Any:
    """The uint32 words under a key array: raw keys are their own data."""
    aval = get_aval(keys)
    if aval.dtype != UINT32 or aval.shape[-1:] != (2,):
        raise TypeError(f"key_data expects uint32 key data of shape (..., 2), got {aval.str_short()}.")
    # Always a didax array, never the caller's NumPy array itself: that one may be changed later,
    # and a key (like every didax value) must not change with it. The conversion copies it.
    return lax.convert_element_type(keys, UINT32)


def wrap_key_data(key_bits_array: Any) -> Any:
    """A key array from its uint32 words: with raw keys, (a didax array of) the words themselves."""
    return key_data(key_bits_array)


# ----------------------------------------------------------------------------------------------
# Counters: element i of an array of random values hashes the counter (0, i).


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


def counters(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The high and low words of each element's row-major index, as two uint32 arrays."""
    size = math.prod(shape)
    if size > 2**32:
        raise NotImplementedError("didax.random: arrays of more than 2**32 random values are not supported.")
    low = lax.reshape(lax.iota(UINT32, size), shape)
    high = lax.broadcast(u32(0), shape)
    return high, low


def hash_counters(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    """Threefry of every counter in ``shape`` under ``key``: two uint32 arrays of that shape."""
    k0, k1 = key_words(key)
    high, low = counters(shape)
    return threefry2x32(k0, k1, high, low)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """New keys, independent of each other and of ``key``: shape (num, 2) (or (*num, 2))."""
    check_key("split", key)
    shape = as_shape("split", num)
    bits0, bits1 = hash_counters(key, shape)
    pair = [lax.expand_dims(b, (len(shape),)) for b in (bits0, bits1)]
    return lax.concatenate(pair, len(shape))


def fold_in(key: Any, data: Any) -> Any:
    """A new key that mixes the integer ``data`` into ``key`` (same key and data, same result)."""
    check_key("fold_in", key)
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
    # The data is hashed as a counter (0, data): a seed made from a 32-bit number.
    k0, k1 = key_words(key)
    data = lax.reshape(lax.convert_element_type(data, UINT32), (1,))
    x0, x1 = threefry2x32(k0, k1, u32(0), data)
    return lax.concatenate([x0, x1], 0)


def random_bits(key: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Uniformly random unsigned integers of ``bit_width`` bits, one hash per element."""
    bits0, bits1 = hash_counters(key, shape)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:  # both words, side by side
        high = lax.convert_element_type(bits0, dtype)
        low = lax.convert_element_type(bits1, dtype)
        return lax.bitwise_or(lax.shift_left(high, lax.convert_element_type(32, dtype)), low)
    mixed = lax.bitwise_xor(bits0, bits1)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)  # keep the low bits


def bits(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Random unsigned integers of ``dtype`` (default: uint32, uint64 with x64 on)."""
    check_key("bits", key)
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(np.uint64)
    else:
        requested = dtypes.check_dtype(dtype)
        if requested.kind != "u":
            raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {requested.name}")
        dtype = dtypes.check_user_dtype(dtype, "bits")
    return random_bits(key, dtype.itemsize * 8, as_shape("bits", shape))
