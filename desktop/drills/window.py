"""The drill window: the page, a simulated clock that runs while the user thinks, the dashboards
the design has (and "Unavailable" for those it lacks), alerts as they are delivered, the
recent-changes log, and the notebook (symptom, hypotheses, mitigation, root cause, follow-up).

It reads only ``session.view()`` and the user's own recorded actions, never ``session.truth()``:
in an interview the same window is the candidate's, and the truth is on the interviewer's
console. Finish scores the drill, keeps it in the practice history and shows the result."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QListWidget, QMessageBox, QPushButton, QSplitter,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from inferboard.drills.engine import DrillSession
from inferboard.drills.record import result_dict, save_drill, session_report_html
from inferboard.drills.views import CandidateView
from inferboard.store.local_db import DatabaseUnavailable

from desktop.drills.clock import DrillClock, speed_text
from desktop.drills.dashboards import MITIGATION_COLOUR, TOLD_COLOUR, DashboardTabs
from desktop.drills.notebook import MITIGATION_TITLES, Notebook
from desktop.drills.replay import open_replay_of
from desktop.drills.result import DrillResultWindow, truth_html
from desktop.drills.widgets import read_only_table, speed_box
from desktop.practice.common import HISTORY_PROBLEM_TITLE, esc
from desktop.theme import LIGHT_INK, PAGE_STYLE, TICKET_STYLE
from desktop.window_placement import fit_window



def clock_text(t_s: float) -> str:
    """Seconds as "h:mm:ss"."""
    t = int(round(t_s))
    return f"{t // 3600:d}:{t % 3600 // 60:02d}:{t % 60:02d}"


class DrillWindow(QWidget):
    """``finished(result_dict)`` once the drill is over (kept in ``history`` when given);
    ``left(now_s)`` when the window is closed while the drill still runs (it is then abandoned)."""

    finished = Signal(object)
    left = Signal(float)

    def __init__(self, session: DrillSession, clock: DrillClock, history=None, parent: QWidget | None = None,
                 dark: bool = False, show_result: bool = True, design_title: str = ""):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("drill_window")
        self.session, self.clock, self.history = session, clock, history
        clock.watch(self)
        self.show_result = show_result
        self.record_id: int | None = None
        self.result: dict | None = None  #: the scored result once the drill is over
        self.result_window = None
        self.windows: list[QWidget] = []
        self.checked_changes = False
        self.confirm_close = True
        interview = session.mode == "interview"
        title = design_title or session.source_design.metadata.get("title", "") or "your design"
        self.setWindowTitle(f"Incident drill{' (interview)' if interview else ''} — {title} — Inferboard")
        self.setAccessibleName("Incident drill")
        self._build_top_bar(clock, interview)
        self._build_dashboards(dark)
        self._build_side_panels(session)
        self._lay_out()
        clock.ticked.connect(lambda _t: self.refresh())
        clock.ended.connect(self._clock_ended)
        self.refresh()

    # ------------------------------------------------------------------ building
    def _build_top_bar(self, clock: DrillClock, interview: bool) -> None:
        """The page banner, the simulated clock and its controls (fixed in an interview), Finish."""
        self.page = QLabel(self)
        self.page.setObjectName("drill_page")
        self.page.setWordWrap(True)
        self.page.setTextFormat(Qt.TextFormat.RichText)
        self.clock_label = QLabel(self)
        self.clock_label.setObjectName("drill_clock")
        self.clock_label.setAccessibleName("Simulated time")
        self.clock_label.setWordWrap(True)  # narrow beside the interviewer's console
        self.speed = speed_box(self, clock)
        self.pause_button = QPushButton("&Pause", self)
        self.pause_button.setObjectName("drill_pause")
        self.pause_button.setAccessibleName("Pause or resume the clock")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.skip_button = QPushButton("+&5 min", self)
        self.skip_button.setObjectName("drill_skip")
        self.skip_button.setAccessibleName("Skip five simulated minutes")
        self.skip_button.setToolTip("Let five simulated minutes pass at once (waiting for a mitigation to show)")
        self.skip_button.clicked.connect(lambda: self.clock.skip(5.0))
        if interview:
            for control in (self.pause_button, self.skip_button, self.speed):
                control.setEnabled(False)
                control.setToolTip("In an interview the clock keeps running; the interviewer sets its speed")
        self.finish_button = QPushButton("&Finish drill", self)
        self.finish_button.setObjectName("drill_finish")
        self.finish_button.clicked.connect(lambda: self.finish())
        top = self.top_bar = QHBoxLayout()
        top.addWidget(self.clock_label, 1)
        for control in (self.speed, self.pause_button, self.skip_button, self.finish_button):
            top.addWidget(control)

    def _build_dashboards(self, dark: bool) -> None:
        """The page's own tab (the incident told in words), then the dashboards."""
        intro = QWidget(self)
        self.intro = QLabel(intro)
        self.intro.setObjectName("drill_intro")
        self.intro.setWordWrap(True)
        self.intro.setAlignment(Qt.AlignmentFlag.AlignTop)
        box = QVBoxLayout(intro)
        box.addWidget(self.intro)
        box.addStretch(1)
        self.dashboards = DashboardTabs(intro, self, dark, on_open=self._opened)

    def _build_side_panels(self, session: DrillSession) -> None:
        """The alerts delivered, the recent changes, the status line and the notebook of actions."""
        self.notifications = QListWidget(self)
        self.notifications.setObjectName("notifications")
        self.notifications.setAccessibleName("Alerts delivered")
        self.notifications.setWordWrap(True)
        self.notifications.setToolTip("Click an alert to mark the new ones as seen")
        self.notifications.itemClicked.connect(lambda _item: self.acknowledge_alerts())
        self.alerts_total = 0  #: alerts delivered so far (a repeat or a grouped alert counts)
        self.alerts_seen: int | None = None  #: how many of them the user has seen (the first: the notice)
        self.alerts_box = QGroupBox("Alerts", self)
        QVBoxLayout(self.alerts_box).addWidget(self.notifications)
        self.changes_button = QPushButton("&Check recent changes", self)
        self.changes_button.setObjectName("check_changes")
        self.changes_button.setAccessibleName("Check recent changes")
        self.changes_button.clicked.connect(lambda: self.check_changes())
        self.changes = read_only_table(self, "changes", "Recent changes", ["Minute", "Kind", "Change"], 2,
                                       {0: 60, 1: 100})
        self.changes_box = QGroupBox("Recent changes (deploys, config, data pipelines)", self)
        column = QVBoxLayout(self.changes_box)
        column.addWidget(self.changes_button)
        column.addWidget(self.changes, 1)
        self.status = QLabel(self)
        self.status.setObjectName("drill_status")
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {LIGHT_INK.bad};")
        self.notebook = Notebook(session, self, self.status.setText)
        self.notebook.acted.connect(self.refresh)

    def _lay_out(self) -> None:
        """Banner and top bar above the dashboards beside the side panels, the status line below."""
        right = QSplitter(Qt.Orientation.Vertical, self)
        for widget in (self.alerts_box, self.changes_box, self.notebook):
            right.addWidget(widget)
        right.setSizes([150, 300, 420])
        body = QSplitter(Qt.Orientation.Horizontal, self)
        body.addWidget(self.dashboards)
        body.addWidget(right)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        body.setSizes([960, 620])
        layout = QVBoxLayout(self)
        layout.addWidget(self.page)
        layout.addLayout(self.top_bar)
        layout.addWidget(body, 1)
        layout.addWidget(self.status)
        fit_window(self, 1600, 1000)

    # ------------------------------------------------------------------ showing
    def markers(self) -> list:
        """The plot markers: when the user was told, and each mitigation applied."""
        told = self.session.notice_s / 60.0
        out = [(told, "told", TOLD_COLOUR)]
        for a in self.session.actions:
            if a.verb == "apply_mitigation":
                out.append((a.t_s / 60.0, MITIGATION_TITLES.get(a.args.get("action", ""), "mitigation").lower(),
                            MITIGATION_COLOUR))
        return out

    def refresh(self) -> None:
        """Show the session now: clock, page, intro, alerts, changes, dashboards and the notebook."""
        session = self.session
        front = self.dashboards.current_name()
        view = session.view(dashboards=[front] if front else [])  # only the plots in front are drawn
        state = "paused" if session.paused else ("over" if session.finished else
                                                 "running" if self.clock.running else "stopped")
        self.clock_label.setText(
            f"<b style='font-size:13pt'>{clock_text(view.now_s)}</b> simulated since the drill started · "
            f"told {(view.now_s - view.notice_s) / 60:.0f} min ago · clock {state} · {speed_text(session.speed)}")
        paged = view.notice.startswith("paged")
        self.page.setStyleSheet(PAGE_STYLE if paged else TICKET_STYLE)
        self.page.setText(f"<b>{esc(view.notice.capitalize())}</b> (minute {view.notice_s / 60:.1f})<br>"
                          f"{esc(view.page)}")
        missing = "".join(f"<li>{esc(m)}</li>" for m in view.missing)
        self.intro.setText(
            f"<h3>{'You were paged' if paged else 'You were told'} at minute {view.notice_s / 60:.1f}</h3>"
            f"<p>{esc(view.notice.capitalize())}.</p><p><b>{esc(view.page)}</b></p>"
            "<p>The clock runs while you think. Work it as on call: state the symptom and its scope, check "
            "what changed recently, open the dashboards (tabs above) and slice by segment, write down "
            "hypotheses, <b>mitigate first</b>, then name the root cause and write the long-term fix and the "
            "monitoring to add. Finish when you are done.</p>"
            + (f"<p>This design cannot show:</p><ul>{missing}</ul>" if missing else
               "<p>This design has every dashboard and alerting.</p>"))
        self._show_notifications(view)
        if self.checked_changes:
            self._show_changes(view)
        self.dashboards.show_views(view.dashboards, self.markers())
        self.notebook.show_log()
        self.pause_button.setText("&Resume" if session.paused else "&Pause")
        if session.finished:
            for control in (self.pause_button, self.skip_button, self.finish_button, self.changes_button):
                control.setEnabled(False)
            self.notebook.set_finished()

    def _show_notifications(self, view: CandidateView) -> None:
        def line(n) -> str:
            head = f"min {n.t_s / 60:.1f} · {n.severity.upper()} · {n.title}"
            if len(n.alerts) == 1:
                return f"{head}: {n.alerts[0].message}"
            return head + "".join(f"\n    min {a.t_s / 60:.1f} {a.rule}: {a.message}" for a in n.alerts)

        lines = [line(n) for n in reversed(view.notifications)]
        if not lines:
            lines = ["No alert has fired." if self.session.observability.alerting is not None
                     else "This design has no alerting: nothing will page you."]
        if lines != [self.notifications.item(i).text() for i in range(self.notifications.count())]:
            self.notifications.clear()
            self.notifications.addItems(lines)
        count = len(view.notifications)
        self.alerts_total = count + sum(len(n.alerts) for n in view.notifications)
        if self.alerts_seen is None:
            self.alerts_seen = self.alerts_total  # what was there when the user was told
        self._title_alerts(count)

    def new_alerts(self) -> int:
        """How many alerts arrived since the user last looked."""
        return self.alerts_total - (self.alerts_seen or 0)

    def _title_alerts(self, count: int) -> None:
        fresh = self.new_alerts() > 0
        self.alerts_box.setTitle((f"Alerts ({count} delivered)" if count else "Alerts") + (" — NEW" if fresh else ""))
        self.alerts_box.setStyleSheet(f"QGroupBox {{ color: {LIGHT_INK.bad}; font-weight: bold; }}" if fresh else "")

    def acknowledge_alerts(self) -> None:
        """The user looked at the alerts: nothing is new any more."""
        self.alerts_seen = self.alerts_total
        self._title_alerts(self.notifications.count() if self.alerts_total else 0)

    def _show_changes(self, view: CandidateView) -> None:
        rows = [(f"{c['at_min']:g}", c["kind"].replace("_", " "), c["text"]) for c in view.changes]
        current = [tuple(self.changes.item(r, c).text() for c in range(3)) for r in range(self.changes.rowCount())]
        if rows == current:
            return
        self.changes.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.changes.setItem(r, c, item)
        self.changes.resizeRowsToContents()
        self.changes.viewport().update()

    # ------------------------------------------------------------------ the user's actions
    def _opened(self, name: str) -> None:
        if self.session.finished_at is None:
            if name == "segments":
                self.session.slice_by_segment()
            else:
                self.session.open_dashboard(name)
        self.refresh()

    def open_dashboard(self, name: str):
        """Bring a dashboard to the front (recorded as a look); returns its page."""
        return self.dashboards.open(name)

    def check_changes(self) -> list:
        """Look at the recent changes (an action the drill scores); returns the rows shown."""
        if self.session.finished_at is not None:
            return []
        rows = self.session.check_changes()
        self.checked_changes = True
        self.changes_button.setText("&Check recent changes again")
        self.refresh()
        return rows

    def toggle_pause(self) -> bool:
        """Pause or resume (solo practice); returns whether the clock is now paused."""
        if self.session.paused:
            self.clock.resume()
        elif not self.clock.pause():
            self.status.setText("The clock keeps running in an interview.")
        self.refresh()
        return self.session.paused

    def finish(self) -> dict:
        """End the drill: score it, keep it in the history, show the result (once)."""
        self.clock.end()  # -> _clock_ended
        return self._conclude()

    def _clock_ended(self) -> None:
        self._conclude()

    def _keep_in_history(self) -> int | None:
        """Keep the drill in the history; when it cannot be written (another program keeps it locked
        past its busy timeout, say) one message says so, with Retry. None when it was not kept."""
        while True:
            try:
                return save_drill(self.history, self.session)
            except DatabaseUnavailable as error:
                answer = QMessageBox.warning(self, HISTORY_PROBLEM_TITLE, f"{error}\n\nThe drill's result is shown; "
                                             "Retry keeps it in the history.",
                                             QMessageBox.StandardButton.Retry | QMessageBox.StandardButton.Close)
                if answer != QMessageBox.StandardButton.Retry:
                    return None

    def _conclude(self) -> dict:
        if self.result is not None:
            return self.result
        self.session.finish()
        result = self.result = result_dict(self.session)
        if self.history is not None and self.record_id is None:
            self.record_id = self._keep_in_history()
        self.refresh()
        solo = self.session.mode == "solo"
        if self.show_result:
            truth = truth_html(self.session.truth()) if solo else ""
            self.result_window = DrillResultWindow(
                result, None, html=lambda: session_report_html(self.session, with_truth=solo),
                open_replay=self.open_replay if self.record_id is not None else None, truth=truth)
            self.windows.append(self.result_window)
            self.result_window.show()
        self.finished.emit(result)
        return result

    def open_replay(self):
        """Open the finished drill's replay; returns the window, or None."""
        window = open_replay_of(self.history, self.record_id, with_truth=self.session.mode == "solo")
        self.windows.append(window)
        return window

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask before leaving a running drill; stop the clock and close the windows opened from here."""
        if self.session.finished_at is None and self.confirm_close and self.isVisible():
            answer = QMessageBox.question(self, "Leave the drill",
                                          "The drill is still running. Leave it? It is not kept in the history.")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        abandoned = self.session.finished_at is None
        self.clock.stop()
        self.dashboards.release()
        for window in self.windows:
            window.close()
        super().closeEvent(event)
        if abandoned:
            self.left.emit(float(self.session.now_s))
