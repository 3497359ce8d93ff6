"""The open design, its file, and its undo stack: the one place the GUI changes the model."""

from __future__ import annotations

from pathlib import Path
from typing import Hashable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from inferboard.model import Design, ops
from inferboard.store import FileStamp

from desktop.editor.commands import NO_MERGE, DesignCommand


class DesignDocument(QObject):
    """Wraps a ``Design``: relays its events as Qt signals and runs every edit as an undo command.

    ``changed(event)`` carries each model event; ``replaced()`` fires when a whole new design is
    loaded (New, Open, Recover); ``refused(message)`` when an edit was refused by the model.
    """

    changed = Signal(object)
    replaced = Signal()
    refused = Signal(str)
    file_changed = Signal()

    def __init__(self, design: Design | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(0)
        self._design: Design | None = None
        self.path: Path | None = None
        self.stamp: FileStamp | None = None
        #: Bumped on every model event and every replacement; evaluators compare it to drop stale results.
        self.revision = 0
        #: A recovered design has no clean state on disk.
        self.recovered = False
        self.set_design(design or Design())

    @property
    def design(self) -> Design:
        """The design being edited."""
        assert self._design is not None
        return self._design

    def set_design(self, design: Design, path: Path | str | None = None, stamp: FileStamp | None = None,
                   recovered: bool = False) -> None:
        """Replace the design (New, Open, Recover), clearing the undo history, and announce it."""
        if self._design is not None:
            self._design.events.unsubscribe(self._relay)
        self.undo_stack.clear()
        self._design = design
        design.events.subscribe(self._relay)
        self.path = Path(path) if path is not None else None
        self.stamp = stamp
        self.recovered = recovered
        #: Where a recovered design came from, offered by Save As.
        self.suggested_path: str | None = None
        self.undo_stack.setClean()
        self.revision += 1
        self.replaced.emit()
        self.file_changed.emit()

    def set_file(self, path: Path | str, stamp: FileStamp | None) -> None:
        """Record that the design is now saved as ``path``: the undo stack is marked clean."""
        self.path = Path(path)
        self.stamp = stamp
        self.recovered = False
        self.undo_stack.setClean()
        self.file_changed.emit()

    def is_modified(self) -> bool:
        """Whether there are changes not saved to the file (a recovered design always counts)."""
        return self.recovered or not self.undo_stack.isClean()

    def display_name(self) -> str:
        """The file's name for titles and prompts ("Untitled" before the first save)."""
        return self.path.name if self.path else "Untitled"

    def _relay(self, event: object) -> None:
        self.revision += 1
        self.changed.emit(event)

    def execute(self, op: ops.Op, title: str, merge_id: int = NO_MERGE, merge_key: Hashable = None) -> bool:
        """Run ``op`` as one undo step. Returns False (and emits ``refused``) if the model refused it."""
        command = DesignCommand(self, op, title, merge_id, merge_key)
        self.undo_stack.push(command)
        if command.error is not None:
            self.refused.emit(str(command.error))
            return False
        return True
