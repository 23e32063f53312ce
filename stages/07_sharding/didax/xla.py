"""The one door to XLA: every use of jaxlib in didax is in this module (stage 05).

jaxlib is the compiled half of JAX: XLA's compiler and runtime (PJRT) with Python bindings. Its
Python-visible internals change from release to release, so didax pins one version, checks it at
import, and keeps every call behind the few functions here:

- ``devices()``, ``default_device()``: the devices of the platform ``jax_platform_name`` picks;
- ``put(value, device)`` and ``fetch(buffer)``: a NumPy array to device memory and back;
- ``put_global(blocks, sharding)`` and ``shards(buffer)``: one array spread over several devices
  (stage 07), and the single-device pieces it is made of;
- ``compile(module_text, devices)``: StableHLO text (didax/lowering writes it) to an executable
  for one device, or for several as one SPMD program (stage 07), with jaxlib's LAPACK routines
  made ready first if the program calls them (``use_lapack``);
- ``Executable.run(buffers)``: run it, asynchronously where the platform allows.

Nothing else in the package imports jaxlib. The facts this module relies on were measured on
jaxlib 0.10.2, the version pip installs. It runs on 0.11.2 too (what a GPU machine with CUDA 13
may carry): there the result handler lost one keyword, and five of the stage's tests differ, by
that release's XLA or JAX (digamma and zeta at their poles, one jaxpr printed another way).
"""

from __future__ import annotations

import functools
import importlib.util
import operator
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from .config import config, started_backends

JAXLIB_VERSION = "0.10.2"  # what `pip install .` gives
RUNS_ON = (JAXLIB_VERSION, "0.11.2")  # releases whose internal API didax was run and tested on

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # XLA's C++ logs every client it makes at INFO

try:
    import jaxlib
except ImportError as e:  # pragma: no cover - the package depends on it
    raise ImportError(f"didax.jit needs jaxlib=={JAXLIB_VERSION}: pip install jaxlib=={JAXLIB_VERSION}") from e
if jaxlib.__version__ not in RUNS_ON:
    raise ImportError(
        f"didax stage 05 drives XLA through jaxlib's internal Python API, which changes between "
        f"releases; it runs on jaxlib {' or '.join(RUNS_ON)}, and found {jaxlib.__version__}. Install "
        f"the pinned version: pip install jaxlib=={JAXLIB_VERSION}"
    )

from jaxlib import _jax  # noqa: E402
from jaxlib import xla_client as xc  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir._mlir_libs import _jax_mlir_ext  # noqa: E402
from jaxlib.mlir.dialects import chlo  # noqa: E402
from jaxlib.mlir.dialects import sdy  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402


class XlaRuntimeError(RuntimeError):
    """An error from XLA (compiling or running), with what didax was doing when it happened."""


# ----------------------------------------------------------------------------------------------
# Three shims: what JAX's Python half would otherwise provide to jaxlib's C++ half.


def _install_jax_stub() -> None:
    """jaxlib's C++ code imports ``jax._src.sharding_impls`` to make a device's sharding whenever
    it splits or reads back an array. Without jax installed that import fails, every time, at about
    100 µs a call. A stub module with the one function it wants answers it instead; it is
    installed only where jax cannot be imported, so it never hides a real jax."""
    try:
        if "jax" in sys.modules or importlib.util.find_spec("jax") is not None:
            return
    except (ImportError, ValueError):  # jax blocked: by an import hook, or sys.modules["jax"] = None
        pass
    stub = types.ModuleType("jax")
    stub.__path__ = []  # a package, so that jax._src can be found in sys.modules
    stub.__didax_stub__ = True  # type: ignore[attr-defined]
    src = types.ModuleType("jax._src")
    src.__path__ = []
    impls = types.ModuleType("jax._src.sharding_impls")
    def make_single_device_sharding(device: Any, *, memory_kind: Any = None) -> Any:
        return xc.SingleDeviceSharding(device, memory_kind=memory_kind)

    impls.make_single_device_sharding = make_single_device_sharding  # type: ignore[attr-defined]
    sys.modules.update({"jax": stub, "jax._src": src, "jax._src.sharding_impls": impls})


_install_jax_stub()

