#!/usr/bin/env python3
"""The README's two commands: `python3 scripts/dev.py tour` and `python3 scripts/dev.py test`, and
`python3 scripts/dev.py releases`: the rows of the conformance matrix that `test` does not make,
published to conformance/results/: the older JAX releases (0.4.30, 0.4.38), each in its own
virtualenv under build/, one after the other (about 15 minutes each on 2 cores), and the NumPy
adapter (about a minute; its failures are expected, NumPy not being JAX).

Both make (or reuse) the virtual environment .venv with the pinned packages of
requirements/lock.txt, so they work on a fresh machine with only Python 3.11 and pip.
Standard library only: this file runs before anything is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements" / "lock.txt"
BUILD = ROOT / "build"
# The names the suite's tests look up on stage 01, recorded by its run for the coverage meta-test.
COVERAGE_NAMES = BUILD / "coverage" / "01_eval-names.json"
PYTHON = VENV / "bin" / "python"


def ensure_venv() -> None:
    """Create .venv and install the lock file, unless the same lock file is already installed."""
    stamp = VENV / ".lock-sha256"
    want = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if PYTHON.exists() and stamp.exists() and stamp.read_text() == want:
        return
    if not PYTHON.exists():
        print("dev: creating .venv", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    print("dev: installing pinned packages from requirements/lock.txt", flush=True)
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(LOCK)], check=True)
    stamp.write_text(want)


def stages() -> list[Path]:
    return sorted(p for p in (ROOT / "stages").iterdir() if (p / "didax").is_dir())


# ----------------------------------------------------------------------------------------------
# tour


def tour() -> int:
    """Run each stage's own examples (not those it carries unchanged from the stage before),
    stage by stage, in order, each under a line saying what it shows (the first line of its
    docstring); each example says what every result is before printing it."""
    previous: Path | None = None
    for stage in stages():
        for example in sorted((stage / "examples").glob("*.py")):
            before = previous / "examples" / example.name if previous else None
            if before is not None and before.exists() and before.read_bytes() == example.read_bytes():
                continue
            print(f"\n=== {stage.name} / {example.name}: {_what_it_shows(example)} ===\n", flush=True)
            result = subprocess.run([str(PYTHON), str(example)], cwd=stage, env=_stage_env(stage))
            if result.returncode:
                print(f"dev: {example.relative_to(ROOT)} failed", file=sys.stderr)
                return result.returncode
        previous = stage
    return 0


def _what_it_shows(example: Path) -> str:
    """The summary line of an example's docstring, without its "Stage NN, topic:" prefix."""
    import ast

    doc = ast.get_docstring(ast.parse(example.read_text(encoding="utf-8"))) or ""
    first = doc.strip().split("\n")[0]
    return first.split(": ", 1)[1] if ": " in first else first


def _stage_env(stage: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(stage)}


# ----------------------------------------------------------------------------------------------
# test


@dataclass
class Run:
    """One pytest run: a name for the report, its arguments, and its counts once done."""

    name: str
    args: list[str]
    cwd: Path = ROOT
    returncode: int | None = None
    seconds: float = 0.0
    counts: tuple[int, int, int] = (0, 0, 0)  # passed, failed (errors included), skipped
    env: dict[str, str] = field(default_factory=dict)  # set for this run only
    after: str | None = None  # the run that must have finished before this one starts

    @property
    def junit(self) -> Path:
        return BUILD / "junit" / f"{self.name.replace('/', '_')}.xml"


# Seconds each run took on 2 cores (the clean-clone run at 73a367a): the runs start longest first,
# so that the two processes end together. (That run started the rest by name, not by length, and
# one process waited 69 s at the end for the other; replayed with these durations longest first,
# 5 s.) Stage 01's conformance run goes first all the same, because the meta-tests wait for it. A
# run not in the table goes last.
SECONDS = {
    "conformance-jax-rest": 1078, "site": 524, "conformance-meta": 365, "conformance-jax-numpy": 357,
    "conformance-07_sharding": 288, "stage-07_sharding": 236, "conformance-06_vjp": 210, "conformance-01_eval": 189,
    "stage-06_vjp": 151, "conformance-05_jit": 144, "stage-05_jit": 137, "conformance-04_jaxpr": 95,
    "conformance-03_vmap": 89, "conformance-02_jvp": 86, "project": 76, "conformance-jax-sharding": 70,
    "stage-04_jaxpr": 53, "stage-03_vmap": 40, "stage-02_jvp": 22, "stage-01_eval": 21,
}


def _start_order(run: Run) -> tuple[bool, float]:
    return (run.name != "conformance-01_eval", -SECONDS.get(run.name, 0))


