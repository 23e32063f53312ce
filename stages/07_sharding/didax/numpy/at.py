"""``x.at[index]``: the functional form of ``x[index] = y``, ``x[index] += y`` and friends.
Stage 01 introduced it.

didax arrays never change, so ``x.at[i].set(y)`` returns a new array. Each update is one lax
scatter built from the same description of the index as ``x[i]`` (numpy/indexing.py's
``index_to_gather``): a scatter writes to exactly the places the gather reads from. The update
``y`` is broadcast to the shape of ``x[i]`` and converted to ``x``'s dtype (with a FutureWarning
when that loses information, as in JAX). Out-of-bounds updates are dropped by default.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes, lax
from ..config import config
from ..core import get_aval
from ..lax.slicing import GatherScatterMode, ScatterDimensionNumbers
from . import creation, ufuncs
from .indexing import gather_index, getitem, index_to_gather
from .util import ArrayLike, broadcast_to, convert

Mode = str | GatherScatterMode | None


class _IndexUpdateHelper:
    """What ``x.at`` returns: index it to say where an update goes."""

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[index]``: its methods return ``x`` with the places ``index`` names updated."""

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        fill_value: Any = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index]``, with a choice of what out-of-bounds indices do (``mode``, ``fill_value``)."""
        mode = None if mode is None else GatherScatterMode.from_any(mode)
        if mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS) and wrap_negative_indices:
            return getitem(self.array, self.index)  # what x[index] does: the basic path where it can
        return gather_index(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            wrap_negative_indices=wrap_negative_indices,
        )

    def set(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] = values``; where an index repeats, one of its values wins."""
        return _scatter(
            lax.scatter, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def add(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] += values``; a repeated index adds every one of its values."""
        return _scatter(
            lax.scatter_add, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def subtract(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] -= values``; a repeated index subtracts every one of its values."""
        return _scatter(
            lax.scatter_sub, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def multiply(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] *= values``; a repeated index multiplies by every one of its values."""
        return _scatter(
            lax.scatter_mul, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    mul = multiply

    def divide(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] /= values`` (true division, so integers give floats, as in JAX)."""
        divisors = _IndexUpdateRef(creation.ones_like(self.array), self.index).multiply(
            values,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            wrap_negative_indices=wrap_negative_indices,
        )
        return ufuncs.true_divide(self.array, divisors)

    def power(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] **= values``; a repeated index raises to the product of its values."""
        exponents = _IndexUpdateRef(creation.ones_like(self.array), self.index).multiply(
            values,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            wrap_negative_indices=wrap_negative_indices,
        )
        return ufuncs.power(self.array, exponents)

    def min(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] = minimum(x[index], values)``, over every value of a repeated index."""
        return _scatter(
            lax.scatter_min, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def max(
        self,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] = maximum(x[index], values)``, over every value of a repeated index."""
        return _scatter(
            lax.scatter_max, self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def apply(
        self,
        func: Callable[[ArrayLike], ArrayLike],
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        wrap_negative_indices: bool = True,
    ) -> ArrayLike:
        """``x[index] = func(x[index])`` for a ``func`` of one scalar; a position the index names
        twice gets ``func`` applied twice (``x.at[i].set(func(x[i]))`` would apply it once).

        One scatter whose ``update_jaxpr`` is ``func`` staged on a scalar (lax.scatter_apply), as
        in JAX; like JAX's, it has no JVP rule.
        """

        def scatter_apply(x: ArrayLike, indices: ArrayLike, y: ArrayLike, dnums: ScatterDimensionNumbers,
                          **kwargs: Any) -> ArrayLike:  # fmt: skip
            return lax.scatter_apply(x, indices, func, dnums, update_shape=get_aval(y).shape, **kwargs)

        zero = lax.convert_element_type(0, get_aval(self.array).dtype)  # placeholder updates
        return _scatter(scatter_apply, self, zero, indices_are_sorted, unique_indices, mode, wrap_negative_indices)


def _scatter(
    scatter_fn: Callable[..., Any],
    ref: _IndexUpdateRef,
    values: Any,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: Mode,
    wrap_negative_indices: bool,
) -> ArrayLike:
    """One scatter of ``values`` into ``ref.array`` at ``ref.index``."""
    x = ref.array
    aval = get_aval(x)
    ix = index_to_gather(aval.shape, ref.index, wrap_negative_indices)
    updates = _as_updates(values, aval.dtype, aval.weak_type)
    updates = lax.reshape(broadcast_to(updates, ix.result_shape), ix.gather_shape)
    if ix.empty:  # no index at all: nothing to update
        return x
    dnums = ScatterDimensionNumbers(
        update_window_dims=ix.dnums.offset_dims,
        inserted_window_dims=ix.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=ix.dnums.start_index_map,
    )
    return scatter_fn(
        x,
        ix.indices,
        updates,
        dnums,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices or ix.unique_indices,
        mode=mode,
    )


def _as_updates(values: Any, dtype: Any, weak_type: bool) -> ArrayLike:
    """``values`` as an array of the operand's dtype, warning (as JAX does) when that loses
    information."""
    values = creation.asarray(values)
    if not _safe_to_cast(values, dtype):
        warnings.warn(
            f"scatter inputs have incompatible types: cannot safely cast value from dtype="
            f"{get_aval(values).dtype} to dtype={dtype} with jax_numpy_dtype_promotion="
            f"{config.jax_numpy_dtype_promotion}. In future JAX releases this will result in an error.",
            FutureWarning,
            stacklevel=4,
        )
    return convert(values, dtype, weak_type)


def _safe_to_cast(values: ArrayLike, dtype: Any) -> bool:
    """Whether ``values`` promote to ``dtype`` itself (a weak Python int into int8 does)."""
    try:
        return dtypes.result_type(values, dtype) == dtype
    except ValueError:  # strict promotion (TypePromotionError) refuses to mix: safe only when nothing changes
        return get_aval(values).dtype == dtype
