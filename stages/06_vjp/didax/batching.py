"""Batching: the vmap interpreter. Stage 03 introduced it.

``vmap(f)(xs)`` runs ``f`` once on the whole batch and gives what stacking ``f(x)`` over the
examples ``x`` of ``xs`` would give. Each value the function computes travels inside a
``BatchTracer``: the batched array itself, and which of its axes is the batch axis (its
``batch_dim``, or ``not_mapped`` for a value that is the same for every example). The function
sees the tracer as one example: its shape has no batch axis. Each primitive has a rule that runs
the primitive once on the batched arrays and says where the batch axis of the result is.

The rules move a batch axis only when they must: an elementwise operation keeps it where its
operands have it, a reduction or a transpose renumbers the axes around it, ``dot_general``
names it as a batch dimension of the contraction, and a gather or scatter names it as one of its
batching dimensions. The rules are at the bottom of this module, in lax's families.

Composition needs nothing more than in stage 02: vmap of vmap, of jvp, or jvp of vmap push one
interpreter per transformation on the stack, and ``bind`` hands each operation to the highest.
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import dtypes, lax, prng
from .core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    full_lower,
    full_raise,
    get_aval,
    new_main,
)
from .jaxpr import ClosedJaxpr, eval_jaxpr
from .lax import linalg
from .lax.loops import bind_scan, bind_while, carry_fixed_point, split_list
from .lax.slicing import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from .staging import trace_to_jaxpr
from .tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

not_mapped = None  # the batch_dim of a value that is the same for every example

# ----------------------------------------------------------------------------------------------
# The interpreter.


class AxisData(NamedTuple):
    """What a vmap knows about its batch axis. ``name`` and ``spmd_name`` are kept for the
    collective operations of stage 07 (``psum(x, axis_name)`` inside a vmap); nothing reads them
    yet."""

    name: Hashable | None
    size: int
    spmd_name: Any


class BatchTracer(Tracer):
    """A value followed by vmap: the batched array and the position of its batch axis."""

    __slots__ = ("_trace", "val", "batch_dim", "_aval")

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: int | None) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim
        self._aval: ShapedArray | None = None

    @property
    def aval(self) -> ShapedArray:
        # What one example looks like: the batched value's type without the batch axis. Rules
        # and wrappers ask for it often; a tracer never changes, so it is worked out once.
        if self._aval is None:
            aval = get_aval(self.val)
            if self.batch_dim is not not_mapped:
                shape = aval.shape[: self.batch_dim] + aval.shape[self.batch_dim + 1 :]
                aval = ShapedArray(shape, aval.dtype, aval.weak_type)
            self._aval = aval
        return self._aval

    def full_lower(self) -> Any:
        # A value that is the same for every example needs no tracer.
        if self.batch_dim is not_mapped:
            return full_lower(self.val)
        return self

    def __repr__(self) -> str:
        # As JAX prints it, ``VmapTracer(aval=float32[], batched=float32[3])``: one example's type,
        # and the type of the whole batch (its batch axis where batch_dim puts it).
        return f"VmapTracer(aval={self.aval}, batched={get_aval(self.val)})"


class BatchTrace(Trace):
    escaped_tracers_are_constants = False  # JAX invalidates vmap's trace when vmap returns

    def pure(self, val: Any) -> BatchTracer:
        return BatchTracer(self, val, not_mapped)

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if all(d is not_mapped for d in dims):  # nothing here varies over the batch
            return primitive.bind(*vals, **params)
        rule = batching_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
        out, out_dim = rule(vals, dims, **params)
        if primitive.multiple_results:
            return [BatchTracer(self, x, d) for x, d in zip(out, out_dim)]
        return BatchTracer(self, out, out_dim)


# ----------------------------------------------------------------------------------------------
# The API.


def vmap(
    fun: Callable[..., Any],
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Hashable | None = None,
    axis_size: int | None = None,
    spmd_axis_name: Any = None,
) -> Callable[..., Any]:
    """``fun`` mapped over an axis of its inputs: ``vmap(f)(xs)`` stacks ``f(x)`` over the
    examples ``x`` of ``xs`` without running ``f`` once per example.

    ``in_axes`` says which axis of each positional argument is mapped: an int (negative counts
    from the end), ``None`` for an argument shared by every example, or a tuple with one entry
    per positional argument, each a prefix pytree of that argument. Keyword arguments are always
    mapped over their axis 0. ``out_axes`` says the same of the outputs; ``None`` there is for an
    output that does not vary over the batch. ``axis_size`` gives the batch size when no input
    is mapped. ``axis_name`` and ``spmd_axis_name`` are kept for stage 07's collectives.
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    in_axes = _check_in_axes(in_axes)
    _check_axes_leaves("out_axes", out_axes)

    @functools.wraps(fun)
    def vmap_f(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, "
                f"len(args)={len(args)}"
            )
        leaves, in_tree = tree_flatten((args, kwargs))
        if (in_axes is None or type(in_axes) is int) and not kwargs:  # the common case, quickly
            axes = [in_axes] * len(leaves)
        else:
            axes = _flatten_axes("vmap in_axes", (args, kwargs), (in_axes, 0))
        axes = [_check_in_axis(x, a) for x, a in zip(leaves, axes)]
        size = _batch_size(fun, args, kwargs, leaves, axes, axis_size)
        outs, out_tree = _batch(fun, in_tree, leaves, axes, AxisData(axis_name, size, spmd_axis_name))
        if out_axes is None or type(out_axes) is int:
            out_axes_flat = [out_axes] * len(outs)
        else:
            out_tree_of_values = tree_unflatten(out_tree, [x for x, _ in outs])
            out_axes_flat = _flatten_axes("vmap out_axes", out_tree_of_values, out_axes)
        moved = [_to_out_axis(x, d, a, size) for (x, d), a in zip(outs, out_axes_flat)]
        return tree_unflatten(out_tree, moved)

    return vmap_f


def _batch(
    fun: Callable[..., Any], in_tree: Any, leaves: list[Any], axes: list[int | None], axis_data: AxisData
) -> tuple[list[tuple[Any, int | None]], Any]:
    """Run ``fun`` once on the batch; its outputs as (batched value, batch_dim) pairs."""
    with new_main(BatchTrace, axis_data) as main:
        trace = BatchTrace(main)
        # An input that is not mapped is a constant to this transformation: it is not traced.
        tracers = [x if a is not_mapped else BatchTracer(trace, x, a) for x, a in zip(leaves, axes)]
        args, kwargs = tree_unflatten(in_tree, tracers)
        out_flat, out_tree = tree_flatten(fun(*args, **kwargs))
        pairs = []
        for x in out_flat:
            if _is_float0(x):  # an integer's tangent: no data, the same for every example
                pairs.append((x, not_mapped))
                continue
            _check_output(x)
            tracer = full_raise(trace, x)
            pairs.append((tracer.val, tracer.batch_dim))
    return pairs, out_tree


