"""Load the implementation under test and wrap it in one small adapter (conformance suite).

An implementation is real `jax`, a didax stage (`01_eval`), a folder (a package folder, or a folder
holding one package, whatever the package is called), or any importable module that looks like jax:
it has `numpy`, `lax`, `tree_util`, `config`, `dtypes` and `numpy_dtype_promotion`, and it declares
what it can do in `__capabilities__`. Names it lacks are reported per test as "missing: jnp.floor"
(see `missing.py`); only an implementation that cannot be imported at all stops the run.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from conformance import coverage
from conformance.missing import Missing, Namespace, unwrap

ALL_CAPABILITIES = ("eval", "jvp", "vmap", "jaxpr", "jit", "vjp", "sharding")
# A module that says nothing about itself can at least evaluate.
DEFAULT_CAPABILITIES = ("eval",)

REPO_ROOT = Path(__file__).resolve().parent.parent
STAGES_DIR = REPO_ROOT / "stages"
STAGE_ID = re.compile(r"\d\d_\w+")

# The suite's defaults, which are JAX's: 32-bit types, standard promotion.
SUITE_FLAGS: dict[str, object] = {"jax_enable_x64": False, "jax_numpy_dtype_promotion": "standard"}
# Set for the tests of random numbers (fixture `random_flags`), where an implementation has the flag:
# JAX 0.10.2 (its default) and didax (always) make random bits the "partitionable" way; older JAX
# releases only with this flag on (False by default in 0.4.38), so they are compared like with like.
RANDOM_FLAGS: dict[str, object] = {"jax_threefry_partitionable": True}
# The sharding area maps over 8 CPU devices. JAX (and didax, as JAX) fixes how many CPU devices there
# are when its backend starts, at the first operation, and refuses to change it later: the plugin
# sets this as soon as it has loaded an implementation that declares "sharding", before any test runs.
DEVICE_FLAGS: dict[str, object] = {"jax_num_cpu_devices": 8}

# The kinds of implementation; the site's matrix shows stages, jax and the suite's reference adapters.
KINDS = ("stage", "jax", "reference", "folder", "module")
REFERENCE_PACKAGE = "conformance.adapters"


class ImplLoadError(Exception):
    """The --impl value names nothing that can be loaded."""


@dataclass(frozen=True, repr=False)
class Impl:
    """The implementation under test, seen through the few names the suite uses.

    `numpy`, `lax`, `tree_util`, `config` and `dtypes` are `Namespace` proxies: a name the
    implementation lacks raises `Missing`. `module` is the implementation's top module itself.
    """

    name: str
    module: ModuleType
    capabilities: frozenset[str]
    kind: str = "module"
    description: str = ""
    # How a pasted program gets the implementation as `jax` (see reproduce.py).
    import_lines: tuple[str, ...] = ()
    # Names its results file: `name`, but for a folder also where it is (two packages of one name
    # in different folders are different implementations).
    results_id: str = ""
    numpy: Any = field(init=False)
    lax: Any = field(init=False)
    tree_util: Any = field(init=False)
    config: Any = field(init=False)
    dtypes: Any = field(init=False)

    def __post_init__(self) -> None:
        if not self.results_id:
            object.__setattr__(self, "results_id", self.name)
        for attr, label in [("numpy", "jnp"), ("lax", "lax"), ("tree_util", "tree_util"),
                            ("dtypes", "jax.dtypes")]:  # fmt: skip
            object.__setattr__(self, attr, Namespace(_submodule(self.module, attr), label))
        object.__setattr__(self, "config", Namespace(getattr(self.module, "config", None), "jax.config"))

    @property
    def numpy_dtype_promotion(self) -> Callable[[str], AbstractContextManager[Any]]:
        return Namespace(self.module, "jax").numpy_dtype_promotion

    @property
    def TypePromotionError(self) -> type[Exception]:  # noqa: N802 (JAX's name)
        return self.dtypes.TypePromotionError

    def __repr__(self) -> str:  # short, because hypothesis prints it in every falsifying example
        return f"Impl({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # what hypothesis's printer calls
        printer.text(repr(self))


def newest_stage() -> str | None:
    """The id of the last stage folder that holds a didax package, e.g. '01_eval'."""
    found = sorted(p.parent.parent.name for p in STAGES_DIR.glob("*/didax/__init__.py"))
    return found[-1] if found else None


def load(spec: str) -> Impl:
    """Load `spec`: 'jax', a stage id, a folder (a package, or holding one), or a module name."""
    return coverage.maybe_record(_load(spec))  # recording proxies, when conformance/meta asks


def _load(spec: str) -> Impl:
    if spec == "jax":
        return _load_jax()
    if STAGE_ID.fullmatch(spec) and (STAGES_DIR / spec / "didax").is_dir():
        return _load_stage(spec)
    if Path(spec).is_dir():
        return _load_folder(Path(spec))
    if "/" in spec or spec.startswith("."):
        raise ImplLoadError(f"--impl={spec!r}: no such folder")
    return _load_module(spec)


def wrap(module: ModuleType, name: str, kind: str = "module", description: str = "",
         import_lines: tuple[str, ...] = (), results_id: str = "") -> Impl:  # fmt: skip
    """Build the adapter around an already imported module."""
    return Impl(name=name, module=module, capabilities=capabilities_of(module), kind=kind,
                description=description or _first_doc_line(module),
                import_lines=import_lines or module_import_lines(module), results_id=results_id)  # fmt: skip


def module_import_lines(module: ModuleType) -> tuple[str, ...]:
    """How a program imports `module` as `jax` from any folder: its top package's folder goes first
    on sys.path unless it is part of the Python installation (the standard library, site-packages)."""
    where = path_entry_of(module.__name__)
    paths = ("import sys", f"sys.path.insert(0, {str(where)!r})") if where is not None else ()
    return (*paths, f"import {module.__name__} as jax")


def path_entry_of(module_name: str) -> Path | None:
    """The sys.path folder from which the top package of `module_name` was imported; None where that
    is the Python installation itself (any program run by that Python finds it) or unknown."""
    top = sys.modules.get(module_name.split(".")[0])
    file = getattr(top, "__file__", None)
    if file is None:
        return None
    source = Path(file).absolute()
    where = source.parent.parent if source.name == "__init__.py" else source.parent
    installed = {Path(p).absolute() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    if any(where.is_relative_to(p) or where.resolve().is_relative_to(p.resolve()) for p in installed):
        return None
    return where


def capabilities_of(module: ModuleType) -> frozenset[str]:
    """jax can do everything; anything else says what it can do in `__capabilities__`."""
    if module.__name__ == "jax":
        return frozenset(ALL_CAPABILITIES)
    declared = tuple(getattr(module, "__capabilities__", DEFAULT_CAPABILITIES))
    unknown = set(declared) - set(ALL_CAPABILITIES)
    if unknown:
        raise ImplLoadError(f"{module.__name__}.__capabilities__ has unknown entries {sorted(unknown)}")
    return frozenset(declared)


# --- the kinds of implementation -----------------------------------------------------------------


def _load_jax() -> Impl:
    """The reference row `jax` is the release the lock file pins; any other release (an older one in
    its own virtualenv, see other_jax.py) is a row of its own, `jax-<version>`, so that it never
    overwrites the reference's results."""
    import jax

    version, reference = jax.__version__, reference_jax_version()
    if reference is None or version == reference:
        return wrap(jax, "jax", "jax", f"real JAX {version}, the reference", ("import jax",))
    import jaxlib
    import numpy

    where = _shown_path(Path(sys.prefix))
    description = (f"real JAX {version} (jaxlib {jaxlib.__version__}, NumPy {numpy.__version__}) in "
                   f"{where}, {_older_or_newer(version, reference)} the reference {reference}")
    return wrap(jax, f"jax-{version}", "jax", description,
                (f"# with {where}/bin/python, which has JAX {version}", "import jax"))


