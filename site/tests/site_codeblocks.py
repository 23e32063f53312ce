"""The site's code-block convention, as code (site/README.md explains it to authors).

- A page that shows runnable code names its stage in front matter: `stage: 01_eval`.
- Every ```python block on it is a program: it runs in a fresh interpreter, in the stage's
  folder, with PYTHONPATH=stages/<stage>, and must exit with status 0.
- Right after it (blank lines between are fine) comes its output: a ```text block titled
  "Output". The program's stdout must equal it, line for line (trailing spaces ignored).
- A ```python block holding only `--8<--` lines is a listing of the stage's own files, included
  by pymdownx.snippets: it is not run (the stage's tests run that code).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<lang>[\w+-]*)(?P<attrs>[^`\n]*)$")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    attrs: str
    body: str
    end: int  # 1-based line of the closing fence
    output: Block | None = None

    @property
    def is_listing(self) -> bool:
        lines = [line for line in self.body.splitlines() if line.strip()]
        return bool(lines) and all(line.strip().startswith("--8<--") for line in lines)

    @property
    def is_output(self) -> bool:
        return self.lang == "text" and re.search(r'title="Output"', self.attrs) is not None

    def where(self) -> str:
        return f"{self.page.name}:{self.line}"


def front_matter(text: str) -> dict[str, str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not match:
        return {}
    return dict(line.split(":", 1) for line in match.group(1).splitlines() if ":" in line)


def page_stage(text: str) -> str | None:
    value = front_matter(text).get("stage")
    return value.strip() if value else None


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, each python block paired with the output block after it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, ticks = match.group("indent"), match.group("ticks")
        closing = re.compile(re.escape(indent) + ticks + "`*[ \t]*")
        body, j = [], i + 1
        while j < len(lines) and not closing.fullmatch(lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"{page.name}:{i + 1}: the code block is never closed")
        block = Block(page, i + 1, match.group("lang"), match.group("attrs"), "\n".join(body), j + 1)
        # An output block belongs to the block just before it, if only blank lines lie between.
        if block.is_output and found and not any(line.strip() for line in lines[found[-1].end:i]):
            found[-1].output = block
        found.append(block)
        i = j + 1
    return found


def run_block(block: Block, stage_dir: Path, timeout: float = 120) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PYTHONPATH": str(stage_dir), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
    result = subprocess.run([sys.executable, "-c", block.body], cwd=stage_dir, env=env,
                            capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout, result.stderr


def normalized(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def check_block(block: Block, stage_dir: Path) -> str | None:
    """None if the block runs and prints its shown output; else what went wrong."""
    if block.output is None:
        return f"{block.where()}: no ```text title=\"Output\" block follows this python block"
    code, out, err = run_block(block, stage_dir)
    if code != 0:
        return f"{block.where()}: exited with status {code}:\n{err[-2000:]}"
    if normalized(out) != normalized(block.output.body):
        return (f"{block.where()}: the output differs from the page's.\n--- page\n{block.output.body}\n"
                f"--- actual\n{out}")
    return None
