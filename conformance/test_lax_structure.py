"""jax.lax reductions (sum, product, max, min), shape primitives, slicing, padding, dot_general, iota
and cumsum against NumPy; and the error types lax raises for bad axes and shapes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    assert_dtype,
    assert_rearranged,
    assert_values,
    draw_x64,
    assert_weak,
    show_call,
    ulp_scale,
    wide,
)
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]

NO_BOOL = (S.NUMBER,)
ANY = (S.ALL,)


def draw_array(
    data: st.DataObject, x64: bool, groups=ANY, shape=None, domain: Domain = S.DEFAULT
) -> np.ndarray:
    """An array whose dtype is already canonical, so the result dtype is simply the input's."""
    dt = dr.canonicalize(data.draw(S.dtypes(*groups), label="dtype"), x64)
    return data.draw(S.arrays(dt, S.shapes(min_side=0) if shape is None else shape, domain), label="x")


# --- reductions ----------------------------------------------------------------------------------


ON_GRID = Domain(-4, 4, grid=0.5)

# name: (NumPy oracle, dtype groups, shapes, domain). A product reduces at most 9 factors of at most 2
# in size, so that float16 neither overflows nor loses the small ones, whatever the order.
REDUCTIONS = {
    "reduce_sum": (np.sum, NO_BOOL, S.shapes(min_side=0), ON_GRID),
    "reduce_prod": (np.prod, NO_BOOL, S.shapes(min_side=0, max_dims=2, max_side=3), Domain(-2, 2, grid=0.5)),
    "reduce_max": (np.max, ANY, S.shapes(min_side=1), ON_GRID),
    "reduce_min": (np.min, ANY, S.shapes(min_side=1), ON_GRID),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@given(data=st.data())
def test_reductions(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    """A sum or product of no elements is 0 or 1; floats may round at every step, in any order."""
    numpy_fn, groups, shapes, domain = REDUCTIONS[name]
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, groups, shapes, domain)
    axes = data.draw(S.sorted_axes(x.ndim), label="axes")
    show_call(f"lax.{name}(x, {axes})", x=x)
    got = getattr(impl.lax, name)(x, axes)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    want = numpy_fn(wide(x), axis=axes)
    atol = 0.0
    if name in ("reduce_sum", "reduce_prod") and x.dtype.kind in "fc":
        n = math.prod(x.shape[a] for a in axes)
        scale = np.sum(np.abs(wide(x)), axis=axes) if name == "reduce_sum" else np.abs(want)
        atol = n * ulp_scale(x.dtype) * scale
    assert_values(got, want, x.dtype, atol=atol)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, (S.BOOL, S.INTEGER, S.FLOATING), S.shapes(min_dims=1), Domain(-3, 3, grid=1.0))
    axis = data.draw(st.integers(0, x.ndim - 1), label="axis")
    requested = data.draw(st.sampled_from(["int16", "int32", "int64"]), label="index_dtype")
    index_dtype = dr.canonicalize(requested, x64)  # int64 is int32 while x64 is off
    show_call(f"lax.{name}(x, {axis}, {requested!r})", x=x)
    got = getattr(impl.lax, name)(x, axis, requested)
    assert_dtype(got, index_dtype, weak=dr.weak_result("index"))
    assert_values(got, getattr(np, name)(wide(x), axis=axis), index_dtype)


@given(data=st.data())
def test_cumsum(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, NO_BOOL, S.shapes(min_dims=1, min_side=0), Domain(-4, 4, grid=0.5))
    axis = data.draw(st.integers(0, x.ndim - 1), label="axis")
    reverse = data.draw(st.booleans(), label="reverse")
    show_call(f"lax.cumsum(x, axis={axis}, reverse={reverse})", x=x)
    got = impl.lax.cumsum(x, axis=axis, reverse=reverse)
    flip = (lambda a: np.flip(a, axis)) if reverse else (lambda a: a)
    assert_dtype(got, x.dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, flip(np.cumsum(flip(wide(x)), axis=axis)), x.dtype)


