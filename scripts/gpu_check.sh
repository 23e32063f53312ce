#!/usr/bin/env bash
# The GPU check: a jitting stage's tests, its part of the conformance suite and the jit benchmarks,
# run with didax and JAX on an NVIDIA GPU. For a machine that has python3 with jax, jaxlib (0.10.2
# or 0.11.2) and jaxlib's CUDA plugin, pytest, pytest-xdist and hypothesis, and nothing to install:
#
#     OUT=/tmp/gpu bash scripts/gpu_check.sh          # from the repository root; STAGE=05_jit by default
#     BENCH=0 OUT=/tmp/gpu bash scripts/gpu_check.sh  # the tests only
#
# Each step has a time limit and writes what it saw under $OUT (the log of each step, the benchmark
# JSON and Markdown), so that a step that fails or runs out of time leaves the later ones their turn.
set -u
OUT=${OUT:-/tmp/gpu-check}
STAGE=${STAGE:-05_jit}
PY=${PYTHON:-python3}
WORKERS=${WORKERS:-8}
mkdir -p "$OUT"
# Each process (JAX's client and didax's, each pytest worker) takes GPU memory as it needs it,
# instead of 75% of it up front: several share the one GPU.
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 XLA_PYTHON_CLIENT_PREALLOCATE=false

step() {  # step NAME SECONDS COMMAND...: run it, log to $OUT/NAME.log, say how it ended and how long it took
    local name=$1 limit=$2 start=$SECONDS rc
    shift 2
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    echo "$name: exit $rc after $((SECONDS - start)) s (limit $limit s); last lines:"
    tail -n 4 "$OUT/$name.log" | sed 's/^/    /'
    return $rc
}

nvidia-smi -L >"$OUT/machine.log" 2>&1
$PY -c "import sys, numpy, jax, jaxlib; print('python', sys.version.split()[0], 'numpy', numpy.__version__,
'jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())" >>"$OUT/machine.log" 2>&1
cat "$OUT/machine.log"

# 1. didax's own GPU path: a client from the CUDA plugin, a compiled function run there.
step smoke 120 env PYTHONPATH="stages/$STAGE" JAX_PLATFORM_NAME=gpu $PY -c "
import time, numpy as np, didax, didax.numpy as jnp
print('didax devices:', didax.devices())
t = time.perf_counter(); f = didax.jit(lambda x, w: jnp.tanh(x @ w).sum(0))
x, w = np.random.default_rng(0).normal(size=(2, 256, 256)).astype(np.float32)
y = f(x, w); y.block_until_ready()
print(f'first call (trace, lower, compile, run): {time.perf_counter() - t:.3f} s; on', y.devices())
np.testing.assert_allclose(np.asarray(y), np.tanh(x.astype(np.float64) @ w).sum(0), rtol=2e-2, atol=0.2)  # XLA may use TF32 for f32 dots on a GPU
print('GPU result agrees with NumPy (float64) within TF32 error')" || exit 1

# 2. The jit benchmarks: didax and JAX both on the GPU, in one process (NumPy on the CPU).
[ "${BENCH:-1}" = 0 ] || step bench 200 $PY -m benchmarks.run --stage "$STAGE" --suite jit --platform gpu --out "$OUT"
# 3. The stage's own tests, and 4. the conformance suite's jit area, with didax's compiled code and
# JAX on the GPU (JAX_PLATFORM_NAME is read by both). In each pytest process a plugin has JAX load
# the CUDA plugin before didax does: JAX's loader fails on a plugin already loaded, didax's does not.
mkdir -p /tmp/gpu-first
echo 'import jax; jax.devices()  # JAX takes the CUDA plugin first' >/tmp/gpu-first/jax_takes_the_gpu_first.py
export JAX_PLATFORM_NAME=gpu PYTHONPATH=/tmp/gpu-first
(cd "stages/$STAGE" && step tests 180 $PY -m pytest -q -p no:cacheprovider -p jax_takes_the_gpu_first \
    -n "$WORKERS" --tb=short -r fE tests)
step conformance 120 $PY -m pytest -q -p no:cacheprovider -p jax_takes_the_gpu_first -n "$WORKERS" --tb=short \
    -r fE conformance --impl="$STAGE" --area jit --results-dir /tmp/conformance-results
exit 0
