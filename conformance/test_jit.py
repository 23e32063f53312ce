"""Compilation, ``jax.jit``: a jitted function gives what the function gives run eagerly by the same
implementation (whose eager values the other areas check against NumPy), for every lax primitive
family (test_vmap.py's table of cases), for random programs with control flow, random numbers and
indexing, for Python scalars (weak types), and for random's samplers (JAX's recorded bits); and jit
composes: jit of jvp is jvp of jit, jit of vmap is vmap of jit, jit of jit, make_jaxpr of jit.

The call API (tracing once per signature, static arguments, donation, lowering, disable_jit) and
device arrays are in test_jit_api.py.

How close is close: a jitted function runs as one XLA program, the eager one an operation at a time
(on XLA in JAX, on NumPy in a NumPy-based implementation), and XLA's transcendental functions are not
correctly rounded, nor fused code rounded as unfused code is. Each of the two is held elsewhere in the
suite to ``checks.RTOL`` of the exact value (relative, plus the same absolute margin in the lax area,
or relative to the largest magnitude where sums add in another order); so the two may differ by twice
that, per operation of a chain: ``RTOL * |want| + 2 * RTOL * steps * max(1, max |want|)``. Integers,
booleans and values an operation only moves or selects (reshapes, slices, gathers, sorts, selects,
conversions) are exact in any correct implementation: those agree bit for bit. Dtypes and weak types
are the eager ones exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks import (RTOL, assert_same_type, assert_values, assert_weak, draw_x64, release_detail,
                                show_call, wide)
from conformance.control_programs import CONTROL_NAMES, THRESHOLD, control_programs
from conformance.control_programs import OPS as CONTROL_OPS
from conformance.derivatives import leaves, map_leaves, random_tangents, structure
from conformance.impl import Impl
from conformance.missing import Namespace
from conformance.programs import INPUT_DOMAIN, Op, Program, Shape, _operand, programs
from conformance.random_cases import CASES as RANDOM_CASES
from conformance.random_cases import Case as RandomCase
from conformance.random_cases import decode
from conformance.strategies import arrays, batch_axes, insert_axis
from conformance.test_vmap import ANY, C64, CASES, M, TIES, Case, _fixed, case

pytestmark = [pytest.mark.area("jit"), pytest.mark.requires("jit")]

F32, F64 = np.dtype("float32"), np.dtype("float64")
B = 3  # the batch size of the vmap compositions
RANDOM_BITS = json.loads((Path(__file__).resolve().parent / "data" / "random_bits.json").read_text())


def namespace(impl: Impl) -> dict[str, Any]:
    """What the suite's program text sees: jax, jnp, lax, np, random."""
    jax = Namespace(impl.module, "jax")
    return {"jax": jax, "jnp": impl.numpy, "lax": impl.lax, "np": np,
            "random": Namespace(getattr(impl.module, "random", None), "jax.random")}  # fmt: skip


def compiled(impl: Impl, source: str, name: str = "f") -> Callable[..., Any]:
    scope = namespace(impl)
    exec(compile(source, "<jit case>", "exec"), scope)  # the suite's own text
    return scope[name]


def jit(impl: Impl) -> Callable[..., Any]:
    return Namespace(impl.module, "jax").jit


# --- the comparison ------------------------------------------------------------------------------------


def _is_array(x: Any) -> bool:
    return hasattr(x, "aval") or hasattr(x, "weak_type")


def _bytes(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).reshape(-1).view(np.uint8)