# --- shapes --------------------------------------------------------------------------------------


@given(data=st.data())
def test_broadcast_in_dim(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape, target, dims = data.draw(S.broadcast_in_dim_cases(), label="case")
    x = draw_array(data, x64, shape=shape)
    show_call(f"lax.broadcast_in_dim(x, {target}, {dims})", x=x)
    missing = tuple(d for d in range(len(target)) if d not in dims)
    want = np.broadcast_to(np.expand_dims(x, missing), target)
    assert_rearranged(impl.lax.broadcast_in_dim(x, target, dims), want)


@given(data=st.data())
def test_reshape(impl: Impl, flags, data: st.DataObject) -> None:
    """lax.reshape takes the exact new sizes, and optionally the order to read the dimensions in."""
    x64 = draw_x64(data, flags)
    shape, new = data.draw(S.reshapes(minus_one=False), label="shape, new_sizes")
    x = draw_array(data, x64, shape=shape)
    dimensions = data.draw(
        st.one_of(st.none(), st.permutations(range(x.ndim)).map(tuple)), label="dimensions"
    )
    show_call(f"lax.reshape(x, {tuple(new)}, {dimensions})", x=x)
    read = x if dimensions is None else np.transpose(x, dimensions)
    assert_rearranged(impl.lax.reshape(x, tuple(new), dimensions), np.reshape(read, new))


@given(data=st.data())
def test_transpose(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64)
    perm = tuple(data.draw(st.permutations(range(x.ndim)), label="permutation"))
    show_call(f"lax.transpose(x, {perm})", x=x)
    assert_rearranged(impl.lax.transpose(x, perm), np.transpose(x, perm))


@given(data=st.data())
def test_squeeze(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(max_dims=4, max_side=2))
    ones = [i for i, side in enumerate(x.shape) if side == 1]
    dims = data.draw(
        st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]), label="dimensions"
    )
    dims = [S.maybe_negative(data, d, x.ndim) for d in dims]  # lax.squeeze takes negative dimensions
    show_call(f"lax.squeeze(x, {tuple(dims)})", x=x)
    assert_rearranged(impl.lax.squeeze(x, tuple(dims)), np.squeeze(x, axis=tuple(dims)))


@given(data=st.data())
def test_expand_dims(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64)
    count = data.draw(st.integers(1, 2), label="new axes")
    dims = tuple(data.draw(st.permutations(range(x.ndim + count)), label="positions")[:count])
    dims = tuple(S.maybe_negative(data, d, x.ndim + count) for d in dims)  # negative ones count from the end
    show_call(f"lax.expand_dims(x, {dims})", x=x)
    assert_rearranged(impl.lax.expand_dims(x, dims), np.expand_dims(x, dims))


