"""The phase timer: which phase the round is in, the time left in it and in the round, the
phase's goal and any gentle nudges. It only displays; the session (or the link) owns the clock."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QWidget

from desktop.practice.common import mmss, wrapped_label
from desktop.theme import LIGHT_INK


#: The phase and the time left are this much larger than the timer's own font (11 pt beside 9 pt).
EMPHASIS = 11.0 / 9.0


class PhaseTimer(QWidget):
    """The phase's title and time left lead, in a semibold font ``EMPHASIS`` times the timer's own,
    so they grow with it (Projector View gives the timer a larger font)."""

    def __init__(self, parent: QWidget | None = None, compact: bool = False):
        super().__init__(parent)
        self.setObjectName("phase_timer")
        self.phase_label = QLabel("Not started", self)
        self.phase_label.setObjectName("phase_title")
        self.phase_label.setAccessibleName("Current phase")
        self.step_label = QLabel("", self)
        self.step_label.setAccessibleName("Phase number")
        self.left_label = QLabel("", self)
        self.left_label.setAccessibleName("Time left in the phase")
        self.left_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._left_colour = ""
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Phase progress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.total_label = QLabel("", self)
        self.total_label.setAccessibleName("Time left in the round")
        self.goal_label = wrapped_label("", self, "Phase goal")
        self.nudge_label = wrapped_label("", self, "Nudges")
        self.nudge_label.setObjectName("nudges")
        self.nudge_label.setStyleSheet(f"color: {LIGHT_INK.notice_fg}; background: {LIGHT_INK.notice_bg}; border-radius: 4px; padding: 4px;")
        self.nudge_label.hide()
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(3)
        grid.addWidget(self.phase_label, 0, 0)
        grid.addWidget(self.left_label, 0, 1)
        grid.addWidget(self.bar, 1, 0, 1, 2)
        grid.addWidget(self.step_label, 2, 0)
        grid.addWidget(self.total_label, 2, 1, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.goal_label, 3, 0, 1, 2)
        grid.addWidget(self.nudge_label, 4, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        if compact:
            self.goal_label.hide()
        self._restyle()

    def changeEvent(self, event) -> None:
        """Restyle when the font changes (projector mode, a larger type)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._restyle()

    def _restyle(self) -> None:
        """The leading labels' style, sized from the timer's font as it is now."""
        size = self.font().pointSizeF()
        lead = f"font-weight: 600; font-size: {(size if size > 0 else 9.0) * EMPHASIS:.1f}pt;"
        self.phase_label.setStyleSheet(lead)
        self.left_label.setStyleSheet(lead + " font-family: monospace;"
                                      + (f" color: {self._left_colour};" if self._left_colour else ""))

    def show_phase(self, title: str, index: int, count: int, phase_elapsed_s: float, phase_length_s: float,
                   total_left_s: float | None, goal: str = "", nudges: list[str] | None = None,
                   overtime: bool = False) -> None:
        """Show phase ``title`` (``index`` of ``count``) with its time left, the round's, its goal and nudges."""
        self.phase_label.setText(title)
        self.step_label.setText("Past the planned time" if overtime else f"Phase {index + 1} of {count}")
        over = phase_elapsed_s - phase_length_s
        if overtime or over > 0:
            self.left_label.setText(f"+{mmss(phase_elapsed_s if overtime else over)} over")
            self._left_colour = LIGHT_INK.bad
            self._restyle()
            self.bar.setValue(1000)
        else:
            left = max(0.0, -over)
            self.left_label.setText(f"{mmss(left)} left")
            low = left <= min(120.0, 0.25 * phase_length_s)
            self._left_colour = LIGHT_INK.caution if low else ""
            self._restyle()
            share = phase_elapsed_s / phase_length_s if phase_length_s > 0 else 1.0
            self.bar.setValue(round(1000 * max(0.0, min(1.0, share))))
        self.total_label.setText("" if total_left_s is None else f"{mmss(total_left_s)} left in the round")
        self.goal_label.setText(goal)
        text = "\n".join(nudges or [])
        self.nudge_label.setText(text)
        self.nudge_label.setVisible(bool(text))
        self.setAccessibleDescription(f"{title}: {self.left_label.text()}")

    def show_status(self, status, count: int) -> None:
        """Show a ``session.TimerStatus``."""
        overtime = status.phase == "overtime"
        length = status.phase_elapsed_s + status.phase_remaining_s
        self.show_phase(status.phase_title, status.phase_index, count, status.phase_elapsed_s, length,
                        status.total_remaining_s, status.goal, list(status.nudges), overtime)

    def show_text(self, title: str, detail: str = "") -> None:
        """Show a plain title and detail instead of a countdown."""
        self.phase_label.setText(title)
        self.left_label.setText("")
        self.step_label.setText(detail)
        self.total_label.setText("")
        self.nudge_label.hide()
