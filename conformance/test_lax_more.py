"""More of jax.lax against oracles: the special functions (erf, erfc, erf_inv, lgamma, digamma, zeta,
polygamma, bessel_i0e, bessel_i1e, against Python's math module and references written here),
rounding, nextafter, clamp, the bitwise and cumulative reductions, sort and top_k, the bit
operations (shifts, population_count, clz, bitcast_convert_type, against Python's integers), and
the helpers jax.lax builds from primitives (full, full_like, collapse, slice_in_dim, index_in_dim
and the dynamic *_in_dim family)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    RTOL,
    assert_dtype,
    assert_zero_signs,
    assert_rearranged,
    assert_values,
    assert_weak,
    draw_x64,
    show_call,
    to_numpy,
    wide,
    xla_max,
    xla_min,
)
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]


def draw_array(data: st.DataObject, x64: bool, groups: tuple, shape: Any, domain: Domain = S.DEFAULT) -> np.ndarray:
    """An array whose dtype is already canonical, so the result dtype is simply the input's."""
    dt = dr.canonicalize(data.draw(S.dtypes(*groups), label="dtype"), x64)
    return data.draw(S.arrays(dt, shape, domain), label="x")


# --- special functions: oracles ------------------------------------------------------------------

EULER_GAMMA = 0.5772156649015329


def lgamma_reference(x: float) -> float:
    """math.lgamma, with its poles (0, -1, -2, ...) giving inf instead of raising."""
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


def digamma_reference(x: float) -> float:
    """psi(x) in float64: reflection below 1/2, the recurrence up to 40, then the asymptotic series
    (its first omitted term is below 1e-22 there). Poles give nan, as in XLA."""
    if math.isnan(x) or (x <= 0 and x == math.floor(x)):
        return math.nan
    if x < 0.5:
        return digamma_reference(1 - x) - math.pi / math.tan(math.pi * (x - round(x)))
    steps = []
    while x < 40:
        steps.append(1 / x)
        x += 1
    bernoulli = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730]
    series = [-b / (2 * k * x ** (2 * k)) for k, b in enumerate(bernoulli, 1)]
    return math.fsum([math.log(x), -0.5 / x, *series, *(-s for s in steps)])


def erf_inv_reference(x: float) -> float:
    """Newton's method on math.erf, from 0: erf is concave beyond 0, so the steps climb to the root
    from below without overshooting."""
    if abs(x) >= 1:
        return math.copysign(math.inf, x) if abs(x) == 1 else math.nan
    target, y = abs(x), 0.0
    for _ in range(200):
        step = (math.erf(y) - target) / (2 / math.sqrt(math.pi) * math.exp(-y * y))
        y -= step
        if abs(step) <= 1e-17 * y:
            break
    return math.copysign(y, x)


def bessel_i0e_reference(x: float) -> float:
    """exp(-|x|) I0(x) from the power series sum_k (x^2/4)^k / (k!)^2, whose terms are all positive,
    summed with math.fsum. The largest term is near k = |x|/2; by k = 2|x| + 40 they are below 1e-20
    of the sum."""
    if math.isnan(x):
        return math.nan
    t, terms = x * x / 4, [1.0]
    for k in range(1, int(2 * abs(x)) + 40):
        terms.append(terms[-1] * t / (k * k))
    return math.fsum(terms) * math.exp(-abs(x))


