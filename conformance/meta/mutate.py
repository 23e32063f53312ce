"""Mutation testing of the conformance suite: does it notice a single realistic bug?

A *mutant* is one stage of didax with exactly one small source edit: a promotion edge dropped, a
negative axis not wrapped, a ValueError that became a TypeError, an array that aliases NumPy's
buffer. Each stage keeps a catalogue of them in ``conformance/meta/mutants_<stage>.py``, as data
(`Mutant`). For each mutant this tool copies the stage's ``didax/`` into a temporary folder, applies
the edit, and runs the conformance suite on that folder, restricted to the areas that should
notice. The mutant is then

- ``killed``: the suite failed, as it should;
- ``survived``: the suite passed; the suite is missing a test, unless the catalogue marks the
  mutant ``equivalent="why it cannot be told apart from the original"``;
- ``stale``: its snippet no longer occurs exactly once in the file (the stage changed; update it);
- ``error``: the run timed out, or pytest itself failed (usage error, nothing selected, a crash).

Run it (sequentially by default; ``--jobs`` runs several suites at once):

    python -m conformance.meta.mutate --stage 01_eval
    python -m conformance.meta.mutate --stage 01_eval --only lax.pad.interior_after_the_last
    python -m conformance.meta.mutate --stage 01_eval --sample 10 --seed 1 --quick

It first runs the same areas on the unmutated stage (they must pass, or every mutant would look
killed; exit code 2 if not), writes ``build/mutation/<stage>.json`` and ``.md`` (``--publish`` also
copies them to ``conformance/meta/results/``), and exits with 1 when a mutant survives without
being marked equivalent, or is stale, or could not be run. A run of a few mutants (``--only``,
``--sample``) without ``--merge`` writes ``<stage>.partial.json`` instead, and cannot be published:
the stage's report stays whole.

A whole catalogue in two passes: ``--quick`` runs each mutant on its ``-k`` keyword only, which is
much faster, and a mutant killed that way is killed; the rest are then run on their whole areas
with ``--merge``, which replaces their outcomes in the previous report (``build/mutation/``) and
keeps the others. The report says how each mutant was run (its ``-k``, or its whole areas) and
lists every pass:

    python -m conformance.meta.mutate --stage 01_eval --quick
    python -m conformance.meta.mutate --stage 01_eval --only ID ... --merge --publish
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGES_DIR = REPO_ROOT / "stages"
BUILD_DIR = REPO_ROOT / "build" / "mutation"
PUBLISHED_DIR = Path(__file__).resolve().parent / "results"
AREAS = ("numpy", "lax", "promotion", "pytrees", "errors", "random", "nn", "jvp", "vmap", "jaxpr", "jit", "vjp", "sharding")
DEFAULT_TIMEOUT_S = 300

KILLED, SURVIVED, EQUIVALENT, STALE, ERROR = "killed", "survived", "equivalent", "stale", "error"


@dataclass(frozen=True)
class Mutant:
    """One realistic bug: replace ``find`` (which must occur exactly once in ``file``) by ``replace``.

    ``file`` is relative to the stage folder (``didax/lax/structural.py``). ``areas`` are the
    conformance areas that should notice; ``keyword`` optionally narrows the run further with
    ``-k`` (used by ``--quick`` and the CI sample). ``equivalent`` says why a mutant cannot be
    told apart from the original, when that is so; such a mutant may survive.
    """

    id: str
    file: str
    find: str
    replace: str
    areas: tuple[str, ...]
    description: str
    keyword: str | None = None
    equivalent: str | None = None

    def __post_init__(self) -> None:
        unknown = set(self.areas) - set(AREAS)
        if not self.areas or unknown:
            raise ValueError(f"mutant {self.id}: areas must be some of {AREAS}, got {self.areas}")
        if self.find == self.replace:
            raise ValueError(f"mutant {self.id}: the replacement is the snippet itself")


@dataclass
class Outcome:
    """What happened to one mutant."""

    id: str
    status: str
    description: str
    areas: tuple[str, ...]
    seconds: float = 0.0
    detail: str = ""  # why it is stale or an error, the first failing test, or why it is equivalent
    command: list[str] = field(default_factory=list)
    keyword: str | None = None  # the -k that narrowed its run (--quick); None: its whole areas


# --- the catalogue -----------------------------------------------------------------------------


def load_catalogue(stage: str) -> list[Mutant]:
    """The mutants of ``stage``, from ``conformance/meta/mutants_<stage>.py`` (its ``MUTANTS``)."""
    module = importlib.import_module(f"conformance.meta.mutants_{stage}")
    mutants: list[Mutant] = list(module.MUTANTS)
    seen: set[str] = set()
    for mutant in mutants:
        if mutant.id in seen:
            raise ValueError(f"duplicate mutant id {mutant.id!r} in mutants_{stage}.py")
        seen.add(mutant.id)
    return mutants


def select(mutants: list[Mutant], only: Sequence[str] = (), sample: int | None = None, seed: int = 0) -> list[Mutant]:
    """The mutants named in ``only`` (all when empty), then a reproducible random sample of them."""
    if only:
        by_id = {m.id: m for m in mutants}
        missing = [i for i in only if i not in by_id]
        if missing:
            raise SystemExit(f"no mutant with id {', '.join(missing)}")
        mutants = [by_id[i] for i in only]
    if sample is not None and sample < len(mutants):
        mutants = random.Random(seed).sample(mutants, sample)
    return mutants


# --- making a mutant -----------------------------------------------------------------------------


def staleness(mutant: Mutant, stage_dir: Path) -> str | None:
    """Why ``mutant`` cannot be applied to ``stage_dir`` any more, or None if it can."""
    path = stage_dir / mutant.file
    if not path.is_file():
        return f"{mutant.file} does not exist in {stage_dir.name}"
    count = path.read_text().count(mutant.find)
    if count == 1:
        return None
    where = "does not occur" if count == 0 else f"occurs {count} times (it must occur once)"
    return f"the snippet {where} in {mutant.file}: {mutant.find!r}"


def make_mutant(mutant: Mutant, stage_dir: Path, into: Path) -> Path:
    """Copy ``stage_dir/didax`` to ``into/didax`` with the one edit applied; return ``into``."""
    shutil.copytree(stage_dir / "didax", into / "didax", ignore=shutil.ignore_patterns("__pycache__"))
    path = into / mutant.file
    path.write_text(path.read_text().replace(mutant.find, mutant.replace, 1))
    return into


# --- running the suite on it ---------------------------------------------------------------------


def suite_command(impl_dir: Path, areas: Sequence[str], results_dir: Path, keyword: str | None) -> list[str]:
    """``pytest conformance --impl=<impl_dir> --area=... -x``, stopping at the first failure."""
    command = [sys.executable, "-m", "pytest", "conformance", f"--impl={impl_dir}"]
    command += [f"--area={area}" for area in areas]
    command += ["-q", "-x", "-p", "no:cacheprovider", f"--results-dir={results_dir}"]
    return command + (["-k", keyword] if keyword else [])


def run_suite(command: list[str], timeout_s: float) -> subprocess.CompletedProcess:
    """Run the suite (ci's draws, unshrunk) in a subprocess; raises TimeoutExpired."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": "ci-unshrunk", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("CONFORMANCE_IMPL", None)
    return subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout_s)


