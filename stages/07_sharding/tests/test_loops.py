"""The loops of stage 04 (didax/lax/loops.py): while_loop, fori_loop, scan, map and
associative_scan against Python reference loops in NumPy; their JVPs against central finite
differences in float64; their batching against a Python loop over the examples (a batched
while predicate included); the jaxprs they make, which check_jaxpr must accept also after jvp
and vmap; and every error, with JAX's type and message."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax
from didax.core import ShapedArray, trace_state
from didax.errors import ConcretizationTypeError, JaxprTypeError
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, check_jaxpr, eval_jaxpr


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def staged(f: Callable) -> Callable:
    """``f`` run as a jaxpr: make_jaxpr on the arguments, then eval_jaxpr. Bounds passed as
    arguments are not known while staging, so fori_loop takes its while-loop path."""

    def run(*args):
        closed = didax.make_jaxpr(f)(*args)
        check_jaxpr(closed.jaxpr)
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *didax.tree_util.tree_leaves(args))
        return outs[0] if len(outs) == 1 else outs

    return run


def primitives(closed: ClosedJaxpr) -> list[str]:
    return [eqn.primitive.name for eqn in closed.eqns]


def central_difference(f: Callable, x: np.ndarray, v: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """(f(x + eps v) - f(x - eps v)) / 2 eps, in float64."""
    return (np.asarray(f(x + eps * v)) - np.asarray(f(x - eps * v))) / (2 * eps)


def check_jvp(f: Callable, x: np.ndarray, seed: int = 0) -> None:
    """jvp(f) at x in a few random directions equals the central difference (float64)."""
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.normal(size=np.shape(x))
        primal, tangent = didax.jvp(f, (x,), (v,))
        np.testing.assert_allclose(np.asarray(primal), np.asarray(f(x)), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(tangent), central_difference(f, x, v), rtol=1e-6, atol=1e-8)


# --- while_loop against the Python loop ----------------------------------------------------------


def test_while_loop_runs_like_the_python_loop():
    def cond(c):
        return c[0] < 10

    def body(c):
        return c[0] + 1, c[1] * 1.5 + 1.0

    def reference(i, x):
        while i < 10:
            i, x = i + 1, np.float32(x * np.float32(1.5) + np.float32(1.0))
        return i, x

    for start in (0, 3, 10, 12):
        i, x = lax.while_loop(cond, body, (start, np.float32(0.5)))
        want_i, want_x = reference(start, np.float32(0.5))
        assert int(i) == want_i
        np.testing.assert_allclose(np.asarray(x), want_x, rtol=1e-6)


def test_while_loop_on_a_pytree_and_staged():
    def body(c):
        return {"n": c["n"] * 2, "v": (c["v"][0] + c["n"], c["v"][1] - 1.0)}

    init = {"n": np.int32(1), "v": (np.arange(3, dtype=np.float32), np.float32(0.0))}
    out = lax.while_loop(lambda c: c["n"] < 100, body, init)
    n, v0, v1 = 1, np.arange(3, dtype=np.float32), 0.0
    while n < 100:
        n, v0, v1 = n * 2, v0 + n, v1 - 1.0
    assert set(out) == {"n", "v"} and int(out["n"]) == n
    np.testing.assert_array_equal(np.asarray(out["v"][0]), v0)
    assert float(out["v"][1]) == v1
    staged_out = staged(lambda c: lax.while_loop(lambda c: c["n"] < 100, body, c))(init)
    assert int(staged_out[0]) == n  # the flat outputs, in the carry's leaf order


def test_while_loop_that_never_runs_returns_its_input_as_arrays():
    out = lax.while_loop(lambda c: c < 0, lambda c: c + 1, 5)
    assert isinstance(out, didax.Array) and int(out) == 5 and out.weak_type


def test_while_loop_body_closing_over_an_array_passes_it_as_a_constant():
    w = np.arange(1.0, 4.0, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: lax.while_loop(lambda c: c.sum() < 100.0, lambda c: c * w, x))(
        np.ones(3, np.float32)
    )
    (eqn,) = closed.eqns
    assert eqn.params["body_nconsts"] == 1 and eqn.params["cond_nconsts"] == 0
    assert not eqn.params["body_jaxpr"].consts and not eqn.params["body_jaxpr"].jaxpr.constvars
    out = eval_jaxpr(closed.jaxpr, closed.consts, np.ones(3, np.float32))[0]
    c = np.ones(3, np.float32)
    while c.sum() < 100.0:
        c = c * w
    np.testing.assert_array_equal(np.asarray(out), c)


# --- fori_loop -----------------------------------------------------------------------------------


def poly_body(i, x):
    return x * 0.5 + jnp.sin(x) * i


def poly_reference(lower, upper, x):
    for i in range(lower, upper):
        x = x * 0.5 + np.sin(x) * i
    return x


@pytest.mark.parametrize("bounds", [(0, 6), (2, 5), (4, 4), (5, 2)])
def test_fori_loop_with_known_bounds_is_a_scan(bounds):
    x = np.linspace(-1, 1, 4).astype(np.float32)
    out = lax.fori_loop(*bounds, poly_body, x)
    np.testing.assert_allclose(np.asarray(out), poly_reference(*bounds, x), rtol=1e-5, atol=1e-6)
    closed = didax.make_jaxpr(lambda x: lax.fori_loop(*bounds, poly_body, x))(x)
    assert primitives(closed) == ["scan"]
    assert closed.eqns[0].params["length"] == max(bounds[1] - bounds[0], 0)


@pytest.mark.parametrize("bounds", [(0, 6), (2, 5), (5, 2)])
def test_fori_loop_with_traced_bounds_is_a_while_loop(bounds):
    x = np.linspace(-1, 1, 4).astype(np.float32)
    f = lambda lo, hi, x: lax.fori_loop(lo, hi, poly_body, x)  # noqa: E731
    closed = didax.make_jaxpr(f)(*bounds, x)
    assert primitives(closed) == ["while"]
    out = staged(f)(*bounds, x)
    np.testing.assert_allclose(np.asarray(out), poly_reference(*bounds, x), rtol=1e-5, atol=1e-6)


def test_fori_loop_index_dtype_as_in_jax():
    seen = []

    def body(i, x):
        seen.append((i.dtype, i.weak_type))
        return x

    lax.fori_loop(np.int16(0), np.int16(2), body, 0.0)  # known bounds: a Python int index
    didax.make_jaxpr(lambda n: lax.fori_loop(np.int16(0), n, body, 0.0))(np.int16(2))
    didax.make_jaxpr(lambda n: lax.fori_loop(0, n, body, 0.0))(np.int16(2))  # the weak bound follows
    didax.make_jaxpr(lambda n: lax.fori_loop(0, n, body, 0.0))(2)
    assert seen == [(np.int32, True), (np.int16, False), (np.int16, False), (np.int32, True)]


# --- scan ----------------------------------------------------------------------------------------


def scan_reference(f, init, xs, length=None, reverse=False):
    """The Python loop scan stands for, on NumPy arrays (flat: one carry, one xs or None)."""
    n = length if xs is None else len(xs)
    order = range(n - 1, -1, -1) if reverse else range(n)
    carry, ys = init, [None] * n
    for i in order:
        carry, ys[i] = f(carry, None if xs is None else xs[i])
    return carry, np.stack(ys) if n else None


def affine(c, x):
    return c * x[0] + x[1], c * c


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_runs_like_the_python_loop(reverse):
    xs = np.random.default_rng(0).uniform(-1, 1, (7, 2, 3)).astype(np.float32)
    init = np.full(3, 0.5, np.float32)
    carry, ys = lax.scan(affine, init, xs, reverse=reverse)
    want_carry, want_ys = scan_reference(affine, init, xs, reverse=reverse)
    np.testing.assert_allclose(np.asarray(carry), want_carry, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ys), want_ys, rtol=1e-5)
    staged_carry, staged_ys = staged(lambda c, xs: lax.scan(affine, c, xs, reverse=reverse))(init, xs)
    np.testing.assert_allclose(np.asarray(staged_ys), want_ys, rtol=1e-5)


def test_scan_with_length_only_and_no_xs():
    carry, ys = lax.scan(lambda c, x: (c * 2 + 1, c), np.int32(0), length=5)
    want_carry, want_ys = scan_reference(lambda c, x: (c * 2 + 1, c), 0, None, length=5)
    assert int(carry) == want_carry
    np.testing.assert_array_equal(np.asarray(ys), want_ys)
    assert ys.dtype == np.int32


def test_scan_with_pytrees_in_carry_xs_and_ys():
    xs = {
        "a": np.arange(4, dtype=np.float32),
        "b": (np.ones((4, 2), np.float32), np.arange(4, dtype=np.int32)),
    }

    def f(c, x):
        total, count = c
        total = total + x["a"] * x["b"][0]
        return (total, count + x["b"][1]), {"t": total, "none": None}

    (total, count), ys = lax.scan(f, (np.zeros(2, np.float32), np.int32(0)), xs)
    np.testing.assert_array_equal(np.asarray(total), np.full(2, 6.0))
    assert int(count) == 6 and set(ys) == {"t", "none"} and ys["none"] is None
    np.testing.assert_array_equal(np.asarray(ys["t"]), np.cumsum(np.arange(4.0))[:, None] * np.ones(2))


def test_scan_of_length_zero_and_of_no_ys():
    carry, ys = lax.scan(lambda c, x: (c + x, c * x), np.float32(1.0), np.zeros(0, np.float32))
    assert float(carry) == 1.0 and ys.shape == (0,) and ys.dtype == np.float32
    carry, ys = lax.scan(lambda c, x: (c + x, None), np.float32(1.0), np.arange(3, dtype=np.float32))
    assert float(carry) == 4.0 and ys is None


def test_scan_promotes_a_weak_initial_carry_to_the_body_type():
    carry, ys = lax.scan(lambda c, x: (c + x, c), 0, np.arange(3, dtype=np.float32))
    assert carry.dtype == np.float32 and not carry.weak_type and float(carry) == 3.0
    np.testing.assert_array_equal(np.asarray(ys), [0.0, 0.0, 1.0])


@pytest.mark.parametrize("unroll", [1, 2, 3, True, False, 0])
def test_scan_unroll_does_not_change_the_result(unroll):
    xs = np.arange(5, dtype=np.float32)
    carry, ys = lax.scan(lambda c, x: (c * 0.5 + x, c), np.float32(1.0), xs, unroll=unroll)
    want_carry, want_ys = scan_reference(lambda c, x: (c * 0.5 + x, c), np.float32(1.0), xs)
    np.testing.assert_allclose(np.asarray(ys), want_ys)
    closed = didax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs, unroll=unroll))(xs)
    assert closed.eqns[0].params["unroll"] == (5 if unroll is True else 1 if unroll is False else unroll)


# --- map -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [None, 0, 1, 2, 3, 7, 10])
def test_map_with_and_without_batch_size(batch_size):
    xs = {"x": np.arange(7 * 2, dtype=np.float32).reshape(7, 2), "k": np.arange(7, dtype=np.int32)}
    f = lambda d: (jnp.sin(d["x"]) * d["k"], d["k"] * 2)  # noqa: E731
    ys = lax.map(f, xs, batch_size=batch_size)
    want = [f({"x": xs["x"][i], "k": xs["k"][i]}) for i in range(7)]
    np.testing.assert_allclose(np.asarray(ys[0]), np.stack([np.asarray(w[0]) for w in want]), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(ys[1]), 2 * np.arange(7))


# --- associative_scan ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 9])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_add_is_cumsum(n, reverse):
    x = np.random.default_rng(n).integers(-5, 5, (n, 3)).astype(np.int32)
    got = lax.associative_scan(lax.add, x, reverse=reverse)
    want = np.flip(np.cumsum(np.flip(x, 0), 0), 0) if reverse else np.cumsum(x, 0)
    np.testing.assert_array_equal(np.asarray(got), want)


def compose(f, g):
    """Affine maps x -> a x + b as pairs: ``f`` then ``g``. Associative, not commutative."""
    (a1, b1), (a2, b2) = f, g
    return a1 * a2, b1 * a2 + b2


@pytest.mark.parametrize("n", [1, 4, 7])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_a_non_commutative_fn(n, axis, reverse):
    rng = np.random.default_rng(n)
    shape = [2, 3]
    shape.insert(axis % 3, n)
    a, b = rng.uniform(0.5, 1.5, shape), rng.uniform(-1, 1, shape)
    got_a, got_b = lax.associative_scan(compose, (a.astype(np.float32), b.astype(np.float32)), reverse, axis)
    # Reference: the running composition along the axis, from its end when reverse.
    ax = axis % 3
    a_m, b_m = np.moveaxis(a, ax, 0), np.moveaxis(b, ax, 0)
    order = range(n - 1, -1, -1) if reverse else range(n)
    want_a, want_b, acc = np.empty_like(a_m), np.empty_like(b_m), None
    for i in order:
        acc = (a_m[i], b_m[i]) if acc is None else compose(acc, (a_m[i], b_m[i]))
        want_a[i], want_b[i] = acc
    np.testing.assert_allclose(np.asarray(got_a), np.moveaxis(want_a, 0, ax), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got_b), np.moveaxis(want_b, 0, ax), rtol=1e-5, atol=1e-6)


def test_associative_scan_is_no_primitive():
    closed = didax.make_jaxpr(lambda x: lax.associative_scan(lax.add, x))(np.ones(5, np.float32))
    assert not {"scan", "while"} & set(primitives(closed))


# --- JVP against central finite differences ------------------------------------------------------


def test_jvp_of_scan(x64):
    xs = np.random.default_rng(1).uniform(-1, 1, (6, 3))

    def f(params):
        w, b = params[:3], params[3]

        def step(c, x):
            c = jnp.tanh(c * w + x * b)
            return c, c.sum() * b

        carry, ys = lax.scan(step, jnp.ones(3), xs)
        return jnp.concatenate([carry, ys])

    check_jvp(f, np.array([0.3, -0.2, 0.5, 0.7]))


def test_jvp_of_reverse_scan_through_xs(x64):
    check_jvp(
        lambda xs: lax.scan(lambda c, x: (c * jnp.sin(x) + x, c * x), 1.0, xs, reverse=True)[1],
        np.linspace(0.1, 1.0, 5),
    )


def test_jvp_of_fori_loop_with_a_known_trip_count(x64):
    check_jvp(lambda x: lax.fori_loop(0, 5, poly_body, x), np.linspace(-1, 1, 3))


def test_jvp_of_fori_loop_with_a_traced_trip_count(x64):
    closed = didax.make_jaxpr(lambda x, n: lax.fori_loop(0, n, poly_body, x))(np.zeros(3), 5)
    assert primitives(closed) == ["while"]
    f = lambda x: eval_jaxpr(closed.jaxpr, closed.consts, x, 5)[0]  # noqa: E731
    check_jvp(f, np.linspace(-1, 1, 3))
    np.testing.assert_allclose(
        np.asarray(f(np.linspace(-1, 1, 3))), poly_reference(0, 5, np.linspace(-1, 1, 3))
    )


def test_jvp_of_while_loop_whose_tangent_reaches_a_carry_through_the_body(x64):
    # The tangent of y enters through a constant of the body: the carry `acc` starts with a
    # zero tangent and gets one from the second iteration on (the fixed point of the rule).
    def f(y):
        def body(c):
            i, acc, z = c
            return i + 1, acc * y[0] + jnp.sin(z), z * y[1]

        return lax.while_loop(lambda c: c[0] < 6, body, (0, 1.0, 0.5))[1:]

    check_jvp(lambda y: jnp.stack(f(y)), np.array([0.9, 1.1]))


def test_jvp_of_while_loop_whose_predicate_reads_the_differentiated_carry(x64):
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 1.5 + 0.1, x)  # noqa: E731
    check_jvp(f, np.array(0.7))


# --- vmap against a Python loop over the examples --------------------------------------------------


def loop_over(f: Callable, *args, in_axes) -> list[np.ndarray]:
    """The oracle: f on each example, stacked (each output a list element)."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(size):
        out = f(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)])
        outs.append([np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))])
    return [np.stack(column) for column in zip(*outs)]


