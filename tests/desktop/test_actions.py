"""Actions are data: menus, the command palette and the shortcut help come from one table, no two
actions share a key, and every control has an accessible name."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QApplication, QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit, QPlainTextEdit, QSlider,
                               QTextBrowser, QAbstractItemView, QWidget, QHeaderView)

from desktop.app import installed_features
from desktop.shell.actions import ActionSpec, clashes, key_sequences, shortcut_text, unreadable_keys
from desktop.shell.features import every_spec

#: The window's own actions and those the practice and workshop menus hand it.
ACTIONS = every_spec(installed_features())
from desktop.shell.command_palette import CommandPalette, ShortcutsDialog


def test_no_two_actions_share_a_key_alternates_included(qapp):
    assert unreadable_keys(ACTIONS) == []
    assert clashes(ACTIONS) == {}
    # Every key of every action counts, not only the first: the alternates are where Delete and
    # Duplicate once both took Ctrl+D.
    every_key = [seq.toString() for spec in ACTIONS for seq in key_sequences(spec)]
    assert len(every_key) == len(set(every_key))
    assert "Ctrl+D" in every_key and "Ctrl+Y" in every_key and "Backspace" in every_key


def test_keys_are_the_same_on_every_platform(qapp):
    """Qt's standard keys differ by platform (X11's Delete includes Ctrl+D), so the table spells
    every key out and the check above sees them all."""
    assert all(isinstance(key, str) for spec in ACTIONS for key in spec.shortcuts())
    assert unreadable_keys((ActionSpec("a.typo", "Typo", "&File", "Ctrl+Shfit+Q", "x"),)) != []


def test_the_clash_check_catches_a_shared_key(qapp):
    specs = (ActionSpec("a.one", "One", "&File", "Ctrl+D", "x"), ActionSpec("a.two", "Two", "&Edit", "Ctrl+D", "y"))
    assert clashes(specs) == {"Ctrl+D": ["a.one", "a.two"]}


def test_conventional_keys(qapp):
    keys = {spec.id: [s.toString(QKeySequence.SequenceFormat.PortableText) for s in key_sequences(spec)]
            for spec in ACTIONS}
    assert keys["view.fit_all"] == ["Shift+1"]
    assert keys["view.fit_selection"] == ["Shift+2"]
    assert keys["view.reset_zoom"] == ["Ctrl+0"]
    assert keys["view.command_palette"] == ["Ctrl+Shift+P"]
    assert "Ctrl+Z" in keys["edit.undo"] and "Ctrl+S" in keys["file.save"]
    assert set(keys["edit.nudge"]) == {"Left", "Right", "Up", "Down"}


def test_every_action_with_a_handler_is_in_a_menu_and_calls_an_existing_method(window):
    in_menus = set()

    def walk(menu):
        for action in menu.actions():
            if action.menu():
                walk(action.menu())
            elif action.objectName():
                in_menus.add(action.objectName())

    for menu in window.menus.values():
        walk(menu)
    with_handler = {spec.id for spec in ACTIONS if spec.handler}
    assert with_handler == set(window.actions_by_id) == in_menus
    for spec in ACTIONS:
        if spec.handler:
            assert callable(getattr(window, spec.handler))


def test_command_palette_lists_every_action_with_its_shortcut_and_runs_it(window):
    palette = CommandPalette(window.actions_by_id, window, window.action_specs)
    assert set(palette.visible_ids()) == set(window.actions_by_id)
    texts = [palette.list.item(i).text() for i in range(palette.list.count())]
    assert any("Fit Everything" in t and "Shift+1" in t for t in texts)
    palette.search.setText("reset zoom")
    assert palette.visible_ids() == ["view.reset_zoom"]
    window.view.set_zoom(2.0)
    palette.search.returnPressed.emit()
    assert abs(window.view.zoom() - 1.0) < 1e-9
    palette.deleteLater()


def test_command_palette_opens_from_its_shortcut_action(window, qtbot):
    window.actions_by_id["view.command_palette"].trigger()
    dialog = window._palette_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.search.setText("select all")
    dialog.search.returnPressed.emit()
    assert not dialog.isVisible()
    assert set(window.scene.selected_node_ids()) == set(window.document.design.nodes)


def test_shortcut_help_is_built_from_the_table(window):
    dialog = ShortcutsDialog(window, window.action_specs)
    rows = {dialog.table.item(r, 1).text(): dialog.table.item(r, 2).text() for r in range(dialog.table.rowCount())}
    assert rows["Fit Everything"] == QKeySequence("Shift+1").toString(QKeySequence.SequenceFormat.NativeText)
    assert "Nudge selection" in rows
    dialog.deleteLater()


def native(key: str) -> str:
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)


def test_shortcut_lists_show_native_names_not_raw_sequences(window):
    """Menus, the palette and the help show the keys a person presses ("Ctrl+Shift+Z or Ctrl+Y"),
    never Qt's raw list of bindings ("Ctrl+Z, F14, Undo")."""
    redo = next(spec for spec in ACTIONS if spec.id == "edit.redo")
    assert shortcut_text(redo) == f"{native('Ctrl+Shift+Z')} or {native('Ctrl+Y')}"
    raw_names = ("F14", "F16", "F18", "F20", "Undo", "Redo", "Copy", "Paste", "Cut", "Help", "Zoom In")
    dialog = ShortcutsDialog(window, window.action_specs)
    keys = [dialog.table.item(r, 2).text() for r in range(dialog.table.rowCount())]
    for text in keys:
        assert not any(part.strip() in raw_names for part in text.split(" or ")), text
    palette = CommandPalette(window.actions_by_id, window, window.action_specs)
    texts = [palette.list.item(i).text() for i in range(palette.list.count())]
    assert f"Edit: Undo\t{native('Ctrl+Z')}" in texts
    assert window.actions_by_id["edit.undo"].shortcut().toString() == "Ctrl+Z"  # the menu shows the first key
    dialog.deleteLater()
    palette.deleteLater()


