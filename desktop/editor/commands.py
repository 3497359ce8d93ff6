"""Undo commands. Every user gesture is exactly one ``DesignCommand``: its redo applies an edit (an
op from ``inferboard.model.ops``) to the design and keeps the inverse the design returns; its undo
applies that inverse and keeps the inverse's inverse for the next redo. Commands touch the model
only; the scene follows the model's events."""

from __future__ import annotations

from typing import Hashable, Protocol

from PySide6.QtGui import QUndoCommand

from inferboard.model import Design, EditRefused, ops


class HoldsADesign(Protocol):
    """What a command edits: the open document (``desktop.editor.document``), or anything holding a
    design."""

    design: Design

#: Command ids for QUndoStack merging; -1 means never merge.
NO_MERGE = -1
NUDGE_MERGE_ID = 1001


class DesignCommand(QUndoCommand):
    """One undoable edit of the design: the model op going forward and the inverse it returned."""

    def __init__(self, document: HoldsADesign, op: ops.Op, title: str,
                 merge_id: int = NO_MERGE, merge_key: Hashable = None):
        super().__init__(title)
        self.document = document
        self.forward: ops.Op = op
        self.backward: ops.Op | None = None
        self.merge_id = merge_id
        self.merge_key = merge_key
        self.error: EditRefused | None = None

    def redo(self) -> None:
        """Apply the forward op; a refused edit is kept as ``error`` and the command made obsolete."""
        try:
            self.backward = self.document.design.apply(self.forward)
        except EditRefused as error:
            # A refused edit changed nothing; an obsolete command is dropped by QUndoStack.push.
            self.error = error
            self.setObsolete(True)

    def undo(self) -> None:
        """Apply the inverse op, keeping the op that redoes it."""
        assert self.backward is not None
        self.forward = self.document.design.apply(self.backward)

    def id(self) -> int:
        """The merge id: commands with the same id and merge key fold into one undo step."""
        return self.merge_id

    def mergeWith(self, other: QUndoCommand) -> bool:
        """Fold ``other`` into this command (a drag, a typed value); False when they do not merge."""
        if (not isinstance(other, DesignCommand) or other.merge_id != self.merge_id or self.merge_id == NO_MERGE
                or other.merge_key != self.merge_key or other.error is not None):
            return False
        # Keep our inverse (the state before the first merged edit); take the latest forward edit.
        self.forward = other.forward
        return True