def reference_jax_version(lock: Path = REPO_ROOT / "requirements" / "lock.txt") -> str | None:
    """The JAX release the lock file pins (the reference row `jax`); None where there is no lock file
    (the suite installed as a distribution elsewhere), and then any JAX is `jax`."""
    try:
        text = lock.read_text()
    except OSError:
        return None
    found = re.search(r"^jax==(\S+)\s*$", text, re.MULTILINE)
    return found.group(1) if found else None


def _older_or_newer(version: str, reference: str) -> str:
    def key(v: str) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", v))

    return "an older release than" if key(version) < key(reference) else "a newer release than"


def _load_stage(stage: str) -> Impl:
    module = _load_package(STAGES_DIR / stage / "didax", f"didax_{stage}")
    lines = ("import sys", f"sys.path.insert(0, {str(STAGES_DIR / stage)!r})", "import didax as jax")
    return wrap(module, stage, "stage", f"didax stage {stage}", lines)


def _load_folder(folder: Path) -> Impl:
    """A package folder (it has __init__.py) or a folder holding one package (didax/ preferred)."""
    package = _package_in(folder.resolve())
    if imports_itself(package):
        module = _load_by_own_name(package)
    else:
        module = _load_package(package, _unique_name(package))
    lines = ("import sys", f"sys.path.insert(0, {str(package.parent)!r})", f"import {package.name} as jax")
    name = folder_impl_name(folder.resolve())
    results_id = f"{name}-{_digest(package)}"
    return wrap(module, name, "folder", f"package {package.name} in {_shown_path(package)}", lines, results_id)


