"""Partial evaluation: run what is known now, stage what is not. Stage 06 introduced it.

Reverse mode starts from forward mode. ``jvp`` of a function computes primals and tangents in one
pass; the tangents depend linearly on the input tangents, the primals not at all. Give the
primals as known values and the tangents as *unknown* ones, and interpret the jvp with this
module's trace: every operation whose inputs are all known runs at once (the primal computation,
and everything the tangent rules compute from primals alone), and every operation that reads an
unknown is not run but recorded. What is recorded is a jaxpr of the tangent computation alone,
with the known values it reads (the *residuals*) as its constants. That jaxpr is the linearized
function, and stage 06's ``linearize`` is exactly this; transposing it (transpose.py) gives vjp.

A known value is a ``PartialVal`` holding it; an unknown one holds only its type. An unknown
tracer remembers how it was made (its *recipe*: an input, a known constant it had to become, or
an equation over other tracers), and ``tracers_to_jaxpr`` walks those recipes back from the
outputs to build the jaxpr.

The same split exists on jaxprs: ``partial_eval_jaxpr`` cuts a jaxpr into the part that
computes from known inputs (and the residuals), and the part that needs the unknown ones. The
control-flow primitives and jit hold jaxprs, so their rule here splits those; the trace uses the
same rules (``_partial_eval_with_rule``), so each is written once.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from . import lax
from .ad import Zero, instantiate
from .core import Primitive, ShapedArray, Trace, Tracer, full_lower, full_raise, get_aval, new_main
from .jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr, new_eqn
from .lax.loops import carry_fixed_point, split_list
from .staging import abstract_eval, dce_jaxpr, shaped, trace_to_jaxpr

# ----------------------------------------------------------------------------------------------
# Known and unknown values, and how an unknown one was made.


class PartialVal(NamedTuple):
    """A value that is either known (``const`` holds it) or unknown (only its type, ``aval``)."""

    aval: ShapedArray
    const: Any

    @classmethod
    def known(cls, val: Any) -> PartialVal:
        return cls(get_aval(val), val)

    @classmethod
    def unknown(cls, aval: ShapedArray) -> PartialVal:
        return cls(shaped(aval), None)

    @property
    def is_known(self) -> bool:
        return self.const is not None


class LambdaBindingRecipe(NamedTuple):
    """An input of the function being partially evaluated."""


class ConstRecipe(NamedTuple):
    """A known value that an unknown computation reads: a residual, a constant of the jaxpr."""

    val: Any


class JaxprEqnRecipe(NamedTuple):
    """An equation recorded because one of its inputs was unknown. Its outputs are held weakly:
    an output nobody kept needs no variable of its own."""

    prim: Primitive
    tracers_in: list[PartialEvalTracer]
    params: dict[str, Any]
    avals_out: list[ShapedArray]
    tracer_refs_out: list[weakref.ReferenceType[PartialEvalTracer]]


Recipe = LambdaBindingRecipe | ConstRecipe | JaxprEqnRecipe


# ----------------------------------------------------------------------------------------------
# The interpreter.


class PartialEvalTracer(Tracer):
    __slots__ = ("_trace", "pval", "recipe")

    def __init__(self, trace: PartialEvalTrace, pval: PartialVal, recipe: Recipe | None) -> None:
        self._trace = trace
        self.pval = pval
        self.recipe = recipe

    @property
    def aval(self) -> ShapedArray:
        return self.pval.aval

    def full_lower(self) -> Any:
        # A known value needs no tracer: it goes on as the value itself.
        return full_lower(self.pval.const) if self.pval.is_known else self

    def __repr__(self) -> str:
        return f"PartialEvalTracer<{self.aval}>"


class PartialEvalTrace(Trace):
    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        return PartialEvalTracer(self, pval, LambdaBindingRecipe())

    def pure(self, val: Any) -> PartialEvalTracer:
        return PartialEvalTracer(self, PartialVal.known(val), None)

    lift = pure

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        """An unknown tracer standing for a known value, for a recorded equation to read."""
        if not tracer.pval.is_known:
            return tracer
        return PartialEvalTracer(self, PartialVal.unknown(tracer.aval), ConstRecipe(tracer.pval.const))

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        if all(t.pval.is_known for t in tracers):  # everything known: just compute it
            return primitive.bind(*[t.pval.const for t in tracers], **params)
        if primitive in partial_eval_jaxpr_rules:  # jit and control flow split their jaxprs
            return _partial_eval_with_rule(self, primitive, tracers, params)
        return self.record(primitive, [self.instantiate_const(t) for t in tracers], params)

    def record(self, primitive: Primitive, tracers_in: list[PartialEvalTracer], params: dict) -> Any:
        """Stage ``primitive`` on unknown tracers: its outputs are unknown tracers made by it."""
        avals_out = abstract_eval(primitive, [t.aval for t in tracers_in], params)
        avals = avals_out if primitive.multiple_results else [avals_out]
        outs = [PartialEvalTracer(self, PartialVal.unknown(a), None) for a in avals]
        recipe = JaxprEqnRecipe(primitive, tracers_in, params, list(avals), [weakref.ref(t) for t in outs])
        for t in outs:
            t.recipe = recipe
        return outs if primitive.multiple_results else outs[0]


# ----------------------------------------------------------------------------------------------
# Partially evaluating a function, and building the jaxpr of its unknown part.


def partial_eval_flat(
    fun: Callable[..., list[Any]], pvals_in: Sequence[PartialVal], instantiate: bool | Sequence[bool] = False
) -> tuple[Jaxpr, list[PartialVal], list[Any]]:
    """Run ``fun`` (flat inputs, a flat list out) on known and unknown inputs.

    Returns the jaxpr of its unknown part, ``(*consts, *unknown inputs) -> unknown outputs``, the
    outputs as PartialVals (the known ones hold their values), and the consts (the residuals). An
    output marked in ``instantiate`` is made unknown even when it is known, so the jaxpr gives it.
    """
    with new_main(PartialEvalTrace) as main:
        trace = PartialEvalTrace(main)
        tracers_in = [trace.new_arg(p) if not p.is_known else p.const for p in pvals_in]
        outs = fun(*tracers_in)
        inst = [instantiate] * len(outs) if isinstance(instantiate, bool) else instantiate
        tracers_out = [full_raise(trace, x) for x in outs]
        tracers_out = [trace.instantiate_const(t) if i else t for t, i in zip(tracers_out, inst)]
        pvals_out = [t.pval for t in tracers_out]
        unknown_in = [t for t in tracers_in if isinstance(t, PartialEvalTracer)]
        unknown_out = [t for t in tracers_out if not t.pval.is_known]
        jaxpr, consts = tracers_to_jaxpr(unknown_in, unknown_out)
    return jaxpr, pvals_out, consts


def tracers_to_jaxpr(
    tracers_in: list[PartialEvalTracer], tracers_out: list[PartialEvalTracer]
) -> tuple[Jaxpr, list[Any]]:
    """The jaxpr that computes ``tracers_out`` from ``tracers_in``, read off their recipes: an
    equation per recipe, in an order where each comes after those it reads."""
    var_of: dict[int, Var] = {id(t): Var(t.aval) for t in tracers_in}
    constvars: dict[int, Var] = {}  # id(known value) -> its variable
    consts: list[Any] = []
    eqns: list[JaxprEqn] = []
    done: set[int] = set()
    for t in toposort(tracers_out):
        recipe = t.recipe
        if type(recipe) is ConstRecipe:
            var = constvars.get(id(recipe.val))
            if var is None:
                var = constvars[id(recipe.val)] = Var(t.aval)
                consts.append(recipe.val)
            var_of[id(t)] = var
        elif type(recipe) is JaxprEqnRecipe and id(recipe) not in done:
            done.add(id(recipe))
            outvars = []
            for ref, aval in zip(recipe.tracer_refs_out, recipe.avals_out):
                out = ref()
                outvars.append(var_of.setdefault(id(out), Var(aval)) if out is not None else Var(aval))
            invars = tuple(var_of[id(x)] for x in recipe.tracers_in)
            eqns.append(new_eqn((recipe.prim, invars, tuple(outvars), recipe.params)))
        elif type(recipe) is LambdaBindingRecipe and id(t) not in var_of:
            raise AssertionError("a partial evaluation input that was not declared reached the jaxpr")
    jaxpr = Jaxpr(list(constvars.values()), [var_of[id(t)] for t in tracers_in],
                  [var_of[id(t)] for t in tracers_out], eqns)  # fmt: skip
    return jaxpr, consts


def _parents(t: PartialEvalTracer) -> list[PartialEvalTracer]:
    return t.recipe.tracers_in if type(t.recipe) is JaxprEqnRecipe else []


def toposort(outs: list[PartialEvalTracer]) -> list[PartialEvalTracer]:
    """The tracers ``outs`` depend on, each after its parents. Iterative: a chain of thousands of
    operations must not reach Python's recursion limit."""
    order: list[PartialEvalTracer] = []
    seen: set[int] = set()
    for root in outs:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(_parents(root)))]
        while stack:
            node, parents = stack[-1]
            for p in parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, iter(_parents(p))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


