"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 02, jvp: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special)
and forward-mode automatic differentiation, ``didax.jvp``.
"""

from . import ad, dtypes, errors, lax, nn, numpy, random, scipy, tree, tree_util
from .ad import jvp
from .array import Array
from .config import config, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray

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
]
