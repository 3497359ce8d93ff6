"""A solo practice round as a state machine: read the prompt, ask clarifying questions, build
through timed phases with gentle nudges, submit, and get a graded result.

The clock is injected (``clock()`` returns seconds, monotonic), so tests drive time by hand.
With a ``History``, everything is written as it happens: the attempt when it starts, each question
when asked, each design snapshot, phase changes and follow-ups, and the scores at submit. When the
history cannot be written (another program keeps it locked past its busy timeout, a read-only
folder) the round goes on in memory: ``take_history_problem()`` says why, once, and the round's end
is kept until ``save_finish()`` writes it.

Phases follow the scenario's minutes; ``advance_phase()`` moves on early. Phase *i* starts at the
earlier of its scheduled time (previous start + previous minutes) and the moment the candidate
moved on; after the last phase the round is in ``overtime``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Callable

from inferboard.errors import InferboardError
from inferboard.model.design import Design
from inferboard.model.requirements import Requirements
from inferboard.practice.grading import AskedQuestion, Grade, building_started, grade_design, question_credit
from inferboard.practice.history import History, utc_now
from inferboard.practice.library import ScenarioEntry
from inferboard.practice.replay import Replay
from inferboard.practice.report import attempt_report_html
from inferboard.practice.scenario import PHASE_TITLES, FollowUp, Question
from inferboard.practice.whatif import WhatIf, run_follow_ups
from inferboard.store.design_files import design_to_bytes, parse_design
from inferboard.store.local_db import DatabaseUnavailable

OVERTIME = "overtime"
NUDGE_LAST_S = 120.0


class SessionStateError(InferboardError):
    """The session cannot do that now (not started, already submitted, unknown question...)."""


@dataclass(frozen=True)
class RevealedFact:
    """A hidden fact of the scenario once revealed, as the candidate sees it (and as the interviewer's
    side sends it in a mock interview): ``values`` are the requirement fields it pins, ``t_s`` when
    it was revealed."""

    fact_id: str
    category: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    t_s: float = 0.0
    type: str = "fact_revealed"


@dataclass
class AskResult:
    """A question asked: the facts it revealed, when, in which phase, the credit and whether it was the first time."""

    question: Question
    facts: list[RevealedFact]
    t_s: float
    phase: str
    #: The share of the question's points this asking earns (0 for non-key questions).
    credit: float
    first_time: bool


@dataclass
class PhaseSlot:
    """When a phase runs in the round's schedule."""

    name: str
    title: str
    start_s: float
    end_s: float
    goal: str


@dataclass
class TimerStatus:
    """The round's clock now: state, elapsed time, the phase with its time left, and any nudges."""

    state: str
    elapsed_s: float
    phase: str
    phase_title: str
    phase_index: int
    phase_elapsed_s: float
    phase_remaining_s: float
    total_remaining_s: float
    goal: str
    nudges: list[str]