def classify(returncode: int, output: str, mutant: Mutant) -> tuple[str, str]:
    """pytest's exit code as an outcome: 0 passed, 1 some test failed, anything else an error."""
    if returncode == 0:
        return (EQUIVALENT, mutant.equivalent) if mutant.equivalent else (SURVIVED, "")
    if returncode == 1:
        return KILLED, first_failure(output)
    reason = {2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests selected"}
    return ERROR, f"pytest exit code {returncode} ({reason.get(returncode, 'crash')}): {output[-1500:]}"


def first_failure(output: str) -> str:
    """The first ``FAILED ...`` line of pytest's short summary, to show which test noticed."""
    for line in output.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            return line[:300]
    return ""


def run_mutant(mutant: Mutant, stage_dir: Path, timeout_s: float, quick: bool) -> Outcome:
    """Build the mutant in a temporary folder, run its areas of the suite, and classify it."""
    outcome = Outcome(mutant.id, STALE, mutant.description, mutant.areas)
    reason = staleness(mutant, stage_dir)
    if reason is not None:
        outcome.detail = reason
        return outcome
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.id}-") as tmp:
        impl_dir = make_mutant(mutant, stage_dir, Path(tmp) / "impl")
        keyword = mutant.keyword if quick else None
        command = suite_command(impl_dir, mutant.areas, Path(tmp) / "results", keyword)
        outcome.command, outcome.keyword = command, keyword
        try:
            done = run_suite(command, timeout_s)
            outcome.status, outcome.detail = classify(done.returncode, done.stdout + done.stderr, mutant)
        except subprocess.TimeoutExpired:
            outcome.status, outcome.detail = ERROR, f"timed out after {timeout_s:.0f} s"
    outcome.seconds = round(time.monotonic() - started, 1)
    return outcome