def check_vmap(f: Callable, *args, in_axes) -> None:
    got = didax.vmap(f, in_axes=in_axes)(*args)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, loop_over(f, *args, in_axes=in_axes)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)
    closed = didax.make_jaxpr(didax.vmap(f, in_axes=in_axes))(*args)
    check_jaxpr(closed.jaxpr)


def countdown(limit, x):
    """A while loop whose trip count depends on ``limit``: batched, its predicate is batched."""
    return lax.while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1.0, c[1] * x + 1.0), (0.0, 1.0))


def test_vmap_of_while_with_a_batched_predicate():
    limits = np.array([0.0, 3.0, 1.0, 5.0], np.float32)
    check_vmap(countdown, limits, np.float32(0.9), in_axes=(0, None))
    check_vmap(countdown, limits, np.linspace(0.5, 1.5, 4).astype(np.float32), in_axes=(0, 0))
    closed = didax.make_jaxpr(didax.vmap(countdown, (0, None)))(limits, np.float32(0.9))
    (eqn,) = [e for e in closed.eqns if e.primitive is lax.while_p]
    assert eqn.params["cond_jaxpr"].out_avals[0].shape == (4,)  # one predicate per example


def test_vmap_of_while_with_a_shared_predicate_and_a_batched_carry():
    check_vmap(countdown, np.float32(3.0), np.linspace(0.5, 1.5, 4).astype(np.float32), in_axes=(None, 0))


