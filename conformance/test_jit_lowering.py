"""Compilation at the edges of the structural primitives (jit area): ``jit(f)`` gives what ``f`` gives
eagerly (whose values the other areas check against NumPy) where a compiler must do more than map one
operation to one: out-of-bounds gathers and scatters in each mode, sort's order of NaNs and signed
zeros and its secondary keys, top_k along any axis, argmax's first NaN and first tie, cumulative
reductions from either end and through infinities, the reductions' identities for every kind of
dtype, padding and strided slices.

Every value here is moved, selected, compared or combined exactly (integers), so jit and eager agree
bit for bit (a NaN's sign and payload aside: no operation promises them), except the sums and
log-sum-exps of floats, held to the suite's tolerance per step.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conformance.checks import RTOL, assert_same_type, assert_values, wide
from conformance.impl import Impl
from conformance.missing import Namespace

pytestmark = [pytest.mark.area("jit"), pytest.mark.requires("jit")]

NAN, INF = np.nan, np.inf
# NaN of both signs, infinities, both zeros, ties.
SPECIAL = np.array([[3.0, NAN, -0.0, 0.0, -INF, 1.0, -NAN, INF], [0.0, -0.0, 2.0, 2.0, NAN, -1.0, 0.0, -0.0]],
                   np.float32)  # fmt: skip
ROWS = np.arange(20, dtype=np.float32).reshape(4, 5) - 7.5
INTS = np.array([[-128, 5, 127, 5], [-128, -128, -100, -128]], np.int8)


def _same_values(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal bit for bit, but for NaNs, whose sign and payload no operation promises."""
    if want.dtype.kind not in "fc" and want.dtype.name != "bfloat16":
        return bool(np.array_equal(got, want))
    got, want = wide(got), wide(want)
    nan = np.isnan(got) & np.isnan(want)
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    return bool(np.all(nan | same))


def check(impl: Impl, f: Callable[..., Any], *args: Any, exact: bool = True, steps: int = 1) -> None:
    """``jit(f)(*args)`` has the eager value's types and shapes, and its values: bit for bit with
    ``exact``, else within ``steps`` operations' tolerance (twice the suite's, each side has its own)."""
    args = tuple(impl.numpy.asarray(a) for a in args)  # arrays of the implementation: x.at, x.weak_type
    want = f(*args)
    got = Namespace(impl.module, "jax").jit(f)(*args)
    want, got = (list(v) if isinstance(v, (tuple, list)) else [v] for v in (want, got))
    assert len(got) == len(want), f"{len(got)} outputs, eagerly {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert_same_type(g, w, f"output {k}")
        g_np, w_np = np.asarray(g), np.asarray(w)
        assert g_np.shape == w_np.shape, f"output {k}: shape {g_np.shape}, eagerly {w_np.shape}"
        if exact or w_np.dtype.kind not in "fc":
            assert _same_values(g_np, w_np), f"output {k} differs from the eager value:\n got  {g_np!r}\n want {w_np!r}"
            continue
        scale = max(1.0, float(np.max(np.abs(wide(w_np)), initial=0.0, where=np.isfinite(w_np))))
        assert_values(g, wide(w_np), w_np.dtype, atol=2 * steps * RTOL[w_np.dtype.name] * scale)


# --- gather and scatter: out of bounds, every mode -------------------------------------------------------

OUT = np.array([4, -5, 9, -100, 2, 3], np.int32)  # past either end of an axis of 4 (and two inside)


@pytest.mark.parametrize("mode", ["fill", "clip", "promise_in_bounds"])
def test_jit_gather_out_of_bounds(impl: Impl, mode: str) -> None:
    """x.at[i].get in each mode, reading rows and columns, and the integers' and booleans' fills."""
    jnp = impl.numpy
    for x in (ROWS, ROWS.astype(np.int32), ROWS.astype(np.uint8), ROWS > 0):
        check(impl, lambda x, i: (x.at[i].get(mode=mode), x.at[:, i].get(mode=mode),
                                  jnp.take(x, i, axis=1, mode="fill" if mode == "fill" else "clip")), x, OUT)  # fmt: skip


