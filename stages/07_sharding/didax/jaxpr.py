"""Jaxprs: a program as data. Stage 04 introduced them.

A jaxpr is what staging (staging.py) records of a function: its inputs as typed variables, the
equations it ran, one primitive application each, and its outputs. It is a small first-order
language with one kind of statement:

    { lambda a:f32[3]; b:f32[]. let c:f32[3] = mul b a; d:f32[] = reduce_sum[axes=(0,)] c in (d,) }

``a`` is a constant the function closed over (a *constvar*), ``b`` its argument, ``c`` and ``d``
values it computed. Here are the data structures, the printer that writes that text, the type
checker, and ``eval_jaxpr``, which runs a jaxpr by binding its equations: under a
transformation it is transformed like any other Python function.
"""

from __future__ import annotations

import collections
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import pretty as pp
from .array import Array
from .core import Primitive, ShapedArray
from .dtypes import ExtendedDType
from .errors import JaxprTypeError

# ----------------------------------------------------------------------------------------------
# The data structures. All are immutable: a transformation builds a new jaxpr, it never edits one.


class _Immutable:
    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: build a new one instead")


class Var(_Immutable):
    """A variable of a jaxpr: a typed name, equal only to itself. Its printed name ("a", "b",
    ...) is given when the jaxpr is printed, in order of appearance."""

    __slots__ = ("aval",)

    # Staging makes one per equation, so it is built in __new__ and its slot filled through the
    # slot's own setter: twice as fast as __init__ with object.__setattr__.
    def __new__(cls, aval: ShapedArray) -> Var:
        var = object.__new__(cls)
        _set_var_aval(var, aval)
        return var

    def __repr__(self) -> str:  # JAX's: Var(id=140475527873152):float32[]
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class Literal(_Immutable):
    """A scalar constant written into an equation. A jaxpr prints it with its type, ``2.0:f32[]``,
    as JAX 0.10.2 does (JAX's older documentation shows the value alone, ``2.0``)."""

    __slots__ = ("val", "aval")

    def __new__(cls, val: np.ndarray, aval: ShapedArray) -> Literal:  # built as a Var is
        literal = object.__new__(cls)
        _set_literal_val(literal, val)
        _set_literal_aval(literal, aval)
        return literal

    def __repr__(self) -> str:
        return f"Literal({self.val})"


_set_var_aval = Var.__dict__["aval"].__set__
_set_literal_val = Literal.__dict__["val"].__set__
_set_literal_aval = Literal.__dict__["aval"].__set__


Atom = Var | Literal  # what an equation reads: a variable or a literal


class JaxprEqn(NamedTuple):
    """One equation: ``outvars = primitive[params] invars``."""

    primitive: Primitive
    invars: tuple[Atom, ...]
    outvars: tuple[Var, ...]
    params: dict[str, Any]

    def replace(self, **changes: Any) -> JaxprEqn:
        """A copy with some fields changed (JAX's name for it; ``eqn.replace(params=...)``)."""
        return self._replace(**changes)

    def __repr__(self) -> str:  # the equation as a jaxpr prints it, its variables named afresh
        return pp.format(pp_eqn(self, PrintContext())).rstrip()

    __str__ = __repr__


# A NamedTuple's constructor is a Python function around tuple.__new__. Staging makes one
# equation per operation, so it calls tuple.__new__ itself: new_eqn((primitive, invars, outvars, params)).
new_eqn = functools.partial(tuple.__new__, JaxprEqn)


class Jaxpr(_Immutable):
    """A function as data: constants, inputs, equations in order, outputs."""

    __slots__ = ("constvars", "invars", "outvars", "eqns")

    def __init__(
        self,
        constvars: Sequence[Var],
        invars: Sequence[Var],
        outvars: Sequence[Atom],
        eqns: Sequence[JaxprEqn],
    ) -> None:
        object.__setattr__(self, "constvars", tuple(constvars))
        object.__setattr__(self, "invars", tuple(invars))
        object.__setattr__(self, "outvars", tuple(outvars))
        object.__setattr__(self, "eqns", tuple(eqns))

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.outvars]

    def __str__(self) -> str:
        return pp.format(pp_toplevel_jaxpr(self))

    __repr__ = __str__


