"""Weak types of the functions JAX builds from its own constants (probed on JAX 0.10.2).

JAX makes a function's constants with ``lax._const(x, value)``, weakly typed only when ``x`` is a
weak 0-d value. So hypot, logaddexp2, the logical functions, gcd and lcm give a weak result for weak
scalars but a strong one for weak arrays, heaviside looks at its first operand only, and an integer
power with an array exponent (binary exponentiation from strong constants) is never weak.
"""

import numpy as np
import pytest

import didax.numpy as jnp

W = jnp.full((2,), 3.0)  # weakly typed, like the Python scalar it holds
WI = jnp.full((2,), 4)


@pytest.mark.parametrize("name", ["hypot", "logaddexp2", "logical_and", "logical_or", "logical_xor"])
def test_weak_for_weak_scalars_and_strong_for_weak_arrays(name):
    f = getattr(jnp, name)
    assert W.weak_type
    assert f(3.0, 4.0).weak_type
    assert f(np.array(True), 4.0).weak_type  # the join of bool and a Python float is a weak float
    assert not f(W, 4.0).weak_type
    assert not f(W, W).weak_type
    assert not f(np.array([True, False]), 4.0).weak_type


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_and_lcm_are_weak_only_for_weak_scalars(name):
    f = getattr(jnp, name)
    assert f(6, 4).weak_type and int(f(6, 4)) == {"gcd": 2, "lcm": 12}[name]
    got = f(WI, 6)
    assert not got.weak_type and np.asarray(got).tolist() == {"gcd": [2, 2], "lcm": [12, 12]}[name]


def test_heaviside_takes_the_weak_type_from_its_first_operand():
    assert jnp.heaviside(1.0, W).weak_type
    assert not jnp.heaviside(W, 0.5).weak_type
    assert np.asarray(jnp.heaviside(jnp.full((3,), -1.0), 0.5)).tolist() == [0.0, 0.0, 0.0]


def test_hypot_of_weak_scalars_keeps_its_values():
    assert float(jnp.hypot(3.0, 4.0)) == 5.0
    assert float(jnp.hypot(np.inf, 4.0)) == np.inf
    assert np.asarray(jnp.hypot(W, 4.0)).tolist() == [5.0, 5.0]


def test_an_integer_power_of_an_array_exponent_is_never_weak():
    assert jnp.power(2, 3).weak_type  # a known exponent: integer_pow keeps the base's weak type
    got = jnp.power(WI, WI)
    assert got.dtype == np.int32 and not got.weak_type
    assert np.asarray(got).tolist() == [256, 256]
    assert not jnp.power(2, WI).weak_type
    assert jnp.power(2.0, W).weak_type  # a float power promotes: the join's weak type


def test_atan2_promotes_its_arguments_first_and_arctan2_does_not():
    """JAX's atan2 is arctan2 of promote_args: the Python int -1 becomes the uint8 255 first."""
    x = np.array([1], np.uint8)
    assert np.allclose(np.asarray(jnp.arctan2(x, -1)), [np.arctan2(1, -1)])
    assert np.allclose(np.asarray(jnp.atan2(x, -1)), [np.arctan2(1, 255)])
