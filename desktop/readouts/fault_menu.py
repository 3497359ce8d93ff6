"""The fault-injection menu of the readouts: every fault kind the simulator knows, each with the
nodes it can hit (and "everywhere" where the simulator allows it)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtWidgets import QMenu

from inferboard.model.faults import FAULT_KINDS, fault_targets


def fill_fault_menu(menu: QMenu, design: Any, add_fault: Callable[[str, str], Any]) -> None:
    """Rebuild ``menu`` for ``design``; choosing an entry calls ``add_fault(kind, target)``."""
    menu.clear()
    if design is None:
        menu.addAction("Open a design to inject faults").setEnabled(False)
        return
    for kind, spec in FAULT_KINDS.items():
        sub = menu.addMenu(spec.title)
        for node_id, name in fault_targets(design, kind):
            action = sub.addAction("Everywhere (*)" if node_id == "*" else name)
            action.setToolTip(node_id)
            action.triggered.connect(lambda _c=False, k=kind, t=node_id: add_fault(k, t))
