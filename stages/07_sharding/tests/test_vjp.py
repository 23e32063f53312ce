"""Reverse mode: the seeds' values, the compositionality stress test (calling ``foo``, where the
seed calls ``f``), every route to a derivative agreeing, transposes checked by the dot-product
test against forward mode, control flow, jit, and JAX's errors."""

import functools
from collections.abc import Callable

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax, xla


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def central_difference(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# --- the seeds' values (Autodidax part 4, in float64) -------------------------------------------


def test_seed_linearize_sin(x64):
    y, f_lin = didax.linearize(jnp.sin, 3.0)
    assert float(y) == pytest.approx(0.1411200080598672, rel=1e-15)
    assert float(f_lin(1.0)) == pytest.approx(-0.9899924966004454, rel=1e-15)


def test_seed_linearize_jitted_and_nested_jit(x64):
    @didax.jit
    def f(x):
        return -(jnp.sin(x) * 2.0) + x

    y, f_lin = didax.linearize(f, 3.0)
    np.testing.assert_allclose([y, f_lin(1.0)], [2.7177599838802657, 2.979984993200891], rtol=1e-15)

    @didax.jit
    def g(x, y):
        return jnp.cos(x) + y

    @didax.jit
    def h(x):
        return g(x, jnp.sin(x) * 2.0)

    y, h_lin = didax.linearize(h, 3.0)
    np.testing.assert_allclose([y, h_lin(1.0)], [-0.7077524804807109, -2.121105001260758], rtol=1e-15)


def test_seed_grad_and_grad_of_nested_jit(x64):
    assert float(didax.grad(lambda x: -(jnp.sin(x) * 2.0) + x)(3.0)) == pytest.approx(2.979984993200891, rel=1e-15)

    @didax.jit
    def g(x):
        return jnp.cos(x) * 2.0

    @didax.jit
    def f(x):
        return g(x * 2.0)

    assert float(didax.grad(f)(3.0)) == pytest.approx(1.1176619927957034, rel=1e-15)


def test_seed_vjp_returns_a_tuple(x64):
    y, f_vjp = didax.vjp(jnp.sin, 3.0)
    (ct,) = f_vjp(1.0)
    assert float(ct) == pytest.approx(np.cos(3.0), rel=1e-15)


def test_seed_cond_linearize_and_grad():
    _, f_lin = didax.linearize(lambda x: lax.cond(True, lambda: x, lambda: 0.0), 1.0)
    assert float(f_lin(3.14)) == pytest.approx(3.14)
    _, f_lin = didax.linearize(didax.jit(lambda x: lax.cond(True, lambda: x, lambda: 0.0)), 1.0)
    assert float(f_lin(3.14)) == pytest.approx(3.14)
    assert float(didax.grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0))(1.0)) == 2.0


def test_seed_float32_values():
    # JAX's documentation: grad of tanh three times, and of a sum of logistics.
    g = didax.grad(jnp.tanh)
    np.testing.assert_allclose(
        [g(2.0), didax.grad(g)(2.0), didax.grad(didax.grad(g))(2.0)], [0.070650816, -0.13621868, 0.25265405], rtol=2e-6
    )
    sum_logistic = lambda x: jnp.sum(1.0 / (1.0 + jnp.exp(-x)))  # noqa: E731
    np.testing.assert_allclose(didax.grad(sum_logistic)(jnp.arange(3.0)), [0.25, 0.19661197, 0.10499357], rtol=1e-6)


# --- the compositionality stress test, calling foo ---------------------------------------------


def foo(x):
    @didax.jit
    def bar(y):
        def baz(w):
            q = didax.jit(lambda x: y)(x)
            q = q + didax.jit(lambda: y)()
            q = q + didax.jit(lambda y: w + y)(y)
            q = didax.jit(lambda w: didax.jit(jnp.sin)(x) * y)(1.0) + q
            return q

        p, t = didax.jvp(baz, (x + 1.0,), (y,))
        return t + (x * p)

    return bar(x)


