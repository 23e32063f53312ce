"""The mutants of stage 05 (jit compiled by XLA): single, realistic bugs the conformance suite must
notice.

Stage 05 is stage 04 plus compilation, so its catalogue is stage 04's (under the same ids) followed
by ``LOWERING_MUTANTS``, which the ``jit`` area must notice (a jitted function gives what it gives
run eagerly): bugs in the lowering rules of the structural primitives
(``didax/lowering/structural.py``: slice, pad, concatenate, the reductions' identities), of gather
and the scatters (``didax/lowering/slicing.py``: the modes that XLA's operations do not do
themselves), of sort and top_k (``didax/lowering/sorting.py``: JAX's total-order comparator) and of
argmax/argmin and the cumulative reductions (``didax/lowering/reductions.py``). Run them with

    python -m conformance.meta.mutate --stage 05_jit --quick --only $(python -c "...LOWERING_MUTANTS ids")

Not here, because the stage's tests could not tell them from the original on XLA's CPU backend: sort's
``is_stable`` attribute set to false (its sort is stable anyway), and dot_general's operands of two
types left unconverted (XLA converts them itself). Nor dynamic_slice's start indices of two integer
types left unconverted (XLA rejects the module): didax's lax accepts such indices, JAX's raises
TypeError, so the suite, which must pass against JAX, has no program to show it.
"""

from __future__ import annotations

from conformance.meta.mutants_04_jaxpr import MUTANTS as JAXPR_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

STRUCTURAL = "didax/lowering/structural.py"
SLICING = "didax/lowering/slicing.py"
SORTING = "didax/lowering/sorting.py"
REDUCTIONS = "didax/lowering/reductions.py"
AREA = ("jit",)
INDEXING = "index or gather or scatter or at_ or take"
SORT = "sort or top_k"
ARG = "argmax or argmin or arg"
CUM = "cum"

