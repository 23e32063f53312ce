"""jax.lax's convolutions against a reference written here: ``conv_general_dilated`` on drawn
shapes, strides, paddings (names and pairs, negative ones crop), input and kernel dilations,
feature and batch groups, dimension numbers (None, letter strings, ConvDimensionNumbers) and dtypes;
the wrappers ``conv``, ``conv_with_general_padding`` and ``conv_transpose``; the helpers
``padtype_to_pads`` and ``conv_dimension_numbers`` against values worked out by hand; and the
errors JAX raises for misuse.

The reference computes each output element as a sum over the window, reading the input at the
position the window's offset lands on: no padded or dilated copy is ever made, so it shares no step
with an implementation that builds one.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call, wide
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]


def conv_reference(x: np.ndarray, w: np.ndarray, strides: tuple[int, ...], pads: list[tuple[int, int]],
                   lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...], specs: tuple[tuple[int, ...], ...],
                   feature_groups: int = 1, batch_groups: int = 1) -> np.ndarray:  # fmt: skip
    """out[n, o, p] = sum over the group's input features c and kernel offsets k of
    x[n', c, i] * w[o, c', k], where the window's offset lands at p * stride + k * rhs_dilation
    in the padded, dilated input, which holds x[i] at lo + i * lhs_dilation. Specs are axis
    positions: (batch, feature, spatial...) for x and the output, (out, in, spatial...) for w."""
    lhs_spec, rhs_spec, out_spec = specs
    x, w = wide(x).transpose(lhs_spec), wide(w).transpose(rhs_spec)
    (n, _), (o, i), sizes, kernel = x.shape[:2], w.shape[:2], x.shape[2:], w.shape[2:]
    dilated = [(s - 1) * d + 1 if s else 0 for s, d in zip(sizes, lhs_dilation)]
    window = [(k - 1) * d + 1 if k else 0 for k, d in zip(kernel, rhs_dilation)]
    out_sizes = [max((s + lo + hi - k) // st_ + 1, 0)
                 for s, (lo, hi), k, st_ in zip(dilated, pads, window, strides)]  # fmt: skip
    groups = feature_groups * batch_groups
    per_group = o // groups
    out = np.zeros((n // batch_groups, o, *out_sizes), np.result_type(x, w))
    for b, oo in itertools.product(range(n // batch_groups), range(o)):
        g = oo // per_group
        member = b + g * (n // batch_groups) if batch_groups > 1 else b
        features = slice(g * i, (g + 1) * i) if feature_groups > 1 else slice(0, i)
        for p in itertools.product(*map(range, out_sizes)):
            total = 0
            for k in itertools.product(*map(range, kernel)):
                at = [pi * s + ki * d - lo for pi, s, ki, d, (lo, _) in zip(p, strides, k, rhs_dilation, pads)]
                if all(0 <= a and a % ld == 0 and a // ld < size for a, ld, size in zip(at, lhs_dilation, sizes)):
                    idx = tuple(a // ld for a, ld in zip(at, lhs_dilation))
                    total = total + np.sum(x[(member, features, *idx)] * w[(oo, slice(None), *k)])
            out[(b, oo, *p)] = total
    return out.transpose(np.argsort(out_spec))


def same_pads(sizes: list[int], window: list[int], strides: tuple[int, ...], lower: bool) -> list[tuple[int, int]]:
    """'SAME' as a count of outputs: ceil(size / stride) of them, the pads that make it."""
    pads = []
    for size, k, s in zip(sizes, window, strides):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total - total // 2, total // 2) if lower else (total // 2, total - total // 2))
    return pads


# --- drawn convolutions -------------------------------------------------------------------------------

LETTERS = "HWD"


@st.composite
def convolutions(draw: Any) -> dict:
    """A convolution problem: shapes in (N, C, spatial...) terms that satisfy the group rules, and
    how the arrays lay them out."""
    spatial = draw(st.integers(1, 2), label="spatial dims")
    kind = draw(st.sampled_from(["none", "feature", "batch"]), label="groups")
    count = 2 if kind != "none" else 1
    groups = {"feature": count if kind == "feature" else 1, "batch": count if kind == "batch" else 1}
    per_group_in = draw(st.integers(1, 2), label="input features per group")
    per_group_out = draw(st.integers(1, 2), label="kernels per group")
    batch = groups["batch"] * draw(st.integers(1, 2), label="batch per group")
    sizes = draw(st.lists(st.integers(1, 5), min_size=spatial, max_size=spatial), label="spatial sizes")
    kernel = draw(st.lists(st.integers(1, 3), min_size=spatial, max_size=spatial), label="kernel sizes")
    strides = tuple(draw(st.lists(st.integers(1, 3), min_size=spatial, max_size=spatial), label="strides"))
    rhs_dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=spatial, max_size=spatial), label="rhs_dilation"))
    lhs_dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=spatial, max_size=spatial), label="lhs_dilation"))
    padding: Any = draw(st.sampled_from(["pairs", "SAME", "VALID", "SAME_LOWER"]), label="padding kind")
    if padding == "pairs":
        dilated = [(s - 1) * d + 1 for s, d in zip(sizes, lhs_dilation)]
        padding = [(draw(st.integers(-min(1, s - 1), 2)), draw(st.integers(-min(1, s - 1), 2))) for s in dilated]
        padding = [(lo, max(hi, -(s + lo))) for (lo, hi), s in zip(padding, dilated)]
    else:
        lhs_dilation = (1,) * spatial  # names are for convolutions without input dilation
    letters = LETTERS[:spatial]
    canonical = ("NC" + letters, "OI" + letters, "NC" + letters)
    layout = draw(st.sampled_from(["default", "strings", "ConvDimensionNumbers"]), label="dimension_numbers")
    specs = canonical if layout == "default" else tuple(
        "".join(draw(st.permutations(list(spec)), label=f"{which} spec"))
        for which, spec in zip(("lhs", "rhs", "out"), canonical))  # fmt: skip
    return dict(spatial=spatial, groups=groups, in_features=per_group_in, out_features=per_group_out * count,
                batch=batch, sizes=sizes, kernel=kernel, strides=strides, rhs_dilation=rhs_dilation,
                lhs_dilation=lhs_dilation, padding=padding, layout=layout, specs=specs)


def spatial_order(specs: tuple[str, str, str]) -> str:
    """The spatial letters in the order the kernel's spec has them: the order of the strides,
    pads and dilations (and of the drawn sizes)."""
    return "".join(c for c in specs[1] if c not in "OI")


def positions(specs: tuple[str, str, str]) -> tuple[tuple[int, ...], ...]:
    """Letter specs as axis positions: the two named axes, then the spatial ones in the kernel's order."""
    named = ("NC", "OI", "NC")
    return tuple(tuple(spec.index(c) for c in pair + spatial_order(specs)) for spec, pair in zip(specs, named))


