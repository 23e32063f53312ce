"""Loops as primitives: ``while_loop``, ``fori_loop``, ``scan``, ``map`` and
``associative_scan``. Stage 04 introduced them.

A Python loop cannot run on staged values: its condition has no value yet, and unrolling it
would make a jaxpr as long as the loop. So a loop's body (and a while loop's condition) is
staged once, on the types of the values it carries, and the loop becomes one equation of a
primitive that holds those jaxprs:

    while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts]  *cond_consts *body_consts *carry
    scan[jaxpr length reverse unroll num_consts num_carry]  *consts *carry *xs

``while`` runs the body until the condition is false; ``scan`` runs it once per slice of its
``xs``, passing the carry along and stacking what else it returns. What a body closes over is
hoisted out of its jaxpr and passed as the leading operands (``*consts``), so that the
interpreters above see it. ``fori_loop`` is a scan when its trip count is known and a while
loop otherwise; ``map`` is a scan with no carry; ``associative_scan`` is no primitive at all but
a parallel prefix combination built from slices. The JVP rules are in ad.py, the batching rules
in batching.py; the helpers at the bottom of this module are what those rules share.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..array import Array, to_array
from ..core import Primitive, ShapedArray, get_aval, to_concrete_value
from ..errors import ConcretizationTypeError, JaxprTypeError
from ..jaxpr import ClosedJaxpr, Jaxpr, Var, eval_jaxpr
from ..staging import hoist_consts, shaped_abstractify, trace_flat
from ..tree_util import (
    PyTreeDef,
    flatten_one_level_with_keys,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_map,
    tree_structure,
    tree_unflatten,
    treedef_is_leaf,
)
from .elementwise import add, convert_element_type, lt, select_n
from .structural import broadcast_in_dim, concatenate, expand_dims, index_in_dim, reshape, rev, slice_in_dim

# ----------------------------------------------------------------------------------------------
# while_loop


while_p = Primitive("while")
while_p.multiple_results = True


def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any) -> Any:
    """``body_fun`` applied to ``init_val`` for as long as ``cond_fun`` holds: the loop

        val = init_val
        while cond_fun(val):
            val = body_fun(val)
        return val

    staged as one ``while`` equation. ``val`` is a pytree whose structure, shapes and dtypes
    the body must keep; ``cond_fun`` returns a boolean scalar.
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    init_flat, init_tree = tree_flatten(init_val)
    in_tree = tree_structure(((init_val,), {}))
    init_avals = _avals(init_flat)
    cond_jaxpr, body_jaxpr, out_tree = _stage_while(cond_fun, body_fun, in_tree, init_avals)
    if out_tree != init_tree:
        _check_carry_tree("while_loop body", body_fun, init_tree, init_avals, out_tree, body_jaxpr.out_avals)
    # A weakly typed initial value (a Python scalar) takes the type the body gives back.
    init_flat, changed = _promote_weak(init_flat, init_avals, body_jaxpr.out_avals)
    if changed:
        init_avals = _avals(init_flat)
        cond_jaxpr, body_jaxpr, out_tree = _stage_while(cond_fun, body_fun, in_tree, init_avals)
    _check_carry_types("while_loop body", body_fun, init_tree, init_avals, body_jaxpr.out_avals)
    outs = bind_while(cond_jaxpr, body_jaxpr, [], [], init_flat)
    return tree_unflatten(out_tree, outs)


def _stage_while(
    cond_fun: Callable[[Any], Any],
    body_fun: Callable[[Any], Any],
    in_tree: PyTreeDef,
    avals: list[ShapedArray],
) -> tuple[ClosedJaxpr, ClosedJaxpr, PyTreeDef]:
    """The condition's and the body's jaxprs on carries of types ``avals``, and the body's output tree."""
    cond_jaxpr, cond_tree = trace_flat(cond_fun, in_tree, avals)
    body_jaxpr, body_tree = trace_flat(body_fun, in_tree, avals)
    if not treedef_is_leaf(cond_tree) or len(cond_jaxpr.out_avals) != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    pred = cond_jaxpr.out_avals[0]
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError(
            f"cond_fun must return a boolean scalar, but got output type(s) {cond_jaxpr.out_avals}."
        )
    return cond_jaxpr, body_jaxpr, body_tree