# Every put reads a 64-bit flag. didax hands jaxlib only values of the dtype they must have (it
# canonicalizes before), so each put says the flag is on. The flag also has a process-wide value,
# which belongs to JAX if JAX is loaded too (the tests compare with it): didax leaves that alone.
# jax attaches this method to the C++ class in Python; a single device's data is whole there.
xc.SingleDeviceSharding._to_xla_hlo_sharding = lambda self, num_dims: xc.HloSharding.replicate()


# ----------------------------------------------------------------------------------------------
# Devices.


@functools.cache
def _client(platform: str) -> Any:
    started_backends.add(platform)  # from now on jax_num_cpu_devices may not change (config.py)
    if platform == "cpu":
        # jaxlib reads XLA_FLAGS=--xla_force_host_platform_device_count=N by itself; the flag, if
        # set, overrides it, as in JAX.
        count = config.jax_num_cpu_devices
        options: dict[str, Any] = {"num_devices": count} if count is not None and count > 0 else {}
        if _cluster.client is not None:
            # One of several processes (didax.distributed): the client learns the others' devices
            # through the coordinator, and runs collectives across processes over TCP (gloo).
            options.update(distributed_client=_cluster.client, node_id=_cluster.process_id,
                           num_nodes=_cluster.num_processes,
                           collectives=_jax.make_gloo_tcp_collectives(distributed_client=_cluster.client))  # fmt: skip
        return xc.make_cpu_client(**options)
    if platform in ("gpu", "cuda"):
        return _cuda_client()
    raise RuntimeError(f"Unknown backend {platform!r}: didax knows 'cpu' and 'cuda' ('gpu').")


def _cuda_client() -> Any:
    """The CUDA client, from jaxlib's CUDA plugin (the jax-cuda12-plugin wheel, or CUDA 13's) if
    installed."""
    spec = next(filter(None, map(_find_module, ("jax_plugins.xla_cuda12", "jax_plugins.xla_cuda13"))), None)
    if spec is None or spec.submodule_search_locations is None:
        raise RuntimeError(
            "Backend 'cuda' requested, but jaxlib's CUDA plugin is not installed: "
            f'pip install "jax-cuda12-plugin[with-cuda]=={JAXLIB_VERSION}" (or didax\'s extra: pip install ".[cuda]")'
        )
    folder = spec.submodule_search_locations[0]
    library = next((f for f in os.listdir(folder) if f.startswith("xla_cuda_plugin") and f.endswith(".so")), None)
    if library is None:
        raise RuntimeError(f"jaxlib's CUDA plugin in {folder} has no xla_cuda_plugin*.so")
    try:
        if not xc.pjrt_plugin_loaded("cuda"):  # (JAX, if in the process too, may have loaded it:
            xc.load_pjrt_plugin_dynamically("cuda", os.path.join(folder, library))  # a second load fails)
        if not xc.pjrt_plugin_initialized("cuda"):
            xc.initialize_pjrt_plugin("cuda")
        # JAX's options for the GPU client, read from the environment as JAX reads them: how much
        # memory to take up front (XLA_PYTHON_CLIENT_PREALLOCATE, XLA_CLIENT_MEM_FRACTION), the allocator.
        return xc.make_c_api_client("cuda", xc.generate_pjrt_gpu_plugin_options(), None)
    except _jax.JaxRuntimeError as e:  # no GPU, no driver: JAX's words for it
        raise RuntimeError(f"Unable to initialize backend 'cuda': {e} (set jax_platform_name to 'cpu' "
                           "to use the CPU)") from None


def _find_module(name: str) -> Any:
    try:  # (find_spec raises when not even the namespace package jax_plugins is there)
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None


# ----------------------------------------------------------------------------------------------
# Several processes (stage 07): the coordinator's runtime, which didax.distributed starts before
# the CPU client exists.


class _Cluster:
    """This process's place among several: the coordination service (process 0 only), this
    process's client of it, and the numbers the CPU client is made with."""

    service: Any = None
    client: Any = None
    process_id = 0
    num_processes = 1


_cluster = _Cluster()