def test_nested_vmap_of_while_with_batched_predicates():
    limits = np.array([[0.0, 2.0, 4.0], [3.0, 1.0, 0.0]], np.float32)
    xs = np.array([1.5, 0.5], np.float32)
    inner = didax.vmap(countdown, in_axes=(0, None))
    for in_axes in [(0, 0), (1, None), (0, None)]:
        check_vmap(inner, limits, xs if in_axes[1] is not None else np.float32(0.7), in_axes=in_axes)
    # The outer vmap batches only a carry: the inner predicate's axis must stay first.
    check_vmap(inner, limits[0], xs, in_axes=(None, 0))
    check_vmap(inner, limits[0], np.linspace(0.5, 1.5, 3).astype(np.float32), in_axes=(None, 0))


def test_vmap_of_fori_loop_with_a_batched_trip_count():
    f = lambda n, x: lax.fori_loop(0, n, poly_body, x)  # noqa: E731
    check_vmap(f, np.array([0, 3, 1, 6], np.int32), np.linspace(-1, 1, 4).astype(np.float32), in_axes=(0, 0))


def test_vmap_of_scan_with_batched_xs_and_unbatched_carry():
    xs = np.random.default_rng(2).uniform(-1, 1, (3, 5, 2, 3)).astype(np.float32)
    init = np.full(3, 0.5, np.float32)
    check_vmap(lambda c, xs: lax.scan(affine, c, xs), init, xs, in_axes=(None, 0))
    check_vmap(
        lambda c, xs: lax.scan(affine, c, xs, reverse=True), init, np.moveaxis(xs, 0, 2), in_axes=(None, 2)
    )


