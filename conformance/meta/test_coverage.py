"""Every public name of the implementation's numpy, lax, tree_util, random and nn that JAX also has
is exercised by at least one conformance test, or listed, with a reason, in coverage_allowlist.txt.

The suite runs once on stage 01 (ci profile) with recording proxies around those modules
(conformance/coverage.py): the test command records them in its own run of the suite on stage 01 and
names the file in CONFORMANCE_COVERAGE_NAMES; run alone, this test runs the suite itself. Regenerate the allowlist with `python -m conformance.coverage --write-allowlist`.
"""

from __future__ import annotations

import pytest

from conformance import coverage


@pytest.fixture(scope="module")
def names() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    shared = coverage.shared_names(coverage.DEFAULT_IMPL)
    seen = coverage.seen_names(coverage.DEFAULT_IMPL)
    print("\n" + coverage.report(shared, seen))
    return shared, seen


def test_every_shared_name_is_exercised_or_allowlisted(names) -> None:
    shared, seen = names
    allowed = coverage.read_allowlist()
    missing = sorted(
        f"{m}.{n}"
        for m, left in coverage.uncovered(shared, seen).items()
        for n in left
        if f"{m}.{n}" not in allowed
    )
    assert not missing, f"{coverage.report(shared, seen)}\nno conformance test touches: {', '.join(missing)}"


def test_the_allowlist_only_lists_names_still_uncovered(names) -> None:
    shared, seen = names
    stale = sorted(
        name
        for name in coverage.read_allowlist()
        if name.partition(".")[2] in seen.get(name.partition(".")[0], set())
        or name.partition(".")[2] not in shared.get(name.partition(".")[0], set())
    )
    assert not stale, f"covered now (or gone): remove from coverage_allowlist.txt: {', '.join(stale)}"


def test_every_allowlisted_name_has_a_reason() -> None:
    bare = [name for name, reason in coverage.read_allowlist().items() if not reason]
    assert not bare, f"give a one-line reason for: {', '.join(bare)}"


def test_the_names_a_run_of_the_suite_recorded_are_read_not_recorded_again(tmp_path, monkeypatch) -> None:
    names = tmp_path / "names.json"
    names.write_text('{"lax": ["add", "sin"], "numpy": ["sum"]}')
    monkeypatch.setenv(coverage.NAMES_ENV, str(names))
    monkeypatch.setattr(coverage, "run_suite", lambda spec: pytest.fail("ran the suite again"))
    assert coverage.seen_names("01_eval") == {"lax": {"add", "sin"}, "numpy": {"sum"}}
