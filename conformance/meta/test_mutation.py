"""The mutation tool, checked in CI: the catalogue of stage 01 applies cleanly, a fixed sample of its
mutants (one or two per area, each run with a short ``--area``/``-k`` selection) is killed, and a
mutant whose snippet is gone is reported as stale. The full catalogue is one command:

    python -m conformance.meta.mutate --stage 01_eval
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.meta.mutate import (
    EQUIVALENT,
    ERROR,
    KILLED,
    STAGES_DIR,
    STALE,
    SURVIVED,
    Mutant,
    Outcome,
    classify,
    exit_code,
    load_catalogue,
    make_mutant,
    merge,
    report_json,
    report_markdown,
    run_mutant,
    staleness,
    summarize,
)

STAGE = "01_eval"
STAGE_DIR = STAGES_DIR / STAGE
CATALOGUE = load_catalogue(STAGE)
BY_ID = {m.id: m for m in CATALOGUE}

# Spans the areas and kinds of bug; each runs in a few seconds with its -k keyword.
CI_SAMPLE = [
    "promotion.lattice.bf16_below_f16",
    "weak.zeros_like_drops_weak_type",
    "lax.pad.interior_after_the_last",
    "xla.integer_division_by_zero_is_zero",
    "data.asarray_aliases_numpy",
    "pytrees.tree_map_ignores_is_leaf",
    "random.threefry.rotation_constant",
    "nn.gelu.approximate_flag_inverted",
]


def test_the_catalogue_is_large_and_applies_cleanly() -> None:
    """Every snippet occurs exactly once in its file, and every mutant still compiles."""
    assert len(CATALOGUE) >= 60
    stale = {m.id: reason for m in CATALOGUE if (reason := staleness(m, STAGE_DIR)) is not None}
    assert not stale, stale
    for mutant in CATALOGUE:
        source = (STAGE_DIR / mutant.file).read_text().replace(mutant.find, mutant.replace, 1)
        compile(source, mutant.file, "exec")


def test_stage_02s_catalogue_is_stage_01s_and_its_own_and_applies_cleanly() -> None:
    """Stage 02 is stage 01 plus ad.py: every stage-01 mutant applies to it too, then its jvp mutants."""
    from conformance.meta.mutants_02_jvp import JVP_MUTANTS

    catalogue = load_catalogue("02_jvp")
    stage_dir = STAGES_DIR / "02_jvp"
    assert [m.id for m in catalogue] == [m.id for m in CATALOGUE] + [m.id for m in JVP_MUTANTS]
    assert len(JVP_MUTANTS) >= 25 and all(m.areas == ("jvp",) for m in JVP_MUTANTS)
    stale = {m.id: reason for m in catalogue if (reason := staleness(m, stage_dir)) is not None}
    assert not stale, stale
    for mutant in JVP_MUTANTS:
        source = (stage_dir / mutant.file).read_text().replace(mutant.find, mutant.replace, 1)
        compile(source, mutant.file, "exec")


def test_a_mutant_is_a_copy_with_one_edit(tmp_path: Path) -> None:
    mutant = BY_ID["lax.pad.interior_after_the_last"]
    make_mutant(mutant, STAGE_DIR, tmp_path)
    original = (STAGE_DIR / mutant.file).read_text()
    mutated = (tmp_path / mutant.file).read_text()
    assert mutated == original.replace(mutant.find, mutant.replace)
    assert (tmp_path / "didax/numpy/ufuncs.py").read_text() == (STAGE_DIR / "didax/numpy/ufuncs.py").read_text()


@pytest.mark.parametrize("mutant_id", CI_SAMPLE)
def test_the_suite_kills_the_sample(mutant_id: str) -> None:
    outcome = run_mutant(BY_ID[mutant_id], STAGE_DIR, timeout_s=120, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


# Stage 02: a wrong rule found by finite differences, and perturbation confusion found by nesting.
CI_SAMPLE_02 = ["jvp.tanh.one_plus_square", "jvp.nesting.traces_compared_by_type"]


@pytest.mark.parametrize("mutant_id", CI_SAMPLE_02)
def test_the_jvp_area_kills_the_stage_02_sample(mutant_id: str) -> None:
    mutant = {m.id: m for m in load_catalogue("02_jvp")}[mutant_id]
    outcome = run_mutant(mutant, STAGES_DIR / "02_jvp", timeout_s=120, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


def test_stage_03s_catalogue_is_stage_02s_and_its_own_and_applies_cleanly() -> None:
    """Stage 03 is stage 02 plus batching.py and jacobians.py: every stage-02 mutant (stage 01's
    included) applies to it too, then its vmap mutants."""
    from conformance.meta.mutants_03_vmap import VMAP_MUTANTS

    catalogue = load_catalogue("03_vmap")
    stage_dir = STAGES_DIR / "03_vmap"
    assert [m.id for m in catalogue] == [m.id for m in load_catalogue("02_jvp")] + [m.id for m in VMAP_MUTANTS]
    assert len(VMAP_MUTANTS) >= 40 and all(m.areas == ("vmap",) for m in VMAP_MUTANTS)
    stale = {m.id: reason for m in catalogue if (reason := staleness(m, stage_dir)) is not None}
    assert not stale, stale
    for mutant in VMAP_MUTANTS:
        source = (stage_dir / mutant.file).read_text().replace(mutant.find, mutant.replace, 1)
        compile(source, mutant.file, "exec")


# Stage 03: a rule wrong only off axis 0 (found by the drawn batch axes), and an API bug.
CI_SAMPLE_03 = ["vmap.rev.dimensions_not_renumbered", "vmap.api.negative_in_axes_not_wrapped"]


@pytest.mark.parametrize("mutant_id", CI_SAMPLE_03)
def test_the_vmap_area_kills_the_stage_03_sample(mutant_id: str) -> None:
    mutant = {m.id: m for m in load_catalogue("03_vmap")}[mutant_id]
    outcome = run_mutant(mutant, STAGES_DIR / "03_vmap", timeout_s=120, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


@pytest.mark.parametrize(
    ("find", "why"),
    [("this text is in no file of didax", "does not occur"), ("x.shape", "occurs")],
    ids=["missing", "ambiguous"],
)
def test_a_mutant_whose_snippet_is_not_there_once_is_stale(find: str, why: str) -> None:
    mutant = Mutant("stale.example", "didax/lax/structural.py", find, "x", ("lax",), "a stale mutant")
    outcome = run_mutant(mutant, STAGE_DIR, timeout_s=60, quick=True)
    assert outcome.status == STALE and why in outcome.detail, outcome
    assert exit_code([outcome]) == 1


def test_a_missing_file_is_stale() -> None:
    mutant = Mutant("stale.file", "didax/no_such_module.py", "a", "b", ("lax",), "a stale mutant")
    assert "does not exist" in (staleness(mutant, STAGE_DIR) or "")


def test_outcomes_and_score() -> None:
    plain = Mutant("m", "didax/core.py", "a", "b", ("lax",), "plain")
    equivalent = Mutant("e", "didax/core.py", "a", "b", ("lax",), "same", equivalent="cannot differ")
    assert classify(0, "", plain) == (SURVIVED, "")
    assert classify(0, "", equivalent) == (EQUIVALENT, "cannot differ")
    assert classify(1, "x\nFAILED conformance/test_x.py::t - boom\n", plain) == (
        KILLED,
        "FAILED conformance/test_x.py::t - boom",
    )
    assert classify(5, "no tests ran", plain)[0] == ERROR
    outcomes = [Outcome(str(i), status, "", ("lax",)) for i, status in enumerate([KILLED, KILLED, SURVIVED, EQUIVALENT])]
    assert summarize(outcomes)["score"] == round(2 / 3, 4)
    assert exit_code(outcomes) == 1
    assert exit_code([o for o in outcomes if o.status != SURVIVED]) == 0


def test_a_rerun_of_some_mutants_merges_into_the_previous_report() -> None:
    """A --quick pass, then its survivors run on their whole areas: one report, saying how each ran."""
    import json

    first = [Outcome("a", KILLED, "", ("lax",), keyword="pad"), Outcome("b", SURVIVED, "", ("lax",), keyword="sum"),
             Outcome("gone", KILLED, "", ("lax",))]
    runs = [{"started": "then", "mutants": 3, "quick": True, "jobs": 1, "seconds": 60.0}]
    previous = json.loads(report_json("01_eval", first, runs))
    merged = merge(previous, [Outcome("b", KILLED, "", ("lax",))], order=["b", "a"])
    assert [(o.id, o.status, o.keyword) for o in merged] == [("b", KILLED, None), ("a", KILLED, "pad")]
    runs = runs + [{"started": "now", "mutants": 1, "quick": False, "jobs": 1, "seconds": 120.0}]
    assert json.loads(report_json("01_eval", merged, runs))["seconds"] == 180.0
    text = report_markdown("01_eval", merged, runs)
    assert "1 of the outcomes come from a run narrowed" in text and "now: 1 mutants on their whole areas" in text
    assert "| `a` | lax | `-k pad` | killed |" in text and "| `b` | lax | its areas | killed |" in text


def test_unknown_areas_are_refused() -> None:
    with pytest.raises(ValueError):
        Mutant("bad", "didax/core.py", "a", "b", ("telepathy",), "unknown area")


def test_stage_04s_catalogue_is_stage_03s_and_its_own_and_applies_cleanly() -> None:
    """Stage 04 is stage 03 plus staging and control flow: every stage-03 mutant applies to it too,
    then its jaxpr mutants."""
    from conformance.meta.mutants_04_jaxpr import JAXPR_MUTANTS

    catalogue = load_catalogue("04_jaxpr")
    stage_dir = STAGES_DIR / "04_jaxpr"
    assert [m.id for m in catalogue] == [m.id for m in load_catalogue("03_vmap")] + [m.id for m in JAXPR_MUTANTS]
    # The sampler that staging made traceable is checked against JAX's recorded bits (random area).
    own_areas = {m.id: m.areas for m in JAXPR_MUTANTS if m.file != "didax/random/distributions.py"}
    assert len(JAXPR_MUTANTS) >= 40 and set(own_areas.values()) == {("jaxpr",)}
    stale = {m.id: reason for m in catalogue if (reason := staleness(m, stage_dir)) is not None}
    assert not stale, stale
    for mutant in JAXPR_MUTANTS:
        source = (stage_dir / mutant.file).read_text().replace(mutant.find, mutant.replace, 1)
        compile(source, mutant.file, "exec")


def check_catalogue(stage: str, before: str, own: list[Mutant], area: str) -> None:
    """``stage``'s catalogue is ``before``'s (whose mutants all apply to it too) followed by its own,
    each for ``area``; no snippet is stale in the stage, and every own mutant still compiles."""
    catalogue = load_catalogue(stage)
    stage_dir = STAGES_DIR / stage
    assert [m.id for m in catalogue] == [m.id for m in load_catalogue(before)] + [m.id for m in own]
    assert {m.areas for m in own} == {(area,)}
    stale = {m.id: reason for m in catalogue if (reason := staleness(m, stage_dir)) is not None}
    assert not stale, stale
    for mutant in own:
        source = (stage_dir / mutant.file).read_text().replace(mutant.find, mutant.replace, 1)
        compile(source, mutant.file, "exec")


def test_stage_05s_catalogue_is_stage_04s_and_its_own_and_applies_cleanly() -> None:
    """Stage 05 is stage 04 plus jit: its own mutants are the lowering rules' and jit's."""
    from conformance.meta.mutants_05_jit import JIT_MUTANTS, LOWERING_MUTANTS

    check_catalogue("05_jit", "04_jaxpr", [*LOWERING_MUTANTS, *JIT_MUTANTS], "jit")


def test_stage_06s_catalogue_is_stage_05s_and_its_own_and_applies_cleanly() -> None:
    """Stage 06 is stage 05 plus reverse mode: its own mutants are the transpose rules', the backward
    pass's, partial evaluation's, the custom rules' and the API's."""
    from conformance.meta.mutants_06_vjp import VJP_MUTANTS

    assert len(VJP_MUTANTS) >= 40
    check_catalogue("06_vjp", "05_jit", VJP_MUTANTS, "vjp")


def test_stage_07s_catalogue_is_stage_06s_and_its_own_and_applies_cleanly() -> None:
    """Stage 07 is stage 06 plus pmap, shard_map and the collectives."""
    from conformance.meta.mutants_07_sharding import SHARDING_MUTANTS

    assert len(SHARDING_MUTANTS) >= 30
    check_catalogue("07_sharding", "06_vjp", SHARDING_MUTANTS, "sharding")


# Stage 06: a transpose rule, and partial evaluation of control flow (a loop's carry that becomes
# unknown in the body).
CI_SAMPLE_06 = ["transpose.sub.second_operand_not_negated", "partial_eval.while.carry_not_fixed_point"]


@pytest.mark.parametrize("mutant_id", CI_SAMPLE_06)
def test_the_vjp_area_kills_the_stage_06_sample(mutant_id: str) -> None:
    mutant = {m.id: m for m in load_catalogue("06_vjp")}[mutant_id]
    outcome = run_mutant(mutant, STAGES_DIR / "06_vjp", timeout_s=120, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


# Stage 07: the device groups of a collective over two mesh axes.
CI_SAMPLE_07 = ["lowering.groups.names_sorted"]


@pytest.mark.parametrize("mutant_id", CI_SAMPLE_07)
def test_the_sharding_area_kills_the_stage_07_sample(mutant_id: str) -> None:
    mutant = {m.id: m for m in load_catalogue("07_sharding")}[mutant_id]
    outcome = run_mutant(mutant, STAGES_DIR / "07_sharding", timeout_s=180, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


# Stage 04: omnistaging off (found by a constant in the jaxpr).
CI_SAMPLE_04 = ["staging.omnistaging_off"]


@pytest.mark.parametrize("mutant_id", CI_SAMPLE_04)
def test_the_jaxpr_area_kills_the_stage_04_sample(mutant_id: str) -> None:
    mutant = {m.id: m for m in load_catalogue("04_jaxpr")}[mutant_id]
    outcome = run_mutant(mutant, STAGES_DIR / "04_jaxpr", timeout_s=120, quick=True)
    assert outcome.status == KILLED, f"{outcome.status}: {outcome.detail}\n{' '.join(outcome.command)}"


def test_a_partial_run_cannot_be_published() -> None:
    """--publish with --only and no --merge would publish a report of one mutant: refused at once."""
    from conformance.meta import mutate

    with pytest.raises(SystemExit, match="--merge"):
        mutate.main(["--stage", STAGE, "--only", CI_SAMPLE[0], "--publish"])


def test_a_partial_run_leaves_the_stages_report_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of one mutant without --merge writes <stage>.partial.json beside the stage's report,
    which a later --merge builds on, and leaves that report as it was."""
    from conformance.meta import mutate

    monkeypatch.setattr(mutate, "BUILD_DIR", tmp_path)
    whole = tmp_path / f"{STAGE}.json"
    whole.write_text('{"the": "whole report"}')
    code = mutate.main(["--stage", STAGE, "--only", CI_SAMPLE[0], "--no-baseline", "--quick"])
    assert code == 0
    assert whole.read_text() == '{"the": "whole report"}'
    partial = json.loads((tmp_path / f"{STAGE}.partial.json").read_text())
    assert [m["id"] for m in partial["mutants"]] == [CI_SAMPLE[0]] and partial["counts"]["killed"] == 1
