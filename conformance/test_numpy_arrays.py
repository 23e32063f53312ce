"""jax.numpy array manipulation, structure, sorting, searching, set operations and comparisons,
against NumPy: values and dtypes (weak types where JAX keeps them), in both x64 modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import (
    RTOL,
    as_operand,
    assert_dtype,
    assert_rearranged,
    assert_values,
    draw_x64,
    assert_weak,
    show_call,
    to_numpy,
    wide,
)
from conformance.impl import Impl
from conformance.missing import Namespace
from conformance.strategies import Domain
from conformance.test_numpy_math import _with_nans as with_nans

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

ORDERED = S.REAL  # sorting and comparisons: complex numbers too in JAX, but NumPy orders them alike
SMALL_INTS = Domain(-4, 4, grid=1.0)


def draw_array(data: st.DataObject, groups=(S.ALL,), shape=None, domain: Domain = S.DEFAULT, label="x"):
    return data.draw(S.dtype_and_array(list(groups), S.shapes() if shape is None else shape, domain), label=label)


def assert_all_rearranged(got, want, x64: bool) -> None:
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for g, w in zip(got, want):
        assert_rearranged(g, w, x64)


def canonical_int(x64: bool) -> np.dtype:
    return dr.dtype_of("i*", x64)


def as_index(arrays, x64: bool) -> list[np.ndarray]:
    """NumPy's index arrays (intp) as JAX's: the default int."""
    return [a.astype(canonical_int(x64)) for a in arrays]


# --- ranks, splitting, stacking ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@given(data=st.data())
def test_atleast_nd(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=0, max_dims=4))
    show_call(f"jnp.{name}(x)", x=x)
    assert_rearranged(getattr(impl.numpy, name)(x), getattr(np, name)(x), x64)


def test_atleast_1d_keeps_the_weak_type(impl: Impl) -> None:
    got = impl.numpy.atleast_1d(2.0)
    assert got.shape == (1,)
    assert_weak(got, True)
    pair = impl.numpy.atleast_2d(1.0, np.arange(3))
    assert [p.shape for p in pair] == [(1, 1), (1, 3)]


@pytest.mark.parametrize(("value", "shape", "dtype", "weak"), [
    ("jnp.ones((2, 3))", (2, 3), "float32", False),
    ("2.5", (), "float32", True),
    ("7", (), "int32", True),
    ("np.arange(4, dtype=np.int8)", (4,), "int8", False),
    ("jnp.asarray([True, False])", (2,), "bool", False),
])  # fmt: skip
def test_typeof_is_the_type_of_a_value(impl: Impl, value: str, shape: tuple, dtype: str, weak: bool) -> None:
    """``jax.typeof``: shape, dtype and weak type, printed as JAX prints a type (``float32[2,3]``)."""
    jax = Namespace(impl.module, "jax")
    show_call(f"jax.typeof({value})")
    got = jax.typeof(eval(value, {"jnp": impl.numpy, "np": np}))  # the suite's own text
    assert (got.shape, np.dtype(got.dtype), got.weak_type) == (shape, np.dtype(dtype), weak)
    assert str(got) == ("~" if weak else "") + f"{dtype}[{','.join(map(str, shape))}]"


@pytest.mark.parametrize("name", ["split", "array_split"])
@given(data=st.data())
def test_split(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = x.shape[axis]
    if name == "split":
        sections = data.draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]), label="sections")
    else:
        sections = data.draw(st.one_of(st.integers(1, 5), st.lists(st.integers(0, n), max_size=3).map(sorted)),
                             label="sections")
    show_call(f"jnp.{name}(x, {sections}, axis={axis})", x=x)
    assert_all_rearranged(getattr(impl.numpy, name)(x, sections, axis=axis), getattr(np, name)(x, sections, axis=axis),
                          x64)


@given(data=st.data())
def test_hsplit_vsplit_dsplit(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=st.tuples(*[st.sampled_from([2, 4])] * 3))
    for name in ("hsplit", "vsplit", "dsplit"):
        show_call(f"jnp.{name}(x, 2)", x=x)
        assert_all_rearranged(getattr(impl.numpy, name)(x, 2), getattr(np, name)(x, 2), x64)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
@given(data=st.data())
def test_stacking(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shape = data.draw(S.shapes(min_dims=1, max_dims=3), label="shape")
    arrays = [draw_array(data, [S.ALL], shape, label=f"x{i}") for i in range(data.draw(st.integers(1, 3)))]
    show_call(f"jnp.{name}(arrays)", arrays=arrays)
    got = getattr(impl.numpy, name)(arrays)
    want = getattr(np, name)([a.astype(dr.promote(*[b.dtype for b in arrays], x64=x64)) for a in arrays])
    assert_dtype(got, dr.canonicalize(want.dtype, x64), weak=dr.weak_result("elementwise", *arrays, x64=x64))
    assert_values(got, want, dr.canonicalize(want.dtype, x64))


@given(data=st.data())
def test_unstack_and_block(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=2, max_dims=2))
    axis = data.draw(st.integers(-2, 1), label="axis")
    show_call(f"jnp.unstack(x, axis={axis})", x=x)
    assert_all_rearranged(impl.numpy.unstack(x, axis=axis), [np.take(x, i, axis) for i in range(x.shape[axis])], x64)
    show_call("jnp.block([[x, x], [x, x]])", x=x)
    assert_rearranged(impl.numpy.block([[x, x], [x, x]]), np.block([[x, x], [x, x]]), x64)


# --- flipping, rolling, tiling, repeating ---------------------------------------------------------


@given(data=st.data())
def test_flip_and_rot90(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=2))
    axis = data.draw(S.axes(x.ndim), label="axis")
    k = data.draw(st.integers(-5, 5), label="k")
    show_call(f"jnp.flip(x, {axis}); jnp.rot90(x, {k}, (1, 0)); jnp.fliplr(x); jnp.flipud(x)", x=x)
    assert_rearranged(impl.numpy.flip(x, axis), np.flip(x, axis), x64)
    assert_rearranged(impl.numpy.rot90(x, k, axes=(1, 0)), np.rot90(x, k, axes=(1, 0)), x64)
    assert_rearranged(impl.numpy.fliplr(x), np.fliplr(x), x64)
    assert_rearranged(impl.numpy.flipud(x), np.flipud(x), x64)


@given(data=st.data())
def test_roll(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data)
    if x.ndim and data.draw(st.booleans(), label="with axes"):
        axis = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3), label="axis")
        shift = data.draw(st.lists(st.integers(-9, 9), min_size=len(axis), max_size=len(axis)), label="shift")
        axis, shift = tuple(axis), tuple(shift)
    else:
        axis, shift = None, data.draw(st.integers(-9, 9), label="shift")
    show_call(f"jnp.roll(x, {shift}, {axis})", x=x)
    assert_rearranged(impl.numpy.roll(x, shift, axis), np.roll(x, shift, axis), x64)


@given(data=st.data())
def test_tile(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data)
    reps = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), max_size=4).map(tuple)), label="reps")
    show_call(f"jnp.tile(x, {reps})", x=x)
    assert_rearranged(impl.numpy.tile(x, reps), np.tile(x, reps), x64)


@given(data=st.data())
def test_repeat(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1))
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)), label="axis")
    n = x.size if axis is None else x.shape[axis]
    repeats = data.draw(st.one_of(st.integers(0, 3), S.arrays(np.dtype("int32"), (n,), Domain(0, 3, grid=1.0))),
                        label="repeats")
    show_call(f"jnp.repeat(x, repeats, axis={axis})", x=x, repeats=repeats)
    want = np.repeat(x, repeats, axis=axis)
    assert_rearranged(impl.numpy.repeat(x, repeats, axis=axis), want, x64)
    if np.ndim(repeats):  # a fixed length: cut, or padded with the last element
        flat = np.repeat(x.ravel(), repeats) if axis is None else None
        if flat is not None and flat.size:
            total = data.draw(st.integers(1, flat.size + 3), label="total_repeat_length")
            want = np.concatenate([flat, np.repeat(flat[-1:], max(0, total - flat.size))])[:total]
            got = impl.numpy.repeat(x, repeats, total_repeat_length=total)
            assert_rearranged(got, want, x64)


def test_tile_and_repeat_keep_the_weak_type(impl: Impl) -> None:
    assert_weak(impl.numpy.tile(2.0, 3), True)
    assert_weak(impl.numpy.repeat(2.0, 3), True)


# --- padding, resizing, inserting -----------------------------------------------------------------

REARRANGING_MODES = ["constant", "edge", "wrap", "reflect", "symmetric", "maximum", "minimum"]
COMPUTING_MODES = ["linear_ramp", "mean"]  # computed in float; on integers JAX and NumPy round differently


@pytest.mark.parametrize("mode", REARRANGING_MODES + COMPUTING_MODES)
@given(data=st.data())
def test_pad(impl: Impl, flags, mode: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    groups = [S.FLOATING] if mode in COMPUTING_MODES else [S.REAL]
    x = draw_array(data, groups, S.shapes(min_dims=1, max_dims=3), domain=S.GRID)
    widths = data.draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=x.ndim, max_size=x.ndim),
                       label="pad_width")
    kwargs = {}
    if mode in ("maximum", "minimum", "mean") and data.draw(st.booleans(), label="with stat_length"):
        kwargs["stat_length"] = data.draw(st.integers(1, 4), label="stat_length")
    if mode == "constant":
        kwargs["constant_values"] = data.draw(st.integers(0, 1), label="constant_values")
    show_call(f"jnp.pad(x, {widths}, mode={mode!r}, **{kwargs})", x=x)
    got = impl.numpy.pad(x, widths, mode=mode, **kwargs)
    want = np.pad(x.astype(np.float64) if mode in COMPUTING_MODES else x, widths, mode=mode, **kwargs)
    dt = dr.canonicalize(x.dtype, x64)
    assert_dtype(got, dt, weak=False)
    assert_values(got, want, dt, atol=1e-2 if dt.itemsize <= 2 else 1e-5)


@given(data=st.data())
def test_resize_append_insert_delete(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = x.shape[axis]
    new_shape = data.draw(S.shapes(min_dims=0, max_dims=3, min_side=0), label="new_shape")
    show_call(f"jnp.resize(x, {new_shape})", x=x)
    assert_rearranged(impl.numpy.resize(x, new_shape), np.resize(x, new_shape), x64)
    show_call(f"jnp.append(x, x, axis={axis})", x=x)
    assert_rearranged(impl.numpy.append(x, x, axis=axis), np.append(x, x, axis=axis), x64)
    position = data.draw(st.integers(-n, n), label="position")
    show_call(f"jnp.insert(x, {position}, x.flat[0], axis={axis})", x=x)
    assert_rearranged(impl.numpy.insert(x, position, x.flat[0], axis=axis), np.insert(x, position, x.flat[0], axis=axis),
                      x64)
    positions = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=3), label="positions"), dtype=np.int32)
    show_call(f"jnp.delete(x, positions, axis={axis})", x=x, positions=positions)
    assert_rearranged(impl.numpy.delete(x, positions, axis=axis), np.delete(x, positions, axis=axis), x64)


@given(data=st.data())
def test_trim_zeros(impl: Impl, flags, data: st.DataObject) -> None:
    """The smallest box holding every nonzero entry, cut on the axes given (all by default)."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(max_dims=3), domain=Domain(-1, 1, grid=1.0))  # many zeros
    trim = data.draw(st.sampled_from(["f", "b", "fb"]), label="trim")
    axis = data.draw(S.axes(x.ndim), label="axis")
    show_call(f"jnp.trim_zeros(x, {trim!r}, axis={axis!r})", x=x)
    assert_rearranged(impl.numpy.trim_zeros(x, trim, axis=axis), np.trim_zeros(x, trim, axis=axis), x64)


