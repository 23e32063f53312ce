"""Stage 06's suite, reverse mode: a compiled training step, eager grad, and the cost of linearize
and transpose as programs grow.

- a compiled training step of the jit suite's MLP (784-512-512-10, ReLU, batch 256, float32):
  ``value_and_grad`` of a softmax cross-entropy, then a step of gradient descent, all in one
  ``jit``; the parameters (a list of (w, b) pairs) go in and come out, as in a training loop. The
  time is mostly XLA's (both libraries hand it the forward and backward passes as one program).
  NumPy has no grad: its column is absent.
- the jit suite's CNN (two convolutions and a max pool) forward and backward: the gradient in its
  kernels, jitted.
- eager ``grad`` of a chain of 100, 1,000 and 5,000 elementwise operations (the jvp suite's sin,
  ×1.5, +0.5 in turn) on an (8,) float32 array, summed: linearize and transpose one operation at
  a time. JAX dispatches every primitive of the forward and backward passes; didax's interpreters
  run on NumPy.
- ``linearize`` alone, and the transposition alone (calling the function ``vjp`` returned, whose
  linearization is done), on the same chains: each should cost the same per operation from the
  shortest chain to the longest.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .cases import Case, Libs
from .eager import SIZE
from .jit import BATCH, CNN, IMAGES, LAYERS, _device_array, _mlp_params, cnn, cnn_calls
from .jvp import link

SUITE = "vjp"
TITLE = "reverse mode (vjp)"
CAPABILITY = "vjp"  # the stages that have this suite
CHAIN_LENGTHS = (100, 1000, 5000)
LEARNING_RATE = 0.01


def cases(libs: Libs) -> list[Case]:
    return [
        _train_step(libs),
        _cnn_step(libs),
        *(_grad_chain(libs, n) for n in CHAIN_LENGTHS),
        *(_linearize_chain(libs, n) for n in CHAIN_LENGTHS),
        *(_transpose_chain(libs, n) for n in CHAIN_LENGTHS),
    ]


def loss(jnp: Any, nn: Any, params: list[tuple[Any, Any]], x: Any, labels: Any) -> Any:
    """Softmax cross-entropy of the MLP's logits against integer labels."""
    for w, b in params[:-1]:
        x = jnp.maximum(x @ w + b, 0.0)
    w, b = params[-1]
    logits = x @ w + b
    picked = jnp.take_along_axis(nn.log_softmax(logits), labels[:, None], axis=1)
    return -jnp.mean(picked)


def _train_step(libs: Libs) -> Case:
    params_np = _mlp_params(libs)
    rng = libs.numpy.random.default_rng(3)
    x_np = rng.standard_normal((BATCH, LAYERS[0])).astype("float32")
    labels_np = rng.integers(0, LAYERS[-1], BATCH).astype("int32")
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        params = [(_device_array(libs, impl, w), _device_array(libs, impl, b)) for w, b in params_np]
        x, labels = _device_array(libs, impl, x_np), _device_array(libs, impl, labels_np)

        def step(params: Any, x: Any, labels: Any, m: Any = m) -> Any:
            value, grads = m.value_and_grad(lambda p: loss(m.numpy, m.nn, p, x, labels))(params)
            return value, [(w - LEARNING_RATE * gw, b - LEARNING_RATE * gb) for (w, b), (gw, gb) in zip(params, grads)]

        jitted = m.jit(step)
        calls[impl] = lambda f=jitted, p=params, x=x, y=labels: f(p, x, y)[0].block_until_ready()
    widths = "-".join(str(w) for w in LAYERS)
    return Case(f"train step {widths}", f"a jitted value_and_grad of the MLP {widths}'s cross-entropy and an "
                f"SGD update, batch {BATCH}, float32", calls, clock=time.perf_counter)


def _cnn_step(libs: Libs) -> Case:
    """The jit suite's CNN, forward and backward: the gradient of its mean output in its kernels."""
    def make(m: Any) -> Callable[[Any, Any], Any]:
        grad = m.jit(m.grad(lambda kernels, x: m.numpy.mean(cnn(m.lax, m.numpy, kernels, x))))
        return lambda kernels, x: grad(kernels, x)[0]

    calls = cnn_calls(libs, make)
    return Case(f"{CNN} backward", f"a jitted grad of the jit suite's CNN (its mean output) in both kernels: the "
                f"forward pass, the max pool's and the convolutions' transposes; images {IMAGES}", calls,
                clock=time.perf_counter)


def chain(m: Any, n: int) -> Callable[[Any], Any]:
    def f(y: Any) -> Any:
        for i in range(n):
            y = link(m, i, y)
        return m.numpy.sum(y)

    return f


def _x(m: Any) -> Any:
    return m.numpy.linspace(1.0, 2.0, SIZE, dtype="float32")


def _grad_chain(libs: Libs, n: int) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        g, x = m.grad(chain(m, n)), _x(m)
        calls[impl] = lambda g=g, x=x: g(x).block_until_ready()
    return Case(f"grad chain ×{n}", f"eager grad of {n} elementwise operations (sin, ×1.5, +0.5 in turn) on "
                f"({SIZE},) float32, summed", calls, ops=n)


def _linearize_chain(libs: Libs, n: int) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        f, x = chain(m, n), _x(m)
        calls[impl] = lambda m=m, f=f, x=x: m.linearize(f, x)[0].block_until_ready()
    return Case(f"linearize chain ×{n}", f"linearize of the same {n} operations: the forward pass, and the "
                "linear jaxpr of its tangents", calls, ops=n)


def _transpose_chain(libs: Libs, n: int) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        _, f_vjp = m.vjp(chain(m, n), _x(m))
        one = m.numpy.float32(1.0)
        calls[impl] = lambda f_vjp=f_vjp, one=one: f_vjp(one)[0].block_until_ready()
    return Case(f"transpose chain ×{n}", f"the backward pass alone of the same {n} operations: calling the "
                "function vjp returned", calls, ops=n)