def _load_module(spec: str) -> Impl:
    try:
        module = importlib.import_module(spec)
    except ImportError as err:
        raise ImplLoadError(
            f"--impl={spec!r} is not 'jax', a stage under {STAGES_DIR}, a folder, or an importable "
            f"module ({err})"
        ) from err
    name = str(getattr(module, "__conformance_name__", spec))
    kind = "reference" if spec.startswith(REFERENCE_PACKAGE + ".") else "module"
    return wrap(module, name, kind)


def folder_impl_name(folder: Path) -> str:
    """A folder's implementation is named after the folder, never after a stage or jax: an exercise
    copy (build/exercises/01_eval) is "exercise-01_eval", another folder named like a stage
    "folder-01_eval"."""
    is_didax_itself = folder.name == "didax" and (folder / "__init__.py").is_file()
    name = folder.parent.name if is_didax_itself else folder.name
    if "exercises" in folder.parts or (folder / ".exercise.json").is_file():
        return f"exercise-{name}"
    if STAGE_ID.fullmatch(name) or name == "jax":
        return f"folder-{name}"
    return name


def _package_in(folder: Path) -> Path:
    if (folder / "__init__.py").is_file():
        return folder
    if (folder / "didax" / "__init__.py").is_file():
        return folder / "didax"
    packages = sorted(p.parent for p in folder.glob("*/__init__.py") if p.parent.name.isidentifier())
    packages = [p for p in packages if p.name not in ("tests", "examples")]
    if len(packages) != 1:
        found = ", ".join(p.name for p in packages) or "none"
        raise ImplLoadError(f"{folder} is not a package and does not hold exactly one (found: {found})")
    return packages[0]


