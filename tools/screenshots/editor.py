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

OUT = ROOT / "docs" / "screenshots"
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
    path = OUT / name
    window.grab().save(str(path))
    print(f"wrote {path}")
    return path


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
    readouts.add_fault("region_outage", region, start_s=11 * 3600, duration_s=2 * 3600)
    settle(app, window)
    timeline = readouts.timeline
    if timeline is not None and len(timeline.times_s):
        import numpy as np

        readouts.playhead_placed = True
        readouts.scrub.setValue(int(np.searchsorted(timeline.times_s, 12 * 3600)))
    pools = [n.id for n in window.document.design.nodes.values() if n.kind == "gpu_pool" and n.region != region]
    if pools:
        window.scene.select_ids(pools[:1])
    readouts.show_working(show)


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
}


def main(names: list[str]) -> int:
    app = make_application()
    for name in names or list(SHOTS):
        example, theme, size, set_up = SHOTS[name]
        window = window_on(app, example or str(overloaded_cpu_pool()), theme, size)
        set_up(app, window)
        settle(app, window, 300)
        window.view.fit_all()
        settle(app, window, 500)
        shoot(window, name)
        close(window)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