@given(data=st.data())
def test_expand_dims_with_negative_dimensions(impl: Impl, flags, data: st.DataObject) -> None:
    """A negative dimension counts from the end of the result, as in np.expand_dims."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64)
    count = data.draw(st.integers(1, 2), label="new axes")
    out_ndim = x.ndim + count
    positions = data.draw(st.permutations(range(out_ndim)), label="positions")[:count]
    dims = tuple(p - out_ndim if data.draw(st.booleans(), label="negative") else p for p in positions)
    show_call(f"lax.expand_dims(x, {dims})", x=x)
    assert_rearranged(impl.lax.expand_dims(x, dims), np.expand_dims(x, dims))


@pytest.mark.parametrize("dims", [(2, 0), (-1, 0), (0, -1), (-4, -1)], ids=str)
def test_expand_dims_takes_dimensions_in_any_order(impl: Impl, dims: tuple[int, ...]) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_rearranged(impl.lax.expand_dims(x, dims), np.expand_dims(x, dims))


@given(data=st.data())
def test_concatenate(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(data.draw(S.dtypes(), label="dtype"), x64)
    base = list(data.draw(S.shapes(min_dims=1), label="shape"))
    dim = data.draw(st.integers(0, len(base) - 1), label="dimension")
    count = data.draw(st.integers(1, 3), label="how many")
    shapes = [tuple(base[:dim] + [data.draw(st.integers(0, 3))] + base[dim + 1 :]) for _ in range(count)]
    xs = [data.draw(S.arrays(dt, s), label=f"x{i}") for i, s in enumerate(shapes)]
    show_call(f"lax.concatenate(xs, {dim})", xs=xs)
    assert_rearranged(impl.lax.concatenate(xs, dim), np.concatenate(xs, axis=dim))


# --- slicing and padding -------------------------------------------------------------------------


def pad_reference(x: np.ndarray, value: np.ndarray, config: list[tuple[int, int, int]]) -> np.ndarray:
    """lax.pad one axis at a time: spread elements `interior` apart, then add (or, when negative,
    cut) `low` and `high` elements at the two ends."""
    out = x
    for axis, (low, high, interior) in enumerate(config):
        n = out.shape[axis]
        spread_shape = list(out.shape)
        spread_shape[axis] = n + max(n - 1, 0) * interior
        spread = np.full(spread_shape, value, dtype=x.dtype)
        index = [slice(None)] * out.ndim
        index[axis] = slice(None, None, interior + 1)
        spread[tuple(index)] = out
        pad = [(0, 0)] * out.ndim
        pad[axis] = (max(low, 0), max(high, 0))
        padded = np.pad(spread, pad, constant_values=value)
        index[axis] = slice(-min(low, 0), padded.shape[axis] + min(high, 0))
        out = padded[tuple(index)]
    return out


@given(data=st.data())
def test_pad(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(max_dims=2))
    value = data.draw(S.arrays(x.dtype, ()), label="padding_value")
    config = data.draw(S.pad_configs(x.shape), label="padding_config")
    show_call(f"lax.pad(x, value, {config})", x=x, value=value)
    assert_rearranged(impl.lax.pad(x, value, config), pad_reference(x, value, config))


@given(data=st.data())
def test_slice(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(min_dims=1, min_side=0))
    starts = [data.draw(st.integers(0, n), label="start") for n in x.shape]
    limits = [data.draw(st.integers(s, n), label="limit") for s, n in zip(starts, x.shape)]
    strides = data.draw(
        st.one_of(st.none(), st.tuples(*(st.integers(1, 3) for _ in x.shape))), label="strides"
    )
    show_call(f"lax.slice(x, {tuple(starts)}, {tuple(limits)}, {strides})", x=x)
    steps = strides or (1,) * x.ndim
    want = x[tuple(slice(s, e, st_) for s, e, st_ in zip(starts, limits, steps))]
    assert_rearranged(impl.lax.slice(x, starts, limits, strides), want)


def clamp_starts(starts: list[int], sizes: S.Shape, shape: S.Shape) -> list[int]:
    """A negative start counts from the end (once: -n - 1 is still negative), then XLA clamps it so
    that the whole window stays inside the operand."""
    return [min(max(s + n if s < 0 else s, 0), n - k) for s, k, n in zip(starts, sizes, shape)]


@given(data=st.data())
def test_dynamic_slice(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(min_dims=1))
    sizes = tuple(data.draw(st.integers(0, n), label="size") for n in x.shape)
    starts = [data.draw(st.integers(-2 * n - 2, n + 2), label="start") for n in x.shape]  # may need clamping
    show_call(f"lax.dynamic_slice(x, {tuple(starts)}, {sizes})", x=x)
    begin = clamp_starts(starts, sizes, x.shape)
    want = x[tuple(slice(b, b + k) for b, k in zip(begin, sizes))]
    assert_rearranged(impl.lax.dynamic_slice(x, starts, sizes), want)


@given(data=st.data())
def test_dynamic_slice_counts_negative_starts_from_the_end(impl: Impl, flags, data: st.DataObject) -> None:
    """A negative start index counts from the end of its dimension, then the start is clamped; the
    same for starts held in integer scalar arrays."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(min_dims=1))
    sizes = tuple(data.draw(st.integers(1, n), label="size") for n in x.shape)  # not empty
    starts = [data.draw(st.integers(-n - 2, n), label="start") for n in x.shape]
    in_arrays = data.draw(st.booleans(), label="starts as int32 scalars")
    given_starts = [np.int32(s) for s in starts] if in_arrays else starts
    show_call(f"lax.dynamic_slice(x, {given_starts!r}, {sizes})", x=x)
    begin = clamp_starts(starts, sizes, x.shape)  # counts a negative start from the end, then clamps
    want = x[tuple(slice(b, b + k) for b, k in zip(begin, sizes))]
    assert_rearranged(impl.lax.dynamic_slice(x, given_starts, sizes), want)


