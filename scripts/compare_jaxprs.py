#!/usr/bin/env python3
"""Print the same programs' jaxprs with real JAX and with a didax stage, and diff the text.

    .venv/bin/python scripts/compare_jaxprs.py              stage 05_jit against jax
    .venv/bin/python scripts/compare_jaxprs.py --stage 04_jaxpr --all

Each program is a function of ``(jax, jnp, lax)`` returning ``(f, args)``, so one definition runs
on both libraries. A program whose two printouts are equal prints ``same``; otherwise both texts and
a unified diff are shown (``--all`` shows the equal ones too). Needs real JAX (the dev venv has it).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def programs(jit: bool) -> dict:
    P: dict = {}

    def prog(fn):
        P[fn.__name__] = fn
        return fn

    @prog
    def mul_python_scalar(jax, jnp, lax):
        return (lambda x: x * 3.0 + 1), (np.float32(2.0),)

    @prog
    def weak_input(jax, jnp, lax):
        return (lambda x: x * 2), (1.0,)

    @prog
    def int_and_bool(jax, jnp, lax):
        return (lambda i, b: jnp.where(b, i + 1, i * 2)), (np.int32(3), True)

    @prog
    def sin_cos(jax, jnp, lax):
        return (lambda x: jnp.sin(x) * jnp.cos(x)), (np.ones(3, np.float32),)

    @prog
    def reduction_sum(jax, jnp, lax):
        return (lambda x: jnp.sum(x, axis=0)), (np.ones((2, 3), np.float32),)

    @prog
    def reduction_mean_keepdims(jax, jnp, lax):
        return (lambda x: jnp.mean(x, axis=1, keepdims=True)), (np.ones((2, 3), np.float32),)

    @prog
    def reduce_max(jax, jnp, lax):
        return (lambda x: x.max()), (np.ones((4,), np.float32),)

    @prog
    def broadcasting(jax, jnp, lax):
        return (lambda x, y: x + y), (np.ones((2, 3), np.float32), np.ones((3,), np.float32))

    @prog
    def broadcast_scalar_array(jax, jnp, lax):
        return (lambda x: jnp.broadcast_to(x, (2, 3))), (np.float32(1.0),)

    @prog
    def zeros_like(jax, jnp, lax):
        return (lambda x: jnp.zeros_like(x) + jnp.ones(3)), (np.ones(3, np.float32),)

    @prog
    def full(jax, jnp, lax):
        return (lambda x: jnp.full((2,), 5.0) * x), (np.ones(2, np.float32),)

    @prog
    def dtype_convert(jax, jnp, lax):
        return (lambda x: x.astype(jnp.int32) + 1), (np.ones(3, np.float32),)

    @prog
    def dot(jax, jnp, lax):
        return (lambda a, b: jnp.dot(a, b)), (np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))

    @prog
    def matmul_op(jax, jnp, lax):
        return (lambda a, b: a @ b), (np.ones((3,), np.float32), np.ones((3, 4), np.float32))

    @prog
    def transpose_reshape(jax, jnp, lax):
        return (lambda x: x.T.reshape(6)), (np.ones((2, 3), np.float32),)

    @prog
    def index_static(jax, jnp, lax):
        return (lambda x: x[1]), (np.ones((3, 4), np.float32),)

    @prog
    def index_slice(jax, jnp, lax):
        return (lambda x: x[1:3]), (np.ones((5,), np.float32),)

    @prog
    def index_dynamic(jax, jnp, lax):
        return (lambda x, i: x[i]), (np.ones((5,), np.float32), np.int32(2))

    @prog
    def at_set(jax, jnp, lax):
        return (lambda x: x.at[0].set(2.0)), (np.ones((3,), np.float32),)

    @prog
    def concatenate(jax, jnp, lax):
        return (lambda x: jnp.concatenate([x, x])), (np.ones((3,), np.float32),)

    @prog
    def arange_add(jax, jnp, lax):
        return (lambda x: x + jnp.arange(3)), (np.ones((3,), np.float32),)

    @prog
    def closure_constvar(jax, jnp, lax):
        c = jnp.arange(3.0)
        return (lambda x: x * c), (np.ones((3,), np.float32),)

    @prog
    def closure_numpy(jax, jnp, lax):
        c = np.arange(3.0, dtype=np.float32)
        return (lambda x: x + c), (np.ones((3,), np.float32),)

    @prog
    def cond(jax, jnp, lax):
        f = lambda p, x: lax.cond(p, lambda x: x * 2.0, lambda x: x - 1.0, x)
        return f, (True, np.float32(1.0))

    @prog
    def cond_index(jax, jnp, lax):
        f = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x], x)
        return f, (np.int32(1), np.float32(1.0))

    @prog
    def while_loop(jax, jnp, lax):
        f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
        return f, (np.float32(1.0),)

    @prog
    def fori_loop(jax, jnp, lax):
        f = lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x)
        return f, (np.float32(1.0),)

    @prog
    def scan(jax, jnp, lax):
        def f(xs):
            return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
        return f, (np.ones(3, np.float32),)

    @prog
    def jvp_inside(jax, jnp, lax):
        return (lambda x, t: jax.jvp(jnp.sin, (x,), (t,))), (np.float32(1.0), np.float32(1.0))

    @prog
    def vmap_inside(jax, jnp, lax):
        return (lambda x: jax.vmap(lambda r: jnp.sum(r * 2.0))(x)), (np.ones((2, 3), np.float32),)

    @prog
    def vmap_dot(jax, jnp, lax):
        return (lambda x, y: jax.vmap(jnp.dot)(x, y)), (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))

    @prog
    def jacfwd(jax, jnp, lax):
        return jax.jacfwd(lambda x: jnp.sin(x) * x), (np.ones(2, np.float32),)

    @prog
    def many_outputs(jax, jnp, lax):
        return (lambda x: (x, x + 1, {"a": x * 2})), (np.float32(1.0),)

    @prog
    def no_equations(jax, jnp, lax):
        return (lambda x: x), (np.float32(1.0),)

    @prog
    def long_line(jax, jnp, lax):
        f = lambda a, b, c, d, e, g, h: a + b + c + d + e + g + h
        return f, tuple(np.ones((2, 2, 2), np.float32) for _ in range(7))

    @prog
    def random_normal(jax, jnp, lax):
        return (lambda k: jax.random.normal(jax.random.key(0), (2,)) + k), (np.float32(1.0),)

    if jit:
        @prog
        def jit_nested(jax, jnp, lax):
            return (lambda x: jax.jit(lambda y: y * 2.0)(x) + 1.0), (np.float32(1.0),)

        @prog
        def jit_nested_named(jax, jnp, lax):
            def inner(y):
                return jnp.sin(y)
            return (lambda x: jax.jit(inner)(x) + jax.jit(inner)(x)), (np.ones(3, np.float32),)

        @prog
        def jit_static(jax, jnp, lax):
            g = jax.jit(lambda x, n: x * n, static_argnums=1)
            return (lambda x: g(x, 3)), (np.float32(1.0),)

        @prog
        def jit_of_jit(jax, jnp, lax):
            return jax.jit(lambda x: jax.jit(jnp.cos)(x)), (np.float32(1.0),)

        @prog
        def jvp_of_jit(jax, jnp, lax):
            return (lambda x: jax.jvp(jax.jit(jnp.sin), (x,), (x,))), (np.float32(1.0),)

        @prog
        def vmap_of_jit(jax, jnp, lax):
            return (lambda x: jax.vmap(jax.jit(lambda r: r * 2.0))(x)), (np.ones(3, np.float32),)

    return P


def load_didax(stage: str):
    sys.path.insert(0, str(ROOT / "stages" / stage))
    didax = importlib.import_module("didax")
    return didax, importlib.import_module("didax.numpy"), importlib.import_module("didax.lax")


def text(lib, jnp, lax, prog) -> str:
    try:
        f, args = prog(lib, jnp, lax)
        return str(lib.make_jaxpr(f)(*args))
    except Exception as e:  # noqa: BLE001 (a program one library cannot run is reported, not fatal)
        return f"<{type(e).__name__}: {e}>"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="05_jit")
    parser.add_argument("--all", action="store_true", help="show equal printouts too")
    parser.add_argument("-k", default="", help="only programs whose name contains this")
    opts = parser.parse_args()
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax

    didax, djnp, dlax = load_didax(opts.stage)
    progs = programs(jit=opts.stage >= "05")
    same = 0
    for name, prog in progs.items():
        if opts.k not in name:
            continue
        want, got = text(jax, jjnp, jlax, prog), text(didax, djnp, dlax, prog)
        if want == got:
            same += 1
            print(f"== {name}: same")
            if opts.all:
                print(want)
            continue
        print(f"!= {name}")
        print("--- jax\n" + want + "\n--- didax\n" + got)
        diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "jax", "didax", lineterm="", n=1)
        print("\n".join(list(diff)[2:]))
    print(f"{same} of {len(progs)} programs print the same")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
