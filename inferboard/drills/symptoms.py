"""The symptom a drill's page states, measured in the simulated series.

A drill's ``symptom`` (:class:`inferboard.drills.schema.Symptom`) names a series and a size; this
module measures that size in a run, so a test can check that the page tells the truth: the
symptom is at least as large as stated when the candidate is told (and not more than
:data:`OVERSTATED` times larger: a page that says "p99 doubled" while it went up twentyfold
misleads as much as one that overstates), and a mitigation that fixes the incident takes it away.

Measures (``baseline`` is the median over the ticks before ``since_min``):
- ``slo_multiple``: the highest value over the design's p99 SLO (``p99_ms`` or ``p50_ms``);
- ``baseline_multiple``: the highest value over the baseline;
- ``level``: the highest value (a share for ``error_rate``, ``shed_rate``, ``failed_rate``);
- ``drop_pp``: the baseline minus the lowest value, in points (accuracy);
- ``drop_pct``: the same as a percentage of the baseline (the business metric).
"""

from __future__ import annotations

import math

import numpy as np

#: the page may understate its symptom, but not by more than this factor
OVERSTATED = 3.0
#: the symptom is measured over the ticks from ``since_min`` to this long after the notice (the
#: page is what the candidate reads when told: the symptom must be there by then)
AFTER_NOTICE_S = 0.0
#: a fix must have taken the symptom away over this last stretch of the run
RECENT_S = 10 * 60.0


def series_of(session, series: dict, metric: str, segment: str | None) -> np.ndarray:
    """The values of ``metric`` (``failed_rate`` is errors plus shedding; ``business_pct`` the
    design's business metric; accuracy per ``segment`` when one is named)."""
    if metric == "failed_rate":
        return series["error_rate"] + series["shed_rate"]
    if metric == "business_pct":
        return series[f"{session.quality.business.metric}_pct"]
    if metric == "accuracy_pct" and segment:
        return series[f"accuracy_pct:{segment}"]
    return series[metric]


def _measure(symptom, session, values: np.ndarray, baseline: float) -> float:
    kind = symptom.measure
    if kind == "slo_multiple":
        slo = session.design.requirements.slo_p99_ms
        return float(np.max(values)) / float(slo) if slo else float("nan")
    if kind == "baseline_multiple":
        return float(np.max(values)) / max(baseline, 1e-9)
    if kind == "level":
        return float(np.max(values))
    low = float(np.min(values))
    if kind == "drop_pp":
        return baseline - low
    return 100.0 * (baseline - low) / max(baseline, 1e-9)


def _baseline(symptom, session, series: dict) -> float:
    times = series["times_s"]
    values = series_of(session, series, symptom.metric, symptom.segment)
    before = times < symptom_since_s(symptom, session) - 1e-9
    return float(np.median(values[before])) if np.any(before) else float(values[0])


def symptom_since_s(symptom, session) -> float:
    """When the stated symptom begins: its ``since_min``, else when the cause starts."""
    since = symptom.since_min if symptom.since_min is not None else session.drill.cause_start_min
    return since * 60.0


def at_notice(session, series: dict) -> float:
    """The symptom's size from its start to a few minutes after the candidate was told."""
    symptom = session.drill.symptom
    times = series["times_s"]
    window = (times >= symptom_since_s(symptom, session) - 1e-9) & (times <= session.notice_s + AFTER_NOTICE_S)
    values = series_of(session, series, symptom.metric, symptom.segment)
    return _measure(symptom, session, values[window], _baseline(symptom, session, series))


def at_end(session, series: dict) -> float:
    """The symptom's size over the last minutes of the run (after a mitigation: is it gone?)."""
    symptom = session.drill.symptom
    times = series["times_s"]
    window = times >= times[-1] - RECENT_S
    values = series_of(session, series, symptom.metric, symptom.segment)
    return _measure(symptom, session, values[window], _baseline(symptom, session, series))


def describe(symptom) -> str:
    """The symptom in words, e.g. ``p99_ms at least 2× the SLO``."""
    where = f" ({symptom.segment})" if symptom.segment else ""
    unit = {"slo_multiple": "× the p99 SLO", "baseline_multiple": "× its level before",
            "level": "", "drop_pp": " points down", "drop_pct": "% down"}[symptom.measure]
    return f"{symptom.metric}{where} at least {symptom.size:g}{unit}"


def _named(session, symptom) -> str:
    if symptom.metric == "business_pct":
        return session.quality.business.metric
    if symptom.metric == "accuracy_pct":
        return f"accuracy on {symptom.segment}" if symptom.segment else "accuracy"
    return {"p99_ms": "p99", "p50_ms": "p50", "error_rate": "the error rate", "shed_rate": "the shed share",
            "failed_rate": "errors and shedding"}[symptom.metric]


def measured_page(session, size: float) -> str:
    """A page that says what the series show of the symptom (``size``, as measured), in words."""
    symptom = session.drill.symptom
    name = _named(session, symptom)
    said = {"slo_multiple": f"{name} reached {size:.2g} times its SLO",
            "baseline_multiple": f"{name} is {size:.2g} times its usual level",
            "level": f"{name} reached {100 * size:.2g}% of requests",
            "drop_pp": f"{name} is {max(size, 0.0):.1f} points under its usual level",
            "drop_pct": f"{name} is {max(size, 0.0):.0f}% under its usual level"}[symptom.measure]
    return f"Something looks off: {said}; nobody is sure it matters yet."


def page_for(session) -> str:
    """The page the candidate reads: the drill's own where its symptom is there at the stated size
    when they are told, else one built from what this design's series show (a cause that hits
    softer here must not be announced as if it hit hard)."""
    size = at_notice(session, session.series())
    if not math.isfinite(size) or size >= session.drill.symptom.size:
        return session.fill(session.drill.page)
    return measured_page(session, size)
