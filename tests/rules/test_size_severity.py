"""A measured miss weighs by its size: a small miss is minor, a large one a blocker; p50 is read too."""

from __future__ import annotations

import pytest

from inferboard.rules import check_design, default_rules
from inferboard.sim.steady import design_sim
from tests.rules.builders import reference, set_requirements

RULE = default_rules().get("LAT-001")


@pytest.mark.parametrize("ratio,severity", [(1.0001, "minor"), (1.1, "minor"), (1.2, "major"), (1.5, "major"),
                                            (1.51, "blocker"), (40.0, "blocker")])
def test_thresholds(ratio, severity):
    assert RULE.size_severity.severity_of(ratio, "blocker") == severity


def _latency_finding(**slos):
    design = reference()
    set_requirements(design, **slos)
    report = check_design(design, rubrics=["latency"])
    return next((f for f in report.findings if f.rule_id == "LAT-001"), None), report


@pytest.fixture(scope="module")
def measured():
    design = reference()
    result = design_sim.evaluate(design, rps=design.requirements.peak_rps)
    return result.p50_ms, result.p95_ms


@pytest.mark.parametrize("over,severity,share", [(1.05, "minor", 0.3), (1.3, "major", 0.6), (2.0, "blocker", 1.0)])
def test_a_p95_miss_weighs_by_its_size(measured, over, severity, share):
    finding, report = _latency_finding(slo_p95_ms=measured[1] / over, slo_p99_ms=None)
    assert finding is not None and finding.severity == severity
    assert finding.points == pytest.approx(RULE.points * share)
    assert bool(report.blockers) == (severity == "blocker")


def test_a_p50_target_is_read(measured):
    finding, _ = _latency_finding(slo_p50_ms=measured[0] / 3)
    assert finding is not None and finding.severity == "blocker" and "p50" in finding.message
    assert _latency_finding(slo_p50_ms=measured[0] * 1.5)[0] is None
