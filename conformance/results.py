"""Record each conformance test's area, outcome and function; merge them into `<results-dir>/<impl>.json`.

The file accumulates: a run replaces the areas it ran and keeps the others, and says for each area
when it ran, with which hypothesis profile and which `-k` selection. Outcomes:

- passed, failed;
- release_detail: failed only on a check of JAX 0.10.2's detail where JAX's releases differ
  (`checks.release_detail`): counted apart from failures;
- missing: the implementation lacks a name the test needs ("missing: jnp.floor");
- not_applicable: the test needs a capability the implementation does not declare;
- skipped: skipped for another reason.

A failure's reason is the program that reproduces it followed by the exception's message.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from conformance.impl import Impl

OUTCOMES = ("passed", "failed", "release_detail", "missing", "not_applicable", "skipped")
# Tests beyond an implementation's capabilities are skipped with a reason that starts like this.
NOT_APPLICABLE = "not applicable:"
# Names a test looks up to set itself up rather than to test them.
SETUP_PREFIXES = ("jax.config.",)
FORMAT = 2  # of the results file: 2 added missing, runs, kind, description, functions


@dataclass(eq=False)  # hashable, as pytest needs its plugins to be (a conftest below the root asks)
class Recorder:
    """Outcomes of the conformance tests of one session, keyed by test id. Registered as a pytest
    plugin: it receives every test report and writes the file when the session ends."""

    results_dir: Path
    impl: Impl | None = None  # set once the implementation is loaded
    selection: str = ""  # the -k expression of the run, if any
    # Only some files or tests were named (not the suite's folder): every area ran in part.
    partial: bool = False
    # The areas some of whose tests were deselected (-k, -m, --deselect): they ran in part.
    deselected_areas: set[str] = field(default_factory=set)
    written: Path | None = None
    areas: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    used: dict[str, list[str]] = field(default_factory=dict)
    statements: dict[str, str] = field(default_factory=dict)  # of the failed tests: what raised
    started: float = field(default_factory=time.monotonic)

    def use(self, impl: Impl) -> None:
        self.impl = impl

    def expect(self, nodeid: str, area: str) -> None:
        self.areas[nodeid] = area

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker("area")
            if marker is not None:
                self.deselected_areas.add(marker.args[0])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold the setup/call/teardown reports of a test into one outcome; a failure anywhere wins."""
        nodeid = report.nodeid
        if nodeid not in self.areas or self.outcomes.get(nodeid) in ("failed", "missing"):
            return
        if getattr(report, "conformance_used", None):
            self.used[nodeid] = report.conformance_used  # type: ignore[attr-defined]
        if report.failed:
            self.statements[nodeid] = getattr(report, "conformance_statement", "")
            missing = getattr(report, "conformance_missing", None)
            detail = getattr(report, "conformance_release_detail", False)
            self.outcomes[nodeid] = "missing" if missing else "release_detail" if detail else "failed"
            self.reasons[nodeid] = "missing: " + ", ".join(missing) if missing else _reason(report)
        elif report.skipped:
            reason = _skip_reason(report)
            self.outcomes[nodeid] = "not_applicable" if reason.startswith(NOT_APPLICABLE) else "skipped"
            self.reasons[nodeid] = reason
        elif report.when == "call":
            self.outcomes[nodeid] = "passed"

    def summary(self) -> dict[str, dict[str, int]]:
        """{area: {outcome: count}} over the tests that ran (deselected tests are not counted)."""
        return summarize({nodeid: self.areas[nodeid] for nodeid in self.outcomes}, self.outcomes)

    def tests(self) -> list[dict[str, Any]]:
        known = {name for names in self.used.values() for name in names}
        return [
            {
                "id": nodeid,
                "area": self.areas[nodeid],
                "outcome": outcome,
                "functions": self._functions(nodeid, outcome, known),
                "reason": self.reasons.get(nodeid, ""),
            }
            for nodeid, outcome in sorted(self.outcomes.items())
        ]

    def _functions(self, nodeid: str, outcome: str, known: set[str]) -> list[str]:
        """What a test is charged to: a missing test to the names it lacks, others as `functions_of`
        says, a failure by the statement that failed."""
        reason = self.reasons.get(nodeid, "")
        if outcome == "missing" and reason.startswith("missing: "):
            return reason.removeprefix("missing: ").split(", ")
        statement = self.statements.get(nodeid, "") if outcome == "failed" else ""
        return functions_of(nodeid, self.used.get(nodeid, []), known, statement)

    def pytest_sessionfinish(self) -> None:
        if self.outcomes and self.impl is not None:
            self.written = self.write()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.written is None:
            return
        write = terminalreporter.write_line
        for area, counts in self.summary().items():
            cells = ", ".join(f"{n} {outcome.replace('_', ' ')}" for outcome, n in counts.items() if n)
            write(f"conformance {area}: {cells}")
        missing = Counter(
            name for nodeid, outcome in self.outcomes.items() if outcome == "missing"
            for name in self.reasons[nodeid].removeprefix("missing: ").split(", ")
        )  # fmt: skip
        for name, count in sorted(missing.items()):
            write(f"conformance missing: {name} ({count} test{'s' * (count != 1)})")
        write(f"conformance results: {self.written} (areas run: {', '.join(self.summary())})")

    def write(self) -> Path:
        """Merge this run into `<impl>.json`: an area it ran whole replaces the file's; of an area it
        ran in part (-k, some files), its tests replace theirs and the area's others stay; the other
        areas stay."""
        assert self.impl is not None
        self.results_dir.mkdir(parents=True, exist_ok=True)
        path = self.results_dir / f"{self.impl.results_id}.json"
        old = _read(path)
        ran = set(self.summary())
        in_part = ran if self.partial else ran & self.deselected_areas
        kept = [t for t in old.get("tests", []) if t.get("area") not in ran
                or t.get("area") in in_part and t["id"] not in self.outcomes]  # fmt: skip
        tests = sorted(kept + self.tests(), key=lambda t: t["id"])
        run = {
            "ran_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "profile": settings.get_current_profile_name(),
            "selection": self.selection,
            "duration_s": round(time.monotonic() - self.started, 1),
        }
        data = {
            "format": FORMAT,
            "impl": self.impl.name,
            "id": self.impl.results_id,
            "kind": self.impl.kind,
            "description": self.impl.description,
            "capabilities": sorted(self.impl.capabilities),
            "areas": summarize({t["id"]: t["area"] for t in tests}, {t["id"]: t["outcome"] for t in tests}),
            "runs": {**old.get("runs", {}), **dict.fromkeys(sorted(ran), run)},
            "functions": function_counts(tests),
            "tests": tests,
        }
        data["runs"] = dict(sorted(data["runs"].items()))
        path.write_text(json.dumps(data, indent=1) + "\n")
        return path


