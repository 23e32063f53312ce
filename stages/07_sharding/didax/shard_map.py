"""``didax.shard_map``: a function run once per device of a mesh, on that device's block (stage 07).

``shard_map(f, mesh=m, in_specs=P('i'), out_specs=P('i'))(x)`` cuts ``x`` into one block per
device, as the spec says (``P('i')``: axis 0 into ``m.shape['i']`` blocks), runs ``f`` on every
device at once, each on its block, and puts the results back together as ``out_specs`` says.
Inside ``f`` the mesh's axes are named axes, like vmap's: ``psum(v, 'i')`` sums over the devices
along ``i``. This is manual SPMD: the program says what each device does and when the devices
talk (the collectives); XLA partitions nothing by itself.

How it is built:

- the body is staged once, on the types of the blocks (``_block``), with the mesh's axes bound in
  the axis environment (so collectives know their sizes);
- ``shard_map_p`` holds that jaxpr, the mesh and the specs; its abstract evaluation multiplies the
  block types back into global ones;
- it is lowered as ``sdy.manual_computation`` (Shardy's region of manual code), the
  collectives inside as lowering/parallel.py writes them, and jit compiles the module for the
  mesh's devices (jit.py's Placement);
- called eagerly it is jit of itself, as in JAX;
- its transformations transform the body: JVP (tangents spread as their primals), vmap (the
  batch axis unsplit), partial evaluation (residuals leave and re-enter in one slot per device)
  and transposition (pmap's rule: see ``_transposed_body``).

Not yet: axes left to XLA (``axis_names`` a proper subset of the mesh's), and the replication
types (vma) that JAX tracks with ``check_vma=True``. Without them the values are JAX's, with two
exceptions that raise NotImplementedError instead, where JAX's types decide what a cotangent is:
reverse mode *inside* a checked body (is psum's cotangent summed again?), and reverse mode of a
checked body that calls a custom_vjp function (what does its bwd get?). The replication check JAX
makes with them is made here on the finished jaxpr (``_varying``), where it differs from JAX's in
both directions: see ``_varying``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from . import ad, batching, partial_eval, transpose
from .config import config
from .core import Primitive, ShapedArray, Tracer, extend_axis_env, is_staging, trace_state
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr, new_eqn, subjaxprs
from .jit import _split as _split_jit_jaxpr, jit, jit_p, output_shardings
from .lax import parallel
from .lax.conditionals import cond_p
from .lax.loops import scan_p, while_p
from .lax.structural import expand_dims, squeeze
from .lowering.core import AxisContext, dims_sharding, lower_jaxpr, lowering_rules, tensor_type
from .sharding import AxisType, Mesh, NamedSharding, PartitionSpec, get_mesh
from .staging import hoist_consts, shaped_abstractify, trace_to_jaxpr
from .tree_util import _flatten_up_to, keystr, tree_flatten, tree_flatten_with_path, tree_structure, tree_unflatten

_INFER = object()  # in_specs not given: JAX's jax.sharding.Infer


# ----------------------------------------------------------------------------------------------
# Blocks: what one device holds of an array of a spec.


def _mesh_axes(spec: PartitionSpec) -> set[str]:
    """Every mesh axis ``spec`` names (those inside tuples too)."""
    return {a for axes in spec._axes(0) for a in axes}


def _factors(mesh: Mesh, spec: PartitionSpec, ndim: int) -> list[int]:
    """Into how many blocks ``spec`` cuts each of ``ndim`` array axes."""
    return [math.prod(mesh.shape[a] for a in axes) for axes in spec._axes(ndim)]


def _block(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec) -> ShapedArray:
    shape = tuple(n // k for n, k in zip(aval.shape, _factors(mesh, spec, aval.ndim)))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def _whole(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec) -> ShapedArray:
    shape = tuple(n * k for n, k in zip(aval.shape, _factors(mesh, spec, aval.ndim)))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


# ----------------------------------------------------------------------------------------------
# The primitive: shard_map_p.bind(*args, jaxpr=..., mesh=..., in_specs=(P, ...), out_specs=(P, ...),
# check_vma=..., manual_axes=frozenset(...)). The jaxpr takes and gives blocks; it has no constants
# (what the body closed over comes first among the operands, replicated: in_spec P()).

shard_map_p = Primitive("shard_map")
shard_map_p.multiple_results = True


@shard_map_p.def_abstract_eval
def _abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: tuple, **_: Any) -> list[Any]:
    return [_whole(a, mesh, s) for a, s in zip(jaxpr.out_avals, out_specs)]


@shard_map_p.def_impl
def _impl(*args: Any, **params: Any) -> list[Any]:
    """Run one shard_map equation (eval_jaxpr meets one): compile it alone, like a jit of it."""
    closed = _alone(tuple(map(shaped_abstractify, args)), tuple(params.items()))
    return jit_p.impl(*args, jaxpr=closed, name="shard_map", donated_invars=(False,) * len(args))


@functools.lru_cache(maxsize=256)
def _alone(in_avals: tuple[ShapedArray, ...], params: tuple) -> ClosedJaxpr:
    """A jaxpr of the one shard_map equation (remembered: the same one finds its executable)."""
    invars = [Var(a) for a in in_avals]
    outvars = [Var(a) for a in shard_map_p.abstract_eval(*in_avals, **dict(params))]
    return ClosedJaxpr(Jaxpr((), invars, outvars, [new_eqn((shard_map_p, tuple(invars), tuple(outvars),
                                                            dict(params)))]), ())  # fmt: skip


def _lowering(ctx: Any, *args: str, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs: tuple, out_specs: tuple,
              check_vma: bool, manual_axes: frozenset) -> list[str]:  # fmt: skip
    """A ``sdy.manual_computation``: its operands and results are whole arrays, spread as the specs
    say, and its region, the body, works on each device's blocks. (On a mesh of one device the
    block is the whole array: the body is written in place, as JAX writes it.)"""
    if mesh.size == 1:
        outer, ctx.fb.axis_context = ctx.fb.axis_context, AxisContext(mesh, manual_axes)
        try:
            return lower_jaxpr(ctx.fb, jaxpr.jaxpr, [], list(args))
        finally:
            ctx.fb.axis_context = outer
    ctx.module.use_mesh(mesh)
    region = ctx.fb.region([tensor_type(a) for a in jaxpr.in_avals])
    region.builder.axis_context = AxisContext(mesh, manual_axes)
    region.ret(lower_jaxpr(region.builder, jaxpr.jaxpr, [], region.args), op="sdy.return")

    def per_value(specs: Sequence[PartitionSpec], avals: Sequence[ShapedArray]) -> str:
        each = [f"<@mesh, {dims_sharding(s, a.ndim)}>" for s, a in zip(specs, avals)]
        return f"#sdy.sharding_per_value<[{', '.join(each)}]>"

    manual = ", ".join(f'"{n}"' for n in mesh.axis_names if n in manual_axes)
    attrs = {"in_shardings": per_value(in_specs, ctx.avals_in), "manual_axes": f"#sdy<manual_axes{{{manual}}}>",
             "out_shardings": per_value(out_specs, ctx.avals_out)}  # fmt: skip
    return ctx.fb.op("sdy.manual_computation", list(args), [tensor_type(a) for a in ctx.avals_out], attrs,
                     regions=[region])  # fmt: skip


lowering_rules[shard_map_p] = _lowering
output_shardings[shard_map_p] = lambda mesh, out_specs, **_: [NamedSharding(mesh, s) for s in out_specs]


@contextlib.contextmanager
def _in_mesh(mesh: Mesh, check_vma: bool = False) -> Iterator[None]:
    """The mesh's axes bound, as they are in the body (its collectives need their sizes);
    ``check_vma``: the user's body of a checked shard_map is being traced."""
    outer = trace_state.check_vma
    with contextlib.ExitStack() as bound:
        for name, size in mesh.shape.items():
            bound.enter_context(extend_axis_env(name, size))
        trace_state.check_vma = check_vma
        try:
            yield
        finally:
            trace_state.check_vma = outer


