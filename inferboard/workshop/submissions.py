"""Collecting a room's submissions: design files, folders of them and zips of them, read safely.

Nothing here trusts its input. Each submission is read into memory (nothing is extracted to disk)
and one that cannot be read becomes a :class:`Submission` with an ``error`` naming the file and
the problem, so the rest of the room is still graded:

- links are never followed, and only regular files are opened (a pipe or a device is refused
  before it is opened, so it cannot block or flood the reader);
- a file, or a zip entry, larger than ``MAX_SUBMISSION_BYTES`` is refused, a zip entry while it
  is read too (its header can lie);
- zip entries whose names are absolute or climb out with ``..``, links, devices, encrypted entries
  and entries that expand more than ``MAX_RATIO`` times are refused one by one;
- a zip larger than ``MAX_ZIP_BYTES``, with more than ``MAX_ZIP_ENTRIES`` entries, or unpacking to
  more than ``MAX_TOTAL_BYTES`` is refused whole (or from the entry that passes the total on).

Folders are walked in name order, hidden files and ``__MACOSX`` skipped, ``.json`` and ``.zip``
files taken; a zip inside a zip is not opened.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from inferboard.practice import packzip
from inferboard.practice.packzip import PackZipError
from inferboard.safe_read import FileRefused, file_kind, read_bounded

MAX_SUBMISSION_BYTES = 4 * 1024 * 1024
MAX_ZIP_BYTES = packzip.MAX_ZIP_BYTES
MAX_ZIP_ENTRIES = 2000
MAX_TOTAL_BYTES = packzip.MAX_TOTAL_BYTES
#: An entry may expand at most this many times its compressed size...
MAX_RATIO = 100
#: ...once it is larger than this (a small file of blanks is harmless at any ratio).
RATIO_FLOOR_BYTES = 256 * 1024
MAX_SUBMISSIONS = 5000
MAX_FOLDER_DEPTH = 8
DESIGN_SUFFIX = ".json"
ZIP_SUFFIX = ".zip"
SKIPPED_NAMES = ("__MACOSX",)


@dataclass(frozen=True)
class Submission:
    """One learner's design as read: its display name (a path, or ``class.zip!alice/design.json``)
    and bytes, or the reason it cannot be graded."""

    name: str
    data: bytes | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        """Whether the submission's bytes were read without a problem."""
        return self.data is not None and not self.error

    @property
    def sha256(self) -> str:
        """The hex SHA-256 of the submission's bytes ("" when unread)."""
        return hashlib.sha256(self.data).hexdigest() if self.data is not None else ""


