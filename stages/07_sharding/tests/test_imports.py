"""The package's modules form a hierarchy: no module imports, directly or through others, a module
that imports it back, and no function body imports a didax module to hide such a cycle.

Read from the source (the AST), so a cycle is found even where the import order of
``didax/__init__.py`` happens to make it work. Importing ``didax.a.b`` runs ``didax/a/__init__.py``
first, so a package's ``__init__`` counts as imported by every import of a module inside it.
"""

import ast
import random
import subprocess
import sys
from pathlib import Path

STAGE = Path(__file__).resolve().parents[1]
PACKAGE = STAGE / "didax"

# Function-local imports of didax modules that are allowed, each with why: (module, function).
ALLOWED_LOCAL_IMPORTS: dict[tuple[str, str], str] = {
    ("didax.core", "__getattr__"): "core.eval_jaxpr is JAX's name, but jaxpr.py imports core",
    # vmap's rules (batching.py) are written with lax, so batching sits above lax; these two lax
    # functions call vmap at run time, never at import.
    ("didax.lax.loops", "map"): "lax.map with batch_size runs vmap(f) on each batch",
    ("didax.lax.slicing", "_apply_per_update"): "scatter_apply's evaluation runs its function under vmap",
}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, whether it is a package's __init__)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(STAGE).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _modules()


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name an import names (``from ..x import y`` inside didax.a.b is didax.x)."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The didax modules an import statement loads (``from . import x`` loads the module x)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name.split(".")[0] == "didax"}
    target = _target(module, is_package, node)
    if target.split(".")[0] != "didax":
        return set()
    return {f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names}


def _top_level_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is loaded (not those under ``if TYPE_CHECKING``)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            found += _top_level_imports(node.body) + _top_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            found += _top_level_imports(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                found += _top_level_imports(handler.body)
        elif isinstance(node, ast.ClassDef):
            found += _top_level_imports(node.body)
    return found


def _graph() -> dict[str, set[str]]:
    """module -> the modules loading it loads directly, with the packages around them (not the
    packages around the importing module itself, which are already being loaded)."""
    graph = {}
    for module, (path, is_package) in MODULES.items():
        edges = set()
        for node in _top_level_imports(ast.parse(path.read_text()).body):
            for name in _imported(module, is_package, node):
                parts = name.split(".")
                for i in range(2, len(parts) + 1):  # didax.a.b loads didax.a first (didax itself always)
                    outer = ".".join(parts[:i])
                    if outer in MODULES and not (module == outer or module.startswith(outer + ".")):
                        edges.add(outer)
        graph[module] = edges
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as the modules along it, or None (a depth-first search)."""
    state: dict[str, str] = {}  # 'open' while on the path, 'done' after

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := visit(nxt, path + [node])):
                return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def test_the_module_imports_form_no_cycle():
    cycle = _cycle(_graph())
    assert cycle is None, "an import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def _local_imports(body: list[ast.stmt], function: str | None = None) -> list[tuple[str, ast.stmt]]:
    """(innermost enclosing function, import) for each import inside a function."""
    found = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _local_imports(node.body, node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found += [(function, node)] if function else []
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                found += _local_imports(getattr(node, field, []), function)
    return found


def test_no_function_imports_a_didax_module():
    local = {}
    for module, (path, is_package) in MODULES.items():
        for function, node in _local_imports(ast.parse(path.read_text()).body):
            if _imported(module, is_package, node):
                local[(module, function)] = f"{path.relative_to(STAGE)}:{node.lineno}"
    unexpected = {key: where for key, where in local.items() if key not in ALLOWED_LOCAL_IMPORTS}
    assert not unexpected, f"imports inside functions (import at the top, or break the cycle): {unexpected}"
    unused = set(ALLOWED_LOCAL_IMPORTS) - set(local)
    assert not unused, f"allowed local imports that no longer exist: {unused}"


def test_every_module_imports_in_any_order():
    names = sorted(MODULES)
    random.Random(0).shuffle(names)
    source = "import importlib\nfor name in %r:\n    importlib.import_module(name)\n" % names
    result = subprocess.run([sys.executable, "-c", source], cwd=STAGE, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_only_jit_and_devices_load_xla():
    """array.py does not import xla.py (jit.py gives it the module): of the package's modules, only
    jit.py and devices.py load it, and so jaxlib, and shard_map.py through jit (an eager shard_map
    is jit of it), pmap.py, jit of a shard_map, and distributed.py, which starts jaxlib's
    coordination service through xla.py."""
    graph = _graph()

    def loads(module: str) -> set[str]:
        seen, todo = set(), [module]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    assert {m for m in graph if "didax.xla" in loads(m)} == {"didax", "didax.jit", "didax.devices", "didax.shard_map",
                                                                  "didax.pmap", "didax.distributed"}


def test_eager_math_and_transformations_run_without_jaxlib():
    """``import didax`` loads jit, so jaxlib, as ``import jax`` does; the eager modules under it do
    not. With the package's __init__ bypassed, numpy, jvp, vmap, random and make_jaxpr run, and
    jaxlib is never loaded."""
    source = """
import sys, types
package = types.ModuleType("didax"); package.__path__ = ["didax"]; sys.modules["didax"] = package
import numpy as np
import didax.numpy as jnp, didax.ad as ad, didax.batching as batching, didax.random as random, didax.staging as staging
x = jnp.sin(jnp.arange(3.0)) * 2
np.testing.assert_allclose(np.asarray(x), np.sin(np.arange(3.0)) * 2, rtol=1e-6)
_, t = ad.jvp(jnp.sin, (1.0,), (1.0,))
np.testing.assert_allclose(float(t), np.cos(1.0), rtol=1e-6)
np.testing.assert_allclose(np.asarray(batching.vmap(jnp.cos)(jnp.ones(2))), np.cos(np.ones(2)), rtol=1e-6)
random.normal(random.key(0), (2,))
staging.make_jaxpr(lambda v: v * 2)(1.0)
assert "jaxlib" not in sys.modules and "didax.xla" not in sys.modules, sorted(sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", source], cwd=STAGE, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