def test_stress_test_values_agree(x64):
    values = [foo(3.0), didax.jit(foo)(3.0), didax.jvp(foo, (3.0,), (5.0,))[0], didax.jvp(didax.jit(foo), (3.0,), (5.0,))[0]]
    np.testing.assert_allclose(values, [values[0]] * 4, rtol=1e-14)


def test_stress_test_five_derivatives_agree_with_finite_differences(x64):
    derivs = [
        didax.grad(foo)(3.0),
        didax.grad(didax.jit(foo))(3.0),
        didax.jit(didax.grad(didax.jit(foo)))(3.0),
        didax.jvp(foo, (3.0,), (1.0,))[1],
        didax.jvp(didax.jit(foo), (3.0,), (1.0,))[1],
    ]
    expected = central_difference(lambda x: float(foo(x)), 3.0)
    np.testing.assert_allclose(derivs, [expected] * 5, rtol=1e-7)


def test_stress_test_seven_hessians_agree_with_finite_differences(x64):
    g = didax.grad(foo)
    hessians = [
        didax.grad(didax.grad(foo))(3.0),
        didax.grad(didax.grad(didax.jit(foo)))(3.0),
        didax.grad(didax.jit(didax.grad(foo)))(3.0),
        didax.jit(didax.grad(didax.grad(foo)))(3.0),
        didax.jvp(didax.grad(foo), (3.0,), (1.0,))[1],
        didax.jvp(didax.jit(didax.grad(foo)), (3.0,), (1.0,))[1],
        didax.hessian(foo)(3.0),
    ]
    expected = central_difference(lambda x: float(g(x)), 3.0)
    np.testing.assert_allclose(hessians, [expected] * 7, rtol=1e-6)


# --- transposes: the dot-product test <u, J v> = <J^T u, v> -------------------------------------

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 4))
B = rng.normal(size=(4, 5))
IDX = np.array([[0], [2], [2]])
C = rng.normal(size=(2, 5, 4))
D = rng.normal(size=(2, 3, 5))

LINEAR_CASES = {
    "add": (lambda x: x + jnp.ones_like(x) * x, (3, 4)),
    "sub_neg": (lambda x: -(x - 2.0 * x), (3,)),
    "mul_div": (lambda x: x * A / 3.0, (3, 4)),
    "broadcasting": (lambda x: x + jnp.arange(4.0) * x[:, :1], (3, 4)),
    "reduce_sum": (lambda x: x.sum(0) + x.sum(), (3, 4)),
    "broadcast_in_dim": (lambda x: jnp.broadcast_to(x[:, None], (3, 2, 4)), (3, 4)),
    "reshape_squeeze": (lambda x: x.reshape(2, 6)[None].squeeze(0), (3, 4)),
    "transpose": (lambda x: x.T * 2.0, (3, 4)),
    "rev": (lambda x: jnp.flip(x, (0, 1)), (3, 4)),
    "pad": (lambda x: lax.pad(x, 0.0, [(1, -1, 1), (2, 0, 0)]), (3, 4)),
    "pad_value": (lambda x: lax.pad(x[1:], x[0, 0], [(1, 2, 1), (0, 1, 2)]), (3, 4)),
    "concatenate": (lambda x: jnp.concatenate([x, 2.0 * x[:1]], 0), (3, 4)),
    "slice_strided": (lambda x: x[::2, 1::3], (5, 7)),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), (3, 4)),
    "dynamic_update_slice": (lambda x: lax.dynamic_update_slice(x, x[:1, :2] * 3.0, (2, 1)), (3, 4)),
    "gather": (lambda x: x[IDX[:, 0]] * 2.0 + x[jnp.array([1, 1, 0]), 2:].sum(), (3, 4)),
    "scatter_add": (lambda x: jnp.zeros((4, 4)).at[jnp.array([0, 2, 2])].add(x), (3, 4)),
    "scatter": (lambda x: jnp.ones((3, 4)).at[1].set(x[0]) * x, (3, 4)),
    "scatter_repeated": (lambda x: x.at[jnp.array([0, 0, 2])].set(x[::-1] * 2.0), (3, 4)),
    "select_n": (lambda x: jnp.where(A > 0, x, 2.0 * x), (3, 4)),
    "dot_general": (lambda x: jnp.concatenate([(x @ B).ravel(), (A.T @ x).ravel()]), (3, 4)),
    "batched_dot": (lambda x: jnp.einsum("bij,bkj->bik", x, C) + jnp.einsum("bij,bik->bjk", D, x).sum(), (2, 3, 4)),
    "cumsum": (lambda x: jnp.cumsum(x, 1) + lax.cumsum(x, 0, reverse=True), (3, 4)),
    "convert": (lambda x: jnp.real(x.astype(jnp.complex128) * 2.0), (3,)),
    "max_min": (lambda x: jnp.max(x, 1) + jnp.minimum(x, 0.5).sum(), (3, 4)),
    "sort": (lambda x: jnp.sort(x, 1) * jnp.arange(4.0), (3, 4)),
    "cumprod": (lambda x: jnp.cumprod(x, 1), (3, 4)),
    "triangular_solve": (lambda x: lax.linalg.triangular_solve(jnp.tril(A[:, :3]) + 3 * jnp.eye(3), x, left_side=True,
                                                               lower=True, transpose_a=True), (3, 4)),
}


