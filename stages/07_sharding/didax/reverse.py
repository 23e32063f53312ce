"""Reverse-mode automatic differentiation: linearize, vjp, grad. Stage 06 introduced it.

Three steps, each a transformation of the one before:

1. ``jvp`` (stage 02) computes primals and tangents together.
2. ``linearize`` runs that jvp under partial evaluation (partial_eval.py) with the primals known
   and the tangents unknown: the primal outputs come out as values, and the tangent computation
   as a linear jaxpr whose constants are the residuals the primal pass left behind.
3. ``vjp`` transposes that jaxpr (transpose.py): cotangents of the outputs in, cotangents of the
   inputs out. ``grad`` is vjp with the cotangent 1 of a scalar output.

Integer and boolean inputs have no tangent (float0): they stay known, never enter the linear
jaxpr, and get float0 zeros as their cotangents, as in JAX.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes
from .ad import JVPTrace, JVPTracer, Zero, _primal_and_tangent, _split_aux, instantiate, tangent_aval
from .array import Array, to_array
from .core import ShapedArray, Tracer, get_aval, new_main
from .jaxpr import Jaxpr, eval_jaxpr
from .partial_eval import PartialVal, partial_eval_flat
from .staging import shaped_abstractify
from .transpose import UndefinedPrimal, backward_pass
from .tree_util import Partial, PyTreeDef, tree_flatten, tree_map, tree_unflatten


class Linearized:
    """What linearizing a function at a point leaves: its primal outputs, the linear jaxpr of its
    tangents (inputs: the inexact inputs' tangents; outputs: the tangents that are not symbolic
    zeros) and that jaxpr's residuals."""

    def __init__(self, primals_out: list[Any], out_tree: PyTreeDef, jaxpr: Jaxpr, consts: list[Any],
                 in_avals: list[Any], in_linear: list[bool], out_nonzero: list[bool], aux: Any = None) -> None:  # fmt: skip
        self.primals_out = primals_out
        self.out_tree = out_tree
        self.jaxpr = jaxpr
        self.consts = consts
        self.in_avals = in_avals  # the primal inputs' types
        self.in_linear = in_linear  # which inputs have tangents (the inexact ones)
        self.out_nonzero = out_nonzero  # which outputs' tangents the jaxpr gives
        self.aux = aux

    def jvp(self, tangents: list[Any]) -> list[Any]:
        """The output tangents for the input tangents ``tangents`` (one per input)."""
        given = [t for t, lin in zip(tangents, self.in_linear) if lin]
        outs = iter(eval_jaxpr(self.jaxpr, self.consts, *given))
        return [next(outs) if nz else instantiate(Zero.like(p)) for p, nz in zip(self.primals_out, self.out_nonzero)]

    def vjp(self, cts: list[Any], consts: list[Any] | None = None) -> list[Any]:
        """The input cotangents for the output cotangents ``cts`` (one per output), from the
        residuals ``consts`` (by default, this linearization's own)."""
        undefined = [UndefinedPrimal(tangent_aval(a)) for a, lin in zip(self.in_avals, self.in_linear) if lin]
        cts = [ct for ct, nz in zip(cts, self.out_nonzero) if nz]
        consts = self.consts if consts is None else consts
        cts_in = iter(backward_pass(self.jaxpr, consts, undefined, cts))
        return [instantiate(next(cts_in) if lin else Zero(tangent_aval(a))) for a, lin in zip(self.in_avals, self.in_linear)]


