"""The mutants of stage 03 (vmap): single, realistic bugs the conformance suite must notice.

Stage 03 is stage 02 plus batching, so its catalogue is stage 02's (stage 01's and the jvp rules',
under the same ids: every one of those snippets is still in stage 03) followed by ``VMAP_MUTANTS``,
one wrong batching rule or piece of vmap's machinery each, in ``didax/batching.py`` (and
``didax/jacobians.py`` for jacfwd), which the ``vmap`` area must notice. Run them with

    python -m conformance.meta.mutate --stage 03_vmap                          # all three parts
    python -m conformance.meta.mutate --stage 03_vmap --only vmap.rev.dimensions_not_renumbered ...

Grouped by lax's families, as the rules are: elementwise (aligning the batch axes of operands of
different ranks), clamp and select_n, bitcast_convert_type, structure, dynamic slices, reductions,
cumulative operations, dot_general, gather and scatter, sorting; then the shared tools (moving a
batch axis, renumbering an axis), vmap's API, and jacfwd.

Most rules are wrong only when a batch axis is not first, or when some operand is not batched: the
area draws both (its table) and sweeps every batched/unbatched pattern (axis 0 only), so a mutant
that is equivalent to the original when every batch axis is 0 is killed by the drawn examples.
"""

from __future__ import annotations

from conformance.meta.mutants_02_jvp import MUTANTS as JVP_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

BATCHING = "didax/batching.py"
JACOBIANS = "didax/jacobians.py"
VMAP = ("vmap",)

