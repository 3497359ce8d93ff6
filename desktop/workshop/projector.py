"""Projector mode: the main window gives the whole screen to one design at a time for a room. Menus,
toolbars, docks and the status bar are hidden; a high-contrast theme, large type and thick lines;
the design's findings step one by one (its nodes highlighted on the canvas as each shows) while
the simulated day plays. Several design files (a folder, a cohort) are stepped through in turn.

Keys: Right/Space next finding, Left previous, Page Down/Page Up next/previous design, P play or
pause the day, Esc (or F11 again) leaves (everything hidden comes back as it was).

The figures are the normal window's: the same :mod:`desktop.readouts.readings` functions at the same tick
of the same timeline, shown by the same tiles."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QToolBar, QVBoxLayout,
                               QWidget)

from inferboard.model import Design

from desktop.editor.canvas.view import CanvasView
from desktop.editor.document import DesignDocument
from desktop.practice.common import ReadOnlyScene, fresh_design
from desktop.readouts.moment import build_moment
from desktop.readouts.readings import Reading, steady_reading, timeline_reading
from desktop.readouts.tiles import Tile
from desktop.shell.evaluation import Evaluator
from desktop.workshop.projector_theme import (BODY_PX, FIGURE_PX, HEAD_PX, MIN_CANVAS_ZOOM, PROJECTOR, SMALL_PX,
                                              TILE_TITLE_PX, TITLE_PX, pixel_font, projector_palette)
from desktop import window_placement
from desktop.window_placement import REFIT_MS, clamp_to_screen
from desktop.workshop.projector_slides import Slide, ordered_findings, slide_of, slides_from_paths
from desktop.workshop.projector_timeline import DayStrip

FIGURES = ("p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour", "cost_per_1k")
KEYS_HINT = "→ ← findings · PgDn PgUp designs · P play · Esc leave"


def screen_type_scale(area) -> float:
    """How much smaller the projector's type is on a screen smaller than the 1920x1080 it was set for."""
    return min(1.0, area.width() / 1920, area.height() / 1080)


def scaled_px(px: int, scale: float) -> int:
    """A type size in pixels at ``scale``, never below legible."""
    return max(12, round(px * scale))


class ProjectorTile(Tile):
    """A headline tile in the projector's type sizes, as wide as what it shows (the basis is said
    once, under the tiles, rather than on each)."""

    type_scale = 1.0  #: the stage's: smaller type on a screen smaller than 1920x1080

    def set_scale(self, scale: float) -> None:
        """Size the tile's text for the projector at ``scale``."""
        for label, px, bold in ((self.title_label, TILE_TITLE_PX, False), (self.value_label, FIGURE_PX, True),
                                (self.detail_label, SMALL_PX, False)):
            label.setFont(pixel_font(scaled_px(px, self.type_scale), bold))
        self.updateGeometry()

    def minimumSizeHint(self):
        """Wide enough for the longest line of the tile."""
        hint = QWidget.minimumSizeHint(self)
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 18
        width = max(label.fontMetrics().horizontalAdvance(label.text() or "—") for label in self.lines().values())
        hint.setWidth(max(hint.width(), width + margins))
        return hint


def _label(text: str, px: int, parent: QWidget, bold: bool = False, name: str = "") -> QLabel:
    label = QLabel(text, parent)
    label.setFont(pixel_font(px, bold))
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(f"color: {PROJECTOR.text};")
    if name:
        label.setObjectName(name)
        label.setAccessibleName(name.replace("_", " "))
    return label


