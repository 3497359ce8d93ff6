"""Atomic file writes: temporary file, flush and fsync, rename; the previous file kept as a backup.

Every write into a folder holds an exclusive lock on that folder (``flock`` on the folder itself),
so the stamp check and the rename are one step for all writers, and a temporary file only exists
while its writer holds the lock: any temporary file found under the lock was left by a crash and
is removed, and so are those earlier versions' saves named ``.<name>.<8 random>.tmp`` and
``.<name>.bak.tmp`` beside a file ``<name>`` that is there. A symlink is written through to its target, and an existing file keeps its mode; a new
one gets the usual mode for the user's umask."""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from inferboard.errors import InferboardError

#: Every temporary file a save makes ends with this, and starts with a dot.
TEMP_SUFFIX = ".inferboard-tmp"
#: Used when a folder cannot be locked itself (some network file systems).
FALLBACK_LOCK = ".inferboard.lock"


class SaveConflict(InferboardError):
    """The file changed on disk since it was opened; overwriting it would lose someone's work."""


class SaveFailed(InferboardError):
    """The file could not be written; the previous version is intact."""

    exit_code = 2


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when it was read or written, to detect changes made by others."""

    path: Path
    sha256: str
    size: int

    @classmethod
    def of_bytes(cls, path: Path, data: bytes) -> "FileStamp":
        """The stamp of ``data`` as the content of ``path``."""
        return cls(Path(path), hashlib.sha256(data).hexdigest(), len(data))

    @classmethod
    def read(cls, path: Path) -> "FileStamp | None":
        """The stamp of the file now at ``path``; None when there is no file."""
        try:
            return cls.of_bytes(path, Path(path).read_bytes())
        except FileNotFoundError:
            return None


def backup_path(path: Path) -> Path:
    """Where the previous version of ``path`` is kept."""
    return Path(path).with_name(Path(path).name + ".bak")


def is_temporary(name: str) -> bool:
    """True for the name of a temporary file a save makes."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


#: The characters of the random part of the temporary files earlier versions' saves made (mkstemp's).
_OLD_RANDOM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def old_temporary_of(name: str) -> str | None:
    """The file a temporary file named by earlier versions' saves was for: ``.<name>.<8 random>.tmp``
    (the new content) or ``.<name>.bak.tmp`` (the backup being made); None for any other name."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    base, dot, tail = name[1:-len(".tmp")].rpartition(".")
    if not (dot and base) or not (tail == "bak" or (len(tail) == 8 and set(tail) <= _OLD_RANDOM)):
        return None
    return base


@contextmanager
def folder_lock(folder: Path, wait: bool = True) -> Iterator[None]:
    """Hold the exclusive write lock of ``folder`` (shared by every process and thread that saves
    there). Without ``wait``, raise BlockingIOError at once when someone else holds it."""
    fd = _locked_fd(Path(folder), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        yield
    finally:
        os.close(fd)


def _locked_fd(folder: Path, mode: int) -> int:
    """A descriptor holding the lock: on the folder itself, or on a lock file in it where the
    folder cannot be opened or locked (some network file systems)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    except PermissionError:
        fd = -1
    if fd >= 0:
        try:
            fcntl.flock(fd, mode)
            return fd
        except BlockingIOError:
            os.close(fd)
            raise
        except OSError:
            os.close(fd)
    fd = os.open(folder / FALLBACK_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        fcntl.flock(fd, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def sweep_temporaries(folder: Path) -> list[str]:
    """Remove the temporary files crashed saves left in ``folder``; return their names."""
    try:
        with folder_lock(Path(folder)):
            return _remove_temporaries(Path(folder))
    except OSError:
        return []


def _remove_temporaries(folder: Path) -> list[str]:
    """Under the folder's lock: every temporary file there is a crash's leftover, and so is one an
    earlier version's save named after a file that is there."""
    with os.scandir(folder) as scan:
        entries = list(scan)
    present = {entry.name for entry in entries if entry.is_file()}
    removed = []
    for entry in entries:
        if not (is_temporary(entry.name) or old_temporary_of(entry.name) in present):
            continue
        if entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed.append(entry.name)
            except FileNotFoundError:
                pass
    return removed


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, expected: FileStamp | None = None, keep_backup: bool = True) -> FileStamp:
    """Write ``data`` to ``path`` so that a crash at any moment leaves either the old or the new file.

    With ``expected``, refuse with SaveConflict when the file on disk is no longer what was read
    (checked under the same lock as the rename). The previous file, if any, is kept beside it as
    ``<name>.bak``. A symlink at ``path`` is written through to its target."""
    path = Path(path)
    target = Path(os.path.realpath(path))
    folder = target.parent
    tmp: Path | None = None
    try:
        with folder_lock(folder):
            _remove_temporaries(folder)
            if expected is not None:
                _check_unchanged(path, target, expected)
            tmp = folder / f".{target.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
            _write_synced(tmp, data, _mode_of(target))
            if keep_backup and target.exists():
                _keep_backup(target, folder)
            os.replace(tmp, target)
            tmp = None
            _fsync_dir(folder)
    except OSError as error:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise SaveFailed(f"{path}: saving failed, the previous version is intact: {error.strerror or error}") from None
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise
    return FileStamp.of_bytes(path, data)


def _check_unchanged(path: Path, target: Path, expected: FileStamp) -> None:
    current = FileStamp.read(target)
    if current is not None and current.sha256 != expected.sha256:
        raise SaveConflict(f"{path}: the file was changed on disk since it was opened; "
                           "save under another name or reload it first")


def _mode_of(target: Path) -> int | None:
    """The permission bits of the file being replaced, or None for a new file."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None


def _write_synced(tmp: Path, data: bytes, mode: int | None) -> None:
    """Create ``tmp`` (mode 0666 less the umask, or ``mode``), write ``data`` and fsync it."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    with os.fdopen(fd, "wb") as handle:
        if mode is not None:
            os.fchmod(handle.fileno(), mode)
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _keep_backup(path: Path, folder: Path) -> None:
    """Point ``<name>.bak`` at the current file without ever leaving ``path`` missing."""
    staged = folder / f".{path.name}.bak{TEMP_SUFFIX}"
    staged.unlink(missing_ok=True)
    try:
        os.link(path, staged)
    except OSError:
        staged.write_bytes(path.read_bytes())
    os.replace(staged, backup_path(path))
    # When the backup already was a link to the current file (a crash between the two renames),
    # rename leaves both names in place.
    staged.unlink(missing_ok=True)
