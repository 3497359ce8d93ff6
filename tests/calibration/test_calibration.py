"""The engine grades the hand-graded calibration designs as an expert did: same bands, same order."""

from __future__ import annotations

from functools import lru_cache
from math import sqrt

import pytest

from inferboard.practice.grading import grade_design
from inferboard.practice.library import ScenarioLibrary
from tests.calibration.designs import BUILDERS, LEVELS, band, bands

LIBRARY = ScenarioLibrary(user_packs=None).load()
SCENARIOS = sorted(LIBRARY.entries)
#: Expert order against the engine's scores, per scenario.
MIN_TAU = 0.8


def kendall_tau_b(xs: list[float], ys: list[float]) -> float:
    """Kendall's tau-b of two equally long sequences (ties in either count for neither side)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                ties_x += 1
                ties_y += 1
            elif dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = len(xs) * (len(xs) - 1) // 2
    denominator = sqrt((pairs - ties_x) * (pairs - ties_y))
    return 0.0 if denominator == 0 else (concordant - discordant) / denominator


@lru_cache(maxsize=None)
def graded(scenario_id: str) -> dict[str, tuple[float, str]]:
    entry = LIBRARY.get(scenario_id)
    reference = entry.reference_design()
    out = {}
    for level in LEVELS:
        grade = grade_design(entry.scenario, BUILDERS[level](entry), reference)
        out[level] = (grade.overall, ", ".join(f"{p.source} -{p.points:g}" for p in grade.lost))
    return out


def test_tau_b_against_hand_computed_values():
    assert kendall_tau_b([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert kendall_tau_b([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    # one discordant pair of three: (2 - 1) / 3
    assert kendall_tau_b([1, 2, 3], [10, 30, 20]) == pytest.approx(1 / 3)
    # a tie in x: pairs 3, ties_x 1 -> (2 - 0) / sqrt(2 * 3)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / sqrt(6))


def test_the_calibration_set_is_large_varied_and_reasoned():
    data = bands()
    assert set(data["scenarios"]) == set(SCENARIOS)
    designs = [(s, level) for s in SCENARIOS for level in LEVELS]
    traps = [d for d in designs if d[1] in data["traps"]]
    assert len(designs) >= 40 and 3 * len(traps) >= len(designs)
    for scenario_id in SCENARIOS:
        notes = data["scenarios"][scenario_id]
        reasons = {**notes.get("reasons", {})}
        assert "Weak:" in notes["note"] and "Middling:" in notes["note"], scenario_id
        assert set(LEVELS) - {"weak", "middling"} <= set(reasons), scenario_id
        assert all(len(text) > 40 for text in reasons.values()), scenario_id
    assert set(data["ranks"]) == set(LEVELS)


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_engine_bands_and_orders_the_graded_designs_as_the_expert(scenario_id):
    scores = graded(scenario_id)
    for level, (overall, lost) in scores.items():
        low, high = band(scenario_id, level)
        assert low <= overall <= high, f"{scenario_id} {level}: {overall:.1f} outside {low}-{high} ({lost})"
    # a near-perfect design beats the single-region, fixed-replica one by a clear margin
    assert scores["strong"][0] - scores["middling"][0] >= 20, scores
    ranks = bands()["ranks"]
    tau = kendall_tau_b([ranks[level] for level in LEVELS], [scores[level][0] for level in LEVELS])
    shown = {level: round(score, 1) for level, (score, _) in scores.items()}
    assert tau >= MIN_TAU, f"{scenario_id}: Kendall tau-b {tau:.2f} < {MIN_TAU} ({shown})"


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_reference_design_scores_at_least_90(scenario_id):
    entry = LIBRARY.get(scenario_id)
    reference = entry.reference_design()
    assert grade_design(entry.scenario, reference, reference).overall >= 90
