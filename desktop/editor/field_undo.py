"""Undo and Redo from a focused text field: the field's own undo while it has something to undo,
else the document's. Qt lets a focused line edit claim Ctrl+Z even when it has nothing to undo
(then the key does nothing at all); this filter hands such keys back to the window's actions."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QPlainTextEdit, QTextEdit, QWidget


def text_field(widget: QWidget | None):
    """The editable text field ``widget`` is or holds (line edit, spin box, editable combo, text
    edit), or None."""
    if isinstance(widget, (QAbstractSpinBox, QComboBox)):
        widget = widget.findChild(QLineEdit)
    if isinstance(widget, QLineEdit):
        return None if widget.isReadOnly() else widget
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return None if widget.isReadOnly() else widget
    return None


def field_can(field, step: str) -> bool:
    """Whether the field itself has something to undo (``step`` "undo") or redo ("redo")."""
    if isinstance(field, QLineEdit):
        return field.isUndoAvailable() if step == "undo" else field.isRedoAvailable()
    document = field.document()
    return document.isUndoAvailable() if step == "undo" else document.isRedoAvailable()


def focused_field(window: QWidget):
    """The text field of ``window`` that has the keyboard focus, or None."""
    focus = QApplication.focusWidget()
    if focus is None or focus.window() is not window:
        return None
    return text_field(focus)


def run_step(window: QWidget, step: str) -> bool:
    """Undo or redo in the focused field if it can; True if the field took it."""
    field = focused_field(window)
    if field is not None and field_can(field, step):
        getattr(field, step)()
        return True
    return False


class FieldUndoFilter(QObject):
    """Installed on the application for one window: undo and redo keys pressed in that window's
    text fields always reach the window's Undo and Redo actions, which decide (see ``run_step``)."""

    def __init__(self, window: QWidget, sequences: list[QKeySequence]):
        super().__init__(window)
        self.window = window
        self.sequences = list(sequences)

    def eventFilter(self, obj, event) -> bool:
        """Let a focused text field take Ctrl+Z and Ctrl+Y for its own text instead of the design's undo."""
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self.window or text_field(obj) is None:
            return False
        pressed = QKeySequence(event.keyCombination())
        if any(pressed.matches(seq) == QKeySequence.SequenceMatch.ExactMatch for seq in self.sequences):
            event.ignore()  # not claimed by the field: the window's shortcut fires
            return True
        return False
