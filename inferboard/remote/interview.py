"""The mock interview's link carried over the network.

``RemoteTransport`` is ``interview_link``'s transport with one side here and the other side behind
a peer: ``CandidateLink`` and ``InterviewerLink`` work over it unchanged. Messages arrive on the
peer's thread; whoever owns the links hands them over on its own thread (``MessagePump`` does
that for code without a GUI; the desktop layer uses a Qt signal) by calling ``deliver``.

On the candidate's machine, ``CandidateGuard`` holds each interviewer message against the
machine's own copy of the scenario: a follow-up must be one of the scenario's, with exactly the
requirement changes the scenario declares, and its faults must be of the follow-up's kinds and hit
a component of the candidate's current design; a revealed fact must carry exactly the requirement
values the scenario gives it (the candidate may copy them into their requirements), a typed
answer none. No interviewer message carries a design, so the
interviewer can never edit the candidate's drawing.
"""

from __future__ import annotations

import hashlib
import json
import queue
import secrets
import time
from typing import Any, Callable

from inferboard.practice.interview_link import CANDIDATE, INTERVIEWER, LinkError
from inferboard.practice.library import ScenarioEntry, ScenarioLibrary
from inferboard.practice.scenario import Scenario, parse_fault_spec
from inferboard.remote import wire
from inferboard.remote.peer import Peer

SESSION = "session"


def scenario_digest(entry: ScenarioEntry) -> str:
    """Both machines must hold the same version of the scenario (prompt, facts, rubric, reference)."""
    text = entry.scenario.model_dump_json().encode("utf-8") + b"\0" + entry.reference_bytes
    return hashlib.sha256(text).hexdigest()


def session_info(entry: ScenarioEntry) -> wire.SessionInfo:
    """What the candidate's machine says first, with a fresh ``session_uid`` for this hosting."""
    return wire.SessionInfo(type="session", scenario_id=entry.id, scenario_title=entry.scenario.title[:200],
                            digest=scenario_digest(entry), session_uid=secrets.token_hex(16))


def resolve_session(library: ScenarioLibrary, info: dict[str, Any]) -> ScenarioEntry:
    """The interviewer's own copy of the candidate's scenario; LinkError names what is missing."""
    scenario_id = info.get("scenario_id", "")
    try:
        entry = library.get(scenario_id)
    except KeyError:
        raise LinkError(f"this machine has no scenario '{scenario_id}' ({info.get('scenario_title', '')}): "
                        "import the same scenario pack the candidate uses") from None
    if scenario_digest(entry) != info.get("digest"):
        raise LinkError(f"this machine's copy of '{entry.scenario.title}' differs from the candidate's: "
                        "use the same Inferboard version and scenario packs on both machines")
    return entry


