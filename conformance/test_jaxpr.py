"""Jaxprs, ``jax.make_jaxpr``: random programs survive the round trip through their jaxpr
(jaxprs.py: it type-checks, declares the outputs' types, evaluates to the function's values, stages
again, and ``eval_shape`` agrees); what staging does with constants (omnistaging: array creation is
staged, not baked in; scalars become literals, captured arrays constvars); ``static_argnums``,
``return_shape``, ``ShapeDtypeStruct`` and keyword arguments; jvp, vmap and make_jaxpr of an
evaluated jaxpr, and staging under jvp and vmap; the type checker's verdicts on broken jaxprs; and
the errors of Python control flow and conversions on staged values, with JAX's exception classes.

Jaxprs are compared by what they mean (values, types, constants, which primitives they apply),
never by their printed text. Staged control flow is in test_control_flow.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.batching import assert_batched, slices
from conformance.checks import assert_dtype, assert_values, assert_weak, draw_x64, release_detail, show_call
from conformance.control_programs import CONTROL_NAMES, control_programs
from conformance.derivatives import check_derivatives, float0_dtype, leaves, map_leaves
from conformance.impl import Impl
from conformance.jaxprs import (
    PROGRAM_HEADER,
    Staging,
    assert_all_like,
    check_consts,
    check_round_trip,
    primitives,
    staging,
)
from conformance.programs import INPUT_DOMAIN, Program, programs
from conformance.strategies import arrays, batch_axes, insert_axis

pytestmark = [pytest.mark.area("jaxpr"), pytest.mark.requires("jaxpr")]

F32, F64, F16, I32 = (np.dtype(n) for n in ("float32", "float64", "float16", "int32"))
X3 = np.array([0.5, -1.25, 2.0], np.float32)
B = 3  # the batch size of the vmap checks


def _compile(s: Staging, source: str, name: str = "f") -> Callable[..., Any]:
    scope = dict(s.namespace)
    exec(compile(source, "<jaxpr case>", "exec"), scope)  # the suite's own text
    return scope[name]


def _look_up_control_flow(s: Staging) -> None:
    """Control flow's names, before anything is drawn: an implementation without them is reported
    missing them at once, with nothing for hypothesis to shrink."""
    for name in CONTROL_NAMES:
        getattr(s.lax, name)


# --- random programs: the round trip ---------------------------------------------------------------------
# JAX dispatches every operation of a program eagerly, then stages and evaluates it three times:
# a third of the profile's examples (8 in ci, 2 in ci-reference).
PROGRAM_SETTINGS = settings(max_examples=max(2, settings().max_examples // 3))


@PROGRAM_SETTINGS
@given(data=st.data(), program=programs(min_steps=3, max_steps=7))
def test_random_program_round_trips_through_its_jaxpr(impl: Impl, flags, data: st.DataObject,
                                                      program: Program) -> None:  # fmt: skip
    """programs.py's programs (elementwise functions, reductions, indexing, .at[] updates, products,
    where ...) with x64 drawn: the round trip of jaxprs.py."""
    draw_x64(data, flags)
    s = staging(impl)
    f = program.function(s.namespace)
    check_round_trip(s, f, (program.inputs,), source=program.source.rstrip(), values={"p": program.inputs})


@PROGRAM_SETTINGS
@given(data=st.data())
def test_random_control_flow_program_round_trips_through_its_jaxpr(
    impl: Impl, flags, data: st.DataObject
) -> None:
    """Programs some of whose steps are cond, switch, fori_loop, while_loop, scan, map or
    associative_scan (control_programs.py), bodies closing over staged values and nesting: the
    same round trip, sub-jaxprs type-checked with their parent."""
    s = staging(impl)
    _look_up_control_flow(s)
    draw_x64(data, flags)
    program = data.draw(control_programs(), label="program")
    f = program.function(s.namespace)
    check_round_trip(s, f, (program.inputs,), source=program.source.rstrip(), values={"p": program.inputs})


# --- transformations of an evaluated jaxpr ----------------------------------------------------------------


def _evaluated(s: Staging, program: Program) -> tuple[Callable[..., Any], str]:
    """``program`` staged once on its inputs, and a function that evaluates that jaxpr on a pytree
    like them (with its source, for the reproducing program)."""
    f = program.function(s.namespace)
    closed = s.jax.make_jaxpr(f)(program.inputs)

    def g(p: Any) -> list[Any]:
        return s.core.eval_jaxpr(closed.jaxpr, closed.consts, *leaves(p))

    source = (f"{PROGRAM_HEADER}{program.source.rstrip()}\nclosed = jax.make_jaxpr(f)(p)\n"
              "g = lambda p: jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *jax.tree_util.tree_leaves(p))")  # fmt: skip
    return g, source


COMPOSED_SETTINGS = settings(max_examples=max(2, settings().max_examples // 4))


@COMPOSED_SETTINGS
@given(data=st.data(), program=programs(min_steps=3, max_steps=6))
def test_jvp_of_an_evaluated_jaxpr_matches_finite_differences(impl: Impl, flags, data: st.DataObject,
                                                              program: Program) -> None:  # fmt: skip
    """eval_jaxpr binds the jaxpr's primitives: under jvp it is differentiated like the program."""
    flags("jax_enable_x64", True)
    s = staging(impl)
    g, source = _evaluated(s, program)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    check_derivatives(s.jax, g, (program.inputs,), rng, source=source.replace("g = lambda", "f = lambda"),
                      values={"p": program.inputs}, order=1)  # fmt: skip


@COMPOSED_SETTINGS
@given(data=st.data(), program=programs(min_steps=3, max_steps=6))
def test_vmap_of_an_evaluated_jaxpr_matches_the_loop(impl: Impl, flags, data: st.DataObject,
                                                     program: Program) -> None:  # fmt: skip
    """vmap of the evaluated jaxpr (staged on one example) against the loop over the examples."""
    flags("jax_enable_x64", True)
    s = staging(impl)
    g, source = _evaluated(s, program)
    axes = map_leaves(lambda k, leaf: data.draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))), label="axis"),
                      program.inputs)  # fmt: skip
    if not leaves(axes):
        axes = map_leaves(lambda k, leaf: 0, program.inputs)
    batched = _batched(data, program.inputs, axes)
    show_call(f"{source}\njax.vmap(g, in_axes=({axes!r},))(p)", p=batched)
    got = s.jax.vmap(g, in_axes=(axes,))(batched)
    assert_batched(got, slices(g, (batched,), (axes,)), 0, asarray=s.jnp.asarray)


def _batched(data: st.DataObject, tree: Any, axes: Any) -> Any:
    def one(k: int, leaf: Any) -> Any:
        ax = leaves_of(axes)[k]
        shape = np.shape(leaf) if ax is None else insert_axis(np.shape(leaf), ax, B)
        return data.draw(arrays(F64, shape, INPUT_DOMAIN), label=f"batched leaf {k}")

    return map_leaves(one, tree)


def leaves_of(axes: Any) -> list[Any]:
    """Every leaf of an axes tree, None included (derivatives.leaves skips Nones)."""
    if isinstance(axes, (tuple, list)):
        return [leaf for child in axes for leaf in leaves_of(child)]
    if isinstance(axes, dict):
        return [leaf for key in sorted(axes) for leaf in leaves_of(axes[key])]
    return [axes]


# --- omnistaging, literals, constvars ---------------------------------------------------------------------

