"""The mutants of stage 07 (parallelism over devices): single, realistic bugs the conformance suite must notice.

Stage 07 is stage 06 plus pmap, shard_map and the collectives, so its catalogue is stage 06's (under
the same ids) followed by ``SHARDING_MUTANTS``, which the ``sharding`` area must notice: one wrong
rule each in the collectives' front ends and shape rules (``didax/lax/parallel.py``), their vmap
rules (``didax/batching.py``: over the vmap's own axis, over another one, for a value that does
not vary), their transposes (``didax/transpose.py``), their lowering (``didax/lowering/parallel.py``
and the device groups of ``didax/lowering/core.py``), pmap (``didax/pmap.py``: specs from in_axes,
out_axes) and shard_map (``didax/shard_map.py``: the divisibility check, the replication check,
its jvp, batching, partial evaluation and transpose rules). Run them with

    python -m conformance.meta.mutate --stage 07_sharding --quick --only psum.transpose.identity ...

Not here, because no program can tell them from the original: pmap running on the last devices
instead of the first (the values are the same; only the output's sharding names other devices).
"""

from __future__ import annotations

from conformance.meta.mutants_06_vjp import MUTANTS as VJP_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

PARALLEL = "didax/lax/parallel.py"
BATCHING = "didax/batching.py"
TRANSPOSE = "didax/transpose.py"
LOWERING = "didax/lowering/parallel.py"
LOWERING_CORE = "didax/lowering/core.py"
PMAP = "didax/pmap.py"
SHARD_MAP = "didax/shard_map.py"
AREA = ("sharding",)
# the sharding area's tests, for -k
PMAP_TESTS = "collective_under_pmap"
VMAP_TESTS = "collective_under_vmap"
BATCHED = "batched_by_an_unnamed_vmap"
PROGRAMS = "shard_map_equals or jit_of_shard_map"
REVERSE = "reverse_mode"
ERRORS = "misuse or what_jax_accepts"


def under(tests: str, *names: str) -> str:
    """Those tests' cases of the named collectives (test ids hold the name)."""
    return f"{tests} and ({' or '.join(names)})"


def rule(id_: str, file: str, find: str, replace: str, description: str, keyword: str) -> Mutant:
    return Mutant(id_, file, find, replace, AREA, description, keyword=keyword)


