"""lax.cond and lax.switch (stage 04): the seeds' values (notes/requirements-digest.md §4 "cond"),
evaluation against Python's if/else, jvp against central differences, vmap against a loop, the
jaxprs they stage, the primitive's type checks, and JAX 0.10.2's errors."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax
from didax.dtypes import float0
from didax.errors import JaxprTypeError
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, check_jaxpr, eval_jaxpr
from didax.lax.conditionals import hoist_branch_consts
from didax.staging import make_jaxpr


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def checked(fun: Callable, *args: object) -> ClosedJaxpr:
    """``fun``'s jaxpr, after the type checker has accepted it."""
    closed = make_jaxpr(fun)(*args)
    check_jaxpr(closed.jaxpr)
    return closed


def eqns_named(jaxpr: Jaxpr, name: str) -> list[JaxprEqn]:
    return [e for e in jaxpr.eqns if e.primitive.name == name]


def central_difference(f: Callable, x: np.ndarray, v: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return (np.asarray(f(x + eps * v)) - np.asarray(f(x - eps * v))) / (2 * eps)


def source(f: Callable) -> str:
    return f"{f.__name__} at {f.__code__.co_filename}:{f.__code__.co_firstlineno}"


# --- the seeds' values (D:18538-18574), each against a Python reference --------------------------


def test_cond_of_constants_is_the_taken_branch_as_in_the_seeds():
    out = lax.cond(True, lambda: 3, lambda: 4)
    assert out == (3 if True else 4) == 3


def test_jvp_through_cond_is_the_taken_branch_derivative_as_in_the_seeds():
    _, tangent = didax.jvp(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0), (1.0,), (1.0,))
    assert float(tangent) == 2 * 1.0 == 2.0  # d(x*x)/dx = 2x at x = 1


def test_vmap_of_cond_with_an_unbatched_predicate_as_in_the_seeds():
    xs = np.array([1.0, 2.0, 3.0])
    out = didax.vmap(lambda x: lax.cond(True, lambda: x + 1.0, lambda: 0.0), (0,))(xs)
    np.testing.assert_array_equal(out, [x + 1.0 for x in xs])
    np.testing.assert_array_equal(out, [2.0, 3.0, 4.0])


# --- evaluation against Python's if/else --------------------------------------------------------


def true_branch(x, y):
    return jnp.sin(x) * y, x + y


def false_branch(x, y):
    return jnp.cos(x) - y, x * y


def python_cond(pred, x, y):
    return (np.sin(x) * y, x + y) if pred else (np.cos(x) - y, x * y)


@pytest.mark.parametrize(
    "pred", [True, False, 1, 0, -3, 0.5, 0.0, np.bool_(True), np.int8(0), np.float32(2.0)]
)
def test_cond_evaluates_the_branch_python_would(pred):
    x, y = np.float32(0.7), np.float32(1.3)
    out = lax.cond(pred, true_branch, false_branch, x, y)
    for got, want in zip(out, python_cond(pred, x, y)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_cond_takes_pytree_operands_and_returns_the_branch_pytree():
    ops = {"a": np.arange(3.0, dtype=np.float32), "b": (np.float32(2.0), [np.float32(3.0)])}
    out = lax.cond(False, lambda o: {"s": o["a"] * o["b"][0]}, lambda o: {"s": o["a"] + o["b"][1][0]}, ops)
    assert list(out) == ["s"]
    np.testing.assert_array_equal(out["s"], ops["a"] + 3.0)


def test_the_operand_keyword_passes_a_single_operand():
    assert float(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand=2.0)) == 3.0
    assert float(lax.switch(0, [lambda x: x + 1, lambda x: x - 1], operand=2.0)) == 3.0


def test_the_oldest_calling_convention_is_still_accepted():
    # cond(pred, true_operand, true_fun, false_operand, false_fun), as JAX still allows.
    assert float(lax.cond(True, 2.0, lambda x: x * 10, 3.0, lambda x: x * 100)) == 20.0
    assert float(lax.cond(False, 2.0, lambda x: x * 10, 3.0, lambda x: x * 100)) == 300.0


SWITCH_BRANCHES = [lambda x: x * 2.0, jnp.sin, lambda x: x - 5.0]
PY_BRANCHES = [lambda x: x * 2.0, np.sin, lambda x: x - 5.0]


def python_switch(i: int, x: float) -> float:
    return PY_BRANCHES[min(max(i, 0), len(PY_BRANCHES) - 1)](x)


