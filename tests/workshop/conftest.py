"""A room of submissions: good, weak, broken and hostile files, a zip of designs and a hostile zip."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from inferboard.workshop import submissions as subs

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "assets" / "scenarios"
SCENARIO = "fraud-scoring-cpu"
GOOD = SHIPPED / SCENARIO / "reference.json"
WEAK = ROOT / "assets" / "examples" / "starter.json"
MIDDLE = ROOT / "assets" / "examples" / "multi-region.json"


def zip_entry(archive: zipfile.ZipFile, name: str, data: bytes, mode: int = stat.S_IFREG | 0o644,
              compress: int = zipfile.ZIP_DEFLATED) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = mode << 16
    info.compress_type = compress
    archive.writestr(info, data)


def bomb_json() -> bytes:
    """Valid JSON under the size cap that expands far more than the ratio allows."""
    return b'{"pad": "' + b" " * (3 * 1024 * 1024) + b'"}'


@pytest.fixture
def room(tmp_path) -> Path:
    """The room folder; the expected row of each file is in ``EXPECTED``."""
    folder = tmp_path / "room"
    folder.mkdir()
    (folder / "alice-good.json").write_bytes(GOOD.read_bytes())
    (folder / "bob-weak.json").write_bytes(WEAK.read_bytes())
    (folder / "carol-corrupt.json").write_bytes(b'{"format": "inferboard-design", "nodes": [')
    (folder / "dave-not-a-design.json").write_text('{"name": "my shopping list", "items": [1, 2]}')
    (folder / "notes.txt").write_text("not a submission")
    (folder / ".hidden.json").write_text("{}")
    big = folder / "erin-oversized.json"
    with open(big, "wb") as handle:
        handle.truncate(subs.MAX_SUBMISSION_BYTES + 1)
    os.symlink("/etc/passwd", folder / "frank-link.json")
    os.mkfifo(folder / "gina-pipe.json")
    nested = folder / "group-b"
    nested.mkdir()
    (nested / "heidi.json").write_bytes(MIDDLE.read_bytes())
    with zipfile.ZipFile(folder / "hostile.zip", "w") as archive:
        zip_entry(archive, "ivan.json", GOOD.read_bytes())
        zip_entry(archive, "../../escape.json", GOOD.read_bytes())
        zip_entry(archive, "/abs/path.json", GOOD.read_bytes())
        zip_entry(archive, "link.json", b"/etc/passwd", mode=stat.S_IFLNK | 0o777)
        zip_entry(archive, "device.json", b"", mode=stat.S_IFCHR | 0o644)
        zip_entry(archive, "bomb.json", bomb_json())
        zip_entry(archive, "inner.zip", b"PK")
        zip_entry(archive, "__MACOSX/._ivan.json", b"junk")
    (folder / "judy-broken.zip").write_bytes(b"PK\x03\x04 this is not really a zip")
    return folder


#: name suffix -> ("graded" | words the error must contain)
EXPECTED = {
    "alice-good.json": "graded",
    "bob-weak.json": "graded",
    "carol-corrupt.json": "not valid JSON",
    "dave-not-a-design.json": "not an Inferboard design",
    "erin-oversized.json": "larger than",
    "frank-link.json": "symbolic link",
    "gina-pipe.json": "named pipe",
    "group-b/heidi.json": "graded",
    "hostile.zip!ivan.json": "graded",
    "hostile.zip!../../escape.json": "'..'",
    "hostile.zip!/abs/path.json": "absolute",
    "hostile.zip!link.json": "symbolic link",
    "hostile.zip!device.json": "character device",
    "hostile.zip!bomb.json": "zip bomb",
    "hostile.zip!inner.zip": "zip inside a zip",
    "judy-broken.zip": "not a zip file",
}


def zipped_room(folder: Path, names: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            archive.write(folder / name, name)
    return buffer.getvalue()
