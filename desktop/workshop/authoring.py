"""New Scenario from This Design: a form for everything a scenario holds, checked as the user types
with the same schema as the YAML files (each message names its field, the widget it is about is
marked), saved into the user's library or exported as a pack zip to hand out.

The design open when the form is opened becomes the reference design, and its requirements the
scenario's ground truth. A follow-up's fault is picked by kind and aimed at the component selected
on the canvas (as a selector, so it hits the same kind of component in any candidate's design)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton, QScrollArea,
                               QSizePolicy, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from inferboard.errors import Problem
from inferboard.model import Design
from inferboard.model.faults import FAULT_KINDS, fault_targets
from inferboard.practice import authoring
from inferboard.practice.library import ScenarioLibrary
from inferboard.practice.scenario import PHASE_TITLES

from desktop.editor.requirements_editor import FIELDS as REQUIREMENT_FIELDS
from desktop.practice.common import fresh_design
from desktop.practice.common import open_library
from desktop.theme import LIGHT_INK
from desktop.window_placement import fit_window
from desktop.workshop.authoring_rows import CHECK, COMBO, LIST, NUMBER, TEXT, Column, ItemFrame, RowList

CATEGORIES = ("workload", "latency", "traffic", "budget", "compliance", "accuracy", "operations", "reliability")
INVALID_STYLE = f"*[invalid=\"true\"] {{ border: 2px solid {LIGHT_INK.invalid}; }}"
FIELD_ROLE = Qt.ItemDataRole.UserRole


def _choices(values) -> tuple:
    return tuple((v, v.replace("_", " ")) for v in values)


FACT_COLUMNS = [
    Column("id", "Id", placeholder="e.g. volume"),
    Column("category", "Category", COMBO, _choices(CATEGORIES)),
    Column("sets", "Sets requirements", LIST, placeholder="mean_rps, peak_rps",
           tip="Requirement fields this fact pins down, separated by commas"),
    Column("text", "What the interviewer says", TEXT, wide=True, placeholder="Said only when asked"),
]
QUESTION_COLUMNS = [
    Column("id", "Id", placeholder="e.g. volume"),
    Column("category", "Category", COMBO, _choices(CATEGORIES)),
    Column("reveals", "Reveals facts", LIST, placeholder="fact ids, separated by commas"),
    Column("key", "Key question", CHECK, tip="Scored: earns its points when asked early"),
    Column("points", "Weight (points)", NUMBER, (0.0, 10.0, 0.5)),
    Column("text", "Question", TEXT, wide=True, placeholder="As the candidate's panel shows it"),
]
PHASE_COLUMNS = [
    Column("name", "Phase", COMBO, tuple(PHASE_TITLES.items())),
    Column("minutes", "Minutes", NUMBER, (0.0, 120.0, 1.0)),
    Column("goal", "Goal shown when the phase starts", TEXT, wide=True),
    Column("nudge", "Nudge near the end", TEXT, wide=True),
]
FOLLOW_UP_COLUMNS = [
    Column("id", "Id", placeholder="e.g. region-down"),
    Column("title", "Title"),
    Column("phase", "Played during", COMBO, tuple(PHASE_TITLES.items())),
    Column("prompt", "What the interviewer says", TEXT, wide=True),
    Column("faults", "Faults", LIST, wide=True, separator=";",
           placeholder="KIND[*MAGNITUDE]:TARGET; ... (or pick one below)"),
    Column("requirement_changes", "Requirement changes", wide=True,
           placeholder="field=value, e.g. peak_rps=9000, accuracy_target_pct=98.5"),
    Column("look_for", "A strong answer covers (interviewer only)", TEXT, wide=True),
]


def fault_target(design: Design, node_id: str) -> str:
    """A selector for ``node_id`` that works on any design: its kind and, where it sits in a region
    with a location, that location."""
    node = design.nodes[node_id]
    if node.kind == "region":
        location = node.params.get("location")
        return f"kind=region,location={location}" if location else "kind=region"
    parts = [f"kind={node.kind}"]
    region = design.nodes.get(node.region) if node.region else None
    if region is not None and region.params.get("location"):
        parts.append(f"location={region.params['location']}")
    return ",".join(parts)


def requirement_words(name: str, value) -> str:
    """One requirement as the Requirements panel names it: "p99 latency SLO 250 ms"."""
    label, unit, _help = REQUIREMENT_FIELDS.get(name, (name.replace("_", " "), "", ""))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    if unit.startswith("$"):
        return f"{label} ${value}{unit[1:]}"
    return f"{label} {value}" + (f" {unit}" if unit and unit != "%" else unit)


class ScenarioAuthoringDialog(QDialog):
    """``design`` becomes the reference; ``selection`` gives the canvas's selected node ids."""

    saved = Signal(str)

    def __init__(self, design: Design, library: ScenarioLibrary, selection: Callable[[], list[str]] = list,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New scenario from this design")
        self.setObjectName("scenario_authoring")
        self.setStyleSheet(INVALID_STYLE)
        self.reference = fresh_design(design)
        self.library = library
        self.selection = selection
        self.rubric_choices = sorted(library.rubric_names() or authoring.known_rubrics() or ["requirements"])
        self.saved_id: str | None = None
        self.check: authoring.DraftCheck | None = None
        self.problems: list[Problem] = []
        self._id_follows_title = True
        self._marked: list[QWidget] = []
        self._building = True
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Scenario sections")
        self._build_general()
        self._build_lists()
        self._build_side()
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.tabs)
        splitter.addWidget(self.side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.fill(authoring.new_draft(self.reference))
        self._building = False
        self.validate()
        fit_window(self, 1400, 900)

    # ------------------------------------------------------------------ building
    def _page(self, title: str, inner: QWidget) -> None:
        scroll = QScrollArea(self.tabs)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        self.tabs.addTab(scroll, title)

    def _build_general(self) -> None:
        page = QWidget(self)
        form = QFormLayout(page)
        self.title_edit = QLineEdit(page)
        self.id_edit = QLineEdit(page)
        self.id_edit.setPlaceholderText("made from the title")
        self.id_edit.textEdited.connect(self._id_typed)
        self.difficulty = QComboBox(page)
        for value in ("easy", "medium", "hard"):
            self.difficulty.addItem(value.capitalize(), value)
        self.summary = QLineEdit(page)
        self.tags = QLineEdit(page)
        self.tags.setPlaceholderText("topics, separated by commas")
        self.prompt = QPlainTextEdit(page)
        self.prompt.setTabChangesFocus(True)
        self.prompt.setPlaceholderText("What the candidate reads first (the hidden facts stay hidden)")
        self.requirements_label = QLabel("", page)
        self.requirements_label.setWordWrap(True)
        self.requirements_label.setAccessibleName("Requirements from the design")
        self.clarify_weight = QDoubleSpinBox(page)
        self.clarify_weight.setRange(0, 100)
        self.clarify_weight.setSingleStep(0.5)
        self.notes = QPlainTextEdit(page)
        self.notes.setTabChangesFocus(True)
        self.notes.setPlaceholderText("What the reference design does and why (shown after the round)")
        self.script = QPlainTextEdit(page)
        self.script.setTabChangesFocus(True)
        self.script.setPlaceholderText("Interviewer only: how to run the round")
        for label, widget, name in (("&Title", self.title_edit, "title"), ("&Id", self.id_edit, "id"),
                                    ("&Difficulty", self.difficulty, "difficulty"), ("&Summary", self.summary, "summary"),
                                    ("Ta&gs", self.tags, "tags"), ("&Prompt", self.prompt, "prompt"),
                                    ("Requirements", self.requirements_label, "requirements"),
                                    ("&Clarifying weight", self.clarify_weight, "clarify_weight"),
                                    ("Reference &notes", self.notes, "reference.notes"),
                                    ("Interviewer s&cript", self.script, "interviewer_script")):
            widget.setAccessibleName(label.replace("&", ""))
            form.addRow(label, widget)
        self.general_fields = {"title": self.title_edit, "id": self.id_edit, "difficulty": self.difficulty,
                               "summary": self.summary, "tags": self.tags, "prompt": self.prompt,
                               "requirements": self.requirements_label, "clarify_weight": self.clarify_weight,
                               "reference": self.notes, "reference.notes": self.notes,
                               "interviewer_script": self.script}
        for widget in (self.title_edit, self.summary, self.tags):
            widget.textChanged.connect(self._edited)
        self.title_edit.textChanged.connect(self._title_changed)
        self.id_edit.textChanged.connect(self._edited)
        self.difficulty.currentIndexChanged.connect(self._edited)
        self.clarify_weight.valueChanged.connect(self._edited)
        for widget in (self.prompt, self.notes, self.script):
            widget.textChanged.connect(self._edited)
        self._page("Scenario", page)

    def _build_lists(self) -> None:
        self.facts = RowList("facts", "fact", FACT_COLUMNS, self, {"category": "workload"})
        self.questions = RowList("questions", "question", QUESTION_COLUMNS, self,
                                 {"category": "workload", "key": True, "points": 1.0})
        both = QWidget(self)
        column = QVBoxLayout(both)
        column.addWidget(QLabel("<b>Hidden facts</b>: what the interviewer knows and says only when asked.", both))
        column.addWidget(self.facts)
        column.addWidget(QLabel("<b>Clarifying questions</b>: each reveals facts; a key question earns its points "
                                "when asked early.", both))
        column.addWidget(self.questions)
        column.addStretch(1)
        self._page("Facts and questions", both)
        self.phases = RowList("phases", "phase", PHASE_COLUMNS, self, {"minutes": 10.0})
        rubric_columns = [Column("rubric", "Rubric", COMBO, _choices(self.rubric_choices)),
                          Column("weight", "Weight", NUMBER, (0.0, 100.0, 0.5))]
        self.rubrics = RowList("rubrics", "rubric", rubric_columns, self, {"weight": 1.0})
        timing = QWidget(self)
        column = QVBoxLayout(timing)
        column.addWidget(QLabel("<b>Phases</b>, in interview order (the first is always Clarify).", timing))
        column.addWidget(self.phases)
        column.addWidget(QLabel("<b>Rubrics</b> scored and their weights in the overall score.", timing))
        column.addWidget(self.rubrics)
        column.addStretch(1)
        self._page("Phases and rubrics", timing)
        self.follow_ups = RowList("follow_ups", "follow-up", FOLLOW_UP_COLUMNS, self, {"phase": "tradeoffs"},
                                  decorate=self._add_fault_picker)
        twists = QWidget(self)
        column = QVBoxLayout(twists)
        column.addWidget(QLabel("<b>Follow-ups</b>: twists the interviewer plays mid-round, a fault, a requirement "
                                "change or both. Select a component on the canvas to aim a fault at it.", twists))
        column.addWidget(self.follow_ups)
        column.addStretch(1)
        self._page("Follow-ups", twists)
        self.lists = (self.facts, self.questions, self.phases, self.rubrics, self.follow_ups)
        for rows in self.lists:
            rows.changed.connect(self._edited)

    def _add_fault_picker(self, _index: int, item: ItemFrame) -> None:
        row = QHBoxLayout()
        kind = QComboBox(item.frame)
        kind.setAccessibleName("Fault kind")
        for name, spec in FAULT_KINDS.items():
            kind.addItem(spec.title, name)
        magnitude = QLineEdit(item.frame)
        magnitude.setAccessibleName("Fault magnitude")
        magnitude.setPlaceholderText("magnitude (default)")
        magnitude.setMaximumWidth(160)
        on_selected = QPushButton("Add fault on the selected component", item.frame)
        everywhere = QPushButton("Add fault everywhere (*)", item.frame)
        status = QLabel("", item.frame)
        status.setWordWrap(True)
        status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        on_selected.clicked.connect(lambda: self.add_fault(item, kind.currentData(), magnitude.text(), status, True))
        everywhere.clicked.connect(lambda: self.add_fault(item, kind.currentData(), magnitude.text(), status, False))
        for widget in (QLabel("Pick a fault:", item.frame), kind, magnitude, on_selected, everywhere):
            row.addWidget(widget)
        row.addWidget(status, 1)
        item.widgets["_fault_kind"] = kind
        item.widgets["_magnitude"] = magnitude
        item.widgets["_on_selected"] = on_selected
        item.widgets["_everywhere"] = everywhere
        item.widgets["_fault_status"] = status
        grid = item.frame.layout()
        grid.addLayout(row, grid.rowCount(), 0, 1, grid.columnCount())

    def _build_side(self) -> None:
        self.side = QWidget(self)
        self.status = QLabel("", self.side)
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Scenario check")
        self.messages = QListWidget(self.side)
        self.messages.setAccessibleName("Problems")
        self.messages.setWordWrap(True)
        self.messages.itemActivated.connect(self._go_to)
        self.messages.itemClicked.connect(self._go_to)
        self.save_button = QPushButton("&Save to My Scenarios", self.side)
        self.save_button.clicked.connect(self.save)
        self.export_button = QPushButton("&Export Pack…", self.side)
        self.export_button.clicked.connect(lambda: self.export())
        close = QPushButton("Close", self.side)
        close.clicked.connect(self.reject)
        self.result = QLabel("", self.side)
        self.result.setWordWrap(True)
        self.result.setAccessibleName("Saved or exported")
        column = QVBoxLayout(self.side)
        column.addWidget(self.status)
        column.addWidget(self.messages, 1)
        column.addWidget(self.result)
        for button in (self.save_button, self.export_button, close):
            column.addWidget(button)

    # ------------------------------------------------------------------ values
    def fill(self, draft: dict) -> None:
        """Fill every field from ``draft`` (a scenario as plain data) without validating on each change."""
        self._building = True
        self.title_edit.setText(draft.get("title", ""))
        self.id_edit.setText(draft.get("id", ""))
        self.difficulty.setCurrentIndex(max(0, self.difficulty.findData(draft.get("difficulty", "medium"))))
        self.summary.setText(draft.get("summary", ""))
        self.tags.setText(", ".join(draft.get("tags", [])))
        self.prompt.setPlainText(draft.get("prompt", ""))
        self.clarify_weight.setValue(float(draft.get("clarify_weight", 1.0)))
        self.notes.setPlainText(draft.get("reference", {}).get("notes", ""))
        self.script.setPlainText(draft.get("interviewer_script", ""))
        self.facts.set_values(draft.get("facts", []))
        self.questions.set_values(draft.get("questions", []))
        self.phases.set_values(draft.get("phases", []))
        self.rubrics.set_values(draft.get("rubrics", []))
        self.follow_ups.set_values([{**f, "requirement_changes": authoring.requirement_changes_text(
            f.get("requirement_changes", {}))} for f in draft.get("follow_ups", [])])
        self._id_follows_title = not draft.get("id")
        self._building = False
        self.requirements_label.setText(self._requirements_text())
        self.validate()

    def _requirements_text(self) -> str:
        declared = {k: v for k, v in self.reference.requirements.model_dump().items() if v not in (None, [], "")}
        shown = ", ".join(requirement_words(k, v) for k, v in declared.items())
        return (f"Taken from the design (its Requirements panel): {shown}. The hidden facts should tell the same "
                "story; follow-ups change them.")

    def draft(self) -> tuple[dict, list[Problem]]:
        """The form as a scenario draft, and the problems of fields the schema cannot read."""
        problems: list[Problem] = []
        follow_ups = []
        for n, values in enumerate(self.follow_ups.values()):
            changes, bad = authoring.parse_requirement_changes(values["requirement_changes"])
            problems += [Problem("", f"follow_ups.{n}.requirement_changes", message) for message in bad]
            follow_ups.append({**values, "requirement_changes": changes})
        draft = {
            "id": self.id_edit.text().strip(), "title": self.title_edit.text().strip(),
            "difficulty": self.difficulty.currentData(), "summary": self.summary.text().strip(),
            "tags": [t.strip() for t in self.tags.text().split(",") if t.strip()],
            "prompt": self.prompt.toPlainText().strip(),
            "requirements": self.reference.requirements.model_dump(mode="json"),
            "facts": self.facts.values(), "questions": self.questions.values(), "phases": self.phases.values(),
            "rubrics": self.rubrics.values(), "clarify_weight": round(self.clarify_weight.value(), 4),
            "follow_ups": follow_ups,
            "reference": {"file": authoring.REFERENCE_FILE, "notes": self.notes.toPlainText().strip(),
                          "components": {}},
            "interviewer_script": self.script.toPlainText().strip(),
        }
        return draft, problems

    # ------------------------------------------------------------------ checking
    def _title_changed(self, text: str) -> None:
        if self._id_follows_title:
            self.id_edit.setText(authoring.slug(text) if text.strip() else "")

    def _id_typed(self, _text: str) -> None:
        self._id_follows_title = False

    def _edited(self, *_args) -> None:
        if not self._building:
            self.validate()

    def validate(self) -> bool:
        """Check the draft, mark the fields at fault and list the problems; True when it would save."""
        draft, problems = self.draft()
        check = authoring.check_draft(draft, set(self.rubric_choices),
                                      authoring.taken_ids(self.library, own=self.saved_id))
        self.check = check
        self.problems = problems + check.problems
        ok = check.ok and not problems
        self.messages.clear()
        for problem in self.problems:
            item = QListWidgetItem(authoring.plain_problem(problem))
            item.setData(FIELD_ROLE, problem.field)
            item.setToolTip("Click to go to the field")
            self.messages.addItem(item)
        count = len(self.problems)
        self.status.setText("<b>Ready to save and export.</b> The scenario passes the same checks as the shipped "
                            "scenario files." if ok else
                            f"<b>{count} problem{'s' if count != 1 else ''}</b> to fix before saving (click one to "
                            "go to its field):")
        self.save_button.setEnabled(ok)
        self.export_button.setEnabled(ok)
        self._mark(self.problems)
        return ok

    def field_widgets(self) -> dict[str, QWidget]:
        """Every input widget by field path ("title", "questions.0.text", ...)."""
        out = dict(self.general_fields)
        for rows in self.lists:
            out.update(rows.field_widgets())
        return out

    def widget_for(self, field: str) -> QWidget | None:
        """The widget a problem's field is about: the longest registered prefix of its path."""
        widgets = self.field_widgets()
        parts = field.split(".")
        for end in range(len(parts), 0, -1):
            widget = widgets.get(".".join(parts[:end]))
            if widget is not None:
                return widget
        return None

    def _mark(self, problems: list[Problem]) -> None:
        for widget in self._marked:
            widget.setProperty("invalid", False)
            widget.setToolTip("")
            widget.style().unpolish(widget)
            widget.style().polish(widget)
        self._marked = []
        for problem in problems:
            widget = self.widget_for(problem.field)
            if widget is None or widget in self._marked:
                continue
            widget.setProperty("invalid", True)
            widget.setToolTip(problem.message)
            widget.style().unpolish(widget)
            widget.style().polish(widget)
            self._marked.append(widget)

    def _go_to(self, item: QListWidgetItem) -> None:
        widget = self.widget_for(item.data(FIELD_ROLE) or "")
        if widget is None:
            return
        for index in range(self.tabs.count()):
            scroll = self.tabs.widget(index)
            if scroll.isAncestorOf(widget):
                self.tabs.setCurrentIndex(index)
                scroll.ensureWidgetVisible(widget)
                break
        widget.setFocus()

    # ------------------------------------------------------------------ faults from the canvas
    def add_fault(self, item: ItemFrame, kind: str, magnitude: str, status: QLabel, on_selected: bool) -> str | None:
        """Add a fault of ``kind`` to a follow-up, on the selected components or everywhere; returns the problem, or
        None."""
        if on_selected:
            selected = [n for n in self.selection() if n in self.reference.nodes]
            if not selected:
                status.setText("Select a component on the canvas first.")
                return None
            hits = {node_id for node_id, _name in fault_targets(self.reference, kind)}
            if selected[0] not in hits:
                status.setText(f"A {FAULT_KINDS[kind].title.lower()} cannot hit {selected[0]}: it needs "
                               f"{FAULT_KINDS[kind].target}.")
                return None
            target = fault_target(self.reference, selected[0])
        elif not FAULT_KINDS[kind].everywhere:
            status.setText(f"A {FAULT_KINDS[kind].title.lower()} needs a target: {FAULT_KINDS[kind].target}.")
            return None
        else:
            target = "*"
        text = kind + (f"*{magnitude.strip()}" if magnitude.strip() else "") + f":{target}"
        faults = item.widgets["faults"]
        current = [part.strip() for part in faults.text().split(";") if part.strip()]
        faults.setText("; ".join([*current, text]))
        status.setText("Added to Faults.")
        status.setToolTip(text)
        return text

    # ------------------------------------------------------------------ saving
    def save(self) -> Path | None:
        """Validate and save the scenario into the user's pack; returns its file, or None."""
        if not self.validate():
            return None
        try:
            folder = authoring.save_to_library(self.library, self.check.scenario, self.reference)
        except (OSError, authoring.packzip.PackError) as error:
            self.result.setText(f"Not saved: {error}")
            return None
        self.saved_id = self.check.scenario.id
        problems = [p for p in self.library.problems if self.saved_id in p]
        self.result.setText(f"Saved to My scenarios as '{self.saved_id}'. Practice > Practise a Scenario lists it."
                            + (f" The library reports: {problems[0]}" if problems else ""))
        self.saved.emit(self.saved_id)
        self.validate()
        return folder

    def export(self, path: str | Path | None = None) -> Path | None:
        """Validate and export the scenario as a one-scenario pack zip; returns the zip, or None."""
        if not self.validate():
            return None
        scenario = self.check.scenario
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export scenario pack", str(Path.home() / f"{scenario.id}.zip"),
                                                  "Scenario pack (*.zip)")
            if not path:
                return None
            if not path.lower().endswith(".zip"):
                path += ".zip"
        try:
            out = authoring.export_pack(Path(path), scenario, self.reference)
        except (OSError, authoring.packzip.PackError) as error:
            self.result.setText(f"Not exported: {error}")
            return None
        self.result.setText(f"Exported {Path(out).name}: on another machine, Practice > Practise a Scenario > Import pack reads it.")
        return out


def open_authoring(window) -> ScenarioAuthoringDialog:
    """Open the form beside the main window (not modal: the canvas stays usable for picking targets)."""
    dialog = ScenarioAuthoringDialog(window.document.design, open_library(window.data_dir),
                                     window.scene.selected_node_ids, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window._authoring_dialog = dialog
    dialog.show()
    return dialog
