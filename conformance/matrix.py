"""Merge the per-implementation result files of a directory into the results matrix.

    python -m conformance.matrix build/conformance

reads every `<impl>.json` the suite wrote there and writes `matrix.json` and `matrix.md`
(implementation x area, cells like "123 passed / 0 failed / 4 n/a").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUTPUTS = ("matrix.json",)


def load_results(directory: Path) -> dict[str, dict]:
    """{impl name: its results file}, for every results file in `directory`."""
    results = {}
    for path in sorted(directory.glob("*.json")):
        if path.name in OUTPUTS:
            continue
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "impl" in data and "areas" in data:
            results[data["impl"]] = data
    return results


def cell(counts: dict[str, int] | None) -> str:
    if not counts:
        return "—"
    text = f"{counts['passed']} passed / {counts['failed']} failed / {counts['not_applicable']} n/a"
    return text + (f" / {counts['skipped']} skipped" if counts.get("skipped") else "")


def to_markdown(results: dict[str, dict]) -> str:
    areas = sorted({area for data in results.values() for area in data["areas"]})
    lines = [
        "| implementation | " + " | ".join(areas) + " |",
        "|---|" + "---|" * len(areas),
    ]
    for impl, data in sorted(results.items(), key=lambda item: _order(item[0])):
        lines.append(f"| {impl} | " + " | ".join(cell(data["areas"].get(area)) for area in areas) + " |")
    return "\n".join(lines) + "\n"


def _order(impl: str) -> tuple[int, str]:
    """Stages first (in order), then jax, then anything else."""
    return (0 if impl[:2].isdigit() else 1 if impl == "jax" else 2, impl)


def write_matrix(directory: Path) -> tuple[Path, Path]:
    results = load_results(directory)
    matrix = {
        impl: {"capabilities": data.get("capabilities", []), "areas": data["areas"]}
        for impl, data in results.items()
    }
    json_path, md_path = directory / "matrix.json", directory / "matrix.md"
    json_path.write_text(json.dumps(matrix, indent=1, sort_keys=True) + "\n")
    md_path.write_text(to_markdown(results))
    return json_path, md_path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    directory = Path(argv[0])
    if not directory.is_dir():
        print(f"no such directory: {directory}", file=sys.stderr)
        return 2
    for path in write_matrix(directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
