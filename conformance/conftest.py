"""The conformance plugin: pick the implementation under test, skip what it cannot do as not
applicable, keep config flags clean between tests, and write the results matrix file.

    pytest conformance --impl=01_eval        # or jax, a folder holding didax/, a module name
    CONFORMANCE_IMPL=jax pytest conformance  # the option wins over the variable
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from conformance.impl import SUITE_FLAGS, Impl, load, newest_stage, restored_flags
from conformance.results import NOT_APPLICABLE, Recorder

HERE = Path(__file__).resolve().parent
META_DIR = HERE / "meta"
DEFAULT_RESULTS_DIR = HERE.parent / "build" / "conformance"

# --- hypothesis profiles ---------------------------------------------------------------------------
# The function-scoped fixtures used with @given (`flags`, `x64`) only set global flags, which is the
# same for every example, so hypothesis's warning about them does not apply. JAX compiles each new
# shape on first use, which makes some first examples slow; that is not a problem in the test.
_QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
settings.register_profile(
    "ci", derandomize=True, max_examples=25, deadline=None, print_blob=True, suppress_health_check=_QUIET
)
settings.register_profile(
    "full", max_examples=1000, deadline=None, print_blob=True, suppress_health_check=_QUIET
)
# hypothesis's own --hypothesis-profile option, applied later by its plugin, overrides this.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_IMPL = pytest.StashKey[Impl]()
_RECORDER = pytest.StashKey[Recorder]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption(
        "--impl",
        default=None,
        help="implementation under test: a stage id (01_eval), 'jax', a folder holding didax/, or a "
        "module name; default $CONFORMANCE_IMPL, else the newest stage",
    )
    group.addoption(
        "--results-dir",
        default=str(DEFAULT_RESULTS_DIR),
        help="where <impl>.json goes (default: build/conformance next to this folder)",
    )
    group.addoption(
        "--area",
        action="append",
        default=[],
        help="run only tests of this area (numpy, lax, promotion, pytrees, errors, random, nn); repeatable",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "area(name): the conformance area a test belongs to")
    config.addinivalue_line("markers", "requires(*capabilities): what the implementation must be able to do")
    # Asking for a 64-bit dtype while x64 is off makes JAX warn before it truncates; the suite does
    # that on purpose, to test the truncation.
    config.addinivalue_line("filterwarnings", "ignore:Explicitly requested dtype:UserWarning")
    recorder = Recorder(Path(config.getoption("--results-dir")))
    config.stash[_RECORDER] = recorder
    config.pluginmanager.register(recorder, "conformance-results")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The meta-tests run the suite in subprocesses: collect them only when their folder is named."""
    if collection_path != META_DIR:
        return None
    named = (config.invocation_params.dir / arg.split("::")[0] for arg in config.args)
    return not any(path.resolve().is_relative_to(META_DIR) for path in named)


def impl_under_test(config: pytest.Config) -> Impl:
    """Load the implementation once per session, with the suite's default flags."""
    if _IMPL not in config.stash:
        spec = config.getoption("--impl") or os.environ.get("CONFORMANCE_IMPL") or newest_stage()
        if spec is None:
            raise pytest.UsageError("no stage with a didax package yet: pass --impl=jax or another impl")
        impl = load(spec)
        for name, value in SUITE_FLAGS.items():
            impl.config.update(name, value)
        config.stash[_IMPL] = impl
        recorder = config.stash[_RECORDER]
        recorder.impl_name, recorder.capabilities = impl.name, sorted(impl.capabilities)
    return config.stash[_IMPL]


def is_conformance_test(item: pytest.Item) -> bool:
    return item.path.is_relative_to(HERE) and not item.path.is_relative_to(META_DIR)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the chosen areas; record each test's area; mark what the impl cannot do not applicable."""
    if not any(is_conformance_test(item) for item in items):
        return  # e.g. the meta-tests alone: no implementation to load
    _deselect_other_areas(config, items)
    impl = impl_under_test(config)
    recorder = config.stash[_RECORDER]
    for item in filter(is_conformance_test, items):
        area = item.get_closest_marker("area")
        if area is None:
            raise pytest.UsageError(f"{item.nodeid} has no pytest.mark.area(...)")
        recorder.expect(item.nodeid, area.args[0])
        missing = _required(item) - impl.capabilities
        if missing:
            needs, has = ", ".join(sorted(missing)), ", ".join(sorted(impl.capabilities)) or "nothing"
            item.add_marker(
                pytest.mark.skip(reason=f"{NOT_APPLICABLE} needs {needs}; {impl.name} declares {has}")
            )


def _required(item: pytest.Item) -> set[str]:
    """Capabilities named by all `requires` markers on the test, its class and its module."""
    needed = {cap for mark in item.iter_markers("requires") for cap in mark.args}
    return needed or {"eval"}


def _deselect_other_areas(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = {area for option in config.getoption("--area") for area in option.split(",") if area}
    if not wanted:
        return
    keep, drop = [], []
    for item in items:
        marker = item.get_closest_marker("area")
        (keep if marker is not None and marker.args[0] in wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# --- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Impl:
    return impl_under_test(request.config)


FlagSetter = Callable[[str, object], None]


@pytest.fixture
def flags(impl: Impl) -> Iterator[FlagSetter]:
    """Set config flags for one test (`flags("jax_enable_x64", True)`); each is restored afterwards."""
    with restored_flags(impl) as set_flag:
        yield set_flag


@pytest.fixture(params=[False, True], ids=["x64_off", "x64_on"])
def x64(request: pytest.FixtureRequest, flags: FlagSetter) -> bool:
    """Run the test with 64-bit types off and on."""
    flags("jax_enable_x64", request.param)
    return request.param
