"""Lowering a jaxpr to StableHLO, the input language of XLA's compiler (stage 05).

A jaxpr and a StableHLO function say nearly the same thing: typed values, one operation per
line, no mutation. So lowering is one more interpreter of jaxprs, like eval_jaxpr, except that
what it computes for each variable is not a value but the *name* of an SSA value in the function
being written (``%3``), and each primitive's rule writes the StableHLO operations that compute it.

didax writes the module as text, in MLIR's generic syntax (``%3 = "stablehlo.sine"(%2) :
(tensor<3xf32>) -> tensor<3xf32>``): every operation has the same shape there, operands, then
attributes, then the type, so one small function writes them all, and no jaxlib is needed until
the text is handed to didax/xla.py to parse and compile. MLIR prints it back in StableHLO's own
syntax for ``jit(f).lower(x).as_text()``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..core import Primitive, ShapedArray, get_aval
from ..jaxpr import ClosedJaxpr, Jaxpr, Literal, Var
from ..lax.standard import physical_rules
from ..staging import trace_to_jaxpr

# primitive -> rule(ctx, *operands, **params) -> the name of its result (or a list of them)
lowering_rules: dict[Primitive, Callable[..., Any]] = {}


# ----------------------------------------------------------------------------------------------
# Types.

_ELEMENT_TYPES = {
    "bool": "i1", "int4": "i4", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint4": "ui4", "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
}  # fmt: skip


def element_type(dtype: Any) -> str:
    """The MLIR element type of a NumPy dtype: f32, i32 (signless: signed), ui8, i1 for bool."""
    try:
        return _BY_DTYPE[dtype]  # a dtype's .name is computed anew each time, in Python: slow
    except (KeyError, TypeError):
        pass
    try:
        name = _BY_DTYPE[dtype] = _ELEMENT_TYPES[np.dtype(dtype).name]
    except KeyError:
        raise NotImplementedError(f"didax cannot lower values of dtype {dtype} to StableHLO") from None
    return name


# float0, an integer's tangent, holds no data; it is lowered as booleans, as JAX does (its NumPy
# name, "void", says nothing, so it is entered by dtype).
_BY_DTYPE: dict[Any, str] = {dtypes.float0: "i1"}


def physical(aval: ShapedArray) -> ShapedArray:
    """What an array of ``aval``'s type is in memory: itself, or for a key array its uint32 words
    (keys of shape (3,) are words of shape (3, 2))."""
    if dtypes.is_key_dtype(aval.dtype):
        impl = aval.dtype._impl
        return ShapedArray((*aval.shape, *impl.key_shape), np.dtype(np.uint32))
    return aval


def tensor_type(aval: ShapedArray) -> str:
    """``tensor<3x4xf32>`` for a (3, 4) float32 aval, ``tensor<f32>`` for a scalar."""
    aval = physical(aval)
    return "tensor<" + "".join(f"{d}x" for d in aval.shape) + element_type(aval.dtype) + ">"


def dense(value: np.ndarray) -> str:
    """``value`` as a DenseElementsAttr: raw little-endian bytes in hex, exact for every dtype (one
    element's bytes stand for a splat of it). Booleans are written out: MLIR packs i1 differently."""
    value = np.asarray(value)
    typ = "tensor<" + "".join(f"{d}x" for d in value.shape) + element_type(value.dtype) + ">"
    if value.dtype == np.bool_ or value.dtype == dtypes.float0:
        flat = value.astype(np.bool_).ravel()
        if flat.size and (flat == flat[0]).all():
            return f"dense<{str(bool(flat[0])).lower()}> : {typ}"
        body = ", ".join("true" if b else "false" for b in flat)
        return f"dense<{_nest(body, value.shape)}> : {typ}"
    data = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<"), copy=False)
    flat = data.reshape(-1)
    if flat.size > 1 and (flat.view(np.uint8).reshape(flat.size, -1) == flat[:1].view(np.uint8)).all():
        data = flat[:1]  # a splat: one element's bytes
    return f'dense<"0x{data.tobytes().hex().upper()}"> : {typ}'


def _nest(body: str, shape: tuple[int, ...]) -> str:
    """A flat comma-separated list of booleans as MLIR's nested literal of ``shape``."""
    items = body.split(", ")
    for n in reversed(shape[1:]):
        items = ["[" + ", ".join(items[i : i + n]) + "]" for i in range(0, len(items), n)]
    return "[" + ", ".join(items) + "]" if shape else items[0]


def i64_array(values: Sequence[int]) -> str:
    """An ``array<i64: 0, 1>`` attribute (dimension lists: broadcast, reduce, transpose...)."""
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if len(values) else "") + ">"


