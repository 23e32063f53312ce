"""didax.random: JAX's counter-based random numbers (Threefry-2x32), bit for bit, built on
didax.lax. prng.py holds the keys and the hash; distributions.py turns bits into samples.
Stage 01 introduced it.
"""

from .distributions import (
    bernoulli,
    beta,
    categorical,
    choice,
    dirichlet,
    exponential,
    gamma,
    gumbel,
    loggamma,
    normal,
    permutation,
    randint,
    truncated_normal,
    uniform,
)
from .prng import PRNGKey, bits, fold_in, key, key_data, key_dtype, key_impl, split, wrap_key_data

__all__ = [
    "PRNGKey",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "choice",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "gumbel",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "loggamma",
    "normal",
    "permutation",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]