def assert_like_eager(impl: Impl, got: Any, want: Any, what: str = "output", *, exact: bool = False,
                      steps: int = 1, weak: bool = True) -> None:  # fmt: skip
    """``got`` (what the jitted function gave) against ``want`` (the eager function's value): the same
    tree; per leaf the shape, the dtype and (with ``weak``) the weak type of the eager value, as the
    implementation's ``jnp.asarray`` makes an array of a Python scalar or NumPy value; values as the
    module docstring says (bit for bit with ``exact``, and for integers and booleans)."""
    assert structure(got) == structure(want), f"{what}: tree {structure(got)}, eagerly {structure(want)}"
    for k, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        w = w if _is_array(w) else impl.numpy.asarray(w)
        label = f"{what} {k}"
        if weak:
            assert_same_type(g, w, label)
        g_np, w_np = np.asarray(g), np.asarray(w)
        assert g_np.dtype == w_np.dtype, f"{label}: dtype {g_np.dtype}, eagerly {w_np.dtype}"
        assert g_np.shape == w_np.shape, f"{label}: shape {g_np.shape}, eagerly {w_np.shape}"
        if exact or w_np.dtype.kind not in "fc":
            same = np.array_equal(g_np, w_np) if w_np.dtype.kind == "b" else np.array_equal(_bytes(g_np), _bytes(w_np))
            assert same, f"{label} differs from the eager value (bit for bit):\n got  {g_np!r}\n want {w_np!r}"
            continue
        scale = max(1.0, float(np.max(np.abs(wide(w_np)), initial=0.0, where=np.isfinite(w_np))))
        try:
            assert_values(g, wide(w_np), w_np.dtype, atol=2 * steps * RTOL[w_np.dtype.name] * scale)
        except AssertionError as err:
            raise AssertionError(f"{label}: jit and eager differ\n{err}") from None


# --- every primitive family: test_vmap.py's table, unbatched ----------------------------------------------

# Cases whose results only move, select or convert their operands' values (or are integers): no
# rounding anywhere, so jit and eager agree bit for bit.
MOVING = re.compile(r"(neg|abs|sign|floor|ceil|round|max|min|argmax|argmin|cummax|cummin|real|select_n.*|clamp.*"
                    r"|convert.*|bitcast.*|broadcast_in_dim.*|reshape.*|transpose|squeeze|expand_dims|rev.*"
                    r"|concatenate.*|pad.*|slice|dynamic_slice|dynamic_update_slice|reduce_max|reduce_min|sort.*"
                    r"|top_k.*|gather.*|scatter_max.*|index.*|at_set|at_min|at_max|imag)")  # fmt: skip


def _look_up(impl: Impl, body: str) -> None:
    """The implementation's functions that ``body`` names (a missing one raises Missing): before any
    call, so that a gap is reported as one."""
    scope = namespace(impl)
    for module, name in re.findall(r"\b(lax|jnp|random)\.(\w+)", body):
        getattr(scope[module], name)


# Primitives the lax area checks that the vmap table has no line for.
EXTRA = [
    case("stop_gradient", "lax.stop_gradient(x) * x", x=(M,)),
    case("imag", "lax.imag(x)", x=(M, ANY, C64)),
    case("sort_key_val", "lax.sort_key_val(k, x, 1)", k=(M, TIES), x=(M,)),
]


@pytest.mark.parametrize("c", CASES + EXTRA, ids=lambda c: c.name)
def test_primitive_under_jit_matches_eager(impl: Impl, c: Case) -> None:
    """Each line of the vmap area's table of lax primitives (and jnp's indexing and .at[] updates)
    and a few more, its arguments NumPy arrays of the table's shapes, domains and dtypes."""
    _look_up(impl, c.body)
    rng = np.random.default_rng(5)
    values = {n: _fixed(a, a.shape, rng) for n, a in c.args.items()}
    names = ", ".join(values)
    f = compiled(impl, c.source)
    show_call(f"{c.source}\njax.jit(f)({names}), f({names})  # jitted, and eager", **values)
    want = f(*values.values())
    got = jit(impl)(f)(*values.values())
    assert_like_eager(impl, got, want, exact=c.exact or MOVING.fullmatch(c.name) is not None)


# --- Python scalars: weak types through jit ----------------------------------------------------------------

