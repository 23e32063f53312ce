"""The exercises work: a copy with bodies removed fails the stage's tests, the untouched copy
passes them, and the removal keeps signatures and docstrings."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from site_common import ROOT, SITE  # puts site/ on sys.path first

import exercises  # noqa: E402


def stage_tests(copy: Path, *args: str, paths: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """The copy's tests (or the test files ``paths``), run in the copy on its own package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    targets = paths or [str(copy / "tests")]
    return subprocess.run([sys.executable, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider", *args],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=300)


def make(stage: str, into: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SITE / "exercises.py"), "make", stage, "--into", str(into), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_remove_bodies_keeps_signature_and_docstring():
    source = (
        "import x\n\n\n"
        "def f(a: int, b: int = 2) -> int:\n"
        '    """Add them."""\n'
        "    # the answer\n"
        "    return a + b\n\n\n"
        "def g():\n"
        "    @decorated\n"
        "    def inner():\n"
        "        pass\n"
        "    return inner\n\n\n"
        "class C:\n"
        "    def m(self):\n"
        '        """Method."""\n\n'
        "    def n(self):\n"
        "        return 1\n"
    )
    out = exercises.remove_bodies(source, ["f", "g", "C.m"], "m.py")
    tree = ast.parse(out)
    f, g, c = tree.body[1], tree.body[2], tree.body[3]
    assert ast.unparse(f.args) == "a: int, b: int=2" and ast.get_docstring(f) == "Add them."
    assert "the answer" not in out and "a + b" not in out and "inner" not in out
    assert [type(s).__name__ for s in f.body] == ["Expr", "Raise"]
    assert [type(s).__name__ for s in g.body] == ["Raise"]
    assert ast.get_docstring(c.body[0]) == "Method." and isinstance(c.body[0].body[1], ast.Raise)
    assert ast.unparse(c.body[1]) == "def n(self):\n    return 1"  # untouched
    assert "exercise: write the body of C.m (m.py)" in out
    with pytest.raises(exercises.ExerciseError, match="no function or class named 'nope'"):
        exercises.remove_bodies(source, ["nope"], "m.py")


def test_make_refuses_unknown_stages_sets_and_files(tmp_path: Path):
    assert "no stage" in make("99_none", tmp_path / "a").stderr
    assert "no exercise set" in make("01_eval", tmp_path / "b", "--set", "nope").stderr
    assert "has no file" in make("01_eval", tmp_path / "c", "--remove", "didax/nope.py:f").stderr
    assert not (tmp_path / "c").exists()  # nothing written when a request is bad


STAGES = sorted(exercises.EXERCISES)


def copied_files(folder: Path) -> dict[str, bytes]:
    """The files of `folder` that `make` copies (it leaves out caches), by path, with their bytes."""
    found = {}
    for here, dirs, files in os.walk(folder):
        left_out = exercises._IGNORE(here, [*dirs, *files])
        dirs[:] = [d for d in dirs if d not in left_out]
        for name in set(files) - left_out:
            found[str(Path(here, name).relative_to(folder))] = Path(here, name).read_bytes()
    return found


# Stages 01-04 are left out: their sets' test files pass below on copies with a learner's answers
# (the lattice set's copy passes every test of stage 01), which an untouched copy would only repeat.
@pytest.mark.parametrize("stage", [s for s in STAGES if s >= "05"])
def test_the_untouched_copy_passes_the_stage_tests(tmp_path: Path, stage: str):
    # The copy holds the stage's files byte for byte (and its notes file), so the stage's own run
    # of these tests speaks for it. On the copy, from its folder, they are collected, and the first
    # of them runs. (Running them all took 75 s for stage 07 alone, a repeat of the stage's run.)
    copy = tmp_path / stage
    assert make(stage, copy).returncode == 0
    copied = copied_files(copy)
    assert copied.pop(exercises.META) and copied == copied_files(ROOT / "stages" / stage)
    files = [str(copy / f) for f in sorted({test for ex in exercises.EXERCISES[stage] for test in ex.tests})]
    collected = stage_tests(copy, "--collect-only", paths=files)
    assert collected.returncode == 0, collected.stdout[-3000:]
    ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert len(ids) >= len(files)
    result = stage_tests(copy, paths=[ids[0]])
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout[-3000:]


@pytest.mark.parametrize("stage", STAGES)
def test_each_exercise_set_makes_the_stage_tests_fail_with_the_exercise_message(tmp_path: Path, stage: str):
    sets = exercises.EXERCISES[stage]

    def attempt(ex: exercises.ExerciseSet) -> str | None:
        copy = tmp_path / ex.name
        made = make(stage, copy, "--set", ex.name)
        if made.returncode:
            return f"{ex.name}: make failed: {made.stderr}"
        for spec in ex.functions:
            rel, name = spec.rsplit(":", 1)
            if f"exercise: write the body of {name} ({rel})" not in (copy / rel).read_text():
                return f"{ex.name}: {spec} was not removed"
        result = stage_tests(copy, "-x", paths=[str(copy / t) for t in ex.tests])  # those `check` runs first
        if result.returncode == 0:
            return f"{ex.name}: its tests {ex.tests} still pass with {ex.functions} removed"
        if "NotImplementedError: exercise" not in result.stdout:
            return f"{ex.name}: the failure does not show the exercise message:\n{result.stdout[-2000:]}"
        return None

    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(attempt, sets) if p]
    assert not problems, "\n".join(problems)


def test_the_copy_uses_its_own_package_not_the_stage(tmp_path: Path):
    """A removed body really is what the tests run: the copy's didax is the one imported."""
    copy = tmp_path / "copy"
    assert make("01_eval", copy, "--remove", "didax/core.py:bind").returncode == 0
    probe = "import didax, didax.numpy as jnp; print(didax.__file__); jnp.sin(1.0)"
    env = {**os.environ, "PYTHONPATH": str(copy)}
    result = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=env, capture_output=True, text=True)
    assert result.stdout.startswith(str(copy))
    assert "NotImplementedError: exercise: write the body of bind (didax/core.py)" in result.stderr


