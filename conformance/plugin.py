"""The conformance suite as a pytest plugin: pick the implementation under test, report what it
cannot do as not applicable and what it lacks as missing, keep config flags clean between tests,
start every failure's report with a program that reproduces it, and write the results file.

    pytest conformance --impl=01_eval                  # the suite's own conftest loads this plugin
    pytest --pyargs conformance --impl=path/to/pkg     # from anywhere, once conformance is importable
    CONFORMANCE_IMPL=jax pytest conformance            # the option wins over the variable

Installed (`pip install ./conformance`), it is also the `pytest11` entry point `didax_conformance`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import UnsatisfiedAssumption

from conformance import reproduce, unroll
from conformance.checks import ReleaseDetail
from conformance.impl import (
    ALL_CAPABILITIES,
    RANDOM_FLAGS,
    Impl,
    ImplLoadError,
    has_flag,
    load,
    newest_stage,
    restored_flags,
    set_device_flags,
    set_suite_flags,
)
from conformance.missing import LOOKUPS, MissingStop, missing_names
from conformance.results import NOT_APPLICABLE, Recorder, with_program

HERE = Path(__file__).resolve().parent
META_DIR = HERE / "meta"

# --- hypothesis profiles ---------------------------------------------------------------------------
# The function-scoped fixtures used with @given (`flags`, `x64`) only set global flags, which is the
# same for every example, so hypothesis's warning about them does not apply. JAX compiles each new
# shape on first use, which makes some first examples slow; that is not a problem in the test.
_QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
# A failure is shrunk but not explained: hypothesis's explain phase reruns the shrunk example with
# each part varied, which took 15 s of 46 for one failing test on JAX (160 s for another), and the
# failure's printed program already says what was called.
settings.register_profile(
    "ci", derandomize=True, max_examples=25, deadline=None, print_blob=True, suppress_health_check=_QUIET,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
)
settings.register_profile(
    "full", max_examples=1000, deadline=None, print_blob=True, suppress_health_check=_QUIET
)
# For runs that only ask whether a test fails (the mutation tool, the meta-tests): ci's draws, the
# first failing one reported as found. Shrinking it changes no outcome and took most of such a run.
settings.register_profile(
    "ci-unshrunk", derandomize=True, max_examples=25, deadline=None, print_blob=True,
    suppress_health_check=_QUIET, phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
)
# For informational runs on implementations expected to fail often (the NumPy adapter): few examples
# and no shrinking, so that a thousand failures take seconds, not minutes; the examples are unshrunk.
settings.register_profile(
    "quick", derandomize=True, max_examples=5, deadline=None, print_blob=False, suppress_health_check=_QUIET,
    phases=(Phase.explicit, Phase.generate),
)
# For CI's runs on real JAX, the reference: the same derandomized draws, fewer of them. JAX compiles
# every new shape and dtype each test draws, which makes 25 examples per test cost over half an
# hour on two cores; three still check each test's expectations against JAX (six took 1,730 s of
# a 2,873 s CI run, the two runs on JAX; four, 1,689 s of a 2,427 s run once seven stages had their
# tests), and the `full` profile explores.
settings.register_profile(
    "ci-reference", derandomize=True, max_examples=3, deadline=None, print_blob=True,
    suppress_health_check=_QUIET,
)
# For another JAX release (other_jax.py): ci-reference's draws (8 of them, where CI's runs on the
# reference take 3), up to the first that fails, without shrinking or explaining
# that failure: an old release fails or lacks names in hundreds of tests, and shrinking each took
# minutes. Its failures show the first failing example, unshrunk.
settings.register_profile(
    "ci-release", derandomize=True, max_examples=8, deadline=None, print_blob=True,
    suppress_health_check=_QUIET, phases=(Phase.explicit, Phase.generate),
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
        help="implementation under test: a stage id (01_eval), 'jax', a folder (a package, or holding "
        "one), or a module name; default $CONFORMANCE_IMPL, else the newest stage",
    )
    group.addoption(
        "--results-dir",
        default=None,
        help="where <impl>.json goes (default: build/conformance under pytest's rootdir)",
    )
    group.addoption(
        "--area",
        action="append",
        default=[],
        help="run only tests of this area (numpy, lax, promotion, pytrees, errors, random, nn, jvp, vmap, jaxpr, jit, vjp, sharding), or "
        "with a leading '-' every area but this one (--area=-numpy); repeatable",
    )
    group.addoption(
        "--inherited-examples",
        type=int,
        default=None,
        metavar="N",
        help="at most N hypothesis examples per test that does not need the implementation's newest "
        "capability (a stage's inherited tests, already explored on the stage that added them)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "area(name): the conformance area a test belongs to")
    config.addinivalue_line(
        "markers", f"requires(*capabilities): what the implementation must be able to do ({', '.join(ALL_CAPABILITIES)})"
    )
    # Asking for a 64-bit dtype while x64 is off makes JAX warn before it truncates; the suite does
    # that on purpose, to test the truncation.
    config.addinivalue_line("filterwarnings", "ignore:Explicitly requested dtype:UserWarning")
    results_dir = config.getoption("--results-dir")
    recorder = Recorder(Path(results_dir) if results_dir else config.rootpath / "build" / "conformance")
    recorder.selection = config.getoption("keyword") or ""
    # Files or tests named rather than the suite's folder (or package): the run covers part of its areas.
    recorder.partial = any("::" in arg or arg.endswith(".py") for arg in config.args)
    config.stash[_RECORDER] = recorder
    config.pluginmanager.register(recorder, "conformance-results")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The meta-tests run the suite in subprocesses: collect them only when their folder is named."""
    if collection_path != META_DIR:
        return None
    named = (config.invocation_params.dir / arg.split("::")[0] for arg in config.args)
    return not any(path.resolve().is_relative_to(META_DIR) for path in named)


