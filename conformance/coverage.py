"""Which public names of an implementation the conformance suite exercises.

With CONFORMANCE_COVERAGE_FILE set, `impl.wrap` hands the tests recording proxies of the
implementation's numpy, lax, tree_util, random and nn modules; every attribute a test looks up is
noted, and the names are written (JSON, {module: [names]}) to that file when the process exits.
`conformance/meta/test_coverage.py` runs the suite so and fails on public names, also in JAX, that
no test touches and that coverage_allowlist.txt does not list.

    python -m conformance.coverage                    # print covered/total per module, list the rest
    python -m conformance.coverage --write-allowlist  # regenerate meta/coverage_allowlist.txt
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

ENV = "CONFORMANCE_COVERAGE_FILE"
# The names file of a suite run that has already recorded them: the test command records them in
# its own run of the suite on stage 01 and hands the file to the meta-test, which would otherwise
# run the whole suite again (five minutes of CI) to learn the same names.
NAMES_ENV = "CONFORMANCE_COVERAGE_NAMES"
MODULES = ("numpy", "lax", "tree_util", "random", "nn")
REPO_ROOT = Path(__file__).resolve().parent.parent
ALLOWLIST = Path(__file__).resolve().parent / "meta" / "coverage_allowlist.txt"
DEFAULT_IMPL = "01_eval"

_seen: dict[str, set[str]] = {}


class _Recorder:
    """Stands for a module: every attribute looked up through it is noted under `label`."""

    def __init__(self, target: Any, label: str) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_label", label)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not name.startswith("_"):
            _seen.setdefault(self._label, set()).add(name)
        if self._label == "module" and name in MODULES:
            return _Recorder(value, name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target, name, value)

    def __dir__(self) -> list[str]:
        return dir(self._target)

    def __repr__(self) -> str:
        return repr(self._target)


def _write() -> None:
    path = os.environ.get(ENV)
    if path:
        seen = {label: sorted(names) for label, names in _seen.items() if label in MODULES}
        Path(path).write_text(json.dumps(seen, indent=1, sort_keys=True))


def maybe_record(impl: Any) -> Any:
    """The adapter itself, or (with CONFORMANCE_COVERAGE_FILE set) one whose modules record lookups."""
    if not os.environ.get(ENV):
        return impl
    if not _seen:
        atexit.register(_write)
        _seen["module"] = set()
    recorded = dataclasses.replace(impl, module=_Recorder(impl.module, "module"))
    for f in dataclasses.fields(impl):
        if f.name in MODULES:  # the adapter's own module proxies (numpy, lax, tree_util), not init args
            object.__setattr__(recorded, f.name, _Recorder(getattr(impl, f.name), f.name))
    return recorded


# --- what the implementation and JAX have ---------------------------------------------------------


def public_names(module: Any) -> set[str]:
    """Public attributes that are not modules (submodules are counted as modules of their own)."""
    return {
        n
        for n in dir(module)
        if not n.startswith("_") and not isinstance(getattr(module, n, None), ModuleType)
    }


def shared_names(spec: str = DEFAULT_IMPL) -> dict[str, set[str]]:
    """Per module: the implementation's public names that JAX's same module also has."""
    from conformance.impl import load  # noqa: PLC0415 (keeps `python -m` light)

    impl = load(spec)
    shared: dict[str, set[str]] = {}
    for name in MODULES:
        module = getattr(impl.module, name, None)
        if module is None:
            try:
                module = importlib.import_module(f"{impl.module.__name__}.{name}")
            except ImportError:
                continue
        jax_module = importlib.import_module(f"jax.{name}")
        shared[name] = public_names(module) & set(dir(jax_module))
    return shared


def run_suite(spec: str = DEFAULT_IMPL, extra: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Run the whole suite (ci profile) on `spec` and return the names its tests looked up."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "names.json"
        env = {**os.environ, ENV: str(out), "HYPOTHESIS_PROFILE": "ci"}
        command = [sys.executable, "-m", "pytest", "conformance", f"--impl={spec}", "-q", "--no-header"]
        command += ["-p", "no:cacheprovider", f"--results-dir={tmp}", *extra]
        done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        if not out.exists():
            raise RuntimeError(f"the suite wrote no names (exit {done.returncode}):\n{done.stdout[-3000:]}")
        return {k: set(v) for k, v in json.loads(out.read_text()).items()}


def seen_names(spec: str = DEFAULT_IMPL) -> dict[str, set[str]]:
    """The names the suite's tests looked up on `spec`: from the file named by
    CONFORMANCE_COVERAGE_NAMES when a run of the suite on it wrote one, else by running it."""
    recorded = os.environ.get(NAMES_ENV)
    if recorded and Path(recorded).is_file():
        return {k: set(v) for k, v in json.loads(Path(recorded).read_text()).items()}
    return run_suite(spec)


def read_allowlist(path: Path = ALLOWLIST) -> dict[str, str]:
    """{'module.name': reason} from lines `module.name  reason`; # starts a comment."""
    allowed: dict[str, str] = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            allowed[name] = reason.strip()
    return allowed


def uncovered(shared: dict[str, set[str]], seen: dict[str, set[str]]) -> dict[str, set[str]]:
    return {m: names - seen.get(m, set()) for m, names in shared.items()}


def report(shared: dict[str, set[str]], seen: dict[str, set[str]]) -> str:
    lines = []
    for m, names in sorted(shared.items()):
        covered = len(names & seen.get(m, set()))
        lines.append(f"{m}: {covered}/{len(names)} public names shared with JAX are exercised")
    return "\n".join(lines)


def default_reason(module: Any, name: str) -> str:
    """A first reason by kind of name, for a person to review."""
    value = getattr(module, name, None)
    if name.endswith("_p"):
        return "a Primitive object: tests call its wrapper function, never the primitive itself"
    if isinstance(value, type):
        return "a type: tests meet it only through values, not by name (to be covered)"
    if value is None or isinstance(value, (int, float)):
        return "a constant (to be covered)"
    return "not yet exercised by a conformance test (to be covered)"


def write_allowlist(missing: dict[str, set[str]], path: Path = ALLOWLIST, spec: str = DEFAULT_IMPL) -> None:
    from conformance.impl import load  # noqa: PLC0415

    impl = load(spec)
    old = read_allowlist(path)
    lines = [
        "# Public names of the implementation (also in JAX) that no conformance test exercises yet.",
        "# One per line: module.name, then why it is not covered. Review each reason; shrink this file.",
        "# Regenerate: python -m conformance.coverage --write-allowlist",
    ]
    for m in sorted(missing):
        for n in sorted(missing[m]):
            key = f"{m}.{n}"
            module = getattr(impl.module, m, None) or importlib.import_module(f"{impl.module.__name__}.{m}")
            lines.append(f"{key}  {old.get(key) or default_reason(module, n)}")
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--impl", default=DEFAULT_IMPL)
    parser.add_argument("--write-allowlist", action="store_true")
    args = parser.parse_args()
    shared = shared_names(args.impl)
    seen = run_suite(args.impl)
    missing = uncovered(shared, seen)
    print(report(shared, seen))
    if args.write_allowlist:
        write_allowlist(missing, spec=args.impl)
        print(f"wrote {ALLOWLIST}")
    else:
        for m in sorted(missing):
            print(f"{m}: not exercised: {', '.join(sorted(missing[m])) or '-'}")


if __name__ == "__main__":
    main()
