"""The chapter's example programs run, and print the seeds' values."""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
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
    assert {p.stem for p in (STAGE / "examples").glob("*.py")} == {
        "eval_basics", "mlp", "promotion", "pytrees", "jvp_basics", "nested", "jvp_pytrees"}


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


def test_jvp_basics_prints_the_seeds_values():
    lines = run_example("jvp_basics").splitlines()
    assert "sin(3.0) = 0.1411200080598672   d/dx sin(x) at 3.0 = -0.9899924966004454   cos(3.0) = " \
        "-0.9899924966004454" in lines
    assert "f(3.0) = 2.7177599838802657   f'(3.0) = 2.979984993200891" in lines
    assert "jvp(f, (3.0,), (2.0,))[1] = 5.959969986401782" in lines
    assert "slope at 3.0 = 2.0   slope at -3.0 = 1.0" in lines
    assert "NotImplementedError, as intended: Differentiation rule for 'nextafter' not implemented" in lines


def test_nested_example_gives_four_derivatives_of_sin_and_no_perturbation_confusion():
    lines = run_example("nested").splitlines()
    seeds = ["-0.9899924966004454", "-0.1411200080598672", "0.9899924966004454", "0.1411200080598672"]
    assert [line for line in lines if line.startswith("order ")] == [
        f"order {n}: {v}" for n, v in enumerate(seeds, 1)]
    assert "  in inner: x is a tracer of level 1 and y of level 2" in lines
    assert "d/dx d/dy (x * y * y) at y = 3.0 is 2 * y = 6.0" in lines
    assert "f'(1.5) = 1.0" in lines
    assert lines[-1].endswith("which at x = 3.0 is 6.0")


def test_jvp_pytrees_example_prints_the_seeds_trees():
    lines = run_example("jvp_pytrees").splitlines()
    for tree in ["{'hi': 2.7177599838802657, 'there': [3.0, 0.2822400161197344]}",
                 "{'hi': 2.979984993200891, 'there': [1.0, -1.9799849932008908]}",
                 "{'Astley': [1.0, 1.3639461402385225], 'Rick': 2.8603490734715633}",
                 "{'Astley': [1.5, -1.8726607644621398], 'Rick': -2.108416843328513}"]:
        assert tree in lines
    loss_slope = next(line for line in lines if line.startswith("directional derivative"))
    assert float(loss_slope.split(": ")[1]) == pytest.approx(0.3 * (1 - np.tanh(0.8) ** 2), rel=1e-12)
    assert any(line.startswith("A tangent of another structure is a TypeError (intended): primals have tree "
                               "structure PyTreeDef(({'b': *, 'w': *}, *))") for line in lines)
    assert "0.7080734182735712 0.9092974268256818 {'note': 'not differentiated', 'sin': 0.8414709848078965}" in lines
    assert "d/dx x**n at x = 2.0, n = 3: 12.0" in lines
    assert "an integer output's tangent is float0 too: True shape ()" in lines


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
