"""Replay scrubbing, and self-contained, escaped HTML reports."""

from __future__ import annotations

import re

import pytest

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.replay import Replay, diff_designs
from inferboard.practice.report import (attempt_report_html, design_svg, report_for_record, save_report,
                                        score_chart_svg)
from inferboard.practice.session import PracticeSession
from inferboard.store import design_to_bytes

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


def test_replay_scrubs_to_any_moment():
    design = Design()
    replay = Replay()
    assert replay.design_at(5) is None and replay.duration == 0
    replay.add(10, design_to_bytes(design), "clarify")
    design.add_node("traffic_source", 0, 0, node_id="users")
    replay.add(20, design_to_bytes(design), "high_level")
    assert not replay.add(25, design_to_bytes(design)), "an unchanged design is not a new frame"
    design.add_node("gpu_pool", 200, 0, node_id="gpus")
    design.connect("users", "requests", "gpus", "requests")
    design.set_params("gpus", replicas=4)
    replay.add(30, design_to_bytes(design), "deep_dive")
    assert replay.times == [10, 20, 30] and replay.index_at(9.9) is None and replay.index_at(29.9) == 1
    assert list(replay.design_at(20).nodes) == ["users"]
    assert replay.design_at(99).node("gpus").params["replicas"] == 4
    assert [text for _, _, text in replay.timeline()] == ["no change", "added users",
                                                          "added gpus; 1 wire(s) drawn"]
    assert replay.at_phase_ends({"clarify": 15, "high_level": 28})["high_level"].t_s == 20
    with pytest.raises(ValueError, match="older than the last"):
        replay.add(5, b"{}")


def test_edit_summaries_tell_moves_from_changes():
    before = {"nodes": [{"id": "a", "x": 0, "y": 0, "params": {"replicas": 1}}], "edges": [], "requirements": {}}
    moved = {"nodes": [{"id": "a", "x": 50, "y": 0, "params": {"replicas": 1}}], "edges": [], "requirements": {}}
    changed = {"nodes": [{"id": "a", "x": 0, "y": 0, "params": {"replicas": 3}}], "edges": [],
               "requirements": {"peak_rps": 10}}
    assert diff_designs(before, moved).text() == "moved a"
    assert diff_designs(before, changed).text() == "changed a; requirements edited"


def test_the_diagram_escapes_hostile_text_and_marks_findings():
    design = Design()
    design.add_node("region", 0, 0, {"location": "eu-west"}, node_id="eu")
    design.add_node("gpu_pool", 40, 60, node_id="gpus", region="eu", label='<script>alert("x")</script>')
    design.add_node("traffic_source", -300, 60, node_id="users")
    design.connect("users", "requests", "gpus", "requests")
    svg = design_svg(design, highlight=["gpus"])
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<rect") == 3 and svg.count("<line") == 1 and 'stroke="#dc2626"' in svg
    assert "(empty design)" in design_svg(Design())
    assert "(empty design)" in design_svg(b"not json")


@pytest.fixture(scope="module")
def submitted(library, tmp_path_factory):
    entry = library.get("image-embedding-search")
    folder = tmp_path_factory.mktemp("history")
    history = History(folder)
    clock = iter(range(0, 100_000, 60))
    session = PracticeSession(entry, history, clock=lambda: float(next(clock)))
    session.start()
    session.ask("repeats")
    design = entry.reference_design()
    design.remove_node("us-east-cache")
    session.record_design(design)
    session.add_note('Forgot the cache in one region & said "fine"')
    result = session.submit(design)
    yield session, result, history
    history.close()


def test_the_attempt_report_is_self_contained(submitted):
    session, result, _ = submitted
    html = session.report_html(diagram_png=PNG)
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert not re.search(r"<(script|link|iframe)\b", html, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I), "no external resources"
    assert "data:image/png;base64," in html
    assert "Image-embedding search with caching" in html
    for line in result.grade.rubrics:
        assert line.title in html
    for lost in result.grade.lost:
        assert lost.source in html
    assert "Why it matters and how to fix it" in html
    assert "Forgot the cache in one region &amp; said &quot;fine&quot;" in html
    assert "The cache is flushed after a deploy" in html, "follow-ups are replayed"
    assert "<h3>Reference</h3><svg" in html


def test_a_report_is_saved_whole(submitted, tmp_path):
    session, _, _ = submitted
    target = tmp_path / "report.html"
    save_report(target, session.report_html())
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert not list(tmp_path.glob("*.bak"))


def test_the_report_comes_back_from_the_history(submitted):
    _, result, history = submitted
    html = report_for_record(history.attempt(result.attempt_id))
    assert "Practice report" in html and "<svg" in html and "Your design at the end of each phase" in html
    chart = score_chart_svg(history.score_series())
    assert chart.startswith("<svg") and "overall" in chart and "clarifying" in chart


def test_an_unsubmitted_attempt_has_no_report(library, tmp_path, clock):
    with History(tmp_path) as history:
        session = PracticeSession(library.get("bursty-speech"), history, clock=clock)
        session.start()
        with pytest.raises(ValueError, match="no stored result"):
            report_for_record(history.attempt(session.attempt_id))


def test_a_report_from_a_bare_dict_does_not_crash():
    html = attempt_report_html({"grade": {}, "design": "{}", "reference": "{}"})
    assert "No points lost." in html and "Not scored" in html
