"""Lowering jaxprs to StableHLO (stage 05): the interpreter in ``core``, and one module of rules
per family of primitives, each filling ``lowering_rules``."""

from . import elementwise, slicing, structural
from .core import LoweringContext, lower_jaxpr, lower_module, lowering_rules, tensor_type

__all__ = ["LoweringContext", "elementwise", "lower_jaxpr", "lower_module", "lowering_rules", "slicing", "structural", "tensor_type"]
