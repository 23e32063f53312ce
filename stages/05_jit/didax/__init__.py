"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 05, jit: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special),
stage 02's forward-mode automatic differentiation (``didax.jvp``), stage 03's batching
(``didax.vmap``, ``didax.jacfwd``), stage 04's staging (``didax.make_jaxpr``, staged control
flow), and compilation: ``didax.jit`` lowers a staged function to StableHLO and has XLA compile
and run it, through jaxlib (didax/xla.py is the one module that uses it).

Where rules go. A primitive is declared in the module of its family (lax/elementwise.py,
lax/structural.py, prng.py, ...) with what defines it: its evaluation on NumPy values and its
shape and dtype rules. How a structural primitive acts on key arrays' words is a rule in
``lax.standard.physical_rules``, written beside the primitive.
Each interpreter a later stage adds keeps its rules in a table keyed by primitive, in its own
module, and the rules for lax's and prng's primitives are written there, below the table, by
lax's families: ``ad.jvp_rules`` (stage 02), ``batching.batching_rules`` (03),
``jaxpr.pp_eqn_rules`` (04, how an equation prints; staging's abstract evaluation is the
primitive's own shape and dtype rules), ``lowering.core.lowering_rules`` (05, in lowering/, one
module per family). A primitive whose module sits above an interpreter's (it imports it)
registers its rule for that interpreter beside itself instead, as the interpreter cannot import
it: random_gamma's batching rule, in random/distributions.py (its evaluation is vmap of a
sampler), and jit_p's jvp, batching and lowering rules, in jit.py (its printing rule is in
jaxpr.py, whose table is keyed by the primitive's name).
"""

from . import ad, batching, dtypes, errors, extend, jaxpr, lax, nn, numpy, random, scipy, staging, tree, tree_util
from .ad import jvp
from .batching import vmap
from .array import Array
from .config import config, disable_jit, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray, typeof
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
    "typeof",
    "vmap",
]