def laid_out(canonical_shape: list[int], spec: str, letters: str) -> tuple[int, ...]:
    """The shape of an array whose axes follow `spec`, given its sizes in `letters` order."""
    return tuple(canonical_shape[letters.index(c)] for c in spec)


CONV_DTYPES = (np.dtype("float32"), np.dtype("float64"), np.dtype("complex64"), np.dtype("int32"), np.dtype("int8"),
               np.dtype("float16"), np.dtype("bool"))  # fmt: skip


@given(data=st.data(), problem=convolutions())
def test_conv_general_dilated_matches_the_reference(impl: Impl, flags, data: st.DataObject, problem: dict) -> None:
    """Every parameter at once, against the reference: values, dtype (the inputs'), shape."""
    x64 = draw_x64(data, flags)
    p = problem
    letters, rhs_letters = ("NC" + spatial_order(p["specs"]), "OI" + spatial_order(p["specs"]))
    lhs_shape = laid_out([p["batch"], p["in_features"] * p["groups"]["feature"], *p["sizes"]], p["specs"][0], letters)
    rhs_shape = laid_out([p["out_features"], p["in_features"], *p["kernel"]], p["specs"][1], rhs_letters)
    dt = dr.canonicalize(data.draw(st.sampled_from(CONV_DTYPES), label="dtype"), x64)
    x = data.draw(S.arrays(dt, lhs_shape, S.SMALL), label="x")
    w = data.draw(S.arrays(dt, rhs_shape, S.SMALL), label="w")
    specs = positions(p["specs"])
    numbers: Any = {"default": None, "strings": p["specs"]}.get(p["layout"], specs)
    window = [(k - 1) * d + 1 for k, d in zip(p["kernel"], p["rhs_dilation"])]
    padding = p["padding"]
    pads = padding if not isinstance(padding, str) else (
        [(0, 0)] * p["spatial"] if padding == "VALID" else
        same_pads(p["sizes"], window, p["strides"], lower=padding == "SAME_LOWER"))  # fmt: skip
    kwargs = dict(lhs_dilation=p["lhs_dilation"], rhs_dilation=p["rhs_dilation"],
                  feature_group_count=p["groups"]["feature"], batch_group_count=p["groups"]["batch"])
    show_call("lax.conv_general_dilated(x, w, strides, padding, dimension_numbers=numbers, **kwargs)",
              x=x, w=w, strides=p["strides"], padding=padding, numbers=numbers, kwargs=kwargs)
    if p["layout"] == "ConvDimensionNumbers":
        numbers = impl.lax.ConvDimensionNumbers(*specs)
    got = impl.lax.conv_general_dilated(x, w, p["strides"], padding, dimension_numbers=numbers, **kwargs)
    want = conv_reference(x, w, p["strides"], pads, p["lhs_dilation"], p["rhs_dilation"], specs,
                          p["groups"]["feature"], p["groups"]["batch"])  # fmt: skip
    assert_dtype(got, dt, weak=False)
    terms = max(1, p["in_features"] * int(np.prod(p["kernel"])))
    assert_values(got, want != 0 if dt == np.bool_ else want, dt,
                  atol=0.0 if dt.kind in "biu" else RTOL[dt.name] * 25 * terms)  # fmt: skip


