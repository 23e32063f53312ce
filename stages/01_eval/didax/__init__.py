"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 01, eval:
primitives and the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special.

Where rules go. A primitive is declared in the module of its family (lax/elementwise.py,
lax/structural.py, prng.py, ...) with what defines it: its evaluation on NumPy values and its
shape and dtype rules. How a structural primitive acts on key arrays' words is a rule in
``lax.standard.physical_rules``, written beside the primitive.
"""

from . import dtypes, errors, lax, nn, numpy, random, scipy, tree, tree_util
from .array import Array
from .config import config, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray, typeof

__version__ = "0.1.0"
__capabilities__ = ("eval",)

__all__ = [
    "Array",
    "ConcreteArray",
    "ShapedArray",
    "config",
    "dtypes",
    "enable_x64",
    "errors",
    "lax",
    "nn",
    "numpy",
    "numpy_dtype_promotion",
    "random",
    "scipy",
    "tree",
    "tree_util",
    "typeof",
]
