"""The mutants of stage 02 (jvp): single, realistic bugs the conformance suite must notice.

Stage 02 is stage 01 plus forward mode, so its catalogue is stage 01's (every one of those snippets
is still in stage 02, under the same ids: a bug in the inherited code must be caught here too)
followed by ``JVP_MUTANTS``, one wrong rule or piece of machinery each, in ``didax/ad.py`` (and
``didax/core.py`` for nesting), which the ``jvp`` area must notice. Run them with

    python -m conformance.meta.mutate --stage 02_jvp                      # both parts
    python -m conformance.meta.mutate --stage 02_jvp --only jvp.mul.x_for_y ...

Grouped by family: arithmetic, transcendental, special functions, max/min ties, structure,
dot_general, reductions, cumulative, sorting, gather/scatter, convert_element_type, select_n and
clamp, symbolic zeros, float0, nesting and escaped tracers, jvp's argument checks, has_aux.

Not here, because no program can tell it from the original: making ``JVPTrace.process_primitive``
ask for a rule even when every tangent is a symbolic zero. In stage 02 that case never arises: jvp
boxes only inputs with a tangent, and a tracer whose tangent is zero is lowered to its primal as
soon as it is made (``JVPTracer.full_lower``), so the shortcut there is never taken.
"""

from __future__ import annotations

from conformance.meta.mutants_01_eval import MUTANTS as EVAL_MUTANTS
from conformance.meta.mutate import Mutant

AD = "didax/ad.py"
CORE = "didax/core.py"
JVP = ("jvp",)
FD = "finite_differences"  # the -k keyword of the table and the random programs

