"""The "Working" tab of the readouts: how the selected figure came about, in plain words first
(node labels, units people use), with the simulator's own notation behind a "details" toggle."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication, QCheckBox, QTextBrowser, QVBoxLayout, QWidget

from desktop.readouts.readings import PLAYHEAD, Reading


def _words(key: str, reading: Reading | None, steady: Any, design: Any) -> str:
    try:
        # the simulator loads on first use, not at start-up
        from inferboard.sim.explain.plain_words import steady_words, timeline_words
    except ImportError:
        return ""
    try:
        if reading is not None and reading.mode == PLAYHEAD and getattr(reading, "source", None) is not None:
            return timeline_words(reading.source, reading.index or 0, design, key)
        if steady is not None and hasattr(steady, "network"):
            return steady_words(steady, design, key)
    except Exception as error:  # an explanation must never break the window
        return f"(no explanation: {error})"
    return ""


class WorkingView(QWidget):
    """The Working tab: a figure in plain words, then the simulator's notation for how it was worked out."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.key: str | None = None
        self.browser = QTextBrowser(self)
        self.browser.setAccessibleName("Working")
        self.browser.setPlaceholderText("Click a figure to see how it was worked out.")
        self.details = QCheckBox("Show the simulator's notation", self)
        self.details.setAccessibleName("Show the simulator's notation")
        self.details.toggled.connect(lambda _on: self._render())
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self.browser, 1)
        column.addWidget(self.details)
        self._parts: tuple[str, str, str, str] = ("", "", "", "")

    def set_scale(self, scale: float) -> None:
        """Size the text for ``scale`` from the application's font."""
        font = self.browser.font()
        if not hasattr(self, "base_point_size"):  # the application's: the panel's may be scaled already
            app_size = QApplication.font().pointSizeF()
            self.base_point_size = app_size if app_size > 0 else 9.0
        font.setPointSizeF(self.base_point_size * scale)
        self.browser.setFont(font)
        self.browser.document().setDefaultFont(font)

    def plain_summary(self, key: str, reading: Reading | None, steady: Any, design: Any) -> str:
        """The first sentence of the plain-words working, without Markdown (for a tooltip)."""
        text = _words(key, reading, steady, design)
        return text.split("\n", 1)[0].replace("**", "")

    def show_figure(self, key: str, title: str, reading: Reading | None, steady: Any, design: Any,
                    notation: str) -> None:
        """Show figure ``key``: its value, the basis, the words and the ``notation``."""
        self.key = key
        basis = reading.basis if reading is not None else ""
        words = _words(key, reading, steady, design) or "No figures yet."
        self._parts = (title, basis, words, notation)
        self._render()

    def _render(self) -> None:
        title, basis, words, notation = self._parts
        if not title:
            return
        text = f"### {title}\n\n{words}\n\n"
        if basis:
            text += f"*{basis}*\n\n"
        if self.details.isChecked() and notation:
            text += "#### The simulator's notation (steady state)\n\n" + "\n\n".join(
                f"    {line}" for line in notation.splitlines()) + "\n"
        self.browser.setMarkdown(text)