def linearize_flat(fun: Callable[..., Any], primals: Sequence[Any], has_aux: bool = False) -> Linearized:
    """Partially evaluate the jvp of ``fun`` (flat arguments; a pytree out, or ``(out, aux)`` with
    ``has_aux``): the primals known, the tangents of the inexact inputs unknown."""
    in_avals = [_type_of(p) for p in primals]
    in_linear = [dtypes.is_inexact(a.dtype) for a in in_avals]
    known: dict[str, Any] = {}  # what the jvp computes now: primal outputs, their tree, aux

    def tangents_of_fun(*tangents: Any) -> list[Any]:
        given = iter(tangents)
        with new_main(JVPTrace) as main:
            trace = JVPTrace(main)
            args = [JVPTracer(trace, p, next(given)) if lin else p for p, lin in zip(primals, in_linear)]
            out = fun(*args)
            if has_aux:
                out, aux = _split_aux(out)
                known["aux"] = tree_map(lambda x: x.primal if isinstance(x, JVPTracer) and x._trace.main is main
                                        else x, aux)  # fmt: skip
            out_flat, known["out_tree"] = tree_flatten(out)
            pairs = [_primal_and_tangent(trace, x) for x in out_flat]
        known["primals_out"] = [p for p, _ in pairs]
        known["nonzero"] = [type(t) is not Zero for _, t in pairs]
        return [t for _, t in pairs if type(t) is not Zero]

    tangent_pvals = [PartialVal.unknown(tangent_aval(a)) for a, lin in zip(in_avals, in_linear) if lin]
    jaxpr, _, consts = partial_eval_flat(tangents_of_fun, tangent_pvals, instantiate=True)
    return Linearized(known["primals_out"], known["out_tree"], jaxpr, consts, in_avals, in_linear, known["nonzero"],
                      known.get("aux"))  # fmt: skip


# ----------------------------------------------------------------------------------------------
# The API.


def _flat_primals(primals: tuple) -> tuple[list[Any], PyTreeDef]:
    leaves, in_tree = tree_flatten(primals)
    return [x if isinstance(x, Tracer) or _is_float0(x) else to_array(x) for x in leaves], in_tree


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(fun(*primals), f_jvp)``, where ``f_jvp(*tangents)`` is the Jacobian of ``fun`` at
    ``primals`` applied to ``tangents``; the linearization work is done once, here, and ``f_jvp``
    only evaluates the linear jaxpr it left. With ``has_aux``, also the auxiliary output."""
    _check_callable(fun)
    flat, in_tree = _flat_primals(primals)
    lin = linearize_flat(_flat_fun(fun, in_tree), flat, has_aux)
    out_tree = lin.out_tree

    def f_jvp(*tangents: Any) -> Any:
        tangents_flat, tree = tree_flatten(tangents)
        if tree != in_tree:
            raise TypeError(f"expected {in_tree}, got {tree}")
        for a, t in zip(lin.in_avals, tangents_flat):
            expected, got = tangent_aval(a), shaped_abstractify(t)
            if (expected.shape, expected.dtype) != (got.shape, got.dtype):
                raise ValueError(
                    "linearized function called on tangent values inconsistent with the original primal "
                    f"values:\nGot tangent aval {got} for primal aval {a} but expected {expected}."
                )
        return tree_unflatten(out_tree, lin.jvp(tangents_flat))

    out = tree_unflatten(out_tree, lin.primals_out)
    return (out, f_jvp, lin.aux) if has_aux else (out, f_jvp)


def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False, reduce_axes: Sequence[Any] = ()) -> tuple[Any, ...]:
    """``(fun(*primals), f_vjp)``, where ``f_vjp(ct)`` takes a cotangent shaped like the output and
    returns a tuple of cotangents shaped like ``primals``: the vector-Jacobian product. With
    ``has_aux``, also the auxiliary output."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    _check_callable(fun)
    flat, in_tree = _flat_primals(primals)
    lin = linearize_flat(_flat_fun(fun, in_tree), flat, has_aux)
    out_tree = lin.out_tree
    out_avals = [_type_of(p) for p in lin.primals_out]
    name = getattr(fun, "__name__", repr(fun))

    def f_vjp(residuals: list[Any], *args: Any) -> tuple:
        if len(args) != 1:
            raise TypeError(
                f"The function returned by `jax.vjp` applied to {name} was called with {len(args)} arguments, but "
                "functions returned by `jax.vjp` must be called with a single argument corresponding to the single "
                "value returned by the function being differentiated (even if that returned value is a tuple or "
                "other container)."
            )
        cts, tree = tree_flatten(args[0])
        if tree != out_tree:
            raise ValueError(
                "unexpected tree structure of argument to vjp function: got "
                f"{tree}, but expected to match {out_tree}"
            )
        cts = [_check_cotangent(ct, a) for ct, a in zip(cts, out_avals)]
        return tree_unflatten(in_tree, lin.vjp(cts, residuals))

    # A pytree, as JAX's: its leaves are the residuals, so it can be returned from jit or make_jaxpr.
    pullback = Partial(f_vjp, list(lin.consts))
    out = tree_unflatten(out_tree, lin.primals_out)
    return (out, pullback, lin.aux) if has_aux else (out, pullback)


