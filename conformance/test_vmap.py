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
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.batching import assert_batched, loop, out_ranks, slices, stack  # noqa: F401 (loop: in reproducers)
from conformance.checks import assert_dtype, assert_values, release_detail, show_call
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


def binary(
    name: str, dx: Domain = ANY, dy: Domain = ANY, dtype: np.dtype = F32, body: str | None = None
) -> Case:
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
    unary("real", dtype=C64), unary("abs_complex", body="lax.abs(x)", dtype=C64), unary("conj", dtype=C64),
    unary("conj_of_a_real", body="lax.conj(x)"), binary("complex"),
    # --- elementwise: binary, and operands of rank 0 that lax broadcasts --------------------------------
    binary("add"), binary("sub"), binary("mul"), binary("div", dy=AWAY_FROM_0),
    binary("div_int", INTS, Domain(-7, 7, min_abs=1), I32, "lax.div(x, y)"),
    binary("rem", dy=AWAY_FROM_0), binary("rem_int", INTS, Domain(-7, 7, min_abs=1), I32, "lax.rem(x, y)"),
    binary("pow", POSITIVE, Domain(-2, 2)),
    case("pow_integer_exponent", "lax.pow(x, y)", x=(M, AWAY_FROM_0), y=(M, Domain(-3, 3), I32)),
    binary("max", TIES, TIES), binary("min", TIES, TIES), binary("atan2", dy=AWAY_FROM_0), binary("nextafter"),
    binary("igamma", POSITIVE, POSITIVE), binary("igammac", POSITIVE, POSITIVE),
    binary("igamma_grad_a", POSITIVE, POSITIVE), binary("random_gamma_grad", POSITIVE, POSITIVE),
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
    # --- convolution: the vmap axis folds into the batch, the features or the groups --------------------
    case("conv_same", "lax.conv_general_dilated(x, w, (1,), 'SAME')", x=((2, 2, 5),), w=((3, 2, 2),)),
    case("conv_feature_groups", "lax.conv_general_dilated(x, w, (2, 1), [(1, 0), (0, 1)], feature_group_count=2)",
         x=((1, 4, 4, 3),), w=((2, 2, 2, 2),)),  # fmt: skip
    case("conv_batch_groups", "lax.conv_general_dilated(x, w, (1,), [(1, -1)], lhs_dilation=(2,), batch_group_count=2)",
         x=((2, 2, 4),), w=((2, 2, 2),)),  # fmt: skip
    case("conv_channels_last", "lax.conv_general_dilated(x, w, (1, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', "
         "'CNHW'))", x=((1, 3, 4, 2),), w=((2, 2, 2, 3),)),  # fmt: skip
    # --- windowed reductions: a window of one on the batch axis -------------------------------------------
    case("reduce_window_sum", "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), 'SAME', (2, 1), (1, 2))", x=(M,)),
    case("reduce_window_product", "lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 2), 'SAME', (2, 1), (1, 2))",
         x=(M,)),  # fmt: skip
    case("reduce_window_max", "lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1), [(1, 0), (0, -1)])", x=(M,)),
    case("reduce_window_min", "lax.reduce_window(x, np.inf, lax.min, (1, 2), (1, 1), 'VALID')", x=(M,)),
    # --- linear algebra: the batch axis goes first; batched right-hand sides alone fold into more of them -
    case("cholesky", "lax.linalg.cholesky(x @ x.T + 4 * np.eye(3, dtype=np.float32))", x=((3, 3),)),
    # (elementwise, so that the batch axis stays where vmap put it, the last axis too; positive definite
    # from its lower triangle: a diagonal of 4 and more, entries below it of 0.9 at most)
    case("cholesky_of_a_lower_triangle", "lax.linalg.cholesky(0.1 * x * x + 4 * np.eye(3, dtype=np.float32), "
         "symmetrize_input=False)", x=((3, 3),)),  # fmt: skip
    case("triangular_solve_left", "lax.linalg.triangular_solve(0.2 * a + 2 * np.eye(3, dtype=np.float32), b, "
         "left_side=True, lower=True)", a=((3, 3),), b=((3, 2),)),  # fmt: skip
    case("triangular_solve_right_transposed", "lax.linalg.triangular_solve(0.2 * a + 2 * np.eye(3, dtype=np.float32), "
         "b, transpose_a=True)", a=((3, 3),), b=((2, 3),)),  # fmt: skip
    case("lu", "lax.linalg.lu(x)", x=((3, 3),)), case("lu_wide", "lax.linalg.lu(x)", x=((2, 3),)),
    case("lu_pivots_to_permutation", "lax.linalg.lu_pivots_to_permutation(lax.linalg.lu(x)[1], 4)", x=((3, 2),)),
    case("solve", "jnp.linalg.solve(0.2 * a + 2 * np.eye(3, dtype=np.float32), b)", a=((3, 3),), b=((3, 2),)),
    case("slogdet", "tuple(jnp.linalg.slogdet(x))", x=((4, 4),)),
    case("eigh", "lax.linalg.eigh(x)", x=((3, 3),)),
    case("svd", "lax.linalg.svd(x, full_matrices=False)", x=((4, 3),)),
    case("svd_values", "lax.linalg.svd(x, compute_uv=False)", x=((2, 3),)),
    case("qr", "lax.linalg.qr(x)", x=((4, 3),)), case("qr_pivoted", "lax.linalg.qr(x, pivoting=True)", x=((2, 3),)),
    # --- sorting ----------------------------------------------------------------------------------------
    case("sort", "lax.sort(x, dimension=1)", x=(M, TIES)),
    case("reduce_precision", "lax.reduce_precision(x, 5, 2)", exact=True, x=(M, Domain(-1e4, 1e4))),
    # --- the Fourier transform: the batch axis may be among the transformed ones ------------------------
    case("fft_rfft2", "jnp.fft.rfft2(x)", x=(M,)), case("fft_of_axis_0", "jnp.fft.fft(x, axis=0)", x=(M, ANY, C64)),
    case("fft_irfft", "lax.fft(x, 'irfft', (6,))", x=(M, ANY, C64)),
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