@pytest.mark.parametrize("dtype, preferred", [("int8", "int32"), ("float16", "float32"), ("int8", "float32")])
def test_preferred_element_type_is_the_accumulation_and_result_type(impl: Impl, dtype: str, preferred: str) -> None:
    """int8 products summed in int32 do not wrap; float16 ones summed in float32 keep their bits."""
    x = np.full((1, 3, 8), 100 if dtype == "int8" else 0.1, dtype)
    w = np.full((1, 3, 4), 100 if dtype == "int8" else 3.0, dtype)
    show_call(f"lax.conv_general_dilated(x, w, (1,), 'VALID', preferred_element_type=np.{preferred})", x=x, w=w)
    got = impl.lax.conv_general_dilated(x, w, (1,), "VALID", preferred_element_type=np.dtype(preferred))
    want = conv_reference(x, w, (1,), [(0, 0)], (1,), (1,), ((0, 1, 2),) * 3)
    assert_dtype(got, np.dtype(preferred), weak=False)
    assert_values(got, want, np.dtype(preferred), atol=1e-5)


# --- the wrappers -------------------------------------------------------------------------------------

IMAGE = np.random.default_rng(3).normal(size=(2, 3, 6, 5)).astype(np.float32)  # N, C, H, W
KERNELS = np.random.default_rng(4).normal(size=(4, 3, 3, 2)).astype(np.float32)  # O, I, H, W
NCHW = ((0, 1, 2, 3),) * 3


@pytest.mark.parametrize("padding", ["SAME", "VALID", "same"])
def test_conv_is_the_nchw_convolution(impl: Impl, padding: str) -> None:
    """'SAME' (any case) keeps ceil(size / stride) outputs, 'VALID' only whole windows."""
    show_call(f"lax.conv(x, w, (2, 1), {padding!r})", x=IMAGE, w=KERNELS)
    got = impl.lax.conv(IMAGE, KERNELS, (2, 1), padding)
    pads = same_pads([6, 5], [3, 2], (2, 1), False) if padding != "VALID" else [(0, 0)] * 2
    assert_values(got, conv_reference(IMAGE, KERNELS, (2, 1), pads, (1, 1), (1, 1), NCHW), np.dtype("float32"),
                  atol=1e-5)  # fmt: skip
    assert got.shape == ((2, 4, 3, 5) if padding != "VALID" else (2, 4, 2, 4))


def test_conv_with_general_padding_takes_pairs_and_dilations(impl: Impl) -> None:
    show_call("lax.conv_with_general_padding(x, w, (1, 2), [(2, 0), (1, -1)], (2, 1), (1, 2))", x=IMAGE, w=KERNELS)
    got = impl.lax.conv_with_general_padding(IMAGE, KERNELS, (1, 2), [(2, 0), (1, -1)], (2, 1), (1, 2))
    want = conv_reference(IMAGE, KERNELS, (1, 2), [(2, 0), (1, -1)], (2, 1), (1, 2), NCHW)
    assert_values(got, want, np.dtype("float32"), atol=1e-5)