def _unmentioned(mesh: Mesh, spec: PartitionSpec) -> tuple[str, ...]:
    """The mesh axes ``spec`` leaves out: along them the value is the same on every device."""
    return tuple(n for n in mesh.axis_names if n not in _mesh_axes(spec))


def _staged(fun: Callable[..., list[Any]], avals: Sequence[ShapedArray], mesh: Mesh) -> tuple[ClosedJaxpr, list[Any]]:
    """A new body: ``fun`` staged on block types, its constants hoisted (they become operands)."""
    with _in_mesh(mesh):
        closed, _ = trace_to_jaxpr(fun, avals)
    return hoist_consts(closed)


# ----------------------------------------------------------------------------------------------
# Transformations. Each transforms the body (a jaxpr of blocks) as jit's rules transform jit's
# jaxpr, then says how the new operands and results are spread: the specs. The transformed
# bodies are remembered per jaxpr, so that the same program finds its compilation again.


@functools.lru_cache(maxsize=256)
def _jvp_body(jaxpr: ClosedJaxpr, nonzeros: tuple[bool, ...], mesh: Mesh) -> tuple[ClosedJaxpr, list[Any], list[bool]]:
    with _in_mesh(mesh):
        closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, False)
    return (*hoist_consts(closed), out_nonzeros)


