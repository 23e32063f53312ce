"""A failing test's own code as a program, for the tests that note no call of their own.

`checks.show_call` notes the call a test is about, and the report shows that call as a program
(reproduce.py). A test that notes none (a fixed case, a catalogue entry, a table) still gets a
program that contains the failing call: the test's body up to the failing statement, its parameters
as literals (a lambda as its text, a catalogue entry as its constructor), its fixtures inlined (a
fixture's `return x` becomes `name = x`), and `impl.numpy`, `impl.lax`, ... spelled as a JAX program
spells them (`jnp`, `lax`, ...). The suite's helpers the code uses are imported from the test's
module, the folder holding `conformance` first on sys.path, so the program runs from any folder:

    import numpy as np
    import jax
    jax.config.update('jax_enable_x64', False)
    import sys
    sys.path.insert(0, '/home/me/didax')
    from conformance.test_nn import close, X
    nn = jax.nn
    x = X.astype(np.float32)
    close(nn.relu(x), np.maximum(X, 0).astype(np.float32), rtol=2e-6, atol=1e-6)

A noted call's program gets the test's own fixtures too (pytrees' `tu` registers the suite's node
classes before the call). Drawn inputs (hypothesis) only a note can show: such a test without a note
gets the header and a line saying so.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from conformance import reproduce
from conformance.impl import wrap

# `impl.<name>` in the suite's code, as a program spells it.
IMPL_NAMES = {
    "numpy": "jnp",
    "lax": "lax",
    "tree_util": "tree_util",
    "module": "jax",
    "config": "jax.config",
    "dtypes": "jax.dtypes",
    "numpy_dtype_promotion": "jax.numpy_dtype_promotion",
    "TypePromotionError": "jax.dtypes.TypePromotionError",
}
_IMPL_NAME = re.compile(r"(?<![\w.])impl\.(" + "|".join(IMPL_NAMES) + r")\b")
# What a program defines for the plugin's own fixtures (x64 is its value, like a parameter).
PLUGIN_FIXTURES = {"impl": "", "flags": "flags = jax.config.update\n"}
# For code that still passes `impl` to a helper: the implementation seen as the suite sees it.
IMPL_LINE = 'impl = wrap(jax, "jax")\n'


class CannotUnroll(Exception):
    """The test's code cannot be made into a program (the reason says why)."""


def program_for_report(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    """The program at the top of a failure's report: the noted call with the test's fixtures, else
    the test's own code, else the header with a line saying why there is no call."""
    namespaces = reproduce.namespace_of(getattr(item, "module", None))
    noted = reproduce.noted()
    try:
        if noted is not None:
            namespaces += reproduce.namespace_of(noted.module)  # the helpers of the code that noted it
            try:
                setup = spelled(fixtures(item, namespaces, own_only=True), namespaces)
            except CannotUnroll:
                setup = ""
            return reproduce.program(noted.call, noted.values, noted.flags, setup, namespaces)
        return unrolled(item, excinfo, namespaces)
    except CannotUnroll as why:
        reason = f": {why}" if str(why) else ""
    except Exception as err:  # a report must never fail for its program's sake
        reason = f": making it failed ({type(err).__name__}: {err})"
    return reproduce.header("") + f"# (this test does not note its inputs{reason}; read its source for the call)\n"


def unrolled(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException] | None,
             namespaces: reproduce.Namespaces) -> str:  # fmt: skip
    """The test's body up to its failing statement, after its parameters and fixtures."""
    function = getattr(item, "function", None)
    if function is None:
        raise CannotUnroll("not a test function")
    if hasattr(function, "hypothesis"):
        raise CannotUnroll("its inputs are drawn by hypothesis")
    text = spelled(fixtures(item, namespaces) + code_of(function, failing_line(function, excinfo)), namespaces)
    return reproduce.header(text, None, namespaces) + text


def fixtures(item: pytest.Item, namespaces: reproduce.Namespaces, own_only: bool = False) -> str:
    """Lines that give each argument of the test its value: a parameter as a literal, a fixture
    inlined (its own arguments first). `own_only`: only the fixtures the test's files define (the
    plugin's `impl`, `flags` and `x64` are in a noted program's header already)."""
    info = getattr(item, "_fixtureinfo", None)
    params = getattr(getattr(item, "callspec", None), "params", {})
    values: dict[str, Any] = getattr(item, "funcargs", {})
    if info is None:
        raise CannotUnroll("no fixture information")
    done: set[str] = set()

    def lines_for(name: str) -> str:
        if name in done:
            return ""
        done.add(name)
        definitions = info.name2fixturedefs.get(name)
        definition = definitions[-1] if definitions else None
        func = getattr(definition, "func", None)
        module = getattr(func, "__module__", "") or ""
        direct = name in params and (func is None or module.startswith("_pytest"))
        if direct or module == "conformance.plugin" and name not in PLUGIN_FIXTURES:  # a value: x64
            if own_only or name not in values:
                return ""
            return f"{name} = {reproduce.literal(values[name], namespaces)}\n"
        if name in PLUGIN_FIXTURES:
            return "" if own_only else PLUGIN_FIXTURES[name]
        if func is None:
            raise CannotUnroll(f"no definition of the argument {name!r}")
        before = "".join(lines_for(arg) for arg in getattr(definition, "argnames", ()))
        namespaces.extend(reproduce.namespace_of(module))
        return before + fixture_code(func, name)

    return "".join(lines_for(name) for name in inspect.signature(item.function).parameters)


