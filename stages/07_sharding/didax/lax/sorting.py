"""Sorting: ``sort`` (several operands ordered by the first few, as keys) and ``top_k``.
Stage 01 introduced them.

Both are primitives with several results, so they are declared here with their own abstract
evaluation, which returns one abstract value per result.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..array import Array, to_array
from ..core import Primitive, ShapedArray, get_aval
from .standard import ORDERED, check_axes, check_dtype, quietly

Rule = Any


def multiple_results_primitive(name: str, numpy_fn: Rule, abstract_eval: Rule) -> Primitive:
    """A primitive with a list of results: ``abstract_eval`` gives their abstract values, and
    ``numpy_fn`` their values, computed by NumPy after abstract evaluation has checked the types."""
    prim = Primitive(name)
    prim.multiple_results = True
    prim.def_abstract_eval(abstract_eval)

    def impl(*args: Any, **params: Any) -> list[Array]:
        arrays = [x if type(x) is Array else to_array(x) for x in args]
        out_avals = abstract_eval(*[ShapedArray(a.shape, a.dtype, a.weak_type) for a in arrays], **params)
        outs = quietly(numpy_fn, [a._value for a in arrays], params)
        return [Array(np.asarray(v, aval.dtype), aval.weak_type) for v, aval in zip(outs, out_avals)]

    prim.def_impl(impl)
    return prim


def _axis(axis: int, ndim: int) -> int:
    """A negative axis counts from the end (the functions take them; the primitives do not)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# ----------------------------------------------------------------------------------------------
# sort: order the operands along `dimension` by their first `num_keys` operands, compared
# lexicographically. Floats compare as XLA's sort does: NaNs after everything, -0.0 equal to 0.0;
# complex numbers by real part, then imaginary part.


def _sort_abstract_eval(
    *operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> list[ShapedArray]:
    if not operands:
        raise TypeError("Sort requires at least one operand")
    if len({x.shape for x in operands}) > 1:
        raise TypeError(f"Arguments to sort must have equal shapes, got: {' '.join(str(x.shape) for x in operands)}")
    check_axes("sort", (dimension,), operands[0].ndim, what="dimension")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort num_keys={num_keys} must be between 1 and the number of operands, {len(operands)}.")
    return [ShapedArray(x.shape, x.dtype, x.weak_type) for x in operands]


def _ascending_keys(x: np.ndarray) -> list[np.ndarray]:
    """Arrays whose lexicographic order NumPy's sort gives as XLA orders ``x``: NumPy also puts
    NaNs last and treats -0.0 as 0.0. A complex number is two keys; 16-bit floats are widened,
    because NumPy does not sort bfloat16 by value."""
    if x.dtype.kind == "c":
        return [x.real, x.imag]
    if x.dtype.itemsize == 2 and x.dtype.kind not in "iu":
        return [x.astype(np.float32)]
    return [x]


def _sort(*operands: np.ndarray, dimension: int, is_stable: bool, num_keys: int) -> list[np.ndarray]:
    keys = [k for x in operands[:num_keys] for k in _ascending_keys(x)]
    # lexsort sorts by its last key first, and is stable (so also when is_stable is False).
    order = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(x, order, axis=dimension) for x in operands]


sort_p = multiple_results_primitive("sort", _sort, _sort_abstract_eval)


def sort(
    operand: Any | Sequence[Any], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Any:
    """Sort along ``dimension``; given a sequence of arrays, sort them all by the first ``num_keys``."""
    if isinstance(operand, (tuple, list)):
        if not operand:
            raise TypeError("Sort requires at least one operand")
        dimension = _axis(dimension, get_aval(operand[0]).ndim)
        params = dict(dimension=dimension, is_stable=bool(is_stable), num_keys=operator.index(num_keys))
        return tuple(sort_p.bind(*operand, **params))
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
    dimension = _axis(dimension, get_aval(operand).ndim)
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple[Any, Any]:
    """Sort ``keys`` along ``dimension``, and ``values`` in the same order."""
    return sort((keys, values), dimension, is_stable, num_keys=1)


# ----------------------------------------------------------------------------------------------
# top_k: the k largest entries along `axis`, largest first, and their indices. Ties go to the
# lower index; floats are ordered totally, by their bits: -NaN < -inf < ... < -0.0 < 0.0 < ...
# < inf < NaN.


def _top_k_abstract_eval(x: ShapedArray, *, k: int, axis: int) -> list[ShapedArray]:
    check_dtype("top_k", x, ORDERED)
    check_axes("top_k", (axis,), x.ndim, what="axis")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if k > x.shape[axis]:
        raise ValueError(
            f"k argument to top_k must be no larger than size along axis; got k={k} with "
            f"shape={list(x.shape)} and axis={axis}"
        )
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1 :]
    # JAX gives the indices the operand's weak type too.
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32, x.weak_type)]


def _total_order(x: np.ndarray) -> np.ndarray:
    """Integers ordered as ``x`` is in top_k. A float's bits, read as a signed integer, are in
    order for positive floats and in reverse order for negative ones: flip those."""
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    if x.dtype.kind in "iu":
        return x
    bits = x.view(np.dtype(f"int{8 * x.dtype.itemsize}"))
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _top_k(x: np.ndarray, *, k: int, axis: int) -> list[np.ndarray]:
    # ~key reverses the order without overflow; a stable sort keeps ties in index order.
    order = np.argsort(~_total_order(x), axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, indices, axis=axis), indices.astype(np.int32)]


top_k_p = multiple_results_primitive("top_k", _top_k, _top_k_abstract_eval)


def top_k(operand: Any, k: int, *, axis: int = -1) -> list[Any]:
    """The ``k`` largest entries along ``axis``, largest first, and their int32 indices: a list,
    as JAX's binding of a primitive with several results gives."""
    if k < 0:  # JAX compares first, so a traced k fails on its truth value
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = _axis(axis, get_aval(operand).ndim)
    values, indices = top_k_p.bind(operand, k=operator.index(k), axis=axis)
    return [values, indices]