def elementwise(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """A float64 oracle applying a Python function to every element."""
    return np.vectorize(lambda v: fn(float(v)), otypes=[np.float64])


SPECIAL = {
    "erf": (elementwise(math.erf), Domain(-5, 5)),
    "erfc": (elementwise(math.erfc), Domain(-4, 9)),  # erfc(9) = 4e-37 is still a normal float32
    "erf_inv": (elementwise(erf_inv_reference), Domain(-0.99, 0.99)),
    "lgamma": (elementwise(lgamma_reference), Domain(-10, 20)),
    "digamma": (elementwise(digamma_reference), Domain(-10, 20)),
    "bessel_i0e": (elementwise(bessel_i0e_reference), Domain(-30, 30)),
}


@pytest.mark.parametrize("name", list(SPECIAL))
@given(data=st.data())
def test_special_function_matches_reference(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Within RTOL relative plus RTOL absolute (these functions have zeros, near which XLA's error is
    absolute); float64 to 1e-12, which needs more than a float32 algorithm."""
    oracle, domain = SPECIAL[name]
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.FLOATING,), S.shapes(min_side=0), domain)
    show_call(f"lax.{name}(x)", x=x)
    got = getattr(impl.lax, name)(x)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, oracle(wide(x)), x.dtype, atol=RTOL[x.dtype.name])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_functions_at_their_poles_and_limits(impl: Impl, x64: bool, dtype: str) -> None:
    dt = dr.canonicalize(np.dtype(dtype), x64)

    def run(name: str, values: list[float]) -> np.ndarray:
        got = getattr(impl.lax, name)(np.array(values, dt))
        assert_dtype(got, dt, weak=dr.weak_result("elementwise", dt))
        return to_numpy(got).astype(np.float64)

    inf, nan = math.inf, math.nan
    np.testing.assert_array_equal(run("erf_inv", [-1, 1, 0, 1.5, -2]), [-inf, inf, 0, nan, nan])
    np.testing.assert_array_equal(run("erf", [-inf, inf, 0]), [-1, 1, 0])
    np.testing.assert_array_equal(run("erfc", [-inf, inf, 0]), [2, 0, 1])
    np.testing.assert_array_equal(run("lgamma", [0, -1, -2, inf]), [inf] * 4)
    np.testing.assert_allclose(run("lgamma", [1, 2, 0.5]), [0, 0, math.log(math.pi) / 2], atol=1e-6)
    np.testing.assert_array_equal(np.isnan(run("digamma", [0, -1, -3, 1])), [True, True, True, False])
    np.testing.assert_allclose(run("digamma", [1, 0.5]), [-EULER_GAMMA, -EULER_GAMMA - 2 * math.log(2)], rtol=1e-6)
    np.testing.assert_array_equal(run("bessel_i0e", [inf, -inf, nan])[:2], [0, 0])
    assert np.isnan(run("bessel_i0e", [nan])).all()
    np.testing.assert_allclose(run("bessel_i0e", [0, -0.0]), [1, 1], rtol=1e-6)  # XLA's float32: 1.0000001


def test_bessel_i0e_is_a_primitive_of_that_name(impl: Impl) -> None:
    """jnp.i0 is exp(|x|) times this primitive, so later stages owe rules for it alone; bound
    directly, it computes what its wrapper does."""
    prim = impl.lax.bessel_i0e_p
    assert prim.name == "bessel_i0e"
    x = np.array([0.5, -3.0, 40.0], np.float32)
    assert_values(prim.bind(x), to_numpy(impl.lax.bessel_i0e(x)), np.dtype("float32"))


# --- zeta, polygamma and bessel_i1e --------------------------------------------------------------


def zeta_reference(s: float, q: float) -> tuple[float, float]:
    """zeta(s, q) = sum_k (q + k)^-s in float64, and the sum of the terms' sizes (the scale of the
    rounding error: for q < 0 and odd s, terms of both signs cancel). The first 1000 terms summed
    exactly (fsum), the rest as the integral of t^-s from a = q + 999.5 (the midpoint rule) with its
    first correction f'(a)/24 = -s/24 a^(-s-1); what that leaves out is below 1e-13 of the tail for
    s <= 12."""
    terms = (q + np.arange(1000.0)) ** -s
    a = q + 999.5
    tail = a ** (1 - s) / (s - 1) - s / 24 * a ** (-s - 1)
    return math.fsum([*terms, tail]), math.fsum([*np.abs(terms), tail])


def polygamma_reference(m: float, x: float) -> tuple[float, float]:
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x) for m >= 1, digamma for m = 0; and its scale (for
    digamma 1 + |psi(x)|: near its zeros XLA's error is absolute, as in the test of lax.digamma)."""
    if m == 0:
        value = digamma_reference(x)
        return value, 1 + abs(value)
    value, scale = zeta_reference(m + 1, x)
    return (-1) ** (m + 1) * math.factorial(int(m)) * value, math.factorial(int(m)) * scale


def i1e_reference(x: float) -> float:
    """e^-|x| I1(x) from the power series (x/2) sum_k (x^2/4)^k / (k! (k+1)!): positive terms,
    summed exactly (fsum) until they no longer count."""
    ax, terms = abs(x), [abs(x) / 2]
    k = 0
    while terms[-1] > 1e-18 * terms[0] or k < ax:
        k += 1
        terms.append(terms[-1] * ax * ax / (4 * k * (k + 1)))
    return math.copysign(math.fsum(terms) * math.exp(-ax), x)


def off_the_poles(x: np.ndarray, distance: float) -> np.ndarray:
    """x, with values within `distance` of 0, -1, -2, ... moved away by 2 * distance (rounded to x's
    dtype, which moves them by at most a few hundredths more on the drawn ranges)."""
    near = (x <= distance) & (np.abs(wide(x) - np.round(wide(x))) < distance)
    return np.where(near, wide(x) + 2 * distance, wide(x)).astype(x.dtype)


def reference_with_scale(fn: Callable[[float, float], tuple[float, float]], a: np.ndarray, b: np.ndarray) -> tuple:
    pairs = [fn(float(u), float(v)) for u, v in zip(wide(a).ravel(), wide(b).ravel())]
    value = np.array([p[0] for p in pairs], np.float64).reshape(a.shape)
    scale = np.array([p[1] for p in pairs], np.float64).reshape(a.shape)
    return value, scale


@given(data=st.data())
def test_zeta_matches_reference(impl: Impl, flags, data: st.DataObject) -> None:
    """The Hurwitz zeta function for s in [1.1, 12], q in [0.5, 20] (all terms positive); and for an
    integer s and q in [-5, 0) off the poles, where the error is measured against the terms' size."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.FLOATING), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    if data.draw(st.booleans(), label="q < 0"):
        s = data.draw(S.arrays(dt, shape, Domain(2, 8, grid=1.0)), label="s")
        q = off_the_poles(data.draw(S.arrays(dt, shape, Domain(-5, -0.05)), label="q"), 0.05)
    else:
        s = data.draw(S.arrays(dt, shape, Domain(1.1, 12)), label="s")
        q = data.draw(S.arrays(dt, shape, Domain(0.5, 20)), label="q")
    show_call("lax.zeta(s, q)", s=s, q=q)
    got = impl.lax.zeta(s, q)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", s, q, x64=True))
    want, scale = reference_with_scale(zeta_reference, s, q)
    assert_values(got, want, dt, atol=RTOL[dt.name] * scale)


@given(data=st.data())
def test_polygamma_matches_reference(impl: Impl, flags, data: st.DataObject) -> None:
    """m = 0 (digamma) to 4, x in [-5, 15] at least 0.25 away from the poles; within RTOL of the
    terms' size, since psi^(m) has zeros between the poles for even m."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.FLOATING), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    m = data.draw(S.arrays(dt, shape, Domain(0, 4, grid=1.0)), label="m")
    x = off_the_poles(data.draw(S.arrays(dt, shape, Domain(-5, 15)), label="x"), 0.25)
    show_call("lax.polygamma(m, x)", m=m, x=x)
    got = impl.lax.polygamma(m, x)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", m, x, x64=True))
    want, scale = reference_with_scale(polygamma_reference, m, x)
    assert_values(got, want, dt, atol=RTOL[dt.name] * scale)


@given(data=st.data())
def test_bessel_i1e_matches_reference(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.FLOATING,), S.shapes(min_side=0), Domain(-50, 50))
    show_call("lax.bessel_i1e(x)", x=x)
    got = impl.lax.bessel_i1e(x)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, elementwise(i1e_reference)(wide(x)), x.dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_zeta_polygamma_and_bessel_i1e_at_their_poles_and_limits(impl: Impl, x64: bool, dtype: str) -> None:
    dt = dr.canonicalize(np.dtype(dtype), x64)
    inf, nan = math.inf, math.nan

    def run(name: str, *columns: list[float]) -> np.ndarray:
        got = getattr(impl.lax, name)(*(np.array(c, dt) for c in columns))
        assert_dtype(got, dt, weak=dr.weak_result("elementwise", dt))
        return to_numpy(got).astype(np.float64)

    # zeta: nan for s < 1, inf for s = 1; at q = 0, -1, ..., -inf, inf for an even integer s (also
    # s <= 0) and nan otherwise; nan for q < 0 and a non-integer s, for nan, for s = inf or q = inf.
    s = [0.5, 1.0, 1.0, 2.0, 3.0, 2.0, 0.0, -2.0, 2.5, 2.0, inf, nan, 2.0, 2.0]
    q = [1.0, 5.0, nan, 0.0, -1.0, -3.0, -2.0, -2.0, -0.5, -inf, 1.0, 1.0, inf, nan]
    want = [nan, inf, inf, inf, nan, inf, inf, inf, nan, inf, nan, nan, nan, nan]
    np.testing.assert_array_equal(run("zeta", s, q), want)
    # polygamma: nan unless m is a natural number; m = 0 is digamma; at the poles inf for odd m,
    # nan for even m (digamma's poles are nan); nan at x = inf for m >= 1.
    m = [0.5, -1.0, nan, 1.0, 2.0, 1.0, 0.0, 0.0, 1.0, 3.0]
    x = [1.0, 1.0, 1.0, -2.0, -2.0, -inf, -1.0, inf, inf, 0.0]
    want = [nan, nan, nan, inf, nan, inf, nan, inf, nan, inf]
    np.testing.assert_array_equal(run("polygamma", m, x), want)
    got = run("bessel_i1e", [inf, -inf, 0.0, -0.0, nan])
    np.testing.assert_array_equal(got, [0.0, -0.0, 0.0, -0.0, nan])
    np.testing.assert_array_equal(np.signbit(got[:4]), [False, True, False, True])


