"""jax.nn and jax.scipy.special: activations, softmax, logsumexp, one_hot and standardize against
NumPy formulas in float64 (values and dtypes), special functions against Python's math module and
closed forms (with their argument promotion), and jax.nn.initializers against JAX's numbers
recorded in data/nn_initializers.json."""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call, wide
from conformance.impl import Impl
from conformance.random_cases import decode
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("nn"), pytest.mark.requires("eval")]

DATA = json.loads((Path(__file__).resolve().parent / "data" / "nn_initializers.json").read_text())

X = np.array([-7.5, -3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 6.5, 30.0])
ROWS = np.array([[1.0, 2.0, 3.0, -1.0], [0.0, 0.0, 0.0, 0.0], [-50.0, 10.0, 100.0, 99.0]])


@pytest.fixture
def nn(impl: Impl) -> Any:
    return impl.module.nn


@pytest.fixture
def special(impl: Impl) -> Any:
    return importlib.import_module(impl.module.__name__ + ".scipy.special")


@pytest.fixture
def f64(flags: Callable[[str, object], None]) -> None:
    flags("jax_enable_x64", True)


def close(got: Any, want: np.ndarray, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def np_sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def np_erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x)


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

# name, function of (nn, x), NumPy oracle of x
ACTIVATIONS: list[tuple[str, Callable[[Any, Any], Any], Callable[[np.ndarray], np.ndarray]]] = [
    ("relu", lambda nn, x: nn.relu(x), lambda x: np.maximum(x, 0)),
    ("relu6", lambda nn, x: nn.relu6(x), lambda x: np.minimum(np.maximum(x, 0), 6)),
    ("sigmoid", lambda nn, x: nn.sigmoid(x), np_sigmoid),
    ("silu", lambda nn, x: nn.silu(x), lambda x: x * np_sigmoid(x)),
    ("swish", lambda nn, x: nn.swish(x), lambda x: x * np_sigmoid(x)),
    ("softplus", lambda nn, x: nn.softplus(x), lambda x: np.log1p(np.exp(x))),
    ("log_sigmoid", lambda nn, x: nn.log_sigmoid(x), lambda x: -np.log1p(np.exp(-x))),
    ("elu", lambda nn, x: nn.elu(x), lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    ("elu_alpha", lambda nn, x: nn.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0)))),
    ("leaky_relu", lambda nn, x: nn.leaky_relu(x), lambda x: np.where(x >= 0, x, 0.01 * x)),
    ("leaky_relu_slope", lambda nn, x: nn.leaky_relu(x, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    ("celu", lambda nn, x: nn.celu(x, 2.0), lambda x: np.maximum(x, 0) + 2 * np.expm1(np.minimum(x, 0) / 2)),
    ("selu", lambda nn, x: nn.selu(x),
     lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    ("gelu_tanh", lambda nn, x: nn.gelu(x),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    ("gelu_exact", lambda nn, x: nn.gelu(x, approximate=False), lambda x: 0.5 * x * (1 + np_erf(x / np.sqrt(2)))),
    ("hard_tanh", lambda nn, x: nn.hard_tanh(x), lambda x: np.clip(x, -1, 1)),
    ("sparse_plus", lambda nn, x: nn.sparse_plus(x),
     lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ("soft_sign", lambda nn, x: nn.soft_sign(x), lambda x: x / (np.abs(x) + 1)),
    ("squareplus", lambda nn, x: nn.squareplus(x), lambda x: (x + np.sqrt(x * x + 4)) / 2),
    ("mish", lambda nn, x: nn.mish(x), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("hard_sigmoid", lambda nn, x: nn.hard_sigmoid(x), lambda x: np.clip(x + 3, 0, 6) / 6),
    ("hard_silu", lambda nn, x: nn.hard_silu(x), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hard_swish", lambda nn, x: nn.hard_swish(x), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("tanh", lambda nn, x: nn.tanh(x), np.tanh),
]


@pytest.mark.parametrize("name,fn,oracle", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_matches_numpy_in_float64(name: str, fn: Any, oracle: Any, nn: Any, f64: None) -> None:
    close(fn(nn, X), oracle(X))


@pytest.mark.parametrize("name,fn,oracle", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_keeps_float32(name: str, fn: Any, oracle: Any, nn: Any) -> None:
    x = X.astype(np.float32)
    close(fn(nn, x), oracle(X).astype(np.float32), rtol=2e-6, atol=1e-6)


# name: (function of (nn, x), NumPy oracle, the Python scalars it meets x with). hard_swish is
# x * relu6(x + 3.0) / 6: an integer or bool x meets a Python float, so the result is a weak float
# (the promotion table's i* or b1 with f*); tanh is jnp.tanh: inexact, weak only for a weak input.
DTYPE_RULES: dict[str, tuple[Callable[[Any, Any], Any], Callable[[np.ndarray], np.ndarray], tuple]] = {
    "hard_swish": (lambda nn, x: nn.hard_swish(x), lambda x: x * np.clip(x + 3, 0, 6) / 6, (3.0,)),
    "tanh": (lambda nn, x: nn.tanh(x), np.tanh, ()),
}
SOME_DTYPES = ["bool", "uint8", "int8", "int32", "int64", "bfloat16", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("name", list(DTYPE_RULES))
def test_activation_dtype_and_weak_type(name: str, dtype: str, nn: Any, x64: bool) -> None:
    fn, oracle, scalars = DTYPE_RULES[name]
    dt = dr.dtype(dtype)
    x = (np.array([False, True]) if dt.kind == "b" else np.array([0, 1, 2, 5, 7]) if dt.kind in "iu" else X).astype(dt)
    code = dr.join(*(dr.operand_code(v, x64) for v in (x, *scalars)))
    want_dtype = dr.dtype_of(code, x64) if scalars else dr.inexact(dr.canonicalize(dt, x64), x64)
    got = fn(nn, x)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", x, *scalars))
    assert_values(got, oracle(wide(x).astype(np.float64)), want_dtype, atol=RTOL[want_dtype.name])


def test_relu_keeps_integers_and_gelu_makes_them_float(nn: Any) -> None:
    assert np.asarray(nn.relu(np.array([-2, 3], np.int32))).dtype == np.int32
    assert np.asarray(nn.gelu(np.array([-2, 3], np.int32))).dtype == np.float32


def test_glu_gates_the_first_half_with_the_second(nn: Any, f64: None) -> None:
    x = np.arange(12.0).reshape(3, 4) - 5
    close(nn.glu(x), x[:, :2] * np_sigmoid(x[:, 2:]))
    close(nn.glu(x.T, axis=0), (x[:, :2] * np_sigmoid(x[:, 2:])).T)


def np_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_softmax_rows_sum_to_one_and_match_numpy(axis: Any, nn: Any, f64: None) -> None:
    got = nn.softmax(ROWS, axis=axis)
    close(got, np_softmax(ROWS, axis))
    np.testing.assert_allclose(np.asarray(got).sum(axis), 1.0, rtol=1e-12)


@pytest.mark.parametrize("axis", [-1, 0])
def test_log_softmax_is_log_of_softmax(axis: int, nn: Any, f64: None) -> None:
    close(nn.log_softmax(ROWS, axis=axis), np.log(np_softmax(ROWS, axis)), atol=1e-10)


def test_softmax_float32_dtype(nn: Any) -> None:
    got = nn.softmax(ROWS.astype(np.float32))
    close(got, np_softmax(ROWS, -1).astype(np.float32), rtol=1e-5, atol=1e-6)


def test_softmax_where_gives_zero_and_log_softmax_minus_inf_outside(nn: Any, f64: None) -> None:
    mask = np.array([[True, True, False, True]] * 3)
    got = np.asarray(nn.softmax(ROWS, where=mask))
    want = np.where(mask, np_softmax(np.where(mask, ROWS, -np.inf), -1), 0.0)
    close(got, want)
    log = np.asarray(nn.log_softmax(ROWS, where=mask))
    assert np.all(log[~mask] == -np.inf)
    np.testing.assert_allclose(log[mask], np.log(want[mask]), rtol=1e-12, atol=1e-10)


def np_logsumexp(a: np.ndarray, axis: Any = None) -> np.ndarray:
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_logsumexp_matches_numpy_in_nn_and_scipy(axis: Any, nn: Any, special: Any, f64: None) -> None:
    want = np.asarray(np_logsumexp(ROWS, axis))
    close(nn.logsumexp(ROWS, axis=axis), want)
    close(special.logsumexp(ROWS, axis=axis), want)
    close(special.logsumexp(ROWS, axis=axis, keepdims=True),
          np.expand_dims(want, axis) if axis is not None else want.reshape(1, 1))


def test_logsumexp_with_b_and_return_sign(special: Any, f64: None) -> None:
    a = np.array([0.0, 1.0, 2.0])
    b = np.array([1.0, -3.0, 0.5])
    total = np.sum(b * np.exp(a))
    out, sign = special.logsumexp(a, b=b, return_sign=True)
    close(out, np.asarray(np.log(abs(total))))
    close(sign, np.asarray(np.sign(total)))
    assert np.isnan(np.asarray(special.logsumexp(a, b=b)))  # a negative sum has no log


def test_logsumexp_of_all_minus_inf_is_minus_inf_and_ints_become_float(special: Any) -> None:
    assert np.asarray(special.logsumexp(np.array([-np.inf, -np.inf]))) == -np.inf
    got = np.asarray(special.logsumexp(np.array([1, 2, 3], np.int32)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np_logsumexp(np.array([1.0, 2.0, 3.0])), rtol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_is_rows_of_the_identity(axis: int, nn: Any) -> None:
    idx = np.array([0, 2, 1, 3, -1], np.int32)  # 3 and -1 fall outside: all zeros
    want = np.concatenate([np.eye(3, dtype=np.float32), np.zeros((1, 3), np.float32)])[[0, 2, 1, 3, 3]]
    got = nn.one_hot(idx, 3, axis=axis)
    close(got, want if axis in (-1, 1) else want.T)


def test_one_hot_dtype(nn: Any) -> None:
    got = nn.one_hot(np.array([[1, 0]], np.int32), 2, dtype=np.int32)
    close(got, np.array([[[0, 1], [1, 0]]], np.int32))


def test_standardize_gives_mean_zero_variance_one(nn: Any, f64: None) -> None:
    x = ROWS[[0, 2]]
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    close(nn.standardize(x), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-9, atol=1e-9)
    close(nn.standardize(x, axis=0, epsilon=0.0),
          (x - x.mean(0, keepdims=True)) / x.std(0, keepdims=True), rtol=1e-9, atol=1e-9)
    close(nn.standardize(x, algorithm="stable"), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-12, atol=1e-12)


def test_standardize_where_uses_only_the_chosen_elements(nn: Any, f64: None) -> None:
    x = np.array([[1.0, 2.0, 3.0, 100.0]])
    mask = np.array([[True, True, True, False]])
    got = np.asarray(nn.standardize(x, where=mask, epsilon=0.0))
    np.testing.assert_allclose(got[0, :3], (x[0, :3] - 2.0) / np.sqrt(2 / 3), rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# jax.scipy.special.

SPECIAL_POINTS = np.array([-2.5, -1.0, -0.3, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0])
POSITIVE = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 55.5])


def digamma_oracle(x: float) -> float:
    """psi(x): recurrence up to x >= 8, then the asymptotic series."""
    acc = 0.0
    while x < 8:
        acc -= 1 / x
        x += 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + math.log(x) - 0.5 / x - series


def i1_oracle(x: float, scaled: bool = False) -> float:
    """I1(x), the mean of exp(x cos t) cos t over a period; the trapezoidal rule on 64 points is
    exact to rounding for |x| <= 10 (its error is about I_63(x)). With ``scaled``, exp(-|x|) I1(x)."""
    t = 2 * np.pi * np.arange(64) / 64
    shift = abs(x) if scaled else 0.0
    return float(np.mean(np.exp(x * np.cos(t) - shift) * np.cos(t)))


SPECIALS: list[tuple[str, Callable[[Any, Any], Any], Callable[[float], float], np.ndarray]] = [
    ("erf", lambda s, x: s.erf(x), math.erf, SPECIAL_POINTS),
    ("erfc", lambda s, x: s.erfc(x), math.erfc, SPECIAL_POINTS),
    ("gammaln", lambda s, x: s.gammaln(x), math.lgamma, POSITIVE),
    ("digamma", lambda s, x: s.digamma(x), digamma_oracle, POSITIVE),
    ("expit", lambda s, x: s.expit(x), lambda v: 1 / (1 + math.exp(-v)), SPECIAL_POINTS),
    ("logit", lambda s, x: s.logit(x), lambda v: math.log(v / (1 - v)), np.array([0.01, 0.2, 0.5, 0.9])),
    ("i1e", lambda s, x: s.i1e(x), lambda v: i1_oracle(v, scaled=True), SPECIAL_POINTS),
    ("i1", lambda s, x: s.i1(x), i1_oracle, SPECIAL_POINTS),
]


@pytest.mark.parametrize("name,fn,oracle,points", SPECIALS, ids=[s[0] for s in SPECIALS])
def test_special_matches_math_in_float64(name: str, fn: Any, oracle: Any, points: np.ndarray, special: Any, f64: None) -> None:
    close(fn(special, points), np.array([oracle(float(v)) for v in points]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,fn,oracle,points", SPECIALS, ids=[s[0] for s in SPECIALS])
def test_special_float32_and_integers_become_float(name: str, fn: Any, oracle: Any, points: np.ndarray, special: Any) -> None:
    want = np.array([oracle(float(v)) for v in points]).astype(np.float32)
    close(fn(special, points.astype(np.float32)), want, rtol=1e-5, atol=1e-6)
    got = np.asarray(fn(special, np.array([1, 2], np.int32)))
    assert got.dtype == np.float32


def test_erfinv_inverts_erf(special: Any, f64: None) -> None:
    y = np.array([-0.99, -0.5, 0.0, 0.3, 0.999])
    x = np.asarray(special.erfinv(y))
    assert x.dtype == np.float64
    np.testing.assert_allclose(np_erf(x), y, rtol=1e-12, atol=1e-14)


ZETA_3 = 1.2020569031595942  # Apery's constant

# (function, arguments, closed form): zeta(s, 1/2) = (2^s - 1) zeta(s), psi'(1) = zeta(2), ...
ZETA_AND_POLYGAMMA = [
    ("zeta", (2, 1), math.pi**2 / 6),
    ("zeta", (4.0, 0.5), math.pi**4 / 6),
    ("zeta", (3.0, np.array([1.0, 2.0])), np.array([ZETA_3, ZETA_3 - 1])),
    ("polygamma", (0, 1.0), -0.5772156649015329),
    ("polygamma", (1, 0.5), math.pi**2 / 2),
    ("polygamma", (np.array([2, 3]), 1), np.array([-2 * ZETA_3, math.pi**4 / 15])),
]


@pytest.mark.parametrize("name,args,want", ZETA_AND_POLYGAMMA, ids=[f"{c[0]}{i}" for i, c in enumerate(ZETA_AND_POLYGAMMA)])
def test_zeta_and_polygamma_match_closed_forms_in_float64(name: str, args: tuple, want: Any, special: Any, f64: None) -> None:
    close(getattr(special, name)(*args), np.asarray(want, np.float64), rtol=1e-13, atol=0)


# gammainc(1, x) = 1 - e^-x, gammaincc(1/2, x) = erfc(sqrt x), gammaincc(3, x) = e^-x (1 + x + x^2/2).
GAMMAINC = [
    ("gammainc", (1, np.array([0.5, 2.0, 30.0])), -np.expm1(-np.array([0.5, 2.0, 30.0]))),
    ("gammaincc", (0.5, np.array([0.25, 4.0])), np.array([math.erfc(0.5), math.erfc(2.0)])),
    ("gammaincc", (np.array([3.0]), 2), np.array([5 * math.exp(-2)])),
]


@pytest.mark.parametrize("name,args,want", GAMMAINC, ids=[f"{c[0]}{i}" for i, c in enumerate(GAMMAINC)])
def test_gammainc_and_gammaincc_match_closed_forms_in_float64(name: str, args: tuple, want: Any, special: Any, f64: None) -> None:
    close(getattr(special, name)(*args), np.asarray(want, np.float64), rtol=1e-14, atol=0)


def special_operand(data: st.DataObject, label: str, groups: tuple, domain: Domain, shape: tuple) -> Any:
    """A Python int or float (weak), or a NumPy array of one of the groups' dtypes (strong)."""
    kind = data.draw(st.sampled_from(["int", "float", "array"]), label=f"{label} kind")
    if kind == "int":
        return data.draw(st.integers(math.ceil(domain.low), math.floor(domain.high)), label=label)
    if kind == "float":
        return data.draw(st.floats(domain.low, domain.high), label=label)
    dt = data.draw(S.dtypes(*groups), label=f"{label} dtype")
    return data.draw(S.arrays(dt, shape, domain), label=label)


@pytest.mark.parametrize("name", ["zeta", "polygamma", "i1e", "i1", "gammainc", "gammaincc"])
@given(data=st.data())
def test_special_functions_promote_their_arguments_to_inexact(
    name: str, special: Any, flags: Callable[[str, object], None], data: st.DataObject
) -> None:
    """The arguments are promoted together (JAX's table) and then to an inexact type, as
    promote_args_inexact does; polygamma's n must have an integer type (a Python int will do)."""
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(max_dims=1), label="shape")  # of the operands that are arrays
    real = (S.INTEGER, S.FLOATING)
    if name == "polygamma":
        n = special_operand(data, "n", (S.INTEGER,), Domain(0, 3), shape)
        n = int(n) if isinstance(n, float) else n  # n may not be a float
        operands = [n, special_operand(data, "x", real, Domain(1, 8), shape)]
    elif name == "zeta":
        operands = [special_operand(data, "x", real, Domain(2, 6), shape), special_operand(data, "q", real, Domain(1, 8), shape)]
    elif name.startswith("gammainc"):
        operands = [special_operand(data, "a", real, Domain(1, 6), shape), special_operand(data, "x", real, Domain(0, 8), shape)]
    else:
        operands = [special_operand(data, "x", (S.BOOL, *real), Domain(-8, 8), shape)]
    names = {"polygamma": ["n", "x"], "gammainc": ["a", "x"], "gammaincc": ["a", "x"]}.get(name, ["x", "q"])[: len(operands)]
    show_call(f"jax.scipy.special.{name}({', '.join(names)})", **dict(zip(names, operands)))
    got = getattr(special, name)(*operands)
    joined = dr.join(*(dr.operand_code(op, x64) for op in operands))
    want = dr.inexact(dr.dtype_of(joined, x64), x64)
    assert_dtype(got, want, weak=dr.weak_result("elementwise", *operands, x64=x64))


def test_zeta_polygamma_and_gammainc_refuse_what_jax_refuses(special: Any) -> None:
    with pytest.raises(NotImplementedError):
        special.zeta(2.0)  # the Riemann zeta function (q=None)
    with pytest.raises(ValueError):
        special.polygamma(1.0, 2.0)  # n must have an integer type
    with pytest.raises(ValueError):
        special.polygamma(np.array([True]), 2.0)
    with pytest.raises(ValueError):
        special.polygamma(1, np.complex64(2))
    with pytest.raises(TypeError):
        special.zeta(np.complex64(2), 1.0)
    with pytest.raises(TypeError):
        special.gammainc(np.complex64(2), 1.0)  # igamma takes real floats only


def test_xlogy_and_xlog1py_are_zero_where_x_is_zero(special: Any, f64: None) -> None:
    x = np.array([0.0, 0.0, 2.0, 0.5])
    y = np.array([0.0, -1.0, 3.0, 0.25])
    close(special.xlogy(x, y), np.array([0.0, 0.0, 2 * math.log(3), 0.5 * math.log(0.25)]))
    close(special.xlog1py(x, y - 1), np.array([0.0, 0.0, 2 * math.log(3), 0.5 * math.log(0.25)]))
    assert np.asarray(special.xlogy(1, 2)).dtype == np.float64


def test_xlogy_and_xlog1py_match_scipy_at_zeros_nans_and_infinities(special: Any, f64: None) -> None:
    """SciPy's values, signs of zero included: 0 where x is 0, unless y is NaN, which goes through."""
    import scipy.special

    x = np.array([0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 2.0, 0.5, 3.0])
    y = np.array([0.0, -1.0, np.nan, np.inf, 2.0, 1.0, 3.0, 0.25, np.nan])
    for name, shift in (("xlogy", 0.0), ("xlog1py", -1.0)):
        show_call(f"jax.scipy.special.{name}({x.tolist()}, {(y + shift).tolist()})")
        got, want = np.asarray(getattr(special, name)(x, y + shift)), getattr(scipy.special, name)(x, y + shift)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


# ----------------------------------------------------------------------------------------------
# jax.nn.initializers: JAX's numbers for the same key.


def test_initializer_data_was_recorded_with_the_pinned_jax() -> None:
    assert DATA["meta"] == {"jax_version": "0.10.2"}


@pytest.mark.usefixtures("random_flags")  # jax_threefry_partitionable=True where the flag exists
@pytest.mark.parametrize("case", DATA["cases"], ids=[f"{c['builder']}-{c['dtype']}-{c['seed']}" for c in DATA["cases"]])
def test_initializer_gives_jaxs_numbers(case: dict, impl: Impl, flags: Callable[[str, object], None]) -> None:
    flags("jax_enable_x64", case["x64"])
    init, random = impl.module.nn.initializers, impl.module.random
    key = random.PRNGKey(case["seed"])
    shape, dtype = tuple(case["shape"]), case["dtype"]
    if case["kwargs"] is None:
        got = getattr(init, case["builder"])(key, shape, dtype)
    else:
        got = getattr(init, case["builder"])(**case["kwargs"])(key, shape, dtype)
    got, want = np.asarray(got), decode(case["value"])
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if _draws_uniform(case):  # the bits become floats with integer operations: exact
        width = f"u{got.dtype.itemsize}"
        assert np.array_equal(got.view(width), want.view(width)), np.max(np.abs(got.astype(float) - want.astype(float)))
    else:  # normals go through erf and erf_inv, XLA's own polynomials: close, not exact
        scale = float(np.max(np.abs(want.astype(np.float64)), initial=1.0))
        atol = 8 * float(np.finfo(want.dtype).eps) * scale
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=atol)


def _draws_uniform(case: dict) -> bool:
    kwargs = case["kwargs"] or {}
    return case["builder"] in ("zeros", "ones", "constant") or "uniform" in case["builder"] or \
        kwargs.get("distribution") == "uniform"



def test_initializer_default_dtype_and_fans(impl: Impl) -> None:
    init, random = impl.module.nn.initializers, impl.module.random
    w = init.glorot_uniform()(random.PRNGKey(0), (64, 32))
    assert np.asarray(w).dtype == np.float32 and np.asarray(w).shape == (64, 32)
    limit = math.sqrt(3 * 1.0 / ((64 + 32) / 2))
    assert np.all(np.abs(np.asarray(w)) < limit)
    with pytest.raises(ValueError):
        init.lecun_normal()(random.PRNGKey(0), (5,))
