"""The core: abstract values, primitives, the trace stack of interpreters, and ``bind``, which
hands each primitive application to the right interpreter.

Stage 01 introduced it with a single interpreter, evaluation; every later stage adds an
interpreter by subclassing ``Trace`` and ``Tracer`` and pushing a ``MainTrace`` on the stack.
Read it top to bottom: what an interpreter may know about a value, what a primitive is, the
stack, traces and tracers, then ``bind``, then the evaluation interpreter at the bottom.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import dtypes
from .errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

# ----------------------------------------------------------------------------------------------
# Abstract values: what an interpreter may know about a value without seeing its numbers.


class ShapedArray:
    """An array's shape, dtype and weak_type, and nothing about its contents. The dtype is a
    NumPy dtype, or an extended one (a key array's ``key<fry>``, see dtypes.py)."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False) -> None:
        self.shape = tuple(shape)
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.weak_type = bool(weak_type)
        # Hashed once: interpreters key their caches by avals, and look them up on every operation.
        self._hash = hash((self.shape, self.dtype, self.weak_type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def str_short(self) -> str:
        """``float32[3]``, the type without its weak mark (``float0[3]`` for an integer's tangent, whose
        NumPy name is 'void')."""
        name = "float0" if self.dtype == dtypes.float0 else self.dtype.name
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other)
            and self.shape == other.shape  # type: ignore[attr-defined]
            and self.dtype == other.dtype  # type: ignore[attr-defined]
            and self.weak_type == other.weak_type  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self) -> str:
        """``~float32[]``: JAX marks a weak type with a tilde where it prints a type in short."""
        return f"{'~' if self.weak_type else ''}{self.str_short()}"


class ConcreteArray(ShapedArray):
    """A ShapedArray that also knows its value, so Python control flow on it can work."""

    __slots__ = ("val",)

    def __init__(self, val: np.ndarray, weak_type: bool = False) -> None:
        # Every Array gets one: set the fields directly, they need no checking.
        self.shape, self.dtype, self.weak_type, self.val = val.shape, val.dtype, weak_type, val

    # Two concrete values are only interchangeable when they are the same object.
    __eq__ = object.__eq__  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of anything didax computes with: a tracer's, an Array's, or a new
    ConcreteArray for a NumPy value or Python scalar."""
    aval = getattr(x, "aval", None)  # tracers and Arrays carry one
    if aval is not None:
        return aval
    value, weak_type = canonicalize_value(x)
    return ConcreteArray(value, weak_type)


def typeof(x: Any) -> ShapedArray:
    """``jax.typeof``: the type of ``x``, its shape, dtype and weak type (never its value)."""
    aval = get_aval(x)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def to_concrete_value(x: Any) -> np.ndarray | None:
    """The value of ``x`` if it is known now, else None.

    Read from the abstract value, never from the class of ``x``: a tracer of stage 02's forward
    mode over a known number still knows it, and code that needs a Python value (``arange(n)``,
    ``x ** 3``, an index) keeps working under that transformation.
    """
    aval = get_aval(x)
    return aval.val if isinstance(aval, ConcreteArray) else None


def canonicalize_value(x: Any) -> tuple[np.ndarray, bool]:
    """Turn a Python scalar or NumPy value into (a NumPy array of the canonical dtype, weak_type).

    The array is didax's own: a NumPy array is copied, so nothing the user later does to it can
    change a didax value.
    """
    if type(x) in dtypes.PYTHON_SCALAR_DTYPES:
        dtype = dtypes.canonicalize_dtype(type(x))
        return dtypes.python_scalar_to_numpy(x, dtype), type(x) is not bool
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype not in dtypes.SUPPORTED_DTYPES:
            raise TypeError(
                f"Value {x!r} with dtype {x.dtype} is not a valid didax array type. "
                "Only arrays of numeric types are supported."
            )
        return np.array(x, dtypes.canonicalize_dtype(x.dtype), copy=True), False
    raise TypeError(
        f"Value {x!r} of type {type(x).__name__} is not a valid didax type: expected an array, "
        "a NumPy value or a Python scalar. Convert it with didax.numpy.asarray first."
    )


# ----------------------------------------------------------------------------------------------
# Primitives: the operations every interpreter must know. A primitive carries its evaluation
# rule (``impl``) and its abstract evaluation; every other interpreter keeps a table of rules.
# By convention arrays are passed positionally and static parameters as keywords:
# ``reduce_sum_p.bind(x, axes=(0,))``.


class Primitive:
    """An operation with a name and rules, applied with ``bind``: every interpreter has a rule for it.

    A primitive computes nothing itself. ``bind`` hands it to the interpreter on top of the trace
    stack, which applies its own rule: evaluation (``def_impl``, with the shape and dtype rule beside
    it), then, in later stages, the JVP, batching, staging and lowering rules, each in its table.
    """

    multiple_results = False

    def __init__(self, name: str) -> None:
        self.name = name

    def bind_with_trace(self, trace: Trace, args: Sequence[Any], params: dict) -> Any:
        """Run this primitive in ``trace``'s interpreter. Primitives that need another kind of
        dispatch (later stages' call-like and custom-rule primitives) override this, not bind."""
        tracers = [full_raise(trace, arg) for arg in args]
        out = trace.process_primitive(self, tracers, params)
        # full_lower, written out: one call less on every operation.
        if self.multiple_results:
            return [x.full_lower() if isinstance(x, Tracer) else x for x in out]
        return out.full_lower() if isinstance(out, Tracer) else out

    def def_impl(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.abstract_eval = rule
        return rule

    def impl(self, *args: Any, **params: Any) -> Any:
        raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")

    def abstract_eval(self, *avals: ShapedArray, **params: Any) -> Any:
        raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented")

    def __repr__(self) -> str:
        return self.name


# ----------------------------------------------------------------------------------------------
# The trace stack. Each active transformation owns one MainTrace; its level is its place on
# the stack, so a value's tracer type tells which transformation it belongs to.


class MainTrace(NamedTuple):
    level: int
    trace_type: type[Trace]
    global_data: Any


class TraceState(threading.local):
    """The only global state of didax: the stack of active interpreters, one per thread."""

    def __init__(self) -> None:
        bottom = MainTrace(0, EvalTrace, None)
        self.trace_stack: list[MainTrace] = [bottom]
        self.eval_trace = EvalTrace(bottom)  # made once: every eager operation uses it


@contextlib.contextmanager
def new_main(trace_type: type[Trace], global_data: Any = None) -> Iterator[MainTrace]:
    """Push a new interpreter on the stack for the duration of a ``with`` block."""
    stack = trace_state.trace_stack
    main = MainTrace(len(stack), trace_type, global_data)
    stack.append(main)
    try:
        yield main
    finally:
        stack.pop()


def is_alive(main: MainTrace) -> bool:
    """Whether ``main``'s transformation is still running (its level still holds it)."""
    stack = trace_state.trace_stack
    return main.level < len(stack) and stack[main.level] is main


# ----------------------------------------------------------------------------------------------
# Traces and tracers. A Trace is an interpreter at one level of the stack; a Tracer is a value
# that interpreter is following. ``pure`` boxes a constant from outside every transformation;
# ``lift`` boxes a tracer of a lower level, so that an inner transformation can follow a value
# an outer one is already following.


class Trace:
    """An interpreter at one level of the stack: it boxes values in its tracers and runs rules."""

    def __init__(self, main: MainTrace) -> None:
        self.main = main

    def pure(self, val: Any) -> Any:
        """Box a value from outside any transformation (a constant)."""
        raise NotImplementedError

    def lift(self, val: Any) -> Any:
        """Box a tracer of a lower-level interpreter."""
        raise NotImplementedError

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        raise NotImplementedError


class Tracer:
    """A value seen by an interpreter. Subclasses hold what their interpreter tracks.

    The Python operators (``+``, ``*``, ``[]``, ``.T``, ``.sum()`` ...) are installed by
    didax/numpy/array_methods.py, because they follow NumPy's broadcasting and promotion.
    A tracer converts to a Python value only when its abstract value is concrete; otherwise
    Python asked for something that is not known yet, and it gets one of JAX's tracer errors.
    """

    _trace: Trace
    __array_priority__ = 1000  # NumPy defers to us: np.ones(3) + tracer calls tracer.__radd__

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def full_lower(self) -> Any:
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    # JAX 0.10.2 answers bool, int, index and item() from a known value (a jvp of a number), but
    # float, complex and tolist() never: those raise even then.

    def __bool__(self) -> bool:
        value = to_concrete_value(self)
        if value is not None:
            return bool(value)
        if self.size != 1:  # NumPy's error comes first, as in JAX
            raise ValueError(
                "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is "
                "not empty." if self.size == 0 else
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
            )  # fmt: skip
        raise TracerBoolConversionError(self)

    def __int__(self) -> int:
        value = to_concrete_value(self)
        if value is not None:
            return int(value)
        raise self._scalar_conversion_error(int)

    def __float__(self) -> float:
        raise self._scalar_conversion_error(float)

    def __complex__(self) -> complex:
        raise self._scalar_conversion_error(complex)

    def _scalar_conversion_error(self, fun: type) -> Exception:
        if self.shape:
            return TypeError(
                "Only scalar arrays can be converted to Python scalars; got a traced array of shape "
                f"{self.shape}."
            )
        name = fun.__name__
        return ConcretizationTypeError(
            self,
            f"The problem arose with the `{name}` function. If trying to convert the data type of a value, "
            f"try using `x.astype({name})` or `jnp.array(x, {name})` instead.\n",
        )

    def __index__(self) -> int:
        value = to_concrete_value(self)
        if value is not None:
            return value.__index__()  # NumPy's TypeError for a float or an array of many elements
        if self.shape or getattr(self.dtype, "kind", "") not in "iu":
            raise TypeError(
                f"Only integer scalar arrays can be converted to a scalar index; got a traced "
                f"{self.aval.str_short()} array."
            )
        raise TracerIntegerConversionError(self)

    def item(self, *args: int) -> Any:
        """The element at ``args`` as a Python scalar: only when the value is known."""
        value = to_concrete_value(self)
        if value is None:
            raise ConcretizationTypeError(self, "This occurred in the item() method of didax.Array.\n")
        return value.item(*args)

    def tolist(self) -> Any:
        called = f"The tolist() method was called on traced array with shape {self.aval.str_short()}.\n"
        raise ConcretizationTypeError(self, called)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TracerArrayConversionError(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        # JAX's default, ``MyTracer<~float32[]>``; each interpreter's tracer prints in its own words
        # (stage 04's ``JitTracer(float32[3])``). str() and f-strings print the same.
        return f"{type(self).__name__}<{self.aval}>"


# ----------------------------------------------------------------------------------------------
# bind: apply a primitive through the interpreter of the highest-level trace among its inputs.
# Dispatch follows data dependence: an interpreter sees exactly the operations applied to its
# own tracers (or to values that depend on them), and nothing else.


def bind(prim: Primitive, *args: Any, **params: Any) -> Any:
    """Apply ``prim`` to ``args``: arrays positionally, static parameters as keywords."""
    return prim.bind_with_trace(find_top_trace(args), args, params)


Primitive.bind = bind  # type: ignore[attr-defined]  # sin_p.bind(x) is bind(sin_p, x)


def find_top_trace(xs: Sequence[Any]) -> Trace:
    """The interpreter that must handle an operation on ``xs``: the highest level among them.

    With no tracer among ``xs`` that is the evaluation interpreter at the bottom of the stack.
    A tracer whose transformation has ended has escaped it: that is an error, not a constant.
    """
    top: Tracer | None = None
    for x in xs:
        if isinstance(x, Tracer):
            if not is_alive(x._trace.main):
                raise UnexpectedTracerError(x)
            if top is None or x._trace.main.level > top._trace.main.level:
                top = x
    if top is None:
        return trace_state.eval_trace
    return top._trace.main.trace_type(top._trace.main)


def full_raise(trace: Trace, val: Any) -> Any:
    """Box ``val`` as a tracer of ``trace``, which must be at its level or above."""
    if not isinstance(val, Tracer):
        return trace.pure(val)
    level = trace.main.level
    if val._trace.main is trace.main:
        return val
    if val._trace.main.level < level:
        return trace.lift(val)
    if val._trace.main.level > level:
        raise AssertionError(
            f"Can't lift level {val._trace.main.level} to {level}: a tracer of an inner transformation "
            "reached an outer one (this is a bug in an interpreter, not in your program)."
        )
    raise AssertionError(f"Different traces at same level: {val._trace}, {trace}.")


def full_lower(val: Any) -> Any:
    """Unbox a tracer that carries nothing more than its value (e.g. an eval result)."""
    if isinstance(val, Tracer):
        return val.full_lower()
    return val


# ----------------------------------------------------------------------------------------------
# The evaluation interpreter, at the bottom of every stack: it runs each primitive's ``impl``.
# It has no tracers of its own: its values are plain Arrays, NumPy values and Python scalars.


class EvalTrace(Trace):
    def pure(self, val: Any) -> Any:
        return val

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        return primitive.impl(*tracers, **params)


trace_state = TraceState()