def summarize(areas: dict[str, str], outcomes: dict[str, str]) -> dict[str, dict[str, int]]:
    """{area: {outcome: count}} for tests given by id -> area and id -> outcome."""
    table: dict[str, dict[str, int]] = {}
    for nodeid, outcome in outcomes.items():
        counts = table.setdefault(areas[nodeid], dict.fromkeys(OUTCOMES, 0))
        counts[outcome] = counts.get(outcome, 0) + 1
    return dict(sorted(table.items()))


def function_counts(tests: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{function: {outcome: count}} over the tests about each function."""
    table: dict[str, dict[str, int]] = {}
    for test in tests:
        for function in test.get("functions", []):
            counts = table.setdefault(function, {})
            counts[test["outcome"]] = counts.get(test["outcome"], 0) + 1
    return dict(sorted(table.items()))


def functions_of(nodeid: str, used: list[str], known: set[str], statement: str = "") -> list[str]:
    """The implementation functions a test is about, for the matrix's function table.

    A name the test looked up ("jnp.floor") counts when its short name appears in the test's id as a
    word of its own (`test_unary[floor]`, `test_where`); a test that looked up a single name is about
    that name, unless it is a config flag's setter (`jax.config.update`: every x64 test uses it). A
    test that did not run (not applicable) is matched against every name the run saw. A failure is
    charged to the names of the statement that failed (`tu.keystr(...)` in a test of `DictKey`),
    those the id names too where there are both. Tests that match nothing are left out of the
    function table (they still count in their area).
    """
    test = nodeid.split("::", 1)[-1]
    failing = [name for name in used if _word_in(name.rsplit(".", 1)[-1], statement)]
    named = [name for name in failing if _word_in(name.rsplit(".", 1)[-1], test)]
    if named or failing:
        return named or failing
    for candidates in (used, sorted(known) if not used else []):
        found = [name for name in candidates if _word_in(name.rsplit(".", 1)[-1], test)]
        if found:
            return found
    about = [name for name in used if not name.startswith(SETUP_PREFIXES)]
    return about if len(about) == 1 else []


def _word_in(word: str, text: str) -> bool:
    # The substring test first: a not-applicable test is matched against every name the run saw
    # (about 1,000), and that many distinct patterns overflow `re`'s cache of compiled ones.
    return word in text and _word_pattern(word).search(text) is not None


@functools.lru_cache(maxsize=None)
def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == FORMAT else {}


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def _reason(report: pytest.TestReport) -> str:
    """A failure's reason: the reproducing program and the message (see `with_program`)."""
    longrepr = report.longrepr
    if isinstance(longrepr, ProgramRepr):
        return longrepr.reason()
    return _first_line(report.longreprtext)


def _first_line(text: str) -> str:
    """The first error line of a failure report (for failures outside the test call)."""
    for line in text.splitlines():
        line = line.lstrip("E").strip(" |+")
        if re.match(r"(\w+(Error|Exception)\b|assert |Failed: )", line):
            return line[:300]
    lines = text.strip().splitlines()
    return lines[-1][:300] if lines else ""


# --- the failure report --------------------------------------------------------------------------


@dataclass
class _Crash:
    """What pytest's one-line summary shows (`FAILED id - message`)."""

    path: str
    lineno: int
    message: str


class ProgramRepr:
    """A failure report that starts with the program reproducing it, then pytest's own report.
    `short` drops pytest's report (a missing name needs no traceback)."""

    def __init__(self, program: str, message: str, inner: Any, short: bool = False) -> None:
        self.program, self.message, self.inner, self.short = program, message, inner, short
        crash = getattr(inner, "reprcrash", None)
        first = message.splitlines()[0] if message else ""
        self.reprcrash = _Crash(getattr(crash, "path", ""), getattr(crash, "lineno", 0), first)

    def toterminal(self, tw: Any) -> None:
        if self.program:
            tw.line("# A program that reproduces this failure (paste it into Python):", bold=True)
            for line in self.program.rstrip().splitlines():
                tw.line(line)
            tw.line("")
        if self.short or self.inner is None:
            tw.line(self.message, red=True)
        elif hasattr(self.inner, "toterminal"):
            self.inner.toterminal(tw)
        else:
            tw.line(str(self.inner))

    def reason(self) -> str:
        """For the results file: the program, then the message."""
        return (self.program.rstrip() + "\n\n" if self.program else "") + self.message

    def __str__(self) -> str:
        from _pytest._io import TerminalWriter  # how pytest renders a report as text
        import io

        out = io.StringIO()
        self.toterminal(TerminalWriter(file=out))
        return out.getvalue().strip()


def with_program(program: str, message: str, inner: Any, short: bool = False) -> ProgramRepr:
    return ProgramRepr(program, message, inner, short)
