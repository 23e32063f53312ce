"""Stage 04's suite, staging: ``make_jaxpr`` of a chain of jax.numpy operations, 100 to 5,000 long.

What is timed is the whole ``make_jaxpr(f)(y, w)`` call: tracing ``f``, every jax.numpy function's
promotion and shape checks, the staging interpreter, building the jaxpr. Nothing is computed, so
the figure is the cost of recording a program, per equation. JAX keeps a cache of the jaxprs it
has made, keyed by the function: each call stages a new function (a fresh closure over the same
code), so that JAX traces it again, as a program would on its first call. Inside, each jax.numpy
function is itself jit-wrapped in JAX and its own trace is cached: that is part of what JAX's
figure is.

The chain repeats a block of ten operations of the kind a layer of a real program has: functions,
scalars, a vector broadcast against a matrix, a reduction broadcast back, a comparison and a
select. Both libraries record about one equation per operation, but not the same ones: they are
counted per chain (at the top level, and with the equations of nested jaxprs: JAX's ``where`` is
a ``jit`` equation holding its own jaxpr), and the suite's own table divides each library's time
by its own count of top-level equations.

Times are the process's CPU time (``time.process_time``), not wall-clock time: the benchmarks
often run on a small machine shared with other work, and a staging run is pure Python on one
thread, so CPU time leaves out the time spent waiting for a core.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .cases import Case, Libs

SUITE = "jaxpr"
TITLE = "staging (make_jaxpr)"
CAPABILITY = "jaxpr"  # the stages that have this suite
CLOCK = time.process_time
CHAIN_LENGTHS = (100, 300, 1000, 3000, 5000)  # operations, for the growth tables
BLOCK = 10  # operations in one block of the chain
ROWS, COLS = 8, 8  # y is a (ROWS, COLS) float32 matrix, w a (COLS,) vector


def cases(libs: Libs) -> list[Case]:
    """Every case of the suite, in the order the tables show them."""
    return [_chain_case(libs, n) for n in CHAIN_LENGTHS]


def block(jnp: Any, y: Any, w: Any) -> Any:
    """Ten jax.numpy operations (each call and each operator is one)."""
    y = jnp.sin(y) * 1.5 + w  # a function, a Python scalar, a vector broadcast over the rows
    y = jnp.tanh(y) - jnp.mean(y, axis=0)  # a reduction, broadcast back
    y = jnp.where(y > 0.0, y, 0.1 * y)  # a comparison and a select
    return jnp.exp(y)


def chain(jnp: Any, n: int) -> Callable[[Any, Any], Any]:
    """A new function of (y, w) running ``n`` operations: ``n / BLOCK`` blocks in a row."""

    def f(y: Any, w: Any) -> Any:
        for _ in range(n // BLOCK):
            y = block(jnp, y, w)
        return y

    return f


def count_equations(jaxpr: Any) -> dict[str, int]:
    """How many equations a didax or a JAX (closed) jaxpr has: at the top level, and counting
    those of the jaxprs nested in their parameters too."""
    top = len(jaxpr.eqns)
    nested = sum(count_equations(sub)["with_nested"] for eqn in jaxpr.eqns for sub in _subjaxprs(eqn.params))
    return {"top_level": top, "with_nested": top + nested}


def _subjaxprs(params: dict[str, Any]) -> list[Any]:
    """The jaxprs among an equation's parameters (alone or in a tuple, such as cond's branches)."""
    values = [x for v in params.values() for x in (v if isinstance(v, tuple) else (v,))]
    return [x for x in values if hasattr(x, "eqns")]


def tables(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The suite's own table: each library's time per equation of its own jaxpr, didax's over
    JAX's, and each per-equation cost over the shortest chain's (1.00 all the way down: the
    total cost grows linearly with the program). Only cases that counted their equations are
    rows (the jit suite uses this table for its lowering cases)."""
    timed = [c for c in cases if c["didax"] and c["jax"] and "equations" in c]
    if not timed:
        return []
    first = timed[0]
    rows = []
    for c in timed:
        per_eqn = {impl: _per_equation(c, impl) for impl in ("didax", "jax")}
        base = {impl: _per_equation(first, impl) for impl in ("didax", "jax")}
        rows.append([
            f"`{c['case']}`", f"{c['ops']:,}",
            _count(c["equations"]["didax"]), _count(c["equations"]["jax"]),
            f"{per_eqn['didax']:.2f}", f"{per_eqn['jax']:.2f}", f"{per_eqn['didax'] / per_eqn['jax']:.3f}",
            f"{per_eqn['didax'] / base['didax']:.2f}", f"{per_eqn['jax'] / base['jax']:.2f}",
        ])
    columns = ["case", "operations", "didax equations", "JAX equations", "didax µs/eqn", "JAX µs/eqn",
               "didax/JAX per eqn", "didax µs/eqn ÷ first", "JAX µs/eqn ÷ first"]
    title = ("Per equation: each library's time over its own jaxpr's top-level equations (nested ones "
             "in brackets); ÷ first compares with the shortest chain, 1.00 all along means linear cost")
    return [{"title": title, "columns": columns, "rows": rows}]


def _per_equation(case: dict[str, Any], impl: str) -> float:
    return case[impl]["min_us"] / case["equations"][impl]["top_level"]


def _count(counts: dict[str, int]) -> str:
    top, nested = counts["top_level"], counts["with_nested"]
    return f"{top:,}" if top == nested else f"{top:,} ({nested:,})"


def _chain_case(libs: Libs, n: int) -> Case:
    """``make_jaxpr`` of an n-operation chain on a (ROWS, COLS) float32 y and a (COLS,) w."""
    rng = libs.numpy.random.default_rng(0)
    y = rng.standard_normal((ROWS, COLS)).astype("float32")
    w = rng.standard_normal(COLS).astype("float32")
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    equations: dict[str, dict[str, int]] = {}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        yi, wi = m.numpy.asarray(y), m.numpy.asarray(w)
        calls[impl] = _staging(m, n, yi, wi)
        equations[impl] = count_equations(m.make_jaxpr(chain(m.numpy, n))(yi, wi))
    return Case(f"make_jaxpr chain ×{n}",
                f"make_jaxpr of {n} jax.numpy operations ({n // BLOCK} blocks of {BLOCK}) on a "
                f"({ROWS}, {COLS}) matrix and a ({COLS},) vector", calls, ops=n,
                extra={"equations": equations})


def _staging(m: Any, n: int, y: Any, w: Any) -> Callable[[], Any]:
    """One staging run: a new chain function each call, so that no cache of jaxprs answers it."""
    return lambda: m.make_jaxpr(chain(m.numpy, n))(y, w)