def impl_under_test(config: pytest.Config) -> Impl:
    """Load the implementation once per session, with the suite's default flags. An implementation
    that cannot be loaded is a usage error (one clear line), never an INTERNALERROR."""
    if _IMPL not in config.stash:
        spec = config.getoption("--impl") or os.environ.get("CONFORMANCE_IMPL") or newest_stage()
        if spec is None:
            raise pytest.UsageError("no stage with a didax package yet: pass --impl=jax or another impl")
        try:
            impl = load(spec)
        except ImplLoadError as err:
            raise pytest.UsageError(str(err)) from None
        except Exception as err:  # the implementation's own import failed
            raise pytest.UsageError(f"--impl={spec}: loading it raised {type(err).__name__}: {err}") from None
        # First: the device count can only be set before the implementation's backend starts (see
        # impl.DEVICE_FLAGS), and nothing has run on it yet. Only for a run that has the sharding
        # area: the other areas need one device. (The one CI run that gave JAX 8 devices for every
        # area took 972 s and 1,239 s for its two runs, not about 400 s and 600 s; a subset timed
        # alone took the same with 1 and 8 devices, so the cause is not settled.)
        if _runs_area(config, "sharding"):
            set_device_flags(impl)
        set_suite_flags(impl)
        reproduce.use(impl)
        config.stash[_IMPL] = impl
        config.stash[_RECORDER].use(impl)
    return config.stash[_IMPL]


def _runs_area(config: pytest.Config, area: str) -> bool:
    """Whether ``--area`` (none: every area) lets ``area``'s tests run."""
    named = {a for option in config.getoption("--area") for a in option.split(",") if a}
    wanted = {a for a in named if not a.startswith("-")}
    return (area in wanted if wanted else True) and f"-{area}" not in named


def is_conformance_test(item: pytest.Item) -> bool:
    """The suite's own tests, and any test elsewhere that names its conformance area."""
    if item.path.is_relative_to(META_DIR):
        return False
    return item.path.is_relative_to(HERE) or item.get_closest_marker("area") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the chosen areas; record each test's area; mark what the impl cannot do not applicable."""
    if not any(is_conformance_test(item) for item in items):
        return  # e.g. the meta-tests alone: no implementation to load
    _deselect_other_areas(config, items)
    impl = impl_under_test(config)
    recorder = config.stash[_RECORDER]
    inherited = config.getoption("--inherited-examples")
    newest = max(impl.capabilities, key=ALL_CAPABILITIES.index, default=None)
    for item in filter(is_conformance_test, items):
        area = item.get_closest_marker("area")
        if area is None:
            raise pytest.UsageError(f"{item.nodeid} has no pytest.mark.area(...)")
        recorder.expect(item.nodeid, area.args[0])
        if inherited is not None and newest not in required(item):
            _limit_examples(item, inherited)
        lacking = required(item) - impl.capabilities
        if lacking:
            needs, has = ", ".join(sorted(lacking)), ", ".join(sorted(impl.capabilities)) or "nothing"
            item.add_marker(
                pytest.mark.skip(reason=f"{NOT_APPLICABLE} needs {needs}; {impl.name} declares {has}")
            )


def _limit_examples(item: pytest.Item, most: int) -> None:
    """At most ``most`` examples for a hypothesis test (its own settings otherwise unchanged): the
    same derandomized draws, fewer of them, as on real JAX in CI. A later stage that broke what
    an inherited test checks still fails it (a broken rule fails nearly every example); one that
    did not pays for a few examples, not for the exploration its first stage already did."""
    test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is not None and hasattr(test, "hypothesis") and current.max_examples > most:
        test._hypothesis_internal_use_settings = settings(current, max_examples=most)


