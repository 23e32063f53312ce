"""didax.random: JAX's counter-based random numbers (Threefry-2x32), bit for bit, built on
didax.lax. Stage 01 introduced it. The keys and the hash are in didax/prng.py, outside this
package as JAX's prng.py is (vmap's rules use the key primitives; the samplers here use vmap);
distributions.py turns bits into samples.
"""

from .distributions import (
    ball,
    bernoulli,
    beta,
    cauchy,
    categorical,
    choice,
    dirichlet,
    exponential,
    gamma,
    gumbel,
    laplace,
    loggamma,
    logistic,
    normal,
    permutation,
    poisson,
    rademacher,
    randint,
    t,
    truncated_normal,
    uniform,
)
from ..prng import PRNGKey, bits, fold_in, key, key_data, key_dtype, key_impl, split, wrap_key_data

__all__ = [
    "PRNGKey",
    "ball",
    "bernoulli",
    "beta",
    "bits",
    "cauchy",
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
    "laplace",
    "loggamma",
    "logistic",
    "normal",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "split",
    "t",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]
