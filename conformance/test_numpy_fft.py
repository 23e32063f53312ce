"""jax.numpy.fft against numpy.fft: every transform on drawn shapes, axes, sizes (cropping and
zero-padding) and normalizations, in both precisions; the frequency and shift helpers; and the
errors JAX raises. Transforms sum many terms, so values are compared with a tolerance scaled by the
largest one (a small bin carries the rounding error of the large ones)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import assert_dtype, assert_values, draw_x64, show_call, wide
from conformance.impl import Impl

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_AXES = ["fft2", "ifft2", "rfft2", "irfft2"]
ANY_AXES = ["fftn", "ifftn", "rfftn", "irfftn"]
# The transforms that take real input (RFFT refuses complex, and 16-bit floats), and those that
# give real output (from a half spectrum).
REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn"}
REAL_OUT = {"irfft", "hfft", "irfft2", "irfftn"}
NORMS = [None, "backward", "ortho", "forward"]


def result_dtype(name: str, dt: np.dtype, x64: bool) -> np.dtype:
    """complex128 from 64-bit inputs (with x64), complex64 from the rest; the real part's type for
    the transforms that end real."""
    canonical = dr.canonicalize(dt, x64)
    wide_input = canonical == np.complex128 or (canonical.kind != "c" and canonical.itemsize == 8)
    complex_type = np.dtype(np.complex128 if wide_input else np.complex64)
    return np.dtype(np.float64 if complex_type == np.complex128 else np.float32) if name in REAL_OUT else complex_type


@st.composite
def transform_calls(draw: st.DrawFn) -> tuple[str, dict]:
    """A function of numpy.fft and its keyword arguments, for an input of a drawn shape."""
    name = draw(st.sampled_from(ONE_AXIS + TWO_AXES + ANY_AXES), label="function")
    ndim = draw(st.integers(2 if name in TWO_AXES else 1, 4 if name in ANY_AXES else 3), label="ndim")
    shape = draw(st.tuples(*[st.integers(1, 5)] * ndim), label="shape")
    kwargs: dict = {"norm": draw(st.sampled_from(NORMS), label="norm")}
    if name in ONE_AXIS:
        axes = [draw(st.integers(-ndim, ndim - 1), label="axis")]
        kwargs["axis"] = axes[0]
        sizes = draw(st.none() | st.integers(1, 6).map(lambda n: [n]), label="n")
        if sizes:
            kwargs["n"] = sizes[0]
    else:
        count = 2 if name in TWO_AXES else draw(st.integers(1, ndim), label="number of axes")
        axes = draw(st.permutations(range(ndim)), label="axes")[:count]
        if name in TWO_AXES or draw(st.booleans(), label="axes given"):
            kwargs["axes"] = tuple(axes)
        else:
            axes = list(range(ndim - count, ndim)) if draw(st.booleans(), label="sizes given") else list(range(ndim))
        sizes = draw(st.none() | st.lists(st.integers(1, 6), min_size=len(axes), max_size=len(axes)), label="s")
        if sizes:
            kwargs["s"] = tuple(sizes)
    # A half spectrum of one bin is 0 real points by default, which NumPy refuses.
    assume(name not in REAL_OUT or sizes or shape[axes[-1]] >= 2)
    return name, {"shape": shape, "axes": tuple(axes), "kwargs": kwargs}


@given(data=st.data(), call=transform_calls())
def test_transforms_match_numpy(impl: Impl, flags, data: st.DataObject, call: tuple[str, dict]) -> None:
    name, spec = call
    x64 = draw_x64(data, flags)
    kinds = S.INTEGER + (np.dtype("float32"), np.dtype("float64")) if name in REAL_IN else S.NUMBER
    dt = data.draw(S.dtypes(kinds), label="dtype")
    x = data.draw(S.arrays(dt, spec["shape"], S.Domain(-3, 3)), label="x")
    kwargs = spec["kwargs"]
    show_call(f"jnp.fft.{name}(x, **kwargs)", x=x, kwargs=kwargs)
    got = getattr(impl.numpy.fft, name)(x, **kwargs)
    oracle = dict(kwargs)
    if name in ANY_AXES and "axes" not in oracle and "s" in oracle:
        oracle["axes"] = spec["axes"]  # NumPy 2 deprecates s without axes; JAX takes the last axes
    want = getattr(np.fft, name)(wide(x), **oracle)
    want_dtype = result_dtype(name, dt, x64)
    assert_dtype(got, want_dtype, weak=False)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    assert_values(got, want, want_dtype, atol=(1e-12 if want_dtype.itemsize == 16 or want_dtype == np.float64
                                               else 2e-6) * scale)  # fmt: skip


RNG = np.random.default_rng(11)
Z = (RNG.normal(size=(2, 3, 2, 4)) + 1j * RNG.normal(size=(2, 3, 2, 4))).astype(np.complex64)
FIXED = ["irfft(Z)", "hfft(Z, axis=1)", "irfftn(Z)", "ifftn(Z, s=(2, 2, 3, 5), axes=(0, 1, 2, 3))",
         "rfftn(Z.real, axes=(3, 0, 1, 2))", "fftn(Z.imag, s=(1, 4, 2, 3), axes=(1, 0, 3, 2), norm='ortho')"]


@pytest.mark.parametrize("call", FIXED)
def test_transforms_by_default_sizes_and_over_four_axes_match_numpy(impl: Impl, call: str) -> None:
    """What the drawn calls reach rarely: the default length of a half spectrum's inverse, and four
    axes, which XLA transforms in two blocks (the real block innermost)."""
    show_call(f"jnp.fft.{call}", Z=Z)
    got = eval(f"impl.numpy.fft.{call}", {"impl": impl, "Z": Z})
    want = eval(f"np.fft.{call}", {"np": np, "Z": Z.astype(np.complex128)})
    want_dtype = np.dtype(np.float32 if want.dtype.kind == "f" else np.complex64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol=2e-6 * float(np.max(np.abs(want))))


@given(data=st.data())
def test_frequencies_and_shifts_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n = data.draw(st.integers(1, 9), label="n")
    d = data.draw(st.sampled_from([1.0, 0.5, 3.0]), label="d")
    show_call(f"jnp.fft.fftfreq({n}, {d}); jnp.fft.rfftfreq({n}, {d})")
    for fn in ("fftfreq", "rfftfreq"):
        got = getattr(impl.numpy.fft, fn)(n, d)
        assert_dtype(got, dr.default_float(x64), weak=False)
        assert_values(got, getattr(np.fft, fn)(n, d), dr.default_float(x64))
    x = data.draw(S.arrays(np.dtype("int32"), S.shapes(min_dims=1), S.GRID), label="x")
    axes = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) | st.permutations(range(x.ndim)).map(tuple),
                     label="axes")  # fmt: skip
    show_call("jnp.fft.fftshift(x, axes); jnp.fft.ifftshift(x, axes)", x=x, axes=axes)
    for fn in ("fftshift", "ifftshift"):
        got = getattr(impl.numpy.fft, fn)(x, axes)
        assert_dtype(got, np.dtype("int32"), weak=False)
        assert_values(got, getattr(np.fft, fn)(x, axes), np.dtype("int32"))


X = np.ones((2, 4), np.float32)
ERRORS = {
    "n not positive": (lambda jnp: jnp.fft.fft(X, n=0), ValueError),
    "unknown norm": (lambda jnp: jnp.fft.fft(X, norm="bad"), ValueError),
    "repeated axes": (lambda jnp: jnp.fft.fftn(X, axes=(0, 0)), ValueError),
    "several axes to a 1-D transform": (lambda jnp: jnp.fft.fft(X, axis=(0, 1)), ValueError),
    "one axis to a 2-D transform": (lambda jnp: jnp.fft.fft2(X, axes=(0,)), ValueError),
    "sizes and axes of different lengths": (lambda jnp: jnp.fft.fftn(X, s=(2, 3), axes=(0,)), ValueError),
    "axis out of range": (lambda jnp: jnp.fft.fft(X, axis=2), ValueError),
    "rfft of complex values": (lambda jnp: jnp.fft.rfft(X.astype(np.complex64)), ValueError),
    "rfft of float16": (lambda jnp: jnp.fft.rfft(X.astype(np.float16)), ValueError),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_arguments_raise_jaxs_errors(impl: Impl, case: str) -> None:
    call, error = ERRORS[case]
    with pytest.raises(error):
        call(impl.numpy)
