"""jax.lax elementwise primitives against NumPy. lax does not promote: operands share one dtype, and
the result has that dtype (bool for comparisons). The bit-level primitives (shifts, bit counts,
bitcast_convert_type) against Python loops over each element's bits. Also the errors lax raises on
mixed inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    RTOL,
    assert_dtype,
    assert_values,
    assert_zero_signs,
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

SIGNED_OR_INEXACT = S.SIGNED + S.INEXACT
NUMERIC = S.NUMBER  # everything but bool
BITWISE = S.BOOL + S.INTEGER
ORDERED = S.REAL  # lt/le/gt/ge reject complex


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """lax.div: true division for inexact types, rounding toward zero for integers (like C)."""
    if a.dtype.kind in "fc":
        return a / b
    quotient = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -quotient, quotient)


def logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


@dataclass(frozen=True, repr=False)
class Prim:
    """A lax primitive, its NumPy oracle, the dtypes lax accepts and where its inputs live."""

    name: str
    oracle: Callable[..., np.ndarray]
    dtypes: tuple[np.dtype, ...]
    domains: tuple[Domain, ...] = (S.DEFAULT,)
    boolean: bool = False  # the result is bool (comparisons)
    real: bool = False  # a complex input gives a real result (abs)

    def __repr__(self) -> str:
        return f"Prim({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def result_dtype(self, dt: np.dtype) -> np.dtype:
        if self.boolean:
            return np.dtype(bool)
        return dr.real_dtype(dt) if self.real else dt


UNARY = [
    Prim("neg", np.negative, NUMERIC),
    Prim("sign", np.sign, NUMERIC),
    Prim("abs", np.abs, SIGNED_OR_INEXACT, real=True),
    Prim("exp", np.exp, S.INEXACT, (Domain(-5, 5),)),
    Prim("log", np.log, S.INEXACT, (Domain(0.1, 10),)),
    Prim("log1p", np.log1p, S.INEXACT, (Domain(-0.9, 10),)),
    Prim("expm1", np.expm1, S.INEXACT, (Domain(-5, 5),)),
    Prim("sin", np.sin, S.INEXACT, (Domain(-3, 3),)),
    Prim("cos", np.cos, S.INEXACT, (Domain(-3, 3),)),
    Prim("tan", np.tan, S.INEXACT, (Domain(-1.4, 1.4),)),
    Prim("tanh", np.tanh, S.INEXACT, (Domain(-5, 5),)),
    Prim("logistic", logistic, S.INEXACT, (Domain(-5, 5),)),
    Prim("sqrt", np.sqrt, S.INEXACT, (Domain(0, 10),)),
    Prim("rsqrt", rsqrt, S.INEXACT, (Domain(0.1, 10),)),
    Prim("bitwise_not", np.invert, BITWISE),
    Prim("floor", np.floor, S.FLOATING),
    Prim("ceil", np.ceil, S.FLOATING),
    Prim("is_finite", np.isfinite, S.FLOATING, boolean=True),
    Prim("exp2", np.exp2, S.INEXACT, (Domain(-5, 5),)),
    Prim("sinh", np.sinh, S.INEXACT, (Domain(-5, 5),)),
    Prim("cosh", np.cosh, S.INEXACT, (Domain(-5, 5),)),
    # Complex inputs stay inside the unit square: off the branch cuts, where conventions differ.
    Prim("asin", np.arcsin, S.INEXACT, (Domain(-0.9, 0.9),)),
    Prim("acos", np.arccos, S.INEXACT, (Domain(-0.9, 0.9),)),
    Prim("atan", np.arctan, S.INEXACT, (Domain(-0.9, 0.9),)),
    Prim("asinh", np.arcsinh, S.INEXACT, (Domain(-0.9, 0.9),)),
    Prim("acosh", np.arccosh, S.INEXACT, (Domain(1, 10),)),
    Prim("atanh", np.arctanh, S.INEXACT, (Domain(-0.9, 0.9),)),
    Prim("cbrt", np.cbrt, S.FLOATING),
    Prim("square", np.square, NUMERIC, (S.WIDE,)),  # integers wrap around
    Prim("stop_gradient", lambda x: x, S.ALL),
]

BINARY = [
    Prim("add", np.add, NUMERIC, (S.WIDE, S.WIDE)),
    Prim("sub", np.subtract, NUMERIC, (S.WIDE, S.WIDE)),
    Prim("mul", np.multiply, NUMERIC, (S.WIDE, S.WIDE)),
    Prim("div", truncating_divide, NUMERIC, (S.DEFAULT, Domain(-10, 10, min_abs=0.1))),
    Prim("rem", np.fmod, S.INTEGER + S.FLOATING, (S.GRID, S.GRID_NONZERO)),  # C fmod: sign of the dividend
    Prim("max", xla_max, S.ALL, (S.SIGNED_TIES, S.SIGNED_TIES)),  # -0.0 < 0.0, as XLA orders them
    Prim("min", xla_min, S.ALL, (S.SIGNED_TIES, S.SIGNED_TIES)),
    Prim("pow", np.power, S.INEXACT, (Domain(0.5, 4), Domain(-3, 3))),
    Prim("eq", np.equal, S.ALL, (S.TIES, S.TIES), boolean=True),
    Prim("ne", np.not_equal, S.ALL, (S.TIES, S.TIES), boolean=True),
    Prim("lt", np.less, ORDERED, (S.TIES, S.TIES), boolean=True),
    Prim("le", np.less_equal, ORDERED, (S.TIES, S.TIES), boolean=True),
    Prim("gt", np.greater, ORDERED, (S.TIES, S.TIES), boolean=True),
    Prim("ge", np.greater_equal, ORDERED, (S.TIES, S.TIES), boolean=True),
    Prim("bitwise_and", np.bitwise_and, BITWISE, (S.WIDE, S.WIDE)),
    Prim("bitwise_or", np.bitwise_or, BITWISE, (S.WIDE, S.WIDE)),
    Prim("bitwise_xor", np.bitwise_xor, BITWISE, (S.WIDE, S.WIDE)),
    Prim("atan2", np.arctan2, S.FLOATING, (S.DEFAULT, S.DEFAULT)),
]


def check(prim: Prim, got: Any, inputs: list[np.ndarray], dt: np.dtype) -> None:
    want_dtype = prim.result_dtype(dt)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", *inputs, x64=True))
    with np.errstate(all="ignore"):
        want = prim.oracle(*(wide(x) for x in inputs))
    assert_values(got, want, want_dtype, atol=RTOL.get(want_dtype.name, 0.0))
    if prim.oracle in (xla_max, xla_min):
        assert_zero_signs(got, want)


@pytest.mark.parametrize("prim", UNARY + BINARY, ids=lambda p: p.name)
@given(data=st.data())
def test_elementwise_primitive_matches_numpy(impl: Impl, flags, prim: Prim, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(prim.dtypes), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    inputs = [data.draw(S.arrays(dt, shape, domain), label=f"x{i}") for i, domain in enumerate(prim.domains)]
    show_call(
        f"lax.{prim.name}({', '.join(f'x{i}' for i in range(len(inputs)))})",
        **{f"x{i}": x for i, x in enumerate(inputs)},
    )
    check(prim, getattr(impl.lax, prim.name)(*inputs), inputs, dt)


@pytest.mark.parametrize("prim", BINARY[:4], ids=lambda p: p.name)
@given(data=st.data())
def test_binary_primitive_broadcasts_rank0_and_size1_dims(
    impl: Impl, flags, prim: Prim, data: st.DataObject
) -> None:
    """lax.add & co. accept a rank-0 operand, and size-1 dimensions against equal-rank operands."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.SIGNED, S.FLOATING), label="dtype"), x64)
    shape = data.draw(S.shapes(min_dims=1, max_side=3), label="shape")
    other = data.draw(
        st.one_of(st.just(()), st.tuples(*(st.sampled_from([1, n]) for n in shape))), label="other shape"
    )
    shapes = (shape, other) if data.draw(st.booleans(), label="rank-0 first") is False else (other, shape)
    x, y = (data.draw(S.arrays(dt, s, d), label=n) for s, d, n in zip(shapes, prim.domains, "xy"))
    show_call(f"lax.{prim.name}(x, y)", x=x, y=y)
    check(prim, getattr(impl.lax, prim.name)(x, y), [x, y], dt)


