"""Collectives under vmap with an axis name: every one against real JAX's ``jax.vmap(...,
axis_name=...)`` on the same inputs (values, shapes, dtypes), nested vmaps with two names, the
errors (types and messages), derivatives, jit around vmap, and the axis environment's upkeep."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from jax import lax as lax_ref

import didax
import didax.numpy as jnp
from didax import lax
from didax.core import trace_state

X = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2], np.float32).reshape(4, 4)  # the note's data
RING = [(0, 1), (1, 2), (2, 3), (3, 0)]


def both(make: Callable, *args: np.ndarray, nested: bool = False) -> None:
    """``make(lax)`` built with didax's lax and with JAX's, vmapped over 'i' (and 'j' inside, if
    ``nested``), gives the same values, shape and dtype on ``args``."""
    def mapped(api, lax_module):
        f = make(lax_module)
        if nested:
            f = api.vmap(f, axis_name="j")
        return api.vmap(f, axis_name="i")

    ours = np.asarray(mapped(didax, lax)(*args))
    theirs = np.asarray(jax.jit(mapped(jax, lax_ref))(*args))  # one compile: quicker than JAX's eager ops
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@pytest.mark.parametrize("name", ["psum", "pmean", "pmax", "pmin"])
def test_reductions_across_the_batch_match_jax(name):
    both(lambda L: lambda v: getattr(L, name)(v, "i"), X)
    both(lambda L: lambda v: getattr(L, name)(v, "i"), X.astype(np.int32))


@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": -1}, {"tiled": True}, {"axis": 1, "tiled": True}])
def test_all_gather_matches_jax(kwargs):
    if kwargs.get("axis") != 1 or not kwargs.get("tiled"):  # a tiled gather needs that axis
        both(lambda L: lambda v: L.all_gather(v, "i", **kwargs), X)
    both(lambda L: lambda v: L.all_gather(v, "i", **kwargs), np.arange(4 * 2 * 3, dtype=np.float32).reshape(4, 2, 3))


@pytest.mark.parametrize("shape, dim, tiled", [((4, 4), 0, False), ((4, 4, 6), 0, False), ((4, 6, 4), 1, False),
                                                ((4, 4), 0, True), ((4, 8, 6), 0, True), ((4, 6, 8), 1, True)])
def test_psum_scatter_matches_jax(shape, dim, tiled):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    both(lambda L: lambda v: L.psum_scatter(v, "i", scatter_dimension=dim, tiled=tiled), x)


@pytest.mark.parametrize("shape, split, concat, tiled", [
    ((4, 4), 0, 0, False), ((4, 4, 6), 0, 1, False), ((4, 6, 4), 1, 0, False),
    ((4, 4, 6), 0, 1, True), ((4, 8, 6), 0, 1, True), ((4, 6, 8), 1, 0, True), ((4, 6, 8), 1, 1, True),
])  # fmt: skip
def test_all_to_all_matches_jax(shape, split, concat, tiled):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    both(lambda L: lambda v: L.all_to_all(v, "i", split, concat, tiled=tiled), x)


def test_ppermute_pshuffle_and_axis_index_match_jax():
    both(lambda L: lambda v: L.ppermute(v, "i", RING), X)
    both(lambda L: lambda v: L.ppermute(v * 2, "i", [(0, 2), (2, 0), (1, 3), (3, 1)]), X)
    both(lambda L: lambda v: L.pshuffle(v, "i", [2, 0, 3, 1]), X)
    both(lambda L: lambda v: L.axis_index("i") + 0 * v.astype(np.int32), X)


def test_constants_and_unbatched_values_count_once_per_example():
    both(lambda L: lambda v: L.psum(1, "i") + 0 * v, X)  # the axis size
    both(lambda L: lambda v: v + L.psum(2.5, "i"), X)
    both(lambda L: lambda v: L.psum(v > 2, "i"), X)  # bools are summed as int32
    both(lambda L: lambda v: L.pmean(v, "i") * L.pmax(3.0, "i") + L.axis_size("i"), X)
    tree = didax.vmap(lambda v: lax.psum([v, (v * 2, 1)], "i"), axis_name="i")(X[:, 0])
    np.testing.assert_array_equal(tree[1][0], np.full(4, X[:, 0].sum() * 2))
    np.testing.assert_array_equal(tree[1][1], np.full(4, 4))


def test_nested_vmaps_with_two_names_match_jax():
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    for make in [lambda L: lambda v: L.psum(v, ("i", "j")), lambda L: lambda v: L.psum(v, "j"),
                 lambda L: lambda v: L.psum(v, "i"), lambda L: lambda v: L.pmax(v, ["j", "i"]),
                 lambda L: lambda v: L.axis_index(("i", "j")), lambda L: lambda v: L.all_gather(v, "i"),
                 lambda L: lambda v: L.ppermute(v, "i", [(0, 1), (1, 0)]),
                 lambda L: lambda v: L.psum(1, ("i", "j")) * v]:  # fmt: skip
        both(make, a, nested=True)
    b = np.arange(2 * 4 * 4, dtype=np.float32).reshape(2, 4, 4)  # the inner vmap's collectives, per example of 'i'
    both(lambda L: lambda v: L.all_to_all(v, "j", 0, 0), b, nested=True)
    both(lambda L: lambda v: L.psum_scatter(v, "j", tiled=True), b, nested=True)


def test_array_axes_of_psum():
    np.testing.assert_array_equal(lax.psum(X, 0), X.sum(0))
    both(lambda L: lambda v: L.psum(v, ("i", 0)), X)


# --- derivatives ---------------------------------------------------------------------------------


def both_grads(make: Callable, x: np.ndarray) -> None:
    """vmap of grad, and vmap of jvp, of ``make(lax)`` agree with JAX's."""
    for api, L, np_ in ((didax, lax, jnp), (jax, lax_ref, jnp_ref)):
        f = make(L, np_)
        run = lambda x: (api.vmap(api.grad(f), axis_name="i")(x),  # noqa: E731
                          *api.vmap(lambda v: api.jvp(f, (v,), (np_.ones_like(v),)), axis_name="i")(x))
        g, p, t = run(x) if api is didax else jax.jit(run)(x)
        if api is didax:
            ours = [np.asarray(r) for r in (g, p, t)]
        else:
            for o, r in zip(ours, (g, p, t)):
                np.testing.assert_allclose(o, np.asarray(r), rtol=1e-5)


