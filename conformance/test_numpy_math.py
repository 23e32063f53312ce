"""jax.numpy's mathematical functions against NumPy: more elementwise functions (inverse
trigonometry, rounding, classification, complex parts...), reductions and statistics, products
(einsum, tensordot, norms...) and counting (bincount, histogram, searchsorted...).

Elementwise functions reuse test_numpy_elementwise's `Op` table machinery: the oracle computes in the
dtype JAX's rules give, and dtype_rules (never NumPy) gives the expected result dtype.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    RTOL,
    as_operand,
    assert_dtype,
    assert_values,
    draw_x64,
    assert_weak,
    show_call,
    wide,
)
from conformance.impl import Impl
from conformance.strategies import Domain
from conformance.test_numpy_elementwise import (
    NO_BOOL,
    NO_COMPLEX,
    Op,
    boolean,
    check,
    codes_of,
    compute_dtype,
    draw_inputs,
    numeric,
    same,
    unary,
)
from conformance.test_numpy_elementwise import _draw_binary_inputs as draw_binary_inputs

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

FLOAT = S.FLOATING
INEXACT = S.INEXACT
INTEGER = S.INTEGER
UNIT = Domain(-0.95, 0.95)


def real_inexact(dt: np.dtype, x64: bool) -> np.dtype:
    """The inexact dtype, for functions that refuse complex numbers (hypot, copysign...)."""
    return dr.inexact(dt, x64)


def default_inexact(dt: np.dtype, x64: bool) -> np.dtype:
    """rint and angle turn every integer and bool into the default float (float64 with x64 on)."""
    return dr.default_float(x64) if dt.kind in "biu" else dt


def _rint(x: np.ndarray) -> np.ndarray:
    return np.rint(x)


def _i0(x: np.ndarray) -> np.ndarray:
    """NumPy's I0 of the (already rounded) input, in float64: np.i0 knows no bfloat16."""
    return np.i0(x.astype(np.float64))


def _positive(x: np.ndarray) -> np.ndarray:
    """NumPy has no positive for bools; JAX hands them back unchanged."""
    return x if x.dtype.kind == "b" else np.positive(x)


def _uint8(dt: np.dtype, x64: bool) -> np.dtype:
    return np.dtype("uint8")


BITWISE = S.BOOL + S.INTEGER
# Every value of the integer type (elements() clips the domain to it): all bits get exercised.
ALL_BITS = Domain(-(2.0**63), 2.0**64)


