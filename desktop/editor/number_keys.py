"""Up and Down arrows in a typed number field: one step up or down (Shift: ten steps), committed
at once, so a value can be tuned without a mouse. A whole number steps by one; a decimal by a
tenth of its leading digit's place (0.65 by 0.01, 12.5 by 1), so the step suits the value."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit

STEP_KEYS = {Qt.Key.Key_Up: 1, Qt.Key.Key_Down: -1}


def number_step(value: float, integer: bool) -> float:
    """The step for ``value``: 1 for a whole number, else a tenth of its leading digit's place."""
    if integer:
        return 1.0
    if value == 0:
        return 0.1
    return 10.0 ** (math.floor(math.log10(abs(value))) - 1)


def stepped(text: str, direction: int, integer: bool, times: int = 1, low: float | None = None,
            high: float | None = None) -> str | None:
    """``text`` moved ``times`` steps up (+1) or down (-1) and kept within [low, high]; None if
    the text is not a plain number."""
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    step = number_step(value, integer)
    new = value + direction * times * step
    new = round(new / step) * step  # on the step's grid, without a float tail
    if low is not None:
        new = max(low, new)
    if high is not None:
        new = min(high, new)
    if integer:
        return str(int(round(new)))
    digits = max(0, -math.floor(math.log10(step)))
    return f"{new:.{digits}f}"


class NumberKeys(QObject):
    """Installed on a QLineEdit holding a number: Up/Down step it and finish the edit (the field's
    own ``editingFinished`` handler commits it)."""

    def __init__(self, edit: QLineEdit, integer: bool, low: float | None = None, high: float | None = None):
        super().__init__(edit)
        self.edit, self.integer, self.low, self.high = edit, integer, low, high
        edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Step the number field's value with the arrow and page keys; other keys pass through."""
        if watched is not self.edit or event.type() != QEvent.Type.KeyPress:
            return False
        key_event: QKeyEvent = event  # type: ignore[assignment]
        direction = STEP_KEYS.get(key_event.key())
        if direction is None:
            return False
        times = 10 if key_event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1
        text = stepped(self.edit.text(), direction, self.integer, times, self.low, self.high)
        if text is not None and text != self.edit.text():
            self.edit.setText(text)
            self.edit.editingFinished.emit()
        return True
