"""Planned faults are part of the design: edited with exact inverses and events, saved in the
design file (format version 3), and older files migrate to an empty plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inferboard.model import EditRefused, PlannedFault, ops
from inferboard.model import events as ev
from inferboard.store import DesignFileError, design_to_bytes, parse_design, read_design, save_design
from inferboard.store.records import CURRENT_VERSION

from tests.core.helpers import serving_chain

FIXTURES = Path(__file__).parents[1] / "fixtures"
OUTAGE = PlannedFault("region_outage", "use1", start_s=10 * 3600, duration_s=5400)
SURGE = PlannedFault("traffic_surge", "*", start_s=18 * 3600, duration_s=1800, magnitude=3.0)


def test_faults_are_edited_with_events_and_exact_inverses():
    design = serving_chain()
    before = design_to_bytes(design)
    seen = []
    design.events.subscribe(seen.append)
    inverse = design.apply(ops.SetFaults((OUTAGE, SURGE)))
    assert design.faults == (OUTAGE, SURGE)
    assert seen == [ev.FaultsChanged((), (OUTAGE, SURGE))]
    design.apply(inverse)
    assert design.faults == () and design_to_bytes(design) == before


@pytest.mark.parametrize("fault, field", [
    (PlannedFault("meteor_strike", "use1", 0, 60), "kind"),
    (PlannedFault("region_outage", "nowhere", 0, 60), "target"),
    (PlannedFault("region_outage", "use1", -5, 60), "start_s"),
    (PlannedFault("region_outage", "use1", 0, 0), "duration_s"),
    (PlannedFault("slow_replica", "gpus", 0, 60, magnitude=float("nan")), "magnitude"),
])
def test_a_bad_fault_is_refused_naming_its_field(fault, field):
    design = serving_chain()
    with pytest.raises(EditRefused, match=f"field '{field}'"):
        design.apply(ops.SetFaults((fault,)))
    assert design.faults == ()


def test_removing_a_node_takes_its_faults_and_undo_brings_them_back():
    design = serving_chain()
    design.apply(ops.SetFaults((OUTAGE, SURGE)))
    inverse = design.apply(ops.RemoveNode("use1"))
    assert design.faults == (SURGE,)
    design.apply(inverse)
    assert design.faults == (OUTAGE, SURGE) and design.node("gpus").region == "use1"


def test_faults_survive_save_and_open(tmp_path):
    design = serving_chain()
    design.apply(ops.SetFaults((OUTAGE, SURGE)))
    path = tmp_path / "planned.json"
    save_design(design, path)
    raw = json.loads(path.read_text())
    assert raw["version"] == CURRENT_VERSION
    assert raw["faults"][0] == {"kind": "region_outage", "target": "use1", "start_s": 36000, "duration_s": 5400}
    assert raw["faults"][1]["magnitude"] == 3
    reopened, _ = read_design(path)
    assert reopened.faults == (OUTAGE, SURGE)
    assert design_to_bytes(reopened) == path.read_bytes()


def test_version_1_and_2_files_migrate_to_an_empty_fault_plan():
    data = (FIXTURES / "design-v1.json").read_bytes()
    assert json.loads(data)["version"] == 1 and "faults" not in json.loads(data)
    design = parse_design(data, "design-v1.json")
    assert design.faults == ()
    assert len(design.nodes) == len(json.loads(data)["nodes"])
    out = json.loads(design_to_bytes(design))
    assert out["version"] == CURRENT_VERSION and out["faults"] == []
    version_2 = json.loads(data) | {"version": 2}
    assert parse_design(json.dumps(version_2).encode(), "design-v2.json").faults == ()
    # the version-0 draft goes through both steps
    assert parse_design((FIXTURES / "design-v0.json").read_bytes(), "design-v0.json").faults == ()


def test_bad_faults_in_a_file_name_the_fault_and_field():
    design = serving_chain()
    raw = json.loads(design_to_bytes(design))
    raw["faults"] = [{"kind": "region_outage", "target": "use1", "start_s": 0, "duration_s": 60},
                     {"kind": "region_outage", "target": "ghost", "start_s": 0, "duration_s": 60},
                     {"kind": "nope", "target": "*", "start_s": 0, "duration_s": 60}]
    with pytest.raises(DesignFileError) as info:
        parse_design(json.dumps(raw).encode(), "faulty.json")
    text = str(info.value)
    assert "faulty.json" in text and "fault #3" in text and "kind" in text and "unknown fault" in text
    raw["faults"] = raw["faults"][:2]
    with pytest.raises(DesignFileError) as info:
        parse_design(json.dumps(raw).encode(), "faulty.json")
    assert "fault #2" in str(info.value) and "ghost" in str(info.value)


def test_the_simulator_reads_the_planned_faults():
    from inferboard.sim.design.faults import TimedFault, timed_faults

    timed = timed_faults((OUTAGE, SURGE))
    assert timed[0] == TimedFault("region_outage", "use1", None, 36000.0, 5400.0)
    assert timed[1].amount == 3.0 and timed[1].active(18 * 3600 + 60) and not timed[1].active(18 * 3600 + 1800)


def test_simulate_timeline_plays_the_faults_saved_in_the_file(tmp_path, capsys):
    from inferboard.cli import main

    design = serving_chain()
    design.apply(ops.SetFaults((OUTAGE,)))
    path = tmp_path / "planned.json"
    save_design(design, path)
    assert main(["simulate", str(path), "--timeline", "--tick", "600", "--json"]) == 0
    events = json.loads(capsys.readouterr().out)["timeline"]["events"]
    started = [e for e in events if e["kind"] == "fault_started"]
    ended = [e for e in events if e["kind"] == "fault_ended"]
    assert [(e["time_s"], e["node_id"]) for e in started] == [(36000.0, "use1")]
    assert [e["time_s"] for e in ended] == [36000.0 + 5400.0]
