"""Golden values for the bit-level primitives (lax/bitwise.py) and their NumPy front ends.
The expected values were read from JAX 0.10.2."""

import numpy as np
import pytest

import didax.numpy as jnp
from didax import lax

EDGES = [1, -8, 2**31 - 1, -(2**31)]


def values(x) -> list:
    return np.asarray(x).tolist()


@pytest.mark.parametrize(
    "amount, left, logical, arithmetic",
    [
        (0, EDGES, EDGES, EDGES),
        (1, [2, -16, -2, 0], [0, 2147483644, 1073741823, 1073741824], [0, -4, 1073741823, -1073741824]),
        (31, [-(2**31), 0, -(2**31), 0], [0, 1, 0, 1], [0, -1, 0, -1]),
        (32, [0, 0, 0, 0], [0, 0, 0, 0], [0, -1, 0, -1]),
        (33, [0, 0, 0, 0], [0, 0, 0, 0], [0, -1, 0, -1]),
        (-1, [0, 0, 0, 0], [0, 0, 0, 0], [0, -1, 0, -1]),  # read as unsigned: a huge shift
    ],
)
def test_shifts_follow_xla_for_every_amount(amount, left, logical, arithmetic):
    x = jnp.array(EDGES, jnp.int32)
    y = jnp.int32(amount)
    assert values(lax.shift_left(x, y)) == left
    assert values(lax.shift_right_logical(x, y)) == logical
    assert values(lax.shift_right_arithmetic(x, y)) == arithmetic


def test_unsigned_shifts_by_the_bit_width_give_zero():
    x = jnp.array([0xFFFFFFFF, 0x80000000], jnp.uint32)
    assert values(lax.shift_left(x, jnp.uint32(32))) == [0, 0]
    assert values(lax.shift_right_logical(x, jnp.uint32(31))) == [1, 1]
    assert values(lax.shift_right_arithmetic(x, jnp.uint32(31))) == [0xFFFFFFFF, 0xFFFFFFFF]


def test_xor_of_integers_and_booleans():
    assert values(lax.bitwise_xor(jnp.array([5, 6], jnp.uint8), jnp.array([3, 3], jnp.uint8))) == [6, 5]
    assert values(lax.bitwise_xor(True, True)) is False


def test_population_count_and_clz():
    x = jnp.array(EDGES, jnp.int32)
    assert values(lax.population_count(x)) == [1, 29, 31, 1]
    assert values(lax.clz(x)) == [31, 0, 1, 0]
    assert int(lax.clz(jnp.uint8(0))) == 8
    assert int(lax.population_count(jnp.int8(-1))) == 8
    assert int(lax.clz(jnp.uint16(1))) == 15


def test_bitcast_of_equal_widths_keeps_the_shape():
    assert int(lax.bitcast_convert_type(jnp.float32(1.0), jnp.uint32)) == 0x3F800000
    assert float(lax.bitcast_convert_type(jnp.uint32(0x40000000), jnp.float32)) == 2.0


def test_bitcast_to_a_narrower_type_adds_a_last_axis():
    out = lax.bitcast_convert_type(jnp.array([1.0, 2.0], jnp.float32), jnp.uint8)
    assert out.shape == (2, 4)
    assert values(out[0]) == [0, 0, 0x80, 0x3F]  # little-endian, as on every XLA backend


def test_bitcast_to_a_wider_type_consumes_the_last_axis():
    out = lax.bitcast_convert_type(jnp.array([[0, 0x3F80]], jnp.uint16), jnp.float32)
    assert out.shape == (1,)
    assert float(out[0]) == 1.0


def test_bitcast_errors():
    with pytest.raises(ValueError, match="3 \\* 8 != 32"):
        lax.bitcast_convert_type(jnp.zeros((3, 3), jnp.uint8), jnp.float32)
    with pytest.raises(TypeError, match="does not support bool"):
        lax.bitcast_convert_type(jnp.zeros((3,), jnp.bool_), jnp.uint8)


