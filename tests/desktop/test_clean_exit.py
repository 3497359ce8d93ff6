"""The app exits cleanly after a copy: the clipboard must not own Python-made objects at exit."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
from PySide6.QtCore import QTimer
from desktop.app import make_application, open_window, release_clipboard
app = make_application()
app.aboutToQuit.connect(release_clipboard)
window = open_window(None)
def act():
    window.scene.select_ids(list(window.document.design.nodes)[:2])
    assert window.actions_by_id["edit.copy"].trigger() is None
    window.files.ask_unsaved = lambda: "discard"
    app.quit()
QTimer.singleShot(200, act)
sys.exit(app.exec())
"""


def test_app_exits_with_status_0_after_copying(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERBOARD_DATA_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
