"""The benchmark runner runs and writes complete results. Never about speed: no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ["x + y", "tree_flatten"]


def run_benchmarks(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    out = tmp_path_factory.mktemp("bench")
    filters = [arg for case in CASES for arg in ("--filter", case)]
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "01_eval", "--out", str(out), *filters)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "01_eval-eager.json").read_text(encoding="utf-8"))
    return data, (out / "01_eval-eager.md").read_text(encoding="utf-8")


def test_every_implementation_has_positive_numbers_or_is_absent(quick_run):
    data, _ = quick_run
    cases = {c["case"]: c for c in data["cases"]}
    assert sorted(cases) == sorted(CASES)
    for name, case in cases.items():
        for impl in ("didax", "jax") + (("numpy",) if name != "tree_flatten" else ()):
            timing = case[impl]
            assert timing["min_us"] > 0 and timing["median_us"] >= timing["min_us"], (name, impl)
            assert timing["calls"] >= 1 and timing["repeats"] >= 1
        assert case["didax/jax"] > 0
    assert cases["tree_flatten"]["numpy"] is None and cases["tree_flatten"]["didax/numpy"] is None
    assert cases["x + y"]["didax/numpy"] > 0


def test_the_metadata_says_when_where_and_what(quick_run):
    data, _ = quick_run
    meta = data["meta"]
    assert meta["stage"] == "01_eval" and meta["timing"]["quick"] is True
    assert meta["machine"]["jax_backend"] == "cpu" and meta["machine"]["cpu_count"] >= 1
    assert meta["date_utc"].endswith("UTC") and data["measured"].startswith(f"Measured on {meta['date_utc']} on ")


def test_the_markdown_table_has_a_row_per_case(quick_run):
    _, md = quick_run
    assert "| case | NumPy µs | didax µs | JAX µs | didax/JAX | didax/NumPy |" in md
    assert "Measured on " in md
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert [row.split("|")[1].strip() for row in rows] == [f"`{case}`" for case in CASES]
    assert rows[1].split("|")[2].strip() == "—"  # NumPy has no tree_flatten


def test_it_runs_as_a_script_and_names_the_cases_when_none_matches():
    done = run_benchmarks("benchmarks/run.py", "--quick", "--filter", "no such case")
    assert done.returncode == 2
    assert "jnp.sin(x)" in done.stderr and "tree_unflatten" in done.stderr


def test_a_stage_with_jvp_gets_the_jvp_suite_with_numpy_absent(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "02_jvp", "--out", str(tmp_path),
                          "--filter", "jvp(sin)")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "02_jvp-jvp.json").read_text(encoding="utf-8"))
    (case,) = data["cases"]
    assert case["case"] == "jvp(sin)" and case["numpy"] is None
    assert case["didax"]["min_us"] > 0 and case["jax"]["min_us"] > 0 and case["didax/jax"] > 0
    assert data["meta"]["suite"] == "jvp" and data["title"] == "Stage 02_jvp: eager forward mode (jvp)"
    assert not (tmp_path / "02_jvp-eager.json").exists()  # the filter matched no eager case


def test_a_stage_with_vjp_gets_the_vjp_suite_and_its_growth_table(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "06_vjp", "--suite", "vjp", "--out",
                          str(tmp_path), "--filter", "transpose chain")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "06_vjp-vjp.json").read_text(encoding="utf-8"))
    assert [c["case"] for c in data["cases"]] == ["transpose chain ×100", "transpose chain ×1000",
                                                   "transpose chain ×5000"]
    assert all(c["numpy"] is None and c["didax"]["min_us"] > 0 and c["jax"]["min_us"] > 0 for c in data["cases"])
    assert [c["ops"] for c in data["cases"]] == [100, 1000, 5000]
    assert data["meta"]["suite"] == "vjp" and data["title"] == "Stage 06_vjp: reverse mode (vjp)"
    assert not (tmp_path / "06_vjp-jit.json").exists()  # --suite vjp ran no other suite


def test_a_stage_with_sharding_gets_the_sharding_suite_on_eight_devices(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "07_sharding", "--suite", "sharding", "--out",
                          str(tmp_path), "--filter", "psum", "--filter", "step 1")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "07_sharding-sharding.json").read_text(encoding="utf-8"))
    assert [c["case"] for c in data["cases"]] == ["psum pmap 8", "psum shard_map 8", "data-parallel step 1"]
    assert all(c["numpy"] is None and c["didax"]["min_us"] > 0 and c["jax"]["min_us"] > 0 for c in data["cases"])
    assert data["meta"]["suite"] == "sharding"


def test_a_stage_with_vmap_gets_the_vmap_suite_and_its_loop_table(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "03_vmap", "--suite", "vmap",
                          "--out", str(tmp_path), "--filter", "tanh(w @ x)")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "03_vmap-vmap.json").read_text(encoding="utf-8"))
    assert [c["case"] for c in data["cases"]] == ["vmap tanh(w @ x)", "loop tanh(w @ x)"]
    for case in data["cases"]:
        assert all(case[impl]["min_us"] > 0 for impl in ("numpy", "didax", "jax"))
        assert case["didax/jax"] > 0 and case["didax/numpy"] > 0
    assert data["meta"]["suites"] == ["vmap"] and len(data["meta"]["load_average"]["before"]) == 3
    (loop_table,) = [t for t in data["tables"] if t["title"] and "Python loop" in t["title"]]
    (row,) = loop_table["rows"]
    assert row[0] == "`vmap tanh(w @ x)` / `loop tanh(w @ x)`" and all(float(cell) > 0 for cell in row[1:])
    assert not (tmp_path / "03_vmap-eager.json").exists()  # --suite vmap ran no other suite


def test_a_stage_with_jaxpr_gets_the_staging_suite_with_equation_counts(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "04_jaxpr", "--suite", "jaxpr",
                          "--out", str(tmp_path), "--filter", "chain ×100")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "04_jaxpr-jaxpr.json").read_text(encoding="utf-8"))
    assert [c["case"] for c in data["cases"]] == ["make_jaxpr chain ×100", "make_jaxpr chain ×1000"]
    for case in data["cases"]:
        assert case["numpy"] is None and case["didax"]["min_us"] > 0 and case["jax"]["min_us"] > 0
        for impl in ("didax", "jax"):
            counts = case["equations"][impl]
            # Every jax.numpy operation records at least one equation, and nesting only adds some.
            assert case["ops"] <= counts["top_level"] <= counts["with_nested"], (case["case"], impl)
    assert data["meta"]["timing"]["clock"] == "process_time" and "CPU time" in data["measured"]
    (per_eqn,) = [t for t in data["tables"] if t["title"] and t["title"].startswith("Per equation")]
    assert [row[0] for row in per_eqn["rows"]] == ["`make_jaxpr chain ×100`", "`make_jaxpr chain ×1000`"]
    assert per_eqn["rows"][0][-2:] == ["1.00", "1.00"]  # the first chain is its own reference
    assert all(float(cell) > 0 for row in per_eqn["rows"] for cell in row[4:])
    md = (tmp_path / "04_jaxpr-jaxpr.md").read_text(encoding="utf-8")
    assert "| case | operations | didax equations | JAX equations |" in md


def test_a_stage_with_jit_gets_the_jit_suite_with_a_clock_per_case(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "05_jit", "--suite", "jit",
                          "--out", str(tmp_path), "--filter", "dispatch 1→1", "--filter", "lower chain ×300")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "05_jit-jit.json").read_text(encoding="utf-8"))
    cases = {c["case"]: c for c in data["cases"]}
    assert sorted(cases) == ["dispatch 1→1", "lower chain ×300", "lower chain ×3000"]
    assert all(c["didax"]["min_us"] > 0 and c["jax"]["min_us"] > 0 and c["didax/jax"] > 0 for c in cases.values())
    # Dispatch waits for XLA's threads: wall-clock time; lowering is Python on one thread: CPU time.
    assert cases["dispatch 1→1"]["clock"] == "perf_counter" and cases["dispatch 1→1"]["numpy"]["min_us"] > 0
    assert cases["lower chain ×300"]["clock"] == "process_time" and cases["lower chain ×300"]["numpy"] is None
    assert data["meta"]["timing"]["case_clocks"]["lower chain ×300"] == "process_time"
    assert "`lower chain ×300`, `lower chain ×3000` are timed in the process's CPU time" in data["measured"]
    (per_eqn,) = [t for t in data["tables"] if t["title"] and t["title"].startswith("Per equation")]
    assert [row[0] for row in per_eqn["rows"]] == ["`lower chain ×300`", "`lower chain ×3000`"]
    assert per_eqn["rows"][0][-2:] == ["1.00", "1.00"]
    assert not (tmp_path / "05_jit-eager.json").exists()  # --suite jit ran no other suite


def test_every_stage_gets_the_pytrees_suite_with_a_ratio_table(tmp_path):
    done = run_benchmarks("-m", "benchmarks.run", "--quick", "--stage", "01_eval", "--suite", "pytrees",
                          "--out", str(tmp_path), "--filter", "list of (w, b) ×10")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "01_eval-pytrees.json").read_text(encoding="utf-8"))
    cases = {c["case"]: c for c in data["cases"]}
    # "×10" is in the names of the 10-, 100- and 1,000-leaf trees alike.
    assert sorted(cases) == sorted(f"{op} list of (w, b) ×{n}" for op in ("flatten", "unflatten")
                                   for n in (10, 100, 1000))
    for case in cases.values():
        assert case["numpy"] is None and case["didax"]["min_us"] > 0 and case["didax/jax"] > 0
        assert case["tree"] == "list of (w, b)" and case["leaves"] in (10, 100, 1000)
    (ratios,) = [t for t in data["tables"] if t["title"] and t["title"].startswith("didax over JAX")]
    assert [row[:2] for row in ratios["rows"]] == [["`list of (w, b)`", n] for n in ("10", "100", "1,000")]
    assert all(float(cell) > 0 for row in ratios["rows"] for cell in row[2:])
    assert not (tmp_path / "01_eval-eager.json").exists()  # --suite pytrees ran no other suite


def test_every_target_reads_a_figure_from_the_committed_results():
    """A target whose suite or cases were renamed would show 'no result yet' on the site."""
    from benchmarks import targets

    missing = [(t.stage, t.what) for t, value, _ in targets.held() if value is None]
    assert not missing


def _case(name: str, didax: float, jax: float, ops: int = 1, eqns: tuple[int, int] | None = None) -> dict[str, Any]:
    case = {"case": name, "ops": ops, "didax": {"min_us": didax}, "jax": {"min_us": jax}, "numpy": None}
    if eqns:
        case["equations"] = {"didax": {"top_level": eqns[0]}, "jax": {"top_level": eqns[1]}}
    return case


def test_each_kind_of_target_measures_what_it_says():
    from benchmarks.targets import Target

    data = {"cases": [_case("a", 2.0, 4.0), _case("b", 3.0, 2.0), _case("c ×10", 10.0, 1.0, ops=10, eqns=(20, 10)),
                      _case("c ×100", 150.0, 1.0, ops=100, eqns=(200, 100))]}
    assert Target("s", "x", "", "ratio", ("a", "b"), 1.0).measure(data) == 1.5  # the worst case counts
    # per equation: (150 / 200) / (1 / 100) = 75, against a ratio of 150 over the whole program
    assert Target("s", "x", "", "per_equation", ("c ×100",), 1.0).measure(data) == 75.0
    assert Target("s", "x", "", "flat", ("c ×",), 1.25).measure(data) == 1.5  # 1.5 µs/op over 1.0
    assert Target("s", "x", "", "ratio", ("a", "absent"), 1.0).measure(data) is None
