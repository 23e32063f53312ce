"""Reverse-mode autodiff, ``jax.vjp``, ``grad`` and the Jacobians: every differentiable case of the
jvp area's table and random programs (with control flow, jit, indexing and random numbers) checked by
the dot-product test, against central finite differences and against the implementation's own
``jvp``, to first and second order (derivatives.py's check_reverse); ``jacrev``, ``jacfwd`` and
``hessian`` against each other and finite differences; ``grad``'s arguments (argnums, has_aux,
allow_int, holomorphic) and JAX's errors; ``linear_transpose``; reverse mode composed with ``jit``
and ``vmap``; a deep chain; the golden values of the Autodidax chapter and of JAX's documentation.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks import assert_dtype, assert_values, show_call
from conformance.control_programs import REVERSE_OPS, THRESHOLD, _body, control_programs
from conformance.derivatives import (
    SECOND_ORDER,
    check_reverse,
    float0_dtype,
    leaves,
    map_leaves,
    numerical_jacobian,
    random_tangents,
    structure,
)
from conformance.impl import Impl, _submodule
from conformance.missing import Namespace
from conformance.programs import Op, Program, Shape, Value, _operand, programs
from conformance.strategies import arrays
from conformance.test_jit import _look_up_program_names, namespace, random_noise
from conformance.test_jvp import CASES, M, Case, _draw_args, case

pytestmark = [pytest.mark.area("vjp"), pytest.mark.requires("vjp")]

F32, F64, C128 = np.dtype("float32"), np.dtype("float64"), np.dtype("complex128")


def jax_of(impl: Impl) -> Any:
    return namespace(impl)["jax"]


def compiled(impl: Impl, source: str) -> Any:
    scope = namespace(impl)
    exec(compile(source, "<vjp case>", "exec"), scope)  # the suite's own text
    return scope["f"]


def close(got: Any, want: Any, what: str, rtol: float = 1e-9) -> None:
    """Two trees of one structure, leaf by leaf within ``rtol`` of the larger magnitude (two exact
    computations of one value, in float64, differ by rounding)."""
    assert structure(got) == structure(want), f"{what}: tree {structure(got)}, expected {structure(want)}"
    for k, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what} {k}: shape {g.shape}, expected {w.shape}"
        if w.dtype == float0_dtype():
            assert g.dtype == float0_dtype(), f"{what} {k}: dtype {g.dtype}, expected float0"
            continue
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale, err_msg=f"{what} {k}")


# --- every differentiable primitive: the jvp area's table --------------------------------------------------

# Cases JAX 0.10.2 cannot differentiate in reverse mode (so neither need an implementation).
NOT_REVERSE = {
    # its JVP runs a while loop on the primal: "Reverse-mode differentiation does not work for
    # lax.while_loop"
    "random_gamma_grad",
    # JAX's reduce_window of another computation has a JVP and no transpose: "Linearization failed
    # to produce known values for all output primals"
    "reduce_window_product",
}
# Lines of the reverse mode's own: a transpose that is not its own inverse, and control flow and
# jit whose bodies close over differentiated values (their constants, whose cotangents add up over
# a loop's steps), with residuals that are inputs (forwarded), loops in known code, jit in a loop.
W, XS = ((3,),), ((2, 3),)
EXTRA = [
    case("transpose_3d", "lax.transpose(x, (1, 2, 0))", x=((2, 3, 4),)),
    case("rev_two_axes", "lax.rev(x, (0, 1))", x=(M,)),
    case("slice_strided", "lax.slice(x, (0, 1), (3, 5), (2, 2))", x=((3, 5),)),
    case("scan_closing_over_a_value", "lax.scan(lambda c, r: (c * w + r, jnp.sin(c) * w), c, xs)", w=W, c=W, xs=XS),
    case("scan_reversed_with_a_constant_carry", "lax.scan(lambda c, r: (jnp.tanh(c + r * jnp.sum(w)), c * r), "
         "jnp.ones(3), xs, reverse=True)", w=W, xs=XS),
    case("cond_closing_over_a_value", f"lax.cond(jnp.sum(x) > {THRESHOLD}, lambda u: u * jnp.sin(w), "
         "lambda u: u + w * w, x)", x=W, w=W),
    case("cond_with_a_constant_branch", f"lax.cond(jnp.sum(x) > {THRESHOLD}, lambda: x * w, lambda: jnp.ones(3))",
         x=W, w=W),
    case("switch_three_branches", f"lax.switch(jnp.floor(jnp.sum(x) + {THRESHOLD}).astype(jnp.int32), [lambda u: jnp.sin(u) * w, "
         "lambda u: u * u, lambda u: jnp.cos(w) + u], x)", x=W, w=W),
    case("fori_loop_with_python_bounds", "lax.fori_loop(0, 3, lambda i, u: jnp.sin(u) * w + i, x)", x=W, w=W),
    case("while_loop_on_known_values", "x * lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, jnp.ones(()))",
         x=W),
    case("jit_closing_over_a_value", "jax.jit(lambda a: a * a * w + jnp.sin(a))(x)", x=W, w=W),
    case("jit_in_a_scan", "lax.scan(lambda c, r: (jax.jit(lambda a, b: a * jnp.tanh(b))(c, r), c * w), w, xs)",
         w=W, xs=XS),
    case("scan_in_a_jit", "jax.jit(lambda a, b: lax.scan(lambda c, r: (c * r, jnp.sin(c)), a, b))(w, xs)",
         w=W, xs=XS),
]  # fmt: skip
REVERSE_CASES = [c for c in CASES if c.name not in NOT_REVERSE] + EXTRA

# A case costs about twice its jvp check (a vjp, a jvp and finite differences at each order): a
# fifth of the profile's examples (5 in the ci profile, 200 in the full one, 2 in CI's run on JAX).
TABLE_SETTINGS = settings(max_examples=max(2, settings().max_examples // 5))


@pytest.mark.parametrize("c", REVERSE_CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_primitive_vjp_matches_jvp_and_finite_differences(impl: Impl, flags, c: Case, data: st.DataObject) -> None:
    flags("jax_enable_x64", True)
    args = _draw_args(data, c)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    second = data.draw(st.sampled_from(SECOND_ORDER), label="second order")
    f = compiled(impl, c.source)
    check_reverse(jax_of(impl), f, tuple(args.values()), rng, source=c.source, values=args, order=c.order,
                  second=second)  # fmt: skip


# --- random programs ----------------------------------------------------------------------------------------

PROGRAM_SETTINGS = settings(max_examples=max(2, settings().max_examples // 3))


@PROGRAM_SETTINGS
@given(data=st.data(), program=programs())
def test_random_program_vjp_matches_jvp_and_finite_differences(impl: Impl, flags, data: st.DataObject,
                                                               program: Program) -> None:  # fmt: skip
    """The jvp area's programs: elementwise functions, reductions, indexing (gathers), .at[] updates
    (scatters), shapes, products, running sums and products, where."""
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    second = data.draw(st.sampled_from(SECOND_ORDER), label="second order")
    f = program.function(namespace(impl))
    check_reverse(jax_of(impl), f, (program.inputs,), rng, source=program.source.rstrip(),
                  values={"p": program.inputs}, second=second)  # fmt: skip


@PROGRAM_SETTINGS
@given(data=st.data(), program=programs())
def test_the_transpose_of_a_vjp_is_the_jvp(impl: Impl, flags, data: st.DataObject, program: Program) -> None:
    """vjp's function is linear in the cotangent, and its transpose is the JVP: linear_transpose of it,
    and its own vjp, map a direction v to jvp(f, (p,), (v,))'s tangent. (Transposing the backward pass
    transposes what it is made of, the sums of cotangents included.)"""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    f = program.function(namespace(impl))
    p = program.inputs
    u, v = random_tangents(f(p), rng), random_tangents(p, rng)
    show_call(f"{program.source}y, f_vjp = jax.vjp(f, p)\njax.linear_transpose(f_vjp, u)((v,)), "
              "jax.vjp(f_vjp, u)[1]((v,)), jax.jvp(f, (p,), (v,))", p=p, u=u, v=v)  # fmt: skip
    _, f_vjp = jax.vjp(f, p)
    _, want = jax.jvp(f, (p,), (v,))
    (got,) = jax.linear_transpose(f_vjp, u)((v,))
    close(got, want, "linear_transpose of vjp")
    (got,) = jax.vjp(f_vjp, u)[1]((v,))
    close(got, want, "vjp of vjp (in the cotangent)")


def jitted(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    """A step run by jit: a body of its own argument, and of another value, passed in or closed over
    (a value of the trace outside, which reverse mode must see through the jitted function)."""
    a, b = _operand(draw, pool), _operand(draw, pool)
    assert a is not None and b is not None
    body = _body(draw, "u")
    if draw(st.booleans(), label="closed over"):
        return f"jax.jit(lambda u: {body} * jnp.cos(jnp.sum({b.name})))({a.name})", a.shape
    return f"jax.jit(lambda u, w: {body} + 0.5 * jnp.tanh(jnp.mean(w)))({a.name}, {b.name})", a.shape


def noise_from_the_key(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    """A value plus noise drawn from the key ``k``, an input of the program that has no derivative:
    its cotangent is float0."""
    a = _operand(draw, pool)
    assert a is not None
    sampler = draw(st.sampled_from(["normal", "uniform"]), label="sampler")
    fold = draw(st.integers(0, 9), label="fold_in")
    return f"{a.name} + 0.25 * jax.random.{sampler}(jax.random.fold_in(k, {fold}), {a.shape})", a.shape


# Control flow (cond, switch, fori_loop with Python bounds, scan, map, associative_scan), jitted steps,
# and random numbers from keys made inside the program or passed in.
VJP_OPS: tuple[Op, ...] = REVERSE_OPS + (jitted, jitted, random_noise, noise_from_the_key)


@PROGRAM_SETTINGS
@given(data=st.data())
def test_random_program_with_control_flow_jit_and_keys(impl: Impl, flags, data: st.DataObject) -> None:
    """Programs of the operations above, f(p, k) with k a PRNGKey: vjp in both arguments, float0
    cotangents for the key."""
    _look_up_program_names(impl)
    flags("jax_enable_x64", True)
    program = data.draw(programs(3, 6, VJP_OPS, params="p, k"), label="program")
    seed = data.draw(st.integers(0, 2**32 - 1), label="key seed")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    second = data.draw(st.sampled_from(SECOND_ORDER), label="second order")
    jax = jax_of(impl)
    key = np.asarray(jax.random.PRNGKey(seed))
    f = program.function(namespace(impl))
    check_reverse(jax, f, (program.inputs, key), rng, source=program.source.rstrip(),
                  values={"p": program.inputs, "k": key}, second=second)  # fmt: skip


# --- Jacobians: jacrev, jacfwd, hessian ------------------------------------------------------------------


def scalar_projection(jax: Any, f: Any, u: Any) -> Any:
    """``p -> sum of u * f(p)`` over the float leaves of the output: a scalar function of p."""
    jnp = jax.numpy

    def s(*args: Any) -> Any:
        outs = [o for o in leaves(f(*args)) if np.dtype(o.dtype).kind == "f"]
        return sum((jnp.sum(o * w) for o, w in zip(outs, [w for w in leaves(u) if w.dtype.kind == "f"])),
                   jnp.zeros((), np.float64))  # fmt: skip

    return s


JACOBIAN_SETTINGS = settings(max_examples=max(2, settings().max_examples // 5))


@JACOBIAN_SETTINGS
@given(data=st.data(), program=programs(3, 5))
def test_jacrev_jacfwd_and_finite_differences_agree(impl: Impl, flags, data: st.DataObject,
                                                    program: Program) -> None:  # fmt: skip
    """jacrev(f)(p) has jacfwd's tree and values, and matches central differences along each unit
    vector; jacobian is jacrev."""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    f = program.function(namespace(impl))
    p = program.inputs
    show_call(f"{program.source}jax.jacrev(f)(p), jax.jacfwd(f)(p), jax.jacobian(f)(p)", p=p)
    rev = jax.jacrev(f)(p)
    close(rev, jax.jacfwd(f)(p), "jacrev against jacfwd")
    close(jax.jacobian(f)(p), rev, "jacobian against jacrev", rtol=0)
    close(rev, numerical_jacobian(f, (p,)), "jacrev against finite differences", rtol=1e-5)


@JACOBIAN_SETTINGS
@given(data=st.data(), program=programs(3, 5))
def test_hessian_is_forward_over_reverse_and_agrees_with_the_other_orders(impl: Impl, flags, data: st.DataObject,
                                                                          program: Program) -> None:  # fmt: skip
    """For a scalar projection s of a random program: hessian(s), jacfwd(jacrev(s)),
    jacrev(jacfwd(s)) and jacrev(jacrev(s)) agree, and hessian matches central differences of
    the gradient."""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    f = program.function(namespace(impl))
    p = program.inputs
    u = random_tangents(f(p), np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    s = scalar_projection(jax, f, u)
    show_call(f"{program.source}s = lambda p: sum(jnp.sum(o * w) for o, w in zip(jax.tree.leaves(f(p)), "
              "jax.tree.leaves(u)))\njax.hessian(s)(p)", p=p, u=u)  # fmt: skip
    hess = jax.hessian(s)(p)
    close(hess, jax.jacfwd(jax.jacrev(s))(p), "hessian against jacfwd(jacrev)")
    close(jax.jacrev(jax.jacfwd(s))(p), hess, "jacrev(jacfwd) against hessian")
    close(jax.jacrev(jax.jacrev(s))(p), hess, "jacrev(jacrev) against hessian")
    close(hess, numerical_jacobian(jax.grad(s), (p,)), "hessian against finite differences of grad", rtol=1e-5)


def test_jacrev_and_hessian_argnums_and_has_aux(impl: Impl, flags) -> None:
    """argnums a tuple: a tuple of Jacobians per output; has_aux: (Jacobian, aux)."""
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy
    x, y = np.array([0.5, -1.0, 2.0]), np.array([[1.5, 0.25]])
    source = "f = lambda x, y: (jnp.sin(x) * jnp.sum(y ** 2), jnp.sum(x) * y)"
    show_call(f"{source}\njax.jacrev(f, argnums=(0, 1))(x, y)", x=x, y=y)
    f = compiled(impl, source)
    got = jax.jacrev(f, argnums=(0, 1))(x, y)
    close(got, numerical_jacobian(f, (x, y), (0, 1)), "jacrev(argnums=(0, 1))", rtol=1e-6)
    close(jax.jacfwd(f, argnums=(0, 1))(x, y), got, "jacfwd against jacrev")
    g = lambda x: (jnp.sum(jnp.sin(x) * x), {"double": 2 * x})  # noqa: E731
    show_call("g = lambda x: (jnp.sum(jnp.sin(x) * x), {'double': 2 * x})\njax.hessian(g, has_aux=True)(x)", x=x)
    hess, aux = jax.hessian(g, has_aux=True)(x)
    want = np.diag(2 * np.cos(x) - x * np.sin(x))
    assert_values(hess, want, F64, atol=1e-12)
    assert_values(aux["double"], 2 * x, F64)
    jac, aux = jax.jacrev(g, has_aux=True)(x)
    assert_values(jac, np.sin(x) + x * np.cos(x), F64, atol=1e-12)
    assert_values(aux["double"], 2 * x, F64)


# --- grad: its arguments ------------------------------------------------------------------------------


def test_grad_argnums_int_and_tuple(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    x, y = np.array([0.5, -1.0]), np.array(1.5)
    source = "f = lambda x, y, z: jnp.sum(jnp.sin(x) * y) + z"
    f = compiled(impl, source)
    for argnums, want in [(0, np.cos(x) * y), (1, np.sum(np.sin(x))), (-1, 1.0),
                          ((0, 1), (np.cos(x) * y, np.sum(np.sin(x)))), ((2, 0), (1.0, np.cos(x) * y))]:  # fmt: skip
        show_call(f"{source}\njax.grad(f, argnums={argnums!r})(x, y, 2.0)", x=x, y=y)
        got = jax.grad(f, argnums=argnums)(x, y, 2.0)
        if isinstance(argnums, tuple):
            assert isinstance(got, tuple) and len(got) == len(argnums), f"argnums={argnums}: {got!r}"
        close(got, want, f"grad(argnums={argnums!r})", rtol=1e-12)
        value, got = jax.value_and_grad(f, argnums=argnums)(x, y, 2.0)
        assert_values(value, np.sum(np.sin(x)) * y + 2.0, F64)
        close(got, want, f"value_and_grad(argnums={argnums!r})", rtol=1e-12)


def test_grad_of_a_pytree_argument(impl: Impl, flags) -> None:
    """The gradient of a dict/list argument is shaped like it."""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    p = {"w": [np.array([1.0, 2.0]), np.array(0.5)], "b": (np.array([[3.0]]),)}
    source = "f = lambda p: jnp.sum(p['w'][0] ** 2) * p['w'][1] + jnp.sum(jnp.exp(p['b'][0]))"
    show_call(f"{source}\njax.grad(f)(p)", p=p)
    got = jax.grad(compiled(impl, source))(p)
    want = {"w": [2 * p["w"][0] * 0.5, np.array(5.0)], "b": (np.exp(p["b"][0]),)}
    close(got, want, "gradient", rtol=1e-12)


def test_has_aux_returns_the_auxiliary_data_undifferentiated(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    x = np.array([0.5, -1.0, 2.0])
    source = "f = lambda x: (jnp.sum(x ** 3), {'x': x, 'count': jnp.sum(x > 0)})"
    f = compiled(impl, source)
    show_call(f"{source}\njax.grad(f, has_aux=True)(x)", x=x)
    g, aux = jax.grad(f, has_aux=True)(x)
    assert_values(g, 3 * x**2, F64)
    assert sorted(aux) == ["count", "x"]
    assert_values(aux["x"], x, F64)
    assert_values(aux["count"], np.array(2), np.asarray(aux["count"]).dtype)
    show_call(f"{source}\njax.value_and_grad(f, has_aux=True)(x)", x=x)
    (value, aux), g = jax.value_and_grad(f, has_aux=True)(x)
    assert_values(value, np.sum(x**3), F64)
    assert_values(g, 3 * x**2, F64)
    assert_values(aux["x"], x, F64)
    show_call(f"{source}\njax.vjp(f, x, has_aux=True)", x=x)
    y, f_vjp, aux = jax.vjp(f, x, has_aux=True)
    assert_values(f_vjp(np.float64(2.0))[0], 6 * x**2, F64)
    assert_values(aux["x"], x, F64)


def test_allow_int_gives_float0_cotangents(impl: Impl) -> None:
    jax = jax_of(impl)
    source = "f = lambda x, i: x * i"
    show_call(f"{source}\njax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)")
    gx, gi = jax.grad(compiled(impl, source), argnums=(0, 1), allow_int=True)(np.float32(2.0), np.int32(3))
    assert_values(gx, np.array(3.0), F32)
    assert np.asarray(gi).dtype == float0_dtype() and np.shape(gi) == (), f"{gi!r}"
    i = np.array([1, 2, 3], np.int32)
    show_call("jax.vjp(lambda x, i: x * i, 2.0, i)[1](np.ones(3, np.float32))", i=i)
    _, f_vjp = jax.vjp(lambda x, i: x * i, np.float32(2.0), i)
    cx, ci = f_vjp(np.ones(3, np.float32))
    assert_values(cx, np.array(6.0), F32)
    assert np.asarray(ci).dtype == float0_dtype() and np.shape(ci) == (3,), f"{ci!r}"


def test_holomorphic_grad_of_a_complex_function(impl: Impl, flags) -> None:
    """holomorphic=True: the complex derivative f'(z), for z**3 + 2j z and jnp.sin."""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    z = np.complex128(1.5 - 0.5j)
    source = "f = lambda z: z ** 3 + 2j * z"
    show_call(f"{source}\njax.grad(f, holomorphic=True)(z)", z=z)
    got = jax.grad(compiled(impl, source), holomorphic=True)(z)
    assert_values(got, np.array(3 * z**2 + 2j), C128)
    show_call("jax.grad(jnp.sin, holomorphic=True)(z), jax.jacrev(jnp.sin, holomorphic=True)(zs)", z=z)
    assert_values(jax.grad(impl.numpy.sin, holomorphic=True)(z), np.array(np.cos(z)), C128)
    zs = np.array([z, 1j * z])
    assert_values(jax.jacrev(impl.numpy.sin, holomorphic=True)(zs), np.diag(np.cos(zs)), C128)


