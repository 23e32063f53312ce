"""Stage 03, vmap: a function written for one example, run on a whole batch in one pass.

Run from the stage folder: python -m examples.vmap_basics
"""

import numpy as np

import didax
import didax.numpy as jnp


def add_one(x):
    return x + 1.0


print("Autodidax's first vmap: add_one mapped over axis 0 of arange(3.0):")
print("vmap(add_one, (0,))(arange(3.0)) =", didax.vmap(add_one, (0,))(jnp.arange(3.0)))

print()
print("in_axes=None marks an argument shared by every example; it is not traced at all.")
print("Here every row of xs is scaled by the same vector w:")
xs = jnp.arange(6.0).reshape(3, 2)
w = jnp.array([10.0, 100.0])
print(didax.vmap(lambda x, w: x * w, in_axes=(0, None))(xs, w))

print()
print("in_axes may name any axis, negative ones too: map over the columns of xs (axis 1, or -1):")
print("sum of each column =", didax.vmap(jnp.sum, in_axes=1)(xs), "=", didax.vmap(jnp.sum, in_axes=-1)(xs))

print()
print("out_axes says where the batch axis goes in the result: 1 stacks the examples as columns.")
print(didax.vmap(lambda x: x * 2.0, out_axes=1)(xs))

print()
print("in_axes is a prefix of the arguments' pytree: one entry per argument, and inside a dict")
print("one entry per key (or one entry for the whole dict). Here the weights are mapped and the")
print("bias is shared:")
params = {"w": jnp.array([1.0, 2.0, 3.0]), "b": jnp.array(0.5)}
print(didax.vmap(lambda p, x: p["w"] * x + p["b"], in_axes=({"w": 0, "b": None}, None))(params, 2.0))

print()
print("With nothing mapped, axis_size gives the batch size; an output that does not depend on the")
print("batch is broadcast along it:")
print(didax.vmap(lambda: jnp.array([7.0, 8.0]), axis_size=3)())

print()
print("Sizes that disagree are an error that lists each argument's size (the error is intended):")
try:
    didax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
except ValueError as err:
    print("ValueError:", err)

print()
print("The result equals a Python loop over the examples, stacked:",
      np.array_equal(didax.vmap(jnp.sum, in_axes=1)(xs), np.stack([np.sum(xs[:, i]) for i in range(2)])))
