"""The lax primitives didax.random needs beyond the elementwise basics: erf, erf_inv, nextafter
and sort. Stage 01 introduced them.

MERGE NOTE: branch ``lax`` adds erf, erf_inv and sort (in its own lax/special.py and
lax/structural.py). Keep one primitive of each name: theirs, with float32 erf and erf_inv
evaluated by lax/xla_float32.py (XLA's formulas, which didax.random's bit-exact tests need);
nextafter may stay here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..array import Array, to_array
from ..core import Primitive, ShapedArray, get_aval
from .elementwise import binop, unop
from .standard import FLOATING, check_axes
from .xla_float32 import erf_f32, erf_inv_f32

# ----------------------------------------------------------------------------------------------
# erf and its inverse. float32 (and the 16-bit floats, which XLA computes in float32) use XLA's
# formulas; float64 is computed to about an ulp with the standard library.

_erf64 = np.vectorize(math.erf, otypes=[np.float64])
_erfc64 = np.vectorize(math.erfc, otypes=[np.float64])


def _erf(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float64:
        return _erf64(x)
    return erf_f32(x).astype(x.dtype)


def _erf_inv_f64(y: np.ndarray) -> np.ndarray:
    """Newton's method from the float32 guess; the tails solve erfc(x) = 1 - |y|, which keeps
    its precision where erf(x) is too close to 1 to tell values apart."""
    guess = erf_inv_f32(y.astype(np.float32)).astype(np.float64)
    inside = np.abs(y) < 1
    # Where y rounds to +-1 in float32, start from the tail's leading term sqrt(-log(1 - y^2)).
    rough = np.sign(y) * np.sqrt(-np.log1p(-np.where(inside, y * y, 0.0)))
    x = np.where(inside, np.where(np.isfinite(guess), guess, rough), 0.0)
    tail = np.abs(y) > 0.5
    for _ in range(6):
        # d erf(x)/dx = 2/sqrt(pi) exp(-x^2). The tails step on log(erfc(|x|)), which is nearly
        # quadratic in x there, so Newton converges as fast as in the centre.
        slope = 2 / math.sqrt(math.pi) * np.exp(-x * x)
        centre_step = (_erf64(x) - y) / slope
        with np.errstate(divide="ignore", invalid="ignore"):
            upper = _erfc64(np.abs(x))
            tail_step = -np.sign(y) * (np.log(upper) - np.log1p(-np.abs(y))) * upper / slope
        x = x - np.where(tail, np.nan_to_num(tail_step), centre_step)
    return np.where(inside, x, guess)


def _erf_inv(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float64:
        return _erf_inv_f64(x)
    return erf_inv_f32(x).astype(x.dtype)


erf_p = unop("erf", _erf, (FLOATING,))
erf_inv_p = unop("erf_inv", _erf_inv, (FLOATING,))
nextafter_p = binop("nextafter", np.nextafter, (FLOATING,))

# ----------------------------------------------------------------------------------------------
# sort: sort several arrays of one shape along one dimension, ordered by the first num_keys of
# them (lexicographically). Stable when asked, as lax.sort is by default.


def _sort_abstract_eval(*operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int) -> list[ShapedArray]:
    if not operands:
        raise TypeError("sort requires at least one operand.")
    shapes = {op.shape for op in operands}
    if len(shapes) > 1:
        raise TypeError(f"sort: all operands must have the same shape, got {sorted(shapes)}.")
    check_axes("sort", (dimension,), operands[0].ndim, "dimension")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be between 1 and the number of operands, {len(operands)}.")
    return [ShapedArray(op.shape, op.dtype, op.weak_type) for op in operands]


def _sort_impl(*operands: Any, dimension: int, is_stable: bool, num_keys: int) -> list[Any]:
    arrays = [to_array(op) for op in operands]
    avals = _sort_abstract_eval(*[a.aval for a in arrays], dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    values = [np.moveaxis(a._value, dimension, -1) for a in arrays]
    # np.lexsort sorts by its last key first, and is stable.
    order = np.lexsort(values[:num_keys][::-1], axis=-1)
    out = [np.moveaxis(np.take_along_axis(v, order, axis=-1), -1, dimension) for v in values]
    return [Array(np.asarray(o), aval.weak_type) for o, aval in zip(out, avals)]


sort_p = Primitive("sort")
sort_p.multiple_results = True
sort_p.def_abstract_eval(_sort_abstract_eval)
sort_p.def_impl(_sort_impl)

# ----------------------------------------------------------------------------------------------
# The functions users call.


def erf(x: Any) -> Any:
    """The error function."""
    return erf_p.bind(x)


def erf_inv(x: Any) -> Any:
    """The inverse of the error function, on (-1, 1)."""
    return erf_inv_p.bind(x)


def nextafter(x1: Any, x2: Any) -> Any:
    """The next representable float after x1 in the direction of x2."""
    return nextafter_p.bind(x1, x2)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """Sort one array, or a sequence of arrays by their first ``num_keys``, along ``dimension``."""
    several = isinstance(operand, (tuple, list))
    operands = tuple(operand) if several else (operand,)
    ndim = get_aval(operands[0]).ndim
    dimension = dimension + ndim if dimension < 0 else dimension
    out = sort_p.bind(*operands, dimension=dimension, is_stable=bool(is_stable), num_keys=int(num_keys))
    return tuple(out) if several else out[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple[Any, Any]:
    """Sort ``values`` by ``keys`` along ``dimension``; both are returned sorted."""
    return sort((keys, values), dimension, is_stable, num_keys=1)
