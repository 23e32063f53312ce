"""The mutants of stage 06 (reverse mode): single, realistic bugs the conformance suite must notice.

Stage 06 is stage 05 plus reverse mode, so its catalogue is stage 05's (under the same ids) followed
by ``VJP_MUTANTS``, which the ``vjp`` area must notice: one wrong transpose rule each (every family
of ``didax/transpose.py``, and jit's in ``didax/jit.py``), the backward pass (cotangents summed,
the forward sweep, the order of the equations), partial evaluation (``didax/partial_eval.py``: the
known/unknown split of a primitive, constants made unknown, the jaxpr read off the recipes, the
residuals of ``partial_eval_jaxpr``, and the rules of cond, while, scan and jit, jit's forwarded
residuals), the API (``didax/reverse.py``: vjp's cotangent checks, grad's argnums, has_aux and
scalar check; ``didax/jacobians.py``: jacrev's rows) and checkpoint (``didax/checkpoint.py``: the
``name`` primitive's rules, the policies that read names, the known inputs a checkpoint's backward
pass takes, print_saved_residuals). Run them with

    python -m conformance.meta.mutate --stage 06_vjp --quick --only transpose.add.second_operand_negated ...

Not here, because no program can tell them from the original: the backward pass reading an
equation's output cotangents with ``get`` instead of ``pop`` (each variable is written once, so
nothing reads them again); scan's partial evaluation stacking a residual that is a constant of the
loop instead of passing it once (the staged loop reads the same value at every step); tracers_to_jaxpr
giving each use of a known value its own constant variable instead of one per value (the jaxpr
computes the same); argnums_partial leaving negative argnums unwrapped (Python's negative indices
pick the same arguments).
"""

from __future__ import annotations

from conformance.meta.mutants_05_jit import MUTANTS as JIT_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

TRANSPOSE = "didax/transpose.py"
PARTIAL_EVAL = "didax/partial_eval.py"
REVERSE = "didax/reverse.py"
JIT = "didax/jit.py"
JACOBIANS = "didax/jacobians.py"
CHECKPOINT = "didax/checkpoint.py"
AREA = ("vjp",)
# the vjp area's tests, for -k
TABLE = "primitive_vjp"
PROGRAMS = "random_program"
CONTROL = "closing or constant or switch_three or fori_loop_with or while or jit_in or scan_in or random_program"
NAMES = "checkpoint or print_saved or everything_saveable"


def table(*names: str) -> str:
    """The table's lines (test ids hold the case's name)."""
    return f"{TABLE} and ({' or '.join(names)})"


def rule(id_: str, find: str, replace: str, description: str, keyword: str, file: str = TRANSPOSE) -> Mutant:
    return Mutant(id_, file, find, replace, AREA, description, keyword=keyword)


