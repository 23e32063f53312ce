"""Record each conformance test's area and outcome; write `<results-dir>/<impl>.json` at the end."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

OUTCOMES = ("passed", "failed", "not_applicable", "skipped")
# Tests beyond an implementation's capabilities are skipped with a reason that starts like this.
NOT_APPLICABLE = "not applicable:"


@dataclass
class Recorder:
    """Outcomes of the conformance tests of one session, keyed by test id. Registered as a pytest
    plugin: it receives every test report and writes the file when the session ends."""

    results_dir: Path
    impl_name: str | None = None  # set once the implementation is loaded
    capabilities: list[str] = field(default_factory=list)
    written: Path | None = None
    areas: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def expect(self, nodeid: str, area: str) -> None:
        self.areas[nodeid] = area

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold the setup/call/teardown reports of a test into one outcome; a failure anywhere wins."""
        if report.nodeid not in self.areas or self.outcomes.get(report.nodeid) == "failed":
            return
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
            self.reasons[report.nodeid] = _first_line(report.longreprtext)
        elif report.skipped:
            reason = _skip_reason(report)
            outcome = "not_applicable" if reason.startswith(NOT_APPLICABLE) else "skipped"
            self.outcomes[report.nodeid] = outcome
            self.reasons[report.nodeid] = reason
        elif report.when == "call":
            self.outcomes[report.nodeid] = "passed"

    def summary(self) -> dict[str, dict[str, int]]:
        """{area: {outcome: count}} over the tests that ran (deselected tests are not counted)."""
        table: dict[str, dict[str, int]] = {}
        for nodeid, outcome in self.outcomes.items():
            counts = table.setdefault(self.areas[nodeid], dict.fromkeys(OUTCOMES, 0))
            counts[outcome] += 1
        return dict(sorted(table.items()))

    def pytest_sessionfinish(self) -> None:
        if self.outcomes and self.impl_name is not None:
            self.written = self.write()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.written is None:
            return
        for area, counts in self.summary().items():
            cells = ", ".join(f"{n} {outcome.replace('_', ' ')}" for outcome, n in counts.items() if n)
            terminalreporter.write_line(f"conformance {area}: {cells}")
        terminalreporter.write_line(f"conformance results: {self.written}")

    def write(self) -> Path:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        path = self.results_dir / f"{self.impl_name}.json"
        data = {
            "impl": self.impl_name,
            "capabilities": sorted(self.capabilities),
            "duration_s": round(time.monotonic() - self.started, 1),
            "areas": self.summary(),
            "tests": [
                {
                    "id": nodeid,
                    "area": self.areas[nodeid],
                    "outcome": outcome,
                    "reason": self.reasons.get(nodeid, ""),
                }
                for nodeid, outcome in sorted(self.outcomes.items())
            ],
        }
        path.write_text(json.dumps(data, indent=1) + "\n")
        return path


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def _first_line(text: str) -> str:
    """The first error line of a failure report (also inside hypothesis's exception groups), for
    the JSON file; the terminal has the rest."""
    for line in text.splitlines():
        line = line.lstrip("E").strip(" |+")
        if re.match(r"(\w+(Error|Exception)\b|assert |Failed: )", line):
            return line[:300]
    lines = text.strip().splitlines()
    return lines[-1][:300] if lines else ""
