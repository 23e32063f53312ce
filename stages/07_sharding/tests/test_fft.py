"""The fft primitive and didax.numpy.fft against NumPy's transforms, and their errors as JAX raises
them. float32 transforms are compared with a tolerance scaled by the largest value: a small bin
carries the rounding error of the large ones."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4, 6)).astype(np.float32)
Z = (RNG.normal(size=(3, 4, 6)) + 1j * RNG.normal(size=(3, 4, 6))).astype(np.complex64)


def close(got, want, dtype):
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert got.shape == want.shape
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * scale)


@pytest.mark.parametrize("call", [
    "fft(Z)", "fft(X, n=5, axis=0)", "ifft(Z, norm='ortho')", "rfft(X)", "rfft(X, n=9, axis=1)",
    "irfft(Z)", "irfft(Z, n=7, axis=1, norm='forward')", "fft2(X)", "ifft2(Z, s=(5, 2))",
    "rfft2(X, s=(3, 5), norm='forward')", "irfft2(Z, axes=(0, 2))", "fftn(X)", "ifftn(Z, s=(2, 3), axes=(2, 0))",
    "rfftn(X, axes=(2, 0))", "irfftn(Z)", "fftn(X.reshape(3, 2, 2, 6))", "irfftn(Z.reshape(3, 2, 2, 6))",
    "rfftn(X.reshape(3, 2, 2, 6))", "hfft(Z)", "ihfft(X, n=5)", "fftshift(X, axes=1)", "ifftshift(X)",
])
def test_numpy_fft_functions_match_numpy(call: str):
    got = eval("jnp.fft." + call)
    want = eval("np.fft." + call)
    # NumPy 2 keeps single precision; so does JAX.
    close(got, want, np.complex64 if want.dtype.kind == "c" else np.float32)


def test_empty_transforms_are_empty_or_zeros():
    # irfft of one bin is 0 points (as in JAX); an empty signal's spectrum is a sum of no terms.
    assert jnp.fft.irfft(np.ones(1)).shape == (0,)
    assert jnp.fft.fft(np.ones(0)).shape == (0,)
    np.testing.assert_array_equal(jnp.fft.rfft(np.ones((3, 0))), np.zeros((3, 1), np.complex64))


def test_frequencies_match_numpy():
    close(jnp.fft.fftfreq(7, 0.5), np.fft.fftfreq(7, 0.5), np.float32)
    close(jnp.fft.rfftfreq(8), np.fft.rfftfreq(8), np.float32)


def test_sizes_without_axes_transform_the_last_axes():
    close(jnp.fft.ifftn(Z, s=(2, 3)), np.fft.ifftn(Z, s=(2, 3), axes=(1, 2)), np.complex64)
    with didax.enable_x64():
        close(jnp.fft.fftfreq(6, dtype=np.float64), np.fft.fftfreq(6), np.float64)


def test_lax_fft_casts_and_transforms_the_minor_axes():
    # Integers become complex64 for FFT and float32 for RFFT; the batch axis is left alone.
    close(lax.fft(np.arange(8).reshape(2, 4), "fft", (4,)), np.fft.fft(np.arange(8.).reshape(2, 4)), np.complex64)
    close(lax.fft(np.arange(4), lax.FftType.RFFT, [4]), np.fft.rfft(np.arange(4.)), np.complex64)
    close(lax.fft(Z[..., :4], "IRFFT", (4, 6)), np.fft.irfftn(Z[..., :4], s=(4, 6), axes=(1, 2)), np.float32)
    assert lax.fft(X, "fft", ()).dtype == np.complex64  # no lengths: only the cast
    with didax.enable_x64():
        y = lax.fft(np.arange(4.0), "rfft", (4,))
        assert y.dtype == np.complex128 and not y.weak_type
        close(y, np.fft.rfft(np.arange(4.0)), np.complex128)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lax.fft(X, "xfft", (6,)), ValueError, "Unknown FFT type 'xfft'"),
    (lambda: lax.fft(X, 3, (6,)), TypeError, "Unknown FFT type value '3'"),
    (lambda: lax.fft(Z, "rfft", (6,)), ValueError, "only real valued inputs supported for rfft"),
    (lambda: lax.fft(X, "fft", (2, 3, 4, 6)), ValueError, "one to three axes"),
    (lambda: lax.fft(X[0, 0], "fft", (4, 6)), ValueError, "at least as many input dimensions"),
    (lambda: lax.fft(X, "fft", (5,)), ValueError, "minor dimensions must be equal to fft_lengths (5,)"),
    (lambda: lax.fft(Z, "irfft", (6,)), ValueError, "minor dimensions must be (4,)"),
    (lambda: lax.fft_p.bind(X, fft_type=lax.FftType.FFT, fft_lengths=(6,)), ValueError,
     "FFT input must be complex64 or complex128, got float32"),
    (lambda: jnp.fft.rfft(X.astype(np.float16)), ValueError, "RFFT input must be float32 or float64, got float16"),
    (lambda: jnp.fft.fft(X, n=0), ValueError, "Shape should be positive."),
    (lambda: jnp.fft.fft(X, norm="bad"), ValueError, 'Invalid norm value bad; should be "backward"'),
    (lambda: jnp.fft.fftn(X, axes=(0, 0)), ValueError, "does not support repeated axes"),
    (lambda: jnp.fft.fft(X, axis=(0, 1)), ValueError, "does not support multiple axes. Please use jax.numpy.fft.fftn"),
    (lambda: jnp.fft.fft2(X, axes=(0,)), ValueError, "only supports 2 axes"),
    (lambda: jnp.fft.fftn(X, s=(2, 3), axes=(0,)), ValueError, "Shape and axes have different lengths."),
    (lambda: jnp.fft.fft([1.0, 2.0]), TypeError, "fft"),
    (lambda: jnp.fft.fft(X, axis=3), ValueError, "axis 3 is out of bounds for array of dimension 3"),
])
def test_errors_are_jaxs(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)