def join_cluster(coordinator: str, bind_address: str, num_processes: int, process_id: int, *,
                 init_timeout: int, heartbeat_timeout: int, shutdown_timeout: int) -> None:  # fmt: skip
    """Start the coordination service if this is process 0, then connect to it; returns once every
    process has connected (XlaRuntimeError after ``init_timeout`` seconds otherwise). A process that
    stops sending heartbeats for ``heartbeat_timeout`` seconds is declared dead, and the service then
    aborts the others."""
    service = None
    if process_id == 0:
        service = _jax.get_distributed_runtime_service(bind_address, num_processes, heartbeat_timeout=heartbeat_timeout,
                                                       shutdown_timeout=shutdown_timeout)  # fmt: skip
    client = _jax.get_distributed_runtime_client(coordinator, process_id, init_timeout=init_timeout,
                                                 heartbeat_timeout=heartbeat_timeout,
                                                 shutdown_timeout=shutdown_timeout, use_compression=True)  # fmt: skip
    try:
        client.connect()
    except _jax.JaxRuntimeError as e:
        if service is not None:
            service.shutdown()
        raise XlaRuntimeError(f"could not join the processes' coordinator at {coordinator}: {e}") from None
    _cluster.service, _cluster.client = service, client
    _cluster.process_id, _cluster.num_processes = process_id, num_processes


def in_cluster() -> bool:
    return _cluster.client is not None


def leave_cluster() -> None:
    """Disconnect (waiting, up to the shutdown timeout, for the other processes to disconnect too),
    then stop the service if this process runs it."""
    if _cluster.client is not None:
        _cluster.client.shutdown()
    if _cluster.service is not None:
        _cluster.service.shutdown()
    _cluster.service = _cluster.client = None


def platform() -> str:
    """The platform computations run on: ``jax_platform_name`` if set, else the CPU."""
    name = config.jax_platform_name or "cpu"
    return "cuda" if name == "gpu" else name


def _backend(backend: str | None) -> Any:
    return _client(platform() if backend is None else ("cuda" if backend == "gpu" else backend))


def devices(backend: str | None = None) -> list[Any]:
    """The devices of ``backend`` (default: the configured platform), as jaxlib's Device objects:
    those of every process, when several run together."""
    return list(_backend(backend).devices())


def process_index(backend: str | None = None) -> int:
    """This process's number among those running together (0 when it runs alone)."""
    return _backend(backend).process_index()


def default_device() -> Any:
    return devices()[0]


# ----------------------------------------------------------------------------------------------
# Moving values.


class _Aval:
    """The duck-typed aval jaxlib wants beside a put: shape, dtype and weak_type."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, weak_type: bool = False) -> None:
        self.shape, self.dtype, self.weak_type = shape, dtype, weak_type


@functools.cache
def _sharding(device: Any) -> Any:
    return xc.SingleDeviceSharding(device)


def put(value: np.ndarray, device: Any) -> Any:
    """A device buffer holding a copy of ``value`` (a NumPy array of a canonical dtype). Copied,
    not aliased: on the CPU jaxlib would otherwise share the NumPy memory, and a later write to
    ``value`` would change a didax array."""
    aval = _Aval(value.shape, value.dtype)
    return _jax.batched_device_put(
        aval, _sharding(device), [value], [device], True, True, xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
        enable_x64=True,  # never narrow: jax, if jaxlib imports it, resets the global flag to its own
    )


# Dtypes NumPy's buffer protocol cannot read back (np.asarray gives an object array for them).
_NOT_IN_BUFFER_PROTOCOL = frozenset("bfloat16 float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz "
                                    "float8_e4m3b11fnuz int4 uint4".split())  # fmt: skip


def fetch(buffer: Any, dtype: np.dtype) -> np.ndarray:
    """``buffer``'s contents as a read-only NumPy array of ``dtype`` (waits until it is ready)."""
    if dtype.name in _NOT_IN_BUFFER_PROTOCOL or device_of(buffer).platform != "cpu":  # (a GPU buffer
        value = buffer._single_device_array_to_np_array_did_copy()[0]  # has no buffer protocol) every dtype
    else:
        value = np.asarray(buffer)
    value.flags.writeable = False
    return value


def device_of(buffer: Any) -> Any:
    try:
        return buffer._sharding._device
    except AttributeError:  # a mesh's program of one device gives a "global" array of one piece
        return buffer._sharding._device_assignment[0]


