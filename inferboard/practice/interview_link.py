"""The mock-interview link between the candidate's window and the interviewer's window.

A narrow interface of plain messages, so that a later transport can carry them over a network:

- candidate -> interviewer: ``DesignChanged`` (the design file's bytes), ``QuestionAsked``
  (a panel question id, or free text) and ``FiguresShown`` (what the candidate's tiles show, and on
  what basis, so the console can show the same numbers);
- interviewer -> candidate: ``RevealedFact``, ``FollowUpPlayed``, ``PhaseChanged``, ``InterviewEnded``.

Notes, hidden facts, follow-up faults, findings and the reference design never leave the
interviewer's side. That is structural: ``CandidateLink`` is built from a ``CandidateBrief`` (the
public prompt, question panel and phases) and receives only the four messages above, each
serialised to a JSON-ready dict and rebuilt on arrival; it never holds the scenario.

``InProcessTransport`` delivers messages synchronously to subscribers; the interviewer stamps
candidate messages with its session clock on arrival.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Protocol

from inferboard.errors import InferboardError
from inferboard.model.design import Design
from inferboard.practice.history import History
from inferboard.practice.library import ScenarioEntry
from inferboard.practice.scenario import Scenario
from inferboard.practice.session import PracticeSession, Result, RevealedFact
from inferboard.practice.whatif import WhatIf, plan_faults, what_if
from inferboard.store.design_files import design_to_bytes, parse_design

CANDIDATE = "candidate"
INTERVIEWER = "interviewer"
MAX_FREE_TEXT = 1000


class LinkError(InferboardError):
    """A message was malformed, sent the wrong way, or arrived at the wrong moment."""


# ------------------------------------------------------------------------------ messages
@dataclass(frozen=True)
class DesignChanged:
    """The candidate's design, as design-file JSON."""

    design_json: str
    type: str = "design_changed"


@dataclass(frozen=True)
class QuestionAsked:
    """The candidate asked a question: a panel question's id, or their own words."""

    question_id: str | None
    text: str
    type: str = "question_asked"


@dataclass(frozen=True)
class FiguresShown:
    """The candidate's headline figures as their tiles show them: ``mode`` is steady, peak or
    playhead; ``line`` the status line under the tiles, which names the basis and the moment."""

    mode: str
    line: str
    values: dict[str, float | None] = field(default_factory=dict)
    type: str = "figures_shown"


@dataclass(frozen=True)
class FollowUpPlayed:
    """The interviewer played a follow-up: its prompt, requirement changes and faults on the candidate's nodes."""

    follow_up_id: str
    title: str
    prompt: str
    requirement_changes: dict[str, Any] = field(default_factory=dict)
    t_s: float = 0.0
    type: str = "follow_up_played"
    #: The follow-up's faults resolved to the candidate's node ids: [kind, target, magnitude or None].
    faults: list = field(default_factory=list)
    #: What the follow-up did to the candidate's design when it could not hit what it names: the
    #: part that took its place, or that nothing in the design is in reach.
    note: str = ""


@dataclass(frozen=True)
class PhaseChanged:
    """The interview moved to phase ``phase`` of ``minutes``, with its goal."""

    phase: str
    title: str
    goal: str
    minutes: float
    t_s: float = 0.0
    type: str = "phase_changed"


@dataclass(frozen=True)
class InterviewEnded:
    """The interviewer ended the interview at ``t_s``."""

    t_s: float = 0.0
    type: str = "interview_ended"


TO_INTERVIEWER = {"design_changed": DesignChanged, "question_asked": QuestionAsked, "figures_shown": FiguresShown}
TO_CANDIDATE = {"fact_revealed": RevealedFact, "follow_up_played": FollowUpPlayed, "phase_changed": PhaseChanged,
                "interview_ended": InterviewEnded}


def encode(message: Any) -> dict[str, Any]:
    """A message as plain data for the transport."""
    return asdict(message)


