"""The requirements editor: the design's title and notes, its workload and its SLOs. Each change
is validated by the ``Requirements`` record first; a refused value shows why and changes nothing."""

from __future__ import annotations

import typing
from typing import Any

from PySide6.QtCore import QEvent
from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QGridLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QScrollArea, QVBoxLayout, QWidget)

from inferboard.model import Requirements, ops
from inferboard.model import events as ev
from inferboard.model.requirements import LOCATIONS

from desktop.editor.document import DesignDocument
from desktop.editor.number_keys import NumberKeys
from desktop.theme import LIGHT_INK

#: field -> (label, unit, help)
FIELDS: dict[str, tuple[str, str, str]] = {
    "workload": ("Workload", "", "fixed = one forward pass per request (classifiers, rankers, embedders); "
                 "generative = tokens decoded one at a time (LLMs)."),
    "mean_rps": ("Mean traffic", "req/s", "Average requests per second over the day."),
    "peak_rps": ("Peak traffic", "req/s", "Highest requests per second the design must absorb."),
    "traffic_pattern": ("Traffic pattern", "", "Shape of the traffic over the simulated day."),
    "slo_p50_ms": ("p50 latency SLO", "ms", "Median end-to-end latency target."),
    "slo_p95_ms": ("p95 latency SLO", "ms", "95th-percentile latency target."),
    "slo_p99_ms": ("p99 latency SLO", "ms", "99th-percentile latency target."),
    "slo_ttft_ms": ("Time to first token SLO", "ms", "For generative workloads: time until the first token."),
    "availability_slo": ("Availability SLO", "%", "Share of requests that must succeed, e.g. 99.9."),
    "model_size_gb": ("Model size", "GB", "Model weights at FP16."),
    "request_size_kb": ("Request size", "KB", "Payload of one request."),
    "prompt_tokens": ("Prompt tokens", "tokens", "Mean prompt length (generative)."),
    "output_tokens": ("Output tokens", "tokens", "Mean generated length (generative)."),
    "budget_per_hour": ("Budget per hour", "$/h", "Most the design may cost per hour."),
    "budget_per_1k": ("Budget per 1k requests", "$", "Most the design may cost per thousand requests."),
    "accuracy_target_pct": ("Accuracy target", "%", "Lowest acceptable model accuracy (fallbacks lower it)."),
    "business_metric": ("Business metric", "", "What the model's answers move: its series follows accuracy, "
                        "latency and lost requests on the timeline's Quality tab."),
    "business_base_pct": ("Business metric level", "%", "The business metric with a healthy model, e.g. 4% "
                          "conversion (empty: 4%)."),
}