X3 = np.array([0.5, -1.25, 2.0], np.float32)
# (id, f, arguments): the result's dtype and weak type are the eager value's (a Python scalar result
# as jnp.asarray makes it: weakly typed).
SCALARS = [
    ("python_float", "f = lambda x: x * 2", (2.5,)),
    ("python_int", "f = lambda x: x + 1", (3,)),
    ("python_complex", "f = lambda z: z * 2", (1.5 - 2j,)),
    ("python_bool", "f = lambda b: jnp.logical_not(b)", (True,)),
    ("returned_as_it_came", "f = lambda x: x", (2.5,)),
    ("constant_output", "f = lambda x: (x * 2, 1.0, 3)", (X3,)),
    ("strong_array_and_weak_scalar", "f = lambda x, y: x * y", (X3, 2.0)),
    ("weak_int_and_weak_float", "f = lambda i, y: i * y + jnp.sin(y)", (3, 0.5)),
    ("weak_scalar_and_integer_array", "f = lambda x, y: x + y", (np.array([1, 2], np.int32), 2)),
    ("jnp_array_of_a_scalar", "f = lambda x: jnp.asarray(x) * jnp.asarray(1.5)", (2.0,)),
    ("numpy_scalar_is_strong", "f = lambda x: x * 2", (np.float32(2.5),)),
    ("no_arguments", "f = lambda: (jnp.arange(3) * 2, 7, jnp.ones(2) / 4)", ()),
]


@pytest.mark.parametrize("source, args", [s[1:] for s in SCALARS], ids=[s[0] for s in SCALARS])
def test_weak_types_through_jit(impl: Impl, source: str, args: tuple) -> None:
    """A Python scalar argument is a weakly typed input of the jitted function, as it is of the
    eager one; results keep the eager weak types (constants returned too)."""
    f = compiled(impl, source)
    names = [f"a{i}" for i in range(len(args))]
    show_call(f"{source}\njax.jit(f)({', '.join(names)}), f({', '.join(names)})", **dict(zip(names, args)))
    assert_like_eager(impl, jit(impl)(f)(*args), f(*args))


# --- random programs: control flow, random numbers, indexing -----------------------------------------------


def random_noise(draw: st.DrawFn, pool: list[Any]) -> tuple[str, Shape]:
    """A value plus noise drawn from a key made inside the program: a constant seed, sometimes folded
    with a staged integer (how many elements of a value pass a threshold) so the key is traced."""
    a = _operand(draw, pool)
    assert a is not None
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    key = f"jax.random.PRNGKey({seed})"
    if draw(st.booleans(), label="key folded with a staged value"):
        b = _operand(draw, pool)
        assert b is not None
        key = f"jax.random.fold_in({key}, jnp.sum({b.name} > {THRESHOLD}))"
    sampler = draw(st.sampled_from(["normal", "uniform"]), label="sampler")
    return f"{a.name} + 0.25 * jax.random.{sampler}({key}, {a.shape})", a.shape


# control_programs.py's operations (programs.py's, and staged control flow about half the time) and
# random numbers: one step in nine or so.
JIT_OPS: tuple[Op, ...] = CONTROL_OPS + (random_noise, random_noise)


def jit_programs(min_steps: int = 3, max_steps: int = 6) -> st.SearchStrategy[Program]:
    return programs(min_steps=min_steps, max_steps=max_steps, ops=JIT_OPS)


def _look_up_program_names(impl: Impl) -> None:
    """Control flow's and random's names, before anything is drawn (reported missing, not failing)."""
    for name in CONTROL_NAMES:
        getattr(impl.lax, name)
    jax = namespace(impl)["jax"]
    jax.random.PRNGKey, jax.random.fold_in, jax.random.normal, jax.random.uniform  # noqa: B018


