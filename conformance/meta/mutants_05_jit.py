"""The mutants of stage 05 (jit, compiled by XLA): single, realistic bugs the conformance suite must
notice.

Stage 05 is stage 04 plus jit, so its catalogue is stage 04's (under the same ids) followed by
``LOWERING_MUTANTS``: one wrong lowering rule each, which the ``jit`` area must notice (jit(f)
against eager f). These are the rules of control flow (``didax/lowering/control_flow.py``: cond,
while, scan), of the slicing and sorting primitives the loops lean on (``lowering/slicing.py``), of
the key primitives (``lowering/random.py``) and of the special functions XLA has no operation for
(``lowering/special.py``); and, noticed by test_jit_lowering.py, of slicing and padding, the
reductions' identities (``lowering/structural.py``), gather's fill and scatter's clip modes and the
scatters' combiners (``lowering/indexing.py``), top_k's axis (``lowering/sorting.py``), argmax's
NaNs and ties and the cumulative reductions (``lowering/reductions.py``). Run them with

    python -m conformance.meta.mutate --stage 05_jit --quick --only lower.cond.branches_reversed ...

Proposed, not yet run: the ``jit`` area was being written while these were (its keywords here are
the names of its tests then: ``primitive_under_jit``, ``random_program``, ``random_under_jit``,
``jit_of_vmap``). Each is killed by the stage's own lowering tests (tests/test_lowering_*.py).

Not here, because no test could tell it from the original: the sums of the incomplete gamma function
stopping when the value has converged though its derivatives in a have not. A derivative's terms
shrink as the value's do, times a slowly growing factor, so it converges a step or two later, and
stopping early moves it by about one rounding. Nor, for the same reason on XLA's CPU backend: sort's
``is_stable`` set to false (its sort is stable anyway), dot_general's operands of two types left
unconverted (XLA converts them itself); nor dynamic_slice's start indices of two types left
unconverted (XLA rejects the module), since JAX's lax raises TypeError for such indices where
didax's accepts them, so the suite, which passes against JAX, has no program to show it.
"""

from __future__ import annotations

from conformance.meta.mutants_04_jaxpr import MUTANTS as JAXPR_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

CONTROL_FLOW = "didax/lowering/control_flow.py"
SLICING = "didax/lowering/slicing.py"
RANDOM = "didax/lowering/random.py"
SPECIAL = "didax/lowering/special.py"
STRUCTURAL = "didax/lowering/structural.py"
INDEXING = "didax/lowering/indexing.py"
SORTING = "didax/lowering/sorting.py"
REDUCTIONS = "didax/lowering/reductions.py"
AREA = ("jit",)
PRIMITIVES = "primitive_under_jit"
PROGRAMS = "random_program or primitive_under_jit"
SAMPLERS = "random_under_jit or primitive_under_jit"
# test_jit_lowering.py's tests (jit against eager at the structural primitives' edges)
GATHER_SCATTER = "index or gather or scatter or at_ or take"
SORT = "sort or top_k"
ARG = "argmax or argmin or arg"
CUM = "cum"

