"""Misuse gets the exception class JAX raises, and what JAX accepts is accepted (conformance suite).

The catalogue is data: each entry is a small call that misuses the API, taking the implementation's
``numpy``, ``lax`` and ``tree_util`` modules, and the builtin exception class JAX 0.10.2 raises for it
(JAX's own error types derive from these). Where JAX 0.4 rejected the same misuse with a check of its
own but another class, the entry names that class too: raising it is a release detail
(`checks.release_detail`), reported apart from failures. After each misuse a normal call must still
work: a failed call leaves no state behind. A failure's reproducing program is the entry's own call, its
text read from this file (`reproduce.lambda_body`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from conformance.checks import release_detail, show_call
from conformance.impl import Impl
from conformance.reproduce import lambda_body

pytestmark = [pytest.mark.area("errors"), pytest.mark.requires("eval")]

Call = Callable[[Any, Any, Any], Any]  # (numpy, lax, tree_util) -> anything


class Misuse(NamedTuple):
    id: str
    call: Call
    raises: type[Exception]
    # the classes earlier JAX releases raise instead, from a check of their own for the same misuse
    # (JAX 0.4.30 and 0.4.38): raising one of them is a release detail
    other_releases: tuple[type[Exception], ...] = ()


def custom_node(tu: Any, flatten: Callable[[Any], Any]) -> Any:
    """An instance of a fresh class registered with ``flatten`` (fresh, so no test sees another's)."""

    class Node:
        pass

    tu.register_pytree_node(Node, flatten, lambda aux, children: Node())
    return Node()


def nested_lists(depth: int) -> list[Any]:
    tree: list[Any] = [1.0]
    for _ in range(depth - 1):
        tree = [tree]
    return tree


M = Misuse
MISUSES: list[Misuse] = [
    # --- wrong types: lists, strings, None where arrays or ints belong ---------------------------
    M("sum-list", lambda jnp, lax, tu: jnp.sum([1, 2]), TypeError),
    M("add-lists", lambda jnp, lax, tu: jnp.add([1], [2]), TypeError),
    M("reshape-list", lambda jnp, lax, tu: jnp.reshape([1, 2], (2,)), TypeError),
    M("transpose-list", lambda jnp, lax, tu: jnp.transpose([[1.0]]), TypeError),
    M("concatenate-lists", lambda jnp, lax, tu: jnp.concatenate([[1], [2]]), TypeError),
    M("stack-lists", lambda jnp, lax, tu: jnp.stack([[1], [2]]), TypeError),
    M("ravel-list", lambda jnp, lax, tu: jnp.ravel([1, 2]), TypeError),
    M("sin-string", lambda jnp, lax, tu: jnp.sin("a"), TypeError),
    M("add-none", lambda jnp, lax, tu: jnp.add(None, 1), TypeError),
    M("asarray-string", lambda jnp, lax, tu: jnp.asarray("abc"), TypeError),
    M("asarray-dict", lambda jnp, lax, tu: jnp.asarray({"a": 1}), TypeError),
    M("asarray-object", lambda jnp, lax, tu: jnp.asarray(object()), TypeError),
    M("asarray-set", lambda jnp, lax, tu: jnp.asarray({1, 2}), TypeError),
    # None is checked first, leaf by leaf, and is a ValueError, dtype or not
    M("asarray-none", lambda jnp, lax, tu: jnp.asarray(None), ValueError),
    M("asarray-none-with-dtype", lambda jnp, lax, tu: jnp.asarray(None, dtype="float32"), ValueError),
    M("array-none-element", lambda jnp, lax, tu: jnp.array([1.0, None]), ValueError),
    M("array-mixed-string", lambda jnp, lax, tu: jnp.array([1, "abc"]), TypeError),
    M("array-ragged", lambda jnp, lax, tu: jnp.array([[1, 2], [3]]), ValueError),
    M("array-of-arrays-ragged", lambda jnp, lax, tu: jnp.asarray([jnp.ones(2), jnp.ones(3)]), TypeError, (ValueError,)),
    M("zeros-string-shape", lambda jnp, lax, tu: jnp.zeros("3"), TypeError),
    M("ones-float-shape", lambda jnp, lax, tu: jnp.ones(3.0), TypeError),
    M("ones-float-in-shape", lambda jnp, lax, tu: jnp.ones((2.0, 3)), TypeError),
    M("zeros-none-shape", lambda jnp, lax, tu: jnp.zeros(None), TypeError),
    M("lax-add-lists", lambda jnp, lax, tu: lax.add([1.0], [2.0]), TypeError),
    M("lax-sin-string", lambda jnp, lax, tu: lax.sin("a"), TypeError),
    M("lax-neg-none", lambda jnp, lax, tu: lax.neg(None), TypeError),
    M("array-plus-string", lambda jnp, lax, tu: jnp.ones(3) + "a", TypeError),
    M("array-plus-none", lambda jnp, lax, tu: jnp.ones(3) + None, TypeError),
    M("array-times-list", lambda jnp, lax, tu: jnp.ones(3) * [1, 2, 3], TypeError),
    M("zeros-like-list", lambda jnp, lax, tu: jnp.zeros_like([1, 2]), TypeError),
    M("ones-like-string", lambda jnp, lax, tu: jnp.ones_like("abc"), TypeError),
    M("full-like-list-fill", lambda jnp, lax, tu: jnp.full_like(jnp.ones(2), [1, 2]), TypeError),
    M("where-list", lambda jnp, lax, tu: jnp.where([True], 1.0, 2.0), TypeError),
    M("dot-list", lambda jnp, lax, tu: jnp.dot([1.0], jnp.ones(1)), TypeError),
    M("matmul-list", lambda jnp, lax, tu: jnp.matmul(jnp.ones((1, 1)), [[1.0]]), TypeError),
    M("max-list", lambda jnp, lax, tu: jnp.max([1, 2]), TypeError),
    M("argmax-list", lambda jnp, lax, tu: jnp.argmax([1, 2]), TypeError),
    M("mean-list", lambda jnp, lax, tu: jnp.mean([1.0, 2.0]), TypeError),
    M("squeeze-list", lambda jnp, lax, tu: jnp.squeeze([[1.0]]), TypeError),
    M("expand-dims-list", lambda jnp, lax, tu: jnp.expand_dims([1.0], 0), TypeError),
    M("moveaxis-list", lambda jnp, lax, tu: jnp.moveaxis([[1.0]], 0, 1), TypeError),
    M("swapaxes-list", lambda jnp, lax, tu: jnp.swapaxes([[1.0]], 0, 1), TypeError),
    M("broadcast-to-list", lambda jnp, lax, tu: jnp.broadcast_to([1.0], (2,)), TypeError),
    # --- shapes ---------------------------------------------------------------------------------
    M("reshape-wrong-size", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), (4,)), TypeError),
    M("reshape-two-unknowns", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), (-1, -1)), TypeError),
    M("reshape-unknown-not-divisible", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), (-1, 4)), TypeError),
    M("reshape-negative", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), (-2, -3)), TypeError),
    M("reshape-float-dims", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), (2.0, 3)), TypeError),
    M("reshape-method-wrong-size", lambda jnp, lax, tu: jnp.ones((2, 3)).reshape(4), TypeError),
    M("reshape-string", lambda jnp, lax, tu: jnp.reshape(jnp.ones(6), "6"), TypeError),
    M("lax-reshape-minus-one", lambda jnp, lax, tu: lax.reshape(jnp.ones(6), (-1,)), TypeError),
    M("lax-reshape-bad-dimensions", lambda jnp, lax, tu: lax.reshape(jnp.ones((2, 3)), (6,), (0, 0)), TypeError),
    M("add-incompatible-shapes", lambda jnp, lax, tu: jnp.add(jnp.ones(3), jnp.ones(4)), TypeError),
    M("multiply-incompatible-2d", lambda jnp, lax, tu: jnp.multiply(jnp.ones((2, 3)), jnp.ones((3, 2))), TypeError),
    M("operator-incompatible", lambda jnp, lax, tu: jnp.ones(3) - jnp.ones(2), TypeError),
    # ranks that differ are matched by jnp (lax.broadcast_shapes: ValueError), one rank is lax's to check
    M("operator-incompatible-ranks", lambda jnp, lax, tu: jnp.ones((3, 4)) + jnp.ones(3), ValueError),
    M("maximum-incompatible-ranks", lambda jnp, lax, tu: jnp.maximum(jnp.ones((2, 3, 4)), jnp.ones((4, 3))), ValueError),
    M("where-incompatible", lambda jnp, lax, tu: jnp.where(jnp.ones(3) > 0, jnp.ones(2), 0.0), ValueError),
    M("lax-add-incompatible", lambda jnp, lax, tu: lax.add(jnp.ones(3), jnp.ones(4)), TypeError),
    M("lax-add-different-ranks", lambda jnp, lax, tu: lax.add(jnp.ones((2, 3)), jnp.ones(3)), TypeError),
    M("lax-select-n-shapes", lambda jnp, lax, tu: lax.select_n(jnp.ones(3) > 0, jnp.ones(3), jnp.ones(2)), TypeError),
    M("lax-select-n-which-shape", lambda jnp, lax, tu: lax.select_n(jnp.ones(2) > 0, jnp.ones(3), jnp.ones(3)), TypeError),
    M("broadcast-to-smaller", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), (4,)), ValueError),
    M("broadcast-to-lower-rank", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones((2, 3)), (3,)), ValueError),
    M("broadcast-to-negative", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), (-1,)), ValueError),
    M("broadcast-to-float", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), (3.0,)), TypeError),
    M("broadcast-to-float-int-shape", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), 3.0), TypeError),
    M("broadcast-to-none", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), None), TypeError),
    M("broadcast-to-string", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(3), "3"), TypeError),
    M("lax-broadcast-in-dim-count", lambda jnp, lax, tu: lax.broadcast_in_dim(jnp.ones(3), (2, 3), ()), TypeError),
    M("lax-broadcast-in-dim-range", lambda jnp, lax, tu: lax.broadcast_in_dim(jnp.ones(3), (3,), (1,)), TypeError),
    M("lax-broadcast-in-dim-size", lambda jnp, lax, tu: lax.broadcast_in_dim(jnp.ones(3), (2, 4), (1,)), TypeError),
    M("lax-broadcast-in-dim-negative", lambda jnp, lax, tu: lax.broadcast_in_dim(jnp.ones(3), (-3,), (0,)), TypeError),
    M("lax-broadcast-in-dim-repeated", lambda jnp, lax, tu: lax.broadcast_in_dim(jnp.ones((1, 1)), (3, 3), (0, 0)), TypeError),
    M("lax-broadcast-negative", lambda jnp, lax, tu: lax.broadcast(jnp.ones(3), (-1,)), TypeError),
    M("concatenate-rank-mismatch", lambda jnp, lax, tu: jnp.concatenate([jnp.ones(3), jnp.ones((1, 3))]), TypeError),
    M("concatenate-shape-mismatch", lambda jnp, lax, tu: jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))]), TypeError),
    M("concatenate-axis-range", lambda jnp, lax, tu: jnp.concatenate([jnp.ones(3), jnp.ones(3)], axis=1), ValueError),
    M("concatenate-scalars", lambda jnp, lax, tu: jnp.concatenate([jnp.ones(()), jnp.ones(())]), ValueError),
    M("concatenate-empty", lambda jnp, lax, tu: jnp.concatenate([]), ValueError),
    M("concatenate-float-axis", lambda jnp, lax, tu: jnp.concatenate([jnp.ones(3)], axis=0.5), TypeError),
    M("concatenate-string-axis", lambda jnp, lax, tu: jnp.concatenate([jnp.ones(3)], axis="0"), TypeError),
    M("stack-float-axis", lambda jnp, lax, tu: jnp.stack([jnp.ones(3)], axis=0.0), TypeError),
    M("transpose-float-axes", lambda jnp, lax, tu: jnp.transpose(jnp.ones((2, 3)), (0.0, 1)), TypeError),
    M("moveaxis-float", lambda jnp, lax, tu: jnp.moveaxis(jnp.ones((2, 3)), 0.0, 1), TypeError),
    M("squeeze-float-axis", lambda jnp, lax, tu: jnp.squeeze(jnp.ones((1, 3)), 0.0), TypeError),
    M("expand-dims-float-axis", lambda jnp, lax, tu: jnp.expand_dims(jnp.ones(3), 0.0), TypeError),
    M("swapaxes-negative-out-of-range", lambda jnp, lax, tu: jnp.swapaxes(jnp.ones((2, 3)), 0, -5), IndexError),
    M("swapaxes-string", lambda jnp, lax, tu: jnp.swapaxes(jnp.ones((2, 3)), "0", 1), IndexError),
    M("lax-concatenate-empty", lambda jnp, lax, tu: lax.concatenate([], 0), ValueError),
    M("lax-concatenate-ranks", lambda jnp, lax, tu: lax.concatenate([jnp.ones(3), jnp.ones((1, 3))], 0), TypeError),
    M("lax-concatenate-shapes", lambda jnp, lax, tu: lax.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))], 0), TypeError),
    M("lax-concatenate-dimension", lambda jnp, lax, tu: lax.concatenate([jnp.ones(3), jnp.ones(3)], 1), TypeError),
    M("lax-concatenate-dtypes", lambda jnp, lax, tu: lax.concatenate([jnp.ones(3), jnp.ones(3, "int32")], 0), TypeError),
    M("transpose-repeated", lambda jnp, lax, tu: jnp.transpose(jnp.ones((2, 3)), (0, 0)), TypeError),
    M("transpose-short", lambda jnp, lax, tu: jnp.transpose(jnp.ones((2, 3)), (0,)), TypeError),
    M("transpose-out-of-range", lambda jnp, lax, tu: jnp.transpose(jnp.ones((2, 3)), (0, 2)), ValueError),
    M("transpose-method-repeated", lambda jnp, lax, tu: jnp.ones((2, 3)).transpose(1, 1), TypeError),
    M("lax-transpose-repeated", lambda jnp, lax, tu: lax.transpose(jnp.ones((2, 3)), (0, 0)), TypeError),
    M("lax-transpose-short", lambda jnp, lax, tu: lax.transpose(jnp.ones((2, 3)), (1,)), TypeError),
    # permute_dims is lax.transpose: negative axes are no permutation of (0, ..., ndim - 1)
    M("permute-dims-negative-axes", lambda jnp, lax, tu: jnp.permute_dims(jnp.ones((2, 3)), (-1, 0)), TypeError),
    M("matrix-transpose-1d", lambda jnp, lax, tu: jnp.matrix_transpose(jnp.ones(3)), ValueError),
    M("rollaxis-start-out-of-range", lambda jnp, lax, tu: jnp.rollaxis(jnp.ones((2, 3)), 0, 3), ValueError),
    M("ix-mask", lambda jnp, lax, tu: jnp.ix_(jnp.array([True, False])), NotImplementedError),
    M("ix-2d", lambda jnp, lax, tu: jnp.ix_(jnp.zeros((2, 2), int)), ValueError),
    M("diag-indices-from-non-square", lambda jnp, lax, tu: jnp.diag_indices_from(jnp.ones((2, 3))), ValueError),
    M("diag-indices-from-1d", lambda jnp, lax, tu: jnp.diag_indices_from(jnp.ones(3)), ValueError),
    M("tril-indices-from-3d", lambda jnp, lax, tu: jnp.tril_indices_from(jnp.ones((2, 3, 4))), ValueError),
    M("triu-indices-from-1d", lambda jnp, lax, tu: jnp.triu_indices_from(jnp.ones(3)), ValueError),
    M("squeeze-non-one", lambda jnp, lax, tu: jnp.squeeze(jnp.ones((2, 3)), 0), ValueError),
    M("squeeze-out-of-range", lambda jnp, lax, tu: jnp.squeeze(jnp.ones((1, 3)), 5), ValueError),
    M("squeeze-repeated", lambda jnp, lax, tu: jnp.squeeze(jnp.ones((1, 3)), (0, 0)), ValueError),
    M("lax-squeeze-non-one", lambda jnp, lax, tu: lax.squeeze(jnp.ones((2, 3)), (0,)), ValueError),
    M("lax-squeeze-out-of-range", lambda jnp, lax, tu: lax.squeeze(jnp.ones((1, 3)), (5,)), ValueError),
    M("expand-dims-out-of-range", lambda jnp, lax, tu: jnp.expand_dims(jnp.ones(3), 3), ValueError),
    M("expand-dims-negative-out-of-range", lambda jnp, lax, tu: jnp.expand_dims(jnp.ones(3), -3), ValueError),
    M("expand-dims-repeated", lambda jnp, lax, tu: jnp.expand_dims(jnp.ones(3), (0, 0)), ValueError),
    M("expand-dims-string", lambda jnp, lax, tu: jnp.expand_dims(jnp.ones(3), "0"), TypeError),
    M("lax-expand-dims-out-of-range", lambda jnp, lax, tu: lax.expand_dims(jnp.ones(3), (5,)), ValueError),
    M("moveaxis-out-of-range", lambda jnp, lax, tu: jnp.moveaxis(jnp.ones((2, 3)), 0, 5), ValueError),
    M("moveaxis-count-mismatch", lambda jnp, lax, tu: jnp.moveaxis(jnp.ones((2, 3)), (0, 1), (0,)), ValueError),
    M("moveaxis-repeated", lambda jnp, lax, tu: jnp.moveaxis(jnp.ones((2, 3)), (0, 0), (0, 1)), TypeError),
    M("swapaxes-out-of-range", lambda jnp, lax, tu: jnp.swapaxes(jnp.ones((2, 3)), 0, 5), IndexError),
    M("swapaxes-float", lambda jnp, lax, tu: jnp.swapaxes(jnp.ones((2, 3)), 0.0, 1), IndexError),
    M("stack-different-shapes", lambda jnp, lax, tu: jnp.stack([jnp.ones(2), jnp.ones(3)]), ValueError),
    M("stack-empty", lambda jnp, lax, tu: jnp.stack([]), ValueError),
    M("stack-axis-out-of-range", lambda jnp, lax, tu: jnp.stack([jnp.ones(2), jnp.ones(2)], axis=3), ValueError),
    M("dot-mismatch", lambda jnp, lax, tu: jnp.dot(jnp.ones(3), jnp.ones(4)), TypeError),
    M("matmul-mismatch", lambda jnp, lax, tu: jnp.matmul(jnp.ones(3), jnp.ones(4)), TypeError),
    M("matmul-operator-mismatch", lambda jnp, lax, tu: jnp.ones((2, 3)) @ jnp.ones((2, 3)), TypeError),
    M("matmul-scalar", lambda jnp, lax, tu: jnp.matmul(1.0, jnp.ones(3)), ValueError),
    M("matmul-batch-mismatch", lambda jnp, lax, tu: jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))), ValueError),
    M("lax-dot-mismatch", lambda jnp, lax, tu: lax.dot(jnp.ones((2, 3)), jnp.ones((4, 5))), ValueError, (TypeError,)),
    M("lax-dot-rank-3", lambda jnp, lax, tu: lax.dot(jnp.ones((2, 3, 4)), jnp.ones((4, 5))), ValueError, (TypeError,)),
    M("lax-dot-scalar", lambda jnp, lax, tu: lax.dot(jnp.ones(()), jnp.ones(4)), ValueError, (TypeError,)),
    M("lax-dot-general-contract-range", lambda jnp, lax, tu: lax.dot_general(jnp.ones((2, 3)), jnp.ones((3, 2)), (((2,), (0,)), ((), ()))), TypeError),
    M("lax-dot-general-contract-sizes", lambda jnp, lax, tu: lax.dot_general(jnp.ones((2, 3)), jnp.ones((3, 2)), (((0,), (0,)), ((), ()))), TypeError),
    M("lax-dot-general-contract-count", lambda jnp, lax, tu: lax.dot_general(jnp.ones((2, 3)), jnp.ones((3, 2)), (((1,), ()), ((), ()))), TypeError),
    M("lax-dot-general-contract-repeated", lambda jnp, lax, tu: lax.dot_general(jnp.ones((3, 3)), jnp.ones((3, 3)), (((1, 1), (0, 1)), ((), ()))), TypeError),
    M("lax-dot-general-batch-count", lambda jnp, lax, tu: lax.dot_general(jnp.ones((2, 3)), jnp.ones((2, 3)), (((1,), (1,)), ((0,), ()))), TypeError),
    M("lax-dot-general-batch-sizes", lambda jnp, lax, tu: lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 3)), (((1,), (1,)), ((0,), (0,)))), TypeError),
    M("lax-dot-general-batch-and-contract", lambda jnp, lax, tu: lax.dot_general(jnp.ones((3, 3)), jnp.ones((3, 3)), (((0,), (0,)), ((0,), (1,)))), TypeError),
    M("lax-dot-general-malformed", lambda jnp, lax, tu: lax.dot_general(jnp.ones(3), jnp.ones(3), ((0,), (0,))), ValueError),
    # --- axes -----------------------------------------------------------------------------------
    M("sum-axis-out-of-range", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=2), ValueError),
    M("sum-axis-negative-out-of-range", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=-3), ValueError),
    M("sum-axis-repeated", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=(0, 0)), ValueError),
    M("sum-axis-repeated-negative", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=(1, -1)), ValueError),
    M("sum-axis-string", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis="0"), NameError),
    M("sum-axis-float", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=0.0), TypeError),
    M("sum-axis-float-in-tuple", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=(0.0,)), TypeError),
    M("max-axis-string", lambda jnp, lax, tu: jnp.max(jnp.ones((2, 3)), axis="a"), NameError),
    M("argmax-axis-string", lambda jnp, lax, tu: jnp.argmax(jnp.ones((2, 3)), axis="a"), TypeError),
    M("mean-axis-negative-out-of-range", lambda jnp, lax, tu: jnp.mean(jnp.ones((2, 3)), axis=-3), IndexError),
    M("mean-axis-repeated", lambda jnp, lax, tu: jnp.mean(jnp.ones((2, 3)), axis=(0, 0)), ValueError),
    M("sum-axis-float-array", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=jnp.asarray(0.0)), TypeError),
    M("sum-method-axis-out-of-range", lambda jnp, lax, tu: jnp.ones(3).sum(axis=3), ValueError),
    M("prod-axis-repeated", lambda jnp, lax, tu: jnp.prod(jnp.ones((2, 3)), axis=(1, 1)), ValueError),
    M("max-axis-out-of-range", lambda jnp, lax, tu: jnp.max(jnp.ones((2, 3)), axis=2), ValueError),
    M("min-axis-out-of-range", lambda jnp, lax, tu: jnp.min(jnp.ones((2, 3)), axis=-3), ValueError),
    M("mean-axis-out-of-range", lambda jnp, lax, tu: jnp.mean(jnp.ones((2, 3)), axis=2), IndexError),
    M("argmax-axis-out-of-range", lambda jnp, lax, tu: jnp.argmax(jnp.ones((2, 3)), axis=2), IndexError),
    M("argmin-axis-float", lambda jnp, lax, tu: jnp.argmin(jnp.ones((2, 3)), axis=1.0), TypeError),
    M("argmax-axis-tuple", lambda jnp, lax, tu: jnp.argmax(jnp.ones((2, 3)), axis=(0,)), TypeError),
    M("lax-reduce-sum-axis-range", lambda jnp, lax, tu: lax.reduce_sum(jnp.ones((2, 3)), (2,)), ValueError),
    M("lax-reduce-sum-negative-axis", lambda jnp, lax, tu: lax.reduce_sum(jnp.ones((2, 3)), (-1,)), ValueError),
    M("lax-reduce-sum-repeated", lambda jnp, lax, tu: lax.reduce_sum(jnp.ones((2, 3)), (0, 0)), ValueError),
    M("lax-reduce-max-axis-range", lambda jnp, lax, tu: lax.reduce_max(jnp.ones((2, 3)), (5,)), ValueError),
    M("lax-argmax-axis-range", lambda jnp, lax, tu: lax.argmax(jnp.ones((2, 3)), 2, "int32"), ValueError),
    M("lax-argmax-float-index-dtype", lambda jnp, lax, tu: lax.argmax(jnp.ones((2, 3)), 0, "float32"), TypeError),
    M("lax-cumsum-axis-range", lambda jnp, lax, tu: lax.cumsum(jnp.ones((2, 3)), 2), ValueError),
    M("lax-rev-axis-range", lambda jnp, lax, tu: lax.rev(jnp.ones((2, 3)), (2,)), TypeError),
    M("lax-rev-repeated", lambda jnp, lax, tu: lax.rev(jnp.ones((2, 3)), (0, 0)), TypeError),
    M("lax-squeeze-repeated", lambda jnp, lax, tu: lax.squeeze(jnp.ones((1, 3)), (0, 0)), ValueError),
    # --- dtypes ---------------------------------------------------------------------------------
    M("lax-add-mixed-dtypes", lambda jnp, lax, tu: lax.add(jnp.ones(3), jnp.ones(3, "int32")), TypeError),
    M("lax-mul-float16-float32", lambda jnp, lax, tu: lax.mul(jnp.ones(3, "float16"), jnp.ones(3)), TypeError),
    M("lax-eq-mixed-dtypes", lambda jnp, lax, tu: lax.eq(jnp.ones(3), jnp.ones(3, "int32")), TypeError),
    M("lax-sin-int", lambda jnp, lax, tu: lax.sin(jnp.arange(3)), TypeError),
    M("lax-exp-bool", lambda jnp, lax, tu: lax.exp(jnp.ones(3, bool)), TypeError),
    M("lax-sqrt-int", lambda jnp, lax, tu: lax.sqrt(jnp.arange(3)), TypeError),
    M("lax-neg-bool", lambda jnp, lax, tu: lax.neg(jnp.ones(3, bool)), TypeError),
    M("neg-bool-operator", lambda jnp, lax, tu: -jnp.ones(2, bool), TypeError),
    M("lax-abs-unsigned", lambda jnp, lax, tu: lax.abs(jnp.ones(3, "uint32")), TypeError),
    M("lax-real-float", lambda jnp, lax, tu: lax.real(jnp.ones(3)), TypeError),
    M("lax-imag-int", lambda jnp, lax, tu: lax.imag(jnp.arange(3)), TypeError),
    M("lax-conj-int", lambda jnp, lax, tu: lax.conj(jnp.arange(3)), TypeError),
    M("lax-conj-float16", lambda jnp, lax, tu: lax.conj(jnp.ones(3, "float16")), TypeError),
    M("lax-complex-of-complex", lambda jnp, lax, tu: lax.complex(jnp.ones(3, "complex64"), jnp.ones(3, "complex64")),
      TypeError),
    M("lax-complex-float16", lambda jnp, lax, tu: lax.complex(jnp.ones(3, "float16"), jnp.ones(3, "float16")),
      TypeError),
    M("lax-bitwise-and-float", lambda jnp, lax, tu: lax.bitwise_and(jnp.ones(3), jnp.ones(3)), TypeError),
    M("lax-bitwise-not-float", lambda jnp, lax, tu: lax.bitwise_not(jnp.ones(3)), TypeError),
    M("bitwise-and-floats", lambda jnp, lax, tu: jnp.bitwise_and(1.0, 2.0), TypeError),
    M("bitwise-or-float-int", lambda jnp, lax, tu: jnp.bitwise_or(jnp.ones(3), jnp.arange(3)), TypeError),
    M("bitwise-not-float", lambda jnp, lax, tu: jnp.bitwise_not(jnp.ones(3)), TypeError),
    M("invert-operator-float", lambda jnp, lax, tu: ~jnp.ones(3), TypeError),
    M("and-operator-floats", lambda jnp, lax, tu: jnp.ones(3) & jnp.ones(3), TypeError),
    M("lax-rem-complex", lambda jnp, lax, tu: lax.rem(jnp.ones(3, "complex64"), jnp.ones(3, "complex64")), TypeError),
    M("lax-lt-complex", lambda jnp, lax, tu: lax.lt(jnp.ones(3, "complex64"), jnp.ones(3, "complex64")), TypeError),
    M("lax-integer-pow-negative-int", lambda jnp, lax, tu: lax.integer_pow(jnp.arange(3), -1), TypeError),
    M("power-int-negative", lambda jnp, lax, tu: jnp.power(jnp.int32(2), -1), TypeError),
    M("lax-pow-ints", lambda jnp, lax, tu: lax.pow(jnp.arange(3), jnp.arange(3)), TypeError),
    M("lax-select-n-float-which", lambda jnp, lax, tu: lax.select_n(jnp.ones(3), jnp.ones(3), jnp.ones(3)), TypeError),
    M("lax-select-n-case-dtypes", lambda jnp, lax, tu: lax.select_n(jnp.ones(3) > 0, jnp.ones(3), jnp.arange(3)), TypeError),
    M("lax-convert-unknown", lambda jnp, lax, tu: lax.convert_element_type(jnp.ones(3), "foo"), TypeError),
    M("lax-convert-object", lambda jnp, lax, tu: lax.convert_element_type(jnp.ones(3), object), TypeError),
    M("lax-convert-string-dtype", lambda jnp, lax, tu: lax.convert_element_type(jnp.ones(3), str), TypeError),
    M("zeros-unknown-dtype", lambda jnp, lax, tu: jnp.zeros(3, dtype="foo"), TypeError),
    M("zeros-object-dtype", lambda jnp, lax, tu: jnp.zeros(3, dtype=object), TypeError),
    M("ones-datetime-dtype", lambda jnp, lax, tu: jnp.ones(3, dtype="datetime64[s]"), TypeError),
    M("astype-unknown", lambda jnp, lax, tu: jnp.ones(3).astype("foo"), TypeError),
    M("asarray-unknown-dtype", lambda jnp, lax, tu: jnp.asarray(1, dtype="foo"), TypeError),
    M("asarray-string-array", lambda jnp, lax, tu: jnp.asarray(np.array(["a"])), TypeError),
    M("promote-types-unknown", lambda jnp, lax, tu: jnp.promote_types("foo", "int32"), TypeError),
    M("result-type-nothing", lambda jnp, lax, tu: jnp.result_type(), ValueError),
    M("sum-unknown-dtype", lambda jnp, lax, tu: jnp.sum(jnp.ones(3), dtype="foo"), TypeError),
    M("floor-divide-complex", lambda jnp, lax, tu: jnp.floor_divide(jnp.ones(3, "complex64"), 1), TypeError),
    M("remainder-complex", lambda jnp, lax, tu: jnp.remainder(jnp.ones(3, "complex64"), 1), TypeError),
    M("subtract-bools", lambda jnp, lax, tu: jnp.subtract(jnp.ones(3, bool), jnp.ones(3, bool)), TypeError),
    M("iota-unknown-dtype", lambda jnp, lax, tu: lax.iota("foo", 3), TypeError),
    M("asarray-int-overflow", lambda jnp, lax, tu: jnp.asarray(2**40), OverflowError),
    M("add-int-overflow", lambda jnp, lax, tu: jnp.add(jnp.arange(3), 2**40), OverflowError),
    # --- lax argument checks --------------------------------------------------------------------
    M("lax-slice-count", lambda jnp, lax, tu: lax.slice(jnp.ones((2, 3)), (0,), (2,)), ValueError, (TypeError,)),
    M("lax-slice-start-after-limit", lambda jnp, lax, tu: lax.slice(jnp.ones(3), (2,), (1,)), TypeError),
    M("lax-slice-limit-past-end", lambda jnp, lax, tu: lax.slice(jnp.ones(3), (0,), (4,)), TypeError),
    M("lax-slice-strides-count", lambda jnp, lax, tu: lax.slice(jnp.ones(3), (0,), (3,), (1, 1)), TypeError),
    M("lax-slice-negative-stride", lambda jnp, lax, tu: lax.slice(jnp.ones(3), (0,), (3,), (-1,)), TypeError),
    M("lax-dynamic-slice-too-few", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones((2, 3)), (0,), (1, 1)), ValueError),
    M("lax-dynamic-slice-too-many", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones(3), (0, 0), (1,)), ValueError),
    M("lax-dynamic-slice-sizes-count", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones((2, 3)), (0, 0), (1,)), ValueError, (TypeError,)),
    M("lax-dynamic-slice-size-too-big", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones(3), (0,), (4,)), TypeError),
    M("lax-dynamic-slice-negative-size", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones(3), (0,), (-1,)), TypeError),
    M("lax-dynamic-slice-float-index", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones(3), (jnp.asarray(1.0),), (1,)), TypeError),
    M("lax-dynamic-slice-vector-index", lambda jnp, lax, tu: lax.dynamic_slice(jnp.ones(3), (jnp.zeros(2, "int32"),), (1,)), TypeError),
    M("lax-dynamic-update-slice-extra", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones(3), jnp.ones(1), (0, 0)), ValueError),
    M("lax-dynamic-update-slice-too-few", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones((2, 3)), jnp.ones((1, 1)), (0,)), ValueError),
    M("lax-dynamic-update-slice-too-big", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones(3), jnp.ones(4), (0,)), TypeError),
    M("lax-dynamic-update-slice-rank", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones(3), jnp.ones((1, 1)), (0,)), TypeError),
    M("lax-dynamic-update-slice-dtypes", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones(3), jnp.arange(1), (0,)), TypeError),
    M("lax-dynamic-update-slice-float-index", lambda jnp, lax, tu: lax.dynamic_update_slice(jnp.ones(3), jnp.ones(1), (1.0,)), TypeError),
    M("lax-pad-config-length", lambda jnp, lax, tu: lax.pad(jnp.ones((2, 3)), 0.0, [(1, 1, 0)]), ValueError),
    M("lax-pad-config-entry", lambda jnp, lax, tu: lax.pad(jnp.ones(3), 0.0, [(1, 1)]), ValueError),
    M("lax-pad-negative-interior", lambda jnp, lax, tu: lax.pad(jnp.ones(3), 0.0, [(0, 0, -1)]), ValueError),
    M("lax-pad-negative-size", lambda jnp, lax, tu: lax.pad(jnp.ones(3), 0.0, [(-2, -2, 0)]), ValueError),
    M("lax-pad-vector-value", lambda jnp, lax, tu: lax.pad(jnp.ones(3), jnp.ones(2), [(1, 1, 0)]), ValueError),
    M("lax-pad-dtypes", lambda jnp, lax, tu: lax.pad(jnp.ones(3), jnp.int32(0), [(1, 1, 0)]), TypeError),
    M("lax-iota-negative", lambda jnp, lax, tu: lax.iota("int32", -1), TypeError),
    M("lax-iota-float-size", lambda jnp, lax, tu: lax.iota("int32", 3.0), TypeError),
    M("lax-broadcasted-iota-dimension", lambda jnp, lax, tu: lax.broadcasted_iota("int32", (2, 3), 2), ValueError),
    M("lax-broadcasted-iota-negative-dimension", lambda jnp, lax, tu: lax.broadcasted_iota("int32", (2, 3), -1), ValueError),
    # --- reductions -----------------------------------------------------------------------------
    M("argmax-complex", lambda jnp, lax, tu: jnp.argmax(jnp.ones(3, "complex64")), TypeError),
    M("argmin-complex", lambda jnp, lax, tu: jnp.argmin(jnp.ones(3, "complex64")), TypeError),
    M("lax-argmax-complex", lambda jnp, lax, tu: lax.argmax(jnp.ones(3, "complex64"), 0, "int32"), TypeError),
    M("max-empty", lambda jnp, lax, tu: jnp.max(jnp.ones(0)), ValueError),
    M("min-empty-axis", lambda jnp, lax, tu: jnp.min(jnp.ones((2, 0)), axis=1), ValueError),
    M("argmax-empty", lambda jnp, lax, tu: jnp.argmax(jnp.ones(0)), ValueError),
    M("argmin-empty-axis", lambda jnp, lax, tu: jnp.argmin(jnp.ones((0, 2)), axis=0), ValueError),
    M("sum-out", lambda jnp, lax, tu: jnp.sum(jnp.ones(3), out=jnp.ones(())), NotImplementedError),
    M("prod-out", lambda jnp, lax, tu: jnp.prod(jnp.ones(3), out=1), NotImplementedError),
    M("max-out", lambda jnp, lax, tu: jnp.max(jnp.ones(3), out=1), NotImplementedError),
    M("mean-out", lambda jnp, lax, tu: jnp.mean(jnp.ones(3), out=1), NotImplementedError),
    M("argmax-out", lambda jnp, lax, tu: jnp.argmax(jnp.ones(3), out=1), NotImplementedError),
    M("lax-reduce-sum-bool", lambda jnp, lax, tu: lax.reduce_sum(jnp.ones(3, bool), (0,)), TypeError),
    # --- creation -------------------------------------------------------------------------------
    M("full-list-fill", lambda jnp, lax, tu: jnp.full((2,), [1, 2]), TypeError),
    M("full-string-fill", lambda jnp, lax, tu: jnp.full((2,), "abc"), TypeError),
    M("full-none-fill", lambda jnp, lax, tu: jnp.full((2,), None), TypeError),
    M("full-fill-does-not-broadcast", lambda jnp, lax, tu: jnp.full((2,), jnp.ones(3)), ValueError),
    M("full-float-shape", lambda jnp, lax, tu: jnp.full(3.0, 1), TypeError),
    M("zeros-negative", lambda jnp, lax, tu: jnp.zeros(-1), TypeError),
    M("ones-negative-dim", lambda jnp, lax, tu: jnp.ones((2, -1)), TypeError),
    M("full-negative", lambda jnp, lax, tu: jnp.full(-1, 0.0), TypeError),
    M("empty-negative", lambda jnp, lax, tu: jnp.empty(-2), TypeError),
    M("eye-negative", lambda jnp, lax, tu: jnp.eye(-1), ValueError),
    M("eye-float", lambda jnp, lax, tu: jnp.eye(2.5), TypeError),
    M("eye-string-m", lambda jnp, lax, tu: jnp.eye(2, "a"), TypeError),
    M("eye-float-k", lambda jnp, lax, tu: jnp.eye(2, k=0.5), ValueError),
    M("eye-float-m", lambda jnp, lax, tu: jnp.eye(2, M=2.5), TypeError),
    M("eye-none", lambda jnp, lax, tu: jnp.eye(None), TypeError),
    M("arange-no-arguments", lambda jnp, lax, tu: jnp.arange(), TypeError),
    M("arange-string", lambda jnp, lax, tu: jnp.arange("abc"), TypeError),
    M("linspace-negative-num", lambda jnp, lax, tu: jnp.linspace(0, 1, -1), ValueError),
    M("linspace-float-num", lambda jnp, lax, tu: jnp.linspace(0, 1, 2.5), TypeError),
    M("finfo-of-an-integer-type", lambda jnp, lax, tu: jnp.finfo(jnp.int32), ValueError),
    M("iinfo-of-a-float-type", lambda jnp, lax, tu: jnp.iinfo(jnp.float32), ValueError),
    # --- indexing -------------------------------------------------------------------------------
    M("index-too-many", lambda jnp, lax, tu: jnp.ones(3)[0, 0], IndexError),
    M("index-scalar", lambda jnp, lax, tu: jnp.ones(())[0], IndexError),
    M("index-two-ellipses", lambda jnp, lax, tu: jnp.ones(3)[..., ...], IndexError),
    M("index-float", lambda jnp, lax, tu: jnp.ones(3)[1.0], TypeError),
    M("index-string", lambda jnp, lax, tu: jnp.ones(3)["a"], TypeError),
    M("slice-bound-float", lambda jnp, lax, tu: jnp.ones(3)[:2.0], TypeError),
    M("slice-bound-float-array", lambda jnp, lax, tu: jnp.ones(3)[:jnp.asarray(2.0)], TypeError),
    M("slice-bound-vector", lambda jnp, lax, tu: jnp.ones(3)[jnp.asarray([1]):], TypeError),
    M("index-float-array", lambda jnp, lax, tu: jnp.ones(3)[jnp.asarray(1.0)], TypeError),
    M("index-float-slice", lambda jnp, lax, tu: jnp.ones(3)[0:1.5], TypeError),
    M("index-zero-step", lambda jnp, lax, tu: jnp.ones(3)[::0], ValueError),
    M("item-assignment", lambda jnp, lax, tu: operator.setitem(jnp.ones(3), 0, 1.0), TypeError),
    M("index-list-as-whole-index", lambda jnp, lax, tu: jnp.ones(3)[[0, 1]], TypeError),
    M("index-float-list", lambda jnp, lax, tu: jnp.ones(3)[([1.0],)], TypeError, (IndexError,)),
    M("index-float-index-array", lambda jnp, lax, tu: jnp.ones(3)[jnp.asarray([1.0])], TypeError),
    M("index-mask-wrong-shape", lambda jnp, lax, tu: jnp.ones((2, 3))[np.array([True, False, True])], IndexError),
    M("index-arrays-do-not-broadcast", lambda jnp, lax, tu: jnp.ones((3, 4))[jnp.asarray([0, 1]), jnp.asarray([0, 1, 2])], ValueError),
    M("index-array-too-many", lambda jnp, lax, tu: jnp.ones(3)[jnp.asarray([0]), 0], IndexError),
    M("at-unknown-mode", lambda jnp, lax, tu: jnp.ones(3).at[0].get(mode="nearest"), ValueError),
    M("at-update-does-not-broadcast", lambda jnp, lax, tu: jnp.ones(3).at[jnp.asarray([0, 1])].set(jnp.ones(3)), ValueError),
    M("at-update-rank-too-high", lambda jnp, lax, tu: jnp.ones(3).at[0].set(jnp.ones(1)), ValueError),
    M("at-add-bool", lambda jnp, lax, tu: jnp.ones(3, bool).at[0].add(True), TypeError),
    M("at-multiply-bool", lambda jnp, lax, tu: jnp.ones(3, bool).at[0].multiply(True), TypeError),
    M("at-set-fill-value", lambda jnp, lax, tu: jnp.ones(3).at[0].set(1.0, fill_value=0.0), TypeError),
    M("take-raise-mode", lambda jnp, lax, tu: jnp.take(jnp.ones(3), jnp.asarray([0]), mode="raise"), NotImplementedError),
    M("take-unknown-mode", lambda jnp, lax, tu: jnp.take(jnp.ones(3), jnp.asarray([0]), mode="nearest"), ValueError),
    M("take-float-indices", lambda jnp, lax, tu: jnp.take(jnp.ones(3), jnp.asarray([1.0])), ValueError),
    M("take-list-indices", lambda jnp, lax, tu: jnp.take(jnp.ones(3), [0]), TypeError),
    M("take-axis-out-of-range", lambda jnp, lax, tu: jnp.take(jnp.ones(3), jnp.asarray([0]), axis=1), ValueError),
    M("take-out-argument", lambda jnp, lax, tu: jnp.take(jnp.ones(3), jnp.asarray([0]), out=jnp.ones(1)), NotImplementedError),
    M("take-from-empty-axis", lambda jnp, lax, tu: jnp.take(jnp.ones(0), jnp.asarray([0])), IndexError),
    M("take-along-axis-rank-mismatch", lambda jnp, lax, tu: jnp.take_along_axis(jnp.ones((2, 3)), jnp.asarray([0]), axis=1), ValueError),
    M("take-along-axis-float-indices", lambda jnp, lax, tu: jnp.take_along_axis(jnp.ones(3), jnp.asarray([1.0]), axis=0), TypeError),
    M("take-along-axis-no-broadcast", lambda jnp, lax, tu: jnp.take_along_axis(jnp.ones((2, 3)), jnp.zeros((3, 1), jnp.int32), axis=1), ValueError),
    M("take-along-axis-none-2d-indices", lambda jnp, lax, tu: jnp.take_along_axis(jnp.ones((2, 3)), jnp.zeros((2, 1), jnp.int32), axis=None), ValueError),
    M("lax-gather-float-indices", lambda jnp, lax, tu: lax.gather(jnp.ones(3), jnp.ones((1, 1)), lax.GatherDimensionNumbers((), (0,), (0,)), (1,)), ValueError),
    M("lax-gather-slice-too-big", lambda jnp, lax, tu: lax.gather(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), lax.GatherDimensionNumbers((0,), (), (0,)), (4,)), TypeError),
    M("lax-gather-collapse-wide-slice", lambda jnp, lax, tu: lax.gather(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (2,)), TypeError),
    M("lax-gather-index-vector-length", lambda jnp, lax, tu: lax.gather(jnp.ones(3), jnp.zeros((1, 2), jnp.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (1,)), TypeError),
    M("lax-gather-unknown-mode", lambda jnp, lax, tu: lax.gather(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (1,), mode="wrap"), ValueError),
    M("lax-scatter-dtype-mismatch", lambda jnp, lax, tu: lax.scatter(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), jnp.ones(1, jnp.int32), lax.ScatterDimensionNumbers((), (0,), (0,))), TypeError),
    M("lax-scatter-add-float-indices", lambda jnp, lax, tu: lax.scatter_add(jnp.ones(3), jnp.zeros((1, 1)), jnp.ones(1), lax.ScatterDimensionNumbers((), (0,), (0,))), ValueError),
    M("len-scalar", lambda jnp, lax, tu: len(jnp.ones(())), TypeError),
    M("iterate-scalar", lambda jnp, lax, tu: iter(jnp.ones(())), TypeError),
    M("int-of-vector", lambda jnp, lax, tu: int(jnp.ones(3)), TypeError),
    M("float-of-vector", lambda jnp, lax, tu: float(jnp.ones(3)), TypeError),
    M("bool-of-vector", lambda jnp, lax, tu: bool(jnp.ones(3)), ValueError),
    M("hash-array", lambda jnp, lax, tu: hash(jnp.ones(3)), TypeError),
    M("index-of-float-scalar", lambda jnp, lax, tu: operator.index(jnp.ones(())), TypeError),
    # --- pytrees --------------------------------------------------------------------------------
    M("flatten-returns-list", lambda jnp, lax, tu: tu.tree_leaves(custom_node(tu, lambda n: [[1], None])), ValueError),
    M("flatten-returns-three", lambda jnp, lax, tu: tu.tree_leaves(custom_node(tu, lambda n: ((1,), None, 0))), ValueError),
    M("flatten-returns-one", lambda jnp, lax, tu: tu.tree_leaves(custom_node(tu, lambda n: ((1,),))), ValueError),
    M("flatten-returns-none", lambda jnp, lax, tu: tu.tree_leaves(custom_node(tu, lambda n: None)), ValueError),
    M("flatten-children-not-iterable", lambda jnp, lax, tu: tu.tree_leaves(custom_node(tu, lambda n: (5, None))), ValueError),
    M("unflatten-too-few", lambda jnp, lax, tu: tu.tree_unflatten(tu.tree_structure([1, 2]), [1]), ValueError),
    M("unflatten-too-many", lambda jnp, lax, tu: tu.tree_unflatten(tu.tree_structure([1, 2]), [1, 2, 3]), ValueError),
    M("unflatten-not-iterable", lambda jnp, lax, tu: tu.tree_unflatten(tu.tree_structure([1, 2]), 5), TypeError),
    M("map-list-vs-tuple", lambda jnp, lax, tu: tu.tree_map(lambda a, b: a, [1, 2], (1, 2)), ValueError),
    M("map-different-lengths", lambda jnp, lax, tu: tu.tree_map(lambda a, b: a, [1, 2], [1, 2, 3]), ValueError),
    M("map-different-keys", lambda jnp, lax, tu: tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}), ValueError),
    M("map-leaf-where-node", lambda jnp, lax, tu: tu.tree_map(lambda a, b: a, [1, (2, 3)], [1, 2]), ValueError),
    M("map-none-vs-leaf", lambda jnp, lax, tu: tu.tree_map(lambda a, b: a, [None], [1]), ValueError),
    M("map-not-callable", lambda jnp, lax, tu: tu.tree_map(5, [1, 2]), TypeError),
    M("register-twice", lambda jnp, lax, tu: [tu.register_pytree_node(t, lambda n: ((), None), lambda a, c: None) for t in [type("Twice", (), {})] * 2], ValueError),
    M("reduce-empty-no-initializer", lambda jnp, lax, tu: tu.tree_reduce(operator.add, []), TypeError),
    M("flatten-unsortable-keys", lambda jnp, lax, tu: tu.tree_flatten({1: "a", "b": 2}), ValueError),
    M("unflatten-not-a-treedef", lambda jnp, lax, tu: tu.tree_unflatten(5, [1]), AttributeError),
    M("transpose-inner-mismatch", lambda jnp, lax, tu: tu.tree_transpose(
        tu.tree_structure([1, 1]), tu.tree_structure((1, 1)), [(1, 2), (3,)]), TypeError),
]