SHARDING_MUTANTS: list[Mutant] = [
    # --- front ends and shape rules (lax/parallel.py) -------------------------------------------------------
    rule("psum.constant_not_scaled", PARALLEL, "return scaled(v, _size(names))", "return v",
         "psum of a constant (the same on every device) gives the constant, not size times it", ERRORS),
    rule("pmean.divides_by_the_array_axes_only", PARALLEL, "lambda s, v: s / (_size(names) * math.prod",
         "lambda s, v: s / (1 * math.prod", "pmean gives the sum: it forgets to divide by the number of devices",
         under(PMAP_TESTS, "pmean")),
    rule("all_gather.negative_axis_wrapped_as_untiled", PARALLEL,
         "d = axis % (get_aval(_checked(v)).ndim + (not tiled))", "d = axis % (get_aval(_checked(v)).ndim + 1)",
         "a negative all_gather axis is counted from the end of a rank one larger, tiled too",
         f"{under(PMAP_TESTS, 'all_gather')} or every_axis_counted"),
    rule("psum_scatter.untiled_accepts_multiples", PARALLEL, "        if shape[d] != axis_size:",
         "        if shape[d] % axis_size:",
         "untiled psum_scatter accepts a scattered dimension that is a multiple of the axis size", ERRORS),
    rule("all_to_all.untiled_unit_axis_on_the_wrong_side", PARALLEL,
         "            concat += 1\n        else:\n            split += 1",
         "            split += 1\n        else:\n            concat += 1",
         "untiled all_to_all shifts the wrong axis past the unit axis it inserts", under(PMAP_TESTS, "all_to_all")),
    rule("ppermute.repeated_destinations_accepted", PARALLEL,
         "    if len(set(srcs)) < len(srcs) or len(set(dsts)) < len(dsts):", "    if len(set(srcs)) < len(srcs):",
         "ppermute accepts two pairs sending to one device", ERRORS),
    # --- vmap rules (batching.py) ---------------------------------------------------------------------------
    rule("vmap.psum.unbatched_not_scaled", BATCHING, "_reduction_collective(lax.psum_p, lax.reduce_sum, scaled)",
         "_reduction_collective(lax.psum_p, lax.reduce_sum, lambda x, n: x)",
         "psum over vmap's axis of a value that does not vary along it is the value, not size times it",
         under(BATCHED, "psum")),
    rule("vmap.pmax.unbatched_scaled", BATCHING, "_reduction_collective(lax.pmax_p, lax.reduce_max, lambda x, n: x)",
         "_reduction_collective(lax.pmax_p, lax.reduce_max, scaled)",
         "pmax over vmap's axis of a value that does not vary along it multiplies it by the size",
         under(BATCHED, "pmax")),
    rule("vmap.all_gather.batch_axis_kept_first", BATCHING, "    x = bdim_to(x, bdim, d, axis.size)",
         "    x = bdim_to(x, bdim, 0, axis.size)", "all_gather over vmap's axis gathers along axis 0, whatever its axis",
         under(VMAP_TESTS, "all_gather")),
    rule("vmap.psum_scatter.tiled_blocks_interleaved", BATCHING,
         "(*shape[:d], axis.size, shape[d] // axis.size, *shape[d + 1 :])",
         "(*shape[:d], shape[d] // axis.size, axis.size, *shape[d + 1 :])",
         "tiled psum_scatter over vmap's axis gives example k every size-th element, not block k",
         under(VMAP_TESTS, "psum_scatter")),
    rule("vmap.all_to_all.sender_after_the_concat_axis", BATCHING,
         "([0, position[i]] if i == c else [position[i]])", "([position[i], 0] if i == c else [position[i]])",
         "all_to_all over vmap's axis puts the chunks received in the wrong order along concat_axis",
         under(VMAP_TESTS, "all_to_all")),
    rule("vmap.ppermute.permutation_inverted", BATCHING, "    source = {dst: src for src, dst in perm}",
         "    source = {src: dst for src, dst in perm}",
         "ppermute over vmap's axis sends the other way (the inverse permutation)", under(VMAP_TESTS, "ppermute")),
    rule("vmap.axis_index.counts_down", BATCHING, "    return lax.iota(np.int32, axis.size), 0",
         "    return lax.rev(lax.iota(np.int32, axis.size), (0,)), 0",
         "axis_index over vmap's axis counts from the last example", under(VMAP_TESTS, "axis_index")),
    rule("vmap.other_axis.dimensions_not_shifted", BATCHING,
         "    return prim.bind(moveaxis(x, bdim, 0), **{k: d + 1 for k, d in dims.items()}, **params), 0",
         "    return prim.bind(moveaxis(x, bdim, 0), **dims, **params), 0",
         "a collective over another vmap's axis does not shift its dimensions past the batch axis",
         f"{BATCHED} and pmap_of_vmap"),
    # --- transposes (transpose.py) --------------------------------------------------------------------------
    rule("psum.transpose.identity", TRANSPOSE,
         "transpose_rules[lax.psum_p] = lambda ct, x, **params: [lax.psum_p.bind(ct, **params)]",
         "transpose_rules[lax.psum_p] = lambda ct, x, **params: [ct]",
         "psum transposes to the identity: the other devices' cotangents are lost", under(REVERSE, "psum", "pmean")),
    rule("all_gather.transpose.scatters_along_axis_0", TRANSPOSE,
         "    return [lax.reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension, **params)]",
         "    return [lax.reduce_scatter_p.bind(ct, scatter_dimension=0, **params)]",
         "all_gather's transpose scatters along axis 0, whatever the axis gathered", under(REVERSE, "all_gather")),
    rule("psum_scatter.transpose.gathers_along_axis_0", TRANSPOSE,
         "    return [lax.all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, **params)]",
         "    return [lax.all_gather_p.bind(ct, all_gather_dimension=0, **params)]",
         "psum_scatter's transpose gathers along axis 0, whatever the dimension scattered",
         under(REVERSE, "psum_scatter")),
    rule("all_to_all.transpose.axes_not_swapped", TRANSPOSE,
         "split_axis=concat_axis, concat_axis=split_axis, **params)", "split_axis=split_axis, concat_axis=concat_axis, "
         "**params)", "all_to_all transposes to itself with the same axes, not swapped", under(REVERSE, "all_to_all")),
    rule("ppermute.transpose.not_inverted", TRANSPOSE,
         "perm=tuple((dst, src) for src, dst in perm))]", "perm=perm)]",
         "ppermute transposes to itself, not to the inverse permutation", under(REVERSE, "ppermute")),
    # --- lowering (lowering/parallel.py, lowering/core.py) --------------------------------------------------
    rule("lowering.pmax.minimum", LOWERING, '    lax.pmax_p: _all_reduce("pmax", "stablehlo.maximum"),',
         '    lax.pmax_p: _all_reduce("pmax", "stablehlo.minimum"),', "pmax lowers to an all_reduce taking the minimum",
         under(PMAP_TESTS, "pmax")),
    rule("lowering.ppermute.pairs_reversed", LOWERING, "    pairs = np.array([(g[src], g[dst])",
         "    pairs = np.array([(g[dst], g[src])", "ppermute lowers with each pair's source and target exchanged",
         under(PMAP_TESTS, "ppermute")),
    rule("lowering.axis_index.stride_of_the_earlier_axes", LOWERING,
         "    stride = int(np.prod(sizes[at + 1 :], dtype=np.int64))", "    stride = int(np.prod(sizes[:at], dtype=np.int64))",
         "axis_index divides the partition id by the sizes of the earlier mesh axes, not the later ones", ERRORS),
    rule("lowering.groups.names_sorted", LOWERING_CORE, "    axes = [mesh.axis_names.index(n) for n in names]",
         "    axes = sorted(mesh.axis_names.index(n) for n in names)",
         "a collective over several axes orders each group by the mesh's axis order, not the order named",
         "two_axes"),
    rule("lowering.groups.transposed", LOWERING_CORE, "    return ids.transpose(*others, *axes).reshape(",
         "    return ids.transpose(*axes, *others).reshape(",
         "the device groups of a collective on a mesh of several axes mix devices of different groups", PROGRAMS),
    rule("jit.eager_operations_leave_the_mesh", "didax/jit.py",
         "    if prim is jit_p or not any(type(getattr(x, \"_type\", None)) is ShardedType for x in args):",
         "    if True:", "an eager operation on a sharded Array runs in NumPy and gives an Array on one device",
         "eager_elementwise"),
    # --- pmap (pmap.py) -------------------------------------------------------------------------------------
    rule("pmap.in_axes_ignored_in_the_spec", PMAP, "    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, name)",
         "    return PartitionSpec() if axis is None else PartitionSpec(name)",
         "pmap splits axis 0 of every mapped argument over the devices, whatever its in_axes", "in_axes"),
    rule("pmap.out_axes_ignored", PMAP, "[x if a is None else expand_dims(x, (a,)) for x, a in zip(out_flat, leaf_axes)]",
         "[x if a is None else expand_dims(x, (0,)) for x, a in zip(out_flat, leaf_axes)]",
         "pmap stacks its outputs along axis 0, whatever out_axes says", "in_axes"),
    # --- shard_map (shard_map.py) ---------------------------------------------------------------------------
    rule("shard_map.indivisible_accepted", SHARD_MAP, "            if a.shape[d] % size:",
         "            if a.shape[d] < size:", "shard_map accepts an axis that the mesh axes do not divide", ERRORS),
    rule("shard_map.replication.psum_keeps_varying", SHARD_MAP, '            outs = [every - set(eqn.params["axes"])]',
         "            outs = [every]", "the replication check does not see that psum makes a value the same everywhere",
         f"{ERRORS} or {PROGRAMS}"),
    rule("shard_map.replication.gather_of_a_replicated_value", SHARD_MAP,
         "            outs = [every | set(parallel.axis_names(eqn.params))]", "            outs = [every]",
         "the replication check takes an all_gather (ppermute ...) of a replicated value as replicated", ERRORS),
    rule("shard_map.replication.axis_index_replicated", SHARD_MAP,
         "            outs = [frozenset(parallel.axis_names(eqn.params))]", "            outs = [frozenset()]",
         "the replication check takes axis_index as the same on every device", ERRORS),
    rule("shard_map.replication.psum_over_mixed_axes_accepted", SHARD_MAP,
         "                _check_psum_axes(eqn, ins[0])", "                pass",
         "a checked shard_map lets psum sum over axes its operand varies along and axes it does not at once",
         ERRORS),
    rule("shard_map.replication.psum_over_invariant_axes_refused", SHARD_MAP,
         "    if 0 < len(varying & set(axes)) < len(axes):", "    if len(varying & set(axes)) < len(axes):",
         "a checked shard_map refuses psum over axes its operand is the same along (counting the copies)",
         ERRORS),
    rule("shard_map.replication.calls_not_looked_into", SHARD_MAP,
         'p, inner = eqn.primitive, eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")',
         'p, inner = eqn.primitive, eqn.params.get("jaxpr")',
         "the replication check does not look into a custom_jvp or custom_vjp function: its psum is not seen",
         "inside_a_function_call"),
    rule("shard_map.replication.cond_branches_not_looked_into", SHARD_MAP, "        elif p is cond_p:",
         "        elif p is None:", "the replication check does not look into cond's branches: their psum is not seen",
         "inside_a_function_call"),
    rule("shard_map.partial_eval.axes_unbound", SHARD_MAP,
         "    with _in_mesh(mesh):  # splitting a cond stages its branches again, collectives and all",
         "    with contextlib.nullcontext():",
         "reverse mode splits the body without the mesh's axes bound: a collective in a cond branch is unbound",
         "inside_a_function_call"),
    rule("shard_map.replication.loop_body_looked_into_once", SHARD_MAP,
         "        if grown == ins[start : start + n]:", "        if True:",
         "the replication check takes a loop's carries as one pass of its body leaves them, not as every pass does",
         "carry_a_varying_value"),
    rule("shard_map.replication.pvary_not_seen", SHARD_MAP, "              parallel.pvary_p)  # fmt: skip",
         "              )  # fmt: skip", "the replication check takes a value pcast to varying as the same everywhere",
         ERRORS),
    rule("shard_map.replication.pcast_of_a_varying_value_accepted", SHARD_MAP,
         '            if p is parallel.pvary_p and every & set(eqn.params["axes"]):',
         '            if p is parallel.pvary_p and False:',
         "pcast(to='varying') of a value that already varies is accepted", ERRORS),
    rule("pvary.transpose.summed", TRANSPOSE, "transpose_rules[lax.pvary_p] = lambda ct, x, **params: [ct]",
         "transpose_rules[lax.pvary_p] = lambda ct, x, **params: [lax.psum_p.bind(ct, axes=params['axes'], "
         "axis_index_groups=None)]",
         "pvary's transpose sums the cotangent over the devices (JAX's rule, which counts twice under didax's "
         "transposition, whose boundary sums a replicated input's cotangent already)", under(REVERSE, "pcast")),
    rule("pvary.batch.result_unbatched", BATCHING,
         "    return (lax.pvary_p.bind(vals[0], axes=rest) if rest else vals[0]), dims[0]",
         "    return (lax.pvary_p.bind(vals[0], axes=rest) if rest else vals[0]), not_mapped",
         "vmap takes pvary's result as not batched", ERRORS),
    rule("pvary.jvp_missing", "didax/ad.py",
         "lax.all_to_all_p, lax.ppermute_p, lax.pvary_p,", "lax.all_to_all_p, lax.ppermute_p,",
         "pvary has no JVP rule", under(REVERSE, "pcast")),
    rule("shard_map.spec_tuples_read_as_their_first_axis", SHARD_MAP,
         "    return {a for axes in spec._axes(0) for a in axes}", "    return {axes[0] for axes in spec._axes(0) if axes}",
         "a spec entry naming several mesh axes counts as naming its first only (the replication check, the "
         "transpose's replicated axes)", f"{PROGRAMS} or {REVERSE}"),
    rule("shard_map.transpose.replicated_output_not_divided", SHARD_MAP,
         "        cts = [ct / n if n > 1 else ct for ct, n in zip(cts, copies)]", "        cts = list(cts)",
         "the transpose counts a replicated output's cotangent once per device holding it", REVERSE),
    rule("shard_map.transpose.replicated_input_not_summed", SHARD_MAP,
         "        return [parallel.psum(ct, _unmentioned(mesh, s)) if _unmentioned(mesh, s) else ct",
         "        return [ct", "the transpose gives a replicated input one device's cotangent, not their sum",
         under(REVERSE, "shard_map")),
    rule("shard_map.jvp.tangents_out_replicated", SHARD_MAP,
         "out_specs=(*out_specs, *(s for s, nz in zip(out_specs, out_nonzeros) if nz)),",
         "out_specs=(*out_specs, *(PartitionSpec() for s, nz in zip(out_specs, out_nonzeros) if nz)),",
         "shard_map's JVP gathers its output tangents as if replicated (device 0's block)", REVERSE),
    rule("shard_map.batch.batch_axis_last_in_the_spec", SHARD_MAP,
         "    whole = lambda s, b: PartitionSpec(None, *s) if b else s  # noqa: E731",
         "    whole = lambda s, b: PartitionSpec(*s, None) if b else s  # noqa: E731",
         "vmap of shard_map puts the unsplit batch axis after the spec's axes, not before",
         f"{BATCHED} and vmap_of_pmap"),
    rule("device_put.tree_of_shardings_read_as_one", "didax/devices.py",
         "    return isinstance(device, (tuple, list, dict)) and not isinstance(device, sh.PartitionSpec)",
         "    return isinstance(device, dict)",
         "device_put takes a tuple of shardings for one sharding, not a prefix tree of them",
         "tree_of_shardings"),
    Mutant("shard_map.residual_slots_along_the_first_axis", SHARD_MAP,
           "    return PartitionSpec(mesh.axis_names if len(mesh.axis_names) > 1 else mesh.axis_names[0])",
           "    return PartitionSpec(mesh.axis_names[0])", AREA,
           "reverse mode spreads the residuals of a 2-D mesh's devices along its first axis only", keyword=REVERSE,
           equivalent="the residuals never leave their devices: an output the spec calls replicated along an "
           "axis keeps each device's own block in XLA's buffers (nothing copies it from device 0), and the "
           "staged shard_map takes those buffers as they are, so each device reads its own residual back; "
           "grad of jit(shard_map) and jit(grad(jit(shard_map))) on a 2x4 mesh under P('j'), P(None, 'j'), "
           "P('i', 'j') and P(('i', 'j')), checked or not, gave the same gradients with and without it "
           "(only the residual's global shape, which no API shows, differs)"),
]  # fmt: skip


MUTANTS: list[Mutant] = [*VJP_STAGE_MUTANTS, *SHARDING_MUTANTS]
