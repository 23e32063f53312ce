"""Stage 07's suite, parallelism across devices, on 8 CPU devices of one process:

- ``psum`` of a float32 (8, 1024) array, one row per device, under ``pmap`` and under ``jit`` of
  ``shard_map``: the cost of running one small program on every device and summing across them
  (the arrays are already spread over the devices; each call waits for its result);
- a data-parallel training step of the jit suite's MLP (784-512-512-10, ReLU, batch 256,
  float32) over 1, 2, 4 and 8 devices: ``jit`` of a ``shard_map`` whose body computes the loss
  and gradient of its rows of the batch and averages both with ``pmean``, then takes the step;
  the parameters are replicated, the batch split by rows. On one CPU the devices share its cores,
  so more devices do not make a step faster; the figures show what the splitting and the
  collectives cost. NumPy has no devices: its column is absent.

The device count is set before either library starts its backend (``run.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from .cases import Case, Libs
from .jit import BATCH, LAYERS, _mlp_params
from .vjp import LEARNING_RATE, loss

SUITE = "sharding"
TITLE = "parallelism across devices (sharding)"
CAPABILITY = "sharding"
DEVICES = 8
PSUM_ROW = 1024
STEP_DEVICES = (1, 2, 4, 8)


def cases(libs: Libs) -> list[Case]:
    return [_psum_pmap(libs), _psum_shard_map(libs), *(_train_step(libs, n) for n in STEP_DEVICES)]


def _rows(libs: Libs) -> Any:
    return libs.numpy.arange(DEVICES * PSUM_ROW, dtype="float32").reshape(DEVICES, PSUM_ROW)


def _psum_pmap(libs: Libs) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        f = m.pmap(lambda x, m=m: m.lax.psum(x, "i"), axis_name="i")
        x = m.pmap(lambda x: x, axis_name="i")(_rows(libs))  # spread over the devices, one row each
        calls[impl] = lambda f=f, x=x: f(x).block_until_ready()
    return Case(f"psum pmap {DEVICES}", f"pmap of psum over {DEVICES} devices, one float32 row of {PSUM_ROW} each",
                calls, clock=time.perf_counter)


def _psum_shard_map(libs: Libs) -> Case:
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        P = m.sharding.PartitionSpec
        mesh = m.make_mesh((DEVICES,), ("i",))
        f = m.jit(m.shard_map(lambda x, m=m: m.lax.psum(x, "i"), mesh=mesh, in_specs=P("i"), out_specs=P()))
        x = m.device_put(_rows(libs), m.sharding.NamedSharding(mesh, P("i")))
        calls[impl] = lambda f=f, x=x: f(x).block_until_ready()
    return Case(f"psum shard_map {DEVICES}", f"jit of shard_map of psum over {DEVICES} devices, one float32 row of "
                f"{PSUM_ROW} each", calls, clock=time.perf_counter)


def _train_step(libs: Libs, n: int) -> Case:
    params_np = _mlp_params(libs)
    rng = libs.numpy.random.default_rng(3)
    x_np = rng.standard_normal((BATCH, LAYERS[0])).astype("float32")
    labels_np = rng.integers(0, LAYERS[-1], BATCH).astype("int32")
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        P = m.sharding.PartitionSpec
        mesh = m.make_mesh((n,), ("batch",), devices=m.devices()[:n])
        whole, rows = (m.sharding.NamedSharding(mesh, spec) for spec in (P(), P("batch")))
        params = [(m.device_put(w, whole), m.device_put(b, whole)) for w, b in params_np]
        x, labels = m.device_put(x_np, rows), m.device_put(labels_np, rows)

        @m.jit
        @partial(m.shard_map, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=(P(), P()),
                 check_vma=False)
        def step(params: Any, x: Any, labels: Any, m: Any = m) -> Any:
            value, grads = m.value_and_grad(lambda p: loss(m.numpy, m.nn, p, x, labels))(params)
            value, grads = m.lax.pmean((value, grads), "batch")
            return value, [(w - LEARNING_RATE * gw, b - LEARNING_RATE * gb) for (w, b), (gw, gb) in zip(params, grads)]

        calls[impl] = lambda f=step, p=params, x=x, y=labels: f(p, x, y)[0].block_until_ready()
    widths = "-".join(str(w) for w in LAYERS)
    return Case(f"data-parallel step {n}", f"jit of shard_map: a value_and_grad of the MLP {widths} on {BATCH // n} "
                f"rows per device, pmean, an SGD update; {n} device{'s' * (n > 1)}", calls, clock=time.perf_counter)
