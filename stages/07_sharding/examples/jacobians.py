"""Stage 03, jacfwd: whole Jacobians from forward mode, a jvp per input direction, all in one vmap.

Run from the stage folder: python -m examples.jacobians
"""

import didax
import didax.numpy as jnp

# float64, so that the numbers are the ones autodidax prints.
didax.config.update("jax_enable_x64", True)

print("Autodidax's Jacobian: jacfwd(sin) at arange(3.0) is diag(cos(x)). Its off-diagonal entries")
print("are cos(x_i) * 0, so the row of an x_i with cos(x_i) < 0 holds negative zeros:")
print(repr(didax.jacfwd(jnp.sin)(jnp.arange(3.0))))
# Autodidax prints the transpose of this, with the negative zeros in the last column: its vmap
# stacks the columns J @ e_j along axis 0. didax follows JAX, whose jacfwd puts the input's axis
# last, so entry [i, j] is d sin(x)[i] / d x[j].

print()
print("Inputs and outputs may be pytrees. For each output leaf, the Jacobian holds one array per")
print("input leaf, of shape output.shape + input.shape:")


def model(p, x):
    return {"y": jnp.tanh(p["w"] * x + p["b"]), "total": jnp.sum(p["w"] * x)}


p = {"w": jnp.array([1.0, -0.5]), "b": jnp.array(0.25)}
jac = didax.jacfwd(model)(p, jnp.array([0.5, 2.0]))
for out_key in sorted(jac):
    for in_key in sorted(jac[out_key]):
        print(f"d {out_key} / d {in_key}: shape {jac[out_key][in_key].shape}")
        print(jac[out_key][in_key])

print()
print("jacfwd of jacfwd is the Hessian. For f(x) = x0**2 * x1 + sin(x1), at x = (1, 2):")


def f(x):
    return x[0] ** 2 * x[1] + jnp.sin(x[1])


print("gradient =", didax.jacfwd(f)(jnp.array([1.0, 2.0])))
print("Hessian =")
print(didax.jacfwd(didax.jacfwd(f))(jnp.array([1.0, 2.0])))
didax.config.update("jax_enable_x64", False)
