"""Automatic batching, ``jax.vmap``: every lax primitive family and random programs against a Python
loop (batching.py: ``f`` on each slice, eagerly, with the same implementation, the results stacked
with NumPy along ``out_axes``); JAX's ``in_axes``/``out_axes`` prefix trees, ``axis_size``, keyword
arguments and constant outputs; JAX's errors for misuse; ``jacfwd`` against finite differences; and
vmap composed with jvp and with itself.

Every primitive case is a line of the table below: the body of ``f`` as source text (what runs is what
a failure prints) and its arguments' shapes, domains and dtypes, unbatched. A test draws which
arguments are batched and where their batch axis goes (either end counts), and where each output's
batch axis goes; another sweeps every batched/unbatched pattern of a case's arguments.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.batching import assert_batched, loop, out_ranks, slices, stack
from conformance.checks import assert_dtype, assert_values, show_call
from conformance.derivatives import (
    assert_derivative,
    leaves,
    map_leaves,
    numerical_jacobian,
    random_tangents,
    structure,
    tree_map,
)
from conformance.impl import Impl
from conformance.missing import Namespace
from conformance.programs import INPUT_DOMAIN, Program, programs
from conformance.strategies import Domain, batch_axes, insert_axis, prefixes

pytestmark = [pytest.mark.area("vmap"), pytest.mark.requires("vmap")]

F32, F64, I32, U8, BOOL = (np.dtype(n) for n in ("float32", "float64", "int32", "uint8", "bool"))
C64 = np.dtype("complex64")
B = 3  # the batch size: no unbatched dimension of the table is 3, so a wrong axis shows
V, M = (4,), (2, 4)  # the table's shapes: few, so that JAX compiles little
ANY = Domain(-3, 3)
POSITIVE = Domain(0.3, 4)
UNIT = Domain(-0.8, 0.8)
AWAY_FROM_0 = Domain(-3, 3, min_abs=0.3)
TIES = Domain(-2, 2, grid=0.5)
INDEX = Domain(-1, 4)  # start indices, some out of range (clamped)


@dataclass(frozen=True, repr=False)
class Arg:
    shape: tuple[int, ...]
    domain: Domain = ANY
    dtype: np.dtype = F32
    # Whether the batch axis may come last. JAX 0.10.2 fails to batch a bitcast to a wider type along
    # the last axis ("Attempting to convert array of shape (2, 4, 3) from uint8 ... but 3 * 8 != 32"):
    # it bitcasts the batch axis instead of the bytes.
    last: bool = True


@dataclass(frozen=True, repr=False)
class Case:
    """``f = lambda <args>: <body>``, with ``lax``, ``jnp`` and ``np`` in scope."""

    name: str
    body: str
    args: dict[str, Arg]
    exact: bool = False  # compare bit for bit (bit patterns that may be NaNs)
    # Swept through every batched/unbatched pattern of its arguments (test_every_batched_...): all
    # but the elementwise functions of two same-shaped operands, which share one rule (add stands for them).
    sweep: bool = True

    def __repr__(self) -> str:
        return f"Case({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    @property
    def source(self) -> str:
        return f"f = lambda {', '.join(self.args)}: {self.body}"


def case(name: str, body: str, exact: bool = False, sweep: bool = True, **args: Arg | tuple) -> Case:
    """A table line; an argument is an Arg or the tuple of its fields."""
    return Case(name, body, {k: a if isinstance(a, Arg) else Arg(*a) for k, a in args.items()}, exact, sweep)


def unary(name: str, domain: Domain = ANY, body: str | None = None, dtype: np.dtype = F32) -> Case:
    return case(name, body or f"lax.{name}(x)", x=(M, domain, dtype))


def binary(name: str, dx: Domain = ANY, dy: Domain = ANY, dtype: np.dtype = F32, body: str | None = None) -> Case:
    return case(name, body or f"lax.{name}(x, y)", sweep=name == "add", x=(M, dx, dtype), y=(M, dy, dtype))


SHIFT = Domain(0, 35)  # shifts past the bit width too
INTS = Domain(-50, 50)
ROW = Domain(-2, 1)  # an index of the first axis (size 2), negative ones too: repeats likely
COLUMN = Domain(-4, 3)
GATHER = ("lax.gather(x, i, lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
          "start_index_map=(0,)), (1, 4), mode=lax.GatherScatterMode.{mode}{fill})")  # fmt: skip
SCATTER = ("lax.scatter_{fn}(x, i, u, lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
           "scatter_dims_to_operand_dims=(0,)), mode=lax.GatherScatterMode.{mode})")  # fmt: skip
DOT = "lax.dot_general(x, y, ({}, {}))"
STARTS = Arg((1,), Domain(-1, 2), I32)  # gather/scatter start rows of the operand (2, 4): one out of range

CASES = [
    # --- elementwise: unary -----------------------------------------------------------------------------
    unary("neg"), unary("abs"), unary("sign", TIES), unary("floor"), unary("ceil"), unary("round"),
    unary("is_finite"), unary("square"), unary("exp"), unary("exp2"), unary("expm1"), unary("log", POSITIVE),
    unary("log1p", POSITIVE), unary("sqrt", POSITIVE), unary("rsqrt", POSITIVE), unary("cbrt"),
    unary("logistic"), unary("sin"), unary("cos"), unary("tan", UNIT), unary("tanh"), unary("sinh"),
    unary("cosh"), unary("asin", UNIT), unary("acos", UNIT), unary("atan"), unary("asinh"),
    unary("acosh", Domain(1.2, 5)), unary("atanh", UNIT),
    unary("integer_pow", AWAY_FROM_0, "lax.integer_pow(x, 3)"),
    case("integer_pow_negative", "lax.integer_pow(x, -2)", x=(M, AWAY_FROM_0)),
    unary("erf"), unary("erfc"), unary("erf_inv", UNIT), unary("lgamma", POSITIVE), unary("digamma", POSITIVE),
    unary("bessel_i0e"), unary("bessel_i1e"),
    unary("bitwise_not", INTS, "lax.bitwise_not(x)", I32), unary("not_bool", Domain(0, 1), "lax.bitwise_not(x)", BOOL),
    unary("population_count", INTS, dtype=I32), unary("clz", INTS, dtype=I32),
    unary("real", dtype=C64), unary("abs_complex", body="lax.abs(x)", dtype=C64),
    # --- elementwise: binary, and operands of rank 0 that lax broadcasts --------------------------------
    binary("add"), binary("sub"), binary("mul"), binary("div", dy=AWAY_FROM_0),
    binary("div_int", INTS, Domain(-7, 7, min_abs=1), I32, "lax.div(x, y)"),
    binary("rem", dy=AWAY_FROM_0), binary("rem_int", INTS, Domain(-7, 7, min_abs=1), I32, "lax.rem(x, y)"),
    binary("pow", POSITIVE, Domain(-2, 2)),
    case("pow_integer_exponent", "lax.pow(x, y)", x=(M, AWAY_FROM_0), y=(M, Domain(-3, 3), I32)),
    binary("max", TIES, TIES), binary("min", TIES, TIES), binary("atan2", dy=AWAY_FROM_0), binary("nextafter"),
    binary("igamma", POSITIVE, POSITIVE), binary("igammac", POSITIVE, POSITIVE),
    case("zeta", "lax.zeta(x, q)", sweep=False, x=(M, Domain(1.5, 4)), q=(M, POSITIVE)),
    case("polygamma", "lax.polygamma(m, x)", sweep=False, m=(M, Domain(0, 2, grid=1.0)), x=(M, POSITIVE)),
    binary("mul_complex", dtype=C64, body="lax.mul(x, y)"),
    case("mul_by_a_scalar", "lax.mul(x, s)", x=(M,), s=((),)),
    case("sub_from_a_scalar", "lax.sub(s, x)", s=((),), x=(M,)),
    binary("eq", TIES, TIES), binary("ne", TIES, TIES), binary("lt", TIES, TIES), binary("ge", TIES, TIES),
    binary("eq_int", INTS, INTS, I32, "lax.eq(x, y)"),
    binary("bitwise_and", INTS, INTS, I32), binary("bitwise_or", INTS, INTS, I32),
    binary("bitwise_xor", INTS, INTS, I32),
    binary("and_bool", Domain(0, 1), Domain(0, 1), BOOL, "lax.bitwise_and(x, y)"),
    binary("shift_left", INTS, SHIFT, I32), binary("shift_right_logical", INTS, SHIFT, I32),
    binary("shift_right_arithmetic", INTS, SHIFT, I32),
    # --- elementwise: three operands, selection ---------------------------------------------------------
    case("select_n", "lax.select_n(w, x, y)", w=(M, Domain(0, 1), BOOL), x=(M,), y=(M,)),
    case("select_n_3_cases", "lax.select_n(w, x, y, z)", w=(M, Domain(0, 2), I32), x=(M,), y=(M,), z=(M,)),
    case("select_n_scalar_predicate", "lax.select_n(w, x, y)", w=((), Domain(0, 1), BOOL), x=(M,), y=(M,)),
    case("clamp", "lax.clamp(lo, x, hi)", lo=(M, Domain(-2, 0)), x=(M,), hi=(M, Domain(0, 2))),
    case("clamp_scalar_bounds", "lax.clamp(lo, x, hi)", lo=((), Domain(-2, 0)), x=(M,), hi=((), Domain(0, 2))),
    # --- dtypes -----------------------------------------------------------------------------------------
    case("convert_to_int", "lax.convert_element_type(x, np.int32)", x=(M,)),
    case("convert_from_int", "lax.convert_element_type(x, np.float32)", x=(M, INTS, I32)),
    case("convert_from_bool", "lax.convert_element_type(x, np.int32)", x=(M, Domain(0, 1), BOOL)),
    case("bitcast_to_int", "lax.bitcast_convert_type(x, np.int32)", x=(M,)),
    case("bitcast_to_bytes", "lax.bitcast_convert_type(x, np.uint8)", x=(M,)),  # adds a trailing axis
    case("bitcast_from_bytes", "lax.bitcast_convert_type(x, np.float32)", exact=True,
         x=(M, Domain(0, 255), U8, False)),  # fmt: skip  # removes the trailing axis
    # --- iota -------------------------------------------------------------------------------------------
    case("broadcasted_iota", "lax.add(x, lax.broadcasted_iota(np.float32, (2, 4), 1))", x=(M,)),
    case("iota_times", "lax.mul(lax.iota(np.int32, 4), i)", i=(V, INTS, I32)),
    case("iota_compared", "lax.select_n(lax.eq(lax.broadcasted_iota(np.int32, (2, 4), 1), i), x, lax.neg(x))",
         x=(M,), i=((), Domain(0, 3), I32)),  # fmt: skip
    # --- structure --------------------------------------------------------------------------------------
    case("broadcast_in_dim", "lax.broadcast_in_dim(x, (2, 3, 4), (0, 2))", x=(M,)),
    case("broadcast_in_dim_vector", "lax.broadcast_in_dim(x, (2, 4), (1,))", x=(V,)),
    case("reshape", "lax.reshape(x, (4, 2))", x=(M,)), case("reshape_flat", "lax.reshape(x, (8,))", x=(M,)),
    case("transpose", "lax.transpose(x, (1, 0))", x=(M,)),
    case("squeeze", "lax.squeeze(x, (0,))", x=((1, 4),)),
    case("expand_dims", "lax.expand_dims(x, (0, 2))", x=(M,)),
    case("rev", "lax.rev(x, (1,))", x=(M,)), case("rev_both", "lax.rev(x, (0, 1))", x=(M,)),
    case("concatenate", "lax.concatenate([x, y, x], 1)", x=(M,), y=((2, 1),)),
    case("concatenate_rows", "lax.concatenate([x, y], 0)", x=(M,), y=((1, 4),)),
    case("pad", "lax.pad(x, v, ((1, -1, 1), (0, 2, 0)))", x=(M,), v=((),)),
    case("pad_negative", "lax.pad(x, v, ((-1, 0, 0), (2, -1, 1)))", x=(M,), v=((),)),
    case("slice", "lax.slice(x, (0, 1), (2, 4), (1, 2))", x=(M,)),
    case("dynamic_slice", "lax.dynamic_slice(x, (i, j), (1, 2))", x=(M,), i=((), INDEX, I32), j=((), INDEX, I32)),
    case("dynamic_update_slice", "lax.dynamic_update_slice(x, u, (i, j))", x=(M,), u=((1, 2),),
         i=((), INDEX, I32), j=((), INDEX, I32)),  # fmt: skip
    # --- reductions -------------------------------------------------------------------------------------
    case("reduce_sum", "lax.reduce_sum(x, (1,))", x=(M,)), case("reduce_sum_all", "lax.reduce_sum(x, (0, 1))", x=(M,)),
    case("reduce_max", "lax.reduce_max(x, (0,))", x=(M,)), case("reduce_min", "lax.reduce_min(x, (1,))", x=(M,)),
    case("reduce_prod", "lax.reduce_prod(x, (1,))", x=(M,)),
    case("reduce_and", "lax.reduce_and(x, (1,))", x=(M, Domain(0, 1), BOOL)),
    case("reduce_or", "lax.reduce_or(x, (0,))", x=(M, Domain(0, 1), BOOL)),
    case("reduce_xor", "lax.reduce_xor(x, (0, 1))", x=(M, INTS, I32)),
    case("reduce_sum_int", "lax.reduce_sum(x, (0,))", x=(M, INTS, I32)),
    case("argmax", "lax.argmax(x, 1, np.int32)", x=(M, TIES)), case("argmin", "lax.argmin(x, 0, np.int32)", x=(M, TIES)),
    # --- cumulative -------------------------------------------------------------------------------------
    case("cumsum", "lax.cumsum(x, 1)", x=(M,)), case("cumsum_reverse", "lax.cumsum(x, 0, reverse=True)", x=(M,)),
    case("cumprod", "lax.cumprod(x, 1)", x=(M,)), case("cummax_reverse", "lax.cummax(x, 1, reverse=True)", x=(M, TIES)),
    case("cummin", "lax.cummin(x, 0)", x=(M, TIES)),
    case("cumlogsumexp_reverse", "lax.cumlogsumexp(x, 1, reverse=True)", x=(M,)),
    case("cumsum_int", "lax.cumsum(x, 1)", x=(M, INTS, I32)),
    # --- products ---------------------------------------------------------------------------------------
    case("dot_general_matmul", DOT.format("((1,), (0,))", "((), ())"), x=(M,), y=((4, 2),)),
    case("dot_general_vectors", DOT.format("((0,), (0,))", "((), ())"), x=(V,), y=(V,)),
    case("dot_general_outer", DOT.format("((), ())", "((), ())"), x=(V,), y=((2,),)),
    case("dot_general_two_contractions", DOT.format("((0, 1), (1, 0))", "((), ())"), x=(M,), y=((4, 2),)),
    case("dot_general_batch_dims", DOT.format("((2,), (1,))", "((0,), (0,))"), x=((2, 2, 4),), y=((2, 4, 2),)),
    case("dot_general_batch_dims_last", DOT.format("((0,), (0,))", "((1,), (1,))"), x=(M,), y=(M,)),
    case("dot_general_int", DOT.format("((1,), (0,))", "((), ())"), x=(M, INTS, I32), y=((4, 2), INTS, I32)),
    # --- sorting ----------------------------------------------------------------------------------------
    case("sort", "lax.sort(x, dimension=1)", x=(M, TIES)),
    case("sort_rows", "lax.sort(x, dimension=0)", x=(M, TIES)),
    case("sort_keys_and_values", "lax.sort((k, x), dimension=1, num_keys=1)", k=(M, TIES), x=(M,)),
    case("sort_two_keys", "lax.sort((k, l, x), dimension=0, num_keys=2)", k=(M, TIES, I32), l=(M, TIES), x=(M,)),
    case("top_k", "lax.top_k(x, 2)", x=(M, TIES)), case("top_k_vector", "lax.top_k(x, 3)", x=(V, TIES)),
    # --- gather and scatter: lax's own, and jnp's indexing and .at[] ------------------------------------
    case("gather_clip", GATHER.format(mode="CLIP", fill=""), x=(M,), i=((3, 1), Domain(-1, 2), I32)),
    case("gather_fill", GATHER.format(mode="FILL_OR_DROP", fill=", fill_value=2.5"), x=(M,),
         i=((3, 1), Domain(-1, 2), I32)),  # fmt: skip
    case("scatter_add", SCATTER.format(fn="add", mode="FILL_OR_DROP"), x=(M,), i=((3, 1), Domain(-1, 2), I32),
         u=((3, 4),)),  # fmt: skip
    case("scatter_max_clip", SCATTER.format(fn="max", mode="CLIP"), x=(M,), i=((3, 1), Domain(-1, 2), I32),
         u=((3, 4),)),  # fmt: skip
    case("index_array", "jnp.asarray(x)[i]", x=(M,), i=((3,), ROW, I32)),
    case("index_two_arrays", "jnp.asarray(x)[i, j]", x=(M,), i=((3,), ROW, I32), j=((3,), COLUMN, I32)),
    case("index_columns", "jnp.asarray(x)[:, i]", x=(M,), i=((3,), COLUMN, I32)),
    case("index_scalar_and_slice", "jnp.asarray(x)[i, 1:]", x=(M,), i=((), ROW, I32)),
    case("at_set", "jnp.asarray(x).at[i].set(u)", x=(M,), i=((1,), ROW, I32), u=((1, 4),)),  # one row: no repeats
    case("at_add", "jnp.asarray(x).at[i].add(u)", x=(M,), i=((3,), ROW, I32), u=((3, 4),)),
    case("at_add_scalar", "jnp.asarray(x).at[i, j].add(u)", x=(M,), i=((3,), ROW, I32), j=((3,), COLUMN, I32),
         u=((),)),  # fmt: skip
    case("at_mul", "jnp.asarray(x).at[i].mul(u)", x=(M,), i=((3,), ROW, I32), u=((3, 4),)),
    case("at_min", "jnp.asarray(x).at[:, i].min(u)", x=(M,), i=((3,), COLUMN, I32), u=((2, 3),)),
    case("at_max", "jnp.asarray(x).at[i].max(u)", x=(M,), i=((3,), ROW, I32), u=((3, 4),)),
]  # fmt: skip


def _namespace(impl: Impl) -> dict[str, Any]:
    return {"lax": impl.lax, "jnp": impl.numpy, "np": np, "jax": Namespace(impl.module, "jax"),
            "random": Namespace(getattr(impl.module, "random", None), "jax.random")}  # fmt: skip


def _compile(source: str, impl: Impl) -> Callable[..., Any]:
    scope = _namespace(impl)
    exec(compile(source, "<vmap case>", "exec"), scope)  # the table's own text
    return scope["f"]


def _vmap(impl: Impl) -> Callable[..., Any]:
    return _namespace(impl)["jax"].vmap


def _args_text(names: Any) -> str:
    return ", ".join(names)


def check_vmap(impl: Impl, source: str, values: dict[str, Any], in_axes: Any, out_axes: Any = 0,
               data: st.DataObject | None = None, exact: bool = False) -> None:  # fmt: skip
    """``vmap(f, in_axes, out_axes)(*values)`` against the loop; with ``data``, out_axes is drawn (a
    prefix of the output's tree, any position of each output's batch axis)."""
    f = _compile(source, impl)
    args = tuple(values.values())
    show_call(f"{source}\nloop(f, ({_args_text(values)},), {in_axes!r})  # the loop's results", **values)
    outs = slices(f, args, in_axes)
    if data is not None:
        full = tree_map(lambda r: None if r is None else data.draw(batch_axes(r), label="out axis"), out_ranks(outs[0]))
        out_axes = data.draw(prefixes(full), label="out_axes")
    names = _args_text(values)
    show_call(f"{source}\njax.vmap(f, in_axes={in_axes!r}, out_axes={out_axes!r})({names}), "
              f"loop(f, ({names},), {in_axes!r}, {out_axes!r})  # got, and the loop's", **values)  # fmt: skip
    got = _vmap(impl)(f, in_axes=in_axes, out_axes=out_axes)(*args)
    assert_batched(got, outs, out_axes, asarray=impl.numpy.asarray, exact=exact)


def _draw_batched(data: st.DataObject, arg: Arg, axis: int | None, name: str) -> np.ndarray:
    shape = arg.shape if axis is None else insert_axis(arg.shape, axis, B)
    return data.draw(S.arrays(arg.dtype, shape, arg.domain), label=name)


# JAX compiles every new batched shape (20-100 ms each), and each example of the table brings new ones:
# a fifth of the profile's examples (5 in the ci profile, 1 in ci-reference, 200 in full) keep the
# table at about 25 s against JAX; the pattern sweep below covers the patterns deterministically.
TABLE_SETTINGS = settings(max_examples=max(1, settings().max_examples // 5))


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_primitive_vmap_matches_the_loop(impl: Impl, c: Case, data: st.DataObject) -> None:
    """Drawn: which arguments are batched (one at least), where (any axis, negative too), where the
    batch axis of each output goes; in_axes written as a tuple, a list, or one int where all agree."""
    names = list(c.args)
    batched = {n: data.draw(st.booleans(), label=f"{n} batched") for n in names}
    if not any(batched.values()):
        batched[data.draw(st.sampled_from(names), label="batched")] = True
    axes = {n: data.draw(batch_axes(len(c.args[n].shape)).filter(lambda a, n=n: c.args[n].last or a not in
                                                                 (-1, len(c.args[n].shape))), label=f"{n} axis")
            if batched[n] else None for n in names}  # fmt: skip
    values = {n: _draw_batched(data, c.args[n], axes[n], n) for n in names}
    in_axes: Any = tuple(axes.values())
    form = data.draw(st.sampled_from(["tuple", "list", "one"]), label="in_axes form")
    if form == "list":
        in_axes = list(in_axes)
    elif form == "one" and len(set(in_axes)) == 1:
        in_axes = in_axes[0]
    check_vmap(impl, c.source, values, in_axes, data=data, exact=c.exact)


def _fixed(arg: Arg, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Values in the argument's domain, from a fixed generator (no hypothesis: a sweep)."""
    d = arg.domain
    x = rng.uniform(d.low, d.high, shape)
    if d.grid:
        x = np.round(x / d.grid) * d.grid
    if d.min_abs:
        x = np.where(np.abs(x) < d.min_abs, np.copysign(d.min_abs, x), x)
    if arg.dtype.kind in "biu":
        x = np.round(x)
    if arg.dtype.kind == "c":
        x = x + 1j * rng.uniform(d.low, d.high, shape)
    return x.astype(arg.dtype)


