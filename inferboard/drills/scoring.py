"""Scoring a drill from its recorded actions. Every line names the action that earned or lost it.

Criteria (points): stated the symptom and scope before acting (5); checked recent changes early
(10: within 10 minutes of being told, nothing after 30); mitigated before deep investigation (10:
the working mitigation came before the root cause was named and after at most
:data:`DEEP_LOOKS` dashboard looks); time to mitigate (25: full up to the drill's target, nothing
at four times it); error budget burned (15: full up to 1% of a 30-day budget, nothing at 10%; only
with a working mitigation); customer impact against doing nothing (10: full at 30% of the harm,
nothing at 100%; only when a mitigation was tried); root cause
named (15, by keyword groups); follow-up (10: long-term fix 5, monitoring 5). A mitigation that
makes things worse costs 5 (at most 10). The percentage is earned / possible; the letter uses the
rule engine's bands. A drill with no action scores 0.

The outcome (budget burned, customer impact) is judged at a fixed horizon, the session's
``outcome_horizon_s`` (four mitigation targets after the notice): a drill ended earlier is run on,
with its recorded actions, to that horizon, so stopping early never improves the score.

The result also says what observability the design lacked and what it cost in minutes: the
page that came late or never (against the first alert a collector with default burn-rate rules
would have raised on the same simulated day) and the views holding the cause's evidence that
did not exist.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from inferboard.rules.engine import grade_of
from inferboard.sim.timeline.timeline_events import BURN_WINDOWS, rolling_mean

BUDGET_DAYS = 30.0
DEEP_LOOKS = 4
WORSE_PENALTY, WORSE_CAP = 5.0, 10.0


@dataclass
class ScoreLine:
    """One scored criterion: points earned of its maximum, why, and the action and minute it refers to."""
    criterion: str
    points: float
    max_points: float
    reason: str
    action_index: int | None = None  #: index into the session's recorded actions
    t_min: float | None = None


@dataclass
class MissingObservability:
    """A view or alert the design lacked, and the minutes it cost."""
    what: str
    cost_min: float
    why: str


@dataclass
class DrillResult:
    """A drill's score: its lines, percentage and grade, time to mitigate, budget burned, customer impact,
    missing observability and the actions taken."""
    drill_id: str
    title: str
    percent: float
    grade: str
    lines: list[ScoreLine]
    notice_min: float
    ended_min: float
    time_to_mitigate_min: float | None
    budget_burned_pct: float
    customer_impact: dict[str, float]
    missing: list[MissingObservability]
    restored: bool
    actions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values for JSON."""
        return asdict(self)


def _matches(text: str, groups: list[list[str]]) -> int:
    words = text.lower()
    return sum(1 for group in groups if any(re.search(r"\b" + re.escape(w.lower()), words) for w in group))


def _ramp(value: float, full: float, zero: float) -> float:
    """1 at or below ``full``, 0 at or above ``zero``, linear between."""
    if value <= full:
        return 1.0
    if value >= zero:
        return 0.0
    return (zero - value) / (zero - full)


def _bad_share(series: dict, slo: float | None) -> np.ndarray:
    bad = np.clip(series["error_rate"] + series["shed_rate"], 0.0, 1.0)
    if slo:
        bad = np.maximum(bad, np.where(series["p99_ms"] > slo, 0.01, 0.0))
    return bad


def harm(session, series: dict, lo_s: float, hi_s: float) -> dict[str, float]:
    """Requests failed or shed, slow, and wrongly answered beyond the healthy rate, over [lo, hi)."""
    times, dt = series["times_s"], session.timeline.tick_s
    mask = (times >= lo_s) & (times < hi_s)
    offered = series["offered_rps"][mask] * dt
    failed = float(np.sum(offered * np.clip(series["error_rate"][mask] + series["shed_rate"][mask], 0, 1)))
    slo = session.design.requirements.slo_p99_ms
    slow = float(np.sum(offered[series["p99_ms"][mask] > slo] * 0.01)) if slo else 0.0
    shortfall = np.maximum(0.0, session.quality.healthy_pct - series["accuracy_pct"][mask]) / 100.0
    wrong = float(np.sum(offered * (1 - np.clip(series["error_rate"][mask], 0, 1)) * shortfall))
    return {"failed": failed, "slow": slow, "wrong_answers": wrong, "total": failed + slow + wrong}


