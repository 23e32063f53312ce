"""The suite proves it can fail: run it (in a subprocess, ci's draws unshrunk, one area) against implementations
that are real jax with one thing broken, and check that the targeted area reports failures; check
that tests beyond an implementation's capabilities are reported as not applicable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class SuiteRun:
    returncode: int
    output: str
    results: dict

    def counts(self, area: str) -> dict[str, int]:
        return self.results["areas"].get(area, {})

    def failed_ids(self) -> list[str]:
        return [t["id"] for t in self.results["tests"] if t["outcome"] == "failed"]


def run_suite(impl: str, area: str, results_dir: Path, keyword: str | None = None, where: str = "conformance",
              profile: str = "ci-unshrunk") -> SuiteRun:  # fmt: skip
    """`pytest conformance --impl=<impl> --area=<area> [-k keyword]`, and the results file it wrote
    (`where`: one test file instead, which is quicker to collect; `profile`: hypothesis's)."""
    command = [sys.executable, "-m", "pytest", where, f"--impl={impl}", f"--area={area}"]
    command += ["-q", "-p", "no:cacheprovider", f"--results-dir={results_dir}"]
    command += ["-k", keyword] if keyword else []
    env = {**os.environ, "HYPOTHESIS_PROFILE": profile, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    path = results_dir / f"{impl}.json"
    assert path.exists(), f"no results file; pytest said:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return SuiteRun(done.returncode, done.stdout, json.loads(path.read_text()))


BROKEN = "conformance.meta.broken."

# (broken module, area it breaks, -k selection that keeps the run short, a word in a failing test id,
# the test file that holds the selection: quicker to collect than the suite, and no slow test of
# another file that the keyword happens to match)
CASES = [
    ("numpy_add", "numpy", "binary_function_matches_numpy and add", "add", "test_numpy_elementwise"),
    ("numpy_sum_dtype", "numpy", "sum", "sum", "test_numpy_reductions"),
    ("promote_types", "promotion", "promote_types", "bf-f2", "test_promotion"),
    ("lax_sub", "lax", "elementwise_primitive_matches_numpy and sub", "sub", "test_lax_elementwise"),
    ("tree_order", "pytrees", None, "dict", "test_pytrees"),
    ("treedef_repr", "pytrees", None, "documented", "test_pytrees"),
    ("numpy_reshape_error", "errors", "reshape", "reshape-wrong-size", "test_errors"),
    ("nn_softmax", "nn", "softmax_rows", "softmax_rows_sum_to_one_and_match_numpy[0]", "test_nn"),
    ("numpy_weak", "numpy", "maximum", "maximum", "test_numpy_elementwise"),  # a weak result where the inputs were strong
    ("numpy_weak", "promotion", "reshape", "reshape", "test_promotion"),  # a strong reshape of a weak array
    ("vmap_out_axes", "vmap", "out_axes_negative or random_under", "out_axes_negative", "test_vmap"),
    ("jaxpr_consts", "jaxpr", "staged_not_baked_in", "ones", "test_jaxpr"),
    ("jit_weak", "jit", "weak_types_through_jit", "python_float", "test_jit"),
    ("jit_retrace", "jit", "traces_once_per_signature", "traces_once_per_signature[shape-", "test_jit_api"),
]


@pytest.mark.parametrize(("module", "area", "keyword", "culprit", "file"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_suite_catches_a_broken_implementation(
    tmp_path: Path, module: str, area: str, keyword: str | None, culprit: str, file: str
) -> None:
    run = run_suite(BROKEN + module, area, tmp_path, keyword, f"conformance/{file}.py")
    counts = run.counts(area)
    assert run.returncode == 1, run.output[-3000:]
    assert counts.get("failed", 0) > 0, counts
    assert any(culprit in test_id for test_id in run.failed_ids()), run.failed_ids()


def test_an_older_releases_exception_class_is_a_release_detail(tmp_path: Path) -> None:
    """lax.dot raising TypeError for shapes it cannot multiply, as JAX 0.4 did: the test still fails
    (pytest's exit status says so), but its outcome is `release_detail`, not `failed`, and the
    terminal summary counts it apart; a class no release raised stays a failure."""
    run = run_suite(BROKEN + "lax_dot_error", "errors", tmp_path, "lax-dot-mismatch or reshape-wrong-size")
    assert run.returncode == 1, run.output[-3000:]
    outcomes = {t["id"].split("[")[-1].rstrip("]"): t["outcome"] for t in run.results["tests"]}
    assert outcomes == {"lax-dot-mismatch": "release_detail", "reshape-wrong-size": "passed"}, outcomes
    assert run.counts("errors")["release_detail"] == 1 and run.counts("errors")["failed"] == 0
    assert "conformance errors: 1 passed, 1 release detail" in run.output, run.output[-3000:]
    broken_class = run_suite(BROKEN + "numpy_reshape_error", "errors", tmp_path / "other", "reshape-wrong-size")
    assert [t["outcome"] for t in broken_class.results["tests"]] == ["failed"]


def test_the_same_selection_passes_on_real_jax(tmp_path: Path) -> None:
    """The control: the harness reports success when nothing is broken."""
    run = run_suite("jax", "pytrees", tmp_path)
    counts = run.counts("pytrees")
    assert run.returncode == 0, run.output[-3000:]
    assert counts["failed"] == 0 and counts["passed"] > 0, counts


def test_tests_beyond_the_capabilities_are_not_applicable(tmp_path: Path) -> None:
    """An implementation that declares no capabilities gets every test skipped as not applicable,
    none passed (a skipped test must never count as a pass)."""
    run = run_suite(BROKEN + "no_capabilities", "pytrees", tmp_path)
    counts = run.counts("pytrees")
    assert counts["not_applicable"] > 0 and counts["passed"] == 0 and counts["failed"] == 0, counts
    reasons = {t["reason"] for t in run.results["tests"]}
    assert all(reason.startswith("not applicable: needs eval") for reason in reasons), reasons
