"""Lowering rules of the linear algebra (stage 05).

On the CPU, as JAX does, each factorization or solve is a call of a LAPACK routine that jaxlib compiles in
(``lapack_spotrf_ffi``: potrf, the Cholesky factorization, for float32), written as a StableHLO
``custom_call`` that XLA hands to jaxlib's handler with the routine's character arguments (which
triangle, which side). Elsewhere, and for dtypes LAPACK has no routine for (float16), StableHLO's
own operations, ``stablehlo.cholesky`` and ``stablehlo.triangular_solve``, which XLA expands into
loops of its own. A matrix that is not positive definite gives a factor of NaNs, as JAX's does.
StableHLO has no LU or QR decomposition, eigendecomposition or SVD: off the CPU, ``lu``, ``qr``,
``eigh`` and ``svd`` raise NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from ..lax import linalg
from .core import LoweringContext, i64_array, lower_fun, lowering_rules, tensor_type

# LAPACK's routines come in four precisions, named by a letter: spotrf, dpotrf, cpotrf, zpotrf.
_LAPACK_LETTER = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
                  np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}  # fmt: skip


def _calls_lapack(ctx: LoweringContext) -> bool:
    return ctx.module.platform == "cpu" and ctx.avals_in[0].dtype in _LAPACK_LETTER


def _layout(aval: ShapedArray, matrices: bool) -> str:
    """How ``aval`` is laid out in memory, minor axis first: LAPACK reads each matrix of a batch
    column by column (axes -2, -1, then the batch); other operands are row-major, XLA's default."""
    n = aval.ndim
    order = [n - 2, n - 1, *range(n - 3, -1, -1)] if matrices else list(range(n - 1, -1, -1))
    return f"dense<{order}> : tensor<{n}xindex>"


def _lapack(ctx: LoweringContext, routine: str, operands: Sequence[str], out_avals: Sequence[ShapedArray],
            in_avals: Sequence[ShapedArray] | None = None, **chars: str) -> list[str]:  # fmt: skip
    """Call LAPACK's ``routine`` (``potrf``) in the precision of the first operand, passing the
    character arguments ``chars`` (``uplo="L"``) as the byte codes jaxlib's handler reads. The
    operands' types are the rule's own, or ``in_avals``."""
    in_avals = ctx.avals_in if in_avals is None else in_avals
    rank = in_avals[0].ndim  # the matrices' rank: a batch is one call, looping in C++
    layouts = lambda avals: "[" + ", ".join(_layout(a, a.ndim == rank) for a in avals) + "]"  # noqa: E731
    attrs = {
        "call_target_name": f'"lapack_{_LAPACK_LETTER[in_avals[0].dtype]}{routine}_ffi"',
        "api_version": "1 : i32",  # with a dictionary of attributes, XLA calls it by its typed FFI
        "backend_config": '""',
        "mhlo.backend_config": "{" + ", ".join(f"{k} = {ord(v)} : ui8" for k, v in chars.items()) + "}",
        "operand_layouts": layouts(in_avals),
        "result_layouts": layouts(out_avals),
    }
    return ctx.fb.op("stablehlo.custom_call", operands, [tensor_type(a) for a in out_avals], attrs)


def _staged(ctx: LoweringContext, fun: Callable[..., Any], avals_in: Sequence[ShapedArray], *args: str) -> str:
    """``fun``, a function of lax operations, written in place on operands of types ``avals_in``."""
    return lower_fun(fun)(LoweringContext(ctx.fb, avals_in, ()), *args)  # (it reads the inputs' types only)


def _cholesky(ctx: LoweringContext, x: str) -> str:
    aval = ctx.avals_in[0]
    if not _calls_lapack(ctx):  # (the upper triangle of its result is left undefined)
        factor = ctx.fb.op1("stablehlo.cholesky", [x], ctx.out_type(), {"lower": "true"})
        return _staged(ctx, linalg.tril, [aval], factor)
    info = ShapedArray(aval.shape[:-2], np.dtype(np.int32))  # per matrix: 0, or where it failed
    factor, status = _lapack(ctx, "potrf", [x], [aval, info], uplo="L")
    return _staged(ctx, _lower_factor_or_nan, [aval, info], factor, status)


