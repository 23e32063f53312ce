"""Stage 05's suite, compiled: ``jit``'s dispatch, a compiled program, compiling, and lowering.

Four kinds of case, issue 14's, two more of dispatch, and the eager question:

- dispatch: a tiny jitted function (``x * 2.0 + 1.0`` on an (8,) float32 array), with one input
  and one output, and with ten of each. The function has been called before (a cache hit) and
  its arguments are already device arrays, so what is timed is the fast path: look the
  executable up, hand XLA the buffers, wrap the outputs. Both libraries dispatch
  asynchronously, so each timed call ends with ``block_until_ready`` (the array's method for one
  output, ``block_until_ready(outputs)`` for ten): waiting is fair to both, and the figure is
  what a caller waits for. NumPy's column is the same arithmetic run directly: the floor.
- feedback (not in issue 14): ``y = f(y)`` a hundred times with the same tiny function, and
  ``params = step(params)`` ten times with a jitted update of the MLP's parameters (a list of
  (w, b) pairs, ``[(0.99 * w, 0.99 * b) ...]``), only the last result waited for: a loop's
  pattern, where the arguments are outputs still on the device (maybe not yet computed), so
  dispatch can run ahead of XLA, and where nothing should be read back to the host.
- a compiled MLP forward pass, 784-512-512-10 with ReLU, on a batch of 256, float32: the
  parameters (a list of (w, b) pairs) and the batch are arguments, so the call flattens a small
  pytree. Both libraries hand XLA's CPU compiler the same program, so the time is mostly XLA's
  own; NumPy's column is the same forward pass in NumPy (one BLAS thread, as everywhere here).
- eager (issue 14 asks: eager operations on device arrays as single-primitive executables, as
  in JAX, or on NumPy? measure and choose): ``x + y`` outside jit on device arrays of shape (3,)
  and (1000, 1000), and the same ``x + y`` as a cached ``jit`` of the one primitive. JAX runs
  both on the device; didax runs the eager one on NumPy (reading the operands back once: an
  Array keeps its copy), so its two rows are the two choices side by side.
- first call: ``jit(f)(y, w)`` of a new 1,000-operation function, so that neither library finds
  anything in a cache: trace, lower, compile, run (a tiny run). It takes a good part of a second,
  so it gets few repeats.
- lowering: ``jit(f).lower(y, w).as_text()`` for chains of 100 to 5,000 operations, a new
  function each call: tracing and lowering to StableHLO, and printing the module as text
  (didax writes MLIR's generic syntax and has MLIR print it in StableHLO's own; JAX builds the
  module in memory and prints it). The chains are the staging suite's (benchmarks/jaxpr.py),
  and so is the per-equation table: each library's time over its own jaxpr's equations.

Clocks. Dispatch, feedback and the MLP are timed in wall-clock time (``time.perf_counter``): the work runs
asynchronously in XLA's threads, and the wait for it is part of what is measured. First calls
and lowering are timed in the process's CPU time (``time.process_time``): tracing and lowering are
Python on one thread, compiling is XLA's on the calling thread, and on a small shared machine CPU
time leaves out the time spent waiting for a core. Each case's clock is in the JSON (``clock``)
and in the ``measured`` line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .cases import Case, Libs
from .jaxpr import BLOCK, COLS, ROWS, chain, count_equations
from .jaxpr import tables as per_equation_tables

SUITE = "jit"
TITLE = "compiled (jit)"
CAPABILITY = "jit"  # the stages that have this suite
SIZE = 8  # elements of each tiny array
MANY = 10  # inputs and outputs of the second dispatch case
LAYERS = (784, 512, 512, 10)  # the MLP's widths
BATCH = 256
IMAGES = (32, 32, 32, 3)  # the CNN case's batch of images, NHWC
CNN = "CNN conv-pool-conv"
CHOLESKY_SIZES = (64, 256, 1024)  # the Cholesky and LU solve cases' matrices, n x n
FEEDBACK_CALLS = 100  # calls of y = f(y) in the feedback case
UPDATE_STEPS = 10  # calls of params = step(params)
FIRST_CALL_LENGTH = 1000  # operations of the function compiled from scratch
FIRST_CALL_REPEATS = 5
LOWERING_LENGTHS = (100, 300, 1000, 3000, 5000)
EAGER_SHAPES = ((3,), (1000, 1000))  # the eager cases' float32 operands: tiny, and 4 MB each


def cases(libs: Libs) -> list[Case]:
    """Every case of the suite, in the order the tables show them."""
    return [
        _dispatch(libs, 1),
        _dispatch(libs, MANY),
        _feedback(libs),
        _update_steps(libs),
        _mlp(libs),
        _cnn(libs),
        *(_cholesky_solve(libs, n) for n in CHOLESKY_SIZES),
        *(_lu_solve(libs, n) for n in CHOLESKY_SIZES),
        *(_eager_add(libs, shape) for shape in EAGER_SHAPES),
        *(_compiled_add(libs, shape) for shape in EAGER_SHAPES),
        _first_call(libs, FIRST_CALL_LENGTH),
        *(_lowering(libs, n) for n in LOWERING_LENGTHS),
    ]


def tables(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The staging suite's per-equation table, for the lowering cases."""
    return per_equation_tables(cases)


