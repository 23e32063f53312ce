"""The suite's own machinery: choosing and loading implementations, capabilities, flag restoring,
collection, and the results matrix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.impl import (
    ALL_CAPABILITIES,
    ImplLoadError,
    capabilities_of,
    load,
    newest_stage,
    restored_flags,
)
from conformance.matrix import write_matrix

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGE = newest_stage()
needs_a_stage = pytest.mark.skipif(STAGE is None, reason="no stage with a didax package yet")


def pytest_run(*args: str, env: dict[str, str] | None = None,
               where: str = "conformance") -> subprocess.CompletedProcess:
    """pytest on the suite (or on `where`, one file of it: quicker to collect)."""
    command = [sys.executable, "-m", "pytest", where, "-q", "-p", "no:cacheprovider", *args]
    inherited = {k: v for k, v in os.environ.items() if k != "CONFORMANCE_IMPL"}
    full_env = {**inherited, "HYPOTHESIS_PROFILE": "ci", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    return subprocess.run(command, cwd=REPO_ROOT, env=full_env, capture_output=True, text=True, timeout=300)


PYTREES = "conformance/test_pytrees.py"  # the file of the runs that check which implementation ran

# --- loading -------------------------------------------------------------------------------------


def test_jax_has_every_capability() -> None:
    jax_impl = load("jax")
    assert jax_impl.name == "jax"
    assert jax_impl.capabilities == frozenset(ALL_CAPABILITIES)
    assert jax_impl.numpy.__name__ == "jax.numpy"
    assert jax_impl.kind == "jax" and "0.10.2" in jax_impl.description


def test_a_module_without_capabilities_can_evaluate() -> None:
    assert capabilities_of(types.ModuleType("plain")) == frozenset({"eval"})


def test_declared_capabilities_are_read_and_checked() -> None:
    module = types.ModuleType("declared")
    module.__capabilities__ = ("eval", "jvp")
    assert capabilities_of(module) == frozenset({"eval", "jvp"})
    module.__capabilities__ = ("eval", "telepathy")
    with pytest.raises(ImplLoadError):
        capabilities_of(module)


def test_an_unknown_implementation_is_a_clear_error() -> None:
    with pytest.raises(ImplLoadError, match="no_such_thing"):
        load("no_such_thing")


@needs_a_stage
def test_a_stage_loads_under_its_own_module_name() -> None:
    stage = load(STAGE)
    assert stage.name == STAGE
    assert stage.module.__name__ == f"didax_{STAGE}"
    assert stage.numpy.__name__.startswith(f"didax_{STAGE}.")
    assert "eval" in stage.capabilities


@needs_a_stage
def test_a_folder_holding_didax_loads_beside_the_stage() -> None:
    """Two copies of a package in one process: each under its own name, neither one is `didax`; the
    folder's results are never filed under the stage's name."""
    by_folder = load(str(REPO_ROOT / "stages" / STAGE))
    by_id = load(STAGE)
    assert by_folder.name == f"folder-{STAGE}" and by_folder.kind == "folder"
    assert by_folder.module is not by_id.module
    assert by_folder.module.__name__ != by_id.module.__name__


# --- flags ---------------------------------------------------------------------------------------


class RecordingConfig:
    """A config with JAX's interface (`update`, flags as attributes) that remembers its updates."""

    def __init__(self) -> None:
        self.jax_enable_x64 = False
        self.jax_numpy_dtype_promotion = "standard"
        self.updates: list[tuple[str, object]] = []

    def update(self, name: str, value: object) -> None:
        self.updates.append((name, value))
        setattr(self, name, value)


def test_flags_are_restored_even_when_the_test_fails() -> None:
    config = RecordingConfig()
    fake = SimpleNamespace(config=config)
    with pytest.raises(RuntimeError), restored_flags(fake) as set_flag:  # type: ignore[arg-type]
        set_flag("jax_enable_x64", True)
        set_flag("jax_enable_x64", False)
        set_flag("jax_numpy_dtype_promotion", "strict")
        raise RuntimeError("the test failed")
    assert config.jax_enable_x64 is False
    assert config.jax_numpy_dtype_promotion == "standard"


# --- the pytest plugin, from the outside ---------------------------------------------------------


def test_an_area_with_a_minus_selects_every_other_area() -> None:
    everything_but = pytest_run("--impl=01_eval", "--collect-only", "--area=-numpy")
    only = pytest_run("--impl=01_eval", "--collect-only", "--area=numpy")
    assert everything_but.returncode == only.returncode == 0, everything_but.stdout[-2000:]
    but_ids = {line for line in everything_but.stdout.splitlines() if "::" in line}
    only_ids = {line for line in only.stdout.splitlines() if "::" in line}
    assert but_ids and only_ids, "both selections hold tests"
    assert not but_ids & only_ids, "no test is in both"
    assert any("test_pytrees.py" in i for i in but_ids) and any("test_numpy_" in i for i in only_ids)


