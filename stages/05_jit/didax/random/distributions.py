"""Samples from distributions, made from random bits with didax.lax and didax.numpy, following
JAX 0.10.2's algorithms step by step so that the same key gives the same numbers.
Stage 01 introduced it.

The recipe is always the same: turn bits into uniform floats in [0, 1) (fill the mantissa of a
float in [1, 2), subtract 1), then transform them (inverse CDF for normal, exponential, gumbel;
comparison for bernoulli; sorting by random keys for permutation; rejection for gamma).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import batching, dtypes, lax
from .. import numpy as jnp
from ..core import Primitive, ShapedArray, get_aval, to_concrete_value
from ..numpy.util import promote_dtypes_inexact
from ..prng import UINT_DTYPES, as_shape, check_key, random_bits, random_split_p

# ----------------------------------------------------------------------------------------------
# Helpers.


def float_dtype(name: str, dtype: Any) -> np.dtype:
    """The dtype= argument of a float distribution (default: the default float)."""
    if dtype is None:
        return dtypes.default_dtype("f")
    requested = dtypes.check_dtype(dtype)
    if not dtypes.is_float(requested):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {requested.name}")
    return dtypes.check_user_dtype(dtype, name)


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    """Parameters must broadcast to exactly ``shape`` (JAX draws no more numbers than asked for)."""
    if not param_shapes:
        return
    result = tuple(np.broadcast_shapes(shape, *param_shapes))
    if result != shape:
        raise ValueError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and the result "
            f"of broadcasting the shapes must equal the shape argument, but got result {result} for "
            f"shape argument {shape}."
        )


def to_rank(x: Any, rank: int) -> Any:
    """Prepend size-1 axes up to ``rank``, so lax's elementwise operations broadcast it (a
    broadcast_in_dim, as JAX's broadcast_to_rank stages it)."""
    ndim = get_aval(x).ndim
    return x if ndim == rank else lax.expand_dims(x, tuple(range(rank - ndim)))


def const(value: float | int, dtype: np.dtype) -> Any:
    """A constant of ``dtype``."""
    return lax.convert_element_type(value, dtype)


def first_keys(keys: Any, num: int) -> list[Any]:
    """Each key of a typed key array (one key, or one per element as in gamma) split ``num`` ways:
    a list of ``num`` key arrays of the keys' shape."""
    parts = random_split_p.bind(keys, shape=(num,))  # shape (*keys.shape, num)
    axis = get_aval(keys).ndim
    return [lax.index_in_dim(parts, i, axis, keepdims=False) for i in range(num)]


# ----------------------------------------------------------------------------------------------
# Continuous distributions.


def uniform_bits_to_float(bits: Any, dtype: np.dtype, rng_bits: int) -> Any:
    """Floats in [0, 1): the top mantissa-many bits become the mantissa of a float in [1, 2)."""
    finfo = dtypes.finfo(dtype)
    uint = UINT_DTYPES[finfo.bits]
    if rng_bits != finfo.bits:
        bits = lax.convert_element_type(bits, uint)
    one_bits = np.array(1.0, dtype).view(uint)  # a constant, known now: a literal, as in JAX
    mantissa = lax.shift_right_logical(bits, const(rng_bits - finfo.nmant, uint))
    return lax.sub(lax.bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype), const(1.0, dtype))


def _uniform(key: Any, shape: tuple[int, ...], dtype: np.dtype, minval: Any, maxval: Any) -> Any:
    """uniform on a typed key; on an array of keys (with scalar bounds) one draw of ``shape`` per key,
    each as that key alone would give it (random_bits draws for every key at once)."""
    check_shape("uniform", shape, np.shape(minval), np.shape(maxval))
    minval = to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    finfo = dtypes.finfo(dtype)
    rng_bits = 8 if finfo.nmant < 8 else finfo.bits  # bfloat16 needs only one byte of bits
    floats = uniform_bits_to_float(random_bits(key, rng_bits, shape), dtype, rng_bits)
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    return lax.max(minval, scaled)  # rounding must not take a value below minval


def uniform(key: Any, shape: Any = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0) -> Any:
    """Uniform floats in [minval, maxval)."""
    key = check_key("uniform", key)
    return _uniform(key, as_shape("uniform", shape), float_dtype("uniform", dtype), minval, maxval)


def normal(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard normal floats, by the inverse CDF: sqrt(2) * erf_inv(uniform on (-1, 1))."""
    key = check_key("normal", key)
    dtype = float_dtype("normal", dtype)
    return _normal(key, as_shape("normal", shape), dtype)


def _normal(key: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """normal on a typed key, or on an array of keys as ``_uniform``."""
    # erf_inv(-1) would be -inf; the bound is a constant, computed now as JAX computes it
    low = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(key, shape, dtype, low, np.array(1.0, dtype))
    return lax.mul(const(math.sqrt(2), dtype), lax.erf_inv(u))


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Normal floats conditioned on lower < x < upper: the inverse CDF of a narrower uniform."""
    key = check_key("truncated_normal", key)
    dtype = float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(lower), np.shape(upper)))
    else:
        shape = as_shape("truncated_normal", shape)
        check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = const(math.sqrt(2), dtype)
    lower, upper = lax.convert_element_type(lower, dtype), lax.convert_element_type(upper, dtype)
    a, b = lax.erf(lax.div(lower, sqrt2)), lax.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, lax.erf_inv(_uniform(key, shape, dtype, a, b)))
    # Rounding (or drawing a itself) could land on a bound: keep to the open interval.
    above = lax.nextafter(lower, const(np.inf, dtype))
    below = lax.nextafter(upper, const(-np.inf, dtype))
    return jnp.minimum(jnp.maximum(out, above), below)