def _compile(source: str, impl: Impl, name: str = "f") -> Callable[..., Any]:
    scope = _namespace(impl)
    exec(compile(source, "<vmap case>", "exec"), scope)  # the table's own text
    return scope[name]


def _vmap(impl: Impl) -> Callable[..., Any]:
    return _namespace(impl)["jax"].vmap


def _args_text(names: Any) -> str:
    return ", ".join(names)


def check_vmap(impl: Impl, source: str, values: dict[str, Any], in_axes: Any, out_axes: Any = 0,
               data: st.DataObject | None = None, exact: bool = False, fn: str = "f") -> None:  # fmt: skip
    """``vmap(f, in_axes, out_axes)(*values)`` against the loop (``f`` is what ``source`` defines as
    ``fn``); with ``data``, out_axes is drawn (a prefix of the output's tree, any position of each
    output's batch axis)."""
    f = _compile(source, impl, fn)
    args = tuple(values.values())
    show_call(f"{source}\nloop({fn}, ({_args_text(values)},), {in_axes!r})  # the loop's results", **values)
    outs = slices(f, args, in_axes)
    if data is not None:
        full = tree_map(
            lambda r: None if r is None else data.draw(batch_axes(r), label="out axis"), out_ranks(outs[0])
        )
        out_axes = data.draw(prefixes(full), label="out_axes")
    names = _args_text(values)
    show_call(f"{source}\njax.vmap({fn}, in_axes={in_axes!r}, out_axes={out_axes!r})({names}), "
              f"loop({fn}, ({names},), {in_axes!r}, {out_axes!r})  # got, and the loop's", **values)  # fmt: skip
    got = _vmap(impl)(f, in_axes=in_axes, out_axes=out_axes)(*args)
    assert_batched(got, outs, out_axes, asarray=impl.numpy.asarray, exact=exact)


def _look_up(impl: Impl, body: str) -> None:
    """The implementation's functions that ``body`` names (a missing one raises Missing)."""
    scope = _namespace(impl)
    for module, name in re.findall(r"\b(lax|jnp|random)\.(\w+)", body):
        getattr(scope[module], name)


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
    _look_up(impl, c.body)  # a missing function: before any draw, so that hypothesis has nothing to shrink
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
    ("randint", "f = lambda k: random.randint(k, (4,), 0, 10)", (0,), -1),
    ("bits", "f = lambda k: random.bits(k, (2,))", (0,), 0),
    ("split", "f = random.split", (0,), -2),
    ("fold_in", "f = random.fold_in", (None, 0), 0),
    ("fold_in_both", "f = random.fold_in", (0, 0), 1),
    ("keys_on_axis_1", "f = lambda k: random.normal(k, (3,))", (1,), 1),
]


@pytest.mark.parametrize("source, in_axes, out_axes", [r[1:] for r in RANDOM], ids=[r[0] for r in RANDOM])
def test_random_under_vmap_gives_the_loops_bits(
    impl: Impl, source: str, in_axes: tuple, out_axes: int
) -> None:
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


# --- gamma's rejection sampler: random_gamma's batching rule -----------------------------------------
# random_gamma is a primitive (as in JAX): its batching rule moves the keys' and a's batch axes to the
# front (broadcasting an unmapped one) and binds it again; its evaluation runs the loops per element.

# (id, f, its arguments but the keys): keys made by random.split(random.PRNGKey(42), 5)
GAMMA_FAMILY = [
    ("gamma", "f = lambda k: random.gamma(k, np.array([0.3, 1.0, 2.5, 9.0], np.float32))"),
    ("gamma_of_a_mapped_shape", "f = lambda k, a: random.gamma(k, a, (2,))"),
    ("gamma_of_a_mapped_key_fixed", "f = lambda k, a: random.gamma(k, a, (2,))"),
    ("loggamma_of_a_mapped_on_axis_1", "f = lambda k, a: random.loggamma(k, a, (2,))"),
    ("loggamma", "f = lambda k: random.loggamma(k, 0.05, (3,))"),
    ("beta", "f = lambda k: random.beta(k, 2.0, 0.5, (3,))"),
    # JAX compiles the batched normalization (exp, sum, divide) differently: an ulp apart from the loop.
    ("dirichlet", "f = lambda k: random.dirichlet(k, np.array([0.5, 1.0, 3.0], np.float32))"),
]
EXACT_BITS = {"gamma", "gamma_of_a_mapped_shape", "gamma_of_a_mapped_key_fixed", "loggamma_of_a_mapped_on_axis_1",
              "loggamma", "beta"}  # fmt: skip


@pytest.mark.parametrize("name, source", GAMMA_FAMILY, ids=[g[0] for g in GAMMA_FAMILY])
def test_gamma_family_under_vmap_gives_the_loops_bits(impl: Impl, name: str, source: str) -> None:
    """Marsaglia and Tsang's rejection sampler loops until a candidate is accepted, a number of times
    each key decides: batched, each key's sample is the one it gives alone (over the keys, over a
    with one key, over both, with a batched on another axis)."""
    _look_up(impl, source)
    random = _namespace(impl)["random"]
    keys = np.asarray(random.split(random.PRNGKey(42), 5))
    alphas = np.array([0.2, 0.7, 1.0, 3.0, 12.0], np.float32)
    values: dict[str, Any] = {"keys": keys}
    in_axes: tuple = (0,)
    if name == "gamma_of_a_mapped_key_fixed":
        values, in_axes = {"key": keys[0], "a": alphas}, (None, 0)
    elif name == "loggamma_of_a_mapped_on_axis_1":
        values["a"], in_axes = np.stack([alphas, alphas[::-1] + 0.5]), (0, 1)
    elif "k, a" in source:
        values["a"], in_axes = alphas, (0, 0)
    check_vmap(impl, source, values, in_axes, exact=name in EXACT_BITS)


