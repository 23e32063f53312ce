"""jax.numpy reductions (sum, mean, max, min, amax, amin, prod, nanprod, argmax, argmin) against NumPy, with every form of
`axis` (None, int, negative int, tuple) and `keepdims`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    as_operand,
    assert_dtype,
    assert_values,
    assert_weak,
    draw_x64,
    assert_zero_signs,
    show_call,
    ulp_scale,
    wide,
    xla_max,
    xla_min,
)
from conformance.impl import Impl
from conformance.strategies import Domain
from conformance.test_numpy_math import _with_nans as with_nans

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

Axis = int | tuple[int, ...] | None


def reduced_count(shape: tuple[int, ...], axis: Axis) -> int:
    """How many elements each output element is reduced from."""
    if axis is None:
        return int(np.prod(shape))
    axes = (axis,) if isinstance(axis, int) else axis
    return int(np.prod([shape[a] for a in axes]))


# name -> (dtype rule, dtypes JAX accepts, value domain, smallest side allowed)
ACCUMULATING: dict[str, tuple[Callable[[np.dtype, bool], np.dtype], tuple, Domain, int]] = {
    "sum": (dr.sum_dtype, S.ALL, S.DEFAULT, 0),
    "prod": (
        dr.sum_dtype,
        S.ALL,
        Domain(-2, 2, grid=1.0),
        0,
    ),  # |partial products| only grow: no overflow surprises
    "mean": (dr.inexact, S.ALL, S.DEFAULT, 1),
    "nanprod": (dr.sum_dtype, S.ALL, Domain(-2, 2, grid=1.0), 0),  # some NaNs in float arrays: they count as 1
}


@pytest.mark.parametrize("name", list(ACCUMULATING))
@given(data=st.data())
def test_accumulating_reduction_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    rule, dtypes, domain, min_side = ACCUMULATING[name]
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(dtypes), label="dtype")
    x = data.draw(S.arrays(dt, S.shapes(min_side=min_side), domain), label="x")
    if name.startswith("nan"):
        x = with_nans(data, x)
    axis = data.draw(S.axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"jnp.{name}(x, axis={axis!r}, keepdims={keepdims})", x=x)
    got = getattr(impl.numpy, name)(x, axis=axis, keepdims=keepdims)
    want_dtype = rule(dr.canonicalize(dt, x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("reduction"))
    operand = as_operand(x, want_dtype)
    want = getattr(np, name)(operand, axis=axis, keepdims=keepdims)
    # Summing n terms in floating point errs by at most about n * eps * sum(|terms|).
    scale = np.nansum(np.abs(operand), axis=axis, keepdims=keepdims) if want_dtype.kind in "fc" else 0
    n = max(reduced_count(x.shape, axis), 1)
    atol = (
        (n * ulp_scale(want_dtype) * scale / (n if name == "mean" else 1)) if want_dtype.kind in "fc" else 0
    )
    assert_values(got, want, want_dtype, atol=atol)


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
@given(data=st.data())
def test_max_min_match_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(), S.SIGNED_TIES), label="x")
    axis = data.draw(S.axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"jnp.{name}(x, axis={axis!r}, keepdims={keepdims})", x=x)
    got = getattr(impl.numpy, name)(x, axis=axis, keepdims=keepdims)
    want_dtype = dr.canonicalize(x.dtype, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("reduction"))
    extremum = xla_max if name in ("max", "amax") else xla_min  # -0.0 < 0.0, as XLA orders them
    want = extremum.reduce(wide(x), axis=axis, keepdims=keepdims)
    assert_values(got, want, want_dtype)
    assert_zero_signs(got, want)


def test_max_and_min_functions_order_negative_zero_below_positive_zero(impl: Impl) -> None:
    """jnp's max/min family follows lax.max and lax.min: max(0.0, -0.0) is 0.0 and min(0.0, -0.0) is
    -0.0 in either order (NumPy returns the second zero); fmax and fmin return the second zero."""
    jnp = impl.numpy

    def signs(x: object) -> list[bool]:
        return np.signbit(np.asarray(x)).tolist()

    x, y = np.array([0.0, -0.0, 0.0, -0.0], np.float32), np.array([-0.0, 0.0, 0.0, -0.0], np.float32)
    assert signs(jnp.maximum(x, y)) == [False, False, False, True]
    assert signs(jnp.minimum(x, y)) == [True, True, False, True]
    assert signs(jnp.fmax(x, y)) == signs(jnp.fmin(x, y)) == [True, False, False, True]
    both = np.stack([x, y])
    for name in ("max", "amax", "nanmax"):
        assert signs(getattr(jnp, name)(both, axis=0)) == [False, False, False, True], name
    for name in ("min", "amin", "nanmin"):
        assert signs(getattr(jnp, name)(both, axis=0)) == [True, True, False, True], name
    assert signs(jnp.max(np.array([-0.0], np.float32), initial=0.0)) is False
    assert signs(jnp.clip(y, 0.0, 1.0)) == [False, False, False, False]
    assert signs(jnp.clip(x, -1.0, -0.0)) == [True, True, True, True]
    idx = np.array([0, 0, 1, 1])
    assert signs(jnp.zeros(2).at[idx].min(np.array([-0.0, 0.0, 0.0, 0.0], np.float32))) == [True, False]
    assert signs((-jnp.zeros(2)).at[idx].max(np.array([0.0, -0.0, -0.0, -0.0], np.float32))) == [False, True]


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin_match_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Ties are likely (values on a coarse grid): the first index wins, as in NumPy."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.REAL], S.shapes(), Domain(-3, 3, grid=1.0)), label="x")
    axis = data.draw(S.axes(x.ndim, allow_tuple=False), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"jnp.{name}(x, axis={axis!r}, keepdims={keepdims})", x=x)
    got = getattr(impl.numpy, name)(x, axis=axis, keepdims=keepdims)
    assert_dtype(got, dr.index_dtype(x64), weak=dr.weak_result("index"))
    assert_values(got, getattr(np, name)(wide(x), axis=axis, keepdims=keepdims), dr.index_dtype(x64))


@given(data=st.data())
def test_sum_method_on_arrays(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.BOOL, S.INTEGER], S.shapes(min_side=0)), label="x")
    axis = data.draw(S.axes(x.ndim), label="axis")
    show_call(f"jnp.asarray(x).sum(axis={axis!r})", x=x)
    got = impl.numpy.asarray(x).sum(axis=axis)
    want_dtype = dr.sum_dtype(dr.canonicalize(x.dtype, x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("reduction"))
    assert_values(got, np.sum(wide(x), axis=axis), want_dtype)


# --- weak types and 16-bit accumulation ----------------------------------------------------------

# name -> (dtype rule for an int32 or float32 input, NumPy oracle)
ALL_REDUCTIONS = {
    "sum": (dr.sum_dtype, np.sum),
    "prod": (dr.sum_dtype, np.prod),
    "max": (lambda dt, x64: dt, np.max),
    "min": (lambda dt, x64: dt, np.min),
    "amax": (lambda dt, x64: dt, np.amax),
    "amin": (lambda dt, x64: dt, np.amin),
    "nanprod": (dr.sum_dtype, np.nanprod),
    "mean": (dr.inexact, np.mean),
    "argmax": (lambda dt, x64: dr.index_dtype(x64), np.argmax),
    "argmin": (lambda dt, x64: dr.index_dtype(x64), np.argmin),
}


@pytest.mark.parametrize("name", list(ALL_REDUCTIONS))
@pytest.mark.parametrize("fill", [2, 1.5])
@pytest.mark.parametrize(("shape", "axis", "keepdims"), [((), None, False), ((2, 3), None, False), ((2, 3), 0, True)])
def test_reduction_of_a_weak_array_is_strongly_typed(
    impl: Impl, x64: bool, name: str, fill: float, shape: tuple, axis: int | None, keepdims: bool
) -> None:
    """jnp.full(shape, 2) is a weak int (like the Python 2 it holds); a reduction of it is not."""
    x = impl.numpy.full(shape, fill)
    assert_weak(x, True, "jnp.full(shape, fill)")
    got = getattr(impl.numpy, name)(x, axis=axis, keepdims=keepdims)
    rule, oracle = ALL_REDUCTIONS[name]
    want_dtype = rule(dr.dtype_of("i*" if isinstance(fill, int) else "f*", x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("reduction", True))
    assert_values(got, oracle(np.full(shape, fill), axis=axis, keepdims=keepdims), want_dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_mean_of_16_bit_floats_accumulates_in_float32(impl: Impl, dtype: str) -> None:
    """The sum 2049 is not a float16 (nor a bfloat16): rounded before dividing it would give
    2048 / 3 -> 682.5; summed in float32 and divided there, the mean is exactly 683."""
    x = np.array([2048, 1, 0], dr.dtype(dtype))
    got = impl.numpy.mean(x)
    assert_dtype(got, dr.dtype(dtype), weak=dr.weak_result("reduction"))
    want = np.mean(x.astype(np.float32)).astype(dr.dtype(dtype))
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32), want.astype(np.float32))


# --- axes out of range ---------------------------------------------------------------------------

# NumPy raises np.exceptions.AxisError, a subclass of both ValueError and IndexError; JAX raises
# one or the other depending on the function (IndexError from argmax, argmin and mean), so either is
# JAX's behaviour here.
AXIS_ERROR = (ValueError, IndexError)
AXIS_REDUCTIONS = ["sum", "prod", "nanprod", "max", "min", "amax", "amin", "mean", "argmax", "argmin"]


@pytest.mark.parametrize("name", AXIS_REDUCTIONS)
@given(data=st.data())
def test_reduction_over_an_out_of_range_axis_raises(impl: Impl, name: str, data: st.DataObject) -> None:
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes()), label="x")
    axis = data.draw(S.out_of_range_axes(x.ndim), label="axis")
    if name not in ("argmax", "argmin") and data.draw(st.booleans(), label="in a tuple"):
        axis = (axis,) if x.ndim == 0 else (0, axis)
    show_call(f"jnp.{name}(x, axis={axis!r})", x=x)
    with pytest.raises(AXIS_ERROR):
        getattr(impl.numpy, name)(x, axis=axis)


@pytest.mark.parametrize("name", ["sum", "max", "mean"])
def test_reduction_over_a_repeated_axis_raises_value_error(impl: Impl, name: str) -> None:
    """(0, -2) names axis 0 twice."""
    with pytest.raises(ValueError):
        getattr(impl.numpy, name)(np.ones((2, 3), np.float32), axis=(0, -2))
