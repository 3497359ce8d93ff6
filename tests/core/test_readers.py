"""The guarded readers: non-regular files refused by their status, strict JSON, YAML limits with one
line per refusal, linear-time checks on hostile strings, and escaped output."""

from __future__ import annotations

import json
import os
import time

import pytest
import yaml

from inferboard import humanize, safe_yaml
from inferboard.catalog.loader import ParamValueError, coerce_param
from inferboard.catalog.schema import ParamSpec
from inferboard.printable import shown
from inferboard.safe_read import FileRefused, parse_json, read_bounded
from inferboard.safe_yaml import YamlFileError, load_yaml_file, load_yaml_text
from inferboard.store import DesignFileError, design_to_bytes, parse_design, read_design
from tests.core.helpers import serving_chain


def good_text() -> str:
    return design_to_bytes(serving_chain()).decode()


def refusal(data: bytes | str) -> str:
    with pytest.raises(DesignFileError) as info:
        parse_design(data.encode() if isinstance(data, str) else data, "d.json")
    text = str(info.value)
    assert "\n" not in text and text.startswith("d.json: ")
    return text


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_by_their_status(path):
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    with pytest.raises(DesignFileError, match="not a regular file: it is a character device"):
        read_design(path)
    with pytest.raises(YamlFileError, match=f"^{path}: not a regular file"):
        load_yaml_file(path)


def test_a_fifo_and_a_folder_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "design.json"
    os.mkfifo(fifo)  # nobody writes: reading it would block for ever
    with pytest.raises(DesignFileError, match="design.json: not a regular file: it is a named pipe"):
        read_design(fifo)
    with pytest.raises(FileRefused, match="it is a folder"):
        read_bounded(tmp_path)