@pytest.mark.parametrize("index", [-4, -1, 0, 1, 2, 3, 99, np.uint8(1), np.int64(2)])
def test_switch_evaluates_the_clamped_branch(index):
    x = np.float32(0.4)
    np.testing.assert_allclose(lax.switch(index, SWITCH_BRANCHES, x), python_switch(int(index), x), rtol=1e-6)


def test_switch_with_one_branch_just_calls_it():
    assert lax.switch(7, [lambda: 1.0]) == 1.0
    assert type(lax.switch(7, [lambda: 1.0])) is float  # called directly, not staged


def test_both_branches_are_traced_even_when_the_predicate_is_known():
    calls = []

    def branch(name):
        def fun(x):
            calls.append(name)
            return x

        return fun

    lax.cond(True, branch("true"), branch("false"), 1.0)
    assert sorted(calls) == ["false", "true"]


def test_output_weak_type_is_branch_zeros_when_branches_differ_only_in_it():
    # JAX 0.10.2: the output type is branch 0's (cond's false branch), weak type included.
    strong = lax.cond(True, lambda: 1.0, lambda: jnp.float32(2))
    assert float(strong) == 1.0 and not strong.weak_type
    weak = lax.cond(False, lambda: jnp.float32(2), lambda: 1.0)
    assert float(weak) == 1.0 and weak.weak_type
    assert lax.switch(1, [lambda: 1.0, lambda: jnp.float32(2)]).weak_type


def test_the_primitive_picks_the_last_branch_for_an_index_out_of_range():
    # XLA's Conditional runs the last branch for an index < 0 or >= the number of branches.
    branches = tuple(make_jaxpr(lambda x, k=k: x + k)(1.0) for k in (10.0, 20.0, 30.0))
    for index, want in [(0, 11.0), (2, 31.0), (3, 31.0), (-1, 31.0)]:
        (out,) = lax.cond_p.bind(np.int32(index), 1.0, branches=branches)
        assert float(out) == want


# --- jvp against central differences (float64) ---------------------------------------------------


def cond_program(x, y):
    return lax.cond(jnp.sum(x) > 0, lambda x, y: jnp.sin(x) * y**2, lambda x, y: jnp.exp(x) - y, x, y)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_jvp_of_cond_agrees_with_central_differences(sign, x64):
    rng = np.random.default_rng(1)
    x, y = sign * rng.uniform(0.2, 0.9, 3), rng.uniform(0.2, 0.9, 3)
    vx, vy = rng.normal(size=3), rng.normal(size=3)
    _, tangent = didax.jvp(cond_program, (x, y), (vx, vy))
    expected = central_difference(lambda t: cond_program(x + t * vx, y + t * vy), 0.0, 1.0)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("index", [0, 1, 2, 7])
def test_jvp_of_switch_agrees_with_central_differences(index, x64):
    f = lambda x: lax.switch(index, SWITCH_BRANCHES, x)
    _, tangent = didax.jvp(f, (0.3,), (1.0,))
    np.testing.assert_allclose(tangent, central_difference(f, 0.3, 1.0), rtol=1e-6)


def test_jvp_with_a_tangent_for_one_operand_only(x64):
    f = lambda x, y: lax.cond(True, lambda x, y: x * y, lambda x, y: x, x, y)
    primal, tangent = didax.jvp(lambda x: f(x, 3.0), (2.0,), (1.0,))
    assert float(primal) == 6.0
    np.testing.assert_allclose(tangent, central_difference(lambda x: f(x, 3.0), 2.0, 1.0), rtol=1e-6)


def test_output_with_a_zero_tangent_in_one_branch_only_gets_zeros_there(x64):
    f = lambda p, x: lax.cond(p, lambda x: x**3, lambda x: 5.0, x)
    assert float(didax.jvp(lambda x: f(False, x), (2.0,), (1.0,))[1]) == 0.0
    np.testing.assert_allclose(didax.jvp(lambda x: f(True, x), (2.0,), (1.0,))[1], 3 * 2.0**2, rtol=1e-12)


def test_second_derivative_through_cond(x64):
    f = lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)
    df = lambda x: didax.jvp(f, (x,), (1.0,))[1]
    for x in (0.7, -0.7):
        np.testing.assert_allclose(didax.jvp(df, (x,), (1.0,))[1], central_difference(df, x, 1.0), rtol=1e-6)


