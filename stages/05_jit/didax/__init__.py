"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 04, jaxprs: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special),
stage 02's forward-mode automatic differentiation (``didax.jvp``), stage 03's batching
(``didax.vmap``, ``didax.jacfwd``), and staging: ``didax.make_jaxpr`` records a function as a
jaxpr, and lax's control flow (``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``)
stages its branches and bodies into primitives that every interpreter can run.
"""

from . import ad, batching, dtypes, errors, extend, jaxpr, lax, nn, numpy, random, scipy, staging, tree, tree_util
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
    "extend",
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
