"""conv_general_dilated against SciPy's correlate and NumPy: the plain convolution, then each
parameter by what it means (pads and holes made by hand, groups as separate convolutions, layouts
as transposes), the wrappers, jnp.convolve and correlate, and the errors."""

import numpy as np
import pytest
from scipy import signal

import didax.numpy as jnp
from didax import lax

rng = np.random.default_rng(0)
X = rng.normal(size=(2, 4, 7, 6)).astype(np.float32)  # N, C, H, W
W = rng.normal(size=(3, 4, 3, 2)).astype(np.float32)  # O, I, H, W


def scipy_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Unit strides, no padding: each output channel sums SciPy's correlations over the inputs."""
    return np.array([[sum(signal.correlate(x[n, c], w[o, c], mode="valid") for c in range(x.shape[1]))
                      for o in range(w.shape[0])] for n in range(x.shape[0])])  # fmt: skip


def holes(a: np.ndarray, dilation: tuple[int, ...]) -> np.ndarray:
    """`a` with dilation - 1 zeros between neighbours along its last axes."""
    shape = a.shape[:2] + tuple((n - 1) * d + 1 for n, d in zip(a.shape[2:], dilation))
    out = np.zeros(shape, a.dtype)
    out[(slice(None), slice(None), *(slice(None, None, d) for d in dilation))] = a
    return out


def test_the_plain_convolution_is_a_sum_of_correlations():
    got = lax.conv_general_dilated(X, W, (1, 1), "VALID")
    np.testing.assert_allclose(np.asarray(got), scipy_conv(X, W), rtol=1e-5, atol=1e-5)
    assert got.dtype == np.float32 and got.shape == (2, 3, 5, 5)


def test_strides_pads_and_dilations_mean_what_they_say():
    got = lax.conv_general_dilated(X, W, (2, 3), [(1, 2), (-1, 3)], lhs_dilation=(2, 1), rhs_dilation=(1, 2))
    spread = np.pad(holes(X, (2, 1)), [(0, 0), (0, 0), (1, 2), (0, 3)])[:, :, :, 1:]  # -1: cut one off
    want = scipy_conv(spread, holes(W, (1, 2)))[:, :, ::2, ::3]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_same_padding_keeps_the_size_divided_by_the_stride():
    assert lax.conv_general_dilated(X, W, (1, 1), "SAME").shape == (2, 3, 7, 6)
    assert lax.conv_general_dilated(X, W, (2, 4), "SAME").shape == (2, 3, 4, 2)
    assert lax.padtype_to_pads((7, 6), (3, 2), (1, 1), "SAME") == [(1, 1), (0, 1)]
    assert lax.padtype_to_pads((7, 6), (3, 2), (1, 1), "SAME_LOWER") == [(1, 1), (1, 0)]


def test_feature_groups_are_separate_convolutions():
    w = rng.normal(size=(4, 2, 3, 2)).astype(np.float32)  # 2 groups of 2 features, 2 kernels each
    got = np.asarray(lax.conv_general_dilated(X, w, (1, 1), "VALID", feature_group_count=2))
    want = np.concatenate([scipy_conv(X[:, :2], w[:2]), scipy_conv(X[:, 2:], w[2:])], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_batch_groups_give_each_block_of_the_batch_its_kernels():
    x = rng.normal(size=(4, 4, 5, 5)).astype(np.float32)
    got = np.asarray(lax.conv_general_dilated(x, W[:2], (1, 1), "VALID", batch_group_count=2))
    want = np.concatenate([scipy_conv(x[:2], W[:1]), scipy_conv(x[2:], W[1:2])], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_channels_last_is_the_same_convolution_transposed():
    numbers = ("NHWC", "HWIO", "NHWC")
    got = lax.conv_general_dilated(X.transpose(0, 2, 3, 1), W.transpose(2, 3, 1, 0), (1, 1), "VALID",
                                   dimension_numbers=numbers)  # fmt: skip
    np.testing.assert_allclose(np.asarray(got), scipy_conv(X, W).transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
    assert lax.conv_dimension_numbers(X.shape, W.shape, numbers) == lax.ConvDimensionNumbers(
        (0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.complex64, np.float16])
def test_other_dtypes(dtype):
    x = (rng.normal(size=(1, 2, 6)) * 3).astype(dtype)
    w = (rng.normal(size=(2, 2, 2)) * 3).astype(dtype)
    wide = np.complex128 if dtype == np.complex64 else np.int64 if dtype == np.int8 else np.float64
    got = np.asarray(lax.conv_general_dilated(x, w, (1,), "VALID"))
    want = scipy_conv(x.astype(wide), w.astype(wide))
    assert got.dtype == dtype
    if dtype == np.int8:
        np.testing.assert_array_equal(got, want.astype(np.int8))  # wrapped around, as XLA's int8 sums wrap
    elif dtype == np.bool_:
        np.testing.assert_array_equal(got, want != 0)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == np.float16 else 1e-5, atol=1e-2)


def test_conv_transpose_spreads_the_input_by_its_strides():
    x, w = X.transpose(0, 2, 3, 1), W.transpose(2, 3, 1, 0)[:, :, :, :2]  # NHWC, HWIO
    got = lax.conv_transpose(x, w, (2, 2), "VALID")
    assert got.shape == (2, 7 * 2 + 1, 6 * 2, 2)  # Keras: n * s + max(k - s, 0)
    spread = np.pad(holes(X, (2, 2)), [(0, 0), (0, 0), (2, 2), (1, 1)])
    want = scipy_conv(spread, W[:2]).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_jnp_convolve_and_correlate_either_one_longer(name, mode):
    a, v = rng.normal(size=5), rng.normal(size=3) + 1j * rng.normal(size=3)
    for x, y in [(a, v), (v, a)]:
        got = getattr(jnp, name)(x.astype(np.complex64), y.astype(np.complex64), mode)
        np.testing.assert_allclose(np.asarray(got), getattr(np, name)(x, y, mode), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lax.conv_general_dilated(X, W[:, :3], (1, 1), "VALID"), ValueError, "must equal the rhs input feature"),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID"), ValueError, "window and window_strides"),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "FULL"), RuntimeError, "Unrecognized padding type"),
    (lambda: lax.conv_general_dilated(X, W.astype(np.float16), (1, 1), "VALID"), TypeError, "same dtypes"),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), [(-8, 0), (0, 0)]), ValueError, "Negative padding"),
    (lambda: lax.conv_general_dilated(X, W, (0, 1), "VALID"), ValueError, "positive integers"),
])  # fmt: skip
def test_misuse_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
