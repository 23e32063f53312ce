"""Stage 02, pytrees under jvp: containers in and out, auxiliary results, integer inputs.

Run from the stage folder: python -m examples.jvp_pytrees
"""

import numpy as np

import didax
import didax.numpy as jnp
from didax import tree_util

# float64, so that the numbers are the ones autodidax prints.
didax.config.update("jax_enable_x64", True)


def as_floats(tree):
    """The tree with every array leaf as a Python float, so that it prints like autodidax's."""
    return tree_util.tree_map(float, tree)


def f(x):
    y = jnp.sin(x) * 2.0
    z = -y + x
    return {"hi": z, "there": [x, y]}


print("A function may return any pytree: the tangents come back in the same structure (dict keys")
print("sorted, as tree_flatten sorts them):")
y, y_dot = didax.jvp(f, (3.0,), (1.0,))
print(as_floats(y))
print(as_floats(y_dot))


def g(x):
    y = 3.0 * jnp.sin(x) * jnp.cos(x)
    z = x * x + y * y
    return {"Rick": z, "Astley": [x, y]}


print()
print("The same with a tangent of 1.5 instead of 1.0:")
y, y_dot = didax.jvp(g, (1.0,), (1.5,))
print(as_floats(y))
print(as_floats(y_dot))


def loss(params, x):
    return jnp.sum(jnp.tanh(params["w"] * x + params["b"]))


print()
print("Inputs are pytrees too: primals and tangents must have the same structure. Here the tangent")
print("moves w alone, and x is held fixed by a zero tangent:")
params = {"w": jnp.array([1.0, -2.0]), "b": 0.5}
direction = {"w": jnp.array([1.0, 0.0]), "b": 0.0}
x = jnp.array([0.3, 0.7])
print("directional derivative of the loss:", float(didax.jvp(loss, (params, x), (direction, jnp.zeros(2)))[1]))
try:
    didax.jvp(loss, (params, x), ([1.0, 0.0], jnp.zeros(2)))
except TypeError as err:
    print("A tangent of another structure is a TypeError (intended):", str(err).split(";")[1].strip())


def with_aux(x):
    y = jnp.sin(x)
    return y * y, {"sin": y, "note": "not differentiated"}


print()
print("With has_aux=True the function returns (output, aux); aux comes back as it is, undifferentiated:")
y, y_dot, aux = didax.jvp(with_aux, (1.0,), (1.0,), has_aux=True)
print(float(y), float(y_dot), {k: v if isinstance(v, str) else float(v) for k, v in aux.items()})

print()
print("An integer input has a tangent of dtype float0, which holds no numbers: it cannot move.")
n_dot = np.zeros((), didax.dtypes.float0)
y, y_dot = didax.jvp(lambda x, n: x**n, (2.0, 3), (1.0, n_dot))
print("d/dx x**n at x = 2.0, n = 3:", float(y_dot))
_, i_dot = didax.jvp(lambda n: n * 2, (3,), (n_dot,))
print("an integer output's tangent is float0 too:", i_dot.dtype == didax.dtypes.float0, "shape", i_dot.shape)
didax.config.update("jax_enable_x64", False)
