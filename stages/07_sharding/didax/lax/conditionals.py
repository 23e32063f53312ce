"""lax.cond and lax.switch: conditionals that a transformation can see. Stage 04 introduced them.

Python's ``if`` needs a known predicate, and a staged one has no value yet. ``cond`` and ``switch``
stage every branch as a jaxpr, on the types of the operands, and apply one primitive, ``cond_p``,
that holds the branches and runs the one its integer index picks: branch 0 is cond's false branch.
What a branch closes over is passed to the primitive as leading operands, so the interpreters
(jvp, vmap, staging) see it. The primitive's rules are in ad.py and batching.py.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..array import Array, to_array
from ..core import Primitive, ShapedArray, get_aval
from ..errors import JaxprTypeError
from ..jaxpr import ClosedJaxpr, Jaxpr, Var, eval_jaxpr, types_match
from ..staging import hoist_consts, shaped_abstractify, trace_flat
from ..tree_util import (
    KeyPath,
    PyTreeDef,
    flatten_one_level_with_keys,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from .elementwise import clamp, convert_element_type

cond_p = Primitive("cond")
cond_p.multiple_results = True

# JAX still accepts one pytree operand passed by keyword (its older calling convention); this
# default says that none was.
_no_operand_sentinel = object()


# ----------------------------------------------------------------------------------------------
# The API.


def cond(
    pred: Any,
    true_fun: Callable[..., Any],
    false_fun: Callable[..., Any],
    *operands: Any,
    operand: Any = _no_operand_sentinel,
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, with both branches staged.

    ``pred`` is a scalar boolean or number (a number is true when nonzero). Both branches must
    return pytrees of the same structure and the same shapes and dtypes.
    """
    if not (callable(true_fun) and callable(false_fun)):
        # JAX's oldest form, cond(pred, true_operand, true_fun, false_operand, false_fun).
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _positional(operands, operand)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        raise TypeError(
            f"Pred must be a scalar, got {pred} of "
            + (f"type {type(pred)}" if isinstance(pred, Sequence) else f"shape {np.shape(pred)}.")
        )
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")
        pred = pred != 0
    jaxprs, leaves, out_tree = _stage_branches(
        "cond", [true_fun, false_fun], ["true_fun", "false_fun"], operands
    )
    index = convert_element_type(pred, np.int32)  # False, True -> branches 0, 1
    return tree_unflatten(out_tree, _bind_cond(index, jaxprs[::-1], leaves))


