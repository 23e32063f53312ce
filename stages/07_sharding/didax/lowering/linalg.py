"""Lowering rules of the linear algebra (stage 05): StableHLO has both operations,
``stablehlo.cholesky`` and ``stablehlo.triangular_solve``, and XLA's CPU compiler expands them
into loops of its own (JAX calls LAPACK there instead; the results agree to rounding). A matrix
that is not positive definite gives a factor of NaNs, as JAX's does."""

from __future__ import annotations

from ..lax import linalg
from .core import LoweringContext, i64_array, lowering_rules, tensor_type


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _cholesky(ctx: LoweringContext, x: str) -> str:
    return ctx.fb.op1("stablehlo.cholesky", [x], ctx.out_type(), {"lower": "true"})


def _triangular_solve(ctx: LoweringContext, a: str, b: str, *, left_side: bool, lower: bool, transpose_a: bool,
                      conjugate_a: bool, unit_diagonal: bool) -> str:  # fmt: skip
    # StableHLO's op applies A, its transpose or its adjoint. A conjugate without the transpose is
    # the adjoint of A's transpose, whose triangle is the other one.
    if conjugate_a and not transpose_a:
        n = ctx.avals_in[0].ndim
        swap = i64_array((*range(n - 2), n - 1, n - 2))
        a = ctx.fb.op1("stablehlo.transpose", [a], tensor_type(ctx.avals_in[0]), {"permutation": swap})
        lower, transpose_a = not lower, True
    op = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    attrs = {"left_side": _bool(left_side), "lower": _bool(lower), "unit_diagonal": _bool(unit_diagonal),
             "transpose_a": f"#stablehlo<transpose {op}>"}
    return ctx.fb.op1("stablehlo.triangular_solve", [a, b], ctx.out_type(), attrs)


lowering_rules[linalg.cholesky_p] = _cholesky
lowering_rules[linalg.triangular_solve_p] = _triangular_solve