def exponential(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Exponential floats with rate 1: -log(1 - u)."""
    key = check_key("exponential", key)
    return _exponential(key, as_shape("exponential", shape), float_dtype("exponential", dtype))


def _exponential(key: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """exponential on a typed key, or on an array of keys as ``_uniform``."""
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    return lax.neg(lax.log1p(lax.neg(u)))


def gumbel(key: Any, shape: Any = (), dtype: Any = None, mode: str | None = None) -> Any:
    """Standard Gumbel floats: -log(-log(u)), u never 0. ``mode`` says how many bits make u:
    'low' (the default) one uniform, so that events rarer than about 2**-nmant are lost; 'high' two,
    reaching about 2**-(2 * nmant); 'highest' (float32) 64 bits as one fixed-point number."""
    dtype = float_dtype("gumbel", dtype)
    shape = as_shape("gumbel", shape)
    if mode is None:
        mode = "low"  # JAX's default while its use_high_dynamic_range_gumbel flag is off
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    key = check_key("gumbel", key)
    if mode == "highest" and dtype == np.float32:
        return _gumbel_highest(key, shape)
    if mode in ("high", "highest"):
        return _gumbel_high(key, shape, dtype)
    tiny = float(dtypes.finfo(dtype).tiny)
    u = _uniform(key, shape, dtype, tiny, 1.0)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def _gumbel_high(key: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """u from two uniforms: below 1/2 the second one fills the bits below the first's last
    mantissa bit (plus tiny, so u is never 0); -log(-log1p(-u)) keeps those bits where u is small."""
    finfo = dtypes.finfo(dtype)
    high, low = _halves(_uniform(key, (2, *shape), dtype, 0.0, 1.0))
    # JAX adds tiny as a scalar of `dtype` (finfo's), after the scaled low half.
    small = jnp.add(jnp.add(high, jnp.multiply(2.0 ** -finfo.nmant, low)), finfo.tiny)
    u = jnp.where(jnp.greater_equal(high, 0.5), high, small)
    return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(u)))))


def _halves(x: Any) -> tuple[Any, Any]:
    """x[0] and x[1] of an array whose first axis has size 2."""
    return lax.index_in_dim(x, 0, keepdims=False), lax.index_in_dim(x, 1, keepdims=False)


def _gumbel_highest(key: Any, shape: tuple[int, ...]) -> Any:
    """float32 Gumbel from 64 random bits read as a fixed-point number b in (0, 1): below 1/2, u = b
    and the noise is -log(-log1p(-u)); above, u = 1 - b (negated bits plus one ulp of the 64) and
    -log(-log(u)). Either way u is at most 1/2, so its leading zeros become its exponent."""
    u32 = np.dtype(np.uint32)
    bits = random_bits(key, 32, (2, *shape))
    neg = lax.bitwise_not(bits)
    neg_hi, neg_lo = _halves(neg)
    carry = lax.convert_element_type(jnp.equal(neg_lo, const(2**32 - 1, u32)), u32)
    neg = jnp.stack([lax.add(neg_hi, carry), lax.add(neg_lo, const(1, u32))])  # two's complement
    flip = jnp.less(lax.index_in_dim(bits, 0, keepdims=False), const(2**31, u32))
    u = _fixed_point_to_float32(jnp.where(flip, bits, neg))
    return jnp.where(
        flip,
        lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(u))))),
        lax.neg(lax.log(lax.neg(lax.log(u)))),
    )


def _fixed_point_to_float32(bits: Any) -> Any:
    """The 64-bit fixed-point fraction hi:lo (hi first along axis 0) as the float32 nearest below:
    the 24 bits after its leading one become the mantissa, the count of leading zeros the exponent."""
    u32 = np.dtype(np.uint32)
    finfo = dtypes.finfo(np.float32)  # bits 32, nmant 23, minexp -126
    hi, lo = _halves(bits)
    hi_clz, lo_clz = lax.clz(hi), lax.clz(lo)
    hi_zero = jnp.equal(hi_clz, const(32, u32))
    # The 32 bits that follow the leading zeros (XLA shifts by 32 or more give 0).
    from_lo = jnp.where(
        hi_zero, lax.shift_left(lo, lo_clz), lax.shift_right_logical(lo, lax.sub(const(32, u32), hi_clz))
    )
    top = lax.bitwise_or(lax.shift_left(hi, hi_clz), from_lo)
    mantissa = lax.shift_right_logical(top, const(finfo.bits - finfo.nmant - 1, u32))
    mantissa = lax.bitwise_and(mantissa, const((1 << finfo.nmant) - 1, u32))
    zeros = jnp.where(hi_zero, lax.add(const(32, u32), lo_clz), hi_clz)
    exponent = lax.shift_left(lax.sub(const(-finfo.minexp, u32), zeros), const(finfo.nmant, u32))
    exponent = lax.bitwise_and(exponent, const((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1)), u32))
    return lax.bitcast_convert_type(lax.bitwise_or(exponent, mantissa), np.float32)


def cauchy(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard Cauchy floats, by the inverse CDF: tan(pi (u - 1/2)), u in [eps, 1)."""
    key = check_key("cauchy", key)
    dtype = float_dtype("cauchy", dtype)
    u = _uniform(key, as_shape("cauchy", shape), dtype, dtypes.finfo(dtype).eps, 1.0)
    return lax.tan(lax.mul(const(np.pi, dtype), lax.sub(u, const(0.5, dtype))))


def laplace(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard Laplace floats: sign(u) log(1 - |u|), u in (-1, 1) (the lowest value left out,
    so that log1p never sees -1)."""
    key = check_key("laplace", key)
    dtype = float_dtype("laplace", dtype)
    low = -1.0 + dtypes.finfo(dtype).epsneg  # a scalar of `dtype`, as JAX computes it
    u = _uniform(key, as_shape("laplace", shape), dtype, low, 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard logistic floats, by the inverse CDF: log(u) - log(1 - u), u in [tiny, 1)."""
    key = check_key("logistic", key)
    dtype = float_dtype("logistic", dtype)
    u = _uniform(key, as_shape("logistic", shape), dtype, dtypes.finfo(dtype).tiny, 1.0)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


# ----------------------------------------------------------------------------------------------
# Discrete distributions.


def bernoulli(key: Any, p: Any = 0.5, shape: Any = None, mode: str = "low") -> Any:
    """Booleans that are True with probability p: uniform < p. With mode='high', two uniforms
    u1 + u2 * 2**-nmant < p, so that probabilities below 2**-nmant are not lost."""
    if shape is not None:
        shape = as_shape("bernoulli", shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key = check_key("bernoulli", key)
    dtype = dtypes.canonicalize_dtype(get_aval(p).dtype)
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype.name}.")
    p = lax.convert_element_type(p, dtype)
    shape = get_aval(p).shape if shape is None else shape
    check_shape("bernoulli", shape, get_aval(p).shape)
    if mode == "low":
        return jnp.less(_uniform(key, shape, dtype, 0.0, 1.0), p)
    u1, u2 = _halves(_uniform(key, (2, *shape), dtype, 0.0, 1.0))
    u2 = jnp.multiply(u2, 2.0 ** -dtypes.finfo(dtype).nmant)  # below the resolution of u1
    return jnp.less(u2, jnp.subtract(p, u1))


def rademacher(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """-1 or 1 with equal probability: 2 b - 1 for a fair Bernoulli b, in ``dtype`` (default int)."""
    key = check_key("rademacher", key)
    dtype = dtypes.default_dtype("i") if dtype is None else dtypes.check_user_dtype(dtype, "rademacher")
    b = jnp.astype(bernoulli(key, 0.5, as_shape("rademacher", shape)), dtype)
    return jnp.astype(jnp.subtract(jnp.multiply(2, b), 1), dtype)


def _clip_to(x: Any, dtype: np.dtype) -> Any:
    """Clamp integers to what both their dtype and ``dtype`` hold, then convert."""
    own = get_aval(x).dtype
    low = max(int(dtypes.iinfo(dtype).min), int(dtypes.iinfo(own).min))
    high = min(int(dtypes.iinfo(dtype).max), int(dtypes.iinfo(own).max))
    clamped = lax.min(lax.max(x, const(low, own)), const(high, own))
    return lax.convert_element_type(clamped, dtype)


def randint(key: Any, shape: Any, minval: Any, maxval: Any, dtype: Any = None) -> Any:
    """Integers in [minval, maxval), from twice the bits the dtype needs (to shrink the bias)."""
    key = check_key("randint", key)
    dtype = dtypes.default_dtype("i") if dtype is None else dtypes.check_user_dtype(dtype, "randint")
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype.name}")
    shape = as_shape("randint", shape)
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if get_aval(minval).dtype.kind not in "iu":
        minval = jnp.astype(minval, int)
    if get_aval(maxval).dtype.kind not in "iu":
        maxval = jnp.astype(maxval, int)
    # maxval may lie beyond the dtype (256 for uint8): then the span is one larger.
    top = _clip_to(lax.convert_element_type(int(dtypes.iinfo(dtype).max), dtype), get_aval(maxval).dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = to_rank(_clip_to(minval, dtype), len(shape))
    maxval = to_rank(_clip_to(maxval, dtype), len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = first_keys(key, 2)
    higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)

    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = const(1, unsigned)
    span = jnp.where(jnp.less_equal(maxval, minval), one, span)  # an empty range gives minval
    # A span of 2**nbits wraps to 0, and x % 0 is x in XLA: the remainders below then do nothing.
    span = jnp.where(jnp.logical_and(maxval_out_of_range, jnp.greater(maxval, minval)), lax.add(span, one), span)
    # (high * 2**nbits + low) % span, without overflow: 2**nbits % span is multiplier^2 % span.
    multiplier = lax.rem(const(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def _shuffle_rounds(size: int) -> int:
    """How many sorts by 32-bit keys make collisions among ``size`` keys negligible."""
    return int(np.ceil(3 * np.log(max(1, size)) / np.log(2**32 - 1)))


def _shuffle(key: Any, x: Any, axis: int, independent: bool) -> Any:
    """Sort x along ``axis`` by random 32-bit keys, in a few rounds: a uniform shuffle.

    With ``independent=False`` every slice moves together: one key per position along the axis,
    broadcast over the other axes (a stable sort then moves each column the same way).
    """
    shape = get_aval(x).shape
    key_shape = shape if independent else (shape[axis],)
    for _ in range(_shuffle_rounds(math.prod(key_shape))):
        key, subkey = first_keys(key, 2)
        sort_keys = random_bits(subkey, 32, key_shape)
        if not independent:
            sort_keys = lax.broadcast_in_dim(sort_keys, shape, (axis,))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A random permutation of range(x) (x an int) or of x's slices along ``axis``."""
    key = check_key("permutation", key)
    if not get_aval(x).shape:
        if get_aval(x).dtype.kind not in "iu":
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = to_concrete_value(x)
        if n is None:
            raise TypeError("permutation: the argument x must be known when it is an integer.")
        return _shuffle(key, lax.iota(dtypes.default_dtype("i"), int(n)), 0, True)
    x = jnp.asarray(x)
    axis = axis + get_aval(x).ndim if axis < 0 else axis
    return _shuffle(key, x, axis, independent or get_aval(x).ndim == 1)


def _take(a: Any, indices: Any, axis: int) -> Any:
    """a's slices along ``axis`` at ``indices`` (known to be in range), with lax only: compare
    with every position and keep the match. A stand-in for jnp.take, which needs gather."""
    a_aval, i_aval = get_aval(a), get_aval(indices)
    n = a_aval.shape[axis]
    before, after = a_aval.shape[:axis], a_aval.shape[axis + 1 :]
    out_shape = (*before, *i_aval.shape, n, *after)
    position_axis = len(before) + i_aval.ndim
    index_dims = tuple(range(len(before), position_axis))
    a_dims = (*range(len(before)), position_axis, *range(position_axis + 1, len(out_shape)))
    hits = lax.eq(
        lax.broadcast_in_dim(lax.convert_element_type(indices, np.int32), out_shape, index_dims),
        lax.broadcasted_iota(np.int32, out_shape, position_axis),
    )
    spread = lax.broadcast_in_dim(a, out_shape, a_dims)
    lowest = lax.broadcast_in_dim(const(_lowest(a_aval.dtype), a_aval.dtype), out_shape, ())
    return lax.reduce_max(lax.select_n(hits, lowest, spread), (position_axis,))


def _lowest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return False
    if dtype.kind in "iu":
        return int(dtypes.iinfo(dtype).min)
    return -np.inf


def choice(key: Any, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None, axis: int = 0, mode: str | None = None) -> Any:
    """Random elements of range(a) (a an int) or of a's slices along ``axis``, with or without
    replacement, uniformly or with probabilities p."""
    key = check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = as_shape("choice", shape)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(to_concrete_value(arr))
    else:
        axis = axis + arr.ndim if axis < 0 else axis
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else _take(arr, ind, axis)
        else:
            shuffled = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            starts = (0,) * get_aval(shuffled).ndim
            limits = tuple(n_draws if d == axis else s for d, s in enumerate(get_aval(shuffled).shape))
            result = lax.slice(shuffled, starts, limits)
    else:
        ind = _choice_indices(key, p, n_inputs, n_draws, shape, replace, mode)
        result = ind if arr.ndim == 0 else _take(arr, ind, axis)
    out_shape = shape if arr.ndim == 0 else (*arr.shape[:axis], *shape, *arr.shape[axis + 1 :])
    return lax.reshape(result, out_shape)


def _choice_indices(key: Any, p: Any, n_inputs: int, n_draws: int, shape: tuple[int, ...], replace: bool, mode: str | None) -> Any:
    """Indices drawn with probabilities p: by the inverse CDF with replacement, by the
    Gumbel top-k trick without (the k largest of log p + gumbel noise)."""
    (p,) = jnp_promote_inexact(p)
    if get_aval(p).shape != (n_inputs,):
        raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]")
    dtype = get_aval(p).dtype
    if replace:
        cumulative = lax.cumsum(p, 0)
        total = lax.reshape(lax.slice(cumulative, (n_inputs - 1,), (n_inputs,)), ())
        r = jnp.multiply(total, jnp.subtract(1, uniform(key, shape, dtype)))
        # searchsorted(cumulative, r), side='left': how many entries are below r.
        below = jnp.less(jnp.expand_dims(cumulative, tuple(range(len(shape)))), jnp.expand_dims(r, -1))
        return jnp.sum(below, axis=-1, dtype=int)
    g = jnp.add(gumbel(key, (n_inputs,), dtype, mode), jnp.log(p))
    # top_k(g, n_draws): a stable ascending sort of -g puts the largest first, ties by index.
    _, order = lax.sort_key_val(lax.neg(g), lax.iota(dtypes.default_dtype("i"), n_inputs), 0)
    return lax.slice(order, (0,), (n_draws,))


def jnp_promote_inexact(*args: Any) -> list[Any]:
    """Arguments as arrays of their promoted inexact dtype (integers become the default float)."""
    return promote_dtypes_inexact(*[jnp.asarray(a) for a in args])


def categorical(key: Any, logits: Any, axis: int = -1, shape: Any = None, replace: bool = True, mode: str | None = None) -> Any:
    """Category indices with probabilities softmax(logits) along ``axis``: the argmax of logits
    plus Gumbel noise (the Gumbel-max trick)."""
    key = check_key("categorical", key)
    if not replace:
        raise NotImplementedError("didax.random.categorical supports replace=True only.")
    logits = jnp.asarray(logits)
    ndim = logits.ndim
    axis = axis - ndim if axis >= 0 else axis
    batch_shape = tuple(np.delete(np.array(logits.shape, dtype=int), axis).tolist())
    if shape is None:
        shape = batch_shape
    else:
        shape = as_shape("categorical", shape)
        check_shape("categorical", shape, batch_shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    logits_shape = list(shape[len(shape) - len(batch_shape) :])
    logits_shape.insert(axis % ndim, logits.shape[axis])
    noise = gumbel(key, (*prefix, *logits_shape), logits.dtype, mode)
    return jnp.argmax(jnp.add(noise, jnp.expand_dims(logits, tuple(range(len(prefix))))), axis=axis)


# ----------------------------------------------------------------------------------------------
# Gamma and the distributions made from it.


def _gamma_one(key: Any, alpha: Any, log_space: bool) -> Any:
    """One Gamma(alpha) sample by Marsaglia and Tsang's rejection method (ACM TOMS 2000).

    As in JAX, the two rejection loops are lax.while_loop and the choices select_n (from stage
    04 on; stage 01 ran Python loops on known values), so the sampler stages into a jaxpr and
    vmap batches it: each loop then runs until every example has accepted. It is the evaluation
    of the ``random_gamma`` primitive (``_gamma_impl``), so a jaxpr of ``gamma`` shows that one
    equation, not the loops, and jvp uses its rule (``random_gamma_grad``), not the loops.
    """
    dtype = get_aval(alpha).dtype
    zero, one = const(0, dtype), const(1, dtype)
    third = const(1.0 / 3.0, dtype)
    # For alpha < 1, sample Gamma(alpha + 1) and scale by u ** (1 / alpha).
    boost = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select_n(boost, lax.add(alpha, one), alpha)
    d = lax.sub(alpha, third)
    c = lax.div(third, lax.sqrt(d))

    def next_candidate(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        x_key, _, _ = state
        x_key, normal_key = first_keys(x_key, 2)
        x = normal(normal_key, (), dtype)
        return x_key, x, lax.add(one, lax.mul(x, c))

    def propose(state: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
        key, x_key, u_key = first_keys(state[0], 3)
        # Draw x until v = 1 + c x is positive (v^3 is the candidate's scale).
        start = (x_key, zero, const(-1, dtype))
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_candidate, start)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), uniform(u_key, (), dtype)

    def rejected(state: tuple[Any, Any, Any, Any]) -> Any:
        _, X, V, U = state
        return _rejected(X, V, U, d, dtype)

    key, subkey = first_keys(key, 2)
    # (X, V, U) = (0, 1, 2) is rejected: the loop proposes at least once.
    _, _, V, _ = lax.while_loop(rejected, propose, (key, zero, one, const(2, dtype)))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype))
        keep = lax.bitwise_or(boost, lax.eq(log_samples, zero))
        log_boost = lax.select_n(keep, lax.mul(log_samples, lax.div(one, alpha_orig)), zero)
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, uniform(subkey, (), dtype))
    scale = lax.select_n(boost, lax.pow(samples, lax.div(one, alpha_orig)), one)
    return lax.mul(lax.mul(d, V), scale)


def _rejected(X: Any, V: Any, U: Any, d: Any, dtype: np.dtype) -> Any:
    """Marsaglia-Tsang's test: reject unless u < 1 - 0.0331 x^4 or log u < x^2/2 + d (1 - v + log v)."""
    one = const(1, dtype)
    squeeze = lax.ge(U, lax.sub(one, lax.mul(const(0.0331, dtype), lax.mul(X, X))))
    exact = lax.ge(
        lax.log(U),
        lax.add(lax.mul(X, const(0.5, dtype)), lax.mul(d, lax.add(lax.sub(one, V), lax.log(V)))),
    )
    return lax.bitwise_and(squeeze, exact)


def _gamma_impl(keys: Any, a: Any, *, log_space: bool) -> Any:
    """random_gamma's evaluation, as JAX's: each key is split into one key per element of a that
    it covers (a's shape past the keys' own), and each element is sampled with its key."""
    a_shape = get_aval(a).shape
    size = math.prod(a_shape)
    if size == 0:
        return jnp.zeros(a_shape, get_aval(a).dtype)
    split_count = math.prod(a_shape[get_aval(keys).ndim :])
    keys = lax.reshape(random_split_p.bind(keys, shape=(split_count,)), (size,))
    samples = batching.vmap(functools.partial(_gamma_one, log_space=log_space))(keys, lax.reshape(a, (size,)))
    return lax.reshape(samples, a_shape)


def _random_gamma_abstract_eval(keys: ShapedArray, a: ShapedArray, *, log_space: bool) -> ShapedArray:
    if not dtypes.issubdtype(keys.dtype, dtypes.prng_key):
        raise TypeError(f"random_gamma takes a key array operand, got dtype={keys.dtype}.")
    if a.shape[: keys.ndim] != keys.shape:
        raise TypeError(f"random_gamma: a's shape {a.shape} must start with the keys' shape {keys.shape}.")
    return a


# A primitive, as in JAX: a transformation sees one operation on (keys, a), with rules of its own (stage
# 02 differentiates the sample by random_gamma_grad, not through the rejection loops), where it would
# otherwise see the sampler's loops.
random_gamma_p = Primitive("random_gamma")
random_gamma_p.def_impl(_gamma_impl)
random_gamma_p.def_abstract_eval(_random_gamma_abstract_eval)


def _gamma_batching_rule(vals: list[Any], dims: list[int | None], *, log_space: bool) -> tuple[Any, int]:
    """JAX's: the batch axis of the keys and of a goes to the front (an unbatched one is broadcast),
    so random_gamma gets one key per example, each split over its example's elements."""
    size = batching.batch_size(vals, dims)
    keys, a = (batching.bdim_to(x, d, 0, size) for x, d in zip(vals, dims))
    return random_gamma_p.bind(keys, a, log_space=log_space), 0


# Registered here, beside the primitive, as JAX does (batching.py comes before didax.random).
batching.batching_rules[random_gamma_p] = _gamma_batching_rule


def _gamma(key: Any, a: Any, shape: Any, dtype: Any, log_space: bool, name: str) -> Any:
    key = check_key(name, key)
    dtype = float_dtype(name, dtype)
    if shape is None:
        shape = np.shape(a)
    else:
        shape = as_shape(name, shape)
        check_shape(name, shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = jnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def gamma(key: Any, a: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Gamma(a) floats with unit scale."""
    return _gamma(key, a, shape, dtype, False, "gamma")


def loggamma(key: Any, a: Any, shape: Any = None, dtype: Any = None) -> Any:
    """The logarithm of Gamma(a) floats, accurate where a is small and gamma would underflow."""
    return _gamma(key, a, shape, dtype, True, "loggamma")


def beta(key: Any, a: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Beta(a, b) floats: Ga / (Ga + Gb), computed from log-gamma samples."""
    key = check_key("beta", key)
    dtype = float_dtype("beta", dtype)
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(a), np.shape(b)))
    else:
        shape = as_shape("beta", shape)
        check_shape("beta", shape, np.shape(a), np.shape(b))
    key_a, key_b = first_keys(key, 2)
    log_a = loggamma(key_a, jnp.broadcast_to(lax.convert_element_type(a, dtype), shape), shape, dtype)
    log_b = loggamma(key_b, jnp.broadcast_to(lax.convert_element_type(b, dtype), shape), shape, dtype)
    log_max = lax.max(log_a, log_b)  # scale both down before exp: no overflow, no 0/0
    scaled_a, scaled_b = jnp.exp(jnp.subtract(log_a, log_max)), jnp.exp(jnp.subtract(log_b, log_max))
    return jnp.divide(scaled_a, jnp.add(scaled_a, scaled_b))


def dirichlet(key: Any, alpha: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Dirichlet(alpha) vectors along the last axis: normalized log-gamma samples (a softmax)."""
    key = check_key("dirichlet", key)
    alpha_shape = np.shape(alpha)
    if len(alpha_shape) < 1:
        raise ValueError(f"The alpha parameter must have at least one dimension, got shape {alpha_shape}.")
    dtype = float_dtype("dirichlet", dtype)
    if shape is None:
        shape = alpha_shape[:-1]
    else:
        shape = as_shape("dirichlet", shape)
        check_shape("dirichlet", shape, alpha_shape[:-1])
    logs = loggamma(key, alpha, (*shape, alpha_shape[-1]), dtype)
    unnormalized = jnp.exp(jnp.subtract(logs, jnp.max(logs, -1, keepdims=True)))
    return jnp.divide(unnormalized, jnp.sum(unnormalized, -1, keepdims=True))


def _check_broadcast_shapes(name: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """The result's shape: ``shape`` (to which the parameters must broadcast), or theirs broadcast."""
    param_shapes = [np.shape(p) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*param_shapes))
    shape = as_shape(name, shape)
    check_shape(name, shape, *param_shapes)
    return shape


def _check_safe_to_cast(name: str, dtype: np.dtype, *params: Any) -> None:
    """Parameters must convert to ``dtype`` without loss under the promotion rules (a weak Python
    float goes into float16; a float32 array does not)."""
    for param in params:
        if get_aval(param).dtype != dtype and dtypes.result_type(param, dtype) != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type {get_aval(param).dtype} to {dtype}"
            )


def _checked(name: str, key: Any, dtype: Any, shape: Any, *params: Any) -> tuple[Any, np.dtype, tuple[int, ...]]:
    """A float sampler's key, dtype and result shape, checked as JAX checks them, in its order;
    the parameters must convert to the dtype without loss."""
    key = check_key(name, key)
    dtype = float_dtype(name, dtype)
    shape = _check_broadcast_shapes(name, shape, *params)
    _check_safe_to_cast(name, dtype, *params)
    return key, dtype, shape


def t(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Student's t floats with ``df`` degrees of freedom: a normal over the root of a
    Gamma(df/2) / (df/2) sample."""
    key, dtype, shape = _checked("t", key, dtype, shape, df)
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = first_keys(key, 2)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, const(2, dtype))
    g = gamma(key_g, half_df, shape, dtype)
    return jnp.multiply(n, jnp.sqrt(jnp.divide(half_df, g)))


def _unknown_power(x: Any, y: Any) -> Any:
    """jnp.power(x, y) for a float x, taking y as an array whose value is not known: lax.pow
    even where y is an integer (JAX's samplers get p as an argument of a jitted function, so
    ``x ** p`` is never the exact integer_pow there)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    if get_aval(y).dtype.kind not in "iu":
        x, y = promote_dtypes_inexact(x, y)
    return lax.pow(*jnp.broadcast_arrays(x, y))


def _generalized_normal(key: Any, p: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Floats with density proportional to exp(-|x|^p): a random sign times G^(1/p), G ~ Gamma(1/p)."""
    key_g, key_r = first_keys(key, 2)
    inv_p = jnp.divide(1, p)
    g = gamma(key_g, inv_p, shape, dtype)
    return jnp.multiply(rademacher(key_r, shape, dtype), _unknown_power(g, inv_p))


def ball(key: Any, d: int, p: float = 2, shape: Any = (), dtype: Any = None) -> Any:
    """Points uniform in the unit Lp ball of dimension d (Barthe, Guedon, Mendelson and Naor
    2005): generalized-normal coordinates g and an exponential e give g / (sum |g|^p + e)^(1/p)."""
    shape = as_shape("ball", shape)
    key = check_key("ball", key)
    dtype = dtypes.default_dtype("f") if dtype is None else dtypes.check_user_dtype(dtype, "ball")
    d = operator.index(d)
    p = jnp.asarray(p)  # an array, as in JAX, where p is an argument of the jitted sampler
    key_g, key_e = first_keys(key, 2)
    g = _generalized_normal(key_g, p, (*shape, d), dtype)
    e = exponential(key_e, shape, dtype)
    radius = _unknown_power(jnp.add(jnp.sum(_unknown_power(jnp.abs(g), p), axis=-1), e), jnp.divide(1, p))
    return jnp.divide(g, jnp.expand_dims(radius, -1))


# ----------------------------------------------------------------------------------------------
# Distributions made from the ones above, each as JAX writes it, so each gives JAX's numbers. JAX
# passes their parameters to a jitted function: here they become arrays (a Python float a weak one).


def generalized_normal(key: Any, p: float, shape: Any = (), dtype: Any = None) -> Any:
    """Floats with density proportional to exp(-|x|^p)."""
    shape = as_shape("generalized_normal", shape)
    key = check_key("generalized_normal", key)
    # As JAX's, the dtype is checked by gamma, which names itself in the error.
    dtype = dtypes.default_dtype("f") if dtype is None else dtypes.check_user_dtype(dtype, "generalized_normal")
    return _generalized_normal(key, jnp.asarray(p), shape, dtype)


def lognormal(key: Any, sigma: Any = np.float32(1), shape: Any = None, dtype: Any = None) -> Any:
    """exp(sigma z) for standard normal z."""
    key = check_key("lognormal", key)
    dtype = dtypes.default_dtype("f") if dtype is None else dtypes.check_user_dtype(dtype, "lognormal")
    if not dtypes.is_inexact(dtype):  # JAX's words: its normal also draws complex numbers, didax's not yet
        raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, got {dtype}")
    shape = _check_broadcast_shapes("lognormal", shape, sigma)
    _check_safe_to_cast("lognormal", dtype, sigma)
    return jnp.exp(jnp.multiply(normal(key, shape, dtype), lax.convert_element_type(sigma, dtype)))


def maxwell(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """The length of a 3-D standard normal vector."""
    key = check_key("maxwell", key)
    dtype = float_dtype("maxwell", dtype)
    shape = as_shape("maxwell", shape)
    return jnp.linalg.norm(normal(key, (*shape, 3), dtype), axis=-1)


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Any = (), dtype: Any = None) -> Any:
    """loc + scale * (a Maxwell sample with a random sign). As in JAX, the parameters' shape is
    appended to ``shape`` (which defaults to it when empty)."""
    key = check_key("double_sided_maxwell", key)
    dtype = float_dtype("double_sided_maxwell", dtype)
    param_shape = tuple(np.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = as_shape("double_sided_maxwell", shape) or param_shape
    shape = (*shape, *param_shape)
    maxwell_key, sign_key = first_keys(key, 2)
    magnitude = maxwell(maxwell_key, shape, dtype)
    sign = rademacher(sign_key, shape, dtype)
    return jnp.add(jnp.multiply(jnp.multiply(sign, magnitude), jnp.asarray(scale)), jnp.asarray(loc))


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Weibull floats, by the inverse CDF: scale * (-log(1 - u))^(1/concentration)."""
    key = check_key("weibull_min", key)
    dtype = float_dtype("weibull_min", dtype)
    u = uniform(key, as_shape("weibull_min", shape), dtype, 0, 1)
    inv_c = jnp.divide(1.0, jnp.asarray(concentration))
    return jnp.multiply(_unknown_power(jnp.negative(jnp.log1p(jnp.negative(u))), inv_c), jnp.asarray(scale))


def pareto(key: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Pareto floats on [1, inf): exp(e / b) for a standard exponential e."""
    key, dtype, shape = _checked("pareto", key, dtype, shape, b)
    return lax.exp(jnp.divide(exponential(key, shape, dtype), lax.convert_element_type(b, dtype)))


def rayleigh(key: Any, scale: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Rayleigh floats: scale * sqrt(-2 log u)."""
    key, dtype, shape = _checked("rayleigh", key, dtype, shape, scale)
    scale = jnp.broadcast_to(jnp.astype(jnp.asarray(scale), dtype), shape)
    u = uniform(key, shape, dtype)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), const(-2, dtype))))