def test_integer_operands_and_outputs_have_float0_tangents():
    def f(x, n):
        return lax.cond(n > 0, lambda x, n: (x * n, n + 1), lambda x, n: (x, n), x, n)

    (y, m), (dy, dm) = didax.jvp(f, (2.0, 3), (1.0, np.zeros((), float0)))
    assert (float(y), int(m)) == (2.0 * 3, 3 + 1)
    assert float(dy) == 3.0  # d(x * n)/dx
    assert dm.dtype == float0 and dm.shape == ()
    closed = checked(lambda x, n: didax.jvp(lambda x: f(x, n)[0], (x,), (1.0,)), 2.0, 3)
    (eqn,) = eqns_named(closed.jaxpr, "cond")
    assert [v.aval.dtype for v in eqn.outvars] == [np.float32, np.int32, np.float32]  # no int tangent


# --- vmap against a Python loop -----------------------------------------------------------------


def loop(f: Callable, *columns: np.ndarray) -> np.ndarray:
    return np.stack([np.asarray(f(*row)) for row in zip(*columns)])


def test_vmap_with_a_batched_predicate_and_operands():
    xs = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    ys = np.arange(5, dtype=np.float32)
    f = lambda x, y: lax.cond(x > 0, lambda x, y: x * y, lambda x, y: x - y, x, y)
    py = lambda x, y: x * y if x > 0 else x - y
    np.testing.assert_allclose(didax.vmap(f)(xs, ys), loop(py, xs, ys), rtol=1e-6)


def test_vmap_with_a_batched_predicate_and_unbatched_operands():
    preds = np.array([True, False, True])
    f = lambda p, x: lax.cond(p, lambda x: jnp.sin(x), lambda x: x * 2.0, x)
    out = didax.vmap(f, (0, None))(preds, np.float32(0.5))
    np.testing.assert_allclose(out, [np.sin(0.5) if p else 0.5 * 2.0 for p in preds], rtol=1e-6)


def test_vmap_with_an_unbatched_predicate_and_batched_operands():
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    for pred in (True, False):
        out = didax.vmap(lambda x, pred=pred: lax.cond(pred, jnp.sum, jnp.prod, x))(xs)
        np.testing.assert_array_equal(out, [x.sum() if pred else x.prod() for x in xs])