def test_vmap_of_scan_with_batched_carry_and_unbatched_xs():
    xs = np.random.default_rng(3).uniform(-1, 1, (5, 2, 3)).astype(np.float32)
    inits = np.random.default_rng(4).uniform(-1, 1, (3, 4)).astype(np.float32)
    check_vmap(lambda c, xs: lax.scan(affine, c, xs), inits, xs, in_axes=(1, None))


def test_vmap_of_scan_with_a_batched_constant():
    ws = np.linspace(0.5, 1.5, 4).astype(np.float32)
    f = lambda w, xs: lax.scan(lambda c, x: (c * w + x, c + w), 0.0, xs)  # noqa: E731
    check_vmap(f, ws, np.arange(5, dtype=np.float32), in_axes=(0, None))


def test_vmap_of_map_and_map_of_vmap():
    xs = np.arange(12, dtype=np.float32).reshape(3, 4)
    check_vmap(lambda x: lax.map(jnp.sin, x), xs, in_axes=(1,))
    got = lax.map(didax.vmap(jnp.cos), xs, batch_size=2)
    np.testing.assert_allclose(np.asarray(got), np.cos(xs), rtol=1e-6)


def test_jvp_and_vmap_of_a_while_loop_compose(x64):
    limits = np.array([1.0, 4.0, 2.0])
    f = lambda x: didax.vmap(countdown, (0, None))(limits, x)[1]  # noqa: E731
    check_jvp(f, np.array(0.8))

    def tangent_at(limit):
        return didax.jvp(lambda x: countdown(limit, x)[1], (0.8,), (1.0,))[1]

    per_example = didax.vmap(tangent_at)(limits)
    want = [tangent_at(limit) for limit in limits]
    np.testing.assert_allclose(np.asarray(per_example), np.asarray(want), rtol=1e-12)