def decode(data: dict[str, Any], side: str) -> Any:
    """Rebuild a message addressed to ``side``; raise LinkError for anything else."""
    table = TO_CANDIDATE if side == CANDIDATE else TO_INTERVIEWER
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in table:
        raise LinkError(f"the {side} does not accept messages of type {kind!r}")
    try:
        return table[kind](**data)
    except TypeError as error:
        raise LinkError(f"malformed {kind} message: {error}") from None


def reach_note(retargeted: list[str], out_of_reach: bool) -> str:
    """For the candidate: which part of their design stood in for what a follow-up names, or that it
    reaches nothing in it."""
    if retargeted:
        return "On your design: " + "; ".join(retargeted) + "."
    if out_of_reach:
        return "It reaches no part of your design, so its conditions leave your figures as they are."
    return ""


# ----------------------------------------------------------------------------- transport
class Transport(Protocol):
    """Carries messages between the two sides (in memory, or over the network)."""

    def send(self, to: str, data: dict[str, Any]) -> None:
        """Deliver ``data`` to the side called ``to``."""

    def subscribe(self, side: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call ``callback`` with each message for ``side``."""


class InProcessTransport:
    """Delivers each message at once to the subscribers of the side it is addressed to."""

    def __init__(self) -> None:
        self.subscribers: dict[str, list[Callable[[dict[str, Any]], None]]] = {CANDIDATE: [], INTERVIEWER: []}
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, to: str, data: dict[str, Any]) -> None:
        """Deliver ``data`` to side ``to``'s subscribers at once; raises LinkError for an unknown side."""
        if to not in self.subscribers:
            raise LinkError(f"no side called {to!r}")
        self.sent.append((to, data))
        for callback in list(self.subscribers[to]):
            callback(dict(data))

    def subscribe(self, side: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call ``callback`` with each message for ``side``."""
        self.subscribers[side].append(callback)


# ------------------------------------------------------------------------------ candidate
@dataclass(frozen=True)
class CandidateBrief:
    """Everything public about a scenario: what the candidate may see before anything is revealed."""

    scenario_id: str
    title: str
    difficulty: str
    prompt: str
    questions: tuple[tuple[str, str, str], ...]  # (id, text, category)
    phases: tuple[tuple[str, str, float, str], ...]  # (name, title, minutes, goal)

    @classmethod
    def of(cls, scenario: Scenario) -> "CandidateBrief":
        """What the candidate may see of ``scenario``: title, difficulty, prompt, questions and phases, no facts."""
        return cls(scenario.id, scenario.title, scenario.difficulty, scenario.prompt,
                   tuple((q.id, q.text, q.category) for q in scenario.questions),
                   tuple((p.name, p.title, p.minutes, p.goal) for p in scenario.phases))


class CandidateLink:
    """The candidate window's end of the link. It never sees hidden facts, notes or findings."""

    def __init__(self, transport: Transport, brief: CandidateBrief):
        self.transport = transport
        self.brief = brief
        self.facts: list[RevealedFact] = []
        self.follow_ups: list[FollowUpPlayed] = []
        self.phase: PhaseChanged | None = None
        self.ended = False
        self.listeners: list[Callable[[Any], None]] = []
        transport.subscribe(CANDIDATE, self._receive)

    def on_message(self, callback: Callable[[Any], None]) -> None:
        """Call ``callback`` with each message from the interviewer."""
        self.listeners.append(callback)

    def _receive(self, data: dict[str, Any]) -> None:
        message = decode(data, CANDIDATE)
        if isinstance(message, RevealedFact):
            if all(f.fact_id != message.fact_id for f in self.facts):
                self.facts.append(message)
        elif isinstance(message, FollowUpPlayed):
            self.follow_ups.append(message)
        elif isinstance(message, PhaseChanged):
            self.phase = message
        elif isinstance(message, InterviewEnded):
            self.ended = True
        for listener in list(self.listeners):
            listener(message)

    def ask(self, question_id: str | None = None, text: str = "") -> None:
        """Ask a panel question (by id) or a free-text one."""
        if question_id is not None and question_id not in {q[0] for q in self.brief.questions}:
            raise LinkError(f"no question '{question_id}' on the panel")
        if question_id is None and not text.strip():
            raise LinkError("a free-text question needs some text")
        panel = {q[0]: q[1] for q in self.brief.questions}
        self.transport.send(INTERVIEWER, encode(QuestionAsked(question_id, (text or panel.get(question_id or "", ""))
                                                              [:MAX_FREE_TEXT])))

    def design_changed(self, design: Design | bytes) -> None:
        """Send the candidate's design to the interviewer."""
        data = design if isinstance(design, bytes) else design_to_bytes(design)
        self.transport.send(INTERVIEWER, encode(DesignChanged(data.decode("utf-8"))))

    def figures_shown(self, mode: str, line: str, values: dict[str, float | None]) -> None:
        """Tell the interviewer what the candidate's tiles show now (not kept in the record)."""
        self.transport.send(INTERVIEWER, encode(FiguresShown(mode, line[:MAX_FREE_TEXT], dict(values))))


# ---------------------------------------------------------------------------- interviewer
@dataclass
class Note:
    """An interviewer's note taken at ``t_s``."""

    t_s: float
    text: str


@dataclass
class MockResult:
    """A mock interview's outcome: the graded result, the notes, the questions asked and the what-ifs played."""

    result: Result
    notes: list[Note]
    questions: list[tuple[float, QuestionAsked]]
    what_ifs_played: list[WhatIf]


class InterviewerLink:
    """The interviewer's end: holds the scenario, the clock, the notes and the session record."""

    def __init__(self, transport: Transport, entry: ScenarioEntry, history: History | None = None,
                 clock: Callable[[], float] = time.monotonic, auto_answer: bool = False,
                 snapshot_every_s: float = 0.0, resume_attempt: int | None = None):
        self.transport = transport
        self.entry = entry
        self.scenario = entry.scenario
        if resume_attempt is not None and history is not None:  # carry on an interview the app was running
            self.session = PracticeSession.resume(entry, history, resume_attempt, clock=clock)
        else:
            self.session = PracticeSession(entry, history, clock=clock, mode="mock")
        self.auto_answer = auto_answer
        self.notes: list[Note] = [Note(t_s, text) for t_s, text in self.session.notes]
        self.questions: list[tuple[float, QuestionAsked]] = []
        self.latest: Design | None = None
        #: What the candidate's tiles showed last (None until they say).
        self.figures: FiguresShown | None = None
        self.what_ifs: list[WhatIf] = []
        self.listeners: list[Callable[[Any], None]] = []
        self.rejected: list[str] = []
        #: Designs arriving faster than this are shown at once but kept in the record at most this
        #: often (the last one of a burst is kept by ``flush_snapshot``, dated when it arrived).
        self.snapshot_every_s = snapshot_every_s
        self._snapshot_at = float("-inf")
        self._unrecorded: tuple[Design, float] | None = None
        transport.subscribe(INTERVIEWER, self._receive)

    def brief(self) -> CandidateBrief:
        """The candidate's brief of the scenario."""
        return CandidateBrief.of(self.scenario)

    def on_message(self, callback: Callable[[Any], None]) -> None:
        """Call ``callback`` with each message from the candidate."""
        self.listeners.append(callback)

    def start(self) -> None:
        """Start the interview (a resumed one runs already) and tell the candidate the phase."""
        if self.session.state == "ready":
            self.session.start()
        self._send_phase()

    def _now(self) -> float:
        return self.session.elapsed()

    def _receive(self, data: dict[str, Any]) -> None:
        message = decode(data, INTERVIEWER)
        if self.session.state != "running":
            raise LinkError(f"the interview is {self.session.state}; the message was not taken")
        design = None
        if isinstance(message, DesignChanged):
            try:
                design = parse_design(message.design_json.encode("utf-8"), "<candidate design>")
            except InferboardError as error:
                self.rejected.append(str(error))
                return
            self.latest = design
        elif isinstance(message, FiguresShown):
            self.figures = message
        elif isinstance(message, QuestionAsked):
            self.questions.append((self._now(), message))
            if self.auto_answer and message.question_id:
                self.answer(message.question_id)
        try:
            for listener in list(self.listeners):  # the mirror first: the record can wait a moment
                listener(message)
        finally:
            if design is not None:
                self._keep_snapshot(design)

    def _keep_snapshot(self, design: Design) -> None:
        now = self._now()
        if now - self._snapshot_at >= self.snapshot_every_s:
            self._unrecorded = None
            self._snapshot_at = now
            self.session.record_design(design, t_s=now)
        else:
            self._unrecorded = (design, now)

    def flush_snapshot(self, force: bool = False) -> bool:
        """Record the design kept back once ``snapshot_every_s`` has passed (call now and then;
        ``force`` before the end); False when nothing was recorded."""
        if self._unrecorded is None or self.session.state != "running":
            return False
        if not force and self._now() - self._snapshot_at < self.snapshot_every_s:
            return False
        design, t_s = self._unrecorded
        self._unrecorded = None
        self._snapshot_at = t_s
        return self.session.record_design(design, t_s=t_s)

    # ---------------------------------------------------------------- actions
    def answer(self, question_id: str) -> list[RevealedFact]:
        """Answer a panel question: record it (for the clarifying score) and reveal its facts."""
        asked = self.session.ask(question_id)
        out = []
        for fact in asked.facts:
            self.transport.send(CANDIDATE, encode(fact))
            out.append(fact)
        return out

    def reveal(self, fact_id: str) -> RevealedFact:
        """Reveal one fact in answer to a free-text question (no question credit)."""
        fact = self.session.reveal_fact(fact_id)
        self.transport.send(CANDIDATE, encode(fact))
        return fact

    def play_follow_up(self, follow_up_id: str) -> WhatIf | None:
        """Tell the candidate; return the what-if on their latest design (None before any design)."""
        follow_up = self.session.play_follow_up(follow_up_id)
        faults, note = [], ""
        if self.latest is not None:
            resolved, _, unmatched, _, retargeted = plan_faults(self.latest, follow_up)
            faults = [[f.kind, f.target, f.magnitude] for f in resolved]
            note = reach_note(retargeted, bool(unmatched) and not resolved)
        self.transport.send(CANDIDATE, encode(FollowUpPlayed(follow_up.id, follow_up.title, follow_up.prompt,
                                                             dict(follow_up.requirement_changes), self._now(),
                                                             faults=faults, note=note)))
        if self.latest is None:
            return None
        result = what_if(self.scenario, self.latest, follow_up)
        self.what_ifs.append(result)
        return result

    def advance_phase(self) -> str:
        """Move on to the next phase and tell the candidate; returns its name."""
        name = self.session.advance_phase()
        self._send_phase()
        return name

    def _send_phase(self) -> None:
        phase = self.scenario.phases[min(self.session.phase_index_at(self._now()), len(self.scenario.phases) - 1)]
        self.transport.send(CANDIDATE, encode(PhaseChanged(phase.name, phase.title, phase.goal, phase.minutes,
                                                           self._now())))

    def add_note(self, text: str) -> Note:
        """Keep a timed note (up to 4000 characters); returns it."""
        note = Note(self._now(), text[:4000])
        self.notes.append(note)
        self.session.add_note(note.text)
        return note

    def feedback_html(self, diagram_png: bytes | None = None) -> str:
        """The feedback report once the interview has ended: notes, scores, per-phase snapshots."""
        return self.session.report_html(diagram_png)

    def end(self) -> MockResult:
        """Grade the latest design, store the session, tell the candidate it is over."""
        self.flush_snapshot(force=True)
        design = self.latest if self.latest is not None else Design()
        result = self.session.submit(design)
        self.transport.send(CANDIDATE, encode(InterviewEnded(result.duration_s)))
        return MockResult(result, list(self.notes), list(self.questions), list(self.what_ifs))