# --- rounding, is_finite, nextafter, clamp -------------------------------------------------------


def round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)  # exact for values on the grid


def round_half_even(x: np.ndarray) -> np.ndarray:
    low = np.floor(x)
    frac = x - low
    return np.where(frac > 0.5, low + 1, np.where(frac < 0.5, low, low + np.mod(low, 2)))


@pytest.mark.parametrize("method", ["AWAY_FROM_ZERO", "TO_NEAREST_EVEN", None])
@given(data=st.data())
def test_round(impl: Impl, flags, method: str | None, data: st.DataObject) -> None:
    """Ties (x.5, common on the grid) go away from zero by default, or to the even neighbour."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.FLOATING,), S.shapes(min_side=0), S.GRID)
    if method is None:
        show_call("lax.round(x)", x=x)
        got = impl.lax.round(x)
    else:
        show_call(f"lax.round(x, lax.RoundingMethod.{method})", x=x)
        got = impl.lax.round(x, getattr(impl.lax.RoundingMethod, method))
    oracle = round_half_even if method == "TO_NEAREST_EVEN" else round_half_away
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, oracle(wide(x)), x.dtype)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_is_finite_of_infinities_and_nan(impl: Impl, x64: bool, dtype: str) -> None:
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan], dr.dtype(dtype))
    got = impl.lax.is_finite(x)
    assert_dtype(got, np.dtype(bool), weak=dr.weak_result("elementwise", x))
    np.testing.assert_array_equal(to_numpy(got), [True, True, False, False, False])


def step_toward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The float next to x toward y, from x's bits: for floats of one sign, the next float away from
    zero has the next larger bit pattern. From zero, the step is the smallest subnormal."""
    bits = np.dtype(f"uint{8 * x.dtype.itemsize}")
    sign = bits.type(1 << (8 * x.dtype.itemsize - 1))
    raw = x.view(bits)
    away_from_zero = (y > x) == (x > 0)
    stepped = np.where(away_from_zero, raw + bits.type(1), raw - bits.type(1)).astype(bits)
    from_zero = np.where(y > 0, bits.type(1), sign | bits.type(1)).astype(bits)
    out = np.where(x == 0, from_zero, stepped).astype(bits).view(x.dtype)
    return np.where(x == y, y, out)


