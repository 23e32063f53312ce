"""Activation functions, softmax and friends, one-hot encoding, as jax.nn has them, each a few
jax.numpy or lax calls following JAX 0.10.2's formulas (so dtypes and weak types come out as
JAX's do). Stage 01 introduced it.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import dtypes, lax
from .. import numpy as jnp
from ..core import get_aval
from ..numpy.util import ArrayLike, as_array, canonicalize_axes, canonicalize_axis, check_arraylike
from ..numpy.util import promote_args_inexact

# ----------------------------------------------------------------------------------------------
# Helpers: jax.numpy reductions with where= and initial=, and logaddexp, written here on lax.


def promote_inexact(name: str, *args: ArrayLike) -> list[ArrayLike]:
    """promote_args_inexact, each result an Array (a NumPy input already of the right dtype
    would otherwise come back as it was, and NumPy's operators would then promote it)."""
    return [as_array(a) for a in promote_args_inexact(name, *args)]


def _arr(name: str, x: ArrayLike) -> ArrayLike:
    check_arraylike(name, x)
    return as_array(x)


def _max_keepdims(x: ArrayLike, axes: tuple[int, ...], where: ArrayLike | None, initial: float) -> ArrayLike:
    """jnp.max(x, axes, where=where, initial=initial, keepdims=True)."""
    if where is not None:
        x = jnp.where(where, x, initial)
    aval = get_aval(x)
    out = lax.reduce_max(x, axes)
    out = lax.max(out, lax.convert_element_type(initial, aval.dtype))
    return lax.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(aval.shape)))


def _sum_keepdims(x: ArrayLike, axes: tuple[int, ...], where: ArrayLike | None) -> ArrayLike:
    """jnp.sum(x, axes, where=where, keepdims=True)."""
    if where is not None:
        x = jnp.where(where, x, 0)
    return jnp.sum(x, axis=axes, keepdims=True)


def _mean_keepdims(x: ArrayLike, axes: tuple[int, ...], where: ArrayLike | None) -> ArrayLike:
    """jnp.mean(x, axes, where=where, keepdims=True)."""
    if where is None:
        return jnp.mean(x, axis=axes, keepdims=True)
    x = as_array(x)
    count = _sum_keepdims(jnp.broadcast_to(where, get_aval(x).shape).astype(get_aval(x).dtype), axes, None)
    return _sum_keepdims(x, axes, where) / count


def _logaddexp(x1: ArrayLike, x2: ArrayLike) -> ArrayLike:
    """log(exp(x1) + exp(x2)) without overflow: the larger plus log1p(exp(-|difference|))."""
    x1, x2 = promote_inexact("logaddexp", x1, x2)
    return jnp.logaddexp(x1, x2)


# ----------------------------------------------------------------------------------------------
# Activations.


def relu(x: ArrayLike) -> ArrayLike:
    """Rectified linear unit: max(x, 0), in x's dtype. Its derivative at 0 is 0, as JAX defines it
    (stop_gradient, which changes no value, keeps the derivative of the flat part)."""
    value = jnp.maximum(x, 0)
    return jnp.where(jnp.greater(x, 0), value, lax.stop_gradient(value))


def relu6(x: ArrayLike) -> ArrayLike:
    """ReLU capped at 6: min(max(x, 0), 6); its derivative is 0 at both kinks, as in JAX."""
    value = jnp.minimum(jnp.maximum(x, 0), 6.0)
    inside = jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6))
    return jnp.where(inside, value, lax.stop_gradient(value))


def sigmoid(x: ArrayLike) -> ArrayLike:
    """The logistic function 1 / (1 + exp(-x))."""
    return lax.logistic(x)


def silu(x: ArrayLike) -> ArrayLike:
    """Sigmoid linear unit (swish): x * sigmoid(x)."""
    x = _arr("silu", x)
    return x * sigmoid(x)


swish = silu


def softplus(x: ArrayLike) -> ArrayLike:
    """log(1 + exp(x)), computed without overflow."""
    return _logaddexp(x, 0)