class RemoteTransport:
    """``interview_link.Transport`` for the side that lives on this machine (``local_side``)."""

    def __init__(self, local_side: str, guard: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 hold: bool = False):
        if local_side not in (CANDIDATE, INTERVIEWER):
            raise LinkError(f"no side called {local_side!r}")
        self.local_side = local_side
        self.guard = guard
        self.peer: Peer | None = None
        self.callbacks: list[Callable[[dict[str, Any]], None]] = []
        self.problems: list[str] = []
        self.session: dict[str, Any] | None = None
        self.on_session: Callable[[dict[str, Any]], None] | None = None
        self.held: list[dict[str, Any]] | None = [] if hold else None

    def attach(self, peer: Peer) -> Peer:
        """Send and receive through ``peer`` from now on; returns it."""
        self.peer = peer
        return peer

    def send(self, to: str, data: dict[str, Any]) -> None:
        """Send ``data`` to the other side; raises LinkError for a side on this machine or an unknown one."""
        if to == self.local_side:
            raise LinkError(f"the {to} lives on this machine: nothing to send it over the network")
        if to not in (CANDIDATE, INTERVIEWER):
            raise LinkError(f"no side called {to!r}")
        if self.peer is None or self.peer.ended:
            self.problems.append(f"not sent after the session ended: {data.get('type')}")
            return
        try:
            self.peer.send(data)
        except wire.WireError as error:
            raise LinkError(f"not sent: {error}") from None

    def subscribe(self, side: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call ``callback`` with each message for ``side`` (only the local side's arrive here)."""
        if side != self.local_side:
            raise LinkError(f"only the {self.local_side}'s messages arrive on this machine")
        self.callbacks.append(callback)

    def release(self) -> None:
        """Hand over the messages held back until the local link was ready for them."""
        held, self.held = self.held or [], None
        for data in held:
            self.deliver(data)

    def deliver(self, data: dict[str, Any]) -> None:
        """Give one received message to the local link (call on the thread that owns the link)."""
        if data.get("type") == SESSION:
            self.session = dict(data)
            if self.on_session is not None:
                self.on_session(dict(data))
            return
        if self.held is not None:
            self.held.append(data)
            return
        try:
            data = self.guard(data) if self.guard is not None else data
            for callback in list(self.callbacks):
                callback(dict(data))
        except LinkError as error:
            self.problems.append(f"{data.get('type')}: {error}")


class CandidateGuard:
    """Checks an interviewer's message against the candidate's own copy of the scenario."""

    def __init__(self, scenario: Scenario, design_nodes: Callable[[], set[str]]):
        self.scenario = scenario
        self.design_nodes = design_nodes

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        kind = data.get("type")
        if kind == "phase_changed" and data.get("phase") not in {p.name for p in self.scenario.phases}:
            raise LinkError(f"no phase '{data.get('phase')}' in this scenario")
        if kind == "fact_revealed":
            return self._fact(data)
        if kind != "follow_up_played":
            return data
        follow_up = next((f for f in self.scenario.follow_ups if f.id == data.get("follow_up_id")), None)
        if follow_up is None:
            raise LinkError(f"no follow-up '{data.get('follow_up_id')}' in this scenario")
        declared = json.loads(json.dumps(follow_up.requirement_changes))
        if data.get("requirement_changes") != declared:
            raise LinkError(f"follow-up '{follow_up.id}' changes requirements the scenario does not declare")
        declared_faults = {(spec.kind, spec.magnitude) for spec in map(parse_fault_spec, follow_up.faults)}
        nodes = self.design_nodes() | {"*"}
        faults = [f for f in data.get("faults", []) if (f[0], f[2]) in declared_faults and f[1] in nodes]
        return {**data, "faults": faults}


    def _fact(self, data: dict[str, Any]) -> dict[str, Any]:
        """A scenario fact carries exactly the requirement values the scenario pins; a typed answer none."""
        fact_id = str(data.get("fact_id", ""))
        if fact_id.startswith("typed-"):
            if data.get("values"):
                raise LinkError("a typed answer carries no requirement values")
            return data
        fact = next((f for f in self.scenario.facts if f.id == fact_id), None)
        if fact is None:
            raise LinkError(f"no fact '{fact_id}' in this scenario")
        truth = self.scenario.requirements.model_dump(mode="json")
        if data.get("values") != {name: truth.get(name) for name in fact.sets}:
            raise LinkError(f"fact '{fact_id}' carries values the scenario does not give it")
        return data


class MessagePump:
    """Received messages queued on the peer's thread and delivered on the owner's (no GUI needed)."""

    def __init__(self, transport: RemoteTransport):
        self.transport = transport
        self.queue: queue.Queue = queue.Queue()
        self.statuses: list[Any] = []

    def put(self, data: dict[str, Any]) -> None:
        """Queue a message for the GUI thread."""
        self.queue.put(("message", data))

    def status(self, status: Any) -> None:
        """Queue a link status change for the GUI thread."""
        self.queue.put(("status", status))

    def pump(self, until: Callable[[], bool] = lambda: False, timeout: float = 5.0) -> bool:
        """Deliver what arrives until ``until()`` holds (True) or ``timeout`` passes (False)."""
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                kind, item = self.queue.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue
            if kind == "message":
                self.transport.deliver(item)
            else:
                self.statuses.append(item)
        return True
