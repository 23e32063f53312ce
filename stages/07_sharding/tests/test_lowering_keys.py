"""Key arrays compiled by XLA: structural operations on keys reach the lowering as operations on
their uint32 words (core._key_rule through lax's physical rules); their results, compared as words
(random.key_data), equal eager evaluation's."""

import numpy as np
from lowering_harness import check_compiled

import didax.numpy as jnp
from didax import lax, random

WORDS = np.array([[0, 7], [2**32 - 1, 12345], [42, 0], [1, 2], [3, 4], [5, 6]], np.uint32)
KEYS = random.wrap_key_data(WORDS)


def test_slicing_and_reshaping_keys():
    check_compiled(lambda k: (k[1:4], k[::2], k[::-1], k[-1], k.reshape(2, 3), k.reshape(2, 3).T,
                              jnp.squeeze(k[None, 2:3]), jnp.expand_dims(k, 0)), KEYS)  # fmt: skip


def test_indexing_and_updating_keys():
    i = jnp.asarray([0, 5, -1, 2], jnp.int32)
    check_compiled(lambda k, i: (k[i], k.reshape(2, 3)[i[:2] % 2, 1], k.at[i].set(k[3]), k.at[i[:2]].set(k[4:6])),
                   KEYS, i)  # fmt: skip


def test_dynamic_slicing_keys():
    for start in (-2, 0, 3, 9):
        s = jnp.asarray(start, jnp.int32)
        check_compiled(lambda k, s: (lax.dynamic_slice(k, (s,), (2,)), lax.dynamic_update_slice(k, k[:2], (s,)),
                                     lax.dynamic_index_in_dim(k, s, keepdims=False)), KEYS, s)  # fmt: skip


def test_joining_broadcasting_and_selecting_keys():
    mask = jnp.asarray([True, False, True, False, False, True])
    check_compiled(lambda k, m: (jnp.concatenate([k, k[:2]]), jnp.stack([k, k[::-1]]), jnp.broadcast_to(k[0], (3, 2)),
                                 jnp.where(m, k, k[::-1])), KEYS, mask)  # fmt: skip

