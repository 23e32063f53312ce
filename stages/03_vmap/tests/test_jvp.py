"""Forward mode: the seeds' golden values (notes/requirements-digest.md §2), nesting, symbolic
zeros, float0 tangents, jvp's argument checks, and the rules against finite differences."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax
from didax.ad import JVPTrace, Zero, jvp_rules, missing_rules
from didax.core import trace_state
from didax.errors import UnexpectedTracerError


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def deriv(f: Callable) -> Callable:
    return lambda x: didax.jvp(f, (x,), (1.0,))[1]


# --- the seeds' values -------------------------------------------------------------------------


def test_jvp_of_sin_is_cos_as_in_the_seeds(x64):
    primal, tangent = didax.jvp(jnp.sin, (3.0,), (1.0,))
    assert float(primal) == 0.1411200080598672
    assert float(tangent) == -0.9899924966004454


def test_jvp_of_the_first_program(x64):
    def f(x):
        return -(jnp.sin(x) * 2.0) + x

    primal, tangent = didax.jvp(f, (3.0,), (1.0,))
    assert (float(primal), float(tangent)) == (2.7177599838802657, 2.979984993200891)


def test_four_nested_derivatives_of_sin(x64):
    seeds = [-0.9899924966004454, -0.1411200080598672, 0.9899924966004454, 0.1411200080598672]
    f = jnp.sin
    for want in seeds:
        f = deriv(f)
        assert float(f(3.0)) == pytest.approx(want, rel=1e-14)


def test_python_control_flow_on_primal_values(x64):
    def f(x):
        if x > 0.0:
            return 2.0 * x
        return x

    assert float(deriv(f)(3.0)) == 2.0
    assert float(deriv(f)(-3.0)) == 1.0


def test_pytree_output_keeps_its_structure_with_sorted_dict_keys(x64):
    def f(x):
        return {"there": [x, jnp.cos(x) * 2.0], "hi": -(jnp.sin(x) * 2.0) + x}

    primals, tangents = didax.jvp(f, (3.0,), (1.0,))
    assert list(primals) == ["hi", "there"]
    assert float(primals["hi"]) == 2.7177599838802657
    assert [float(v) for v in primals["there"]] == [3.0, 2 * np.cos(3.0)]
    assert float(tangents["hi"]) == 2.979984993200891
    assert [float(v) for v in tangents["there"]] == [1.0, pytest.approx(-2 * np.sin(3.0), rel=1e-15)]


# --- nesting -----------------------------------------------------------------------------------


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1: the inner derivative must not see x's tangent.
    def f(x):
        return x * deriv(lambda y: x + y)(2.0)

    for point in (0.0, 1.5, -7.0):
        assert float(deriv(f)(point)) == 1.0


def test_nested_jvp_of_a_product_differentiates_both_levels():
    # d/dx d/dy (x * y * y) at (x, y) = 2 * y
    def inner(x):
        return deriv(lambda y: x * y * y)(3.0)

    assert float(deriv(inner)(5.0)) == 6.0


def test_trace_stack_is_clean_after_jvp_and_after_an_error():
    depth = len(trace_state.trace_stack)
    didax.jvp(deriv(jnp.sin), (1.0,), (1.0,))
    assert len(trace_state.trace_stack) == depth

    def fails(x):
        jnp.sin(x)
        raise ValueError("in the middle of a transformation")

    with pytest.raises(ValueError, match="in the middle"):
        didax.jvp(deriv(fails), (1.0,), (1.0,))
    assert len(trace_state.trace_stack) == depth


def test_an_escaped_tracer_raises_and_the_next_jvp_works():
    leaked = []

    def f(x):
        leaked.append(x)
        return jnp.sin(x)

    didax.jvp(f, (1.0,), (1.0,))
    with pytest.raises(UnexpectedTracerError):
        jnp.cos(leaked[0])
    assert float(didax.jvp(jnp.sin, (0.0,), (1.0,))[1]) == 1.0


# --- symbolic zeros and float0 -----------------------------------------------------------------


def test_integer_inputs_and_outputs_have_float0_tangents():
    x = jnp.arange(3)
    primal, tangent = didax.jvp(lambda i: i * 2, (x,), (np.zeros(3, didax.dtypes.float0),))
    assert np.array_equal(np.asarray(primal), [0, 2, 4])
    assert tangent.dtype == didax.dtypes.float0 and tangent.shape == (3,)
    _, (t_bool, t_int) = didax.jvp(lambda v: (v > 1, v.astype(int)), (3.0,), (1.0,))
    assert t_bool.dtype == t_int.dtype == didax.dtypes.float0


def test_a_float0_type_prints_as_jaxs():
    """float0's NumPy name is 'void'; its type prints as JAX's, float0[3] (text checked against JAX)."""
    aval = didax.core.ShapedArray((3,), didax.dtypes.float0)
    assert (str(aval), aval.str_short(), repr(aval)) == ("float0[3]", "float0[3]", "ShapedArray(float0[3])")


def test_keys_have_float0_tangents_and_random_primitives_zero_rules():
    """A key cannot move: its tangent is float0, and so is the tangent of every key a function
    makes; a sample drawn from a fixed key is a constant, scaled here by the input."""
    key = didax.random.key(0)
    float0 = didax.dtypes.float0
    (keys, x), (t_keys, t_x) = didax.jvp(lambda k, x: (didax.random.split(k, 3), x), (key, 1.0),
                                         (np.zeros((), float0), 2.0))  # fmt: skip
    assert keys.dtype.name == "key<fry>" and t_keys.dtype == float0 and t_keys.shape == (3,)
    sample = np.asarray(didax.random.normal(key, (2,)))
    primal, tangent = didax.jvp(lambda x, k: x * didax.random.normal(k, (2,)), (3.0, key), (1.0, np.zeros((), float0)))
    assert np.allclose(np.asarray(primal), 3 * sample) and np.allclose(np.asarray(tangent), sample)
    with pytest.raises(TypeError, match="Got primal dtype key<fry> and so expected tangent dtype"):
        didax.jvp(didax.random.split, (key,), (np.zeros((), np.float32),))
    # Each random primitive's rule (never reached by jvp, whose key tangents are symbolic zeros)
    # gives the primal and a float0 zero.
    from didax import prng

    out, t_out = jvp_rules[prng.random_split_p]([key], [np.zeros((), float0)], shape=(2,))
    assert np.array_equal(np.asarray(didax.random.key_data(out)), np.asarray(didax.random.key_data(didax.random.split(key))))
    assert type(t_out) is Zero and t_out.aval.dtype == float0 and t_out.aval.shape == (2,)
    _, t_bits = jvp_rules[prng.random_bits_p]([key], [np.zeros((), float0)], bit_width=32, shape=(4,))
    assert type(t_bits) is Zero and t_bits.aval.dtype == float0 and t_bits.aval.shape == (4,)


def test_an_output_independent_of_the_input_has_a_zero_tangent():
    primal, tangent = didax.jvp(lambda x: jnp.ones(2) * 3.0, (1.0,), (1.0,))
    assert np.array_equal(np.asarray(tangent), [0.0, 0.0])
    assert np.asarray(tangent).dtype == np.float32


def test_zero_tangents_stay_symbolic_inside_the_program():
    # stop_gradient gives a Zero, and a value with a zero tangent leaves the interpreter (its
    # tracer lowers to the primal): sin runs on the primal alone, never seen by JVPTrace.
    seen: list[tuple[str, list]] = []
    process = JVPTrace.process_primitive

    def record(self, primitive, tracers, params):
        seen.append((primitive.name, [t.tangent for t in tracers]))
        return process(self, primitive, tracers, params)

    JVPTrace.process_primitive = record
    try:
        _, tangent = didax.jvp(lambda x: jnp.sin(lax.stop_gradient(x)) * x, (2.0,), (1.0,))
    finally:
        JVPTrace.process_primitive = process
    assert float(tangent) == pytest.approx(np.sin(2.0), rel=1e-6)
    assert [name for name, _ in seen] == ["stop_gradient", "mul"]
    sin_tangent, x_tangent = seen[1][1]  # sin(2.0) enters mul as a constant: a Zero, never an array
    assert type(sin_tangent) is Zero and type(x_tangent) is not Zero


def test_stop_gradient_has_a_zero_derivative():
    assert float(deriv(lambda x: lax.stop_gradient(x) ** 2 + x)(3.0)) == 1.0


def test_the_zeroth_power_has_a_zero_derivative():
    primal, tangent = didax.jvp(lambda x: lax.integer_pow(x, 0), (jnp.arange(3.0),), (jnp.ones(3),))
    assert np.array_equal(np.asarray(primal), [1.0, 1.0, 1.0])
    assert np.array_equal(np.asarray(tangent), [0.0, 0.0, 0.0])
    assert float(deriv(lambda x: x**0)(0.0)) == 0.0


# --- jvp's arguments, as JAX checks them --------------------------------------------------------


def test_primals_and_tangents_must_be_tuples_or_lists():
    with pytest.raises(TypeError, match="must be tuples or lists; found float and float"):
        didax.jvp(jnp.sin, 3.0, 1.0)


def test_tree_mismatch_is_a_type_error_naming_both_structures():
    with pytest.raises(TypeError, match=r"primals have tree structure PyTreeDef\(\(\*,\)\) whereas tangents "
                       r"have tree structure PyTreeDef\(\[\*\]\)"):  # fmt: skip
        didax.jvp(jnp.sin, (3.0,), [1.0])


def test_shape_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match=r"Got primal shape \(\) and tangent shape as \(2,\)"):
        didax.jvp(jnp.sin, (3.0,), (jnp.ones(2),))


def test_dtype_mismatch_is_a_type_error():
    with pytest.raises(TypeError, match="expected tangent dtype float32, but got tangent dtype float16"):
        didax.jvp(jnp.sin, (np.float32(3.0),), (np.float16(1.0),))
    with pytest.raises(TypeError, match="the tangent dtype must be float0"):
        didax.jvp(lambda i: i, (3,), (1,))


def test_has_aux_returns_the_auxiliary_output_undifferentiated():
    primal, tangent, aux = didax.jvp(lambda x: (jnp.sin(x), {"x": x}), (0.0,), (1.0,), has_aux=True)
    assert float(primal) == 0.0 and float(tangent) == 1.0
    assert float(aux["x"]) == 0.0 and not isinstance(aux["x"], didax.core.Tracer)


def test_has_aux_passes_leaves_that_are_not_arrays_through_unchanged():
    _, _, aux = didax.jvp(lambda x: (jnp.sin(x), {"note": "kept", "count": 3}), (0.0,), (1.0,), has_aux=True)
    assert aux == {"note": "kept", "count": 3}


def test_a_primitive_without_a_rule_raises_naming_it():
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'nextafter' not implemented"):
        didax.jvp(lambda x: lax.nextafter(x, x + 1), (1.0,), (1.0,))


def test_igamma_grad_a_has_no_rule_as_in_jax():
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'igamma_grad_a' not implemented"):
        didax.jvp(lambda a: lax.igamma_grad_a(a, 2.0), (1.0,), (1.0,))


def test_random_gamma_grads_tangent_is_zero_where_jax_selects_a_constant(x64):
    # x = 0 and points outside the domain (a <= 0, nan): JAX's function selects 0 or nan there.
    a = np.array([1.5, -1.0, 0.0, np.nan, 2.0])
    x = np.array([0.0, 2.0, 2.0, 2.0, 3.0])
    for tangents in ((np.ones(5), np.zeros(5)), (np.zeros(5), np.ones(5))):
        _, t = didax.jvp(lax.random_gamma_grad, (a, x), tangents)
        assert np.all(np.asarray(t)[:4] == 0) and np.asarray(t)[4] != 0


def test_polygamma_is_not_differentiable_in_its_order_as_in_jax():
    with pytest.raises(ValueError, match="polygamma gradient with respect to m is not supported"):
        didax.jvp(lambda m: lax.polygamma(m, 2.0), (1.0,), (1.0,))


def test_bessel_i1e_slope_at_zero_is_one_half(x64):
    assert float(deriv(lax.bessel_i1e)(0.0)) == 0.5


def test_every_primitive_has_a_rule_but_those_the_chapter_lists():
    assert missing_rules() == ["igamma_grad_a", "nextafter", "zeta"]
    assert all(callable(rule) for rule in jvp_rules.values())


# --- rules against central differences (float64) -------------------------------------------------

RNG = np.random.default_rng(0)
X = RNG.uniform(0.2, 0.8, (3, 4))
Y = RNG.uniform(0.2, 0.8, (3, 4))
IDX = np.array([0, 0, 2])

CASES: dict[str, tuple[Callable, tuple]] = {
    "sin cos tan": (lambda a: jnp.sin(a) * jnp.cos(a) + jnp.tan(a), (X,)),
    "exp log sqrt": (lambda a: jnp.exp(a) + jnp.log(a) + jnp.sqrt(a) + jnp.log1p(a) + jnp.expm1(a), (X,)),
    "inverse trig": (lambda a: jnp.arcsin(a) + jnp.arccos(a) + jnp.arctan(a) + jnp.arctanh(a), (X,)),
    "hyperbolic": (lambda a: jnp.sinh(a) + jnp.cosh(a) + jnp.tanh(a) + jnp.arcsinh(a) + jnp.arccosh(a + 1), (X,)),
    "special": (lambda a: lax.erf(a) + lax.erfc(a) + lax.erf_inv(a) + lax.lgamma(a) + lax.logistic(a), (X,)),
    "gamma family": (lambda a: lax.digamma(a) + lax.polygamma(2.0, a + 1) + lax.lgamma(a + 3), (X,)),
    "incomplete gamma": (lambda a, b: lax.igamma(a * 3, b * 2) + lax.igammac(a, b * 4), (X, Y)),
    "random gamma grad": (lambda a, b: lax.random_gamma_grad(a * 3, b * 4), (X, Y)),
    "bessel": (lambda a: lax.bessel_i0e(a * 4 - 2) + lax.bessel_i1e(a * 4 - 2) + jnp.i0(a), (X,)),
    "powers": (lambda a, b: a**b + a**3 + lax.rsqrt(a) + jnp.cbrt(a) + lax.integer_pow(a, -2), (X, Y)),
    "div rem atan2": (lambda a, b: a / b + jnp.fmod(a * 5, b) + jnp.arctan2(a, b), (X, Y)),
    "max min clamp": (lambda a, b: jnp.maximum(a, b) * jnp.minimum(a, b) + lax.clamp(0.3, a, 0.6), (X, Y)),
    "reductions": (lambda a: a.sum(0) + a.prod(0) + a.max(0) + a.min(0), (X,)),
    "prod with a zero": (lambda a: a.at[1, 2].set(0.0).prod(1), (X,)),
    "cumulative": (lambda a: jnp.cumprod(a, 1) + lax.cummax(a, 0) + lax.cummin(a, 1, reverse=True)
                   + lax.cumlogsumexp(a, 1) + jnp.cumsum(a, 0), (X,)),  # fmt: skip
    "structure": (lambda a, b: jnp.concatenate([a.T, b.T]).reshape(4, 6)[::2, 1:] + jnp.pad(a, 1)[:2, :3].sum(),
                  (X, Y)),  # fmt: skip
    "dot": (lambda a, b: jnp.dot(a, b.T) + jnp.einsum("ij,ij->i", a, b).sum(), (X, Y)),
    "sort top_k": (lambda a: jnp.sort(a, 1)[:, :2] + lax.top_k(a, 2)[0], (X,)),
    "cholesky triangular_solve": (lambda a, b: lax.linalg.triangular_solve(
        lax.linalg.cholesky(a @ a.T + 4 * jnp.eye(3)), b, left_side=True, lower=True, transpose_a=True), (X, Y)),
    "lu solve det": (lambda a, b: lax.linalg.lu(a)[0] + lax.linalg.lu(a[:, :2])[0].sum() + jnp.linalg.det(a[:, :3] + 2 * jnp.eye(3))
                     + jnp.linalg.solve(a[:, :3] + 2 * jnp.eye(3), b[:, :3]).sum() + jnp.linalg.slogdet(a[:3, :3] + jnp.eye(3))[1],
                     (X, Y)),  # fmt: skip
    "eigh": (lambda a: lax.linalg.eigh(a[:, :3] + jnp.diag(jnp.array([0.0, 3.0, 6.0])))[0] ** 2
             + lax.linalg.eigh(a[:, 1:] @ a[:, 1:].T)[1], (X,)),  # fmt: skip
    "svd": (lambda a: lax.linalg.svd(a, compute_uv=False).sum() + jnp.abs(lax.linalg.svd(a, full_matrices=False)[0]).sum(0)
            + jnp.abs(lax.linalg.svd(a.T, full_matrices=False)[2]).sum(0), (X,)),  # fmt: skip
    # wide (full), tall (reduced, and full: Q's last column too), and with pivoting both ways
    "qr": (lambda a: lax.linalg.qr(a)[1] + lax.linalg.qr(a.T, full_matrices=False)[0].T + lax.linalg.qr(a.T)[0][:3]
           + lax.linalg.qr(a, pivoting=True)[1] + lax.linalg.qr(a.T, full_matrices=False, pivoting=True)[0].T, (X,)),
    "gather": (lambda a: a[IDX, 1:] * 2 + a[:, IDX].sum(), (X,)),
    "scatter set": (lambda a, b: a.at[IDX].set(b[:3]), (X, Y)),
    "scatter add mul": (lambda a, b: a.at[IDX, 1].add(b[0, :3]) + a.at[1].multiply(b[0]), (X, Y)),
    "scatter min max": (lambda a, b: a.at[IDX].min(b[:3] - 0.3) + a.at[IDX].max(b[:3] + 0.3), (X, Y)),
    "dynamic slices": (lambda a, b: lax.dynamic_update_slice(a, lax.dynamic_slice(b, (1, 1), (2, 2)), (0, 2)),
                       (X, Y)),  # fmt: skip
    "select abs convert": (lambda a, b: jnp.where(a > b, jnp.abs(a - b), b).astype(np.float64), (X, Y)),
    "complex": (lambda a, b: jnp.abs((a + 1j * b) ** 2) + jnp.real(jnp.exp(1j * a)), (X, Y)),
}


def central_difference(f: Callable, xs: tuple, ts: tuple, eps: float = 1e-6) -> np.ndarray:
    shifted = [f(*[jnp.asarray(x + s * eps * t) for x, t in zip(xs, ts)]) for s in (1, -1)]
    return (np.asarray(shifted[0], np.float64) - np.asarray(shifted[1], np.float64)) / (2 * eps)


@pytest.mark.parametrize("name", list(CASES))
def test_rules_agree_with_central_differences(name, x64):
    f, xs = CASES[name]
    ts = tuple(RNG.normal(size=x.shape) for x in xs)
    primal, tangent = didax.jvp(f, xs, ts)
    np.testing.assert_allclose(np.asarray(primal), np.asarray(f(*map(jnp.asarray, xs))), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(tangent), central_difference(f, xs, ts), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize(
    "name", ["sin cos tan", "powers", "gamma family", "random gamma grad", "reductions", "cumulative", "scatter set"]
)
def test_second_derivatives_agree_with_differences_of_first(name, x64):
    f, xs = CASES[name]
    ts = tuple(RNG.normal(size=x.shape) for x in xs)

    def first(*args):
        return didax.jvp(f, args, ts)[1]

    _, second = didax.jvp(first, xs, ts)
    np.testing.assert_allclose(np.asarray(second), central_difference(first, xs, ts, eps=1e-5),
                               rtol=1e-5, atol=1e-5)  # fmt: skip


def test_ties_share_the_derivative_as_in_jax():
    # max of equal operands: each gets half; reduce_max over a tie: the mean of the tied tangents.
    _, t = didax.jvp(jnp.maximum, (1.0, 1.0), (1.0, 0.0))
    assert float(t) == 0.5
    _, t = didax.jvp(jnp.max, (jnp.array([2.0, 2.0, 1.0]),), (jnp.array([1.0, 3.0, 5.0]),))
    assert float(t) == 2.0


def test_scatter_with_repeated_indices_takes_the_winning_update_tangent():
    x, updates = jnp.zeros(3), jnp.array([1.0, 2.0, 3.0])
    index = np.array([1, 1, 1])
    primal, tangent = didax.jvp(lambda u: x.at[index].set(u), (updates,), (jnp.array([10.0, 20.0, 30.0]),))
    winner = int(np.flatnonzero(np.asarray(updates) == np.asarray(primal)[1])[0])
    assert np.asarray(tangent)[1] == [10.0, 20.0, 30.0][winner]
    assert np.asarray(primal)[1] == np.asarray(x.at[index].set(updates))[1]


def test_scatter_mul_with_repeated_indices_is_not_implemented_as_in_jax():
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        didax.jvp(lambda u: jnp.ones(3).at[np.array([0, 0])].multiply(u), (jnp.ones(2),), (jnp.ones(2),))


# --- printing --------------------------------------------------------------------------------------


def _printed(f: Callable, *primals: object) -> list[str]:
    """What ``print(x)`` shows for ``x`` inside ``jvp(f)``, with repr and an f-string (all the same)."""
    seen: list[str] = []

    def spy(x):
        seen.append(str(x))
        assert repr(x) == f"{x}" == str(x)
        return f(x)

    didax.jvp(spy, primals, primals)
    return seen


def test_a_jvp_tracer_prints_its_primal_and_tangent_as_jax_does():
    # The texts are JAX 0.10.2's, from print(x) inside jax.jvp: JVPTracer(primal=1.0, tangent=1.0).
    assert _printed(jnp.sin, 1.0) == ["JVPTracer(primal=1.0, tangent=1.0)"]
    assert _printed(jnp.sin, jnp.float32(2.0)) == ["JVPTracer(primal=2.0, tangent=2.0)"]
    assert _printed(jnp.sin, jnp.ones((2, 2))) == ["JVPTracer(primal=[[1. 1.]\n [1. 1.]], tangent=[[1. 1.]\n [1. 1.]])"]
    inner: list[str] = []
    _printed(lambda x: didax.jvp(lambda y: inner.append(str(y)) or y, (x,), (x,))[1], jnp.float32(2.0))
    twice = "JVPTracer(primal=2.0, tangent=2.0)"
    assert inner == [f"JVPTracer(primal={twice}, tangent={twice})"]
    with pytest.raises(TypeError, match="unsupported format string passed to JVPTracer.__format__"):
        didax.jvp(lambda x: f"{x:.2f}", (1.0,), (1.0,))


def test_a_symbolic_zero_prints_its_type():
    assert repr(Zero(didax.ShapedArray((), np.float32, weak_type=True))) == "Zero(~float32[])"  # JAX's
    assert repr(Zero(didax.ShapedArray((2,), didax.dtypes.float0))) == "Zero(float0[2])"


def test_jvp_of_the_fourier_transforms_is_the_transform_of_the_tangent_by_finite_differences(x64):
    # A nonlinear function of them: the jvp must agree with (f(x + h t) - f(x - h t)) / 2h.
    def f(x):
        spectrum = jnp.fft.rfft(x * x)
        return jnp.fft.irfft(spectrum * jnp.conj(spectrum), n=x.shape[0]) + jnp.fft.fft(x).imag

    rng = np.random.default_rng(3)
    x, t = rng.normal(size=7), rng.normal(size=7)
    y, dy = didax.jvp(f, (x,), (t,))
    h = 1e-6
    np.testing.assert_allclose(dy, (np.asarray(f(x + h * t)) - np.asarray(f(x - h * t))) / (2 * h), rtol=1e-6,
                               atol=1e-6)
    assert y.dtype == dy.dtype == np.float64


def test_jvp_of_reduce_precision_rounds_the_tangent_as_jax_does():
    # JAX declares it linear: the tangent is the rounded tangent (bfloat16's format: 1 + 2**-9 -> 1).
    x, t = np.float32(3.0), np.float32(1 + 2**-9)
    y, dy = didax.jvp(lambda a: lax.reduce_precision(a, 8, 7), (x,), (t,))
    assert (float(y), float(dy)) == (3.0, 1.0)


def test_jvp_of_a_convolution_is_bilinear_by_finite_differences(x64):
    # Both operands perturbed, strides, pads, dilation and feature groups: a product, so the finite
    # difference of a quadratic is exact up to rounding.
    def f(x, w):
        y = lax.conv_general_dilated(x, w, (2, 1), [(1, 0), (0, 2)], rhs_dilation=(1, 2), feature_group_count=2)
        return jnp.sin(y)

    rng = np.random.default_rng(4)
    x, w, tx, tw = (rng.normal(size=s) for s in [(2, 4, 5, 5), (6, 2, 2, 3), (2, 4, 5, 5), (6, 2, 2, 3)])
    y, dy = didax.jvp(f, (x, w), (tx, tw))
    h = 1e-6
    want = (np.asarray(f(x + h * tx, w + h * tw)) - np.asarray(f(x - h * tx, w - h * tw))) / (2 * h)
    np.testing.assert_allclose(dy, want, rtol=1e-6, atol=1e-6)
    assert dy.shape == y.shape == (2, 6, 3, 3)


@pytest.mark.parametrize("name, init", [("add", 0.0), ("max", -np.inf), ("min", np.inf)])
def test_jvp_of_a_windowed_reduction_by_finite_differences(x64, name, init):
    # A max or min passes on the tangent of the element that won its window; windows of pads and
    # holes only (an infinite result) have a zero tangent.
    def f(x):
        return lax.reduce_window(x, init, getattr(lax, name), (2, 3), (2, 1), [(1, 0), (0, 1)], (1, 2), (1, 2))

    rng = np.random.default_rng(5)
    x, t = rng.normal(size=(5, 6)), rng.normal(size=(5, 6))
    y, dy = didax.jvp(f, (x,), (t,))
    h = 1e-6
    finite = np.isfinite(np.asarray(y))
    want = (np.asarray(f(x + h * t))[finite] - np.asarray(f(x - h * t))[finite]) / (2 * h)
    np.testing.assert_allclose(np.asarray(dy)[finite], want, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(np.asarray(dy)[~finite], 0.0)
    assert dy.shape == (3, 8) and finite.any()


def test_a_tie_in_a_window_passes_on_the_first_elements_tangent_as_jax_does():
    tie = didax.jvp(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1), "VALID"),
                    (np.ones((2, 2), np.float32),), (np.arange(1.0, 5.0, dtype=np.float32).reshape(2, 2),))[1]
    assert float(tie[0, 0]) == 1.0