class ProjectorStage(QWidget):
    """What the room sees. ``scenario`` scores the designs in a scenario (None: on their own)."""

    leave_requested = Signal()
    #: A finding is shown (None: the overview); tests and the window listen.
    finding_shown = Signal(object)

    def __init__(self, slides: list[Slide], parent: QWidget | None = None, scenario=None, play: bool = True,
                 type_scale: float = 1.0):
        super().__init__(parent)
        self.type_scale = type_scale  #: below 1 on a screen smaller than 1920x1080
        self.setObjectName("projector_stage")
        self.setAccessibleName("Projector")
        self.setAutoFillBackground(True)
        self.setPalette(projector_palette())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.slides = slides or [Slide("No design", error="No design to show.")]
        self.scenario = scenario
        self.autoplay = play
        self.slide_index = 0
        self.finding_index = -1
        self.findings: list = []
        self.report = None
        self.steady = None
        self.timeline = None
        self.tick = 0
        self.reading: Reading | None = None
        self.document = DesignDocument(parent=self)
        self.scene = ReadOnlyScene(self.document, PROJECTOR, self)
        self.view = CanvasView(self.scene, self)
        self.view.setObjectName("projector_canvas")
        self.view.setInteractive(False)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.view.setAcceptDrops(False)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.viewport().installEventFilter(self)
        self.evaluator = Evaluator(self.document, self, auto=False)
        self.evaluator.structural_ready.connect(lambda report: self._show_report(report, final=False))
        self.evaluator.report_ready.connect(lambda report: self._show_report(report, final=True))
        self.evaluator.steady_ready.connect(self._show_steady)
        self.evaluator.timeline_ready.connect(self._show_timeline)
        self.evaluator.failed.connect(self._failed)
        self.play_timer = QTimer(self)
        self.play_timer.setInterval(40)
        self.play_timer.timeout.connect(self._advance)
        self._build()
        self.show_slide(0)

    # ------------------------------------------------------------------ building
    def _label(self, text: str, px: int, bold: bool = False, name: str = "") -> QLabel:
        return _label(text, scaled_px(px, self.type_scale), self, bold, name)

    def _build(self) -> None:
        self.title = self._label("", HEAD_PX, True, "design_title")
        self.title.setWordWrap(False)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.position = self._label("", SMALL_PX, name="design_position")
        self.position.setWordWrap(False)
        self.hint = self._label(KEYS_HINT, SMALL_PX, name="keys_hint")
        self.hint.setStyleSheet(f"color: {PROJECTOR.muted};")
        self.counter = self._label("", SMALL_PX, True, "finding_counter")
        self.severity = self._label("", BODY_PX, True, "finding_severity")
        self.finding_title = self._label("", TITLE_PX, True, "finding_title")
        self.finding_text = self._label("", BODY_PX, name="finding_text")
        self.finding_where = self._label("", BODY_PX, name="finding_where")
        self.score = self._label("", BODY_PX, True, "design_score")
        side = QWidget(self)
        column = QVBoxLayout(side)
        column.setContentsMargins(24, 12, 24, 12)
        column.setSpacing(14)
        for widget in (self.score, self.counter, self.severity, self.finding_title, self.finding_text,
                       self.finding_where):
            column.addWidget(widget)
        column.addStretch(1)
        self.tiles: dict[str, Tile] = {}
        figures = QHBoxLayout()
        figures.setSpacing(12)
        for key in FIGURES:
            tile = ProjectorTile(key, self)
            tile.type_scale = self.type_scale
            tile.set_scale(1.0)
            tile.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            tile.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.tiles[key] = tile
            figures.addWidget(tile)
        self.basis = _label("", SMALL_PX, self, name="figures_basis")
        self.day = DayStrip(self)
        self.day.setFont(pixel_font(scaled_px(SMALL_PX, self.type_scale)))
        self.hint.setWordWrap(False)
        head = QHBoxLayout()
        head.setSpacing(24)
        head.addWidget(self.title, 1)
        head.addWidget(self.hint)
        head.addWidget(self.position)
        middle = QHBoxLayout()
        middle.addWidget(self.view, 1)
        middle.addWidget(self._scrolling(side))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 12)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addLayout(middle, 1)
        layout.addLayout(figures)
        layout.addWidget(self.basis)
        layout.addWidget(self.day)

    def _scrolling(self, side: QWidget) -> QScrollArea:
        """The finding's column, its own height whatever the screen's (a long finding on a short
        screen scrolls rather than its lines running into each other)."""
        scroll = QScrollArea(self)
        scroll.setObjectName("finding_column")
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFixedWidth(round(620 * self.type_scale))
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        side.setAutoFillBackground(False)
        scroll.viewport().setAutoFillBackground(False)
        return scroll

    # ------------------------------------------------------------------ designs
    @property
    def design(self) -> Design:
        """The design on the slide shown."""
        return self.document.design

    def show_slide(self, index: int) -> None:
        """Show slide ``index``: its design, evaluated, with no finding picked."""
        self.slide_index = max(0, min(index, len(self.slides) - 1))
        slide = self.slides[self.slide_index]
        self.set_playing(False)
        self.report = self.steady = self.timeline = self.reading = None
        self.findings, self.finding_index, self.tick = [], -1, 0
        self.title.setToolTip(slide.title)
        self._elide_title()
        self.position.setText(f"Design {self.slide_index + 1} of {len(self.slides)}"
                              + (f" · {self.scenario.title}" if self.scenario is not None else ""))
        self.document.set_design(fresh_design(slide.data) if slide.data is not None else Design())
        self.scene.clear_highlight()
        self.day.show_timeline(None, None)
        self.day.placeholder = "No design to simulate." if slide.error else "Simulating the day…"
        for tile in self.tiles.values():
            tile.show_value(None, None, "", PROJECTOR)
        self.basis.setText("")
        if slide.error:
            self._show_text("", "This design cannot be shown", slide.error, "")
            self.score.setText("")
            return
        self._show_text("", "Checking the design…", "", "")
        self.score.setText("")
        self.fit_canvas()
        self.evaluator.set_settings(scenario=self.scenario, faults=self._faults())

    def _faults(self) -> tuple:
        # the simulator loads on first use, not at start-up
        from inferboard.sim.design.faults import timed_faults

        return timed_faults(self.design.faults)

    def next_design(self) -> None:
        """Go to the next slide."""
        if self.slide_index < len(self.slides) - 1:
            self.show_slide(self.slide_index + 1)

    def previous_design(self) -> None:
        """Go to the previous slide."""
        if self.slide_index > 0:
            self.show_slide(self.slide_index - 1)

    def fit_canvas(self, focus: Iterable[str] = ()) -> None:
        """The whole design when it fits at a legible zoom, else the focused nodes at that zoom."""
        rect = self.scene.nodes_rect()
        if rect.isNull() or rect.isEmpty():
            return
        self.view.fit_rect(rect, max_zoom=2.4)
        whole = self.view.zoom()
        focus = [n for n in focus if n in self.scene.nodes]
        if focus and whole < MIN_CANVAS_ZOOM:
            # Too big to read whole: close in on the finding's components (all of them in view),
            # unless that would hardly bring them closer.
            self.view.fit_rect(self.scene.nodes_rect(focus).adjusted(-160, -120, 160, 120), max_zoom=2.0)
            if self.view.zoom() < whole * 1.3:
                self.view.fit_rect(rect, max_zoom=2.4)

    # ------------------------------------------------------------------ findings
    def _show_report(self, report, final: bool) -> None:
        if not final and self.report is not None:
            return
        self.report = report
        current = self.current_finding()
        self.findings = ordered_findings(report)
        colour = PROJECTOR.ok if report.grade in ("A", "B") else PROJECTOR.warn if report.grade == "C" else PROJECTOR.bad
        self.score.setStyleSheet(f"color: {colour};")
        count = len(self.findings)
        self.score.setText(f"Grade {report.grade} · {report.overall:.0f}/100 · {count} finding{'s' if count != 1 else ''}"
                           + ("" if final else " (simulating…)"))
        keys = [(f.rule_id, f.node_ids) for f in self.findings]
        if current is not None and (current.rule_id, current.node_ids) in keys:
            self.show_finding(keys.index((current.rule_id, current.node_ids)))
        else:
            self.show_finding(-1)

    def current_finding(self):
        """The finding being shown, or None."""
        return self.findings[self.finding_index] if 0 <= self.finding_index < len(self.findings) else None

    def show_finding(self, index: int) -> None:
        """-1: the overview (nothing highlighted); 0..n-1: that finding, its nodes highlighted."""
        self.finding_index = max(-1, min(index, len(self.findings) - 1))
        finding = self.current_finding()
        if finding is None:
            self.scene.clear_highlight()
            if self.report is None:
                self._show_text("", "Checking the design…", "", "")
            elif not self.findings:
                self._show_text("", "No findings", "Every rule that applies passes.", "")
            else:
                self._show_text("", "Press → to step through the findings",
                                "Biggest losses first; the components concerned light up on the canvas.", "")
            self.fit_canvas()
            self.finding_shown.emit(None)
            return
        nodes = [n for n in finding.node_ids if n in self.scene.nodes]
        edges = [e for e in finding.edge_ids if e in self.scene.edges]
        self.scene.highlight(nodes, edges, seconds=0)
        names = [self.node_name(n) for n in nodes]
        self._show_text(f"Finding {self.finding_index + 1} of {len(self.findings)}",
                        f"{finding.title}", finding.message,
                        ("On: " + ", ".join(names)) if names else "On the design as a whole",
                        f"{finding.severity} · −{finding.points:g} points in {finding.rubric.replace('_', ' ')}",
                        PROJECTOR.severity.get(finding.severity, PROJECTOR.text))
        self.fit_canvas(nodes)
        self.finding_shown.emit(finding)

    def node_name(self, node_id: str) -> str:
        """A component as its card is titled (its label, else its kind), with its id when that
        title alone does not tell it apart."""
        def title(node) -> str:
            if node.label:
                return node.label
            kind = self.design.catalog.kinds.get(node.kind)
            return kind.title if kind is not None else node.kind

        node = self.design.nodes[node_id]
        name = title(node)
        same = sum(1 for other in self.design.nodes.values() if title(other) == name)
        return name if same == 1 and node.label else f"{name} ({node_id})"

    def _show_text(self, counter: str, title: str, text: str, where: str, severity: str = "",
                   severity_colour: str = PROJECTOR.text) -> None:
        self.counter.setText(counter)
        self.finding_title.setText(title)
        self.finding_text.setText(text)
        self.finding_where.setText(where)
        self.severity.setText(severity)
        self.severity.setStyleSheet(f"color: {severity_colour};")
        for label in (self.counter, self.severity, self.finding_text, self.finding_where):
            label.setVisible(bool(label.text()))

    def next_finding(self) -> None:
        """Show the next finding."""
        if self.finding_index < len(self.findings) - 1:
            self.show_finding(self.finding_index + 1)

    def previous_finding(self) -> None:
        """Show the previous finding (before the first: none)."""
        if self.finding_index > -1:
            self.show_finding(self.finding_index - 1)

    # ------------------------------------------------------------------ figures and the day
    def _show_steady(self, result) -> None:
        self.steady = result
        if self.timeline is None:
            self.show_reading(steady_reading(result))

    def _show_timeline(self, timeline) -> None:
        self.timeline = timeline
        self.day.show_timeline(timeline, self.design.requirements.slo_p99_ms, self._faults())
        self.set_tick(0)
        if self.autoplay:
            self.set_playing(True)

    def set_tick(self, index: int) -> None:
        """Move the simulated day to tick ``index`` and show its figures."""
        if self.timeline is None or not len(self.timeline.times_s):
            return
        self.tick = max(0, min(int(index), len(self.timeline.times_s) - 1))
        self.day.set_index(self.tick)
        self.show_reading(timeline_reading(self.timeline, self.tick, self.design.requirements.traffic_pattern))

    def show_reading(self, reading: Reading) -> None:
        """Show ``reading``'s figures on the big tiles, each against its limit."""
        self.reading = reading
        requirements = self.design.requirements
        for key, tile in self.tiles.items():
            limit_field = tile.limit_field
            limit = getattr(requirements, limit_field) if limit_field else None
            tile.show_value(reading.values.get(key), limit, "", PROJECTOR)
        self.basis.setText(reading.status_line())
        moment = build_moment(self.design, reading, self.steady, self._faults(),
                              slo_p99_ms=requirements.slo_p99_ms)
        self.scene.show_moment(moment)

    def set_playing(self, on: bool) -> None:
        """Play or pause the simulated day (only with a timeline of more than one tick)."""
        if on and self.timeline is not None and len(self.timeline.times_s) > 1:
            self.play_timer.start()
        else:
            self.play_timer.stop()

    def playing(self) -> bool:
        """Whether the day is playing."""
        return self.play_timer.isActive()

    def _advance(self) -> None:
        count = len(self.timeline.times_s)
        step = max(1, count // 360)
        self.set_tick(0 if self.tick + step >= count else self.tick + step)  # the day plays on a loop

    def _failed(self, step: str, message: str) -> None:
        first = message.strip().splitlines()[-1] if message.strip() else step
        self.basis.setText(f"{step}: {first}")

    def _elide_title(self) -> None:
        """The design's name on one line, cut with an ellipsis when the screen is too narrow."""
        full = self.title.toolTip()
        width = self.title.width() if self.title.width() > 50 else self.width() // 2
        self.title.setText(self.title.fontMetrics().elidedText(full, Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, event) -> None:
        """Cut the title to the new width."""
        super().resizeEvent(event)
        QTimer.singleShot(0, self._elide_title)

    def eventFilter(self, watched, event) -> bool:
        """Fit the canvas again (on the finding shown) when its viewport is resized."""
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            finding = self.current_finding()
            QTimer.singleShot(0, lambda: self.fit_canvas(finding.node_ids if finding is not None else ()))
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The presenter's keys: arrows and Space step through findings, Page keys through designs, P plays."""
        key = event.key()
        actions = {Qt.Key.Key_Right: self.next_finding, Qt.Key.Key_Space: self.next_finding,
                   Qt.Key.Key_Down: self.next_finding, Qt.Key.Key_Left: self.previous_finding,
                   Qt.Key.Key_Up: self.previous_finding, Qt.Key.Key_PageDown: self.next_design,
                   Qt.Key.Key_PageUp: self.previous_design, Qt.Key.Key_Escape: self.leave_requested.emit,
                   Qt.Key.Key_F11: self.leave_requested.emit,
                   Qt.Key.Key_P: lambda: self.set_playing(not self.playing()),
                   Qt.Key.Key_Home: lambda: self.show_finding(-1)}
        action = actions.get(Qt.Key(key))
        if action is None:
            super().keyPressEvent(event)
            return
        action()
        event.accept()

    def shutdown(self) -> None:
        """Stop playing and stop the stage's evaluator."""
        self.play_timer.stop()
        self.evaluator.shutdown()


class ProjectorMode(QObject):
    """Enters and leaves projector mode on a main window, putting back everything it hid."""

    entered = Signal()
    left = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.stage: ProjectorStage | None = None
        self._saved: dict = {}

    @property
    def active(self) -> bool:
        """Whether the projector stage is up."""
        return self.stage is not None

    def enter(self, paths: Iterable[Path | str] | None = None, scenario=None, play: bool = True,
              slides: list[Slide] | None = None) -> ProjectorStage:
        """Show the open design, the design files in ``paths`` (folders add their designs) or the
        given ``slides`` (a cohort's submissions)."""
        w = self.window
        if self.stage is not None:
            self.leave()
        design = w.document.design
        if slides is None:
            slides = slides_from_paths(paths) if paths is not None else [
                slide_of(design, design.metadata.get("title", "") or w.document.display_name())]
        toolbars = w.findChildren(QToolBar)
        self._saved = {"state": w.saveState(), "window_state": w.windowState(), "geometry": w.saveGeometry(),
                       "menu": w.menuBar().isVisible(),
                       "status": w.statusBar().isVisible(),
                       "docks": {name: dock.isVisible() for name, dock in w.docks.items()},
                       "toolbars": {bar: bar.isVisible() for bar in toolbars}}
        w.readouts.playback.set_playing(False)
        # The editing shortcuts (Delete, Ctrl+Z...) must not reach the hidden editor.
        self._saved["actions"] = {action: action.isEnabled() for action in w.actions_by_id.values()}
        for action in w.actions_by_id.values():
            action.setEnabled(False)
        w.menuBar().hide()
        w.statusBar().hide()
        for bar in toolbars:
            bar.hide()
        for dock in w.docks.values():
            dock.hide()
        self._view = w.takeCentralWidget()
        self._view.hide()
        self.stage = ProjectorStage(slides, w, scenario=scenario, play=play,
                                    type_scale=screen_type_scale(window_placement.available_area(w)))
        self.stage.leave_requested.connect(self.leave)
        w.setCentralWidget(self.stage)
        w.showFullScreen()
        w.activateWindow()
        self.stage.setFocus()
        QTimer.singleShot(0, lambda stage=self.stage: stage.setFocus() if stage is self.stage else None)
        self.entered.emit()
        return self.stage

    def leave(self) -> None:
        """Close the stage and give the main window back as it was."""
        w = self.window
        if self.stage is None:
            return
        stage, self.stage = self.stage, None
        stage.shutdown()
        w.takeCentralWidget()
        stage.hide()
        stage.deleteLater()
        w.setCentralWidget(self._view)
        self._view.show()
        saved = self._saved
        self._back_to_window(saved["window_state"], saved["geometry"])
        w.restoreState(saved["state"])
        w.menuBar().setVisible(saved["menu"])
        w.statusBar().setVisible(saved["status"])
        for name, dock in w.docks.items():
            dock.setVisible(saved["docks"].get(name, True))
        for bar, visible in saved["toolbars"].items():
            bar.setVisible(visible)
        for action, enabled in saved["actions"].items():
            action.setEnabled(enabled)
        self._view.setFocus()
        self.left.emit()


    def _back_to_window(self, state, geometry) -> None:
        """The window as it was before full screen: its title bar, size and place (the window
        manager takes the state change a moment later, so the geometry is put back then too)."""
        w = self.window
        if state & Qt.WindowState.WindowFullScreen:
            w.showFullScreen()
            return
        if state & Qt.WindowState.WindowMaximized:
            w.showMaximized()
            return
        w.showNormal()
        w.restoreGeometry(geometry)
        for ms in REFIT_MS:
            QTimer.singleShot(ms, w, lambda: self.stage is None and w.restoreGeometry(geometry) and clamp_to_screen(w))


def projector_mode(window) -> ProjectorMode:
    """The window's projector mode, made on first use."""
    mode = getattr(window, "projector_mode", None)
    if mode is None:
        mode = ProjectorMode(window)
        window.projector_mode = mode
    return mode