@pytest.mark.parametrize("start", [-2, np.int32(-2), -9, np.int32(-9)], ids=repr)
def test_dynamic_slice_with_a_negative_start(impl: Impl, start: int) -> None:
    """-2 starts two from the end; -9 counts from the end to -4, which is clamped to 0."""
    want = [3, 4] if start == -2 else [0, 1]
    assert np.asarray(impl.lax.dynamic_slice(np.arange(5, dtype=np.int32), (start,), (2,))).tolist() == want


def test_dynamic_update_slice_leaves_its_operand_unchanged(impl: Impl) -> None:
    before = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = impl.numpy.asarray(before)
    impl.lax.dynamic_update_slice(x, np.zeros((1, 2), np.float32), (1, 1))
    np.testing.assert_array_equal(np.asarray(x), before)


@given(data=st.data())
def test_dynamic_update_slice(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, x64, shape=S.shapes(min_dims=1))
    update = data.draw(S.arrays(x.dtype, st.tuples(*(st.integers(0, n) for n in x.shape))), label="update")
    starts = [data.draw(st.integers(-2 * n - 2, n + 2), label="start") for n in x.shape]
    show_call(f"lax.dynamic_update_slice(x, update, {tuple(starts)})", x=x, update=update)
    begin = clamp_starts(starts, update.shape, x.shape)
    want = x.copy()
    want[tuple(slice(b, b + k) for b, k in zip(begin, update.shape))] = update
    assert_rearranged(impl.lax.dynamic_update_slice(x, update, starts), want)


# --- dot_general, iota ---------------------------------------------------------------------------


@given(data=st.data())
def test_dot_general(impl: Impl, flags, data: st.DataObject) -> None:
    """Output dimensions: batch, then the lhs's free ones, then the rhs's."""
    x64 = draw_x64(data, flags)
    lhs_shape, rhs_shape, numbers, formula = data.draw(S.dot_general_cases(), label="case")
    dt = dr.canonicalize(data.draw(S.dtypes(), label="dtype"), x64)
    lhs = data.draw(S.arrays(dt, lhs_shape, Domain(-5, 5)), label="lhs")
    rhs = data.draw(S.arrays(dt, rhs_shape, Domain(-5, 5)), label="rhs")
    show_call(f"lax.dot_general(lhs, rhs, {numbers})  # einsum {formula!r}", lhs=lhs, rhs=rhs)
    got = impl.lax.dot_general(lhs, rhs, numbers)
    assert_dtype(got, dt, weak=dr.weak_result("elementwise", lhs, rhs, x64=True))
    want = np.einsum(formula, wide(lhs), wide(rhs))
    atol = 0.0
    if dt.kind in "fc":
        k = math.prod(lhs_shape[i] for i in numbers[0][0])
        atol = max(k, 1) * ulp_scale(dt) * np.einsum(formula, np.abs(wide(lhs)), np.abs(wide(rhs)))
    assert_values(got, want, dt, atol=atol)


MATMUL = (((1,), (0,)), ((), ()))


