"""New, Open, Save, Save As and recent files for the one open document, with a prompt before
unsaved work is lost. Dialogs go through ``ask_*`` methods so tests can answer them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from inferboard.model import Design
from inferboard.store import DesignFileError, SaveConflict, SaveFailed, read_design, save_design

from desktop.editor.document import DesignDocument
from desktop.settings import RecentFiles
from desktop.shell.templates import BLANK, is_bundled, template_list, templates
from desktop.shell.welcome import TemplateDialog

FILE_FILTER = "Inferboard designs (*.json);;All files (*)"
class FileController(QObject):
    """New, Open, Save and Save As for the window's document, with the unsaved-changes prompt and recent files."""

    #: A status-bar message.
    message = Signal(str)
    #: The list of recent files changed.
    recent_changed = Signal()

    def __init__(self, document: DesignDocument, window: QWidget, recent: RecentFiles):
        super().__init__(window)
        self.document = document
        self.window = window
        self.recent = recent

    # ------------------------------------------------------------------ dialogs (replaceable in tests)
    def ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel'."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to “{self.document.display_name()}” before closing it?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.window)
        box.setInformativeText("Your changes will be lost if you don't save them.")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(QMessageBox.StandardButton(answer), "cancel")

    def ask_open_path(self) -> str | None:
        """Ask which design file to open; None when cancelled."""
        start = str(self.document.path.parent) if self.document.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self.window, "Open design", start, FILE_FILTER)
        return path or None

    def ask_save_path(self) -> str | None:
        """Ask where to save the design (".json" added if missing); None when cancelled."""
        suggested = (self.document.path or self.document.suggested_path
                     or Path.home() / f"{self.document.design.metadata.get('title', 'design')}.json")
        path, _ = QFileDialog.getSaveFileName(self.window, "Save design as", str(suggested), FILE_FILTER)
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None

    def ask_template(self) -> str | None:
        """Ask which template a new design starts from; None when cancelled."""
        dialog = TemplateDialog(self.window)
        return dialog.choice() if dialog.exec() else None

    def ask_conflict(self, path: Path) -> str:
        """The file changed on disk: 'overwrite', 'save_as' or 'cancel'."""
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                          f"“{path.name}” was changed by another program since you opened it.", parent=self.window)
        overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
        save_as = box.addButton("Save As…", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return "overwrite" if clicked is overwrite else "save_as" if clicked is save_as else "cancel"

    def report_error(self, title: str, text: str) -> None:
        """Show an error message box titled ``title``."""
        QMessageBox.critical(self.window, title, text)

    # ------------------------------------------------------------------ operations
    def maybe_save(self) -> bool:
        """True if it is fine to drop the current design (saved, discarded or unchanged)."""
        if not self.document.is_modified():
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_blank(self) -> bool:
        """Start a blank design (after the unsaved-changes prompt); False when cancelled."""
        return self.new_from_template(BLANK)

    def new_from_template(self, name: str | None = None) -> bool:
        """Start a design from template ``name`` (asked for when None); False when cancelled."""
        if not self.maybe_save():
            return False
        name = name or self.ask_template()
        if name is None:
            return False
        path = templates().get(name, "missing")
        if path == "missing":
            self.report_error("New design", f"There is no template called “{name}”.")
            return False
        if path is None:
            design = Design()
        else:
            try:
                design, _ = read_design(path)
            except DesignFileError as error:
                self.report_error("New design", str(error))
                return False
        self.document.set_design(design)
        title = next((t.title for t in template_list() if t.name == name), name)
        self.message.emit("New blank design" if path is None else f"New design from the “{title}” template")
        return True

    def open(self, path: str | Path | None = None, check_unsaved: bool = True) -> bool:
        """Open the design at ``path`` (asked for when None); False when cancelled or unreadable."""
        if check_unsaved and not self.maybe_save():
            return False
        path = path or self.ask_open_path()
        if not path:
            return False
        try:
            design, stamp = read_design(path)
        except DesignFileError as error:
            self.report_error("Cannot open design", str(error))
            if not Path(path).exists():
                self.recent.remove(str(Path(path).resolve()))
                self.recent_changed.emit()
            return False
        if is_bundled(path):
            # A shipped example opens as an untitled copy: saving must never change the bundled file.
            self.document.set_design(design)
            self.document.suggested_path = str(Path.home() / Path(path).name)
            self.message.emit(f"Opened a copy of the example {Path(path).name}: Save asks where to keep it")
            return True
        self.document.set_design(design, Path(path).resolve(), stamp)
        self.recent.add(path)
        self.recent_changed.emit()
        self.message.emit(f"Opened {Path(path).name}")
        return True

    def save(self) -> bool:
        """Save to the design's file, or ask where when it has none; False when not saved."""
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path, self.document.stamp)

    def save_as(self) -> bool:
        """Ask for a file and save there; False when cancelled or not saved."""
        path = self.ask_save_path()
        if not path:
            return False
        same = self.document.path is not None and Path(path).resolve() == self.document.path
        return self.save_to(Path(path), self.document.stamp if same else None)

    def save_to(self, path: Path, expected=None) -> bool:
        """Save to ``path``, refusing shipped files and files changed on disk since ``expected``; False when not saved."""
        if is_bundled(path):
            self.report_error("Cannot save design", f"“{Path(path).name}” is a file shipped with Inferboard; "
                              "save your design somewhere else.")
            return False
        try:
            stamp = save_design(self.document.design, path, expected=expected)
        except SaveConflict:
            answer = self.ask_conflict(Path(path))
            if answer == "overwrite":
                return self.save_to(path, None)
            if answer == "save_as":
                return self.save_as()
            return False
        except SaveFailed as error:
            self.report_error("Cannot save design", str(error))
            return False
        self.document.set_file(Path(path).resolve(), stamp)
        self.recent.add(path)
        self.recent_changed.emit()
        self.message.emit(f"Saved {Path(path).name}")
        return True