def _shown_path(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _first_doc_line(module: ModuleType) -> str:
    """The first sentence of the module's docstring (or its name)."""
    paragraph = (module.__doc__ or module.__name__).strip().split("\n\n")[0]
    return " ".join(paragraph.split()).split(". ")[0].split(": ")[0].rstrip(".")


# --- flags ---------------------------------------------------------------------------------------


def read_flag(impl: Impl, name: str) -> object:
    """The current value of a config flag; JAX exposes flags as attributes of `config`."""
    config = unwrap(impl.config)
    value = getattr(config, name, None)
    if value is None and hasattr(config, "read"):
        value = config.read(name)
    return SUITE_FLAGS[name] if value is None else value


def has_flag(impl: Impl, name: str) -> bool:
    """Whether the implementation has the config flag `name` (as JAX's `config.<name>`)."""
    try:
        return hasattr(unwrap(impl.config), name)
    except Missing:
        return False


def set_suite_flags(impl: Impl) -> None:
    """Put the suite's default flags in place; an implementation without `config` gets its
    "missing: jax.config" in the tests that set a flag."""
    for name, value in SUITE_FLAGS.items():
        try:
            impl.config.update(name, value)
        except Missing:
            return


def set_device_flags(impl: Impl) -> None:
    """Ask an implementation that declares "sharding" for the devices of DEVICE_FLAGS (where it has
    the flag); the others keep their one device. Where its backend has started already (another tool
    in this process ran an operation first), the devices stay as they are and the sharding area's
    tests say how many they found."""
    if "sharding" not in impl.capabilities:
        return
    for name, value in DEVICE_FLAGS.items():
        if has_flag(impl, name):
            try:
                impl.config.update(name, value)
            except RuntimeError:  # JAX's "should be updated before backends are initialized"
                pass
        elif name == "jax_num_cpu_devices":  # older JAX (0.4.30) has no flag: XLA's, read at backend start
            flags = os.environ.get("XLA_FLAGS", "")
            if "xla_force_host_platform_device_count" not in flags:
                os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={value}".strip()


@contextmanager
def restored_flags(impl: Impl) -> Iterator[Callable[[str, object], None]]:
    """Hand out a setter for config flags; on exit, put back every flag it changed."""
    saved: dict[str, object] = {}

    def set_flag(name: str, value: object) -> None:
        saved.setdefault(name, read_flag(impl, name))
        impl.config.update(name, value)

    try:
        yield set_flag
    finally:
        for name, value in saved.items():
            impl.config.update(name, value)


# --- importing -----------------------------------------------------------------------------------


def _load_package(folder: Path, module_name: str) -> ModuleType:
    """Import the package in `folder` as `module_name`; it works because a package imports itself
    relatively. Any error while importing it is an ImplLoadError, which pytest shows as a usage error."""
    if module_name in sys.modules:
        return sys.modules[module_name]
    init = folder / "__init__.py"
    if not init.is_file():
        raise ImplLoadError(f"{folder} has no __init__.py")
    spec = importlib.util.spec_from_file_location(module_name, init, submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before exec, so the package's relative imports find it
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        for name in [n for n in sys.modules if n == module_name or n.startswith(module_name + ".")]:
            del sys.modules[name]
        raise ImplLoadError(f"importing {folder} failed: {type(err).__name__}: {err}") from err
    return module


def imports_itself(package: Path) -> bool:
    """Whether a module of the package imports the package by its own name (`from mylib import x`,
    `import mylib.sub`), not only relatively. Such a package works only under that name."""
    for source in sorted(package.rglob("*.py")):
        try:
            tree = ast.parse(source.read_text(encoding="utf-8", errors="replace"), str(source))
        except SyntaxError:
            continue  # importing it will say so
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                named = [node.module]
            else:
                continue
            if any(name == package.name or name.startswith(package.name + ".") for name in named):
                return True
    return False


def _load_by_own_name(package: Path) -> ModuleType:
    """Import a package that imports itself by name under that name, its parent folder first on
    sys.path, so that it is loaded exactly once; refuse when another module of that name is
    imported already or would be found first."""
    name, init = package.name, (package / "__init__.py").resolve()
    loaded = sys.modules.get(name)
    if loaded is not None and not _is_file(loaded, init):
        raise ImplLoadError(
            f"{package} imports itself as {name!r}, but a different module {name!r} is already imported "
            f"(from {getattr(loaded, '__file__', None) or 'nowhere'}); run the suite in a process where "
            f"{name!r} is not imported (remove what imports it, e.g. a conftest or plugin), or rename the package"
        )
    if loaded is None:
        parent = str(package.parent)
        if sys.path[:1] != [parent]:
            sys.path.insert(0, parent)  # first, so that no other package of that name shadows it
        try:
            loaded = importlib.import_module(name)
        except Exception as err:
            for stale in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
                del sys.modules[stale]
            raise ImplLoadError(f"importing {package} as {name!r} failed: {type(err).__name__}: {err}") from err
        if not _is_file(loaded, init):
            raise ImplLoadError(
                f"{package} imports itself as {name!r}, but importing {name!r} found "
                f"{getattr(loaded, '__file__', None)} first; put {package.parent} first on PYTHONPATH "
                f"or uninstall the other {name!r}"
            )
    return loaded


def _is_file(module: ModuleType, init: Path) -> bool:
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).resolve() == init


def _unique_name(folder: Path) -> str:
    """A module name for a package folder that cannot clash with another folder's."""
    stem = re.sub(r"\W", "_", folder.name if folder.name != "didax" else folder.parent.name)
    return f"conformance_impl_{stem}_{_digest(folder)}"


def _digest(folder: Path) -> str:
    """Eight hex digits that tell one folder from another."""
    return hashlib.sha1(str(folder).encode()).hexdigest()[:8]


def _submodule(module: ModuleType, name: str) -> ModuleType | None:
    """`module.<name>`, imported if it is a submodule not yet imported; None if there is none."""
    found = getattr(module, name, None)
    if found is not None or not hasattr(module, "__path__"):  # not a package: no submodules
        return found
    try:
        return importlib.import_module(f"{module.__name__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{module.__name__}.{name}":
            raise  # the submodule exists but imports something that does not
        return None