def _jvp(primals: list[Any], tangents: list[Any], *, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs: tuple,
         out_specs: tuple, **params: Any) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """The JVP of the body, on every device: a tangent is spread as its primal is."""
    nonzeros = tuple(type(t) is not ad.Zero for t in tangents)
    body, consts, out_nonzeros = _jvp_body(jaxpr, nonzeros, mesh)
    dots = [t for t in tangents if type(t) is not ad.Zero]
    specs = (*[PartitionSpec()] * len(consts), *in_specs, *(s for s, nz in zip(in_specs, nonzeros) if nz))
    outs = shard_map_p.bind(*consts, *primals, *dots, jaxpr=body, mesh=mesh, in_specs=specs,
                            out_specs=(*out_specs, *(s for s, nz in zip(out_specs, out_nonzeros) if nz)),
                            **params)  # fmt: skip
    primals_out, nonzero_out = outs[: len(out_specs)], iter(outs[len(out_specs) :])
    return primals_out, [next(nonzero_out) if nz else ad.Zero.like(p) for p, nz in zip(primals_out, out_nonzeros)]


@functools.lru_cache(maxsize=256)
def _batched_body(jaxpr: ClosedJaxpr, size: int, in_batched: tuple[bool, ...], mesh: Mesh,
                  axis_name: Any) -> tuple[ClosedJaxpr, list[Any], list[bool]]:  # fmt: skip
    with _in_mesh(mesh):  # axis_name: vmap's own axis, which collectives in the body may name
        closed, out_batched = batching.batch_jaxpr(jaxpr, size, in_batched, False)
    return (*hoist_consts(closed), out_batched)


def _batch(vals: list[Any], dims: list[Any], *, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs: tuple, out_specs: tuple,
           **params: Any) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """vmap of a shard_map: every device runs the batched body on its blocks. The batch axis
    (moved to the front) is not split: each spec gets a None before it."""
    size = batching.batch_size(vals, dims)
    in_batched = tuple(d is not batching.not_mapped for d in dims)
    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]
    body, consts, out_batched = _batched_body(jaxpr, size, in_batched, mesh, batching.jaxpr_axis(size).name)
    whole = lambda s, b: PartitionSpec(None, *s) if b else s  # noqa: E731
    outs = shard_map_p.bind(*consts, *vals, jaxpr=body, mesh=mesh,
                            in_specs=(*[PartitionSpec()] * len(consts), *map(whole, in_specs, in_batched)),
                            out_specs=tuple(map(whole, out_specs, out_batched)), **params)  # fmt: skip
    return outs, [0 if b else batching.not_mapped for b in out_batched]


def _slots(mesh: Mesh) -> PartitionSpec:
    """The spec of a residual: one slot per device along a new leading axis (every axis splits it)."""
    return PartitionSpec(mesh.axis_names if len(mesh.axis_names) > 1 else mesh.axis_names[0])


@functools.lru_cache(maxsize=256)
def _split_body(jaxpr: ClosedJaxpr, unks_in: tuple[bool, ...], mesh: Mesh) -> tuple[Any, ...]:
    """jit's split of the body into a known and an unknown part, where each residual the known
    part computes leaves it with a new leading axis of size 1 (the device's slot; a scalar
    residual could not be spread otherwise), which the unknown part takes off again."""
    with _in_mesh(mesh):  # splitting a cond stages its branches again, collectives and all
        known, unknown, out_unknowns, forwarded = _split_jit_jaxpr(jaxpr, unks_in)
    n_made = sum(i is None for i, _ in forwarded)
    n_out = len(known.out_avals) - n_made

    def known_body(*args: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        return [*outs[:n_out], *(expand_dims(r, (0,)) for r in outs[n_out:])]

    def unknown_body(*args: Any) -> list[Any]:
        res = [squeeze(x, (0,)) if i is None else x for x, (i, _) in zip(args, forwarded)]
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *args[len(forwarded) :])

    slot_avals = [ShapedArray((1, *a.shape), a.dtype, a.weak_type) if i is None else a for i, a in forwarded]
    known_staged, known_consts = _staged(known_body, known.in_avals, mesh)
    unknown_staged, unknown_consts = _staged(unknown_body, [*slot_avals, *unknown.in_avals[len(forwarded) :]], mesh)
    if known_consts or unknown_consts:  # (partial evaluation moves equations; it makes no constants)
        raise AssertionError("shard_map's partial evaluation made constants")
    return known_staged, unknown_staged, out_unknowns, forwarded, slot_avals


def _partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """Reverse mode: a known shard_map (run now) and a staged one, joined by residuals. A residual
    that is a known operand is read where it is; the others come out of the known shard_map, each
    device's in its slot (``_slots``), and go back into the staged one the same way."""
    params = eqn.params
    mesh, slots = params["mesh"], _slots(params["mesh"])
    known, unknown, out_unknowns, forwarded, slot_avals = _split_body(params["jaxpr"], tuple(unks_in), mesh)
    ins, outs = list(zip(eqn.invars, params["in_specs"])), list(zip(eqn.outvars, params["out_specs"]))
    known_in = [x for x, uk in zip(ins, unks_in) if not uk]
    made = [(Var(_whole(a, mesh, slots)), slots) for (i, _), a in zip(forwarded, slot_avals) if i is None]
    new = iter(made)
    residuals = [known_in[i] if i is not None else next(new) for i, _ in forwarded]
    eqn_known = _eqn(known_in, [y for y, uk in zip(outs, out_unknowns) if not uk] + made, dict(params, jaxpr=known))
    eqn_unknown = _eqn(residuals + [x for x, uk in zip(ins, unks_in) if uk],
                       [y for y, uk in zip(outs, out_unknowns) if uk], dict(params, jaxpr=unknown))  # fmt: skip
    return eqn_known, eqn_unknown, out_unknowns, [v for v, _ in made]