def fixture_code(func: Callable[..., Any], name: str) -> str:
    """A fixture's body up to its `return x` (or `yield x`), which becomes `name = x`."""
    statements, lines = _body(func)
    for i, statement in enumerate(statements):
        value = _returned(statement)
        if value is not False:
            before = statements[:i]
            returned = "None" if value is None else ast.get_source_segment("".join(lines), value)
            break
    else:
        before, returned = statements, None
    if any(isinstance(node, ast.Return | ast.Yield | ast.YieldFrom) for s in before for node in _walk_here(s)):
        raise CannotUnroll(f"the fixture {name!r} returns early")
    return _lines(lines, before) + (f"{name} = {returned}\n" if returned is not None else "")


def _returned(statement: ast.stmt) -> ast.expr | None | bool:
    """What a `return x` or `yield x` statement gives (None for a bare one); False for others."""
    if isinstance(statement, ast.Return):
        return statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Yield):
        return statement.value.value
    return False


def code_of(function: Callable[..., Any], failing: int | None) -> str:
    """The test's body (no docstring, no blank lines) up to the statement holding line `failing`."""
    statements, lines = _body(function)
    start = inspect.getsourcelines(function)[1]
    if failing is not None:
        relative = failing - start + 1
        for i, statement in enumerate(statements):
            if _first_line(statement) <= relative <= (statement.end_lineno or statement.lineno):
                statements = statements[: i + 1]
                break
    return _lines(lines, statements)


def failing_line(function: Callable[..., Any], excinfo: pytest.ExceptionInfo[BaseException] | None) -> int | None:
    """The line of the test's own code at which the exception passed last."""
    line, tb = None, excinfo.tb if excinfo is not None else None
    code = body_code(function)
    while tb is not None:
        if tb.tb_frame.f_code is code:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def body_code(function: Callable[..., Any]) -> Any:
    """The code object of a test's own body: a hypothesis test's is its `inner_test`'s (the plugin
    may have wrapped that), not the wrapper's that pytest calls."""
    inner = getattr(getattr(function, "hypothesis", None), "inner_test", None)
    return inspect.unwrap(inner).__code__ if inner is not None else function.__code__


def failing_statement(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    """The text of the innermost simple statement of the test's own code that raised (""
    when the exception did not pass through the test's code, or its source cannot be read)."""
    function = getattr(item, "function", None)
    if function is None:
        return ""
    line = failing_line(function, excinfo)
    if line is None:
        return ""
    try:
        lines, start = inspect.getsourcelines(inspect.unwrap(function))
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return ""
    relative = line - start + 1
    simple = [node for node in ast.walk(tree) if isinstance(node, ast.stmt) and not hasattr(node, "body")
              and node.lineno <= relative <= (node.end_lineno or node.lineno)]  # fmt: skip
    if not simple:
        return ""
    innermost = min(simple, key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
    return ast.unparse(innermost)


def _body(function: Callable[..., Any]) -> tuple[list[ast.stmt], list[str]]:
    try:
        lines = textwrap.dedent("".join(inspect.getsourcelines(function)[0])).splitlines(keepends=True)
    except (OSError, TypeError) as err:
        raise CannotUnroll(f"no source ({err})") from None
    try:
        definition = ast.parse("".join(lines)).body[0]
    except SyntaxError as err:
        raise CannotUnroll(f"its source does not parse alone ({err})") from None
    if not isinstance(definition, ast.FunctionDef):
        raise CannotUnroll("not a function")
    statements = list(definition.body)
    if statements and isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant):
        statements = statements[1:]  # the docstring
    return statements, lines


def _lines(lines: list[str], statements: list[ast.stmt]) -> str:
    if not statements:
        return ""
    block = lines[_first_line(statements[0]) - 1 : statements[-1].end_lineno or statements[-1].lineno]
    return "".join(line for line in textwrap.dedent("".join(block)).splitlines(keepends=True) if line.strip())


def _first_line(statement: ast.stmt) -> int:
    """Where a statement starts: a decorated definition at its first decorator."""
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _walk_here(node: ast.AST) -> list[ast.AST]:
    """The nodes of `node` outside nested functions, lambdas and classes."""
    found, todo = [], [node]
    while todo:
        current = todo.pop()
        found.append(current)
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                todo.append(child)
    return found


def spelled(text: str, namespaces: reproduce.Namespaces) -> str:
    """The suite's code as a JAX program writes it: `impl.numpy.add` is `jnp.add`; where `impl` itself
    is still passed on (to a helper of the suite), the program defines it (`wrap` joins `namespaces`)."""
    text = _IMPL_NAME.sub(lambda m: IMPL_NAMES[m.group(1)], text)
    text = re.sub(r"(?m)^(\w+) = \1\n", "", text)  # `tree_util = impl.tree_util` said nothing
    if not _uses_impl(text):
        return text
    namespaces.append(("conformance.impl", {"wrap": wrap}))
    return IMPL_LINE + text


def _uses_impl(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Name) and node.id == "impl" for node in ast.walk(tree))