def _check_cotangent(ct: Any, aval: Any) -> Any:
    if type(ct) is Zero:
        return ct
    ct = ct if isinstance(ct, Tracer) or _is_float0(ct) else to_array(ct)
    expected = tangent_aval(aval)
    got = shaped_abstractify(ct) if not _is_float0(ct) else expected
    if got.shape != expected.shape or (got.dtype != expected.dtype and expected.dtype != dtypes.float0):
        raise ValueError(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{got.str_short()}, but expected {expected.str_short()} because the corresponding output of the "
            f"differentiated function had JAX type {aval.str_short()}"
        )
    return ct


def _is_float0(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == dtypes.float0


def _type_of(x: Any) -> ShapedArray:
    """A value's type, float0 arrays included: an integer's tangent or cotangent can be an input or
    an output of a function differentiated again (the vjp of a vjp, or of a jvp)."""
    return ShapedArray(x.shape, dtypes.float0) if _is_float0(x) else shaped_abstractify(x)


def _flat_fun(fun: Callable[..., Any], in_tree: PyTreeDef) -> Callable[..., Any]:
    return lambda *leaves: fun(*tree_unflatten(in_tree, list(leaves)))


def _check_callable(fun: Any) -> None:
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")


def value_and_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable[..., Any]:
    """A function returning ``(fun(*args), its gradient)`` with respect to the positional
    arguments ``argnums``; ``fun`` must return a real scalar (complex with ``holomorphic``). With
    ``has_aux``, ``fun`` returns ``(value, aux)`` and the result is ``((value, aux), gradient)``."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")
    _check_callable(fun)
    _check_argnums(argnums)

    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        highest = argnums if isinstance(argnums, int) else max(argnums)
        if highest >= len(args):
            raise TypeError(
                f"differentiating with respect to argnums={argnums} requires at least {highest + 1} positional "
                f"arguments to be passed by the caller, but got only {len(args)} positional arguments."
            )
        f_partial, dyn_args = argnums_partial(fun, argnums, args, kwargs)
        for leaf in tree_flatten(dyn_args)[0]:
            check_input_dtype("grad", holomorphic, allow_int, leaf)
        ans, f_vjp, *aux = vjp(f_partial, *dyn_args, has_aux=has_aux)
        _check_scalar(ans)
        tree_map(functools.partial(check_output_dtype, "grad", holomorphic), ans)
        g = f_vjp(_one(ans))
        g = g[0] if isinstance(argnums, int) else g
        return ((ans, *aux) if has_aux else ans), g

    return value_and_grad_f


def grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable[..., Any]:
    """The gradient of ``fun`` (a real scalar function) with respect to its positional arguments
    ``argnums``, shaped like them; with ``has_aux``, ``(gradient, aux)``."""
    value_and_grad_f = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @functools.wraps(fun)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        (_, *aux), g = _as_pair(value_and_grad_f(*args, **kwargs), has_aux)
        return (g, aux[0]) if has_aux else g

    return grad_f


def _one(ans: Any) -> Array:
    """The cotangent 1 of a scalar output, of its type: a literal when staged."""
    aval = get_aval(ans)
    return Array(np.ones((), aval.dtype), aval.weak_type)


def _as_pair(result: Any, has_aux: bool) -> Any:
    value, g = result
    return ((value[0], value[1]) if has_aux else (value,)), g


def argnums_partial(fun: Callable[..., Any], argnums: int | Sequence[int], args: tuple, kwargs: dict) -> tuple[Callable[..., Any], tuple]:
    """``fun`` as a function of the arguments at ``argnums`` alone (the others fixed), and those
    arguments."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    nums = tuple(n % len(args) for n in nums)

    def f_partial(*dyn: Any) -> Any:
        full = list(args)
        for i, x in zip(nums, dyn):
            full[i] = x
        return fun(*full, **kwargs)

    return f_partial, tuple(args[i] for i in nums)


def _check_argnums(argnums: Any) -> None:
    nums = argnums if isinstance(argnums, (tuple, list)) else (argnums,)
    for n in nums:
        if not isinstance(n, (int, np.integer)):
            raise TypeError(f"argnums must be an int or a sequence of ints, got {argnums!r}")


def _check_scalar(x: Any) -> None:
    message = "Gradient only defined for scalar-output functions. Output {}."
    try:
        aval = get_aval(x)
    except TypeError:
        raise TypeError(message.format(f"was {x}")) from None
    if aval.shape != ():
        raise TypeError(message.format(f"had shape: {aval.shape}"))


def check_input_dtype(name: str, holomorphic: bool, allow_int: bool, x: Any) -> None:
    """JAX's TypeError for an input reverse mode cannot differentiate (``name``: grad, jacrev)."""
    dtype = get_aval(x).dtype
    if holomorphic and not dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, but got {dtype.name}.")
    if not dtypes.is_inexact(dtype) and not allow_int:
        raise TypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but "
            f"got {dtype.name}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to "
            "True."
        )


