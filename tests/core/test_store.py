"""Design files: round trips, migrations, bad input, atomic saves, conflicts."""

import json
import os
from pathlib import Path

import pytest

from inferboard.model import Design, Requirements
from inferboard.model import ops
from inferboard.store import (DesignFileError, FileStamp, SaveConflict, SaveFailed, design_to_bytes, parse_design,
                              read_design, save_design)
from inferboard.store import atomic as atomic_module
from inferboard.store.migrations import MigrationError, migrate
from inferboard.store.records import CURRENT_VERSION
from inferboard.store.atomic import backup_path

from tests.core.helpers import serving_chain

FIXTURES = Path(__file__).parents[1] / "fixtures"


def good_dict():
    design = serving_chain()
    design.apply(ops.SetRequirements(Requirements(slo_p99_ms=250, mean_rps=200, peak_rps=600,
                                                  allowed_regions=["us-east"])))
    return json.loads(design_to_bytes(design))


def parse(data):
    return parse_design(json.dumps(data).encode(), "design.json")


def problems_of(data):
    with pytest.raises(DesignFileError) as info:
        parse(data) if not isinstance(data, bytes) else parse_design(data, "design.json")
    return info.value


def test_round_trip_is_byte_for_byte(tmp_path):
    data = design_to_bytes(parse(good_dict()))
    path = tmp_path / "d.json"
    path.write_bytes(data)
    design, stamp = read_design(path)
    assert design_to_bytes(design) == data
    assert stamp.sha256 == FileStamp.of_bytes(path, data).sha256
    assert design.requirements.slo_p99_ms == 250
    assert design.node("gpus").region == "use1"


def test_version_zero_file_is_migrated():
    design = parse_design((FIXTURES / "design-v0.json").read_bytes(), "design-v0.json")
    assert design.edge("e1").source == "users" and design.edge("e1").target_port == "requests"
    assert (design.node("gpus").x, design.node("gpus").y) == (400, 60)


def test_migration_mechanism_runs_each_step_in_order():
    steps = {1: lambda d: {**d, "version": 2, "a": 1}, 2: lambda d: {**d, "version": 3, "b": d["a"] + 1}}
    out = migrate({"version": 1}, steps, current=3)
    assert out == {"version": 3, "a": 1, "b": 2}
    with pytest.raises(MigrationError, match="newer"):
        migrate({"version": 4}, steps, current=3)
    with pytest.raises(MigrationError, match="did not produce"):
        migrate({"version": 1}, {1: lambda d: d}, current=2)


def test_newer_version_is_refused_with_a_clear_message():
    data = good_dict() | {"version": 99}
    error = problems_of(data)
    assert "newer Inferboard" in str(error) and "version" in str(error)


@pytest.mark.parametrize("mutate,item,field,fragment", [
    (lambda d: d["nodes"][4]["params"].update(replicas="many"), "node 'gpus'", "params.replicas", ""),
    (lambda d: d["nodes"][4]["params"].update(replicas=100000), "node 'gpus'", "params.replicas", "maximum"),
    (lambda d: d["nodes"][4]["params"].update(turbo=True), "node 'gpus'", "params.turbo", "no parameter"),
    (lambda d: d["nodes"][4].update(kind="quantum_pool"), "node 'gpus'", "kind", "unknown component kind"),
    (lambda d: d["nodes"][4].update(colour="red"), "node 'gpus'", "colour", "unknown field"),
    (lambda d: d["nodes"][4].pop("kind"), "node 'gpus'", "kind", "Field required"),
    (lambda d: d["nodes"][3].update(id="gpus"), "node 'gpus'", "id", "another node"),
    (lambda d: d["edges"][0].update(target="ghost"), "edge 'e1'", "target", "does not exist"),
    (lambda d: d["edges"][1].update(id="e1"), "edge 'e1'", "id", "another edge"),
    (lambda d: d["edges"][0].update(target_port="scaling"), "edge 'e1'", "", "no input port"),
    (lambda d: d["nodes"][2].update(region="nowhere"), "node 'lb'", "region", "no region"),
    (lambda d: d["nodes"][2].update(x="left"), "node 'lb'", "x", ""),
    (lambda d: d["nodes"][2].update(x=1e12), "node 'lb'", "x", "less than or equal"),
    (lambda d: d["requirements"].update(slo_p99_ms=-5), "requirements", "slo_p99_ms", "greater than"),
    (lambda d: d["requirements"].update(peak_rps=1), "requirements", "", "peak_rps"),
    (lambda d: d["metadata"].update(title="x" * 500), "metadata", "title", "at most 200"),
    (lambda d: d.update(extra=1), "", "extra", "unknown field"),
])
def test_bad_files_name_the_item_and_the_field(mutate, item, field, fragment):
    data = good_dict()
    mutate(data)
    error = problems_of(data)
    matching = [p for p in error.problems if p.item == item and p.field == field]
    assert matching, f"no problem for {item} / {field} in {error.problems}"
    assert fragment in matching[0].message
    assert "design.json" in str(error)