UNARY = [
    unary("arccos", np.arccos, S.ALL, compute=dr.inexact, domain=UNIT),
    unary("arcsin", np.arcsin, S.ALL, compute=dr.inexact, domain=UNIT),
    unary("arctan", np.arctan, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("arccosh", np.arccosh, S.INTEGER + FLOAT, compute=dr.inexact, domain=Domain(1.1, 10)),
    unary("arcsinh", np.arcsinh, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("arctanh", np.arctanh, S.REAL, compute=dr.inexact, domain=UNIT),
    unary("acos", np.arccos, FLOAT, compute=dr.inexact, domain=UNIT),
    unary("asin", np.arcsin, FLOAT, compute=dr.inexact, domain=UNIT),
    unary("atan", np.arctan, FLOAT, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("acosh", np.arccosh, FLOAT, compute=dr.inexact, domain=Domain(1.1, 10)),
    unary("asinh", np.arcsinh, FLOAT, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("atanh", np.arctanh, FLOAT, compute=dr.inexact, domain=UNIT),
    unary("sinh", np.sinh, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("cosh", np.cosh, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("exp2", np.exp2, S.REAL, compute=dr.inexact, domain=Domain(-5, 5)),
    unary("log2", np.log2, S.REAL, compute=dr.inexact, domain=Domain(0.1, 10)),
    unary("log10", np.log10, S.REAL, compute=dr.inexact, domain=Domain(0.1, 10)),
    unary("cbrt", np.cbrt, S.REAL, compute=dr.inexact),
    unary("floor", np.floor, S.REAL, domain=S.GRID),
    unary("ceil", np.ceil, S.REAL, domain=S.GRID),
    unary("trunc", np.trunc, S.REAL, domain=S.GRID),
    unary("rint", _rint, S.REAL, compute=default_inexact, domain=S.GRID),
    unary("round", np.round, NO_BOOL, domain=S.GRID),
    unary("around", np.round, S.NUMBER, domain=S.GRID),
    unary("signbit", np.signbit, S.REAL, result=boolean),
    unary("deg2rad", np.deg2rad, S.REAL, compute=dr.inexact),
    unary("radians", np.radians, S.REAL, compute=dr.inexact),
    unary("rad2deg", np.rad2deg, S.REAL, compute=dr.inexact),
    unary("degrees", np.degrees, S.REAL, compute=dr.inexact),
    unary("sinc", np.sinc, S.REAL, compute=dr.inexact, domain=S.GRID),
    unary("i0", _i0, S.REAL, compute=dr.inexact, domain=Domain(-10, 10)),  # I0(10) = 2816 fits float16
    unary("fabs", np.fabs, S.REAL, compute=dr.inexact),
    unary("isnan", np.isnan, S.ALL, result=boolean),
    unary("isinf", np.isinf, S.ALL, result=boolean),
    unary("isfinite", np.isfinite, S.ALL, result=boolean),
    unary("isposinf", np.isposinf, S.REAL, result=boolean),
    unary("isneginf", np.isneginf, S.REAL, result=boolean),
    unary("isreal", np.isreal, S.ALL, result=boolean),
    unary("iscomplex", np.iscomplex, S.ALL, result=boolean),
    unary("real", np.real, S.ALL, result=lambda dt, x64: dr.real_dtype(dt)),
    unary("imag", np.imag, S.ALL, result=lambda dt, x64: dr.real_dtype(dt)),
    unary("conj", np.conj, S.ALL),
    unary("conjugate", np.conjugate, S.ALL),
    # (JAX's angle of a 0-d 16-bit NumPy array is float32: 16-bit floats are left out)
    unary(
        "angle",
        np.angle,
        S.BOOL + S.INTEGER + S.COMPLEX + (np.dtype("float32"), np.dtype("float64")),
        compute=default_inexact,
        result=lambda dt, x64: dr.real_dtype(dt),
    ),
    unary("nan_to_num", np.nan_to_num, S.ALL),
    unary("bitwise_invert", np.invert, BITWISE, domain=ALL_BITS),
    unary("invert", np.invert, BITWISE, domain=ALL_BITS),
    unary("positive", _positive, S.ALL),
    # The count is always uint8, whatever the input's typing (jnp.bitwise_count(3) is strong): the
    # "convert" family. NumPy and JAX both count the bits of |x|.
    Op("bitwise_count", np.bitwise_count, BITWISE, result=_uint8, domains=(ALL_BITS,), weak_family="convert"),
]

BINARY = [
    Op("arctan2", np.arctan2, S.REAL, compute=dr.inexact, domains=(S.NONZERO, S.NONZERO)),
    Op("atan2", np.arctan2, S.REAL, compute=dr.inexact, domains=(S.NONZERO, S.NONZERO), promotes_first=True),
    Op("logaddexp", np.logaddexp, S.REAL, compute=real_inexact),
    Op("logaddexp2", np.logaddexp2, S.REAL, compute=real_inexact, weak_family="constant"),
    Op("copysign", np.copysign, S.REAL, compute=real_inexact, domains=(S.DEFAULT, S.NONZERO)),
    Op("mod", np.remainder, NO_COMPLEX, compute=numeric, domains=(S.GRID, S.GRID_NONZERO)),
    Op("bitwise_xor", np.bitwise_xor, BITWISE, domains=(ALL_BITS, ALL_BITS)),
    Op("fmod", np.fmod, NO_COMPLEX, compute=numeric, domains=(S.GRID, S.GRID_NONZERO)),
    Op("fmax", np.fmax, S.REAL, domains=(S.TIES, S.TIES)),
    Op("fmin", np.fmin, S.REAL, domains=(S.TIES, S.TIES)),
    Op("hypot", np.hypot, S.REAL, compute=real_inexact, weak_family="constant"),
    Op("heaviside", np.heaviside, S.REAL, compute=real_inexact, domains=(S.TIES, S.DEFAULT),
       weak_family="constant_first"),
    Op("float_power", np.float_power, S.REAL, compute=dr.inexact, domains=(Domain(0.5, 4), Domain(-3, 3))),
    Op("gcd", np.gcd, INTEGER, domains=(Domain(-60, 60), Domain(-60, 60)), weak_family="constant"),
    Op("lcm", np.lcm, INTEGER, domains=(Domain(-11, 11), Domain(-11, 11)), weak_family="constant"),
    Op("logical_xor", np.logical_xor, S.ALL, result=boolean, domains=(S.TIES, S.TIES), weak_family="constant"),
    Op("pow", np.power, S.INEXACT, domains=(Domain(0.5, 4), Domain(-3, 3))),
    Op("nextafter", np.nextafter, FLOAT, compute=dr.inexact, domains=(S.TIES, S.TIES)),
]


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
@given(data=st.data())
def test_unary_math_function_matches_numpy(impl: Impl, flags, op: Op, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(op.dtypes), label="dtype")
    shape = data.draw(S.shapes(min_side=0), label="shape")
    (x,) = draw_inputs(data, op, (shape,), x64, (dt,))
    show_call(f"jnp.{op.name}(x)", x=x)
    check(impl, op, x64, [x])


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
@given(data=st.data())
def test_binary_math_function_matches_numpy(impl: Impl, flags, op: Op, data: st.DataObject) -> None:
    x64, x, y = draw_binary_inputs(data, flags, op)
    if op.name == "nextafter":  # its result is one ulp away: compare in the exact dtype
        shapes = (S.numpy_operand(x).shape, S.numpy_operand(y).shape)
        compute = compute_dtype(op, codes_of((x, y), x64), shapes, x64)
        x, y = (v.astype(compute) if isinstance(v, np.ndarray) else v for v in (x, y))
        assume(compute.name != "bfloat16")  # NumPy has no nextafter for it
    show_call(f"jnp.{op.name}(x, y)", x=x, y=y)
    check(impl, op, x64, [x, y])


def _complex_array(data: st.DataObject, dt: np.dtype, shape: tuple, label: str) -> np.ndarray:
    """Real parts in [-10, 10], imaginary parts in [-1, 1]: two operands then differ by less than 2
    in angle, so exp(x) + exp(y) never nearly cancels (where its log is ill-conditioned)."""
    real_dt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    re = data.draw(S.arrays(real_dt, shape, Domain(-10, 10)), label=f"{label}.real")
    im = data.draw(S.arrays(real_dt, shape, Domain(-1, 1)), label=f"{label}.imag")
    z = re.astype(dt)
    z.imag = im
    return z


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@given(data=st.data())
def test_complex_logaddexp_is_the_log_of_the_sum(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dts = [data.draw(S.dtypes(S.COMPLEX), label=f"dtype {i}") for i in range(2)]
    shape = data.draw(S.shapes(min_side=0), label="shape")
    x, y = (_complex_array(data, dt, shape, label) for dt, label in zip(dts, "xy"))
    show_call(f"jnp.{name}(x, y)", x=x, y=y)
    got = getattr(impl.numpy, name)(x, y)
    want_dtype = dr.promote(*dts, x64=x64)
    assert_dtype(got, want_dtype, weak=False)
    x, y = wide(x.astype(want_dtype)), wide(y.astype(want_dtype))
    want = np.log(np.exp(x) + np.exp(y)) if name == "logaddexp" else np.log2(2**x + 2**y)
    assert_values(got, want, want_dtype, atol=16 * RTOL[want_dtype.name])  # |result| may be near 0


def test_complex_logaddexp_stays_on_the_principal_branch(impl: Impl) -> None:
    """Near the negative real axis the sum's angle passes pi: the result's imaginary part turns to
    the other end of the principal range (-pi, pi] (JAX's [-pi, pi) differs only at -pi itself)."""
    x = np.array([3j, 1 + 3j, -3j], np.complex64)
    y = np.array([-2.9j, -0.5 - 2.9j, 2.9j], np.complex64)
    got = impl.numpy.logaddexp(x, y)
    assert_dtype(got, np.dtype("complex64"), weak=False)
    want = np.log(np.exp(wide(x)) + np.exp(wide(y)))
    assert_values(got, want, np.dtype("complex64"), atol=1e-5)
    assert_weak(impl.numpy.logaddexp(1j, 2.0), True, "logaddexp of Python scalars")


# --- shifts ------------------------------------------------------------------------------------------

# name -> whether it shifts left
SHIFTS = {"left_shift": True, "bitwise_left_shift": True, "right_shift": False, "bitwise_right_shift": False}


def shifted(x: np.ndarray, amount: np.ndarray, dt: np.dtype, left: bool) -> np.ndarray:
    """NumPy's shift where 0 <= amount < the width of `dt`. Beyond it, XLA's rule (which JAX keeps,
    and NumPy leaves to the C compiler): every bit is shifted out, giving 0, but a negative x shifted
    right (arithmetically, for signed types) fills with its sign bit: -1. A negative amount counts as
    a huge unsigned one."""
    x, amount = as_operand(x, dt), as_operand(amount, dt)
    in_range = (amount >= 0) & (amount < 8 * dt.itemsize)
    amount = np.where(in_range, amount, 0).astype(amount.dtype)
    if left:
        return np.where(in_range, np.left_shift(x, amount), np.zeros_like(x))
    return np.where(in_range, np.right_shift(x, amount), np.where(x < 0, -1, 0).astype(x.dtype))


@pytest.mark.parametrize("name", list(SHIFTS))
@given(data=st.data())
def test_shift_matches_numpy_in_range_and_xla_beyond(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Integer shifts (bools count as int32); the amounts reach past the width of the promoted type."""
    x64 = draw_x64(data, flags)
    dtypes = tuple(data.draw(S.dtypes(BITWISE), label=f"dtype {v}") for v in ("x", "amount"))
    promoted = dr.promote(*dtypes, x64=x64)
    assume(promoted.kind in "biu")  # uint64 with a signed type promotes to a float: no shift
    want_dtype = dr.numeric(promoted)
    shape_x, shape_amount = data.draw(S.broadcastable_shapes(), label="shapes")
    x = data.draw(S.arrays(dtypes[0], shape_x, ALL_BITS), label="x")
    amount = data.draw(S.arrays(dtypes[1], shape_amount, Domain(-3, 8 * want_dtype.itemsize + 3)), label="amount")
    show_call(f"jnp.{name}(x, amount)", x=x, amount=amount)
    got = getattr(impl.numpy, name)(x, amount)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", x, amount, x64=x64))
    assert_values(got, shifted(x, amount, want_dtype, SHIFTS[name]), want_dtype)


@pytest.mark.parametrize(("args", "code"), [((1, 3), "i*"), ((True, 3), "i*"), ((np.int8(1), 9), "i1"),
                                            ((np.uint8(200), 1), "u1"), ((np.bool_(True), np.bool_(True)), "i4")])
def test_shift_of_python_scalars_is_weak(impl: Impl, x64: bool, args: tuple, code: str) -> None:
    """Shifts promote like arithmetic: a Python int is weak; bool << bool computes in int32."""
    want_dtype = dr.numeric(dr.dtype_of(code, x64))
    for name, left in SHIFTS.items():
        got = getattr(impl.numpy, name)(*args)
        assert_dtype(got, want_dtype, name, weak=dr.is_weak_code(code))
        assert_values(got, shifted(np.asarray(args[0]), np.asarray(args[1]), want_dtype, left), want_dtype)


@pytest.mark.parametrize("name", ["frexp", "modf", "divmod"])
@given(data=st.data())
def test_functions_with_two_results_match_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("float32"), np.dtype("float64"))), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_side=0), S.GRID), label="x")
    args = (x,) if name != "divmod" else (x, data.draw(S.arrays(dt, x.shape, S.GRID_NONZERO), label="y"))
    show_call(f"jnp.{name}(*args)", args=args)
    got = getattr(impl.numpy, name)(*args)
    want_dtype = dr.canonicalize(dt, x64)
    want = getattr(np, name)(*(as_operand(a, want_dtype) for a in args))
    result_dtypes = (want_dtype, np.dtype("int32")) if name == "frexp" else (want_dtype, want_dtype)
    for g, w, d in zip(got, want, result_dtypes):
        assert_dtype(g, d, weak=dr.weak_result("elementwise", *args, x64=x64))
        assert_values(g, w, d)


@given(data=st.data())
def test_round_to_decimals(impl: Impl, flags, data: st.DataObject) -> None:
    draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_side=0), Domain(-100, 100, grid=0.5)), label="x")
    decimals = data.draw(st.integers(-2, 0), label="decimals")
    show_call(f"jnp.round(x, {decimals})", x=x)
    got = impl.numpy.round(x, decimals)
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.round(wide(x), decimals), np.dtype("float32"), atol=1e-4)


@given(data=st.data())
def test_clip_takes_either_bound(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.INTEGER + S.FLOATING], S.shapes(min_side=0), S.TIES), label="x")
    lo = data.draw(st.none() | st.integers(0, 2), label="min")  # unsigned x: no negative bounds
    hi = data.draw(st.none() | st.integers(2, 4), label="max")
    show_call(f"jnp.clip(x, min={lo}, max={hi})", x=x)
    got = impl.numpy.clip(x, min=lo, max=hi)
    want_dtype = dr.canonicalize(x.dtype, x64)
    assert_dtype(got, want_dtype, weak=False)
    want = wide(x)
    want = want if lo is None else np.maximum(want, lo)
    want = want if hi is None else np.minimum(want, hi)
    assert_values(got, want, want_dtype)


def test_classification_of_special_values(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0], np.float32)
    for name in ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]:
        assert_values(getattr(jnp, name)(x), getattr(np, name)(x), np.dtype(bool))
    got = jnp.nan_to_num(x, nan=1.0, posinf=2.0)
    assert_values(got, np.nan_to_num(x, nan=1.0, posinf=2.0), np.dtype("float32"))
    assert_values(jnp.nan_to_num(x), np.nan_to_num(x), np.dtype("float32"))
    assert_values(jnp.logaddexp(x, x), np.logaddexp(x, x), np.dtype("float32"))
    assert_values(jnp.hypot(x, 1.0), np.hypot(x, np.float32(1.0)), np.dtype("float32"))
    assert jnp.iscomplexobj(np.zeros(2, np.complex64)) and jnp.isrealobj(np.zeros(2, np.int8))


def test_ldexp_and_spacing(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.array([0.5, -1.5, 3.0, 1e-3, 0.0], np.float32)
    n = np.array([1, 3, -2, 10, 5], np.int32)
    got = jnp.ldexp(x, n)
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.ldexp(x, n), np.dtype("float32"))
    y = np.array([1.0, 3.0, 1e4, 1e-3], np.float32)
    assert_values(jnp.spacing(y), np.spacing(y), np.dtype("float32"))
    assert_values(jnp.spacing(-y), np.spacing(-y), np.dtype("float32"))


def test_math_functions_keep_weak_types(impl: Impl) -> None:
    jnp = impl.numpy
    for name in ["arccos", "sinh", "exp2", "cbrt", "deg2rad", "sinc", "floor", "trunc", "isnan"]:
        assert_weak(getattr(jnp, name)(0.5), True, name)
    for name in ["signbit", "log2", "log10", "angle", "isinf"]:
        assert_weak(getattr(jnp, name)(0.5), False, name)
    for name in ["rint", "isfinite"]:  # weak for a weak float, strong for a weak int
        assert_weak(getattr(jnp, name)(0.5), True, name)
        assert_weak(getattr(jnp, name)(3), False, name)
    assert_weak(jnp.arctan2(1.0, 2), True, "arctan2")
    assert_weak(jnp.arctan2(np.float32(1.0), 2), False, "arctan2")


# --- reductions and statistics ---------------------------------------------------------------------


def _inexact_rule(dt: np.dtype, x64: bool) -> np.dtype:
    return dr.inexact(dt, x64)


def _index_rule(dt: np.dtype, x64: bool) -> np.dtype:
    return dr.index_dtype(x64)


# name -> (NumPy oracle, dtype rule, input dtypes, takes a tuple axis)
STATISTICS = {
    # (JAX's any/all of a complex array look at the real part only: tested on their own below)
    "all": (np.all, boolean, S.REAL, True),
    "any": (np.any, boolean, S.REAL, True),
    "count_nonzero": (np.count_nonzero, _index_rule, S.ALL, True),
    "ptp": (np.ptp, same, S.INTEGER + FLOAT, True),
    "var": (np.var, _inexact_rule, S.REAL, True),
    "std": (np.std, _inexact_rule, S.REAL, True),
    "nanstd": (np.nanstd, _inexact_rule, FLOAT, True),
    "nansum": (np.nansum, dr.sum_dtype, S.ALL, True),
    "nanmax": (np.nanmax, same, S.INTEGER + FLOAT, True),
    "nanmin": (np.nanmin, same, S.INTEGER + FLOAT, True),
    "nanmean": (np.nanmean, _inexact_rule, S.REAL, True),
    "nanvar": (np.nanvar, _inexact_rule, FLOAT, True),
    "median": (np.median, _inexact_rule, S.REAL, True),
    "nanmedian": (np.nanmedian, _inexact_rule, FLOAT, True),
    "average": (np.average, _inexact_rule, S.REAL, True),
}


def _with_nans(data: st.DataObject, x: np.ndarray) -> np.ndarray:
    """Some NaNs in a float array (never all of a row: NumPy warns then and JAX agrees anyway)."""
    if x.dtype.kind != "f" or x.size == 0:
        return x
    mask = data.draw(S.arrays(np.dtype(bool), x.shape), label="nan mask")
    x = x.copy()
    x[mask & (np.arange(x.size).reshape(x.shape) % 2 == 1)] = np.nan
    return x


@pytest.mark.parametrize("name", list(STATISTICS))
@pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")  # NumPy's, for a row of NaNs and ddof
@given(data=st.data())
def test_statistic_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    oracle, rule, dtypes, tuple_axis = STATISTICS[name]
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(dtypes), label="dtype")
    # (JAX's median of a 0-d array with keepdims has shape (1,): 0-d arrays are left out)
    x = data.draw(
        S.arrays(dt, S.shapes(min_dims=1, min_side=1), S.SMALL if dt.kind != "b" else S.DEFAULT), label="x"
    )
    if name.startswith("nan"):
        x = _with_nans(data, x)
    axis = data.draw(S.axes(x.ndim, allow_tuple=tuple_axis), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    kwargs = {"axis": axis, "keepdims": keepdims}
    if name in ("var", "std", "nanvar", "nanstd"):
        kwargs["ddof"] = data.draw(st.integers(0, 1), label="ddof")
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
        assume(count > kwargs["ddof"])
    show_call(f"jnp.{name}(x, **kwargs)", x=x, kwargs=kwargs)
    got = getattr(impl.numpy, name)(x, **kwargs)
    want_dtype = rule(dr.canonicalize(dt, x64), x64)
    assert_dtype(got, want_dtype, weak=False)
    operand = as_operand(x, want_dtype) if want_dtype.kind in "fc" else wide(x)
    with np.errstate(all="ignore"):
        want = oracle(operand, **kwargs)
    atol = 64 * RTOL.get(want_dtype.name, 0.0) * 5 * max(x.size, 1)
    assert_values(got, np.asarray(want), want_dtype, atol=atol)


@pytest.mark.parametrize("name", ["all", "any"])
@given(data=st.data())
def test_all_and_any_of_complex_read_the_real_part(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """JAX's all/any turn a complex element into a bool by its real part alone (its _cast_to_bool),
    where NumPy reads both parts: jnp.any(1j) is False. The oracle is NumPy on the real parts."""
    draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.COMPLEX), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_dims=1, min_side=1), Domain(-1, 1, grid=1.0)), label="x")
    axis = data.draw(S.axes(x.ndim, allow_tuple=True), label="axis")
    show_call(f"jnp.{name}(x, axis={axis!r})", x=x)
    got = getattr(impl.numpy, name)(x, axis=axis)
    assert_dtype(got, np.dtype(bool), weak=False)
    assert_values(got, np.asarray(getattr(np, name)(x.real != 0, axis=axis)), np.dtype(bool))


@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf"])
@given(data=st.data())
def test_quantile_matches_numpy(impl: Impl, flags, name: str, method: str, data: st.DataObject) -> None:
    draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_dims=1, min_side=1), S.SMALL), label="x")
    if name.startswith("nan"):
        x = _with_nans(data, x)
    scale = 100 if "percent" in name else 1
    q = (
        data.draw(S.arrays(np.dtype("float32"), S.shapes(max_dims=1), Domain(0, 1, grid=1 / 16)), label="q")
        * scale
    )
    axis = data.draw(S.axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"jnp.{name}(x, q, axis={axis!r}, method={method!r}, keepdims={keepdims})", x=x, q=q)
    got = getattr(impl.numpy, name)(x, q, axis=axis, method=method, keepdims=keepdims)
    assert_dtype(got, np.dtype("float32"), weak=False)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice": NaN, as in JAX
        if method == "nearest":
            want = _jax_nearest(name, wide(x), wide(q) / scale, axis, keepdims)
        else:
            want = getattr(np, name)(wide(x), wide(q), axis=axis, method=method, keepdims=keepdims)
    assert_values(got, want, np.dtype("float32"), atol=1e-5)


def _jax_nearest(name: str, x: np.ndarray, q: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    """JAX's method='nearest': the lower neighbour unless the rank q * (n - 1) is more than halfway
    to the next (NumPy rounds a halfway rank to even; test_quantile_nearest_takes_the_lower_...)."""
    quantile = np.nanquantile if name.startswith("nan") else np.quantile
    lower = quantile(x, q, axis=axis, method="lower", keepdims=keepdims)
    higher = quantile(x, q, axis=axis, method="higher", keepdims=keepdims)
    count = np.sum(~np.isnan(x) if name.startswith("nan") else np.ones_like(x), axis=axis, keepdims=keepdims)
    rank = q.reshape(q.shape + (1,) * np.ndim(count)) * np.maximum(count - 1, 0)
    return np.where(rank - np.floor(rank) > 0.5, higher, lower)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("n", [2, 3, 4, 6, 8])
def test_quantile_nearest_takes_the_lower_neighbour_at_a_tie(impl: Impl, name: str, n: int) -> None:
    """Where q * (n - 1) falls halfway between two ranks, JAX's method='nearest' takes the lower
    one (NumPy rounds the rank half to even): the oracle is NumPy's 'lower' there."""
    x = np.arange(1, n + 1, dtype=np.float32)[::-1].copy()
    q = (np.arange(n - 1, dtype=np.float32) + 0.5) / (n - 1)  # every halfway rank
    show_call(f"jnp.{name}(x, q, method='nearest')", x=x, q=q)
    got = getattr(impl.numpy, name)(x, q, method="nearest")
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.quantile(x, q, method="lower"), np.dtype("float32"))


@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
@given(data=st.data())
def test_weighted_quantile_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """weights= goes with method 'inverted_cdf' (JAX 0.10.2 and NumPy take it with no other), one
    per element of x. Weights are whole numbers from 1 up and q a multiple of 1/16, so q times the
    total weight is exact and meets a running sum exactly where it does in NumPy's float64; zero
    weights are left out (at q = 0 NumPy skips them, JAX does not)."""
    draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_dims=1, min_side=1), S.SMALL), label="x")
    if name.startswith("nan"):
        x = _with_nans(data, x)
    w_dtype = data.draw(S.dtypes((np.dtype("float32"), np.dtype("int8"), np.dtype("int32"))), label="w dtype")
    w = data.draw(S.arrays(w_dtype, x.shape, Domain(1, 4, grid=1.0)), label="weights")
    scale = 100 if "percent" in name else 1
    q = data.draw(S.arrays(np.dtype("float32"), S.shapes(max_dims=1), Domain(0, 1, grid=1 / 16)), label="q")
    q = q * scale
    axis = data.draw(S.axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    call = f"jnp.{name}(x, q, axis={axis!r}, method='inverted_cdf', keepdims={keepdims}, weights=w)"
    show_call(call, x=x, q=q, w=w)
    got = getattr(impl.numpy, name)(x, q, axis=axis, method="inverted_cdf", keepdims=keepdims, weights=w)
    assert_dtype(got, np.dtype("float32"), weak=False)  # float32 joined with the weights' dtype
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice": NaN, as in JAX
        want = getattr(np, name)(
            wide(x), wide(q), axis=axis, method="inverted_cdf", keepdims=keepdims, weights=wide(w)
        )
    assert_values(got, want, np.dtype("float32"))


def test_quantile_weights_need_inverted_cdf_and_a_fitting_shape(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(NotImplementedError):
        jnp.quantile(x, 0.5, axis=1, weights=np.ones(3, np.float32))  # method 'linear'
    with pytest.raises(ValueError):
        jnp.quantile(x, 0.5, method="inverted_cdf", weights=np.ones(3, np.float32))  # axis=None
    with pytest.raises(ValueError):
        jnp.quantile(x, 0.5, axis=0, method="inverted_cdf", weights=np.ones(3, np.float32))
    # One weight per element of the reduced axis, and a negative weight makes the result NaN.
    got = jnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=np.array([1, 1, 5], np.float32))
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.array([2.0, 5.0]), np.dtype("float32"))
    w = np.array([[1, -1, 1], [1, 1, 1]], np.float32)
    got = jnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=w)
    assert_values(got, np.array([np.nan, 4.0]), np.dtype("float32"))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any"])
@given(data=st.data())
def test_reduction_with_where_and_initial(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_side=1), Domain(-2, 2, grid=0.5)), label="x")
    where = data.draw(S.arrays(np.dtype(bool), x.shape[1:]), label="where")  # broadcasts against x
    axis = data.draw(S.axes(x.ndim), label="axis")
    kwargs = {"axis": axis, "where": where}
    if name in ("sum", "prod", "max", "min"):
        kwargs["initial"] = {"sum": 1.0, "prod": 2.0, "max": -3.0, "min": 3.0}[name]
    if name == "mean":
        count = np.broadcast_to(where, x.shape).sum(axis=axis)
        assume(np.all(count > 0))
    show_call(f"jnp.{name}(x, **kwargs)", x=x, kwargs=kwargs)
    got = getattr(impl.numpy, name)(x, **kwargs)
    want = getattr(np, name)(wide(x), **kwargs)
    want_dtype = np.dtype(bool) if name in ("all", "any") else np.dtype("float32")
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol=1e-5)


