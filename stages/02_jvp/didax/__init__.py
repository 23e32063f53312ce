"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 02, jvp: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special)
and forward-mode automatic differentiation, ``didax.jvp``.

Where rules go. A primitive is declared in the module of its family (lax/elementwise.py,
lax/structural.py, prng.py, ...) with what defines it: its evaluation on NumPy values and its
shape and dtype rules. How a structural primitive acts on key arrays' words is a rule in
``lax.standard.physical_rules``, written beside the primitive.
Each interpreter a later stage adds keeps its rules in a table keyed by primitive, in its own
module, and the rules for lax's and prng's primitives are written there, below the table, by
lax's families: ``ad.jvp_rules`` (stage 02).
"""

from . import ad, dtypes, errors, lax, nn, numpy, random, scipy, tree, tree_util
from .ad import jvp
from .array import Array
from .config import config, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray, typeof

__version__ = "0.1.0"
__capabilities__ = ("eval", "jvp")

__all__ = [
    "Array",
    "ConcreteArray",
    "ShapedArray",
    "config",
    "dtypes",
    "enable_x64",
    "errors",
    "jvp",
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