# ----------------------------------------------------------------------------------------------
# Partial evaluation of a jaxpr. ``partial_eval_jaxpr(closed, in_unknowns, instantiate)`` gives
#   known:   (*known inputs) -> (*known outputs, *residuals)
#   unknown: (*residuals, *unknown inputs) -> (*unknown outputs)
# An equation with an unknown input goes to the unknown side, and each known variable it reads
# becomes a residual; a primitive that holds jaxprs splits itself with its rule in
# ``partial_eval_jaxpr_rules``: ``rule(in_unknowns, eqn) -> (known eqn or None, unknown eqn or
# None, out_unknowns, residual variables)``.

PartialEvalJaxprRule = Callable[[list[bool], JaxprEqn], tuple[Any, Any, list[bool], list[Var]]]
partial_eval_jaxpr_rules: dict[Primitive, PartialEvalJaxprRule] = {}


class PartialEvalResult(NamedTuple):
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    out_unknowns: list[bool]
    num_res: int


def partial_eval_jaxpr(
    closed: ClosedJaxpr, in_unknowns: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> PartialEvalResult:
    """Split ``closed`` into its known and unknown parts (see above). An output marked in
    ``instantiate`` comes out of the unknown part even when it is known."""
    return _partial_eval_jaxpr(closed, tuple(in_unknowns), _as_flags(instantiate, len(closed.jaxpr.outvars)))


def _as_flags(flag: bool | Sequence[bool], n: int) -> tuple[bool, ...]:
    return (flag,) * n if isinstance(flag, bool) else tuple(flag)


@functools.lru_cache(maxsize=1024)
def _partial_eval_jaxpr(
    closed: ClosedJaxpr, in_unknowns: tuple[bool, ...], instantiate: tuple[bool, ...]
) -> PartialEvalResult:
    # Remembered per jaxpr: a jitted function differentiated again splits the same jaxpr, and must
    # get the same jaxprs back, so that their compilations are found in jit's cache.
    jaxpr = closed.jaxpr
    unknown: set[Var] = {v for v, uk in zip(jaxpr.invars, in_unknowns) if uk}
    residuals: dict[Var, None] = {}  # ordered: the residuals' order is the jaxprs' interface

    def is_unknown(x: Atom) -> bool:
        return type(x) is Var and x in unknown

    def as_residual(x: Atom) -> Atom:
        if type(x) is Var and x not in unknown:
            residuals[x] = None
        return x

    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(x) for x in eqn.invars]
        rule = partial_eval_jaxpr_rules.get(eqn.primitive)
        if rule is not None and any(unks_in):
            eqn_known, eqn_unknown, unks_out, _ = rule(unks_in, eqn)
            if eqn_known is not None:
                known_eqns.append(eqn_known)
            if eqn_unknown is not None:
                unknown_eqns.append(eqn_unknown)
                for x in eqn_unknown.invars:  # the rule's own residuals, and known variables it reads
                    as_residual(x)
            unknown.update(v for v, uk in zip(eqn.outvars, unks_out) if uk)
        elif any(unks_in):
            unknown_eqns.append(eqn)
            for x in eqn.invars:
                as_residual(x)
            unknown.update(eqn.outvars)
        else:
            known_eqns.append(eqn)
    out_unknowns = [is_unknown(v) or inst for v, inst in zip(jaxpr.outvars, instantiate)]
    for v, uk in zip(jaxpr.outvars, out_unknowns):
        if uk:
            as_residual(v)
    # An input of the whole jaxpr that is known and read by the unknown side is a residual too: the
    # known jaxpr passes it through.
    res = list(residuals)
    known_in = [v for v, uk in zip(jaxpr.invars, in_unknowns) if not uk]
    unknown_in = [v for v, uk in zip(jaxpr.invars, in_unknowns) if uk]
    known_out = [v for v, uk in zip(jaxpr.outvars, out_unknowns) if not uk]
    unknown_out = [v for v, uk in zip(jaxpr.outvars, out_unknowns) if uk]
    known = ClosedJaxpr(Jaxpr(jaxpr.constvars, known_in, [*known_out, *res], known_eqns), closed.consts)
    unknown_jaxpr = ClosedJaxpr(Jaxpr((), [*res, *unknown_in], unknown_out, unknown_eqns), ())
    return PartialEvalResult(known, unknown_jaxpr, out_unknowns, len(res))