# --- JAX's errors ------------------------------------------------------------------------------------------

GRAD_MISUSES = [
    ("non_scalar_output", "jax.grad(lambda x: x * jnp.ones(2))(1.0)",
     "Gradient only defined for scalar-output functions. Output had shape: (2,)."),
    ("integer_input", "jax.grad(lambda x: x * 2.0)(1)", "grad requires real- or complex-valued inputs"),
    ("integer_output", "jax.grad(lambda x: jnp.round(x).astype(jnp.int32))(1.0)",
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32"),
    ("complex_output", "jax.grad(lambda x: x * 1j)(1.0)", "For holomorphic differentiation, pass holomorphic=True"),
    ("holomorphic_of_a_real_input", "jax.grad(lambda x: x * 1j, holomorphic=True)(1.0)",
     "grad with holomorphic=True requires inputs with complex dtype, but got float32"),
    ("jacrev_integer_input", "jax.jacrev(lambda x: x * 2.0)(jnp.arange(3))", "jacrev requires real- or complex-valued"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", [m[1:] for m in GRAD_MISUSES], ids=[m[0] for m in GRAD_MISUSES])
def test_grad_misuse_raises_jaxs_type_error(impl: Impl, call: str, message: str) -> None:
    """JAX's TypeError with its message; a call after it works."""
    show_call(f"{call}  # JAX raises TypeError: {message}")
    with pytest.raises(TypeError) as err:
        eval(call, namespace(impl))  # the suite's own text
    assert message in str(err.value), str(err.value)
    show_call("jax.grad(jnp.sin)(1.0)")
    assert_values(jax_of(impl).grad(impl.numpy.sin)(np.float32(1.0)), np.cos(np.array(1.0)), F32)


def test_vjp_rejects_a_cotangent_of_the_wrong_shape(impl: Impl) -> None:
    jax = jax_of(impl)
    show_call("y, f_vjp = jax.vjp(jnp.sin, jnp.ones(3))\nf_vjp(jnp.ones(2))")
    _, f_vjp = jax.vjp(impl.numpy.sin, np.ones(3, np.float32))
    with pytest.raises(ValueError, match="got float32\\[2\\], but expected float32\\[3\\]"):
        f_vjp(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="unexpected tree structure"):
        f_vjp((np.ones(3, np.float32), np.ones(3, np.float32)))
    # and works again, twice alike
    first, second = f_vjp(np.ones(3, np.float32)), f_vjp(np.ones(3, np.float32))
    assert_values(first[0], np.cos(np.ones(3)), F32)
    assert_values(second[0], np.asarray(first[0]), F32)


def test_linearize_goes_through_a_while_loop(impl: Impl, flags) -> None:
    """linearize (forward mode, partially evaluated) goes through a while loop whose carry becomes
    unknown only in the loop: f_lin agrees with jvp."""
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    source = ("f = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x + jnp.sin(c[1])), "
              "(0, 1.0))[1]")  # fmt: skip
    show_call(f"{source}\ny, f_lin = jax.linearize(f, 0.7)\ny, f_lin(1.5), jax.jvp(f, (0.7,), (1.5,))")
    f = compiled(impl, source)
    y, f_lin = jax.linearize(f, np.float64(0.7))
    want_y, want_t = jax.jvp(f, (np.float64(0.7),), (np.float64(1.5),))
    assert_values(y, np.asarray(want_y), F64)
    assert_values(f_lin(np.float64(1.5)), np.asarray(want_t), F64)


def test_reverse_mode_through_while_loop_raises_jaxs_value_error(impl: Impl) -> None:
    """A while loop (and a fori_loop with a staged trip count) cannot be transposed; forward mode
    still works."""
    jax, lax = jax_of(impl), impl.lax
    source = "f = lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c * 2.0, x)"
    show_call(f"{source}\njax.grad(f)(1.0)")
    f = compiled(impl, source)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.grad(f)(np.float32(1.0))
    n = np.int32(3)  # staged under jit: the loop is a while loop
    show_call("jax.grad(jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)))(1.0, n)", n=n)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.grad(jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)))(np.float32(1.0), n)
    show_call("jax.grad(lambda x: x * lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))(1.0)")  # Python bounds: a scan
    assert_values(jax.grad(lambda x: x * lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))(np.float32(1.0)),
                  np.array(16.0), F32)  # fmt: skip
    show_call(f"{source}\njax.jvp(f, (1.0,), (1.0,))")
    _, t = jax.jvp(f, (np.float32(1.0),), (np.float32(1.0),))
    assert_values(t, np.array(4.0), F32)