# Arrays made inside a staged function: equations that make them, never constants baked into the
# jaxpr (each has at least 1,000 elements, so a constant would be large). (id, expression, NumPy's value)
CREATED = [
    ("ones", "jnp.ones(1000)", np.ones(1000)),
    ("zeros_2d", "jnp.zeros((40, 25))", np.zeros((40, 25))),
    ("full", "jnp.full((1000,), 2.5)", np.full(1000, 2.5)),
    ("arange", "jnp.arange(1000)", np.arange(1000)),
    ("arange_float", "jnp.arange(0.0, 100.0, 0.1)", np.arange(0.0, 100.0, 0.1)),
    ("eye", "jnp.eye(32)", np.eye(32)),
    ("ones_times_sin", "jnp.ones(1000) * jnp.sin(2.0)", np.ones(1000) * np.sin(2.0)),
]


@pytest.mark.parametrize("expression, want", [c[1:] for c in CREATED], ids=[c[0] for c in CREATED])
def test_array_creation_is_staged_not_baked_in(impl: Impl, expression: str, want: np.ndarray) -> None:
    """Omnistaging: ``f = lambda x: x + jnp.sum(<array made inside f>)`` has no constants at all; the
    array is made by the jaxpr's equations, and the jaxpr evaluates to f's value."""
    s = staging(impl)
    source = f"f = lambda x: x + jnp.sum({expression})"
    f = _compile(s, source)
    show_call(f"{source}\nclosed = jax.make_jaxpr(f)(x)\nclosed.consts", x=X3)
    closed = s.jax.make_jaxpr(f)(X3)
    assert not closed.jaxpr.constvars and not closed.consts, (
        f"{expression} became {len(closed.consts)} constant(s) of shapes {[np.shape(c) for c in closed.consts]}"
    )
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_dtype(got, F32, weak=False)
    assert_values(got, X3 + np.sum(want), F32, atol=1e-5 * np.sum(np.abs(want)))


def test_operations_on_constants_are_staged(impl: Impl) -> None:
    """Omnistaging: ``jnp.sin(2.0)`` inside a staged function is a ``sin`` equation applied to a
    literal, not a number computed while staging."""
    s = staging(impl)
    f = _compile(s, "f = lambda x: x * jnp.sin(2.0)")
    show_call("f = lambda x: x * jnp.sin(2.0)\njax.make_jaxpr(f)(x)", x=X3)
    closed = s.jax.make_jaxpr(f)(X3)
    assert "sin" in primitives(closed), f"no sin equation: {primitives(closed)}"
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, X3 * np.sin(2.0), F32)


def _literals(closed: Any, s: Staging) -> list[Any]:
    return [a for eqn in closed.jaxpr.eqns for a in eqn.invars if isinstance(a, s.ext.Literal)]


def test_scalar_constants_become_literals(impl: Impl) -> None:
    """Python scalars and NumPy scalars (0-d arrays too) met while staging are literals of the
    equations that read them: no constvars."""
    s = staging(impl)
    c0 = np.array(0.25, np.float32)
    f = lambda x: x * 3.0 + np.float32(2.0) - c0 + 1  # noqa: E731
    show_call("c0 = np.array(0.25, np.float32)\nf = lambda x: x * 3.0 + np.float32(2.0) - c0 + 1\n"
              "jax.make_jaxpr(f)(x)", x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(f)(X3)
    assert not closed.jaxpr.constvars, f"{len(closed.jaxpr.constvars)} constvars for scalar constants"
    found = sorted(float(np.asarray(lit.val)) for lit in _literals(closed, s))
    assert found == [0.25, 1.0, 2.0, 3.0], f"literals {found}"
    for lit in _literals(closed, s):
        assert tuple(lit.aval.shape) == () and np.dtype(lit.aval.dtype) == F32, f"literal typed {lit.aval}"
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, X3 * 3 + 2 - 0.25 + 1, F32)


@pytest.mark.parametrize("x64", [False, True], ids=["x64_off", "x64_on"])
def test_captured_arrays_become_constvars(impl: Impl, flags, x64: bool) -> None:
    """Arrays a staged function closes over (NumPy's, and the implementation's own) are its
    constants: one constvar per array, however often it is used, each constant of its constvar's
    type (a float64 NumPy array is float32 while x64 is off); the jaxpr computes with them."""
    flags("jax_enable_x64", x64)
    s = staging(impl)
    c, d = np.array([1.5, -2.0, 0.25]), np.array([3.0, 0.5, -1.0])
    e = s.jnp.asarray(np.array([2.0, 4.0, 8.0], np.float32))
    f = lambda x: x * c + d - c + x * e  # noqa: E731
    show_call("f = lambda x: x * c + d - c + x * e\nclosed = jax.make_jaxpr(f)(x)\nclosed.consts",
              c=c, d=d, e=e, x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(f)(X3)
    assert len(closed.jaxpr.constvars) == 3, f"{len(closed.jaxpr.constvars)} constvars for 3 captured arrays"
    check_consts(closed)
    found = sorted(np.asarray(k, np.float64).tolist() for k in closed.consts)
    assert found == sorted([c.tolist(), d.tolist(), [2.0, 4.0, 8.0]]), f"constants {found}"
    dt = F64 if x64 else F32
    for v in closed.jaxpr.constvars:
        assert np.dtype(v.aval.dtype) in (dt, F32), f"constvar typed {v.aval}"
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, X3 * c + d - c + X3 * np.array([2.0, 4.0, 8.0]), dt)


def test_a_captured_scalar_array_is_a_constvar(impl: Impl) -> None:
    """A 0-d array of the implementation's own that the function closes over is a constant, one
    constvar however often it is read (JAX 0.10.2: a jax.Array is never a literal); a NumPy 0-d
    array and a Python scalar beside it are literals."""
    s = staging(impl)
    c, n = s.jnp.asarray(np.float32(2.5)), np.array(0.5, np.float32)
    f = lambda x: (x * c + c - n - 1.0, c)  # noqa: E731
    show_call("c, n = jnp.asarray(np.float32(2.5)), np.array(0.5, np.float32)\nf = lambda x: (x * c + c - n - 1.0, c)\n"
              "jax.make_jaxpr(f)(x)", x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(f)(X3)
    (constvar,) = closed.jaxpr.constvars
    assert tuple(constvar.aval.shape) == () and np.dtype(constvar.aval.dtype) == F32, constvar.aval
    assert float(np.asarray(closed.consts[0])) == 2.5
    assert sorted(float(np.asarray(lit.val)) for lit in _literals(closed, s)) == [0.5, 1.0]
    assert closed.jaxpr.outvars[1] is constvar
    [got, same] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, X3 * 2.5 + 2.5 - 0.5 - 1.0, F32)
    assert_values(same, np.float32(2.5), F32)
    # Made inside the function, a 0-d array is a literal of the equation that reads it.
    show_call("jax.make_jaxpr(lambda x: x * jnp.float32(3.0))(x)", x=X3)
    inside = s.jax.make_jaxpr(lambda x: x * s.jnp.float32(3.0))(X3)
    assert not inside.jaxpr.constvars
    assert [float(np.asarray(lit.val)) for lit in _literals(inside, s)] == [3.0]


