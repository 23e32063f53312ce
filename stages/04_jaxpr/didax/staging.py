"""Staging: the interpreter that records a function as a jaxpr instead of running it. Stage 04
introduced it.

``make_jaxpr(f)(x)`` pushes a ``JaxprTrace`` on the stack and calls ``f`` on tracers that know
only their abstract value (shape, dtype, weak type). Every primitive applied to them is not run
but written down as an equation, with a new variable for its result, typed by the primitive's
abstract evaluation. The trace is also made the *dynamic* trace (core.new_dynamic), so operations
on constants are recorded too: ``jnp.ones(3)`` inside ``f`` is a ``broadcast_in_dim`` equation,
not a baked-in array. Constants that reach the trace become literals when they are scalars and
constvars otherwise.

Since a staged value has no number, Python cannot branch on it: ``if x > 0`` raises
``TracerBoolConversionError``. Staged control flow (lax.cond, lax.while_loop, lax.scan) exists
for that; its primitives hold the jaxprs this module makes of their branches and bodies.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .core import (
    ConcreteArray,
    MainTrace,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    get_aval,
    new_dynamic,
    new_main,
)
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from .tree_util import PyTreeDef, tree_flatten, tree_unflatten


def shaped(aval: ShapedArray) -> ShapedArray:
    """Forget the value: a ConcreteArray becomes the ShapedArray of its type."""
    if type(aval) is ShapedArray:
        return aval
    key = (aval.shape, aval.dtype, aval.weak_type)
    known = _shaped_avals.get(key)
    if known is None:  # one ShapedArray per type, made once: every literal needs one
        known = _shaped_avals[key] = ShapedArray(*key)
        if len(_shaped_avals) > 4096:  # ever-new shapes must not grow memory without end
            _shaped_avals.clear()
    return known


_shaped_avals: dict[tuple[Any, ...], ShapedArray] = {}


# ----------------------------------------------------------------------------------------------
# The interpreter. Its tracers hold the variable (or literal) that names them in the jaxpr being
# built; the builder, kept in the MainTrace, holds the equations and the constants.


class JaxprBuilder:
    """What one staging run has recorded so far."""

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.constvars: dict[int, Var] = {}  # id(constant) -> its variable
        self.consts: list[Any] = []  # kept alive, so that no id is reused

    def const_var(self, val: Any, aval: ShapedArray) -> Var:
        var = self.constvars.get(id(val))
        if var is None:
            var = self.constvars[id(val)] = Var(aval)
            self.consts.append(val)
        return var

    def build(self, invars: Sequence[Var], outvars: Sequence[Any]) -> ClosedJaxpr:
        jaxpr = Jaxpr(list(self.constvars.values()), invars, outvars, self.eqns)
        return ClosedJaxpr(jaxpr, self.consts)


class JaxprTracer(Tracer):
    """A staged value: its type, and the variable or literal that stands for it."""

    __slots__ = ("_trace", "aval", "var")

    def __init__(self, trace: JaxprTrace, aval: ShapedArray, var: Var | Literal) -> None:
        self._trace = trace
        self.aval = aval
        self.var = var


class JaxprTrace(Trace):
    def pure(self, val: Any) -> JaxprTracer:
        """A constant met while staging: a scalar is written into the equations as a literal; an
        array (or a tracer of an enclosing transformation) becomes a constvar."""
        aval = get_aval(val)
        if type(aval) is ConcreteArray and not aval.shape and not isinstance(val, Tracer):
            typ = shaped(aval)
            return JaxprTracer(self, typ, Literal(literal_value(aval), typ))
        # A tracer of an enclosing transformation is not a constant even when its value is known
        # (a jvp's primal): as a constvar it stays an input that the outer interpreter follows.
        aval = shaped(aval)
        return JaxprTracer(self, aval, self.main.global_data.const_var(val, aval))

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        avals_out = abstract_eval(primitive, [t.aval for t in tracers], params)
        invars = tuple([t.var for t in tracers])
        if primitive.multiple_results:
            outs = [JaxprTracer(self, a, Var(a)) for a in avals_out]
            outvars = tuple([t.var for t in outs])
        else:
            outs = JaxprTracer(self, avals_out, Var(avals_out))
            outvars = (outs.var,)
        self.main.global_data.eqns.append(JaxprEqn(primitive, invars, outvars, params))
        return outs


def literal_value(aval: ConcreteArray) -> np.ndarray:
    """A known scalar's value as a 0-d NumPy array of its dtype: the value itself when it is one
    already (np.asarray would cost more than all the rest of making the literal)."""
    val = aval.val
    return val if type(val) is np.ndarray else np.asarray(val, aval.dtype)


_known_types: dict[Any, Any] = {}


def abstract_eval(primitive: Primitive, avals: list[ShapedArray], params: dict) -> Any:
    """``primitive``'s abstract evaluation, remembered per (primitive, input types, params):
    staging a long program asks the same question many times."""
    try:
        key = (primitive, *avals, *params.items())
        return _known_types[key]
    except TypeError:  # an unhashable parameter
        return primitive.abstract_eval(*avals, **params)
    except KeyError:
        pass
    out = primitive.abstract_eval(*avals, **params)
    if len(_known_types) > 65536:  # a program with ever-new shapes must not grow memory without end
        _known_types.clear()
    _known_types[key] = out
    return out


# ----------------------------------------------------------------------------------------------
# Tracing a function to a jaxpr.


def trace_to_jaxpr(fun: Callable[..., Any], in_avals: Sequence[ShapedArray]) -> tuple[ClosedJaxpr, list[Any]]:
    """Stage ``fun``, a function of flat arguments of types ``in_avals`` returning a flat list;
    the closed jaxpr, and the flat outputs as ``fun`` gave them (for their tree, if any)."""
    builder = JaxprBuilder()
    with new_main(JaxprTrace, builder) as main:
        with new_dynamic(main):
            trace = JaxprTrace(main)
            tracers = [JaxprTracer(trace, shaped(a), Var(shaped(a))) for a in in_avals]
            outs = fun(*tracers)
            out_vars = [_full_raise_var(trace, x) for x in outs]
    return builder.build([t.var for t in tracers], out_vars), outs


def _full_raise_var(trace: JaxprTrace, x: Any) -> Var | Literal:
    if isinstance(x, JaxprTracer) and x._trace.main is trace.main:
        return x.var
    return trace.pure(x).var


def trace_flat(
    fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[ShapedArray]
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """Stage ``fun`` called on the pytree ``in_tree`` of values of types ``in_avals``; the closed
    jaxpr of its flattened outputs, and their tree."""
    out_tree: list[PyTreeDef] = []

    def flat_fun(*leaves: Any) -> list[Any]:
        args, kwargs = tree_unflatten(in_tree, leaves)
        out_leaves, tree = tree_flatten(fun(*args, **kwargs))
        out_tree.append(tree)
        return out_leaves

    closed, _ = trace_to_jaxpr(flat_fun, in_avals)
    return closed, out_tree[0]


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """``closed`` with its constvars made its leading invars, and the constants they stood for.

    A control-flow primitive holds jaxprs with no constants of their own: what a branch or a
    body closes over is passed to the primitive as operands instead, so that the interpreters
    above see it (a tracer of an enclosing jvp, say, captured by a loop body) like any other
    input of the operation.
    """
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr((), [*j.constvars, *j.invars], j.outvars, j.eqns), ()), list(closed.consts)


# ----------------------------------------------------------------------------------------------
# The API.


class ShapeDtypeStruct:
    """A stand-in for an array: its shape and dtype, no values. ``eval_shape`` returns them, and
    ``make_jaxpr`` and ``eval_shape`` accept them in place of arguments."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape: Sequence[int], dtype: Any, *, sharding: Any = None, weak_type: bool = False) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self.sharding = sharding

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type)
                == (other.shape, other.dtype, other.weak_type))

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def abstractify(x: Any) -> ShapedArray:
    """The type staging gives an argument: a ShapeDtypeStruct's, or the value's without it."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return shaped(get_aval(x))


def make_jaxpr(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[Any, int]] | None = None,
    return_shape: bool = False,
) -> Callable[..., Any]:
    """A function that stages ``fun`` on its arguments and returns the ClosedJaxpr, and with
    ``return_shape`` also a pytree of ShapeDtypeStructs shaped like ``fun``'s output.

    Arguments at ``static_argnums`` are passed to ``fun`` as they are (they are not staged, and
    need not be arrays); the others become the jaxpr's inputs, their pytrees flattened.
    ``axis_env`` is kept for the named axes of stage 07; nothing reads it yet.
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> Any:
        statics = {i % len(args) if -len(args) <= i < len(args) else i for i in static}
        dynamic = [a for i, a in enumerate(args) if i not in statics]

        def with_statics(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            return fun(*[a if i in statics else next(it) for i, a in enumerate(args)], **kw)

        leaves, in_tree = tree_flatten((tuple(dynamic), kwargs))
        closed, out_tree = trace_flat(with_statics, in_tree, [abstractify(x) for x in leaves])
        if not return_shape:
            return closed
        shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
        return closed, tree_unflatten(out_tree, shapes)

    return make_jaxpr_f


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)`` as ShapeDtypeStructs, without computing
    it: ``fun`` is staged on the arguments' types and nothing runs."""
    leaves, in_tree = tree_flatten((args, kwargs))
    closed, out_tree = trace_flat(fun, in_tree, [abstractify(x) for x in leaves])
    shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
    return tree_unflatten(out_tree, shapes)


# ----------------------------------------------------------------------------------------------
# Dead-code elimination: staging records everything the function did, used or not.


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: bool | Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[Jaxpr, list[bool]]:
    """``jaxpr`` keeping only the outputs marked in ``used_outputs``, the equations they need and
    the inputs those read; also which inputs it kept. didax's primitives have no side effects, so
    an equation none of whose results is needed can always go. An input marked in
    ``instantiate`` is kept even when nothing reads it."""
    n = len(jaxpr.outvars)
    used = [used_outputs] * n if isinstance(used_outputs, bool) else list(used_outputs)
    live: set[Var] = {v for v, u in zip(jaxpr.outvars, used) if u and type(v) is Var}
    kept: list[JaxprEqn] = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    keep = [instantiate] * len(jaxpr.invars) if isinstance(instantiate, bool) else list(instantiate)
    used_inputs = [v in live or k for v, k in zip(jaxpr.invars, keep)]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u]
    outvars = [v for v, u in zip(jaxpr.outvars, used) if u]
    return Jaxpr(jaxpr.constvars, invars, outvars, kept[::-1]), used_inputs