@given(data=st.data())
def test_ravel_multi_index_and_unravel_index(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dims = data.draw(S.shapes(min_dims=1, max_dims=3), label="dims")
    count = data.draw(st.integers(0, 4), label="count")
    coords = tuple(np.array(data.draw(st.lists(st.integers(0, d - 1), min_size=count, max_size=count)), np.int32)
                   for d in dims)
    show_call(f"jnp.ravel_multi_index(coords, {dims}, mode='clip')", coords=coords)
    flat = impl.numpy.ravel_multi_index(coords, dims, mode="clip")
    assert_rearranged(flat, np.ravel_multi_index(coords, dims).astype(np.int32), x64)
    assert_all_rearranged(impl.numpy.unravel_index(to_numpy(flat).astype(np.int32), dims),
                          [c.astype(np.int32) for c in np.unravel_index(to_numpy(flat), dims)], x64)


def test_size_shape_ndim_isscalar(impl: Impl) -> None:
    jnp = impl.numpy
    x = np.zeros((2, 3))
    assert (jnp.shape(x), jnp.ndim(x), jnp.size(x), jnp.size(x, 1)) == ((2, 3), 2, 6, 3)
    assert jnp.isscalar(1.0) and jnp.isscalar(np.float32(1)) and not jnp.isscalar(x) and not jnp.isscalar([1])
    assert jnp.iterable(x) and not jnp.iterable(1.0)
    assert jnp.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert [a.shape for a in jnp.broadcast_arrays(np.ones((2, 1)), 3)] == [(2, 1 + 0), (2, 1)]


# --- Array.view: the same bits as another dtype ------------------------------------------------------


def _viewable(x64: bool) -> list[np.dtype]:
    """The dtypes an array can hold in this x64 mode."""
    return [d for d in S.ALL if x64 or d.itemsize < 8 or d == np.complex64]


def _view_target_ok(src: np.dtype, dst: np.dtype) -> bool:
    """Targets whose every bit pattern JAX defines as NumPy does: bool only from bool (JAX makes any
    nonzero byte True), complex only from its own part type or complex (JAX adds re + 1j * im, so
    a NaN or infinity in the imaginary part spreads to the real one)."""
    if dst.kind == "b":
        return src.kind == "b"
    if dst.kind == "c":
        return src.kind == "c" or src == dr.dtype(f"float{dst.itemsize * 4}")
    return True


@given(data=st.data())
def test_view_reinterprets_the_bits_as_numpy_does(impl: Impl, flags, data: st.DataObject) -> None:
    """``x.view(dtype)`` reads x's bytes as ``dtype``: the same shape for the same item size; for
    another, the last axis grows or shrinks by the ratio (NumPy's view)."""
    x64 = draw_x64(data, flags)
    usable = _viewable(x64)
    src = data.draw(st.sampled_from(usable), label="src")
    dst = data.draw(st.sampled_from([d for d in usable if _view_target_ok(src, d)]), label="dst")
    lead = data.draw(S.shapes(max_dims=2), label="lead")
    last = data.draw(st.integers(1, 2), label="k") * 16 // src.itemsize  # every item size divides it
    x = data.draw(S.dtype_and_array([(src,)], (*lead, last)), label="x")
    show_call(f"jnp.asarray(x).view(jnp.{dst.name})", x=x)
    got = impl.numpy.asarray(x).view(dst)
    want = x.view(dst)
    assert_dtype(got, dst, weak=False)
    got = to_numpy(got)
    assert got.shape == want.shape, f"shape {got.shape}, NumPy's view gives {want.shape}"
    if dst.kind == "c":  # by value (JAX builds it as re + 1j * im, which may turn -0.0 into 0.0)
        assert_values(got, want, dst)
    else:  # bit for bit
        assert (got.view(np.uint8) == want.view(np.uint8)).all(), f"bits differ: {got} against {want}"


def test_view_between_complex_numbers_and_their_parts(impl: Impl) -> None:
    """A complex number's bytes are its real part's, then its imaginary part's (NumPy's layout)."""
    z = np.array([[1 + 2j, 3 - 4j], [-5 + 0.5j, 0.25 - 6j]], np.complex64)
    parts = z.view(np.float32)
    show_call("jnp.asarray(z).view(jnp.float32), jnp.asarray(parts).view(jnp.complex64)", z=z, parts=parts)
    assert_rearranged(impl.numpy.asarray(z).view(np.float32), parts)
    assert_rearranged(impl.numpy.asarray(parts).view(np.complex64), z)


def test_view_without_a_dtype_or_of_a_scalar(impl: Impl) -> None:
    """No dtype, or the array's own, is the array itself; a 0-d array keeps its item size; JAX's
    errors: another item size for a 0-d array, a last axis the new item size does not divide
    (ValueError), and ``type=`` (NotImplementedError)."""
    jnp = impl.numpy
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    show_call("x.view(), x.view(jnp.float32), jnp.asarray(np.float32(1.5)).view(jnp.int32)",
              x=np.arange(6, dtype=np.float32).reshape(2, 3))  # fmt: skip
    assert x.view() is x and x.view(None) is x and x.view(np.float32) is x
    scalar = jnp.asarray(np.float32(1.5)).view(np.int32)
    assert_rearranged(scalar, np.float32(1.5).reshape(()).view(np.int32))
    with pytest.raises(ValueError):
        jnp.asarray(np.float32(1.5)).view(np.int16)
    with pytest.raises(ValueError):
        jnp.asarray(np.ones(3, np.int8)).view(np.int16)
    with pytest.raises(NotImplementedError):
        x.view(np.int32, type=np.ndarray)


# --- writing into arrays (put, put_along_axis, place) and packing bits -------------------------


@pytest.mark.parametrize("mode", [None, "clip", "wrap"])
@given(data=st.data())
def test_put_matches_numpy(impl: Impl, flags, mode, data: st.DataObject) -> None:
    """Values go to flat positions, repeated to fill them all. Each position is written once: a
    repeated one would keep whichever update came last, which XLA does not promise. Out of range,
    mode 'clip' clips and 'wrap' wraps, as NumPy's; mode None (JAX's default) clips too."""
    x64 = draw_x64(data, flags)
    a = draw_array(data, shape=S.shapes(min_dims=1, max_dims=3, min_side=1))  # JAX 0.10.2 fails on 0-d
    size = a.size
    targets = data.draw(st.permutations(range(size)), label="targets")[: data.draw(st.integers(1, size), label="k")]
    if mode == "wrap":  # any multiple of the size away
        ind = [t + size * data.draw(st.integers(-2, 2), label="turns") for t in targets]
    else:  # the first and last positions may be named from beyond their end
        ind = [(-1 - data.draw(st.integers(0, 3), label="below")) * size if t == 0 and mode else
               t + (data.draw(st.integers(0, 3), label="above") if t == size - 1 else 0) for t in targets]  # fmt: skip
        ind = [max(i, -size) if mode is None else i for i in ind]  # NumPy's mode 'raise' takes no index below -size
    ind = np.array(ind, np.int32)
    v = data.draw(S.arrays(a.dtype, (data.draw(st.integers(1, 4), label="len(v)"),)), label="v")
    show_call(f"jnp.put(a, ind, v, mode={mode!r}, inplace=False)", a=a, ind=ind, v=v)
    got = impl.numpy.put(a, ind, v, mode=mode, inplace=False)
    want = a.copy()
    np.put(want, ind, v, mode=mode or "clip")
    assert_rearranged(got, want, x64)


def test_put_and_place_return_new_arrays_only_when_asked(impl: Impl) -> None:
    """didax and JAX arrays never change: without inplace=False these refuse (ValueError)."""
    jnp = impl.numpy
    a = np.zeros(4, np.float32)
    with pytest.raises(ValueError):
        jnp.put(a, np.array([1]), 1.0)
    with pytest.raises(ValueError):
        jnp.put_along_axis(a, np.array([1]), 1.0, axis=0)
    with pytest.raises(ValueError):
        jnp.place(a, a > 0, 1.0)
    with pytest.raises(NotImplementedError):
        jnp.put(a, np.array([1]), 1.0, mode="raise", inplace=False)
    with pytest.raises(ValueError):
        jnp.place(a, np.ones(3, bool), 1.0, inplace=False)  # the mask must have a's size


@given(data=st.data())
def test_put_along_axis_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """The writing counterpart of take_along_axis; indices along the axis are distinct (a repeat
    would keep whichever update came last, which XLA does not promise)."""
    x64 = draw_x64(data, flags)
    a = draw_array(data, shape=S.shapes(min_dims=1, max_dims=3, min_side=1))
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), label="axis")
    n = a.size if axis is None else a.shape[axis]
    k = data.draw(st.integers(1, n), label="k")
    lines = [1] if axis is None else [m for d, m in enumerate(a.shape) if d != axis % a.ndim]
    picks = [data.draw(st.permutations(range(n)), label="line")[:k] for _ in range(int(np.prod(lines)))]
    index = np.array(picks, np.int32).reshape(*lines, k)
    index = index.reshape(k) if axis is None else np.moveaxis(index, -1, axis)
    index = np.where(index >= n - 1, index - n, index) if data.draw(st.booleans(), label="negative") else index
    values = data.draw(S.arrays(a.dtype, index.shape), label="values")
    show_call(f"jnp.put_along_axis(a, index, values, axis={axis}, inplace=False)", a=a, index=index, values=values)
    got = impl.numpy.put_along_axis(a, index, values, axis=axis, inplace=False)
    want = a.copy()
    np.put_along_axis(want, index, values, axis=axis)
    assert_rearranged(got, want, x64)