@pytest.mark.parametrize(
    ("lhs_dtype", "rhs_dtype", "preferred", "x64", "want"),
    [
        # No promotion: the operand type of higher precision wins, as in XLA (bits, then signedness).
        ("uint32", "int8", None, False, "uint32"),
        ("int8", "uint32", None, False, "uint32"),
        ("int32", "uint32", None, False, "int32"),
        ("bool", "int8", None, False, "int8"),
        ("int32", "float16", None, False, "float16"),
        ("float32", "complex64", None, False, "complex64"),
        # preferred_element_type is canonicalized like any requested dtype: int64 is int32 without x64.
        ("int8", "int8", "int64", False, "int32"),
        ("int8", "int8", "int64", True, "int64"),
        ("int8", "int8", "float32", False, "float32"),
        ("float16", "float16", "float64", False, "float32"),
    ],
)
def test_dot_general_result_dtype(
    impl: Impl, flags, lhs_dtype: str, rhs_dtype: str, preferred: str | None, x64: bool, want: str
) -> None:
    flags("jax_enable_x64", x64)
    lhs = np.array([[1, 2, 0], [0, 1, 1]], lhs_dtype)
    rhs = np.array([[1, 0], [1, 1], [0, 1]], rhs_dtype)
    got = impl.lax.dot_general(lhs, rhs, MATMUL, preferred_element_type=preferred)
    assert_dtype(got, np.dtype(want), weak=dr.weak_result("convert"))
    assert_values(got, np.einsum("ij,jk->ik", wide(lhs), wide(rhs)), np.dtype(want))


def test_dot_general_converts_operands_to_the_result_type(impl: Impl) -> None:
    """uint32 with int8: the int8 -1 becomes the uint32 2**32 - 1, and the sum wraps modulo 2**32."""
    lhs = np.array([[1, 2]], np.uint32)
    rhs = np.array([[-1], [3]], np.int8)
    got = impl.lax.dot_general(lhs, rhs, MATMUL)
    assert_dtype(got, np.dtype("uint32"), weak=dr.weak_result("elementwise", np.uint32))
    np.testing.assert_array_equal(np.asarray(got), [[(2**32 - 1 + 6) % 2**32]])


def test_dot_general_refuses_a_narrower_integer_preferred_type(impl: Impl) -> None:
    x = np.ones((2, 2), np.int32)
    with pytest.raises(TypeError):
        impl.lax.dot_general(x, x, MATMUL, preferred_element_type=np.int8)


@given(data=st.data())
def test_iota(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.NUMBER), label="dtype")
    size = data.draw(st.integers(0, 6), label="size")
    show_call(f"lax.iota({dt.name!r}, {size})")
    got = impl.lax.iota(dt, size)
    assert_dtype(got, dr.canonicalize(dt, x64), weak=dr.weak_result("index"))
    assert_values(got, np.arange(size), dr.canonicalize(dt, x64))


def test_iota_is_strongly_typed(impl: Impl) -> None:
    assert_weak(impl.lax.iota(np.int32, 3), False)
    assert_weak(impl.lax.broadcasted_iota(np.float32, (2, 3), 1), False)


def test_weak_types_of_lax_results(impl: Impl) -> None:
    """A lax result is weakly typed only when every operand is: a typed array and a Python scalar
    give a strong result, reductions keep their operand's weak type, and convert_element_type
    gives a strong one."""
    weak_scalar, weak_vector = impl.numpy.asarray(2.0), impl.numpy.full((3,), 2.0)
    assert_weak(weak_scalar, True)
    assert_weak(weak_vector, True)
    assert_weak(impl.lax.add(np.ones(3, np.float32), 1.0), False)
    assert_weak(impl.lax.add(weak_scalar, 1.0), True)
    assert_weak(impl.lax.reduce_sum(weak_vector, (0,)), True)
    assert_weak(impl.lax.reduce_max(weak_vector, (0,)), True)
    assert_weak(impl.lax.convert_element_type(weak_scalar, np.float32), False)


# --- errors: JAX's exception types (messages are not compared) ------------------------------------

