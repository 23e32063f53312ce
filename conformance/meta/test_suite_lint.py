"""Static checks of the suite's own test files (no implementation is run)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent


def _calls(name: str):
    for path in sorted(SUITE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == name
            ):
                yield path, node


def test_every_dtype_check_also_checks_the_weak_type() -> None:
    """Weak type is checked on every result whose dtype is compared: assert_dtype(..., weak=...)."""
    missing = [
        f"{path.name}:{node.lineno}"
        for path, node in _calls("assert_dtype")
        if not any(k.arg == "weak" for k in node.keywords)
    ]
    assert not missing, "assert_dtype without weak= (derive it from dtype_rules.weak_result): " + ", ".join(
        missing
    )


def test_weak_types_are_checked_through_the_one_helper() -> None:
    """Tests check weak types with checks.assert_weak (or assert_dtype's weak=), never is_weak directly."""
    direct = [f"{path.name}:{node.lineno}" for path, node in _calls("is_weak")]
    assert not direct, "use assert_weak instead of is_weak in: " + ", ".join(direct)


# --- the exact messages the suite checks --------------------------------------------------------------

MESSAGES_HEADING = "## Exact messages the suite checks"


def message_checks() -> set[tuple[str, str, str]]:
    """(file, what is expected, the text) of every `match=` in the suite's files: the text as written,
    an f-string's fields as `{name}`."""
    found = set()
    for path in sorted(SUITE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "match":
                    expected = ast.unparse(node.args[0]) if node.args else ""
                    found.add((path.name, expected, _text(keyword.value)))
    return found


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(part) if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                       for part in node.values)  # fmt: skip
    return ast.unparse(node)


def readme_messages() -> set[tuple[str, str, str]]:
    """The rows of the README's table of exact messages: `| file | expected | text |`."""
    text = (SUITE / "README.md").read_text()
    assert MESSAGES_HEADING in text, f"conformance/README.md has no section {MESSAGES_HEADING!r}"
    section = text.split(MESSAGES_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = set()
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 3 and cells[0].startswith("`test_"):
            rows.add(tuple(_unquoted(c) for c in cells))
    return rows


def _unquoted(cell: str) -> str:
    """A cell's code span (`x`, or `` x `` for text holding a backtick), `\\|` as `|`."""
    span = cell[3:-3] if cell.startswith("`` ") else cell.strip("`")
    return span.replace("\\|", "|")


def test_the_readme_lists_every_exact_message_the_suite_checks() -> None:
    """A test that checks a message's text (`match=`) asks every implementation to word it as JAX
    does; the README lists each such text, so that an implementer knows them all."""
    in_code, in_readme = message_checks(), readme_messages()
    assert in_code, "no match= found: the parser is broken"
    assert not in_code - in_readme, f"checked but not in the README's table: {sorted(in_code - in_readme)}"
    assert not in_readme - in_code, f"in the README's table but checked nowhere: {sorted(in_readme - in_code)}"
