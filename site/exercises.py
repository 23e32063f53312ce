#!/usr/bin/env python3
"""Exercises: a working copy of a stage with chosen function bodies removed.

    python3 site/exercises.py list            # every stage's sets (or: list 01_eval)
    python3 site/exercises.py make 01_eval --set lattice [--into build/exercises/01_eval]
    python3 site/exercises.py make 01_eval --remove didax/lax/elementwise.py:_div,didax/core.py:bind
    python3 site/exercises.py check build/exercises/01_eval

`make` copies stages/<stage> (package, examples, tests) into a folder and replaces the body of each
chosen function by `raise NotImplementedError("exercise: ...")`, keeping its signature and its
docstring, and writes above the stub what the function must do (error messages included). The
copy's own tests then fail until the learner has written the bodies again. `check` runs the set's
own tests, then the rest of the copy's tests, each stopping at the first failure with a short traceback,
and ends with a verdict per function: solved, not written yet, or failing with its first failing
case. Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages"
DEFAULT_INTO = ROOT / "build" / "exercises"


@dataclass(frozen=True)
class ExerciseSet:
    name: str
    summary: str
    functions: tuple[str, ...]  # "path/in/stage.py:function", "path:Class.method" or "path:outer.inner"
    tests: tuple[str, ...]  # the stage's tests that pin these functions, run first by `check`
    # What each function must do, errors and their exact messages included: `make` writes it into
    # the copy above the stub, `list` prints it, and the chapter shows it.
    expects: dict[str, str] = field(default_factory=dict)


# The chapters' exercises, by stage. Every set makes some of the stage's own tests fail
# (site/tests/test_site_exercises.py checks it), and the stage's code is the model answer.
EXERCISES: dict[str, list[ExerciseSet]] = {
    "01_eval": [
        ExerciseSet(
            "bind",
            "route a primitive to the interpreter at the top of the trace stack",
            ("didax/core.py:bind", "didax/core.py:find_top_trace", "didax/core.py:full_raise"),
            ("tests/test_core.py",),
            {
                "bind": "Find the interpreter with find_top_trace(args), then return "
                        "prim.bind_with_trace(that_trace, args, params).",
                "find_top_trace": "Among the Tracer instances in xs, take the one whose x._trace.main.level "
                                  "is highest and return a new trace of its main: main.trace_type(main). With "
                                  "no tracer in xs, return trace_state.eval_trace. A tracer whose main is no "
                                  "longer on the stack (not is_alive(x._trace.main)) raises "
                                  "UnexpectedTracerError(x).",
                "full_raise": "A value that is not a Tracer: trace.pure(val). A tracer of trace's own main: "
                              "val itself. A tracer of a lower level: trace.lift(val). A tracer of a higher "
                              "level raises AssertionError(f\"Can't lift level {val._trace.main.level} to "
                              "{trace.main.level}: a tracer of an inner transformation reached an outer one "
                              "(this is a bug in an interpreter, not in your program).\"). Another main at the "
                              "same level raises AssertionError(f\"Different traces at same level: "
                              "{val._trace}, {trace}.\").",
            },
        ),
        ExerciseSet(
            "lattice",
            "promotion as the least upper bound on JAX's type lattice",
            ("didax/dtypes.py:_upper_bounds", "didax/dtypes.py:_join"),
            ("tests/test_golden.py",),
            {
                "_upper_bounds": "Return {node: frozenset of every node reachable from it, itself included} "
                                 "for every node of _standard_lattice(x64) when mode == 'standard', else of "
                                 "_strict_lattice(). A depth-first walk that remembers each node's answer "
                                 "visits every edge once.",
                "_join": "Intersect the upper bounds (_upper_bounds(mode, x64)) of the nodes; return the node of that intersection whose "
                         "own upper bounds are exactly the intersection. When there is none, raise "
                         "TypePromotionError(f\"Input dtypes {names} have no available implicit dtype "
                         "promotion path when jax_numpy_dtype_promotion={mode}. Try explicitly casting "
                         "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.\"), "
                         "where names is the tuple of the nodes' names (_node_name) in sorted order, "
                         "e.g. ('float32', 'int32').",
            },
        ),
        ExerciseSet(
            "shape-rules",
            "abstract evaluation: the shape and dtype rules of lax primitives",
            ("didax/lax/standard.py:broadcasting_shape", "didax/lax/reductions.py:_reduced_shape",
             "didax/lax/elementwise.py:_integer_pow_dtype"),
            ("tests/test_errors.py",),
            {
                "broadcasting_shape": "Ignore rank-0 avals; with none left, return (). Ranks that differ raise "
                                      "TypeError(f\"{name}: arrays must have the same number of dimensions, "
                                      "got {ranks}.\") with ranks the sorted list of distinct ranks. Along "
                                      "each axis the sizes must be equal or 1, else TypeError(f\"{name} got "
                                      "incompatible shapes for broadcasting: {shown}.\") with shown the "
                                      "shapes joined by ', ' (e.g. '(3,), (4,)'). Return the broadcast shape.",
                "_reduced_shape": "Return x.shape without the axes in axes. An axis outside 0..x.ndim-1 "
                                  "raises ValueError(f\"reduction axes {axes} contains out-of-bounds indices "
                                  "for {x.str_short()}.\"); a repeated axis raises ValueError(f\"duplicate "
                                  "value in 'axes' of reduction: {axes}\").",
                "_integer_pow_dtype": "First check_dtype('integer_pow', x, NUMBER) (it refuses bool). For "
                                      "y < 0 and an integer dtype (kind 'i' or 'u') raise TypeError(f\"Integers "
                                      "cannot be raised to negative powers, got integer_pow({x.str_short()}, "
                                      "{y})\"). Otherwise return x.dtype.",
            },
        ),
        ExerciseSet(
            "numpy-front-end",
            "NumPy-style promotion and broadcasting in front of lax",
            ("didax/numpy/util.py:promote_dtypes", "didax/numpy/util.py:promote_shapes"),
            ("tests/test_golden.py", "tests/test_errors.py"),
            {
                "promote_dtypes": "Fewer than two args: return them as a list, unchanged. Otherwise "
                                  "dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True) and "
                                  "return [convert(x, dtype, weak) for x in args].",
                "promote_shapes": "If at most one distinct non-empty shape is among the args, return them "
                                  "unchanged. Shapes that np.broadcast_shapes refuses raise TypeError(f\"{name} "
                                  "got incompatible shapes for broadcasting: {shown}.\") with shown the "
                                  "shapes joined by ', '. Otherwise give every arg that is neither rank 0 nor "
                                  "of the highest rank leading size-1 axes with lax.reshape.",
            },
        ),
        ExerciseSet(
            "pytrees",
            "flatten a nested container to leaves and a structure, and build it back",
            ("didax/tree_util.py:tree_flatten", "didax/tree_util.py:tree_unflatten"),
            ("tests/test_tree_util.py",),
            {
                "tree_flatten": "Return (leaves, treedef): make one empty list, let _flatten_into(tree, "
                                "is_leaf, leaves) append every leaf to it, and take the treedef it returns.",
                "tree_unflatten": "Return treedef.unflatten(leaves); the PyTreeDef checks the number of "
                                  "leaves (\"Too few leaves for PyTreeDef; expected 2, got 1\").",
            },
        ),
    ],
    "02_jvp": [
        ExerciseSet(
            "interpreter",
            "the JVP interpreter: values as (primal, tangent) pairs, one rule call per primitive",
            ("didax/ad.py:JVPTrace.pure", "didax/ad.py:JVPTrace.process_primitive",
             "didax/ad.py:JVPTracer.full_lower"),
            ("tests/test_jvp.py",),
            {
                "pure": "Box a constant: return JVPTracer(self, val, Zero.like(val)), a pair whose tangent is a "
                        "symbolic zero. (The class sets lift = pure: to this level, a tracer of a lower level "
                        "is a constant too.)",
                "process_primitive": "primals and tangents are the tracers' .primal and .tangent. When every "
                                     "tangent is a Zero, return primitive.bind(*primals, **params): there is "
                                     "nothing to differentiate. Otherwise rule = jvp_rules.get(primitive); with "
                                     "none, raise NotImplementedError(f\"Differentiation rule for "
                                     "'{primitive.name}' not implemented\"). primal_out, tangent_out = "
                                     "rule(primals, tangents, **params); return JVPTracer(self, primal_out, "
                                     "tangent_out), or, when primitive.multiple_results, a list of JVPTracers, "
                                     "one per (primal, tangent) pair.",
                "full_lower": "When self.tangent is a Zero (type(self.tangent) is Zero), return self.primal: a "
                              "value with a zero tangent needs no tracer of this level, and what is done with "
                              "it next goes to the levels below. Otherwise return self.",
            },
        ),
        ExerciseSet(
            "zeros",
            "symbolic zeros and float0: a zero tangent is a type, made into numbers only when needed",
            ("didax/ad.py:tangent_aval", "didax/ad.py:Zero.like", "didax/ad.py:instantiate"),
            ("tests/test_jvp.py",),
            {
                "tangent_aval": "Return ShapedArray(aval.shape, dtype, aval.weak_type), with dtype aval.dtype "
                                "when it is inexact (dtypes.is_inexact: floating or complex), and float0 "
                                "otherwise (integers and booleans).",
                "like": "Return the zero tangent of primal: a Zero holding tangent_aval of its abstract value "
                        "(get_aval(primal)).",
                "instantiate": "A tangent that is not a Zero comes back as it is. A Zero of dtype float0 becomes "
                               "np.zeros(aval.shape, float0), a NumPy array (as in JAX). Any other Zero becomes "
                               "an array of zeros of its shape, dtype and weak type, made with lax primitives "
                               "(e.g. the scalar Array(np.zeros((), aval.dtype), aval.weak_type) broadcast with "
                               "lax.broadcast_in_dim).",
            },
        ),
        ExerciseSet(
            "rules",
            "the rules that defjvp, deflinear and defzero make (sin, mul, exp, reduce_sum, comparisons)",
            ("didax/ad.py:defjvp.rule", "didax/ad.py:_sum_terms", "didax/ad.py:deflinear.rule",
             "didax/ad.py:defzero.rule"),
            ("tests/test_jvp.py",),
            {
                "defjvp.rule": "ans = prim.bind(*primals, **params). Walk fns and tangents together: an operand "
                               "whose fn is None, or whose tangent is a Zero, adds nothing; any other adds the "
                               "term fn(t, ans, *primals, **params). Return (ans, _sum_terms(terms, ans)).",
                "_sum_terms": "With no terms, return Zero.like(ans). Otherwise add the terms with lax.add and "
                              "return the total broadcast to ans's shape (_broadcast_to(total, "
                              "get_aval(ans).shape)): the term of a scalar operand may be a scalar.",
                "deflinear.rule": "A linear primitive maps tangents as it maps primals: return "
                                  "(prim.bind(*primals, **params), prim.bind(*tangents, **params)), each tangent "
                                  "made real with instantiate first.",
                "defzero.rule": "The output does not move when the operands do: ans = prim.bind(*primals, "
                                "**params); return (ans, Zero.like(ans)), or (ans, [Zero.like(a) for a in ans]) "
                                "when prim.multiple_results.",
            },
        ),
        ExerciseSet(
            "elementwise",
            "the tangent terms of pow, abs, max and min (the signature defjvp gives them)",
            ("didax/ad.py:_pow_dx", "didax/ad.py:_pow_dy", "didax/ad.py:_abs_jvp", "didax/ad.py:_balanced_eq"),
            ("tests/test_jvp.py",),
            {
                "_pow_dx": "x's term of x ** y: t * y * x ** (y - 1). For an inexact y (dtypes.is_inexact), "
                           "lax.mul(t, lax.mul(y, lax.pow(x, lax.sub(y, _const(y, 1))))). For an integer y, "
                           "convert y to x's dtype for the product (lax.convert_element_type), keep the integer "
                           "y - 1 as the exponent, and give 0 where y == 0 (x ** 0 is flat, even at x = 0): "
                           "_where(lax.eq(y, _const(y, 0)), zeros, slope).",
                "_pow_dy": "y's term: t * log(x) * x ** y, i.e. lax.mul(t, lax.mul(lax.log(safe_x), ans)), where "
                           "safe_x is x with every 0 replaced by 1 (as JAX does: 0 ** y stays flat in y, and no "
                           "log(0) appears).",
                "_abs_jvp": "A real x: t where x >= 0, else -t (_where(lax.ge(x, _const(x, 0)), t, lax.neg(t))). "
                            "A complex x: Re(conj(x) * t) / |x|, i.e. (real(x) * real(t) + imag(x) * imag(t)) / "
                            "ans, with ans (which is |x|) replaced by 1 where it is 0.",
                "_balanced_eq": "x's share of the tangent of max(x, other) or min(x, other), whose result is "
                                "ans: 1 where x equals ans and other does not, 1/2 where both equal ans (a tie "
                                "splits the tangent), 0 where x is not the result; in ans's dtype (_const, "
                                "_where).",
            },
        ),
        ExerciseSet(
            "reductions",
            "reduce_max's tie rule and reduce_prod's product of the others",
            ("didax/ad.py:_reduce_chooser_jvp.rule", "didax/ad.py:_reduce_prod_jvp",
             "didax/ad.py:_exclusive_cumprod"),
            ("tests/test_jvp.py",),
            {
                "_reduce_chooser_jvp.rule": "reduce_max and reduce_min: ans = prim.bind(x, axes=axes). The "
                                            "entries of x equal to their result (x compared with ans broadcast "
                                            "back along the reduced axes) share the tangent equally: return ans "
                                            "and the sum over axes of t times the 0/1 weights of those entries, "
                                            "divided by the sum of the weights.",
                "_reduce_prod_jvp": "d(x1 * ... * xn) is the sum over i of t_i times the product of the other "
                                    "entries. ans = lax.reduce_prod_p.bind(x, axes=axes); with nothing to reduce "
                                    "(n == 0) the tangent is Zero.like(ans). Otherwise move the reduced axes last "
                                    "and flatten them into one axis of length n (x, and instantiate(t)); the "
                                    "product of the others is _exclusive_cumprod from the front times "
                                    "_exclusive_cumprod from the back (exact where x has zeros, unlike ans / x); "
                                    "multiply it by the tangents and sum that axis.",
                "_exclusive_cumprod": "The product of the entries strictly before each one along axis (strictly "
                                      "after it when reverse): the inclusive lax.cumprod, shifted one place along "
                                      "axis with a 1 coming in (lax.slice_in_dim, then lax.pad with _const(x, 1)).",
            },
        ),
    ],
    "03_vmap": [
        ExerciseSet(
            "batch-trace",
            "the batching interpreter: a batched value and its batch axis, one rule call per primitive",
            ("didax/batching.py:BatchTracer.aval", "didax/batching.py:BatchTracer.full_lower",
             "didax/batching.py:BatchTrace.process_primitive"),
            ("tests/test_vmap.py",),
            {
                "aval": "What one example looks like: the abstract value of self.val (get_aval) with the axis "
                        "self.batch_dim removed from its shape, same dtype and weak type "
                        "(ShapedArray(shape, aval.dtype, aval.weak_type)). A value that is not mapped "
                        "(self.batch_dim is not_mapped) is its own example: return get_aval(self.val). "
                        "(Working it out once and keeping it in self._aval is allowed, not required.)",
                "full_lower": "A value that is not mapped is the same for every example and needs no tracer: "
                              "return full_lower(self.val). Otherwise return self.",
                "process_primitive": "vals and dims are the tracers' .val and .batch_dim. When every dim is "
                                     "not_mapped, return primitive.bind(*vals, **params): nothing varies over "
                                     "the batch. Otherwise rule = batching_rules.get(primitive); with none, "
                                     "raise NotImplementedError(f\"Batching rule for '{primitive.name}' not "
                                     "implemented\"). out, out_dim = rule(vals, dims, **params); return "
                                     "BatchTracer(self, out, out_dim), or, when primitive.multiple_results, a "
                                     "list of BatchTracers, one per (value, dim) pair of out and out_dim.",
            },
        ),
        ExerciseSet(
            "elementwise-rule",
            "elementwise primitives: keep the batch axis where it is, make the other operands broadcast",
            ("didax/batching.py:defelementwise.rule", "didax/batching.py:_align"),
            ("tests/test_vmap.py",),
            {
                "defelementwise.rule": "Each operand's example rank is _example_ndim(x, d); rank is the "
                                       "largest. The result's batch axis out is the batch_dim of the first "
                                       "mapped operand of that rank, or 0 when there is none. Bring every "
                                       "operand to fit with _align(x, d, its rank, rank, out) and return "
                                       "(prim.bind(*aligned, **params), out).",
                "_align": "An unmapped operand: a scalar (rank 0) as it is, else lax.expand_dims(x, (out,)), a "
                          "size-1 axis where the batch axis is. A mapped operand of the full rank: its batch "
                          "axis moved to out (moveaxis). A mapped operand of lower rank (a batch of scalars): "
                          "lax.broadcast_in_dim to the shape with its batch size at out and 1 on every other "
                          "of the out_rank + 1 axes, broadcast_dimensions (out,).",
            },
        ),
        ExerciseSet(
            "reduction-rule",
            "reductions and cumulative operations: renumber the axes around the batch axis",
            ("didax/batching.py:full_axis", "didax/batching.py:defreduction.rule",
             "didax/batching.py:defcumulative.rule"),
            ("tests/test_vmap.py",),
            {
                "full_axis": "The position, in the batched array whose batch axis is bdim, of an example's "
                             "axis: axis itself when it comes before bdim, axis + 1 from bdim on.",
                "defreduction.rule": "One operand, (x,) and (bdim,). Reduce the batched array's axes "
                                     "(full_axis of each of axes) with prim.bind(x, axes=those, **params); the "
                                     "result's batch axis is bdim minus the number of reduced axes before it.",
                "defcumulative.rule": "One operand. Run prim.bind(x, axis=full_axis(axis, bdim), "
                                      "reverse=reverse); the batch axis stays at bdim.",
            },
        ),
        ExerciseSet(
            "dot-general-rule",
            "dot_general: the batch axis as a batch dimension of the contraction, or a free dimension",
            ("didax/batching.py:_dot_general_rule",),
            ("tests/test_vmap.py",),
            {
                "_dot_general_rule": "Renumber each mapped operand's contracting and batch dimensions around "
                                     "its batch axis (_renumber). Both operands mapped: prepend lhs_bdim and "
                                     "rhs_bdim to the batch dimensions, and the result's batch axis is 0. Only "
                                     "lhs mapped: its batch axis is a free dimension of lhs, and dot_general "
                                     "puts the batch dimensions first, then lhs's free dimensions in order "
                                     "(_free_dims), then rhs's: out = len(lhs_batch) + the position of lhs_bdim "
                                     "among lhs's free dimensions. Only rhs mapped: out = len(rhs_batch) + the "
                                     "number of lhs's free dimensions + the position of rhs_bdim among rhs's "
                                     "free dimensions. Return (lax.dot_general_p.bind(lhs, rhs, "
                                     "dimension_numbers=the new numbers, preferred_element_type=...), out).",
            },
        ),
        ExerciseSet(
            "vmap-api",
            "vmap's API: prefix pytrees of axes, and one batch size with JAX's error when they disagree",
            ("didax/batching.py:_flatten_axes", "didax/batching.py:_batch_size"),
            ("tests/test_vmap.py",),
            {
                "_flatten_axes": "Flatten axes with None as a leaf (tree_flatten(axes, is_leaf=lambda x: x "
                                 "is None)); axis_tree.flatten_up_to(tree) gives the subtree of tree under each "
                                 "of its leaves, and each axis stands for every leaf of its subtree. When the "
                                 "axes are not a prefix, flatten_up_to raises ValueError e: raise "
                                 "ValueError(f\"{what} specification must be a tree prefix of the corresponding "
                                 "value; {e}\").",
                "_batch_size": "The sizes are get_aval(x).shape[a] of every leaf whose axis is not not_mapped, "
                               "and axis_size when given. One size in all: return it as an int. No leaves at "
                               "all: raise ValueError(f\"vmap wrapped function must be passed at least one "
                               "argument containing an array or axis_size must be specified, got empty "
                               "*args={args} and **kwargs={kwargs}\"). No size at all: raise ValueError(\"vmap "
                               "must have at least one non-None value in in_axes or axis_size must be "
                               "specified\"). Sizes that disagree: raise ValueError(_inconsistent_sizes(fun, "
                               "args, kwargs, leaves, axes, mapped, axis_size)), with mapped the list of "
                               "(leaf index, size) pairs of the mapped leaves.",
            },
        ),
    ],
    "04_jaxpr": [
        ExerciseSet(
            "staging",
            "the staging interpreter: literals, constvars, and one typed equation per primitive",
            ("didax/staging.py:JaxprTrace.pure", "didax/staging.py:JaxprTrace.lift",
             "didax/staging.py:JaxprTrace.process_primitive"),
            ("tests/test_jaxpr.py",),
            {
                "pure": "A constant met while staging (not a tracer of any transformation). aval = get_aval(val). A "
                        "scalar (aval.shape == ()) is written into the equations as a literal: literal = "
                        "Literal(np.asarray(aval.val, aval.dtype), shaped(aval)); return JaxprTracer(self, "
                        "literal.aval, literal). Anything else: return self.lift(val).",
                "lift": "A value from outside the staging, an array or a tracer of an enclosing transformation, "
                        "becomes a constvar: aval = shaped(get_aval(val)); return JaxprTracer(self, aval, "
                        "self.main.global_data.const_var(val, aval)). (The JaxprBuilder in global_data gives one "
                        "constvar per constant object.)",
                "process_primitive": "Type the result: avals_out = abstract_eval(primitive, [t.aval for t in "
                                     "tracers], params), a list of avals when primitive.multiple_results. Make a "
                                     "JaxprTracer(self, aval, Var(aval)) for each result, append JaxprEqn(primitive, "
                                     "the tuple of the tracers' .var, the tuple of the new Vars, params) to "
                                     "self.main.global_data.eqns, and return the new tracer (a list of them when "
                                     "primitive.multiple_results).",
            },
        ),
        ExerciseSet(
            "eval-jaxpr",
            "run a jaxpr by binding its equations, and check its types the same way",
            ("didax/jaxpr.py:eval_jaxpr", "didax/jaxpr.py:check_jaxpr"),
            ("tests/test_jaxpr.py",),
            {
                "eval_jaxpr": "With a number of args other than len(jaxpr.invars), raise TypeError(f\"eval_jaxpr: the "
                              "jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}\"). Map the constvars to "
                              "consts and the invars to args; for each equation, read its operands (a Literal's "
                              "value is its .val), apply bind(eqn.primitive, *operands, **eqn.params), and map its "
                              "outvars to the result (a list of results when primitive.multiple_results). Return "
                              "the list of the outvars' values.",
                "check_jaxpr": "The walk of eval_jaxpr, with types. Bind the constvars, then the invars; for each "
                               "equation read its operands' avals, check every jaxpr of its params "
                               "(subjaxprs(eqn.params)) with check_jaxpr, compute out = "
                               "eqn.primitive.abstract_eval(*in_avals, **eqn.params) (a list when "
                               "multiple_results), then bind its outvars; at the end read the outvars. Each problem "
                               "raises JaxprTypeError(f\"{message}\\n\\nin the jaxpr\\n{jaxpr}\"), a variable named "
                               "as the printout names it (ctx = PrintContext(); pp_jaxpr(jaxpr, ctx); "
                               "ctx.name(v)). The messages: f\"Variable '{name}' not defined: it is read before any "
                               "binding\"; f\"Variable '{name}' already bound: each variable is bound once\"; "
                               "f\"Binder {v!r} is not a variable: only variables can be bound\"; when abstract_eval "
                               "raises TypeError or ValueError e, f\"Equation {i} ({eqn.primitive.name}) is ill "
                               "typed: {e}\"; for a count that differs, f\"Equation {i} ({eqn.primitive.name}) "
                               "binds {len(eqn.outvars)} variables but its primitive gives {len(out_avals)} "
                               "results\"; and for an outvar whose shape or dtype differs (types_match), "
                               "f\"Equation {i} ({eqn.primitive.name}): variable '{name}' is declared "
                               "{short_aval(v.aval)} but the primitive gives {short_aval(aval)}\".",
            },
        ),
        ExerciseSet(
            "printer",
            "JAX's variable names, and the strictly pretty layout of a document to a width",
            ("didax/jaxpr.py:alphabetic", "didax/jaxpr.py:PrintContext.name", "didax/pretty.py:flat_width",
             "didax/pretty.py:format"),
            ("tests/test_jaxpr.py",),
            {
                "alphabetic": "The n-th variable name: n written in base 26 with the digits a..z, most "
                              "significant first, so 0 is 'a', 25 is 'z', 26 is 'ba' and 27 is 'bb' (a is the "
                              "zero digit, as in JAX).",
                "name": "The name of v in this printout: when v has none yet, give it alphabetic(self._fresh), "
                        "counting self._fresh up, and skipping a name a shared jaxpr is printed under (the "
                        "values of self.shared); remember it in self.names. Return its name.",
                "flat_width": "The width of doc laid out on one line: the lengths of its Text pieces and of its "
                              "Breaks' text added up, walking a Concat's docs and a Nest's or Group's doc. Stop "
                              "once the width passes limit (any width above limit may then be returned).",
                "format": "Keep a column and a stack of (indent, flat, doc), starting from (0, False, Group(doc)). "
                          "Pop one at a time: a Text is written; a Break is written as its text when flat, and "
                          "otherwise as a newline and indent spaces (the column is then indent); a Concat pushes "
                          "its docs so that the first is popped first; a Nest pushes its doc with indent plus its "
                          "indent; a Group pushes its doc, flat when it is inside a flat group or when "
                          "flat_width(its doc, width - column) <= width - column. Return the text written.",
            },
        ),
        ExerciseSet(
            "cond-rules",
            "the JVP and batching rules of cond: a cond of JVPs, and a select_n when the predicate is batched",
            ("didax/ad.py:_cond_jvp", "didax/batching.py:_cond_rule", "didax/batching.py:_cond_to_select"),
            ("tests/test_cond.py",),
            {
                "_cond_jvp": "index, *ops = primals; the index is an integer and has no tangent (tangents[0] is "
                             "skipped). nonzeros says which operands' tangents are not a Zero. An output has a "
                             "nonzero tangent when it has one in any branch (jvp_jaxpr(b, nonzeros, False)[1] for "
                             "each branch b). Make each branch's JVP with jvp_jaxpr(b, nonzeros, out_nonzeros) "
                             "(so every branch gives a tangent for those outputs), hoist their constants with "
                             "hoist_branch_consts, and bind cond_p(index, *consts, *ops, *the nonzero tangents, "
                             "branches=the JVP branches). Its outputs are the primals, then the nonzero tangents "
                             "in order: return (primals_out, tangents_out), with Zero.like(primal) for the outputs "
                             "whose tangent is zero.",
                "_cond_rule": "size = batch_size(vals, dims). When the index is batched (dims[0] is not not_mapped), "
                              "return _cond_to_select(vals, dims, branches, size). Otherwise move every batched "
                              "operand's batch axis to 0 (moveaxis); in_batched says which operands are batched. An "
                              "output is batched when it is in any branch (batch_jaxpr(b, size, in_batched, "
                              "False)[1]); batch every branch with batch_jaxpr(b, size, in_batched, out_batched), "
                              "hoist their constants with hoist_branch_consts, bind cond_p(index, *consts, *ops, "
                              "branches=the batched branches) and return (its outputs, [0 for a batched output, "
                              "not_mapped for another]).",
                "_cond_to_select": "Each example may take another branch, so every branch runs on the whole batch. "
                                   "Move the index's batch axis and every batched operand's to 0. Batch each branch "
                                   "with every output batched (batch_jaxpr(branch, size, in_batched, True)) and run it "
                                   "on the operands with eval_jaxpr. Output k is lax.select_n(_per_example(index, "
                                   "branch 0's output k), *output k of every branch), batch dim 0: return (those, [0] "
                                   "* their number).",
            },
        ),
        ExerciseSet(
            "dce",
            "dead-code elimination: one backward pass over the equations",
            ("didax/staging.py:dce_jaxpr",),
            ("tests/test_jaxpr.py",),
            {
                "dce_jaxpr": "used_outputs and instantiate are a bool for all, or one per output (per input). The "
                             "live variables start as the used outvars that are Vars. Walk the equations backwards: "
                             "keep an equation when one of its outvars is live, and then its Var operands are live "
                             "too. An input is kept when it is live or marked in instantiate. Return (Jaxpr(the "
                             "same constvars, the kept invars, the used outvars, the kept equations in their "
                             "order), the list of which invars were kept).",
            },
        ),
    ],
    "05_jit": [
        ExerciseSet(
            "lowering",
            "the lowering interpreter: a jaxpr walked with SSA names for values, one operation written per line",
            ("didax/lowering/core.py:lower_jaxpr", "didax/lowering/core.py:FunctionBuilder.op"),
            ("tests/test_lowering_basics.py",),
            {
                "lower_jaxpr": "The eval_jaxpr walk, with names for values. env maps the constvars to consts and the "
                               "invars to args (the names of the function's values). An operand that is a Literal "
                               "becomes constant(fb, atom.val); a Var is read from env. For each equation, take the "
                               "rule lowering_rules.get(eqn.primitive); when the primitive is in physical_rules and an "
                               "input's dtype is a key dtype (dtypes.is_key_dtype), take _key_rule(eqn.primitive) "
                               "instead. With no rule, raise NotImplementedError(f\"Lowering rule for "
                               "'{eqn.primitive.name}' not implemented\"). Call rule(LoweringContext(fb, the inputs' "
                               "avals, the outputs' avals), *the operands' names, **eqn.params) with fb.loc set to "
                               "f\"{fb.module.name}/{eqn.primitive.name}\" meanwhile (and restored afterwards, "
                               "whatever happens); an exception e from the rule gets the note e.add_note(f\"while "
                               "lowering '{eqn.primitive.name}' on {the inputs' avals' str_short(), joined by ', '} "
                               "in {fb.module.name}\") and is raised again. Map the outvars to its result (a list of "
                               "names when the primitive has multiple_results). Return the names of the outvars.",
                "op": "Write one operation in MLIR's generic syntax and return the names of its results: one "
                      "self.fresh(t) per result type. The line is self.indent, then (when there are results) the "
                      "names joined by \", \" and \" = \", then the quoted name, the operands in parentheses, then "
                      "\" (\" + each region's .text(self.indent) joined by \", \" + \")\" when there are regions, then "
                      "\" {k = v, ...}\" when there are attrs, then \" : (\" + the operands' types (self.types) joined "
                      "by \", \" + \") -> \" + the result types joined by \", \", in parentheses unless there is exactly "
                      "one, then f' loc(\"{self.loc}\")' when self.loc is set. Append it to self.lines.",
            },
        ),
        ExerciseSet(
            "mlir-text",
            "types and attributes as MLIR writes them: tensor types, dense constants, i64 arrays",
            ("didax/lowering/core.py:tensor_type", "didax/lowering/core.py:dense", "didax/lowering/core.py:i64_array"),
            ("tests/test_lowering_basics.py",),
            {
                "tensor_type": "aval = physical(aval) (a key array is its uint32 words); return \"tensor<\" + each "
                               "dimension followed by \"x\" + element_type(aval.dtype) + \">\": tensor<3x4xf32>, "
                               "tensor<f32> for a scalar.",
                "dense": "value as a DenseElementsAttr, \"dense<...> : \" + its tensor type (its shape and "
                         "element_type(value.dtype)). Booleans (and float0) are written as true/false: one word when "
                         "every element is the same (a splat), else nested lists of the value's shape. Every other "
                         "dtype is written as its raw little-endian bytes in upper-case hex, dense<\"0x...\">, only "
                         "the first element's bytes when there is more than one element and all are the same.",
                "i64_array": "\"array<i64: 0, 1>\" for values (0, 1), and \"array<i64>\" for none.",
            },
        ),
        ExerciseSet(
            "jit-rules",
            "jit as a primitive: its JVP and batching rules transform the jaxpr it holds and bind jit_p again",
            ("didax/jit.py:_jit_jvp", "didax/jit.py:_jit_batch"),
            ("tests/test_jit.py",),
            {
                "_jit_jvp": "nonzeros: for each tangent, whether it is not an ad.Zero. _jvp_of(jaxpr, nonzeros) gives "
                            "the JVP jaxpr (constants hoisted), its constants, and which outputs have a nonzero "
                            "tangent. Bind jit_p on (*consts, *primals, *the nonzero tangents) with jaxpr= that jaxpr, "
                            "name=f\"jvp({name})\" and donated_invars=(False,) * the number of operands. Its outputs are the primal outputs, then the nonzero "
                            "tangents in order: return (primals_out, tangents_out), with ad.Zero.like(primal) for an "
                            "output whose tangent is zero.",
                "_jit_batch": "size = batching.batch_size(vals, dims); an operand is batched when its dim is not "
                              "batching.not_mapped, and then its batch axis is moved to 0 (batching.moveaxis). "
                              "_batched(jaxpr, size, tuple(in_batched)) gives the batched jaxpr, its constants and "
                              "which outputs are batched. Bind jit_p on (*consts, *vals) with jaxpr= that jaxpr, "
                              "name=f\"vmap({name})\" and donated_invars=(False,) * the number of operands; return (the outputs, [0 for a batched output, not_mapped for "
                              "another]).",
            },
        ),
        ExerciseSet(
            "cache",
            "the cache key: everything tracing depends on, and nothing it does not",
            ("didax/jit.py:Jitted._trace", "didax/jit.py:_Static.__eq__", "didax/jit.py:_Static.__hash__"),
            ("tests/test_jit.py",),
            {
                "_trace": "Split the arguments into statics, dyn_args and dyn_kwargs (self._split), flatten "
                          "(dyn_args, dyn_kwargs) into leaves and in_tree, and type each leaf (_arg_type). The key is "
                          "(in_tree, the tuple of types, statics, config.jax_enable_x64). On a miss, trace with "
                          "self._trace_new(in_tree, avals, statics, self._donated(args, kwargs, statics)) and keep it in self._cache, unless one of its "
                          "consts is a Tracer (a tracer it closed over lives only as long as its transformation). "
                          "Return (leaves, the traced function).",
                "__eq__": "Equal to another _Static whose value has the same type and compares equal (so 1, 1.0 and "
                          "True are three signatures).",
                "__hash__": "The hash of (the value's type, the value).",
            },
        ),
        ExerciseSet(
            "device-array",
            "an Array with two homes: NumPy memory and a device buffer, each copy made once, when first needed",
            ("didax/array.py:Array._value", "didax/array.py:Array.device_buffer"),
            ("tests/test_jit.py",),
            {
                "_value": "The NumPy copy: self._host, or, when it is None (an output of a compiled function), "
                          "xla.fetch(self._buffer, self._type.dtype), kept in self._host for the next time. A "
                          "buffer that was deleted (xla.is_deleted: it was donated) raises RuntimeError(f\"Array "
                          "has been deleted with shape={self._type.str_short()}.\").",
                "device_buffer": "The device copy on device: with no buffer yet, xla.put(self._host, device), kept in "
                                 "self._buffer; a buffer on another device (xla.device_of) is not replaced: return a "
                                 "new xla.put(self._value, device); otherwise the buffer itself.",
            },
        ),
    ],
    "06_vjp": [
        ExerciseSet(
            "partial-eval",
            "partial evaluation: compute what is known, record what is not, read the jaxpr off the recipes",
            ("didax/partial_eval.py:PartialEvalTrace.process_primitive", "didax/partial_eval.py:tracers_to_jaxpr"),
            ("tests/test_vjp.py",),
            {
                "process_primitive": "When every tracer's pval is known, bind the primitive on their consts (it runs "
                                     "in a lower interpreter) and return that. When the primitive has a rule in "
                                     "partial_eval_jaxpr_rules, return _partial_eval_with_rule(self, primitive, "
                                     "tracers, params). Otherwise record it: return self.record(primitive, [each "
                                     "tracer made unknown with self.instantiate_const], params).",
                "tracers_to_jaxpr": "Give each input tracer a Var of its aval (keyed by id(tracer)). Walk "
                                    "toposort(tracers_out): a ConstRecipe's value gets one constvar per value (keyed "
                                    "by id(value)), kept with the value in consts; a JaxprEqnRecipe, the first time it "
                                    "is met, becomes an equation new_eqn((prim, the Vars of its tracers_in, its "
                                    "outvars, params)), an outvar being the Var already given to that output tracer "
                                    "(recipe.tracer_refs_out[i]() is the tracer, or None when it is gone: then a new "
                                    "Var of avals_out[i]), or a new one given to it now. Return (Jaxpr(constvars, the "
                                    "inputs' Vars, the outputs' Vars, equations), consts).",
            },
        ),
        ExerciseSet(
            "transpose-rules",
            "transpose rules: each linear operation's transpose, and the sum that undoes a broadcast",
            ("didax/transpose.py:unbroadcast", "didax/transpose.py:_mul_transpose",
             "didax/transpose.py:_reduce_sum_transpose", "didax/transpose.py:_broadcast_in_dim_transpose"),
            ("tests/test_vjp.py",),
            {
                "unbroadcast": "ct itself when its shape is aval.shape. Otherwise sum (lax.reduce_sum) over the "
                               "leading axes ct has beyond aval's rank and over the axes where aval has size 1 and "
                               "ct does not, then lax.reshape to aval.shape.",
                "_mul_transpose": "Exactly one of x and y is an undefined primal (both: raise "
                                  "NotImplementedError). The cotangent of that one is the output cotangent times the "
                                  "other operand, unbroadcast to its aval; the other operand gets None. Return "
                                  "[ct_x, ct_y].",
                "_reduce_sum_transpose": "Broadcast ct back to x's shape: lax.broadcast_in_dim(ct, x.aval.shape, the "
                                         "axes not in axes). Return it in a list.",
                "_broadcast_in_dim_transpose": "Sum ct over the axes the broadcast made (those not in "
                                               "broadcast_dimensions) and over those it stretched from size 1, then "
                                               "reshape to x's shape. Return it in a list.",
            },
        ),
        ExerciseSet(
            "backward-pass",
            "the backward pass: a linear jaxpr run from its outputs' cotangents to its inputs'",
            ("didax/transpose.py:backward_pass",),
            ("tests/test_vjp.py",),
            {
                "backward_pass": "Map the constvars to consts and each invar whose argument is not an "
                                 "UndefinedPrimal to it; the others are linear. Forward: an equation reading a linear "
                                 "variable is linear (so are its outputs); bind any other at once and keep its "
                                 "outputs. Backward: write cts_out to the outvars, then for each linear equation from "
                                 "the last, pop its outputs' cotangents (skip it when none has one; a missing one of a "
                                 "primitive with multiple_results is Zero(tangent_aval(aval))), call "
                                 "transpose_rules[primitive] (or raise NotImplementedError naming it) with the "
                                 "cotangent(s) and the inputs (an UndefinedPrimal for a linear variable, the value "
                                 "otherwise, a Literal's val), and add each returned cotangent that is not None or "
                                 "Zero to its linear input's (add_cotangents). Return the cotangents of the undefined "
                                 "arguments, Zero(tangent_aval(aval)) where none arrived.",
            },
        ),
    ],
    "07_sharding": [
        ExerciseSet(
            "layout",
            "where each block lives: a device's place in the mesh gives its block and its copy",
            ("didax/sharding.py:NamedSharding._layout", "didax/sharding.py:Sharding.devices_indices_map"),
            ("tests/test_sharding.py",),
            {
                "_layout": "spec._axes(ndim) gives, per array axis, the tuple of mesh axis names that cut it; the "
                           "unused mesh axes are those no entry names, in the mesh's order. For every position of "
                           "mesh.devices (np.ndindex, row-major), with `at` mapping each mesh axis name to its "
                           "coordinate: the block's position along each array axis is the mixed-radix number of "
                           "that axis's names (first name major: value = value * size + coordinate), and the "
                           "replica id is the same number over the unused axes. Return [(device, tuple of "
                           "positions, replica id)] in that order.",
                "devices_indices_map": "block = self.shard_shape(global_shape) (it raises JAX's IndivisibleError "
                                       "for an axis that does not divide); tiles = self._tiles(len(block)). For "
                                       "each (device, where, _) of self._layout(len(block)): per axis, slice(c * b, "
                                       "(c + 1) * b) for block position c and block size b where that axis is cut "
                                       "(tiles > 1), slice(None) where it is not. Return {device: tuple of slices}.",
            },
        ),
        ExerciseSet(
            "vmap-collectives",
            "collectives as batch operations: a collective over the vmap's own axis, with ordinary operations",
            ("didax/batching.py:_all_gather_rule", "didax/batching.py:_ppermute_rule"),
            ("tests/test_collectives.py",),
            {
                "_all_gather_rule": "When axis.name is not in params[\"axis_name\"], return _other_axis(all_gather_p, "
                                    "x, bdim, {\"all_gather_dimension\": all_gather_dimension}, **params). Otherwise "
                                    "_check_vmap_collective(all_gather_p, axis, params); every example gets the whole "
                                    "batch: bdim_to(x, bdim, all_gather_dimension, axis.size) (an unbatched x is "
                                    "broadcast); when params[\"tiled\"], merge that axis into the next one "
                                    "(lax.collapse(x, d, d + 2)). The result is unbatched: return (it, not_mapped).",
                "_ppermute_rule": "When axis.name is not in axis_name, return _other_axis(ppermute_p, x, bdim, {}, "
                                  "axis_name=axis_name, perm=perm). Otherwise _check_vmap_collective(ppermute_p, axis, "
                                  "{\"axis_name\": axis_name}); an index outside range(axis.size) raises "
                                  "ValueError(f\"ppermute's permutation {perm} names an index outside axis "
                                  "{axis.name!r} of size {n}\"), n being axis.size. An unbatched x under a full permutation is "
                                  "returned as it is (not_mapped). Otherwise move the batch axis to 0 (bdim_to(x, "
                                  "bdim, 0, n)) and build the result row by row: row j is row src of x for the pair "
                                  "(src, j) of perm, or zeros (lax.full_like(x, 0, shape=(1, *rest))) when no pair "
                                  "sends to j; concatenate on axis 0 and return (it, 0).",
            },
        ),
        ExerciseSet(
            "transposes",
            "transposes in pairs: all_gather and psum_scatter, all_to_all and itself, ppermute and its inverse",
            ("didax/transpose.py:_all_gather_transpose", "didax/transpose.py:_reduce_scatter_transpose",
             "didax/transpose.py:_all_to_all_transpose", "didax/transpose.py:_ppermute_transpose"),
            ("tests/test_parallel_ad.py",),
            {
                "_all_gather_transpose": "Bind lax.reduce_scatter_p on ct with scatter_dimension=all_gather_dimension "
                                         "and the other params as they are; return it in a list.",
                "_reduce_scatter_transpose": "Bind lax.all_gather_p on ct with all_gather_dimension=scatter_dimension "
                                             "and the other params as they are; return it in a list.",
                "_all_to_all_transpose": "Bind lax.all_to_all_p on ct with split_axis and concat_axis swapped "
                                         "(split_axis=concat_axis, concat_axis=split_axis) and the other params; "
                                         "return it in a list.",
                "_ppermute_transpose": "Bind lax.ppermute_p on ct with the same axis_name and the inverse "
                                       "permutation, each (src, dst) pair as (dst, src), as a tuple; return it in "
                                       "a list.",
            },
        ),
    ],
}

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache", "*.egg-info")


class ExerciseError(Exception):
    """A request that cannot be carried out; the message says why."""


# ----------------------------------------------------------------------------------------------
# Removing a function body


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The function `name` or method `Class.name` defined at the top of a module."""
    scope: list[ast.stmt] = tree.body
    node: ast.stmt | None = None
    for part in qualname.split("."):
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            raise ExerciseError(f"no function or class named {part!r} (looking for {qualname!r})")
        scope = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ExerciseError(f"{qualname!r} is a class, not a function")
    return node