def test_shift_and_xor_errors_name_the_problem():
    with pytest.raises(TypeError, match="shift_left does not accept dtype float32"):
        lax.shift_left(1.0, 2.0)
    with pytest.raises(TypeError, match="jnp.left_shift"):
        lax.shift_left(jnp.int32(1), jnp.uint32(1))
    with pytest.raises(TypeError, match="population_count does not accept dtype bool"):
        lax.population_count(True)


def test_numpy_shifts_promote_and_pick_the_right_shift():
    assert int(jnp.left_shift(jnp.int8(1), 9)) == 0
    assert int(jnp.right_shift(jnp.uint8(200), jnp.int32(3))) == 25
    assert int(jnp.right_shift(jnp.int32(-8), 1)) == -4  # arithmetic for signed
    assert int(jnp.right_shift(jnp.uint32(0x80000000), 1)) == 0x40000000  # logical for unsigned
    assert int(jnp.left_shift(True, True)) == 2  # booleans count as int32


def test_bitwise_count_counts_the_magnitude_as_uint8():
    out = jnp.bitwise_count(jnp.array([3, -3, -1], jnp.int32))
    assert out.dtype == np.uint8 and values(out) == [2, 2, 1]
    assert int(jnp.bitwise_count(jnp.uint32(2**32 - 1))) == 32


def test_array_operators_for_bits():
    x = jnp.array([1, 2])
    assert values(x << 1) == [2, 4]
    assert values(1 << x) == [2, 4]
    assert values(jnp.array([8]) >> 2) == [2]
    assert values(jnp.array([5]) ^ 3) == [6]
    assert values(3 ^ jnp.array([5])) == [6]
    assert values(jnp.array([True]) ^ True) == [False]


@pytest.mark.parametrize("shift", [jnp.left_shift, jnp.right_shift])
def test_shifts_promote_before_making_booleans_int32(shift):
    """As JAX: the operands are promoted first, so a bool shifted with uint8 (or by it) is uint8;
    only when both are bools is the shift done in int32."""
    assert shift(jnp.array([True]), jnp.array([1], jnp.uint8)).dtype == np.uint8
    assert shift(jnp.array([3], jnp.int8), jnp.array([True])).dtype == np.int8
    assert shift(jnp.array([True]), jnp.array([True])).dtype == np.int32
    assert values(jnp.left_shift(jnp.array([True, False]), jnp.array([3, 3], jnp.uint8))) == [8, 0]


def test_reduce_precision_rounds_as_a_cast_to_the_narrower_type_and_back():
    """reduce_precision to bfloat16's and float16's formats against ml_dtypes' casts: round to
    nearest even. Below float16's normal range XLA (and so didax) gives a signed zero where the
    cast keeps a subnormal; past its largest value, a signed infinity."""
    import ml_dtypes

    bits = np.random.default_rng(0).integers(0, 2**32, size=20_000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[~np.isnan(x)]
    got = np.asarray(lax.reduce_precision(x, 8, 7))
    np.testing.assert_array_equal(got.view(np.uint32), x.astype(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32))
    got = np.asarray(lax.reduce_precision(x, 5, 10))
    with np.errstate(over="ignore"):
        cast = x.astype(np.float16).astype(np.float32)
    tiny = np.finfo(np.float16).tiny
    normal = np.abs(x) >= tiny
    np.testing.assert_array_equal(got[normal].view(np.uint32), cast[normal].view(np.uint32))
    np.testing.assert_array_equal(got[~normal].view(np.uint32), (np.signbit(x[~normal]).astype(np.uint32) << 31))
    assert np.isinf(got[np.abs(x) >= 65520]).all()  # 65520 rounds up past 65504
    nan = np.array([np.nan, -np.nan], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(nan, 2, 0)).view(np.uint32), nan.view(np.uint32))