def _restored(session, series: dict) -> bool:
    """Healthy over the last 10 simulated minutes: SLO met and accuracy within 1 point of healthy."""
    times = series["times_s"]
    if times.size == 0:
        return False
    recent = times >= times[-1] - 600.0
    req = session.design.requirements
    ok = True
    if session.drill.kind == "latency":
        if req.slo_p99_ms:
            ok &= bool(np.all(series["p99_ms"][recent] <= req.slo_p99_ms))
        allowed = 1.0 - (req.availability_slo or 99.9) / 100.0
        ok &= bool(np.mean(series["error_rate"][recent] + series["shed_rate"][recent]) <= max(allowed * 10, 0.005))
    else:
        ok &= bool(np.all(series["accuracy_pct"][recent] >= session.quality.healthy_pct - 1.0))
    return ok


def default_alert_s(session, series: dict) -> float:
    """When default burn-rate alerting (14.4× over 1 h and 5 min, 6× over 6 h and 30 min) would
    have fired after the impact began."""
    tick = session.timeline.tick_s
    burn = series["burn_rate"]
    firing = np.zeros(burn.size, dtype=bool)
    for long_s, short_s, rate, _ in BURN_WINDOWS:
        firing |= (rolling_mean(burn, long_s, tick) > rate) & (rolling_mean(burn, short_s, tick) > rate)
    after = np.flatnonzero(firing & (series["times_s"] >= session.impact_s))
    return float(series["times_s"][after[0]] + 15.0) if after.size else math.inf


@dataclass
class _Scoring:
    """What every criterion reads: the session, its actions, when the candidate was told, the horizon
    the outcome is judged at and its series, and the first mitigation that worked (if any)."""

    session: Any
    actions: list
    notice: float
    until: float
    series: dict
    fix_i: int | None
    fix: Any

    @classmethod
    def of(cls, session) -> _Scoring:
        """The scoring inputs of ``session``."""
        actions = session.actions
        until = session.outcome_horizon_s
        fix_i = next((i for i, a in enumerate(actions) if a.verb == "apply_mitigation" and a.outcome == "fixes"),
                     None)
        return cls(session, actions, session.notice_s, until, outcome_series(session, until), fix_i,
                   actions[fix_i] if fix_i is not None else None)

    def first(self, verb: str) -> tuple[int | None, Any]:
        """The index and action of the first ``verb``, or (None, None)."""
        for i, a in enumerate(self.actions):
            if a.verb == verb:
                return i, a
        return None, None

    def minutes(self, t: float) -> float:
        """Minutes from being told to ``t``."""
        return round((t - self.notice) / 60.0, 2)

    @property
    def horizon(self) -> str:
        """The judging horizon in words."""
        return f"by {self.minutes(self.until):g} min after being told"


def _symptom(sc: _Scoring) -> ScoreLine:
    """Stating the symptom and its scope, before mitigating."""
    i, a = sc.first("state_symptom")
    if a is None:
        return ScoreLine("symptom", 0, 5, "never stated the symptom and its scope")
    before = sc.fix is None or a.t_s <= sc.fix.t_s
    pts = (5.0 if a.args.get("scope") else 3.0) if before else 2.0
    return ScoreLine("symptom", pts, 5, "stated the symptom" + (" and scope" if a.args.get("scope") else
                                                                 " without a scope")
                     + ("" if before else ", but after mitigating"), i, sc.minutes(a.t_s))


def _changes_early(sc: _Scoring) -> ScoreLine:
    """Checking the recent-changes log early."""
    i, a = sc.first("check_changes")
    if a is None:
        return ScoreLine("changes_early", 0, 10, "never checked the recent-changes log")
    m = sc.minutes(a.t_s)
    return ScoreLine("changes_early", round(10 * _ramp(m, 10, 30), 2), 10,
                     f"checked recent changes {m:g} min after being told", i, m)


