"""Lowering rules of the key primitives: random_seed, random_split, random_fold_in, random_bits,
random_wrap, random_unwrap, and the Gamma sampler random_gamma (stage 05).

XLA has no Threefry operation, but didax's evaluation of these primitives already is the hash
written with lax on uint32 words (prng.py), a traceable function of the keys' words.
So each rule stages that very function and lowers it in place (``lower_fun`` with the keys as
their words): the compiled bits are the eager bits, computed by the same additions, rotations
and xors. A key array is its words in memory, so wrapping and unwrapping write nothing.
"""

from __future__ import annotations

from typing import Any

from .. import prng
from ..random import distributions
from .core import LoweringContext, lower_fun, lowering_rules


def _same_words(ctx: LoweringContext, x: str, **params: Any) -> str:
    return x  # words to keys or keys to words: the same uint32 words in memory


lowering_rules.update({
    prng.random_seed_p: lower_fun(lambda seeds, *, impl: prng.threefry_seed(seeds)),
    prng.random_split_p: lower_fun(prng.threefry_split, physical_inputs=True),
    prng.random_fold_in_p: lower_fun(prng.threefry_fold_in, physical_inputs=True),
    prng.random_bits_p: lower_fun(prng.threefry_random_bits, physical_inputs=True),
    prng.random_wrap_p: _same_words,
    prng.random_unwrap_p: _same_words,
    # The sampler's own staged loops, on typed keys (its splits lower through the rules above), as a
    # function of its own, as in JAX (whose gamma is a jitted function): MLIR folds constants only
    # within a function, and a constant ``a`` folded into the sampler before XLA sees it would give
    # samples a few ulp from JAX's.
    distributions.random_gamma_p: lower_fun(distributions._gamma_impl, function="gamma"),
})  # fmt: skip