def exercises_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SITE / "exercises.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_list_without_a_stage_lists_every_stages_sets():
    result = exercises_cli("list")
    assert result.returncode == 0, result.stderr
    for stage, sets in exercises.EXERCISES.items():
        assert f"{stage}:" in result.stdout
        assert all(ex.name in result.stdout for ex in sets)


def test_check_of_a_missing_folder_is_a_one_line_error(tmp_path: Path):
    result = exercises_cli("check", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("exercises: no folder")
    assert "Traceback" not in result.stderr


def test_every_exercise_function_says_what_it_must_do():
    for stage, sets in exercises.EXERCISES.items():
        for ex in sets:
            # Keyed by the function's own name, or by its qualified name where that name alone would
            # be ambiguous (the inner `rule` of defjvp, deflinear and defzero).
            qualnames = [spec.rpartition(":")[2] for spec in ex.functions]
            names = {q if q in ex.expects else q.rpartition(".")[2] for q in qualnames}
            assert names == set(ex.expects), f"{stage} {ex.name}: expectations for {set(ex.expects)}, not {names}"
            assert ex.tests and all((ROOT / "stages" / stage / t).exists() for t in ex.tests)


# A learner's own answers to the lattice set: not the stage's code, a different algorithm.
UPPER_BOUNDS = '''
    lattice = _standard_lattice(x64) if mode == "standard" else _strict_lattice()
    out = {}
    for start in lattice:
        seen, todo = {start}, [start]
        while todo:
            for nxt in lattice[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[start] = frozenset(seen)
    return out
'''
JOIN = '''
    bounds = _upper_bounds(mode, x64)
    common = set.intersection(*(set(bounds[n]) for n in nodes))
    least = [c for c in common if common <= bounds[c]]
    if len(least) == 1:
        return least[0]
    names = tuple(sorted(_node_name(n) for n in nodes))
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path when "
        f"jax_numpy_dtype_promotion={mode}.MESSAGE_END"
    )
'''
RIGHT_END = (" Try explicitly casting inputs to the desired output type, or set "
             "jax_numpy_dtype_promotion=standard.")


def write_answer(copy: Path, rel: str, name: str, body: str) -> None:
    path = copy / rel
    stub = f"    raise NotImplementedError('exercise: write the body of {name} ({rel})')\n"
    text = path.read_text()
    assert stub in text
    path.write_text(text.replace(stub, body.lstrip("\n")))


def test_check_passes_a_correct_solution_and_names_the_wrong_function(tmp_path: Path):
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    for copy, end in [(right, RIGHT_END), (wrong, " Cast the inputs.")]:
        assert make("01_eval", copy, "--set", "lattice").returncode == 0
        write_answer(copy, "didax/dtypes.py", "_upper_bounds", UPPER_BOUNDS)
        write_answer(copy, "didax/dtypes.py", "_join", JOIN.replace("MESSAGE_END", end))
    passed = exercises_cli("check", str(right))
    assert passed.returncode == 0, passed.stdout[-3000:]
    assert "exercises: 2 of 2 solved; every test of the stage passes" in passed.stdout
    failed = exercises_cli("check", str(wrong))
    assert failed.returncode == 1
    summary = failed.stdout.split("exercises: summary for", 1)[1]
    assert re.search(r"solved +didax/dtypes.py:_upper_bounds", summary)
    assert re.search(r"failing +didax/dtypes.py:_join\n +tests/test_golden.py::test_strict_promotion_error_message",
                     summary), summary
    assert "exercises: 1 of 2 solved" in summary
    assert len(failed.stdout.splitlines()) < 120  # short tracebacks, stopped at the first failure


def test_check_of_a_fresh_copy_is_short_and_says_nothing_is_written(tmp_path: Path):
    copy = tmp_path / "fresh"
    assert make("01_eval", copy, "--set", "bind").returncode == 0
    result = exercises_cli("check", str(copy))
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) < 80, result.stdout
    for fn in exercises.exercise_set("01_eval", "bind").functions:
        assert re.search(rf"not written yet +{re.escape(fn)}", result.stdout)