LOWERING_MUTANTS: list[Mutant] = [
    # --- control flow ----------------------------------------------------------------------------------------
    Mutant(
        "lower.cond.branches_reversed", CONTROL_FLOW,
        "    for branch in branches:\n", "    for branch in reversed(branches):\n",
        AREA, "cond's branches become stablehlo.case's regions in reverse order: the index picks the wrong one",
        keyword=PROGRAMS,
    ),
    Mutant(
        "lower.while.batched_predicate_any_as_all", CONTROL_FLOW,
        '    body.ret([body.builder.op1("stablehlo.or", body.args, I1)])',
        '    body.ret([body.builder.op1("stablehlo.and", body.args, I1)])',
        AREA, "a while loop whose predicate varies by example (vmap) stops when the first example stops, not "
        "the last", keyword="jit_of_vmap or vmap",
    ),
    Mutant(
        "lower.while.stopped_examples_go_on", CONTROL_FLOW,
        "        new = [_where_leading(body.builder, pred, pred_ndim, n, o) for n, o in zip(new, body.args)]\n",
        "",
        AREA, "under vmap, the examples whose loop has stopped keep running the body while the others finish",
        keyword="jit_of_vmap or vmap" + " or trip_counts",
    ),
    Mutant(
        "lower.scan.one_step_too_many", CONTROL_FLOW,
        '_LT = {"comparison_direction": "#stablehlo<comparison_direction LT>",',
        '_LT = {"comparison_direction": "#stablehlo<comparison_direction LE>",',
        AREA, "scan's loop runs length + 1 steps (i <= length): the last row is read and the carry updated twice",
        keyword=PROGRAMS,
    ),
    Mutant(
        "lower.scan.reverse_ignored", CONTROL_FLOW,
        "    row = bb.op1(\"stablehlo.subtract\", [last, i], I32) if reverse else i\n",
        "    row = i\n",
        AREA, "a reverse scan runs from the first row, as a forward one", keyword=PROGRAMS,
    ),
    Mutant(
        "lower.scan.ys_written_in_step_order", CONTROL_FLOW,
        "        new_ys.append(dynamic_update_slice(bb, buffer, one, starts(a)))\n",
        "        new_ys.append(dynamic_update_slice(bb, buffer, one, [i, *starts(a)[1:]]))\n",
        AREA, "a reverse scan stacks its ys in the order of its steps, not at the rows of their xs",
        keyword=PROGRAMS + " or stacks_ys",
    ),
    # --- slicing and sorting ----------------------------------------------------------------------------------
    Mutant(
        "lower.rev.first_axis_only", SLICING,
        '    return ctx.fb.op1("stablehlo.reverse", [x], ctx.out_type(), {"dimensions": i64_array(dimensions)})',
        '    return ctx.fb.op1("stablehlo.reverse", [x], ctx.out_type(), {"dimensions": i64_array(dimensions[:1])})',
        AREA, "rev reverses only the first of its dimensions", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.pad.low_and_high_swapped", SLICING,
        '    attrs = {"edge_padding_low": i64_array(lo), "edge_padding_high": i64_array(hi),',
        '    attrs = {"edge_padding_low": i64_array(hi), "edge_padding_high": i64_array(lo),',
        AREA, "pad puts its low padding at the end and its high padding at the start", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.sort.signed_zero_and_nan_by_bits", SLICING,
        '            if is_float(d):\n                a, b = _canonical(rb, a, d), _canonical(rb, b, d)\n', "",
        AREA, "sort compares floats by their total order as they are: -0.0 before 0.0, -NaN first, where lax's "
        "sort treats them as equal and puts every NaN last", keyword="sort",
    ),
    Mutant(
        "lower.sort.later_keys_ignored", SLICING,
        '        less = rb.op1("stablehlo.or", [_compare(rb, a, b, "LT", d), tie], "tensor<i1>")',
        '        less = _compare(rb, a, b, "LT", d)',
        AREA, "sort with several keys orders by the first alone: ties are not broken by the next keys",
        keyword="sort",
    ),
    # --- random ------------------------------------------------------------------------------------------------
    Mutant(
        "lower.random_seed.high_word_dropped", RANDOM,
        "lower_fun(lambda seeds, *, impl: prng.threefry_seed(seeds))",
        "lower_fun(lambda seeds, *, impl: prng.threefry_seed(seeds.astype('int32')))",
        AREA, "a 64-bit seed is truncated to 32 bits before hashing: keys from seeds past 2**31 differ",
        keyword=SAMPLERS,
    ),
    Mutant(
        "lower.threefry.rotation_groups_not_alternated", RANDOM,
        "return x0, x1, kb, kc, ka, those, these", "return x0, x1, kb, kc, ka, these, those",
        AREA, "the looped hash rotates by the first group's distances in every iteration", keyword=SAMPLERS,
    ),
    Mutant(
        "lower.threefry.group_number_from_zero", RANDOM,
        "lax.convert_element_type(lax.add(i, 1), np.uint32)", "lax.convert_element_type(i, np.uint32)",
        AREA, "the looped hash's key injection adds the group's index, not its number (one more)",
        keyword=SAMPLERS,
    ),
    Mutant(
        "lower.random_gamma.log_space_ignored", RANDOM,
        'distributions.random_gamma_p: lower_fun(distributions._gamma_impl, function="gamma"),',
        "distributions.random_gamma_p: lower_fun(lambda k, a, *, log_space: distributions._gamma_impl(k, a, "
        'log_space=False), function="gamma"),',
        AREA, "compiled loggamma draws gamma's samples, not their logs", keyword="gamma",
    ),
    # --- special functions -------------------------------------------------------------------------------------
    Mutant(
        "lower.bessel_i0e.series_not_scaled", SPECIAL,
        "    series = total * jnp.exp(-s)\n", "    series = total\n",
        AREA, "bessel_i0e gives I0(x), not exp(-|x|) I0(x), for |x| <= 20", keyword="bessel or i0e",
    ),
    Mutant(
        "lower.igamma.p_and_q_swapped_on_fraction", SPECIAL,
        "    p = jnp.where(ok, jnp.where(fraction, 1 - scaled, scaled), np.nan)\n",
        "    p = jnp.where(ok, jnp.where(fraction, scaled, 1 - scaled), np.nan)\n",
        AREA, "where Q's continued fraction is used (x > a, x >= 1), igamma gives Q instead of P",
        keyword="igamma",
    ),
    Mutant(
        "lower.igamma.series_stops_early", SPECIAL,
        "_SERIES_STEPS = 2000", "_SERIES_STEPS = 20",
        AREA, "P's power series is cut off after 20 terms, short of convergence where a and x are large",
        keyword="igamma" + " or incomplete_gamma",
    ),
    Mutant(
        "lower.igamma_grad_a.sign_on_fraction", SPECIAL,
        "    return _with_derivative_edges(a, x, jnp.where(fraction, -dp, dp))\n",
        "    return _with_derivative_edges(a, x, dp)\n",
        AREA, "igamma_grad_a differentiates Q, not P, where the continued fraction is used", keyword="igamma",
    ),
    Mutant(
        "lower.random_gamma_grad.series_sign", SPECIAL,
        "    g = _where(fraction, w * x, -(w / _variable(a_ok, order)) * x)\n",
        "    g = _where(fraction, w * x, (w / _variable(a_ok, order)) * x)\n",
        AREA, "the gamma sample's derivative in a has the wrong sign where P's series is used (x <= 1 or x <= a)",
        keyword="gamma",
    ),
    Mutant(
        "lower.special.half_precision_not_widened", SPECIAL,
        "        work = np.float32 if np.dtype(dtype).itemsize < 4 else dtype\n",
        "        work = dtype\n",
        AREA, "float16 and bfloat16 operands are summed in their own precision, where eager rounds a float64 "
        "result once", keyword="igamma or bessel or i0e" + " or incomplete_gamma",
    ),
    # --- structural (test_jit_lowering.py): slicing, padding, joining, reductions ------------------------------------------------
    Mutant(
        "lower.slice.strides_ignored", SLICING,
        "    strides = strides or (1,) * len(start_indices)\n", "    strides = (1,) * len(start_indices)\n",
        AREA, "a strided slice is lowered without its strides (x[::2] reads x[:n])", keyword="slice",
    ),
    Mutant(
        "lower.pad.interior_dropped", SLICING,
        '"interior_padding": i64_array(interior)}', '"interior_padding": i64_array([0] * len(interior))}',
        AREA, "pad's interior padding is left out of the StableHLO pad", keyword="pad",
    ),
    Mutant(
        "lower.concatenate.first_axis", SLICING,
        '{"dimension": f"{dimension} : i64"})', '{"dimension": "0 : i64"})',
        AREA, "concatenate always joins along the first axis", keyword="concatenate or stack or append",
    ),
    Mutant(
        "lower.reduce_max.integer_identity_zero", STRUCTURAL,
        "return -np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).min",
        "return -np.inf if dtypes.is_inexact(dtype) else 0",
        AREA, "reduce_max of integers starts from 0, not the lowest integer: a row of negatives gives 0",
        keyword="max or reduc",
    ),
    Mutant(
        "lower.reduce_max.bfloat16_identity", STRUCTURAL,
        "return -np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).min",
        'return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min',
        AREA, "reduce_max's identity asks iinfo of bfloat16, whose dtype kind is not 'f': lowering fails",
        keyword="max or reduc",
    ),
    # --- gather and scatter -----------------------------------------------------------------------------------
    Mutant(
        "lower.gather.fill_ignored", INDEXING,
        "    if mode != GatherScatterMode.FILL_OR_DROP:\n", "    if True:\n",
        AREA, "gather's FILL_OR_DROP is lowered like CLIP: out-of-bounds reads give a clamped window, not the fill",
        keyword=GATHER_SCATTER,
    ),
    Mutant(
        "lower.gather.fill_last_index_out", INDEXING,
        'compare(ctx, indices, high, "LE", aval.dtype, pred)', 'compare(ctx, indices, high, "LT", aval.dtype, pred)',
        AREA, "gather's fill mask counts the last valid start as out of bounds", keyword=GATHER_SCATTER,
    ),
    Mutant(
        "lower.gather.fill_bound_ignores_window", INDEXING,
        "highest = [op_aval.shape[d] - slice_sizes[d] for d in dn.start_index_map]",
        "highest = [op_aval.shape[d] - 1 for d in dn.start_index_map]",
        AREA, "gather's fill mask lets a window that sticks out past the end count as fitting", keyword=GATHER_SCATTER,
    ),
    Mutant(
        "lower.scatter.clip_not_clamped", INDEXING,
        "        if mode == GatherScatterMode.CLIP:\n", "        if False:\n",
        AREA, "a scatter in CLIP mode drops out-of-bounds updates (XLA's own behaviour) instead of clamping them",
        keyword=GATHER_SCATTER,
    ),
    Mutant(
        "lower.scatter.set_keeps_old", INDEXING,
        "            body.ret([update])\n", "            body.ret([old])\n",
        AREA, "the overwriting scatter's combiner returns the old value: x.at[i].set(v) changes nothing",
        keyword=GATHER_SCATTER,
    ),
    Mutant(
        "lower.scatter.apply_ignored", INDEXING,
        "        if update_jaxpr is not None:\n", "        if False:\n",
        AREA, "scatter_apply's update_jaxpr is ignored: x.at[i].apply(f) writes the placeholder zeros",
        keyword="apply",
    ),
    Mutant(
        "lower.scatter_sub.adds", INDEXING,
        'lax.scatter_sub_p: _scatter_rule("stablehlo.subtract")', 'lax.scatter_sub_p: _scatter_rule("stablehlo.add")',
        AREA, "scatter_sub adds its updates", keyword="scatter",
    ),
    # --- top_k --------------------------------------------------------------------------------------------
    Mutant(
        "lower.top_k.axis_not_moved", SORTING,
        "    perm[axis], perm[last] = last, axis", "    perm[axis], perm[last] = axis, last",
        AREA, "top_k along an axis other than the last takes it along the last", keyword=SORT,
    ),
    # --- argmax, argmin, cumulative reductions ---------------------------------------------------------------
    Mutant(
        "lower.argmax.nan_not_extreme", REDUCTIONS,
        "        if dtypes.is_float(dtype):  # ...or the only NaN; two NaNs are the same\n", "        if False:\n",
        AREA, "argmax's combiner does not pick a NaN: the index of the largest number, not of the first NaN",
        keyword=ARG,
    ),
    Mutant(
        "lower.argmax.two_nans_not_a_tie", REDUCTIONS,
        "            same = b.op1(\"stablehlo.or\", [same, b.op1(\"stablehlo.and\", [nan1, nan2], \"tensor<i1>\")], \"tensor<i1>\")\n",
        "",
        AREA, "argmax's combiner does not count two NaNs as a tie, so it keeps the second one it is given: "
        "the index of a later NaN, not of the first",
        keyword=ARG,
    ),
    Mutant(
        "lower.argmax.last_tie", REDUCTIONS,
        '_cmp(b, i1, i2, "LT", index_dtype)', '_cmp(b, i1, i2, "GT", index_dtype)',
        AREA, "argmax and argmin give the last of equal extremes, not the first", keyword=ARG,
    ),
    Mutant(
        "lower.cumulative.reverse_ignored", REDUCTIONS,
        "padding[axis, 1 if reverse else 0] = n - 1", "padding[axis, 0] = n - 1",
        AREA, "a cumulative reduction with reverse=True runs from the front", keyword=CUM,
    ),
    Mutant(
        "lower.cumlogsumexp.infinities_nan", REDUCTIONS,
        '    return b.op1("stablehlo.select", [is_nan, b.op1("stablehlo.add", [x, y], typ), smooth], typ)\n',
        "    return smooth\n",
        AREA, "cumlogsumexp of -inf and -inf is NaN (max + log1p(exp(-|-inf - -inf|))), not -inf", keyword=CUM,
    ),
    Mutant(
        "lower.fft.lengths_reversed", "didax/lowering/fourier.py",
        '"fft_length": i64_array(fft_lengths)', '"fft_length": i64_array(fft_lengths[::-1])',
        AREA, "stablehlo.fft is given the transformed axes' lengths in reverse order", keyword="fft",
    ),
    Mutant(
        "lower.reduce_precision.bits_swapped", "didax/lowering/elementwise.py",
        'attrs = {"exponent_bits": f"{exponent_bits} : i32", "mantissa_bits": f"{mantissa_bits} : i32"}',
        'attrs = {"exponent_bits": f"{mantissa_bits} : i32", "mantissa_bits": f"{exponent_bits} : i32"}',
        AREA, "stablehlo.reduce_precision is given the mantissa bits as exponent bits and the reverse",
        keyword="reduce_precision",
    ),
    Mutant(
        "lower.cholesky.upper_triangle", "didax/lowering/linalg.py", 'uplo="L")', 'uplo="U")', AREA,
        "LAPACK's potrf is asked to factor the upper triangle, while the rule keeps the lower one", keyword="linalg",
    ),
    Mutant(
        "lower.cholesky.failure_not_nan", "didax/lowering/linalg.py",
        "lax.select_n(ok, lax.full_like(factor, np.nan), linalg.tril(factor))", "linalg.tril(factor)", AREA,
        "a matrix potrf could not factor keeps the partial factor instead of NaNs", keyword="linalg",
    ),
    Mutant(
        "lower.lapack.row_major", "didax/lowering/linalg.py", "_layout(a, a.ndim == rank)", "_layout(a, False)",
        AREA, "LAPACK's operands are laid out row by row: it reads each matrix transposed", keyword="linalg",
    ),
    Mutant(
        "lower.triangular_solve.adjoint_not_conjugated", "didax/lowering/linalg.py",
        'trans = ("C" if conjugate_a else "T")', 'trans = ("T" if conjugate_a else "T")', AREA,
        "trsm applies the transpose where the adjoint was asked", keyword="linalg",
    ),
    Mutant(
        "lower.triangular_solve.unit_diagonal_read", "didax/lowering/linalg.py",
        'diag="U" if unit_diagonal else "N"', 'diag="N"', AREA,
        "trsm divides by the diagonal where it is to be taken as ones", keyword="linalg",
    ),
    Mutant(
        "lower.lu.pivots_from_one", "didax/lowering/linalg.py",
        "pivots = lax.sub(swaps, lax.full_like(swaps, 1))", "pivots = swaps", AREA,
        "getrf's pivots are passed on as LAPACK counts rows, from 1", keyword="linalg",
    ),
    Mutant(
        "lower.lu.swap_writes_one_side", "didax/lowering/linalg.py",
        "lax.select_n(at_i, lax.select_n(at_j, permutation, value_i), value_j)",
        "lax.select_n(at_i, permutation, value_j)", AREA,
        "a swap of the permutation writes row j's entry into place i but not row i's into place j", keyword="linalg",
    ),
    Mutant(
        "lower.eigh.lower_triangle_always", "didax/lowering/linalg.py", 'mode="V", uplo="L" if lower else "U")',
        'mode="V", uplo="L")', AREA, "syevd is asked to read the lower triangle even for lower=False", keyword="linalg",
    ),
    Mutant(
        "lower.svd.never_full", "didax/lowering/linalg.py", 'mode = ("A" if full_matrices else "S")',
        'mode = ("S" if full_matrices else "S")', AREA,
        "gesdd is asked for min(m, n) columns of U and rows of V^H when all of them were asked for",
        keyword="linalg",
    ),
    Mutant(
        "lower.qr.pivots_from_one", "didax/lowering/linalg.py",
        "return [q, r, _staged(ctx, lambda p: lax.sub(p, lax.full_like(p, 1)), [columns], swaps)]",
        "return [q, r, swaps]", AREA, "geqp3's pivots are returned as Fortran counts them, from 1", keyword="linalg",
    ),
    Mutant(
        "lower.qr.reflectors_left_in_r", "didax/lowering/linalg.py",
        "r = _staged(ctx, lambda f: linalg.triu(_resized(f, r_aval.shape)), [aval], factors)",
        "r = _staged(ctx, lambda f: _resized(f, r_aval.shape), [aval], factors)", AREA,
        "R keeps geqrf's Householder vectors below its diagonal", keyword="linalg",
    ),
    Mutant(
        "lower.qr.orgqr_without_taus", "didax/lowering/linalg.py", "[q_in, taus_out], [reflectors],",
        "[q_in, _staged(ctx, lambda t: lax.full_like(t, 0), [taus], taus_out)], [reflectors],", AREA,
        "orgqr gets zero scales: every reflector is the identity, and Q is the identity's columns", keyword="linalg",
    ),
]  # fmt: skip

