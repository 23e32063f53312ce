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
        "eval_basics", "mlp", "promotion", "pytrees", "jvp_basics", "nested", "jvp_pytrees",
        "vmap_basics", "per_example", "jacobians"}


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



def printed_array(lines: list[str], first: int, rows: int) -> np.ndarray:
    """The NumPy array printed on ``rows`` lines from ``lines[first]`` (brackets and all)."""
    text = " ".join(lines[first:first + rows]).replace("[", " ").replace("]", " ")
    return np.array([float(v) for v in text.split()]).reshape(rows, -1)


def after(lines: list[str], header: str, rows: int) -> np.ndarray:
    return printed_array(lines, lines.index(header) + 1, rows)


def test_vmap_basics_prints_the_seeds_add_one_and_the_loops_values():
    lines = run_example("vmap_basics").splitlines()
    assert "vmap(add_one, (0,))(arange(3.0)) = [1. 2. 3.]" in lines  # the seeds' value
    xs = np.arange(6.0).reshape(3, 2)
    shared = lines.index("Here every row of xs is scaled by the same vector w:")
    np.testing.assert_array_equal(printed_array(lines, shared + 1, 3), xs * [10.0, 100.0])
    assert f"sum of each column = {xs.sum(0)} = {xs.sum(0)}" in lines
    np.testing.assert_array_equal(
        after(lines, "out_axes says where the batch axis goes in the result: 1 stacks the examples as columns.", 2),
        (xs * 2.0).T)
    assert str(np.array([1.0, 2.0, 3.0]) * 2.0 + 0.5) in lines
    np.testing.assert_array_equal(after(lines, "batch is broadcast along it:", 3), np.tile([7.0, 8.0], (3, 1)))
    assert lines[lines.index("ValueError: vmap got inconsistent sizes for array axes to be mapped:") + 1:][:2] == [
        "  * one axis had size 3: axis 0 of argument a of type float32[3];",
        "  * one axis had size 4: axis 0 of argument b of type float32[4]"]
    assert lines[-1].endswith("stacked: True")


def linear_model_oracle() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The per-example example's losses and gradients, in NumPy, from the same numbers."""
    w, b = np.array([0.5, -1.0, 2.0]), 0.25
    xs = np.array([[1.0, 0.0, 2.0], [0.5, 1.5, -1.0], [-2.0, 1.0, 0.0], [3.0, -0.5, 1.0]])
    ys = np.array([4.0, -2.0, 0.5, 3.5])
    residual = xs @ w + b - ys
    return residual**2, 2 * residual[:, None] * xs, 2 * residual


def test_per_example_prints_numpys_losses_gradients_dots_and_jaxs_random_bits():
    lines = run_example("per_example").splitlines()
    losses, grad_w, grad_b = linear_model_oracle()
    assert f"losses = {losses.astype(np.float32)}" in lines
    by_jvp = after(lines, "each of w's three directions. The directions are one vmap, the examples another around it:", 4)
    np.testing.assert_allclose(by_jvp, grad_w, rtol=1e-6)
    np.testing.assert_allclose(after(lines, "d loss / d w =", 4), grad_w, rtol=1e-6)
    assert f"d loss / d b = {grad_b.astype(np.float32)}" in lines
    a = np.arange(12.0).reshape(4, 3)
    b = np.array([[1.0, 0.0, -1.0], [2.0, 2.0, 2.0], [0.5, 0.0, 0.5], [-1.0, 1.0, 0.0]])
    assert f"dots = {np.einsum('ij,ij->i', a, b).astype(np.float32)}" in lines
    assert f"each row of a against one shared vector: {a.sum(1).astype(np.float32)}" in lines
    draws = after(lines, "them. Each example draws the same bits it would draw alone, as in JAX:", 4)
    assert lines[-1] == "equal to the Python loop: True"
    jax = pytest.importorskip("jax")
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    want = np.asarray(jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys))
    np.testing.assert_allclose(draws, want, rtol=1e-6)  # printed to float32's shortest digits


def test_jacobians_prints_the_seeds_negative_zeros_and_numpys_derivatives():
    out = run_example("jacobians")
    # The seeds' values (autodidax's layout transposed, as JAX lays the Jacobian out).
    assert ("Array([[ 1.        ,  0.        ,  0.        ],\n"
            "       [ 0.        ,  0.54030231,  0.        ],\n"
            "       [-0.        , -0.        , -0.41614684]], dtype=float64)") in out
    lines = out.splitlines()
    x, w, b = np.array([0.5, 2.0]), np.array([1.0, -0.5]), 0.25
    sech2 = 1 - np.tanh(w * x + b) ** 2
    np.testing.assert_allclose(after(lines, "d y / d w: shape (2, 2)", 2), np.diag(sech2 * x), rtol=1e-7)  # printed to 8 digits
    np.testing.assert_allclose(after(lines, "d y / d b: shape (2,)", 1)[0], sech2, rtol=1e-7)
    np.testing.assert_allclose(after(lines, "d total / d w: shape (2,)", 1)[0], x)
    assert lines[lines.index("d total / d b: shape ()") + 1] == "0.0"
    x0, x1 = 1.0, 2.0
    gradient = np.array([float(v) for v in next(line for line in lines if line.startswith("gradient = "))
                         .split("[")[1].rstrip("]").split()])
    np.testing.assert_allclose(gradient, [2 * x0 * x1, x0**2 + np.cos(x1)], rtol=1e-7)
    np.testing.assert_allclose(after(lines, "Hessian =", 2), [[2 * x1, 2 * x0], [2 * x0, -np.sin(x1)]], rtol=1e-7)


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
