"""The main window: canvas in the middle, palette and outline on the left, inspector, requirements,
history and findings on the right, readouts below. Menus, toolbar and command palette come from
the action table; the layout, theme and snapping choices are remembered between runs."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMenu, QToolBar, QUndoView, QWidget

from inferboard.model import events as ev
from inferboard.paths import user_data_dir

from desktop import compat, icons  # noqa: F401  (compat: see desktop/compat.py)
from desktop.editor.canvas.editing import FRAGMENT_MIME, CanvasEditor
from desktop.editor.canvas.scene import DesignScene
from desktop.editor.canvas.view import CanvasView
from desktop.editor.document import DesignDocument
from desktop.editor.field_undo import FieldUndoFilter
from desktop.editor.inspector import Inspector
from desktop.editor.outline import Outline
from desktop.editor.palette import Palette
from desktop.editor.requirements_editor import RequirementsEditor
from desktop.editor.warnings_view import LiveWarnings
from desktop.findings.dock import FindingsPanel
from desktop.readouts.dock import ReadoutsPanel
from desktop.readouts.loadtest import LoadTestRunner
from desktop.settings import RecentFiles, app_settings
from desktop.shell.actions import build_actions, menu_order
from desktop.shell.autosave import INTERVAL_MS, Autosaver
from desktop.shell.canvas_commands import CanvasCommands
from desktop.shell.evaluation import Evaluator
from desktop.shell.fault_plan import FaultPlan
from desktop.shell.features import Feature
from desktop.shell.features import install as install_features
from desktop.shell.files import FileController
from desktop.shell.presenting import Presenter
from desktop.shell.projector_view import apply_projector_view, projected_theme
from desktop.shell.window_commands import WindowCommands
from desktop.theme import ThemeManager
from desktop.window_placement import fit_window

PROJECTOR_SCALE = 1.5
UNDO_TIP_CHARS = 40
#: A window shorter than this (a 1366x768 screen) gets the readouts' compact sentences.
COMPACT_BELOW_PX = 900
READABLE_ZOOM_NOTE = ("Zoomed so the cards can be read: part of the design is out of view; View > Fit Everything "
                      "(Shift+1) shows all of it.")
TOOLBAR_ACTIONS = ("file.new", "file.open", "file.save", None, "edit.undo", "edit.redo", None, "view.fit_all",
                   "view.reset_zoom", None, "sim.load_test", None, "view.command_palette")


def readouts_height(window_height: int) -> int:
    """The readouts dock's first height in a window ``window_height`` tall: about a third of it, within
    270-380 px (the dock's own minimum wins where it is taller)."""
    return max(270, min(380, round(0.36 * window_height)))


class AfterFirstPaint(QObject):
    """Calls ``then`` once, when any widget of ``window`` is first painted (or after
    ``FALLBACK_MS`` if no paint comes, as for a window shown minimised)."""

    FALLBACK_MS = 3000

    def __init__(self, window: QWidget, then) -> None:
        super().__init__(window)
        self.window, self.then, self.done = window, then, False
        QApplication.instance().installEventFilter(self)
        QTimer.singleShot(self.FALLBACK_MS, self, self.fire)

    def eventFilter(self, obj, event) -> bool:
        """On the window's first paint, fire once that paint is done; never consumes the event."""
        if (event.type() == QEvent.Type.Paint and isinstance(obj, QWidget) and obj.window() is self.window):
            QTimer.singleShot(0, self, self.fire)  # once this paint is done
        return False

    def fire(self) -> None:
        """Call ``then`` (only the first time)."""
        if not self.done:
            self.done = True
            QApplication.instance().removeEventFilter(self)
            self.then()


class FitWhileUntouched(QObject):
    """Fits the opened design again when the canvas is resized before anyone zoomed, scrolled or
    edited it (the window manager and the docks settle the canvas's size after the first paint,
    which left the design fitted to a size the canvas no longer has, cards cut at its edge)."""

    def __init__(self, view: CanvasView, document: DesignDocument):
        super().__init__(view)
        self.view = view
        self.shown: tuple | None = None  #: zoom and scroll the design was opened at (None: nothing to keep)
        document.changed.connect(self.forget)  # an edit: the view is the user's now

    def forget(self, *_args) -> None:
        """Stop refitting: the user zoomed or scrolled."""
        self.shown = None

    def state(self) -> tuple:
        """The view's (zoom, horizontal, vertical scroll) now."""
        view = self.view
        return round(view.zoom(), 9), view.horizontalScrollBar().value(), view.verticalScrollBar().value()

    def opened(self) -> None:
        """Remember the view as fitted when the design was opened."""
        self.shown = self.state()

    def eventFilter(self, watched, event) -> bool:
        """Refit the opened design after a resize, as long as the user has not moved the view."""
        if event.type() == QEvent.Type.Resize and self.untouched():
            before, self.shown = self.shown, None  # a second resize before the refit needs no second one
            QTimer.singleShot(0, self.view, lambda: self._refit(before))
        return False

    def untouched(self) -> bool:
        """Nobody zoomed or scrolled since the design was opened (or fitted again)."""
        return self.shown is not None and self.state() == self.shown

    def _refit(self, before: tuple) -> None:
        if self.state()[0] == before[0]:  # not zoomed in the meantime (a resize may move the scroll bars)
            self.view.fit_for_reading()
            self.opened()


class MainWindow(CanvasCommands, WindowCommands, QMainWindow):
    """The editor window: canvas, palette, inspector, outline, findings and readouts, menus and commands."""

    def __init__(self, data_folder: str | Path | None = None, theme_mode: str | None = None,
                 autosave_ms: int = INTERVAL_MS, evaluate: bool = True, restore_layout: bool = True,
                 features: Iterable[Feature] = ()):
        super().__init__()
        self.setObjectName("main_window")
        self._shown_once = False
        self.setWindowIcon(icons.app_icon())
        self.data_dir = user_data_dir(data_folder)
        self.settings = app_settings(self.data_dir)
        self.recent = RecentFiles(self.settings)
        self.theme_manager = ThemeManager(theme_mode or str(self.settings.value("view/theme", "system")), self)
        self.theme_manager.apply_palette()
        self.document = DesignDocument(parent=self)
        self.scene = DesignScene(self.document, self.theme_manager.theme, self)
        self.view = CanvasView(self.scene, self)
        self.refit = FitWhileUntouched(self.view, self.document)
        self.view.viewport().installEventFilter(self.refit)
        self.editor = CanvasEditor(self.document, self.scene, self)
        self.setCentralWidget(self.view)
        self.files = FileController(self.document, self, self.recent)
        self.autosaver = Autosaver(self.document, self.data_dir, autosave_ms, self)
        self.evaluator = Evaluator(self.document, self, auto=evaluate)
        self.load_runner = LoadTestRunner(self)
        self._build_docks()
        #: The window's actions and those of the features above the shell (see ``features``).
        self.action_specs = install_features(self, features)
        self.actions_by_id = build_actions(self, self.action_specs)
        self._install_field_undo()
        self._build_menus()
        self._build_toolbar()
        self._build_status()
        self.presenter = Presenter(self)
        self.fault_plan = FaultPlan(self)
        self.install_canvas_tools()
        self._connect()
        self._restore_settings(restore_layout)
        self.apply_theme(self.theme_manager.theme)
        self.update_title()
        self.update_edit_actions()
        QApplication.clipboard().dataChanged.connect(self.update_edit_actions)  # Paste: only with something copied

    # ------------------------------------------------------------------ building
    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{name}_dock")
        dock.setWidget(widget)
        dock.setAccessibleName(f"{title} panel")
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def _build_docks(self) -> None:
        self.docks: dict[str, QDockWidget] = {}
        # The readouts take the whole width at the bottom: the plots need it more than the side panels.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        self.component_palette = Palette(self.document.design.catalog, self)
        self.outline = Outline(self.document, self)
        self.inspector = Inspector(self.document, self)
        self.requirements = RequirementsEditor(self.document, self)
        self.history = QUndoView(self.document.undo_stack, self)
        self.history.setEmptyLabel("Opened design")
        self.history.setAccessibleName("Undo history")
        self.findings = FindingsPanel(self)
        self.findings.label_of = self.node_title
        self.readouts = ReadoutsPanel(lambda: self.document.design, self)
        self._dock("palette", "Palette", self.component_palette, left)
        self._dock("outline", "Outline", self.outline, left)
        inspector = self._dock("inspector", "Inspector", self.inspector, right)
        requirements = self._dock("requirements", "Requirements", self.requirements, right)
        history = self._dock("history", "History", self.history, right)
        findings = self._dock("findings", "Findings", self.findings, right)
        self.live_warnings = LiveWarnings(self)
        warnings = self._dock("warnings", "Warnings", self.live_warnings.panel, right)
        self.tabifyDockWidget(findings, warnings)
        findings.raise_()
        self._dock("readouts", "Readouts", self.readouts, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(inspector, requirements)
        self.tabifyDockWidget(requirements, history)
        inspector.raise_()
        self.component_palette.setMinimumWidth(170)
        self.outline.setMinimumWidth(170)
        self.inspector.setMinimumWidth(280)
        self.findings.setMinimumWidth(280)
        self.default_dock_sizes()

    def default_dock_sizes(self) -> None:
        """The first-run proportions (also applied after the first show, when sizes are real)."""
        inspector = self.docks["inspector"]
        # Narrower side columns on a small screen, so the canvas keeps its width.
        width = self.width()
        self.resizeDocks([self.docks["palette"], inspector], [min(240, round(0.16 * width)),
                                                             min(360, round(0.25 * width))], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["palette"], self.docks["outline"]], [470, 290], Qt.Orientation.Vertical)
        # The inspector's form gets the larger share of its column (its fields scroll less).
        self.resizeDocks([inspector, self.docks["findings"]], [580, 420], Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["readouts"]], [readouts_height(self.height())], Qt.Orientation.Vertical)

    def _install_field_undo(self) -> None:
        keys = [seq for action_id in ("edit.undo", "edit.redo") for seq in self.actions_by_id[action_id].shortcuts()]
        self.field_undo = FieldUndoFilter(self, keys)
        QApplication.instance().installEventFilter(self.field_undo)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.menus: dict[str, QMenu] = {}
        submenus: dict[tuple[str, str], QMenu] = {}
        for title in menu_order(self.action_specs):
            self.menus[title] = bar.addMenu(title)
        for spec in self.action_specs:
            action = self.actions_by_id.get(spec.id)
            if action is None:
                continue
            menu = self.menus[spec.menu]
            if spec.submenu:
                key = (spec.menu, spec.submenu)
                if key not in submenus:
                    submenus[key] = menu.addMenu(spec.submenu)
                menu = submenus[key]
            menu.addAction(action)
            if spec.id == "file.open":
                self.recent_menu = menu.addMenu("Open &Recent")
                self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
            if spec.separator_after:
                menu.addSeparator()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        for index, path in enumerate(paths, 1):
            action = self.recent_menu.addAction(f"&{index % 10} {Path(path).name}")
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.files.open(p))
        if not paths:
            self.recent_menu.addAction("No recent files").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear Recent Files", self.recent.clear)

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Main toolbar", self)
        toolbar.setObjectName("main_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        toolbar.setMovable(False)
        for action_id in TOOLBAR_ACTIONS:
            if action_id is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(self.actions_by_id[action_id])
        self.addToolBar(toolbar)

    def _build_status(self) -> None:
        status = self.statusBar()
        self.eval_label = QLabel("", self)
        self.eval_label.setAccessibleName("Evaluation status")
        self.selection_label = QLabel("", self)
        self.zoom_label = QLabel("Zoom 100%", self)
        self.zoom_label.setAccessibleName("Zoom")
        for label in (self.live_warnings.count_label, self.eval_label, self.selection_label, self.zoom_label):
            label.setContentsMargins(8, 0, 8, 0)
            status.addPermanentWidget(label)

    def _connect(self) -> None:
        doc = self.document
        doc.undo_stack.cleanChanged.connect(self.update_title)
        doc.file_changed.connect(self.update_title)
        doc.refused.connect(lambda text: self.show_message(f"Refused: {text}"))
        doc.changed.connect(self._on_model_event)
        doc.replaced.connect(self._on_replaced)
        stack = doc.undo_stack
        stack.canUndoChanged.connect(self.actions_by_id["edit.undo"].setEnabled)
        stack.canRedoChanged.connect(self.actions_by_id["edit.redo"].setEnabled)
        stack.undoTextChanged.connect(lambda t: self._name_undo_action("edit.undo", "Undo", t))
        stack.redoTextChanged.connect(lambda t: self._name_undo_action("edit.redo", "Redo", t))
        self.actions_by_id["edit.undo"].setEnabled(stack.canUndo())
        self.actions_by_id["edit.redo"].setEnabled(stack.canRedo())
        self.scene.selectionChanged.connect(self.on_selection_changed)
        self.scene.message.connect(self.show_message)
        self.scene.node_activated.connect(self.activate_node)
        self.scene.context_menu_requested.connect(self.show_context_menu)
        self.outline.selection_changed.connect(self._select_from_outline)
        self.outline.node_activated.connect(self.activate_node)
        self.component_palette.kind_activated.connect(self.add_component)
        self.view.kind_dropped.connect(lambda kind, pos: self.editor.add_kind_at(kind, pos))
        self.view.nudge_requested.connect(self.editor.nudge)
        self.view.zoom_changed.connect(self._zoom_changed)
        for widget in (self.inspector, self.requirements, self.files):
            widget.message.connect(self.show_message)
        self.files.recent_changed.connect(lambda: None)
        self.theme_manager.changed.connect(self.apply_theme)
        for name, dock in self.docks.items():
            action = self.actions_by_id.get(f"view.panel.{name}")
            if action is not None:
                dock.toggleViewAction().toggled.connect(action.setChecked)
        self.presenter.connect()

    def _name_undo_action(self, action_id: str, verb: str, command: str) -> None:
        """The menu says what would be undone; the toolbar button keeps its one word (so it never
        changes width), with a short tooltip."""
        action = self.actions_by_id[action_id]
        short = command if len(command) <= UNDO_TIP_CHARS else command[: UNDO_TIP_CHARS - 1].rstrip() + "…"
        action.setText(f"&{verb} {short}".strip())
        action.setIconText(verb)
        action.setToolTip(f"{verb} {short}".strip())

    def _restore_settings(self, restore_layout: bool) -> None:
        snap_grid = str(self.settings.value("canvas/snap_grid", "true")).lower() == "true"
        snap_lines = str(self.settings.value("canvas/snap_lines", "true")).lower() == "true"
        self.actions_by_id["view.snap_grid"].setChecked(snap_grid)
        self.actions_by_id["view.snap_lines"].setChecked(snap_lines)
        self.set_snap_grid(snap_grid)
        self.set_snap_lines(snap_lines)
        self.actions_by_id[f"view.theme_{self.theme_manager.mode}"].setChecked(True)
        if str(self.settings.value("view/projector", "false")).lower() == "true":
            self.actions_by_id["view.projector"].setChecked(True)
        fit_window(self, 1600, 1000)
        self._layout_restored = False
        if restore_layout:
            geometry = self.settings.value("window/geometry")
            state = self.settings.value("window/state")
            self._layout_restored = isinstance(state, QByteArray)
            if isinstance(geometry, QByteArray):
                self.restoreGeometry(geometry)
            if isinstance(state, QByteArray):
                self.restoreState(state)
        for name, dock in self.docks.items():
            action = self.actions_by_id.get(f"view.panel.{name}")
            if action is not None:
                action.setChecked(not dock.isHidden())

    def set_projector(self, on: bool) -> None:
        """Large type in the whole window, for a projector (remembered between runs)."""
        apply_projector_view(self, PROJECTOR_SCALE if on else 1.0)
        self.settings.setValue("view/projector", "true" if on else "false")

    def node_title(self, node_id: str) -> str:
        """The name a user knows a component by: its label, else its id."""
        node = self.document.design.nodes.get(node_id)
        return (node.label or node_id) if node is not None else node_id

    def save_layout(self) -> None:
        """Keep the window's size and dock layout in the settings."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    # ------------------------------------------------------------------ state shown
    def show_message(self, text: str, ms: int = 6000) -> None:
        """Show ``text`` in the status bar for ``ms`` milliseconds (0: until the next message)."""
        self.statusBar().showMessage(text, ms)

    def update_title(self, *_args) -> None:
        """Show the file name, a recovered mark, the design's title and the unsaved-changes mark."""
        title = self.document.design.metadata.get("title", "")
        name = self.document.display_name()
        recovered = " (recovered)" if self.document.recovered else ""
        self.setWindowTitle(f"{name}{recovered}[*] — {title} — Inferboard" if title else f"{name}[*] — Inferboard")
        self.setWindowModified(self.document.is_modified())

    def _on_model_event(self, event) -> None:
        if isinstance(event, ev.MetadataChanged):
            self.update_title()

    def _on_replaced(self) -> None:
        self.update_title()
        self.fit_opened_design()
        self.on_selection_changed()

    def fit_opened_design(self) -> None:
        """Fit a newly opened design for reading and say so when it is too large to read whole."""
        fitted = self.view.fit_for_reading()
        self.refit.opened()
        if not fitted:
            # No figure in the message: the zoom indicator beside it is the one place the zoom is given.
            self.show_message(READABLE_ZOOM_NOTE, 15000)

    def _zoom_changed(self, zoom: float) -> None:
        self.zoom_label.setText(f"Zoom {zoom * 100:.0f}%")
        self.zoom_label.setToolTip("How large the canvas is shown (View > Reset Zoom: 100%)")
        if self.statusBar().currentMessage() == READABLE_ZOOM_NOTE:
            self.statusBar().clearMessage()  # the note was about the opening zoom, which has changed

    def apply_theme(self, theme) -> None:
        """Apply ``theme`` to the palette, the canvas and every panel."""
        self.theme_manager.apply_palette()
        self.scene.set_theme(projected_theme(theme, getattr(self, "projector_scale", 1.0)))
        self.view.resetCachedContent()
        self.component_palette.set_dark(theme.dark)
        self.outline.set_dark(theme.dark)
        self.inspector.set_dark(theme.dark)
        self.findings.set_theme(theme)
        self.readouts.set_theme(theme)

    # ------------------------------------------------------------------ selection
    def on_selection_changed(self) -> None:
        """Show the canvas's selection in the inspector, the outline, the readouts and the edit commands."""
        nodes = self.scene.selected_node_ids()
        edges = self.scene.selected_edge_ids()
        self.inspector.show_selection(nodes)
        self.outline.select_ids(nodes, edges)
        parts = []
        if nodes:
            parts.append(f"{len(nodes)} component{'s' if len(nodes) != 1 else ''}")
        if edges:
            parts.append(f"{len(edges)} link{'s' if len(edges) != 1 else ''}")
        self.selection_label.setText(", ".join(parts) + " selected" if parts else "")
        self.update_edit_actions()
        self.presenter.selection_changed(nodes)

    def update_edit_actions(self) -> None:
        """Enable the edit commands that apply to what is selected."""
        has_nodes = bool(self.scene.selected_node_ids())
        has_any = has_nodes or bool(self.scene.selected_edge_ids())
        for action_id in ("edit.copy", "edit.cut", "edit.duplicate", "view.fit_selection"):
            self.actions_by_id[action_id].setEnabled(has_nodes)
        self.actions_by_id["edit.delete"].setEnabled(has_any)
        mime = QApplication.clipboard().mimeData()
        self.actions_by_id["edit.paste"].setEnabled(mime is not None and mime.hasFormat(FRAGMENT_MIME))

    def _select_from_outline(self, nodes: list, edges: list) -> None:
        self.scene.select_ids(nodes, edges)
        if nodes:
            rect = self.scene.nodes_rect(nodes)
            if not self.view.mapToScene(self.view.viewport().rect()).boundingRect().contains(rect):
                self.view.centerOn(rect.center())

    def activate_node(self, node_id: str) -> None:
        """Select ``node_id`` and open it in the inspector."""
        self.scene.select_ids([node_id])
        self.focus_inspector()

    def add_component(self, kind_id: str) -> str | None:
        """Add a ``kind_id`` component at a free spot in the visible centre; returns its id."""
        node_id = self.editor.add_kind_at(kind_id, self.view.visible_centre(), free=True)
        if node_id:
            self.view.setFocus()
        return node_id

    def show_context_menu(self, screen_pos) -> None:
        """Show the canvas's context menu at ``screen_pos``."""
        menu = QMenu(self)
        for action_id in ("edit.cut", "edit.copy", "edit.paste", "edit.duplicate", "edit.delete", None,
                          "edit.connect", "view.fit_selection"):
            if action_id is None:
                menu.addSeparator()
            else:
                menu.addAction(self.actions_by_id[action_id])
        menu.popup(screen_pos)

    def resizeEvent(self, event) -> None:
        """Make the readouts compact on a short window."""
        super().resizeEvent(event)
        compact = event.size().height() < COMPACT_BELOW_PX
        if compact != self.readouts.compact:
            self.readouts.set_compact(compact)

    def showEvent(self, event) -> None:
        """On first showing, lay the docks out for the screen unless a saved layout was restored."""
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            if not self._layout_restored:
                self.default_dock_sizes()
            # Fit the design to the real view size; the first evaluation, the plots and the warm-up
            # wait for the first paint, so that the window shows before they load the simulator.
            QTimer.singleShot(0, self.fit_opened_design)
            self.evaluator.hold()
            self._first_paint = AfterFirstPaint(self, self._after_first_paint)

    def _after_first_paint(self) -> None:
        """Start what the first paint waited for: the evaluation, then the plots and the warm-up."""
        self.evaluator.release()
        QTimer.singleShot(30, self.readouts.ensure_plots)
        QTimer.singleShot(60, self.evaluator.start_warmup)

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: QCloseEvent) -> None:
        """Leave projector mode, offer to save, stop the workers and keep the layout; refuse to close if cancelled."""
        projector = getattr(self, "projector_mode", None)
        if projector is not None and projector.active:
            projector.leave()
        if not self.files.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.readouts.playback.set_playing(False)
        self.autosaver.stop()
        self.load_runner.shutdown()
        self.evaluator.shutdown()
        event.accept()