@given(data=st.data())
def test_nextafter(impl: Impl, flags, data: st.DataObject) -> None:
    """Exactly one step (subnormals included), or y itself when x == y."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.FLOATING), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    x, y = (data.draw(S.arrays(dt, shape, S.TIES), label=n) for n in "xy")
    show_call("lax.nextafter(x, y)", x=x, y=y)
    got = impl.lax.nextafter(x, y)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", x, y, x64=True))
    np.testing.assert_array_equal(wide(to_numpy(got)), wide(step_toward(x, y)))


@given(data=st.data())
def test_clamp(impl: Impl, flags, data: st.DataObject) -> None:
    """min and max are scalars or have x's shape; where min > max the result is max."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.REAL), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    x = data.draw(S.arrays(dt, shape, S.TIES), label="x")
    lo, hi = (data.draw(S.arrays(dt, st.sampled_from([(), shape]), S.TIES), label=n) for n in ("min", "max"))
    show_call("lax.clamp(lo, x, hi)", lo=lo, x=x, hi=hi)
    got = impl.lax.clamp(lo, x, hi)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", lo, x, hi, x64=True))
    assert_values(got, np.minimum(np.maximum(wide(x), wide(lo)), wide(hi)), dt)


# --- weak types ------------------------------------------------------------------------------------

WEAK_CASES: dict[str, Callable[[Any], Any]] = {
    "floor(2.5)": lambda lax: lax.floor(2.5),
    "round(2.5)": lambda lax: lax.round(2.5),
    "erf(0.5)": lambda lax: lax.erf(0.5),
    "lgamma(3.0)": lambda lax: lax.lgamma(3.0),
    "zeta(2.0, 1.5)": lambda lax: lax.zeta(2.0, 1.5),
    "polygamma(1.0, 1.5)": lambda lax: lax.polygamma(1.0, 1.5),
    "bessel_i1e(1.0)": lambda lax: lax.bessel_i1e(1.0),
    "is_finite(1.0)": lambda lax: lax.is_finite(1.0),
    "square(3)": lambda lax: lax.square(3),
    "atan2(1.0, 2.0)": lambda lax: lax.atan2(1.0, 2.0),
    "clamp(0.0, 2.0, 1.0)": lambda lax: lax.clamp(0.0, 2.0, 1.0),
    "stop_gradient(2.0)": lambda lax: lax.stop_gradient(2.0),
    "cumprod(weak)": lambda lax: lax.cumprod(lax.broadcast(2.0, (3,))),
    "sort(weak)": lambda lax: lax.sort(lax.broadcast(2.0, (3,))),
    "top_k(weak) indices": lambda lax: lax.top_k(lax.broadcast(2.0, (3,)), 2)[1],
    "full((2,), 1.0)": lambda lax: lax.full((2,), 1.0),
}
STRONG_CASES: dict[str, Callable[[Any], Any]] = {
    "clamp(float32, 2.0, 1.0)": lambda lax: lax.clamp(np.float32(0), 2.0, 1.0),
    "zeta(float32, 1.5)": lambda lax: lax.zeta(np.float32(2), 1.5),
    "reduce_and(weak)": lambda lax: lax.reduce_and(lax.broadcast(3, (2,)), (0,)),
    "reduce_xor(weak)": lambda lax: lax.reduce_xor(lax.broadcast(3, (2,)), (0,)),
    "sort_key_val values": lambda lax: lax.sort_key_val(lax.broadcast(2.0, (3,)), np.arange(3))[1],
    "full((2,), 1.0, float32)": lambda lax: lax.full((2,), 1.0, np.float32),
    "full((2,), np.float32(1))": lambda lax: lax.full((2,), np.float32(1)),
    "full_like(int8, 1.0)": lambda lax: lax.full_like(np.ones(2, np.int8), 1.0),
}


@pytest.mark.parametrize("case", list(WEAK_CASES))
def test_weakly_typed_results(impl: Impl, case: str) -> None:
    assert_weak(WEAK_CASES[case](impl.lax), True, f"lax.{case}")


@pytest.mark.parametrize("case", list(STRONG_CASES))
def test_strongly_typed_results(impl: Impl, case: str) -> None:
    assert_weak(STRONG_CASES[case](impl.lax), False, f"lax.{case}")


def test_stop_gradient_maps_over_a_pytree(impl: Impl) -> None:
    x = np.arange(3, dtype=np.float32)
    got = impl.lax.stop_gradient({"a": x, "b": (np.int32(2), None)})
    assert set(got) == {"a", "b"} and got["b"][1] is None
    assert_rearranged(got["a"], x)
    assert_rearranged(got["b"][0], np.array(2, np.int32))


# --- reductions: bitwise and cumulative --------------------------------------------------------------

BITWISE_REDUCTIONS = {"reduce_and": np.bitwise_and, "reduce_or": np.bitwise_or, "reduce_xor": np.bitwise_xor}


@pytest.mark.parametrize("name", list(BITWISE_REDUCTIONS))
@given(data=st.data())
def test_bitwise_reductions(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Logical for bools, bitwise for integers; an empty reduction gives the identity."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.BOOL, S.INTEGER), S.shapes(min_side=0), S.WIDE)
    axes = data.draw(S.sorted_axes(x.ndim), label="axes")
    show_call(f"lax.{name}(x, {axes})", x=x)
    got = getattr(impl.lax, name)(x, axes)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, BITWISE_REDUCTIONS[name].reduce(wide(x), axis=axes), x.dtype)


CUMULATIVE = {
    "cumprod": (np.multiply, (S.NUMBER,), S.WIDE),  # integers wrap around
    "cummax": (xla_max, (S.NUMBER,), S.SIGNED_TIES),  # -0.0 < 0.0, as XLA orders them
    "cummin": (xla_min, (S.NUMBER,), S.SIGNED_TIES),
    "cumlogsumexp": (np.logaddexp, (S.FLOATING,), S.DEFAULT),
}


