"""Run the conformance suite on another release of real JAX, in a virtualenv of its own.

    python -m conformance.other_jax 0.4.38                       # build/venv-jax-0.4.38, then the suite
    python -m conformance.other_jax 0.4.38 --area=numpy -x       # pytest's arguments follow the version
    python -m conformance.other_jax 0.4.38 --publish conformance/results   # and commit the row
    python -m conformance.other_jax --all --publish conformance/results    # every committed release

makes (or reuses) `build/venv-jax-<version>` with `jax==<version> jaxlib==<version>` and the suite's
own dependencies (pytest, hypothesis, numpy, ml_dtypes) at the versions `requirements/lock.txt` pins,
less what `RELEASE_PINS` holds for that release (the NumPy, SciPy and ml_dtypes of its day) and what
`--pin NAME==VERSION` (or `--numpy VERSION`) asks for, then runs `pytest conformance --impl=jax` with
that virtualenv's Python. The suite names a JAX other than the lock's `jax-<version>` (impl.py), so
the row never overwrites the reference's `jax`: its results go to `build/conformance/jax-<version>.json`.
`--publish DIR` copies that row alone to DIR (as `conformance.matrix --publish` does) and rewrites
DIR's matrix. The release's failures are expected (they are the point): the exit status is pytest's.

Standard library only, like scripts/dev.py: it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"
BUILD = ROOT / "build"
# What the suite itself imports (besides jax): installed at the lock's versions, with their own
# dependencies and jax's (scipy, opt_einsum, ...) held to the lock's versions too.
SUITE_PACKAGES = ("pytest", "hypothesis", "numpy", "ml_dtypes")
# Pinned here to the release asked for, never to the lock's.
RELEASE_PACKAGES = ("jax", "jaxlib")
VERSION = re.compile(r"\d+(\.\d+)+")
# The releases whose rows are committed, each with packages of its day where the lock's are too new
# for it: jaxlib 0.4.30 is built against NumPy 2.0 and its jax.scipy against SciPy 1.13-1.14; 0.4.38
# came out with NumPy 2.2, SciPy 1.14 and ml_dtypes 0.5. Both import and run under Python 3.11.
RELEASE_PINS: dict[str, tuple[str, ...]] = {
    "0.4.30": ("numpy==2.0.2", "scipy==1.14.1", "ml_dtypes==0.4.1"),
    "0.4.38": ("numpy==2.2.6", "scipy==1.14.1", "ml_dtypes==0.5.1"),
}


def _name(requirement: str) -> str:
    """A requirement's normalized project name: "ml-dtypes==0.6.0" -> "ml_dtypes"."""
    return re.split(r"[=<>!~\[; ]", requirement.strip(), maxsplit=1)[0].lower().replace("-", "_")


def lock_pins(lock: Path = LOCK) -> dict[str, str]:
    """{normalized name: "name==version"} of the lock file."""
    pins = {}
    for line in lock.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            pins[_name(line)] = line
    return pins


