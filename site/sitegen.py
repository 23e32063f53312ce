"""What the course site generates at build time, from the repository as it is: the stages at a
glance (an SVG), each stage's diff against the stage before, named-definition includes, the API
reference, the conformance matrix and the benchmark results.

site/hooks.py calls these while mkdocs builds; site/tests call them directly. Standard library only
(plus matplotlib for plots, when it is installed). Run as a script, it prints one stage's public
API as JSON: `PYTHONPATH=stages/01_eval python site/sitegen.py api-json [MODULE ...]`.
"""

from __future__ import annotations

import ast
import functools
import html
import importlib.util
import io
import json
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"

# The seven stages of the course, in order, with what each adds (our words, from DESIGN.md).
COURSE: list[tuple[str, str, str]] = [
    ("01_eval", "Evaluation", "primitives, bind, the trace stack, dtypes, pytrees, lax and numpy"),
    ("02_jvp", "Forward mode", "a JVP interpreter: jvp, nested and higher order"),
    ("03_vmap", "Batching", "a batching interpreter: vmap, in_axes and out_axes, jacfwd"),
    ("04_jaxpr", "Jaxprs", "programs as data: make_jaxpr, eval_jaxpr, cond, while_loop, scan"),
    ("05_jit", "Compilation", "jit: lowering to StableHLO, compiled and run by XLA"),
    ("06_vjp", "Reverse mode", "linearize, transpose, vjp, grad, custom rules"),
    ("07_sharding", "Sharding", "devices, pmap, shard_map, collectives"),
]

# The modules whose public names the API reference lists, for every stage.
API_MODULES = ["didax", "didax.numpy", "didax.lax", "didax.tree_util", "didax.tree", "didax.random", "didax.nn", "didax.nn.initializers", "didax.scipy.special", "didax.dtypes"]
# Modules a later stage adds to its API reference, with the stage that adds them.
LATER_API_MODULES = {"didax.extend.core": "04_jaxpr", "didax.ad_checkpoint": "06_vjp", "didax.sharding": "07_sharding",
                     "didax.distributed": "07_sharding"}


def api_modules(stage: str) -> list[str]:
    """The modules the API reference of `stage` lists: every stage's, then those its stage or an
    earlier one added."""
    order = [name for name, _, _ in COURSE]
    since = order.index(stage) if stage in order else len(order)
    return API_MODULES + [m for m, first in LATER_API_MODULES.items() if order.index(first) <= since]


class SiteError(Exception):
    """A generated part of the site cannot be made; the build must stop and say why."""


# ----------------------------------------------------------------------------------------------
# Stages on disk


def stage_names(root: Path = ROOT) -> list[str]:
    """The stages that exist: folders of stages/ holding a `didax` package, in course order."""
    stages = root / "stages"
    if not stages.is_dir():
        return []
    return sorted(p.name for p in stages.iterdir() if (p / "didax").is_dir())


def previous_stage(name: str, root: Path = ROOT) -> str | None:
    names = stage_names(root)
    if name not in names:
        raise SiteError(f"no stage {name!r} under {root / 'stages'}; stages are {names}")
    index = names.index(name)
    return names[index - 1] if index else None


def package_files(package: Path) -> list[str]:
    """The Python files of a package folder, as sorted paths relative to it."""
    return sorted(
        p.relative_to(package).as_posix()
        for p in package.rglob("*.py")
        if "__pycache__" not in p.parts
    )


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _fence(text: str, lang: str, title: str | None = None, linenums: int | None = None) -> str:
    """A fenced code block around `text`, with a fence longer than any backtick run inside it;
    `linenums` numbers its lines from that number (a listing shows the file's own line numbers)."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    attrs = f' title="{title}"' if title else ""
    attrs += f' linenums="{linenums}"' if linenums is not None else ""
    return f"{ticks}{lang}{attrs}\n{text.rstrip()}\n{ticks}"


# ----------------------------------------------------------------------------------------------
# The diff a stage adds


def stages_tool() -> Any:
    """scripts/stages.py, the tool that records and checks each stage's LESSON.diff: the site
    shows what it records, parsed and counted by the same code."""
    name = "didax_stages_tool"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "stages.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def stage_diff_markdown(stage: str, root: Path = ROOT) -> str:
    """The chapter's "what this stage adds": a file table for the first stage, else the stage's
    lesson, `stages/<stage>/LESSON.diff` (the unified diff of its didax/, examples/ and tests/
    against the stage before, recorded by scripts/stages.py), with its size and file by file."""
    new = root / "stages" / stage / "didax"
    previous = previous_stage(stage, root)
    if previous is None:
        files = package_files(new)
        rows = [(path, len(_lines(new / path))) for path in files]
        total = sum(n for _, n in rows)
        out = [
            '!!! info "The whole stage is new"',
            f"    `{stage}` is the first stage, so there is no earlier stage to compare with: every "
            f"line of its package is new. These are its {len(rows)} files ({total} lines), counted "
            "when this page was built.",
            "",
            "| file | lines |",
            "|---|---:|",
            *(f"| `stages/{stage}/didax/{path}` | {n} |" for path, n in rows),
            f"| **total** | **{total}** |",
        ]
        extras = []
        for folder in ("examples", "tests"):
            paths = package_files(root / "stages" / stage / folder) if (root / "stages" / stage / folder).is_dir() else []
            lines = sum(len(_lines(root / "stages" / stage / folder / p)) for p in paths)
            extras.append(f"{len(paths)} files ({lines} lines) in `{folder}/`")
        out += ["", f"Beside the package, the stage has {' and '.join(extras)}."]
        return "\n".join(out) + "\n"
    tool = stages_tool()
    recorded = root / "stages" / stage / tool.LESSON
    if recorded.is_file():
        text = recorded.read_bytes().decode("utf-8")
        source = f"recorded in `stages/{stage}/{tool.LESSON}` and checked against the two folders by the tests"
    else:  # not recorded yet: `scripts/stages.py check` fails until it is; show the live diff
        text = tool.stage_diff(root / "stages" / previous, root / "stages" / stage)
        source = f"computed when this page was built (`stages/{stage}/{tool.LESSON}` is not recorded yet)"
    sections = tool.parse_diff(text)
    if not sections:
        return f"`{stage}` changes nothing in `{previous}` ({source}).\n"
    size = tool.size_line(stage, text).partition(": ")[2]
    out = [
        f"The lesson of `{stage}` against that of `{previous}`, {source}.",
        "",
        f"**Lesson size: {size}.**",
        "",
        "| file | status | added | removed |",
        "|---|---|---:|---:|",
        *(f"| `{s.path}` | {s.status} | {s.added} | {s.removed} |" for s in sections),
        "",
    ]
    code = [s for s in sections if not s.path.startswith("tests/")]
    tests = [s for s in sections if s.path.startswith("tests/")]
    shown = set(stage_files(stage, root))  # the files with a page of their own
    for title, group in (("The package and the examples, file by file", code), ("The tests, file by file", tests)):
        if group:
            out += [f"**{title}** (each folded: open the one you want):", ""]
            out += [line for s in group for line in _folded_diff(s, shown)]
    return "\n".join(out)


def _folded_diff(section: Any, shown: set[str]) -> list[str]:
    """One file's part of the lesson as a folded block (pymdownx.details), its title saying what
    changed. A new file of the package or the examples is not repeated: it has a page of its own."""
    title = f"`{section.path}`: {section.status}, +{section.added} -{section.removed}"
    if section.status == "new" and section.path in shown:
        return [f'??? abstract "{title}"', "    New in this stage; read it whole on its own page, linked from the "
                "table above.", ""]
    body = _fence(_without_git_header(section.text), "diff")
    return [f'??? abstract "{title}"', *("    " + line if line else "" for line in body.split("\n")), ""]


def _without_git_header(text: str) -> str:
    """A file's part of LESSON.diff as the chapter shows it: its heading already names the file
    and whether it is new, so the `diff --git` and file mode lines are left out."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith(("diff --git ", "new file mode ", "deleted file mode ")):
        lines.pop(0)
    return "".join(lines)


# ----------------------------------------------------------------------------------------------
# Every file of a stage, on a page of its own


CODE_FOLDERS = ("didax", "examples")  # what of a stage the site shows file by file


def stage_files(stage: str, root: Path = ROOT) -> list[str]:
    """The stage's files the site shows, as paths relative to the stage (`didax/core.py`)."""
    out = []
    for folder in CODE_FOLDERS:
        base = root / "stages" / stage / folder
        if base.is_dir():
            out += [f"{folder}/{path}" for path in package_files(base)]
    return out


def code_page_uri(stage: str, path: str) -> str:
    """The source path, inside docs/, of the generated page showing `stages/<stage>/<path>`."""
    return f"code/{stage}/{path}.md"


def _module_summary(path: Path) -> str:
    return _summary_of(path.read_text(encoding="utf-8"))


@functools.cache  # a file the same in several stages is parsed once
def _summary_of(source: str) -> str:
    try:
        doc = ast.get_docstring(ast.parse(source))
    except SyntaxError:
        return ""
    return _first_line(doc).split(". ")[0].rstrip(".") + "." if doc else ""


