"""Comparing an implementation's results with NumPy oracles, and printing small reproducers."""

from __future__ import annotations

import functools
import sys
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from conformance import reproduce
from conformance.dtype_rules import canonicalize

# Relative tolerance per result dtype: 2-4 ulps for the 16-bit floats; for float32 and float64 a wider
# margin (about 170 and 4500 ulps), because XLA's transcendental and complex functions are not
# correctly rounded. Loose enough for any honest implementation; a wrong function, operand order or
# dtype, or an error above 2e-5 (1e-12) fails.
RTOL = {
    "bfloat16": 2e-2,
    "float16": 4e-3,
    "float32": 2e-5,
    "float64": 1e-12,
    "complex64": 2e-5,
    "complex128": 1e-12,
}


class ReleaseDetail(AssertionError):
    """A check of what JAX 0.10.2 does where JAX's own releases differ and its documentation promises
    no one behaviour: the class of an exception whose message stayed the same, a message's wording,
    a primitive's name in a jaxpr. The suite keeps checking it (an implementation of 0.10.2 should
    match it, and mutants are killed by it), but a test failing only on such a check is reported as
    a `release_detail` outcome, counted apart from failures."""


def release_detail(ok: bool, message: str) -> None:
    """Assert `ok`, a detail of JAX 0.10.2 that other releases do differently (see ReleaseDetail)."""
    if not ok:
        raise ReleaseDetail(message)


def to_numpy(x: Any) -> np.ndarray:
    """The value of an implementation's array, as NumPy sees it."""
    return np.asarray(x)


def result_dtype(x: Any) -> np.dtype:
    return np.dtype(x.dtype)


def is_weak(x: Any) -> bool:
    """JAX keeps weak_type on the aval; other implementations may put it on the array."""
    aval = getattr(x, "aval", None)
    if aval is not None and hasattr(aval, "weak_type"):
        return bool(aval.weak_type)
    return bool(x.weak_type)


def wide(x: np.ndarray) -> np.ndarray:
    """Upcast for the oracle: exact for bool and ints (mod 2**64), float64/complex128 for the rest."""
    kind = x.dtype.kind
    if kind == "b":
        return x
    if kind == "i":
        return x.astype(np.int64)
    if kind == "u":
        return x.astype(np.uint64)
    if kind == "c":
        return x.astype(np.complex128)
    return x.astype(np.float64)


