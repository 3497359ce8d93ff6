"""Choose a scenario: every pack with its scenarios (difficulty, length, topics), a filter, the
chosen scenario's summary, and pack import/export through the engine's library."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QMessageBox, QPushButton, QSplitter, QTextBrowser, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from inferboard.practice.library import ScenarioEntry, ScenarioLibrary
from inferboard.practice.packzip import PackError

from desktop.practice.common import esc, phase_name
from desktop.theme import LIGHT_INK
from desktop.window_placement import fit_window

ID_ROLE = Qt.ItemDataRole.UserRole
KIND_ROLE = Qt.ItemDataRole.UserRole + 1
DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


class ScenarioLibraryDialog(QDialog):
    """``exec()`` then read ``chosen`` (a ScenarioEntry) and ``mode`` ("solo" or "mock")."""

    def __init__(self, library: ScenarioLibrary, parent: QWidget | None = None, mode: str = "solo"):
        super().__init__(parent)
        self.setWindowTitle("Practice scenarios")
        self.setAccessibleName("Practice scenarios")
        self.library = library
        self.chosen: ScenarioEntry | None = None
        self.mode = mode
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Filter by title, topic or id")
        self.search.setAccessibleName("Filter scenarios")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self.fill())
        self.difficulty = QComboBox(self)
        self.difficulty.setAccessibleName("Difficulty")
        for text, value in (("Any difficulty", None), ("Easy", "easy"), ("Medium", "medium"), ("Hard", "hard")):
            self.difficulty.addItem(text, value)
        self.difficulty.currentIndexChanged.connect(lambda _i: self.fill())
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("scenarios")
        self.tree.setAccessibleName("Scenario packs and scenarios")
        self.tree.setHeaderLabels(["Scenario", "Difficulty", "Minutes", "Topics"])
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        header.resizeSection(1, 80)
        header.resizeSection(2, 64)
        header.resizeSection(3, 260)
        self.tree.currentItemChanged.connect(lambda *_: self.show_details())
        self.tree.itemActivated.connect(lambda item, _c: self._activated(item))
        self.details = QTextBrowser(self)
        self.details.setAccessibleName("Scenario details")
        self.details.setOpenLinks(False)
        self.problems = QLabel("", self)
        self.problems.setWordWrap(True)
        self.problems.setAccessibleName("Library problems")
        self.problems.setStyleSheet(f"color: {LIGHT_INK.caution};")
        self.import_button = QPushButton("&Import pack…", self)
        self.import_button.clicked.connect(lambda: self.import_pack())
        self.export_button = QPushButton("&Export…", self)
        self.export_button.setToolTip("Write the selected pack, or the selected scenario as a pack, to a zip file")
        self.export_button.clicked.connect(lambda: self.export_selected())
        self.remove_button = QPushButton("&Remove pack", self)
        self.remove_button.clicked.connect(self.remove_selected)
        self.buttons = QDialogButtonBox(self)
        self.start_solo = self.buttons.addButton("Start &practice", QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_mock = self.buttons.addButton("Start &mock interview", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.start_solo.clicked.connect(lambda: self.choose("solo"))
        self.start_mock.clicked.connect(lambda: self.choose("mock"))
        self.buttons.rejected.connect(self.reject)
        (self.start_solo if mode == "solo" else self.start_mock).setDefault(True)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.difficulty)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.details)
        splitter.setSizes([640, 420])
        packs = QHBoxLayout()
        for button in (self.import_button, self.export_button, self.remove_button):
            packs.addWidget(button)
        packs.addStretch(1)
        packs.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.problems)
        layout.addLayout(packs)
        fit_window(self, 1100, 640)
        self.fill()

    # ------------------------------------------------------------------ listing
    def _matches(self, entry: ScenarioEntry) -> bool:
        wanted = self.difficulty.currentData()
        if wanted and entry.scenario.difficulty != wanted:
            return False
        needle = self.search.text().strip().lower()
        if not needle:
            return True
        s = entry.scenario
        return any(needle in text.lower() for text in (s.id, s.title, s.summary, *s.tags))

    def fill(self, select: str | None = None) -> None:
        """List the packs and their scenarios, selecting ``select`` (else what was selected)."""
        current = select or self.selected_id()
        self.tree.clear()
        restore = None
        for pack_id, pack in self.library.packs.items():
            entries = [self.library.entries[s] for s in pack.scenario_ids if s in self.library.entries]
            entries = sorted((e for e in entries if self._matches(e)),
                             key=lambda e: (DIFFICULTY_ORDER.get(e.scenario.difficulty, 9), e.scenario.title))
            origin = "shipped" if pack.shipped else "imported"
            top = QTreeWidgetItem([f"{pack.info.title}  ({len(pack.scenario_ids)} scenarios, {origin})", "", "", ""])
            top.setData(0, ID_ROLE, pack_id)
            top.setData(0, KIND_ROLE, "pack")
            top.setToolTip(0, pack.info.description or pack.info.title)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            for entry in entries:
                s = entry.scenario
                item = QTreeWidgetItem([s.title, s.difficulty, f"{s.total_minutes:g}", ", ".join(s.tags)])
                item.setData(0, ID_ROLE, entry.id)
                item.setData(0, KIND_ROLE, "scenario")
                item.setToolTip(0, s.summary)
                item.setToolTip(3, ", ".join(s.tags))
                top.addChild(item)
                if entry.id == current or (restore is None and current is None):
                    restore = item
            top.setExpanded(True)
            if pack_id == current:
                restore = top
        if restore is not None:
            self.tree.setCurrentItem(restore)
        text = "\n".join(self.library.problems[:6])
        self.problems.setText(f"Some scenarios could not be loaded:\n{text}" if text else "")
        self.problems.setVisible(bool(text))
        self.show_details()

    def selected_id(self) -> str | None:
        """The selected scenario's or pack's id, or None."""
        item = self.tree.currentItem()
        return None if item is None else item.data(0, ID_ROLE)

    def selected_entry(self) -> ScenarioEntry | None:
        """The selected scenario, or None when a pack or nothing is selected."""
        item = self.tree.currentItem()
        if item is None or item.data(0, KIND_ROLE) != "scenario":
            return None
        return self.library.entries.get(item.data(0, ID_ROLE))

    def select(self, scenario_id: str) -> None:
        """Select scenario ``scenario_id``."""
        self.fill(select=scenario_id)

    def show_details(self) -> None:
        """Show the selected scenario's brief, or the selected pack's description."""
        entry = self.selected_entry()
        item = self.tree.currentItem()
        pack = self.library.packs.get(item.data(0, ID_ROLE)) if item is not None else None
        self.start_solo.setEnabled(entry is not None)
        self.start_mock.setEnabled(entry is not None)
        self.export_button.setEnabled(item is not None)
        self.remove_button.setEnabled(pack is not None and not pack.shipped)
        if entry is None:
            if pack is not None:
                self.details.setHtml(f"<h3>{esc(pack.info.title)}</h3><p>{esc(pack.info.description)}</p>"
                                     f"<p>Version {esc(pack.info.version)}"
                                     + (f" · by {esc(pack.info.author)}" if pack.info.author else "") + "</p>")
            else:
                self.details.setHtml("<p>Choose a scenario.</p>")
            return
        s = entry.scenario
        phases = "".join(f"<li>{esc(phase_name(p.name))}: {p.minutes:g} min</li>" for p in s.phases)
        rubrics = ", ".join(esc(r.rubric.replace("_", " ")) for r in s.rubrics)
        self.details.setHtml(
            f"<h3>{esc(s.title)}</h3><p><b>{esc(s.difficulty.title())}</b> · {s.total_minutes:g} minutes · "
            f"{len(s.questions)} clarifying questions · {len(s.follow_ups)} follow-ups</p>"
            f"<p>{esc(s.summary)}</p><p><b>Topics:</b> {esc(', '.join(s.tags)) or '—'}</p>"
            f"<p><b>Phases</b></p><ul>{phases}</ul><p><b>Judged on:</b> {rubrics} and your clarifying questions</p>")

    def _activated(self, item: QTreeWidgetItem) -> None:
        if item.data(0, KIND_ROLE) == "scenario":
            self.choose(self.mode)

    def choose(self, mode: str) -> None:
        """Close with the selected scenario, to practise in ``mode`` ("solo" or "mock")."""
        entry = self.selected_entry()
        if entry is None:
            return
        self.chosen, self.mode = entry, mode
        self.accept()

    # ------------------------------------------------------------------ packs
    def import_pack(self, path: str | Path | None = None, replace: bool = False) -> bool:
        """Import a pack zip (asked for when None; ``replace`` an older version); False when refused."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Import a scenario pack", str(Path.home()),
                                                  "Scenario packs (*.zip)")
            if not path:
                return False
        try:
            pack = self.library.import_pack(Path(path), replace=replace)
        except PackError as error:
            if "already installed" in str(error) and not replace and self._ask(
                    "Replace pack", f"{error}\n\nReplace the installed pack?"):
                return self.import_pack(path, replace=True)
            self._error("Import failed", str(error))
            return False
        self.fill(select=pack.info.id)
        return True

    def export_selected(self, path: str | Path | None = None) -> Path | None:
        """Export the selected pack or scenario as a zip to ``path`` (asked for when None)."""
        item_id = self.selected_id()
        if item_id is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export scenarios", str(Path.home() / f"{item_id}.zip"),
                                                  "Scenario packs (*.zip)")
            if not path:
                return None
        try:
            return self.library.export(item_id, Path(path))
        except (PackError, OSError) as error:
            self._error("Export failed", str(error))
            return None

    def remove_selected(self) -> None:
        """Remove the selected imported pack (after asking)."""
        item_id = self.selected_id()
        pack = self.library.packs.get(item_id or "")
        if pack is None or pack.shipped:
            return
        if self._ask("Remove pack", f"Remove the imported pack “{pack.info.title}” and its scenarios?"):
            try:
                self.library.remove_pack(pack.info.id)
            except (PackError, OSError) as error:
                self._error("Remove failed", str(error))
            self.fill()

    # The two message boxes are methods so that tests can answer them.
    def _ask(self, title: str, text: str) -> bool:
        return QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

    def _error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)


def choose_scenario(library: ScenarioLibrary, parent: QWidget | None = None,
                    mode: str = "solo") -> tuple[ScenarioEntry, str] | None:
    """Ask which scenario, and solo or mock; returns (entry, mode), or None when cancelled."""
    dialog = ScenarioLibraryDialog(library, parent, mode)
    if dialog.exec() != QDialog.DialogCode.Accepted or dialog.chosen is None:
        return None
    return dialog.chosen, dialog.mode
