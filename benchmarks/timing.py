"""How one function is timed: timeit's way, best of R repeats of K calls, after a warm-up.

K is chosen per function so that one repeat lasts at least `min_time` seconds, which keeps the
clock's resolution out of the figures whether a call takes a microsecond or a hundred milliseconds.
Like timeit, the garbage collector is off while a repeat runs.
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """How hard to try: repeats per function, the shortest repeat, and warm-up calls."""

    repeats: int
    min_time: float  # seconds one repeat must at least last
    warmup: int


FULL = Settings(repeats=15, min_time=0.05, warmup=5)
QUICK = Settings(repeats=3, min_time=0.002, warmup=2)  # for tests: the figures mean little


@dataclass(frozen=True)
class Timing:
    """Microseconds per call: the best repeat and the median one, and how they were taken."""

    min_us: float
    median_us: float
    calls: int  # K, calls per repeat
    repeats: int  # R

    def as_json(self) -> dict[str, float | int]:
        return {"min_us": round(self.min_us, 4), "median_us": round(self.median_us, 4),
                "calls": self.calls, "repeats": self.repeats}


def measure(fn: Callable[[], object], settings: Settings) -> Timing:
    """Warm `fn` up (JAX compiles on its first call), then time it."""
    for _ in range(settings.warmup):
        fn()
    timer = timeit.Timer(fn)
    calls = calls_per_repeat(timer, settings.min_time)
    per_call = [total / calls * 1e6 for total in timer.repeat(repeat=settings.repeats, number=calls)]
    return Timing(min(per_call), statistics.median(per_call), calls, settings.repeats)


def calls_per_repeat(timer: timeit.Timer, min_time: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... calls that together take at least `min_time`."""
    calls = 1
    while True:
        for step in (1, 2, 5):
            if timer.timeit(calls * step) >= min_time:
                return calls * step
        calls *= 10
