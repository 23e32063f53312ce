"""Bad input gets the error type JAX raises, with a message naming the problem, and evaluation
stays usable afterwards."""

import warnings

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


def test_a_list_as_the_whole_index_is_refused_as_in_jax():
    with pytest.raises(TypeError, match=r"non-tuple sequence for multidimensional indexing.*arr\[array\(seq\)\]"):
        jnp.ones(3)[[0, 1]]
    with pytest.raises(IndexError, match="Too many indices"):
        jnp.ones(3)[0, 0]


def test_scalar_conversion_of_an_array_names_its_shape():
    with pytest.raises(TypeError, match=r"shape \(3,\)"):
        int(jnp.ones(3))


def test_bad_axes_are_value_errors_and_index_errors_as_jax_raises_either():
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        jnp.mean(jnp.ones((2, 3)), axis=2)  # JAX: IndexError here, ValueError in jnp.sum
    with pytest.raises(TypeError, match="axis must be an integer, got 0.5"):
        jnp.concatenate([jnp.ones(3)], axis=0.5)
    with pytest.raises(NameError, match="unbound axis name: 0"):
        jnp.sum(jnp.ones(3), axis="0")
    _still_works()


def test_axis_may_be_an_integer_array_and_a_shape_an_int():
    assert jnp.sum(jnp.ones((2, 3)), axis=jnp.asarray(0)).shape == (3,)
    assert jnp.broadcast_to(jnp.ones(()), 3).shape == (3,)


def test_dynamic_update_slice_refuses_extra_start_indices():
    with pytest.raises(ValueError, match="one start index per operand dimension: got 2 start indices"):
        lax.dynamic_update_slice(jnp.ones(3), jnp.ones(1), (0, 0))
    with pytest.raises(ValueError, match="got 2 start indices"):
        lax.dynamic_slice(jnp.ones(3), (0, 0), (1,))
    _still_works()


def test_lax_shapes_with_negative_sizes_are_type_errors():
    with pytest.raises(TypeError, match="negative dimension"):
        lax.reshape(jnp.ones(6), (-1,))
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.zeros(-1)
    _still_works()


def test_argmax_refuses_complex_numbers():
    with pytest.raises(TypeError, match="argmax does not accept dtype complex64"):
        jnp.argmax(jnp.ones(3, "complex64"))


def test_out_arguments_are_not_supported():
    with pytest.raises(NotImplementedError, match="'out' argument to didax.numpy.sum"):
        jnp.sum(jnp.ones(3), out=jnp.ones(()))


def test_broadcast_in_dim_takes_dimensions_in_any_order():
    x = np.arange(6).reshape(2, 3)
    out = lax.broadcast_in_dim(jnp.asarray(x), (3, 2), (1, 0))
    np.testing.assert_array_equal(out, x.T)
    out = lax.broadcast_in_dim(jnp.asarray(x), (3, 4, 2), (2, 0))
    np.testing.assert_array_equal(out, np.broadcast_to(x.T[:, None, :], (3, 4, 2)))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: jnp.zeros(2, "float64"), "zeros"),
        (lambda: jnp.arange(3, dtype="int64"), "arange"),
        (lambda: jnp.ones(2).astype("complex128"), "astype"),
        (lambda: jnp.sum(jnp.ones(2), dtype="float64"), "sum"),
        (lambda: lax.convert_element_type(1.0, "float64"), "convert_element_type"),
    ],
)
def test_a_64_bit_dtype_with_x64_off_warns_and_gives_32_bits(call, name):
    with pytest.warns(UserWarning, match=f"requested in {name} is not available"):
        out = call()
    assert out.dtype.itemsize <= 8 and out.dtype.name in ("float32", "int32", "complex64")
    with didax.enable_x64(), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call().dtype.name in ("float64", "int64", "complex128")


def test_python_types_as_dtypes_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.zeros(2, dtype=int).dtype == np.int32 and jnp.ones(2, dtype=float).dtype == np.float32
