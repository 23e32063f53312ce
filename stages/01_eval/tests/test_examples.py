"""The chapter's example programs run, and print the seeds' values."""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

STAGE = Path(__file__).resolve().parents[1]


@functools.cache  # an example prints the same each run: several tests read one run
def run_example(name: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(STAGE)}
    result = subprocess.run(
        [sys.executable, "-m", f"examples.{name}"], cwd=STAGE, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_example_is_tested():
    assert {p.stem for p in (STAGE / "examples").glob("*.py")} == {"eval_basics", "mlp", "promotion", "pytrees"}


def test_eval_basics_prints_the_autodidax_value():
    out = run_example("eval_basics")
    assert "f(3.0) = 2.7177599838802657" in out
    assert "sin_p.bind(3.0) = 0.1411200080598672" in out  # sin(3) in float64
    assert "lax.add requires arguments to have the same dtypes" in out


def test_promotion_example_shows_weak_types():
    out = run_example("promotion")
    assert "2 * int8 array       -> Array([0, 2, 4, 6, 8], dtype=int8)" in out
    assert "asarray(2)            -> Array(2, dtype=int32, weak_type=True)" in out
    assert "bfloat16 + float16    -> float32" in out
    assert "TypePromotionError: Input dtypes ('float32', 'int32')" in out


@pytest.mark.parametrize("line", ["[1.0, 3.0, 2.0] PyTreeDef((*, {'a': *, 'b': *}))",
                                  "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))",
                                  "{'b': 6, 'w': [2, 4]}"])
def test_pytrees_example_prints_jax_structures(line):
    assert line in run_example("pytrees").splitlines()


def run_source(source: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(STAGE)}
    result = subprocess.run([sys.executable, "-c", source], cwd=STAGE, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+\.\d+", text)]


def test_mlp_example_prints_what_real_jax_prints_for_the_same_source():
    pytest.importorskip("jax")
    source = (STAGE / "examples" / "mlp.py").read_text()
    as_jax = source.replace("import didax as jax\n", "import jax\n").replace(
        "import didax.numpy as jnp\n", "import jax.numpy as jnp\n")
    assert as_jax != source and "didax" not in as_jax.split('"""')[-1]
    ours, theirs = run_example("mlp"), run_source(as_jax)
    assert [line for line in ours.splitlines() if line.endswith(":")] == \
        [line for line in theirs.splitlines() if line.endswith(":")]
    assert len(numbers(ours)) == len(numbers(theirs)) > 20
    assert numbers(ours) == pytest.approx(numbers(theirs), abs=2e-4)  # printed to 4 places