VJP_MUTANTS: list[Mutant] = [
    # --- transpose rules: arithmetic ------------------------------------------------------------------------
    rule("transpose.add.second_operand_negated",
         "transpose_rules[lax.add_p] = _linear_terms(lambda ct: ct, lambda ct: ct)",
         "transpose_rules[lax.add_p] = _linear_terms(lambda ct: ct, lax.neg)",
         "add's transpose gives its second operand the negated cotangent (sub's rule)", table("add", "mul")),
    rule("transpose.add_any.second_operand_negated",
         "transpose_rules[add_any_p] = _linear_terms(lambda ct: ct, lambda ct: ct)",
         "transpose_rules[add_any_p] = _linear_terms(lambda ct: ct, lax.neg)",
         "add_any (the sum of two cotangents) transposes like sub: reverse over reverse of a value read twice "
         "is wrong", "transpose_of_a_vjp"),
    rule("transpose.sub.second_operand_not_negated",
         "transpose_rules[lax.sub_p] = _linear_terms(lambda ct: ct, lax.neg)",
         "transpose_rules[lax.sub_p] = _linear_terms(lambda ct: ct, lambda ct: ct)",
         "sub's transpose forgets the sign of its second operand", table("sub") + " or linear_transpose"),
    rule("transpose.complex.imaginary_part_not_negated",
         "_linear_terms(lax.real, lambda ct: lax.neg(lax.imag(ct)))", "_linear_terms(lax.real, lax.imag)",
         "complex's transpose gives y Im ct, not Re(i ct) = -Im ct", table("complex")),
    rule("transpose.conj.real_input_gets_the_conjugate",
         'return [lax.conj(ct) if np.dtype(input_dtype).kind == "c" else lax.real(ct)]', "return [lax.conj(ct)]",
         "conj of a real x transposes to conj, giving x a complex cotangent", table("conj")),
    rule("transpose.neg.sign_lost", "transpose_rules[lax.neg_p] = lambda ct, x: [lax.neg(ct)]",
         "transpose_rules[lax.neg_p] = lambda ct, x: [ct]", "neg transposes to the identity", table("neg", "sub")),
    rule("transpose.unbroadcast.stretched_axes_not_summed",
         "    axes = (*range(lead), *(lead + i for i, d in enumerate(shape) if d == 1 and ct_shape[lead + i] != 1))",
         "    axes = tuple(range(lead))",
         "a size-1 axis that lax's elementwise operations stretched is not summed back",
         table("size_1", "mul_by_a_scalar")),
    rule("transpose.mul.lhs_not_scaled", "        return [unbroadcast(x.aval, lax.mul(ct, y)), None]",
         "        return [unbroadcast(x.aval, ct), None]", "mul by a constant transposes to the identity (lhs linear)",
         table("mul", "div", "square") + f" or {PROGRAMS}"),
    rule("transpose.mul.rhs_not_scaled", "    return [None, unbroadcast(y.aval, lax.mul(x, ct))]",
         "    return [None, unbroadcast(y.aval, ct)]", "mul by a constant transposes to the identity (rhs linear)",
         table("mul", "div", "square") + f" or {PROGRAMS}"),
    rule("transpose.div.multiplies", "    return [unbroadcast(x.aval, lax.div(ct, y)), None]",
         "    return [unbroadcast(x.aval, lax.mul(ct, y)), None]", "div by a constant transposes to a product",
         table("div", "log", "atan", "pow")),
    # --- dtypes and complex numbers -----------------------------------------------------------------------------
    rule("transpose.convert.dtype_not_restored",
         "    return [lax.convert_element_type_p.bind(ct, new_dtype=aval.dtype, weak_type=aval.weak_type)]",
         "    return [ct]", "convert_element_type's transpose leaves the cotangent in the output's dtype",
         table("convert")),
    rule("transpose.real.multiplied_by_i",
         "def _real_transpose(ct: Any, x: Any) -> list[Any]:\n    return [",
         "def _real_transpose(ct: Any, x: Any) -> list[Any]:\n    return [Array(np.array(1j, x.aval.dtype)) * ",
         "real's transpose puts the cotangent into the imaginary part", table("real", "abs_complex")),
    rule("transpose.imag.sign", "    return [lax.mul(as_complex, Array(np.array(-1j, dtype)))]",
         "    return [lax.mul(as_complex, Array(np.array(1j, dtype)))]", "imag's transpose maps c to i c, not -i c",
         table("imag", "complex")),
    # --- structure ----------------------------------------------------------------------------------------------
    rule("transpose.reduce_sum.kept_axes_leading",
         "    return [lax.broadcast_in_dim(ct, shape, kept)]",
         "    return [lax.broadcast_in_dim(ct, shape, tuple(range(len(kept))))]",
         "reduce_sum's transpose broadcasts the cotangent along the leading axes, not the kept ones",
         f"{PROGRAMS} or {table('reduce')}"),
    rule("transpose.broadcast_in_dim.stretched_axes_not_summed",
         "    stretched = [d for d, n in zip(broadcast_dimensions, x_shape) if n == 1 and shape[d] != 1]",
         "    stretched = []", "broadcast_in_dim's transpose sums the new axes but not the stretched size-1 ones",
         f"{PROGRAMS} or {table('broadcast', 'size_1', 'scalar')}"),
    rule("transpose.reshape.column_major", "    return [lax.reshape(ct, x.aval.shape)]",
         "    return [lax.transpose(lax.reshape(ct, x.aval.shape[::-1]), tuple(range(len(x.aval.shape)))[::-1])]",
         "reshape's transpose reads the cotangent in column-major order", table("reshape") + f" or {PROGRAMS}"),
    rule("transpose.transpose.permutation_not_inverted",
         "    return [lax.transpose(ct, tuple(np.argsort(permutation)))]",
         "    return [lax.transpose(ct, tuple(permutation))]",
         "transpose's transpose applies the permutation again instead of its inverse", table("transpose")),
    rule("transpose.rev.identity", "transpose_rules[lax.rev_p] = lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)]",
         "transpose_rules[lax.rev_p] = lambda ct, x, *, dimensions: [ct]", "rev transposes to the identity",
         table("rev", "cumprod")),
    rule("transpose.pad.padding_value_gets_everything",
         "    ct_value = lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(ct_x, all_axes))",
         "    ct_value = lax.reduce_sum(ct, all_axes)",
         "the padding value's cotangent also sums the operand's places", table("pad")),
    rule("transpose.pad.interior_ignored",
         "    ct_x = lax.slice(uncropped, (0,) * len(lo), get_aval(uncropped).shape, tuple(i + 1 for i in interior))",
         "    ct_x = lax.slice(uncropped, (0,) * len(lo), tuple(n - i * (n // (i + 1)) for n, i in "
         "zip(get_aval(uncropped).shape, interior)))",
         "pad's transpose takes the operand's cotangent as one block, ignoring the interior padding", table("pad")),
    rule("transpose.concatenate.offset_not_advanced", "        start += size\n", "",
         "concatenate's transpose gives every operand the first operand's slice",
         table("concatenate") + f" or {PROGRAMS}"),
    rule("transpose.slice.strides_ignored",
         "    return [lax.pad(ct, zero, [(s, d - e, k - 1) for s, d, e, k in zip(start_indices, shape, ends, steps)])]",
         "    return [lax.pad(ct, zero, [(s, d - s - n, 0) for s, d, n in zip(start_indices, shape, ct_shape)])]",
         "slice's transpose puts the cotangent back contiguously, ignoring the strides",
         table("slice") + f" or {PROGRAMS}"),
    rule("transpose.dynamic_slice.at_the_origin",
         "    return [lax.dynamic_update_slice(zeros, ct, starts), *[None] * len(starts)]",
         "    return [lax.dynamic_update_slice(zeros, ct, [s * 0 for s in starts]), *[None] * len(starts)]",
         "dynamic_slice's transpose puts the cotangent at the origin, not at the start indices",
         table("dynamic_slice") + f" or {PROGRAMS}"),
    rule("transpose.dynamic_update_slice.overwritten_keep_cotangent",
         "        ct_x = lax.dynamic_update_slice(ct, zeros_like_aval(tangent_aval(update_aval)), starts)",
         "        ct_x = ct", "the places dynamic_update_slice overwrote still pass their cotangent to the operand",
         table("dynamic_update_slice")),
    rule("transpose.dynamic_update_slice.update_from_the_origin",
         "        ct_update = lax.dynamic_slice(ct, starts, update_aval.shape)",
         "        ct_update = lax.dynamic_slice(ct, [s * 0 for s in starts], update_aval.shape)",
         "the update's cotangent is read at the origin, not at the start indices", table("dynamic_update_slice")),
    rule("transpose.select_n.cases_swapped",
         "        lax.select_n(which, *[ct if j == i else zeros for j in range(len(cases))]) if is_undefined_primal(c) else None",
         "        lax.select_n(which, *[zeros if j == i else ct for j in range(len(cases))]) if is_undefined_primal(c) else None",
         "select_n's transpose sends each case the cotangent of the places the others were chosen",
         table("select", "where", "clamp", "max", "min") + f" or {PROGRAMS}"),
    rule("transpose.cumsum.direction_kept",
         "transpose_rules[lax.cumsum_p] = lambda ct, x, *, axis, reverse: [lax.cumsum(ct, axis, reverse=not reverse)]",
         "transpose_rules[lax.cumsum_p] = lambda ct, x, *, axis, reverse: [lax.cumsum(ct, axis, reverse=reverse)]",
         "cumsum's transpose sums in the same direction, not the opposite one", table("cum") + f" or {PROGRAMS}"),
    # --- dot_general ---------------------------------------------------------------------------------------------
    rule("transpose.dot_general.lhs_as_rhs",
         "        return [_contract_back(ct, y, x.aval, (x_contract, x_batch), (y_contract, y_batch), other_first=False), None]",
         "        return [_contract_back(ct, y, x.aval, (x_contract, x_batch), (y_contract, y_batch), other_first=True), None]",
         "the lhs's cotangent contracts the output's lhs axes with the rhs (as if it were the rhs)",
         table("dot_general")),
    rule("transpose.dot_general.rhs_as_lhs",
         "    return [None, _contract_back(ct, x, y.aval, (y_contract, y_batch), (x_contract, x_batch), other_first=True)]",
         "    return [None, _contract_back(ct, x, y.aval, (y_contract, y_batch), (x_contract, x_batch), other_first=False)]",
         "the rhs's cotangent contracts the output's rhs axes with the lhs (as if it were the lhs)",
         table("dot_general")),
    rule("transpose.dot_general.contracting_pairs_unsorted",
         "    paired = [my_contract[i] for i in np.argsort(other_contract)]",
         "    paired = list(my_contract)",
         "several contracting axes come back in the operand's order, not paired with the other operand's",
         table("dot_general")),
    # --- gather and scatter ---------------------------------------------------------------------------------------
    rule("transpose.gather.overwrites_repeats",
         "    ct_operand = lax.scatter_add(zeros, indices, ct, scatter_dn, indices_are_sorted=indices_are_sorted,",
         "    ct_operand = lax.scatter(zeros, indices, ct, scatter_dn, indices_are_sorted=indices_are_sorted,",
         "gather's transpose writes the cotangents of a place read twice over each other instead of adding",
         table("gather") + f" or {PROGRAMS}"),
    rule("transpose.gather.clips_what_it_filled",
         "                                 unique_indices=unique_indices, mode=mode)  # fmt: skip",
         "                                 unique_indices=unique_indices, mode=lax.GatherScatterMode.CLIP)  # fmt: skip",
         "gather's transpose clips the out-of-bounds indices it filled: their cotangents land on the edge",
         table("gather_fill")),
    rule("transpose.scatter_add.operand_gets_nothing",
         "        ct_operand = ct if is_undefined_primal(operand) else None",
         "        ct_operand = Zero(operand.aval) if is_undefined_primal(operand) else None",
         "scatter_add's operand gets a zero cotangent", table("scatter_add", "scatter_sub") + f" or {PROGRAMS}"),
    rule("transpose.scatter_sub.updates_not_negated",
         "transpose_rules[lax.scatter_sub_p] = _scatter_add_transpose(lax.neg)",
         "transpose_rules[lax.scatter_sub_p] = _scatter_add_transpose(lambda ct: ct)",
         "scatter_sub's updates get the cotangent unnegated", table("scatter_sub")),
    rule("transpose.scatter.overwritten_keep_cotangent",
         "        ct_operand = lax.scatter_p.bind(ct, indices, zeros_like_aval(tangent_aval(updates_aval)), **params)",
         "        ct_operand = ct", "the places an overwriting scatter wrote still pass their cotangent to the operand",
         table("scatter") + f" or {PROGRAMS}"),
    # --- control flow ------------------------------------------------------------------------------------------------
    rule("transpose.cond.branches_reversed",
         "    transposed, consts = hoist_branch_consts([transpose_jaxpr(b, linear) for b in branches])",
         "    transposed, consts = hoist_branch_consts([transpose_jaxpr(b, linear) for b in reversed(branches)])",
         "cond's transpose runs the transpose of the other branch", CONTROL),
    rule("transpose.scan.same_direction",
         "                     reverse=not reverse, unroll=unroll)  # fmt: skip",
         "                     reverse=reverse, unroll=unroll)  # fmt: skip",
         "scan's transpose runs forwards, like the scan", CONTROL),
    rule("transpose.scan.constant_cotangents_not_summed",
         "        return [*map(add_cotangents, acc, ct_consts), *ct_carry_in, *ct_xs]",
         "        return [*ct_consts, *ct_carry_in, *ct_xs]",
         "the cotangent of a scan's constant is the last step's, not the sum over the steps", CONTROL),
    rule("transpose.jit.residuals_reversed",
         "    res = [x for x in args if not transpose.is_undefined_primal(x)]",
         "    res = [x for x in reversed(args) if not transpose.is_undefined_primal(x)]",
         "jit's transpose passes its residuals in reverse order", CONTROL + " or jit", file=JIT),
    # --- the backward pass ----------------------------------------------------------------------------------------
    rule("backward_pass.cotangents_overwritten",
         "            ct_env[x] = add_cotangents(ct_env[x], ct) if x in ct_env else ct",
         "            ct_env[x] = ct", "a value read several times keeps only its last cotangent",
         f"{PROGRAMS} or many_times or {table('square', 'mul')}"),
    rule("backward_pass.add_cotangents_drops_the_second",
         "    if type(y) is Zero:\n        return x\n    return add_any_p.bind(x, y)",
         "    return x", "the sum of two cotangents is the first", f"{PROGRAMS} or many_times"),
    rule("backward_pass.forward_sweep_on_mixed_equations",
         "        if any(type(x) is Var and x in linear for x in eqn.invars):",
         "        if all(type(x) is Var and x in linear for x in eqn.invars):",
         "an equation reading a residual and a linear value is evaluated in the forward sweep",
         f"{TABLE} or {PROGRAMS}"),
    rule("backward_pass.equations_in_order", "    for eqn in reversed(linear_eqns):", "    for eqn in linear_eqns:",
         "the linear equations are transposed first to last", f"{TABLE} or {PROGRAMS}"),
    # --- partial evaluation ----------------------------------------------------------------------------------------
    rule("partial_eval.known_when_any_input_is",
         "        if all(t.pval.is_known for t in tracers):  # everything known: just compute it",
         "        if any(t.pval.is_known for t in tracers):  # everything known: just compute it",
         "an operation with one known input is computed now", f"{TABLE} or {PROGRAMS}", file=PARTIAL_EVAL),
    rule("partial_eval.outputs_not_instantiated",
         "        tracers_out = [trace.instantiate_const(t) if i else t for t, i in zip(tracers_out, inst)]",
         "        tracers_out = list(tracers_out)",
         "partial_eval_flat leaves a known output known though it is asked to stage it: linear_transpose and "
         "linearize lose outputs", "linear_transpose or linearize or golden or " + PROGRAMS, file=PARTIAL_EVAL),
    rule("partial_eval.toposort_reversed", "                order.append(node)", "                order.insert(0, node)",
         "the recipes become equations outputs first", f"{TABLE} or {PROGRAMS}", file=PARTIAL_EVAL),
    rule("partial_eval.dropped_output_tracers",
         "                outvars.append(var_of.setdefault(id(out), Var(aval)) if out is not None else Var(aval))",
         "                outvars.append(Var(aval))",
         "an equation's outputs get fresh variables, not those of the tracers that read them",
         f"{TABLE} or {PROGRAMS}", file=PARTIAL_EVAL),
    rule("partial_eval_jaxpr.known_inputs_not_residuals",
         "            unknown_eqns.append(eqn)\n            for x in eqn.invars:\n                as_residual(x)\n",
         "            unknown_eqns.append(eqn)\n",
         "a known variable read by an unknown equation is not made a residual", CONTROL + " or jit",
         file=PARTIAL_EVAL),
    rule("partial_eval_jaxpr.instantiate_ignored",
         "    out_unknowns = [is_unknown(v) or inst for v, inst in zip(jaxpr.outvars, instantiate)]",
         "    out_unknowns = [is_unknown(v) for v in jaxpr.outvars]",
         "partial_eval_jaxpr leaves known outputs known though asked to stage them (a loop's carry, a "
         "branch's output)", CONTROL, file=PARTIAL_EVAL),
    rule("partial_eval.cond.outputs_unknown_only_if_in_every_branch",
         "    out_uks = [any(uks) for uks in zip(*(partial_eval_jaxpr(b, ops_unknown).out_unknowns for b in branches))]",
         "    out_uks = [all(uks) for uks in zip(*(partial_eval_jaxpr(b, ops_unknown).out_unknowns for b in branches))]",
         "a cond's output is unknown only when it is in every branch", CONTROL + " or golden", file=PARTIAL_EVAL),
    rule("partial_eval.cond.staged_branches_read_the_first_slots",
         "        unknown_branches.append(_reading_residual_slots(s.unknown, res_avals, start, s.num_res))",
         "        unknown_branches.append(_reading_residual_slots(s.unknown, res_avals, 0, s.num_res))",
         "every staged branch reads the first branch's residual slots", CONTROL, file=PARTIAL_EVAL),
    rule("partial_eval.while.carry_not_fixed_point",
         "    carry_uk = carry_fixed_point(lambda uk: partial_eval_jaxpr(body, bc_uk + uk).out_unknowns, init_uk)",
         "    carry_uk = list(init_uk)",
         "a while loop's carry that starts known and becomes unknown in the body stays known", "while",
         file=PARTIAL_EVAL),
    rule("partial_eval.scan.carry_not_fixed_point",
         "    carry_uk = carry_fixed_point(\n        lambda uk: partial_eval_jaxpr(body, const_uk + uk + xs_uk).out_unknowns[:n_carry], init_uk\n    )",
         "    carry_uk = list(init_uk)",
         "a scan's carry that starts known and becomes unknown in the body stays known", CONTROL,
         file=PARTIAL_EVAL),
    rule("partial_eval.jit.residuals_never_forwarded",
         "    forwarded = [(position.get(v), v.aval) for v in residuals]",
         "    forwarded = [(None, v.aval) for v in residuals]",
         "a jit's residual that is one of its known inputs is also computed by the known jit, which does "
         "not output it", CONTROL + " or jit", file=JIT),
    # --- checkpoint: names, the policies that read them, what is saved ----------------------------------------
    rule("name.jvp.tangent_named", "    return name_p.bind(primals[0], name=name), tangents[0]",
         "    return name_p.bind(primals[0], name=name), name_p.bind(tangents[0], name=name)",
         "checkpoint_name names the tangent too: the linear jaxpr holds a name, which has no transpose", NAMES,
         file=CHECKPOINT),
    rule("name.jvp.tangent_dropped", "    return name_p.bind(primals[0], name=name), tangents[0]",
         "    return name_p.bind(primals[0], name=name), ad.Zero.like(primals[0])",
         "checkpoint_name stops the derivative, as stop_gradient would", NAMES, file=CHECKPOINT),
    rule("name.batching.axis_first",
         "lambda vals, dims, *, name: (name_p.bind(vals[0], name=name), dims[0])",
         "lambda vals, dims, *, name: (name_p.bind(vals[0], name=name), 0)",
         "checkpoint_name's batching rule says the batch axis is the first, wherever it is", NAMES,
         file=CHECKPOINT),
    rule("name.abstract_eval.weak_type_lost", "name_p.def_abstract_eval(lambda aval, *, name: shaped(aval))",
         "name_p.def_abstract_eval(lambda aval, *, name: ShapedArray(aval.shape, aval.dtype))",
         "a named value staged by jit loses its weak type", NAMES, file=CHECKPOINT),
    rule("policy.save_only_these_names.inverted", 'params["name"] in self.saveable_names',
         'params["name"] not in self.saveable_names',
         "save_only_these_names saves the named values it does not name", NAMES, file=CHECKPOINT),
    rule("policy.save_any_names_but_these.saves_unnamed", 'return prim is name_p and params["name"] not in self.names',
         'return prim is not name_p or params["name"] not in self.names',
         "save_any_names_but_these saves every value that has no name as well", NAMES, file=CHECKPOINT),
    rule("policy.save_from_both_policies.first_only",
         "return policy_1(prim, *avals, **params) or policy_2(prim, *avals, **params)",
         "return policy_1(prim, *avals, **params)",
         "save_from_both_policies saves what its first policy saves, and ignores the second", NAMES,
         file=CHECKPOINT),
    rule("remat.staged_side_reads_every_known_input", "    known_read = [v in read for v in known_in]",
         "    known_read = [True for v in known_in]",
         "a checkpoint's backward pass takes every known input, so they are saved though nothing reads them",
         NAMES, file=CHECKPOINT),
    rule("print_saved_residuals.checkpoint_not_looked_into",
         "    if eqn.primitive is remat_p:  # look inside", "    if False:  # look inside",
         "print_saved_residuals says 'output of remat2' for what a checkpointed function saves", NAMES,
         file=CHECKPOINT),
    rule("print_saved_residuals.unsorted", "    return [sources[key] for key in sorted(sources)]",
         "    return list(sources.values())",
         "print_saved_residuals lists residuals in the pullback's order, not arguments then program order", NAMES,
         file=CHECKPOINT),
    rule("print_saved_residuals.var_keyword_unnamed",
         'head = first.key if first.key in named else f"{var_kwargs}[{first.key!r}]"', "head = first.key",
         "an argument passed through **kw is named by its key alone", NAMES, file=CHECKPOINT),
    rule("print_saved_residuals.var_positional_counted_from_zero",
         'head = f"{var_args}[{first.idx - len(positional)}]"', 'head = f"{var_args}[{first.idx}]"',
         "an argument passed through *args is numbered among all positional arguments", NAMES, file=CHECKPOINT),
    # --- the API ----------------------------------------------------------------------------------------------
    rule("vjp.cotangent_shape_unchecked",
         "    if got.shape != expected.shape or (got.dtype != expected.dtype and expected.dtype != dtypes.float0):",
         "    if got.dtype != expected.dtype and expected.dtype != dtypes.float0:",
         "vjp's function accepts a cotangent of the wrong shape", "cotangent", file=REVERSE),
    rule("vjp.cotangent_tree_unchecked", "        if tree != out_tree:\n            raise ValueError(",
         "        if False:\n            raise ValueError(", "vjp's function accepts a cotangent of another tree",
         "cotangent", file=REVERSE),
    rule("grad.tuple_argnums_give_the_first", "        g = g[0] if isinstance(argnums, int) else g",
         "        g = g[0]", "grad with a tuple of argnums returns the first gradient alone", "argnums",
         file=REVERSE),
    rule("grad.aux_in_a_list", "        return (g, aux[0]) if has_aux else g", "        return (g, aux) if has_aux else g",
         "grad with has_aux returns the auxiliary data in a list", "has_aux", file=REVERSE),
    rule("grad.matrix_output_only_is_rejected", "    if aval.shape != ():", "    if len(aval.shape) > 1:",
         "grad accepts a vector output (and returns its vjp with a broadcast 1)", "misuse", file=REVERSE),
    rule("grad.seed_is_two", "    return Array(np.ones((), aval.dtype), aval.weak_type)",
         "    return Array(np.full((), 2, aval.dtype), aval.weak_type)",
         "grad seeds the backward pass with 2, not 1", "golden or argnums or has_aux or grad_and_jit",
         file=REVERSE),
    rule("jacrev.rows_from_the_start",
         "        piece = lax.reshape(lax.slice_in_dim(jac, start, start + aval.size, axis=0), (*aval.shape, *x_aval.shape))",
         "        piece = lax.reshape(lax.slice_in_dim(jac, 0, aval.size, axis=0), (*aval.shape, *x_aval.shape))",
         "jacrev gives every output leaf the rows of the first", "jacrev or hessian", file=JACOBIANS),
]  # fmt: skip


MUTANTS: list[Mutant] = [*JIT_STAGE_MUTANTS, *VJP_MUTANTS]