# --- linear_transpose ------------------------------------------------------------------------------------


def test_linear_transpose_of_jaxs_example(impl: Impl) -> None:
    """JAX's documentation: f(x, y) = 0.5 x - 0.5 y, transposed at float32 scalars, maps 1 to
    (0.5, -0.5)."""
    jax = jax_of(impl)
    scalar = jax.ShapeDtypeStruct((), np.float32)
    show_call("f = lambda x, y: 0.5 * x - 0.5 * y\nscalar = jax.ShapeDtypeStruct((), np.float32)\n"
              "jax.linear_transpose(f, scalar, scalar)(1.0)")  # fmt: skip
    got = jax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, scalar, scalar)(np.float32(1.0))
    assert isinstance(got, tuple) and len(got) == 2
    assert_values(got[0], np.array(0.5), F32)
    assert_values(got[1], np.array(-0.5), F32)


def test_linear_transpose_is_the_transpose_of_a_matrix(impl: Impl, flags) -> None:
    """x -> (0, A x, sum x) transposed maps (z, c, s) to A^T c + s, with no forward pass (arrays as
    the primals' types); the output that does not depend on x takes no part."""
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy
    a = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]])
    z, c, s = np.full(2, 7.0), np.array([2.0, -1.0]), np.float64(0.25)
    show_call("f = lambda x: (jnp.zeros(2), jnp.dot(a, x), jnp.sum(x))\n"
              "jax.linear_transpose(f, np.zeros(3))((z, c, s))", a=a, z=z, c=c, s=s)  # fmt: skip
    (got,) = jax.linear_transpose(lambda x: (jnp.zeros(2), jnp.dot(a, x), jnp.sum(x)), np.zeros(3))((z, c, s))
    assert_values(got, a.T @ c + s, F64)


