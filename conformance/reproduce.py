"""Self-contained programs that reproduce a failure, ready to paste into a Python prompt.

A test notes its inputs and its call with `checks.show_call(...)`; this module turns them into a
program: the imports (the implementation under test as `jax`, wherever it lives), the config flags in
force, the inputs as literals, and the call, printed:

    import numpy as np
    import sys
    sys.path.insert(0, '/home/me/didax/stages/01_eval')
    import didax as jax
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([1.5, -2.0], dtype='float32')
    print(jnp.floor(x))

The plugin calls `use(impl)` once the implementation is loaded, `start_test()` before each test, and
`unroll.program_for_report(...)` when one fails: the last program noted (that of hypothesis's final,
shrunk example), or for a test that noted none, the test's own code (unroll.py).

Values become literals; those that are not plain data are spelled as the source that makes them: a
lambda as its own text, a function or class by its name (imported from where it lives), an
implementation's array as `jnp.asarray(...)` (`jnp.full(...)` when it is weakly typed), a `Source`
as itself. Every name a program uses but does not define is imported from the test's module, the
module that noted the call, or where the functions and classes it shows were defined, after the
folders those come from are put on sys.path by absolute path: a program runs as it is, saved as a
file, from any folder.
"""

from __future__ import annotations

import ast
import builtins
import collections
import dataclasses
import functools
import inspect
import linecache
import math
import re
import types
from typing import Any, NamedTuple

import numpy as np

from conformance.impl import DEVICE_FLAGS, RANDOM_FLAGS, SUITE_FLAGS, Impl, has_flag, path_entry_of, read_flag
from conformance.missing import unwrap

# The names a program may use for the implementation's modules, and where they come from.
ALIASES = {"jnp": "jax.numpy", "lax": "jax.lax", "tree_util": "jax.tree_util", "tu": "jax.tree_util"}
# Names every program's header can provide; any other name a program uses but does not define is
# imported (see `imports`).
PROVIDED = {"np", "ml_dtypes", "inf", "nan", "jax", *ALIASES}

# Where a program's free names are looked up: (the module to import them from, its names).
Namespaces = list[tuple[str, dict[str, Any]]]


class Source(str):
    """Program text that stands for a value: `literal(Source("jnp.full((2,), 2.0)"))` is that text.
    For values only a call can make, such as an implementation's weakly typed array."""

class Note(NamedTuple):
    """A call noted by a test: its text, its inputs, the flag lines in force, and the module that
    noted it (whose helpers the call may use, e.g. `loop` of test_vmap's check_vmap)."""

    call: str
    values: dict[str, Any]
    flags: list[str]
    module: str | None = None


_impl: Impl | None = None
# The implementation's own values of the RANDOM_FLAGS it has, when it was loaded: a program sets
# such a flag only where a test changed it (jax_threefry_partitionable on JAX 0.4.38).
_own_flags: dict[str, object] = {}
# The last call noted; made into text only when a test fails, since hypothesis notes every example
# and nearly all of them pass.
_last: Note | None = None
# Once an example of a hypothesis test has failed, its note (None if it noted nothing): the examples
# run after it (hypothesis's later explicit examples) may pass, and their notes would show nothing.
_failed: tuple[Note | None] | None = None


def use(impl: Impl) -> None:
    """Programs from now on import `impl`."""
    global _impl, _own_flags
    _impl = impl
    _own_flags = {name: read_flag(impl, name) for name in RANDOM_FLAGS if has_flag(impl, name)}


def start_test() -> None:
    global _last, _failed
    _last, _failed = None, None


def start_example() -> None:
    """A new example of a hypothesis test begins: what earlier examples noted is not its call."""
    global _last
    _last = None


def example_failed() -> None:
    """The running example failed: its note is the report's, whatever later examples note."""
    global _failed
    _failed = (_last,)


