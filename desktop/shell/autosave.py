"""Autosave every minute into the user data folder, and crash recovery at the next start.

Each running window writes ``autosave/<session>.json`` (the design) and ``<session>.meta.json``
(its file path, title, time and process id) when it has unsaved changes. A clean exit or a save
removes them, so whatever is left over belongs to a session that ended without saving: the next
start offers to recover it."""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from inferboard.store import atomic_write, design_to_bytes

from desktop.editor.document import DesignDocument

INTERVAL_MS = 60_000


def pid_alive(pid: int) -> bool:
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


@dataclass(frozen=True)
class Recoverable:
    design_file: Path
    meta_file: Path
    original_path: str | None
    title: str
    saved_at: float

    def discard(self) -> None:
        for path in (self.design_file, self.meta_file):
            path.unlink(missing_ok=True)

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        where = Path(self.original_path).name if self.original_path else "an unsaved design"
        return f"“{self.title}” ({where}), autosaved {when}"


def find_recoverable(folder: Path) -> list[Recoverable]:
    """Autosaves left by sessions that are no longer running, newest first."""
    out = []
    for meta_file in sorted((folder / "autosave").glob("*.meta.json")):
        design_file = meta_file.with_name(meta_file.name.replace(".meta.json", ".json"))
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        pid = int(meta.get("pid", 0) or 0)
        if pid == os.getpid() or pid_alive(pid) and meta.get("host") == os.uname().nodename:
            continue
        if not design_file.exists():
            meta_file.unlink(missing_ok=True)
            continue
        out.append(Recoverable(design_file, meta_file, meta.get("path"), str(meta.get("title", "design")),
                               float(meta.get("saved_at", design_file.stat().st_mtime))))
    return sorted(out, key=lambda r: r.saved_at, reverse=True)


class Autosaver(QObject):
    saved = Signal(str)

    def __init__(self, document: DesignDocument, folder: Path, interval_ms: int = INTERVAL_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.folder = folder / "autosave"
        self.session = uuid.uuid4().hex[:12]
        self._saved_revision: int | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.save_now)
        self.timer.start()
        document.undo_stack.cleanChanged.connect(self._clean_changed)

    @property
    def design_file(self) -> Path:
        return self.folder / f"{self.session}.json"

    @property
    def meta_file(self) -> Path:
        return self.folder / f"{self.session}.meta.json"

    def save_now(self) -> bool:
        """Write the autosave if there are unsaved changes not yet autosaved."""
        if not self.document.is_modified():
            self.discard()
            return False
        if self._saved_revision == self.document.revision and self.design_file.exists():
            return False
        self.folder.mkdir(parents=True, exist_ok=True)
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