def _is_float0(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == dtypes.float0


def _check_output(x: Any) -> None:
    if not isinstance(x, Tracer):
        try:
            get_aval(x)
        except TypeError:
            raise TypeError(
                f"Output from batched function {x!r} with type {type(x)} is not a valid JAX type"
            ) from None


def _to_out_axis(x: Any, bdim: int | None, out_axis: int | None, size: int) -> Any:
    """The batched output with its batch axis at ``out_axis`` (made, if it had none)."""
    if out_axis is None:
        if bdim is not_mapped:
            return x
        raise ValueError(f"at vmap out_axes, got axis spec None but output was batched on axis {bdim}")
    float0 = _is_float0(x)
    ndim = (np.ndim(x) if float0 else get_aval(x).ndim) + (bdim is not_mapped)
    if not -ndim <= out_axis < ndim:
        raise ValueError(f"axis {out_axis} is out of bounds for array of dimension {ndim}")
    if float0:  # float0 holds no data: the batched zeros are NumPy's, as JAX gives them
        shape = list(x.shape)
        shape.insert(out_axis % ndim, size)
        return np.zeros(shape, dtypes.float0)
    return bdim_to(x, bdim, out_axis % ndim, size)


# --- checking in_axes and out_axes ------------------------------------------------------------


def _check_in_axes(in_axes: Any) -> Any:
    if isinstance(in_axes, list):  # a list at the top means a tuple, as in JAX
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes}."
        )
    _check_axes_leaves("in_axes", in_axes)
    return in_axes


def _check_axes_leaves(what: str, axes: Any) -> None:
    leaves, _ = tree_flatten(axes)  # None is an empty node here: only ints may remain
    if not all(type(leaf) is int for leaf in leaves):
        raise TypeError(
            f"vmap {what} must be an int, None, or (nested) container with those types as leaves, "
            f"but got {axes}."
        )


def _flatten_axes(what: str, tree: Any, axes: Any) -> list[int | None]:
    """One axis per leaf of ``tree``: ``axes`` is a prefix of it, each of its leaves (an int or
    None) standing for every leaf of the subtree at the same place."""
    axis_leaves, axis_tree = tree_flatten(axes, is_leaf=lambda x: x is None)
    try:
        subtrees = axis_tree.flatten_up_to(tree)
    except ValueError as e:
        raise ValueError(
            f"{what} specification must be a tree prefix of the corresponding value; {e}"
        ) from None
    return [axis for axis, sub in zip(axis_leaves, subtrees) for _ in tree_flatten(sub)[0]]


def _check_in_axis(x: Any, axis: int | None) -> int | None:
    """The mapped axis of ``x`` counted from the front, after checking that ``x`` has it."""
    if axis is None:
        return not_mapped
    shape = get_aval(x).shape  # a value that is not an array fails here, with a TypeError
    if not -len(shape) <= axis < len(shape):
        rank = axis + 1 if axis >= 0 else -axis
        raise ValueError(
            f"vmap was requested to map its argument along axis {axis}, which implies that its rank "
            f"should be at least {rank}, but is only {len(shape)} (its shape is {shape})"
        )
    return axis % len(shape)


def _batch_size(
    fun: Callable[..., Any], args: tuple, kwargs: dict, leaves: list[Any], axes: list[int | None],
    axis_size: int | None,
) -> int:
    """The size of the mapped axes, which must all agree (and agree with ``axis_size``)."""
    mapped = [(i, get_aval(x).shape[a]) for i, (x, a) in enumerate(zip(leaves, axes)) if a is not not_mapped]
    sizes = {size for _, size in mapped} | ({axis_size} if axis_size is not None else set())
    if len(sizes) == 1:
        return int(sizes.pop())
    if not leaves:
        raise ValueError(
            "vmap wrapped function must be passed at least one argument containing an array or "
            f"axis_size must be specified, got empty *args={args} and **kwargs={kwargs}"
        )
    if not sizes:
        raise ValueError(
            "vmap must have at least one non-None value in in_axes or axis_size must be specified"
        )
    raise ValueError(_inconsistent_sizes(fun, args, kwargs, leaves, axes, mapped, axis_size))


def _inconsistent_sizes(
    fun: Callable[..., Any], args: tuple, kwargs: dict, leaves: list[Any], axes: list[int | None],
    mapped: list[tuple[int, int]], axis_size: int | None,
) -> str:
    """JAX's message: each size, how many axes had it, and an example of which."""
    names = _leaf_names(fun, args, kwargs)
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size}"]
    for size, count in Counter(size for _, size in mapped).most_common():
        i = next(i for i, s in mapped if s == size)
        where = f"axis {axes[i]} of {names[i]} of type {get_aval(leaves[i]).str_short()}"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {where}")
        else:
            many = "most" if not lines or lines[-1].startswith("  * the") else "some"
            lines.append(f"  * {many} axes ({count} of them) had size {size}, e.g. {where}")
    return "vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)


def _leaf_names(fun: Callable[..., Any], args: tuple, kwargs: dict) -> list[str]:
    """A name for each leaf of (args, kwargs), for error messages: ``argument x['a']`` after
    ``fun``'s parameter, ``args[1]`` where there is none, ``kwargs['b']`` for a keyword."""
    try:
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                 inspect.Parameter.VAR_POSITIONAL)
        params = [p.name for p in inspect.signature(fun).parameters.values() if p.kind in kinds]
    except (TypeError, ValueError):  # some callables have no signature
        params = []
    names = []
    for path, _ in tree_flatten_with_path((args, kwargs))[0]:
        in_kwargs, inner = path[0].idx == 1, keystr(tuple(path[2:]))
        if in_kwargs:
            names.append(f"kwargs[{path[1].key!r}]{inner}")
        elif path[1].idx < len(params):
            names.append(f"argument {params[path[1].idx]}{inner}")
        else:
            names.append(f"args[{path[1].idx}]{inner}")
    return names


# ----------------------------------------------------------------------------------------------
# Batching a jaxpr (stage 04): a control-flow primitive's rule batches its bodies, and gets a new
# jaxpr that runs them on the whole batch at once.


def batch_jaxpr(
    closed: ClosedJaxpr, axis_size: int, in_batched: Sequence[bool], instantiate: bool | Sequence[bool]
) -> tuple[ClosedJaxpr, list[bool]]:
    """``closed`` batched: the inputs marked in ``in_batched`` have a batch axis 0 of size
    ``axis_size``, and so do the outputs marked in the list returned: those that vary over the
    batch, and those marked in ``instantiate`` (broadcast if need be)."""
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    out_batched: list[bool] = []

    def batched_fun(*args: Any) -> list[Any]:
        with new_main(BatchTrace, AxisData(None, axis_size, None)) as main:
            trace = BatchTrace(main)
            tracers = [BatchTracer(trace, x, 0) if b else x for x, b in zip(args, in_batched)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
            pairs = [(t.val, t.batch_dim) for t in (full_raise(trace, x) for x in outs)]
        results = []
        for (val, bdim), i in zip(pairs, inst):
            batched = bdim is not not_mapped or i
            out_batched.append(batched)
            results.append(bdim_to(val, bdim, 0, axis_size) if batched else val)
        return results

    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if b else a
        for a, b in zip(closed.in_avals, in_batched)
    ]
    jaxpr, _ = trace_to_jaxpr(batched_fun, in_avals)
    return jaxpr, out_batched


