"""The jaxpr data structures and primitives, under the names ``jax.extend.core`` gives them, for
custom interpreters (see the chapter's inverse and counting examples). Stage 04 introduced it."""

from ..core import Primitive
from ..errors import JaxprTypeError
from ..jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, check_jaxpr, jaxpr_as_fun

__all__ = [
    "ClosedJaxpr",
    "Jaxpr",
    "JaxprEqn",
    "JaxprTypeError",
    "Literal",
    "Primitive",
    "Var",
    "check_jaxpr",
    "jaxpr_as_fun",
]
