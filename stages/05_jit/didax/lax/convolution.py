"""Convolution: one primitive, ``conv_general_dilated``, behind every convolution. Stage 01
introduced it.

A convolution slides a kernel (``rhs``) over the spatial axes of an input (``lhs``) and, at each
window position, contracts the window with the kernel over the input features. Which axis is which
is said by ``dimension_numbers``: the input and the output are (batch, feature, spatial...), the
kernel (out feature, in feature, spatial...), each in any order of axes. Around that core:

- ``padding``: (low, high) zeros added to each spatial axis (negative amounts crop);
- ``window_strides``: the step between windows;
- ``lhs_dilation``: holes between input elements (a transposed convolution);
- ``rhs_dilation``: holes between kernel elements (an atrous convolution);
- ``feature_group_count`` G: input features and kernels split into G groups, each group's kernels
  reading only its features (G = the feature count: a depthwise convolution);
- ``batch_group_count`` B: the input batch split into B groups, each group's kernels reading only
  its batch (how the gradient of a grouped convolution is written).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import dtypes
from ..core import ShapedArray, get_aval
from .dot import _compute_dtype
from .standard import ANY, check_dtype, standard_primitive
from .structural import _pad, rev, transpose


class ConvDimensionNumbers(NamedTuple):
    """Where each role's axis is: ``lhs_spec`` and ``out_spec`` list the batch axis, the feature
    axis, then the spatial axes; ``rhs_spec`` the out-feature axis, the in-feature axis, then the
    spatial axes, which the other two list in the same order."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:  # fmt: skip
    """``dimension_numbers`` as ConvDimensionNumbers: None means (N, C, spatial...) for the input
    and output and (O, I, spatial...) for the kernel; strings such as ``('NHWC', 'HWIO', 'NHWC')``
    name each axis by a letter, spatial axes by any other letters, ordered as in the kernel's."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got {type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got {len(dimension_numbers)}.")
    if not all(isinstance(spec, str) for spec in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, "
                            f"got {len(spec)} for lhs and rhs shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*_permutations(tuple(dimension_numbers)))


def _permutations(specs: tuple[str, str, str]) -> tuple[tuple[int, ...], ...]:
    """Each spec string as axis positions: its two named letters first, then its spatial letters
    in the order the kernel's spec has them."""
    named = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (spec, (a, b)) in enumerate(zip(specs, named)):
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' "
                            f"exactly once, got {spec}.")
        if len(set(spec)) != len(spec):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec}.")
    spatial = [set(spec) - set(pair) for spec, pair in zip(specs, named)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError(f"convolution dimension_numbers elements must each have the same set of spatial "
                        f"characters, got {specs}.")
    kernel_order = [c for c in specs[1] if c not in "OI"]
    return tuple((spec.index(a), spec.index(b), *(spec.index(c) for c in kernel_order))
                 for spec, (a, b) in zip(specs, named))


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int],
                    padding: str) -> list[tuple[int, int]]:  # fmt: skip
    """The (low, high) pads a padding name stands for. 'VALID': none. 'SAME': enough that the
    output has ceil(in / stride) elements, the odd one at the end ('SAME_LOWER': at the start)."""
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """The sizes once ``dilation - 1`` holes go between neighbours."""
    return tuple(0 if n == 0 else 1 + d * (n - 1) for n, d in zip(shape, dilation))


