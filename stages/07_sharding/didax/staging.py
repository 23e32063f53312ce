"""Staging: the interpreter that records a function as a jaxpr instead of running it. Stage 04
introduced it.

``make_jaxpr(f)(x)`` pushes a ``JaxprTrace`` on the stack and calls ``f`` on tracers that know
only their abstract value (shape, dtype, weak type). Every primitive applied to them is not run
but written down as an equation, with a new variable for its result, typed by the primitive's
abstract evaluation. The trace is also made the *dynamic* trace (core.new_dynamic), so operations
on constants are recorded too: ``jnp.ones(3)`` inside ``f`` is a ``broadcast_in_dim`` equation,
not a baked-in array. Constants that reach the trace become literals when they are scalars and
constvars otherwise; a didax Array the function closes over is a constvar even when it is a
scalar (a jax.Array is a buffer on a device, never written into the program).

Since a staged value has no number, Python cannot branch on it: ``if x > 0`` raises
``TracerBoolConversionError``. Staged control flow (lax.cond, lax.while_loop, lax.scan) exists
for that; its primitives hold the jaxprs this module makes of their branches and bodies.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes
from .array import Array, to_array
from .array import serials as array_serials
from .config import config
from .core import (
    ConcreteArray,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    extend_axis_env,
    get_aval,
    new_dynamic,
    new_main,
)
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, new_eqn
from .tree_util import PyTreeDef, keystr, tree_flatten, tree_flatten_with_path, tree_unflatten


# Avals in one place each: core.get_aval(x) is the abstract value of x (a ConcreteArray when its
# value is known); shaped_abstractify(x) its type, a ShapedArray (JAX's two names); shaped(aval)
# the type of an aval, one object per type (_shaped_type interns them: every literal needs one).


def shaped(aval: ShapedArray) -> ShapedArray:
    """Forget the value: a ConcreteArray becomes the ShapedArray of its type."""
    if type(aval) is ShapedArray:
        return aval
    return _shaped_type(aval.shape, aval.dtype, aval.weak_type)


def _shaped_type(shape: tuple[int, ...], dtype: Any, weak_type: bool) -> ShapedArray:
    """The one ShapedArray of a type, made on first use: every literal needs one."""
    key = (shape, dtype, weak_type)
    known = _shaped_avals.get(key)
    if known is None:
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
        self.first_serial = next(array_serials)  # Arrays made from here on were made while staging
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

    def __repr__(self) -> str:
        # JAX's name for a staged value, JitTracer(~float32[]): make_jaxpr stages as jit does.
        return f"JitTracer({self.aval})"


class JaxprTrace(Trace):
    def pure(self, val: Any) -> JaxprTracer:
        """A constant met while staging: a scalar is written into the equations as a literal, an
        array (or a key, which has no value to write, or a scalar Array made before staging
        began) becomes a constvar."""
        if isinstance(val, np.ndarray) and val.dtype == dtypes.float0:  # an integer's tangent from jvp
            aval = ShapedArray(val.shape, dtypes.float0)
            var = Literal(val, aval) if val.shape == () else self.main.global_data.const_var(val, aval)
            return JaxprTracer(self, aval, var)
        if type(val) is Array and not val.shape and val.serial > self.main.global_data.first_serial:
            # The commonest constant: a scalar didax made while staging (no aval to build). One the
            # function closed over is a constvar, as JAX 0.10.2 makes a captured 0-d jax.Array.
            typ = _shaped_type((), val.dtype, val.weak_type)
            return JaxprTracer(self, typ, Literal(val._value, typ))
        aval = get_aval(val)
        if not aval.shape and not isinstance(val, (Tracer, Array)) and isinstance(aval, ConcreteArray):
            typ = shaped(aval)
            return JaxprTracer(self, typ, Literal(literal_value(aval), typ))
        return self.lift(val)

    def lift(self, val: Any) -> JaxprTracer:
        """A value from outside: a constvar. A tracer of an enclosing transformation is one too,
        even when its value is known (a jvp's primal): it carries more than its value."""
        aval = shaped_abstractify(val)
        return JaxprTracer(self, aval, self.main.global_data.const_var(val, aval))

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        avals_out = abstract_eval(primitive, [t.aval for t in tracers], params)
        invars = tuple([t.var for t in tracers])
        if primitive.multiple_results:
            outvars = tuple([Var(a) for a in avals_out])
            outs = [JaxprTracer(self, a, v) for a, v in zip(avals_out, outvars)]
        else:
            outvars = (Var(avals_out),)
            outs = JaxprTracer(self, avals_out, outvars[0])
        self.main.global_data.eqns.append(new_eqn((primitive, invars, outvars, params)))
        return outs


def literal_value(aval: ConcreteArray) -> np.ndarray:
    """A known scalar's value as a 0-d NumPy array of its dtype: the value itself when it is one
    already (np.asarray would cost more than all the rest of making the literal)."""
    val = aval.val
    return val if type(val) is np.ndarray else np.asarray(val, aval.dtype)


_known_types: dict[Any, Any] = {}


def abstract_eval(primitive: Primitive, avals: list[ShapedArray], params: dict) -> Any:
    """``primitive``'s abstract evaluation, remembered per (primitive, input types, params, the
    64-bit flag, with which rules canonicalize dtypes): staging a long program asks the same
    question many times."""
    try:
        key = (primitive, config.jax_enable_x64, *avals, *params.items())
        return _known_types[key]
    except TypeError:  # an unhashable parameter
        return primitive.abstract_eval(*avals, **params)
    except KeyError:
        pass
    out = primitive.abstract_eval(*avals, **params)
    if getattr(primitive, "abstract_eval_reads_axis_env", False):  # all_to_all: the answer depends on more
        return out
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
    with new_main(JaxprTrace, builder) as main, new_dynamic(main):
        trace = JaxprTrace(main)
        tracers = [JaxprTracer(trace, shaped(a), Var(shaped(a))) for a in in_avals]
        outs = fun(*tracers)
        out_vars = [_full_raise_var(trace, x) for x in outs]
    return builder.build([t.var for t in tracers], out_vars), outs


def _full_raise_var(trace: JaxprTrace, x: Any) -> Var | Literal:
    """What stands for the output ``x`` in the jaxpr: its variable, or a new literal or constvar
    for an output that did not depend on the inputs."""
    if isinstance(x, JaxprTracer) and x._trace.main is trace.main:
        return x.var
    return (trace.lift(x) if isinstance(x, Tracer) else trace.pure(x)).var


def trace_flat(
    fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[ShapedArray], user_fun: Any = None
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """Stage ``fun`` called on the pytree ``in_tree`` (of ``(args, kwargs)``) of values of types
    ``in_avals``; the closed jaxpr of its flattened outputs, and their tree. With ``user_fun``
    (the function the user gave, for the message), an output that is not an array is an error."""
    out_tree: list[PyTreeDef] = []

    def flat_fun(*leaves: Any) -> list[Any]:
        args, kwargs = tree_unflatten(in_tree, leaves)
        out_leaves, tree = tree_flatten(fun(*args, **kwargs))
        if user_fun is not None:
            _check_outputs(user_fun, out_leaves)
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

    def __init__(
        self, shape: Sequence[int], dtype: Any, *, sharding: Any = None, weak_type: bool = False
    ) -> None:
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
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == (
            other.shape,
            other.dtype,
            other.weak_type,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def shaped_abstractify(x: Any) -> ShapedArray:
    """The type of a value, a ShapedArray (JAX's name); of a ShapeDtypeStruct, or of any object with
    ``shape`` and ``dtype`` attributes (as JAX accepts), the type it describes."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    try:
        return shaped(get_aval(x))
    except TypeError:
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return ShapedArray(tuple(x.shape), dtypes.canonicalize_dtype(np.dtype(x.dtype)))
        raise


def _arg_types(fun: Callable[..., Any], args: tuple, kwargs: dict) -> tuple[list[ShapedArray], PyTreeDef]:
    """The staged types of the leaves of ``(args, kwargs)`` and their tree; JAX's TypeError for
    a leaf that is not an array, naming where it was passed."""
    pairs, _ = tree_flatten_with_path((args, kwargs))
    avals = []
    for path, leaf in pairs:
        try:
            avals.append(shaped_abstractify(leaf))
        except TypeError:
            raise TypeError(
                f"Error interpreting argument to {fun} as an abstract array. The problematic value is "
                f"of type {type(leaf)} and was passed to the function at path {_path_name(fun, path)}.\n"
                "This typically means that a function was called with a non-array argument; pass it as "
                "a static argument (static_argnums) instead."
            ) from None
    return avals, tree_flatten((args, kwargs))[1]


def _path_name(fun: Callable[..., Any], path: tuple) -> str:
    """``x``, ``x['a'][0]`` or ``kwargs['k']``: where a leaf sat among ``fun``'s arguments."""
    (in_kwargs, first, *rest) = path
    if in_kwargs.idx == 1:
        return f"{first.key}{keystr(tuple(rest))}"
    try:
        names = list(inspect.signature(fun).parameters)
        name = names[first.idx] if first.idx < len(names) else f"args[{first.idx}]"
    except (TypeError, ValueError):  # no signature
        name = f"args[{first.idx}]"
    return f"{name}{keystr(tuple(rest))}"


def _check_outputs(fun: Callable[..., Any], outs: list[Any]) -> None:
    for x in outs:
        if not isinstance(x, Tracer) and not (isinstance(x, np.ndarray) and x.dtype == dtypes.float0):
            try:
                get_aval(x)
            except TypeError:
                name = getattr(fun, "__name__", repr(fun))
                raise TypeError(
                    f"function {name} traced for make_jaxpr returned a value of type {type(x)}, which "
                    "is not a valid JAX type"
                ) from None


def make_jaxpr(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[Any, int]] | None = None,
    return_shape: bool = False,
) -> Callable[..., Any]:
    """A function that stages ``fun`` on its arguments and returns the ClosedJaxpr, and with
    ``return_shape`` also a pytree of ShapeDtypeStructs shaped like ``fun``'s output.

    Arguments at ``static_argnums`` are passed to ``fun`` as they are (they are not staged, and
    need not be arrays, but must be hashable, as for jit); the others become the jaxpr's inputs,
    their pytrees flattened. ``axis_env``, a list of (name, size) pairs, binds named axes while
    ``fun`` is staged, so that collectives over them (``psum(x, 'i')``) can be staged alone.
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> Any:
        statics = _static_positions(static, len(args))
        for i in sorted(statics):
            _check_hashable(args[i])
        dynamic = tuple(a for i, a in enumerate(args) if i not in statics)

        def with_statics(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            return fun(*[a if i in statics else next(it) for i, a in enumerate(args)], **kw)

        in_avals, in_tree = _arg_types(fun, dynamic, kwargs)
        with contextlib.ExitStack() as axes:
            for name, size in axis_env or ():
                axes.enter_context(extend_axis_env(name, size))
            closed, out_tree = trace_flat(with_statics, in_tree, in_avals, fun)
        closed = ClosedJaxpr(closed.jaxpr, [_own(c) for c in closed.consts])
        if not return_shape:
            return closed
        shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
        return closed, tree_unflatten(out_tree, shapes)

    return make_jaxpr_f


def _own(const: Any) -> Any:
    """A constant the user's jaxpr keeps: a NumPy array is copied (in its constvar's dtype), so
    that changing it later cannot change the jaxpr. A float0 array (an integer's tangent) holds no
    data to change, and no Array can hold it: it stays as it is."""
    if isinstance(const, (Tracer, Array)) or (isinstance(const, np.ndarray) and const.dtype == dtypes.float0):
        return const
    return to_array(const)


def _static_positions(static: tuple[int, ...], nargs: int) -> set[int]:
    if any(not -nargs <= i < nargs for i in static):
        raise ValueError(
            f"Function has static_argnums={static}, but only accepts {nargs} positional arguments."
        )
    return {i % nargs for i in static}


def _check_hashable(arg: Any) -> None:
    try:
        hash(arg)
    except TypeError as e:
        raise ValueError(
            f"Non-hashable static arguments are not supported. An error occurred while trying to hash "
            f"an object of type {type(arg)}, {arg}. The error was:\n{type(e).__name__}: {e}\n"
        ) from None


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)`` as ShapeDtypeStructs, without computing
    it: ``fun`` is staged on the arguments' types and nothing runs."""
    in_avals, in_tree = _arg_types(fun, args, kwargs)
    closed, out_tree = trace_flat(fun, in_tree, in_avals, fun)
    shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
    return tree_unflatten(out_tree, shapes)


# ----------------------------------------------------------------------------------------------
# Dead-code elimination: staging records everything the function did, used or not.


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: bool | Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[Jaxpr, list[bool]]:
    """``jaxpr`` keeping only the outputs marked in ``used_outputs``, the equations they need and
    the inputs those read; also which inputs it kept. didax's primitives have no side effects but one, so
    an equation none of whose results is needed can go, unless it has a side effect. An input marked in
    ``instantiate`` is kept even when nothing reads it."""
    n = len(jaxpr.outvars)
    used = [used_outputs] * n if isinstance(used_outputs, bool) else list(used_outputs)
    live: set[Var] = {v for v, u in zip(jaxpr.outvars, used) if u and type(v) is Var}
    kept: list[JaxprEqn] = []
    for eqn in reversed(jaxpr.eqns):
        # An equation with a side effect (debug.print, stage 06) stays, used or not.
        if any(v in live for v in eqn.outvars) or getattr(eqn.primitive, "has_side_effect", False):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    keep = [instantiate] * len(jaxpr.invars) if isinstance(instantiate, bool) else list(instantiate)
    used_inputs = [v in live or k for v, k in zip(jaxpr.invars, keep)]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u]
    outvars = [v for v, u in zip(jaxpr.outvars, used) if u]
    return Jaxpr(jaxpr.constvars, invars, outvars, kept[::-1]), used_inputs