def required(item: pytest.Item) -> set[str]:
    """Capabilities named by all `requires` markers on the test, its class and its module (default
    eval); a name that is not a capability is an error in the test, not a silent pass."""
    needed = {cap for mark in item.iter_markers("requires") for cap in mark.args}
    unknown = needed - set(ALL_CAPABILITIES)
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: requires({', '.join(sorted(unknown))}) names no capability "
                                f"(they are {', '.join(ALL_CAPABILITIES)})")  # fmt: skip
    return needed or {"eval"}


def _deselect_other_areas(config: pytest.Config, items: list[pytest.Item]) -> None:
    named = {area for option in config.getoption("--area") for area in option.split(",") if area}
    if not named:
        return
    wanted = {a for a in named if not a.startswith("-")}
    unwanted = {a[1:] for a in named if a.startswith("-")}  # --area=-numpy: every area but numpy
    keep, drop = [], []
    for item in items:
        marker = item.get_closest_marker("area")
        area = marker.args[0] if marker is not None else None
        chosen = (area in wanted if wanted else area is not None) and area not in unwanted
        (keep if chosen else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# --- each test: missing names, reproducers ---------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    LOOKUPS.reset()
    reproduce.start_test()
    _watch_examples(item)


def _watch_examples(item: pytest.Item) -> None:
    """Wrap a hypothesis test's body (hypothesis's `inner_test`, there to be wrapped) so that each
    example starts with no call noted and a failing one keeps its note: the report shows the failing
    example's program, not that of an example run after it (a later explicit `@example`)."""
    given = getattr(getattr(item, "obj", None), "hypothesis", None)
    inner = getattr(given, "inner_test", None)
    if inner is None or getattr(inner, "watched_by_conformance", False):
        return

    @functools.wraps(inner)
    def watched(*args: Any, **kwargs: Any) -> Any:
        reproduce.start_example()
        try:
            return inner(*args, **kwargs)
        except UnsatisfiedAssumption:
            raise  # hypothesis's assume(): not a failure
        except Exception as e:
            reproduce.example_failed()
            impl = item.config.stash.get(_IMPL, None)
            if impl is not None and missing_names(e, impl.module.__name__):
                raise MissingStop(e) from e  # no shrinking: the test is missing that name
            raise

    watched.watched_by_conformance = True  # type: ignore[attr-defined]
    given.inner_test = watched


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, Any]:
    """Classify a failing conformance test: "missing" when all it hit was a name the implementation
    lacks, else "failed" with a reproducing program at the top of its report."""
    report: pytest.TestReport = yield
    if not is_conformance_test(item) or _IMPL not in item.config.stash:
        return report
    report.conformance_used = list(LOOKUPS.used)  # type: ignore[attr-defined]
    if not report.failed or call.excinfo is None:
        return report
    # What the failure is charged to in the function table: the names of the statement that failed.
    report.conformance_statement = unroll.failing_statement(item, call.excinfo)  # type: ignore[attr-defined]
    impl = item.config.stash[_IMPL]
    raised = call.excinfo.value
    raised = raised.original if isinstance(raised, MissingStop) else raised
    names = missing_names(raised, impl.module.__name__) or (
        list(LOOKUPS.missing) if call.when == "call" else None
    )
    if names:
        report.conformance_missing = names  # type: ignore[attr-defined]
        report.longrepr = with_program("", "missing: " + ", ".join(names), report.longrepr, short=True)
    else:
        program = unroll.program_for_report(item, call.excinfo)
        report.conformance_program = program  # type: ignore[attr-defined]
        if call.excinfo.errisinstance(ReleaseDetail):
            report.conformance_release_detail = True  # type: ignore[attr-defined]
        report.longrepr = with_program(program, _message(call.excinfo), report.longrepr)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """A test that lacks a name counts as "missing" in pytest's summary line (`3 failed, 5 missing`),
    with `M` in the progress line, never as failed or as an error; the run still exits non-zero."""
    if report.failed and getattr(report, "conformance_missing", None):
        return "missing", "M", "MISSING"
    return None


def _message(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """The exception's text (an assertion's message included), at most 4,000 characters."""
    text = excinfo.exconly()
    return text if len(text) <= 4000 else text[:4000] + " ..."


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


@pytest.fixture
def random_flags(impl: Impl, flags: FlagSetter) -> None:
    """Random bits as JAX 0.10.2 and didax make them: the flags of `impl.RANDOM_FLAGS`
    (`jax_threefry_partitionable=True`) where the implementation has them, for this test."""
    for name, value in RANDOM_FLAGS.items():
        if has_flag(impl, name):
            flags(name, value)


@pytest.fixture(params=[False, True], ids=["x64_off", "x64_on"])
def x64(request: pytest.FixtureRequest, flags: FlagSetter) -> bool:
    """Run the test with 64-bit types off and on."""
    flags("jax_enable_x64", request.param)
    return request.param
