"""The interviewer console's panels: the candidate's questions with the hidden facts to answer
them, the live rubric checklist, the follow-up buttons, timestamped notes and the score sheet.
Each panel only displays and emits; the console calls the ``InterviewerLink``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QTableWidget, QTableWidgetItem, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from inferboard.practice.scenario import Scenario

from desktop.practice.common import WrappingButton, esc, mmss, pct, wrap_tree, wrapped_label
from desktop.practice.result_pages import readout_text, score_colour
from desktop.theme import LIGHT_INK

ID_ROLE = Qt.ItemDataRole.UserRole
DONE = QColor(LIGHT_INK.good)
PENDING = QColor(LIGHT_INK.caution)
#: The one line in the folded facts' place: it hints at nothing the candidate may not know.
FOLDED_NOTE = "Folded away while the screen is shared. Typed answers still go out."


# ------------------------------------------------------------------------------ questions and facts
class QuestionsPanel(QWidget):
    """Incoming questions (answer a panel question with its facts) and every hidden fact (reveal one
    for a question of the candidate's own); a typed answer goes out as it is written."""

    answer_requested = Signal(str)  # question id
    reveal_requested = Signal(str)  # fact id
    typed_answer = Signal(str)

    def __init__(self, scenario: Scenario, parent: QWidget | None = None):
        super().__init__(parent)
        self.scenario = scenario
        self.inbox = QListWidget(self)
        self.inbox.setObjectName("incoming_questions")
        self.inbox.setAccessibleName("Questions from the candidate")
        self.inbox.setWordWrap(True)
        self.inbox.currentItemChanged.connect(lambda *_: self._update())
        self.inbox.itemActivated.connect(lambda _i: self.answer_current())
        self.answer_button = QPushButton("&Answer with its facts", self)
        self.answer_button.setAccessibleName("Answer the selected question with its facts")
        self.answer_button.clicked.connect(self.answer_current)
        self.facts = QTreeWidget(self)
        self.facts.setObjectName("hidden_facts")
        self.facts.setAccessibleName("Hidden facts")
        self.facts.setHeaderLabels(["Hidden fact", "Area"])
        self.facts.setRootIsDecorated(False)
        wrap_tree(self.facts)
        header = self.facts.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(1, 90)
        self.fact_items: dict[str, QTreeWidgetItem] = {}
        for fact in scenario.facts:
            item = QTreeWidgetItem([fact.text, fact.category])
            item.setData(0, ID_ROLE, fact.id)
            item.setToolTip(0, fact.text)
            self.facts.addTopLevelItem(item)
            self.fact_items[fact.id] = item
        self.facts.itemActivated.connect(lambda item, _c: self.reveal_requested.emit(item.data(0, ID_ROLE)))
        self.reveal_button = QPushButton("Re&veal selected fact", self)
        self.reveal_button.setAccessibleName("Reveal the selected fact to the candidate")
        self.reveal_button.clicked.connect(self._reveal_current)
        self.typed = QLineEdit(self)
        self.typed.setObjectName("typed_answer")
        self.typed.setAccessibleName("Typed answer")
        self.typed.setPlaceholderText("Type an answer and press Enter")
        self.typed.setMaxLength(600)
        self.typed.returnPressed.connect(self._send_typed)
        send = QPushButton("Send", self)
        send.setAccessibleName("Send the typed answer")
        send.clicked.connect(self._send_typed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(QLabel("<b>Questions from the candidate</b>", self))
        layout.addWidget(self.inbox, 2)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.answer_button)
        layout.addLayout(row)
        self.facts_heading = QLabel("<b>Hidden facts</b> — reveal one to answer a question of their own", self)
        self.facts_heading.setObjectName("hidden_facts_heading")
        layout.addWidget(self.facts_heading)
        layout.addWidget(self.facts, 3)
        #: What stands in the facts' place while they are folded away: it names nothing that is hidden.
        self.folded_note = QLabel(FOLDED_NOTE, self)
        self.folded_note.setObjectName("private_folded")
        self.folded_note.setWordWrap(True)
        self.folded_note.setStyleSheet(f"color: {LIGHT_INK.muted}; font-style: italic; padding: 4px 0;")
        layout.addWidget(self.folded_note)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.reveal_button)
        layout.addLayout(row)
        typed_row = QHBoxLayout()
        typed_row.addWidget(self.typed, 1)
        typed_row.addWidget(send)
        layout.addLayout(typed_row)
        self.private_shown = True
        self._update()

    def set_private_shown(self, shown: bool) -> None:
        """Show the hidden facts, their heading and the reveal button, or fold all three away behind
        one neutral line (the questions list then takes the height)."""
        self.private_shown = shown
        for widget in (self.facts_heading, self.facts, self.reveal_button):
            widget.setVisible(shown)
        self.folded_note.setVisible(not shown)
        for row in range(self.inbox.count()):
            item = self.inbox.item(row)
            item.setToolTip(self._reveals_tip(item.data(ID_ROLE)) if shown else "")

    def _reveals_tip(self, question_id: str | None) -> str:
        if not question_id:
            return ""
        reveals = self.scenario.question(question_id).reveals
        return "Answering reveals: " + "; ".join(self.scenario.fact(f).text for f in reveals)

    def add_question(self, t_s: float, question_id: str | None, text: str) -> QListWidgetItem:
        """List a question the candidate asked at ``t_s``; returns its row."""
        own = "" if question_id else " (own words)"
        item = QListWidgetItem(f"{mmss(t_s)}{own}  {text}")
        item.setData(ID_ROLE, question_id)
        item.setForeground(QBrush(PENDING))
        if self.private_shown:
            item.setToolTip(self._reveals_tip(question_id))
        self.inbox.addItem(item)
        self.inbox.setCurrentItem(item)
        return item

    def answer_current(self) -> None:
        """Answer the selected question (one from the panel; own-words questions are answered by hand)."""
        item = self.inbox.currentItem()
        if item is not None and item.data(ID_ROLE):
            self.answer_requested.emit(item.data(ID_ROLE))

    def _reveal_current(self) -> None:
        item = self.facts.currentItem()
        if item is not None:
            self.reveal_requested.emit(item.data(0, ID_ROLE))

    def _send_typed(self) -> None:
        text = self.typed.text().strip()
        if text:
            self.typed.clear()
            self.typed_answer.emit(text)

    def mark_answered(self, question_id: str) -> None:
        """Tick the candidate's question ``question_id`` as answered."""
        for n in range(self.inbox.count()):
            item = self.inbox.item(n)
            if item.data(ID_ROLE) == question_id and not item.text().startswith("✓"):
                item.setText("✓ " + item.text())
                item.setForeground(QBrush(DONE))
        self._update()

    def mark_revealed(self, fact_id: str, t_s: float) -> None:
        """Mark hidden fact ``fact_id`` as revealed at ``t_s``."""
        item = self.fact_items.get(fact_id)
        if item is not None:
            item.setForeground(0, QBrush(DONE))
            item.setText(1, f"✓ {mmss(t_s)}")
            item.setToolTip(1, f"Revealed at {mmss(t_s)}")

    def _update(self) -> None:
        item = self.inbox.currentItem()
        self.answer_button.setEnabled(item is not None and bool(item.data(ID_ROLE))
                                      and not item.text().startswith("✓"))