@given(data=st.data())
def test_place_matches_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """The places where the mask is true get the values in order, repeated as needed."""
    x64 = draw_x64(data, flags)
    a = draw_array(data, shape=S.shapes(max_dims=3, min_side=0))
    mask = data.draw(S.arrays(np.dtype(bool), a.shape), label="mask")
    vals = data.draw(S.arrays(a.dtype, (data.draw(st.integers(1, 4), label="len(vals)"),)), label="vals")
    show_call("jnp.place(a, mask, vals, inplace=False)", a=a, mask=mask, vals=vals)
    got = impl.numpy.place(a, mask, vals, inplace=False)
    want = a.copy()
    np.place(want, mask, vals)
    assert_rearranged(got, want, x64)


@given(data=st.data())
def test_packbits_and_unpackbits_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    bits = data.draw(S.dtype_and_array([S.BOOL + S.INTEGER], S.shapes(max_dims=3, min_side=0), Domain(0, 3)),
                     label="bits")  # fmt: skip
    axis = data.draw(st.none() | st.integers(-bits.ndim, bits.ndim - 1) if bits.ndim else st.none(), label="axis")
    bitorder = data.draw(st.sampled_from(["big", "little"]), label="bitorder")
    show_call(f"jnp.packbits(bits, axis={axis}, bitorder={bitorder!r})", bits=bits)
    packed = impl.numpy.packbits(bits, axis=axis, bitorder=bitorder)
    want = np.packbits(bits != 0, axis=axis, bitorder=bitorder)
    assert_rearranged(packed, want, x64)
    if want.size == 0:  # NumPy's unpackbits pads an empty input with uninitialized bytes (count=1
        return  # can give 208), and JAX 0.10.2's fails on one of several axes (a reshape with -1)
    total = want.shape[0 if axis is None else axis] * 8
    # NumPy: -count <= the bits; a count past them pads with zeros (a third of the draws ask for that)
    count = data.draw(st.none() | st.integers(-total, total) | st.integers(total + 1, total + 3), label="count")
    show_call(f"jnp.unpackbits(packed, axis={axis}, count={count}, bitorder={bitorder!r})", packed=want)
    got = impl.numpy.unpackbits(want, axis=axis, count=count, bitorder=bitorder)
    assert_rearranged(got, np.unpackbits(want, axis=axis, count=count, bitorder=bitorder), x64)


