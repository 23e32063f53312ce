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

``checkpoint_name(x, "a")`` marks a value with a name, through a primitive (``name``) that is the
identity in every interpreter, so that policies can choose by name (``save_only_these_names``);
``print_saved_residuals`` says what reverse mode keeps. ``didax.ad_checkpoint`` exports them.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

from . import ad, batching, partial_eval, transpose
from .core import Primitive, ShapedArray
from .jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, PrintContext, Var, _pp_eqn, eval_jaxpr, new_eqn,
                    pp_eqn_rules, short_aval)  # fmt: skip
from .lowering.control_flow import lower_closed
from .lowering.core import lowering_rules
from .reverse import vjp
from .staging import dce_jaxpr, hoist_consts, make_jaxpr, shaped, shaped_abstractify, trace_flat
from .tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_leaves, tree_map, tree_unflatten

Policy = Callable[..., bool]  # policy(primitive, *input avals, **params) -> may its outputs be saved?

# ----------------------------------------------------------------------------------------------
# Names: ``checkpoint_name`` marks a value with a name that a policy can pick. It is a primitive,
# ``name``, the identity in every interpreter, so that the mark survives into the jaxprs that
# partial evaluation splits.

name_p = Primitive("name")


def checkpoint_name(x: Any, name: str) -> Any:
    """``x`` (an array or a pytree of arrays) unchanged, each leaf marked ``name`` for the policies
    of ``checkpoint`` that read names (``save_only_these_names``, ``save_any_names_but_these``)."""
    return tree_map(functools.partial(name_p.bind, name=name), x)


name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda aval, *, name: shaped(aval))


def _name_jvp(primals: list[Any], tangents: list[Any], *, name: str) -> tuple[Any, Any]:
    """The primal keeps its name; the tangent is not named (as in JAX), so no policy saves it and
    transposition never meets a ``name`` equation (it has no transpose rule, as in JAX)."""
    return name_p.bind(primals[0], name=name), tangents[0]


ad.jvp_rules[name_p] = _name_jvp
batching.batching_rules[name_p] = lambda vals, dims, *, name: (name_p.bind(vals[0], name=name), dims[0])
lowering_rules[name_p] = lambda ctx, x, *, name: x

# ----------------------------------------------------------------------------------------------
# Policies: policy(primitive, *input avals, **params) says whether an equation's outputs may be
# saved. Those that are objects print in a jaxpr with their fields, as JAX's do.


def everything_saveable(*_: Any, **__: Any) -> bool:
    return True


def nothing_saveable(*_: Any, **__: Any) -> bool:
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """The results of ``dot_general``, with no batch dimensions if ``only_if_no_batch_dims``."""

    only_if_no_batch_dims: bool

    def __call__(self, prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        if prim.name != "dot_general":
            return False
        return not self.only_if_no_batch_dims or not any(params["dimension_numbers"][1])


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset[str]

    def __call__(self, prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset[str]

    def __call__(self, prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names: str) -> Policy:
    """Save the values named by ``checkpoint_name`` with one of ``names``, and nothing else."""
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names: str) -> Policy:
    """Save the values named by ``checkpoint_name``, except those named one of ``names``."""
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names: str) -> Policy:
    """As in JAX 0.10.2, whose source marks it as not working: it ignores ``names`` and saves
    everything."""
    return lambda *_, **__: True


def save_from_both_policies(policy_1: Policy, policy_2: Policy) -> Policy:
    """Save what either policy saves."""

    def policy(prim: Primitive, *avals: ShapedArray, **params: Any) -> bool:
        return policy_1(prim, *avals, **params) or policy_2(prim, *avals, **params)

    return policy


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


