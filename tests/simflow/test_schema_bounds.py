"""A design with every parameter at its schema minimum, just above it (1e-200 above a zero minimum:
its square is 0) or at its maximum simulates, load-tests and runs a timeline without an exception
and with finite numbers (or none) in every result."""

from __future__ import annotations

import json
import math

import pytest

from inferboard.catalog import default_catalog
from inferboard.paths import data_dir
from inferboard.sim.loadtest.design_loadtest import run_design_load_test
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.store import parse_design


def non_finite(value, path="") -> list[str]:
    """The paths of every NaN or infinite number inside ``value``."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in non_finite(item, f"{path}.{key}")]
    if isinstance(value, (list, tuple)):
        return [p for index, item in enumerate(value) for p in non_finite(item, f"{path}[{index}]")]
    return []


def bound(spec, end: str):
    if end == "tiny":
        return spec.min + 1e-200 if spec.type == "float" and spec.min == 0 else spec.min
    return getattr(spec, end)


@pytest.mark.parametrize("end", ["min", "tiny", "max"])
def test_a_design_at_the_schema_bounds_gives_finite_results(end):
    catalog = default_catalog()
    data = json.loads((data_dir("assets") / "examples" / "cpu-small.json").read_text())
    changed = 0
    for node in data["nodes"]:
        for spec in catalog.kinds[node["kind"]].params:
            if spec.type in ("int", "float") and spec.min is not None and spec.max is not None:
                node["params"][spec.name] = bound(spec, end)
                changed += 1
    assert changed > 10
    design = parse_design(json.dumps(data).encode(), f"{end}.json")
    for result in (evaluate(design).to_dict(), run_design_load_test(design, 2000, seed=1).to_dict(),
                   run_timeline(design, hours=1, tick_s=60).to_dict()):
        assert non_finite(result) == []


def test_a_huge_batcher_on_the_most_replicas_is_answered_at_once_on_a_flagged_estimate(tmp_path, monkeypatch):
    """A batch limit of 1022 on 1,024 replicas: its exact table would simulate over 10^8 requests
    (10 s); from a fresh table folder, the steady state, the rules, the load test and the timeline
    build no table with a batch limit over 256, give finite numbers, and say the batcher is estimated."""
    from inferboard.rules import check_design
    from inferboard.sim.batching import batching
    from inferboard.sim.explain.trust import ESTIMATE, steady_trust

    monkeypatch.setenv("INFERBOARD_CACHE_DIR", str(tmp_path / "tables"))
    built = []
    real = batching.simulate_table
    monkeypatch.setattr(batching, "simulate_table", lambda c, p, cap: built.append(p.batch_max) or real(c, p, cap))
    data = json.loads((data_dir("assets") / "examples" / "starter.json").read_text())
    for node in data["nodes"]:
        if node["kind"] == "dynamic_batcher":
            node["params"]["max_batch_size"] = 1022
        if node["kind"] in ("gpu_pool", "autoscaler"):
            node["params"].update(min_replicas=1024, max_replicas=1024)
        if node["kind"] == "gpu_pool":
            node["params"]["replicas"] = 1024
    design = parse_design(json.dumps(data).encode(), "huge-batcher.json")
    steady = evaluate(design)
    models = [s.model for s in steady.network.stations.values() if s.model.startswith("batch")]
    assert models == ["batch B=1022 ×1024 (estimated table)"]
    assert steady_trust(steady)["p99_ms"].method == ESTIMATE
    report = check_design(design)
    assert report.skipped == []
    results = (steady.to_dict(), run_design_load_test(design, 2000, seed=1).to_dict(),
               run_timeline(design, hours=1, tick_s=60).to_dict(), report.to_dict())
    assert all(non_finite(result) == [] for result in results)
    assert max(built, default=0) <= 256
