"""Choosing a drill for the open design: the library with, for each drill, whether its cause can
be planted on this design and the reason when not. "Surprise me" picks one that can run without
saying which (the cause stays hidden, as on call)."""

from __future__ import annotations

import random

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSpinBox,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from inferboard.drills.library import applicable, load_drills
from inferboard.drills.schema import Drill
from inferboard.model.design import Design

from desktop.drills.widgets import read_only_table
from desktop.practice.common import esc
from desktop.theme import DARK_INK, LIGHT_INK
from desktop.window_placement import fit_window

ID_ROLE = Qt.ItemDataRole.UserRole


class DrillPicker(QDialog):
    """``chosen`` (a Drill) and ``seed`` once accepted; ``surprise`` when picked at random."""

    def __init__(self, design: Design, parent: QWidget | None = None, interviewer: bool = False,
                 drills: dict[str, Drill] | None = None, rng: random.Random | None = None):
        super().__init__(parent)
        self.setObjectName("drill_picker")
        self.setWindowTitle("Plant an incident — Inferboard" if interviewer else "Incident drill — Inferboard")
        self.design = design
        self.drills = drills if drills is not None else load_drills()
        self.problems = {drill_id: applicable(drill, design) for drill_id, drill in self.drills.items()}
        self.rng = rng or random.Random()
        self.chosen: Drill | None = None
        self.surprise = False
        title = design.metadata.get("title", "") or "the open design"
        runnable = sum(1 for p in self.problems.values() if not p)
        intro = QLabel(f"<b>{esc(title)}</b>: {runnable} of {len(self.drills)} drills can be planted on it. "
                       + ("Pick the cause the candidate will face; only you will see it."
                          if interviewer else "Pick one, or let the cause stay a surprise."), self)
        intro.setWordWrap(True)
        self.table = read_only_table(self, "drills", "Drills", ["Drill", "Kind", "Difficulty", "On this design"], 0,
                                     {1: 70, 2: 80}, rows=len(self.drills), select_rows=True)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        order = sorted(self.drills.values(), key=lambda d: (bool(self.problems[d.id]), d.title))
        for row, drill in enumerate(order):
            problems = self.problems[drill.id]
            cells = [drill.title, drill.kind, drill.difficulty, "; ".join(problems) if problems else "can be planted"]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, drill.id)
                item.setToolTip(text)
                if problems:
                    item.setForeground(QBrush(QColor(DARK_INK.muted if column < 3 else LIGHT_INK.caution)))
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda _item: self.accept_selected())
        self.summary = QLabel(self)
        self.summary.setObjectName("drill_summary")
        self.summary.setWordWrap(True)
        self.summary.setMinimumHeight(60)
        self.seed = QSpinBox(self)
        self.seed.setAccessibleName("Seed")
        self.seed.setRange(0, 9999)
        self.seed.setToolTip("The same drill, design and seed always play the same incident")
        self.surprise_button = QPushButton("&Surprise me", self)
        self.surprise_button.setObjectName("surprise")
        self.surprise_button.setToolTip("A drill that can run on this design, picked at random; its cause stays hidden")
        self.surprise_button.clicked.connect(self.pick_surprise)
        self.surprise_button.setEnabled(runnable > 0)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.start_button = self.buttons.addButton("Plant and start" if interviewer else "&Start drill",
                                                   QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setObjectName("start_drill")
        self.buttons.accepted.connect(self.accept_selected)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("Seed:", self))
        row.addWidget(self.seed)
        row.addStretch(1)
        row.addWidget(self.surprise_button)
        row.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addLayout(row)
        fit_window(self, 900, 560)
        first = next((r for r in range(self.table.rowCount()) if not self.problems[self._id(r)]), None)
        if first is not None:
            self.table.selectRow(first)
        self._selected()

    def _id(self, row: int) -> str:
        return self.table.item(row, 0).data(ID_ROLE)

    def selected_id(self) -> str | None:
        """The selected drill's id, or None."""
        items = self.table.selectedItems()
        return items[0].data(ID_ROLE) if items else None

    def select(self, drill_id: str) -> None:
        """Select drill ``drill_id``."""
        for row in range(self.table.rowCount()):
            if self._id(row) == drill_id:
                self.table.selectRow(row)
                return
        raise KeyError(drill_id)

    def _selected(self) -> None:
        drill_id = self.selected_id()
        if drill_id is None:
            self.summary.setText("")
            self.start_button.setEnabled(False)
            return
        drill = self.drills[drill_id]
        problems = self.problems[drill_id]
        text = f"<b>{esc(drill.title)}</b><br>{esc(drill.summary)}"
        if problems:
            text += f"<br><span style='color:{LIGHT_INK.caution}'>Cannot be planted here: {esc('; '.join(problems))}.</span>"
        self.summary.setText(text)
        self.start_button.setEnabled(not problems)

    def accept_selected(self) -> None:
        """Start the selected drill, unless it cannot be planted on this design."""
        drill_id = self.selected_id()
        if drill_id is None or self.problems[drill_id]:
            return
        self.chosen, self.surprise = self.drills[drill_id], False
        self.accept()

    def pick_surprise(self) -> None:
        """Start a drill picked at random among those that can be planted."""
        runnable = sorted(d for d, p in self.problems.items() if not p)
        if not runnable:
            return
        self.chosen, self.surprise = self.drills[self.rng.choice(runnable)], True
        self.accept()


def choose_drill(design: Design, parent: QWidget | None = None, interviewer: bool = False):
    """Show the picker; (drill, seed, surprise) or None when cancelled."""
    dialog = DrillPicker(design, parent, interviewer)
    if dialog.exec() != QDialog.DialogCode.Accepted or dialog.chosen is None:
        return None
    return dialog.chosen, dialog.seed.value(), dialog.surprise