@dataclass(frozen=True)
class Plan:
    """Everything the command will do for one release, as data (the plumbing test reads it)."""

    version: str
    venv: Path
    constraints: list[str]  # the lock's pins, less jax and jaxlib (and numpy when overridden)
    requirements: list[str]  # what pip is asked for
    pytest_args: list[str]
    results_dir: Path  # where pytest writes the row: its --results-dir if given, else build/conformance

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def constraints_file(self) -> Path:
        return self.venv / "constraints.txt"

    @property
    def row(self) -> str:
        """The name of the results row, as impl.py gives it to a JAX that is not the lock's."""
        return f"jax-{self.version}"

    def venv_command(self, base_python: str = sys.executable) -> list[str]:
        return [base_python, "-m", "venv", "--clear", str(self.venv)]

    def pip_command(self) -> list[str]:
        return [str(self.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                "-c", str(self.constraints_file), *self.requirements]  # fmt: skip

    def pytest_command(self) -> list[str]:
        return [str(self.python), "-m", "pytest", "conformance", "--impl=jax", "-p", "no:cacheprovider",
                *self.pytest_args]  # fmt: skip

    def stamp(self) -> str:
        """Changes whenever what would be installed changes (the venv is then made anew)."""
        text = "\n".join([*self.requirements, "--", *self.constraints])
        return hashlib.sha256(text.encode()).hexdigest()


def release_pins(version: str, numpy: str | None = None, extra: Sequence[str] = ()) -> dict[str, str]:
    """{normalized name: "name==version"} held for this release instead of the lock's: RELEASE_PINS's,
    then `numpy`, then `extra` ("name==version" each), later ones winning."""
    chosen = [*RELEASE_PINS.get(version, ()), *([f"numpy=={numpy}"] if numpy else []), *extra]
    pins = {}
    for pin in chosen:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+-]+", pin):
            raise ValueError(f"not a pin: {pin!r} (for example scipy==1.14.1)")
        if _name(pin) in RELEASE_PACKAGES:
            raise ValueError(f"{pin}: jax and jaxlib are the release itself")
        pins[_name(pin)] = pin
    return pins


def plan(version: str, pytest_args: Sequence[str] = (), numpy: str | None = None, build: Path | None = None,
         lock: Path = LOCK, pins: Sequence[str] = ()) -> Plan:
    """The virtualenv, pins and command lines for `version`; `build` defaults to the repository's."""
    build = build or BUILD
    if not VERSION.fullmatch(version):
        raise ValueError(f"not a release number: {version!r} (for example 0.4.38)")
    locked = lock_pins(lock)
    if "jax" in locked and locked["jax"] == f"jax=={version}":
        raise ValueError(f"jax {version} is the lock's own release, the reference row `jax`: run "
                         "`.venv/bin/python -m pytest conformance --impl=jax` instead")
    own = release_pins(version, numpy, pins)
    overridden = set(RELEASE_PACKAGES) | set(own)
    constraints = [pin for name, pin in sorted(locked.items()) if name not in overridden]
    constraints += [pin for name, pin in sorted(own.items()) if name not in SUITE_PACKAGES]
    requirements = [f"{name}=={version}" for name in RELEASE_PACKAGES]
    for name in SUITE_PACKAGES:
        if name in own:
            requirements.append(own[name])
        elif name in locked:
            requirements.append(locked[name])
        else:
            raise ValueError(f"{lock} pins no version of {name}, which the suite needs")
    pytest_args = list(pytest_args)
    results_dir = None
    for i, arg in enumerate(pytest_args):
        if arg.startswith("--results-dir="):
            results_dir = ROOT / arg.split("=", 1)[1]
        elif arg == "--results-dir" and i + 1 < len(pytest_args):
            results_dir = ROOT / pytest_args[i + 1]
    if results_dir is None:  # where the plugin would put it, said explicitly
        results_dir = build / "conformance"
        pytest_args.append(f"--results-dir={results_dir}")
    return Plan(version, build / f"venv-jax-{version}", constraints, requirements, pytest_args, results_dir)