def test_jit_gather_fill_of_windows_sticking_out(impl: Impl) -> None:
    """A window of two rows starting at the last row does not fit: fill mode fills it whole."""
    lax = impl.lax
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0,))
    starts = np.array([[0], [2], [3], [-1]], np.int32)
    check(impl, lambda x, s: (lax.gather(x, s, dn, (2, 5), mode="fill"), lax.gather(x, s, dn, (2, 5), mode="clip")),
          ROWS, starts)  # fmt: skip


@pytest.mark.parametrize("mode", [None, "clip", "drop", "promise_in_bounds"])
def test_jit_scatter_out_of_bounds(impl: Impl, mode: str | None) -> None:
    """Out-of-bounds updates dropped, or clamped in clip mode; repeated indices accumulate."""
    row = np.arange(5, dtype=np.float32) - 2.0
    check(impl, lambda x, i: (x.at[i].set(row, mode=mode), x.at[i].add(row, mode=mode), x.at[i].mul(1.5, mode=mode),
                              x.at[i].min(row, mode=mode), x.at[i].max(row, mode=mode)), ROWS, OUT)  # fmt: skip


def test_jit_scatter_sub_and_apply(impl: Impl) -> None:
    lax, jnp = impl.lax, impl.numpy
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))  # fmt: skip
    i = np.array([[1], [1], [3]], np.int32)
    updates = np.arange(15, dtype=np.float32).reshape(3, 5) / 4
    check(impl, lambda x, i, u: lax.scatter_sub(x, i, u, dn), ROWS, i, updates)
    check(impl, lambda x, i: x.at[i[:, 0]].apply(jnp.negative), ROWS, i)


# --- sort and top_k ----------------------------------------------------------------------------------------


def test_jit_sort_nans_last_and_zeros_tied(impl: Impl) -> None:
    """NaNs of either sign after inf; -0.0 and 0.0 equal, so a stable sort keeps their order (seen in
    the positions carried along)."""
    lax, jnp = impl.lax, impl.numpy
    positions = np.broadcast_to(np.arange(8, dtype=np.int32), SPECIAL.shape)
    check(impl, lambda x, p: (jnp.sort(x), *lax.sort((x, p), num_keys=1), jnp.argsort(x, axis=0)), SPECIAL, positions)


def test_jit_sort_with_two_keys(impl: Impl) -> None:
    lax = impl.lax
    first = np.array([[1, 0, 1, 0, 2, 1, 0, 2]] * 2, np.int32)
    positions = np.broadcast_to(np.arange(8, dtype=np.int32), SPECIAL.shape)
    check(impl, lambda a, x, p: lax.sort((a, x, p), num_keys=2), first, SPECIAL, positions)


def test_jit_top_k_along_any_axis(impl: Impl) -> None:
    lax = impl.lax
    check(impl, lambda x: (*lax.top_k(x, 3), *lax.top_k(x, 1, axis=0)), SPECIAL)
    check(impl, lambda x: (*lax.top_k(x, 2, axis=0), *lax.top_k(x, 4)), INTS)


# --- argmax, argmin, reductions --------------------------------------------------------------------------


def test_jit_argmax_argmin_first_nan_and_first_tie(impl: Impl) -> None:
    jnp = impl.numpy
    check(impl, lambda x: (jnp.argmax(x, 1), jnp.argmin(x, 1), jnp.argmax(x, 0), jnp.argmin(x, 0)), SPECIAL)
    check(impl, lambda x: (jnp.argmax(x, 1), jnp.argmin(x, 1)), INTS)


REDUCED = {
    "float32": SPECIAL[:, :6], "bfloat16": SPECIAL[:, :6], "int8": INTS[:, :3],
    "uint8": np.array([[0, 255, 7], [3, 0, 0]], np.uint8), "bool": INTS[:, :3] > 0,
}  # fmt: skip


@pytest.mark.parametrize("dtype", list(REDUCED))
def test_jit_reductions_max_min_identities(impl: Impl, dtype: str) -> None:
    """reduce_max and reduce_min of negatives, NaNs, bools, unsigned and bfloat16 values."""
    jnp = impl.numpy
    x = jnp.asarray(REDUCED[dtype], dtype=dtype)
    check(impl, lambda x: (jnp.max(x, 1), jnp.min(x, 1), jnp.max(x, 0), jnp.min(x)), x)