def test_runs(profile: str) -> list[Run]:
    # Real JAX is the slowest run by far (it compiles every new shape hypothesis draws): two halves
    # by area. On JAX, CI draws fewer examples per test (the plugin's ci-reference profile): see
    # there why.
    reference = ["--hypothesis-profile=ci-reference"] if profile == "ci" else []
    runs = [
        Run("conformance-jax-numpy", ["conformance", "--impl=jax", "--area=numpy", *reference]),
        Run("conformance-jax-rest", ["conformance", "--impl=jax", "--area=-numpy", "--area=-sharding", *reference]),
        # On 8 CPU devices, which the sharding area needs and which slow the other areas down.
        Run("conformance-jax-sharding", ["conformance", "--impl=jax", "--area=sharding", *reference]),
        Run("project", ["tests"]),
    ]
    for stage in stages():
        runs.append(Run(f"stage-{stage.name}", [str(stage / "tests")]))
    # Each stage explores what it adds: the tests it inherits draw few examples there, since the
    # stage that added their capability explored them with the same derandomized draws, on code
    # that later stages carry. (A broken rule fails nearly every example: see _limit_examples.)
    inherited = ["--inherited-examples=4"] if profile == "ci" else []
    for stage in stages():
        later = stage.name != stages()[0].name
        runs.append(Run(f"conformance-{stage.name}", ["conformance", f"--impl={stage.name}", *(inherited if later else [])]))
    # The meta-test of coverage needs the names the suite looks up on stage 01: that stage's run
    # records them (conformance/coverage.py), so the meta-tests need not run the suite again.
    names = str(COVERAGE_NAMES)
    for run in runs:
        if run.name == "conformance-01_eval":
            run.env["CONFORMANCE_COVERAGE_FILE"] = names
    runs.append(Run("conformance-meta", ["conformance/meta"], env={"CONFORMANCE_COVERAGE_NAMES": names},
                    after="conformance-01_eval"))
    if (ROOT / "site" / "tests").is_dir():
        runs.append(Run("site", ["site/tests"]))
    return sorted(runs, key=_start_order)


# The tests check what compiled programs compute, not how fast they run: XLA's CPU backend compiles
# about a fifth faster with LLVM's optimizations off (stage 05's tests: 169 s -> 131 s here), and
# half of a run on real JAX is compiling. Only code generation changes, not what XLA's passes do to
# the program (every test passed both ways); the benchmarks and the tour compile as users do. A
# flag set by hand comes after and wins.
FAST_COMPILE = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"