def put_global(blocks: Sequence[np.ndarray], devices: Sequence[Any], shape: tuple[int, ...],
               tile_assignment: np.ndarray) -> Any:  # fmt: skip
    """One array of ``shape`` spread over ``devices``: ``blocks[i]`` (a NumPy array) is copied to
    ``devices[i]``, and ``tile_assignment`` (a sharding's ``_tile_assignment``) says which block of
    the whole each device holds. jaxlib's global array is built from single-device arrays, in the
    order of ``devices`` (its batched put fails on partly replicated shardings)."""
    here = process_index(devices[0].platform)  # (with several processes, each puts its own blocks)
    pieces = [put(np.asarray(b, order="C"), d) for b, d in zip(blocks, devices) if d.process_index == here]
    sharding = xc.GSPMDSharding(tuple(devices), hlo_sharding(tile_assignment))
    return _jax.ArrayImpl(_Aval(shape, blocks[0].dtype), sharding, pieces, True, True)  # committed, no checks


def hlo_sharding(tile_assignment: np.ndarray) -> Any:
    """XLA's sharding of a tile assignment: blocks per array axis, then copies, last."""
    *tiles, copies = tile_assignment.shape
    if all(n == 1 for n in tiles):
        return xc.HloSharding.replicate()
    proto = xc.OpSharding()
    proto.type = xc.OpSharding.Type.OTHER
    proto.tile_assignment_dimensions = [*tiles, copies] if copies > 1 else tiles
    proto.tile_assignment_devices = [int(i) for i in tile_assignment.flat]
    proto.replicate_on_last_tile_dim = copies > 1
    return xc.HloSharding.from_proto(proto)


def shards(buffer: Any) -> list[tuple[Any, Any]]:
    """The (device, single-device buffer) pieces of a global array, in its devices' order. (Never
    read a global array as one buffer: jaxlib then silently gives its first piece only.)"""
    return [(device_of(piece), piece) for piece in buffer._arrays]


# Calls of a buffer's own methods, as C-level callables: a wait is often the last thing a timed
# loop does (Array.block_until_ready), and a Python function would add a frame to each.
block_until_ready = operator.methodcaller("block_until_ready")


def block_until_all_ready(buffers: Sequence[Any]) -> None:
    """Wait for several buffers at once (one call into jaxlib instead of one per buffer)."""
    xc.batched_block_until_ready(list(buffers))


def delete(buffer: Any) -> None:
    buffer.delete()


is_deleted = operator.methodcaller("is_deleted")


# ----------------------------------------------------------------------------------------------
# Compiling and running.


@functools.cache
def _context() -> Any:
    """An MLIR context that knows the dialects didax writes: func, stablehlo, chlo, and sdy
    (Shardy's meshes and shardings, stage 07)."""
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    return ctx


def parse(module_text: str) -> Any:
    """The MLIR module of ``module_text``, checked by MLIR's verifier."""
    with _context():
        try:
            module = ir.Module.parse(module_text)
        except ir.MLIRError as e:
            raise XlaRuntimeError(f"didax wrote StableHLO that MLIR cannot parse:\n{e}") from None
        if not module.operation.verify():
            raise XlaRuntimeError("didax wrote StableHLO that MLIR's verifier rejects")
    return module


def pretty(module_text: str) -> str:
    """``module_text`` as MLIR prints it: StableHLO's own syntax, as ``jax.jit(f).lower(x).as_text()``."""
    with _context():
        return str(parse(module_text))


# jaxlib 0.10.2 checks each result's aval unless told not to (didax's are right by construction);
# 0.11.2 has no such check, and no such keyword.
_UNCHECKED = {"_skip_checks": True} if jaxlib.__version__ == "0.10.2" else {}


