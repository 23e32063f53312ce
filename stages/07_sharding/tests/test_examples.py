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


# A finder that refuses jax: the examples run with no jax at all (jaxlib alone drives XLA).
_NO_JAX = """
import importlib.abc, runpy, sys
class NoJax(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "jax" or name.startswith("jax."):
            raise ImportError(f"jax is blocked in this test: {name}")
sys.meta_path.insert(0, NoJax())
runpy.run_module(sys.argv[1], run_name="__main__")
import didax  # noqa: E402
stub = sys.modules.get("jax")
assert stub is None or getattr(stub, "__didax_stub__", False), "a real jax module was imported"
"""


@functools.cache  # an example prints the same each run: several tests read one run
def example_run(name: str) -> subprocess.CompletedProcess[str]:
    """`python -m examples.NAME` in a process where importing jax fails."""
    env = {**os.environ, "PYTHONPATH": str(STAGE)}
    return subprocess.run([sys.executable, "-c", _NO_JAX, f"examples.{name}"], cwd=STAGE, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def run_example(name: str) -> str:
    result = example_run(name)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_every_example_is_tested():
    assert {p.stem for p in (STAGE / "examples").glob("*.py")} == {
        "eval_basics", "mlp", "promotion", "pytrees", "jvp_basics", "nested", "jvp_pytrees",
        "vmap_basics", "per_example", "jacobians", "jaxpr_tour", "inverse", "counting", "control_flow",
        "jit_basics", "grad_basics", "train_mlp", "train_cnn", "data_parallel", "least_squares"}


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



@functools.cache
def run_as_jax(name: str) -> str:
    """The example's source run with real JAX in place of didax (same names, same calls)."""
    source = (STAGE / "examples" / f"{name}.py").read_text()
    as_jax = source.replace("import didax\n", "import jax as didax\n").replace(
        "import didax.numpy as jnp\n", "import jax.numpy as jnp\n").replace("from didax import lax\n", "from jax import lax\n")
    assert as_jax != source
    return run_source(as_jax)


# The seeds' func1 ("Understanding Jaxprs") as JAX 0.10.2 prints it, its literal typed (3.0:f32[];
# JAX's documentation shows 3.0), but for reduce_sum's out_sharding=None: didax has no shardings.
SEEDS_FUNC1 = """{ lambda ; a:f32[8] b:f32[8]. let
    c:f32[8] = sin b
    d:f32[8] = mul c 3.0:f32[]
    e:f32[8] = add a d
    f:f32[] = reduce_sum[axes=(0,)] e
  in (f,) }"""


def test_jaxpr_tour_prints_the_seeds_jaxpr_and_what_jax_stages():
    out = run_example("jaxpr_tour")
    assert SEEDS_FUNC1 in out
    lines = out.splitlines()
    assert "primitives: ['sin', 'mul', 'add', 'reduce_sum']" in lines
    # Omnistaging: the constants' arange and ones are equations, not arrays.
    omni = "\n".join(lines[lines.index("Omnistaging: operations on constants are recorded too, even array creation."):])
    assert "= iota[" in omni.split("in (e,) }")[0] and "= broadcast_in_dim 1.0:f32[]" in omni.split("in (e,) }")[0]
    assert f"its consts: {[np.array([1.0, 2.0, 3.0], np.float32)]}" in lines
    assert "{ lambda a:f32[3]; b:f32[3]. let" in lines  # the array is a constvar, the scalar a literal
    assert "    d:f32[3] = add c 2.0:f32[]" in lines
    # Where JAX's printer and didax's agree on every character, and lines that print no jaxpr.
    theirs = run_as_jax("jaxpr_tour").splitlines()
    same = [line for line in theirs if line.startswith(("return_shape=", "ShapeDtypeStruct(", "{ lambda ; a:f32[]. let b"))]
    assert len(same) == 3 and all(line in lines for line in same)
    assert "  in (4:i32[], f) }" in theirs and "  in (4:i32[], f) }" in lines  # a Python int result: a literal
    errors = [line.split(":")[0] for line in lines if line.startswith("  ") and "Error:" in line]
    assert errors == [line.split(":")[0] for line in theirs if line.startswith("  ") and "Error:" in line]
    assert [e.split()[-1] for e in errors] == ["TracerBoolConversionError", "ConcretizationTypeError",
                                               "TracerIntegerConversionError", "TracerArrayConversionError",
                                               "NonConcreteBooleanIndexError"]
    assert lines[-1] == f"ShapeDtypeStruct(shape={(10_000, 16)}, dtype=float32)"


def test_inverse_undoes_the_seeds_function_and_composes():
    lines = run_example("inverse").splitlines()
    # The seeds' printouts, of f and of its traced inverse.
    assert "{ lambda ; a:f32[]. let b:f32[] = tanh a; c:f32[] = exp b in (c,) }" in lines
    assert "{ lambda ; a:f32[]. let b:f32[] = log a; c:f32[] = atanh b in (c,) }" in lines
    assert float(next(line for line in lines if line.startswith("f_inv(f(1.0)) = ")).split(" = ")[1]) == \
        pytest.approx(1.0, abs=1e-6)
    xs = np.array([0.5, 1.0, 2.0])
    back = next(line for line in lines if line.startswith("x = ")).split("inverse(h)(h(x)) = ")[1]
    np.testing.assert_allclose(np.array(back.strip("[]").split(), float), xs, rtol=1e-6)
    ys = [line.split("= ")[1] for line in lines if line.startswith(("vmap(inverse(f))", "inverse(f)(ys)"))]
    for printed in ys:
        np.testing.assert_allclose(np.array(printed.strip("[]").split(), float), [0.2, 0.4, 0.6, 0.8], rtol=1e-6)
    # d/dy f^-1(y) at y = f(0.2) is 1 / f'(0.2); and central differences of the inverse itself.
    slope = float(next(line for line in lines if line.startswith("jvp(inverse(f))")).split("= ")[1])
    y, h = np.exp(np.tanh(0.2)), 1e-6
    inv = lambda y: np.arctanh(np.log(y))  # noqa: E731 (the inverse, by hand)
    assert slope == pytest.approx((inv(y + h) - inv(y - h)) / (2 * h), rel=1e-5)
    assert float(next(line for line in lines if line.startswith("jacfwd(inverse(f))")).split("= ")[1]) == \
        pytest.approx(slope, rel=1e-6)
    odd = next(line for line in lines if line.startswith("logistic, then")).split(": ")[1]
    np.testing.assert_allclose(np.array(odd.strip("[]").split(), float), [-1.0, 2.0], rtol=1e-5)
    assert "  sin: NotImplementedError: sin does not have a registered inverse." in lines


def printed_counts(text: str) -> dict[str, int]:
    """Equations per primitive, read from printed jaxprs: every `= name` on the left of a line."""
    counts: dict[str, int] = {}
    for name in re.findall(r"(?:\b[a-z]+:[a-z0-9]+\[[\d,]*\] )+= ([\w-]+)", text):
        counts[name] = counts.get(name, 0) + 1
    return counts


def test_counting_agrees_with_the_printed_jaxprs():
    lines = run_example("counting").splitlines()
    counted = {}
    for line in lines:
        match = re.match(r"(.+): (\d+) equations \((.*)\)$", line)
        if match:
            parts = dict(p.rsplit(" ", 1) for p in match.group(3).split(", "))
            counted[match.group(1)] = {k: int(v) for k, v in parts.items()}
            assert sum(counted[match.group(1)].values()) == int(match.group(2))
    assert set(counted) == {"f", "jvp(f)", "vmap(f) over x", "jacfwd(f)", "clipped", "only the top level",
                            "vmap(clipped): the cond is a select_n"}
    jaxprs = printed_jaxprs("\n".join(lines))
    assert counted["f"] == printed_counts(jaxprs[0])
    # Into the cond's branches: the count of every equation the printout shows, nested ones too.
    assert counted["clipped"] == printed_counts(jaxprs[1]) and counted["clipped"]["cond"] == 1
    assert sum(counted["only the top level"].values()) == 4 and "tanh" not in counted["only the top level"]
    assert "cond" not in counted["vmap(clipped): the cond is a select_n"]
    assert counted["vmap(clipped): the cond is a select_n"]["select_n"] == 1
    # Each transformation computes tanh once and adds work around it: jvp a tangent for every
    # step, vmap only moves axes, jacfwd is a vmap of jvp.
    assert counted["jvp(f)"]["tanh"] == counted["vmap(f) over x"]["tanh"] == counted["jacfwd(f)"]["tanh"] == 1
    assert counted["jvp(f)"]["dot_general"] == 2 and counted["vmap(f) over x"]["dot_general"] == 1



def printed_jaxprs(out: str) -> list[str]:
    """Every jaxpr printed in ``out``, from its ``{ lambda`` line to its closing ``}`` line."""
    found, current = [], None
    for line in out.splitlines():
        if current is None and line.startswith("{ lambda"):
            current = [line]
        elif current is not None:
            current.append(line)
        if current is not None and (line.startswith("  in (") or line.startswith("{ lambda")) and line.endswith("}"):
            found.append("\n".join(current))
            current = None
    return found


def test_control_flow_agrees_with_python_finite_differences_a_loop_and_jax():
    out = run_example("control_flow")
    lines = out.splitlines()
    # Values against Python's own control flow.
    func7 = lambda x: x + 3.0 if x >= 0 else x - 3.0  # noqa: E731
    assert f"func7(5.0) = {func7(5.0)}  func7(-5.0) = {func7(-5.0)}" in lines
    branches = [lambda x: x + 1.0, lambda x: x - 2.0, lambda x: x + 3.0]
    want = [branches[min(max(i, 0), 2)](5.0) for i in (-1, 0, 1, 2, 7)]
    assert f"one_of_three(i, 5.0) for i in -1, 0, 1, 2, 7 = {want}" in lines
    # Derivatives against central differences of the branch taken, in float64.
    h = 1e-6
    for x, branch in [(1.0, np.sin), (-1.0, np.cos)]:
        line = next(line for line in lines if line.startswith(f"d/dx f at {x} = "))
        fd = (branch(x + h) - branch(x - h)) / (2 * h)
        assert float(line.split(" = ")[1].split()[0]) == pytest.approx(fd, rel=1e-6)
    # vmap against a loop over the examples, computed here with NumPy.
    xs = np.array([-1.0, 2.0, -3.0, 4.0])
    batched = next(line for line in lines if line.startswith("vmap(f)(xs) = ")).split(" = ")[1]
    np.testing.assert_allclose(np.array(batched.strip("[]").split(), float),
                               [np.sin(x) if x > 0 else np.cos(x) for x in xs], rtol=1e-6)
    # A batched predicate: no cond left, a select_n of both branches.
    jaxprs = printed_jaxprs(out)
    selected = next(j for j in jaxprs if "select_n" in j)
    assert "cond[" not in selected and "cos a" in selected and "sin a" in selected
    # The jaxprs JAX 0.10.2 prints for the same source are the same, character for character, but
    # for the batched cond: JAX also feeds each branch through a select with stop_gradient, for
    # reverse mode.
    theirs = printed_jaxprs(run_as_jax("control_flow"))
    assert len(theirs) == len(jaxprs) == 10
    assert [j for j in jaxprs if j is not selected] == [j for j in theirs if "stop_gradient" not in j]
    errors = [line for line in lines if line.startswith("TypeError: ")]
    assert errors == [line for line in run_as_jax("control_flow").splitlines() if line.startswith("TypeError: ")]
    assert errors == [
        "TypeError: The output of true_fun has type float32[2] but the corresponding output of false_fun has "
        "type float32[], so the shapes do not match.",
        "TypeError: The input carry x has type int32[] but the corresponding output carry component has type "
        "float32[], so the dtypes do not match."]


def numbers_after(lines: list[str], start: str) -> list[float]:
    line = next(line for line in lines if line.startswith(start))
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d*)?(?:e-?\d+)?", line[len(start):])]