def _cumulative(name: str, x: np.ndarray, axis: int | None, include_initial: bool) -> np.ndarray:
    """NumPy's cumulative_sum and cumulative_prod (NumPy 2.1), from cumsum and cumprod, so that the
    suite runs on any NumPy 2: the running reduction, after its identity if asked for."""
    axis = 0 if axis is None else axis % x.ndim  # (None is allowed for one dimension only)
    running = (np.cumsum if name == "cumulative_sum" else np.cumprod)(x, axis=axis)
    if not include_initial:
        return running
    shape = list(running.shape)
    shape[axis] = 1
    identity = np.full(shape, 0 if name == "cumulative_sum" else 1, running.dtype)
    return np.concatenate([identity, running], axis=axis)


@pytest.mark.parametrize(
    "name", ["cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"]
)
@given(data=st.data())
def test_running_reduction_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.ALL), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_side=1), Domain(-2, 2, grid=1.0)), label="x")
    if name.startswith("nan"):
        x = _with_nans(data, x)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none(), label="axis")
    if name.startswith("cumulative"):
        assume(x.ndim >= 1)
        axis = axis if x.ndim > 1 else data.draw(st.sampled_from([None, axis]), label="axis")
        include = data.draw(st.booleans(), label="include_initial")
        show_call(f"jnp.{name}(x, axis=axis, include_initial=include)", x=x, axis=axis, include=include)
        got = getattr(impl.numpy, name)(x, axis=axis, include_initial=include)
        want = _cumulative(name, wide(x), axis, include)
    else:
        axis = data.draw(st.sampled_from([None, axis]), label="axis")
        show_call(f"jnp.{name}(x, axis=axis)", x=x, axis=axis)
        got = getattr(impl.numpy, name)(x, axis=axis)
        want = getattr(np, name)(wide(x), axis=axis)
    canonical = dr.canonicalize(dt, x64)
    if name == "cumulative_sum":
        want_dtype = dr.sum_dtype(canonical, x64) if canonical.kind in "biu" else canonical  # as jnp.sum
    else:
        want_dtype = dr.default_int(x64) if canonical.kind == "b" else canonical
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol=1e-3)


