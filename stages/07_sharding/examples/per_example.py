"""Stage 03, per-example computations: write the function for one example, vmap it over the batch.

Run from the stage folder: python -m examples.per_example
"""

import numpy as np

import didax
import didax.numpy as jnp
from didax import random

# A small linear model, y ≈ x @ w + b, and a batch of four examples (xs[i], ys[i]).
params = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array(0.25)}
xs = jnp.array([[1.0, 0.0, 2.0], [0.5, 1.5, -1.0], [-2.0, 1.0, 0.0], [3.0, -0.5, 1.0]])
ys = jnp.array([4.0, -2.0, 0.5, 3.5])


def loss(params, x, y):
    """The squared error of one example: x has shape (3,), y is a scalar."""
    return (jnp.dot(x, params["w"]) + params["b"] - y) ** 2


print("Per-example losses: the parameters are shared (None), the examples mapped (axis 0):")
per_example_loss = didax.vmap(loss, in_axes=(None, 0, 0))
print("losses =", per_example_loss(params, xs, ys))


def grad_w_by_jvp(params, x, y):
    """d loss / d w for one example, one jvp per direction of w: the directions are a batch."""
    def along(direction):
        moved = {"w": direction, "b": jnp.zeros(())}
        return didax.jvp(loss, (params, x, y), (moved, jnp.zeros(3), jnp.zeros(())))[1]

    return didax.vmap(along)(jnp.eye(3))


print()
print("Per-example gradients with respect to w, by forward mode: for each example, a jvp along")
print("each of w's three directions. The directions are one vmap, the examples another around it:")
print(didax.vmap(grad_w_by_jvp, in_axes=(None, 0, 0))(params, xs, ys))

print()
print("The same with jacfwd, which is exactly that vmap of jvp, for w and b at once:")
jac = didax.vmap(didax.jacfwd(loss), in_axes=(None, 0, 0))(params, xs, ys)
print("d loss / d w =")
print(jac["w"])
print("d loss / d b =", jac["b"])

print()
print("Per-example dot products: jnp.dot of two vectors, vmapped over rows (no matrix product made):")
a = jnp.arange(12.0).reshape(4, 3)
b = jnp.array([[1.0, 0.0, -1.0], [2.0, 2.0, 2.0], [0.5, 0.0, 0.5], [-1.0, 1.0, 0.0]])
print("dots =", didax.vmap(jnp.dot)(a, b))
print("each row of a against one shared vector:", didax.vmap(jnp.dot, in_axes=(0, None))(a, jnp.ones(3)))

print()
print("Random numbers for a batch of keys: split one key into four, and vmap random.normal over")
print("them. Each example draws the same bits it would draw alone, as in JAX:")
keys = random.split(random.key(0), 4)
draws = didax.vmap(lambda k: random.normal(k, (2,)))(keys)
print(draws)
loop = np.stack([np.asarray(random.normal(k, (2,))) for k in keys])
print("equal to the Python loop:", np.array_equal(np.asarray(draws), loop))