# JAX compiles every example (100-300 ms for a program with loops): a third of the profile's examples.
PROGRAM_SETTINGS = settings(max_examples=max(2, settings().max_examples // 3))


@PROGRAM_SETTINGS
@given(data=st.data())
def test_random_program_under_jit_matches_eager(impl: Impl, flags, data: st.DataObject) -> None:
    """Programs of elementwise functions, reductions, indexing, .at[] updates, products, staged
    control flow (cond, switch, loops, scan, map, associative_scan) and random numbers, with x64
    drawn: jit(f)(p) against f(p)."""
    _look_up_program_names(impl)
    draw_x64(data, flags)
    program = data.draw(jit_programs(), label="program")
    f = program.function(namespace(impl))
    show_call(f"{program.source}jax.jit(f)(p), f(p)  # jitted, and eager", p=program.inputs)
    want = f(program.inputs)
    got = jit(impl)(f)(program.inputs)
    assert_like_eager(impl, got, want, steps=program.steps)


# --- random's samplers: JAX's recorded bits, compiled ------------------------------------------------------
# Each case of random_cases.py (keys made inside the jitted function) against the bits real JAX
# recorded in data/random_bits.json, with the case's own tolerance: the same oracle as the random
# area, now reached through one compiled program.

# One case per sampler and key operation (the random area runs every case eagerly); the gamma
# family's slower relatives (beta, dirichlet, loggamma: more rejection loops, 2-3 s each for JAX to
# compile) are left to gamma itself, to keep the area near a minute on JAX.
JITTED_RANDOM_NAMES = (
    "PRNGKey(42)", "PRNGKey(-1) x64", "key_data(key(7))", "split(k, (2, 3))", "split(split(k)[1])",
    "fold_in(k, 4294967295)", "bits((2, 3), uint8)", "bits((7,), uint64) x64", "uniform((16,), bfloat16)",
    "uniform((3, 4), minval=[[-2], [0], [5]], maxval=7)", "normal((256,))", "normal((32,)) x64",
    "truncated_normal(-1.5, 2.0, (256,))", "exponential((256,))", "gumbel((256,))", "bernoulli(p=[0.1, 0.5, 0.9])",
    "randint((64,), -200, 300, int8)", "randint((16,), -10**12, 10**12) x64", "permutation(10)",
    "permutation(arange(12).reshape(3, 4), axis=1, independent=True)", "choice(5, (3,), replace=False, p=P5)",
    "choice(arange(12).reshape(3, 4), (2,), axis=1)", "categorical([[0, 1, 2], [2, 1, 0]], axis=1)",
    "gamma([0.5, 1, 2.5, 10], (3, 4))", "uniform(wrap_key_data(WORDS)[1], (8,))",
    "cauchy((256,))", "laplace((256,))", "logistic((256,))", "rademacher((16,), uint8)", "t(3.0, (64,))",
    "ball(4, p=1, shape=(8,))", "poisson(LAMS, (64, 7))", "poisson(3.0, (32,)) x64",
    "lognormal([0.5, 2], (3, 2))", "weibull_min(2.0, 1.5, (64,))", "wald(1.5, (64,))", "geometric(0.3, (64,))",
)
JITTED_RANDOM = [c for c in RANDOM_CASES if c.name in JITTED_RANDOM_NAMES]
assert len(JITTED_RANDOM) == len(JITTED_RANDOM_NAMES), "a name above is no case of random_cases.py"


@pytest.mark.usefixtures("random_flags")
@pytest.mark.parametrize("case", JITTED_RANDOM, ids=[c.name for c in JITTED_RANDOM])
def test_random_under_jit_gives_jaxs_numbers(impl: Impl, flags, case: RandomCase) -> None:
    flags("jax_enable_x64", case.x64)
    random = namespace(impl)["random"]
    show_call("np.asarray(jax.jit(lambda: fn(jax.random))()), decode(RANDOM_BITS['cases'][name])  # got, and JAX's",
              fn=case.fn, name=case.name)  # fmt: skip
    want = decode(RANDOM_BITS["cases"][case.name])
    got = np.asarray(jit(impl)(lambda: case.fn(random))())
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if case.rtol == 0 and case.atol == 0:
        assert np.array_equal(_bytes(got), _bytes(want)), f"got {got!r}\nJAX's {want!r}"
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol)


# --- composition: jit with jvp, vmap, itself and make_jaxpr ------------------------------------------------

COMPOSED_SETTINGS = settings(max_examples=max(2, settings().max_examples // 4))


@pytest.mark.requires("jvp")
@COMPOSED_SETTINGS
@given(data=st.data())
def test_jit_of_jvp_is_jvp_of_jit(impl: Impl, flags, data: st.DataObject) -> None:
    """For a random program with control flow: jit(lambda p, t: jvp(f, (p,), (t,))) and
    jvp(jit(f), ...) both give jvp(f, ...) run eagerly (whose tangents the jvp area checks against
    finite differences). Tangents' weak types are left to the implementation, as in the jvp area."""
    _look_up_program_names(impl)
    draw_x64(data, flags)
    program = data.draw(control_programs(), label="program")
    jax = namespace(impl)["jax"]
    f = program.function(namespace(impl))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    t = random_tangents(program.inputs, rng)
    p = program.inputs
    show_call(f"{program.source}jax.jit(lambda p, t: jax.jvp(f, (p,), (t,)))(p, t), jax.jvp(jax.jit(f), (p,), (t,)), "
              "jax.jvp(f, (p,), (t,))", p=p, t=t)  # fmt: skip
    want_p, want_t = jax.jvp(f, (p,), (t,))
    for what, (got_p, got_t) in [("jit of jvp", jax.jit(lambda p, t: jax.jvp(f, (p,), (t,)))(p, t)),
                                 ("jvp of jit", jax.jvp(jax.jit(f), (p,), (t,)))]:  # fmt: skip
        assert_like_eager(impl, got_p, want_p, f"{what}: primal output", steps=program.steps)
        assert_like_eager(impl, got_t, want_t, f"{what}: tangent output", steps=program.steps, weak=False)


@pytest.mark.requires("vmap")
@COMPOSED_SETTINGS
@given(data=st.data())
def test_jit_of_vmap_is_vmap_of_jit(impl: Impl, flags, data: st.DataObject) -> None:
    """For a random program with control flow, its leaves batched along drawn axes (or not):
    jit(vmap(f, in_axes)) and vmap(jit(f), in_axes) both give vmap(f, in_axes) run eagerly (which
    the vmap area checks against the loop)."""
    _look_up_program_names(impl)
    draw_x64(data, flags)
    program = data.draw(control_programs(), label="program")
    jax = namespace(impl)["jax"]
    f = program.function(namespace(impl))
    axes = map_leaves(lambda k, leaf: data.draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))), label="axis"),
                      program.inputs)  # fmt: skip
    if not leaves(axes):
        axes = map_leaves(lambda k, leaf: 0, program.inputs)
    flat_axes = _axes_leaves(axes)
    batched = map_leaves(lambda k, leaf: leaf if flat_axes[k] is None else data.draw(
        arrays(F64, insert_axis(np.shape(leaf), flat_axes[k], B), INPUT_DOMAIN), label=f"batched leaf {k}"),
        program.inputs)  # fmt: skip
    show_call(f"{program.source}jax.jit(jax.vmap(f, in_axes=(axes,)))(p), jax.vmap(jax.jit(f), in_axes=(axes,))(p), "
              "jax.vmap(f, in_axes=(axes,))(p)", axes=axes, p=batched)  # fmt: skip
    want = jax.vmap(f, in_axes=(axes,))(batched)
    assert_like_eager(impl, jax.jit(jax.vmap(f, in_axes=(axes,)))(batched), want, "jit of vmap", steps=program.steps)
    assert_like_eager(impl, jax.vmap(jax.jit(f), in_axes=(axes,))(batched), want, "vmap of jit", steps=program.steps)


