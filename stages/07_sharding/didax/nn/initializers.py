"""Initializers for neural-network parameters, as jax.nn.initializers has them: each builder
returns ``init(key, shape, dtype)``, and the same key gives JAX's numbers (didax.random is JAX's
threefry bit for bit). Stage 01 introduced it.

Real dtypes only: JAX's complex variants (a uniform disk, a truncated modulus) are not here, and
neither are ``orthogonal`` and ``delta_orthogonal``, which need a QR decomposition didax.lax does
not have.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .. import dtypes, random
from .. import numpy as jnp

Initializer = Callable[..., Any]  # init(key, shape, dtype=None) -> Array


def _float_dtype(dtype: Any) -> Any:
    return dtypes.default_dtype("f") if dtype is None else dtype


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """An array of zeros (the key is not used)."""
    return jnp.zeros(shape, _float_dtype(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """An array of ones (the key is not used)."""
    return jnp.ones(shape, _float_dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer giving arrays full of ``value``."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        return jnp.full(shape, value, dtype=_float_dtype(dtype))

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer giving floats uniform in [0, scale)."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _float_dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer giving normal floats with mean 0 and standard deviation ``stddev``."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _float_dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)

    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0) -> Initializer:
    """An initializer giving normal floats kept within (lower, upper), times ``stddev``."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _float_dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)

    return init


def _size(shape: Sequence[int], axes: int | Sequence[int]) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(
    shape: Sequence[int],
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
) -> tuple[float, float]:
    """(fan_in, fan_out): the input and output sizes, each times the receptive field (every axis
    that is neither input, output nor batch, as a convolution's kernel window)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor with "
            "default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    in_size, out_size, batch_size = _size(shape, in_axis), _size(shape, out_axis), _size(shape, batch_axis)
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


# The standard deviation of a standard normal truncated to (-2, 2), which variance_scaling
# divides out so that the truncated samples have the variance asked for.
_TRUNCATED_STDDEV = 0.87962566103423978


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
    dtype: Any = None,
) -> Initializer:
    """An initializer whose variance is ``scale / n``, n being the fan-in, the fan-out, or their
    arithmetic ("fan_avg") or geometric ("fan_geo_avg") mean, drawn from a truncated normal, a
    normal or a uniform distribution."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _float_dtype(dtype)
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        if distribution == "truncated_normal":
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _preset(name: str, scale: float, mode: str, distribution: str, doc: str) -> Callable[..., Initializer]:
    def builder(
        in_axis: int | Sequence[int] = -2,
        out_axis: int | Sequence[int] = -1,
        batch_axis: int | Sequence[int] = (),
        dtype: Any = None,
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = doc
    return builder


glorot_uniform = _preset("glorot_uniform", 1.0, "fan_avg", "uniform", "variance_scaling(1.0, 'fan_avg', 'uniform') (Glorot & Bengio).")
glorot_normal = _preset("glorot_normal", 1.0, "fan_avg", "truncated_normal", "variance_scaling(1.0, 'fan_avg', 'truncated_normal').")
lecun_uniform = _preset("lecun_uniform", 1.0, "fan_in", "uniform", "variance_scaling(1.0, 'fan_in', 'uniform') (LeCun).")
lecun_normal = _preset("lecun_normal", 1.0, "fan_in", "truncated_normal", "variance_scaling(1.0, 'fan_in', 'truncated_normal').")
he_uniform = _preset("he_uniform", 2.0, "fan_in", "uniform", "variance_scaling(2.0, 'fan_in', 'uniform') (He et al.).")
he_normal = _preset("he_normal", 2.0, "fan_in", "truncated_normal", "variance_scaling(2.0, 'fan_in', 'truncated_normal').")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal

__all__ = [
    "Initializer", "constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
    "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]
