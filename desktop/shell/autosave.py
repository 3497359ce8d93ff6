"""Autosave every minute into the user data folder, and crash recovery at the next start.

Each running window writes ``autosave/<session>.json`` (the design) and ``<session>.meta.json``
(its file path, title, time and process id) when it has unsaved changes, and holds an exclusive
lock (``flock``) on ``<session>.lock`` for as long as it runs. A clean exit or a save removes them,
so whatever is left over, with its lock free, belongs to a session that ended without saving: the
next start offers to recover it, with or without its meta file (a crash can fall between the two)
and whatever a damaged meta file holds."""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from inferboard.store import atomic_write, design_to_bytes
from inferboard.store.atomic import sweep_temporaries

from desktop.editor.document import DesignDocument

INTERVAL_MS = 60_000
#: Meta files are a few hundred bytes; anything far larger is not one of ours.
MAX_META_BYTES = 64 * 1024
#: A design whose title is looked up when its meta file is missing is read only up to this size.
MAX_TITLE_LOOKUP_BYTES = 16 * 1024 * 1024
#: Latest plausible saved-at time (year 5138); later or negative ones are treated as unknown.
MAX_SAVED_AT = 1e11


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists (it may not be the one that wrote an autosave)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def session_files(folder: Path, session: str) -> tuple[Path, Path, Path]:
    """The design, meta and lock files of an autosave session."""
    return folder / f"{session}.json", folder / f"{session}.meta.json", folder / f"{session}.lock"


@dataclass(frozen=True)
class Recoverable:
    """An autosave left by a session that ended without saving."""

    design_file: Path
    meta_file: Path
    original_path: str | None
    title: str
    saved_at: float

    def discard(self) -> None:
        """Remove the autosave (design first, so a crash between leaves nothing half-offered)."""
        lock_file = self.design_file.with_name(self.design_file.name.removesuffix(".json") + ".lock")
        for path in (self.design_file, self.meta_file, lock_file):
            path.unlink(missing_ok=True)

    def describe(self) -> str:
        """One line naming the design, its file and when it was autosaved."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        where = Path(self.original_path).name if self.original_path else "an unsaved design"
        return f"“{self.title}” ({where}), autosaved {when}"


def find_recoverable(folder: Path) -> list[Recoverable]:
    """Autosaves left by sessions that are no longer running, newest first. Each autosave is looked
    at on its own: one with an odd or missing meta file never hides the others."""
    autosave = folder / "autosave"
    if not autosave.is_dir():
        return []
    sweep_temporaries(autosave)
    out = []
    for session in sorted(_sessions(autosave)):
        try:
            entry = _recoverable(autosave, session)
        except OSError:
            continue
        if entry is not None:
            out.append(entry)
    return sorted(out, key=lambda r: r.saved_at, reverse=True)


def _sessions(folder: Path) -> set[str]:
    names = set()
    for path in folder.iterdir():
        for suffix in (".meta.json", ".json"):
            if path.name.endswith(suffix) and not path.name.startswith("."):
                names.add(path.name[:-len(suffix)])
                break
    return names


def _recoverable(folder: Path, session: str) -> Recoverable | None:
    """The session's autosave if its owner is gone; its leftovers removed when there is no design."""
    design_file, meta_file, lock_file = session_files(folder, session)
    meta = _read_meta(meta_file)
    if _owner_running(lock_file, meta):
        return None
    if not design_file.exists():
        for path in (meta_file, lock_file):
            path.unlink(missing_ok=True)
        return None
    title = meta.get("title") if isinstance(meta.get("title"), str) else _title_of(design_file)
    path = meta.get("path") if isinstance(meta.get("path"), str) else None
    saved_at = meta.get("saved_at")
    if not _plausible_time(saved_at):
        saved_at = design_file.stat().st_mtime
    return Recoverable(design_file, meta_file, path, title, float(saved_at))