def baseline_failure(stage_dir: Path, areas: Iterable[str], timeout_s: float) -> str | None:
    """Run the chosen areas on the unmutated stage, copied the same way: they must pass, or every
    mutant would look killed. Returns what went wrong, or None."""
    with tempfile.TemporaryDirectory(prefix="mutant-baseline-") as tmp:
        impl = Path(tmp) / "impl"
        shutil.copytree(stage_dir / "didax", impl / "didax", ignore=shutil.ignore_patterns("__pycache__"))
        command = suite_command(impl, sorted(set(areas)), Path(tmp) / "results", None)
        try:
            done = run_suite(command, timeout_s)
        except subprocess.TimeoutExpired:
            return f"the unmutated stage timed out after {timeout_s:.0f} s"
    if done.returncode == 0:
        return None
    output = done.stdout + done.stderr
    return f"the unmutated stage fails the suite (exit code {done.returncode}):\n{output[-3000:]}"


def run_all(
    mutants: Sequence[Mutant], stage_dir: Path, jobs: int = 1, timeout_s: float = DEFAULT_TIMEOUT_S,
    quick: bool = False, progress: bool = True,
) -> list[Outcome]:
    """Run every mutant (``jobs`` at a time), printing one line per mutant as it finishes."""

    def one(mutant: Mutant) -> Outcome:
        outcome = run_mutant(mutant, stage_dir, timeout_s, quick)
        if progress:
            print(f"{outcome.status:>10}  {outcome.seconds:6.1f} s  {outcome.id}", flush=True)
        return outcome

    if jobs <= 1:
        return [one(m) for m in mutants]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, mutants))


# --- the report ----------------------------------------------------------------------------------


def summarize(outcomes: Sequence[Outcome]) -> dict[str, object]:
    """Counts per status, and the score: killed / (killed + survived), equivalents left out."""
    counts = {status: 0 for status in (KILLED, SURVIVED, EQUIVALENT, STALE, ERROR)}
    for outcome in outcomes:
        counts[outcome.status] += 1
    decided = counts[KILLED] + counts[SURVIVED]
    score = counts[KILLED] / decided if decided else 1.0
    return {"total": len(outcomes), "counts": counts, "score": round(score, 4)}


def describe_run(run: dict) -> str:
    """One pass of the tool, in words: "2026-11-23 08:30 UTC: 145 mutants, --quick, 1 at a time, 21.0 min"."""
    how = "--quick (each on its -k keyword)" if run.get("quick") else "on their whole areas"
    where = f" on {run['host']}" if run.get("host") else ""
    return (f"{run.get('started', '?')}: {run.get('mutants', '?')} mutants {how}, {run.get('jobs', 1)} at a time"
            f"{where}, {float(run.get('seconds', 0)) / 60:.1f} min")


def merge(previous: dict, outcomes: Sequence[Outcome], order: Sequence[str]) -> list[Outcome]:
    """The outcomes of a previous report (its JSON), with those re-run now replacing theirs, in the
    catalogue's ``order``; mutants no longer in the catalogue are dropped."""
    by_id = {m["id"]: Outcome(**{**m, "areas": tuple(m["areas"])}) for m in previous.get("mutants", [])}
    by_id.update({o.id: o for o in outcomes})
    return [by_id[i] for i in order if i in by_id]


def report_json(stage: str, outcomes: Sequence[Outcome], runs: Sequence[dict]) -> str:
    body = {"stage": stage, "seconds": round(sum(float(r["seconds"]) for r in runs), 1), "runs": list(runs),
            **summarize(outcomes), "mutants": [asdict(o) for o in outcomes]}
    return json.dumps(body, indent=2) + "\n"


def report_markdown(stage: str, outcomes: Sequence[Outcome], runs: Sequence[dict], every: bool = True) -> str:
    """The score, how it was run, the survivors (and stale, error, equivalent mutants), then, if
    ``every``, a table of all mutants."""
    summary = summarize(outcomes)
    counts = summary["counts"]
    assert isinstance(counts, dict)
    seconds = sum(float(r["seconds"]) for r in runs)
    narrowed = sum(1 for o in outcomes if o.keyword)
    lines = [
        f"# Mutation testing: stage {stage}",
        "",
        f"{summary['total']} mutants in {seconds / 60:.1f} min. Mutation score "
        f"**{100 * float(summary['score']):.1f} %** (killed / (killed + survived); mutants "
        "shown equivalent to the original are left out).",
        "",
        f"{narrowed} of the outcomes come from a run narrowed to the mutant's `-k` keyword (a mutant "
        f"killed that way is killed); the other {summary['total'] - narrowed} ran on their whole areas. "
        f"The passes ({len(runs)}):",
        "",
        *[f"- {describe_run(r)}" for r in runs],
        "",
        "| killed | survived | equivalent | stale | error |",
        "|---:|---:|---:|---:|---:|",
        "| " + " | ".join(str(counts[s]) for s in (KILLED, SURVIVED, EQUIVALENT, STALE, ERROR)) + " |",
        "",
    ]
    for status, title in ((SURVIVED, "Survivors: the suite misses these bugs"), (STALE, "Stale mutants"),
                          (ERROR, "Errors"), (EQUIVALENT, "Equivalent mutants")):
        chosen = [o for o in outcomes if o.status == status]
        if chosen:
            lines += [f"## {title}", ""]
            lines += [f"- `{o.id}`: {o.description}" + (f" — {o.detail}" if o.detail else "") for o in chosen]
            lines.append("")
    if not every:
        return "\n".join(lines)
    lines += ["## Every mutant", "", "| mutant | areas | run with | status | seconds | description |",
              "|---|---|---|---|---:|---|"]
    lines += [f"| `{o.id}` | {', '.join(o.areas)} | {f'`-k {o.keyword}`' if o.keyword else 'its areas'} | "
              f"{o.status} | {o.seconds} | {o.description} |" for o in outcomes]
    return "\n".join(lines) + "\n"


