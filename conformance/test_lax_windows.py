"""jax.lax.reduce_window with its three monoids (a sum from 0, a maximum from the lowest value, a
minimum from the highest), against a reference written here, on drawn shapes, windows, strides,
paddings (names and pairs, negative ones crop), operand and window dilations and dtypes; the
primitive each computation selects; and the errors JAX raises.

The reference visits every window position and reads the operand where each window element lands,
with nothing padded or spread out in memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call, wide, xla_max, xla_min
from conformance.impl import Impl
from conformance.test_lax_conv import same_pads

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]


def identity(name: str, dtype: np.dtype) -> Any:
    """The monoid's identity in ``dtype``: what pads and holes hold."""
    if name == "add":
        return dtype.type(0)
    if dtype == np.bool_:
        return np.bool_(name == "min")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(info.min if name == "max" else info.max)
    return dtype.type(-np.inf if name == "max" else np.inf)


def reduce_window_reference(x: np.ndarray, name: str, window: tuple[int, ...], strides: tuple[int, ...],
                            pads: list[tuple[int, int]], base: tuple[int, ...],
                            dilation: tuple[int, ...]) -> np.ndarray:  # fmt: skip
    """out[p] = the monoid over window offsets k of the element at p * stride + k * dilation - lo in
    the operand spread out by ``base`` (the identity where that is a hole or a pad)."""
    ident = identity(name, x.dtype)
    spread = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    spans = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    sizes = [max((n + lo + hi - s) // st_ + 1, 0) for n, (lo, hi), s, st_ in zip(spread, pads, spans, strides)]
    combine: Callable[[Any, Any], Any] = {"add": lambda a, b: a + b, "max": xla_max, "min": xla_min}[name]
    out = np.empty(sizes, wide(x).dtype)
    for p in itertools.product(*map(range, sizes)):
        acc = wide(np.asarray(ident))
        for k in itertools.product(*map(range, window)):
            at = [pi * s + ki * d - lo for pi, s, ki, d, (lo, _) in zip(p, strides, k, dilation, pads)]
            inside = all(0 <= a < n and a % b == 0 for a, n, b in zip(at, spread, base))
            value = wide(x[tuple(a // b for a, b in zip(at, base))]) if inside else wide(np.asarray(ident))
            acc = combine(acc, value)
        out[p] = acc
    return out


@st.composite
def windows(draw: Any) -> dict:
    ndim = draw(st.integers(1, 3), label="ndim")
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim), label="shape"))
    window = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim), label="window_dimensions"))
    strides = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim), label="window_strides"))
    base = tuple(draw(st.lists(st.integers(1, 2), min_size=ndim, max_size=ndim), label="base_dilation"))
    dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=ndim, max_size=ndim), label="window_dilation"))
    padding: Any = draw(st.sampled_from(["pairs", "VALID", "SAME", "SAME_LOWER"]), label="padding kind")
    spread = [(n - 1) * b + 1 for n, b in zip(shape, base)]
    if padding == "pairs":
        padding = [(draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in shape]
        padding = [(max(lo, -(n - 1)), max(hi, -(n + max(lo, -(n - 1))))) for (lo, hi), n in zip(padding, spread)]
    return dict(shape=shape, window=window, strides=strides, base=base, dilation=dilation, padding=padding)


WINDOW_DTYPES = (np.dtype("float32"), np.dtype("float64"), np.dtype("int32"), np.dtype("int8"), np.dtype("bool"),
                 np.dtype("float16"), np.dtype("complex64"))  # fmt: skip


@given(data=st.data(), w=windows())
def test_reduce_window_matches_the_reference(impl: Impl, flags, data: st.DataObject, w: dict) -> None:
    x64 = draw_x64(data, flags)
    name = data.draw(st.sampled_from(["add", "max", "min"]), label="computation")
    dt = dr.canonicalize(data.draw(st.sampled_from(WINDOW_DTYPES), label="dtype"), x64)
    if name == "add" and dt == np.bool_:
        dt = np.dtype("int32")
    x = data.draw(S.arrays(dt, w["shape"], S.TIES), label="x")
    init = identity(name, dt)
    padding = w["padding"]
    spread = [(n - 1) * b + 1 for n, b in zip(w["shape"], w["base"])]
    spans = [(k - 1) * d + 1 for k, d in zip(w["window"], w["dilation"])]
    pads = padding if not isinstance(padding, str) else (
        [(0, 0)] * len(spread) if padding == "VALID" else same_pads(spread, spans, w["strides"],
                                                                    padding == "SAME_LOWER"))  # fmt: skip
    show_call(f"lax.reduce_window(x, init, lax.{name}, window, strides, padding, base, dilation)", x=x, init=init,
              window=w["window"], strides=w["strides"], padding=padding, base=w["base"], dilation=w["dilation"])
    got = impl.lax.reduce_window(x, init, getattr(impl.lax, name), w["window"], w["strides"], padding, w["base"],
                                 w["dilation"])  # fmt: skip
    want = reduce_window_reference(x, name, w["window"], w["strides"], pads, w["base"], w["dilation"])
    assert_dtype(got, dt, weak=False)
    terms = int(np.prod(w["window"]))
    atol = 0.0 if dt.kind in "biu" or name != "add" else RTOL[dt.name] * 8 * terms
    assert_values(got, want, dt, atol=atol)


def test_each_monoid_is_its_own_primitive(impl: Impl) -> None:
    """The sum from 0, the max from -inf and the min from +inf are reduce_window_sum, _max, _min
    (jaxprs name them), and they take their parameters resolved: pads as pairs."""
    lax = impl.lax
    assert (lax.reduce_window_sum_p.name, lax.reduce_window_max_p.name, lax.reduce_window_min_p.name) == (
        "reduce_window_sum", "reduce_window_max", "reduce_window_min")
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    show_call("lax.reduce_window_max_p.bind(x, window_dimensions=(2, 2), ...)", x=x)
    got = lax.reduce_window_max_p.bind(impl.numpy.asarray(x), window_dimensions=(2, 2), window_strides=(1, 2),
                                       padding=((0, 1), (0, 0)), base_dilation=(1, 1), window_dilation=(1, 1))
    assert_values(got, [[5, 7], [9, 11], [9, 11]], np.dtype("float32"))


MISUSES = [
    ("window per axis", "lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1))", TypeError),
    ("strides per axis", "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1,))", TypeError),
    ("empty window", "lax.reduce_window(x, 0.0, lax.add, (0, 2), (1, 1))", TypeError),
    ("zero stride", "lax.reduce_window(x, 0.0, lax.add, (2, 2), (0, 1))", TypeError),
    ("unknown padding", "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), 'FULL')", RuntimeError),
]  # fmt: skip


@pytest.mark.parametrize("name, call, error", MISUSES, ids=[m[0] for m in MISUSES])
def test_misuse_raises_jaxs_error(impl: Impl, name: str, call: str, error: type) -> None:
    x = np.ones((3, 4), np.float32)
    show_call(call, x=x)
    with pytest.raises(error):
        eval(call, {"lax": impl.lax, "np": np, "x": x})
