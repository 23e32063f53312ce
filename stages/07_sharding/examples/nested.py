"""Stage 02, nesting: jvp of jvp gives higher derivatives, and each level keeps its own tangents.

Run from the stage folder: python -m examples.nested
"""

import didax
import didax.numpy as jnp

# float64, so that the numbers are the ones autodidax prints.
didax.config.update("jax_enable_x64", True)


def deriv(f):
    """The derivative of a function of one scalar: jvp with tangent 1.0, second result."""
    return lambda x: didax.jvp(f, (x,), (1.0,))[1]


print("Derivatives of sin at 3.0, each one jvp of the one before: cos, -sin, -cos, sin.")
f = jnp.sin
for order in range(1, 5):
    f = deriv(f)
    print(f"order {order}:", f(3.0))

print()
print("Each jvp pushes its interpreter on the trace stack, one level above the last; a tracer")
print("knows its level, and an operation goes to the highest level among its inputs:")


def outer(x):
    def inner(y):
        print("  in inner: x is a tracer of level", x._trace.main.level, "and y of level", y._trace.main.level)
        return x * y * y

    return deriv(inner)(3.0)  # d/dy (x * y * y) = 2 * x * y


print("d/dx d/dy (x * y * y) at y = 3.0 is 2 * y =", deriv(outer)(5.0))

print()
print("Perturbation confusion: f(x) = x * (d/dy (x + y) at y = 2.0) = x * 1, so f'(x) = 1.")
print("If the inner jvp mistook x's tangent for its own, d/dy (x + y) would be 2 and f'(x) = 2.")


def f_confusable(x):
    return x * deriv(lambda y: x + y)(2.0)


print("f'(1.5) =", deriv(f_confusable)(1.5))

print()
print("The inner function may use x, a value of the outer level, freely: d/dx [x * d/dy (x * y)]")
print("= d/dx [x * x] = 2 * x, which at x = 3.0 is", deriv(lambda x: x * deriv(lambda y: x * y)(1.0))(3.0))
didax.config.update("jax_enable_x64", False)