def test_ctrl_d_duplicates_and_delete_deletes(window, qtbot):
    window.view.setFocus()
    window.scene.select_ids(["gpus"])
    before = set(window.document.design.nodes)
    qtbot.keyClick(window.view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    added = set(window.document.design.nodes) - before
    assert len(added) == 1 and "gpus" in window.document.design.nodes
    qtbot.keyClick(window.view, Qt.Key.Key_Backspace)
    assert set(window.document.design.nodes) == before


def test_undo_and_redo_from_a_focused_field(window, qtbot):
    """In a field, Ctrl+Z first undoes the field's own typing; once the field has nothing left to
    undo, the same key undoes the design; Ctrl+Y and Ctrl+Shift+Z redo."""
    design = window.document.design
    window.scene.select_ids(["gpus"])
    window.focus_inspector()
    field = window.inspector.label_edit
    qtbot.waitUntil(field.hasFocus)
    field.selectAll()
    qtbot.keyClicks(field, "Serving")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: design.node("gpus").label == "Serving")
    field = window.inspector.label_edit
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    while field.isUndoAvailable():  # the field's own history first
        qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert design.node("gpus").label == "Serving"
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # then the design's
    assert design.node("gpus").label != "Serving"
    field = window.inspector.label_edit
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    qtbot.keyClick(field, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert design.node("gpus").label == "Serving"
    window.scene.select_ids(["gpus"])
    spin = next(iter(window.inspector.editors.values()))
    spin.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert design.node("gpus").label != "Serving"
    focus = QApplication.focusWidget()
    qtbot.keyClick(focus, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert design.node("gpus").label == "Serving"


def test_view_menu_shows_and_hides_docks(window):
    action = window.actions_by_id["view.panel.findings"]
    assert action.isChecked()
    action.trigger()
    assert window.docks["findings"].isHidden() and not action.isChecked()
    action.trigger()
    assert not window.docks["findings"].isHidden() and action.isChecked()


def test_every_control_has_an_accessible_name_and_takes_focus(window):
    window.scene.select_ids(["gpus"])  # fill the inspector too
    controls = (QLineEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox, QAbstractButton, QSlider, QTextBrowser,
                QAbstractItemView)
    missing = []
    for widget in window.findChildren(QWidget):
        if (not isinstance(widget, controls) or isinstance(widget, QHeaderView) or not widget.isVisibleTo(window)
                or widget.objectName().startswith("qt_")):
            continue
        if type(widget).__name__ in ("QToolButton",) and widget.parent() is not None and \
                type(widget.parent()).__name__ in ("QTabBar", "QDockWidget", "QToolBar", "QScrollBar"):
            continue
        name = widget.accessibleName() or (widget.text() if isinstance(widget, QAbstractButton) else "")
        if not name.strip():
            missing.append(f"{type(widget).__name__} in {type(widget.parent()).__name__}")
        if widget.focusPolicy() == Qt.FocusPolicy.NoFocus and not isinstance(widget, QAbstractButton):
            missing.append(f"{type(widget).__name__} {name!r} cannot take focus")
    assert missing == [], missing


def test_keyboard_only_wiring_with_the_connect_dialog(window, monkeypatch):
    from desktop.editor import connect_dialog

    class Refused(connect_dialog.ConnectDialog):
        def exec(self):
            self.target.setCurrentIndex(self.target.findData("batcher"))
            assert "already wired" in self.status.text()
            assert not self.buttons.button(self.buttons.StandardButton.Ok).isEnabled()
            return 0  # the user cancels

    class Telemetry(connect_dialog.ConnectDialog):
        def exec(self):
            self.source_port.setCurrentIndex(self.source_port.findData("telemetry"))
            assert self.check() == ""
            return 1

    window.component_palette.kind_activated.emit("metrics_collector")
    window.scene.select_ids(["lb"])
    monkeypatch.setattr("desktop.shell.window_commands.ConnectDialog", Refused)
    assert not window.connect_dialog()
    window.scene.select_ids(["gpus", "metrics_collector-1"])
    monkeypatch.setattr("desktop.shell.window_commands.ConnectDialog", Telemetry)
    assert window.connect_dialog()
    assert any(e.source == "gpus" and e.source_port == "telemetry" and e.target == "metrics_collector-1"
               for e in window.document.design.edges.values())


def test_shortcut_keys_reach_their_actions(window, qtbot):
    window.view.setFocus()
    window.view.set_zoom(2.0)
    qtbot.keyClick(window.view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert abs(window.view.zoom() - 1.0) < 1e-9
    window.scene.select_ids(["gpus"])
    qtbot.keyClick(window.view, Qt.Key.Key_2, Qt.KeyboardModifier.ShiftModifier)
    assert window.view.zoom() > 1.0  # fitted to one card
    qtbot.keyClick(window.view, Qt.Key.Key_1, Qt.KeyboardModifier.ShiftModifier)
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes_rect())
    qtbot.keyClick(window.view, Qt.Key.Key_Delete)
    assert "gpus" not in window.document.design.nodes
    qtbot.keyClick(window.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "gpus" in window.document.design.nodes
