"""Rearranging arrays: reshape, transpose, swapaxes, moveaxis, squeeze, expand_dims,
concatenate, stack, and the products dot and matmul. Stage 01 introduced it.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import lax
from ..core import get_aval
from .util import (
    ArrayLike,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes,
)
from .ufuncs import multiply


def reshape(a: ArrayLike, shape: Any = None, order: str = "C", *, copy: bool | None = None) -> ArrayLike:
    """A new shape for the same elements; one entry may be -1, inferred from the others. (``copy``
    is the array API's: arrays never share what a user can write, so either answer holds.)"""
    check_arraylike("reshape", a)
    if order != "C":
        raise NotImplementedError("didax.numpy.reshape supports only order='C'.")
    size = get_aval(a).size
    dims = [operator.index(d) for d in ((shape,) if isinstance(shape, (int, np.integer)) else shape)]
    if dims.count(-1) > 1:
        raise TypeError(f"can only specify one unknown dimension (-1) in a shape, got {tuple(dims)}.")
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of size {size} into shape {tuple(dims)}")
        dims[dims.index(-1)] = size // known
    if int(np.prod(dims, dtype=np.int64)) != size:
        raise TypeError(f"cannot reshape array of size {size} into shape {tuple(dims)}")
    return lax.reshape(a, tuple(dims))


def ravel(a: ArrayLike) -> ArrayLike:
    """The elements as a 1-d array, in row-major order."""
    return reshape(a, (-1,))


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> ArrayLike:
    """Permute the axes (reverse them by default); negative axes count from the end."""
    check_arraylike("transpose", a)
    ndim = get_aval(a).ndim
    if axes is None:
        return lax.transpose(a, tuple(reversed(range(ndim))))
    # Each axis is checked here; whether they make a permutation, lax.transpose checks.
    return lax.transpose(a, tuple(canonicalize_axis(i, ndim) for i in axes))


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> ArrayLike:
    """Exchange two axes."""
    check_arraylike("swapaxes", a)
    ndim = get_aval(a).ndim
    perm = list(range(ndim))
    i, j = _swap_axis(axis1, ndim), _swap_axis(axis2, ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def _swap_axis(axis: Any, ndim: int) -> int:
    """An axis for swapaxes, which (as in JAX) reports any bad axis as an IndexError."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise IndexError(f"swapaxes takes integer axes, got {axis!r} of type {type(axis).__name__}.")
    return canonicalize_axis(axis, ndim)  # AxisError is an IndexError too


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> ArrayLike:
    """Move axes to new positions; the other axes keep their order."""
    check_arraylike("moveaxis", a)
    ndim = get_aval(a).ndim
    src = _axes_maybe_repeated(source, ndim)
    dst = _axes_maybe_repeated(destination, ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        # JAX finds this when lax.transpose gets a non-permutation, so it is a TypeError.
        raise TypeError(f"moveaxis: repeated axis in source {source!r} or destination {destination!r}.")
    perm = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):  # insert each moved axis at its destination
        perm.insert(d, s)
    return lax.transpose(a, perm)


def _axes_maybe_repeated(axis: int | Sequence[int], ndim: int) -> tuple[int, ...]:
    """One axis or a sequence of axes, each checked and made non-negative; repeats are kept."""
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(canonicalize_axis(i, ndim) for i in axes)


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> ArrayLike:
    """Remove axes of length 1 (all of them, or the ones named)."""
    check_arraylike("squeeze", a)
    shape = get_aval(a).shape
    if axis is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        axes = canonicalize_axes(axis, len(shape))
    return lax.squeeze(a, axes)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> ArrayLike:
    """Insert axes of length 1 at the given positions of the result."""
    check_arraylike("expand_dims", a)
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return lax.expand_dims(a, canonicalize_axes(axes, get_aval(a).ndim + len(axes)))


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0) -> ArrayLike:
    """Join arrays along an existing axis (the flattened arrays if ``axis`` is None)."""
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    arrays = promote_dtypes(*arrays)
    if axis is None:
        return lax.concatenate([ravel(a) for a in arrays], 0)
    ndims = {get_aval(a).ndim for a in arrays}
    if ndims == {0}:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    if len(ndims) > 1:
        shapes = ", ".join(str(get_aval(a).shape) for a in arrays)
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got {shapes}.")
    return lax.concatenate(arrays, canonicalize_axis(axis, ndims.pop()))


def stack(arrays: Sequence[ArrayLike], axis: int = 0) -> ArrayLike:
    """Join arrays of one shape along a new axis."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    shapes = {get_aval(a).shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError("All input arrays must have the same shape.")
    axis = canonicalize_axis(axis, len(shapes.pop()) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


# ----------------------------------------------------------------------------------------------
# Products


def dot(a: ArrayLike, b: ArrayLike) -> ArrayLike:
    """NumPy's dot: scalars multiply; otherwise contract a's last axis with b's second-to-last."""
    check_arraylike("dot", a, b)
    a, b = promote_dtypes(a, b)
    a_ndim, b_ndim = get_aval(a).ndim, get_aval(b).ndim
    if a_ndim == 0 or b_ndim == 0:
        return multiply(a, b)
    b_axis = 0 if b_ndim == 1 else b_ndim - 2
    out = _dot_general(a, b, (((a_ndim - 1,), (b_axis,)), ((), ())))
    return _as_result(out, a, b)


def _dot_general(a: ArrayLike, b: ArrayLike, dimension_numbers: Any) -> ArrayLike:
    """dot_general of operands of one (promoted) dtype, accumulating in it: JAX's dot and matmul
    name that dtype (``preferred_element_type``), and their jaxprs show it."""
    return lax.dot_general(a, b, dimension_numbers, preferred_element_type=get_aval(a).dtype)


def _as_result(out: ArrayLike, a: ArrayLike, b: ArrayLike) -> ArrayLike:
    """A product's result is weakly typed when both (promoted) operands are."""
    return convert(out, get_aval(a).dtype, get_aval(a).weak_type and get_aval(b).weak_type)


def matmul(a: ArrayLike, b: ArrayLike) -> ArrayLike:
    """The ``@`` product: stacks of matrices, with broadcasting over the leading (batch) axes.

    As JAX builds it: one dot_general with no broadcast operand. A 1-d operand has no matrix axis
    to add; a batch axis of size 1 on one side is squeezed out and the other side's axis is one
    of its free axes; the result is transposed into NumPy's order."""
    check_arraylike("matmul", a, b)
    a, b = promote_dtypes(a, b)
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if not a_shape or not b_shape:
        raise ValueError("matmul: operands must have at least one dimension; use * for scalars.")
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    if a_shape[-1] != b_shape[-2 if b_is_mat else -1]:
        raise TypeError(f"matmul: contracting dimensions differ: {a_shape} @ {b_shape}")
    nb = max(len(a_shape), len(b_shape)) - 2
    a_batch = (None,) * (nb - len(a_shape) + 2) + a_shape[:-2] if a_is_mat else (None,) * nb
    b_batch = (None,) * (nb - len(b_shape) + 2) + b_shape[:-2] if b_is_mat else (None,) * nb
    plan = _matmul_batch(a_shape, b_shape, a_batch, b_batch)
    a_squeeze, b_squeeze, both_squeeze, a_dims, b_dims, (batch, a_other, b_other) = plan
    if a_squeeze:
        a = lax.squeeze(a, a_squeeze)
    if b_squeeze:
        b = lax.squeeze(b, b_squeeze)
    a_ndim, b_ndim = get_aval(a).ndim, get_aval(b).ndim
    out = _dot_general(a, b, (((a_ndim - 1,), (b_ndim - 1 - b_is_mat,)), (a_dims, b_dims)))
    # Where each axis of dot_general's result (batch, a's free, b's free) goes: a's row and b's
    # column are the last two.
    order = batch + a_other + [nb] * a_is_mat + b_other + [nb + a_is_mat] * b_is_mat
    perm = tuple(int(i) for i in np.argsort(order))
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, both_squeeze)
    return _as_result(out, a, b)


def _matmul_batch(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], a_batch: tuple[Any, ...], b_batch: tuple[Any, ...]
) -> tuple[list[int], list[int], list[int], list[int], list[int], tuple[list[int], ...]]:
    """Per batch axis i (None where an operand has none): which operand axes to squeeze, which are
    dot_general's batch axes, and which result axes i are batch axes, a's free axes and b's free
    axes: JAX's matmul plan."""
    a_squeeze: list[int] = []
    b_squeeze: list[int] = []
    both_squeeze: list[int] = []
    a_dims: list[int] = []
    b_dims: list[int] = []
    batch: list[int] = []
    a_other: list[int] = []
    b_other: list[int] = []
    for i, (na, nb) in enumerate(zip(a_batch, b_batch)):
        if na is None:
            b_other.append(i)
        elif nb is None:
            a_other.append(i)
        elif na == 1 and nb == 1:  # squeezed from both, put back at the end
            a_squeeze.append(len(batch) + len(a_other) + len(a_squeeze))
            b_squeeze.append(len(batch) + len(b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif na == 1:
            b_other.append(i)
            a_squeeze.append(len(batch) + len(a_other) + len(a_squeeze))
        elif nb == 1:
            a_other.append(i)
            b_squeeze.append(len(batch) + len(b_other) + len(b_squeeze))
        elif na == nb:
            a_dims.append(len(batch) + len(a_other))
            b_dims.append(len(batch) + len(b_other))
            batch.append(i)
        else:
            raise ValueError(f"matmul: batch dimensions of {a_shape} and {b_shape} do not broadcast")
    return a_squeeze, b_squeeze, both_squeeze, a_dims, b_dims, (batch, a_other, b_other)
