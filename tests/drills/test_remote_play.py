"""A drill from two terminals over the sealed link: the candidate's side hosts and plays from typed
lines, the interviewer's side joins, holds the session and does what the candidate sends."""

from __future__ import annotations

import io
import queue
import threading

import pytest

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.drills.remote import DrillHost
from inferboard.drills.remote_play import RemoteCandidate, drill_session_info, run_candidate, run_interviewer
from inferboard.remote import wire
from inferboard.remote.peer import HostPeer, JoinPeer


def test_the_candidates_commands_read_the_view_and_send_actions(drill_design):
    sent = []
    candidate = RemoteCandidate(sent.append)
    assert "waiting" in candidate.handle("dash")
    host = DrillHost(DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="interview"))
    opening = candidate.take({"type": "drill_view", "view": host.view()})
    assert host.session.page in opening and host.session.drill.title not in opening
    assert "p99" in candidate.handle("dash system")
    assert "Unavailable" not in candidate.handle("dash nonsense") and "there are:" in candidate.handle("dash nonsense")
    candidate.handle("mitigate rollback_canary {canary}")
    candidate.handle("symptom p99 up | one region")
    assert sent == [{"type": "drill_action", "verb": "apply_mitigation",
                     "args": {"action": "rollback_canary", "target": "{canary}", "value": None}},
                    {"type": "drill_action", "verb": "state_symptom", "args": {"text": "p99 up", "scope": "one region"}}]


@pytest.mark.slow
def test_a_drill_played_from_two_terminals_over_the_link(drill_design):
    lines = io.StringIO("dash system\nmitigate rollback_canary {canary}\nwait\nwait\nchanges\nquit\n")
    candidate_out, ready = io.StringIO(), queue.Queue()

    class Started(HostPeer):
        def start(self, timeout: float = 10.0):
            super().start(timeout)
            ready.put((self.port, self.code))  # what the candidate's terminal prints
            return self

    candidate_peer = lambda on_message: Started(drill_session_info(wire.SessionInfo), "127.0.0.1", 0, on_message=on_message)  # noqa: E731
    thread = threading.Thread(target=run_candidate, args=(candidate_peer, lines, candidate_out), daemon=True)
    thread.start()
    port, code = ready.get(timeout=20)
    inbox: queue.Queue = queue.Queue()
    interviewer = JoinPeer("127.0.0.1", port, code, on_message=inbox.put).start()
    assert inbox.get(timeout=20)["type"] == "session"
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="interview")
    interviewer_out = io.StringIO()
    try:
        run_interviewer(DrillHost(session), interviewer, inbox, interviewer_out, speed=600.0, every_s=0.2)
    finally:
        interviewer.end("test over")
    thread.join(timeout=30)
    seen = candidate_out.getvalue()
    assert session.page in seen and "sent to the interviewer: mitigate" in seen
    assert "you: rollback canary" in seen  # the change log the interviewer's machine sent back shows it
    said = interviewer_out.getvalue()
    assert "apply_mitigation" in said and ": done" in said
    assert session.actions[-1].outcome == "fixes" and session.drill.title in said  # the score, with the cause
