"""The one door to XLA: every use of jaxlib in didax is in this module (stage 05).

jaxlib is the compiled half of JAX: XLA's compiler and runtime (PJRT) with Python bindings. Its
Python-visible internals change from release to release, so didax pins one version, checks it at
import, and keeps every call behind the few functions here:

- ``devices()``, ``default_device()``: the devices of the platform ``jax_platform_name`` picks;
- ``put(value, device)`` and ``fetch(buffer)``: a NumPy array to device memory and back;
- ``compile(module_text, device)``: StableHLO text (didax/lowering writes it) to an executable,
  with jaxlib's LAPACK routines made ready first if the program calls them (``use_lapack``);
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

from .config import config

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
    if platform == "cpu":
        return xc.make_cpu_client()
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


def platform() -> str:
    """The platform computations run on: ``jax_platform_name`` if set, else the CPU."""
    name = config.jax_platform_name or "cpu"
    return "cuda" if name == "gpu" else name


def devices(backend: str | None = None) -> list[Any]:
    """The devices of ``backend`` (default: the configured platform), as jaxlib's Device objects."""
    name = platform() if backend is None else ("cuda" if backend == "gpu" else backend)
    return list(_client(name).devices())


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
    return buffer._sharding._device


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
    """An MLIR context that knows the dialects didax writes: func, stablehlo and chlo."""
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
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
    """A compiled program on one device, with the result handlers that wrap its outputs."""

    __slots__ = ("loaded", "device", "out_avals", "_handlers")

    def __init__(self, loaded: Any, device: Any, out_avals: Sequence[Any]) -> None:
        self.loaded, self.device, self.out_avals = loaded, device, list(out_avals)
        sharding = _sharding(device)
        self._handlers = [
            _jax.array_result_handler(_Aval(a.shape, a.dtype), sharding, True, **_UNCHECKED) for a in out_avals
        ]

    def run(self, buffers: Sequence[Any]) -> list[Any]:
        """Run on ``buffers`` (already on the device); the output buffers, maybe not yet ready."""
        try:
            return self.loaded.execute_sharded(buffers).consume_with_handlers(self._handlers)
        except _jax.JaxRuntimeError as e:
            if any(map(is_deleted, buffers)):  # JAX's class for this user error, with its fix
                raise ValueError(f"{str(e).rstrip('.')}. An argument's buffer was deleted (or donated to an earlier call): "
                                 "pass a live Array.") from None  # fmt: skip
            raise XlaRuntimeError(str(e)) from None

    def as_text(self) -> str:
        """The HLO module XLA made of the program, after its optimizations."""
        return self.loaded.hlo_modules()[0].to_string()

    def cost_analysis(self) -> dict[str, float]:
        return dict(self.loaded.cost_analysis())


def compile(module_text: str, device: Any, out_avals: Sequence[Any],  # noqa: A001
            host_callbacks: Sequence[Any] = ()) -> Executable:  # fmt: skip
    """Compile StableHLO text for ``device``, with the Python functions its custom calls into
    Python call (by index). XLA's errors come back as XlaRuntimeError."""
    if 'call_target_name = "lapack_' in module_text:  # (written by didax/lowering/linalg.py)
        use_lapack()
    module = parse(module_text)
    client = _client(platform_of(device))
    extra = {"host_callbacks": list(host_callbacks)} if host_callbacks else {}
    try:
        loaded = client.compile_and_load(module, _jax.DeviceList((device,)), xc.CompileOptions(), **extra)
    except _jax.JaxRuntimeError as e:
        raise XlaRuntimeError(str(e)) from None
    return Executable(loaded, device, out_avals)


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

