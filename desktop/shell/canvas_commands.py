"""The main window's canvas tools: find on canvas, the minimap, align and distribute, group and
ungroup, and the keys to the requirements. One method per handler named in the action table;
``self`` is the window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QPlainTextEdit, QTextEdit

from inferboard.model import EditRefused, ops

from desktop.editor.canvas import arrange
from desktop.editor.canvas.minimap import Minimap
from desktop.editor.canvas.overlay import CornerPin
from desktop.shell.canvas_find import CanvasFinder


class CanvasCommands:
    """Mixed into MainWindow."""

    def install_canvas_tools(self) -> None:
        """Create the canvas's overlays (called once the window's parts exist)."""
        self.finder = CanvasFinder(self)
        self.minimap = Minimap(self.view, lambda: self.document.design)
        self.minimap_pin = CornerPin(self.minimap, self.view, Qt.Corner.BottomRightCorner)
        self.document.changed.connect(self.minimap.invalidate)
        self.document.replaced.connect(self.minimap.invalidate)
        self.view.zoom_changed.connect(self.minimap.update)
        self.theme_manager.changed.connect(self.minimap.set_theme)
        self.minimap.set_theme(self.theme_manager.theme)
        shown = str(self.settings.value("view/minimap", "false")).lower() == "true"
        self.actions_by_id["view.minimap"].setChecked(shown)
        self.set_minimap(shown)

    # ------------------------------------------------------------------ minimap
    def set_minimap(self, on: bool) -> None:
        """Show or hide the minimap (remembered between runs)."""
        self.minimap.setVisible(bool(on))
        if on:
            self.minimap_pin.place()
            self.minimap.raise_()
        self.settings.setValue("view/minimap", "true" if on else "false")

    # ------------------------------------------------------------------ find
    def find_on_canvas(self) -> None:
        """Open the find bar over the canvas."""
        self.finder.open()

    def find_next(self) -> None:
        """Go to the next match of the find bar's text."""
        self._find_step(1)

    def find_previous(self) -> None:
        """Go to the previous match of the find bar's text."""
        self._find_step(-1)

    def _find_step(self, direction: int) -> None:
        """F3 / Shift+F3: with the bar closed, open it (the last search is kept) and step."""
        if not self.finder.is_open():
            self.finder.open()
        self.finder.step(direction)

    # ------------------------------------------------------------------ arrange
    @staticmethod
    def _typing_in_a_field() -> bool:
        """Whether the keyboard focus is in a text or number field, where the arrange keys
        (Ctrl+Shift+V among them) belong to the field and must not move cards."""
        return isinstance(QApplication.focusWidget(), (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox))

    def align_selection(self, edge: str) -> bool:
        """Line the selected components up on one edge or centre (one undo step)."""
        if self._typing_in_a_field():
            return False
        op = arrange.align_op(self.document.design, self.scene.selected_node_ids(), edge)
        return self._arrange(op, "Select two or more components to align them.")

    def distribute_selection(self, axis: str) -> bool:
        """Equal gaps between the selected components across ("x") or down ("y")."""
        if self._typing_in_a_field():
            return False
        op = arrange.distribute_op(self.document.design, self.scene.selected_node_ids(), axis)
        return self._arrange(op, "Select three or more components to distribute them.")

    def _arrange(self, op: ops.Compound | None, hint: str) -> bool:
        if op is None:
            self.show_message(hint)
            return False
        return self.document.execute(op, op.title)

    def group_selection(self) -> bool:
        """Put the selected cards in a new region fitted round them (one undo step)."""
        if self._typing_in_a_field():
            return False
        design = self.document.design
        region_id = design.new_node_id("region")
        try:
            op = arrange.group_op(design, self.scene.selected_node_ids(), region_id)
        except EditRefused as refused:
            self.show_message(f"Cannot group: {refused}")
            return False
        if not self.document.execute(op, op.title):
            return False
        self.scene.select_ids([region_id])
        return True

    def ungroup_selection(self) -> bool:
        """Remove the selected region (or the selected cards' region); its members stay put."""
        if self._typing_in_a_field():
            return False
        design = self.document.design
        try:
            op = arrange.ungroup_op(design, self.scene.selected_node_ids())
        except EditRefused as refused:
            self.show_message(f"Cannot ungroup: {refused}")
            return False
        members = [step.node_id for step in op.ops if isinstance(step, ops.SetRegion)]
        if not self.document.execute(op, op.title):
            return False
        self.scene.select_ids(members)
        return True

    # ------------------------------------------------------------------ keyboard
    def focus_requirements(self) -> None:
        """Show the requirements panel and put the keys in its first field."""
        self.docks["requirements"].show()
        self.docks["requirements"].raise_()
        self.requirements.title.setFocus()
