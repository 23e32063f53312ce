"""Global configuration flags, set with ``didax.config.update(name, value)`` as in JAX.

Stage 01 introduced it with the two flags that change what numbers mean, 64-bit types and the
promotion mode, and accepts three more that JAX programs commonly set: the platform name, the
NaN check, and the default matmul precision.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

_PROMOTION_MODES = ("standard", "strict")
# The names jax_default_matmul_precision accepts (None too): JAX's precisions and dot algorithms.
_MATMUL_PRECISIONS = (
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64",
)


class Config:
    """The flags, read as attributes (``config.jax_enable_x64``) and written with ``update``.

    Each flag is a plain attribute, because every operation reads one: a lookup must be cheap.
    """

    # JAX's defaults: 32-bit types, the full promotion lattice, no NaN check. The platform name
    # and the matmul precision are accepted and remembered; stage 01 computes on the CPU with
    # NumPy, at full precision, whatever they say.
    _DEFAULTS: dict[str, Any] = {
        "jax_enable_x64": False,
        "jax_numpy_dtype_promotion": "standard",
        "jax_debug_nans": False,
        "jax_platform_name": "",
        "jax_default_matmul_precision": None,
        "jax_disable_jit": False,  # stage 05: run jitted functions eagerly, for debugging
        "jax_log_compiles": False,  # stage 05: log each trace and compilation of a jitted function
        # stage 07: how many CPU devices the CPU client makes; -1: one, or XLA_FLAGS's
        # --xla_force_host_platform_device_count. Fixed once the client exists (didax.xla).
        "jax_num_cpu_devices": -1,
    }

    # The flags that change what tracing a function produces (its types, its errors, its checks):
    # every cache of jit is keyed by their values, read in one go as ``trace_context`` (stage 05).
    _TRACE_FLAGS = ("jax_enable_x64", "jax_numpy_dtype_promotion", "jax_debug_nans", "jax_platform_name",
                    "jax_default_matmul_precision")  # fmt: skip

    def __init__(self) -> None:
        for name, value in self._DEFAULTS.items():
            object.__setattr__(self, name, _from_environment(name, value))
        self._remember_trace_context()

    def update(self, name: str, value: Any) -> None:
        if name not in self._DEFAULTS:
            known = ", ".join(sorted(self._DEFAULTS))
            raise AttributeError(f"Unrecognized config option: {name}. didax knows: {known}.")
        value = _validate(name, value)
        if name == "jax_num_cpu_devices" and started_backends and value != self.jax_num_cpu_devices:
            raise RuntimeError(
                "jax_num_cpu_devices config should be updated before backends are initialized i.e. before any JAX "
                "operation is executed. You should initialize this config immediately after `import jax`."
            )
        object.__setattr__(self, name, value)
        self._remember_trace_context()

    def _remember_trace_context(self) -> None:
        """Kept up to date by ``update``, so that a jitted call reads one attribute, not five."""
        object.__setattr__(self, "trace_context", tuple(getattr(self, n) for n in self._TRACE_FLAGS))

    def read(self, name: str) -> Any:
        """The value of flag ``name``, as ``jax.config.read`` gives it."""
        if name not in self._DEFAULTS:
            raise AttributeError(f"Unrecognized config option: {name}")
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Set flags with config.update({name!r}, value), not by assignment.")

    def values(self) -> dict[str, Any]:
        """A copy of every flag, for saving and restoring."""
        return {name: getattr(self, name) for name in self._DEFAULTS}


# The platforms whose client didax.xla has made (it adds them).
started_backends: set[str] = set()

_TRUE, _FALSE = ("y", "yes", "t", "true", "on", "1"), ("n", "no", "f", "false", "off", "0")


def _from_environment(name: str, default: Any) -> Any:
    """A flag's first value: its environment variable (the name in capitals: JAX_ENABLE_X64=1,
    JAX_PLATFORM_NAME=gpu), read once at import as JAX reads it; else JAX's default."""
    text = os.environ.get(name.upper())
    if text is None:
        return default
    if isinstance(default, bool):
        if text.lower() not in _TRUE + _FALSE:
            raise ValueError(f"invalid truth value {text!r} for environment {name.upper()!r}")
        return text.lower() in _TRUE
    if isinstance(default, int):
        return int(text)
    return _validate(name, text)


def _validate(name: str, value: Any) -> Any:
    if name in ("jax_enable_x64", "jax_debug_nans", "jax_disable_jit", "jax_log_compiles"):
        return bool(value)  # JAX takes any truth value here: 1, np.True_, ...
    if name == "jax_num_cpu_devices":
        if value is not None and not isinstance(value, int):
            raise ValueError(f"new int config value must be None or of type int, got {value} of type {type(value)}")
        return value
    if name == "jax_platform_name":
        return value  # JAX takes any value; didax.xla reads it when it picks a device
    if name == "jax_default_matmul_precision":
        if value is not None and value not in _MATMUL_PRECISIONS:
            raise ValueError(
                f"new enum value must be None or in {list(_MATMUL_PRECISIONS)}, got {value} of "
                f"type {type(value)}."
            )
        return value
    if value not in _PROMOTION_MODES:
        raise ValueError(
            f"jax_numpy_dtype_promotion must be one of {_PROMOTION_MODES}, got {value!r}."
        )
    return value


config = Config()


@contextlib.contextmanager
def _temporarily(name: str, value: Any) -> Iterator[None]:
    """Set flag ``name`` for the duration of a ``with`` block, restoring it on every way out."""
    previous = getattr(config, name)
    config.update(name, value)
    try:
        yield
    finally:
        config.update(name, previous)


def numpy_dtype_promotion(mode: str) -> contextlib.AbstractContextManager[None]:
    """Use promotion ``mode`` ('standard' or 'strict') inside a ``with`` block."""
    return _temporarily("jax_numpy_dtype_promotion", mode)


def enable_x64(new_val: bool = True) -> contextlib.AbstractContextManager[None]:
    """Turn 64-bit types on (or off) inside a ``with`` block."""
    return _temporarily("jax_enable_x64", new_val)


def disable_jit(disable: bool = True) -> contextlib.AbstractContextManager[None]:
    """Run jitted functions eagerly inside a ``with`` block (stage 05)."""
    return _temporarily("jax_disable_jit", disable)
