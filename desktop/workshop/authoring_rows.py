"""Editable lists for the scenario form: one frame per item (a fact, a question, a phase...), its
fields as ordinary widgets (so typing and tabbing work as everywhere), Add and Remove buttons.

Every field widget is registered under its schema path (``facts.1.text``), so a validation
problem can be shown on the widget it is about."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFrame, QGridLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

LINE, TEXT, LIST, COMBO, NUMBER, CHECK = "line", "text", "list", "combo", "number", "check"


@dataclass(frozen=True)
class Column:
    """One field of a row in the authoring dialog: its name, title, kind of widget and the widget's options."""

    name: str
    title: str
    kind: str = LINE
    #: COMBO: (value, shown) pairs; NUMBER: (minimum, maximum, step)
    options: tuple = ()
    placeholder: str = ""
    #: Takes a whole line of the item's frame (long texts).
    wide: bool = False
    tip: str = ""
    #: LIST: the separator between entries.
    separator: str = ","


def make_field(column: Column, parent: QWidget, changed: Callable[[], None]) -> QWidget:
    """A widget for one field, calling ``changed`` on every edit."""
    if column.kind == TEXT:
        widget = QPlainTextEdit(parent)
        widget.setTabChangesFocus(True)
        widget.setFixedHeight(widget.fontMetrics().lineSpacing() * 3 + 14)
        widget.setPlaceholderText(column.placeholder)
        widget.textChanged.connect(changed)
    elif column.kind == COMBO:
        widget = QComboBox(parent)
        for value, shown in column.options:
            widget.addItem(shown, value)
        widget.currentIndexChanged.connect(lambda _i: changed())
    elif column.kind == NUMBER:
        widget = QDoubleSpinBox(parent)
        low, high, step = column.options or (0.0, 100.0, 0.5)
        widget.setRange(low, high)
        widget.setSingleStep(step)
        widget.setDecimals(2)
        widget.valueChanged.connect(lambda _v: changed())
    elif column.kind == CHECK:
        widget = QCheckBox(column.title, parent)
        widget.toggled.connect(lambda _on: changed())
    else:
        widget = QLineEdit(parent)
        widget.setPlaceholderText(column.placeholder)
        widget.textChanged.connect(lambda _t: changed())
    widget.setAccessibleName(column.title)
    if column.tip:
        widget.setToolTip(column.tip)
    return widget


def read_field(column: Column, widget: QWidget) -> Any:
    """The value a field's widget holds, as the scenario schema wants it."""
    if column.kind == TEXT:
        return widget.toPlainText().strip()
    if column.kind == COMBO:
        return widget.currentData()
    if column.kind == NUMBER:
        return round(widget.value(), 4)
    if column.kind == CHECK:
        return widget.isChecked()
    text = widget.text().strip()
    if column.kind == LIST:
        return [part.strip() for part in text.split(column.separator) if part.strip()]
    return text


def write_field(column: Column, widget: QWidget, value: Any) -> None:
    """Show ``value`` in a field's widget."""
    if column.kind == TEXT:
        widget.setPlainText("" if value is None else str(value))
    elif column.kind == COMBO:
        index = widget.findData(value)
        widget.setCurrentIndex(max(0, index))
    elif column.kind == NUMBER:
        widget.setValue(float(value or 0))
    elif column.kind == CHECK:
        widget.setChecked(bool(value))
    elif column.kind == LIST:
        sep = column.separator + ("" if column.separator.endswith(" ") else " ")
        widget.setText(sep.join(str(v) for v in value or []))
    else:
        widget.setText("" if value is None else str(value))


@dataclass
class ItemFrame:
    """One item of a list in the authoring dialog (a question, a follow-up): its frame, widgets and Remove button."""

    frame: QFrame
    widgets: dict[str, QWidget] = field(default_factory=dict)
    remove: QPushButton | None = None
    heading: QLabel | None = None