def code_pages(stage: str, root: Path = ROOT) -> dict[str, str]:
    """{page source path: Markdown}: one page per file of the stage, the file whole with its line
    numbers (included by snippets, so it is the file as it is), with links to the chapter and to
    the files before and after it."""
    files = stage_files(stage, root)
    title = next((t for s, t, _ in COURSE if s == stage), stage)
    pages = {}
    for i, path in enumerate(files):
        uri = code_page_uri(stage, path)
        here = posixpath.dirname(uri)

        def link(target: str, text: str, here: str = here) -> str:
            return f"[{text}]({posixpath.relpath(target, here)})"

        around = []
        if i:
            around.append("previous: " + link(code_page_uri(stage, files[i - 1]), f"`{files[i - 1]}`"))
        if i + 1 < len(files):
            around.append("next: " + link(code_page_uri(stage, files[i + 1]), f"`{files[i + 1]}`"))
        full = root / "stages" / stage / path
        summary = _module_summary(full)
        pages[uri] = "\n".join([
            "---",
            f"title: stages/{stage}/{path}",
            # Out of the search index: the 555 file pages would make it 11 MB for every reader's
            # browser to load (and take most of the build); the chapters and the reference pages,
            # which show and link these files, are indexed.
            "search:",
            "  exclude: true",
            "---",
            "",
            f"# `{path}`",
            "",
            f"Stage {link(f'stages/{stage}.md', f'{stage[:2]} · {title}')}, file `stages/{stage}/{path}`, "
            f"{len(_lines(full))} lines. {summary}",
            "",
            " · ".join([link(f"stages/{stage}.md#the-files-in-full", "all the files"), *around]),
            "",
            _fence(f'--8<-- "stages/{stage}/{path}"', "python", title=f"stages/{stage}/{path}", linenums=1),
            "",
        ])
    return pages


def files_markdown(stage: str, page_uri: str, root: Path = ROOT) -> str:
    """A table of every file of the stage, each linked to its page, with its size and summary."""
    here = posixpath.dirname(page_uri)
    rows = ["| file | lines | what it holds |", "|---|---:|---|"]
    for path in stage_files(stage, root):
        full = root / "stages" / stage / path
        target = posixpath.relpath(code_page_uri(stage, path), here)
        rows.append(f"| [`{path}`]({target}) | {len(_lines(full))} | {_module_summary(full)} |")
    return "\n".join(rows) + "\n"


_FILE_CELL = re.compile(r"(?<!\[)`(?:stages/(?P<stage>[\w]+)/)?(?P<path>didax/[\w/]+\.py)`")


def link_stage_files(markdown: str, stage: str, page_uri: str, root: Path = ROOT) -> str:
    """Link every `didax/...py` (or `stages/<stage>/didax/...py`) named in a table row of
    `markdown` to its page, when the file exists in `stage`: the diff's table leads to the files."""
    here = posixpath.dirname(page_uri)
    existing = set(stage_files(stage, root))

    def link(match: re.Match[str]) -> str:
        path = match.group("path")
        if (match.group("stage") or stage) != stage or path not in existing:
            return match.group(0)
        return f"[{match.group(0)}]({posixpath.relpath(code_page_uri(stage, path), here)})"

    return "\n".join(_FILE_CELL.sub(link, line) if line.startswith("|") else line
                     for line in markdown.split("\n"))


# ----------------------------------------------------------------------------------------------
# Including a definition by name


def definition_lines(path: Path, names: str) -> tuple[int, int]:
    """The 1-based inclusive line range of a top-level definition in a Python file.

    `names` is a function, class or assigned name (`bind`, `EvalTrace`, `add_p`), a method
    (`Primitive.bind`), a registration written as a call or a subscript assignment
    (`defjvp(lax.sin_p)`, `jvp_rules[lax.sort_p]`: the statement with that call and first argument,
    or that target), or a range of consecutive top-level statements (`add_p..ge_p`).
    Decorators and the docstring are part of the range.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    first, _, last = names.partition("..")
    start, end = _node_range(tree, first.strip(), path)
    if last:
        _, end = _node_range(tree, last.strip(), path)
        if end < start:
            raise SiteError(f"{path}: {names!r} runs backwards")
    return start, end


def _node_range(tree: ast.Module, name: str, path: Path) -> tuple[int, int]:
    scope: list[ast.stmt] = tree.body
    parts = re.split(r"\.(?![^(\[]*[)\]])", name)  # a dot inside (...) or [...] does not split
    node: ast.stmt | None = None
    for part in parts:
        node = next((n for n in scope if part in _defined_names(n)), None)
        if node is None:
            raise SiteError(f"{path}: no top-level definition named {name!r}")
        scope = getattr(node, "body", [])
    assert node is not None
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        names = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        return names | {ast.unparse(t) for t in node.targets if isinstance(t, ast.Subscript)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):  # a registration: defjvp(lax.sin_p, ...)
        call = node.value
        return {f"{ast.unparse(call.func)}({ast.unparse(call.args[0]) if call.args else ''})"}
    return set()


def source_include(spec: str, root: Path = ROOT) -> str:
    """A code block that pymdownx.snippets fills from the stage's file: `spec` is
    `stages/01_eval/didax/core.py::bind`. The lines are found by name each build, so the page
    shows the definition as it is now, never a copy."""
    file, sep, names = spec.partition("::")
    if not sep or not names:
        raise SiteError(f"source include {spec!r}: write it as path/to/file.py::name")
    path = root / file
    if not path.is_file():
        raise SiteError(f"source include {spec!r}: {file} does not exist")
    start, end = definition_lines(path, names)
    short = "didax/" + file.split("/didax/", 1)[-1] if "/didax/" in file else file
    title = f"{short} — {names.replace('..', ' … ')} (lines {start}–{end})"
    return _fence(f'--8<-- "{file}:{start}:{end}"', "python", title=title, linenums=start)


# ----------------------------------------------------------------------------------------------
# Showing what a stage changes in a definition, from its lesson


class DiffLine(NamedTuple):
    """One line of a hunk: its tag (" ", "+" or "-"), its text, and the line numbers it sits at in
    the old and the new file (for a removed line, `new` is the new line that follows it; for an
    added one, `old` is the old line that follows it)."""

    tag: str
    text: str
    old: int
    new: int


_HUNK_HEAD = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def hunk_lines(hunk: str) -> list[DiffLine]:
    """The lines of one hunk of a unified diff, numbered."""
    head, *body = hunk.split("\n")
    match = _HUNK_HEAD.match(head)
    if match is None:
        raise SiteError(f"not a hunk: {head!r}")
    # A range of length 0 names the line before it (`@@ -0,0 +1,3 @@` for a new file).
    old = int(match[1]) + (match[2] == "0")
    new = int(match[3]) + (match[4] == "0")
    out = []
    for line in body:
        if not line or line.startswith("\\"):  # the end of the hunk, or "\ No newline at end of file"
            continue
        tag, text = line[0], line[1:]
        out.append(DiffLine(tag, text, old, new))
        old += tag in " -"
        new += tag in " +"
    return out


def _lesson_text(stage: str, root: Path = ROOT) -> str:
    """The stage's lesson: its recorded LESSON.diff, or the live diff while it is not recorded
    (`scripts/stages.py check` fails until it is)."""
    tool = stages_tool()
    recorded = root / "stages" / stage / tool.LESSON
    if recorded.is_file():
        return recorded.read_bytes().decode("utf-8")
    previous = previous_stage(stage, root)
    return tool.stage_diff(root / "stages" / previous, root / "stages" / stage) if previous else ""


def _split_stage_path(file: str, root: Path) -> tuple[str, str]:
    """`stages/04_jaxpr/didax/core.py` -> ("04_jaxpr", "didax/core.py")."""
    parts = file.split("/", 2)
    if len(parts) < 3 or parts[0] != "stages" or parts[1] not in stage_names(root):
        raise SiteError(f"{file}: a change is shown from a stage's lesson: name a file as stages/NN_name/...")
    return parts[1], parts[2]


def _runs(lines: list[DiffLine]) -> list[tuple[int, int]]:
    """The [first, last) index ranges of the consecutive removed lines of a hunk."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].tag == "-":
            j = i
            while j < len(lines) and lines[j].tag == "-":
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _kept(lines: list[DiffLine], start: int, end: int, indent: int) -> list[bool]:
    """Which lines of a hunk belong to the definition at new lines start..end: the unchanged and
    added lines in that range, and the removed lines between them. Removed lines just before its
    first line belong to it when added lines replace them there (a changed first line); removed
    lines just after its last line when they are indented deeper than it (the end of its body)."""
    keep = [line.tag != "-" and start <= line.new <= end for line in lines]
    for i, j in _runs(lines):
        pos = lines[i].new
        if start < pos <= end:
            inside = True
        elif pos == start:
            inside = j < len(lines) and lines[j].tag == "+"
        elif pos == end + 1:
            inside = all(not line.text.strip() or _indent(line.text) > indent for line in lines[i:j])
            inside = inside and i > 0 and keep[i - 1]
        else:
            inside = False
        keep[i:j] = [inside] * (j - i)
    return keep