def test_binary_primitive_broadcasts_size1_against_size0(impl: Impl) -> None:
    """A size-1 dimension stretches to any size, 0 included."""
    empty, row = np.ones((0, 3), np.float32), np.ones((1, 3), np.float32)
    for x, y in ((empty, row), (row, empty)):
        assert tuple(impl.lax.add(x, y).shape) == (0, 3)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_propagate_nan(impl: Impl, name: str) -> None:
    x = np.array([np.nan, 1.0, np.nan, -2.0], np.float32)
    y = np.array([1.0, np.nan, np.nan, 3.0], np.float32)
    got = np.asarray(getattr(impl.lax, name)(x, y))
    np.testing.assert_array_equal(np.isnan(got), [True, True, True, False])


def test_max_and_min_order_negative_zero_below_positive_zero(impl: Impl) -> None:
    """XLA's max(0.0, -0.0) is 0.0 and its min -0.0, in either order and in every max/min primitive
    (NumPy's maximum and minimum return the second). Complex max and min return y on ties."""
    lax = impl.lax

    def signs(x: Any) -> list[bool]:
        return np.signbit(to_numpy(x)).tolist()

    x, y = np.array([0.0, -0.0, 0.0, -0.0], np.float32), np.array([-0.0, 0.0, 0.0, -0.0], np.float32)
    assert signs(lax.max(x, y)) == [False, False, False, True]
    assert signs(lax.min(x, y)) == [True, True, False, True]
    assert signs(lax.reduce_max(np.stack([x, y]), (0,))) == [False, False, False, True]
    assert signs(lax.reduce_min(np.stack([x, y]), (0,))) == [True, True, False, True]
    assert signs(lax.cummax(np.array([-0.0, 0.0, -0.0], np.float32))) == [True, False, False]
    assert signs(lax.cummin(np.array([0.0, -0.0, 0.0], np.float32))) == [False, True, True]
    assert signs(lax.clamp(np.float32(0.0), y, np.float32(1.0))) == [False, False, False, False]
    assert signs(lax.clamp(np.float32(-1.0), x, np.float32(-0.0))) == [True, True, True, True]
    p, n = np.array([complex(0.0, 0.0)], np.complex64), np.array([complex(-0.0, 0.0)], np.complex64)
    assert [bool(np.signbit(to_numpy(f(a, b)).real[0])) for f in (lax.max, lax.min) for a, b in ((p, n), (n, p))] == [
        True, False, True, False
    ]


