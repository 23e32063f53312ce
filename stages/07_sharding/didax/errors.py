"""The errors didax raises when a traced value is used where Python needs a real one, with JAX's
names and base classes (so ``except TypeError`` catches them as it does in JAX). Stage 01
introduced them; an interpreter that only knows shapes and dtypes (stage 04's tracing) is where
most users first meet them.
"""

from __future__ import annotations

from typing import Any

_DOCS = "https://docs.jax.dev/en/latest/errors.html"


class JAXTypeError(TypeError):
    """Base of the tracer errors that are type errors: a tracer is not the kind of value asked for."""


class JAXIndexError(IndexError):
    """Base of the tracer errors that are index errors."""


class ConcretizationTypeError(JAXTypeError):
    """A Python value was needed (``int(x)``, ``if x:``, a shape) but only the abstract value is known."""

    def __init__(self, tracer: Any, context: str = "") -> None:
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: {_describe(tracer)}.\n"
            f"{context}{_why()}See {_DOCS}#jax.errors.ConcretizationTypeError"
        )


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool(x)``, ``if x:`` or ``while x:`` on a traced value."""

    def __init__(self, tracer: Any) -> None:
        JAXTypeError.__init__(
            self,
            f"Attempted boolean conversion of {_describe(tracer)}.\n{_why()}"
            "Use didax.numpy.where (or lax.select_n) to choose between values without Python control "
            f"flow.\nSee {_DOCS}#jax.errors.TracerBoolConversionError",
        )


class TracerIntegerConversionError(JAXTypeError):
    """``x.__index__()`` on a traced value: it was used as a list index, a range bound, a shape..."""

    def __init__(self, tracer: Any) -> None:
        super().__init__(
            f"The __index__() method was called on {_describe(tracer)}.\n{_why()}"
            f"See {_DOCS}#jax.errors.TracerIntegerConversionError"
        )


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(x)`` on a traced value: NumPy cannot compute with a value that is not there."""

    def __init__(self, tracer: Any) -> None:
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on {_describe(tracer)}.\n"
            "NumPy functions cannot see through a transformation: use the didax.numpy function of the "
            f"same name instead.\nSee {_DOCS}#jax.errors.TracerArrayConversionError"
        )


class UnexpectedTracerError(JAXTypeError):
    """A tracer was used after the transformation that made it had ended (it leaked out, for
    example by being stored in a global or returned through a side channel)."""

    def __init__(self, tracer: Any) -> None:
        super().__init__(
            f"Encountered an unexpected tracer: {_describe(tracer)}, made by a transformation that has "
            "already ended. A tracer is only valid inside the function being transformed; return it "
            "as an output instead of saving it in a global, a list or an attribute.\n"
            f"See {_DOCS}#jax.errors.UnexpectedTracerError"
        )


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask whose values are not known was used as an index: the result's shape would
    depend on the mask's values."""


class JaxprTypeError(TypeError):
    """A jaxpr that is not well typed: a variable read before it is bound or bound twice, or an
    equation whose output types are not what its primitive gives (jaxpr.check_jaxpr)."""


def _describe(tracer: Any) -> str:
    aval = getattr(tracer, "aval", None)
    shape = aval.str_short() if aval is not None else type(tracer).__name__
    return f"traced array with shape {shape}"


def _why() -> str:
    return "The value depends on the input of a function being transformed, so it is not known yet.\n"
