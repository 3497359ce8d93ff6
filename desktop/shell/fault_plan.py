"""Keeps the readouts' faults and the design's planned faults the same: the design holds them
(saved with it, one undo step per edit); the readouts show them and the timeline plays them.

A fault picked from the readouts' Inject menu or removed with Clear becomes an undoable edit of
the design; an edit of the design (the fault editor, undo, opening a file) is shown back in the
readouts."""

from __future__ import annotations

from PySide6.QtCore import QObject

from inferboard.model import PlannedFault, ops
from inferboard.model import events as ev
from inferboard.model.faults import describe

from desktop.shell.window_parts import WindowParts



def as_timed(planned) -> tuple:
    """The design's planned faults as the simulator's timed faults."""
    # the simulator loads on first use, not at start-up
    from inferboard.sim.design.faults import timed_faults

    return timed_faults(planned)


def as_planned(timed) -> tuple[PlannedFault, ...]:
    """The simulator's timed faults as the design's planned faults."""
    return tuple(PlannedFault(f.kind, f.target, float(f.start_s), float(f.duration_s), f.magnitude) for f in timed)


def edit_title(old: tuple[PlannedFault, ...], new: tuple[PlannedFault, ...], names: dict[str, str]) -> str:
    """The undo step's name for going from ``old`` to ``new`` ("Inject region outage on eu", "Clear faults", ...)."""
    if not new:
        return "Clear faults"
    added = [f for f in new if f not in old]
    removed = [f for f in old if f not in new]
    if added and not removed:
        return "Plan " + describe(added[0], names.get(added[0].target))
    if removed and not added:
        return "Remove " + describe(removed[0], names.get(removed[0].target))
    return "Change " + describe(added[0], names.get(added[0].target)) if added else "Reorder faults"


class FaultPlan(QObject):
    """Keeps the design's planned faults and the readouts' fault list in step, every change an undo step."""

    def __init__(self, window: WindowParts):
        super().__init__(window)
        self.window = window
        self._pushing = False
        window.document.changed.connect(self._on_event)
        window.document.replaced.connect(self.show_in_readouts)
        window.readouts.fault_plan.faults_changed.connect(self._from_readouts)
        window.readouts.fault_plan.fault_menu.aboutToShow.connect(self._extend_menu)

    @property
    def design(self):
        """The design whose faults are planned."""
        return self.window.document.design

    def names(self) -> dict[str, str]:
        """Each node's label (or id) by id, for naming faults."""
        return {n.id: n.label or n.id for n in self.design.nodes.values()}

    def set_faults(self, faults: tuple[PlannedFault, ...], title: str | None = None) -> bool:
        """Replace the design's planned faults as one undo step."""
        faults = tuple(faults)
        if faults == self.design.faults:
            return False
        return self.window.document.execute(ops.SetFaults(faults),
                                            title or edit_title(self.design.faults, faults, self.names()))

    def show_in_readouts(self) -> None:
        """Show the design's faults in the readouts without recording it as an edit."""
        self._pushing = True
        try:
            self.window.readouts.fault_plan.set_faults(as_timed(self.design.faults))
        finally:
            self._pushing = False

    def _on_event(self, event) -> None:
        if isinstance(event, ev.FaultsChanged):
            self.show_in_readouts()

    def _from_readouts(self, faults) -> None:
        if self._pushing:
            return
        if not self.set_faults(as_planned(faults)) and as_planned(faults) != self.design.faults:
            self.show_in_readouts()  # refused: show what the design really has

    def playhead_s(self) -> float | None:
        """Where the readouts' timeline is, in seconds (None before a timeline is simulated)."""
        readouts = self.window.readouts
        timeline = readouts.timeline
        if timeline is None or not len(timeline.times_s):
            return None
        return float(timeline.times_s[max(0, min(readouts.playback.scrub.value(), len(timeline.times_s) - 1))])

    def _extend_menu(self) -> None:
        menu = self.window.readouts.fault_plan.fault_menu
        menu.addSeparator()
        menu.addAction("Edit Planned Faults…", self.window.edit_faults)