# --- cumulative reductions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_jit_cumulative_reductions(impl: Impl, reverse: bool) -> None:
    lax = impl.lax
    check(impl, lambda x: (lax.cummax(x, 1, reverse), lax.cummin(x, 0, reverse)), SPECIAL)
    check(impl, lambda x: (lax.cumsum(x, 1, reverse), lax.cumprod(x, 0, reverse)), INTS.astype(np.int32))
    check(impl, lambda x: lax.cumsum(x, 1, reverse), ROWS, exact=False, steps=5)


def test_jit_cumlogsumexp_through_infinities(impl: Impl) -> None:
    """-inf then -inf stays -inf (exp(-inf - -inf) is NaN: the sum of the two is the answer)."""
    x = np.array([[-INF, -INF, 0.5, -INF], [INF, 1.0, INF, -2.0], [0.0, -1.0, NAN, 3.0]], np.float32)
    check(impl, lambda x: (impl.lax.cumlogsumexp(x, 1), impl.lax.cumlogsumexp(x, 1, reverse=True)), x,
          exact=False, steps=4)  # fmt: skip


# --- slicing, padding, joining --------------------------------------------------------------------------


def test_jit_strided_slice_pad_and_concatenate(impl: Impl) -> None:
    lax, jnp = impl.lax, impl.numpy
    check(impl, lambda x: (x[::2, 1::3], x[::-1, ::2], lax.slice(x, (0, 1), (4, 5), (3, 2))), ROWS)
    check(impl, lambda x: (lax.pad(x, np.float32(-1), [(1, -1, 1), (-2, 2, 2)]), jnp.concatenate([x, x[:, :2]], 1),
                           jnp.stack([x, x], 2)), ROWS)  # fmt: skip


# --- elementwise and structural: where one operation maps to one, but its attributes matter ----------------


def test_jit_unsigned_comparisons(impl: Impl) -> None:
    """uint8 and uint32 values past the signed range compare as unsigned: 200 > 100."""
    for dtype in (np.uint8, np.uint32):
        x = np.array([200, 100, 0, 255, 129, 1]).astype(dtype)
        y = np.array([100, 200, 255, 0, 127, 1]).astype(dtype)
        check(impl, lambda x, y: (x < y, x <= y, x > y, x >= y, x == y, x != y), x, y)


def test_jit_conversion_to_bool_is_not_zero(impl: Impl) -> None:
    """A fraction converts to True (x != 0), not to int(x) == 1; so do negative numbers and NaN."""
    jnp = impl.numpy
    x = np.array([0.5, -0.25, 0.0, -0.0, 2.0, NAN, 1e-30], np.float32)
    check(impl, lambda x: (x.astype(jnp.bool_), jnp.asarray(x * 1j, jnp.complex64).astype(jnp.bool_)), x)


def test_jit_rounding_ties(impl: Impl) -> None:
    """lax.round's two methods differ only at ties: away from zero (0) and to even (1)."""
    lax = impl.lax
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.0], np.float32)
    check(impl, lambda x: (lax.round(x, 0), lax.round(x, 1), impl.numpy.round(x)), x)


def test_jit_transpose_of_three_axes(impl: Impl) -> None:
    """A 3-cycle of axes, which is not its own inverse (two axes hide a wrong direction)."""
    jnp = impl.numpy
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(impl, lambda x: (jnp.transpose(x, (1, 2, 0)), jnp.transpose(x, (2, 0, 1)), jnp.moveaxis(x, 0, -1)), x)


# --- control flow and samplers under jit ---------------------------------------------------------------------


def test_jit_of_vmap_of_a_while_loop_with_trip_counts_per_example(impl: Impl) -> None:
    """Each example stops at its own count; the ones that stopped must keep their carry while the
    others go on (a body run too often doubles it again)."""
    jax, lax = Namespace(impl.module, "jax"), impl.lax

    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]

    n = np.array([0, 1, 3, 5], np.int32)
    x = np.array([1.0, 1.5, -2.0, 0.25], np.float32)
    check(impl, jax.vmap(f), n, x)


