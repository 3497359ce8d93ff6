"""Editors for one parameter, built from its catalog schema (type, unit, range, choices).

An editor only turns what the user typed into a Python value and says ``committed(value)``; the
inspector checks it with the catalog's ``coerce_param`` and shows the refusal next to the field,
so an invalid value never reaches the model."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from inferboard.catalog.schema import ParamSpec

from desktop.editor.number_keys import NumberKeys
from desktop.theme import LIGHT_INK


class ParseError(ValueError):
    """What was typed is not even of the right shape (not a number, say)."""


def format_number(spec: ParamSpec, value: Any) -> str:
    """A parameter's value as the inspector shows it (integers plain, floats to ten significant digits)."""
    if spec.type == "int":
        return str(int(value))
    return f"{float(value):.10g}"


def parse_number(spec: ParamSpec, text: str) -> int | float:
    """A number typed for ``spec``: commas, underscores and a trailing % allowed; raises ParseError."""
    text = text.strip().replace(",", "").replace("_", "")
    if not text:
        raise ParseError("enter a number")
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    try:
        value = float(text)
    except ValueError:
        raise ParseError(f"'{text}' is not a number") from None
    if percent:
        value /= 100.0
    if spec.type == "int" and value.is_integer():
        return int(value)
    return value


def format_schedule(value: list) -> str:
    """A replica schedule as "hour:replicas, ..." text."""
    return ", ".join(f"{h:g}:{r}" for h, r in value)


def parse_schedule(text: str) -> list:
    """"hour:replicas, ..." text as a schedule; raises ParseError naming the part that is wrong."""
    pairs = []
    for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
        if ":" not in part:
            raise ParseError(f"'{part}' is not hour:replicas")
        hour, replicas = part.split(":", 1)
        try:
            pairs.append([float(hour), float(replicas)])
        except ValueError:
            raise ParseError(f"'{part}' is not hour:replicas") from None
    return [[int(h) if h.is_integer() else h, int(r) if r.is_integer() else r] for h, r in pairs]


def range_text(spec: ParamSpec) -> str:
    """The allowed range of ``spec`` in words ("1 to 64 GPUs", "at least 0")."""
    unit = f" {spec.unit}" if spec.unit else ""
    if spec.min is not None and spec.max is not None:
        return f"{spec.min:g} to {spec.max:g}{unit}"
    if spec.min is not None:
        return f"at least {spec.min:g}{unit}"
    if spec.max is not None:
        return f"at most {spec.max:g}{unit}"
    return unit.strip()


#: A typed field's least width; its frame and text margins; the most its value may ask for.
MIN_FIELD_WIDTH, FIELD_PADDING, MAX_FIELD_MIN_WIDTH = 48, 16, 220


class ParamEditor(QWidget):
    """The base of the inspector's field for one parameter; emits ``committed(value)`` when the user commits one."""

    committed = Signal(object)

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.spec = spec
        self.layout_ = QHBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(4)
        self.field: QWidget | None = None

    def set_value(self, value: Any) -> None:
        """Show ``value`` without emitting ``committed``."""
        raise NotImplementedError

    def set_error(self, on: bool) -> None:
        """Mark the field as holding a refused value (a red border), or clear the mark."""
        if self.field is not None:
            self.field.setProperty("invalid", on)
            self.field.setStyleSheet(f"border: 1.5px solid {LIGHT_INK.invalid}; border-radius: 3px;" if on else "")

    def _finish(self, field: QWidget, tip: str) -> None:
        self.field = field
        field.setAccessibleName(self.spec.title)
        field.setAccessibleDescription(self.spec.help)
        field.setToolTip(f"<b>{self.spec.title}</b><br>{self.spec.help}" + (f"<br><i>{tip}</i>" if tip else ""))
        self.layout_.insertWidget(0, field, 1)
        self.setFocusProxy(field)


