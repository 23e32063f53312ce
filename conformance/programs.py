"""Random programs for the jvp area: a hypothesis strategy that writes small functions of a pytree of
arrays, five to eight operations long, as Python source text.

A program is a sequence of steps, each one operation applied to values computed so far (the input
leaves first): elementwise functions, arithmetic with broadcasting and Python scalars, reductions
along drawn axes, indexing (integers, slices, integer arrays with repeats, None), ``.at[]`` updates,
shape changes, products, running sums and products, ``where`` with a constant mask. Every step knows
the shapes of its operands, so every program runs. The operations are smooth, and they keep values
moderate (no chain of squares), so that central finite differences in float64 are accurate to well
within the jvp area's tolerance.

The source is what runs: the test executes it with ``jnp`` bound to the implementation's numpy, and
shows it as the reproducing program. Shrinking goes toward short chains on the last value computed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.strategies import Domain

Shape = tuple[int, ...]
INPUT_SHAPES: tuple[Shape, ...] = ((2, 3), (3,), ())  # few shapes: JAX compiles every new one
INPUT_DOMAIN = Domain(-2, 2)


@dataclass(frozen=True)
class Value:
    """A value of the program: the name it is bound to, and its shape."""

    name: str
    shape: Shape


@dataclass(frozen=True, repr=False)
class Program:
    """``source`` defines ``f(p)``; ``inputs`` is the pytree of float64 arrays ``p``."""

    source: str
    inputs: Any
    steps: int

    def __repr__(self) -> str:  # hypothesis prints the program as it reads
        return f"Program(steps={self.steps}):\n{self.source}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def function(self, namespace: dict[str, Any]) -> Callable[..., Any]:
        """``f``, compiled from the source with ``namespace`` (jnp, np) as its globals."""
        scope = dict(namespace)
        exec(compile(self.source, "<random program>", "exec"), scope)  # the suite's own text
        return scope["f"]


# --- inputs ----------------------------------------------------------------------------------------


@st.composite
def _inputs(draw: st.DrawFn) -> tuple[Any, list[Value], list[str]]:
    """A pytree of 1 to 3 float64 arrays, and how the program reads each leaf."""
    count = draw(st.integers(1, 3), label="input leaves")
    shapes = [draw(st.sampled_from(INPUT_SHAPES), label="input shape") for _ in range(count)]
    arrays = [
        draw(S.arrays(np.dtype("float64"), s, INPUT_DOMAIN), label=f"leaf {i}") for i, s in enumerate(shapes)
    ]
    layout = draw(st.sampled_from(["dict", "list", "nested"]), label="input tree")
    if layout == "dict":
        keys = "abc"[:count]
        tree: Any = {k: a for k, a in zip(keys, arrays)}
        paths = [f"p[{k!r}]" for k in keys]
    elif layout == "list":
        tree, paths = list(arrays), [f"p[{i}]" for i in range(count)]
    else:  # {'w': first, 'rest': (others...)}
        tree = {"w": arrays[0], "rest": tuple(arrays[1:])}
        paths = ["p['w']"] + [f"p['rest'][{i}]" for i in range(count - 1)]
    values = [Value(f"x{i}", s) for i, s in enumerate(shapes)]
    lines = [f"{v.name} = jnp.asarray({path})" for v, path in zip(values, paths)]
    return tree, values, lines


# --- operations ------------------------------------------------------------------------------------
# Each takes (draw, pool) and returns (expression, shape), or None when nothing in the pool fits.

Op = Callable[[st.DrawFn, list[Value]], "tuple[str, Shape] | None"]


def _operand(
    draw: st.DrawFn, pool: list[Value], fits: Callable[[Value], bool] = lambda v: True
) -> Value | None:
    """A value of the pool that fits: three times in four the most recent one, so that steps chain
    into deep compositions; else any, the most recent first (where shrinking goes)."""
    candidates = [v for v in reversed(pool) if fits(v)]
    if not candidates:
        return None
    if draw(st.integers(0, 3), label="any operand") == 0:
        return draw(st.sampled_from(candidates), label="operand")
    return candidates[0]


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


UNARY = (
    "jnp.sin({})", "jnp.cos({})", "jnp.tanh({})", "jnp.log1p({0} * {0})", "jnp.sqrt({0} * {0} + 1.0)",
    "jnp.exp(jnp.sin({}))", "0.5 * {} - 1.0", "jnp.arctan({})",
)  # fmt: skip
# (not jnp.hypot: JAX computes it with max and min, and its second derivative is wrong where the
# operands tie, as at hypot(1, 1 + 0 * 0) — 0 instead of 2 ** -1.5 along the first operand)
BINARY = (
    "{0} + {1}",
    "{0} - {1}",
    "{0} * jnp.tanh({1})",
    "{0} / (1.0 + {1} * {1})",
    "jnp.arctan2({0}, 1.0 + {1} * {1})",
)


def unary(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape]:
    a = _operand(draw, pool)
    assert a is not None
    return draw(st.sampled_from(UNARY), label="unary").format(a.name), a.shape


def binary(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool)
    assert a is not None
    b = _operand(draw, pool, lambda v: _broadcast(a.shape, v.shape) is not None)
    assert b is not None  # a itself fits
    shape = _broadcast(a.shape, b.shape)
    assert shape is not None
    return draw(st.sampled_from(BINARY), label="binary").format(a.name, b.name), shape


# Products of at most this many entries: a product of many large numbers with several zeros among
# them (hypothesis draws zeros often) has central differences of order eps**(zeros - 1) * its size,
# far from its derivative, 0.
PROD_MAX = 3


def reduction(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    fn = draw(st.sampled_from(["sum", "mean", "prod"]), label="reduction")
    axis = draw(st.one_of(st.none(), st.integers(-len(a.shape), len(a.shape) - 1)), label="axis")
    keepdims = draw(st.booleans(), label="keepdims")
    shape = np.sum(np.zeros(a.shape), axis=axis, keepdims=keepdims).shape
    if fn == "prod" and int(np.prod(a.shape)) // max(1, int(np.prod(shape))) > PROD_MAX:
        fn = "sum"
    return f"jnp.{fn}({a.name}, axis={axis}, keepdims={keepdims})", shape


def running(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    fn = draw(st.sampled_from(["cumsum", "cumprod"]), label="running")
    axis = draw(st.integers(-len(a.shape), len(a.shape) - 1), label="axis")
    if fn == "cumprod" and a.shape[axis] > PROD_MAX:
        fn = "cumsum"
    return f"jnp.{fn}({a.name}, axis={axis})", a.shape


@st.composite
def _index(draw: st.DrawFn, shape: Shape) -> tuple[Any, str]:
    """An index of ``shape`` (a tuple of entries) and its source text."""
    entries, texts = [], []
    size = draw(st.integers(1, 3), label="index array size")  # one size, so that index arrays broadcast
    for axis, n in enumerate(shape[: draw(st.integers(1, len(shape)), label="indexed axes")]):
        kind = draw(st.sampled_from(["int", "slice", "array"]), label=f"index kind {axis}")
        if kind == "int":
            i = draw(st.integers(-n, n - 1), label="int index")
            entries.append(i)
            texts.append(str(i))
        elif kind == "slice":
            start = draw(st.integers(0, n - 1), label="slice start")
            step = draw(st.sampled_from([1, 2, -1]), label="slice step")
            s = slice(start, None, step)
            entries.append(s)
            texts.append(f"{start}::{step}")
        else:  # repeats allowed: a gather that reads a place twice, a scatter that writes it twice
            idx = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size), label="index array")
            entries.append(np.array(idx))
            texts.append(f"np.array({idx})")
    return tuple(entries), ", ".join(texts)


def indexing(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    index, text = draw(_index(a.shape))
    if draw(st.booleans(), label="newaxis"):
        index, text = (None, *index), "None, " + text
    return f"{a.name}[{text}]", np.zeros(a.shape)[index].shape


def at_update(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    index, text = draw(_index(a.shape))
    target = np.zeros(a.shape)[index].shape
    unique = not any(isinstance(e, np.ndarray) for e in index)
    methods = ["set", "add"] + (["multiply"] if unique else [])
    method = draw(st.sampled_from(methods), label="at method")
    # The update: a value that broadcasts to the indexed places (never stretching them), else a constant.
    b = _operand(draw, pool, lambda v: _broadcast(target, v.shape) == target)
    update = b.name if b is not None and draw(st.booleans(), label="update from pool") else "1.5"
    # JAX differentiates a multiplying scatter's updates only when the indices are declared unique.
    extra = ", unique_indices=True" if method == "multiply" else ""
    return f"{a.name}.at[{text}].{method}({update}{extra})", a.shape


def reshape(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    if len(a.shape) == 2 and draw(st.booleans(), label="transpose"):
        return f"{a.name}.T", a.shape[::-1]
    if draw(st.booleans(), label="flip"):
        return f"jnp.flip({a.name}, axis=0)", a.shape
    return f"jnp.reshape({a.name}, (-1,))", (int(np.prod(a.shape)),)


def concatenate(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) >= 1)
    if a is None:
        return None
    b = _operand(draw, pool, lambda v: len(v.shape) == len(a.shape) and v.shape[1:] == a.shape[1:])
    assert b is not None
    return f"jnp.concatenate([{a.name}, {b.name}])", (a.shape[0] + b.shape[0], *a.shape[1:])


def product(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool, lambda v: len(v.shape) in (1, 2))  # vectors and matrices
    if a is None:
        return None
    b = _operand(draw, pool, lambda v: len(v.shape) in (1, 2) and v.shape[0] == a.shape[-1])
    if b is None:  # a against its own transpose
        return f"jnp.dot({a.name}, {a.name}.T)", np.dot(np.zeros(a.shape), np.zeros(a.shape).T).shape
    return f"jnp.dot({a.name}, {b.name})", np.dot(np.zeros(a.shape), np.zeros(b.shape)).shape


def where(draw: st.DrawFn, pool: list[Value]) -> tuple[str, Shape] | None:
    a = _operand(draw, pool)
    assert a is not None
    b = _operand(draw, pool, lambda v: _broadcast(a.shape, v.shape) is not None)
    assert b is not None
    shape = _broadcast(a.shape, b.shape)
    assert shape is not None
    mask = draw(S.arrays(np.dtype(bool), shape), label="mask")
    return f"jnp.where(np.array({mask.tolist()}), {a.name}, {b.name})", shape


OPS: tuple[Op, ...] = (
    unary,
    binary,
    reduction,
    running,
    indexing,
    at_update,
    reshape,
    concatenate,
    product,
    where,
)


@st.composite
def programs(draw: st.DrawFn, min_steps: int = 5, max_steps: int = 8, ops: tuple[Op, ...] = OPS,
             params: str = "p") -> Program:  # fmt: skip
    """A program ``f(p)`` of ``min_steps`` to ``max_steps`` operations (drawn from ``ops``) over a
    drawn pytree ``p``; it returns a pytree of the last value and of every other value that no step
    reads. (control_programs.py adds staged control flow to the operations.) ``params`` is ``f``'s
    parameter list, for operations that read more than ``p`` (the vjp area's keys: ``"p, k"``)."""
    inputs, pool, lines = draw(_inputs())
    steps = draw(st.integers(min_steps, max_steps), label="steps")
    for k in range(steps):
        while True:
            made = draw(st.sampled_from(ops), label="operation")(draw, pool)
            if made is not None:
                break
        expr, shape = made
        value = Value(f"v{k}", tuple(shape))
        lines.append(f"{value.name} = {expr}")
        pool.append(value)
    # Every step is checked: the values no later step reads are outputs too.
    last = pool[-1].name
    read = {name for line in lines for name in re.findall(r"\b[vx]\d+\b", line.split(" = ", 1)[1])}
    unread = ", ".join(v.name for v in pool[len(pool) - steps : -1] if v.name not in read)
    forms = [f"({last}, [{unread}])", f"{{'y': {last}, 'more': [{unread}]}}"] if unread else [last, f"[{last}]"]
    out = draw(st.sampled_from(forms), label="output")
    source = f"def f({params}):\n" + "".join(f"    {line}\n" for line in lines) + f"    return {out}\n"
    return Program(source, inputs, steps)