def check_output_dtype(name: str, holomorphic: bool, x: Any) -> None:
    """JAX's TypeError for an output reverse mode cannot start from."""
    dtype = get_aval(x).dtype
    if isinstance(dtype, dtypes.ExtendedDType):
        raise TypeError(f"{name} with output element type {dtype.name}")
    if holomorphic:
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, but got {dtype.name}.")
    elif dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
            f"{dtype.name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex outputs, use jax.vjp directly."
        )
    elif not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
            f"{dtype.name}. For differentiation of functions with integer outputs, use jax.vjp directly."
        )


def linear_transpose(fun: Callable[..., Any], *primals: Any, reduce_axes: Sequence[Any] = ()) -> Callable[..., Any]:
    """The transpose of the linear function ``fun``, traced at the types of ``primals`` (arrays or
    ShapeDtypeStructs): a function from a cotangent shaped like ``fun``'s output to a tuple of
    cotangents shaped like ``primals``, without any forward pass."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_tree = tree_flatten(primals)
    in_avals = [shaped_abstractify(x) for x in leaves]
    out_trees: list[PyTreeDef] = []

    def flat_fun(*args: Any) -> list[Any]:
        out_flat, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, list(args))))
        out_trees.append(out_tree)
        return out_flat

    jaxpr, pvals_out, consts = partial_eval_flat(flat_fun, [PartialVal.unknown(a) for a in in_avals], instantiate=True)
    out_avals = [p.aval for p in pvals_out]
    in_dtypes, out_dtypes = [a.dtype for a in in_avals], [a.dtype for a in out_avals]
    all_dtypes = in_dtypes + out_dtypes
    if not (all(dtypes.is_inexact(d) for d in all_dtypes) or all(dtypes.issubdtype(d, np.integer) for d in all_dtypes)):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and integer -> integer "
            f"functions, but got {in_dtypes} -> {out_dtypes}."
        )

    def transposed_fun(out_cotangent: Any) -> tuple:
        cts, tree = tree_flatten(out_cotangent)
        if tree != out_trees[0]:
            raise TypeError(f"cotangent tree does not match function output, expected {out_trees[0]} but got {tree}")
        if any((shaped_abstractify(ct).shape, shaped_abstractify(ct).dtype) != (a.shape, a.dtype)
               for ct, a in zip(cts, out_avals)):
            raise TypeError(f"cotangent type does not match function output, expected {out_avals} but got {cts}")
        cts_in = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in in_avals], cts)
        return tree_unflatten(in_tree, [instantiate(ct) for ct in cts_in])

    return transposed_fun
