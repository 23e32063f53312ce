"""Lowering of slicing, joining and padding (slice, dynamic_slice, dynamic_update_slice,
concatenate, pad, rev, squeeze), dot_general and the reductions, compiled by XLA and compared
with eager evaluation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_harness import check_compiled

import didax
import didax.numpy as jnp
from didax import lax

rng = np.random.default_rng(1)
X = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
I = jnp.asarray(rng.integers(-9, 9, size=(4, 5)).astype(np.int16))


def test_static_slices_with_strides():
    check_compiled(lambda x: (x[1:3], x[::2, 1::3], x[::-1], lax.slice(x, (0, 1), (4, 5), (3, 2)), x[2, 1:]), X)


@pytest.mark.parametrize("start", [-7, -1, 0, 2, 3, 9])
def test_dynamic_slice_clamps_like_eager(start):
    """XLA clamps start indices so the slice fits, as eager evaluation does; a negative start
    counts from the end first (lax wraps it before binding)."""
    s = jnp.asarray(start, jnp.int32)
    check_compiled(lambda x, s: (lax.dynamic_slice(x, (s, 1), (2, 3)), lax.dynamic_slice_in_dim(x, s, 2, 1),
                                 lax.dynamic_index_in_dim(x, s, 0, keepdims=False)), X, s)  # fmt: skip
    u = jnp.ones((2, 2), jnp.float32)
    check_compiled(lambda x, s: (lax.dynamic_update_slice(x, u, (s, s)), lax.dynamic_update_slice_in_dim(x, u, s, 1)),
                   X, s)  # fmt: skip


def test_dynamic_slice_start_indices_of_mixed_types():
    a, b = jnp.asarray(1, jnp.int8), jnp.asarray(2, jnp.uint32)
    check_compiled(lambda x, a, b: (lax.dynamic_slice(x, (a, b), (2, 2)),
                                    lax.dynamic_update_slice(x, x[:1, :2], (a, b))), X, a, b)  # fmt: skip


def test_concatenate_rev_squeeze():
    check_compiled(lambda x, i: (jnp.concatenate([x, x * 2, x[:, :1]], 1), jnp.concatenate([i, i]), jnp.flip(x),
                                 jnp.flip(i, 1), lax.rev(x, (0,)), jnp.squeeze(x[None, :, None], (0, 2)),
                                 jnp.stack([i, i], 1)), X, I)  # fmt: skip


@pytest.mark.parametrize("config", [[(1, 2, 0), (0, 0, 0)], [(-1, 2, 1), (2, -3, 2)], [(0, 0, 3), (-2, -2, 0)],
                                    [(-3, -4, 1), (0, 1, 0)]])  # fmt: skip
def test_pad_negative_and_interior(config):
    check_compiled(lambda x: lax.pad(x, jnp.float32(-7), config), X)
    check_compiled(lambda i: lax.pad(i, jnp.int16(3), config), I)


def test_jnp_pad_modes():
    check_compiled(lambda x: (jnp.pad(x, 2), jnp.pad(x, ((1, 0), (0, 2)), constant_values=5.0)), X)


def _dot(lhs, rhs, dims, preferred=None):
    return lambda a, b: lax.dot_general(a, b, dims, preferred_element_type=preferred)


MATMUL = (((1,), (0,)), ((), ()))
BATCHED = (((2,), (1,)), ((0,), (0,)))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.bool_, np.float16, np.complex64])
def test_dot_general_dtypes(dtype):
    a = jnp.asarray(rng.integers(0, 3, size=(2, 3, 4)).astype(dtype))
    b = jnp.asarray(rng.integers(0, 3, size=(2, 4, 5)).astype(dtype))
    check_compiled(_dot(a, b, BATCHED), a, b, rtol=1e-3)
    check_compiled(_dot(a, b, (((0, 2), (0, 1)), ((), ()))), a, b, rtol=1e-3)


def test_dot_general_preferred_element_type():
    a = jnp.asarray(rng.integers(-100, 100, size=(3, 6)).astype(np.int8))
    b = jnp.asarray(rng.integers(-100, 100, size=(6, 2)).astype(np.int8))
    check_compiled(_dot(a, b, MATMUL, np.int32), a, b)
    check_compiled(_dot(a, b, MATMUL, np.float32), a, b)
    h = a.astype(jnp.bfloat16)
    check_compiled(_dot(h, h.T, MATMUL, np.float32), h, h.T)


def test_dot_general_mixed_operand_types():
    """XLA's dot wants one operand type: the one of higher precision (int8 with uint32 is uint32)."""
    a = jnp.asarray(rng.integers(-5, 5, size=(3, 4)).astype(np.int8))
    b = jnp.asarray(rng.integers(0, 5, size=(4, 2)).astype(np.uint32))
    check_compiled(_dot(a, b, MATMUL), a, b)
    f = jnp.asarray(rng.normal(size=(4, 2)).astype(np.float32))
    check_compiled(_dot(a, f, MATMUL), a.astype(jnp.float16), f)


NAN = np.float32(np.nan)