def _partial_eval_with_rule(
    trace: PartialEvalTrace, primitive: Primitive, tracers: list[PartialEvalTracer], params: dict
) -> Any:
    """Partially evaluate one application of a primitive that has a jaxpr rule: write it as an
    equation, split that with the rule, run the known equation now and record the unknown one."""
    in_vars = [Var(shaped(t.aval)) for t in tracers]
    avals_out = abstract_eval(primitive, [v.aval for v in in_vars], params)
    avals_out = avals_out if primitive.multiple_results else [avals_out]
    out_vars = [Var(a) for a in avals_out]
    eqn = new_eqn((primitive, tuple(in_vars), tuple(out_vars), params))
    unks_in = [not t.pval.is_known for t in tracers]
    eqn_known, eqn_unknown, unks_out, _ = partial_eval_jaxpr_rules[primitive](unks_in, eqn)
    env: dict[Var, Any] = {v: t for v, t in zip(in_vars, tracers) if not t.pval.is_known}
    known: dict[Var, Any] = {v: t.pval.const for v, t in zip(in_vars, tracers) if t.pval.is_known}
    if eqn_known is not None:
        args = [known[x] if type(x) is Var else x.val for x in eqn_known.invars]
        outs = eqn_known.primitive.bind(*args, **eqn_known.params)
        known.update(zip(eqn_known.outvars, outs if eqn_known.primitive.multiple_results else [outs]))
    if eqn_unknown is not None:
        tracers_in = [env[x] if x in env else trace.instantiate_const(trace.pure(_value(known, x)))
                      for x in eqn_unknown.invars]  # fmt: skip
        outs = trace.record(eqn_unknown.primitive, tracers_in, eqn_unknown.params)
        env.update(zip(eqn_unknown.outvars, outs if eqn_unknown.primitive.multiple_results else [outs]))
    results = [env[v] if uk else known[v] for v, uk in zip(out_vars, unks_out)]
    return results if primitive.multiple_results else results[0]