def test_loops_agree_with_python_loops_finite_differences_and_a_loop_over_examples():
    lines = run_example("control_flow").splitlines()

    def halvings(x):
        count = 0
        while x >= 1.0:
            x, count = x / 2.0, count + 1
        return count

    want = [halvings(x) for x in (0.5, 3.0, 100.0)]
    assert numbers_after(lines, "halvings of 0.5, 3.0, 100.0 = ") == want
    assert numbers_after(lines, "vmap(halvings)([0.5, 3.0, 100.0]) = ") == want

    carry = np.ones(3) + 1.0  # the seeds' func10: arg + ones, then five times + 3 * ones + arg
    for _ in range(5):
        carry = carry + 3.0 + 1.0
    assert numbers_after(lines, "func10(ones(3), 5) = ") == list(carry)

    def func11(arr, extra):
        carry, ys = 0.0, []
        for a in arr:
            ys.append(carry)
            carry = carry + a * 1.0 + extra
        return carry, ys

    c, ys = func11(np.arange(4.0), 5.0)
    assert numbers_after(lines, "func11(arange(4.0), 5.0) = ") == [c, *ys]
    h = 1e-6  # central differences of the Python loop, in float64
    (cp, yp), (cm, ym) = func11(np.arange(4.0), 5.0 + h), func11(np.arange(4.0), 5.0 - h)
    fd = [(cp - cm) / (2 * h), *((np.array(yp) - np.array(ym)) / (2 * h))]
    assert numbers_after(lines, "d/d extra: ") == pytest.approx(fd, rel=1e-6, abs=1e-9)
    rows = np.arange(6.0).reshape(2, 3)
    assert numbers_after(lines, "vmap over rows of arr: ") == [func11(row, 5.0)[0] for row in rows]

    def newton_sqrt(a):
        x = a
        for _ in range(5):
            x = 0.5 * (x + a / x)
        return x

    value, slope = numbers_after(lines, "newton_sqrt(2.0) = ")[0], numbers_after(lines, "newton_sqrt(2.0) = ")[-1]
    assert value == pytest.approx(newton_sqrt(2.0), rel=1e-6)
    assert slope == pytest.approx((newton_sqrt(2.0 + h) - newton_sqrt(2.0 - h)) / (2 * h), rel=1e-5)
    assert numbers_after(lines, "lax.map(square, arange(4.0)) = ") == [x * x for x in range(4)]
    assert numbers_after(lines, "lax.associative_scan(add, arange(5.0)) = ") == list(np.cumsum(np.arange(5.0)))


