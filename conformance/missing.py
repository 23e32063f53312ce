"""Telling "the implementation lacks this name" apart from "the implementation is wrong".

The suite reaches an implementation's functions through `Namespace` proxies (`impl.numpy`,
`impl.lax`, ...). Looking up a name the implementation does not have raises `Missing("jnp.floor")`
instead of an AttributeError, and every lookup is remembered for the running test, so that the plugin
can report the test as "missing: jnp.floor" (its own outcome, not a failure and never pytest's
INTERNALERROR), and the matrix can tell which function a test exercised.

`Missing` is deliberately not an AttributeError: a test that expects an AttributeError from a misuse
must not pass because the function it calls does not exist.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, ModuleType, TracebackType
from typing import Any

SUITE_DIR = Path(__file__).resolve().parent


class Missing(Exception):
    """The implementation has no `what` (e.g. "jnp.floor", "lax.erf", "jax.config")."""

    def __init__(self, what: str) -> None:
        super().__init__(f"missing: {what}")
        self.what = what


class MissingStop(BaseException):
    """A missing name met inside a hypothesis example, carried out of it at once. Hypothesis shrinks
    and explains every `Exception` a test raises, replaying the test dozens of times to learn only
    that the name is still missing (minutes per test on the `ci` profile); a BaseException it lets
    through. The plugin reports the exception it carries (`original`) as missing."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


class Lookups:
    """The names looked up (and the names found missing) through the proxies since the last reset."""

    def __init__(self) -> None:
        self.used: list[str] = []
        self.missing: list[str] = []

    def reset(self) -> None:
        self.used.clear()
        self.missing.clear()

    def note_used(self, what: str) -> None:
        if what not in self.used:
            self.used.append(what)

    def note_missing(self, what: str) -> None:
        if what not in self.missing:
            self.missing.append(what)


LOOKUPS = Lookups()


class Namespace:
    """A module of the implementation, seen under the name the suite's programs use ("jnp", "lax").

    Attribute lookups go to the module; a name it lacks raises `Missing`. `module` may be None when
    the implementation has no such module at all: then every name is missing.
    """

    __slots__ = ("_label", "_module")

    def __init__(self, module: Any, label: str) -> None:
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_label", label)

    def __getattr__(self, name: str) -> Any:
        module = object.__getattribute__(self, "_module")
        label = object.__getattribute__(self, "_label")
        what = f"{label}.{name}"
        try:
            found = getattr(module, name)
        except AttributeError:
            if name.startswith("_") or not _asked_by_a_test(sys._getframe(1)):
                raise  # a tool probing with getattr(x, name, default): hypothesis, pytest, copy, ...
            LOOKUPS.note_missing(what)
            raise Missing(what) from None
        LOOKUPS.note_used(what)
        return found

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError(f"the suite does not change {object.__getattribute__(self, '_label')}")

    def __dir__(self) -> list[str]:
        module = object.__getattribute__(self, "_module")
        return dir(module) if module is not None else []

    def __repr__(self) -> str:
        module = object.__getattribute__(self, "_module")
        label = object.__getattribute__(self, "_label")
        return f"<{label}: {getattr(module, '__name__', 'missing')}>"


# The coverage recorder (coverage.py) wraps the proxies: it only passes a lookup on, so the caller
# that counts is the one before it (hypothesis probing a `tu` fixture, say, is not a test asking).
_RECORDER_FILE = str(SUITE_DIR / "coverage.py")


def _asked_by_a_test(frame: FrameType) -> bool:
    """Whether a lookup comes from the suite's code or a test file (not from a library probing)."""
    while frame.f_back is not None and frame.f_code.co_filename == _RECORDER_FILE:
        frame = frame.f_back
    filename = frame.f_code.co_filename
    if filename.startswith("<") and filename.endswith(" case>"):  # a table's program, compiled by a test
        return True
    path = Path(filename)
    return path.name.startswith(("test_", "conftest")) or path.resolve().parent == SUITE_DIR


def unwrap(namespace: Any) -> Any:
    """The module behind a Namespace (None when missing); anything else unchanged."""
    if isinstance(namespace, Namespace):
        return object.__getattribute__(namespace, "_module")
    return namespace


# --- classifying a test's exception --------------------------------------------------------------


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, such as hypothesis's multiple failures."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


def missing_name(exc: BaseException, impl_module: str) -> str | None:
    """The missing name an exception reports, or None if it reports something else.

    - `Missing` from a Namespace proxy: its name.
    - An AttributeError raised by the suite's own code (the innermost frame is a file of the suite,
      not of the implementation), e.g. `x.weak_type` on an array or `impl.module.random`.
    - A ModuleNotFoundError for a submodule of the implementation (`<impl>.tree`).
    An AttributeError raised inside the implementation is a bug of the implementation, not a gap.
    """
    if isinstance(exc, Missing):
        return exc.what
    if isinstance(exc, ModuleNotFoundError) and exc.name and exc.name.startswith(impl_module + "."):
        return "jax" + exc.name.removeprefix(impl_module)
    if isinstance(exc, AttributeError) and exc.name and _raised_by_the_suite(exc.__traceback__):
        return f"{_owner(exc.obj, impl_module)}.{exc.name}"
    return None


def missing_names(exc: BaseException, impl_module: str) -> list[str] | None:
    """Every missing name of an exception (group), or None unless all its parts report one."""
    names = [missing_name(leaf, impl_module) for leaf in leaves(exc)]
    if not names or any(name is None for name in names):
        return None
    return sorted(set(names))  # type: ignore[arg-type]


def _raised_by_the_suite(tb: TracebackType | None) -> bool:
    frames = traceback.extract_tb(tb)
    return bool(frames) and Path(frames[-1].filename).resolve().parent == SUITE_DIR


def _owner(obj: Any, impl_module: str) -> str:
    """A readable name for what lacked the attribute: "jax.random" for the implementation's modules
    (whatever it is really called), "Array" for anything with a dtype ("Array.weak_type"), else the
    type's name."""
    if isinstance(obj, ModuleType):
        name = obj.__name__
        if name == impl_module or name.startswith(impl_module + "."):
            return "jax" + name.removeprefix(impl_module)
        return name
    return "Array" if hasattr(obj, "dtype") else type(obj).__name__
