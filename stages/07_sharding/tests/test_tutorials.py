"""Programs from JAX's tutorials on automatic differentiation ("Automatic differentiation", "The
Autodiff Cookbook", "Custom derivative rules for JAX-transformable Python functions", "Control
flow", "Fundamentals of jax.checkpoint"), as a user runs them: with ``jax`` meaning didax. The
expected values come from NumPy in float64, finite differences, closed forms, or the outputs the
tutorials print; the programs were also run side by side with JAX 0.10.2."""

import numpy as np
import pytest

import didax as jax
import didax.numpy as jnp
from didax import grad, jacfwd, jacrev, jit, jvp, lax, vjp, vmap
from didax.test_util import check_grads

# ---------------------------------------------------------------------------------------------
# "Automatic differentiation"


def test_grad_of_tanh_stacks_to_the_third_derivative():
    t = np.tanh(np.float64(2.0))
    first = 1 - t**2
    second = -2 * t * first
    third = -2 * first**2 - 2 * t * second
    got = [grad(jnp.tanh)(2.0), grad(grad(jnp.tanh))(2.0), grad(grad(grad(jnp.tanh)))(2.0)]
    np.testing.assert_allclose(got, [first, second, third], rtol=1e-5)


def test_derivatives_of_a_cubic_down_to_zero():
    f = lambda x: x**3 + 2 * x**2 - 3 * x + 1  # noqa: E731
    d1 = grad(f)
    d2 = grad(d1)
    d3 = grad(d2)
    d4 = grad(d3)
    assert [float(d(1.0)) for d in (d1, d2, d3, d4)] == [4.0, 10.0, 6.0, 0.0]  # f', f'', f''', f'''' at 1


INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]], np.float32)
TARGETS = np.array([True, True, False, True])


def _logistic_loss(W, b, xp=jnp):
    preds = 0.5 * (xp.tanh((xp.dot(INPUTS, W) + b) / 2) + 1)
    label_probs = preds * TARGETS + (1 - preds) * (1 - TARGETS)
    return -xp.sum(xp.log(label_probs))


