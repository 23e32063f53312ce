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

import functools
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import pretty as pp
from .array import Array
from .core import Primitive, ShapedArray, bind
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

    def __repr__(self) -> str:
        return f"Var({short_aval(self.aval)})"


class Literal(_Immutable):
    """A scalar constant written into an equation. It prints as its value, ``2.0``, as in JAX's
    documentation (JAX itself has since taken to printing its type too, ``2.0:f32[]``)."""

    __slots__ = ("val", "aval")

    def __new__(cls, val: np.ndarray, aval: ShapedArray) -> Literal:  # built as a Var is
        literal = object.__new__(cls)
        _set_literal_val(literal, val)
        _set_literal_aval(literal, aval)
        return literal

    def __repr__(self) -> str:
        return str(self.val[()])


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
        return pp.format(pp_jaxpr(self, PrintContext()))

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
        outs = bind(eqn.primitive, *[read(x) for x in eqn.invars], **eqn.params)
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
        pp_jaxpr(jaxpr, ctx)
        return ctx.name(v) if type(v) is Var else repr(v)

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
# The printer. Variables are named in order of appearance (a ... z, ba, bb, ...); nested jaxprs
# go on naming where their parent left off, as in JAX, so every name in a printout is unique.

_SHORT_KINDS = {"b": "bool", "i": "i", "u": "u", "f": "f", "c": "c"}


def short_dtype(dtype: np.dtype) -> str:
    """``f32``, ``i32``, ``u8``, ``bool``, ``bf16``, ``c64``: the names jaxprs print."""
    if dtype.name == "bfloat16":
        return "bf16"
    if dtype.kind == "b":
        return "bool"
    if dtype.kind in "iufc" and dtype.name[-1].isdigit():
        return dtype.kind + str(dtype.itemsize * 8)
    return dtype.name  # float0, float8 kinds, extended dtypes (key<fry>)


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
    """The names given so far in one printout."""

    def __init__(self) -> None:
        self.names: dict[Var, str] = {}

    def name(self, v: Var) -> str:
        if v not in self.names:
            self.names[v] = alphabetic(len(self.names))
        return self.names[v]


def pp_atom(x: Atom, ctx: PrintContext) -> str:
    return repr(x) if type(x) is Literal else ctx.name(x)


def pp_binders(vs: Sequence[Var], ctx: PrintContext) -> pp.Doc:
    """``a:f32[] b:i32[3]``, breaking between binders when they do not fit."""
    return pp.nest(
        2, pp.group(pp.join(pp.group(pp.brk()), [pp.text(f"{ctx.name(v)}:{short_aval(v.aval)}") for v in vs]))
    )


def pp_jaxpr(jaxpr: Jaxpr, ctx: PrintContext) -> pp.Doc:
    constvars = pp_binders(jaxpr.constvars, ctx)
    invars = pp_binders(jaxpr.invars, ctx)
    eqns = pp.join(pp.brk("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outs = ", ".join(pp_atom(v, ctx) for v in jaxpr.outvars)
    outs = f"({outs},)" if len(jaxpr.outvars) == 1 else f"({outs})"
    return pp.concat(
        pp.group(
            pp.nest(
                2,
                pp.concat(
                    pp.text("{ lambda "),
                    constvars,
                    pp.text("; "),
                    invars,
                    pp.text(". let"),
                    pp.nest(2, pp.concat(pp.brk(), eqns)),
                    pp.brk(),
                    pp.text("in " + outs),
                ),
            )
        ),
        pp.text(" }"),
    )


def pp_eqn(eqn: JaxprEqn, ctx: PrintContext) -> pp.Doc:
    lhs = pp_binders(eqn.outvars, ctx)  # named first: nested jaxprs are named after them
    params = pp_params(eqn.params, ctx, getattr(eqn.primitive, "param_order", None))
    args = " ".join(pp_atom(x, ctx) for x in eqn.invars)
    return pp.concat(lhs, pp.text(" = " + eqn.primitive.name), params, pp.text(" " + args))


def pp_params(params: dict[str, Any], ctx: PrintContext, order: tuple[str, ...] | None = None) -> pp.Doc:
    """``[axes=(0,) keepdims=False]``, sorted by name unless the primitive gives an ``order`` (jit
    prints its name first, as JAX does); jaxprs inside are printed as jaxprs."""
    if not params:
        return pp.text("")
    items = [(k, params[k]) for k in order] if order else sorted(params.items())
    pairs = [pp.concat(pp.text(f"{k}="), pp_param(v, ctx)) for k, v in items]
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
    if isinstance(value, tuple) and value and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in value):
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
