"""The mutants of stage 04 (jaxprs and staged control flow): single, realistic bugs the conformance
suite must notice.

Stage 04 is stage 03 plus staging, so its catalogue is stage 03's (stage 01's, the jvp rules' and the
batching rules', under the same ids; two of them in stage 04's words, ``STAGE_04_VERSIONS``, for
the rewritten find_top_trace) followed by
``JAXPR_MUTANTS``, which the ``jaxpr`` area must notice: a bug in staging (``didax/staging.py``:
omnistaging, literals and constvars, the abstract-evaluation cache, make_jaxpr's and eval_shape's
API), in the jaxprs themselves (``didax/jaxpr.py``: eval_jaxpr, the type checker), in the dynamic
trace (``didax/core.py``), and in the control-flow primitives: their impl and API
(``didax/lax/conditionals.py``, ``didax/lax/loops.py``), JVP rules (``didax/ad.py``) and batching
rules (``didax/batching.py``); and in what staging makes traceable: gamma's rejection loops
(``didax/random/distributions.py``, which the ``random`` area notices: JAX's recorded bits) and ``x.at[].apply``'s
``update_jaxpr`` (``didax/lax/slicing.py``, ``didax/numpy/at.py``, ``didax/ad.py``). Run them with

    python -m conformance.meta.mutate --stage 04_jaxpr --only staging.omnistaging_off ...
    python -m conformance.meta.mutate --stage 04_jaxpr --quick --only $(python -c "...JAXPR_MUTANTS ids")

Not here, because no program can tell it from the original: dead-code elimination
(``staging.dce_jaxpr``), which nothing in stage 04 calls (JAX's make_jaxpr keeps dead code too).
"""

from __future__ import annotations

from conformance.meta.mutants_03_vmap import MUTANTS as VMAP_STAGE_MUTANTS
from conformance.meta.mutate import Mutant

STAGING = "didax/staging.py"
JAXPR = "didax/jaxpr.py"
CORE = "didax/core.py"
CONDITIONALS = "didax/lax/conditionals.py"
LOOPS = "didax/lax/loops.py"
AD = "didax/ad.py"
BATCHING = "didax/batching.py"
AREA = ("jaxpr",)
PURE = "if not aval.shape and not isinstance(val, (Tracer, Array)) and isinstance(aval, ConcreteArray):"
ROUND_TRIP = "round_trips or reference_loop"
CF_JVP = "control_flow_jvp"
CF_VMAP = "control_flow_vmap or every_batched"
RANDOM = "didax/random/distributions.py"
SLICING = "didax/lax/slicing.py"
AT = "didax/numpy/at.py"
GAMMA_AREAS = ("random",)  # JAX's recorded bits; the jaxpr and vmap areas compare the sampler with itself
GAMMA = "gamma or beta or dirichlet"
APPLY = "at_apply"
STAGED = "stage_what_jax_stages"