def remove_bodies(source: str, qualnames: list[str], where: str, notes: dict[str, str] | None = None) -> str:
    """`source` with the body of each named function replaced by a NotImplementedError.

    The docstring stays (it says what to write); everything after it goes. `notes` maps a
    function to what it must do, written as comments above the stub. Works on the text, so the
    rest of the file keeps its comments and layout."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for qualname in qualnames:
        fn = find_function(tree, qualname)
        body = fn.body
        has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                   and isinstance(body[0].value.value, str))
        if body[0].lineno == fn.lineno:
            raise ExerciseError(f"{where}:{qualname}: its body is on the line of the def; cannot remove it")
        indent = " " * body[0].col_offset
        message = f"exercise: write the body of {qualname} ({where})"
        stub = f"{indent}raise NotImplementedError({message!r})\n"
        note = (notes or {}).get(qualname) or (notes or {}).get(qualname.rpartition(".")[2])
        if note:
            wrapped = textwrap.wrap(f"Expected: {note}", width=max(40, 100 - len(indent)))
            stub = "".join(f"{indent}# {line}\n" for line in wrapped) + stub
        end = fn.end_lineno or fn.lineno
        if has_doc:  # keep the docstring, drop everything after it (comments included)
            first_removed = (body[0].end_lineno or body[0].lineno) + 1
        else:
            first = body[0]
            first_removed = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
        if first_removed > end:  # only a docstring: add the raise after it
            spans.append((end, end, stub))
        else:
            spans.append((first_removed - 1, end, stub))
    for start, end, stub in sorted(spans, reverse=True):
        lines[start:end] = [stub]
    out = "".join(lines)
    ast.parse(out)  # the result must still be Python
    return out


# ----------------------------------------------------------------------------------------------
# Commands


META = ".exercise.json"  # written into a copy by `make`: the stage and the functions removed


def known_stages() -> list[str]:
    return sorted(p.name for p in STAGES.iterdir() if (p / "didax").is_dir()) if STAGES.is_dir() else []


def stage_dir(stage: str) -> Path:
    path = STAGES / stage
    if not (path / "didax").is_dir():
        raise ExerciseError(f"no stage {stage!r}; the stages are {', '.join(known_stages())}")
    return path


def parse_removals(text: str) -> dict[str, list[str]]:
    """`a.py:f,a.py:g,b.py:C.m` -> {"a.py": ["f", "g"], "b.py": ["C.m"]}."""
    out: dict[str, list[str]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        path, sep, name = item.rpartition(":")
        if not sep or not path or not name:
            raise ExerciseError(f"--remove takes FILE:FUNCTION items, got {item!r}")
        out.setdefault(path, []).append(name)
    return out


def exercise_set(stage: str, name: str) -> ExerciseSet:
    for ex in EXERCISES.get(stage, []):
        if ex.name == name:
            return ex
    names = ", ".join(ex.name for ex in EXERCISES.get(stage, [])) or "none"
    raise ExerciseError(f"no exercise set {name!r} for {stage}; its sets are: {names}")


def make(stage: str, removals: dict[str, list[str]], into: Path, force: bool = False,
         sets: list[ExerciseSet] | None = None) -> Path:
    """Copy the stage into `into` and remove the chosen bodies; returns the copy's folder."""
    source = stage_dir(stage)
    if into.exists():
        if not force and any(into.iterdir()):
            raise ExerciseError(f"{into} exists and is not empty; pass --force to replace it")
        shutil.rmtree(into)
    notes = {name: text for ex in sets or [] for name, text in ex.expects.items()}
    # Check every request before writing anything.
    edited = {}
    for rel, names in removals.items():
        path = source / rel
        if not path.is_file():
            raise ExerciseError(f"{stage} has no file {rel}")
        edited[rel] = remove_bodies(path.read_text(encoding="utf-8"), names, rel, notes)
    into.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, into, ignore=_IGNORE)
    for rel, text in edited.items():
        (into / rel).write_text(text, encoding="utf-8")
    meta = {
        "stage": stage,
        "sets": [ex.name for ex in sets or []],
        "functions": [f"{rel}:{name}" for rel, names in removals.items() for name in names],
        "tests": list(dict.fromkeys(t for ex in sets or [] for t in ex.tests)),
    }
    (into / META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return into


# ----------------------------------------------------------------------------------------------
# Checking a copy: the set's tests, then all; then a verdict per function


@dataclass
class TestRun:
    returncode: int
    output: str

    @property
    def first_failure(self) -> str:
        """The first `FAILED ...` or `ERROR ...` line of pytest's short summary, in one line."""
        for line in self.output.splitlines():
            if line.startswith(("FAILED ", "ERROR ")):
                return _shorten(line.split(" ", 1)[1])
        lines = [line for line in self.output.splitlines() if line.strip()]
        return _shorten(lines[-1]) if lines else f"pytest exited with status {self.returncode}"


def _shorten(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def run_tests(copy: Path, targets: list[str], args: list[str]) -> TestRun:
    """pytest on `targets` of a copy, with only the copy importable as didax."""
    python = ROOT / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [str(python), "-m", "pytest", *targets, "-p", "no:cacheprovider", *args]
    result = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True)
    return TestRun(result.returncode, result.stdout + result.stderr)


def is_stub(source: str, qualname: str) -> bool:
    """Whether the function's body is still the exercise's `raise NotImplementedError("exercise: ...")`."""
    fn = find_function(ast.parse(source), qualname)
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return False
    return "exercise: write the body of" in ast.unparse(body[0])


def with_model_answers(copy: Path, stage: Path, keep: str, functions: list[str], into: Path) -> Path:
    """A scratch copy of `copy` in which every function of `functions` except `keep` is the stage's
    own (the model answer): run its tests, and what fails is `keep`'s doing."""
    shutil.copytree(copy, into, ignore=_IGNORE)
    for rel, names in parse_removals(",".join(f for f in functions if f != keep)).items():
        mine = (into / rel).read_text(encoding="utf-8")
        model = (stage / rel).read_text(encoding="utf-8")
        mine_lines, model_lines = mine.splitlines(keepends=True), model.splitlines(keepends=True)
        spans = []
        for name in names:
            a, b = find_function(ast.parse(mine), name), find_function(ast.parse(model), name)
            a_start = min([a.lineno, *(d.lineno for d in a.decorator_list)])
            b_start = min([b.lineno, *(d.lineno for d in b.decorator_list)])
            spans.append((a_start - 1, a.end_lineno or a.lineno, model_lines[b_start - 1:b.end_lineno]))
        for start, end, replacement in sorted(spans, key=lambda s: s[0], reverse=True):
            mine_lines[start:end] = replacement
        (into / rel).write_text("".join(mine_lines), encoding="utf-8")
    return into


@dataclass
class Verdict:
    function: str
    state: str  # "solved", "not written yet", "failing"
    detail: str = ""


def verdicts(copy: Path, stage: Path, functions: list[str], targets: list[str],
             all_passed: bool) -> list[Verdict]:
    """Solved or not, function by function. When the tests fail, each written function is tried
    alone, the others replaced by the model answers, so a failure is blamed on the right one."""
    out: list[Verdict] = []
    written = []
    for spec in functions:
        rel, _, name = spec.rpartition(":")
        try:
            stub = is_stub((copy / rel).read_text(encoding="utf-8"), name)
        except SyntaxError as err:
            out.append(Verdict(spec, "failing", f"{rel} does not parse: {err.msg} (line {err.lineno})"))
            continue
        except (OSError, ExerciseError) as err:
            out.append(Verdict(spec, "failing", f"cannot read it: {err}"))
            continue
        if stub:
            out.append(Verdict(spec, "not written yet", "its body still raises NotImplementedError"))
        elif all_passed:
            out.append(Verdict(spec, "solved"))
        else:
            written.append(spec)
            out.append(Verdict(spec, "?"))
    for verdict in out:
        if verdict.state != "?":
            continue
        with tempfile.TemporaryDirectory(prefix="didax-exercise-") as tmp:
            trial = with_model_answers(copy, stage, verdict.function, functions, Path(tmp) / "copy")
            run = run_tests(trial, targets, ["-x", "-q", "--tb=no"])
        verdict.state = "solved" if run.returncode == 0 else "failing"
        verdict.detail = "" if run.returncode == 0 else run.first_failure
    return out


def read_meta(copy: Path) -> dict[str, Any]:
    path = copy / META
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}