def test_grad_and_jvp_of_collectives_under_vmap_match_jax():
    x = X[:, 0]
    # psum's cotangent is summed again: 2 * N * x from psum, 2 * x from pmean
    both_grads(lambda L, np_: lambda v: L.psum(v**2, "i") + L.pmean(v * v, "i"), x)
    both_grads(lambda L, np_: lambda v: (L.all_gather(v, "i") * np_.arange(4.0)).sum()
               + (L.ppermute(v, "i", RING) * (v + 1)).sum(), x)  # fmt: skip
    both_grads(lambda L, np_: lambda v: (L.all_gather(v, "i", tiled=True) ** 2).sum()
               + (L.psum_scatter(v * v, "i") * np_.arange(4.0)).sum(), X)  # fmt: skip


def test_grad_of_all_to_all_under_vmap_is_that_of_the_sum_over_examples():
    """JAX 0.10.2 fails on vmap of grad of all_to_all (a cotangent of the wrong shape), so the
    oracle is JAX's grad of the sum over the examples, which is what vmap of grad computes."""
    def f(L, np_):
        return lambda v: (L.all_to_all(v * v, "i", 0, 1) * np_.arange(4.0)).sum()

    x = np.arange(4 * 4 * 3, dtype=np.float32).reshape(4, 4, 3) / 10
    ours = didax.vmap(didax.grad(f(lax, jnp)), axis_name="i")(x)
    theirs = jax.jit(jax.grad(lambda x: jax.vmap(f(lax_ref, jnp_ref), axis_name="i")(x).sum()))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_pmax_has_no_derivative_as_in_jax():
    for api, L in ((didax, lax), (jax, lax_ref)):
        with pytest.raises(NotImplementedError, match="Differentiation rule for 'pmax' not implemented"):
            api.vmap(api.grad(lambda v: L.pmax(v, "i")), axis_name="i")(X[:, 0])


# --- composition ---------------------------------------------------------------------------------


def test_jit_of_vmap_needs_no_lowering_rule_for_collectives():
    """vmap rewrites the collectives into ordinary operations before jit lowers anything."""
    def f(L):
        return lambda v: L.psum(v, "i") * L.axis_index("i") + L.all_gather(v, "i", tiled=True)[:4]

    ours = didax.jit(didax.vmap(f(lax), axis_name="i"))(X)
    np.testing.assert_allclose(ours, jax.jit(jax.vmap(f(lax_ref), axis_name="i"))(X))
    both(lambda L: (didax.jit if L is lax else jax.jit)(lambda v: L.psum(v, "i")), X)  # vmap of jit too