def test_two_captured_arrays_of_one_type_stay_apart(impl: Impl) -> None:
    """Two different arrays of the same shape and dtype are two constants, each where it is read."""
    s = staging(impl)
    c, d = np.array([1.0, 2.0, 3.0], np.float32), np.array([10.0, 20.0, 30.0], np.float32)
    f = lambda x: (x - c) * d  # noqa: E731
    show_call("f = lambda x: (x - c) * d\nclosed = jax.make_jaxpr(f)(x)\n"
              "jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)", c=c, d=d, x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(f)(X3)
    assert len(closed.jaxpr.constvars) == 2
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, (X3 - c) * d, F32)


def test_outputs_that_are_inputs_or_constants(impl: Impl) -> None:
    """A function may return its input, a Python scalar, a captured array: the jaxpr's outputs are
    then an input variable, a literal, a constvar, typed as the values."""
    s = staging(impl)
    c = np.array([1.0, 2.0], np.float32)
    f = lambda x: (x, 2.5, c, x * 2.0)  # noqa: E731
    closed = check_round_trip(s, f, (X3,), source=f"c = {c!r}\nf = lambda x: (x, 2.5, c, x * 2.0)".replace(
        "array", "np.array").replace("dtype=float32", "dtype=np.float32"), values={"x": X3})  # fmt: skip
    outs = closed.jaxpr.outvars
    assert outs[0] is closed.jaxpr.invars[0] and isinstance(outs[1], s.ext.Literal)
    assert outs[2] is closed.jaxpr.constvars[0]


def test_a_multiple_results_primitive_round_trips(impl: Impl) -> None:
    """lax.top_k gives two values from one equation: eval_jaxpr binds both."""
    s = staging(impl)
    f = lambda x: s.lax.top_k(x, 2)  # noqa: E731
    closed = check_round_trip(s, f, (X3,), source="f = lambda x: lax.top_k(x, 2)", values={"x": X3})
    assert len(closed.jaxpr.eqns) == 1 and len(closed.jaxpr.outvars) == 2


@pytest.mark.requires("jvp")
def test_a_float0_tangent_is_an_output_of_type_float0(impl: Impl) -> None:
    """make_jaxpr of a jvp whose output is an integer: the tangent output is float0 (a value of its
    own, made without the inputs), and eval_jaxpr gives float0 zeros of that shape."""
    s = staging(impl)
    f = lambda a: s.jax.jvp(lambda b: b.astype(s.jnp.int32), (a,), (a,))  # noqa: E731
    show_call("closed = jax.make_jaxpr(lambda a: jax.jvp(lambda b: b.astype(jnp.int32), (a,), (a,)))(x)\n"
              "closed.out_avals, jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)", x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(f)(X3)
    assert [(tuple(a.shape), np.dtype(a.dtype)) for a in closed.out_avals] == [
        (X3.shape, np.dtype(np.int32)), (X3.shape, float0_dtype())]
    primal, tangent = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    np.testing.assert_array_equal(np.asarray(primal), X3.astype(np.int32))
    assert tangent.dtype == float0_dtype() and tuple(tangent.shape) == X3.shape


# --- typed PRNG keys ----------------------------------------------------------------------------------------
# Key arrays (random.key, dtype key<fry>) are values of an extended dtype: jaxprs type their
# variables key<fry>, the random functions stage the random_* primitives, and eval_jaxpr gives the
# keys back (compared by their words, random.key_data).

# (function of one argument, the argument, the primitives JAX 0.10.2 stages, in order)
KEY_PROGRAMS = [
    ("split", "f = lambda k: random.split(k, 3)", "key", ["random_split"]),
    ("fold_in", "f = lambda k: random.fold_in(k, np.uint32(3))", "key", ["random_fold_in"]),
    ("bits", "f = lambda k: random.bits(k, (3,))", "key", ["random_bits"]),
    ("key", "f = lambda s: random.key(s)", "seed", ["random_seed"]),
    ("PRNGKey", "f = lambda s: random.PRNGKey(s)", "seed", ["random_seed", "random_unwrap"]),
    ("key_data", "f = lambda k: random.key_data(k)", "key", ["random_unwrap"]),
    ("wrap_key_data", "f = lambda w: random.wrap_key_data(w)", "words", ["random_wrap"]),
    ("raw_key", "f = lambda w: random.bits(w, (2,))", "words", ["random_wrap", "random_bits"]),
    ("reshape", "f = lambda ks: ks.reshape(2, 2)", "keys", ["reshape"]),
]


def _key_args(random: Any) -> dict[str, Any]:
    return {"key": random.key(1), "seed": np.int32(7), "words": np.array([5, 6], np.uint32),
            "keys": random.split(random.key(2), 4)}  # fmt: skip


def _is_key_type(dtype: Any, impl: Impl) -> bool:
    return impl.dtypes.issubdtype(dtype, impl.dtypes.prng_key)


def _as_words(impl: Impl, x: Any) -> np.ndarray:
    return np.asarray(impl.module.random.key_data(x) if _is_key_type(x.dtype, impl) else x)


@pytest.mark.parametrize("name, source, arg, prims", KEY_PROGRAMS, ids=[p[0] for p in KEY_PROGRAMS])
def test_key_programs_stage_the_random_primitives_and_round_trip(impl: Impl, name: str, source: str, arg: str,
                                                                 prims: list[str]) -> None:  # fmt: skip
    s = staging(impl)
    random = impl.module.random
    x = _key_args(random)[arg]
    scope = {**s.namespace, "random": random}
    exec(compile(source, "<jaxpr case>", "exec"), scope)
    f = scope["f"]
    show_call(f"{source}\nclosed = jax.make_jaxpr(f)(x)\njax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)")
    closed = s.jax.make_jaxpr(f)(x)
    s.ext.check_jaxpr(closed.jaxpr)
    assert primitives(closed) == prims, f"staged {primitives(closed)}, JAX stages {prims}"
    (invar,), (out_aval,) = closed.jaxpr.invars, closed.out_avals
    assert _is_key_type(invar.aval.dtype, impl) == (arg in ("key", "keys")), f"input typed {invar.aval}"
    want = f(x)
    assert _is_key_type(out_aval.dtype, impl) == _is_key_type(want.dtype, impl), f"output typed {out_aval}"
    assert str(out_aval.dtype) == str(want.dtype) and tuple(out_aval.shape) == tuple(want.shape)
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, x)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(_as_words(impl, got), _as_words(impl, want))


def test_a_captured_key_is_a_constant_of_key_type(impl: Impl) -> None:
    s = staging(impl)
    random = impl.module.random
    key = random.key(4)
    f = lambda x: x * random.uniform(key)  # noqa: E731
    show_call("key = jax.random.key(4)\nf = lambda x: x * jax.random.uniform(key)\njax.make_jaxpr(f)(x)", x=X3)
    closed = s.jax.make_jaxpr(f)(X3)
    (constvar,) = closed.jaxpr.constvars
    assert _is_key_type(constvar.aval.dtype, impl) and tuple(constvar.aval.shape) == ()
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, X3 * np.asarray(random.uniform(key)), F32)