def switch(
    index: Any, branches: Sequence[Callable[..., Any]], *operands: Any, operand: Any = _no_operand_sentinel
) -> Any:
    """``branches[index](*operands)``, with every branch staged; ``index`` is clamped to the
    range of ``branches`` (an index past either end picks the branch at that end)."""
    branches = tuple(branches)
    if not all(callable(branch) for branch in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _positional(operands, operand)
    if len(np.shape(index)) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:  # nothing to choose: JAX just calls it
        return branches[0](*operands)
    index = convert_element_type(index, np.int32)
    index = clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    names = ["branch 0", *[f"branch{i}" for i in range(1, len(branches))]]  # JAX's spelling
    jaxprs, leaves, out_tree = _stage_branches("switch", list(branches), names, operands)
    return tree_unflatten(out_tree, _bind_cond(index, jaxprs, leaves))


def _positional(operands: tuple[Any, ...], operand: Any) -> tuple[Any, ...]:
    if operand is _no_operand_sentinel:
        return operands
    if operands:
        raise TypeError(
            "if 'operand' keyword is passed then no positional operands can be passed, got "
            f"{operand=} and positional operands {operands}"
        )
    return (operand,)


def _stage_branches(
    api_name: str, funs: list[Callable[..., Any]], names: list[str], operands: tuple[Any, ...]
) -> tuple[list[ClosedJaxpr], list[Any], PyTreeDef]:
    """Each branch staged on the operands' types; the flat operands; the output tree. Every
    branch's outputs must match the first's in structure and types."""
    leaves, in_tree = tree_flatten((operands, {}))
    avals = [shaped_abstractify(x) for x in leaves]
    staged = [trace_flat(f, in_tree, avals) for f in funs]
    (jaxpr0, tree0), f0 = staged[0], funs[0]
    for name, f, (jaxpr, tree) in zip(names[1:], funs[1:], staged[1:]):
        check_branch_outputs(api_name, names[0], name, f0, f, tree0, jaxpr0.out_avals, tree, jaxpr.out_avals)
    return [jaxpr for jaxpr, _ in staged], leaves, tree0


def _bind_cond(index: Any, jaxprs: list[ClosedJaxpr], leaves: list[Any]) -> list[Any]:
    branches, consts = hoist_branch_consts(jaxprs)
    return cond_p.bind(index, *consts, *leaves, branches=branches)


def hoist_branch_consts(jaxprs: Sequence[ClosedJaxpr]) -> tuple[tuple[ClosedJaxpr, ...], list[Any]]:
    """The branches with no constants of their own, and the constants, to pass as leading operands.

    All branches take the same inputs, so each takes every branch's constants (a constant several
    branches close over is passed once) and ignores those it does not read. The JVP and batching
    rules use this too: a transformed branch may have constants of its own again.
    """
    hoisted = [hoist_consts(j) for j in jaxprs]
    consts: list[Any] = []
    const_avals: dict[int, ShapedArray] = {}  # id(constant) -> its type
    for closed, cs in hoisted:
        for c, v in zip(cs, closed.jaxpr.invars):
            if id(c) not in const_avals:
                const_avals[id(c)] = v.aval
                consts.append(c)
    branches = []
    for closed, cs in hoisted:
        j = closed.jaxpr
        own = {id(c): v for c, v in zip(cs, j.invars)}
        const_vars = [own.get(id(c)) or Var(const_avals[id(c)]) for c in consts]
        branches.append(ClosedJaxpr(Jaxpr((), [*const_vars, *j.invars[len(cs) :]], j.outvars, j.eqns), ()))
    return tuple(branches), consts


# ----------------------------------------------------------------------------------------------
# JAX's errors for branches whose outputs differ, in structure or in type.


def check_branch_outputs(
    api_name: str,
    name1: str,
    name2: str,
    f1: Callable[..., Any],
    f2: Callable[..., Any],
    tree1: PyTreeDef,
    avals1: Sequence[ShapedArray],
    tree2: PyTreeDef,
    avals2: Sequence[ShapedArray],
) -> None:
    """Raise JAX's TypeError unless two branches' outputs have one structure and equal types
    (shapes and dtypes: weak types may differ; the output takes branch 0's)."""
    header = f"{name1} is {fun_sourceinfo(f1)}\n{name2} is {fun_sourceinfo(f2)}\n\n"
    if tree1 != tree2:
        diffs = [
            f"{name1} output{_at(path)} is a {thing1} but {name2} output{_at(path)} is a {thing2}, so {why}"
            for path, thing1, thing2, why in structure_differences(tree1, tree2)
        ]
        if not diffs:
            return
        if len(diffs) == 1:
            differences = f"{diffs[0]}.\n"
        else:
            differences = "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but they differ:\n\n{header}"
            f"{differences}\nRevise {name1} and/or {name2} so that they have the same pytree structure."
        )
    paths = [path for path, _ in tree_flatten_with_path(tree_unflatten(tree1, avals1))[0]]
    diffs = [
        f"the output of {name1}{_at(path)} has type {a1.str_short()} but the corresponding output of "
        f"{name2} has type {a2.str_short()}{_mismatch(a1, a2)}"
        for path, a1, a2 in zip(paths, avals1, avals2)
        if not types_match(a1, a2)
    ]
    if not diffs:
        return
    if len(diffs) == 1:
        differences = f"{diffs[0][0].upper()}{diffs[0][1:]}.\n"
    else:
        differences = "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"
    raise TypeError(
        f"{api_name} branches must have equal output types but they differ.\n\n{header}{differences}\n"
        f"Revise {name1} and/or {name2} so that all output types match."
    )


def _at(path: KeyPath) -> str:
    return f" at path {keystr(path)}" if path else ""


def _mismatch(a1: ShapedArray, a2: ShapedArray) -> str:
    what = [
        f"the {field}s do not match"
        for field in ("dtype", "shape")
        if getattr(a1, field) != getattr(a2, field)
    ]
    if len(what) == 2:
        return f", so {what[0]}, and {what[1]}"
    return f", so {what[0]}" if what else ""


_BUILTIN_NAME = re.compile(r"(?:<built-in function (\S+)>)")


def fun_sourceinfo(fun: Callable[..., Any]) -> str:
    """``name at file:line``, how JAX's messages point at a function."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    try:
        return f"{fun.__name__} at {fun.__code__.co_filename}:{fun.__code__.co_firstlineno}"
    except AttributeError:
        match = _BUILTIN_NAME.match(str(fun))
        return match.group(1) if match else "<unknown>"


class _Leaf:
    """Stands for every leaf when two structures are compared, so only the structures differ."""

    def __repr__(self) -> str:
        return "pytree leaf"


def structure_differences(tree1: PyTreeDef, tree2: PyTreeDef) -> Iterator[tuple[KeyPath, str, str, str]]:
    """Where two tree structures differ: (path, what the first has, what the second has, why),
    the first difference down each path, in JAX's words."""
    leaf = _Leaf()
    t1 = tree_unflatten(tree1, [leaf] * tree1.num_leaves)
    t2 = tree_unflatten(tree2, [leaf] * tree2.num_leaves)
    return _differences((), t1, t2)