# Keras's rule for a transposed convolution's size: 'SAME' gives size * stride, 'VALID' adds what
# the window reaches past the last stride.
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_is_keras_conv2d_transpose(impl: Impl, padding: str, transpose_kernel: bool) -> None:
    """Channels last (NHWC, HWIO); the input spread out by the strides, then a unit-stride
    convolution with the padding that makes Keras's output size; ``transpose_kernel`` flips the
    kernel's window and swaps its feature axes first."""
    x = IMAGE.transpose(0, 2, 3, 1)  # N, H, W, C = 2, 6, 5, 3
    w = KERNELS.transpose(2, 3, 1, 0)  # H, W, I, O = 3, 2, 3, 4
    if transpose_kernel:
        w = w.transpose(0, 1, 3, 2)  # H, W, O, I: the forward convolution's kernel
    strides = (2, 3)
    show_call(f"lax.conv_transpose(x, w, {strides}, {padding!r}, transpose_kernel={transpose_kernel})", x=x, w=w)
    got = impl.lax.conv_transpose(x, w, strides, padding, transpose_kernel=transpose_kernel)
    sizes = [(6 * 2, 5 * 3) if padding == "SAME" else (6 * 2 + max(3 - 2, 0), 5 * 3 + max(2 - 3, 0))][0]
    kernel = w[::-1, ::-1].transpose(0, 1, 3, 2) if transpose_kernel else w
    # The spread input has (n - 1) * s + 1 elements; a unit-stride window of k gives the size asked
    # for when the pads add up to size - ((n - 1) * s + 1) + k - 1, split as Keras splits them.
    pads = []
    for n, s, k, size in zip((6, 5), strides, (3, 2), sizes):
        total = size - ((n - 1) * s + 1) + k - 1
        low = k - 1 if padding == "VALID" or s > k - 1 else -(-(k + s - 2) // 2)
        pads.append((low, total - low))
    want = conv_reference(x, kernel, (1, 1), pads, strides, (1, 1), ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)))
    assert got.shape == (2, *sizes, 4)
    assert_values(got, want, np.dtype("float32"), atol=1e-4)


def test_padtype_to_pads_worked_examples(impl: Impl) -> None:
    """Worked by hand: 5 elements, window 3, stride 2 keep 3 outputs with one pad each side; a
    window of 4 needs three pads, the odd one after ('SAME') or before ('SAME_LOWER')."""
    lax = impl.lax
    show_call("lax.padtype_to_pads((5, 5, 4), (3, 4, 1), (2, 2, 1), 'SAME')")
    assert [tuple(p) for p in lax.padtype_to_pads((5, 5, 4), (3, 4, 1), (2, 2, 1), "SAME")] == [(1, 1), (1, 2), (0, 0)]
    assert [tuple(p) for p in lax.padtype_to_pads((5,), (4,), (2,), "SAME_LOWER")] == [(2, 1)]
    assert [tuple(p) for p in lax.padtype_to_pads((5, 2), (3, 4), (2, 1), "VALID")] == [(0, 0), (0, 0)]
    with pytest.raises(RuntimeError):
        lax.padtype_to_pads((5,), (3,), (1,), "FULL")


def test_conv_dimension_numbers_reads_letters_in_the_kernels_order(impl: Impl) -> None:
    """TensorFlow's layouts: the input's and output's spatial axes listed in the order the
    kernel's spec names them (H then W)."""
    lax = impl.lax
    show_call("lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ('NHWC', 'HWIO', 'NHWC'))")
    got = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    assert tuple(map(tuple, got)) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert isinstance(got, lax.ConvDimensionNumbers) and got.rhs_spec == (3, 2, 0, 1)
    swapped = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NWHC", "WHIO", "CHWN"))
    assert tuple(map(tuple, swapped)) == ((0, 3, 1, 2), (3, 2, 0, 1), (3, 0, 2, 1))  # W first, as in the kernel
    assert tuple(map(tuple, lax.conv_dimension_numbers((1, 2, 3), (4, 2, 1), None))) == ((0, 1, 2),) * 3


# --- misuse -------------------------------------------------------------------------------------------