def tiny(*xs: Any) -> Any:
    """The dispatch cases' function: almost no arithmetic, one output per input."""
    outs = tuple(x * 2.0 + 1.0 for x in xs)
    return outs[0] if len(outs) == 1 else outs


def mlp(jnp: Any, params: list[tuple[Any, Any]], x: Any) -> Any:
    """The forward pass: ReLU layers, then a linear one (the logits)."""
    for w, b in params[:-1]:
        x = jnp.maximum(x @ w + b, 0.0)
    w, b = params[-1]
    return x @ w + b


def _device_array(libs: Libs, impl: str, value: Any) -> Any:
    """A NumPy array as ``impl``'s array on its default device, ready."""
    if impl == "numpy":
        return value
    return getattr(libs, impl).device_put(value).block_until_ready()


def _dispatch(libs: Libs, n: int) -> Case:
    """``f(*xs)`` of the jitted ``tiny`` with n inputs and n outputs, waited for."""
    base = libs.numpy.linspace(1.0, 2.0, SIZE, dtype="float32")
    values = [base + i for i in range(n)]
    calls: dict[str, Callable[[], object] | None] = {}
    for impl in ("numpy", "didax", "jax"):
        xs = [_device_array(libs, impl, v) for v in values]
        if impl == "numpy":
            calls[impl] = lambda xs=xs: tiny(*xs)
            continue
        m = getattr(libs, impl)
        f = m.jit(tiny)
        if n == 1:
            calls[impl] = lambda f=f, x=xs[0]: f(x).block_until_ready()
        else:
            calls[impl] = lambda f=f, m=m, xs=xs: m.block_until_ready(f(*xs))
    io = "1 input, 1 output" if n == 1 else f"{n} inputs, {n} outputs"
    return Case(f"dispatch {n}→{n}", f"a cached jitted x * 2.0 + 1.0 on ({SIZE},) float32 device arrays, "
                f"{io}, waited for", calls, clock=time.perf_counter)


def feedback(f: Callable[[Any], Any], y: Any) -> Any:
    """``y = f(y)``, FEEDBACK_CALLS times: each call takes the previous call's output."""
    for _ in range(FEEDBACK_CALLS):
        y = f(y)
    return y


def _feedback(libs: Libs) -> Case:
    """The jitted ``tiny`` called on its own output, waited for at the end only."""
    base = libs.numpy.linspace(1.0, 2.0, SIZE, dtype="float32")
    calls: dict[str, Callable[[], object] | None] = {"numpy": lambda: feedback(tiny, base)}
    for impl in ("didax", "jax"):
        f, y = getattr(libs, impl).jit(tiny), _device_array(libs, impl, base)
        calls[impl] = lambda f=f, y=y: feedback(f, y).block_until_ready()
    return Case(f"y = f(y) ×{FEEDBACK_CALLS}", f"{FEEDBACK_CALLS} calls of the jitted x * 2.0 + 1.0, each on "
                f"the previous output, the last waited for", calls, clock=time.perf_counter)


