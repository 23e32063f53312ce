"""Lowering jaxprs to StableHLO (stage 05): the interpreter in ``core``, and one module of rules
per family of primitives, each filling ``lowering_rules``."""

from . import control_flow, convolution, elementwise, fourier, indexing, linalg, random, reductions, slicing, sorting
from . import special, structural
from .core import LoweringContext, lower_jaxpr, lower_module, lowering_rules, tensor_type

__all__ = [
    "LoweringContext", "control_flow", "convolution", "elementwise", "fourier", "indexing", "linalg", "lower_jaxpr",
    "lower_module", "lowering_rules", "random", "reductions", "slicing", "sorting", "special", "structural", "tensor_type",
]  # fmt: skip