def _eqn(ins: list[tuple[Any, PartitionSpec]], outs: list[tuple[Var, PartitionSpec]], params: dict) -> JaxprEqn:
    """A shard_map equation, from its (variable, spec) pairs in and out."""
    return new_eqn((shard_map_p, tuple(v for v, _ in ins), tuple(v for v, _ in outs),
                    dict(params, in_specs=tuple(s for _, s in ins), out_specs=tuple(s for _, s in outs))))  # fmt: skip


@functools.lru_cache(maxsize=256)
def _transposed_body(jaxpr: ClosedJaxpr, linear: tuple[bool, ...], mesh: Mesh, in_specs: tuple,
                     out_specs: tuple) -> tuple[ClosedJaxpr, list[Any]]:  # fmt: skip
    """The body transposed, with pmap's rule for values the specs say are replicated: an
    output's cotangent is divided by the number of devices that hold the same output (the
    global output is counted once, not once per device), and a replicated input's cotangent is
    summed over the devices that hold it (each used it)."""
    with _in_mesh(mesh):
        transposed = transpose.transpose_jaxpr(jaxpr, linear)
    n_res = linear.count(False)
    linear_specs = [s for s, lin in zip(in_specs, linear) if lin]

    def body(*args: Any) -> list[Any]:
        res, cts = args[:n_res], args[n_res:]
        copies = [math.prod(mesh.shape[n] for n in _unmentioned(mesh, s)) for s in out_specs]
        cts = [ct / n if n > 1 else ct for ct, n in zip(cts, copies)]
        outs = eval_jaxpr(transposed.jaxpr, transposed.consts, *res, *cts)
        return [parallel.psum(ct, _unmentioned(mesh, s)) if _unmentioned(mesh, s) else ct
                for ct, s in zip(outs, linear_specs)]  # fmt: skip

    return _staged(body, transposed.in_avals, mesh)


def _transpose(cts: list[Any], *args: Any, jaxpr: ClosedJaxpr, mesh: Mesh, in_specs: tuple, out_specs: tuple,
               **params: Any) -> list[Any]:  # fmt: skip
    """The transpose of a linear shard_map is a shard_map of the transposed body: it takes the
    residuals as they were spread, and the cotangents as the outputs were; it gives the linear
    inputs' cotangents spread as those inputs were.

    JAX does this with ``check_vma=False`` (pmap always). With ``check_vma=True`` it needs no
    division or sum, its types having put them into the body (pvary, psum's transpose); for a
    body that passed the replication check both give the same values, so this rule serves both,
    unless a custom_vjp function's bwd, the user's code, is handed those cotangents."""
    if params["check_vma"] and _calls_a_bwd(jaxpr.jaxpr):
        raise NotImplementedError(
            "reverse-mode differentiation of a custom_vjp function inside a shard_map with check_vma=True is not "
            "implemented in didax: JAX gives its bwd the cotangents its replication types (vma) make, which didax "
            "does not track. Pass check_vma=False to shard_map (the bwd then gets pmap's cotangents)."
        )
    linear = tuple(transpose.is_undefined_primal(x) for x in args)
    body, consts = _transposed_body(jaxpr, linear, mesh, in_specs, out_specs)
    res = [x for x in args if not transpose.is_undefined_primal(x)]
    res_specs = [s for s, lin in zip(in_specs, linear) if not lin]
    outs = iter(shard_map_p.bind(*consts, *res, *map(ad.instantiate, cts), jaxpr=body, mesh=mesh,
                                 in_specs=(*[PartitionSpec()] * len(consts), *res_specs, *out_specs),
                                 out_specs=tuple(s for s, lin in zip(in_specs, linear) if lin), **params))  # fmt: skip
    return [next(outs) if lin else None for lin in linear]


def _calls_a_bwd(jaxpr: Jaxpr) -> bool:
    """Whether ``jaxpr`` holds a custom_vjp function's bwd (a ``custom_lin`` equation), at any depth."""
    return any(eqn.primitive.name == "custom_lin" or any(map(_calls_a_bwd, subjaxprs(eqn.params)))
               for eqn in jaxpr.eqns)  # fmt: skip


ad.jvp_rules[shard_map_p] = _jvp
batching.batching_rules[shard_map_p] = _batch
partial_eval.partial_eval_jaxpr_rules[shard_map_p] = _partial_eval
transpose.transpose_rules[shard_map_p] = _transpose


# ----------------------------------------------------------------------------------------------
# The API.