def _numerical_gradient(f, x, eps=1e-6):
    """Central differences of a NumPy float64 function, one coordinate at a time."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return g


def test_logistic_regression_gradients_by_argnums_and_pytrees():
    key, W_key, b_key = jax.random.split(jax.random.key(0), 3)
    W, b = jax.random.normal(W_key, (3,)), jax.random.normal(b_key, ())
    W64, b64 = np.asarray(W, np.float64), np.asarray(b, np.float64)
    want_W = _numerical_gradient(lambda w: _logistic_loss(w, b64, np), W64)
    want_b = _numerical_gradient(lambda c: _logistic_loss(W64, c, np), b64)
    np.testing.assert_allclose(grad(_logistic_loss)(W, b), want_W, rtol=1e-4)
    np.testing.assert_allclose(grad(_logistic_loss, 1)(W, b), want_b, rtol=1e-4)
    W_grad, b_grad = grad(_logistic_loss, (0, 1))(W, b)
    np.testing.assert_allclose([*W_grad, b_grad], [*want_W, want_b], rtol=1e-4)
    as_dict = grad(lambda p: _logistic_loss(p["W"], p["b"]))({"W": W, "b": b})
    assert sorted(as_dict) == ["W", "b"]
    np.testing.assert_allclose(as_dict["W"], want_W, rtol=1e-4)
    value, (gW, gb) = jax.value_and_grad(_logistic_loss, (0, 1))(W, b)
    np.testing.assert_allclose(value, _logistic_loss(W64, b64, np), rtol=1e-6)
    np.testing.assert_allclose(gb, want_b, rtol=1e-4)


def test_check_grads_passes_on_the_loss_and_fails_on_a_wrong_rule():
    W = np.array([0.3, -0.2, 0.5], np.float32)
    check_grads(_logistic_loss, (W, np.float32(0.1)), order=2)  # the tutorial's call: no error

    @jax.custom_jvp
    def wrong_sin(x):
        return jnp.sin(x)

    wrong_sin.defjvp(lambda p, t: (wrong_sin(p[0]), 1.1 * jnp.cos(p[0]) * t[0]))
    for modes in (["fwd"], ["rev"], ["lin"]):
        with pytest.raises(AssertionError):
            check_grads(wrong_sin, (0.5,), order=1, modes=modes)


# ---------------------------------------------------------------------------------------------
# "The Autodiff Cookbook" (and "Advanced automatic differentiation", which repeats it)


def _cookbook_f(W):
    return jnp.tanh(jnp.dot(W, jnp.array([1.0, -2.0, 0.5])))


def test_jacfwd_and_jacrev_agree_with_finite_differences_and_keep_weak_types():
    W = np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]], np.float32)
    f64 = lambda w: np.tanh(w.reshape(2, 3) @ np.array([1.0, -2.0, 0.5]))  # noqa: E731
    want = np.stack([_numerical_gradient(lambda w, i=i: f64(w)[i], W.ravel()).reshape(2, 3) for i in range(2)])
    np.testing.assert_allclose(jacfwd(_cookbook_f)(W), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(jacrev(_cookbook_f)(W), want, rtol=1e-4, atol=1e-6)
    # As JAX gives them: a Python float's Jacobian is weakly typed, whichever the mode.
    for jac in (jacfwd, jacrev, jax.jacobian, jax.hessian):
        out = jac(jnp.sin)(2.0)
        assert out.dtype == np.float32 and out.weak_type, jac.__name__
    assert not jacrev(jnp.sin)(np.float32(2.0)).weak_type


def test_hessian_vector_products_by_every_route_equal_the_hessian():
    def f(x):
        return jnp.sum(jnp.sin(x) * x[::-1])

    x = np.array([0.3, -1.2, 2.0], np.float32)
    v = np.array([1.0, 0.5, -2.0], np.float32)
    # f = sum_i sin(x_i) x_{n-1-i}: H[i,i] = -sin(x_i) x_{n-1-i} + (i == n-1-i) 2 cos(x_i);
    # H[i, n-1-i] += cos(x_{n-1-i}) + cos(x_i) off the middle.
    n = len(x)
    H = np.zeros((n, n))
    for i in range(n):
        j = n - 1 - i
        H[i, i] += -np.sin(x[i]) * x[j]
        H[i, j] += np.cos(x[i])
        H[j, i] += np.cos(x[i])
    want = H @ v
    hvp_fwd_rev = jvp(grad(f), (x,), (v,))[1]
    hvp_rev_fwd = grad(lambda x: jvp(f, (x,), (v,))[1])(x)
    hvp_rev_rev = grad(lambda x: jnp.vdot(grad(f)(x), v))(x)
    for got in (hvp_fwd_rev, hvp_rev_fwd, hvp_rev_rev, jnp.tensordot(jax.hessian(f)(x), v, 1)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_matrix_jacobian_products_by_vmap_equal_the_loop():
    W = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    U = np.random.RandomState(1).randn(4, 2).astype(np.float32)
    S = np.random.RandomState(2).randn(5, 2, 3).astype(np.float32)
    y, vjp_fun = vjp(_cookbook_f, W)
    mjp = vmap(vjp_fun)(U)[0]
    J = np.asarray(jacrev(_cookbook_f)(W))
    np.testing.assert_allclose(mjp, np.einsum("ki,ijl->kjl", U, J), rtol=1e-5, atol=1e-6)
    _, jmp = vmap(lambda s: jvp(_cookbook_f, (W,), (s,)), out_axes=(None, 0))(S)
    np.testing.assert_allclose(jmp, np.einsum("ijl,kjl->ki", J, S), rtol=1e-5, atol=1e-6)


def test_complex_derivatives_follow_jaxs_convention():
    z = 3.0 + 4.0j
    # JAX's grad of a real function of z = x + iy is df/dx - i df/dy: for |z|^2, 2 conj(z).
    np.testing.assert_allclose(grad(lambda z: jnp.abs(z) ** 2)(z), 2 * np.conj(z), rtol=1e-6)
    np.testing.assert_allclose(grad(jnp.sin, holomorphic=True)(z), np.cos(z), rtol=1e-5)
    # vjp with cotangent 1 reveals a holomorphic function's derivative; jvp along 1 too.
    np.testing.assert_allclose(vjp(jnp.exp, z)[1](1.0 + 0j)[0], np.exp(z), rtol=1e-5)
    np.testing.assert_allclose(jvp(jnp.exp, (z,), (1.0 + 0j,))[1], np.exp(z), rtol=1e-5)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        grad(jnp.sin)(z)


# ---------------------------------------------------------------------------------------------
# "Custom derivative rules for JAX-transformable Python functions": which functions run, in
# which order, is what the tutorial prints; its printed lines are the expected output here.


def _traced_custom_jvp():
    @jax.custom_jvp
    def f(x):
        print("called f!")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        print("called f_jvp!")
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t

    return f


def test_custom_jvp_runs_only_the_rule_under_differentiation(capsys):
    f = _traced_custom_jvp()
    y_dot = jvp(f, (3.0,), (1.0,))[1]
    assert capsys.readouterr().out == "called f_jvp!\ncalled f!\n"
    g = grad(f)(3.0)
    assert capsys.readouterr().out == "called f_jvp!\ncalled f!\n"
    gg = grad(grad(f))(3.0)
    assert capsys.readouterr().out == "called f_jvp!\ncalled f_jvp!\ncalled f!\n"
    np.testing.assert_allclose([y_dot, g, gg], [np.cos(3.0), np.cos(3.0), -np.sin(3.0)], rtol=1e-6)


def test_custom_jvp_function_may_branch_on_its_argument_under_grad():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), (2 * x_dot if x > 0 else 3 * x_dot)

    assert float(grad(f)(1.0)) == 2.0
    assert float(grad(f)(-1.0)) == 3.0


def test_custom_vjp_runs_fwd_then_bwd_and_never_traces_the_function(capsys):
    @jax.custom_vjp
    def f(x):
        print("called f!")
        return jnp.sin(x)

    def f_fwd(x):
        print("called f_fwd!")
        return f(x), jnp.cos(x)

    def f_bwd(cos_x, y_bar):
        print("called f_bwd!")
        return (cos_x * y_bar,)

    f.defvjp(f_fwd, f_bwd)
    np.testing.assert_allclose(grad(f)(3.0), np.cos(3.0), rtol=1e-6)
    assert capsys.readouterr().out == "called f_fwd!\ncalled f!\ncalled f_bwd!\n"
    y, f_vjp = vjp(f, 3.0)
    assert capsys.readouterr().out == "called f_fwd!\ncalled f!\n"
    (ct,) = f_vjp(1.0)
    assert capsys.readouterr().out == "called f_bwd!\n"
    np.testing.assert_allclose([y, ct], [np.sin(3.0), np.cos(3.0)], rtol=1e-6)
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function."):
        jvp(f, (3.0,), (1.0,))
    assert capsys.readouterr().out == "called f_fwd!\ncalled f!\n"


def test_custom_vjp_with_python_control_flow_in_fwd():
    # The rule sees concrete values under grad, so it may branch on them, as in JAX.
    @jax.custom_vjp
    def f(x):
        return jnp.abs(x)

    def f_fwd(x):
        return f(x), (1.0 if x >= 0 else -1.0)

    f.defvjp(f_fwd, lambda sign, g: (sign * g,))
    assert [float(grad(f)(x)) for x in (2.0, -2.0)] == [1.0, -1.0]


def test_fixed_point_with_a_custom_vjp_and_nondiff_argnums():
    # The tutorial's implicit differentiation of a fixed point: sqrt(a) is the fixed point of
    # x -> 0.5 (x + a / x), and its derivative 0.5 / sqrt(a) comes from the implicit function theorem.
    from functools import partial

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return jnp.abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def fixed_point_fwd(f, a, x_init):
        x_star = fixed_point(f, a, x_init)
        return x_star, (a, x_star)

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = vjp(lambda a: f(a, x_star), a)
        (a_bar,) = vjp_a(fixed_point(partial(_rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
        return a_bar, jnp.zeros_like(x_star)

    fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)

    def newton_sqrt(a):
        return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)

    np.testing.assert_allclose(newton_sqrt(2.0), np.sqrt(2.0), rtol=1e-6)
    np.testing.assert_allclose(grad(newton_sqrt)(2.0), 0.5 / np.sqrt(2.0), rtol=1e-5)
    np.testing.assert_allclose(grad(grad(newton_sqrt))(2.0), -0.25 * 2.0**-1.5, rtol=1e-4)
    np.testing.assert_allclose(vmap(grad(newton_sqrt))(jnp.array([1.0, 4.0])), [0.5, 0.25], rtol=1e-5)


def _rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


# ---------------------------------------------------------------------------------------------
# "Control flow": reverse mode through cond, fori_loop and scan; while_loop refuses it.


def test_reverse_mode_through_structured_control_flow():
    def by_cond(x):
        return lax.cond(x < 3, lambda x: 3.0 * x**2, lambda x: -4.0 * x, x)

    assert [float(grad(by_cond)(x)) for x in (2.0, 4.0)] == [12.0, -4.0]

    def by_fori(x):
        return lax.fori_loop(0, 5, lambda i, y: y * x + i, 1.0)

    # y5 = x^5 + 0 x^4 + 1 x^3 + 2 x^2 + 3 x + 4: its derivative at x.
    x = 1.5
    np.testing.assert_allclose(grad(by_fori)(x), 5 * x**4 + 3 * x**2 + 4 * x + 3, rtol=1e-6)

    def by_scan(x, xs):
        carry, ys = lax.scan(lambda c, a: (jnp.sin(c) * a, c), x, xs)
        return carry + jnp.sum(ys)

    xs = np.array([0.5, 1.5, -2.0], np.float32)
    want = _numerical_gradient(lambda v: _np_scan(v, xs), np.float64(0.3))
    np.testing.assert_allclose(grad(by_scan)(0.3, xs), want, rtol=1e-5)
    np.testing.assert_allclose(jit(grad(by_scan))(0.3, xs), want, rtol=1e-5)


def _np_scan(x, xs):
    total = 0.0
    for a in xs:
        total += x
        x = np.sin(x) * a
    return x + total


def test_while_loop_under_reverse_mode_is_jaxs_error():
    def f(x):
        return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)

    np.testing.assert_allclose(jvp(f, (3.0,), (1.0,))[1], 4.0)  # forward mode works: 3 -> 12
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        grad(f)(3.0)


# ---------------------------------------------------------------------------------------------
# "Fundamentals of jax.checkpoint": recomputing changes no value.


def test_checkpointed_layers_give_the_plain_gradients():
    def g(W, x):
        return jnp.sin(jnp.dot(W, x))

    def f(W1, W2, W3, x):
        return jnp.sum(g(W3, g(W2, g(W1, x))))

    def f2(W1, W2, W3, x):
        x = jax.checkpoint(g)(W1, x)
        x = jax.checkpoint(g)(W2, x)
        return jnp.sum(jax.checkpoint(g)(W3, x))

    rng = np.random.RandomState(0)
    args = [rng.randn(5, 4), rng.randn(6, 5), rng.randn(7, 6), rng.randn(4)]
    args = [a.astype(np.float32) for a in args]
    want = grad(f, argnums=(0, 1, 2, 3))(*args)
    f3 = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    for fun in (f2, f3, jax.checkpoint(f, policy=jax.checkpoint_policies.nothing_saveable)):
        got = grad(fun, argnums=(0, 1, 2, 3))(*args)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # and the gradient of the first layer's weights against finite differences in float64
    f64 = lambda w: np.sum(np.sin(args[2] @ np.sin(args[1] @ np.sin(w.reshape(5, 4) @ args[3]))))  # noqa: E731
    np.testing.assert_allclose(want[0].ravel(), _numerical_gradient(f64, args[0].ravel().astype(np.float64)),
                               rtol=1e-3, atol=1e-4)  # fmt: skip


def test_recursive_checkpointing_changes_no_value():
    def recursive_checkpoint(funs):
        if len(funs) == 1:
            return funs[0]
        if len(funs) == 2:
            f1, f2 = funs
            return lambda x: f1(f2(x))
        f1 = recursive_checkpoint(funs[: len(funs) // 2])
        f2 = recursive_checkpoint(funs[len(funs) // 2 :])
        return lambda x: f1(jax.checkpoint(f2)(x))

    f = recursive_checkpoint([jnp.sin] * 8)
    x, derivative = np.float64(3.0), 1.0
    for _ in range(8):  # the chain rule along sin(sin(...)), in float64
        derivative *= np.cos(x)
        x = np.sin(x)
    np.testing.assert_allclose(grad(f)(3.0), derivative, rtol=1e-5)


@pytest.mark.parametrize("policy", [None, "everything_saveable", "dots_saveable"])
def test_a_checkpointed_function_holding_jaxprs_is_differentiated(policy):
    # A nested checkpoint, jit, cond and scan inside a checkpoint split into their known and
    # unknown parts, as at top level: the staged side must stay linear in the tangents.
    pol = policy and getattr(jax.checkpoint_policies, policy)
    inner = {
        "checkpoint": lambda x: jax.checkpoint(jnp.sin)(x),
        "jit": lambda x: jit(jnp.sin)(x),
        "cond": lambda x: lax.cond(x > 0, jnp.sin, jnp.sin, x),
        "scan": lambda x: lax.scan(lambda c, _: (jnp.sin(c), None), x, None, length=1)[0],
    }
    for name, g in inner.items():
        f = jax.checkpoint(lambda x, g=g: jnp.sin(g(x)) * x, policy=pol)
        x = 0.7
        want = np.cos(np.sin(x)) * np.cos(x) * x + np.sin(np.sin(x))  # d/dx sin(sin x) x
        np.testing.assert_allclose(grad(f)(x), want, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(jit(grad(f))(x), want, rtol=1e-6, err_msg=name)


def test_the_vjp_function_is_a_pytree_of_its_residuals():
    # The checkpoint tutorial's print_fwd_bwd flattens the function vjp returns and returns it from
    # make_jaxpr: as in JAX, its leaves are the residuals, and it rebuilds from new leaves.
    def f(W, x):
        return jnp.sin(jnp.dot(W, x))

    W = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    x = np.array([1.5, -0.5], np.float32)
    y, f_vjp = vjp(f, W, x)
    residuals, tree = jax.tree_util.tree_flatten(f_vjp)
    assert residuals and all(isinstance(r, jax.Array) for r in residuals)
    u = np.array([1.0, -2.0], np.float32)
    c = np.cos(W @ x) * u  # the cotangent of W @ x
    want = (np.outer(c, x), W.T @ c)
    for pullback in (f_vjp, jax.tree_util.tree_unflatten(tree, residuals)):
        for got, expected in zip(pullback(u), want):
            np.testing.assert_allclose(got, expected, rtol=1e-6)
    # Returned from jit and make_jaxpr, as values.
    y2, f_vjp2 = jit(lambda W, x: vjp(f, W, x))(W, x)
    np.testing.assert_allclose(f_vjp2(u)[0], want[0], rtol=1e-6)
    jaxpr = jax.make_jaxpr(lambda W, x: vjp(f, W, x))(W, x)
    assert len(jaxpr.jaxpr.outvars) == 1 + len(residuals)
