"""Both interview windows name the basis of their numbers: the candidate's figures run at the
traffic the candidate stated (a placeholder says so before any is), and the console shows the
candidate's numbers at that traffic beside the design at the scenario's true traffic, labelled;
the candidate's window never shows the true traffic."""

from __future__ import annotations

import pytest

from inferboard import humanize
from inferboard.model import ops
from inferboard.practice.whatif import load_rate, readout, with_requirements

from desktop.readouts.readings import PEAK, PLAYHEAD
from desktop.shell.evaluation import STEPS


def test_the_candidate_sees_a_placeholder_until_they_state_the_traffic(interview):
    candidate = interview("image-embedding-search", evaluate=False).candidate
    assert "No traffic stated yet" in candidate.basis_label.text()
    assert "100 req/s" in candidate.basis_label.text() and candidate.basis_label.isVisibleTo(candidate)
    stated = candidate.document.design.requirements.model_copy(update={"mean_rps": 300.0, "peak_rps": 700.0})
    candidate.document.execute(ops.SetRequirements(stated), "State the traffic")
    assert "you stated: 300 req/s mean, 700 req/s peak" in candidate.basis_label.text()


def test_both_windows_show_the_same_numbers_for_the_same_basis(interview, qtbot):
    mock = interview("image-embedding-search")
    candidate, console = mock.candidate, mock.console
    candidate.evaluator.steps = tuple(s for s in STEPS if s[0] in ("steady", "steady_peak"))
    design = console.link.entry.reference_design()
    design.apply(ops.SetRequirements(design.requirements.model_copy(update={"mean_rps": 200.0, "peak_rps": 400.0})))
    candidate.document.set_design(design)
    candidate.send_design()
    qtbot.waitUntil(lambda: candidate.evaluator.latest.get("steady_peak") is not None
                    and console.evaluator.latest.get("basis") is not None
                    and console.evaluator.latest["basis"].stated is not None, timeout=30000)
    basis = console.evaluator.latest["basis"]
    # The candidate's own steady state at their stated peak: the console's number at their basis.
    assert abs(candidate.evaluator.latest["steady_peak"].p99_ms - basis.at_stated.p99_ms) < 1e-6
    truth = console.scenario.requirements
    expected = readout(with_requirements(design, truth), load_rate(truth))
    assert abs(basis.at_true.p99_ms - expected.p99_ms) < 1e-6 and load_rate(truth) > 400.0
    text = console.basis.text()
    assert "at the candidate's stated traffic" in text and "at the scenario's true traffic" in text
    # One screen: the true traffic is folded away until the interviewer shows it.
    assert humanize.rate(truth.peak_rps) not in text and "400 req/s peak" in text
    assert not console.questions.facts.isVisibleTo(console)
    # Folded looks folded: no heading, no reveal button, one neutral line in their place.
    assert not console.questions.facts_heading.isVisibleTo(console)
    assert not console.questions.reveal_button.isVisibleTo(console)
    assert console.questions.folded_note.isVisibleTo(console) and "fact" not in console.questions.folded_note.text()
    console.private.click()
    text = console.basis.text()
    assert humanize.rate(truth.peak_rps) in text and console.questions.facts.isVisibleTo(console)
    assert console.questions.facts_heading.isVisibleTo(console) and not console.questions.folded_note.isVisibleTo(console)
    assert humanize.rate(truth.peak_rps) not in candidate.basis_label.text()


@pytest.mark.slow
def test_a_fault_follow_up_changes_the_numbers_at_both_bases(interview, qtbot):
    mock = interview("image-embedding-search", evaluate=False)
    console = mock.console
    design = console.link.entry.reference_design()
    mock.candidate.document.set_design(design)
    mock.candidate.send_design()
    qtbot.waitUntil(lambda: console.evaluator.latest.get("basis") is not None, timeout=30000)
    before = console.evaluator.latest["basis"]
    follow_up = next(f for f in console.scenario.follow_ups if f.faults and not f.requirement_changes)
    console.follow_ups.buttons[follow_up.id].click()
    qtbot.waitUntil(lambda: console.evaluator.latest.get("basis") is not before, timeout=30000)
    after = console.evaluator.latest["basis"]
    assert after.at_true.to_dict() != before.at_true.to_dict()
    assert before.at_stated is not None and after.at_stated.to_dict() != before.at_stated.to_dict()


def test_the_replay_lists_questions_answers_phases_and_follow_ups(interview, qtbot, clock):
    mock = interview("image-embedding-search", evaluate=False)
    candidate, console = mock.candidate, mock.console
    scenario = console.scenario
    question = scenario.questions[0]
    clock.t += 30
    candidate.ask(question.id)
    qtbot.waitUntil(lambda: console.questions.inbox.count() == 1)
    console.answer(question.id)
    clock.t += 60
    console.advance_phase()
    candidate.document.set_design(console.link.entry.reference_design())
    candidate.send_design()
    follow_up = scenario.follow_ups[0]
    clock.t += 60
    console.play_follow_up(follow_up.id)
    console.end_interview(confirm=False)
    replay = console.open_replay()
    said = [replay.view.said.item(i).text() for i in range(replay.view.said.count())]
    kinds = [line.split("\n")[0].split("  ")[1] for line in said]
    assert {"Question", "Answer", "Phase", "Follow-up"} <= set(kinds), kinds
    assert any(question.text in line for line in said) and any(follow_up.title in line for line in said)
    assert scenario.phases[1].title in "".join(said)
    replay.view.set_time(31.0)
    assert scenario.fact(question.reveals[0]).text in replay.view.said_label.text()
    replay.close()


@pytest.mark.slow
def test_the_console_shows_the_tiles_figures_on_the_tiles_basis(interview, qtbot):
    """The candidate's tiles at the playhead reach the console as they are, labelled with their
    moment and why they may differ from the steady state; picking the steady state at peak makes the
    tiles' p99 the console's steady-state p99 at the stated traffic."""
    mock = interview("image-embedding-search")
    candidate, console = mock.candidate, mock.console
    candidate.evaluator.steps = tuple(s for s in STEPS if s[0] in ("steady", "steady_peak", "timeline"))
    design = console.link.entry.reference_design()
    design.apply(ops.SetRequirements(design.requirements.model_copy(update={"mean_rps": 200.0, "peak_rps": 400.0})))
    candidate.document.set_design(design)
    candidate.send_design()
    readouts = candidate.readouts
    qtbot.waitUntil(lambda: readouts.reading is not None and readouts.reading.mode == PLAYHEAD
                    and console.link.figures is not None and console.link.figures.mode == PLAYHEAD
                    and console.evaluator.latest.get("basis") is not None
                    and console.evaluator.latest["basis"].stated is not None, timeout=60000)
    tiles = readouts.reading
    assert console.link.figures.values["p99_ms"] == tiles.values["p99_ms"]
    text = console.basis.text()
    assert "Their tiles show" in text and tiles.status_line().split(":")[0] in text
    assert f"p99 {tiles.text('p99_ms')}" in text and "a moment of the simulated day" in text
    readouts.set_mode(PEAK)
    qtbot.waitUntil(lambda: console.link.figures.mode == PEAK, timeout=10000)
    at_stated = console.evaluator.latest["basis"].at_stated
    assert abs(console.link.figures.values["p99_ms"] - at_stated.p99_ms) < 1e-6
    assert "the same basis as the steady state at their stated traffic" in console.basis.text()
