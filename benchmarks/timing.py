"""How one function is timed: timeit's way, best of R repeats of K calls, after a warm-up.

K is chosen per function so that one repeat lasts at least `min_time` seconds, which keeps the
clock's resolution out of the figures whether a call takes a microsecond or a hundred milliseconds.
Like timeit, the garbage collector is off while a repeat runs. The clock is wall-clock time
(``time.perf_counter``) unless a suite asks for another: the staging suite times process CPU time.
"""

from __future__ import annotations

import statistics
import time
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


def measure_side_by_side(fns: dict[str, Callable[[], object]], settings: Settings,
                         clock: Callable[[], float] = time.perf_counter) -> dict[str, Timing]:
    """Warm each function up (JAX compiles on its first call), then time them in turns: repeat r of
    every function runs before repeat r + 1 of any, and the order of the turns rotates from one
    round to the next. `clock` reads the time in seconds.

    On a machine whose load changes while the benchmark runs, each implementation then meets the
    same conditions, so their ratio stays meaningful even when the absolute figures move.
    """
    timers: dict[str, tuple[timeit.Timer, int]] = {}
    for name, fn in fns.items():
        for _ in range(settings.warmup):
            fn()
        timer = timeit.Timer(fn, timer=clock)
        timers[name] = (timer, calls_per_repeat(timer, settings.min_time))
    per_call: dict[str, list[float]] = {name: [] for name in fns}
    names = list(timers)
    for r in range(settings.repeats):
        # Each round starts with another implementation: what one leaves behind (a cold cache,
        # freed memory) then slows each of the others in turn, not always the one after it.
        for name in names[r % len(names) :] + names[: r % len(names)]:
            timer, calls = timers[name]
            per_call[name].append(timer.timeit(calls) / calls * 1e6)
    return {
        name: Timing(min(times), statistics.median(times), timers[name][1], settings.repeats)
        for name, times in per_call.items()
    }


def calls_per_repeat(timer: timeit.Timer, min_time: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... calls that together take at least `min_time`."""
    calls = 1
    while True:
        for step in (1, 2, 5):
            if timer.timeit(calls * step) >= min_time:
                return calls * step
        calls *= 10
