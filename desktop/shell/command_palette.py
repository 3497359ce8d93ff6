"""The command palette (every action, searchable, with its shortcut) and the shortcut help,
both built from the action table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLineEdit, QListWidget, QListWidgetItem,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from desktop.shell.actions import ACTIONS, ActionSpec, shortcut_text
from desktop.window_placement import fit_window

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def plain(title: str) -> str:
    """A menu title without its accelerator mark and trailing dots ("&Open…" is "Open")."""
    return title.replace("&", "").rstrip("…").rstrip(".")


class CommandPalette(QDialog):
    """Ctrl+Shift+P: every command by name, filtered as you type, run with Enter."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None, specs=None):
        super().__init__(parent)
        specs = specs if specs is not None else getattr(parent, "action_specs", ACTIONS)
        self.setWindowTitle("Command Palette")
        self.setObjectName("command_palette")
        self.actions_by_id = actions
        self.specs = [s for s in specs if s.id in actions]
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Type a command…")
        self.search.setAccessibleName("Search commands")
        self.list = QListWidget(self)
        self.list.setAccessibleName("Commands")
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list)
        fit_window(self, 520, 420)
        self.search.textChanged.connect(self.refilter)
        self.search.returnPressed.connect(self.run_current)
        self.list.itemActivated.connect(lambda _item: self.run_current())
        self.search.installEventFilter(self)
        self.refilter("")

    def refilter(self, text: str) -> None:
        """List the commands whose title or menu hold every word of ``text`` (disabled ones greyed)."""
        words = text.lower().split()
        self.list.clear()
        for spec in self.specs:
            action = self.actions_by_id[spec.id]
            menu = spec.menu.replace("&", "")
            label = f"{menu}: {plain(spec.title)}"
            if not all(w in (label + " " + spec.id).lower() for w in words):
                continue
            keys = shortcut_text(spec)
            item = QListWidgetItem(f"{label}\t{keys}" if keys else label)
            item.setData(ID_ROLE, spec.id)
            item.setToolTip(action.statusTip())
            if not action.isEnabled():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.list.addItem(item)
        for i in range(self.list.count()):
            if self.list.item(i).flags() & Qt.ItemFlag.ItemIsEnabled:
                self.list.setCurrentRow(i)
                break

    def visible_ids(self) -> list[str]:
        """The ids of the commands listed, in order."""
        return [self.list.item(i).data(ID_ROLE) for i in range(self.list.count())]

    def run_current(self) -> None:
        """Close and run the highlighted command (nothing for a disabled one)."""
        item = self.list.currentItem()
        if item is None or not item.flags() & Qt.ItemFlag.ItemIsEnabled:
            return
        action = self.actions_by_id[item.data(ID_ROLE)]
        self.accept()
        action.trigger()

    def eventFilter(self, obj, event) -> bool:
        """Let the arrow and page keys move through the list while the search field keeps the focus."""
        if obj is self.search and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 8, Qt.Key.Key_PageUp: -8}.get(
                Qt.Key(event.key()))
            if step and self.list.count():
                row = max(0, min(self.list.count() - 1, self.list.currentRow() + step))
                self.list.setCurrentRow(row)
                return True
        return super().eventFilter(obj, event)


class ShortcutsDialog(QDialog):
    """Help › Keyboard Shortcuts: every command that has keys, by menu."""

    def __init__(self, parent: QWidget | None = None, specs: tuple[ActionSpec, ...] | None = None):
        super().__init__(parent)
        specs = specs if specs is not None else getattr(parent, "action_specs", ACTIONS)
        self.setWindowTitle("Keyboard Shortcuts")
        rows = [s for s in specs if shortcut_text(s)]
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setHorizontalHeaderLabels(["Menu", "Command", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, spec in enumerate(rows):
            for column, text in enumerate((spec.menu.replace("&", ""), plain(spec.title), shortcut_text(spec))):
                item = QTableWidgetItem(text)
                if column == 1 and spec.tip:
                    item.setToolTip(spec.tip)
                self.table.setItem(row, column, item)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(2)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        fit_window(self, 620, 560)