# ----------------------------------------------------------------------------------------------
# Moving batch axes: the rules' tools.


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """``x`` with its axis ``src`` moved to ``dst`` (nothing to do when they are equal)."""
    if src == dst:
        return x
    perm = [i for i in range(get_aval(x).ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def bdim_to(x: Any, bdim: int | None, dst: int, size: int) -> Any:
    """``x`` with its batch axis at ``dst``; an unbatched ``x`` is broadcast along a new one."""
    if bdim is not_mapped:
        shape = list(get_aval(x).shape)
        shape.insert(dst, size)
        return lax.broadcast_in_dim(x, shape, [i for i in range(len(shape)) if i != dst])
    return moveaxis(x, bdim, dst)


def batch_size(vals: Sequence[Any], dims: Sequence[int | None]) -> int:
    """The batch size, read off the first batched operand."""
    return next(get_aval(x).shape[d] for x, d in zip(vals, dims) if d is not not_mapped)


def full_axis(axis: int, bdim: int) -> int:
    """Where an example's axis ``axis`` is in the batched array, whose batch axis is ``bdim``."""
    return axis + (axis >= bdim)


def _example_ndim(x: Any, bdim: int | None) -> int:
    return get_aval(x).ndim - (bdim is not not_mapped)


# ----------------------------------------------------------------------------------------------
# Rules. ``batching_rules[p](vals, dims, **params)`` returns ``(out, out_dim)``: the result of
# ``p`` on the batched values ``vals``, whose batch axes are ``dims`` (``not_mapped`` for an
# operand shared by all examples; at least one is batched), and its batch axis.

BatchRule = Callable[..., tuple[Any, Any]]
batching_rules: dict[Primitive, BatchRule] = {}


# --- elementwise ------------------------------------------------------------------------------
# lax broadcasts a rank-0 operand anywhere and an axis of size 1 against any size. So the batch
# axis can stay where the first full-rank batched operand has it: other batched operands move
# theirs there, unbatched ones get a size-1 axis there (a reshape), rank-0 ones need nothing.


def defelementwise(prim: Primitive) -> None:
    def rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, int]:
        ranks = [_example_ndim(x, d) for x, d in zip(vals, dims)]
        rank = max(ranks)
        full_rank = [d for d, r in zip(dims, ranks) if d is not not_mapped and r == rank]
        out = full_rank[0] if full_rank else 0
        aligned = [_align(x, d, r, rank, out) for x, d, r in zip(vals, dims, ranks)]
        return prim.bind(*aligned, **params), out

    batching_rules[prim] = rule


def _align(x: Any, bdim: int | None, rank: int, out_rank: int, out: int) -> Any:
    """An operand of an elementwise operation, made to broadcast against the batched result."""
    if bdim is not_mapped:
        return x if rank == 0 else lax.expand_dims(x, (out,))
    if rank == out_rank:
        return moveaxis(x, bdim, out)
    ones = [1] * (out_rank + 1)  # a batch of scalars: its batch axis, and size 1 elsewhere
    ones[out] = get_aval(x).shape[bdim]
    return lax.broadcast_in_dim(x, ones, (out,))


def _full_shape_rule(prim: Primitive) -> BatchRule:
    """For operations whose operands must have one shape (or be rank 0, where allowed): every
    operand of the example's full rank is brought to the batched shape, batch axis first."""
    def rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, int]:
        size = batch_size(vals, dims)
        shape = max((_example_shape(x, d) for x, d in zip(vals, dims)), key=len)
        full = [x if d is not_mapped and get_aval(x).ndim == 0 and _scalar_ok(prim, i)
                else _batched_to_shape(x, d, shape, size) for i, (x, d) in enumerate(zip(vals, dims))]
        return prim.bind(*full, **params), 0

    return rule


def _example_shape(x: Any, bdim: int | None) -> tuple[int, ...]:
    shape = get_aval(x).shape
    return shape if bdim is not_mapped else shape[:bdim] + shape[bdim + 1 :]


def _batched_to_shape(x: Any, bdim: int | None, shape: tuple[int, ...], size: int) -> Any:
    """``x``, one example of ``shape`` (or a scalar), as the batch ``(size, *shape)``."""
    x = bdim_to(x, bdim, 0, size)
    if get_aval(x).shape == (size, *shape):
        return x
    return lax.broadcast_in_dim(x, (size, *shape), (0,))  # a batch of scalars


def _scalar_ok(prim: Primitive, position: int) -> bool:
    """Whether an unbatched scalar may stay a scalar: clamp's bounds and select_n's predicate."""
    return (prim is lax.clamp_p and position != 1) or (prim is lax.select_n_p and position == 0)


for _prim in (
    # arithmetic and powers
    lax.neg_p, lax.add_p, lax.sub_p, lax.mul_p, lax.div_p, lax.rem_p, lax.square_p,
    lax.integer_pow_p, lax.pow_p, lax.sign_p, lax.abs_p, lax.max_p, lax.min_p,
    # exponentials, logarithms, trigonometry
    lax.exp_p, lax.exp2_p, lax.log_p, lax.log1p_p, lax.expm1_p, lax.logistic_p, lax.sqrt_p,
    lax.rsqrt_p, lax.cbrt_p, lax.sin_p, lax.cos_p, lax.tan_p, lax.tanh_p, lax.sinh_p, lax.cosh_p,
    lax.asin_p, lax.acos_p, lax.atan_p, lax.asinh_p, lax.acosh_p, lax.atanh_p, lax.atan2_p,
    # rounding, parts of complex numbers, types
    lax.floor_p, lax.ceil_p, lax.round_p, lax.reduce_precision_p, lax.is_finite_p, lax.nextafter_p,
    lax.real_p, lax.imag_p, lax.conj_p, lax.complex_p, lax.convert_element_type_p, lax.stop_gradient_p,
    # comparisons and logic
    lax.eq_p, lax.ne_p, lax.lt_p, lax.le_p, lax.gt_p, lax.ge_p, lax.and_p, lax.or_p, lax.not_p,
    lax.xor_p, lax.shift_left_p, lax.shift_right_logical_p, lax.shift_right_arithmetic_p,
    lax.population_count_p, lax.clz_p,
    # special functions
    lax.erf_p, lax.erfc_p, lax.erf_inv_p, lax.lgamma_p, lax.digamma_p, lax.bessel_i0e_p,
    lax.bessel_i1e_p, lax.zeta_p, lax.polygamma_p, lax.igamma_p, lax.igammac_p, lax.igamma_grad_a_p,
    lax.incomplete_gamma.random_gamma_grad_p, lax.incomplete_gamma.random_gamma_grad_da_p,
):
    defelementwise(_prim)

