"""What a drill shows, and to whom: the candidate sees only what the design's observability
provides; the interviewer sees the hidden truth.

- Dashboards exist only where a metrics collector does: ``system`` (latency, errors, traffic,
  error-budget burn, replicas) with ``system_metrics``, ``model`` and ``segments`` (accuracy
  overall, by model version and by traffic segment, ``label_delay_s`` late; input shift per
  segment) with ``model_metrics``, ``business`` with ``business_metrics``. ``breakdown`` (time
  spent, queue wait, utilisation and replicas per component) covers only the components wired
  to a collector (their telemetry port): the others are listed as not instrumented.
- Alerts fire only where an alerting node reads a collector: burn-rate pages and tickets with the
  alerting node's rates over the 1 h / 5 min and 6 h / 30 min windows, or fixed thresholds when
  burn-rate alerts are off; accuracy below target (model metrics), the business metric down 10%
  (business metrics), and drift alerts from detectors wired to alerting. With ``grouping`` the
  alerts of one incident arrive as one notification; without it each rule notifies on its own and
  repeats every ``dedup_window_s`` while it holds. Alerts arrive one scrape interval late.
- The recent-changes log is always there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from inferboard.sim.quality.drift import FeatureStream
from inferboard.sim.timeline.timeline_events import rolling_mean

COMPLAINT_DELAY_S = 20 * 60.0  #: customers notice a latency incident this late without alerting (assumption)
QUALITY_COMPLAINT_DELAY_S = 3 * 3600.0  #: and a quality drop this late (assumption)
FIXED_ERROR_THRESHOLD = 0.01  #: error + shed share that pages when burn-rate alerts are off
ACCURACY_MARGIN_PP = 2.0  #: without an accuracy target, an alert fires this far below healthy
ACCURACY_ALERT_S = 900.0  #: accuracy must stay low this long to alert
BUSINESS_DROP = 0.10  #: the business metric's relative drop that opens a ticket
DASHBOARDS = {"system": "System metrics", "breakdown": "Latency by component", "model": "Model quality",
              "segments": "Model quality by segment", "business": "Business metrics"}


@dataclass(frozen=True)
class Observability:
    """What the design lets anyone see."""

    collectors: tuple[str, ...]
    system: bool
    model: bool
    business: bool
    scrape_s: float
    instrumented: tuple[str, ...]
    not_instrumented: tuple[str, ...]
    alerting: dict[str, Any] | None
    alerting_id: str = ""
    drift_alerts: tuple[str, ...] = ()
    detectors: tuple[str, ...] = ()

    @classmethod
    def of(cls, design) -> "Observability":
        """What the design lets the candidate observe: collectors, the components they instrument, alerting
        and drift alerts."""
        collectors = [n for n in design.nodes_of_kind("metrics_collector")]
        ids = {c.id for c in collectors}

        def flag(name: str) -> bool:
            return any(bool(c.params.get(name)) for c in collectors)

        instrumented = sorted({e.source for e in design.edges.values() if e.target in ids})
        observed = design.catalog.kinds_with_role("can_fail", "canary")  # what system metrics show
        components = sorted(n.id for n in design.nodes.values() if n.kind in observed)
        alerting, alerting_id = None, ""
        for node in design.nodes_of_kind("alerting"):
            if any(e.source in ids and e.target == node.id for e in design.edges.values()):
                alerting, alerting_id = dict(node.params), node.id
                break
        detectors = tuple(sorted(n.id for n in design.nodes_of_kind("drift_detector")
                                 if any(e.source in ids and e.target == n.id for e in design.edges.values())
                                 and flag("model_metrics")))
        drift_alerts = tuple(d for d in detectors if any(e.source == d and e.target == alerting_id
                                                         for e in design.edges.values()))
        scrape = min((float(c.params.get("scrape_interval_s", 15.0)) for c in collectors), default=15.0)
        return cls(tuple(sorted(ids)), flag("system_metrics"), flag("model_metrics"), flag("business_metrics"),
                   scrape, tuple(i for i in instrumented if i in components),
                   tuple(c for c in components if c not in instrumented), alerting, alerting_id, drift_alerts,
                   detectors)

    def available(self, view: str) -> str:
        """Why ``view`` does not exist here ('' when it does)."""
        if view == "changes":
            return ""
        if view in ("system", "breakdown", "model", "segments", "business") and not self.collectors:
            return "the design has no metrics collector"
        if view == "system" and not self.system:
            return "the metrics collector does not collect system metrics"
        if view == "breakdown":
            if not self.system:
                return "the metrics collector does not collect system metrics"
            if not self.instrumented:
                return "no component sends telemetry to the metrics collector"
        if view in ("model", "segments") and not self.model:
            return "the metrics collector does not collect model metrics"
        if view == "business" and not self.business:
            return "the metrics collector does not collect business metrics"
        if view == "alerts" and self.alerting is None:
            return "the design has no alerting fed by a metrics collector"
        return ""


@dataclass
class Dashboard:
    """A dashboard as the candidate sees it: its panels of series over time (minutes), up to now, with notes."""
    name: str
    title: str
    times_min: np.ndarray
    #: panel title -> line label -> values (NaN where not known yet, e.g. labels not in)
    panels: dict[str, dict[str, np.ndarray]]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Unavailable:
    """A view the design does not have, and why."""
    name: str
    reason: str


@dataclass(frozen=True)
class Alert:
    """An alert that fired: when, by which rule, how severe, and its message."""
    t_s: float
    rule: str
    severity: str  #: page or ticket
    message: str


@dataclass(frozen=True)
class Notification:
    """What reached the candidate at a time: a page or a ticket, its title, and the alerts behind it."""
    t_s: float
    severity: str
    title: str
    alerts: tuple[Alert, ...]


@dataclass
class CandidateView:
    """Everything the candidate sees now: the page, how they learnt of the incident, the dashboards (or
    why one is unavailable), notifications, the change log and the views the design lacks."""
    now_s: float
    page: str
    notice_s: float
    notice: str
    dashboards: dict[str, Dashboard | Unavailable]
    notifications: list[Notification]
    changes: list[dict[str, Any]]
    missing: list[str]


@dataclass
class HiddenTruth:
    """The truth behind the drill, for the interviewer: the root cause, the roles filled, the planted changes
    and decoys, the mitigations, the faults, whether the SLO and accuracy hold now, and the events."""
    drill_id: str
    root_cause: str
    roles: dict[str, str]
    planted_changes: list[dict[str, Any]]
    decoys: list[dict[str, Any]]
    mitigations: list[dict[str, Any]]
    faults: list[str]
    slo_ok_now: bool
    accuracy_now: float
    events: list[tuple[float, str, str, str]]


# ---------------------------------------------------------------------- alerts
def _rises(flags: np.ndarray) -> np.ndarray:
    d = np.diff(np.concatenate(([0], flags.astype(np.int8))))
    return np.flatnonzero(d == 1)


def alerts(session, series: dict | None = None) -> list[Alert]:
    """Every alert the design's alerting raised so far (empty without alerting)."""
    obs = session.observability
    if obs.alerting is None:
        return []
    s = series if series is not None else session.series()
    times, tick = s["times_s"], session.timeline.tick_s
    if times.size == 0:
        return []
    cfg, lag, out = obs.alerting, obs.scrape_s, []
    if obs.system:
        burn = s["burn_rate"]
        if cfg.get("burn_rate_alerts", True):
            for long_s, short_s, rate, sev in ((3600.0, 300.0, float(cfg.get("fast_burn_rate", 14.4)), "page"),
                                               (21600.0, 1800.0, float(cfg.get("slow_burn_rate", 6.0)), "ticket")):
                firing = (rolling_mean(burn, long_s, tick) > rate) & (rolling_mean(burn, short_s, tick) > rate)
                for i in _rises(firing):
                    out.append(Alert(times[i] + lag, f"burn rate {rate:g}×", sev,
                                     f"error budget burning over {rate:g}× ({long_s / 3600:g} h and "
                                     f"{short_s / 60:g} min windows)"))
        else:
            bad = rolling_mean(s["error_rate"] + s["shed_rate"], 300.0, tick)
            for i in _rises(bad > FIXED_ERROR_THRESHOLD):
                out.append(Alert(times[i] + lag, "errors over 1%", "page", "errors and shedding above 1% for 5 min"))
            slo = session.design.requirements.slo_p99_ms
            if slo:
                for i in _rises(rolling_mean(s["p99_ms"], 300.0, tick) > slo):
                    out.append(Alert(times[i] + lag, "p99 over SLO", "page", f"p99 above {slo:g} ms for 5 min"))
    if obs.model:
        target = session.design.requirements.accuracy_target_pct
        floor = target if target is not None else session.quality.healthy_pct - ACCURACY_MARGIN_PP
        low = rolling_mean((s["accuracy_pct"] < floor).astype(float), ACCURACY_ALERT_S, tick) >= 1.0 - 1e-9
        for i in _rises(low):
            out.append(Alert(times[i] + session.quality.label_delay_s + lag, "accuracy below target", "page",
                             f"accuracy under {floor:.1f}% for {ACCURACY_ALERT_S / 60:g} min (labelled traffic)"))
    if obs.business:
        metric = s[f"{session.quality.business.metric}_pct"]
        base = session.quality.business.base_pct
        for i in _rises(rolling_mean(metric, 1800.0, tick) < (1.0 - BUSINESS_DROP) * base):
            out.append(Alert(times[i] + lag, f"{session.quality.business.metric} down", "ticket",
                             f"{session.quality.business.metric} 10% under its usual level for 30 min"))
    for detector in session.quality.detectors:
        if detector.node_id in obs.drift_alerts and detector.fired_at is not None:
            out.append(Alert(detector.fired_at + lag, f"drift ({detector.node_id})", "ticket",
                             f"{detector.test.upper()} over {detector.threshold:g} on the "
                             f"{detector.window_s / 3600:g} h window"))
    now = session.now_s
    return sorted((a for a in out if a.t_s <= now + 1e-9), key=lambda a: (a.t_s, a.rule))


