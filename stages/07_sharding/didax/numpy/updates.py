"""put, put_along_axis and place: NumPy's functions that write into an array, as functions that
return an updated copy through ``x.at[...].set``. didax arrays never change, so each asks for
``inplace=False`` (a reminder of the difference, as in JAX). Stage 01 introduced it.
"""

from __future__ import annotations

from .. import lax
from ..core import get_aval
from .manipulation import tile, unravel_index
from .shapes import ravel, reshape
from .sorting import nonzero
from .structure import indices as index_grids
from .ufuncs import clip, remainder
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axis, check_arraylike


def _refuse_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise ValueError(
            f"didax.numpy.{name} cannot modify arrays in place, because didax arrays are immutable. "
            "Pass inplace=False to get the updated array instead."
        )


def _tile_to_size(values: ArrayLike, size: int) -> ArrayLike:
    """The 1-D ``values`` repeated, then cut, to exactly ``size`` elements (NumPy's rule when a
    put or place has fewer values than places)."""
    n = get_aval(values).shape[0]
    if n < size:
        values = tile(values, -(-size // n))
    return lax.slice_in_dim(values, 0, size) if get_aval(values).shape[0] > size else values


def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True) -> ArrayLike:
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated as needed). Out-of-range
    positions are clipped (mode None or 'clip') or wrapped around ('wrap')."""
    _refuse_inplace("put", inplace)
    check_arraylike("put", a, ind, v)
    arr, ind_arr, v_arr = as_array(a), ravel(as_array(ind)), ravel(as_array(v))
    size = get_aval(arr).size
    n = get_aval(ind_arr).size
    if not size or not n or not get_aval(v_arr).size:
        return arr
    v_arr = _tile_to_size(v_arr, n)
    if mode is None:
        scatter_mode = "drop"  # unravel_index clips already (a negative index counts from the end)
    elif mode == "clip":
        ind_arr, scatter_mode = clip(ind_arr, 0, size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind_arr, scatter_mode = remainder(ind_arr, size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to didax.numpy.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[unravel_index(ind_arr, get_aval(arr).shape)].set(v_arr, mode=scatter_mode)


def put_along_axis(
    arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None, inplace: bool = True, *,
    mode: str | None = None,
) -> ArrayLike:  # fmt: skip
    """``arr`` with ``values`` written at ``indices`` along ``axis``, the other axes matched up:
    the writing counterpart of take_along_axis."""
    _refuse_inplace("put_along_axis", inplace)
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices, values = as_array(arr), as_array(indices), as_array(values)
    original_shape = get_aval(arr).shape
    if axis is None:
        arr, axis = ravel(arr), 0
    ndim, index_shape = get_aval(arr).ndim, get_aval(indices).shape
    if ndim != len(index_shape):
        raise ValueError(
            "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
            f"arr.ndim={ndim} and indices.ndim={len(index_shape)}."
        )
    try:
        values = broadcast_to(values, index_shape)
    except ValueError:
        raise ValueError(
            "put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
            f"values.shape={get_aval(values).shape} and indices.shape={index_shape}."
        ) from None
    # An index array per axis: the open grid of positions, with ``indices`` along ``axis``.
    index = list(index_grids(get_aval(arr).shape, sparse=True))
    index[canonicalize_axis(axis, ndim)] = indices
    result = arr.at[tuple(index)].set(values, mode=mode)
    return reshape(result, original_shape) if get_aval(result).shape != original_shape else result


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> ArrayLike:
    """``arr`` with the places where ``mask`` is true set, in order, to ``vals`` (repeated as
    needed). The number of places need not be known: they are found with a fixed-size nonzero."""
    check_arraylike("place", arr, mask, vals)
    data, mask_arr, vals_arr = as_array(arr), as_array(mask), ravel(as_array(vals))
    _refuse_inplace("place", inplace)
    size = get_aval(data).size
    if size != get_aval(mask_arr).size:
        raise ValueError("place: arr and mask must be the same size")
    if not get_aval(vals_arr).size:
        raise ValueError("Cannot place values from an empty array")
    if not size:
        return data
    # The positions of the true entries, padded with an out-of-range one that the update drops.
    (positions,) = nonzero(ravel(mask_arr), size=size, fill_value=size)
    vals_arr = _tile_to_size(vals_arr, size)
    return reshape(ravel(data).at[positions].set(vals_arr, mode="drop"), get_aval(data).shape)