def wald(key: Any, mean: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Wald (inverse Gaussian) floats with scale 1, by Michael, Schucany and Haas's transformation."""
    key, dtype, shape = _checked("wald", key, dtype, shape, mean)
    normal_key, uniform_key = first_keys(key, 2)
    mean = jnp.broadcast_to(jnp.astype(jnp.asarray(mean), dtype), shape)
    y = lax.integer_pow(normal(normal_key, shape, dtype), 2)
    z = uniform(uniform_key, shape, dtype)
    mean_sq = lax.integer_pow(mean, 2)
    root = lax.sqrt(4 * mean * y + mean_sq * lax.integer_pow(y, 2))
    x = mean + mean_sq * y / 2 - mean / 2 * root
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Floats with a triangular density on [left, right] peaking at mode, by the inverse CDF."""
    key, dtype, shape = _checked("triangular", key, dtype, shape, left, mode, right)
    left, mode, right = (jnp.broadcast_to(lax.convert_element_type(v, dtype), shape) for v in (left, mode, right))
    u = uniform(key, shape, dtype)
    rising = left + lax.sqrt(u * (right - left) * (mode - left))
    falling = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < (mode - left) / (right - left), rising, falling)


def chisquare(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Chi-squared floats with ``df`` degrees of freedom: 2 Gamma(df / 2), drawn in log space."""
    key, dtype, shape = _checked("chisquare", key, dtype, shape, df)
    two = const(2, dtype)
    log_g = loggamma(key, lax.div(lax.convert_element_type(df, dtype), two), shape, dtype)
    return lax.mul(jnp.exp(log_g), two)


def f(key: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = None) -> Any:
    """F floats: (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)."""
    key, dtype, shape = _checked("f", key, dtype, shape, dfnum, dfden)
    dfnum, dfden = lax.convert_element_type(dfnum, dtype), lax.convert_element_type(dfden, dtype)
    den_key, num_key = first_keys(key, 2)
    num = lax.div(chisquare(num_key, dfnum, shape, dtype), dfnum)
    return lax.div(num, lax.div(chisquare(den_key, dfden, shape, dtype), dfden))


def geometric(key: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...), in ``dtype`` (an int)."""
    key = check_key("geometric", key)
    dtype = dtypes.default_dtype("i") if dtype is None else dtypes.check_user_dtype(dtype, "geometric")
    if dtype.kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = _check_broadcast_shapes("geometric", shape, p)
    (p,) = promote_dtypes_inexact(jnp.asarray(p))
    u = uniform(key, shape, get_aval(p).dtype)
    log_u = lax.log(jnp.where(u == 0, 1, u))
    log_q = jnp.broadcast_to(lax.log1p(jnp.negative(p)), shape)
    return jnp.astype(lax.floor(lax.div(log_u, log_q)) + 1, dtype)


# ----------------------------------------------------------------------------------------------
# Poisson.


def poisson(key: Any, lam: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Poisson(lam) integers, as JAX (and NumPy, TensorFlow) draw them: Knuth's multiplication of
    uniforms below lam = 10, Hormann's transformed rejection from there on. Both run over every
    element (each on the elements it is for), with the same key, and a select keeps the right one."""
    key = check_key("poisson", key)
    dtype = dtypes.default_dtype("i") if dtype is None else dtypes.check_user_dtype(dtype, "poisson")
    shape = np.shape(lam) if shape is None else as_shape("poisson", shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    max_iters = int(dtypes.iinfo(dtype).max)  # the loops stop there at the latest ("insanely conservative")
    use_knuth = jnp.logical_or(jnp.isnan(lam), jnp.less(lam, 10))
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)  # any lam where rejection works
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters),
    )
    return lax.select(jnp.equal(lam, 0), jnp.zeros_like(result), result)


