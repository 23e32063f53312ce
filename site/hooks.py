"""mkdocs hooks of the course site: fill the pages' generated parts at build time.

A page asks for a generated part with a line of its own (an HTML comment, so it shows nothing if
the hook is ever missing):

    <!-- didax:stages-picture -->          the seven stages as an SVG
    <!-- didax:course-table -->            the stages with links to the chapters that exist
    <!-- didax:diff -->                    the lesson (LESSON.diff) of the page's stage (front matter `stage:`)
    <!-- didax:source FILE::NAME -->       a definition of a stage file, by name, via snippets
    <!-- didax:change FILE::NAME -->       the lines the stage's lesson changes in that definition
                                           (from its LESSON.diff), or the whole of it if it is new
    <!-- didax:api STAGE -->               the public API of a stage
    <!-- didax:primitives [STAGE] -->      the stage's primitives and which rules each has
    <!-- didax:files [STAGE] -->           every file of the stage, linked to its own page
    <!-- didax:figure NAME -->             a picture drawn with Graphviz from the page's stage (figures.py),
                                           with a link to its SVG file on its own
    <!-- didax:exercises [STAGE] -->        the stage's exercise sets, what each function must do
    <!-- didax:conformance -->             the latest conformance matrix
    <!-- didax:benchmarks [PREFIX] -->     the latest benchmark results (those of one suite or stage)
    <!-- didax:targets [STAGE] -->         the performance targets beside their figures, met or missed

An unknown or broken marker stops the build with a message naming the page.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pygments
import pymdownx.highlight as highlight_module
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figures  # noqa: E402
import sitegen  # noqa: E402

MARKER = re.compile(r"^<!-- didax:([\w-]+)(?: (.*?))? -->$", re.M)
_plots: dict[str, str] = {}
_figures: dict[str, str] = {}  # {address in the site: a figure's SVG file}, written after the build


def on_config(config: Any) -> Any:
    # Snippet paths in the pages are relative to the repository root, wherever mkdocs runs from.
    snippets = config["mdx_configs"].setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(sitegen.ROOT)]
    snippets["check_paths"] = True
    _highlight_each_listing_once()
    return config


def _highlight_each_listing_once() -> None:
    """Most stage files are the same in several stages (214 distinct files among 766), and lexing
    them with Pygments was about a third of a build: a text already lexed the same way takes its
    tokens from a memo. (Only the lexing: each listing's anchors and title come from its block.)"""
    if getattr(highlight_module.highlight, "memo", None) is not None:
        return
    memo: dict[tuple[Any, ...], list[Any]] = {}

    def highlight(code: str, lexer: Any, formatter: Any) -> str:
        key = (type(lexer), repr(sorted(lexer.options.items())), code)
        if key not in memo:
            memo[key] = list(lexer.get_tokens(code))
        return pygments.format(memo[key], formatter)

    highlight.memo = memo  # type: ignore[attr-defined]
    highlight_module.highlight = highlight


def on_files(files: Files, config: Any) -> Files:
    """Add a page per file of every stage, and a plot per benchmark results file when
    matplotlib can draw one."""
    for stage in sitegen.stage_names():
        for uri, markdown in sitegen.code_pages(stage).items():
            files.append(File.generated(config, uri, content=markdown))
    _plots.clear()
    for path in sitegen.benchmark_files():
        svg = sitegen.benchmark_plot(path)
        if svg is not None:
            uri = f"assets/benchmarks/{path.stem}.svg"
            files.append(File.generated(config, uri, content=svg))
            _plots[path.stem] = uri
    return files


def on_pre_build(config: Any) -> None:
    _figures.clear()
    highlight_module.highlight.memo.clear()
    sitegen.stage_api.cache_clear()  # `mkdocs serve` rebuilds after a stage changed
    sitegen.stage_primitives.cache_clear()


def on_post_build(config: Any) -> None:
    """Write each figure's SVG file, which its caption links to."""
    for uri, svg in _figures.items():
        path = Path(config["site_dir"]) / uri
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def expand(match: re.Match[str]) -> str:
        kind, arg = match.group(1), (match.group(2) or "").strip()
        try:
            return _generate(kind, arg, page)
        except (sitegen.SiteError, figures.FigureError) as err:
            raise PluginError(f"{page.file.src_uri}: {match.group(0)}: {err}") from None

    return MARKER.sub(expand, markdown)


def _generate(kind: str, arg: str, page: Any) -> str:
    if kind == "stages-picture":
        prefix = "../" * page.url.count("/")  # from the page's folder to the site's root
        return (f'<div class="didax-picture">{sitegen.stages_svg(link_prefix=prefix)}'
                f"{sitegen.stages_svg_narrow(link_prefix=prefix)}</div>")
    if kind == "course-table":
        return sitegen.course_table()
    if kind == "diff":
        stage = page.meta.get("stage")
        if not stage:
            raise sitegen.SiteError("didax:diff needs the page's front matter to say `stage: NAME`")
        # The diff's table names files: link each to its page (the diff itself is left as made).
        return sitegen.link_stage_files(sitegen.stage_diff_markdown(stage), stage, page.file.src_uri)
    if kind == "files":
        stage = arg or page.meta.get("stage")
        if not stage:
            raise sitegen.SiteError("didax:files needs a stage: `<!-- didax:files STAGE -->` or front matter")
        return sitegen.files_markdown(stage, page.file.src_uri)
    if kind == "source":
        return sitegen.source_include(arg)
    if kind == "change":
        return sitegen.change_include(arg, page.file.src_uri)
    if kind == "api":
        return sitegen.api_markdown(arg)
    if kind == "primitives":
        return sitegen.primitives_markdown(arg or page.meta.get("stage", ""))
    if kind == "figure":
        stage = page.meta.get("stage") or sitegen.stage_names()[-1]
        svgs = figures.draw_svgs(arg, stage)
        uri = f"assets/figures/{arg}-{stage}.svg"  # the figure on its own, to open full size
        _figures[uri] = svgs[0]
        prefix = "../" * page.url.count("/")  # from the page's folder to the site's root
        return figures.figure_html(arg, stage, full_size=prefix + uri, svgs=svgs)
    if kind == "exercises":
        return sitegen.exercises_markdown(arg or page.meta.get("stage", ""))
    if kind == "conformance":
        return sitegen.conformance_markdown(part=arg or "summary")
    if kind == "mutation":
        return sitegen.mutation_markdown()
    if kind == "targets":
        return sitegen.targets_markdown(arg or None)
    if kind == "benchmarks":
        depth = page.file.src_uri.count("/")
        plots = {stem: "../" * depth + uri for stem, uri in _plots.items()}
        return sitegen.benchmarks_markdown(plots=plots, only=arg, page_uri=page.file.src_uri)
    raise sitegen.SiteError(f"unknown generated part {kind!r}")