def test_packbits_and_unpackbits_check_their_arguments(impl: Impl) -> None:
    jnp = impl.numpy
    with pytest.raises(TypeError):
        jnp.packbits(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        jnp.unpackbits(np.ones(3, np.int32))
    with pytest.raises(ValueError):
        jnp.packbits(np.ones(3, np.int32), bitorder="middle")


# --- diagonals, triangles, grids ------------------------------------------------------------------


@given(data=st.data())
def test_diagonal_diag_tril_triu(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=2, max_dims=3))
    k = data.draw(st.integers(-x.shape[0], x.shape[-1]), label="k")  # every diagonal, and an empty one each side
    show_call(f"jnp.diagonal(x, {k}, 0, -1); jnp.tril(x, {k}); jnp.triu(x, {k})", x=x)
    assert_rearranged(impl.numpy.diagonal(x, k, 0, -1), np.diagonal(x, k, 0, -1), x64)
    positions = np.arange(x.size, dtype=np.int32).reshape(x.shape)  # drawn values often repeat; these do not
    show_call(f"jnp.diagonal(positions, {k}, 0, -1)", positions=positions)
    assert_rearranged(impl.numpy.diagonal(positions, k, 0, -1), np.diagonal(positions, k, 0, -1), x64)
    assert_rearranged(impl.numpy.tril(x, k), np.tril(x, k), x64)
    assert_rearranged(impl.numpy.triu(x, k), np.triu(x, k), x64)
    v = x[0, 0] if x.ndim == 3 else x[0]
    assert_rearranged(impl.numpy.diag(v, k), np.diag(v, k), x64)
    assert_rearranged(impl.numpy.diagflat(x, k), np.diagflat(x, k), x64)