# A learner's own answers to stage 02's zeros and rules sets, each written differently from the
# stage's code: inner functions (defjvp.rule) are answered in place, at their own indentation.
JVP_ANSWERS = {
    "tangent_aval": """
        if not dtypes.is_inexact(aval.dtype):
            return ShapedArray(aval.shape, float0, aval.weak_type)
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type)
    """,
    "Zero.like": """
        aval = get_aval(primal)
        return Zero(tangent_aval(aval))
    """,
    "instantiate": """
        if not isinstance(tangent, Zero):
            return tangent
        shape, dtype = tangent.aval.shape, tangent.aval.dtype
        if dtype == float0:
            return np.zeros(shape, dtype=float0)
        return lax.full(shape, Array(np.zeros((), dtype), tangent.aval.weak_type))
    """,
    "defjvp.rule": """
        ans = prim.bind(*primals, **params)
        terms = []
        for fn, t in zip(fns, tangents):
            if fn is not None and not isinstance(t, Zero):
                terms.append(fn(t, ans, *primals, **params))
        return ans, _sum_terms(terms, ans)
    """,
    "_sum_terms": """
        import functools

        if len(terms) == 0:
            return Zero.like(ans)
        total = functools.reduce(lax.add, terms)
        shape = get_aval(ans).shape
        return total if get_aval(total).shape == shape else lax.broadcast_in_dim(total, shape, ())
    """,
    "deflinear.rule": """
        real = [instantiate(t) for t in tangents]
        return prim.bind(*primals, **params), prim.bind(*real, **params)
    """,
    "defzero.rule": """
        ans = prim.bind(*primals, **params)
        return ans, ([Zero.like(a) for a in ans] if prim.multiple_results else Zero.like(ans))
    """,
}


