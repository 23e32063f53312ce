"""Stage 02, jvp: a function's value and its derivative along a direction, computed in one pass.

Run from the stage folder: python -m examples.jvp_basics
"""

import didax
import didax.numpy as jnp
from didax import lax

# float64, so that the numbers are the ones autodidax prints.
didax.config.update("jax_enable_x64", True)

print("jvp(f, primals, tangents) returns f(primals) and the derivative of f there, applied to the")
print("tangents. With tangent 1.0, the second result of jvp(sin, ...) is cos(3.0):")
y, y_dot = didax.jvp(jnp.sin, (3.0,), (1.0,))
print("sin(3.0) =", y, "  d/dx sin(x) at 3.0 =", y_dot, "  cos(3.0) =", jnp.cos(3.0))


def f(x):
    return -(jnp.sin(x) * 2.0) + x


print()
print("Autodidax's first program, f(x) = -(sin(x) * 2.0) + x: its value and its slope at 3.0:")
y, y_dot = didax.jvp(f, (3.0,), (1.0,))
print("f(3.0) =", y, "  f'(3.0) =", y_dot)

print()
print("The tangent is a direction: doubling it doubles the result (a JVP is linear in the tangent):")
print("jvp(f, (3.0,), (2.0,))[1] =", didax.jvp(f, (3.0,), (2.0,))[1])


def relu_ish(x):
    if x > 0.0:  # Python control flow on the primal value: jvp follows the branch taken
        return 2.0 * x
    return x


print()
print("Python's `if` sees the primal value, so each call differentiates the branch it takes:")
print("slope at 3.0 =", didax.jvp(relu_ish, (3.0,), (1.0,))[1], "  slope at -3.0 =",
      didax.jvp(relu_ish, (-3.0,), (1.0,))[1])

print()
print("Each primitive has a rule. nextafter has none, as in JAX, so differentiating it fails")
print("(the error is intended):")
try:
    didax.jvp(lambda x: lax.nextafter(x, x + 1.0), (1.0,), (1.0,))
except NotImplementedError as err:
    print("NotImplementedError, as intended:", err)
didax.config.update("jax_enable_x64", False)