def test_keys_carried_through_staged_loops(impl: Impl) -> None:
    """A key as the carry of fori_loop and scan, staged and evaluated: the eager loop's keys."""
    s = staging(impl)
    random, lax = impl.module.random, impl.lax
    f = lambda k: lax.scan(lambda c, i: (random.fold_in(c, i), random.bits(c)), k, np.arange(3, dtype=np.uint32))  # noqa: E731
    show_call("f = lambda k: lax.scan(lambda c, i: (random.fold_in(c, i), random.bits(c)), k, np.arange(3, dtype=np.uint32))\n"
              "jax.core.eval_jaxpr(closed.jaxpr, closed.consts, jax.random.key(5))")  # fmt: skip
    key = random.key(5)
    closed = s.jax.make_jaxpr(f)(key)
    s.ext.check_jaxpr(closed.jaxpr)
    carry, ys = s.core.eval_jaxpr(closed.jaxpr, closed.consts, key)
    want_carry, want_ys = key, []
    for i in range(3):
        want_ys.append(np.asarray(random.bits(want_carry)))
        want_carry = random.fold_in(want_carry, np.uint32(i))
    np.testing.assert_array_equal(_as_words(impl, carry), _as_words(impl, want_carry))
    np.testing.assert_array_equal(np.asarray(ys), np.stack(want_ys))


def test_the_incomplete_gamma_functions_stage_as_one_equation_each(impl: Impl) -> None:
    """igamma, igammac and igamma_grad_a are primitives in JAX: one equation each, and under jvp in a
    igamma's tangent is igamma_grad_a's equation. (random_gamma_grad is lax code with loops in JAX, a
    primitive in didax: only its values are compared.)"""
    s = staging(impl)
    a, x = np.array([0.5, 1.5, 4.0], np.float32), np.array([0.3, 2.0, 5.0], np.float32)
    f = lambda a, x: (s.lax.igamma(a, x), s.lax.igammac(a, x), s.lax.igamma_grad_a(a, x))  # noqa: E731
    source = "f = lambda a, x: (lax.igamma(a, x), lax.igammac(a, x), lax.igamma_grad_a(a, x))"
    closed = check_round_trip(s, f, (a, x), source=source, values={"a": a, "x": x})
    assert primitives(closed) == ["igamma", "igammac", "igamma_grad_a"], primitives(closed)
    g = lambda a, x: s.jax.jvp(lambda b: s.lax.igamma(b, x), (a,), (np.ones(3, np.float32),))  # noqa: E731
    source = "g = lambda a, x: jax.jvp(lambda b: lax.igamma(b, x), (a,), (np.ones(3, np.float32),))"
    closed = check_round_trip(s, g, (a, x), source=source.replace("g =", "f ="), values={"a": a, "x": x})
    assert primitives(closed)[:2] == ["igamma", "igamma_grad_a"], primitives(closed)
    h = lambda a, x: s.lax.random_gamma_grad(a, x)  # noqa: E731
    check_round_trip(s, h, (a, x), source="f = lambda a, x: lax.random_gamma_grad(a, x)", values={"a": a, "x": x})


# --- weak types -------------------------------------------------------------------------------------------


def test_a_python_scalar_argument_stays_weak(impl: Impl) -> None:
    """make_jaxpr of a Python float argument: its input is weakly typed, so the jaxpr promotes as
    the function does (float16 with a float16 array), and eval_jaxpr of it on a Python float gives
    a weak result, as the function does."""
    s = staging(impl)
    h = np.array([1.0, 2.0], np.float16)
    check_round_trip(s, lambda a, y: a * y + 1.0, (2.0, h), source="f = lambda a, y: a * y + 1.0",
                     values={"a": 2.0, "y": h})  # fmt: skip
    closed = check_round_trip(s, lambda a: a * 2.0, (1.5,), source="f = lambda a: a * 2.0", values={"a": 1.5})
    assert_weak(closed.jaxpr.invars[0].aval, True, "the input of a Python float")
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, 1.5)
    assert_dtype(got, F32, weak=True)
    assert_values(got, np.array(3.0), F32)


def test_eval_shape_keeps_weak_types(impl: Impl) -> None:
    """eval_shape of a weak input, given as a Python scalar or a weak ShapeDtypeStruct."""
    s = staging(impl)
    sds = s.jax.ShapeDtypeStruct((2,), np.float32, weak_type=True)
    show_call("jax.eval_shape(lambda a: a * 2, sds)", sds=sds)
    out = s.jax.eval_shape(lambda a: a * 2, sds)
    assert tuple(out.shape) == (2,)
    assert_dtype(out, F32, weak=True)
    out = s.jax.eval_shape(lambda a: (a * 2.0, a * np.float32(2.0)), 1.0)
    assert_dtype(out[0], F32, weak=True)
    assert_dtype(out[1], F32, weak=False)


# --- the API: static_argnums, return_shape, ShapeDtypeStruct, keyword arguments -----------------------------


def test_static_argnums(impl: Impl) -> None:
    """Static arguments are passed as they are (Python control flow on them works; they need not be
    arrays) and are no inputs of the jaxpr; negative numbers count from the end."""
    s = staging(impl)

    def f(x: Any, n: int, mode: str) -> Any:
        return x * n if mode == "times" and n > 0 else x - n

    source = ("def f(x, n, mode):\n    return x * n if mode == 'times' and n > 0 else x - n\n"
              "closed = jax.make_jaxpr(f, static_argnums=(1, -1))(x, 3, 'times')")  # fmt: skip
    show_call(source, x=X3)
    for static in [(1, 2), (1, -1), (-2, 2)]:
        closed = s.jax.make_jaxpr(f, static_argnums=static)(X3, 3, "times")
        assert len(closed.jaxpr.invars) == 1, f"static_argnums={static}: {len(closed.jaxpr.invars)} inputs"
        assert_values(s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)[0], X3 * 3, F32)
    closed = s.jax.make_jaxpr(lambda n, x: x * n, static_argnums=0)(4, X3)
    assert len(closed.jaxpr.invars) == 1
    assert_values(s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)[0], X3 * 4, F32)


def test_return_shape(impl: Impl) -> None:
    """return_shape=True: the jaxpr and the output's tree of ShapeDtypeStructs."""
    s = staging(impl)
    f = lambda x: {"a": x, "b": (x.sum(), 1.0, x.astype(np.int32))}  # noqa: E731
    show_call("f = lambda x: {'a': x, 'b': (x.sum(), 1.0, x.astype(np.int32))}\n"
              "jax.make_jaxpr(f, return_shape=True)(x)", x=X3)  # fmt: skip
    closed, shapes = s.jax.make_jaxpr(f, return_shape=True)(X3)
    assert isinstance(shapes, dict) and sorted(shapes) == ["a", "b"] and isinstance(shapes["b"], tuple)
    want = [((3,), F32, False), ((), F32, False), ((), F32, True), ((3,), I32, False)]
    for k, (got, (shape, dt, weak)) in enumerate(zip(leaves(shapes), want)):
        assert isinstance(got, s.jax.ShapeDtypeStruct), f"leaf {k} is {got!r}"
        assert tuple(got.shape) == shape, f"leaf {k}: {got!r}"
        assert_dtype(got, dt, f"leaf {k}", weak=weak)
    assert len(closed.jaxpr.outvars) == 4


