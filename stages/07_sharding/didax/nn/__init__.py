"""didax.nn: jax.nn's activation functions, softmax, one_hot and parameter initializers, written
on didax.numpy and didax.lax. Stage 01 introduced it.
"""

from . import initializers
from .functions import (
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    leaky_relu,
    log_sigmoid,
    log_softmax,
    logsumexp,
    mish,
    one_hot,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softmax,
    softplus,
    sparse_plus,
    squareplus,
    standardize,
    swish,
    tanh,
)

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "initializers", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot",
    "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus",
    "squareplus", "standardize", "swish", "tanh",
]