class Accepted(NamedTuple):
    id: str
    call: Call  # returns True when the result is right


ACCEPTED: list[Accepted] = [
    Accepted("sum-axis-array", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=jnp.asarray(0)).shape == (3,)),
    Accepted("sum-axis-numpy-int", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=np.int64(1)).shape == (2,)),
    Accepted("broadcast-to-int-shape", lambda jnp, lax, tu: jnp.broadcast_to(jnp.ones(()), 3).shape == (3,)),
    Accepted("reshape-int-shape", lambda jnp, lax, tu: jnp.reshape(jnp.ones((2, 3)), 6).shape == (6,)),
    Accepted("zeros-numpy-int-shape", lambda jnp, lax, tu: jnp.zeros(np.int32(2)).shape == (2,)),
    Accepted("transpose-negative-axes", lambda jnp, lax, tu: jnp.transpose(jnp.ones((2, 3)), (-1, -2)).shape == (3, 2)),
    Accepted("index-negative", lambda jnp, lax, tu: float(jnp.arange(3.0)[-1]) == 2.0),
    Accepted("sum-axis-list", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=[0]).shape == (3,)),
    Accepted("sum-axis-numpy-array", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=np.asarray(0)).shape == (3,)),
    Accepted("sum-axis-array-of-axes", lambda jnp, lax, tu: jnp.sum(jnp.ones((2, 3)), axis=jnp.asarray([0, 1])).shape == ()),
    Accepted("max-complex", lambda jnp, lax, tu: complex(jnp.max(jnp.asarray([1j, 2.0]))) == 2.0),
    Accepted("zeros-array-shape", lambda jnp, lax, tu: jnp.zeros(jnp.asarray(2)).shape == (2,)),
    Accepted("ones-list-shape", lambda jnp, lax, tu: jnp.ones([2, 3]).shape == (2, 3)),
    Accepted("eye-array-k", lambda jnp, lax, tu: float(jnp.eye(2, k=jnp.asarray(1))[0, 1]) == 1.0),
    # lax.broadcast_in_dim may map operand dimensions to output dimensions in any order.
    Accepted("lax-broadcast-in-dim-transposing", lambda jnp, lax, tu: np.array_equal(
        lax.broadcast_in_dim(jnp.arange(6).reshape(2, 3), (3, 2), (1, 0)), np.arange(6).reshape(2, 3).T)),
    # An integer index past the end is clamped, as in jax.numpy (no IndexError).
    Accepted("index-past-end-clamps", lambda jnp, lax, tu: float(jnp.arange(3.0)[3]) == 2.0),
    Accepted("index-before-start-clamps", lambda jnp, lax, tu: float(jnp.arange(3.0)[-4]) == 0.0),
    Accepted("index-past-end-in-2d-clamps", lambda jnp, lax, tu: jnp.ones((2, 3))[:, -4].shape == (2,)),
    # Advanced indexing and .at, as JAX has them.
    Accepted("index-list-inside-tuple", lambda jnp, lax, tu: jnp.arange(6).reshape(2, 3)[:, [0, 2]].tolist() == [[0, 2], [3, 5]]),
    Accepted("index-numpy-mask", lambda jnp, lax, tu: jnp.arange(4)[np.array([True, False, True, False])].tolist() == [0, 2]),
    Accepted("index-array-past-end-clamps", lambda jnp, lax, tu: jnp.arange(3)[jnp.asarray([5, -9])].tolist() == [2, 0]),
    Accepted("index-scalar-true-adds-axis", lambda jnp, lax, tu: jnp.arange(3)[True].shape == (1, 3)),
    Accepted("at-set-out-of-range-is-dropped", lambda jnp, lax, tu: jnp.arange(3).at[5].set(9).tolist() == [0, 1, 2]),
    Accepted("at-add-repeats-accumulate", lambda jnp, lax, tu: jnp.zeros(2, jnp.int32).at[jnp.asarray([1, 1, 1])].add(1).tolist() == [0, 3]),
    Accepted("at-set-list-values", lambda jnp, lax, tu: jnp.zeros(2).at[jnp.asarray([0, 1])].set([1.0, 2.0]).tolist() == [1.0, 2.0]),
    Accepted("at-get-fill", lambda jnp, lax, tu: jnp.arange(3).at[jnp.asarray([1, 7])].get(mode="fill", fill_value=-1).tolist() == [1, -1]),
    # A slice bound whose value is known is static (JAX reads it); one that is staged is not (test_jaxpr.py).
    Accepted("slice-bound-integer-array", lambda jnp, lax, tu: jnp.arange(5)[:jnp.asarray(2)].tolist() == [0, 1]),
    Accepted("slice-bounds-numpy-integers", lambda jnp, lax, tu: jnp.arange(5)[np.array(1):np.int8(5):jnp.asarray(2)].tolist() == [1, 3]),
    Accepted("slice-bound-array-beside-an-index-array", lambda jnp, lax, tu: jnp.arange(6).reshape(2, 3)[jnp.asarray([1]), :jnp.asarray(2)].tolist() == [[3, 4]]),
    Accepted("index-empty-array-into-empty-axis", lambda jnp, lax, tu: jnp.zeros((0, 3))[jnp.zeros(0, jnp.int32)].shape == (0, 3)),
    Accepted("take-wrap", lambda jnp, lax, tu: jnp.take(jnp.arange(3), jnp.asarray([4, -4]), mode="wrap").tolist() == [1, 2]),
    # A range (any object NumPy turns into numbers) goes through NumPy: strongly typed, canonical dtype
    Accepted("asarray-range", lambda jnp, lax, tu: (lambda a: a.tolist() == [0, 1, 2] and a.dtype == np.int32
                                                    and not a.weak_type)(jnp.asarray(range(3)))),
    Accepted("array-empty-range", lambda jnp, lax, tu: jnp.array(range(0)).dtype == np.float32),
    Accepted("array-of-ranges", lambda jnp, lax, tu: jnp.array([range(2), [5, 6]]).tolist() == [[0, 1], [5, 6]]),
    Accepted("array-of-array-and-range", lambda jnp, lax, tu: jnp.array([jnp.ones(2), range(2)]).tolist() == [[1, 1], [0, 1]]),
    Accepted("asarray-memoryview", lambda jnp, lax, tu: jnp.asarray(memoryview(b"ab")).tolist() == [97, 98]),
    # JAX's own flattening stops near Python's recursion limit (about 1,000 levels); 800 is within it.
    Accepted("tree-leaves-deep", lambda jnp, lax, tu: tu.tree_leaves(nested_lists(800)) == [1.0]),
    Accepted("tree-flatten-deep", lambda jnp, lax, tu: tu.tree_flatten(nested_lists(800))[0] == [1.0]),
]


