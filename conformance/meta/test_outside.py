"""The suite as an outside implementer meets it: any package folder, missing names reported per test,
capabilities, reproducing programs, results that accumulate, and the plugin used from elsewhere."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conformance import reproduce
from conformance.impl import ImplLoadError, load, set_device_flags, wrap
from conformance.missing import Missing, missing_name
from conformance.results import Recorder, functions_of

REPO_ROOT = Path(__file__).resolve().parents[2]
JAX_LIKE = "from jax import config, dtypes, lax, numpy, numpy_dtype_promotion, tree_util  # noqa\n"


def run_pytest(*args: str, cwd: Path = REPO_ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "CONFORMANCE_IMPL"}
    full_env = {**base, "HYPOTHESIS_PROFILE": "ci", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=300)


def make_package(folder: Path, name: str, body: str = JAX_LIKE) -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text(body)
    return folder / name


# --- folders ---------------------------------------------------------------------------------------


def test_a_package_folder_of_any_name_loads_and_is_named_after_its_folder(tmp_path: Path) -> None:
    package = make_package(tmp_path / "holder", "mylib")
    assert load(str(package)).name == "mylib"  # the package folder itself
    held = load(str(tmp_path / "holder"))  # a folder holding exactly one package
    assert held.name == "holder" and held.numpy.__name__ == "jax.numpy"
    assert held.import_lines[-1] == "import mylib as jax"


def test_exercise_copies_and_stage_like_folders_never_take_a_stages_name(tmp_path: Path) -> None:
    make_package(tmp_path / "exercises" / "01_eval", "didax")
    make_package(tmp_path / "copies" / "02_jvp", "didax")
    assert load(str(tmp_path / "exercises" / "01_eval")).name == "exercise-01_eval"
    assert load(str(tmp_path / "copies" / "02_jvp")).name == "folder-02_jvp"


def test_a_folder_without_exactly_one_package_is_a_clear_error(tmp_path: Path) -> None:
    make_package(tmp_path, "one")
    make_package(tmp_path, "two")
    with pytest.raises(ImplLoadError, match="exactly one"):
        load(str(tmp_path))


def test_a_package_that_fails_to_import_is_a_usage_error_not_an_internal_error(tmp_path: Path) -> None:
    make_package(tmp_path, "broken", "raise ImportError('no backend')\n")
    done = run_pytest("conformance", f"--impl={tmp_path / 'broken'}", "--collect-only")
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert "no backend" in done.stderr


def test_an_implementation_without_the_device_count_flag_gets_xlas(monkeypatch: pytest.MonkeyPatch) -> None:
    # JAX 0.4.30 has no jax_num_cpu_devices: its sharding area asks XLA for the devices instead,
    # through XLA_FLAGS, which its CPU backend reads when it starts.
    module = types.ModuleType("old")
    module.__capabilities__ = ("eval", "sharding")  # type: ignore[attr-defined]
    module.config = types.SimpleNamespace(update=lambda *_: None)  # type: ignore[attr-defined]
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_thunk_runtime=false")
    set_device_flags(wrap(module, "old"))
    assert os.environ["XLA_FLAGS"] == "--xla_cpu_use_thunk_runtime=false --xla_force_host_platform_device_count=8"
    set_device_flags(wrap(module, "old"))  # asked again: not twice
    assert os.environ["XLA_FLAGS"].count("device_count") == 1


# --- missing names ---------------------------------------------------------------------------------


def test_a_module_without_numpy_reports_each_name_missing() -> None:
    empty = wrap(types.ModuleType("empty"), "empty")
    with pytest.raises(Missing, match="missing: jnp.floor"):
        empty.numpy.floor  # noqa: B018
    with pytest.raises(Missing, match="missing: jax.config.update"):
        empty.config.update("jax_enable_x64", True)
    with pytest.raises(Missing, match="missing: jax.numpy_dtype_promotion"):
        empty.numpy_dtype_promotion  # noqa: B018


def test_attribute_errors_are_missing_only_when_the_suite_asked() -> None:
    def suite_asks(x: object) -> object:
        return x.weak_type  # type: ignore[attr-defined]

    with pytest.raises(AttributeError) as info:
        suite_asks(np.ones(2))
    # This file is in meta/, not the suite's own folder: its lookups are not the suite's.
    assert missing_name(info.value, "impl") is None
    err = ModuleNotFoundError("No module named 'impl.tree'", name="impl.tree")
    assert missing_name(err, "impl") == "jax.tree"


def test_a_table_program_lacking_a_name_reports_it_missing() -> None:
    # The jvp, vjp, vmap, jit, jaxpr and sharding tables compile their programs from text (named
    # "<jvp case>" and so on): a name those programs look up is the suite's asking, as in a test file.
    empty = wrap(types.ModuleType("empty"), "empty")
    scope = {"lax": empty.lax}
    exec(compile("f = lambda x: lax.reduce_sum(x, (1,))", "<jvp case>", "exec"), scope)
    with pytest.raises(Missing, match="missing: lax.reduce_sum"):
        scope["f"](np.ones((2, 3)))
    exec(compile("f = lambda x: lax.reduce_sum(x, (1,))", "<string>", "exec"), scope)  # not a table's
    with pytest.raises(AttributeError) as info:
        scope["f"](np.ones((2, 3)))
    assert not isinstance(info.value, Missing)


def test_missing_functions_are_their_own_outcome_and_the_rest_runs(tmp_path: Path) -> None:
    done = run_pytest("conformance", "--impl=conformance.meta.broken.no_floor_divide", "--area=numpy",
                      "-k", "floor_divide or true_divide", f"--results-dir={tmp_path}")  # fmt: skip
    output = done.stdout + done.stderr
    assert "INTERNALERROR" not in output and "missing: jnp.floor_divide" in output, output[-3000:]
    tests = json.loads((tmp_path / "conformance.meta.broken.no_floor_divide.json").read_text())["tests"]
    outcomes = {t["id"]: t["outcome"] for t in tests}
    about_floor_divide = {i: o for i, o in outcomes.items() if re.search(r"[\[-]floor_divide[\]-]", i)}
    assert about_floor_divide and set(about_floor_divide.values()) == {"missing"}, outcomes
    assert any(o == "passed" for i, o in outcomes.items() if "true_divide" in i), outcomes
    assert {t["reason"] for t in tests if t["outcome"] == "missing"} == {"missing: jnp.floor_divide"}
    # pytest's own summary counts them as missing, not failed; the run still does not pass.
    summary = done.stdout.strip().splitlines()[-1]
    assert f"{len(about_floor_divide)} missing" in summary and "failed" not in summary, summary
    assert done.returncode == 1


LACKS_A_NAME = '''
import pytest
from hypothesis import given, strategies as st

pytestmark = pytest.mark.area("numpy")


@given(st.integers(0, 100))
def test_lacks_a_name(impl, n):
    with open(__file__ + ".calls", "a") as calls:
        calls.write("x")
    impl.numpy.no_such_function(n)
'''


def test_a_missing_name_in_a_hypothesis_test_ends_it_at_the_first_example(tmp_path: Path) -> None:
    """Hypothesis would shrink and explain a missing name like any failure, replaying the test dozens
    of times (minutes under the ci profile) to find the name still missing: it runs once."""
    (tmp_path / "test_lacks.py").write_text(LACKS_A_NAME)
    done = run_pytest("-p", "conformance.plugin", str(tmp_path / "test_lacks.py"),
                      "--impl=conformance.meta.broken.numpy_add", f"--results-dir={tmp_path / 'results'}")  # fmt: skip
    assert "1 missing" in done.stdout.strip().splitlines()[-1], done.stdout[-3000:]
    assert "missing: jnp.no_such_function" in done.stdout
    assert (tmp_path / "test_lacks.py.calls").read_text() == "x"


# --- capabilities ----------------------------------------------------------------------------------

FAKE_TESTS = '''
import pytest

pytestmark = pytest.mark.area("numpy")


@pytest.mark.requires("jvp")
def test_needs_jvp(impl):
    assert False, "must not run on an implementation without jvp"


def test_needs_eval(impl):
    assert float(impl.numpy.multiply(2.0, 3.0)) == 6.0
'''


def test_a_test_beyond_the_declared_capabilities_is_not_applicable(tmp_path: Path) -> None:
    """Any test that names its area is a conformance test, wherever it lives (the plugin loaded
    with -p); an implementation declaring ("eval",) gets the jvp test as not applicable."""
    (tmp_path / "test_fake.py").write_text(FAKE_TESTS)
    results = tmp_path / "results"
    done = run_pytest("-p", "conformance.plugin", str(tmp_path / "test_fake.py"),
                      "--impl=conformance.meta.broken.numpy_add", f"--results-dir={results}")  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    tests = json.loads((results / "conformance.meta.broken.numpy_add.json").read_text())["tests"]
    by_name = {t["id"].split("::")[-1]: t for t in tests}
    assert by_name["test_needs_jvp"]["outcome"] == "not_applicable"
    assert by_name["test_needs_jvp"]["reason"].startswith("not applicable: needs jvp")
    assert by_name["test_needs_eval"]["outcome"] == "passed"


def test_an_unknown_capability_is_an_error_in_the_test(tmp_path: Path) -> None:
    (tmp_path / "test_fake.py").write_text(FAKE_TESTS.replace('"jvp"', '"telepathy"'))
    done = run_pytest("-p", "conformance.plugin", str(tmp_path / "test_fake.py"), "--impl=jax",
                      f"--results-dir={tmp_path}")  # fmt: skip
    assert done.returncode == 4 and "telepathy" in done.stderr, done.stderr[-2000:]


# --- reproducing programs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [np.array([0.1, np.nan, -np.inf, 1e-45], np.float32), np.array([[1.5, -2.25]], ml_dtypes.bfloat16),
     np.zeros((0, 3), np.int8), np.array(3 + 4j, np.complex64), np.uint64(2**64 - 1), np.float16(0.1),
     (np.array([True, False]), [2.5, float("nan")], {"a": np.int32(-7)})],
    ids=["float32", "bfloat16", "empty", "complex", "uint64", "float16", "nested"],
)  # fmt: skip
def test_literals_give_back_the_exact_value(value: object) -> None:
    text = reproduce.literal(value)
    namespace = {"np": np, "ml_dtypes": ml_dtypes, "nan": np.nan, "inf": np.inf}
    again = eval(text, namespace)  # noqa: S307 (our own literal)
    flat_a, flat_b = _flatten(value), _flatten(again)
    assert len(flat_a) == len(flat_b)
    for a, b in zip(flat_a, flat_b):
        assert np.asarray(a).dtype == np.asarray(b).dtype and np.asarray(a).shape == np.asarray(b).shape
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind in "fc")


def _flatten(value: object) -> list:
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _flatten(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _flatten(v)]
    return [value]


def test_a_failures_program_reproduces_it_in_a_fresh_process(tmp_path: Path) -> None:
    """The report starts with the program; the same text begins the JSON's reason; run alone, the
    program prints the wrong result, and with real jax swapped in, the right one."""
    done = run_pytest("conformance/test_numpy_elementwise.py", "--impl=conformance.meta.broken.numpy_add",
                      "--area=numpy", "-k", "test_binary_function_matches_numpy and add",
                      f"--results-dir={tmp_path}")  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:]
    assert "# A program that reproduces this failure (paste it into Python):" in done.stdout
    failed = [t for t in json.loads((tmp_path / "conformance.meta.broken.numpy_add.json").read_text())["tests"]
              if t["outcome"] == "failed"]  # fmt: skip
    program, message = failed[0]["reason"].split("\n\n", 1)
    # Weak operands are drawn too, so hypothesis may find more than one distinct failure of add.
    assert program in done.stdout and ("AssertionError" in message or "distinct failures" in message)
    assert "import conformance.meta.broken.numpy_add as jax" in program
    assert "jax.config.update('jax_enable_x64'," in program

    def run(text: str) -> str:
        ran = subprocess.run([sys.executable, "-c", text], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr[-2000:]
        return ran.stdout

    broken = run(program)
    right = run(program.replace("import conformance.meta.broken.numpy_add as jax", "import jax"))
    assert broken != right, (broken, right)


# --- results ---------------------------------------------------------------------------------------


def fake_run(results_dir: Path, impl: object, outcomes: dict[str, tuple[str, str]]) -> Recorder:
    recorder = Recorder(results_dir)
    recorder.use(impl)  # type: ignore[arg-type]
    for nodeid, (area, outcome) in outcomes.items():
        recorder.expect(nodeid, area)
        recorder.outcomes[nodeid] = outcome
    recorder.write()
    return recorder


def test_a_partial_run_updates_its_areas_and_keeps_the_others(tmp_path: Path) -> None:
    impl = wrap(types.ModuleType("fake"), "fake")
    fake_run(tmp_path, impl, {"a.py::test_x": ("numpy", "passed"), "b.py::test_y": ("lax", "failed")})
    fake_run(tmp_path, impl, {"b.py::test_y": ("lax", "passed"), "b.py::test_z": ("lax", "missing")})
    data = json.loads((tmp_path / "fake.json").read_text())
    assert data["areas"]["numpy"]["passed"] == 1
    assert data["areas"]["lax"] == {"passed": 1, "failed": 0, "release_detail": 0, "missing": 1, "not_applicable": 0,
                                  "skipped": 0}
    assert set(data["runs"]) == {"numpy", "lax"} and data["runs"]["lax"]["profile"]
    assert data["runs"]["numpy"]["ran_at"] <= data["runs"]["lax"]["ran_at"]


def test_a_k_run_merges_its_tests_into_the_areas_results(tmp_path: Path) -> None:
    """Two -k runs of one area, the suite's folder named: the file holds both runs' tests."""
    for keyword in ("test_dict_and_ordered_dict_structures_differ", "test_none_is_an_empty_node"):
        done = run_pytest("conformance", "--impl=jax", "--area=pytrees", "-k", keyword, f"--results-dir={tmp_path}")
        assert done.returncode == 0, done.stdout[-3000:]
    tests = json.loads((tmp_path / "jax.json").read_text())["tests"]
    assert sorted(t["id"].split("::")[-1] for t in tests) == ["test_dict_and_ordered_dict_structures_differ",
                                                              "test_none_is_an_empty_node"]  # fmt: skip


def test_a_whole_area_run_replaces_the_areas_results_and_a_partial_one_updates_them(tmp_path: Path) -> None:
    impl = wrap(types.ModuleType("fake"), "fake")
    fake_run(tmp_path, impl, {"a.py::test_x": ("numpy", "failed"), "a.py::test_gone": ("numpy", "passed")})
    recorder = Recorder(tmp_path, partial=True)  # e.g. -k test_x
    recorder.use(impl)
    recorder.expect("a.py::test_x", "numpy")
    recorder.outcomes["a.py::test_x"] = "passed"
    recorder.write()
    tests = {t["id"]: t["outcome"] for t in json.loads((tmp_path / "fake.json").read_text())["tests"]}
    assert tests == {"a.py::test_x": "passed", "a.py::test_gone": "passed"}
    fake_run(tmp_path, impl, {"a.py::test_x": ("numpy", "passed")})  # the whole area: test_gone is gone
    tests = {t["id"]: t["outcome"] for t in json.loads((tmp_path / "fake.json").read_text())["tests"]}
    assert tests == {"a.py::test_x": "passed"}


def test_two_packages_of_one_name_in_different_folders_keep_their_own_results(tmp_path: Path) -> None:
    first, second = make_package(tmp_path / "a", "mylib"), make_package(tmp_path / "b", "mylib")
    impls = [load(str(first)), load(str(second))]
    assert [i.name for i in impls] == ["mylib", "mylib"] and impls[0].results_id != impls[1].results_id
    for impl, outcome in zip(impls, ("passed", "failed")):
        fake_run(tmp_path, impl, {"a.py::test_x": ("numpy", outcome)})
    files = sorted(tmp_path.glob("mylib*.json"))
    assert len(files) == 2
    outcomes = {json.loads(f.read_text())["id"]: json.loads(f.read_text())["tests"][0]["outcome"] for f in files}
    assert outcomes == {impls[0].results_id: "passed", impls[1].results_id: "failed"}


def test_a_test_is_about_the_functions_named_in_its_id() -> None:
    used = ["jnp.asarray", "jnp.floor"]
    assert functions_of("t.py::test_unary[floor]", used, set()) == ["jnp.floor"]
    assert functions_of("t.py::test_where", ["jnp.where", "jnp.asarray"], set()) == ["jnp.where"]
    assert functions_of("t.py::test_thing", ["lax.cumsum"], set()) == ["lax.cumsum"]
    assert functions_of("t.py::test_jvp[sin]", [], {"jnp.sin", "jnp.cos"}) == ["jnp.sin"]
    assert functions_of("t.py::test_cumsum", ["jnp.sum"], set()) == ["jnp.sum"]  # the one it looked up
    assert functions_of("t.py::test_table", ["jnp.add", "jnp.mul"], set()) == []


CHARGED_TESTS = '''
import numpy as np
import pytest

pytestmark = pytest.mark.area("pytrees")


def test_cumulative_floor_divide(impl, x64):
    """Sets x64 (jax.config.update) before it finds floor_divide missing."""
    impl.numpy.floor_divide(np.ones(2), 2.0)


@pytest.mark.parametrize("name", ["DictKey", "SequenceKey"])
def test_key_entry_prints(impl, name):
    tu = impl.tree_util
    entry = getattr(tu, name)(1)
    assert str(entry) == "[1]"
    assert tu.keystr((entry,), simple=True) == "not what keystr gives"  # fails, on keystr
'''


def test_a_test_is_charged_to_the_function_it_is_about(tmp_path: Path) -> None:
    """A missing test to the name it lacks (not to jax.config.update, which its x64 fixture used); a
    failure to the function of the statement that failed (keystr), not to each key class its id names."""
    (tmp_path / "test_charged.py").write_text(CHARGED_TESTS)
    results = tmp_path / "results"
    done = run_pytest("-p", "conformance.plugin", str(tmp_path / "test_charged.py"),
                      "--impl=conformance.meta.broken.no_floor_divide", f"--results-dir={results}")  # fmt: skip
    data = json.loads((results / "conformance.meta.broken.no_floor_divide.json").read_text())
    charged = {t["id"].split("::")[-1]: (t["outcome"], t["functions"]) for t in data["tests"]}
    assert charged == {
        "test_cumulative_floor_divide[x64_off]": ("missing", ["jnp.floor_divide"]),
        "test_cumulative_floor_divide[x64_on]": ("missing", ["jnp.floor_divide"]),
        "test_key_entry_prints[DictKey]": ("failed", ["tree_util.keystr"]),
        "test_key_entry_prints[SequenceKey]": ("failed", ["tree_util.keystr"]),
    }, done.stdout[-3000:]
    assert data["functions"] == {"jnp.floor_divide": {"missing": 2}, "tree_util.keystr": {"failed": 2}}


def test_the_statement_that_failed_decides_what_a_failure_is_about() -> None:
    used = ["tree_util.DictKey", "tree_util.keystr", "jnp.add", "jnp.float32"]
    statement = "assert tu.keystr((entry,), simple=True) == str(arg)"
    assert functions_of("t.py::test_key[DictKey]", used, set(), statement) == ["tree_util.keystr"]
    both = "assert jnp.add(x, y).dtype == jnp.float32"
    assert functions_of("t.py::test_add_dtype", used, set(), both) == ["jnp.add"]  # the id's, of both
    assert functions_of("t.py::test_sum", ["jnp.float32"], set(), both) == ["jnp.float32"]
    assert functions_of("t.py::test_key[DictKey]", used, set(), "assert_values(got, want)") == ["tree_util.DictKey"]
    assert functions_of("t.py::test_cumsum", ["jax.config.update"], set()) == []  # setting x64 is no topic


# --- the plugin from elsewhere -----------------------------------------------------------------------


def test_pyargs_runs_the_suite_from_another_directory(tmp_path: Path) -> None:
    """Not installed, the plugin is named with -p (installed, its entry point loads it); its conftest
    then does not load it a second time."""
    done = run_pytest("-p", "conformance.plugin", "--pyargs", "conformance", "--impl=jax", "--area=pytrees", "-k", "documented",
                      f"--results-dir={tmp_path / 'results'}", cwd=tmp_path,
                      env={"PYTHONPATH": str(REPO_ROOT)})  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert (tmp_path / "results" / "jax.json").is_file()


# --- a package that imports itself by its own name -------------------------------------------------

SELF_IMPORTING = '''import os

with open(os.environ["MYLIB_IMPORTS"], "a") as log:  # one line each time this file runs
    log.write(__name__ + "\\n")

from mylib._impl import __capabilities__, config, dtypes, lax, numpy, numpy_dtype_promotion, tree, tree_util  # noqa
'''
REEXPORT_STAGE_01 = f'''import sys

sys.path.insert(0, {str(REPO_ROOT / "stages" / "01_eval")!r})
from didax import __capabilities__, config, dtypes, lax, numpy, numpy_dtype_promotion, tree, tree_util  # noqa
'''


def make_self_importing_package(folder: Path) -> Path:
    package = make_package(folder, "mylib", SELF_IMPORTING)
    (package / "_impl.py").write_text(REEXPORT_STAGE_01)
    return package


@pytest.mark.parametrize("given", ["package", "parent", "parent_on_pythonpath"])
def test_a_package_that_imports_itself_by_name_loads_once_under_that_name(tmp_path: Path, given: str) -> None:
    """`from mylib._impl import ...` inside mylib: given by path (the package or its parent), with
    or without its parent on PYTHONPATH, it is imported once, as `mylib`, and its tests pass."""
    package = make_self_importing_package(tmp_path / "src")
    log = tmp_path / "imports.txt"
    env = {"MYLIB_IMPORTS": str(log)}
    if given == "parent_on_pythonpath":
        env["PYTHONPATH"] = os.pathsep.join([str(package.parent), os.environ.get("PYTHONPATH", "")])
    spec = package if given == "package" else package.parent
    done = run_pytest("conformance/test_pytrees.py", f"--impl={spec}", "--area=pytrees", "-k", "flatten",
                      f"--results-dir={tmp_path / 'results'}", env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert log.read_text().splitlines() == ["mylib"]
    results = json.loads(next((tmp_path / "results").glob("*.json")).read_text())
    assert results["areas"]["pytrees"]["passed"] > 0 and results["areas"]["pytrees"]["failed"] == 0


def test_a_self_importing_package_is_refused_when_another_module_has_its_name(tmp_path: Path) -> None:
    package = make_self_importing_package(tmp_path / "src")
    other = types.ModuleType("mylib")
    other.__file__ = str(tmp_path / "elsewhere" / "mylib" / "__init__.py")
    sys.modules["mylib"] = other
    try:
        with pytest.raises(ImplLoadError, match="different module 'mylib' is already imported"):
            load(str(package))
    finally:
        del sys.modules["mylib"]


def test_the_recorder_is_hashable_as_pytest_plugins_must_be(tmp_path: Path) -> None:
    """The results recorder is a pytest plugin: pytest puts plugins in sets when a conftest.py sits
    below the root (`pytest conformance tests`), which failed with INTERNALERROR while it was unhashable."""
    recorder = Recorder(tmp_path)
    assert recorder in {recorder} and Recorder(tmp_path) not in {recorder}
