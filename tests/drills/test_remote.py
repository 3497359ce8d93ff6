"""A drill over the interview link: the session on the interviewer's side, the candidate's side
seeing only the view as data and sending actions; every message checked by the link's schemas."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from inferboard.drills.engine import DrillError, DrillSession
from inferboard.drills.library import get_drill
from inferboard.drills.remote import DrillHost, view_from_data
from inferboard.drills.views import Dashboard, Unavailable
from inferboard.remote import wire

from tests.drills.conftest import without_observability


def through_the_link(message: wire.Wire, accepts) -> wire.Wire:
    """A message dumped, sealed-frame-parsed and checked by direction as the link does."""
    return wire.envelope(wire.dump(wire.Envelope(mid=0, msg=message)), accepts).msg


@pytest.fixture(scope="module")
def host(drill_design):
    return DrillHost(DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="interview"))


def test_the_view_survives_the_wire_and_the_truth_does_not_travel(host):
    data = host.view()
    sent = through_the_link(wire.DrillView(type="drill_view", drill_id="slow-canary-version", view=data),
                            wire.TO_CANDIDATE)
    seen = view_from_data(json.loads(json.dumps(sent.view)))
    local = host.session.view()
    assert seen.page == local.page and seen.notice == local.notice and math.isclose(seen.now_s, local.now_s)
    system = seen.dashboards["system"]
    assert isinstance(system, Dashboard)
    p99, here = system.panels["Latency (ms)"]["p99"], local.dashboards["system"].panels["Latency (ms)"]["p99"]
    assert np.allclose(p99, here, rtol=1e-4, equal_nan=True)
    assert [n.title for n in seen.notifications] == [n.title for n in local.notifications]
    text = json.dumps(data)
    assert "root_cause" not in text and host.session.drill.root_cause[:40] not in text
    assert "planted" not in text and "fixes" not in text


def test_the_candidates_actions_are_done_on_the_interviewers_session_without_their_effect(host):
    message = wire.DrillAction(type="drill_action", verb="apply_mitigation",
                               args={"action": "rollback_canary", "target": "{canary}"})
    got = through_the_link(message, wire.TO_INTERVIEWER)
    assert host.act(got.verb, dict(got.args)) == "done"
    assert host.session.actions[-1].outcome == "fixes"  # known on the interviewer's side only
    assert host.act("wait", {"minutes": 30}).startswith("not done: 'wait' cannot be done")
    assert host.act("apply_mitigation", {"action": "warm_cache", "target": "us-east-gpus"}).startswith("not done:")
    assert [a.verb for a in host.session.actions] == ["apply_mitigation"]


def test_a_view_message_cannot_go_to_the_interviewer_nor_an_action_to_the_candidate():
    with pytest.raises(wire.WireError, match="does not take 'drill_view'"):
        through_the_link(wire.DrillView(type="drill_view", drill_id="x1", view={}), wire.TO_INTERVIEWER)
    with pytest.raises(wire.WireError, match="does not take 'drill_action'"):
        through_the_link(wire.DrillAction(type="drill_action", verb="check_changes"), wire.TO_CANDIDATE)


def test_a_remote_drill_is_an_interview_and_unavailable_views_say_why(drill_design):
    with pytest.raises(DrillError, match="interview mode"):
        DrillHost(DrillSession(get_drill("slow-canary-version"), drill_design, seed=0))
    blind = without_observability(drill_design)
    host = DrillHost(DrillSession(get_drill("slow-canary-version"), blind, seed=0, mode="interview"))
    seen = view_from_data(host.view())
    assert isinstance(seen.dashboards["breakdown"], Unavailable) and seen.dashboards["breakdown"].reason


def test_a_drill_runs_over_the_sealed_interview_link(drill_design):
    """The candidate's machine hosts, the interviewer's joins with the code: the view goes one way
    through the sealed channel, the candidate's mitigation the other, and the interviewer's
    session does it."""
    import queue

    from inferboard.remote.peer import HostPeer, JoinPeer

    to_candidate, to_interviewer = queue.Queue(), queue.Queue()
    info = wire.SessionInfo(type="session", scenario_id="drill", scenario_title="Incident drill",
                            digest="0" * 64, session_uid="1" * 32)
    candidate = HostPeer(info, "127.0.0.1", 0, on_message=to_candidate.put).start()
    interviewer = JoinPeer("127.0.0.1", candidate.port, candidate.code, on_message=to_interviewer.put).start()
    try:
        assert to_interviewer.get(timeout=20)["type"] == "session"
        host = DrillHost(DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="interview"))
        interviewer.send({"type": "drill_view", "drill_id": "slow-canary-version", "view": host.view(["system"])})
        seen = view_from_data(to_candidate.get(timeout=20)["view"])
        assert seen.page == host.session.page and "you: rollback canary" not in str(seen.changes)
        candidate.send({"type": "drill_action", "verb": "apply_mitigation",
                        "args": {"action": "rollback_canary", "target": "{canary}"}})
        action = to_interviewer.get(timeout=20)
        assert host.act(action["verb"], action["args"]) == "done"
        interviewer.send({"type": "drill_view", "drill_id": "slow-canary-version", "view": host.view(["system"])})
        seen = view_from_data(to_candidate.get(timeout=20)["view"])
        assert any(c["text"].startswith("you: rollback canary") for c in seen.changes)
    finally:
        interviewer.end("test over")
        candidate.end("test over")


CANDIDATE_MACHINE = """
import json, queue, sys
from inferboard.drills.remote import view_from_data
from inferboard.remote import wire
from inferboard.remote.peer import HostPeer
got = queue.Queue()
info = wire.SessionInfo(type="session", scenario_id="drill", scenario_title="Incident drill",
                        digest="0" * 64, session_uid="2" * 32)
