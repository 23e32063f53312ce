"""Custom derivative rules: ``custom_jvp`` and ``custom_vjp``. Stage 06 introduced them.

Sometimes the derivative a program's operations give is not the one wanted: numerically poor
(``log1p(exp(x))`` at large ``x`` gives ``nan``), or more expensive than a known formula, or
meant to be different (clip a gradient). A user can then give the rule:

- ``custom_jvp``: a JVP rule, ``(primals, tangents) -> (primals_out, tangents_out)``. Reverse mode
  needs nothing more, as everywhere: linearize runs the rule with unknown tangents, and the rule
  must be linear in them.
- ``custom_vjp``: a forward pass that also returns residuals, and a backward pass from residuals
  and output cotangents to input cotangents. There is no JVP to linearize, so the forward pass
  runs, and the backward pass waits inside the linear jaxpr as one equation, ``custom_lin``, whose
  transpose calls it. Forward mode of a custom_vjp function is JAX's TypeError.

Each is a primitive holding the function as a jaxpr (for interpreters that need a program:
staging, lowering, batching) and the user's rules as Python functions on flat lists. Called with
no transformation under way, the function just runs; with forward mode innermost (jvp, and so
grad), the rule runs at once and the function is not traced, as in JAX: only the calls JAX makes
happen, and the function may use Python control flow on its (concrete) arguments.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from . import ad, batching, dtypes, lax, transpose
from .ad import Zero, instantiate, tangent_aval
from .core import Primitive, ShapedArray, find_top_trace, full_raise, trace_state
from .jaxpr import ClosedJaxpr, PrintContext, _pp_eqn, eval_jaxpr, pp_eqn_rules
from .lowering.control_flow import lower_closed
from .lowering.core import lowering_rules
from .staging import hoist_consts, shaped_abstractify, trace_to_jaxpr
from .tree_util import tree_flatten, tree_map, tree_unflatten


class SymbolicZero:
    """A tangent known to be zero, as a custom JVP rule defined with ``symbolic_zeros=True`` sees
    it: its type, no numbers (JAX's name)."""

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __repr__(self) -> str:
        return "SymbolicZero"  # as JAX prints it: its type is in .aval


class CustomVJPPrimal:
    """An argument as a custom_vjp's fwd defined with ``symbolic_zeros=True`` sees it: its value,
    and whether it is perturbed (its tangent is not a symbolic zero: it is being differentiated)."""

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value, self.perturbed = value, perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


class _Rule:
    """A user's rule as a parameter of an equation: a flat function, printed by its name."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self.fn = fn
        self.name = name

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def __repr__(self) -> str:
        return self.name


def _name(fun: Any) -> str:
    return getattr(fun, "__name__", type(fun).__name__)


def _resolve_args(fun: Callable[..., Any], args: tuple, kwargs: dict, kind: str) -> tuple:
    """Keyword arguments bound to their positions, as JAX does before anything is traced."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as err:
        raise TypeError(
            f"The input arguments to the {kind}-decorated function {_name(fun)} could not be resolved to "
            f"positional-only arguments. Binding failed with the error:\n{err}"
        ) from err
    bound.apply_defaults()
    return bound.args


def _split_nondiff(args: tuple, nondiff: tuple[int, ...]) -> tuple[list[Any], list[Any]]:
    return [a for i, a in enumerate(args) if i in nondiff], [a for i, a in enumerate(args) if i not in nondiff]


def _with_nondiff(nondiff: tuple[int, ...], fixed: list[Any], dynamic: Sequence[Any]) -> tuple:
    """The full argument tuple from the fixed (non-differentiated) and the dynamic arguments."""
    fixed_it, dyn_it = iter(fixed), iter(dynamic)
    return tuple(next(fixed_it) if i in nondiff else next(dyn_it) for i in range(len(fixed) + len(dynamic)))


def _stage(fun: Callable[..., Any], nondiff: tuple[int, ...], fixed: list[Any], in_tree: Any,
           leaves: list[Any]) -> tuple[ClosedJaxpr, list[Any], Any]:  # fmt: skip
    """``fun`` as a jaxpr of the flat differentiated arguments (the fixed ones put back in their
    places), on the types of ``leaves``: the jaxpr, its constants hoisted to leading inputs, and
    the tree of its outputs."""
    out_trees: list[Any] = []

    def flat_fun(*xs: Any) -> list[Any]:
        out, out_tree = tree_flatten(fun(*_with_nondiff(nondiff, fixed, tree_unflatten(in_tree, list(xs)))))
        out_trees.append(out_tree)
        return out

    closed, _ = trace_to_jaxpr(flat_fun, [shaped_abstractify(a) for a in leaves])
    return (*hoist_consts(closed), out_trees[0])


# ----------------------------------------------------------------------------------------------
# custom_jvp


class custom_jvp:  # noqa: N801 - JAX's name
    """A function with a JVP rule of the user's: ``f = custom_jvp(fun)``, then ``f.defjvp(rule)``.

    ``rule(primals, tangents)`` returns ``(primals_out, tangents_out)``; arguments at
    ``nondiff_argnums`` are not differentiated and come first: ``rule(*nondiff, primals, tangents)``.
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False) -> Callable[..., Any]:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument, ``jvps[i](tangent_i, primal_out, *primals)`` (None: that argument's
        term is zero); the output tangent is their sum."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
            primal_out = self(*primals)
            terms = [rule(t, primal_out, *primals) for t, rule in zip(tangents, jvps) if rule is not None]
            zeros = tree_map(lambda p: instantiate(Zero.like(p)), primal_out)
            return primal_out, functools.reduce(lambda a, b: tree_map(_add, a, b), terms, zeros)

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_name(self.fun)} using defjvp.")
        args = _resolve_args(self.fun, args, kwargs, "custom_jvp")
        fixed, dynamic = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(dynamic)
        top = find_top_trace(leaves)
        if top is trace_state.eval_trace:  # no transformation: just run it
            return self.fun(*args)
        if isinstance(top, ad.JVPTrace):  # forward mode needs the rule only: fun is not traced
            rule = functools.partial(_flat_jvp, self, fixed, in_tree, out_trees := [])
            primals, tangents = _primals_and_tangents(top, leaves)
            outs = _custom_jvp_call_jvp(primals, tangents, name=_name(self.fun), call_jaxpr=None, jvp=rule,
                                        num_consts=0, symbolic_zeros=self.symbolic_zeros)  # fmt: skip
            return tree_unflatten(out_trees[0], [ad.JVPTracer(top, p, t) for p, t in zip(*outs)])
        call_jaxpr, consts, out_tree = _stage(self.fun, self.nondiff_argnums, fixed, in_tree, leaves)
        flat_jvp = _Rule(functools.partial(_flat_jvp, self, fixed, in_tree, []), _name(self.jvp))
        outs = custom_jvp_call_p.bind(*consts, *leaves, name=_name(self.fun), call_jaxpr=call_jaxpr, jvp=flat_jvp,
                                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)  # fmt: skip
        return tree_unflatten(out_tree, outs)


def _primals_and_tangents(trace: ad.JVPTrace, leaves: list[Any]) -> tuple[list[Any], list[Any]]:
    tracers = [full_raise(trace, x) for x in leaves]
    return [t.primal for t in tracers], [t.tangent for t in tracers]


def _add(a: Any, b: Any) -> Any:
    return transpose.add_cotangents(a, b)


def _flat_jvp(f: custom_jvp, fixed: list[Any], in_tree: Any, out_trees: list[Any], primals: list[Any],
              tangents: list[Any]) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Call the user's JVP rule on pytrees and check what it returns, with JAX's errors; the
    output's structure is appended to ``out_trees``."""
    assert f.jvp is not None
    rule, name = f.jvp, _name(f.fun)
    pair = rule(*fixed, tree_unflatten(in_tree, primals), tree_unflatten(in_tree, tangents))
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(
            f"Custom JVP rule {_name(rule)} for function {name} must produce a pair (list or tuple of length two) "
            f"representing primal and tangent outputs, but got {pair}."
        )
    primals_out, tree = tree_flatten(pair[0])
    tangents_out, tree2 = tree_flatten(pair[1], is_leaf=lambda x: isinstance(x, SymbolicZero))
    if tree != tree2:
        raise TypeError(
            f"Custom JVP rule {_name(rule)} for function {name} must produce primal and tangent outputs with equal "
            f"container (pytree) structures, but got {tree} and {tree2} respectively."
        )
    out_trees.append(tree)
    for p, t in zip(primals_out, tangents_out):
        expected = tangent_aval(shaped_abstractify(p))
        got = t.aval if isinstance(t, SymbolicZero) else shaped_abstractify(t)
        if (got.shape, got.dtype) != (expected.shape, expected.dtype):
            raise TypeError(
                "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. "
                f"Expected {expected.str_short()} (tangent type of {shaped_abstractify(p).str_short()}) but got "
                f"{got.str_short()}."
            )
    return primals_out, tangents_out


custom_jvp_call_p = Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True


@custom_jvp_call_p.def_impl
def _custom_jvp_call_impl(*args: Any, call_jaxpr: ClosedJaxpr, **_: Any) -> list[Any]:
    return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


@custom_jvp_call_p.def_abstract_eval
def _custom_jvp_call_abstract_eval(*avals: ShapedArray, call_jaxpr: ClosedJaxpr, **_: Any) -> list[ShapedArray]:
    return call_jaxpr.out_avals


def _custom_jvp_call_jvp(primals: list[Any], tangents: list[Any], *, name: str, call_jaxpr: ClosedJaxpr, jvp: _Rule,
                         num_consts: int, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Run the user's rule on the arguments (the hoisted constants are the function's own, and get
    no tangent of it). A symbolic zero is zeros, or a SymbolicZero if the rule asked for those."""
    args, arg_tangents = primals[num_consts:], tangents[num_consts:]
    if symbolic_zeros:
        given = [SymbolicZero(t.aval) if type(t) is Zero else t for t in arg_tangents]
    else:
        given = [instantiate(t) for t in arg_tangents]
    primals_out, tangents_out = jvp(args, given)
    return primals_out, [Zero(t.aval) if isinstance(t, SymbolicZero) else t for t in tangents_out]


def _custom_jvp_call_batch(vals: list[Any], dims: list[Any], *, name: str, call_jaxpr: ClosedJaxpr, jvp: _Rule,
                           num_consts: int, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Batch the function's jaxpr, and the rule by vmap: a batched argument's tangent has its
    shape, so it is batched along the same axis (every output is batched, for the rule's sake)."""
    size = batching.batch_size(vals, dims)
    in_batched = [d is not batching.not_mapped for d in dims]
    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]
    batched_jaxpr, _ = batching.batch_jaxpr(call_jaxpr, size, in_batched, True)
    axes = [0 if b else None for b in in_batched[num_consts:]]

    def batched_rule(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        return batching.vmap(lambda p, t: jvp(p, t), in_axes=(axes, axes), out_axes=0, axis_size=size)(primals, tangents)

    outs = custom_jvp_call_p.bind(*vals, name=name, call_jaxpr=batched_jaxpr, jvp=_Rule(batched_rule, jvp.name),
                                  num_consts=num_consts, symbolic_zeros=False)  # fmt: skip
    return outs, [0] * len(outs)


def _transpose_inline(call_jaxpr: ClosedJaxpr, args: Sequence[Any], cts: list[Any]) -> list[Any]:
    cts_in = iter(transpose.backward_pass(call_jaxpr.jaxpr, call_jaxpr.consts, list(args), cts))
    return [next(cts_in) if transpose.is_undefined_primal(a) else None for a in args]


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp
batching.batching_rules[custom_jvp_call_p] = _custom_jvp_call_batch
transpose.transpose_rules[custom_jvp_call_p] = lambda cts, *args, call_jaxpr, **_: _transpose_inline(call_jaxpr, args, cts)
# Compiled, the function is just its primal computation, written in place. (Not traced again from
# the jaxpr: tracing would lose the named axes a shard_map around it binds for its collectives.)
lowering_rules[custom_jvp_call_p] = lambda ctx, *args, call_jaxpr, **_: lower_closed(ctx.fb, call_jaxpr, args)


# ----------------------------------------------------------------------------------------------
# custom_vjp


class custom_vjp:  # noqa: N801 - JAX's name
    """A function with a VJP of the user's: ``f = custom_vjp(fun)``, then ``f.defvjp(fwd, bwd)``.

    ``fwd(*args)`` returns ``(output, residuals)``; ``bwd(residuals, output_cotangent)`` returns a
    tuple with a cotangent per argument (None for a zero one). Arguments at ``nondiff_argnums``
    are not differentiated: ``bwd(*nondiff, residuals, output_cotangent)`` covers the others.
    With ``defvjp(..., symbolic_zeros=True)``, fwd gets each argument as a CustomVJPPrimal (its
    value, and whether it is perturbed), and bwd a SymbolicZero for a cotangent known to be zero.
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any], symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:  # fmt: skip
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {_name(self.fun)} using defvjp.")
        args = _resolve_args(self.fun, args, kwargs, "custom_vjp")
        fixed, dynamic = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(dynamic)
        top = find_top_trace(leaves)
        if top is trace_state.eval_trace:
            return self.fun(*args)
        if isinstance(top, ad.JVPTrace):  # the forward pass runs now, with fwd: fun is not traced
            primals, tangents = _primals_and_tangents(top, leaves)
            rules = _VJPRules(self, fixed, in_tree, None, [shaped_abstractify(p) for p in primals])
            outs = _custom_vjp_call_jvp(primals, tangents, name=_name(self.fun), call_jaxpr=None,
                                        fwd=_Rule(rules.fwd, _name(self.fwd)), bwd=_Rule(rules.bwd, _name(self.bwd)),
                                        num_consts=0, symbolic_zeros=self.symbolic_zeros)  # fmt: skip
            return tree_unflatten(rules.out_tree, [ad.JVPTracer(top, p, t) for p, t in zip(*outs)])
        call_jaxpr, consts, out_tree = _stage(self.fun, self.nondiff_argnums, fixed, in_tree, leaves)
        in_avals = [shaped_abstractify(x) for x in leaves]
        rules = _VJPRules(self, fixed, in_tree, out_tree, in_avals)
        outs = custom_vjp_call_p.bind(*consts, *leaves, name=_name(self.fun), call_jaxpr=call_jaxpr,
                                      fwd=_Rule(rules.fwd, _name(self.fwd)), bwd=_Rule(rules.bwd, _name(self.bwd)),
                                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)  # fmt: skip
        return tree_unflatten(out_tree, outs)


class _VJPRules:
    """The user's fwd and bwd as functions of flat lists, with JAX's checks of what they return."""

    def __init__(self, f: custom_vjp, fixed: list[Any], in_tree: Any, out_tree: Any, in_avals: list[ShapedArray]) -> None:
        self.f, self.fixed, self.in_tree, self.out_tree, self.in_avals = f, fixed, in_tree, out_tree, in_avals
        self.res_tree: Any = None

    def fwd(self, *args: Any) -> tuple[list[Any], list[Any]]:
        f = self.f
        pair = f.fwd(*_with_nondiff(f.nondiff_argnums, self.fixed, tree_unflatten(self.in_tree, list(args))))
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(
                f"Custom VJP fwd rule {_name(f.fwd)} for function {_name(f.fun)} must produce a pair (list or tuple "
                "of length two) where the first element represents the primal output (equal to those of the "
                f"custom_vjp-decorated function {_name(f.fun)}) and the second element represents residuals (i.e. "
                "values stored from the forward pass for use on the backward pass), but instead of a pair the fwd "
                f"rule {_name(f.fwd)} produced {pair}."
            )
        outs, out_tree = tree_flatten(pair[0])
        if self.out_tree is None:  # fun was not traced: fwd's output has the structure to check against
            self.out_tree = out_tree
        if out_tree != self.out_tree:
            raise TypeError(
                f"Custom VJP fwd rule {_name(f.fwd)} for function {_name(f.fun)} must produce a pair (list or tuple "
                "of length two) where the first element represents the primal output (equal to the output of the "
                f"custom_vjp-decorated function {_name(f.fun)}), but its first element had the structure {out_tree} "
                f"where the function's output has {self.out_tree}."
            )
        res, self.res_tree = tree_flatten(pair[1])
        return res, outs

    def bwd(self, res: list[Any], cts: list[Any]) -> list[Any]:
        f = self.f
        fixed = [*self.fixed]
        cts_in = f.bwd(*fixed, tree_unflatten(self.res_tree, res), tree_unflatten(self.out_tree, cts))
        arg_trees = self.in_tree.children()  # one per differentiated argument
        if isinstance(cts_in, list) and len(cts_in) == len(arg_trees):
            cts_in = tuple(cts_in)
        if not isinstance(cts_in, tuple) or len(cts_in) != len(arg_trees):
            raise TypeError(
                "Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args "
                "tuple of the primal function, and in particular must produce a tuple of length equal to the number "
                f"of arguments to the primal function, but got bwd output structure {tree_flatten(cts_in)[1]} for "
                f"primal input structure {self.in_tree}."
            )
        flat: list[Any] = []
        for ct, arg_tree in zip(cts_in, arg_trees):
            n = arg_tree.num_leaves
            flat.extend([None] * n if ct is None else tree_flatten(ct)[0])
        results = []
        for ct, aval in zip(flat, self.in_avals):
            if ct is None or isinstance(ct, SymbolicZero) or tangent_aval(aval).dtype == dtypes.float0:
                results.append(Zero(tangent_aval(aval)))
                continue
            got = shaped_abstractify(ct)
            if (got.shape, got.dtype) != (aval.shape, aval.dtype):
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal "
                    f"function, but the bwd rule produced an output of type {got.str_short()} corresponding to an "
                    f"input of type {aval.str_short()}"
                )
            results.append(ct)
        return results


custom_vjp_call_p = Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True
custom_vjp_call_p.def_impl(_custom_jvp_call_impl)
custom_vjp_call_p.def_abstract_eval(_custom_jvp_call_abstract_eval)


def _custom_vjp_call_jvp(primals: list[Any], tangents: list[Any], *, name: str, call_jaxpr: ClosedJaxpr, fwd: _Rule,
                         bwd: _Rule, num_consts: int, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Run the forward pass now; the tangents that are not symbolic zeros go into ``custom_lin``,
    which only linearize can use: transposed, it runs the backward pass on the residuals."""
    args, arg_tangents = primals[num_consts:], tangents[num_consts:]
    nonzero = tuple(type(t) is not Zero for t in arg_tangents)
    res, primals_out = fwd(*(map(CustomVJPPrimal, args, nonzero) if symbolic_zeros else args))
    out_avals = [tangent_aval(shaped_abstractify(p)) for p in primals_out]
    tangents_out = custom_lin_p.bind(*res, *(t for t in arg_tangents if type(t) is not Zero), num_res=len(res),
                                     bwd=bwd, out_avals=tuple(out_avals), nonzero=nonzero,
                                     symbolic_zeros=symbolic_zeros)  # fmt: skip
    return primals_out, tangents_out


def _custom_vjp_call_batch(vals: list[Any], dims: list[Any], *, name: str, call_jaxpr: ClosedJaxpr, fwd: _Rule,
                           bwd: _Rule, num_consts: int, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Batch the function's jaxpr, and fwd and bwd by vmap: every output and residual batched."""
    size = batching.batch_size(vals, dims)
    in_batched = [d is not batching.not_mapped for d in dims]
    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]
    batched_jaxpr, _ = batching.batch_jaxpr(call_jaxpr, size, in_batched, True)
    axes = [0 if b else None for b in in_batched[num_consts:]]

    def batched_fwd(*args: Any) -> Any:
        if not symbolic_zeros:
            return batching.vmap(fwd, in_axes=axes, out_axes=0, axis_size=size)(*args)
        perturbed = [a.perturbed for a in args]  # the same for every example: vmap maps the values
        one = lambda *values: fwd(*map(CustomVJPPrimal, values, perturbed))  # noqa: E731
        return batching.vmap(one, in_axes=axes, out_axes=0, axis_size=size)(*(a.value for a in args))

    def batched_bwd(res: list[Any], cts: list[Any]) -> list[Any]:
        # A SymbolicZero stays one (of one example's type); the other cotangents are mapped.
        zero = [isinstance(c, SymbolicZero) for c in cts]

        def one(r: list[Any], live: list[Any]) -> list[Any]:
            it = iter(live)
            each = [SymbolicZero(ShapedArray(c.shape[1:], c.dtype)) if z else next(it) for c, z in zip(cts, zero)]
            return [instantiate(x) for x in bwd(r, each)]

        live = [c for c, z in zip(cts, zero) if not z]
        cts_in = batching.vmap(one, out_axes=0, axis_size=size)(res, live)
        return [ct if ax == 0 else _unbatched_sum(ct) for ct, ax in zip(cts_in, axes)]

    outs = custom_vjp_call_p.bind(*vals, name=name, call_jaxpr=batched_jaxpr, fwd=_Rule(batched_fwd, fwd.name),
                                  bwd=_Rule(batched_bwd, bwd.name), num_consts=num_consts,
                                  symbolic_zeros=symbolic_zeros)  # fmt: skip
    return outs, [0] * len(outs)


def _unbatched_sum(ct: Any) -> Any:
    """The cotangent of an argument the batch shared: the sum of every batch member's."""
    return lax.reduce_sum(ct, (0,))


ad.jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp
batching.batching_rules[custom_vjp_call_p] = _custom_vjp_call_batch
transpose.transpose_rules[custom_vjp_call_p] = lambda cts, *args, call_jaxpr, **_: _transpose_inline(call_jaxpr, args, cts)
lowering_rules[custom_vjp_call_p] = lowering_rules[custom_jvp_call_p]

# custom_lin: the linear function reverse mode gets from a custom_vjp function. Evaluating it is
# forward mode, which a custom_vjp function does not have; its transpose is the user's bwd.

custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True


def _forward_mode_error(*args: Any, **params: Any) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_impl(_forward_mode_error)
custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))
lowering_rules[custom_lin_p] = _forward_mode_error


