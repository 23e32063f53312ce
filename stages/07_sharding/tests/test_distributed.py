"""Several processes (``didax.distributed``): two processes of 4 CPU devices each on 127.0.0.1, run
as subprocesses with a hard timeout, compute collectives over all 8 devices; one process dying
ends the other with an error instead of a hang; and the argument errors are JAX's.

Each process runs ``_WORKER`` (a script) and prints what it saw as one JSON line; the test checks
every process's line against NumPy."""

import inspect
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import jax
import numpy as np

import didax

STAGE = Path(__file__).resolve().parents[1]

_WORKER = """
import json, os, signal, sys
import numpy as np
import didax
from didax import lax
from didax.sharding import Mesh, NamedSharding, PartitionSpec as P

pid, port, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
didax.config.update("jax_num_cpu_devices", 4)
didax.distributed.initialize(f"127.0.0.1:{port}", 2, pid, initialization_timeout=30,
                             heartbeat_timeout_seconds=3, shutdown_timeout_seconds=10)
if mode == "die" and pid == 1:
    os.kill(os.getpid(), signal.SIGKILL)  # dies after joining, before the collective

seen = {"process_index": didax.process_index(), "process_count": didax.process_count(),
        "devices": [(d.id, d.process_index) for d in didax.devices()],
        "local": [(d.id, d.process_index) for d in didax.local_devices()],
        "device_count": didax.device_count(), "local_device_count": didax.local_device_count()}
mesh = Mesh(np.array(didax.devices()), ("i",))
sharding = NamedSharding(mesh, P("i"))
# The whole value is 0..15, two per device; each process knows only its own devices' blocks
# (NaN elsewhere), so the sums come out right only if the others' blocks arrive over the network.
x = np.full(16, np.nan, np.float32)
for device, index in sharding.devices_indices_map((16,)).items():
    if device.process_index == pid:
        x[index] = np.arange(16, dtype=np.float32)[index]
xs = didax.device_put(x, sharding)
seen["shards"] = [(s.device.id, s.index[0].start, np.asarray(s.data).tolist()) for s in xs.addressable_shards]
try:
    np.asarray(xs)  # other processes hold half of it
except RuntimeError as e:
    seen["fetch_error"] = str(e)
both = lambda v: (lax.psum(v, "i"), lax.all_gather(v, "i", tiled=True))
f = didax.jit(didax.shard_map(both, mesh=mesh, in_specs=P("i"), out_specs=(P(), P()), check_vma=False))
total, gathered = f(xs)
seen["psum"], seen["all_gather"] = np.asarray(total).tolist(), np.asarray(gathered).tolist()
try:
    didax.pmap(lambda v: lax.psum(v, "i"), "i")(np.ones(4))
except NotImplementedError as e:  # (a stated limit: JAX joins each process's slices)
    seen["pmap_error"] = str(e)
didax.distributed.shutdown()
print(json.dumps(seen))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_two(mode: str, timeout: float) -> list[tuple[int | None, str, str, float]]:
    """Run the worker as processes 0 and 1: (return code, stdout, stderr, seconds) of each. A
    process still running after ``timeout`` seconds is killed (return code None)."""
    port = str(_free_port())
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(pid), port, mode], cwd=STAGE, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for pid in (0, 1)]  # fmt: skip
    results = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=max(0.1, timeout - (time.monotonic() - start)))
            results.append((proc.returncode, out, err, time.monotonic() - start))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            results.append((None, out, err, time.monotonic() - start))
    return results


def test_two_processes_of_four_devices_compute_collectives_over_all_eight():
    whole = np.arange(16, dtype=np.float32)
    blocks = whole.reshape(8, 2)  # device k holds block k
    for pid, (rc, out, err, _) in enumerate(_run_two("ok", timeout=60)):
        assert rc == 0, f"process {pid} ended with {rc}:\n{err[-3000:]}"
        seen = json.loads(out.strip().splitlines()[-1])
        assert (seen["process_index"], seen["process_count"]) == (pid, 2)
        assert (seen["device_count"], seen["local_device_count"]) == (8, 4)
        assert [p for _, p in seen["devices"]] == [0] * 4 + [1] * 4  # process 0's devices first
        assert seen["local"] == seen["devices"][4 * pid : 4 * pid + 4]  # (id, process) pairs
        mine = [i for i, (_, p) in enumerate(seen["devices"]) if p == pid]
        ids = [d for d, _ in seen["devices"]]
        assert seen["shards"] == [[ids[k], 2 * k, blocks[k].tolist()] for k in mine]
        assert "non-addressable" in seen["fetch_error"]
        np.testing.assert_array_equal(seen["psum"], blocks.sum(axis=0))
        np.testing.assert_array_equal(seen["all_gather"], whole)
        assert "shard_map" in seen["pmap_error"]


def test_when_one_process_dies_the_other_is_stopped_with_an_error():
    """Process 1 is killed after joining; process 0, waiting for it, is aborted by the
    coordination service once the heartbeats stop (3 s here), with a message naming process 1."""
    (rc0, _, err0, seconds), (rc1, _, _, _) = _run_two("die", timeout=40)
    assert rc1 == -signal.SIGKILL
    assert rc0 is not None, f"process 0 still ran after 40 s:\n{err0[-3000:]}"
    assert rc0 == -signal.SIGABRT, err0[-3000:]
    assert "stopped sending heartbeats" in err0 and "Terminating process because the JAX distributed service" in err0
    assert seconds < 30


def test_initialize_has_jaxs_signature():
    ours, theirs = inspect.signature(didax.distributed.initialize), inspect.signature(jax.distributed.initialize)
    assert [(p.name, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.default) for p in theirs.parameters.values()]  # fmt: skip


# One process: what initialize raises, for arguments, twice, and after the backend exists; the
# same script runs with jax and with didax, and prints (case, error type, message) for each.
_ERRORS = """
import json, socket, sys
lib = __import__(sys.argv[1])
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    address = f"127.0.0.1:{s.getsockname()[1]}"
seen = []

