"""jax.numpy's ufunc objects against NumPy's: the fourteen functions that are `jnp.ufunc`s (add,
multiply, maximum, logical_and, ...), their methods reduce, accumulate, outer, at and reduceat,
and frompyfunc. Values against NumPy's own ufunc methods; dtypes as JAX gives them (add.reduce
is sum, so small integers widen; the logical ufuncs give bool; the others keep the input's
type), in both x64 modes."""

from __future__ import annotations

import operator

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

BINARY = ["add", "multiply", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
          "logical_and", "logical_or", "logical_xor", "logaddexp", "logaddexp2"]  # fmt: skip
UFUNCS = [*BINARY, "negative"]
LOGICAL = {"logical_and", "logical_or", "logical_xor"}
BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor"}
LOGADDEXP = {"logaddexp", "logaddexp2"}
PLAIN = (*S.INTEGER, np.dtype("float32"), np.dtype("float64"))  # exact sums of small values

# What each ufunc takes here: integers for the bitwise ones, floats for logaddexp (the logical ones
# see complex numbers by their real part in JAX, by their value in NumPy: left out).
DTYPES = {
    "add": S.BOOL + PLAIN, "multiply": S.BOOL + PLAIN, "subtract": PLAIN, "maximum": S.BOOL + PLAIN,
    "minimum": S.BOOL + PLAIN, "bitwise_and": S.BOOL + S.INTEGER, "bitwise_or": S.BOOL + S.INTEGER,
    "bitwise_xor": S.BOOL + S.INTEGER, "logical_and": S.BOOL + PLAIN, "logical_or": S.BOOL + PLAIN,
    "logical_xor": S.BOOL + PLAIN, "logaddexp": S.FLOATING[2:], "logaddexp2": S.FLOATING[2:],
}  # fmt: skip
SMALL_GRID = Domain(-3, 3, grid=0.5)  # sums and products of a dozen stay exact in float32


def draw_operand(data: st.DataObject, name: str, shape, label: str = "x") -> np.ndarray:
    dt = data.draw(S.dtypes(DTYPES[name]), label=f"{label}_dtype")
    return data.draw(S.arrays(dt, shape, SMALL_GRID), label=label)


def oracle_operand(name: str, x: np.ndarray) -> np.ndarray:
    """What NumPy's ufunc is given: the values widened, truth values for the logical ufuncs."""
    return wide(x) != 0 if name in LOGICAL else wide(x)


def atol(name: str) -> float:
    """logaddexp's results near zero are differences of logarithms: absolute error (JAX's
    logaddexp2(-1, -1) is -1e-8)."""
    return 2e-6 if name in LOGADDEXP else 0.0


def elementwise_dtype(name: str, dt: np.dtype, x64: bool) -> np.dtype:
    """The dtype of ufunc(x, x) for x of dtype dt."""
    if name in LOGICAL:
        return np.dtype(bool)
    if name in LOGADDEXP:
        return dr.inexact(dr.canonicalize(dt, x64), x64)
    return dr.canonicalize(dt, x64)


def reduce_dtype(name: str, dt: np.dtype, x64: bool) -> np.dtype:
    """add.reduce is sum and multiply.reduce prod: bools and small integers widen."""
    if name in ("add", "multiply"):
        return dr.sum_dtype(dr.canonicalize(dt, x64), x64)
    return elementwise_dtype(name, dt, x64)


def accumulate_dtype(name: str, dt: np.dtype, x64: bool) -> np.dtype:
    """add.accumulate is cumsum and multiply.accumulate cumprod: bools count as the default int."""
    if name in ("add", "multiply") and dt.kind == "b":
        return dr.default_int(x64)
    return elementwise_dtype(name, dt, x64)