class ClosedJaxpr(_Immutable):
    """A jaxpr with the values of its constvars: a self-contained function of its invars."""

    __slots__ = ("jaxpr", "consts")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
        if len(consts) != len(jaxpr.constvars):
            raise ValueError(f"{len(jaxpr.constvars)} constvars but {len(consts)} constants")
        object.__setattr__(self, "jaxpr", jaxpr)
        object.__setattr__(self, "consts", list(consts))

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[ShapedArray]:
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> tuple[JaxprEqn, ...]:
        return self.jaxpr.eqns

    @property
    def literals(self) -> list[Any]:  # JAX's older name for consts
        return self.consts

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__


# ----------------------------------------------------------------------------------------------
# Running a jaxpr. Every equation goes through ``bind``, so whatever interpreters are active
# (evaluation, jvp, vmap, staging) see the jaxpr's operations as if the function ran again.


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """The values of ``jaxpr``'s outputs, given its constants and its arguments."""
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
    env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))

    def read(atom: Atom) -> Any:
        return literal_value(atom) if type(atom) is Literal else env[atom]

    for eqn in jaxpr.eqns:
        # The primitive's own bind: a collective's (stage 07) goes to the vmap of its axis.
        outs = eqn.primitive.bind(*[read(x) for x in eqn.invars], **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else (outs,)))
    return [read(v) for v in jaxpr.outvars]


def literal_value(lit: Literal) -> Any:
    """The value a literal stands for when the jaxpr runs: weakly typed if its type says so (it
    was a Python scalar in the staged function), so that it promotes as it did there."""
    return Array(lit.val, weak_type=True) if lit.aval.weak_type else lit.val


def jaxpr_as_fun(closed: ClosedJaxpr, *args: Any) -> Any:
    """A closed jaxpr as a Python function of its inputs, returning the list of its outputs; given
    arguments too, that function's result (JAX's ``jaxpr_as_fun`` is curried the same way)."""

    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)

    return fun(*args) if args else fun


