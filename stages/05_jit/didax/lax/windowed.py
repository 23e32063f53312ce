"""Windowed reductions: a sum, maximum or minimum over every window of an array, the pooling
layers of a convolutional network. Stage 01 introduced them.

A window of ``window_dimensions`` slides over the operand ``window_strides`` apart; like a
convolution's, the operand may be padded (``padding``) and spread out (``base_dilation``: holes
between its elements) and the window spread out (``window_dilation``). Pads and holes hold the
reduction's identity: 0 for a sum, the lowest value for a maximum, the highest for a minimum. Each
of the three reductions is a primitive of its own (``reduce_window_sum`` and so on), as in JAX;
``lax.reduce_window`` picks one from its computation and initial value, and folds any other
computation over the window with slices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..core import ShapedArray, get_aval
from ..tree_util import tree_flatten, tree_unflatten
from . import elementwise
from .convolution import dilate_shape, padtype_to_pads, strided_size
from .reductions import _highest, _lowest, _max, _min, _sum
from .standard import ANY, NUMBER, check_dtype, standard_primitive
from .structural import _pad, full, pad
from .structural import slice as slice_

Window = tuple[int, ...]


def _window_shape(x: ShapedArray, *, window_dimensions: Window, window_strides: Window,
                  padding: tuple[tuple[int, int], ...], base_dilation: Window,
                  window_dilation: Window) -> tuple[int, ...]:  # fmt: skip
    """The output's shape, with JAX's errors for parameters that do not fit the operand."""
    if len(window_dimensions) != x.ndim:
        raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: got operand "
                        f"shape {x.shape} with window_dimensions {window_dimensions}.")
    for name, values in (("window_strides", window_strides), ("base_dilation", base_dilation),
                         ("window_dilation", window_dilation)):  # fmt: skip
        if len(values) != x.ndim:
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got {name} {values} "
                            f"and window_dimensions {window_dimensions}.")
    for name, values in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                         ("base_dilation", base_dilation), ("window_dilation", window_dilation)):  # fmt: skip
        if any(v <= 0 for v in values):
            raise TypeError(f"reduce_window {name} must have every element be strictly positive, got {values}.")
    if len(padding) != x.ndim:
        raise TypeError(f"reduce_window got {len(padding)} padding pairs for an operand of rank {x.ndim}.")
    padded = [n + lo + hi for n, (lo, hi) in zip(dilate_shape(x.shape, base_dilation), padding)]
    return tuple(map(strided_size, padded, dilate_shape(window_dimensions, window_dilation), window_strides))


def _windows(x: np.ndarray, identity: Any, window_dimensions: Window, window_strides: Window,
             padding: tuple[tuple[int, int], ...], base_dilation: Window, window_dilation: Window) -> np.ndarray:
    """Every window of ``x`` as trailing axes: shape (*output shape, *window_dimensions)."""
    x = _pad(x, np.asarray(identity, x.dtype),
             padding_config=tuple((lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)))
    spans = dilate_shape(window_dimensions, window_dilation)
    sizes = tuple(map(strided_size, x.shape, spans, window_strides))
    if 0 in sizes:  # no window fits: NumPy's view would refuse a window longer than the axis
        return np.zeros((*sizes, *window_dimensions), x.dtype)
    view = sliding_window_view(x, spans)  # (*positions, *spans)
    positions = tuple(slice(None, None, s) for s in window_strides)
    offsets = tuple(slice(None, None, d) for d in window_dilation)
    return view[(*positions, *offsets)]


# Each windowed reduction's identity, by dtype: what its pads and holes hold.
_IDENTITIES: dict[Any, Callable[[np.dtype], Any]] = {}


def _monoid(name: str, reduce: Callable[..., np.ndarray], identity: Callable[[np.dtype], Any],
            categories: tuple[str, ...]) -> Any:  # fmt: skip
    """The primitive that reduces each window with ``reduce`` (one of reductions' evaluations)."""

    def evaluate(x: np.ndarray, **params: Any) -> np.ndarray:
        windows = _windows(x, identity(x.dtype), **params)
        return reduce(windows, axes=tuple(range(x.ndim, 2 * x.ndim)))

    def dtype_rule(x: ShapedArray, **params: Any) -> np.dtype:
        check_dtype(name, x, categories)
        return x.dtype

    prim = standard_primitive(name, evaluate, _window_shape, dtype_rule)
    _IDENTITIES[prim] = identity
    return prim


def _max_identity(dtype: np.dtype) -> Any:
    return complex(-np.inf, 0) if dtype.kind == "c" else _lowest(dtype)  # complex: by the real part first


def _min_identity(dtype: np.dtype) -> Any:
    return complex(np.inf, 0) if dtype.kind == "c" else _highest(dtype)


reduce_window_sum_p = _monoid("reduce_window_sum", _sum, lambda dtype: 0, NUMBER)
reduce_window_max_p = _monoid("reduce_window_max", _max, _max_identity, ANY)
reduce_window_min_p = _monoid("reduce_window_min", _min, _min_identity, ANY)


def identity(prim: Any, dtype: np.dtype) -> np.ndarray:
    """What the pads and holes of windowed reduction ``prim`` hold: its identity, as a scalar."""
    return np.asarray(_IDENTITIES[prim](np.dtype(dtype)), dtype)


def reduce_window(operand: Any, init_value: Any, computation: Callable[[Any, Any], Any],
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] = "VALID", base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:  # fmt: skip
    """``computation`` folded over every window of ``operand`` (a pytree of arrays of one shape,
    with ``init_value`` of the same structure), starting from ``init_value``. The three monoids
    with their identities, ``lax.add`` from 0, ``lax.max`` from the lowest value and ``lax.min``
    from the highest, are primitives; any other computation is applied to strided slices, one
    position of the window at a time."""
    operands, tree = tree_flatten(operand)
    inits, init_tree = tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: {tree} vs. {init_tree}")
    if not operands:
        raise ValueError("reduce_window must have at least one operand.")
    aval = get_aval(operands[0])
    ones = (1,) * aval.ndim
    window_dimensions = tuple(map(int, window_dimensions))
    strides = ones if window_strides is None else tuple(map(int, window_strides))
    base = ones if base_dilation is None else tuple(map(int, base_dilation))
    dilation = ones if window_dilation is None else tuple(map(int, window_dilation))
    if isinstance(padding, str):
        if len(window_dimensions) != aval.ndim or len(strides) != aval.ndim:
            _window_shape(aval, window_dimensions=window_dimensions, window_strides=strides,
                          padding=((0, 0),) * aval.ndim, base_dilation=base, window_dilation=dilation)  # its errors
        # (from the operand's shape before base_dilation spreads it out, as JAX computes them)
        pads = padtype_to_pads(aval.shape, dilate_shape(window_dimensions, dilation), strides, padding)
    else:
        pads = [(int(lo), int(hi)) for lo, hi in padding]
    params = dict(window_dimensions=window_dimensions, window_strides=strides, padding=tuple(map(tuple, pads)),
                  base_dilation=base, window_dilation=dilation)  # fmt: skip
    prim = _monoid_primitive(computation, inits[0], aval.dtype) if len(operands) == 1 else None
    if prim is not None:
        return tree_unflatten(tree, [prim.bind(operands[0], **params)])
    _window_shape(aval, **params)  # (its errors)
    return tree_unflatten(tree, _fold_windows(operands, inits, tree, computation, **params))


def _fold_windows(operands: list[Any], inits: list[Any], tree: Any, computation: Callable[[Any, Any], Any], *,
                  window_dimensions: Window, window_strides: Window, padding: tuple[tuple[int, int], ...],
                  base_dilation: Window, window_dilation: Window) -> list[Any]:  # fmt: skip
    """The running results start at the initial values; at each position of the window, the
    strided slice of the elements it covers in every window is combined into them by
    ``computation`` (XLA's reduce_window, for a computation that is associative and commutative,
    as XLA asks). A window's pads and holes are skipped, as XLA skips them: where the slice holds
    one, the result stays what it was (a mask, padded and spread out as the operands are)."""
    operand_dtypes, init_dtypes = [get_aval(x).dtype for x in operands], [get_aval(v).dtype for v in inits]
    if operand_dtypes != init_dtypes:
        raise TypeError(f"reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
                        f"{operand_dtypes} and init_value dtypes {init_dtypes}.")
    configs = [(lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)]
    padded = [pad(x, v, configs) for x, v in zip(operands, inits)]
    shape = get_aval(padded[0]).shape
    gaps = any(lo > 0 or hi > 0 or interior > 0 for lo, hi, interior in configs)
    real = pad(full(get_aval(operands[0]).shape, True, np.bool_), False, configs) if gaps else None
    spans = dilate_shape(window_dimensions, window_dilation)
    out_shape = tuple(map(strided_size, shape, spans, window_strides))
    results = [full(out_shape, v, dtype) for v, dtype in zip(inits, operand_dtypes)]
    if 0 in out_shape:
        return results
    for offset in np.ndindex(*window_dimensions):
        start = tuple(o * d for o, d in zip(offset, window_dilation))
        limit = tuple(lo + (n - 1) * s + 1 for lo, n, s in zip(start, out_shape, window_strides))
        xs = [slice_(x, start, limit, window_strides) for x in padded]
        combined, out_tree = tree_flatten(computation(tree_unflatten(tree, results), tree_unflatten(tree, xs)))
        if out_tree != tree:
            raise ValueError(f"reduce_window output must have the same tree structure as the operands {tree} vs. "
                             f"{out_tree}")
        if real is not None:
            keep = slice_(real, start, limit, window_strides)
            combined = [elementwise.select_n(keep, old, new) for old, new in zip(results, combined)]
        results = combined
    return results


def _monoid_primitive(computation: Callable[[Any, Any], Any], init_value: Any, dtype: np.dtype) -> Any:
    """The primitive for a computation and initial value: the monoid's when the value is its
    identity, whatever its type (as in JAX); None for any other."""
    init = np.asarray(init_value)
    if init.shape == () and init.dtype != object:
        monoids = {elementwise.add: reduce_window_sum_p, elementwise.max: reduce_window_max_p,
                   elementwise.min: reduce_window_min_p}  # fmt: skip
        if computation in monoids and init == identity(monoids[computation], dtype):
            return monoids[computation]
    return None