def update(params: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The update step's function: every parameter scaled (the shape of an SGD step's result)."""
    return [(w * 0.99, b * 0.99) for w, b in params]


def steps(step: Callable[[Any], Any], params: Any) -> Any:
    """``params = step(params)``, UPDATE_STEPS times."""
    for _ in range(UPDATE_STEPS):
        params = step(params)
    return params


def _update_steps(libs: Libs) -> Case:
    """The jitted ``update`` fed its own output, the last waited for; NumPy runs ``update``."""
    params_np = _mlp_params(libs)
    calls: dict[str, Callable[[], object] | None] = {"numpy": lambda: steps(update, params_np)}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        params = [(_device_array(libs, impl, w), _device_array(libs, impl, b)) for w, b in params_np]
        calls[impl] = lambda m=m, step=m.jit(update), params=params: m.block_until_ready(steps(step, params))
    return Case(f"params = step(params) ×{UPDATE_STEPS}", f"{UPDATE_STEPS} calls of a jitted update of the "
                f"MLP's parameters (a list of (w, b) pairs), each on the previous output, the last waited for",
                calls, clock=time.perf_counter)


def _mlp_params(libs: Libs) -> list[tuple[Any, Any]]:
    """The MLP's parameters as NumPy arrays: (w, b) per layer, w scaled by 1/sqrt(fan in)."""
    rng = libs.numpy.random.default_rng(0)
    return [((rng.standard_normal((a, b)) / a**0.5).astype("float32"),
             (rng.standard_normal(b) * 0.1).astype("float32")) for a, b in zip(LAYERS, LAYERS[1:])]


def _mlp(libs: Libs) -> Case:
    """The jitted forward pass on device arrays, waited for; NumPy runs it directly."""
    params_np = _mlp_params(libs)
    x_np = libs.numpy.random.default_rng(1).standard_normal((BATCH, LAYERS[0])).astype("float32")
    calls: dict[str, Callable[[], object] | None] = {}
    for impl in ("numpy", "didax", "jax"):
        params = [(_device_array(libs, impl, w), _device_array(libs, impl, b)) for w, b in params_np]
        x = _device_array(libs, impl, x_np)
        if impl == "numpy":
            calls[impl] = lambda params=params, x=x: mlp(libs.numpy, params, x)
            continue
        m = getattr(libs, impl)
        f = m.jit(lambda params, x, jnp=m.numpy: mlp(jnp, params, x))
        calls[impl] = lambda f=f, params=params, x=x: f(params, x).block_until_ready()
    widths = "-".join(str(w) for w in LAYERS)
    return Case(f"MLP {widths}", f"a jitted MLP forward pass {widths} (ReLU), batch {BATCH}, float32", calls,
                clock=time.perf_counter)


def cnn(lax: Any, jnp: Any, kernels: list[Any], x: Any) -> Any:
    """A 3x3 convolution, ReLU, a 2x2 max pool; another 3x3 convolution, ReLU; a mean over the image."""
    numbers = ("NHWC", "HWIO", "NHWC")
    x = jnp.maximum(lax.conv_general_dilated(x, kernels[0], (1, 1), "SAME", dimension_numbers=numbers), 0.0)
    x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    x = jnp.maximum(lax.conv_general_dilated(x, kernels[1], (1, 1), "SAME", dimension_numbers=numbers), 0.0)
    return jnp.mean(x, axis=(1, 2))


def cnn_inputs(libs: Libs) -> tuple[list[Any], Any]:
    """The CNN's kernels and images as NumPy arrays."""
    rng = libs.numpy.random.default_rng(2)
    kernels = [(rng.standard_normal(s) / 5).astype("float32") for s in ((3, 3, 3, 16), (3, 3, 16, 32))]
    return kernels, rng.standard_normal(IMAGES).astype("float32")


