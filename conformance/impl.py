"""Load the implementation under test and wrap it in one small adapter (conformance suite).

An implementation is real `jax`, a didax stage (`01_eval`), a folder holding a `didax/` package, or any
importable module that looks like jax: it has `numpy`, `lax`, `tree_util`, `config`, `dtypes` and
`numpy_dtype_promotion`, and it declares what it can do in `__capabilities__`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from conformance import coverage

ALL_CAPABILITIES = ("eval", "jvp", "vmap", "jaxpr", "jit", "vjp", "sharding")
# A module that says nothing about itself can at least evaluate.
DEFAULT_CAPABILITIES = ("eval",)

REPO_ROOT = Path(__file__).resolve().parent.parent
STAGES_DIR = REPO_ROOT / "stages"

# The suite's defaults, which are JAX's: 32-bit types, standard promotion.
SUITE_FLAGS: dict[str, object] = {"jax_enable_x64": False, "jax_numpy_dtype_promotion": "standard"}


class ImplLoadError(Exception):
    """The --impl value names nothing that can be loaded."""


@dataclass(frozen=True, repr=False)
class Impl:
    """The implementation under test, seen through the few names the suite uses."""

    name: str
    module: ModuleType
    numpy: Any
    lax: Any
    tree_util: Any
    config: Any
    numpy_dtype_promotion: Callable[[str], AbstractContextManager[Any]]
    TypePromotionError: type[Exception]
    capabilities: frozenset[str]

    def __repr__(self) -> str:  # short, because hypothesis prints it in every falsifying example
        return f"Impl({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # what hypothesis's printer calls
        printer.text(repr(self))


def newest_stage() -> str | None:
    """The id of the last stage folder that holds a didax package, e.g. '01_eval'."""
    found = sorted(p.parent.parent.name for p in STAGES_DIR.glob("*/didax/__init__.py"))
    return found[-1] if found else None


def load(spec: str) -> Impl:
    """Load `spec` (a stage id, 'jax', a folder holding didax/, or a module name) and wrap it."""
    stage_pkg = STAGES_DIR / spec / "didax"
    folder_pkg = Path(spec) / "didax"
    if spec == "jax":
        module, name = importlib.import_module("jax"), "jax"
    elif re.fullmatch(r"\d\d_\w+", spec) and stage_pkg.is_dir():
        module, name = _load_package(stage_pkg, f"didax_{spec}"), spec
    elif folder_pkg.is_dir():
        folder = folder_pkg.resolve()
        module, name = _load_package(folder, _unique_name(folder)), folder.parent.name
    else:
        try:
            module, name = importlib.import_module(spec), spec
        except ImportError as err:
            raise ImplLoadError(
                f"--impl={spec!r} is not 'jax', a stage under {STAGES_DIR}, a folder holding didax/, "
                f"or an importable module ({err})"
            ) from err
    return coverage.maybe_record(wrap(module, name))  # recording proxies, when asked for


def wrap(module: ModuleType, name: str) -> Impl:
    """Build the adapter around an already imported module."""
    return Impl(
        name=name,
        module=module,
        numpy=_submodule(module, "numpy"),
        lax=_submodule(module, "lax"),
        tree_util=_submodule(module, "tree_util"),
        config=module.config,
        numpy_dtype_promotion=module.numpy_dtype_promotion,
        TypePromotionError=_submodule(module, "dtypes").TypePromotionError,
        capabilities=capabilities_of(module),
    )


def capabilities_of(module: ModuleType) -> frozenset[str]:
    """jax can do everything; anything else says what it can do in `__capabilities__`."""
    if module.__name__ == "jax":
        return frozenset(ALL_CAPABILITIES)
    declared = tuple(getattr(module, "__capabilities__", DEFAULT_CAPABILITIES))
    unknown = set(declared) - set(ALL_CAPABILITIES)
    if unknown:
        raise ImplLoadError(f"{module.__name__}.__capabilities__ has unknown entries {sorted(unknown)}")
    return frozenset(declared)


def read_flag(impl: Impl, name: str) -> object:
    """The current value of a config flag; JAX exposes flags as attributes of `config`."""
    value = getattr(impl.config, name, None)
    if value is None and hasattr(impl.config, "read"):
        value = impl.config.read(name)
    return SUITE_FLAGS[name] if value is None else value


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


def _load_package(folder: Path, module_name: str) -> ModuleType:
    """Import the package in `folder` as `module_name`; it works because didax imports relatively."""
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
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def _unique_name(folder: Path) -> str:
    """A module name for a didax folder that cannot clash with another folder's."""
    digest = hashlib.sha1(str(folder).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", folder.parent.name)
    return f"didax_{stem}_{digest}"


def _submodule(module: ModuleType, name: str) -> Any:
    found = getattr(module, name, None)
    return found if found is not None else importlib.import_module(f"{module.__name__}.{name}")