def notifications(session, raised: list[Alert]) -> list[Notification]:
    """Alerts as the on-call receives them: grouped into one per incident, or one per rule and
    repeated every dedup window when grouping is off."""
    cfg = session.observability.alerting or {}
    if not raised:
        return []
    if cfg.get("grouping", True):
        first = raised[0]
        severity = "page" if any(a.severity == "page" for a in raised) else "ticket"
        return [Notification(first.t_s, severity, f"{first.rule} (+{len(raised) - 1} grouped)" if len(raised) > 1
                             else first.rule, tuple(raised))]
    window = max(60.0, float(cfg.get("dedup_window_s", 300.0)))
    out = []
    for a in raised:
        t = a.t_s
        while t <= session.now_s + 1e-9 and len(out) < 500:
            out.append(Notification(t, a.severity, a.rule, (a,)))
            t += window
    return sorted(out, key=lambda n: n.t_s)


def first_notice(session) -> tuple[float, str]:
    """When and how the candidate learns of the incident: the first alert, or a complaint."""
    delay = QUALITY_COMPLAINT_DELAY_S if session.drill.kind == "quality" else COMPLAINT_DELAY_S
    complaint = min(session.impact_s + delay, session.horizon_s)
    scout = session.scout()
    scout.advance_to(complaint)
    raised = [a for a in alerts(scout) if a.t_s >= session.impact_s - 1e-9]
    if raised and raised[0].t_s <= complaint:
        how = "paged" if raised[0].severity == "page" else "a ticket opened"
        return raised[0].t_s, f"{how}: {raised[0].message}"
    if not customer_visible(scout, scout.series(), session.impact_s, complaint):
        return complaint, "a routine look at the dashboards (nothing alerted, and no customer has complained)"
    return complaint, "a customer reports the problem (nothing alerted)"