def as_operand(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """What the implementation computes with: the input converted to `dt`, then widened."""
    return wide(np.asarray(x).astype(dt))


def assert_dtype(got: Any, want: np.dtype, what: str = "result", *, weak: bool | None = None) -> None:
    """The result's dtype, and its weak type: every test passes `weak=` (the expected weak type from
    dtype_rules.weak_result); conformance/meta/test_suite_lint.py checks that none forgets."""
    assert result_dtype(got) == want, f"{what} dtype is {result_dtype(got)}, expected {want}"
    if weak is not None:
        assert_weak(got, weak, what)


def assert_weak(got: Any, expected: bool, what: str = "result") -> None:
    """The one weak-type check of the suite."""
    actual = is_weak(got)
    kind = "weakly" if expected else "strongly"
    assert actual == expected, f"{what} should be {kind} typed (weak_type={actual}, {result_dtype(got)})"


def assert_values(got: Any, want: np.ndarray, dt: np.dtype, atol: float | np.ndarray = 0.0) -> None:
    """Compare values after rounding the oracle to `dt`. Integers and bools must then match exactly
    (integer overflow wraps the same way in both); floats within RTOL[dt] * |want| + atol."""
    got_np = to_numpy(got)
    want = np.asarray(want)
    assert got_np.shape == want.shape, f"shape {got_np.shape}, expected {want.shape}"
    if dt.kind in "biu":
        want_cast = want.astype(dt)
        bad = got_np != want_cast
        assert not bad.any(), _mismatch(got_np, want_cast, bad)
        return
    rtol = RTOL[dt.name]
    with np.errstate(all="ignore"):  # the exact value, rounded to dt (overflowing to inf) like a result
        want = want.astype(dt)
    got_w, want_w = wide(got_np), wide(want)
    same_special = _same_specials(got_w, want_w)
    finite = np.isfinite(want_w) & np.isfinite(got_w)
    with np.errstate(invalid="ignore"):
        err = np.where(finite, np.abs(got_w - want_w), 0.0)
    bound = np.abs(want_w) * rtol + np.asarray(atol, dtype=np.float64)
    bad = ~same_special | (err > bound)
    assert not bad.any(), _mismatch(got_np, want, bad, rtol, atol)


def assert_same_type(got: Any, want: Any, what: str = "result") -> None:
    """``got`` (a value or an abstract value: anything with dtype and weak_type) is typed exactly
    as ``want``, an array of the same implementation: the same dtype and weak type. For values that
    must be typed like another computation of the same function (a staged function's out avals and
    outputs, and the function run eagerly), where no rule of dtype_rules applies."""
    assert_dtype(got, result_dtype(want), what, weak=is_weak(want))


def assert_rearranged(got: Any, want: np.ndarray, x64: bool | None = None, weak: bool = False) -> None:
    """Shape operations move values without changing them: `got` holds exactly `want`, with want's
    dtype (canonicalized for the x64 mode, when given: the input may have been a 64-bit array) and
    the weak type `weak` (False: the inputs the suite draws are NumPy arrays, which are strong)."""
    dt = want.dtype if x64 is None else canonicalize(want.dtype, x64)
    assert_dtype(got, dt, weak=weak)
    assert_values(got, wide(want), dt)


def ulp_scale(dt: np.dtype) -> float:
    """Machine epsilon of a float or complex dtype (for tolerances that grow with sums)."""
    if dt.kind == "c":
        dt = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
    return float(ml_dtypes.finfo(dt).eps)


def _same_specials(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """NaNs where NaNs are expected, and infinities of the right sign."""
    parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
    ok = np.ones(np.broadcast(got, want).shape, dtype=bool)
    for g, w in parts:
        ok &= np.isnan(g) == np.isnan(w)
        ok &= np.where(np.isinf(w), g == w, ~np.isinf(g))
    return ok


def _mismatch(got: np.ndarray, want: np.ndarray, bad: np.ndarray, rtol: float = 0, atol: Any = 0) -> str:
    where = np.argwhere(np.asarray(bad))[:5].tolist()
    tol = f" (rtol={rtol}, atol={atol})" if rtol else ""
    return f"values differ at {where}{tol}:\n got  {got!r}\n want {want!r}"


def draw_x64(data: st.DataObject, flags: Any) -> bool:
    """Draw the x64 mode of one example and set it (through the `flags` fixture, which restores it),
    so that both modes are covered without running every test twice."""
    x64 = data.draw(st.booleans(), label="jax_enable_x64")
    flags("jax_enable_x64", x64)
    return x64


# --- reproducers ---------------------------------------------------------------------------------


def show_value(value: Any) -> str:
    """Source text for a value (arrays keep dtype, shape and exact values), so that a failing example
    reads as a program."""
    return reproduce.literal(value)


def show_call(program: str, **values: Any) -> None:
    """Note the inputs and the call (`show_call("jnp.add(x, y)", x=x, y=y)`) as a self-contained
    program: imports, config flags, inputs as literals, the call printed (see reproduce.py). The plugin
    puts the program of a failing test (of hypothesis's last, shrunk example) at the top of its report
    and in the results file."""
    reproduce.record(program, values, sys._getframe(1).f_globals.get("__name__"))  # its helpers


class XlaExtremum:
    """XLA's max (or min, when `negative`) as a NumPy-ufunc-like oracle, with `accumulate` and
    `at`: NaN propagates, and -0.0 < 0.0, so two zeros give 0.0 for max and -0.0 for min in either
    order (NumPy's maximum and minimum return whichever came second). Complex numbers compare
    (real, imag) lexicographically, and y is the result wherever x does not win strictly."""

    def __init__(self, negative: bool) -> None:
        self.negative = negative

    def __call__(self, x: Any, y: Any) -> np.ndarray:
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind == "c":
            a, b = (y, x) if self.negative else (x, y)
            x_wins = (a.real > b.real) | ((a.real == b.real) & (a.imag > b.imag))
            return np.where(x_wins, x, y)
        out = np.minimum(x, y) if self.negative else np.maximum(x, y)
        if x.dtype.kind != "f":
            return out
        # IEEE sums of two zeros: 0.0 + -0.0 is 0.0 (max), and -(-0.0 + 0.0) is -0.0 (min).
        zeros = -((-x) + (-y)) if self.negative else x + y
        return np.where((x == 0) & (y == 0), zeros, out)

    def accumulate(self, x: np.ndarray, axis: int) -> np.ndarray:
        out = np.moveaxis(np.array(x), axis, 0)
        for i in range(1, out.shape[0]):
            out[i] = self(out[i - 1], out[i])
        return np.moveaxis(out, 0, axis)

    def reduce(self, x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        """Folded over `axis` (None: every axis; an int or a tuple), like np.max."""
        axes = tuple(range(x.ndim)) if axis is None else tuple(int(a) % x.ndim for a in np.atleast_1d(axis))
        moved = np.moveaxis(x, axes, range(len(axes)))
        out = functools.reduce(self, moved.reshape((-1, *moved.shape[len(axes):])))
        return np.expand_dims(out, axes) if keepdims else out

    def at(self, a: np.ndarray, index: Any, values: Any) -> None:
        """In place, like ufunc.at: every value meets the element its index reaches, in order."""
        where = np.arange(a.size).reshape(a.shape)[index]
        flat = a.reshape(-1)  # a view: `a` is a fresh contiguous array in the tests
        for p, v in zip(where.ravel(), np.broadcast_to(values, where.shape).ravel()):
            flat[p] = self(flat[p], v)


xla_max, xla_min = XlaExtremum(negative=False), XlaExtremum(negative=True)


def assert_zero_signs(got: Any, want: np.ndarray) -> None:
    """Where a real float result is zero, its sign is the oracle's (np.signbit): for the
    operations whose zero sign JAX defines (max and min order -0.0 below 0.0)."""
    got_np, want = to_numpy(got), np.asarray(want)
    if want.dtype.kind != "f" or got_np.dtype.kind == "c":
        return
    zero = np.asarray(want == 0)
    bad = zero & (np.signbit(wide(got_np)) != np.signbit(want))
    assert not bad.any(), "zero signs differ " + _mismatch(got_np, want, bad)[len("values differ "):]