@pytest.mark.parametrize("name", list(CUMULATIVE))
@given(data=st.data())
def test_cumulative_reductions(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    ufunc, groups, domain = CUMULATIVE[name]
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, groups, S.shapes(min_dims=1, min_side=0), domain)
    axis = data.draw(st.integers(0, x.ndim - 1), label="axis")
    reverse = data.draw(st.booleans(), label="reverse")
    show_call(f"lax.{name}(x, axis={axis}, reverse={reverse})", x=x)
    got = getattr(impl.lax, name)(x, axis=axis, reverse=reverse)
    flip = (lambda a: np.flip(a, axis)) if reverse else (lambda a: a)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    atol = RTOL.get(x.dtype.name, 0.0) if name == "cumlogsumexp" else 0.0
    want = flip(ufunc.accumulate(flip(wide(x)), axis=axis))
    assert_values(got, want, x.dtype, atol=atol)
    if name in ("cummax", "cummin"):
        assert_zero_signs(got, want)


# --- sort and top_k ----------------------------------------------------------------------------------


def sort_keys(x: np.ndarray) -> list[np.ndarray]:
    """What np.lexsort orders by, most significant last: complex numbers by real, then imaginary part."""
    x = wide(x)
    return [x.imag, x.real] if x.dtype.kind == "c" else [x]


@given(data=st.data())
def test_sort_orders_every_operand_by_the_keys(impl: Impl, flags, data: st.DataObject) -> None:
    """Stable and lexicographic over the first num_keys operands; ties are common (TIES)."""
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_dims=1, min_side=0), label="shape")
    count = data.draw(st.integers(1, 3), label="operands")
    operands = [
        data.draw(S.arrays(dr.canonicalize(data.draw(S.dtypes(), label="dtype"), x64), shape, S.TIES), label=f"x{i}")
        for i in range(count)
    ]
    num_keys = data.draw(st.integers(1, count), label="num_keys")
    dimension = data.draw(st.integers(-len(shape), len(shape) - 1), label="dimension")
    show_call(f"lax.sort(operands, dimension={dimension}, num_keys={num_keys})", operands=operands)
    got = impl.lax.sort(tuple(operands), dimension=dimension, num_keys=num_keys)
    keys = [k for x in reversed(operands[:num_keys]) for k in sort_keys(x)]
    order = np.lexsort(keys, axis=dimension)
    assert len(got) == count
    for g, x in zip(got, operands):
        assert_rearranged(g, np.take_along_axis(x, order, axis=dimension))


def test_sort_puts_nans_last_and_keeps_signed_zeros_in_place(impl: Impl) -> None:
    """XLA's order for floats: NaNs (of either sign) after +inf; -0.0 and 0.0 compare equal."""
    x = np.array([0.0, -0.0, np.nan, -np.nan, -np.inf, np.inf, 1.0, -1.0, 0.0, -0.0], np.float32)
    values, index = impl.lax.sort_key_val(x, np.arange(10, dtype=np.int32))
    np.testing.assert_array_equal(to_numpy(index), [4, 7, 0, 1, 8, 9, 6, 5, 2, 3])
    np.testing.assert_array_equal(np.signbit(to_numpy(values)[:8]), np.signbit(x[[4, 7, 0, 1, 8, 9, 6, 5]]))


def test_sort_of_one_array_returns_an_array(impl: Impl) -> None:
    got = impl.lax.sort(np.array([[3, 1, 2], [0, 5, 4]], np.int32), dimension=0)
    assert_rearranged(got, np.array([[0, 1, 2], [3, 5, 4]], np.int32))