# --- jaxprs: printed nested, and well typed after every transformation -----------------------------

WHILE_JAXPR = """\
{ lambda ; a:f32[]. let
    b:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:i32[] f:f32[]. let
          g:i32[] = add e 1:i32[]
          h:f32[] = mul f d
        in (g, h) }
      body_nconsts=1
      cond_jaxpr={ lambda ; i:i32[] j:f32[]. let
          k:bool[] = lt i 10:i32[]
        in (k,) }
      cond_nconsts=0
    ] a 0:i32[] a
  in (b, c) }"""

SCAN_JAXPR = """\
{ lambda ; a:f32[] b:f32[3]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[] g:f32[]. let
          h:f32[] = mul f g
          i:f32[] = add h e
          j:f32[] = mul f 2.0:f32[]
        in (i, j) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a a b
  in (c, d) }"""


def test_printed_while_nests_its_jaxprs_as_jax_prints_them():
    # The text JAX 0.10.2 prints for the same function.
    f = lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * x), (0, x))  # noqa: E731
    assert str(didax.make_jaxpr(f)(np.float32(2.0))) == WHILE_JAXPR


def test_printed_scan_nests_its_jaxpr_as_jax_prints_it():
    f = lambda x, xs: lax.scan(lambda c, a: (lax.add(lax.mul(c, a), x), c * 2), x, xs)  # noqa: E731
    assert str(didax.make_jaxpr(f)(np.float32(2.0), np.ones(3, np.float32))) == SCAN_JAXPR