def answer_in_place(copy: Path, rel: str, qualname: str, body: str) -> None:
    """Replace the stub of `qualname` by `body`, indented as the stub is."""
    path = copy / rel
    text = path.read_text()
    stub = re.search(rf"^( *)raise NotImplementedError\('exercise: write the body of {re.escape(qualname)} "
                     rf"\({re.escape(rel)}\)'\)\n", text, re.M)
    assert stub, f"no stub for {qualname} in {rel}"
    lines = textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", stub.group(1))
    path.write_text(text[:stub.start()] + lines + text[stub.end():])


def test_check_passes_other_correct_answers_to_the_jvp_sets(tmp_path: Path):
    copy = tmp_path / "jvp"
    assert make("02_jvp", copy, "--set", "zeros", "--set", "rules").returncode == 0
    for qualname, body in JVP_ANSWERS.items():
        answer_in_place(copy, "didax/ad.py", qualname, body)
    result = exercises_cli("check", "--own-tests", str(copy))
    assert result.returncode == 0, result.stdout[-3000:]
    assert "exercises: 7 of 7 solved; the set's own tests pass" in result.stdout


def test_a_written_inner_function_is_tried_alone_with_the_model_answers(tmp_path: Path):
    """check blames the right function of a set of inner rules: the trial copy keeps the learner's
    defzero.rule and takes the stage's code for the other functions of the set."""
    copy = tmp_path / "jvp"
    assert make("02_jvp", copy, "--set", "rules").returncode == 0
    answer_in_place(copy, "didax/ad.py", "defzero.rule", "return 'mine'\n")
    functions = list(exercises.exercise_set("02_jvp", "rules").functions)
    trial = exercises.with_model_answers(copy, ROOT / "stages" / "02_jvp", "didax/ad.py:defzero.rule", functions,
                                         tmp_path / "trial")
    source = (trial / "didax" / "ad.py").read_text()
    assert "return 'mine'" in source and "exercise: write the body" not in source
    model = (ROOT / "stages" / "02_jvp" / "didax" / "ad.py").read_text()
    for name in ["defjvp.rule", "_sum_terms", "deflinear.rule"]:
        mine_fn = exercises.find_function(ast.parse(source), name)
        model_fn = exercises.find_function(ast.parse(model), name)
        assert ast.unparse(mine_fn) == ast.unparse(model_fn), name



# A learner's own answers to three of stage 03's sets, each written differently from the stage's code.
VMAP_ANSWERS = {
    "BatchTracer.aval": """
        aval = get_aval(self.val)
        if self.batch_dim is None:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)
    """,
    "BatchTracer.full_lower": """
        return self if self.batch_dim is not None else full_lower(self.val)
    """,
    "BatchTrace.process_primitive": """
        vals, dims = [t.val for t in tracers], [t.batch_dim for t in tracers]
        if all(d is None for d in dims):
            return primitive.bind(*vals, **params)
        if primitive not in batching_rules:
            raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
        out, out_dim = batching_rules[primitive](vals, dims, **params)
        if not primitive.multiple_results:
            return BatchTracer(self, out, out_dim)
        return [BatchTracer(self, v, d) for v, d in zip(out, out_dim)]
    """,
    "full_axis": """
        return axis if axis < bdim else axis + 1
    """,
    "defreduction.rule": """
        [x], [bdim] = vals, dims
        full = tuple(a + 1 if a >= bdim else a for a in axes)
        return prim.bind(x, axes=full, **params), bdim - len([a for a in full if a < bdim])
    """,
    "defcumulative.rule": """
        [x], [bdim] = vals, dims
        return prim.bind(x, axis=axis if axis < bdim else axis + 1, reverse=reverse), bdim
    """,
    "_flatten_axes": """
        axis_leaves, axis_tree = tree_flatten(axes, is_leaf=lambda a: a is None)
        try:
            parts = axis_tree.flatten_up_to(tree)
        except ValueError as err:
            raise ValueError(f"{what} specification must be a tree prefix of the corresponding value; {err}") from None
        out = []
        for axis, part in zip(axis_leaves, parts):
            out.extend([axis] * len(tree_flatten(part)[0]))
        return out
    """,
    "_batch_size": """
        mapped = [(i, get_aval(x).shape[a]) for i, (x, a) in enumerate(zip(leaves, axes)) if a is not None]
        sizes = {s for _, s in mapped}
        if axis_size is not None:
            sizes.add(axis_size)
        if len(sizes) == 1:
            return int(next(iter(sizes)))
        if len(leaves) == 0:
            raise ValueError("vmap wrapped function must be passed at least one argument containing an array or "
                             f"axis_size must be specified, got empty *args={args} and **kwargs={kwargs}")
        if not sizes:
            raise ValueError("vmap must have at least one non-None value in in_axes or axis_size must be specified")
        raise ValueError(_inconsistent_sizes(fun, args, kwargs, leaves, axes, mapped, axis_size))
    """,
}