batching_rules[lax.clamp_p] = _full_shape_rule(lax.clamp_p)
batching_rules[lax.select_n_p] = _full_shape_rule(lax.select_n_p)


def _bitcast_convert_type_rule(vals: list[Any], dims: list[int | None], *, new_dtype: Any) -> tuple[Any, int]:
    # A change of width adds or removes the last axis: keep the batch axis off it.
    (x,), (bdim,) = vals, dims
    if bdim == get_aval(x).ndim - 1:
        x, bdim = moveaxis(x, bdim, 0), 0
    return lax.bitcast_convert_type(x, new_dtype), bdim


batching_rules[lax.bitcast_convert_type_p] = _bitcast_convert_type_rule


# --- shapes and axes --------------------------------------------------------------------------


def _broadcast_in_dim_rule(vals: list[Any], dims: list[int | None], *, shape: tuple[int, ...],
                           broadcast_dimensions: tuple[int, ...]) -> tuple[Any, int]:
    # The batch axis goes into the output right after the output axis of the operand axis before
    # it, so the operand's axes keep their order and nothing moves.
    (x,), (bdim,) = vals, dims
    out = broadcast_dimensions[bdim - 1] + 1 if bdim > 0 else 0
    new_shape = (*shape[:out], get_aval(x).shape[bdim], *shape[out:])
    example = [d + (d >= out) for d in broadcast_dimensions]
    new_dims = (*example[:bdim], out, *example[bdim:])
    return lax.broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims), out


def _reshape_rule(vals: list[Any], dims: list[int | None], *, new_sizes: tuple[int, ...],
                  dimensions: tuple[int, ...] | None) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    x = moveaxis(x, bdim, 0)  # a reshape reads the elements in order: the batch axis goes first
    if dimensions is not None:
        dimensions = (0, *(d + 1 for d in dimensions))
    size = get_aval(x).shape[0]
    return lax.reshape_p.bind(x, new_sizes=(size, *new_sizes), dimensions=dimensions), 0


def _transpose_rule(
    vals: list[Any], dims: list[int | None], *, permutation: tuple[int, ...]
) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    perm = [full_axis(p, bdim) for p in permutation]
    perm.insert(bdim, bdim)  # the batch axis stays where it is
    return lax.transpose_p.bind(x, permutation=tuple(perm)), bdim


def _squeeze_rule(vals: list[Any], dims: list[int | None], *, dimensions: tuple[int, ...]) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    axes = tuple(full_axis(d, bdim) for d in dimensions)
    return lax.squeeze_p.bind(x, dimensions=axes), bdim - sum(a < bdim for a in axes)


def _rev_rule(vals: list[Any], dims: list[int | None], *, dimensions: tuple[int, ...]) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    return lax.rev_p.bind(x, dimensions=tuple(full_axis(d, bdim) for d in dimensions)), bdim


def _concatenate_rule(vals: list[Any], dims: list[int | None], *, dimension: int) -> tuple[Any, int]:
    size = batch_size(vals, dims)
    out = next(d for d in dims if d is not not_mapped)
    operands = [bdim_to(x, d, out, size) for x, d in zip(vals, dims)]
    return lax.concatenate_p.bind(*operands, dimension=full_axis(dimension, out)), out


def _pad_rule(vals: list[Any], dims: list[int | None], *, padding_config: tuple) -> tuple[Any, int]:
    (x, value), (bdim, value_bdim) = vals, dims
    if value_bdim is not_mapped:  # one padding value: the batch axis is simply not padded
        config = list(padding_config)
        config.insert(bdim, (0, 0, 0))
        return lax.pad_p.bind(x, value, padding_config=tuple(config)), bdim
    # A padding value per example: pad with anything, then select each example's value where a
    # padded mask (True inside the operand, False in the padding) says it is padding.
    size = batch_size(vals, dims)
    x = bdim_to(x, bdim, 0, size)
    dtype = get_aval(x).dtype
    padded = lax.pad_p.bind(x, np.zeros((), dtype), padding_config=((0, 0, 0), *padding_config))
    inside = lax.pad_p.bind(np.ones(get_aval(x).shape[1:], bool), np.False_, padding_config=padding_config)
    shape = get_aval(padded).shape
    inside = lax.broadcast_in_dim(inside, shape, tuple(range(1, len(shape))))
    fill = lax.broadcast_in_dim(bdim_to(value, value_bdim, 0, size), shape, (0,))
    return lax.select_n(inside, fill, padded), 0


def _slice_rule(vals: list[Any], dims: list[int | None], *, start_indices: tuple[int, ...],
                limit_indices: tuple[int, ...], strides: tuple[int, ...] | None) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    size = get_aval(x).shape[bdim]
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(bdim, 0)
    limits.insert(bdim, size)
    if strides is not None:
        strides = (*strides[:bdim], 1, *strides[bdim:])
    out = lax.slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits), strides=strides)
    return out, bdim


def _dynamic_slice_rule(
    vals: list[Any], dims: list[int | None], *, slice_sizes: tuple[int, ...]
) -> tuple[Any, int]:
    (x, *starts), (bdim, *start_dims) = vals, dims
    if all(d is not_mapped for d in start_dims):  # the same window of every example
        starts.insert(bdim, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))
        sizes = (*slice_sizes[:bdim], get_aval(x).shape[bdim], *slice_sizes[bdim:])
        return lax.dynamic_slice_p.bind(x, *starts, slice_sizes=sizes), bdim
    # A window per example: a gather whose batching dimension pairs examples with their starts.
    # Its CLIP mode moves each window inside the operand, as dynamic_slice does.
    size = batch_size(vals, dims)
    x, indices = bdim_to(x, bdim, 0, size), _start_indices(starts, start_dims, size)
    n = len(starts)
    numbers = GatherDimensionNumbers(
        offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(), start_index_map=tuple(range(1, n + 1)),
        operand_batching_dims=(0,), start_indices_batching_dims=(0,),
    )
    out = lax.gather(x, indices, numbers, (1, *slice_sizes), mode=GatherScatterMode.CLIP)
    return out, 0