def check_pullback_by_finite_differences(f: Callable, *args: np.ndarray, rng: np.random.Generator) -> None:
    """<ct, J t> = <J^T ct, t> for every operand at once, J t by central differences (a tangent
    per operand, then a cotangent, drawn from ``rng``); each cotangent shaped as its operand."""
    tangents = [rng.normal(size=a.shape) for a in args]
    y, pullback = didax.vjp(f, *args)
    ct = rng.normal(size=y.shape)
    cts = pullback(ct)
    h = 1e-6
    jt = (np.asarray(f(*(a + h * t for a, t in zip(args, tangents))))
          - np.asarray(f(*(a - h * t for a, t in zip(args, tangents))))) / (2 * h)
    np.testing.assert_allclose(np.sum(ct * jt), sum(np.sum(c * t) for c, t in zip(cts, tangents)), rtol=1e-7)
    assert [np.shape(c) for c in cts] == [a.shape for a in args]


@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_vjp_of_cholesky_and_triangular_solve_by_finite_differences(x64, unit_diagonal):
    """<ct, J t> = <J^T ct, t> through a Cholesky factor and a solve against it, both operands."""
    rng = np.random.default_rng(9)
    m = rng.normal(size=(2, 3, 3))

    def f(s, b):
        factor = lax.linalg.cholesky(s @ jnp.swapaxes(s, -1, -2) + 3 * jnp.eye(3))
        return lax.linalg.triangular_solve(factor, b, lower=True, unit_diagonal=unit_diagonal)

    check_pullback_by_finite_differences(f, m, rng.normal(size=(2, 4, 3)), rng=rng)


def test_vjp_of_lu_eigh_svd_and_what_is_built_on_them_by_finite_differences(x64):
    """<ct, J t> = <J^T ct, t> through LU of a wide and a tall batch (rows swapped), through solve,
    inv, det and slogdet, eigh, svd, pinv, lstsq and qr: each a linearized JVP transposed."""
    rng = np.random.default_rng(10)
    for shape in [(2, 3, 4), (4, 3)]:
        check_pullback_by_finite_differences(lambda x: lax.linalg.lu(x)[0], rng.normal(size=shape), rng=rng)
    a, b = rng.normal(size=(4, 4)) + 3 * np.eye(4)[::-1], rng.normal(size=(4, 2))
    check_pullback_by_finite_differences(jnp.linalg.solve, a, b, rng=rng)
    check_pullback_by_finite_differences(lambda a: jnp.linalg.inv(a) + jnp.linalg.det(a) + jnp.linalg.slogdet(a)[1],
                                         a, rng=rng)  # fmt: skip
    symmetric = a + a.T  # eigenvalues and singular values apart
    check_pullback_by_finite_differences(lambda h: lax.linalg.eigh(h)[1] + lax.linalg.eigh(h)[0][0] ** 2, symmetric, rng=rng)
    check_pullback_by_finite_differences(lambda x: jnp.linalg.svd(x, compute_uv=False), rng.normal(size=(2, 4, 3)), rng=rng)
    check_pullback_by_finite_differences(lambda x: jnp.linalg.pinv(x) + jnp.linalg.lstsq(x.T, b[:, 0])[0], rng.normal(size=(3, 4)),
                                         rng=rng)  # fmt: skip
    for shape in [(2, 4, 3), (3, 4)]:  # QR, tall (Q's last column too) and wide, with and without pivoting
        check_pullback_by_finite_differences(lambda x: lax.linalg.qr(x)[0][..., :3, :3] + lax.linalg.qr(x, pivoting=True)[1][..., :3, :3],
                                             rng.normal(size=shape), rng=rng)  # fmt: skip