def cnn_calls(libs: Libs, make: Callable[[Any], Callable[[Any, Any], Any]]
              ) -> dict[str, Callable[[], object] | None]:  # fmt: skip
    """Per library, ``make(m)(kernels, x)`` on device arrays, waited for (``make`` gives a function
    of the kernels and images returning one array); NumPy has no convolution."""
    kernels_np, x_np = cnn_inputs(libs)
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        kernels, x = [_device_array(libs, impl, k) for k in kernels_np], _device_array(libs, impl, x_np)
        calls[impl] = lambda f=make(m), kernels=kernels, x=x: f(kernels, x).block_until_ready()
    return calls


def _cnn(libs: Libs) -> Case:
    calls = cnn_calls(libs, lambda m: m.jit(lambda kernels, x: cnn(m.lax, m.numpy, kernels, x)))
    return Case(CNN, f"a jitted forward pass: a 3x3 convolution to 16 features, ReLU, a 2x2 max pool, a 3x3 "
                f"convolution to 32, ReLU, a mean over the image; images {IMAGES} NHWC, float32", calls,
                clock=time.perf_counter)


def cholesky_solve(scipy_linalg: Any, a: Any, b: Any) -> Any:
    """x with a x = b for a positive-definite a: its Cholesky factor, then two triangular solves."""
    return scipy_linalg.cho_solve(scipy_linalg.cho_factor(a, lower=True), b)


def _cholesky_solve(libs: Libs, n: int) -> Case:
    """A jitted Cholesky solve of an n x n positive-definite float32 matrix and 8 right-hand sides.
    JAX and didax call LAPACK (potrf, trsm) from the compiled program; NumPy's column is SciPy's
    LAPACK calls."""
    import importlib

    rng = libs.numpy.random.default_rng(5)
    m = rng.standard_normal((n, n))
    a_np, b_np = (m @ m.T / n + libs.numpy.eye(n)).astype("float32"), rng.standard_normal((n, 8)).astype("float32")
    scipy_linalg = importlib.import_module("scipy.linalg")
    calls: dict[str, Callable[[], object] | None] = {"numpy": lambda: cholesky_solve(scipy_linalg, a_np, b_np)}
    for impl in ("didax", "jax"):
        m_ = getattr(libs, impl)
        f = m_.jit(lambda a, b, m_=m_: cholesky_solve(importlib.import_module(m_.__name__ + ".scipy.linalg"), a, b))
        a, b = _device_array(libs, impl, a_np), _device_array(libs, impl, b_np)
        calls[impl] = lambda f=f, a=a, b=b: f(a, b).block_until_ready()
    return Case(f"Cholesky solve {n}×{n}", f"a jitted cho_solve(cho_factor(a, lower=True), b): a {n}x{n} "
                "positive-definite float32 matrix, 8 right-hand sides", calls, clock=time.perf_counter)


def _lu_solve(libs: Libs, n: int) -> Case:
    """A jitted ``jnp.linalg.solve`` of an n x n float32 matrix (rows to swap) and 8 right-hand
    sides: LU (getrf), the permutation, two triangular solves (trsm); NumPy's column is
    ``np.linalg.solve`` (LAPACK's gesv)."""
    rng = libs.numpy.random.default_rng(6)
    a_np = (rng.standard_normal((n, n)) / n**0.5 + libs.numpy.eye(n)[::-1]).astype("float32")
    b_np = rng.standard_normal((n, 8)).astype("float32")
    calls: dict[str, Callable[[], object] | None] = {"numpy": lambda: libs.numpy.linalg.solve(a_np, b_np)}
    for impl in ("didax", "jax"):
        m_ = getattr(libs, impl)
        f = m_.jit(m_.numpy.linalg.solve)
        a, b = _device_array(libs, impl, a_np), _device_array(libs, impl, b_np)
        calls[impl] = lambda f=f, a=a, b=b: f(a, b).block_until_ready()
    return Case(f"LU solve {n}×{n}", f"a jitted jnp.linalg.solve(a, b): a {n}x{n} float32 matrix whose rows LU "
                "swaps, 8 right-hand sides", calls, clock=time.perf_counter)


