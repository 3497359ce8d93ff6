"""Any input either loads or is refused with one line naming the file, within a CPU-time and memory
bound: byte strings, JSON values and YAML values through the design, YAML and strict JSON readers."""

from __future__ import annotations

import json
import time
import tracemalloc
import unicodedata

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from inferboard.safe_read import FileRefused, parse_json
from inferboard.safe_yaml import YamlFileError, load_yaml_text
from inferboard.store import DesignFileError, design_to_bytes, parse_design
from tests.core.helpers import serving_chain

GOOD = json.loads(design_to_bytes(serving_chain()))
SCALARS = (hs.none() | hs.booleans() | hs.integers(min_value=-10 ** 400, max_value=10 ** 400)
           | hs.floats(allow_nan=True, allow_infinity=True) | hs.text(max_size=40))
VALUES = hs.recursive(SCALARS, lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(hs.text(max_size=8), inner,
                                                                                          max_size=4), max_leaves=12)
FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_CPU_S, MAX_BYTES = 2.0, 64 * 1024 * 1024


def bounded(call, *args) -> tuple[object, Exception | None]:
    """Run ``call`` and return (result, the refusal), checking its CPU time and peak allocation."""
    tracemalloc.start()
    started = time.process_time()
    try:
        return call(*args), None
    except (DesignFileError, FileRefused) as refusal:
        return None, refusal
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert time.process_time() - started < MAX_CPU_S and peak < MAX_BYTES


def assert_one_line_naming(refusal: Exception | None, source: str) -> None:
    """Each line of a refusal (one per problem found) names the file and holds no control character."""
    if refusal is not None:
        for line in str(refusal).splitlines():
            assert line.startswith(f"{source}: "), line
            assert not any(unicodedata.category(char) in ("Cc", "Cf", "Cn") for char in line), line


@FEW
@given(hs.binary(max_size=300))
def test_any_bytes_load_or_are_refused_naming_the_file(data):
    _, refusal = bounded(parse_design, data, "bytes.json")
    assert_one_line_naming(refusal, "bytes.json")
    _, refusal = bounded(parse_json, data, "bytes.json")
    assert_one_line_naming(refusal, "bytes.json")
    text = data.decode("utf-8", errors="replace")
    _, refusal = bounded(load_yaml_text, text, "bytes.yaml")
    assert_one_line_naming(refusal, "bytes.yaml")


@FEW
@given(hs.sampled_from(["format", "version", "nodes", "edges", "requirements", "metadata", "faults", "node",
                        "params", "edge"]), VALUES)
def test_any_json_value_anywhere_in_a_design_loads_or_is_refused(where, value):
    data = json.loads(json.dumps(GOOD))
    if where == "node":
        data["nodes"][1] = value
    elif where == "params":
        data["nodes"][2]["params"]["replicas" if isinstance(value, (int, float)) else "max_batch_size"] = value
    elif where == "edge":
        data["edges"][0]["source"] = value
    else:
        data[where] = value
    _, refusal = bounded(parse_design, json.dumps(data).encode(), "value.json")
    assert_one_line_naming(refusal, "value.json")


@FEW
@given(VALUES)
def test_any_yaml_value_round_trips_or_is_refused(value):
    text = yaml.safe_dump(value)
    loaded, refusal = bounded(load_yaml_text, text, "value.yaml")
    assert_one_line_naming(refusal, "value.yaml")
    if refusal is None and "nan" not in text.lower():
        assert loaded == value