BAD_CALLS = {
    "reduce_sum axis out of range": (ValueError, lambda lax, x: lax.reduce_sum(x, (2,))),
    "reduce_max axis out of range": (ValueError, lambda lax, x: lax.reduce_max(x, (5,))),
    "reduce_sum negative axis": (ValueError, lambda lax, x: lax.reduce_sum(x, (-1,))),
    "argmax axis out of range": (ValueError, lambda lax, x: lax.argmax(x, 2, np.int32)),
    "cumsum axis out of range": (ValueError, lambda lax, x: lax.cumsum(x, axis=2)),
    "squeeze a dimension of size 3": (ValueError, lambda lax, x: lax.squeeze(x, (1,))),
    "transpose by a non-permutation": (TypeError, lambda lax, x: lax.transpose(x, (0, 0))),
    "concatenate mismatched shapes": (TypeError, lambda lax, x: lax.concatenate([x, x.T], 0)),
    "broadcast_in_dim to a wrong size": (TypeError, lambda lax, x: lax.broadcast_in_dim(x, (4, 4), (0, 1))),
    "slice past the end": (TypeError, lambda lax, x: lax.slice(x, (0, 0), (2, 5))),
    "expand_dims position out of range": (ValueError, lambda lax, x: lax.expand_dims(x, (3,))),
    "sort dimension out of range": (ValueError, lambda lax, x: lax.sort(x, dimension=2)),
    "dot_general contracting sizes differ": (
        TypeError,
        lambda lax, x: lax.dot_general(x, x, (((1,), (0,)), ((), ()))),
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_arguments_raise_jaxs_error_type(impl: Impl, case: str) -> None:
    error, call = BAD_CALLS[case]
    x = np.ones((2, 3), np.float32)
    with pytest.raises(error):
        call(impl.lax, x)


# --- axes: lax takes no negative axis (but squeeze, expand_dims and sort do), nor one out of range ---

# name -> (call with axis `a`, the error class JAX raises for a negative axis, for one out of range)
LAX_AXIS_CALLS = {
    "reduce_sum": (lambda lax, x, a: lax.reduce_sum(x, (a,)), ValueError, ValueError),
    "reduce_prod": (lambda lax, x, a: lax.reduce_prod(x, (a,)), ValueError, ValueError),
    "reduce_max": (lambda lax, x, a: lax.reduce_max(x, (a,)), ValueError, ValueError),
    "reduce_min": (lambda lax, x, a: lax.reduce_min(x, (a,)), ValueError, ValueError),
    "argmax": (lambda lax, x, a: lax.argmax(x, a, np.int32), ValueError, ValueError),
    "argmin": (lambda lax, x, a: lax.argmin(x, a, np.int32), ValueError, ValueError),
    "cumsum": (lambda lax, x, a: lax.cumsum(x, axis=a), ValueError, ValueError),
    "cumprod": (lambda lax, x, a: lax.cumprod(x, axis=a), ValueError, ValueError),
    "cummax": (lambda lax, x, a: lax.cummax(x, axis=a), ValueError, ValueError),
    "concatenate": (lambda lax, x, a: lax.concatenate([x, x], a), TypeError, TypeError),
    "rev": (lambda lax, x, a: lax.rev(x, (a,)), TypeError, TypeError),
    "squeeze": (lambda lax, x, a: lax.squeeze(x, (a,)), None, ValueError),
    "sort": (lambda lax, x, a: lax.sort(x, dimension=a), None, ValueError),
}


@pytest.mark.parametrize("name", list(LAX_AXIS_CALLS))
@given(data=st.data())
def test_negative_or_out_of_range_lax_axis_raises(impl: Impl, name: str, data: st.DataObject) -> None:
    call, negative_error, out_error = LAX_AXIS_CALLS[name]
    shape = data.draw(S.shapes(min_dims=1, max_side=3), label="shape")
    if name == "squeeze":
        shape = (1,) * len(shape)
    x = np.ones(shape, np.float32)
    ndim = x.ndim
    negative = st.integers(-ndim, -1) if negative_error else st.nothing()
    axis = data.draw(st.one_of(negative, S.out_of_range_axes(ndim)), label="axis")
    error = out_error if not -ndim <= axis < ndim else negative_error
    show_call(f"lax.{name}(x, ... {axis} ...)", x=x)
    with pytest.raises(error):
        call(impl.lax, x, axis)