@while_p.def_impl
def _while_impl(
    *args: Any, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
) -> list[Any]:
    cond_consts, body_consts, carry = split_list(args, [cond_nconsts, body_nconsts])
    while True:
        (pred,) = eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *cond_consts, *carry)
        pred_value = np.asarray(to_concrete_value(pred))
        if not pred_value.any():
            break
        new = eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *body_consts, *carry)
        # A predicate with a shape (vmap of a loop whose condition varies over the batch, see
        # batching.py) says, example by example, which carries go on: the others keep theirs.
        carry = new if pred_value.ndim == 0 else [_where_leading(pred, n, c) for n, c in zip(new, carry)]
    return [_as_output(x, a) for x, a in zip(carry, body_jaxpr.out_avals)]


def _where_leading(pred: Any, new: Any, old: Any) -> Any:
    """``new`` where ``pred`` holds and ``old`` elsewhere; ``pred``'s shape is a prefix of theirs."""
    shape = get_aval(new).shape
    which = broadcast_in_dim(pred, shape, tuple(range(get_aval(pred).ndim)))
    return select_n(which, old, new)


@while_p.def_abstract_eval
def _while_abstract_eval(
    *avals: ShapedArray,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[ShapedArray]:
    cond_consts, body_consts, carry = split_list(avals, [cond_nconsts, body_nconsts])
    _check_operands("while_loop cond_jaxpr", cond_jaxpr, [*cond_consts, *carry])
    _check_operands("while_loop body_jaxpr", body_jaxpr, [*body_consts, *carry])
    _check_matching("while_loop body_jaxpr", "carry output", body_jaxpr.out_avals, "carry input", carry)
    preds = cond_jaxpr.out_avals
    if len(preds) != 1 or preds[0].dtype != np.bool_:
        raise JaxprTypeError(f"while_loop cond_jaxpr must return one boolean array, got {_shorts(preds)}")
    # A scalar, or after vmap one predicate per example: a prefix of every carry's shape.
    prefix = preds[0].shape
    if any(a.shape[: len(prefix)] != prefix for a in carry):
        raise JaxprTypeError(
            f"while_loop cond_jaxpr's predicate of shape {prefix} is not a prefix of the shape of every "
            f"carry: {_shorts(carry)}"
        )
    return list(body_jaxpr.out_avals)


# ----------------------------------------------------------------------------------------------
# scan


scan_p = Primitive("scan")
scan_p.multiple_results = True


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    _split_transpose: bool = False,
) -> tuple[Any, Any]:
    """``f`` run over the leading axis of ``xs``, carrying a value along: the loop

        carry, ys = init, []
        for x in xs:                      # from the end when ``reverse``
            carry, y = f(carry, x)
            ys.append(y)
        return carry, stack(ys)

    staged as one ``scan`` equation. ``xs`` and the ``y`` are pytrees of arrays (``xs`` may be
    None, with ``length`` giving the trip count); the carry keeps its structure and types.
    ``unroll`` is kept as a parameter for compilation (stage 05): it does not change the result.
    ``_split_transpose`` is accepted for JAX's signature and, as in JAX 0.10.2, not used.
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, _ = tree_flatten(xs)
    in_tree = tree_structure(((init, xs), {}))
    length = _scan_length(xs_flat, length)
    init_avals = _avals(init_flat)
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in _avals(xs_flat)]
    jaxpr, out_tree = _stage_scan(f, in_tree, init_avals, x_avals)
    carry_tree = out_tree.children()[0]
    carry_out_avals = jaxpr.out_avals[: carry_tree.num_leaves]
    if carry_tree != init_tree:
        _check_carry_tree("scan body", f, init_tree, init_avals, carry_tree, carry_out_avals)
    init_flat, changed = _promote_weak(init_flat, init_avals, carry_out_avals)
    if changed:
        init_avals = _avals(init_flat)
        jaxpr, out_tree = _stage_scan(f, in_tree, init_avals, x_avals)
        carry_out_avals = jaxpr.out_avals[: len(init_avals)]
    _check_carry_types("scan body", f, init_tree, init_avals, carry_out_avals)
    unroll = _scan_unroll(unroll, length)
    outs = bind_scan(jaxpr, [], init_flat, xs_flat, length=length, reverse=bool(reverse), unroll=unroll)
    return tree_unflatten(out_tree, outs)


def _stage_scan(
    f: Callable[..., Any], in_tree: PyTreeDef, carry_avals: list[ShapedArray], x_avals: list[ShapedArray]
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """The body's jaxpr on a carry and a slice of these types, and its output tree: a pair."""
    jaxpr, out_tree = trace_flat(f, in_tree, [*carry_avals, *x_avals])
    if out_tree.node_type is None or len(out_tree.children()) != 2:
        shown = tree_unflatten(out_tree, jaxpr.out_avals)
        raise TypeError(f"scan body output must be a pair, got {_show_avals(shown)}.")
    return jaxpr, out_tree