JIT = "didax/jit.py"
CONFIG = "didax/config.py"
XLA = "didax/xla.py"
ARRAY = "didax/array.py"
ELEMENTWISE = "didax/lowering/elementwise.py"
STRUCTURAL = "didax/lowering/structural.py"
SIGNATURE = "traces_once or signature or weak"

# The jit primitive, its caches and the device Array (didax/jit.py, didax/array.py), and the first
# families of lowering rules (elementwise.py, structural.py).
JIT_MUTANTS: list[Mutant] = [
    Mutant(
        "jit.cache.key_without_weak_type", JIT,
        "        avals = tuple(map(shaped_abstractify, leaves))  # types, never values\n",
        "        avals = tuple(ShapedArray(a.shape, a.dtype) for a in map(shaped_abstractify, leaves))\n",
        AREA, "the trace cache is keyed by shape and dtype only: a weak and a strong argument share a trace",
        keyword=SIGNATURE,
    ),
    Mutant(
        "jit.cache.key_without_tree", JIT,
        "        key = _key(in_tree, avals, statics)\n",
        "        key = _key(avals, statics)\n",
        AREA, "the trace cache ignores the arguments' tree: a dict and a list of the same leaves share a trace",
        keyword=SIGNATURE,
    ),
    Mutant(
        "jit.cache.key_without_x64", CONFIG,
        '_TRACE_FLAGS = ("jax_enable_x64", "jax_numpy_dtype_promotion",',
        '_TRACE_FLAGS = ("jax_numpy_dtype_promotion",',
        AREA, "jit's caches ignore the 64-bit flag: after enable_x64 a call runs the executable traced without it",
        keyword="x64",
    ),
    Mutant(
        "jit.cache.key_without_promotion_mode", CONFIG,
        '_TRACE_FLAGS = ("jax_enable_x64", "jax_numpy_dtype_promotion",',
        '_TRACE_FLAGS = ("jax_enable_x64",',
        AREA, "jit's caches ignore the promotion mode: inside numpy_dtype_promotion('strict') a call promoting "
        "int32 with float32 runs the standard mode's trace instead of raising TypePromotionError",
        keyword="promotion_mode",
    ),
    Mutant(
        "jit.cache.key_without_debug_nans", CONFIG,
        '"jax_debug_nans", "jax_platform_name",', '"jax_platform_name",',
        AREA, "jit's caches ignore jax_debug_nans: a call cached with the flag off runs unchecked with it on",
        keyword="debug_nans",
        equivalent="for the suite, which passes on JAX: JAX 0.10.2's own fast path skips the NaN check on a "
        "call cached while the flag was off, in a process that has run a jitted jvp (the jit area does), so "
        "no conformance test may ask for it; stage 05's test_debug_nans_checks_a_call_cached_while_it_was_off "
        "kills this mutant",
    ),
    Mutant(
        "jit.cache.one_per_jit_object", JIT,
        "        per_options = _CACHES.setdefault(fun, {})\n",
        "        raise TypeError\n",
        AREA, "each jit(f) keeps caches of its own: jax.jit(f)(x) written in a loop traces and compiles every time",
        keyword="same_function",
    ),
    Mutant(
        "jit.cache.shared_across_options", JIT,
        "    return per_options.setdefault(options, ({}, {}))\n",
        "    return per_options.setdefault((), ({}, {}))\n",
        AREA, "jits of one function with different static_argnums share one trace cache", keyword="same_function",
    ),
    Mutant(
        "jit.fast_path.undelivered_array_as_none", JIT,
        "    if x._type is None:\n        raise _NotFast\n    return x._type\n",
        "    return x._type\n",
        AREA, "the fast path's key of an Array not yet on a device is None, the key of the argument None: "
        "g(x, y) runs the executable of g(x, None)", keyword="not_on_the_device",
    ),
    Mutant(
        "jit.float0.output_wrapped_as_an_array", JIT,
        "        special = any(dtypes.is_key_dtype(a.dtype) or a.dtype == dtypes.float0 for a in self.out_avals)\n",
        "        special = any(dtypes.is_key_dtype(a.dtype) for a in self.out_avals)\n",
        AREA, "a cached call wraps a float0 output's buffer (booleans) as an Array instead of giving NumPy's "
        "float0 zeros", keyword="float0",
    ),
    Mutant(
        "jit.float0.input_made_an_array", JIT,
        "        if _is_float0(x):\n            return xla.put(np.zeros(x.shape, bool), device)",
        "        if False:\n            return xla.put(np.zeros(x.shape, bool), device)",
        AREA, "a float0 operand (the tangent constant a jitted jvp of an integer output passes itself) is made an "
        "Array, which cannot hold float0", keyword="float0",
    ),
    Mutant(
        "jit.debug_nans.unchecked", JIT,
        "        if config.jax_debug_nans:  # checked on this path only",
        "        if False:  # checked on this path only",
        AREA, "a jitted function ignores jax_debug_nans: its NaN outputs are returned", keyword="debug_nans",
    ),
    Mutant(
        "jit.static_argnames.unknown_accepted", JIT,
        "        if unknown:\n", "        if False:\n",
        AREA, "static_argnames naming a parameter the function lacks is accepted silently", keyword="argname",
    ),
    Mutant(
        "xla.run.deleted_argument_not_a_value_error", XLA,
        "            if any(map(is_deleted, buffers)):", "            if False:",
        AREA, "passing a donated Array again raises a runtime error of XLA's, not JAX's ValueError",
        keyword="donated_array_again",
    ),
    Mutant(
        "array.aval_holds_the_value", ARRAY,
        "        return _Known(self)\n", "        return ConcreteArray(self._value, self.weak_type)\n",
        AREA, "an Array's aval reads its device buffer back and holds the NumPy view: while the aval lives, XLA "
        "cannot take the buffer, and a donation leaves the Array alive", keyword="donat",
    ),
    Mutant(
        "array.pickled_as_its_buffer", ARRAY,
        "        return (Array, (self._value, self.weak_type))\n",
        "        return object.__reduce_ex__(self, 2)\n",
        AREA, "pickling a result pickles its device buffer, which cannot be pickled", keyword="pickle",
    ),
    Mutant(
        "array.keys_pickled_as_their_words", ARRAY,
        "    def __reduce__(self) -> tuple[Any, ...]:\n        return (PRNGKeyArray, (self._impl, self._value))\n",
        "",
        AREA, "a key array pickles as an Array's value: it comes back as its uint32 words, not as keys",
        keyword="pickle",
    ),
    Mutant(
        "array.is_fully_replicated_a_method", ARRAY,
        "    @property\n    def is_fully_replicated(self) -> bool:", "    def is_fully_replicated(self) -> bool:",
        AREA, "is_fully_replicated is a method, not JAX's property: `if x.is_fully_replicated` is always true",
        keyword="array_api",
    ),
    Mutant(
        "jit.fast_path.key_without_weak_type", JIT,
        "        raise _NotFast\n    return x._type\n",
        "        raise _NotFast\n    return ShapedArray(x._type.shape, x._type.dtype)\n",
        AREA, "the fast path files each executable under its arguments' shape and dtype only, so a strong "
        "argument runs a weak one's trace (and its result has the wrong weak type)", keyword=SIGNATURE + " or weak_and_strong",
    ),
    Mutant(
        "jit.fast_path.tuple_built_as_list", JIT,
        "    if tree == tree_structure((0,) * n):\n        return tuple\n",
        "    if tree == tree_structure((0,) * n):\n        return list\n",
        AREA, "a cached call of a function returning a tuple returns a list", keyword="tree or pytree or tuple",
    ),
    Mutant(
        "jit.fast_path.dict_leaves_in_insertion_order", JIT,
        "            keys = sorted(tree)  # tree_flatten's order\n",
        "            keys = list(tree)\n",
        AREA, "the fast path takes a dict's leaves in the order it was built, not tree_flatten's sorted order: "
        "a cached call hands them to the wrong parameters", keyword="signature or leaves_in_place",
    ),
    Mutant(
        "jit.fast_path.dict_keys_not_in_the_key", JIT,
        "        return (dict, tuple(keys), *[_shape_of(tree[k], leaves) for k in keys])\n",
        "        return (dict, *[_shape_of(tree[k], leaves) for k in keys])\n",
        AREA, "the fast path's key of a dict leaves out its keys: {'a': x} and {'b': x} share an executable "
        "and the second gets the first's result tree", keyword="signature",
    ),
    Mutant(
        "jit.fast_path.list_as_tuple", JIT,
        "        return (kind, *map(_shape_of, tree, repeat(leaves)))\n",
        "        return (tuple, *map(_shape_of, tree, repeat(leaves)))\n",
        AREA, "the fast path's key does not tell a list from a tuple", keyword="signature",
    ),
    Mutant(
        "jit.fast_path.single_output_forgets_the_constants", JIT,
        "        single = staged.out_tree == _LEAF and not self.const_buffers and not self.donated\n",
        "        single = staged.out_tree == _LEAF and not self.donated\n",
        AREA, "the one-output fast path runs a function that closed over an array without that array's buffer",
        keyword="closed_over",
    ),
    Mutant(
        "jit.donation.host_copy_kept", JIT,
        "        if d and type(x) is Array and x._buffer is not None:\n            x._host = None\n",
        "        pass\n",
        AREA, "a donated Array keeps its NumPy copy, a view of its device buffer: XLA does not take the buffer, "
        "and the Array read before the call is not deleted by it", keyword="donat",
    ),
    Mutant(
        "array.delete_keeps_the_host_copy", "didax/array.py",
        "        self._host = None\n        xla.delete(self._buffer)\n",
        "        xla.delete(self._buffer)\n",
        AREA, "x.delete() frees the device buffer but keeps the NumPy copy: a deleted Array read before "
        "can still be read", keyword="deleted",
    ),
    Mutant(
        "array.device_copy_without_a_type", "didax/array.py",
        "            self._type = ShapedArray(self.shape, self.dtype, self.weak_type)\n",
        "",
        AREA, "an eager Array put on the device keeps no type, so every such Array shares one fast-path key: "
        "a call with one of another shape runs the first one's executable", keyword=SIGNATURE,
    ),
    Mutant(
        "jit.static.keyed_by_equality_across_types", JIT,
        "        return isinstance(other, _Static) and type(self.value) is type(other.value) and self.value == other.value\n"
        "\n    def __hash__(self) -> int:\n        return hash((type(self.value), self.value))",
        "        return isinstance(other, _Static) and self.value == other.value\n"
        "\n    def __hash__(self) -> int:\n        return hash(self.value)",
        AREA, "static arguments equal across types (1, 1.0, True) share a trace", keyword="static",
    ),
    Mutant(
        "jit.disable_jit.ignored", JIT,
        "        if config.jax_disable_jit:\n            return self.fun(*args, **kwargs)\n",
        "",
        AREA, "jax_disable_jit does not run the function eagerly", keyword="disable_jit",
    ),
    Mutant(
        "jit.jvp.tangents_dropped", JIT,
        "    tangents_out = [next(nonzero_out) if nz else ad.Zero.like(p)",
        "    tangents_out = [ad.Zero.like(p)",
        AREA, "jvp of a jitted function gives zero tangents", keyword="jvp",
    ),
    Mutant(
        "jit.vmap.batch_axis_not_moved", JIT,
        "    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]\n",
        "",
        AREA, "vmap of a jitted function assumes every batch axis is at the front", keyword="vmap",
    ),
    Mutant(
        "lower.elementwise.subtract_as_add", ELEMENTWISE,
        'lax.sub_p: "stablehlo.subtract"', 'lax.sub_p: "stablehlo.add"',
        AREA, "sub is lowered as add", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.elementwise.sine_as_cosine", ELEMENTWISE,
        'lax.sin_p: "stablehlo.sine"', 'lax.sin_p: "stablehlo.cosine"',
        AREA, "sin is lowered as cosine", keyword=PROGRAMS,
    ),
    Mutant(
        "lower.conj.imaginary_part_not_negated", ELEMENTWISE,
        'return fb.op1("stablehlo.complex", [re, fb.op1("stablehlo.negate", [im], part)], ctx.out_type())',
        'return fb.op1("stablehlo.complex", [re, im], ctx.out_type())', AREA,
        "conj compiles to the identity on complex numbers: the imaginary part keeps its sign",
        keyword=f"{PRIMITIVES} and conj",
    ),
    Mutant(
        "lower.compare.unsigned_as_signed", ELEMENTWISE,
        '"i": "SIGNED", "u": "UNSIGNED"', '"i": "SIGNED", "u": "SIGNED"',
        AREA, "unsigned integers are compared as signed: 200 < 100 for uint8", keyword=PRIMITIVES + " or unsigned",
    ),
    Mutant(
        "lower.select_n.cases_swapped", ELEMENTWISE,
        '"stablehlo.select", [which, cases[1], cases[0]]', '"stablehlo.select", [which, cases[0], cases[1]]',
        AREA, "select_n with a boolean picks case 0 where it is true", keyword=PROGRAMS,
    ),
    Mutant(
        "lower.convert.to_bool_truncates", ELEMENTWISE,
        '    if np.dtype(new_dtype) == np.bool_ and aval.dtype != np.bool_:\n',
        '    if False:\n',
        AREA, "a conversion to bool is XLA's convert instead of x != 0", keyword=PRIMITIVES + " or to_bool",
        equivalent="StableHLO defines convert to a boolean as 'is not zero' (its spec: any-type-to-boolean "
        "conversions give false for zero and true otherwise), so the comparison the rule writes says the "
        "same thing; it is there to say it in the course's words",
    ),
    Mutant(
        "lower.broadcast.leading_axes", ELEMENTWISE,
        "    dims = range(rank - len(aval.shape), rank)\n",
        "    dims = range(len(aval.shape))\n",
        AREA, "implicit broadcasting aligns an operand's axes with the leading axes instead of the trailing ones",
        keyword=PROGRAMS,
        equivalent="lax's binary operations take operands of one rank (or a scalar), as JAX's do, so the axes "
        "an operand is broadcast along are all of them, or none, however they are aligned; the rule only "
        "stretches size-1 axes",
    ),
    Mutant(
        "lower.integer_pow.negative_not_inverted", ELEMENTWISE,
        "    if y < 0:\n        one =", "    if False:\n        one =",
        AREA, "x ** -n is lowered as x ** n", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.round.methods_swapped", ELEMENTWISE,
        'if int(rounding_method) == 1 else', 'if int(rounding_method) == 0 else',
        AREA, "round's two tie-breaking methods are swapped", keyword=PRIMITIVES + " or rounding",
    ),
    Mutant(
        "lower.rem.zero_divisor_gives_zero", ELEMENTWISE,
        "        return fb.op1(\"stablehlo.select\", [zero, x, out], typ)",
        "        return fb.op1(\"stablehlo.select\", [zero, full(0), out], typ)",
        AREA, "an integer remainder by zero gives 0 instead of XLA's x", keyword=PRIMITIVES + " or random",
    ),
    Mutant(
        "lower.reduce_max.identity_zero", STRUCTURAL,
        'lax.reduce_max_p: _reducer("stablehlo.maximum", _lowest)',
        'lax.reduce_max_p: _reducer("stablehlo.maximum", lambda d: 0)',
        AREA, "reduce_max starts from 0, so the maximum of negative numbers is 0", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.transpose.inverse_permutation", STRUCTURAL,
        '{"permutation": i64_array(permutation)}',
        '{"permutation": i64_array(np.argsort(permutation))}',
        AREA, "transpose applies the inverse permutation (the same for 2 axes, wrong for a 3-cycle)",
        keyword=PRIMITIVES + " or random_program" + " or three_axes",
    ),
    Mutant(
        "lower.dot_general.contracting_lhs_for_rhs", STRUCTURAL,
        'f"rhs_contracting_dimensions = [{\', \'.join(map(str, rc))}]>"',
        'f"rhs_contracting_dimensions = [{\', \'.join(map(str, lc))}]>"',
        AREA, "dot_general contracts the right operand on the left one's dimensions", keyword=PRIMITIVES,
    ),
    Mutant(
        "lower.conv.kernel_letters_swapped", "didax/lowering/convolution.py",
        "_layout(rhs_spec, 'o', 'i')", "_layout(rhs_spec, 'i', 'o')",
        AREA, "stablehlo.convolution reads the kernel's in-feature axis as its out-feature axis", keyword="conv",
    ),
    Mutant(
        "lower.conv.pads_reversed", "didax/lowering/convolution.py",
        'f"[{lo}, {hi}]"', 'f"[{hi}, {lo}]"',
        AREA, "stablehlo.convolution is given each axis's high pad as its low pad", keyword="conv",
    ),
    Mutant(
        "lower.window.max_as_min", "didax/lowering/reductions.py",
        'lax.reduce_window_max_p: _windowed(lax.reduce_window_max_p, "stablehlo.maximum")',
        'lax.reduce_window_max_p: _windowed(lax.reduce_window_max_p, "stablehlo.minimum")',
        AREA, "a windowed max is lowered with stablehlo.minimum as its combiner", keyword="window",
    ),
    Mutant(
        "lower.window.pads_transposed", "didax/lowering/reductions.py",
        '"padding": dense(np.asarray(padding, np.int64).reshape(len(padding), 2))',
        '"padding": dense(np.asarray(padding, np.int64).T.reshape(len(padding), 2))',
        AREA, "stablehlo.reduce_window gets its (low, high) pads read across the axes", keyword="window",
    ),
]  # fmt: skip


MUTANTS: list[Mutant] = [*JAXPR_STAGE_MUTANTS, *LOWERING_MUTANTS, *JIT_MUTANTS]
