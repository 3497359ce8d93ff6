"""``inferboard drill play``: a drill stepped from typed lines, on the same engine as the window."""

import io

import numpy as np

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.drills.play import Player, play, render_dashboard, sparkline
from inferboard.drills.views import Unavailable
from inferboard.paths import data_dir

from tests.drills.conftest import without_observability


def test_a_sparkline_rises_with_its_values_and_leaves_unknowns_blank():
    line = sparkline(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, np.nan]))
    assert line == "▁▂▃▄▅▆▇█ "
    assert len(sparkline(np.arange(500.0), width=40)) == 40
    assert sparkline(np.full(5, 3.0)) == "▄▄▄▄▄"


def test_a_drill_played_from_typed_lines_records_each_action_and_scores(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0)
    told = session.notice_s
    lines = io.StringIO("help\ndash system\nchanges\nsymptom p99 tripled | eu-west only\nactions\n"
                        "mitigate rollback_canary {canary}\nwait 10\n"
                        "cause build 2.14 in the canary is slow, auto-rollback paused\n"
                        "followup latency gate in the canary | per-version p99 alert\nfinish\n")
    out = io.StringIO()
    play(session, lines, out, step_min=1.0)
    text = out.getvalue()
    assert "Page: p99 has roughly tripled" in text and "Commands:" in text
    assert session.drill.title not in text.split("Commands:")[0]  # the title names the cause
    assert "== System metrics" in text and "p99 SLO" in text
    assert "ranker build 2.14 raised to 20% in eu-west-canary" in text
    verbs = [a.verb for a in session.actions]
    assert verbs == ["open_dashboard", "check_changes", "state_symptom", "apply_mitigation", "wait",
                     "name_root_cause", "write_follow_up"]
    # each command but help and actions took one simulated minute; wait took ten
    mitigated = session.actions[3]
    assert mitigated.outcome == "fixes" and abs(mitigated.t_s - (told + 4 * 60)) <= session.timeline.tick_s
    assert session.finished_at is not None and "restored" in text and "root_cause" in text


def test_a_wrong_command_or_an_impossible_mitigation_is_one_line_and_not_recorded(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0)
    player = Player(session, step_min=0)
    assert player.handle("dance") == "Unknown command 'dance'; type help."
    said = player.handle("mitigate warm_cache eu-west-gpus")
    assert said.startswith("Not done:") and "not a cache" in said
    assert player.handle("symptom") .startswith("Not done:")
    assert session.actions == []


def test_a_dashboard_the_design_lacks_says_why(drill_design):
    blind = without_observability(drill_design)
    session = DrillSession(get_drill("slow-canary-version"), blind, seed=0)
    shown = session.open_dashboard("breakdown")
    assert isinstance(shown, Unavailable)
    assert render_dashboard(shown).startswith("breakdown: Unavailable: ")
    out = io.StringIO()
    play(session, io.StringIO("alerts\n"), out, step_min=0)
    assert "This design cannot show:" in out.getvalue() and "No alerts have reached you." in out.getvalue()


def test_drill_play_reads_its_commands_from_stdin(monkeypatch, capsys):
    from inferboard.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("alerts\nmitigate rollback_canary {canary}\nwait 5\n"))
    assert main(["drill", "play", "slow-canary-version", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "drill> alerts" in out  # input that is not a terminal is echoed, so the transcript reads well
    assert "burn rate 6×" in out and "Applied rollback_canary on eu-west-canary" in out
    assert "told at minute 20.25;" in out and "NOT restored" not in out


def test_drill_play_names_an_unknown_drill_in_one_line(capsys):
    from inferboard.cli import main

    assert main(["drill", "play", "no-such-drill"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown drill 'no-such-drill'" in err


def test_drill_play_without_a_name_picks_a_runnable_drill_by_seed_and_keeps_it_hidden(monkeypatch, capsys,
                                                                                      starter_design):
    from inferboard.cli import main
    from inferboard.drills.library import applicable, load_drills
    from inferboard.drills.play import surprise

    picks = {surprise(starter_design, seed).id for seed in range(12)}
    assert picks and all(not applicable(load_drills()[i], starter_design) for i in picks)
    assert surprise(starter_design, 3).id == surprise(starter_design, 3).id
    monkeypatch.setattr("sys.stdin", io.StringIO("page\n"))
    starter = data_dir("assets") / "examples" / "starter.json"
    assert main(["drill", "play", "--design", str(starter), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    drill = surprise(starter_design, 3)
    before_result = out.rsplit(drill.title + ":", 1)[0]
    assert drill.page in before_result and drill.title not in before_result