def check(copy: Path, extra: list[str], out: Any = None, own_tests_only: bool = False) -> int:
    """Run the set's own tests, then the rest of the copy's tests (unless `own_tests_only`), each
    stopping at the first failure with a short traceback; end with a verdict per exercise function.
    0 when everything run passes."""
    out = out or sys.stdout
    if not copy.is_dir():
        raise ExerciseError(f"no folder {copy}; make one with: python3 site/exercises.py make STAGE --set NAME")
    if not (copy / "didax").is_dir() or not (copy / "tests").is_dir():
        raise ExerciseError(f"{copy} is not a copy of a stage: it has no didax/ and tests/ folders")
    meta = read_meta(copy)
    functions: list[str] = list(meta.get("functions", []))
    phases = []
    if meta.get("tests"):
        phases.append((f"the set's own tests ({', '.join(meta['tests'])})", list(meta["tests"])))
        # Then the rest: the set's files have just passed, and running them again proves nothing.
        if not own_tests_only:
            rest = ["tests", *(f"--ignore={t}" for t in meta["tests"])]
            phases.append(("the rest of the stage's tests", rest))
    else:
        phases.append(("all of the stage's tests", ["tests"]))
    failed: tuple[list[str], TestRun] | None = None
    for label, targets in phases:
        print(f"exercises: running {label}, stopping at the first failure", file=out, flush=True)
        run = run_tests(copy, targets, ["-x", "-q", "--tb=short", *extra])
        print(run.output.rstrip(), file=out, flush=True)
        if run.returncode:
            failed = (targets, run)
            break
    print("", file=out)
    sets = ", ".join(meta.get("sets", [])) or "functions chosen with --remove"
    if not functions:
        state = "pass" if failed is None else f"fail; the first failure: {failed[1].first_failure}"
        print(f"exercises: summary for {copy}: the tests {state}", file=out)
        return 0 if failed is None else 1
    stage = STAGES / meta.get("stage", "")
    if failed is not None and not (stage / "didax").is_dir():
        raise ExerciseError(f"the copy names stage {meta.get('stage')!r}, which is not under {STAGES}")
    results = verdicts(copy, stage, functions, failed[0] if failed else [], failed is None)
    print(f"exercises: summary for {copy} (set {sets} of {meta.get('stage')})", file=out)
    for v in results:
        print(f"  {v.state:16s} {v.function}", file=out)
        if v.detail:
            print(f"  {'':16s}   {v.detail}", file=out)
    solved = sum(v.state == "solved" for v in results)
    if failed is not None and solved == len(results):
        print(f"  every function passes alone, but together they fail: {failed[1].first_failure}", file=out)
    passes = ("; the set's own tests pass (--own-tests: the rest was not run)" if own_tests_only and meta.get("tests")
              else "; every test of the stage passes")
    print(f"exercises: {solved} of {len(results)} solved" + (passes if failed is None else ""), file=out)
    return 0 if failed is None else 1