# --- checkpoint: names and the policies that read them -------------------------------------------------


def ad_checkpoint(impl: Impl) -> Any:
    """The implementation's ``jax.ad_checkpoint`` (a submodule: ``import jax`` does not load it)."""
    return Namespace(_submodule(impl.module, "ad_checkpoint"), "jax.ad_checkpoint")


CHECKPOINT_NAMED = """
def f(x):
    return jnp.sin(jax.ad_checkpoint.checkpoint_name(jnp.sin(x), "a")) * 2.0
"""


def test_checkpoint_name_is_the_identity_in_every_transformation(impl: Impl, flags) -> None:
    """f(x) = 2 sin(sin x), its inner sine named: values, jvp, vmap over axis 1 and jit against
    NumPy, grad twice against the closed forms; a pytree is named leaf by leaf."""
    flags("jax_enable_x64", True)
    jax, jnp, name = jax_of(impl), impl.numpy, ad_checkpoint(impl).checkpoint_name
    f = lambda x: jnp.sin(name(jnp.sin(x), "a")) * 2.0  # noqa: E731
    x = np.array([[0.3, -1.2], [2.0, 0.5]])
    show_call(CHECKPOINT_NAMED + "f(x), jax.jvp(f, (x,), (x + 1,)), jax.vmap(f, 1, 1)(x), jax.jit(f)(x), "
              "jax.grad(f)(0.7), jax.grad(jax.grad(f))(0.7)", x=x)  # fmt: skip
    want = 2 * np.sin(np.sin(x))
    for got in (f(x), jax.vmap(f, 1, 1)(x), jax.jit(f)(x)):
        assert_values(got, want, F64)
    primal, tangent = jax.jvp(f, (x,), (x + 1,))
    assert_values(primal, want, F64)
    assert_values(tangent, 2 * np.cos(np.sin(x)) * np.cos(x) * (x + 1), F64)
    s = 0.7
    assert_values(jax.grad(f)(s), np.array(2 * np.cos(np.sin(s)) * np.cos(s)), F64)
    second = -2 * np.sin(np.sin(s)) * np.cos(s) ** 2 - 2 * np.cos(np.sin(s)) * np.sin(s)
    assert_values(jax.grad(jax.grad(f))(s), np.array(second), F64, atol=1e-12)
    tree = {"p": x, "q": (np.float64(2.0),)}
    named = name(tree, "n")
    assert structure(named) == structure(tree)
    assert_values(named["p"], x, F64)
    assert_values(named["q"][0], np.array(2.0), F64)


