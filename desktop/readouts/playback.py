"""The simulated day's playhead in the readouts: play and pause, the scrub slider and the clock
beside it. The panel shows the figures of the tick the playhead is on."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSlider, QWidget

from inferboard import humanize

from desktop.readouts.readings import busiest_index

#: Milliseconds between two steps of the playhead while playing.
STEP_MS = 40
#: Playing crosses the day in about this many steps.
STEPS_PER_DAY = 360


class Playback(QObject):
    """The playhead over a timeline: its widgets (``play_button``, ``scrub``, ``time_label``) sit in
    the panel's layout; ``moved(index)`` says which tick to show, ``started`` that playing began."""

    moved = Signal(int)
    started = Signal()

    def __init__(self, owner: QWidget):
        super().__init__(owner)
        self.timeline = None
        #: The user put the playhead somewhere: new timelines keep it there (else: the busiest tick).
        self.placed = False
        self.play_button = QPushButton("Play", owner)
        self.play_button.setAccessibleName("Play or pause the timeline")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.scrub = QSlider(Qt.Orientation.Horizontal, owner)
        self.scrub.setAccessibleName("Timeline position")
        self.scrub.setRange(0, 0)
        self.scrub.valueChanged.connect(self._scrubbed)
        self.scrub.actionTriggered.connect(lambda _a: self._placed_by_user())
        self.scrub.sliderPressed.connect(self._placed_by_user)
        self.time_label = QLabel("", owner)
        self.time_label.setMinimumWidth(self.time_label.fontMetrics().horizontalAdvance("1d 00:00") + 6)
        self.timer = QTimer(self)
        self.timer.setInterval(STEP_MS)
        self.timer.timeout.connect(self._advance)

    def has_ticks(self) -> bool:
        """Whether there is a timeline with at least one tick to move over."""
        return self.timeline is not None and len(self.timeline.times_s) > 0

    def index(self) -> int:
        """The tick the playhead is on."""
        return self.scrub.value()

    def time_s(self) -> float | None:
        """The simulated time under the playhead, or None without a timeline."""
        return float(self.timeline.times_s[self.index()]) if self.has_ticks() else None

    def show_timeline(self, result) -> None:
        """Move over ``result``'s ticks: the playhead stays where the user put it, else goes to the
        busiest tick; ``moved`` follows."""
        self.timeline = result
        count = len(result.times_s)
        position = self.scrub.value() if self.placed else busiest_index(result)
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, max(0, count - 1))
        self.scrub.setValue(min(position, max(0, count - 1)))
        self.scrub.blockSignals(False)
        self._scrubbed(self.scrub.value())

    def seek_time(self, time_s: float) -> None:
        """Put the playhead on the tick at ``time_s`` (the plots' cursor was dragged there)."""
        if not self.has_ticks():
            return
        self.placed = True
        times = self.timeline.times_s
        self.scrub.setValue(int(np.clip(np.searchsorted(times, time_s), 0, len(times) - 1)))

    def set_playing(self, on: bool) -> None:
        """Play from the playhead (from the start when it is at the end) or pause."""
        if self.play_button.isChecked() != on:
            self.play_button.setChecked(on)  # comes back here through ``toggled``
            return
        if on and not self.has_ticks():
            self.play_button.setChecked(False)
            return
        self.play_button.setText("Pause" if on else "Play")
        if on:
            self.placed = True
            self.started.emit()
            if self.scrub.value() >= self.scrub.maximum():
                self.scrub.setValue(0)
            self.timer.start()
        else:
            self.timer.stop()

    def toggle_play(self) -> None:
        """Pause when playing, play when paused."""
        self.set_playing(not self.play_button.isChecked())

    def _placed_by_user(self) -> None:
        self.placed = True

    def _scrubbed(self, index: int) -> None:
        if not self.has_ticks():
            self.time_label.setText("")
            return
        index = max(0, min(index, len(self.timeline.times_s) - 1))
        self.time_label.setText(humanize.clock(float(self.timeline.times_s[index])))
        self.moved.emit(index)

    def _advance(self) -> None:
        step = max(1, (self.scrub.maximum() + 1) // STEPS_PER_DAY)
        if self.scrub.value() >= self.scrub.maximum():
            self.set_playing(False)
            return
        self.scrub.setValue(min(self.scrub.maximum(), self.scrub.value() + step))
