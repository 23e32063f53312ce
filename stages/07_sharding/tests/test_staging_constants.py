"""How staging treats what is not one of its own tracers: Python scalars become literals, arrays
become constvars, and a tracer of an enclosing transformation becomes a constvar even when its
value is known (JAX does the same), so that the outer transformation still follows it."""

from __future__ import annotations

import numpy as np

import didax
import didax.numpy as jnp
from didax.jaxpr import Literal, Var, eval_jaxpr, jaxpr_as_fun


def literals(closed: didax.jaxpr.ClosedJaxpr) -> list[Literal]:
    return [x for eqn in closed.eqns for x in eqn.invars if type(x) is Literal]


def test_python_scalars_become_literals_of_the_operands_dtype():
    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: 2.0 - x * 1.5)(x)
    found = literals(closed)
    assert sorted(float(lit.val) for lit in found) == [1.5, 2.0]
    for lit in found:
        assert type(lit.val) is np.ndarray and lit.val.shape == () and lit.val.dtype == np.float32
        assert (lit.aval.shape, lit.aval.dtype) == ((), np.dtype(np.float32))
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, x)
    np.testing.assert_allclose(np.asarray(out), 2.0 - x * np.float32(1.5), rtol=1e-6)


def test_a_negative_zero_literal_keeps_its_sign():
    closed = didax.make_jaxpr(lambda x: x * -0.0)(np.float32(3.0))
    (lit,) = literals(closed)
    assert np.signbit(lit.val)
    assert np.signbit(np.asarray(jaxpr_as_fun(closed)(np.float32(3.0))[0]))


def test_an_array_constant_becomes_a_constvar_with_its_value():
    table = np.arange(4.0, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: x + didax.numpy.asarray(table))(np.ones(4, np.float32))
    (constvar,) = closed.jaxpr.constvars
    assert type(constvar) is Var and constvar.aval.shape == (4,)
    np.testing.assert_array_equal(np.asarray(closed.consts[0]), table)


def test_a_closed_over_jvp_tracer_is_a_constvar_and_keeps_its_tangent():
    # JAX too makes x a constvar: { lambda a:f64[]; b:f64[]. let ... d:f64[] = mul b c ... }.
    seen = []

    def f(x):
        closed = didax.make_jaxpr(lambda y: jnp.sin(y * x))(np.float64(2.0))
        seen.append(closed)
        return jaxpr_as_fun(closed)(np.float64(2.0))[0]

    with didax.enable_x64():
        x0 = 0.3
        primal, tangent = didax.jvp(f, (x0,), (1.0,))
        eps = 1e-6
        by_differences = (np.sin(2.0 * (x0 + eps)) - np.sin(2.0 * (x0 - eps))) / (2 * eps)
    assert len(seen[0].jaxpr.constvars) == 1 and not literals(seen[0])
    np.testing.assert_allclose(float(primal), np.sin(2.0 * x0), rtol=1e-12)
    np.testing.assert_allclose(float(tangent), by_differences, rtol=1e-8)


def test_a_captured_scalar_array_is_a_constvar_and_numpy_scalars_literals():
    # The texts JAX 0.10.2 prints for the same functions (its literals typed, 2.5:f32[]).
    x = np.array([1.0, 2.0], np.float32)
    c = jnp.asarray(np.float32(2.5))
    closed = didax.make_jaxpr(lambda x: x * c + c)(x)
    assert str(closed) == "{ lambda a:f32[]; b:f32[2]. let c:f32[2] = mul b a; d:f32[2] = add c a in (d,) }"
    assert closed.consts == [c] and closed.consts[0] is c
    assert str(didax.make_jaxpr(lambda x: (x, c))(x)) == "{ lambda a:f32[]; b:f32[2]. let  in (b, a) }"
    weak = jnp.asarray(2.5)  # weakly typed: converted inside the jaxpr, from its constvar
    assert str(didax.make_jaxpr(lambda x: x * weak)(x)) == (
        "{ lambda a:f32[]; b:f32[2]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    d:f32[2] = mul b c\n"
        "  in (d,) }"
    )
    times_2_5 = "{ lambda ; a:f32[2]. let b:f32[2] = mul a 2.5:f32[] in (b,) }"
    for scalar in (np.array(2.5, np.float32), np.array(2.5), np.float32(2.5), 2.5):
        assert str(didax.make_jaxpr(lambda x: x * scalar)(x)) == times_2_5
    # Made inside the function, a scalar is a literal, as in JAX.
    assert str(didax.make_jaxpr(lambda x: x * jnp.float32(2.5))(x)) == times_2_5
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, x)
    np.testing.assert_array_equal(np.asarray(out), x * 2.5 + 2.5)
