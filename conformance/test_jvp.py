"""Forward-mode autodiff, ``jax.jvp``: every differentiable lax primitive and random programs against
central finite differences in float64, to first and second order (derivatives.py, after JAX's
check_jvp); float0 tangents of integers and booleans; JAX's errors for mismatched arguments;
``has_aux``; and the classic hard cases of nested differentiation: perturbation confusion, a fourth
derivative, Python control flow on primals, and a tracer that escapes its transformation.

Every primitive case is a line of the table below: the body of ``f`` as source text (what runs is what
a failure prints), its arguments' shapes and domains (away from kinks and singularities), and what
moves drawn inputs off discontinuities (ties, integer quotients) where a domain cannot.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from conformance import strategies as S
from conformance.checks import assert_dtype, assert_values, release_detail, show_call
from conformance.derivatives import check_derivatives, float0_dtype, leaves
from conformance.dtype_rules import weak_result
from conformance.impl import Impl
from conformance.missing import Namespace
from conformance.programs import Program, programs
from conformance.strategies import Domain
from conformance.test_random import _lower_gamma_one

pytestmark = [pytest.mark.area("jvp"), pytest.mark.requires("jvp")]

F64, C128, I32 = np.dtype("float64"), np.dtype("complex128"), np.dtype("int32")
V, M = (4,), (2, 3)  # the shapes of the table: few, so that JAX compiles little
UNIT = Domain(-0.8, 0.8)
CONV = "lax.conv_general_dilated"
POSITIVE = Domain(0.3, 4)
AWAY_FROM_0 = Domain(-3, 3, min_abs=0.3)
SMALL_ENTRIES = Domain(-0.3, 0.3)  # beside ones on a diagonal: a well-conditioned matrix


@dataclass(frozen=True, repr=False)
class Arg:
    shape: tuple[int, ...]
    domain: Domain = S.DEFAULT
    dtype: np.dtype = F64


@dataclass(frozen=True, repr=False)
class Case:
    """``f = lambda <args>: <body>``, with ``lax`` and ``np`` in scope."""

    name: str
    body: str
    args: dict[str, Arg]
    # Applied to the drawn arguments: moves them off the function's kinks (returns new arguments).
    fix: Callable[..., tuple] | None = None
    # The float arguments are drawn together, all different, at least 0.25 apart (no ties).
    distinct: bool = False
    order: int = 2

    def __repr__(self) -> str:
        return f"Case({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    @property
    def source(self) -> str:
        return f"f = lambda {', '.join(self.args)}: {self.body}"


def case(name: str, body: str, fix: Callable[..., tuple] | None = None, distinct: bool = False, order: int = 2,
         **args: Arg | tuple) -> Case:  # fmt: skip
    """A table line; an argument is an Arg or the tuple of its fields."""
    made = {k: a if isinstance(a, Arg) else Arg(*a) for k, a in args.items()}
    return Case(name, body, made, fix, distinct, order)


def unary(name: str, domain: Domain = S.DEFAULT, body: str | None = None, dtype: np.dtype = F64) -> Case:
    return case(name, body or f"lax.{name}(x)", x=(M, domain, dtype))


def off_integers(x: np.ndarray) -> tuple:
    """floor, ceil, round: x + 0.3 past the integer below (round's ties are at .5)."""
    return (np.floor(x) + 0.3,)


def off_integer_quotients(x: np.ndarray, y: np.ndarray) -> tuple:
    """rem: x / y halfway between two integers, where x - y * trunc(x / y) is smooth in both."""
    return (y * (np.trunc(x) + 0.5 * np.where(x < 0, -1, 1)), y)


def ordered_bounds(a: np.ndarray, x: np.ndarray, b: np.ndarray) -> tuple:
    """clamp: lo < hi, and x (distinct from both) below, between or above them."""
    return (np.minimum(a, b), x, np.maximum(a, b))


GATHER = ("lax.gather(x, i, lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
          "start_index_map=(0,)), (1, 3), mode=lax.GatherScatterMode.{mode}{fill})")  # fmt: skip
SCATTER = ("lax.{fn}(x, i, {u}, lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
           "scatter_dims_to_operand_dims=(0,)), mode=lax.GatherScatterMode.{mode}{unique})")  # fmt: skip
OPERAND, UPDATES = Arg((4, 3)), Arg((3, 3))
DUPLICATES = Arg((3, 1), Domain(0, 3), I32)  # in bounds, repeats likely
SOME_OUT = Arg((3, 1), Domain(-2, 5), I32)  # some out of bounds, on either side


def scatter(fn: str, mode: str = "FILL_OR_DROP", i: Arg = SOME_OUT, unique: bool = False, constant: bool = False,
            **kw: Any) -> Case:  # fmt: skip
    """A scatter of drawn (or constant) updates into a drawn operand, at indices ``i``."""
    u = "np.full((3, 3), 1.5)" if constant else "u"
    body = SCATTER.format(fn=fn, u=u, mode=mode, unique=", unique_indices=True" if unique else "")
    updates = {} if constant else {"u": UPDATES}
    name = f"{fn}_{mode.lower()}" + ("_constant_updates" if constant else "")
    return case(name, body, x=OPERAND, i=i, **updates, **kw)


def unique_rows(x: np.ndarray, i: np.ndarray, u: np.ndarray) -> tuple:
    """Rows 0, 1 and 2 in a drawn order (no repeats), so that scatter_mul may declare them unique."""
    return x, np.argsort(i[:, 0] + 0.01 * np.arange(3))[:, None].astype(np.int32), u


DOT = "lax.dot_general(x, y, ({}, {}))"

CASES = [
    # --- elementwise: arithmetic, with constants and complex numbers -----------------------------
    unary("neg"), unary("abs", AWAY_FROM_0), unary("square"), unary("sign", AWAY_FROM_0),
    unary("integer_pow", AWAY_FROM_0, "lax.integer_pow(x, 3)"),
    case("integer_pow_negative", "lax.integer_pow(x, -2)", x=(M, AWAY_FROM_0)),
    case("add", "lax.add(x, y)", x=(M,), y=(M,)), case("sub", "lax.sub(x, y)", x=(M,), y=(M,)),
    case("mul", "lax.mul(x, y)", x=(M,), y=(M,)),
    case("mul_by_a_constant", "lax.mul(x, np.full((2, 3), 1.5))", x=(M,)),
    # lax broadcasts a rank-0 operand: the tangent still has the output's shape
    case("add_a_scalar_to_a_constant", "lax.add(np.full((2, 3), 1.5), s)", s=((),)),
    case("mul_by_a_scalar", "lax.mul(x, s)", x=(M,), s=((),)),
    # and stretches an axis of size 1 (operands of one rank): so does the tangent of the operand alone
    case("add_a_size_1_axis_to_a_constant", "lax.add(s, np.arange(4.0))", s=((1,),)),
    case("sub_size_1_axes_from_a_constant", "lax.sub(np.full((2, 3), 1.5), s)", s=((1, 1),)),
    case("add_size_1_axes_on_both_sides", "lax.add(x, y)", x=((2, 1),), y=((1, 3),)),
    case("max_of_a_size_1_axis_and_a_constant", "lax.max(s, np.arange(4.0) - 1.5)", s=((1,), Domain(-0.2, 0.2))),
    case("div", "lax.div(x, y)", x=(M,), y=(M, Domain(0.5, 4))),
    case("div_of_a_constant", "lax.div(np.full((2, 3), 2.0), y)", y=(M, AWAY_FROM_0)),
    case("rem", "lax.rem(x, y)", off_integer_quotients, x=(M, Domain(-4, 4)), y=(M, Domain(-2, 2, min_abs=0.5))),
    case("pow", "lax.pow(x, y)", x=(M, POSITIVE), y=(M, Domain(-2, 2))),
    case("pow_integer_exponent", "lax.pow(x, y)", x=(M, AWAY_FROM_0), y=(M, Domain(-2, 3), I32)),
    case("max", "lax.max(x, y)", distinct=True, x=(M,), y=(M,)),
    case("min", "lax.min(x, y)", distinct=True, x=(M,), y=(M,)),
    case("clamp", "lax.clamp(lo, x, hi)", ordered_bounds, distinct=True, lo=(M,), x=(M,), hi=(M,)),
    # Constant scalar bounds: JAX 0.10.2 fails to differentiate clamp through scalar bounds that have
    # tangents (its select gets cases of shapes (2, 3) and ()). On the grid, x never meets a bound.
    case("clamp_scalar_bounds", "lax.clamp(np.float64(-0.6), x, np.float64(0.7))", x=(M, Domain(-2, 2, grid=0.25))),
    case("select_n", "lax.select_n(w, x, y)", w=(M, Domain(0, 1), np.dtype(bool)), x=(M,), y=(M,)),
    case("select_n_3_cases", "lax.select_n(w, x, y, z)", w=(M, Domain(0, 2), I32), x=(M,), y=(M,), z=(M,)),
    case("select_n_a_constant_case", "lax.select_n(w, x, np.zeros((2, 3)))", w=(M, Domain(0, 1), np.dtype(bool)),
         x=(M,)),  # fmt: skip
    unary("real", dtype=C128), unary("imag", dtype=C128), unary("conj", dtype=C128),
    case("conj_of_a_real", "lax.conj(x)", x=(M,)), case("complex", "lax.complex(x, y)", x=(M,), y=(M,)),
    case("abs_complex", "lax.abs(x)", x=(M, AWAY_FROM_0, C128)),
    case("mul_complex", "lax.mul(x, y)", x=(M, S.DEFAULT, C128), y=(M, S.DEFAULT, C128)),
    case("div_complex", "lax.div(x, y)", x=(M, S.DEFAULT, C128), y=(M, AWAY_FROM_0, C128)),
    unary("exp_complex", Domain(-2, 2), "lax.exp(x)", C128),
    # --- piecewise constant: zero tangents off the steps -----------------------------------------
    case("floor", "lax.floor(x)", off_integers, x=(M,)), case("ceil", "lax.ceil(x)", off_integers, x=(M,)),
    case("round", "lax.round(x)", off_integers, x=(M,)),
    case("is_finite", "lax.is_finite(x)", x=(M,)), case("comparison", "lax.lt(x, y)", x=(M,), y=(M,)),
    # --- transcendental and special functions ----------------------------------------------------
    unary("exp", Domain(-3, 3)), unary("exp2", Domain(-3, 3)), unary("expm1", Domain(-3, 3)),
    unary("log", POSITIVE), unary("log1p", Domain(-0.7, 4)), unary("sqrt", POSITIVE), unary("rsqrt", POSITIVE),
    unary("cbrt", AWAY_FROM_0), unary("logistic", Domain(-4, 4)),
    unary("sin", Domain(-3, 3)), unary("cos", Domain(-3, 3)), unary("tan", Domain(-1.2, 1.2)),
    unary("tanh", Domain(-3, 3)), unary("sinh", Domain(-3, 3)), unary("cosh", Domain(-3, 3)),
    unary("asin", UNIT), unary("acos", UNIT), unary("atan", Domain(-3, 3)), unary("asinh", Domain(-3, 3)),
    unary("acosh", Domain(1.2, 5)), unary("atanh", UNIT),
    case("atan2", "lax.atan2(x, y)", x=(M, AWAY_FROM_0), y=(M,)),  # off the branch cut (x = 0, y < 0)
    unary("erf", Domain(-2, 2)), unary("erfc", Domain(-2, 2)), unary("erf_inv", UNIT),
    # lgamma's derivative is digamma, whose own derivative needs polygamma (not in didax yet): first order
    case("lgamma", "lax.lgamma(x)", x=(M, POSITIVE), order=1),
    # the derivative in a is igamma_grad_a, which JAX does not differentiate: first order
    case("igamma", "lax.igamma(a, x)", a=(M, POSITIVE), x=(M, Domain(0.1, 6)), order=1),
    case("igammac", "lax.igammac(a, x)", a=(M, POSITIVE), x=(M, Domain(0.1, 6)), order=1),
    # the derivative of a Gamma(a) sample in a: JAX differentiates its loops, to any order
    case("random_gamma_grad", "lax.random_gamma_grad(a, x)", a=(M, POSITIVE), x=(M, Domain(0.1, 6))),
    # --- dtypes -----------------------------------------------------------------------------------
    case("convert_to_complex", "lax.convert_element_type(x, np.complex128)", x=(M,)),
    case("convert_to_float32", "lax.convert_element_type(x, np.float32)", x=(M,), order=1),
    case("convert_to_int", "lax.convert_element_type(x, np.int32)", x=(M, Domain(-4, 4))),
    case("convert_from_int", "lax.mul(x, lax.convert_element_type(i, np.float64))", x=(M,), i=(M, S.DEFAULT, I32)),
    # --- structure: linear maps -------------------------------------------------------------------
    case("broadcast_in_dim", "lax.broadcast_in_dim(x, (2, 3, 4), (0, 2))", x=((2, 4),)),
    case("reshape", "lax.reshape(x, (3, 2))", x=(M,)),
    case("transpose", "lax.transpose(x, (1, 0))", x=(M,)),
    case("squeeze", "lax.squeeze(x, (0,))", x=((1, 3),)),
    case("rev", "lax.rev(x, (1,))", x=(M,)),
    case("slice", "lax.slice(x, (0, 1), (2, 3), (1, 2))", x=(M,)),
    case("concatenate", "lax.concatenate([x, y, x], 1)", x=(M,), y=((2, 1),)),
    case("pad", "lax.pad(x, y, ((1, -1, 1), (0, 2, 0)))", x=(M,), y=((),)),
    case("dynamic_slice", "lax.dynamic_slice(x, (i, np.int32(1)), (1, 2))", x=(M,), i=((), Domain(-1, 3), I32)),
    case("dynamic_update_slice", "lax.dynamic_update_slice(x, u, (i, np.int32(1)))", x=(M,), u=((1, 2),),
         i=((), Domain(-1, 3), I32)),  # fmt: skip
    # --- products and reductions ------------------------------------------------------------------
    case("dot_general_matmul", DOT.format("((1,), (0,))", "((), ())"), x=(M,), y=((3, 2),)),
    case("dot_general_batched", DOT.format("((2,), (1,))", "((0,), (0,))"), x=((2, 2, 3),), y=((2, 3, 2),)),
    case("dot_general_two_contractions", DOT.format("((0, 1), (1, 0))", "((), ())"), x=(M,), y=((3, 2),)),
    case("dot_general_outer", DOT.format("((), ())", "((), ())"), x=(V,), y=((2,),)),
    case("reduce_sum", "lax.reduce_sum(x, (1,))", x=(M,)),
    case("reduce_max", "lax.reduce_max(x, (0, 1))", distinct=True, x=(M,)),
    case("reduce_min", "lax.reduce_min(x, (0,))", distinct=True, x=(M,)),
    case("reduce_prod", "lax.reduce_prod(x, (1,))", x=(M, Domain(-2, 2))),
    # zeros are likely on this grid: one zero in a row, or several
    case("reduce_prod_with_zeros", "lax.reduce_prod(x, (0, 1))", x=(M, Domain(-1, 1, grid=0.5))),
    case("argmax", "lax.argmax(x, 1, np.int32)", distinct=True, x=(M,)),
    # --- cumulative -------------------------------------------------------------------------------
    case("cumsum", "lax.cumsum(x, 1)", x=(M,)),
    case("cumprod", "lax.cumprod(x, 1, reverse=True)", x=(M, Domain(-2, 2))),
    case("cumprod_with_zeros", "lax.cumprod(x, 0)", x=(V, Domain(-1, 1, grid=0.5))),
    case("cummax", "lax.cummax(x, 1)", distinct=True, x=(M,)),
    case("cummin", "lax.cummin(x, 0, reverse=True)", distinct=True, x=(V,)),
    case("cumlogsumexp", "lax.cumlogsumexp(x, 1)", x=(M,)),
    # --- sorting: tangents follow the permutation ----------------------------------------------------
    case("sort", "lax.sort(x, dimension=1)", distinct=True, x=(M,)),
    case("sort_keys_and_values", "lax.sort((x, y), dimension=0, num_keys=1)", x=(V,), y=(V,), distinct=True),
    case("top_k", "lax.top_k(x, 2)", distinct=True, x=(M,)),
    # rounding to 40 mantissa bits: linear at the scale of the finite differences
    case("reduce_precision", "lax.reduce_precision(x, 11, 40)", x=(M,)),
    # --- the Fourier transform: linear; the half spectra's transposes weigh their bins by 1 or 2 ------
    case("fft_fft2", "jnp.fft.fft2(x)", x=(M, S.DEFAULT, C128)),
    case("fft_ifft_padded", "jnp.fft.ifft(x, n=4, axis=0)", x=(M, S.DEFAULT, C128)),
    case("fft_rfft_even", "jnp.fft.rfft(x)", x=((2, 4),)), case("fft_rfft2_odd", "jnp.fft.rfft2(x)", x=((3, 3),)),
    case("fft_irfft_odd", "jnp.fft.irfft(x, n=5)", x=(M, S.DEFAULT, C128)),
    case("fft_irfft_even", "jnp.fft.irfft(x)", x=(M, S.DEFAULT, C128)),
    # --- convolution: bilinear; the input's transpose flips the kernel, the kernel's convolves ------
    case("conv_same", "lax.conv_general_dilated(x, w, (1,), 'SAME')", x=((2, 2, 5),), w=((3, 2, 2),)),
    case("conv_strides_dilation_feature_groups", f"{CONV}(x, w, (2, 1), [(1, 0), (0, 1)], rhs_dilation=(1, 2), "
         "feature_group_count=2)", x=((1, 4, 4, 3),), w=((2, 2, 2, 2),)),  # fmt: skip
    case("conv_input_dilation_batch_groups", f"{CONV}(x, w, (1,), [(1, -1)], lhs_dilation=(2,), batch_group_count=2)",
         x=((2, 2, 4),), w=((2, 2, 2),)),  # fmt: skip
    case("conv_channels_last", f"{CONV}(x, w, (1, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'CNHW'))",
         x=((1, 3, 4, 2),), w=((2, 2, 2, 3),)),  # fmt: skip
    case("conv_transpose", "lax.conv_transpose(x, w, (2,), 'SAME')", x=((1, 3, 2),), w=((2, 2, 3),)),
    # --- windowed reductions: the sum linear, a max or min the winner's tangent (distinct values) -------
    case("reduce_window_sum", "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), [(1, 0), (0, 1)], (1, 2), (2, 1))",
         x=((3, 4),)),  # fmt: skip
    case("reduce_window_sum_padded_after", "lax.reduce_window(x, 0.0, lax.add, (3,), (1,), [(0, 2)])", x=((4,),)),
    case("reduce_window_max_pool", "lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 1), 'SAME')", distinct=True,
         x=((3, 4),)),  # fmt: skip
    case("reduce_window_min", "lax.reduce_window(x, np.inf, lax.min, (2, 1), (1, 1), [(0, 1), (0, 0)])",
         distinct=True, x=((3, 2),)),  # fmt: skip
    # another computation, folded over the window: a product, with pads and holes (skipped)
    case("reduce_window_product", "lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 2), 'SAME', (2, 1))",
         x=((3, 4), POSITIVE)),  # fmt: skip
    # --- linear algebra: a Cholesky factor, triangular solves (well conditioned: ones on the diagonal) -
    case("cholesky", "lax.linalg.cholesky(x @ x.T + 3 * np.eye(3))", x=((3, 3), SMALL_ENTRIES)),
    case("triangular_solve_left_lower", "lax.linalg.triangular_solve(a + np.eye(3), b, left_side=True, lower=True)",
         a=((3, 3), SMALL_ENTRIES), b=((3, 2),)),  # fmt: skip
    case("triangular_solve_right_transposed_unit",
         "lax.linalg.triangular_solve(a, b, transpose_a=True, unit_diagonal=True)", a=((3, 3), SMALL_ENTRIES), b=((2, 3),)),
    # LU (diagonally dominant: no row swaps near a tie), and what jnp.linalg builds on it
    case("lu_pivoted", "lax.linalg.lu(x + 3 * np.eye(3)[[1, 2, 0]])[0]", x=((3, 3), SMALL_ENTRIES)),  # rows cycled
    case("lu_wide", "lax.linalg.lu(x + 3 * np.eye(2, 3))[0]", x=((2, 3), SMALL_ENTRIES)),
    case("lu_tall", "lax.linalg.lu(x + 3 * np.eye(3, 2))[0]", x=((3, 2), SMALL_ENTRIES)),
    case("solve_and_inv", "jnp.linalg.solve(a + 3 * np.eye(3), b) + jnp.linalg.inv(a + 3 * np.eye(3))[:, :2]",
         a=((3, 3), SMALL_ENTRIES), b=((3, 2),)),  # fmt: skip
    case("det_and_slogdet", "jnp.linalg.det(x + 3 * np.eye(4)) + jnp.linalg.slogdet(x + 3 * np.eye(4))[1]",
         x=((4, 4), SMALL_ENTRIES)),  # fmt: skip
    # eigh, its eigenvalues well apart (a diagonal of 0, 3, 6 under small entries): the eigenvectors
    # squared (each is defined up to its sign), plus the eigenvalues
    case("eigh", "(lambda vw: vw[0] ** 2 + vw[1])(lax.linalg.eigh(x + np.diag([0.0, 3.0, 6.0])))",
         x=((3, 3), SMALL_ENTRIES)),  # fmt: skip
    # svd (singular values well apart), U and V^H squared (each singular pair is defined up to its
    # sign), tall, wide, and a complex square one rebuilt
    case("svd_tall", "(lambda usv: usv[0] ** 2 + usv[1])(lax.linalg.svd(x + np.eye(4, 2) * [1.0, 3.0], "
         "full_matrices=False))", x=((4, 2), SMALL_ENTRIES)),  # with the singular values
    case("svd_complex_rebuilt", "(lambda usv: (usv[0] * usv[1]) @ usv[2])(lax.linalg.svd(x + np.diag([1.0, 3.0, 5.0]), "
         "full_matrices=False))", x=((3, 3), SMALL_ENTRIES, C128)),  # U S V^H: the phases chosen cancel
    case("svd_wide", "lax.linalg.svd(x + np.eye(2, 4) * [1.0, 3.0, 0, 0], full_matrices=False)[2] ** 2",
         x=((2, 4), SMALL_ENTRIES)),  # fmt: skip
    # qr, near a dense matrix (LAPACK's Householder signs jump where a column is already zero below
    # its diagonal entry, as in the identity's; for complex matrices, also where the last diagonal
    # entry of a square or wide one is real): a tall matrix's full Q (its last columns move too) and
    # R, real and complex, a wide one, and a tall one with its columns pivoted (their norms apart, so
    # the order stays put). (JAX 0.10.2's rule is wrong for a wide matrix with pivoting: R's right
    # block is taken from the columns before they were pivoted. No case here asks for it.)
    case("qr_tall_full", "lax.linalg.qr(x + np.array([[1.0, 1.0], [0.5, 3.0], [-0.5, 1.5], [0.5, -1.0]]))",
         x=((4, 2), SMALL_ENTRIES)),  # fmt: skip
    case("qr_tall_complex", "lax.linalg.qr(x + np.array([[1.0, 1.0], [0.5, 3.0], [-0.5, 1.5]]))",
         x=((3, 2), SMALL_ENTRIES, C128)),  # fmt: skip
    case("qr_wide", "lax.linalg.qr(x + np.array([[1.0, 0.5, -0.5], [0.5, 2.0, 1.0]]))", x=((2, 3), SMALL_ENTRIES)),
    case("qr_pivoted", "lax.linalg.qr(x + np.array([[1.0, 1.0], [0.5, 3.0], [-0.5, 1.5]]), pivoting=True, "
         "full_matrices=False)", x=((3, 2), SMALL_ENTRIES)),  # fmt: skip
    # --- gather and scatter -----------------------------------------------------------------------
    case("gather_clip", GATHER.format(mode="CLIP", fill=""), x=OPERAND, i=SOME_OUT),
    case("gather_fill", GATHER.format(mode="FILL_OR_DROP", fill=", fill_value=2.5"), x=OPERAND, i=SOME_OUT),
    scatter("scatter_add"), scatter("scatter_sub", "CLIP", DUPLICATES),
    scatter("scatter", i=DUPLICATES), scatter("scatter", "CLIP"),
    scatter("scatter_mul", "CLIP", Arg((3, 1), Domain(0, 3), I32), unique=True, fix=unique_rows),
    scatter("scatter_mul", i=DUPLICATES, constant=True),  # repeated indices: JAX differentiates the operand only
    scatter("scatter_min", i=DUPLICATES, distinct=True), scatter("scatter_max", distinct=True),
    # --- jax.nn, compositions of the above -----------------------------------------------------------
    case("nn_silu", "jax.nn.silu(x)", x=(M,)), case("nn_gelu", "jax.nn.gelu(x)", x=(M,)),
    # smooth everywhere, also where the two terms tie (x = 0 for softplus): ties are likely on the grid
    case("nn_softplus", "jax.nn.softplus(x)", x=(M, S.TIES)),
    case("nn_log_sigmoid", "jax.nn.log_sigmoid(x)", x=(M, S.TIES)),
    case("logaddexp", "jnp.logaddexp(x, y)", x=(M, S.TIES), y=(M, S.TIES)),
    case("logaddexp2", "jnp.logaddexp2(x, y)", x=(M, S.TIES), y=(M, S.TIES)),
    case("nn_elu", "jax.nn.elu(x)", x=(M, AWAY_FROM_0)),
    case("nn_softmax", "jax.nn.softmax(x, axis=-1)", x=(M,)),
    case("nn_logsumexp", "jax.nn.logsumexp(x, axis=0)", x=(M,)),
]  # fmt: skip


def _draw_args(data: st.DataObject, c: Case) -> dict[str, np.ndarray]:
    floats = [k for k, a in c.args.items() if a.dtype.kind in "fc"] if c.distinct else []
    drawn: dict[str, np.ndarray] = {}
    if floats:  # one draw of distinct values on a 0.25 grid, cut into the arguments
        sizes = [int(np.prod(c.args[k].shape)) for k in floats]
        grid = st.integers(-32, 32).map(lambda n: n / 4)
        pool = data.draw(hnp.arrays(F64, sum(sizes), elements=grid, unique=True), label="distinct values")
        for k, piece in zip(floats, np.split(pool, np.cumsum(sizes)[:-1])):
            drawn[k] = piece.reshape(c.args[k].shape)
    for k, a in c.args.items():
        if k not in drawn:
            drawn[k] = data.draw(S.arrays(a.dtype, a.shape, a.domain), label=k)
    drawn = {k: drawn[k] for k in c.args}  # in the order of f's parameters
    if c.fix is not None:
        drawn = dict(zip(drawn, c.fix(*drawn.values())))
    return drawn


def _namespace(impl: Impl) -> dict[str, Any]:
    return {"lax": impl.lax, "jnp": impl.numpy, "np": np, "jax": Namespace(impl.module, "jax")}


def _compile(source: str, impl: Impl) -> Callable[..., Any]:
    scope = _namespace(impl)
    exec(compile(source, "<jvp case>", "exec"), scope)  # the table's own text
    return scope["f"]


# Each example of the table runs a case's function about ten times, to two orders, and JAX dispatches
# every operation eagerly: two fifths of the profile's examples keep the table at about a minute
# against JAX (10 in the ci profile, 400 in the full one, 2 in CI's run on JAX: its profile draws 4).
TABLE_SETTINGS = settings(max_examples=max(2, settings().max_examples * 2 // 5))


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.name)
@TABLE_SETTINGS
@given(data=st.data())
def test_primitive_jvp_matches_finite_differences(impl: Impl, flags, c: Case, data: st.DataObject) -> None:
    flags("jax_enable_x64", True)
    args = _draw_args(data, c)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    f = _compile(c.source, impl)
    check_derivatives(_namespace(impl)["jax"], f, tuple(args.values()), rng, source=c.source, values=args,
                      order=c.order)  # fmt: skip


@given(data=st.data(), program=programs())
def test_random_program_jvp_matches_finite_differences(impl: Impl, flags, data: st.DataObject,
                                                       program: Program) -> None:  # fmt: skip
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    f = program.function(_namespace(impl))
    check_derivatives(_namespace(impl)["jax"], f, (program.inputs,), rng, source=program.source.rstrip(),
                      values={"p": program.inputs})  # fmt: skip


# --- random.gamma: implicit reparameterization ------------------------------------------------------


def gamma_sample_derivative(a: float, x: float) -> float:
    """dx/da of a Gamma(a) sample x at its fixed quantile q = P(a, x), the inverse CDF's derivative
    in a: -(dP/da) / (dP/dx), dP/dx the density, dP/da by central differences of the series above
    (in float64, step 1e-4 a: an error near 1e-8 relative from truncation, 1e-12 from rounding)."""
    h = 1e-4 * a
    dp_da = (_lower_gamma_one(a + h, x) - _lower_gamma_one(a - h, x)) / (2 * h)
    density = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
    return -dp_da / density


GAMMA_ALPHAS = np.array([0.05, 0.3, 0.9, 2.5, 9.0, 40.0], np.float32)


@pytest.mark.usefixtures("random_flags")
@pytest.mark.parametrize("name", ["gamma", "loggamma"])
@pytest.mark.parametrize("seed", [0, 3])
def test_gamma_derivative_in_a_is_the_inverse_cdfs(impl: Impl, name: str, seed: int) -> None:
    """JAX differentiates a Gamma(a) sample in a by implicit reparameterization (random_gamma_grad):
    the sample moves with a so that its quantile stays fixed, whatever rejection loops drew it.
    loggamma's derivative is gamma's divided by the sample. Compared where the sample is a normal
    float32 (below, exp of the log sample loses digits); rtol 1e-5: JAX's float32 evaluation is within
    1.2e-6 of the oracle over 8 seeds of these alphas, a wrong rule is off by far more."""
    jax = _namespace(impl)["jax"]
    draw = getattr(jax.random, name)
    key = jax.random.PRNGKey(seed)
    source = f"jax.jvp(lambda a: jax.random.{name}(jax.random.PRNGKey({seed}), a), (alphas,), (np.ones(6, np.float32),))"
    show_call(source, alphas=GAMMA_ALPHAS)
    sample, tangent = jax.jvp(lambda a: draw(key, a), (GAMMA_ALPHAS,), (np.ones(6, np.float32),))
    sample, tangent = np.asarray(sample, np.float64), np.asarray(tangent, np.float64)
    x = np.exp(sample) if name == "loggamma" else sample
    normal = x >= np.finfo(np.float32).tiny
    assert normal.sum() >= 4, f"too few normal samples: {x}"
    want = np.array([gamma_sample_derivative(float(a), float(v)) for a, v in zip(GAMMA_ALPHAS[normal], x[normal])])
    if name == "loggamma":
        want = want / x[normal]
    np.testing.assert_allclose(tangent[normal], want, rtol=1e-5)


# --- float0: the tangents of integers and booleans ---------------------------------------------------


def float0(impl: Impl) -> np.dtype:
    """The implementation's float0 (jax.dtypes.float0), which is NumPy's zero-sized void field."""
    dt = impl.dtypes.float0
    assert np.dtype(dt) == float0_dtype(), f"dtypes.float0 is {dt!r}"
    return np.dtype(dt)


def assert_float0(t: Any, shape: tuple[int, ...], what: str) -> None:
    # float0 tangents hold no numbers and are NumPy arrays in JAX: they have no weak type.
    assert_dtype(t, float0_dtype(), what, weak=None)
    assert np.shape(t) == shape, f"{what} has shape {np.shape(t)}, expected {shape}"


@pytest.mark.parametrize("x64", [False, True], ids=["x64_off", "x64_on"])
def test_integer_and_boolean_values_have_float0_tangents(impl: Impl, flags, x64: bool) -> None:
    """Integer and boolean inputs take float0 tangents (shape of the primal); integer and boolean
    outputs give float0 tangents; float outputs that depend on integers only through integer
    operations differentiate through the float ones."""
    flags("jax_enable_x64", x64)
    x = np.array([0.5, -1.5, 2.0], np.float32)
    i = np.array([[1, -2, 3]], np.int32)
    b = np.array([True, False, True])
    tx = np.array([1.0, 2.0, -1.0], np.float32)
    ti, tb = np.zeros(i.shape, float0(impl)), np.zeros(b.shape, float0(impl))
    source = ("f = lambda x, i, b: (jnp.multiply(x, i), lax.select_n(b, -x, x), i * 2, jnp.greater(x, 0), "
              "jnp.logical_not(b))")  # fmt: skip
    show_call(f"{source}\njax.jvp(f, (x, i, b), (tx, ti, tb))", x=x, i=i, b=b, tx=tx, ti=ti, tb=tb)
    f = _compile(source, impl)
    primals_out, tangents_out = _namespace(impl)["jax"].jvp(f, (x, i, b), (tx, ti, tb))
    plain = f(x, i, b)
    assert len(tangents_out) == 5
    f32 = np.dtype("float32")
    for k in (0, 1):
        assert_dtype(primals_out[k], f32, f"primal {k}", weak=weak_result("elementwise", x))
        assert_dtype(
            tangents_out[k], f32, f"tangent {k}", weak=None
        )  # weak types of tangents: see derivatives.py
    assert_values(tangents_out[0], tx * i.astype(np.float64), f32)
    assert_values(tangents_out[1], np.where(b, tx, -tx), f32)
    for k, shape in ((2, (1, 3)), (3, (3,)), (4, (3,))):
        assert_float0(tangents_out[k], shape, f"tangent {k}")
        assert_values(primals_out[k], np.asarray(plain[k]), np.asarray(plain[k]).dtype)


def test_a_function_of_integers_alone_has_float0_tangents_and_the_plain_values(impl: Impl) -> None:
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    ti = np.zeros(i.shape, float0(impl))
    show_call("jax.jvp(lambda i: jnp.sum(i * i, axis=0), (i,), (ti,))", i=i, ti=ti)
    primal, tangent = _namespace(impl)["jax"].jvp(lambda i: impl.numpy.sum(i * i, axis=0), (i,), (ti,))
    assert_values(primal, (i * i).sum(axis=0), np.dtype("int32"))
    assert_float0(tangent, (3,), "tangent")


def test_typed_keys_have_float0_tangents(impl: Impl) -> None:
    """A PRNG key (random.key, dtype key<fry>) takes a float0 tangent and cannot move: the keys a
    function makes have float0 tangents of their shape, and a sample drawn from a fixed key is a
    constant, so x * sample has the sample as its derivative in x."""
    jax = _namespace(impl)["jax"]
    random = jax.random
    key = random.key(3)
    tk = np.zeros((), float0(impl))
    sample = np.asarray(random.normal(key, (3,)))
    source = "f = lambda x, k: (x * random.normal(k, (3,)), random.split(k, 4), random.fold_in(k, 2))"
    show_call(f"{source}\njax.jvp(f, (x, k), (1.0, tk))", x=2.0, tk=tk)
    f = lambda x, k: (x * random.normal(k, (3,)), random.split(k, 4), random.fold_in(k, 2))  # noqa: E731
    (value, keys, folded), (t_value, t_keys, t_folded) = jax.jvp(f, (np.float32(2.0), key), (np.float32(1.0), tk))
    assert_values(value, 2 * sample, np.dtype("float32"))
    assert_values(t_value, sample, np.dtype("float32"))
    assert str(keys.dtype) == str(folded.dtype) == "key<fry>"
    assert_float0(t_keys, (4,), "the split keys' tangent")
    assert_float0(t_folded, (), "the folded key's tangent")
    with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp do not match"):
        jax.jvp(random.split, (key,), (np.float32(0.0),))


# --- misuse: JAX's errors, and the next call still works ----------------------------------------------

X = np.array([0.5, -1.0, 2.0], np.float32)
N = np.array([1, 2, 3], np.int32)
F0 = np.zeros(3, float0_dtype())

# (id, primals, tangents, the exception JAX raises)
MISUSES = [
    ("trees_differ", (X, X), (X,), TypeError),
    ("tuple_and_list", (X,), [X], TypeError),
    ("dict_keys_differ", ({"a": X},), ({"b": X},), TypeError),
    ("primals_not_a_tuple", X, X, TypeError),
    ("primals_a_dict", {"a": X}, {"a": X}, TypeError),
    ("shapes_differ", (X,), (X[:2],), ValueError),
    ("scalar_tangent_for_a_vector", (X,), (np.float32(1.0),), ValueError),
    ("float0_tangent_of_the_wrong_shape", (N,), (F0[:2],), ValueError),
    ("float16_tangent_for_float32", (X,), (X.astype(np.float16),), TypeError),
    ("complex_tangent_for_float", (X,), (X.astype(np.complex64),), TypeError),
    ("integer_tangent_for_float", (X,), (N,), TypeError),
    ("float_tangent_for_integer", (N,), (X,), TypeError),
    ("float0_tangent_for_float", (X,), (F0,), TypeError),
]


@pytest.mark.parametrize("primals, tangents, error", [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_mismatched_primals_and_tangents_raise_jax_errors(impl: Impl, primals: Any, tangents: Any,
                                                          error: type[Exception]) -> None:  # fmt: skip
    jax = _namespace(impl)["jax"]
    show_call("jax.jvp(lambda *args: args, primals, tangents)", primals=primals, tangents=tangents)
    with pytest.raises(error):
        jax.jvp(lambda *args: args, primals, tangents)
    show_call("jax.jvp(jnp.sin, (x,), (x,))", x=X)  # a failed jvp leaves nothing behind
    primal, tangent = jax.jvp(impl.numpy.sin, (X,), (X,))
    assert_values(tangent, np.cos(X.astype(np.float64)) * X, np.dtype("float32"))


# Calls JAX accepts, which an implementation might wrongly refuse.
ACCEPTED = [
    ("lists", [X, N], [X, F0]),
    ("none_leaves", (X, None), (X, None)),
    ("python_float_tangent_of_a_float32_scalar", (np.float32(2.0), 1.0), (1.0, 0.5)),
    ("nested_containers", ({"a": [X, (X,)]},), ({"a": [X, (X,)]},)),
]


@pytest.mark.parametrize("primals, tangents", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_jvp_accepts_what_jax_accepts(impl: Impl, primals: Any, tangents: Any) -> None:
    show_call("jax.jvp(lambda *args: jax.tree_util.tree_map(lambda a: a * 2, args), primals, tangents)",
              primals=primals, tangents=tangents)  # fmt: skip
    jax = _namespace(impl)["jax"]
    primals_out, tangents_out = jax.jvp(lambda *args: impl.tree_util.tree_map(lambda a: a * 2, args), primals,
                                        tangents)  # fmt: skip
    for p, t, want_p, want_t in zip(
        leaves(primals_out), leaves(tangents_out), leaves(primals), leaves(tangents)
    ):
        want_p = np.asarray(want_p)
        assert_values(p, want_p * 2, np.asarray(p).dtype)
        if want_p.dtype.kind == "f":
            assert_values(t, np.asarray(want_t, np.float64) * 2, np.asarray(p).dtype)
        else:
            assert_float0(t, want_p.shape, "tangent")


# --- has_aux -------------------------------------------------------------------------------------------


def test_has_aux_returns_the_auxiliary_data_undifferentiated(impl: Impl) -> None:
    """``f`` returns (output, aux): aux comes back third, as plain values usable after jvp returned."""
    x, t = np.array([0.5, 1.0, -2.0], np.float32), np.array([1.0, 0.5, 2.0], np.float32)
    source = "f = lambda x: (jnp.sin(x), {'double': 2 * x, 'count': jnp.sum(x > 0)})"
    show_call(f"{source}\njax.jvp(f, (x,), (t,), has_aux=True)", x=x, t=t)
    f = _compile(source, impl)
    primal, tangent, aux = _namespace(impl)["jax"].jvp(f, (x,), (t,), has_aux=True)
    f32, wide_x = np.dtype("float32"), x.astype(np.float64)
    assert_values(primal, np.sin(wide_x), f32, atol=1e-6)
    assert_values(tangent, np.cos(wide_x) * t, f32, atol=1e-6)
    assert sorted(aux) == ["count", "double"]
    assert_values(aux["double"], 2 * wide_x, f32)
    assert_values(aux["count"], np.array(2), np.asarray(aux["count"]).dtype)
    # aux is no tracer: it computes after jvp has returned
    assert_values(impl.numpy.add(aux["double"], 1.0), 2 * wide_x + 1, f32)


# (id, f, the error JAX raises, the classes JAX 0.4 raised instead from a check of its own): JAX 0.10.2
# unpacks the pair (`ans, aux = ans`), so Python's errors for unpacking; JAX 0.4 checked for a pair first
# and raised TypeError ("expected function with aux output to return a two-element tuple"), a release detail
AUX_MISUSES = [
    ("a_triple", "f = lambda x: (x, 1, 2)", ValueError, (TypeError,)),
    ("a_single_array", "f = lambda x: x", TypeError, ()),
    ("none", "f = lambda x: None", TypeError, ()),
]


@pytest.mark.parametrize("source, error, other_releases", [m[1:] for m in AUX_MISUSES],
                         ids=[m[0] for m in AUX_MISUSES])
def test_has_aux_requires_a_pair(impl: Impl, source: str, error: type[Exception],
                                 other_releases: tuple[type[Exception], ...]) -> None:  # fmt: skip
    show_call(f"{source}\njax.jvp(f, (1.0,), (1.0,), has_aux=True)  # JAX raises {error.__name__}")
    with pytest.raises((error, *other_releases)) as raised:
        _namespace(impl)["jax"].jvp(_compile(source, impl), (1.0,), (1.0,), has_aux=True)
    release_detail(isinstance(raised.value, error), f"{type(raised.value).__name__}: {raised.value}")


# --- golden values (the autodidax chapter and the blog; float64) ---------------------------------------

DERIVATIVES_OF_SIN_AT_3 = [-0.9899924966004454, -0.1411200080598672, 0.9899924966004454, 0.1411200080598672]


def deriv(jax: Any, f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda x: jax.jvp(f, (x,), (1.0,))[1]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_nested_derivatives_of_sin_at_3(impl: Impl, flags, order: int) -> None:
    """deriv(deriv(...(jnp.sin)))(3.0): cos, -sin, -cos, sin at 3."""
    flags("jax_enable_x64", True)
    jax = _namespace(impl)["jax"]
    show_call("deriv = lambda f: lambda x: jax.jvp(f, (x,), (1.0,))[1]\n"
              + "deriv(" * order + "jnp.sin" + ")" * order + "(3.0)")  # fmt: skip
    f = impl.numpy.sin
    for _ in range(order):
        f = deriv(jax, f)
    got = f(3.0)
    assert_dtype(got, F64, weak=None)  # a tangent (weak types of tangents: see derivatives.py)
    assert_values(got, np.array(DERIVATIVES_OF_SIN_AT_3[order - 1]), F64)


@pytest.mark.parametrize("name, log", [("xlogy", math.log), ("xlog1py", math.log1p)])
def test_xlogy_derivative_in_x_at_zero_is_log_y(impl: Impl, flags, name: str, log: Callable[[float], float]) -> None:
    """x * log(y) is 0 at x = 0, but its derivative in x there is log(y) (JAX's rule), and in y, 0."""
    flags("jax_enable_x64", True)
    jax = _namespace(impl)["jax"]
    fn = getattr(jax.scipy.special, name)
    show_call(f"jax.jvp(jax.scipy.special.{name}, (0.0, 2.0), (1.0, 0.0))[1]; ... (0.0, 1.0))[1]")
    x_part = jax.jvp(fn, (np.float64(0.0), np.float64(2.0)), (np.float64(1.0), np.float64(0.0)))
    y_part = jax.jvp(fn, (np.float64(0.0), np.float64(2.0)), (np.float64(0.0), np.float64(1.0)))
    assert_values(x_part[0], np.array(0.0), F64)
    assert_values(x_part[1], np.array(log(2.0)), F64)
    assert_values(y_part[1], np.array(0.0), F64)


def test_golden_values_of_the_autodidax_chapter(impl: Impl, flags) -> None:
    flags("jax_enable_x64", True)
    jax, jnp = _namespace(impl)["jax"], impl.numpy
    show_call("jax.jvp(jnp.sin, (3.0,), (1.0,))")
    primal, tangent = jax.jvp(jnp.sin, (3.0,), (1.0,))
    assert_dtype(primal, F64, weak=weak_result("elementwise", 3.0, x64=True))  # as jnp.sin(3.0): weak
    assert_values(tangent, np.array(-0.9899924966004454), F64)

    def f(x: Any) -> Any:
        y = jnp.sin(x) * 2.0
        return -y + x

    show_call("def f(x):\n    return -(jnp.sin(x) * 2.0) + x\njax.jvp(f, (3.0,), (1.0,))")
    primal, tangent = jax.jvp(f, (3.0,), (1.0,))
    assert_values(primal, np.array(2.7177599838802657), F64)
    assert_values(tangent, np.array(2.979984993200891), F64)

    def g(x: Any) -> Any:
        y = jnp.sin(x) * 2.0
        return {"hi": -y + x, "there": [x, y]}

    show_call("def g(x):\n    y = jnp.sin(x) * 2.0\n    return {'hi': -y + x, 'there': [x, y]}\n"
              "jax.jvp(g, (3.0,), (1.0,))")  # fmt: skip
    primal, tangent = jax.jvp(g, (3.0,), (1.0,))
    assert sorted(primal) == sorted(tangent) == ["hi", "there"]
    for got, want in zip(leaves(primal) + leaves(tangent),
                         [2.7177599838802657, 3.0, 0.2822400161197344, 2.979984993200891, 1.0, -1.9799849932008908]):  # fmt: skip
        assert_values(got, np.array(want), F64)


def test_golden_values_of_the_blog(impl: Impl, flags) -> None:
    """A dict output with a list inside: keys come back sorted, 'Astley' before 'Rick'."""
    flags("jax_enable_x64", True)
    jax, jnp = _namespace(impl)["jax"], impl.numpy

    def f(x: Any) -> Any:
        y = 3.0 * jnp.sin(x) * jnp.cos(x)
        return {"Rick": x * x + y * y, "Astley": [x, y]}

    show_call("def f(x):\n    y = 3.0 * jnp.sin(x) * jnp.cos(x)\n    return {'Rick': x * x + y * y, 'Astley': [x, y]}\n"
              "jax.jvp(f, (1.0,), (1.5,))")  # fmt: skip
    primal, tangent = jax.jvp(f, (1.0,), (1.5,))
    assert list(primal) == list(tangent) == ["Astley", "Rick"]  # rebuilt from the sorted tree
    for got, want in zip(leaves(primal) + leaves(tangent),
                         [1.0, 1.3639461402385225, 2.8603490734715633, 1.5, -1.8726607644621398, -2.108416843328513]):  # fmt: skip
        assert_values(got, np.array(want), F64)


# --- nesting: perturbation confusion, control flow, escaped tracers --------------------------------------


@given(x=st.floats(-4, 4), y=st.floats(-4, 4))
def test_no_perturbation_confusion(impl: Impl, flags, x: float, y: float) -> None:
    """d/dx [x * d/dy (x + y)] = 1 everywhere (confusing the two perturbations gives 2), and
    d/dx [x * d/dy (x * y)] = 2x (Siskind and Pearlmutter's example)."""
    flags("jax_enable_x64", True)
    jax, x, y = _namespace(impl)["jax"], np.float64(x), np.float64(y)
    show_call("deriv = lambda f: lambda x: jax.jvp(f, (x,), (1.0,))[1]\n"
              "deriv(lambda x: x * deriv(lambda y: x + y)(y))(x)", x=x, y=y)  # fmt: skip
    got = deriv(jax, lambda a: a * deriv(jax, lambda b: a + b)(y))(x)
    assert_values(got, np.array(1.0), F64)
    show_call("deriv = lambda f: lambda x: jax.jvp(f, (x,), (1.0,))[1]\n"
              "deriv(lambda x: x * deriv(lambda y: x * y)(y))(x)", x=x, y=y)  # fmt: skip
    got = deriv(jax, lambda a: a * deriv(jax, lambda b: a * b)(y))(x)
    assert_values(got, np.array(2 * x), F64)


def test_python_control_flow_on_primals(impl: Impl, flags) -> None:
    """Under jvp the primal is known, so Python's ``if`` can read it (at every level of nesting)."""
    flags("jax_enable_x64", True)
    jax = _namespace(impl)["jax"]

    def f(x: Any) -> Any:
        if x > 0.0:
            return 2.0 * x
        return x

    program = "def f(x):\n    if x > 0.0:\n        return 2.0 * x\n    return x\n"
    d = "deriv = lambda f: lambda x: jax.jvp(f, (x,), (1.0,))[1]\n"
    for x, want in ((3.0, 2.0), (-3.0, 1.0)):
        show_call(f"{program}{d}deriv(f)({x})")
        assert_values(deriv(jax, f)(x), np.array(want), F64)
    show_call(f"{program}{d}deriv(deriv(lambda x: f(x) * x))(3.0)")  # 2 x**2 at 3: 4
    assert_values(deriv(jax, deriv(jax, lambda x: f(x) * x))(3.0), np.array(4.0), F64)


def test_python_values_of_primals_as_jax_gives_them(impl: Impl, flags) -> None:
    """Under jvp the primal is known: ``x.item()``, ``int(x)`` and ``bool(x)`` read it, as in JAX 0.10.2;
    ``float(x)``, ``complex(x)`` and ``x.tolist()`` raise ConcretizationTypeError even so."""
    flags("jax_enable_x64", True)
    jax = _namespace(impl)["jax"]
    seen: list[Any] = []
    show_call("seen = []\njax.jvp(lambda x: seen.append((x.item(), int(x), bool(x))) or x, (2.5,), (1.0,))\nseen")
    jax.jvp(lambda x: seen.append((x.item(), int(x), bool(x))) or x, (2.5,), (1.0,))
    assert seen == [(2.5, 2, True)] and type(seen[0][0]) is float
    for use in ("float(x)", "complex(x)", "x.tolist()"):
        show_call(f"jax.jvp(lambda x: ({use}, x)[1], (2.5,), (1.0,))")
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jvp(eval(f"lambda x: ({use}, x)[1]"), (2.5,), (1.0,))  # the suite's own text
    _, tangent = jax.jvp(lambda x: x * 2.0, (2.5,), (1.0,))
    assert_values(tangent, np.array(2.0), F64)


def test_an_escaped_tracer_raises_unexpected_tracer_error(impl: Impl, flags) -> None:
    """A tracer saved during jvp and used after it returned: UnexpectedTracerError (a TypeError),
    outside any transformation and inside another jvp. Then jvp works again."""
    flags("jax_enable_x64", True)
    jax, jnp = _namespace(impl)["jax"], impl.numpy
    leaked: list[Any] = []

    def f(x: Any) -> Any:
        leaked.append(x)
        return jnp.sin(x)

    leak = "leaked = []\ndef f(x):\n    leaked.append(x)\n    return jnp.sin(x)\njax.jvp(f, (1.0,), (1.0,))\n"
    jax.jvp(f, (1.0,), (1.0,))
    error = jax.errors.UnexpectedTracerError
    assert issubclass(error, TypeError)
    show_call(f"{leak}jnp.cos(leaked[0])")
    with pytest.raises(error):
        jnp.cos(leaked[0])
    show_call(f"{leak}jax.jvp(lambda y: y * leaked[0], (2.0,), (1.0,))")
    with pytest.raises(error):
        jax.jvp(lambda y: y * leaked[0], (2.0,), (1.0,))
    show_call("jax.jvp(jnp.sin, (1.0,), (1.0,))")
    _, tangent = jax.jvp(jnp.sin, (1.0,), (1.0,))
    assert_values(tangent, np.cos(np.array(1.0)), F64)


# --- what JAX's rules give where a function has no derivative -------------------------------------------
# (program, inputs, the tangent JAX 0.10.2 gives) at ties, kinks and zeros: these are conventions, and
# programs are written against them (max's tie shares the tangent, so that max(x, x) has derivative 1).

T3 = np.array([1.0, 2.0, 4.0])
CONVENTIONS = [
    ("max_ties_share", "lax.max(x, y)", dict(x=np.ones(3), y=np.ones(3)), dict(x=T3, y=3 * T3), 2 * T3),
    ("min_ties_share", "lax.min(x, y)", dict(x=np.ones(3), y=np.ones(3)), dict(x=T3, y=3 * T3), 2 * T3),
    ("reduce_max_ties_average", "lax.reduce_max(x, (0,))", dict(x=np.array([2.0, 2.0, 1.0])), dict(x=T3),
     np.array(1.5)),
    ("reduce_min_ties_average", "lax.reduce_min(x, (1,))", dict(x=np.array([[2.0, 1.0, 1.0], [0.0, 0.0, 0.0]])),
     dict(x=np.array([T3, 3 * T3])), np.array([3.0, 7.0])),
    ("clamp_at_its_bounds_is_flat", "lax.clamp(lo, x, hi)",
     dict(lo=np.zeros(2), x=np.array([0.0, 1.0]), hi=np.ones(2)),
     dict(lo=np.array([10.0, 10.0]), x=np.array([1.0, 1.0]), hi=np.array([100.0, 100.0])), np.zeros(2)),
    ("abs_at_zero", "lax.abs(x)", dict(x=np.array([0.0, -0.0])), dict(x=np.array([1.0, 1.0])), np.array([1.0, 1.0])),
    ("pow_of_zero_in_the_exponent", "lax.pow(np.zeros(3), y)", dict(y=np.array([1.0, 2.0, 0.5])), dict(y=T3),
     np.zeros(3)),
    ("pow_with_integer_exponent_0_at_0", "lax.pow(x, np.array([0, 1, 2], np.int32))", dict(x=np.zeros(3)),
     dict(x=T3), np.array([0.0, 2.0, 0.0])),
    ("sort_ties_keep_order", "lax.sort(x)", dict(x=np.array([1.0, 0.0, 1.0, 0.0])),
     dict(x=np.array([1.0, 2.0, 3.0, 4.0])), np.array([2.0, 4.0, 1.0, 3.0])),
    ("top_k_ties_take_the_first", "lax.top_k(x, 2)[0]", dict(x=np.array([1.0, 0.0, 1.0, 0.0])),
     dict(x=np.array([1.0, 2.0, 3.0, 4.0])), np.array([1.0, 3.0])),
    ("where_at_its_switch", "jnp.where(x > 0, x, 0.0)", dict(x=np.array([0.0, 1.0])), dict(x=np.ones(2)),
     np.array([0.0, 1.0])),
    # JAX's random_gamma_grad selects 0 at x = 0 and nan outside the domain (a <= 0): constants
    ("random_gamma_grad_at_x_0_and_a_0_is_flat", "lax.random_gamma_grad(a, x)",
     dict(a=np.array([1.5, -1.0, 0.0]), x=np.array([0.0, 2.0, 2.0])), dict(a=T3, x=T3), np.zeros(3)),
    # documented by jax.nn: relu'(0) = 0, relu6'(0) = relu6'(6) = 0
    ("nn_relu_at_0_is_flat", "jax.nn.relu(x)", dict(x=np.array([0.0, 1.0, -1.0])), dict(x=T3),
     np.array([0.0, 2.0, 0.0])),
    ("nn_relu6_at_0_and_6_is_flat", "jax.nn.relu6(x)", dict(x=np.array([0.0, 6.0, 3.0])), dict(x=T3),
     np.array([0.0, 0.0, 4.0])),
]  # fmt: skip


@pytest.mark.parametrize("body, primals, tangents, want", [c[1:] for c in CONVENTIONS],
                         ids=[c[0] for c in CONVENTIONS])  # fmt: skip
def test_tangents_where_the_derivative_is_a_convention(impl: Impl, flags, body: str, primals: dict,
                                                       tangents: dict, want: np.ndarray) -> None:  # fmt: skip
    flags("jax_enable_x64", True)
    source = f"f = lambda {', '.join(primals)}: {body}"
    tnames = {f"t{k}": v for k, v in tangents.items()}
    show_call(f"{source}\njax.jvp(f, ({', '.join(primals)},), ({', '.join(tnames)},))", **primals, **tnames)
    _, tangent = _namespace(impl)["jax"].jvp(_compile(source, impl), tuple(primals.values()),
                                             tuple(tangents.values()))  # fmt: skip
    assert_values(tangent, want, F64)


def test_igamma_grad_a_has_no_derivative_as_in_jax(impl: Impl, flags) -> None:
    """JAX defines no JVP rule for igamma_grad_a (so igamma's second derivative in a is missing too)."""
    flags("jax_enable_x64", True)
    a, x = np.array([1.5, 2.0]), np.array([2.0, 0.5])
    jax = _namespace(impl)["jax"]
    with pytest.raises(NotImplementedError):
        jax.jvp(lambda a: impl.lax.igamma_grad_a(a, x), (a,), (np.ones(2),))
    with pytest.raises(NotImplementedError):
        jax.jvp(lambda a: jax.jvp(lambda b: impl.lax.igamma(b, x), (a,), (np.ones(2),))[1], (a,), (np.ones(2),))


# --- symbolic zeros: what does not depend on the inputs ------------------------------------------------


def test_outputs_that_do_not_depend_on_the_inputs_have_zero_tangents(impl: Impl, flags) -> None:
    """Constants, stop_gradient, values computed from constants alone (even by a primitive that has
    no derivative, nextafter), integer results: zero tangents of the output's shape and tangent
    dtype, and a primal that is the plain value."""
    flags("jax_enable_x64", True)
    x, t = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    source = ("f = lambda x: (jnp.zeros((2, 3)), lax.stop_gradient(x), jnp.sin(jnp.arange(3.0)) * 2.0, "
              "x * jnp.zeros(3), jnp.argmax(x), jnp.ones((2, 1), np.float32), lax.nextafter(jnp.ones(3), jnp.zeros(3)))")  # fmt: skip
    show_call(f"{source}\njax.jvp(f, (x,), (t,))", x=x, t=t)
    f = _compile(source, impl)
    primals_out, tangents_out = _namespace(impl)["jax"].jvp(f, (x,), (t,))
    plain = f(x)
    ones, zeros = np.ones(3), np.zeros(3)
    weak = [weak_result("creation"), weak_result("elementwise", x), weak_result("elementwise", ones, 2.0),
            weak_result("elementwise", x, zeros), weak_result("index"), weak_result("creation"),
            weak_result("elementwise", ones, zeros)]  # fmt: skip
    assert len(primals_out) == len(tangents_out) == len(weak)
    for k, (p, tangent, want) in enumerate(zip(primals_out, tangents_out, plain)):
        dt = np.dtype(want.dtype)
        assert_dtype(p, dt, f"primal {k}", weak=weak[k])
        assert_values(p, np.asarray(want), dt)
        if dt.kind == "f":
            assert_dtype(tangent, dt, f"tangent {k}", weak=None)  # weak types of tangents: see derivatives.py
            assert_values(tangent, np.zeros(want.shape), dt)
        else:
            assert_float0(tangent, tuple(want.shape), f"tangent {k}")


# (id, program of x, the tangent JAX 0.10.2 gives for x = [3, 1, 3, 2] and tangent [1, 2, 3, 4])
SET_OPERATIONS = [
    # without size the result's length depends on the values: JAX reads them (concrete_or_error) and
    # computes from constants, so the tangent is zero
    ("unique", "jnp.unique(x)", np.zeros(3)),
    ("unique_values", "jnp.unique_values(x)", np.zeros(3)),
    ("union1d", "jnp.union1d(x, np.array([5.0]))", np.zeros(4)),
    ("setdiff1d", "jnp.setdiff1d(x, np.array([1.0]))", np.zeros(2)),
    ("intersect1d", "jnp.intersect1d(x, np.array([2.0, 3.0]))", np.zeros(2)),
    ("setxor1d", "jnp.setxor1d(x, np.array([1.0, 5.0]))", np.zeros(3)),
    # with size the values are traced: the tangent of each value's first occurrence, 0 for the fill
    ("unique_with_size", "jnp.unique(x, size=4, fill_value=0.0)", np.array([2.0, 4.0, 1.0, 0.0])),
    ("union1d_with_size", "jnp.union1d(x, np.array([5.0]), size=4)", np.array([2.0, 4.0, 1.0, 0.0])),
    # assume_unique: JAX takes no unique, and the tangents follow the values
    ("setxor1d_assume_unique", "jnp.setxor1d(x[1:], np.array([1.0, 5.0]), assume_unique=True)",
     np.array([4.0, 3.0, 0.0])),
]  # fmt: skip


@pytest.mark.parametrize("body, want", [c[1:] for c in SET_OPERATIONS], ids=[c[0] for c in SET_OPERATIONS])
def test_set_operations_without_size_have_zero_tangents(impl: Impl, body: str, want: np.ndarray) -> None:
    x, t = np.array([3.0, 1.0, 3.0, 2.0], np.float32), np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    source = f"f = lambda x: {body}"
    show_call(f"{source}\njax.jvp(f, (x,), (t,))", x=x, t=t)
    primal, tangent = _namespace(impl)["jax"].jvp(_compile(source, impl), (x,), (t,))
    assert_dtype(tangent, np.dtype(np.float32), "tangent", weak=None)
    assert_values(tangent, want, np.dtype(np.float32))


# (id, f, primal, tangent, whether JAX 0.10.2's outputs, primal and tangent, are weakly typed): jnp's
# functions are jitted in JAX, and a jitted function's JVP types its tangents like its primals, weak
# type included, so through them the tangent's weak type follows the primal's
TANGENT_WEAK_TYPES = [
    ("cube_of_a_weak_primal_with_a_strong_tangent", "f = lambda s: s ** 3", 2.0, np.float32(1), True),
    ("sin_of_a_weak_primal_with_a_strong_tangent", "f = lambda s: jnp.sin(s)", 2.0, np.float32(1), True),
    ("a_weak_primal_times_a_python_float", "f = lambda s: s * 3.0", 2.0, np.float32(1), True),
    ("a_weak_primal_times_a_strong_constant", "f = lambda s: s * np.float32(3)", 2.0, np.float32(1), False),
    ("cube_of_a_strong_primal_with_a_weak_tangent", "f = lambda s: s ** 3", np.float32(2), 1.0, False),
    ("two_weak_primals_with_strong_tangents", "f = lambda a, b: jnp.multiply(a, b)", (2.0, 3.0),
     (np.float32(1), np.float32(1)), True),
]  # fmt: skip


@pytest.mark.parametrize("source, primal, tangent, weak", [c[1:] for c in TANGENT_WEAK_TYPES],
                         ids=[c[0] for c in TANGENT_WEAK_TYPES])  # fmt: skip
def test_tangents_are_typed_like_their_primals(impl: Impl, source: str, primal: Any, tangent: Any,
                                               weak: bool) -> None:  # fmt: skip
    primals, tangents = (primal, tangent) if isinstance(primal, tuple) else ((primal,), (tangent,))
    show_call(f"{source}\njax.jvp(f, {primals!r}, {tangents!r})")
    p, t = _namespace(impl)["jax"].jvp(_compile(source, impl), primals, tangents)
    assert_dtype(p, np.dtype(np.float32), "primal output", weak=weak)
    assert_dtype(t, np.dtype(np.float32), "tangent output", weak=weak)


def test_reduce_precision_rounds_its_tangent(impl: Impl) -> None:
    """JAX declares reduce_precision linear, so its tangent is rounded too: 1 + 2**-9 has no place
    in bfloat16's 7 mantissa bits and becomes 1 (a rule that passed the tangent through gives it)."""
    f = lambda a: impl.lax.reduce_precision(a, 8, 7)  # noqa: E731
    _, tangent = _namespace(impl)["jax"].jvp(f, (np.float32(3.0),), (np.float32(1 + 2**-9),))
    assert float(tangent) == 1.0