# ----------------------------------------------------------------------------------------------
# Writing a function body.


class FunctionBuilder:
    """The lines of one function being written, in MLIR's generic syntax. ``op`` writes one
    operation and returns its results' names; the types of all names are remembered, since the
    generic syntax spells out every operand's type."""

    def __init__(self, module: ModuleBuilder) -> None:
        self.module = module
        self.lines: list[str] = []
        self.types: dict[str, str] = {}
        self.indent = "    "
        self.loc = ""  # where the operations written now come from: ``jit(f)/sin``, for XLA's errors

    def fresh(self, typ: str) -> str:
        name = f"%{self.module.next_id()}"
        self.types[name] = typ
        return name

    def op(
        self, name: str, operands: Sequence[str], result_types: Sequence[str], attrs: dict[str, str] | None = None,
        regions: Sequence[Region] = (),
    ) -> list[str]:  # fmt: skip
        """Write ``results = "name"(operands) (regions) {attrs} : (operand types) -> (result types)``."""
        results = [self.fresh(t) for t in result_types]
        lhs = (", ".join(results) + " = ") if results else ""
        attr_text = " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}" if attrs else ""
        region_text = ""
        if regions:
            region_text = " (" + ", ".join(r.text(self.indent) for r in regions) + ")"
        in_types = ", ".join(self.types[o] for o in operands)
        out_types = ", ".join(result_types)
        if len(result_types) != 1:
            out_types = f"({out_types})"
        loc = f' loc("{self.loc}")' if self.loc else ""
        self.lines.append(f'{self.indent}{lhs}"{name}"({", ".join(operands)}){region_text}{attr_text} : '
                          f"({in_types}) -> {out_types}{loc}")  # fmt: skip
        return results

    def op1(self, name: str, operands: Sequence[str], result_type: str, attrs: dict[str, str] | None = None) -> str:
        """``op`` with one result, returning its name."""
        return self.op(name, operands, [result_type], attrs)[0]

    def region(self, arg_types: Sequence[str]) -> Region:
        """A new block with arguments of ``arg_types``, for an operation's region (a reduction's
        combiner, a loop's body): write into ``region.builder``, then finish with ``region.ret``."""
        return Region(self, arg_types)


class Region:
    """One block of a region, written with its own FunctionBuilder that shares the function's
    names (regions in StableHLO may read values defined outside them)."""

    def __init__(self, parent: FunctionBuilder, arg_types: Sequence[str]) -> None:
        self.builder = FunctionBuilder(parent.module)
        self.builder.types = parent.types
        self.builder.indent = parent.indent + "    "
        self.builder.loc = parent.loc
        self.args = [self.builder.fresh(t) for t in arg_types]
        self.arg_types = list(arg_types)

    def ret(self, values: Sequence[str], op: str = "stablehlo.return") -> None:
        self.builder.op(op, values, [])

    def text(self, indent: str) -> str:
        args = ", ".join(f"{a}: {t}" for a, t in zip(self.args, self.arg_types))
        body = "\n".join(self.builder.lines)
        return "{\n" + f"{indent}  ^bb0({args}):\n" + body + f"\n{indent}}}"