LOWERING_MUTANTS: list[Mutant] = [
    # --- structural: slicing, padding, joining, reductions ------------------------------------------------
    Mutant(
        "lowering.slice.strides_ignored", STRUCTURAL,
        "    strides = strides or (1,) * len(start_indices)\n", "    strides = (1,) * len(start_indices)\n",
        AREA, "a strided slice is lowered without its strides (x[::2] reads x[:n])", keyword="slice",
    ),
    Mutant(
        "lowering.pad.interior_dropped", STRUCTURAL,
        '"interior_padding": i64_array(interior)}', '"interior_padding": i64_array([0] * len(interior))}',
        AREA, "pad's interior padding is left out of the StableHLO pad", keyword="pad",
    ),
    Mutant(
        "lowering.concatenate.first_axis", STRUCTURAL,
        '{"dimension": f"{dimension} : i64"})', '{"dimension": "0 : i64"})',
        AREA, "concatenate always joins along the first axis", keyword="concatenate or stack or append",
    ),
    Mutant(
        "lowering.reduce_max.integer_identity_zero", STRUCTURAL,
        "return -np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).min",
        "return -np.inf if dtypes.is_inexact(dtype) else 0",
        AREA, "reduce_max of integers starts from 0, not the lowest integer: a row of negatives gives 0",
        keyword="max or reduc",
    ),
    Mutant(
        "lowering.reduce_max.bfloat16_identity", STRUCTURAL,
        "return -np.inf if dtypes.is_inexact(dtype) else np.iinfo(dtype).min",
        'return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min',
        AREA, "reduce_max's identity asks iinfo of bfloat16, whose dtype kind is not 'f': lowering fails",
        keyword="max or reduc",
    ),
    # --- gather and scatter -----------------------------------------------------------------------------------
    Mutant(
        "lowering.gather.fill_ignored", SLICING,
        "    if mode != GatherScatterMode.FILL_OR_DROP:\n", "    if True:\n",
        AREA, "gather's FILL_OR_DROP is lowered like CLIP: out-of-bounds reads give a clamped window, not the fill",
        keyword=INDEXING,
    ),
    Mutant(
        "lowering.gather.fill_last_index_out", SLICING,
        'compare(ctx, indices, high, "LE", aval.dtype, pred)', 'compare(ctx, indices, high, "LT", aval.dtype, pred)',
        AREA, "gather's fill mask counts the last valid start as out of bounds", keyword=INDEXING,
    ),
    Mutant(
        "lowering.gather.fill_bound_ignores_window", SLICING,
        "highest = [op_aval.shape[d] - slice_sizes[d] for d in dn.start_index_map]",
        "highest = [op_aval.shape[d] - 1 for d in dn.start_index_map]",
        AREA, "gather's fill mask lets a window that sticks out past the end count as fitting", keyword=INDEXING,
    ),
    Mutant(
        "lowering.scatter.clip_not_clamped", SLICING,
        "        if mode == GatherScatterMode.CLIP:\n", "        if False:\n",
        AREA, "a scatter in CLIP mode drops out-of-bounds updates (XLA's own behaviour) instead of clamping them",
        keyword=INDEXING,
    ),
    Mutant(
        "lowering.scatter.set_keeps_old", SLICING,
        "            body.ret([update])\n", "            body.ret([old])\n",
        AREA, "the overwriting scatter's combiner returns the old value: x.at[i].set(v) changes nothing",
        keyword=INDEXING,
    ),
    Mutant(
        "lowering.scatter.apply_ignored", SLICING,
        "        if update_jaxpr is not None:\n", "        if False:\n",
        AREA, "scatter_apply's update_jaxpr is ignored: x.at[i].apply(f) writes the placeholder zeros",
        keyword="apply",
    ),
    Mutant(
        "lowering.scatter_sub.adds", SLICING,
        'lax.scatter_sub_p: _scatter_rule("stablehlo.subtract")', 'lax.scatter_sub_p: _scatter_rule("stablehlo.add")',
        AREA, "scatter_sub adds its updates", keyword="scatter",
    ),
    # --- sort and top_k ---------------------------------------------------------------------------------------
    Mutant(
        "lowering.sort.negative_nan_first", SORTING,
        '    return b.op1("stablehlo.select", [_cmp(b, x, x, "NE", "FLOAT"), nan, x], typ)\n', "    return x\n",
        AREA, "sort's comparator does not make every NaN the positive NaN: -NaN sorts first in total order",
        keyword=SORT,
    ),
    Mutant(
        "lowering.sort.signed_zeros_ordered", SORTING,
        '    x = b.op1("stablehlo.select", [_cmp(b, x, zero, "EQ", "FLOAT"), zero, x], typ)\n', "",
        AREA, "sort's comparator orders -0.0 before 0.0 (total order) where JAX's ties them", keyword=SORT,
    ),
    Mutant(
        "lowering.sort.first_key_only", SORTING,
        "    for k in range(num_keys):\n", "    for k in range(1):\n",
        AREA, "sort with num_keys > 1 compares the first key only", keyword=SORT,
    ),
    Mutant(
        "lowering.top_k.axis_not_moved", SORTING,
        "    perm[axis], perm[last] = last, axis", "    perm[axis], perm[last] = axis, last",
        AREA, "top_k along an axis other than the last takes it along the last", keyword=SORT,
    ),
    # --- argmax, argmin, cumulative reductions ---------------------------------------------------------------
    Mutant(
        "lowering.argmax.nan_not_extreme", REDUCTIONS,
        "        if dtypes.is_float(dtype):  # ...or a NaN\n", "        if False:\n",
        AREA, "argmax's combiner does not pick a NaN: the index of the largest number, not of the first NaN",
        keyword=ARG,
    ),
    Mutant(
        "lowering.argmax.last_tie", REDUCTIONS,
        '_cmp(b, i1, i2, "LT", index_dtype)', '_cmp(b, i1, i2, "GT", index_dtype)',
        AREA, "argmax and argmin give the last of equal extremes, not the first", keyword=ARG,
    ),
    Mutant(
        "lowering.cumulative.reverse_ignored", REDUCTIONS,
        "padding[axis, 1 if reverse else 0] = n - 1", "padding[axis, 0] = n - 1",
        AREA, "a cumulative reduction with reverse=True runs from the front", keyword=CUM,
    ),
    Mutant(
        "lowering.cumlogsumexp.infinities_nan", REDUCTIONS,
        '    return b.op1("stablehlo.select", [is_nan, b.op1("stablehlo.add", [x, y], typ), smooth], typ)\n',
        "    return smooth\n",
        AREA, "cumlogsumexp of -inf and -inf is NaN (max + log1p(exp(-|-inf - -inf|))), not -inf", keyword=CUM,
    ),
]  # fmt: skip

MUTANTS: list[Mutant] = [*JAXPR_STAGE_MUTANTS, *LOWERING_MUTANTS]
