"""The console's Plan tab: follow-ups to play by themselves at chosen minutes (timed injects). The
plan starts as the scenario's, can be changed before and during the round (minute, follow-up,
remove, add), and each entry is played when the round's clock reaches it: the candidate gets the
follow-up's notice as when it is played by hand, the session and the replay record it, and a note
says it was planned. Interviewer only: folded away with the rest while the candidate can see."""

from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QVBoxLayout, QWidget)

from inferboard.practice.injects import MAX_MINUTE, Inject, InjectPlan

from desktop.practice.common import mmss, wrapped_label

COLUMNS = ("Minute", "Follow-up", "State", "")


class InjectPanel(QWidget):
    """Shows and edits an ``InjectPlan``; ``console`` plays what is due (see ``poll``)."""

    def __init__(self, console, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("inject_plan")
        self.setAccessibleName("Planned follow-ups")
        self.console = console
        self.scenario = console.scenario
        self.plan = InjectPlan.of_scenario(self.scenario)
        intro = wrapped_label("Follow-ups played by themselves when the round's clock reaches their minute: the "
                              "candidate gets the notice, the replay records it. Change the plan at any time; one "
                              "you already played by hand is not played again.", self)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setAccessibleName("Planned follow-ups")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setTabKeyNavigation(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.add_button = QPushButton("&Add planned follow-up", self)
        self.add_button.setEnabled(bool(self.scenario.follow_ups))
        self.add_button.clicked.connect(self.add_entry)
        self.next_label = QLabel("", self)
        self.next_label.setAccessibleName("Next planned follow-up")
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.next_label, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        self.refresh()

    # ------------------------------------------------------------------ showing
    def refresh(self) -> None:
        """List the planned injects with their minute and state."""
        self.table.setRowCount(0)
        for row, entry in enumerate(self.plan.entries):
            self.table.insertRow(row)
            for column, widget in enumerate(self._row_widgets(entry, row)):
                self.table.setCellWidget(row, column, widget)
        self.table.resizeRowsToContents()
        upcoming = self.plan.next_entry()
        self.next_label.setText(f"Next: minute {upcoming.minute:g}, {self._title(upcoming.follow_up)}"
                                if upcoming is not None else "Nothing more planned.")

    def _row_widgets(self, entry: Inject, row: int) -> tuple[QWidget, ...]:
        minute = QDoubleSpinBox(self.table)
        minute.setRange(0.0, MAX_MINUTE)
        minute.setDecimals(1)
        minute.setSuffix(" min")
        minute.setValue(entry.minute)
        minute.setAccessibleName(f"Planned follow-up {row + 1} minute")
        minute.editingFinished.connect(lambda e=entry, w=minute: self._change(e, minute=w.value()))
        choice = QComboBox(self.table)
        choice.setAccessibleName(f"Planned follow-up {row + 1}")
        for follow_up in self.scenario.follow_ups:
            choice.addItem(follow_up.title, follow_up.id)
        choice.setCurrentIndex(max(0, choice.findData(entry.follow_up)))
        choice.activated.connect(lambda _i, e=entry, w=choice: self._change(e, follow_up=w.currentData()))
        state = QLabel(self._state(entry), self.table)
        remove = QPushButton("Remove", self.table)
        remove.setAccessibleName(f"Remove planned follow-up {row + 1}")
        remove.clicked.connect(lambda _c=False, e=entry: self.remove_entry(e))
        for widget in (minute, choice):
            widget.setEnabled(not entry.done())
        return minute, choice, state, remove

    def _state(self, entry: Inject) -> str:
        if not entry.done():
            return "planned"
        return f"played by hand before {mmss(entry.played_s)}" if entry.by_hand else f"played at {mmss(entry.played_s)}"

    def _title(self, follow_up_id: str) -> str:
        try:
            return self.scenario.follow_up(follow_up_id).title
        except KeyError:
            return follow_up_id

    # ------------------------------------------------------------------ editing
    def add_entry(self) -> Inject | None:
        """Plan the first follow-up not yet planned, five minutes from now (or from the start)."""
        if not self.scenario.follow_ups:
            return None
        planned = {entry.follow_up for entry in self.plan.entries}
        follow_up = next((f.id for f in self.scenario.follow_ups if f.id not in planned), self.scenario.follow_ups[0].id)
        session = self.console.session
        now_min = session.elapsed() / 60.0 if session.state == "running" else 0.0
        entry = self.plan.add(round(now_min) + 5, follow_up)
        self.refresh()
        return entry

    def remove_entry(self, entry: Inject) -> None:
        """Take ``entry`` off the plan."""
        self.plan.remove(entry)
        self.refresh()

    def _change(self, entry: Inject, **changes) -> None:
        self.plan.change(entry, **changes)
        self.refresh()

    # ------------------------------------------------------------------ playing
    def poll(self) -> list[Inject]:
        """Play what is due (called on the console's tick while the round runs)."""
        console = self.console
        if not console.running():
            return []
        session = console.session
        before = {id(entry) for entry in self.plan.entries if entry.done()}
        due = self.plan.due(session.elapsed(), session.follow_ups_played)
        for entry in due:
            console.play_follow_up(entry.follow_up)
            console.add_note(f"Planned follow-up played at minute {entry.minute:g}: {self._title(entry.follow_up)}")
        if any(id(entry) not in before for entry in self.plan.entries if entry.done()):
            self.refresh()
        return due


def attach_injects(console) -> InjectPanel:
    """Give ``console`` its Plan tab, played on its tick and folded away with what only the
    interviewer may see."""
    panel = InjectPanel(console, console)
    console.tabs.insertTab(console.tabs.indexOf(console.follow_ups) + 1, panel, "P&lan")
    console.tick.timeout.connect(panel.poll)
    console.private.toggled.connect(lambda shown: console.tabs.setTabVisible(console.tabs.indexOf(panel), shown))
    console.tabs.setTabVisible(console.tabs.indexOf(panel), console.private.isChecked())
    return panel