@given(data=st.data())
def test_diff_and_trapezoid_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.INTEGER + FLOAT), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_dims=1, min_side=1), S.GRID), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = data.draw(st.integers(0, 2), label="n")
    show_call(f"jnp.diff(x, n={n}, axis={axis}); jnp.trapezoid(x, axis={axis})", x=x)
    want_dtype = dr.canonicalize(dt, x64)
    got = impl.numpy.diff(x, n=n, axis=axis)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, np.diff(as_operand(x, want_dtype), n=n, axis=axis), want_dtype)
    got = impl.numpy.trapezoid(x, axis=axis, dx=0.5)
    want_dtype = dr.inexact(want_dtype, x64)
    assert_dtype(got, want_dtype, weak=False)
    want = np.trapezoid(as_operand(x, want_dtype), axis=axis, dx=0.5)
    assert_values(got, want, want_dtype, atol=64 * RTOL[want_dtype.name] * max(x.size, 1))


COV_VALUES = Domain(-5, 5, grid=0.5)  # on a grid: a variance is 0 or not small, never a rounding error


@given(data=st.data())
def test_cov_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("int32"), np.dtype("float32"), np.dtype("float64"))), label="dtype")
    shape = data.draw(st.tuples(st.integers(1, 3), st.integers(3, 6)), label="shape")
    rowvar = data.draw(st.booleans(), label="rowvar")
    x = data.draw(S.arrays(dt, shape if rowvar else shape[::-1], COV_VALUES), label="x")
    kwargs: dict = {"rowvar": rowvar}
    if data.draw(st.booleans(), label="fweights?"):
        kwargs["fweights"] = data.draw(S.arrays(np.dtype("int32"), shape[1:], Domain(1, 3)), label="fweights")
    if data.draw(st.booleans(), label="aweights?"):
        kwargs["aweights"] = data.draw(S.arrays(np.dtype("float32"), shape[1:], Domain(0.5, 2, grid=0.25)),
                                       label="aweights")  # fmt: skip
    if data.draw(st.booleans(), label="ddof?"):
        kwargs["ddof"] = data.draw(st.integers(0, 2), label="ddof")
    show_call(f"jnp.cov(x, **{kwargs!r})", x=x)
    got = impl.numpy.cov(x, **kwargs)
    weights = [kwargs[k].dtype for k in ("fweights", "aweights") if k in kwargs]
    want_dtype = dr.promote(dr.inexact(dr.canonicalize(dt, x64), x64), *weights, x64=x64)
    assert_dtype(got, want_dtype, weak=False)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "degrees of freedom <= 0": inf or nan, as in JAX
        want = np.cov(wide(x), **{k: wide(v) if k.endswith("weights") else v for k, v in kwargs.items()})
    atol = 64 * RTOL[want_dtype.name] * 25 * shape[1] * 3  # sums of n products of values up to 5, weighted
    assert_values(got, want, want_dtype, atol=atol)