@given(data=st.data())
def test_integer_pow(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(NUMERIC), label="dtype"), x64)
    exponent = data.draw(st.integers(0, 4) if dt.kind in "iu" else st.integers(-3, 3), label="y")
    domain = Domain(-4, 4) if dt.kind in "iu" else Domain(-4, 4, min_abs=0.25)
    x = data.draw(S.arrays(dt, S.shapes(min_side=0), domain), label="x")
    show_call(f"lax.integer_pow(x, {exponent})", x=x)
    got = impl.lax.integer_pow(x, exponent)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", x))
    with np.errstate(all="ignore"):
        assert_values(got, np.power(wide(x), exponent), dt, atol=RTOL.get(dt.name, 0.0))


@given(data=st.data())
def test_select_n(impl: Impl, flags, data: st.DataObject) -> None:
    """A bool predicate picks case 1 where True; an int32 predicate indexes 1 to 3 cases."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    count = data.draw(st.integers(1, 3), label="cases")
    which_dtype = (
        np.dtype(bool)
        if count == 2 and data.draw(st.booleans(), label="bool predicate")
        else np.dtype("int32")
    )
    which_shape = data.draw(st.sampled_from([shape, ()]), label="predicate shape")
    which = data.draw(S.arrays(which_dtype, which_shape, Domain(0, count - 1)), label="which")
    cases = [data.draw(S.arrays(dt, shape), label=f"case{i}") for i in range(count)]
    show_call("lax.select_n(which, *cases)", which=which, cases=cases)
    got = impl.lax.select_n(which, *cases)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", *cases, x64=True))
    index = np.broadcast_to(which.astype(int), shape)
    assert_values(got, np.choose(index, [wide(c) for c in cases]), dt)


@given(data=st.data())
def test_convert_element_type(impl: Impl, flags, data: st.DataObject) -> None:
    """Values are kept inside every target's range; floats are truncated toward zero into integers."""
    x64 = draw_x64(data, flags)
    new = data.draw(S.dtypes(), label="new_dtype")
    # complex to real would drop the imaginary part (NumPy warns): not tested
    source = data.draw(S.dtypes(S.ALL if new.kind == "c" else S.REAL), label="dtype")
    domain = Domain(0, 100) if new.kind == "u" else Domain(-100, 100)
    x = data.draw(S.arrays(source, S.shapes(min_side=0), domain), label="x")
    show_call(f"lax.convert_element_type(x, {new.name!r})", x=x)
    got = impl.lax.convert_element_type(x, new)
    want_dtype = dr.canonicalize(new, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("convert"))
    assert_values(got, x.astype(dr.canonicalize(source, x64)).astype(want_dtype), want_dtype)


