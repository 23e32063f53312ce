"""Merge the per-implementation result files of a directory into the results matrix.

    python -m conformance.matrix build/conformance
    python -m conformance.matrix build/conformance --publish conformance/results

reads every `<impl>.json` the suite wrote there and writes `matrix.json` and `matrix.md`:

- the implementations: what each one is, its capabilities, when each area last ran and how;
- implementation x area, each cell the counts "passed / failed / missing / n/a", and "release
  detail" where tests failed only on a detail of JAX 0.10.2 that JAX's releases differ in;
- function x implementation: for each function the tests are about (see `results.functions_of`),
  "pass", "fail 2/9" (linked to the failures), "detail 1/3" (linked too), "missing" or "n/a";
- the failures and release details, grouped by implementation and function, each with the program
  that reproduces it.

`--publish DIR` also copies the files of the stages, jax and the suite's reference adapters (not
exercise copies or other folders) to DIR and writes the matrix there: the committed results the
site shows.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

OUTPUTS = ("matrix.json",)
PUBLISHED_KINDS = ("stage", "jax", "reference")
SHORT = {"passed": "passed", "failed": "failed", "release_detail": "release detail", "missing": "missing",
         "not_applicable": "n/a", "skipped": "skipped"}  # fmt: skip
SHOWN_OUTCOMES = ("failed", "release_detail")  # the tests whose reasons the matrix shows, in this order
# Real JAX: the reference release `jax`, and other releases run by other_jax.py, `jax-<version>`.
JAX_ROW = re.compile(r"jax(-\d+(\.\d+)+)?")
FAILURES_SHOWN = 2  # per implementation and function
REASON_CHARS = 1200
# The repository's root: programs name its folders absolutely (they run from any folder); the
# published copies name them relative to it, the same on every machine.
REPO_ROOT = Path(__file__).resolve().parent.parent


def load_results(directory: Path) -> dict[str, dict]:
    """{impl name: its results file}, for every results file in `directory`."""
    results = {}
    for path in sorted(directory.glob("*.json")):
        if path.name in OUTPUTS:
            continue
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict) and "impl" in data and "areas" in data:
            results[str(data.get("id", data["impl"]))] = data  # two folders of one name: two rows
    return results


def kind_of(data: dict) -> str:
    """The file's kind; files from before kinds were recorded: stages by their name, then jax (the
    reference, or another release: `jax-0.4.38`)."""
    impl = str(data["impl"])
    if data.get("kind"):
        return str(data["kind"])
    return "stage" if re.fullmatch(r"\d\d_\w+", impl) else "jax" if JAX_ROW.fullmatch(impl) else "module"


def order(impl: str, data: dict) -> tuple[int, list]:
    """Stages first (in order), then jax (the reference, then other releases, oldest first), then the
    reference adapters, then anything else."""
    natural = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", impl)]
    return ({"stage": 0, "jax": 1, "reference": 2}.get(kind_of(data), 3), natural)


def ordered(results: dict[str, dict]) -> list[tuple[str, dict]]:
    return sorted(results.items(), key=lambda item: order(*item))


def cell(counts: dict[str, int] | None) -> str:
    """ "123 passed / 0 failed / 2 missing / 4 n/a" (release detail, missing and skipped only when
    there are any)."""
    if not counts:
        return "—"
    parts = [f"{counts.get('passed', 0)} passed", f"{counts.get('failed', 0)} failed"]
    parts += [f"{counts[k]} {SHORT[k]}" for k in ("release_detail", "missing") if counts.get(k)]
    parts.append(f"{counts.get('not_applicable', 0)} n/a")
    parts += [f"{counts[k]} skipped" for k in ("skipped",) if counts.get(k)]
    return " / ".join(parts)


# --- the tables ----------------------------------------------------------------------------------


def implementations_table(results: dict[str, dict]) -> str:
    lines = ["| implementation | what it is | capabilities | areas last run |", "|---|---|---|---|"]
    for impl, data in ordered(results):
        what = data.get("description") or kind_of(data)
        caps = ", ".join(data.get("capabilities", [])) or "none"
        lines.append(f"| {impl} | {what} | {caps} | {_runs_text(data.get('runs', {}))} |")
    return "\n".join(lines)


def _runs_text(runs: dict[str, dict]) -> str:
    """ "2026-01-02 10:00 UTC, profile ci (numpy, lax); ..." grouped by run."""
    groups: dict[str, list[str]] = defaultdict(list)
    for area, run in sorted(runs.items()):
        when = str(run.get("ran_at", "?")).replace("T", " ").replace(":00Z", "").rstrip("Z")
        text = f"{when} UTC, profile {run.get('profile', '?')}"
        if run.get("selection"):
            text += f", -k {run['selection']!r}"
        groups[text].append(area)
    return "; ".join(f"{text} ({', '.join(areas)})" for text, areas in groups.items()) or "—"


def area_table(results: dict[str, dict]) -> str:
    areas = sorted({area for data in results.values() for area in data["areas"]})
    lines = ["| implementation | " + " | ".join(areas) + " |", "|---|" + "---|" * len(areas)]
    for impl, data in ordered(results):
        lines.append(f"| {impl} | " + " | ".join(cell(data["areas"].get(area)) for area in areas) + " |")
    return "\n".join(lines)


def function_counts(data: dict) -> dict[str, dict[str, int]]:
    """{function: {outcome: count}} of one results file (computed from its tests if it has none)."""
    if isinstance(data.get("functions"), dict):
        return data["functions"]
    table: dict[str, dict[str, int]] = {}
    for test in data.get("tests", []):
        for function in test.get("functions", []):
            counts = table.setdefault(function, {})
            counts[test["outcome"]] = counts.get(test["outcome"], 0) + 1
    return table


def failures_by_function(data: dict) -> dict[str, list[dict]]:
    """{function: [its failed tests, then its release details]} of one results file."""
    table: dict[str, list[dict]] = defaultdict(list)
    shown = [t for t in data.get("tests", []) if t["outcome"] in SHOWN_OUTCOMES]
    for test in sorted(shown, key=lambda t: SHOWN_OUTCOMES.index(t["outcome"])):  # stable: ids stay in order
        for function in test.get("functions", []):
            table[function].append(test)
    return table


def function_cell(impl: str, function: str, counts: dict[str, int] | None) -> str:
    """pass / fail k/n (linked to the failures) / detail k/n (linked too) / missing / n/a / — for an
    implementation and function."""
    if not counts:
        return "—"
    total, failed, detail = sum(counts.values()), counts.get("failed", 0), counts.get("release_detail", 0)
    if failed:
        return f"[fail {failed}/{total}](#{anchor(impl, function)})"
    if detail:
        return f"[detail {detail}/{total}](#{anchor(impl, function)})"
    if counts.get("missing"):
        return "missing"
    if not counts.get("passed"):
        return "n/a"
    return "pass"


def function_table(results: dict[str, dict]) -> str:
    rows = ordered(results)
    counts = {impl: function_counts(data) for impl, data in rows}
    functions = sorted({f for per_impl in counts.values() for f in per_impl}, key=_function_order)
    lines = ["| function | " + " | ".join(impl for impl, _ in rows) + " |", "|---|" + "---|" * len(rows)]
    for function in functions:
        cells = [function_cell(impl, function, counts[impl].get(function)) for impl, _ in rows]
        lines.append(f"| `{function}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _function_order(function: str) -> tuple[int, str]:
    prefix = function.split(".")[0]
    return ({"jnp": 0, "lax": 1, "tree_util": 2}.get(prefix, 3), function)


def anchor(impl: str, function: str) -> str:
    return "fail-" + re.sub(r"[^a-z0-9]+", "-", f"{impl}-{function}".lower()).strip("-")


def failures_section(results: dict[str, dict]) -> str:
    """Each implementation's failures, then release details, by function (the first few), each
    with its reason."""
    out: list[str] = []
    for impl, data in ordered(results):
        failing = failures_by_function(data)
        for function in sorted(failing, key=_function_order):
            counts = function_counts(data).get(function, {})
            failed, total = failing[function], sum(counts.get(outcome, 0) for outcome in SHOWN_OUTCOMES)
            out += [f'<a id="{anchor(impl, function)}"></a>', "", f"### {impl}: `{function}`", ""]
            for test in failed[:FAILURES_SHOWN]:
                reason = test.get("reason", "")
                reason = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS] + "\n..."
                label = " (a release detail: JAX's releases differ here)" if test["outcome"] == "release_detail" else ""
                out += [f"`{test['id']}`{label}", "", "```python", reason.replace("```", "'''"), "```", ""]
            if total > FAILURES_SHOWN:
                out += [f"{total} tests of `{function}` fail; the first {FAILURES_SHOWN} are shown.", ""]
    return "\n".join(out)


def to_markdown(results: dict[str, dict], level: int = 2) -> str:
    """The whole matrix page; `level` is the level of its section headings."""
    h = "#" * level
    parts = [
        f"{h} Implementations", "", implementations_table(results), "",
        f"{h} By area", "", "Counts of tests: passed / failed / release detail (failed only on a detail of "
        "JAX 0.10.2 that JAX's own releases differ in, such as an exception's class or a message's wording; "
        "not counted as failed) / missing (the implementation lacks a name "
        "the test needs) / n/a (the test needs a capability the implementation does not declare).", "",
        area_table(results), "",
        f"{h} By function", "",
        "A test counts for the function it is about: a function it looked up whose name is a word of "
        "the test's id (`test_unary[floor]` is about `jnp.floor`), or the one function it looked up. "
        "Tests about no single function (promotion tables, pytrees of several functions) count in their "
        "area only.", "",
        function_table(results), "",
    ]  # fmt: skip
    failures = failures_section(results)
    if failures:
        parts += [f"{h} Failures", "", failures.replace("### ", h + "# ")]
    return "\n".join(parts).rstrip() + "\n"


def write_matrix(directory: Path) -> tuple[Path, Path]:
    results = load_results(directory)
    matrix = {
        impl: {
            "kind": kind_of(data),
            "description": data.get("description", ""),
            "capabilities": data.get("capabilities", []),
            "runs": data.get("runs", {}),
            "areas": data["areas"],
        }
        for impl, data in results.items()
    }
    json_path, md_path = directory / "matrix.json", directory / "matrix.md"
    json_path.write_text(json.dumps(matrix, indent=1, sort_keys=True) + "\n")
    md_path.write_text("# Conformance matrix\n\n" + to_markdown(results))
    return json_path, md_path


def publish(source: Path, target: Path) -> list[Path]:
    """Copy the results of stages, jax and reference adapters from `source` to `target`, keeping
    of their tests only the failures the matrix shows (the counts keep everything)."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for impl, data in load_results(source).items():
        if kind_of(data) in PUBLISHED_KINDS:
            path = target / f"{impl}.json"
            path.write_text(json.dumps(published(data), indent=1) + "\n")
            written.append(path)
    return written


def published(data: dict) -> dict:
    """The results file, with `functions` counts and only the failing tests the matrix shows."""
    shown: dict[str, dict] = {}
    for tests in failures_by_function(data).values():
        for test in tests[:FAILURES_SHOWN]:
            reason = relative_to_root(test.get("reason", ""))
            shown[test["id"]] = {**test, "reason": reason[:REASON_CHARS]}
    return {**data, "functions": function_counts(data), "tests": sorted(shown.values(), key=lambda t: t["id"])}


def relative_to_root(text: str, root: Path = REPO_ROOT) -> str:
    """`sys.path.insert(0, '<root>/stages/05_jit')` as `'stages/05_jit'`, and `'<root>'` as `'.'`."""
    return text.replace(f"'{root}/", "'").replace(f"'{root}'", "'.'")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--publish", type=Path, help="copy stage, jax and reference results here too")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        print(f"no such directory: {args.directory}", file=sys.stderr)
        return 2
    for path in write_matrix(args.directory):
        print(path)
    if args.publish:
        publish(args.directory, args.publish)
        for path in write_matrix(args.publish):
            print(path)
    return 0




if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
