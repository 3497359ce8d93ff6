"""The model-quality layer over a timeline: which model version each serving path runs, its
accuracy per traffic segment, drift that erodes it, the drift detectors that notice, retraining
that restores it through the canary, and a business metric that follows quality and latency.

How a tick's quality is found (all of it deterministic for a seed):
- every model pool (GPU, CPU and generation pools, fallback models; preprocessing is not a model)
  runs a :class:`ModelVersion`; pools on a canary router's canary port run the canary's version,
  the others the stable one. The share of traffic each pool serves comes from the timeline's
  per-tick arrivals (``arrival_rps:<pool>``), so a failover, a canary share or a fallback
  switch moves quality exactly as it moves load;
- a version's accuracy on segment ``s`` is the segment's base accuracy plus the version's own
  offset, minus the loss of every drift event on ``s`` that began after the version's training
  data was cut (``trained_at_s``), minus the pool's cost: a fallback model its
  ``accuracy_drop_pct``, an INT8 pool :data:`INT8_ACCURACY_COST_PP`;
- accuracy per segment = sum over pools of (share served × that accuracy); overall = the mean over
  segments weighted by their traffic shares. It is known ``label_delay_s`` late (labels arrive
  after the fact), which is what a model dashboard shows;
- the business metric follows a declared relation (:class:`BusinessRelation`): a base rate,
  scaled by ``1 + per_accuracy_pp × (accuracy - healthy accuracy)``, by
  ``1 - per_latency_ratio × max(0, p95 / reference - 1)``, and by the share of requests answered;
- drift detectors (:mod:`drift`) watch synthetic samples of each segment's input feature (input
  drift shifts it) and of its residual (concept drift shifts it, labels ``label_delay_s`` late);
- a retraining run (started by a detector whose action retrains and which feeds a retraining
  pipeline, or by hand) takes ``retrain_s``; the new version has learnt every drift that began at
  least a label delay before the run started. With a canary router and ``promote_via_canary`` it
  first serves the canary pools for the router's evaluation window, then every model pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.model.faults import FAULT_KINDS, is_quality_fault
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.quality.drift import EVALUATION_S, DriftDetector, Shift, expected_delay_s, ramp_level

INT8_ACCURACY_COST_PP = 1.0  #: accuracy an INT8 copy of the model loses, percentage points (assumption)
RETRAIN_S = 6 * 3600.0  #: a retraining run, data pull to validated artefact (assumption)
LABEL_DELAY_S = 1800.0  #: labels (clicks, chargebacks, reviews) arrive this late (assumption)


@dataclass(frozen=True)
class Segment:
    """A traffic segment: its share of all traffic and the stable version's accuracy on it."""
    id: str
    share: float  #: share of all traffic
    accuracy_pct: float  #: the stable version's accuracy on it while nothing drifts
    title: str = ""


@dataclass(frozen=True)
class ModelVersion:
    """A model version: its accuracy offset per segment (percentage points) and when it was trained."""
    name: str
    delta_pp: Mapping[str, float] = field(default_factory=dict)  #: per segment id, or ``*``: offset in pp
    trained_at_s: float = -math.inf  #: drift that began a label delay before this is learnt
    note: str = ""

    def offset(self, segment: str) -> float:
        """The version's accuracy offset on ``segment`` (its own, else the ``*`` one, else 0)."""
        return float(self.delta_pp.get(segment, self.delta_pp.get("*", 0.0)))


@dataclass(frozen=True)
class DriftEvent:
    """Drift in one segment (or all): input or concept, when it starts, how it ramps and ends, the accuracy
    it costs and how far the monitored distribution moves."""
    kind: str  #: ``input`` (features move) or ``concept`` (the input-to-outcome link moves)
    segment: str  #: segment id or ``*``
    start_s: float
    accuracy_drop_pp: float
    shift_sd: float = 1.0  #: how far the monitored distribution moves, in standard deviations
    ramp_s: float = 0.0
    end_s: float = math.inf  #: the drift is over from here on (the world went back, an upstream fix)
    share: float = 1.0  #: the share of the segment's requests it moves (see :class:`drift.Shift`)

    def level(self, t: np.ndarray) -> np.ndarray:
        """0 before the drift, rising to full strength over its ramp, 0 again when it is over."""
        return ramp_level(t, self.start_s, self.ramp_s, self.end_s)


