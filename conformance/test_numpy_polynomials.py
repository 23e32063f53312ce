"""jax.numpy's polynomials (1-D arrays of coefficients, highest power first) against NumPy's:
poly from roots, polyadd, polysub, polymul, polydiv, polyder and polyint; values and dtypes (sums
keep the promoted type, the rest are inexact), in both x64 modes. Coefficients are small multiples
of 0.5 and divisors powers of two, so every result is exact and compared as such."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import assert_dtype, assert_values, draw_x64, show_call, wide
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

COEFFICIENT_DTYPES = tuple(np.dtype(n) for n in ("int32", "int64", "float32", "float64", "complex64"))
HALVES = Domain(-4, 4, grid=0.5)


def coefficients(data: st.DataObject, label: str, min_size: int = 1) -> np.ndarray:
    dt = data.draw(S.dtypes(COEFFICIENT_DTYPES), label=f"{label}_dtype")
    n = data.draw(st.integers(min_size, 5), label=f"len({label})")
    return data.draw(S.arrays(dt, (n,), HALVES), label=label)


def inexact(*arrays: np.ndarray, x64: bool) -> np.ndarray:
    return dr.inexact(dr.promote(*(a.dtype for a in arrays), x64=x64), x64)


@pytest.mark.parametrize("name", ["polyadd", "polysub"])
@given(data=st.data())
def test_polyadd_and_polysub_match_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    a, b = coefficients(data, "a"), coefficients(data, "b")
    show_call(f"jnp.{name}(a, b)", a=a, b=b)
    got = getattr(impl.numpy, name)(a, b)
    want_dtype = dr.promote(a.dtype, b.dtype, x64=x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, getattr(np, name)(wide(a), wide(b)), want_dtype)


@given(data=st.data())
def test_polymul_is_the_full_convolution(impl: Impl, flags, data: st.DataObject) -> None:
    """Leading zeros are kept (NumPy's polymul drops them) unless trim_leading_zeros=True."""
    x64 = draw_x64(data, flags)
    a, b = coefficients(data, "a"), coefficients(data, "b")
    show_call("jnp.polymul(a, b)", a=a, b=b)
    got = impl.numpy.polymul(a, b)
    want_dtype = inexact(a, b, x64=x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, np.convolve(wide(a), wide(b)), want_dtype)


def test_polymul_can_trim_leading_zeros(impl: Impl) -> None:
    a, b = np.array([0.0, 0.0, 1.0, 2.0], np.float32), np.array([0.0, 3.0], np.float32)
    assert_values(impl.numpy.polymul(a, b, trim_leading_zeros=True), np.array([3.0, 6.0]), np.dtype("float32"))
    assert_values(impl.numpy.polymul(a, b), np.array([0.0, 0.0, 0.0, 3.0, 6.0]), np.dtype("float32"))


@given(data=st.data())
def test_polydiv_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """The quotient is NumPy's; the remainder keeps u's length (NumPy drops its leading zeros)."""
    x64 = draw_x64(data, flags)
    u, v = coefficients(data, "u"), coefficients(data, "v")
    v[0] = data.draw(st.sampled_from([1, -1, 2, -2, 4]), label="v[0]")  # exact division
    show_call("jnp.polydiv(u, v)", u=u, v=v)
    q, r = impl.numpy.polydiv(u, v)
    want_q, want_r = np.polydiv(wide(u), wide(v))
    want_dtype = inexact(u, v, x64=x64)
    assert_dtype(q, want_dtype, "quotient", weak=False)
    assert_dtype(r, want_dtype, "remainder", weak=False)
    assert_values(q, want_q, want_dtype)
    assert_values(r, np.concatenate([np.zeros(len(u) - len(want_r)), want_r]), want_dtype)


def test_polydiv_can_trim_the_remainder(impl: Impl) -> None:
    q, r = impl.numpy.polydiv(np.array([1.0, 3.0, 5.0], np.float32), np.array([1.0, 1.0], np.float32),
                              trim_leading_zeros=True)  # fmt: skip
    assert_values(q, np.array([1.0, 2.0]), np.dtype("float32"))
    assert_values(r, np.array([3.0]), np.dtype("float32"))


@given(data=st.data())
def test_polyder_and_polyint_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    p = coefficients(data, "p", min_size=2)
    m = data.draw(st.integers(0, len(p) - 1), label="m")
    want_dtype = inexact(p, x64=x64)
    show_call(f"jnp.polyder(p, {m}); jnp.polyint(p, {m})", p=p)
    got = impl.numpy.polyder(p, m)
    assert_dtype(got, want_dtype, "polyder", weak=False)
    assert_values(got, np.polyder(wide(p), m), want_dtype)
    got = impl.numpy.polyint(p, m)
    assert_dtype(got, want_dtype, "polyint", weak=False)
    assert_values(got, np.polyint(wide(p), m), want_dtype)
    k = data.draw(S.arrays(np.dtype("float32"), (m,), HALVES), label="k")
    show_call(f"jnp.polyint(p, {m}, k)", p=p, k=k)
    got = impl.numpy.polyint(p, m, k)
    assert_values(got, np.polyint(wide(p), m, wide(k)), dr.inexact(dr.promote(p.dtype, k.dtype, x64=x64), x64))


def test_polyder_and_polyint_refuse_negative_orders(impl: Impl) -> None:
    p = np.array([1.0, 2.0], np.float32)
    with pytest.raises(ValueError):
        impl.numpy.polyder(p, -1)
    with pytest.raises(ValueError):
        impl.numpy.polyint(p, -1)
    with pytest.raises(ValueError):  # one constant, or one per integration
        impl.numpy.polyint(p, 2, k=np.ones(3, np.float32))


@given(data=st.data())
def test_poly_matches_numpy_for_roots(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    roots = coefficients(data, "roots")
    show_call("jnp.poly(roots)", roots=roots)
    got = impl.numpy.poly(roots)
    want_dtype = inexact(roots, x64=x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, np.poly(wide(roots)), want_dtype)


def test_poly_of_a_scalar_and_of_no_roots(impl: Impl) -> None:
    """A scalar counts as one root (NumPy refuses it); no roots give the constant 1."""
    assert_values(impl.numpy.poly(2.0), np.array([1.0, -2.0]), np.dtype("float32"))
    got = impl.numpy.poly(np.zeros(0, np.float32))
    assert_dtype(got, np.dtype("float32"), weak=False)
    assert_values(got, np.array(1.0), np.dtype("float32"))
    with pytest.raises(ValueError):
        impl.numpy.poly(np.ones((2, 3), np.float32))
