"""The vmap area, continued: every position of the batch axis, swept, and jacfwd of inputs of two dtypes.

``test_vmap.py`` draws where each batch axis goes (a few examples per case) and sweeps the
batched/unbatched patterns with every batch axis at 0. A rule that is right at axis 0 and wrong
elsewhere (a stride, a start or an unpadded axis given to axis 0 instead of to the batch axis) can
slip between the draws; here each argument of each case is batched alone at every other position
(the others unbatched), deterministically. Found by the mutants of ``meta/mutants_03_vmap.py``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from conformance.checks import show_call
from conformance.derivatives import float0_dtype, numerical_jacobian
from conformance.impl import Impl
from conformance.test_vmap import B, CASES, F64, _args_text, _compile, _fixed, _namespace, assert_jacobian, check_vmap

pytestmark = [pytest.mark.area("vmap"), pytest.mark.requires("vmap")]

# (case, argument): every argument of rank 1 or more of the swept cases but the unary elementwise ones
# (`lax.sin(x)`: the batch axis stays where it is, whatever it is), which would only cost JAX compiles.
ALONE = [(c, name) for c in CASES if c.sweep and not re.fullmatch(r"lax\.\w+\(x\)", c.body)
         for name, arg in c.args.items() if len(arg.shape) >= 1]  # fmt: skip


@pytest.mark.parametrize("c, name", ALONE, ids=[f"{c.name}-{name}" for c, name in ALONE])
def test_one_argument_batched_at_every_position(impl: Impl, c: Any, name: str) -> None:
    """The argument ``name`` batched alone along each axis but 0 (the pattern sweep has 0), the others
    unbatched; out_axes 0."""
    rng = np.random.default_rng(11)
    arg = c.args[name]
    for axis in range(1, len(arg.shape) + 1):
        if axis == len(arg.shape) and not arg.last:  # a bitcast to a wider type: JAX 0.10.2 cannot batch it there
            continue
        values = {}
        for n, a in c.args.items():
            shape = (*a.shape[:axis], B, *a.shape[axis:]) if n == name else a.shape
            values[n] = _fixed(a, shape, rng)
        in_axes = tuple(axis if n == name else None for n in c.args)
        check_vmap(impl, c.source, values, in_axes, exact=c.exact)


def test_jacfwd_of_inputs_of_two_dtypes(impl: Impl, flags) -> None:
    """jacfwd differentiates a float32 and a float64 argument together: each basis tangent has its
    own input's dtype (as jvp demands), the Jacobian the output's."""
    flags("jax_enable_x64", True)
    a, b = np.array([0.5, -1.0], np.float32), np.array([2.0, 0.25, 3.0])
    source = "f = lambda a, b: jnp.sin(a[0] * b) + a[1]"
    values = {"a": a, "b": b}
    show_call(f"{source}\njax.jacfwd(f, argnums=(0, 1))({_args_text(values)}), "
              f"numerical_jacobian(f, ({_args_text(values)},), (0, 1))  # got, and finite differences",
              **values)  # fmt: skip
    f = _compile(source, impl)
    got = _namespace(impl)["jax"].jacfwd(f, argnums=(0, 1))(a, b)
    assert_jacobian(got, numerical_jacobian(f, (a.astype(F64), b), (0, 1)))


@pytest.mark.requires("jvp")
@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_vmap_of_float0_tangents_gives_float0_zeros_of_the_batched_shape(impl: Impl, out_axes: int) -> None:
    """vmap of a jvp whose output is an integer: its tangent is float0, the same for every example (it
    holds no data), so the batched tangent is float0 zeros with the batch axis at ``out_axes``; the
    integer primal output is batched as usual."""
    jax, jnp = _namespace(impl)["jax"], impl.numpy
    f = lambda a: jax.jvp(lambda b: b.astype(jnp.int32), (a,), (a,))  # noqa: E731
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    show_call(f"jax.vmap(lambda a: jax.jvp(lambda b: b.astype(jnp.int32), (a,), (a,)), out_axes={out_axes})(x)", x=x)
    primal, tangent = jax.vmap(f, out_axes=out_axes)(x)
    want = np.moveaxis(x.astype(np.int32), 0, out_axes)
    np.testing.assert_array_equal(np.asarray(primal), want)
    assert np.asarray(primal).dtype == np.int32
    assert tangent.dtype == float0_dtype() and tuple(tangent.shape) == want.shape, (tangent.dtype, tangent.shape)


@pytest.mark.requires("jvp")
def test_jacfwd_of_an_integer_output_is_zeros_of_its_dtype(impl: Impl) -> None:
    """jacfwd of a function with an integer output: a zero Jacobian in the output's dtype (JAX converts
    the float0 tangents to it), beside a float output's ordinary Jacobian."""
    jax, jnp = _namespace(impl)["jax"], impl.numpy
    x = np.array([0.5, 1.5, -2.0], np.float32)
    show_call("jax.jacfwd(lambda a: (a.astype(jnp.int32), a * 2))(x)", x=x)
    ints, floats = jax.jacfwd(lambda a: (a.astype(jnp.int32), a * 2))(x)
    assert np.asarray(ints).dtype == np.int32 and np.asarray(ints).shape == (3, 3)
    np.testing.assert_array_equal(np.asarray(ints), np.zeros((3, 3), np.int32))
    np.testing.assert_array_equal(np.asarray(floats), 2 * np.eye(3, dtype=np.float32))