@dataclass(frozen=True)
class BusinessRelation:
    """How the business metric follows quality and latency: its base, its change per accuracy point, and its
    loss as p95 passes the reference latency."""
    metric: str = "conversion"
    base_pct: float = 4.0
    per_accuracy_pp: float = 0.03  #: relative change of the metric per accuracy point
    per_latency_ratio: float = 0.2  #: relative loss per 100% of p95 above the reference
    reference_latency_ms: float | None = None  #: default: the design's p95 SLO, else its p99 SLO


def declared_business(design: Design) -> BusinessRelation:
    """The business relation for the metric the requirements declare (conversion at 4% by default)."""
    req = design.requirements
    return BusinessRelation(metric=req.business_metric, base_pct=req.business_base_pct or BusinessRelation.base_pct)


DEFAULT_SEGMENTS = (Segment("web", 0.5, 94.0, "Web"), Segment("mobile", 0.35, 93.0, "Mobile app"),
                    Segment("new-users", 0.15, 90.0, "New users"))
HEADROOM_PP = 2.5  #: with an accuracy target, the healthy model beats it by about this much


def default_segments(design: Design, target: float | None = None) -> tuple[Segment, ...]:
    """Three segments (web, mobile app, new users); with an accuracy target (``target``, else the
    requirements') their accuracies sit about :data:`HEADROOM_PP` above it (new users lower, web higher)."""
    target = design.requirements.accuracy_target_pct if target is None else target
    if target is None:
        return DEFAULT_SEGMENTS
    healthy = sum(s.share * s.accuracy_pct for s in DEFAULT_SEGMENTS)
    shift = target + HEADROOM_PP - healthy
    return tuple(Segment(s.id, s.share, min(99.9, s.accuracy_pct + shift), s.title) for s in DEFAULT_SEGMENTS)


def model_pools(design: Design) -> dict[str, str]:
    """pool id -> ``stable``, ``canary:<router id>`` or ``fallback``."""
    structure = DesignStructure(design)
    model_kinds = design.catalog.kinds_with_role("model_pool")
    out: dict[str, str] = {}
    for router in design.nodes_of_kind("canary_router"):
        for child, port in structure.children[router.id]:
            if port == "canary":
                for node_id in {child} | structure.descendants(child):
                    if design.nodes[node_id].kind in model_kinds:
                        out[node_id] = f"canary:{router.id}"
    for node in design.nodes.values():
        if node.kind in model_kinds and node.id not in out:
            out[node.id] = "fallback" if node.kind == "fallback_model" else "stable"
    return out


def pool_cost_pp(design: Design, pool_id: str) -> float:
    """The accuracy a pool gives up against the full model, in percentage points (a fallback's stated drop,
    an INT8 copy's cost)."""
    node = design.nodes[pool_id]
    if node.kind == "fallback_model":
        return float(node.params.get("accuracy_drop_pct", 0.0))
    if node.params.get("precision") == "int8":
        return INT8_ACCURACY_COST_PP
    return 0.0


def _linked(design: Design, source_kind: str, target_id: str) -> list[str]:
    return [e.source for e in design.edges.values() if e.target == target_id
            and design.nodes[e.source].kind == source_kind]


