"""The inspector: edits the selected node's label and parameters with editors built from the
catalog schema. A value the catalog refuses is shown with its reason and never reaches the model;
an accepted one is one undo step."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFormLayout, QFrame, QHBoxLayout, QLabel, QLineEdit, QScrollArea, QVBoxLayout,
                               QWidget)

from inferboard.catalog.loader import ParamValueError, coerce_param
from inferboard.model import ops
from inferboard.model import events as ev

from desktop import icons
from desktop.editor.document import DesignDocument
from desktop.editor.param_editors import ParamEditor, ParseError, make_editor
from desktop.theme import LIGHT_INK, WARNING_STRIP


class Inspector(QWidget):
    """The inspector: the selected component's kind, label, region and parameters, each edited through an undo command."""

    #: Text for the status bar.
    message = Signal(str)

    def __init__(self, document: DesignDocument, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.node_id: str | None = None
        self.editors: dict[str, ParamEditor] = {}
        self.errors: dict[str, QLabel] = {}
        self.dark = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(self.scroll)
        self.body = QWidget()
        self.scroll.setWidget(self.body)
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(8, 8, 8, 8)
        self.header = QLabel(self.body)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)  # a long kind title wraps rather than widen the panel
        self.icon = QLabel(self.body)
        self.icon.setFixedSize(32, 32)
        head = QHBoxLayout()
        head.addWidget(self.icon)
        head.addWidget(self.header, 1)
        self.layout_.addLayout(head)
        self.description = QLabel(self.body)
        self.description.setWordWrap(True)
        self.description.setObjectName("muted")
        self.layout_.addWidget(self.description)
        #: The live warnings about the selected component (node id -> messages), shown above its form.
        self.node_warnings: dict[str, list[str]] = {}
        self.warnings_label = QLabel(self.body)
        self.warnings_label.setObjectName("inspector_warnings")
        self.warnings_label.setAccessibleName("Warnings about this component")
        self.warnings_label.setWordWrap(True)
        self.warnings_label.setTextFormat(Qt.TextFormat.PlainText)
        self.warnings_label.hide()
        self.layout_.addWidget(self.warnings_label)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # A field that does not fit beside its label (a long choice in a narrow inspector) goes under it.
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.layout_.addLayout(self.form)
        self.live = QLabel(self.body)
        self.live.setWordWrap(True)
        self.live.setTextFormat(Qt.TextFormat.RichText)
        self.layout_.addWidget(self.live)
        self.layout_.addStretch(1)
        self.label_edit: QLineEdit | None = None
        document.changed.connect(self.on_event)
        document.replaced.connect(lambda: self.show_node(None))
        self.show_node(None)

    @property
    def design(self):
        """The design being inspected."""
        return self.document.design

    # ------------------------------------------------------------------ building
    def show_selection(self, node_ids: list[str]) -> None:
        """Show the one selected component, or how many are selected."""
        if len(node_ids) == 1:
            self.show_node(node_ids[0])
        else:
            self.show_node(None, count=len(node_ids))

    def show_node(self, node_id: str | None, count: int = 0) -> None:
        """Rebuild the form for ``node_id`` (None: nothing or ``count`` components selected)."""
        self._clear_form()
        self.node_id = node_id if node_id in self.design.nodes else None
        self._show_warnings()
        if self.node_id is None:
            self.icon.clear()
            self.header.setText(f"<b>{count} components selected</b>" if count > 1 else "<b>Nothing selected</b>")
            self.description.setText("Select one component on the canvas or in the outline to edit its "
                                     "parameters. The design's workload and SLOs are under Requirements.")
            self.live.clear()
            return
        node = self.design.node(self.node_id)
        kind = self.design.catalog.kind(node.kind)
        self.icon.setPixmap(icons.icon(kind.id, self.dark).pixmap(32, 32))
        self.header.setText(f"<b>{kind.title}</b><br><span style='color:gray'>{node.id}</span>")
        self.description.setText(kind.description)
        self.description.setToolTip(f"<b>When to use</b><br>{kind.when_to_use}")
        self.label_edit = QLineEdit(node.label, self.body)
        self.label_edit.setPlaceholderText(kind.title)
        self.label_edit.setAccessibleName("Label")
        self.label_edit.setToolTip("A name shown on the card instead of the kind's title.")
        self.label_edit.editingFinished.connect(self._commit_label)
        self.form.addRow("&Label", self.label_edit)
        for spec in kind.params:
            editor = make_editor(spec, self.body)
            editor.setObjectName(f"param:{spec.name}")
            editor.set_value(node.params.get(spec.name, spec.default))
            editor.committed.connect(lambda value, name=spec.name: self.commit(name, value))
            error = QLabel(self.body)
            error.setWordWrap(True)
            error.setStyleSheet(f"color: {LIGHT_INK.invalid};")
            error.setAccessibleName(f"{spec.title} error")
            error.hide()
            label = QLabel(spec.title, self.body)
            label.setToolTip(spec.help)
            label.setBuddy(editor.field)
            self.form.addRow(label, editor)
            self.form.addRow("", error)
            self.editors[spec.name] = editor
            self.errors[spec.name] = error

    def set_node_warnings(self, warnings: dict[str, list[str]]) -> None:
        """The live warnings by component; the selected one's are shown."""
        self.node_warnings = {node_id: list(messages) for node_id, messages in warnings.items()}
        self._show_warnings()

    def _show_warnings(self) -> None:
        messages = self.node_warnings.get(self.node_id, []) if self.node_id is not None else []
        self.warnings_label.setText("\n".join(f"⚠ {message}" for message in messages))
        colours = WARNING_STRIP[bool(self.dark)]
        self.warnings_label.setStyleSheet(f"background: {colours[0]}; color: {colours[1]}; padding: 5px 6px; "
                                          "border-radius: 4px;")
        self.warnings_label.setVisible(bool(messages))

    def warning_messages(self) -> list[str]:
        """The warnings shown for the selected component."""
        text = self.warnings_label.text() if not self.warnings_label.isHidden() else ""
        return [line.removeprefix("⚠ ") for line in text.splitlines() if line]

    def _clear_form(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors.clear()
        self.errors.clear()
        self.label_edit = None

    def set_dark(self, dark: bool) -> None:
        """Redraw the kind's icon for a dark or a light theme."""
        self.dark = dark
        if self.node_id:
            self.show_node(self.node_id)

    def set_live(self, html: str) -> None:
        """Show ``html`` in the live-figures strip (the node's latest simulated figures)."""
        self.live.setText(html)

    # ------------------------------------------------------------------ committing
    def commit(self, name: str, value: Any) -> bool:
        """Check ``value`` against the catalog; refuse with a message or run one SetParams."""
        if self.node_id is None:
            return False
        node = self.design.node(self.node_id)
        spec = self.design.catalog.kind(node.kind).param(name)
        try:
            if isinstance(value, ParseError):
                raise ParamValueError(str(value))
            value = coerce_param(spec, value)
        except ParamValueError as error:
            self._show_error(name, f"{spec.title} {error}" if str(error)[:1].islower() else str(error))
            return False
        self._show_error(name, "")
        if node.params.get(name) == value:
            self.editors[name].set_value(value)
            return False
        title = f"Set {spec.title.lower()} of {node.id}"
        return self.document.execute(ops.SetParams(node.id, {name: value}), title)

    def _show_error(self, name: str, text: str) -> None:
        editor, label = self.editors.get(name), self.errors.get(name)
        if editor is None or label is None:
            return
        editor.set_error(bool(text))
        editor.setProperty("has_error", bool(text))
        label.setText(text)
        label.setVisible(bool(text))
        if text:
            self.message.emit(f"Refused: {text}")

    def error_text(self, name: str) -> str:
        """The error shown under field ``name``, or "" when it has none."""
        label = self.errors.get(name)
        return label.text() if label is not None and not label.isHidden() else ""

    def _commit_label(self) -> None:
        if self.node_id is None or self.label_edit is None:
            return
        text = self.label_edit.text().strip()
        if text != self.design.node(self.node_id).label:
            self.document.execute(ops.SetLabel(self.node_id, text), f"Rename {self.node_id}")

    # ------------------------------------------------------------------ mirroring
    def on_event(self, event) -> None:
        """Follow a model event: refresh the fields it changed, or clear the form if the node went away."""
        if self.node_id is None:
            return
        if isinstance(event, ev.NodeRemoved) and event.node.id == self.node_id:
            self.show_node(None)
        elif isinstance(event, ev.ParamsChanged) and event.node_id == self.node_id:
            node = self.design.node(self.node_id)
            for name in event.new:
                if name in self.editors:
                    self.editors[name].set_value(node.params[name])
                    self._show_error(name, "")
        elif isinstance(event, ev.LabelChanged) and event.node_id == self.node_id and self.label_edit is not None:
            self.label_edit.setText(event.new)
