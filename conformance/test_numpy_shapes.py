"""jax.numpy products, shape manipulation, basic indexing (with s_, index_exp and newaxis) and the
array's own methods, against NumPy.

Shape functions get the implementation's arrays: jnp.reshape & co. hand a NumPy input back to NumPy's
own method (so the result is a NumPy array), a quirk that this suite does not ask others to copy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    as_operand,
    assert_dtype,
    assert_rearranged,
    assert_values,
    draw_x64,
    assert_weak,
    show_call,
    ulp_scale,
)
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]


def draw_operands(data: st.DataObject, shapes: tuple[S.Shape, ...]) -> list[np.ndarray]:
    return [
        data.draw(S.dtype_and_array([S.ALL], shape, S.SMALL), label=f"x{i}") for i, shape in enumerate(shapes)
    ]


# --- dot, matmul, @ --------------------------------------------------------------------------------


def check_product(got, a: np.ndarray, b: np.ndarray, numpy_fn, x64: bool) -> None:
    want_dtype = dr.promote(a.dtype, b.dtype, x64=x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", a, b, x64=x64))
    wa, wb = as_operand(a, want_dtype), as_operand(b, want_dtype)
    want = numpy_fn(wa, wb)
    atol = 0.0
    if want_dtype.kind in "fc":  # k products summed: error up to about k * eps * (|a| . |b|)
        k = a.shape[-1] if a.ndim and b.ndim else 1
        atol = k * ulp_scale(want_dtype) * numpy_fn(np.abs(wa), np.abs(wb))
    assert_values(got, want, want_dtype, atol=atol)


@given(data=st.data())
def test_dot(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    a, b = draw_operands(data, data.draw(S.dot_shapes(), label="shapes"))
    show_call("jnp.dot(a, b)", a=a, b=b)
    check_product(impl.numpy.dot(a, b), a, b, np.dot, x64)


@pytest.mark.parametrize("form", ["jnp.matmul(a, b)", "a @ b"])
@given(data=st.data())
def test_matmul(impl: Impl, flags, form: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    a, b = draw_operands(data, data.draw(S.matmul_shapes(), label="shapes"))
    show_call(form, a=a, b=b)
    got = impl.numpy.matmul(a, b) if form.startswith("jnp") else impl.numpy.asarray(a) @ impl.numpy.asarray(b)
    check_product(got, a, b, np.matmul, x64)


# --- reshape and friends -------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["function", "method"])
@given(data=st.data())
def test_reshape(impl: Impl, flags, form: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape, new = data.draw(S.reshapes(minus_one=True), label="shape, newshape")
    x = data.draw(S.dtype_and_array([S.ALL], shape), label="x")
    call = f"jnp.reshape(a, {new})" if form == "function" else f"a.reshape({new})"
    show_call(f"a = jnp.asarray(x); {call}", x=x)
    a = impl.numpy.asarray(x)
    got = impl.numpy.reshape(a, new) if form == "function" else a.reshape(new)
    assert_rearranged(got, np.reshape(x, new), x64=x64)


@given(data=st.data())
def test_transpose(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), label="x")
    axes = data.draw(st.one_of(st.none(), st.permutations(range(x.ndim)).map(tuple)), label="axes")
    show_call(f"jnp.transpose(jnp.asarray(x), {axes})", x=x)
    assert_rearranged(impl.numpy.transpose(impl.numpy.asarray(x), axes), np.transpose(x, axes), x64=x64)


@given(data=st.data())
def test_permute_dims_and_matrix_transpose(impl: Impl, flags, data: st.DataObject) -> None:
    """permute_dims takes a permutation of (0, ..., ndim - 1): JAX refuses negative axes there."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=2, min_side=0)), label="x")
    axes = tuple(data.draw(st.permutations(range(x.ndim)), label="axes"))
    show_call(f"jnp.permute_dims(x, {axes}); jnp.matrix_transpose(x)", x=x)
    assert_rearranged(impl.numpy.permute_dims(x, axes), np.permute_dims(x, axes), x64=x64)
    assert_rearranged(impl.numpy.matrix_transpose(x), np.matrix_transpose(x), x64=x64)


@given(data=st.data())
def test_swapaxes(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=1)), label="x")
    axis = st.integers(-x.ndim, x.ndim - 1)
    a1, a2 = data.draw(axis, label="axis1"), data.draw(axis, label="axis2")
    show_call(f"jnp.swapaxes(jnp.asarray(x), {a1}, {a2})", x=x)
    assert_rearranged(impl.numpy.swapaxes(impl.numpy.asarray(x), a1, a2), np.swapaxes(x, a1, a2), x64=x64)