@pytest.mark.requires("jvp")
def test_jvp_of_gamma_in_a_under_vmap_gives_the_loops_tangents(impl: Impl) -> None:
    """random_gamma's JVP rule under vmap: its tangent, random_gamma_grad of the batched samples."""
    source = "f = lambda k, a: jax.jvp(lambda b: random.gamma(k, b, (2,)), (a,), (np.float32(1.0),))"
    _look_up(impl, source)
    random = _namespace(impl)["random"]
    values = {"keys": np.asarray(random.split(random.PRNGKey(3), 4)), "a": np.array([0.4, 1.0, 2.5, 8.0], np.float32)}
    check_vmap(impl, source, values, (0, 0))


# --- what needs staged control flow: x.at[].apply -------------------------------------------------------
# In didax this works under vmap from stage 04 on (scatter's update_jaxpr): requires jaxpr.

# (id, f, in_axes): repeated indices, so that f is applied more than once
AT_APPLY = [
    ("operand", "f = lambda x: jnp.asarray(x).at[np.array([0, 2, 0, 0])].apply(lambda v: v * 2.0 + 1.0)", (0,)),
    ("indices", "f = lambda x, i: jnp.asarray(x).at[i].apply(lambda v: v * 2.0 + 1.0)", (None, 0)),
    ("both", "f = lambda x, i: jnp.asarray(x).at[i].apply(jnp.sin)", (1, 0)),
    ("window", "f = lambda x, i: jnp.asarray(x).at[i].apply(lambda v: v - 1.0, mode='clip')", (0, 0)),
]


