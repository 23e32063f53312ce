"""didax: JAX's core rebuilt from scratch, one idea per stage. This is stage 03, vmap: stage 01
(primitives, the trace stack with an evaluation interpreter on NumPy, JAX's dtypes and
promotion, pytrees, didax.lax, didax.numpy, didax.random, didax.nn and didax.scipy.special),
stage 02's forward-mode automatic differentiation, ``didax.jvp``, and batching: ``didax.vmap``
and ``didax.jacfwd``, which is vmap of jvp.

Where rules go. A primitive is declared in the module of its family (lax/elementwise.py,
lax/structural.py, prng.py, ...) with what defines it: its evaluation on NumPy values and its
shape and dtype rules. How a structural primitive acts on key arrays' words is a rule in
``lax.standard.physical_rules``, written beside the primitive.
Each interpreter a later stage adds keeps its rules in a table keyed by primitive, in its own
module, and the rules for lax's and prng's primitives are written there, below the table, by
lax's families: ``ad.jvp_rules`` (stage 02), ``batching.batching_rules`` (03). A primitive whose
module sits above an interpreter's (it imports it) registers its rule for that interpreter beside
itself instead, as the interpreter cannot import it: random_gamma's batching rule, in
random/distributions.py.
"""

from . import ad, batching, dtypes, errors, lax, nn, numpy, random, scipy, tree, tree_util
from .ad import jvp
from .batching import vmap
from .array import Array
from .config import config, enable_x64, numpy_dtype_promotion
from .core import ConcreteArray, ShapedArray, typeof
from .jacobians import jacfwd

__version__ = "0.1.0"
__capabilities__ = ("eval", "jvp", "vmap")

__all__ = [
    "Array",
    "ConcreteArray",
    "ShapedArray",
    "config",
    "dtypes",
    "enable_x64",
    "errors",
    "jacfwd",
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
    "vmap",
]
