"""Self-contained programs that reproduce a failure, ready to paste into a Python prompt.

A test notes its inputs and its call with `checks.show_call(...)`; this module turns them into a
program: the imports (the implementation under test as `jax`, wherever it lives), the config flags in
force, the inputs as literals, and the call, printed:

    import numpy as np
    import sys
    sys.path.insert(0, "stages/01_eval")  # run from the repository root
    import didax as jax
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([1.5, -2.0], dtype='float32')
    print(jnp.floor(x))

The plugin calls `use(impl)` once the implementation is loaded, `start_test()` before each test, and
`program_for_report()` when one fails; the last program noted is the one of hypothesis's final,
shrunk example.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

import numpy as np

from conformance.impl import SUITE_FLAGS, Impl, read_flag

# The names a program may use for the implementation's modules, and where they come from.
ALIASES = {"jnp": "jax.numpy", "lax": "jax.lax", "tree_util": "jax.tree_util", "tu": "jax.tree_util"}

_impl: Impl | None = None
# The last call noted: (call, inputs, flag lines); made into text only when a test fails, since
# hypothesis notes every example and nearly all of them pass.
_last: tuple[str, dict[str, Any], list[str]] | None = None


def use(impl: Impl) -> None:
    """Programs from now on import `impl`."""
    global _impl
    _impl = impl


def start_test() -> None:
    global _last
    _last = None


def record(call: str, values: dict[str, Any]) -> None:
    """Remember `call` with `values` as its inputs (and the flags in force now) for the report."""
    global _last
    _last = (call, {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in values.items()}, _flag_lines())


def program_for_report() -> str:
    """The program of the last call noted by the failing test, or the header alone with a note that
    the test did not note its inputs."""
    if _last is not None:
        call, values, flags = _last
        return program(call, values, flags)
    return header("") + "# (this test does not note its inputs: read its source for the call)\n"


def program(call: str, values: dict[str, Any], flags: list[str] | None = None) -> str:
    """The whole program: header, inputs, and the call."""
    assignments = "".join(f"{name} = {literal(value)}\n" for name, value in values.items())
    body = assignments + printed(call)
    return header(body, flags) + body


def header(body: str, flags: list[str] | None = None) -> str:
    """Imports and flags (default: those in force now) for a program whose body is `body` (it decides
    which aliases are needed)."""
    lines = ["import numpy as np"]
    if "ml_dtypes" in body or "bfloat16" in body or "float8" in body:
        lines.append("import ml_dtypes")
    if re.search(r"\b(nan|inf)\b", body):
        lines.append("from numpy import inf, nan")
    lines += list(_impl.import_lines) if _impl is not None else ["import jax"]
    lines += _flag_lines() if flags is None else flags
    aliases = [alias for alias in ALIASES if re.search(rf"\b{alias}\.", body)]
    if aliases:
        lines.append(", ".join(aliases) + " = " + ", ".join(ALIASES[a] for a in aliases))
    return "\n".join(lines) + "\n"


def _flag_lines() -> list[str]:
    if _impl is None:
        return []
    lines = []
    for name, default in SUITE_FLAGS.items():
        value = read_flag(_impl, name)
        if name == "jax_enable_x64" or value != default:  # x64 always: it changes every dtype
            lines.append(f"jax.config.update({name!r}, {value!r})")
    return lines


def printed(call: str) -> str:
    """The call, with its last expression printed, so that running the program shows the result.
    A call that is not Python (a sketch like `<view of> x`) is kept as a comment."""
    try:
        tree = ast.parse(call)
    except SyntaxError:
        return f"# {call}\n"
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        segment = ast.get_source_segment(call, last) or ast.unparse(last)
        before = call[: _offset(call, last.lineno, last.col_offset)].rstrip().rstrip(";").rstrip()
        comment = call[_offset(call, last.end_lineno or last.lineno, last.end_col_offset or 0):].strip()
        text = (before + "\n" if before else "") + f"print(repr({segment}))"
        return text + (f"  {comment}" if comment.startswith("#") else "") + "\n"
    return call.rstrip() + "\n"


def _offset(text: str, lineno: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: lineno - 1]) + col


# --- literals ------------------------------------------------------------------------------------


def literal(value: Any) -> str:
    """Source text that evaluates to `value` (arrays keep their dtype, shape and exact values)."""
    if isinstance(value, np.ndarray):
        return _array_literal(value)
    if isinstance(value, np.generic):
        return f"{_dtype_expr(value.dtype, call=True)}({_scalar(value.item())})"
    if isinstance(value, float | complex):
        return _scalar(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.dtype):
        return f"np.dtype({value.name!r})"
    return repr(value)


def _array_literal(value: np.ndarray) -> str:
    if value.dtype.names == ("float0",):  # the tangents of integers: no values, only a shape
        return f"np.zeros({value.shape!r}, dtype=jax.dtypes.float0)"
    dtype = _dtype_expr(value.dtype)
    if value.size == 0:
        return f"np.zeros({value.shape!r}, dtype={dtype})"
    text = np.array2string(
        value, separator=", ", threshold=1_000_000, max_line_width=10_000, floatmode="unique",
        formatter={"float_kind": _scalar, "complex_kind": _scalar} if value.dtype.kind in "fc" else None,
    )  # fmt: skip
    return f"np.array({text}, dtype={dtype})"


def _dtype_expr(dtype: np.dtype, call: bool = False) -> str:
    """'float32' (or np.float32 when it is to be called); ml_dtypes' types by their module."""
    if type(dtype).__module__.startswith("ml_dtypes") or dtype.name in ("bfloat16",) or "float8" in dtype.name:
        return f"ml_dtypes.{dtype.name}"
    return f"np.{dtype.name}" if call else repr(dtype.name)


def _scalar(x: Any) -> str:
    """A Python literal for a number, exact (repr round-trips), with nan and inf spelled as NumPy's."""
    if isinstance(x, complex | np.complexfloating):
        z = complex(x)
        return f"complex({_scalar(z.real)}, {_scalar(z.imag)})"
    if isinstance(x, float | np.floating):
        f = float(x)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    return repr(x)
