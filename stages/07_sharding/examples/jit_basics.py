"""jit: stage once per type signature, lower to StableHLO, compile with XLA, run; JAX's jit tutorial's
examples (autodidax's part 4), the module XLA is given, and the cache at work.

Run from the stage folder: ``../../.venv/bin/python -m examples.jit_basics``.
"""

import numpy as np

import didax
import didax.numpy as jnp


def main() -> None:
    didax.config.update("jax_enable_x64", True)  # JAX's jit tutorial computes in float64

    @didax.jit
    def f(x, y):
        print("tracing!")
        return jnp.sin(x) * jnp.cos(y)

    print("f(3., 4.) =", float(f(3.0, 4.0)))  # 'tracing!' prints the first time
    print("f(4., 5.) =", float(f(4.0, 5.0)))  # a cache hit: no tracing
    print("jit(sum)([1., 2., 3.]) =", float(didax.jit(lambda x: jnp.sum(x, axis=0))(np.array([1.0, 2.0, 3.0]))))

    def g(x):
        return -(jnp.sin(x) * 2.0) + x

    def deriv(f):
        return lambda x: didax.jvp(f, (x,), (1.0,))[1]

    print("deriv(deriv(g))(3.)      =", float(deriv(deriv(g))(3.0)))
    print("jit(deriv(deriv(g)))(3.) =", float(didax.jit(deriv(deriv(g)))(3.0)))

    jg = didax.jit(g)
    y, ydot = didax.jvp(jg, (3.0,), (1.0,))
    print("jvp(jit(g), (3.,), (1.,)) =", float(y), float(ydot))
    print("vmap(jit(g))(arange(3.)) =", np.asarray(didax.vmap(jg)(np.arange(3.0))))

    print("\nThe jaxpr of jit(g) inside another function: one equation holding g's jaxpr")
    print(didax.make_jaxpr(lambda x: jg(x) * 2.0)(3.0))

    didax.config.update("jax_enable_x64", False)
    print("\nThe StableHLO module XLA compiles for jit(g) on a float32[3]:")
    print(didax.jit(g).lower(jnp.ones(3)).as_text())

    print("A Python `if` on a traced value is an error inside jit:")
    try:
        didax.jit(lambda x: x if x > 0 else -x)(1.0)
    except didax.errors.TracerBoolConversionError as e:
        print("  TracerBoolConversionError:", str(e).splitlines()[0])
    absolute = didax.jit(lambda x: x if x > 0 else -x, static_argnums=0)
    print("static_argnums makes it a Python value:", float(absolute(-2.0)))

    out = didax.jit(lambda x: x * 2.0)(jnp.arange(3.0))
    print("\nA result lives on the device:", repr(out), "on", out.device)


if __name__ == "__main__":
    main()