def record(call: str, values: dict[str, Any], module: str | None = None) -> None:
    """Remember `call` with `values` as its inputs (and the flags in force now) for the report;
    `module` is where the call was noted (its names are imported where the call uses them)."""
    global _last
    copied = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in values.items()}
    _last = Note(call, copied, _flag_lines(), module)


def noted() -> Note | None:
    """The call noted by the failing example of the running test (of its last one, if none failed
    yet), or None."""
    return _failed[0] if _failed is not None else _last


def program(
    call: str,
    values: dict[str, Any],
    flags: list[str] | None = None,
    setup: str = "",
    namespaces: Namespaces | None = None,
) -> str:
    """The whole program: header, `setup` (e.g. the test's fixtures), inputs, and the call. Free names
    are imported from `namespaces` (and from where the values' functions and classes live)."""
    found: Namespaces = list(namespaces or [])
    assignments = "".join(f"{name} = {_literal(value, found)}\n" for name, value in values.items())
    body = setup + assignments + printed(call)
    return header(body, flags, found) + body


def header(body: str, flags: list[str] | None = None, namespaces: Namespaces | None = None) -> str:
    """Imports and flags (default: those in force now) for a program whose body is `body` (it decides
    which aliases and imports are needed)."""
    lines = ["import numpy as np"]
    if "ml_dtypes" in body or "bfloat16" in body or "float8" in body:
        lines.append("import ml_dtypes")
    if re.search(r"\b(nan|inf)\b", body):
        lines.append("from numpy import inf, nan")
    lines += list(_impl.import_lines) if _impl is not None else ["import jax"]
    lines += _flag_lines() if flags is None else flags
    free = free_names(body)
    aliases = [a for a in ALIASES if (a in free if free is not None else re.search(rf"\b{a}\.", body))]
    if aliases:
        lines.append(", ".join(aliases) + " = " + ", ".join(ALIASES[a] for a in aliases))
    found = imports(body, namespaces or [])
    lines += path_lines(found, lines) + found
    return "\n".join(lines) + "\n"


def path_lines(import_lines: list[str], before: list[str]) -> list[str]:
    """`sys.path.insert(0, ...)` for the folders the imported modules come from (the suite's own,
    `conformance`, for its helpers), so that the program runs from any folder; none for modules of
    the Python installation, or folders that the lines `before` put on sys.path already."""
    lines: list[str] = []
    for line in import_lines:
        found = re.match(r"(?:from|import) ([\w.]+)", line)
        where = path_entry_of(found.group(1)) if found else None
        insert = f"sys.path.insert(0, {str(where)!r})"
        if where is not None and insert not in before and insert not in lines:
            lines.append(insert)
    if lines and "import sys" not in before:
        lines.insert(0, "import sys")
    return lines


def imports(body: str, namespaces: Namespaces) -> list[str]:
    """Import lines for the names `body` uses but neither defines nor gets from the header, each from
    the first namespace that has it (the suite's own helpers come from the suite: run the program
    where `conformance` is importable, e.g. the repository root)."""
    modules: list[str] = []
    names: dict[str, list[str]] = {}
    for name in free_names(body) or []:
        if name in PROVIDED or hasattr(builtins, name):
            continue
        for where, space in namespaces:
            if name not in space:
                continue
            value = space[name]
            if isinstance(value, types.ModuleType):
                modules.append(_import_module(value.__name__, name))
            else:
                names.setdefault(where, []).append(name)
            break
    return modules + [f"from {where} import {', '.join(found)}" for where, found in names.items()]