def test_shape_dtype_struct_arguments(impl: Impl) -> None:
    """ShapeDtypeStructs stand for arguments: the jaxpr has their types, and evaluates on real
    arrays of those types to the function's values; eval_shape takes them too."""
    s = staging(impl)
    a = s.jax.ShapeDtypeStruct((2, 3), np.float32)
    b = s.jax.ShapeDtypeStruct((3,), np.int32)
    f = lambda x, y: (x @ y.astype(np.float32), y * 2)  # noqa: E731
    show_call("f = lambda x, y: (x @ y.astype(np.float32), y * 2)\njax.make_jaxpr(f)(a, b)", a=a, b=b)
    closed = s.jax.make_jaxpr(f)(a, b)
    ins = [(tuple(v.aval.shape), np.dtype(v.aval.dtype)) for v in closed.jaxpr.invars]
    assert ins == [((2, 3), F32), ((3,), I32)], f"inputs {ins}"
    x, y = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.array([1, -2, 3], np.int32)
    got = s.core.eval_jaxpr(closed.jaxpr, closed.consts, x, y)
    assert_values(got[0], x @ y.astype(np.float32), F32)
    assert_values(got[1], y * 2, I32)
    shapes = s.jax.eval_shape(f, a, b)
    assert [tuple(o.shape) for o in shapes] == [(2,), (3,)]
    assert_dtype(shapes[1], I32, weak=False)


def test_keyword_arguments_are_inputs_after_the_positional_ones(impl: Impl) -> None:
    """make_jaxpr(f)(x, z=z, y=y): the jaxpr's inputs are x, then the keyword arguments by sorted
    name, as JAX flattens ((x,), {'y': y, 'z': z})."""
    s = staging(impl)
    y, z = np.array([1.0, 2.0], np.float32), np.array([[3.0, 4.0, 5.0]], np.float32)
    f = lambda x, z, y: (x * 2.0, y - 1.0, z.sum())  # noqa: E731
    closed = check_round_trip(s, f, (X3,), source="f = lambda x, z, y: (x * 2.0, y - 1.0, z.sum())",
                              values={"x": X3}, kwargs={"z": z, "y": y})  # fmt: skip
    assert [tuple(v.aval.shape) for v in closed.jaxpr.invars] == [(3,), (2,), (1, 3)]


# --- staging inside other transformations, and nested ----------------------------------------------------


def test_make_jaxpr_inside_make_jaxpr_closing_over_a_staged_value(impl: Impl) -> None:
    """An inner make_jaxpr that closes over the outer function's staged value: that value is a
    constant of the inner jaxpr (which type-checks), and evaluating it inside the outer function
    stages its equations into the outer jaxpr."""
    s = staging(impl)
    inner_shapes: list[Any] = []

    def outer(x: Any) -> Any:
        inner = s.jax.make_jaxpr(lambda y: (x * y + 1.0, x))(2.0)  # x itself is an output too
        s.ext.check_jaxpr(inner.jaxpr)
        inner_shapes.append((len(inner.jaxpr.constvars), primitives(inner)))
        a, b = s.core.eval_jaxpr(inner.jaxpr, inner.consts, 2.0)
        return a - b

    show_call(f"{PROGRAM_HEADER}def outer(x):\n    inner = jax.make_jaxpr(lambda y: (x * y + 1.0, x))(2.0)\n"
              "    jax.extend.core.check_jaxpr(inner.jaxpr)\n"
              "    a, b = jax.core.eval_jaxpr(inner.jaxpr, inner.consts, 2.0)\n    return a - b\n"
              "closed = jax.make_jaxpr(outer)(x)", x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(outer)(X3)
    s.ext.check_jaxpr(closed.jaxpr)
    [(nconsts, prims)] = inner_shapes
    assert nconsts == 1 and "mul" in prims, f"the inner jaxpr has {nconsts} constvars and applies {prims}"
    assert "mul" in primitives(closed), f"the outer jaxpr applies {primitives(closed)}"
    assert_values(s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)[0], X3 * 2 + 1 - X3, F32)


def test_make_jaxpr_inside_jvp_closing_over_a_differentiated_value(impl: Impl, flags) -> None:
    """make_jaxpr of a function closing over jvp's input (a scalar, whose value jvp knows): the
    input is a constant of the jaxpr, not a literal, and the operations on it are staged;
    evaluating the jaxpr inside jvp differentiates them."""
    flags("jax_enable_x64", True)
    s = staging(impl)
    seen: list[Any] = []

    def g(x: Any) -> Any:
        inner = s.jax.make_jaxpr(lambda: s.jnp.sin(x) * 2.0)()
        seen.append((len(inner.jaxpr.constvars), primitives(inner)))
        return s.core.eval_jaxpr(inner.jaxpr, inner.consts)[0]

    source = ("def g(x):\n    inner = jax.make_jaxpr(lambda: jnp.sin(x) * 2.0)()\n"
              "    return jax.core.eval_jaxpr(inner.jaxpr, inner.consts)[0]\njax.jvp(g, (x,), (t,))")  # fmt: skip
    for x in (0.7, np.array(0.7), np.array([0.7, -1.5])):
        show_call(source, x=x, t=np.ones_like(x))
        seen.clear()
        primal, tangent = s.jax.jvp(g, (x,), (np.ones_like(x),))
        assert_values(primal, 2 * np.sin(np.asarray(x)), F64)
        assert_values(tangent, 2 * np.cos(np.asarray(x)), F64)
        [(nconsts, prims)] = seen
        assert nconsts == 1 and "sin" in prims, f"the jaxpr has {nconsts} constvars and applies {prims}"


def test_make_jaxpr_inside_vmap_closing_over_a_batched_value(impl: Impl) -> None:
    s = staging(impl)

    def h(x: Any) -> Any:
        inner = s.jax.make_jaxpr(lambda y: s.jnp.sin(x) * y)(2.0)
        return s.core.eval_jaxpr(inner.jaxpr, inner.consts, 2.0)[0]

    xs = np.array([[0.5, 1.0], [-1.0, 2.0], [0.0, 3.0]], np.float32)
    show_call("def h(x):\n    inner = jax.make_jaxpr(lambda y: jnp.sin(x) * y)(2.0)\n"
              "    return jax.core.eval_jaxpr(inner.jaxpr, inner.consts, 2.0)[0]\njax.vmap(h)(xs)", xs=xs)  # fmt: skip
    assert_batched(s.jax.vmap(h)(xs), slices(h, (xs,)), 0, asarray=s.jnp.asarray)
    assert_values(s.jax.vmap(h)(xs), 2 * np.sin(xs), F32)


# --- gamma's rejection sampler (the primitive random_gamma) and x.at[].apply ------------------------------

KEY = np.array([0, 1701], np.uint32)  # random.PRNGKey(1701)
# (id, f of a key and a shape parameter, the parameter)
SAMPLERS = [
    ("gamma", "f = lambda key, a: jax.random.gamma(key, a, (4,))", np.array([0.3, 1.0, 2.5, 9.0], np.float32)),
    ("loggamma", "f = lambda key, a: jax.random.loggamma(key, a, (3,))", np.float32(0.05)),
    ("beta", "f = lambda key, a: jax.random.beta(key, a, 2.0, (3,))", np.float32(0.7)),
    ("dirichlet", "f = lambda key, a: jax.random.dirichlet(key, a)", np.array([0.5, 1.0, 3.0], np.float32)),
]


@pytest.mark.parametrize("source, a", [c[1:] for c in SAMPLERS], ids=[c[0] for c in SAMPLERS])
def test_rejection_samplers_round_trip_through_their_jaxpr(impl: Impl, source: str, a: np.ndarray) -> None:
    """Gamma sampling loops until a candidate is accepted, a number of times the key decides: staged,
    the sampler is a random_gamma equation (below), and the jaxpr draws the key's samples from the
    key as an input."""
    s = staging(impl)
    f = _compile(s, source)
    check_round_trip(s, f, (KEY, a), source=source, values={"key": KEY, "a": a})


