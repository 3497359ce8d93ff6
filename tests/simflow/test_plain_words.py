"""Figures explained in plain words: node labels, people's units, and where the time goes."""

from __future__ import annotations

import contextlib
import io
import json

from inferboard.cli import main, templates
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.explain.plain_words import steady_words
from inferboard.store import read_design


def overloaded(tmp_path):
    raw = json.loads(templates()["cpu-small"].read_text())
    raw["requirements"].update(mean_rps=2500.0, peak_rps=2500.0)
    for node in raw["nodes"]:
        if node["kind"] == "cpu_pool":
            node["label"] = "Fraud scorers"
            node["params"].update(replicas=4, workers_per_replica=4, service_ms=12.0, min_replicas=4, max_replicas=4)
    path = tmp_path / "overloaded.json"
    path.write_text(json.dumps(raw))
    return read_design(path)[0], path


def test_the_bottleneck_is_named_by_its_label_with_its_capacity(tmp_path):
    design, _ = overloaded(tmp_path)
    result = evaluate(design)
    words = steady_words(result, design, "throughput_rps")
    capacity = 4 * 4 / 0.012  # replicas x workers / service time
    assert f"can serve at most {capacity:,.0f} req/s" in words
    assert "Fraud scorers cannot keep up" in words and "scorers cannot" not in words.replace("Fraud scorers", "")
    assert "**Served 1,333 req/s** of 2,500 req/s offered" in words
    shed = steady_words(result, design, "shed_rate")
    assert shed.startswith(f"**{100 * (1 - capacity / 2500):.1f}% of requests are shed")


def test_latency_words_name_each_stage_in_plain_units():
    design = read_design(templates()["starter"])[0]
    result = evaluate(design)
    words = steady_words(result, design, "p99_ms")
    assert "99 in 100 requests are answered within" in words
    assert "waiting for a batch at batcher" in words and "on gpus (3 replicas" in words
    # The stages listed are the average request's whole time: 1 ms at the gateway plus the pool's sojourn.
    gpus = result.nodes["gpus"]
    assert abs((1.0 + gpus.sojourn_ms) - result.mean_ms) < 1e-6
    assert "bins=" not in words and "paths=" not in words


def test_simulate_explain_prints_the_words_before_the_notation(tmp_path):
    _design, path = overloaded(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", str(path), "--explain"]) == 0
    text = out.getvalue()
    assert text.index("In words:") < text.index("How each number was computed:")
    assert "p99 = 60 s" in text
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", str(path), "--explain", "--json"]) == 0
    assert "Fraud scorers cannot keep up" in json.loads(out.getvalue())["in_words"]["p99_ms"]