LOOPS = {
    "while": lambda x: countdown(x[0], x[1])[1],
    "scan": lambda x: lax.scan(lambda c, a: (jnp.sin(c) * a, c + a), x[0], x)[1],
    "fori": lambda x: lax.fori_loop(0, 3, poly_body, x),
    "map": lambda x: lax.map(jnp.exp, x, batch_size=2),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_check_jaxpr_accepts_the_loops_after_jvp_and_vmap(name):
    f, x = LOOPS[name], np.array([2.0, 0.9, 0.3], np.float32)
    for g, arg in [
        (f, x),
        (lambda x: didax.jvp(f, (x,), (jnp.ones_like(x),)), x),
        (didax.vmap(f), np.stack([x, x * 0.5])),
        (didax.vmap(lambda x: didax.jvp(f, (x,), (x,))), np.stack([x, x * 0.5])),
        (lambda x: didax.jvp(didax.vmap(f), (x,), (x,)), np.stack([x, x * 0.5])),
    ]:
        closed = didax.make_jaxpr(g)(arg)
        check_jaxpr(closed.jaxpr)
        flat = eval_jaxpr(closed.jaxpr, closed.consts, arg)
        direct = didax.tree_util.tree_leaves(g(arg))
        for a, b in zip(flat, direct):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
        for eqn in closed.eqns:
            for sub in ("body_jaxpr", "cond_jaxpr", "jaxpr"):
                if sub in eqn.params:  # consts are always hoisted into operands
                    assert not eqn.params[sub].consts


def test_check_jaxpr_rejects_a_while_whose_body_changes_the_carry_type():
    body = didax.make_jaxpr(lambda c: lax.convert_element_type(c, np.int32))(np.float32(0))
    cond = didax.make_jaxpr(lambda c: c < 1.0)(np.float32(0))
    a, b = Var(ShapedArray((), np.float32)), Var(ShapedArray((), np.int32))
    eqn = JaxprEqn(
        lax.while_p, (a,), (b,), dict(cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=0, body_nconsts=0)
    )
    with pytest.raises(JaxprTypeError, match="while"):
        check_jaxpr(Jaxpr((), [a], [b], [eqn]))


def test_check_jaxpr_rejects_a_scan_given_too_short_xs():
    closed = didax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs))(np.ones(3, np.float32))
    (eqn,) = closed.eqns
    xs = Var(ShapedArray((2,), np.float32))
    bad = eqn._replace(invars=(eqn.invars[0], xs))
    with pytest.raises(JaxprTypeError, match="scan of length 3"):
        check_jaxpr(Jaxpr((), [xs], bad.outvars, [bad]))


def test_eval_shape_of_a_scan():
    out = didax.eval_shape(
        lambda xs: lax.scan(lambda c, x: (c + x, (c, x * 2)), jnp.zeros(2), xs), np.ones((5, 2), np.float32)
    )
    assert out[0].shape == (2,) and out[1][0].shape == (5, 2) and out[1][1].dtype == np.float32


# --- errors, with JAX's types and messages ---------------------------------------------------------

CARRY_TYPES = "carry input and carry output must have equal types, but they differ:\n\n"
REVISE_TYPES = "\nRevise the function so that all output types match the corresponding input types."
CARRY_TREE = "carry input and carry output must have the same pytree structure, but they differ:\n\n"
REVISE_TREE = (
    "\nRevise the function so that the carry output has the same pytree structure as the carry input."
)


def raises(error: type[Exception], message: str):
    return pytest.raises(error, match="^" + re.escape(message) + "$")


