"""The fast Fourier transform: one primitive, ``fft``, for the four kinds of transform. Stage 01
introduced it.

``fft_type`` says which: FFT and IFFT map complex arrays to complex arrays; RFFT maps a real array
to the half of its spectrum that is not redundant (``n // 2 + 1`` entries on the last axis), and
IRFFT maps such a half spectrum back to ``n`` real values. The transform acts on the last
``len(fft_lengths)`` axes (one to three); the axes before them are a batch. The inverse
transforms divide by the number of points, as NumPy's do.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import ShapedArray, get_aval
from .elementwise import convert_element_type
from .standard import standard_primitive


class FftType(enum.IntEnum):
    """Which transform ``fft`` computes (jaxprs print the number)."""

    FFT = 0  # complex to complex
    IFFT = 1  # its inverse
    RFFT = 2  # real to the half spectrum
    IRFFT = 3  # the half spectrum back to real


_NAMES = {**{t.name: t for t in FftType}, **{t.name.lower(): t for t in FftType}}  # "FFT" or "fft"


def _fft_type(fft_type: Any) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        if fft_type not in _NAMES:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return _NAMES[fft_type]
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex type a real one is transformed in: complex128 for 64-bit inputs (canonicalized,
    so complex64 while x64 is off), complex64 for every narrower one."""
    if dtypes.issubdtype(dtype, np.complexfloating):
        return np.dtype(dtype)
    return dtypes.canonicalize_dtype(np.complex128 if np.dtype(dtype).itemsize == 8 else np.complex64)


def _check_lengths(name: str, x: ShapedArray, minor: tuple[int, ...], want: tuple[int, ...]) -> None:
    if minor != want:
        raise ValueError(f"{name} input shape {x.shape} minor dimensions must be equal to fft_lengths {want}")


def _shape_rule(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> tuple[int, ...]:
    k = len(fft_lengths)
    if not 1 <= k <= 3:
        raise ValueError(f"fft_lengths {fft_lengths}: XLA transforms one to three axes, got {k}.")
    if k > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input dimensions "
                         f"as fft_lengths {fft_lengths}.")
    batch, minor = x.shape[:-k], x.shape[-k:]
    if fft_type == FftType.RFFT:
        _check_lengths("RFFT", x, minor, fft_lengths)
        return batch + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
    if fft_type == FftType.IRFFT:
        # The last input axis holds the half spectrum of the last length. (JAX leaves that check to
        # XLA, which refuses the program when it compiles it.)
        half = fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        if minor != half:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be {half}: the "
                             f"fft_lengths {fft_lengths} but the last, then half the last plus one")
        return batch + fft_lengths
    _check_lengths(fft_type.name, x, minor, fft_lengths)
    return x.shape


def _dtype_rule(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> np.dtype:
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        return complex_dtype(x.dtype)
    if not dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        return np.dtype(np.float64 if x.dtype == np.complex128 else np.float32)
    return x.dtype


def _fft(x: np.ndarray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> np.ndarray:
    if x.size == 0 or 0 in fft_lengths:  # NumPy refuses to transform nothing: a sum of no terms is 0
        shape = _shape_rule(ShapedArray(x.shape, x.dtype), fft_type=fft_type, fft_lengths=fft_lengths)
        return np.zeros(shape)
    # NumPy 2 transforms float32 and complex64 in single precision, as XLA does.
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.FFT:
        return np.fft.fftn(x, axes=axes)
    if fft_type == FftType.IFFT:
        return np.fft.ifftn(x, axes=axes)
    if fft_type == FftType.RFFT:
        return np.fft.rfftn(x, axes=axes)
    return np.fft.irfftn(x, s=fft_lengths, axes=axes)


fft_p = standard_primitive("fft", _fft, _shape_rule, _dtype_rule)


def fft(x: Any, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Any:
    """The transform ``fft_type`` (an FftType or its name) of the last ``len(fft_lengths)`` axes.
    The input is first cast to the type the transform takes: a real one for RFFT (integers become
    float), a complex one for the others."""
    kind = _fft_type(fft_type)
    dtype = get_aval(x).dtype
    if kind == FftType.RFFT:
        if dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, dtypes.to_inexact_dtype(dtype))
    else:
        x = convert_element_type(x, complex_dtype(dtype))
    if len(fft_lengths) == 0:
        return x
    return fft_p.bind(x, fft_type=kind, fft_lengths=tuple(int(n) for n in fft_lengths))

