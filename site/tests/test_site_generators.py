"""The generated parts of the site, on the repository and on small made-up repositories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from site_common import ROOT, SITE  # puts site/ on sys.path first

import sitegen  # noqa: E402
from exercises import EXERCISES  # noqa: E402


def make_stage(root: Path, name: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / "stages" / name / "didax" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_first_stage_is_shown_whole_with_its_files_and_line_counts(tmp_path: Path):
    make_stage(tmp_path, "01_a", {"__init__.py": "x = 1\n", "core.py": "a = 1\nb = 2\nc = 3\n"})
    md = sitegen.stage_diff_markdown("01_a", tmp_path)
    assert "The whole stage is new" in md
    assert "| `stages/01_a/didax/core.py` | 3 |" in md
    assert "| **total** | **4** |" in md
    assert "0 files (0 lines) in `examples/`" in md


def test_a_later_stage_gets_a_unified_diff_against_the_stage_before(tmp_path: Path):
    make_stage(tmp_path, "01_a", {"__init__.py": "x = 1\n", "core.py": "a = 1\nb = 2\n", "gone.py": "z = 0\n"})
    make_stage(tmp_path, "02_b", {"__init__.py": "x = 1\n", "core.py": "a = 1\nb = 3\n", "jvp.py": "j = 1\nk = 2\n"})
    make_stage(tmp_path, "03_c", {"__init__.py": "x = 2\n"})
    md = sitegen.stage_diff_markdown("02_b", tmp_path)
    assert "The whole stage is new" not in md
    assert "against that of `01_a`" in md
    assert "| `didax/core.py` | changed | 1 | 1 |" in md
    assert "| `didax/jvp.py` | new | 2 | 0 |" in md
    assert "| `didax/gone.py` | removed | 0 | 1 |" in md
    assert "__init__.py" not in md  # unchanged files are left out
    # each file folded, its diff inside; a new file of the package is not repeated (it has a page)
    assert ('??? abstract "`didax/core.py`: changed, +1 -1"\n    ```diff\n    --- a/didax/core.py\n    +++ '
            'b/didax/core.py\n    @@ -1,2 +1,2 @@\n     a = 1\n    -b = 2\n    +b = 3\n    ```') in md
    assert '??? abstract "`didax/jvp.py`: new, +2 -0"\n    New in this stage; read it whole on its own page' in md
    assert "+j = 1" not in md
    assert "against that of `02_b`" in sitegen.stage_diff_markdown("03_c", tmp_path)


def test_a_later_stage_shows_its_recorded_lesson_with_its_size(tmp_path: Path):
    make_stage(tmp_path, "01_a", {"core.py": "a = 1\nb = 2\n"})
    make_stage(tmp_path, "02_b", {"core.py": "a = 1\nb = 3\n"})
    test = tmp_path / "stages" / "02_b" / "tests" / "test_core.py"
    test.parent.mkdir(parents=True)
    test.write_text("def test_b():\n    pass\n")
    tool = sitegen.stages_tool()
    lesson = tool.stage_diff(tmp_path / "stages" / "01_a", tmp_path / "stages" / "02_b")
    (tmp_path / "stages" / "02_b" / "LESSON.diff").write_text(lesson)
    md = sitegen.stage_diff_markdown("02_b", tmp_path)
    assert "recorded in `stages/02_b/LESSON.diff`" in md
    assert "**Lesson size: 2 files changed, +3 -1 lines.**" in md
    assert "| `tests/test_core.py` | new | 2 | 0 |" in md  # tests are part of the lesson
    # the tests come last, apart, folded; a new test file is shown as its diff (it has no page)
    assert md.index("**The package and the examples") < md.index("**The tests, file by file**")
    assert '"`tests/test_core.py`: new, +2 -0"\n    ```diff\n    --- /dev/null\n    +++ b/tests/test_core.py\n' in md
    # the page shows the recorded file, not a diff made anew (the check keeps the two equal)
    (tmp_path / "stages" / "02_b" / "LESSON.diff").write_text(lesson.replace("+b = 3", "+b = 4"))
    assert "+b = 4" in sitegen.stage_diff_markdown("02_b", tmp_path)


def test_named_definitions_resolve_to_their_lines(tmp_path: Path):
    path = tmp_path / "m.py"
    path.write_text("import x\n\n\n@deco\ndef f():\n    return 1\n\n\nclass C:\n    def m(self):\n        pass\n\n\nA = 1\nB = 2\n")
    assert sitegen.definition_lines(path, "f") == (4, 6)
    assert sitegen.definition_lines(path, "C.m") == (10, 11)
    assert sitegen.definition_lines(path, "A..B") == (14, 15)
    with pytest.raises(sitegen.SiteError, match="no top-level definition named 'g'"):
        sitegen.definition_lines(path, "g")


def test_conformance_page_says_no_results_until_there_are(tmp_path: Path):
    assert "No results yet" in sitegen.conformance_markdown(tmp_path)
    assert "python3 scripts/dev.py test" in sitegen.conformance_markdown(tmp_path)
    (tmp_path / "matrix.md").write_text("# Conformance matrix\n\n| impl | promotion |\n|---|---|\n| 01_eval | 12 passed |\n")
    md = sitegen.conformance_markdown(tmp_path)
    assert "| 01_eval | 12 passed |" in md and "## Conformance matrix" in md and "No results yet" not in md


def test_conformance_json_alone_becomes_a_table(tmp_path: Path):
    (tmp_path / "matrix.json").write_text(json.dumps({"01_eval": {"promotion": {"passed": 5, "failed": 1}}}))
    assert "| `01_eval` | 5 passed, 1 failed |" in sitegen.conformance_markdown(tmp_path)


def test_performance_page_has_no_made_up_numbers(tmp_path: Path):
    md = sitegen.benchmarks_markdown(tmp_path)
    assert "No benchmark results yet" in md and not re.search(r"\d+(\.\d+)? ?(ms|s)\b", md)
    (tmp_path / "add.json").write_text(json.dumps({"title": "add", "results": [
        {"case": "n=1000", "impl": "didax", "seconds": 0.5}, {"case": "n=1000", "impl": "jax", "seconds": 0.1}]}))
    md = sitegen.benchmarks_markdown(tmp_path)
    assert "## add" in md and "| case | impl | seconds |" in md and "| n=1000 | jax | 0.1 |" in md


def test_benchmark_runner_results_show_when_where_and_their_tables(tmp_path: Path):
    (tmp_path / "01_eval-eager.json").write_text(json.dumps({
        "title": "Stage 01_eval: eager dispatch",
        "measured": "Measured on 2030-01-01 00:00 UTC on Linux x86_64, Some CPU, 4 CPUs.",
        "legend": "Microseconds per call.",
        "meta": {"implementations": ["numpy", "didax", "jax"]},
        "cases": [{"case": "x + y", "numpy": {"min_us": 0.5}, "didax": {"min_us": 4.0}, "jax": {"min_us": 5.0}},
                  {"case": "tree_flatten", "numpy": None, "didax": {"min_us": 9.0}, "jax": {"min_us": 3.0}}],
        "tables": [{"title": None, "columns": ["case", "NumPy µs", "didax µs", "JAX µs", "didax/JAX"],
                    "rows": [["`x + y`", "0.5", "4", "5", "0.80"], ["`tree_flatten`", "—", "9", "3", "3.00"]]}],
    }))
    md = sitegen.benchmarks_markdown(tmp_path)
    assert "### Stage 01_eval: eager dispatch" in md and "Measured on 2030-01-01 00:00 UTC on Linux" in md
    assert "| case | NumPy µs | didax µs | JAX µs | didax/JAX |" in md and "| `tree_flatten` | — | 9 | 3 | 3.00 |" in md
    series = sitegen.benchmark_series(json.loads((tmp_path / "01_eval-eager.json").read_text()))
    assert series["didax"] == {"x + y": 4e-6, "tree_flatten": 9e-6} and "tree_flatten" not in series["numpy"]


def test_the_committed_benchmark_results_are_what_the_page_shows():
    files = sitegen.benchmark_files()
    assert files and all(f.parent == sitegen.ROOT / "benchmarks" / "results" for f in files)
    md = sitegen.benchmarks_markdown()
    assert "No benchmark results yet" not in md and md.count("Measured on ") == len(files)


def test_the_api_reference_lists_each_module_of_the_stage():
    api = sitegen.stage_api("01_eval")
    assert set(api) == set(sitegen.API_MODULES)
    names = {m: {e["name"]: e for e in entries} for m, entries in api.items()}
    assert names["didax.lax"]["add"]["kind"] == "function"
    assert names["didax.lax"]["add"]["signature"].startswith("(x")  # annotations shown unquoted
    assert "'" not in names["didax.lax"]["add"]["signature"]
    assert names["didax.lax"]["add_p"]["kind"] == "primitive"
    assert names["didax"]["ShapedArray"]["kind"] == "class"
    assert names["didax.dtypes"]["promote_types"]["doc"]  # the docstring's first line
    assert "Any" not in names["didax.tree_util"] and "annotations" not in names["didax.dtypes"]
    assert "elementwise" not in names["didax.lax"]  # submodules are not API names


def test_every_stage_has_a_chapter_an_api_page_and_exercises():
    nav = yaml.safe_load((SITE / "mkdocs.yml").read_text())["nav"]
    flat = json.dumps(nav)
    for stage in sitegen.stage_names():
        chapter = SITE / "docs" / "stages" / f"{stage}.md"
        assert chapter.is_file(), f"stage {stage} has no chapter"
        assert re.match(rf"---\nstage: {stage}\n", chapter.read_text()), chapter
        assert "<!-- didax:diff -->" in chapter.read_text()
        assert f"<!-- didax:api {stage} -->" in (SITE / "docs" / "reference" / f"{stage}.md").read_text()
        assert f'"stages/{stage}.md"' in flat and f'"reference/{stage}.md"' in flat
        assert len(EXERCISES.get(stage, [])) >= 3, f"stage {stage} has fewer than three exercise sets"
        for ex in EXERCISES[stage]:
            assert f"--set {ex.name}" in chapter.read_text(), f"the chapter does not mention set {ex.name}"


def test_docstring_summary_is_the_first_sentence_on_one_line():
    assert sitegen._first_line("The leaves of ``tree``, in order.  A subtree\n    is kept.\n\nMore.") == \
        "The leaves of ``tree``, in order."
    assert sitegen._first_line("True if a leaf, i.e. ``x`` is\nnot a node. Else False.") == \
        "True if a leaf, i.e. ``x`` is not a node."
    assert sitegen._first_line("dtype(dtype, align=False) --\n\nCreate a data type object.") == \
        "Create a data type object."
    assert sitegen._first_line(None) == ""


def test_dtype_classes_show_a_call_signature_and_a_summary():
    numpy_api = {e["name"]: e for e in sitegen.stage_api("01_eval")["didax.numpy"]}
    for name in ["float32", "bool_", "bfloat16", "int8"]:
        entry = numpy_api[name]
        assert entry["kind"] == "dtype" and entry["signature"] == "(x: ArrayLike = 0) -> Array", entry
        assert entry["doc"].startswith("The dtype `")


def test_conformance_matrix_shows_stages_and_jax_from_the_first_folder_with_results(tmp_path: Path):
    committed, local = tmp_path / "committed", tmp_path / "local"
    committed.mkdir()
    local.mkdir()
    areas = {"numpy": {"passed": 7, "failed": 0, "not_applicable": 2, "skipped": 0}}
    for impl in ["jax", "01_eval", "my_copy"]:
        (local / f"{impl}.json").write_text(json.dumps({"impl": impl, "areas": areas, "tests": []}))
    assert "No results yet" in sitegen.conformance_markdown([committed])
    md = sitegen.conformance_markdown([committed, local])
    # implementation by area: a coloured cell, its count inside and all counts on hover
    assert ('<th><code>01_eval</code></th><td class="didax-cell didax-pass" title="01_eval, numpy: 7 passed, '
            '2 n/a">7</td>') in md and "| jax |" in md
    assert md.index("| 01_eval |") < md.index("| jax |")
    assert "| my_copy |" not in md and "not part of this matrix" in md and "`my_copy`" in md
    assert "*Measured on the machine that ran" in md and "written on" in md
    (committed / "01_eval.json").write_text(json.dumps({"impl": "01_eval", "areas": areas, "machine": "ci-box"}))
    md = sitegen.conformance_markdown([committed, local])
    assert "| jax |" not in md and "Measured on ci-box" in md


def test_conformance_page_says_what_each_row_is_and_links_failures_by_function(tmp_path: Path):
    areas = {"numpy": {"passed": 1, "failed": 1, "missing": 1, "not_applicable": 0, "skipped": 0}}
    tests = [
        {"id": "t.py::test_unary[floor]", "area": "numpy", "outcome": "failed", "functions": ["jnp.floor"],
         "reason": "import numpy as np\nprint(jnp.floor(x))\n\nAssertionError: values differ"},
        {"id": "t.py::test_unary[ceil]", "area": "numpy", "outcome": "passed", "functions": ["jnp.ceil"]},
        {"id": "t.py::test_unary[exp]", "area": "numpy", "outcome": "missing", "functions": ["jnp.exp"],
         "reason": "missing: jnp.exp"},
    ]
    adapter = {"impl": "numpy-adapter", "kind": "reference", "description": "NumPy behind a thin adapter",
               "capabilities": ["eval"], "areas": areas, "tests": tests,
               "runs": {"numpy": {"ran_at": "2026-01-02T03:04:05Z", "profile": "quick", "selection": ""}}}
    (tmp_path / "numpy-adapter.json").write_text(json.dumps(adapter))
    (tmp_path / "exercise-01_eval.json").write_text(json.dumps({**adapter, "impl": "exercise-01_eval", "kind": "folder"}))
    md = sitegen.conformance_markdown(tmp_path)
    assert "| numpy-adapter | NumPy behind a thin adapter | eval | 2026-01-02 03:04:05 UTC, profile quick (numpy) |" in md
    assert 'title="numpy-adapter, numpy: 1 passed, 1 failed, 1 missing">1 failed</td>' in md
    # the summary lists the functions not passed everywhere, linked to the failures' page
    assert "| `jnp.floor` | numpy-adapter: [fail 1/1](conformance-failures.md#fail-numpy-adapter-jnp-floor) |" in md
    assert "| `jnp.exp` | numpy-adapter: missing |" in md and "`jnp.ceil`" not in md.split("### The failures")[0]
    assert "print(jnp.floor(x))" not in md
    failures = sitegen.conformance_markdown(tmp_path, part="failures")
    assert "| `jnp.ceil` | pass |" in failures and "| `jnp.floor` | [fail 1/1](#fail-numpy-adapter-jnp-floor) |" in failures
    assert '<a id="fail-numpy-adapter-jnp-floor"></a>' in failures and "print(jnp.floor(x))" in failures
    assert "| exercise-01_eval |" not in md and "`exercise-01_eval`" in md


def test_conformance_page_shows_release_details_apart_from_failures(tmp_path: Path):
    """An area whose tests failed only on details of JAX 0.10.2 (an exception's class JAX 0.4 raised
    differently) is a cell of its own colour, and its function is listed as "detail k/n"."""
    areas = {"errors": {"passed": 1, "failed": 0, "release_detail": 1, "not_applicable": 0, "skipped": 0}}
    tests = [{"id": "e.py::test_misuse[lax-dot-mismatch]", "area": "errors", "outcome": "release_detail",
              "functions": ["lax.dot"], "reason": "lax.dot(a, b)\nReleaseDetail: expected ValueError, got TypeError"},
             {"id": "e.py::test_misuse[lax-dot-scalar]", "area": "errors", "outcome": "passed", "functions": ["lax.dot"]}]
    data = {"impl": "jax-0.4.30", "kind": "jax", "description": "real JAX 0.4.30", "areas": areas, "tests": tests}
    (tmp_path / "jax-0.4.30.json").write_text(json.dumps(data))
    md = sitegen.conformance_markdown(tmp_path)
    assert ('<td class="didax-cell didax-detail" title="jax-0.4.30, errors: 1 passed, 1 release detail">1 detail'
            "</td>") in md
    assert "| `lax.dot` | jax-0.4.30: [detail 1/2](conformance-failures.md#fail-jax-0-4-30-lax-dot) |" in md


def test_conformance_summary_names_only_the_rows_that_fall_short(tmp_path: Path):
    """The summary's table of functions has two columns whatever the number of implementations (one
    column each made it wider than the text once six stages and three JAX releases were rows):
    each function some row fails lists just those rows."""
    for n in range(9):
        outcome = "failed" if n in (2, 7) else "passed"
        tests = [{"id": f"t.py::test_f[{n}]", "area": "numpy", "outcome": outcome, "functions": ["jnp.sin"]},
                 {"id": "t.py::test_g", "area": "numpy", "outcome": "passed", "functions": ["jnp.cos"]}]
        data = {"impl": f"impl{n}", "kind": "reference", "description": "x", "capabilities": ["eval"],
                "areas": {"numpy": {"passed": 1 + (outcome == "passed"), "failed": int(outcome == "failed")}},
                "tests": tests}
        (tmp_path / f"impl{n}.json").write_text(json.dumps(data))
    summary = sitegen.conformance_markdown(tmp_path).split("### The functions not passed everywhere")[1]
    rows = [line for line in summary.splitlines() if line.startswith("| `")]
    assert rows == ["| `jnp.sin` | impl2: [fail 1/1](conformance-failures.md#fail-impl2-jnp-sin), "
                    "impl7: [fail 1/1](conformance-failures.md#fail-impl7-jnp-sin) |"]
    assert "1 of the 2 functions" in summary


def test_conformance_matrix_shows_another_jax_release_after_the_reference(tmp_path: Path):
    areas = {"pytrees": {"passed": 40, "failed": 10, "missing": 3, "not_applicable": 0, "skipped": 0}}
    rows = {"jax": "real JAX 0.10.2, the reference",
            "jax-0.4.38": "real JAX 0.4.38 (jaxlib 0.4.38, NumPy 2.4.6) in build/venv-jax-0.4.38",
            "numpy-adapter": "NumPy behind a thin adapter"}  # fmt: skip
    for impl, description in rows.items():
        kind = "reference" if impl == "numpy-adapter" else "jax"
        data = {"impl": impl, "kind": kind, "description": description, "areas": areas, "tests": []}
        (tmp_path / f"{impl}.json").write_text(json.dumps(data))
    md = sitegen.conformance_markdown(tmp_path)
    assert "| jax-0.4.38 | real JAX 0.4.38 (jaxlib 0.4.38, NumPy 2.4.6) in build/venv-jax-0.4.38 |" in md
    assert 'title="jax-0.4.38, pytrees: 40 passed, 10 failed, 3 missing">10 failed</td>' in md
    assert md.index("| jax |") < md.index("| jax-0.4.38 |") < md.index("| numpy-adapter |")
    assert "not part of this matrix" not in md


def test_conformance_page_says_what_each_committed_row_is():
    """Every row committed under conformance/results/ is named on the conformance page (the stages
    by their bullet), and one of them is a JAX release other than the reference."""
    committed = {path.stem: json.loads(path.read_text()) for path in
                 (sitegen.ROOT / "conformance" / "results").glob("*.json") if path.name != "matrix.json"}  # fmt: skip
    page = (SITE / "docs" / "conformance.md").read_text()
    other_releases = [impl for impl, data in committed.items() if data["kind"] == "jax" and impl != "jax"]
    assert other_releases, "the matrix has a JAX release other than the reference (conformance.other_jax)"
    for impl, data in committed.items():
        named = f"`{impl}`" in page or (data["kind"] == "stage" and "the stages" in page)
        assert named, f"site/docs/conformance.md does not say what the row {impl} is"
    for impl in other_releases:
        version = impl.removeprefix("jax-")
        assert f"NumPy {committed[impl]['description'].split('NumPy ')[1].split(')')[0]}" in page, impl
        assert f"conformance.other_jax {version}" in page


def test_the_performance_page_plots_each_case_and_the_growth_of_cost():
    results = sorted((sitegen.ROOT / "benchmarks" / "results").glob("*.json"))
    assert results, "benchmarks/results holds the committed figures"
    data = json.loads(results[0].read_text())
    growth = sitegen.benchmark_growth(data)
    chains = [c for c in data["cases"] if (c.get("ops") or 1) > 1]
    assert chains and set(growth) == {"numpy", "didax", "jax"}
    assert [n for n, _ in growth["didax"]] == sorted(c["ops"] for c in chains)
    svg = sitegen.benchmark_plot(results[0])
    assert svg is not None and b"<svg" in svg[:1000]  # a vector drawing: sharp at any size


@pytest.mark.parametrize("path", sorted((sitegen.ROOT / "benchmarks" / "results").glob("*.json")), ids=lambda p: p.stem)
def test_every_committed_plot_has_data_labels_and_a_colour_per_implementation(path: Path):
    """No empty panel (stage 04's chains-only suite once drew empty bars), every panel titled
    with labelled axes, and a legend whose entries have different colours."""
    from matplotlib.colors import to_hex

    figure = sitegen.benchmark_figure(json.loads(path.read_text()))
    for ax in figure.axes:
        assert ax.patches or ax.lines, f"an empty panel: {ax.get_title()}"
        assert ax.get_title() and ax.get_ylabel()
        handles, labels = ax.get_legend_handles_labels()
        colours = [to_hex(h.get_color() if hasattr(h, "get_color") else h.patches[0].get_facecolor()) for h in handles]
        assert labels and len(set(colours)) == len(labels), (labels, colours)


def test_the_chapter_lists_every_primitive_of_its_stage():
    data = sitegen.stage_primitives("01_eval")
    assert {"add", "sin", "gather", "scatter-add", "sort", "xor"} <= set(data["primitives"])
    table = sitegen.primitives_markdown("01_eval")
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == len(data["primitives"]) > 50
    assert "<!-- didax:primitives -->" in (sitegen.ROOT / "site" / "docs" / "stages" / "01_eval.md").read_text()


def test_the_conformance_page_shows_each_stages_mutation_score(tmp_path):
    report = {"stage": "01_eval", "seconds": 120.0, "total": 5,
              "counts": {"killed": 3, "survived": 1, "equivalent": 1, "stale": 0, "error": 0}}
    (tmp_path / "01_eval.json").write_text(json.dumps(report))
    table = sitegen.mutation_markdown(tmp_path)
    assert "| `01_eval` | 5 | 3 | 1 | 1 | 0 | **75.0 %** |" in table
    assert "No mutation results" in sitegen.mutation_markdown(tmp_path / "empty")
    assert "**" in sitegen.mutation_markdown()  # the committed reports are shown


def test_registrations_and_subscript_assignments_are_named_definitions(tmp_path: Path):
    path = tmp_path / "ad.py"
    path.write_text("jvp_rules = {}\n\n\ndefjvp(lax.sin_p, lambda t: t)\ndefjvp(\n    lax.cos_p,\n    lambda t: t,\n)\n"
                    "deflinear(lax.neg_p)\njvp_rules[lax.sort_p] = _sort_jvp\n\n\ndef after():\n    pass\n")
    assert sitegen.definition_lines(path, "defjvp(lax.cos_p)") == (5, 8)
    assert sitegen.definition_lines(path, "defjvp(lax.sin_p)..deflinear(lax.neg_p)") == (4, 9)
    assert sitegen.definition_lines(path, "jvp_rules[lax.sort_p]..after") == (10, 14)
    assert sitegen.definition_lines(path, "jvp_rules") == (1, 1)
    with pytest.raises(sitegen.SiteError, match=r"no top-level definition named 'defjvp\(lax.tan_p\)'"):
        sitegen.definition_lines(path, "defjvp(lax.tan_p)")


def make_package(root: Path, name: str, files: dict[str, str]) -> None:
    """A stage whose `didax` is the given files (a made-up package, just enough to be read)."""
    for rel, text in files.items():
        path = root / "stages" / name / "didax" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


FAKE_CORE = """class Primitive:
    def __init__(self, name, multiple_results=False):
        self.name, self.multiple_results = name, multiple_results

    def __hash__(self):
        return id(self)
"""
FAKE_LAX = {"__init__.py": "from . import core, lax\n", "core.py": FAKE_CORE,
            "lax/__init__.py": "from .ops import *\n",
            "lax/ops.py": "from ..core import Primitive\n\nsin_p = Primitive('sin')\nsort_p = Primitive('sort', True)\n"
                          "nextafter_p = Primitive('nextafter')\n"}


def test_each_rule_table_of_a_stage_is_a_column_read_from_that_stage(tmp_path: Path):
    make_package(tmp_path, "01_a", FAKE_LAX)
    make_package(tmp_path, "02_b", {**FAKE_LAX, "__init__.py": "from . import ad, batching, core, lax\n",
                                    "ad.py": "from .lax import sin_p, sort_p\n\njvp_rules = {}\n\n\n"
                                             "def defjvp(p):\n    def rule(*a):\n        pass\n    jvp_rules[p] = rule\n\n\n"
                                             "def _sort_jvp(*a):\n    pass\n\n\ndefjvp(sin_p)\njvp_rules[sort_p] = _sort_jvp\n",
                                    "batching.py": "from .ad import jvp_rules\nfrom .lax import sin_p\n\n"
                                                   "batchers = {sin_p: len}\n"})
    data = sitegen.stage_primitives("02_b", tmp_path)
    assert data["tables"] == {"ad.jvp_rules": {"sin": "defjvp", "sort": "_sort_jvp"}, "batching.batchers": {"sin": "len"}}
    table = sitegen.primitives_markdown("02_b", tmp_path)
    assert "| primitive | results | JVP | `batching.batchers` |" in table
    assert "this stage adds, read from `stages/02_b/didax` too (JVP, from `ad.jvp_rules`; `batching.batchers`)" in table
    assert "| *lax.ops* | | | |\n| `nextafter` | one | **no rule** | **no rule** |" in table  # under its module
    assert "| `sin` | one | `defjvp` | `len` |" in table
    assert "| `sort` | several | `_sort_jvp` | **no rule** |" in table
    assert "2 of the 3 primitives have a rule in `ad.jvp_rules`; `nextafter` has none." in table
    assert "1 of the 3 primitives have a rule in `batching.batchers`; `nextafter` and `sort` have none." in table
    first = sitegen.primitives_markdown("01_a", tmp_path)
    assert "| primitive | results |\n" in first and "no rule" not in first
    assert "| `sin` | one |\n" in first  # a row of as many cells as the header


def test_the_jvp_chapter_shows_which_primitives_have_a_jvp_rule():
    data = sitegen.stage_primitives("02_jvp")
    rules = data["tables"]["ad.jvp_rules"]
    missing = json.loads(subprocess.run(
        [sys.executable, "-c", "import json, didax.ad; print(json.dumps(didax.ad.missing_rules()))"],
        cwd=sitegen.ROOT / "stages" / "02_jvp", env={**os.environ, "PYTHONPATH": str(sitegen.ROOT / "stages" / "02_jvp")},
        capture_output=True, text=True, check=True).stdout)
    assert "nextafter" in missing and set(data["primitives"]) - set(rules) == set(missing)
    assert rules["sin"] == "defjvp" and rules["reduce_sum"] == "deflinear" and rules["eq"] == "defzero"
    table = sitegen.primitives_markdown("02_jvp")
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines() if line.startswith("| `")}
    assert len(rows) == len(data["primitives"])
    assert {name for name, row in rows.items() if row.endswith("| **no rule** |")} == set(missing)
    assert "JVP, from `ad.jvp_rules`" in table
    assert "<!-- didax:primitives -->" in (SITE / "docs" / "stages" / "02_jvp.md").read_text()



def test_the_vmap_chapter_shows_a_batching_rule_for_every_primitive_but_iota():
    data = sitegen.stage_primitives("03_vmap")
    rules = data["tables"]["batching.batching_rules"]
    assert set(data["primitives"]) - set(rules) == {"iota"}  # no operands, so never batched
    assert rules["sin"] == "defelementwise" and rules["reduce_sum"] == "defreduction"
    assert rules["dot_general"] == "_dot_general_rule" and rules["scatter-add"] == "defscatter"
    table = sitegen.primitives_markdown("03_vmap")
    header = next(line for line in table.splitlines() if line.startswith("| primitive"))
    # this stage's column names each rule's function; earlier stages' columns are their chapters'
    assert header == "| primitive | results | Batching |"
    assert "| `iota` | one | **no rule** |" in table
    assert "| `random_bits` | one | `defvectorized` |" in table
    assert "| `reshape` | one | `_reshape_rule` |" in table
    assert re.search(r"\d+ of the \d+ primitives have a rule in `ad.jvp_rules`", table)  # earlier tables counted
    assert "<!-- didax:primitives -->" in (SITE / "docs" / "stages" / "03_vmap.md").read_text()


def jvp_results() -> dict:
    """A results file as the benchmark runner writes it for the jvp suite: NumPy has no jvp."""
    def timing(us: float) -> dict:
        return {"min_us": us, "median_us": us, "calls": 10, "repeats": 3}

    cases = [{"case": "jvp(sin)", "ops": 1, "numpy": None, "didax": timing(60.0), "jax": timing(600.0)}]
    cases += [{"case": f"jvp chain ×{n}", "ops": n, "numpy": None, "didax": timing(20.0 * n), "jax": timing(300.0 * n)}
              for n in (100, 1000)]
    return {"title": "Stage 02_jvp: eager forward mode (jvp)", "measured": "Measured on 2030-01-02 on a test machine.",
            "legend": "Microseconds per call.", "meta": {"implementations": ["numpy", "didax", "jax"]}, "cases": cases,
            "tables": [{"title": None, "columns": ["case", "NumPy µs", "didax µs", "JAX µs"],
                        "rows": [["`jvp(sin)`", "—", "60", "600"]]}]}


def test_a_chapter_shows_its_own_suite_and_says_when_it_has_no_results(tmp_path: Path):
    (tmp_path / "01_eval-eager.json").write_text(json.dumps({"title": "Stage 01_eval: eager dispatch", "cases": []}))
    (tmp_path / "02_jvp-jvp.json").write_text(json.dumps(jvp_results()))
    everything = sitegen.benchmarks_markdown(tmp_path)
    assert "### Stage 01_eval: eager dispatch" in everything and "### Stage 02_jvp: eager forward mode" in everything
    mine = sitegen.benchmarks_markdown(tmp_path, only="02_jvp-jvp", page_uri="stages/02_jvp.md")
    assert "### Stage 02_jvp: eager forward mode" in mine and "Stage 01_eval" not in mine
    assert "| `jvp(sin)` | — | 60 | 600 |" in mine
    none = sitegen.benchmarks_markdown(tmp_path, only="03_vmap", page_uri="stages/03_vmap.md")
    assert "No results for `03_vmap` yet" in none and "--stage 03_vmap" in none and "03_vmap-*.json" in none
    assert "[performance page](../performance.md)" in none and not re.search(r"\d+(\.\d+)? ?µs", none)


def test_a_suite_without_numpy_is_plotted_with_the_implementations_it_has(tmp_path: Path):
    (tmp_path / "02_jvp-jvp.json").write_text(json.dumps(jvp_results()))
    data = jvp_results()
    assert set(sitegen.benchmark_series(data)) == {"didax", "jax"}
    assert sitegen.benchmark_growth(data)["didax"] == [(100, 20.0), (1000, 20.0)]
    svg = sitegen.benchmark_plot(tmp_path / "02_jvp-jvp.json")
    assert svg is not None and b"<svg" in svg[:1000]



def test_the_jaxpr_chapter_shows_each_primitives_abstract_evaluation_as_the_staging_rule():
    data = sitegen.stage_primitives("04_jaxpr")
    staging = data["tables"][sitegen.ABSTRACT_EVAL]
    assert set(staging) == set(data["primitives"])  # staging can record every primitive
    assert staging["sin"] == "standard_primitive" and staging["sort"] == "_sort_abstract_eval"
    table = sitegen.primitives_markdown("04_jaxpr")
    header = next(line for line in table.splitlines() if line.startswith("| primitive"))
    assert header == "| primitive | results | Staging |"
    assert "(Staging, from `core.Primitive.abstract_eval`)" in table
    assert sitegen.ABSTRACT_EVAL not in sitegen.stage_primitives("03_vmap")["tables"]  # no staging before 04
    assert "<!-- didax:primitives -->" in (SITE / "docs" / "stages" / "04_jaxpr.md").read_text()


def test_a_stage_lists_the_api_modules_it_or_an_earlier_stage_added():
    assert sitegen.api_modules("03_vmap") == sitegen.API_MODULES
    assert sitegen.api_modules("04_jaxpr") == [*sitegen.API_MODULES, "didax.extend.core"]
    api = sitegen.stage_api("04_jaxpr")
    names = {e["name"] for e in api["didax.extend.core"]}
    assert {"ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Var", "check_jaxpr", "jaxpr_as_fun"} <= names
    assert {"make_jaxpr", "eval_shape", "ShapeDtypeStruct"} <= {e["name"] for e in api["didax"]}


def test_the_jit_chapter_shows_each_primitives_lowering_rule_and_jit_itself():
    data = sitegen.stage_primitives("05_jit")
    assert data["primitives"]["jit"] == {"module": "jit", "results": "several"}  # declared in didax/jit.py
    lowering = data["tables"]["lowering.core.lowering_rules"]
    assert lowering["sin"] == "simple" and lowering["jit"] == "_jit_lowering"
    assert set(lowering) <= set(data["primitives"])
    for table in ["ad.jvp_rules", "batching.batching_rules", sitegen.ABSTRACT_EVAL]:
        assert "jit" in data["tables"][table], table
    assert "lowering.elementwise._SIMPLE" not in data["tables"]  # a dict of operation names is not a rule table
    assert "lowering.core.lowering_rules" not in sitegen.stage_primitives("04_jaxpr")["tables"]
    table = sitegen.primitives_markdown("05_jit")
    header = next(line for line in table.splitlines() if line.startswith("| primitive"))
    assert header == "| primitive | results | Lowering |"
    assert "(Lowering, from `lowering.core.lowering_rules`)" in table
    assert "(and `didax/random`, `didax/jit.py`, `didax/prng.py`)" in table
    assert "<!-- didax:primitives -->" in (SITE / "docs" / "stages" / "05_jit.md").read_text()


# Words a reader of the course cannot resolve: the project's own names for its source documents and
# its issue tracker. A page names the source (Autodidax, a JAX tutorial) and links it instead.
JARGON = re.compile(r"(?i)\bthe seeds\b|\bseeds'|\bissue \d+\b|\bthe issue of this stage\b")


def test_the_pages_name_their_sources_not_the_projects_jargon():
    found = [f"{page.relative_to(SITE)}:{n}: {line.strip()}" for page in sorted((SITE / "docs").rglob("*.md"))
             for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1) if JARGON.search(line)]
    assert not found, "\n".join(found)


def test_chapter_one_counts_its_primitives_as_its_table_does():
    """The chapter's "about N primitives" is within ten of the primitives its table lists."""
    text = (SITE / "docs" / "stages" / "01_eval.md").read_text(encoding="utf-8")
    claimed = int(re.search(r"come down to about (\d+) \*primitives\*", text).group(1))
    assert abs(claimed - len(sitegen.stage_primitives("01_eval")["primitives"])) <= 10


def test_each_target_is_shown_beside_its_figure_met_or_missed(tmp_path: Path):
    def case(name: str, didax: float, jax: float) -> dict:
        return {"case": name, "ops": 1, "didax": {"min_us": didax}, "jax": {"min_us": jax}, "numpy": None}

    cases = [case("dispatch 1→1", 12.0, 10.0), case("dispatch 10→10", 30.0, 20.0)]
    (tmp_path / "05_jit-jit.json").write_text(json.dumps({"cases": cases}))
    md = sitegen.targets_markdown("05_jit", tmp_path)
    assert "| dispatch of a jitted function, 1 input and 1 output | didax/JAX ≤ 1.3 | 1.20 | met |" in md
    assert "| dispatch, 10 inputs and 10 outputs | didax/JAX ≤ 1 | 1.50 | **missed** |" in md
    assert "| the MLP forward pass, 784-512-512-10 | didax/JAX ≤ 1.05 | no result yet | — |" in md
    everything = sitegen.targets_markdown(None, tmp_path)
    assert "| stage | what | target | measured | |" in everything and "| 01_eval | each eager operation" in everything


# ----------------------------------------------------------------------------------------------
# didax:change: what a stage's lesson changes in a definition, shown in place


CODE_MARKER = re.compile(r"^<!-- didax:(source|change) (\S+) -->$", re.M)
LATER_CHAPTERS = ["02_jvp", "03_vmap", "04_jaxpr", "05_jit"]


def _lesson_of(stage: str, rel: str, root: Path = ROOT) -> tuple[str, dict[int, str], list[tuple[int, str]]]:
    """One file's part of a stage's LESSON.diff, read here line by line (not with the site's or
    stages.py's parser): its text, its added lines by their number in the new file, and its
    removed lines with the number of the new line they come before."""
    part, added, removed, inside, new = [], {}, [], False, 0
    for line in (root / "stages" / stage / "LESSON.diff").read_text(encoding="utf-8").split("\n"):
        if line.startswith("diff --git "):
            inside, new = line == f"diff --git a/{rel} b/{rel}", None
            continue
        if not inside:
            continue
        part.append(line)
        head = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
        if head:
            new = int(head[1]) + (head[2] == "0")
        elif new is None or line.startswith("\\"):
            continue  # the file's --- and +++ lines, or git's "no newline" note
        elif line.startswith("+"):
            added[new] = line[1:]
            new += 1
        elif line.startswith("-"):
            removed.append((new, line[1:]))
        elif line.startswith(" "):
            new += 1
    return "\n".join(part), added, removed


def _shown_diff(markdown: str) -> list[tuple[tuple[int, int, int, int], list[str]]]:
    """The parts of a didax:change block: ((old start, old count, new start, new count), lines)."""
    body = re.search(r"^```diff[^\n]*\n(.*?)\n```$", markdown, re.S | re.M)
    assert body, markdown
    parts: list[tuple[tuple[int, int, int, int], list[str]]] = []
    for line in body[1].split("\n"):
        head = re.match(r"@@ -(\d+),(\d+) \+(\d+),(\d+) @@", line)
        if head:
            parts.append((tuple(int(g) for g in head.groups()), []))  # type: ignore[arg-type]
        else:
            parts[-1][1].append(line)
    return parts


def _check_change(spec: str, root: Path = ROOT) -> tuple[str, int]:
    """Check one didax:change against the lesson and both stages' files; ("whole" or "in place",
    the number of code lines the page shows)."""
    file, _, names = spec.partition("::")
    _, stage, rel = file.split("/", 2)
    previous = sitegen.previous_stage(stage, root)
    start, end = sitegen.definition_lines(root / file, names)
    markdown = sitegen.change_include(spec, "stages/x.md", root)
    section, added, removed = _lesson_of(stage, rel, root)
    if all(n in added for n in range(start, end + 1)):  # new in the stage: shown whole
        assert markdown == sitegen.source_include(spec, root)
        return "whole", end - start + 1
    new_lines = (root / file).read_text().split("\n")
    old_lines = (root / "stages" / previous / rel).read_text().split("\n")
    shown_added, shown_removed = set(), []
    count = 0
    for (old, old_n, new, new_n), lines in _shown_diff(markdown):
        # Applied: each part's old side is the earlier stage's file there, its new side this one's,
        # inside the definition, and it is a run of lines of the recorded lesson.
        assert [x[1:] for x in lines if x[0] in " -"] == old_lines[old - 1 : old - 1 + old_n], spec
        assert [x[1:] for x in lines if x[0] in " +"] == new_lines[new - 1 : new - 1 + new_n], spec
        assert start <= new and new + new_n - 1 <= end, spec
        assert "\n" + "\n".join(lines) + "\n" in section + "\n", spec
        number = new
        for x in lines:
            if x[0] == "+":
                shown_added.add(number)
            elif x[0] == "-":
                shown_removed.append((number, x[1:]))
            number += x[0] in " +"
        count += len(lines)
    # Complete: every line the lesson adds inside the definition, and every line it removes
    # between two of its lines, is shown.
    assert shown_added == {n for n in added if start <= n <= end}, spec
    assert set(shown_removed) >= {(n, t) for n, t in removed if start < n <= end}, spec
    assert shown_added or shown_removed
    return "in place", count


@pytest.mark.parametrize("stage", LATER_CHAPTERS)
def test_each_change_a_chapter_shows_is_the_lessons_lines_inside_the_definition(stage: str):
    changes = [spec for kind, spec in CODE_MARKER.findall((SITE / "docs/stages" / f"{stage}.md").read_text())
               if kind == "change"]
    assert changes, f"chapter {stage} shows no change in place"
    assert {_check_change(spec)[0] for spec in changes} >= {"in place"}


def test_a_change_is_the_lessons_hunk_cut_to_the_definition_and_a_new_one_is_whole(tmp_path: Path):
    before = "def f(x):\n    y = x + 1\n    return y\n\n\ndef g(x):\n    return x\n"
    after = ("def f(x):\n    y = x + 2\n    return y\n\n\ndef g(x):\n    return x\n\n\n"
             "class C:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 3\n")
    make_stage(tmp_path, "01_a", {"core.py": before + "\n\nclass C:\n    def m(self):\n        return 1\n"})
    make_stage(tmp_path, "02_b", {"core.py": after})
    (tmp_path / "stages/02_b/LESSON.diff").write_text(
        sitegen.stages_tool().stage_diff(tmp_path / "stages/01_a", tmp_path / "stages/02_b"))
    md = sitegen.change_include("stages/02_b/didax/core.py::f", "stages/02_b.md", tmp_path)
    # Written out by hand: the hunk's context after `f` (the blank lines, `def g`) is not shown.
    assert md.startswith('```diff title="didax/core.py — f: what 02_b changes (+1 −1)"\n'
                         "@@ -1,3 +1,3 @@ f\n def f(x):\n-    y = x + 1\n+    y = x + 2\n     return y\n```\n")
    assert 'href="../../code/02_b/didax/core.py/#__codelineno-0-1"' in md and "lines 1–3" in md
    assert _check_change("stages/02_b/didax/core.py::f", tmp_path) == ("in place", 4)
    # The class gained a method: the change names the method it falls in.
    assert "@@ -10,3 +10,6 @@ C.n\n class C:\n     def m(self):\n         return 1\n+\n+    def n(self):\n+        return 3\n```" in (
        sitegen.change_include("stages/02_b/didax/core.py::C", None, tmp_path))
    # A method new in the stage is shown whole, as didax:source shows it.
    new = sitegen.change_include("stages/02_b/didax/core.py::C.n", None, tmp_path)
    assert new == sitegen.source_include("stages/02_b/didax/core.py::C.n", tmp_path)
    assert '--8<-- "stages/02_b/didax/core.py:14:15"' in new
    # A definition the lesson leaves as it was cannot be shown as a change.
    with pytest.raises(sitegen.SiteError, match=r"g is not changed by the lesson of 02_b .*show it whole with didax:source"):
        sitegen.change_include("stages/02_b/didax/core.py::g", None, tmp_path)
    (tmp_path / "x.py").write_text("def f():\n    pass\n")
    with pytest.raises(sitegen.SiteError, match="stages/NN_name"):  # a change belongs to a stage's lesson
        sitegen.change_include("x.py::f", None, tmp_path)


def chapter_code_measure(stage: str) -> dict[str, int]:
    """How many lines of the stage's code its chapter shows whole (didax:source, and didax:change
    of a definition new in the stage) and in place (the lines of didax:change's diffs)."""
    measure = {"whole": 0, "in place": 0}
    for kind, spec in CODE_MARKER.findall((SITE / "docs/stages" / f"{stage}.md").read_text()):
        if kind == "change":
            how, lines = _check_change(spec)
            measure[how] += lines
        else:
            start, end = sitegen.definition_lines(ROOT / spec.split("::")[0], spec.split("::")[1])
            measure["whole"] += end - start + 1
    return measure


@pytest.mark.parametrize("stage", LATER_CHAPTERS)
def test_a_chapter_shows_a_definition_its_stage_changes_in_place_not_whole(stage: str):
    """A definition of an earlier stage that this stage's lesson changes in part is shown as the
    change (didax:change), not whole: didax:source is for definitions new in the stage, or left as
    they were."""
    whole_but_changed = []
    for kind, spec in CODE_MARKER.findall((SITE / "docs/stages" / f"{stage}.md").read_text()):
        file, _, names = spec.partition("::")
        if kind != "source" or not file.startswith(f"stages/{stage}/"):
            continue
        start, end = sitegen.definition_lines(ROOT / file, names)
        _, added, removed = _lesson_of(stage, file.split("/", 2)[2])
        inside = [n for n in range(start, end + 1) if n in added]
        if 0 < len(inside) < end - start + 1 or any(start < n <= end for n, _ in removed):
            whole_but_changed.append(f"{names}: {len(inside)} of its {end - start + 1} lines added")
    assert not whole_but_changed, f"chapter {stage} shows whole what its lesson changes: {whole_but_changed}"
    measure = chapter_code_measure(stage)
    print(f"{stage}: {measure['whole']} lines of code shown whole, {measure['in place']} in place")
    assert measure["in place"] > 0 and measure["whole"] > 0


# ----------------------------------------------------------------------------------------------
# Results taken with uncommitted changes or on a busy machine are flagged beside their figures


def _results(dirty: bool, load: float | None, cpus: int = 2) -> dict:
    meta = {"git_commit": "abc1234", "git_dirty": dirty, "machine": {"cpu_count": cpus}, "timing": {}}
    if load is not None:
        meta["load_average"] = {"before": [load, 1.0, 1.0], "after": [load + 0.5, 1.0, 1.0]}
    cases = [{"case": "dispatch 1→1", "ops": 1, "didax": {"min_us": 12.0}, "jax": {"min_us": 10.0}, "numpy": None}]
    return {"title": "a suite", "meta": meta, "cases": cases,
            "tables": [{"title": None, "columns": ["case", "didax µs"], "rows": [["`dispatch 1→1`", "12"]]}]}


@pytest.mark.parametrize("dirty, load, cpus, flags", [
    (False, 0.4, 2, []),
    (False, None, 2, []),                      # no load recorded: nothing to say against it
    (True, 0.4, 2, ["uncommitted changes (at commit abc1234)"]),
    (False, 1.5, 2, ["load average was 1.50 before the run, on 2 CPUs"]),   # more than the 1 CPU to spare
    (False, 1.5, 16, []),                      # 15 to spare
    (True, 17.0, 16, ["uncommitted changes", "load average was 17.00 before the run, on 16 CPUs"]),
])
def test_results_with_uncommitted_changes_or_at_high_load_carry_a_note_beside_their_figures(
        tmp_path: Path, dirty: bool, load: float | None, cpus: int, flags: list[str]):
    (tmp_path / "05_jit-jit.json").write_text(json.dumps(_results(dirty, load, cpus)))
    md = sitegen.benchmarks_markdown(tmp_path, plots={"05_jit-jit": "plot.svg"})
    note = re.search(r'^!!! warning "Read these figures with care"\n((?:    - .*\n)+)', md, re.M)
    assert bool(note) == bool(flags)
    if flags:
        assert [line.count(" - ") >= 1 for line in note[1].splitlines()] == [True] * len(flags)
        assert all(flag in note[1] for flag in flags)
        # beside the figure: after the suite's heading, before its plot and its table
        assert md.index("### a suite") < note.start() < md.index("](plot.svg") < md.index("| case | didax µs |")
    targets = sitegen.targets_markdown("05_jit", tmp_path)
    row = next(line for line in targets.splitlines() if line.startswith("| dispatch of a jitted function"))
    assert ("(see the note)" in row) == bool(flags)
    assert ('!!! warning "A note on `' in targets) == bool(flags)
    assert all(flag in targets for flag in flags)


def test_the_committed_results_are_flagged_as_their_metadata_says(tmp_path: Path):
    for path in sitegen.benchmark_files():
        meta = json.loads(path.read_text())["meta"]
        alone = tmp_path / path.stem
        alone.mkdir()
        (alone / path.name).write_text(path.read_text())
        md = sitegen.benchmarks_markdown(alone)
        load = (meta.get("load_average") or {}).get("before", [0])[0]
        busy = load > meta["machine"]["cpu_count"] - 1
        assert ("uncommitted changes (at commit" in md) == meta["git_dirty"], path.name
        assert ("Taken at high load" in md) == busy, path.name