def strided_size(size: int, window: int, stride: int) -> int:
    """How many windows fit in ``size`` elements, ``stride`` apart."""
    return max((size - window) // stride + 1, 0)


# ----------------------------------------------------------------------------------------------
# The shape and dtype rules, with JAX's messages.


def _conv_shape(lhs: ShapedArray, rhs: ShapedArray, *, window_strides: tuple[int, ...],
                padding: tuple[tuple[int, int], ...], lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...],
                dimension_numbers: ConvDimensionNumbers, feature_group_count: int, batch_group_count: int,
                **_: Any) -> tuple[int, ...]:  # fmt: skip
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"conv_general_dilated lhs and rhs must have the same number of dimensions, "
                         f"but got {lhs.shape} and {rhs.shape}.")
    _check_groups(lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]], rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]],
                  feature_group_count, batch_group_count)
    spatial = len(rhs_spec) - 2
    if len(window_strides) != spatial:
        raise ValueError(f"conv_general_dilated window and window_strides must have the same number of "
                         f"dimensions, but got {spatial} and {len(window_strides)}")
    if len(padding) != spatial:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {spatial}, got {len(padding)}.")
    for name, values in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                         ("rhs_dilation", rhs_dilation)):  # fmt: skip
        if len(values) != spatial or any(v < 1 for v in values):
            raise ValueError(f"conv_general_dilated {name} must be {spatial} positive integers, got {values}.")
    lhs_sizes = dilate_shape([lhs.shape[d] for d in lhs_spec[2:]], lhs_dilation)
    window = dilate_shape([rhs.shape[d] for d in rhs_spec[2:]], rhs_dilation)
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_sizes, padding)]
    if any(n < 0 for n in padded):
        raise ValueError(f"Negative padding is larger than the size of the corresponding dimension: got "
                         f"padding={list(padding)} for lhs_shape[2:]={lhs_sizes}")
    out = (lhs.shape[lhs_spec[0]] // batch_group_count, rhs.shape[rhs_spec[0]],
           *map(strided_size, padded, window, window_strides))  # in (N, C, spatial...) order
    return tuple(out[i] for i in np.argsort(out_spec))


def _check_groups(batch: int, features: int, out_features: int, in_features: int, feature_group_count: int,
                  batch_group_count: int) -> None:  # fmt: skip
    name = "conv_general_dilated"
    for what, count in (("feature_group_count", feature_group_count), ("batch_group_count", batch_group_count)):
        if not count > 0:
            raise ValueError(f"{name} {what} must be a positive integer, got {count}.")
    if features % feature_group_count:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension size, but "
                         f"{feature_group_count} does not divide {features}.")
    if features // feature_group_count != in_features:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count must equal the rhs "
                         f"input feature dimension size, but {features} // {feature_group_count} != {in_features}.")
    for what, count in (("feature_group_count", feature_group_count), ("batch_group_count", batch_group_count)):
        if out_features % count:
            raise ValueError(f"{name} rhs output feature dimension size must be a multiple of {what}, but "
                             f"{out_features} is not a multiple of {count}.")
    if batch % batch_group_count:
        raise ValueError(f"{name} batch_group_count must divide lhs batch dimension size, but "
                         f"{batch_group_count} does not divide {batch}.")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, got "
                         f"batch_group_count={batch_group_count} and feature_group_count={feature_group_count}")


def _conv_dtype(lhs: ShapedArray, rhs: ShapedArray, *, preferred_element_type: Any, **_: Any) -> np.dtype:
    check_dtype("conv_general_dilated", lhs, ANY, position=0)
    check_dtype("conv_general_dilated", rhs, ANY, position=1)
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.conv_general_dilated requires arguments to have the same dtypes, got "
                        f"{lhs.dtype.name}, {rhs.dtype.name}.")
    if preferred_element_type is None:
        return lhs.dtype
    check_preferred_element_type(lhs.dtype, preferred_element_type)
    return preferred_element_type


