"""Stage 01, eval: a primitive is applied with bind, and the eval interpreter runs it on NumPy.

Run from the stage folder: python -m examples.eval_basics
"""

import didax
import didax.numpy as jnp
from didax import core, lax

# Autodidax's first program, in float64 as autodidax computes it.
didax.config.update("jax_enable_x64", True)


def f(x):
    return -(jnp.sin(x) * 2.0) + x


print("Autodidax's first program, f(x) = -(sin(x) * 2.0) + x, in float64 as autodidax prints it:")
print("f(3.0) =", f(3.0))

# Every operation is a primitive applied with bind; at this stage the only interpreter on the
# trace stack is evaluation, at level 0.
print()
print("The trace stack holds one interpreter, evaluation at level 0: nothing is being transformed.")
print("trace stack:", core.trace_state.trace_stack)
print()
print("lax.sin is sin_p.bind: bind hands the primitive to that interpreter, which runs NumPy's sin.")
print("sin_p.bind(3.0) =", lax.sin_p.bind(3.0))

# Abstract evaluation type-checks every primitive: lax does no promotion.
print()
print("lax does no type promotion, so adding an int8 to an int32 must fail (the error is intended):")
try:
    lax.add(jnp.int8(1), jnp.int32(2))
except TypeError as err:
    print("TypeError, as intended:", err)
didax.config.update("jax_enable_x64", False)