#: A share of requests failed or shed that customers notice (a tenth of a 99.9% budget would not be).
VISIBLE_LOSS = 0.01
#: Accuracy points under healthy that customers notice in their answers.
VISIBLE_ACCURACY_PP = 1.0


def customer_visible(session, series: dict, lo_s: float, hi_s: float) -> bool:
    """Whether anything a customer would notice happened in ``[lo_s, hi_s]``: p99 over its SLO, more
    than :data:`VISIBLE_LOSS` of requests lost, or accuracy :data:`VISIBLE_ACCURACY_PP` under healthy."""
    times = series["times_s"]
    mask = (times >= lo_s - 1e-9) & (times <= hi_s + 1e-9)
    if not mask.any():
        return False
    slo = session.design.requirements.slo_p99_ms
    slow = bool(slo) and bool(np.any(series["p99_ms"][mask] > slo))
    lost = bool(np.any(series["error_rate"][mask] + series["shed_rate"][mask] > VISIBLE_LOSS))
    accuracy = series.get("accuracy_pct")
    wrong = accuracy is not None and bool(np.any(accuracy[mask] < session.quality.healthy_pct - VISIBLE_ACCURACY_PP))
    return slow or lost or wrong


# ---------------------------------------------------------------------- dashboards
def _known_until(values: np.ndarray, times: np.ndarray, until: float) -> np.ndarray:
    out = np.array(values, dtype=float)
    out[times > until] = np.nan
    return out


