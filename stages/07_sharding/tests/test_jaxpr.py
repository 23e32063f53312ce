"""Stage 04: jaxprs. Staging with make_jaxpr, the printer (golden texts from JAX's documentation,
seeds/003 "Understanding Jaxprs"), the type checker, eval_jaxpr under every interpreter, constants,
dead-code elimination, eval_shape, and the errors of staging."""

from __future__ import annotations

import re

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax
from didax.core import trace_state
from didax.errors import (
    ConcretizationTypeError,
    JaxprTypeError,
    NonConcreteBooleanIndexError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from didax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, check_jaxpr, jaxpr_as_fun
from didax.core import ShapedArray, eval_jaxpr
from didax.staging import ShapeDtypeStruct, dce_jaxpr

F32 = ShapedArray((), np.float32)

# --- the printer: JAX's documentation, seeds/003 lines 5289-5326 ------------------------------
# The literal typed as JAX 0.10.2 prints it (3.0:f32[]); JAX 0.10.2 also prints reduce_sum's
# out_sharding=None, a sharding parameter didax's primitives do not have.

FUNC1_JAXPR = """\
{ lambda ; a:f32[8] b:f32[8]. let
    c:f32[8] = sin b
    d:f32[8] = mul c 3.0:f32[]
    e:f32[8] = add a d
    f:f32[] = reduce_sum[axes=(0,)] e
  in (f,) }"""


def func1(first, second):
    temp = first + jnp.sin(second) * 3.0
    return jnp.sum(temp)


def test_func1_prints_as_in_the_documentation():
    assert str(didax.make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8))) == FUNC1_JAXPR


def test_python_control_flow_on_shapes_is_inlined_as_in_the_documentation():
    def inner(second):
        if second.shape[0] > 4:  # a shape is known while staging: Python may branch on it
            return jnp.sin(second)
        raise AssertionError("not taken")

    def func3(first, second):
        return jnp.sum(first + inner(second) * 3.0)

    assert str(didax.make_jaxpr(func3)(jnp.zeros(8), jnp.ones(8))) == FUNC1_JAXPR


def test_a_pytree_argument_is_flattened_as_in_the_documentation():
    def func4(arg):
        return jnp.sum(arg[0] + jnp.sin(arg[1]) * 3.0)

    assert str(didax.make_jaxpr(func4)((jnp.zeros(8), jnp.ones(8)))) == FUNC1_JAXPR


def test_a_short_jaxpr_prints_on_one_line_and_an_empty_body_keeps_its_two_spaces():
    assert str(didax.make_jaxpr(lax.sin)(1.0)) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"
    assert str(didax.make_jaxpr(lambda x: x)(1.0)) == "{ lambda ; a:f32[]. let  in (a,) }"
    assert str(didax.make_jaxpr(lambda x: 3.0)(1.0)) == "{ lambda ; a:f32[]. let  in (3.0:f32[],) }"


def test_equations_that_fit_share_the_line_separated_by_semicolons():
    text = str(didax.make_jaxpr(lambda x: lax.cos(lax.sin(x)))(1.0))
    assert text == "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos b in (c,) }"


def test_names_go_on_after_z_with_ba_as_in_jax():
    def chain(x):
        for _ in range(30):
            x = lax.sin(x)
        return x

    lines = str(didax.make_jaxpr(chain)(1.0)).splitlines()
    assert lines[25] == "    z:f32[] = sin y" and lines[26] == "    ba:f32[] = sin z"
    assert lines[-1] == "  in (be,) }"


def test_a_captured_array_is_the_first_binder_before_the_semicolon():
    c = np.arange(3.0, dtype=np.float32)
    text = str(didax.make_jaxpr(lambda x: x * c)(np.float32(1.0)))
    assert text.startswith("{ lambda a:f32[3]; b:f32[]. let")
    assert "c:f32[3] = mul b a" in text


def test_params_print_sorted_by_name():
    text = str(didax.make_jaxpr(lambda x: lax.convert_element_type(x, np.int32))(1.0))
    assert "convert_element_type[new_dtype=int32 weak_type=False] a" in text


