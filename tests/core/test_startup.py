"""Start-up stays light: ``inferboard --help`` loads neither the simulator, the rules, the catalog
nor Qt, importing the core (simulator, rules, practice, the desktop's readouts) reads no catalog
file (the catalog is read once, on first use, through ``default_catalog()``), and the window is
painted before the plots' library or the simulator is loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HELP = """
import json, sys
from desktop.launcher import main
try:
    main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""

IMPORTS = """
import json, sys
from inferboard.catalog import loader
import inferboard.sim.design.hardware, inferboard.sim.steady.design_sim, inferboard.sim.timeline.timeline, inferboard.rules.engine
import inferboard.practice.grading, inferboard.cli, desktop.readouts.moment
print(json.dumps(loader.default_catalog.cache_info().currsize))
"""

FIRST_PAINT = """
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from desktop.app import make_application, open_window
app = make_application()
seen = []
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not seen:
            seen.append(sorted(sys.modules))
            QTimer.singleShot(0, app.quit)
        return False
probe = FirstPaint()
app.installEventFilter(probe)
window = open_window(None, restore_layout=False)
app.exec()
window.files.ask_unsaved = lambda: "discard"
window.close()
print(json.dumps(seen[0]))
"""


def _run(code: str, **env: str):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_loads_no_simulator_rules_catalog_or_qt():
    loaded = _run(HELP)
    heavy = [m for m in loaded if m.startswith(("inferboard.sim.", "inferboard.rules.engine", "inferboard.catalog",
                                                "inferboard.store", "PySide6", "pydantic", "numpy"))
             and m != "inferboard.sim.cli"]
    assert heavy == []
    assert "inferboard.cli" in loaded


def test_importing_the_core_reads_no_catalog():
    assert _run(IMPORTS) == 0


def test_the_kind_groups_read_the_catalog_on_first_use():
    from inferboard.catalog import default_catalog
    from inferboard.catalog.roles import kind_group

    pools = kind_group("serving_pool")
    expected = default_catalog().kinds_with_role("serving_pool")
    assert tuple(pools) == expected and len(pools) == len(expected) >= 3
    assert "gpu_pool" in pools and "regional_load_balancer" not in pools
    assert pools == expected and pools[0] == expected[0]


def test_the_first_paint_comes_before_the_plots_and_the_simulator_load(tmp_path):
    loaded = _run(FIRST_PAINT, INFERBOARD_DATA_DIR=str(tmp_path))
    assert "desktop.shell.main_window" in loaded
    late = [m for m in loaded if m.split(".")[0] in ("pyqtgraph", "networkx")
            or m.startswith(("inferboard.sim.steady", "inferboard.sim.timeline", "inferboard.rules.engine"))]
    assert late == []
