"""Control flow compiled by XLA (cond -> stablehlo.case, while and scan -> stablehlo.while) and
the slicing rules loops lean on, compared with eager evaluation."""

import numpy as np
import pytest
from lowering_harness import check_compiled as check_flat
from lowering_harness import run_compiled

import didax
import didax.numpy as jnp
from didax import lax, xla
from didax.lowering import lower_module



def check_compiled(f, *args, **tols):
    """check_flat of ``f``'s outputs flattened: the loops here return nested pytrees."""
    check_flat(lambda *a: tuple(didax.tree_util.tree_leaves(f(*a))), *args, **tols)


rng = np.random.default_rng(1)
X = jnp.asarray(rng.normal(size=(5, 3)).astype(np.float32))
BRANCHES = [lambda a, b: (a + b, b), lambda a, b: (a * b, b - 1), lambda a, b: (jnp.sin(a), b * 2)]


@pytest.mark.parametrize("index", [-4, -1, 0, 1, 2, 3, 100])
def test_switch_clamps_index_like_eager(index):
    check_compiled(lambda i, x: lax.switch(i, BRANCHES, x, jnp.int32(3)), jnp.int32(index), X)


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 5])
def test_cond_primitive_out_of_range_index_picks_last_branch(index):
    # switch clamps before binding; cond_p itself must still treat a bad index as XLA does
    branches = tuple(didax.make_jaxpr(lambda x, k=k: x * k)(X) for k in (1.0, 2.0, 3.0))
    check_compiled(lambda i, x: lax.cond_p.bind(i, x, branches=branches)[0], jnp.int32(index), X)


def test_cond_on_predicate_and_number():
    f = lambda p, x: lax.cond(p, lambda a: jnp.sum(a, 0), lambda a: jnp.max(a, 0), x)  # noqa: E731
    for p in (True, False):
        check_compiled(f, jnp.asarray(p), X)
    check_compiled(lambda n, x: lax.cond(n, lambda a: a + 1, lambda a: a - 1, x), jnp.float32(0.5), X)


def test_fori_loop_static_and_dynamic_bounds():
    check_compiled(lambda x: lax.fori_loop(0, 4, lambda i, c: c * 0.5 + i, x), X)
    check_compiled(lambda n, x: lax.fori_loop(1, n, lambda i, c: c + i * c[0], x), jnp.int32(4), X[0])


def test_while_loop_data_dependent_trip_count():
    def collatz(n):
        step = lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1)  # noqa: E731
        return lax.while_loop(lambda c: c[0] != 1, step, (n, 0))

    for n in (1, 6, 27):
        check_compiled(collatz, jnp.int32(n))
    # the loop's constants: arrays closed over by the condition and the body
    limit = jnp.asarray(np.float32(50.0))
    grow = lambda x: lax.while_loop(lambda c: jnp.sum(c) < limit, lambda c: c * 1.5 + X[0], x)  # noqa: E731
    check_compiled(grow, jnp.abs(X[1]))


def test_while_loop_under_vmap_runs_each_example_its_own_count():
    def loop(x):
        return lax.while_loop(lambda c: c[0] < 100.0, lambda c: (c[0] * 2 + 1, c[1] + 1), (x, 0))

    f = didax.vmap(loop)
    check_compiled(f, jnp.asarray(np.array([0.0, 3.0, 40.0, 200.0], np.float32)))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_with_xs_and_ys(reverse):
    def f(c, x):
        row, first = x
        return (c[0] + first, c[1] * 2), (row * c[0], jnp.sum(row) > 0)

    check_compiled(lambda xs: lax.scan(f, (jnp.zeros(()), 1), (xs, xs[:, 0]), reverse=reverse), X)


def test_scan_length_only_consts_and_zero_length():
    w = jnp.asarray(rng.normal(size=(3, 3)).astype(np.float32))
    check_compiled(lambda c: lax.scan(lambda c, _: (jnp.tanh(c @ w), c), c, None, length=4), X[0], rtol=1e-5)
    check_compiled(lambda xs: lax.scan(lambda c, x: (c + x, x * 2), jnp.zeros(3), xs), X[:0])


def test_map_and_associative_scan():
    check_compiled(lambda x: lax.map(lambda r: (jnp.max(r), r[::-1]), x), X)
    check_compiled(lambda x: lax.map(lambda r: r * 2, x, batch_size=2), X)
    for reverse in (False, True):
        check_compiled(lambda x: lax.associative_scan(jnp.add, x, reverse=reverse), X, rtol=1e-6, atol=1e-6)
        check_compiled(lambda x: lax.associative_scan(jnp.maximum, x, reverse=reverse, axis=1), X)


def test_nested_control_flow():
    def f(x):
        def body(i, c):
            step = lambda v: (v[0] + lax.cond(v[1] % 2 == 0, jnp.sin, jnp.cos, v[0]), v[1] + 1)  # noqa: E731
            inner = lax.while_loop(lambda v: v[1] < i, step, (c, 0))[0]
            _, ys = lax.scan(lambda s, r: (s + r, s * r), inner, x)
            return ys[-1]

        return lax.fori_loop(0, 3, body, x[0])

    check_compiled(f, X, rtol=1e-5)


def test_slicing_rules():
    check_compiled(lambda x: (x[1:4:2], x[::-1], lax.rev(x, (0, 1)), jnp.concatenate([x, x * 2], 1),
                              jnp.squeeze(x[:1], 0), lax.pad(x, 0.5, [(1, -1, 1), (0, 2, 0)])), X)  # fmt: skip
    dynamic = lambda x, i: (lax.dynamic_slice(x, (i, jnp.int32(1)), (2, 2)),  # noqa: E731
                            lax.dynamic_update_slice(x, jnp.ones((2, 1)), (i, np.int64(9))))  # mixed types
    check_compiled(dynamic, X, jnp.int32(4))


def test_sort_orders_nan_and_signed_zero_like_eager():
    v = jnp.asarray(np.array([3.0, -0.0, 0.0, np.nan, -np.inf, 1.0, -np.nan, 2.0], np.float32))
    check_compiled(lambda v: (jnp.sort(v), jnp.argsort(v), jnp.argsort(v, descending=True)), v)
    ints = jnp.asarray(rng.integers(-5, 5, size=(4, 6)).astype(np.int32))
    check_compiled(lambda a: (jnp.sort(a, 0), lax.sort((a, a * 2, -a), 1, num_keys=2)), ints)
    c = jnp.asarray(np.array([1 + 2j, 1 - 1j, -1 + 0j, 0j], np.complex64))
    check_compiled(jnp.sort, c)


def test_case_and_while_appear_in_the_text():
    def f(i, x):
        return lax.switch(i, [jnp.sin, jnp.cos], lax.fori_loop(0, i, lambda k, c: c + k, x))

    closed = didax.make_jaxpr(f)(jnp.int32(0), X)
    text = xla.pretty(lower_module("f", closed))
    assert "stablehlo.case" in text and "stablehlo.while" in text
    (out,) = run_compiled(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos], x), jnp.int32(1), X)
    np.testing.assert_allclose(out, np.cos(np.asarray(X)), rtol=1e-6)