def _lower_factor_or_nan(factor: Any, info: Any) -> Any:
    """potrf writes L into the lower triangle and leaves the upper one as it was: keep L, or NaN
    where the factorization failed."""
    shape = factor.shape
    ok = lax.broadcast_in_dim(lax.eq(info, lax.full_like(info, 0)), shape, tuple(range(len(shape) - 2)))
    return lax.select_n(ok, lax.full_like(factor, np.nan), linalg.tril(factor))


def _triangular_solve(ctx: LoweringContext, a: str, b: str, *, left_side: bool, lower: bool, transpose_a: bool,
                      conjugate_a: bool, unit_diagonal: bool) -> str:  # fmt: skip
    if _calls_lapack(ctx):
        if conjugate_a and not transpose_a:  # BLAS's trsm has no plain conjugate: conjugate a first
            a = _staged(ctx, lax.conj, ctx.avals_in[:1], a)
            conjugate_a = False
        trans = ("C" if conjugate_a else "T") if transpose_a else "N"
        return _lapack(ctx, "trsm", [a, b], ctx.avals_out, side="L" if left_side else "R",
                       uplo="L" if lower else "U", trans_x=trans, diag="U" if unit_diagonal else "N")[0]
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


def _lu(ctx: LoweringContext, x: str) -> list[str]:
    if not _calls_lapack(ctx):
        raise NotImplementedError(f"lu has no lowering rule for {ctx.avals_in[0].dtype} on {ctx.module.platform!r} in "
                                  "didax: StableHLO has no LU operation, and didax calls LAPACK's getrf (float32, "
                                  "float64, complex64, complex128) on the CPU only.")
    aval, pivots, permutation = ctx.avals_out
    info = ShapedArray(aval.shape[:-2], np.dtype(np.int32))
    factors, swaps, status = _lapack(ctx, "getrf", [x], [aval, pivots, info])
    return lower_fun(_lu_results, multiple_results=True)(
        LoweringContext(ctx.fb, [aval, pivots, info], ()), factors, swaps, status, permutation_size=aval.shape[-2])


def _lu_results(factors: Any, swaps: Any, info: Any, *, permutation_size: int) -> list[Any]:
    """getrf's pivots count rows from 1, as Fortran does; its info is negative for a bad argument
    (a positive one, a zero on U's diagonal, still gives factors)."""
    pivots = lax.sub(swaps, lax.full_like(swaps, 1))
    ok = lax.broadcast_in_dim(lax.ge(info, lax.full_like(info, 0)), factors.shape, tuple(range(info.ndim)))
    factors = lax.select_n(ok, lax.full_like(factors, np.nan), factors)
    return [factors, pivots, _permutation_of_swaps(pivots, permutation_size=permutation_size)]


def _permutation_of_swaps(pivots: Any, *, permutation_size: int) -> Any:
    """The row swaps applied in order to the identity permutation, in a loop (one swap a step), on
    the whole batch at once: each step reads and writes the two entries through one-hot masks."""
    last = pivots.ndim - 1
    shape = (*pivots.shape[:-1], permutation_size)
    places = lax.broadcasted_iota(np.int32, shape, last)

    def spread(x: Any, dims: tuple[int, ...]) -> Any:
        return lax.broadcast_in_dim(x, shape, dims)

    def swap(i: Any, permutation: Any) -> Any:
        j = spread(lax.dynamic_slice_in_dim(pivots, i, 1, axis=last), tuple(range(last + 1)))
        at_i, at_j = lax.eq(places, spread(lax.convert_element_type(i, np.int32), ())), lax.eq(places, j)
        zero = lax.full_like(permutation, 0)
        value_i = spread(lax.reduce_sum(lax.select_n(at_i, zero, permutation), (last,)), tuple(range(last)))
        value_j = spread(lax.reduce_sum(lax.select_n(at_j, zero, permutation), (last,)), tuple(range(last)))
        return lax.select_n(at_i, lax.select_n(at_j, permutation, value_i), value_j)

    if pivots.shape[-1] == 0:  # no swaps (an empty matrix): nothing to slice them from
        return places
    return lax.fori_loop(0, pivots.shape[-1], swap, places)