class RequirementsEditor(QWidget):
    """The design's title, notes and requirements (traffic, SLO, budget), each edited through an undo command."""

    message = Signal(str)

    def __init__(self, document: DesignDocument, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.fields: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(scroll)
        # The form never scrolls sideways (Tab used to shift it left): it takes the panel's width, and
        # a label that does not fit beside its field goes above it.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setMinimumSize(1, 1)  # an explicit minimum: the form's own must not widen the page
        scroll.setWidget(body)
        self.scroll = scroll
        self.form = QFormLayout(body)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.title = QLineEdit(body)
        self.title.setAccessibleName("Design title")
        self.title.editingFinished.connect(self._commit_metadata)
        self.form.addRow("&Title", self.title)
        self.notes = QPlainTextEdit(body)
        self.notes.setAccessibleName("Design notes")
        self.notes.setTabChangesFocus(True)
        self.notes.setFixedHeight(64)
        self.notes.installEventFilter(self)
        self.form.addRow("&Notes", self.notes)
        for name, (label, unit, help_text) in FIELDS.items():
            self._add_field(body, name, label, unit, help_text)
        regions = QWidget(body)
        grid = QGridLayout(regions)
        grid.setContentsMargins(0, 0, 0, 0)
        self.region_boxes: dict[str, QCheckBox] = {}
        for i, location in enumerate(LOCATIONS):
            box = QCheckBox(location, regions)
            box.setAccessibleName(f"Allowed region {location}")
            box.toggled.connect(self._commit_regions)
            grid.addWidget(box, i // 2, i % 2)
            self.region_boxes[location] = box
        regions.setToolTip("Where the design may place regions (data residency). None ticked = anywhere.")
        self.form.addRow("Allowed regions", regions)
        self.errors["allowed_regions"] = self._error_label(body)
        self.form.addRow("", self.errors["allowed_regions"])
        document.changed.connect(self.on_event)
        document.replaced.connect(self.refresh)
        self.refresh()

    def _error_label(self, parent: QWidget) -> QLabel:
        label = QLabel(parent)
        label.setWordWrap(True)
        label.setStyleSheet(f"color: {LIGHT_INK.invalid};")
        label.hide()
        return label

    def _add_field(self, parent: QWidget, name: str, label: str, unit: str, help_text: str) -> None:
        annotation = Requirements.model_fields[name].annotation
        if typing.get_origin(annotation) is typing.Literal:
            widget = QComboBox(parent)
            for choice in typing.get_args(annotation):
                widget.addItem(choice, choice)
            widget.activated.connect(lambda _i, n=name, w=widget: self.commit(n, w.currentData()))
        else:
            widget = QLineEdit(parent)
            widget.setAlignment(Qt.AlignmentFlag.AlignRight)
            widget.setPlaceholderText("not set")
            widget.editingFinished.connect(lambda n=name, w=widget: self._commit_text(n, w))
            NumberKeys(widget, int in typing.get_args(annotation), low=0.0)
        widget.setAccessibleName(label)
        widget.setToolTip(f"<b>{label}</b><br>{help_text}")
        text = f"{label} ({unit})" if unit else label
        row_label = QLabel(text, parent)
        row_label.setBuddy(widget)
        row_label.setToolTip(help_text)
        self.form.addRow(row_label, widget)
        self.fields[name] = widget
        self.errors[name] = self._error_label(parent)
        self.form.addRow("", self.errors[name])

    # ------------------------------------------------------------------ mirroring
    def refresh(self) -> None:
        """Show the design's current requirements and metadata."""
        req = self.document.design.requirements
        meta = self.document.design.metadata
        self.title.setText(meta.get("title", ""))
        if self.notes.toPlainText() != meta.get("notes", ""):
            self.notes.setPlainText(meta.get("notes", ""))
        for name, widget in self.fields.items():
            value = getattr(req, name)
            if isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findData(value)))
            else:
                widget.setText("" if value is None else f"{value:g}")
            self._show_error(name, "")
        for location, box in self.region_boxes.items():
            box.blockSignals(True)
            box.setChecked(location in req.allowed_regions)
            box.blockSignals(False)

    def on_event(self, event) -> None:
        """Refresh when the requirements or the metadata changed."""
        if isinstance(event, (ev.RequirementsChanged, ev.MetadataChanged)):
            self.refresh()

    # ------------------------------------------------------------------ committing
    def _commit_text(self, name: str, widget: QLineEdit) -> None:
        text = widget.text().strip().replace(",", "")
        if not text:
            self.commit(name, None)
            return
        try:
            value: Any = float(text)
        except ValueError:
            self._show_error(name, f"'{text}' is not a number")
            return
        annotation = Requirements.model_fields[name].annotation
        if int in typing.get_args(annotation) and value.is_integer():
            value = int(value)
        self.commit(name, value)

    def commit(self, name: str, value: Any) -> bool:
        """Set requirement ``name`` to ``value`` through an undo command; False when unchanged or refused."""
        current = self.document.design.requirements
        if getattr(current, name) == value:
            self._show_error(name, "")
            return False
        data = current.model_dump()
        data[name] = value
        try:
            new = Requirements.model_validate(data)
        except ValidationError as error:
            self._show_error(name, "; ".join(e["msg"].removeprefix("Value error, ") for e in error.errors()))
            return False
        self._show_error(name, "")
        label = FIELDS.get(name, (name,))[0]
        return self.document.execute(ops.SetRequirements(new), f"Set {label.lower()}")

    def _commit_regions(self) -> None:
        chosen = [loc for loc, box in self.region_boxes.items() if box.isChecked()]
        self.commit("allowed_regions", chosen)

    def _commit_metadata(self) -> None:
        meta = self.document.design.metadata
        new = {**meta, "title": self.title.text().strip() or "Untitled design",
               "notes": self.notes.toPlainText()}
        if new != meta:
            self.document.execute(ops.SetMetadata(new), "Edit design title and notes")

    def eventFilter(self, obj, event) -> bool:
        """Commit the notes when their field loses the focus."""
        if obj is self.notes and event.type() == QEvent.Type.FocusOut:
            self._commit_metadata()
        return super().eventFilter(obj, event)

    def _show_error(self, name: str, text: str) -> None:
        label = self.errors.get(name)
        widget = self.fields.get(name)
        if label is not None:
            label.setText(text)
            label.setVisible(bool(text))
        if widget is not None:
            widget.setStyleSheet(f"border: 1.5px solid {LIGHT_INK.invalid}; border-radius: 3px;" if text else "")
        if text:
            self.message.emit(f"Refused: {text}")

    def error_text(self, name: str) -> str:
        """The error shown under field ``name``, or "" when it has none."""
        label = self.errors.get(name)
        return label.text() if label is not None and not label.isHidden() else ""