class checkpoint_policies:  # noqa: N801 - JAX's name (a namespace there)
    """Which intermediate values a checkpointed function may keep for the backward pass. JAX's
    policies that offload values to host memory are not here."""

    everything_saveable = everything_saveable
    nothing_saveable = nothing_saveable
    dots_saveable = checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable
    save_only_these_names = save_only_these_names
    save_any_names_but_these = save_any_names_but_these
    save_anything_except_these_names = save_anything_except_these_names
    save_from_both_policies = save_from_both_policies


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
    known, staged, out_uks, known_read = _split(params["jaxpr"], tuple(unks_in), policy)
    known_in = [x for x, uk in zip(eqn.invars, unks_in) if not uk]
    unknown_in = [x for x, uk in zip(eqn.invars, unks_in) if uk]
    known_out = [v for v, uk in zip(eqn.outvars, out_uks) if not uk]
    unknown_out = [v for v, uk in zip(eqn.outvars, out_uks) if uk]
    residuals = [Var(a) for a in known.out_avals[len(known_out):]]
    eqn_known = new_eqn((remat_p, tuple(known_in), (*known_out, *residuals), dict(params, jaxpr=known)))
    # The staged side reads the known inputs it recomputes from: those are saved as they are.
    read = [x for x, r in zip(known_in, known_read) if r]
    eqn_unknown = new_eqn((remat_p, (*residuals, *read, *unknown_in), tuple(unknown_out),
                           dict(params, jaxpr=staged)))  # fmt: skip
    return eqn_known, eqn_unknown, out_uks, residuals


@functools.lru_cache(maxsize=256)
def _split(closed: ClosedJaxpr, unks_in: tuple[bool, ...], policy: Policy) -> tuple[Any, ...]:
    """(known jaxpr: known inputs -> known outputs and saved residuals, staged jaxpr: residuals,
    the known inputs it reads, unknown inputs -> unknown outputs, which outputs are unknown,
    which known inputs the staged jaxpr reads)."""
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
    known_read = [v in read for v in known_in]  # nothing saves an input the staged side does not read
    staged_in = [*residuals, *(v for v, r in zip(known_in, known_read) if r), *unknown_in]
    staged = Jaxpr((), staged_in, unknown_out, pruned.eqns)
    return ClosedJaxpr(known_jaxpr, closed.consts), ClosedJaxpr(staged, ()), out_uks, known_read