def _equations(jaxpr: Any) -> list[Any]:
    """A jaxpr's equations and those of the jaxprs in their parameters (JAX stages random.gamma
    inside a `jit` equation, didax at the top), depth first."""
    eqns = []
    for eqn in jaxpr.eqns:
        eqns.append(eqn)
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    eqns.extend(_equations(inner))
    return eqns


@pytest.mark.parametrize("name, log_space", [("gamma", False), ("loggamma", True)])
def test_gamma_stages_as_one_random_gamma_equation(impl: Impl, name: str, log_space: bool) -> None:
    """JAX binds gamma's sampler as the primitive random_gamma[log_space] on the key and a (broadcast
    to the shape): one equation, whose evaluation runs the rejection loops, not the loops."""
    s = staging(impl)
    source = f"f = lambda key, a: jax.random.{name}(key, a, (3,))"
    f = _compile(s, source)
    show_call(f"{source}\njax.make_jaxpr(f)(key, a)", key=KEY, a=np.float32(0.7))
    closed = s.jax.make_jaxpr(f)(KEY, np.float32(0.7))
    eqns = _equations(closed.jaxpr)
    found = [e for e in eqns if e.primitive.name == "random_gamma"]
    assert len(found) == 1, [e.primitive.name for e in eqns]
    assert dict(found[0].params) == {"log_space": log_space}
    (keys, a) = found[0].invars
    assert str(keys.aval.dtype) == "key<fry>" and tuple(keys.aval.shape) == ()
    assert tuple(a.aval.shape) == (3,) and np.dtype(a.aval.dtype) == F32
    assert "while" not in [e.primitive.name for e in eqns]

def apply_each(x: np.ndarray, idx: list[int], fn: Callable[[Any], Any], mode: str | None) -> np.ndarray:
    """The oracle of x.at[idx].apply(fn, mode=mode): fn at each index in turn, so an index given
    twice gets it twice; a negative index counts from the end, then one out of range is clipped
    (mode 'clip') or dropped."""
    out, n = x.copy(), len(x)
    for i in idx:
        i = i + n if i < 0 else i
        if mode == "clip":
            i = min(max(i, 0), n - 1)
        elif not 0 <= i < n:
            continue
        out[i] = fn(out[i])
    return out


X5 = np.array([0.5, -1.25, 2.0, 3.0, -0.75], np.float32)
AT_IDX = [0, 2, 0, -1, 7, 0, -7, 2]  # repeated, negative, out of range both ways


@pytest.mark.parametrize("mode", [None, "clip", "drop"])
def test_at_apply_applies_its_function_once_per_index(impl: Impl, mode: str | None) -> None:
    """x.at[idx].apply(fn) is one scatter carrying fn as a jaxpr: fn runs at each index as many times
    as the index names it (x.at[idx].set(fn(x[idx])) would run it once), eagerly and staged."""
    s = staging(impl)
    idx = np.array(AT_IDX, np.int32)
    source = f"f = lambda x, i: jnp.asarray(x).at[i].apply(lambda v: v * 2.0 + 1.0, mode={mode!r})"
    f = _compile(s, source)
    show_call(f"{source}\nf(x, i)", x=X5, i=idx)
    assert_values(f(X5, idx), apply_each(X5, AT_IDX, lambda v: v * np.float32(2) + np.float32(1), mode), F32)
    check_round_trip(s, f, (X5, idx), source=source, values={"x": X5, "i": idx})


def test_at_apply_on_windows_and_integers(impl: Impl) -> None:
    """Rows named twice get fn twice, every element of the row; an integer array keeps its dtype."""
    s = staging(impl)
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    source = "f = lambda x: jnp.asarray(x).at[np.array([1, 3, 1])].apply(lambda v: v * 2 - 1)"
    f = _compile(s, source)
    show_call(f"{source}\nf(x)", x=x)
    want = x.copy()
    want[1] = (want[1] * 2 - 1) * 2 - 1
    want[3] = want[3] * 2 - 1
    assert_values(f(x), want, I32)
    check_round_trip(s, f, (x,), source=source, values={"x": x})


@pytest.mark.requires("jvp")
def test_at_apply_has_no_jvp(impl: Impl) -> None:
    """As in JAX, the scatter that applies a function has no derivative rule."""
    s = staging(impl)
    f = lambda x: s.jnp.asarray(x).at[np.array([0, 0])].apply(s.jnp.sin)  # noqa: E731
    show_call("f = lambda x: jnp.asarray(x).at[np.array([0, 0])].apply(jnp.sin)\njax.jvp(f, (x,), (x,))", x=X5)
    with pytest.raises(NotImplementedError):
        s.jax.jvp(f, (X5,), (X5,))


def test_at_apply_cannot_close_over_a_staged_value(impl: Impl) -> None:
    """The function becomes a parameter of the scatter, where a staged value cannot go: JAX's error."""
    s = staging(impl)
    f = lambda x: s.jnp.asarray(x).at[np.array([0, 0])].apply(lambda v: v * x[2])  # noqa: E731
    show_call("f = lambda x: jnp.asarray(x).at[np.array([0, 0])].apply(lambda v: v * x[2])\n"
              "jax.make_jaxpr(f)(x)", x=X5)  # fmt: skip
    with pytest.raises(NotImplementedError, match="close over Tracers"):
        s.jax.make_jaxpr(f)(X5)


# --- the type checker ---------------------------------------------------------------------------------------


def _parts(s: Staging) -> tuple[Any, list[Any]]:
    """The jaxpr of ``lambda x: (sin(x), convert_element_type(x, int32), reduce_sum(x))`` and its
    three equations: material for broken jaxprs."""
    f = lambda x: (s.jnp.sin(x), s.lax.convert_element_type(x, np.int32), s.lax.reduce_sum(x, (0,)))  # noqa: E731
    jaxpr = s.jax.make_jaxpr(f)(X3).jaxpr
    assert primitives(s.jax.make_jaxpr(f)(X3)) == ["sin", "convert_element_type", "reduce_sum"]
    return jaxpr, list(jaxpr.eqns)


BROKEN = ["rebinding_an_equation", "rebinding_an_input", "an_input_also_a_constvar", "reading_an_unbound_input",
          "an_unbound_output", "a_dtype_that_is_not_the_primitives", "a_shape_that_is_not_the_primitives"]  # fmt: skip


def _broken(s: Staging, which: str) -> Any:
    j, (e1, e2, e3) = _parts(s)
    [a] = j.invars
    make = s.ext.Jaxpr
    if which == "rebinding_an_equation":
        return make([], [a], j.outvars, [e1, e2, e1, e3])
    if which == "rebinding_an_input":
        return make([], [a, a], j.outvars, [e1, e2, e3])
    if which == "an_input_also_a_constvar":
        return make([a], [a], j.outvars, [e1, e2, e3])
    if which == "reading_an_unbound_input":
        return make([], [], j.outvars, [e1, e2, e3])
    if which == "an_unbound_output":
        return make([], [a], j.outvars, [e1, e3])
    if which == "a_dtype_that_is_not_the_primitives":  # sin binds an i32[3], convert an f32[3]
        return make([], [a], j.outvars, [e1.replace(outvars=e2.outvars), e2.replace(outvars=e1.outvars), e3])
    # sin binds an f32[], reduce_sum an f32[3]
    return make([], [a], j.outvars, [e1.replace(outvars=e3.outvars), e2, e3.replace(outvars=e1.outvars)])