def _axes_leaves(axes: Any) -> list[Any]:
    """Every leaf of an axes tree in leaves() order, None included (derivatives.leaves skips Nones)."""
    if isinstance(axes, (tuple, list)):
        return [leaf for child in axes for leaf in _axes_leaves(child)]
    if isinstance(axes, dict):
        return [leaf for key in sorted(axes) for leaf in _axes_leaves(axes[key])]
    return [axes]


@COMPOSED_SETTINGS
@given(data=st.data(), program=programs(min_steps=3, max_steps=6))
def test_jit_of_a_function_calling_jitted_functions(impl: Impl, flags, data: st.DataObject,
                                                     program: Program) -> None:  # fmt: skip
    """jit of jit: a random program, jitted, called twice from inside another jitted function (on
    its input and on a function of it), gives what the eager composition gives."""
    draw_x64(data, flags)
    jax = namespace(impl)["jax"]
    f = program.function(namespace(impl))
    inner = jax.jit(f)

    def outer(p: Any) -> Any:
        shifted = jax.tree_util.tree_map(lambda v: jax.numpy.tanh(v) - 0.5, p)
        return inner(p), inner(shifted)

    def eager(p: Any) -> Any:
        shifted = jax.tree_util.tree_map(lambda v: jax.numpy.tanh(v) - 0.5, p)
        return f(p), f(shifted)

    show_call(f"{program.source}inner = jax.jit(f)\n"
              "shift = lambda p: jax.tree_util.tree_map(lambda v: jnp.tanh(v) - 0.5, p)\n"
              "jax.jit(lambda p: (inner(p), inner(shift(p))))(p), (f(p), f(shift(p)))", p=program.inputs)  # fmt: skip
    assert_like_eager(impl, jax.jit(outer)(program.inputs), eager(program.inputs), steps=program.steps + 1)


