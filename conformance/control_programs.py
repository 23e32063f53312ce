"""Random programs with staged control flow, for the jaxpr area: the programs of programs.py, some
of whose steps are ``lax.cond``, ``lax.switch``, ``lax.fori_loop`` (static and traced bounds),
``lax.while_loop``, ``lax.scan``, ``lax.map`` or ``lax.associative_scan`` (for the vjp area,
``REVERSE_OPS``: the same without while loops and traced bounds).

Each control-flow step applies small bodies, drawn from programs.UNARY (and, one time in four, a
control-flow expression themselves, so that jaxprs nest), to values computed so far. Predicates,
indices and trip counts come from other values of the program (``jnp.sum(v2) > 0.1234``), so they are
staged values, and batched ones under vmap. Bodies either take their operands or close over them,
so that a branch or a loop body captures values of the enclosing trace. Every body keeps values
moderate, as programs.py's steps do, and the programs are smooth away from the predicates'
switching points. Those are at odd thresholds (``THRESHOLD``), never at 0 or an integer, which
values drawn by hypothesis (zeros, small integers) and simple functions of them hit: the jvp of a
program can be checked against central finite differences.

The names a program uses are in ``CONTROL_NAMES``: a test looks them up before it draws, so that an
implementation without staged control flow is reported missing them, not failing.
"""

from __future__ import annotations

from hypothesis import strategies as st

from conformance.programs import UNARY, Op, Program, Shape, Value, _operand, programs
from conformance.programs import OPS as PLAIN_OPS

THRESHOLD = 0.1234  # where predicates switch: no value a program computes from drawn inputs is exactly this
CONTROL_NAMES = ("cond", "switch", "fori_loop", "while_loop", "scan", "map", "associative_scan")
BRANCHES = 3  # of a switch


def _body(draw: st.DrawFn, var: str, nest: bool = True) -> str:
    """An expression of ``var`` that keeps its shape: a unary step, or (nested, one time in four) a
    small control-flow expression of its own, whose bodies are unary steps."""
    if nest and draw(st.integers(0, 3), label="nested control flow") == 0:
        inner = draw(st.sampled_from(["cond", "fori", "scan"]), label="nested kind")
        a, b = _body(draw, "w", False), _body(draw, "w", False)
        if inner == "cond":
            return f"lax.cond(jnp.sum({var}) > {THRESHOLD}, lambda w: {a}, lambda w: {b}, {var})"
        if inner == "fori":
            return f"lax.fori_loop(0, 2, lambda j, w: {a}, {var})"
        return f"lax.scan(lambda w, _: ({a}, None), {var}, None, length=2)[0]"
    return draw(st.sampled_from(UNARY), label="body").format(var)


def _count(draw: st.DrawFn, pool: list[Value], static: bool = False) -> str:
    """A trip count: a small Python int, or (unless ``static``) a staged one (how many elements of a
    value are positive)."""
    if not static and draw(st.booleans(), label="traced trip count"):
        b = _operand(draw, pool)
        assert b is not None
        return f"jnp.sum({b.name} > {THRESHOLD})"
    return str(draw(st.integers(0, 3), label="trip count"))