def _dynamic_update_slice_rule(vals: list[Any], dims: list[int | None]) -> tuple[Any, int]:
    (x, update, *starts), (bdim, update_bdim, *start_dims) = vals, dims
    size = batch_size(vals, dims)
    if all(d is not_mapped for d in start_dims):  # the same window of every example
        out = bdim if bdim is not not_mapped else update_bdim
        x, update = bdim_to(x, bdim, out, size), bdim_to(update, update_bdim, out, size)
        starts.insert(out, np.zeros((), get_aval(starts[0]).dtype if starts else np.int32))
        return lax.dynamic_update_slice_p.bind(x, update, *starts), out
    # A window per example: a scatter with a batching dimension, clipped as dynamic_update_slice is.
    x, update = bdim_to(x, bdim, 0, size), bdim_to(update, update_bdim, 0, size)
    indices = _start_indices(starts, start_dims, size)
    n = len(starts)
    numbers = ScatterDimensionNumbers(
        update_window_dims=tuple(range(1, n + 1)), inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(1, n + 1)), operand_batching_dims=(0,),
        scatter_indices_batching_dims=(0,),
    )
    out = lax.scatter(x, indices, update, numbers, indices_are_sorted=True, unique_indices=True,
                      mode=GatherScatterMode.CLIP)
    return out, 0


def _start_indices(starts: list[Any], dims: list[int | None], size: int) -> Any:
    """Scalar start indices, some batched, as one (size, len(starts)) array of int32."""
    columns = [lax.convert_element_type(bdim_to(s, d, 0, size), np.int32) for s, d in zip(starts, dims)]
    return lax.concatenate([lax.broadcast_in_dim(c, (size, 1), (0,)) for c in columns], 1)


batching_rules[lax.broadcast_in_dim_p] = _broadcast_in_dim_rule
batching_rules[lax.reshape_p] = _reshape_rule
batching_rules[lax.transpose_p] = _transpose_rule
batching_rules[lax.squeeze_p] = _squeeze_rule
batching_rules[lax.rev_p] = _rev_rule
batching_rules[lax.concatenate_p] = _concatenate_rule
batching_rules[lax.pad_p] = _pad_rule
batching_rules[lax.slice_p] = _slice_rule
batching_rules[lax.dynamic_slice_p] = _dynamic_slice_rule
batching_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_rule
# iota has no operands, so no operand of it is ever batched: it needs no rule.


# --- reductions and scans ---------------------------------------------------------------------


def defreduction(prim: Primitive) -> None:
    """Reductions over ``axes`` (and argmax/argmin): the axes are renumbered around the batch
    axis, which stays, and moves down by one for each reduced axis before it."""
    def rule(
        vals: list[Any], dims: list[int | None], *, axes: tuple[int, ...], **params: Any
    ) -> tuple[Any, int]:
        (x,), (bdim,) = vals, dims
        full = tuple(full_axis(a, bdim) for a in axes)
        return prim.bind(x, axes=full, **params), bdim - sum(a < bdim for a in full)

    batching_rules[prim] = rule


def defcumulative(prim: Primitive) -> None:
    def rule(vals: list[Any], dims: list[int | None], *, axis: int, reverse: bool) -> tuple[Any, int]:
        (x,), (bdim,) = vals, dims
        return prim.bind(x, axis=full_axis(axis, bdim), reverse=reverse), bdim

    batching_rules[prim] = rule


for _prim in (lax.reduce_sum_p, lax.reduce_prod_p, lax.reduce_max_p, lax.reduce_min_p, lax.reduce_and_p,
              lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p):
    defreduction(_prim)
for _prim in (lax.cumsum_p, lax.cumprod_p, lax.cummax_p, lax.cummin_p, lax.cumlogsumexp_p):
    defcumulative(_prim)


def defwindowed(prim: Primitive) -> None:
    """Windowed reductions: the batch axis gets a window of one element, which leaves it alone."""
    def rule(vals: list[Any], dims: list[int | None], *, window_dimensions: tuple[int, ...],
             window_strides: tuple[int, ...], padding: tuple, base_dilation: tuple[int, ...],
             window_dilation: tuple[int, ...]) -> tuple[Any, int]:  # fmt: skip
        (x,), (bdim,) = vals, dims

        def widen(values: tuple, one: Any) -> tuple:
            return (*values[:bdim], one, *values[bdim:])

        return prim.bind(x, window_dimensions=widen(window_dimensions, 1), window_strides=widen(window_strides, 1),
                         padding=widen(padding, (0, 0)), base_dilation=widen(base_dilation, 1),
                         window_dilation=widen(window_dilation, 1)), bdim

    batching_rules[prim] = rule


for _prim in (lax.reduce_window_sum_p, lax.reduce_window_max_p, lax.reduce_window_min_p):
    defwindowed(_prim)


# --- contraction ------------------------------------------------------------------------------


def _dot_general_rule(vals: list[Any], dims: list[int | None], *, dimension_numbers: Any,
                      preferred_element_type: Any) -> tuple[Any, int]:
    # Both operands batched: the batch axis is one more batch dimension of the contraction, the
    # first, so it comes out first. One batched: it is a free dimension of that operand, and
    # comes out where dot_general puts that operand's free dimensions.
    (lhs, rhs), (lhs_bdim, rhs_bdim) = vals, dims
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    if lhs_bdim is not not_mapped:
        lhs_contract, lhs_batch = _renumber(lhs_contract, lhs_bdim), _renumber(lhs_batch, lhs_bdim)
    if rhs_bdim is not not_mapped:
        rhs_contract, rhs_batch = _renumber(rhs_contract, rhs_bdim), _renumber(rhs_batch, rhs_bdim)
    lhs_ndim, rhs_ndim = get_aval(lhs).ndim, get_aval(rhs).ndim
    if lhs_bdim is not not_mapped and rhs_bdim is not not_mapped:
        lhs_batch, rhs_batch, out = (lhs_bdim, *lhs_batch), (rhs_bdim, *rhs_batch), 0
    elif lhs_bdim is not not_mapped:
        out = len(lhs_batch) + _free_dims(lhs_ndim, lhs_contract, lhs_batch).index(lhs_bdim)
    else:
        lhs_free = lhs_ndim - len(lhs_contract) - len(lhs_batch)
        out = len(rhs_batch) + lhs_free + _free_dims(rhs_ndim, rhs_contract, rhs_batch).index(rhs_bdim)
    numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))
    return lax.dot_general_p.bind(lhs, rhs, dimension_numbers=numbers,
                                  preferred_element_type=preferred_element_type), out


def _renumber(axes: Sequence[int], bdim: int) -> tuple[int, ...]:
    return tuple(full_axis(a, bdim) for a in axes)


def _free_dims(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
    return [d for d in range(ndim) if d not in contract and d not in batch]


batching_rules[lax.dot_general_p] = _dot_general_rule


# --- convolution ------------------------------------------------------------------------------
# A convolution has no spare axis to carry a batch, but its batch, feature and group structure can:
# the vmap axis is folded into one of its axes (as the major part, so the groups stay outermost)
# and split out of the result again.


def merge_axes(x: Any, axis: int) -> Any:
    """``x`` with axes ``axis`` and ``axis + 1`` made one, the first the major part."""
    shape = get_aval(x).shape
    return lax.reshape(x, (*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2:]))