def test_jit_of_jit_of_jit(impl: Impl) -> None:
    """Three levels, each closing over an array and a Python number, the innermost called twice."""
    jax, jnp = namespace(impl)["jax"], impl.numpy
    c = np.array([1.0, -2.0, 0.5], np.float32)
    inner = jax.jit(lambda x: jnp.sin(x) * c + 1.0)
    middle = jax.jit(lambda x: inner(x) - inner(2.0 * x))
    outer = jax.jit(lambda x, y: middle(x) * y)
    show_call("inner = jax.jit(lambda x: jnp.sin(x) * c + 1.0)\nmiddle = jax.jit(lambda x: inner(x) - inner(2.0 * x))\n"
              "jax.jit(lambda x, y: middle(x) * y)(x, 3.0)", c=c, x=X3)  # fmt: skip
    want = ((np.sin(X3.astype(F64)) * c + 1.0) - (np.sin(2.0 * X3.astype(F64)) * c + 1.0)) * 3.0
    got = outer(X3, 3.0)
    assert_same_type(got, jnp.asarray(X3), "result")
    assert_values(got, want, F32, atol=4 * RTOL["float32"])


@pytest.mark.requires("jaxpr")
def test_make_jaxpr_of_jit_is_one_jit_equation_holding_the_jaxpr(impl: Impl) -> None:
    """make_jaxpr of a jitted function: one equation, of the primitive named "jit", whose ``jaxpr``
    parameter is the function's own (closed) jaxpr; eval_jaxpr of the outer jaxpr gives the value.
    The name is a release detail: JAX 0.4 calls the primitive "pjit"."""
    jax, jnp = namespace(impl)["jax"], impl.numpy
    core = Namespace(getattr(impl.module, "core", None), "jax.core")

    def f(x: Any) -> Any:
        return jnp.sin(x) * 2.0

    show_call("def f(x):\n    return jnp.sin(x) * 2.0\njax.make_jaxpr(jax.jit(f))(x)", x=X3)
    closed = jax.make_jaxpr(jax.jit(f))(X3)
    names = [eqn.primitive.name for eqn in closed.jaxpr.eqns]
    assert len(names) == 1, f"the equations' primitives are {names}"
    [call] = names
    inner = closed.jaxpr.eqns[0].params["jaxpr"]
    inner_jaxpr = getattr(inner, "jaxpr", inner)  # a ClosedJaxpr (JAX), or a Jaxpr
    assert [e.primitive.name for e in inner_jaxpr.eqns] == ["sin", "mul"], inner_jaxpr
    assert [tuple(v.aval.shape) for v in inner_jaxpr.invars] == [(3,)]
    [got] = core.eval_jaxpr(closed.jaxpr, closed.consts, X3)
    assert_values(got, np.sin(X3.astype(F64)) * 2.0, F32)
    # Nested: a jit equation inside the jit equation's jaxpr.
    nested = jax.make_jaxpr(jax.jit(lambda x: jax.jit(f)(x) + 1.0))(X3)
    outer_eqn = nested.jaxpr.eqns[0]
    assert outer_eqn.primitive.name == call
    body = getattr(outer_eqn.params["jaxpr"], "jaxpr", outer_eqn.params["jaxpr"])
    assert [e.primitive.name for e in body.eqns] == [call, "add"], body
    release_detail(call == "jit", f"the jit equation's primitive is {call!r}, JAX 0.10.2's is 'jit'")


