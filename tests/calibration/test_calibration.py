"""The engine grades the hand-graded calibration designs as an expert did: same order, same bands."""

from __future__ import annotations

import pytest

from inferboard.practice.grading import grade_design
from inferboard.practice.library import ScenarioLibrary
from tests.calibration.designs import BUILDERS, LEVELS, band, bands

LIBRARY = ScenarioLibrary(user_packs=None).load()
SCENARIOS = sorted(LIBRARY.entries)


def test_every_shipped_scenario_has_calibration_notes():
    assert set(bands()["scenarios"]) == set(SCENARIOS)


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_engine_orders_and_bands_the_graded_designs(scenario_id):
    entry = LIBRARY.get(scenario_id)
    scores = {}
    for level in LEVELS:
        grade = grade_design(entry.scenario, BUILDERS[level](entry), entry.reference_design())
        scores[level] = grade.overall
        low, high = band(scenario_id, level)
        lost = ", ".join(f"{p.source} -{p.points:g}" for p in grade.lost)
        assert low <= grade.overall <= high, f"{scenario_id} {level}: {grade.overall:.1f} outside {low}-{high} ({lost})"
    assert scores["weak"] < scores["middling"] < scores["strong"], scores


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_reference_design_scores_at_least_90(scenario_id):
    entry = LIBRARY.get(scenario_id)
    reference = entry.reference_design()
    assert grade_design(entry.scenario, reference, reference).overall >= 90
