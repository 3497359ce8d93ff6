"""Solo practice in the main window: start a round on a fresh design, dock the practice panel
where the findings were (live findings would give the rubric away, so they are hidden during the
round and come back after it), and show the result screen at submit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QFrame, QLabel, QScrollArea

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.library import ScenarioEntry, ScenarioLibrary
from inferboard.practice.session import PracticeSession, Result

from desktop.editor.export import png_bytes
from desktop.practice.history_window import HistoryWindow
from desktop.practice.practice_panel import PracticePanel
from desktop.practice.replay_view import ReplayWindow
from desktop.practice.result_window import ResultWindow
from desktop.shell.projector_view import follow_projector_view
from desktop.window_placement import available_area

if TYPE_CHECKING:
    from desktop.shell.main_window import MainWindow

DOCK_NAME = "practice_dock"
#: The practice panel scrolls below this height, so the window still fits a 1000 px screen.
MIN_PANEL_HEIGHT = 240
#: Below this available height (1366x768 and 1600x1000 included) the practice panel is a tab beside
#: the inspector, with the whole column for its questions, not a strip under the inspector.
SHORT_SCREEN = 1100


class SoloPractice(QObject):
    """One practice round attached to a main window."""

    def __init__(self, window: "MainWindow", entry: ScenarioEntry, history: History | None,
                 clock: Callable[[], float] | None = None, library: ScenarioLibrary | None = None):
        super().__init__(window)
        self.window = window
        self.entry = entry
        self.history = history
        self.library = library
        options = {"clock": clock} if clock is not None else {}
        self.session = PracticeSession(entry, history, **options)
        self.panel: PracticePanel | None = None
        self.dock: QDockWidget | None = None
        self._projector_slot = None  #: resizes the dock when Projector View is turned on or off
        self.status_label: QLabel | None = None
        self.result: Result | None = None
        self.result_window = None
        self.diagram_png: bytes | None = None
        self.other_windows: list = []
        self._findings_were_visible = False

    # ------------------------------------------------------------------ starting
    def start(self, check_unsaved: bool = True) -> bool:
        """Put the scenario's starting design in the window and start the round; False when the user keeps unsaved
        work."""
        w = self.window
        if check_unsaved and not w.files.maybe_save():
            return False
        scenario = self.entry.scenario
        w.document.set_design(Design(metadata={"title": f"Practice: {scenario.title}", "notes": ""}))
        w.evaluator.set_settings(scenario=scenario)  # the findings dock scores as the result will
        self.panel = PracticePanel(self.session, w.document, w)
        self.dock = QDockWidget("Practice", w)
        self.dock.setObjectName(DOCK_NAME)
        self.dock.setAccessibleName("Practice panel")
        scroll = QScrollArea(self.dock)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.panel)
        scroll.setMinimumHeight(MIN_PANEL_HEIGHT if not self.short_screen() else MIN_PANEL_HEIGHT // 2)
        self.dock.setWidget(scroll)
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self._place_dock()
        self.status_label = QLabel("", w)
        self.status_label.setAccessibleName("Practice timer")
        self.status_label.setContentsMargins(8, 0, 8, 0)
        w.statusBar().insertPermanentWidget(0, self.status_label)
        self.panel.status_text.connect(self.status_label.setText)
        self.panel.message.connect(w.show_message)
        self.panel.submitted.connect(self._submitted)
        self.panel.abandoned.connect(self._finish)
        self.panel.start()
        w.installEventFilter(self)
        self.dock.show()
        self.dock.raise_()
        self.panel.questions.tree.setFocus()
        return True

    def _place_dock(self) -> None:
        w = self.window
        findings = w.docks.get("findings")
        self._findings_were_visible = findings is not None and not findings.isHidden()
        area = w.dockWidgetArea(findings) if findings is not None else Qt.DockWidgetArea.NoDockWidgetArea
        inspector = w.docks.get("inspector")
        if self.short_screen() and inspector is not None and not inspector.isHidden() and not inspector.isFloating():
            w.tabifyDockWidget(inspector, self.dock)  # a laptop: the panel takes the whole column, a tab
        elif findings is not None and area != Qt.DockWidgetArea.NoDockWidgetArea and not findings.isFloating():
            w.tabifyDockWidget(findings, self.dock)
        else:
            w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        if findings is not None:
            findings.hide()
        follow_projector_view(w, self.dock)
        projector = w.actions_by_id.get("view.projector")
        if projector is not None and self._projector_slot is None:
            self._projector_slot = lambda _on: QTimer.singleShot(0, self._size_dock)
            projector.toggled.connect(self._projector_slot)
        self._size_dock()
        QTimer.singleShot(0, self._size_dock)  # again once the layout has real sizes

    def short_screen(self) -> bool:
        """A screen too short for the inspector and the practice panel one above the other."""
        return available_area(self.window).height() < SHORT_SCREEN

    def _size_dock(self) -> None:
        w = self.window
        inspector = w.docks.get("inspector")
        if self.dock is None or self.dock.isFloating() or not self.panel.running() \
                or w.dockWidgetArea(self.dock) == Qt.DockWidgetArea.NoDockWidgetArea:
            return
        if inspector is not None and w.dockWidgetArea(inspector) == w.dockWidgetArea(self.dock) \
                and self.dock not in w.tabifiedDockWidgets(inspector):
            height = max(600, w.height())
            w.resizeDocks([inspector, self.dock], [round(0.36 * height), round(0.64 * height)],
                          Qt.Orientation.Vertical)
        warnings = w.docks.get("warnings")
        if inspector is not None and self.dock in w.tabifiedDockWidgets(inspector) and warnings is not None \
                and warnings.isVisible() and w.dockWidgetArea(warnings) == w.dockWidgetArea(self.dock):
            # A laptop: the panel (a tab beside the inspector) takes most of the column from the warnings.
            height = max(400, w.height())
            w.resizeDocks([self.dock, warnings], [round(0.78 * height), round(0.22 * height)],
                          Qt.Orientation.Vertical)
        scale = getattr(w, "projector_scale", 1.0)  # Projector View: wider for its larger type
        w.resizeDocks([self.dock], [min(round(430 * scale), max(430, round(0.45 * w.width())))],
                      Qt.Orientation.Horizontal)

    # ------------------------------------------------------------------ ending
    def eventFilter(self, watched, event) -> bool:
        """Notice the main window closing, to end the round with it."""
        if watched is self.window and event.type() == QEvent.Type.Close:
            QTimer.singleShot(0, self._window_closed)  # after the window has decided whether to close
        return False

    def _window_closed(self) -> None:
        """The main window went away mid-round: the round is kept in the history as abandoned."""
        if self.panel is not None and self.panel.running() and not self.window.isVisible():
            self.panel.abandon(confirm=False)

    def _finish(self) -> None:
        w = self.window
        findings = w.docks.get("findings")
        if findings is not None and self._findings_were_visible:
            findings.show()
        if self.status_label is not None:
            w.statusBar().removeWidget(self.status_label)
            self.status_label.deleteLater()
            self.status_label = None
        if self.dock is not None:
            w.removeDockWidget(self.dock)
            self.dock.hide()
        projector = w.actions_by_id.get("view.projector")
        if projector is not None and self._projector_slot is not None:
            projector.toggled.disconnect(self._projector_slot)
            self._projector_slot = None

    def _submitted(self, result: Result) -> None:
        self.result = result
        self.diagram_png = png_bytes(self.window.scene)
        self._finish()
        self.show_result()

    def show_result(self):
        """Open the result screen of the submitted round; returns it, or None before submitting."""
        if self.result is None:
            return None
        theme = self.window.theme_manager.theme
        self.result_window = ResultWindow(self.result.to_dict(), None, html=self.report_html,
                                          open_replay=self.open_replay, open_history=self.open_history,
                                          show_nodes=self.show_nodes, theme=theme)
        self.result_window.show()
        return self.result_window

    def report_html(self) -> str:
        """The round's HTML report with the design's picture."""
        return self.session.report_html(self.diagram_png)

    def open_replay(self):
        """Open the round's replay; returns the window."""
        window = ReplayWindow(self.session.replay, self.entry.scenario.title, None, self.window.theme_manager.theme)
        self.other_windows.append(window)
        window.show()
        return window

    def open_history(self):
        """Open the attempt history; returns the window, or None without a history."""
        if self.history is None:
            return None
        window = HistoryWindow(self.history, None, self.window.theme_manager.theme)
        if self.result is not None and self.result.attempt_id is not None:
            window.select_attempt(self.result.attempt_id)
        self.other_windows.append(window)
        window.show()
        return window

    def show_nodes(self, node_ids: list[str]) -> None:
        """Select and show ``node_ids`` on the canvas (from a lost point)."""
        w = self.window
        present = [n for n in node_ids if n in w.scene.nodes]
        w.scene.select_ids(present)
        w.scene.highlight(present)
        if present:
            w.view.fit_selection()
        w.raise_()
        w.activateWindow()