@pytest.mark.requires("jaxpr")
@pytest.mark.parametrize("source, in_axes", [a[1:] for a in AT_APPLY], ids=[a[0] for a in AT_APPLY])
def test_at_apply_under_vmap_matches_the_loop(impl: Impl, source: str, in_axes: tuple) -> None:
    """x.at[i].apply(f) is a scatter applying f once per index (its update_jaxpr), batched here
    over the operand, the indices or both."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-2, 2, (B, 5) if in_axes[0] == 0 else (5, B) if in_axes[0] == 1 else (5,)).astype(np.float32)
    values: dict[str, Any] = {"x": x}
    if len(in_axes) == 2:
        rows = [[1, 1, 3], [0, 4, 0], [2, 2, 2]] if "window" not in source else [[0, 0], [1, 7], [3, 3]]
        values["i"] = np.array(rows, np.int32)
        if "window" in source:
            values["x"] = rng.uniform(-2, 2, (B, 5, 2)).astype(np.float32)
    check_vmap(impl, source, values, in_axes)


# Typed keys (random.key, dtype key<fry>) under vmap: each function takes the words of its key and
# wraps them (random.wrap_key_data), so the loop and vmap meet uint32 arrays at the border while
# inside vmap batches typed keys: the random primitives on them, and structural operations.
TYPED = [
    ("normal", "f = lambda w: random.normal(random.wrap_key_data(w), (3,))", (0,), 0),
    ("split", "f = lambda w: random.key_data(random.split(random.wrap_key_data(w), 3))", (0,), 1),
    ("bits", "f = lambda w: random.bits(random.wrap_key_data(w), (2,), np.uint8)", (0,), 0),
    ("fold_in", "f = lambda w, d: random.key_data(random.fold_in(random.wrap_key_data(w), d))", (0, 0), 0),
    ("fold_in_one_key", "f = lambda w, d: random.key_data(random.fold_in(random.wrap_key_data(w), d))", (None, 0), 0),
    ("words_on_axis_1", "f = lambda w: random.uniform(random.wrap_key_data(w), (2,))", (1,), 0),
    ("structure", "def f(w):\n    k = random.wrap_key_data(w)\n    ks = random.split(k, 4).reshape(2, 2).T\n"
                  "    return random.key_data(jnp.where(jnp.array([True, False]), ks[1], jnp.stack([k, ks[0, 1]])))",
     (0,), 0),
    ("keys_on_axis_1", "f = lambda w: random.key_data(random.wrap_key_data(w)[::-1])", (1,), 2),
    ("nested", "f = lambda w: jax.vmap(lambda k: random.normal(k, (2,)))(random.wrap_key_data(w))", (1,), 1),
]


@pytest.mark.parametrize("name, source, in_axes, out_axes", TYPED, ids=[r[0] for r in TYPED])
def test_typed_keys_under_vmap_give_the_loops_bits(impl: Impl, name: str, source: str, in_axes: tuple,
                                                   out_axes: int) -> None:  # fmt: skip
    random = _namespace(impl)["random"]
    words = np.asarray(random.key_data(random.split(random.key(42), 5)))  # (5, 2): five keys' words
    if name == "words_on_axis_1":  # the batch after the words' own axis
        words = words.T
    elif in_axes[0] == 1:  # two keys per example, the batch between them and their words
        words = np.stack([words, words[::-1]])
    values: dict[str, Any] = {"w": words if in_axes[0] is not None else words[0]}
    if len(in_axes) == 2:
        values["d"] = np.arange(5, dtype=np.uint32) * 7
    check_vmap(impl, source, values, in_axes, out_axes, exact=True)


@pytest.mark.parametrize("name", ["normal", "split", "bits", "key_data"])
def test_typed_keys_batched_on_their_second_axis(impl: Impl, name: str) -> None:
    """Typed keys given to vmap directly, mapped along their second axis (the loop indexes them)."""
    random = _namespace(impl)["random"]
    f = {"normal": lambda k: random.normal(k, (3,)), "split": lambda k: random.key_data(random.split(k)),
         "bits": lambda k: random.bits(k, (2,)), "key_data": random.key_data}[name]  # fmt: skip
    keys = random.split(random.key(3), (2, 4))
    show_call(f"keys = jax.random.split(jax.random.key(3), (2, 4))\njax.vmap(jax.vmap(f), in_axes=1)(keys)  # {name}")
    got = np.asarray(_vmap(impl)(_vmap(impl)(f), in_axes=1)(keys))
    want = np.stack([np.stack([np.asarray(f(keys[i, j])) for i in range(2)]) for j in range(4)])
    assert got.dtype == want.dtype and np.array_equal(got, want)


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


# Every operation of a program compiles anew in JAX: half the profile's examples (12 in ci, 2 in ci-reference).
@settings(max_examples=max(2, settings().max_examples // 2))
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


# --- API: in_axes and out_axes as JAX reads them ------------------------------------------------------

X = np.arange(6.0, dtype=np.float32).reshape(3, 2) - 2.5  # batched along 0: three rows of 2
XT = np.ascontiguousarray(X.T)  # the same batch along axis 1
Y = np.array([0.5, -1.5], np.float32)  # unbatched
N = np.array([1, 2, 3], np.int32)

# (id, f, args (as the program names them), in_axes, out_axes)
API_CASES = [
    ("in_axes_int_for_every_argument", "f = lambda a, b: a * b", dict(a=X, b=X), 0, 0),
    ("in_axes_1_for_every_argument", "f = lambda a, b: a - b", dict(a=XT, b=XT), 1, 0),
    ("in_axes_negative", "f = lambda a, b: a - b", dict(a=XT, b=X), (-1, -2), 0),
    ("in_axes_none_for_one_argument", "f = lambda a, b: a * b", dict(a=X, b=Y), (0, None), 0),
    ("in_axes_none_first", "f = lambda a, b: a * b", dict(a=Y, b=XT), (None, 1), 0),
    ("in_axes_a_list_at_the_top", "f = lambda a, b: a + b", dict(a=X, b=Y), [0, None], 0),  # JAX: as a tuple
    ("in_axes_dict_prefix", "f = lambda d: d['u'] * d['v']", dict(d={"u": X, "v": Y}), ({"u": 0, "v": None},), 0),
    ("in_axes_one_for_a_whole_dict", "f = lambda d: d['u'] - d['v']", dict(d={"u": X, "v": X}), (0,), 0),
    ("in_axes_list_inside", "f = lambda l: l[0] * l[1]", dict(l=[XT, Y]), ([1, None],), 0),
    ("in_axes_nested", "f = lambda t, s: t[0] + t[1]['w'] * s", dict(t=(X, {"w": XT}), s=Y), ((0, {"w": 1}), None), 0),
    ("in_axes_none_leaf_in_args", "f = lambda a, n: a if n is None else n", dict(a=X, n=None), (0, None), 0),
    ("out_axes_1", "f = lambda a: a * 2.0", dict(a=X), 0, 1),
    ("out_axes_negative", "f = lambda a: lax.broadcast_in_dim(a, (2, 2), (0,))", dict(a=X), 0, -2),
    ("out_axes_per_output", "f = lambda a: (a, a[0], {'s': a + 1.0})", dict(a=X), 0, (1, 0, {"s": -1})),
    ("out_axes_one_for_a_dict", "f = lambda a: {'p': a, 'q': a * a}", dict(a=X), 0, ({"p": 1, "q": 1},)[0]),
    ("out_axes_none_for_an_unbatched_output", "f = lambda a, b: (a * b, b + 1.0)", dict(a=X, b=Y), (0, None),
     (0, None)),
    ("out_axes_none_for_a_constant", "f = lambda a: (a, jnp.ones(2))", dict(a=X), 0, (1, None)),
    ("a_constant_output_is_broadcast", "f = lambda a: jnp.ones(2)", dict(a=X), 0, 0),
    ("a_python_scalar_output_is_broadcast", "f = lambda a: (a, 3, 1.5)", dict(a=X), 0, 0),
    ("an_unbatched_argument_output_is_broadcast", "f = lambda a, b: (a, b)", dict(a=X, b=Y), (0, None), 1),
    ("a_none_output_leaf", "f = lambda a: (a, None)", dict(a=X), 0, 0),
    ("non_array_arguments_unmapped", "f = lambda a, s, t: a * s if t == 'scale' else a",
     dict(a=X, s=2.5, t="scale"), (0, None, None), 0),
    ("integer_arguments", "f = lambda i, a: a * i", dict(i=N, a=X), (0, 0), 0),
]  # fmt: skip


@pytest.mark.parametrize("source, values, in_axes, out_axes", [c[1:] for c in API_CASES],
                         ids=[c[0] for c in API_CASES])  # fmt: skip
def test_in_axes_and_out_axes_as_jax_reads_them(impl: Impl, source: str, values: dict, in_axes: Any,
                                                out_axes: Any) -> None:  # fmt: skip
    check_vmap(impl, source, values, in_axes, out_axes)


def test_axis_size_when_nothing_is_mapped(impl: Impl) -> None:
    """With every argument unmapped, ``axis_size`` says how many copies: each output is broadcast."""
    source = "f = lambda b: (b * 2.0, 1.0)"
    show_call(f"{source}\njax.vmap(f, in_axes=None, axis_size=4)(y)", y=Y)
    got = _vmap(impl)(_compile(source, impl), in_axes=None, axis_size=4)(Y)
    assert_batched(got, slices(_compile(source, impl), (Y,), None, size=4), asarray=impl.numpy.asarray)
    show_call(
        f"{source}\njax.vmap(f, in_axes=(0,), axis_size=3)(x)  # axis_size agrees with the mapped axis", x=X
    )
    got = _vmap(impl)(_compile(source, impl), in_axes=(0,), axis_size=3)(X)
    assert_batched(got, slices(_compile(source, impl), (X,), (0,)), asarray=impl.numpy.asarray)


def test_keyword_arguments_are_mapped_along_axis_0(impl: Impl) -> None:
    """JAX maps every keyword argument along axis 0, whatever in_axes says of the positional ones."""
    source = "f = lambda a, b=None: a * b"
    for in_axes, a in ((0, X), (None, Y), ((None,), Y)):
        show_call(f"{source}\njax.vmap(f, in_axes={in_axes!r})(a, b=x)", a=a, x=X)
        got = _vmap(impl)(_compile(source, impl), in_axes=in_axes)(a, b=X)
        assert_batched(got, slices(_compile(source, impl), (a,), in_axes, kwargs={"b": X}),
                       asarray=impl.numpy.asarray)  # fmt: skip


def test_a_function_of_keyword_arguments_alone(impl: Impl) -> None:
    source = "f = lambda b=None: b * 2.0"
    show_call(f"{source}\njax.vmap(f)(b=x)", x=X)
    got = _vmap(impl)(_compile(source, impl))(b=X)
    assert_batched(got, slices(_compile(source, impl), (), 0, kwargs={"b": X}), asarray=impl.numpy.asarray)


# (x's inner in_axes, the inner out_axes, the outer out_axes, x's shape): x is batched along axis 1 for the
# outer vmap (3) and then along the inner axis (4) unless None; y along 0 (3), then 0 (4), leaving (2,).
NESTED = [(0, 0, 0, (4, 3, 2)), (1, 0, 1, (2, 3, 4)), (None, 1, -1, (2, 3)), (-1, -1, 2, (2, 3, 4))]


@pytest.mark.parametrize(
    "i, o, p, shape", NESTED, ids=[f"inner_{i}_out_{o}_outer_out_{p}" for i, o, p, _ in NESTED]
)
def test_nested_vmap_with_different_axes(impl: Impl, i: int | None, o: int, p: int, shape: tuple) -> None:
    """vmap(vmap(f, in_axes=(i, 0), out_axes=o), in_axes=(1, 0), out_axes=p) against a loop of loops."""
    x = (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 5) / 7
    y = np.linspace(-1, 1, 3 * 4 * 2, dtype=np.float32).reshape(3, 4, 2)
    source = (f"f = lambda x, y: lax.mul(lax.sin(x), y)\ng = jax.vmap(jax.vmap(f, in_axes=({i!r}, 0), out_axes={o!r}), "
              f"in_axes=(1, 0), out_axes={p!r})")  # fmt: skip
    show_call(f"{source}\ng(x, y)", x=x, y=y)
    scope = _namespace(impl)
    exec(compile(source, "<vmap case>", "exec"), scope)
    got = scope["g"](x, y)
    outs = slices(lambda a, b: stack(slices(scope["f"], (a, b), (i, 0)), o), (x, y), (1, 0))
    assert_batched(got, outs, p, asarray=impl.numpy.asarray)


# --- misuse: JAX's errors, and the next call still works ----------------------------------------------

SIZES = "vmap got inconsistent sizes for array axes to be mapped"
# (id, f, args, vmap's keywords, kwargs of the call, the exception JAX raises, words of its message)
MISUSES = [
    ("inconsistent_sizes", "f = lambda a, b: a + b", (X, Y), {}, {}, ValueError, (SIZES, "size 3", "size 2")),
    ("inconsistent_with_axis_size", "f = lambda a: a", (X,), dict(axis_size=4), {}, ValueError, (SIZES,)),
    ("inconsistent_keyword_argument", "f = lambda a, b=None: a", (X,), {}, dict(b=Y), ValueError, (SIZES,)),
    ("in_axes_beyond_the_rank", "f = lambda a: a", (X,), dict(in_axes=2), {}, ValueError, ()),
    ("in_axes_below_the_rank", "f = lambda a: a", (X,), dict(in_axes=-3), {}, ValueError, ()),
    ("mapping_a_scalar", "f = lambda a: a", (np.float32(1.0),), {}, {}, ValueError, ()),
    ("mapping_a_python_float", "f = lambda a, s: a * s", (X, 2.0), {}, {}, ValueError, ()),
    ("in_axes_longer_than_the_arguments", "f = lambda a, b: a", (X, X), dict(in_axes=(0, 0, 0)), {}, ValueError,
     ()),
    ("in_axes_dict_keys_differ", "f = lambda d: d['k']", ({"k": X},), dict(in_axes=({"q": 0},)), {}, ValueError,
     ()),
    ("in_axes_tuple_for_a_list", "f = lambda l: l[0]", ([X, Y],), dict(in_axes=((0, None),)), {}, ValueError,
     ()),
    ("nothing_mapped_and_no_axis_size", "f = lambda a: a", (X,), dict(in_axes=None), {}, ValueError,
     ("axis_size",)),
    ("no_arguments_and_no_axis_size", "f = lambda: 1.0", (), {}, {}, ValueError, ("axis_size",)),
    ("in_axes_a_float", "f = lambda a: a", (X,), dict(in_axes=1.5), {}, TypeError, ()),
    ("in_axes_a_string", "f = lambda a: a", (X,), dict(in_axes="0"), {}, TypeError, ()),
    ("in_axes_a_dict_at_the_top", "f = lambda a: a", (X,), dict(in_axes={"a": 0}), {}, TypeError, ()),
    ("in_axes_leaf_a_float", "f = lambda a: a", (X,), dict(in_axes=(1.0,)), {}, TypeError, ()),
    ("out_axes_none_for_a_batched_output", "f = lambda a: a", (X,), dict(out_axes=None), {}, ValueError,
     ("out_axes",)),
    ("out_axes_beyond_the_rank", "f = lambda a: a", (X,), dict(out_axes=2), {}, ValueError, ()),
    ("out_axes_not_a_prefix", "f = lambda a: a", (X,), dict(out_axes=(0, 0)), {}, ValueError, ()),
    ("a_string_output", "f = lambda a: (a, 'text')", (X,), {}, {}, TypeError, ()),
]  # fmt: skip


@pytest.mark.parametrize("source, args, options, kwargs, error, words", [m[1:] for m in MISUSES],
                         ids=[m[0] for m in MISUSES])  # fmt: skip
def test_misuse_raises_jax_errors(impl: Impl, source: str, args: tuple, options: dict, kwargs: dict,
                                  error: type[Exception], words: tuple[str, ...]) -> None:  # fmt: skip
    names = [f"a{k}" for k in range(len(args))] + [f"{k}={k}" for k in kwargs]
    options_text = ", ".join(f"{k}={v!r}" for k, v in options.items())
    show_call(f"{source}\njax.vmap(f{', ' if options else ''}{options_text})({', '.join(names)})",
              **dict(zip(names, args)), **kwargs)  # fmt: skip
    with pytest.raises(error) as raised:
        _vmap(impl)(_compile(source, impl), **options)(*args, **kwargs)
    show_call("jax.vmap(jnp.sin)(x)  # a failed vmap leaves nothing behind", x=X)
    got = _vmap(impl)(impl.numpy.sin)(X)
    assert_values(got, np.sin(X.astype(np.float64)), F32)
    # The wording is JAX 0.10.2's; JAX 0.4's differs (it names no `axis_size`, for one).
    unsaid = [word for word in words if word not in str(raised.value)]
    release_detail(not unsaid, f"{unsaid} not in the message: {raised.value}")


# --- jacfwd: vmap of jvp, against finite differences ------------------------------------------------------

R = np.random.default_rng(3)
W23, V3, V2, M22 = R.normal(size=(2, 3)), R.normal(size=3), R.normal(size=2), R.normal(size=(2, 2))

# (id, f, args, argnums)
JACOBIANS = [
    ("sin_of_a_vector", "f = lambda x: jnp.sin(x)", dict(x=V3), 0),
    ("matrix_times_vector", "f = lambda w, x: jnp.tanh(jnp.dot(w, x))", dict(w=W23, x=V3), 0),
    ("argnums_tuple", "f = lambda w, x: jnp.tanh(jnp.dot(w, x))", dict(w=W23, x=V3), (0, 1)),
    ("argnums_negative", "f = lambda w, x: jnp.sin(w[0] * x)", dict(w=W23, x=V3), -1),
    ("scalar_output", "f = lambda x: jnp.sum(x * x) * jnp.prod(jnp.cos(x))", dict(x=V3), 0),
    ("scalar_input", "f = lambda s, x: jnp.sin(s * x)", dict(s=np.float64(0.7), x=V3), 0),
    ("pytree_input", "f = lambda p: p['a'] * jnp.sum(p['b'])", dict(p={"b": M22, "a": V2}), 0),
    ("pytree_output", "f = lambda x: {'s': jnp.sin(x), 'pair': (x[0] * x[1], jnp.cumsum(x))}", dict(x=V3), 0),
    ("pytrees_and_argnums_tuple", "f = lambda p, x: [p[0] * x, jnp.exp(p[1]) + x[0]]",
     dict(p=(V2, np.float64(0.3)), x=V2), (0, 1)),
    # the output stretches an axis of size 1 of the perturbed operand (lax.add broadcasts it)
    ("size_1_axis_broadcast", "f = lambda a: a.sum().reshape(1) + np.arange(4.0)", dict(a=V3), 0),
    # the derivatives of random_gamma_grad are primitives of their own in didax
    ("random_gamma_grad", "f = lambda a, x: lax.random_gamma_grad(a, x) * a",
     dict(a=np.array([0.5, 1.5, 4.0]), x=np.array([0.3, 2.0, 5.0])), (0, 1)),
]  # fmt: skip


@pytest.mark.parametrize("source, values, argnums", [j[1:] for j in JACOBIANS], ids=[j[0] for j in JACOBIANS])
def test_jacfwd_matches_finite_differences(
    impl: Impl, flags, source: str, values: dict, argnums: Any
) -> None:
    """jacfwd(f, argnums)(*args): the tree of f's output, each leaf the tree of the differentiated
    arguments (a tuple of them for a tuple of argnums), each leaf of shape out.shape + in.shape."""
    flags("jax_enable_x64", True)
    f = _compile(source, impl)
    show_call(f"{source}\njax.jacfwd(f, argnums={argnums!r})({_args_text(values)}), "
              f"numerical_jacobian(f, ({_args_text(values)},), {argnums!r})  # got, and finite differences",
              **values)  # fmt: skip
    got = _namespace(impl)["jax"].jacfwd(f, argnums=argnums)(*values.values())
    want = numerical_jacobian(f, tuple(values.values()), argnums)
    assert_jacobian(got, want)


def test_vmap_of_random_gamma_grads_derivative_in_a(impl: Impl, flags) -> None:
    """The derivative of random_gamma_grad in a, with a batched (jacfwd above batches only the
    tangents, so the derivative's own batching rule is never asked): against the loop."""
    flags("jax_enable_x64", True)
    source = "g = lambda a, x: jax.jvp(lambda a: lax.random_gamma_grad(a, x), (a,), (1.0,))"
    a, x = np.array([0.5, 1.5, 4.0]), np.array([0.3, 2.0, 5.0])
    show_call(f"{source}\njax.vmap(g)(a, x)", a=a, x=x)
    g = _compile(source, impl, "g")
    primal, tangent = _vmap(impl)(g)(a, x)
    each = [g(ai, xi) for ai, xi in zip(a, x)]
    assert_values(primal, np.stack([np.asarray(p) for p, _ in each]), F64)
    assert_values(tangent, np.stack([np.asarray(t) for _, t in each]), F64)


def assert_jacobian(got: Any, want: Any) -> None:
    assert structure(got) == structure(want), f"Jacobian tree {structure(got)}, expected {structure(want)}"
    for k, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        assert_dtype(g, F64, f"Jacobian leaf {k}", weak=None)  # a tangent's weak type: see derivatives.py
        assert np.shape(g) == w.shape, f"Jacobian leaf {k} has shape {np.shape(g)}, expected {w.shape}"
        assert_derivative(g, w, F64, f"Jacobian leaf {k}")


def test_jacfwd_keeps_the_functions_name(impl: Impl) -> None:
    """JAX's jacfwd wraps fun (its util.wraps): name, qualified name and module are fun's, and
    __wrapped__ is fun; its docstring says which arguments it differentiates."""
    show_call("def f(x):\n    return x\njax.jacfwd(f).__name__")

    def f(x: Any) -> Any:
        return x

    jac = _namespace(impl)["jax"].jacfwd(f)
    assert (jac.__name__, jac.__qualname__, jac.__module__) == (f.__name__, f.__qualname__, f.__module__)
    assert jac.__wrapped__ is f
    assert jac.__doc__.startswith("Jacobian of f with respect to positional argument(s) 0.")


def test_jacfwd_has_aux(impl: Impl, flags) -> None:
    """With has_aux, f returns (output, aux): jacfwd returns (Jacobian, aux), aux undifferentiated."""
    flags("jax_enable_x64", True)
    source = "f = lambda x: (jnp.sin(x) * x[0], {'twice': 2.0 * x, 'n': jnp.sum(x > 0)})"
    show_call(f"{source}\njax.jacfwd(f, has_aux=True)(x)", x=V3)
    f = _compile(source, impl)
    jac, aux = _namespace(impl)["jax"].jacfwd(f, has_aux=True)(V3)
    assert_jacobian(jac, numerical_jacobian(lambda x: f(x)[0], (V3,)))
    assert sorted(aux) == ["n", "twice"]
    assert_values(aux["twice"], 2.0 * V3, F64)
    assert_values(aux["n"], np.array(np.sum(V3 > 0)), np.asarray(aux["n"]).dtype)


@pytest.mark.parametrize("x64", [True, False], ids=["x64_on", "x64_off"])
def test_jacfwd_of_sin_golden_value(impl: Impl, flags, x64: bool) -> None:
    """jacfwd(jnp.sin)(jnp.arange(3.)): cos on the diagonal, and zeros with the sign of their row's
    cosine, cos(2) < 0 making row 2 all negative zeros: each column is the JVP along a unit vector,
    cos(x) * e_j, and 0 * cos(2) is -0.0. (Autodidax's jacfwd stacks the JVPs as rows instead: its
    negative zeros are in column 2.)"""
    flags("jax_enable_x64", x64)
    jax, jnp = _namespace(impl)["jax"], impl.numpy
    show_call("jax.jacfwd(jnp.sin)(jnp.arange(3.0))")
    got = jax.jacfwd(jnp.sin)(jnp.arange(3.0))
    dt = F64 if x64 else F32
    assert_dtype(got, dt, weak=None)
    want = np.array([[1.0, 0.0, 0.0], [0.0, 0.5403023058681398, 0.0], [-0.0, -0.0, -0.4161468365471424]])
    assert_values(got, want, dt)
    assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want)), (
        f"signs of zeros: {np.asarray(got)!r}"
    )