@pytest.mark.parametrize("which", BROKEN)
@pytest.mark.filterwarnings("ignore:core.Jaxpr is missing a DebugInfo")  # JAX, for a Jaxpr built by hand
def test_check_jaxpr_rejects_a_broken_jaxpr(impl: Impl, which: str) -> None:
    """JaxprTypeError (a TypeError) for a variable bound twice or read unbound, and for an equation
    whose variables are not typed as its primitive's results; the unbroken jaxpr passes."""
    s = staging(impl)
    show_call(f"{PROGRAM_HEADER}# see conformance/test_jaxpr.py, _broken(s, {which!r})")
    j, eqns = _parts(s)
    s.ext.check_jaxpr(s.ext.Jaxpr(j.constvars, j.invars, j.outvars, eqns))
    assert issubclass(s.ext.JaxprTypeError, TypeError)
    with pytest.raises(s.ext.JaxprTypeError):
        s.ext.check_jaxpr(_broken(s, which))


# --- errors: Python on staged values ----------------------------------------------------------------------

# (id, source of f, its arguments, the name of the error in jax.errors or builtins)
MISUSES = [
    ("if", "def f(x):\n    if x > 0:\n        return x\n    return -x", (1.5,), "TracerBoolConversionError"),
    ("while", "def f(x):\n    while x > 0:\n        x = x - 1.0\n    return x", (1.5,), "TracerBoolConversionError"),
    ("and", "f = lambda x: (x > 0) and (x < 2)", (1.5,), "TracerBoolConversionError"),
    ("or", "f = lambda x: (x > 0) or (x < 2)", (1.5,), "TracerBoolConversionError"),
    ("not", "f = lambda x: not x", (1.5,), "TracerBoolConversionError"),
    ("bool", "f = lambda x: bool(x)", (1.5,), "TracerBoolConversionError"),
    ("python_min", "f = lambda x: min(x, 1.0)", (1.5,), "TracerBoolConversionError"),
    ("float", "f = lambda x: float(x)", (1.5,), "ConcretizationTypeError"),
    ("int", "f = lambda x: int(x)", (1.5,), "ConcretizationTypeError"),
    ("complex", "f = lambda x: complex(x)", (1.5,), "ConcretizationTypeError"),
    ("arange_to_a_staged_bound", "f = lambda n: jnp.arange(n)", (3,), "ConcretizationTypeError"),
    ("nonzero", "f = lambda x: jnp.nonzero(x)", (X3,), "ConcretizationTypeError"),
    ("zeros_of_a_staged_size", "f = lambda n: jnp.zeros(n)", (3,), "TypeError"),
    ("reshape_to_a_staged_shape", "f = lambda x, n: jnp.reshape(x, (n, -1))", (X3, 3), "TypeError"),
    ("reshape_method_to_a_staged_size", "f = lambda x, n: x.reshape(n)", (X3, 3), "TypeError"),
    # JAX's top_k compares k with 0 first: the truth value of a staged comparison
    ("top_k_of_a_staged_k", "f = lambda x, k: lax.top_k(x, k)", (X3, 2), "TracerBoolConversionError"),
    ("list_index", "f = lambda i: [1.0, 2.0, 3.0][i]", (1,), "TracerIntegerConversionError"),
    ("range", "f = lambda n: sum(range(n))", (3,), "TracerIntegerConversionError"),
    ("np_asarray", "f = lambda x: np.asarray(x)", (X3,), "TracerArrayConversionError"),
    ("np_sin", "f = lambda x: np.sin(x)", (X3,), "TracerArrayConversionError"),
    ("boolean_mask", "f = lambda x: x[x > 0]", (X3,), "NonConcreteBooleanIndexError"),
    ("boolean_mask_at", "f = lambda x: x.at[x > 0].set(0.0)", (X3,), "NonConcreteBooleanIndexError"),
    ("a_string_argument", "f = lambda x: x", ("text",), "TypeError"),
]  # fmt: skip

# JAX's classes of the errors above: (name, a class it must be a subclass of)
ERROR_BASES = [
    ("ConcretizationTypeError", TypeError),
    ("TracerBoolConversionError", "ConcretizationTypeError"),
    ("TracerIntegerConversionError", TypeError),
    ("TracerArrayConversionError", TypeError),
    ("NonConcreteBooleanIndexError", IndexError),
    ("UnexpectedTracerError", TypeError),
]


def _error(s: Staging, name: str) -> type[BaseException]:
    builtin = {"TypeError": TypeError, "IndexError": IndexError}
    return builtin[name] if name in builtin else getattr(s.jax.errors, name)


@pytest.mark.parametrize("name, base", ERROR_BASES, ids=[e[0] for e in ERROR_BASES])
def test_tracer_errors_are_jax_classes(impl: Impl, name: str, base: Any) -> None:
    s = staging(impl)
    parent = base if isinstance(base, type) else _error(s, base)
    assert issubclass(_error(s, name), parent), f"errors.{name} is no subclass of {parent.__name__}"


def _staging_still_works(s: Staging) -> None:
    """After a failed staging: eager operations give arrays again, and make_jaxpr starts afresh."""
    show_call("jnp.sin(1.5), jax.make_jaxpr(lambda x: x * 2.0)(x)", x=X3)
    assert_values(s.jnp.sin(np.float32(1.5)), np.sin(np.float32(1.5)), F32)
    closed = s.jax.make_jaxpr(lambda x: x * 2.0)(X3)
    assert len(closed.jaxpr.eqns) == 1 and len(closed.jaxpr.invars) == 1 and not closed.jaxpr.constvars
    assert_values(s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)[0], X3 * 2, F32)