# --- the objects -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", UFUNCS)
def test_the_ufuncs_are_ufunc_objects_like_numpys(impl: Impl, name: str) -> None:
    """Each is a jnp.ufunc, with NumPy's number of inputs and outputs, identity and name."""
    got, want = getattr(impl.numpy, name), getattr(np, name)
    assert isinstance(got, impl.numpy.ufunc), f"jnp.{name} is a {type(got).__name__}, not a jnp.ufunc"
    assert (got.nin, got.nout) == (want.nin, want.nout)
    assert got.identity == want.identity, f"{name}.identity is {got.identity!r}, NumPy's {want.identity!r}"
    assert got.__name__ == name


# --- reduce, accumulate, outer ----------------------------------------------------------------------


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_ufunc_reduce_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_operand(data, name, S.shapes(max_dims=3, min_side=1))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none(), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    show_call(f"jnp.{name}.reduce(x, axis={axis}, keepdims={keepdims})", x=x)
    got = getattr(impl.numpy, name).reduce(x, axis=axis, keepdims=keepdims)
    # NumPy's fold over the raveled array for axis=None (it refuses several axes for subtract).
    operand = oracle_operand(name, x)
    with np.errstate(all="ignore"):
        if axis is None:
            want = getattr(np, name).reduce(operand.reshape(-1), axis=0)
            want = np.reshape(want, (1,) * x.ndim) if keepdims else want
        else:
            want = getattr(np, name).reduce(operand, axis=axis, keepdims=keepdims)
    want_dtype = reduce_dtype(name, x.dtype, x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol(name))


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_ufunc_accumulate_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_operand(data, name, S.shapes(min_dims=1, max_dims=3, min_side=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    show_call(f"jnp.{name}.accumulate(x, axis={axis})", x=x)
    got = getattr(impl.numpy, name).accumulate(x, axis=axis)
    with np.errstate(all="ignore"):
        want = getattr(np, name).accumulate(oracle_operand(name, x), axis=axis)
    want_dtype = accumulate_dtype(name, x.dtype, x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol(name))


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_ufunc_outer_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """The function of every pair: the result's shape is a.shape + b.shape."""
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(DTYPES[name]), label="dtype")
    a = data.draw(S.arrays(dt, S.shapes(max_dims=2, min_side=0, max_side=3), SMALL_GRID), label="a")
    b = data.draw(S.arrays(dt, S.shapes(max_dims=2, min_side=0, max_side=3), SMALL_GRID), label="b")
    show_call(f"jnp.{name}.outer(a, b)", a=a, b=b)
    got = getattr(impl.numpy, name).outer(a, b)
    with np.errstate(all="ignore"):
        want = getattr(np, name).outer(oracle_operand(name, a), oracle_operand(name, b))
    want_dtype = elementwise_dtype(name, dt, x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol(name))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_or", "logical_and"])
def test_ufunc_reduce_takes_where_initial_and_dtype(impl: Impl, name: str) -> None:
    x = np.array([[1, 2, 3], [4, 0, 6]], np.int32)
    mask = np.array([[True, False, True], [True, True, False]])
    ufunc = getattr(impl.numpy, name)
    want = getattr(np, name).reduce(oracle_operand(name, x), where=mask, initial=getattr(np, name).identity or 5)
    got = ufunc.reduce(x, where=mask, initial=getattr(np, name).identity or 5)
    assert_values(got, want, reduce_dtype(name, x.dtype, False))
    got = ufunc.reduce(x, axis=1, initial=7)
    assert_values(got, getattr(np, name).reduce(oracle_operand(name, x), axis=1, initial=7), reduce_dtype(name, x.dtype, False))
    if name in ("add", "multiply", "bitwise_or"):  # JAX 0.10.2's maximum.reduce takes no dtype
        got = ufunc.reduce(x, dtype=np.int16)
        assert_dtype(got, np.dtype("int16"), weak=False)
        assert_values(got, getattr(np, name).reduce(x, dtype=np.int16), np.dtype("int16"))


def test_reduce_of_nothing_is_the_identity_or_an_error(impl: Impl) -> None:
    jnp = impl.numpy
    empty = np.zeros((0, 3), np.float32)
    assert_values(jnp.add.reduce(empty), np.zeros(3), np.dtype("float32"))
    assert_values(jnp.multiply.reduce(empty), np.ones(3), np.dtype("float32"))
    with pytest.raises(ValueError):
        jnp.maximum.reduce(empty)
    with pytest.raises(ValueError):
        jnp.subtract.reduce(empty)


# --- at and reduceat --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "maximum", "minimum", "bitwise_xor", "logical_or"])
@given(data=st.data())
def test_ufunc_at_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """Updates at an index array with repeats: each repeat applies once more, in order."""
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(tuple(d for d in DTYPES[name] if d.kind != "b")), label="dtype")
    a = data.draw(S.arrays(dt, S.shapes(min_dims=1, max_dims=2, min_side=1), SMALL_GRID), label="a")
    n = a.shape[0]
    # At least one index: JAX 0.10.2's generic at fails on an empty one.
    index = data.draw(S.arrays(np.dtype("int32"), (data.draw(st.integers(1, 6), label="k"),), Domain(-n, n - 1)),
                      label="index")  # fmt: skip
    b = data.draw(S.arrays(dt, index.shape + a.shape[1:], SMALL_GRID), label="b")
    show_call(f"jnp.{name}.at(a, index, b, inplace=False)", a=a, index=index, b=b)
    got = getattr(impl.numpy, name).at(a, index, b, inplace=False)
    want = oracle_operand(name, a).copy()
    with np.errstate(all="ignore"):
        getattr(np, name).at(want, index, oracle_operand(name, b))
    want_dtype = elementwise_dtype(name, dt, x64)
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype, atol(name))


