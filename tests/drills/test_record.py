"""Drills in the practice history, the HTML report, replays and the command line."""

import json

import pytest

from inferboard.cli import main
from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.drills.record import (drill_runs, load_drill_run, replay_record, save_drill, save_drill_report,
                                      session_report_html)
from inferboard.practice.history import History
from inferboard.paths import data_dir

DESIGN = data_dir("assets") / "drills" / "designs" / "ranker-drill.json"


def played(design):
    session = DrillSession(get_drill("slow-canary-version"), design, seed=2)
    session.state_symptom("p99 up", scope="eu-west")
    session.check_changes()
    session.wait(3)
    session.apply_mitigation("rollback_canary", "{canary}")
    session.wait(10)
    session.name_root_cause("slow canary build 2.14, auto-rollback paused")
    session.finish()
    return session


def test_a_drill_round_trips_through_the_history_and_replays_to_the_same_result(tmp_path, drill_design):
    session = played(drill_design)
    with History(tmp_path) as history:
        run_id = save_drill(history, session)
    with History(tmp_path) as history:  # reopened: the row is on disk
        rows = drill_runs(history)
        record = load_drill_run(history, run_id)
    assert [r["id"] for r in rows] == [run_id] and rows[0]["drill_id"] == "slow-canary-version"
    assert rows[0]["percent"] == pytest.approx(session.result().percent)
    assert [a.to_dict() for a in record.actions] == [a.to_dict() for a in session.actions]
    again = replay_record(record)
    assert json.loads(json.dumps(again.result().to_dict(), default=float)) == record.result


def test_the_report_is_self_contained_and_written_atomically(tmp_path, drill_design):
    session = played(drill_design)
    html = session_report_html(session)
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "rollback canary" in html and "What really happened" in html
    assert "time to mitigate" in html
    target = tmp_path / "drill.html"
    target.write_text("old", encoding="utf-8")
    save_drill_report(target, html)
    assert target.read_text(encoding="utf-8") == html
    assert not list(tmp_path.glob(".drill.html.*"))
    assert "What really happened" not in session_report_html(session, with_truth=False)


def test_drill_list_and_run_from_the_command_line(tmp_path, capsys):
    assert main(["drill", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) >= 12 and {"id", "title", "kind"} <= set(listed[0])
    script = tmp_path / "actions.yaml"
    script.write_text("- {do: check_changes}\n"
                      "- {do: apply_mitigation, action: rollback_canary, target: '{canary}'}\n"
                      "- {at_min: 60, do: name_root_cause, text: 'the canary build is slow'}\n", encoding="utf-8")
    assert main(["drill", "run", "slow-canary-version", "--design", str(DESIGN), "--script", str(script),
                 "--json", "--truth", "--history", str(tmp_path / "h")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"]["restored"] is True and out["result"]["ended_min"] == pytest.approx(60, abs=1)
    assert "2.14" in out["truth"]["root_cause"]
    with History(tmp_path / "h") as history:
        assert len(drill_runs(history)) == 1


def test_a_bad_script_step_is_named(tmp_path, capsys):
    script = tmp_path / "bad.yaml"
    script.write_text("- {do: check_changes}\n- {do: apply_mitigation, action: rollback_canary, colour: red}\n",
                      encoding="utf-8")
    assert main(["drill", "run", "slow-canary-version", "--design", str(DESIGN), "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert "step 2 (apply_mitigation): unknown field(s) colour" in err