class RowList(QWidget):
    """A list of items of one kind. ``values()`` gives them as dicts, ``set_values`` fills them."""

    changed = Signal()

    def __init__(self, section: str, noun: str, columns: list[Column], parent: QWidget | None = None,
                 defaults: dict | None = None, decorate: Callable[[int, "ItemFrame"], None] | None = None):
        super().__init__(parent)
        self.section = section
        self.noun = noun
        self.columns = columns
        self.defaults = defaults or {}
        #: Adds extra widgets to an item (the follow-ups' fault picker).
        self.decorate = decorate
        self.items: list[ItemFrame] = []
        self._quiet = False
        self.box = QVBoxLayout()
        self.box.setSpacing(8)
        self.add_button = QPushButton(f"Add {noun}", self)
        self.add_button.setAccessibleName(f"Add {noun}")
        self.add_button.clicked.connect(lambda: self.add_item(focus=True))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.box)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addStretch(1)
        layout.addLayout(row)

    # ------------------------------------------------------------------ items
    def add_item(self, values: dict | None = None, focus: bool = False) -> ItemFrame:
        """Add an item filled from ``values`` (empty when None), focused with ``focus``; returns it."""
        frame = QFrame(self)
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(frame)
        grid.setContentsMargins(8, 6, 8, 8)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        item = ItemFrame(frame)
        item.heading = QLabel("", frame)
        item.remove = QPushButton("Remove", frame)
        item.remove.setAccessibleName(f"Remove {self.noun}")
        item.remove.clicked.connect(lambda: self.remove_item(self.items.index(item)))
        grid.addWidget(item.heading, 0, 0)
        row, col = 1, 0
        short = [c for c in self.columns if not c.wide]
        for column in short:
            widget = make_field(column, frame, self._edited)
            item.widgets[column.name] = widget
            if column.kind != CHECK:
                label = QLabel(column.title, frame)
                label.setBuddy(widget)
                grid.addWidget(label, 0, col + 1)
            grid.addWidget(widget, row, col + 1)
            col += 1
        grid.addWidget(item.remove, row, col + 1)
        span = col + 2
        for column in (c for c in self.columns if c.wide):
            row += 1
            label = QLabel(column.title, frame)
            widget = make_field(column, frame, self._edited)
            label.setBuddy(widget)
            item.widgets[column.name] = widget
            grid.addWidget(label, row, 0)
            grid.addWidget(widget, row, 1, 1, span - 1)
        for n in range(1, span):
            grid.setColumnStretch(n, 1)
        self.items.append(item)
        self.box.addWidget(frame)
        if self.decorate is not None:
            self.decorate(len(self.items) - 1, item)
        self._quiet = True
        for column in self.columns:
            write_field(column, item.widgets[column.name], {**self.defaults, **(values or {})}.get(column.name))
        self._quiet = False
        self._renumber()
        if focus:
            first = item.widgets[self.columns[0].name]
            first.setFocus()
        self.changed.emit()
        return item

    def remove_item(self, index: int) -> None:
        """Remove the item at ``index`` and renumber those after it."""
        item = self.items.pop(index)
        item.frame.hide()
        item.frame.setParent(None)
        item.frame.deleteLater()
        self._renumber()
        self.changed.emit()

    def _renumber(self) -> None:
        for n, item in enumerate(self.items):
            item.heading.setText(f"<b>{self.noun.capitalize()} {n + 1}</b>")

    def _edited(self) -> None:
        if not self._quiet:
            self.changed.emit()

    # ------------------------------------------------------------------ values
    def values(self) -> list[dict]:
        """Every item's values, in order."""
        return [{c.name: read_field(c, item.widgets[c.name]) for c in self.columns} for item in self.items]

    def set_values(self, values: list[dict]) -> None:
        """Replace every item with ones filled from ``values``."""
        self._quiet = True
        while self.items:
            self.remove_item(len(self.items) - 1)
        for value in values:
            self.add_item(value)
        self._quiet = False
        self.changed.emit()

    def field_widgets(self) -> dict[str, QWidget]:
        """Schema path -> widget, for every field of every item."""
        out: dict[str, QWidget] = {}
        for n, item in enumerate(self.items):
            out[f"{self.section}.{n}"] = item.frame
            for name, widget in item.widgets.items():
                out[f"{self.section}.{n}.{name}"] = widget
        out.setdefault(self.section, self)
        return out

    def widget(self, index: int, name: str) -> QWidget:
        """The widget of field ``name`` in the item at ``index``."""
        return self.items[index].widgets[name]