def test_ufunc_at_needs_inplace_false_and_takes_a_single_index(impl: Impl) -> None:
    jnp = impl.numpy
    with pytest.raises(NotImplementedError):
        jnp.add.at(jnp.zeros(3), 1, 1.0)
    got = jnp.add.at(np.array([True, False, False]), np.array([1, 1]), True, inplace=False)
    assert_dtype(got, np.dtype(bool), weak=False)
    assert_values(got, np.array([True, True, False]), np.dtype(bool))
    got = jnp.negative.at(np.arange(4.0, dtype=np.float32), 2, inplace=False)
    assert_values(got, np.array([0.0, 1.0, -2.0, 3.0]), np.dtype("float32"))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_or"])
@given(data=st.data())
def test_ufunc_reduceat_matches_numpy(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """A fold over each segment indices[i]:indices[i + 1]; where the next index is not larger,
    the segment is the one element a[indices[i]]."""
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(tuple(d for d in DTYPES[name] if d.kind != "b")), label="dtype")
    a = data.draw(S.arrays(dt, S.shapes(min_dims=1, max_dims=2, min_side=1), SMALL_GRID), label="a")
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    n = a.shape[axis]
    indices = data.draw(S.arrays(np.dtype("int32"), (data.draw(st.integers(1, 5), label="k"),), Domain(0, n - 1)),
                        label="indices")  # fmt: skip
    show_call(f"jnp.{name}.reduceat(a, indices, axis={axis})", a=a, indices=indices)
    got = getattr(impl.numpy, name).reduceat(a, indices, axis=axis)
    with np.errstate(all="ignore"):
        want = getattr(np, name).reduceat(wide(a), indices, axis=axis)
    want_dtype = dr.canonicalize(dt, x64)  # a segment starts as a[indices[i]]: a's own type
    assert_dtype(got, want_dtype, weak=False)
    assert_values(got, want, want_dtype)


# --- frompyfunc ---------------------------------------------------------------------------------------


def twice_minus(a, b):
    return a * 2 - b