def _eigh(ctx: LoweringContext, x: str, *, lower: bool, sort_eigenvalues: bool,
          subset_by_index: tuple[int, int] | None, algorithm: Any) -> list[str]:  # fmt: skip
    aval = ctx.avals_in[0]
    if not _calls_lapack(ctx):
        raise NotImplementedError(f"eigh has no lowering rule for {aval.dtype} on {ctx.module.platform!r} in didax: "
                                  "StableHLO has no eigendecomposition, and didax calls LAPACK's syevd (heevd) on "
                                  "the CPU only.")  # fmt: skip
    if subset_by_index not in (None, (0, aval.shape[-1])):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    vectors, values = ctx.avals_out
    info = ShapedArray(aval.shape[:-2], np.dtype(np.int32))
    routine = "heevd" if aval.dtype.kind == "c" else "syevd"  # (LAPACK's eigenvalues come sorted)
    outs = _lapack(ctx, routine, [x], [vectors, values, info], mode="V", uplo="L" if lower else "U")
    return lower_fun(_nan_where_failed, multiple_results=True)(
        LoweringContext(ctx.fb, [vectors, values, info], ()), *outs)


def _svd(ctx: LoweringContext, x: str, *, full_matrices: bool, compute_uv: bool,
         subset_by_index: tuple[int, int] | None, algorithm: Any) -> list[str]:  # fmt: skip
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    if min(m, n) == 0:  # no singular values; U and V^H the identity (LAPACK takes no empty matrix)
        return lower_fun(lambda x: [_identity_like(a) if a.ndim == aval.ndim else lax.full(a.shape, 0, a.dtype)
                                    for a in ctx.avals_out], multiple_results=True)(ctx, x)  # fmt: skip
    if not _calls_lapack(ctx):
        raise NotImplementedError(f"svd has no lowering rule for {aval.dtype} on {ctx.module.platform!r} in didax: "
                                  "StableHLO has no singular value decomposition, and didax calls LAPACK's gesdd on "
                                  "the CPU only.")  # fmt: skip
    k = min(m, n)
    s_aval = ctx.avals_out[0]
    u = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)  # (computed, if not asked for)
    vt = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    info = ShapedArray(tuple(batch), np.dtype(np.int32))
    mode = ("A" if full_matrices else "S") if compute_uv else "N"  # all of U and V^H, k columns and rows, or none
    _, *outs, status = _lapack(ctx, "gesdd", [x], [aval, s_aval, u, vt, info], mode=mode)
    outs = outs if compute_uv else outs[:1]
    return lower_fun(_nan_where_failed, multiple_results=True)(
        LoweringContext(ctx.fb, [*ctx.avals_out, info], ()), *outs, status)