def _value(known: dict[Var, Any], x: Atom) -> Any:
    return known[x] if type(x) is Var else x.val




# ----------------------------------------------------------------------------------------------
# Rules for the primitives that hold jaxprs (jit's is in jit.py, beside the primitive).


def _fresh(outvars: Sequence[Var], keep: Sequence[bool]) -> tuple[Var, ...]:
    """``outvars`` where ``keep`` says so, new variables elsewhere: a staged equation that also
    computes outputs the known side already defines must not define them twice."""
    return tuple(v if k else Var(v.aval) for v, k in zip(outvars, keep))


def _cond_partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """With the branch index known, each branch splits alike: the known cond runs the chosen
    branch's known part, the staged cond the same branch's unknown part. Branches leave residuals
    of different types, so every branch outputs every branch's residual slots (zeros in the
    others'), and the staged branches each read their own. An unknown index stages the whole cond."""
    index_unknown, *ops_unknown = unks_in
    n_out = len(eqn.outvars)
    if index_unknown:
        return None, eqn, [True] * n_out, []
    branches = eqn.params["branches"]
    out_uks = [any(uks) for uks in zip(*(partial_eval_jaxpr(b, ops_unknown).out_unknowns for b in branches))]
    splits = [partial_eval_jaxpr(b, ops_unknown, out_uks) for b in branches]
    res_avals = [a for s in splits for a in s.known.out_avals[n_out - sum(out_uks):]]
    known_branches, unknown_branches, start = [], [], 0
    for s in splits:
        known_branches.append(_with_residual_slots(s, res_avals, start))
        unknown_branches.append(_reading_residual_slots(s.unknown, res_avals, start, s.num_res))
        start += s.num_res
    res_vars = [Var(a) for a in res_avals]
    index = eqn.invars[0]
    known_in = [x for x, uk in zip(eqn.invars[1:], ops_unknown) if not uk]
    unknown_in = [x for x, uk in zip(eqn.invars[1:], ops_unknown) if uk]
    known_out = [v for v, uk in zip(eqn.outvars, out_uks) if not uk]
    unknown_out = [v for v, uk in zip(eqn.outvars, out_uks) if uk]
    eqn_known = new_eqn((eqn.primitive, (index, *known_in), (*known_out, *res_vars),
                         {"branches": tuple(known_branches)}))  # fmt: skip
    eqn_unknown = new_eqn((eqn.primitive, (index, *res_vars, *unknown_in), tuple(unknown_out),
                           {"branches": tuple(unknown_branches)}))  # fmt: skip
    return eqn_known, eqn_unknown, out_uks, res_vars