def test_check_passes_other_correct_answers_to_the_vmap_sets(tmp_path: Path):
    copy = tmp_path / "vmap"
    sets = ["batch-trace", "reduction-rule", "vmap-api"]
    assert make("03_vmap", copy, *(arg for name in sets for arg in ("--set", name))).returncode == 0
    for qualname, body in VMAP_ANSWERS.items():
        answer_in_place(copy, "didax/batching.py", qualname, body)
    result = exercises_cli("check", "--own-tests", str(copy))
    assert result.returncode == 0, result.stdout[-3000:]
    assert "exercises: 8 of 8 solved; the set's own tests pass" in result.stdout


def test_a_wrong_batch_dim_is_blamed_on_its_rule(tmp_path: Path):
    """The reduction rule with the seed's off-by-one (the batch axis never moves down) fails, and
    check names that function, not the others of the set."""
    copy = tmp_path / "vmap"
    assert make("03_vmap", copy, "--set", "reduction-rule").returncode == 0
    answers = dict(VMAP_ANSWERS)
    answers["defreduction.rule"] = """
        [x], [bdim] = vals, dims
        return prim.bind(x, axes=tuple(full_axis(a, bdim) for a in axes), **params), bdim
    """
    for qualname in ["full_axis", "defreduction.rule", "defcumulative.rule"]:
        answer_in_place(copy, "didax/batching.py", qualname, answers[qualname])
    result = exercises_cli("check", str(copy))
    assert result.returncode == 1
    summary = result.stdout.split("exercises: summary for", 1)[1]
    assert re.search(r"failing +didax/batching.py:defreduction.rule", summary), summary
    assert re.search(r"solved +didax/batching.py:full_axis", summary), summary
    assert re.search(r"solved +didax/batching.py:defcumulative.rule", summary), summary


# A learner's own answers to three of stage 04's sets, each written differently from the stage's code.
JAXPR_ANSWERS = {
    "alphabetic": """
        letters = "abcdefghijklmnopqrstuvwxyz"
        return alphabetic(n // 26) + letters[n % 26] if n >= 26 else letters[n]
    """,
    "PrintContext.name": """
        if v not in self.names:
            name = alphabetic(self._fresh)
            self._fresh += 1
            while name in self.shared.values():
                name = alphabetic(self._fresh)
                self._fresh += 1
            self.names[v] = name
        return self.names[v]
    """,
    "eval_jaxpr": """
        if len(args) != len(jaxpr.invars):
            raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
        values = {}
        for var, value in [*zip(jaxpr.constvars, consts), *zip(jaxpr.invars, args)]:
            values[var] = value
        value_of = lambda x: x.val if isinstance(x, Literal) else values[x]  # noqa: E731
        for eqn in jaxpr.eqns:
            result = eqn.primitive.bind(*[value_of(x) for x in eqn.invars], **eqn.params)
            results = list(result) if eqn.primitive.multiple_results else [result]
            for var, value in zip(eqn.outvars, results):
                values[var] = value
        return list(map(value_of, jaxpr.outvars))
    """,
    "dce_jaxpr": """
        outs = list(used_outputs) if not isinstance(used_outputs, bool) else [used_outputs] * len(jaxpr.outvars)
        needed = {v for v, u in zip(jaxpr.outvars, outs) if u and isinstance(v, Var)}
        keep_eqn = [False] * len(jaxpr.eqns)
        for i in range(len(jaxpr.eqns) - 1, -1, -1):
            eqn = jaxpr.eqns[i]
            if needed.intersection(eqn.outvars):
                keep_eqn[i] = True
                needed.update(x for x in eqn.invars if isinstance(x, Var))
        inst = list(instantiate) if not isinstance(instantiate, bool) else [instantiate] * len(jaxpr.invars)
        used_inputs = [(v in needed) or bool(k) for v, k in zip(jaxpr.invars, inst)]
        return (
            Jaxpr(
                jaxpr.constvars,
                [v for v, u in zip(jaxpr.invars, used_inputs) if u],
                [v for v, u in zip(jaxpr.outvars, outs) if u],
                [e for e, k in zip(jaxpr.eqns, keep_eqn) if k],
            ),
            used_inputs,
        )
    """,
}