def _poisson_knuth(key: Any, lam: Any, shape: tuple[int, ...], dtype: np.dtype, max_iters: int) -> Any:
    """Knuth: multiply uniforms until the product falls below e^-lam (sums of logs here); the
    count of factors, less one, is the sample.

    As in JAX, the loop is a lax.while_loop (from stage 04 on; stage 01 ran a Python loop on known
    values) that runs while any element goes on; an element that has stopped keeps its count.
    """
    neg_lam = lax.neg(lam)
    limit = const(max_iters, dtype)

    def going(state: tuple[Any, Any, Any, Any]) -> Any:
        i, _, _, log_prod = state
        return jnp.logical_and(jnp.any(lax.gt(log_prod, neg_lam)), jnp.less(i, limit))

    def step(state: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
        i, k, key, log_prod = state
        key, subkey = first_keys(key, 2)
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, const(1, dtype)), k)
        log_prod = lax.add(log_prod, jnp.log(uniform(subkey, shape, np.float32)))
        return jnp.add(i, 1), k, key, log_prod

    start = (jnp.asarray(0), lax.full_like(lam, 0, dtype, shape), key, lax.full_like(lam, 0, np.float32, shape))
    k = lax.while_loop(going, step, start)[1]
    return jnp.astype(jnp.subtract(k, 1), dtype)


