"""Custom derivative rules, ``jax.custom_jvp`` and ``jax.custom_vjp``: the rule the user gives is the
derivative every transformation uses. Each rule here differs on purpose from the function's own
derivative (three times it, say), so that a rule ignored, or used in one transformation and not
another, shows. Under ``jvp``, ``grad``, ``jit``, ``vmap`` and their compositions; ``defjvps``,
``nondiff_argnums``; symbolic zeros (a custom_jvp rule's SymbolicZero tangents, a custom_vjp fwd's
CustomVJPPrimal arguments and its bwd's SymbolicZero cotangents); and JAX's errors: forward mode
of a custom_vjp function, a bwd result of the wrong structure or type. Oracles: the rules' own
formulas, in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conformance.checks import assert_values, show_call
from conformance.impl import Impl, _submodule
from conformance.missing import Namespace
from conformance.test_jit import namespace

pytestmark = [pytest.mark.area("vjp"), pytest.mark.requires("vjp")]

F32 = np.dtype("float32")
X = np.array([-1.5, -0.25, 0.0, 0.75, 2.0], F32)
Y = np.array([0.5, -2.0, 1.25, 3.0, -0.75], F32)


def scope(impl: Impl) -> dict[str, Any]:
    """jax, jnp, lax, np, and cd (``jax.custom_derivatives``)."""
    cd = Namespace(_submodule(impl.module, "custom_derivatives"), "jax.custom_derivatives")
    return {**namespace(impl), "cd": cd}


def define(impl: Impl, source: str) -> dict[str, Any]:
    """Run the suite's own ``source`` (it defines functions) in the implementation's scope."""
    env = scope(impl)
    exec(compile(source, "<custom rule>", "exec"), env)
    return env


# f(x) = sin(x), whose rule says 3 cos(x): under every route, the derivative is 3 cos(x).
SIN_JVP = """
@jax.custom_jvp
def f(x):
    return jnp.sin(x)

@f.defjvp
def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x), 3.0 * jnp.cos(x) * t
"""
SIN_VJP = """
@jax.custom_vjp
def f(x):
    return jnp.sin(x)

def f_fwd(x):
    return f(x), jnp.cos(x)

def f_bwd(cos_x, g):
    return (3.0 * cos_x * g,)

f.defvjp(f_fwd, f_bwd)
"""
ROUTES = {
    "grad": lambda jax, f: jax.vmap(jax.grad(f)),
    "jit_of_grad": lambda jax, f: jax.jit(jax.vmap(jax.grad(f))),
    "grad_of_jit": lambda jax, f: jax.vmap(jax.grad(jax.jit(f))),
    "grad_of_a_sum_of_vmap": lambda jax, f: jax.grad(lambda x: jax.vmap(f)(x).sum()),
    "jacrev": lambda jax, f: lambda x: jax.numpy.diagonal(jax.jacrev(jax.vmap(f))(x)),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp"])
def test_the_rule_is_the_derivative(impl: Impl, kind: str, route: str) -> None:
    env = define(impl, SIN_JVP if kind == "custom_jvp" else SIN_VJP)
    got = ROUTES[route](env["jax"], env["f"])(X)
    assert_values(got, 3.0 * np.cos(X.astype(np.float64)), F32)
    assert_values(env["f"](X), np.sin(X.astype(np.float64)), F32)  # the function itself is fun


# f(x, y) = x - 2 y, with its rule (not used here: nothing differentiates) or under checkpoint.
TWO_ARGUMENTS = {
    "custom_jvp": "f = jax.custom_jvp(lambda x, y: x - 2.0 * y)\n"
                  "f.defjvps(lambda t, ans, x, y: t, lambda t, ans, x, y: -2.0 * t)",
    "custom_vjp": "f = jax.custom_vjp(lambda x, y: x - 2.0 * y)\n"
                  "f.defvjp(lambda x, y: (f(x, y), None), lambda r, g: (g, -2.0 * g))",
    "checkpoint": "f = jax.checkpoint(lambda x, y: x - 2.0 * y)",
}


@pytest.mark.parametrize("kind", TWO_ARGUMENTS)
def test_jit_of_the_function_itself_computes_it(impl: Impl, kind: str) -> None:
    """Compiled without being differentiated, the function is its primal computation, each argument
    in its place."""
    env = define(impl, TWO_ARGUMENTS[kind])
    show_call(TWO_ARGUMENTS[kind] + "\njax.jit(f)(x, y)", x=X, y=Y)
    assert_values(env["jax"].jit(env["f"])(X, Y), X.astype(np.float64) - 2 * Y, F32)


def test_custom_jvp_under_jvp_and_jit_of_jvp(impl: Impl) -> None:
    env = define(impl, SIN_JVP)
    jax, f = env["jax"], env["f"]
    for run in (jax.jvp, jax.jit(jax.jvp, static_argnums=0)):
        primal, tangent = run(f, (X,), (Y,))
        assert_values(primal, np.sin(X.astype(np.float64)), F32)
        assert_values(tangent, 3.0 * np.cos(X.astype(np.float64)) * Y, F32)


def test_defjvps_one_rule_per_argument(impl: Impl) -> None:
    """f(x, y) = x y with rules 2 t y and 5 t x: grad is (2y, 5x)."""
    env = define(impl, """