def test_check_passes_other_correct_answers_to_the_jaxpr_sets(tmp_path: Path):
    copy = tmp_path / "jaxpr"
    assert make("04_jaxpr", copy, "--set", "eval-jaxpr", "--set", "dce",
                "--remove", "didax/jaxpr.py:alphabetic,didax/jaxpr.py:PrintContext.name").returncode == 0
    # check_jaxpr is part of the eval-jaxpr set: put the stage's back, the others are the learner's.
    model = exercises.find_function(ast.parse((ROOT / "stages/04_jaxpr/didax/jaxpr.py").read_text()), "check_jaxpr")
    lines = (ROOT / "stages/04_jaxpr/didax/jaxpr.py").read_text().splitlines(keepends=True)
    body = "".join(lines[model.body[1].lineno - 1:model.end_lineno])
    answer_in_place(copy, "didax/jaxpr.py", "check_jaxpr", textwrap.dedent(body))
    for qualname, answer in JAXPR_ANSWERS.items():
        rel = "didax/staging.py" if qualname == "dce_jaxpr" else "didax/jaxpr.py"
        answer_in_place(copy, rel, qualname, answer)
    result = exercises_cli("check", "--own-tests", str(copy))
    assert result.returncode == 0, result.stdout[-3000:]
    assert "exercises: 5 of 5 solved; the set's own tests pass" in result.stdout


def test_names_that_go_on_after_z_with_aa_are_blamed_on_alphabetic(tmp_path: Path):
    """A printer that names the 27th variable `aa` (a spreadsheet's columns) instead of JAX's `ba`:
    check names alphabetic and the test of the names after z."""
    copy = tmp_path / "printer"
    assert make("04_jaxpr", copy, "--set", "printer").returncode == 0
    pretty_model = (ROOT / "stages/04_jaxpr/didax/pretty.py").read_text()
    (copy / "didax/pretty.py").write_text(pretty_model)  # the layout as the stage has it
    answer_in_place(copy, "didax/jaxpr.py", "alphabetic", """
        s = ""
        n += 1
        while n:
            n, digit = divmod(n - 1, 26)
            s = chr(ord("a") + digit) + s
        return s
    """)
    answer_in_place(copy, "didax/jaxpr.py", "PrintContext.name", JAXPR_ANSWERS["PrintContext.name"])
    result = exercises_cli("check", str(copy))
    assert result.returncode == 1
    summary = result.stdout.split("exercises: summary for", 1)[1]
    assert re.search(r"failing +didax/jaxpr.py:alphabetic\n +tests/test_jaxpr.py::test_names_go_on_after_z", summary), summary
    assert re.search(r"solved +didax/jaxpr.py:PrintContext.name", summary), summary
    assert re.search(r"solved +didax/pretty.py:format", summary), summary