def test_jacfwd_holomorphic(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    z = np.array([0.5 + 1j, -1.0 + 0.25j, 2.0 - 0.5j])
    show_call("jax.jacfwd(jnp.sin, holomorphic=True)(z)", z=z)
    got = _namespace(impl)["jax"].jacfwd(impl.numpy.sin, holomorphic=True)(z)
    assert_dtype(got, C128, weak=None)
    assert_values(got, np.diag(np.cos(z)), C128)


C128 = np.dtype("complex128")
JACFWD_MISUSES = [
    ("integer_input", {}, np.arange(3)),
    ("complex_input_without_holomorphic", {}, np.arange(3.0) + 0j),
    ("holomorphic_with_a_real_input", {"holomorphic": True}, np.arange(3.0)),
]


@pytest.mark.parametrize("options, x", [m[1:] for m in JACFWD_MISUSES], ids=[m[0] for m in JACFWD_MISUSES])
def test_jacfwd_refuses_what_jax_refuses(impl: Impl, flags, options: dict, x: np.ndarray) -> None:
    """TypeError, as JAX: jacfwd needs float inputs, or complex ones with holomorphic=True."""
    flags("jax_enable_x64", True)
    jax = _namespace(impl)["jax"]
    show_call(f"jax.jacfwd(jnp.sin{''.join(f', {k}={v!r}' for k, v in options.items())})(x)", x=x)
    with pytest.raises(TypeError):
        jax.jacfwd(impl.numpy.sin, **options)(x)
    show_call("jax.jacfwd(jnp.sin)(x)", x=V3)
    assert_values(jax.jacfwd(impl.numpy.sin)(V3), np.diag(np.cos(V3)), F64)


# --- vmap with jvp, and with itself: random programs ------------------------------------------------------

COMPOSED_SETTINGS = settings(max_examples=max(2, settings().max_examples // 4))


def _directions(data: st.DataObject, tree: Any) -> Any:
    return random_tangents(
        tree, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    )


@COMPOSED_SETTINGS
@given(data=st.data(), drawn=batched_program())
def test_vmap_of_jvp_is_the_loop_of_jvp(impl: Impl, flags, data: st.DataObject,
                                         drawn: tuple[Program, Any, Any]) -> None:  # fmt: skip
    """vmap(lambda p, t: jvp(f, (p,), (t,)), in_axes=(a, b)): the primals batched as drawn, the
    tangents batched along their own axes (or not), against the loop of jvp."""
    flags("jax_enable_x64", True)
    program, p_axes, p = drawn
    t_full = map_leaves(lambda k, leaf: data.draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))),
                                                  label="tangent axis"), program.inputs)  # fmt: skip
    t = _directions(data, tree_map(lambda leaf, ax: np.zeros(np.shape(leaf) if ax is None else
                                                              insert_axis(np.shape(leaf), ax, B)), program.inputs,
                                   t_full))  # fmt: skip
    t_axes = data.draw(prefixes(t_full), label="tangent in_axes")
    source = program.source.rstrip() + "\ng = lambda p, t: jax.jvp(f, (p,), (t,))"
    check_vmap(impl, source, {"p": p, "t": t}, (p_axes, t_axes), data=data, fn="g")