def shard_map(f: Callable[..., Any] | None = None, /, *, out_specs: Any, in_specs: Any = _INFER,
              mesh: Mesh | None = None, axis_names: Any = frozenset(), check_vma: bool = True) -> Any:  # fmt: skip
    """``f`` mapped over the blocks of its arguments, one block per device of ``mesh`` (default:
    the mesh ``set_mesh`` set). ``in_specs`` and ``out_specs`` are PartitionSpecs, or pytree
    prefixes of the arguments (a tuple) and of the result; an in_spec None passes that argument
    to ``f`` as it is. With ``check_vma``, an out_spec that leaves a mesh axis out (the output is
    the same on every device along it) is checked against what ``f`` computes."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)  # fmt: skip
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, but got {f} of type {type(f)}.")

    def staged(on: Mesh, *args: Any) -> Any:
        return _bind(f, args, out_specs, in_specs, on, axis_names, check_vma)

    eager: dict[Mesh, Any] = {}  # a jit per mesh: set_mesh may give another one from call to call

    @functools.wraps(f)
    def mapped(*args: Any) -> Any:
        on = get_mesh() if mesh is None else mesh
        if is_staging() or config.jax_disable_jit or any(isinstance(x, Tracer) for x in tree_flatten(args)[0]):
            return staged(on, *args)
        if on not in eager:  # JAX's eager shard_map is jit of it
            eager[on] = jit(functools.wraps(f)(functools.partial(staged, on)))
        return eager[on](*args)

    return mapped


def _bind(f: Callable[..., Any], args: tuple, out_specs: Any, in_specs: Any, mesh: Mesh, axis_names: Any,
          check_vma: bool) -> Any:  # fmt: skip
    """Stage ``f`` on the blocks of ``args`` and bind shard_map_p on it."""
    manual = _checked_mesh(mesh, axis_names)
    _check_spec_names(out_specs, manual, "out_specs")
    path_leaves, in_tree = tree_flatten_with_path(args)
    paths, leaves = [p for p, _ in path_leaves], [x for _, x in path_leaves]
    spec_of = _in_specs(in_specs, args, mesh, manual)  # (key path, spec) per leaf
    avals = [shaped_abstractify(x) if s is not None else None for x, (_, s) in zip(leaves, spec_of)]
    _check_args(f, mesh, paths, avals, spec_of)
    dynamic = [i for i, (_, s) in enumerate(spec_of) if s is not None]
    outs_of: list[Any] = []  # what the body's run tells: its outputs' tree and specs

    def body(*blocks: Any) -> list[Any]:
        full = list(leaves)
        for i, b in zip(dynamic, blocks):
            full[i] = b
        result = f(*tree_unflatten(in_tree, full))
        out_path_leaves, out_tree = tree_flatten_with_path(result)
        outs_of.extend([out_tree, [p for p, _ in out_path_leaves], _specs_for(out_specs, result, "out_specs")])
        return [x for _, x in out_path_leaves]

    block_avals = [_block(avals[i], mesh, spec_of[i][1]) for i in dynamic]
    with _in_mesh(mesh, check_vma):
        closed, _ = trace_to_jaxpr(body, block_avals)
    out_tree, out_paths, out_spec_of = outs_of
    _check_outputs(f, mesh, out_tree, out_paths, out_spec_of, closed, [spec_of[i][1] for i in dynamic], check_vma)
    jaxpr, consts = hoist_consts(closed)
    specs = (*[PartitionSpec()] * len(consts), *(spec_of[i][1] for i in dynamic))
    outs = shard_map_p.bind(*consts, *(leaves[i] for i in dynamic), jaxpr=jaxpr, mesh=mesh, in_specs=specs,
                            out_specs=tuple(s for _, s in out_spec_of), check_vma=check_vma,
                            manual_axes=manual)  # fmt: skip
    return tree_unflatten(out_tree, outs)


# ----------------------------------------------------------------------------------------------
# Checks, with JAX's errors.


def _checked_mesh(mesh: Any, axis_names: Any) -> frozenset:
    """The mesh's manual axes (every axis), once the mesh and axis_names are checked."""
    if isinstance(mesh, Mesh) and not mesh.axis_names:  # (only set_mesh's "no mesh" is empty)
        raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh context")
    if not isinstance(mesh, Mesh):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` or a `jax.sharding.AbstractMesh` instance for its "
                        f"second argument, but got {mesh} of type {type(mesh)}.")  # fmt: skip
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError(f"`axis_names` argument of shard_map should be of type `frozenset` or `set`. Got type: "
                        f"{type(axis_names)}")  # fmt: skip
    everything = frozenset(mesh.axis_names)
    manual = frozenset(axis_names) or everything
    if not manual <= everything:
        raise ValueError(f"jax.shard_map requires axis_names={manual} to be a subset of mesh.axis_names={everything}")
    if manual != everything:
        raise NotImplementedError(f"shard_map over some of the mesh's axes (axis_names={set(manual)}) is not "
                                  "implemented in didax: every axis is manual")  # fmt: skip
    return manual


def _in_specs(in_specs: Any, args: tuple, mesh: Mesh, manual: frozenset) -> list[tuple[Any, Any]]:
    """(the spec's key path in in_specs, the spec) for each leaf of ``args``."""
    if in_specs is _INFER:
        if not all(mesh.axis_types[mesh.axis_names.index(a)] == AxisType.Explicit for a in manual):
            types = ", ".join(str(mesh.axis_types[mesh.axis_names.index(a)]) for a in manual)
            raise TypeError("shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` instances, "
                            f"but it was `None` when axis_names={manual} are of type {types}")  # fmt: skip
        raise NotImplementedError("shard_map without in_specs on Explicit mesh axes: JAX reads each argument's "
                                  "spec from its type, which didax's types do not carry; pass in_specs")  # fmt: skip
    _check_spec_names(in_specs, manual, "in_specs")
    return _specs_for(in_specs, args, "in_specs")