class BoolEditor(ParamEditor):
    """A check box for a yes/no parameter."""

    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.box = QCheckBox(self)
        self.box.toggled.connect(lambda on: self.committed.emit(bool(on)))
        self._finish(self.box, "")

    def set_value(self, value: Any) -> None:
        """Tick or clear the box without emitting ``committed``."""
        self.box.blockSignals(True)
        self.box.setChecked(bool(value))
        self.box.blockSignals(False)


class ChoiceEditor(ParamEditor):
    """A drop-down for a parameter with a fixed set of choices."""

    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.combo = QComboBox(self)
        for choice in spec.choices:
            self.combo.addItem(choice.replace("_", " "), choice)
        self.combo.activated.connect(lambda index: self.committed.emit(self.combo.itemData(index)))
        # Never narrower than its longest choice: the inspector puts the field under its label instead.
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.combo.setMinimumWidth(self.combo.sizeHint().width())
        self._finish(self.combo, "one of: " + ", ".join(spec.choices))

    def set_value(self, value: Any) -> None:
        """Select ``value`` without emitting ``committed``."""
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(max(0, self.combo.findData(value)))
        self.combo.blockSignals(False)


class TextEditor(ParamEditor):
    """Numbers, text and schedules: typed, then committed on Enter or when focus leaves."""

    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.edit = QLineEdit(self)
        self._shown = ""
        if spec.type in ("int", "float"):
            self.edit.setAlignment(Qt.AlignmentFlag.AlignRight)
            self.edit.setPlaceholderText(range_text(spec))
            self.number_keys = NumberKeys(self.edit, spec.type == "int", spec.min, spec.max)
        elif spec.type == "schedule":
            self.edit.setPlaceholderText("hour:replicas, …  e.g. 8:6, 20:2")
        self.edit.editingFinished.connect(self._commit)
        tip = range_text(spec) if spec.type in ("int", "float") else ""
        self._finish(self.edit, f"range: {tip}" if tip else "")
        if spec.unit:
            unit = QLabel(spec.unit, self)
            unit.setMinimumWidth(max(34, unit.fontMetrics().horizontalAdvance(spec.unit) + 2))
            self.layout_.addWidget(unit)
            self.unit_label = unit

    def text_for(self, value: Any) -> str:
        """``value`` as the field's text (numbers and schedules formatted)."""
        if self.spec.type in ("int", "float"):
            return format_number(self.spec, value)
        if self.spec.type == "schedule":
            return format_schedule(value)
        return str(value)

    def set_value(self, value: Any) -> None:
        """Show ``value``, the field widened to fit it (up to a limit)."""
        self._shown = self.text_for(value)
        self.edit.setText(self._shown)
        self.edit.setCursorPosition(0)
        # Wide enough for the value (up to a line's worth): the inspector wraps the row rather than cut it.
        needed = self.edit.fontMetrics().horizontalAdvance(self._shown) + FIELD_PADDING
        self.edit.setMinimumWidth(max(MIN_FIELD_WIDTH, min(needed, MAX_FIELD_MIN_WIDTH)))

    def value(self) -> Any:
        """Parse the text; raises ParseError."""
        text = self.edit.text()
        if self.spec.type in ("int", "float"):
            return parse_number(self.spec, text)
        if self.spec.type == "schedule":
            return parse_schedule(text)
        return text

    def _commit(self) -> None:
        if self.edit.text() == self._shown and not self.property("has_error"):
            return
        try:
            value = self.value()
        except ParseError as error:
            self.committed.emit(error)
            return
        self.committed.emit(value)


def make_editor(spec: ParamSpec, parent: QWidget | None = None) -> ParamEditor:
    """The field that edits ``spec``: a check box, a drop-down or a text field."""
    if spec.type == "bool":
        return BoolEditor(spec, parent)
    if spec.type == "choice":
        return ChoiceEditor(spec, parent)
    return TextEditor(spec, parent)