def free_names(body: str) -> list[str] | None:
    """The names `body` reads without defining them (in the scope that reads them), in order of
    first use; None when it is not Python."""
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return None
    free: dict[str, None] = {}

    def visit(node: ast.AST, scopes: list[set[str]]) -> None:
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            outside = [*arguments.defaults, *arguments.kw_defaults, *getattr(node, "decorator_list", []),
                       getattr(node, "returns", None), *(a.annotation for a in every)]  # fmt: skip
            for expression in outside:  # evaluated where the function is defined
                if expression is not None:
                    visit(expression, scopes)
            body = node.body if isinstance(node.body, list) else [node.body]
            inner = {a.arg for a in every} | _bound_in(body)
            for statement in body:
                visit(statement, [*scopes, inner])
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            scopes = [*scopes, _bound_in([g.target for g in node.generators])]
        is_read = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        if is_read and not any(node.id in scope for scope in scopes):
            free.setdefault(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, scopes)

    defined: set[str] = set()  # at the top level, a name is defined from the statement after its binding
    for statement in tree.body:
        visit(statement, [set(defined)])
        defined |= _bound_in([statement])
    return list(free)


def _bound_in(nodes: list[Any]) -> set[str]:
    """The names that `nodes` bind in their own scope (not inside the functions they define)."""
    bound: set[str] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        if not isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            todo.extend(ast.iter_child_nodes(node))
    return bound


def _import_module(module: str, name: str) -> str:
    package, _, last = module.rpartition(".")
    if module == name:
        return f"import {module}"
    if last == name:
        return f"from {package} import {name}"
    return f"import {module} as {name}"


def namespace_of(module: types.ModuleType | str | None) -> Namespaces:
    """The namespace of a module (by the module or its name), for `program`'s imports."""
    if isinstance(module, str):
        import sys

        module = sys.modules.get(module)
    return [] if module is None else [(module.__name__, vars(module))]


def _flag_lines() -> list[str]:
    if _impl is None:
        return []
    lines = []
    if "sharding" in _impl.capabilities:  # first: it only works before the first operation
        for name in DEVICE_FLAGS:
            if has_flag(_impl, name) and (value := getattr(unwrap(_impl.config), name)) != -1:
                lines.append(f"jax.config.update({name!r}, {value!r})")
    for name, default in SUITE_FLAGS.items():
        value = read_flag(_impl, name)
        if name == "jax_enable_x64" or value != default:  # x64 always: it changes every dtype
            lines.append(f"jax.config.update({name!r}, {value!r})")
    for name, own in _own_flags.items():
        if (value := read_flag(_impl, name)) != own:
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
        if isinstance(last.value, ast.Tuple) and not segment.startswith("("):
            segment = f"({segment})"
        text = (before + "\n" if before else "") + f"print(repr({segment}))"
        return text + (f"  {comment}" if comment.startswith("#") else "") + "\n"
    return call.rstrip() + "\n"


def _offset(text: str, lineno: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: lineno - 1]) + col


# --- literals ------------------------------------------------------------------------------------


def literal(value: Any, found: Namespaces | None = None) -> str:
    """Source text that evaluates to `value` (arrays keep their dtype, shape and exact values); the
    modules whose names it uses join `found`."""
    return _literal(value, [] if found is None else found)


def _literal(value: Any, found: Namespaces) -> str:
    """`literal`, noting in `found` the modules whose names the text uses."""
    if isinstance(value, Source):
        return str(value)
    if hasattr(type(value), "program_source"):  # a value that says how a program makes it
        return value.program_source()
    if isinstance(value, np.ndarray):
        return _array_literal(value)
    if isinstance(value, np.generic):
        return f"{_dtype_expr(value.dtype, call=True)}({_scalar(value.item())})"
    if isinstance(value, bool | int | str | bytes | None):
        return repr(value)
    if isinstance(value, float | complex):
        return _scalar(value)
    if isinstance(value, np.dtype):
        return f"np.dtype({value.name!r})"
    if _is_implementation_array(value):
        return _implementation_array_literal(value)
    kind = type(value)
    if kind is list:
        return "[" + ", ".join(_literal(v, found) for v in value) + "]"
    if kind is tuple:
        inner = ", ".join(_literal(v, found) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if kind is dict:
        return "{" + ", ".join(f"{_literal(k, found)}: {_literal(v, found)}" for k, v in value.items()) + "}"
    if kind is collections.OrderedDict:
        found += namespace_of(collections)
        return f"OrderedDict({_literal(list(value.items()), found)})"
    if isinstance(value, tuple) and hasattr(kind, "_fields"):  # a namedtuple
        return _constructed(kind, [(f, getattr(value, f)) for f in kind._fields], found)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value) if f.init]
        return _constructed(kind, fields, found)
    if isinstance(value, types.FunctionType):
        return function_source(value, found)
    if isinstance(value, np.ufunc) and getattr(np, value.__name__, None) is value:
        return f"np.{value.__name__}"
    if isinstance(value, type | types.BuiltinFunctionType):
        return _named(value, found)
    constructed = _by_init(value, found)
    if constructed is not None:
        return constructed
    if repr(value).startswith(kind.__name__ + "("):  # e.g. Box([1, 2], 'p'): its class is imported
        found += namespace_of(kind.__module__)
    return repr(value)