@given(data=st.data())
def test_corrcoef_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("int32"), np.dtype("float32"), np.dtype("float64"))), label="dtype")
    x = data.draw(S.arrays(dt, st.tuples(st.integers(1, 3), st.integers(2, 6)), COV_VALUES), label="x")
    show_call("jnp.corrcoef(x)", x=x)
    got = impl.numpy.corrcoef(x)
    want_dtype = dr.inexact(dr.canonicalize(dt, x64), x64)
    assert_dtype(got, want_dtype, weak=False)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a constant row: 0 / 0 is nan, as in JAX
        want = np.corrcoef(wide(x))
    assert_values(got, want, want_dtype, atol=64 * RTOL[want_dtype.name])


@given(data=st.data())
def test_gradient_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("int32"), np.dtype("float32"), np.dtype("float64"))), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_dims=1, max_dims=3, min_side=2), S.SMALL), label="x")
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    spacing: tuple = ()
    kind = data.draw(st.sampled_from(["none", "scalar", "coordinates"]), label="spacing")
    if kind == "scalar":
        spacing = (data.draw(st.sampled_from([0.5, 2.0, 3]), label="h"),)
    elif kind == "coordinates" and axis is not None:  # one axis: its increasing coordinates
        steps = S.arrays(np.dtype("float64"), (x.shape[axis],), Domain(0.25, 2, grid=0.25))
        spacing = (np.cumsum(data.draw(steps, label="steps")),)
    show_call(f"jnp.gradient(x, *spacing, axis={axis})", x=x, spacing=spacing)
    got = impl.numpy.gradient(x, *spacing, axis=axis)
    # f and the spacings are promoted together (an int32 f with a Python float spacing: weak floats)
    want_dtype = dr.inexact(dr.dtype_of(dr.join(*(dr.operand_code(v, x64) for v in (x, *spacing))), x64), x64)
    weak = dr.weak_result("elementwise", x, *spacing, x64=x64)
    want = np.gradient(wide(x), *spacing, axis=axis)
    got, want = (list(got), list(want)) if isinstance(want, (list, tuple)) else ([got], [want])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_dtype(g, want_dtype, weak=weak)
        assert_values(g, w, want_dtype, atol=64 * RTOL[want_dtype.name] * 10)