def environment() -> dict[str, str]:
    """The caller's environment, less what would make the venv's Python see other packages or
    another implementation."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONFORMANCE_IMPL", "VIRTUAL_ENV")}
    # The reference row's draws (the test command runs JAX with ci-reference), so that the rows
    # compare like with like, without shrinking the release's many failures (plugin.py).
    env.setdefault("HYPOTHESIS_PROFILE", "ci-release")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def ensure_venv(p: Plan) -> None:
    """Make the virtualenv and install the plan, unless the same plan is installed already."""
    stamp = p.venv / ".plan-sha256"
    if p.python.exists() and stamp.exists() and stamp.read_text() == p.stamp():
        print(f"other_jax: reusing {_shown(p.venv)}", flush=True)
        return
    print(f"other_jax: creating {_shown(p.venv)}", flush=True)
    subprocess.run(p.venv_command(), check=True)
    p.constraints_file.write_text("\n".join(p.constraints) + "\n")
    print(f"other_jax: installing {' '.join(p.requirements)} (the rest held to requirements/lock.txt)",
          flush=True)
    subprocess.run(p.pip_command(), check=True, env=environment())
    smoke = subprocess.run([str(p.python), "-c", SMOKE], env=environment(), capture_output=True, text=True)
    if smoke.returncode:
        sys.exit(f"other_jax: jax {p.version} is installed but does not work in {_shown(p.venv)}:\n"
                 f"{smoke.stderr.strip()[-2000:]}\n(a jaxlib built against NumPy 1.x needs "
                 "`--numpy 1.26.4`)")
    print(f"other_jax: {smoke.stdout.strip()}", flush=True)
    stamp.write_text(p.stamp())


SMOKE = ("import jax, jaxlib, numpy, jax.numpy as jnp; jnp.ones(3).sum().block_until_ready(); "
         "print(f'jax {jax.__version__}, jaxlib {jaxlib.__version__}, numpy {numpy.__version__}')")


def publish(row: str, source: Path, target: Path) -> Path:
    """Copy the row's results file from `source` to `target` as the committed results are kept,
    and rewrite `target`'s matrix."""
    from conformance import matrix

    results = matrix.load_results(source)
    if row not in results:
        sys.exit(f"other_jax: no results for {row} in {_shown(source)}")
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{row}.json"
    path.write_text(json.dumps(matrix.published(results[row]), indent=1) + "\n")
    matrix.write_matrix(target)
    return path


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("version", nargs="?",
                        help="the JAX release, e.g. 0.4.38 (jax and jaxlib of that version)")
    parser.add_argument("--all", action="store_true",
                        help=f"every committed release ({', '.join(RELEASE_PINS)}), one after the other")
    parser.add_argument("--numpy", help="the NumPy version (default: RELEASE_PINS's, else the lock's)")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME==VERSION",
                        help="hold a package at this version instead of the lock's (repeatable)")
    parser.add_argument("--publish", type=Path, metavar="DIR",
                        help="copy the row's results to DIR (conformance/results) and rewrite its matrix")
    return parser.parse_known_args(argv)


def main(argv: list[str]) -> int:
    args, pytest_args = parse(argv)
    if args.all == bool(args.version):
        print("other_jax: give a release (for example 0.4.38) or --all", file=sys.stderr)
        return 2
    if args.all:  # one after the other: each run keeps both cores busy already
        return max(run_release(version, args, pytest_args) for version in list(RELEASE_PINS))
    return run_release(args.version, args, pytest_args)


NO_ROW = 3  # the exit status when pytest wrote no results for the release


def run_release(version: str, args: argparse.Namespace, pytest_args: list[str]) -> int:
    """Make the release's virtualenv, run the suite there, and publish the row if asked; pytest's
    exit status (2 when the release cannot be planned, NO_ROW when pytest wrote no row)."""
    try:
        p = plan(version, pytest_args, numpy=args.numpy, pins=args.pin)
    except ValueError as err:
        print(f"other_jax: {err}", file=sys.stderr)
        return 2
    ensure_venv(p)
    print(f"other_jax: {' '.join(map(_shown_arg, p.pytest_command()))}", flush=True)
    started = time.monotonic()
    code = subprocess.run(p.pytest_command(), cwd=ROOT, env=environment()).returncode
    print(f"other_jax: jax {version}'s run took {time.monotonic() - started:.0f} s", flush=True)
    results = p.results_dir
    if not (results / f"{p.row}.json").exists():
        print(f"other_jax: pytest wrote no {p.row}.json under {_shown(results)}", file=sys.stderr)
        return NO_ROW
    print(f"other_jax: results in {_shown(results / f'{p.row}.json')} (pytest exit {code}: failures are "
          "the differences from the reference)", flush=True)
    if args.publish:
        print(f"other_jax: published {_shown(publish(p.row, results, args.publish.resolve()))}", flush=True)
    return code


def _shown_arg(arg: str) -> str:
    return _shown(Path(arg)) if arg.startswith(str(ROOT)) else arg


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
