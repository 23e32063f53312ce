"""Static checks of the suite's own test files (no implementation is run)."""

from __future__ import annotations

import ast
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