def test_the_incomplete_gamma_functions_print_as_in_jax():
    # JAX 0.10.2's text for the same function (its random_gamma_grad is loops, not one equation).
    want = (
        "{ lambda ; a:f32[] b:f32[]. let\n"
        "    c:f32[] = igamma a b\n"
        "    d:f32[] = igammac a b\n"
        "    e:f32[] = igamma_grad_a a b\n"
        "  in (c, d, e) }"
    )
    f = lambda a, x: (lax.igamma(a, x), lax.igammac(a, x), lax.igamma_grad_a(a, x))  # noqa: E731
    assert str(didax.make_jaxpr(f)(1.0, np.float32(2.0))) == want
    g = lambda a, x: didax.jvp(lambda b: lax.random_gamma_grad(b, x), (a,), (np.float32(1),))  # noqa: E731
    text = str(didax.make_jaxpr(g)(np.float32(1.5), np.float32(2.0)))
    assert "random_gamma_grad a b" in text and "random_gamma_grad_da[order=1] a b" in text


def test_the_short_dtype_names():
    from didax.jaxpr import short_dtype

    names = {
        np.float32: "f32",
        np.float16: "f16",
        np.int8: "i8",
        np.uint32: "u32",
        np.bool_: "bool",
        np.complex64: "c64",
        jnp.bfloat16: "bf16",
    }
    for dtype, name in names.items():
        assert short_dtype(np.dtype(dtype)) == name
    assert short_dtype(np.dtype("float8_e4m3fn")) == "f8_e4m3fn" and short_dtype(np.dtype("int4")) == "i4"  # JAX's


# --- printing as JAX 0.10.2 prints: each text below is what JAX printed for the same function ------


def _shown(f, *args) -> list[str]:
    """What print(x) shows for each traced ``x`` that ``f`` passes to ``show``, under make_jaxpr."""
    seen = []

    def show(x):
        assert repr(x) == str(x) == f"{x}"
        seen.append(repr(x))
        return x

    didax.make_jaxpr(lambda *a: f(show, *a))(*args)
    return seen


def test_a_staged_value_prints_as_jaxs_jit_tracer():
    assert _shown(lambda show, x: show(x), 1.0) == ["JitTracer(~float32[])"]
    assert _shown(lambda show, x: show(x), 3) == ["JitTracer(~int32[])"]
    assert _shown(lambda show, x: show(x), np.float32(1.0)) == ["JitTracer(float32[])"]
    assert _shown(lambda show, x: show(x), np.ones((2, 3), np.int32)) == ["JitTracer(int32[2,3])"]
    assert _shown(lambda show, x: show(x), True) == ["JitTracer(bool[])"]
    assert _shown(lambda show, x: show(x), jnp.ones(2, jnp.bfloat16)) == ["JitTracer(bfloat16[2])"]
    assert _shown(lambda show, x: didax.jvp(show, (x,), (x,)), 1.0) == [
        "JVPTracer(primal=JitTracer(~float32[]), tangent=JitTracer(~float32[]))"
    ]
    assert _shown(lambda show, x: didax.vmap(show)(x), np.ones(3, np.float32)) == [
        "VmapTracer(aval=float32[], batched=float32[3])"
    ]
    with pytest.raises(TypeError, match="unsupported format string passed to JaxprTracer.__format__"):
        didax.make_jaxpr(lambda x: f"{x:.2f}")(1.0)


def test_literals_print_with_their_types():
    bf16 = str(didax.make_jaxpr(lambda x: (x * jnp.bfloat16(1.5) + 2, x > 0))(jnp.ones(2, jnp.bfloat16)))
    assert bf16 == (
        "{ lambda ; a:bf16[2]. let\n"
        "    b:bf16[2] = mul a 1.5:bf16[]\n"
        "    c:bf16[2] = add b 2.0:bf16[]\n"
        "    d:bool[2] = gt a 0.0:bf16[]\n"
        "  in (c, d) }"
    )
    special = str(didax.make_jaxpr(lambda x: x * float("inf") + float("nan") - np.float32(0.1))(jnp.ones(2)))
    assert special == (
        "{ lambda ; a:f32[2]. let\n"
        "    b:f32[2] = mul a inf:f32[]\n"
        "    c:f32[2] = add b nan:f32[]\n"
        "    d:f32[2] = sub c 0.10000000149011612:f32[]\n"  # the float32's value, as Python prints it
        "  in (d,) }"
    )
    complex_ = str(didax.make_jaxpr(lambda x: x * (1 + 2j))(jnp.ones(2, jnp.complex64)))
    assert complex_ == "{ lambda ; a:c64[2]. let b:c64[2] = mul a (1+2j):c64[] in (b,) }"


