"""Staged control flow: ``lax.cond``, ``lax.switch``, ``lax.while_loop``, ``lax.fori_loop`` (static
and traced bounds), ``lax.scan`` (reverse, length only, pytrees, unroll), ``lax.map`` (batch_size)
and ``lax.associative_scan``, against Python reference loops on NumPy; their jvp against central
finite differences (derivatives.py); their vmap against the loop over the examples (batching.py),
batched and unbatched predicates, indices, bounds and operands; the round trip of their jaxprs
(jaxprs.py); loops staged as loops, not unrolled; and JAX's TypeError and ValueError when branch
outputs or a loop's carry change type.

Every case is a line of the table below: ``f`` as source text (what a failure prints), its NumPy
reference, and its arguments' shapes, domains and dtypes. Predicates are drawn away from their
switching points, so that finite differences never straddle one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.checks import RTOL, as_operand, assert_dtype, assert_values, draw_x64, show_call, wide
from conformance.control_programs import CONTROL_NAMES, control_programs
from conformance.derivatives import check_derivatives, leaves, map_leaves, structure
from conformance.dtype_rules import canonicalize
from conformance.impl import Impl
from conformance.jaxprs import Staging, check_round_trip, primitives, staging
from conformance.strategies import Domain, batch_axes, insert_axis
from conformance.test_vmap import check_vmap

pytestmark = [pytest.mark.area("jaxpr"), pytest.mark.requires("jaxpr")]

F32, F64, I32 = (np.dtype(n) for n in ("float32", "float64", "int32"))
B = 3  # the batch size: no unbatched dimension of the table is 3, so a wrong axis shows
V = (4,)
ROWS = (5, 4)
ANY = Domain(-2, 2)
AWAY = Domain(-2, 2, min_abs=0.3)  # a predicate `p > 0` never flips under a finite difference
POSITIVE = Domain(0.3, 2)


@dataclass(frozen=True, repr=False)
class Arg:
    shape: tuple[int, ...]
    domain: Domain = ANY
    dtype: np.dtype = F64


@dataclass(frozen=True, repr=False)
class Case:
    """``source`` defines ``f``; ``ref`` computes what it must return with NumPy (float64)."""

    name: str
    source: str
    ref: Callable[..., Any]
    args: dict[str, Arg]
    order: int = 1  # of the derivatives checked

    def __repr__(self) -> str:
        return f"Case({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def case(name: str, source: str, ref: Callable[..., Any], order: int = 1, **args: Arg | tuple) -> Case:
    return Case(name, source, ref, {k: a if isinstance(a, Arg) else Arg(*a) for k, a in args.items()}, order)


# --- the references: Python loops over NumPy ---------------------------------------------------------------


def _while(n: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i = 0
    while i < n:
        i, x = i + 1, np.sin(x) + x * 0.5
    return np.asarray(i), x


def _while_on_values(x: np.ndarray) -> np.ndarray:
    while np.sum(x) < 9.8765:
        x = x * 1.5 + 0.5
    return x


def _while_closing_over(n: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    for _ in range(max(0, int(n))):
        x = x * np.cos(y) + y
    return x


def _fori(x: np.ndarray) -> np.ndarray:
    for i in range(4):
        x = x * 0.5 + np.sin(x) * i
    return x


def _fori_bounds(lo: Any, hi: Any, x: np.ndarray) -> np.ndarray:
    for i in range(int(lo), int(hi)):
        x = x + np.cos(x) * i
    return x


def _fori_pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    for i in range(1, 4):
        x, y = x * np.tanh(y), y + i
    return x, y


def _scan(c: np.ndarray, xs: np.ndarray, reverse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    ys = [np.zeros(0)] * len(xs)
    for k in reversed(range(len(xs))) if reverse else range(len(xs)):
        c, ys[k] = c * 0.5 + xs[k], np.sin(c) * xs[k]
    return c, np.stack(ys)


def _scan_length(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ys = []
    for _ in range(3):
        c, y = np.sin(c) + 1.0, c * 2.0
        ys.append(y)
    return c, np.stack(ys)


def _scan_pytrees(c: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> tuple[dict, tuple]:
    carry, outs = {"a": c, "b": c}, []
    for x, y in zip(xs, ys):
        outs.append(carry["a"] * y)
        carry = {"a": carry["a"] + x, "b": carry["b"] * np.cos(y)}
    return carry, (np.stack(outs), None)


def _map(xs: np.ndarray) -> np.ndarray:
    return np.stack([np.sum(r) * np.sin(r) for r in xs])


def _cumulative(
    fn: Callable[[Any, Any], Any], xs: np.ndarray, axis: int = 0, reverse: bool = False
) -> np.ndarray:
    moved = np.moveaxis(xs, axis, 0)
    order = list(reversed(range(len(moved)))) if reverse else list(range(len(moved)))
    out, acc = np.empty_like(moved), None
    for k in order:
        acc = moved[k] if acc is None else fn(acc, moved[k])
        out[k] = acc
    return np.moveaxis(out, 0, axis)


def _affine(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Prefix compositions of h -> a_k h + b_k: (product of the a's, h_k with h_-1 = 0)."""
    pa, h, pas, hs = 1.0, 0.0, [], []
    for ak, bk in zip(a, b):
        pa, h = pa * ak, ak * h + bk
        pas.append(pa)
        hs.append(h)
    return np.array(pas), np.array(hs)


