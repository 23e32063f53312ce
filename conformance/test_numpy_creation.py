"""jax.numpy array creation against NumPy: array/asarray/copy, zeros/ones/full and their _like forms
(empty_like too), arange, linspace/logspace/geomspace, eye/identity, fromfunction; the dtype names
(jnp.float32, jnp.bfloat16, jnp.int_, ...) used as `dtype=`, jnp.dtype, finfo/iinfo and the constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, assert_dtype, assert_values, assert_weak, draw_x64, show_call, show_value, ulp_scale, wide
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

DTYPE_NAMES = [d.name for d in S.ALL]


def expected(dtype: np.dtype | None, default: np.dtype, x64: bool) -> np.dtype:
    return default if dtype is None else dr.canonicalize(dtype, x64)


def python_default(value: Any, x64: bool) -> np.dtype:
    """The dtype JAX gives a Python scalar: bool stays bool, the rest take their kind's default."""
    if isinstance(value, bool):
        return np.dtype(bool)
    code = {int: "i*", float: "f*", complex: "c*"}[type(value)]
    return dr.dtype_of(code, x64)


# --- array / asarray -----------------------------------------------------------------------------

KINDS = {"bool": S.BOOL, "int": (np.dtype("int64"),), "float": (np.dtype("float64"),), "complex": (np.dtype("complex128"),)}  # fmt: skip


@pytest.mark.parametrize("function", ["array", "asarray"])
@pytest.mark.parametrize("kind", list(KINDS))
@given(data=st.data())
def test_array_from_python_lists_infers_the_default_dtype(
    impl: Impl, flags, function: str, kind: str, data: st.DataObject
) -> None:
    x64 = draw_x64(data, flags)
    values = data.draw(
        S.arrays(KINDS[kind][0], S.shapes(max_dims=3, min_side=1, max_side=3)), label="x"
    ).tolist()
    show_call(f"jnp.{function}(values)", values=values)
    got = getattr(impl.numpy, function)(values)
    want_dtype = python_default({"bool": True, "int": 0, "float": 0.0, "complex": 0j}[kind], x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("fill", values))
    assert_values(got, np.array(values), want_dtype)


@pytest.mark.parametrize("function", ["array", "asarray"])
@given(data=st.data())
def test_array_from_a_mixed_int_and_float_list_is_float(
    impl: Impl, flags, function: str, data: st.DataObject
) -> None:
    x64 = draw_x64(data, flags)
    values = data.draw(
        st.lists(st.one_of(st.integers(-9, 9), st.floats(-9, 9)), min_size=1, max_size=5), label="values"
    )
    values.append(0.5)  # at least one float
    show_call(f"jnp.{function}(values)", values=values)
    got = getattr(impl.numpy, function)(values)
    assert_dtype(got, dr.default_float(x64), weak=dr.weak_result("fill", values))
    assert_values(got, np.array(values), dr.default_float(x64))


@pytest.mark.parametrize("function", ["array", "asarray"])
@given(data=st.data())
def test_array_with_an_explicit_dtype(impl: Impl, flags, function: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    values = data.draw(S.arrays(np.dtype("int64"), S.shapes(max_side=3), Domain(0, 10)), label="x").tolist()
    dtype = data.draw(S.dtypes(), label="dtype")
    show_call(f"jnp.{function}(values, dtype={show_value(dtype)})", values=values)
    got = getattr(impl.numpy, function)(values, dtype=dtype)
    assert_dtype(got, dr.canonicalize(dtype, x64), weak=dr.weak_result("convert"))
    assert_values(got, np.array(values).astype(dtype), dr.canonicalize(dtype, x64))


@pytest.mark.parametrize("function", ["array", "asarray"])
@given(data=st.data())
def test_array_of_a_numpy_array_keeps_its_canonical_dtype(
    impl: Impl, flags, function: str, data: st.DataObject
) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), label="x")
    show_call(f"jnp.{function}(x)", x=x)
    got = getattr(impl.numpy, function)(x)
    want_dtype = dr.canonicalize(x.dtype, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("fill", x))
    assert_values(got, wide(x), want_dtype)
    assert isinstance(got, impl.numpy.ndarray) and not isinstance(x, impl.numpy.ndarray)


FILLS = st.one_of(st.booleans(), st.integers(0, 9), st.floats(-9, 9), st.complex_numbers(max_magnitude=9))