def _remat_transpose(cts: list[Any], *args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list[Any]:
    """Transposed and checkpointed again: the recomputation happens inside the transposed jaxpr."""
    linear = [transpose.is_undefined_primal(x) for x in args]
    transposed, consts = hoist_consts(transpose.transpose_jaxpr(jaxpr, linear))
    res = [x for x in args if not transpose.is_undefined_primal(x)]
    outs = iter(remat_p.bind(*consts, *res, *map(ad.instantiate, cts), jaxpr=transposed,
                             **dict(params, differentiated=True)))  # fmt: skip
    return [next(outs) if lin else None for lin in linear]


def _pp_remat(eqn: JaxprEqn, ctx: PrintContext) -> Any:
    """As JAX prints it: a policy by its repr, a function's address masked."""
    policy = eqn.params["policy"]
    shown = eqn if policy is None else eqn.replace(params=dict(eqn.params, policy=_Shown(policy)))
    return _pp_eqn(shown, ctx, sorted(eqn.params))


class _Shown:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def __repr__(self) -> str:
        return re.sub(r" at 0x[0-9a-fA-F]+>", " at 0xXXXXXXXXXXXX>", repr(self.policy))


ad.jvp_rules[remat_p] = _remat_jvp
batching.batching_rules[remat_p] = _remat_batch
partial_eval.partial_eval_jaxpr_rules[remat_p] = _remat_partial_eval
transpose.transpose_rules[remat_p] = _remat_transpose
lowering_rules[remat_p] = lambda ctx, *args, jaxpr, **_: lower_closed(ctx.fb, jaxpr, args)  # written in place
pp_eqn_rules["remat2"] = _pp_remat


# ----------------------------------------------------------------------------------------------
# What reverse mode saves: the residuals of ``vjp``, each with where it comes from.


def print_saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Print, one per line, the type of each value that ``vjp(f, *args, **kwargs)`` keeps for the
    backward pass and where it comes from: an argument, a named value, or an equation's output.

    JAX ends each equation's line with where in the source it was made (``output of sin from
    f.py:6:24 (f)``); didax records no source locations, so its lines end before that. JAX writes
    the known part of a checkpointed function inline; didax keeps it in a ``remat2`` equation, and
    looks inside it so that the lines say the same. A Python scalar the backward pass reads is a
    line ``from a literal`` here; JAX writes it into its linear jaxpr, not among the residuals."""
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f"{short_aval(aval)} {source}")


def saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> list[tuple[ShapedArray, str]]:
    """The residuals of ``vjp`` with respect to every leaf of ``(args, kwargs)``, in JAX's order:
    literals, constants, arguments, then the values equations make, in program order."""
    leaves, in_tree = tree_flatten((args, kwargs))

    def f_flat(*leaves: Any) -> Any:
        args, kwargs = tree_unflatten(in_tree, list(leaves))
        return f(*args, **kwargs)

    closed, (_, pullback) = make_jaxpr(lambda *xs: vjp(f_flat, *xs), return_shape=True)(*leaves)
    jaxpr, n_res = closed.jaxpr, len(tree_leaves(pullback))
    names = _arg_names(f, args, kwargs)
    sources: dict[tuple, tuple[ShapedArray, str]] = {}
    for x in jaxpr.outvars[len(jaxpr.outvars) - n_res :]:
        key, text = _source(x, jaxpr, (), lambda i: ((2, i), f"from the argument {names[i]}"))
        sources[key] = (x.aval, text)  # one line per value, however many times it is saved
    return [sources[key] for key in sorted(sources)]


def _source(x: Any, jaxpr: Jaxpr, at: tuple[int, ...], outer: Callable[[int], tuple]) -> tuple[tuple, str]:
    """Where ``x``, a variable of ``jaxpr`` (which sits at equation positions ``at`` of the
    outermost jaxpr) comes from: a key to sort by, and the words that say it. ``outer(i)`` says it
    for the ``i``th input of ``jaxpr``."""
    if isinstance(x, Literal):
        return (0,), "from a literal"
    if x in jaxpr.constvars:
        return (1, jaxpr.constvars.index(x)), "from a constant"
    if x in jaxpr.invars:
        return outer(jaxpr.invars.index(x))
    k, eqn = next((k, e) for k, e in enumerate(jaxpr.eqns) if x in e.outvars)
    if eqn.primitive is remat_p:  # look inside: the value comes from the checkpointed function
        inner = eqn.params["jaxpr"].jaxpr
        inner_outer = lambda i: _source(eqn.invars[i], jaxpr, at, outer)  # noqa: E731
        return _source(inner.outvars[eqn.outvars.index(x)], inner, (*at, k), inner_outer)
    key = (3, *at, k, eqn.outvars.index(x))
    if eqn.primitive is name_p:
        return key, f"named '{eqn.params['name']}'"
    if eqn.primitive.name == "jit":
        return key, f"output of jitted function '{eqn.params['name']}'"
    return key, f"output of {eqn.primitive.name}"


def _arg_names(f: Callable[..., Any], args: tuple, kwargs: dict) -> list[str]:
    """JAX's name for each leaf of ``(args, kwargs)``: the parameter it is bound to, and its path
    inside that argument (``x``, ``d['b']``, ``args[1]`` for ``*args``, ``kw['y']`` for ``**kw``)."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):  # no signature: positions
        params = [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var_args = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
    var_kwargs = next((p.name for p in params if p.kind is p.VAR_KEYWORD), "kwargs")
    named = {p.name for p in params if p.kind is not p.VAR_POSITIONAL and p.kind is not p.VAR_KEYWORD}

    def name(path: tuple) -> str:
        (in_kwargs, first, *rest) = path
        if in_kwargs.idx == 1:
            head = first.key if first.key in named else f"{var_kwargs}[{first.key!r}]"
        elif first.idx < len(positional):
            head = positional[first.idx]
        else:
            head = f"{var_args}[{first.idx - len(positional)}]"
        return head + keystr(tuple(rest))

    return [name(path) for path, _ in tree_flatten_with_path((args, kwargs))[0]]