class Change(NamedTuple):
    """What a stage's lesson does to one definition: `new` when every line of it is added,
    else the lesson's lines inside it, hunk by hunk (each with at least one change)."""

    file: str  # stages/NN_name/didax/...
    names: str
    start: int  # the definition's lines in the stage's file
    end: int
    new: bool
    fragments: list[list[DiffLine]]


def definition_change(spec: str, root: Path = ROOT) -> Change:
    """How the lesson of the stage named in `spec` (`stages/04_jaxpr/didax/core.py::find_top_trace`)
    changes that definition. A definition the lesson leaves as it was is an error: the page would
    show nothing the stage teaches."""
    file, sep, names = spec.partition("::")
    if not sep or not names:
        raise SiteError(f"change {spec!r}: write it as stages/NN_name/path/to/file.py::name")
    path = root / file
    if not path.is_file():
        raise SiteError(f"change {spec!r}: {file} does not exist")
    stage, rel = _split_stage_path(file, root)
    start, end = definition_lines(path, names)
    section = next((s for s in stages_tool().parse_diff(_lesson_text(stage, root)) if s.path == rel), None)
    if previous_stage(stage, root) is None or (section is not None and section.status == "new"):
        return Change(file, names, start, end, True, [])
    unchanged = SiteError(f"{names} is not changed by the lesson of {stage} (stages/{stage}/LESSON.diff has "
                          f"no line inside its lines {start}-{end} of {rel}): show it whole with didax:source")
    if section is None:
        raise unchanged
    indent = _indent(_lines(path)[start - 1])
    fragments = []
    for hunk in section.hunks:
        lines = hunk_lines(hunk)
        kept = [line for line, keep in zip(lines, _kept(lines, start, end, indent)) if keep]
        if any(line.tag != " " for line in kept):
            fragments.append(kept)
    added = sum(line.tag == "+" for frag in fragments for line in frag)
    if not fragments:
        raise unchanged
    return Change(file, names, start, end, added == end - start + 1, fragments)


def _enclosing(tree: ast.Module, line: int) -> str:
    """The qualified name of the innermost function or class holding `line`."""
    best, scope, prefix = "", tree.body, ""
    while True:
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and min([n.lineno, *(d.lineno for d in n.decorator_list)]) <= line <= (n.end_lineno or n.lineno)),
                    None)
        if node is None:
            return best
        best = prefix + node.name
        prefix, scope = best + ".", node.body


def change_markdown(change: Change, root: Path = ROOT) -> str:
    """The lesson's lines inside a definition as the text of a diff block: each part under a
    header with its line numbers (old, then new) and the function or class it falls in."""
    tree = ast.parse((root / change.file).read_text(encoding="utf-8"))
    out = []
    for frag in change.fragments:
        old_n = sum(line.tag in " -" for line in frag)
        new_n = sum(line.tag in " +" for line in frag)
        old = frag[0].old - (old_n == 0)
        new = frag[0].new - (new_n == 0)
        changed = [line for line in frag if line.tag != " "]
        first = next((line for line in changed if line.text.strip()), changed[0])
        where = _enclosing(tree, min(max(first.new, change.start), change.end))
        out.append(f"@@ -{old},{old_n} +{new},{new_n} @@ {where}".rstrip())
        out += [line.tag + line.text for line in frag]
    return "\n".join(out)


def change_include(spec: str, page_uri: str | None = None, root: Path = ROOT) -> str:
    """`<!-- didax:change stages/NN/didax/file.py::name -->`: the lines the stage's lesson changes
    in that definition, with the lesson's context, taken from its LESSON.diff (so the page shows
    nothing the lesson does not hold), and a link to the whole definition; a definition new in
    the stage is shown whole, as didax:source shows it."""
    change = definition_change(spec, root)
    if change.new:
        return source_include(spec, root)
    stage, rel = _split_stage_path(change.file, root)
    added = sum(line.tag == "+" for frag in change.fragments for line in frag)
    removed = sum(line.tag == "-" for frag in change.fragments for line in frag)
    shown = change.names.replace("..", " … ")
    title = f"{rel} — {shown}: what {stage} changes (+{added} −{removed})"
    whole = (f"<code>{html.escape(shown)}</code> in full: <code>{html.escape(rel)}</code>, "
             f"lines {change.start}–{change.end}")
    if page_uri is not None and rel in stage_files(stage, root):
        # Written in HTML, as the API reference's links (mkdocs does not know the line anchors):
        # from the page's URL (directory URLs) to the file's page, at the definition's first line.
        here = posixpath.dirname(page_uri) if page_uri.endswith("index.md") else page_uri[: -len(".md")]
        target = posixpath.relpath(f"code/{stage}/{rel}", here)
        whole = f'<a href="{target}/#__codelineno-0-{change.start}">{whole}</a>'
    block = _fence(change_markdown(change, root), "diff", title=title)
    return f'{block}\n\n<p class="didax-change-link">{whole}</p>\n'



# ----------------------------------------------------------------------------------------------
# The API reference


_SKIP_MODULES = {"typing", "types", "collections.abc", "__future__", "dataclasses", "functools", "abc"}


class _Raw:
    """An annotation written as text (modules use `from __future__ import annotations`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(obj: Any) -> str:
    import inspect

    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    params = [p.replace(annotation=_Raw(p.annotation)) if isinstance(p.annotation, str) else p
              for p in sig.parameters.values()]
    ret = sig.return_annotation
    ret = _Raw(ret) if isinstance(ret, str) else ret
    text = str(sig.replace(parameters=params, return_annotation=ret))
    return _ADDRESS.sub(r"<\1>", text)  # a sentinel default: show its type, not where it lives


_ADDRESS = re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>")


def _first_line(doc: str | None) -> str:
    """A docstring's summary: the first sentence of its first paragraph, on one line (a C
    signature line such as NumPy's `dtype(dtype, align=False) --` is skipped)."""
    paragraphs = [p for p in (doc or "").strip().split("\n\n") if p.strip()]
    if paragraphs and paragraphs[0].rstrip().endswith("--"):
        paragraphs = paragraphs[1:]
    first = " ".join(paragraphs[0].split()) if paragraphs else ""
    for end in re.finditer(r"[.!?](?=\s+[A-Z`(])", first):
        if not re.search(r"\b(e\.g|i\.e|etc|vs)\.$", first[:end.end()]):
            return first[:end.end()]
    return first


def _is_scalar_type(obj: Any) -> bool:
    """A dtype name of didax.numpy (`jnp.float32`): a class of its own metaclass with a dtype."""
    import numpy as np

    return (isinstance(obj, type) and type(obj) is not type and getattr(obj, "__module__", "").startswith("didax")
            and isinstance(getattr(obj, "dtype", None), np.dtype))


# Constants have no docstring of their own; these say what the common ones are.
_VALUE_DOCS = {
    "e": "Euler's number, 2.718...",
    "pi": "The ratio of a circle's circumference to its diameter, 3.14159...",
    "euler_gamma": "The Euler-Mascheroni constant, 0.5772...",
    "inf": "Positive infinity, as a Python float.",
    "nan": "Not a number, as a Python float.",
    "newaxis": "None: an index entry that inserts an axis of size 1.",
    "index_exp": "Builds an index tuple with slice syntax: index_exp[1:3, None] is (slice(1, 3, None), None).",
    "s_": "Builds an index with slice syntax: s_[1:3] is slice(1, 3, None); a single entry stays unwrapped.",
    "bfloat16": "The bfloat16 dtype (from ml_dtypes): float32's exponent range in 16 bits.",
    "SUPPORTED_DTYPES": "Every dtype didax computes with.",
    "PYTHON_SCALAR_DTYPES": "The dtype each Python scalar type gets before canonicalization.",
    "WEAK_NODES": "The lattice's weak nodes (i*, f*, c*) and the Python type each stands for.",
}


