"""Reverse mode: linearize is jvp with the tangents left unknown, vjp transposes that linear
function, grad is vjp at the cotangent 1; the seeds' values, the linear jaxpr, and its transpose.

Run from the stage folder: ``../../.venv/bin/python -m examples.grad_basics``.
"""

import didax
import didax.numpy as jnp
from didax import lax


def main() -> None:
    didax.config.update("jax_enable_x64", True)  # Autodidax computes in float64

    y, sin_lin = didax.linearize(jnp.sin, 3.0)
    print("linearize(sin, 3.): y =", float(y), " f_lin(1.) =", float(sin_lin(1.0)))

    def f(x):
        return -(jnp.sin(x) * 2.0) + x

    print("grad(f)(3.) =", float(didax.grad(f)(3.0)))
    print("grad(jit(f))(3.) =", float(didax.grad(didax.jit(f))(3.0)))
    print("grad(grad(tanh))(2.) =", float(didax.grad(didax.grad(jnp.tanh))(2.0)))

    _, f_vjp = didax.vjp(lambda x, y: (jnp.sin(x), jnp.cos(y)), 0.5, 1.0)
    x_bar, y_bar = f_vjp((-0.7, 0.3))
    print("vjp of (sin x, cos y) at (0.5, 1.0), cotangent (-0.7, 0.3):", float(x_bar), float(y_bar))

    print("grad through cond:", float(didax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(3.0)))

    print("\nThe linear jaxpr that linearize leaves for f (the residuals are its constants):")
    _, f_lin = didax.linearize(f, 3.0)
    print(didax.make_jaxpr(f_lin)(1.0))
    print("\nIts transpose, as grad runs it, staged: one jit for the known part, one for the transpose")
    print(didax.make_jaxpr(didax.grad(didax.jit(f)))(3.0))


if __name__ == "__main__":
    main()