def _shape_name(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + (",)" if len(shape) == 1 else ")")


def add(x: Any, y: Any) -> Any:
    """The eager cases' operation: one primitive."""
    return x + y


def _eager_add(libs: Libs, shape: tuple[int, ...]) -> Case:
    """``x + y`` outside jit, on device arrays (a compiled function's results, say), waited for.
    JAX compiles the one primitive and runs it on the device; didax reads the operands back once
    (an Array keeps its NumPy copy) and runs NumPy. NumPy's column is np.add on its arrays."""
    rng = libs.numpy.random.default_rng(2)
    x_np, y_np = (rng.standard_normal(shape).astype("float32") for _ in range(2))
    calls: dict[str, Callable[[], object] | None] = {"numpy": lambda: add(x_np, y_np)}
    for impl in ("didax", "jax"):
        x, y = _device_array(libs, impl, x_np), _device_array(libs, impl, y_np)
        calls[impl] = lambda x=x, y=y: add(x, y).block_until_ready()
    return Case(f"eager x + y {_shape_name(shape)}", f"x + y outside jit on {_shape_name(shape)} float32 device "
                "arrays, waited for", calls, clock=time.perf_counter)


def _compiled_add(libs: Libs, shape: tuple[int, ...]) -> Case:
    """``jit(add)(x, y)`` on the same arrays: what didax's eager ``x + y`` would cost if it ran
    as JAX's does, a cached executable of one primitive (compare with the eager case's didax
    column to see which is faster here)."""
    rng = libs.numpy.random.default_rng(2)
    x_np, y_np = (rng.standard_normal(shape).astype("float32") for _ in range(2))
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        f = getattr(libs, impl).jit(add)
        x, y = _device_array(libs, impl, x_np), _device_array(libs, impl, y_np)
        calls[impl] = lambda f=f, x=x, y=y: f(x, y).block_until_ready()
    return Case(f"jit(x + y) {_shape_name(shape)}", f"a cached one-primitive executable, jit(x + y), on "
                f"{_shape_name(shape)} float32 device arrays, waited for", calls, clock=time.perf_counter)


def _chain_inputs(libs: Libs, impl: str) -> tuple[Any, Any]:
    """The staging suite's y, a (ROWS, COLS) float32 matrix, and w, a (COLS,) vector."""
    rng = libs.numpy.random.default_rng(0)
    y = rng.standard_normal((ROWS, COLS)).astype("float32")
    w = rng.standard_normal(COLS).astype("float32")
    return _device_array(libs, impl, y), _device_array(libs, impl, w)


def _first_call(libs: Libs, n: int) -> Case:
    """``jit(f)(y, w)`` of a new n-operation chain each call: trace, lower, compile and run."""
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        y, w = _chain_inputs(libs, impl)
        calls[impl] = lambda m=m, y=y, w=w: m.jit(chain(m.numpy, n))(y, w).block_until_ready()
    return Case(f"first call ×{n}", f"jit(f)(y, w) of a new function of {n} jax.numpy operations: trace, "
                f"lower, compile, run", calls, clock=time.process_time, max_repeats=FIRST_CALL_REPEATS)


def _lowering(libs: Libs, n: int) -> Case:
    """``jit(f).lower(y, w).as_text()`` of a new n-operation chain each call."""
    calls: dict[str, Callable[[], object] | None] = {"numpy": None}
    equations: dict[str, dict[str, int]] = {}
    for impl in ("didax", "jax"):
        m = getattr(libs, impl)
        y, w = _chain_inputs(libs, impl)
        calls[impl] = lambda m=m, y=y, w=w: m.jit(chain(m.numpy, n)).lower(y, w).as_text()
        equations[impl] = count_equations(m.make_jaxpr(chain(m.numpy, n))(y, w))
    return Case(f"lower chain ×{n}", f"jit(f).lower(y, w).as_text() of a new function of {n} jax.numpy "
                f"operations ({n // BLOCK} blocks of {BLOCK}) on a ({ROWS}, {COLS}) matrix and a ({COLS},) "
                f"vector", calls, ops=n, extra={"equations": equations}, clock=time.process_time)