@pytest.mark.parametrize("reverse", [False, True])
def test_jit_scan_stacks_ys_at_the_rows_of_their_xs(impl: Impl, reverse: bool) -> None:
    """A reverse scan runs from the last row, but its ys are stacked at their xs' rows."""
    lax = impl.lax

    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * x), 1.0, xs, reverse=reverse)

    check(impl, f, np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32), exact=False, steps=5)


def test_jit_loggamma_and_gamma(impl: Impl) -> None:
    """random.loggamma under jit gives the logs of gamma's samples (its own primitive parameter)."""
    random = impl.module.random
    key = random.key(0)  # captured: a constant of the compiled function
    a = np.array([0.5, 1.0, 3.0, 10.0], np.float32)
    check(impl, lambda a: (random.gamma(key, a), random.loggamma(key, a)), a, exact=False, steps=40)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_jit_incomplete_gamma_far_from_the_origin(impl: Impl, dtype: str) -> None:
    """igamma where its series needs many terms (a and x large and close), and in float16, which
    is computed in float32 and rounded once."""
    lax = impl.lax
    a = np.array([200.0, 1000.0, 100.0, 30.0, 0.5, 8.0], dtype)
    x = np.array([190.0, 980.0, 110.0, 29.0, 0.2, 8.5], dtype)
    check(impl, lambda a, x: (lax.igamma(a, x), lax.igammac(a, x)), a, x, exact=False, steps=2)


def test_jit_fft_of_each_kind(impl: Impl) -> None:
    """The four transforms over one to three axes, compiled, against eager evaluation."""
    x = np.random.default_rng(4).normal(size=(3, 4, 6)).astype(np.float32)
    z = (x + 1j * x[::-1]).astype(np.complex64)
    fft = impl.numpy.fft
    check(impl, lambda x, z: (fft.fft(z), fft.ifft2(z), fft.rfftn(x), fft.irfft(z, n=9), fft.irfftn(z, s=(2, 4, 5))),
          x, z, exact=False, steps=8)


def test_jit_convolutions(impl: Impl) -> None:
    """Strides, pads, both dilations, both kinds of groups, a layout, and a transposed convolution,
    compiled, against eager evaluation."""
    rng = np.random.default_rng(6)
    x, w = rng.normal(size=(4, 4, 6, 5)).astype(np.float32), rng.normal(size=(4, 2, 3, 2)).astype(np.float32)
    hwio = rng.normal(size=(3, 2, 5, 2)).astype(np.float32)  # for x read as NHWC: 5 features
    conv = impl.lax.conv_general_dilated
    check(impl, lambda x, w, k: (conv(x, w, (2, 1), [(1, 2), (0, -1)], (1, 2), (2, 1), feature_group_count=2),
                                 conv(x[:, :2], w, (1, 1), "SAME", batch_group_count=2),
                                 conv(x[:, :2], w[:2], (1, 2), "VALID", dimension_numbers=("NCWH", "OIWH", "CWHN")),
                                 impl.lax.conv_transpose(x, k, (2, 1), "SAME")), x, w, hwio, exact=False, steps=12)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_jit_linalg(impl: Impl, dtype: str) -> None:
    """A batch of Cholesky factors, one of a matrix that is not positive definite (NaNs in its
    lower triangle), and triangular solves with every flag, compiled, against eager evaluation."""
    rng = np.random.default_rng(8)
    m = rng.normal(size=(2, 3, 3)) + (1j * rng.normal(size=(2, 3, 3)) if dtype == "complex64" else 0)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + 3 * np.eye(3)
    a[1] = [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    t = np.tril(m[0]) * 0.3 + 2 * np.eye(3)
    b = rng.normal(size=(3, 2))
    linalg = Namespace(impl.lax.linalg, "lax.linalg")
    check(impl, linalg.cholesky, a.astype(dtype), exact=False, steps=12)
    solves = lambda t, b: [linalg.triangular_solve(t if lower else t.T, b if left else b.T, left_side=left, lower=lower,  # noqa: E731
                                                   transpose_a=tr, conjugate_a=cj, unit_diagonal=unit)
                           for left, lower, tr, cj, unit in itertools.product([False, True], repeat=5)]  # fmt: skip
    check(impl, solves, t.astype(dtype), b.astype(dtype), exact=False, steps=12)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_jit_linalg_lu_and_what_is_built_on_it(impl: Impl, dtype: str) -> None:
    """LU of square and rectangular batches (pivots and permutation exactly), the permutation of a
    batch of swaps, solve, det and slogdet, eigh (either triangle), svd and lstsq, and qr, compiled,
    against eager evaluation."""
    rng = np.random.default_rng(9)
    draw = lambda *shape: (rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype == "complex64" else 0)  # noqa: E731
                           ).astype(dtype)  # fmt: skip
    linalg = Namespace(impl.lax.linalg, "lax.linalg")
    for x in (draw(2, 4, 4), draw(5, 3), draw(3, 5)):
        check(impl, linalg.lu, x, exact=False, steps=12)
    pivots = np.array([[2, 2, 2], [1, 1, 2], [0, 2, 2]], np.int32)
    check(impl, lambda p: linalg.lu_pivots_to_permutation(p, 5), pivots)
    jnp_linalg = Namespace(impl.numpy.linalg, "jnp.linalg")
    check(impl, lambda a, b: (jnp_linalg.solve(a, b), jnp_linalg.det(a), *jnp_linalg.slogdet(a)), draw(2, 4, 4),
          draw(2, 4, 2), exact=False, steps=12)  # fmt: skip
    # eigh: each eigenvector is defined up to a phase, which two LAPACK builds may pick differently
    eigh = lambda a: (linalg.eigh(a)[1], impl.numpy.abs(linalg.eigh(a, lower=False, symmetrize_input=False)[0]))  # noqa: E731
    check(impl, eigh, draw(2, 4, 4), exact=False, steps=12)
    # svd: the singular values and a rebuilt matrix (each singular pair is defined up to a phase)
    for full_matrices in (True, False):
        svd = lambda a: (linalg.svd(a, compute_uv=False), impl.numpy.abs(linalg.svd(a, full_matrices=full_matrices)[0]))  # noqa: E731,B023
        check(impl, svd, draw(2, 4, 3), exact=False, steps=12)
    check(impl, lambda a: impl.numpy.linalg.lstsq(a, a[:, 0] + 1)[0], draw(5, 3), exact=False, steps=12)
    # qr, reduced and full, with the columns pivoted too (the pivots exactly)
    for x in (draw(2, 4, 3), draw(3, 5)):
        check(impl, lambda a: (*linalg.qr(a), *linalg.qr(a, full_matrices=False, pivoting=True)), x, exact=False, steps=12)