def _custom_lin_transpose(cts: list[Any], *args: Any, num_res: int, bwd: _Rule, out_avals: tuple,
                          nonzero: tuple[bool, ...], symbolic_zeros: bool) -> list[Any]:  # fmt: skip
    """The user's bwd, on the residuals; the cotangents of the tangents that were given. A
    cotangent known to be zero is zeros, or a SymbolicZero if the rule asked for those."""
    if symbolic_zeros:
        cts = [SymbolicZero(ct.aval) if type(ct) is Zero else ct for ct in cts]
    cts_in = bwd(list(args[:num_res]), [ct if isinstance(ct, SymbolicZero) else instantiate(ct) for ct in cts])
    return [None] * num_res + [None if type(ct) is Zero else ct for ct, nz in zip(cts_in, nonzero) if nz]


def _pp_custom_call(eqn: Any, ctx: PrintContext) -> Any:
    """Printed as JAX prints it: the name first, the count of hoisted constants left out."""
    shown = [k for k in sorted(eqn.params) if k not in ("name", "num_consts")]
    return _pp_eqn(eqn, ctx, ["name", *shown])


pp_eqn_rules["custom_jvp_call"] = pp_eqn_rules["custom_vjp_call"] = _pp_custom_call


transpose.transpose_rules[custom_lin_p] = _custom_lin_transpose