@pytest.mark.parametrize("name", sorted(LINEAR_CASES))
def test_vjp_is_the_transpose_of_jvp(x64, name):
    f, shape = LINEAR_CASES[name]
    x = rng.normal(size=shape)
    v = rng.normal(size=shape)
    y, Jv = didax.jvp(f, (x,), (v,))
    u = rng.normal(size=np.shape(y))
    y2, f_vjp = didax.vjp(f, x)
    (JTu,) = f_vjp(u)
    np.testing.assert_allclose(y2, y, rtol=1e-12)
    assert JTu.shape == x.shape and JTu.dtype == x.dtype
    np.testing.assert_allclose(np.vdot(u, Jv), np.vdot(JTu, v), rtol=1e-10, atol=1e-12)


def test_complex_real_imag_transposes(x64):
    f = lambda z: jnp.real(z) * 2.0 + jnp.imag(z) * 3.0  # noqa: E731
    z = np.array([1 + 2j, -0.5j])
    _, f_vjp = didax.vjp(f, z)
    (ct,) = f_vjp(np.ones(2))
    # the transpose of z -> 2 Re z + 3 Im z is c -> 2c - 3ic, as JAX defines it
    np.testing.assert_allclose(ct, [2 - 3j, 2 - 3j])


def test_linear_transpose_matches_the_example():
    scalar = didax.ShapeDtypeStruct((), np.float32)
    f_t = didax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, scalar, scalar)
    a, b = f_t(1.0)
    assert (float(a), float(b)) == (0.5, -0.5)


def test_linear_transpose_of_a_matrix_product_is_the_transposed_matrix():
    x = np.ones(4, np.float32)
    (ct,) = didax.linear_transpose(lambda v: jnp.asarray(A, np.float32) @ v, x)(np.arange(3.0, dtype=np.float32))
    np.testing.assert_allclose(ct, A.T.astype(np.float32) @ np.arange(3.0), rtol=1e-6)


# --- Jacobians and Hessians ------------------------------------------------------------------------


def g3(x, y):
    return jnp.stack([x[0] * jnp.sin(y), x[1] ** 2 * y, jnp.exp(x[2] - y)])


def test_jacrev_equals_jacfwd_for_every_argnums(x64):
    x, y = np.array([0.3, -1.2, 0.7]), 0.4
    for argnums in (0, 1, (0, 1)):
        rev, fwd = didax.jacrev(g3, argnums)(x, y), didax.jacfwd(g3, argnums)(x, y)
        didax.tree_util.tree_map(functools.partial(np.testing.assert_allclose, rtol=1e-12), rev, fwd)


def test_four_hessian_routes_agree_with_a_loop(x64):
    f = lambda x: jnp.sum(jnp.sin(x) * x[::-1] ** 2)  # noqa: E731
    x = np.array([0.3, -1.2, 0.7, 2.0])
    loop = np.stack([central_difference(lambda t: np.asarray(didax.grad(f)(x + t * e)), 0.0) for e in np.eye(4)])
    for h in (didax.hessian(f), didax.jacfwd(didax.jacrev(f)), didax.jacrev(didax.jacfwd(f)), didax.jacrev(didax.jacrev(f))):
        np.testing.assert_allclose(h(x), loop, rtol=1e-6, atol=1e-8)


