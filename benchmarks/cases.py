"""What a benchmark case is, and the libraries the cases are written against."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

# The implementations, in the order the tables show them.
IMPLS = ("numpy", "didax", "jax")


@dataclass(frozen=True)
class Libs:
    """The three libraries, imported once: NumPy, the didax stage under test, and real JAX."""

    numpy: ModuleType
    didax: ModuleType
    jax: ModuleType


@dataclass(frozen=True)
class Case:
    """One thing to time, as a zero-argument function per implementation.

    `calls[impl]` is None where that library has no equivalent (NumPy has no pytrees): the case is
    then recorded as absent for it. `ops` counts the operations one call performs, so that growth
    cases can report the cost per operation. `extra` is copied into the case's JSON entry as it
    is, for what a suite's own tables need (the staging suite's equation counts). `clock` times
    this case with another clock than its suite's (the jit suite times compiling in CPU time and
    dispatch in wall-clock time); `max_repeats` caps the repeats, with one warm-up call, for a case
    whose one call takes seconds.
    """

    name: str
    what: str
    calls: dict[str, Callable[[], object] | None]
    ops: int = 1
    extra: dict[str, Any] = field(default_factory=dict)
    clock: Callable[[], float] | None = None
    max_repeats: int | None = None