@pytest.mark.requires("jit")
def test_checkpoint_name_keeps_a_weak_type_under_jit(impl: Impl) -> None:
    """A weakly typed scalar, named inside jit, still takes the type of the float16 array it
    multiplies."""
    jax, name = jax_of(impl), ad_checkpoint(impl).checkpoint_name
    x = np.array([1.0, 2.0], np.float16)
    show_call("jax.jit(lambda x, s: jax.ad_checkpoint.checkpoint_name(s, 'a') * x)(x, 3.0)", x=x)
    got = jax.jit(lambda x, s: name(s, "a") * x)(x, 3.0)
    assert_dtype(got, np.dtype(np.float16), weak=False)
    assert_values(got, x * 3, np.dtype(np.float16))


CHECKPOINT_TWO_NAMES = """
def f(x, w):
    y = jax.ad_checkpoint.checkpoint_name(jnp.sin(x @ w), "a")
    z = jax.ad_checkpoint.checkpoint_name(jnp.cos(y @ w), "b")
    return jnp.sum(z**2)
"""
# What each policy saves of f(x, w) above, as print_saved_residuals says it (a line each, the words
# before JAX's source location): x and w always, then the values the policy allows.
SAVED = {
    "nothing_saveable": [],
    "save_only_these_names('a')": ["named 'a'"],
    "save_only_these_names('a', 'b')": ["named 'a'", "named 'b'"],
    "save_any_names_but_these('a')": ["named 'b'"],
    "save_from_both_policies(save_only_these_names('a'), dots_saveable)":
        ["output of dot_general", "named 'a'", "output of dot_general"],
}  # fmt: skip


