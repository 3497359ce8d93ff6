"""Regenerate the screenshots in this folder from the real window.

Run on a display with a window manager (Xvfb and openbox work: ``Xvfb :99 -screen 0 1600x1000x24 &``,
``DISPLAY=:99 openbox &``, then ``DISPLAY=:99 QT_QPA_PLATFORM=xcb python -m tools.screenshots editor``;
name shots to make only those). Each shot opens an example design at its size (1600x1000 or
1366x768) and theme, waits until every evaluation has reported, sets the scene up, and saves the window.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("INFERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="inferboard-shots-"))

from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402

from desktop.app import make_application, open_window  # noqa: E402
from tools.screenshots.screen import release_windows, save  # noqa: E402

EXAMPLES = ROOT / "assets" / "examples"


def settle(app, window, ms: int = 400, timeout_ms: int = 20000) -> None:
    """Let evaluations finish and the window repaint."""
    loop = QEventLoop()
    waited = 0

    def poll():
        nonlocal waited
        waited += 100
        done = not window.evaluator.busy() and {"report", "steady", "timeline"} <= set(window.evaluator.latest)
        if (done and window.readouts.plots is not None) or waited > timeout_ms:
            QTimer.singleShot(ms, loop.quit)
        else:
            QTimer.singleShot(100, poll)

    QTimer.singleShot(100, poll)
    loop.exec()


def shoot(window, name: str) -> Path:
    """Save ``window`` as docs/screenshots/``name``."""
    return save(window.grab(), name)


def window_on(app, example: str, theme: str = "light", size: tuple[int, int] = (1600, 1000)):
    design = Path(example) if Path(example).is_absolute() else EXAMPLES / example
    window = open_window(str(design), restore_layout=False, theme_mode=theme)
    window.resize(*size)
    window.move(0, 0)
    window.default_dock_sizes()
    settle(app, window)
    window.view.fit_all()
    return window


def close(window) -> None:
    window.files.ask_unsaved = lambda: "discard"
    window.close()


def select_busiest_pool(window) -> None:
    pools = [n.id for n in window.document.design.nodes.values() if n.kind in ("gpu_pool", "cpu_pool")]
    if pools:
        window.scene.select_ids(pools[:1])


def outage_at_noon(app, window, show: str = "p99_ms") -> None:
    """us-east down from 11:00 to 13:00, the playhead at 12:00, a surviving pool selected."""
    readouts = window.readouts
    region = next((n.id for n in window.document.design.nodes.values() if n.kind == "region"), "*")
    readouts.fault_plan.add_fault("region_outage", region, start_s=11 * 3600, duration_s=2 * 3600)
    settle(app, window)
    timeline = readouts.timeline
    if timeline is not None and len(timeline.times_s):
        import numpy as np

        readouts.playback.placed = True
        readouts.playback.scrub.setValue(int(np.searchsorted(timeline.times_s, 12 * 3600)))
    pools = [n.id for n in window.document.design.nodes.values() if n.kind == "gpu_pool" and n.region != region]
    if pools:
        window.scene.select_ids(pools[:1])
    readouts.show_working(show)


def drift_on_mobile(app, window) -> None:
    """Half the mobile segment's requests drift from 02:00 for 20 hours; the playhead at 12:00 on the
    Quality tab, a pool selected so its quality badge shows."""
    readouts = window.readouts
    readouts.fault_plan.add_fault("input_drift", "mobile", start_s=2 * 3600, duration_s=20 * 3600, magnitude=0.5)
    settle(app, window)
    timeline = readouts.timeline
    if timeline is not None and len(timeline.times_s):
        import numpy as np

        readouts.playback.placed = True
        readouts.playback.scrub.setValue(int(np.searchsorted(timeline.times_s, 12 * 3600)))
    select_busiest_pool(window)
    if readouts.plots is not None:
        readouts.tabs.setCurrentWidget(readouts.plots.quality.page)


def findings_naming_most(app, window) -> None:
    panel = window.findings
    items = panel.finding_items()
    if items:  # the finding that names the most components
        role = Qt.ItemDataRole.UserRole + 1
        panel.tree.setCurrentItem(max(items, key=lambda item: len(item.data(0, role).node_ids)))


def overloaded_cpu_pool() -> Path:
    """The CPU example with its scorers pinned at 4 replicas x 12 ms and offered 2,500 req/s."""
    import json

    raw = json.loads((EXAMPLES / "cpu-small.json").read_text())
    raw["requirements"].update(mean_rps=2500.0, peak_rps=2500.0, traffic_pattern="steady")
    for node in raw["nodes"]:
        if node["kind"] == "cpu_pool":
            node["params"].update(replicas=4, min_replicas=4, max_replicas=4, service_ms=12.0)
        if node["kind"] == "autoscaler":
            node["params"].update(min_replicas=4, max_replicas=4)
    path = Path(tempfile.mkdtemp(prefix="inferboard-shots-")) / "overloaded-cpu-pool.json"
    path.write_text(json.dumps(raw))
    return path


def projector(app, window) -> None:
    window.actions_by_id["view.projector"].setChecked(True)
    window.scene.select_ids([])
    window.readouts.show_working("p99_ms")


def find_gpu_pools(app, window) -> None:
    """Find on Canvas for "gpu", stepped to the second match."""
    window.find_on_canvas()
    window.finder.bar.field.setText("gpu")
    window.finder.step(1)
    window.view.set_zoom(0.9)
    window.finder.step(0)


def minimap_on_a_large_design(app, window) -> None:
    """The bench's 300-card design at a reading zoom, its minimap showing where the view is."""
    from bench.bench_gui import big_design

    window.document.set_design(big_design(300))
    settle(app, window)
    window.actions_by_id["view.minimap"].setChecked(True)
    window.view.set_zoom(0.8)
    window.view.centerOn(window.scene.nodes["gpus5"].sceneBoundingRect().center())