def test_the_size_cap_is_kept_while_reading(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: 1\n" * 10)
    assert read_bounded(path, 50) == b"a: 1\n" * 10
    with pytest.raises(FileRefused, match="big.yaml: 50 bytes is larger than the 49-byte limit"):
        read_bounded(path, 49)


@pytest.mark.parametrize("where", ["format", "nodes", "params"])
def test_a_duplicate_key_is_refused_wherever_it_is(where):
    text = good_text()
    if where == "format":
        text = text.replace('"format": "inferboard-design",', '"format": "x", "format": "inferboard-design",')
    elif where == "nodes":
        text = text.replace('"nodes": [', '"nodes": [], "nodes": [')
    else:
        text = text.replace('"replicas": ', '"replicas": 1, "replicas": ', 1)
    assert text != good_text()
    key = {"format": "format", "nodes": "nodes", "params": "replicas"}[where]
    assert f"key '{key}' appears twice in one object" in refusal(text)


def test_a_duplicate_key_in_a_node_names_the_node():
    text = good_text().replace('"kind": "gpu_pool",', '"kind": "gpu_pool", "kind": "cpu_pool",')
    assert "key 'kind' appears twice in one object (the object with id 'gpus')" in refusal(text)


@pytest.mark.parametrize("number, message", [("9" * 400, "a number of 400 digits"),
                                             ("-" + "9" * 400, "a number of 400 digits"),
                                             ("1e400", "the number 1e400 is too large"),
                                             ("NaN", "NaN is not a number JSON allows"),
                                             ("-Infinity", "-Infinity is not a number JSON allows")])
def test_numbers_json_cannot_hold_are_refused_before_conversion(number, message):
    text = good_text().replace('"replicas": ', f'"replicas": {number}, "x_": ', 1)
    assert message in refusal(text)


def test_a_long_integer_in_a_parameter_is_a_problem_not_an_overflow():
    spec_float = ParamSpec(name="rate", type="float", default=1.0, title="Rate", help="h")
    spec_int = ParamSpec(name="replicas", type="int", default=1, title="Replicas", help="h")
    for spec in (spec_float, spec_int):
        with pytest.raises(ParamValueError, match="a number of 290 digits is too large"):
            coerce_param(spec, 10 ** 289)
    schedule = ParamSpec(name="schedule", type="schedule", default=[], title="Schedule", help="h")
    with pytest.raises(ParamValueError, match="too large"):
        coerce_param(schedule, [[1, 10 ** 299]])


@pytest.mark.parametrize("body, message", [
    ('"nodes": 3', "field 'nodes': expected a list of objects, not a number"),
    ('"nodes": null', "field 'nodes': expected a list of objects, not null"),
    ('"nodes": {"a": 1}', "field 'nodes': expected a list of objects, not an object"),
    ('"nodes": ["users"]', "field 'nodes': entry #1 is text, not an object"),
    ('"edges": ["e1"]', "field 'edges': entry #1 is text, not an object"),
    ('"nodes": [{"id": "a", "pos": 5}]', "node 'a' field 'pos': expected [x, y]"),
])
def test_version_zero_shapes_are_checked_before_migrating(body, message):
    text = '{"format": "inferboard-design", "version": 0, ' + body + "}"
    assert refusal(text) == f"d.json: {message}"


def test_one_bad_node_gives_one_message_not_a_cascade():
    data = json.loads(good_text())
    next(n for n in data["nodes"] if n["id"] == "lb")["kind"] = "no_such_kind"
    data["faults"] = [{"kind": "slow_replica", "target": "lb", "start_s": 0, "duration_s": 60}]
    with pytest.raises(DesignFileError) as info:
        parse_design(json.dumps(data).encode(), "d.json")
    assert [p.item for p in info.value.problems] == ["node 'lb'"]


def test_control_and_bidi_characters_are_escaped_in_messages():
    assert shown("a\x1b[31mb\u202ec") == "a\\x1b[31mb\\u202ec"
    assert shown("two\nlines", keep_newlines=True) == "two\nlines"
    assert shown("plain é text") == "plain é text"
    data = json.loads(good_text())
    data["nodes"][1]["kind"] = "evil\x1b]0;owned\x07\u202ekind"
    text = refusal(json.dumps(data))
    assert "\\x1b]0;owned\\x07\\u202ekind" in text and text.isprintable()


@pytest.mark.parametrize("size", [64 * 1024, 1024 * 1024])
def test_crafted_long_strings_are_handled_in_linear_time(size):
    crafted = ['\\"' * (size // 2), "1," * (size // 2), "a" * size + "!", "[" * size]
    started = time.process_time()
    for text in crafted:
        for data in (text, '{"format": "inferboard-design", "version": 4, "nodes": [{"id": "%s"}]' % text,
                     good_text().replace('"title": "', '"title": "' + text.replace('\\', '\\\\').replace('"', '\\"'))):
            with pytest.raises(DesignFileError):
                parse_design(data.encode(), "d.json")
        humanize.in_text(text + " ms")
    assert time.process_time() - started < 20  # the quadratic patterns took minutes at 1 MiB


@pytest.mark.parametrize("text, message", [
    ("a: &x [1]\nb: *x\n", "aliases (*name) are not allowed"),
    ("!!python/object/apply:os.system [ls]", "the tag !!python/object/apply:os.system is not allowed"),
    ("[" * 80 + "]" * 80, "nested deeper than 64 levels"),
    ("[" * 5000 + "]" * 5000, "nesting depth"),
    ("a: " + "9" * 5000, "5000 digits (at most 300 allowed)"),
    ("d: 2024-13-45", "2024-13-45 is not a valid timestamp: month must be in 1..12 (line 1, column 4)"),
    ("t: 2024-01-01 25:00:00", "hour must be in 0..23"),
    ("f: !!float abc", "abc is not a valid float"),
    ("f: .nan", "not a finite number"),
    ("a: [1", "did not find expected ',' or ']' (line 2, column 1)"),
    ("a: \ud800", "not valid text (character 3)"),
    ("a: \x00", "control characters are not allowed"),
])
def test_yaml_refusals_are_one_line_naming_the_file(text, message):
    with pytest.raises(YamlFileError) as info:
        load_yaml_text(text, "pack/scenario.yaml")
    assert str(info.value).startswith("pack/scenario.yaml: ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_plain_yaml_still_loads():
    assert load_yaml_text("a: [1, 2.5, x, 2024-01-02, null, true]\nb: {c: d}", "f") == {
        "a": [1, 2.5, "x", __import__("datetime").date(2024, 1, 2), None, True], "b": {"c": "d"}}


def test_the_pure_python_fallback_refuses_the_same(monkeypatch):
    assert issubclass(safe_yaml._StrictLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    monkeypatch.setattr(safe_yaml, "_StrictLoader", safe_yaml.make_loader(yaml.SafeLoader))
    for text, message in [("a: &x [1]\nb: *x\n", "aliases"), ("a: " + "9" * 400, "400 digits"),
                          ("d: 2024-13-45", "month must be"), ("[" * 80 + "]" * 80, "deeper than 64"),
                          ("!!python/object/apply:os.system [ls]", "tag !!python")]:
        with pytest.raises(YamlFileError, match=message):
            load_yaml_text(text, "f.yaml")
    assert load_yaml_text("a: [1, b]", "f.yaml") == {"a": [1, "b"]}


def test_strict_json_reader_on_its_own():
    assert parse_json(b'\xef\xbb\xbf{"a": [1, 2.5]}', "f.json") == {"a": [1, 2.5]}
    with pytest.raises(FileRefused, match=r"^f.json: nested deeper than 3 levels$"):
        parse_json(b"[[[[1]]]]", "f.json", max_depth=3)
    with pytest.raises(FileRefused, match="f.json: not UTF-8 text"):
        parse_json(b"\xff", "f.json")