# Normal calls that must work after any misuse: nothing the failed call did is left behind.
STILL_WORKS: list[tuple[Call, Any]] = [
    (lambda jnp, lax, tu: float(jnp.sum(jnp.arange(4.0))), 6.0),
    (lambda jnp, lax, tu: float(lax.add(jnp.float32(1), jnp.float32(2))), 3.0),
    (lambda jnp, lax, tu: tu.tree_leaves([1, (2, {"a": 3})]), [1, 2, 3]),
]


def still_works(impl: Impl, after: Call) -> None:
    """Each of STILL_WORKS after the call `after`; a failure's program makes that call, then this one."""
    for call, want in STILL_WORKS:
        show_call(f"try:\n    {lambda_body(after)}\nexcept Exception as err:\n    print(repr(err))\n"
                  f"{lambda_body(call)}  # expected {want!r}")  # fmt: skip
        got = call(impl.numpy, impl.lax, impl.tree_util)
        assert got == want, f"after the call, {lambda_body(call)} gave {got!r}, expected {want!r}"


# A failure's program is the entry's call itself (its text, read from this file).
@pytest.mark.parametrize("case", MISUSES, ids=[c.id for c in MISUSES])
def test_misuse_raises_what_jax_raises(impl: Impl, case: Misuse) -> None:
    show_call(f"{lambda_body(case.call)}  # JAX raises {case.raises.__name__}")
    with pytest.raises(Exception) as info:
        case.call(impl.numpy, impl.lax, impl.tree_util)
    err = info.value
    wrong = f"{case.id}: expected {case.raises.__name__}, got {type(err).__name__}: {err}"
    assert isinstance(err, (case.raises, *case.other_releases)), wrong
    still_works(impl, case.call)
    release_detail(isinstance(err, case.raises), wrong)


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.id for c in ACCEPTED])
def test_what_jax_accepts_is_accepted(impl: Impl, case: Accepted) -> None:
    show_call(f"{lambda_body(case.call)}  # JAX gives True")
    assert case.call(impl.numpy, impl.lax, impl.tree_util)
    still_works(impl, case.call)


def test_the_catalogue_has_distinct_ids() -> None:
    ids = [c.id for c in MISUSES] + [c.id for c in ACCEPTED]
    assert len(ids) == len(set(ids))