# ----------------------------------------------------------------------------------------------
# The type checker. A jaxpr is well typed when every variable is bound once before it is read,
# and every equation's output types are what its primitive's abstract evaluation says they are
# for its input types. Transformations that build jaxprs are checked with it in the tests.


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Raise ``JaxprTypeError`` naming the first problem in ``jaxpr``, if it has one."""
    bound: set[Var] = set()

    def fail(message: str) -> JaxprTypeError:
        return JaxprTypeError(f"{message}\n\nin the jaxpr\n{jaxpr}")

    def name(v: Atom) -> str:  # the name the printout gives it
        ctx = PrintContext()
        pp_toplevel_jaxpr(jaxpr, ctx)
        return pp_atom(v, ctx)

    def bind_var(v: Var) -> None:
        if type(v) is not Var:
            raise fail(f"Binder {v!r} is not a variable: only variables can be bound")
        if v in bound:
            raise fail(f"Variable '{name(v)}' already bound: each variable is bound once")
        bound.add(v)

    def read(v: Atom) -> ShapedArray:
        if type(v) is Var and v not in bound:
            raise fail(f"Variable '{name(v)}' not defined: it is read before any binding")
        return v.aval

    for v in (*jaxpr.constvars, *jaxpr.invars):
        bind_var(v)
    for i, eqn in enumerate(jaxpr.eqns):
        in_avals = [read(x) for x in eqn.invars]
        for sub in subjaxprs(eqn.params):
            check_jaxpr(sub)
        try:
            out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
        except (TypeError, ValueError) as e:
            raise fail(f"Equation {i} ({eqn.primitive.name}) is ill typed: {e}") from e
        out_avals = out if eqn.primitive.multiple_results else [out]
        if len(out_avals) != len(eqn.outvars):
            raise fail(
                f"Equation {i} ({eqn.primitive.name}) binds {len(eqn.outvars)} variables but its "
                f"primitive gives {len(out_avals)} results"
            )
        for v, aval in zip(eqn.outvars, out_avals):
            if not types_match(v.aval, aval):
                raise fail(
                    f"Equation {i} ({eqn.primitive.name}): variable '{name(v)}' is declared "
                    f"{short_aval(v.aval)} but the primitive gives {short_aval(aval)}"
                )
            bind_var(v)
    for v in jaxpr.outvars:
        read(v)


def types_match(declared: ShapedArray, actual: ShapedArray) -> bool:
    """Shape and dtype must agree; weak types may differ (JAX's check ignores them too)."""
    return declared.shape == actual.shape and declared.dtype == actual.dtype


def subjaxprs(params: dict[str, Any]) -> Iterator[Jaxpr]:
    """The jaxprs held in an equation's parameters (a control-flow primitive's bodies)."""
    for value in params.values():
        for x in value if isinstance(value, tuple) else (value,):
            if isinstance(x, ClosedJaxpr):
                yield x.jaxpr
            elif isinstance(x, Jaxpr):
                yield x


# ----------------------------------------------------------------------------------------------
# The printer, written to print what JAX 0.10.2 prints. Variables are named in order of appearance
# (a ... z, ba, bb, ...); nested jaxprs go on naming where their parent left off, so every name in
# a printout is unique. A variable of the outer jaxpr that nothing reads is ``_``. Literals carry
# their type, ``3.0:f32[]``. A nested jaxpr used twice, or longer than ten equations, is printed
# once in front, ``let name = { lambda ... } in``, and called by its name.


def short_dtype(dtype: Any) -> str:
    """``f32``, ``i32``, ``u8``, ``bool``, ``bf16``, ``c64``, ``f8_e4m3fn``: JAX's short names."""
    if isinstance(dtype, ExtendedDType):
        return dtype.name  # key<fry>
    name = dtype.name.replace("float", "f").replace("uint", "u").replace("int", "i").replace("complex", "c")
    return name.replace("void", "float0")  # float0's NumPy name


def short_aval(aval: ShapedArray) -> str:
    return f"{short_dtype(aval.dtype)}[{','.join(map(str, aval.shape))}]"


def alphabetic(n: int) -> str:
    """The ``n``-th variable name: base 26 with digits a..z, so 25 is "z" and 26 is "ba"."""
    s = ""
    while not s or n:
        n, digit = divmod(n, 26)
        s = chr(ord("a") + digit) + s
    return s


class PrintContext:
    """The names given so far in one printout, and the jaxprs printed in front (``shared``)."""

    def __init__(self, names: dict[Var, str] | None = None) -> None:
        self.names: dict[Var, str] = dict(names or {})
        self.shared: dict[Jaxpr, str] = {}
        self._fresh = 0

    def name(self, v: Var) -> str:
        name = self.names.get(v)
        if name is None:
            name = alphabetic(self._fresh)
            self._fresh += 1
            while name in self.shared.values():  # a letter a shared jaxpr is called by is not a variable
                name = alphabetic(self._fresh)
                self._fresh += 1
            self.names[v] = name
        return name


def pp_atom(x: Atom, ctx: PrintContext) -> str:
    return pp_literal(x) if type(x) is Literal else ctx.name(x)


def pp_literal(lit: Literal) -> str:
    """``2.0:f32[]``: the value as Python prints it, and its type."""
    value = str(np.asarray(lit.val).item()) if not np.shape(lit.val) else "[...]"
    return f"{value}:{short_aval(lit.aval)}"


def pp_vars(vs: Sequence[Atom], ctx: PrintContext, separator: str = "", types: bool = False) -> pp.Doc:
    """``a:f32[] b:i32[3]`` (binders, with ``types``) or ``a 2.0:f32[]``, breaking where they do not fit."""
    docs = [pp.text(f"{pp_atom(v, ctx)}:{short_aval(v.aval)}" if types else pp_atom(v, ctx)) for v in vs]
    return pp.nest(2, pp.group(pp.join(pp.concat(pp.text(separator), pp.group(pp.brk())), docs)))


def pp_toplevel_jaxpr(jaxpr: Jaxpr, ctx: PrintContext | None = None) -> pp.Doc:
    """``jaxpr`` with its shared nested jaxprs in front of it, as JAX's ``str(jaxpr)``."""
    ctx = ctx or PrintContext()
    ctx.names.update(_dropvars(jaxpr))
    docs = [pp_shared_jaxpr(name, shared, ctx) for name, shared in _shared_jaxprs(jaxpr, ctx)]
    return pp.concat(*docs, pp_jaxpr(jaxpr, ctx))


def _dropvars(jaxpr: Jaxpr) -> dict[Var, str]:
    """The outer jaxpr's equation results that nothing reads: they print as ``_``."""
    names: dict[Var, str] = {}
    used = {v for v in jaxpr.outvars if type(v) is Var}
    for eqn in reversed(jaxpr.eqns):
        names.update((v, "_") for v in eqn.outvars if v not in used)
        used.update(v for v in eqn.invars if type(v) is Var)
    return names


def _shared_jaxprs(top: Jaxpr, ctx: PrintContext) -> list[tuple[str, Jaxpr]]:
    """The nested jaxprs met more than once (a long one counts twice), each with a name of its
    own: the ``name`` of the equation holding it (jit's), else "jaxpr", numbered when taken."""
    counts: Counter[Jaxpr] = Counter()
    names: dict[Jaxpr, str] = {}
    todo = collections.deque([top])
    while todo:  # breadth first, as JAX counts them
        jaxpr = todo.popleft()
        counts[jaxpr] += 1 if jaxpr is top or len(jaxpr.eqns) <= 10 else 2
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            for sub in subjaxprs(eqn.params):
                todo.append(sub)
                if isinstance(name, str):
                    names.setdefault(sub, name.strip("<>"))  # <lambda> -> lambda
    taken: Counter[str] = Counter()
    shared = []
    for jaxpr, count in counts.items():
        if count > 1:
            name = names.get(jaxpr, "jaxpr")
            if taken[name]:
                taken[name] += 1
                name += str(taken[name] - 1)
            taken[name] += 1
            ctx.shared[jaxpr] = name
            shared.append((name, jaxpr))
    return shared


def pp_shared_jaxpr(name: str, jaxpr: Jaxpr, ctx: PrintContext) -> pp.Doc:
    return pp.concat(pp.text(f"let {name} = "), _pp_skeleton(jaxpr, ctx), pp.text(" in"), pp.brk())


def pp_jaxpr(jaxpr: Jaxpr, ctx: PrintContext) -> pp.Doc:
    """``{ lambda consts; ins. let eqns in (outs,) }``, or the name of a jaxpr printed in front."""
    name = ctx.shared.get(jaxpr)
    return pp.text(name) if name is not None else _pp_skeleton(jaxpr, ctx)


def _pp_skeleton(jaxpr: Jaxpr, ctx: PrintContext) -> pp.Doc:
    constvars = pp_vars(jaxpr.constvars, ctx, types=True)
    invars = pp_vars(jaxpr.invars, ctx, types=True)
    eqns = pp.join(pp.brk("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outs = pp.concat(pp.text("("), pp_vars(jaxpr.outvars, ctx, separator=","),
                     pp.text(",)" if len(jaxpr.outvars) == 1 else ")"))  # fmt: skip
    body = pp.concat(pp.text("{ lambda "), constvars, pp.text("; "), invars, pp.text(". let"),
                     pp.nest(2, pp.concat(pp.brk(), eqns)), pp.brk(), pp.text("in "), outs)  # fmt: skip
    return pp.group(pp.concat(pp.nest(2, body), pp.text(" }")))  # one line only if the " }" fits too


# How an equation prints, for the primitives that print otherwise than ``_pp_eqn`` does: each rule
# gets the equation and the context, keyed by the primitive's name (this module cannot import
# lax's primitives: lax's control flow imports it).
PpRule = Callable[["JaxprEqn", PrintContext], pp.Doc]
pp_eqn_rules: dict[str, PpRule] = {}


def pp_eqn(eqn: JaxprEqn, ctx: PrintContext) -> pp.Doc:
    return pp_eqn_rules.get(eqn.primitive.name, _pp_eqn)(eqn, ctx)


def _pp_eqn(eqn: JaxprEqn, ctx: PrintContext, order: Sequence[str] | None = None) -> pp.Doc:
    """``c:f32[3] = name[params] a 2.0:f32[]``: the parameters in ``order``, else sorted by name."""
    lhs = pp_vars(eqn.outvars, ctx, types=True)  # named first: nested jaxprs are named after them
    params = pp_params([(k, eqn.params[k]) for k in (sorted(eqn.params) if order is None else order)], ctx)
    rhs = pp.concat(pp.text(eqn.primitive.name), params, pp.text(" "), pp_vars(eqn.invars, ctx))
    return pp.concat(lhs, pp.text(" = "), rhs) if eqn.outvars else rhs


def pp_params(params: list[tuple[str, Any]], ctx: PrintContext) -> pp.Doc:
    """``[axes=(0,) keepdims=False]``; jaxprs inside are printed as jaxprs."""
    if not params:
        return pp.text("")
    pairs = [pp.concat(pp.text(f"{k}="), pp_param(v, ctx)) for k, v in params]
    return pp.group(
        pp.concat(
            pp.nest(2, pp.concat(pp.text("["), pp.brk(""), pp.join(pp.brk(), pairs))),
            pp.brk(""),
            pp.text("]"),
        )
    )


def pp_param(value: Any, ctx: PrintContext) -> pp.Doc:
    if isinstance(value, (Jaxpr, ClosedJaxpr)):
        return pp_jaxpr(value if isinstance(value, Jaxpr) else value.jaxpr, ctx)
    if type(value) is tuple and value and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in value):
        jaxprs = [pp_param(j, ctx) for j in value]
        return pp.group(
            pp.concat(
                pp.nest(2, pp.concat(pp.text("("), pp.brk(""), pp.join(pp.brk(), jaxprs))),
                pp.brk(""),
                pp.text(")"),
            )
        )
    if isinstance(value, np.dtype):
        return pp.text(value.name)
    return pp.text(str(value))


def _pp_broadcast_in_dim(eqn: JaxprEqn, ctx: PrintContext) -> pp.Doc:
    # The shape is the result's type, already printed; no broadcast dimensions print as none.
    order = ["broadcast_dimensions"] if eqn.params["broadcast_dimensions"] else []
    return _pp_eqn(eqn, ctx, order + sorted(k for k in eqn.params if k not in ("broadcast_dimensions", "shape")))


def _pp_dot_general(eqn: JaxprEqn, ctx: PrintContext) -> pp.Doc:
    # Parameters that are None are not printed; dimension numbers print as lists, shorter.
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = eqn.params["dimension_numbers"]
    dims = ((list(lhs_contract), list(rhs_contract)), (list(lhs_batch), list(rhs_batch)))
    params = {k: v for k, v in eqn.params.items() if v is not None} | {"dimension_numbers": dims}
    return _pp_eqn(eqn.replace(params=params), ctx)


pp_eqn_rules["broadcast_in_dim"] = _pp_broadcast_in_dim
pp_eqn_rules["dot_general"] = _pp_dot_general


def _pp_jit(eqn: JaxprEqn, ctx: PrintContext) -> pp.Doc:
    # Stage 05: jit's name first, donated_invars only when something is donated, and the called
    # jaxpr's variables named after the equation's where those names are free, as JAX prints it.
    jaxpr = eqn.params["jaxpr"].jaxpr
    if jaxpr not in ctx.shared:
        _suggest_same_names(ctx, jaxpr.invars, eqn.invars)
        _suggest_same_names(ctx, jaxpr.outvars, eqn.outvars)
    shown = [k for k in sorted(eqn.params) if k != "name" and (k != "donated_invars" or any(eqn.params[k]))]
    return _pp_eqn(eqn, ctx, ["name", *shown])


def _suggest_same_names(ctx: PrintContext, inner: Sequence[Atom], outer: Sequence[Atom]) -> None:
    """Name each not yet named variable of ``inner`` as its outer counterpart (each name once)."""
    if len(inner) != len(outer):
        return
    used: set[Var] = set()
    for v, like in zip(inner, outer):
        if type(like) is Var and like not in used and type(v) is Var and v not in ctx.names:
            used.add(like)
            ctx.names[v] = ctx.name(like)


pp_eqn_rules["jit"] = _pp_jit