def test_vmap_over_an_axis_other_than_the_first():
    xs = np.arange(12, dtype=np.float32).reshape(3, 4)
    ps = np.array([1, 0, 0, 1], np.int32)
    f = lambda p, x: lax.cond(p, lambda x: x[::-1], lambda x: -x, x)
    out = didax.vmap(f, (0, 1), 1)(ps, xs)
    expected = np.stack([x[::-1] if p else -x for p, x in zip(ps, xs.T)], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_vmap_of_switch_with_batched_and_unbatched_index():
    idx = np.array([-2, 0, 1, 2, 9], np.int32)
    xs = np.linspace(0.1, 0.9, 5, dtype=np.float32)
    f = lambda i, x: lax.switch(i, SWITCH_BRANCHES, x)
    np.testing.assert_allclose(
        didax.vmap(f)(idx, xs), loop(lambda i, x: python_switch(int(i), x), idx, xs), rtol=1e-6
    )
    np.testing.assert_allclose(
        didax.vmap(f, (0, None))(idx, xs[0]), [python_switch(int(i), xs[0]) for i in idx], rtol=1e-6
    )
    np.testing.assert_allclose(didax.vmap(f, (None, 0))(1, xs), np.sin(xs), rtol=1e-6)


def test_vmap_output_batched_in_one_branch_only_is_batched():
    xs = np.arange(3, dtype=np.float32)
    for pred in (True, False):
        a, b = didax.vmap(lambda x, pred=pred: lax.cond(pred, lambda: (x, 1.0), lambda: (2.0, x)))(xs)
        want = [(x, 1.0) if pred else (2.0, x) for x in xs]
        np.testing.assert_array_equal(a, [w[0] for w in want])
        np.testing.assert_array_equal(b, [w[1] for w in want])


def test_vmap_of_vmap_of_cond():
    ps = np.array([[True, False], [False, True]])
    xs = np.arange(4, dtype=np.float32).reshape(2, 2)
    f = lambda p, x: lax.cond(p, lambda x: x + 10.0, lambda x: x * 3.0, x)
    out = didax.vmap(didax.vmap(f))(ps, xs)
    np.testing.assert_array_equal(out, np.where(ps, xs + 10.0, xs * 3.0))


def test_jvp_of_vmap_with_a_batched_predicate(x64):
    xs = np.array([-0.5, 0.3, 0.8])
    f = didax.vmap(lambda x: lax.cond(x > 0, jnp.sin, lambda x: x**2, x))
    _, tangent = didax.jvp(f, (xs,), (np.ones(3),))
    np.testing.assert_allclose(tangent, central_difference(f, xs, np.ones(3)), rtol=1e-6)


def test_vmap_of_jvp_of_switch(x64):
    xs = np.array([0.2, 0.4, 0.6])
    idx = np.array([0, 1, 2])
    f = lambda i, x: didax.jvp(lambda x: lax.switch(i, SWITCH_BRANCHES, x), (x,), (1.0,))[1]
    np.testing.assert_allclose(didax.vmap(f)(idx, xs), [2.0, np.cos(0.4), 1.0], rtol=1e-12)


# --- nesting and closures ------------------------------------------------------------------------


def test_nested_cond_matches_nested_if():
    f = lambda p, q, x: lax.cond(p, lambda x: lax.cond(q, jnp.sin, jnp.cos, x), lambda x: -x, x)
    py = lambda p, q, x: (np.sin(x) if q else np.cos(x)) if p else -x
    for p in (True, False):
        for q in (True, False):
            np.testing.assert_allclose(f(p, q, np.float32(0.3)), py(p, q, np.float32(0.3)), rtol=1e-6)
    closed = checked(f, True, False, 1.0)
    (outer,) = eqns_named(closed.jaxpr, "cond")
    assert [len(eqns_named(b.jaxpr, "cond")) for b in outer.params["branches"]] == [0, 1]


def test_a_branch_closing_over_an_outer_jvp_tracer_is_differentiated(x64):
    def f(x):
        return lax.cond(True, lambda y: y * x, lambda y: y + x, 3.0)  # x is scalar: not a literal

    primal, tangent = didax.jvp(f, (2.0,), (1.0,))
    assert float(primal) == 6.0
    np.testing.assert_allclose(tangent, central_difference(f, 2.0, 1.0), rtol=1e-6)
    g = lambda x: lax.cond(jnp.sum(x) > 0, lambda: x * 2.0, lambda: jnp.zeros(3))  # an array closure
    _, tangent = didax.jvp(g, (np.ones(3),), (np.arange(3.0),))
    np.testing.assert_allclose(tangent, 2.0 * np.arange(3.0))


def test_a_branch_closing_over_an_outer_vmap_tracer_is_batched():
    xs = np.arange(4, dtype=np.float32)
    out = didax.vmap(lambda x: lax.cond(True, lambda y: y + x, lambda y: y - x, 1.0))(xs)
    np.testing.assert_array_equal(out, [1.0 + x for x in xs])
    out = didax.vmap(lambda x: lax.cond(x > 1, lambda: x * 10.0, lambda: x))(xs)
    np.testing.assert_array_equal(out, [x * 10.0 if x > 1 else x for x in xs])


def test_a_branch_closing_over_a_staged_value_takes_it_as_an_operand():
    f = lambda x, y: lax.cond(x > 0, lambda: y, lambda: y * 2.0)
    closed = checked(f, 1.0, np.ones(2, np.float32))
    (eqn,) = eqns_named(closed.jaxpr, "cond")
    assert eqn.invars[1] is closed.jaxpr.invars[1]  # y is passed to the cond, after the index
    assert all(len(b.jaxpr.invars) == 1 and not b.consts for b in eqn.params["branches"])
    np.testing.assert_array_equal(f(-1.0, np.ones(2, np.float32)), [2.0, 2.0])


def test_constants_are_hoisted_and_every_branch_takes_all_of_them():
    a, b = np.arange(3.0, dtype=np.float32), np.ones(3, np.float32)
    f = lambda p, x: lax.cond(p, lambda x: x + a + b, lambda x: x * a, x)
    closed = checked(f, True, np.zeros(3, np.float32))
    (eqn,) = eqns_named(closed.jaxpr, "cond")
    assert len(eqn.invars) == 1 + 2 + 1  # index, the two constants (a once), the operand
    for branch in eqn.params["branches"]:
        assert not branch.consts and len(branch.jaxpr.invars) == 3
    for p in (True, False):
        np.testing.assert_array_equal(f(p, np.full(3, 2.0, np.float32)), 2.0 + a + b if p else 2.0 * a)


def test_hoist_branch_consts_shares_a_constant_and_pads_the_others():
    a, b, c = (jnp.full(2, v, np.float32) for v in (1.0, 2.0, 3.0))  # Arrays: make_jaxpr copies NumPy ones
    j1 = make_jaxpr(lambda x: x + a + b)(np.zeros(2, np.float32))
    j2 = make_jaxpr(lambda x: x * c - a)(np.zeros(2, np.float32))
    (h1, h2), consts = hoist_branch_consts([j1, j2])
    assert [id(x) for x in consts] == [id(a), id(b), id(c)]
    x = np.full(2, 5.0, np.float32)
    for closed, original in ((h1, j1), (h2, j2)):
        check_jaxpr(closed.jaxpr)
        assert not closed.consts and len(closed.jaxpr.invars) == 4
        np.testing.assert_array_equal(
            eval_jaxpr(closed.jaxpr, [], *consts, x)[0], eval_jaxpr(original.jaxpr, original.consts, x)[0]
        )


def test_eval_shape_of_cond():
    out = didax.eval_shape(
        lambda p, x: lax.cond(p, lambda x: x.sum(), lambda x: x[0], x), True, np.ones((4,))
    )
    assert (out.shape, out.dtype) == ((), np.float32)


# --- the staged jaxprs --------------------------------------------------------------------------


def test_printed_cond_nests_its_branches_in_jaxs_layout():
    f = lambda p, x: lax.cond(p, lambda x: x + 1.0, lambda x: x * 2.0, x)
    expected = (  # JAX 0.10.2's make_jaxpr(f)(True, 1.0)
        "{ lambda ; a:bool[] b:f32[]. let\n"
        "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    d:f32[] = cond[\n"
        "      branches=(\n"
        "        { lambda ; e:f32[]. let f:f32[] = mul e 2.0:f32[] in (f,) }\n"
        "        { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }\n"
        "      )\n"
        "    ] c b\n"
        "  in (d,) }"
    )
    assert str(checked(f, True, 1.0)) == expected


def test_cond_stages_one_eqn_with_the_false_branch_first():
    closed = checked(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), 1.0)
    gt, convert, cond = closed.jaxpr.eqns
    assert (gt.primitive.name, convert.primitive.name, cond.primitive) == (
        "gt",
        "convert_element_type",
        lax.cond_p,
    )
    assert convert.params["new_dtype"] == np.int32 and cond.invars[0] is convert.outvars[0]
    false, true = cond.params["branches"]
    assert [e.primitive.name for e in false.eqns] == ["cos"]
    assert [e.primitive.name for e in true.eqns] == ["sin"]