@pytest.mark.parametrize("c", [c for c in CASES if c.sweep and len(c.args) > 1], ids=lambda c: c.name)
def test_every_batched_and_unbatched_pattern(impl: Impl, c: Case) -> None:
    """Each non-empty set of the case's arguments batched (along axis 0, out_axes 0), the others None."""
    rng = np.random.default_rng(7)
    names = list(c.args)
    for pattern in itertools.product([0, None], repeat=len(names)):
        if all(p is None for p in pattern):
            continue
        values = {n: _fixed(c.args[n], c.args[n].shape if p is None else (B, *c.args[n].shape), rng)
                  for n, p in zip(names, pattern)}  # fmt: skip
        check_vmap(impl, c.source, values, pattern, exact=c.exact)


# --- random bits: the loop over the keys, bit for bit --------------------------------------------------

# (id, f, in_axes, out_axes): keys made by random.split(random.PRNGKey(42), 5)
RANDOM = [
    ("normal", "f = lambda k: random.normal(k, (3,))", (0,), 0),
    ("uniform", "f = lambda k: random.uniform(k, (2, 2), minval=-1.0, maxval=2.0)", (0,), -1),
    ("randint", "f = lambda k: random.randint(k, (4,), 0, 10)", (0,), 1),
    ("bits", "f = lambda k: random.bits(k, (2,))", (0,), 0),
    ("split", "f = random.split", (0,), 0),
    ("split_in_3", "f = lambda k: random.split(k, 3)", (0,), -2),
    ("fold_in", "f = random.fold_in", (None, 0), 0),
    ("fold_in_both", "f = random.fold_in", (0, 0), 1),
    ("permutation", "f = lambda k, x: random.permutation(k, x)", (0, None), 0),
    ("keys_on_axis_1", "f = lambda k: random.normal(k, (2,))", (1,), -1),
]


