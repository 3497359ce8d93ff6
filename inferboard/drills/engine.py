"""A running incident drill: a design, a planted cause, a simulated clock, and the candidate's
recorded actions.

``DrillSession(drill, design, seed)`` starts the timeline (:mod:`inferboard.sim.timeline.timeline_state`)
with the cause's faults, schedules its configuration changes, model versions and drift (the
quality layer, :mod:`inferboard.sim.quality.quality`), and runs the clock up to the moment the candidate
learns of the incident: the first alert where the design alerts, else a customer complaint
:data:`views.COMPLAINT_DELAY_S` after the impact began (a routine look at that moment when nothing a
customer notices happened, :func:`views.customer_visible`). From there the candidate acts; each action is
recorded with its simulated time (:class:`RecordedAction`), and replaying the actions on a new
session gives the same result.

What the candidate may see is in :mod:`inferboard.drills.views` (``session.view()``); the hidden
truth, for the interviewer, is ``session.truth()``; the score is ``session.result()``
(:mod:`inferboard.drills.scoring`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from inferboard.drills import scoring, symptoms, views
from inferboard.drills.library import applicable, fill, resolve, roles
from inferboard.drills.mitigate import mitigation_targets, operations_for
from inferboard.drills.operations import ClearFaults, SetParams
from inferboard.drills.schema import Drill
from inferboard.model.design import Design
from inferboard.sim.design.faults import TimedFault
from inferboard.sim.quality.quality import DriftEvent, ModelVersion, QualityLayer, default_segments
from inferboard.sim.timeline import actions as sim_actions
from inferboard.sim.timeline.timeline_state import Timeline
from inferboard.store.design_files import design_to_bytes, parse_design

DEFAULT_SPEED = 60.0  #: simulated seconds per wall-clock second while the clock runs
#: The outcome is judged this many mitigation targets after the notice (where time-to-mitigate reaches 0).
OUTCOME_TARGETS = 4.0

#: The candidate's verbs and the arguments each takes.
VERBS: dict[str, tuple[str, ...]] = {
    "state_symptom": ("text", "scope"),
    "open_dashboard": ("name",),
    "slice_by_segment": ("name",),
    "check_changes": (),
    "record_hypothesis": ("text",),
    "apply_mitigation": ("action", "target", "value"),
    "name_root_cause": ("text",),
    "write_follow_up": ("fix", "monitoring"),
    "wait": ("minutes",),
}


@dataclass(frozen=True)
class RecordedAction:
    """One thing the candidate did, at simulated time ``t_s`` (seconds from the drill's start)."""

    t_s: float
    verb: str
    args: dict[str, Any] = field(default_factory=dict)
    #: Filled by the engine: what happened (a mitigation's effect class, an error message).
    outcome: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The action as plain values for JSON."""
        return {"t_s": self.t_s, "verb": self.verb, "args": dict(self.args), "outcome": self.outcome}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RecordedAction":
        """The action from its plain values."""
        return cls(float(data["t_s"]), str(data["verb"]), dict(data.get("args") or {}), str(data.get("outcome", "")))


class DrillError(ValueError):
    """A drill cannot start on this design, or an action is not possible."""


def at_drill_traffic(design: Design, traffic: str) -> Design:
    """``design`` itself, or for a drill at peak traffic a copy whose mean rate is its peak."""
    req = design.requirements
    if traffic != "peak" or req.peak_rps is None:
        return design


    raw = json.loads(design_to_bytes(design))
    raw["requirements"]["mean_rps"] = float(req.peak_rps)
    return parse_design(json.dumps(raw).encode("utf-8"), "<drill at peak traffic>", design.catalog)


class DrillSession:
    """One drill run (see the module docstring)."""

    def __init__(self, drill: Drill, design: Design, seed: int = 0, mode: str = "solo", start_clock: bool = True):
        problems = applicable(drill, design)
        if problems:
            raise DrillError(f"drill '{drill.id}' cannot run on this design: " + "; ".join(problems))
        self.source_design = design  #: the design as given (what a record keeps)
        design = at_drill_traffic(design, drill.traffic)
        self.drill, self.design, self.seed, self.mode = drill, design, int(seed), mode
        self.roles = roles(design)
        self.horizon_s = drill.horizon_h * 3600.0
        self.timeline = Timeline.start(design, drill.pattern, faults=self._faults(), hours=drill.horizon_h, tick_s=drill.tick_s,
                                       seed=self.seed)
        self.quality = QualityLayer(design, default_segments(design), seed=self.seed)
        self.actions: list[RecordedAction] = []
        self.quality_events: list[tuple[float, str, str]] = []
        self.mitigations: list[tuple[float, str, str, str]] = []  #: (time, action, target, effect)
        self.reverted: dict[str, dict[str, Any]] = {}
        self._schedule = self._plan()
        self.paused = False
        self.speed = DEFAULT_SPEED
        self.finished_at: float | None = None
        self.impact_s = drill.cause_start_min * 60.0
        #: the same drill run with no action up to a time, as (until, series): scoring's baseline, kept
        self.do_nothing_run: tuple[float, dict] | None = None
        #: the recorded actions replayed up to the outcome horizon, as (actions count, series): kept
        self.outcome_run: tuple[int, dict] | None = None
        self.observability = views.Observability.of(design)
        self.notice_s, self.notice = views.first_notice(self) if start_clock else (0.0, "")
        if start_clock:
            self.advance_to(self.notice_s)
        #: what the page says: the drill's, or what this design shows when the cause hits it softer
        self.page = symptoms.page_for(self) if start_clock else self.fill(drill.page)

    # ------------------------------------------------------------------ planting
    def node_for(self, text: str) -> str:
        """The design's node id a drill names (``{role}`` placeholders resolved)."""
        try:
            return resolve(text, self.roles)
        except KeyError as error:
            raise DrillError(f"drill '{self.drill.id}': the design has no node for {{{error.args[0]}}}") from None

    def _faults(self) -> list[TimedFault]:
        end = self.drill.horizon_h * 3600.0
        out = []
        for f in self.drill.plant.faults:
            start = f.at_min * 60.0
            duration = (f.duration_min * 60.0) if f.duration_min else end - start + 3600.0
            target = self.node_for(f.target) if f.target != "*" else "*"
            if f.steps <= 1:
                out.append(TimedFault(f.kind, target, f.magnitude, start, duration))
                continue
            top = f.magnitude if f.magnitude is not None else 2.0
            step = duration / f.steps
            for k in range(1, f.steps + 1):
                last = k == f.steps
                out.append(TimedFault(f.kind, target, 1.0 + (top - 1.0) * k / f.steps, start + (k - 1) * step,
                                      (end - start - (k - 1) * step + 3600.0) if last else step))
        return out

    def _plan(self) -> list[tuple[float, str, Any]]:
        """Hidden steps of the cause, in time order: (time, what, payload)."""
        steps: list[tuple[float, str, Any]] = []
        home = self.design.nodes.get(self.roles.get("region", ""))
        location = home.params.get("location") if home is not None else None
        for e in self.drill.plant.edits:
            params = {k: (location if v == "{location}" and location else v) for k, v in e.params.items()}
            steps.append((e.at_min * 60.0, "edit", SetParams(self.node_for(e.target), tuple(sorted(params.items())))))
        for d in self.drill.plant.drift:
            self.quality.add_drift(DriftEvent(d.kind, d.segment, d.at_min * 60.0, d.accuracy_drop_pp, d.shift_sd,
                                              d.ramp_min * 60.0))
        for v in self.drill.plant.versions:
            version = ModelVersion(v.name, dict(v.delta_pp), -math.inf, "planted")
            self.quality.set_version(v.at_min * 60.0, version, v.where)
            if v.pipeline_bug:
                self.quality.retrain_delta_pp = dict(v.delta_pp)
        return sorted(steps, key=lambda s: s[0])

    # ------------------------------------------------------------------ the clock
    @property
    def now_s(self) -> float:
        """The simulated time reached, in seconds."""
        return self.timeline.now_s

    @property
    def outcome_horizon_s(self) -> float:
        """When the drill's outcome (budget burned, customer impact) is judged, whenever it is ended:
        OUTCOME_TARGETS times the mitigation target after the notice, within the drill's horizon."""
        return min(self.horizon_s, self.notice_s + OUTCOME_TARGETS * self.drill.target_mitigate_min * 60.0)

    @property
    def finished(self) -> bool:
        """Whether the drill is over (finished, or the horizon reached)."""
        return self.finished_at is not None or self.timeline.finished

    @property
    def pausable(self) -> bool:
        """Solo practice may stop the clock; in an interview it keeps running."""
        return self.mode == "solo"

    def pause(self) -> bool:
        """Stop the clock (solo practice only); returns whether it is stopped."""
        if self.pausable:
            self.paused = True
        return self.paused

    def resume(self) -> None:
        """Let the clock run again."""
        self.paused = False

    def tick(self, wall_seconds: float) -> float:
        """For a GUI timer: run the clock ``wall_seconds`` × ``speed`` unless paused; returns now."""
        if not self.paused and not self.finished:
            self.advance_to(self.now_s + max(0.0, wall_seconds) * self.speed)
        return self.now_s

    def advance_to(self, t_s: float) -> None:
        """Simulate up to ``t_s`` (whole ticks; never past the horizon), applying the cause's
        scheduled changes on the way."""
        t_s = min(t_s, self.horizon_s)
        tick = self.timeline.tick_s
        while self.now_s + 1e-9 < t_s and not self.timeline.finished:
            pending = [s for s in self._schedule if s[0] >= self.now_s - 1e-9]
            stop = t_s if not pending else min(t_s, pending[0][0])
            if stop > self.now_s + 1e-9:
                self.timeline.advance_ticks(int(math.ceil((stop - self.now_s) / tick - 1e-9)))
            for step in [s for s in self._schedule if s[0] <= self.now_s + 1e-9]:
                self._schedule.remove(step)
                self.timeline.apply(step[2])
            self.quality_events.extend(self.quality.advance(self.now_s))
        for step in [s for s in self._schedule if s[0] <= self.now_s + 1e-9]:
            self._schedule.remove(step)
            self.timeline.apply(step[2])

    # ------------------------------------------------------------------ the candidate's actions
    def _record(self, verb: str, outcome: str = "", **args: Any) -> RecordedAction:
        if self.finished_at is not None:
            raise DrillError("the drill is over")
        action = RecordedAction(self.now_s, verb, {k: v for k, v in args.items() if v is not None}, outcome)
        self.actions.append(action)
        return action

    def state_symptom(self, text: str, scope: str = "") -> RecordedAction:
        """Record the symptom the candidate states, and its scope."""
        return self._record("state_symptom", text=text, scope=scope)

    def open_dashboard(self, name: str):
        """Record the look and return the dashboard (:class:`views.Dashboard`), or the reason it
        does not exist (:class:`views.Unavailable`)."""
        shown = views.dashboard(self, name)
        self._record("open_dashboard", "shown" if isinstance(shown, views.Dashboard) else "missing", name=name)
        return shown

    def slice_by_segment(self, name: str = "model"):
        """Record the look and return the dashboard ``name`` split by traffic segment, or why it does not
        exist."""
        shown = views.segment_slice(self, name)
        self._record("slice_by_segment", "shown" if isinstance(shown, views.Dashboard) else "missing", name=name)
        return shown

    def check_changes(self):
        """Record the look and return the recent-changes log."""
        self._record("check_changes")
        return views.change_log(self)

    def record_hypothesis(self, text: str) -> RecordedAction:
        """Record a hypothesis the candidate states."""
        return self._record("record_hypothesis", text=text)

    def name_root_cause(self, text: str) -> RecordedAction:
        """Record the root cause the candidate names."""
        return self._record("name_root_cause", text=text)

    def write_follow_up(self, fix: str, monitoring: str) -> RecordedAction:
        """Record the long-term fix and the monitoring the candidate writes."""
        return self._record("write_follow_up", fix=fix, monitoring=monitoring)

    def wait(self, minutes: float) -> RecordedAction:
        """Let the clock run ``minutes`` (a script's way of thinking; the GUI's clock does it with tick)."""
        action = self._record("wait", minutes=float(minutes))
        self.advance_to(self.now_s + float(minutes) * 60.0)
        return action

    def finish(self) -> None:
        """End the drill: the clock stops; the score covers the time up to here."""
        if self.finished_at is None:
            self.finished_at = self.now_s

    def classify(self, action: str, target: str, value: float | None) -> str:
        """The drill's effect class for a mitigation: ``fixes``, ``worsens``, ``no_effect`` or
        ``unlisted`` (the simulator still shows what it does)."""
        for m in self.drill.mitigations:
            if m.action != action:
                continue
            want = self.node_for(m.target) if m.target else ""
            if want and want != target:
                continue
            if m.value is not None and value is not None and not math.isclose(m.value, value, rel_tol=0.25):
                continue
            return m.effect
        return "unlisted"

    def apply_mitigation(self, action: str, target: str = "", value: float | None = None) -> RecordedAction:
        """Apply a mitigation (:data:`schema.MITIGATIONS`) now; ``target`` may be a node id or a
        ``{role}``. Raises :class:`DrillError` when it cannot be done on this design (nothing is
        recorded then)."""
        target = self.node_for(target) if target else ""
        try:
            ops = operations_for(self, action, target, value)
        except (ValueError, KeyError) as error:
            raise DrillError(f"{action}{(' ' + target) if target else ''}: {error}") from None
        effect = self.classify(action, target, value)
        for op in ops:
            op()
        self.mitigations.append((self.now_s, action, target, effect))
        return self._record("apply_mitigation", effect, action=action, target=target, value=value)

    def mitigation_targets(self) -> dict[str, list[str]]:
        """Each mitigation this design allows, with the node ids it can target (``[""]``: none)."""
        return mitigation_targets(self)

    def perform(self, verb: str, args: dict[str, Any]):
        """Do ``verb`` with ``args`` (a script or a replay); ``wait`` lets the clock run."""
        if verb not in VERBS:
            raise DrillError(f"unknown action '{verb}'; known: {', '.join(VERBS)}")
        unknown = set(args) - set(VERBS[verb])
        if unknown:
            raise DrillError(f"{verb}: unknown argument(s) {', '.join(sorted(unknown))}")
        return getattr(self, verb)(**args)

    # ------------------------------------------------------------------ views and results
    def view(self, dashboards=None):
        """What the candidate sees now (:class:`views.CandidateView`). ``dashboards`` (names) limits
        the plots computed to those (a window redraws only the one in front); the views the
        design lacks are there as ``Unavailable`` whatever the names."""
        return views.candidate_view(self, dashboards)

    def truth(self):
        """The hidden truth, for the interviewer (:class:`views.HiddenTruth`)."""
        return views.hidden_truth(self)

    def series(self) -> dict:
        """Every series so far (system and quality), with ``times_s``; the truth, not the candidate's view."""
        result = self.timeline.result()
        out = dict(result.series)
        out.update(self.quality.series(result.times_s, result.series))
        out["times_s"] = result.times_s
        return out

    def result(self):
        """The score so far (:class:`scoring.DrillResult`)."""
        return scoring.score(self)

    def scout(self) -> DrillSession:
        """A new session of the same drill, design, seed and mode, its clock not yet started (to look
        ahead, or to see what doing nothing would have given)."""
        return DrillSession(self.drill, self.design, self.seed, self.mode, start_clock=False)

    def replayed(self) -> DrillSession:
        """A new session with this one's recorded actions run again, each at its recorded time."""
        return replay(self.drill, self.source_design, self.seed, self.actions, self.mode)

    def fill(self, text: str) -> str:
        """``text`` with its ``{role}`` placeholders filled with this design's node ids."""
        return fill(text, self.roles)


def replay(drill: Drill, design: Design, seed: int, actions: list[RecordedAction | dict], mode: str = "solo",
           finish_at: float | None = None) -> DrillSession:
    """Run ``actions`` again, each at its recorded time, on a new session."""
    session = DrillSession(drill, design, seed, mode)
    for item in actions:
        action = item if isinstance(item, RecordedAction) else RecordedAction.from_dict(item)
        session.advance_to(action.t_s)
        session.perform(action.verb, dict(action.args))
    if finish_at is not None:
        session.advance_to(finish_at)
        session.finish()
    return session
