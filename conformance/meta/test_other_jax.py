"""`python -m conformance.other_jax VERSION`: the suite on another JAX release in its own virtualenv.
Installing a release takes minutes, so these tests check the plumbing only: the pip and pytest command
lines, the pins taken from the lock file, the row's name and description, and a whole run with
every command recorded instead of run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance import impl as impl_module
from conformance import matrix, other_jax

LOCK_PINS = other_jax.lock_pins()


def test_the_release_is_pinned_and_everything_else_comes_from_the_lock(tmp_path: Path) -> None:
    assert "0.4.36" not in other_jax.RELEASE_PINS  # a release with no pins of its own
    p = other_jax.plan("0.4.36", ["--area=numpy", "-x"], build=tmp_path)
    assert p.venv == tmp_path / "venv-jax-0.4.36" and p.python == p.venv / "bin" / "python"
    assert p.requirements[:2] == ["jax==0.4.36", "jaxlib==0.4.36"]
    assert p.requirements[2:] == [LOCK_PINS[name] for name in ("pytest", "hypothesis", "numpy", "ml_dtypes")]
    assert LOCK_PINS["jax"] != "jax==0.4.36"  # the lock's jax is the reference, not this release
    names = {other_jax._name(pin) for pin in p.constraints}
    assert {"jax", "jaxlib"}.isdisjoint(names) and {"numpy", "scipy", "opt_einsum", "pytest"} <= names
    assert set(p.constraints) <= set(LOCK_PINS.values())
    pip = p.pip_command()
    assert pip[:4] == [str(p.python), "-m", "pip", "install"]
    assert pip[pip.index("-c") + 1] == str(p.venv / "constraints.txt") and pip[-6:] == p.requirements


def test_pytest_runs_the_suite_on_jax_with_the_callers_arguments(tmp_path: Path) -> None:
    p = other_jax.plan("0.4.38", ["--area=numpy", "-k", "floor"], build=tmp_path)
    command = p.pytest_command()
    assert command[:5] == [str(p.python), "-m", "pytest", "conformance", "--impl=jax"]
    assert command[-4:] == ["--area=numpy", "-k", "floor", f"--results-dir={tmp_path / 'conformance'}"]
    assert p.row == "jax-0.4.38" and p.results_dir == tmp_path / "conformance"
    given = other_jax.plan("0.4.38", ["--results-dir=elsewhere"], build=tmp_path)
    assert given.results_dir == other_jax.ROOT / "elsewhere"
    assert [a for a in given.pytest_command() if a.startswith("--results-dir")] == ["--results-dir=elsewhere"]


def test_another_numpy_replaces_the_locks_and_remakes_the_venv(tmp_path: Path) -> None:
    default = other_jax.plan("0.4.30", build=tmp_path)
    old_numpy = other_jax.plan("0.4.30", numpy="1.26.4", build=tmp_path)
    assert "numpy==1.26.4" in old_numpy.requirements and LOCK_PINS["numpy"] not in old_numpy.requirements
    assert not any(other_jax._name(pin) == "numpy" for pin in old_numpy.constraints)
    assert default.stamp() != old_numpy.stamp() and default.stamp() == other_jax.plan("0.4.30", build=tmp_path).stamp()


def test_a_committed_release_holds_the_packages_of_its_day(tmp_path: Path) -> None:
    """0.4.30's NumPy, SciPy and ml_dtypes replace the lock's, as requirements (the suite's own) or
    constraints (jax's scipy); --numpy and --pin win over them; jax and jaxlib cannot be pinned."""
    p = other_jax.plan("0.4.30", build=tmp_path)
    assert p.requirements[2:] == [LOCK_PINS["pytest"], LOCK_PINS["hypothesis"], "numpy==2.0.2", "ml_dtypes==0.4.1"]
    held = {other_jax._name(pin): pin for pin in p.constraints}
    assert held["scipy"] == "scipy==1.14.1" and "numpy" not in held and "ml_dtypes" not in held
    assert held["opt_einsum"] == LOCK_PINS["opt_einsum"]
    other = other_jax.plan("0.4.30", numpy="1.26.4", pins=["scipy==1.13.1", "ml-dtypes==0.4.0"], build=tmp_path)
    assert other.requirements[-2:] == ["numpy==1.26.4", "ml-dtypes==0.4.0"]
    assert "scipy==1.13.1" in other.constraints and "scipy==1.14.1" not in other.constraints
    assert other.stamp() != p.stamp()
    with pytest.raises(ValueError, match="release itself"):
        other_jax.plan("0.4.30", pins=["jaxlib==0.4.31"])
    with pytest.raises(ValueError, match="not a pin"):
        other_jax.plan("0.4.30", pins=["scipy>=1.13"])
    args, rest = other_jax.parse(["0.4.30", "--pin", "scipy==1.13.1", "--area=numpy"])
    assert args.pin == ["scipy==1.13.1"] and rest == ["--area=numpy"]


def test_the_locks_own_release_and_non_versions_are_refused() -> None:
    reference = LOCK_PINS["jax"].split("==")[1]
    with pytest.raises(ValueError, match="reference row"):
        other_jax.plan(reference)
    with pytest.raises(ValueError, match="not a release number"):
        other_jax.plan("latest")
    assert other_jax.main(["latest"]) == 2


def test_a_jax_that_is_not_the_locks_gets_a_row_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax

    assert impl_module.reference_jax_version() == jax.__version__  # the test venv has the lock's jax
    assert impl_module.load("jax").name == "jax"
    monkeypatch.setattr(impl_module, "reference_jax_version", lambda: "99.0.0")
    other = impl_module.load("jax")
    assert other.name == f"jax-{jax.__version__}" and other.kind == "jax"
    assert other.description.startswith(f"real JAX {jax.__version__} (jaxlib ")
    assert f"NumPy {__import__('numpy').__version__})" in other.description
    assert other.description.endswith("an older release than the reference 99.0.0")
    assert other.import_lines[-1] == "import jax" and other.import_lines[0].startswith("# with ")


def test_without_a_lock_file_any_jax_is_the_reference(tmp_path: Path) -> None:
    assert impl_module.reference_jax_version(tmp_path / "no-lock.txt") is None
    (tmp_path / "lock.txt").write_text("numpy==2.4.6\njaxlib==0.4.38\n")
    assert impl_module.reference_jax_version(tmp_path / "lock.txt") is None
    (tmp_path / "lock.txt").write_text("jax==0.4.38\n")
    assert impl_module.reference_jax_version(tmp_path / "lock.txt") == "0.4.38"


def test_a_whole_run_with_the_commands_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """venv, pip, a smoke test, pytest (which writes the row), then --publish copies that row alone."""
    ran: list[list[str]] = []
    source = tmp_path / "conformance"
    source.mkdir()
    areas = {"numpy": {"passed": 3, "failed": 1, "missing": 1, "not_applicable": 0, "skipped": 0}}
    for row in ("jax", "jax-0.0.1", "my_copy"):  # only jax-0.0.1 is to be published
        (source / f"{row}.json").write_text(json.dumps({"impl": row, "kind": "jax", "areas": areas, "tests": []}))

    def fake_run(command: list[str], **kwargs: object) -> SimpleNamespace:
        ran.append(command)
        if command[1:3] == ["-m", "venv"]:
            (Path(command[-1]) / "bin").mkdir(parents=True)
            (Path(command[-1]) / "bin" / "python").touch()
        return SimpleNamespace(returncode=1 if "pytest" in command else 0, stdout="jax 0.0.1", stderr="")

    monkeypatch.setattr(other_jax, "BUILD", tmp_path)
    monkeypatch.setattr(subprocess, "run", fake_run)
    target = tmp_path / "published"
    code = other_jax.main(["0.0.1", "--area=numpy", "--publish", str(target), "-x"])
    assert code == 1  # pytest's status: the old release's failures are expected
    venv = tmp_path / "venv-jax-0.0.1"
    assert [c[:3] for c in ran] == [[sys.executable, "-m", "venv"], [str(venv / "bin" / "python"), "-m", "pip"],
                                    [str(venv / "bin" / "python"), "-c", other_jax.SMOKE],
                                    [str(venv / "bin" / "python"), "-m", "pytest"]]  # fmt: skip
    assert ran[-1][-3:] == ["--area=numpy", "-x", f"--results-dir={source}"] and "--publish" not in ran[-1]
    assert (venv / "constraints.txt").read_text().splitlines() == other_jax.plan("0.0.1").constraints
    assert sorted(p.name for p in target.iterdir()) == ["jax-0.0.1.json", "matrix.json", "matrix.md"]
    assert "| jax-0.0.1 | 3 passed / 1 failed / 1 missing / 0 n/a |" in (target / "matrix.md").read_text()
    ran.clear()
    assert other_jax.main(["0.0.1"]) == 1
    assert [c[2] for c in ran] == ["pytest"]  # the same plan installed: the venv is reused


def test_the_matrix_puts_other_releases_after_the_reference_oldest_first() -> None:
    rows = {name: {"impl": name, "areas": {}} for name in ["jax-0.10.1", "numpy-adapter", "jax", "01_eval", "jax-0.4.38"]}
    rows["numpy-adapter"]["kind"] = "reference"
    assert [name for name, _ in matrix.ordered(rows)] == ["01_eval", "jax", "jax-0.4.38", "jax-0.10.1", "numpy-adapter"]
    assert matrix.kind_of({"impl": "jax-0.4.38"}) == "jax" and matrix.kind_of({"impl": "jaxish"}) == "module"


def test_all_runs_every_committed_release_one_after_the_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytests: list[str] = []

    def fake_run(command: list[str], **kwargs: object) -> SimpleNamespace:
        if "pytest" in command:
            pytests.append(command[0])
        if command[1:3] == ["-m", "venv"]:
            (Path(command[-1]) / "bin").mkdir(parents=True)
            (Path(command[-1]) / "bin" / "python").touch()
        return SimpleNamespace(returncode=1 if "pytest" in command else 0, stdout="jax", stderr="")

    monkeypatch.setattr(other_jax, "BUILD", tmp_path)
    monkeypatch.setattr(subprocess, "run", fake_run)
    assert other_jax.main(["--all", "--area=pytrees"]) == other_jax.NO_ROW  # the fake pytest wrote no row
    assert pytests == [str(tmp_path / f"venv-jax-{v}" / "bin" / "python") for v in other_jax.RELEASE_PINS]
    assert list(other_jax.RELEASE_PINS) == ["0.4.30", "0.4.38"]
    assert other_jax.main([]) == other_jax.main(["--all", "0.4.30"]) == 2