@pytest.mark.requires("jvp", "vmap")
def test_jvp_and_vmap_of_jit_trace_the_function_once(impl: Impl) -> None:
    """jit traces ``f`` once per input signature, to a jaxpr that jvp and vmap then transform: jvp
    and vmap of the jitted function, called again with new values, trace ``f`` once in all (vmap's
    examples have the type jvp's inputs have), and give its values and derivatives."""
    jax = namespace(impl)["jax"]
    jnp = impl.numpy
    traces: list[Any] = []

    def f(x: Any) -> Any:
        traces.append(None)
        return jnp.sin(x) * x

    g = jax.jit(f)
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return jnp.sin(x) * x\ng = jax.jit(f)\n"
              "jax.jvp(g, (x,), (t,)), jax.jvp(g, (x + 1,), (t,)), jax.vmap(g)(xs), jax.vmap(g)(xs - 1), len(traces)",
              x=X3, t=np.ones(3, np.float32), xs=np.stack([X3, X3 * 2]))  # fmt: skip
    for x in [X3, X3 + 1]:
        primal, tangent = jax.jvp(g, (x,), (np.ones(3, np.float32),))
        wide_x = x.astype(F64)
        assert_values(primal, np.sin(wide_x) * wide_x, F32)
        assert_values(tangent, np.cos(wide_x) * wide_x + np.sin(wide_x), F32, atol=RTOL["float32"])
    assert len(traces) == 1, f"jvp of a jitted function traced it {len(traces)} times for one input type"
    for xs in [np.stack([X3, X3 * 2]), np.stack([X3 - 1, X3 * 3])]:
        wide_xs = xs.astype(F64)
        assert_values(jax.vmap(g)(xs), np.sin(wide_xs) * wide_xs, F32)
    assert len(traces) == 1, f"jvp and vmap of a jitted function traced it {len(traces)} times for one input type"


def test_weak_and_strong_results_of_a_jitted_function_are_arrays(impl: Impl) -> None:
    """What a jitted function returns is the implementation's array, whatever f returned: a NumPy
    array passed through, a Python scalar, an array made inside."""
    jnp = impl.numpy
    show_call("jax.jit(lambda x: (x, 2.0, jnp.ones(2)))(x)", x=X3)
    outs = jit(impl)(lambda x: (x, 2.0, jnp.ones(2)))(X3)
    assert isinstance(outs, tuple) and len(outs) == 3
    for k, out in enumerate(outs):
        assert _is_array(out) and not isinstance(out, np.ndarray), f"output {k} is a {type(out).__name__}"
    for k, (out, weak) in enumerate(zip(outs, [False, True, False])):
        assert_weak(out, weak, f"output {k}")
