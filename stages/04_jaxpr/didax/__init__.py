"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 03, vmap: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special),
stage 02's forward-mode automatic differentiation, ``didax.jvp``, and batching: ``didax.vmap``
and ``didax.jacfwd``, which is vmap of jvp.
"""

from . import ad, batching, dtypes, errors, jaxpr, lax, nn, numpy, random, scipy, staging, tree, tree_util
from .ad import jvp
from .batching import vmap
from .array import Array
from .config import config, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray
from .jacobians import jacfwd
from .staging import ShapeDtypeStruct, eval_shape, make_jaxpr

__version__ = "0.1.0"
__capabilities__ = ("eval", "jvp", "vmap", "jaxpr")

__all__ = [
    "Array",
    "ConcreteArray",
    "ShapeDtypeStruct",
    "ShapedArray",
    "config",
    "dtypes",
    "enable_x64",
    "errors",
    "eval_shape",
    "jacfwd",
    "jvp",
    "lax",
    "make_jaxpr",
    "nn",
    "numpy",
    "numpy_dtype_promotion",
    "random",
    "scipy",
    "tree",
    "tree_util",
    "vmap",
]
