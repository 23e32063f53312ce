"""The project's promises about itself: the README's commands, CI, and the installable package."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    return re.findall(r"^    (python3 scripts/dev\.py \w+)$", (ROOT / "README.md").read_text(), re.M)


def test_readme_has_exactly_the_tour_and_test_commands():
    assert readme_commands() == ["python3 scripts/dev.py tour", "python3 scripts/dev.py test"]


def test_ci_runs_the_readme_test_command_and_nothing_else():
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.startswith("#") and not line.startswith("set ") and not line.startswith("cd ")]
    assert lines == ["exec " + readme_commands()[1]]


def test_lock_file_pins_every_package_exactly():
    lines = [line for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert lines and all(re.fullmatch(r"[A-Za-z0-9_.\-]+==[\w.]+", line) for line in lines), lines
    pinned = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1] for line in lines}
    assert pinned["jax"] == pinned["jaxlib"] == "0.10.2"
    for name in ("numpy", "ml-dtypes", "pytest", "hypothesis", "mkdocs-material"):
        assert name in pinned


def test_pip_install_gives_the_newest_stage_as_didax(tmp_path):
    newest = sorted(p.name for p in (ROOT / "stages").iterdir() if (p / "didax").is_dir())[-1]
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--target", str(target), str(ROOT)],
        check=True, cwd=tmp_path, timeout=300,
    )
    installed = sorted(p.name for p in (target / "didax").rglob("*.py"))
    expected = sorted(p.name for p in (ROOT / "stages" / newest / "didax").rglob("*.py"))
    assert installed == expected
    probe = "import didax, didax.numpy as jnp; print(didax.__capabilities__, float(jnp.sin(0.0)))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(target)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("0.0")


def _dev():
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "scripts" / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dev", dev)  # (its dataclass looks its module up while being made)
    spec.loader.exec_module(sys.modules["dev"])
    return sys.modules["dev"]


def test_the_coverage_meta_test_reads_the_names_stage_01s_run_recorded():
    """The suite runs once on stage 01 in the test command, recording the names its tests look up;
    the meta-tests wait for that run and read its file instead of running the suite again."""
    runs = _dev().test_runs("ci")
    by_name = {r.name: r for r in runs}
    meta, stage = by_name["conformance-meta"], by_name["conformance-01_eval"]
    assert meta.after == stage.name and runs.index(stage) < runs.index(meta)
    assert meta.env["CONFORMANCE_COVERAGE_NAMES"] == stage.env["CONFORMANCE_COVERAGE_FILE"]


def test_the_runs_start_longest_first_with_stage_01s_conformance_before_them():
    """Every run has a measured duration, and they start in decreasing order of it (so the two
    processes end together), but for the run the meta-tests wait for."""
    dev = _dev()
    runs = dev.test_runs("ci")
    assert {r.name for r in runs} == set(dev.SECONDS)
    assert runs[0].name == "conformance-01_eval"
    seconds = [dev.SECONDS[r.name] for r in runs[1:]]
    assert seconds == sorted(seconds, reverse=True)


def test_the_quick_test_command_runs_what_a_change_can_fail():
    """`dev.py test --since REV` picks the runs by the files changed; anything it cannot place
    (the scripts, the requirements) runs everything."""
    dev = _dev()
    runs = dev.test_runs("ci")

    def picked(*files: str) -> set[str]:
        return {r.name for r in dev.touched_runs(runs, list(files))}

    assert picked("stages/03_vmap/didax/core.py") == {"stage-03_vmap", "conformance-03_vmap", "project",
                                                      "conformance-meta"}
    assert picked("site/sitegen.py", "README.md") == {"site"}
    assert picked("conformance/test_jit.py") == {r.name for r in runs if r.name.startswith("conformance")}
    assert picked("requirements/lock.txt") == {r.name for r in runs}
    assert picked() == set()