def split_axis(x: Any, axis: int, outer: int) -> Any:
    """``x`` with axis ``axis`` made two, the first of size ``outer``."""
    shape = get_aval(x).shape
    return lax.reshape(x, (*shape[:axis], outer, shape[axis] // outer, *shape[axis + 1:]))


def _fold(x: Any, bdim: int, axis: int, groups: int) -> Any:
    """``x``'s batch axis folded into the example's axis ``axis``, inside each of its ``groups``:
    an axis of groups * n becomes groups * batch * n."""
    x = moveaxis(x, bdim, 0)
    x = split_axis(x, axis + 1, groups)  # (batch, ..., groups, n, ...)
    x = merge_axes(moveaxis(x, 0, axis + 1), axis + 1)  # (..., groups, batch * n, ...)
    return merge_axes(x, axis)


def _unfold(x: Any, axis: int, size: int, groups: int) -> Any:
    """The inverse of _fold on the result: axis ``axis`` of groups * batch * n becomes a batch
    axis of ``size`` at ``axis``, followed by one of groups * n."""
    x = split_axis(split_axis(x, axis, groups), axis + 1, size)  # (..., groups, batch, n, ...)
    return merge_axes(moveaxis(x, axis + 1, axis), axis + 1)


def _conv_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, int]:
    (lhs, rhs), (lhs_bdim, rhs_bdim) = vals, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    features, batches = params["feature_group_count"], params["batch_group_count"]
    size = batch_size(vals, dims)
    if size == 0:  # no example: nothing to fold, and a group count of 0 would be refused
        example = lax.conv_general_dilated_p.abstract_eval(
            *[ShapedArray(_example_shape(x, d), get_aval(x).dtype) for x, d in zip(vals, dims)], **params)
        return lax.full((0, *example.shape), 0, example.dtype), 0
    if lhs_bdim is not not_mapped and rhs_bdim is not not_mapped:
        # Each example its own kernels: the examples become more groups, of features (or of the
        # batch, when the batch is already grouped).
        if batches > 1:
            lhs, params = _fold(lhs, lhs_bdim, lhs_spec[0], 1), {**params, "batch_group_count": batches * size}
        else:
            lhs, params = _fold(lhs, lhs_bdim, lhs_spec[1], 1), {**params, "feature_group_count": features * size}
        out = lax.conv_general_dilated_p.bind(lhs, _fold(rhs, rhs_bdim, rhs_spec[0], 1), **params)
        return _unfold(out, out_spec[1], size, 1), out_spec[1]
    if lhs_bdim is not not_mapped:  # more images: a larger batch (in each batch group)
        out = lax.conv_general_dilated_p.bind(_fold(lhs, lhs_bdim, lhs_spec[0], batches), rhs, **params)
        return _unfold(out, out_spec[0], size, 1), out_spec[0]
    # More kernels: more output features (in each group).
    groups = max(features, batches)
    out = lax.conv_general_dilated_p.bind(lhs, _fold(rhs, rhs_bdim, rhs_spec[0], groups), **params)
    return _unfold(out, out_spec[1], size, groups), out_spec[1]


batching_rules[lax.conv_general_dilated_p] = _conv_rule


# --- gather and scatter -----------------------------------------------------------------------
# Both have batching dimensions of their own: pairs of an operand axis and an index axis that
# are walked together, example by example. The batch axis goes first in each operand and
# becomes such a pair. An operand batched alone (indices shared by every example) needs no pair:
# its batch axis is one more axis of every slice, or of every update window.


def _gather_rule(vals: list[Any], dims: list[int | None], *, dimension_numbers: GatherDimensionNumbers,
                 slice_sizes: tuple[int, ...], **params: Any) -> tuple[Any, int]:
    (operand, indices), (operand_bdim, indices_bdim) = vals, dims
    dn = dimension_numbers
    shift = lambda axes: tuple(a + 1 for a in axes)  # noqa: E731 - the batch axis now comes first
    if indices_bdim is not_mapped:  # every example gathers the same slices: take the batch whole
        operand = moveaxis(operand, operand_bdim, 0)
        dn = GatherDimensionNumbers((0, *shift(dn.offset_dims)), shift(dn.collapsed_slice_dims),
                                    shift(dn.start_index_map), shift(dn.operand_batching_dims),
                                    dn.start_indices_batching_dims)
        slice_sizes = (get_aval(operand).shape[0], *slice_sizes)
    elif operand_bdim is not_mapped:  # one operand: the batch axis is one more axis of indices
        indices = moveaxis(indices, indices_bdim, 0)
        dn = dn._replace(offset_dims=shift(dn.offset_dims),
                         start_indices_batching_dims=shift(dn.start_indices_batching_dims))
    else:
        operand, indices = moveaxis(operand, operand_bdim, 0), moveaxis(indices, indices_bdim, 0)
        dn = GatherDimensionNumbers(shift(dn.offset_dims), shift(dn.collapsed_slice_dims),
                                    shift(dn.start_index_map), (0, *shift(dn.operand_batching_dims)),
                                    (0, *shift(dn.start_indices_batching_dims)))
        slice_sizes = (1, *slice_sizes)
    return lax.gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes, **params), 0


def defscatter(prim: Primitive) -> None:
    def rule(vals: list[Any], dims: list[int | None], *, dimension_numbers: ScatterDimensionNumbers,
             **params: Any) -> tuple[Any, int]:
        (operand, indices, updates), (operand_bdim, indices_bdim, updates_bdim) = vals, dims
        size, dn = batch_size(vals, dims), dimension_numbers
        shift = lambda axes: tuple(a + 1 for a in axes)  # noqa: E731 - the batch axis now comes first
        operand, updates = bdim_to(operand, operand_bdim, 0, size), bdim_to(updates, updates_bdim, 0, size)
        # The same windows for every example: the batch axis is one more axis of each window.
        if indices_bdim is not_mapped:
            dn = ScatterDimensionNumbers((0, *shift(dn.update_window_dims)), shift(dn.inserted_window_dims),
                                         shift(dn.scatter_dims_to_operand_dims), shift(dn.operand_batching_dims),
                                         dn.scatter_indices_batching_dims)
        else:
            indices = moveaxis(indices, indices_bdim, 0)
            dn = ScatterDimensionNumbers(shift(dn.update_window_dims), shift(dn.inserted_window_dims),
                                         shift(dn.scatter_dims_to_operand_dims),
                                         (0, *shift(dn.operand_batching_dims)),
                                         (0, *shift(dn.scatter_indices_batching_dims)))
        return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0

    batching_rules[prim] = rule


batching_rules[lax.gather_p] = _gather_rule
for _prim in (lax.scatter_p, lax.scatter_add_p, lax.scatter_sub_p, lax.scatter_mul_p, lax.scatter_min_p,
              lax.scatter_max_p):
    defscatter(_prim)


