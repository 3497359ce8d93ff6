"""Fixtures for the practice windows: a private data folder (history, settings and imported packs
never touch the real home), a hand-driven clock, main windows and interviews that are always
closed, and helpers that edit a window's design the way the editor does (undo commands)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtWidgets import QApplication

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import desktop.compat  # noqa: E402,F401  (PySide6 6.12 on Python 3.11: see desktop/compat.py)
from tests.desktop.conftest import make_window, no_leaked_windows  # noqa: E402,F401  (shared: the editor's window
# fixture, and the check that every test closes the windows it opened)
from tests.fakes import FakeClock  # noqa: E402,F401


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    folder = tmp_path / "inferboard-data"
    monkeypatch.setenv("INFERBOARD_DATA_DIR", str(folder))
    # platformdirs is what the engine falls back on; point it into tmp as well, in case.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return folder


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(5000.0)


@pytest.fixture
def library(data_folder):
    from desktop.practice.common import open_library

    return open_library()


@pytest.fixture
def history(data_folder):
    from desktop.practice.common import open_history

    history = open_history()
    yield history
    history.close()


@pytest.fixture
def solo(make_window, library, history, clock, qtbot):
    """A solo round of ``fraud-scoring-cpu`` started in a main window."""
    from desktop import practice

    controllers = []

    def start(scenario_id="fraud-scoring-cpu"):
        window = make_window()
        controller = practice.open_practice(window, scenario_id, library=library, history=history, clock=clock,
                                            check_unsaved=False)
        assert controller is not None
        controllers.append(controller)
        return controller

    yield start
    for controller in controllers:
        if controller.panel is not None:
            controller.panel.abandon(confirm=False)  # stops its timers before the history closes
        for other in [controller.result_window, *controller.other_windows]:
            if other is not None:
                other.close()
                other.deleteLater()
        practice.forget(controller)


@pytest.fixture
def interview(library, history, clock, qtbot, data_folder):
    """A started mock interview; the windows are closed at the end."""
    from desktop.practice.mock import MockInterview

    interviews = []

    def start(scenario_id="image-embedding-search", evaluate=True):
        mock = MockInterview(library.get(scenario_id), history, clock=clock, data_folder=data_folder,
                             theme_mode="light", evaluate=evaluate)
        mock.candidate.resize(1400, 900)
        mock.show()
        qtbot.waitExposed(mock.candidate)
        qtbot.waitExposed(mock.console)
        mock.start()
        interviews.append(mock)
        return mock

    yield start
    for mock in interviews:
        mock.close(discard=True)
        for window in mock.console.windows:
            window.close()
        mock.candidate.deleteLater()
        mock.console.deleteLater()
    QApplication.processEvents()


def add_node(document, kind, x, y, node_id, region=None, **params):
    """Add a component through the document (one undo step), as the palette does."""
    from inferboard.model import ops

    node = document.design.make_node(kind, x, y, params, node_id, region)
    assert document.execute(ops.AddNode(node), f"Add {kind}")
    return node_id


def connect(document, source, target, source_port="requests", target_port="requests"):
    from inferboard.model import Edge, ops

    edge = Edge(document.design.new_edge_id(), source, source_port, target, target_port)
    assert document.execute(ops.AddEdge(edge), "Connect")


def small_design(document) -> None:
    """users -> lb -> cpus: a start that loses points on purpose."""
    add_node(document, "traffic_source", -300, 0, "users")
    add_node(document, "regional_load_balancer", 0, 0, "lb")
    add_node(document, "cpu_pool", 300, 0, "cpus")
    connect(document, "users", "lb")
    connect(document, "lb", "cpus")


def all_texts(root) -> list[str]:
    """Every piece of text a person (or a screen reader) could get from a window: titles, labels,
    buttons, tooltips, status tips, accessible names and descriptions, edits, browsers, list, tree,
    table and combo items, tab titles, actions and menus. Hidden widgets count too."""
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QDockWidget, QGroupBox, QLabel, QLineEdit,
                                   QListWidget, QMenu, QGraphicsView, QPlainTextEdit, QTabBar, QTableWidget, QTextEdit,
                                   QTreeWidget, QWidget)

    out: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        out += [w.windowTitle(), w.toolTip(), w.statusTip(), w.whatsThis(), w.accessibleName(),
                w.accessibleDescription()]
        if isinstance(w, QLabel):
            out.append(w.text())
        if isinstance(w, QAbstractButton):
            out.append(w.text())
        if isinstance(w, QLineEdit):
            out += [w.text(), w.placeholderText()]
        if isinstance(w, (QTextEdit, QPlainTextEdit)):
            out += [w.toPlainText(), w.placeholderText()]
            if isinstance(w, QTextEdit):
                out.append(w.toHtml())
        if isinstance(w, QDockWidget):
            out.append(w.windowTitle())
        if isinstance(w, QGroupBox):
            out.append(w.title())
        if isinstance(w, QTabBar):
            out += [w.tabText(i) for i in range(w.count())] + [w.tabToolTip(i) for i in range(w.count())]
        if isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QListWidget):
            for i in range(w.count()):
                item = w.item(i)
                out += [item.text(), item.toolTip(), item.statusTip()]
        if isinstance(w, QTreeWidget):
            stack = [w.topLevelItem(i) for i in range(w.topLevelItemCount())]
            while stack:
                item = stack.pop()
                for c in range(w.columnCount()):
                    out += [item.text(c), item.toolTip(c), item.statusTip(c)]
                stack += [item.child(i) for i in range(item.childCount())]
        if isinstance(w, QTableWidget):
            for r in range(w.rowCount()):
                for c in range(w.columnCount()):
                    item = w.item(r, c)
                    if item is not None:
                        out += [item.text(), item.toolTip()]
        if isinstance(w, QMenu):
            out.append(w.title())
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            out += [item.toolTip() for item in w.scene().items()]
        for action in w.actions():
            out += [action.text(), action.toolTip(), action.statusTip(), action.whatsThis()]
    return [t for t in out if t]
