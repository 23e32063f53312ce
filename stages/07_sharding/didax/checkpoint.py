"""Rematerialization: ``checkpoint`` (or ``remat``) trades memory for compute. Stage 06 introduced it.

Reverse mode keeps every residual of the forward pass until the backward pass reads it: memory
grows with the length of the program. A function wrapped in ``checkpoint`` keeps only what its
*policy* allows (by default nothing but its inputs) and computes the rest again when the backward
pass needs it. The values are the same; what changes is where the work is done.

``checkpoint`` is a primitive, ``remat2`` as JAX names it, holding the function's jaxpr. Its
partial evaluation rule is the whole idea: the known side computes the outputs and saves only
the residuals the policy allows; the staged side holds again every known equation whose result
it reads and may not be saved, so that the backward pass recomputes it (transposition evaluates
equations that read no linear value before it runs the linear ones backwards).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import ad, batching, partial_eval, transpose
from .core import Primitive, ShapedArray
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, PrintContext, Var, _pp_eqn, eval_jaxpr, new_eqn, pp_eqn_rules
from .lowering.core import lower_fun, lowering_rules
from .staging import dce_jaxpr, hoist_consts, shaped_abstractify, trace_flat
from .tree_util import tree_flatten, tree_unflatten

Policy = Callable[..., bool]  # policy(primitive, *input avals, **params) -> may its outputs be saved?


class checkpoint_policies:  # noqa: N801 - JAX's name (a module of functions there)
    """Which intermediate values a checkpointed function may keep for the backward pass."""

    @staticmethod
    def everything_saveable(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return True

    @staticmethod
    def nothing_saveable(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return False

    @staticmethod
    def dots_saveable(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return prim.name == "dot_general"

    checkpoint_dots = dots_saveable

    @staticmethod
    def dots_with_no_batch_dims_saveable(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return prim.name == "dot_general" and not params["dimension_numbers"][1][0]


def checkpoint(
    fun: Callable[..., Any],
    *,
    prevent_cse: bool = True,
    policy: Policy | None = None,
    static_argnums: int | tuple[int, ...] = (),
) -> Callable[..., Any]:
    """``fun``, whose intermediate values reverse mode recomputes instead of saving, except those
    ``policy`` allows (``checkpoint_policies``; None saves nothing). ``prevent_cse`` is kept as a
    parameter, as JAX keeps it; arguments at ``static_argnums`` are passed as they are."""
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def fun_remat(*args: Any, **kwargs: Any) -> Any:
        dynamic = tuple(a for i, a in enumerate(args) if i not in static)

        def with_statics(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            return fun(*[a if i in static else next(it) for i, a in enumerate(args)], **kw)

        leaves, in_tree = tree_flatten((dynamic, kwargs))
        closed, out_tree = trace_flat(with_statics, in_tree, [shaped_abstractify(x) for x in leaves])
        jaxpr, consts = hoist_consts(closed)
        outs = remat_p.bind(*consts, *leaves, jaxpr=jaxpr, prevent_cse=prevent_cse, differentiated=False,
                            policy=policy)  # fmt: skip
        return tree_unflatten(out_tree, outs)

    return fun_remat


remat = checkpoint  # JAX's other name

remat_p = Primitive("remat2")
remat_p.multiple_results = True


@remat_p.def_impl
def _remat_impl(*args: Any, jaxpr: ClosedJaxpr, **_: Any) -> list[Any]:
    return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


remat_p.def_abstract_eval(lambda *avals, jaxpr, **_: jaxpr.out_avals)


def _remat_jvp(primals: list[Any], tangents: list[Any], *, jaxpr: ClosedJaxpr, **params: Any) -> tuple[Any, Any]:
    """The JVP of a checkpointed function is checkpointed: its policy goes on to the JVP jaxpr."""
    nonzeros = tuple(type(t) is not ad.Zero for t in tangents)
    jvp_jaxpr, consts, out_nonzeros = _jvp_of(jaxpr, nonzeros)
    outs = remat_p.bind(*consts, *primals, *(t for t in tangents if type(t) is not ad.Zero), jaxpr=jvp_jaxpr,
                        **dict(params, differentiated=True))  # fmt: skip
    n = len(out_nonzeros)
    primals_out, tangents_out = outs[:n], iter(outs[n:])
    return primals_out, [next(tangents_out) if nz else ad.Zero.like(p) for p, nz in zip(primals_out, out_nonzeros)]


@functools.lru_cache(maxsize=256)
def _jvp_of(jaxpr: ClosedJaxpr, nonzeros: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[Any], list[bool]]:
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, False)
    return (*hoist_consts(jvp_jaxpr), out_nonzeros)


def _remat_batch(vals: list[Any], dims: list[Any], *, jaxpr: ClosedJaxpr, **params: Any) -> tuple[Any, Any]:
    size = batching.batch_size(vals, dims)
    in_batched = [d is not batching.not_mapped for d in dims]
    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]
    batched, out_batched = batching.batch_jaxpr(jaxpr, size, in_batched, False)
    batched, consts = hoist_consts(batched)
    outs = remat_p.bind(*consts, *vals, jaxpr=batched, **params)
    return outs, [0 if b else batching.not_mapped for b in out_batched]


def _remat_partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """The known side computes the known outputs and the residuals the policy allows; the staged
    side recomputes the known values it needs and may not have."""
    params = eqn.params
    policy = params["policy"] or checkpoint_policies.nothing_saveable
    known, staged, out_uks = _split(params["jaxpr"], tuple(unks_in), policy)
    known_in = [x for x, uk in zip(eqn.invars, unks_in) if not uk]
    unknown_in = [x for x, uk in zip(eqn.invars, unks_in) if uk]
    known_out = [v for v, uk in zip(eqn.outvars, out_uks) if not uk]
    unknown_out = [v for v, uk in zip(eqn.outvars, out_uks) if uk]
    residuals = [Var(a) for a in known.out_avals[len(known_out):]]
    eqn_known = new_eqn((remat_p, tuple(known_in), (*known_out, *residuals), dict(params, jaxpr=known)))
    # The staged side reads the known inputs too: what it recomputes starts from them.
    eqn_unknown = new_eqn((remat_p, (*residuals, *known_in, *unknown_in), tuple(unknown_out),
                           dict(params, jaxpr=staged)))  # fmt: skip
    return eqn_known, eqn_unknown, out_uks, residuals


@functools.lru_cache(maxsize=256)
def _split(closed: ClosedJaxpr, unks_in: tuple[bool, ...], policy: Policy) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool]]:
    """(known jaxpr: known inputs -> known outputs and saved residuals, staged jaxpr: residuals,
    known inputs, unknown inputs -> unknown outputs, which outputs are unknown)."""
    jaxpr = closed.jaxpr
    unknown: set[Var] = {v for v, uk in zip(jaxpr.invars, unks_in) if uk}
    saveable: set[Var] = set()
    known_eqns, staged_eqns = [], []

    def add_known(eqn: JaxprEqn) -> None:
        known_eqns.append(eqn)
        if policy(eqn.primitive, *(x.aval for x in eqn.invars), **eqn.params):
            saveable.update(eqn.outvars)
        else:
            staged_eqns.append(eqn)  # computed again on the staged side, if it is read there

    for eqn in jaxpr.eqns:
        unks = [type(x) is Var and x in unknown for x in eqn.invars]
        rule = partial_eval.partial_eval_jaxpr_rules.get(eqn.primitive)
        if any(unks) and rule is not None:  # holds jaxprs (a nested checkpoint, jit, cond): it splits itself
            eqn_known, eqn_unknown, out_uks, _ = rule(unks, eqn)
            if eqn_known is not None:
                add_known(eqn_known)
            if eqn_unknown is not None:
                staged_eqns.append(eqn_unknown)
            unknown.update(v for v, uk in zip(eqn.outvars, out_uks) if uk)
        elif any(unks):
            staged_eqns.append(eqn)
            unknown.update(eqn.outvars)
        else:
            add_known(eqn)
    out_uks = [type(v) is Var and v in unknown for v in jaxpr.outvars]
    known_in = [v for v, uk in zip(jaxpr.invars, unks_in) if not uk]
    unknown_in = [v for v, uk in zip(jaxpr.invars, unks_in) if uk]
    unknown_out = [v for v, uk in zip(jaxpr.outvars, out_uks) if uk]
    # What the staged side reads and does not compute itself is saved: saveable values only.
    pruned, _ = dce_jaxpr(Jaxpr(jaxpr.constvars, [*known_in, *unknown_in], unknown_out, staged_eqns), True, True)
    made = {v for e in pruned.eqns for v in e.outvars}
    read = {x for e in pruned.eqns for x in e.invars if type(x) is Var} | {v for v in unknown_out if type(v) is Var}
    residuals = [v for v in dict.fromkeys(v for e in known_eqns for v in e.outvars) if v in read and v not in made]
    assert all(v in saveable for v in residuals)
    known_out = [v for v, uk in zip(jaxpr.outvars, out_uks) if not uk]
    known_jaxpr, _ = dce_jaxpr(Jaxpr(jaxpr.constvars, known_in, [*known_out, *residuals], known_eqns), True, True)
    staged = Jaxpr((), [*residuals, *known_in, *unknown_in], unknown_out, pruned.eqns)
    return ClosedJaxpr(known_jaxpr, closed.consts), ClosedJaxpr(staged, ()), out_uks


def _remat_transpose(cts: list[Any], *args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list[Any]:
    """Transposed and checkpointed again: the recomputation happens inside the transposed jaxpr."""
    linear = [transpose.is_undefined_primal(x) for x in args]
    transposed, consts = hoist_consts(transpose.transpose_jaxpr(jaxpr, linear))
    res = [x for x in args if not transpose.is_undefined_primal(x)]
    outs = iter(remat_p.bind(*consts, *res, *map(ad.instantiate, cts), jaxpr=transposed,
                             **dict(params, differentiated=True)))  # fmt: skip
    return [next(outs) if lin else None for lin in linear]


def _pp_remat(eqn: JaxprEqn, ctx: PrintContext) -> Any:
    """As JAX prints it: a policy function by its name, its address masked."""
    policy = eqn.params["policy"]
    shown = eqn if policy is None else eqn.replace(params=dict(eqn.params, policy=_Shown(policy)))
    return _pp_eqn(shown, ctx, sorted(eqn.params))


class _Shown:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def __repr__(self) -> str:
        return f"<function {getattr(self.policy, '__name__', 'policy')} at 0xXXXXXXXXXXXX>"


ad.jvp_rules[remat_p] = _remat_jvp
batching.batching_rules[remat_p] = _remat_batch
partial_eval.partial_eval_jaxpr_rules[remat_p] = _remat_partial_eval
transpose.transpose_rules[remat_p] = _remat_transpose
lowering_rules[remat_p] = lower_fun(lambda *args, jaxpr, **_: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args),
                                    multiple_results=True)  # fmt: skip
pp_eqn_rules["remat2"] = _pp_remat
