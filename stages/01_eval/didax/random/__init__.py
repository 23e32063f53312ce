"""didax.random: JAX's counter-based random numbers (Threefry-2x32), bit for bit, built on
didax.lax. prng.py holds the keys and the hash; distributions.py turns bits into samples.
Stage 01 introduced it.
"""

from .prng import PRNGKey, bits, fold_in, key, key_data, split, wrap_key_data

__all__ = ["PRNGKey", "bits", "fold_in", "key", "key_data", "split", "wrap_key_data"]
