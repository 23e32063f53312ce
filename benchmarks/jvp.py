"""Stage 02's suite, eager forward mode: ``jvp`` of small programs run one operation at a time.

JAX runs each operation of an eager jvp through its own dispatch (a JVP rule, then every
primitive the rule applies, each compiled once and dispatched); didax's interpreter applies the
rule's primitives straight to NumPy. What is timed is the whole ``jvp`` call, tracing included.
Arrays are float32 of shape ``(8,)``, as in the eager suite, so the time is interpretation, not
arithmetic. NumPy has no jvp: its column is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .cases import Case, Libs
from .eager import SIZE

SUITE = "jvp"
TITLE = "eager forward mode (jvp)"
CAPABILITY = "jvp"  # the stages that have this suite
CHAIN_LENGTHS = (100, 1000, 5000)  # operations, for the growth table


def cases(libs: Libs) -> list[Case]:
    """Every case of the suite, in the order the tables show them."""
    return [
        _jvp_case(libs, "jvp(sin)", "jvp of one primitive", lambda m, x: m.numpy.sin(x)),
        _jvp_case(libs, "jvp(x * y)", "jvp of a product with a constant operand",
                  lambda m, x: x * m.numpy.arange(SIZE, dtype="float32")),
        *(_chain(libs, n) for n in CHAIN_LENGTHS),
    ]


def link(m: Any, i: int, y: Any) -> Any:
    """Operation ``i`` of a chain: sin, times 1.5, plus 0.5, in turn (each one primitive)."""
    step = i % 3
    if step == 0:
        return m.numpy.sin(y)
    return y * 1.5 if step == 1 else y + 0.5


def _chain(libs: Libs, n: int) -> Case:
    def chain(m: Any, y: Any) -> Any:
        for i in range(n):
            y = link(m, i, y)
        return y

    case = _jvp_case(libs, f"jvp chain ×{n}", f"jvp of {n} elementwise operations (sin, ×1.5, +0.5 in turn)",
                     chain)
    return Case(case.name, case.what, case.calls, ops=n)


def _jvp_case(libs: Libs, name: str, what: str, fn: Callable[[Any, Any], Any]) -> Case:
    """``jvp(fn, (x,), (ones,))`` in didax and in JAX; JAX's result is waited for."""
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        x = m.numpy.linspace(1.0, 2.0, SIZE, dtype="float32")
        t = m.numpy.ones(SIZE, dtype="float32")
        calls[impl] = partial(m.jvp, partial(fn, m), (x,), (t,))
    jax_call = calls["jax"]
    calls["jax"] = lambda: [v.block_until_ready() for v in jax_call()]
    return Case(name, what, calls)
