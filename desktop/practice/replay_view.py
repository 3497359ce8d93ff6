"""Replay a session: a slider over the session's time shows the design as it was at time t in a
read-only canvas; the list of edits jumps to each one, with what it changed, and the list of what
was said (questions, answers, phase changes, follow-ups) jumps to each moment."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QSlider, QSplitter,
                               QVBoxLayout, QWidget)

from inferboard.practice.replay import Replay

from desktop.closable import close_button, close_on_escape
from desktop.practice.common import ReadOnlyCanvas, mmss, phase_name
from desktop.theme import LIGHT
from desktop.theme import LIGHT_INK
from desktop.window_placement import fit_window

TICKS_PER_S = 10
FRAME_ROLE = Qt.ItemDataRole.UserRole
#: The colour each kind of moment is listed in.
MOMENT_INK = {"question": LIGHT_INK.info, "answer": LIGHT_INK.answer, "phase": LIGHT_INK.caution,
              "follow_up": LIGHT_INK.follow_up}


class ReplayView(QWidget):
    """A recorded round played back: the design at each moment, with a slider, steps and the moments marked."""

    def __init__(self, replay: Replay, parent: QWidget | None = None, theme=None):
        super().__init__(parent)

        self.replay = replay
        self.current_index: int | None = None
        self.canvas = ReadOnlyCanvas("Replayed design", self, theme or LIGHT)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("replay_slider")
        self.slider.setAccessibleName("Session time")
        self.slider.setAccessibleDescription("Drag or use the arrow keys to see the design at that moment.")
        end = max(replay.duration, 0.0)
        self.slider.setRange(0, round(end * TICKS_PER_S))
        self.slider.setSingleStep(TICKS_PER_S)
        self.slider.setPageStep(60 * TICKS_PER_S)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(max(TICKS_PER_S, round(end * TICKS_PER_S / 20)))
        self.slider.valueChanged.connect(lambda value: self.set_time(value / TICKS_PER_S, from_slider=True))
        self.time_label = QLabel("", self)
        self.time_label.setAccessibleName("Replay position")
        self.time_label.setMinimumWidth(90)
        self.change_label = QLabel("", self)
        self.change_label.setAccessibleName("What changed")
        self.change_label.setWordWrap(True)
        self.said_label = QLabel("", self)
        self.said_label.setObjectName("replay_last_said")
        self.said_label.setAccessibleName("Last thing said")
        self.said_label.setWordWrap(True)
        self.previous_button = QPushButton("◀ &Previous edit", self)
        self.previous_button.setAccessibleName("Previous edit")
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton("&Next edit ▶", self)
        self.next_button.setAccessibleName("Next edit")
        self.next_button.clicked.connect(lambda: self.step(1))
        self.frames = QListWidget(self)
        self.frames.setObjectName("replay_edits")
        self.frames.setAccessibleName("Edits in order")
        self.frames.setWordWrap(True)
        for index, (t_s, phase, text) in enumerate(replay.timeline()):
            item = QListWidgetItem(f"{mmss(t_s)}  {phase_name(phase)}\n{text}")
            item.setData(FRAME_ROLE, index)
            item.setToolTip(text)
            self.frames.addItem(item)
        self.frames.currentRowChanged.connect(self._frame_chosen)
        self.said = QListWidget(self)
        self.said.setObjectName("replay_said")
        self.said.setAccessibleName("Questions, answers, phases and follow-ups in order")
        self.said.setWordWrap(True)
        for moment in replay.moments:
            item = QListWidgetItem(f"{mmss(moment.t_s)}  {moment.title()}\n{moment.text}")
            item.setData(FRAME_ROLE, moment.t_s)
            item.setForeground(QBrush(QColor(MOMENT_INK.get(moment.kind, LIGHT_INK.muted))))
            self.said.addItem(item)
        self.said.itemClicked.connect(lambda item: self.set_time(float(item.data(FRAME_ROLE))))
        controls = QHBoxLayout()
        controls.addWidget(self.previous_button)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.next_button)
        controls.addWidget(self.time_label)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.canvas, 1)
        column.addLayout(controls)
        column.addWidget(self.change_label)
        column.addWidget(self.said_label)
        side = QSplitter(Qt.Orientation.Vertical, self)
        for title, widget in (("Edits", self.frames), ("Questions, answers, phases, follow-ups", self.said)):
            box = QWidget(side)
            box_column = QVBoxLayout(box)
            box_column.setContentsMargins(0, 0, 0, 0)
            box_column.addWidget(QLabel(f"<b>{title}</b>", box))
            box_column.addWidget(widget, 1)
            side.addWidget(box)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([1100, 320])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        if not len(replay):
            layout.addWidget(QLabel("Nothing was drawn in this session.", self))
        layout.addWidget(splitter, 1)
        self.slider.setValue(self.slider.maximum())
        self.set_time(end)

    def time(self) -> float:
        """The time the slider is at, in seconds."""
        return self.slider.value() / TICKS_PER_S

    def set_time(self, t_s: float, from_slider: bool = False) -> None:
        """Show the design as it was at ``t_s``."""
        if not from_slider:
            self._move_slider(t_s)
        self._display(self.replay.index_at(t_s + 1e-6), t_s)

    def _move_slider(self, t_s: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(round(t_s * TICKS_PER_S))
        self.slider.blockSignals(False)

    def _display(self, index: int | None, t_s: float) -> None:
        self.time_label.setText(f"{mmss(t_s)} / {mmss(self.replay.duration)}")
        said = self.replay.said_until(t_s + 1e-6)
        self.said.setCurrentRow(len(said) - 1)
        self.said_label.setText("" if not said else f"Last said, at {mmss(said[-1].t_s)} ({said[-1].title()}): "
                                                    f"{said[-1].text}")
        if index == self.current_index:
            return
        self.current_index = index
        if index is None:
            self.canvas.set_design(None)
            self.change_label.setText("Before the first edit: the canvas was empty.")
        else:
            frame = self.replay.frames[index]
            self.canvas.set_design(frame.design_bytes)
            self.change_label.setText(f"Edit {index + 1} of {len(self.replay)} at {mmss(frame.t_s)} "
                                      f"({phase_name(frame.phase)}): {self.replay.changes(index).text()}")
        self.frames.blockSignals(True)
        self.frames.setCurrentRow(-1 if index is None else index)
        self.frames.blockSignals(False)
        self.previous_button.setEnabled(index is not None and index > 0)
        self.next_button.setEnabled((index is None and len(self.replay) > 0)
                                    or (index is not None and index < len(self.replay) - 1))

    def show_frame(self, index: int) -> None:
        """Show recorded frame ``index``."""
        if 0 <= index < len(self.replay):
            t_s = self.replay.frames[index].t_s
            self._move_slider(t_s)
            self._display(index, t_s)

    def step(self, delta: int) -> None:
        """Move ``delta`` frames forward or back."""
        index = -1 if self.current_index is None else self.current_index
        self.show_frame(max(0, min(len(self.replay) - 1, index + delta)))

    def _frame_chosen(self, row: int) -> None:
        if row >= 0:
            self.show_frame(row)

    def shown_node_ids(self) -> list[str]:
        """The ids of the nodes shown now."""
        return self.canvas.node_ids()


class ReplayWindow(QWidget):
    """The replay of a round in a window of its own, titled after the scenario."""

    def __init__(self, replay: Replay, title: str, parent: QWidget | None = None, theme=None):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("replay_window")
        self.setWindowTitle(f"Replay: {title} — Inferboard")
        self.view = ReplayView(replay, self, theme)
        self.close_button = close_button(self)
        close_on_escape(self)
        row = QHBoxLayout()
        row.setContentsMargins(8, 4, 8, 8)
        row.addStretch(1)
        row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        fit_window(self, 1400, 900)