@pytest.mark.parametrize("source, args, error", [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_python_on_a_staged_value_raises_jax_errors(impl: Impl, source: str, args: tuple, error: str) -> None:
    """Python control flow, conversions and value-dependent shapes on a staged value raise JAX's
    error classes; then staging and evaluation work as before (the failure left nothing behind)."""
    s = staging(impl)
    f = _compile(s, source)
    names = [f"a{i}" for i in range(len(args))]
    show_call(f"{source}\njax.make_jaxpr(f)({', '.join(names)})", **dict(zip(names, args)))
    with pytest.raises(_error(s, error)):
        s.jax.make_jaxpr(f)(*args)
    _staging_still_works(s)


# Misuses whose error is exactly JAX's class and whose message names what was asked, as JAX's does:
# (id, source of f, its arguments, the error's name, words of JAX 0.10.2's message)
NAMED_MISUSES = [
    ("item", "f = lambda x: x.item()", (1.5,), "ConcretizationTypeError", "item()"),
    ("tolist", "f = lambda x: x.tolist()", (X3,), "ConcretizationTypeError", "tolist()"),
    ("int", "f = lambda x: int(x)", (1.5,), "ConcretizationTypeError", "`int`"),
    ("float", "f = lambda x: float(x)", (1.5,), "ConcretizationTypeError", "`float`"),
    ("complex", "f = lambda x: complex(x)", (1.5,), "ConcretizationTypeError", "`complex`"),
    ("float_as_an_index", "f = lambda x: [1.0, 2.0][x]", (1.5,), "TypeError", "Only integer scalar arrays"),
    ("slice_stop", "f = lambda x, n: x[:n]", (X3, 2), "IndexError", "Slice entries must be static integers"),
    ("slice_step", "f = lambda x, n: x[None, ::n]", (X3, 2), "IndexError", "at position 1"),
    ("slice_start_at", "f = lambda x, n: x.at[n:].set(0.0)", (X3, 1), "IndexError", "Slice entries must be static"),
    ("slice_beside_an_index_array", "f = lambda x, n: x[jnp.asarray([0, 1]), :n]", (np.ones((2, 3), np.float32), 2),
     "IndexError", "at position 1"),
]  # fmt: skip


@pytest.mark.parametrize("source, args, error, words", [m[1:] for m in NAMED_MISUSES],
                         ids=[m[0] for m in NAMED_MISUSES])
def test_python_on_a_staged_value_names_the_conversion(impl: Impl, source: str, args: tuple, error: str,
                                                       words: str) -> None:  # fmt: skip
    """The error is JAX's class itself (not a subclass: a float index is no tracer error), and its
    message names the conversion, the method or the slice as JAX 0.10.2's does (a release detail:
    JAX 0.4's messages are worded differently)."""
    s = staging(impl)
    f = _compile(s, source)
    names = [f"a{i}" for i in range(len(args))]
    show_call(f"{source}\njax.make_jaxpr(f)({', '.join(names)})", **dict(zip(names, args)))
    with pytest.raises(Exception) as info:
        s.jax.make_jaxpr(f)(*args)
    assert type(info.value) is _error(s, error), f"{type(info.value).__name__}: {info.value}"
    _staging_still_works(s)
    release_detail(words in str(info.value), f"{words!r} not in the message: {info.value}")


def test_a_tracer_leaked_from_a_finished_staging_is_a_constant_of_a_later_one(impl: Impl) -> None:
    """JAX 0.10.2 stages a leaked tracer met by a later make_jaxpr as one more constant (a constvar
    holding the tracer); evaluating that jaxpr raises UnexpectedTracerError, as using it eagerly does."""
    s = staging(impl)
    leaked: list[Any] = []
    s.jax.make_jaxpr(lambda x: leaked.append(x) or s.jnp.sin(x))(np.float32(1.5))
    show_call("leaked = []\njax.make_jaxpr(lambda x: leaked.append(x) or jnp.sin(x))(np.float32(1.5))\n"
              "closed = jax.make_jaxpr(lambda x: x * leaked[0] + leaked[0])(x)\n"
              "jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)", x=X3)  # fmt: skip
    closed = s.jax.make_jaxpr(lambda x: x * leaked[0] + leaked[0])(X3)
    assert len(closed.jaxpr.constvars) == 1 and closed.consts[0] is leaked[0], closed.consts
    assert primitives(closed) == ["mul", "add"], primitives(closed)
    s.ext.check_jaxpr(closed.jaxpr)
    with pytest.raises(s.jax.errors.UnexpectedTracerError):
        s.core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    _staging_still_works(s)


@pytest.mark.requires("vmap")
def test_a_tracer_leaked_from_vmap_is_an_error_in_a_later_staging(impl: Impl) -> None:
    """Unlike staging's and jvp's, vmap's trace is over when vmap returns (JAX 0.10.2 invalidates it):
    a tracer leaked from vmap and used inside a later make_jaxpr raises UnexpectedTracerError at once,
    instead of becoming a constant of the jaxpr. Then staging works as before."""
    s = staging(impl)
    leaked: list[Any] = []
    s.jax.vmap(lambda x: leaked.append(x) or x)(X3)
    show_call("leaked = []\njax.vmap(lambda x: leaked.append(x) or x)(x)\n"
              "jax.make_jaxpr(lambda y: y + leaked[0])(1.0)", x=X3)  # fmt: skip
    with pytest.raises(s.jax.errors.UnexpectedTracerError):
        s.jax.make_jaxpr(lambda y: y + leaked[0])(1.0)
    _staging_still_works(s)


def test_make_jaxpr_of_something_not_callable(impl: Impl) -> None:
    s = staging(impl)
    show_call("jax.make_jaxpr(3)")
    with pytest.raises(TypeError):
        s.jax.make_jaxpr(3)


def test_a_leaked_tracer_raises_unexpected_tracer_error(impl: Impl) -> None:
    """A staged value saved in a global and used after make_jaxpr returned: UnexpectedTracerError,
    eagerly and under jvp and vmap. Then staging works as before."""
    s = staging(impl)
    leaked: list[Any] = []

    def f(x: Any) -> Any:
        leaked.append(x)
        return s.jnp.sin(x)

    leak = "leaked = []\ndef f(x):\n    leaked.append(x)\n    return jnp.sin(x)\njax.make_jaxpr(f)(1.5)\n"
    s.jax.make_jaxpr(f)(1.5)
    error = s.jax.errors.UnexpectedTracerError
    uses = [("jnp.cos(leaked[0])", lambda: s.jnp.cos(leaked[0])), ("leaked[0] + 1.0", lambda: leaked[0] + 1.0),
            ("jax.jvp(lambda y: y * leaked[0], (2.0,), (1.0,))",
             lambda: s.jax.jvp(lambda y: y * leaked[0], (2.0,), (1.0,))),
            ("jax.vmap(lambda y: y * leaked[0])(x)", lambda: s.jax.vmap(lambda y: y * leaked[0])(X3))]  # fmt: skip
    for text, use in uses:
        show_call(f"{leak}{text}", x=X3)
        with pytest.raises(error):
            use()
    _staging_still_works(s)


def test_staging_after_a_failure_inside_a_transformation(impl: Impl) -> None:
    """A staging that fails inside jvp and inside vmap leaves both working afterwards."""
    s = staging(impl)
    bad = lambda x: s.jax.make_jaxpr(lambda y: y if y > 0 else -y)(x)  # noqa: E731
    for transform in (lambda: s.jax.jvp(bad, (1.5,), (1.0,)), lambda: s.jax.vmap(bad)(X3)):
        with pytest.raises(_error(s, "TracerBoolConversionError")):
            transform()
        show_call("jax.jvp(jnp.sin, (1.5,), (1.0,))")
        _, tangent = s.jax.jvp(s.jnp.sin, (np.float32(1.5),), (np.float32(1.0),))
        assert_values(tangent, np.cos(np.float32(1.5)), F32)
        _staging_still_works(s)


def test_eval_jaxpr_of_a_jaxpr_with_no_inputs_and_many_outputs(impl: Impl) -> None:
    """make_jaxpr of a function of nothing (all its values made inside): eval_jaxpr of no arguments."""
    s = staging(impl)
    f = lambda: (s.jnp.arange(4) * 2, s.jnp.ones((2, 2)), 3.0)  # noqa: E731
    closed = check_round_trip(s, f, (), source="f = lambda: (jnp.arange(4) * 2, jnp.ones((2, 2)), 3.0)",
                              values={})  # fmt: skip
    assert not closed.jaxpr.invars and not closed.jaxpr.constvars
    got = s.core.eval_jaxpr(closed.jaxpr, closed.consts)
    assert_all_like(list(got), [s.jnp.arange(4) * 2, s.jnp.ones((2, 2)), s.jnp.asarray(3.0)], "output")