def _switch3(i: Any, x: np.ndarray) -> np.ndarray:
    branches = [np.sin, lambda u: u * u, lambda u: -u]
    return branches[int(np.clip(i, 0, 2))](x)


SCAN = "lax.scan(lambda c, x: (c * 0.5 + x, jnp.sin(c) * x), c, xs{})"
CASES = [
    case("cond", "f = lambda p, x: lax.cond(p > 0, lambda u: jnp.sin(u) * 2.0, lambda u: jnp.cos(u) - u, x)",
         lambda p, x: np.sin(x) * 2.0 if p > 0 else np.cos(x) - x, order=2, p=((), AWAY), x=(V,)),
    case("cond_of_pytrees",
         "f = lambda p, x, y: lax.cond(p > 0, lambda a: {'s': a[0] * a[1], 't': (jnp.sum(a[0]), a[1])}, "
         "lambda a: {'s': a[0] - a[1], 't': (jnp.prod(a[1]), -a[1])}, (x, y))",
         lambda p, x, y: {"s": x * y, "t": (np.sum(x), y)} if p > 0 else {"s": x - y, "t": (np.prod(y), -y)},
         p=((), AWAY), x=(V,), y=(V,)),
    case("cond_closing_over_its_operands", "f = lambda p, x, y: lax.cond(p > 0, lambda: x * y, lambda: jnp.tanh(x) + y)",
         lambda p, x, y: x * y if p > 0 else np.tanh(x) + y, p=((), AWAY), x=(V,), y=((),)),
    case("cond_with_a_constant_branch", "f = lambda p, x: lax.cond(p > 0, lambda u: jnp.sin(u), lambda u: jnp.ones_like(u), x)",
         lambda p, x: np.sin(x) if p > 0 else np.ones_like(x), p=((), AWAY), x=(V,)),  # a zero tangent, unbatched
    case("cond_on_an_integer", "f = lambda i, x: lax.cond(i, lambda u: u * 3.0, lambda u: -u, x)",
         lambda i, x: x * 3.0 if i != 0 else -x, i=((), Domain(-1, 2), I32), x=(V,)),
    case("switch", "f = lambda i, x: lax.switch(i, [lambda u: jnp.sin(u), lambda u: u * u, lambda u: -u], x)",
         _switch3, i=((), Domain(-2, 4), I32), x=(V,)),  # out of range: clamped
    case("switch_of_two_operands", "f = lambda i, x, y: lax.switch(i, [lambda a, b: a * b, lambda a, b: a + jnp.cos(b)], x, y)",
         lambda i, x, y: x * y if np.clip(i, 0, 1) == 0 else x + np.cos(y), i=((), Domain(0, 1), I32), x=(V,), y=(V,)),
    case("while_loop", "f = lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.sin(c[1]) + c[1] * 0.5), (0, x))",
         _while, order=2, n=((), Domain(-1, 4), I32), x=(V,)),
    case("while_loop_on_values", "f = lambda x: lax.while_loop(lambda c: jnp.sum(c) < 9.8765, lambda c: c * 1.5 + 0.5, x)",
         _while_on_values, x=(V, POSITIVE)),
    case("while_loop_closing_over",
         "f = lambda n, x, y: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * jnp.cos(y) + y), (0, x))[1]",
         _while_closing_over, n=((), Domain(0, 3), I32), x=(V,), y=((),)),
    case("fori_loop", "f = lambda x: lax.fori_loop(0, 4, lambda i, c: c * 0.5 + jnp.sin(c) * i, x)", _fori, x=(V,)),
    case("fori_loop_from_a_constant_carry",  # the carry's tangent and batch axis come from x, later
         "f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + jnp.sin(x), jnp.zeros_like(x))",
         lambda x: _repeat(lambda c: c * 0.5 + np.sin(x), np.zeros_like(x), 3), x=(V,)),
    case("while_loop_from_a_constant_carry",
         "f = lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.5 + x), (0, jnp.zeros_like(x)))[1]",
         lambda n, x: _repeat(lambda c: c * 0.5 + x, np.zeros_like(x), max(0, int(n))), n=((), Domain(0, 3), I32), x=(V,)),
    case("fori_loop_traced_bounds", "f = lambda lo, hi, x: lax.fori_loop(lo, hi, lambda i, c: c + jnp.cos(c) * i, x)",
         _fori_bounds, lo=((), Domain(0, 2), I32), hi=((), Domain(0, 5), I32), x=(V,)),
    case("fori_loop_of_a_pair", "f = lambda x, y: lax.fori_loop(1, 4, lambda i, c: (c[0] * jnp.tanh(c[1]), c[1] + i), (x, y))",
         _fori_pair, x=(V,), y=(V,)),
    case("scan", f"f = lambda c, xs: {SCAN.format('')}", _scan, c=(V,), xs=(ROWS,)),
    case("scan_reverse", f"f = lambda c, xs: {SCAN.format(', reverse=True')}",
         lambda c, xs: _scan(c, xs, reverse=True), c=(V,), xs=(ROWS,)),
    case("scan_unrolled", f"f = lambda c, xs: {SCAN.format(', unroll=2')}", _scan, c=(V,), xs=(ROWS,)),
    case("scan_length_only", "f = lambda c: lax.scan(lambda c, _: (jnp.sin(c) + 1.0, c * 2.0), c, None, length=3)",
         _scan_length, c=(V,)),
    case("scan_of_pytrees",
         "f = lambda c, xs, ys: lax.scan(lambda c, x: ({'a': c['a'] + x[0], 'b': c['b'] * jnp.cos(x[1])}, "
         "(c['a'] * x[1], None)), {'a': c, 'b': c}, (xs, ys))",
         _scan_pytrees, c=(V,), xs=(ROWS,), ys=(ROWS,)),
    case("map", "f = lambda xs: lax.map(lambda r: jnp.sum(r) * jnp.sin(r), xs)", _map, xs=(ROWS,)),
    case("map_in_batches", "f = lambda xs: lax.map(lambda r: jnp.sum(r) * jnp.sin(r), xs, batch_size=2)",
         _map, xs=(ROWS,)),  # 5 rows: two batches of 2 and a remainder
    case("associative_scan", "f = lambda xs: lax.associative_scan(jnp.add, xs)",
         lambda xs: _cumulative(np.add, xs), xs=((5,),)),
    case("associative_scan_reverse_along_axis_1",
         "f = lambda xs: lax.associative_scan(jnp.multiply, xs, reverse=True, axis=1)",
         lambda xs: _cumulative(np.multiply, xs, axis=1, reverse=True), xs=((2, 5), Domain(0.5, 1.5))),
    case("associative_scan_of_pairs",
         "f = lambda a, b: lax.associative_scan(lambda x, y: (x[0] * y[0], y[0] * x[1] + y[1]), (a, b))",
         _affine, a=((5,), Domain(-1, 1)), b=((5,),)),
]  # fmt: skip