def test_a_jaxpr_is_one_line_only_when_its_closing_brace_fits_too():
    # 81 characters on one line: JAX breaks it, though all but the closing " }" would fit.
    text = str(didax.make_jaxpr(lambda x: (x & True, x | np.uint8(3)))(jnp.ones(2, jnp.uint8)))
    assert text == "{ lambda ; a:u8[2]. let\n    b:u8[2] = and a 1:u8[]\n    c:u8[2] = or a 3:u8[]\n  in (b, c) }"
    # Binders break one by one, where the next one no longer starts on the line.
    f = lambda a, b, c, d, e, g, h: a + b + c + d + e + g + h  # noqa: E731
    lines = str(didax.make_jaxpr(f)(*[np.ones((2, 2, 2), np.float32)] * 7)).splitlines()
    assert lines[:2] == [
        "{ lambda ; a:f32[2,2,2] b:f32[2,2,2] c:f32[2,2,2] d:f32[2,2,2] e:f32[2,2,2] f:f32[2,2,2]",
        "    g:f32[2,2,2]. let",
    ]


def test_broadcast_in_dim_and_dot_general_print_as_jax_shortens_them():
    f = lambda x: jnp.ones((2, 3)) * x[0] + lax.broadcast_in_dim(x, (4, 2), (1,))[0, 0]  # noqa: E731
    lines = str(didax.make_jaxpr(f)(jnp.ones(2))).splitlines()
    assert "    b:f32[2,3] = broadcast_in_dim 1.0:f32[]" in lines  # the shape is the binder's type
    assert "    f:f32[4,2] = broadcast_in_dim[broadcast_dimensions=(1,)] a" in lines
    g = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))  # noqa: E731
    assert str(didax.make_jaxpr(g)(jnp.ones((2, 3)), jnp.ones((3, 4)))) == (
        "{ lambda ; a:f32[2,3] b:f32[3,4]. let\n"
        "    c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n"
        "  in (c,) }"
    )


