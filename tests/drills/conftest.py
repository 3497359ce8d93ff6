import pytest

from inferboard.paths import data_dir
from inferboard.store import read_design


def without_observability(design, title: str | None = None):
    """A copy of ``design`` without its metrics collector, alerting, drift detection and retraining."""
    import json

    from inferboard.store.design_files import design_to_bytes, parse_design

    raw = json.loads(design_to_bytes(design))
    doomed = {n["id"] for n in raw["nodes"]
              if n["kind"] in ("metrics_collector", "alerting", "drift_detector", "retraining_pipeline")}
    raw["nodes"] = [n for n in raw["nodes"] if n["id"] not in doomed]
    raw["edges"] = [e for e in raw["edges"] if e["source"] not in doomed and e["target"] not in doomed]
    if title:
        raw.setdefault("metadata", {})["title"] = title
    return parse_design(json.dumps(raw).encode(), "<without observability>", design.catalog)


@pytest.fixture(scope="session")
def drill_design():
    design, _ = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
    return design


@pytest.fixture(scope="session")
def starter_design():
    design, _ = read_design(data_dir("assets") / "examples" / "starter.json")
    return design
