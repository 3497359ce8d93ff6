"""The mock-interview link: the candidate only ever receives what was revealed."""

from __future__ import annotations

import json

import pytest

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.interview_link import (CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink,
                                                InProcessTransport, InterviewerLink, LinkError, decode, encode)
from inferboard.practice.report import attempt_report_html
from inferboard.store import design_to_bytes


@pytest.fixture
def pair(library, clock, tmp_path):
    entry = library.get("eu-medical-imaging")
    transport = InProcessTransport()
    history = History(tmp_path)
    interviewer = InterviewerLink(transport, entry, history, clock=clock)
    candidate = CandidateLink(transport, interviewer.brief())
    interviewer.start()
    yield entry, transport, interviewer, candidate, history
    history.close()


def candidate_payloads(transport) -> str:
    return json.dumps([data for to, data in transport.sent if to == CANDIDATE])


def test_the_brief_is_public_only(library):
    scenario = library.get("eu-medical-imaging").scenario
    brief = CandidateBrief.of(scenario)
    assert brief.prompt == scenario.prompt and brief.questions[0][1] == scenario.questions[0].text
    text = json.dumps(brief.__dict__).replace("\\n", "\n")
    for fact in scenario.facts:
        assert fact.text not in text
    assert scenario.reference.notes not in text and scenario.interviewer_script.strip() not in text
    assert not any(isinstance(v, type(scenario)) for v in vars(CandidateLink(InProcessTransport(), brief)).values())


def test_a_round_trip_of_questions_facts_and_designs(pair, clock):
    entry, transport, interviewer, candidate, _ = pair
    assert candidate.phase.phase == "clarify" and candidate.phase.minutes == 8
    received = []
    interviewer.on_message(received.append)
    clock.advance(40)
    candidate.ask("residency")
    assert received[-1].question_id == "residency" and interviewer.questions[0][0] == 40
    assert candidate.facts == [], "nothing is revealed until the interviewer answers"
    facts = interviewer.answer("residency")
    assert [f.fact_id for f in candidate.facts] == ["residency"] == [f.fact_id for f in facts]
    assert candidate.facts[0].values == {"allowed_regions": ["eu-west", "eu-central"]}
    candidate.ask(text="Do hospitals upload whole studies at once?")
    assert interviewer.questions[-1][1].question_id is None
    interviewer.reveal("model")
    assert [f.fact_id for f in candidate.facts] == ["residency", "model"]
    design = entry.reference_design()
    clock.advance(400)
    candidate.design_changed(design)
    assert design_to_bytes(interviewer.latest) == design_to_bytes(design)


def test_hidden_data_never_reaches_the_candidate(pair, clock):
    entry, transport, interviewer, candidate, _ = pair
    candidate.ask("residency")
    interviewer.answer("residency")
    candidate.design_changed(entry.reference_design())
    interviewer.add_note("Candidate routed EU traffic only to EU regions - good.")
    what_if = interviewer.play_follow_up("eu-west-down")
    assert what_if is not None and what_if.after.available
    interviewer.advance_phase()
    result = interviewer.end()
    payloads = candidate_payloads(transport)
    scenario = entry.scenario
    for fact in scenario.facts:
        assert (fact.text in payloads) == (fact.id == "residency"), fact.id
    assert "routed EU traffic" not in payloads, "notes stay with the interviewer"
    assert scenario.follow_up("eu-west-down").look_for not in payloads
    # A played follow-up's faults travel, resolved to the candidate's own node ids, so its effect
    # shows in the candidate's readouts; the follow-ups not played never do.
    played = [data for to, data in transport.sent if to == CANDIDATE and data["type"] == "follow_up_played"]
    assert [fault[0] for fault in played[0]["faults"]] == ["region_outage"]
    assert all(fault[1] in entry.reference_design().nodes for fault in played[0]["faults"])
    for other in scenario.follow_ups:
        if other.id != "eu-west-down":
            assert other.prompt not in payloads
    assert all(f.rule_id not in payloads for f in result.result.grade.findings)
    assert scenario.reference.notes.strip()[:60] not in payloads
    types = {data["type"] for to, data in transport.sent if to == CANDIDATE}
    assert types <= {"fact_revealed", "follow_up_played", "phase_changed", "interview_ended"}
    assert candidate.ended and candidate.follow_ups[0].prompt.startswith("eu-west is unreachable")


def test_messages_only_travel_the_right_way(pair):
    _, transport, interviewer, candidate, _ = pair
    with pytest.raises(LinkError, match="does not accept messages of type 'fact_revealed'"):
        transport.send(INTERVIEWER, {"type": "fact_revealed", "fact_id": "x", "category": "x", "text": "x"})
    with pytest.raises(LinkError, match="does not accept messages of type 'design_changed'"):
        transport.send(CANDIDATE, {"type": "design_changed", "design_json": "{}"})
    with pytest.raises(LinkError, match="malformed question_asked"):
        transport.send(INTERVIEWER, {"type": "question_asked", "question_id": None, "text": "", "extra": 1})
    with pytest.raises(LinkError, match="no question 'secret'"):
        candidate.ask("secret")
    with pytest.raises(LinkError, match="needs some text"):
        candidate.ask(text="   ")
    assert decode(encode(candidate.phase), CANDIDATE) == candidate.phase


