"""jax.lax's incomplete gamma functions against a high-precision reference written here: igamma, the
regularized lower incomplete gamma function P(a, x), igammac, Q(a, x) = 1 - P(a, x), igamma_grad_a,
dP/da, and random_gamma_grad, the derivative of a Gamma(a) sample x in a (its CDF held fixed:
-(dP/da) / (dP/dx)); their special values at the edges of the domain, and their dtype rules.

The reference computes in Python's decimal arithmetic at 60 digits: P by its power series (positive
terms) where x <= a + 1, else Q by Legendre's continued fraction evaluated from the bottom up, log
Gamma by its recurrence and Stirling's series with exact Bernoulli numbers, and dP/da by a central
difference with step 1e-20 a. Rounded to float64, it is within an ulp or two of the exact values,
independent of XLA's method (forward recurrences, derivatives by forward mode)."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call, to_numpy, wide
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]

NAMES = ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad")

# --- the reference ---------------------------------------------------------------------------------


@cache
def bernoulli_even(count: int) -> tuple[Fraction, ...]:
    """B_2, B_4, ..., B_(2 count), exactly (the Akiyama-Tanigawa algorithm)."""
    out: list[Fraction] = []
    row: list[Fraction] = []
    for m in range(2 * count + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        if m >= 2 and m % 2 == 0:
            out.append(row[0])
    return tuple(out)


def decimal_pi() -> Decimal:
    """pi to the context's precision (the recipe in the decimal module's documentation)."""
    getcontext().prec += 2
    lasts, t, s, n, na, d, da = Decimal(0), Decimal(3), Decimal(3), 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    getcontext().prec -= 2
    return +s


def ln_gamma(a: Decimal) -> Decimal:
    """log Gamma(a) for a > 0: the recurrence up to z >= 60, then 30 terms of Stirling's series (the
    first one left out is below 1e-70 there)."""
    z, shift = a, Decimal(1)
    while z < 60:
        shift *= z
        z += 1
    total = (z - Decimal("0.5")) * z.ln() - z + (2 * decimal_pi()).ln() / 2
    for k, b in enumerate(bernoulli_even(30), 1):
        total += Decimal(b.numerator) / Decimal(b.denominator) / (2 * k * (2 * k - 1) * z ** (2 * k - 1))
    return total - shift.ln()


def lower_p(a: Decimal, x: Decimal) -> Decimal:
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n)) over n >= 0."""
    eps = Decimal(10) ** -(getcontext().prec + 2)
    term = total = Decimal(1)
    n = 0
    while term >= eps * total:
        n += 1
        term = term * x / (a + n)
        total += term
    return (a * x.ln() - x - ln_gamma(a + 1)).exp() * total