def without_source(line: str) -> str:
    """A line of print_saved_residuals without the source location JAX gives an equation's value
    (``output of sin from <file>:3:11 (f)``): didax records none."""
    return re.sub(r" from .+:\d+:\d+ \(.+\)$", "", line)


def saved_lines(print_saved_residuals: Any, capsys: Any, f: Any, *args: Any, **kwargs: Any) -> list[str]:
    capsys.readouterr()
    print_saved_residuals(f, *args, **kwargs)
    return [without_source(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("policy", list(SAVED))
def test_a_checkpoint_policy_saves_the_values_it_names(impl: Impl, flags, capsys, policy: str) -> None:
    """checkpoint(f, policy) saves its arguments and exactly what the policy allows, in program order,
    and its gradients are f's (against finite differences and f's own)."""
    flags("jax_enable_x64", True)
    jax, ckpt = jax_of(impl), ad_checkpoint(impl)
    f = compiled(impl, CHECKPOINT_TWO_NAMES)
    policies = {n: getattr(ckpt.checkpoint_policies, n) for n in dir(ckpt.checkpoint_policies) if n[0] != "_"}
    g = jax.checkpoint(f, policy=eval(policy, policies))  # the suite's own text
    x = np.array([[0.3, -1.2, 0.4], [2.0, 0.5, -0.7]])
    w = np.array([[0.2, 0.1, -0.3], [1.0, -0.5, 0.25], [0.6, 0.7, -0.8]])
    show_call(CHECKPOINT_TWO_NAMES + f"g = jax.checkpoint(f, policy=jax.checkpoint_policies.{policy})\n"
              "jax.ad_checkpoint.print_saved_residuals(g, x, w)\njax.grad(g, (0, 1))(x, w)", x=x, w=w)  # fmt: skip
    assert saved_lines(ckpt.print_saved_residuals, capsys, g, x, w) == [
        "f64[2,3] from the argument x", "f64[3,3] from the argument w", *(f"f64[2,3] {s}" for s in SAVED[policy])
    ]  # fmt: skip
    got = jax.grad(g, (0, 1))(x, w)
    close(got, jax.grad(f, (0, 1))(x, w), "grad of the checkpointed f")
    close(got, numerical_jacobian(f, (x, w), (0, 1)), "grad against finite differences", rtol=1e-6)


def test_print_saved_residuals_names_each_argument_by_its_path(impl: Impl, flags, capsys) -> None:
    flags("jax_enable_x64", True)
    jnp, ckpt = impl.numpy, ad_checkpoint(impl)
    show_call("jax.ad_checkpoint.print_saved_residuals(lambda d, *xs, **kw: jnp.sin(d['a']) * xs[1] * kw['k'], "
              "{'a': 0.5}, 1.0, 2.0, k=3.0)")  # fmt: skip
    f = lambda d, *xs, **kw: jnp.sin(d["a"]) * xs[1] * kw["k"]  # noqa: E731
    lines = saved_lines(ckpt.print_saved_residuals, capsys, f, {"a": 0.5}, 1.0, 2.0, k=3.0)
    assert lines[:2] == ["f64[] from the argument xs[1]", "f64[] from the argument kw['k']"], lines


def test_everything_saveable_saves_no_argument_it_does_not_recompute_from(impl: Impl, flags, capsys) -> None:
    """With every value saveable, checkpoint(f) saves the two cosines of f's derivative, and not x."""
    flags("jax_enable_x64", True)
    jax, ckpt = jax_of(impl), ad_checkpoint(impl)
    f = compiled(impl, CHECKPOINT_NAMED)
    show_call(CHECKPOINT_NAMED + "jax.ad_checkpoint.print_saved_residuals(jax.checkpoint(f, policy="
              "jax.checkpoint_policies.everything_saveable), 0.7)")  # fmt: skip
    g = jax.checkpoint(f, policy=ckpt.checkpoint_policies.everything_saveable)
    lines = saved_lines(ckpt.print_saved_residuals, capsys, g, np.float64(0.7))
    assert lines == ["f64[] output of cos", "f64[] output of cos"], lines


# --- composition ---------------------------------------------------------------------------------------


def test_vjp_called_twice_gives_the_same(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy
    x = np.array([0.5, -1.0, 2.0])
    show_call("y, f_vjp = jax.vjp(lambda x: jnp.sin(x) * jnp.sum(x), x)\nf_vjp(ct), f_vjp(ct)", x=x)
    _, f_vjp = jax.vjp(lambda x: jnp.sin(x) * jnp.sum(x), x)
    ct = np.array([1.0, 2.0, 3.0])
    want = np.cos(x) * np.sum(x) * ct + np.sum(np.sin(x) * ct)
    for _ in range(3):
        assert_values(f_vjp(ct)[0], want, F64, atol=1e-12)


COMPOSED_SETTINGS = settings(max_examples=max(2, settings().max_examples // 5))


@pytest.mark.requires("jit")
@COMPOSED_SETTINGS
@given(data=st.data())
def test_grad_and_jit_compose_in_every_order(impl: Impl, flags, data: st.DataObject) -> None:
    """For a scalar projection s of a random program with control flow: grad(jit(s)), jit(grad(s))
    and jit(grad(jit(s))) give grad(s)."""
    _look_up_program_names(impl)
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    program = data.draw(control_programs(ops=REVERSE_OPS), label="program")
    f = program.function(namespace(impl))
    p = program.inputs
    u = random_tangents(f(p), np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    s = scalar_projection(jax, f, u)
    show_call(f"{program.source}s = lambda p: sum(jnp.sum(o * w) for o, w in zip(jax.tree.leaves(f(p)), "
              "jax.tree.leaves(u)))\njax.grad(s)(p), jax.grad(jax.jit(s))(p), jax.jit(jax.grad(s))(p), "
              "jax.jit(jax.grad(jax.jit(s)))(p)", p=p, u=u)  # fmt: skip
    want = jax.grad(s)(p)
    close(jax.grad(jax.jit(s))(p), want, "grad(jit(s))")
    close(jax.jit(jax.grad(s))(p), want, "jit(grad(s))")
    close(jax.jit(jax.grad(jax.jit(s)))(p), want, "jit(grad(jit(s)))")


B = 3  # the batch of vmap(grad)


@pytest.mark.requires("vmap")
@COMPOSED_SETTINGS
@given(data=st.data())
def test_vmap_of_grad_is_a_loop_of_grads(impl: Impl, flags, data: st.DataObject) -> None:
    """Per-example gradients: vmap(grad(s)) over a batch of inputs (every leaf batched along axis 0)
    is grad(s) of each example, stacked."""
    _look_up_program_names(impl)
    flags("jax_enable_x64", True)
    jax = jax_of(impl)
    program = data.draw(control_programs(ops=REVERSE_OPS), label="program")
    f = program.function(namespace(impl))
    u = random_tangents(f(program.inputs), np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    s = scalar_projection(jax, f, u)
    batch = map_leaves(lambda k, x: data.draw(arrays(F64, (B, *np.shape(x))), label=f"batched leaf {k}"),
                       program.inputs)  # fmt: skip
    show_call(f"{program.source}s = lambda p: sum(jnp.sum(o * w) for o, w in zip(jax.tree.leaves(f(p)), "
              "jax.tree.leaves(u)))\njax.vmap(jax.grad(s))(batch)", batch=batch, u=u)  # fmt: skip
    got = jax.vmap(jax.grad(s))(batch)
    for b in range(B):
        example = map_leaves(lambda k, x, b=b: x[b], batch)
        close(map_leaves(lambda k, x, b=b: np.asarray(x)[b], got), jax.grad(s)(example), f"example {b}")


def test_a_deep_chain_raises_no_recursion_error(impl: Impl, flags) -> None:
    """grad through 2,000 operations, eagerly and under jit, against the chain rule in a loop."""
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy

    def f(x: Any) -> Any:
        for _ in range(1000):
            x = jnp.sin(x) * 1.001
        return x

    show_call("def f(x):\n    for _ in range(1000):\n        x = jnp.sin(x) * 1.001\n    return x\n"
              "jax.grad(f)(0.7), jax.jit(jax.grad(f))(0.7)")  # fmt: skip
    x, d = 0.7, 1.0
    for _ in range(1000):
        d *= math.cos(x) * 1.001
        x = math.sin(x) * 1.001
    assert_values(jax.grad(f)(np.float64(0.7)), np.array(d), F64, atol=1e-12)
    assert_values(jax.jit(jax.grad(f))(np.float64(0.7)), np.array(d), F64, atol=1e-12)


def test_cotangents_of_a_value_read_many_times_add_up(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy
    show_call("jax.grad(lambda x: sum(jnp.sin(x) * k for k in range(50)))(0.3)")
    got = jax.grad(lambda x: sum(jnp.sin(x) * k for k in range(50)))(np.float64(0.3))
    assert_values(got, np.array(np.cos(0.3) * sum(range(50))), F64)


# --- golden values: the Autodidax chapter (float64) and JAX's documentation (float32) -------------------


def test_golden_values_of_the_autodidax_chapter(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax, jnp = jax_of(impl), impl.numpy
    show_call("y, f_lin = jax.linearize(jnp.sin, 3.0)\ny, f_lin(1.0)")
    y, f_lin = jax.linearize(jnp.sin, 3.0)
    assert_values(y, np.array(0.1411200080598672), F64)
    assert_values(f_lin(1.0), np.array(-0.9899924966004454), F64)

    def f(x: Any) -> Any:
        return -(jnp.sin(x) * 2.0) + x

    show_call("f = jax.jit(lambda x: -(jnp.sin(x) * 2.0) + x)\ny, f_lin = jax.linearize(f, 3.0)\n"
              "y, f_lin(1.0), jax.grad(f)(3.0)")  # fmt: skip
    y, f_lin = jax.linearize(jax.jit(f), 3.0)
    assert_values(y, np.array(2.7177599838802657), F64)
    assert_values(f_lin(1.0), np.array(2.979984993200891), F64)
    assert_values(jax.grad(f)(3.0), np.array(2.979984993200891), F64)
    g = jax.jit(lambda x: jnp.cos(x) * 2.0)
    show_call("g = jax.jit(lambda x: jnp.cos(x) * 2.0)\njax.grad(jax.jit(lambda x: g(x * 2.0)))(3.0)")
    assert_values(jax.grad(jax.jit(lambda x: g(x * 2.0)))(3.0), np.array(1.1176619927957034), F64)
    lax = impl.lax
    show_call("jax.grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0))(1.0)")
    assert_values(jax.grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0))(1.0), np.array(2.0), F64)


def test_golden_values_of_jaxs_documentation(impl: Impl) -> None:
    """grad of tanh, three times, at 2; grad of a sum of logistic functions at arange(3) (float32,
    within JAX's rounding: didax gives 0.19661193 where JAX prints 0.19661197)."""
    jax, jnp = jax_of(impl), impl.numpy
    show_call("g = jax.grad(jnp.tanh)\ng(2.0), jax.grad(g)(2.0), jax.grad(jax.grad(g))(2.0)")
    g = jax.grad(jnp.tanh)
    got = [g(2.0), jax.grad(g)(2.0), jax.grad(jax.grad(g))(2.0)]
    for value, want in zip(got, [0.070650816, -0.13621868, 0.25265405]):
        assert_dtype(value, F32, weak=None)
        np.testing.assert_allclose(np.asarray(value), want, rtol=2e-6)
    show_call("jax.grad(lambda x: jnp.sum(1.0 / (1.0 + jnp.exp(-x))))(jnp.arange(3.0))")
    got = jax.grad(lambda x: jnp.sum(1.0 / (1.0 + jnp.exp(-x))))(jnp.arange(3.0))
    assert_dtype(got, F32, weak=None)
    np.testing.assert_allclose(np.asarray(got), [0.25, 0.19661197, 0.10499357], rtol=1e-6)


def test_reduce_precision_rounds_its_cotangent(impl: Impl) -> None:
    """JAX declares reduce_precision linear: its transpose rounds the cotangent, 1 + 2**-9 to 1 in
    bfloat16's format."""
    f = lambda a: impl.lax.reduce_precision(a, 8, 7) * np.float32(1 + 2**-9)  # noqa: E731
    assert float(Namespace(impl.module, "jax").grad(f)(np.float32(3.0))) == 1.0