def test_a_numeric_predicate_is_compared_with_zero():
    closed = checked(lambda p, x: lax.cond(p, lambda x: x, lambda x: -x, x), 3, 1.0)
    ne, convert, _ = closed.jaxpr.eqns
    assert ne.primitive.name == "ne" and float(ne.invars[1].val) == 0


def test_switch_clamps_its_index_with_a_clamp_eqn():
    closed = checked(lambda i, x: lax.switch(i, SWITCH_BRANCHES, x), 1, 1.0)
    convert, clamp, cond = closed.jaxpr.eqns
    assert (convert.primitive.name, clamp.primitive.name) == ("convert_element_type", "clamp")
    lo, index, hi = clamp.invars
    assert (int(lo.val), index, int(hi.val)) == (0, convert.outvars[0], len(SWITCH_BRANCHES) - 1)
    assert cond.invars[0] is clamp.outvars[0] and len(cond.params["branches"]) == 3


def test_a_batched_predicate_stages_a_select_n_and_no_cond():
    f = didax.vmap(lambda x: lax.cond(x > 1.5, lambda: x + 1.0, lambda: 0.0))
    closed = checked(f, np.array([1.0, 2.0, 3.0], np.float32))
    assert not eqns_named(closed.jaxpr, "cond")
    (select,) = eqns_named(closed.jaxpr, "select_n")
    assert select.invars[0].aval.dtype == np.int32 and select.outvars[0] is closed.jaxpr.outvars[0]
    np.testing.assert_array_equal(f(np.array([1.0, 2.0, 3.0])), [0.0, 3.0, 4.0])


def test_an_unbatched_predicate_stages_a_cond_of_batched_branches():
    f = didax.vmap(lambda p, x: lax.cond(p, lambda: x + 1.0, lambda: 0.0), (None, 0))
    closed = checked(f, True, np.ones(3, np.float32))
    (cond,) = eqns_named(closed.jaxpr, "cond")
    assert cond.invars[0].aval.shape == ()
    assert [b.out_avals[0].shape for b in cond.params["branches"]] == [(3,), (3,)]