def _show_avals(tree: Any) -> str:
    """A pytree of avals as JAX's message shows it: a single one as ``~float32[]`` (``~`` for a
    weak type), a container by its repr."""
    if isinstance(tree, ShapedArray):
        return ("~" if tree.weak_type else "") + tree.str_short()
    return str(tree)


def _scan_length(xs_flat: list[Any], length: Any) -> int:
    """The trip count: the leading axis shared by every leaf of ``xs``, or ``length``."""
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError:
        no_axis = ", ".join(str(x) for x in xs_flat if not hasattr(x, "shape"))
        raise ValueError(f"scan got value with no leading axis to scan over: {no_axis}.") from None
    if length is not None:
        try:
            length = int(length)
        except ConcretizationTypeError:
            raise ConcretizationTypeError(
                length,
                "The `length` argument to `scan` expects a concrete `int` value. For scan-like iteration "
                "with a dynamic length, use `while_loop` or `fori_loop`.\n",
            ) from None
        if not all(length == n for n in lengths):
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis sizes {lengths}."
            )
        if length < 0:  # JAX fails later, compiling; didax says so here
            raise ValueError(f"scan got a negative `length` argument of {length}; it must be >= 0.")
        return length
    distinct = sorted(set(lengths))
    if len(distinct) > 1:
        sizes = ", ".join(str(n) for n in lengths)  # (not map: this module's map is lax.map)
        raise ValueError(f"scan got values with different leading axis sizes: {sizes}.")
    if not distinct:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return distinct[0]


def _scan_unroll(unroll: Any, length: int) -> int:
    """``unroll`` as the primitive takes it: a known non-negative int (True means the whole loop)."""
    value = to_concrete_value(unroll)
    if value is None:
        raise ConcretizationTypeError(
            unroll, "The `unroll` argument to `scan` expects a concrete `int` or `bool` value.\n"
        )
    if value.dtype == np.bool_:
        return max(length, 1) if value else 1
    if int(value) < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return int(value)


@scan_p.def_impl
def _scan_impl(
    *args: Any, jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: int, num_consts: int, num_carry: int
) -> list[Any]:
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    ys = []
    for i in range(length - 1, -1, -1) if reverse else range(length):
        x = [index_in_dim(xs_leaf, i, keepdims=False) for xs_leaf in xs]
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry, *x)
        carry, y = outs[:num_carry], outs[num_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    carry_avals, y_avals = split_list(jaxpr.out_avals, [num_carry])
    stacked = [_stack([y[k] for y in ys], aval) for k, aval in enumerate(y_avals)]
    return [*(_as_output(c, a) for c, a in zip(carry, carry_avals)), *stacked]


def _stack(rows: list[Any], aval: ShapedArray) -> Array:
    """``rows``, each of type ``aval``, stacked along a new leading axis."""
    if not rows:
        return Array(np.zeros((0, *aval.shape), aval.dtype), aval.weak_type)
    one_more = (1, *aval.shape)
    dims = tuple(range(1, len(one_more)))
    return _as_output(concatenate([broadcast_in_dim(r, one_more, dims) for r in rows], 0), aval)


@scan_p.def_abstract_eval
def _scan_abstract_eval(
    *avals: ShapedArray, jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: int, num_consts: int,
    num_carry: int,
) -> list[ShapedArray]:  # fmt: skip
    consts, carry, xs = split_list(avals, [num_consts, num_carry])
    if any(not a.shape or a.shape[0] != length for a in xs):
        raise JaxprTypeError(f"scan of length {length} called with sequences of types {_shorts(xs)}")
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in xs]
    _check_operands("scan jaxpr", jaxpr, [*consts, *carry, *x_avals])
    carry_out, ys = split_list(jaxpr.out_avals, [num_carry])
    _check_matching("scan jaxpr", "carry output", carry_out, "carry input", carry)
    return [*carry_out, *(ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in ys)]