def cond(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    a, b = _operand(draw, pool), _operand(draw, pool)
    assert a is not None and b is not None
    t, f = _body(draw, "u"), _body(draw, "u")
    pred = f"jnp.sum({b.name}) > {THRESHOLD}"
    if draw(st.booleans(), label="closed over"):  # no operands: the branches capture a
        t, f = _body(draw, a.name), _body(draw, a.name)
        return f"lax.cond({pred}, lambda: {t}, lambda: {f})", a.shape
    return f"lax.cond({pred}, lambda u: {t}, lambda u: {f}, {a.name})", a.shape


def switch(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    a, b = _operand(draw, pool), _operand(draw, pool)
    assert a is not None and b is not None
    branches = ", ".join(f"lambda u: {_body(draw, 'u')}" for _ in range(BRANCHES))
    # Any integer: lax.switch clamps the index into range, and the sum often lands outside it.
    index = f"jnp.floor(jnp.sum({b.name}) + {THRESHOLD}).astype(jnp.int32)"
    return f"lax.switch({index}, [{branches}], {a.name})", a.shape


def fori_loop(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    a = _operand(draw, pool)
    assert a is not None
    upper, body = _count(draw, pool), _body(draw, "u")
    return f"lax.fori_loop(0, {upper}, lambda i, u: {body} + 0.25 * i, {a.name})", a.shape


def static_fori_loop(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    """A fori_loop with Python bounds: a scan in JAX, so reverse mode goes through it."""
    a = _operand(draw, pool)
    assert a is not None
    upper, body = _count(draw, pool, static=True), _body(draw, "u")
    return f"lax.fori_loop(0, {upper}, lambda i, u: {body} + 0.25 * i, {a.name})", a.shape


def while_loop(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    a = _operand(draw, pool)
    assert a is not None
    limit, body = _count(draw, pool), _body(draw, "c[1]")
    return (
        f"lax.while_loop(lambda c: c[0] < {limit}, lambda c: (c[0] + 1, {body}), (0, {a.name}))[1]",
        a.shape,
    )


def scan(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    if draw(st.booleans(), label="length only"):  # no xs: a carry iterated `length` times
        a = _operand(draw, pool)
        assert a is not None
        n = draw(st.integers(1, 3), label="length")
        body = _body(draw, "c")
        return f"lax.scan(lambda c, _: ({body}, c * 0.5), {a.name}, None, length={n})[1]", (n, *a.shape)
    xs = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if xs is None:
        return None
    init = _operand(draw, pool, lambda v: v.shape == xs.shape[1:])
    carry = init.name if init is not None else f"jnp.zeros_like({xs.name}[0])"
    reverse = draw(st.booleans(), label="reverse")
    unroll = draw(st.sampled_from([1, 2]), label="unroll")
    body = _body(draw, "r")
    out = draw(st.sampled_from([0, 1]), label="scan output")  # the carry, or the stacked ys
    expr = (f"lax.scan(lambda c, r: (0.5 * c + {body}, jnp.tanh(c) * r), {carry}, {xs.name}, "
            f"reverse={reverse}, unroll={unroll})[{out}]")  # fmt: skip
    return expr, xs.shape[1:] if out == 0 else xs.shape


def map_(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    xs = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if xs is None:
        return None
    batch_size = draw(st.sampled_from([None, 2]), label="batch_size")
    body = _body(draw, "r")
    return f"lax.map(lambda r: {body} * jnp.mean(r), {xs.name}, batch_size={batch_size})", xs.shape


def associative_scan(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    xs = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if xs is None:
        return None
    fn = draw(st.sampled_from(["jnp.add", "jnp.logaddexp"]), label="associative function")
    # (not a negative axis: JAX 0.10.2's vmap of a reversed associative_scan along axis -1 fails,
    # "rev dimensions must have every element be nonnegative")
    axis = draw(st.integers(0, len(xs.shape) - 1), label="axis")
    reverse = draw(st.booleans(), label="reverse")
    return f"lax.associative_scan({fn}, {xs.name}, reverse={reverse}, axis={axis})", xs.shape


CONTROL_OPS: tuple[Op, ...] = (cond, switch, fori_loop, while_loop, scan, map_, associative_scan)
# Control flow about half the time: sampled_from draws each operation equally often.
OPS: tuple[Op, ...] = PLAIN_OPS + CONTROL_OPS + (cond, fori_loop, scan)


# For reverse mode: no while_loop, and fori_loop with Python bounds only (JAX cannot transpose a
# loop whose trip count is staged).
REVERSE_OPS: tuple[Op, ...] = PLAIN_OPS + (cond, switch, static_fori_loop, scan, map_, associative_scan) + (
    cond, static_fori_loop, scan)  # fmt: skip


def control_programs(min_steps: int = 3, max_steps: int = 6, ops: tuple[Op, ...] = OPS) -> st.SearchStrategy[Program]:
    """Programs (programs.py) whose steps may be staged control flow (``ops``: OPS, or REVERSE_OPS)."""
    return programs(min_steps=min_steps, max_steps=max_steps, ops=ops)
