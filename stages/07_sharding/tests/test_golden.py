"""Golden values for stage 01 from the source documents (see notes/requirements-digest.md §1, §8)."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def test_autodidax_first_program_evaluates_to_the_seed_value(x64):
    # D:16665: f(x) = -(sin(x) * 2.) + x at 3.0, in float64.
    def f(x):
        return -(jnp.sin(x) * 2.0) + x

    assert float(f(3.0)) == 2.7177599838802657


def test_autodidax_program_written_with_lax_primitives(x64):
    def f(x):
        return lax.add(lax.neg(lax.mul(lax.sin(x), 2.0)), x)

    assert float(f(3.0)) == 2.7177599838802657


def test_python_scalar_array_is_weak_int32():
    # D:6009-6026: jnp.asarray(2) -> Array(2, dtype=int32, weak_type=True)
    assert repr(jnp.asarray(2)) == "Array(2, dtype=int32, weak_type=True)"
    assert repr(jnp.asarray(2, dtype="int32")) == "Array(2, dtype=int32)"


def test_weak_python_scalar_keeps_the_array_precision():
    x = jnp.arange(5, dtype="int8")
    assert (2 * x).dtype == np.int8  # D:5997
    assert (jnp.int32(2) * x).dtype == np.int32  # D:6005
    assert (jnp.int16(1) + 1).dtype == np.int16


def test_numpy_array_operand_is_not_weak():
    assert (jnp.int16(1) + np.array(1)).dtype == np.int32  # x64 off
    with didax.enable_x64():
        assert (jnp.int16(1) + np.array(1)).dtype == np.int64


def test_bfloat16_and_float16_promote_to_float32():
    assert jnp.promote_types(jnp.bfloat16, jnp.float16) == np.float32


def test_uint64_and_signed_int_promote_to_a_float():
    assert jnp.promote_types(np.uint64, np.int8) == np.float64


def test_strict_promotion_error_message_and_weak_scalar_escape():
    # D:6028-6055
    x, y = jnp.float32(1), jnp.int32(1)
    with didax.numpy_dtype_promotion("strict"):
        with pytest.raises(didax.dtypes.TypePromotionError) as err:
            x + y
        assert float(x + 1) == 2.0
    assert str(err.value) == (
        "Input dtypes ('float32', 'int32') have no available implicit dtype promotion path when "
        "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output type, "
        "or set jax_numpy_dtype_promotion=standard."
    )


def test_strict_flag_set_through_config_update():
    didax.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        with pytest.raises(didax.dtypes.TypePromotionError):
            jnp.float32(1) + jnp.int32(1)
    finally:
        didax.config.update("jax_numpy_dtype_promotion", "standard")
    assert (jnp.float32(1) + jnp.int32(1)).dtype == np.float32


def test_x64_off_canonicalizes_to_32_bits_and_on_keeps_64():
    assert jnp.asarray(np.arange(3.0)).dtype == np.float32
    assert jnp.asarray(np.arange(3)).dtype == np.int32
    with didax.enable_x64():
        assert jnp.asarray(np.arange(3.0)).dtype == np.float64
        assert jnp.asarray(2**40).dtype == np.int64
    assert didax.config.jax_enable_x64 is False


def test_python_int_too_large_for_int32_overflows():
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        jnp.asarray(2**40)
    # ...even on its way to a float (a Python int is first the default int, as in JAX)...
    with pytest.raises(OverflowError):
        jnp.float32(1) + 2**40
    # ...while one that fits wraps into a narrower integer array: 300 is 44 as a uint8.
    assert jnp.asarray(np.uint8(1)) + 300 == 45