@given(data=st.data())
def test_unwrap_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """Values on a grid of 1/4: with the default period 2 pi no step lies on a boundary, where
    float32 and NumPy's float64 could decide differently; with period 4 the boundaries are exact."""
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("float32"), np.dtype("float64"))), label="dtype")
    p = data.draw(S.arrays(dt, S.shapes(min_dims=1, max_dims=2), Domain(-10, 10, grid=0.25)), label="p")
    axis = data.draw(st.integers(-p.ndim, p.ndim - 1), label="axis")
    kwargs = data.draw(st.sampled_from([{}, {"period": 4.0}, {"discont": 5.0}]), label="kwargs")
    show_call(f"jnp.unwrap(p, axis={axis}, **{kwargs!r})", p=p)
    got = impl.numpy.unwrap(p, axis=axis, **kwargs)
    want_dtype = dr.canonicalize(dt, x64)
    assert_dtype(got, want_dtype, weak=False)
    want = np.unwrap(wide(p), axis=axis, **kwargs)
    assert_values(got, want, want_dtype, atol=64 * RTOL[want_dtype.name] * max(p.size, 1))


def test_integer_unwrap_keeps_its_dtype(impl: Impl) -> None:
    p = np.array([0, 3, 6, 1, -3, 5, 9, 2], np.int32)
    got = impl.numpy.unwrap(p, period=4)
    assert_dtype(got, np.dtype("int32"), weak=False)
    assert_values(got, np.unwrap(p, period=4), np.dtype("int32"))