def describe_module(module: Any) -> list[dict[str, str]]:
    """Each public name of a module: its kind, signature (or value) and first docstring line."""
    import inspect
    import types

    names = list(getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")])
    entries = []
    for name in sorted(names, key=str.lower):
        obj = getattr(module, name)
        owner = getattr(obj, "__module__", None) if isinstance(obj, (type, types.FunctionType)) else None
        if isinstance(obj, types.ModuleType) and obj.__name__.startswith(module.__name__ + "."):
            continue  # a submodule the package is made of, not an API name
        if isinstance(obj, types.ModuleType) and not obj.__name__.startswith("didax"):
            continue  # a library the module imports (numpy, functools), not an API name
        if isinstance(obj, types.ModuleType) and obj.__name__ not in [*API_MODULES, *LATER_API_MODULES]:
            continue  # a module of didax it only holds (sharding.py holds didax.xla), not an API name
        if isinstance(obj, (types.UnionType, types.GenericAlias)) or owner in _SKIP_MODULES:
            continue
        if type(obj).__module__ in _SKIP_MODULES:
            continue  # typing.Any, TypeVars, __future__ features, ...
        if isinstance(obj, types.ModuleType):
            entries.append({"name": name, "kind": "module", "signature": "",
                            "doc": _first_line(obj.__doc__)})
        elif _is_scalar_type(obj):
            dtype = obj.dtype.name
            entries.append({"name": name, "kind": "dtype", "signature": "(x: ArrayLike = 0) -> Array",
                            "doc": _first_line(obj.__dict__.get("__doc__")) or
                            f"The dtype `{dtype}`: pass it as `dtype=`, or call it to make a `{dtype}` "
                            f"array (`{name}(1)`)."})
        elif inspect.isclass(obj):
            sig = _signature(obj).removesuffix(" -> None") if obj.__module__.startswith("didax") else ""
            entries.append({"name": name, "kind": "class", "signature": sig,
                            "doc": _first_line(inspect.getdoc(obj))})
        elif callable(obj) and not hasattr(obj, "bind"):
            entries.append({"name": name, "kind": "function", "signature": _signature(obj),
                            "doc": _first_line(inspect.getdoc(obj))})
        else:
            value = repr(obj)
            if isinstance(obj, (set, frozenset)):  # in a fixed order, so that each build is the same
                value = f"{type(obj).__name__}({{{', '.join(sorted(map(repr, obj)))}}})"
            if " object at 0x" in value:  # a default repr: say what it is, not where it lives
                value = f"{type(obj).__name__} instance"
            value = value if len(value) <= 60 else value[:57] + "..."
            kind = "primitive" if hasattr(obj, "bind") else "value"
            own_type = type(obj).__module__.startswith("didax") and kind == "value"
            doc = _first_line(inspect.getdoc(type(obj))) if own_type else ""
            doc = doc or _VALUE_DOCS.get(name, "")
            if kind == "primitive":
                wrapper = getattr(module, name.removesuffix("_p"), None)
                doc = (f"The `{obj}` primitive: what every interpreter has a rule for"
                       + (f"; `{name.removesuffix('_p')}` applies it." if callable(wrapper) else "."))
            entries.append({"name": name, "kind": kind, "signature": value, "doc": doc})
        source = _source_of(obj)
        if source and entries and entries[-1]["name"] == name:
            entries[-1]["source"] = source
    return entries


def _source_of(obj: Any) -> str:
    """'didax/core.py:42', where a function or class of didax is defined; '' for anything else."""
    import inspect

    try:
        obj = inspect.unwrap(obj)  # a decorated function (with_device's) is defined where its original is
        path, line = inspect.getsourcefile(obj), inspect.getsourcelines(obj)[1]
    except (TypeError, OSError, ValueError):  # ValueError: a chain of __wrapped__ that loops
        return ""
    parts = Path(path or "").parts
    return f"{'/'.join(parts[parts.index('didax'):])}:{line}" if "didax" in parts else ""


def api_json(modules: list[str] | None = None) -> dict[str, list[dict[str, str]]]:
    """Every API module of the `didax` on sys.path (run with PYTHONPATH=stages/<stage>), or the
    `modules` named."""
    import importlib

    return {name: describe_module(importlib.import_module(name)) for name in modules or API_MODULES}


@functools.cache
def stage_api(stage: str, root: Path = ROOT) -> dict[str, list[dict[str, str]]]:
    """The public API of one stage, read in a fresh interpreter with only that stage importable."""
    stage_dir = root / "stages" / stage
    if not (stage_dir / "didax").is_dir():
        raise SiteError(f"no stage {stage!r} under {root / 'stages'}")
    env = {**os.environ, "PYTHONPATH": str(stage_dir), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "api-json", *api_modules(stage)], cwd=stage_dir,
                            env=env, capture_output=True, text=True, timeout=120)
    if result.returncode:
        raise SiteError(f"reading the API of {stage} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def api_markdown(stage: str, root: Path = ROOT) -> str:
    api = stage_api(stage, root)
    modules = api_modules(stage)
    out = [
        f"Every public name of stage `{stage}`, read from its package when this page was built: "
        "the signature (or the value), and the first sentence of the docstring as its summary. "
        + ", ".join(f"`{m}`: {len(api[m])}" for m in modules) + " names.",
        "",
    ]
    missing = sum(1 for m in modules for e in api[m] if not e["doc"])
    if missing:
        out += [f"{missing} of the {sum(len(api[m]) for m in modules)} names have no docstring yet, "
                "so no summary.", ""]
    first = _first_stages(stage, root)
    here = f"reference/{stage}/"  # the page's URL (directory URLs), for the links written in HTML
    out.insert(1, "Each name links to itself (an anchor), to the lines that define it and to the chapter of "
                  "the stage that added it.")
    out.insert(2, "")
    for module in modules:
        out += [f"## `{module}`", "", '<div class="didax-api"><table>',
                "<thead><tr><th>name</th><th>kind</th><th>signature or value</th><th>summary</th></tr></thead>",
                "<tbody>"]
        for e in api[module]:
            anchor = f"{module}.{e['name']}"
            sig = f"<code>{html.escape(e['signature'])}</code>" if e["signature"] else ""
            links = []
            if e.get("source"):
                file, line = e["source"].rsplit(":", 1)
                target = posixpath.relpath(f"code/{stage}/{file}", here)  # (relpath drops a final /)
                links.append(f'<a href="{target}/#__codelineno-0-{line}">source</a>')
            added = first.get((module, e["name"]))
            if added:
                links.append(f'<a href="{posixpath.relpath(f"stages/{added}", here)}/">chapter {added[:2]}</a>')
            more = f' <span class="didax-api-links">{" · ".join(links)}</span>' if links else ""
            out.append(f'<tr id="{html.escape(anchor)}"><td class="didax-name"><a href="#{html.escape(anchor)}">'
                       f'<code>{html.escape(e["name"])}</code></a></td><td>{e["kind"]}</td>'
                       f"<td>{sig}</td><td>{_docstring_html(e['doc'])}{more}</td></tr>")
        out += ["</tbody>", "</table></div>", ""]
    return "\n".join(out)


def _first_stages(stage: str, root: Path = ROOT) -> dict[tuple[str, str], str]:
    """{(module, name): the first stage, up to `stage`, whose API has the name}."""
    first: dict[tuple[str, str], str] = {}
    names = stage_names(root)
    for earlier in names[: names.index(stage) + 1]:
        for module, entries in stage_api(earlier, root).items():
            for e in entries:
                first.setdefault((module, e["name"]), earlier)
    return first


def _docstring_html(text: str) -> str:
    """A docstring line as HTML: escaped, with reST ``literals`` (and Markdown `ones`) as code."""
    escaped = html.escape(text)
    return re.sub(r"``(.+?)``|`([^`]+)`", lambda m: f"<code>{m.group(1) or m.group(2)}</code>", escaped)


# ----------------------------------------------------------------------------------------------
# Exercises


def _exercises_module() -> Any:
    """site/exercises.py, loaded by path (mkdocs does not keep site/ on sys.path)."""
    import importlib.util

    if "exercises" in sys.modules:
        return sys.modules["exercises"]
    spec = importlib.util.spec_from_file_location("exercises", Path(__file__).resolve().parent / "exercises.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["exercises"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def exercises_markdown(stage: str) -> str:
    """Each exercise set of a stage, with what every function must do (as `make` writes it above
    the stub), from site/exercises.py, so the chapter and the tool say the same."""
    sets = _exercises_module().EXERCISES.get(stage)
    if not sets:
        raise SiteError(f"site/exercises.py has no exercise sets for stage {stage!r}")
    out = []
    for ex in sets:
        items = []
        for spec in ex.functions:
            name = spec.rpartition(":")[2]
            text = ex.expects.get(name) or ex.expects.get(name.rpartition(".")[2], "")
            items.append(f"<li><code>{html.escape(spec)}</code>: {html.escape(text)}</li>")
        tests = ", ".join(f"<code>{html.escape(t)}</code>" for t in ex.tests)
        out.append(
            f'<details class="note didax-exercise"><summary><code>--set {html.escape(ex.name)}</code>: '
            f"{html.escape(ex.summary)}</summary><ul>{''.join(items)}</ul>"
            f"<p>Pinned by {tests}, which <code>check</code> runs first.</p></details>"
        )
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# The stages at a glance


def stages_svg(root: Path = ROOT, link_prefix: str = "") -> str:
    """An inline SVG: the seven stages as a chain of boxes, those that exist drawn solid and
    linked to their chapter (`link_prefix` leads from the page to the site's root)."""
    existing = set(stage_names(root))
    width, height, box_w, box_h, gap = 1000, 150, 122, 96, 21
    parts = [
        f'<svg class="didax-stages" viewBox="0 0 {width} {height}" role="img" '
        'xmlns="http://www.w3.org/2000/svg" aria-labelledby="didax-stages-title">',
        '<title id="didax-stages-title">The seven stages of didax; '
        f'{len(existing & {s for s, _, _ in COURSE})} written so far</title>',
        '<defs><marker id="didax-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="didax-arrowhead"/></marker></defs>',
    ]
    for i, (name, title, adds) in enumerate(COURSE):
        x = 8 + i * (box_w + gap)
        state = "done" if name in existing else "todo"
        group = (
            f'<g class="didax-stage didax-{state}">'
            f'<rect x="{x}" y="10" width="{box_w}" height="{box_h}" rx="10"/>'
            f'<text x="{x + box_w / 2}" y="38" class="didax-num">{name[:2]}</text>'
            f'<text x="{x + box_w / 2}" y="62" class="didax-name">{html.escape(title)}</text>'
            f'<text x="{x + box_w / 2}" y="84" class="didax-state">'
            f'{"written" if state == "done" else "to come"}</text>'
            f"<title>{name}: {html.escape(adds)}</title></g>"
        )
        parts.append(f'<a href="{link_prefix}stages/{name}/">{group}</a>' if state == "done" else group)
        if i + 1 < len(COURSE):
            x1, x2 = x + box_w + 2, x + box_w + gap - 2
            parts.append(f'<line x1="{x1}" y1="58" x2="{x2}" y2="58" class="didax-link" '
                         'marker-end="url(#didax-arrow)"/>')
    parts.append(f'<text x="{width / 2}" y="136" class="didax-caption">each stage is the package of the '
                 "stage before, plus one idea</text>")
    parts.append("</svg>")
    return "".join(parts)


def stages_svg_narrow(root: Path = ROOT, link_prefix: str = "") -> str:
    """The same seven stages for a narrow screen: a column of boxes, top to bottom."""
    existing = set(stage_names(root))
    width, box_h, gap = 360, 40, 14
    height = len(COURSE) * (box_h + gap)
    parts = [
        f'<svg class="didax-stages didax-stages-narrow" viewBox="0 0 {width} {height}" role="img" '
        'xmlns="http://www.w3.org/2000/svg" aria-labelledby="didax-stages-narrow-title">',
        '<title id="didax-stages-narrow-title">The seven stages of didax; '
        f'{len(existing & {s for s, _, _ in COURSE})} written so far</title>',
        '<defs><marker id="didax-arrow-narrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="didax-arrowhead"/></marker></defs>',
    ]
    for i, (name, title, adds) in enumerate(COURSE):
        y = 2 + i * (box_h + gap)
        state = "done" if name in existing else "todo"
        group = (
            f'<g class="didax-stage didax-{state}">'
            f'<rect x="2" y="{y}" width="{width - 4}" height="{box_h}" rx="8"/>'
            f'<text x="16" y="{y + 26}" class="didax-num" style="text-anchor: start">{name[:2]}</text>'
            f'<text x="58" y="{y + 25}" class="didax-name" style="text-anchor: start">{html.escape(title)}</text>'
            f'<text x="{width - 14}" y="{y + 25}" class="didax-state" style="text-anchor: end">'
            f'{"written" if state == "done" else "to come"}</text>'
            f"<title>{name}: {html.escape(adds)}</title></g>"
        )
        parts.append(f'<a href="{link_prefix}stages/{name}/">{group}</a>' if state == "done" else group)
        if i + 1 < len(COURSE):
            parts.append(f'<line x1="{width / 2}" y1="{y + box_h + 1}" x2="{width / 2}" y2="{y + box_h + gap - 1}" '
                         'class="didax-link" marker-end="url(#didax-arrow-narrow)"/>')
    parts.append("</svg>")
    return "".join(parts)


def course_table(root: Path = ROOT) -> str:
    """The stages as a two-column table (it fits a phone): the stage, linked to its chapter when
    it is written, and what it adds."""
    existing = set(stage_names(root))
    rows = ["| stage | adds |", "|---|---|"]
    for name, title, adds in COURSE:
        stage = f"[`{name}` {title}](stages/{name}.md)" if name in existing else f"`{name}` {title} (to come)"
        rows.append(f"| {stage} | {adds} |")
    return "\n".join(rows) + "\n"


# ----------------------------------------------------------------------------------------------
# Conformance results


NO_CONFORMANCE = ("**No results yet** — run `python3 scripts/dev.py test`: it runs the conformance "
                  "suite on every implementation and writes `build/conformance/matrix.md` and "
                  "`matrix.json`, which this page shows (results committed under `conformance/results/` "
                  "are shown first, so that a fresh clone has them).")

# Where the matrix is read from, first found first: results committed with the repository, then
# those of the last local run of the test command.
CONFORMANCE_RESULTS = [ROOT / "conformance" / "results", BUILD / "conformance"]


def _conformance_rows(folder: Path) -> dict[str, dict[str, dict[str, int]]] | None:
    """{impl: {area: {outcome: count}}} from a folder's matrix.json alone (without the
    per-implementation files); None when it has none."""
    rows: dict[str, dict[str, dict[str, int]]] = {}
    matrix = folder / "matrix.json"
    if matrix.is_file():
        data = json.loads(matrix.read_text(encoding="utf-8"))
        impls = data.get("implementations", data) if isinstance(data, dict) else {}
        for impl, per_impl in impls.items():
            if isinstance(per_impl, dict):
                rows[impl] = per_impl["areas"] if isinstance(per_impl.get("areas"), dict) else per_impl
    return rows or None


def _when_measured(paths: list[Path]) -> str:
    """The date of the commit that last changed the files, or their modification time."""
    import datetime

    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cI", "--", *map(str, paths)], cwd=ROOT,
                             capture_output=True, text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *map(str, paths)], cwd=ROOT,
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out, dirty = "", "?"
    if out and not dirty:
        return f"committed on {out[:10]}"
    stamp = max(p.stat().st_mtime for p in paths)
    return "written on " + datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


FAILURES_PAGE = "conformance-failures.md"


def conformance_markdown(results: Path | list[Path] | None = None, part: str = "summary") -> str:
    """The conformance matrix: the stages, real JAX and the suite's reference adapters, from the
    first folder of `results` (default CONFORMANCE_RESULTS) that has results, saying when and where.
    `part` "summary": what each row is, implementation by area as a picture, and the functions some
    implementation fails or lacks; "failures": every function by implementation, then the failures
    with their reproducing programs (a page of its own, FAILURES_PAGE). The tables are
    conformance/matrix.py's, as in its matrix.md."""
    folders = [results] if isinstance(results, Path) else (results or CONFORMANCE_RESULTS)
    for folder in folders:
        md, files = folder / "matrix.md", sorted(folder.glob("*.json")) if folder.is_dir() else []
        full = _conformance_files(folder) if folder.is_dir() else {}
        rows = _conformance_rows(folder) if folder.is_dir() and not full else None
        if not full and rows is None and not md.is_file():
            continue
        shown = _shown_path(folder) + "/"
        out = []
        if full:
            matrix = _conformance_matrix_module()
            kept = {i: d for i, d in full.items() if matrix.kind_of(d) in matrix.PUBLISHED_KINDS}
            if kept:
                out += _conformance_parts(matrix, kept, part)
            others = sorted(set(full) - set(kept))
            if others:
                out += [f"Also in `{shown}`, and not part of this matrix (not a stage, JAX or a reference "
                        "adapter): " + ", ".join(f"`{o}`" for o in others) + ".", ""]
        elif rows is not None:
            stages = set(stage_names())
            jax_row = _conformance_matrix_module().JAX_ROW  # the reference `jax` and `jax-<version>`
            kept_rows = {i: r for i, r in rows.items() if i in stages or jax_row.fullmatch(i) or not stages}
            out += [_matrix_table(kept_rows), ""]
        else:
            text = md.read_text(encoding="utf-8").strip()
            # The page has its own title: demote the file's headings by one level.
            out += ["\n".join("#" + line if line.startswith("#") else line for line in text.splitlines()), ""]
            files = [md]
        where = next((str(d.get("machine") or d.get("platform")) for d in map(_json_or_none, files)
                      if isinstance(d, dict) and (d.get("machine") or d.get("platform"))),
                     "the machine that ran `python3 scripts/dev.py test` (the files do not name it)")
        out.append(f"*Measured on {where}; results {_when_measured(files)}, read from `{shown}` when this "
                   "page was built.*")
        return "\n".join(out) + "\n"
    return NO_CONFORMANCE + "\n"


OUTCOME_WORDS = {"passed": "passed", "failed": "failed", "release_detail": "release detail", "missing": "missing",
                 "not_applicable": "n/a"}


def _conformance_parts(matrix: Any, results: dict[str, dict], part: str) -> list[str]:
    if part == "failures":
        failures = matrix.failures_section(results)
        return ["### Every function by implementation", "", _function_legend(), "",
                matrix.function_table(results), "", "### The failures", "",
                failures.replace("### ", "#### ") if failures else "None: every implementation passes.", ""]
    functions, flagged = _flagged_functions(matrix, results)
    link = f"[every function]({FAILURES_PAGE})"
    table = ["| function | where it is not passed |", "|---|---|", *flagged]
    return ["### Implementations", "", matrix.implementations_table(results), "",
            "### By area", "", _area_picture(matrix, results), "",
            "### The functions not passed everywhere", "",
            (f"{len(flagged)} of the {functions} functions some test is about are failed, a release detail or missing in "
             f"some row (the page of the failures has {link}, with the programs that reproduce each "
             "failure). " + _function_legend()), "",
            "\n".join(table).replace("](#fail-", f"]({FAILURES_PAGE}#fail-") if flagged
            else "None: every implementation passes every function it has.", ""]


def _flagged_functions(matrix: Any, results: dict[str, dict]) -> tuple[int, list[str]]:
    """How many functions some test is about, and a row for each that some implementation fails,
    lacks or differs on by release, naming only those implementations: one column of them, not one
    per implementation, so the table stays inside the text column however many stages there are."""
    counts = {impl: matrix.function_counts(data) for impl, data in matrix.ordered(results)}
    functions = sorted({f for per_impl in counts.values() for f in per_impl}, key=matrix._function_order)
    rows = []
    for function in functions:
        cells = [(impl, matrix.function_cell(impl, function, per_impl.get(function))) for impl, per_impl in counts.items()]
        flagged = [f"{impl}: {cell}" for impl, cell in cells if cell.startswith(("[fail", "[detail", "missing"))]
        if flagged:
            rows.append(f"| `{function}` | " + ", ".join(flagged) + " |")
    return len(functions), rows


def _function_legend() -> str:
    return ("A cell says **pass**, **fail k/n** (k of the n tests about the function failed; the link "
            "leads to them), **detail k/n** (k failed only on a detail of JAX 0.10.2 that JAX's own releases "
            "differ in, such as an exception's class; linked too), **missing** (the implementation lacks a name the tests need), **n/a** (the "
            "tests need a capability the implementation does not declare) or **—** (no test is about "
            "the function for that implementation, which does not have it or is not asked).")


def _area_picture(matrix: Any, results: dict[str, dict]) -> str:
    """Implementation by area as an HTML table of coloured cells: green all passed, red some failed,
    blue some release details (none failed), amber some missing, grey not applicable; the counts in
    each cell and in full on hover."""
    areas = sorted({area for data in results.values() for area in data["areas"]})
    head = "".join(f"<th>{html.escape(a)}</th>" for a in areas)
    rows = []
    for impl, data in matrix.ordered(results):
        cells = []
        for area in areas:
            counts = data["areas"].get(area) or {}
            if not counts:
                cells.append('<td class="didax-cell didax-none" title="not run">—</td>')
                continue
            failed, missing, passed = counts.get("failed", 0), counts.get("missing", 0), counts.get("passed", 0)
            detail = counts.get("release_detail", 0)
            kind = "fail" if failed else "detail" if detail else "missing" if missing else "pass" if passed else "na"
            shown = (f"{failed} failed" if failed else f"{detail} detail" if detail else f"{missing} missing" if missing
                     else str(passed) if passed else "n/a")
            full = ", ".join(f"{n} {OUTCOME_WORDS.get(k, k)}" for k, n in counts.items() if n)
            cells.append(f'<td class="didax-cell didax-{kind}" title="{html.escape(impl)}, {html.escape(area)}: '
                         f'{html.escape(full)}">{shown}</td>')
        rows.append(f"<tr><th><code>{html.escape(impl)}</code></th>{''.join(cells)}</tr>")
    legend = ('<p class="didax-legend"><span class="didax-cell didax-pass">passed</span> every test passed (the '
              'count) <span class="didax-cell didax-fail">failed</span> some failed '
              '<span class="didax-cell didax-detail">detail</span> some differ from JAX 0.10.2 only in a '
              "detail JAX's own releases differ in, none failed "
              '<span class="didax-cell didax-missing">missing</span> a name is missing, none failed '
              '<span class="didax-cell didax-na">n/a</span> not applicable (a capability not declared); '
              "hover over a cell for all its counts.</p>")
    return (f'<div class="didax-matrix"><table class="didax-matrix-table"><thead><tr><th>implementation</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>\n\n{legend}")


def _conformance_files(folder: Path) -> dict[str, dict[str, Any]]:
    """{impl: its results file} for the per-implementation files (`<impl>.json` with `impl` and
    `areas`) of a folder."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        data = _json_or_none(path) if path.name != "matrix.json" else None
        if isinstance(data, dict) and "impl" in data and isinstance(data.get("areas"), dict):
            found[str(data["impl"])] = data
    return found


def _module_at(path: Path, name: str) -> Any:
    """A module of the repository outside site/ (standard library only), loaded by path as `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses look their module up while the class is made)
    spec.loader.exec_module(module)
    return module


def _conformance_matrix_module() -> Any:
    return _module_at(ROOT / "conformance" / "matrix.py", "conformance_matrix")


MUTATION_RESULTS = ROOT / "conformance" / "meta" / "results"


def mutation_markdown(folder: Path = MUTATION_RESULTS) -> str:
    """Each stage's mutation score, from the committed reports of `python -m conformance.meta.mutate
    --publish`: how many single-bug copies of the stage the suite caught."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        data = _json_or_none(path)
        if not isinstance(data, dict) or "counts" not in data:
            continue
        c = data["counts"]
        scored = c.get("killed", 0) + c.get("survived", 0)
        score = f"{100 * c.get('killed', 0) / scored:.1f} %" if scored else "—"
        rows.append(f"| `{data.get('stage', path.stem)}` | {sum(c.values())} | {c.get('killed', 0)} | "
                    f"{c.get('survived', 0)} | {c.get('equivalent', 0)} | {c.get('stale', 0)} | **{score}** | "
                    f"{data.get('seconds', 0) / 60:.0f} min, {_when_measured([path])} |")
    if not rows:
        return "No mutation results yet: run `python -m conformance.meta.mutate --stage 01_eval --publish`.\n"
    return "\n".join(["| stage | mutants | killed | survived | equivalent | stale | score | the run |",
                      "|---|---:|---:|---:|---:|---:|---:|---|", *rows,
                      "", f"*Read from `{_shown_path(folder)}/` when this page was built; each stage's "
                      "report lists every mutant and why each equivalent one cannot be told apart.*"]) + "\n"


def _json_or_none(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.suffix == ".json" else None
    except ValueError:
        return None


def _matrix_table(rows: dict[str, dict[str, dict[str, int]]]) -> str:
    """Implementation by area; each cell the counts of its outcomes (stages first, then jax)."""
    areas = sorted({a for per_impl in rows.values() for a in per_impl})
    order = sorted(rows, key=lambda i: (0 if i[:2].isdigit() else 1 if i == "jax" else 2, i))
    out = ["| implementation | " + " | ".join(areas) + " |", "|---|" + "---|" * len(areas)]
    for impl in order:
        cells = []
        for area in areas:
            counts = rows[impl].get(area) or {}
            cells.append(", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n) or "—")
        out.append(f"| `{impl}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------
# Benchmarks


BENCHMARKS = ROOT / "benchmarks" / "results"  # committed, so a fresh clone shows real figures

NO_BENCHMARKS = ("**No benchmark results yet.** `python -m benchmarks.run` times didax side by side "
                 "with real JAX and NumPy and writes `benchmarks/results/*.json`, which this page shows. "
                 "Nothing here is made up: until a run has written its results there is nothing to show.")


def benchmark_files(results: Path = BENCHMARKS) -> list[Path]:
    return sorted(results.glob("*.json")) if results.is_dir() else []


def _records(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        data = data["results"]
    if isinstance(data, list) and all(isinstance(r, dict) for r in data):
        return data
    return []


def _shown_path(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def _benchmark_table(table: dict[str, Any]) -> list[str]:
    """A table the runner made ready to show: {"title", "columns", "rows"}, numbers right-aligned."""
    columns, rows = table["columns"], table["rows"]
    out = [f"**{table['title']}**", ""] if table.get("title") else []
    out += ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return out + [""]


def benchmarks_markdown(results: Path = BENCHMARKS, plots: dict[str, str] | None = None,
                        only: str = "", page_uri: str = "performance.md") -> str:
    """A section per results file: when and where it was measured, its plot if one was drawn
    (`plots` maps a file's stem to the plot's URL), and its tables. A file the benchmark runner did
    not write is shown as a table of its records, or as it is. `only` keeps the files whose name
    starts with it (`02_jvp-jvp`, or a stage: `02_jvp`), for a chapter showing its own suite;
    `page_uri` is the page's source path, for the link to the performance page."""
    files = [f for f in benchmark_files(results) if f.stem.startswith(only)]
    if not files and only:
        stage, _, suite = only.partition("-")
        wanted = f"{only}.json" if suite else f"{only}-*.json"
        link = posixpath.relpath("performance.md", posixpath.dirname(page_uri) or ".")
        return (f"**No results for `{only}` yet.** `python -m benchmarks.run --stage {stage}` times this stage "
                f"beside real JAX and writes `{_shown_path(results)}/{wanted}`, which this section shows once "
                f"it is committed; the [performance page]({link}) has every suite's results.\n")
    if not files:
        return NO_BENCHMARKS + "\n"
    out = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        title = data.get("title", path.stem) if isinstance(data, dict) else path.stem
        about = data if isinstance(data, dict) else {}
        out += [f"### {title}", ""]
        for text in (about.get("measured"), f"From `{_shown_path(path)}`.", about.get("legend")):
            if text:
                out += [str(text), ""]
        caveats = result_caveats(about.get("meta"))
        if caveats:  # beside the plot and the tables, where the figures are read
            out += ['!!! warning "Read these figures with care"',
                    *(f"    - {text}" for text in caveats), ""]
        if plots and path.stem in plots:
            out += [f"[![{title}]({plots[path.stem]})]({plots[path.stem]} \"Open the plot full size\")", ""]
        records = _records(data)
        if isinstance(data, dict) and isinstance(data.get("tables"), list):
            for table in data["tables"]:
                out += _benchmark_table(table)
        elif records:
            keys = list(dict.fromkeys(k for r in records for k in r))
            out += ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
            out += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in records]
            out.append("")
        else:
            out += [_fence(json.dumps(data, indent=1)[:20000], "json"), ""]
    return "\n".join(out)


def high_load(meta: dict[str, Any]) -> float | None:
    """The 1-minute load average before a run, when it was above what the machine had to spare:
    more than its CPUs less the one the benchmark runs on, so that other work waited for a CPU
    beside it. None when it was not, or was not recorded."""
    before = (meta.get("load_average") or {}).get("before")
    cpus = (meta.get("machine") or {}).get("cpu_count")
    if not before or not cpus:
        return None
    return before[0] if before[0] > cpus - 1 else None


def result_caveats(meta: Any) -> list[str]:
    """What a results file's metadata says against its figures: taken from code that is not
    committed, or on a machine busy with other work."""
    if not isinstance(meta, dict):
        return []
    out = []
    if meta.get("git_dirty"):
        out.append(f"Taken with uncommitted changes (at commit {meta.get('git_commit') or 'unknown'}): the code "
                   "timed is not exactly any committed code.")
    load = high_load(meta)
    if load is not None:
        cpus = meta["machine"]["cpu_count"]
        spare = f"{cpus - 1} CPU{'s' if cpus != 2 else ''}"
        text = (f"Taken at high load: the load average was {load:.2f} before the run, on {cpus} CPUs, more than "
                f"the {spare} left beside the benchmark's own; other work competed for the CPUs, so the times "
                "may be higher than the code's.")
        if (meta.get("timing") or {}).get("clock") == "process_time" and not meta["timing"].get("case_clocks"):
            text += " (The times are CPU time, which waiting for a CPU does not add to.)"
        out.append(text)
    return out


def targets_markdown(stage: str | None = None, results: Path = BENCHMARKS) -> str:
    """The performance targets (benchmarks/targets.py) of `stage`, or of every stage, each beside
    the figure it bounds in the committed results, marked met or missed."""
    targets = _module_at(ROOT / "benchmarks" / "targets.py", "benchmarks_targets")
    rows, files = [], []
    flagged: dict[Path, list[str]] = {}
    for target, value, path in targets.held(stage, results):
        figure = "no result yet" if value is None else f"{value:.2f}"
        data = _json_or_none(path) if value is not None and path.is_file() else None
        caveats = result_caveats(data.get("meta")) if isinstance(data, dict) else []
        if caveats:
            flagged[path] = caveats
            figure += " (see the note)"
        verdict = "—" if value is None else "met" if value <= target.bound else "**missed**"
        rows.append(f"| {'' if stage else f'{target.stage} | '}{target.what} | {target.bound_text()} | {figure} | {verdict} |")
        if path.is_file() and path not in files:
            files.append(path)
    if not rows:
        return f"No performance targets are set for `{stage}`.\n"
    head = ("" if stage else "| stage ") + "| what | target | measured | |"
    out = [head, ("" if stage else "|---") + "|---|---|---:|---|", *rows, ""]
    sources = ", ".join(f"`{_shown_path(f)}` ({_when_measured([f])})" for f in files)
    out.append(f"*Each figure read from the committed results when this page was built: {sources}. Targets "
               "are stated once, in `benchmarks/targets.py`.*")
    for path, caveats in flagged.items():
        out += ["", f'!!! warning "A note on `{_shown_path(path)}`"', *(f"    - {text}" for text in caveats)]
    return "\n".join(out) + "\n"


def benchmark_series(data: Any) -> dict[str, dict[str, float]]:
    """Seconds per call, {impl: {case: seconds}}: from the runner's `cases` (each implementation's
    best time in microseconds, null where absent), or from records with `case`, `impl`, `seconds`."""
    series: dict[str, dict[str, float]] = {}
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        impls = data.get("meta", {}).get("implementations", ["numpy", "didax", "jax"])
        for case in data["cases"]:
            for impl in impls:
                if isinstance(case.get(impl), dict) and "min_us" in case[impl]:
                    series.setdefault(impl, {})[str(case["case"])] = float(case[impl]["min_us"]) * 1e-6
        return series
    for r in _records(data):
        if {"case", "impl", "seconds"} <= r.keys():
            series.setdefault(str(r["impl"]), {})[str(r["case"])] = float(r["seconds"])
    return series


def benchmark_plot(path: Path) -> bytes | None:
    """An SVG of a results file (None when matplotlib is missing or the file has no timings): a
    vector drawing, so that it stays sharp at any size and on any screen."""
    figure = benchmark_figure(json.loads(path.read_text(encoding="utf-8")))
    if figure is None:
        return None
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    figure.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(figure)
    return buf.getvalue()


def benchmark_figure(data: Any) -> Any:
    """The matplotlib figure of a results file (None without matplotlib or timings): bars of each
    case's time per call by implementation (log scale), and, where cases measure growth (an `ops`
    count), the time per operation against the program's size. A panel with nothing to show (a
    suite of chains only) is left out, as is an implementation with no time in a panel."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    series = benchmark_series(data)
    if not series:
        return None
    growth = benchmark_growth(data)
    if growth:  # the growth cases get their own panel
        grown = {str(case["case"]) for case in data["cases"] if (case.get("ops") or 1) > 1}
        series = {impl: {c: t for c, t in per_case.items() if c not in grown} for impl, per_case in series.items()}
    series = {impl: per_case for impl, per_case in series.items() if per_case}
    panels = [p for p, has in (("bars", series), ("growth", growth)) if has]
    wide = panels == ["bars", "growth"]
    fig, axes = plt.subplots(1, len(panels), figsize=(11 if wide else 8, 3.8), squeeze=False,
                             gridspec_kw={"width_ratios": [2, 1]} if wide else None)
    for ax, panel in zip(axes[0], panels):
        _plot_bars(ax, series) if panel == "bars" else _plot_growth(ax, growth)
    return fig


def benchmark_growth(data: Any) -> dict[str, list[tuple[int, float]]]:
    """{impl: [(operations, microseconds per operation), ...]} for the cases that count operations."""
    growth: dict[str, list[tuple[int, float]]] = {}
    cases = data.get("cases", []) if isinstance(data, dict) else []
    for case in cases:
        ops = case.get("ops") or 1
        if ops < 2:  # a single operation says nothing about growth
            continue
        for impl in data.get("meta", {}).get("implementations", ["numpy", "didax", "jax"]):
            if isinstance(case.get(impl), dict) and "min_us" in case[impl]:
                growth.setdefault(impl, []).append((int(ops), float(case[impl]["min_us"]) / ops))
    return {impl: sorted(points) for impl, points in growth.items() if len(points) > 1}


# One colour per implementation in every plot, whichever implementations a suite has.
PLOT_COLOURS = {"numpy": "C0", "didax": "C1", "jax": "C2"}


def _plot_bars(ax: Any, series: dict[str, dict[str, float]]) -> None:
    cases = list(dict.fromkeys(case for per_impl in series.values() for case in per_impl))
    width = 0.8 / len(series)
    for j, (impl, per_case) in enumerate(series.items()):
        ax.bar([i + j * width for i in range(len(cases))], [per_case.get(c, 0.0) * 1e6 for c in cases],
               width, label=impl, color=PLOT_COLOURS.get(impl))
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))], cases, rotation=30, ha="right")
    ax.set_ylabel("µs per call (log scale)")
    ax.set_yscale("log")
    ax.set_title("time per call, lower is better")
    ax.legend()


def _plot_growth(ax: Any, growth: dict[str, list[tuple[int, float]]]) -> None:
    for impl, points in growth.items():
        ax.plot([n for n, _ in points], [us for _, us in points], marker="o", label=impl, color=PLOT_COLOURS.get(impl))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operations in the program")
    ax.set_ylabel("µs per operation")
    ax.set_title("cost per operation as programs grow")
    ax.legend()


# ----------------------------------------------------------------------------------------------
# The primitive table: every primitive of a stage, and which rules each interpreter has for it


def primitives_json() -> dict[str, Any]:
    """Every Primitive in the `didax` on sys.path: its name, the module of didax.lax (or
    didax.random, for the random primitives) that declares it, and
    the rule tables (any module-level dict keyed by primitives, such as stage 02's `ad.jvp_rules`)
    with, for each primitive that has a rule there, the function that made the rule (the rule
    itself, or the helper whose inner function it is: `defjvp`, `deflinear`, ...). A stage with a
    staging interpreter also gets ABSTRACT_EVAL: staging's rule is each primitive's abstract
    evaluation, which no table holds."""
    import pkgutil

    import didax
    from didax import core

    # A table imported into other modules is still one table, named after the module defining it.
    found_in: dict[int, tuple[dict, list[str]]] = {}
    for info in pkgutil.walk_packages(didax.__path__, "didax."):
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            # A rule table maps primitives to functions (a dict of operation names is not one).
            if (isinstance(value, dict) and value and all(isinstance(k, core.Primitive) for k in value)
                    and all(callable(r) for r in value.values())):
                found_in.setdefault(id(value), (value, []))[1].append(f"{info.name}.{attr}")
    tables: dict[str, dict[str, str]] = {}
    for value, names in found_in.values():
        name = next((n for n in names if _defines(n)), names[0]).removeprefix("didax.")
        tables[name] = {k.name: _maker(r) for k, r in value.items()}
    prims = {}
    stages = importlib.util.find_spec("didax.staging") is not None  # a staging interpreter, from stage 04 on
    abstract_evals: dict[str, str] = {}
    declaring = [m.name for package in ("lax", "random") if (found := getattr(didax, package, None)) is not None
                 for m in pkgutil.walk_packages(found.__path__, f"didax.{package}.")]  # fmt: skip
    # Then the primitives a stage declares elsewhere (stage 05's jit_p, in didax/jit.py), each under
    # the module that assigns it, not one that imports it.
    others = sorted({info.name for info in pkgutil.walk_packages(didax.__path__, "didax.")} - set(declaring))
    for module_name in [*sorted(declaring), *others]:
        for attr, value in vars(importlib.import_module(module_name)).items():
            if module_name in others and not (isinstance(value, core.Primitive) and _defines(f"{module_name}.{attr}")):
                continue
            if isinstance(value, core.Primitive) and value.name not in prims:
                prims[value.name] = {"module": module_name.removeprefix("didax."),
                                     "results": "several" if value.multiple_results else "one"}
                if stages and _has_abstract_eval(value, core.Primitive):
                    abstract_evals[value.name] = _maker(value.abstract_eval)
    if stages:  # staging's rule for a primitive is the primitive's abstract evaluation
        tables[ABSTRACT_EVAL] = abstract_evals
    return {"primitives": prims, "tables": {t: dict(sorted(r.items())) for t, r in sorted(tables.items())}}


def _defines(qualified: str) -> bool:
    """Whether the module of ``qualified`` (``didax.lax.standard.physical_rules``) assigns the name
    at its top level, rather than importing it."""
    module_name, attr = qualified.rsplit(".", 1)
    spec = importlib.util.find_spec(module_name)
    source = Path(spec.origin).read_text() if spec and spec.origin else ""
    return re.search(rf"^{re.escape(attr)}\s*(:[^=\n]*)?=", source, re.M) is not None


def _has_abstract_eval(prim: Any, base: type) -> bool:
    """Whether a primitive was given an abstract evaluation (def_abstract_eval, or a subclass's
    method), rather than the base class's, which raises."""
    return "abstract_eval" in vars(prim) or getattr(type(prim), "abstract_eval", None) is not getattr(
        base, "abstract_eval", None)


def _maker(rule: Any) -> str:
    """The function a rule comes from: `defjvp` for `defjvp.<locals>.rule`, else its own name."""
    name = getattr(rule, "__qualname__", None) or type(rule).__name__
    return name.split(".<locals>")[0]


@functools.cache  # each chapter's table reads its stage and the one before
def stage_primitives(stage: str, root: Path = ROOT) -> dict[str, Any]:
    """primitives_json() of one stage, read in a fresh interpreter with only that stage importable."""
    stage_dir = root / "stages" / stage
    env = {**os.environ, "PYTHONPATH": str(stage_dir), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "primitives-json"],
                            cwd=stage_dir, env=env, capture_output=True, text=True, timeout=120)
    if result.returncode:
        raise SiteError(f"reading the primitives of {stage} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


# The interpreters' rule tables, each under the stage that adds it: {module.attribute: (stage, the
# column's heading)}. A chapter's table has a column for every rule table its own stage's package
# holds, read from that package, so the column says which rules exist in that stage. A table not
# declared here still gets a column, headed by its name.
RULE_TABLES: dict[str, tuple[str, str]] = {
    "lax.standard.physical_rules": ("01_eval", "On keys"),
    "ad.jvp_rules": ("02_jvp", "JVP"),
    "batching.batching_rules": ("03_vmap", "Batching"),
    "core.Primitive.abstract_eval": ("04_jaxpr", "Staging"),  # the primitive's abstract evaluation
    "lowering.core.lowering_rules": ("05_jit", "Lowering"),
    "partial_eval.partial_eval_jaxpr_rules": ("06_vjp", "Partial eval"),
    "transpose.transpose_rules": ("06_vjp", "Transpose"),
    "batching.collective_rules": ("07_sharding", "Collective batching"),  # vmap's rules for named axes
    "jit.output_shardings": ("07_sharding", "Output sharding"),  # where jit on a mesh puts each output
}
# Tables whose interpreter has a rule for every primitive the table lacks: the cell says so
# instead of "no rule" (partial evaluation evaluates an equation whose inputs are all known and
# stages it whole otherwise; only jit and control flow split their jaxprs).
DEFAULT_RULES = {"partial_eval.partial_eval_jaxpr_rules": "default"}
# Staging (stage 04) keeps no table: its rule for a primitive is the primitive's own abstract
# evaluation, so a stage with a staging interpreter gets this column, read from the primitives.
ABSTRACT_EVAL = "core.Primitive.abstract_eval"

NO_RULE = "**no rule**"


def _rule_columns(tables: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """(table, heading) for each rule table, those of earlier stages first."""
    known = sorted((t for t in tables if t in RULE_TABLES), key=lambda t: (RULE_TABLES[t][0], t))
    return ([(t, f"{RULE_TABLES[t][1]} (`{t}`)") for t in known]
            + [(t, f"`{t}`") for t in sorted(tables) if t not in RULE_TABLES])


def primitives_markdown(stage: str, root: Path = ROOT) -> str:
    """The chapter's table of primitives: one row each, grouped under the lax module declaring it,
    and a column per rule table this stage adds (its interpreters' rules, read from the stage's own
    package): a cell names the function that made the rule, or says there is none. Earlier
    stages' tables are their chapters' columns (seven columns were wider than the text); below the
    table, a sentence per table, earlier ones too, names the primitives it lacks. Evaluation is no
    column: every primitive has it."""
    data = stage_primitives(stage, root)
    prims, tables = data["primitives"], data["tables"]
    previous = previous_stage(stage, root)
    inherited = set(stage_primitives(previous, root)["tables"]) if previous else set()
    every = _rule_columns(tables)
    columns = [(t, h) for t, h in every if t not in inherited]  # this stage's own tables
    own = [f"{h.split(' (')[0]}, from `{t}`" if " (" in h else h for t, h in columns]
    elsewhere = sorted({f"`didax/{i['module'].replace('.', '/')}.py`" for i in prims.values()
                        if i["module"].split(".")[0] not in ("lax", "random")})
    intro = (f"{len(prims)} primitives, read from `stages/{stage}/didax/lax` (and `didax/random`"
             + "".join(f", {e}" for e in elsewhere) + ") when this page was built, under the module "
             "that declares each. Every one has an evaluation rule (its NumPy implementation with its "
             "abstract evaluation)")
    if columns:
        intro += (f". Each column is the rule table of an interpreter this stage adds, read from "
                  f"`stages/{stage}/didax` too ({'; '.join(own)}): a cell names the function that made "
                  f"the primitive's rule (the rule itself, or the helper that built it); {NO_RULE} is none. "
                  "The earlier stages' tables are in their chapters; the sentences under the table "
                  "count every table's rules.")
    else:
        intro += "; later stages add a column for each interpreter's rule table."
    header = ["primitive", "results", *(h.split(" (")[0] for _, h in columns)]
    out = [intro, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    module = None
    for name, info in sorted(prims.items(), key=lambda item: (item[1]["module"], item[0])):
        if info["module"] != module:  # a row naming the module, over its primitives
            module = info["module"]
            out.append(f"| *{module}* |" + " |" * (len(header) - 1))
        marks = [DEFAULT_RULES.get(t, NO_RULE) if name not in tables[t] else f"`{tables[t][name]}`"
                 for t, _ in columns]
        out.append(" | ".join([f"| `{name}`", info["results"], *marks]) + " |")
    for table, _ in every:
        missing = [f"`{m}`" for m in sorted(set(prims) - set(tables[table]))]
        have = f"{len(prims) - len(missing)} of the {len(prims)} primitives have a rule in `{table}`"
        if not missing:
            out += ["", f"{have}: every one."]
        elif len(tables[table]) < len(prims) / 4:  # a table for a few: name those it has
            present = [f"`{p}`" for p in sorted(tables[table])]
            out += ["", f"{have}: {', '.join(present[:-1])} and {present[-1]}." if len(present) > 1
                    else f"{have}: {present[0]}."]  # fmt: skip
            if table in DEFAULT_RULES:
                out[-1] += (" The others have the default rule: an equation whose inputs are all known is "
                            "evaluated, one with an unknown input is staged whole.")
        else:
            listed = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
            out += ["", f"{have}; {listed} {'has' if len(missing) == 1 else 'have'} none."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if sys.argv[1:2] == ["api-json"]:
        json.dump(api_json(sys.argv[2:]), sys.stdout)
    elif sys.argv[1:] == ["primitives-json"]:
        json.dump(primitives_json(), sys.stdout)
    else:
        sys.exit("usage: PYTHONPATH=stages/<stage> python site/sitegen.py api-json [MODULE ...]|primitives-json")