def _check_spec_names(specs: Any, manual: frozenset, what: str) -> None:
    path_specs = tree_flatten_with_path(specs, is_leaf=lambda x: x is None)[0]
    bad = [f"  {what}{keystr(k)} is {s} of type {type(s).__name__}, " for k, s in path_specs
           if s is not None and not isinstance(s, PartitionSpec)]  # fmt: skip
    if bad:
        raise TypeError(f"shard_map {what} argument must be a pytree of `jax.sharding.PartitionSpec` instances, "
                        "but:\n\n" + "\n\n".join(bad) + f"\n\nCheck the {what} values passed to shard_map.")
    unknown = [f"  {what}{keystr(k)} refers to {a!r}" for k, s in path_specs if s is not None
               for axes in s._axes(0) for a in axes if a not in manual]  # fmt: skip
    if unknown:
        raise ValueError(f"shard_map {what} argument must refer to an axis marked as manual ({manual}), but:\n\n"
                         + "\n\n".join(unknown) + f"\n\nCheck the {what} values passed to shard_map.")


def _specs_for(specs: Any, tree: Any, what: str) -> list[tuple[Any, Any]]:
    """(the spec's key path, the spec) for each leaf of ``tree``, ``specs`` being a prefix of it."""
    path_specs, spec_tree = tree_flatten_with_path(specs, is_leaf=lambda x: x is None)
    if isinstance(specs, tuple) and isinstance(tree, tuple) and len(specs) != len(tree):
        raise ValueError(
            f"pytree structure error: different lengths of tuple at key path\n    shard_map {what}\nAt that key path, "
            f"the prefix pytree shard_map {what} has a subtree of type tuple of length {len(specs)}, but the full "
            f"pytree has a subtree of the same type but of length {len(tree)}."
        )
    subtrees = _flatten_up_to(spec_tree, tree, f"shard_map {what}", "")
    return [pair for pair, sub in zip(path_specs, subtrees) for _ in range(tree_structure(sub).num_leaves)]


def _where(f: Callable[..., Any], path: Any) -> str:
    """``, where args[0] is bound to f's parameter 'x',``: which parameter an argument is, as JAX says."""
    name = _name(f)
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]  # fmt: skip
    except (TypeError, ValueError):
        return ""
    i = path[0].idx
    if i >= len(params) or params[i].kind == params[i].VAR_POSITIONAL:
        if not params or params[-1].kind != params[-1].VAR_POSITIONAL:
            return ""
        return f", where args{path[0]} is the index {i - len(params) + 1} component of {name}'s varargs " \
               f"parameter '{params[-1]}',"  # fmt: skip
    return f", where args{path[0]} is bound to {name}'s parameter '{params[i]}',"


def _name(f: Callable[..., Any]) -> str:
    return getattr(f, "__name__", str(f))


def _mesh_line(mesh: Mesh) -> str:
    return f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis names {mesh.axis_names}."


def _one_or_bullets(lines: list[str]) -> str:
    return "\n\n".join(lines if len(lines) > 1 else [lines[0][2:]])  # one failure: no bullet


def _rank_error(f: Callable[..., Any], what: str, lines: list[str], scalar: bool) -> str:
    put = "in" if what == "in_specs" else "out"
    name = _name(f)
    msg = (f"shard_map applied to the function '{name}' was given an {what} entry which is too long to be compatible "
           f"with the corresponding {put}put value from the function:\n\n{_one_or_bullets(lines)}\n\nEntries in "
           f"{what} must be of length no greater than the number of axes in the corresponding {put}put value.\n\n"
           f"Either revise the spec to be shorter, or modify '{name}' so that its {put}puts have sufficient rank.")
    if scalar:
        msg += f"\n\nFor scalar values (rank 0), consider using an {what} entry of `P()`, where `P = " \
               "jax.sharding.PartitionSpec`."  # fmt: skip
    return msg