def attempt(case, *args, **kwargs):
    try:
        lib.distributed.initialize(*args, **kwargs)
        seen.append((case, None, None))
    except Exception as e:
        seen.append((case, type(e).__name__, str(e)))

attempt("no address", None, 1, 0)
attempt("no count", address, None, 0)
attempt("no id", address, 1, None)
attempt("id a string", address, 1, "0")
attempt("count a string", address, "1", 0)
attempt("id too large", address, 2, 2)
attempt("id negative", address, 2, -1)
attempt("no processes", address, 0, 0)
attempt("one process", address, 1, 0)
seen.append(("initialized", lib.distributed.is_initialized()))
attempt("twice", address, 1, 0)
lib.distributed.shutdown()
seen.append(("after shutdown", lib.distributed.is_initialized()))
lib.distributed.shutdown()  # a second shutdown does nothing
attempt("again after shutdown", address, 1, 0)
lib.jit(lambda v: v + 1)(1.0)
attempt("after computing", address, 1, 0)
seen.append(("processes", lib.process_count(), lib.process_index(), len(lib.local_devices())))
lib.distributed.shutdown()
print(json.dumps(seen))
"""


def test_initialize_raises_jaxs_errors():
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_COORDINATOR")}
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=1"
    runs = {}
    for lib in ("jax", "didax"):
        done = subprocess.run([sys.executable, "-c", _ERRORS, lib], cwd=STAGE, env=env, capture_output=True, text=True,
                              timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        runs[lib] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["didax"] == runs["jax"]
    errors = {case: kind for case, kind, *_ in runs["didax"]}
    assert errors["twice"] == errors["after computing"] == "RuntimeError"  # (the comparison is not vacuous)
    assert errors["id a string"] == "TypeError" and errors["no address"] == "ValueError"
