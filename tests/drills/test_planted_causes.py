"""For every planted cause: the symptom the page states is in the simulated series with its
stated size, on every design the drill is checked on; the mitigations the drill says fix it
restore the SLO (or the model's quality) and take the symptom away, and the others do not.

Each run is simulated once per module (``runs``) and shared by the tests that read it."""

import pytest

from inferboard.drills import symptoms
from inferboard.drills.engine import DrillSession
from inferboard.drills.library import applicable, load_drills
from inferboard.drills.scoring import _restored
from inferboard.paths import data_dir
from inferboard.store import read_design

DRILLS = load_drills()
CASES = [(drill_id, i) for drill_id, drill in sorted(DRILLS.items()) for i in range(len(drill.mitigations))]
FAST = {("slow-canary-version", 0), ("slow-canary-version", 1), ("bad-retrained-model", 0),
        ("bad-retrained-model", 1)}
CHECKED = [(drill_id, name) for drill_id, drill in sorted(DRILLS.items()) for name in drill.checked_on]
#: the runs on the ranker design are shared with the cheap tests; the others build their own batching tables
CHECKED_CASES = [pytest.param(d, n, marks=() if n == "ranker-drill" else pytest.mark.slow) for d, n in CHECKED]
ELSEWHERE_FIXES = [(drill_id, name, i) for drill_id, name in CHECKED if name != "ranker-drill"
                   for i, m in enumerate(DRILLS[drill_id].mitigations) if m.effect == "fixes"]


def design_file(name: str):
    for folder in (data_dir("assets") / "drills" / "designs", data_dir("assets") / "examples"):
        if (folder / f"{name}.json").is_file():
            return folder / f"{name}.json"
    raise AssertionError(f"no bundled design '{name}'")


def run(design, drill, mitigation=None):
    session = DrillSession(drill, design, seed=0)
    if mitigation is not None:
        session.apply_mitigation(mitigation.action, mitigation.target, mitigation.value)
    # latency: 40 minutes after acting; quality: to the end (retraining takes hours)
    session.advance_to(session.horizon_s if drill.kind == "quality" else session.now_s + 40 * 60)
    return session


@pytest.fixture(scope="module")
def runs():
    """(design name, drill id, mitigation index or None) -> (session, series), simulated once."""
    designs, done = {}, {}

    def get(name: str, drill_id: str, index: int | None = None):
        key = (name, drill_id, index)
        if key not in done:
            if name not in designs:
                designs[name] = read_design(design_file(name))[0]
            drill = DRILLS[drill_id]
            session = run(designs[name], drill, None if index is None else drill.mitigations[index])
            done[key] = (session, session.series())
        return done[key]
    return get


def check(runs, drill_id, index, design="ranker-drill"):
    drill = DRILLS[drill_id]
    mitigation = drill.mitigations[index]
    session, series = runs(design, drill_id, index)
    restored = _restored(session, series)
    assert restored == (mitigation.effect == "fixes"), (drill_id, mitigation.action, mitigation.effect)
    assert session.actions[-1].outcome == mitigation.effect
    if mitigation.effect == "fixes":
        left = symptoms.at_end(session, series)
        assert left < drill.symptom.size, (drill_id, mitigation.action, symptoms.describe(drill.symptom), left)


def test_the_library_has_twenty_drills_and_seven_about_quality():
    assert len(DRILLS) >= 20
    assert sum(d.kind == "quality" for d in DRILLS.values()) >= 7


@pytest.mark.parametrize("drill_id", sorted(DRILLS))
def test_the_planted_cause_breaks_the_slo_or_quality_when_nothing_is_done(runs, drill_id):
    session, series = runs("ranker-drill", drill_id)
    assert not _restored(session, series)


@pytest.mark.parametrize("drill_id,design", CHECKED_CASES)
def test_the_page_states_a_symptom_the_series_show_at_its_size(runs, drill_id, design):
    drill = DRILLS[drill_id]
    session, series = runs(design, drill_id)
    assert applicable(drill, session.source_design) == []
    size = symptoms.at_notice(session, series)
    stated = drill.symptom.size
    assert stated <= size <= symptoms.OVERSTATED * stated, (symptoms.describe(drill.symptom), size)


@pytest.mark.parametrize("drill_id,index", sorted(FAST))
def test_right_and_wrong_mitigation_of_two_causes(runs, drill_id, index):
    check(runs, drill_id, index)


@pytest.mark.slow
@pytest.mark.parametrize("drill_id,index", [c for c in CASES if c not in FAST])
def test_each_mitigation_does_what_the_drill_says(runs, drill_id, index):
    check(runs, drill_id, index)


@pytest.mark.slow
@pytest.mark.parametrize("drill_id,design,index", ELSEWHERE_FIXES)
def test_the_fixes_work_on_every_design_the_drill_is_checked_on(runs, drill_id, design, index):
    check(runs, drill_id, index, design)


@pytest.mark.slow
def test_where_a_cause_hits_softer_the_page_says_what_the_series_show(runs):
    """On the multi-region example the autoscaler absorbs the cache eviction storm: the page is
    not the drill's ("over twenty times its SLO") but the p99 actually reached, against its SLO."""
    import numpy as np

    session, series = runs("multi-region", "cache-eviction-storm")
    drill = DRILLS["cache-eviction-storm"]
    assert "multi-region" not in drill.checked_on
    told = (series["times_s"] >= drill.cause_start_min * 60) & (series["times_s"] <= session.notice_s)
    reached = float(np.max(series["p99_ms"][told])) / session.design.requirements.slo_p99_ms
    assert reached < drill.symptom.size
    assert session.page != drill.page and session.view(dashboards=[]).page == session.page
    assert session.page.startswith("Something looks off: p99 reached ")
    assert f"{reached:.2g} times its SLO" in session.page
    on_home, _ = runs("ranker-drill", "cache-eviction-storm")
    assert on_home.page == drill.page