def upper_q(a: Decimal, x: Decimal) -> Decimal:
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)) for
    x > a + 1, the fraction evaluated from the bottom up at depths 32, 64, ... until two agree to all
    but 10 digits."""

    def fraction(depth: int) -> Decimal:
        f = Decimal(0)
        for k in range(depth, 0, -1):
            f = k * (k - a) / (x + 2 * k + 1 - a - f)
        return 1 / (x + 1 - a - f)

    depth, old, new = 32, Decimal(0), fraction(32)
    while abs(new - old) > abs(new) * Decimal(10) ** (10 - getcontext().prec):
        depth *= 2
        old, new = new, fraction(depth)
    return (a * x.ln() - x - ln_gamma(a)).exp() * new


@cache
def reference(a: float, x: float) -> tuple[float, float, float, float]:
    """(P, Q, dP/da, random_gamma_grad) at a > 0 and x >= 0, finite, rounded to float64."""
    if x == 0:
        return 0.0, 1.0, 0.0, 0.0
    with localcontext() as ctx:
        ctx.prec = 60
        A, X = Decimal(a), Decimal(x)
        h = Decimal(10) ** -20 * A
        if x <= a + 1:  # neither P nor Q is then 1 minus something near 1
            p = lower_p(A, X)
            q = 1 - p
            dp = (lower_p(A + h, X) - lower_p(A - h, X)) / (2 * h)
        else:
            q = upper_q(A, X)
            p = 1 - q
            dp = -(upper_q(A + h, X) - upper_q(A - h, X)) / (2 * h)
        density = ((A - 1) * X.ln() - X - ln_gamma(A)).exp()
        return float(p), float(q), float(dp), float(-dp / density)


def references(a: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    values = [reference(float(u), float(v)) for u, v in zip(wide(a).ravel(), wide(x).ravel())]
    columns = np.array(values, np.float64).reshape(-1, 4)
    return {name: columns[:, i].reshape(a.shape) for i, name in enumerate(NAMES)}


def test_the_reference_matches_closed_forms() -> None:
    """P(1, x) = 1 - e^-x, Q(1/2, x) = erfc(sqrt x), Q(3, x) = e^-x (1 + x + x^2/2); for a = 1 the
    sample is -log(1 - u), so dx/da keeps P(a, x) = u: -(dP/da)/e^-x, with dP/da from E1's series."""
    for x in (0.3, 2.0, 30.0):
        p, q, _, _ = reference(1.0, x)
        assert p == pytest.approx(-math.expm1(-x), rel=1e-15) and q == pytest.approx(math.exp(-x), rel=1e-15)
        assert reference(0.5, x)[1] == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-15)
        assert reference(3.0, x)[1] == pytest.approx(math.exp(-x) * (1 + x + x * x / 2), rel=1e-15)
    # d/da Q(a, x) at a = 1 is E1(x) + e^-x (log x + gamma) (the derivative of the integral of
    # t^(a-1) e^-t from x on, integrated by parts, less Q psi(1); E1, the exponential integral, by its series).
    x, euler_gamma = 2.0, 0.5772156649015329
    e1 = -euler_gamma - math.log(x) - math.fsum((-x) ** k / (k * math.factorial(k)) for k in range(1, 60))
    dq = e1 + math.exp(-x) * (math.log(x) + euler_gamma)
    assert reference(1.0, x)[2] == pytest.approx(-dq, rel=1e-15)
    assert reference(1.0, x)[3] == pytest.approx(dq / math.exp(-x), rel=1e-15)


# --- values ----------------------------------------------------------------------------------------

SHAPES = S.shapes(max_dims=2, max_side=3)  # the reference takes milliseconds per element
SHAPE_PARAMETER = Domain(0.05, 30)
RATIO = Domain(0.1, 4)  # x / a: where samples of Gamma(a) lie, and far into both tails


