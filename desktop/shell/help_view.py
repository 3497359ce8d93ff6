"""Help > Getting Started: a short guide rendered from assets/help/getting-started.md."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from inferboard.paths import data_dir
from desktop.window_placement import fit_window


def guide_text() -> str:
    """The Getting Started guide, as Markdown."""
    return (data_dir("assets") / "help" / "getting-started.md").read_text(encoding="utf-8")


class GettingStarted(QDialog):
    """Help › Getting Started: the guide in a window of its own."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("getting_started")
        self.setWindowTitle("Getting Started")
        self.text = QTextBrowser(self)
        self.text.setAccessibleName("Getting started guide")
        self.text.setOpenExternalLinks(True)
        self.text.setMarkdown(guide_text())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        fit_window(self, 720, 680)