# --- sorting ----------------------------------------------------------------------------------


def _sort_rule(
    vals: list[Any], dims: list[int | None], *, dimension: int, **params: Any
) -> tuple[Any, list[int]]:
    size = batch_size(vals, dims)
    out = next(d for d in dims if d is not not_mapped)
    operands = [bdim_to(x, d, out, size) for x, d in zip(vals, dims)]  # sorted together: one batch axis
    results = lax.sort_p.bind(*operands, dimension=full_axis(dimension, out), **params)
    return results, [out] * len(results)


def _top_k_rule(vals: list[Any], dims: list[int | None], *, k: int, axis: int) -> tuple[Any, list[int]]:
    (x,), (bdim,) = vals, dims
    return lax.top_k_p.bind(x, k=k, axis=full_axis(axis, bdim)), [bdim, bdim]


batching_rules[lax.sort_p] = _sort_rule
batching_rules[lax.top_k_p] = _top_k_rule


# --- the Fourier transform --------------------------------------------------------------------


def _fft_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, int]:
    # fft transforms the last axes and leaves the leading ones as a batch: the batch axis goes
    # first, where it is one more of them (as in JAX, which moves it there too).
    (x,), (bdim,) = vals, dims
    return lax.fft_p.bind(moveaxis(x, bdim, 0), **params), 0


batching_rules[lax.fft_p] = _fft_rule


# --- linear algebra ---------------------------------------------------------------------------
# cholesky and triangular_solve take batches of matrices already: the batch axis goes first, one
# more axis of the batch. When only the right-hand sides are batched, they are folded into more
# right-hand sides of the one matrix instead (columns on the left, rows on the right), so the
# matrix is not copied once per example.


def _cholesky_rule(vals: list[Any], dims: list[int | None]) -> tuple[Any, int]:
    (x,), (bdim,) = vals, dims
    return linalg.cholesky_p.bind(moveaxis(x, bdim, 0)), 0


def _triangular_solve_rule(vals: list[Any], dims: list[int | None], *, left_side: bool,
                           **params: Any) -> tuple[Any, int]:  # fmt: skip
    (a, b), (a_dim, b_dim) = vals, dims
    size = batch_size(vals, dims)
    if a_dim is not_mapped:
        # The batch axis goes just after the axis of columns (left) or of rows (right) and is
        # merged into it: n columns of B examples become n * B columns.
        ndim = get_aval(b).ndim
        at = ndim - 1 if left_side else ndim - 2
        out = linalg.triangular_solve_p.bind(a, merge_axes(moveaxis(b, b_dim, at), at - 1), left_side=left_side,
                                             **params)  # fmt: skip
        return split_axis(out, at - 1, get_aval(out).shape[at - 1] // size), at
    a, b = bdim_to(a, a_dim, 0, size), bdim_to(b, b_dim, 0, size)
    return linalg.triangular_solve_p.bind(a, b, left_side=left_side, **params), 0


def _lu_rule(vals: list[Any], dims: list[int | None]) -> tuple[Any, list[int]]:
    (x,), (bdim,) = vals, dims  # the batch goes first: LU takes a batch of matrices
    return linalg.lu_p.bind(moveaxis(x, bdim, 0)), [0, 0, 0]


def _eigh_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, list[int]]:
    (x,), (bdim,) = vals, dims  # the batch goes first: eigh takes a batch of matrices
    return linalg.eigh_p.bind(moveaxis(x, bdim, 0), **params), [0, 0]


def _svd_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, list[int]]:
    (x,), (bdim,) = vals, dims  # the batch goes first: svd takes a batch of matrices
    outs = linalg.svd_p.bind(moveaxis(x, bdim, 0), **params)
    return outs, [0] * len(outs)


def _qr_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, list[int]]:
    (x,), (bdim,) = vals, dims  # the batch goes first: qr takes a batch of matrices
    outs = linalg.qr_p.bind(moveaxis(x, bdim, 0), **params)
    return outs, [0] * len(outs)


def _lu_pivots_to_permutation_rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, list[int]]:
    (pivots,), (bdim,) = vals, dims  # the batch goes first: the swaps are on the last axis
    return linalg.lu_pivots_to_permutation_p.bind(moveaxis(pivots, bdim, 0), **params), [0]


batching_rules[linalg.cholesky_p] = _cholesky_rule
batching_rules[linalg.lu_p] = _lu_rule
batching_rules[linalg.eigh_p] = _eigh_rule
batching_rules[linalg.svd_p] = _svd_rule
batching_rules[linalg.qr_p] = _qr_rule
batching_rules[linalg.lu_pivots_to_permutation_p] = _lu_pivots_to_permutation_rule
batching_rules[linalg.triangular_solve_p] = _triangular_solve_rule


# --- random numbers ---------------------------------------------------------------------------
# The random primitives are vectorized over their keys (prng.py): random_bits of keys of
# shape K draws (*K, *shape), each key its own numbers. A batch of keys is just more keys, so the
# batch axis stays where it is. fold_in broadcasts its keys against its data, as an elementwise
# operation does. Wrapping words into keys needs the batch axis off the words' trailing axis.


def defvectorized(prim: Primitive) -> None:
    def rule(vals: list[Any], dims: list[int | None], **params: Any) -> tuple[Any, int | None]:
        (x,), (bdim,) = vals, dims
        return prim.bind(x, **params), bdim

    batching_rules[prim] = rule


def _random_wrap_rule(vals: list[Any], dims: list[int | None], *, impl: Any) -> tuple[Any, int]:
    (words,), (bdim,) = vals, dims
    return prng.random_wrap_p.bind(moveaxis(words, bdim, 0), impl=impl), 0


for _prim in (prng.random_seed_p, prng.random_split_p, prng.random_bits_p, prng.random_unwrap_p):
    defvectorized(_prim)
defelementwise(prng.random_fold_in_p)
batching_rules[prng.random_wrap_p] = _random_wrap_rule


# --- control flow: cond and switch (stage 04) --------------------------------------------------
# With the same index for every example, the cond stays a cond, of the batched branches; an output
# is batched if it is in any branch (the others broadcast theirs). With a batched index, examples
# may take different branches: every branch runs on the whole batch, and select_n picks each
# example's outputs from its branch's, as JAX does. (JAX also feeds each branch its inputs through
# a select with stop_gradient, which matters only to reverse mode; didax has none yet.)

from .lax.conditionals import cond_p, hoist_branch_consts  # noqa: E402