def _by_init(value: Any, found: Namespaces) -> str | None:
    """`Kind(x=..., y=...)` for an object that keeps each argument of its __init__ as an attribute
    of the same name (the suite's own node and leaf classes); None for any other."""
    kind = type(value)
    attributes = getattr(value, "__dict__", None)
    if kind.__init__ is object.__init__ or attributes is None:
        return None
    try:
        parameters = list(inspect.signature(kind.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    parts = []
    for parameter in parameters:
        if parameter.name not in attributes or parameter.kind is parameter.VAR_KEYWORD:
            return None
        text = _literal(attributes[parameter.name], found)
        if parameter.kind is parameter.VAR_POSITIONAL:
            parts.append(f"*{_literal(tuple(attributes[parameter.name]), found)}")
        elif parameter.kind is parameter.POSITIONAL_ONLY:
            parts.append(text)
        else:
            parts.append(f"{parameter.name}={text}")
    return f"{_named(kind, found)}({', '.join(parts)})"


def _constructed(kind: type, fields: list[tuple[str, Any]], found: Namespaces) -> str:
    args = ", ".join(f"{name}={_literal(v, found)}" for name, v in fields)
    return f"{_named(kind, found)}({args})"


def _named(value: Any, found: Namespaces) -> str:
    """A class or function by its name: builtins as they are, NumPy's through np, others imported
    from their module."""
    module, name = getattr(value, "__module__", None) or "", value.__qualname__
    if module == "builtins":
        return name
    if module.split(".")[0] == "numpy" and getattr(np, value.__name__, None) is value:
        return f"np.{value.__name__}"
    if "." not in name and "<" not in name:
        module = {"_operator": "operator", "_functools": "functools"}.get(module, module)
        if module in ("math", "cmath", "operator", "functools"):  # C functions: by their module
            found.append(("", {module: __import__(module)}))
            return f"{module}.{name}"
        found += namespace_of(module)
    return name


def _is_implementation_array(value: Any) -> bool:
    return hasattr(value, "__array__") and hasattr(value, "dtype") and hasattr(value, "shape")


def _implementation_array_literal(value: Any) -> str:
    """`jnp.asarray(np.array(...))`; a weakly typed one as the Python scalar it came from,
    `jnp.asarray(2.0)` or `jnp.full((2, 3), 2.0)` (a weak array of several values has no such
    spelling: it is shown strong)."""
    array = np.asarray(value)
    aval = getattr(value, "aval", None)
    weak = bool(getattr(aval, "weak_type", getattr(value, "weak_type", False)))
    if weak and array.size and (array == array.flat[0]).all() and array.dtype.kind in "iufc":
        scalar = _scalar({"i": int, "u": int, "f": float, "c": complex}[array.dtype.kind](array.flat[0]))
        return f"jnp.asarray({scalar})" if array.ndim == 0 else f"jnp.full({array.shape!r}, {scalar})"
    return f"jnp.asarray({_array_literal(array)})"


def function_source(fn: types.FunctionType, found: Namespaces | None = None) -> str:
    """A lambda as its own text, its defaults as literals (`lambda r, n=2: r.split(_key(r), n)`); a
    module-level function by its name. The module it comes from joins `found`."""
    found = [] if found is None else found
    found += namespace_of(fn.__module__)
    node = _lambda_node(fn)
    if node is None:
        return _named(fn, found)
    args = node.args
    defaults = [_parsed(_literal(v, found)) for v in fn.__defaults__ or ()]
    kw_defaults = [None if d is None else _parsed(_literal((fn.__kwdefaults__ or {})[a.arg], found))
                   for a, d in zip(args.kwonlyargs, args.kw_defaults)]  # fmt: skip
    args = ast.arguments(posonlyargs=args.posonlyargs, args=args.args, vararg=args.vararg,
                         kwonlyargs=args.kwonlyargs, kw_defaults=kw_defaults, kwarg=args.kwarg,
                         defaults=defaults)  # fmt: skip
    head = ast.unparse(args)
    return f"lambda {head}: {lambda_body(fn)}" if head else f"lambda: {lambda_body(fn)}"


@functools.lru_cache(maxsize=4096)
def lambda_body(fn: types.FunctionType) -> str:
    """The text of a lambda's body (`jnp.reshape(jnp.ones(6), (4,))`), as written when it fits on one
    line; the function's name when `fn` is not a lambda."""
    node = _lambda_node(fn)
    if node is None:
        return fn.__name__
    body = node.body
    if body.lineno != body.end_lineno or body.end_col_offset is None:
        return ast.unparse(body)
    line = linecache.getline(fn.__code__.co_filename, body.lineno).encode()  # offsets count bytes
    return line[body.col_offset : body.end_col_offset].decode()


def _parsed(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _source_of(filename: str) -> str:
    return "".join(linecache.getlines(filename))


@functools.lru_cache(maxsize=64)
def _lambdas_in(filename: str) -> dict[int, list[ast.Lambda]]:
    """The lambda expressions of a file, by line (parsed once: catalogues ask for hundreds)."""
    try:
        tree = ast.parse(_source_of(filename))
    except SyntaxError:
        return {}
    found: dict[int, list[ast.Lambda]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            found.setdefault(node.lineno, []).append(node)
    return found


@functools.lru_cache(maxsize=4096)
def _lambda_node(fn: types.FunctionType) -> ast.Lambda | None:
    """The lambda expression that made `fn`, found in its file by line, argument names and, where
    several lambdas on a line have the same arguments, by the column of its code."""
    code = fn.__code__
    if fn.__name__ != "<lambda>":
        return None
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    names += [code.co_varnames[len(names) + i] for i in range(bool(code.co_flags & 4) + bool(code.co_flags & 8))]
    candidates = [
        node for node in _lambdas_in(code.co_filename).get(code.co_firstlineno, [])
        if [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        + [a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None] == names
    ]  # fmt: skip
    if len(candidates) > 1:
        starts = [(line, col) for line, end_line, col, end_col in code.co_positions()  # not RESUME's (0, 0)
                  if None not in (line, end_line, col, end_col) and (end_line, end_col) > (line, col)]  # fmt: skip
        first = min(starts, default=None)
        if first is not None:
            inside = [n for n in candidates if (n.body.lineno, n.body.col_offset) <= first
                      <= (n.body.end_lineno or n.body.lineno, n.body.end_col_offset or 0)]  # fmt: skip
            candidates = inside or candidates
    return candidates[0] if len(candidates) == 1 else None


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
    text = re.sub(r"\n\s*\n", "\n", text)  # no blank lines between the blocks of 3-d arrays: a
    return f"np.array({text}, dtype={dtype})"  # program holds none, the message follows a blank line


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