def test_request_loops_in_a_file_are_refused():
    data = good_dict()
    data["edges"].append({"id": "back", "source": "gpus", "source_port": "requests", "target": "lb",
                          "target_port": "requests"})
    error = problems_of(data)
    assert any("loop" in p.message for p in error.problems)


@pytest.mark.parametrize("data,fragment", [
    (b"", "empty"),
    (b'{"format": "inferboard-design", "version": 1, "nodes": [', "truncated"),
    ("{\"format\": \"inferboard-design\"}".encode("utf-16"), "not UTF-8"),
    (b"[1, 2, 3]", "JSON object"),
    (b'{"format": "something-else", "version": 1}', "not an Inferboard design"),
    (b'{"format": "inferboard-design", "version": NaN}', "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b'{"format": "inferboard-design", "version": 1, "metadata": {"title": ' + b'[' * 40 + b']' * 40 + b'}}',
     "nested deeper"),
    (b'{"format": "inferboard-design", "version": "1"}', "version"),
])
def test_corrupt_and_hostile_bytes_get_clear_errors(data, fragment):
    error = problems_of(data)
    assert fragment in str(error)


def test_absurd_sizes_are_refused_quickly(tmp_path):
    data = {"format": "inferboard-design", "version": 1,
            "nodes": [{"id": f"n{i}", "kind": "cache"} for i in range(10_001)]}
    assert "limit of 10000" in str(problems_of(data))
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(17 * 1024 * 1024)
    with pytest.raises(DesignFileError, match="larger than"):
        read_design(big)
    data = good_dict()
    data["metadata"]["notes"] = "x" * 20_000
    assert "notes" in str(problems_of(data))


def test_save_is_atomic_and_keeps_a_backup(tmp_path):
    path = tmp_path / "d.json"
    design = parse(good_dict())
    first = save_design(design, path)
    design.set_params("gpus", replicas=5)
    save_design(design, path, expected=first)
    assert read_design(path)[0].node("gpus").params["replicas"] == 5
    assert read_design(backup_path(path))[0].node("gpus").params["replicas"] == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_interrupted_save_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "d.json"
    design = parse(good_dict())
    save_design(design, path)
    old = path.read_bytes()
    design.set_params("gpus", replicas=7)

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_module.os, "fsync", failing_fsync)
    with pytest.raises(SaveFailed, match="previous version is intact"):
        save_design(design, path)
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert read_design(path)[0].node("gpus").params["replicas"] == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_save_refuses_when_the_file_changed_on_disk(tmp_path):
    path = tmp_path / "d.json"
    design = parse(good_dict())
    stamp = save_design(design, path)
    other = parse(good_dict())
    other.set_params("gpus", replicas=3)
    save_design(other, path)  # someone else saves meanwhile
    design.set_params("gpus", replicas=9)
    with pytest.raises(SaveConflict, match="changed on disk"):
        save_design(design, path, expected=stamp)
    assert read_design(path)[0].node("gpus").params["replicas"] == 3


def test_save_into_a_missing_folder_fails_cleanly(tmp_path):
    with pytest.raises(SaveFailed):
        save_design(Design(), tmp_path / "missing" / "d.json")
    assert not (tmp_path / "missing").exists()


def test_unreadable_path_is_a_clear_error(tmp_path):
    with pytest.raises(DesignFileError, match="cannot be read"):
        read_design(tmp_path / "nope.json")
    os.mkdir(tmp_path / "dir.json")
    with pytest.raises(DesignFileError):
        read_design(tmp_path / "dir.json")


def test_version_one_llm_pools_lose_the_retired_prefill_rate():
    data = json.loads(json.dumps(good_dict()))
    data["version"] = 1
    data["nodes"].append({"id": "llm", "kind": "generation_pool", "x": 0, "y": 0,
                          "params": {"replicas": 2, "prefill_tokens_per_s": 10000.0}})
    design = parse_design(json.dumps(data).encode(), "v1.json")
    params = design.node("llm").params
    assert "prefill_tokens_per_s" not in params and params["replicas"] == 2
    assert params["prefill_efficiency"] == design.catalog.kind("generation_pool").param("prefill_efficiency").default
    assert json.loads(design_to_bytes(design))["version"] == CURRENT_VERSION  # saved at the current version


def test_version_3_files_respell_utilisation_in_parameters_and_choices():
    design = Design()
    design.add_node("admission_control", node_id="admit", params={"shed_above_utilisation": 0.8})
    design.add_node("autoscaler", node_id="hpa", params={"metric": "cpu_utilisation"})
    design.add_node("autoscaler", node_id="keda", params={"metric": "queue_depth"})
    raw = json.loads(design_to_bytes(design))
    old = json.loads(json.dumps(raw).replace("utilisation", "utilization")) | {"version": 3}
    assert "shed_above_utilization" in json.dumps(old)
    migrated = parse_design(json.dumps(old).encode(), "old.json")
    assert migrated.nodes["admit"].params["shed_above_utilisation"] == 0.8
    assert "shed_above_utilization" not in migrated.nodes["admit"].params
    assert migrated.nodes["hpa"].params["metric"] == "cpu_utilisation"
    assert migrated.nodes["keda"].params["metric"] == "queue_depth"
    assert design_to_bytes(migrated) == design_to_bytes(design)
