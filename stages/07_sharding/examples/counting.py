"""Stage 04, jaxprs: a second jaxpr interpreter, one that reads a program instead of running it.

``count_primitives`` walks a jaxpr and counts its equations by primitive, going into the jaxprs
that a control-flow equation holds in its parameters (the branches of ``cond``, the bodies of
``while`` and ``scan``). Counting the jaxprs of ``jvp(f)``, ``vmap(f)`` and ``jacfwd(f)`` shows
what each transformation costs, equation by equation.

Run from the stage folder: python -m examples.counting
"""

from collections import Counter
from collections.abc import Iterator
from typing import Any

import didax
import didax.numpy as jnp
from didax import lax
from didax.extend.core import ClosedJaxpr, Jaxpr


def sub_jaxprs(params: dict[str, Any]) -> Iterator[Jaxpr]:
    """The jaxprs an equation holds in its parameters, alone or in a tuple (cond's branches)."""
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else [value]:
            if isinstance(item, ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, Jaxpr):
                yield item


def count_primitives(jaxpr: Jaxpr | ClosedJaxpr) -> Counter[str]:
    """How many equations of each primitive ``jaxpr`` has, its nested jaxprs included."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    counts: Counter[str] = Counter()
    for eqn in jaxpr.eqns:
        counts[eqn.primitive.name] += 1
        for sub in sub_jaxprs(eqn.params):
            counts += count_primitives(sub)
    return counts


def show(title: str, counts: Counter[str]) -> None:
    listed = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"{title}: {sum(counts.values())} equations ({listed})")


def layer(w, x):
    return jnp.sum(jnp.tanh(w @ x) ** 2)


w, x = jnp.ones((4, 3)), jnp.ones(3)
print("The function: sum(tanh(w @ x) ** 2)")
print(didax.make_jaxpr(layer)(w, x))
show("f", count_primitives(didax.make_jaxpr(layer)(w, x)))
show(
    "jvp(f)",
    count_primitives(didax.make_jaxpr(lambda x, t: didax.jvp(lambda x: layer(w, x), (x,), (t,)))(x, x)),
)
show(
    "vmap(f) over x",
    count_primitives(didax.make_jaxpr(didax.vmap(layer, in_axes=(None, 0)))(w, jnp.ones((8, 3)))),
)
show("jacfwd(f)", count_primitives(didax.make_jaxpr(didax.jacfwd(layer, argnums=1))(w, x)))

print()
print("A cond holds its branches as jaxprs; the count goes into each (both are staged, one runs):")


def clipped(x):
    return lax.cond(jnp.sum(x) > 0, lambda x: jnp.tanh(x) * 2.0, lambda x: jnp.zeros_like(x), x)


closed = didax.make_jaxpr(clipped)(x)
print(closed)
show("clipped", count_primitives(closed))
show("only the top level", Counter(eqn.primitive.name for eqn in closed.eqns))
show("vmap(clipped): the cond is a select_n", count_primitives(didax.make_jaxpr(didax.vmap(clipped))(w)))