# ------------------------------------------------------------------------------ rubric checklist
class RubricChecklist(QWidget):
    """The live grade of the candidate's design: each rubric's score and what is costing points,
    the key questions asked or not, and the components still missing against the reference."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = QLabel("Waiting for the candidate's design…", self)
        self.summary.setAccessibleName("Live overall score")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("rubric_checklist")
        self.tree.setAccessibleName("Live rubric checklist")
        self.tree.setHeaderLabels(["Rubric", "Now"])
        wrap_tree(self.tree)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(1, 64)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.grade = None

    def show_grade(self, grade) -> None:
        """Show the live grade per rubric with the rules behind it, keeping expanded rows open."""
        self.grade = grade
        expanded = {self.tree.topLevelItem(n).data(0, ID_ROLE) for n in range(self.tree.topLevelItemCount())
                    if self.tree.topLevelItem(n).isExpanded()}
        self.tree.clear()
        self.summary.setText(f"<b style='color:{score_colour(grade.overall)}'>{esc(grade.grade)}</b> "
                             f"&nbsp;{grade.overall:.0f}% overall right now")
        for line in grade.rubrics:
            top = QTreeWidgetItem([line.title, pct(line.percent)])
            top.setData(0, ID_ROLE, line.rubric)
            top.setForeground(1, QBrush(QColor(score_colour(line.percent))))
            for lost in (p for p in grade.lost if p.rubric == line.rubric):
                child = QTreeWidgetItem([f"{lost.title}: {lost.message}", f"−{lost.points:g}"])
                child.setToolTip(0, lost.explanation[:1200] or lost.message)
                child.setForeground(1, QBrush(QColor(LIGHT_INK.bad)))
                top.addChild(child)
            if grade.clarify is not None and line.rubric == "clarifying":
                top.takeChildren()
                for q in grade.clarify.questions:
                    mark = "✓" if q.asked_phase else "✗"
                    child = QTreeWidgetItem([f"{mark} {q.text}", f"{q.earned:g}/{q.points:g}"])
                    child.setForeground(0, QBrush(DONE if q.credit >= 1 else PENDING if q.credit > 0
                                                  else QColor(LIGHT_INK.bad)))
                    top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded(line.rubric in expanded)
        missing = grade.diff.missing
        if missing:
            top = QTreeWidgetItem(["Missing against the reference", str(sum(missing.values()))])
            top.setData(0, ID_ROLE, "missing")
            for kind, count in missing.items():
                child = QTreeWidgetItem([f"{kind.replace('_', ' ')} × {count}", ""])
                child.setToolTip(0, grade.diff.notes.get(kind, ""))
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded("missing" in expanded)


# ------------------------------------------------------------------------------ follow-ups
class FollowUpsPanel(QWidget):
    """The scenario's follow-ups, each with a Play button and, once played, its what-if."""

    play_requested = Signal(str)

    def __init__(self, scenario: Scenario, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(wrapped_label("Play a follow-up: the candidate reads its prompt, their requirements and "
                                       "readouts change, and the effect on their design appears here.", self))
        self.buttons: dict[str, WrappingButton] = {}
        for follow_up in scenario.follow_ups:
            button = WrappingButton(follow_up.title, self)
            button.setObjectName(f"follow_up:{follow_up.id}")
            button.setAccessibleName(f"Play follow-up: {follow_up.title}")
            button.setToolTip(f"{follow_up.prompt}\n\nLook for: {follow_up.look_for}")
            button.clicked.connect(lambda _c=False, f=follow_up.id: self.play_requested.emit(f))
            layout.addWidget(button)
            self.buttons[follow_up.id] = button
        if not scenario.follow_ups:
            layout.addWidget(QLabel("This scenario has no follow-ups.", self))
        self.effects = QTextBrowser(self)
        self.effects.setAccessibleName("Follow-up effects")
        self.effects.setPlaceholderText("Effects of the follow-ups you play appear here.")
        layout.addWidget(self.effects, 1)
        self.scenario = scenario
        self._html: list[str] = []

    def played(self, follow_up_id: str, t_s: float, what_if: Any | None) -> None:
        """Mark ``follow_up_id`` as played at ``t_s`` and show its what-if."""
        follow_up = self.scenario.follow_up(follow_up_id)
        button = self.buttons.get(follow_up_id)
        if button is not None:
            button.setText(f"✓ {follow_up.title} ({mmss(t_s)})")
        if what_if is None:
            effect = "<i>No design yet: nothing to run it on.</i>"
        else:
            effect = (f"Before: {esc(readout_text(what_if.before.to_dict()))}<br>After: "
                      f"{esc(readout_text(what_if.after.to_dict()))}<br><b>{esc(what_if.verdict)}</b>")
        self._html.insert(0, f"<p><b>{mmss(t_s)} · {esc(follow_up.title)}</b><br>{effect}<br>"
                             f"<span style='color:{LIGHT_INK.muted}'>Look for: {esc(follow_up.look_for)}</span></p>")
        self.effects.setHtml("".join(self._html))


# ------------------------------------------------------------------------------ notes
class NotesPanel(QWidget):
    """The interviewer's timed notes and the field to add one."""

    note_added = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setObjectName("notes")
        self.list.setAccessibleName("Notes")
        self.list.setWordWrap(True)
        self.entry = QLineEdit(self)
        self.entry.setObjectName("note_entry")
        self.entry.setAccessibleName("New note")
        self.entry.setPlaceholderText("Write a note and press Enter (it is stamped with the time)")
        self.entry.setMaxLength(4000)
        self.entry.returnPressed.connect(self._add)
        add = QPushButton("A&dd note", self)
        add.clicked.connect(self._add)
        row = QHBoxLayout()
        row.addWidget(self.entry, 1)
        row.addWidget(add)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)

    def _add(self) -> None:
        text = self.entry.text().strip()
        if text:
            self.entry.clear()
            self.note_added.emit(text)

    def show_note(self, t_s: float, text: str) -> None:
        """List a note taken at ``t_s``."""
        self.list.addItem(f"{mmss(t_s)}  {text}")
        self.list.scrollToBottom()

    def notes(self) -> list[str]:
        """The notes as listed."""
        return [self.list.item(n).text() for n in range(self.list.count())]


