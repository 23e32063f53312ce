"""Stage 04, jaxprs: make_jaxpr records a function as a program and prints it.

A tour of what staging writes down: the first jaxpr of JAX's "Understanding Jaxprs", operations
on constants (omnistaging), scalar constants as literals and array constants as constvars, pytrees
of arguments and results, static arguments, the errors of Python control flow on a staged value,
and eval_shape, which stages a function only to learn its output types.

Run from the stage folder: python -m examples.jaxpr_tour
"""

import numpy as np

import didax
import didax.numpy as jnp


def func1(first, second):  # the first jaxpr of JAX's "Understanding Jaxprs"
    temp = first + jnp.sin(second) * 3.0
    return jnp.sum(temp)


print("Understanding Jaxprs' func1: two inputs, four equations, one output.")
closed = didax.make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8))
print(closed)
print("It is data: a ClosedJaxpr holding a Jaxpr and its constants.")
jaxpr = closed.jaxpr
print("invars:", jaxpr.invars)
print("primitives:", [eqn.primitive.name for eqn in jaxpr.eqns])
print("outvars:", jaxpr.outvars, " consts:", closed.consts)

print()
print("Omnistaging: operations on constants are recorded too, even array creation.")
print(didax.make_jaxpr(lambda x: x + jnp.arange(3.0) * jnp.ones(3))(jnp.zeros(3)))

print()
print("A scalar the function closes over is a literal; an array is a constvar, before the ';'.")
scale = np.array([1.0, 2.0, 3.0], np.float32)
closed = didax.make_jaxpr(lambda x: x * scale + 2.0)(jnp.zeros(3))
print(closed)
print("its consts:", [np.asarray(c) for c in closed.consts])

print()
print("Pytrees are flattened: one invar per leaf of the arguments, one outvar per leaf of the result.")


def predict(params, batch):
    return {"y": batch["x"] @ params["w"] + params["b"], "n": batch["x"].shape[0]}


params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
closed, shapes = didax.make_jaxpr(predict, return_shape=True)(params, {"x": jnp.ones((4, 3))})
print(closed)
print("return_shape=True also gives the output's structure:", shapes)

print()
print("An argument in static_argnums is passed as it is: Python may loop over it, and the loop is unrolled.")


def square_repeatedly(x, times):
    for _ in range(times):
        x = x * x
    return x


print(didax.make_jaxpr(square_repeatedly, static_argnums=1)(2.0, 2))

print()
print("A staged value has a type and no number, so Python cannot branch on it (these errors are intended):")


def relu(x):
    return x if x > 0 else 0.0


for name, call in [
    ("if x > 0", lambda: didax.make_jaxpr(relu)(1.0)),
    ("int(x)", lambda: didax.make_jaxpr(int)(1.0)),
    ("[10, 20][i]", lambda: didax.make_jaxpr(lambda i: [10, 20][i])(1)),
    ("np.asarray(x)", lambda: didax.make_jaxpr(np.asarray)(1.0)),
    ("x[x > 0]", lambda: didax.make_jaxpr(lambda x: x[x > 0])(jnp.ones(3))),
]:
    try:
        call()
    except TypeError as err:  # each is a TypeError (or IndexError) subclass, as in JAX
        print(f"  {name:14} {type(err).__name__}: {str(err).splitlines()[0]}")
    except IndexError as err:
        print(f"  {name:14} {type(err).__name__}: {str(err).splitlines()[0]}")
print("jnp.where stages both sides and a select instead:")
print(didax.make_jaxpr(lambda x: jnp.where(x > 0, x, 0.0))(1.0))

print()
print("eval_shape stages a function on types alone (ShapeDtypeStructs or arrays) and runs nothing:")
big = didax.ShapeDtypeStruct((10_000, 1_000), jnp.float32)
print(didax.eval_shape(lambda w, x: jnp.tanh(x @ w), didax.ShapeDtypeStruct((1_000, 16), jnp.float32), big))