def _qr(ctx: LoweringContext, x: str, *, pivoting: bool, full_matrices: bool, use_magma: Any) -> list[str]:
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    if min(m, n) == 0:  # Q's columns the identity's, R empty, pivots 0 (LAPACK takes no empty matrix)
        return lower_fun(lambda x: [_identity_like(a) if i == 0 else lax.full(a.shape, 0, a.dtype)
                                    for i, a in enumerate(ctx.avals_out)], multiple_results=True)(ctx, x)  # fmt: skip
    if not _calls_lapack(ctx):
        raise NotImplementedError(f"qr has no lowering rule for {aval.dtype} on {ctx.module.platform!r} in didax: "
                                  "StableHLO has no QR decomposition, and didax calls LAPACK's geqrf and orgqr on "
                                  "the CPU only.")  # fmt: skip
    # geqrf (geqp3: pivoting columns) leaves R above the diagonal and Householder reflectors
    # below it, with their scales tau; orgqr multiplies the reflectors out into Q's columns.
    taus = ShapedArray((*batch, min(m, n)), aval.dtype)
    if pivoting:
        columns = ShapedArray((*batch, n), np.dtype(np.int32))  # 0 on entry: every column free to move
        free = _staged(ctx, lambda x: lax.full(columns.shape, 0, columns.dtype), [aval], x)
        factors, swaps, taus_out = _lapack(ctx, "geqp3", [x, free], [aval, columns, taus], [aval, columns])
    else:
        factors, taus_out = _lapack(ctx, "geqrf", [x], [aval, taus])
    q_aval, r_aval = ctx.avals_out[:2]
    reflectors = ShapedArray((*batch, m, max(q_aval.shape[-1], min(m, n))), aval.dtype)  # m by k, or m by m
    q_in = _staged(ctx, lambda f: _resized(f, reflectors.shape), [aval], factors)
    (q,) = _lapack(ctx, "ungqr" if aval.dtype.kind == "c" else "orgqr", [q_in, taus_out], [reflectors],
                   [reflectors, taus])  # fmt: skip
    r = _staged(ctx, lambda f: linalg.triu(_resized(f, r_aval.shape)), [aval], factors)
    if pivoting:  # geqp3 counts columns from 1, as Fortran does
        return [q, r, _staged(ctx, lambda p: lax.sub(p, lax.full_like(p, 1)), [columns], swaps)]
    return [q, r]


def _resized(x: Any, shape: tuple[int, ...]) -> Any:
    """Each matrix of x cut or padded with zeros (at the end of each axis) to ``shape``."""
    x = lax.slice(x, (0,) * x.ndim, tuple(min(a, b) for a, b in zip(x.shape, shape)))
    zero = lax.full((), 0, x.dtype)
    return lax.pad(x, zero, [(0, b - a, 0) for a, b in zip(x.shape, shape)])


def _identity_like(aval: ShapedArray) -> Any:
    """Identity matrices (rectangular, or empty) of ``aval``'s batch shape and dtype."""
    eye = np.eye(*aval.shape[-2:], dtype=aval.dtype)
    return lax.broadcast_in_dim(eye, aval.shape, (aval.ndim - 2, aval.ndim - 1))


def _nan_where_failed(*outs_and_info: Any) -> list[Any]:
    """Each result, NaN for the matrices whose ``info`` (the last operand) is not 0."""
    *outs, info = outs_and_info
    ok = lax.eq(info, lax.full_like(info, 0))
    return [lax.select_n(lax.broadcast_in_dim(ok, out.shape, tuple(range(info.ndim))), lax.full_like(out, np.nan), out)
            for out in outs]  # fmt: skip


def _lu_pivots_to_permutation(ctx: LoweringContext, pivots: str, *, permutation_size: int) -> list[str]:
    return lower_fun(lambda p: [_permutation_of_swaps(p, permutation_size=permutation_size)],
                     multiple_results=True)(ctx, pivots)


def _bool(value: bool) -> str:
    return "true" if value else "false"


lowering_rules[linalg.cholesky_p] = _cholesky
lowering_rules[linalg.triangular_solve_p] = _triangular_solve
lowering_rules[linalg.lu_p] = _lu
lowering_rules[linalg.eigh_p] = _eigh
lowering_rules[linalg.svd_p] = _svd
lowering_rules[linalg.qr_p] = _qr
lowering_rules[linalg.lu_pivots_to_permutation_p] = _lu_pivots_to_permutation