# Real JAX keeps what XLA compiled in build/jax-cache (its persistent compilation cache, keyed by
# the program and the compiler's options and versions), shared by every run: tests make the same
# program anew (a fresh lambda, a drawn shape met before), so a third of the conformance
# promotion area's compiles on JAX are repeats (665 -> 414 compiles, 17% less CPU). didax does
# not read these variables. (No size limit: JAX needs the filelock package to keep one, and warns
# at every read without it.)
JAX_CACHE = {"JAX_COMPILATION_CACHE_DIR": str(BUILD / "jax-cache"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
             "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def run_pytest(run: Run, profile: str) -> Run:
    run.junit.parent.mkdir(parents=True, exist_ok=True)
    log = BUILD / "logs" / f"{run.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(PYTHON), "-m", "pytest", *run.args, "-q", "-p", "no:cacheprovider",
           f"--junitxml={run.junit}", "-o", "junit_family=xunit2"]
    xla_flags = f"{FAST_COMPILE} {os.environ.get('XLA_FLAGS', '')}".strip()
    # Python writes the stages' bytecode (__pycache__, which git and the lessons ignore): the
    # hundreds of Pythons the tests start import a stage in 1.4 s with it and 2.2 s without.
    env = {**JAX_CACHE, **os.environ, "HYPOTHESIS_PROFILE": profile, "XLA_FLAGS": xla_flags, **run.env}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    with log.open("w") as out:
        run.returncode = subprocess.run(cmd, cwd=run.cwd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    run.seconds = time.perf_counter() - start
    run.counts = _junit_counts(run.junit)
    status = "ok" if run.returncode == 0 else f"FAILED (exit {run.returncode})"
    passed, failed, skipped = run.counts
    print(f"dev: {run.name:28s} {passed:5d} passed {failed:4d} failed {skipped:4d} skipped "
          f"{run.seconds:7.1f}s  {status}", flush=True)
    if run.returncode != 0:
        print(log.read_text()[-6000:], flush=True)
    return run


def _junit_counts(path: Path) -> tuple[int, int, int]:
    if not path.exists():
        return (0, 0, 0)
    total = failed = skipped = 0
    for suite in ET.parse(path).getroot().iter("testsuite"):
        total += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return (total - failed - skipped, failed, skipped)


def changed_files(since: str) -> list[str]:
    """The files changed since commit `since` (committed or not) and the untracked ones."""
    def git(*args: str) -> list[str]:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()

    return sorted(set(git("diff", "--name-only", since)) | set(git("ls-files", "--others", "--exclude-standard")))


def touched_runs(runs: list[Run], files: list[str]) -> list[Run]:
    """The runs a change to `files` can fail: a stage's files, its tests, its conformance run, the
    project's tests (its lesson) and the meta-tests (the mutants' snippets); the suite's files,
    every conformance run; the site's, the site's tests; the project's tests, themselves; the
    benchmarks', the project's and the site's; anything else (scripts, requirements), every run."""
    wanted: set[str] = set()
    for path in files:
        parts = path.split("/")
        if parts[0] == "stages" and len(parts) > 1:  # (project: the lessons; meta: the mutants' snippets)
            wanted |= {f"stage-{parts[1]}", f"conformance-{parts[1]}", "project", "conformance-meta"}
        elif parts[0] == "conformance":
            wanted |= {r.name for r in runs if r.name.startswith("conformance")}
        elif parts[0] == "site":
            wanted.add("site")
        elif parts[0] in ("tests", "benchmarks"):
            wanted |= {"project", "site"} if parts[0] == "benchmarks" else {"project"}
        elif path.endswith(".md") and "/" not in path:
            continue  # the README and notes at the top change no test
        else:
            return runs
    return [r for r in runs if r.name in wanted]


def test(profile: str, jobs: int, since: str | None = None) -> int:
    """Every test: the project's, each stage's own, the conformance suite on every stage and on
    real JAX, its meta-tests, and the site's. Runs `jobs` pytest processes at a time. With `since`
    (a commit), only the runs that the files changed since then can fail: for work in progress."""
    start = time.perf_counter()
    runs_to_do = test_runs(profile)
    if since is not None:
        files = changed_files(since)
        runs_to_do = touched_runs(runs_to_do, files)
        print(f"dev: {len(files)} files changed since {since}; running {', '.join(r.name for r in runs_to_do) or 'nothing'}")
    # The site's pictures need Graphviz's dot and its browser test Chromium, both Debian packages;
    # each script installs its package when it can and says why when it cannot.
    for script in ("install_graphviz.sh", "install_browser.sh"):
        if (ROOT / "site" / script).exists():
            subprocess.run(["bash", str(ROOT / "site" / script)], check=False)
    # Bytecode for every stage and the suite before the runs start: the Pythons that the tests
    # start with PYTHONDONTWRITEBYTECODE set read it too (9 s of one core for about 950 files).
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", "-j", "2", "stages", "conformance", "site"], cwd=ROOT,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, check=False,
                   stdout=subprocess.DEVNULL)
    COVERAGE_NAMES.unlink(missing_ok=True)  # a names file is this run's or none
    COVERAGE_NAMES.parent.mkdir(parents=True, exist_ok=True)
    done = {r.name: threading.Event() for r in runs_to_do}

    def run_one(run: Run) -> Run:
        if run.after in done:  # started in order, so the run it waits for is already under way
            done[run.after].wait()
        try:
            return run_pytest(run, profile)
        finally:
            done[run.name].set()

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(run_one, runs_to_do))
    # The matrix of this run, and the committed results the site shows (stages, jax, reference adapters);
    # not after a partial run, whose results would stand for the whole.
    if since is None:
        subprocess.run([str(PYTHON), "-m", "conformance.matrix", str(BUILD / "conformance"),
                        "--publish", str(ROOT / "conformance" / "results")], cwd=ROOT, check=False)
    passed = sum(r.counts[0] for r in runs)
    failed = sum(r.counts[1] for r in runs)
    skipped = sum(r.counts[2] for r in runs)
    broken = [r.name for r in runs if r.returncode != 0]
    print(f"dev: all runs took {time.perf_counter() - start:.0f}s; failing runs: {broken or 'none'}")
    print(f"total: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if broken else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["tour", "test", "releases"])
    parser.add_argument("--profile", default="ci", choices=["ci", "full"],
                        help="hypothesis profile: ci is derandomized and quick, full explores")
    parser.add_argument("--jobs", type=int, default=2, help="pytest processes at a time")
    parser.add_argument("--since", metavar="REV", nargs="?", const="HEAD", default=None,
                        help="test: only the runs that files changed since REV (default HEAD: the "
                             "uncommitted changes) can fail, for work in progress; CI runs them all")
    args = parser.parse_args()
    ensure_venv()
    if args.command == "releases":
        return releases()
    return tour() if args.command == "tour" else test(args.profile, args.jobs, args.since)


def releases() -> int:
    """conformance.other_jax --all: every committed older release, published; then the NumPy
    adapter's row. 0 once each row is written (their failures are expected: the differences
    between releases, and NumPy not being JAX)."""
    command = [str(PYTHON), "-m", "conformance.other_jax", "--all", "--publish", "conformance/results"]
    code = subprocess.run(command, cwd=ROOT).returncode
    if code not in (0, 1):  # 1: tests failed, as an older release's do; 3: no row written
        return code
    # Few examples, no shrinking, no tracebacks: the results file keeps each failure's program.
    results = BUILD / "adapter"
    adapter = [str(PYTHON), "-m", "pytest", "conformance", "--impl=conformance.adapters.numpy_adapter",
               "--hypothesis-profile=quick", "--tb=no", "-q", "-p", "no:cacheprovider", f"--results-dir={results}"]
    code = subprocess.run(adapter, cwd=ROOT).returncode
    if code not in (0, 1):
        return code
    published = [str(PYTHON), "-m", "conformance.matrix", str(results), "--publish", "conformance/results"]
    return subprocess.run(published, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