def test_jacrev_pytrees_and_aux():
    f = lambda p: ({"a": p["w"] * 2.0, "b": p["w"].sum()}, "aux")  # noqa: E731
    jac, aux = didax.jacrev(f, has_aux=True)({"w": jnp.ones(2)})
    assert aux == "aux"
    np.testing.assert_allclose(jac["a"]["w"], 2.0 * np.eye(2))
    np.testing.assert_allclose(jac["b"]["w"], np.ones(2))


def test_vmap_of_grad_gives_per_example_gradients():
    w = np.array([0.5, -1.0, 2.0], np.float32)
    xs = np.arange(12.0, dtype=np.float32).reshape(4, 3) / 10
    loss = lambda w, x: jnp.tanh(x @ w) ** 2  # noqa: E731
    per_example = didax.vmap(didax.grad(loss), in_axes=(None, 0))(w, xs)
    expected = np.stack([didax.grad(loss)(w, x) for x in xs])
    np.testing.assert_allclose(per_example, expected, rtol=1e-6)


# --- control flow and jit ------------------------------------------------------------------------


def test_grad_through_scan_and_fori_loop(x64):
    def f(x):
        c, ys = lax.scan(lambda c, xi: (jnp.sin(c * x) + xi, c * xi), x, jnp.arange(4.0))
        return c + ys.sum() + lax.fori_loop(0, 3, lambda i, v: v * x + i, 1.0)

    assert float(didax.grad(f)(0.7)) == pytest.approx(central_difference(lambda x: float(f(x)), 0.7), rel=1e-7)
    assert float(didax.jit(didax.grad(f))(0.7)) == pytest.approx(float(didax.grad(f)(0.7)), rel=1e-12)


def test_grad_through_switch_picks_the_branch(x64):
    f = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x**3], x)  # noqa: E731
    np.testing.assert_allclose([didax.grad(f, 1)(i, 0.5) for i in range(3)], [np.cos(0.5), -np.sin(0.5), 0.75])


def test_while_loop_linearizes_but_grad_raises_jaxs_error():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]

    _, f_lin = didax.linearize(f, 2.0)
    assert float(f_lin(1.0)) == pytest.approx(12.0)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        didax.grad(f)(2.0)
    with pytest.raises(ValueError, match="fori_loop with dynamic start/stop"):
        # a bound staged by jit is not known: the fori_loop is a while loop
        didax.jit(didax.grad(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * x, 1.0)))(2.0, 3)


def test_grad_of_jit_compiles_once_per_signature(monkeypatch):
    compiled = []
    real = xla.compile
    monkeypatch.setattr(xla, "compile", lambda *a, **k: compiled.append(1) or real(*a, **k))
    f = didax.jit(lambda x: jnp.sin(x) * x)
    for route in (didax.grad(f), didax.jit(didax.grad(f)), didax.jit(didax.grad(didax.jit(f)))):
        route(1.0)
        before = len(compiled)
        route(2.0)
        route(3.0)
        assert len(compiled) == before


# --- API details and errors ------------------------------------------------------------------------


def test_argnums_has_aux_and_value_and_grad():
    f = lambda x, y: (x * y**2, {"x": x})  # noqa: E731
    (value, aux), (gx, gy) = didax.value_and_grad(f, argnums=(0, 1), has_aux=True)(3.0, 2.0)
    assert (float(value), float(gx), float(gy), float(aux["x"])) == (12.0, 4.0, 12.0, 3.0)
    g, aux = didax.grad(f, argnums=1, has_aux=True)(3.0, 2.0)
    assert float(g) == 12.0 and float(aux["x"]) == 3.0


def test_grad_errors_are_jaxs():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions. Output had shape: \\(3,\\)"):
        didax.grad(lambda x: x * 2)(jnp.ones(3))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        didax.grad(lambda x: x * 2.0)(3)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        didax.grad(lambda x: (x * 2).astype(jnp.int32))(3.0)
    with pytest.raises(TypeError, match="differentiating with respect to argnums=1 requires at least 2"):
        didax.grad(lambda x, y=1.0: x * y, argnums=1)(3.0)