@pytest.mark.parametrize("source, in_axes, out_axes", [r[1:] for r in RANDOM], ids=[r[0] for r in RANDOM])
def test_random_under_vmap_gives_the_loops_bits(impl: Impl, source: str, in_axes: tuple, out_axes: int) -> None:
    random = _namespace(impl)["random"]
    keys = np.asarray(random.split(random.PRNGKey(42), 5))
    if in_axes[0] == 1:
        keys = keys.T
    values: dict[str, Any] = {"keys": keys}
    if len(in_axes) == 2:
        second = np.arange(5, dtype=np.uint32) * 3 if in_axes[1] == 0 else np.arange(4.0, dtype=np.float32)
        if in_axes == (None, 0):  # fold_in(key, data): one key, the data mapped
            values = {"key": np.asarray(random.PRNGKey(7)), "data": second}
        else:
            values["second"] = second
    check_vmap(impl, source, values, in_axes, out_axes, exact=True)


# --- random programs, with drawn in_axes and out_axes as prefix trees ------------------------------------


@st.composite
def batched_program(draw: st.DrawFn, size: int = B) -> tuple[Program, Any, Any]:
    """A random program (programs.py), the in_axes of its one argument ``p`` (a drawn prefix of the
    per-leaf axes, None for unbatched leaves) and ``p`` batched accordingly."""
    program = draw(programs(min_steps=3, max_steps=6))
    full = map_leaves(lambda k, leaf: draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))), label=f"leaf {k} axis"),
                      program.inputs)  # fmt: skip
    if not leaves(full):  # nothing batched (None leaves are no leaves): batch the first on axis 0
        full = map_leaves(lambda k, leaf: 0 if k == 0 else None, program.inputs)
    inputs = _batched_like(draw, program.inputs, full, size)
    return program, draw(prefixes(full), label="in_axes of p"), inputs


def _batched_like(draw: st.DrawFn, tree: Any, axes: Any, size: int) -> Any:
    def one(leaf: Any, ax: int | None) -> Any:
        shape = np.shape(leaf) if ax is None else insert_axis(np.shape(leaf), ax, size)
        return draw(S.arrays(F64, shape, INPUT_DOMAIN), label="batched leaf")

    return tree_map(one, tree, axes)


@given(data=st.data(), drawn=batched_program())
def test_random_program_vmap_matches_the_loop(impl: Impl, flags, data: st.DataObject,
                                              drawn: tuple[Program, Any, Any]) -> None:  # fmt: skip
    flags("jax_enable_x64", True)
    program, in_axes, p = drawn
    form = data.draw(st.sampled_from(["tuple", "bare"]), label="in_axes form")
    spec = (in_axes,) if form == "tuple" or not isinstance(in_axes, (int, type(None))) else in_axes
    if spec is None:
        spec = (None,)
    check_vmap(impl, program.source.rstrip(), {"p": p}, spec, data=data)
