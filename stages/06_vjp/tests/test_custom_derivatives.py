"""custom_jvp and custom_vjp: the examples of JAX's "Custom derivative rules" tutorial, under every
transformation, against finite differences and the formulas they encode, and JAX's errors."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax


@didax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_the_rule_fixes_log1pexp_at_100():
    # The tutorial's point: without the rule the gradient at 100 is nan, with it 1.
    assert np.isnan(didax.grad(lambda x: jnp.log(1.0 + jnp.exp(x)))(100.0))
    assert float(didax.grad(log1pexp)(100.0)) == 1.0


@pytest.mark.parametrize("route", ["grad", "jit(grad)", "grad(jit)", "vmap(grad)", "jvp", "linearize"])
def test_a_custom_jvp_rule_is_used_by_every_route(route):
    xs = np.array([-3.0, 0.0, 2.0, 100.0], np.float32)
    g = didax.grad(log1pexp)
    got = {
        "grad": lambda: [g(x) for x in xs],
        "jit(grad)": lambda: [didax.jit(g)(x) for x in xs],
        "grad(jit)": lambda: [didax.grad(didax.jit(log1pexp))(x) for x in xs],
        "vmap(grad)": lambda: didax.vmap(g)(xs),
        "jvp": lambda: [didax.jvp(log1pexp, (x,), (np.float32(1),))[1] for x in xs],
        "linearize": lambda: [didax.linearize(log1pexp, x)[1](np.float32(1)) for x in xs],
    }[route]()
    np.testing.assert_allclose(np.asarray(got, np.float32), sigmoid(xs.astype(np.float64)), rtol=1e-6)


def test_second_derivative_differentiates_the_rule():
    # d/dx sigmoid(x) = sigmoid(x) (1 - sigmoid(x)), the derivative of the rule's formula
    s = sigmoid(2.0)
    np.testing.assert_allclose(didax.grad(didax.grad(log1pexp))(2.0), s * (1 - s), rtol=1e-5)
    np.testing.assert_allclose(didax.hessian(log1pexp)(2.0), s * (1 - s), rtol=1e-5)


def test_defjvps_equals_defjvp():
    @didax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y, lambda y_dot, out, x, y: jnp.sin(x) * y_dot)
    value, (gx, gy) = didax.value_and_grad(f, (0, 1))(1.0, 2.0)
    np.testing.assert_allclose([value, gx, gy], [np.sin(1) * 2, np.cos(1) * 2, np.sin(1)], rtol=1e-6)


def test_the_rule_is_used_even_where_it_is_wrong():
    # A deliberately wrong rule shows that didax takes the user's word: the derivative is 10.
    @didax.custom_jvp
    def f(x):
        return x

    f.defjvp(lambda p, t: (f(*p), 10.0 * t[0]))
    assert float(didax.grad(f)(1.0)) == 10.0
    assert float(didax.jit(didax.vmap(didax.grad(f)))(jnp.ones(2))[0]) == 10.0


def test_nondiff_argnums_pass_a_function_first():
    @didax.custom_jvp
    def app(f, x):
        return f(x)

    app = didax.custom_jvp(app.fun, nondiff_argnums=(0,))

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), 2.0 * x_dot

    assert float(didax.grad(lambda x: app(lambda y: y**2, x))(3.0)) == 2.0


def test_symbolic_zeros_reach_the_rule():
    seen = []

    @didax.custom_jvp
    def f(x, y):
        return x * y

    def rule(primals, tangents):
        seen.append([type(t).__name__ for t in tangents])
        (x, y), (dx, dy) = primals, tangents
        dx = 0.0 if isinstance(dx, didax.custom_derivatives.SymbolicZero) else dx
        dy = 0.0 if isinstance(dy, didax.custom_derivatives.SymbolicZero) else dy
        return f(x, y), dx * y + x * dy

    f.defjvp(rule, symbolic_zeros=True)
    assert float(didax.grad(f)(2.0, 3.0)) == 3.0
    assert "SymbolicZero" in seen[-1] and seen[-1][1] == "SymbolicZero"


@didax.custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return None, None, jnp.clip(g, lo, hi)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_clip_gradient_clips_the_cotangent():
    f = lambda x: clip_gradient(-0.75, 0.75, jnp.sin(x) * 10)  # noqa: E731
    # the cotangent 1 of the output is clipped to 0.75 before it meets d(sin(x) * 10)/dx = 10 cos(x)
    xs = np.linspace(-1, 1, 5)
    np.testing.assert_allclose([didax.grad(f)(x) for x in xs], 0.75 * 10 * np.cos(xs), rtol=1e-6)
    np.testing.assert_allclose(didax.vmap(didax.grad(f))(xs), 0.75 * 10 * np.cos(xs), rtol=1e-6)
    np.testing.assert_allclose(didax.jit(didax.grad(f))(0.3), 7.5 * np.cos(0.3), rtol=1e-6)


@didax.custom_vjp
def g(x, y):
    return jnp.sin(x) * y


def _g_fwd(x, y):
    return g(x, y), (jnp.cos(x), jnp.sin(x), y)


def _g_bwd(res, ct):
    cos_x, sin_x, y = res
    return cos_x * ct * y, sin_x * ct


g.defvjp(_g_fwd, _g_bwd)


def test_custom_vjp_under_jit_vmap_and_inside_vmap():
    x, y = np.arange(3.0, dtype=np.float32), np.float32(2.0)
    np.testing.assert_allclose(didax.vmap(didax.grad(g), (0, None))(x, y), np.cos(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(didax.jit(didax.grad(g, 1))(1.0, 2.0), np.sin(1.0), rtol=1e-6)
    # grad of a function that vmaps the custom_vjp: bwd is batched, and y's cotangents summed
    total = didax.grad(lambda y: didax.vmap(g, (0, None))(x, y).sum())(y)
    np.testing.assert_allclose(total, np.sin(x).sum(), rtol=1e-6)


def test_forward_mode_of_a_custom_vjp_function_is_jaxs_error():
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function."):
        didax.jvp(g, (1.0, 2.0), (1.0, 1.0))


def test_custom_vjp_fwd_runs_once_and_bwd_at_transposition():
    calls = []

    @didax.custom_vjp
    def f(x):
        return x * 2

    f.defvjp(lambda x: (calls.append("fwd") or f(x), None), lambda res, ct: (calls.append("bwd") or ct * 3,))
    _, f_vjp = didax.vjp(f, 1.0)
    assert calls == ["fwd"]
    assert float(f_vjp(1.0)[0]) == 3.0 and calls == ["fwd", "bwd"]


def test_the_primitives_print_as_jax_prints_them():
    text = str(didax.make_jaxpr(log1pexp)(3.0))
    assert "custom_jvp_call[\n      name=log1pexp" in text and "jvp=log1pexp_jvp" in text
    assert "symbolic_zeros=False" in text and "num_consts" not in text
    text = str(didax.make_jaxpr(g)(1.0, 2.0))
    assert "name=g" in text and "bwd=_g_bwd" in text and "fwd=_g_fwd" in text


def test_errors_are_jaxs():
    @didax.custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f using defjvp."):
        f(1.0)
    f.defjvp(lambda p, t: p[0])
    with pytest.raises(TypeError, match="must produce a pair"):
        didax.jvp(f, (1.0,), (1.0,))
    f.defjvp(lambda p, t: (p[0], jnp.ones(2)))
    with pytest.raises(TypeError, match="Expected float32\\[\\] \\(tangent type of float32\\[\\]\\) but got float32\\[2\\]"):
        didax.jvp(f, (1.0,), (1.0,))

    @didax.custom_vjp
    def h(x, y):
        return x * y

    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function h using defvjp."):
        h(1.0, 2.0)
    h.defvjp(lambda x, y: (h(x, y), None), lambda res, ct: (ct,))
    with pytest.raises(TypeError, match="Custom VJP bwd rule must produce an output with the same container"):
        didax.grad(h)(1.0, 2.0)


def test_custom_rules_inside_control_flow():
    f = lambda x: lax.scan(lambda c, _: (log1pexp(c) + g(c, 1.0), None), x, None, length=3)[0]  # noqa: E731
    eps = 1e-3
    fd = (f(0.3 + eps) - f(0.3 - eps)) / (2 * eps)
    np.testing.assert_allclose(didax.grad(f)(0.3), fd, rtol=1e-3)


def test_custom_vjp_symbolic_zeros_as_jax_shows_them():
    """defvjp(fwd, bwd, symbolic_zeros=True): fwd gets CustomVJPPrimal arguments (value, and
    whether it is differentiated), bwd a SymbolicZero for an unused output's cotangent, and may
    return one; what each saw, eagerly, under jit and through vmap both ways, is what JAX's saw."""
    import jax

    def build(lib):
        cd, seen = lib.custom_derivatives, []

        @lib.custom_vjp
        def f(x, y):
            return x * y, x + y

        def fwd(x, y):
            seen.append(("fwd", type(x).__name__, x.perturbed, y.perturbed, repr(x)[:15]))
            return f(x.value, y.value), (x.value, y.value)

        def bwd(res, cts):
            (x, y), (a, b) = res, cts
            seen.append(("bwd", repr(a) if isinstance(a, cd.SymbolicZero) else "-",
                         repr(b) if isinstance(b, cd.SymbolicZero) else "-"))  # fmt: skip
            a = 0.0 if isinstance(a, cd.SymbolicZero) else a
            b = 0.0 if isinstance(b, cd.SymbolicZero) else b
            return a * y + b, cd.SymbolicZero(b.aval) if isinstance(b, cd.SymbolicZero) else a * x + b

        f.defvjp(fwd, bwd, symbolic_zeros=True)
        xs = np.arange(3.0, dtype=np.float32)
        outs = [lib.grad(lambda x: f(x, np.float32(3.0))[0])(np.float32(2.0)),
                lib.grad(lambda x, y: f(x, y)[1], (0, 1))(np.float32(2.0), np.float32(3.0)),
                lib.jit(lib.grad(lambda x: f(x, np.float32(3.0))[0]))(np.float32(2.0)),
                lib.vmap(lib.grad(lambda x: f(x, np.float32(3.0))[0]))(xs),
                lib.grad(lambda v: lib.vmap(lambda x: f(x, x)[1])(v).sum())(xs)]  # fmt: skip
        return [np.asarray(o).tolist() for o in lib.tree_util.tree_leaves(outs)], seen

    ours, theirs = build(didax), build(jax)
    assert ours == theirs