def test_allow_int_gives_float0_cotangents():
    g = didax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(g[0]) == 3.0
    assert g[1].dtype == didax.dtypes.float0 and g[1].shape == ()


def test_float0_values_go_in_and_out_of_a_vjp_differentiated_again(x64):
    """An integer's cotangent is a float0 output of the vjp of a vjp, and its tangent a float0 input
    of the vjp of a jvp: both get float0 cotangents, as in JAX."""
    x, n = np.array([1.0, 2.0]), np.array([1, 2], np.int32)
    f = lambda x, n: x * n  # noqa: E731
    ct_x, ct_n = didax.vjp(lambda x, n: didax.vjp(f, x, n)[1](np.ones(2)), x, n)[1](
        (np.ones(2), np.zeros(2, didax.dtypes.float0)))  # fmt: skip
    np.testing.assert_array_equal(ct_x, [0.0, 0.0])
    assert ct_n.dtype == didax.dtypes.float0 and ct_n.shape == (2,)
    t = (np.ones(2), np.zeros(2, didax.dtypes.float0))
    (ct_p, ct_t) = didax.vjp(lambda p, t: didax.jvp(f, p, t), (x, n), t)[1]((np.ones(2), np.ones(2)))
    np.testing.assert_array_equal(ct_p[0], [1.0, 2.0])
    np.testing.assert_array_equal(ct_t[0], [1.0, 2.0])
    assert ct_p[1].dtype == ct_t[1].dtype == didax.dtypes.float0


def test_vjp_checks_its_cotangent():
    _, f_vjp = didax.vjp(lambda x: x * 2.0, jnp.ones(3))
    with pytest.raises(ValueError, match="unexpected JAX type"):
        f_vjp(jnp.ones(4))
    with pytest.raises(TypeError, match="must be called with a single argument"):
        f_vjp(jnp.ones(3), jnp.ones(3))


def test_a_vjp_function_called_twice_gives_the_same_result():
    _, f_vjp = didax.vjp(lambda x: jnp.sin(x) * x, jnp.arange(3.0))
    first, second = f_vjp(jnp.ones(3)), f_vjp(jnp.ones(3))
    np.testing.assert_array_equal(first[0], second[0])


def test_a_value_read_many_times_sums_its_cotangents():
    f = lambda x: sum(x * float(i) for i in range(50))  # noqa: E731
    assert float(didax.grad(f)(1.0)) == sum(range(50))


def test_a_chain_of_5000_operations_needs_no_recursion():
    def f(x):
        for _ in range(5000):
            x = jnp.sin(x)
        return x

    y, f_vjp = didax.vjp(f, 0.1)
    expected = 1.0
    x = 0.1
    for _ in range(5000):
        expected *= np.cos(np.float32(x))
        x = np.sin(np.float32(x))
    np.testing.assert_allclose(f_vjp(1.0)[0], expected, rtol=1e-3)


def test_a_failed_grad_leaves_no_state_behind():
    from didax.core import trace_state

    depth = len(trace_state.trace_stack)
    with pytest.raises(TypeError):
        didax.grad(lambda x: x * jnp.ones(2))(1.0)
    assert len(trace_state.trace_stack) == depth and not didax.core.is_staging()
    assert float(didax.grad(jnp.sin)(0.0)) == 1.0


@pytest.mark.parametrize("name, n", [("rfft", 8), ("rfft", 7), ("irfft", 8), ("irfft", 7), ("fft", 6), ("ifft", 5),
                                     ("rfft2", 6), ("irfft2", 5)])