@COMPOSED_SETTINGS
@given(data=st.data(), drawn=batched_program())
def test_jvp_of_vmap_is_the_jvp_of_the_loop(impl: Impl, flags, data: st.DataObject,
                                            drawn: tuple[Program, Any, Any]) -> None:  # fmt: skip
    """jvp(vmap(f, in_axes=(a,), out_axes=o), (p,), (t,)): the primal is the loop, the tangent the
    loop of jvp's tangents (slicing and stacking are linear)."""
    flags("jax_enable_x64", True)
    program, p_axes, p = drawn
    t = _directions(data, p)
    f = program.function(_namespace(impl))
    jax = _namespace(impl)["jax"]
    outs = slices(lambda a, b: jax.jvp(f, (a,), (b,)), (p, t), (p_axes, p_axes))
    full = tree_map(lambda r: data.draw(batch_axes(r), label="out axis"), out_ranks(outs[0][0]))
    out_axes = data.draw(prefixes(full), label="out_axes")
    show_call(f"{program.source.rstrip()}\njax.jvp(jax.vmap(f, in_axes=({p_axes!r},), out_axes={out_axes!r}), (p,), (t,))",
              p=p, t=t)  # fmt: skip
    primal, tangent = jax.jvp(jax.vmap(f, in_axes=(p_axes,), out_axes=out_axes), (p,), (t,))
    assert_batched(primal, [o[0] for o in outs], out_axes, asarray=impl.numpy.asarray)
    assert_batched(tangent, [o[1] for o in outs], out_axes, asarray=impl.numpy.asarray, weak=False)