# --- complex numbers made of their parts: conj and complex ------------------------------------------------

PARTS = (np.dtype("float32"), np.dtype("float64"))  # XLA's complex numbers have no smaller parts


def complex_of(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """re + i im, part by part (re + 1j * im would make an infinite im's real part NaN)."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


@given(data=st.data())
def test_conj(impl: Impl, flags, data: st.DataObject) -> None:
    """The conjugate of a complex x; a float32 or float64 x becomes complex, x + 0i (a +0 imaginary
    part, as XLA's complex(x, 0), not the -0 a negation would give)."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.COMPLEX, PARTS), label="dtype"), x64)
    x = data.draw(S.arrays(dt, S.shapes(min_side=0)), label="x")
    show_call("lax.conj(x)", x=x)
    got = impl.lax.conj(x)
    want = np.conj(x) if dt.kind == "c" else complex_of(x, np.zeros_like(x))
    assert_dtype(got, want.dtype, weak=dr.weak_result("elementwise", x, x64=True))
    assert_values(got, want, want.dtype)
    assert_zero_signs(to_numpy(got).imag, want.imag)


@given(data=st.data())
def test_complex(impl: Impl, flags, data: st.DataObject) -> None:
    """complex(x, y) = x + iy for two float32 or two float64 arrays (a rank-0 one broadcasts)."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(PARTS), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    x = data.draw(S.arrays(dt, shape), label="x")
    y = data.draw(S.arrays(dt, data.draw(st.sampled_from([shape, ()]), label="y's shape")), label="y")
    show_call("lax.complex(x, y)", x=x, y=y)
    got = impl.lax.complex(x, y)
    want = complex_of(x, y)
    assert_dtype(got, want.dtype, weak=dr.weak_result("elementwise", x, y, x64=True))
    assert_values(got, want, want.dtype)


def test_complex_keeps_infinite_parts(impl: Impl) -> None:
    re, im = np.array([1, np.inf, -np.inf], np.float32), np.array([np.inf, 2, np.nan], np.float32)
    got = to_numpy(impl.lax.complex(re, im))
    np.testing.assert_array_equal(got.real, re)
    np.testing.assert_array_equal(got.imag, im)


# --- bits: shifts, bit counts and bitcasts, against Python ints ---------------------------------------

FULL = Domain(-(2**64), 2**64)  # every value of an integer dtype (elements() clips to its range)


def bit_width(dt: np.dtype) -> int:
    return 8 * dt.itemsize


def bit_patterns(x: np.ndarray) -> list[int]:
    """Each element's bits, read as a non-negative Python int."""
    return [int(v) for v in np.asarray(x).view(f"u{x.dtype.itemsize}").ravel()]


def from_bit_patterns(patterns: list[int], dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Elements of dtype `dt` holding the given bits (the low bit_width(dt) of each)."""
    low = [p % 2 ** bit_width(dt) for p in patterns]
    return np.array(low, f"u{dt.itemsize}").view(dt).reshape(shape)


def as_signed(pattern: int, width: int) -> int:
    return pattern - 2**width if pattern >> (width - 1) else pattern


def shift_reference(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """XLA's shifts, element by element: the amount is read as unsigned (so -1 is huge), and one of
    at least the bit width shifts every bit out: 0, or for an arithmetic shift the sign bit
    everywhere. Python's >> of a negative int is arithmetic."""
    x, y = np.broadcast_arrays(x, y)
    width = bit_width(x.dtype)
    out = []
    for bits, amount in zip(bit_patterns(x), bit_patterns(y)):
        if name == "shift_left":
            out.append(bits << amount if amount < width else 0)
        elif name == "shift_right_logical":
            out.append(bits >> amount if amount < width else 0)
        else:
            out.append(as_signed(bits, width) >> min(amount, width - 1))
    return from_bit_patterns(out, x.dtype, x.shape)


def shift_amounts(dt: np.dtype) -> st.SearchStrategy[int]:
    """Amounts in and just around [0, bit width), negative ones, and any value of the dtype."""
    info, width = np.iinfo(dt), bit_width(dt)
    return st.one_of(st.integers(max(-width - 1, int(info.min)), width + 1), st.integers(int(info.min), int(info.max)))


SHIFTS = ["shift_left", "shift_right_logical", "shift_right_arithmetic"]


@pytest.mark.parametrize("name", SHIFTS)
@given(data=st.data())
def test_shift(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """x and the amount y share one integer dtype; y has x's shape or is rank 0."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.INTEGER), label="dtype"), x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    x = data.draw(S.arrays(dt, shape, FULL), label="x")
    y = data.draw(hnp.arrays(dt, st.sampled_from([shape, ()]), elements=shift_amounts(dt)), label="y")
    show_call(f"lax.{name}(x, y)", x=x, y=y)
    got = getattr(impl.lax, name)(x, y)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", x, y, x64=True))
    assert_values(got, shift_reference(name, x, y), dt)


def population_count_reference(x: np.ndarray) -> np.ndarray:
    width = bit_width(x.dtype)
    counts = [sum((bits >> i) & 1 for i in range(width)) for bits in bit_patterns(x)]
    return np.array(counts, np.int64).reshape(x.shape)


def clz_reference(x: np.ndarray) -> np.ndarray:
    """Zero bits above the highest set one, counted from the top (the whole width for 0)."""
    width = bit_width(x.dtype)

    def leading_zeros(bits: int) -> int:
        count = 0
        while count < width and not (bits >> (width - 1 - count)) & 1:
            count += 1
        return count

    return np.array([leading_zeros(b) for b in bit_patterns(x)], np.int64).reshape(x.shape)


BIT_COUNTS = {"population_count": population_count_reference, "clz": clz_reference}


@pytest.mark.parametrize("name", list(BIT_COUNTS))
@given(data=st.data())
def test_bit_count(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """The count has the operand's integer dtype."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(S.INTEGER), label="dtype"), x64)
    x = data.draw(S.arrays(dt, S.shapes(min_side=0), FULL), label="x")
    show_call(f"lax.{name}(x)", x=x)
    got = getattr(impl.lax, name)(x)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", x))
    assert_values(got, BIT_COUNTS[name](x), dt)


def bitcast_reference(x: np.ndarray, new: np.ndarray) -> np.ndarray:
    """NumPy's view of the same bytes (little-endian, as XLA's CPU): the pieces of a narrower
    dtype along a new last axis, or a last axis of pieces joined into one wider element."""
    x = np.array(x, order="C")  # (np.ascontiguousarray would make a rank-0 array 1-D)
    if new.itemsize > x.dtype.itemsize:
        return x.view(new)[..., 0]
    return x[..., None].view(new) if new.itemsize < x.dtype.itemsize else x.view(new)


BITCASTABLE = S.INTEGER + S.FLOATING  # bool and complex only to their own dtype


@given(data=st.data())
def test_bitcast_convert_type(impl: Impl, flags, data: st.DataObject) -> None:
    """Same width or not; new_dtype is canonicalized (float64 is float32 while x64 is off). A wider
    dtype needs a last axis of exactly as many pieces. The bits must survive exactly (NaN
    payloads and infinities included, from integer inputs)."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(BITCASTABLE), label="dtype"), x64)
    new = data.draw(S.dtypes(BITCASTABLE), label="new_dtype")
    want_dtype = dr.canonicalize(new, x64)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    if want_dtype.itemsize > dt.itemsize:
        shape = (*shape, want_dtype.itemsize // dt.itemsize)
    x = data.draw(S.arrays(dt, shape, FULL if dt.kind in "iu" else S.DEFAULT), label="x")
    show_call(f"lax.bitcast_convert_type(x, {new.name!r})", x=x)
    got = impl.lax.bitcast_convert_type(x, new)
    assert_dtype(got, want_dtype, weak=dr.weak_result("convert"))
    want = bitcast_reference(x, want_dtype)
    assert to_numpy(got).shape == want.shape, f"shape {to_numpy(got).shape}, expected {want.shape}"
    assert bit_patterns(to_numpy(got)) == bit_patterns(want)


BIT_ERRORS = {
    "shift of mismatched dtypes": lambda lax: lax.shift_left(np.ones(2, np.int32), np.ones(2, np.int8)),
    "shift of floats": lambda lax: lax.shift_right_logical(np.ones(2, np.float32), np.ones(2, np.float32)),
    "shift of bools": lambda lax: lax.shift_right_arithmetic(np.ones(2, bool), np.ones(2, bool)),
    "xor of mismatched dtypes": lambda lax: lax.bitwise_xor(np.ones(2, np.int8), np.ones(2, np.int16)),
    "xor of floats": lambda lax: lax.bitwise_xor(np.ones(2, np.float32), np.ones(2, np.float32)),
    "population_count of bools": lambda lax: lax.population_count(np.ones(2, bool)),
    "clz of floats": lambda lax: lax.clz(np.ones(2, np.float32)),
    "bitcast of bools": lambda lax: lax.bitcast_convert_type(np.ones(2, bool), np.uint8),
    "bitcast of complex": lambda lax: lax.bitcast_convert_type(np.ones(2, np.complex64), np.float32),
}


@pytest.mark.parametrize("case", list(BIT_ERRORS))
def test_bit_primitives_of_wrong_dtypes_raise_type_error(impl: Impl, case: str) -> None:
    with pytest.raises(TypeError):
        BIT_ERRORS[case](impl.lax)


def test_bitcast_to_a_wider_dtype_needs_the_pieces_axis(impl: Impl) -> None:
    """Four uint8 make one int32: a last axis of 3 (or a rank-0 operand) is a ValueError."""
    with pytest.raises(ValueError):
        impl.lax.bitcast_convert_type(np.ones(3, np.uint8), np.int32)
    with pytest.raises(ValueError):
        impl.lax.bitcast_convert_type(np.uint8(3), np.int32)


# --- errors --------------------------------------------------------------------------------------


def test_add_of_mismatched_dtypes_raises_type_error(impl: Impl) -> None:
    with pytest.raises(TypeError):
        impl.lax.add(np.ones(3, np.float32), np.ones(3, np.int32))


def test_add_of_mismatched_shapes_raises_type_error(impl: Impl) -> None:
    with pytest.raises(TypeError):
        impl.lax.add(np.ones(3, np.float32), np.ones(4, np.float32))


def test_add_does_not_promote_a_python_int_to_float(impl: Impl) -> None:
    """lax accepts a weak scalar only of the operand's kind: 1.0 with float32, not 1."""
    x = np.ones(3, np.float32)
    assert_dtype(impl.lax.add(x, 1.0), np.dtype("float32"), weak=dr.weak_result("elementwise", x, 1.0))
    with pytest.raises(TypeError):
        impl.lax.add(x, 1)


@pytest.mark.parametrize("prim", ["exp", "sin", "sqrt"])
def test_transcendental_of_integers_raises_type_error(impl: Impl, prim: str) -> None:
    with pytest.raises(TypeError):
        getattr(impl.lax, prim)(np.ones(3, np.int32))


# --- XLA's integer and conversion semantics, where NumPy's differ ---------------------------------

INT_DTYPES = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_division_by_zero_follows_xla(impl: Impl, dtype: str) -> None:
    """x / 0 is -1 (all bits set: an unsigned type's maximum) and x % 0 is x, as XLA defines them;
    NumPy gives 0 for both."""
    dt = np.dtype(dtype)
    x = np.array([5, 0, 7] if dt.kind == "u" else [5, 0, -7], dt)
    zero = np.zeros(3, dt)
    assert_values(impl.lax.div(x, zero), np.full(3, -1).astype(dt), dt)
    assert_values(impl.lax.rem(x, zero), x, dt)


OUT_OF_RANGE = np.array([-1.5, 2.7, 300.0, -300.0, 1e10, -1e10, np.inf, -np.inf, np.nan], np.float32)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_float_to_integer_conversion_saturates(impl: Impl, dtype: str) -> None:
    """Floats become integers as in XLA: truncated toward zero, clamped to the integer type's range,
    and NaN becomes 0 (NumPy's cast leaves all of these undefined)."""
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    want = np.clip(np.trunc(np.nan_to_num(OUT_OF_RANGE.astype(np.float64), nan=0.0)), info.min, info.max)
    got = impl.lax.convert_element_type(OUT_OF_RANGE, dt)
    assert_dtype(got, dt, weak=dr.weak_result("convert"))
    assert_values(got, want.astype(dt), dt)
