"""Bad input gets the error type JAX raises, with a message naming the problem, and evaluation
stays usable afterwards."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax


def _still_works():
    assert float(jnp.add(1.0, 2.0)) == 3.0
    assert len(didax.core.trace_state.trace_stack) == 1


@pytest.mark.parametrize("bad", ["abc", object(), {1: 2}])
def test_unsupported_python_values_raise_type_error(bad):
    with pytest.raises(TypeError, match="not a valid didax"):
        lax.sin(bad)
    _still_works()


def test_lists_are_not_arrays_in_numpy_functions():
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments, got list at position 0"):
        jnp.sum([1, 2])
    _still_works()


def test_unknown_and_unsupported_dtypes():
    with pytest.raises(TypeError, match="data type 'foo' not understood"):
        jnp.zeros(3, dtype="foo")
    with pytest.raises(TypeError, match="does not support dtype"):
        jnp.zeros(3, dtype=object)
    with pytest.raises(TypeError, match="not a valid didax array type"):
        jnp.asarray(np.array(["a"]))
    _still_works()


def test_lax_refuses_mixed_dtypes_with_a_tip():
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same dtypes, got float32, int32"):
        lax.add(jnp.ones(3), jnp.ones(3, "int32"))
    _still_works()


def test_lax_refuses_incompatible_shapes():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        lax.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="same number of dimensions"):
        lax.add(jnp.ones((2, 3)), jnp.ones(3))
    _still_works()


def test_lax_refuses_dtypes_an_operation_does_not_accept():
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        lax.sin(jnp.arange(3))
    with pytest.raises(TypeError, match="neg does not accept dtype bool"):
        -jnp.ones(2, bool)
    _still_works()


def test_bad_axes_raise_value_error():
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 1"):
        jnp.ones(3).sum(axis=3)
    with pytest.raises(ValueError, match="out-of-bounds"):
        lax.reduce_sum(jnp.ones((2, 3)), (2,))
    with pytest.raises(ValueError, match="duplicate"):
        lax.reduce_sum(jnp.ones((2, 3)), (0, 0))
    _still_works()


def test_shape_errors_name_the_shapes():
    with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
        jnp.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="cannot reshape array of size 6"):
        jnp.ones((2, 3)).reshape(4)
    with pytest.raises(TypeError, match="isn't a permutation"):
        lax.transpose(jnp.ones((2, 3)), (0, 0))
    _still_works()


def test_integer_negative_power_is_a_type_error():
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        jnp.power(jnp.int32(2), -1)


def test_bad_config_values():
    with pytest.raises(ValueError, match="must be one of"):
        didax.config.update("jax_numpy_dtype_promotion", "loose")
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        didax.config.update("jax_no_such_flag", True)
    assert didax.config.jax_numpy_dtype_promotion == "standard"


def test_advanced_indexing_is_refused_clearly():
    with pytest.raises(TypeError, match="Advanced indexing"):
        jnp.ones(3)[[0, 1]]
    with pytest.raises(IndexError, match="Too many indices"):
        jnp.ones(3)[0, 0]


def test_scalar_conversion_of_an_array_names_its_shape():
    with pytest.raises(TypeError, match=r"shape \(3,\)"):
        int(jnp.ones(3))
