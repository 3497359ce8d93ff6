"""The parts of the main window that its helpers (the presenter, the fault plan) work with.

``MainWindow`` has every one of them; the helpers are typed against this protocol instead of the
window, so they never import the window that owns them."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QLabel

from desktop.editor.canvas.scene import DesignScene
from desktop.editor.canvas.view import CanvasView
from desktop.editor.document import DesignDocument
from desktop.editor.inspector import Inspector
from desktop.findings.dock import FindingsPanel
from desktop.readouts.dock import ReadoutsPanel
from desktop.readouts.loadtest import LoadTestRunner
from desktop.shell.evaluation import Evaluator


class WindowParts(Protocol):
    """What the window's helpers (presenter, fault plan, commands) need of the main window."""

    document: DesignDocument
    scene: DesignScene
    view: CanvasView
    inspector: Inspector
    findings: FindingsPanel
    readouts: ReadoutsPanel
    evaluator: Evaluator
    load_runner: LoadTestRunner
    eval_label: QLabel

    def show_message(self, text: str, ms: int = 6000) -> None:
        """Show ``text`` in the status bar for ``ms`` milliseconds."""

    def run_load_test(self, n_requests: int | None = None) -> bool:
        """Load-test the design with ``n_requests`` at the figures' rate; False if one is running already."""

    def cancel_load_test(self) -> None:
        """Stop the running load test."""

    def edit_faults(self):
        """Open the fault editor."""