def _differences(path: KeyPath, t1: Any, t2: Any) -> Iterator[tuple[KeyPath, str, str, str]]:
    if type(t1) is _Leaf and type(t2) is _Leaf:
        return
    if type(t1) is not type(t2):
        yield path, _thing(t1), _thing(t2), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (
            path,
            f"{type(t1).__name__} of length {len(t1)}",
            f"{type(t2).__name__} of length {len(t2)}",
            "the lengths do not match",
        )
        return
    pairs1, meta1 = flatten_one_level_with_keys(t1)
    pairs2, meta2 = flatten_one_level_with_keys(t2)
    if len(pairs1) != len(pairs2):
        try:
            keys = " ".join(repr(k.key) for k in {k for k, _ in pairs1} ^ {k for k, _ in pairs2})
        except AttributeError:  # keys with no .key (positions, attributes)
            keys = ""
        children = [
            f"{type(t1)} with {len(pairs1)} child{'ren' if len(pairs1) > 1 else ''}",
            f"{type(t2)} with {len(pairs2)} child{'ren' if len(pairs2) > 1 else ''}",
        ]
        why = "the numbers of children do not match"
        yield path, *children, why + (keys and f", with the symmetric difference of key sets: {{{keys}}}")
        return
    if meta1 != meta2:
        yield (
            path,
            f"{type(t1)} with pytree metadata {meta1}",
            f"{type(t2)} with pytree metadata {meta2}",
            "the pytree node metadata does not match",
        )
        return
    for (key, c1), (_, c2) in zip(pairs1, pairs2):
        yield from _differences((*path, key), c1, c2)


def _thing(t: Any) -> str:
    return "pytree leaf" if type(t) is _Leaf else str(type(t))


# ----------------------------------------------------------------------------------------------
# The primitive: cond_p.bind(index, *consts, *operands, branches=(branch_0, branch_1, ...)).


@cond_p.def_abstract_eval
def _cond_abstract_eval(
    index: ShapedArray, *operands: ShapedArray, branches: tuple[ClosedJaxpr, ...]
) -> list[ShapedArray]:
    """The branches' output types, after checking that every branch has branch 0's type and
    takes the operands. Output weak types are branch 0's, as in JAX."""
    if type(branches) is not tuple or not all(type(b) is ClosedJaxpr for b in branches):
        raise JaxprTypeError(
            f"invalid cond param branches of type {type(branches).__name__}, tuple of ClosedJaxpr "
            f"required: {branches}"
        )
    if not branches:
        raise JaxprTypeError("cond requires at least one branch function")
    b0 = branches[0]
    for i, b in enumerate(branches[1:], 1):
        if len(b0.in_avals) != len(b.in_avals):
            raise JaxprTypeError(
                f"cond branch 0 takes {len(b0.in_avals)} inputs, branch {i} takes {len(b.in_avals)}"
            )
        if len(b0.out_avals) != len(b.out_avals):
            raise JaxprTypeError(
                f"cond branch 0 outputs {len(b0.out_avals)} values, branch {i} outputs {len(b.out_avals)}"
            )
        if not all(map(types_match, b0.in_avals, b.in_avals)):
            raise JaxprTypeError(
                f"cond branches 0 and {i} have mismatching input types: "
                f"{_avals_short(b0.in_avals)} vs {_avals_short(b.in_avals)}"
            )
        if not all(map(types_match, b0.out_avals, b.out_avals)):
            raise JaxprTypeError(
                f"cond branches 0 and {i} have mismatching output types: "
                f"{_avals_short(b0.out_avals)} vs {_avals_short(b.out_avals)}"
            )
    if len(operands) != len(b0.in_avals):
        raise JaxprTypeError(
            f"cond called with {len(operands)} non-predicate operands, but branches take {len(b0.in_avals)} inputs"
        )
    if index.dtype != np.int32 or index.shape != ():
        raise JaxprTypeError(f"cond called with index of type {index.str_short()} instead of int32[]")
    if not all(map(types_match, b0.in_avals, operands)):
        raise JaxprTypeError(
            f"cond branches take input types {_avals_short(b0.in_avals)}, called with operands of type "
            f"{_avals_short(operands)}"
        )
    return list(b0.out_avals)


def _avals_short(avals: Sequence[ShapedArray]) -> str:
    return " ".join(a.str_short() for a in avals)


@cond_p.def_impl
def _cond_impl(index: Any, *operands: Any, branches: tuple[ClosedJaxpr, ...]) -> list[Array]:
    """Run the branch ``index`` picks; like XLA, an index out of range picks the last branch."""
    out_avals = _cond_abstract_eval(get_aval(index), *map(get_aval, operands), branches=branches)
    i = int(index)
    branch = branches[i if 0 <= i < len(branches) else -1]
    outs = eval_jaxpr(branch.jaxpr, branch.consts, *operands)
    return [_as_output(x, aval) for x, aval in zip(outs, out_avals)]


def _as_output(x: Any, aval: ShapedArray) -> Array:
    """An Array of the cond's output type: a branch may give a literal, or another weak type."""
    x = to_array(x)
    if x.weak_type == aval.weak_type:
        return x
    return Array(np.asarray(x), aval.weak_type)
