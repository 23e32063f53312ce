"""packbits and unpackbits: truth values packed eight to a uint8 and back, with shifts and
bitwise operations along the last axis. Stage 01 introduced it.
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import get_aval
from .shapes import ravel, swapaxes
from .util import ArrayLike, as_array, check_arraylike, convert

_UINT8 = np.dtype(np.uint8)


def _check_bitorder(bitorder: str) -> None:
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")


def _bit_positions(bitorder: str, shape: tuple[int, ...]) -> ArrayLike:
    """0..7 along the last axis of ``shape`` (7..0 for big-endian: the first bit is the highest)."""
    positions = lax.broadcasted_iota(_UINT8, shape, len(shape) - 1)
    return lax.sub(convert(7, _UINT8), positions) if bitorder == "big" else positions


def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> ArrayLike:
    """Each run of eight truth values along ``axis`` (of the flattened array for None) as the bits
    of one uint8; a last run shorter than eight is padded with zeros."""
    check_arraylike("packbits", a)
    arr = as_array(a)
    if get_aval(arr).dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    _check_bitorder(bitorder)
    bits = convert(lax.ne(arr, convert(0, get_aval(arr).dtype)), _UINT8)
    if axis is None:
        bits, axis = ravel(bits), 0
    bits = swapaxes(bits, axis, -1)
    *batch, n = get_aval(bits).shape
    if n % 8:
        bits = lax.pad(bits, convert(0, _UINT8), [(0, 0, 0)] * len(batch) + [(0, 8 - n % 8, 0)])
    groups = lax.reshape(bits, (*batch, -(-n // 8), 8))
    shifted = lax.shift_left(groups, _bit_positions(bitorder, get_aval(groups).shape))
    return swapaxes(lax.reduce_or(shifted, (len(batch) + 1,)), axis, -1)  # distinct bits: or is sum


def unpackbits(a: ArrayLike, axis: int | None = None, count: int | None = None, bitorder: str = "big") -> ArrayLike:
    """The eight bits of each uint8 along ``axis`` (of the flattened array for None), as 0 and 1;
    ``count`` keeps that many (padding with zeros) or, negative, drops that many from the end."""
    check_arraylike("unpackbits", a)
    arr = as_array(a)
    if get_aval(arr).dtype != _UINT8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _check_bitorder(bitorder)
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    *batch, n = get_aval(arr).shape
    spread = lax.broadcast_in_dim(arr, (*batch, n, 8), tuple(range(len(batch) + 1)))
    masks = lax.shift_left(convert(1, _UINT8), _bit_positions(bitorder, get_aval(spread).shape))
    bits = convert(lax.ne(lax.bitwise_and(spread, masks), convert(0, _UINT8)), _UINT8)
    bits = lax.reshape(bits, (*batch, n * 8))
    if count is not None:
        if count > n * 8:
            bits = lax.pad(bits, convert(0, _UINT8), [(0, 0, 0)] * len(batch) + [(0, count - n * 8, 0)])
        else:
            start, stop, _ = slice(None, count).indices(n * 8)
            bits = lax.slice_in_dim(bits, start, stop, axis=-1)
    return swapaxes(bits, axis, -1)