@given(data=st.data())
def test_index_grids(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n, m, k = (data.draw(st.integers(0, 4), label=name) for name in "nmk")
    show_call("jnp.tri(n, m, k), jnp.tril_indices(n, k, m), jnp.triu_indices(n, k, m), jnp.indices((n, m)), "
              "jnp.meshgrid(np.arange(n), np.arange(m, dtype=np.float32)), jnp.mgrid[0:n, 0:m], "
              "jnp.r_[0:n, 7, np.arange(m)]", n=n, m=m, k=k)  # fmt: skip
    jnp = impl.numpy
    assert_rearranged(jnp.tri(n, m, k), np.tri(n, m, k, dtype=np.float32), x64)  # float32 even with x64
    assert_all_rearranged(jnp.tril_indices(n, k, m), [i.astype(canonical_int(x64)) for i in np.tril_indices(n, k, m)],
                          x64)
    assert_all_rearranged(jnp.triu_indices(n, k, m), [i.astype(canonical_int(x64)) for i in np.triu_indices(n, k, m)],
                          x64)
    assert_rearranged(jnp.indices((n, m)), np.indices((n, m), dtype=canonical_int(x64)), x64)
    a, b = np.arange(n), np.arange(m, dtype=np.float32)
    assert_all_rearranged(jnp.meshgrid(a, b), [g.astype(np.float32 if g.dtype == np.float32 else canonical_int(x64))
                                                for g in np.meshgrid(a, b)], x64)  # indexing="xy" by default
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            assert_all_rearranged(jnp.meshgrid(a, b, indexing=indexing, sparse=sparse),
                                  [g.astype(np.float32 if g.dtype == np.float32 else canonical_int(x64))
                                   for g in np.meshgrid(a, b, indexing=indexing, sparse=sparse)], x64)
    assert_rearranged(jnp.mgrid[0:n, 0:m], np.mgrid[0:n, 0:m].astype(canonical_int(x64)), x64)
    assert_rearranged(jnp.r_[0:n, 7, np.arange(m)], np.r_[0:n, 7, np.arange(m)].astype(canonical_int(x64)), x64)


@given(data=st.data())
def test_indices_of_diagonals_and_triangles(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n, ndim = data.draw(st.integers(0, 4), label="n"), data.draw(st.integers(1, 3), label="ndim")
    jnp = impl.numpy
    show_call(f"jnp.diag_indices({n}, {ndim}); jnp.diag_indices_from(jnp.zeros({(n,) * max(ndim, 2)}))")
    assert_all_rearranged(jnp.diag_indices(n, ndim), as_index(np.diag_indices(n, ndim), x64), x64)
    square = np.zeros((n,) * max(ndim, 2), np.float32)
    assert_all_rearranged(jnp.diag_indices_from(square), as_index(np.diag_indices_from(square), x64), x64)
    x = draw_array(data, shape=S.shapes(min_dims=2, max_dims=2, min_side=0))
    k = data.draw(st.integers(-4, 4), label="k")
    show_call(f"jnp.tril_indices_from(x, {k}); jnp.triu_indices_from(x, {k})", x=x)
    assert_all_rearranged(jnp.tril_indices_from(x, k), as_index(np.tril_indices_from(x, k), x64), x64)
    assert_all_rearranged(jnp.triu_indices_from(x, k), as_index(np.triu_indices_from(x, k), x64), x64)


@pytest.mark.parametrize("mask_func", ["triu", "tril"])
@given(data=st.data())
def test_mask_indices_matches_numpy(impl: Impl, flags, mask_func: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n, k = data.draw(st.integers(0, 4), label="n"), data.draw(st.integers(-4, 4), label="k")
    show_call(f"jnp.mask_indices({n}, jnp.{mask_func}, {k})")
    got = impl.numpy.mask_indices(n, getattr(impl.numpy, mask_func), k)
    assert_all_rearranged(got, as_index(np.mask_indices(n, getattr(np, mask_func), k), x64), x64)
    size = data.draw(st.integers(0, 20), label="size")
    show_call(f"jnp.mask_indices({n}, jnp.{mask_func}, {k}, size={size})")
    got = impl.numpy.mask_indices(n, getattr(impl.numpy, mask_func), k, size=size)
    want = [np.resize(np.concatenate([i, np.zeros(max(size - len(i), 0), i.dtype)]), size)
            for i in np.mask_indices(n, getattr(np, mask_func), k)]  # cut, or padded with zeros
    assert_all_rearranged(got, as_index(want, x64), x64)


@given(data=st.data())
def test_open_grids_and_ix(impl: Impl, flags, data: st.DataObject) -> None:
    """ogrid's integer slices give default ints, and all are floats once a step is complex (a count);
    ix_ keeps each index array's dtype (an empty one is a default int) and indexes as NumPy's does."""
    x64 = draw_x64(data, flags)
    bounds = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-2, 2).filter(bool))
    start, stop, step = data.draw(bounds, label="start, stop, step")
    count = data.draw(st.integers(1, 4), label="count")
    show_call(f"jnp.ogrid[{start}:{stop}:{step}]; jnp.ogrid[{start}:{stop}:{step}, {start}:{stop}:{count}j]")
    assert_rearranged(impl.numpy.ogrid[start:stop:step], np.ogrid[start:stop:step], x64)  # int64, canonicalized
    assert_all_rearranged(impl.numpy.ogrid[start:stop:step, start:stop:count * 1j],
                          np.ogrid[start:stop:step, start:stop:count * 1j], x64)
    x = draw_array(data, shape=S.shapes(min_dims=1, max_dims=3))
    index = [data.draw(S.index_arrays(side, (data.draw(st.integers(0, 3), label="length"),)), label=f"ix {i}")
             for i, side in enumerate(x.shape)]
    index = [i.astype(i.dtype if i.dtype.kind == "i" else np.int32) for i in index]  # NumPy's ix_ takes no negative uint
    show_call("jnp.ix_(*index); jnp.asarray(x)[jnp.ix_(*index)]", x=x, index=index)
    grid = impl.numpy.ix_(*index)
    want = [w if w.size else w.astype(canonical_int(x64)) for w in np.ix_(*index)]  # NumPy keeps int8 & co.
    assert_all_rearranged(grid, want, x64)
    assert_rearranged(impl.numpy.asarray(x)[grid], x[np.ix_(*index)], x64)


@given(data=st.data())
def test_c_joins_columns(impl: Impl, flags, data: st.DataObject) -> None:
    """c_ stacks 1-d arrays as columns and joins n-d ones on their last axis, promoting dtypes."""
    x64 = draw_x64(data, flags)
    shape = list(data.draw(S.shapes(min_dims=1, max_dims=3), label="shape"))
    a = draw_array(data, shape=tuple(shape), label="a")
    shape[-1] = data.draw(st.integers(1, 3), label="b's last side") if len(shape) > 1 else shape[-1]
    b = draw_array(data, shape=tuple(shape), label="b")
    show_call("jnp.c_[a, b]", a=a, b=b)
    got = impl.numpy.c_[a, b]
    want_dtype = dr.promote(a.dtype, b.dtype, x64=x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", a, b, x64=x64))
    assert_values(got, np.c_[as_operand(a, want_dtype), as_operand(b, want_dtype)], want_dtype)


def test_fill_diagonal_returns_a_new_array(impl: Impl) -> None:
    got = impl.numpy.fill_diagonal(np.zeros((5, 3), np.float32), np.array([1.0, 2.0], np.float32), inplace=False)
    want = np.zeros((5, 3), np.float32)
    np.fill_diagonal(want, [1.0, 2.0])
    assert_rearranged(got, want)


@given(data=st.data())
def test_vander_and_windows(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.arrays(np.dtype("int32"), (data.draw(st.integers(0, 4)),), SMALL_INTS), label="x")
    n = data.draw(st.integers(0, 4), label="N")
    show_call(f"jnp.vander(x, {n})", x=x)
    assert_rearranged(impl.numpy.vander(x, n), np.vander(x, n).astype(np.int32), x64)
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        got = getattr(impl.numpy, name)(n)
        dt = dr.dtype_of("f*", x64)
        assert_dtype(got, dt, weak=dr.weak_result("creation"))
        assert_values(got, getattr(np, name)(n), dt, atol=1e-6)


@given(data=st.data())
def test_kaiser_window(impl: Impl, flags, data: st.DataObject) -> None:
    """The window is in the default float type. beta is a Python number here: JAX takes I0(beta) in
    beta's own dtype, so a float32 beta would give a float64 window only float32's precision."""
    x64 = draw_x64(data, flags)
    n = data.draw(st.integers(0, 9), label="M")
    beta = data.draw(st.one_of(st.integers(-12, 12), st.floats(-12, 12)), label="beta")
    show_call(f"jnp.kaiser({n}, {beta!r})")
    got = impl.numpy.kaiser(n, beta)
    dt = dr.dtype_of("f*", x64)
    assert_dtype(got, dt, weak=dr.weak_result("creation"))
    assert_values(got, np.kaiser(n, beta), dt, atol=RTOL[dt.name])


# --- sorting and searching ------------------------------------------------------------------------


@given(data=st.data())
def test_sort_and_argsort(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, [ORDERED], S.shapes(min_dims=1), domain=S.TIES)
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)), label="axis")
    show_call(f"jnp.sort(x, axis={axis}); jnp.argsort(x, axis={axis})", x=x)
    assert_rearranged(impl.numpy.sort(x, axis=axis), np.sort(x, axis=axis), x64)
    idx = np.argsort(x, axis=axis, stable=True).astype(canonical_int(x64))
    assert_rearranged(impl.numpy.argsort(x, axis=axis), idx, x64)
    flat = x if axis is not None else x.ravel()
    ax = -1 if axis is None else axis
    down = np.flip(np.argsort(np.flip(flat, ax), axis=ax, stable=True), ax)
    down = flat.shape[ax] - 1 - down  # descending and stable: ties keep their order
    assert_rearranged(impl.numpy.argsort(x, axis=axis, descending=True), down.astype(canonical_int(x64)), x64)
    assert_rearranged(impl.numpy.sort(x, axis=axis, descending=True), np.flip(np.sort(flat, axis=ax), ax), x64)