def list_sets(stage: str | None, out: Any = None) -> None:
    out = out or sys.stdout
    stages = [stage] if stage else [s for s in known_stages() if s in EXERCISES]
    if stage:
        stage_dir(stage)
    for name in stages:
        print(f"{name}:", file=out)
        for ex in EXERCISES.get(name, []):
            print(f"  {ex.name:18s} {ex.summary}", file=out)
            for fn in ex.functions:
                print(f"  {'':18s}   {fn}", file=out)
        if not EXERCISES.get(name):
            print("  (no exercise sets yet)", file=out)
    print("make one:  python3 site/exercises.py make STAGE --set NAME", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list the exercise sets (of every stage, or of one)")
    p_list.add_argument("stage", nargs="?")
    p_make = sub.add_parser("make", help="make a working copy of a stage with bodies removed")
    p_make.add_argument("stage")
    p_make.add_argument("--set", dest="sets", action="append", default=[], help="a named exercise set")
    p_make.add_argument("--remove", default="", help="FILE:FUNCTION,... (paths relative to the stage)")
    p_make.add_argument("--into", type=Path, help="the folder to make (default build/exercises/STAGE)")
    p_make.add_argument("--force", action="store_true", help="replace the folder if it exists")
    p_check = sub.add_parser("check", help="run a working copy's tests and say which functions are solved")
    p_check.add_argument("copy", type=Path)
    p_check.add_argument("--own-tests", action="store_true",
                         help="run only the test files of the copy's sets, not the rest of the stage's tests")
    p_check.add_argument("pytest_args", nargs=argparse.REMAINDER, help="more pytest arguments")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            list_sets(args.stage)
            return 0
        if args.command == "make":
            removals = parse_removals(args.remove)
            chosen = [exercise_set(args.stage, name) for name in args.sets]
            for ex in chosen:
                for rel, names in parse_removals(",".join(ex.functions)).items():
                    removals.setdefault(rel, []).extend(n for n in names if n not in removals.get(rel, []))
            if not removals:
                print("exercises: nothing to remove; the copy is the stage as it is", file=sys.stderr)
            into = args.into or DEFAULT_INTO / args.stage
            copy = make(args.stage, removals, into.resolve(), args.force, chosen)
            removed = ", ".join(f"{rel}:{n}" for rel, names in removals.items() for n in names) or "nothing"
            print(f"exercises: made {copy} with these bodies removed: {removed}")
            for ex in chosen:
                for name, text in ex.expects.items():
                    print(textwrap.fill(f"{name}: {text}", width=100, initial_indent="  ",
                                        subsequent_indent="      "))
            print(f"exercises: now run  python3 site/exercises.py check {os.path.relpath(copy)}")
            return 0
        return check(args.copy.resolve(), args.pytest_args, own_tests_only=args.own_tests)
    except ExerciseError as err:
        print(f"exercises: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
