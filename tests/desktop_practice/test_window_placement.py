"""The mock interview's two windows never open on top of each other or off the screen: one per
screen when there are two, side by side or one above the other on one screen, else in turns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize

from desktop.window_placement import pair_layout


ROOT = Path(__file__).parents[2]
CANDIDATE, CONSOLE = QSize(1030, 470), QSize(1130, 400)


def inside(rect: QRect, area: QRect) -> bool:
    return area.contains(rect)


@pytest.mark.parametrize("width, height", [(2560, 1440), (3840, 1200)])
def test_a_wide_screen_puts_them_side_by_side(width, height):
    area = QRect(0, 0, width, height)
    first, second = pair_layout([area], CANDIDATE, CONSOLE)
    assert not first.intersects(second) and inside(first, area) and inside(second, area)
    assert first.width() >= CANDIDATE.width() and second.width() >= CONSOLE.width()
    assert first.top() == second.top() == 0 and first.right() < second.left()


def test_a_tall_enough_screen_stacks_them():
    area = QRect(0, 30, 1600, 970)
    first, second = pair_layout([area], CANDIDATE, CONSOLE)
    assert not first.intersects(second) and inside(first, area) and inside(second, area)
    assert first.height() >= CANDIDATE.height() and second.height() >= CONSOLE.height()
    assert first.bottom() < second.top()


def test_a_second_screen_takes_the_console():
    main, other = QRect(0, 0, 1366, 768), QRect(1366, 0, 1920, 1080)
    first, second = pair_layout([main, other], CANDIDATE, CONSOLE)
    assert first == main and second == other


def test_a_small_screen_makes_them_take_turns_rather_than_overlap():
    assert pair_layout([QRect(0, 0, 1366, 768)], CANDIDATE, CONSOLE) is None


SCRIPT = r"""
import json, sys, tempfile
from PySide6.QtWidgets import QApplication
app = QApplication([])
import desktop.compat
from desktop.practice.common import open_library
from desktop.practice.mock import MockInterview
folder = tempfile.mkdtemp()
mock = MockInterview(open_library(folder).get("image-embedding-search"), None, data_folder=folder, evaluate=False)
mock.show()
for _ in range(5):
    app.processEvents()
rect = lambda r: [r.x(), r.y(), r.width(), r.height()]
print(json.dumps({"candidate": rect(mock.candidate.frameGeometry()), "console": rect(mock.console.frameGeometry()),
                  "screens": [rect(s.availableGeometry()) for s in app.screens()]}))
mock.close(discard=True)
"""


def run_with_screens(tmp_path, screens):
    config = tmp_path / "screens.json"
    config.write_text(json.dumps({"screens": [
        {"name": f"s{i}", "x": x, "y": y, "width": w, "height": h, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}
        for i, (x, y, w, h) in enumerate(screens)]}))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return QRect(*data["candidate"]), QRect(*data["console"]), [QRect(*s) for s in data["screens"]]


@pytest.mark.slow
def test_real_windows_side_by_side_on_a_wide_screen_and_one_per_screen_on_two(tmp_path):
    candidate, console, screens = run_with_screens(tmp_path, [(0, 0, 2560, 1440)])
    assert not candidate.intersects(console)
    assert screens[0].contains(candidate) and screens[0].contains(console)
    candidate, console, screens = run_with_screens(tmp_path, [(0, 0, 1920, 1080), (1920, 0, 1600, 1000)])
    assert screens[0].contains(candidate) and screens[1].contains(console)


@pytest.mark.slow
@pytest.mark.parametrize("width, height", [(1600, 1000), (1920, 1080)])
def test_real_windows_side_by_side_on_a_1600x1000_or_full_hd_screen(tmp_path, width, height):
    """The candidate's window and the console both fit across a 1600x1000 screen (the tiles go two
    across and the console stacks its panels): side by side, whole, not overlapping."""
    candidate, console, screens = run_with_screens(tmp_path, [(0, 0, width, height)])
    assert screens[0].contains(candidate) and screens[0].contains(console)
    assert not candidate.intersects(console)
    assert candidate.top() == console.top() and candidate.right() < console.left()
