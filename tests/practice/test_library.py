"""The scenario library: bad packs are reported and skipped; zips import and export safely."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from inferboard.practice import packzip
from inferboard.practice.library import ScenarioLibrary
from inferboard.practice.packzip import PackError, PackZipError
from tests.practice.conftest import copy_pack


def library_with(user_packs: Path) -> ScenarioLibrary:
    return ScenarioLibrary(user_packs=user_packs).load()


def test_an_imported_pack_folder_adds_its_scenarios(extra_pack):
    lib = library_with(extra_pack.parent)
    assert lib.problems == []
    assert {"extra-fraud-scoring-cpu", "extra-bursty-speech", "fraud-scoring-cpu"} <= set(lib.entries)
    assert lib.get("extra-bursty-speech").pack_id == "extra"


def test_a_broken_scenario_is_named_and_the_rest_keeps_working(extra_pack):
    path = extra_pack / "extra-bursty-speech" / "scenario.yaml"
    path.write_text(path.read_text().replace("difficulty: hard", "difficulty: hard\nsecret_sauce: 1"))
    lib = library_with(extra_pack.parent)
    assert "extra-bursty-speech" not in lib.entries
    assert "extra-fraud-scoring-cpu" in lib.entries and "global-llm-chat" in lib.entries
    assert any(str(path) in p and "scenario 'extra-bursty-speech' field 'secret_sauce': unknown field" in p
               for p in lib.problems)


def test_a_broken_reference_design_is_named(extra_pack):
    (extra_pack / "extra-bursty-speech" / "reference.json").write_text('{"format": "inferboard-design", "nodes": [')
    lib = library_with(extra_pack.parent)
    assert "extra-bursty-speech" not in lib.entries
    assert any("reference.json" in p and "not valid JSON" in p for p in lib.problems)


def test_an_unknown_rubric_and_a_mismatched_folder_name(extra_pack):
    path = extra_pack / "extra-fraud-scoring-cpu" / "scenario.yaml"
    text = path.read_text().replace("rubric: drift,", "rubric: vibes,")
    path.write_text(text.replace("id: extra-fraud-scoring-cpu\n", "id: something-else\n", 1))
    lib = library_with(extra_pack.parent)
    problem = next(p for p in lib.problems if "something-else" in p)
    assert "field 'id': must equal the folder name" in problem
    assert "field 'rubrics.2.rubric': unknown rubric 'vibes'" in problem


def test_bad_pack_files_and_duplicates_are_reported(tmp_path):
    packs = tmp_path / "packs"
    copy_pack(packs / "one", ["fraud-scoring-cpu"], pack_id="one")
    copy_pack(packs / "two", ["fraud-scoring-cpu"], pack_id="one")  # same pack id again
    broken = packs / "three"
    broken.mkdir()
    (broken / "pack.yaml").write_text("id: three\ntitle: x\n")
    (packs / "stray.txt").write_text("not a pack")
    lib = library_with(packs)
    assert "one-fraud-scoring-cpu" in lib.entries
    text = "\n".join(lib.problems)
    assert "pack 'one' field 'id': already used" in text
    assert "pack 'three': field 'title'" in text
    assert "stray.txt: not a pack folder" in text


def test_a_scenario_id_clashing_with_the_shipped_pack_is_skipped(tmp_path):
    pack = copy_pack(tmp_path / "packs" / "dup", ["bursty-speech"], pack_id="dup")
    (pack / "dup-bursty-speech").rename(pack / "bursty-speech")
    path = pack / "bursty-speech" / "scenario.yaml"
    path.write_text(path.read_text().replace("id: dup-bursty-speech\n", "id: bursty-speech\n", 1))
    lib = library_with(pack.parent)
    assert lib.get("bursty-speech").pack_id == "core"
    assert any("already used in pack 'core'" in p for p in lib.problems)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symlinked_scenarios_are_not_followed(extra_pack, tmp_path):
    os.symlink(extra_pack / "extra-bursty-speech", extra_pack / "linked")
    lib = library_with(extra_pack.parent)
    assert any("linked: a symbolic link is not allowed" in p for p in lib.problems)


# ------------------------------------------------------------------------------- zips
def test_export_import_round_trip(extra_pack, tmp_path):
    source = library_with(extra_pack.parent)
    target = tmp_path / "extra.zip"
    source.export("extra", target)
    first = target.read_bytes()
    source.export("extra", target)
    assert target.read_bytes() == first, "the same pack zips to the same bytes"
    fresh = ScenarioLibrary(user_packs=tmp_path / "elsewhere")
    pack = fresh.import_pack(target)
    assert pack.info.id == "extra" and sorted(pack.scenario_ids) == ["extra-bursty-speech", "extra-fraud-scoring-cpu"]
    assert (tmp_path / "elsewhere" / "extra" / "extra-bursty-speech" / "reference.json").is_file()
    for scenario_id in pack.scenario_ids:
        assert fresh.get(scenario_id).scenario == source.get(scenario_id).scenario
        assert fresh.get(scenario_id).reference_bytes == source.get(scenario_id).reference_bytes
    with pytest.raises(PackError, match="already installed"):
        fresh.import_pack(target)
    assert fresh.import_pack(target, replace=True).info.id == "extra"


def test_a_single_scenario_exports_as_its_own_pack(library, tmp_path):
    target = library.export("global-llm-chat", tmp_path / "one.zip")
    names = zipfile.ZipFile(target).namelist()
    assert names == ["global-llm-chat/pack.yaml", "global-llm-chat/global-llm-chat/reference.json",
                     "global-llm-chat/global-llm-chat/scenario.yaml"]
    with pytest.raises(PackError, match="already used in pack 'core'"):
        ScenarioLibrary(user_packs=tmp_path / "user").import_pack(target)


def test_a_pack_with_a_broken_scenario_is_refused_whole(extra_pack, tmp_path):
    path = extra_pack / "extra-bursty-speech" / "scenario.yaml"
    path.write_text(path.read_text().replace("minutes: 8,", "minutes: -3,", 1))
    # The library would not load the broken scenario, so zip the folders directly.
    folders = [p for p in extra_pack.iterdir() if p.is_dir()]
    data = packzip.pack_zip_bytes({"id": "extra", "title": "Extra pack"}, folders)
    target = tmp_path / "broken.zip"
    target.write_bytes(data)
    user = tmp_path / "user"
    with pytest.raises(PackError) as info:
        ScenarioLibrary(user_packs=user).import_pack(target)
    assert "was not imported" in str(info.value)
    assert "scenario 'extra-bursty-speech' field 'phases.0.minutes'" in str(info.value)
    assert [p.name for p in user.iterdir()] == [], "nothing is left behind"


def _zip(entries: list[tuple[str, bytes]], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


PACK_YAML = b"id: evil\ntitle: Evil pack\n"


@pytest.mark.parametrize("entries, symlink, message", [
    ([("evil/pack.yaml", PACK_YAML), ("evil/../../escape.yaml", b"x")], None, "'..' would write outside"),
    ([("/etc/cron.d/evil.yaml", b"x")], None, "absolute paths are not allowed"),
    ([("evil/pack.yaml", PACK_YAML), ("C:/evil.yaml", b"x")], None, "absolute paths"),
    ([("evil/pack.yaml", PACK_YAML), ("evil\\..\\x.yaml", b"x")], None, "backslashes"),
    ([("evil/pack.yaml", PACK_YAML)], "evil/link.yaml", "symbolic links are not allowed"),
    ([("evil/pack.yaml", PACK_YAML), ("evil/run.sh", b"#!/bin/sh")], None, "files belong in a pack"),
    ([("evil/pack.yaml", PACK_YAML), ("evil/Pack.yaml", PACK_YAML)], None, "appears twice"),
    ([("evil/a.yaml", b"x")], None, "no pack.yaml"),
])
def test_hostile_zips_are_refused_and_nothing_is_written(tmp_path, entries, symlink, message):
    target = tmp_path / "evil.zip"
    target.write_bytes(_zip(entries, symlink))
    user = tmp_path / "user" / "scenarios"
    with pytest.raises(PackZipError, match=message):
        ScenarioLibrary(user_packs=user).import_pack(target)
    assert not (tmp_path / "escape.yaml").exists()
    assert [p.name for p in user.iterdir()] == []


def test_oversized_entries_are_refused_even_when_the_header_lies(tmp_path, monkeypatch):
    monkeypatch.setattr(packzip, "MAX_ENTRY_BYTES", 1000)
    big = tmp_path / "big.zip"
    big.write_bytes(_zip([("p/pack.yaml", PACK_YAML), ("p/big.json", b"0" * 5000)]))
    with pytest.raises(PackZipError, match="5000 bytes is larger than the 1000-byte limit"):
        packzip.extract_pack_zip(big, tmp_path / "out1")
    # A header claiming a small size: the limit is enforced while reading.
    data = bytearray(big.read_bytes())
    archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
    info = archive.getinfo("p/big.json")
    central = data.rfind(b"PK\x01\x02" + data[data.rfind(b"PK\x01\x02") + 4: data.rfind(b"PK\x01\x02") + 4])
    assert central > 0 and info.file_size == 5000
    for offset in (info.header_offset + 22, central + 24):  # uncompressed size: local header, central directory
        data[offset:offset + 4] = (10).to_bytes(4, "little")
    lying = tmp_path / "lying.zip"
    lying.write_bytes(bytes(data))
    with pytest.raises(PackZipError, match="big.json"):
        packzip.extract_pack_zip(lying, tmp_path / "out2")


def test_too_many_entries_too_large_and_not_a_zip(tmp_path, monkeypatch):
    monkeypatch.setattr(packzip, "MAX_ENTRIES", 3)
    many = tmp_path / "many.zip"
    many.write_bytes(_zip([("p/pack.yaml", PACK_YAML)] + [(f"p/{n}.md", b"x") for n in range(5)]))
    with pytest.raises(PackZipError, match="6 entries is more than the limit of 3"):
        packzip.extract_pack_zip(many, tmp_path / "o1")
    monkeypatch.setattr(packzip, "MAX_ZIP_BYTES", 10)
    with pytest.raises(PackZipError, match="larger than the 10-byte limit"):
        packzip.extract_pack_zip(many, tmp_path / "o2")
    monkeypatch.setattr(packzip, "MAX_ZIP_BYTES", 1 << 20)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"definitely not a zip")
    with pytest.raises(PackZipError, match="not a zip file"):
        packzip.extract_pack_zip(junk, tmp_path / "o3")


def test_a_zip_with_the_pack_at_its_root_imports_and_replaces_cleanly(extra_pack, tmp_path):
    entries = [(str(p.relative_to(extra_pack)), p.read_bytes()) for p in sorted(extra_pack.rglob("*")) if p.is_file()]
    target = tmp_path / "flat.zip"
    target.write_bytes(_zip(entries))
    user = tmp_path / "user"
    library = ScenarioLibrary(user_packs=user)
    library.import_pack(target)
    library.import_pack(target, replace=True)
    assert sorted(p.name for p in user.iterdir()) == ["extra"]
    assert sorted(p.name for p in (user / "extra").iterdir()) == ["extra-bursty-speech", "extra-fraud-scoring-cpu",
                                                                  "pack.yaml"]


@pytest.mark.parametrize("bad_yaml, message", [
    ("[" * 200 + "]" * 200, "nested deeper than 64 levels"),
    ("n: " + "7" * 5000, "5000 digits"),
    ("d: 2024-02-31", "day is out of range"),
    ("f: !!float nope", "nope is not a valid float"),
    ("a: &x [1]\nb: *x", "aliases (*name) are not allowed"),
])
def test_an_installed_pack_with_hostile_yaml_is_skipped_and_the_rest_work(tmp_path, bad_yaml, message):
    user_packs = tmp_path / "scenarios"
    copy_pack(user_packs / "good", ["fraud-scoring-cpu"], pack_id="good", title="Good pack")
    bad = copy_pack(user_packs / "bad", ["bursty-speech"], pack_id="bad", title="Bad pack")
    (bad / "bad-bursty-speech" / "scenario.yaml").write_text(bad_yaml)
    broken_info = copy_pack(user_packs / "worse", ["global-llm-chat"], pack_id="worse", title="Worse pack")
    (broken_info / "pack.yaml").write_text(bad_yaml)
    lib = library_with(user_packs)
    assert "good-fraud-scoring-cpu" in lib.entries and "global-llm-chat" in lib.entries
    assert "bad-bursty-speech" not in lib.entries and "worse-global-llm-chat" not in lib.entries
    assert any("bad-bursty-speech/scenario.yaml" in p and message in p for p in lib.problems)
    assert any("worse/pack.yaml" in p and message in p and "skipped" in p for p in lib.problems)


@pytest.mark.parametrize("entries, message", [
    ([("evil/pack.yaml", b"a: &x [1]\nb: *x\n")], "!evil/pack.yaml: aliases (*name) are not allowed"),
    ([("evil/pack.yaml", b"id: ../up\ntitle: Evil pack\n")], "!evil/pack.yaml: pack '../up': field 'id'"),
    ([("evil/pack.yaml", PACK_YAML), ("evil/x-scn/scenario.yaml", b"!!python/object/apply:os.system [ls]\n")],
     "!evil/x-scn/scenario.yaml: the tag !!python/object/apply:os.system is not allowed"),
    ([("evil/pack.yaml", PACK_YAML), ("evil/x-scn/scenario.yaml", b"n: " + b"9" * 5000 + b"\n")],
     "!evil/x-scn/scenario.yaml: not valid YAML: "),
])
def test_a_refused_import_names_the_file_inside_the_zip(tmp_path, entries, message):
    archive = tmp_path / "evil.zip"
    archive.write_bytes(_zip(entries))
    with pytest.raises(PackError) as info:
        ScenarioLibrary(user_packs=tmp_path / "packs").import_pack(archive)
    text = str(info.value)
    assert f"{archive}{message}" in text and ".import-" not in text