def complex_dtype(dt: np.dtype, x64: bool) -> np.dtype:
    """sort_complex's result: the complex type of the inexact one (int32 is float32, so complex64)."""
    inexact = dr.inexact(dr.canonicalize(dt, x64), x64)
    if inexact.kind == "c":
        return inexact
    return dr.canonicalize("complex128" if inexact == np.float64 else "complex64", x64)


@given(data=st.data())
def test_sort_complex(impl: Impl, flags, data: st.DataObject) -> None:
    """Sorted along the last axis, by real part and then imaginary part, as complex numbers."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1), domain=S.TIES)
    show_call("jnp.sort_complex(x)", x=x)
    got = impl.numpy.sort_complex(x)
    want_dtype = complex_dtype(x.dtype, x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", x))
    assert_values(got, np.sort_complex(wide(x)), want_dtype)


@given(data=st.data())
def test_lexsort_and_partition(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    n = data.draw(st.integers(1, 6), label="n")
    keys = [data.draw(S.arrays(np.dtype("int32"), (n,), SMALL_INTS), label=f"key{i}") for i in range(3)]
    show_call("jnp.lexsort(keys)", keys=keys)
    assert_rearranged(impl.numpy.lexsort(keys), np.lexsort(keys).astype(canonical_int(x64)), x64)
    kth = data.draw(st.integers(0, n - 1), label="kth")
    x = keys[0]
    got = to_numpy(impl.numpy.partition(x, kth))
    assert got[kth] == np.sort(x)[kth] and (got[:kth] <= got[kth]).all() and (got[kth + 1 :] >= got[kth]).all()
    idx = to_numpy(impl.numpy.argpartition(x, kth))
    assert sorted(idx.tolist()) == list(range(n)) and x[idx][kth] == np.sort(x)[kth]


@given(data=st.data())
def test_nonzero_argwhere_flatnonzero(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1, min_side=0), domain=SMALL_INTS)
    idx_dt = canonical_int(x64)
    show_call("jnp.nonzero(x); jnp.argwhere(x); jnp.flatnonzero(x)", x=x)
    assert_all_rearranged(impl.numpy.nonzero(x), [i.astype(idx_dt) for i in np.nonzero(x)], x64)
    assert_rearranged(impl.numpy.argwhere(x), np.argwhere(x).astype(idx_dt), x64)
    assert_rearranged(impl.numpy.flatnonzero(x), np.flatnonzero(x).astype(idx_dt), x64)
    size = data.draw(st.integers(0, 6), label="size")
    fill = data.draw(st.integers(-2, 2), label="fill_value")
    show_call(f"jnp.nonzero(x, size={size}, fill_value={fill})", x=x)
    fill = fill if x.size else 0  # an empty input gives zeros in JAX, whatever the fill_value
    want = [np.concatenate([i, np.full(max(0, size - len(i)), fill)])[:size].astype(idx_dt) for i in np.nonzero(x)]
    assert_all_rearranged(impl.numpy.nonzero(x, size=size, fill_value=fill), want, x64)
    assert_all_rearranged(impl.numpy.where(x, size=size, fill_value=fill), want, x64)


@given(data=st.data())
def test_compress_extract_choose_select(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, shape=S.shapes(min_dims=1, max_dims=2))
    cond = data.draw(S.arrays(np.dtype(bool), (x.shape[0],)), label="condition")
    show_call("jnp.compress(condition, x, axis=0)", x=x, condition=cond)
    assert_rearranged(impl.numpy.compress(cond, x, axis=0), np.compress(cond, x, axis=0), x64)
    mask = data.draw(S.arrays(np.dtype(bool), x.shape), label="mask")
    assert_rearranged(impl.numpy.extract(mask, x), np.extract(mask, x), x64)
    which = data.draw(S.arrays(np.dtype("int32"), x.shape, Domain(0, 2, grid=1.0)), label="which")
    choices = [x, np.zeros_like(x), np.ones_like(x)]
    show_call("jnp.choose(which, [x, np.zeros_like(x), np.ones_like(x)])", x=x, which=which)
    assert_rearranged(impl.numpy.choose(which, choices), np.choose(which, choices), x64)
    show_call("jnp.select([mask, ~mask], [x, np.zeros_like(x)], np.ones_like(x))", x=x, mask=mask)
    got = impl.numpy.select([mask, ~mask], [x, np.zeros_like(x)], np.ones_like(x))
    assert_rearranged(got, np.select([mask, ~mask], [x, np.zeros_like(x)], np.ones_like(x)), x64)


@given(data=st.data())
def test_piecewise(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, [S.SIGNED, S.FLOATING[2:]], S.shapes(max_dims=2), domain=S.GRID)
    show_call("jnp.piecewise(x, [x < 0, x > 1], [-1, lambda v: v * 2, lambda v: v + 3])", x=x)
    got = impl.numpy.piecewise(x, [x < 0, x > 1], [-1, lambda v: v * 2, lambda v: v + 3])
    want = np.piecewise(x, [x < 0, x > 1], [-1, lambda v: v * 2, lambda v: v + 3])
    assert_rearranged(got, want, x64)


def test_select_with_python_scalars_is_weak(impl: Impl) -> None:
    got = impl.numpy.select([np.array([True, False]), np.array([True, True])], [1, 2.5])
    assert_weak(got, True)
    assert to_numpy(got).tolist() == [1.0, 2.5]


# --- unique and set operations --------------------------------------------------------------------


@given(data=st.data())
def test_unique(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, [ORDERED], S.shapes(min_dims=1, max_dims=2), domain=S.TIES)
    idx_dt = canonical_int(x64)
    show_call("jnp.unique(x, return_index=True, return_inverse=True, return_counts=True)", x=x)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    got = impl.numpy.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert_all_rearranged(got, [values, index.astype(idx_dt), inverse.reshape(x.shape).astype(idx_dt),
                                counts.astype(idx_dt)], x64)
    size = data.draw(st.integers(1, 6), label="size")
    show_call(f"jnp.unique(x, size={size}, fill_value=7)", x=x)
    want = np.concatenate([values, np.full(max(0, size - len(values)), 7, values.dtype)])[:size]
    assert_rearranged(impl.numpy.unique(x, size=size, fill_value=7), want, x64)
    result = impl.numpy.unique_counts(x)
    assert_all_rearranged([result.values, result.counts], [values, counts.astype(idx_dt)], x64)


@given(data=st.data())
def test_unique_nans(impl: Impl, flags, data: st.DataObject) -> None:
    """unique's default equal_nan=True makes all NaNs one value, sorted last (as in NumPy); with
    equal_nan=False each NaN is a value of its own."""
    x64 = draw_x64(data, flags)
    x = draw_array(data, [S.FLOATING], S.shapes(min_dims=1, max_dims=2), domain=S.TIES)
    x = np.where(data.draw(S.arrays(np.dtype(bool), x.shape), label="NaN"), np.nan, x).astype(x.dtype)
    show_call("jnp.unique(x, return_counts=True)", x=x)
    values, counts = np.unique(wide(x), return_counts=True)  # (NumPy finds no NaNs among bfloat16s)
    got = impl.numpy.unique(x, return_counts=True)
    assert_all_rearranged(got, [values.astype(x.dtype), counts.astype(canonical_int(x64))], x64)
    show_call("jnp.unique(x, equal_nan=False)", x=x)
    got = impl.numpy.unique(x, equal_nan=False)
    assert_rearranged(got, np.unique(wide(x), equal_nan=False).astype(x.dtype), x64)


@given(data=st.data())
def test_unique_along_an_axis(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = draw_array(data, [S.INTEGER], S.shapes(min_dims=1, max_dims=3), domain=Domain(0, 1, grid=1.0))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    idx_dt = canonical_int(x64)
    show_call(f"jnp.unique(x, return_index=True, return_inverse=True, return_counts=True, axis={axis})", x=x)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                               axis=axis)
    got = impl.numpy.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    assert_all_rearranged(got, [values, index.astype(idx_dt), inverse.ravel().astype(idx_dt),
                                counts.astype(idx_dt)], x64)


@given(data=st.data())
def test_array_api_unique_functions(impl: Impl, flags, data: st.DataObject) -> None:
    """unique_all, unique_inverse, unique_counts and unique_values: sorted, and (unlike jnp.unique)
    every NaN is distinct: NumPy's unique with equal_nan=False."""
    x64 = draw_x64(data, flags)
    x = with_nans(data, draw_array(data, [ORDERED], S.shapes(max_dims=2), domain=S.TIES))
    idx_dt = canonical_int(x64)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                               equal_nan=False)
    index, inverse, counts = index.astype(idx_dt), inverse.reshape(x.shape).astype(idx_dt), counts.astype(idx_dt)
    jnp = impl.numpy
    show_call("jnp.unique_all(x); jnp.unique_inverse(x); jnp.unique_counts(x); jnp.unique_values(x)", x=x)
    got = jnp.unique_all(x)
    assert_all_rearranged([got.values, got.indices, got.inverse_indices, got.counts],
                          [values, index, inverse, counts], x64)
    got = jnp.unique_inverse(x)
    assert_all_rearranged([got.values, got.inverse_indices], [values, inverse], x64)
    got = jnp.unique_counts(x)
    assert_all_rearranged([got.values, got.counts], [values, counts], x64)
    assert_rearranged(jnp.unique_values(x), values, x64)


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
@given(data=st.data())
def test_set_operations(impl: Impl, flags, name: str, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.INTEGER, S.FLOATING), label="dtype")
    a, b = (data.draw(S.arrays(dt, S.shapes(min_dims=1, max_dims=2), S.TIES), label=n) for n in "ab")
    show_call(f"jnp.{name}(a, b)", a=a, b=b)
    assert_rearranged(getattr(impl.numpy, name)(a, b), getattr(np, name)(a, b), x64)
    show_call("jnp.isin(a, b)", a=a, b=b)
    got = impl.numpy.isin(a, b)
    assert_dtype(got, np.dtype(bool), weak=False)
    assert_values(got, np.isin(a, b), np.dtype(bool))