def log_sigmoid(x: ArrayLike) -> ArrayLike:
    """log(sigmoid(x)), computed as -softplus(-x)."""
    x = _arr("log_sigmoid", x)
    return -softplus(-x)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> ArrayLike:
    """Exponential linear unit: x where x > 0, else alpha * (exp(x) - 1)."""
    x = _arr("elu", x)
    positive = x > 0
    return jnp.where(positive, x, alpha * jnp.expm1(jnp.where(positive, 0.0, x)))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> ArrayLike:
    """x where x >= 0, else negative_slope * x."""
    x = _arr("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x: ArrayLike) -> ArrayLike:
    """x clipped to [-1, 1]."""
    x = _arr("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> ArrayLike:
    """Continuously differentiable ELU: max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def selu(x: ArrayLike) -> ArrayLike:
    """Scaled ELU, with the self-normalizing constants of Klambauer et al. (2017)."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu(x: ArrayLike, approximate: bool = True) -> ArrayLike:
    """Gaussian error linear unit: x * Phi(x); by default the tanh approximation, with
    ``approximate=False`` the exact form with erfc."""
    (x,) = promote_inexact("gelu", x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(get_aval(x).dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x**3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(get_aval(x).dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=get_aval(x).dtype)


def sparse_plus(x: ArrayLike) -> ArrayLike:
    """0 below -1, x above 1, and (x + 1)**2 / 4 between: a piecewise-quadratic softplus."""
    x = _arr("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def soft_sign(x: ArrayLike) -> ArrayLike:
    """x / (|x| + 1)."""
    x = _arr("soft_sign", x)
    return x / (jnp.abs(x) + 1)


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> ArrayLike:
    """(x + sqrt(x**2 + b)) / 2: a smooth ReLU made of square roots."""
    x = _arr("squareplus", x)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


def mish(x: ArrayLike) -> ArrayLike:
    """x * tanh(softplus(x))."""
    x = _arr("mish", x)
    return x * jnp.tanh(softplus(x))


def hard_sigmoid(x: ArrayLike) -> ArrayLike:
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    return relu6(_arr("hard_sigmoid", x) + 3.0) / 6.0


def hard_silu(x: ArrayLike) -> ArrayLike:
    """x * hard_sigmoid(x) (hard swish)."""
    x = _arr("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu
tanh = jnp.tanh


def glu(x: ArrayLike, axis: int = -1) -> ArrayLike:
    """Gated linear unit: split x in two halves along ``axis``, a and b, and return a * sigmoid(b)."""
    x = _arr("glu", x)
    shape = get_aval(x).shape
    axis = canonicalize_axis(axis, len(shape))
    size = shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} of size {size} cannot be split in two equal halves.")
    x1 = lax.slice_in_dim(x, 0, size // 2, axis=axis)
    x2 = lax.slice_in_dim(x, size // 2, size, axis=axis)
    return x1 * sigmoid(x2)


# ----------------------------------------------------------------------------------------------
# Normalizations along an axis.


def log_softmax(x: ArrayLike, axis: Any = -1, where: ArrayLike | None = None) -> ArrayLike:
    """x - logsumexp(x) along ``axis``: log-probabilities; -inf where ``where`` is False."""
    x = _arr("log_softmax", x)
    axes = canonicalize_axes(axis, get_aval(x).ndim)
    x_max = _max_keepdims(x, axes, where, -np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    result = shifted - jnp.log(_sum_keepdims(jnp.exp(shifted), axes, where))
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


def softmax(x: ArrayLike, axis: Any = -1, where: ArrayLike | None = None) -> ArrayLike:
    """exp(x) / sum(exp(x)) along ``axis``, computed after subtracting the maximum; 0 where
    ``where`` is False."""
    x = _arr("softmax", x)
    axes = canonicalize_axes(axis, get_aval(x).ndim)
    x_max = _max_keepdims(x, axes, where, -np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / _sum_keepdims(unnormalized, axes, where)
    if where is not None:
        return jnp.where(where, result, 0)
    return result


def standardize(
    x: ArrayLike,
    axis: Any = -1,
    mean: ArrayLike | None = None,
    variance: ArrayLike | None = None,
    epsilon: ArrayLike = 1e-5,
    where: ArrayLike | None = None,
    *,
    algorithm: str = "fast",
) -> ArrayLike:
    """(x - mean) / sqrt(variance + epsilon) along ``axis``, with the statistics computed from x
    unless given: the variance as E[x**2] - E[x]**2 ("fast") or E[(x - mean)**2] ("stable")."""
    x = _arr("standardize", x)
    axes = canonicalize_axes(axis, get_aval(x).ndim)
    if mean is None:
        mean = _mean_keepdims(x, axes, where)
    if variance is None:
        if algorithm == "stable":
            variance = _mean_keepdims(jnp.square(jnp.subtract(x, mean)), axes, where)
        elif algorithm == "fast":  # one pass; rounding can make it negative, so clip at 0
            variance = jnp.maximum(_mean_keepdims(jnp.square(x), axes, where) - jnp.square(mean), 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


def one_hot(x: Any, num_classes: int, *, dtype: Any | None = None, axis: int = -1) -> ArrayLike:
    """A new axis of length ``num_classes`` holding 1 at each index of x and 0 elsewhere
    (indices outside [0, num_classes) give all zeros)."""
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise TypeError(
            f"one_hot: num_classes must be a concrete integer, got {num_classes!r}. "
            "The error arose in jax.nn.one_hot argument `num_classes`."
        ) from None
    x = jnp.asarray(x)
    dtype = dtypes.default_dtype("f") if dtype is None else dtype
    aval = get_aval(x)
    out_axis = canonicalize_axis(axis, aval.ndim + 1)
    lhs = lax.expand_dims(x, (out_axis,))
    rhs_shape = [1] * aval.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(aval.dtype, tuple(rhs_shape), out_axis)
    return (lhs == rhs).astype(dtype)


# ----------------------------------------------------------------------------------------------
# logsumexp, shared with didax.scipy.special.


def logsumexp(
    a: ArrayLike,
    axis: Any = None,
    b: ArrayLike | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: ArrayLike | None = None,
) -> Any:
    """log(sum(b * exp(a))) along ``axis``, computed after subtracting the maximum; with
    ``return_sign`` the pair (log|sum|, sign(sum))."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_inexact("logsumexp", a)
    aval = get_aval(a)
    axes = canonicalize_axes(axis, aval.ndim)
    amax = _max_keepdims(a, axes, where, -np.inf)
    amax = lax.stop_gradient(lax.select_n(lax.is_finite(amax), lax.full_like(amax, 0), amax))
    exp_a = lax.exp(lax.sub(a, lax.broadcast_in_dim(amax, aval.shape, tuple(range(aval.ndim)))))
    if b is not None:
        exp_a = exp_a * b
    sumexp = _sum_keepdims(exp_a, axes, where)
    if not keepdims:
        kept = tuple(n for i, n in enumerate(aval.shape) if i not in axes)
        sumexp, amax = lax.reshape(sumexp, kept), lax.reshape(amax, kept)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.issubdtype(aval.dtype, np.complexfloating):
        sumexp = lax.abs(sumexp)
    out = lax.add(lax.log(sumexp), lax.convert_element_type(amax, get_aval(sumexp).dtype))
    if return_sign:
        return out, sign
    if b is not None:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=get_aval(out).dtype), out)
    return out


__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu", "relu6",
    "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "squareplus",
    "standardize", "swish", "tanh",
]
