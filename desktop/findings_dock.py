"""The findings panel: rule findings grouped by rubric (or by severity), with the rubric scores and
the overall grade. Selecting a finding selects and highlights its nodes and shows the rule's
explanation (its working) beside the list."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QSplitter, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from desktop.theme import LIGHT, Theme

SEVERITIES = ("blocker", "major", "minor", "advice")
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1


def severity_icon(colour: str) -> QIcon:
    pixmap = QPixmap(24, 24)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawEllipse(2, 2, 8, 8)
    painter.end()
    return QIcon(pixmap)


def _explanation(finding) -> str:
    text = finding.explanation
    if not text:
        try:
            from inferboard.rules import explain_rule

            text = explain_rule(finding.rule_id)
        except Exception:
            text = ""
    return text


class FindingsPanel(QWidget):
    #: The user picked a finding: select and show its nodes.
    finding_selected = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme: Theme = LIGHT
        self.report = None
        self.pending_behaviour = False
        self.summary = QLabel("Checking…", self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAccessibleName("Overall score")
        self.group_by = QComboBox(self)
        self.group_by.addItem("Group by rubric", "rubric")
        self.group_by.addItem("Group by severity", "severity")
        self.group_by.setAccessibleName("Group findings by")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("findings")
        self.tree.setAccessibleName("Findings")
        self.tree.setHeaderLabels(["Finding", "Severity", "Points"])
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setUniformRowHeights(True)
        self.detail = QTextBrowser(self)
        self.detail.setAccessibleName("Finding explanation")
        self.detail.setOpenExternalLinks(True)
        self.detail.setPlaceholderText("Select a finding to see what is wrong, where, and why it matters.")
        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(self.group_by)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(splitter)
        self.group_by.currentIndexChanged.connect(lambda _i: self.show_report(self.report, self.pending_behaviour))
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.itemActivated.connect(lambda item, _c: self._current_changed(item, None))

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.show_report(self.report, self.pending_behaviour)

    def show_unavailable(self, message: str) -> None:
        self.summary.setText(f"<i>Rules unavailable: {html.escape(message.splitlines()[0])}</i>")

    def show_report(self, report, pending_behaviour: bool = False) -> None:
        """Show a CheckReport. ``pending_behaviour``: only structural rules so far."""
        self.report, self.pending_behaviour = report, pending_behaviour
        if report is None:
            return
        current = self.current_finding()
        current_key = (current.rule_id, current.node_ids) if current is not None else None
        self.tree.setUpdatesEnabled(False)
        self.tree.clear()
        colour = {"A": self.theme.ok, "B": self.theme.ok, "C": self.theme.warn}.get(report.grade, self.theme.bad)
        note = " · <i>simulating…</i>" if pending_behaviour else ""
        self.summary.setText(f"<b style='color:{colour}'>{report.grade}</b> &nbsp;<b>{report.overall:.0f}</b>/100"
                             f" · {len(report.findings)} finding{'s' if len(report.findings) != 1 else ''}{note}")
        restore = None
        if self.group_by.currentData() == "severity":
            groups = [(s.title(), s, [f for f in report.findings if f.severity == s]) for s in SEVERITIES]
            for title, severity, findings in groups:
                if not findings:
                    continue
                top = QTreeWidgetItem([f"{title} ({len(findings)})", "", f"{sum(f.points for f in findings):g}"])
                top.setIcon(0, severity_icon(self.theme.severity.get(severity, self.theme.muted)))
                self._add_findings(top, findings)
                restore = restore or self._find(top, current_key)
        else:
            for name, score in report.scores.items():
                findings = [f for f in report.findings if f.rubric == name]
                percent = score.percent
                label = f"{score.title}: {score.earned:g}/{score.applicable:g}"
                if percent is not None:
                    label += f" ({percent:.0f}%)"
                top = QTreeWidgetItem([label, "", f"−{sum(f.points for f in findings):g}" if findings else ""])
                top.setToolTip(0, f"{score.title}: {len(findings)} finding(s); lost points: "
                               + (", ".join(f"{r} ({p:g})" for r, p in score.lost) or "none"))
                self._add_findings(top, findings)
                restore = restore or self._find(top, current_key)
        self.tree.setUpdatesEnabled(True)
        if restore is not None:
            self.tree.blockSignals(True)
            self.tree.setCurrentItem(restore)
            self.tree.blockSignals(False)

    def _add_findings(self, top: QTreeWidgetItem, findings) -> None:
        self.tree.addTopLevelItem(top)
        font = top.font(0)
        font.setBold(True)
        top.setFont(0, font)
        for finding in findings:
            item = QTreeWidgetItem([finding.title, finding.severity, f"{finding.points:g}"])
            item.setData(0, FINDING_ROLE, finding)
            item.setIcon(0, severity_icon(self.theme.severity.get(finding.severity, self.theme.muted)))
            item.setToolTip(0, f"<b>{html.escape(finding.rule_id)}</b>: {html.escape(finding.message)}")
            top.addChild(item)
        top.setExpanded(True)

    @staticmethod
    def _find(top: QTreeWidgetItem, key) -> QTreeWidgetItem | None:
        if key is None:
            return None
        for i in range(top.childCount()):
            finding = top.child(i).data(0, FINDING_ROLE)
            if (finding.rule_id, finding.node_ids) == key:
                return top.child(i)
        return None

    def finding_items(self) -> list[QTreeWidgetItem]:
        out = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            out.extend(top.child(j) for j in range(top.childCount()))
        return out

    def current_finding(self):
        item = self.tree.currentItem()
        return item.data(0, FINDING_ROLE) if item is not None else None

    def _current_changed(self, item: QTreeWidgetItem | None, _previous) -> None:
        finding = item.data(0, FINDING_ROLE) if item is not None else None
        if finding is None:
            return
        self.detail.setHtml(self.detail_html(finding))
        self.finding_selected.emit(finding)

    def detail_html(self, finding) -> str:
        colour = self.theme.severity.get(finding.severity, self.theme.muted)
        where = ", ".join(finding.node_ids) or "the design as a whole"
        details = "".join(f"<li>{html.escape(d)}</li>" for d in finding.details)
        explanation = html.escape(_explanation(finding)).replace("\n\n", "<p>").replace("\n", " ")
        return (f"<h3 style='margin:0'>{html.escape(finding.title)}</h3>"
                f"<p><b style='color:{colour}'>{finding.severity}</b> · {html.escape(finding.rule_id)} · "
                f"−{finding.points:g} points</p><p>{html.escape(finding.message)}</p>"
                + (f"<ul>{details}</ul>" if details else "")
                + f"<p><i>Where:</i> {html.escape(where)}</p>"
                + (f"<hr><p><b>Why it matters</b></p><p>{explanation}</p>" if explanation else ""))
