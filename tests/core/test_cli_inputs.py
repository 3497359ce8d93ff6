"""The command line checks every flag value up front: one line naming the flag or file, exit status
2, the same status for the same failure in every command, and user text shown escaped."""

from __future__ import annotations

import os
import shutil
import json

import pytest

from inferboard.cli import main
from inferboard.paths import data_dir
from inferboard.store import design_to_bytes, parse_design

EXAMPLE = data_dir("assets") / "examples" / "multi-region.json"
DRILL_DESIGN = data_dir("assets") / "drills" / "designs" / "ranker-drill.json"


def one_line_error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err and lines[0].isprintable()
    return lines[0]


@pytest.mark.parametrize("flags, message", [
    (["--rps", "nan"], "argument --rps: must be a finite number, not 'nan'"),
    (["--rps", "-5"], "argument --rps: must be more than 0, not '-5'"),
    (["--rps", "inf"], "argument --rps: must be a finite number"),
    (["--rps", "1e308"], "argument --rps: must be at most 1e+07"),
    (["--timeline", "--pattern", "bogus"], "--pattern: unknown pattern 'bogus'; choose one of: steady"),
    (["--pattern", "diurnal"], "--pattern: only used with --timeline"),
    (["--timeline", "--hours", "100000"], "argument --hours: must be at most 168"),
    (["--timeline", "--tick", "0.001"], "argument --tick: must be at least 1"),
    (["--timeline", "--hours", "168", "--tick", "1"], "604,800 ticks, more than 100,000; use a longer tick"),
    (["--load-test", "0"], "argument --load-test: must be at least 1"),
    (["--fault", "region_outage:mars@2h+30m"], "target: region_outage needs a region node: one of"),
    (["--fault", "region_outage@2h+30m"], "target: region_outage needs a region node"),
    (["--fault", "failing_replica*nan:gpu-east"], "magnitude: must be a number of 0 or more"),
    (["--fault", "failing_replica*-1:gpu-east"], "magnitude: must be a number of 0 or more"),
    (["--fault", "failing_replica*3:gpu-east"], "magnitude: 3 is above 1"),
    (["--fault", "slow_replica:gpu-east@nan+inf"], "start_s: must be a number"),
    (["--fault", "regoin:x"], "unknown fault 'regoin'"),
])
def test_simulate_refuses_bad_flag_values_in_one_line(capsys, flags, message):
    assert message in one_line_error(capsys, "simulate", str(EXAMPLE), *flags)


def test_a_region_outage_may_name_the_region_by_its_location(capsys):
    design = parse_design(EXAMPLE.read_bytes(), "x")
    region_id, location = next((n.id, n.params["location"]) for n in design.nodes.values() if n.kind == "region")
    from inferboard.sim.cli import checked_fault

    assert checked_fault(design, f"region_outage:{location}@2h+30m").target == region_id
    assert checked_fault(design, f"region_outage:{region_id}@1h").start_s == 3600


def test_the_same_unreadable_file_is_status_2_in_every_command(capsys, tmp_path):
    missing = str(tmp_path / "nope.json")
    for command in (["validate", missing], ["simulate", missing], ["check", missing]):
        assert missing in one_line_error(capsys, *command)
    if os.path.exists("/dev/zero"):
        for command in (["validate", "/dev/zero"], ["simulate", "/dev/zero"], ["check", "/dev/zero"]):
            assert "not a regular file" in one_line_error(capsys, *command)


