"""What the candidate's machine takes from the interviewer: only what its own scenario declares."""

from __future__ import annotations

import pytest

from inferboard.practice.interview_link import CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink, LinkError
from inferboard.practice.library import ScenarioLibrary
from inferboard.remote.interview import CandidateGuard, RemoteTransport, resolve_session, session_info


@pytest.fixture(scope="module")
def library():
    return ScenarioLibrary(user_packs=None).load()


def candidate_side(entry, nodes):
    transport = RemoteTransport(CANDIDATE, CandidateGuard(entry.scenario, lambda: set(nodes)))
    return transport, CandidateLink(transport, CandidateBrief.of(entry.scenario))


def played(follow_up, faults, changes=None):
    return {"type": "follow_up_played", "follow_up_id": follow_up.id, "title": follow_up.title,
            "prompt": follow_up.prompt, "t_s": 12.0, "faults": faults,
            "requirement_changes": dict(follow_up.requirement_changes) if changes is None else changes}


def test_a_follow_up_must_be_the_scenarios_own_with_its_declared_changes(library):
    entry = library.get("image-embedding-search")
    transport, link = candidate_side(entry, {"gpus"})
    growth = next(f for f in entry.scenario.follow_ups if "mean_rps" in f.requirement_changes)
    transport.deliver(played(growth, []))
    assert [f.follow_up_id for f in link.follow_ups] == [growth.id]
    tampered = {**growth.requirement_changes, "mean_rps": 1}
    transport.deliver(played(growth, [], tampered))
    transport.deliver({**played(growth, []), "follow_up_id": "made-up"})
    assert len(link.follow_ups) == 1
    assert "does not declare" in transport.problems[0] and "no follow-up 'made-up'" in transport.problems[1]


def test_only_the_declared_faults_reach_the_readouts_and_only_on_the_candidates_components(library):
    entry = library.get("eu-medical-imaging")
    transport, link = candidate_side(entry, {"eu-west", "eu-central"})
    outage = entry.scenario.follow_up("eu-west-down")
    transport.deliver(played(outage, [["region_outage", "eu-west", None], ["region_outage", "not-mine", None],
                                      ["gpu_crash", "eu-west", None], ["region_outage", "eu-central", 3.0]]))
    assert link.follow_ups[0].faults == [["region_outage", "eu-west", None]]


def test_sides_and_scenario_versions_are_checked(library):
    entry = library.get("fraud-scoring-cpu")
    transport, _ = candidate_side(entry, set())
    with pytest.raises(LinkError, match="lives on this machine"):
        transport.send(CANDIDATE, {"type": "phase_changed"})
    with pytest.raises(LinkError, match="only the candidate's messages"):
        transport.subscribe(INTERVIEWER, print)
    transport.deliver({"type": "phase_changed", "phase": "no-such-phase", "title": "", "goal": "", "minutes": 1,
                       "t_s": 0})
    assert "no phase 'no-such-phase'" in transport.problems[-1]
    info = session_info(entry).model_dump()
    assert resolve_session(library, info) is entry
    with pytest.raises(LinkError, match="differs from the candidate's"):
        resolve_session(library, {**info, "digest": "0" * 64})
    with pytest.raises(LinkError, match="no scenario 'elsewhere'"):
        resolve_session(library, {**info, "scenario_id": "elsewhere"})


def test_a_revealed_fact_carries_only_the_values_the_scenario_gives_it(library):
    from inferboard.practice.session import PracticeSession

    entry = library.get("eu-medical-imaging")
    transport, link = candidate_side(entry, set())
    session = PracticeSession(entry, None)
    session.start()
    fact = next(f for f in entry.scenario.facts if f.sets)
    revealed = session.reveal_fact(fact.id)
    message = {"type": "fact_revealed", "fact_id": fact.id, "category": fact.category, "text": fact.text,
               "values": revealed.values, "t_s": 3.0}
    import json

    message = json.loads(json.dumps(message))
    transport.deliver(message)
    assert [f.fact_id for f in link.facts] == [fact.id]
    transport.deliver({**message, "fact_id": "typed-1", "values": {"mean_rps": 1}})
    transport.deliver({**message, "values": {**message["values"], "budget_per_hour": 1}})
    transport.deliver({**message, "fact_id": "invented"})
    transport.deliver({**message, "fact_id": "typed-2", "values": {}})
    assert [f.fact_id for f in link.facts] == [fact.id, "typed-2"]
    assert ["no requirement values" in transport.problems[0], "does not give it" in transport.problems[1],
            "no fact 'invented'" in transport.problems[2]] == [True, True, True]