def _cond_rule(
    vals: list[Any], dims: list[int | None], *, branches: tuple[ClosedJaxpr, ...]
) -> tuple[Any, Any]:
    size = batch_size(vals, dims)
    if dims[0] is not not_mapped:
        return _cond_to_select(vals, dims, branches, size)
    index, *ops = vals
    in_batched = [d is not not_mapped for d in dims[1:]]
    ops = [moveaxis(x, d, 0) if b else x for x, d, b in zip(ops, dims[1:], in_batched)]
    out_batched = [any(bs) for bs in zip(*[batch_jaxpr(b, size, in_batched, False)[1] for b in branches])]
    batched, consts = hoist_branch_consts(
        [batch_jaxpr(b, size, in_batched, out_batched)[0] for b in branches]
    )
    outs = cond_p.bind(index, *consts, *ops, branches=batched)
    return outs, [0 if b else not_mapped for b in out_batched]


def _cond_to_select(
    vals: list[Any], dims: list[int | None], branches: tuple[ClosedJaxpr, ...], size: int
) -> tuple[list[Any], list[int]]:
    index = moveaxis(vals[0], dims[0], 0)
    ops = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(vals[1:], dims[1:])]
    in_batched = [d is not not_mapped for d in dims[1:]]
    outs = []
    for branch in branches:  # every output batched, so that select_n can pick per example
        batched, _ = batch_jaxpr(branch, size, in_batched, True)
        outs.append(eval_jaxpr(batched.jaxpr, batched.consts, *ops))
    selected = [lax.select_n(_per_example(index, cases[0]), *cases) for cases in zip(*outs)]
    return selected, [0] * len(selected)


def _per_example(index: Any, case: Any) -> Any:
    """The batched index, one per example, broadcast over each example's elements."""
    shape = get_aval(case).shape
    return index if len(shape) == 1 else lax.broadcast_in_dim(index, shape, (0,))


batching_rules[cond_p] = _cond_rule


# --- control flow: loops (stage 04) ------------------------------------------------------------
# A batched loop is one loop over batched bodies. Which carries are batched is a fixed point:
# those batched at the start, and those the body makes batched (from a batched constant, a
# batched xs, or another batched carry).


def _while_rule(vals: list[Any], dims: list[int | None], *, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                cond_nconsts: int, body_nconsts: int) -> tuple[list[Any], list[int | None]]:  # fmt: skip
    size = batch_size(vals, dims)
    batched = [d is not not_mapped for d in dims]
    cconst_b, bconst_b, init_b = split_list(batched, [cond_nconsts, body_nconsts])
    carry_b = carry_fixed_point(lambda b: batch_jaxpr(body_jaxpr, size, bconst_b + b, b)[1], init_b)
    _, (pred_b,) = batch_jaxpr(cond_jaxpr, size, cconst_b + carry_b, False)
    if pred_b:
        # Each example has its own predicate: the loop runs while any holds, and an example whose
        # predicate is false keeps its carry (while's impl selects, see loops.py). So every carry
        # is batched, and the predicate, one per example, leads the carries' shapes.
        carry_dims: list[int | None] = [0] * len(carry_b)
        pred_dim: int | None = 0
    else:
        # One predicate for all: the batch axis goes after its axes, if it has any (it has when
        # this loop was itself batched with a batched predicate: its shape must stay a prefix).
        rank = cond_jaxpr.out_avals[0].ndim
        carry_dims, pred_dim = [rank if b else not_mapped for b in carry_b], not_mapped
    cconst_dims, bconst_dims, init_dims = split_list(dims, [cond_nconsts, body_nconsts])
    body = batch_jaxpr_axes(body_jaxpr, size, bconst_dims + carry_dims, carry_dims)
    cond = batch_jaxpr_axes(cond_jaxpr, size, cconst_dims + carry_dims, [pred_dim])
    cconsts, bconsts, init = split_list(vals, [cond_nconsts, body_nconsts])
    init = [x if new is not_mapped else bdim_to(x, d, new, size) for x, d, new in zip(init, init_dims, carry_dims)]
    return bind_while(cond, body, cconsts, bconsts, init), carry_dims


def _scan_rule(vals: list[Any], dims: list[int | None], *, jaxpr: ClosedJaxpr, length: int, reverse: bool,
               unroll: int, num_consts: int, num_carry: int) -> tuple[list[Any], list[int | None]]:  # fmt: skip
    # Inside the body the batch axis is axis 0 of everything batched; outside, the leading axis
    # of xs and ys is the scan's, so their batch axis is axis 1.
    size = batch_size(vals, dims)
    batched = [d is not not_mapped for d in dims]
    const_b, init_b, xs_b = split_list(batched, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry

    def carry_out_b(carry_b: list[bool]) -> list[bool]:
        return batch_jaxpr(jaxpr, size, const_b + carry_b + xs_b, carry_b + [False] * num_ys)[1][:num_carry]

    carry_b = carry_fixed_point(carry_out_b, init_b)
    body, out_b = batch_jaxpr(jaxpr, size, const_b + carry_b + xs_b, carry_b + [False] * num_ys)
    consts, init, xs = split_list(vals, [num_consts, num_carry])
    const_dims, init_dims, xs_dims = split_list(dims, [num_consts, num_carry])
    consts = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(consts, const_dims)]
    init = [bdim_to(x, d, 0, size) if b else x for x, d, b in zip(init, init_dims, carry_b)]
    xs = [x if d is not_mapped else moveaxis(x, d, 1) for x, d in zip(xs, xs_dims)]
    outs = bind_scan(body, consts, init, xs, length=length, reverse=reverse, unroll=unroll)
    carry_dims = [0 if b else not_mapped for b in carry_b]
    return outs, carry_dims + [1 if b else not_mapped for b in out_b[num_carry:]]


def batch_jaxpr_axes(
    closed: ClosedJaxpr, axis_size: int, in_dims: Sequence[int | None], out_dims: Sequence[int | None]
) -> ClosedJaxpr:
    """``closed`` batched with each input's batch axis at ``in_dims`` and each output's at
    ``out_dims`` (``not_mapped``: none; an output given one it lacks is broadcast). batch_jaxpr
    is the same with every batch axis at 0; a while loop also needs them elsewhere."""

    def batched_fun(*args: Any) -> list[Any]:
        with new_main(BatchTrace, AxisData(None, axis_size, None)) as main:
            trace = BatchTrace(main)
            tracers = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
            pairs = [(t.val, t.batch_dim) for t in (full_raise(trace, x) for x in outs)]
        results = []
        for (val, bdim), dst in zip(pairs, out_dims):
            if dst is not_mapped and bdim is not not_mapped:
                raise AssertionError("batch_jaxpr_axes: an output asked to be unbatched is batched")
            results.append(val if dst is not_mapped else bdim_to(val, bdim, dst, axis_size))
        return results

    in_avals = [
        a if d is not_mapped else ShapedArray((*a.shape[:d], axis_size, *a.shape[d:]), a.dtype, a.weak_type)
        for a, d in zip(closed.in_avals, in_dims)
    ]
    jaxpr, _ = trace_to_jaxpr(batched_fun, in_avals)
    return jaxpr


batching_rules[lax.while_p] = _while_rule
batching_rules[lax.scan_p] = _scan_rule
