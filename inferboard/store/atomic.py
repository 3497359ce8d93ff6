"""Atomic file writes: temporary file, flush and fsync, rename; the previous file kept as a backup."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from inferboard.errors import InferboardError


class SaveConflict(InferboardError):
    """The file changed on disk since it was opened; overwriting it would lose someone's work."""


class SaveFailed(InferboardError):
    """The file could not be written; the previous version is intact."""


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when it was read or written, to detect changes made by others."""

    path: Path
    sha256: str
    size: int

    @classmethod
    def of_bytes(cls, path: Path, data: bytes) -> "FileStamp":
        return cls(Path(path), hashlib.sha256(data).hexdigest(), len(data))

    @classmethod
    def read(cls, path: Path) -> "FileStamp | None":
        try:
            return cls.of_bytes(path, Path(path).read_bytes())
        except FileNotFoundError:
            return None


def backup_path(path: Path) -> Path:
    return Path(path).with_name(Path(path).name + ".bak")


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

    With ``expected``, refuse with SaveConflict when the file on disk is no longer what was read.
    The previous file, if any, is kept beside it as ``<name>.bak``.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if expected is not None:
        current = FileStamp.read(path)
        if current is not None and current.sha256 != expected.sha256:
            raise SaveConflict(f"{path}: the file was changed on disk since it was opened; "
                               "save under another name or reload it first")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise SaveFailed(f"{path}: cannot write in {folder}: {error.strerror or error}") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if keep_backup and path.exists():
            _keep_backup(path, folder)
        os.replace(tmp, path)
        _fsync_dir(folder)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise SaveFailed(f"{path}: saving failed, the previous version is intact: {error.strerror or error}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return FileStamp.of_bytes(path, data)


def _keep_backup(path: Path, folder: Path) -> None:
    """Point ``<name>.bak`` at the current file without ever leaving ``path`` missing."""
    staged = folder / f".{path.name}.bak.tmp"
    staged.unlink(missing_ok=True)
    try:
        os.link(path, staged)
    except OSError:
        staged.write_bytes(path.read_bytes())
    os.replace(staged, backup_path(path))
