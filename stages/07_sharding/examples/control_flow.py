"""Stage 04, jaxprs: control flow that a transformation can see.

Python's ``if`` and ``while`` need a value, and a staged value has none. lax's control flow stages
its branches and bodies into jaxprs instead, each held by one primitive: ``cond`` for
``lax.cond`` and ``lax.switch``, ``while`` for ``lax.while_loop`` (and ``fori_loop`` with an
unknown trip count), ``scan`` for ``lax.scan`` (and ``fori_loop`` with a known one, and
``lax.map``). This example prints their jaxprs, checks their values against Python's own control
flow, and differentiates and batches them: the JVP of a cond is a cond of the branches' JVPs, a
cond whose predicate differs from example to example becomes a ``select_n`` of both branches, and
a loop whose condition differs runs until every example is done, as in JAX.

Run from the stage folder: python -m examples.control_flow
"""

import didax
import didax.numpy as jnp
from didax import lax


def func7(arg):  # the cond of JAX's "Understanding Jaxprs"
    return lax.cond(arg >= 0.0, lambda xtrue: xtrue + 3.0, lambda xfalse: xfalse - 3.0, arg)


def one_of_three(index, arg):  # the switch of "Understanding Jaxprs"
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


def halvings(x):  # how many times x can be halved before it drops below 1
    return lax.while_loop(lambda s: s[0] >= 1.0, lambda s: (s[0] / 2.0, s[1] + 1), (x, 0))[1]


print()
print("while_loop: the condition and the body are jaxprs of the carry, here (x, count).")
print(didax.make_jaxpr(halvings)(3.0))
print("halvings of 0.5, 3.0, 100.0 =", [int(halvings(x)) for x in (0.5, 3.0, 100.0)])
print("vmap: one condition per example, so the loop runs until every example's is false, and an")
print("example that is done keeps its carry:")
print(didax.make_jaxpr(didax.vmap(halvings))(jnp.array([0.5, 3.0, 100.0])))
print("vmap(halvings)([0.5, 3.0, 100.0]) =", didax.vmap(halvings)(jnp.array([0.5, 3.0, 100.0])))


def func10(arg, n):  # the fori_loop of "Understanding Jaxprs", with a trip count known only when it runs
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3.0 + arg, arg + ones)


print()
print("fori_loop with an unknown trip count is a while loop; its body closes over ones and arg:")
print(didax.make_jaxpr(func10)(jnp.ones(16), 5))
print("func10(ones(3), 5) =", func10(jnp.ones(3), 5))


def func11(arr, extra):  # the scan of "Understanding Jaxprs"
    ones = jnp.ones(arr.shape)

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)

    return lax.scan(body, 0.0, (arr, ones))


print()
print("scan: the body maps (carry, one slice of xs) to (carry, one slice of ys).")
print(didax.make_jaxpr(func11)(jnp.ones(16), 5.0))
carry, ys = func11(jnp.arange(4.0), 5.0)
print("func11(arange(4.0), 5.0) =", carry, ys)
_, (dcarry, dys) = didax.jvp(lambda e: func11(jnp.arange(4.0), e), (5.0,), (1.0,))
print("d/d extra:", dcarry, dys)
print("vmap over rows of arr:", didax.vmap(func11, in_axes=(0, None))(jnp.arange(6.0).reshape(2, 3), 5.0)[0])


def newton_sqrt(a):  # five Newton steps for sqrt(a): a known trip count, so a scan
    return lax.fori_loop(0, 5, lambda i, x: 0.5 * (x + a / x), a)


print()
print("fori_loop with a known trip count is a scan, which jvp differentiates step by step:")
print(didax.make_jaxpr(newton_sqrt)(2.0))
print("newton_sqrt(2.0) =", newton_sqrt(2.0), " d/da at 2.0 =", didax.jvp(newton_sqrt, (2.0,), (1.0,))[1])
print("lax.map(square, arange(4.0)) =", lax.map(lambda x: x * x, jnp.arange(4.0)))
print("lax.associative_scan(add, arange(5.0)) =", lax.associative_scan(jnp.add, jnp.arange(5.0)))

print()
print("Branches must return the same types, and a loop must keep its carry's type (errors intended):")
try:
    lax.cond(True, lambda x: x, lambda x: x.sum(), jnp.ones(2))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[-3])
try:
    lax.while_loop(lambda x: x < 3, lambda x: x + 1.0, jnp.int32(0))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[-3])