@given(data=st.data())
def test_moveaxis(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=1)), label="x")
    n = x.ndim
    count = data.draw(st.integers(1, n), label="how many axes")
    source = data.draw(st.permutations(range(n)), label="source")[:count]
    dest = data.draw(st.permutations(range(n)), label="destination")[:count]
    source = [S.maybe_negative(data, a, n) for a in source]  # some negative
    dest = [S.maybe_negative(data, a, n) for a in dest]
    src, dst = (source[0], dest[0]) if count == 1 else (tuple(source), tuple(dest))
    show_call(f"jnp.moveaxis(jnp.asarray(x), {src}, {dst})", x=x)
    assert_rearranged(impl.numpy.moveaxis(impl.numpy.asarray(x), src, dst), np.moveaxis(x, src, dst), x64=x64)


@given(data=st.data())
def test_rollaxis(impl: Impl, flags, data: st.DataObject) -> None:
    """The axis goes before position `start` of the original order; start may be ndim (the end)."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=1)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    start = data.draw(st.integers(-x.ndim, x.ndim), label="start")
    show_call(f"jnp.rollaxis(x, {axis}, {start})", x=x)
    assert_rearranged(impl.numpy.rollaxis(x, axis, start), np.rollaxis(x, axis, start), x64=x64)


@given(data=st.data())
def test_squeeze(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(max_dims=4, max_side=2)), label="x")
    ones = [i for i, side in enumerate(x.shape) if side == 1]
    chosen = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]), label="axes")
    chosen = [S.maybe_negative(data, a, x.ndim) for a in chosen]
    axis = data.draw(st.sampled_from([None, tuple(chosen)] + ([chosen[0]] if chosen else [])))
    show_call(f"jnp.squeeze(jnp.asarray(x), axis={axis})", x=x)
    assert_rearranged(impl.numpy.squeeze(impl.numpy.asarray(x), axis=axis), np.squeeze(x, axis=axis), x64=x64)


@given(data=st.data())
def test_expand_dims(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), label="x")
    count = data.draw(st.integers(1, 2), label="new axes")
    out_ndim = x.ndim + count
    positions = data.draw(st.lists(st.integers(0, out_ndim - 1), min_size=count, max_size=count, unique=True))
    positions = [p - out_ndim if data.draw(st.booleans()) else p for p in positions]
    axis = positions[0] if count == 1 else tuple(positions)
    show_call(f"jnp.expand_dims(jnp.asarray(x), {axis})", x=x)
    assert_rearranged(impl.numpy.expand_dims(impl.numpy.asarray(x), axis), np.expand_dims(x, axis), x64=x64)


def check_joined(got, numpy_fn, xs: list[np.ndarray], axis: int, x64: bool) -> None:
    """A result of joining ``xs`` has their promoted dtype and NumPy's values, as that dtype."""
    want_dtype = dr.promote(*(x.dtype for x in xs), x64=x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", *xs, x64=x64))
    assert_values(got, numpy_fn([as_operand(x, want_dtype) for x in xs], axis=axis), want_dtype)


@pytest.mark.parametrize("name", ["concatenate", "concat"])
@given(data=st.data())
def test_concatenate_promotes_like_the_table(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    base = list(data.draw(S.shapes(min_dims=1), label="shape"))
    axis = data.draw(st.integers(-len(base), len(base) - 1), label="axis")
    count = data.draw(st.integers(1, 3), label="how many")
    shapes = [tuple(base[:axis % len(base)] + [data.draw(st.integers(0, 3))] + base[axis % len(base) + 1:])
              for _ in range(count)]  # fmt: skip
    xs = draw_operands(data, tuple(shapes))
    show_call(f"jnp.{name}(xs, axis={axis})", xs=xs)
    check_joined(getattr(impl.numpy, name)(xs, axis=axis), np.concatenate, xs, axis, x64)


@given(data=st.data())
def test_stack_promotes_like_the_table(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_side=0), label="shape")
    count = data.draw(st.integers(1, 3), label="how many")
    xs = draw_operands(data, (shape,) * count)
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    show_call(f"jnp.stack(xs, axis={axis})", xs=xs)
    check_joined(impl.numpy.stack(xs, axis=axis), np.stack, xs, axis, x64)


# --- basic indexing --------------------------------------------------------------------------------


@given(data=st.data())
def test_basic_indexing(impl: Impl, flags, data: st.DataObject) -> None:
    """Integers (in bounds, maybe negative), slices with steps, None and Ellipsis."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=1)), label="x")
    index = data.draw(hnp.basic_indices(x.shape, allow_newaxis=True, allow_ellipsis=True), label="index")
    show_call(f"jnp.asarray(x)[{index!r}]", x=x)
    assert_rearranged(impl.numpy.asarray(x)[index], x[index], x64=x64)


@given(data=st.data())
def test_index_helpers_build_numpys_indices(impl: Impl, flags, data: st.DataObject) -> None:
    """jnp.s_ and jnp.index_exp build the same index as NumPy's (index_exp always a tuple), which
    then indexes alike; jnp.newaxis is None."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=1)), label="x")
    index = data.draw(hnp.basic_indices(x.shape, allow_newaxis=True, allow_ellipsis=True), label="index")
    jnp = impl.numpy
    assert jnp.newaxis is None
    assert jnp.s_[index] == np.s_[index]
    assert jnp.index_exp[index] == np.index_exp[index]
    show_call(f"jnp.asarray(x)[jnp.index_exp[{index!r}]][jnp.newaxis]", x=x)
    assert_rearranged(jnp.asarray(x)[jnp.index_exp[index]][jnp.newaxis], x[index][np.newaxis], x64=x64)


@given(data=st.data())
def test_indexing_with_integer_scalar_arrays(impl: Impl, flags, data: st.DataObject) -> None:
    """An integer held in an array indexes like the integer: a negative one counts from the end."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_dims=1, min_side=1)), label="x")
    i = data.draw(st.integers(-x.shape[0], x.shape[0] - 1), label="i")
    show_call(f"jnp.asarray(x)[jnp.asarray({i})]", x=x)
    assert_rearranged(impl.numpy.asarray(x)[impl.numpy.asarray(i)], x[i], x64=x64)


# --- the array's own attributes and methods ------------------------------------------------------


@given(data=st.data())
def test_array_attributes(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0)), label="x")
    show_call("a = jnp.asarray(x); a.shape, a.ndim, a.dtype, a.T", x=x)
    a = impl.numpy.asarray(x)
    assert tuple(a.shape) == x.shape
    assert a.ndim == x.ndim
    assert np.dtype(a.dtype) == dr.canonicalize(x.dtype, x64)
    assert_rearranged(a.T, x.T, x64=x64)


@pytest.mark.parametrize("form", ["method", "function"])
@given(data=st.data())
def test_astype(impl: Impl, flags, form: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.ALL], S.shapes(min_side=0), Domain(0, 10)), label="x")
    dtype = data.draw(S.dtypes(), label="dtype")
    assume(x.dtype.kind != "c" or dtype.kind == "c")  # complex -> real drops the imaginary part: not tested
    if form == "method":
        show_call(f"jnp.asarray(x).astype({dtype.name!r})", x=x)
        got = impl.numpy.asarray(x).astype(dtype)
    else:
        show_call(f"jnp.astype(x, {dtype.name!r})", x=x)
        got = impl.numpy.astype(x, dtype)
    want_dtype = dr.canonicalize(dtype, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("convert"))
    assert_values(got, x.astype(want_dtype), want_dtype)


def test_astype_gives_a_strongly_typed_result(impl: Impl) -> None:
    weak = impl.numpy.asarray(2.0)
    assert_weak(weak.astype(np.float32), False)
    assert_weak(weak.astype(np.int32), False)


# --- axes out of range ---------------------------------------------------------------------------

# NumPy raises np.exceptions.AxisError, a subclass of both ValueError and IndexError; JAX raises
# one or the other depending on the function (IndexError from swapaxes), so either is JAX's behaviour.
AXIS_ERROR = (ValueError, IndexError)

# name -> call with an axis `a` that is out of range for x (expand_dims and stack: for the result)
SHAPE_AXIS_CALLS = {
    "concatenate": lambda jnp, x, a: jnp.concatenate([x, x], axis=a),
    "stack": lambda jnp, x, a: jnp.stack([x, x], axis=a + (1 if a >= 0 else -1)),
    "expand_dims": lambda jnp, x, a: jnp.expand_dims(x, a + (1 if a >= 0 else -1)),
    "squeeze": lambda jnp, x, a: jnp.squeeze(x, axis=a),
    "moveaxis source": lambda jnp, x, a: jnp.moveaxis(x, a, 0),
    "moveaxis destination": lambda jnp, x, a: jnp.moveaxis(x, 0, a),
    "swapaxes": lambda jnp, x, a: jnp.swapaxes(x, 0, a),
    "rollaxis axis": lambda jnp, x, a: jnp.rollaxis(x, a),
    "rollaxis start": lambda jnp, x, a: jnp.rollaxis(x, 0, a + (1 if a >= 0 else 0)),  # start may be ndim
    "concat": lambda jnp, x, a: jnp.concat([x, x], axis=a),
    "take": lambda jnp, x, a: jnp.take(x, np.array([0]), axis=a),
}


@pytest.mark.parametrize("name", list(SHAPE_AXIS_CALLS))
@given(data=st.data())
def test_out_of_range_axis_raises(impl: Impl, name: str, data: st.DataObject) -> None:
    x = data.draw(S.arrays(np.dtype("float32"), S.shapes(min_dims=1, max_side=1)), label="x")
    axis = data.draw(S.out_of_range_axes(x.ndim), label="axis")
    show_call(f"{name} of x with axis {axis}", x=x)
    with pytest.raises(AXIS_ERROR):
        SHAPE_AXIS_CALLS[name](impl.numpy, x, axis)