class ModuleBuilder:
    """A module being written: its functions, and a counter that names every value uniquely."""

    def __init__(self, name: str, platform: str = "cpu") -> None:
        self.name = name
        self.platform = platform
        self.functions: list[str] = []
        self.counter = 0
        self.lowered: dict[int, tuple[str, ClosedJaxpr]] = {}  # id(closed jaxpr) -> its function

    def next_id(self) -> int:
        self.counter += 1
        return self.counter

    def add_function(
        self, name: str, closed: ClosedJaxpr, public: bool = False, arg_attrs: Sequence[str | None] = ()
    ) -> str:
        """Write ``closed`` as the function ``@name`` (its constants are its leading arguments),
        with MLIR attributes ``arg_attrs`` on its arguments (``{tf.aliasing_output = 0 : i32}``)."""
        fb = FunctionBuilder(self)
        in_avals = [*(_aval_of(c) for c in closed.consts), *closed.in_avals]
        args = [fb.fresh(tensor_type(a)) for a in in_avals]
        n = len(closed.consts)
        outs = lower_jaxpr(fb, closed.jaxpr, args[:n], args[n:])
        out_types = [tensor_type(a) for a in closed.out_avals]
        fb.op("func.return", outs, [])
        visibility = "public" if public else "private"
        attrs = [*arg_attrs, *[None] * (len(args) - len(arg_attrs))]
        signature = ", ".join(f"{a}: {fb.types[a]}" + (f" {at}" if at else "") for a, at in zip(args, attrs))
        self.functions.append(
            f"  func.func {visibility} @{name}({signature}) -> ({', '.join(out_types)}) {{\n"
            + "\n".join(fb.lines) + "\n  }"
        )  # fmt: skip
        return name

    def call(self, fb: FunctionBuilder, name: str, closed: ClosedJaxpr, operands: Sequence[str]) -> list[str]:
        """Call ``closed`` (written once per module as the private function ``@name...``)."""
        key = id(closed)
        if key not in self.lowered:
            fname = f"{_symbol(name)}_{len(self.lowered)}"
            self.lowered[key] = (fname, closed)  # also keeps ``closed`` alive, so its id stays unique
            self.add_function(fname, closed)
        fname = self.lowered[key][0]
        consts = [constant(fb, np.asarray(c)) for c in closed.consts]
        out_types = [tensor_type(a) for a in closed.out_avals]
        return fb.op("func.call", [*consts, *operands], out_types, {"callee": f"@{fname}"})

    def text(self) -> str:
        attributes = "mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32"  # one device
        header = f"module @{_symbol(self.name)} attributes {{{attributes}}} {{"
        return header + "\n" + "\n".join(self.functions) + "\n}\n"


def _symbol(name: str) -> str:
    """A name MLIR accepts as a symbol: letters, digits and underscores."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name if c not in "<>")
    return cleaned if cleaned and not cleaned[0].isdigit() else "_" + cleaned


def _aval_of(x: Any) -> ShapedArray:
    aval = get_aval(x)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def constant(fb: FunctionBuilder, value: np.ndarray) -> str:
    """A ``stablehlo.constant`` holding ``value``."""
    value = np.asarray(value)
    typ = tensor_type(ShapedArray(value.shape, value.dtype))
    return fb.op1("stablehlo.constant", [], typ, {"value": dense(value)})


# ----------------------------------------------------------------------------------------------
# The interpreter.


class LoweringContext:
    """What a rule needs besides its operands' names: the builder to write into, and the types
    of the equation's inputs and outputs."""

    __slots__ = ("fb", "avals_in", "avals_out")

    def __init__(self, fb: FunctionBuilder, avals_in: Sequence[ShapedArray], avals_out: Sequence[ShapedArray]):
        self.fb, self.avals_in, self.avals_out = fb, avals_in, avals_out

    @property
    def module(self) -> ModuleBuilder:
        return self.fb.module

    def out_type(self, i: int = 0) -> str:
        return tensor_type(self.avals_out[i])


