"""The site builds with --strict, offline, with every generated part in place, and its internal
links and anchors resolve."""

from __future__ import annotations

import html
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest
import yaml  # mkdocs depends on PyYAML

from site_common import ROOT, SITE, build_site  # puts site/ on sys.path first

import sitegen  # noqa: E402
from exercises import EXERCISES  # noqa: E402


def test_strict_build_writes_every_page(built_site: Path):
    for page in ["index.html", "getting-started/index.html", "course/index.html",
                 "stages/01_eval/index.html", "conformance/index.html", "performance/index.html",
                 "reference/01_eval/index.html", "stages/02_jvp/index.html", "reference/02_jvp/index.html",
                 "stages/03_vmap/index.html", "reference/03_vmap/index.html",
                 "stages/04_jaxpr/index.html", "reference/04_jaxpr/index.html",
                 "stages/05_jit/index.html", "reference/05_jit/index.html",
                 "search/search_index.json"]:
        assert (built_site / page).is_file(), page


def test_search_index_holds_the_chapters_and_their_code(built_site: Path):
    index = json.loads((built_site / "search" / "search_index.json").read_text())
    chapter = " ".join(doc["text"] for doc in index["docs"] if doc["location"].startswith("stages/01_eval/"))
    assert "find_top_trace" in chapter and "promotion lattice" in chapter