JAXPR_MUTANTS: list[Mutant] = [
    Mutant(
        "errors.top_k_staged_k_read_as_an_index", "didax/lax/sorting.py",
        "    if k < 0:  # JAX compares first", "    if operator.index(k) < 0:  # JAX compares first", AREA,
        "top_k reads a staged k as an index first: TracerIntegerConversionError where JAX's comparison raises "
        "TracerBoolConversionError", keyword="top_k_of_a_staged_k",
    ),
    # --- staging: omnistaging, literals, constvars ------------------------------------------------------------
    Mutant(
        "staging.a_tracer_leaked_from_vmap_is_a_constant", BATCHING,
        "    escaped_tracers_are_constants = False  # JAX invalidates vmap's trace when vmap returns\n", "",
        AREA, "a tracer leaked from vmap and met by a later make_jaxpr is staged as a constant, where JAX raises "
        "UnexpectedTracerError at once", keyword="leaked",
    ),
    Mutant(
        "staging.float0_constant_made_an_array", STAGING,
        "    if isinstance(const, (Tracer, Array)) or (isinstance(const, np.ndarray) and const.dtype == dtypes.float0):",
        "    if isinstance(const, (Tracer, Array)):",
        AREA, "make_jaxpr turns a float0 constant (an integer's tangent) into an Array, which cannot hold float0: "
        "staging a jvp of an integer output raises TypeError", keyword="float0",
    ),
    Mutant(
        "staging.omnistaging_off", STAGING,
        "with new_main(JaxprTrace, builder) as main, new_dynamic(main):",
        "with new_main(JaxprTrace, builder) as main:",
        AREA, "make_jaxpr does not make its trace the dynamic one: operations on constants run at once "
        "and their results are baked in as constants", keyword="staged_not_baked_in or on_constants",
    ),
    Mutant(
        "staging.vectors_become_literals", STAGING, PURE,
        "if aval.ndim <= 1 and not isinstance(val, (Tracer, Array)) and isinstance(aval, ConcreteArray):",
        AREA, "a captured 1-d array is written into the equations as a literal, not a constvar",
        keyword="captured or constants",
    ),
    Mutant(
        "staging.a_captured_key_is_a_literal", STAGING, PURE,
        "if not aval.shape and not isinstance(val, Tracer):",
        AREA, "a captured scalar key is written into the equations as a literal, as a number would be",
        keyword="key",
    ),
    Mutant(
        "staging.a_captured_scalar_array_is_a_literal", STAGING,
        "if type(val) is Array and not val.shape and val.serial > self.main.global_data.first_serial:",
        "if type(val) is Array and not val.shape:",
        AREA, "a 0-d Array the function closes over is written into the equations as a literal (didax before "
        "JAX's rule: a jax.Array is a constvar)", keyword="captured",
    ),
    Mutant(
        "staging.scalar_arrays_made_while_staging_are_constvars", STAGING,
        "if type(val) is Array and not val.shape and val.serial > self.main.global_data.first_serial:",
        "if False:",
        AREA, "a scalar didax makes while staging (jnp.float32(3.0) inside the function) is a constvar, not a "
        "literal", keyword="captured or literals",
    ),
    Mutant(
        "staging.leaked_tracer_always_an_error", CORE,
        "                if not (is_staging() and main.trace_type.escaped_tracers_are_constants):\n"
        "                    raise UnexpectedTracerError(x)\n",
        "                raise UnexpectedTracerError(x)\n",
        AREA, "a tracer leaked from a finished make_jaxpr is UnexpectedTracerError in a later one, not a constvar",
        keyword="leaked",
    ),
    Mutant(
        "staging.leaked_tracer_not_raised_as_a_constant", CORE,
        "    if not isinstance(val, Tracer) or (not is_alive(val._trace.main) and is_staging()):",
        "    if not isinstance(val, Tracer):",
        AREA, "full_raise lifts a leaked tracer by its old level: an assertion about traces at one level",
        keyword="leaked",
    ),
    Mutant(
        "staging.tracer_has_no_item", CORE,
        "    def item(self, *args: int) -> Any:", "    def _item(self, *args: int) -> Any:",
        AREA, "x.item() on a staged value is an AttributeError (didax before), not ConcretizationTypeError",
        keyword="names_the_conversion",
    ),
    Mutant(
        "staging.tracer_has_no_tolist", CORE,
        "    def tolist(self) -> Any:\n        called", "    def _tolist(self) -> Any:\n        called",
        AREA, "x.tolist() on a staged value is an AttributeError, not ConcretizationTypeError",
        keyword="names_the_conversion",
    ),
    Mutant(
        "staging.conversion_error_names_no_function", CORE,
        'f"The problem arose with the `{name}` function. If trying', 'f"The problem arose with a conversion. If trying',
        AREA, "int(x), float(x) and complex(x) on a staged value do not say which conversion failed",
        keyword="names_the_conversion",
    ),
    Mutant(
        "staging.float_index_is_a_tracer_error", CORE,
        '        if self.shape or getattr(self.dtype, "kind", "") not in "iu":',
        "        if self.shape:",
        AREA, "a staged float used as an index is TracerIntegerConversionError, not NumPy's plain TypeError",
        keyword="names_the_conversion",
    ),
    Mutant(
        "staging.slice_bound_type_error", "didax/numpy/indexing.py",
        '                raise IndexError(f"Slice entries must be static integers.',
        '                raise TypeError(f"Slice entries must be static integers.',
        AREA, "a staged slice bound is a TypeError (didax before), not JAX's IndexError", keyword="names_the_conversion",
    ),
    Mutant(
        "staging.gather_slice_bounds_not_checked", "didax/numpy/indexing.py",
        "    return _static_slices([_parse_entry(entry) for entry in entries])",
        "    return [_parse_entry(entry) for entry in entries]",
        AREA, "beside an index array, a staged slice bound meets slice.indices: TracerIntegerConversionError, "
        "not JAX's IndexError (a known one is read alike either way)", keyword="names_the_conversion",
    ),
    Mutant(
        "staging.slice_position_not_counted", "didax/numpy/indexing.py",
        "    return [_static_slice(e, k) if type(e) is slice else e for k, e in enumerate(entries)]",
        "    return [_static_slice(e, 0) if type(e) is slice else e for k, e in enumerate(entries)]",
        AREA, "the IndexError of a staged slice bound names position 0 whatever the entry's place",
        keyword="names_the_conversion",
    ),
    Mutant(
        "staging.only_python_scalars_are_literals", STAGING, PURE,
        "if isinstance(val, (bool, int, float, complex)):",
        AREA, "NumPy scalars and 0-d arrays become constvars instead of literals", keyword="literals",
    ),
    Mutant(
        "staging.known_tracer_becomes_a_literal", STAGING,
        "        aval = shaped_abstractify(val)\n        return JaxprTracer(self, aval, self.main.global_data.const_var(val, aval))",
        "        aval = get_aval(val)\n        if aval.shape == () and hasattr(aval, 'val'):\n"
        "            return JaxprTracer(self, shaped(aval), Literal(np.asarray(aval.val, aval.dtype), shaped(aval)))\n"
        "        aval = shaped(aval)\n        return JaxprTracer(self, aval, self.main.global_data.const_var(val, aval))",
        AREA, "lift makes a scalar jvp tracer whose value is known (closed over by a staged function) a "
        "literal of its primal, as pure does a constant: its tangent is lost", keyword="inside_jvp",
    ),
    Mutant(
        "staging.constvars_deduplicated_by_type", STAGING,
        "var = self.constvars.get(id(val))",
        "var = self.constvars.get(id(val)) or next((v for v in self.constvars.values() if v.aval == aval), None)",
        AREA, "two captured arrays of the same shape and dtype share one constvar", keyword="captured or stay_apart",
    ),
    Mutant(
        "staging.constvars_not_deduplicated", STAGING,
        "var = self.constvars.get(id(val))", "var = None",
        AREA, "an array captured twice gets a second constvar, which replaces the first in the table: the "
        "equations that read the first read an unbound variable", keyword="captured",
    ),
    Mutant(
        "staging.consts_in_reverse_order", STAGING,
        "return ClosedJaxpr(jaxpr, self.consts)", "return ClosedJaxpr(jaxpr, self.consts[::-1])",
        AREA, "the closed jaxpr's constants are not in its constvars' order", keyword="captured or stay_apart",
    ),
    Mutant(
        "staging.type_cache_ignores_params", STAGING,
        "key = (primitive, config.jax_enable_x64, *avals, *params.items())",
        "key = (primitive, config.jax_enable_x64, *avals)",
        AREA, "the abstract-evaluation cache is keyed on the input types alone: reduce_sum over another "
        "axis gets the type of the first one asked", keyword=ROUND_TRIP,
    ),
    Mutant(
        "staging.foreign_tracer_output_kept", STAGING,
        "if isinstance(x, JaxprTracer) and x._trace.main is trace.main:", "if isinstance(x, JaxprTracer):",
        AREA, "an inner make_jaxpr that returns the outer one's staged value uses the outer variable as its "
        "output instead of a constvar (unbound in the inner jaxpr)", keyword="inside_make_jaxpr",
    ),
    Mutant(
        "staging.shaped_drops_weak_type", STAGING,
        "known = _shaped_avals[key] = ShapedArray(*key)", "known = _shaped_avals[key] = ShapedArray(*key[:2])",
        AREA, "a staged argument made from a Python scalar is strongly typed: it promotes as a float32 array",
        keyword="weak",
    ),
    Mutant(
        "staging.shape_dtype_struct_weak_type_ignored", STAGING,
        "return ShapedArray(x.shape, x.dtype, x.weak_type)", "return ShapedArray(x.shape, x.dtype)",
        AREA, "a ShapeDtypeStruct's weak_type is ignored", keyword="weak",
    ),
    Mutant(
        "staging.eval_shape_drops_weak_type", STAGING,
        "shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]\n"
        "    return tree_unflatten(out_tree, shapes)",
        "shapes = [ShapeDtypeStruct(a.shape, a.dtype) for a in closed.out_avals]\n"
        "    return tree_unflatten(out_tree, shapes)",
        AREA, "eval_shape's ShapeDtypeStructs are all strongly typed", keyword="weak or round_trips",
    ),
    Mutant(
        "staging.return_shape_flat", STAGING,
        "return closed, tree_unflatten(out_tree, shapes)", "return closed, shapes",
        AREA, "make_jaxpr(return_shape=True) gives a flat list of ShapeDtypeStructs, not the output's tree",
        keyword="return_shape",
    ),
    Mutant(
        "staging.negative_static_argnums_not_wrapped", STAGING,
        "return {i % nargs for i in static}", "return {i for i in static}",
        AREA, "a negative static_argnums names no argument: the argument is staged", keyword="static_argnums",
    ),
    Mutant(
        "staging.hoisted_consts_after_the_inputs", STAGING,
        "Jaxpr((), [*j.constvars, *j.invars], j.outvars, j.eqns)",
        "Jaxpr((), [*j.invars, *j.constvars], j.outvars, j.eqns)",
        AREA, "hoist_consts puts a body's constants after its inputs, while the primitives pass them first",
        keyword="closing_over or closure or reference_loop",
    ),
    # --- the dynamic trace (core.py) ----------------------------------------------------------------------------
    Mutant(
        "core.dynamic_trace_not_restored_after_an_error", CORE,
        "    try:\n        yield\n    finally:\n        trace_state.dynamic_trace = previous",
        "    yield\n    trace_state.dynamic_trace = previous",
        AREA, "a staging that raises leaves its dead trace as the dynamic one: operations on constants go to "
        "it afterwards", keyword="jax_errors or unexpected_tracer or after_a_failure",
    ),
    Mutant(
        "core.dynamic_trace_only_for_constants", CORE,
        "if main.level >= level:", "if main.level >= level or top is trace_state.dynamic_trace:",
        AREA, "an operation on an enclosing jvp's tracer inside make_jaxpr goes to the jvp, not to the "
        "staging trace above it: it is not staged", keyword="inside_jvp or inside_vmap",
    ),
    # --- jaxprs: eval_jaxpr and the type checker ---------------------------------------------------------------
    Mutant(
        "jaxpr.eval_one_output_multiple_results", JAXPR,
        "outs if eqn.primitive.multiple_results else (outs,)", "outs if len(eqn.outvars) > 1 else (outs,)",
        AREA, "eval_jaxpr binds the list of results of a multiple-results primitive with one output (a cond "
        "or loop of one value) as that value", keyword="round_trips or reference_loop",
    ),
    Mutant(
        "jaxpr.eval_literal_strong", JAXPR,
        "return literal_value(atom) if type(atom) is Literal else env[atom]",
        "return atom.val if type(atom) is Literal else env[atom]",
        AREA, "eval_jaxpr reads a weakly typed literal as a strongly typed value (a while loop's counter "
        "becomes strong under jvp)", keyword="weak or no_inputs or while_loop",
    ),
    Mutant(
        "jaxpr.check_accepts_rebinding", JAXPR,
        "        if v in bound:\n            raise fail(", "        if v in bound and False:\n            raise fail(",
        AREA, "check_jaxpr accepts a variable bound twice", keyword="check_jaxpr",
    ),
    Mutant(
        "jaxpr.check_accepts_unbound_reads", JAXPR,
        "if type(v) is Var and v not in bound:", "if type(v) is Var and v not in bound and False:",
        AREA, "check_jaxpr accepts a variable read before it is bound", keyword="check_jaxpr",
    ),
    Mutant(
        "jaxpr.check_ignores_outputs", JAXPR,
        "    for v in jaxpr.outvars:\n        read(v)", "    pass",
        AREA, "check_jaxpr does not check that the outputs are bound", keyword="check_jaxpr",
    ),
    Mutant(
        "jaxpr.types_match_by_shape", JAXPR,
        "return declared.shape == actual.shape and declared.dtype == actual.dtype",
        "return declared.shape == actual.shape",
        AREA, "types match by shape alone: check_jaxpr and cond's branch check ignore dtypes",
        keyword="check_jaxpr or jax_errors",
    ),
    Mutant(
        "jaxpr.check_skips_subjaxprs", JAXPR,
        "        for sub in subjaxprs(eqn.params):\n            check_jaxpr(sub)",
        "        for sub in ():\n            check_jaxpr(sub)",
        AREA, "check_jaxpr does not look inside a control-flow primitive's jaxprs", keyword="check_jaxpr",
        equivalent="JAX 0.10.2's check_jaxpr does not check inside a cond's branches either (a branch "
        "that binds a variable twice, or reads one unbound, passes), so no test that JAX passes can "
        "require it",
    ),
    # --- cond and switch: the API and the impl ------------------------------------------------------------------
    Mutant(
        "cond.branches_swapped", CONDITIONALS,
        "_bind_cond(index, jaxprs[::-1], leaves)", "_bind_cond(index, jaxprs, leaves)",
        AREA, "cond runs true_fun when the predicate is false", keyword="cond",
    ),
    Mutant(
        "cond.negative_number_is_false", CONDITIONALS,
        "pred = pred != 0", "pred = pred > 0",
        AREA, "a negative number as cond's predicate is false", keyword="integer or nonzero",
    ),
    Mutant(
        "switch.index_not_clamped", CONDITIONALS,
        "    index = clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))\n",
        "",
        AREA, "switch does not clamp its index: a negative one picks the last branch", keyword="switch",
    ),
    Mutant(
        "cond.branch_consts_not_shared", CONDITIONALS,
        "const_vars = [own.get(id(c)) or Var(const_avals[id(c)]) for c in consts]",
        "const_vars = [Var(const_avals[id(c)]) for c in consts]",
        AREA, "hoisting the branches' constants gives every branch fresh variables for them, unbound where "
        "the branch reads its own", keyword="closing_over or closure",
    ),
    # --- cond: JVP and batching rules ----------------------------------------------------------------------------
    Mutant(
        "cond.jvp.tangent_only_where_every_branch_has_one", AD,
        "out_nonzeros = [any(nz) for nz in zip(*[jvp_jaxpr(b, nonzeros, False)[1] for b in branches])]",
        "out_nonzeros = [all(nz) for nz in zip(*[jvp_jaxpr(b, nonzeros, False)[1] for b in branches])]",
        AREA, "an output whose tangent is zero in one branch has a zero tangent in all", keyword=CF_JVP,
    ),
    Mutant(
        "jvp_jaxpr.instantiate_ignored", AD,
        "if type(t) is Zero and i and t.aval.dtype != float0:", "if type(t) is Zero and False:",
        AREA, "jvp_jaxpr drops a zero tangent it was asked to instantiate: the branches of a cond's JVP give "
        "different numbers of outputs", keyword=CF_JVP,
    ),
    Mutant(
        "cond.vmap.branches_reversed_in_select", BATCHING,
        "selected = [lax.select_n(_per_example(index, cases[0]), *cases) for cases in zip(*outs)]",
        "selected = [lax.select_n(_per_example(index, cases[0]), *cases[::-1]) for cases in zip(*outs)]",
        AREA, "with a batched predicate, select_n picks each example's outputs from the other branch",
        keyword=CF_VMAP,
    ),
    Mutant(
        "cond.vmap.output_batched_only_where_every_branch_is", BATCHING,
        "out_batched = [any(bs) for bs in zip(*[batch_jaxpr(b, size, in_batched, False)[1] for b in branches])]",
        "out_batched = [all(bs) for bs in zip(*[batch_jaxpr(b, size, in_batched, False)[1] for b in branches])]",
        AREA, "an output batched in one branch only is taken as unbatched", keyword=CF_VMAP,
    ),
    Mutant(
        "batch_jaxpr.instantiate_ignored", BATCHING,
        "batched = bdim is not not_mapped or i", "batched = bdim is not not_mapped",
        AREA, "batch_jaxpr does not broadcast an unbatched output it was asked to batch", keyword=CF_VMAP,
    ),
    # --- loops: the API and the impl ---------------------------------------------------------------------------
    Mutant(
        "while.batched_predicate_not_selected", LOOPS,
        "carry = new if pred_value.ndim == 0 else [_where_leading(pred, n, c) for n, c in zip(new, carry)]",
        "carry = new",
        AREA, "a while loop with one predicate per example runs the body on every example while any holds",
        keyword=CF_VMAP,
    ),
    Mutant(
        "scan.reverse_ignored", LOOPS,
        "for i in range(length - 1, -1, -1) if reverse else range(length):", "for i in range(length):",
        AREA, "scan(reverse=True) runs forward (and stores its ys backwards)", keyword="scan",
    ),
    Mutant(
        "scan.reverse_ys_not_reordered", LOOPS,
        "    if reverse:\n        ys.reverse()\n", "",
        AREA, "scan(reverse=True) stacks its ys in the order it made them, last slice first",
        keyword="scan or reference_loop",
    ),
    Mutant(
        "fori.static_one_step_short", LOOPS,
        "length=max(stop - start, 0)", "length=max(stop - start - 1, 0)",
        AREA, "fori_loop with known bounds runs upper - lower - 1 steps", keyword="fori",
    ),
    Mutant(
        "fori.traced_index_one_ahead", LOOPS,
        "return add(i, np.array(1, get_aval(i).dtype)), stop, body_fun(i, val)",
        "i = add(i, np.array(1, get_aval(i).dtype))\n        return i, stop, body_fun(i, val)",
        AREA, "fori_loop with traced bounds passes the body the next index", keyword="fori",
    ),
    Mutant(
        "map.remainder_dropped", LOOPS,
        "    if done == n:\n        return ys", "    if done <= n:\n        return ys",
        AREA, "lax.map with a batch_size that does not divide the length drops the leftover slices",
        keyword="map",
    ),
    Mutant(
        "associative_scan.operands_swapped", LOOPS,
        "even = combine(sl(odd, 0, (n - 1) // 2), sl(xs, 2, n, 2))",
        "even = combine(sl(xs, 2, n, 2), sl(odd, 0, (n - 1) // 2))",
        AREA, "associative_scan combines an even entry's prefix on the wrong side (right for a commutative fn)",
        keyword="associative",
    ),
    Mutant(
        "associative_scan.reverse_not_undone", LOOPS,
        "    if reverse:\n        result = [rev(r, (axis,)) for r in result]", "",
        AREA, "associative_scan(reverse=True) hands back its result reversed", keyword="associative",
    ),
    Mutant(
        "while.weak_carry_not_promoted", LOOPS,
        "    init_flat, changed = _promote_weak(init_flat, init_avals, body_jaxpr.out_avals)\n",
        "    changed = False\n",
        AREA, "a Python scalar carry of while_loop keeps its type when the body gives another: TypeError",
        keyword="python_scalar_carry",
    ),
    # --- loops: JVP and batching rules ------------------------------------------------------------------------
    Mutant(
        "while.jvp.no_fixed_point", AD,
        "carry_nz = carry_fixed_point(lambda nz: jvp_jaxpr(body_jaxpr, bconst_nz + nz, nz)[1], init_nz)",
        "carry_nz = init_nz",
        AREA, "while's JVP gives tangents only to the carries that start with one", keyword=CF_JVP,
    ),
    Mutant(
        "scan.jvp.no_fixed_point", AD,
        "carry_nz = carry_fixed_point(carry_out_nz, init_nz)", "carry_nz = init_nz",
        AREA, "scan's JVP gives tangents only to the carries that start with one", keyword=CF_JVP,
    ),
    Mutant(
        "while.vmap.no_fixed_point", BATCHING,
        "carry_b = carry_fixed_point(lambda b: batch_jaxpr(body_jaxpr, size, bconst_b + b, b)[1], init_b)",
        "carry_b = init_b",
        AREA, "a batched while loop batches only the carries batched at the start", keyword=CF_VMAP,
    ),
    Mutant(
        "scan.vmap.xs_batch_axis_first", BATCHING,
        "xs = [x if d is not_mapped else moveaxis(x, d, 1) for x, d in zip(xs, xs_dims)]",
        "xs = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(xs, xs_dims)]",
        AREA, "a batched scan puts the batch axis of its xs first, where the scanned axis belongs",
        keyword=CF_VMAP,
    ),
    Mutant(
        "scan.vmap.ys_batch_axis_first", BATCHING,
        "return outs, carry_dims + [1 if b else not_mapped for b in out_b[num_carry:]]",
        "return outs, carry_dims + [0 if b else not_mapped for b in out_b[num_carry:]]",
        AREA, "a batched scan says its ys are batched along axis 0 (they are along 1)", keyword=CF_VMAP,
    ),
    # --- what staging makes traceable: gamma's rejection loops, x.at[].apply ------------------------------------
    Mutant(
        "gamma.boost_select_swapped", RANDOM,
        "alpha = lax.select_n(boost, lax.add(alpha, one), alpha)",
        "alpha = lax.select_n(boost, alpha, lax.add(alpha, one))",
        GAMMA_AREAS, "gamma boosts the shape parameters of at least 1 (to a + 1) and leaves those below 1",
        keyword=GAMMA,
    ),
    Mutant(
        "gamma.scale_by_the_boosted_alpha", RANDOM,
        "scale = lax.select_n(boost, lax.pow(samples, lax.div(one, alpha_orig)), one)",
        "scale = lax.select_n(boost, lax.pow(samples, lax.div(one, alpha)), one)",
        GAMMA_AREAS, "a sample of a < 1 is scaled by u ** (1 / (a + 1)), the boosted parameter, not u ** (1 / a)",
        keyword=GAMMA,
    ),
    Mutant(
        "gamma.log_boost_by_the_boosted_alpha", RANDOM,
        "log_boost = lax.select_n(keep, lax.mul(log_samples, lax.div(one, alpha_orig)), zero)",
        "log_boost = lax.select_n(keep, lax.mul(log_samples, lax.div(one, alpha)), zero)",
        GAMMA_AREAS, "loggamma of a < 1 adds log(u) / (a + 1), the boosted parameter, not log(u) / a",
        keyword=GAMMA,
    ),
    Mutant(
        "gamma.accept_on_either_test", RANDOM,
        "    return lax.bitwise_and(squeeze, exact)\n",
        "    return lax.bitwise_or(squeeze, exact)\n",
        GAMMA_AREAS, "a candidate is rejected when it fails either of Marsaglia and Tsang's tests, not only when it fails both",
        keyword=GAMMA,
    ),
    Mutant(
        "gamma.sampler_inlined_not_bound", RANDOM,
        "    return random_gamma_p.bind(key, a, log_space=log_space)\n",
        "    return _gamma_impl(key, a, log_space=log_space)\n",
        AREA, "gamma calls the sampler directly instead of binding random_gamma: its jaxpr shows the loops, "
        "not the one random_gamma equation JAX's shows", keyword="random_gamma_equation",
    ),
    Mutant(
        "gamma.one_key_for_every_element", RANDOM,
        "    keys = lax.reshape(random_split_p.bind(keys, shape=(split_count,)), (size,))\n",
        "    keys = lax.broadcast_in_dim(lax.reshape(keys, (-1,))[0], (size,), ())\n",
        GAMMA_AREAS, "every element of a gamma sample draws from the same key: equal parameters, equal samples",
        keyword=GAMMA,
    ),
    Mutant(
        "apply.once_per_distinct_position", SLICING,
        "    np.add.at(hits, index, 1)\n", "    hits[index] += 1\n",
        AREA, "the positions an index reaches are counted with buffered indexing: a repeated position once, so "
        "f is applied once however often the index names it", keyword=APPLY,
    ),
    Mutant(
        "apply.update_jaxpr_ignored", SLICING,
        "        if update_jaxpr is not None:  # scatter_apply: the updates are placeholders\n",
        "        if False:\n",
        AREA, "the scatter ignores its update_jaxpr and writes its placeholder updates (zeros)", keyword=APPLY,
    ),
    Mutant(
        "apply.mode_ignored", AT,
        "return _scatter(scatter_apply, self, zero, indices_are_sorted, unique_indices, mode, wrap_negative_indices)",
        "return _scatter(scatter_apply, self, zero, indices_are_sorted, unique_indices, None, wrap_negative_indices)",
        AREA, "x.at[i].apply ignores its mode: out-of-range indices are dropped under mode='clip' too",
        keyword=APPLY,
    ),
    Mutant(
        "apply.jvp_not_refused", AD,
        "    if params[\"update_jaxpr\"] is not None:  # x.at[...].apply(f): no rule, as in JAX\n"
        "        raise NotImplementedError(\"scatter_apply JVP not implemented\")\n", "",
        AREA, "the JVP of a scatter that applies a function goes on as for an overwriting scatter, where JAX "
        "raises NotImplementedError", keyword=APPLY,
    ),
    Mutant(
        "apply.closing_over_a_tracer_allowed", SLICING,
        "    if any(isinstance(c, Tracer) for c in closed.consts):  # a param cannot hold a traced value\n",
        "    if False:\n",
        AREA, "a function closing over a staged value is staged anyway, the tracer left in the scatter's "
        "update_consts, where JAX raises NotImplementedError", keyword=APPLY,
    ),
    # What jax.numpy and lax functions stage, against JAX 0.10.2's printouts (test_printing.py).
    Mutant(
        "staged.rank_promotion_by_reshape", "didax/numpy/util.py",
        """        else lax.broadcast_in_dim_p.bind(
            x, shape=(1,) * (rank - len(s)) + s, broadcast_dimensions=tuple(range(rank - len(s), rank))
        )""",
        "        else lax.reshape_p.bind(x, new_sizes=(1,) * (rank - len(s)) + s, dimensions=None)",
        AREA, "rank promotion adds leading axes by reshape (didax before), where JAX stages broadcast_in_dim",
        keyword=STAGED,
    ),
    Mutant(
        "staged.expand_dims_by_reshape", "didax/lax/structural.py",
        "    return broadcast_in_dim(array, shape, [i for i in range(out_ndim) if i not in axes])",
        "    return reshape(array, shape)",
        AREA, "lax.expand_dims (keepdims, None in an index) stages a reshape, where JAX stages broadcast_in_dim",
        keyword=STAGED,
    ),
    Mutant(
        "staged.unit_strides_spelled_out", "didax/numpy/indexing.py",
        "        strides = None if all(s == 1 for s in plan.strides) else plan.strides",
        "        strides = plan.strides",
        AREA, "x[1] stages a slice with strides=(1, 1), where JAX's has strides=None", keyword=STAGED,
    ),
    Mutant(
        "staged.integer_index_by_reshape", "didax/numpy/indexing.py",
        "        x = lax.squeeze(x, plan.squeeze)",
        "        x = lax.reshape(x, [n for i, n in enumerate(get_aval(x).shape) if i not in plan.squeeze])",
        AREA, "an integer index drops its axis by reshape (didax before), where JAX stages squeeze",
        keyword=STAGED,
    ),
    Mutant(
        "staged.negative_index_add_before_lt", "didax/lax/structural.py",
        """    negative = lt(index, np.zeros((), dtype))  # before the add, as JAX stages them
    return select_n(negative, index, add(index, np.asarray(size, dtype)))""",
        """    wrapped = add(index, np.asarray(size, dtype))
    return select_n(lt(index, np.zeros((), dtype)), index, wrapped)""",
        AREA, "x[i] stages the add of the wrapped index before the lt, in the other order than JAX",
        keyword=STAGED,
    ),
    Mutant(
        "staged.dot_preferred_type_unnamed", "didax/numpy/shapes.py",
        "    return lax.dot_general(a, b, dimension_numbers, preferred_element_type=get_aval(a).dtype)",
        "    return lax.dot_general(a, b, dimension_numbers)",
        AREA, "jnp.dot and matmul leave dot_general's preferred_element_type None, where JAX names the dtype",
        keyword=STAGED,
    ),
    Mutant(
        "staged.matmul_identity_transpose", "didax/numpy/shapes.py",
        "    if perm != tuple(range(len(perm))):\n        out = lax.transpose(out, perm)",
        "    out = lax.transpose(out, perm)",
        AREA, "matmul stages a transpose that permutes nothing", keyword=STAGED,
    ),
    Mutant(
        "staged.no_op_convert_staged", "didax/lax/elementwise.py",
        "        if aval.dtype == new_dtype and aval.weak_type == weak_type:\n            return operand",
        "        pass",
        AREA, "convert_element_type to the type a value already has stages an equation (lax.switch's index, "
        "x.astype of its own dtype), where JAX returns the value", keyword=STAGED,
    ),
    Mutant(
        "printing.literal_untyped", JAXPR,
        'return f"{value}:{short_aval(lit.aval)}"', "return value",
        AREA, "a jaxpr prints a literal without its type, 3.0 where JAX 0.10.2 prints 3.0:f32[]",
        keyword="printed_jaxpr",
    ),
]  # fmt: skip