# --- comparisons and dtype classes ----------------------------------------------------------------


@given(data=st.data())
def test_isclose_allclose_array_equal(impl: Impl, flags, data: st.DataObject) -> None:
    draw_x64(data, flags)
    dt = data.draw(S.dtypes(S.FLOATING[2:], S.INTEGER), label="dtype")
    a = data.draw(S.arrays(dt, (4,), S.TIES), label="a")
    b = data.draw(S.arrays(dt, (4,), S.TIES), label="b")
    if dt.kind == "f":
        specials = np.array([np.nan, np.inf, -np.inf, 0.0], dt)
        a = np.where(data.draw(S.arrays(np.dtype(bool), (4,)), label="special a"), specials, a)
        b = np.where(data.draw(S.arrays(np.dtype(bool), (4,)), label="special b"), specials, b)
    # Tolerances that matter on the TIES grid: |a - b| <= atol + rtol * |b| is not symmetric in a and b.
    # (For integers JAX compares exactly, whatever the tolerances; NumPy does not, so they keep theirs.)
    tol = dict(rtol=data.draw(st.sampled_from([1e-05, 0.5]), label="rtol"),
               atol=data.draw(st.sampled_from([1e-08, 0.25]), label="atol")) if dt.kind == "f" else {}
    for equal_nan in (False, True):
        show_call(f"jnp.isclose(a, b, **{tol}, equal_nan={equal_nan})", a=a, b=b)
        got = impl.numpy.isclose(a, b, **tol, equal_nan=equal_nan)
        assert_dtype(got, np.dtype(bool), weak=False)
        assert_values(got, np.isclose(a, b, **tol, equal_nan=equal_nan), np.dtype(bool))
        assert bool(impl.numpy.allclose(a, b, **tol, equal_nan=equal_nan)) == np.allclose(a, b, **tol,
                                                                                         equal_nan=equal_nan)
        assert bool(impl.numpy.array_equal(a, b, equal_nan=equal_nan)) == np.array_equal(a, b, equal_nan=equal_nan)
    assert bool(impl.numpy.array_equiv(a, a[:1])) == np.array_equiv(a, a[:1])