@given(data=st.data())
def test_frompyfunc_gives_every_method(impl: Impl, flags, data: st.DataObject) -> None:
    """A ufunc made from a function of two scalars: called on broadcast arrays, and reduced,
    accumulated, applied to pairs, at indices and over segments, all as NumPy's frompyfunc."""
    draw_x64(data, flags)
    f32 = np.dtype("float32")
    x = data.draw(S.arrays(f32, S.shapes(min_dims=1, max_dims=2, min_side=1, max_side=3), SMALL_GRID), label="x")
    y = data.draw(S.arrays(f32, x.shape[-1:], SMALL_GRID), label="y")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    show_call(f"jnp.frompyfunc(twice_minus, nin=2, nout=1) on x, y; axis={axis}", x=x, y=y)
    got_ufunc = impl.numpy.frompyfunc(twice_minus, nin=2, nout=1)
    want_ufunc = np.frompyfunc(twice_minus, 2, 1)
    wx, wy = wide(x), wide(y)
    index = np.array([0, x.shape[0] - 1, 0])
    cases = {
        "call": (got_ufunc(x, y), want_ufunc(wx, wy)),
        "outer": (got_ufunc.outer(y, y), want_ufunc.outer(wy, wy)),
        "reduce": (got_ufunc.reduce(x, axis=axis), want_ufunc.reduce(wx, axis=axis)),
        "reduce keepdims": (got_ufunc.reduce(x, axis=axis, keepdims=True), want_ufunc.reduce(wx, axis=axis, keepdims=True)),
        "accumulate": (got_ufunc.accumulate(x, axis=axis), want_ufunc.accumulate(wx, axis=axis)),
        "reduceat": (got_ufunc.reduceat(x, np.array([0, x.shape[axis] - 1]), axis=axis),
                     want_ufunc.reduceat(wx, np.array([0, x.shape[axis] - 1]), axis=axis)),
    }  # fmt: skip
    at_want = wx.astype(object)
    want_ufunc.at(at_want, index, wy[0])
    cases["at"] = (got_ufunc.at(x, index, y[0], inplace=False), at_want)
    for what, (got, want) in cases.items():
        assert_dtype(got, f32, what, weak=False)
        assert_values(got, np.asarray(want, np.float64), f32)


def test_frompyfunc_with_an_identity_and_two_outputs(impl: Impl) -> None:
    jnp = impl.numpy
    add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    mask = np.array([[True, False, True], [False, True, True]])
    assert_values(add.reduce(x, where=mask), np.add.reduce(x, where=mask), np.dtype("int32"))
    assert_values(add.reduce(np.zeros((0, 2), np.int32)), np.zeros(2), np.dtype("int32"))
    with pytest.raises(ValueError):  # no identity: a where mask needs an initial value
        jnp.frompyfunc(operator.sub, nin=2, nout=1).reduce(x, where=mask)
    split = jnp.frompyfunc(lambda a: (a + 1, a * 2), nin=1, nout=2)
    plus, times = split(x)
    assert_values(plus, x + 1, np.dtype("int32"))
    assert_values(times, x * 2, np.dtype("int32"))
    with pytest.raises(ValueError):  # only binary ufuncs reduce
        split.reduce(x)


def test_ufunc_arguments_jax_does_not_take(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.ones(3, np.float32)
    with pytest.raises(NotImplementedError):
        jnp.add(x, x, out=x)
    with pytest.raises(NotImplementedError):
        jnp.add(x, x, where=x > 0)
    with pytest.raises(ValueError):
        jnp.negative.reduce(x)
    with pytest.raises(ValueError):
        jnp.negative.outer(x, x)
    with pytest.raises(ValueError):  # maximum has no identity: where needs initial
        jnp.maximum.reduce(x, where=np.array([True, False, True]))
    with pytest.raises(ValueError):  # where must be a mask
        jnp.add.reduce(x, where=np.array([1, 0, 1]))
    with pytest.raises(TypeError):
        jnp.add.reduce([1, 2])
