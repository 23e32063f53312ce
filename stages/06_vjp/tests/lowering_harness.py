"""Run a function compiled by XLA without jit's caches and dispatch: stage it, lower it, compile
it, run it on the default device and read its outputs back. The lowering tests compare that with
the function run eagerly (the stage's NumPy evaluation)."""

from __future__ import annotations

from typing import Any

import numpy as np

import didax
from didax import xla
from didax.lowering import lower_module
from didax.lowering.core import physical


def to_host(x: Any) -> np.ndarray:
    """A didax value's NumPy data: a key array's words."""
    if didax.dtypes.is_key_dtype(didax.numpy.result_type(x) if hasattr(x, "dtype") else None):
        return np.asarray(didax.random.key_data(x))
    return np.asarray(x)


def run_compiled(f: Any, *args: Any, platform: str = "cpu") -> list[np.ndarray]:
    """The outputs of ``f(*args)`` (a flat list of arrays) computed by XLA, as NumPy arrays
    (key arrays as their uint32 words). ``platform`` is the one the program is lowered for: a
    rule that lowers another way off the CPU is run here too."""
    closed = didax.make_jaxpr(f)(*args)
    text = lower_module("f", closed, platform=platform)
    device = xla.default_device()
    exe = xla.compile(text, device, [physical(a) for a in closed.out_avals])
    buffers = [xla.put(to_host(v), device) for v in (*closed.consts, *args)]
    outs = exe.run(buffers)
    return [xla.fetch(o, physical(a).dtype) for o, a in zip(outs, closed.out_avals)]


def check_compiled(f: Any, *args: Any, rtol: float = 1e-6, atol: float = 0.0, platform: str = "cpu") -> None:
    """XLA's result of ``f(*args)`` equals the eager one: exactly for integers and booleans,
    within ``rtol``/``atol`` for floats."""
    eager = f(*args)
    eager = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    compiled = run_compiled(f, *args, platform=platform)  # make_jaxpr flattens a tuple or list of outputs
    assert len(compiled) == len(eager)
    for got, want in zip(compiled, eager):
        want = to_host(want)
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
        if didax.dtypes.is_inexact(want.dtype):
            if want.dtype.kind not in "fc":  # bfloat16 and the like: NumPy compares them as float32
                got, want = got.astype(np.float32), want.astype(np.float32)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, want)
