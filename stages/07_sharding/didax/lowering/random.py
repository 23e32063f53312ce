"""Lowering rules of the key primitives: random_seed, random_split, random_fold_in, random_bits,
random_wrap, random_unwrap, and the Gamma sampler random_gamma (stage 05).

XLA has no Threefry operation, but didax's evaluation of these primitives already is the hash
written with lax on uint32 words (prng.py), a traceable function of the keys' words.
So each rule stages that very function and lowers it in place (``lower_fun`` with the keys as
their words): the compiled bits are the eager bits, computed by the same additions, rotations
and xors. A key array is its words in memory, so wrapping and unwrapping write nothing.

One change: the hash's five groups of rounds become a loop of five iterations, as JAX lowers it
for the CPU. Unrolled, each hash is some 130 operations, and a sampler hashes many times: a jitted
``random.beta`` was 3,843 lines of StableHLO that XLA took 7 s to compile; rolled, 1,764 lines
and 2.2 s, with the same bits.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import lax, prng
from ..random import distributions
from .core import LoweringContext, lower_fun, lowering_rules


def threefry2x32_rolled(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """prng.threefry2x32 with its five groups as the iterations of a fori_loop. The loop carries
    the key words and the two groups of rotation distances, and rotates both each iteration, so
    that the body is the same every time."""
    ks = (k0, k1, lax.bitwise_xor(lax.bitwise_xor(k0, k1), prng.u32(prng.KEY_PARITY)))
    rotations = [lax.convert_element_type(np.array(group, np.uint32), np.uint32) for group in prng.ROTATIONS]

    def group(i: Any, carry: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1, ka, kb, kc, these, those = carry
        for j in range(4):
            distance = lax.index_in_dim(these, j, keepdims=False)
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(prng.rotate_left(x1, distance), x0)
        x0 = lax.add(x0, kb)
        x1 = lax.add(lax.add(x1, kc), lax.convert_element_type(lax.add(i, 1), np.uint32))
        return x0, x1, kb, kc, ka, those, these

    start = (lax.add(x0, ks[0]), lax.add(x1, ks[1]), *ks, *rotations)
    x0, x1, *_ = lax.fori_loop(0, 5, group, start)
    return x0, x1


def _same_words(ctx: LoweringContext, x: str, **params: Any) -> str:
    return x  # words to keys or keys to words: the same uint32 words in memory


lowering_rules.update({
    prng.random_seed_p: lower_fun(lambda seeds, *, impl: prng.threefry_seed(seeds)),
    prng.random_split_p: lower_fun(functools.partial(prng.threefry_split, hash=threefry2x32_rolled),
                                   physical_inputs=True),
    prng.random_fold_in_p: lower_fun(functools.partial(prng.threefry_fold_in, hash=threefry2x32_rolled),
                                     physical_inputs=True),
    prng.random_bits_p: lower_fun(functools.partial(prng.threefry_random_bits, hash=threefry2x32_rolled),
                                  physical_inputs=True),
    prng.random_wrap_p: _same_words,
    prng.random_unwrap_p: _same_words,
    # The sampler's own staged loops, on typed keys (its splits lower through the rules above), as a
    # function of its own, as in JAX (whose gamma is a jitted function): MLIR folds constants only
    # within a function, and a constant ``a`` folded into the sampler before XLA sees it would give
    # samples a few ulp from JAX's.
    distributions.random_gamma_p: lower_fun(distributions._gamma_impl, function="gamma"),
})  # fmt: skip