def _with_residual_slots(split: PartialEvalResult, res_avals: list[ShapedArray], start: int) -> ClosedJaxpr:
    """A branch's known part, outputting every branch's residual slots: its own at ``start``, zeros
    in the others."""
    known = split.known
    n_out = len(known.out_avals) - split.num_res

    def padded(*args: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        res = iter(outs[n_out:])
        slots = [next(res) if start <= i < start + split.num_res else instantiate(Zero(a))
                 for i, a in enumerate(res_avals)]  # fmt: skip
        return [*outs[:n_out], *slots]

    closed, _ = trace_to_jaxpr(padded, known.in_avals)
    return closed


def _reading_residual_slots(unknown: ClosedJaxpr, res_avals: list[ShapedArray], start: int, n: int) -> ClosedJaxpr:
    """A branch's unknown part taking every residual slot and reading its own ``n`` at ``start``."""
    j = unknown.jaxpr
    slots = [Var(a) for a in res_avals]
    slots[start : start + n] = j.invars[:n]
    return ClosedJaxpr(Jaxpr(j.constvars, [*slots, *j.invars[n:]], j.outvars, j.eqns), unknown.consts)


def _while_partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """The known carries loop on their own (their body does not read the unknown ones); the staged
    loop is the whole loop again, known carries recomputed, so it needs no residual per iteration.
    That loop cannot be transposed: reverse mode through while_loop is an error, forward mode works."""
    p = eqn.params
    cc_uk, bc_uk, init_uk = split_list(unks_in, [p["cond_nconsts"], p["body_nconsts"]])
    body, cond = p["body_jaxpr"], p["cond_jaxpr"]
    carry_uk = carry_fixed_point(lambda uk: partial_eval_jaxpr(body, bc_uk + uk).out_unknowns, init_uk)
    n = len(carry_uk)
    cond_uk = partial_eval_jaxpr(cond, cc_uk + carry_uk).out_unknowns[0]
    if cond_uk or all(carry_uk):
        return None, eqn, [True] * n, []
    known_body = _restricted(body, bc_uk + carry_uk, [not u for u in carry_uk])
    known_cond = _restricted(cond, cc_uk + carry_uk, [True])
    cconsts, bconsts, init = split_list(list(eqn.invars), [p["cond_nconsts"], p["body_nconsts"]])
    keep = lambda xs, uks: [x for x, u in zip(xs, uks) if not u]  # noqa: E731
    known_in = (*keep(cconsts, cc_uk), *keep(bconsts, bc_uk), *keep(init, carry_uk))
    params = dict(p, cond_jaxpr=known_cond, body_jaxpr=known_body, cond_nconsts=len(keep(cconsts, cc_uk)),
                  body_nconsts=len(keep(bconsts, bc_uk)))  # fmt: skip
    eqn_known = new_eqn((eqn.primitive, known_in, tuple(keep(eqn.outvars, carry_uk)), params))
    eqn_unknown = new_eqn((eqn.primitive, eqn.invars, _fresh(eqn.outvars, carry_uk), p))
    return eqn_known, eqn_unknown, carry_uk, []


def _restricted(closed: ClosedJaxpr, unknown_in: list[bool], used_out: list[bool]) -> ClosedJaxpr:
    """``closed`` computing only the outputs ``used_out`` from its known inputs alone (those
    outputs must not read the unknown ones)."""
    j = closed.jaxpr
    outvars = [v for v, u in zip(j.outvars, used_out) if u]
    pruned, _ = dce_jaxpr(Jaxpr(j.constvars, j.invars, outvars, j.eqns), True, instantiate=True)
    invars = [v for v, uk in zip(pruned.invars, unknown_in) if not uk]
    return ClosedJaxpr(Jaxpr(pruned.constvars, invars, pruned.outvars, pruned.eqns), closed.consts)


def _scan_partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """The known scan runs the body's known part and stacks its residuals, one per iteration, as
    extra ys; the staged scan runs the unknown part over them. Residuals that are constants of the
    loop are passed once, not stacked."""
    p = eqn.params
    body, n_consts, n_carry = p["jaxpr"], p["num_consts"], p["num_carry"]
    const_uk, init_uk, xs_uk = split_list(unks_in, [n_consts, n_carry])
    n_ys = len(body.out_avals) - n_carry
    carry_uk = carry_fixed_point(
        lambda uk: partial_eval_jaxpr(body, const_uk + uk + xs_uk).out_unknowns[:n_carry], init_uk
    )
    split = partial_eval_jaxpr(body, const_uk + carry_uk + xs_uk, carry_uk + [False] * n_ys)
    ys_uk = split.out_unknowns[n_carry:]
    known, unknown = split.known.jaxpr, split.unknown.jaxpr
    n_known_out = len(known.outvars) - split.num_res
    # A residual that is one of the body's known constants is that constant: pass it through.
    const_of = {v: x for v, x, uk in zip(body.jaxpr.invars[:n_consts], eqn.invars[:n_consts], const_uk) if not uk}
    res_vars = known.outvars[n_known_out:]
    is_const = [v in const_of for v in res_vars]
    stacked_avals = [_stacked(v.aval, p["length"]) for v, c in zip(res_vars, is_const) if not c]
    stacked = [Var(a) for a in stacked_avals]
    known_body = ClosedJaxpr(Jaxpr(known.constvars, known.invars,
                                   [*known.outvars[:n_known_out], *(v for v, c in zip(res_vars, is_const) if not c)],
                                   known.eqns), split.known.consts)  # fmt: skip
    keep = lambda xs, uks: [x for x, u in zip(xs, uks) if not u]  # noqa: E731
    consts, init, xs = split_list(list(eqn.invars), [n_consts, n_carry])
    carry_out, ys_out = split_list(list(eqn.outvars), [n_carry])
    eqn_known = new_eqn((eqn.primitive, (*keep(consts, const_uk), *keep(init, carry_uk), *keep(xs, xs_uk)),
                         (*keep(carry_out, carry_uk), *keep(ys_out, ys_uk), *stacked),
                         dict(p, jaxpr=known_body, num_consts=len(keep(consts, const_uk)),
                              num_carry=len(keep(init, carry_uk)))))  # fmt: skip
    # The staged body takes (residuals, unknown consts, unknown carry, unknown xs): regroup as
    # scan's operands, (constant residuals, unknown consts | carry | stacked residuals, unknown xs).
    n_res = split.num_res
    res_idx = list(range(n_res))
    const_res = [i for i in res_idx if is_const[i]]
    stacked_res = [i for i in res_idx if not is_const[i]]
    n_uc, n_ucarry = sum(const_uk), sum(carry_uk)
    rest = list(range(n_res, len(unknown.invars)))
    order = [*const_res, *rest[:n_uc], *rest[n_uc : n_uc + n_ucarry], *stacked_res, *rest[n_uc + n_ucarry :]]
    staged_body = ClosedJaxpr(Jaxpr((), [unknown.invars[i] for i in order], unknown.outvars, unknown.eqns), ())
    picked = lambda xs, uks: [x for x, u in zip(xs, uks) if u]  # noqa: E731
    staged_in = (*(const_of[res_vars[i]] for i in const_res), *picked(consts, const_uk), *picked(init, carry_uk),
                 *stacked, *picked(xs, xs_uk))  # fmt: skip
    eqn_unknown = new_eqn((eqn.primitive, staged_in, (*picked(carry_out, carry_uk), *picked(ys_out, ys_uk)),
                           dict(p, jaxpr=staged_body, num_consts=len(const_res) + n_uc, num_carry=n_ucarry)))  # fmt: skip
    return eqn_known, eqn_unknown, carry_uk + ys_uk, stacked


def _stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


partial_eval_jaxpr_rules[lax.cond_p] = _cond_partial_eval
partial_eval_jaxpr_rules[lax.scan_p] = _scan_partial_eval
partial_eval_jaxpr_rules[lax.while_p] = _while_partial_eval