def dashboard(session, name: str, series: dict | None = None) -> Dashboard | Unavailable:
    """The dashboard ``name`` from the session's series (or ``series``), or why the design does not have it."""
    if name not in DASHBOARDS:
        return Unavailable(name, f"no dashboard called '{name}'; there are {', '.join(DASHBOARDS)}")
    obs = session.observability
    reason = obs.available(name)
    if reason:
        return Unavailable(name, reason)
    s = series if series is not None else session.series()
    times = s["times_s"]
    t_min = times / 60.0
    req = session.design.requirements
    panels: dict[str, dict[str, np.ndarray]] = {}
    notes: list[str] = []
    pools = [p.id for p in session.timeline.pools]
    if name == "system":
        latency = {k: s[f"{k}_ms"] for k in ("p50", "p95", "p99")}
        if req.slo_p99_ms:
            latency["p99 SLO"] = np.full(times.size, float(req.slo_p99_ms))
        panels["Latency (ms)"] = latency
        panels["Errors and shedding (%)"] = {"errors": 100 * s["error_rate"], "shed": 100 * s["shed_rate"]}
        panels["Traffic (requests/s)"] = {"offered": s["offered_rps"], "served": s["throughput_rps"]}
        panels["Error budget burn (×)"] = {"burn rate": s["burn_rate"]}
        panels["Ready replicas"] = {p: s[f"ready:{p}"] for p in pools if p in obs.instrumented}
    elif name == "breakdown":
        for node_id in obs.instrumented:
            if f"wait_ms:{node_id}" not in s:
                continue
            lines = {"queue wait (ms)": s[f"wait_ms:{node_id}"]}
            if f"sojourn_ms:{node_id}" in s:
                lines["time spent (ms)"] = s[f"sojourn_ms:{node_id}"]
            lines["utilisation (%)"] = 100 * s.get(f"utilisation:{node_id}", np.zeros(times.size))
            lines["ready replicas"] = s.get(f"ready:{node_id}", np.zeros(times.size))
            panels[node_id] = lines
        if obs.not_instrumented:
            notes.append("not instrumented (no telemetry wired to the collector): " + ", ".join(obs.not_instrumented))
    elif name == "model":
        known = session.now_s - session.quality.label_delay_s
        panels["Accuracy (%), labelled traffic"] = {"all traffic": _known_until(s["accuracy_pct"], times, known)}
        by_version: dict[str, np.ndarray] = {}
        for pool in session.quality.pools:
            share = s[f"served_share:{pool}"]
            names = [session.quality.version_of(pool, t).name for t in times]
            for version in sorted(set(names)):
                mask = np.array([n == version for n in names])
                by_version.setdefault(version, np.zeros(times.size))
                by_version[version] += np.where(mask, share, 0.0) * 100
        panels["Traffic by model version (%)"] = by_version
        panels["Traffic by serving path (%)"] = {p: 100 * s[f"served_share:{p}"] for p in session.quality.pools}
        notes.append(f"accuracy needs labels, which arrive {session.quality.label_delay_s / 60:g} min late")
    elif name == "segments":
        return segment_slice(session, "model", s)
    elif name == "business":
        metric = session.quality.business.metric
        panels[f"{metric.capitalize()} (%)"] = {metric: s[f"{metric}_pct"]}
    return Dashboard(name, DASHBOARDS[name], t_min, panels, notes)