peer = HostPeer(info, "127.0.0.1", 0, on_message=got.put).start()
print(json.dumps({"port": peer.port, "code": peer.code}), flush=True)
view = view_from_data(got.get(timeout=60)["view"])
print(json.dumps({"page": view.page, "dashboards": sorted(view.dashboards), "changes": len(view.changes)}), flush=True)
peer.send({"type": "drill_action", "verb": "apply_mitigation",
           "args": {"action": "rollback_canary", "target": "{canary}"}})
view = view_from_data(got.get(timeout=60)["view"])
print(json.dumps({"changes": [c["text"] for c in view.changes]}), flush=True)
peer.end("drill over")
"""


@pytest.mark.slow
def test_a_drill_runs_across_two_processes_over_the_link(drill_design):
    """The candidate's machine is a second process hosting the link; this one joins with its code,
    holds the session, and does the rollback the candidate sent."""
    import queue

    from inferboard.remote.peer import JoinPeer

    child = subprocess.Popen([sys.executable, "-c", CANDIDATE_MACHINE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=str(Path(__file__).parents[2]))
    got = queue.Queue()
    interviewer = None
    try:
        where = json.loads(child.stdout.readline())
        interviewer = JoinPeer("127.0.0.1", where["port"], where["code"], on_message=got.put).start()
        assert got.get(timeout=30)["type"] == "session"
        host = DrillHost(DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="interview"))
        interviewer.send({"type": "drill_view", "drill_id": "slow-canary-version", "view": host.view(["system"])})
        seen = json.loads(child.stdout.readline())
        assert seen["page"] == host.session.page and "system" in seen["dashboards"]
        action = got.get(timeout=30)
        assert host.act(action["verb"], action["args"]) == "done"
        assert host.session.actions[-1].outcome == "fixes"
        interviewer.send({"type": "drill_view", "drill_id": "slow-canary-version", "view": host.view(["system"])})
        after = json.loads(child.stdout.readline())
        assert any(text.startswith("you: rollback canary") for text in after["changes"])
        assert child.wait(timeout=30) == 0
    finally:
        if interviewer is not None:
            interviewer.end("test over")
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)