def check_preferred_element_type(input_dtype: np.dtype, preferred: np.dtype) -> None:
    """A preferred result type keeps the input's kind (an integer may become a float) and is at
    least as wide."""
    kinds = (np.integer, np.floating, np.complexfloating)
    integer_to_float = dtypes.issubdtype(input_dtype, np.integer) and dtypes.issubdtype(preferred, np.floating)
    if not integer_to_float:
        if any(dtypes.issubdtype(input_dtype, k) and not dtypes.issubdtype(preferred, k) for k in kinds):
            raise TypeError("Input type is incompatible with `preferred_element_type`. The compatible combinations "
                            "of (input_type, preferred_element_type) are (integral, integral), (integral, floating), "
                            "(floating, floating), (complex, complex.")
        if dtypes.issubdtype(input_dtype, np.signedinteger) and not dtypes.issubdtype(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness as the original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


# ----------------------------------------------------------------------------------------------
# Evaluation: every window laid out as a row (im2col), then one batched matrix product per group.


def _conv(lhs: np.ndarray, rhs: np.ndarray, *, window_strides: tuple[int, ...], padding: tuple[tuple[int, int], ...],
          lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...], dimension_numbers: ConvDimensionNumbers,
          feature_group_count: int, batch_group_count: int, preferred_element_type: Any,
          **_: Any) -> np.ndarray:  # fmt: skip
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    result = np.dtype(lhs.dtype if preferred_element_type is None else preferred_element_type)
    common = _compute_dtype(result)
    zero = np.zeros((), common)
    # Into (N, C, spatial...) and (O, I, spatial...), holes and pads made by pad's own evaluation.
    x = lhs.transpose(lhs_spec).astype(common)
    w = rhs.transpose(rhs_spec).astype(common)
    x = _pad(x, zero, padding_config=((0, 0, 0),) * 2 + tuple((lo, hi, d - 1) for (lo, hi), d in
                                                             zip(padding, lhs_dilation)))  # fmt: skip
    w = _pad(w, zero, padding_config=((0, 0, 0),) * 2 + tuple((0, 0, d - 1) for d in rhs_dilation))
    out = _grouped_windows_product(x, w, window_strides, feature_group_count, batch_group_count)
    out = out.transpose(np.argsort(out_spec))
    return out != 0 if result == np.bool_ else out  # boolean: does any product in the window hold?