def top_k_reference(x: np.ndarray, k: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest along `axis`, largest first, ties in index order; computed row by row."""
    rows = np.moveaxis(x, axis, -1)
    largest_first = [sorted(range(len(row)), key=lambda i, row=row: (-row[i], i))[:k] for row in rows.reshape(-1, rows.shape[-1]).tolist()]
    index = np.array(largest_first, dtype=np.int32).reshape(rows.shape[:-1] + (k,))
    values = np.take_along_axis(rows, index, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(index, -1, axis)


@given(data=st.data())
def test_top_k(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.REAL,), S.shapes(min_dims=1), S.TIES)
    use_axis = data.draw(st.booleans(), label="axis given")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis") if use_axis else -1
    k = data.draw(st.integers(0, x.shape[axis]), label="k")
    show_call(f"lax.top_k(x, {k}, axis={axis})" if use_axis else f"lax.top_k(x, {k})", x=x)
    values, index = impl.lax.top_k(x, k, axis=axis) if use_axis else impl.lax.top_k(x, k)
    want_values, want_index = top_k_reference(x, k, axis % x.ndim)
    assert_dtype(index, np.dtype("int32"), weak=dr.weak_result("index"))
    np.testing.assert_array_equal(to_numpy(index), want_index)
    assert_rearranged(values, want_values)


def test_top_k_orders_floats_totally(impl: Impl) -> None:
    """NaN first, +0.0 before -0.0, and a NaN with its sign bit set last."""
    x = np.array([0.0, -0.0, np.nan, -np.nan, -np.inf, np.inf, 1.0, -1.0, 0.0, -0.0], np.float32)
    _, index = impl.lax.top_k(x, 10)
    np.testing.assert_array_equal(to_numpy(index), [2, 5, 6, 0, 8, 1, 9, 7, 4, 3])


def test_top_k_returns_a_list(impl: Impl) -> None:
    """JAX's top_k returns what binding its primitive gives: a list [values, indices], not a tuple."""
    show_call("lax.top_k(np.arange(3.0), 2)")
    out = impl.lax.top_k(np.arange(3.0), 2)
    assert type(out) is list and len(out) == 2, f"top_k returned {type(out).__name__}"


# --- helpers built from primitives ------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, shape, dtype, value, weak",
    [
        (lambda lax: lax.full((2, 3), 1.0), (2, 3), "float64", 1.0, True),
        (lambda lax: lax.full(3, True), (3,), "bool", True, False),
        (lambda lax: lax.full((), 1j), (), "complex128", 1j, True),
        (lambda lax: lax.full((2,), 7, np.int8), (2,), "int8", 7, False),
        (lambda lax: lax.full_like(np.ones(2, np.int8), 300), (2,), "int8", 44, False),  # a Python int wraps
        (lambda lax: lax.full_like(np.ones((2, 3)), 2, shape=(4,)), (4,), "float64", 2.0, False),
        (lambda lax: lax.full_like(np.ones((2, 3)), 2.5, np.int16), (2, 3), "int16", 2, False),
        (lambda lax: lax.full_like(1.0, 2), (), "float64", 2.0, True),
    ],
)
def test_full_and_full_like(
    impl: Impl, x64: bool, call: Callable, shape: tuple, dtype: str, value: Any, weak: bool
) -> None:
    """Weak iff the fill value (full) or the prototype (full_like) is a Python scalar and no dtype is given."""
    got = call(impl.lax)
    want_dtype = dr.canonicalize(np.dtype(dtype), x64)
    assert_dtype(got, want_dtype, weak=weak)
    assert_values(got, np.full(shape, value), want_dtype)


@given(data=st.data())
def test_collapse(impl: Impl, flags, data: st.DataObject) -> None:
    """Dimensions [start, stop) become one; start and stop are read as a Python slice's."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.ALL,), S.shapes(min_side=0))
    ndim = x.ndim
    start = data.draw(st.integers(-ndim, ndim), label="start")
    stop = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim)), label="stop")
    lo, hi, _ = slice(start, stop).indices(ndim)
    assume(lo <= hi)
    show_call(f"lax.collapse(x, {start}, {stop})", x=x)
    want = x.reshape(x.shape[:lo] + (math.prod(x.shape[lo:hi]),) + x.shape[hi:])
    assert_rearranged(impl.lax.collapse(x, start, stop), want)


def along(axis: int, index: Any) -> tuple:
    """A NumPy index that applies `index` to `axis` and takes everything elsewhere."""
    return (slice(None),) * axis + (index,)


@given(data=st.data())
def test_slice_in_dim_and_index_in_dim(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.ALL,), S.shapes(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = x.shape[axis]
    start = data.draw(st.one_of(st.none(), st.integers(-n, n)), label="start")
    limit = data.draw(st.one_of(st.none(), st.integers(-n, n)), label="limit")
    stride = data.draw(st.integers(1, 3), label="stride")
    lo, hi, _ = slice(start, limit).indices(n)
    assume(lo <= hi)
    show_call(f"lax.slice_in_dim(x, {start}, {limit}, {stride}, {axis})", x=x)
    got = impl.lax.slice_in_dim(x, start, limit, stride, axis)
    assert_rearranged(got, x[along(axis % x.ndim, slice(start, limit, stride))])

    index = data.draw(st.integers(-n, n - 1), label="index")
    keepdims = data.draw(st.sampled_from([None, True, False]), label="keepdims")  # None: the default, True
    if keepdims is None:
        show_call(f"lax.index_in_dim(x, {index}, {axis})", x=x)
        got = impl.lax.index_in_dim(x, index, axis)
    else:
        show_call(f"lax.index_in_dim(x, {index}, {axis}, keepdims={keepdims})", x=x)
        got = impl.lax.index_in_dim(x, index, axis, keepdims)
    picked = x[along(axis % x.ndim, slice(index % n, index % n + 1))]
    assert_rearranged(got, picked if keepdims is not False else np.squeeze(picked, axis))


def clamped_start(start: int, size: int, n: int) -> int:
    """Where a dynamic slice of `size` starting at `start` begins: negative starts count from the end
    (once), then the start is clamped so that the slice fits."""
    start = start + n if start < 0 else start
    return min(max(start, 0), n - size)


def start_index(data: st.DataObject, n: int) -> Any:
    """A start index, maybe out of range, as a Python int or an int32 array."""
    start = data.draw(st.integers(-2 * n - 2, n + 2), label="start")  # below -n: still negative once wrapped
    return np.int32(start) if data.draw(st.booleans(), label="as an array") else start


@given(data=st.data())
def test_dynamic_slice_in_dim_and_dynamic_index_in_dim(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.ALL,), S.shapes(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n, ax = x.shape[axis], axis % x.ndim
    start = start_index(data, n)
    size = data.draw(st.integers(0, n), label="size")
    show_call(f"lax.dynamic_slice_in_dim(x, {start!r}, {size}, {axis})", x=x)
    begin = clamped_start(int(start), size, n)
    assert_rearranged(impl.lax.dynamic_slice_in_dim(x, start, size, axis), x[along(ax, slice(begin, begin + size))])

    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"lax.dynamic_index_in_dim(x, {start!r}, {axis}, keepdims={keepdims})", x=x)
    begin = clamped_start(int(start), 1, n)
    picked = x[along(ax, slice(begin, begin + 1))]
    got = impl.lax.dynamic_index_in_dim(x, start, axis, keepdims)
    assert_rearranged(got, picked if keepdims else np.squeeze(picked, ax))


@given(data=st.data())
def test_dynamic_update_slice_in_dim_and_dynamic_update_index_in_dim(
    impl: Impl, flags, data: st.DataObject
) -> None:
    """An update of dynamic_update_index_in_dim may lack the axis it is written along."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.ALL,), S.shapes(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n, ax = x.shape[axis], axis % x.ndim
    start = start_index(data, n)
    size = data.draw(st.integers(0, n), label="size")
    update_shape = x.shape[:ax] + (size,) + x.shape[ax + 1 :]
    update = data.draw(S.arrays(x.dtype, update_shape), label="update")
    show_call(f"lax.dynamic_update_slice_in_dim(x, update, {start!r}, {axis})", x=x, update=update)
    begin = clamped_start(int(start), size, n)
    want = x.copy()
    want[along(ax, slice(begin, begin + size))] = update
    assert_rearranged(impl.lax.dynamic_update_slice_in_dim(x, update, start, axis), want)

    keep_axis = data.draw(st.booleans(), label="update keeps the axis")
    row = data.draw(S.arrays(x.dtype, x.shape[:ax] + (1,) * keep_axis + x.shape[ax + 1 :]), label="row")
    show_call(f"lax.dynamic_update_index_in_dim(x, row, {start!r}, {axis})", x=x, row=row)
    begin = clamped_start(int(start), 1, n)
    want = x.copy()
    want[along(ax, slice(begin, begin + 1))] = row if keep_axis else np.expand_dims(row, ax)
    assert_rearranged(impl.lax.dynamic_update_index_in_dim(x, row, start, axis), want)


