"""Stage 03's suite, eager batching: ``vmap`` run one operation at a time, as JAX's ``vmap``
runs without ``jit``.

The headline case is issue 12's: ``vmap`` of ``tanh(w @ x)`` over a batch of 1,000 pairs of
(16, 16) float32 matrices, beside the batched NumPy expression ``np.tanh(w @ x)``, which is the
floor: what is timed there is the arithmetic plus a little interpretation. A Python loop of the
same function over the same 1,000 examples says what batching buys; the last table divides each
batched time by its loop's. A chain of N elementwise operations under ``vmap`` on a small batch
says what the interpretation itself costs per operation, and whether it grows linearly with the
program, as the jvp suite's chains do for jvp.

What is timed is the whole transformed call, ``vmap(f)(w, x)``, tracing included. Inputs are made
once, outside the timed function (the loops' per-example arrays too, so that a loop is timed as
calls of ``f``, not as indexing). JAX's results are waited for with ``block_until_ready``.
NumPy's column is the same computation written for the whole batch, derivatives written out by
hand: what a program costs when nobody interprets it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from types import SimpleNamespace
from typing import Any

from .cases import IMPLS, Case, Libs
from .eager import SIZE
from .jvp import link

SUITE = "vmap"
TITLE = "eager batching (vmap)"
CAPABILITY = "vmap"  # the stages that have this suite
BATCH = 1000  # examples in the headline case
DIM = 16  # each example: a (DIM, DIM) matrix
OUTER = 10  # the nested case splits the batch as OUTER × BATCH // OUTER
CHAIN_LENGTHS = (100, 1000, 5000)  # operations, for the growth table
# Batched cases and their Python loops, for the vmap / loop table.
LOOPED = (("vmap tanh(w @ x)", "loop tanh(w @ x)"), ("vmap(None, 0)", "loop (shared w)"))


def cases(libs: Libs) -> list[Case]:
    """Every case of the suite, in the order the tables show them."""
    return [
        _batched(libs, "vmap tanh(w @ x)", f"vmap over {BATCH} pairs of ({DIM}, {DIM}) matrices, both batched",
                 in_axes=0),
        _looped(libs, "loop tanh(w @ x)", f"a Python loop of the same function over the {BATCH} pairs, stacked",
                shared=False),
        _batched(libs, "vmap(None, 0)", f"in_axes=(None, 0): one shared w, {BATCH} x", in_axes=(None, 0)),
        _looped(libs, "loop (shared w)", f"a Python loop over the {BATCH} x with the shared w, stacked",
                shared=True),
        _nested(libs),
        _vmap_of_jvp(libs),
        _jacfwd(libs),
        *(_chain(libs, n) for n in CHAIN_LENGTHS),
    ]


def tables(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The suite's own table: each batched case's time over its Python loop's, per implementation."""
    by_name = {c["case"]: c for c in cases}
    labels = {"numpy": "NumPy batched / loop", "didax": "didax vmap / loop", "jax": "JAX vmap / loop"}
    rows = []
    for batched, looped in LOOPED:
        if batched in by_name and looped in by_name:
            cells = []
            for impl in IMPLS:
                a, b = by_name[batched][impl], by_name[looped][impl]
                cells.append(f"{a['min_us'] / b['min_us']:.3f}" if a and b else "—")
            rows.append([f"`{batched}` / `{looped}`"] + cells)
    if not rows:
        return []
    return [{"title": "vmap against a Python loop: the batched time over the loop's (below 1: batching is faster)",
             "columns": ["cases"] + [labels[i] for i in IMPLS], "rows": rows}]


def fn(m: Any, w: Any, x: Any) -> Any:
    """The function batched throughout: one layer, ``tanh(w @ x)``."""
    return m.numpy.tanh(w @ x)


def _data(libs: Libs, shape: tuple[int, ...], seed: int) -> Any:
    """Float32 values of order 1, so that tanh is neither linear nor saturated."""
    rng = libs.numpy.random.default_rng(seed)
    return (rng.standard_normal(shape) / DIM ** 0.5).astype("float32")


def _as(libs: Libs, impl: str, value: Any) -> Any:
    """A NumPy array as `impl`'s own array type."""
    if impl == "numpy":
        return value
    if impl == "jax":
        return libs.jax.numpy.asarray(value).block_until_ready()
    return libs.didax.numpy.asarray(value)


def _waited(libs: Libs, call: Callable[[], Any]) -> Callable[[], Any]:
    """`call`, returning only once JAX has computed every array of its result."""
    return lambda: libs.jax.block_until_ready(call())


def _batched(libs: Libs, name: str, what: str, in_axes: Any) -> Case:
    """``vmap(fn, in_axes)(w, x)``; NumPy's ``np.tanh(w @ x)`` on the whole batch."""
    shared = in_axes == (None, 0)
    w = _data(libs, (DIM, DIM) if shared else (BATCH, DIM, DIM), 0)
    x = _data(libs, (BATCH, DIM, DIM), 1)
    calls: dict[str, Callable[[], object] | None] = {"numpy": partial(fn, _numpy_as_jax(libs), w, x)}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        calls[impl] = _call_vmap(m, partial(fn, m), in_axes, _as(libs, impl, w), _as(libs, impl, x))
    calls["jax"] = _waited(libs, calls["jax"])
    return Case(name, what, calls)


def _call_vmap(m: Any, f: Callable[..., Any], in_axes: Any, *args: Any) -> Callable[[], Any]:
    return lambda: m.vmap(f, in_axes=in_axes)(*args)