def test_a_broken_design_from_the_candidate_is_rejected_not_fatal(pair):
    _, transport, interviewer, candidate, _ = pair
    transport.send(INTERVIEWER, {"type": "design_changed", "design_json": '{"format": "nope"}'})
    assert interviewer.latest is None and "not an Inferboard design" in interviewer.rejected[0]
    candidate.design_changed(Design())
    assert interviewer.latest is not None


def test_the_feedback_report_and_the_replay(pair, clock):
    entry, transport, interviewer, candidate, history = pair
    candidate.ask("residency")
    interviewer.answer("residency")
    design = Design()
    design.add_node("traffic_source", 0, 0, {"origin": "eu-west"}, node_id="hospitals")
    clock.advance(120)
    candidate.design_changed(design)
    clock.advance(8 * 60)
    design.add_node("region", 200, 0, {"location": "eu-west", "residency": "eu"}, node_id="eu-west")
    candidate.design_changed(design)
    clock.advance(60)
    interviewer.add_note("Good instinct on residency <3")
    mock = interviewer.end()
    assert [n.text for n in mock.notes] == ["Good instinct on residency <3"]
    assert mock.result.grade.clarify.percent > 0
    replay = interviewer.session.replay
    assert replay.design_at(60) is None
    assert list(replay.design_at(130).nodes) == ["hospitals"]
    assert list(replay.design_at(10_000).nodes) == ["hospitals", "eu-west"]
    record = history.attempt(mock.result.attempt_id)
    assert record.attempt["mode"] == "mock" and [e["kind"] for e in record.events][-1] == "note"
    html = attempt_report_html(mock.result.to_dict(), {"clarify": replay.bytes_at(130)},
                               [(n.t_s, n.text) for n in mock.notes], mode="mock")
    assert "Mock interview feedback" in html and "Good instinct on residency &lt;3" in html
    feedback = interviewer.feedback_html()
    assert "Mock interview feedback" in feedback and "Good instinct on residency &lt;3" in feedback
    assert "Your design at the end of each phase" in feedback
    with pytest.raises(LinkError, match="submitted"):
        candidate.design_changed(design)


def test_designs_reach_listeners_before_the_record_and_a_burst_is_kept_at_most_once_a_second(library, clock,
                                                                                             tmp_path):
    entry = library.get("eu-medical-imaging")
    transport = InProcessTransport()
    history = History(tmp_path)
    interviewer = InterviewerLink(transport, entry, history, clock=clock, snapshot_every_s=1.0)
    candidate = CandidateLink(transport, interviewer.brief())
    interviewer.start()
    base = clock.t
    try:
        frames_when_shown = []
        interviewer.on_message(lambda m: frames_when_shown.append(len(interviewer.session.replay)))

        def edit(n: int, at: float) -> None:
            clock.t = base + at
            design = Design(metadata={"title": f"edit {n}", "notes": ""})
            design.add_node("traffic_source", 0, 0, {}, node_id=f"n{n}")
            candidate.design_changed(design)

        edit(0, 0.0)
        assert frames_when_shown == [0], "the listener (the mirror) had the design before it was recorded"
        assert len(interviewer.session.replay) == 1
        edit(1, 0.2)
        edit(2, 0.5)
        assert interviewer.latest.metadata["title"] == "edit 2"
        assert interviewer.session.replay.times == [0.0], "within a second: shown, not yet recorded"
        clock.t = base + 0.7
        assert interviewer.flush_snapshot() is False, "not due yet"
        clock.t = base + 1.1
        assert interviewer.flush_snapshot() is True
        assert interviewer.session.replay.times == [0.0, 0.5], "the last of the burst, dated when it arrived"
        assert [s["t_s"] for s in history.attempt(interviewer.session.attempt_id).snapshots] == [0.0, 0.5]
        edit(3, 1.3)  # the last snapshot is dated 0.5 s: the next is due at 1.5 s
        assert interviewer.session.replay.times == [0.0, 0.5]
        result = interviewer.end()
        titles = [json.loads(f.design_bytes)["metadata"]["title"] for f in interviewer.session.replay.frames]
        assert titles[:3] == ["edit 0", "edit 2", "edit 3"], "ending records the design kept back"
        assert result.result.design_bytes == interviewer.session.replay.frames[-1].design_bytes
    finally:
        history.close()


def test_a_follow_up_at_a_region_the_design_lacks_hits_its_main_region_and_says_so(pair):
    """'eu-west goes down' on a design that serves only from eu-central: eu-central takes the outage,
    and the candidate is told which part of their design stood in; on a design with nothing in
    reach they are told their figures stay as they are."""
    entry, transport, interviewer, candidate, _ = pair
    design = entry.reference_design()
    for node_id in [n.id for n in design.nodes.values() if n.id == "eu-west" or n.region == "eu-west"]:
        design.remove_node(node_id)
    assert not any(n.params.get("location") == "eu-west" for n in design.nodes.values())
    candidate.design_changed(design)
    interviewer.play_follow_up("eu-west-down")
    played = candidate.follow_ups[-1]
    regions = [n.id for n in design.nodes.values() if n.kind == "region"]
    assert [fault[:2] for fault in played.faults] == [["region_outage", regions[0]]]
    assert "no eu-west region" in played.note and "eu-central" in played.note
    assert "no eu-west region" in interviewer.what_ifs[-1].verdict
    bare = Design()
    bare.add_node("region", 0, 0, {"location": "eu-central"}, node_id="eu-central")
    candidate.design_changed(bare)
    interviewer.play_follow_up("eu-west-down")
    assert candidate.follow_ups[-1].faults == [] and "reaches no part of your design" in candidate.follow_ups[-1].note