def test_collectives_in_a_cond_and_a_scan_sum_over_the_vmapped_axis():
    both(lambda L: lambda v: L.cond(v[0] > 2, lambda u: L.psum(u, "i"), lambda u: u, v), X)
    both(lambda L: lambda v: L.scan(lambda c, u: (c + L.psum(u, "i"), None), 0.0, v)[0], X)


def test_make_jaxpr_axis_env_stages_collectives_as_jax_prints_them():
    f = lambda v: (lax.psum(v, "i"), lax.all_gather(v, "i", axis=1), lax.axis_index("i"))  # noqa: E731
    f_ref = lambda v: (lax_ref.psum(v, "i"), lax_ref.all_gather(v, "i", axis=1), lax_ref.axis_index("i"))  # noqa: E731
    x = np.ones((2, 3), np.float32)
    assert str(didax.make_jaxpr(f, axis_env=[("i", 2)])(x)) == str(jax.make_jaxpr(f_ref, axis_env=[("i", 2)])(x))
    assert trace_state.axis_env == []


# --- errors --------------------------------------------------------------------------------------


def _error(api, call: Callable) -> tuple[type, str]:
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the point is to compare whatever is raised
        return type(e), str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize("make", [
    lambda api, L: lambda: L.psum(np.ones(3), "i"),  # eager, no binding: unbound axis name: i
    lambda api, L: lambda: L.all_gather(np.ones(3), "i"),
    lambda api, L: lambda: L.axis_size("k"),
    lambda api, L: lambda: api.jit(lambda v: L.psum(v, "i"))(np.ones(3)),  # a tracer: Found an unbound...
    lambda api, L: lambda: api.vmap(lambda v: L.pmax(v, "k"), axis_name="i")(X),
    lambda api, L: lambda: api.jit(lambda v: L.ppermute(v, "i", RING))(np.ones(3)),
    lambda api, L: lambda: api.vmap(lambda v: L.axis_index("k"), axis_name="i")(X),
    lambda api, L: lambda: api.vmap(lambda v: L.all_to_all(v, "i", 0, 0), axis_name="i")(np.ones((4, 6))),
    lambda api, L: lambda: api.vmap(lambda v: L.all_to_all(v, "i", 0, 0, tiled=True), axis_name="i")(np.ones((4, 6))),
    lambda api, L: lambda: api.vmap(lambda v: L.psum("s", "i"), axis_name="i")(X),
    lambda api, L: lambda: api.vmap(lambda v: L.pshuffle(v, "i", [0, 0, 1, 2]), axis_name="i")(X),
    lambda api, L: lambda: api.vmap(lambda v: L.psum(v, "i", axis_index_groups=[[0, 1], [2, 3]]), axis_name="i")(X),
])  # fmt: skip
def test_errors_are_jaxs(make):
    assert _error(didax, make(didax, lax)) == _error(jax, make(jax, lax_ref))
    assert trace_state.axis_env == []  # a failed vmap leaves no axis bound


def test_all_gather_names_the_allowed_values_of_to():
    # JAX prints them as a Python set, in an order that changes from run to run
    for L in (lax, lax_ref):
        with pytest.raises(ValueError, match="Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values "
                                             "are: {'[a-z]+', '[a-z]+', '[a-z]+'}$"):  # fmt: skip
            L.all_gather(X, "i", to="x")


def test_errors_where_didax_is_stricter_than_jax_vmap():
    """JAX's vmap rules skip psum_scatter's size check and reject partial permutations; didax
    checks sizes as pmap and shard_map do, and fills zeros as they do."""
    with pytest.raises(ValueError, match="tiled reduce_scatter operand scatter dimension size 6 must be divisible "
                                         "by shard_count 4"):  # fmt: skip
        didax.vmap(lambda v: lax.psum_scatter(v, "i", tiled=True), axis_name="i")(np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match="reduce_scatter operand scatter dimension size 8 must match shard count 4"):
        didax.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(np.ones((4, 8, 6), np.float32))
    with pytest.raises(ValueError, match=r"ppermute sources and destinations must be unique, got \(\(0, 1\), \(2, 1\)\)"):
        didax.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (2, 1)]), axis_name="i")(X)
    partial = didax.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2)]), axis_name="i")(X)
    np.testing.assert_array_equal(partial, np.stack([np.zeros(4), X[0], X[1], np.zeros(4)]))  # pmap's answer
    assert trace_state.axis_env == []