VMAP_MUTANTS: list[Mutant] = [
    Mutant(
        "jacfwd.name_not_kept", JACOBIANS,
        "    @functools.wraps(fun)  # the name", "    # the name", VMAP,
        "jacfwd's result is named jacfun (didax's inner function), where JAX's keeps fun's name",
        keyword="keeps_the_functions_name",
    ),
    # --- elementwise: every primitive of two operands shares the rule ----------------------------------
    Mutant(
        "vmap.igamma.no_rule", BATCHING,
        "lax.polygamma_p, lax.igamma_p, lax.igammac_p,", "lax.polygamma_p, lax.igammac_p,",
        VMAP, "igamma is left out of the elementwise primitives: vmap of it has no rule", keyword="igamma",
    ),
    Mutant(
        "vmap.conj.no_rule", BATCHING, "lax.conj_p, lax.complex_p, lax.convert_element_type_p",
        "lax.complex_p, lax.convert_element_type_p", VMAP,
        "conj is left out of the elementwise primitives: vmap of it has no rule", keyword="conj",
    ),
    Mutant(
        "vmap.random_gamma_grad_da.no_rule", BATCHING,
        "lax.incomplete_gamma.random_gamma_grad_p, lax.incomplete_gamma.random_gamma_grad_da_p,",
        "lax.incomplete_gamma.random_gamma_grad_p,",
        VMAP, "random_gamma_grad's derivatives in a have no batching rule: jacfwd of random_gamma_grad fails",
        keyword="random_gamma_grad",
    ),
    # --- elementwise: the batch axis stays where the first full-rank batched operand has it ------------
    Mutant(
        "vmap.elementwise.unbatched_operand_axis_0", BATCHING,
        "return x if rank == 0 else lax.expand_dims(x, (out,))",
        "return x if rank == 0 else lax.expand_dims(x, (0,))",
        VMAP, "an unbatched operand gets its size-1 axis first, wherever the batch axis is",
        keyword="add or sub or mul or div",
    ),
    Mutant(
        "vmap.elementwise.batched_operands_not_aligned", BATCHING,
        "    if rank == out_rank:\n        return moveaxis(x, bdim, out)",
        "    if rank == out_rank:\n        return x",
        VMAP, "a second batched operand keeps its batch axis where it is, not where the result has it",
        keyword="add or sub or mul or div",
    ),
    Mutant(
        "vmap.elementwise.batched_scalar_axis_first", BATCHING,
        "    ones[out] = get_aval(x).shape[bdim]\n    return lax.broadcast_in_dim(x, ones, (out,))",
        "    ones[0] = get_aval(x).shape[bdim]\n    return lax.broadcast_in_dim(x, ones, (0,))",
        VMAP, "a batch of scalars is broadcast along axis 0, wherever the full-rank operand's batch axis is",
        keyword="a_scalar or scalar_predicate or scalar_bounds",
    ),
    # --- clamp and select_n: operands brought to the full batched shape ------------------------------
    Mutant(
        "vmap.full_shape.shape_of_the_first_operand", BATCHING,
        "shape = max((_example_shape(x, d) for x, d in zip(vals, dims)), key=len)",
        "shape = _example_shape(vals[0], dims[0])",
        VMAP, "clamp/select_n take the example's shape from their first operand, a scalar bound or predicate",
        keyword="clamp or select_n",
    ),
    Mutant(
        "vmap.full_shape.unbatched_operand_not_broadcast", BATCHING,
        "    x = bdim_to(x, bdim, 0, size)\n    if get_aval(x).shape == (size, *shape):",
        "    x = x if bdim is not_mapped else moveaxis(x, bdim, 0)\n    if get_aval(x).shape == (size, *shape):",
        VMAP, "clamp/select_n leave an unbatched full-rank operand without the batch axis",
        keyword="clamp or select_n",
    ),
    # --- bitcast_convert_type ---------------------------------------------------------------------------
    Mutant(
        "vmap.bitcast.batch_axis_moved_but_not_reported", BATCHING,
        "x, bdim = moveaxis(x, bdim, 0), 0", "x = moveaxis(x, bdim, 0)",
        VMAP, "bitcast_convert_type moves a last batch axis first but reports it where it was",
        keyword="bitcast",
    ),
    # --- structure ---------------------------------------------------------------------------------------
    Mutant(
        "vmap.broadcast_in_dim.reports_the_operands_axis", BATCHING,
        "return lax.broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims), out",
        "return lax.broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims), bdim",
        VMAP, "broadcast_in_dim reports the batch axis at the operand's position, not the output's",
        keyword="broadcast_in_dim",
    ),
    Mutant(
        "vmap.broadcast_in_dim.example_dims_off_by_one", BATCHING,
        "example = [d + (d >= out) for d in broadcast_dimensions]",
        "example = [d + (d > out) for d in broadcast_dimensions]",
        VMAP, "broadcast_in_dim renumbers the output axes after the batch axis, not from it: two land on it",
        keyword="broadcast_in_dim",
    ),
    Mutant(
        "vmap.reshape.batch_axis_not_moved_first", BATCHING,
        "    x = moveaxis(x, bdim, 0)  # a reshape reads the elements in order: the batch axis goes first\n"
        "    if dimensions is not None:\n        dimensions = (0, *(d + 1 for d in dimensions))\n"
        "    size = get_aval(x).shape[0]",
        "    if dimensions is not None:\n        dimensions = (0, *(d + 1 for d in dimensions))\n"
        "    size = get_aval(x).shape[bdim]",
        VMAP, "reshape reads a batch that is not on axis 0 in order, mixing the examples",
        keyword="reshape",
    ),
    Mutant(
        "vmap.transpose.batch_axis_first_reported_in_place", BATCHING,
        "perm.insert(bdim, bdim)  # the batch axis stays where it is",
        "perm.insert(0, bdim)  # the batch axis stays where it is",
        VMAP, "transpose's permutation puts the batch axis first, but the rule reports it where it was",
        keyword="transpose",
    ),
    Mutant(
        "vmap.squeeze.out_bdim_not_shifted", BATCHING,
        "return lax.squeeze_p.bind(x, dimensions=axes), bdim - sum(a < bdim for a in axes)",
        "return lax.squeeze_p.bind(x, dimensions=axes), bdim",
        VMAP, "squeeze does not move the batch axis down for the squeezed axes before it",
        keyword="squeeze",
    ),
    Mutant(
        "vmap.rev.dimensions_not_renumbered", BATCHING,
        "lax.rev_p.bind(x, dimensions=tuple(full_axis(d, bdim) for d in dimensions)), bdim",
        "lax.rev_p.bind(x, dimensions=dimensions), bdim",
        VMAP, "rev reverses the example's axis numbers in the batched array (the batch axis among them)",
        keyword="rev",
    ),
    Mutant(
        "vmap.concatenate.dimension_not_renumbered", BATCHING,
        "lax.concatenate_p.bind(*operands, dimension=full_axis(dimension, out)), out",
        "lax.concatenate_p.bind(*operands, dimension=dimension), out",
        VMAP, "concatenate joins along the example's axis number in the batched arrays",
        keyword="concatenate",
    ),
    Mutant(
        "vmap.pad.unpadded_batch_axis_first", BATCHING,
        "config.insert(bdim, (0, 0, 0))", "config.insert(0, (0, 0, 0))",
        VMAP, "pad (one padding value) leaves axis 0 unpadded instead of the batch axis",
        keyword="pad",
    ),
    Mutant(
        "vmap.pad.batched_value_mask_inverted", BATCHING,
        "return lax.select_n(inside, fill, padded), 0", "return lax.select_n(inside, padded, fill), 0",
        VMAP, "pad with a padding value per example puts it inside the operand and the operand in the padding",
        keyword="pad",
    ),
    Mutant(
        "vmap.slice.batch_axis_stride_first", BATCHING,
        "strides = (*strides[:bdim], 1, *strides[bdim:])", "strides = (1, *strides)",
        VMAP, "slice gives the batch axis stride 1 at axis 0, wherever the batch axis is",
        keyword="slice",
    ),
    # --- dynamic_slice and dynamic_update_slice ---------------------------------------------------------
    Mutant(
        "vmap.dynamic_slice.unbatched_starts_zero_first", BATCHING,
        "starts.insert(bdim, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))",
        "starts.insert(0, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))",
        VMAP, "dynamic_slice with shared starts gives the start 0 to axis 0, not to the batch axis",
        keyword="dynamic_slice",
    ),
    Mutant(
        "vmap.dynamic_slice.batched_starts_fill_not_clip", BATCHING,
        "out = lax.gather(x, indices, numbers, (1, *slice_sizes), mode=GatherScatterMode.CLIP)",
        "out = lax.gather(x, indices, numbers, (1, *slice_sizes), mode=GatherScatterMode.FILL_OR_DROP)",
        VMAP, "dynamic_slice with a start per example fills a window out of range instead of moving it inside",
        keyword="dynamic_slice",
    ),
    Mutant(
        "vmap.dynamic_update_slice.unbatched_starts_zero_first", BATCHING,
        "starts.insert(out, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))",
        "starts.insert(0, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))",
        VMAP, "dynamic_update_slice with shared starts gives the start 0 to axis 0, not to the batch axis",
        keyword="dynamic_update_slice",
    ),
    Mutant(
        "vmap.dynamic_update_slice.batched_starts_drop_not_clip", BATCHING,
        "indices_are_sorted=True, unique_indices=True,\n                      mode=GatherScatterMode.CLIP)",
        "indices_are_sorted=True, unique_indices=True,\n                      mode=GatherScatterMode.FILL_OR_DROP)",
        VMAP, "dynamic_update_slice with a start per example drops an update out of range instead of moving it",
        keyword="dynamic_update_slice",
    ),
    # --- reductions (argmax and argmin share their rule) and cumulative operations -----------------------
    Mutant(
        "vmap.reduce.out_bdim_not_shifted", BATCHING,
        "return prim.bind(x, axes=full, **params), bdim - sum(a < bdim for a in full)",
        "return prim.bind(x, axes=full, **params), bdim",
        VMAP, "a reduction does not move the batch axis down for the reduced axes before it",
        keyword="reduce",
    ),
    Mutant(
        "vmap.reduce.axes_as_if_batch_first", BATCHING,
        "full = tuple(full_axis(a, bdim) for a in axes)", "full = tuple(a + 1 for a in axes)",
        VMAP, "reductions and argmax/argmin renumber their axes as if the batch axis were first",
        keyword="argmax or argmin",
    ),
    Mutant(
        "vmap.cumulative.axis_not_renumbered", BATCHING,
        "return prim.bind(x, axis=full_axis(axis, bdim), reverse=reverse), bdim",
        "return prim.bind(x, axis=axis, reverse=reverse), bdim",
        VMAP, "cumsum and the other scans run along the example's axis number in the batched array",
        keyword="cum",
    ),
    # --- dot_general ----------------------------------------------------------------------------------------
    Mutant(
        "vmap.dot_general.both_batch_axis_last", BATCHING,
        "lhs_batch, rhs_batch, out = (lhs_bdim, *lhs_batch), (rhs_bdim, *rhs_batch), 0",
        "lhs_batch, rhs_batch, out = (*lhs_batch, lhs_bdim), (*rhs_batch, rhs_bdim), 0",
        VMAP, "both operands batched: the batch axis is made the last batch dimension but reported first",
        keyword="dot_general",
    ),
    Mutant(
        "vmap.dot_general.lhs_only_forgets_batch_dims", BATCHING,
        "out = len(lhs_batch) + _free_dims(lhs_ndim, lhs_contract, lhs_batch).index(lhs_bdim)",
        "out = _free_dims(lhs_ndim, lhs_contract, lhs_batch).index(lhs_bdim)",
        VMAP, "lhs batched alone: its batch axis is reported without the batch dimensions that come first",
        keyword="dot_general",
    ),
    Mutant(
        "vmap.dot_general.rhs_only_forgets_lhs_free_dims", BATCHING,
        "out = len(rhs_batch) + lhs_free + _free_dims(", "out = len(rhs_batch) + _free_dims(",
        VMAP, "rhs batched alone: its batch axis is reported without the lhs's free dimensions before it",
        keyword="dot_general",
    ),
    # --- gather and scatter --------------------------------------------------------------------------------
    Mutant(
        "vmap.gather.operand_only_one_example_per_slice", BATCHING,
        "slice_sizes = (get_aval(operand).shape[0], *slice_sizes)", "slice_sizes = (1, *slice_sizes)",
        VMAP, "gather with shared indices takes a slice of one example, not of the whole batch",
        keyword="gather or index",
    ),
    Mutant(
        "vmap.gather.indices_only_offset_dims_not_shifted", BATCHING,
        "dn = dn._replace(offset_dims=shift(dn.offset_dims),", "dn = dn._replace(offset_dims=dn.offset_dims,",
        VMAP, "gather with batched indices alone keeps the offset dims where the new batch axis now is",
        keyword="gather or index",
    ),
    Mutant(
        "vmap.gather.both_indices_not_moved", BATCHING,
        "operand, indices = moveaxis(operand, operand_bdim, 0), moveaxis(indices, indices_bdim, 0)",
        "operand, indices = moveaxis(operand, operand_bdim, 0), indices",
        VMAP, "gather with both batched pairs the operand's examples with the indices' axis 0, batch or not",
        keyword="gather or index",
    ),
    Mutant(
        "vmap.scatter.shared_indices_target_the_batch_axis", BATCHING,
        "shift(dn.scatter_dims_to_operand_dims), shift(dn.operand_batching_dims),",
        "dn.scatter_dims_to_operand_dims, shift(dn.operand_batching_dims),",
        VMAP, "scatter with shared indices: the indices still name the operand's axes as if unbatched",
        keyword="scatter or at_",
    ),
    Mutant(
        "vmap.scatter.batched_indices_not_moved", BATCHING,
        "            indices = moveaxis(indices, indices_bdim, 0)\n            dn = ScatterDimensionNumbers(",
        "            dn = ScatterDimensionNumbers(",
        VMAP, "scatter with batched indices pairs the operand's examples with the indices' axis 0, batch or not",
        keyword="scatter or at_",
    ),
    # --- sorting ---------------------------------------------------------------------------------------------
    Mutant(
        "vmap.sort.unbatched_operands_not_broadcast", BATCHING,
        "operands = [bdim_to(x, d, out, size) for x, d in zip(vals, dims)]  # sorted together",
        "operands = [x if d is not_mapped else moveaxis(x, d, out) for x, d in zip(vals, dims)]  # sorted together",
        VMAP, "sort leaves its unbatched operands without the batch axis the batched ones have",
        keyword="sort",
    ),
    Mutant(
        "vmap.top_k.axis_not_renumbered", BATCHING,
        "top_k_p.bind(x, k=k, axis=full_axis(axis, bdim)), [bdim, bdim]",
        "top_k_p.bind(x, k=k, axis=axis), [bdim, bdim]",
        VMAP, "top_k runs along the example's axis number in the batched array",
        keyword="top_k",
    ),
    # --- the rules' tools ----------------------------------------------------------------------------------
    Mutant(
        "vmap.tools.moveaxis_inverse_permutation", BATCHING,
        "    perm.insert(dst, src)\n    return lax.transpose(x, perm)",
        "    perm.insert(dst, src)\n    return lax.transpose(x, [int(i) for i in np.argsort(perm)])",
        VMAP, "moveaxis transposes by the inverse permutation (the same for two axes, not for three)",
        keyword="add or sub or mul or div",
    ),
    Mutant(
        "vmap.tools.full_axis_off_by_one", BATCHING,
        "return axis + (axis >= bdim)", "return axis + (axis > bdim)",
        VMAP, "an example's axis at the batch axis's position is taken to be the batch axis",
        keyword="reduce",
    ),
    # --- vmap's API -------------------------------------------------------------------------------------------
    Mutant(
        "vmap.api.negative_in_axes_not_wrapped", BATCHING,
        "    return axis % len(shape)", "    return axis",
        VMAP, "a negative in_axes reaches the rules as it is, not counted from the front",
        keyword="in_axes_negative",
    ),
    Mutant(
        "vmap.api.in_axes_below_the_rank_accepted", BATCHING,
        "if not -len(shape) <= axis < len(shape):", "if not axis < len(shape):",
        VMAP, "in_axes=-3 for an argument of rank 2 wraps around instead of raising ValueError",
        keyword="below_the_rank",
    ),
    Mutant(
        "vmap.api.negative_out_axes_not_wrapped", BATCHING,
        "return bdim_to(x, bdim, out_axis % ndim, size)", "return bdim_to(x, bdim, out_axis, size)",
        VMAP, "a negative out_axes is used as a list position (-1 lands before the last axis)",
        keyword="out_axes_negative or out_axes_per_output or uniform or keys_on_axis or nested",
    ),
    Mutant(
        "vmap.api.unbatched_output_rank_without_the_batch_axis", BATCHING,
        "ndim = (np.ndim(x) if float0 else get_aval(x).ndim) + (bdim is not_mapped)",
        "ndim = np.ndim(x) if float0 else get_aval(x).ndim",
        VMAP, "out_axes of an unbatched output is checked and wrapped against its rank without the new axis",
        keyword="an_unbatched_argument_output or a_constant_output or out_axes_none_for_a_constant",
    ),
    Mutant(
        "vmap.api.axis_size_ignored", BATCHING,
        "sizes = {size for _, size in mapped} | ({axis_size} if axis_size is not None else set())",
        "sizes = {size for _, size in mapped}",
        VMAP, "axis_size is ignored: with nothing mapped vmap raises, and a disagreeing one is accepted",
        keyword="axis_size",
    ),
    Mutant(
        "vmap.api.inconsistent_sizes_not_checked", BATCHING,
        "    if len(sizes) == 1:\n        return int(sizes.pop())",
        "    if sizes:\n        return int(sizes.pop())",
        VMAP, "mapped axes of different sizes are not refused: one of the sizes is taken",
        keyword="inconsistent",
    ),
    Mutant(
        "vmap.api.keyword_arguments_not_mapped", BATCHING,
        'axes = _flatten_axes("vmap in_axes", (args, kwargs), (in_axes, 0))',
        'axes = _flatten_axes("vmap in_axes", (args, kwargs), (in_axes, None))',
        VMAP, "keyword arguments are passed whole to every example instead of mapped along axis 0",
        keyword="keyword",
    ),
    Mutant(
        "vmap.api.none_out_axes_not_checked", BATCHING,
        "        if bdim is not_mapped:\n            return x\n        raise ValueError(",
        "        return x\n        raise ValueError(",
        VMAP, "out_axes None for a batched output hands back the batch instead of raising ValueError",
        keyword="out_axes_none",
    ),
    Mutant(
        "vmap.api.full_lower_keeps_unbatched_tracers", BATCHING,
        "        if self.batch_dim is not_mapped:\n            return full_lower(self.val)\n        return self",
        "        return self",
        VMAP, "a BatchTracer whose value is the same for every example is not unboxed",
        keyword="nested or jvp or vmap_of_vmap",
        equivalent="no BatchTracer without a batch axis ever reaches full_lower in stage 03: only "
        "process_primitive's results are lowered, it binds the primitive directly (no tracer) when no "
        "operand is batched, and every rule returns a batched result; the unbatched tracers that "
        "full_raise makes (pure, lift) are only ever operands",
    ),
    # --- random numbers: the random primitives on batches of typed keys -----------------------------------
    Mutant(
        "vmap.random.vectorized_batch_axis_first", BATCHING,
        "        return prim.bind(x, **params), bdim\n", "        return prim.bind(x, **params), 0\n",
        VMAP, "random_bits/split/seed/unwrap say their result's batch axis is 0, wherever the keys had it",
        keyword="typed_keys or random_under_vmap",
    ),
    Mutant(
        "vmap.random.wrap_batch_axis_left_last", BATCHING,
        "return prng.random_wrap_p.bind(moveaxis(words, bdim, 0), impl=impl), 0",
        "return prng.random_wrap_p.bind(words, impl=impl), bdim",
        VMAP, "random_wrap leaves the batch axis where it is, even after the words' axis",
        keyword="typed_keys or random_under_vmap",
    ),
    Mutant(
        "vmap.random.fold_in_as_one_operand", BATCHING,
        "defelementwise(prng.random_fold_in_p)", "defvectorized(prng.random_fold_in_p)",
        VMAP, "random_fold_in is batched as if it had only its keys, not its data",
        keyword="typed_keys or random_under_vmap",
    ),
    Mutant(
        "vmap.random.counters_not_after_the_keys", "didax/prng.py",
        "high, low = (spread(c, out_shape, range(keys_rank, len(out_shape))) for c in counters(shape))",
        "high, low = (spread(c, out_shape, range(len(shape))) for c in counters(shape))",
        VMAP, "random_bits of a batch of keys puts the counters' axes first, where the keys' axes are",
        keyword="typed_keys or random_under_vmap",
    ),
    # --- jacfwd: vmap of jvp over the standard basis -------------------------------------------------------
    Mutant(
        "vmap.jacfwd.columns_stacked_first", JACOBIANS,
        "out_axes = (None, -1, None) if has_aux else (None, -1)",
        "out_axes = (None, 0, None) if has_aux else (None, 0)",
        VMAP, "jacfwd stacks the JVPs along axis 0 (rows of the transposed Jacobian), as Autodidax does",
        keyword="jacfwd",
    ),
    Mutant(
        "vmap.jacfwd.aux_stacked_like_the_jacobian", JACOBIANS,
        "out_axes = (None, -1, None) if has_aux", "out_axes = (None, -1, -1) if has_aux",
        VMAP, "jacfwd with has_aux returns aux broadcast along the basis, one copy per input element",
        keyword="has_aux",
    ),
    Mutant(
        "vmap.jacfwd.basis_in_the_common_dtype", JACOBIANS,
        ".reshape((n, *aval.shape)).astype(aval.dtype))", ".reshape((n, *aval.shape)))",
        VMAP, "jacfwd's basis tangents all have the inputs' common dtype, not each input's own",
        keyword="jacfwd",
    ),
    Mutant(
        "vmap.jacfwd.int_argnums_as_a_tuple", JACOBIANS,
        "example = primals[0] if isinstance(argnums, int) else primals", "example = primals",
        VMAP, "jacfwd with an int argnums nests each output's Jacobian in a 1-tuple",
        keyword="jacfwd",
    ),
    # --- random_gamma's batching rule (beside the primitive, random/distributions.py) ----------------------
    Mutant(
        "vmap.random_gamma.unbatched_keys_not_broadcast", "didax/random/distributions.py",
        "    keys, a = (batching.bdim_to(x, d, 0, size) for x, d in zip(vals, dims))\n",
        "    keys, a = vals[0] if dims[0] is None else batching.moveaxis(vals[0], dims[0], 0), "
        "batching.bdim_to(vals[1], dims[1], 0, size)\n",
        VMAP, "with one key for the whole batch, random_gamma splits it over every element of the batch, "
        "so example i is not the sample it gives alone", keyword="gamma",
    ),
    Mutant(
        "vmap.random_gamma.a_batch_axis_left_in_place", "didax/random/distributions.py",
        "    keys, a = (batching.bdim_to(x, d, 0, size) for x, d in zip(vals, dims))\n",
        "    keys, a = batching.bdim_to(vals[0], dims[0], 0, size), "
        "vals[1] if dims[1] is not None else batching.bdim_to(vals[1], dims[1], 0, size)\n",
        VMAP, "random_gamma's batching rule moves the keys' batch axis to the front but leaves a's where it is",
        keyword="gamma",
    ),
    Mutant(
        "vmap.random_gamma.log_space_dropped", "didax/random/distributions.py",
        "    return random_gamma_p.bind(keys, a, log_space=log_space), 0\n",
        "    return random_gamma_p.bind(keys, a, log_space=False), 0\n",
        VMAP, "random_gamma's batching rule binds it with log_space=False: batched loggamma gives gamma's samples",
        keyword="gamma",
    ),
    # --- float0 outputs (integer tangents) -----------------------------------------------------------------
    Mutant(
        "vmap.float0.batch_axis_always_first", BATCHING,
        "        shape.insert(out_axis % ndim, size)\n", "        shape.insert(0, size)\n",
        VMAP, "vmap's float0 outputs get their batch axis first, whatever out_axes says", keyword="float0",
    ),
    Mutant(
        "jacfwd.float0.zeros_in_the_inputs_dtype", JACOBIANS,
        "            pieces.append(lax.full((*y_aval.shape, *aval.shape), 0, y_aval.dtype))\n",
        "            pieces.append(lax.full((*y_aval.shape, *aval.shape), 0, aval.dtype))\n",
        VMAP, "jacfwd of an integer output gives float zeros (the input's dtype), not zeros of the output's dtype",
        keyword="integer_output",
    ),
    Mutant(
        "printing.vmap_tracer_batch_type_without_batch_axis", BATCHING,
        'batched={get_aval(self.val)})"', 'batched={self.aval})"',
        VMAP, "a printed vmap tracer shows one example's type as the batch's: the batch axis is not seen",
        keyword="prints",
    ),
    Mutant(
        "vmap.fft.batch_axis_left_in_place", BATCHING,
        "return lax.fft_p.bind(moveaxis(x, bdim, 0), **params), 0", "return lax.fft_p.bind(x, **params), bdim",
        VMAP, "fft's batching rule leaves the batch axis where it is, so it may be transformed as a signal axis",
        keyword="fft",
    ),
    Mutant(
        "vmap.reduce_precision.not_elementwise", BATCHING,
        "lax.round_p, lax.reduce_precision_p, lax.is_finite_p,", "lax.round_p, lax.is_finite_p,",
        VMAP, "reduce_precision is left out of the elementwise rules: vmap of it has no rule",
        keyword="reduce_precision",
    ),
    Mutant(
        "vmap.conv.kernels_folded_outside_their_groups", BATCHING,
        "    groups = max(features, batches)\n", "    groups = 1\n",
        VMAP, "batched kernels of a grouped convolution go before the groups, so groups get the wrong kernels",
        keyword="conv_",
    ),
    Mutant(
        "vmap.conv.examples_as_feature_groups_beside_batch_groups", BATCHING,
        "        if batches > 1:\n            lhs, params = _fold(", "        if False:\n            lhs, params = _fold(",
        VMAP, "with both operands batched, a batch-grouped convolution gets feature groups too (refused by XLA's rules)",
        keyword="conv_",
    ),
    Mutant(
        "vmap.window.batch_axis_in_the_window", BATCHING,
        "window_dimensions=widen(window_dimensions, 1)", "window_dimensions=widen(window_dimensions, 2)",
        VMAP, "a windowed reduction's batch axis gets a window of two examples instead of one",
        keyword="reduce_window",
    ),
    Mutant(
        "vmap.triangular_solve.rows_folded_as_columns", BATCHING, "at = ndim - 1 if left_side else ndim - 2", "at = ndim - 1",
        VMAP, "right-hand sides solved from the right are folded into more columns instead of more rows",
        keyword="triangular",
    ),
    Mutant(
        "vmap.cholesky.batch_axis_not_moved", BATCHING, "return linalg.cholesky_p.bind(moveaxis(x, bdim, 0)), 0",
        "return linalg.cholesky_p.bind(x), bdim", VMAP,
        "cholesky factors with the batch axis where it is: at the end, it is taken for one of the matrix's",
        keyword="cholesky",
    ),
    Mutant(
        "vmap.lu.batch_axis_not_moved", BATCHING, "return linalg.lu_p.bind(moveaxis(x, bdim, 0)), [0, 0, 0]",
        "return linalg.lu_p.bind(x), [bdim, bdim, bdim]", VMAP,
        "lu factors with the batch axis where it is: past the front, it is taken for one of the matrix's", keyword="lu",
    ),
    Mutant(
        "vmap.eigh.batch_axis_not_moved", BATCHING, "return linalg.eigh_p.bind(moveaxis(x, bdim, 0), **params), [0, 0]",
        "return linalg.eigh_p.bind(x, **params), [bdim, bdim]", VMAP,
        "eigh decomposes with the batch axis where it is: past the front, it is taken for one of the matrix's",
        keyword="eigh",
    ),
    Mutant(
        "vmap.svd.batch_axis_not_moved", BATCHING, "outs = linalg.svd_p.bind(moveaxis(x, bdim, 0), **params)\n    return outs, [0] * len(outs)",
        "outs = linalg.svd_p.bind(x, **params)\n    return outs, [bdim] * len(outs)", VMAP,
        "svd decomposes with the batch axis where it is: past the front, it is taken for one of the matrix's",
        keyword="svd",
    ),
    Mutant(
        "vmap.qr.batch_axis_not_moved", BATCHING, "outs = linalg.qr_p.bind(moveaxis(x, bdim, 0), **params)\n    return outs, [0] * len(outs)",
        "outs = linalg.qr_p.bind(x, **params)\n    return outs, [bdim] * len(outs)", VMAP,
        "qr decomposes with the batch axis where it is: past the front, it is taken for one of the matrix's",
        keyword="qr",
    ),
]  # fmt: skip

MUTANTS: list[Mutant] = [*JVP_STAGE_MUTANTS, *VMAP_MUTANTS]
