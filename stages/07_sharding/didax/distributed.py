"""``didax.distributed``: one program run as several processes, each with its own devices (stage 07).

Every process calls ``initialize`` first, with the same coordinator address (process 0's host and
a free port) and its own ``process_id``. Process 0 starts a coordination service there; each
process connects to it, and its CPU client, made afterwards, then lists the devices of every
process (``didax.devices()``), runs programs compiled for all of them, and exchanges collectives'
data with the other processes over TCP (gloo). ``local_devices()`` are this process's own.

The service also watches that everyone is alive: a process that sends no heartbeat for
``heartbeat_timeout_seconds`` is declared dead, and the others are then aborted (SIGABRT, with a
message naming the dead process) instead of waiting forever in a collective.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

from . import xla
from .config import started_backends


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:  # fmt: skip
    """Join the processes: returns once all ``num_processes`` have called it (within
    ``initialization_timeout`` seconds). Call it before anything that makes the backend
    (a computation, ``didax.devices()``), as in JAX.

    ``coordinator_address`` defaults to the environment variable JAX_COORDINATOR_ADDRESS; process 0
    listens on ``coordinator_bind_address`` (default: every interface, at that address's port).
    ``local_device_ids``, ``partition_index`` (and its old name ``slice_index``) are accepted and
    change nothing on the CPU, as in JAX. didax does not detect clusters (Slurm, Open MPI, TPU pods):
    the three numbers must be given."""
    if started_backends:
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX calls that might initialise "
                           "the XLA backend. This includes any computation, but also calls to jax.devices, "
                           "jax.device_put, and others.")  # fmt: skip
    if cluster_detection_method not in (None, "deactivate"):
        raise NotImplementedError(f"didax detects no clusters (cluster_detection_method={cluster_detection_method!r}): "
                                  "pass coordinator_address, num_processes and process_id.")  # fmt: skip
    if slice_index is not None and partition_index is None:
        warnings.warn("`slice_index` has been deprecated. Please use `partition_index` instead.", DeprecationWarning)
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    _check(coordinator_address, num_processes, process_id)
    assert coordinator_address is not None and num_processes is not None and process_id is not None
    if xla.in_cluster():
        raise RuntimeError("distributed.initialize should only be called once.")
    port = coordinator_address.rpartition(":")[2]
    bind = coordinator_bind_address or os.environ.get("JAX_COORDINATOR_BIND_ADDRESS", f"[::]:{port}")
    xla.join_cluster(coordinator_address, bind, num_processes, process_id, init_timeout=initialization_timeout,
                     heartbeat_timeout=heartbeat_timeout_seconds, shutdown_timeout=shutdown_timeout_seconds)  # fmt: skip


def _check(coordinator_address: str | None, num_processes: int | None, process_id: int | None) -> None:
    """JAX's errors for missing or ill-typed arguments (bool passes as int, as in Python)."""
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if ":" not in coordinator_address:  # (JAX fails here with an IndexError from splitting it)
        raise ValueError(f"coordinator_address should be host:port, got {coordinator_address!r}.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int):
        raise TypeError(f"process_id must be a nonnegative int. Got process_id={process_id} of type {type(process_id)}.")
    if not isinstance(num_processes, int):
        raise TypeError(f"num_processes must be a positive int. Got num_processes={num_processes} of type "
                        f"{type(num_processes)}.")  # fmt: skip
    if not 0 <= process_id < num_processes:
        raise ValueError("process_id and num_processes must be nonnegative, with process_id < num_processes. "
                         f"Got process_id={process_id}, num_processes={num_processes}.")  # fmt: skip


def is_initialized() -> bool:
    """Whether ``initialize`` has joined this process to others (and ``shutdown`` not yet left)."""
    return xla.in_cluster()


def shutdown() -> None:
    """Leave the processes: disconnect, and on process 0 stop the service. Does nothing if not
    initialized. (The backend made meanwhile stays; it is JAX's order too.)"""
    xla.leave_cluster()