def test_jit_windowed_reductions(impl: Impl) -> None:
    """Sum, max and min pooling with strides, pads, and both dilations, and other computations,
    compiled, against eager evaluation (max and min exactly)."""
    lax = impl.lax
    x = np.random.default_rng(7).normal(size=(2, 6, 5)).astype(np.float32)
    args = ((1, 2, 3), (1, 2, 1), [(0, 0), (1, 2), (-1, 1)], (1, 1, 2), (1, 2, 1))
    check(impl, lambda x: (lax.reduce_window(x, -np.inf, lax.max, *args), lax.reduce_window(x, np.inf, lax.min, *args)),
          x)  # fmt: skip
    check(impl, lambda x: lax.reduce_window(x, 0.0, lax.add, *args), x, exact=False, steps=6)
    # another computation (a sum from 1, pads and holes skipped), and a pair: the maximum and where it is
    check(impl, lambda x: lax.reduce_window(x, np.float32(1.0), lax.add, *args), x, exact=False, steps=6)
    where = np.broadcast_to(np.arange(5, dtype=np.int32), x.shape)
    first_max = lambda a, b: (lax.max(a[0], b[0]), lax.select(a[0] >= b[0], a[1], b[1]))  # noqa: E731
    check(impl, lambda x, w: lax.reduce_window((x, w), (np.float32(-np.inf), np.int32(0)), first_max, (1, 1, 2),
                                               (1, 1, 2), "VALID"), x, where)  # fmt: skip


def test_jit_reduce_precision_bit_for_bit(impl: Impl) -> None:
    """Random bit patterns (NaNs, infinities, subnormals among them) to four formats."""
    x = np.random.default_rng(5).integers(0, 2**32, size=2048, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for e, m in [(8, 7), (5, 10), (4, 3), (2, 0)]:
        check(impl, lambda a: impl.lax.reduce_precision(a, e, m), x)