def _look_up(s: Staging, source: str) -> None:
    """The implementation's functions that ``source`` names, before anything is drawn (a missing
    one raises Missing with nothing for hypothesis to shrink)."""
    for module, name in re.findall(r"\b(lax|jnp)\.(\w+)", source):
        getattr(s.lax if module == "lax" else s.jnp, name)


def _compile(s: Staging, source: str) -> Callable[..., Any]:
    scope = dict(s.namespace)
    exec(compile(source, "<control-flow case>", "exec"), scope)  # the table's own text
    return scope["f"]


def _draw(
    data: st.DataObject, c: Case, batched: dict[str, int | None] | None = None
) -> dict[str, np.ndarray]:
    """The case's arguments, those in ``batched`` with a batch axis of size B at the given place."""
    values = {}
    for name, arg in c.args.items():
        axis = (batched or {}).get(name)
        shape = arg.shape if axis is None else insert_axis(arg.shape, axis, B)
        values[name] = data.draw(S.arrays(arg.dtype, shape, arg.domain), label=name)
    return values


# JAX compiles every control-flow call anew (its branches and bodies are new functions each time):
# an eighth of the profile's examples (3 in ci, 1 in ci-reference, 125 in full).
TABLE_SETTINGS = settings(max_examples=max(1, settings().max_examples // 8))


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_control_flow_matches_the_reference_loop(impl: Impl, flags, c: Case, data: st.DataObject) -> None:
    """f against its NumPy reference (x64 drawn; the reference computes in float64 on the inputs as
    the implementation sees them), then the round trip of its jaxpr."""
    s = staging(impl)
    _look_up(s, c.source)
    x64 = draw_x64(data, flags)
    values = _draw(data, c)
    f = _compile(s, c.source)
    show_call(f"{c.source}\nf({', '.join(values)})", **values)
    got = f(*values.values())
    seen = {k: as_operand(v, canonicalize(v.dtype, x64)) for k, v in values.items()}
    want = c.ref(*seen.values())
    assert structure(got) == structure(want), f"output tree {structure(got)}, expected {structure(want)}"
    for k, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        w = np.asarray(w)
        dt = canonicalize(w.dtype, x64)
        assert_dtype(g, dt, f"output {k}", weak=None)  # a carry's weak type is the implementation's
        scale = float(np.max(np.abs(wide(w)), initial=0.0))
        assert_values(g, wide(w), dt, atol=RTOL.get(dt.name, 0.0) * scale)
    check_round_trip(s, f, tuple(values.values()), source=c.source, values=values)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_control_flow_jvp_matches_finite_differences(impl: Impl, flags, c: Case, data: st.DataObject) -> None:
    """First-order JVPs (second order for cond and while_loop) along random
    directions; integer arguments (predicates, indices, bounds) get float0 tangents."""
    s = staging(impl)
    _look_up(s, c.source)
    flags("jax_enable_x64", True)
    values = _draw(data, c)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    check_derivatives(s.jax, _compile(s, c.source), tuple(values.values()), rng, source=c.source, values=values,
                      order=c.order)  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_control_flow_vmap_matches_the_loop(impl: Impl, flags, c: Case, data: st.DataObject) -> None:
    """Drawn: which arguments are batched (one at least) and along which axis, and where the batch
    axis of each output goes. A batched predicate, index or trip count makes every example follow
    its own branch or its own number of iterations."""
    s = staging(impl)
    _look_up(s, c.source)
    flags("jax_enable_x64", True)
    names = list(c.args)
    batched = {n: data.draw(st.booleans(), label=f"{n} batched") for n in names}
    if not any(batched.values()):
        batched[data.draw(st.sampled_from(names), label="batched")] = True
    axes = {n: data.draw(batch_axes(len(c.args[n].shape)), label=f"{n} axis") if batched[n] else None
            for n in names}  # fmt: skip
    values = _draw(data, c, axes)
    check_vmap(impl, c.source, values, tuple(axes.values()), data=data)


# Every batched/unbatched pattern of the arguments of the cases where one argument steers: a
# predicate, an index or a trip count batched alone, with the operands, or not at all.
STEERED = [c for c in CASES if c.name in ("cond", "cond_closing_over_its_operands", "cond_with_a_constant_branch",
                                          "switch_of_two_operands", "while_loop_closing_over",
                                          "while_loop_from_a_constant_carry", "fori_loop_traced_bounds")]  # fmt: skip


@pytest.mark.parametrize("c", STEERED, ids=lambda c: c.name)
def test_every_batched_and_unbatched_pattern(impl: Impl, flags, c: Case) -> None:
    s = staging(impl)
    _look_up(s, c.source)
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(11)
    names = list(c.args)
    for pattern in itertools.product([0, None], repeat=len(names)):
        if all(p is None for p in pattern):
            continue
        values = {n: _fixed(c.args[n], c.args[n].shape if p is None else (B, *c.args[n].shape), rng)
                  for n, p in zip(names, pattern)}  # fmt: skip
        check_vmap(impl, c.source, values, pattern)


def _fixed(arg: Arg, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Values in the argument's domain from a fixed generator; the integers of a batch all differ
    where the domain allows, so that the examples take different branches and trip counts."""
    d = arg.domain
    if arg.dtype.kind == "i":
        choices = np.arange(int(d.low), int(d.high) + 1)
        return rng.permutation(np.resize(choices, max(len(choices), int(np.prod(shape)))))[: int(np.prod(shape))] \
            .reshape(shape).astype(arg.dtype)  # fmt: skip
    x = rng.uniform(d.low, d.high, shape)
    if d.min_abs:
        x = np.where(np.abs(x) < d.min_abs, np.copysign(d.min_abs, x), x)
    return x.astype(arg.dtype)


# --- random programs with control flow: jvp and vmap ---------------------------------------------------------
# Each program compiles every control-flow step anew in JAX: a fifth of the profile's examples.
PROGRAM_SETTINGS = settings(max_examples=max(1, settings().max_examples // 5))


@PROGRAM_SETTINGS
@given(data=st.data())
def test_random_control_flow_program_jvp_matches_finite_differences(
    impl: Impl, flags, data: st.DataObject
) -> None:
    s = staging(impl)
    for name in CONTROL_NAMES:
        getattr(s.lax, name)
    flags("jax_enable_x64", True)
    program = data.draw(control_programs(), label="program")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    check_derivatives(s.jax, program.function(s.namespace), (program.inputs,), rng,
                      source=program.source.rstrip(), values={"p": program.inputs}, order=1)  # fmt: skip


@PROGRAM_SETTINGS
@given(data=st.data())
def test_random_control_flow_program_vmap_matches_the_loop(impl: Impl, flags, data: st.DataObject) -> None:
    """Batched leaves make batched predicates, indices and trip counts wherever they reach them."""
    s = staging(impl)
    for name in CONTROL_NAMES:
        getattr(s.lax, name)
    flags("jax_enable_x64", True)
    program = data.draw(control_programs(), label="program")
    axes = map_leaves(lambda k, leaf: data.draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))), label="axis"),
                      program.inputs)  # fmt: skip
    if not leaves(axes):
        axes = map_leaves(lambda k, leaf: 0, program.inputs)
    flat_axes = _axis_leaves(axes)
    p = map_leaves(lambda k, leaf: data.draw(S.arrays(F64, np.shape(leaf) if flat_axes[k] is None else
                                                       insert_axis(np.shape(leaf), flat_axes[k], B),
                                                       Domain(-2, 2)), label="leaf"), program.inputs)  # fmt: skip
    check_vmap(impl, program.source.rstrip(), {"p": p}, (axes,), data=data)


def _axis_leaves(axes: Any) -> list[Any]:
    if isinstance(axes, (tuple, list)):
        return [a for child in axes for a in _axis_leaves(child)]
    if isinstance(axes, dict):
        return [a for key in sorted(axes) for a in _axis_leaves(axes[key])]
    return [axes]


# --- loops are staged as loops ----------------------------------------------------------------------------------

X4 = np.array([0.5, -1.0, 1.5, 0.25], np.float32)
# (id, f of x, the NumPy loop it must equal): each runs its body 100 times or more
LONG_LOOPS = [
    ("fori_loop", "f = lambda x: lax.fori_loop(0, 100, lambda i, c: c * 0.99 + 0.01 * jnp.sin(c), x)",
     lambda x: _repeat(lambda c: c * 0.99 + 0.01 * np.sin(c), x, 100)),
    ("fori_loop_traced_bound", "f = lambda x: lax.fori_loop(0, jnp.sum(x > -10) * 25, lambda i, c: c * 0.99, x)",
     lambda x: _repeat(lambda c: c * 0.99, x, 100)),
    ("while_loop", "f = lambda x: lax.while_loop(lambda c: c[0] < 100, lambda c: (c[0] + 1, c[1] * 0.99), (0, x))[1]",
     lambda x: _repeat(lambda c: c * 0.99, x, 100)),
    ("scan", "f = lambda x: lax.scan(lambda c, r: (c * 0.99 + r, None), x, jnp.ones((100, 4)))[0]",
     lambda x: _repeat(lambda c: c * 0.99 + 1.0, x, 100)),
]  # fmt: skip


def _repeat(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, n: int) -> np.ndarray:
    x = x.astype(np.float64)
    for _ in range(n):
        x = fn(x)
    return x


@pytest.mark.parametrize(
    "source, ref", [loop[1:] for loop in LONG_LOOPS], ids=[loop[0] for loop in LONG_LOOPS]
)
def test_loops_are_staged_as_loops_not_unrolled(impl: Impl, source: str, ref: Callable[..., Any]) -> None:
    """A loop of 100 iterations is a few equations (a loop primitive holding its body), not 100
    copies of the body; it evaluates to the reference loop."""
    s = staging(impl)
    _look_up(s, source)
    f = _compile(s, source)
    show_call(f"{source}\nclosed = jax.make_jaxpr(f)(x)\nlen(closed.jaxpr.eqns)", x=X4)
    closed = s.jax.make_jaxpr(f)(X4)
    assert len(closed.jaxpr.eqns) < 20, f"{len(closed.jaxpr.eqns)} equations: {primitives(closed)}"
    [got] = s.core.eval_jaxpr(closed.jaxpr, closed.consts, X4)
    assert_values(got, ref(X4), F32, atol=1e-5)


def test_a_concrete_predicate_still_works(impl: Impl) -> None:
    """Python and NumPy booleans as predicates, a Python int as the index."""
    s = staging(impl)
    show_call("lax.cond(True, jnp.sin, jnp.cos, x), lax.cond(np.bool_(False), jnp.sin, jnp.cos, x), "
              "lax.switch(1, [jnp.sin, jnp.cos], x)", x=X4)  # fmt: skip
    assert_values(s.lax.cond(True, s.jnp.sin, s.jnp.cos, X4), np.sin(X4), F32)
    assert_values(s.lax.cond(np.bool_(False), s.jnp.sin, s.jnp.cos, X4), np.cos(X4), F32)
    assert_values(s.lax.switch(1, [s.jnp.sin, s.jnp.cos], X4), np.cos(X4), F32)


@pytest.mark.parametrize("i", [-2, -1, 0, 1, 3])
def test_a_number_as_predicate_is_true_when_nonzero(impl: Impl, i: int) -> None:
    """cond's predicate may be a number: nonzero (negative too) is true; given as it is and staged."""
    s = staging(impl)
    f = lambda p, x: s.lax.cond(p, s.jnp.sin, s.jnp.cos, x)  # noqa: E731
    want = np.sin(X4) if i != 0 else np.cos(X4)
    show_call("f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)\nf(p, x), "
              "jax.core.eval_jaxpr(jax.make_jaxpr(f)(p, x).jaxpr, [], p, x)", p=np.int32(i), x=X4)  # fmt: skip
    assert_values(f(np.int32(i), X4), want, F32)
    closed = s.jax.make_jaxpr(f)(np.int32(i), X4)
    assert_values(s.core.eval_jaxpr(closed.jaxpr, closed.consts, np.int32(i), X4)[0], want, F32)


# (id, the call, its value) of calls JAX accepts: a Python scalar carry takes the type the body
# gives it (a weakly typed int carry becomes a float one).
ACCEPTED = [
    ("while_int_carry_becomes_float", "lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0)", np.array(3.0)),
    ("fori_int_carry_becomes_float", "lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)", np.array(1.5)),
    ("scan_int_carry_becomes_float", "lax.scan(lambda c, r: (c + r, c), 0, x)[0]", np.array(X4.sum())),
]  # fmt: skip


@pytest.mark.parametrize("call, want", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_a_python_scalar_carry_takes_the_bodys_type(impl: Impl, call: str, want: np.ndarray) -> None:
    s = staging(impl)
    _look_up(s, call)
    show_call(call, x=X4)
    got = eval(call, dict(s.namespace, x=X4))  # the table's own text
    assert_dtype(got, F32, weak=None)
    assert_values(got, want, F32, atol=1e-6)


# --- errors: what changes type ---------------------------------------------------------------------------------

# (id, the call, the builtin exception JAX raises)
MISUSES = [
    ("cond_branch_shapes_differ", "lax.cond(True, lambda u: u, lambda u: u[:2], x)", TypeError),
    ("cond_branch_dtypes_differ", "lax.cond(True, lambda u: u, lambda u: u.astype(jnp.int32), x)", TypeError),
    ("cond_branch_trees_differ", "lax.cond(True, lambda u: (u, u), lambda u: [u, u], x)", TypeError),
    ("cond_staged_branch_shapes_differ", "jax.make_jaxpr(lambda p: lax.cond(p > 0, lambda u: u, lambda u: u[:2], x))(1.0)",
     TypeError),
    ("cond_predicate_not_a_scalar", "lax.cond(x > 0, lambda u: u, lambda u: -u, x)", TypeError),
    ("cond_branch_not_callable", "lax.cond(True, 1.0, lambda u: u, x)", TypeError),
    ("switch_branch_shapes_differ", "lax.switch(0, [lambda u: u, lambda u: u[:2]], x)", TypeError),
    ("switch_float_index", "lax.switch(0.5, [lambda u: u, lambda u: -u], x)", TypeError),
    ("switch_no_branches", "lax.switch(0, [], x)", ValueError),
    ("while_carry_shape_changes", "lax.while_loop(lambda c: c[0] < 3, lambda c: jnp.concatenate([c, c]), x)", TypeError),
    ("while_carry_dtype_changes", "lax.while_loop(lambda c: c[0] < 3, lambda c: c.astype(jnp.int32), x)", TypeError),
    ("while_cond_not_a_scalar", "lax.while_loop(lambda c: c < 3, lambda c: c + 1, x)", TypeError),
    ("while_cond_not_boolean", "lax.while_loop(lambda c: c[0], lambda c: c - 1, x)", TypeError),
    ("fori_carry_dtype_changes", "lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), x)", TypeError),
    ("fori_traced_carry_shape_changes", "jax.make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: c[1:], x))(3)",
     TypeError),
    ("scan_carry_shape_changes", "lax.scan(lambda c, r: (c[:1], r), x, x)", TypeError),
    ("scan_carry_dtype_changes", "lax.scan(lambda c, r: (c.astype(jnp.int32), r), x, jnp.ones((2, 4)))", TypeError),
    ("scan_lengths_differ", "lax.scan(lambda c, r: (c, r), 0.0, (jnp.ones(3), jnp.ones(4)))", ValueError),
    ("scan_length_disagrees", "lax.scan(lambda c, r: (c, r), 0.0, jnp.ones(3), length=4)", ValueError),
    ("scan_nothing_to_scan", "lax.scan(lambda c, r: (c, r), 0.0, None)", ValueError),
    ("associative_scan_lengths_differ", "lax.associative_scan(lambda a, b: a + b, (jnp.ones(3), jnp.ones(4)))",
     ValueError),
]  # fmt: skip


@pytest.mark.parametrize("call, error", [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_what_changes_type_raises_jax_errors(impl: Impl, call: str, error: type[Exception]) -> None:
    """Branches whose outputs differ in shape, dtype or tree, a loop whose carry changes type, a
    predicate or index of the wrong kind, nothing to scan over: JAX's exception class. Then
    control flow works as before."""
    s = staging(impl)
    _look_up(s, call)
    scope = dict(s.namespace, x=X4)
    show_call(call, x=X4)
    with pytest.raises(error):
        eval(call, scope)  # the table's own text
    show_call("lax.cond(True, jnp.sin, jnp.cos, x)", x=X4)
    assert_values(s.lax.cond(True, s.jnp.sin, s.jnp.cos, X4), np.sin(X4), F32)