# --- errors: JAX's exception types ---------------------------------------------------------------------

BAD_CALLS = {
    "floor of an integer": (TypeError, lambda lax, x: lax.floor(np.ones(3, np.int32))),
    "erf of a complex": (TypeError, lambda lax, x: lax.erf(np.ones(3, np.complex64))),
    "zeta of integers": (TypeError, lambda lax, x: lax.zeta(np.int32(2), np.int32(1))),
    "polygamma of mixed dtypes": (TypeError, lambda lax, x: lax.polygamma(np.float16(1), x)),
    "bessel_i1e of a complex": (TypeError, lambda lax, x: lax.bessel_i1e(np.ones(3, np.complex64))),
    "clamp bounds of another shape": (TypeError, lambda lax, x: lax.clamp(np.zeros(2, np.float32), x, np.float32(1))),
    "clamp of mixed dtypes": (TypeError, lambda lax, x: lax.clamp(np.int32(0), x, np.float32(1))),
    "reduce_or of floats": (TypeError, lambda lax, x: lax.reduce_or(x, (0,))),
    "cumprod axis out of range": (ValueError, lambda lax, x: lax.cumprod(x, axis=2)),
    "cummax of bools": (TypeError, lambda lax, x: lax.cummax(np.ones(3, bool))),
    "sort of unequal shapes": (TypeError, lambda lax, x: lax.sort((x, x.T))),
    "sort one array by two keys": (ValueError, lambda lax, x: lax.sort(x, num_keys=2)),
    "top_k with k too large": (ValueError, lambda lax, x: lax.top_k(x, 4)),
    "top_k with negative k": (ValueError, lambda lax, x: lax.top_k(x, -1)),
    "full with an array fill": (TypeError, lambda lax, x: lax.full((2,), np.ones(2))),
    "index_in_dim out of range": (IndexError, lambda lax, x: lax.index_in_dim(x, 3, 1)),
    "collapse with start after stop": (ValueError, lambda lax, x: lax.collapse(x, 2, 1)),
    "negative index where negatives are not allowed": (
        ValueError,
        lambda lax, x: lax.dynamic_slice_in_dim(x, -1, 1, 1, allow_negative_indices=False),
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_arguments_raise_jaxs_error_type(impl: Impl, case: str) -> None:
    error, call = BAD_CALLS[case]
    x = np.ones((2, 3), np.float32)
    with pytest.raises(error):
        call(impl.lax, x)


# --- the Fourier transform ----------------------------------------------------------------------------


@given(data=st.data())
def test_lax_fft_transforms_the_minor_axes(impl: Impl, flags, data: st.DataObject) -> None:
    """lax.fft (by FftType or by name) and fft_p transform the last len(fft_lengths) axes, the
    leading ones a batch; the input is cast to the type the transform takes."""
    x64 = draw_x64(data, flags)
    kind = data.draw(st.sampled_from(["FFT", "IFFT", "RFFT", "IRFFT"]), label="fft_type")
    shape = data.draw(S.shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), label="shape")
    k = data.draw(st.integers(1, len(shape)), label="number of axes")
    lengths = shape[len(shape) - k:]
    axes = tuple(range(len(shape) - k, len(shape)))
    dt = data.draw(S.dtypes(S.INTEGER + (np.dtype("float32"), np.dtype("float64"))), label="dtype")
    x = data.draw(S.arrays(dt, shape, Domain(-3, 3)), label="x")
    if kind == "IRFFT":  # from a half spectrum of the last length
        lengths = lengths[:-1] + (2 * shape[-1] - 1,)
        x = x.astype(np.complex128 if dr.canonicalize(dt, x64).itemsize == 8 else np.complex64)
    by_name = data.draw(st.booleans(), label="by name")
    show_call(f"lax.fft(x, {kind!r} if by_name else lax.FftType.{kind}, {lengths})", x=x, by_name=by_name)
    got = impl.lax.fft(x, kind.lower() if by_name else getattr(impl.lax.FftType, kind), lengths)
    wide_x = x.astype(np.complex128) if x.dtype.kind == "c" else x.astype(np.float64)
    want = {"FFT": lambda: np.fft.fftn(wide_x, axes=axes), "IFFT": lambda: np.fft.ifftn(wide_x, axes=axes),
            "RFFT": lambda: np.fft.rfftn(wide_x, axes=axes),
            "IRFFT": lambda: np.fft.irfftn(wide_x, s=lengths, axes=axes)}[kind]()  # fmt: skip
    canonical = dr.canonicalize(dt if kind != "IRFFT" else x.dtype, x64)
    wide_type = canonical.itemsize == 8 and canonical.kind != "c" or canonical == np.complex128
    want_dtype = np.dtype(("float64" if wide_type else "float32") if kind == "IRFFT" else
                          ("complex128" if wide_type else "complex64"))  # fmt: skip
    assert_dtype(got, want_dtype, weak=False)
    scale = max(1.0, float(np.max(np.abs(want))))
    assert_values(got, want, want_dtype, atol=(1e-12 if wide_type else 2e-6) * scale)
    if kind == "FFT":  # the primitive itself, bound on the complex input
        z = x.astype(want_dtype)
        bound = impl.lax.fft_p.bind(impl.numpy.asarray(z), fft_type=impl.lax.FftType.FFT, fft_lengths=lengths)
        assert_values(bound, want, want_dtype, atol=(1e-12 if wide_type else 2e-6) * scale)


# --- reduce_precision ---------------------------------------------------------------------------------
# XLA rounds the mantissa first, to nearest, ties to even, at the value's own exponent; then a value
# past the format's largest is a signed infinity, and one below its smallest normal value a signed
# zero (no subnormals). The oracle does the same with frexp, exactly, in float64.
FORMATS = [(8, 7), (5, 10), (5, 2), (4, 3), (3, 4), (2, 1)]


def _reduce_precision(x: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    mantissa, exponent = np.frexp(x.astype(np.float64))  # |mantissa| in [0.5, 1)
    scale = 2.0 ** (mantissa_bits + 1)
    rounded = np.ldexp(np.round(mantissa * scale) / scale, exponent)  # np.round: ties to even
    bias = 2 ** (exponent_bits - 1) - 1
    tiny, top = 2.0 ** (1 - bias), (2 - 2.0**-mantissa_bits) * 2.0**bias
    out = np.where(np.abs(rounded) > top, np.copysign(np.inf, x), rounded)
    return np.where(np.abs(rounded) < tiny, np.copysign(0.0, x), out)


@given(data=st.data())
def test_reduce_precision_rounds_the_mantissa_then_bounds_the_exponent(impl: Impl, flags,
                                                                       data: st.DataObject) -> None:  # fmt: skip
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes((np.dtype("float32"), np.dtype("float64"))), label="dtype")
    want_dtype = dr.canonicalize(dt, x64)
    # Formats with fewer exponent bits than the input's (with as many, XLA keeps its subnormals).
    narrower = [f for f in FORMATS if f[0] < (8 if want_dtype == np.float32 else 11)]
    e, m = data.draw(st.sampled_from(narrower), label="exponent and mantissa bits")
    x = data.draw(S.arrays(dt, S.shapes(min_dims=1), Domain(-1e4, 1e4)), label="x")
    # The edges a draw rarely hits: around the smallest normal value, the largest, and ties.
    bias, ulp = 2 ** (e - 1) - 1, 2.0**-m
    tiny, top = 2.0 ** (1 - bias), (2 - ulp) * 2.0**bias
    edges = [tiny, tiny * 0.75, tiny / 2, -tiny * (1 - ulp / 4), -tiny * (1 - ulp / 2), -tiny * (1 - ulp / 3),
             top, -top * (1 + ulp / 8), top * (1 + ulp / 2), 1 + ulp / 2, 1 + 3 * ulp / 2, -(1 + ulp / 2)]
    x = np.concatenate([x.ravel(), np.array(edges).astype(dt)])
    show_call(f"lax.reduce_precision(x, {e}, {m})", x=x)
    got = impl.lax.reduce_precision(x, e, m)
    want = _reduce_precision(x.astype(want_dtype), e, m)
    assert_dtype(got, want_dtype, weak=False)
    np.testing.assert_array_equal(np.asarray(got), want.astype(want_dtype))
    assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want))


def test_reduce_precision_errors_are_jaxs(impl: Impl) -> None:
    lax = impl.lax
    with pytest.raises(TypeError):
        lax.reduce_precision(np.ones(2, np.int32), 5, 10)
    with pytest.raises(ValueError, match="exponent_bits must be positive"):
        lax.reduce_precision(np.ones(2, np.float32), 0, 10)
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative"):
        lax.reduce_precision(np.ones(2, np.float32), 5, -1)
    # A weakly typed input stays weak, as for every elementwise operation.
    assert_dtype(lax.reduce_precision(2.0, 5, 2), np.dtype("float32"), weak=True)
    # The primitive itself: 1.5 has no place with no mantissa bits, and its tie goes to the even 2.
    bound = lax.reduce_precision_p.bind(impl.numpy.asarray(np.float32(1.5)), exponent_bits=8, mantissa_bits=0)
    assert float(bound) == 2.0