def _mitigation(sc: _Scoring) -> tuple[list[ScoreLine], float | None]:
    """Mitigating before the deep investigation, and the time to mitigate (returned too)."""
    fix, fix_i = sc.fix, sc.fix_i
    if fix is None:
        return [ScoreLine("mitigation_first", 0, 10, "no working mitigation"),
                ScoreLine("time_to_mitigate", 0, 25, "no working mitigation was applied")], None
    cause_i, cause = sc.first("name_root_cause")
    looks = sum(1 for x in sc.actions[:fix_i] if x.verb in ("open_dashboard", "slice_by_segment"))
    if (cause is None or cause_i > fix_i) and looks <= DEEP_LOOKS:
        pts, why = 10.0, "mitigated before the deep investigation"
    elif cause is None or cause_i > fix_i:
        pts, why = 5.0, f"mitigated before naming the cause, but after {looks} dashboard looks"
    else:
        pts, why = 0.0, "named the root cause before mitigating: users waited for the investigation"
    ttm = sc.minutes(fix.t_s)
    target = sc.session.drill.target_mitigate_min
    return [ScoreLine("mitigation_first", pts, 10, why, fix_i, ttm),
            ScoreLine("time_to_mitigate", round(25 * _ramp(ttm, target, 4 * target), 2), 25,
                      f"{fix.args.get('action')} {fix.args.get('target', '')} worked {ttm:g} min after "
                      f"being told (target {target:g} min)", fix_i, ttm)], ttm


def _error_budget(sc: _Scoring, ttm: float | None) -> tuple[ScoreLine, float]:
    """The error budget burned from the impact to the horizon (and the percentage burned); a quality
    drill's accuracy shortfall burns it as errors do, 1 point of accuracy like 1% errors."""
    session, series = sc.session, sc.series
    times, dt = series["times_s"], session.timeline.tick_s
    window = (times >= session.impact_s) & (times < sc.until)
    availability = session.design.requirements.availability_slo or 99.9
    budget_s = BUDGET_DAYS * 86400.0
    burned = float(np.sum(series["burn_rate"][window]) * dt / budget_s * 100.0)
    if session.drill.kind == "quality":
        shortfall = np.maximum(0.0, session.quality.healthy_pct - 1.0 - series["accuracy_pct"][window]) / 100.0
        burned += float(np.sum(shortfall / (1.0 - availability / 100.0)) * dt / budget_s * 100.0)
    points = round(15 * _ramp(burned, 1.0, 10.0), 2) if sc.fix is not None else 0.0
    return ScoreLine("error_budget", points, 15,
                     f"{burned:.2f}% of a {BUDGET_DAYS:g}-day error budget burned {sc.horizon}"
                     + ("" if sc.fix is not None else ": no working mitigation, so none of it was saved"),
                     sc.fix_i, ttm), burned


def _customer_impact(sc: _Scoring, ttm: float | None) -> tuple[ScoreLine, dict]:
    """Requests harmed from being told on, against doing nothing (and the impact figures)."""
    session, notice, until = sc.session, sc.notice, sc.until
    impact = harm(session, sc.series, session.impact_s, until)
    yours = harm(session, sc.series, notice, until)["total"]  # from being told on: what the candidate could change
    baseline = harm(session, _do_nothing(session, until), notice, until)["total"]
    ratio = yours / baseline if baseline > 0 else 0.0
    mitigated = any(x.verb == "apply_mitigation" for x in sc.actions)
    impact["after_notice"] = yours
    impact["share_of_doing_nothing"] = round(ratio, 4)
    return ScoreLine("customer_impact", round(10 * _ramp(ratio, 0.3, 1.0), 2) if mitigated else 0.0, 10,
                     f"{yours:,.0f} requests harmed {sc.horizon}, {ratio:.0%} of doing nothing"
                     + ("" if mitigated else ": no mitigation was tried"), sc.fix_i, ttm), impact


def _made_worse(sc: _Scoring, lines: list[ScoreLine]) -> None:
    """A penalty line for each mitigation that made the incident worse (capped in total)."""
    for k, x in enumerate(sc.actions):
        if x.verb == "apply_mitigation" and x.outcome == "worsens":
            lost = min(WORSE_PENALTY, WORSE_CAP + sum(line.points for line in lines if line.criterion == "made_worse"))
            lines.append(ScoreLine("made_worse", -lost, 0, f"{x.args.get('action')} {x.args.get('target', '')} "
                                   "made the incident worse", k, sc.minutes(x.t_s)))


def _root_cause(sc: _Scoring) -> ScoreLine:
    """The drill's key points named in the best root-cause statement."""
    drill = sc.session.drill
    cause_i, cause = sc.first("name_root_cause")
    if cause is None:
        return ScoreLine("root_cause", 0, 15, "never named a root cause")
    found = max(_matches(x.args.get("text", ""), drill.keywords) for x in sc.actions if x.verb == "name_root_cause")
    pts = 15.0 * min(1.0, found / drill.keywords_needed)
    return ScoreLine("root_cause", round(pts, 2), 15, f"root cause: {found} key point(s) named, "
                     f"{drill.keywords_needed} needed", cause_i, sc.minutes(cause.t_s))


