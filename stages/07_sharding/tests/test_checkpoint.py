"""checkpoint (remat): the same values, and recomputation instead of saved residuals, as the
policy says."""

import contextlib
import io
import re

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax


def f(x, w):
    for _ in range(3):
        x = jnp.sin(x @ w)
    return jnp.sum(x**2)


RNG = np.random.default_rng(1)
X, W = RNG.normal(size=(2, 3)).astype(np.float32), RNG.normal(size=(3, 3)).astype(np.float32)

POLICIES = [None, didax.checkpoint_policies.nothing_saveable, didax.checkpoint_policies.everything_saveable,
            didax.checkpoint_policies.dots_saveable, didax.checkpoint_policies.dots_with_no_batch_dims_saveable]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: getattr(p, "__name__", "None"))
def test_remat_changes_no_value(policy):
    g = didax.checkpoint(f, policy=policy)
    np.testing.assert_allclose(g(X, W), f(X, W), rtol=1e-6)
    for route in (didax.grad(g, (0, 1)), didax.jit(didax.grad(g, (0, 1)))):
        for got, want in zip(route(X, W), didax.grad(f, (0, 1))(X, W)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(didax.hessian(lambda w: g(X, w))(W), didax.hessian(lambda w: f(X, w))(W), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(didax.vmap(didax.grad(g), (0, None))(X[:, None], W), didax.vmap(didax.grad(f), (0, None))(X[:, None], W), rtol=1e-5)


def _residuals(fun):
    _, f_lin = didax.linearize(fun, X, W)
    jaxpr = didax.make_jaxpr(f_lin)(X, W)
    return jaxpr.jaxpr.constvars


def test_nothing_saveable_keeps_only_the_inputs_and_everything_saveable_keeps_more():
    saved_all = _residuals(didax.checkpoint(f, policy=didax.checkpoint_policies.everything_saveable))
    saved_none = _residuals(didax.checkpoint(f))
    # With nothing saveable the residuals are the inputs themselves (x and w); the backward pass
    # recomputes the sines and products from them.
    assert len(saved_none) == 2
    assert len(saved_all) > len(saved_none)
    assert len(_residuals(f)) == len(saved_all)


def test_dots_saveable_saves_the_products_and_recomputes_the_rest():
    saved_dots = _residuals(didax.checkpoint(f, policy=didax.checkpoint_policies.dots_saveable))
    assert len(_residuals(didax.checkpoint(f))) < len(saved_dots) < len(_residuals(f))


def test_the_backward_pass_recomputes_the_forward():
    text = str(didax.make_jaxpr(didax.grad(didax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))))(1.0))
    staged = text.split("differentiated=True")[-1]
    assert "sin" in staged and "cos" in staged  # the transposed part evaluates sin again
    assert text.count("remat2[") == 2


def test_checkpoint_inside_scan_and_static_argnums():
    body = didax.checkpoint(lambda c, n: jnp.sin(c) * n, static_argnums=(1,))
    loop = lambda x: lax.scan(lambda c, _: (body(c, 2), None), x, None, length=4)[0]  # noqa: E731
    plain = lambda x: lax.scan(lambda c, _: (jnp.sin(c) * 2, None), x, None, length=4)[0]  # noqa: E731
    np.testing.assert_allclose(didax.grad(loop)(0.3), didax.grad(plain)(0.3), rtol=1e-6)
    assert didax.remat is didax.checkpoint



# --- names and the policies that read them, beside real JAX --------------------------------------

jax = pytest.importorskip("jax")
pytest.importorskip("jax.ad_checkpoint")  # `import jax` does not import it

LIBS = {"didax": (didax, jnp), "jax": (jax, jax.numpy)}


def named(api, np_):
    """A function of x and w with two named values, written for either library."""
    name = api.ad_checkpoint.checkpoint_name

    def f(x, w):
        y = name(np_.sin(x @ w), "a")
        z = name(np_.cos(y @ w), "b")
        return np_.sum(z**2)

    return f


def scalar_named(api, np_):
    return lambda x: np_.sin(api.ad_checkpoint.checkpoint_name(np_.sin(x), "a")) * 2.0


