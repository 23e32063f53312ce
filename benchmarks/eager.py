"""Stage 01's suite, eager dispatch: one operation at a time on small arrays, so what is timed is
the cost of getting an operation to NumPy (didax) or to XLA (JAX), not the arithmetic.

Every case builds its inputs once, outside the timed function. JAX's results are waited for with
`.block_until_ready()`, since JAX dispatches asynchronously; didax and NumPy finish when they return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from .cases import Case, Libs

SUITE = "eager"
TITLE = "eager dispatch"
SIZE = 8  # elements of each array: small, so dispatch dominates
TREE_LEAVES = 100
CHAIN_LENGTHS = (10, 100, 1000)
CHAIN_OPS = 3  # sin, multiply, add per link


def cases(libs: Libs) -> list[Case]:
    """Every case of the suite, in the order the tables show them."""
    x, y = _inputs(libs, 1.0), _inputs(libs, 2.0)
    return [
        _elementwise(libs, "jnp.sin(x)", "a unary primitive", lambda m, x: m.sin(x), x),
        _elementwise(libs, "x + y", "a binary operator on two arrays", lambda m, x, y: x + y, x, y),
        _elementwise(libs, "x + 2.0", "an operator with a Python scalar (weakly typed)",
                     lambda m, x: x + 2.0, x),
        _elementwise(libs, "jnp.sum(x)", "a reduction to a scalar", lambda m, x: m.sum(x), x),
        _elementwise(libs, "x.sum()", "the same reduction as an array method", lambda m, x: x.sum(), x),
        _tree_flatten(libs),
        _tree_unflatten(libs),
        *(_chain(libs, n, x) for n in CHAIN_LENGTHS),
    ]


def _inputs(libs: Libs, start: float) -> dict[str, Any]:
    """One float32 array of SIZE elements, as each implementation's own array type."""
    data = libs.numpy.linspace(start, start + 1.0, SIZE, dtype=libs.numpy.float32)
    return {
        "numpy": data,
        "didax": libs.didax.numpy.asarray(data),
        "jax": libs.jax.numpy.asarray(data).block_until_ready(),
    }


def _numpy_likes(libs: Libs) -> dict[str, Any]:
    """The module each implementation's `jnp` is."""
    return {"numpy": libs.numpy, "didax": libs.didax.numpy, "jax": libs.jax.numpy}


def _waited(fn: Callable[[], Any]) -> Callable[[], Any]:
    """`fn`, returning only once JAX has computed its result."""
    return lambda: fn().block_until_ready()


def _elementwise(libs: Libs, name: str, what: str, op: Callable[..., Any], *args: dict[str, Any]) -> Case:
    """A case `op(jnp, *args)`, the same code for all three implementations."""
    calls = {impl: partial(op, m, *(a[impl] for a in args)) for impl, m in _numpy_likes(libs).items()}
    calls["jax"] = _waited(calls["jax"])
    return Case(name, what, calls)


def _tree(libs: Libs, impl: str) -> dict[str, Any]:
    """A dict of TREE_LEAVES leaves, alternately a small array of `impl` and a Python float."""
    arrays = _inputs(libs, 0.0)
    return {f"leaf{i:03d}": arrays[impl] if i % 2 else float(i) for i in range(TREE_LEAVES)}


def _tree_flatten(libs: Libs) -> Case:
    calls: dict[str, Callable[[], object] | None] = {
        "numpy": None,  # NumPy has no pytrees
        "didax": partial(libs.didax.tree_util.tree_flatten, _tree(libs, "didax")),
        "jax": partial(libs.jax.tree_util.tree_flatten, _tree(libs, "jax")),
    }
    return Case("tree_flatten", f"flatten a dict of {TREE_LEAVES} leaves (arrays and floats)", calls)


def _tree_unflatten(libs: Libs) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        tree_util = getattr(libs, impl).tree_util
        leaves, treedef = tree_util.tree_flatten(_tree(libs, impl))
        calls[impl] = partial(tree_util.tree_unflatten, treedef, leaves)
    return Case("tree_unflatten", f"rebuild the same dict from its {TREE_LEAVES} leaves", calls)


def _chain(libs: Libs, n: int, x: dict[str, Any]) -> Case:
    """`y = jnp.sin(y) * 2.0 + 1.0`, n times: the cost per operation should not grow with n."""

    def chain(m: Any, y: Any) -> Any:
        for _ in range(n):
            y = m.sin(y) * 2.0 + 1.0
        return y

    case = _elementwise(libs, f"chain ×{n}", f"`y = jnp.sin(y) * 2.0 + 1.0`, {n} times", chain, x)
    return replace(case, ops=CHAIN_OPS * n)
