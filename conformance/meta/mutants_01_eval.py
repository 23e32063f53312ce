"""The mutants of stage 01 (eval): single, realistic bugs the conformance suite must notice.

Each `Mutant` replaces one snippet of a file of ``stages/01_eval/`` (it must occur exactly once)
and names the conformance areas that should fail. Run them with

    python -m conformance.meta.mutate --stage 01_eval

Grouped by what they break: type promotion, weak types, x64, axes and keepdims, reductions,
broadcasting, indexing, lax rules, NumPy-versus-XLA semantics, error types, data safety, pytrees;
then the modules added to stage 01 later: gather and scatter, sorting, bit operations, special
functions, the incomplete gamma functions, ``x.at[...]``, the numpy modules beyond the core (counting, rearranging, structured
arrays, sorting and sets, comparisons, norms, products), didax.random, didax.nn and
didax.scipy.special, didax.tree, and lax's composite helpers.
A mutant that cannot be told apart from the original by any test says why in ``equivalent``.
"""

from __future__ import annotations

from conformance.meta.mutate import Mutant

DTYPES = "didax/dtypes.py"
CORE = "didax/core.py"
ARRAY = "didax/array.py"
CONFIG = "didax/config.py"
TREE = "didax/tree_util.py"
STANDARD = "didax/lax/standard.py"
ELEMENTWISE = "didax/lax/elementwise.py"
STRUCTURAL = "didax/lax/structural.py"
LAX_REDUCTIONS = "didax/lax/reductions.py"
DOT = "didax/lax/dot.py"
CONV = "didax/lax/convolution.py"
CONV_TESTS = "lax_conv"  # the test file of lax's convolutions (jnp.convolve and correlate too)
UTIL = "didax/numpy/util.py"
UFUNCS = "didax/numpy/ufuncs.py"
NP_REDUCTIONS = "didax/numpy/reductions.py"
CREATION = "didax/numpy/creation.py"
INDEXING = "didax/numpy/indexing.py"
SLICING = "didax/lax/slicing.py"
SORTING = "didax/lax/sorting.py"
BITWISE = "didax/lax/bitwise.py"
SPECIAL = "didax/lax/special.py"
INCOMPLETE_GAMMA = "didax/lax/incomplete_gamma.py"
XLA_FLOAT32 = "didax/lax/xla_float32.py"
AT = "didax/numpy/at.py"
COUNTING = "didax/numpy/counting.py"
MANIPULATION = "didax/numpy/manipulation.py"
STRUCTURE = "didax/numpy/structure.py"
NP_SORTING = "didax/numpy/sorting.py"
COMPARISON = "didax/numpy/comparison.py"
LINALG = "didax/numpy/linalg.py"
PRODUCTS = "didax/numpy/products.py"
PRNG = "didax/prng.py"
DISTRIBUTIONS = "didax/random/distributions.py"
NN_FUNCTIONS = "didax/nn/functions.py"
INITIALIZERS = "didax/nn/initializers.py"
SCIPY_SPECIAL = "didax/scipy/special.py"
TREE_MODULE = "didax/tree.py"
UPDATES = "didax/numpy/updates.py"
BITS = "didax/numpy/bits.py"
POLYNOMIAL = "didax/numpy/polynomial.py"
UFUNC_API = "didax/numpy/ufunc_api.py"
SCALAR_TYPES = "didax/numpy/scalar_types.py"

PROMOTION = ("promotion",)
NUMPY = ("numpy",)
LAX = ("lax",)
PYTREES = ("pytrees",)
ERRORS = ("errors",)
RANDOM = ("random",)
NN = ("nn",)

