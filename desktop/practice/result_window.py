"""The result screen of a submitted attempt (solo or mock): the grade, then pages for the scores,
the lost points with their findings, the reference beside the user's design and the follow-ups
replayed as what-if runs; the report exports to self-contained HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from desktop.closable import close_button, close_on_escape
from desktop.practice.common import esc, mmss
from desktop.practice.report_export import ask_report_path, slug, write_report
from desktop.practice.result_pages import ComparePage, LostPointsPage, ScoresPage, WhatIfPage, score_colour
from desktop.window_placement import fit_window


class ResultWindow(QWidget):
    """``html()`` builds the report when it is exported; ``open_replay`` and ``open_history``
    (optional) add their buttons; ``show_nodes`` selects components in the editor."""

    def __init__(self, result: Mapping[str, Any], parent: QWidget | None = None,
                 html: Callable[[], str] | None = None, open_replay: Callable[[], Any] | None = None,
                 open_history: Callable[[], Any] | None = None,
                 show_nodes: Callable[[list[str]], None] | None = None, theme=None, mode: str = "solo"):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.setObjectName("practice_result")
        self.result = dict(result)
        self._html = html
        title = str(result.get("scenario_title", ""))
        kind = "Mock interview result" if mode == "mock" else "Practice result"
        self.setWindowTitle(f"{kind}: {title} — Inferboard")
        self.setAccessibleName(kind)
        grade = result.get("grade", {})
        overall = grade.get("overall")
        colour = score_colour(overall)
        self.grade_label = QLabel(f"<span style='font-size:26pt; font-weight:700; color:{colour}'>"
                                  f"{esc(grade.get('grade', '?'))}</span>", self)
        self.grade_label.setAccessibleName(f"Grade {grade.get('grade', '?')}")
        self.summary = QLabel(
            f"<span style='font-size:14pt; font-weight:600'>{esc(title)}</span><br>"
            f"Overall <b>{0 if overall is None else overall:.0f}%</b> · {mmss(float(result.get('duration_s', 0)))} "
            f"minutes · {len(result.get('asked', []))} question(s) asked · "
            f"{len(grade.get('lost', []))} cause(s) of lost points", self)
        self.summary.setAccessibleName("Result summary")
        self.export_button = QPushButton("&Export report…", self)
        self.export_button.setToolTip("Save a self-contained HTML report with the diagram (Ctrl+E)")
        self.export_button.clicked.connect(lambda: self.export_report())
        self.export_button.setEnabled(html is not None)
        QShortcut(QKeySequence("Ctrl+E"), self, activated=lambda: self.export_report())
        buttons = [self.export_button]
        self.replay_button = QPushButton("&Replay the session…", self)
        self.replay_button.setVisible(open_replay is not None)
        if open_replay is not None:
            self.replay_button.clicked.connect(open_replay)
            buttons.append(self.replay_button)
        self.history_button = QPushButton("&History…", self)
        self.history_button.setVisible(open_history is not None)
        if open_history is not None:
            self.history_button.clicked.connect(open_history)
            buttons.append(self.history_button)
        close = close_button(self)
        close_on_escape(self)
        buttons.append(close)
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Result pages")
        self.scores = ScoresPage(result, self)
        self.lost = LostPointsPage(result, self, show_nodes)
        self.compare = ComparePage(result, self, theme)
        self.what_ifs = WhatIfPage(result.get("what_ifs", []), self)
        self.tabs.addTab(self.scores, "&Scores")
        self.tabs.addTab(self.lost, f"&Lost points ({len(grade.get('lost', []))})")
        missing = len((grade.get("diff") or {}).get("missing") or {})
        self.tabs.addTab(self.compare, f"Reference &vs yours ({missing} missing)" if missing else
                         "Reference &vs yours")
        self.tabs.addTab(self.what_ifs, f"&Follow-ups ({len(result.get('what_ifs', []))})")
        head = QHBoxLayout()
        head.addWidget(self.grade_label)
        head.addSpacing(12)
        head.addWidget(self.summary, 1)
        for button in buttons:
            head.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.tabs, 1)
        self.last_export: Path | None = None
        fit_window(self, 1500, 940)

    def report_html(self) -> str:
        """The result's HTML report; raises RuntimeError for a result without one."""
        if self._html is None:
            raise RuntimeError("this result has no report")
        return self._html()

    def export_report(self, path: str | Path | None = None) -> Path | None:
        """Write the HTML report to ``path`` (asked for when None); returns it, or None."""
        if self._html is None:
            return None
        path = path or ask_report_path(self, f"{slug(str(self.result.get('scenario_title', 'practice')))}.html")
        if not path:
            return None
        written = write_report(path, self.report_html(), self)
        if written is not None:
            self.last_export = written
            self.export_button.setToolTip(f"Last exported to {written}")
        return written