class Executable:
    """A compiled program on its devices (one, or the devices of a mesh in its order), with the
    result handlers that wrap its outputs: on one device each, or spread over the devices as XLA
    put them (``out_shardings``: as main's results were pinned, or as XLA chose)."""

    __slots__ = ("loaded", "devices", "out_avals", "out_shardings", "spmd", "_handlers")

    def __init__(self, loaded: Any, devices: Sequence[Any], out_avals: Sequence[Any], spmd: bool = False) -> None:
        self.loaded, self.devices, self.out_avals, self.spmd = loaded, tuple(devices), list(out_avals), spmd
        if not spmd:
            shardings = [_sharding(self.devices[0])] * len(self.out_avals)
        else:
            chosen = loaded.get_output_shardings()  # (None for a mesh of one device: all whole)
            self.out_shardings = [xc.HloSharding.from_proto(o) for o in chosen] if chosen is not None else \
                [xc.HloSharding.replicate()] * len(self.out_avals)  # fmt: skip
            shardings = [xc.GSPMDSharding(self.devices, h) for h in self.out_shardings]
        self._handlers = [_jax.array_result_handler(_Aval(a.shape, a.dtype), s, True, **_UNCHECKED)
                          for a, s in zip(self.out_avals, shardings)]  # fmt: skip

    def run(self, buffers: Sequence[Any]) -> list[Any]:
        """Run on ``buffers`` (already on the devices); the output buffers, maybe not yet ready."""
        try:
            outs = self.loaded.execute_sharded(buffers).consume_with_handlers(self._handlers)
        except _jax.JaxRuntimeError as e:
            if any(map(is_deleted, buffers)):  # JAX's class for this user error, with its fix
                raise ValueError(f"{str(e).rstrip('.')}. An argument's buffer was deleted (or donated to an earlier call): "
                                 "pass a live Array.") from None  # fmt: skip
            raise XlaRuntimeError(str(e)) from None
        if self.spmd:
            # One program over several CPU devices runs a thread per device, and its collectives
            # wait for all of them; two such programs in flight at once can each hold some of the
            # threads and wait forever for the rest (seen here, on 2 cores: JAX 0.10.2 and didax
            # both hung so, alternating pmap and shard_map steps). So a program on a mesh is
            # waited for before the next one starts.
            block_until_all_ready(outs)
        return outs

    def as_text(self) -> str:
        """The HLO module XLA made of the program, after its optimizations."""
        return self.loaded.hlo_modules()[0].to_string()

    def cost_analysis(self) -> dict[str, float]:
        return dict(self.loaded.cost_analysis())


def compile(module_text: str, device: Any, out_avals: Sequence[Any],  # noqa: A001
            host_callbacks: Sequence[Any] = ()) -> Executable:
    """Compile StableHLO text for ``device``, with the Python functions its custom calls into
    Python call (by index). XLA's errors come back as XlaRuntimeError.

    ``device`` may also be a list of devices (stage 07), a mesh's, even of one: the program is then one SPMD program,
    which XLA's partitioner (Shardy) copies once per device, partition k running on
    ``device[k]``, from the shardings the module's text gives main's arguments and results."""
    spmd = isinstance(device, (list, tuple))
    devices = list(device) if spmd else [device]
    if 'call_target_name = "lapack_' in module_text:  # (written by didax/lowering/linalg.py)
        use_lapack()
    module = parse(module_text)
    client = _client(platform_of(devices[0]))
    extra = {"host_callbacks": list(host_callbacks)} if host_callbacks else {}
    options = xc.CompileOptions()
    if spmd:
        options.num_replicas, options.num_partitions = 1, len(devices)
        build = options.executable_build_options
        build.use_spmd_partitioning = build.use_shardy_partitioner = True
        options.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices]]))
    try:
        loaded = client.compile_and_load(module, _jax.DeviceList(tuple(devices)), options, **extra)
    except _jax.JaxRuntimeError as e:
        raise XlaRuntimeError(str(e)) from None
    return Executable(loaded, devices, out_avals, spmd)


@functools.cache
def use_lapack() -> None:
    """Make jaxlib's LAPACK routines callable from compiled programs on the CPU, before the first
    program that calls one is compiled: register each as an XLA custom call target, then point
    jaxlib at the LAPACK and BLAS that SciPy ships (importing ``scipy.linalg``, a quarter second)."""
    from jaxlib import lapack

    for name, target, api_version in lapack.registrations()["cpu"]:
        xc.register_custom_call_target(name, target, platform="cpu", api_version=api_version)
    lapack._lapack.initialize()


def platform_of(device: Any) -> str:
    return "cuda" if device.platform == "gpu" else device.platform

