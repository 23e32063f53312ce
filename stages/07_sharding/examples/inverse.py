"""Stage 04, jaxprs: a transformation of our own, written as a jaxpr interpreter.

JAX's tutorial "Writing custom Jaxpr interpreters" builds ``inverse``: stage a function of one
argument into a jaxpr, then walk its equations backwards, replacing each primitive by its
inverse. This version also does the tutorial's first exercise: a binary primitive whose other operand
is known (a literal, a constant, or a value computed from constants alone) is inverted too, so
``2.0 * exp(x) + 1.0`` has an inverse. Because the interpreter applies didax functions, it is
itself traceable: ``make_jaxpr``, ``jvp`` and ``vmap`` of an inverse work with no extra code.

Run from the stage folder: python -m examples.inverse
"""

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import didax
import didax.numpy as jnp
from didax import lax
from didax.extend.core import Jaxpr, JaxprEqn, Literal, Var
from didax.scipy.special import expit, logit

# y = p(x)  ->  x = inverse(y, **params), for primitives of one operand.
unary_inverses: dict[Any, Callable[..., Any]] = {
    lax.exp_p: jnp.log,
    lax.log_p: jnp.exp,
    lax.expm1_p: jnp.log1p,
    lax.log1p_p: jnp.expm1,
    lax.tanh_p: jnp.arctanh,
    lax.sinh_p: jnp.arcsinh,
    lax.logistic_p: logit,
    lax.neg_p: jnp.negative,
    lax.sqrt_p: jnp.square,
    lax.integer_pow_p: lambda out, *, y: (
        jnp.sign(out) * jnp.abs(out) ** (1.0 / y) if y % 2 else out ** (1.0 / y)
    ),
}

# y = p(a, b) with one operand known  ->  the other. ``first`` says whether the unknown is a.
binary_inverses: dict[Any, Callable[[Any, Any, bool], Any]] = {
    lax.add_p: lambda out, known, first: out - known,
    lax.sub_p: lambda out, known, first: out + known if first else known - out,
    lax.mul_p: lambda out, known, first: out / known,
    lax.div_p: lambda out, known, first: out * known if first else known / out,
}


def inverse(fun: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The inverse of ``fun``, a function of one array made of invertible steps; the argument of
    the inverse has the type of ``fun``'s argument (it is traced at it)."""

    @functools.wraps(fun)
    def wrapped(y: Any) -> Any:
        closed = didax.make_jaxpr(fun)(y)
        [x] = inverse_jaxpr(closed.jaxpr, closed.consts, y)
        return x

    return wrapped


def inverse_jaxpr(jaxpr: Jaxpr, consts: list[Any], *outs: Any) -> list[Any]:
    """The inputs of ``jaxpr`` that give the outputs ``outs``."""
    known: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))

    def is_known(x: Any) -> bool:
        return type(x) is Literal or x in known

    def read(x: Any) -> Any:
        return x.val if type(x) is Literal else known[x]

    # Forward: what depends on constants alone (omnistaging stages jnp.ones(3) too) runs as usual.
    unknown_eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        if all(is_known(x) for x in eqn.invars):
            values = eqn.primitive.bind(*[read(x) for x in eqn.invars], **eqn.params)
            known.update(zip(eqn.outvars, values if eqn.primitive.multiple_results else [values]))
        else:
            unknown_eqns.append(eqn)

    # Backward: from each equation's output to its one unknown operand.
    env: dict[Var, Any] = dict(zip(jaxpr.outvars, outs))
    for eqn in reversed(unknown_eqns):
        missing = [i for i, x in enumerate(eqn.invars) if not is_known(x)]
        if len(missing) != 1 or eqn.invars[missing[0]] in env:
            raise NotImplementedError(f"{eqn.primitive} reads the input more than once: not invertible here")
        out = env[eqn.outvars[0]]
        if len(eqn.invars) == 1 and eqn.primitive in unary_inverses:
            value = unary_inverses[eqn.primitive](out, **eqn.params)
        elif len(eqn.invars) == 2 and eqn.primitive in binary_inverses:
            first = missing[0] == 0
            value = binary_inverses[eqn.primitive](out, read(eqn.invars[1 if first else 0]), first)
        elif eqn.primitive is lax.convert_element_type_p:  # a change of dtype: change it back
            value = lax.convert_element_type(out, eqn.invars[0].aval.dtype)
        else:
            raise NotImplementedError(f"{eqn.primitive} does not have a registered inverse.")
        env[eqn.invars[missing[0]]] = value
    return [env[v] for v in jaxpr.invars]


def f(x):  # the tutorial's function
    return jnp.exp(jnp.tanh(x))


print("The tutorial's f(x) = exp(tanh(x)) and its jaxpr:")
print(didax.make_jaxpr(f)(1.0))
f_inv = inverse(f)
print("f_inv(f(1.0)) =", f_inv(f(1.0)))
print("Tracing through the interpreter gives the inverse as a jaxpr (the tutorial's log then atanh):")
print(didax.make_jaxpr(inverse(f))(f(1.0)))


def h(x):  # binary steps whose other operand is known: the tutorial's first exercise
    return (2.0 * jnp.exp(x) + jnp.ones(3)) / 4.0 - 1.0


print()
print("Binary steps with one known operand invert too; h has literals and an array of ones:")
xs = jnp.array([0.5, 1.0, 2.0])
print(didax.make_jaxpr(h)(xs))
print("x =", xs, " inverse(h)(h(x)) =", inverse(h)(h(xs)))
print("the inverse as a jaxpr:")
print(didax.make_jaxpr(inverse(h))(h(xs)))

print()
print("Composition with the other transformations, for free:")
ys = f(jnp.array([0.2, 0.4, 0.6, 0.8]))
print("vmap(inverse(f))(ys)          =", didax.vmap(inverse(f))(ys))
print("inverse(f)(ys), all at once   =", inverse(f)(ys))
_, slope = didax.jvp(inverse(f), (ys[0],), (1.0,))
print("jvp(inverse(f)) at f(0.2)     =", slope)
print("1 / f'(0.2), by the chain rule =", 1.0 / (np.exp(np.tanh(0.2)) * (1.0 - np.tanh(0.2) ** 2)))
print("jacfwd(inverse(f))(f(0.2))    =", didax.jacfwd(inverse(f))(ys[0]))
print("logistic, then an odd power:", inverse(lambda x: expit(x) ** 3)(expit(jnp.array([-1.0, 2.0])) ** 3))

print()
print("Not every function is a chain of invertible steps (these errors are intended):")
for name, fun in [("sin", jnp.sin), ("x * x", lambda x: x * x)]:
    try:
        inverse(fun)(0.5)
    except NotImplementedError as err:
        print(f"  {name}: NotImplementedError: {err}")