f = jax.custom_jvp(lambda x, y: x * y)
f.defjvps(lambda t, ans, x, y: 2.0 * t * y, lambda t, ans, x, y: 5.0 * t * x)
""")  # fmt: skip
    jax = env["jax"]
    dx, dy = jax.vmap(jax.grad(env["f"], (0, 1)))(X, Y)
    assert_values(dx, 2.0 * Y.astype(np.float64), F32)
    assert_values(dy, 5.0 * X.astype(np.float64), F32)


def test_custom_vjp_with_nondiff_argnums(impl: Impl) -> None:
    """f(n, x) = x ** n with n not differentiated; bwd(n, res, g) says 2 n x ** (n - 1) g."""
    env = define(impl, """
from functools import partial

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def f(n, x):
    return x ** n

def f_fwd(n, x):
    return f(n, x), x

def f_bwd(n, x, g):
    return (2.0 * n * x ** (n - 1) * g,)

f.defvjp(f_fwd, f_bwd)
""")  # fmt: skip
    jax = env["jax"]
    got = jax.vmap(jax.grad(lambda x: env["f"](3, x)))(X)
    assert_values(got, 6.0 * X.astype(np.float64) ** 2, F32)
    assert_values(jax.jit(jax.vmap(jax.grad(lambda x: env["f"](3, x))))(X), 6.0 * X.astype(np.float64) ** 2, F32)


def test_forward_mode_of_a_custom_vjp_function_is_a_type_error(impl: Impl) -> None:
    env = define(impl, SIN_VJP)
    with pytest.raises(TypeError):
        env["jax"].jvp(env["f"], (X,), (Y,))


@pytest.mark.parametrize(("bwd", "error"), [
    ("lambda res, g: (g, g)", TypeError),  # two cotangents for one argument
    ("lambda res, g: g", TypeError),  # not a tuple
    ("lambda res, g: (jnp.zeros(2),)", ValueError),  # the wrong shape
])  # fmt: skip
def test_a_bwd_result_of_the_wrong_structure_or_type(impl: Impl, bwd: str, error: type) -> None:
    env = define(impl, f"f = jax.custom_vjp(jnp.sin)\nf.defvjp(lambda x: (f(x), None), {bwd})")
    with pytest.raises(error):
        env["jax"].grad(lambda x: env["f"](x).sum())(X)


# Symbolic zeros: which arguments are perturbed (differentiated) and which cotangents are known to
# be zero is what the rules see. f(x, y) = (x y, x + y); each call records what fwd and bwd saw.
SYMBOLIC_VJP = """
seen = []

@jax.custom_vjp
def f(x, y):
    return x * y, x + y

def f_fwd(x, y):
    seen.append(("fwd", type(x).__name__, x.perturbed, y.perturbed))
    return f(x.value, y.value), (x.value, y.value)

def f_bwd(res, cts):
    x, y = res
    a, b = cts
    seen.append(("bwd", isinstance(a, cd.SymbolicZero), isinstance(b, cd.SymbolicZero)))
    a = 0.0 if isinstance(a, cd.SymbolicZero) else a
    b = 0.0 if isinstance(b, cd.SymbolicZero) else b
    return a * y + b, a * x + b

