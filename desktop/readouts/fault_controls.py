"""The readouts' fault controls: the Inject fault menu, Clear faults, and the line naming the faults
planned for the simulated day. A fault is injected at the playhead for two hours by default."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QMenu, QPushButton, QSizePolicy, QToolButton, QWidget

from inferboard import humanize

from desktop.readouts.fault_menu import fill_fault_menu

#: How long an injected fault lasts unless told otherwise.
FAULT_HOURS = 2.0
#: Where a fault starts without a timeline to place it on: 10:00.
DEFAULT_START_S = 10 * 3600.0


class FaultControls(QObject):
    """The faults planned for the timeline and their widgets (``fault_button``, ``clear_faults_button``,
    ``fault_label``, laid out by the panel); ``faults_changed(faults)`` after every change."""

    faults_changed = Signal(tuple)

    def __init__(self, owner: QWidget, design_provider: Callable[[], Any], playhead: Callable[[], tuple]):
        """``playhead()`` gives (the timeline or None, the playhead's tick): new faults start there."""
        super().__init__(owner)
        self.design_provider = design_provider
        self.playhead = playhead
        self.faults: tuple = ()
        self.fault_button = QToolButton(owner)
        self.fault_button.setText("Inject fault")
        self.fault_button.setAccessibleName("Inject fault")
        self.fault_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.fault_menu = QMenu(self.fault_button)
        self.fault_menu.aboutToShow.connect(
            lambda: fill_fault_menu(self.fault_menu, self.design_provider(), self.add_fault))
        self.fault_button.setMenu(self.fault_menu)
        self.clear_faults_button = QPushButton("Clear faults", owner)
        self.clear_faults_button.clicked.connect(self.clear_faults)
        self.fault_label = QLabel("No faults", owner)
        self.fault_label.setAccessibleName("Injected faults")
        # a list of faults is cut (it is in the tooltip), "No faults" never
        self.fault_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.fault_label.setMinimumWidth(self.fault_label.fontMetrics().horizontalAdvance("No faults") + 4)

    def fault_start_s(self) -> float:
        """Where a new fault starts: at the playhead, unless it is at either end of the day (then at
        40% of it); at 10:00 without a timeline."""
        timeline, index = self.playhead()
        if timeline is not None and len(timeline.times_s):
            t = float(timeline.times_s[index])
            if 0 < t < float(timeline.times_s[-1]) - 1800:
                return t
            return float(timeline.times_s[-1]) * 0.4
        return DEFAULT_START_S

    def add_fault(self, kind: str, target: str, start_s: float | None = None, duration_s: float | None = None,
                  magnitude: float | None = None):
        """Plan a fault of ``kind`` on ``target`` (by default at the playhead, for two hours); returns it."""
        # the simulator is loaded once the window is up, not with it
        from inferboard.sim.design.faults import TimedFault

        fault = TimedFault(kind=kind, target=target, magnitude=magnitude,
                           start_s=self.fault_start_s() if start_s is None else start_s,
                           duration_s=FAULT_HOURS * 3600.0 if duration_s is None else duration_s)
        self.faults = (*self.faults, fault)
        self._updated()
        return fault

    def set_faults(self, faults) -> None:
        """Show ``faults`` (the design's planned faults, as the simulator's timed faults)."""
        self.faults = tuple(faults)
        self._updated()

    def clear_faults(self) -> None:
        """Remove every planned fault."""
        if self.faults:
            self.faults = ()
            self._updated()

    def _updated(self) -> None:
        if self.faults:
            self.fault_label.setText("; ".join(
                f"{f.title()} → {f.target} ({humanize.clock(f.start_s)}–"
                f"{humanize.clock(f.start_s + f.duration_s)})" for f in self.faults))
        else:
            self.fault_label.setText("No faults")
        self.fault_label.setToolTip(self.fault_label.text())
        self.faults_changed.emit(self.faults)