def _poisson_rejection(key: Any, lam: Any, shape: tuple[int, ...], dtype: np.dtype, max_iters: int) -> Any:
    """Hormann's transformed rejection (PTRS, 1993): k = floor((2a/u' + b) u + lam + 0.43) from two
    uniforms, kept by a quick test or by comparing log densities. A lax.while_loop like Knuth's."""
    log_lam = lax.log(lam)
    b = jnp.add(0.931, jnp.multiply(2.53, lax.sqrt(lam)))
    a = jnp.add(-0.059, jnp.multiply(0.02483, b))
    inv_alpha = jnp.add(1.1239, jnp.divide(1.1328, jnp.subtract(b, 3.4)))
    v_r = jnp.subtract(0.9277, jnp.divide(3.6224, jnp.subtract(b, 2)))
    limit = const(max_iters, dtype)

    def going(state: tuple[Any, Any, Any, Any]) -> Any:
        i, _, accepted, _ = state
        return jnp.logical_and(jnp.any(jnp.logical_not(accepted)), jnp.less(i, limit))

    def step(state: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
        i, k_out, accepted, key = state
        key, key_u, key_v = first_keys(key, 3)
        u = jnp.subtract(uniform(key_u, shape, np.float32), 0.5)
        v = uniform(key_v, shape, np.float32)
        u_shifted = jnp.subtract(0.5, jnp.abs(u))
        k = jnp.multiply(jnp.add(jnp.divide(jnp.multiply(2, a), u_shifted), b), u)
        k = lax.floor(jnp.add(jnp.add(k, lam), 0.43))
        hat = jnp.add(jnp.divide(a, jnp.multiply(u_shifted, u_shifted)), b)
        s = lax.log(jnp.divide(jnp.multiply(v, inv_alpha), hat))
        t = jnp.subtract(jnp.add(lax.neg(lam), jnp.multiply(k, log_lam)), lax.lgamma(jnp.add(k, 1)))
        accept1 = jnp.logical_and(jnp.greater_equal(u_shifted, 0.07), jnp.less_equal(v, v_r))
        reject = jnp.logical_or(jnp.less(k, 0), jnp.logical_and(jnp.less(u_shifted, 0.013), jnp.greater(v, u_shifted)))
        accept = jnp.logical_or(accept1, jnp.logical_and(jnp.logical_not(reject), jnp.less_equal(s, t)))
        return jnp.add(i, 1), lax.select(accept, k, k_out), jnp.logical_or(accepted, accept), key

    start = (jnp.asarray(0), lax.full_like(lam, -1, np.float32, shape), lax.full_like(lam, False, np.bool_, shape), key)
    return jnp.astype(lax.while_loop(going, step, start)[1], dtype)