f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
"""
SYMBOLIC_CASES = {
    # (function of x and y, argnums): what fwd sees perturbed, which cotangents bwd sees as zero,
    # and the gradient (by the rule: d(xy) = (y, x), d(x + y) = (1, 1))
    "product_wrt_x": ("lambda x, y: f(x, y)[0]", 0, (True, False), {(False, True)}, lambda x, y: (y,)),
    "sum_wrt_both": ("lambda x, y: f(x, y)[1]", (0, 1), (True, True), {(True, False)},
                     lambda x, y: (np.ones_like(x), np.ones_like(y))),
    # two calls: the first's second cotangent is zero, the second's first
    "both_outputs_wrt_y": ("lambda x, y: f(x, y)[0] + f(x, y)[1]", 1, (False, True), {(False, True), (True, False)},
                           lambda x, y: (x + 1,)),
}  # fmt: skip


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", SYMBOLIC_CASES)
def test_custom_vjp_rules_see_symbolic_zeros(impl: Impl, case: str, jitted: bool) -> None:
    source, argnums, perturbed, zero_cts, want = SYMBOLIC_CASES[case]
    env = define(impl, SYMBOLIC_VJP)
    jax = env["jax"]
    g = jax.grad(eval(source, env), argnums)
    got = (jax.jit(g) if jitted else g)(np.float32(1.5), np.float32(-2.0))
    got = got if isinstance(got, tuple) else (got,)
    for value, expected in zip(got, want(np.float32(1.5), np.float32(-2.0)), strict=True):
        assert_values(value, np.asarray(expected, np.float64), F32)
    fwd = [s for s in env["seen"] if s[0] == "fwd"]
    bwd = [s for s in env["seen"] if s[0] == "bwd"]
    assert fwd and all(s[1:] == ("CustomVJPPrimal", *perturbed) for s in fwd), env["seen"]
    assert {s[1:] for s in bwd} == zero_cts, env["seen"]


def test_custom_vjp_symbolic_zeros_under_vmap(impl: Impl) -> None:
    """grad of a sum over vmap, and vmap of grad: the same flags for every example."""
    env = define(impl, SYMBOLIC_VJP)
    jax = env["jax"]
    per_example = jax.vmap(jax.grad(lambda x: env["f"](x, np.float32(2.0))[0]))(X)
    assert_values(per_example, np.full(X.shape, 2.0), F32)
    summed = jax.grad(lambda x: jax.vmap(lambda u, v: env["f"](u, v)[1])(x, Y).sum())(X)
    assert_values(summed, np.ones(X.shape), F32)
    # y shared by every example: its cotangent is the sum of theirs, d(sum x y)/dy = sum x
    shared = jax.grad(lambda y: jax.vmap(lambda u: env["f"](u, y)[0])(X).sum())(np.float32(2.0))
    assert_values(shared, np.float64(X.astype(np.float64).sum()), F32, atol=1e-6)
    assert {s[1:] for s in env["seen"] if s[0] == "fwd"} == {("CustomVJPPrimal", True, False),
                                                              ("CustomVJPPrimal", False, True)}
    assert {s[1:] for s in env["seen"] if s[0] == "bwd"} == {(False, True), (True, False)}


def test_custom_jvp_rule_sees_symbolic_zeros(impl: Impl) -> None:
    """With symbolic_zeros=True, the tangent of an argument not differentiated is a SymbolicZero."""
    env = define(impl, """
seen = []
f = jax.custom_jvp(lambda x, y: x * y)

def f_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    seen.append((isinstance(tx, cd.SymbolicZero), isinstance(ty, cd.SymbolicZero)))
    tx = 0.0 if isinstance(tx, cd.SymbolicZero) else tx
    ty = 0.0 if isinstance(ty, cd.SymbolicZero) else ty
    return x * y, 4.0 * (tx * y + x * ty)

f.defjvp(f_jvp, symbolic_zeros=True)
""")  # fmt: skip
    jax = env["jax"]
    got = jax.grad(env["f"], 1)(np.float32(1.5), np.float32(-2.0))
    assert_values(got, np.float64(6.0), F32)
    assert env["seen"] == [(True, False)]
