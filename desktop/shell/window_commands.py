"""The main window's commands: one method per handler named in the action table."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from inferboard import __version__
from inferboard.model import Edge, ops
from inferboard.store import DesignFileError, SaveFailed, design_to_bytes, parse_design, read_design
from inferboard.store.atomic import sweep_temporaries

from desktop.editor.canvas.view import LEGIBLE_ZOOM
from desktop.editor.connect_dialog import ConnectDialog
from desktop.editor.export import export_png as write_png
from desktop.editor.export import export_svg as write_svg
from desktop.editor.field_undo import run_step
from desktop.readouts.fault_editor import FaultEditor
from desktop.shell.autosave import Recoverable, find_recoverable
from desktop.shell.command_palette import CommandPalette, ShortcutsDialog
from desktop.shell.help_view import GettingStarted
from desktop.shell.templates import templates
from desktop.shell.welcome import WelcomeDialog

#: After Fit Everything, when the whole design only fits below the zoom the cards read at.
SMALL_FIT_NOTE = ("The whole design fits only too small to read its cards: zoom in on a part (the mouse wheel, "
                  "or select some and View > Fit Selection), or widen the canvas.")


class WindowCommands:
    """Mixed into MainWindow; ``self`` is the window."""

    # ------------------------------------------------------------------ file
    def new_blank(self) -> bool:
        """File › New Blank."""
        return self.files.new_blank()

    def new_design(self, template: str | None = None) -> bool:
        """File › New from a template (asked for when None)."""
        return self.files.new_from_template(template)

    def open_design(self, path: str | None = None) -> bool:
        """File › Open (the file asked for when ``path`` is None)."""
        return self.files.open(path)

    def save_design(self) -> bool:
        """File › Save."""
        return self.files.save()

    def save_design_as(self) -> bool:
        """File › Save As."""
        return self.files.save_as()

    def ask_export_path(self, suffix: str, title: str) -> str | None:
        """Ask where to export, beside the design by default, ``suffix`` added if missing."""
        base = self.document.path.with_suffix(suffix) if self.document.path else Path.home() / f"design{suffix}"
        path, _ = QFileDialog.getSaveFileName(self, title, str(base), f"{suffix[1:].upper()} (*{suffix})")
        if path and not path.lower().endswith(suffix):
            path += suffix
        return path or None

    def export_png(self, scale: int = 1, path: str | None = None) -> Path | None:
        """Export the canvas as a PNG at ``scale``; returns the path, or None when cancelled or failed."""
        path = path or self.ask_export_path(".png", f"Export PNG ({scale}x)")
        if not path:
            return None
        try:
            out = write_png(self.scene, path, float(scale))
        except SaveFailed as error:
            self.files.report_error("Export failed", str(error))
            return None
        self.show_message(f"Exported {Path(path).name}")
        return out

    def export_svg(self, path: str | None = None) -> Path | None:
        """Export the canvas as an SVG; returns the path, or None when cancelled or failed."""
        path = path or self.ask_export_path(".svg", "Export SVG")
        if not path:
            return None
        try:
            out = write_svg(self.scene, path, self.document.design.metadata.get("title", "Inferboard design"))
        except SaveFailed as error:
            self.files.report_error("Export failed", str(error))
            return None
        self.show_message(f"Exported {Path(path).name}")
        return out

    # ------------------------------------------------------------------ edit
    def undo(self) -> None:
        """The focused field's own undo while it has one, else the design's."""
        if run_step(self, "undo"):
            return
        self.scene.interactions.cancel()
        self.document.undo_stack.undo()

    def redo(self) -> None:
        """Redo the last undone edit (or the focused text field's, or a practice step's)."""
        if run_step(self, "redo"):
            return
        self.scene.interactions.cancel()
        self.document.undo_stack.redo()

    def cut(self) -> None:
        """Edit › Cut."""
        self.editor.cut()

    def copy(self) -> None:
        """Edit › Copy."""
        self.editor.copy()

    def paste(self) -> None:
        """Edit › Paste."""
        self.editor.paste()

    def duplicate(self) -> None:
        """Edit › Duplicate."""
        self.editor.duplicate()

    def delete_selection(self) -> None:
        """Edit › Delete."""
        self.editor.delete_selection()

    def select_all(self) -> None:
        """Edit › Select All."""
        self.editor.select_all()

    def focus_palette(self) -> None:
        """Show the palette and put the cursor in its search field."""
        self.docks["palette"].show()
        self.docks["palette"].raise_()
        self.component_palette.search.setFocus()
        self.component_palette.search.selectAll()

    def connect_dialog(self) -> bool:
        """Connect two components from the keyboard; True when a wire was added."""
        selected = self.scene.selected_node_ids()
        dialog = ConnectDialog(self.document.design, selected[0] if selected else None,
                               selected[1] if len(selected) > 1 else None, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        source, source_port, target, target_port = dialog.endpoints()
        edge = Edge(self.document.design.new_edge_id(), source, source_port, target, target_port)
        return self.document.execute(ops.AddEdge(edge), f"Connect {source} → {target}")

    # ------------------------------------------------------------------ view
    def zoom_in(self) -> None:
        """View › Zoom In."""
        self.view.zoom_in()

    def zoom_out(self) -> None:
        """View › Zoom Out."""
        self.view.zoom_out()

    def reset_zoom(self) -> None:
        """View › Actual Size."""
        self.view.reset_zoom()

    def fit_all(self) -> None:
        """Show the whole design; when that is too small to read the cards, say how to read them."""
        self.view.fit_all()
        if self.document.design.nodes and self.view.zoom() < LEGIBLE_ZOOM * getattr(self.view, "text_scale", 1.0):
            self.show_message(SMALL_FIT_NOTE, 15000)

    def fit_selection(self) -> None:
        """View › Fit Selection."""
        self.view.fit_selection()

    def set_snap_grid(self, on: bool) -> None:
        """Snap moved cards to the grid or not, and remember it."""
        self.scene.snap_to_grid = bool(on)
        self.settings.setValue("canvas/snap_grid", bool(on))

    def set_snap_lines(self, on: bool) -> None:
        """Snap moved cards to their neighbours' edges or not, and remember it."""
        self.scene.snap_lines = bool(on)
        self.settings.setValue("canvas/snap_lines", bool(on))

    def focus_canvas(self) -> None:
        """Give the canvas the keyboard focus."""
        self.view.setFocus()

    def focus_outline(self) -> None:
        """Show the outline and give it the keyboard focus."""
        self.docks["outline"].show()
        self.docks["outline"].raise_()
        self.outline.tree.setFocus()

    def focus_inspector(self) -> None:
        """Show the inspector and put the cursor in its first field."""
        self.docks["inspector"].show()
        self.docks["inspector"].raise_()
        editors = list(self.inspector.editors.values())
        if self.inspector.label_edit is not None:
            self.inspector.label_edit.setFocus()
        elif editors:
            editors[0].setFocus()
        else:
            self.inspector.setFocus()

    def set_theme_mode(self, mode: str) -> None:
        """Use the "light", "dark" or "system" theme, and remember it."""
        self.theme_manager.set_mode(mode)
        self.settings.setValue("view/theme", mode)

    def toggle_dock(self, name: str) -> None:
        """Show or hide dock ``name``."""
        dock = self.docks[name]
        dock.setVisible(not dock.isVisible())
        if dock.isVisible():
            dock.raise_()

    def command_palette(self) -> None:
        """Open the command palette."""
        dialog = CommandPalette(self.actions_by_id, self, self.action_specs)
        self._palette_dialog = dialog
        dialog.open()

    def show_getting_started(self):
        """Show the Getting Started guide (one window, raised if already open)."""
        dialog = getattr(self, "guide_dialog", None)
        if dialog is None:
            dialog = self.guide_dialog = GettingStarted(self)
        dialog.show()
        dialog.raise_()
        return dialog

    def make_welcome(self):
        """The welcome dialog with the recent files."""
        show = str(self.settings.value("view/welcome", "true")).lower() == "true"
        return WelcomeDialog(self.recent.paths(), show, self)

    def show_welcome(self) -> str | None:
        """The welcome screen; does what was picked there. Returns the choice (None: closed)."""
        dialog = self.make_welcome()
        dialog.exec()
        self.settings.setValue("view/welcome", "true" if dialog.show_at_start.isChecked() else "false")
        choice = dialog.outcome()
        dialog.deleteLater()
        if choice is None:
            return None
        if choice.startswith("template:"):
            self.files.new_from_template(choice.split(":", 1)[1])
        elif choice == "open":
            self.files.open()
        elif choice.startswith("recent:"):
            self.files.open(choice.split(":", 1)[1])
        elif choice == "guide":
            self.show_getting_started()
        return choice

    def welcome_at_start(self) -> None:
        """Show the welcome dialog at start-up unless the user turned it off."""
        if str(self.settings.value("view/welcome", "true")).lower() == "true":
            self.show_welcome()

    def show_shortcuts(self) -> None:
        """Show every keyboard shortcut."""
        ShortcutsDialog(self, self.action_specs).exec()

    def show_about(self) -> None:
        """Help › About Inferboard."""
        QMessageBox.about(self, "About Inferboard",
                          f"<b>Inferboard {__version__}</b><p>A whiteboard trainer for ML-inference system design: "
                          "draw a serving architecture, check it against the rubrics and watch it run.</p>")

    # ------------------------------------------------------------------ simulate
    def evaluate_now(self) -> None:
        """Evaluate the design now, without waiting for the debounce."""
        self.evaluator.schedule(immediate=True)

    def toggle_play(self) -> None:
        """Play or pause the simulated day."""
        self.readouts.playback.toggle_play()

    def run_load_test(self, n_requests: int | None = None) -> bool:
        """Run a load test of ``n_requests`` at the figures' rate; False if one is running already."""
        n = n_requests or self.readouts.load_test.requests.value()
        if self.load_runner.running():
            return False
        self.readouts.load_test.set_running(True)
        rps, basis = self.readouts.load_test_rate()
        self.show_message(f"Load test: simulating {n:,} requests at {basis}…")
        self.docks["readouts"].show()
        return self.load_runner.start(design_to_bytes(self.document.design), n, rps=rps)

    def cancel_load_test(self) -> None:
        """Stop the running load test."""
        if self.load_runner.running():
            self.load_runner.cancel()
            self.show_message("Cancelling the load test…")

    def clear_faults(self) -> None:
        """Remove every planned fault as one undo step."""
        self.fault_plan.set_faults((), "Clear faults")

    def edit_faults(self):
        """The fault editor (one per window, non-modal)."""
        editor = getattr(self, "fault_editor", None)
        if editor is None:
            editor = FaultEditor(self.document, self.fault_plan.set_faults, self.readouts.fault_plan.fault_start_s, self)
            self.fault_editor = editor
            self.readouts.playback.scrub.valueChanged.connect(lambda _i: editor.set_playhead(self.fault_plan.playhead_s()))
        editor.set_playhead(self.fault_plan.playhead_s())
        editor.show()
        editor.raise_()
        editor.activateWindow()
        return editor

    # ------------------------------------------------------------------ recovery
    def ask_recover(self, entry: Recoverable) -> str:
        """'recover', 'discard' or 'later'."""
        box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved work",
                          "Inferboard found unsaved work from a session that ended unexpectedly:",
                          parent=self)
        box.setInformativeText(entry.describe())
        recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton("Decide Later", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(recover)
        box.exec()
        clicked = box.clickedButton()
        return "recover" if clicked is recover else "discard" if clicked is discard else "later"

    def offer_recovery(self) -> bool:
        """At start: remove the temporary files crashed saves left beside the recent files, then
        offer each autosave left by a session that did not exit cleanly. True if one was recovered."""
        for folder in {Path(path).parent for path in self.recent.paths()}:
            sweep_temporaries(folder)
        for entry in find_recoverable(self.data_dir):
            answer = self.ask_recover(entry)
            if answer == "discard":
                entry.discard()
            elif answer == "recover":
                if self.recover(entry):
                    return True
        return False

    def recover(self, entry: Recoverable) -> bool:
        """Open the autosaved design of ``entry`` as recovered (unsaved); False when cancelled or unreadable."""
        if self.document.is_modified() and not self.files.maybe_save():
            return False
        try:
            design = parse_design(entry.design_file.read_bytes(), str(entry.design_file))
        except (OSError, DesignFileError) as error:
            self.files.report_error("Cannot recover", str(error))
            return False
        self.document.set_design(design, recovered=True)
        self.document.suggested_path = entry.original_path
        entry.discard()
        self.autosaver.save_now()
        self.show_message(f"Recovered {entry.describe()}. Save it to keep it.")
        return True

    def load_start_design(self) -> None:
        """A new window opens on the starter example as an untitled design."""
        path = templates().get("starter")
        if path is not None:
            try:
                design, _ = read_design(path)
            except DesignFileError:
                return
            self.document.set_design(design)