def test_while_loop_errors():
    with raises(TypeError, "lax.while_loop: body_fun and cond_fun arguments should be callable."):
        lax.while_loop(1, lambda x: x, 0.0)
    with raises(TypeError, "cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *))."):
        lax.while_loop(lambda x: (x < 1, x < 2), lambda x: x, 0.0)
    with raises(TypeError, "cond_fun must return a boolean scalar, but got output type(s) "
                           "[ShapedArray(float32[], weak_type=True)]."):  # fmt: skip
        lax.while_loop(lambda x: x, lambda x: x, 0.0)
    with raises(
        TypeError, "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(bool[2])]."
    ):
        lax.while_loop(lambda x: x < 1, lambda x: x, jnp.zeros(2))

    def body(carry):
        return carry.astype(np.int32)

    with raises(TypeError, "while_loop body function " + CARRY_TYPES + "The input carry carry has type float32[] but "
                "the corresponding output carry component has type int32[], so the dtypes do not match.\n"
                + REVISE_TYPES):  # fmt: skip
        lax.while_loop(lambda x: x < 1, body, np.float32(0))
    with raises(TypeError, "while_loop body function " + CARRY_TYPES + "The input carry x has type float32[2] but "
                "the corresponding output carry component has type int32[3], so the dtypes do not match, and the "
                "shapes do not match.\n" + REVISE_TYPES):  # fmt: skip
        lax.while_loop(lambda x: x.sum() < 1, lambda x: jnp.zeros(3, np.int32), jnp.zeros(2))
    with raises(TypeError, "while_loop body function " + CARRY_TYPES
                + "  * the input carry component x[0] has type float32[] but the corresponding output carry component "
                "has type int32[], so the dtypes do not match;\n"
                "  * the input carry component x[1] has type float32[] but the corresponding output carry component "
                "has type int32[], so the dtypes do not match.\n" + REVISE_TYPES):  # fmt: skip
        lax.while_loop(lambda x: x[0] < 1, lambda x: (x[0].astype(np.int32), x[1].astype(np.int32)),
                       (np.float32(0), np.float32(1)))  # fmt: skip


def test_while_loop_carry_structure_errors():
    with raises(TypeError, "while_loop body function " + CARRY_TREE + "The input carry x is a tuple of length 2 but "
                "the corresponding component of the carry output is a tuple of length 1, so the lengths do not "
                "match.\n" + REVISE_TREE):  # fmt: skip
        lax.while_loop(lambda x: x[0] < 1, lambda x: (x[0],), (0.0, 1.0))
    with raises(TypeError, "while_loop body function " + CARRY_TREE + "The input carry x is a <class 'tuple'> but the "
                "corresponding component of the carry output is a <class 'list'>, so their Python types differ.\n"
                + REVISE_TREE):  # fmt: skip
        lax.while_loop(lambda x: x[0] < 1, lambda x: [x[0], x[1]], (0.0, 1.0))
    with raises(TypeError, "while_loop body function " + CARRY_TREE + "The input carry c is a <class 'dict'> with "
                "pytree metadata ('a', 'c') but the corresponding component of the carry output is a <class 'dict'> "
                "with pytree metadata ('a', 'b'), so the pytree node metadata does not match.\n"
                + REVISE_TREE):  # fmt: skip
        lax.while_loop(lambda c: c["a"] < 1, lambda c: {"a": c["a"], "b": c["a"]}, {"a": 0.0, "c": 1.0})
    with raises(TypeError, "scan body function " + CARRY_TREE + "The input carry c is a <class 'dict'> with 2 children "
                "but the corresponding component of the carry output is a <class 'dict'> with 1 child, so the numbers "
                "of children do not match, with the symmetric difference of key sets: {'b'}.\n"
                + REVISE_TREE):  # fmt: skip
        lax.scan(lambda c, x: ({"a": c["a"]}, x), {"a": 0.0, "b": 1.0}, jnp.ones(3))
    with raises(TypeError, "scan body function " + CARRY_TREE + "the input tree structure is:\nPyTreeDef(())\n"
                "the output tree structure is:\nPyTreeDef(None)\n" + REVISE_TREE):  # fmt: skip
        lax.scan(lambda c, x: (None, x), (), jnp.ones(3))