def test_jaxprs_of_transformed_conds_type_check(x64):
    f = lambda x, y: lax.cond(x.sum() > 0, lambda: jnp.sin(x) * y, lambda: y - 1.0)
    x, y = np.ones(3), np.ones(3)
    checked(lambda x, y: didax.jvp(f, (x, y), (x, y)), x, y)
    checked(didax.vmap(f), np.ones((2, 3)), np.ones((2, 3)))
    checked(didax.vmap(f, (None, 0)), x, np.ones((2, 3)))
    checked(lambda x: didax.jvp(didax.vmap(f, (0, None)), (x, y), (x, y)), np.ones((2, 3)))
    checked(didax.jacfwd(lambda x: f(x, x)), x)


def test_jvp_and_vmap_of_a_jaxpr_holding_a_cond_type_check():
    from didax.ad import jvp_jaxpr
    from didax.batching import batch_jaxpr

    closed = make_jaxpr(lambda x: lax.cond(x > 0, jnp.sin, lambda x: 2.0, x))(1.0)
    jvp_closed, out_nonzeros = jvp_jaxpr(closed, [True], False)
    check_jaxpr(jvp_closed.jaxpr)
    assert out_nonzeros == [True]
    batched, out_batched = batch_jaxpr(closed, 4, [True], False)
    check_jaxpr(batched.jaxpr)
    assert out_batched == [True] and eqns_named(batched.jaxpr, "select_n")


# --- the primitive's type checks (check_jaxpr) -----------------------------------------------------


def cond_jaxpr(branches: tuple, index_aval=None, operand_avals=None) -> Jaxpr:
    """A jaxpr of one cond equation, built by hand, so that it can be wrong."""
    index = Var(index_aval or didax.ShapedArray((), np.int32))
    ops = [Var(a) for a in (operand_avals or branches[0].in_avals)]
    outs = [Var(a) for a in branches[0].out_avals]
    return Jaxpr(
        (), [index, *ops], outs, [JaxprEqn(lax.cond_p, (index, *ops), tuple(outs), {"branches": branches})]
    )


SIN = make_jaxpr(jnp.sin)(1.0)
COS = make_jaxpr(jnp.cos)(1.0)


def test_check_jaxpr_accepts_a_well_formed_cond():
    check_jaxpr(cond_jaxpr((SIN, COS)))


@pytest.mark.parametrize(
    "branches, index, operands, message",
    [
        (
            (SIN, make_jaxpr(lambda x: x.astype(np.int32))(1.0)),
            None,
            None,
            "cond branches 0 and 1 have mismatching output types: float32[] vs int32[]",
        ),
        (
            (SIN, make_jaxpr(lambda x: (x, x))(1.0)),
            None,
            None,
            "cond branch 0 outputs 1 values, branch 1 outputs 2",
        ),
        (
            (SIN, make_jaxpr(lambda x, y: x)(1.0, 1.0)),
            None,
            None,
            "cond branch 0 takes 1 inputs, branch 1 takes 2",
        ),
        (
            (SIN, make_jaxpr(jnp.sin)(np.ones(2))),
            None,
            None,
            "cond branches 0 and 1 have mismatching input types: float32[] vs float32[2]",
        ),
        (
            (SIN, COS),
            didax.ShapedArray((), np.bool_),
            None,
            "cond called with index of type bool[] instead of int32[]",
        ),
        (
            (SIN, COS),
            None,
            [didax.ShapedArray((2,), np.float32)],
            "cond branches take input types float32[], called with operands of type float32[2]",
        ),
        ((), None, [], "cond requires at least one branch function"),
    ],
)
def test_check_jaxpr_rejects_an_ill_typed_cond(branches, index, operands, message):
    if not branches:
        jaxpr = Jaxpr((), [Var(didax.ShapedArray((), np.int32))], [], [])
        index_var = jaxpr.invars[0]
        jaxpr = Jaxpr((), [index_var], [], [JaxprEqn(lax.cond_p, (index_var,), (), {"branches": ()})])
    else:
        jaxpr = cond_jaxpr(branches, index, operands)
    with pytest.raises(JaxprTypeError, match=re.escape(message)):
        check_jaxpr(jaxpr)


