"""A drill run as an interview on one machine: the interviewer plants the cause, the candidate
works it in the drill window (``session.view()`` only, the clock never pauses), and the
interviewer's console shows ``session.truth()``: the hidden root cause, the planted change
against the decoys, each mitigation's real effect, whether the SLO holds now, the true p99 and
accuracy (whatever the design's dashboards show), and the candidate's actions with their
outcomes as they happen."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPushButton, QTableWidgetItem, QTextBrowser,
                               QVBoxLayout, QWidget)

from inferboard.drills.engine import DrillSession
from inferboard.drills.record import save_drill_report, session_report_html
from inferboard.drills.schema import Drill

from desktop.drills.clock import TICK_MS, DrillClock
from desktop.drills.notebook import describe
from desktop.drills.widgets import plot_widget, read_only_table, speed_box
from desktop.drills.window import DrillWindow, clock_text
from desktop.practice.common import esc
from desktop.practice.report_export import ask_report_path, slug
from desktop.responsive import ResponsiveSplitter
from desktop.theme import DRILL_PLOT, LIGHT_INK
from desktop.window_placement import WindowPair, fit_window

EFFECT_COLOURS = {"fixes": LIGHT_INK.good, "worsens": LIGHT_INK.bad, "no_effect": LIGHT_INK.muted,
                  "unlisted": LIGHT_INK.muted}


def truth_panel_html(truth) -> str:
    """The hidden truth for the interviewer: the planted cause, the misleading changes and the fix."""
    def rows(changes):
        return "".join(f"<li>minute {c['at_min']:g} · {esc(c['kind'].replace('_', ' '))}: {esc(c['text'])}</li>"
                       for c in changes) or "<li>—</li>"

    mitigations = "".join(
        f"<li><b style='color:{EFFECT_COLOURS.get(m['effect'], LIGHT_INK.muted)}'>{esc(m['effect'].replace('_', ' '))}</b>"
        f" — {esc(m['action'].replace('_', ' '))} {esc(m['target'])}"
        + ("" if m["value"] is None else f" = {m['value']:g}") + f": {esc(m['why'])}</li>" for m in truth.mitigations)
    faults = "".join(f"<li>{esc(f)}</li>" for f in truth.faults) or "<li>none (edits, versions or drift)</li>"
    return (f"<h3>Hidden root cause</h3><p>{esc(truth.root_cause)}</p>"
            f"<h4>Planted change</h4><ul>{rows(truth.planted_changes)}</ul>"
            f"<h4>Decoys in the change log</h4><ul>{rows(truth.decoys)}</ul>"
            f"<h4>Mitigations and their real effect</h4><ul>{mitigations}</ul>"
            f"<h4>Faults planted</h4><ul>{faults}</ul>")


class DrillConsole(QWidget):
    """The interviewer's side of a drill interview."""

    def __init__(self, session: DrillSession, clock: DrillClock, parent: QWidget | None = None, dark: bool = False):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("drill_console")
        self.setAccessibleName("Drill interviewer console")
        self.session, self.clock = session, clock
        clock.watch(self)
        self.setWindowTitle(f"Interviewer — drill: {session.drill.title} — Inferboard")
        self.title = QLabel(f"<b style='font-size:12pt'>{esc(session.drill.title)}</b><br>"
                            f"<span style='color:{LIGHT_INK.muted}'>Interviewer console · {esc(session.drill.kind)} · "
                            f"{esc(session.drill.difficulty)} · only you see this window</span>", self)
        self.title.setWordWrap(True)
        self.clock_label = QLabel(self)
        self.clock_label.setObjectName("console_clock")
        self.speed = speed_box(self, clock)
        self.end_button = QPushButton("&End drill", self)
        self.end_button.setObjectName("end_drill")
        self.report_button = QPushButton("&Report…", self)
        self.report_button.setObjectName("drill_report")
        self.report_button.setToolTip("The drill's report with the hidden truth, as HTML")
        self.report_button.clicked.connect(lambda: self.export_report())
        top = self.top_bar = QHBoxLayout()
        top.addWidget(self.clock_label, 1)
        top.addWidget(self.speed)
        top.addWidget(self.end_button)
        top.addWidget(self.report_button)
        self.slo = QLabel(self)
        self.slo.setObjectName("slo_status")
        self.slo.setWordWrap(True)
        self.truth = QTextBrowser(self)
        self.truth.setObjectName("truth_panel")
        self.truth.setAccessibleName("Hidden truth")
        self.truth.setHtml(truth_panel_html(session.truth()))
        self.reveal = QPushButton("Show the &hidden truth", self)
        self.reveal.setObjectName("reveal_truth")
        self.reveal.setCheckable(True)
        self.reveal.setToolTip("Kept folded away while this window shares a screen with the candidate's")
        self.reveal.toggled.connect(self._show_truth)
        self.reveal.setChecked(len(QGuiApplication.screens()) > 1)
        self._show_truth(self.reveal.isChecked())
        self.actions = read_only_table(self, "candidate_actions", "Candidate's actions",
                                       ["What the candidate did", "Real effect"], 0, {1: 110})
        self.plots, self.curves = self._make_plots(dark)
        self.marked: list = []  #: (plot, line) per mitigation marked on the true series
        self._scored: tuple = (None, 0.0)
        self.closed = False  #: once closed its plots are gone; the clock may still tick
        self.left_at: float | None = None  #: simulated second the candidate closed their window at
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.slo)
        column.addWidget(self.reveal)
        column.addWidget(self.truth, 1)
        right = QWidget(self)
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in self.plots:
            column.addWidget(widget, 1)
        column.addWidget(self.actions, 1)
        body = ResponsiveSplitter(self, wide_sizes=[520, 700], tall_sizes=[300, 600])
        body.addWidget(left)
        body.addWidget(right)
        body.setSizes([520, 700])
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        fit_window(self, 1240, 900)
        clock.ticked.connect(lambda _t: self.refresh())
        clock.ended.connect(self.refresh)
        self.refresh()

    def _show_truth(self, shown: bool) -> None:
        """The hidden root cause and what each mitigation really does: shown on request only, as
        the candidate may see this screen."""
        self.truth.setVisible(shown)
        self.reveal.setText("Hide the &hidden truth" if shown else "Show the &hidden truth")

    def _make_plots(self, dark: bool):
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        widgets, curves = [], {}
        slo = self.session.design.requirements.slo_p99_ms
        for key, title in (("p99_ms", "True p99 latency (ms)"),
                           ("accuracy_pct", "True accuracy (%)")):
            widget, plot = plot_widget(self, title, title, dark, 180)
            curves[key] = plot.plot([], [], pen=pg.mkPen(DRILL_PLOT["truth"], width=2))
            if key == "p99_ms" and slo:
                plot.addItem(pg.InfiniteLine(pos=float(slo), angle=0,
                                             pen=pg.mkPen(DRILL_PLOT["limit"], width=1.5, style=Qt.PenStyle.DashLine)))
            widgets.append(widget)
        return widgets, curves

    def slo_text(self) -> str:
        """The SLO line as shown."""
        return self.slo.text()

    def refresh(self) -> None:
        """Show the candidate's clock, actions and dashboards beside the truth."""
        if self.closed:
            return
        session = self.session
        truth = session.truth()
        series = session.series()
        k = max(0, session.timeline.ticks_done - 1)
        slo = session.design.requirements.slo_p99_ms
        p99 = float(series["p99_ms"][k]) if series["times_s"].size else math.nan
        state = (f"<b style='color:{LIGHT_INK.good}'>SLO met</b>" if truth.slo_ok_now
                 else f"<b style='color:{LIGHT_INK.bad}'>SLO BREACHED</b>")
        told = (session.now_s - session.notice_s) / 60.0
        score = self.score_now()
        self.slo.setText(f"{state} now: p99 {p99:.0f} ms" + (f" (SLO {slo:g} ms)" if slo else "")
                         + f" · accuracy {truth.accuracy_now:.1f}% · candidate told {told:.0f} min ago · "
                         f"score if it ended now: {score:.0f}%")
        self.clock_label.setText(f"<b>{clock_text(session.now_s)}</b>" + (" · over" if session.finished else ""))
        t_min = np.asarray(series["times_s"], dtype=float) / 60.0
        for key, curve in self.curves.items():
            curve.setData(t_min, np.asarray(series[key], dtype=float))
        self._mark_mitigations()
        rows = [(describe(a, session.notice_s), a.outcome if a.verb == "apply_mitigation" else "")
                for a in session.actions]
        if self.actions.rowCount() != len(rows):
            self.actions.setRowCount(len(rows))
            for r, (text, outcome) in enumerate(rows):
                self.actions.setItem(r, 0, QTableWidgetItem(text))
                effect = QTableWidgetItem(outcome.replace("_", " "))
                if outcome:
                    effect.setForeground(QBrush(QColor(EFFECT_COLOURS.get(outcome, LIGHT_INK.muted))))
                self.actions.setItem(r, 1, effect)
            self.actions.resizeRowsToContents()
            self.actions.scrollToBottom()
        if session.finished:
            self.end_button.setEnabled(False)
            self.speed.setEnabled(False)
        if self.left_at is not None:
            self.clock_label.setText(f"<b>{clock_text(self.left_at)}</b> · candidate left")
            self.slo.setText(f"<b style='color:{LIGHT_INK.bad}'>The candidate closed their drill window at "
                             f"{clock_text(self.left_at)}</b>: the drill stopped there and is not kept in the "
                             f"history. What they did up to then is below; Report… saves it with the truth. "
                             + self.slo.text())

    def candidate_left(self, now_s: float) -> None:
        """The candidate's window was closed mid-drill: the clock has stopped; say so and leave only
        what still makes sense (the report)."""
        self.left_at = float(now_s)
        self.end_button.setEnabled(False)
        self.speed.setEnabled(False)
        self.refresh()

    def score_now(self) -> float:
        """The score if the drill ended now, worked out again after each action and every five
        simulated minutes (scoring reads the whole drill; a clock tick need not)."""
        key = (len(self.session.actions), int(self.session.now_s // 300), self.session.finished)
        if key != self._scored[0]:
            self._scored = (key, self.session.result().percent)
        return self._scored[1]

    def _mark_mitigations(self) -> None:
        """A line per mitigation on the true series, coloured by its real effect."""
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        applied = [a for a in self.session.actions if a.verb == "apply_mitigation"]
        if (len(applied) + 1) * len(self.plots) == len(self.marked):
            return
        for plot, line in self.marked:
            plot.removeItem(line)
        self.marked.clear()
        for widget in self.plots:
            plot = widget.getPlotItem()
            for a in applied:
                colour = EFFECT_COLOURS.get(a.outcome, LIGHT_INK.muted)
                line = pg.InfiniteLine(pos=a.t_s / 60.0, angle=90, pen=pg.mkPen(colour, width=1.5))
                plot.addItem(line, ignoreBounds=True)
                self.marked.append((plot, line))
        told = self.session.notice_s / 60.0
        for widget in self.plots:
            line = pg.InfiniteLine(pos=told, angle=90, pen=pg.mkPen(DRILL_PLOT["told"], width=1, style=Qt.PenStyle.DashLine))
            widget.getPlotItem().addItem(line, ignoreBounds=True)
            self.marked.append((widget.getPlotItem(), line))

    def export_report(self, path=None):
        """The report with the truth (score lines, actions, the incident, what really happened)."""
        path = path or ask_report_path(self, f"drill-{slug(self.session.drill.title)}.html")
        if not path:
            return None
        save_drill_report(path, session_report_html(self.session, with_truth=True))
        return Path(path)

    def truth_texts(self) -> str:
        """The truth panel's text."""
        return self.truth.toPlainText()

    def closeEvent(self, event) -> None:
        """Stop refreshing and delete the plots."""
        self.closed = True
        for widget in self.plots:
            widget.deleteLater()
        super().closeEvent(event)


class DrillInterview(QObject):
    """One clock, one session (mode ``interview``), two windows that share nothing else."""

    def __init__(self, drill: Drill, design, history=None, seed: int = 0, speed: float | None = None,
                 tick_ms: int | None = None, dark: bool = False):
        super().__init__()
        self.session = DrillSession(drill, design, seed=seed, mode="interview")
        if speed is not None:
            self.session.speed = float(speed)
        self.clock = DrillClock(self.session, tick_ms or TICK_MS, parent=self)
        self.candidate = DrillWindow(self.session, self.clock, history, None, dark,
                                     design_title=design.metadata.get("title", ""))
        self.console = DrillConsole(self.session, self.clock, None, dark)
        self.candidate.notebook.acted.connect(self.console.refresh)
        self.candidate.dashboards.currentChanged.connect(lambda _i: self.console.refresh())
        self.console.end_button.clicked.connect(lambda: self.candidate.finish())
        self.candidate.left.connect(self.console.candidate_left)
        self.pair = WindowPair(self.candidate, self.console, "candidate's drill window", "interviewer's console", self)
        # Handing the screen to the candidate folds the hidden truth away.
        self.pair.switched.connect(lambda front: front is self.candidate and self.console.reveal.setChecked(False))

    def show(self) -> None:
        """Both windows tiled on the screen (or taking turns on a small one), the console in front."""
        self.pair.show()
        if self.pair.toggled:  # the windows take turns: the candidate never sees the console
            self.console.reveal.setChecked(True)
        self.console.raise_()

    def place(self) -> None:
        """Place the candidate's window and the console side by side (or one over the other)."""
        self.pair.place()

    def start(self) -> None:
        """Start the drill's clock."""
        self.clock.start()

    def close(self) -> None:
        """Stop the clock and close both windows without asking."""
        self.clock.stop()
        self.candidate.confirm_close = False
        self.console.close()
        self.candidate.close()
