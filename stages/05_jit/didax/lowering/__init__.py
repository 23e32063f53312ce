"""Lowering jaxprs to StableHLO (stage 05): the interpreter in ``core``, and one module of rules
per family of primitives, each filling ``lowering_rules``."""

from . import elementwise, reductions, slicing, sorting, structural
from .core import LoweringContext, lower_jaxpr, lower_module, lowering_rules, tensor_type

__all__ = ["LoweringContext", "elementwise", "lower_jaxpr", "lower_module", "lowering_rules", "reductions", "slicing", "sorting", "structural", "tensor_type"]