X3, W3 = np.ones((2, 4, 5), np.float32), np.ones((6, 2, 3), np.float32)  # 4 features, kernels of 2: 2 groups
W4 = np.ones((6, 4, 3), np.float32)  # kernels of all 4 features
CONV = "lax.conv_general_dilated"
MISUSES = [
    ("a different dtype", f"{CONV}(x, w4.astype(np.float16), (1,), 'VALID')", TypeError),
    ("ranks differ", f"{CONV}(x, w4[None], (1,), 'VALID')", TypeError),
    ("features not divided", f"{CONV}(x, w, (1,), 'VALID', feature_group_count=3)", ValueError),
    ("features per group", f"{CONV}(x, w, (1,), 'VALID')", ValueError),
    ("kernels not divided", f"{CONV}(x, w[:5], (1,), 'VALID', feature_group_count=2)", ValueError),
    ("batch not divided", f"{CONV}(x[:1, :2], w, (1,), 'VALID', batch_group_count=2)", ValueError),
    ("both groups", f"{CONV}(x, w, (1,), 'VALID', feature_group_count=2, batch_group_count=2)", ValueError),
    ("zero groups", f"{CONV}(x, w4, (1,), 'VALID', feature_group_count=0)", ValueError),
    ("strides per axis", f"{CONV}(x, w4, (1, 1), 'VALID')", ValueError),
    ("unknown padding", f"{CONV}(x, w4, (1,), 'FULL')", RuntimeError),
    ("pads not pairs", f"{CONV}(x, w4, (1,), [1])", ValueError),
    ("a name with lhs dilation", f"{CONV}(x, w4, (1,), 'SAME', lhs_dilation=(2,))", ValueError),
    ("cropping past the input", f"{CONV}(x, w4, (1,), [(-4, -3)])", ValueError),
    ("spec letters", f"{CONV}(x, w4, (1,), 'VALID', dimension_numbers=('NCH', 'OIW', 'NCH'))", TypeError),
    ("spec length", f"{CONV}(x, w4, (1,), 'VALID', dimension_numbers=('NCHW', 'OIH', 'NCH'))", TypeError),
    ("a narrower result", f"{CONV}(x, w4, (1,), 'VALID', preferred_element_type=np.float16)", TypeError),
]  # fmt: skip


@pytest.mark.parametrize("name, call, error", MISUSES, ids=[m[0] for m in MISUSES])
def test_misuse_raises_jaxs_error(impl: Impl, name: str, call: str, error: type) -> None:
    """Each misuse raises the exception class JAX raises, before anything is computed."""
    show_call(call, x=X3, w=W3, w4=W4)
    with pytest.raises(error):
        eval(call, {"lax": impl.lax, "np": np, "x": X3, "w": W3, "w4": W4})


def test_the_primitive_is_named_as_jaxprs_print_it(impl: Impl) -> None:
    """Every convolution is one primitive, conv_general_dilated (jaxprs and lowerings name it)."""
    assert impl.lax.conv_general_dilated_p.name == "conv_general_dilated"


@given(data=st.data())
def test_convolve_and_correlate_match_numpy(impl: Impl, flags, data: st.DataObject) -> None:
    """jnp.convolve and jnp.correlate, either argument the longer one (NumPy swaps them, and
    correlate then reverses its result), in each mode; integers give floats."""
    x64 = draw_x64(data, flags)
    dt = data.draw(st.sampled_from([np.dtype("float32"), np.dtype("int32"), np.dtype("complex64")]), label="dtype")
    a = data.draw(S.arrays(dt, (data.draw(st.integers(1, 6), label="len a"),), Domain(-3, 3)), label="a")
    v = data.draw(S.arrays(dt, (data.draw(st.integers(1, 6), label="len v"),), Domain(-3, 3)), label="v")
    name = data.draw(st.sampled_from(["convolve", "correlate"]), label="function")
    mode = data.draw(st.sampled_from(["full", "same", "valid"]), label="mode")
    show_call(f"jnp.{name}(a, v, mode={mode!r})", a=a, v=v)
    got = getattr(impl.numpy, name)(a, v, mode=mode)
    want = getattr(np, name)(wide(a), wide(v), mode=mode)
    want_dt = dr.inexact(dr.canonicalize(dt, x64), x64)
    assert_dtype(got, want_dt, weak=False)
    assert_values(got, want, want_dt, atol=RTOL[want_dt.name] * 60)