def test_jit_basics_prints_the_seeds_values_and_the_module():
    lines = run_example("jit_basics").splitlines()
    assert lines[:3] == ["tracing!", "f(3., 4.) = -0.09224219304455371", "f(4., 5.) = -0.21467624978306993"]
    assert "jit(deriv(deriv(g)))(3.) = 0.2822400161197344" in lines
    assert "jvp(jit(g), (3.,), (1.,)) = 2.7177599838802657 2.979984993200891" in lines
    assert "vmap(jit(g))(arange(3.)) = [ 0.         -0.68294197  0.18140515]" in lines
    assert "    %0 = stablehlo.sine %arg0 : tensor<3xf32>" in lines
    assert lines.count("tracing!") == 1


@pytest.mark.parametrize("name", sorted(p.stem for p in (STAGE / "examples").glob("*.py")))
def test_examples_run_without_jax(name):
    """Every example, also those no other test reads, ends well with jax unimportable."""
    result = example_run(name)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr


def test_grad_basics_prints_the_seeds_values():
    out = run_example("grad_basics")
    assert "linearize(sin, 3.): y = 0.1411200080598672  f_lin(1.) = -0.9899924966004454" in out
    assert "grad(f)(3.) = 2.979984993200891" in out
    assert "grad(jit(f))(3.) = 2.979984993200891" in out
    assert "add_any" in out  # the transpose sums the two cotangents of x


