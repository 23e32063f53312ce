"""checkpoint (remat): the same values, and recomputation instead of saved residuals, as the
policy says."""

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
