"""Fixtures for the drill windows: a private data folder, the bundled drill design and a design
without observability, a history, and drills started with a fast clock and always closed."""

from __future__ import annotations

import os

import pytest
from PySide6.QtWidgets import QApplication

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import desktop.compat  # noqa: E402,F401  (PySide6 6.12 on Python 3.11: see desktop/compat.py)
from tests.desktop.conftest import make_window, no_leaked_windows  # noqa: E402,F401
from tests.desktop_practice.conftest import data_folder, history  # noqa: E402,F401  (data_folder: autouse)
from tests.drills.conftest import drill_design, starter_design, without_observability  # noqa: E402,F401

FAST = 1800.0  #: 30 simulated minutes per wall second
TICK_MS = 20


def close_drill_window(window) -> None:
    window.confirm_close = False
    for other in list(window.windows):
        other.close()
        other.deleteLater()
    window.close()
    window.deleteLater()


@pytest.fixture
def start_drill(history, qtbot, drill_design):
    """Start a solo drill with a fast clock: ``start_drill(drill_id, design=None, speed=FAST)``."""
    from desktop import drills

    opened = []

    def start(drill_id="slow-canary-version", design=None, speed=FAST, **options):
        window = drills.open_drill(None, drill_id, design=design or drill_design, history=history, speed=speed,
                                   tick_ms=TICK_MS, **options)
        assert window is not None
        qtbot.waitExposed(window)
        opened.append(window)
        return window

    yield start
    for window in opened:
        close_drill_window(window)
        drills.forget(window)
    QApplication.processEvents()


@pytest.fixture
def drill_interview(history, qtbot, drill_design):
    from desktop import drills

    opened = []

    def start(drill_id="slow-canary-version", design=None, speed=FAST):
        interview = drills.open_drill_interview(None, drill_id, design=design or drill_design, history=history,
                                                speed=speed, tick_ms=TICK_MS)
        assert interview is not None
        qtbot.waitExposed(interview.candidate)
        opened.append(interview)
        return interview

    yield start
    for interview in opened:
        for other in list(interview.candidate.windows):
            other.close()
            other.deleteLater()
        interview.close()
        drills.forget(interview)
    QApplication.processEvents()


@pytest.fixture(scope="session")
def blind_design(drill_design):
    """The drill design with its metrics collector, alerting, drift detection and retraining removed."""
    return without_observability(drill_design, "Ranker without observability")