@dataclass
class Result:
    """What the result view shows; ``to_dict()`` is what the history keeps for reports."""

    attempt_id: int | None
    scenario_id: str
    scenario_title: str
    prompt: str
    grade: Grade
    what_ifs: list[WhatIf]
    design_bytes: bytes
    reference_bytes: bytes
    reference_notes: str
    started_at: str
    ended_at: str
    duration_s: float
    phase_ends: dict[str, float]
    asked: list[AskedQuestion]
    follow_ups_played: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The submitted round as plain data (for the history, the result screen and the report)."""
        return {"scenario_id": self.scenario_id, "scenario_title": self.scenario_title, "prompt": self.prompt,
                "grade": self.grade.to_dict(), "what_ifs": [w.to_dict() for w in self.what_ifs],
                "design": self.design_bytes.decode("utf-8"), "reference": self.reference_bytes.decode("utf-8"),
                "reference_notes": self.reference_notes, "started_at": self.started_at, "ended_at": self.ended_at,
                "duration_s": self.duration_s, "phase_ends": self.phase_ends,
                "asked": [asdict(a) for a in self.asked], "follow_ups_played": self.follow_ups_played}


class PracticeSession:
    """One practice round: the clock, phases, questions and facts, design snapshots, follow-ups and the grade."""

    def __init__(self, entry: ScenarioEntry, history: History | None = None,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], str] = utc_now,
                 behaviour: bool = True, mode: str = "solo"):
        self.entry = entry
        self.scenario = entry.scenario
        self.history = history
        self.clock = clock
        self.wall = wall
        self.behaviour = behaviour
        self.mode = mode
        self.state = "ready"
        self.attempt_id: int | None = None
        self.started_at = ""
        self._t0 = 0.0
        self._stopped_at: float | None = None
        self._manual_starts: dict[int, float] = {}
        self.asked: list[AskedQuestion] = []
        self.revealed: dict[str, RevealedFact] = {}
        self.replay = Replay()
        self.follow_ups_played: list[str] = []
        self.notes: list[tuple[float, str]] = []
        self._building = False
        self.result: Result | None = None
        #: Why the history could not be written, until the window takes it (``take_history_problem``).
        self.history_problem = ""
        #: The round's end (status, ended at, grade, result) while it is not written to the history.
        self._finish: tuple | None = None

    @classmethod
    def resume(cls, entry: ScenarioEntry, history: History, attempt_id: int,
               clock: Callable[[], float] = time.monotonic, wall: Callable[[], str] = utc_now,
               behaviour: bool = True) -> "PracticeSession":
        """Carry on an attempt still in progress in ``history`` (after the app restarted): its clock
        runs from when it started, and the questions asked, facts revealed, follow-ups played,
        phase moves, notes and design snapshots recorded so far are taken back."""
        record = history.attempt(attempt_id)
        row = record.attempt
        if row["status"] != "in_progress" or row["scenario_id"] != entry.id:
            raise SessionStateError(f"attempt {attempt_id} is not a round of '{entry.id}' in progress")
        session = cls(entry, history, clock, wall, behaviour, row.get("mode") or "solo")
        session.state = "running"
        session.attempt_id = attempt_id
        session.started_at = row["started_at"]
        started = datetime.fromisoformat(row["started_at"])
        lasted = (datetime.fromisoformat(wall()) - started).total_seconds()
        last_recorded = max([0.0] + [float(r["t_s"]) for r in record.events + record.questions + record.snapshots])
        session._t0 = clock() - max(lasted, last_recorded)
        session.replay = Replay.from_rows(record.snapshots)
        designs = [(f.t_s, f.design_bytes) for f in session.replay.frames]
        phase_names = [p.name for p in entry.scenario.phases]
        for event in record.events:
            kind, detail, t_s = event["kind"], event["detail"], float(event["t_s"])
            if kind == "phase" and detail in phase_names[1:]:
                session._manual_starts[phase_names.index(detail)] = t_s
            elif kind == "fact":
                session.reveal_fact(detail, record=False)
            elif kind == "follow_up":
                session.follow_ups_played.append(detail)
            elif kind == "note":
                session.notes.append((t_s, detail))
        for question in record.questions:
            t_s = float(question["t_s"])
            before = [data for at, data in designs if at <= t_s]
            building = bool(before) and building_started(parse_design(before[-1], "<snapshot>"))
            session.asked.append(AskedQuestion(question["question_id"], t_s, question["phase"], building))
            for fact_id in entry.scenario.question(question["question_id"]).reveals:
                session.reveal_fact(fact_id, record=False)
        session._building = bool(designs) and building_started(parse_design(designs[-1][1], "<snapshot>"))
        return session

    # ------------------------------------------------------------------ timing
    def start(self) -> None:
        """Start the clock; raises SessionStateError if started before."""
        if self.state != "ready":
            raise SessionStateError(f"the session is {self.state}, it cannot start again")
        self.state = "running"
        self._t0 = self.clock()
        self.started_at = self.wall()
        self.replay.mark(0.0, "phase", self.scenario.phases[0].title)
        self._start_attempt()
        self.write_history("add_event", 0.0, "phase", self.scenario.phases[0].name)

    def _start_attempt(self) -> None:
        """The attempt's row in the history (kept for later when the history cannot be written)."""
        if self.history is None or self.attempt_id is not None:
            return
        try:
            self.attempt_id = self.history.start_attempt(self.scenario.id, self.scenario.title, self.mode,
                                                         self.started_at)
        except DatabaseUnavailable as error:
            self.history_problem = str(error)

    def write_history(self, write: str, *args: Any) -> bool:
        """``history.<write>(attempt_id, *args)``; when the history cannot be written the round goes on
        and ``history_problem`` says why (what the round holds stays in memory). True when written."""
        if self.history is None or self.attempt_id is None:
            return False
        try:
            getattr(self.history, write)(self.attempt_id, *args)
        except DatabaseUnavailable as error:
            self.history_problem = str(error)
            return False
        return True

    def take_history_problem(self) -> str:
        """Why the history could not be written since last asked ("" when it could)."""
        problem, self.history_problem = self.history_problem, ""
        return problem

    @property
    def end_unsaved(self) -> bool:
        """Whether the round has ended but its end is not written to the history yet."""
        return self._finish is not None

    def save_finish(self) -> bool:
        """Write the round's end (and the attempt, if it could not be started) to the history; True
        when it is written or there is nothing to write, False with ``history_problem`` saying why."""
        if self.history is None or self._finish is None:
            return True
        self._start_attempt()
        if self.result is not None:
            self.result.attempt_id = self.attempt_id
        if self.write_history("finish_attempt", *self._finish):
            self._finish = None
        return self._finish is None

    def elapsed(self) -> float:
        """Seconds since the start (frozen once the round stopped)."""
        if self.state == "ready":
            return 0.0
        end = self._stopped_at if self._stopped_at is not None else self.clock()
        return max(0.0, end - self._t0)

    def schedule(self) -> list[PhaseSlot]:
        """Each phase's start and end (seconds since start), with early moves taken into account."""
        slots: list[PhaseSlot] = []
        start = 0.0
        for n, phase in enumerate(self.scenario.phases):
            if n > 0:
                scheduled = slots[-1].start_s + 60.0 * self.scenario.phases[n - 1].minutes
                start = min(self._manual_starts.get(n, float("inf")), scheduled)
                slots[-1].end_s = start
            slots.append(PhaseSlot(phase.name, phase.title, start, start + 60.0 * phase.minutes, phase.goal))
        return slots

    def phase_index_at(self, t_s: float) -> int:
        """Index of the phase at ``t_s``; ``len(phases)`` in overtime."""
        slots = self.schedule()
        for n, slot in enumerate(slots):
            if t_s < slot.end_s:
                return n
        return len(slots)

    def phase_at(self, t_s: float) -> str:
        """The phase the schedule puts at ``t_s`` (overtime after the last)."""
        index = self.phase_index_at(t_s)
        return OVERTIME if index >= len(self.scenario.phases) else self.scenario.phases[index].name

    @property
    def phase(self) -> str:
        """The phase now."""
        return self.phase_at(self.elapsed())

    def advance_phase(self) -> str:
        """Move on to the next phase now; returns the new phase's name."""
        self._require_running()
        now = self.elapsed()
        index = self.phase_index_at(now)
        if index >= len(self.scenario.phases) - 1:
            raise SessionStateError("this is the last phase; submit when you are done")
        self._manual_starts[index + 1] = now
        name = self.scenario.phases[index + 1].name
        self.replay.mark(now, "phase", self.scenario.phases[index + 1].title)
        self.write_history("add_event", now, "phase", name)
        return name

    def status(self) -> TimerStatus:
        """The clock now, with the phase's time left and the nudges due."""
        now = self.elapsed()
        slots = self.schedule()
        index = self.phase_index_at(now)
        total_end = slots[-1].end_s
        if index >= len(slots):
            return TimerStatus(self.state, now, OVERTIME, "Overtime", index, now - total_end, 0.0, 0.0,
                               "Wrap up and submit.", ["Time is up: summarise your trade-offs and submit."])
        slot = slots[index]
        return TimerStatus(self.state, now, slot.name, slot.title, index, now - slot.start_s, slot.end_s - now,
                           total_end - now, slot.goal, self.nudges(now, index, slot))

    def nudges(self, now: float, index: int, slot: PhaseSlot) -> list[str]:
        """Gentle hints for this moment; never reveals a hidden fact."""
        phase = self.scenario.phases[index]
        out = []
        remaining = slot.end_s - now
        if remaining <= min(NUDGE_LAST_S, 0.25 * (slot.end_s - slot.start_s)):
            minutes = max(1, round(remaining / 60))
            out.append(f"About {minutes} min left for {slot.title.lower()}."
                       + (f" {phase.nudge}" if phase.nudge else ""))
        half = now - slot.start_s >= 0.5 * (slot.end_s - slot.start_s)
        if phase.name == "clarify":
            if not self.asked and half:
                out.append("Ask about the workload before drawing: model size, latency targets, traffic shape.")
            if self._building:
                out.append("You have started drawing; the answers to a few more questions may still change it.")
            if half:
                asked = {a.question_id for a in self.asked}
                open_categories = sorted({q.category for q in self.scenario.questions if q.key and q.id not in asked})
                if open_categories:
                    shown = ", ".join(open_categories[:3]) + (" and more" if len(open_categories) > 3 else "")
                    out.append(f"Areas you have not asked about yet: {shown}.")
        elif phase.name == "high_level" and not self._building and half:
            out.append("Sketch the request path end to end first; refine it in the deep dive.")
        return out

    def _require_running(self) -> None:
        if self.state != "running":
            raise SessionStateError(f"the session is {self.state}; start it first" if self.state == "ready"
                                    else f"the session is {self.state}")

    # --------------------------------------------------------------- questions
    def ask(self, question_id: str) -> AskResult:
        """Ask a question from the panel: reveal its facts and record when it was asked."""
        self._require_running()
        try:
            question = self.scenario.question(question_id)
        except KeyError as error:
            raise SessionStateError(str(error.args[0])) from None
        now = self.elapsed()
        phase = self.phase_at(now)
        first = all(a.question_id != question_id for a in self.asked)
        asked = AskedQuestion(question_id, now, phase, self._building)
        self.asked.append(asked)
        self.replay.mark(now, "question", question.text)
        facts = [self.reveal_fact(fact_id, record=False) for fact_id in question.reveals]
        credit = question_credit(phase, self._building) if question.key else 0.0
        self.write_history("add_question", question.id, question.text, question.category, now, phase,
                                      self.wall(), credit if question.key else None)
        return AskResult(question, facts, now, phase, credit, first)

    def reveal_fact(self, fact_id: str, record: bool = True) -> RevealedFact:
        """Reveal one fact (a mock interviewer answering free text); earns no question credit."""
        self._require_running()
        try:
            fact = self.scenario.fact(fact_id)
        except KeyError as error:
            raise SessionStateError(str(error.args[0])) from None
        if record:
            self.write_history("add_event", self.elapsed(), "fact", fact.id)
        self.replay.mark(self.elapsed(), "answer", fact.text)
        truth = self.scenario.requirements
        values = {name: getattr(truth, name) for name in fact.sets}
        revealed = RevealedFact(fact.id, fact.category, fact.text, values, self.elapsed())
        self.revealed[fact.id] = revealed
        return revealed

    def revealed_facts(self) -> list[RevealedFact]:
        """Every fact revealed so far, in the order first revealed."""
        return list(self.revealed.values())

    def revealed_requirements(self) -> Requirements:
        """Requirements holding only what the revealed facts pinned down (for the editor)."""
        values: dict[str, Any] = {}
        for fact in self.revealed.values():
            values.update(fact.values)
        return Requirements.model_validate(values)

    def asked_ids(self) -> set[str]:
        """The ids of the questions asked."""
        return {a.question_id for a in self.asked}

    # ------------------------------------------------------------------ design
    def record_design(self, design: Design, label: str = "edit", t_s: float | None = None) -> bool:
        """Record a snapshot (call after edits, debounced); False when nothing changed. ``t_s``
        dates a snapshot kept back a moment (never before the last one recorded)."""
        self._require_running()
        data = design_to_bytes(design)
        now = self.elapsed() if t_s is None else t_s
        if not self.replay.add(now, data, self.phase_at(now), label):
            return False
        self._building = self._building or building_started(design)
        self.write_history("add_snapshot", now, self.phase_at(now), data, label)
        return True

    def play_follow_up(self, follow_up_id: str) -> FollowUp:
        """Play follow-up ``follow_up_id`` (recorded for the grade and the replay); returns it."""
        self._require_running()
        follow_up = self.scenario.follow_up(follow_up_id)
        self.follow_ups_played.append(follow_up.id)
        self.replay.mark(self.elapsed(), "follow_up", f"{follow_up.title}: {follow_up.prompt}")
        self.write_history("add_event", self.elapsed(), "follow_up", follow_up.id)
        return follow_up

    def add_note(self, text: str) -> None:
        """Keep a timed note (up to 4000 characters)."""
        self._require_running()
        self.notes.append((self.elapsed(), text[:4000]))
        self.write_history("add_event", self.elapsed(), "note", text[:4000])

    # ------------------------------------------------------------------ ending
    def phase_ends(self) -> dict[str, float]:
        """When each phase begun so far ended (now for the one running)."""
        now = self.elapsed()
        return {slot.name: min(slot.end_s, now) for slot in self.schedule() if slot.start_s <= now}

    def submit(self, design: Design) -> Result:
        """Grade ``design``, replay the follow-ups against it, store everything; returns the Result."""
        self._require_running()
        self.record_design(design, "final")
        self._mark_scheduled_phases()
        self._stopped_at = self.clock()
        self.state = "submitted"
        reference = self.entry.reference_design()
        grade = grade_design(self.scenario, design, reference, self.asked, self.behaviour)
        what_ifs = run_follow_ups(self.scenario, design)
        ended_at = self.wall()
        self.result = Result(self.attempt_id, self.scenario.id, self.scenario.title, self.scenario.prompt, grade,
                             what_ifs, design_to_bytes(design), self.entry.reference_bytes,
                             self.scenario.reference.notes, self.started_at, ended_at, self.elapsed(),
                             self.phase_ends(), list(self.asked), list(self.follow_ups_played))
        self._finish = ("submitted", ended_at, grade, self.result.to_dict())
        self.save_finish()
        return self.result

    def _mark_scheduled_phases(self) -> None:
        """The phases the schedule moved on to by itself, on the replay's timeline too."""
        marked = {m.text for m in self.replay.moments if m.kind == "phase"}
        now = self.elapsed()
        for slot in self.schedule()[1:]:
            if slot.start_s <= now and slot.title not in marked:
                self.replay.mark(slot.start_s, "phase", slot.title)

    def report_html(self, diagram_png: bytes | None = None) -> str:
        """The self-contained HTML report of the submitted attempt."""
        if self.result is None:
            raise SessionStateError("submit the design first")
        ends = self.replay.at_phase_ends(self.result.phase_ends)
        frames = {phase: frame.design_bytes for phase, frame in ends.items()}
        return attempt_report_html(self.result.to_dict(), frames, self.notes, diagram_png, self.mode)

    def abandon(self) -> None:
        """Give up the round: it is kept in the history as abandoned."""
        if self.state != "running":
            return
        self._stopped_at = self.clock()
        self.state = "abandoned"
        self._finish = ("abandoned", self.wall())
        self.save_finish()


def phase_title(name: str) -> str:
    """A phase's name in words (overtime included)."""
    return PHASE_TITLES.get(name, name.replace("_", " ").capitalize())