def aligned_and_grouped(app, window) -> None:
    """Four wired cards dropped unevenly, then lined up on their top edges, spaced evenly and grouped
    in a new region: the history lists the three steps."""
    from inferboard.model import Design

    design = Design(requirements=window.document.design.requirements)
    chain = [("traffic_source", "users", 0, 40), ("regional_load_balancer", "gateway", 260, 130),
             ("dynamic_batcher", "batcher", 470, 10), ("gpu_pool", "gpus", 820, 90)]
    for kind, node_id, x, y in chain:
        design.add_node(kind, x, y, node_id=node_id)
    for (_k, source, *_), (_k2, target, *_) in zip(chain, chain[1:]):
        design.connect(source, "requests", target, "requests")
    window.document.set_design(design)
    window.actions_by_id["view.minimap"].setChecked(False)
    window.scene.select_ids([node_id for _k, node_id, *_ in chain])
    window.align_selection("top")
    window.distribute_selection("x")
    window.group_selection()
    window.docks["history"].raise_()
    settle(app, window)


def faults_by_keyboard(app, window) -> None:
    """Planned Faults opened with Ctrl+Shift+F, an outage picked in the strip and moved an hour
    later and 30 minutes longer with the arrow keys, the keys then in its duration field."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    region = next((n.id for n in window.document.design.nodes.values() if n.kind == "region"), "*")
    window.readouts.fault_plan.add_fault("region_outage", region, start_s=10 * 3600, duration_s=3600)
    editor = window.edit_faults()
    editor.move(window.x() + 360, window.y() + 220)
    settle(app, window, 200)
    editor.strip.setFocus()
    QTest.keyClick(editor.strip, Qt.Key.Key_Down)
    QTest.keyClick(editor.strip, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    for _ in range(6):
        QTest.keyClick(editor.strip, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    editor.table.cellWidget(0, 3).setFocus()
    window.fault_shot = editor


#: name -> (example, theme, size, set-up after the first evaluation)
SHOTS = {
    "starter.png": ("starter.json", "light", (1600, 1000), lambda app, w: select_busiest_pool(w)),
    "multi-region-findings.png": ("multi-region.json", "light", (1600, 1000), findings_naming_most),
    "readouts-fault.png": ("multi-region.json", "light", (1600, 1000), outage_at_noon),
    "multi-region-dark.png": ("multi-region.json", "dark", (1600, 1000), outage_at_noon),
    "readouts-fault-1366.png": ("multi-region.json", "light", (1366, 768), outage_at_noon),
    "overloaded-1366-dark.png": (None, "dark", (1366, 768),
                                 lambda app, w: w.readouts.show_working("shed_rate")),
    "projector.png": ("starter.json", "light", (1920, 1080), projector),
    "find-on-canvas.png": ("multi-region.json", "light", (1600, 1000), find_gpu_pools),
    "minimap.png": ("starter.json", "light", (1600, 1000), minimap_on_a_large_design),
    "arrange-group.png": ("starter.json", "light", (1600, 1000), aligned_and_grouped),
    "faults-keyboard.png": ("multi-region.json", "light", (1600, 1000), faults_by_keyboard),
    "shortcuts.png": ("starter.json", "light", (1600, 1000), lambda app, w: None),
    "quality-drift.png": ("multi-region.json", "light", (1600, 1000), drift_on_mobile),
    "quality-drift-1366.png": ("multi-region.json", "light", (1366, 768), drift_on_mobile),
    "quality-drift-dark.png": ("multi-region.json", "dark", (1600, 1000), drift_on_mobile),
    "trust-tooltip.png": ("starter.json", "light", (1600, 1000), lambda app, w: None),
}
#: Shots whose set-up places the view itself (no fit to the whole design before the shot).
KEEP_VIEW = {"find-on-canvas.png", "minimap.png"}


def shoot_trust_tooltip(app, window, name: str) -> None:
    """The steady state's p99 tile with its tooltip (what the figure is and how far to trust it),
    taken from the screen since a tooltip is a window of its own."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QToolTip

    window.readouts.set_mode("steady")
    settle(app, window, 200)
    tile = window.readouts.tiles["p99_ms"]
    QToolTip.showText(tile.mapToGlobal(QPoint(tile.width() // 2, tile.height())), tile.toolTip(), tile)
    settle(app, window, 600)
    corner = tile.mapToGlobal(QPoint(-20, -40))
    screen = app.primaryScreen().grabWindow(0, corner.x(), corner.y(), 760, 300)
    save(screen, name)
    QToolTip.hideText()


def shoot_shortcuts(app, window, name: str) -> None:
    """The F1 list scrolled to the Edit menu's find, arrange and group keys."""
    from desktop.shell.command_palette import ShortcutsDialog

    dialog = ShortcutsDialog(window, window.action_specs)
    dialog.resize(640, 760)
    dialog.show()
    rows = [dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())]
    if "Find on Canvas" in rows:
        dialog.table.scrollToItem(dialog.table.item(rows.index("Find on Canvas") - 3, 1),
                                  dialog.table.ScrollHint.PositionAtTop)
    settle(app, window, 300)
    shoot(dialog, name)
    dialog.close()


def main(names: list[str]) -> int:
    app = make_application()
    for name in names or list(SHOTS):
        example, theme, size, set_up = SHOTS[name]
        window = window_on(app, example or str(overloaded_cpu_pool()), theme, size)
        set_up(app, window)
        settle(app, window, 300)
        if name not in KEEP_VIEW:
            window.view.fit_all()
        settle(app, window, 500)
        if name == "faults-keyboard.png":
            shoot(window.fault_shot, name)
        elif name == "shortcuts.png":
            shoot_shortcuts(app, window, name)
        elif name == "trust-tooltip.png":
            shoot_trust_tooltip(app, window, name)
        else:
            shoot(window, name)
        close(window)
    release_windows()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