# ----------------------------------------------------------------------------------------------
# fori_loop and map: loops written with the two primitives.


def fori_loop(
    lower: Any,
    upper: Any,
    body_fun: Callable[[Any, Any], Any],
    init_val: Any,
    *,
    unroll: int | bool | None = None,
) -> Any:
    """``for i in range(lower, upper): val = body_fun(i, val)``, staged. With both bounds known
    it is a scan of ``upper - lower`` steps whose index is a weakly typed int, as in JAX;
    otherwise a while loop whose index has the bounds' dtype (``unroll`` then is an error)."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _fori_index_dtype(lower, upper)
    lower_value, upper_value = to_concrete_value(lower), to_concrete_value(upper)
    if lower_value is not None and upper_value is not None:
        start, stop = int(lower_value), int(upper_value)

        def scan_body(loop_carry: tuple[Any, Any], _: None) -> tuple[tuple[Any, Any], None]:
            i, val = loop_carry  # JAX's name for the carry: its messages show it
            return (i + 1, body_fun(i, val)), None

        (_, result), _ = scan(scan_body, (start, init_val), None, length=max(stop - start, 0),
                              unroll=False if unroll is None else unroll)  # fmt: skip
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
    lower = lower if get_aval(lower).dtype == dtype else convert_element_type(lower, dtype)
    upper = upper if get_aval(upper).dtype == dtype else convert_element_type(upper, dtype)

    def while_cond(loop_carry: tuple[Any, Any, Any]) -> Any:
        i, stop, _ = loop_carry
        return lt(i, stop)

    def while_body(loop_carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        i, stop, val = loop_carry
        return add(i, np.array(1, get_aval(i).dtype)), stop, body_fun(i, val)

    _, _, result = while_loop(while_cond, while_body, (lower, upper, init_val))
    return result


def _fori_index_dtype(lower: Any, upper: Any) -> np.dtype:
    """The bounds' dtype; a weakly typed signed-int bound (a Python int) takes the other's."""
    lo, hi = get_aval(lower), get_aval(upper)
    if lo.dtype == hi.dtype:
        return lo.dtype
    if dtypes.issubdtype(lo.dtype, np.signedinteger) and dtypes.issubdtype(hi.dtype, np.signedinteger):
        if lo.weak_type and not hi.weak_type:
            return hi.dtype
        if hi.weak_type and not lo.weak_type:
            return lo.dtype
    raise TypeError(
        f"lower and upper arguments to fori_loop must have equal types, got {lo.dtype.name} and {hi.dtype.name}"
    )


def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001 - JAX's name
    """``f`` applied to each slice of ``xs`` along its leading axis, the results stacked: a scan
    with no carry. With ``batch_size``, ``vmap(f)`` runs on batches of that many slices at a time
    (the leftover slices in one more batch; ``batch_size=0`` is one batch of all)."""
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    from ..batching import vmap  # batching.py imports didax.lax, so not at the top

    leaves, tree = tree_flatten(xs)
    if not leaves:  # nothing to batch: scan reports it
        return map(f, xs)
    n = leaves[0].shape[0]
    num_batches, _ = (0, n) if batch_size == 0 else divmod(n, batch_size)
    done = num_batches * batch_size
    if num_batches == 0:
        return vmap(f)(xs)
    batches = [reshape(slice_in_dim(x, 0, done), (num_batches, batch_size, *x.shape[1:])) for x in leaves]
    _, ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, batches))
    ys = tree_map(lambda y: reshape(y, (done, *y.shape[2:])), ys)
    if done == n:
        return ys
    rest = vmap(f)(tree_unflatten(tree, [slice_in_dim(x, done, n) for x in leaves]))
    return tree_map(lambda y, r: concatenate([y, r], 0), ys, rest)


# ----------------------------------------------------------------------------------------------
# associative_scan: no primitive, a parallel prefix of slices, combinations and concatenations.


def associative_scan(fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The running combination of ``elems`` along ``axis`` with the associative ``fn``: entry k
    is ``fn(... fn(fn(e0, e1), e2) ..., ek)``; from the end when ``reverse``. ``elems`` is a
    pytree of arrays and ``fn`` combines two such pytrees, slice by slice along ``axis``.

    ``fn`` runs on whole slices, about 2 log2(n) times: combine neighbouring pairs, scan the
    pairs (half as many, recursively), and the entries at odd positions are done; each entry at
    an even position is the one before it combined with its own element.
    """
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    elems_flat, tree = tree_flatten(elems)
    ndim = get_aval(elems_flat[0]).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis = axis % ndim
    shapes = [get_aval(e).shape for e in elems_flat]
    if any(s[axis] != shapes[0][axis] for s in shapes[1:]):
        raise ValueError(
            f"Array inputs to associative_scan must have the same first dimension. (saw: {shapes})"
        )
    if reverse:
        elems_flat = [rev(e, (axis,)) for e in elems_flat]

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        return tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))[0]

    def sl(xs: list[Any], start: int, stop: int, step: int = 1) -> list[Any]:
        return [slice_in_dim(x, start, stop, step, axis) for x in xs]

    def prefix(xs: list[Any]) -> list[Any]:
        n = get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        pairs = n // 2
        odd = prefix(combine(sl(xs, 0, 2 * pairs, 2), sl(xs, 1, 2 * pairs, 2)))  # entries 1, 3, 5, ...
        even = combine(sl(odd, 0, (n - 1) // 2), sl(xs, 2, n, 2))  # entries 2, 4, ...
        even = [concatenate([first, e], axis) for first, e in zip(sl(xs, 0, 1), even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    result = prefix(elems_flat)
    if reverse:
        result = [rev(r, (axis,)) for r in result]
    return tree_unflatten(tree, result)


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis``; ``even`` may be one longer."""
    n_odd = get_aval(odd).shape[axis]
    head = slice_in_dim(even, 0, n_odd, 1, axis)
    pairs = concatenate([expand_dims(head, (axis + 1,)), expand_dims(odd, (axis + 1,))], axis + 1)
    shape = get_aval(odd).shape
    merged = reshape(pairs, (*shape[:axis], 2 * n_odd, *shape[axis + 1 :]))
    if get_aval(even).shape[axis] == n_odd:
        return merged
    return concatenate([merged, slice_in_dim(even, n_odd, n_odd + 1, 1, axis)], axis)


# ----------------------------------------------------------------------------------------------
# The carry must keep its structure and its types; JAX's messages say where it does not.


def _avals(values: Sequence[Any]) -> list[ShapedArray]:
    return [shaped_abstractify(x) for x in values]


def _typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Same shape and dtype; weak types may differ."""
    return a.shape == b.shape and a.dtype == b.dtype


def _promote_weak(
    values: list[Any], in_avals: list[ShapedArray], out_avals: list[ShapedArray]
) -> tuple[list[Any], bool]:
    """Initial values converted to what the body makes of them, where they are weakly typed (a
    Python scalar) and the body gives back another type; and whether any was."""
    out, changed = [], False
    for x, a_in, a_out in zip(values, in_avals, out_avals):
        if a_in.weak_type and not _typematch(a_in, a_out):
            x, changed = convert_element_type(x, dtypes.result_type(x, a_out)), True
        out.append(x)
    return out, changed


def _carry_name(fun: Callable[..., Any]) -> str | None:
    """The name of ``fun``'s first parameter, which JAX's messages call the carry."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return None
    return params[0] if params else None


def _component(name: str | None, path: tuple[Any, ...]) -> str:
    if name:
        return f"the input carry component {name}{keystr(path)}" if path else f"the input carry {name}"
    return f"the input carry at path {keystr(path)}" if path else "the input carry"


def _listed(diffs: list[str]) -> str:
    """One difference as a sentence; several as a bulleted list (spaced as JAX spaces it)."""
    if len(diffs) == 1:
        return diffs[0][0].upper() + diffs[0][1:] + ".\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _check_carry_tree(
    what: str, fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: list[ShapedArray], out_tree: PyTreeDef,
    out_avals: list[ShapedArray],
) -> None:  # fmt: skip
    name = _carry_name(fun)
    out_carry = tree_unflatten(out_tree, out_avals)
    if out_carry is None:  # JAX shows the two structures here (its sign of a carry it cannot rebuild)
        differences = f"the input tree structure is:\n{in_tree}\nthe output tree structure is:\n{out_tree}\n"
    else:
        diffs = [
            f"{_component(name, path)} is a {this} but the corresponding component of the carry output is a {that}, "
            f"so {why}"
            for path, this, that, why in _tree_differences((), tree_unflatten(in_tree, in_avals), out_carry)
        ]
        if not diffs:
            return
        differences = _listed(diffs)
    raise TypeError(
        f"{what} function carry input and carry output must have the same pytree structure, but they differ:\n\n"
        f"{differences}\nRevise the function so that the carry output has the same pytree structure as the carry "
        "input."
    )


def _tree_differences(path: tuple[Any, ...], t1: Any, t2: Any) -> Any:
    """Where two pytrees differ in structure: (key path, what ``t1`` is there, what ``t2`` is, why)."""
    if tree_structure(t1).node_type is None and tree_structure(t2).node_type is None:
        return  # two leaves: no difference of structure
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        kind = type(t1).__name__
        yield path, f"{kind} of length {len(t1)}", f"{kind} of length {len(t2)}", "the lengths do not match"
        return
    kids1, meta1 = flatten_one_level_with_keys(t1)
    kids2, meta2 = flatten_one_level_with_keys(t2)
    if len(kids1) != len(kids2):
        try:
            keys = {k for k, _ in kids1} ^ {k for k, _ in kids2}
            diff = " ".join(sorted(repr(k.key) for k in keys))
        except AttributeError:  # keys with no .key (sequence indices): nothing to show
            diff = ""
        count = lambda n: f"{n} child{'ren' if n > 1 else ''}"  # noqa: E731
        why = "the numbers of children do not match" + (f", with the symmetric difference of key sets: {{{diff}}}"
                                                         if diff else "")  # fmt: skip
        yield path, f"{type(t1)} with {count(len(kids1))}", f"{type(t2)} with {count(len(kids2))}", why
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}", f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")  # fmt: skip
        return
    for (key, c1), (_, c2) in zip(kids1, kids2):
        yield from _tree_differences((*path, key), c1, c2)


def _check_carry_types(
    what: str,
    fun: Callable[..., Any],
    in_tree: PyTreeDef,
    in_avals: list[ShapedArray],
    out_avals: list[ShapedArray],
) -> None:
    name = _carry_name(fun)
    paths = [path for path, _ in tree_flatten_with_path(tree_unflatten(in_tree, in_avals))[0]]
    diffs = [
        f"{_component(name, path)} has type {a.str_short()} but the corresponding output carry component has type "
        f"{b.str_short()}{_mismatch(a, b)}"
        for path, a, b in zip(paths, in_avals, out_avals)
        if not _typematch(a, b)
    ]
    if diffs:
        raise TypeError(
            f"{what} function carry input and carry output must have equal types, but they differ:\n\n"
            f"{_listed(diffs)}\nRevise the function so that all output types match the corresponding input types."
        )


def _mismatch(a: ShapedArray, b: ShapedArray) -> str:
    problems = [p for p, bad in (("the dtypes do not match", a.dtype != b.dtype),
                                 ("the shapes do not match", a.shape != b.shape)) if bad]  # fmt: skip
    return ", so " + ", and ".join(problems) if problems else ""


# The type checks of the primitives' abstract evaluation (check_jaxpr runs them on every equation).


def _shorts(avals: Sequence[ShapedArray]) -> str:
    return "[" + ", ".join(a.str_short() for a in avals) + "]"


def _check_operands(what: str, closed: ClosedJaxpr, avals: list[ShapedArray]) -> None:
    if len(closed.in_avals) != len(avals):
        raise JaxprTypeError(f"{what} takes {len(closed.in_avals)} inputs but is given {len(avals)} operands")
    _check_matching(what, "inputs", closed.in_avals, "operands", avals)


def _check_matching(what: str, these: str, avals: Sequence[ShapedArray], those: str,
                    others: Sequence[ShapedArray]) -> None:  # fmt: skip
    if len(avals) != len(others) or not all(_typematch(a, b) for a, b in zip(avals, others)):
        raise JaxprTypeError(
            f"{what} {these} of types {_shorts(avals)} do not match the {those}' {_shorts(others)}"
        )


def _as_output(x: Any, aval: ShapedArray) -> Array:
    """An output of the impl as an Array of ``aval``'s weak type: a loop that ran zero times
    hands back its input, whose weak type may differ from the body's result."""
    x = to_array(x)
    return x if x.weak_type == aval.weak_type else Array(x._value, aval.weak_type)


# ----------------------------------------------------------------------------------------------
# What the loops' JVP and batching rules (ad.py, batching.py) share.


def split_list(xs: Sequence[Any], sizes: Sequence[int]) -> list[list[Any]]:
    """``xs`` cut into pieces of the given sizes, and the rest."""
    pieces, start = [], 0
    for n in sizes:
        pieces.append(list(xs[start : start + n]))
        start += n
    return [*pieces, list(xs[start:])]


def carry_fixed_point(carry_out: Callable[[list[bool]], list[bool]], start: list[bool]) -> list[bool]:
    """The least set of carries, at least ``start``, that the body maps into itself.

    Which carries have a nonzero tangent (or are batched) depends on the body: a carry that
    starts with a zero tangent gets a nonzero one if the body mixes in one that has it. Grow the
    set until the body gives back no new member; each round adds one at least, so this ends.
    """
    marked = list(start)
    for _ in range(len(marked) + 1):
        out = carry_out(marked)
        if out == marked:
            return marked
        marked = [a or b for a, b in zip(marked, out)]
    raise AssertionError("fixed point not reached")


def move_binders(closed: ClosedJaxpr, in_order: Sequence[int], out_order: Sequence[int]) -> ClosedJaxpr:
    """``closed`` with its inputs and outputs reordered: new input k is old input in_order[k]."""
    j = closed.jaxpr
    jaxpr = Jaxpr(j.constvars, [j.invars[i] for i in in_order], [j.outvars[i] for i in out_order], j.eqns)
    return ClosedJaxpr(jaxpr, closed.consts)


def interleaved(primal_sizes: Sequence[int], tangent_sizes: Sequence[int]) -> list[int]:
    """The order that turns ``(*p0, *p1, ..., *t0, *t1, ...)`` into ``(*p0, *t0, *p1, *t1, ...)``:
    a JVP jaxpr's primals then tangents, regrouped as a loop's operands are."""
    order, p, t = [], 0, sum(primal_sizes)
    for n_p, n_t in zip(primal_sizes, tangent_sizes):
        order += range(p, p + n_p)
        order += range(t, t + n_t)
        p, t = p + n_p, t + n_t
    return order


def with_unused_inputs(closed: ClosedJaxpr, avals: Sequence[ShapedArray]) -> ClosedJaxpr:
    """``closed`` taking more inputs, of types ``avals``, that it does not read."""
    j = closed.jaxpr
    return ClosedJaxpr(
        Jaxpr(j.constvars, [*j.invars, *(Var(a) for a in avals)], j.outvars, j.eqns), closed.consts
    )


def bind_while(
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_consts: list[Any],
    body_consts: list[Any],
    carry: list[Any],
) -> list[Any]:
    """Apply ``while``; the jaxprs' own constants, if they have any, become leading operands."""
    cond_jaxpr, cond_hoisted = hoist_consts(cond_jaxpr)
    body_jaxpr, body_hoisted = hoist_consts(body_jaxpr)
    cond_consts, body_consts = [*cond_hoisted, *cond_consts], [*body_hoisted, *body_consts]
    return while_p.bind(*cond_consts, *body_consts, *carry, cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr,
                        cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))  # fmt: skip


def bind_scan(
    jaxpr: ClosedJaxpr,
    consts: list[Any],
    carry: list[Any],
    xs: list[Any],
    *,
    length: int,
    reverse: bool,
    unroll: int,
) -> list[Any]:
    """Apply ``scan``; the jaxpr's own constants, if it has any, become leading operands."""
    jaxpr, hoisted = hoist_consts(jaxpr)
    consts = [*hoisted, *consts]
    return scan_p.bind(*consts, *carry, *xs, jaxpr=jaxpr, length=length, reverse=reverse, unroll=unroll,
                       num_consts=len(consts), num_carry=len(carry))  # fmt: skip