def _check_args(f: Callable[..., Any], mesh: Mesh, paths: list[Any], avals: list[Any],
                spec_of: list[tuple[Any, Any]]) -> None:
    """Each spec fits its argument's rank, and the mesh axes it names divide the axes they split."""
    rank = [(p, a, k, s) for p, a, (k, s) in zip(paths, avals, spec_of) if s is not None and len(s) > a.ndim]
    if rank:
        lines = [f"* in_specs{keystr(k)} is {s} which has length {len(s)}, but the passed args{keystr(p)}"
                 f"{_where(f, p)} has shape {a.str_short()}, which has rank {a.ndim} (and {a.ndim} < {len(s)})"
                 for p, a, k, s in rank]  # fmt: skip
        raise ValueError(_rank_error(f, "in_specs", lines, any(a.ndim == 0 for _, a, _, _ in rank)))
    lines = []
    for p, a, (k, s) in zip(paths, avals, spec_of):
        for d, axes in enumerate(s._axes(a.ndim) if s is not None else ()):
            size = math.prod(mesh.shape[n] for n in axes)
            if a.shape[d] % size:
                axis, total = (f"axes {axes}", "total ") if len(axes) > 1 else (f"axis '{axes[0]}'", "")
                lines.append(f"* the passed args{keystr(p)} of shape {a.str_short()}{_where(f, p)} corresponds to "
                             f"in_specs{keystr(k)} of value {s}, which maps array axis {d} (of size {a.shape[d]}) to "
                             f"mesh {axis} (of {total}size {size}), but {size} does not evenly divide {a.shape[d]}")
    if lines:
        name = _name(f)
        raise ValueError(
            f"shard_map applied to the function '{name}' was given argument arrays with axis sizes that are not evenly "
            f"divisible by the corresponding mesh axis sizes:\n\n{_mesh_line(mesh)}\n\n{_one_or_bullets(lines)}\n\n"
            "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
            "corresponding elements of the argument's in_specs entry. Consider checking that in_specs are correct, "
            f"and if so consider changing the mesh axis sizes or else padding the input and adapting '{name}' "
            "appropriately."
        )


def _check_outputs(f: Callable[..., Any], mesh: Mesh, out_tree: Any, paths: list[Any], spec_of: list[Any],
                   closed: ClosedJaxpr, in_specs: list[PartitionSpec], check_vma: bool) -> None:  # fmt: skip
    """Each out_spec fits its output's rank, and (with ``check_vma``) leaves out only mesh axes the
    output is known not to vary over."""
    avals = closed.out_avals
    rank = [(p, a, k, s) for p, a, (k, s) in zip(paths, avals, spec_of) if len(s) > a.ndim]
    if rank:
        name = _name(f)
        lines = [f"* out_specs{keystr(k)} is {s} which has length {len(s)}, but {name}(*args){keystr(p)} has shape "
                 f"{a.str_short()}, which has rank {a.ndim} (and {a.ndim} < {len(s)})" for p, a, k, s in rank]
        msg = _rank_error(f, "out_specs", lines, any(a.ndim == 0 for _, a, _, _ in rank))
        if any(a.ndim == 0 for _, a, _, _ in rank):
            msg += (" In particular, for rank 0 outputs which are not constant over the mesh, add at least one "
                    "(singleton) axis to them so that they can be concatenated using out_specs.")
        raise ValueError(msg)
    if check_vma:
        _check_replication(f, mesh, paths, spec_of, closed, in_specs)


def _check_replication(f: Callable[..., Any], mesh: Mesh, paths: list[Any], spec_of: list[Any],
                       closed: ClosedJaxpr, in_specs: list[PartitionSpec]) -> None:  # fmt: skip
    """JAX's replication check: an output whose out_spec leaves out a mesh axis must not vary
    along it."""
    in_vary = [frozenset()] * len(closed.jaxpr.constvars) + [frozenset(_mesh_axes(s)) for s in in_specs]
    vary = _varying(closed.jaxpr, in_vary)
    lines = []
    order = lambda names: ",".join(n for n in mesh.axis_names if n in names)  # noqa: E731
    for (k, s), v in zip(spec_of, vary):
        unmentioned = [n for n in mesh.axis_names if n not in _mesh_axes(s)]
        if not any(n in v for n in unmentioned):
            continue
        if len(unmentioned) > 1:
            lines.append(f"* out_specs{keystr(k)} is {s} which implies that the corresponding output value is only "
                         f"varying across mesh axes {{{order(_mesh_axes(s))}}} and not {{{order(set(unmentioned) & v)}}}, "
                         f"but it was inferred to be possibly varying over {{{order(v)}}}")  # fmt: skip
        else:
            lines.append(f"* out_specs{keystr(k)} is {s} which implies that the corresponding output value is "
                         f"replicated across mesh axis '{unmentioned[0]}', but could not infer replication over any "
                         "axes")  # fmt: skip
    if lines:
        raise ValueError(
            f"shard_map applied to the function '{_name(f)}' was given out_specs which require replication which "
            f"can't be statically inferred given the mesh:\n\n{_mesh_line(mesh)}\n\n{_one_or_bullets(lines)}\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. If not, consider revising "
            "the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False "
            "argument to `jax.shard_map`."
        )