def test_meta_tests_are_not_collected_with_the_suite() -> None:
    done = pytest_run("--impl=jax", "--collect-only", "--area=pytrees")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "conformance/test_pytrees.py" in done.stdout
    assert "conformance/meta" not in done.stdout


def test_the_option_wins_over_the_environment_variable(tmp_path: Path) -> None:
    pytest_run(
        "--impl=jax", "--area=pytrees", "-k", "documented", f"--results-dir={tmp_path}",
        env={"CONFORMANCE_IMPL": "conformance.meta.broken.no_capabilities"}, where=PYTREES,
    )  # fmt: skip
    assert [p.name for p in tmp_path.iterdir()] == ["jax.json"]


def test_the_environment_variable_picks_the_implementation(tmp_path: Path) -> None:
    pytest_run(
        "--area=pytrees", "-k", "documented", f"--results-dir={tmp_path}",
        env={"CONFORMANCE_IMPL": "conformance.meta.broken.no_capabilities"}, where=PYTREES,
    )  # fmt: skip
    data = json.loads((tmp_path / "conformance.meta.broken.no_capabilities.json").read_text())
    assert data["areas"]["pytrees"]["not_applicable"] > 0


@needs_a_stage
def test_the_default_is_the_newest_stage(tmp_path: Path) -> None:
    pytest_run("--area=pytrees", "-k", "documented", f"--results-dir={tmp_path}", where=PYTREES)
    assert [p.name for p in tmp_path.iterdir()] == [f"{STAGE}.json"]


# --- the matrix ----------------------------------------------------------------------------------


def test_matrix_merges_every_results_file(tmp_path: Path) -> None:
    def counts(passed: int, failed: int, na: int) -> dict[str, int]:
        return {"passed": passed, "failed": failed, "not_applicable": na, "skipped": 0}

    files = {
        "jax": {"numpy": counts(10, 0, 0), "pytrees": counts(5, 0, 0)},
        "01_eval": {"numpy": counts(8, 2, 0), "pytrees": counts(0, 0, 5)},
    }
    for impl, areas in files.items():
        (tmp_path / f"{impl}.json").write_text(json.dumps({"impl": impl, "capabilities": [], "areas": areas}))
    json_path, md_path = write_matrix(tmp_path)
    assert json.loads(json_path.read_text())["01_eval"]["areas"]["numpy"]["failed"] == 2
    lines = md_path.read_text().splitlines()
    table = lines.index("| implementation | numpy | pytrees |")
    assert lines[table : table + 4] == [
        "| implementation | numpy | pytrees |",
        "|---|---|---|",
        "| 01_eval | 8 passed / 2 failed / 0 n/a | 0 passed / 0 failed / 5 n/a |",
        "| jax | 10 passed / 0 failed / 0 n/a | 5 passed / 0 failed / 0 n/a |",
    ]
    write_matrix(tmp_path)  # running it again does not read its own output as an implementation
    assert set(json.loads(json_path.read_text())) == {"jax", "01_eval"}


def test_the_matrix_counts_release_details_apart_from_failures(tmp_path: Path) -> None:
    """A test that failed only on a detail of JAX 0.10.2 (an exception's class JAX 0.4 raised
    differently): its own count in the area's cell, "detail k/n" for its function, linked to its
    program under the failures, labelled as such."""
    tests = [
        {"id": "e.py::test_misuse[lax-dot-mismatch]", "area": "errors", "outcome": "release_detail",
         "functions": ["lax.dot"], "reason": "lax.dot(...)\nReleaseDetail: expected ValueError, got TypeError"},
        {"id": "e.py::test_misuse[lax-dot-scalar]", "area": "errors", "outcome": "passed", "functions": ["lax.dot"]},
        {"id": "e.py::test_misuse[sum-list]", "area": "errors", "outcome": "failed", "functions": ["jnp.sum"],
         "reason": "jnp.sum([1, 2])\nFailed: DID NOT RAISE"},
    ]  # fmt: skip
    areas = {"errors": {"passed": 1, "failed": 1, "release_detail": 1, "not_applicable": 0, "skipped": 0}}
    (tmp_path / "jax-0.4.30.json").write_text(json.dumps({"impl": "jax-0.4.30", "areas": areas, "tests": tests}))
    _, md_path = write_matrix(tmp_path)
    text = md_path.read_text()
    assert "| jax-0.4.30 | 1 passed / 1 failed / 1 release detail / 0 n/a |" in text
    assert "| `lax.dot` | [detail 1/2](#fail-jax-0-4-30-lax-dot) |" in text
    assert "| `jnp.sum` | [fail 1/1](#fail-jax-0-4-30-jnp-sum) |" in text
    assert "`e.py::test_misuse[lax-dot-mismatch]` (a release detail: JAX's releases differ here)" in text
    assert "`e.py::test_misuse[sum-list]`\n" in text