def test_train_mlp_loss_falls():
    losses = [float(line.split("loss")[1]) for line in run_example("train_mlp").splitlines() if "loss" in line]
    assert len(losses) == 6
    assert losses[-1] < losses[0] / 50
    assert all(b <= a * 1.05 for a, b in zip(losses, losses[1:]))


def test_least_squares_fits_agree_with_each_other_numpy_and_jax():
    """lstsq, the normal equations and gradient descent give NumPy's coefficients (to the 4 places
    printed), and JAX prints the same numbers for the same source."""
    ours = run_example("least_squares")
    lines = ours.splitlines()
    rng = np.random.default_rng(0)
    t = np.linspace(-1, 1, 50).astype(np.float32)
    design = np.stack([t**k for k in range(4)], axis=1)
    y = design @ np.array([1.0, -2.0, 0.5, 3.0], np.float32) + rng.normal(scale=0.1, size=50).astype(np.float32)
    want = np.linalg.lstsq(design.astype(np.float64), y.astype(np.float64), rcond=None)[0]
    for start in ("lstsq coefficients:", "normal equations:", "gradient descent:"):
        assert numbers_after(lines, start) == pytest.approx(want, abs=2e-4), start
    pytest.importorskip("jax")
    assert numbers(ours) == pytest.approx(numbers(run_as_jax("least_squares")), abs=2e-4)


def test_train_cnn_loss_falls_as_jaxs_does():
    ours = run_example("train_cnn")
    losses = [float(line.split("loss")[1]) for line in ours.splitlines() if "loss" in line]
    assert len(losses) == 6 and losses[-1] < losses[0] / 20
    assert "training accuracy: 1.000" in ours
    pytest.importorskip("jax")
    assert numbers(ours) == pytest.approx(numbers(run_as_jax("train_cnn")), abs=2e-4)  # printed to 4 places


def test_data_parallel_training_on_eight_devices_steps_as_one_device_does():
    """pmap and shard_map, each device on an eighth of the batch, give the losses and weights
    that training on one device gives (to float32's rounding), and the loss falls."""
    lines = run_example("data_parallel").splitlines()
    assert lines[0] == "8 devices; each takes 32 of the 256 points"
    rows = [[float(v) for v in re.findall(r"\d+\.\d{6}", line)] for line in lines if line.startswith("step")]
    assert len(rows) == 5 and all(len(r) == 3 for r in rows)
    for one, by_pmap, by_shard_map in rows:
        assert abs(by_pmap - one) <= 2e-6 + 1e-5 * one and abs(by_shard_map - one) <= 2e-6 + 1e-5 * one
    assert rows[-1][0] < rows[0][0] / 50
    gaps = [float(g) for g in re.findall(r"(?:pmap|shard_map) ([0-9.]+e[-+]\d+)", lines[-2])]
    assert len(gaps) == 2 and max(gaps) < 1e-5
    assert lines[-1].endswith("spec=P(), memory_kind=device)")  # the weights: whole on every device