def test_check_jaxpr_rejects_a_wrong_operand_count():
    index = Var(didax.ShapedArray((), np.int32))
    out = Var(didax.ShapedArray((), np.float32))
    jaxpr = Jaxpr((), [index], [out], [JaxprEqn(lax.cond_p, (index,), (out,), {"branches": (SIN, COS)})])
    with pytest.raises(
        JaxprTypeError, match="cond called with 0 non-predicate operands, but branches take 1 inputs"
    ):
        check_jaxpr(jaxpr)


# --- JAX 0.10.2's errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0),
            TypeError,
            "Pred must be a scalar, got [ True False] of shape (2,).",
        ),
        (
            lambda: lax.cond([True], lambda: 1.0, lambda: 2.0),
            TypeError,
            "Pred must be a scalar, got [True] of type <class 'list'>",
        ),
        (
            lambda: lax.cond("a", lambda: 1.0, lambda: 2.0),
            TypeError,
            "Pred must be a scalar, got a of type <class 'str'>",
        ),
        (lambda: lax.cond(None, lambda: 1.0, lambda: 2.0), TypeError, "cond predicate is None"),
        (
            lambda: lax.cond(np.complex64(1), lambda: 1.0, lambda: 2.0),
            TypeError,
            "Pred type must be either boolean or number, got complex64.",
        ),
        (
            lambda: lax.cond(True, 1.0, lambda: 2.0),
            TypeError,
            "lax.cond: true_fun and false_fun arguments should be callable.",
        ),
        (
            lambda: lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0),
            TypeError,
            "if 'operand' keyword is passed then no positional operands can be passed, got operand=2.0 and "
            "positional operands (1.0,)",
        ),
        (
            lambda: lax.switch(1.0, [lambda: 1.0, lambda: 2.0]),
            TypeError,
            "Index type must be an integer, got 1.0 as float32",
        ),
        (
            lambda: lax.switch(True, [lambda: 1.0, lambda: 2.0]),
            TypeError,
            "Index type must be an integer, got True as bool",
        ),
        (
            lambda: lax.switch(None, [lambda: 1.0, lambda: 2.0]),
            TypeError,
            "Index type must be an integer, got None as float32",
        ),
        (
            lambda: lax.switch("foo", [lambda: 1.0, lambda: 2.0]),
            TypeError,
            "Index type must be an integer, got foo.",
        ),
        (
            lambda: lax.switch(np.array([1]), [lambda: 1.0, lambda: 2.0]),
            TypeError,
            "Branch index must be scalar, got [1] of shape (1,).",
        ),
        (lambda: lax.switch(1, []), ValueError, "Empty branch sequence"),
        (
            lambda: lax.switch(1, [lambda: 1.0, 3]),
            TypeError,
            "lax.switch: branches argument should be a sequence of callables.",
        ),
        (
            lambda: lax.switch(1, [lambda x: x], 1.0, operand=2.0),
            TypeError,
            "if 'operand' keyword is passed then no positional operands can be passed",
        ),
    ],
)
def test_argument_errors_are_jaxs(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error and str(info.value).startswith(message)


def branch_error(
    api: str, kind: str, name1: str, f1: Callable, name2: str, f2: Callable, differences: str
) -> str:
    if kind == "structure":
        head = f"{api} branch outputs must have the same pytree structure, but they differ:"
        tail = f"Revise {name1} and/or {name2} so that they have the same pytree structure."
    else:
        head = f"{api} branches must have equal output types but they differ."
        tail = f"Revise {name1} and/or {name2} so that all output types match."
    return f"{head}\n\n{name1} is {source(f1)}\n{name2} is {source(f2)}\n\n{differences}\n{tail}"


TREE_CASES = [  # (true_fun's output, false_fun's output, JAX 0.10.2's description of the difference)
    (
        (1.0, 2.0),
        [1.0, 2.0],
        "true_fun output is a <class 'tuple'> but false_fun output is a <class 'list'>, so their Python types differ.\n",
    ),
    (
        (1.0, 2.0),
        (1.0, 2.0, 3.0),
        "true_fun output is a tuple of length 2 but false_fun output is a tuple of length 3, so the lengths do not "
        "match.\n",
    ),
    (
        {"a": 1.0, "b": 2.0},
        {"a": 1.0, "c": 2.0},
        "true_fun output is a <class 'dict'> with pytree metadata ('a', 'b') but false_fun output is a <class 'dict'> "
        "with pytree metadata ('a', 'c'), so the pytree node metadata does not match.\n",
    ),
    (
        {"a": 1.0, "b": 2.0},
        {"a": 1.0},
        "true_fun output is a <class 'dict'> with 2 children but false_fun output is a <class 'dict'> with 1 child, so "
        "the numbers of children do not match, with the symmetric difference of key sets: {'b'}.\n",
    ),
    (
        ((1.0,), 2.0),
        ((1.0, 3.0), 2.0),
        "true_fun output at path [0] is a tuple of length 1 but false_fun output at path [0] is a tuple of length 2, "
        "so the lengths do not match.\n",
    ),
    (
        (1.0, [2.0]),
        (1.0, 2.0),
        "true_fun output at path [1] is a <class 'list'> but false_fun output at path [1] is a pytree leaf, so their "
        "Python types differ.\n",
    ),
    (
        1.0,
        None,
        "true_fun output is a pytree leaf but false_fun output is a <class 'NoneType'>, so their Python types differ.\n",
    ),
    (
        ([1.0], [2.0]),
        ([1.0, 1.0], 2.0),
        "  * true_fun output at path [0] is a list of length 1 but false_fun output at path [0] is a list of length 2, "
        "so the lengths do not match;\n  * true_fun output at path [1] is a <class 'list'> but false_fun output at "
        "path [1] is a pytree leaf, so their Python types differ.\n",
    ),
]


@pytest.mark.parametrize("out_true, out_false, differences", TREE_CASES)
def test_branch_outputs_of_different_structure_raise_jaxs_error(out_true, out_false, differences):
    true_fun, false_fun = lambda: out_true, lambda: out_false
    with pytest.raises(TypeError) as info:
        lax.cond(True, true_fun, false_fun)
    assert str(info.value) == branch_error(
        "cond", "structure", "true_fun", true_fun, "false_fun", false_fun, differences
    )


TYPE_CASES = [
    (
        lambda: 1.0,
        lambda: 1,
        "The output of true_fun has type float32[] but the corresponding output of false_fun has type int32[], so the "
        "dtypes do not match.\n",
    ),
    (
        lambda: jnp.ones(3),
        lambda: jnp.ones(2, jnp.int32),
        "The output of true_fun has type float32[3] but the corresponding output of false_fun has type int32[2], so the "
        "dtypes do not match, and the shapes do not match.\n",
    ),
    (
        lambda: {"a": jnp.ones(3)},
        lambda: {"a": jnp.ones(2)},
        "The output of true_fun at path ['a'] has type float32[3] but the corresponding output of false_fun has type "
        "float32[2], so the shapes do not match.\n",
    ),
    (
        lambda: (jnp.ones(3), 1.0),
        lambda: (jnp.ones(2, jnp.int32), 1),
        "  * the output of true_fun at path [0] has type float32[3] but the corresponding output of false_fun has type "
        "int32[2], so the dtypes do not match, and the shapes do not match;\n  * the output of true_fun at path [1] has "
        "type float32[] but the corresponding output of false_fun has type int32[], so the dtypes do not match.\n",
    ),
]


@pytest.mark.parametrize("true_fun, false_fun, differences", TYPE_CASES)
def test_branch_outputs_of_different_types_raise_jaxs_error(true_fun, false_fun, differences):
    with pytest.raises(TypeError) as info:
        lax.cond(True, true_fun, false_fun)
    assert str(info.value) == branch_error(
        "cond", "types", "true_fun", true_fun, "false_fun", false_fun, differences
    )


def test_switch_names_branches_as_jax_does():
    branches = [lambda: 1.0, lambda: 2.0, lambda: (3.0,)]
    with pytest.raises(TypeError) as info:
        lax.switch(0, branches)
    differences = (
        "branch 0 output is a pytree leaf but branch2 output is a <class 'tuple'>, so their Python "
        "types differ.\n"
    )
    assert str(info.value) == branch_error(
        "switch", "structure", "branch 0", branches[0], "branch2", branches[2], differences
    )
    branches = [lambda: 1.0, lambda: 2, lambda: 3]
    with pytest.raises(TypeError) as info:
        lax.switch(0, branches)
    differences = (
        "The output of branch 0 has type float32[] but the corresponding output of branch1 has type "
        "int32[], so the dtypes do not match.\n"
    )
    assert str(info.value) == branch_error(
        "switch", "types", "branch 0", branches[0], "branch1", branches[1], differences
    )


def test_a_staged_predicate_cannot_drive_python_control_flow_but_cond_works():
    from didax.errors import TracerBoolConversionError

    with pytest.raises(TracerBoolConversionError):
        make_jaxpr(lambda x: jnp.sin(x) if x > 0 else jnp.cos(x))(1.0)
    checked(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), 1.0)
