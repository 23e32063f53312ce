"""Every Python code block of the site runs against its stage and prints what the page shows."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from site_codeblocks import Block, blocks, check_block, page_stage
from site_common import ROOT, SITE

DOCS = SITE / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def runnable(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.lang in ("python", "py", "pycon") and not b.is_listing]


def test_every_python_block_is_on_a_page_that_names_its_stage():
    for page in PAGES:
        stage = page_stage(page.read_text())
        if runnable(page):
            assert stage, f"{page.relative_to(DOCS)} has Python blocks but no `stage:` front matter"
        if stage:
            assert (ROOT / "stages" / stage / "didax").is_dir(), f"{page.name}: no stage {stage}"


def test_listings_include_files_that_exist():
    for page in PAGES:
        for block in blocks(page):
            if block.is_listing:
                for line in block.body.splitlines():
                    path = line.split('"')[1].split(":")[0]
                    assert (ROOT / path).is_file(), f"{block.where()}: {path}"


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=lambda p: p.relative_to(DOCS).as_posix())
def test_code_blocks_run_and_print_their_shown_output(page: Path):
    stage_dir = ROOT / "stages" / page_stage(page.read_text())
    todo = runnable(page)
    assert len(todo) >= 3, "a chapter runs at least a few examples"
    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(lambda b: check_block(b, stage_dir), todo) if p]
    assert not problems, "\n\n".join(problems)


def test_the_checker_catches_wrong_output_and_failing_code(tmp_path: Path):
    """The convention can fail: a wrong shown output, a crash and a missing output block."""
    page = tmp_path / "page.md"
    page.write_text(
        "---\nstage: 01_eval\n---\n"
        '```python\nimport didax.numpy as jnp\nprint(jnp.arange(3).sum())\n```\n\n```text title="Output"\n4\n```\n'
        '```python\nimport didax.numpy as jnp\nprint(jnp.arange(3).sum())\n```\n\n```text title="Output"\n3\n```\n'
        '```python\nraise SystemExit(3)\n```\n```text title="Output"\n```\n'
        "```python\nprint(1)\n```\n"
    )
    wrong, right, crash, alone = blocks(page)[0::2][:3] + [blocks(page)[-1]]
    stage_dir = ROOT / "stages" / "01_eval"
    assert "output differs" in check_block(wrong, stage_dir)
    assert check_block(right, stage_dir) is None  # same code, right output: the stage is used
    assert "status 3" in check_block(crash, stage_dir)
    assert "no ```text" in check_block(alone, stage_dir)


# Names a chapter may mention before the stage that defines them exists (the course's plan).
LATER_STAGE_NAMES = {"jvp", "vmap", "make_jaxpr", "eval_jaxpr", "jit", "grad", "vjp", "linearize",
                     "shard_map", "pmap", "while_loop", "fori_loop", "jacfwd", "jacrev", "all_gather"}


@pytest.mark.parametrize("page", [p for p in PAGES if page_stage(p.read_text())],
                         ids=lambda p: p.relative_to(DOCS).as_posix())
def test_code_names_in_the_prose_exist_in_the_stage(page: Path):
    """Prose can drift even when the included code cannot: every identifier the chapter writes as
    code (`find_top_trace`, `MainTrace`, `core.new_main`) must occur in the stage's files or in
    the page's own examples."""
    text = page.read_text()
    stage_dir = ROOT / "stages" / page_stage(text)
    examples = "\n".join(b.body for b in blocks(page))
    prose = re.sub(r"^( *)`{3,}.*?^\1`{3,}", "", text, flags=re.S | re.M)
    source = "\n".join(p.read_text() for p in stage_dir.rglob("*.py")) + "\n" + examples
    missing = set()
    for span in set(re.findall(r"`([^`\n]+)`", prose)):
        looks_like_code = "_" in span or "." in span or re.search(r"[a-z][A-Z]", span)
        if not re.fullmatch(r"[A-Za-z_][\w.]*", span) or not looks_like_code:
            continue
        for part in span.removesuffix(".py").split("."):
            if part not in LATER_STAGE_NAMES and not re.search(rf"\b{re.escape(part)}\b", source):
                missing.add(span)
    assert not missing, f"{page.name} mentions names its stage does not have: {sorted(missing)}"