def test_the_theme_loads_nothing_from_the_network(built_site: Path):
    config = yaml.safe_load((SITE / "mkdocs.yml").read_text())
    assert config["theme"]["font"] is False
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config.get("plugins", [])]
    assert "privacy" not in plugins and "social" not in plugins
    external = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""", re.I)
    for page in built_site.rglob("*.html"):
        found = external.findall(page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(built_site)} loads {found}"


def test_generated_parts_are_in_the_pages(built_site: Path):
    home = (built_site / "index.html").read_text()
    written = sitegen.stage_names()
    # The stages twice: a row for wide screens, a column for phones.
    assert written and home.count('class="didax-stage didax-done"') == 2 * len(written)
    assert home.count('class="didax-stage didax-todo"') == 2 * (7 - len(written))
    for stage in written:
        assert home.count(f'<a href="stages/{stage}/"><g class="didax-stage didax-done">') == 2
    chapter = (built_site / "stages/01_eval/index.html").read_text()
    assert "The whole stage is new" in chapter
    assert "stages/01_eval/didax/core.py" in chapter
    # The named-definition includes brought the code in (the highlighter splits it into spans), with
    # the file's own line numbers in a column before it.
    text = re.sub(r"<[^>]+>", "", chapter)
    assert re.search(r"^\d*def bind\(", text, re.M) and re.search(r"^\d*class EvalTrace\(", text, re.M)
    start, _ = sitegen.definition_lines(ROOT / "stages/01_eval/didax/core.py", "bind")
    assert re.search(rf'<a href="#__codelineno-\d+-{start}">{start}</a>', chapter)
    assert "--8&lt;--" not in text and "didax:source" not in chapter
    api = (built_site / "reference/01_eval/index.html").read_text()
    for name in ["promote_types", "tree_flatten", "reduce_sum", "enable_x64", "ShapedArray"]:
        assert f"<code>{name}</code>" in api, name
    assert " object at 0x" not in api  # the page is the same on every build


def test_the_jvp_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/02_jvp/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/02_jvp/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["class JVPTracer(", "class JVPTrace(", "def jvp(", "def defjvp(", "def _scatter_jvp("]:
        assert re.search(rf"^\d*{re.escape(definition)}", text, re.M), definition
    assert re.search(r"^\d*defjvp\(lax\.sin_p, lambda t, ans, x: lax\.mul\(t, lax\.cos\(x\)\)\)", text, re.M)
    assert 'id="figure-jvp-pairs"' in chapter
    assert "JVP, from ad.jvp_rules" in text and "<strong>no rule</strong>" in chapter
    assert chapter.count('class="note didax-exercise"') == 5
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text



def test_the_vmap_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/03_vmap/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/03_vmap/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["class BatchTracer(", "class BatchTrace(", "def vmap(", "def defelementwise(",
                       "def _dot_general_rule(", "def _gather_rule(", "def jacfwd("]:
        assert re.search(rf"^\d*{re.escape(definition)}", text, re.M), definition
    assert 'id="figure-vmap-axes"' in chapter
    # only the table this stage adds is a column; the earlier ones are their chapters'
    assert "Batching, from batching.batching_rules" in text and "<th>Batching</th>" in chapter and "<th>JVP</th>" not in chapter
    counted = re.search(r"(\d+) of the (\d+) primitives have a rule in batching\.batching_rules; iota has none\.", text)
    assert counted and int(counted[1]) == int(counted[2]) - 1, "every primitive but iota has a batching rule"
    assert chapter.count('class="note didax-exercise"') == 5
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text


def test_the_jaxpr_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/04_jaxpr/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/04_jaxpr/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["class Var(", "class ClosedJaxpr(", "def eval_jaxpr(", "def check_jaxpr(", "def alphabetic(",
                       "def format(", "class JaxprTrace(", "def new_dynamic(", "def make_jaxpr(", "def dce_jaxpr(",
                       "def jvp_jaxpr(", "def batch_jaxpr(", "def inverse_jaxpr(", "def count_primitives("]:
        assert re.search(rf"^\d*{re.escape(definition)}", text, re.M), definition
    assert 'id="figure-jaxpr-graph"' in chapter
    assert "Staging, from core.Primitive.abstract_eval" in text
    assert re.search(r"(\d+) of the \1 primitives have a rule in core.Primitive.abstract_eval: every one.", text)
    assert chapter.count('class="note didax-exercise"') == len(EXERCISES["04_jaxpr"])
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text
    api = (built_site / "reference/04_jaxpr/index.html").read_text()
    assert "<code>didax.extend.core</code>" in api and "<code>make_jaxpr</code>" in api


def test_the_jit_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/05_jit/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/05_jit/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["def _install_jax_stub(", "def put(", "class Executable:", "class FunctionBuilder:",
                       "def lower_jaxpr(", "def lower_fun(", "def _key_rule(", "def _jit_jvp(", "def _jit_batch(",
                       "def _jit_lowering(", "def _trace(", "def __call__(", "def device_buffer("]:
        assert re.search(rf"^\d*\s*{re.escape(definition)}", text, re.M), definition
    assert 'id="figure-jit-pipeline"' in chapter
    assert "Lowering, from lowering.core.lowering_rules" in text
    # The lowering column is read from the stage: the sentence under the table counts the rules there are.
    counted = re.search(r"(\d+) of the (\d+) primitives have a rule in lowering\.core\.lowering_rules", text)
    data = sitegen.stage_primitives("05_jit")
    rules = data["tables"]["lowering.core.lowering_rules"]
    assert counted and (int(counted[1]), int(counted[2])) == (len(rules), len(data["primitives"]))
    # jit_p, under its module jit.py, with its lowering rule named
    assert re.search(r"<td><em>jit</em></td>(\s*<td></td>)*\s*</tr>\s*<tr>\s*<td><code>jit</code></td>\s*"
                     r"<td>several</td>.*?<td><code>_jit_lowering</code></td>", chapter, re.S)
    # The stage's committed benchmark results, or a page that says there are none yet.
    measured = sorted((ROOT / "benchmarks" / "results").glob("05_jit-*.json"))
    assert ("No results for 05_jit yet" in text) == (not measured)
    assert all(json.loads(f.read_text())["title"] in text for f in measured)
    assert chapter.count('class="note didax-exercise"') == len(EXERCISES["05_jit"])
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text
    api = (built_site / "reference/05_jit/index.html").read_text()
    assert "<code>jit</code>" in api and "<code>devices</code>" in api


def test_the_vjp_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/06_vjp/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/06_vjp/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["class PartialEvalTrace(", "def backward_pass(", "def _jit_partial_eval(", "def vjp(",
                       "def jacrev(", "class custom_jvp:"]:
        assert re.search(rf"^\d*\s*{re.escape(definition)}", text, re.M), definition
    assert 'id="figure-linearize-transpose"' in chapter
    assert "Partial eval, from partial_eval.partial_eval_jaxpr_rules" in text
    assert "Transpose, from transpose.transpose_rules" in text
    # both columns are read from the stage: the sentences under the table count the rules there are
    data = sitegen.stage_primitives("06_vjp")
    for table in ["partial_eval.partial_eval_jaxpr_rules", "transpose.transpose_rules"]:
        counted = re.search(rf"(\d+) of the (\d+) primitives have a rule in {re.escape(table)}", text)
        assert counted and (int(counted[1]), int(counted[2])) == (len(data["tables"][table]), len(data["primitives"]))
    assert "The others have the default rule" in text  # partial evaluation's cells say default, not no rule
    assert chapter.count('class="note didax-exercise"') == len(EXERCISES["06_vjp"])
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text



def test_the_sharding_chapter_has_its_generated_parts(built_site: Path):
    chapter = (built_site / "stages/07_sharding/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", chapter)
    assert "recorded in stages/07_sharding/LESSON.diff" in text and "Lesson size:" in text
    for definition in ["class Mesh:", "class NamedSharding(Sharding):", "def put_global(", "def extend_axis_env(",
                       "def psum(", "def _all_gather_rule(", "def _bind(", "def _lowering(", "def _varying(",
                       "def _compiled_map(", "def _ppermute_transpose(", "def _transpose("]:
        assert re.search(rf"^\d*\s*{re.escape(definition)}", text, re.M), definition
    # The figure: a panel per spec, each device's block read from the stage's Arrays.
    assert 'id="figure-sharding-mesh"' in chapter
    for spec in ["P('a', 'b')", "P(None, 'b')", "P()"]:
        assert f"NamedSharding(mesh, {spec})" in html.unescape(chapter), spec
    assert "Collective batching, from batching.collective_rules" in text
    assert "Output sharding, from jit.output_shardings" in text
    # both columns are read from the stage: the sentences under the table count the rules there are
    data = sitegen.stage_primitives("07_sharding")
    for table in ["batching.collective_rules", "jit.output_shardings"]:
        counted = re.search(rf"(\d+) of the (\d+) primitives have a rule in {re.escape(table)}", text)
        assert counted and (int(counted[1]), int(counted[2])) == (len(data["tables"][table]), len(data["primitives"]))
    assert chapter.count('class="note didax-exercise"') == len(EXERCISES["07_sharding"])
    assert "didax:source" not in chapter and "didax:change" not in chapter and "didax:figure" not in chapter and "--8&lt;--" not in text
    api = (built_site / "reference/07_sharding/index.html").read_text()
    assert "<code>shard_map</code>" in api and "<code>pmap</code>" in api and "<code>NamedSharding</code>" in api

@dataclass
class _Links:
    hrefs: list[str]
    ids: set[str]


# A start tag, and an attribute of one. The pages are mkdocs's output, every attribute value in
# double quotes; a quote or an angle bracket in text or code is written as an entity, so neither
# pattern matches in text. (html.parser took 40 s for the 87 MB of pages; this takes seconds.)
_START_TAG = re.compile(r"<[a-zA-Z][^<>]*>")
_ATTRIBUTE = re.compile(r'\s(id|href|src)="([^"]*)"')


def _parse(page: Path) -> _Links:
    links = _Links([], set())
    for tag in _START_TAG.finditer(page.read_text(encoding="utf-8")):
        for key, value in _ATTRIBUTE.findall(tag[0]):
            if value:
                (links.ids.add if key == "id" else links.hrefs.append)(html.unescape(value))
    return links


def test_internal_links_and_anchors_resolve(built_site: Path):
    pages = {p: _parse(p) for p in built_site.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        for href in links.hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                continue
            if not parts.path:
                target = page
            elif parts.path.startswith("/"):  # 404.html links from the site's root
                target = (built_site / unquote(parts.path).lstrip("/")).resolve()
            else:
                target = (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(built_site)}: {href}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(built_site)}: {href} (no such anchor)")
    assert not broken, "\n".join(broken)


def _copy_site(tmp_path: Path) -> Path:
    """The site in a scratch repository whose stages/ and scripts/ are the real ones."""
    copy = tmp_path / "site"
    shutil.copytree(SITE, copy, ignore=shutil.ignore_patterns("site", "tests", "__pycache__"))
    (tmp_path / "stages").symlink_to(ROOT / "stages")
    (tmp_path / "scripts").symlink_to(ROOT / "scripts")  # the chapters' diffs are read by scripts/stages.py
    (tmp_path / "benchmarks").symlink_to(ROOT / "benchmarks")  # the targets, stated in benchmarks/targets.py
    return copy


def test_a_missing_snippet_file_fails_the_build(tmp_path: Path):
    """The build can fail: snippets' check_paths is really on (the unchanged site builds: the
    built_site fixture shows it)."""
    copy = _copy_site(tmp_path)
    page = copy / "docs" / "index.md"
    page.write_text(page.read_text() + '\n\n```python\n--8<-- "stages/01_eval/didax/no_such_file.py"\n```\n')
    result = build_site(copy / "mkdocs.yml", tmp_path / "out")
    assert result.returncode != 0, "the build accepted a missing file"
    assert "no_such_file.py" in result.stdout + result.stderr


@pytest.mark.parametrize("bad, message", [
    ("<!-- didax:source stages/01_eval/didax/core.py::no_such_function -->", "no_such_function"),
    ("<!-- didax:no-such-part -->", "unknown generated part"),
    # a change the lesson does not make: the marker cannot outlive the change it showed
    ("<!-- didax:change stages/04_jaxpr/didax/random/distributions.py::_gamma -->",
     "_gamma is not changed by the lesson of 04_jaxpr"),
])  # fmt: skip
def test_a_broken_marker_fails_the_build_naming_the_page(bad: str, message: str):
    """The hook's error for a marker it cannot fill: mkdocs stops the build on a PluginError (the
    test above shows a build failing), with this message."""
    import hooks
    from mkdocs.exceptions import PluginError

    page = SimpleNamespace(file=SimpleNamespace(src_uri="index.md"), meta={}, url="")
    with pytest.raises(PluginError, match=re.escape(message)) as caught:
        hooks.on_page_markdown("# A page\n\n" + bad + "\n", page=page, config={}, files=None)
    assert str(caught.value).startswith(f"index.md: {bad}")


def test_getting_started_shows_the_readme_commands():
    readme = re.findall(r"^    (python3 scripts/dev\.py \w+)$", (ROOT / "README.md").read_text(), re.M)
    page = (SITE / "docs" / "getting-started.md").read_text()
    shown = re.findall(r"^(python3 scripts/dev\.py \w+)$", page, re.M)
    assert readme and shown == readme


def test_every_api_name_has_an_anchor_and_links_to_its_source_lines_and_chapter(built_site: Path):
    """Each reference row is an anchor; its 'source' link leads to a code page holding that line's
    anchor, and its chapter link to a chapter page."""
    import os

    for stage in ("01_eval", "05_jit"):
        page = built_site / "reference" / stage / "index.html"
        text = page.read_text()
        assert 'id="didax.lax.add"' in text and ('id="didax.jit"' in text) == (stage == "05_jit")
        links = re.findall(r'<a href="(\.\./\.\./(?:code|stages)/[^"]+)">(source|chapter \d\d)</a>', text)
        assert len(links) > 500 and any(kind == "source" for _, kind in links)
        seen = {}
        for href, kind in links:
            path, _, fragment = href.partition("#")
            target = os.path.normpath(page.parent / path / "index.html")
            if target not in seen:
                assert os.path.exists(target), href
                seen[target] = Path(target).read_text()
            assert not fragment or f'id="{fragment}"' in seen[target], href


def test_each_later_chapter_shows_what_its_stage_changes_in_place(built_site: Path):
    """The measure of a chapter's code: lines of definitions shown whole (a listing titled with its
    lines) against lines shown in place (the diffs of what the stage changes), read from the page;
    the diffs are the ones the chapter asks for, line for line."""
    for stage in ["02_jvp", "03_vmap", "04_jaxpr", "05_jit", "07_sharding"]:
        chapter = (built_site / f"stages/{stage}/index.html").read_text()
        whole = sum(int(b) - int(a) + 1 for a, b in re.findall(
            r'<span class="filename">[^<]*\.py — [^<]* \(lines (\d+)–(\d+)\)</span>', chapter))
        diffs = re.findall(rf'<span class="filename">([^<]*): what {stage} changes [^<]*</span><pre>(.*?)</pre>',
                           chapter, re.S)
        # (a blank line of context, one space, may come out empty: compare without trailing spaces)
        lines = [line.rstrip() for _, body in diffs
                 for line in html.unescape(re.sub(r"<[^>]+>", "", body)).rstrip("\n").split("\n")
                 if not line.startswith("@@")]
        markers = re.findall(r"^<!-- didax:change (\S+) -->$", (SITE / f"docs/stages/{stage}.md").read_text(), re.M)
        changes = [sitegen.definition_change(spec) for spec in markers]
        expected = [(line.tag + line.text).rstrip() for c in changes if not c.new for frag in c.fragments for line in frag]
        assert lines == expected, stage
        assert [title.split(" — ")[1] for title, _ in diffs] == [c.names for c in changes if not c.new]
        print(f"{stage}: {whole} lines shown whole, {len(lines)} in place")
        assert whole and lines


def test_the_performance_page_flags_results_beside_their_figures(built_site: Path):
    """A results file taken with uncommitted changes or at high load has a warning in its section,
    before its plot and tables; the others have none."""
    page = (built_site / "performance/index.html").read_text()
    sections = re.split(r"<h3 id=", page)[1:]
    for path in sitegen.benchmark_files():
        data = json.loads(path.read_text())
        (section,) = [s for s in sections if f"From <code>benchmarks/results/{path.name}</code>" in s]
        flagged = bool(sitegen.result_caveats(data["meta"]))
        warning = section.find('<div class="admonition warning">\n<p class="admonition-title">Read these figures with care')
        assert (warning >= 0) == flagged, path.name
        if flagged:
            assert warning < section.index("<table>")
            assert data["meta"]["git_dirty"] == ("uncommitted changes" in section[warning:section.index("<table>")])