def write_reports(stage: str, outcomes: Sequence[Outcome], runs: Sequence[dict], folders: Iterable[Path],
                  name: str | None = None) -> list[Path]:  # fmt: skip
    """The reports as ``<name>.json`` and ``.md`` (``name`` defaults to the stage) in each folder."""
    written = []
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        for suffix, text in ((".json", report_json(stage, outcomes, runs)),
                             (".md", report_markdown(stage, outcomes, runs))):
            path = folder / f"{name or stage}{suffix}"
            path.write_text(text)
            written.append(path)
    return written


def exit_code(outcomes: Sequence[Outcome]) -> int:
    """0 when every mutant was killed or is a known equivalent; 1 otherwise."""
    bad = {SURVIVED, STALE, ERROR}
    return 1 if any(o.status in bad for o in outcomes) else 0


# --- command line --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m conformance.meta.mutate", description=__doc__.split("\n")[0])
    parser.add_argument("--stage", required=True, help="stage folder under stages/, e.g. 01_eval")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="run just these mutants")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="a random sample of N mutants")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="suites run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per mutant")
    parser.add_argument("--quick", action="store_true", help="narrow each run with the mutant's -k keyword")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip running the unmutated stage first")
    parser.add_argument("--publish", action="store_true", help=f"also write the reports to {PUBLISHED_DIR}")
    parser.add_argument("--merge", action="store_true",
                        help=f"replace these mutants' outcomes in the previous report ({BUILD_DIR}) and keep the rest")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    stage_dir = STAGES_DIR / args.stage
    if not (stage_dir / "didax").is_dir():
        raise SystemExit(f"no didax package in {stage_dir}")
    mutants = select(load_catalogue(args.stage), args.only, args.sample, args.seed)
    if args.list:
        for m in mutants:
            print(f"{m.id:45} {','.join(m.areas):18} {m.description}")
        return 0
    started = time.monotonic()
    started_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    previous_path = BUILD_DIR / f"{args.stage}.json"
    if args.merge and not previous_path.is_file():
        raise SystemExit(f"--merge: no previous report {previous_path}")
    # A few mutants run alone (--only, --sample) must not replace the stage's report: a later
    # --merge would build on theirs, and a --publish would publish it.
    partial = bool(args.only or args.sample) and not args.merge
    if partial and args.publish:
        raise SystemExit("--publish with --only or --sample would publish a report of those mutants alone: "
                         "add --merge to merge them into the stage's report")
    if not args.no_baseline:
        failure = baseline_failure(stage_dir, {a for m in mutants for a in m.areas}, args.timeout)
        if failure is not None:
            print(failure, file=sys.stderr)
            return 2
        print(f"baseline: the unmutated stage passes ({time.monotonic() - started:.0f} s)", flush=True)
    print(f"{len(mutants)} mutants of stage {args.stage}, {args.jobs} at a time", flush=True)
    outcomes = run_all(mutants, stage_dir, args.jobs, args.timeout, args.quick)
    runs = [{"started": started_at, "mutants": len(mutants), "quick": args.quick, "jobs": args.jobs,
             "host": f"{os.cpu_count()} CPUs, Python {platform.python_version()}",
             "seconds": round(time.monotonic() - started, 1)}]
    if args.merge:
        previous = json.loads(previous_path.read_text())
        runs = previous.get("runs", [{"seconds": previous.get("seconds", 0)}]) + runs
        outcomes = merge(previous, outcomes, [m.id for m in load_catalogue(args.stage)])
        print(f"merged into the previous report: {len(outcomes)} mutants", flush=True)
    folders = [BUILD_DIR] + ([PUBLISHED_DIR] if args.publish else [])
    paths = write_reports(args.stage, outcomes, runs, folders, f"{args.stage}.partial" if partial else None)
    print(report_markdown(args.stage, outcomes, runs, every=False))
    print("reports: " + ", ".join(os.path.relpath(p, REPO_ROOT) for p in paths))
    return exit_code(outcomes)


if __name__ == "__main__":
    sys.exit(main())