@given(data=st.data())
def test_copy_keeps_values_dtype_and_weak_type(impl: Impl, flags, data: st.DataObject) -> None:
    """A copy of a NumPy array is strong; of a Python scalar, weak (a bool excepted)."""
    x64 = draw_x64(data, flags)
    x = data.draw(st.one_of(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), FILLS), label="x")
    show_call("jnp.copy(x)", x=x)
    got = impl.numpy.copy(x)
    want_dtype = dr.canonicalize(x.dtype, x64) if isinstance(x, np.ndarray) else python_default(x, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("fill", x))
    assert_values(got, wide(np.asarray(x)), want_dtype)
    assert isinstance(got, impl.numpy.ndarray)


# --- zeros, ones, full and the _like forms ---------------------------------------------------------


@pytest.mark.parametrize("name", ["zeros", "ones"])
@given(data=st.data())
def test_zeros_and_ones(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape = data.draw(st.one_of(S.shapes(min_side=0), st.integers(0, 4)), label="shape")
    dtype = data.draw(S.maybe_dtypes(), label="dtype")
    show_call(f"jnp.{name}({shape!r}, dtype={show_value(dtype)})")
    got = getattr(impl.numpy, name)(shape, dtype=dtype)
    want_dtype = expected(dtype, dr.default_float(x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("creation"))
    assert_values(got, getattr(np, name)(shape), want_dtype)


@given(data=st.data())
def test_full_takes_its_dtype_from_the_fill_value(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    fill = data.draw(FILLS, label="fill_value")
    show_call(f"jnp.full({shape!r}, {fill!r})")
    got = impl.numpy.full(shape, fill)
    want_dtype = python_default(fill, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("fill", fill))
    assert_values(got, np.full(shape, fill), want_dtype)


@given(data=st.data())
def test_full_with_a_typed_fill_or_an_explicit_dtype(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    dtype = data.draw(S.maybe_dtypes(), label="dtype")
    # The fill fits the dtype: converting out-of-range values (or complex to real) is not tested.
    complex_ok = dtype is None or dtype.kind == "c"
    domain = S.Domain(0, 10) if dtype is not None and dtype.kind == "u" else S.DEFAULT
    groups = [S.ALL] if complex_ok else [S.REAL]
    fill = data.draw(S.dtype_and_array(groups, (), domain), label="fill_value")  # a 0-d NumPy array
    show_call(f"jnp.full({shape!r}, fill, dtype={show_value(dtype)})", fill=fill)
    got = impl.numpy.full(shape, fill, dtype=dtype)
    want_dtype = expected(dtype, dr.canonicalize(fill.dtype, x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("convert") if dtype is not None else dr.weak_result("fill", fill))
    with np.errstate(all="ignore"):
        assert_values(got, np.full(shape, wide(fill).astype(want_dtype)), want_dtype)


LIKE = ["zeros_like", "ones_like", "full_like", "empty_like"]


@pytest.mark.parametrize("name", LIKE)
@given(data=st.data())
def test_like_functions_copy_shape_and_dtype(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """The prototype's dtype and shape, unless `dtype=` or `shape=` say otherwise."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), label="x")
    dtype = data.draw(S.maybe_dtypes(), label="dtype")
    shape = data.draw(st.one_of(st.none(), S.shapes(min_side=0)), label="shape")
    fill = (data.draw(st.integers(0, 9), label="fill_value"),) if name == "full_like" else ()
    show_call(f"jnp.{name}(x, {''.join(f'{f!r}, ' for f in fill)}dtype={show_value(dtype)}, shape={shape!r})", x=x)
    got = getattr(impl.numpy, name)(x, *fill, dtype=dtype, shape=shape)
    want_dtype = expected(dtype, dr.canonicalize(x.dtype, x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("convert") if dtype is not None else dr.weak_result("fill", x))
    want_shape = x.shape if shape is None else shape
    if name == "empty_like":  # its values are not specified (JAX's are zeros)
        assert tuple(got.shape) == want_shape, f"shape {got.shape}, expected {want_shape}"
        return
    value = {"zeros_like": 0, "ones_like": 1, "full_like": fill[0] if fill else None}[name]
    assert_values(got, np.full(want_shape, value), want_dtype)


@pytest.mark.parametrize("name", LIKE)
def test_like_functions_of_a_weak_scalar_are_weak(impl: Impl, name: str) -> None:
    """Without a dtype, the result is weakly typed when the input is; with a dtype it is strong."""
    like = getattr(impl.numpy, name)
    fill = (3,) if name == "full_like" else ()
    weak = impl.numpy.asarray(2.0)
    assert_weak(like(weak, *fill), True)
    assert_weak(like(weak, *fill, dtype=np.float32), False)
    assert_weak(like(np.float32(2.0), *fill), False)


# --- arange, linspace, eye -----------------------------------------------------------------------


@given(data=st.data())
def test_arange(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    args = data.draw(S.arange_args(), label="args")
    floats = any(isinstance(a, float) for a in args)
    dtype = data.draw(S.maybe_dtypes(*((S.INEXACT,) if floats else (S.INTEGER, S.INEXACT))), label="dtype")
    if not floats and dtype is not None and dtype.kind == "u":
        args = tuple(abs(a) for a in args)
    show_call(f"jnp.arange({', '.join(map(repr, args))}, dtype={show_value(dtype)})")
    got = impl.numpy.arange(*args, dtype=dtype)
    want_dtype = expected(dtype, dr.default_float(x64) if floats else dr.default_int(x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("creation"))
    assert_values(got, np.arange(*args, dtype=np.float64 if floats else np.int64), want_dtype)


def draw_ranges(data: st.DataObject, domain: Domain) -> tuple[Any, Any, int]:
    """(start, stop, axis) for linspace & co.: two Python floats, or two float64 arrays of one shape
    (a range for each element, laid along the new axis `axis`, which may be negative)."""
    shape = data.draw(st.one_of(st.none(), S.shapes(max_dims=2, max_side=3)), label="bounds shape")
    if shape is None:
        start, stop = (data.draw(S.elements(np.dtype("float64"), domain), label=n) for n in ("start", "stop"))
        return start, stop, 0
    start, stop = (data.draw(S.arrays(np.dtype("float64"), shape, domain), label=n) for n in ("start", "stop"))
    return start, stop, data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")


def largest(*bounds: Any) -> float:
    return max(float(np.max(np.abs(b))) for b in bounds)


def draw_range_options(data: st.DataObject, axis: int) -> dict[str, Any]:
    """num, endpoint, dtype (None or inexact) and the axis, as keyword arguments."""
    return {
        "num": data.draw(st.integers(0, 6), label="num"),
        "endpoint": data.draw(st.booleans(), label="endpoint"),
        "dtype": data.draw(S.maybe_dtypes(S.INEXACT), label="dtype"),
        "axis": axis,
    }


def check_range(impl: Impl, name: str, x64: bool, start: Any, stop: Any, options: dict[str, Any],
                atol: Callable[[np.ndarray, np.dtype], Any]) -> None:  # fmt: skip
    """jnp.<name>(start, stop, **options) against NumPy's (computed in float64), within `atol`."""
    show_call(f"jnp.{name}(start, stop, **options)", start=start, stop=stop, options=options)
    got = getattr(impl.numpy, name)(start, stop, **options)
    want_dtype = expected(options["dtype"], dr.default_float(x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("creation"))
    want = getattr(np, name)(start, stop, **{k: v for k, v in options.items() if k != "dtype"})
    assert_values(got, want, want_dtype, atol=atol(want, want_dtype))


@given(data=st.data())
def test_linspace(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    start, stop, axis = draw_ranges(data, S.GRID)
    options = draw_range_options(data, axis)
    scale = largest(start, stop, 1.0)
    check_range(impl, "linspace", x64, start, stop, options, lambda want, dt: RTOL[dt.name] * scale)


def power_atol(want: np.ndarray, dt: np.dtype, log_base: float, exponents: float) -> np.ndarray:
    """base ** e computed in `dt`: e carries a rounding error of a few ulps of |e| (it comes from a
    linspace, and for geomspace from log10), which grows relatively by ln(base) in the power."""
    return 4 * ulp_scale(dt) * abs(log_base) * (1 + exponents) * np.abs(want)


@given(data=st.data())
def test_logspace(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    start, stop, axis = draw_ranges(data, Domain(-3, 3))
    options = draw_range_options(data, axis)
    base = options["base"] = data.draw(st.sampled_from([10.0, 2.0, 0.5, float(np.e)]), label="base")
    exponents = largest(start, stop)
    check_range(impl, "logspace", x64, start, stop, options,
                lambda want, dt: power_atol(want, dt, np.log(base), exponents))  # fmt: skip


@given(data=st.data())
def test_geomspace(impl: Impl, flags, data: st.DataObject) -> None:
    """Bounds of one sign: JAX gives nan for a zero bound or bounds of opposite signs, where NumPy
    raises or keeps the ends. JAX raises 10 to exponents log10(|bound|): at most 2 in size here."""
    x64 = draw_x64(data, flags)
    start, stop, axis = draw_ranges(data, Domain(0.5, 100))
    sign = data.draw(st.sampled_from([1.0, -1.0]), label="sign")
    options = draw_range_options(data, axis)
    check_range(impl, "geomspace", x64, sign * start, sign * stop, options,
                lambda want, dt: power_atol(want, dt, np.log(10), 2.0))  # fmt: skip


# The integer dtypes of linspace & co.: JAX computes the range in the dtype's inexact type (float32
# here) and casts it, linspace rounding toward -inf first (floor), logspace and geomspace toward 0
# (convert_element_type truncates). So a value a float32 ulp below an integer gives the integer
# below it (10 ** 1.5051 = 31.999998: 31), and an implementation must cast its own float range.
ROUNDING = {"linspace": np.floor, "logspace": np.trunc, "geomspace": np.trunc}


@pytest.mark.parametrize("name", list(ROUNDING))
@given(data=st.data())
def test_an_integer_dtype_casts_the_float_range(impl: Impl, name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([np.dtype("int32"), np.dtype("int16"), np.dtype("uint8")]), label="dtype")
    num, endpoint = data.draw(st.integers(0, 9), label="num"), data.draw(st.booleans(), label="endpoint")
    options: dict[str, Any] = {}
    if name == "linspace":
        low = 0.0 if dtype.kind == "u" else -100.0
        start, stop = (data.draw(st.floats(low, 100.0), label=n) for n in ("start", "stop"))
    elif name == "logspace":
        start, stop = (data.draw(st.floats(0.0, 2.0), label=n) for n in ("start", "stop"))
        options["base"] = data.draw(st.sampled_from([10.0, 2.0, float(np.e)]), label="base")
    else:
        sign = 1.0 if dtype.kind == "u" else data.draw(st.sampled_from([1.0, -1.0]), label="sign")
        start, stop = (sign * data.draw(st.floats(1.0, 100.0), label=n) for n in ("start", "stop"))
    fn = getattr(impl.numpy, name)
    show_call(f"jnp.{name}(start, stop, num, endpoint=endpoint, dtype=dtype, **options)",
              start=start, stop=stop, num=num, endpoint=endpoint, dtype=dtype, options=options)  # fmt: skip
    got = fn(start, stop, num, endpoint=endpoint, dtype=dtype, **options)
    assert_dtype(got, dtype, weak=False)
    floats = np.asarray(fn(start, stop, num, endpoint=endpoint, dtype=np.float32, **options))
    assert_values(got, ROUNDING[name](floats).astype(dtype), dtype)
    # and the float range is NumPy's to an ulp or so: the integers are within 1 of NumPy's, cast alike
    exact = ROUNDING[name](getattr(np, name)(start, stop, num, endpoint=endpoint, **options))
    assert np.all(np.abs(np.asarray(got, np.float64) - exact) <= 1), (np.asarray(got), exact)

@pytest.mark.parametrize(
    ("args", "want"),
    [
        ((np.int8(5),), "int8"),
        ((0, np.int16(5)), "int16"),
        ((np.uint8(2), 5), "uint8"),
        ((np.float16(0), 1, 0.25), "float16"),
        ((np.int64(5),), "int32"),  # canonicalized, x64 being off
        ((5,), "int32"),
        ((0.5, 3), "float32"),
        # JAX's table, not NumPy's (float64): found by mutation testing (numpy.arange_dtype_from_numpy)
        ((np.int32(0), np.float16(3)), "float16"),
    ],
)
def test_arange_takes_the_dtype_of_numpy_scalar_bounds(impl: Impl, args: tuple, want: str) -> None:
    """Without a dtype, arange has its bounds' promoted type (the table, Python scalars weak), so a
    NumPy scalar's type survives; the result is never weakly typed."""
    got = impl.numpy.arange(*args)
    assert_dtype(got, np.dtype(want), weak=dr.weak_result("creation"))
    assert_values(got, np.arange(*(float(a) for a in args)), np.dtype(want))


@pytest.mark.parametrize(("start", "want"), [(np.float16(0), "float16"), (np.int8(0), "float32"), (0, "float32")])
def test_linspace_takes_the_inexact_dtype_of_its_bounds(impl: Impl, start: Any, want: str) -> None:
    got = impl.numpy.linspace(start, 1, 5)
    assert_dtype(got, np.dtype(want), weak=dr.weak_result("creation"))
    assert_values(got, np.linspace(0, 1, 5), np.dtype(want))


@pytest.mark.parametrize("num, endpoint, dtype", [
    (3, True, "int32"), (4, False, "uint8"), (3, True, "float16"), (6, True, None),
    (1, True, None), (1, False, None), (0, True, None), (0, False, None),
])  # fmt: skip
def test_linspace_retstep_is_a_float_or_nan(impl: Impl, x64: bool, num: int, endpoint: bool, dtype: Any) -> None:
    """linspace(..., retstep=True)'s step is in the range's float type (a float for an integer
    dtype: 2.5, not 2) and nan where there is no step (no values, or one with the endpoint): NumPy's
    values, in JAX's dtypes."""
    got, step = impl.numpy.linspace(0, 5, num, endpoint=endpoint, retstep=True, dtype=dtype)
    with np.errstate(all="ignore"):
        want, want_step = np.linspace(0, 5, num, endpoint=endpoint, retstep=True, dtype=dtype)
    # an integer type of up to 32 bits computes in float32, with x64 on too
    step_dtype = dr.dtype_of("f*", x64) if dtype is None else np.dtype(dtype if dtype == "float16" else "float32")
    assert_dtype(step, step_dtype, weak=False)
    assert_values(step, np.asarray(want_step), step_dtype)
    out_dtype = dr.canonicalize(np.dtype(dtype), x64) if dtype else dr.dtype_of("f*", x64)
    assert_values(got, want.astype(out_dtype), out_dtype)


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("fill", [2, 2.5])
def test_like_functions_keep_the_weak_type(impl: Impl, x64: bool, name: str, fill: float) -> None:
    """The *_like of a weak array is weak (same dtype, same kind of typing); with a dtype it is strong."""
    x = impl.numpy.full((2, 3), fill)
    extra = (7,) if name == "full_like" else ()
    got = getattr(impl.numpy, name)(x, *extra)
    want_dtype = dr.dtype_of("i*" if isinstance(fill, int) else "f*", x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("fill", fill))
    assert_values(got, np.full((2, 3), {"zeros_like": 0, "ones_like": 1, "full_like": 7}[name]), want_dtype)
    strong = getattr(impl.numpy, name)(x, *extra, dtype="float32")
    assert_dtype(strong, np.dtype("float32"), weak=dr.weak_result("convert"))


@pytest.mark.parametrize(("fill", "dtype", "want"), [(300, "uint8", 44), (-1, "uint8", 255), (1000, "int8", -24)])
def test_full_wraps_a_python_int_into_its_dtype(impl: Impl, fill: int, dtype: str, want: int) -> None:
    """full(shape, fill, dtype) converts the fill like lax.convert_element_type: ints wrap (300 - 256)."""
    for got in (impl.numpy.full(3, fill, dtype), impl.numpy.full_like(np.zeros(3, dtype), fill)):
        assert_dtype(got, np.dtype(dtype), weak=dr.weak_result("convert"))
        np.testing.assert_array_equal(np.asarray(got), [want] * 3)


@given(data=st.data())
def test_eye(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n = data.draw(st.integers(0, 4), label="N")
    m = data.draw(st.one_of(st.none(), st.integers(0, 4)), label="M")
    k = data.draw(st.integers(-3, 3), label="k")
    dtype = data.draw(S.maybe_dtypes(), label="dtype")
    show_call(f"jnp.eye({n}, {m}, k={k}, dtype={show_value(dtype)}); jnp.identity({n}, dtype={show_value(dtype)})")
    want_dtype = expected(dtype, dr.default_float(x64), x64)
    for got, want in [(impl.numpy.eye(n, m, k=k, dtype=dtype), np.eye(n, m, k=k)),
                      (impl.numpy.identity(n, dtype=dtype), np.identity(n))]:  # fmt: skip
        assert_dtype(got, want_dtype, weak=dr.weak_result("creation"))
        assert_values(got, want, want_dtype)


@given(data=st.data())
def test_fromfunction(impl: Impl, flags, data: st.DataObject) -> None:
    """The function is called once, with one index array per axis, of `dtype` (float by default)."""
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_dims=1, min_side=0), label="shape")
    weights = data.draw(st.lists(st.integers(-3, 3), min_size=len(shape), max_size=len(shape)), label="weights")
    dtype = data.draw(S.maybe_dtypes(S.SIGNED, S.FLOATING), label="dtype")

    def function(*indices: Any) -> Any:
        return sum(w * i for w, i in zip(weights, indices))

    kwargs = {} if dtype is None else {"dtype": dtype}
    show_call("jnp.fromfunction(lambda *i: sum(w * j for w, j in zip(weights, i)), shape, **kwargs)",
              weights=weights, shape=shape, kwargs=kwargs)  # fmt: skip
    got = impl.numpy.fromfunction(function, shape, **kwargs)
    want_dtype = expected(dtype, dr.default_float(x64), x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("creation"))
    assert_values(got, np.fromfunction(function, shape, dtype=np.float64), want_dtype)


# --- dtype names ---------------------------------------------------------------------------------


# jnp's scalar types -> the dtype each stands for: one per dtype, and the aliases (jnp.bool is bool_;
# int_, float_ and complex_ are the 64-bit types, canonicalized when used as a dtype while x64 is off)
TYPE_NAMES = {"bool_" if n == "bool" else n: n for n in DTYPE_NAMES} | {
    "bool": "bool", "int_": "int64", "uint": "uint64", "float_": "float64", "complex_": "complex128",
    "single": "float32", "double": "float64", "csingle": "complex64", "cdouble": "complex128"}  # fmt: skip


@pytest.mark.parametrize("name", list(TYPE_NAMES))
def test_dtype_names_work_as_dtype_arguments(impl: Impl, x64: bool, name: str) -> None:
    """jnp.int8, jnp.bfloat16, ... are accepted wherever a dtype is, and convert when called."""
    jnp_type = getattr(impl.numpy, name)
    assert impl.numpy.dtype(jnp_type) == dr.dtype(TYPE_NAMES[name])  # jnp.dtype is NumPy's: no canonicalizing
    want = dr.canonicalize(TYPE_NAMES[name], x64)
    convert = dr.weak_result("convert")
    assert_dtype(impl.numpy.zeros(2, dtype=jnp_type), want, "zeros(2, dtype=...)", weak=convert)
    assert_dtype(impl.numpy.asarray([1, 0], dtype=jnp_type), want, "asarray([1, 0], dtype=...)", weak=convert)
    assert_dtype(impl.numpy.ones(2, "int8").astype(jnp_type), want, "astype(...)", weak=convert)
    got = jnp_type([1, 0])
    assert_dtype(got, want, f"jnp.{name}([1, 0])", weak=convert)
    assert_values(got, np.array([1, 0]), want)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_is_numpys(impl: Impl, name: str) -> None:
    """jnp.dtype builds NumPy's dtype objects, bfloat16 included, and array dtypes compare to them."""
    assert impl.numpy.dtype(name) == dr.dtype(name)
    assert isinstance(impl.numpy.dtype(name), np.dtype)
    assert impl.numpy.zeros(2, name).dtype == impl.numpy.dtype(dr.canonicalize(name, False))


FINFO = ["bits", "eps", "epsneg", "max", "min", "tiny", "smallest_normal", "resolution", "precision",
         "nmant", "nexp", "maxexp", "minexp", "dtype"]  # fmt: skip


@pytest.mark.parametrize("name", [d.name for d in S.INEXACT])
def test_finfo_matches_numpys(impl: Impl, name: str) -> None:
    """finfo of a type, a dtype or an array: a complex type is described by its real part's."""
    want = ml_dtypes.finfo(dr.dtype(name))  # NumPy's finfo, and bfloat16's
    for arg in (getattr(impl.numpy, name), dr.dtype(name), np.zeros(2, dr.dtype(name))):
        got = impl.numpy.finfo(arg)
        for attr in FINFO:
            assert getattr(got, attr) == getattr(want, attr), f"finfo({arg!r}).{attr}"


@pytest.mark.parametrize("name", [d.name for d in S.INTEGER])
def test_iinfo_matches_numpys(impl: Impl, name: str) -> None:
    want = np.iinfo(dr.dtype(name))
    for arg in (getattr(impl.numpy, name), dr.dtype(name), np.zeros(2, dr.dtype(name))):
        got = impl.numpy.iinfo(arg)
        for attr in ("bits", "min", "max", "dtype"):
            assert getattr(got, attr) == getattr(want, attr), f"iinfo({arg!r}).{attr}"


@pytest.mark.parametrize("name", ["pi", "e", "euler_gamma", "inf", "nan"])
def test_constants_are_numpys_python_floats(impl: Impl, x64: bool, name: str) -> None:
    """So an array of one is a weak default float."""
    value = getattr(impl.numpy, name)
    want = getattr(np, name)
    assert value == want or (np.isnan(value) and np.isnan(want))
    got = impl.numpy.asarray(value)
    assert_dtype(got, dr.default_float(x64), weak=dr.weak_result("fill", want))
    assert_values(got, np.asarray(want), dr.default_float(x64))


# --- the narrow types of ml_dtypes, as dtype names --------------------------------------------------

NARROW_FLOATS = ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                 "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
                 "float4_e2m1fn"]  # fmt: skip
NARROW_INTS = ["int1", "int2", "int4", "uint1", "uint2", "uint4"]


@pytest.mark.parametrize("name", NARROW_FLOATS + NARROW_INTS)
def test_narrow_types_name_ml_dtypes_types(impl: Impl, name: str) -> None:
    """jnp.float8_e4m3fn, jnp.int4, ...: ml_dtypes' types, with their limits, in their places among
    the dtype classes (NumPy itself sees them as opaque). Computing with them is not checked here:
    didax only names them."""
    jnp = impl.numpy
    want = np.dtype(getattr(ml_dtypes, name))
    assert jnp.dtype(getattr(jnp, name)) == want
    assert jnp.issubdtype(getattr(jnp, name), getattr(jnp, name))
    signed = name.startswith("int")
    floating = name.startswith("float")
    classes = {"floating": floating, "inexact": floating, "number": True, "generic": True, "integer": not floating,
               "signedinteger": signed, "unsignedinteger": name.startswith("uint"), "complexfloating": False}  # fmt: skip
    for category, expected in classes.items():
        assert jnp.issubdtype(want, getattr(jnp, category)) == expected, category
    kinds = {"real floating": floating, "integral": not floating, "signed integer": signed, "numeric": True}
    for kind, expected in kinds.items():
        assert jnp.isdtype(want, kind) == expected, kind
    if floating:
        got, limits = jnp.finfo(getattr(jnp, name)), ml_dtypes.finfo(want)
        assert (got.bits, float(got.eps), float(got.max)) == (limits.bits, float(limits.eps), float(limits.max))
    else:
        got, limits = jnp.iinfo(getattr(jnp, name)), ml_dtypes.iinfo(want)
        assert (got.bits, int(got.min), int(got.max)) == (limits.bits, int(limits.min), int(limits.max))


# --- arrays from bytes, text, iterators and DLPack buffers ----------------------------------------


@given(data=st.data())
def test_frombuffer_reads_numpys_bytes(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=1, max_dims=1, min_side=0)), label="x")
    count = data.draw(st.integers(-1, x.size), label="count")
    offset = data.draw(st.integers(0, x.size - max(count, 0)), label="offset") * x.itemsize
    show_call(f"jnp.frombuffer(x.tobytes(), dtype=x.dtype, count={count}, offset={offset})", x=x)
    got = impl.numpy.frombuffer(x.tobytes(), dtype=x.dtype, count=count, offset=offset)
    want = np.frombuffer(x.tobytes(), dtype=x.dtype, count=count, offset=offset)
    want_dtype = dr.canonicalize(x.dtype, x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, wide(want), want_dtype)


def test_frombuffer_fromstring_fromiter_and_from_dlpack(impl: Impl, x64: bool) -> None:
    jnp = impl.numpy
    got = jnp.frombuffer(np.arange(3.0).tobytes())  # dtype=float: the 64-bit float, canonicalized
    assert_dtype(got, dr.canonicalize("float64", x64), weak=False)
    assert_values(got, np.arange(3.0), dr.canonicalize("float64", x64))
    got = jnp.fromstring("1, 2, 3", dtype=np.int16, sep=",")
    assert_dtype(got, np.dtype("int16"), weak=False)
    assert_values(got, np.array([1, 2, 3]), np.dtype("int16"))
    assert_values(jnp.fromstring("1.5 2.5", sep=" "), np.array([1.5, 2.5]), dr.canonicalize("float64", x64))
    with pytest.raises(NotImplementedError):  # iterating is a side effect: JAX refuses it
        jnp.fromiter(iter([1, 2]), dtype=int)
    source = np.arange(5, dtype=np.int16)
    got = jnp.from_dlpack(source)  # (JAX may share the buffer, didax copies it: not compared)
    assert_dtype(got, np.dtype("int16"), weak=False)
    assert_values(got, np.arange(5), np.dtype("int16"))


# --- NumPy's own: the ComplexWarning, printing -------------------------------------------------------


def test_complex_warning_is_numpys_and_complex_to_real_raises_it(impl: Impl) -> None:
    assert impl.numpy.ComplexWarning is np.exceptions.ComplexWarning
    z = impl.numpy.asarray(np.array([1 + 2j], np.complex64))
    with pytest.warns(impl.numpy.ComplexWarning):
        got = impl.lax.convert_element_type(z, np.float32)
    assert_values(got, np.array([1.0]), np.dtype("float32"))


def test_arrays_print_with_numpys_print_options(impl: Impl) -> None:
    """jnp.printoptions and friends are NumPy's; arrays print through NumPy, so they follow them."""
    jnp = impl.numpy
    x = jnp.asarray(np.array([1.23456, 2.0], np.float32))
    before = jnp.get_printoptions()
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
        assert "1.23" in repr(x) and "1.2345" not in repr(x)
    assert jnp.get_printoptions() == before
    jnp.set_printoptions(precision=3)
    try:
        assert "1.235" in str(x)
    finally:
        jnp.set_printoptions(**before)
    # array_repr and array_str are NumPy's functions (which name the array's class in front).
    assert jnp.array_repr(x) == np.array_repr(x) and jnp.array_repr(x).endswith(", dtype=float32)")
    assert jnp.array_str(x, precision=1) == np.array_str(x, precision=1) == "[1.2 2. ]"


# --- a 64-bit dtype asked for while x64 is off ---------------------------------------------------

REQUESTS_64 = {
    "zeros": lambda jnp: jnp.zeros(2, dtype="float64"),
    "arange": lambda jnp: jnp.arange(3, dtype="int64"),
    "asarray": lambda jnp: jnp.asarray([1, 2], dtype="int64"),
    "astype": lambda jnp: jnp.ones(2).astype("complex128"),
    "full": lambda jnp: jnp.full(2, 1.0, dtype="float64"),
    "eye": lambda jnp: jnp.eye(2, dtype="int64"),
    "empty-asarray": lambda jnp: jnp.asarray([], dtype="int64"),
}


@pytest.mark.parametrize("name", list(REQUESTS_64))
def test_a_64_bit_dtype_without_x64_warns_and_gives_32_bits(impl: Impl, name: str) -> None:
    with pytest.warns(UserWarning, match="64|not available"):
        got = REQUESTS_64[name](impl.numpy)
    assert np.dtype(got.dtype).name in ("float32", "int32", "complex64")


# --- objects that convert themselves ---------------------------------------------------------------


class _HasArray:
    """Speaks NumPy's __array__ protocol."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.arange(3, dtype=np.int32)


def test_asarray_takes_objects_with_an_array_method(impl: Impl) -> None:
    got = impl.numpy.asarray(_HasArray())
    assert_dtype(got, np.dtype(np.int32), weak=dr.weak_result("fill", np.int32))
    assert np.asarray(got).tolist() == [0, 1, 2]
    assert np.asarray(impl.numpy.array(_HasArray(), dtype="float32")).dtype == np.float32


def test_asarray_takes_objects_with_a_jax_array_method(impl: Impl) -> None:
    class HasJaxArray:
        def __jax_array__(self) -> Any:
            return impl.numpy.arange(2.0)

    assert np.asarray(impl.numpy.asarray(HasJaxArray())).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError):  # elsewhere it is not converted implicitly
        impl.numpy.sin(HasJaxArray())
    with pytest.raises(TypeError):
        impl.numpy.sin(_HasArray())