NAME_POLICIES = {  # a policy of each kind, built from either library's checkpoint_policies
    "save_only_a": lambda cp: cp.save_only_these_names("a"),
    "save_only_a_b": lambda cp: cp.save_only_these_names("a", "b"),
    "save_any_but_a": lambda cp: cp.save_any_names_but_these("a"),
    "a_or_dots": lambda cp: cp.save_from_both_policies(cp.save_only_these_names("a"), cp.dots_saveable),
    "anything_except_a": lambda cp: cp.save_anything_except_these_names("a"),
    "dots_no_batch": lambda cp: cp.checkpoint_dots_with_no_batch_dims,
}


def both(make_f, policy=None):
    """(didax's, JAX's) ``make_f``, checkpointed with ``policy`` when one is named."""
    out = []
    for api, np_ in LIBS.values():
        f = make_f(api, np_)
        out.append(f if policy is None else api.checkpoint(f, policy=NAME_POLICIES[policy](api.checkpoint_policies)))
    return out


def test_checkpoint_name_is_the_identity_on_a_pytree_in_every_interpreter():
    tree = {"a": X, "b": (W, 2.0)}
    got, want = didax.ad_checkpoint.checkpoint_name(tree, "n"), jax.ad_checkpoint.checkpoint_name(tree, "n")
    assert didax.tree_util.tree_structure(got) == didax.tree_util.tree_structure(tree)
    for g, w in zip(didax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    f, g = both(scalar_named)
    np.testing.assert_allclose(didax.jit(f)(0.7), g(0.7), rtol=1e-6)
    np.testing.assert_allclose(didax.vmap(f)(X[0]), jax.vmap(g)(X[0]), rtol=1e-6)
    for ours, theirs in zip(didax.jvp(f, (0.7,), (2.0,)), jax.jvp(g, (0.7,), (2.0,))):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    np.testing.assert_allclose(didax.grad(didax.grad(f))(0.7), jax.grad(jax.grad(g))(0.7), rtol=1e-5)
    assert "name" not in didax.jit(f).lower(0.7).as_text()  # lowered to nothing, as in JAX


ROUTES = {  # route(api, f) -> (function to stage, its arguments)
    "make_jaxpr": lambda api, f: (f, (0.7,)),
    "jvp": lambda api, f: (lambda x, t: api.jvp(f, (x,), (t,)), (0.7, 1.0)),
    "vmap": lambda api, f: (api.vmap(f), (X[0],)),
    "grad": lambda api, f: (api.grad(f), (0.7,)),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_named_value_stages_as_jax_stages_it(route):
    """One ``name`` equation, on the primal only (a tangent is not named): JAX's jaxprs, line for line."""
    texts = []
    for (api, _), f in zip(LIBS.values(), both(scalar_named)):
        fun, args = ROUTES[route](api, f)
        texts.append(str(api.make_jaxpr(fun)(*args)))
    assert texts[0] == texts[1]
    assert texts[0].count("name[name=a]") == 1


def test_a_name_has_no_transpose_rule_as_in_jax():
    for (api, _), f in zip(LIBS.values(), both(lambda api, np_: lambda x: api.ad_checkpoint.checkpoint_name(x, "a"))):
        with pytest.raises(NotImplementedError, match="Transpose rule .* for 'name' not implemented"):
            api.linear_transpose(f, 1.0)(1.0)


@pytest.mark.parametrize("policy", list(NAME_POLICIES))
def test_named_policies_change_no_value(policy):
    ours, theirs = both(named, policy)
    np.testing.assert_allclose(ours(X, W), theirs(X, W), rtol=1e-5)
    want = jax.grad(theirs, (0, 1))(X, W)
    for route in (didax.grad(ours, (0, 1)), didax.jit(didax.grad(ours, (0, 1)))):
        for got, w in zip(route(X, W), want):
            np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)


def printed_residuals(api, f, *args, **kwargs):
    """What print_saved_residuals printed, one line each. JAX ends a line about an equation with
    where in the source the equation was made (``output of sin from <file>:12:8 (f)``, or a bare
    ``from`` for a jit); didax records no source locations, so that ending is cut from JAX's lines."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        api.ad_checkpoint.print_saved_residuals(f, *args, **kwargs)
    return [re.sub(r" from (\S+:\d+:\d+ \(.*\))?$", "", line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("policy", [None, *NAME_POLICIES])
def test_the_policy_decides_what_is_saved_as_in_jax(policy):
    ours, theirs = both(named, policy)
    assert printed_residuals(didax, ours, X, W) == printed_residuals(jax, theirs, X, W)


def test_print_saved_residuals_names_arguments_and_values_as_jax_does():
    cases = [  # (function of the library and its numpy, args, kwargs)
        (lambda api, np_: lambda x, y: np_.sin(x) * y, (0.5,), {"y": 2.0}),
        (lambda api, np_: lambda d: np_.sin(d["a"]) * d["b"], ({"a": 0.5, "b": 2.0},), {}),
        (lambda api, np_: lambda *xs: np_.sin(xs[0]) * xs[1], (0.5, 2.0), {}),
        (lambda api, np_: lambda x, **kw: np_.sin(x) * kw["y"], (0.5,), {"y": 2.0}),
        (lambda api, np_: api.jit(lambda x: np_.sin(np_.sin(x))), (0.5,), {}),
        (lambda api, np_: lambda x: np_.sin(x * np_.arange(3.0)), (X[0],), {}),
    ]
    for make_f, args, kwargs in cases:
        ours, theirs = both(make_f)
        assert printed_residuals(didax, ours, *args, **kwargs) == printed_residuals(jax, theirs, *args, **kwargs)


def test_only_the_named_values_a_policy_allows_are_saved():
    """Counted in the linear jaxpr's constants: nothing saveable keeps x and w; each saveable
    name adds its value; without checkpoint more is kept."""
    cp = didax.checkpoint_policies
    f = named(didax, jnp)
    counts = {name: len(_residuals(didax.checkpoint(f, policy=NAME_POLICIES[name](cp)))) for name in NAME_POLICIES}
    assert len(_residuals(didax.checkpoint(f))) == 2
    assert counts["save_only_a"] == counts["save_any_but_a"] == 3 and counts["save_only_a_b"] == 4
    assert counts["a_or_dots"] == 5 and counts["anything_except_a"] == len(_residuals(f)) > 5


def test_the_backward_pass_with_a_named_residual_is_jaxs():
    """JAX writes the known part inline (and rounds each residual with reduce_precision); the
    backward pass, the last remat2 equation, is the same jaxpr with the same policy."""
    texts = []
    for (api, _), f in zip(LIBS.values(), both(scalar_named, "save_only_a")):
        eqn = api.make_jaxpr(api.grad(f))(0.7).jaxpr.eqns[-1]
        texts.append((str(eqn.params["jaxpr"]), repr(eqn.params["policy"])))
    assert texts[0] == texts[1]
    assert texts[0][1] == "SaveOnlyTheseNames(saveable_names=frozenset({'a'}))"


@pytest.mark.parametrize("policy", ["save_only_a", "save_any_but_a", "a_or_dots", "dots_no_batch"])
def test_a_checkpoint_with_a_policy_prints_as_jaxs(policy):
    ours, theirs = both(scalar_named, policy)
    assert str(didax.make_jaxpr(ours)(0.7)) == str(jax.make_jaxpr(theirs)(0.7))


def test_ad_checkpoint_and_checkpoint_policies_have_jaxs_names():
    public = lambda m: {n for n in dir(m) if not n.startswith("_")}  # noqa: E731
    # JAX's Saveable, Recompute and Offloadable are what offloading policies return; didax has none.
    assert public(didax.ad_checkpoint) == public(jax.ad_checkpoint) - {"Offloadable", "Recompute", "Saveable"}
    offloading = {"offload_dot_with_no_batch_dims", "save_and_offload_only_these_names"}
    assert public(didax.checkpoint_policies) == public(jax.checkpoint_policies) - offloading
    for api in (didax, jax):  # removed from jax.ad_checkpoint in JAX 0.10: its error names the new place
        with pytest.raises(AttributeError, match=r"use (jax|didax)\.checkpoint"):
            _ = api.ad_checkpoint.checkpoint