def _looped(libs: Libs, name: str, what: str, shared: bool) -> Case:
    """``stack([fn(w, x) for ...])`` over the examples, split into separate arrays beforehand."""
    w = _data(libs, (DIM, DIM) if shared else (BATCH, DIM, DIM), 0)
    x = _data(libs, (BATCH, DIM, DIM), 1)
    calls: dict[str, Callable[[], object] | None] = {}
    for impl in IMPLS:
        m = _numpy_as_jax(libs) if impl == "numpy" else getattr(libs, impl)
        xs = [_as(libs, impl, x[i]) for i in range(BATCH)]
        ws = [_as(libs, impl, w)] * BATCH if shared else [_as(libs, impl, w[i]) for i in range(BATCH)]
        calls[impl] = _call_loop(m, ws, xs)
    calls["jax"] = _waited(libs, calls["jax"])
    return Case(name, what, calls)


def _call_loop(m: Any, ws: list[Any], xs: list[Any]) -> Callable[[], Any]:
    return lambda: m.numpy.stack([fn(m, w, x) for w, x in zip(ws, xs)])


def _nested(libs: Libs) -> Case:
    """``vmap(vmap(fn))`` over the same 1,000 pairs laid out as (10, 100, 16, 16)."""
    shape = (OUTER, BATCH // OUTER, DIM, DIM)
    w, x = _data(libs, shape, 0), _data(libs, shape, 1)
    calls: dict[str, Callable[[], object] | None] = {"numpy": partial(fn, _numpy_as_jax(libs), w, x)}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        wi, xi = _as(libs, impl, w), _as(libs, impl, x)
        calls[impl] = partial(lambda m, wi, xi: m.vmap(m.vmap(partial(fn, m)))(wi, xi), m, wi, xi)
    calls["jax"] = _waited(libs, calls["jax"])
    return Case("vmap(vmap)", f"nested vmap over the same pairs as ({OUTER}, {BATCH // OUTER}) examples", calls)


def _vmap_of_jvp(libs: Libs) -> Case:
    """Per-example directional derivatives: ``vmap`` over (x, v) of ``jvp(x ↦ tanh(w @ x), (x,), (v,))``
    with a shared w. NumPy: the derivative by hand, ``(1 - y²) · (w @ v)``."""
    w = _data(libs, (DIM, DIM), 0)
    x, v = _data(libs, (BATCH, DIM, DIM), 1), _data(libs, (BATCH, DIM, DIM), 2)
    np_ = libs.numpy

    def by_hand() -> Any:
        y = np_.tanh(w @ x)
        return y, (1 - y * y) * (w @ v)

    calls: dict[str, Callable[[], object] | None] = {"numpy": by_hand}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        wi = _as(libs, impl, w)

        def per_example(x: Any, v: Any, m: Any = m, wi: Any = wi) -> Any:
            return m.jvp(partial(fn, m, wi), (x,), (v,))

        calls[impl] = _call_vmap(m, per_example, 0, _as(libs, impl, x), _as(libs, impl, v))
    calls["jax"] = _waited(libs, calls["jax"])
    return Case("vmap(jvp)", f"per-example directional derivatives of tanh(w @ x), {BATCH} (x, v), shared w",
                calls)


def _jacfwd(libs: Libs) -> Case:
    """``jacfwd(x ↦ tanh(w @ x))(x)`` for one (16,) x: a (16, 16) Jacobian, one jvp per column,
    batched. NumPy: by hand, ``(1 - y²)[:, None] · w``."""
    w, x = _data(libs, (DIM, DIM), 0), _data(libs, (DIM,), 1)
    np_ = libs.numpy

    def by_hand() -> Any:
        y = np_.tanh(w @ x)
        return (1 - y * y)[:, None] * w

    calls: dict[str, Callable[[], object] | None] = {"numpy": by_hand}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        calls[impl] = partial(lambda m, wi, xi: m.jacfwd(partial(fn, m, wi))(xi), m, _as(libs, impl, w),
                              _as(libs, impl, x))
    calls["jax"] = _waited(libs, calls["jax"])
    return Case("jacfwd", f"the ({DIM}, {DIM}) Jacobian of tanh(w @ x) at one x of ({DIM},)", calls)


def _chain(libs: Libs, n: int) -> Case:
    """``vmap`` of n elementwise operations (sin, ×1.5, +0.5 in turn) on a batch of SIZE (SIZE,)
    rows: tiny arrays, so the time is the batching interpreter's; NumPy runs the chain on the
    whole (SIZE, SIZE) array."""

    def chain(m: Any, y: Any) -> Any:
        for i in range(n):
            y = link(m, i, y)
        return y

    x = libs.numpy.linspace(1.0, 2.0, SIZE * SIZE, dtype="float32").reshape(SIZE, SIZE)
    calls: dict[str, Callable[[], object] | None] = {"numpy": partial(chain, _numpy_as_jax(libs), x)}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        calls[impl] = _call_vmap(m, partial(chain, m), 0, _as(libs, impl, x))
    calls["jax"] = _waited(libs, calls["jax"])
    return replace(Case(f"vmap chain ×{n}", f"vmap of {n} elementwise operations over {SIZE} rows of ({SIZE},)",
                        calls), ops=n)


def _numpy_as_jax(libs: Libs) -> Any:
    """NumPy seen as a module with a ``numpy`` attribute, so that ``fn(m, ...)`` and ``link`` run
    unchanged on it: ``m.numpy.tanh`` is ``np.tanh``."""
    return SimpleNamespace(numpy=libs.numpy)