def _read_meta(meta_file: Path) -> dict[str, Any]:
    """The meta file as a dict; {} when it is missing, too large, not JSON or not an object."""
    try:
        with open(meta_file, "rb") as handle:
            data = handle.read(MAX_META_BYTES + 1)
        meta = json.loads(data) if len(data) <= MAX_META_BYTES else None
    except (OSError, ValueError, RecursionError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _plausible_time(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and 0 <= value <= MAX_SAVED_AT)


def _owner_running(lock_file: Path, meta: dict[str, Any]) -> bool:
    """Whether the session that wrote this autosave still runs: its lock is held. Autosaves from
    before session locks fall back on the process id and host in the meta file."""
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        pid = meta.get("pid")
        valid = isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid < 2 ** 31
        return valid and pid_alive(pid) and meta.get("host") == os.uname().nodename
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _title_of(design_file: Path) -> str:
    """The title inside an autosaved design, for one whose meta file was lost."""
    try:
        with open(design_file, "rb") as handle:
            title = json.loads(handle.read(MAX_TITLE_LOOKUP_BYTES))["metadata"]["title"]
    except (OSError, ValueError, RecursionError, LookupError, TypeError):
        return "autosaved design"
    return title if isinstance(title, str) else "autosaved design"


class Autosaver(QObject):
    """Writes the document's unsaved changes to the autosave folder on a timer, holding the
    session's lock while it has an autosave there."""

    saved = Signal(str)

    def __init__(self, document: DesignDocument, folder: Path, interval_ms: int = INTERVAL_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.folder = folder / "autosave"
        self.session = uuid.uuid4().hex[:12]
        self._saved_revision: int | None = None
        self._lock_fd: int | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.save_now)
        self.timer.start()
        document.undo_stack.cleanChanged.connect(self._clean_changed)

    @property
    def design_file(self) -> Path:
        """Where this session's autosaved design goes."""
        return session_files(self.folder, self.session)[0]

    @property
    def meta_file(self) -> Path:
        """Where this session's meta file goes."""
        return session_files(self.folder, self.session)[1]

    @property
    def lock_file(self) -> Path:
        """The file this session keeps locked while it runs with an autosave."""
        return session_files(self.folder, self.session)[2]

    def _hold_lock(self) -> None:
        """Lock the session's lock file (again, if a scan removed it meanwhile)."""
        if self._lock_fd is not None and os.fstat(self._lock_fd).st_nlink > 0:
            return
        self._release_lock()
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def save_now(self) -> bool:
        """Write the autosave if there are unsaved changes not yet autosaved."""
        if not self.document.is_modified():
            self.discard()
            return False
        if self._saved_revision == self.document.revision and self.design_file.exists():
            return False
        self.folder.mkdir(parents=True, exist_ok=True)
        self._hold_lock()
        design = self.document.design
        atomic_write(self.design_file, design_to_bytes(design), keep_backup=False)
        meta = {"pid": os.getpid(), "host": os.uname().nodename, "saved_at": time.time(),
                "path": str(self.document.path) if self.document.path else None,
                "title": design.metadata.get("title", "design")}
        atomic_write(self.meta_file, json.dumps(meta, indent=2).encode("utf-8"), keep_backup=False)
        self._saved_revision = self.document.revision
        self.saved.emit(str(self.design_file))
        return True

    def discard(self) -> None:
        """Remove this session's autosave (the design first, then its meta file)."""
        for path in (self.design_file, self.meta_file):
            path.unlink(missing_ok=True)
        self._saved_revision = None

    def _clean_changed(self, clean: bool) -> None:
        if clean and not self.document.recovered:
            self.discard()

    def stop(self, keep: bool = False) -> None:
        """Stop the timer; a clean exit removes the autosave (``keep`` leaves it, as a crash would)."""
        self.timer.stop()
        if not keep:
            self.discard()
            if self._lock_fd is not None:
                self.lock_file.unlink(missing_ok=True)
        self._release_lock()