def test_vjp_of_each_fourier_transform_by_finite_differences(x64, name, n):
    """<ct, J t> = <J^T ct, t> with J t from central differences: the transposes of all four
    kinds, odd and even lengths (the Nyquist bin's weight), over one and two axes."""
    rng = np.random.default_rng(n)
    forward = getattr(jnp.fft, name)
    inverse = name.startswith("i")
    shape = (3, n // 2 + 1) if "irfft" in name else (3, n)
    x = rng.normal(size=shape) + (1j * rng.normal(size=shape) if inverse or name == "fft" else 0)
    t = rng.normal(size=shape) + (1j * rng.normal(size=shape) if x.dtype.kind == "c" else 0)

    def f(a):
        return forward(a, n) if "2" not in name else forward(a, s=(3, n))

    y, pullback = didax.vjp(f, x)
    ct = rng.normal(size=y.shape) + (1j * rng.normal(size=y.shape) if y.dtype.kind == "c" else 0)
    (ct_x,) = pullback(ct)
    h = 1e-6
    jt = (np.asarray(f(x + h * t)) - np.asarray(f(x - h * t))) / (2 * h)
    # JAX pairs a cotangent with a tangent as Re(sum(ct * t)), conjugating neither.
    np.testing.assert_allclose(np.real(np.sum(ct * jt)), np.real(np.sum(np.asarray(ct_x) * t)), rtol=1e-7)
    assert np.asarray(ct_x).dtype == x.dtype


def test_grad_of_reduce_precision_rounds_the_cotangent_as_jax_does():
    g = didax.grad(lambda a: lax.reduce_precision(a, 8, 7) * np.float32(1 + 2**-9))(np.float32(3.0))
    assert float(g) == 1.0  # 1 + 2**-9 rounded to bfloat16's 7 mantissa bits


CONV_CASES = [
    dict(window_strides=(2, 1), padding=[(1, 0), (0, 2)], rhs_dilation=(1, 2), feature_group_count=2),
    dict(window_strides=(1, 3), padding="SAME", lhs_dilation=(1, 1), batch_group_count=2),
    dict(window_strides=(1, 2), padding=[(2, -1), (1, 1)], lhs_dilation=(2, 1), dimension_numbers=("NHWC", "HWIO", "CNWH")),
]


@pytest.mark.parametrize("params", CONV_CASES, ids=["feature groups", "batch groups", "input dilation, layouts"])
def test_vjp_of_a_convolution_by_finite_differences(x64, params):
    """<ct, J t> = <J^T ct, t> for both operands at once: the input's cotangent (a convolution
    with the flipped kernel) and the kernel's (a convolution of the input with the cotangent)."""
    rng = np.random.default_rng(8)
    numbers = params.get("dimension_numbers")
    x = rng.normal(size=(4, 5, 6, 4) if numbers else (4, 4, 5, 6))
    w = rng.normal(size=(3, 2, 4, 2) if numbers else (6, 2 if "feature_group_count" in params else 4, 3, 2))

    def f(a, b):
        return lax.conv_general_dilated(a, b, **params)

    check_pullback_by_finite_differences(f, x, w, rng=rng)


@pytest.mark.parametrize("name, init", [("add", 0.0), ("max", -np.inf), ("min", np.inf), ("mul", 1.0)])
def test_vjp_of_a_windowed_reduction_by_finite_differences(x64, name, init):
    """<ct, J t> = <J^T ct, t>, with strides, pads that crop, and both dilations: the sum's
    transpose (a window sum of the spread cotangent), and the max's and min's (their JVPs' slices
    and selections transposed). JAX 0.10.2 has no VJP for a max or min with a dilation, nor for a
    product (another computation, which didax folds with slices, and JAX cannot linearize)."""
    def f(a):
        return lax.reduce_window(a, init, getattr(lax, name), (3, 2), (2, 1), [(1, 2), (-1, 0)], (2, 1), (1, 2))

    rng = np.random.default_rng(9)
    x, t = rng.normal(size=(5, 7)), rng.normal(size=(5, 7))
    y, pullback = didax.vjp(f, x)
    finite = np.isfinite(np.asarray(y))
    ct = np.where(finite, rng.normal(size=y.shape), 0.0)
    (ct_x,) = pullback(ct)
    h = 1e-6
    jt = (np.asarray(f(x + h * t))[finite] - np.asarray(f(x - h * t))[finite]) / (2 * h)
    np.testing.assert_allclose(np.sum(ct[finite] * jt), np.sum(ct_x * t), rtol=1e-7)
    assert ct_x.shape == x.shape and finite.any()
