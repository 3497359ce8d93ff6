"""Regenerate the screenshots in this folder from the real window.

Run on a display (Xvfb works: ``Xvfb :99 -screen 0 1600x1000x24 &`` then
``DISPLAY=:99 QT_QPA_PLATFORM=xcb python docs/screenshots/make_screenshots.py``). Each shot opens
an example design at 1600x1000, waits until every evaluation has reported, and saves the window.
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

OUT = Path(__file__).resolve().parent
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


def window_on(app, example: str, theme: str = "light"):
    window = open_window(str(EXAMPLES / example), restore_layout=False, theme_mode=theme)
    window.resize(1600, 1000)
    window.move(0, 0)
    settle(app, window)
    window.view.fit_all()
    return window


def close(window) -> None:
    window.files.ask_unsaved = lambda: "discard"
    window.close()


def main() -> int:
    app = make_application()

    window = window_on(app, "starter.json")
    window.scene.select_ids(["gpus"] if "gpus" in window.scene.nodes else list(window.scene.nodes)[-1:])
    settle(app, window, 300)
    shoot(window, "starter.png")
    close(window)

    window = window_on(app, "multi-region.json")
    panel = window.findings
    items = panel.finding_items()
    if items:  # the finding that names the most components
        role = Qt.ItemDataRole.UserRole + 1
        panel.tree.setCurrentItem(max(items, key=lambda item: len(item.data(0, role).node_ids)))
    settle(app, window, 300)
    shoot(window, "multi-region-findings.png")
    close(window)

    window = window_on(app, "multi-region.json")
    readouts = window.readouts
    region = next((n.id for n in window.document.design.nodes.values() if n.kind == "region"), "*")
    readouts.add_fault("region_outage" if region != "*" else "traffic_surge", region, start_s=11 * 3600,
                       duration_s=2 * 3600)
    settle(app, window)
    timeline = readouts.timeline
    if timeline is not None and len(timeline.times_s):
        import numpy as np

        readouts.scrub.setValue(int(np.searchsorted(timeline.times_s, 12 * 3600)))
    window.resizeDocks([window.docks["readouts"]], [470], Qt.Orientation.Vertical)
    pools = [n.id for n in window.document.design.nodes.values() if n.kind == "gpu_pool" and n.region != region]
    if pools:
        window.scene.select_ids(pools[:1])
    readouts.show_working("p99_ms")
    window.view.fit_all()
    settle(app, window, 500)
    shoot(window, "readouts-fault.png")
    close(window)

    window = window_on(app, "multi-region.json", theme="dark")
    shoot(window, "multi-region-dark.png")
    close(window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