@dataclass
class Collection:
    """The submissions found under the paths given, and the files passed over."""

    submissions: list[Submission] = field(default_factory=list)
    #: Files passed over on purpose (not .json or .zip inside a folder), for the user to see.
    skipped: list[str] = field(default_factory=list)

    def add(self, submission: Submission) -> None:
        """Keep ``submission``, up to the limit (one note says the rest were left out)."""
        if len(self.submissions) < MAX_SUBMISSIONS:
            self.submissions.append(submission)
        elif len(self.submissions) == MAX_SUBMISSIONS:
            self.submissions.append(Submission(submission.name, error=f"more than {MAX_SUBMISSIONS} "
                                               "submissions; this one and the rest were not read"))


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` if it is a regular file (not a link) of at most ``limit`` bytes;
    ValueError naming the problem otherwise."""
    try:
        return read_bounded(path, limit, follow_links=False)
    except FileRefused as refusal:
        raise ValueError(refusal.message) from None


def _read_file(path: Path, name: str) -> Submission:
    try:
        return Submission(name, read_regular_file(path, MAX_SUBMISSION_BYTES))
    except (OSError, ValueError) as error:
        text = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return Submission(name, error=f"cannot be read: {text}")


def collect(paths: Iterable[Path | str]) -> Collection:
    """Every submission in ``paths`` (files, folders and zips), in the order given."""
    out = Collection()
    for raw in paths:
        path = Path(raw)
        try:
            info = os.lstat(path)
        except OSError as error:
            out.add(Submission(str(path), error=f"cannot be read: {error.strerror or error}"))
            continue
        if stat.S_ISDIR(info.st_mode):
            _walk(path, path, 0, out)
        elif stat.S_ISREG(info.st_mode) and path.suffix.lower() == ZIP_SUFFIX:
            _read_zip(path, str(path), out)
        elif stat.S_ISREG(info.st_mode):
            out.add(_read_file(path, str(path)))
        else:
            out.add(Submission(str(path), error=f"{file_kind(info.st_mode)} is not read (only regular files "
                                                "and folders are)"))
    return out


def _walk(root: Path, folder: Path, depth: int, out: Collection) -> None:
    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as error:
        out.add(Submission(str(folder), error=f"cannot be listed: {error.strerror or error}"))
        return
    for child in children:
        path = Path(child.path)
        if child.name.startswith(".") or child.name in SKIPPED_NAMES:
            continue
        try:
            mode = child.stat(follow_symlinks=False).st_mode
        except OSError as error:
            out.add(Submission(str(path), error=f"cannot be read: {error.strerror or error}"))
            continue
        suffix = path.suffix.lower()
        if stat.S_ISDIR(mode):
            if depth + 1 >= MAX_FOLDER_DEPTH:
                out.add(Submission(str(path), error=f"nested deeper than {MAX_FOLDER_DEPTH} folders; not read"))
            else:
                _walk(root, path, depth + 1, out)
        elif suffix not in (DESIGN_SUFFIX, ZIP_SUFFIX):
            out.skipped.append(str(path))
        elif not stat.S_ISREG(mode):
            out.add(Submission(str(path), error=f"{file_kind(mode)} is not followed or read"))
        elif suffix == ZIP_SUFFIX:
            _read_zip(path, str(path), out)
        else:
            out.add(_read_file(path, str(path)))


def _read_zip(path: Path, name: str, out: Collection) -> None:
    try:
        size = path.stat().st_size
        if size > MAX_ZIP_BYTES:
            raise PackZipError(f"{size} bytes is larger than the {MAX_ZIP_BYTES}-byte limit for a zip")
        data = read_regular_file(path, MAX_ZIP_BYTES)
    except (OSError, ValueError, PackZipError) as error:
        text = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        out.add(Submission(name, error=f"cannot be read: {text}"))
        return

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        out.add(Submission(name, error=f"not a zip file ({error})"))
        return
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            out.add(Submission(name, error=f"{len(infos)} entries is more than the limit of {MAX_ZIP_ENTRIES}; "
                                           "the zip was not opened"))
            return
        total, seen = 0, set()
        for info in sorted(infos, key=lambda i: i.filename):
            shown = f"{name}!{info.filename[:200]}"
            problem, skip = _entry_problem(info, path, seen)
            if skip:
                continue
            if problem:
                out.add(Submission(shown, error=problem))
                continue
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                out.add(Submission(shown, error=f"the zip unpacks to more than {MAX_TOTAL_BYTES} bytes; this "
                                                "entry and the rest were not read"))
                return
            limit = MAX_SUBMISSION_BYTES
            if info.compress_size * MAX_RATIO > RATIO_FLOOR_BYTES:
                limit = min(limit, info.compress_size * MAX_RATIO)
            else:
                limit = min(limit, RATIO_FLOOR_BYTES)
            try:
                content = packzip.read_entry_limited(archive, info, path, limit)
            except PackZipError as error:
                message = str(error).split(": ", 2)[-1]
                out.add(Submission(shown, error=f"{message} (a zip bomb?)" if "limit" in message else message))
                continue
            out.add(Submission(shown, content))


def _entry_problem(info: zipfile.ZipInfo, source: Path, seen: set[str]) -> tuple[str, bool]:
    """(why the entry is refused, whether it is silently passed over)."""
    try:
        entry = packzip.safe_entry_name(info.filename, source, MAX_FOLDER_DEPTH)
    except PackZipError as error:
        return str(error).split(": ", 2)[-1], False
    special = packzip.special_file_kind(info)
    if special is not None:
        return f"{special} is not allowed in a zip of submissions", False
    if info.is_dir() or any(part.startswith(".") or part in SKIPPED_NAMES for part in entry.parts):
        return "", True
    suffix = entry.suffix.lower()
    if suffix == ZIP_SUFFIX:
        return "a zip inside a zip is not opened; unzip it and grade the folder", False
    if suffix != DESIGN_SUFFIX:
        return "", True
    key = str(entry).lower()
    if key in seen:
        return "appears twice in the zip", False
    seen.add(key)
    if info.flag_bits & 0x1:
        return "encrypted entries are not read", False
    if info.file_size > MAX_SUBMISSION_BYTES:
        return f"{info.file_size} bytes is larger than the {MAX_SUBMISSION_BYTES}-byte limit for a submission", False
    if info.file_size > RATIO_FLOOR_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size / max(info.compress_size, 1)
        return (f"expands {ratio:.0f} times ({info.compress_size} -> {info.file_size} bytes), more than the "
                f"limit of {MAX_RATIO} (a zip bomb?)"), False
    return "", False