def lower_jaxpr(fb: FunctionBuilder, jaxpr: Jaxpr, consts: Sequence[str], args: Sequence[str]) -> list[str]:
    """Write ``jaxpr``'s equations into ``fb``, its constvars and invars named ``consts`` and
    ``args``; the names of its outputs."""
    env: dict[Var, str] = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))

    def read(atom: Any) -> str:
        return constant(fb, atom.val) if type(atom) is Literal else env[atom]

    for eqn in jaxpr.eqns:
        avals_in = [v.aval for v in eqn.invars]
        rule = lowering_rules.get(eqn.primitive)
        if eqn.primitive in physical_rules and any(dtypes.is_key_dtype(a.dtype) for a in avals_in):
            rule = _key_rule(eqn.primitive)  # keys are their words in memory: lower the words' operation
        if rule is None:
            raise NotImplementedError(f"Lowering rule for '{eqn.primitive.name}' not implemented")
        ctx = LoweringContext(fb, avals_in, [v.aval for v in eqn.outvars])
        operands = [read(v) for v in eqn.invars]
        outer, fb.loc = fb.loc, f"{fb.module.name}/{eqn.primitive.name}"
        try:
            outs = rule(ctx, *operands, **eqn.params)
        except Exception as e:
            types = ", ".join(a.str_short() for a in avals_in)
            e.add_note(f"while lowering '{eqn.primitive.name}' on {types} in {fb.module.name}")
            raise
        finally:
            fb.loc = outer
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else (outs,)))
    return [read(v) for v in jaxpr.outvars]


def lower_fun(
    fun: Callable[..., Any], multiple_results: bool = False, physical_inputs: bool = False, function: str = ""
) -> Any:
    """A lowering rule that stages ``fun`` (a function of the operands, with the primitive's
    params as keywords) on the equation's input types and lowers the jaxpr it makes in place,
    or, given a ``function`` name, as a private function that the rule calls.

    For primitives XLA has no operation for, but didax can write with other primitives: a
    special function, the Threefry hash, a sampler. With ``physical_inputs``, key arrays come in
    as their uint32 words."""

    def rule(ctx: LoweringContext, *args: str, **params: Any) -> Any:
        in_avals = [physical(a) if physical_inputs else a for a in ctx.avals_in]

        def flat(*xs: Any) -> list[Any]:
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]

        closed, _ = trace_to_jaxpr(flat, [ShapedArray(a.shape, a.dtype, a.weak_type) for a in in_avals])
        if function:
            outs = ctx.module.call(ctx.fb, function, closed, args)
            return outs if multiple_results else outs[0]
        consts = [constant(ctx.fb, np.asarray(c)) for c in closed.consts]
        outs = lower_jaxpr(ctx.fb, closed.jaxpr, consts, args)
        return outs if multiple_results else outs[0]

    return rule


def _key_rule(prim: Primitive) -> Any:
    """The lowering of ``prim`` on key arrays: its physical rule, which applies it to the keys'
    words (with the words' trailing axis added to its parameters), lowered like any function."""

    def rule(ctx: LoweringContext, *args: str, **params: Any) -> Any:
        key_shape = next(a.dtype._impl.key_shape for a in ctx.avals_in if dtypes.is_key_dtype(a.dtype))

        def on_words(*words: Any, **params: Any) -> Any:
            return physical_rules[prim](key_shape, *words, **params)

        return lower_fun(on_words, prim.multiple_results, physical_inputs=True)(ctx, *args, **params)

    return rule


def lower_module(name: str, closed: ClosedJaxpr, donated: Sequence[bool] = (), platform: str = "cpu") -> str:
    """The StableHLO text of a module whose ``main`` computes ``closed`` (taking its constants
    first, then its inputs; those marked in ``donated`` may be reused for outputs), for devices
    of ``platform``."""
    module = ModuleBuilder(f"jit_{name}", platform)
    module.add_function("main", closed, public=True, arg_attrs=aliasing(closed, donated))
    return module.text()


def aliasing(closed: ClosedJaxpr, donated: Sequence[bool]) -> list[str | None]:
    """For each donated input, the first output of its type not taken yet: XLA may write that
    output into the input's buffer (``tf.aliasing_output``). A donated input no output can reuse
    is left alone, with JAX's warning."""
    out_types = [tensor_type(a) for a in closed.out_avals]
    taken: set[int] = set()
    attrs: list[str | None] = []
    unusable = []
    for aval, d in zip(closed.in_avals, donated):
        match = None
        if d:
            match = next((i for i, t in enumerate(out_types) if i not in taken and t == tensor_type(aval)), None)
            if match is None:
                unusable.append(aval.str_short())
            else:
                taken.add(match)
        attrs.append(None if match is None else f"{{tf.aliasing_output = {match} : i32}}")
    if unusable:
        warnings.warn(f"Some donated buffers were not usable: {', '.join(unusable)}.", stacklevel=4)
    return attrs