def _grouped_windows_product(x: np.ndarray, w: np.ndarray, strides: tuple[int, ...], feature_groups: int,
                             batch_groups: int) -> np.ndarray:  # fmt: skip
    """out[n, o, p...] = sum over the group's features c and window offsets k of
    x[n, c, p * stride + k] * w[o, c, k], for x in (N, C, spatial...) and w in (O, I, spatial...)."""
    n, (o, i), kernel = x.shape[0], w.shape[:2], w.shape[2:]
    spatial = len(kernel)
    sizes = [strided_size(size, k, s) for size, k, s in zip(x.shape[2:], kernel, strides)]
    if 0 in (*sizes, *kernel, n, o):  # nothing to compute (and NumPy's view refuses an empty window)
        return np.zeros((n // batch_groups, o, *sizes), x.dtype)
    windows = sliding_window_view(x, kernel, axis=tuple(range(2, 2 + spatial)))  # (N, C, P..., K...)
    windows = windows[(slice(None), slice(None), *(slice(None, None, s) for s in strides))]
    b, g = batch_groups, feature_groups  # at most one is above 1
    # Rows: (group, batch member and position); columns: (feature, window offset).
    rows = windows.reshape(b, n // b, g, i, *sizes, *kernel)
    order = (0, 2, 1, *range(4, 4 + spatial), 3, *range(4 + spatial, 4 + 2 * spatial))
    rows = rows.transpose(order).reshape(b * g, (n // b) * math.prod(sizes), i * math.prod(kernel))
    kernels = w.reshape(b * g, o // (b * g), i * math.prod(kernel)).transpose(0, 2, 1)
    out = np.matmul(rows, kernels)  # (groups, batch * positions, kernels of the group)
    out = out.reshape(b * g, n // b, *sizes, o // (b * g))
    out = np.moveaxis(out, -1, 1).reshape(b * g * (o // (b * g)), n // b, *sizes)  # groups then kernels: O
    return np.moveaxis(out, 0, 1)


conv_general_dilated_p = standard_primitive("conv_general_dilated", _conv, _conv_shape, _conv_dtype)


# ----------------------------------------------------------------------------------------------
# The public functions.


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: str | Sequence[tuple[int, int]],
                         lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1, batch_group_count: int = 1,
                         precision: Any = None, preferred_element_type: Any = None) -> Any:  # fmt: skip
    """The general convolution (see the module's docstring). ``padding`` is 'SAME', 'SAME_LOWER',
    'VALID' or one (low, high) pair per spatial axis; ``precision`` is accepted for JAX's
    signature and kept in the parameters, as JAX's jaxprs show it."""
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    numbers = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    spatial = len(lhs_shape) - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * spatial
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using this op. Please "
                         "either exactly specify the required padding or use conv_transpose.")
    rhs_dilation = (1,) * spatial if rhs_dilation is None else rhs_dilation
    if isinstance(padding, str):
        window = dilate_shape([rhs_shape[d] for d in numbers.rhs_spec[2:]], rhs_dilation)
        padding = padtype_to_pads([lhs_shape[d] for d in numbers.lhs_spec[2:]], window, window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError(f"padding argument to conv_general_dilated should be a string or a sequence of "
                             f"(low, high) pairs, got {padding}") from e
    preferred = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(map(int, window_strides)), padding=tuple(map(tuple, padding)),
        lhs_dilation=tuple(map(int, lhs_dilation)), rhs_dilation=tuple(map(int, rhs_dilation)),
        dimension_numbers=numbers, feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count), precision=precision, preferred_element_type=preferred)


def conv(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: str, precision: Any = None,
         preferred_element_type: Any = None) -> Any:  # fmt: skip
    """A convolution of an (N, C, spatial...) input with (O, I, spatial...) kernels."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int],
                              padding: str | Sequence[tuple[int, int]], lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``conv`` with explicit pads and dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision, preferred_element_type=preferred_element_type)


def _transpose_pads(window: int, stride: int, padding: str | tuple[int, int]) -> tuple[int, int]:
    """The pads of the transposed convolution that undoes a forward one padded by ``padding``."""
    if padding == "SAME":
        total = window + stride - 2
        low = window - 1 if stride > window - 1 else -(-total // 2)
    elif padding == "VALID":
        total = window + stride - 2 + max(window - stride, 0)
        low = window - 1
    elif isinstance(padding, tuple):
        low, high = (window - p - 1 for p in padding)
        total = low + high
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return low, total - low


_CHANNELS_LAST = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                  5: ("NHWDC", "HWDIO", "NHWDC")}  # fmt: skip


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: str | Sequence[tuple[int, int]],
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None, preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Any:  # fmt: skip
    """The 'transposed' (fractionally strided) convolution: holes ``strides - 1`` wide between
    input elements, then a convolution with unit strides. Channels last by default; 'SAME' and
    'VALID' (and, with ``use_consistent_padding``, explicit pairs) name the forward convolution's
    padding. ``transpose_kernel`` flips the kernel and swaps its feature axes, which makes this
    the gradient of the forward convolution."""
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    ndim = len(lhs_shape)
    if dimension_numbers is None:
        if ndim not in _CHANNELS_LAST:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _CHANNELS_LAST[ndim]
    numbers = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel = [rhs_shape[d] for d in numbers.rhs_spec[2:]]
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        forward = [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
        pads: Any = [_transpose_pads(k, s, p) for k, s, p in
                     zip(dilate_shape(kernel, rhs_dilation), strides, forward)]  # fmt: skip
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, numbers.rhs_spec[2:])
        axes = list(range(ndim))
        axes[numbers.rhs_spec[0]], axes[numbers.rhs_spec[1]] = axes[numbers.rhs_spec[1]], axes[numbers.rhs_spec[0]]
        rhs = transpose(rhs, axes)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, numbers,
                                precision=precision, preferred_element_type=preferred_element_type)