def _follow_up(sc: _Scoring) -> ScoreLine:
    """The long-term fix and monitoring written, against the drill's expected points."""
    drill = sc.session.drill
    i, a = sc.first("write_follow_up")
    if a is None:
        return ScoreLine("follow_up", 0, 10, "no long-term fix or monitoring written")
    fix_hits = _matches(a.args.get("fix", ""), drill.fix_keywords)
    mon_hits = _matches(a.args.get("monitoring", ""), drill.monitoring_keywords)
    pts = 5 * min(1.0, fix_hits / max(1, min(2, len(drill.fix_keywords)))) + 5 * min(
        1.0, mon_hits / max(1, min(2, len(drill.monitoring_keywords))))
    return ScoreLine("follow_up", round(pts, 2), 10, f"long-term fix covers {fix_hits} and monitoring "
                     f"{mon_hits} of the expected points", i, sc.minutes(a.t_s))


def score(session) -> DrillResult:
    """The drill's score so far: one line per criterion, the percentage and grade, and what the
    report shows beside them (time to mitigate, budget burned, impact, missing observability)."""
    sc = _Scoring.of(session)
    drill, actions, notice = session.drill, sc.actions, sc.notice
    now = session.finished_at if session.finished_at is not None else session.now_s
    lines = [_symptom(sc), _changes_early(sc)]
    mitigation, ttm = _mitigation(sc)
    lines += mitigation
    budget, burned = _error_budget(sc, ttm)
    impact_line, impact = _customer_impact(sc, ttm)
    lines += [budget, impact_line]
    _made_worse(sc, lines)
    lines += [_root_cause(sc), _follow_up(sc)]
    possible = sum(line.max_points for line in lines)
    earned = max(0.0, sum(line.points for line in lines))
    percent = round(100.0 * earned / possible, 2) if possible else 0.0
    return DrillResult(drill.id, drill.title, percent, grade_of(percent), lines, round(notice / 60.0, 2),
                       round(now / 60.0, 2), ttm, round(burned, 4), {k: round(v, 2) for k, v in impact.items()},
                       missing_observability(session, sc.series, ttm), _restored(session, sc.series),
                       [x.to_dict() for x in actions])


def outcome_series(session, until: float) -> dict:
    """The drill's series up to ``until``: the session's own when it has run that far, else its
    recorded actions replayed on a copy that runs on to ``until`` (ending early changes nothing)."""
    if session.now_s >= until:
        return session.series()
    memo = session.outcome_run
    if memo is not None and memo[0] == len(session.actions):
        return memo[1]
    other = session.replayed()
    other.advance_to(until)
    found = other.series()
    session.outcome_run = (len(session.actions), found)
    return found


def _do_nothing(session, until: float) -> dict:
    """The same drill with no action taken, up to ``until`` (the baseline of customer impact)."""
    memo = session.do_nothing_run
    if memo is not None and memo[0] >= until:
        return memo[1]
    other = session.scout()
    other.advance_to(until)
    found = other.series()
    session.do_nothing_run = (until, found)
    return found


def missing_observability(session, series: dict, ttm: float | None) -> list[MissingObservability]:
    """The views and alerts the design lacked, each with the minutes it cost the candidate."""
    obs, out = session.observability, []
    if obs.alerting is None or not obs.system:
        alert = default_alert_s(session, _do_nothing(session, session.notice_s))
        cost = max(0.0, (session.notice_s - alert) / 60.0) if math.isfinite(alert) else 0.0
        what = "alerting fed by system metrics" if obs.collectors else "a metrics collector and alerting"
        out.append(MissingObservability(what, round(cost, 1), "you learnt of the incident "
                                        + (f"{cost:.0f} min later than a burn-rate page would have told you"
                                           if cost > 0 else "from a customer, not from an alert")))
    for evidence in session.drill.evidence:
        reason = obs.available(evidence.view)
        if reason:
            over = max(0.0, (ttm if ttm is not None else (session.now_s - session.notice_s) / 60.0)
                       - session.drill.target_mitigate_min)
            out.append(MissingObservability(f"the {evidence.view} view", round(over, 1),
                                            f"{session.fill(evidence.shows)} — not visible: {reason}"))
    return out