@COMPOSED_SETTINGS
@given(data=st.data(), drawn=batched_program(size=4))
def test_vmap_of_vmap_is_the_loop_of_loops(impl: Impl, flags, data: st.DataObject,
                                           drawn: tuple[Program, Any, Any]) -> None:  # fmt: skip
    """vmap(vmap(f, in_axes=(a,), out_axes=o), in_axes=(b,), out_axes=q): p batched by 4 inside, then by
    3 outside, each along drawn axes; against the loop of loops."""
    flags("jax_enable_x64", True)
    program, inner_axes, inner_p = drawn  # batched by 4: the inner vmap's argument
    outer_full = map_leaves(lambda k, leaf: data.draw(st.one_of(st.none(), batch_axes(np.ndim(leaf))),
                                                      label="outer axis"), inner_p)  # fmt: skip
    if not leaves(outer_full):
        outer_full = map_leaves(lambda k, leaf: 0, inner_p)
    p = _batched_like(data.draw, inner_p, outer_full, B)
    outer_axes = data.draw(prefixes(outer_full), label="outer in_axes")
    f = program.function(_namespace(impl))
    inner_outs = slices(f, (inner_p,), (inner_axes,))
    full = tree_map(lambda r: data.draw(batch_axes(r), label="inner out axis"), out_ranks(inner_outs[0]))
    o = data.draw(prefixes(full), label="inner out_axes")
    outs = slices(lambda q: stack(slices(f, (q,), (inner_axes,)), o), (p,), (outer_axes,))
    full = tree_map(lambda r: data.draw(batch_axes(r), label="outer out axis"), out_ranks(outs[0]))
    q = data.draw(prefixes(full), label="outer out_axes")
    jax = _namespace(impl)["jax"]
    show_call(f"{program.source.rstrip()}\ng = jax.vmap(jax.vmap(f, in_axes=({inner_axes!r},), out_axes={o!r}), "
              f"in_axes=({outer_axes!r},), out_axes={q!r})\ng(p)", p=p)  # fmt: skip
    got = jax.vmap(jax.vmap(f, in_axes=(inner_axes,), out_axes=o), in_axes=(outer_axes,), out_axes=q)(p)
    assert_batched(got, outs, q, asarray=impl.numpy.asarray)