CLASSES = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
           "complexfloating"]


@pytest.mark.parametrize("category", CLASSES)
@pytest.mark.parametrize("dtype", [d.name for d in S.ALL])
def test_dtype_classes_and_issubdtype(impl: Impl, category: str, dtype: str) -> None:
    jnp = impl.numpy
    cls = getattr(jnp, category)
    assert repr(cls) == repr(getattr(np, category))
    want = np.issubdtype(np.dtype(dtype), getattr(np, category)) or (
        dtype == "bfloat16" and category in ("generic", "number", "inexact", "floating"))
    assert jnp.issubdtype(np.dtype(dtype), cls) == want
    assert jnp.issubdtype(getattr(jnp, "bool_" if dtype == "bool" else dtype), cls) == want


@pytest.mark.parametrize("category", ["character", "flexible", "object_"])
def test_non_numeric_type_classes(impl: Impl, category: str) -> None:
    """jnp.character, flexible and object_ are NumPy's classes: str and bytes are characters (and
    flexible, as void is), object is object_, and no array dtype is any of them (bfloat16 neither)."""
    cls = getattr(impl.numpy, category)
    assert repr(cls) == repr(getattr(np, category))
    for dt in (np.str_, np.bytes_, np.void, np.object_, *S.ALL):
        want = np.issubdtype(dt, getattr(np, category)) and dt != dr.dtype("bfloat16")
        assert impl.numpy.issubdtype(dt, cls) == want, dt


@pytest.mark.parametrize("kind", ["bool", "signed integer", "unsigned integer", "integral", "real floating",
                                  "complex floating", "numeric"])
def test_isdtype(impl: Impl, kind: str) -> None:
    for dt in S.ALL:
        want = {
            "bool": dt.kind == "b", "signed integer": dt.kind == "i", "unsigned integer": dt.kind == "u",
            "integral": dt.kind in "iu", "real floating": dt in S.FLOATING, "complex floating": dt.kind == "c",
            "numeric": dt.kind != "b",
        }[kind]
        assert impl.numpy.isdtype(dt, kind) == want, dt


def test_can_cast(impl: Impl) -> None:
    for a in S.ALL:
        for b in S.ALL:
            if "bfloat16" in (a.name, b.name):
                continue
            assert impl.numpy.can_cast(a, b) == np.can_cast(a, b), (a, b)