def test_a_result_nothing_reads_prints_as_an_underscore():
    assert str(didax.make_jaxpr(lambda x: (jnp.sin(x), jnp.cos(x))[1])(1.0)) == (
        "{ lambda ; a:f32[]. let _:f32[] = sin a; b:f32[] = cos a in (b,) }"
    )
    # Only in the outer jaxpr: the scan's body names all it binds.
    assert str(didax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    _:i32[] b:f32[] = scan[\n"
        "      jaxpr={ lambda ; c:i32[] d:f32[]. let\n"
        "          e:i32[] = add c 1:i32[]\n"
        "          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c\n"
        "          g:f32[] = add d f\n"
        "        in (e, g) }\n"
        "      length=3\n"
        "      num_carry=2\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] 0:i32[] a\n"
        "  in (b,) }"
    )


def test_a_nested_jaxpr_of_more_than_ten_equations_is_printed_in_front():
    def long(x):
        for _ in range(11):
            x = jnp.sin(x)
        return x

    text = str(didax.make_jaxpr(lambda p, x: lax.cond(p, long, lambda x: x, x))(True, 1.0))
    body = "".join(f"    {b}:f32[] = sin {a}\n" for a, b in zip("abcdefghijk", "bcdefghijkl"))
    assert text == (
        "let jaxpr = { lambda ; a:f32[]. let\n" + body + "  in (l,) } in\n"
        "{ lambda ; m:bool[] n:f32[]. let\n"
        "    o:i32[] = convert_element_type[new_dtype=int32 weak_type=False] m\n"
        "    p:f32[] = cond[branches=({ lambda ; q:f32[]. let  in (q,) } jaxpr)] o n\n"
        "  in (p,) }"
    )


def test_an_equation_a_variable_and_a_literal_print_as_jaxs():
    closed = didax.make_jaxpr(lambda x: x * 2.0)(1.0)
    [eqn] = closed.eqns
    assert repr(eqn) == str(eqn) == "a:f32[] = mul b 2.0:f32[]"  # named afresh
    assert repr(eqn.invars[1]) == "Literal(2.0)"
    assert re.fullmatch(r"Var\(id=\d+\):float32\[\]", repr(eqn.invars[0]))


# --- staging: everything is recorded, constants as JAX handles them --------------------------


def test_omnistaging_records_array_creation_as_equations_not_constants():
    closed = didax.make_jaxpr(lambda x: x + jnp.ones(1000))(np.float32(1.0))
    assert closed.consts == [] and closed.jaxpr.constvars == ()
    assert [e.primitive.name for e in closed.eqns] == ["broadcast_in_dim", "add"]


def test_operations_on_constants_alone_are_staged_too():
    closed = didax.make_jaxpr(lambda x: lax.mul(2.0, 3.0))(1.0)
    (eqn,) = closed.eqns
    assert eqn.primitive.name == "mul" and [type(v) for v in eqn.invars] == [Literal, Literal]


def test_scalar_constants_become_literals_and_arrays_constvars():
    big = np.arange(4.0, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: x * np.float32(2.0) + big)(jnp.zeros(4))
    assert len(closed.consts) == 1 and np.array_equal(np.asarray(closed.consts[0]), big)
    mul, add = closed.eqns
    assert type(mul.invars[1]) is Literal and mul.invars[1].val == 2.0
    assert add.invars[1] is closed.jaxpr.constvars[0]


def test_the_same_array_captured_twice_is_one_constvar():
    c = jnp.arange(3.0)
    closed = didax.make_jaxpr(lambda x: x * c + c)(1.0)
    assert len(closed.jaxpr.constvars) == 1


def test_a_captured_numpy_array_changed_afterwards_does_not_change_the_jaxpr():
    c = np.ones(3, np.float32)
    closed = didax.make_jaxpr(lambda x: x * c)(1.0)
    c[:] = 7.0
    assert np.array_equal(np.asarray(jaxpr_as_fun(closed)(2.0)[0]), [2.0, 2.0, 2.0])


def test_weak_types_of_python_scalars_are_kept_in_the_input_types():
    closed = didax.make_jaxpr(lambda x, y: x + y)(1.0, jnp.float32(1.0))
    assert [a.weak_type for a in closed.in_avals] == [True, False]
    assert closed.out_avals[0].weak_type is False


def test_static_argnums_kwargs_and_return_shape():
    def f(x, n, *, scale):
        return {"y": x * n * scale, "n": n}

    closed, shape = didax.make_jaxpr(f, static_argnums=1, return_shape=True)(jnp.ones(2), 3, scale=2.0)
    assert len(closed.jaxpr.invars) == 2  # x and the keyword argument; n is static
    assert shape == {
        "y": ShapeDtypeStruct((2,), np.float32),
        "n": ShapeDtypeStruct((), np.int32, weak_type=True),
    }
    n, y = jaxpr_as_fun(closed)(jnp.ones(2), 2.0)  # outputs in the tree's leaf order: "n", then "y"
    assert np.array_equal(np.asarray(n), 3) and np.array_equal(np.asarray(y), [6.0, 6.0])


def test_shape_dtype_structs_stand_in_for_arguments():
    closed = didax.make_jaxpr(lambda x: x.sum(0))(ShapeDtypeStruct((2, 5), np.int8))
    assert closed.in_avals == [ShapedArray((2, 5), np.int8)]
    assert closed.out_avals[0].shape == (5,)


# --- eval_jaxpr, itself traceable ---------------------------------------------------------------


def program(x, y):
    z = jnp.sin(x) * y + jnp.exp(-x * x)
    return jnp.sum(z * z), jnp.cumsum(z)


def run_jaxpr(closed: ClosedJaxpr, *args):
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def test_eval_jaxpr_gives_what_the_function_gives():
    x, y = np.linspace(-1, 1, 5, dtype=np.float32), np.float32(0.5)
    closed = didax.make_jaxpr(program)(x, y)
    for got, want in zip(run_jaxpr(closed, x, y), program(x, y)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_jvp_vmap_and_make_jaxpr_of_an_evaluated_jaxpr():
    x, y = np.linspace(-1, 1, 5), 0.5
    closed = didax.make_jaxpr(program)(x, y)
    fun = lambda a, b: tuple(run_jaxpr(closed, a, b))  # noqa: E731
    t = np.cos(np.arange(5.0)).astype(np.float32)
    want = didax.jvp(program, (x, y), (t, 1.0))
    got = didax.jvp(fun, (x, y), (t, 1.0))
    for g, w in zip(didax.tree_util.tree_leaves(got), didax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    xs = np.stack([x, 2 * x]).astype(np.float32)
    batched = didax.vmap(fun, (0, None))(xs, y)
    for i in range(2):
        for g, w in zip(batched, program(xs[i], y)):
            np.testing.assert_allclose(np.asarray(g)[i], np.asarray(w), rtol=1e-6)
    again = didax.make_jaxpr(fun)(x, y)
    assert [e.primitive for e in again.eqns] == [e.primitive for e in closed.eqns]


def test_make_jaxpr_inside_jvp_closes_over_the_tangent_carrying_value():
    def f(x):
        closed = didax.make_jaxpr(lambda y: y * x)(1.0)  # x is a tracer of the enclosing jvp
        assert len(closed.jaxpr.constvars) == 1
        return run_jaxpr(closed, 3.0)[0]

    primal, tangent = didax.jvp(f, (2.0,), (1.0,))
    assert float(primal) == 6.0 and float(tangent) == 3.0


def test_staging_jvp_and_vmap_records_their_rules():
    closed = didax.make_jaxpr(lambda x: didax.jvp(jnp.sin, (x,), (1.0,)))(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["sin", "cos", "mul"]
    closed = didax.make_jaxpr(didax.vmap(lambda x: jnp.sin(x).sum()))(np.ones((2, 3), np.float32))
    assert closed.out_avals == [ShapedArray((2,), np.float32)]


# --- the type checker ---------------------------------------------------------------------------


def test_check_jaxpr_accepts_what_staging_makes():
    check_jaxpr(didax.make_jaxpr(program)(np.ones(3, np.float32), 1.0).jaxpr)


def test_check_jaxpr_rejects_an_unbound_variable():
    a, b, c = Var(F32), Var(F32), Var(F32)
    bad = Jaxpr([], [a], [c], [JaxprEqn(lax.sin_p, (b,), (c,), {})])
    # named as the printout names it: a binder is named before what its equation reads
    with pytest.raises(JaxprTypeError, match=r"Variable 'c' not defined(.|\n)*b:f32\[\] = sin c"):
        check_jaxpr(bad)


def test_check_jaxpr_rejects_a_variable_bound_twice():
    a, b = Var(F32), Var(F32)
    bad = Jaxpr([], [a], [b], [JaxprEqn(lax.sin_p, (a,), (b,), {}), JaxprEqn(lax.cos_p, (a,), (b,), {})])
    with pytest.raises(JaxprTypeError, match="Variable 'b' already bound"):
        check_jaxpr(bad)


def test_check_jaxpr_rejects_an_output_of_the_wrong_type():
    a, b = Var(F32), Var(ShapedArray((3,), np.float32))
    bad = Jaxpr([], [a], [b], [JaxprEqn(lax.sin_p, (a,), (b,), {})])
    with pytest.raises(JaxprTypeError, match=r"declared f32\[3\] but the primitive gives f32\[\]"):
        check_jaxpr(bad)


def test_check_jaxpr_rejects_an_ill_typed_equation():
    a, b = Var(F32), Var(ShapedArray((), np.int32))
    out = Var(F32)
    bad = Jaxpr([], [a, b], [out], [JaxprEqn(lax.add_p, (a, b), (out,), {})])
    with pytest.raises(JaxprTypeError, match=r"Equation 0 \(add\) is ill typed"):
        check_jaxpr(bad)


def test_jaxprs_are_immutable():
    closed = didax.make_jaxpr(lax.sin)(1.0)
    with pytest.raises(AttributeError):
        closed.jaxpr.eqns = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        closed.jaxpr.invars[0].aval = F32  # type: ignore[misc]


def test_literal_holds_a_numpy_scalar_of_its_type():
    lit = Literal(np.asarray(2.5, np.float32), F32)
    assert repr(lit) == "Literal(2.5)" and lit.val.dtype == np.float32  # JAX's repr


# --- dead-code elimination and eval_shape -------------------------------------------------------


def test_dce_drops_unused_equations_and_reports_the_inputs_read():
    def f(x, y, z):
        unused = jnp.exp(y) * 2.0  # noqa: F841
        return jnp.sin(x), jnp.cos(z)

    closed = didax.make_jaxpr(f)(1.0, 2.0, 3.0)
    jaxpr, used_inputs = dce_jaxpr(closed.jaxpr, [True, False])
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin"]
    assert used_inputs == [True, False, False] and len(jaxpr.invars) == 1
    check_jaxpr(jaxpr)
    assert float(eval_jaxpr(jaxpr, [], 1.0)[0]) == float(jnp.sin(1.0))
    kept, used = dce_jaxpr(closed.jaxpr, [True, False], instantiate=True)
    assert used == [True, True, True] and len(kept.invars) == 3 and len(kept.eqns) == 1


def test_eval_shape_computes_nothing():
    big = ShapeDtypeStruct((100_000, 100_000), np.float32)  # 40 GB if it were made
    out = didax.eval_shape(lambda a, b: (a @ b.T, a.sum() + 1), big, big)
    assert out == (ShapeDtypeStruct((100_000, 100_000), np.float32), ShapeDtypeStruct((), np.float32))


def test_eval_shape_keeps_weak_types_and_trees():
    out = didax.eval_shape(lambda d: {"s": d["x"] * 2.0, "i": d["n"] + 1}, {"x": 1.0, "n": np.int16(1)})
    assert out == {"s": ShapeDtypeStruct((), np.float32, weak_type=True), "i": ShapeDtypeStruct((), np.int16)}


# --- errors: Python asking for a value that staging does not have -------------------------------


@pytest.mark.parametrize(
    "fun, error",
    [
        (lambda x: 1.0 if x > 0 else 2.0, TracerBoolConversionError),
        (lambda x: x and 1.0, TracerBoolConversionError),
        (lambda x: float(x), ConcretizationTypeError),
        (lambda x: int(x), ConcretizationTypeError),
        (lambda x: [1.0, 2.0][lax.convert_element_type(x, np.int32)], TracerIntegerConversionError),
        (lambda x: np.asarray(x), TracerArrayConversionError),
        (lambda x: np.sin(x), TracerArrayConversionError),
        (lambda x: jnp.zeros(lax.convert_element_type(x, np.int32)), TypeError),
    ],
)
def test_python_asking_for_a_staged_value_gets_jaxs_error(fun, error):
    with pytest.raises(error):
        didax.make_jaxpr(fun)(1.0)


def test_boolean_mask_indexing_while_staging():
    with pytest.raises(NonConcreteBooleanIndexError):
        didax.make_jaxpr(lambda x: x[x > 0])(jnp.ones(3))


def test_a_leaked_tracer_raises_when_used():
    leaked = []
    didax.make_jaxpr(lambda x: leaked.append(x) or x)(1.0)
    with pytest.raises(UnexpectedTracerError):
        leaked[0] + 1.0


def _no_state_left():
    assert len(trace_state.trace_stack) == 1 and trace_state.dynamic_trace is trace_state.eval_trace
    assert str(didax.make_jaxpr(lax.sin)(1.0)) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"


# What jax.make_jaxpr(f)(np.float32(2.0)) raises in JAX 0.10.2, and words its message holds.
CONVERSIONS = [
    ("item", lambda x: x.item(), ConcretizationTypeError, "This occurred in the item() method"),
    ("tolist", lambda x: x.tolist(), ConcretizationTypeError,
     "The tolist() method was called on traced array with shape float32[]."),
    ("int", int, ConcretizationTypeError,
     "The problem arose with the `int` function. If trying to convert the data type of a value, "
     "try using `x.astype(int)` or `jnp.array(x, int)` instead."),
    ("float", float, ConcretizationTypeError, "try using `x.astype(float)` or `jnp.array(x, float)` instead."),
    ("complex", complex, ConcretizationTypeError, "The problem arose with the `complex` function."),
    ("bool", bool, TracerBoolConversionError, "Attempted boolean conversion of traced array with shape float32[]."),
    ("index_of_a_float", lambda x: [1, 2][x], TypeError, "Only integer scalar arrays can be converted to a scalar index"),
    ("index", lambda x: [1, 2][x.astype(np.int32)], TracerIntegerConversionError,
     "The __index__() method was called on traced array with shape int32[]"),
]  # fmt: skip


@pytest.mark.parametrize("use, error, says", [c[1:] for c in CONVERSIONS], ids=[c[0] for c in CONVERSIONS])
def test_python_values_of_staged_values_raise_what_jax_raises(use, error, says):
    with pytest.raises(error) as info:
        didax.make_jaxpr(use)(np.float32(2.0))
    assert type(info.value) is error and says in str(info.value)
    assert str(info.value).startswith(("Abstract tracer value encountered", "Attempted", "Only", "The __index__"))
    _no_state_left()


def test_a_staged_slice_bound_is_jaxs_index_error():
    # JAX: IndexError: Slice entries must be static integers. Got slice(None, JitTracer(~int32[]), None) at position 1
    with pytest.raises(IndexError) as info:
        didax.make_jaxpr(lambda x, n: x[None, :n])(jnp.arange(5.0), 2)
    assert type(info.value) is IndexError
    assert str(info.value) == (
        "Slice entries must be static integers. Got slice(None, JitTracer(~int32[]), None) at position 1"
    )
    _no_state_left()
    # A bound whose value is known is static, as in JAX: a jvp's primal, an integer array.
    out = didax.jvp(lambda x: x[: jnp.asarray(2)], (jnp.arange(5.0),), (jnp.ones(5),))
    assert [o.tolist() for o in out] == [[0.0, 1.0], [1.0, 1.0]]


def test_a_tracer_leaked_from_a_finished_staging_is_a_constant_of_a_later_one():
    # JAX 0.10.2 prints { lambda a:f32[]; b:f32[]. let c:f32[] = mul b a in (c,) } and keeps the
    # leaked tracer as the constant; evaluating that jaxpr, or the tracer eagerly, is the error.
    leaked = []
    didax.make_jaxpr(lambda x: leaked.append(x) or jnp.sin(x))(np.float32(1.0))
    closed = didax.make_jaxpr(lambda x: x * leaked[0])(np.float32(2.0))
    assert str(closed) == "{ lambda a:f32[]; b:f32[]. let c:f32[] = mul b a in (c,) }"
    assert closed.consts[0] is leaked[0]
    with_jvp = didax.make_jaxpr(lambda x: didax.jvp(lambda y: y * leaked[0], (x,), (x,)))(np.float32(2.0))
    assert str(with_jvp) == "{ lambda a:f32[]; b:f32[]. let c:f32[] = mul b a; d:f32[] = mul b a in (c, d) }"
    for use in (lambda: eval_jaxpr(closed.jaxpr, closed.consts, np.float32(2.0)), lambda: leaked[0] * 2.0,
                lambda: didax.jvp(lambda y: y * leaked[0], (2.0,), (1.0,))):  # fmt: skip
        with pytest.raises(UnexpectedTracerError, match="transformation that has already ended"):
            use()
        _no_state_left()


def test_a_failed_staging_leaves_no_state_behind():
    with pytest.raises(TracerBoolConversionError):
        didax.make_jaxpr(lambda x: x if x > 0 else -x)(1.0)
    assert len(trace_state.trace_stack) == 1 and trace_state.dynamic_trace is trace_state.eval_trace
    assert str(didax.make_jaxpr(lax.sin)(1.0)) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"
    assert float(jnp.sin(0.0)) == 0.0  # eager evaluation again


def test_make_jaxpr_rejects_what_is_not_callable():
    with pytest.raises(TypeError, match="Expected a callable value"):
        didax.make_jaxpr(3)


def test_argument_errors_name_the_problem():
    with pytest.raises(
        TypeError, match=r"of type <class 'str'> and was passed to the function at path y\['k'\]"
    ):
        didax.make_jaxpr(lambda x, y: x)(1.0, {"k": "text"})
    with pytest.raises(TypeError, match="path scale"):
        didax.eval_shape(lambda x, scale: x, 1.0, scale="big")
    with pytest.raises(ValueError, match=r"static_argnums=\(3,\), but only accepts 1 positional"):
        didax.make_jaxpr(lambda x: x, static_argnums=3)(1.0)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        didax.make_jaxpr(lambda x, n: x, static_argnums=1)(1.0, [1, 2])
    with pytest.raises(
        TypeError, match="returned a value of type <class 'str'>, which is not a valid JAX type"
    ):
        didax.make_jaxpr(lambda x: "text")(1.0)


def test_a_negative_static_argnum_counts_from_the_end():
    closed = didax.make_jaxpr(lambda x, n: x * n, static_argnums=-1)(1.0, 2)
    assert len(closed.jaxpr.invars) == 1 and float(jaxpr_as_fun(closed)(3.0)[0]) == 6.0


def test_an_integer_tangent_of_float0_is_a_literal_output():
    closed = didax.make_jaxpr(lambda x: didax.jvp(lambda x: (x, 3), (x,), (1.0,)))(1.0)
    tangent = eval_jaxpr(closed.jaxpr, closed.consts, 2.0)[3]
    assert closed.out_avals[3].dtype == didax.dtypes.float0 and tangent.dtype == didax.dtypes.float0


def test_the_64_bit_flag_changes_the_staged_types_between_calls():
    f = lambda x: lax.convert_element_type(x, np.float64)  # noqa: E731
    with pytest.warns(UserWarning, match="truncated to dtype float32"):
        assert didax.make_jaxpr(f)(np.float32(1.0)).out_avals[0].dtype == np.float32
    with didax.enable_x64():
        assert didax.make_jaxpr(f)(np.float32(1.0)).out_avals[0].dtype == np.float64
    with pytest.warns(UserWarning, match="truncated to dtype float32"):
        assert didax.make_jaxpr(f)(np.float32(1.0)).out_avals[0].dtype == np.float32


# --- typed PRNG keys: key<fry> avals and the random primitives -----------------------------------


def _keys_words(values):
    """Outputs as NumPy, key arrays as their words."""
    from didax import random

    return [np.asarray(random.key_data(v) if didax.dtypes.issubdtype(v.dtype, didax.dtypes.prng_key) else v)
            for v in values]  # fmt: skip


def test_key_avals_print_as_key_fry_and_the_random_primitives_are_staged():
    """The equations JAX 0.10.2 prints for these programs (literals without their types, as this
    printer writes them)."""
    from didax import random

    key, raw = random.key(0), random.PRNGKey(0)
    cases = [
        (random.split, key, ["{ lambda ; a:key<fry>[]. let", "b:key<fry>[2] = random_split[shape=(2,)] a"]),
        (lambda k: random.fold_in(k, 3), key, ["b:key<fry>[] = random_fold_in a 3"]),
        (lambda k: random.bits(k, (3,)), key, ["b:u32[3] = random_bits[bit_width=32 shape=(3,)] a"]),
        (random.key, 0, ["{ lambda ; a:i32[]. let", "b:key<fry>[] = random_seed[impl=fry] a"]),
        (random.PRNGKey, 0, ["b:key<fry>[] = random_seed[impl=fry] a", "c:u32[2] = random_unwrap b"]),
        (random.key_data, key, ["b:u32[2] = random_unwrap a"]),
        (random.wrap_key_data, np.zeros(2, np.uint32), ["b:key<fry>[] = random_wrap[impl=fry] a"]),
        (lambda k: random.bits(k, (3,)), raw,
         ["b:key<fry>[] = random_wrap[impl=fry] a", "c:u32[3] = random_bits[bit_width=32 shape=(3,)] b"]),
        (lambda ks: ks.reshape(2, 2), random.split(key, 4), ["b:key<fry>[2,2] = reshape[dimensions=None new_sizes=(2, 2)] a"]),
    ]  # fmt: skip
    for fun, arg, lines in cases:
        text = str(didax.make_jaxpr(fun)(arg))
        for line in lines:
            assert line in text, (line, text)


def test_a_captured_key_is_a_constvar_not_a_literal():
    from didax import random

    key = random.key(4)
    closed = didax.make_jaxpr(lambda x: x * random.uniform(key))(1.0)
    assert str(closed).startswith("{ lambda a:key<fry>[]; b:f32[]. let")
    assert closed.consts == [key] and closed.jaxpr.constvars[0].aval == ShapedArray((), key.dtype)
    assert float(run_jaxpr(closed, 2.0)[0]) == float(2.0 * random.uniform(key))


def test_programs_on_keys_round_trip_through_eval_jaxpr():
    from didax import random

    key = random.key(1)
    keys = random.split(key, 4)
    programs = [
        (lambda k: random.split(k, (2, 3)), (key,)),
        (lambda ks: (ks[::-1], random.split(ks[0]), random.normal(ks[1], (2,))), (keys,)),
        (lambda s: random.normal(random.key(s), (3,)), (np.int32(7),)),
        (lambda w: random.key_data(random.fold_in(random.wrap_key_data(w)[2], 5)), (np.arange(8, dtype=np.uint32).reshape(4, 2),)),
        (lambda ks, c: jnp.where(c, ks, ks[0]).at[1].set(ks[3]), (keys, np.array([True, False, True, False]))),
        (lambda k: lax.fori_loop(0, 3, lambda i, k: random.fold_in(k, i), k), (key,)),
        (lambda k: lax.scan(lambda c, _: (random.split(c)[0], random.bits(c)), k, None, length=3), (key,)),
        (lambda p, k: lax.cond(p, lambda k: random.split(k)[1], lambda k: k, k), (np.bool_(True), key)),
        (didax.vmap(lambda k: random.uniform(k, (2,))), (keys,)),
    ]  # fmt: skip
    for fun, args in programs:
        closed = didax.make_jaxpr(fun)(*args)
        check_jaxpr(closed.jaxpr)
        want = didax.tree_util.tree_leaves(fun(*args))
        got = run_jaxpr(closed, *args)
        assert [str(v.dtype) for v in got] == [str(v.dtype) for v in want]
        for g, w in zip(_keys_words(got), _keys_words(want)):
            np.testing.assert_array_equal(g, w)


def test_eval_shape_and_make_jaxpr_take_anything_with_a_shape_and_a_dtype():
    # JAX accepts duck-typed stand-ins (its linear_transpose example passes a SimpleNamespace).
    import types

    spec = types.SimpleNamespace(shape=(2, 3), dtype=np.float32)
    out = didax.eval_shape(lambda x: x.sum(0), spec)
    assert (out.shape, out.dtype) == ((3,), np.dtype(np.float32))
    assert str(didax.make_jaxpr(lambda x: x * 2)(spec).in_avals[0]) == "float32[2,3]"
    with pytest.raises(TypeError):
        didax.eval_shape(lambda x: x, types.SimpleNamespace(shape=(2,)))  # no dtype: not an array
