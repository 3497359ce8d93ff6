"""The main window's canvas tools: find on canvas, the minimap, align and distribute, group and
ungroup. One method per handler named in the action table; ``self`` is the window."""

from __future__ import annotations

from desktop.shell.canvas_find import CanvasFinder


class CanvasCommands:
    """Mixed into MainWindow."""

    def install_canvas_tools(self) -> None:
        """Create the canvas's overlays (called once the window's parts exist)."""
        self.finder = CanvasFinder(self)

    # ------------------------------------------------------------------ find
    def find_on_canvas(self) -> None:
        self.finder.open()

    def find_next(self) -> None:
        self._find_step(1)

    def find_previous(self) -> None:
        self._find_step(-1)

    def _find_step(self, direction: int) -> None:
        """F3 / Shift+F3: with the bar closed, open it (the last search is kept) and step."""
        if not self.finder.is_open():
            self.finder.open()
        self.finder.step(direction)
