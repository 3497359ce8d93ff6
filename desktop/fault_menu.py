"""The fault-injection menu of the readouts: every fault kind the simulator knows, each with the
nodes it can hit (and "everywhere" where the simulator allows it)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtWidgets import QMenu

#: Which nodes each fault kind can target (kinds); "*" is offered when the catalog text allows it.
FAULT_TARGETS = {
    "region_outage": ("region",),
    "gpu_shortage": ("gpu_pool", "generation_pool"),
    "spot_reclaimed": ("gpu_pool", "generation_pool", "cpu_pool", "feature_service", "fallback_model"),
    "slow_canary": ("canary_router",),
    "slow_replica": ("gpu_pool", "generation_pool", "cpu_pool", "feature_service", "fallback_model"),
    "failing_replica": ("gpu_pool", "generation_pool", "cpu_pool", "feature_service", "fallback_model"),
    "cache_flush": ("cache",),
    "dependency_errors": ("gpu_pool", "generation_pool", "cpu_pool", "feature_service", "fallback_model", "cache",
                          "dynamic_batcher", "request_queue", "regional_load_balancer"),
    "traffic_surge": ("traffic_source",),
}


def fault_kinds() -> dict[str, tuple[str, str]]:
    """kind -> (title, target description)."""
    from inferboard.sim.faults import FAULT_KINDS

    return {kind: (title, targets) for kind, (title, targets, _magnitude) in FAULT_KINDS.items()}


def fill_fault_menu(menu: QMenu, design: Any, add_fault: Callable[[str, str], Any]) -> None:
    """Rebuild ``menu`` for ``design``; choosing an entry calls ``add_fault(kind, target)``."""
    menu.clear()
    kinds = fault_kinds()
    if design is None:
        menu.addAction("Open a design to inject faults").setEnabled(False)
        return
    for kind, (title, description) in kinds.items():
        sub = menu.addMenu(title)
        targets = [n for n in design.nodes.values() if n.kind in FAULT_TARGETS.get(kind, ())]
        if "*" in description or not targets:
            action = sub.addAction("Everywhere (*)")
            action.triggered.connect(lambda _c=False, k=kind: add_fault(k, "*"))
        for node in targets:
            action = sub.addAction(f"{node.label or node.id}")
            action.setToolTip(node.id)
            action.triggered.connect(lambda _c=False, k=kind, t=node.id: add_fault(k, t))
