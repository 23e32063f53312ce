"""Stage 04, jaxprs: control flow that a transformation can see.

Python's ``if`` and ``while`` need a value, and a staged value has none. lax's control flow stages
its branches and bodies into jaxprs instead, held by one primitive: ``cond`` for ``lax.cond`` and
``lax.switch``. This example prints their jaxprs, checks their values against Python's own
control flow, and differentiates and batches them: the JVP of a cond is a cond of the branches'
JVPs, and a cond whose predicate differs from example to example becomes a ``select_n`` of both
branches, as in JAX.

Run from the stage folder: python -m examples.control_flow
"""

import didax
import didax.numpy as jnp
from didax import lax


def func7(arg):  # the seeds' cond ("Understanding Jaxprs")
    return lax.cond(arg >= 0.0, lambda xtrue: xtrue + 3.0, lambda xfalse: xfalse - 3.0, arg)


def one_of_three(index, arg):  # the seeds' switch
    return lax.switch(index, [lambda x: x + 1.0, lambda x: x - 2.0, lambda x: x + 3.0], arg)


print("cond: both branches are staged; the predicate becomes an index, 0 for false (the first branch).")
print(didax.make_jaxpr(func7)(5.0))
print("func7(5.0) =", func7(5.0), " func7(-5.0) =", func7(-5.0))
print()
print("switch: one branch per index; the index is clamped, so -1 picks the first and 7 the last.")
print(didax.make_jaxpr(one_of_three)(1, 5.0))
print(
    "one_of_three(i, 5.0) for i in -1, 0, 1, 2, 7 =", [float(one_of_three(i, 5.0)) for i in (-1, 0, 1, 2, 7)]
)


def f(x):
    return lax.cond(x > 0, jnp.sin, jnp.cos, x)


print()
print("jvp of a cond is a cond of the branches' JVPs (ad.jvp_jaxpr of each branch):")
print(didax.make_jaxpr(lambda x: didax.jvp(f, (x,), (1.0,)))(1.0))
print("d/dx f at 1.0 =", didax.jvp(f, (1.0,), (1.0,))[1], " cos(1.0) =", jnp.cos(1.0))
print("d/dx f at -1.0 =", didax.jvp(f, (-1.0,), (1.0,))[1], " -sin(-1.0) =", -jnp.sin(-1.0))

print()
print("vmap with a predicate that differs per example: both branches run, select_n picks.")
xs = jnp.array([-1.0, 2.0, -3.0, 4.0])
print(didax.make_jaxpr(didax.vmap(f))(xs))
print("vmap(f)(xs) =", didax.vmap(f)(xs))
print("a loop       =", jnp.stack([f(x) for x in xs]))
print("vmap with one predicate for every example: the cond stays, with batched branches.")
print(
    didax.make_jaxpr(didax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), in_axes=(None, 0)))(True, xs)
)

print()
print("Branches must return the same types (this error is intended):")
try:
    lax.cond(True, lambda x: x, lambda x: x.sum(), jnp.ones(2))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[-3])