# Stage 04 rewrote find_top_trace (the dynamic trace is where the search starts, is_alive inlined):
# these inherited mutants are the same bugs, in its new words.
STAGE_04_VERSIONS: dict[str, Mutant] = {m.id: m for m in [
    Mutant(
        "random.random_gamma.log_space_ignored", RANDOM,
        "batching.vmap(functools.partial(_gamma_one, log_space=log_space))",
        "batching.vmap(functools.partial(_gamma_one, log_space=False))", ("random",),
        "random_gamma's evaluation ignores its log_space parameter: loggamma gives gamma's samples, not their logs",
        keyword="gamma",
    ),
    Mutant(
        "jvp.nesting.lowest_level_wins", CORE,
        "if main.level >= level:", "if main.level <= level or top is trace_state.dynamic_trace:",
        ("jvp",), "bind hands an operation to the lowest transformation among its inputs, not the highest",
        keyword="confusion or nested",
    ),
    Mutant(
        "jvp.nesting.escaped_tracer_not_detected", CORE,
        "            if main.level >= len(stack) or stack[main.level] is not main:  # is_alive, inlined: bind is hot\n"
        "                if not (is_staging() and main.trace_type.escaped_tracers_are_constants):\n"
        "                    raise UnexpectedTracerError(x)\n"
        "                continue  # a constant: no interpreter of its own\n", "",
        ("jvp",), "a tracer used after its jvp returned is processed by a dead trace instead of raising",
        keyword="escaped",
    ),
]}  # fmt: skip

MUTANTS: list[Mutant] = [*(STAGE_04_VERSIONS.get(m.id, m) for m in VMAP_STAGE_MUTANTS), *JAXPR_MUTANTS]