class QualityLayer:
    """Model quality over a timeline of ``design`` (see the module docstring)."""

    def __init__(self, design: Design, segments: Sequence[Segment] = DEFAULT_SEGMENTS,
                 business: BusinessRelation | None = None, seed: int = 0,
                 label_delay_s: float = LABEL_DELAY_S, retrain_s: float = RETRAIN_S,
                 stable: ModelVersion = ModelVersion("v1")):
        total = sum(s.share for s in segments)
        if not segments or total <= 0:
            raise ValueError("the quality layer needs at least one segment with a share")
        self.design = design
        self.segments = [Segment(s.id, s.share / total, s.accuracy_pct, s.title or s.id) for s in segments]
        self.business, self.seed = business or declared_business(design), int(seed)
        self.label_delay_s, self.retrain_s = float(label_delay_s), float(retrain_s)
        self.pools = model_pools(design)
        self.drift: list[DriftEvent] = []
        #: (from time, pool id, version), in the order applied; the last one at or before t wins
        self.assignments: list[tuple[float, str, ModelVersion]] = [(-math.inf, p, stable) for p in self.pools]
        self.history: list[tuple[float, str]] = []  #: (time, what happened) for the change log
        self.retraining: list[dict] = []  #: each run: start, ready, version, promoted
        #: A defect of the training pipeline every retrained version inherits (per segment or ``*``).
        self.retrain_delta_pp: dict[str, float] = {}
        self.now_s = 0.0
        self.detectors = self._detectors()
        self.healthy_pct = sum(s.share * s.accuracy_pct for s in self.segments)

    # ------------------------------------------------------------------ design facts
    def _detectors(self) -> list[DriftDetector]:
        out = []
        for node in self.design.nodes_of_kind("drift_detector"):
            feeds = [c for c in _linked(self.design, "metrics_collector", node.id)
                     if self.design.nodes[c].params.get("model_metrics")]
            if not feeds:  # a detector without model metrics has nothing to compare
                continue
            p = node.params
            out.append(DriftDetector(node.id, str(p.get("test", "psi")), float(p.get("window_hours", 24.0)) * 3600.0,
                                     float(p.get("threshold", 0.2)), str(p.get("drift_type", "both")),
                                     [(s.id, s.share) for s in self.segments], [], self.seed, self.label_delay_s))
        return out

    def detector_retrains(self, detector_id: str) -> bool:
        """Whether the drift detector ``detector_id`` triggers a retraining pipeline it is wired to."""
        node = self.design.nodes[detector_id]
        return (str(node.params.get("action", "alert")) in ("retrain", "alert_and_retrain")
                and any(self.design.nodes[e.target].kind == "retraining_pipeline"
                        for e in self.design.edges.values() if e.source == detector_id))

    def pipeline(self):
        """The design's retraining pipeline, if it has one."""
        found = self.design.nodes_of_kind("retraining_pipeline")
        return found[0] if found else None

    # ------------------------------------------------------------------ what happens
    def version_of(self, pool_id: str, t: float) -> ModelVersion:
        """The model version the pool ``pool_id`` runs at time ``t``."""
        found = None
        for start, pid, version in self.assignments:
            if pid == pool_id and start <= t:
                found = version
        if found is None:
            raise KeyError(pool_id)
        return found

    def set_version(self, t: float, version: ModelVersion, where: str = "all") -> None:
        """Serve ``version`` from ``t`` on: ``where`` is ``all``, ``stable``, ``canary`` (every
        canary pool), ``canary:<router>`` or a pool id."""
        for pool, role in self.pools.items():
            if (where == "all" and role != "fallback" or where == role or where == pool
                    or where == "canary" and role.startswith("canary:")):
                self.assignments.append((t, pool, version))
        self.history.append((t, f"model {version.name} serves {where}"))

    def previous_version(self, t: float) -> ModelVersion | None:
        """The stable version before the one serving at ``t`` (what pinning goes back to)."""
        stable = [p for p, r in self.pools.items() if r == "stable"]
        if not stable:
            return None
        current = self.version_of(stable[0], t)
        seen = []
        for start, pid, version in self.assignments:
            if pid == stable[0] and start <= t and version.name != current.name and version not in seen:
                seen.append(version)
        return seen[-1] if seen else None

    def add_drift(self, event: DriftEvent) -> None:
        """Add a drift event from now on."""
        self.drift.append(event)
        self._shifts_changed()

    def shifts(self) -> list[Shift]:
        """The drift events as the detectors' shifts (a learnt residual shift ends at its promotion)."""
        shifts = []
        for e in self.drift:
            stream = "input" if e.kind == "input" else "residual"
            shifts.append(Shift(e.segment, stream, e.start_s, e.shift_sd, e.ramp_s,
                                min(self._learnt_at(e), e.end_s), e.share))
        return shifts

    def _learnt_at(self, event: DriftEvent) -> float:
        """When a model that has learnt ``event`` took all traffic (its residual shift ends; inputs stay moved)."""
        if event.kind == "input":
            return math.inf
        for run in self.retraining:
            if run.get("promoted_s") is not None and event.start_s + self.label_delay_s <= run["start_s"]:
                return run["promoted_s"]
        return math.inf

    def _shifts_changed(self) -> None:
        for d in self.detectors:
            d.set_shifts(self.shifts())

    def start_retraining(self, t: float, reason: str = "by hand") -> dict:
        """A retraining run from ``t``: ready after ``retrain_s``, then rolled out (see module docstring)."""
        n = 2 + len(self.retraining)
        run = {"start_s": t, "ready_s": t + self.retrain_s, "reason": reason, "promoted_s": None,
               "version": ModelVersion(f"v{n}", dict(self.retrain_delta_pp), t, f"retrained at {t / 3600:.1f} h"), "done": False}
        self.retraining.append(run)
        self.history.append((t, f"retraining started ({reason}); ready in {self.retrain_s / 3600:g} h"))
        return run

    def advance(self, t: float) -> list[tuple[float, str, str]]:
        """Move the layer's clock to ``t``: detector evaluations and retraining roll-outs due.
        Returns the events: (time, kind, message)."""
        events: list[tuple[float, str, str]] = []
        for detector in self.detectors:
            before = detector.fired_at
            fired = detector.advance_to(t)
            if fired and before is None:
                r = fired[0]
                events.append((r.t_s, "drift_detected", f"{detector.node_id}: {detector.test.upper()} "
                               f"{r.statistic:.3f} > {detector.threshold:g} on {r.segment} ({r.stream})"))
                if self.detector_retrains(detector.node_id) and not any(not x["done"] for x in self.retraining):
                    self.start_retraining(r.t_s, f"triggered by {detector.node_id}")
                    events.append((r.t_s, "retraining_started", "retraining triggered by drift detection"))
        for run in self.retraining:
            if run["done"] or run["ready_s"] > t:
                continue
            pipeline, routers = self.pipeline(), self.design.nodes_of_kind("canary_router")
            via_canary = bool(routers) and (pipeline is None or bool(pipeline.params.get("promote_via_canary", True)))
            if via_canary and run.get("canary_s") is None:
                run["canary_s"] = run["ready_s"]
                self.set_version(run["ready_s"], run["version"], "canary")
                events.append((run["ready_s"], "model_canary", f"{run['version'].name} serves the canary"))
                bake = max(float(r.params.get("evaluation_window_s", 300.0)) for r in routers)
                run["promote_at"] = run["ready_s"] + bake
            promote_at = run.get("promote_at", run["ready_s"])
            if promote_at <= t:
                self.set_version(promote_at, run["version"], "all")
                run["promoted_s"], run["done"] = promote_at, True
                events.append((promote_at, "model_promoted", f"{run['version'].name} promoted to all traffic"))
                self._shifts_changed()
        self.now_s = max(self.now_s, t)
        return events

    # ------------------------------------------------------------------ series
    def accuracy(self, pool_id: str, segment: Segment, times: np.ndarray,
                 served: list[tuple[np.ndarray, ModelVersion]] | None = None) -> np.ndarray:
        """Accuracy (percent) of whatever ``pool_id`` serves on ``segment`` at each time
        (``served``: the pool's :meth:`serving_spans` over ``times``, when the caller has them)."""
        out = np.zeros(times.size)
        cost = pool_cost_pp(self.design, pool_id)
        for mask, version in self.serving_spans(pool_id, times) if served is None else served:
            value = np.full(int(mask.sum()), segment.accuracy_pct + version.offset(segment.id) - cost)
            for e in self.drift:
                if e.segment in ("*", segment.id) and not e.start_s + self.label_delay_s <= version.trained_at_s:
                    value -= e.accuracy_drop_pp * e.level(times[mask])
            out[mask] = value
        return np.clip(out, 0.0, 100.0)

    def serving_spans(self, pool_id: str, times: np.ndarray) -> list[tuple[np.ndarray, ModelVersion]]:
        """The spans of ``times`` in which ``pool_id`` serves one model version: (mask, version), each
        mask with at least one time."""
        cuts = sorted({a[0] for a in self.assignments if a[1] == pool_id and a[0] > -math.inf})
        bounds = [-math.inf, *cuts, math.inf]
        spans = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            mask = (times >= lo) & (times < hi)
            if mask.any():
                spans.append((mask, self.version_of(pool_id, lo if lo > -math.inf else -1e300)))
        return spans

    def series(self, times: np.ndarray, timeline_series: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Per tick: ``accuracy_pct``, ``accuracy_pct:<segment>``, ``served_share:<pool>``,
        ``model_accuracy_pct:<pool>`` (what the pool's model would score over all segments) and the
        business metric ``<metric>_pct``."""
        n = times.size
        arrivals = {p: np.asarray(timeline_series.get(f"arrival_rps:{p}", np.zeros(n)))[:n] for p in self.pools}
        total = sum(arrivals.values()) if arrivals else np.zeros(n)
        out: dict[str, np.ndarray] = {}
        stable = [p for p, r in self.pools.items() if r == "stable"]
        for p, lam in arrivals.items():
            share = np.where(total > 0, lam / np.maximum(total, 1e-12), 0.0)
            if not np.any(total > 0) and p in stable:
                share = np.full(n, 1.0 / len(stable))
            out[f"served_share:{p}"] = share
        overall = np.zeros(n)
        for p in self.pools:
            out[f"model_accuracy_pct:{p}"] = np.zeros(n)
        spans = {p: self.serving_spans(p, times) for p in self.pools}
        for seg in self.segments:
            acc = np.zeros(n)
            for p in self.pools:
                served = self.accuracy(p, seg, times, spans[p])
                out[f"model_accuracy_pct:{p}"] += seg.share * served
                acc += out[f"served_share:{p}"] * served
            if not self.pools:
                acc[:] = seg.accuracy_pct
            out[f"accuracy_pct:{seg.id}"] = acc
            overall += seg.share * acc
        out["accuracy_pct"] = overall
        out[f"{self.business.metric}_pct"] = self.business_metric(overall, timeline_series, n)
        return out

    def business_metric(self, accuracy: np.ndarray, timeline_series: Mapping[str, np.ndarray], n: int) -> np.ndarray:
        """The business metric per tick from the accuracy and the timeline's p95 and error and shed rates."""
        b, req = self.business, self.design.requirements
        ref = b.reference_latency_ms or req.slo_p95_ms or req.slo_p99_ms or 100.0
        p95 = np.asarray(timeline_series.get("p95_ms", np.zeros(n)))[:n]
        bad = np.clip(np.asarray(timeline_series.get("error_rate", np.zeros(n)))[:n]
                      + np.asarray(timeline_series.get("shed_rate", np.zeros(n)))[:n], 0.0, 1.0)
        quality = np.maximum(0.0, 1.0 + b.per_accuracy_pp * (accuracy - self.healthy_pct))
        latency = np.maximum(0.0, 1.0 - b.per_latency_ratio * np.maximum(0.0, p95 / ref - 1.0))
        return b.base_pct * quality * latency * (1.0 - bad)


# ---------------------------------------------------------------------- on the design's timeline
DRIFTED_SHIFT_SD = 3.0  #: requests from outside the training data sit this far out on the monitored feature (assumption)
DRIFTED_LOSS_PP = 25.0  #: accuracy the model loses on those requests (or on changed answers), pp (assumption)
DEFAULT_DRIFT_SHARE = 0.3  #: a drift fault without a magnitude moves this share of its segment's requests
DEFAULT_BAD_MODEL_PP = 5.0  #: a bad model version without a magnitude loses this many points


def measures_quality(design: Design, faults: Sequence) -> bool:
    """Whether a timeline of ``design`` with ``faults`` has model quality to show: a quality fault, a
    drift detector or an accuracy target (otherwise no quality series are computed at all)."""
    return (any(is_quality_fault(f.kind) for f in faults) or bool(design.nodes_of_kind("drift_detector"))
            or design.requirements.accuracy_target_pct is not None)


def plant_quality_fault(layer: QualityLayer, fault) -> None:
    """Play a timed quality fault (``input_drift``, ``concept_drift``, ``bad_model``) into ``layer``."""
    end = fault.start_s + fault.duration_s
    if fault.kind in ("input_drift", "concept_drift"):
        share = DEFAULT_DRIFT_SHARE if fault.magnitude is None else min(1.0, float(fault.magnitude))
        layer.add_drift(DriftEvent(fault.kind.split("_")[0], fault.target, fault.start_s, share * DRIFTED_LOSS_PP,
                                   DRIFTED_SHIFT_SD, 0.0, end, share))
        return
    loss = DEFAULT_BAD_MODEL_PP if fault.magnitude is None else float(fault.magnitude)
    where = "all" if fault.target == "*" else f"canary:{fault.target}"
    if where != "all" and where not in layer.pools.values():
        return  # a router with no model pool behind its canary port: nothing serves the version
    before = {p: layer.version_of(p, fault.start_s) for p, role in layer.pools.items() if role != "fallback"}
    layer.set_version(fault.start_s, ModelVersion("bad", {"*": -loss}, note="a bad model version"), where)
    for pool, version in before.items():
        if where in ("all", layer.pools[pool]):
            layer.set_version(end, version, pool)


def _fault_events(fault, end_s: float) -> list[tuple[float, str, str, str]]:
    """``fault_started`` / ``fault_ended`` of a quality fault inside the run."""
    title = FAULT_KINDS[fault.kind].title
    where = "everywhere" if fault.target == "*" else f"on {fault.target}"
    amount = "" if fault.magnitude is None else f" ({fault.magnitude:g})"
    target = "" if fault.target == "*" else fault.target
    out = []
    if fault.start_s <= end_s:
        out.append((fault.start_s, "fault_started", target, f"{title}{amount} {where} for "
                    f"{fault.duration_s / 3600:g} h"))
    if fault.start_s + fault.duration_s <= end_s:
        out.append((fault.start_s + fault.duration_s, "fault_ended", target, f"{title} {where} is over"))
    return out


def _step_held(times: np.ndarray, at: list[float], values: list[float]) -> np.ndarray:
    """Per tick, the last value given at or before it (0 before the first)."""
    if not at:
        return np.zeros(times.size)
    index = np.searchsorted(np.asarray(at), times, side="right") - 1
    return np.where(index >= 0, np.asarray(values)[np.maximum(index, 0)], 0.0)


def detector_series(layer: QualityLayer, times: np.ndarray) -> dict[str, np.ndarray]:
    """``drift_stat:<detector>``: per tick, the largest statistic of the detector's last evaluation."""
    out = {}
    for detector in layer.detectors:
        worst: dict[float, float] = {}
        for r in detector.readings:
            worst[r.t_s] = max(worst.get(r.t_s, 0.0), r.statistic)
        at = sorted(worst)
        out[f"drift_stat:{detector.node_id}"] = _step_held(times, at, [worst[t] for t in at])
    return out


def alerts_someone(design: Design, detector_id: str) -> bool:
    """Whether a detector's finding reaches a person: its action alerts and its alerts are wired to alerting."""
    node = design.nodes[detector_id]
    return (str(node.params.get("action", "alert")) in ("alert", "alert_and_retrain")
            and any(design.nodes[e.target].kind == "alerting" for e in design.edges.values()
                    if e.source == detector_id))


def _expected_delay_words(layer: QualityLayer, detector: DriftDetector) -> str:
    best = math.inf
    for e in layer.drift:
        stream = "input" if e.kind == "input" else "residual"
        if any(s.stream == stream for s in detector.streams):
            lag = layer.label_delay_s if stream == "residual" else 0.0
            best = min(best, e.start_s + lag + expected_delay_s(detector.test, e.shift_sd, e.share,
                                                                 detector.window_s, detector.threshold))
    return "" if not math.isfinite(best) else f"; its {detector.window_s / 3600:g} h window implies about {best / 3600:.1f} h"


def detector_events(layer: QualityLayer) -> list[tuple[float, str, str, str]]:
    """A detector's first firing: ``drift_alert`` when it reaches a person, else ``drift_unheard``."""
    out = []
    for detector in layer.detectors:
        first = next((r for r in detector.readings if r.fired), None)
        if first is None:
            continue
        heard = alerts_someone(layer.design, detector.node_id)
        what = (f"{detector.test.upper()} {first.statistic:.3f} > {detector.threshold:g} on {first.segment} "
                f"({first.stream}){_expected_delay_words(layer, detector)}")
        out.append((first.t_s, "drift_alert" if heard else "drift_unheard", detector.node_id,
                    what if heard else f"{what}; the alert reaches nobody (no alerting wired to it)"))
    return out


def accuracy_events(target: float | None, times: np.ndarray, labelled: np.ndarray,
                    delay_s: float) -> list[tuple[float, str, str, str]]:
    """``accuracy_slo`` when the accuracy seen on labels crosses the target, each way."""
    if target is None or times.size == 0:
        return []
    below = labelled < target - 1e-9
    flips = np.flatnonzero(np.diff(below.astype(np.int8))) + 1
    starts = ([0] if below[0] else []) + [int(i) for i in flips]
    out = []
    for i in starts:
        if below[i]:
            out.append((float(times[i]), "accuracy_slo", "", f"accuracy {labelled[i]:.1f}% is below the "
                        f"{target:g}% target (seen on labels {delay_s / 60:g} min late)"))
        else:
            out.append((float(times[i]), "accuracy_slo", "", f"accuracy back at {labelled[i]:.1f}%, "
                        f"above the {target:g}% target"))
    return out


def quality_timeline(design: Design, faults: Sequence, times: np.ndarray, series: Mapping[str, np.ndarray],
                     seed: int = 0, target: float | None = None
                     ) -> tuple[dict[str, np.ndarray], list[tuple[float, str, str, str]]]:
    """The quality series and events of a timeline: the layer played over its ticks (detectors
    evaluated and retraining rolled out every :data:`drift.EVALUATION_S`), fed by the served shares
    in ``series``. Series: ``accuracy_pct`` and per segment, ``accuracy_labelled_pct`` (as labels
    show it), ``accuracy_burn`` (with a target: error rate over the error the target allows),
    ``drift_stat:<detector>`` and the business metric. Events: (time, kind, node id, message).
    ``target``: the accuracy target to judge by (default: the design's requirements')."""
    target = design.requirements.accuracy_target_pct if target is None else target
    layer = QualityLayer(design, default_segments(design, target), seed=seed)
    end = float(times[-1]) if times.size else 0.0
    for detector in layer.detectors:  # the whole run is known: work its evaluations out together
        detector.horizon_s = end
    events = []
    for fault in faults:
        if is_quality_fault(fault.kind):
            plant_quality_fault(layer, fault)
            events += _fault_events(fault, end)
    events += [(t, kind, "", message) for t, kind, message in
               (e for step in np.arange(EVALUATION_S, end + EVALUATION_S, EVALUATION_S)
                for e in layer.advance(min(float(step), end))) if kind != "drift_detected"]
    out = layer.series(times, series)
    labelled = np.interp(times - layer.label_delay_s, times, out["accuracy_pct"]) if times.size else times
    out["accuracy_labelled_pct"] = labelled
    if target is not None:
        out["accuracy_burn"] = (100.0 - labelled) / max(100.0 - target, 1e-3)
    out.update(detector_series(layer, times))
    events += detector_events(layer) + accuracy_events(target, times, labelled, layer.label_delay_s)
    return out, sorted(events, key=lambda e: (e[0], not e[1].startswith("drift_")))