def draw_a_and_x(data: st.DataObject, x64: bool) -> tuple[np.ndarray, np.ndarray]:
    """a in [0.05, 30]; x either anywhere in [0, 80] or a times a ratio in [0.1, 4]."""
    dt = dr.canonicalize(data.draw(S.dtypes(S.FLOATING), label="dtype"), x64)
    shape = data.draw(SHAPES, label="shape")
    a = data.draw(S.arrays(dt, shape, SHAPE_PARAMETER), label="a")
    if data.draw(st.booleans(), label="x near a"):
        x = (wide(a) * wide(data.draw(S.arrays(dt, shape, RATIO), label="ratio"))).astype(dt)
    else:
        x = data.draw(S.arrays(dt, shape, Domain(0, 80)), label="x")
    return a, x


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a"])
@given(data=st.data())
def test_matches_the_reference(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Within RTOL relative plus RTOL absolute: where Q or P is tiny beside 1, XLA's error (as the
    reference's 1 - P) is absolute. Float64 to 1e-12, which needs more than a float32 method."""
    x64 = draw_x64(data, flags)
    a, x = draw_a_and_x(data, x64)
    show_call(f"lax.{name}(a, x)", a=a, x=x)
    got = getattr(impl.lax, name)(a, x)
    assert_dtype(got, a.dtype, weak=dr.weak_result("elementwise", a, x, x64=True))
    assert_values(got, references(a, x)[name], a.dtype, atol=RTOL[a.dtype.name])


@given(data=st.data())
def test_random_gamma_grad_matches_the_reference(impl: Impl, flags, data: st.DataObject) -> None:
    """x at a times [0.1, 4]. (Where x^a e^-x / Gamma(a) is below the dtype's smallest normal number,
    far in a tail, XLA keeps only the first term of its sums: this test stays out of there.) In JAX
    random_gamma_grad is a function of arrays, not a primitive: Python scalars have no .shape there."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.FLOATING), label="dtype"), x64)
    shape = data.draw(SHAPES, label="shape")
    a = data.draw(S.arrays(dt, shape, SHAPE_PARAMETER), label="a")
    x = (wide(a) * wide(data.draw(S.arrays(dt, shape, RATIO), label="ratio"))).astype(dt)
    show_call("lax.random_gamma_grad(a, x)", a=a, x=x)
    got = impl.lax.random_gamma_grad(a, x)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", a, x, x64=True))
    assert_values(got, references(a, x)["random_gamma_grad"], dt, atol=RTOL[dt.name])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_grid_from_tiny_to_large_shape_parameters(impl: Impl, x64: bool, dtype: str) -> None:
    """a from 1e-3 to 100, x from 1e-3 to 500 around it; the same tolerance. (random_gamma_grad
    where the prefactor stays above 1e-30: see above.)"""
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a, x = (g.astype(dt) for g in np.meshgrid(np.geomspace(1e-3, 100, 7), np.geomspace(1e-3, 500, 9)))
    want = references(a, x)
    lp = wide(a) * np.log(wide(x)) - wide(x) - np.vectorize(math.lgamma)(wide(a))
    for name in NAMES:
        got = to_numpy(getattr(impl.lax, name)(a, x))
        keep = lp > -69 if name == "random_gamma_grad" else np.ones(a.shape, bool)
        assert_values(got[keep], want[name][keep], dt, atol=RTOL[dt.name])


# --- edges -----------------------------------------------------------------------------------------

INF, NAN = math.inf, math.nan
EDGE_A = [0.0, 0.0, 0.0, 0.0, 1.0, INF, INF, INF, -1.0, 1.0, NAN, 1.0, 2.0, -0.0]
EDGE_X = [0.0, 0.5, 2.0, INF, 0.0, 0.0, 1.0, INF, 1.0, -1.0, 1.0, INF, NAN, 3.0]
# a = 0 is outside P's domain but XLA's sums give 1 for x >= 1 and nan below (0 / 0).
EDGES = {
    "igamma": [NAN, NAN, 1, 1, 0, 0, NAN, 1, NAN, NAN, NAN, 1, NAN, 1],
    "igammac": [NAN, 0, 0, 0, 1, 1, NAN, 0, NAN, NAN, NAN, 0, NAN, 0],
    "igamma_grad_a": [NAN, NAN, NAN, NAN, 0, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
    "random_gamma_grad": [NAN, NAN, NAN, NAN, 0, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_special_values_at_the_edges_of_the_domain(impl: Impl, x64: bool, name: str, dtype: str) -> None:
    """nan outside the domain (a < 0, x < 0, a = x = 0, nan; for the derivatives a <= 0, x = inf,
    a = inf); P = 0 and Q = 1 at x = 0, P = 1 and Q = 0 at x = inf, Q = 0 at a = 0; the derivatives 0
    at x = 0."""
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a, x = np.array(EDGE_A, dt), np.array(EDGE_X, dt)
    got = getattr(impl.lax, name)(a, x)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", dt))
    np.testing.assert_array_equal(to_numpy(got).astype(np.float64), EDGES[name])


# --- types -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a"])
def test_python_scalars_give_a_weak_result(impl: Impl, name: str) -> None:
    got = getattr(impl.lax, name)(1.5, 2.0)
    assert_dtype(got, np.dtype(np.float32), weak=True)
    assert_values(got, np.float64(references(np.array(1.5), np.array(2.0))[name]), np.dtype(np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_operands_must_be_floats_of_one_dtype(impl: Impl, x64: bool, name: str) -> None:
    fn = getattr(impl.lax, name)
    with pytest.raises(TypeError):
        fn(np.array([1, 2], np.int32), np.array([1, 2], np.int32))
    if x64:
        with pytest.raises(TypeError):
            fn(np.array([1.0], np.float32), np.array([2.0], np.float64))
