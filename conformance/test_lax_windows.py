"""jax.lax.reduce_window with its three monoids (a sum from 0, a maximum from the lowest value, a
minimum from the highest) and with other computations (a product, a sum from another value, a pair
of operands), against a reference written here, on drawn shapes, windows, strides,
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
                            pads: list[tuple[int, int]], base: tuple[int, ...], dilation: tuple[int, ...],
                            combine: Callable[[Any, Any], Any] | None = None,
                            init: Any = None) -> np.ndarray:  # fmt: skip
    """out[p] = the monoid over window offsets k of the element at p * stride + k * dilation - lo in
    the operand spread out by ``base``, from its identity (nothing where that is a hole or a pad);
    or, given ``combine`` and ``init``, that computation folded from ``init``."""
    ident = identity(name, x.dtype) if init is None else init
    spread = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    spans = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    sizes = [max((n + lo + hi - s) // st_ + 1, 0) for n, (lo, hi), s, st_ in zip(spread, pads, spans, strides)]
    if combine is None:
        combine = {"add": lambda a, b: a + b, "max": xla_max, "min": xla_min}[name]
    out = np.empty(sizes, wide(x).dtype)
    for p in itertools.product(*map(range, sizes)):
        acc = wide(np.asarray(ident))
        for k in itertools.product(*map(range, window)):
            at = [pi * s + ki * d - lo for pi, s, ki, d, (lo, _) in zip(p, strides, k, dilation, pads)]
            inside = all(0 <= a < n and a % b == 0 for a, n, b in zip(at, spread, base))
            if inside:  # (a pad or a hole is skipped: for a monoid, the same as its identity)
                acc = combine(acc, wide(x[tuple(a // b for a, b in zip(at, base))]))
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


def resolved_pads(w: dict) -> list[tuple[int, int]]:
    """The drawn padding as pairs: 'SAME' from the operand's shape before base_dilation, as JAX
    computes it, for the window spread out by window_dilation."""
    padding = w["padding"]
    if not isinstance(padding, str):
        return padding
    if padding == "VALID":
        return [(0, 0)] * len(w["shape"])
    spans = [(k - 1) * d + 1 for k, d in zip(w["window"], w["dilation"])]
    return same_pads(list(w["shape"]), spans, w["strides"], padding == "SAME_LOWER")


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
    pads = resolved_pads(w)
    show_call(f"lax.reduce_window(x, init, lax.{name}, window, strides, padding, base, dilation)", x=x, init=init,
              window=w["window"], strides=w["strides"], padding=padding, base=w["base"], dilation=w["dilation"])
    got = impl.lax.reduce_window(x, init, getattr(impl.lax, name), w["window"], w["strides"], padding, w["base"],
                                 w["dilation"])  # fmt: skip
    want = reduce_window_reference(x, name, w["window"], w["strides"], pads, w["base"], w["dilation"])
    assert_dtype(got, dt, weak=False)
    terms = int(np.prod(w["window"]))
    atol = 0.0 if dt.kind in "biu" or name != "add" else RTOL[dt.name] * 8 * terms
    assert_values(got, want, dt, atol=atol)


# Computations that are not a monoid from its identity: JAX folds them over each window (a primitive
# holding the computation), from the initial value, skipping pads and holes (XLA's CPU backend
# does: a sum from 0.5 over a pad and an element is 0.5 plus the element).
OTHER_COMPUTATIONS = {
    "mul from 1": ("lax.mul", 1.0, lambda a, b: a * b),
    "add from 0.5": ("lax.add", 0.5, lambda a, b: a + b),
    "max from 0": ("lax.max", 0.0, np.maximum),
}


@given(data=st.data(), w=windows())
def test_reduce_window_of_another_computation_matches_the_reference(impl: Impl, flags, data: st.DataObject,
                                                                    w: dict) -> None:  # fmt: skip
    x64 = draw_x64(data, flags)
    name = data.draw(st.sampled_from(sorted(OTHER_COMPUTATIONS)), label="computation")
    source, init, combine = OTHER_COMPUTATIONS[name]
    dt = dr.canonicalize(data.draw(st.sampled_from([np.dtype("float32"), np.dtype("float64")]), label="dtype"), x64)
    x = data.draw(S.arrays(dt, w["shape"], S.Domain(-1.5, 1.5)), label="x")
    init = dt.type(init)  # (a Python float is float64 with x64 on: JAX wants the operand's dtype)
    padding = w["padding"]
    pads = resolved_pads(w)
    show_call(f"lax.reduce_window(x, init, {source}, window, strides, padding, base, dilation)", x=x, init=init,
              window=w["window"], strides=w["strides"], padding=padding, base=w["base"], dilation=w["dilation"])
    got = impl.lax.reduce_window(x, init, eval(source, {"lax": impl.lax}), w["window"], w["strides"], padding,
                                 w["base"], w["dilation"])  # fmt: skip
    want = reduce_window_reference(x, "add", w["window"], w["strides"], pads, w["base"], w["dilation"],
                                   combine=combine, init=wide(np.asarray(init)))  # fmt: skip
    assert_dtype(got, dt, weak=False)
    assert_values(got, want, dt, atol=RTOL[dt.name] * 8 * int(np.prod(w["window"])))


def test_reduce_window_of_a_pair_finds_each_windows_maximum_and_where_it_is(impl: Impl) -> None:
    """Two operands reduced together (a pytree, and a computation of pairs): the maximum of each
    window and the column it is in, the first of equal ones; and JAX's errors for an initial value
    of another dtype or structure."""
    lax = impl.lax
    x = np.array([[3.0, 1.0, 3.0, 0.5, 2.0, 2.0], [-1.0, 4.0, 0.0, 7.0, 7.0, 1.0]], np.float32)
    columns = np.broadcast_to(np.arange(6, dtype=np.int32), x.shape)
    source = ("lax.reduce_window((x, columns), (-np.inf, np.int32(0)), lambda a, b: (lax.max(a[0], b[0]), "
              "lax.select(a[0] >= b[0], a[1], b[1])), (1, 3), (1, 3), 'VALID')")
    show_call(source, x=x, columns=columns)
    values, where = eval(source, {"lax": lax, "np": np, "x": x, "columns": columns})
    assert_values(values, [[3.0, 2.0], [4.0, 7.0]], np.dtype("float32"))
    assert_dtype(where, np.dtype("int32"), weak=False)
    np.testing.assert_array_equal(where, [[0, 4], [1, 3]])
    with pytest.raises(TypeError):
        lax.reduce_window(x, 1, lax.mul, (2, 2), (1, 1), "VALID")  # an int32 initial value for float32
    with pytest.raises(ValueError):
        lax.reduce_window((x, x), 1.0, lax.mul, (2, 2), (1, 1), "VALID")


def test_same_padding_is_computed_before_base_dilation(impl: Impl) -> None:
    """JAX computes 'SAME' pads from the operand's shape before base_dilation spreads it out: two
    elements, spread to three, give one window of stride 2, not two. (didax counted the spread
    shape: a drawn example found it; this is that example.)"""
    lax = impl.lax
    x = np.array([1.0, 2.0], np.float32)
    for init, computation, want in ((0.0, "add", [1.0]), (0.5, "add", [1.5]), (1.0, "mul", [1.0])):
        show_call(f"lax.reduce_window(x, np.float32({init}), lax.{computation}, (2,), (2,), 'SAME', (2,))", x=x)
        got = lax.reduce_window(x, np.float32(init), getattr(lax, computation), (2,), (2,), "SAME", (2,))
        assert_values(got, want, np.dtype("float32"))


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
