"""Run the benchmarks: time didax, real JAX and NumPy side by side in one process, and write
`<out>/<stage>-<suite>.json` and `.md`, which the course site's performance page shows.

    python -m benchmarks.run                      # the newest stage, every case, into benchmarks/results
    python -m benchmarks.run --quick --filter sin --out /tmp/bench

`python benchmarks/run.py` works too. JAX runs on the CPU (on the GPU with `--platform gpu`), and
results are timings, never pass/fail.
"""

from __future__ import annotations

import os

os.environ["JAX_PLATFORMS"] = "cpu"  # before anything imports jax: compare with JAX on the same CPU
os.environ.pop("JAX_PLATFORM_NAME", None)  # (and didax: --platform gpu sets both, after parsing)
# One BLAS thread for NumPy (so for didax and for the NumPy baseline alike), unless the caller says
# otherwise: on a small shared machine OpenBLAS's worker threads spin and stall, and one wide matrix
# product (what a vmap over one operand of a dot becomes) then took ten times as long as on one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import dataclasses
import datetime
import json
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python benchmarks/run.py`: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import eager, jaxpr, jit, jvp, pytrees, report, sharding, vjp, vmap  # noqa: E402
from benchmarks.cases import IMPLS, Case, Libs  # noqa: E402
from benchmarks.timing import FULL, QUICK, Settings, Timing, measure_side_by_side  # noqa: E402
from conformance.impl import STAGES_DIR, load, newest_stage  # noqa: E402  (loads a stage under its own name)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results"


# Each module: SUITE, TITLE, cases(libs); CAPABILITY if a stage needs one; tables(cases) for tables of
# its own, from the cases' JSON entries; CLOCK if not wall-clock time (time.perf_counter).
SUITES = (eager, pytrees, jvp, vmap, jaxpr, jit, vjp, sharding)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.platform == "gpu":  # JAX and didax both on the GPU, read when each is imported
        os.environ.update(JAX_PLATFORMS="cuda", JAX_PLATFORM_NAME="gpu")
    libs = import_libs(args.stage)
    if args.platform == "gpu":
        libs.jax.devices()  # JAX loads the CUDA plugin first: its loader fails on one didax has loaded
    settings = QUICK if args.quick else FULL
    suites = [s for s in SUITES if getattr(s, "CAPABILITY", "eval") in capabilities(libs.didax)]
    if args.suite:
        suites = [s for s in suites if s.SUITE in args.suite]
        if not suites:
            print(f"stage {args.stage} has no suite {', '.join(args.suite)}", file=sys.stderr)
            return 2
    if sharding in suites:  # several CPU devices, asked for before either library starts its backend
        for lib in (libs.didax, libs.jax):
            lib.config.update("jax_num_cpu_devices", sharding.DEVICES)
    chosen = [(suite, [c for c in suite.cases(libs) if selected(c, args.filter)]) for suite in suites]
    if not any(cases for _, cases in chosen):
        names = ", ".join(c.name for suite in suites for c in suite.cases(libs))
        print(f"no case matches --filter {args.filter}; the cases are: {names}", file=sys.stderr)
        return 2
    for suite, cases in chosen:
        if not cases:
            continue
        load_before = load_average()
        clock = getattr(suite, "CLOCK", time.perf_counter)
        measured = [(case, time_case(case, settings, case.clock or clock)) for case in cases]
        meta = metadata(args, libs, settings, suite.SUITE)
        meta["timing"]["clock"] = clock.__name__
        own_clocks = {c.name: c.clock.__name__ for c in cases if c.clock and c.clock is not clock}
        if own_clocks:  # cases timed with a clock of their own, named in the `measured` line
            meta["timing"]["case_clocks"] = own_clocks
        meta["load_average"] = {"before": load_before, "after": load_average()}
        on_gpu = args.platform == "gpu"  # kept apart from the CPU's figures: a file of its own
        data = report.results_json(f"Stage {args.stage}: {suite.TITLE}{', on a GPU' if on_gpu else ''}", meta,
                                   measured, getattr(suite, "tables", None))
        write(data, args.out / f"{args.stage}-{suite.SUITE}{'-gpu' if on_gpu else ''}")
    return 0


def capabilities(module: Any) -> tuple[str, ...]:
    """What the stage can do (its ``__capabilities__``), which decides the suites it gets."""
    return tuple(getattr(module, "__capabilities__", ("eval",)))


def load_average() -> list[float] | None:
    """The system's load averages over 1, 5 and 15 minutes (None where the OS has none): on a shared
    machine, how busy it was while the figures were taken."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    stages = sorted(p.parent.name for p in STAGES_DIR.glob("*/didax"))
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", default=newest_stage(), choices=stages,
                        help="the stage whose didax is timed (default: the newest, %(default)s)")
    parser.add_argument("--quick", action="store_true", help="few, short repeats: for tests, rough figures")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder for the JSON and Markdown results (default: benchmarks/results)")
    parser.add_argument("--suite", action="append", default=[], choices=[s.SUITE for s in SUITES],
                        help="run only this suite of the stage's (may be given more than once; default: all)")
    parser.add_argument("--filter", action="append", default=[], metavar="SUBSTR",
                        help="run only cases whose name holds SUBSTR (may be given more than once)")
    parser.add_argument("--platform", choices=("cpu", "gpu"), default="cpu",
                        help="where JAX and a jitting stage's compiled code run (default: cpu; gpu needs "
                             "jaxlib's CUDA plugin); NumPy and eager didax run on the CPU either way")
    return parser.parse_args(argv)


def import_libs(stage: str) -> Libs:
    """NumPy, JAX, and the stage's didax under a name of its own (didax_01_eval).

    didax first: from stage 05 on it drives jaxlib, and its import sets jaxlib's process-wide
    64-bit flag for its own use, which JAX reads too; JAX, imported after, sets the flag back to
    its own (didax passes the flag with every value it hands jaxlib, so it needs no global).
    The other way round, JAX's jitted functions read didax's flag, turn a Python float into a
    float64 and reject it (`jnp.linspace(1.0, 2.0, 8, dtype="float32")` raised).
    """
    didax = load(stage).module
    import jax
    import numpy

    return Libs(numpy=numpy, didax=didax, jax=jax)


def selected(case: Case, filters: list[str]) -> bool:
    return not filters or any(f.lower() in case.name.lower() for f in filters)


def time_case(case: Case, settings: Settings,
              clock: Callable[[], float] = time.perf_counter) -> dict[str, Timing | None]:
    """Each implementation's timing of the case, None where it has no equivalent."""
    if case.max_repeats:  # a slow case: fewer repeats, one warm-up call
        settings = dataclasses.replace(settings, repeats=min(settings.repeats, case.max_repeats),
                                       warmup=min(settings.warmup, 1))
    measured = measure_side_by_side({impl: fn for impl, fn in case.calls.items() if fn}, settings, clock)
    timings = {impl: measured.get(impl) for impl in case.calls}
    shown = "  ".join(f"{impl} {t.min_us:10.2f} µs" if t else f"{impl} {'—':>10}   " for impl, t in timings.items())
    print(f"{case.name:16} {shown}", file=sys.stderr)
    return timings


def metadata(args: argparse.Namespace, libs: Libs, settings: Settings, suite: str) -> dict[str, Any]:
    """When, where and how the figures were taken."""
    commit, dirty = git_state()
    return {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "stage": args.stage,
        "suite": suite,
        "git_commit": commit,
        "git_dirty": dirty,
        "machine": machine(libs),
        "timing": {"repeats": settings.repeats, "min_repeat_s": settings.min_time,
                   "warmup_calls": settings.warmup, "quick": args.quick},
        "filter": args.filter,
        "suites": args.suite,
        "implementations": list(IMPLS),
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }


def machine(libs: Libs) -> dict[str, Any]:
    import jaxlib

    cpu = cpu_model()
    cpus = os.cpu_count()
    return {
        "description": f"{platform.system()} {platform.machine()}, {cpu}, {cpus} CPUs",
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": cpus,
        "python": platform.python_version(),
        "numpy": libs.numpy.__version__,
        "jax": libs.jax.__version__,
        "jaxlib": jaxlib.__version__,
        "jax_backend": libs.jax.default_backend(),
        "jax_device": libs.jax.devices()[0].device_kind,  # the GPU's name, when on one
    }


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo on Linux, else whatever platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def git_state() -> tuple[str | None, bool]:
    """The checked-out commit (short) and whether the tree has uncommitted changes; None outside git.
    The results this runner writes (benchmarks/results/) are not changes to what it measures: a run
    of several suites in a row would otherwise mark every suite after the first."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", ".", ":!benchmarks/results"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None, False
    return commit, bool(status.strip())


def write(data: dict[str, Any], stem: Path) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    json_path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(report.markdown(data), encoding="utf-8")
    print(report.markdown(data))
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