def test_scan_errors():
    with raises(TypeError, "lax.scan: f argument should be a callable."):
        lax.scan(1, 0.0, jnp.ones(3))
    with raises(TypeError, "scan body output must be a pair, got ~float32[]."):
        lax.scan(lambda c, x: c, 0.0, jnp.ones(3))
    with raises(TypeError, "scan body output must be a pair, got (ShapedArray(float32[], weak_type=True), "
                           "ShapedArray(float32[]), ShapedArray(float32[]))."):  # fmt: skip
        lax.scan(lambda c, x: (c, x, x), 0.0, jnp.ones(3))
    with raises(TypeError, "scan body function " + CARRY_TYPES + "The input carry c has type float32[] but the "
                "corresponding output carry component has type int32[], so the dtypes do not match.\n"
                + REVISE_TYPES):  # fmt: skip
        lax.scan(lambda c, x: (c.astype(np.int32), x), np.float32(0), jnp.ones(3))
    with raises(ValueError, "scan got values with different leading axis sizes: 3, 4."):
        lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))
    with raises(ValueError, "scan got `length` argument of 4 which disagrees with leading axis sizes [3]."):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), length=4)
    with raises(ValueError, "scan got no values to scan over and `length` not provided."):
        lax.scan(lambda c, x: (c, x), 0.0)
    with raises(ValueError, "scan got value with no leading axis to scan over: 1.0."):
        lax.scan(lambda c, x: (c, x), 0.0, 1.0)
    with raises(ValueError, "`unroll` must be a `bool` or a non-negative `int`."):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), unroll=-1)
    with pytest.raises(ValueError, match="negative `length`"):
        lax.scan(lambda c, x: (c, x), 0.0, length=-1)


def test_scan_length_and_unroll_must_be_known():
    with pytest.raises(ConcretizationTypeError, match=re.escape(
            "The `length` argument to `scan` expects a concrete `int` value. For scan-like iteration with a dynamic "
            "length, use `while_loop` or `fori_loop`.")):  # fmt: skip
        didax.make_jaxpr(lambda n: lax.scan(lambda c, x: (c, x), 0.0, None, length=n))(3)
    with pytest.raises(ConcretizationTypeError, match="The `unroll` argument to `scan` expects a concrete"):
        didax.make_jaxpr(lambda n: lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), unroll=n))(3)


def test_fori_loop_errors():
    with raises(TypeError, "lax.fori_loop: body_fun argument should be callable."):
        lax.fori_loop(0, 3, 1, 0.0)
    with raises(
        TypeError, "lower and upper arguments to fori_loop must have equal types, got int32 and int16"
    ):
        lax.fori_loop(np.int32(0), np.int16(3), lambda i, c: c, 0.0)
    with raises(
        TypeError, "lower and upper arguments to fori_loop must have equal types, got int32 and float32"
    ):
        lax.fori_loop(np.int32(0), 3.0, lambda i, c: c, 0.0)
    with raises(ValueError, "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."):
        didax.make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: c, 0.0, unroll=2))(3)
    with raises(TypeError, "scan body function " + CARRY_TYPES + "The input carry component loop_carry[1] has type "
                "float32[] but the corresponding output carry component has type int32[], so the dtypes do not match.\n"
                + REVISE_TYPES):  # fmt: skip
        lax.fori_loop(0, 3, lambda i, c: i, 0.0)
    with raises(TypeError, "while_loop body function " + CARRY_TYPES + "The input carry component loop_carry[2] has "
                "type float32[] but the corresponding output carry component has type int32[], so the dtypes do not "
                "match.\n" + REVISE_TYPES):  # fmt: skip
        didax.make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: i, 0.0))(3)


def test_map_and_associative_scan_errors():
    with raises(ValueError, "scan got values with different leading axis sizes: 3, 4."):
        lax.map(lambda x: x, (jnp.ones(3), jnp.ones(4)))
    with raises(TypeError, "lax.associative_scan: fn argument should be callable."):
        lax.associative_scan(1, jnp.ones(3))
    with raises(ValueError, "Array inputs to associative_scan must have the same first dimension. "
                            "(saw: [(3,), (4,)])"):  # fmt: skip
        lax.associative_scan(lambda a, b: a, (jnp.ones(3), jnp.ones(4)))
    with raises(ValueError, "axis 1 is out of bounds for array of dimension 1"):
        lax.associative_scan(lax.add, jnp.ones(3), axis=1)


def test_a_failed_loop_leaves_no_state_behind():
    with pytest.raises(TypeError):
        lax.while_loop(lambda x: x < 1, lambda x: x.astype(np.int32), np.float32(0))
    with pytest.raises(ZeroDivisionError):
        lax.scan(lambda c, x: (c + 1 // 0, x), 0.0, jnp.ones(3))
    assert len(trace_state.trace_stack) == 1 and trace_state.dynamic_trace is trace_state.eval_trace
    assert int(lax.fori_loop(0, 3, lambda i, c: c + i, 0)) == 3