JVP_MUTANTS: list[Mutant] = [
    # --- arithmetic -------------------------------------------------------------------------------
    Mutant(
        "jvp.mul.x_for_y", AD,
        "defjvp(lax.mul_p, lambda t, ans, x, y: lax.mul(t, y),", "defjvp(lax.mul_p, lambda t, ans, x, y: lax.mul(t, x),",
        JVP, "d(x * y) = dx * x + x * dy: the first operand's term multiplies by itself", keyword="mul",
    ),
    Mutant(
        "jvp.sub.second_not_negated", AD,
        "defjvp(lax.sub_p, lambda t, ans, x, y: t, lambda t, ans, x, y: lax.neg(t))",
        "defjvp(lax.sub_p, lambda t, ans, x, y: t, lambda t, ans, x, y: t)",
        JVP, "d(x - y) = dx + dy", keyword="sub",
    ),
    Mutant(
        "jvp.complex.treated_as_constant", AD, "deflinear(lax.complex_p)", "defzero(lax.complex_p)", JVP,
        "complex(x, y) gets a zero tangent, as if it did not depend on x and y", keyword="complex",
    ),
    Mutant(
        "jvp.broadcast.size_1_axes_as_a_scalar", AD,
        "    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))\n",
        "    return lax.broadcast_in_dim(x, shape, ())\n",
        JVP, "a tangent is broadcast to the output's shape as if a scalar: s + arange(4.) with s of shape (1,) fails",
        keyword="size_1",
    ),
    Mutant(
        "jvp.unique.tangent_without_size", "didax/numpy/sorting.py",
        '    x = as_array(ar) if size is not None else _known_input("unique", as_array(ar))\n',
        "    x = as_array(ar)\n",
        JVP, "jnp.unique without size traces its input: the tangents of the values come through, where JAX "
        "reads the values first and gives zero", keyword="set_operations",
    ),
    Mutant(
        "jvp.tangent_weak_type_as_given", AD,
        "    return primal, _typed_like_primal(tangent, p_aval)\n", "    return primal, tangent\n",
        JVP, "a tangent keeps the weak type it was given: np.float32(1) against a weak 2.0 gives strong tangents "
        "where JAX's (through jnp's jitted functions) are weak", keyword="typed_like",
    ),
    Mutant(
        "errors.has_aux_triple_type_error", AD,
        "        raise type(err)(\n", "        raise TypeError(\n",
        JVP, "a has_aux function returning a triple raises TypeError where JAX's unpacking raises ValueError",
        keyword="requires_a_pair",
    ),
    Mutant(
        "jvp.div.divisor_term_sign", AD,
        "lambda t, ans, x, y: lax.mul(lax.neg(t), lax.div(ans, y)),",
        "lambda t, ans, x, y: lax.mul(t, lax.div(ans, y)),",
        JVP, "d(x / y)/dy = +x / y**2", keyword="div",
    ),
    Mutant(
        "jvp.rem.rounded_quotient", AD,
        "lax.floor(lax.abs(lax.div(x, y)))", "lax.round(lax.abs(lax.div(x, y)))",
        JVP, "rem's derivative in y uses the rounded quotient instead of the truncated one", keyword="rem",
    ),
    Mutant(
        "jvp.pow.exponent_not_decremented", AD,
        "return lax.mul(t, lax.mul(y, lax.pow(x, lax.sub(y, _const(y, 1)))))",
        "return lax.mul(t, lax.mul(y, lax.pow(x, y)))",
        JVP, "d(x ** y)/dx = y * x ** y", keyword="pow",
    ),
    Mutant(
        "jvp.integer_pow.exponent_not_decremented", AD,
        "lax.integer_pow(x, y - 1)", "lax.integer_pow(x, y)",
        JVP, "d(x ** n) = n * x ** n", keyword="integer_pow",
    ),
    # --- transcendental -----------------------------------------------------------------------------
    Mutant(
        "jvp.sin.sin_for_cos", AD,
        "defjvp(lax.sin_p, lambda t, ans, x: lax.mul(t, lax.cos(x)))",
        "defjvp(lax.sin_p, lambda t, ans, x: lax.mul(t, lax.sin(x)))",
        JVP, "d sin = sin", keyword="sin",
    ),
    Mutant(
        "jvp.tanh.one_plus_square", AD,
        "defjvp(lax.tanh_p, lambda t, ans, x: lax.mul(t, lax.sub(_const(ans, 1), lax.square(ans))))",
        "defjvp(lax.tanh_p, lambda t, ans, x: lax.mul(t, lax.add(_const(ans, 1), lax.square(ans))))",
        JVP, "d tanh = 1 + tanh**2 (tan's rule)", keyword="tanh",
    ),
    Mutant(
        "jvp.log1p.forgets_the_one", AD,
        "lambda t, ans, x: lax.div(t, lax.add(x, _const(x, 1)))", "lambda t, ans, x: lax.div(t, x)",
        JVP, "d log1p(x) = dx / x (log's rule)", keyword="log1p",
    ),
    Mutant(
        "jvp.exp2.forgets_log_2", AD,
        "lax.mul(t, lax.mul(_const(x, math.log(2)), ans))", "lax.mul(t, ans)",
        JVP, "d 2**x = 2**x (exp's rule)", keyword="exp2",
    ),
    Mutant(
        "jvp.acosh.sum_for_difference", AD,
        "lax.rsqrt(lax.mul(lax.sub(x, _const(x, 1)), lax.add(x, _const(x, 1))))",
        "lax.rsqrt(lax.mul(lax.add(x, _const(x, 1)), lax.add(x, _const(x, 1))))",
        JVP, "d acosh = 1 / sqrt((x + 1)(x + 1))", keyword="acosh",
    ),
    # --- special functions ----------------------------------------------------------------------------
    Mutant(
        "jvp.erf.constant", AD,
        "lax.mul(_const(x, 2 / math.sqrt(math.pi))", "lax.mul(_const(x, 1 / math.sqrt(math.pi))",
        JVP, "d erf = exp(-x**2) / sqrt(pi), half the truth", keyword="erf",
    ),
    Mutant(
        "jvp.erf_inv.exp_of_the_input", AD,
        "lax.mul(_const(x, math.sqrt(math.pi) / 2), lax.exp(lax.square(ans)))",
        "lax.mul(_const(x, math.sqrt(math.pi) / 2), lax.exp(lax.square(x)))",
        JVP, "d erf_inv uses exp(x**2) instead of exp(erf_inv(x)**2)", keyword="erf_inv",
    ),
    Mutant(
        "jvp.lgamma.digamma_shifted", AD,
        "lax.mul(t, lax.digamma(x))", "lax.mul(t, lax.digamma(lax.add(x, _const(x, 1))))",
        JVP, "d lgamma(x) = digamma(x + 1)", keyword="lgamma",
    ),
    Mutant(
        "jvp.igamma.density_exponent", AD,
        "lax.mul(lax.sub(a, _const(a, 1)), lax.log(x))", "lax.mul(a, lax.log(x))",
        JVP, "d igamma / dx = x^a e^-x / Gamma(a), x times the density", keyword="igamma",
    ),
    Mutant(
        "jvp.igammac.a_not_negated", AD,
        "lambda t, ans, a, x: lax.neg(lax.mul(t, lax.igamma_grad_a(a, x))),",
        "lambda t, ans, a, x: lax.mul(t, lax.igamma_grad_a(a, x)),",
        JVP, "d igammac / da = igamma_grad_a, igamma's, not its negation", keyword="igamma",
    ),
    Mutant(
        "jvp.random_gamma_grad.da_same_order", AD,
        "return _inside_gamma_domain(a, x, lax.mul(t, _sample_derivative(a, x, order + 1)))",
        "return _inside_gamma_domain(a, x, lax.mul(t, _sample_derivative(a, x, max(order, 1))))",
        JVP, "the second derivative of random_gamma_grad in a repeats the first", keyword="random_gamma",
    ),
    Mutant(
        "jvp.random_gamma_grad.dx_slope_sign", AD,
        "slope = lax.sub(lax.div(lax.sub(a, _const(a, 1)), x), _const(x, 1))  # (a - 1)/x - 1",
        "slope = lax.sub(_const(x, 1), lax.div(lax.sub(a, _const(a, 1)), x))  # (a - 1)/x - 1",
        JVP, "d random_gamma_grad / dx with the density's log-slope (a - 1)/x - 1 negated", keyword="random_gamma",
    ),
    Mutant(
        "jvp.random_gamma_grad.dx_leibniz_term_dropped", AD,
        "first = lax.sub(lax.polygamma(_const(a, order), a), previous)",
        "first = lax.polygamma(_const(a, order), a)",
        JVP, "the derivative in x of random_gamma_grad's a-derivatives forgets k g_(k-1) / x (Leibniz's rule)",
        keyword="random_gamma",
    ),
    Mutant(
        "jvp.random_gamma_grad.tangent_everywhere", AD,
        "return _where(inside, tangent, _const(tangent, 0))", "return tangent",
        JVP, "random_gamma_grad's tangent is the formula's (inf, nan) at x = 0 and outside the domain, where JAX "
        "selects constants", keyword="random_gamma",
    ),
    Mutant(
        "lax.incomplete_gamma.product_rule_without_binomials", "didax/lax/incomplete_gamma.py",
        "f[j] * g[k - j] if j in (0, k) else math.comb(k, j) * f[j] * g[k - j]", "f[j] * g[k - j]",
        JVP, "the jets' Leibniz rule leaves out C(k, j): second and higher derivatives in a are wrong (first "
        "ones are not, C(1, j) = 1), which random_gamma_grad's second derivative shows", keyword="random_gamma",
    ),
    # --- max and min: ties ------------------------------------------------------------------------------
    Mutant(
        "jvp.max.ties_not_shared", AD,
        "share = _where(lax.eq(other, ans), half, one)", "share = one",
        JVP, "at a tie of max or min both operands pass their whole tangent (max(x, x)' = 2)",
        keyword="ties",
    ),
    # --- structure ------------------------------------------------------------------------------------------
    Mutant(
        "jvp.dynamic_update_slice.update_tangent_dropped", AD,
        "return ans, lax.dynamic_update_slice_p.bind(t_operand, t_update, *starts)", "return ans, t_operand",
        JVP, "dynamic_update_slice's tangent is the operand's: the update's tangent is lost",
        keyword="dynamic_update_slice",
    ),
    Mutant(
        "jvp.dynamic_slice.tangent_sliced_at_the_origin", AD,
        "return ans, lax.dynamic_slice_p.bind(instantiate(tangents[0]), *starts, **params)",
        "return ans, lax.dynamic_slice_p.bind(instantiate(tangents[0]), *[lax.full_like(s, 0) for s in starts], "
        "**params)",
        JVP, "dynamic_slice's tangent is read at index 0 whatever the start", keyword="dynamic_slice",
    ),
    # --- dot_general -------------------------------------------------------------------------------------
    Mutant(
        "jvp.dot_general.lhs_term_without_tangent", AD,
        "defjvp(prim, lambda t, ans, x, y, **params: prim.bind(t, y, **params),",
        "defjvp(prim, lambda t, ans, x, y, **params: prim.bind(x, y, **params),",
        JVP, "a bilinear product's first term (dot_general's, conv's) is the product itself, not dx . y",
        keyword="dot_general",
    ),
    # --- reductions ----------------------------------------------------------------------------------------
    Mutant(
        "jvp.reduce_prod.divides_by_the_entry", AD,
        "lax.reduce_sum_p.bind(lax.mul(ts, lax.mul(before, after)), axes=(last,))",
        "lax.reduce_sum_p.bind(lax.mul(ts, lax.div(lax.mul(lax.mul(before, after), xs), xs)), axes=(last,))",
        JVP, "reduce_prod's product of the others computed as prod / x: NaN where an entry is 0",
        keyword="reduce_prod",
    ),
    Mutant(
        "jvp.reduce_prod.inclusive_products", AD,
        "before = _exclusive_cumprod(xs, last, reverse=False)", "before = lax.cumprod(xs, axis=last)",
        JVP, "reduce_prod's products before each entry include the entry", keyword="reduce_prod",
    ),
    Mutant(
        "jvp.reduce_max.ties_summed", AD,
        "return ans, lax.div(total, lax.reduce_sum_p.bind(weights, axes=axes))", "return ans, total",
        JVP, "reduce_max and reduce_min add the tangents of tied entries instead of averaging them",
        keyword="reduce_max or reduce_min",
    ),
    # --- cumulative -------------------------------------------------------------------------------------------
    Mutant(
        "jvp.cumulative.reverse_ignored", AD,
        "scan = lambda v: _prefix_scan(combine, v, axis, reverse)", "scan = lambda v: _prefix_scan(combine, v, axis, False)",
        JVP, "cumprod/cummax/cummin/cumlogsumexp differentiate the forward scan when reverse=True",
        keyword="cum",
    ),
    Mutant(
        "jvp.cumlogsumexp.softplus_sign", AD,
        "_where(a_larger, lax.add(a, softplus(lax.neg(delta))), lax.add(b, softplus(delta)))",
        "_where(a_larger, lax.add(a, softplus(delta)), lax.add(b, softplus(delta)))",
        JVP, "cumlogsumexp's stable logaddexp takes softplus of the wrong sign in one branch",
        keyword="cumlogsumexp",
    ),
    # --- sorting ----------------------------------------------------------------------------------------------
    Mutant(
        "jvp.sort.tangents_sorted_themselves", AD,
        "return sorted_primals, [_permuted(t, order, dimension) for t in tangents]",
        "return sorted_primals, [lax.sort(instantiate(t), dimension=dimension) for t in tangents]",
        JVP, "sort's tangents are sorted by their own values instead of following the keys' permutation",
        keyword="sort",
    ),
    Mutant(
        "jvp.top_k.first_k_tangents", AD,
        "[_permuted(tangents[0], indices, axis), Zero.like(indices)]",
        "[lax.slice_in_dim(instantiate(tangents[0]), 0, k, axis=axis), Zero.like(indices)]",
        JVP, "top_k's tangent is the operand's first k entries, not those at the indices", keyword="top_k",
    ),
    # --- gather and scatter -----------------------------------------------------------------------------------
    Mutant(
        "jvp.gather.fill_value_kept", AD,
        'params = {**params, "fill_value": 0}', "params = {**params}",
        JVP, "gather's tangent fills out-of-bounds entries with the primal's fill_value instead of 0",
        keyword="gather",
    ),
    Mutant(
        "jvp.scatter_add.overwrites", AD,
        "return ans, prim.bind(instantiate(tangents[0]), indices, instantiate(tangents[2]), **params)",
        "return ans, lax.scatter_p.bind(instantiate(tangents[0]), indices, instantiate(tangents[2]), **params)",
        JVP, "scatter_add's tangent overwrites instead of adding (repeated indices lose tangents)",
        keyword="scatter",
    ),
    Mutant(
        "jvp.scatter.operand_kept_under_updates", AD,
        "kept_x = _where(survived, x, _zeros_like(x))", "kept_x = x",
        JVP, "scatter with repeated indices: the operand is not cleared where an update lands",
        keyword="scatter",
    ),
    Mutant(
        "jvp.scatter_mul.result_for_operand", AD,
        "terms.append(lax.mul(operand, spread))", "terms.append(lax.mul(ans, spread))",
        JVP, "scatter_mul's updates term multiplies by the result instead of the operand",
        keyword="scatter_mul",
    ),
    Mutant(
        "jvp.scatter_max.count_forgets_the_operand", AD,
        "count = lax.scatter_add_p.bind(operand_won, indices, update_won, **params)",
        "count = lax.scatter_add_p.bind(_zeros_like(operand_won), indices, update_won, **params)",
        JVP, "scatter_max/min count the winning updates but not a winning operand (0/0 where no update lands)",
        keyword="scatter_max or scatter_min",
    ),
    # --- convert_element_type ---------------------------------------------------------------------------------
    Mutant(
        "jvp.convert.tangent_not_converted", AD,
        "return ans, lax.convert_element_type_p.bind(t, **params)", "return ans, t",
        JVP, "convert_element_type leaves the tangent in the input's dtype", keyword="convert",
    ),
    Mutant(
        "jvp.convert.integer_result_differentiated", AD,
        'if not (dtypes.is_inexact(params["new_dtype"]) and dtypes.is_inexact(get_aval(x).dtype)):',
        "if not dtypes.is_inexact(get_aval(x).dtype):",
        JVP, "a float converted to an integer gets an integer tangent instead of float0", keyword="convert",
    ),
    # --- select_n and clamp -----------------------------------------------------------------------------------
    Mutant(
        "jvp.select_n.cases_reversed", AD,
        "return ans, lax.select_n_p.bind(which, *map(instantiate, tangents[1:]))",
        "return ans, lax.select_n_p.bind(which, *reversed(list(map(instantiate, tangents[1:]))))",
        JVP, "select_n picks the tangents in the reverse order of the cases", keyword="select_n",
    ),
    Mutant(
        "jvp.clamp.operand_includes_its_bounds", AD,
        "return _where(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), t, _zeros_like(t))",
        "return _where(lax.bitwise_and(lax.ge(x, lo), lax.le(x, hi)), t, _zeros_like(t))",
        JVP, "clamp passes the operand's tangent at its bounds (JAX's derivative there is 0)", keyword="clamp",
    ),
    Mutant(
        "jvp.clamp.upper_bound_flipped", AD,
        "return _where(lax.lt(hi, x), t, _zeros_like(t))", "return _where(lax.gt(hi, x), t, _zeros_like(t))",
        JVP, "clamp takes the upper bound's tangent where x is below it", keyword="clamp",
    ),
    # --- symbolic zeros -----------------------------------------------------------------------------------------
    Mutant(
        "jvp.zeros.select_n_any_zero", AD,
        "if all(type(t) is Zero for t in tangents[1:]):", "if any(type(t) is Zero for t in tangents[1:]):",
        JVP, "select_n's tangent is taken as zero as soon as one case is a constant", keyword="select_n",
    ),
    Mutant(
        "jvp.zeros.instantiated_as_a_scalar", AD,
        "    return lax.broadcast_in_dim(zero, aval.shape, ())\n", "    return zero\n",
        JVP, "a symbolic zero becomes a 0-d zero, not zeros of the tangent's shape", keyword="zero",
    ),
    Mutant(
        "jvp.zeros.terms_not_broadcast", AD,
        "    return _broadcast_to(total, get_aval(ans).shape)\n", "    return total\n",
        JVP, "the sum of a rule's terms keeps the shape of a rank-0 operand's term", keyword="scalar",
    ),
    # --- float0 ---------------------------------------------------------------------------------------------------
    Mutant(
        "jvp.float0.integers_get_integer_tangents", AD,
        "dtype = aval.dtype if dtypes.is_inexact(aval.dtype) else float0",
        "dtype = aval.dtype if aval.dtype != np.bool_ else float0",
        JVP, "integers take tangents of their own dtype; only booleans take float0", keyword="float0",
    ),
    Mutant(
        "jvp.float0.instantiated_as_floats", AD,
        "return np.zeros(aval.shape, float0)", "return np.zeros(aval.shape, np.float32)",
        JVP, "the zero tangent of an integer output comes back as float32 zeros instead of float0",
        keyword="float0",
    ),
    # --- nesting and escaped tracers ------------------------------------------------------------------------------
    Mutant(
        "jvp.nesting.lowest_level_wins", CORE,
        "if top is None or x._trace.main.level > top._trace.main.level:",
        "if top is None or x._trace.main.level < top._trace.main.level:",
        JVP, "bind hands an operation to the lowest transformation among its inputs, not the highest",
        keyword="confusion or nested",
    ),
    Mutant(
        "jvp.nesting.traces_compared_by_type", CORE,
        "if val._trace.main is trace.main:", "if val._trace.main.trace_type is trace.main.trace_type:",
        JVP, "a tracer of an outer jvp is taken as the inner one's: perturbation confusion",
        keyword="confusion",
    ),
    Mutant(
        "jvp.nesting.escaped_tracer_not_detected", CORE,
        "            if not is_alive(x._trace.main):\n                raise UnexpectedTracerError(x)\n", "",
        JVP, "a tracer used after its jvp returned is processed by a dead trace instead of raising",
        keyword="escaped",
    ),
    # --- jvp's arguments and has_aux ------------------------------------------------------------------------------
    Mutant(
        "jvp.args.shape_mismatch_is_a_type_error", AD,
        'raise ValueError(\n            "jvp called with different primal and tangent shapes;"',
        'raise TypeError(\n            "jvp called with different primal and tangent shapes;"',
        JVP, "a tangent of the wrong shape raises TypeError instead of ValueError", keyword="mismatched",
    ),
    Mutant(
        "jvp.args.dtype_kind_only", AD,
        "if t_dtype != expected:", "if t_dtype.kind != expected.kind:",
        JVP, "a float16 tangent is accepted for a float32 primal (kinds compared, not dtypes)",
        keyword="mismatched",
    ),
    Mutant(
        "jvp.args.tree_not_compared", AD,
        "if in_tree != tangent_tree:", "if len(primals_flat) != len(tangents_flat):",
        JVP, "primals and tangents of different trees with as many leaves are accepted", keyword="mismatched",
    ),
    Mutant(
        "jvp.has_aux.aux_keeps_tracers", AD,
        "            aux_flat, aux_tree = tree_flatten(aux)\n"
        "            aux = tree_unflatten(aux_tree, [_undifferentiated(main, x) for x in aux_flat])\n",
        "            pass\n",
        JVP, "has_aux hands back the auxiliary data as tracers of the finished jvp", keyword="has_aux",
    ),
    # --- Python values of tracers over known primals, as JAX 0.10.2 gives them ----------------------
    Mutant(
        "jvp.primal.item_never_known", CORE,
        "        if value is None:\n            raise ConcretizationTypeError(self, \"This occurred in the item() method",
        "        if True:\n            raise ConcretizationTypeError(self, \"This occurred in the item() method",
        JVP, "x.item() raises under jvp although the primal is known", keyword="python_values_of_primals",
    ),
    Mutant(
        "jvp.primal.float_reads_the_known_value", CORE,
        "    def __float__(self) -> float:\n        raise self._scalar_conversion_error(float)",
        "    def __float__(self) -> float:\n        return float(self.item())",
        JVP, "float(x) reads a known primal, which JAX 0.10.2 refuses", keyword="python_values_of_primals",
    ),
    Mutant(
        "jvp.primal.tolist_reads_the_known_value", CORE,
        "    def tolist(self) -> Any:\n        called",
        "    def tolist(self) -> Any:\n        if to_concrete_value(self) is not None:\n"
        "            return to_concrete_value(self).tolist()\n        called",
        JVP, "x.tolist() reads a known primal, which JAX 0.10.2 refuses", keyword="python_values_of_primals",
    ),
    # --- typed PRNG keys: float0 tangents, zero rules for the random primitives ---------------------
    Mutant(
        "jvp.keys.tangent_of_the_key_dtype", AD,
        "dtype = aval.dtype if dtypes.is_inexact(aval.dtype) else float0",
        "dtype = aval.dtype if dtypes.is_inexact(aval.dtype) or dtypes.is_key_dtype(aval.dtype) else float0",
        JVP, "a key's tangent has the key dtype instead of float0: the keys a function makes get key tangents",
        keyword="typed_keys",
    ),
    Mutant(
        "jvp.random.split_without_a_rule", AD,
        "    prng.random_seed_p, prng.random_split_p, prng.random_fold_in_p,",
        "    prng.random_seed_p, prng.random_fold_in_p,", JVP,
        "random_split has no JVP rule",
        keyword="typed_keys",
        equivalent="no program reaches a random primitive's JVP rule: each operand is a key or an integer, "
        "whose tangent is always a symbolic zero, so JVPTrace runs the primitive on its primals alone (as JAX "
        "does with its defjvp_zero rules); the stage's own test of missing_rules() notices the gap",
    ),
    # --- random_gamma: implicit reparameterization (the inverse CDF's derivative) ----------------------------
    Mutant(
        "jvp.random_gamma.sign", AD,
        "lambda t, ans, keys, a, *, log_space: lax.mul(t, _gamma_grad(ans, a, log_space=log_space)),",
        "lambda t, ans, keys, a, *, log_space: lax.neg(lax.mul(t, _gamma_grad(ans, a, log_space=log_space))),",
        JVP, "a gamma sample's derivative in a has the wrong sign", keyword="gamma_derivative",
    ),
    Mutant(
        "jvp.random_gamma.grad_arguments_swapped", AD,
        "        return lax.random_gamma_grad(a, sample)\n", "        return lax.random_gamma_grad(sample, a)\n",
        JVP, "gamma's JVP calls random_gamma_grad(sample, a) instead of random_gamma_grad(a, sample)",
        keyword="gamma_derivative",
    ),
    Mutant(
        "jvp.random_gamma.log_space_not_divided_by_the_sample", AD,
        "return lax.div(lax.random_gamma_grad(a, x), x)", "return lax.random_gamma_grad(a, x)",
        JVP, "loggamma's derivative in a is dx/da, missing the factor 1/x of d(log x) = dx / x",
        keyword="gamma_derivative",
    ),
    Mutant(
        "jvp.random_gamma.log_space_ignored", AD,
        "    if not log_space:\n        return lax.random_gamma_grad(a, sample)",
        "    if True:\n        return lax.random_gamma_grad(a, sample)",
        JVP, "random_gamma's JVP ignores log_space: loggamma's tangent is gamma's formula at the log sample",
        keyword="gamma_derivative",
    ),
    Mutant(
        "printing.jvp_tracer_tangent_shown_as_primal", AD,
        'return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"',
        'return f"JVPTracer(primal={self.primal}, tangent={self.primal})"',
        JVP, "a printed JVP tracer shows its primal where its tangent belongs", keyword="prints",
    ),
    Mutant(
        "scipy.xlogy.flat_at_zero", "didax/scipy/special.py",
        "return jnp.where(keep, product, lax.add(jnp.zeros_like(x), product))",
        "return jnp.where(keep, product, jnp.zeros_like(x))", JVP,
        "the right values, but the derivative of xlogy in x at x = 0 is 0 instead of log(y)",
        keyword="xlogy",
    ),
    Mutant(
        "jvp.fft.rule_not_registered", AD,
        "    lax.fft_p,  # the Fourier transform: a matrix product, so its JVP is the transform of the tangent\n", "",
        JVP, "fft is left out of the linear primitives: differentiating a transform has no rule", keyword="fft",
    ),
    Mutant(
        "jvp.reduce_precision.rule_not_registered", AD,
        "    lax.reduce_precision_p,  # as in JAX: the tangent is rounded to the narrower format too\n", "",
        JVP, "reduce_precision is left out of the linear primitives: differentiating it has no rule",
        keyword="reduce_precision",
    ),
    Mutant(
        "jvp.conv.kernel_tangent_dropped", AD,
        "defbilinear(lax.conv_general_dilated_p)  # at each window, a dot product",
        "defjvp(lax.conv_general_dilated_p, lambda t, ans, x, y, **params: lax.conv_general_dilated_p.bind(t, y, **params))",
        JVP, "a convolution's tangent counts the input's tangent only, as if the kernel were constant",
        keyword="conv_",
    ),
    Mutant(
        "jvp.window_max.loser_tangent", AD,
        "jvp_rules[lax.reduce_window_max_p] = _window_extremum_jvp(lax.reduce_window_max_p, lax.argmax)",
        "jvp_rules[lax.reduce_window_max_p] = _window_extremum_jvp(lax.reduce_window_max_p, lax.argmin)",
        JVP, "a windowed max passes on the tangent of its window's smallest element", keyword="reduce_window",
    ),
    Mutant(
        "jvp.window_sum.rule_not_registered", AD, "    lax.reduce_window_sum_p,\n", "",
        JVP, "reduce_window_sum is left out of the linear primitives: differentiating a window sum has no rule",
        keyword="reduce_window",
    ),
    Mutant(
        "jvp.cholesky.diagonal_not_halved", AD, "_const(inner, 1 + np.eye(shape[-1]))", "_const(inner, np.ones(shape[-2:]))",
        JVP, "the Cholesky factor's tangent keeps the whole diagonal of L^-1 dA L^-H instead of half of it",
        keyword="cholesky",
    ),
    Mutant(
        "jvp.triangular_solve.matrix_tangent_sign", AD,
        "t = lax.neg(linalg.tril(t, -k) if lower else linalg.triu(t, k))", "t = linalg.tril(t, -k) if lower else linalg.triu(t, k)",
        JVP, "the solution moves with +A^-1 dA X instead of -A^-1 dA X", keyword="triangular",
    ),
    Mutant(
        "jvp.triangular_solve.unit_diagonal_differentiated", AD, "k = 1 if unit_diagonal else 0", "k = 0",
        JVP, "with unit_diagonal, the tangent of A's diagonal (which is not read) still moves the solution",
        keyword="triangular",
    ),
    Mutant(
        "jvp.lu.diagonal_in_neither_factor", AD, "linalg.batch_matmul(linalg.triu(inner), upper)",
        "linalg.batch_matmul(linalg.triu(inner, 1), upper)", JVP,
        "the diagonal of L^-1 P dA U^-1 goes into neither factor's tangent: U's diagonal never moves", keyword="lu",
    ),
    Mutant(
        "jvp.lu.rows_not_permuted", AD,
        "moved = linalg.batch_matmul(_permutation_matrix(permutation, get_aval(dx).dtype), dx)  # P dA", "moved = dx", JVP,
        "the tangent's rows are not put in the order of the row swaps: right only where LU swapped nothing",
        keyword="lu",
    ),
    Mutant(
        "jvp.eigh.gaps_reversed", AD, "dv = linalg.batch_matmul(v, lax.mul(f, p))",
        "dv = linalg.batch_matmul(v, lax.mul(lax.neg(f), p))", JVP,
        "the eigenvectors move by 1 / (w_i - w_j) instead of 1 / (w_j - w_i): the wrong way", keyword="eigh",
    ),
    Mutant(
        "jvp.svd.tall_u_kept_in_its_span", AD, "    if m > n:  # U's columns leave their span",
        "    if False:  # U's columns leave their span", JVP,
        "a tall matrix's U moves only within its own column space", keyword="svd",
    ),
    Mutant(
        "jvp.svd.skew_part_dropped", AD,
        "du = linalg.batch_matmul(u, lax.add(lax.mul(f, lax.add(dp_s, linalg.H(dp_s))), skew))",
        "du = linalg.batch_matmul(u, lax.mul(f, lax.add(dp_s, linalg.H(dp_s))))", JVP,
        "U's tangent leaves out the skew-Hermitian part of dP / s on its diagonal (it matters for complex matrices)",
        keyword="svd",
    ),
    Mutant(
        "jvp.qr.imaginary_diagonal_dropped", AD,
        "do = lax.add(do, lax.mul(eye, lax.sub(c, lax.convert_element_type(lax.real(c), get_aval(c).dtype))))",
        "do = do", JVP, "dO has no imaginary diagonal: R's diagonal does not stay real for complex matrices",
        keyword="qr",
    ),
    Mutant(
        "jvp.qr.skew_part_transposed", AD, "do = lax.sub(lower, linalg.H(lower))", "do = lax.sub(linalg.H(lower), lower)",
        JVP, "the skew-Hermitian dO is built the wrong way round: Q turns backwards", keyword="qr",
    ),
    Mutant(
        "jvp.qr.wide_right_block_misses_dq", AD,
        "dr_right = lax.add(linalg.batch_matmul(linalg.H(dq), x_right), linalg.batch_matmul(linalg.H(q), dx_right))",
        "dr_right = linalg.batch_matmul(linalg.H(q), dx_right)", JVP,
        "R's right block of a wide matrix moves with A's alone, not with Q's turn", keyword="qr",
    ),
    Mutant(
        "jvp.qr.full_q_last_columns_still", AD, "    elif full_matrices and m > n:", "    elif False:", JVP,
        "the full Q of a tall matrix moves only in its first n columns (and the shapes no longer fit)", keyword="qr",
    ),
    Mutant(
        "jvp.qr.tangent_columns_not_pivoted", AD,
        "x, dx = linalg.batch_matmul(x, columns), linalg.batch_matmul(dx, columns)", "x, dx = x, dx", JVP,
        "with pivoting, the tangent's columns are not put in the order Q R has them", keyword="qr",
    ),
]  # fmt: skip

MUTANTS: list[Mutant] = [*EVAL_MUTANTS, *JVP_MUTANTS]
