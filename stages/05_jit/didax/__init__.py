"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 05, jit: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special),
stage 02's forward-mode automatic differentiation (``didax.jvp``), stage 03's batching
(``didax.vmap``, ``didax.jacfwd``), stage 04's staging (``didax.make_jaxpr``, staged control
flow), and compilation: ``didax.jit`` lowers a staged function to StableHLO and has XLA compile
and run it, through jaxlib (didax/xla.py is the one module that uses it).
"""

from . import ad, batching, dtypes, errors, extend, jaxpr, lax, nn, numpy, random, scipy, staging, tree, tree_util
from .ad import jvp
from .batching import vmap
from .array import Array
from .config import config, disable_jit, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray
from .jacobians import jacfwd
from .jit import jit
from .devices import block_until_ready, default_backend, device_get, device_put, devices, local_devices
from .staging import ShapeDtypeStruct, eval_shape, make_jaxpr

__version__ = "0.1.0"
__capabilities__ = ("eval", "jvp", "vmap", "jaxpr", "jit")

__all__ = [
    "Array",
    "block_until_ready",
    "default_backend",
    "device_get",
    "device_put",
    "devices",
    "disable_jit",
    "jit",
    "local_devices",
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