def _check_psum_axes(eqn: JaxprEqn, varying: frozenset) -> None:
    """JAX's rule for a checked body: psum sums a value over axes it varies along, or over axes it
    is the same along (then it counts the copies), never over some of each at once."""
    axes = eqn.params["axes"]
    if 0 < len(varying & set(axes)) < len(axes):
        aval = eqn.invars[0].aval
        raise ValueError(
            "jax.lax.psum can only accept axis_name which corresponds to one of varying, unreduced, reduced or "
            f"invarying state of the input. Got input type: {aval.str_short()}{{V:{','.join(sorted(varying))}}}, "
            f"axes: {axes} and input state: {{'varying', 'invarying'}}. Sum over the axes the value varies along "
            f"({', '.join(a for a in axes if a in varying)}), or pass check_vma=False to shard_map to count the "
            "copies along the others."
        )


_REDUCTIONS = (parallel.psum_p, parallel.pmax_p, parallel.pmin_p)
_SPREADING = (parallel.all_gather_p, parallel.reduce_scatter_p, parallel.all_to_all_p, parallel.ppermute_p,
              parallel.pvary_p)  # fmt: skip


def _loop_varying(body: Jaxpr, ins: list[frozenset], start: int, n: int) -> list[frozenset]:
    """The outputs of a loop whose ``n`` carries are ``ins[start:start + n]``: the body's, with
    each carry grown by what the body makes of it until nothing grows (a carry that becomes
    varying after one pass stays varying for every pass after it)."""
    while True:
        outs = _varying(body, ins)
        grown = [c | o for c, o in zip(ins[start : start + n], outs[:n])]
        if grown == ins[start : start + n]:
            return [*grown, *outs[n:]]
        ins = [*ins[:start], *grown, *ins[start + n :]]


def _varying(jaxpr: Jaxpr, in_vary: list[frozenset]) -> list[frozenset]:
    """The mesh axes each output of ``jaxpr`` may vary over, given its inputs': a value computed
    from others varies where any of them does; psum, pmax and pmin make it the same along the axes
    they reduce over; axis_index and the collectives that move blocks (all_gather, ppermute...)
    make it vary along theirs. A function call inside (jit, checkpoint, custom_jvp and custom_vjp
    functions) is looked into, and so are cond's branches: an output varies where it does in any
    branch (not where the branch index does: JAX's types leave the index out too). A loop's body
    (while_loop, scan) is looked into until its carries hold still. JAX's types are stricter
    there: a carry must leave the body varying over the axes it entered with (a TypeError, with
    ``pcast`` as the fix), which this walk cannot ask without types. A tangent of zeros that
    forward mode adds as a carry is the same everywhere here, where JAX's zeros vary as their
    primal does; a rule that compared a carry's axes in and out would refuse such a loop.
    Coarser than JAX's types: all_gather(to='invarying') counts as varying."""
    env = dict(zip(jaxpr.invars, in_vary))
    read = lambda v: frozenset() if isinstance(v, Literal) else env.get(v, frozenset())  # noqa: E731
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        every = frozenset().union(*ins)
        p, inner = eqn.primitive, eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
        if p in _REDUCTIONS:
            if p is parallel.psum_p:
                _check_psum_axes(eqn, ins[0])
            outs = [every - set(eqn.params["axes"])]
        elif p in _SPREADING:
            if p is parallel.pvary_p and every & set(eqn.params["axes"]):
                raise ValueError(f"Unsupported pcast from=varying, to='varying': the value already varies over "
                                 f"{sorted(every & set(eqn.params['axes']))}")  # fmt: skip
            outs = [every | set(parallel.axis_names(eqn.params))]
        elif p is parallel.axis_index_p:
            outs = [frozenset(parallel.axis_names(eqn.params))]
        elif p is scan_p:
            outs = _loop_varying(inner.jaxpr, ins, eqn.params["num_consts"], eqn.params["num_carry"])
        elif p is while_p:
            body_ins = ins[eqn.params["cond_nconsts"] :]
            outs = _loop_varying(eqn.params["body_jaxpr"].jaxpr, body_ins, eqn.params["body_nconsts"],
                                 len(body_ins) - eqn.params["body_nconsts"])  # fmt: skip
        elif isinstance(inner, ClosedJaxpr) and len(inner.jaxpr.invars) == len(ins) and not inner.jaxpr.constvars:
            outs = _varying(inner.jaxpr, ins)
        elif p is cond_p:
            per_branch = [_varying(branch.jaxpr, ins[1:]) for branch in eqn.params["branches"]]
            outs = [frozenset().union(*vary) for vary in zip(*per_branch)]
        else:
            outs = [every] * len(eqn.outvars)
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]