MUTANTS: list[Mutant] = [
    Mutant(
        "typeof.drops_the_weak_type", CORE,
        "    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)\n\n\ndef to_concrete_value",
        "    return ShapedArray(aval.shape, aval.dtype)\n\n\ndef to_concrete_value", NUMPY,
        "jax.typeof of a Python scalar says float32, not ~float32: the weak type is lost", keyword="typeof",
    ),
    # --- type promotion: lattice edges, weak types, strict mode ----------------------------------
    Mutant(
        "promotion.lattice.u32_misses_i64", DTYPES,
        "u32: [u64, i64 if x64 else i32]", "u32: [u64]", PROMOTION,
        "the lattice edge uint32 -> int64 is missing, so uint32 + int32 goes to a float",
        keyword="promote_types",
    ),
    Mutant(
        "promotion.lattice.bool_to_u8", DTYPES,
        'b: ["i*"],', "b: [u8],", PROMOTION,
        "bool is joined below uint8 instead of the weak int, so bool + a Python int is uint8",
    ),
    Mutant(
        "promotion.lattice.bf16_below_f16", DTYPES,
        "bf16: [f32], f16: [f32]", "bf16: [f16], f16: [f32]", PROMOTION,
        "bfloat16 promotes to float16 instead of float32",
        keyword="promote_types",
    ),
    Mutant(
        "promotion.lattice.i64_to_f64", DTYPES,
        'i64: ["f*"],', "i64: [f64],", PROMOTION,
        "int64 skips the weak float: int64 + a Python float is a strong float64",
    ),
    Mutant(
        "promotion.strict.int_scalar_cannot_be_float", DTYPES,
        'lattice["i*"] = ["f*", *_UNSIGNED, *_SIGNED]', 'lattice["i*"] = [*_UNSIGNED, *_SIGNED]', PROMOTION,
        "in strict mode a Python int no longer promotes to floats (float32 + 1 is refused)",
        keyword="strict",
    ),
    Mutant(
        "promotion.strict.weak_scalars_join_as_strong", DTYPES,
        'if all(weak) and mode == "standard":', "if all(weak):", PROMOTION,
        "in strict mode, Python scalars alone are joined as their strong types (1 + 1.0 is refused)",
        keyword="strict",
    ),
    Mutant(
        "promotion.strict.mode_ignored", DTYPES,
        "lattice_result_type(types, config.jax_numpy_dtype_promotion, config.jax_enable_x64)",
        'lattice_result_type(types, "standard", config.jax_enable_x64)', PROMOTION,
        "result_type always promotes in standard mode: strict mode does nothing",
        keyword="strict",
    ),
    Mutant(
        "promotion.weak.same_dtype_result_weak", DTYPES,
        "return dtypes[0], False", "return dtypes[0], any(weak)", PROMOTION,
        "an array and a weak scalar of the same dtype give a weakly typed result",
    ),
    Mutant(
        "promotion.weak.python_bool_is_weak", CORE,
        "return dtypes.python_scalar_to_numpy(x, dtype), type(x) is not bool",
        "return dtypes.python_scalar_to_numpy(x, dtype), True", PROMOTION,
        "a Python bool becomes a weakly typed array",
        keyword="weak",
    ),
    Mutant(
        "promotion.promote_types_canonicalizes", DTYPES,
        "return PYTHON_SCALAR_DTYPES[WEAK_NODES[node]] if isinstance(node, str) else node",
        "return canonicalize_dtype(WEAK_NODES[node]) if isinstance(node, str) else node", PROMOTION,
        "promote_types(uint64, int8) gives float32 while x64 is off (JAX gives float64: promote_types is "
        "not canonicalized)",
        keyword="promote_types",
    ),
    Mutant(
        "promotion.error_is_a_type_error", DTYPES,
        "class TypePromotionError(ValueError):", "class TypePromotionError(TypeError):", PROMOTION,
        "TypePromotionError derives from TypeError instead of ValueError",
        keyword="value_error",
    ),
    Mutant(
        "promotion.context_not_restored", CONFIG,
        "    finally:\n        config.update(name, previous)", "    finally:\n        pass", PROMOTION,
        "numpy_dtype_promotion('strict') leaves strict mode on after its with block",
        keyword="strict",
    ),
    # --- x64 handling -----------------------------------------------------------------------------
    Mutant(
        "x64.uint64_kept_with_x64_off", DTYPES,
        "    np.dtype(np.uint64): np.dtype(np.uint32),\n", "", PROMOTION + NUMPY,
        "uint64 is not truncated to uint32 while x64 is off",
    ),
    Mutant(
        "x64.python_int_is_int32", DTYPES,
        "int: np.dtype(np.int64),", "int: np.dtype(np.int32),", PROMOTION,
        "a Python int is int32 even with x64 on",
    ),
    Mutant(
        "x64.join_before_canonicalizing", DTYPES,
        "dtypes = [_canonicalize(dtype, x64) for dtype, _ in types]",
        "dtypes = [_canonicalize(dtype, True) for dtype, _ in types]", PROMOTION,
        "types are joined as 64-bit and canonicalized only after: uint64 + int8 is a float with x64 off",
    ),
    Mutant(
        "x64.flag_ignored_by_result_type", DTYPES,
        "lattice_result_type(types, config.jax_numpy_dtype_promotion, config.jax_enable_x64)",
        "lattice_result_type(types, config.jax_numpy_dtype_promotion, False)", PROMOTION,
        "result_type canonicalizes to 32 bits even when x64 is on",
    ),
    Mutant(
        "x64.zeros_dtype_not_canonical", CREATION,
        "else dtypes.check_user_dtype(dtype, name)",
        "else dtypes.check_dtype(dtype)", NUMPY,
        "the dtype= of eye (and of zeros, ones, an empty asarray) is not canonicalized: eye(2, dtype=int64) "
        "makes an int64 array while x64 is off (zeros and ones still convert their fill to 32 bits)",
        keyword="zeros or eye",
    ),
    Mutant(
        "x64.iota_dtype_not_canonical", STRUCTURAL,
        'dtype=dtypes.check_user_dtype(dtype, "broadcasted_iota")',
        "dtype=dtypes.check_dtype(dtype)", LAX,
        "lax.iota(int64, n) makes int64 values while x64 is off",
        keyword="iota",
    ),
    Mutant(
        "x64.argmax_index_dtype_not_canonical", LAX_REDUCTIONS,
        "return argmax_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize_dtype(index_dtype))",
        "return argmax_p.bind(operand, axes=(int(axis),), index_dtype=np.dtype(index_dtype))", LAX,
        "lax.argmax(x, axis, int64) returns int64 indices while x64 is off",
        keyword="argmax",
    ),
    Mutant(
        "x64.eval_cache_ignores_the_flag", STANDARD,
        "*params.items(),\n           config.jax_enable_x64)", "*params.items())", LAX + NUMPY,
        "the cache of output types of eager operations is not keyed by the x64 flag",
        equivalent="no abstract evaluation rule of stage 01 reads the x64 flag: the wrappers canonicalize "
        "dtypes before binding (new_dtype, index_dtype, iota's dtype), so the same key always gives the "
        "same output type; the key matters once a rule reads the flag",
    ),
    # --- weak types of results --------------------------------------------------------------------
    Mutant(
        "weak.lax_result_weak_if_any_operand_is", STANDARD,
        "return all(a.weak_type for a in avals)", "return any(a.weak_type for a in avals)", LAX,
        "a lax operation on a typed array and a Python scalar gives a weakly typed result",
        keyword="weak",
    ),
    Mutant(
        "weak.lax_reductions_drop_weak_type", LAX_REDUCTIONS,
        "return standard_primitive(name, numpy_fn, shape_rule, dtype_rule, weak_type_rule)",
        "return standard_primitive(name, numpy_fn, shape_rule, dtype_rule, never_weak)", LAX,
        "lax reductions of a weakly typed operand give a strongly typed result (JAX keeps it weak)",
        keyword="weak",
    ),
    Mutant(
        "weak.iota_is_weak", STRUCTURAL,
        '"iota", _iota, _iota_shape, lambda *, dtype, shape, dimension: dtype, never_weak',
        '"iota", _iota, _iota_shape, lambda *, dtype, shape, dimension: dtype', LAX,
        "lax.iota forgets its weak-type rule: with no operands, 'all operands weak' makes it weak",
        keyword="iota",
    ),
    Mutant(
        "weak.convert_element_type_keeps_weak", ELEMENTWISE,
        "return convert_to(operand, new_dtype, weak_type=False)",
        'return convert_to(operand, new_dtype, weak_type=getattr(operand, "weak_type", False))',
        LAX,
        "lax.convert_element_type of a weakly typed value stays weak (JAX's result is strong)",
        keyword="weak",
    ),
    Mutant(
        "weak.convert_skips_a_change_of_weak_type", UTIL,
        "if aval.dtype == dtype and aval.weak_type == weak_type:", "if aval.dtype == dtype:", NUMPY,
        "converting to the same dtype keeps the old weak type: asarray(1.0).astype(float32) stays weak",
        keyword="astype",
    ),
    Mutant(
        "weak.zeros_like_drops_weak_type", CREATION,
        "weak_type=dtype is None and aval.weak_type)", "weak_type=False)", NUMPY,
        "zeros_like/ones_like/full_like of a weakly typed array give a strong result",
        keyword="like",
    ),
    Mutant(
        "weak.like_with_a_dtype_keeps_weak_type", CREATION,
        "weak_type=dtype is None and aval.weak_type)",
        "weak_type=aval.weak_type)", NUMPY,
        "zeros_like(weak, dtype=...) stays weakly typed although a dtype was given",
        keyword="like",
    ),
    # --- axes, negative axes, keepdims --------------------------------------------------------------
    Mutant(
        "axes.minus_ndim_rejected", UTIL,
        "if not -ndim <= axis < ndim:", "if not -ndim < axis < ndim:", NUMPY,
        "axis=-ndim is refused as out of bounds",
        keyword="sum or max or squeeze",
    ),
    Mutant(
        "axes.negative_off_by_one", UTIL,
        "return axis % ndim\n", "return axis + ndim - 1 if axis < 0 else axis\n", NUMPY,
        "a negative axis counts from the end off by one (-1 is the second to last axis)",
        keyword="sum",
    ),
    Mutant(
        "axes.lax_expand_dims_negative_from_input_rank", STRUCTURAL,
        "_normalize_axes(dimensions, out_ndim)", "_normalize_axes(dimensions, len(shape))", LAX,
        "lax.expand_dims counts negative dimensions from the end of the input, not of the result",
        keyword="expand_dims",
    ),
    Mutant(
        "axes.lax_negative_dims_not_wrapped", STRUCTURAL,
        "return tuple(int(a) + ndim if int(a) < 0 else int(a) for a in axes)",
        "return tuple(int(a) for a in axes)", LAX,
        "lax.squeeze and lax.expand_dims refuse negative dimensions",
        keyword="expand_dims or squeeze",
    ),
    Mutant(
        "axes.lax_expand_dims_unsorted", STRUCTURAL,
        "for axis in sorted(axes):", "for axis in axes:", LAX,
        "lax.expand_dims inserts the new axes in the order given, not in increasing order",
        keyword="expand_dims",
    ),
    Mutant(
        "axes.lax_reduction_accepts_negative_axes", LAX_REDUCTIONS,
        "if any(not 0 <= a < x.ndim for a in axes):", "if any(not -x.ndim <= a < x.ndim for a in axes):", LAX,
        "lax reductions accept negative axes (XLA and JAX refuse them with a ValueError)",
        keyword="reduce or bad_arguments",
    ),
    Mutant(
        "keepdims.argmax_axis_none", NP_REDUCTIONS,
        "axes = tuple(range(aval.ndim)) if axis is None else (axis_,)", "axes = (axis_,)", NUMPY,
        "argmax(x, keepdims=True) with axis=None keeps only the first axis",
        keyword="argmax",
    ),
    Mutant(
        "reductions.all_any_read_both_complex_parts", NP_REDUCTIONS,
        "            a = lax.real(a)  # as JAX", "            pass  # as JAX", NUMPY,
        "all/any read a complex element by both parts, as NumPy does, not by its real part as JAX does",
        keyword="complex_read_the_real",
    ),
    Mutant(
        "keepdims.mean_ignores_keepdims", NP_REDUCTIONS,
        "axes, compute_dtype, keepdims, True, None, where, _zero",
        "axes, compute_dtype, False, True, None, where, _zero", NUMPY,
        "mean ignores keepdims",
        keyword="mean",
    ),
    # --- dtypes and values of reductions -----------------------------------------------------------
    Mutant(
        "reductions.sum_uint_to_int", NP_REDUCTIONS,
        "return dtypes.canonicalize_dtype(np.uint64)", 'return dtypes.default_dtype("i")', NUMPY,
        "sum of small unsigned ints accumulates in the default signed int",
        keyword="sum",
    ),
    Mutant(
        "reductions.max_upcasts_small_ints", NP_REDUCTIONS,
        "return _reduce(name, lax_fn, a, axis, None, keepdims, False, initial, where, identity)",
        "return _reduce(name, lax_fn, a, axis, None, keepdims, True, initial, where, identity)", NUMPY,
        "max/min of int8 return int32, as sum does",
        keyword="max",
    ),
    Mutant(
        "reductions.mean_of_float16_in_float32", NP_REDUCTIONS,
        "out_dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(a_dtype))",
        "out_dtype = dtypes.canonicalize_dtype(dtypes.promote_types(a_dtype, np.float32))", NUMPY,
        "mean promotes with float32: float16 means are float32 and int64 means float32 with x64 on",
        keyword="mean",
    ),
    Mutant(
        "reductions.mean_divides_by_the_size", NP_REDUCTIONS,
        "return convert(math.prod([aval.shape[i] for i in axes]), dtype)",
        "return convert(math.prod(aval.shape), dtype)", NUMPY,
        "mean over some axes divides by the total number of elements",
        keyword="mean",
    ),
    Mutant(
        "reductions.max_identity_zero", LAX_REDUCTIONS,
        "return -np.inf if dtypes.is_float(dtype) else np.iinfo(dtype).min",
        "return -np.inf if dtypes.is_float(dtype) else 0", LAX + NUMPY,
        "the identity of integer max is 0, so the max of negative integers is 0",
        keyword="max",
    ),
    Mutant(
        "reductions.inexact_of_int32_is_float64", DTYPES,
        "np.dtype(np.float64) if dtype.itemsize == 8", "np.dtype(np.float64) if dtype.itemsize >= 4", NUMPY,
        "sin, mean and true division of int32 give float64 when x64 is on (JAX: float32)",
    ),
    Mutant(
        "reductions.bfloat16_not_a_float", DTYPES,
        "return category in (np.floating, np.inexact, np.number, np.generic)",
        "return category in (np.inexact, np.number, np.generic)", LAX + NUMPY,
        "bfloat16 is not recognised as a floating type",
    ),
    # --- broadcasting ---------------------------------------------------------------------------------
    Mutant(
        "broadcast.rank_padded_on_the_right", UTIL,
        "shape=(1,) * (rank - len(s)) + s, broadcast_dimensions=tuple(range(rank - len(s), rank))",
        "shape=s + (1,) * (rank - len(s)), broadcast_dimensions=tuple(range(len(s)))", NUMPY,
        "lower-rank operands get their size-1 axes at the end instead of the front",
        keyword="binary",
    ),
    Mutant(
        "broadcast.size_zero_against_one", STANDARD,
        "result.append(not_one.pop() if not_one else 1)", "result.append(max(sizes))", LAX,
        "lax broadcasting takes the largest size, so a size-0 dimension against size 1 gives 1",
        keyword="broadcasts",
    ),
    Mutant(
        "broadcast.broadcast_to_aligns_leading", UTIL,
        "return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))",
        "return lax.broadcast_in_dim(x, shape, tuple(range(len(x_shape))))", NUMPY,
        "broadcast_to lines the operand up with the leading dimensions instead of the trailing ones",
        keyword="matmul",
    ),
    # --- indexing -------------------------------------------------------------------------------------
    Mutant(
        "indexing.negative_int_not_from_the_end", INDEXING,
        "    index = index + size if index < 0 else index\n    return min(max(index, 0), size - 1)",
        "    return min(max(index, 0), size - 1)", NUMPY,
        "a negative integer index is clamped to 0 instead of counting from the end",
        keyword="indexing",
    ),
    Mutant(
        "indexing.negative_step_one_too_many", INDEXING,
        "return first, max(first, start + 1), -step, True", "return first, max(first, start + 2), -step, True",
        NUMPY,
        "a slice with a negative step takes one element too many",
        keyword="indexing",
    ),
    Mutant(
        "indexing.slice_bound_array_never_static", INDEXING,
        "            part = to_concrete_value(part)\n", "            part = None\n", ("errors",),
        "a slice bound held in an array is refused even when its value is known (x[:jnp.asarray(2)])",
        keyword="slice-bound",
    ),
    Mutant(
        "indexing.dynamic_negative_index_not_wrapped", STRUCTURAL,
        "return select_n(negative, index, add(index, np.asarray(size, dtype)))",
        "return select_n(negative, add(index, np.asarray(size, dtype)), index)", LAX + NUMPY,
        "an integer index held in an array is wrapped when non-negative instead of when negative",
        keyword="negative_start or integer_scalar_arrays",
    ),
    # --- lax rules ------------------------------------------------------------------------------------
    Mutant(
        "lax.dynamic_slice.clamped_to_last_index", STRUCTURAL,
        "np.clip(int(i), 0, dim - size)", "np.clip(int(i), 0, dim - 1)", LAX,
        "dynamic_slice clamps the start to the last index, not so that the whole window fits",
        keyword="dynamic",
    ),
    Mutant(
        "lax.dynamic_slice.negative_start_not_wrapped", STRUCTURAL,
        "return index + size if index < 0 else index", "return index", LAX,
        "dynamic_slice clamps a negative start index to 0 instead of counting it from the end",
        keyword="negative_start",
    ),
    Mutant(
        "lax.pad.interior_after_the_last", STRUCTURAL,
        "spread_shape = [n + max(n - 1, 0) * interior for n, (_, _, interior) in zip(x.shape, padding_config)]",
        "spread_shape = [n * (interior + 1) for n, (_, _, interior) in zip(x.shape, padding_config)]", LAX,
        "interior padding is also added after the last element",
        keyword="pad",
    ),
    Mutant(
        "lax.pad.negative_high_ignored", STRUCTURAL,
        "builtins.slice(-min(lo, 0), out.shape[i] + min(hi, 0))", "builtins.slice(-min(lo, 0), out.shape[i])", LAX,
        "negative high padding does not cut elements away",
        keyword="pad",
    ),
    Mutant(
        "lax.slice.size_floored", STRUCTURAL,
        "return tuple(-(-(lim - s) // st) for s, lim, st in zip(start_indices, limit_indices, strides))",
        "return tuple((lim - s) // st for s, lim, st in zip(start_indices, limit_indices, strides))", LAX,
        "a strided slice's size is rounded down instead of up",
        keyword="slice",
    ),
    Mutant(
        "lax.transpose.inverse_permutation", STRUCTURAL,
        "lambda x, *, permutation: np.transpose(x, permutation)",
        "lambda x, *, permutation: np.transpose(x, np.argsort(permutation))", LAX,
        "transpose applies the inverse permutation",
        keyword="transpose",
    ),
    Mutant(
        "lax.dot_general.batch_paired_with_contracting", DOT,
        "rhs.transpose([*rhs_batch, *rhs_contract, *rhs_free])",
        "rhs.transpose([*rhs_contract, *rhs_batch, *rhs_free])", LAX + NUMPY,
        "dot_general lays the rhs out with its contracting dimensions before its batch dimensions",
        keyword="dot_general or matmul",
    ),
    Mutant(
        "lax.dot_general.free_dims_swapped", DOT,
        "shape = batch + [lhs.shape[d] for d in lhs_free] + [rhs.shape[d] for d in rhs_free]",
        "shape = batch + [rhs.shape[d] for d in rhs_free] + [lhs.shape[d] for d in lhs_free]", LAX,
        "dot_general puts the rhs's free dimensions before the lhs's",
        keyword="dot_general",
    ),
    Mutant(
        "lax.dot_general.integers_accumulate_narrow", DOT,
        '    if dtype == np.bool_ or dtype.kind == "i":\n        return np.dtype(np.int64)\n'
        '    if dtype.kind == "u":\n        return np.dtype(np.uint64)\n',
        "    if dtype == np.bool_:\n        return np.dtype(np.int64)\n", LAX + NUMPY,
        "dot_general accumulates integers in their own (narrow) type instead of 64 bits",
        equivalent="integer arithmetic is modular: summing products in int8 or in int64 and then keeping "
        "the low 8 bits gives the same bits, so no value can tell the two apart",
    ),
    Mutant(
        "lax.iota.along_dimension_zero", STRUCTURAL,
        "dimension=int(dimension),", "dimension=0,",
        NUMPY + LAX,
        "broadcasted_iota always counts along dimension 0 (jnp.eye is then wrong)",
        keyword="eye or iota",
    ),
    Mutant(
        "lax.cumsum.reverse_not_flipped_back", LAX_REDUCTIONS,
        "return np.flip(accumulate(np.flip(x, axis), axis, acc), axis).astype(x.dtype)",
        "return accumulate(np.flip(x, axis), axis, acc).astype(x.dtype)", LAX,
        "cumsum (and the other cumulative reductions) with reverse=True return the running results in "
        "reversed order",
        keyword="cumsum",
    ),
    Mutant(
        "lax.argmax.last_of_ties", LAX_REDUCTIONS,
        'argmax_p = arg_reduction("argmax", np.argmax)',
        'argmax_p = arg_reduction("argmax", lambda x, axis: x.shape[axis] - 1 - np.argmax(np.flip(x, axis), axis=axis))',
        LAX + NUMPY,
        "argmax returns the last of equal maxima instead of the first",
        keyword="argmax",
    ),
    Mutant(
        "lax.select_n.cases_reversed", ELEMENTWISE,
        'return np.choose(which.astype(np.int32), cases, mode="clip")',
        'return np.choose(which.astype(np.int32), cases[::-1], mode="clip")', LAX + NUMPY,
        "select_n picks the cases in reverse order",
        keyword="select or where",
    ),
    Mutant(
        "lax.conj.real_input_negative_zero", ELEMENTWISE,
        'return np.conj(x) if x.dtype.kind == "c" else x.astype(_complex_of(x.dtype))',
        "return np.conj(x.astype(_complex_of(x.dtype)))", LAX,
        "conj of a real x negates the zero imaginary part of x + 0i (-0, where XLA keeps +0)", keyword="conj",
    ),
    Mutant(
        "lax.complex.parts_swapped", ELEMENTWISE, "out.real, out.imag = x, y", "out.real, out.imag = y, x", LAX,
        "complex(x, y) is y + ix", keyword="complex",
    ),
    Mutant(
        "lax.integer_pow.zero_exponent_refused", ELEMENTWISE,
        'if y < 0 and x.dtype.kind in "iu":', 'if y <= 0 and x.dtype.kind in "iu":', LAX,
        "integer_pow refuses x ** 0 for integers",
        keyword="integer_pow",
    ),
    Mutant(
        "lax.logistic.sign", ELEMENTWISE,
        "return 1 / (1 + np.exp(-x))", "return 1 / (1 + np.exp(x))", LAX,
        "logistic computes 1 / (1 + exp(x))",
        keyword="logistic",
    ),
    Mutant(
        "lax.abs.complex_stays_complex", ELEMENTWISE,
        'return _real_dtype(x) if x.dtype.kind == "c" else x.dtype', "return x.dtype", LAX + NUMPY,
        "abs of a complex number keeps the complex dtype",
        keyword="abs",
    ),
    Mutant(
        "lax.max.ignores_nan", ELEMENTWISE,
        "out = np.maximum(x, y)  # propagates NaN, as XLA does", "out = np.fmax(x, y)", LAX,
        "max ignores NaN (NumPy's fmax) instead of propagating it",
        keyword="max",
    ),
    Mutant(
        "lax.max.complex_tie_picks_second", ELEMENTWISE,
        "((x.real == y.real) & (x.imag > y.imag))", "((x.real == y.real) & (x.imag >= y.imag))", LAX + NUMPY,
        "complex max picks the first operand when both parts are equal",
        equivalent="when the real and imaginary parts both compare equal the two operands are the same "
        "number (up to the sign of a zero, which == cannot see), so either choice gives the same value",
    ),
    # --- NumPy versus XLA semantics -------------------------------------------------------------------
    Mutant(
        "xla.integer_division_by_zero_is_zero", ELEMENTWISE,
        "return np.where(y == 0, np.array(-1).astype(x.dtype), quotient)", "return np.where(y == 0, 0, quotient)",
        LAX,
        "integer x / 0 gives 0 (NumPy) instead of -1, all bits set (XLA)",
        keyword="zero",
    ),
    Mutant(
        "xla.integer_remainder_by_zero_is_zero", ELEMENTWISE,
        "return np.where(y == 0, x, np.fmod(x, np.where(y == 0, 1, y)))",
        "return np.where(y == 0, 0, np.fmod(x, np.where(y == 0, 1, y)))", LAX,
        "integer x % 0 gives 0 (NumPy) instead of x (XLA)",
        keyword="zero",
    ),
    Mutant(
        "xla.integer_division_floors", ELEMENTWISE,
        '    quotient = np.abs(x) // np.abs(safe_y) if x.dtype.kind == "i" else x // safe_y\n'
        '    if x.dtype.kind == "i":\n        quotient = np.where((x < 0) != (y < 0), -quotient, quotient)\n',
        "    quotient = x // safe_y\n", LAX,
        "lax.div of integers rounds toward -inf (NumPy's //) instead of toward zero",
        keyword="div",
    ),
    Mutant(
        "xla.float_to_unsigned_wraps", ELEMENTWISE,
        'if dtypes.is_float(x.dtype) and new_dtype.kind in "iu":', 'if dtypes.is_float(x.dtype) and new_dtype.kind == "i":',
        LAX,
        "float to unsigned conversion uses NumPy's cast: negative values wrap instead of saturating at 0",
        keyword="conversion",
    ),
    Mutant(
        "xla.float_to_int_nan", ELEMENTWISE,
        "t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))", "t = np.trunc(x.astype(np.float64))", LAX,
        "float to int conversion turns NaN into the smallest integer instead of 0",
        keyword="conversion",
    ),
    Mutant(
        "xla.float_to_int_wraps", ELEMENTWISE,
        "    out = np.where(too_big | too_small, 0, t).astype(new_dtype)\n"
        "    out[too_big] = info.max\n    out[too_small] = info.min\n    return out",
        "    return t.astype(new_dtype)", LAX,
        "float to int conversion does not saturate at the integer limits",
        keyword="conversion",
    ),
    Mutant(
        "numpy.floor_divide_truncates", UFUNCS,
        "q = lax.div(x, y)\n        return lax.select_n(step_down, q, lax.sub(q, _constant_like(q, 1)))",
        "q = lax.div(x, y)\n        return q", NUMPY,
        "integer floor_divide rounds toward zero (C) instead of toward -inf (Python)",
        keyword="floor_divide",
    ),
    Mutant(
        "numpy.remainder_has_the_dividends_sign", UFUNCS,
        "return lax.select_n(_differs_in_sign(r, y), r, lax.add(r, y))", "return r", NUMPY,
        "remainder takes the sign of the dividend (C fmod) instead of the divisor",
        keyword="remainder",
    ),
    Mutant(
        "numpy.bool_add_is_and", UFUNCS,
        "return lax.bitwise_or(x, y) if _is_bool(x) else lax.add(x, y)",
        "return lax.bitwise_and(x, y) if _is_bool(x) else lax.add(x, y)", NUMPY,
        "True + False is False",
        keyword="add",
    ),
    Mutant(
        "numpy.where_swapped", UFUNCS,
        "return lax.select_n(condition, y, x)", "return lax.select_n(condition, x, y)", NUMPY,
        "where(c, x, y) picks y where c is true",
        keyword="where",
    ),
    Mutant(
        "numpy.logical_negative_is_false", UFUNCS,
        "return lax.ne(x, _jax_constant(x, 0))", "return lax.gt(x, _jax_constant(x, 0))",
        NUMPY,
        "logical functions count negative numbers as false",
        keyword="logical",
    ),
    Mutant(
        "numpy.power_of_bools", UFUNCS,
        "return lax.integer_pow(_bool_to_int(as_array(x)), exponent)",
        "return lax.integer_pow(as_array(x), exponent)", NUMPY,
        "bool ** 2 is refused by lax.integer_pow instead of computed in int32",
        keyword="power or square",
    ),
    Mutant(
        "numpy.complex_less_ties", UFUNCS,
        "strict = lax.lt if lax_fn in (lax.lt, lax.le) else lax.gt",
        "strict = lax.le if lax_fn in (lax.lt, lax.le) else lax.ge", NUMPY,
        "complex comparisons ignore the imaginary parts when the real parts tie",
        keyword="less or greater",
    ),
    Mutant(
        "numpy.arange_dtype_from_numpy", CREATION,
        "out_dtype = dtypes.result_type(*bounds) if dtype is None",
        "out_dtype = np.result_type(*bounds) if dtype is None", NUMPY,
        "arange takes NumPy's dtype (int64) instead of JAX's default int",
        keyword="arange",
    ),
    Mutant(
        "numpy.linspace_integers_truncated", CREATION,
        "        out = floor_toward_minus_inf(out)\n", "        pass\n",
        NUMPY, "linspace with an integer dtype truncates toward 0 instead of rounding toward -inf (floor)",
        keyword="integer_dtype_casts",
    ),
    Mutant(
        "numpy.linspace_step_in_the_output_dtype", CREATION,
        "    step = convert(step, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(out_dtype)))",
        "    step = convert(step, out_dtype)",
        NUMPY, "linspace's retstep converts the step to an integer dtype (2 for 2.5)",
        keyword="retstep",
    ),
    Mutant(
        "numpy.linspace_step_never_nan", CREATION,
        "    if num == 0 or (num == 1 and endpoint):", "    if False:",
        NUMPY, "linspace's retstep gives stop - start where there is no step, not nan",
        keyword="retstep",
    ),
    Mutant(
        "numpy.logspace_integers_rounded", STRUCTURE,
        "    return convert(ufuncs.power(base, exponents), out_dtype)",
        "    powers = ufuncs.power(base, exponents)\n"
        "    return convert(lax.round(powers) if out_dtype.kind in 'iu' else powers, out_dtype)",
        NUMPY, "logspace with an integer dtype rounds to the nearest integer where JAX's cast truncates toward 0",
        keyword="integer_dtype_casts",
    ),
    Mutant(
        "numpy.linspace_endpoint_ignored", CREATION,
        "divisions = num - 1 if endpoint else num", "divisions = num - 1", NUMPY,
        "linspace(endpoint=False) spaces the values as if the endpoint were included",
        keyword="linspace",
    ),
    Mutant(
        "numpy.eye_k_sign", CREATION,
        "lax.eq(lax.sub(cols, rows), np.int32(k))", "lax.eq(lax.sub(rows, cols), np.int32(k))", NUMPY,
        "eye(k=1) fills the diagonal below the main one",
        keyword="eye",
    ),
    # --- error types ----------------------------------------------------------------------------------
    Mutant(
        "errors.concatenate_value_error", STRUCTURAL,
        'raise TypeError(\n            "concatenate operands must have equal dimensions',
        'raise ValueError(\n            "concatenate operands must have equal dimensions', LAX,
        "lax.concatenate of mismatched shapes raises ValueError instead of TypeError",
        keyword="bad_arguments",
    ),
    Mutant(
        "errors.squeeze_type_error", STRUCTURAL,
        'raise ValueError(\n            "cannot select an axis to squeeze out',
        'raise TypeError(\n            "cannot select an axis to squeeze out', LAX,
        "lax.squeeze of a dimension of size > 1 raises TypeError instead of ValueError",
        keyword="bad_arguments",
    ),
    Mutant(
        "errors.tree_map_mismatch_type_error", TREE,
        'raise ValueError(f"Pytree structure mismatch at {where}: {e}.{hint}") from None',
        'raise TypeError(f"Pytree structure mismatch at {where}: {e}.{hint}") from None', PYTREES,
        "tree_map over different structures raises TypeError instead of ValueError",
    ),
    Mutant(
        "errors.broadcast_ranks_type_error", UTIL,
        "        if len({len(s) for s in shapes if s}) > 1:\n", "        if False:\n", ERRORS,
        "jnp.ones((3, 4)) + jnp.ones(3) raises TypeError, as lax does, not jnp's ValueError for ranks that differ",
        keyword="incompatible",
    ),
    Mutant(
        "errors.asarray_none_type_error", CREATION,
        "    if object is None:\n        raise ValueError", "    if False:\n        raise ValueError", ERRORS,
        "jnp.asarray(None) raises TypeError (None is no didax type) instead of JAX's ValueError",
        keyword="none",
    ),
    Mutant(
        "numpy.asarray_refuses_range", CREATION,
        "    value = np.asarray(x)\n", "    canonicalize_value(x)\n    value = np.asarray(x)\n", ERRORS,
        "jnp.asarray(range(3)) is refused as an unknown type; JAX converts it with NumPy",
        keyword="range or memoryview",
    ),
    Mutant(
        "lax.top_k_returns_a_tuple", SORTING,
        "    return [values, indices]\n", "    return values, indices\n", LAX,
        "lax.top_k returns a tuple (values, indices) where JAX's gives the list its primitive's binding makes",
        keyword="top_k_returns",
    ),
    # --- data safety ----------------------------------------------------------------------------------
    Mutant(
        "data.asarray_aliases_numpy", CORE,
        "return np.array(x, dtypes.canonicalize_dtype(x.dtype), copy=True), False",
        "return np.asarray(x, dtypes.canonicalize_dtype(x.dtype)), False", NUMPY,
        "asarray of a NumPy array shares its buffer: writing to the NumPy array changes the didax array",
        keyword="immutab or change",
    ),
    Mutant(
        "data.numpy_view_writable", ARRAY,
        "        view.flags.writeable = False\n", "", NUMPY,
        "np.asarray(didax_array) is a writable view of the didax array's buffer",
        keyword="read_only",
    ),
    Mutant(
        "data.dynamic_update_slice_in_place", STRUCTURAL,
        "out = x.copy()", "out = x", LAX,
        "dynamic_update_slice writes into its operand's buffer instead of a copy",
        keyword="dynamic_update",
    ),
    # --- pytrees --------------------------------------------------------------------------------------
    Mutant(
        "pytrees.dict_in_insertion_order", TREE,
        "return tuple(sorted(d))", "return tuple(d)", PYTREES,
        "dict children come in insertion order instead of sorted key order",
    ),
    Mutant(
        "pytrees.ordered_dict_sorted", TREE,
        "return list(d.values()), tuple(d)  # insertion order is part of the structure",
        "return _flatten_dict(d)", PYTREES,
        "OrderedDict children come in sorted key order instead of insertion order",
    ),
    Mutant(
        "pytrees.none_is_a_leaf", TREE,
        '_registry[type(None)] = NodeType(\n    "None", lambda _: ((), None), lambda _aux, _children: None, '
        "lambda _: ((), None)\n)\n",
        "",
        PYTREES,
        "None is a leaf instead of an empty node",
    ),
    Mutant(
        "pytrees.is_leaf_only_at_the_root", TREE,
        "if is_leaf is not None and _says_leaf(is_leaf(child)):",
        "if is_leaf is not None and frame is root and _says_leaf(is_leaf(child)):", PYTREES,
        "is_leaf is asked only about the whole tree, not about its subtrees",
    ),
    Mutant(
        "pytrees.tree_map_ignores_is_leaf", TREE,
        "leaves, treedef = tree_flatten(tree, is_leaf)\n    hint", "leaves, treedef = tree_flatten(tree)\n    hint",
        PYTREES,
        "tree_map does not pass is_leaf on to flattening",
    ),
    Mutant(
        "pytrees.treedef_equality_ignores_aux_data", TREE,
        "    def __hash__(self) -> int:\n        # aux_data",
        "    def __eq__(self, other: object) -> bool:\n"
        "        return isinstance(other, PyTreeDef) and (self.node_type, self.child_defs) == (\n"
        "            other.node_type, other.child_defs)\n\n"
        "    def __hash__(self) -> int:\n        # aux_data",
        PYTREES,
        "treedefs compare node types and children only: dicts with different keys are equal",
    ),
    Mutant(
        "pytrees.tree_map_ignores_dict_keys", TREE,
        "if aux_data != want_aux:", "if aux_data != want_aux and node_type is not dict:",
        PYTREES,
        "tree_map pairs up dicts with different keys (same number of entries) without an error",
    ),
    Mutant(
        "pytrees.unflatten_accepts_too_many_leaves", TREE,
        "if len(values) - 1 != num_leaves:", "if len(values) - 1 < num_leaves:", PYTREES,
        "tree_unflatten silently drops extra leaves",
    ),
    Mutant(
        "pytrees.one_tuple_printed_without_comma", TREE,
        '("," if len(kids) == 1 else "")', '""', PYTREES,
        "a treedef prints a one-element tuple as (*) instead of (*,)",
    ),
    Mutant(
        "pytrees.unflatten_loses_aux_data", TREE,
        "return entry.unflatten(aux_data, tuple(children))", "return entry.unflatten(None, tuple(children))",
        PYTREES,
        "unflatten rebuilds nodes without their aux data (dict keys, namedtuple classes)",
    ),
    # The fast walk (issue 24): its shortcuts must give what the general walk gives.
    Mutant(
        "pytrees.fast_walk_namedtuple_as_tuple", TREE,
        "elif child_type is tuple or child_type is list:", "elif issubclass(child_type, (tuple, list)):",
        PYTREES,
        "the fast walk takes a namedtuple (a subclass of tuple) apart as a plain tuple: no class in its spec",
    ),
    Mutant(
        "pytrees.fast_walk_none_is_a_leaf", TREE,
        "        elif child is None:\n            spec.append(_NONE_SPEC)\n",
        "        elif child is None:\n            leaves.append(child)\n            spec.append(None)\n",
        PYTREES,
        "the fast walk counts a None inside a container as a leaf instead of an empty node",
    ),
    Mutant(
        "pytrees.all_leaves_shortcut_reads_the_first_child", TREE,
        "if _all_leaf_types(map(type, grandchildren)):", "if _all_leaf_types(map(type, grandchildren[:1])):",
        PYTREES,
        "a node whose first child is a leaf is taken for a node of leaves only: its nested children become leaves",
    ),
    Mutant(
        "pytrees.leaf_types_kept_after_registering", TREE,
        "    _leaf_types.clear()\n", "",
        PYTREES,
        "a type flattened as a leaf before it was registered stays a leaf after register_pytree_node",
    ),
    Mutant(
        "pytrees.flatten_result_trusted_when_not_a_sequence", TREE,
        "if type(out) is tuple and len(out) == 2 and type(out[0]) in (list, tuple):",
        "if type(out) is tuple and len(out) == 2:",
        PYTREES,
        "a custom flatten's children are used as they come: a generator is read up by the leaf check and "
        "its children are lost",
    ),
    # Rebuilding by a plan (issue 24): a treedef rebuilt again follows a plan made once.
    Mutant(
        "pytrees.plan_loses_aux_data", TREE,
        "return map(unflatten, aux_data, children)", "return map(unflatten, [None] * len(aux_data), children)",
        PYTREES,
        "a treedef's second rebuild makes custom nodes and namedtuples without their aux data",
    ),
    Mutant(
        "pytrees.plan_makes_lists_tuples", TREE,
        "    return map(list, children)\n", "    return children\n",
        PYTREES,
        "a treedef's second rebuild makes each list a tuple",
    ),
    Mutant(
        "pytrees.plan_orders_nodes_by_type_not_height", TREE,
        "for key in sorted(nodes, key=operator.itemgetter(0)):", "for key in nodes:",
        PYTREES,
        "the plan makes groups in the order it met them, so a parent may read a child not made yet",
    ),
    Mutant(
        "pytrees.plan_none_is_the_first_leaf", TREE,
        "            return 0, num_leaves\n", "            return 0, 0\n",
        PYTREES,
        "a treedef's second rebuild puts the first leaf where a None node was",
    ),
    # Siblings of one shape taken apart column by column, and plans that cut children by zip (issue 24).
    Mutant(
        "pytrees.root_of_leaves_reads_the_first_child", TREE,
        "    if _all_leaf_types(map(type, children)):\n", "    if _all_leaf_types(map(type, children[:1])):\n",
        PYTREES,
        "a tree whose first child is a leaf is taken for a container of leaves: its nested children become leaves",
        keyword="many or flatten or structure",
    ),
    Mutant(
        "pytrees.columns_mixed_types_taken_as_leaves", TREE,
        "if _all_leaf_types(types) or _all_leaf_types_learnt(types):",
        "if not types.isdisjoint(_leaf_types):",
        PYTREES,
        "a column of siblings holding a leaf and containers is taken for a column of leaves",
        keyword="many",
    ),
    Mutant(
        "pytrees.columns_of_unequal_lengths", TREE,
        "    if len(sizes) != 1:\n        return None\n", "",
        PYTREES,
        "siblings of one type but different lengths are taken apart by columns: zip drops the longer ones' tails",
        keyword="many",
    ),
    Mutant(
        "pytrees.columns_alike_if_any_column_is", TREE,
        "all(alike for _, alike, _, _ in columns)", "any(alike for _, alike, _, _ in columns)",
        PYTREES,
        "siblings are given the first one's spec when any of their columns is alike, not all",
        keyword="many",
    ),
    Mutant(
        "pytrees.columns_dataclasses_share_the_first_aux", TREE,
        "heads = zip(itertools.repeat(kind), map(getters[1], siblings))",
        "heads = (kind, getters[1](siblings[0]))",
        PYTREES,
        "many dataclasses taken apart at once all get the first one's static fields",
        keyword="many",
    ),
    Mutant(
        "pytrees.columns_woven_column_by_column", TREE,
        "return list(itertools.chain.from_iterable(zip(*[leaves for _, _, leaves, _ in columns])))",
        "return list(itertools.chain.from_iterable(leaves for _, _, leaves, _ in columns))",
        PYTREES,
        "the leaves of siblings taken apart by columns come column after column, not sibling after sibling",
        keyword="many",
    ),
    Mutant(
        "pytrees.plan_chunks_nodes_of_unequal_sizes", TREE,
        "set(map(len, places)) == {size}", "len(places[-1]) == size",
        PYTREES,
        "a plan cuts children n at a time by zip even when the nodes hold different numbers of children",
        keyword="many or rebuild",
    ),
    # --- gather and scatter (lax/slicing.py) -----------------------------------------------------
    Mutant(
        "lax.scatter.combining_is_buffered", SLICING,
        "combine.at(view, reach.index, windows)  # unbuffered: repeated positions all count",
        "view[reach.index] = combine(view[reach.index], windows)", LAX + NUMPY,
        "scatter_add (and the other combining scatters) apply a buffered update: of several updates "
        "at one position only the last counts",
        keyword="scatter or at_combining",
    ),
    Mutant(
        "lax.scatter.mode_none_clips", SLICING,
        'if s == "clip":\n            return GatherScatterMode.CLIP',
        'if s is None or s == "clip":\n            return GatherScatterMode.CLIP', NUMPY + LAX,
        "mode=None is read as CLIP instead of FILL_OR_DROP: x.at[i].set(v) with i out of range writes "
        "at the edge instead of dropping the update",
        keyword="at_set or at_get or scatter or gather",
    ),
    Mutant(
        "lax.scatter_min.ignores_nan", SLICING,
        'scatter_min_p = _scatter_primitive("scatter-min", np.minimum, ANY)',
        'scatter_min_p = _scatter_primitive("scatter-min", np.fmin, ANY)', NUMPY + LAX,
        "scatter_min (x.at[i].min) ignores NaN (NumPy's fmin) instead of propagating it, as lax.min does",
        keyword="scatter or at_min",
    ),
    # --- sort and top_k (lax/sorting.py) ----------------------------------------------------------
    Mutant(
        "lax.sort.last_key_primary", SORTING,
        "order = np.lexsort(keys[::-1], axis=dimension)", "order = np.lexsort(keys, axis=dimension)",
        LAX + NUMPY,
        "sort with num_keys > 1 orders by the last key first (NumPy's lexsort convention) instead of the first",
        keyword="sort",
    ),
    Mutant(
        "lax.top_k.ties_to_the_higher_index", SORTING,
        'order = np.argsort(~_total_order(x), axis=axis, kind="stable")',
        'order = np.flip(np.argsort(_total_order(x), axis=axis, kind="stable"), axis=axis)', LAX,
        "top_k sorts ascending and reads backwards: of equal values the one at the higher index comes first",
        keyword="top_k",
    ),
    # --- bit operations (lax/bitwise.py) ----------------------------------------------------------
    Mutant(
        "lax.shift_right_arithmetic.big_shift_keeps_the_value", BITWISE,
        "amount = np.where(_in_range(y, bits), y, bits - 1)", "amount = np.where(_in_range(y, bits), y, 0)", LAX,
        "an arithmetic right shift by the bit width or more leaves x unchanged instead of filling every "
        "bit with the sign",
        keyword="shift",
    ),
    Mutant(
        "lax.shift_right_logical.sign_bits_come_in", BITWISE,
        "shifted = np.right_shift(ux, np.where(ok, y, 0).astype(ux.dtype))  # unsigned: zeros come in",
        "shifted = np.right_shift(x, np.where(ok, y, 0).astype(x.dtype))", LAX,
        "a logical right shift of a negative signed integer brings in copies of the sign bit instead of zeros",
        keyword="shift",
    ),
    Mutant(
        "lax.population_count.of_signed_counts_the_magnitude", BITWISE,
        "return np.bitwise_count(_as_unsigned(x)).astype(x.dtype)", "return np.bitwise_count(x).astype(x.dtype)",
        LAX,
        "population_count of a negative signed integer counts the bits of its absolute value (NumPy's "
        "bitwise_count) instead of its two's-complement bits",
        keyword="population_count",
    ),
    Mutant(
        "lax.bitcast.pieces_in_big_endian_order", BITWISE,
        "out = contiguous.reshape(*x.shape, 1).view(new_dtype)",
        "out = contiguous.reshape(*x.shape, 1).view(new_dtype)[..., ::-1]", LAX,
        "bitcast_convert_type to a narrower type puts the pieces of each element most significant first "
        "(XLA's order is the memory order, least significant first on little-endian machines)",
        keyword="bitcast",
    ),
    # --- special functions (lax/special.py, lax/xla_float32.py) ------------------------------------
    Mutant(
        "lax.erfc.negative_side_not_reflected", SPECIAL,
        "tail = np.where(x < 0, 2 - upper, upper)", "tail = upper", LAX + NN,
        "erfc(x) for x <= -1.5 uses the continued fraction of erfc(|x|) without the reflection 2 - erfc(|x|)",
        keyword="special",
    ),
    Mutant(
        "lax.digamma.reflection_sign", SPECIAL,
        "reflected = positive - np.pi / _tan_pi(x)", "reflected = positive + np.pi / _tan_pi(x)", LAX + NN,
        "digamma's reflection formula for x < 1/2 adds pi / tan(pi x) instead of subtracting it",
        keyword="special",
    ),
    Mutant(
        "lax.erf.float32_not_clamped", XLA_FLOAT32,
        "x = np.clip(x.astype(F32), F32(-_ERF_CLAMP), F32(_ERF_CLAMP))", "x = x.astype(F32)", LAX + NN,
        "float32 erf evaluates its rational approximation beyond the clamp, where it falls back toward 0 "
        "instead of staying at +-1",
        keyword="special",
    ),
    # --- the incomplete gamma functions (lax/incomplete_gamma.py) --------------------------------------
    Mutant(
        "lax.igamma.series_prefactor_unshifted", INCOMPLETE_GAMMA,
        "log_x, b = np.log(x), a + shift", "log_x, b = np.log(x), a", LAX,
        "the series' prefactor is x^a e^-x / Gamma(a) instead of / Gamma(a + 1): P is a times too large "
        "where x <= 1 or x <= a",
        keyword="igamma",
    ),
    Mutant(
        "lax.igammac.complement_on_the_wrong_side", INCOMPLETE_GAMMA,
        "q[ok] = np.where(fraction, scaled, 1 - scaled)", "q[ok] = np.where(fraction, 1 - scaled, scaled)", LAX,
        "igammac returns the series' P where it should return 1 - P, and 1 - Q next to the fraction",
        keyword="igamma",
    ),
    Mutant(
        "lax.incomplete_gamma.sums_stop_at_float32_precision", INCOMPLETE_GAMMA,
        "_EPS = float(np.finfo(np.float64).eps)", "_EPS = float(np.finfo(np.float32).eps)", LAX,
        "the series and the fraction stop once a term is below float32's eps: float64 results are off by 1e-8",
        keyword="igamma",
    ),
    Mutant(
        "lax.incomplete_gamma.quotient_rule_sign", INCOMPLETE_GAMMA,
        "h.append((f[k] - _leibniz(g, h, k, first=1)) / g[0] if k else f[0] / g[0])",
        "h.append((f[k] + _leibniz(g, h, k, first=1)) / g[0] if k else f[0] / g[0])", LAX,
        "the jets' division adds g' f / g^2 instead of subtracting it: every derivative in a through a quotient "
        "is wrong (igamma_grad_a, random_gamma_grad)",
        keyword="igamma",
    ),
    Mutant(
        "lax.random_gamma_grad.series_density_without_a", INCOMPLETE_GAMMA,
        "g = _where(fraction, w * x_ok, -(w / _Jet.variable(a_ok, order)) * x_ok)",
        "g = _where(fraction, w * x_ok, -w * x_ok)", LAX,
        "random_gamma_grad divides by the density without its factor a next to the series (where x <= 1 or "
        "x <= a): a times too large there",
        keyword="igamma",
    ),
    Mutant(
        "lax.igamma.zero_shape_parameter_gives_nan", INCOMPLETE_GAMMA,
        "p = np.where((a == 0) & (x >= 1), 1.0, p)", "p = p", LAX,
        "igamma(0, x) is nan for every x > 0 (JAX's sums give 1 where x >= 1)",
        keyword="igamma",
    ),
    Mutant(
        "lax.igammac.nan_at_x_zero", INCOMPLETE_GAMMA,
        "q = np.where(x == 0, 1.0, q)", "q = q", LAX,
        "igammac(a, 0) is nan instead of 1 (x = 0 is left out of the sums)",
        keyword="igamma",
    ),
    Mutant(
        "lax.igamma_grad_a.zero_shape_parameter_allowed", INCOMPLETE_GAMMA,
        "return (x < 0) | (a <= 0) | np.isnan(a) | np.isnan(x)", "return (x < 0) | (a < 0) | np.isnan(a) | np.isnan(x)",
        LAX,
        "the derivatives in a are 0 at a = x = 0 instead of nan (they need a > 0)",
        keyword="igamma",
    ),
    Mutant(
        "scipy.gammaincc.lower_function", SCIPY_SPECIAL,
        "return lax.igammac(a, x)", "return lax.igamma(a, x)", NN,
        "jax.scipy.special.gammaincc computes the lower function, P instead of Q",
        keyword="gammainc",
    ),
    # --- x.at[...] (numpy/at.py) ----------------------------------------------------------------------
    Mutant(
        "numpy.at.get_ignores_the_mode", AT,
        "if mode in (None, GatherScatterMode.PROMISE_IN_BOUNDS) and wrap_negative_indices:",
        "if wrap_negative_indices:", NUMPY,
        "x.at[i].get(mode='fill') ignores the mode and clips, as x[i] does",
        keyword="at_get",
    ),
    Mutant(
        "numpy.at.safe_cast_ignores_weak_types", AT,
        "return dtypes.result_type(values, dtype) == dtype", "return get_aval(values).dtype == dtype", NUMPY,
        "x.at[i].set(1) on an int8 (or float32) array warns that the update cannot be cast safely: the "
        "check compares dtypes and forgets that a Python scalar is weakly typed",
        keyword="at_",
    ),
    # --- counting (numpy/counting.py) --------------------------------------------------------------
    Mutant(
        "numpy.searchsorted.sides_swapped", COUNTING,
        'before = lax.lt(a_b, v_b) if side == "left" else lax.le(a_b, v_b)',
        'before = lax.le(a_b, v_b) if side == "left" else lax.lt(a_b, v_b)', NUMPY,
        "searchsorted's side='left' gives the index after equal entries and side='right' the one before",
        keyword="searchsorted",
    ),
    Mutant(
        "numpy.bincount.minlength_ignored", COUNTING,
        "        length = int(np.maximum(length, minlength))\n", "", NUMPY,
        "bincount ignores minlength when it has to find the length itself",
        keyword="bincount",
    ),
    # --- rearranging (numpy/manipulation.py) -------------------------------------------------------------
    Mutant(
        "numpy.array_split.remainder_to_the_last_piece", MANIPULATION,
        "cuts = [i * q + builtins.min(i, r) for i in range(1, parts)]", "cuts = [i * q for i in range(1, parts)]",
        NUMPY,
        "array_split puts the elements left over into the last piece instead of one more into each of "
        "the first pieces",
        keyword="split",
    ),
    Mutant(
        "numpy.roll.wrong_direction", MANIPULATION,
        "s = int(known) % n", "s = -int(known) % n", NUMPY,
        "roll by a known shift moves the elements toward the front instead of toward the end",
        keyword="roll",
    ),
    Mutant(
        "numpy.pad.reflect_repeats_the_edge", MANIPULATION,
        'if mode == "symmetric":\n        m = p % (2 * n)', 'if mode in ("symmetric", "reflect"):\n        m = p % (2 * n)',
        NUMPY,
        "pad(mode='reflect') repeats the edge element as mode='symmetric' does",
        keyword="pad",
    ),
    # --- structured arrays (numpy/structure.py) ----------------------------------------------------------
    Mutant(
        "numpy.diagonal.negative_offset_starts_in_row_zero", STRUCTURE,
        "start = offset if offset >= 0 else -offset * m", "start = offset if offset >= 0 else -offset", NUMPY,
        "diagonal with a negative offset starts at column |offset| of the first row instead of row |offset|",
        keyword="diagonal",
    ),
    Mutant(
        "numpy.tri.float64_with_x64", STRUCTURE,
        'out_dtype = np.dtype(np.float32) if dtype is None else dtypes.check_user_dtype(dtype, "tri")',
        'out_dtype = dtypes.default_dtype("f") if dtype is None else dtypes.check_user_dtype(dtype, "tri")',
        NUMPY,
        "tri without a dtype gives the default float (float64 with x64 on) instead of float32, as JAX does",
        keyword="index_grids",
    ),
    Mutant(
        "numpy.meshgrid.defaults_to_ij", STRUCTURE,
        'indexing: str = "xy") -> list[ArrayLike]:', 'indexing: str = "ij") -> list[ArrayLike]:', NUMPY,
        "meshgrid's default indexing is 'ij' instead of 'xy' (the first two axes are not swapped)",
        keyword="grids",
    ),
    # --- sorting and sets (numpy/sorting.py) ------------------------------------------------------------
    Mutant(
        "numpy.argsort.descending_ties_reversed", NP_SORTING,
        "_, idx = lax.sort((lax.rev(a, (axis,)), lax.rev(iota, (axis,))), dimension=axis, is_stable=stable, "
        "num_keys=1)",
        "_, idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)", NUMPY,
        "argsort(descending=True) reverses an ascending sort, so equal values come out last-first "
        "instead of in their original order",
        keyword="sort",
    ),
    Mutant(
        "numpy.lexsort.first_key_primary", NP_SORTING,
        "out = lax.sort((*reversed(keys), iota)", "out = lax.sort((*keys, iota)", NUMPY,
        "lexsort sorts by the first key first instead of the last",
        keyword="lexsort",
    ),
    Mutant(
        "numpy.unique.nans_distinct_by_default", NP_SORTING,
        "axis: int | None = None, *, equal_nan: bool = True,", "axis: int | None = None, *, equal_nan: bool = False,",
        NUMPY,
        "unique's equal_nan defaults to False: every NaN is a distinct value (JAX's default is True)",
        keyword="unique",
    ),
    # --- comparisons, norms, products, statistics ------------------------------------------------------
    Mutant(
        "numpy.isclose.tolerance_relative_to_a", COMPARISON,
        "lax.add(atol, lax.mul(rtol, lax.abs(b)))", "lax.add(atol, lax.mul(rtol, lax.abs(a)))", NUMPY,
        "isclose scales rtol by |a| instead of |b| (NumPy's isclose is not symmetric)",
        keyword="isclose",
    ),
    Mutant(
        "numpy.norm.matrix_one_and_inf_swapped", LINALG,
        "sums = sum(absolute(x), axis=row, keepdims=True)", "sums = sum(absolute(x), axis=col, keepdims=True)",
        NUMPY,
        "the matrix 1-norm sums along the rows (the inf-norm's sums) instead of down the columns",
        keyword="norm",
    ),
    Mutant(
        "numpy.tensordot.int_axes_leading", PRODUCTS,
        "a_axes, b_axes = tuple(range(a_ndim - n, a_ndim)), tuple(range(n))",
        "a_axes, b_axes = tuple(range(n)), tuple(range(n))", NUMPY,
        "tensordot(a, b, n) contracts a's first n axes instead of its last n",
        keyword="tensor_products",
    ),
    Mutant(
        "numpy.cross.middle_component_sign", PRODUCTS,
        "c1 = subtract(multiply(a2, b0), multiply(a0, b2))", "c1 = subtract(multiply(a0, b2), multiply(a2, b0))",
        NUMPY,
        "the cross product's second component has the wrong sign",
        keyword="tensor_products",
    ),
    Mutant(
        "numpy.std.ddof_ignored", NP_REDUCTIONS,
        "return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))",
        "return lax.sqrt(var(a, axis, dtype, out, 0, keepdims, where=where, mean=mean, correction=correction))",
        NUMPY,
        "std drops ddof on its way to var: std(x, ddof=1) is the population standard deviation",
        keyword="statistic",
    ),
    # --- didax.random (prng.py, random/distributions.py) --------------------------------------------
    Mutant(
        "random.threefry.rotation_constant", PRNG,
        "ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))", "ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 23))",
        RANDOM,
        "one of Threefry's rotation distances is 23 instead of 24",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.threefry.key_words_swapped", PRNG,
        "x0, x1 = lax.add(x0, ks[0]), lax.add(x1, ks[1])", "x0, x1 = lax.add(x0, ks[1]), lax.add(x1, ks[0])",
        RANDOM,
        "Threefry's first key injection adds the key's two words to the wrong counter words",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.seed.low_word_first", PRNG,
        "words = [lax.convert_element_type(w, UINT32) for w in (high, seeds)]",
        "words = [lax.convert_element_type(w, UINT32) for w in (seeds, high)]", RANDOM,
        "PRNGKey(seed) stores the seed's words as [lo, hi] instead of [hi, lo]",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.fold_in.data_in_the_high_word", PRNG,
        # (the call's end only: from stage 05 the hash is a parameter, `hash(k0, k1, u32(0), data)`)
        "k1, u32(0), data)", "k1, data, u32(0))", RANDOM,
        "fold_in hashes the counter (data, 0) instead of (0, data)",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.uniform.low_mantissa_bits", DISTRIBUTIONS,
        "mantissa = lax.shift_right_logical(bits, const(rng_bits - finfo.nmant, uint))",
        "mantissa = lax.bitwise_and(bits, const(2**finfo.nmant - 1, uint))", RANDOM,
        "uniform fills the mantissa with the lowest random bits instead of the highest (same distribution, "
        "other numbers than JAX's)",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.normal.missing_sqrt2", DISTRIBUTIONS,
        "return lax.mul(const(math.sqrt(2), dtype), lax.erf_inv(u))", "return lax.erf_inv(u)", RANDOM,
        "normal forgets the factor sqrt(2): samples have standard deviation 1/sqrt(2)",
    ),
    Mutant(
        "random.randint.key_halves_swapped", DISTRIBUTIONS,
        "higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)",
        "higher_bits, lower_bits = random_bits(k2, nbits, shape), random_bits(k1, nbits, shape)", RANDOM,
        "randint takes its high bits from the second split key and its low bits from the first",
        keyword="jaxs_numbers",
    ),
    # --- didax.nn (nn/functions.py, nn/initializers.py), didax.scipy.special --------------------------
    Mutant(
        "nn.gelu.approximate_flag_inverted", NN_FUNCTIONS,
        "    if approximate:\n        sqrt_2_over_pi", "    if not approximate:\n        sqrt_2_over_pi", NN,
        "gelu uses the exact erfc form by default and the tanh approximation when approximate=False",
        keyword="activation or gelu",
    ),
    Mutant(
        "nn.one_hot.negative_axis_off_by_one", NN_FUNCTIONS,
        "out_axis = canonicalize_axis(axis, aval.ndim + 1)", "out_axis = canonicalize_axis(axis, aval.ndim)", NN,
        "one_hot counts a negative axis from the end of the input's axes instead of the result's",
        keyword="one_hot",
    ),
    Mutant(
        "nn.initializers.fans_ignore_the_batch_axes", INITIALIZERS,
        "receptive_field = math.prod(shape) / in_size / out_size / batch_size",
        "receptive_field = math.prod(shape) / in_size / out_size", NN,
        "variance_scaling counts batch axes into the receptive field, so the fans grow with the batch size",
        keyword="initializer",
    ),
    Mutant(
        "nn.initializers.uniform_without_the_factor_3", INITIALIZERS,
        "return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)",
        "return random.uniform(key, shape, dtype, -1) * jnp.sqrt(variance)", NN,
        "variance_scaling's uniform distribution spans [-sqrt(v), sqrt(v)), whose variance is v/3, not v",
        keyword="initializer",
    ),
    Mutant(
        "scipy.xlogy.naive_product", SCIPY_SPECIAL,
        "log_y = log(jnp.where(keep | finite_log, y, 1.0 if pole == 0.0 else 0.0))",
        "log_y = log(y)", NN,
        "xlogy is x * log(y) with no special case: xlogy(0, 0) is NaN instead of 0",
        keyword="xlogy",
    ),
    Mutant(
        "scipy.xlogy.nan_is_zero", SCIPY_SPECIAL,
        "keep = (x != 0.0) | lax.ne(y, y)", "keep = x != 0.0", NN,
        "xlogy(0, nan) is 0, where SciPy and JAX let the NaN through",
        keyword="xlogy",
    ),
    # --- writers, bits, polynomials, histograms of several dimensions, ufunc objects (npmore) ----------
    Mutant(
        "numpy.put.wrap_clips", UPDATES,
        'ind_arr, scatter_mode = remainder(ind_arr, size), "promise_in_bounds"',
        'ind_arr, scatter_mode = clip(ind_arr, 0, size - 1), "promise_in_bounds"', NUMPY,
        "put's mode='wrap' clips out-of-range positions instead of wrapping them",
        keyword="put_matches",
    ),
    Mutant(
        "numpy.put_along_axis.first_axis_always", UPDATES,
        "index[canonicalize_axis(axis, ndim)] = indices", "index[0] = indices", NUMPY,
        "put_along_axis writes along the first axis whatever axis is named",
        keyword="put_along_axis",
    ),
    Mutant(
        "numpy.place.padding_in_range", UPDATES,
        "(positions,) = nonzero(ravel(mask_arr), size=size, fill_value=size)",
        "(positions,) = nonzero(ravel(mask_arr), size=size, fill_value=0)", NUMPY,
        "place pads its positions with 0, not an out-of-range one, so surplus values land on element 0",
        keyword="place_matches",
    ),
    Mutant(
        "numpy.packbits.bit_order_swapped", BITS,
        'return lax.sub(convert(7, _UINT8), positions) if bitorder == "big" else positions',
        'return lax.sub(convert(7, _UINT8), positions) if bitorder == "little" else positions', NUMPY,
        "packbits and unpackbits take the first bit as the lowest for bitorder='big' (and the reverse)",
        keyword="packbits",
    ),
    Mutant(
        "numpy.packbits.pads_in_front", BITS,
        "[(0, 0, 0)] * len(batch) + [(0, 8 - n % 8, 0)]", "[(0, 0, 0)] * len(batch) + [(8 - n % 8, 0, 0)]", NUMPY,
        "packbits pads a short last run of bits at its front, not its end",
        keyword="packbits",
    ),
    Mutant(
        "numpy.unpackbits.count_pads_ones", BITS,
        "bits = lax.pad(bits, convert(0, _UINT8), [(0, 0, 0)] * len(batch) + [(0, count - n * 8, 0)])",
        "bits = lax.pad(bits, convert(1, _UINT8), [(0, 0, 0)] * len(batch) + [(0, count - n * 8, 0)])", NUMPY,
        "unpackbits pads with ones when count asks for more bits than there are",
        keyword="packbits",
    ),
    Mutant(
        "numpy.polyadd.aligned_at_the_front", POLYNOMIAL,
        "return a1.at[-shape2[0]:].add(a2)", "return a1.at[: shape2[0]].add(a2)", NUMPY,
        "polyadd adds the shorter polynomial to the highest powers of the longer one",
        keyword="polyadd",
    ),
    Mutant(
        "numpy.polydiv.adds_the_multiple", POLYNOMIAL,
        "u = u.at[k : k + n + 1].add(multiply(negative(d), v))", "u = u.at[k : k + n + 1].add(multiply(d, v))", NUMPY,
        "polydiv's long division adds each multiple of the divisor instead of subtracting it",
        keyword="polydiv",
    ),
    Mutant(
        "numpy.polyder.factors_not_reversed", POLYNOMIAL,
        "factors = lax.rev(prod(grid, axis=0), (0,))", "factors = prod(grid, axis=0)", NUMPY,
        "polyder multiplies the highest power's coefficient by the lowest power's factor",
        keyword="polyder",
    ),
    Mutant(
        "numpy.polyint.zero_divisors", POLYNOMIAL,
        "divisors = lax.rev(prod(maximum(1, grid), axis=0), (0,))", "divisors = lax.rev(prod(grid, axis=0), (0,))",
        NUMPY, "polyint divides the integration constants by zero (the grid is not raised to at least 1)",
        keyword="polyint",
    ),
    Mutant(
        "numpy.poly.roots_not_negated", POLYNOMIAL,
        "factor = concatenate([ones((1,), dtype=dt), negative(lax.index_in_dim(roots, k))])",
        "factor = concatenate([ones((1,), dtype=dt), lax.index_in_dim(roots, k)])", NUMPY,
        "poly builds prod(x + root) instead of prod(x - root)",
        keyword="poly_matches",
    ),
    Mutant(
        "numpy.histogram_bin_edges.one_edge_short", COUNTING,
        "return linspace(lo, hi, bins + 1, dtype=dtype)", "return linspace(lo, hi, bins, dtype=dtype)", NUMPY,
        "histogram_bin_edges makes bins edges for bins bins, one bin too few",
        keyword="histogram",
    ),
    Mutant(
        "numpy.histogramdd.last_edge_open", COUNTING,
        "index = where(lax.eq(column, last), lax.sub(index, lax.full((), 1, np.dtype(np.int32))), index)",
        "index = where(lax.gt(column, last), lax.sub(index, lax.full((), 1, np.dtype(np.int32))), index)", NUMPY,
        "histogramdd drops points on the last edge (NumPy's last bin is closed)",
        keyword="histogram2d",
    ),
    Mutant(
        "numpy.histogramdd.density_ignores_widths", COUNTING,
        "            hist = true_divide(hist, width)\n", "            hist = hist\n", NUMPY,
        "histogramdd's density is a fraction of the points, not divided by the cells' widths",
        keyword="histogram2d",
    ),
    Mutant(
        "numpy.mask_indices.k_ignored", STRUCTURE,
        "rows, cols = nonzero(mask_func(ones((n, n)), k), size=size)",
        "rows, cols = nonzero(mask_func(ones((n, n)), 0), size=size)", NUMPY,
        "mask_indices always masks the main diagonal's triangle, whatever k is",
        keyword="mask_indices",
    ),
    Mutant(
        "numpy.frombuffer.offset_ignored", CREATION,
        "asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))",
        "asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count))", NUMPY,
        "frombuffer reads from the start of the buffer whatever the offset",
        keyword="frombuffer",
    ),
    Mutant(
        "numpy.scalar_types.double_is_single", SCALAR_TYPES,
        "single, double, csingle, cdouble = float32, float64, complex64, complex128",
        "single, double, csingle, cdouble = float32, float32, complex64, complex128", NUMPY,
        "jnp.double names float32 (NumPy's double is float64)",
        keyword="dtype_names",
    ),
    Mutant(
        "dtypes.narrow_ints_not_signed", DTYPES,
        "return category in (np.signedinteger, np.integer, np.number, np.generic)",
        "return category in (np.integer, np.number, np.generic)", NUMPY,
        "issubdtype does not place int4 (and int1, int2) below signedinteger",
        keyword="narrow",
    ),
    Mutant(
        "lax.convert_element_type.no_complex_warning", ELEMENTWISE,
        'if new_dtype.kind != "c" and _is_complex(operand):', "if False:", NUMPY,
        "casting complex values to a real type drops the imaginary part without NumPy's ComplexWarning",
        keyword="complex_warning",
    ),
    Mutant(
        "numpy.cumsum.weak_scalar_has_no_axis", NP_REDUCTIONS,
        "if axis is None or (aval.ndim == 0 and aval.weak_type):", "if axis is None:", NUMPY,
        "cumsum(2.0, axis=0) fails: a Python scalar is not run as a one-element array, as JAX does",
        keyword="python_scalar_runs",
    ),
    Mutant(
        "numpy.ufunc.reduce_default_axis_none", UFUNC_API,
        "self, a: ArrayLike, axis: int | None = 0, dtype: Any = None, out: None = None, keepdims: bool = False,",
        "self, a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None, keepdims: bool = False,",
        NUMPY, "ufunc.reduce reduces every axis by default (NumPy's and JAX's default is axis 0)",
        keyword="ufunc",
    ),
    Mutant(
        "numpy.ufunc.fold_skips_initial", UFUNC_API,
        "start = 1 if initial is None else 0", "start = 1", NUMPY,
        "a ufunc's derived reduce with an initial value (or identity) skips the first element",
        keyword="frompyfunc",
    ),
    Mutant(
        "numpy.ufunc.accumulate_swaps_operands", UFUNC_API,
        "value = self(astype(value, dtype), astype(lax.index_in_dim(arr, i, keepdims=False), dtype))",
        "value = self(astype(lax.index_in_dim(arr, i, keepdims=False), dtype), astype(value, dtype))", NUMPY,
        "a ufunc's derived accumulate folds with the operands swapped (subtract.accumulate is wrong)",
        keyword="accumulate or frompyfunc",
    ),
    Mutant(
        "numpy.ufunc.at_once_per_place", UFUNC_API,
        "        if not shape:  # one place (or one block of slices): a single update\n",
        "        if True:  # one place (or one block of slices): a single update\n", NUMPY,
        "a ufunc's derived at applies a repeated index once, not once per repeat",
        keyword="ufunc_at or frompyfunc",
    ),
    Mutant(
        "numpy.ufunc.reduceat_counts_the_start_twice", UFUNC_API,
        "inside = ufuncs.logical_and(ufuncs.less(start, i), ufuncs.greater(end, i))",
        "inside = ufuncs.logical_and(ufuncs.less_equal(start, i), ufuncs.greater(end, i))", NUMPY,
        "reduceat folds each segment's first element in twice",
        keyword="reduceat or frompyfunc",
    ),
    Mutant(
        "numpy.ufunc.outer_is_elementwise", UFUNC_API,
        "return self(lax.reshape(A, a_shape + (1,) * b_ndim), B)", "return self(A, B)", NUMPY,
        "ufunc.outer applies the function elementwise (broadcasting) instead of to every pair",
        keyword="outer or frompyfunc",
    ),
    Mutant(
        "numpy.ufunc.logsumexp_drops_the_maximum", UFUNC_API,
        "result = lax.add(lax.log(sumexp), convert(amax, get_aval(sumexp).dtype))", "result = lax.log(sumexp)",
        NUMPY, "logaddexp.reduce subtracts the maximum before exponentiating and never adds it back",
        keyword="ufunc_reduce",
    ),
    Mutant(
        "numpy.ufunc.bitwise_and_identity_zero", UFUNC_API,
        'bitwise_and = _binary(ufuncs.bitwise_and, -1, reduce=_bit_reduction("reduce_bitwise_and", lax.reduce_and, -1,',
        'bitwise_and = _binary(ufuncs.bitwise_and, 0, reduce=_bit_reduction("reduce_bitwise_and", lax.reduce_and, -1,',
        NUMPY, "jnp.bitwise_and.identity is 0, not -1 (all bits set)",
        keyword="ufunc_objects",
    ),
    # --- didax.tree, and lax's composite helpers (lax/structural.py) ----------------------------------
    Mutant(
        "tree.static_field_not_marked", TREE_MODULE,
        'metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}',
        'metadata = dict(kwargs.pop("metadata", None) or {})', PYTREES,
        "didax.tree.static() makes a plain dataclass field: register_dataclass then treats it as data",
    ),
    Mutant(
        "lax.slice_in_dim.negative_limit_not_wrapped", STRUCTURAL,
        "start, limit = (start + size if start < 0 else start), (limit + size if limit < 0 else limit)",
        "start, limit = (start + size if start < 0 else start), limit", LAX + NUMPY,
        "slice_in_dim counts a negative start from the end but not a negative limit",
        keyword="slice_in_dim",
    ),
    Mutant(
        "lax.index_in_dim.keepdims_default_false", STRUCTURAL,
        "def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:",
        "def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = False) -> Any:", LAX,
        "index_in_dim drops the indexed axis by default (JAX keeps it: keepdims=True)",
        keyword="index_in_dim",
    ),
    Mutant(
        "lax.full_like.drops_the_weak_type", STRUCTURAL,
        "new_dtype, weak = aval.dtype, aval.weak_type", "new_dtype, weak = aval.dtype, False", LAX,
        "lax.full_like of a weakly typed array gives a strongly typed result",
        keyword="full",
    ),
    Mutant(
        "lax.max.numpy_signed_zeros", ELEMENTWISE,
        "return sign_zeros(out, preferred_zeros(x, False) | preferred_zeros(y, False), negative=False)",
        "return out", LAX + NUMPY,
        "lax.max returns NumPy's second zero: max(0.0, -0.0) is -0.0 (XLA: 0.0)",
        keyword="max",
    ),
    Mutant(
        "lax.reduce_min.numpy_signed_zeros", LAX_REDUCTIONS,
        "return sign_zeros(out, np.any(preferred_zeros(x, negative), axis=axes), negative)",
        "return out", LAX + NUMPY,
        "reduce_max/reduce_min keep whichever zero NumPy met last (XLA: +0.0 for max, -0.0 for min)",
        keyword="max or min",
    ),
    # --- typed PRNG keys: the key<fry> dtype, key arrays, structural operations on their words ----------
    Mutant(
        "keys.reshape.words_axis_dropped", STRUCTURAL,
        "return reshape_p.bind(x, new_sizes=(*new_sizes, *key_shape), dimensions=dimensions)",
        "return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dimensions)", RANDOM,
        "reshaping keys reshapes their words to the keys' shape, forgetting the words' trailing axis",
        keyword="structural_operations or typed_key",
    ),
    Mutant(
        "keys.transpose.words_axis_first", STRUCTURAL,
        "permutation=(*permutation, *trailing_axes(len(permutation), key_shape))",
        "permutation=(*trailing_axes(len(permutation), key_shape), *permutation)", RANDOM,
        "transposing keys moves the words' axis to the front",
        keyword="structural_operations",
    ),
    Mutant(
        "keys.slice.first_word_only", STRUCTURAL,
        "limit_indices=(*limit_indices, *key_shape),", "limit_indices=(*limit_indices, *(1 for _ in key_shape)),",
        RANDOM, "slicing keys keeps only the first word of each key",
        keyword="structural_operations or typed_key",
    ),
    Mutant(
        "keys.select_n.which_not_spread", STRUCTURAL,
        "    shape = get_aval(which).shape\n    if shape:", "    shape = get_aval(which).shape\n    if False:", RANDOM,
        "selecting keys does not spread the predicate over the words' axis",
        keyword="structural_operations",
    ),
    Mutant(
        "keys.gather.words_axis_first", SLICING,
        "dn = dn._replace(offset_dims=(*dn.offset_dims, *trailing_axes(out_rank, key_shape)))",
        "dn = dn._replace(offset_dims=(*trailing_axes(0, key_shape), *(d + 1 for d in dn.offset_dims)))", RANDOM,
        "gathering keys puts the words' axis first in the output",
        keyword="structural_operations",
    ),
    Mutant(
        "keys.scatter.words_not_a_window", SLICING,
        "dn = dn._replace(update_window_dims=(*dn.update_window_dims, *trailing_axes(updates_rank, key_shape)))",
        "dn = dn._replace(update_window_dims=dn.update_window_dims)",
        RANDOM, "writing keys with .at[].set does not take the words' axis as part of each update window",
        keyword="structural_operations",
    ),
    Mutant(
        "keys.shape.shows_the_words", ARRAY,
        "return self._value.shape[: self._value.ndim - len(self._impl.key_shape)]", "return self._value.shape",
        RANDOM, "a key array's shape includes its words' axis: key(0) has shape (2,)",
        keyword="typed_key or structural_operations",
    ),
    Mutant(
        "keys.issubdtype.not_a_prng_key", DTYPES,
        "return isinstance(category, type) and issubclass(dtype.type, category)", "return False", RANDOM,
        "issubdtype(key.dtype, prng_key) is False: a key dtype is under no category",
        keyword="typed_key",
    ),
    Mutant(
        "keys.promotion.keys_join_anything", DTYPES,
        "    if len(kinds) == 1:\n        return kinds.pop(), False",
        "    if True:\n        return next(k for k in kinds if isinstance(k, ExtendedDType)), False", RANDOM,
        "keys promote with numbers to the key dtype: keys + 1 reaches lax.add instead of naming both dtypes",
        keyword="arithmetic_on_keys",
    ),
    Mutant(
        "keys.promotion.no_function_name", UTIL,
        "    if any(dtypes.is_key_dtype(k) for k in kinds):", "    if False:", RANDOM,
        "keys + 1 raises promotion's ValueError, not JAX's TypeError naming the function and both dtypes",
        keyword="arithmetic_on_keys",
    ),
    Mutant(
        "keys.convert_element_type.allowed", ELEMENTWISE,
        "    if isinstance(x.dtype, dtypes.ExtendedDType) or isinstance(new_dtype, dtypes.ExtendedDType):\n",
        "    if False:\n", RANDOM,
        "convert_element_type does not refuse keys: converting keys to uint32 fails later, with another error",
        keyword="arithmetic_on_keys",
    ),
    Mutant(
        "keys.split.raw_key_gives_typed_keys", PRNG,
        "return random_unwrap_p.bind(keys) if wrapped else keys", "return keys", RANDOM,
        "split and fold_in of a raw uint32 key return typed keys instead of raw ones",
        keyword="jaxs_numbers or typed",
    ),
    Mutant(
        "keys.seed.key_is_raw", PRNG,
        '    return _seed("key", seed, impl)', '    return random_unwrap_p.bind(_seed("key", seed, impl))', RANDOM,
        "random.key makes a raw uint32[2] key, as PRNGKey does (didax before typed keys)",
        keyword="typed_key",
    ),
    Mutant(
        "random.bernoulli.high_is_low", DISTRIBUTIONS,
        'if mode == "low":\n        return jnp.less(', 'if True:\n        return jnp.less(', RANDOM,
        "bernoulli ignores mode='high' and draws one uniform per value",
        keyword="bernoulli",
    ),
    Mutant(
        "random.random_gamma.log_space_ignored", DISTRIBUTIONS,
        "_gamma_all(keys, lax.reshape(a, (size,)), log_space)",
        "_gamma_all(keys, lax.reshape(a, (size,)), False)", RANDOM,
        "random_gamma's evaluation ignores its log_space parameter: loggamma gives gamma's samples, not their logs",
        keyword="gamma",
    ),
    # The samplers made from the others (cauchy, laplace, logistic, rademacher, t, ball, poisson).
    Mutant(
        "random.cauchy.not_centred", DISTRIBUTIONS,
        "lax.mul(const(np.pi, dtype), lax.sub(u, const(0.5, dtype)))", "lax.mul(const(np.pi, dtype), u)", RANDOM,
        "cauchy takes tan(pi u) instead of tan(pi (u - 1/2)): the same distribution (tan has period pi), "
        "other numbers than JAX's",
        keyword="cauchy",
    ),
    Mutant(
        "random.laplace.sign_dropped", DISTRIBUTIONS,
        "lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))", "lax.log1p(lax.neg(lax.abs(u)))", RANDOM,
        "laplace forgets the sign of u: every sample is negative",
        keyword="laplace",
    ),
    Mutant(
        "random.logistic.log1p_of_plus_u", DISTRIBUTIONS,
        "return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))", "return lax.sub(lax.log(u), lax.log1p(u))", RANDOM,
        "logistic subtracts log(1 + u) instead of log(1 - u)",
        keyword="logistic",
    ),
    Mutant(
        "random.rademacher.not_doubled", DISTRIBUTIONS,
        "jnp.subtract(jnp.multiply(2, b), 1)", "jnp.subtract(b, 1)", RANDOM,
        "rademacher returns b - 1 (0 or -1) instead of 2 b - 1",
        keyword="rademacher",
    ),
    Mutant(
        "random.t.keys_swapped", DISTRIBUTIONS,
        "key_n, key_g = first_keys(key, 2)", "key_g, key_n = first_keys(key, 2)", RANDOM,
        "t draws its normal with the gamma's key and its gamma with the normal's (same distribution, other "
        "numbers than JAX's)",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.t.df_not_halved", DISTRIBUTIONS,
        "half_df = lax.div(df, const(2, dtype))", "half_df = df", RANDOM,
        "t uses Gamma(df) / df instead of Gamma(df/2) / (df/2): the wrong distribution",
        keyword="jaxs_numbers",
    ),
    Mutant(
        "random.ball.radius_power_p", DISTRIBUTIONS,
        "jnp.sum(_unknown_power(jnp.abs(g), p), axis=-1), e), jnp.divide(1, p))",
        "jnp.sum(_unknown_power(jnp.abs(g), p), axis=-1), e), p)", RANDOM,
        "ball divides by (sum |g|^p + e)^p instead of its p-th root: points fall outside the unit ball",
        keyword="ball",
    ),
    Mutant(
        "random.poisson.knuth_up_to_12", DISTRIBUTIONS,
        "jnp.less(lam, 10))", "jnp.less(lam, 12))", RANDOM,
        "poisson switches from Knuth's loop to rejection at lam = 12 instead of 10 (same distribution, other "
        "numbers than JAX's for 10 <= lam < 12)",
        keyword="poisson",
    ),
    Mutant(
        "random.poisson.rejection_shift", DISTRIBUTIONS,
        "jnp.add(jnp.add(k, lam), 0.43)", "jnp.add(jnp.add(k, lam), 0.5)", RANDOM,
        "Hormann's candidate floor((2a/u' + b) u + lam + 0.43) with 0.5 for 0.43",
        keyword="poisson",
    ),
    Mutant(
        "random.poisson.knuth_count_not_less_one", DISTRIBUTIONS,
        "return jnp.astype(jnp.subtract(k, 1), dtype)", "return jnp.astype(k, dtype)", RANDOM,
        "Knuth's count of uniform factors is returned as it is, not less one: every small-lam sample one too many",
        keyword="poisson",
    ),
    Mutant(
        "matmul.free_axes_misplaced", "didax/numpy/shapes.py",
        "    order = batch + a_other + [nb] * a_is_mat + b_other + [nb + a_is_mat] * b_is_mat",
        "    order = batch + a_other + b_other + [nb] * a_is_mat + [nb + a_is_mat] * b_is_mat",
        NUMPY, "matmul puts a's row axis after b's batch axes: (2, 3) @ (5, 3, 4) comes out (2, 5, 4)",
        keyword="matmul",
    ),
    Mutant(
        "view.complex_parts_swapped", "didax/numpy/array_methods.py",
        "        return parts[..., 0::2] + 1j * parts[..., 1::2]",
        "        return parts[..., 1::2] + 1j * parts[..., 0::2]",
        NUMPY, "a view as complex reads each pair of floats as (imaginary, real)", keyword="view",
    ),
    Mutant(
        "view.complex_source_parts_swapped", "didax/numpy/array_methods.py",
        "        pairs = shapes.stack([ufuncs.real(self), ufuncs.imag(self)], axis=-1)",
        "        pairs = shapes.stack([ufuncs.imag(self), ufuncs.real(self)], axis=-1)",
        NUMPY, "a view of a complex array lays out the imaginary part first", keyword="view",
    ),
    Mutant(
        "view.scalar_itemsize_unchecked", "didax/numpy/array_methods.py",
        "        if bits_in != bits_out:\n            raise ValueError(",
        "        if False:\n            raise ValueError(",
        NUMPY, "a 0-d array viewed as another item size is not JAX's ValueError", keyword="view",
    ),
    Mutant(
        "printing.weak_type_tilde_dropped", "didax/core.py",
        """return f"{'~' if self.weak_type else ''}{self.str_short()}\"""", "return self.str_short()", PROMOTION,
        "str(ShapedArray) drops JAX's ~ for a weak type: ~float32[] prints as float32[], a traced Python float "
        "looks like a float32 one", keyword="prints",
    ),
    Mutant(
        "fft.irfft.default_length_odd", "didax/numpy/fft.py",
        "lengths[-1] = max(0, 2 * (lengths[-1] - 1))", "lengths[-1] = max(0, 2 * lengths[-1] - 1)", NUMPY,
        "irfft of m bins gives 2m - 1 points by default, not NumPy's 2(m - 1)", keyword="transforms",
    ),
    Mutant(
        "fft.ortho.scale_inverted", "didax/numpy/fft.py",
        "return math.sqrt(n) if inverse else 1 / math.sqrt(n)", "return 1 / math.sqrt(n) if inverse else math.sqrt(n)",
        NUMPY, "norm='ortho' multiplies the forward transforms by sqrt(n) and divides the inverse ones",
        keyword="transforms",
    ),
    Mutant(
        "fft.resize.pads_at_the_front", "didax/numpy/fft.py",
        "[(0, max(n - d, 0), 0) for n, d", "[(max(n - d, 0), 0, 0) for n, d", NUMPY,
        "a transform of more points than the input pads the zeros before the values, not after",
        keyword="transforms",
    ),
    Mutant(
        "fft.blocks.inverse_innermost_first", "didax/numpy/fft.py",
        "    if kind in (FftType.FFT, FftType.RFFT):\n        x = lax.fft(x, kind, lengths[-inner:])",
        "    if kind in (FftType.FFT, FftType.RFFT, FftType.IRFFT):\n        x = lax.fft(x, kind, lengths[-inner:])",
        NUMPY, "irfftn over four axes or more does the real block first, before the complex outer ones",
        keyword="transforms",
    ),
    Mutant(
        "lax.fft.rfft_keeps_every_bin", "didax/lax/fourier.py",
        "return batch + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)", "return batch + fft_lengths", LAX,
        "RFFT's type says n bins where the half spectrum has n // 2 + 1", keyword="fft",
    ),
    Mutant(
        "lax.reduce_precision.ties_round_up", ELEMENTWISE,
        "bias = ((bits & last_kept) >> shift) + (last_kept >> one) - one", "bias = last_kept >> one", LAX,
        "reduce_precision rounds ties up (away from zero), not to the even neighbour", keyword="reduce_precision",
    ),
    Mutant(
        "lax.reduce_precision.smallest_normal_flushed", ELEMENTWISE,
        "underflows = exponent <= (word(bias - reduced_bias)", "underflows = exponent <= (word(bias - reduced_bias + 1)",
        LAX, "reduce_precision flushes the format's smallest normal binade to zero too", keyword="reduce_precision",
    ),
    Mutant(
        "lax.conv.same_odd_pad_first", CONV,
        'pads.append((small, large) if kind == "SAME" else (large, small))',
        'pads.append((large, small) if kind == "SAME" else (small, large))', LAX,
        "'SAME' puts an odd pad before the input and 'SAME_LOWER' after it, the other way round", keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.conv.spatial_axes_in_the_inputs_order", CONV,
        'kernel_order = [c for c in specs[1] if c not in "OI"]', 'kernel_order = [c for c in specs[0] if c not in "NC"]',
        LAX, "letter dimension numbers order the spatial axes as the input's spec has them, not the kernel's",
        keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.conv.batch_groups_interleaved", CONV,
        "rows = windows.reshape(b, n // b, g, i, *sizes, *kernel)",
        "rows = windows.reshape(n // b, b, g, i, *sizes, *kernel).swapaxes(0, 1)", LAX,
        "batch group k holds every k-th batch member instead of the k-th block of them", keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.conv.batch_not_divided_by_its_groups", CONV,
        "out = (lhs.shape[lhs_spec[0]] // batch_group_count, rhs.shape[rhs_spec[0]],",
        "out = (lhs.shape[lhs_spec[0]], rhs.shape[rhs_spec[0]],", LAX,
        "with batch groups the output keeps the whole batch, not one group's share of it", keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.conv.narrower_result_accepted", CONV,
        "    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:\n",
        "    if False:\n", LAX, "preferred_element_type may narrow the result (float32 inputs to float16)",
        keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.conv_transpose.kernel_not_flipped", CONV,
        "        rhs = rev(rhs, numbers.rhs_spec[2:])\n", "", LAX,
        "conv_transpose with transpose_kernel=True swaps the kernel's feature axes but does not flip its window",
        keyword=CONV_TESTS,
    ),
    Mutant(
        "numpy.correlate.longer_second_not_swapped", "didax/numpy/counting.py",
        "        if n < m:  # NumPy slides the shorter one", "        if False:  # NumPy slides the shorter one", LAX,
        "jnp.correlate of a shorter first argument slides it as the kernel instead of swapping and reversing",
        keyword=CONV_TESTS,
    ),
    Mutant(
        "lax.window.max_pads_with_zero", "didax/lax/windowed.py",
        'reduce_window_max_p = _monoid("reduce_window_max", _max, _max_identity, ANY)',
        'reduce_window_max_p = _monoid("reduce_window_max", _max, lambda dtype: 0, ANY)', LAX,
        "a windowed max pads with zeros instead of the lowest value: a window of negatives next to a pad gives 0",
        keyword="windows",
    ),
    Mutant(
        "lax.window.dilation_read_as_stride", "didax/lax/windowed.py",
        "    offsets = tuple(slice(None, None, d) for d in window_dilation)\n",
        "    offsets = tuple(slice(None, None, 1) for d in window_dilation)\n", LAX,
        "window_dilation spreads the window's span but every element of the span is reduced", keyword="windows",
    ),
    Mutant(
        "lax.window.fold_counts_pads_and_holes", "didax/lax/windowed.py", "        if real is not None:\n",
        "        if False:\n", LAX,
        "another computation's reduce_window combines its pads and holes (the initial value) as if they were "
        "elements: a sum from 0.5 over a pad and x gives 1 + x", keyword="windows",
    ),
    Mutant(
        "lax.window.fold_ignores_window_dilation", "didax/lax/windowed.py",
        "start = tuple(o * d for o, d in zip(offset, window_dilation))", "start = tuple(offset)", LAX,
        "another computation's reduce_window reads a dilated window's elements side by side", keyword="windows",
    ),
    Mutant(
        "lax.window.same_pads_from_the_spread_shape", "didax/lax/windowed.py",
        "pads = padtype_to_pads(aval.shape, dilate_shape(window_dimensions, dilation), strides, padding)",
        "pads = padtype_to_pads(dilate_shape(aval.shape, base), dilate_shape(window_dimensions, dilation), strides, "
        "padding)", LAX,
        "'SAME' pads are computed from the operand spread out by base_dilation, not from its shape, as JAX does",
        keyword="windows",
    ),
    Mutant(
        "lax.cholesky.failure_gives_zeros", "didax/lax/linalg.py",
        "return np.full(a.shape, np.nan, a.dtype)", "return np.zeros(a.shape, a.dtype)", LAX,
        "a matrix that is not positive definite factors to zeros instead of NaNs", keyword="linalg",
    ),
    Mutant(
        "lax.cholesky.not_symmetrized", "didax/lax/linalg.py",
        "    if symmetrize_input:\n        x = symmetrize(x)\n    return tril(", "    return tril(", LAX,
        "cholesky ignores symmetrize_input and reads the lower triangle only", keyword="linalg",
    ),
    Mutant(
        "lax.linalg.tril_is_triu", "didax/lax/linalg.py",
        "keep = ge(rows, cols) if lower else ge(cols, rows)", "keep = ge(cols, rows) if lower else ge(rows, cols)", LAX,
        "the lower triangle a factor keeps is the upper one", keyword="linalg",
    ),
    Mutant(
        "lax.triangular_solve.conjugate_dropped", "didax/lax/linalg.py",
        "    if conjugate_a and not transpose_a:\n        a = np.conj(a)\n", "", LAX,
        "conjugate_a without transpose_a solves with A itself", keyword="linalg",
    ),
    Mutant(
        "lax.triangular_solve.side_swapped", "didax/lax/linalg.py",
        "side=int(not left_side)", "side=int(left_side)", LAX,
        "left_side=True solves X op(A) = B (and False op(A) X = B)", keyword="linalg",
    ),
    Mutant(
        "scipy.cho_solve.second_solve_not_transposed", "didax/scipy/linalg.py",
        "transpose_a=lower, conjugate_a=lower)", "transpose_a=not lower, conjugate_a=lower)", LAX,
        "cho_solve's second solve uses the factor the same way as the first: it solves L L x = b", keyword="linalg",
    ),
    Mutant(
        "lax.lu.swaps_in_reverse", "didax/lax/linalg.py",
        "for i, j in enumerate(pivots[index]):", "for i, j in reversed(list(enumerate(pivots[index]))):", LAX,
        "the permutation applies LU's row swaps last to first", keyword="linalg",
    ),
    Mutant(
        "lax.lu.pivots_from_one", "didax/lax/linalg.py",
        "factors[index], pivots[index], _ = getrf(x[index])",
        "factors[index], pivots[index], _ = getrf(x[index]); pivots[index] += 1", LAX,
        "the pivots are counted from 1, as LAPACK counts them, not from 0 as JAX does", keyword="linalg",
    ),
    Mutant(
        "numpy.slogdet.negative_diagonal_ignored", LINALG,
        "        swaps = lax.add(swaps, _count(lax.lt(u_diagonal, zero)))\n", "", LAX,
        "a real determinant's sign counts the row swaps but not U's negative diagonal entries", keyword="linalg",
    ),
    Mutant(
        "numpy.lu_solve.transposed_rows_not_put_back", LINALG,
        "lax.expand_dims(argsort(permutation, axis=-1), (-1,))", "lax.expand_dims(permutation, (-1,))", LAX,
        "the transposed solve permutes its result's rows by the permutation, not by its inverse", keyword="linalg",
    ),
    Mutant(
        "numpy.det.three_by_three_term_sign", LINALG,
        "- e(0, 2) * e(1, 1) * e(2, 0)", "+ e(0, 2) * e(1, 1) * e(2, 0)", LAX,
        "one of the six terms of a 3 by 3 determinant is added where it is subtracted", keyword="linalg",
    ),
    Mutant(
        "numpy.matrix_power.negative_not_inverted", LINALG, "a, n = inv(a), -n", "n = -n", LAX,
        "a negative power multiplies a itself, not its inverse", keyword="linalg",
    ),
    Mutant(
        "lax.eigh.triangle_ignored", "didax/lax/linalg.py", 'UPLO="L" if lower else "U"', 'UPLO="L"', LAX,
        "eigh reads the lower triangle even when asked for the upper one", keyword="linalg",
    ),
    Mutant(
        "numpy.eigh.result_swapped", LINALG, "return EighResult(w, v)", "return EighResult(v, w)", LAX,
        "jnp.linalg.eigh gives the eigenvectors first, as lax.linalg.eigh does, not the eigenvalues", keyword="linalg",
    ),
    Mutant(
        "lax.svd.always_full", "didax/lax/linalg.py", "u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)",
        "u, s, vt = np.linalg.svd(x, full_matrices=True)", LAX,
        "svd gives square U and V^H even when asked for min(m, n) columns and rows", keyword="linalg or svd",
    ),
    Mutant(
        "numpy.svd.hermitian_signs_dropped", LINALG,
        "return SVDResult(v, s, lax.linalg.H(lax.mul(v, lax.expand_dims(signs, (get_aval(signs).ndim - 1,)))))",
        "return SVDResult(v, s, lax.linalg.H(v))", LAX,
        "a hermitian svd's V^H forgets the signs of the negative eigenvalues: U diag(s) V^H is |a|", keyword="linalg",
    ),
    Mutant(
        "lax.qr.pivots_dropped", "didax/lax/linalg.py", "            p[index] = out[2]", "            pass", LAX,
        "qr with pivoting gives the columns in order 0, 0, ...: not the ones Q R is", keyword="linalg or qr",
    ),
    Mutant(
        "lax.qr.economic_ignored", "didax/lax/linalg.py",
        'out = scipy_linalg.qr(x[index], mode="full" if full_matrices else "economic", pivoting=pivoting)',
        'out = scipy_linalg.qr(x[index], mode="full", pivoting=pivoting)', LAX,
        "qr computes the full decomposition when min(m, n) columns were asked for (they do not fit)",
        keyword="linalg or qr",
    ),
    Mutant(
        "numpy.qr.r_mode_complete", LINALG, 'q, r = lax.linalg.qr(a, full_matrices=mode == "complete")',
        'q, r = lax.linalg.qr(a, full_matrices=mode in ("complete", "r"))', LAX,
        "jnp.linalg.qr(mode='r') gives R with m rows, not min(m, n)", keyword="linalg or qr",
    ),
    Mutant(
        "scipy.qr.r_mode_economic", "didax/scipy/linalg.py",
        'q, r, *p = lax.linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")',
        'q, r, *p = lax.linalg.qr(a, pivoting=pivoting, full_matrices=mode == "full")', LAX,
        "jax.scipy.linalg.qr(mode='r') gives R with min(m, n) rows, not m as SciPy's does", keyword="linalg or qr",
    ),
    Mutant(
        "scipy.solve.pos_reads_the_upper_triangle", "didax/scipy/linalg.py",
        "x = cho_solve(cho_factor(a, lower=lower), b)", "x = cho_solve(cho_factor(a, lower=False), b)", LAX,
        "solve(assume_a='pos', lower=True) factors the upper triangle, which the caller left as junk",
        keyword="linalg or solve",
    ),
    Mutant(
        "numpy.slogdet.qr_sign_of_q_ignored", LINALG,
        "sign = lax.mul(slogdet(q).sign, prod(lax.sign(r_diagonal), axis=-1))",
        "sign = prod(lax.sign(r_diagonal), axis=-1)", LAX,
        "slogdet by QR takes the sign from R's diagonal alone: each reflection in Q flips it too", keyword="linalg",
    ),
    Mutant(
        "numpy.lstsq.residual_not_squared", LINALG, "residuals = sum(_abs2(lax.sub(b, matmul(a, x))), axis=0)",
        "residuals = sum(absolute(lax.sub(b, matmul(a, x))), axis=0)", LAX,
        "lstsq's residuals are the sum of the absolute errors, not of their squares", keyword="linalg or lstsq",
    ),
]