def test_ids_with_terminal_escapes_are_shown_escaped(capsys, tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["nodes"][0]["kind"] = "warp\x1b[2J\u202edrive"
    path = tmp_path / "evil\x1b[31m.json"
    path.write_text(json.dumps(data))
    line = one_line_error(capsys, "validate", str(path))
    assert "evil\\x1b[31m.json" in line and "warp\\x1b[2J\\u202edrive" in line


def test_grade_refuses_zero_jobs(capsys):
    assert "argument --jobs: must be at least 1, not '0'" in one_line_error(
        capsys, "grade", str(EXAMPLE), str(EXAMPLE), "--scenario", "global-llm-chat", "--jobs", "0")


def test_scenario_check_refuses_an_unknown_kind_in_a_fault_target(capsys, tmp_path):
    folder = tmp_path / "bursty-speech"
    shutil.copytree(data_dir("assets") / "scenarios" / "bursty-speech", folder)
    path = folder / "scenario.yaml"
    path.write_text(path.read_text().replace("gpu_shortage*2:kind=gpu_pool", "gpu_shortage*2:kind=regoin"))
    assert main(["scenario", "check", str(path), "--no-sim"]) == 2
    assert "unknown component kind 'regoin' in the target" in capsys.readouterr().err


def test_drill_list_of_a_missing_folder_is_an_error(capsys, tmp_path):
    assert "no such folder" in one_line_error(capsys, "drill", "list", "--folder", str(tmp_path / "none"))
    assert "holds no drill files" in one_line_error(capsys, "drill", "list", "--folder", str(tmp_path))


@pytest.mark.parametrize("script, message", [
    ("- {do: apply_mitigation, action: scale_out, target: '{pool}', value: lots}",
     "step 1 (apply_mitigation): 'value' must be a number of 0 or more"),
    ("- {do: open_dashboard, name: weather}", "step 1 (open_dashboard): unknown dashboard 'weather'"),
    ("- {at_min: 30, do: check_changes}\n- {at_min: 10, do: check_changes}",
     "step 2 (check_changes): 'at_min' 10 is before minute 30"),
    ("- {at_min: 100000, do: check_changes}", "step 1 (check_changes): minute 100000 is past the drill's end"),
    ("- {do: wait, minutes: 1.0e+9}", "step 1 (wait): minute 1e+09 is past the drill's end"),
    ("- {do: wait, minutes: 1e9}", "step 1 (wait): 'minutes' must be a number of minutes > 0"),
    ("- {do: wait, minutes: .nan}", "not a finite number"),
])
def test_drill_scripts_are_checked_before_the_drill_runs(capsys, tmp_path, script, message):
    path = tmp_path / "s.yaml"
    path.write_text(script + "\n")
    line = one_line_error(capsys, "drill", "run", "slow-canary-version", "--design", str(DRILL_DESIGN),
                          "--script", str(path))
    assert line.startswith(str(path)) and message in line


def test_a_bad_flag_value_is_refused_before_the_file_is_read(capsys, tmp_path):
    line = one_line_error(capsys, "simulate", str(tmp_path / "missing.json"), "--rps", "-1")
    assert "--rps" in line and "missing.json" not in line
    assert design_to_bytes  # the module is importable without the simulator


EVIL = "\x1b[31mred\u202eevil"


def test_the_check_report_escapes_what_rule_output_quotes_from_the_design():
    from inferboard.rules.cli import format_report
    from inferboard.rules.engine import CheckReport, Finding, RubricScore

    finding = Finding("R-1", "reliability", "major", f"title {EVIL}", f"'{EVIL}' has no spare replica",
                      (EVIL,), (), 5.0)
    report = CheckReport([finding], {"reliability": RubricScore("reliability", f"Reliability {EVIL}", 5, 10,
                                                                [("R-1", 5.0)])}, 50.0, "C", [("R-2", EVIL)])
    text = format_report(report, "design.json")
    assert "\x1b" not in text and "\u202e" not in text
    assert text.count("\\x1b[31mred\\u202eevil") == 5  # the title, the nodes, the message, the rubric, the skip
    assert all(line.isprintable() for line in text.splitlines())


def test_drill_play_echoes_typed_text_and_its_answers_escaped(tmp_path):
    import io

    from inferboard.drills.engine import DrillSession
    from inferboard.drills.play import play, surprise
    data = json.loads(DRILL_DESIGN.read_text())
    data["metadata"]["title"] = f"ranker {EVIL}"
    design = parse_design(json.dumps(data).encode(), "ranker.json")
    drill = surprise(design, 1)
    out = io.StringIO()
    play(DrillSession(drill, design, seed=1), io.StringIO(f"{EVIL}\nfinish\n"), out, echo=True)
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text
    assert "ranker \\x1b[31mred\\u202eevil" in text  # the banner names the design
    assert "Unknown command '\\x1b[31mred\\u202eevil'" in text
