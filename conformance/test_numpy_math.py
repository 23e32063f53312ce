"""jax.numpy's mathematical functions against NumPy: more elementwise functions (inverse
trigonometry, rounding, classification, complex parts...), reductions and statistics, products
(einsum, tensordot, norms...) and counting (bincount, histogram, searchsorted...).

Elementwise functions reuse test_numpy_elementwise's `Op` table machinery: the oracle computes in the
dtype JAX's rules give, and dtype_rules (never NumPy) gives the expected result dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import as_operand, assert_dtype, assert_values, draw_x64, is_weak, show_call, wide
from conformance.impl import Impl
from conformance.strategies import Domain
from conformance.test_numpy_elementwise import (
    NO_BOOL,
    NO_COMPLEX,
    Op,
    boolean,
    check,
    compute_dtype,
    draw_inputs,
    numeric,
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
    unary("bitwise_invert", np.invert, S.BOOL + S.INTEGER),
]

BINARY = [
    Op("arctan2", np.arctan2, S.REAL, compute=dr.inexact, domains=(S.NONZERO, S.NONZERO)),
    Op("atan2", np.arctan2, S.REAL, compute=dr.inexact, domains=(S.NONZERO, S.NONZERO)),
    Op("logaddexp", np.logaddexp, S.REAL, compute=real_inexact),
    Op("logaddexp2", np.logaddexp2, S.REAL, compute=real_inexact),
    Op("copysign", np.copysign, S.REAL, compute=real_inexact, domains=(S.DEFAULT, S.NONZERO)),
    Op("fmod", np.fmod, NO_COMPLEX, compute=numeric, domains=(S.GRID, S.GRID_NONZERO)),
    Op("fmax", np.fmax, S.REAL, domains=(S.TIES, S.TIES)),
    Op("fmin", np.fmin, S.REAL, domains=(S.TIES, S.TIES)),
    Op("hypot", np.hypot, S.REAL, compute=real_inexact),
    Op("heaviside", np.heaviside, S.REAL, compute=real_inexact, domains=(S.TIES, S.DEFAULT)),
    Op("float_power", np.float_power, S.REAL, compute=dr.inexact, domains=(Domain(0.5, 4), Domain(-3, 3))),
    Op("gcd", np.gcd, INTEGER, domains=(Domain(-60, 60), Domain(-60, 60))),
    Op("lcm", np.lcm, INTEGER, domains=(Domain(-11, 11), Domain(-11, 11))),
    Op("logical_xor", np.logical_xor, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
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
        compute = compute_dtype(op, (x.dtype, y.dtype), (x.shape, y.shape), x64)
        x, y = x.astype(compute), y.astype(compute)
        assume(compute.name != "bfloat16")  # NumPy has no nextafter for it
    show_call(f"jnp.{op.name}(x, y)", x=x, y=y)
    check(impl, op, x64, [x, y])


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
        assert_dtype(g, d)
        assert_values(g, w, d)


@given(data=st.data())
def test_round_to_decimals(impl: Impl, flags, data: st.DataObject) -> None:
    draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_side=0), Domain(-100, 100, grid=0.5)), label="x")
    decimals = data.draw(st.integers(-2, 0), label="decimals")
    show_call(f"jnp.round(x, {decimals})", x=x)
    got = impl.numpy.round(x, decimals)
    assert_dtype(got, np.dtype("float32"))
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
    assert_dtype(got, want_dtype)
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
    assert_dtype(got, np.dtype("float32"))
    assert_values(got, np.ldexp(x, n), np.dtype("float32"))
    y = np.array([1.0, 3.0, 1e4, 1e-3], np.float32)
    assert_values(jnp.spacing(y), np.spacing(y), np.dtype("float32"))
    assert_values(jnp.spacing(-y), np.spacing(-y), np.dtype("float32"))


def test_math_functions_keep_weak_types(impl: Impl) -> None:
    jnp = impl.numpy
    for name in ["arccos", "sinh", "exp2", "cbrt", "deg2rad", "sinc", "floor", "trunc", "isnan"]:
        assert is_weak(getattr(jnp, name)(0.5)), name
    for name in ["signbit", "log2", "log10", "angle", "isinf"]:
        assert not is_weak(getattr(jnp, name)(0.5)), name
    for name in ["rint", "isfinite"]:  # weak for a weak float, strong for a weak int
        assert is_weak(getattr(jnp, name)(0.5)) and not is_weak(getattr(jnp, name)(3)), name
    assert is_weak(jnp.arctan2(1.0, 2)) and not is_weak(jnp.arctan2(np.float32(1.0), 2))