@pytest.mark.parametrize("x", [
    np.array([[1.0, NAN, 3.0], [-np.inf, -np.inf, -np.inf]], np.float32),
    np.array([[0.0, -0.0, -0.0], [-0.0, -0.0, -0.0]], np.float32),
    np.array([[1.0, NAN, -3.0], [-np.inf, 2.5, -np.inf]], jnp.bfloat16),
    np.array([[1.0, 2.0, -3.0], [-np.inf, NAN, 0.0]], np.float16),
    np.array([[True, False, False], [False, False, False]]),
    np.array([[-128, 5, 127], [-128, -128, -128]], np.int8),
    np.array([[0, 255, 7], [3, 0, 0]], np.uint8),
    np.array([[0, 2**64 - 1, 7], [3, 0, 0]], np.uint64),
    np.array([[1 + 2j, 1 - 1j, 0j], [-1j, 2, 3]], np.complex64),
])  # fmt: skip
def test_reductions_on_every_kind(x):
    """NaN propagates through max and min; the identities fit bools and unsigned integers."""
    x = jnp.asarray(x)
    check_compiled(lambda x: (jnp.max(x, 1), jnp.min(x, 1), jnp.max(x), jnp.min(x, 0)), x)
    if x.dtype != np.bool_:
        check_compiled(lambda x: (jnp.sum(x, 1), jnp.prod(x, 0)), x)
    if x.dtype.kind in "biu":
        check_compiled(lambda x: (lax.reduce_and(x, (1,)), lax.reduce_or(x, (0,)), lax.reduce_xor(x, (0, 1))), x)


def test_reductions_of_empty_axes_give_identities():
    e = jnp.zeros((3, 0), jnp.float32)
    check_compiled(lambda e: (lax.reduce_max(e, (1,)), lax.reduce_min(e, (1,)), jnp.sum(e, 1), jnp.prod(e, 1)), e)
    for dtype in (np.int8, np.uint16, np.bool_):
        e = jnp.zeros((3, 0), dtype)
        check_compiled(lambda e: (lax.reduce_max(e, (1,)), lax.reduce_min(e, (1,)), lax.reduce_and(e, (1,)),
                                  lax.reduce_or(e, (1,)), lax.reduce_xor(e, (1,))), e)  # fmt: skip


@st.composite
def _pad_and_slice(draw):
    """A small array's shape, a padding config (negative edges crop, within what the padded size
    allows) and a strided slice of the result."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    config = []
    for n in shape:
        interior = draw(st.integers(0, 2))
        spread = n + (n - 1) * interior
        lo = draw(st.integers(-(spread // 2), 2))
        hi = draw(st.integers(-(spread + lo) + 1 if spread + lo > 1 else 0, 2))
        config.append((lo, hi, interior))
    padded = [n + (n - 1) * i + lo + hi for n, (lo, hi, i) in zip(shape, config)]
    starts = [draw(st.integers(0, p - 1)) for p in padded]
    limits = [draw(st.integers(s, p)) for s, p in zip(starts, padded)]
    strides = [draw(st.integers(1, 3)) for _ in padded]
    return shape, config, starts, limits, strides


@settings(deadline=None, max_examples=25, derandomize=True)
@given(_pad_and_slice())
def test_pad_then_slice_random_configs(case):
    shape, config, starts, limits, strides = case
    x = jnp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1)
    check_compiled(lambda x: (lax.pad(x, jnp.float32(0), config),
                              lax.slice(lax.pad(x, jnp.float32(-1), config), starts, limits, strides)), x)  # fmt: skip



# (parameters, input channels per kernel, layout): the input is (4, 4, 9) in N C W order.
CONVOLUTIONS = [
    (dict(window_strides=(2,), padding="SAME", rhs_dilation=(2,)), 4, False),
    (dict(window_strides=(1,), padding=[(2, -1)], lhs_dilation=(3,), feature_group_count=2), 2, False),
    (dict(window_strides=(1,), padding="VALID", batch_group_count=2), 4, False),
    (dict(window_strides=(1,), padding="SAME", dimension_numbers=("NWC", "WIO", "CNW")), 4, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64, np.int8, np.bool_])
def test_convolutions_are_stablehlos_and_agree_with_eager(dtype):
    rng = np.random.default_rng(7)
    x = (rng.normal(size=(4, 4, 9)) * 3).astype(dtype)
    for params, in_features, channels_last in CONVOLUTIONS if dtype == np.float32 else CONVOLUTIONS[1:2]:
        w = (rng.normal(size=(4, in_features, 3)) * 3).astype(dtype)
        if channels_last:
            x, w = x.transpose(0, 2, 1), w.transpose(2, 1, 0)
        check_compiled(lambda a, b: lax.conv_general_dilated(a, b, **params), x, w, rtol=1e-2, atol=1e-2)


def test_a_convolution_prints_as_stablehlo_writes_it():
    text = didax.jit(lambda a, b: lax.conv(a, b, (1, 2), "SAME")).lower(np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2)))
    assert "stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]" in text.as_text()


@pytest.mark.parametrize("name", ["add", "max", "min"])
def test_windowed_reductions_are_stablehlos_reduce_window(name):
    # Every parameter at once; maxima and minima exactly (NaN and signed zeros included), sums in
    # any order; float16 sums in float32, as eagerly.
    x = np.random.default_rng(8).normal(size=(5, 7)).astype(np.float32)
    x[0, :3] = [np.nan, -0.0, 0.0]
    prim = {"add": lax.reduce_window_sum_p, "max": lax.reduce_window_max_p, "min": lax.reduce_window_min_p}[name]

    def f(a):
        init = lax.windowed.identity(prim, a.dtype)
        return lax.reduce_window(a, init, getattr(lax, name), (3, 2), (2, 1), [(1, 2), (-1, 0)], (2, 1), (1, 2))

    exact = name != "add"
    check_compiled(f, x, rtol=0 if exact else 1e-6, atol=0 if exact else 1e-6)
    check_compiled(f, x.astype(np.float16), rtol=0 if exact else 1e-3, atol=0 if exact else 1e-3)
    check_compiled(f, (x * 10).astype(np.int32))
    text = didax.jit(f).lower(x).as_text()
    assert "stablehlo.reduce_window" in text