def test_average_with_weights_and_returned(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    w = np.array([1.0, 2.0, 0.5, 0.5], np.float32)
    avg, total = jnp.average(x, axis=1, weights=w, returned=True)
    want_avg, want_total = np.average(x, axis=1, weights=w, returned=True)
    assert_values(avg, want_avg, np.dtype("float32"))
    assert_values(total, want_total, np.dtype("float32"))
    assert_values(jnp.ediff1d(x, to_begin=-1.0, to_end=2.0), np.ediff1d(x, to_begin=-1.0, to_end=2.0),
                  np.dtype("float32"))  # fmt: skip
    assert_values(jnp.nanargmax(np.array([np.nan, 1.0, 3.0], np.float32)), np.array(2), dr.index_dtype(False))
    assert_values(jnp.nanargmin(np.array([2.0, np.nan, 1.0], np.float32)), np.array(2), dr.index_dtype(False))


# --- products --------------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ij,jk,kl", [(3, 4), (4, 5), (5, 2)]),
    ("ij->", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("...j,jk->...k", [(2, 3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(4,), (3,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 2), (2, 3)]),
    # a label repeated within one operand: its diagonal
    ("ii->i", [(3, 3)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("iji->ij", [(3, 2, 3)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),
    ("ij,jj,jk->ik", [(2, 3), (3, 3), (3, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
@pytest.mark.parametrize("optimize", [False, "greedy", True])
@given(data=st.data())
def test_einsum_matches_numpy(
    impl: Impl, flags, subscripts: str, shapes: list, optimize, data: st.DataObject
) -> None:
    x64 = draw_x64(data, flags)
    # The operands are all integers or all floats: JAX 0.10.2's einsum fails when an optimized path
    # contracts a float operand with a wider integer one (a preferred_element_type narrower than the
    # result), and on some uint64/float mixes. Unsigned types are left out for the same reason.
    family = data.draw(st.sampled_from([S.SIGNED, (np.dtype("float32"), np.dtype("float64"))]), label="kind")
    dts = [data.draw(S.dtypes(family), label=f"dtype {i}") for i in range(len(shapes))]
    operands = [
        data.draw(S.arrays(dt, shape, S.SMALL), label=f"x{i}")
        for i, (dt, shape) in enumerate(zip(dts, shapes))
    ]
    show_call(f"jnp.einsum({subscripts!r}, *operands, optimize={optimize!r})", operands=operands)
    got = impl.numpy.einsum(subscripts, *operands, optimize=optimize)
    want_dtype = dr.promote(*dts, x64=x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", *operands, x64=x64))
    want = np.einsum(subscripts, *(as_operand(o, want_dtype) for o in operands))
    assert_values(got, want, want_dtype, atol=1e-3)


def test_einsum_path_is_a_greedy_pairwise_order(impl: Impl) -> None:
    a, b, c = np.ones((3, 40)), np.ones((40, 50)), np.ones((50, 2))
    path, description = impl.numpy.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    assert list(path) == [(1, 2), (0, 1)]
    assert str(description)  # a printable summary (JAX returns opt_einsum's PathInfo)


@given(data=st.data())
def test_tensor_products_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.INTEGER + FLOAT), label="dtype")
    a = data.draw(S.arrays(dt, (2, 3, 4), S.SMALL), label="a")
    b = data.draw(S.arrays(dt, (3, 4), S.SMALL), label="b")
    v = data.draw(S.arrays(dt, (4,), S.SMALL), label="v")
    show_call("jnp.tensordot(a, b), jnp.tensordot(a, b, axes=([1], [0])), jnp.inner(a, b), jnp.outer(b, v), "
              "jnp.kron(b, v), jnp.vdot(b, b), jnp.vecdot(a, v), jnp.matvec(b, v), jnp.vecmat(v[:3], b), "
              "jnp.cross(b[:, :3], b[:, 1:]), jnp.trace(a, offset=1, axis1=1, axis2=2)", a=a, b=b, v=v)  # fmt: skip
    jnp = impl.numpy
    want_dtype = dr.canonicalize(dt, x64)
    w = [as_operand(x, want_dtype) for x in (a, b, v)]
    atol = 64 * RTOL.get(want_dtype.name, 0.0) * 100
    for got, want in [
        (jnp.tensordot(a, b), np.tensordot(w[0], w[1])),
        (jnp.tensordot(a, b, axes=([1], [0])), np.tensordot(w[0], w[1], axes=([1], [0]))),
        (jnp.inner(a, b), np.inner(w[0], w[1])),
        (jnp.outer(b, v), np.outer(w[1], w[2])),
        (jnp.kron(b, v), np.kron(w[1], w[2])),
        (jnp.vdot(b, b), np.vdot(w[1], w[1])),
        (jnp.vecdot(a, v), np.vecdot(w[0], w[2])),
        (jnp.matvec(b, v), np.matvec(w[1], w[2])),
        (jnp.vecmat(v[:3], b), np.vecmat(w[2][:3], w[1])),
        (jnp.cross(b[:, :3], b[:, 1:]), np.cross(w[1][:, :3], w[1][:, 1:])),
        (
            jnp.trace(a, offset=1, axis1=1, axis2=2),
            np.trace(w[0], offset=1, axis1=1, axis2=2).astype(want_dtype),
        ),
    ]:
        want_dt = dr.sum_dtype(want_dtype, x64) if np.asarray(got).dtype != want_dtype else want_dtype
        assert_dtype(got, want_dt, weak=False)
        assert_values(got, want, want_dt, atol=atol)


@pytest.mark.parametrize(
    "ord_,axis",
    [(None, None), (None, 1), (1, 0), (2, 1), (3, 1), (0, 1), (np.inf, 1), (-np.inf, 0),
     ("fro", None), (1, None), (-1, (0, 1)), (np.inf, None), (-np.inf, (1, 0))],
)  # fmt: skip
@pytest.mark.parametrize("keepdims", [False, True])
def test_linalg_norm_matches_numpy(impl: Impl, ord_, axis, keepdims: bool) -> None:
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    got = impl.numpy.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.linalg.norm(wide(x), ord=ord_, axis=axis, keepdims=keepdims), np.dtype("float32"))


# --- counting and searching ------------------------------------------------------------------------


@given(data=st.data())
def test_searchsorted_digitize_and_bincount_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    a = np.sort(
        data.draw(
            S.arrays(np.dtype("float32"), (data.draw(st.integers(1, 8), label="n"),), S.TIES), label="a"
        )
    )
    v = data.draw(S.arrays(np.dtype("float32"), S.shapes(), S.TIES), label="v")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    show_call(f"jnp.searchsorted(a, v, side={side!r}); jnp.digitize(v, a)", a=a, v=v)
    jnp = impl.numpy
    assert_values(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side), np.dtype("int32"))
    assert_values(jnp.digitize(v, a), np.digitize(v, a), np.dtype("int32"))
    counts = data.draw(
        S.arrays(np.dtype("int32"), (data.draw(st.integers(1, 10), label="m"),), Domain(0, 6)), label="x"
    )
    got = jnp.bincount(counts, length=8)
    assert_dtype(got, dr.default_int(x64), weak=False)
    assert_values(got, np.bincount(counts, minlength=8), dr.default_int(x64))
    minlength = data.draw(st.integers(0, 10), label="minlength")
    show_call(f"jnp.bincount(x, minlength={minlength})", x=counts)
    got = jnp.bincount(counts, minlength=minlength)  # no length: the known input says it
    assert_dtype(got, dr.default_int(x64), weak=False)
    assert_values(got, np.bincount(counts, minlength=minlength), dr.default_int(x64))


def test_histogram_interp_convolve_and_polyval_match_numpy(impl: Impl) -> None:
    jnp = impl.numpy
    rng = np.random.default_rng(0)
    x = rng.normal(size=50).astype(np.float32)
    f32 = np.dtype("float32")
    for kwargs in [{}, {"bins": 5, "range": (-1.0, 1.0)}, {"bins": 4, "density": True}]:
        got_counts, got_edges = jnp.histogram(x, **kwargs)
        want_counts, want_edges = np.histogram(x.astype(np.float64), **kwargs)
        assert_values(got_edges, want_edges, f32)
        assert_values(got_counts, want_counts, np.asarray(got_counts).dtype, atol=1e-5)
    assert_values(jnp.histogram_bin_edges(x, 3), np.histogram_bin_edges(x.astype(np.float64), 3), f32)
    xp = np.sort(rng.normal(size=6)).astype(np.float32)
    fp = rng.normal(size=6).astype(np.float32)
    at = np.linspace(-3, 3, 13).astype(np.float32)
    assert_values(jnp.interp(at, xp, fp), np.interp(at, xp, fp), f32, atol=1e-6)
    assert_values(
        jnp.interp(at, xp, fp, left=-1.0, right=9.0),
        np.interp(at, xp, fp, left=-1.0, right=9.0),
        f32,
        atol=1e-6,
    )
    a, v = x[:7], x[7:10]
    for mode in ["full", "same", "valid"]:
        assert_values(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode), f32, atol=1e-6)
        assert_values(jnp.convolve(v, a, mode=mode), np.convolve(v, a, mode=mode), f32, atol=1e-6)
        assert_values(jnp.correlate(a, v, mode=mode), np.correlate(a, v, mode=mode), f32, atol=1e-6)
    p = np.array([2.0, -1.0, 0.5], np.float32)
    assert_values(jnp.polyval(p, at), np.polyval(p, at), f32, atol=1e-6)


@given(data=st.data())
def test_histogram2d_and_histogramdd_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """Counts per cell of a grid of bins, and each dimension's edges. The points lie on a grid of
    quarters and the bins split power-of-two ranges, so every edge is exact and no point sits a
    rounding error away from its bin."""
    x64 = draw_x64(data, flags)
    n, d = data.draw(st.integers(1, 12), label="n"), data.draw(st.integers(1, 3), label="d")
    dt = data.draw(S.dtypes([np.dtype("float32"), np.dtype("float64"), np.dtype("int32")]), label="dtype")
    sample = data.draw(S.arrays(dt, (n, d), Domain(-4, 4, grid=0.25)), label="sample")
    bins = data.draw(st.sampled_from([1, 2, 4, 8]) | st.lists(st.sampled_from([1, 2, 4]), min_size=d, max_size=d),
                     label="bins")  # fmt: skip
    ranges = data.draw(st.none() | st.lists(st.sampled_from([(-4.0, 4.0), (-2.0, 2.0), (0.0, 8.0)]), min_size=d,
                                            max_size=d), label="range")  # fmt: skip
    weights = data.draw(st.none() | S.arrays(np.dtype("float32"), (n,), Domain(0, 4, grid=0.25)), label="weights")
    density = data.draw(st.booleans(), label="density")
    if ranges is None:  # edges from the data's own range: only an exact one (a power of two) qualifies
        span = sample.max(axis=0) - sample.min(axis=0)
        if not np.all(np.isin(span, [0, 0.25, 0.5, 1, 2, 4, 8])):
            ranges = [(-4.0, 4.0)] * d
    show_call(f"jnp.histogramdd(sample, bins={bins}, range={ranges}, weights=weights, density={density})",
              sample=sample, weights=weights)  # fmt: skip
    hist, edges = impl.numpy.histogramdd(sample, bins=bins, range=ranges, weights=weights, density=density)
    with np.errstate(all="ignore"):
        want_hist, want_edges = np.histogramdd(wide(sample), bins=bins, range=ranges, weights=weights, density=density)
    edge_dtype = dr.inexact(dr.canonicalize(dt, x64), x64)
    if density or weights is not None:
        hist_dtype = dr.promote(edge_dtype, np.dtype("float32"), x64=x64) if weights is not None else edge_dtype
    else:
        hist_dtype = dr.default_int(x64)
    assert_dtype(hist, hist_dtype, "hist", weak=False)
    assert_values(hist, want_hist, hist_dtype, atol=1e-6)
    assert len(edges) == d
    for got_edges, want_e in zip(edges, want_edges):
        assert_dtype(got_edges, edge_dtype, "edges", weak=False)
        assert_values(got_edges, want_e, edge_dtype)
    if d == 2:
        show_call(f"jnp.histogram2d(x, y, bins={bins}, range={ranges}, weights=weights, density={density})",
                  x=sample[:, 0], y=sample[:, 1], weights=weights)  # fmt: skip
        hist2, x_edges, y_edges = impl.numpy.histogram2d(sample[:, 0], sample[:, 1], bins, ranges, weights, density)
        assert_values(hist2, want_hist, hist_dtype, atol=1e-6)
        assert_values(x_edges, want_edges[0], edge_dtype)
        assert_values(y_edges, want_edges[1], edge_dtype)


def test_histogramdd_checks_its_arguments(impl: Impl) -> None:
    sample = np.zeros((4, 2), np.float32)
    with pytest.raises(ValueError):
        impl.numpy.histogramdd(sample, bins=[2, 2, 2])
    with pytest.raises(ValueError):
        impl.numpy.histogramdd(sample, range=[(0, 1)])
    with pytest.raises(ValueError):
        impl.numpy.histogramdd(sample, weights=np.ones(3, np.float32))


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("value", [2.0, 3])
def test_running_reduction_of_a_python_scalar_runs_over_one_element(impl: Impl, x64: bool, name: str, value) -> None:
    """A weakly typed scalar is a one-element array, so axis 0 names its axis (a strongly typed
    0-d array has no axis in JAX 0.10.2)."""
    got = getattr(impl.numpy, name)(value, axis=0)
    want_dtype = dr.default_float(x64) if isinstance(value, float) else dr.default_int(x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, getattr(np, name)(value, axis=0), want_dtype)