# ------------------------------------------------------------------------------ score sheet
class ScoreSheet(QWidget):
    """One row per rubric: the automatic score as a suggestion, the interviewer's score, a comment."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("score_sheet")
        self.table.setAccessibleName("Score sheet")
        self.table.setHorizontalHeaderLabels(["Rubric", "Suggested", "Your score", "Comment"])
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 150), (1, 72), (2, 74)):
            self.table.setColumnWidth(column, width)
        self.use_button = QPushButton("Use the su&ggestions", self)
        self.use_button.setAccessibleName("Copy the automatic scores into the score sheet")
        self.use_button.clicked.connect(self.use_suggestions)
        self.total = QLabel("", self)
        self.total.setAccessibleName("Interviewer's overall score")
        self.table.itemChanged.connect(lambda _i: self._update_total())
        row = QHBoxLayout()
        row.addWidget(self.total, 1)
        row.addWidget(self.use_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(wrapped_label("Type your own score (0–100) per rubric; the automatic score is only a "
                                       "suggestion.", self))
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        self.rubrics: list[tuple[str, str, float]] = []  # (id, title, weight)
        self.suggested: dict[str, float | None] = {}

    def show_suggestions(self, grade) -> None:
        """Show the grade's per-rubric scores as suggestions beside the interviewer's own."""
        self.table.blockSignals(True)
        known = [r for r, _, _ in self.rubrics]
        for line in grade.rubrics:
            self.suggested[line.rubric] = line.percent
            if line.rubric not in known:
                row = self.table.rowCount()
                self.table.insertRow(row)
                title = QTableWidgetItem(line.title)
                title.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(row, 0, title)
                self.table.setItem(row, 2, QTableWidgetItem(""))
                self.table.setItem(row, 3, QTableWidgetItem(""))
                self.rubrics.append((line.rubric, line.title, line.weight))
                known.append(line.rubric)
            row = known.index(line.rubric)
            item = QTableWidgetItem(pct(line.percent))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setForeground(QBrush(QColor(score_colour(line.percent))))
            self.table.setItem(row, 1, item)
        self.table.blockSignals(False)
        self._update_total()

    def restore(self, rows: list[dict[str, Any]]) -> None:
        """Show a score sheet saved before (``rows()`` as stored), e.g. after the app restarted."""
        self.table.blockSignals(True)
        for saved in rows:
            if saved["rubric"] not in [r for r, _, _ in self.rubrics]:
                row = self.table.rowCount()
                self.table.insertRow(row)
                title = QTableWidgetItem(saved["title"])
                title.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(row, 0, title)
                self.table.setItem(row, 1, QTableWidgetItem(pct(saved.get("suggested"))))
                self.table.item(row, 1).setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.rubrics.append((saved["rubric"], saved["title"], float(saved["weight"])))
                self.suggested[saved["rubric"]] = saved.get("suggested")
            row = [r for r, _, _ in self.rubrics].index(saved["rubric"])
            given = saved.get("given")
            self.table.setItem(row, 2, QTableWidgetItem("" if given is None else f"{given:g}"))
            self.table.setItem(row, 3, QTableWidgetItem(saved.get("comment") or ""))
        self.table.blockSignals(False)
        self._update_total()

    def use_suggestions(self) -> None:
        """Fill every empty score with its suggestion."""
        for row, (rubric, _title, _w) in enumerate(self.rubrics):
            value = self.suggested.get(rubric)
            if value is not None and not self.table.item(row, 2).text().strip():
                self.table.item(row, 2).setText(f"{value:.0f}")

    def set_score(self, rubric: str, score: float, comment: str = "") -> None:
        """Give ``rubric`` a score (and a comment)."""
        row = [r for r, _, _ in self.rubrics].index(rubric)
        self.table.item(row, 2).setText(f"{score:g}")
        if comment:
            self.table.item(row, 3).setText(comment)

    def given(self, row: int) -> float | None:
        """The score typed in ``row``, or None when empty or not a number."""
        try:
            value = float(self.table.item(row, 2).text().strip().rstrip("%"))
        except (AttributeError, ValueError):
            return None
        return max(0.0, min(100.0, value))

    def rows(self) -> list[dict[str, Any]]:
        """Every rubric's row: title, weight, suggestion, score given and comment."""
        return [{"rubric": rubric, "title": title, "weight": weight, "suggested": self.suggested.get(rubric),
                 "given": self.given(row), "comment": self.table.item(row, 3).text().strip()}
                for row, (rubric, title, weight) in enumerate(self.rubrics)]

    def overall(self) -> float | None:
        """The weighted mean of the scores given, or None when none is."""
        scored = [(r["weight"], r["given"]) for r in self.rows() if r["given"] is not None and r["weight"] > 0]
        total = sum(w for w, _ in scored)
        return None if not total else sum(w * g for w, g in scored) / total

    def _update_total(self) -> None:
        overall = self.overall()
        self.total.setText("No scores given yet." if overall is None else f"Your overall score: <b>{overall:.0f}%</b>")