def segment_slice(session, name: str = "model", series: dict | None = None) -> Dashboard | Unavailable:
    """Accuracy and input shift per traffic segment (model metrics needed)."""
    reason = session.observability.available("segments")
    if reason:
        return Unavailable("segments", reason)
    s = series if series is not None else session.series()
    times = s["times_s"]
    known = session.now_s - session.quality.label_delay_s
    panels = {"Accuracy by segment (%)": {seg.title: _known_until(s[f"accuracy_pct:{seg.id}"], times, known)
                                          for seg in session.quality.segments}}

    shifts = session.quality.shifts()
    shift_panel = {}
    for i, seg in enumerate(session.quality.segments):
        stream = FeatureStream(session.seed, i, seg.id, seg.share, "input", shifts)
        means = np.zeros(times.size)
        for k, t in enumerate(times):
            window = stream.window(t - 3600.0, t)
            means[k] = float(window.mean()) if window.size else 0.0
        shift_panel[seg.title] = means
    panels["Input feature, mean of the last hour (sd units)"] = shift_panel
    return Dashboard("segments", DASHBOARDS["segments"], times / 60.0, panels,
                     [f"accuracy needs labels, which arrive {session.quality.label_delay_s / 60:g} min late"])


def change_log(session) -> list[dict[str, Any]]:
    """The recent-changes log up to now (planted and decoys alike, and the candidate's own
    mitigations), newest first; no entry says which one is the cause."""
    now_min = session.now_s / 60.0
    rows = [{"at_min": c.at_min, "kind": c.kind, "text": session.fill(c.text)}
            for c in session.drill.changes if c.at_min <= now_min + 1e-9]
    for t, action, target, _ in session.mitigations:
        rows.append({"at_min": t / 60.0, "kind": "operation", "text": f"you: {action.replace('_', ' ')} {target}".strip()})
    for t, text in session.quality.history:
        if 0 <= t <= session.now_s and "retraining" in text:
            rows.append({"at_min": t / 60.0, "kind": "model", "text": text})
    return sorted(rows, key=lambda r: -r["at_min"])


def candidate_view(session, names=None) -> CandidateView:
    """What the candidate sees now (only the dashboards ``names`` computed, when given)."""
    s = session.series()
    obs = session.observability
    wanted = set(DASHBOARDS if names is None else names)
    shown = {name: dashboard(session, name, s) if name in wanted else Unavailable(name, obs.available(name))
             for name in DASHBOARDS if name in wanted or obs.available(name)}
    raised = alerts(session, s)
    missing = [f"{name}: {obs.available(name)}" for name in (*DASHBOARDS, "alerts") if obs.available(name)]
    return CandidateView(session.now_s, session.page, session.notice_s, session.notice, shown,
                         notifications(session, raised), change_log(session), missing)


def hidden_truth(session) -> HiddenTruth:
    """The hidden truth of the session now."""
    s = session.series()
    k = max(0, session.timeline.ticks_done - 1)
    req = session.design.requirements
    slo_ok = bool(s["times_s"].size == 0 or req.slo_p99_ms is None or s["p99_ms"][k] <= req.slo_p99_ms
                  and s["error_rate"][k] + s["shed_rate"][k] < 1.0 - (req.availability_slo or 99.9) / 100.0 + 1e-3)
    drill = session.drill
    changes = [{"at_min": c.at_min, "kind": c.kind, "text": session.fill(c.text)} for c in drill.changes]
    events = [(e.time_s, e.kind, e.node_id, e.message) for e in session.timeline.result().events]
    events += [(t, kind, "", message) for t, kind, message in session.quality_events]
    return HiddenTruth(
        drill.id, session.fill(drill.root_cause), dict(session.roles),
        [row for row, c in zip(changes, drill.changes) if c.planted],
        [row for row, c in zip(changes, drill.changes) if not c.planted],
        [{"action": m.action, "target": session.fill(m.target), "value": m.value, "effect": m.effect,
          "why": session.fill(m.why)} for m in drill.mitigations],
        [f"{f.kind} on {f.target} from {f.start_s / 60:g} min for {f.duration_s / 60:g} min"
         + ("" if f.magnitude is None else f" (×{f.magnitude:g})") for f in session.timeline.timed],
        slo_ok, float(s["accuracy_pct"][k]) if s["times_s"].size else math.nan, sorted(events))
