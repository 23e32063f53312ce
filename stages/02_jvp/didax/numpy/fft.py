"""didax.numpy.fft: NumPy's discrete Fourier transforms over lax's ``fft`` primitive. Stage 01
introduced it.

The primitive transforms the last one to three axes at their full size. Everything else NumPy
offers is arranged around it here, as in JAX: the chosen axes are moved last and back, each is
cropped or padded with zeros to the size asked for, more than three axes are transformed in
blocks of at most three, and ``norm`` scales the result.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ..lax.fourier import FftType
from .array_api import place
from .creation import arange, asarray
from .manipulation import roll
from .shapes import moveaxis
from .ufuncs import conjugate
from .util import ArrayLike, as_array, canonicalize_axis, check_arraylike

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

Shape = Sequence[int]


def _scale(name: str, norm: str | None, n: int) -> float | None:
    """The factor ``norm`` asks for, for a transform of ``n`` points, or None for none. The
    primitive's inverse transforms already divide by n ("backward")."""
    if norm is None or norm == "backward":
        return None
    inverse = name.startswith("i")
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    if norm == "forward":
        return float(n) if inverse else 1 / n
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _resized(x: ArrayLike, sizes: list[int]) -> ArrayLike:
    """``x`` cropped, then padded with zeros at the end, to ``sizes`` on every axis."""
    aval = get_aval(x)
    if any(n < d for n, d in zip(sizes, aval.shape)):
        x = lax.slice(x, (0,) * aval.ndim, tuple(min(n, d) for n, d in zip(sizes, aval.shape)))
    if any(n > d for n, d in zip(sizes, aval.shape)):
        zero = np.zeros((), aval.dtype)
        x = lax.pad(x, zero, [(0, max(n - d, 0), 0) for n, d in zip(sizes, aval.shape)])
    return x


def _blocks(x: ArrayLike, kind: FftType, lengths: tuple[int, ...]) -> ArrayLike:
    """The transform of the last ``len(lengths)`` axes, as blocks of at most three (XLA's limit).
    Forward transforms do the innermost block first (it holds the real-to-complex axis), inverse
    ones last, so that the complex-to-real axis is transformed last."""
    k = len(lengths)
    if k <= 3:
        return lax.fft(x, kind, lengths)
    inner = 2 if k == 4 else 3
    ndim = get_aval(x).ndim
    outer_axes = tuple(range(ndim - k, ndim - inner))
    moved_to = tuple(range(ndim - k + inner, ndim))
    outer_kind = FftType.IFFT if kind in (FftType.IFFT, FftType.IRFFT) else FftType.FFT
    if kind in (FftType.FFT, FftType.RFFT):
        x = lax.fft(x, kind, lengths[-inner:])
    outer = _blocks(moveaxis(x, outer_axes, moved_to), outer_kind, lengths[:-inner])
    x = moveaxis(outer, moved_to, outer_axes)
    if kind in (FftType.IFFT, FftType.IRFFT):
        x = lax.fft(x, kind, lengths[-inner:])
    return x


def _transform(name: str, kind: FftType, a: ArrayLike, s: Shape | None, axes: Sequence[int] | None,
               norm: str | None) -> ArrayLike:
    """The n-dimensional transform every function of this module is: over ``axes`` (all, or the
    last ``len(s)``, by default), at sizes ``s`` (the input's, by default)."""
    check_arraylike(f"jax.numpy.fft.{name}", a)
    x = as_array(a)
    ndim = get_aval(x).ndim
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
        if axes is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        axes = tuple(range(ndim - (ndim if s is None else len(s)), ndim))
    axes = tuple(axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"jax.numpy.fft.{name} does not support repeated axes. Got axes {axes}.")
    # The transformed axes go last, in their order, and come back after.
    given = tuple(canonicalize_axis(a, ndim) for a in axes)
    last = tuple(range(ndim - len(axes), ndim))
    if given != last:
        x = moveaxis(x, given, last)
    shape = list(get_aval(x).shape)
    if s is None:
        lengths = [shape[a] for a in last]
        if kind == FftType.IRFFT and lengths:  # n real points have n // 2 + 1 complex ones
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    else:
        lengths = list(s)
        sizes = shape[:ndim - len(axes)] + lengths
        if kind == FftType.IRFFT:
            sizes[-1] = lengths[-1] // 2 + 1
        x = _resized(x, sizes)
    out = _blocks(x, kind, tuple(lengths))
    factor = _scale(name, norm, math.prod(lengths))
    if factor is not None:
        out = out * factor
    return out if given == last else moveaxis(out, last, given)


def fftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> ArrayLike:
    """The n-dimensional discrete Fourier transform (over every axis by default)."""
    return _transform("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> ArrayLike:
    """The inverse of fftn."""
    return _transform("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> ArrayLike:
    """fftn of a real array, keeping the half of the last axis's spectrum that is not redundant."""
    return _transform("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> ArrayLike:
    """The inverse of rfftn: real values from a half spectrum."""
    return _transform("irfftn", FftType.IRFFT, a, s, axes, norm)


def _two(name: str, kind: FftType, a: ArrayLike, s: Shape | None, axes: Sequence[int],
         norm: str | None) -> ArrayLike:
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes!r}.")
    return _transform(name, kind, a, s, axes, norm)


def fft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> ArrayLike:
    """The two-dimensional transform, over the last two axes by default."""
    return _two("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> ArrayLike:
    """The inverse of fft2."""
    return _two("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> ArrayLike:
    """rfftn over two axes."""
    return _two("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> ArrayLike:
    """irfftn over two axes."""
    return _two("irfft2", FftType.IRFFT, a, s, axes, norm)


def _one_axis(name: str, axis: Any) -> None:
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"jax.numpy.fft.{name} does not support multiple axes. Please use "
                         f"jax.numpy.fft.{name}n. Got axis = {axis!r}.")


def _one(name: str, kind: FftType, a: ArrayLike, n: int | None, axis: int, norm: str | None) -> ArrayLike:
    _one_axis(name, axis)
    return _transform(name, kind, a, None if n is None else [n], [axis], norm)


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """The discrete Fourier transform along ``axis``, of ``n`` points (cropped or zero-padded)."""
    return _one("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """The inverse of fft."""
    return _one("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """fft of a real array: the n // 2 + 1 frequencies that are not mirror images of others."""
    return _one("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """The inverse of rfft: ``n`` real values (2 * (m - 1) by default) from m frequencies."""
    return _one("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """The transform of a signal whose spectrum is real: ``a`` is half of a Hermitian signal."""
    check_arraylike("jax.numpy.fft.hfft", a)
    _one_axis("hfft", axis)
    conj = conjugate(as_array(a))
    points = 2 * (get_aval(conj).shape[axis] - 1) if n is None else n
    return _one("hfft", FftType.IRFFT, conj, n, axis, norm) * points


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> ArrayLike:
    """The inverse of hfft."""
    check_arraylike("jax.numpy.fft.ihfft", a)
    _one_axis("ihfft", axis)
    x = as_array(a)
    points = get_aval(x).shape[axis] if n is None else n
    return conjugate(_one("ihfft", FftType.RFFT, x, n, axis, norm)) * (1 / points)


def _frequency_args(name: str, n: Any, d: Any, dtype: Any) -> np.dtype:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")
    return dtypes.canonicalize_dtype(dtype if dtype is not None else float)


def fftfreq(n: int, d: ArrayLike = 1.0, *, dtype: Any = None, device: Any = None) -> ArrayLike:
    """The frequencies of fft's n outputs, in cycles per unit of the spacing ``d``: 0, 1, ...,
    then the negative ones, each divided by d * n."""
    out_dtype = _frequency_args("fftfreq", n, d, dtype)
    work = dtypes.to_inexact_dtype(out_dtype)
    k = (arange(n, dtype=work) + n // 2) % n - n // 2
    return place((k / asarray(d * n, dtype=work)).astype(out_dtype), device)


def rfftfreq(n: int, d: ArrayLike = 1.0, *, dtype: Any = None, device: Any = None) -> ArrayLike:
    """The frequencies of rfft's n // 2 + 1 outputs: 0, 1, ..., n // 2, divided by d * n."""
    out_dtype = _frequency_args("rfftfreq", n, d, dtype)
    return place(arange(0, n // 2 + 1, dtype=out_dtype) / asarray(d * n, dtype=out_dtype), device)


def _shifted(name: str, x: ArrayLike, axes: Any, sign: int) -> ArrayLike:
    check_arraylike(name, x)
    x = as_array(x)
    shape = get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    if isinstance(axes, int):
        return roll(x, sign * (shape[axes] // 2), axes)
    return roll(x, [sign * (shape[a] // 2) for a in axes], axes)


def fftshift(x: ArrayLike, axes: None | int | Sequence[int] = None) -> ArrayLike:
    """The zero frequency moved to the middle: each axis rolled by half its size."""
    return _shifted("fftshift", x, axes, 1)


def ifftshift(x: ArrayLike, axes: None | int | Sequence[int] = None) -> ArrayLike:
    """The inverse of fftshift."""
    return _shifted("ifftshift", x, axes, -1)
