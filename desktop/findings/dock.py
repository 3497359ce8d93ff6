"""The findings panel: rule findings grouped by rubric (or by severity), with the rubric scores and
the overall grade. Selecting a finding selects and highlights its nodes and shows the rule's
explanation (its working) beside the list."""

from __future__ import annotations

import html
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QSplitter, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from desktop.theme import LIGHT, Theme
from desktop.wrapping import wrap_rows

SEVERITIES = ("blocker", "major", "minor", "advice")
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1


def severity_icon(colour: str) -> QIcon:
    """A small round icon filled with ``colour``, marking a finding's severity."""
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
            # the rule set loads on first use, not at import
            from inferboard.rules import explain_rule

            text = explain_rule(finding.rule_id)
        except Exception:
            text = ""
    return text


class FindingsPanel(QWidget):
    """The findings panel: overall score and grade, findings grouped by severity, the detail of the one picked."""

    #: The user picked a finding: select and show its nodes.
    finding_selected = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme: Theme = LIGHT
        #: A node id -> the name the user sees (the window passes the design's labels).
        self.label_of: Callable[[str], str] = str
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
        wrap_rows(self.tree)  # long titles wrap onto a second line rather than being cut
        self.tree.setIndentation(14)
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
        """Redraw the findings in ``theme``'s colours."""
        self.theme = theme
        self.show_report(self.report, self.pending_behaviour)

    def show_unavailable(self, message: str) -> None:
        """Say the rules could not be run, with the first line of ``message``."""
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
        if restore is None:
            self.detail.clear()  # the finding it explained is gone (a new design, or fixed)
        else:
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
        """Every finding's row, under all severity groups, in order."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            out.extend(top.child(j) for j in range(top.childCount()))
        return out

    def current_finding(self):
        """The finding of the selected row, or None."""
        item = self.tree.currentItem()
        return item.data(0, FINDING_ROLE) if item is not None else None

    def _current_changed(self, item: QTreeWidgetItem | None, _previous) -> None:
        finding = item.data(0, FINDING_ROLE) if item is not None else None
        if finding is None:
            return
        self.detail.setMarkdown(self.detail_markdown(finding))
        self.finding_selected.emit(finding)

    def detail_markdown(self, finding) -> str:
        """What is wrong, where (by the components' labels) and why it matters, as headed sections."""
        where = ", ".join(md_escape(self.label_of(n)) for n in finding.node_ids) or "the design as a whole"
        details = "".join(f"- {md_escape(d)}\n" for d in finding.details)
        text = (f"### {md_escape(finding.title)}\n\n**{finding.severity}** · −{finding.points:g} points\n\n"
                f"{md_escape(finding.message)}\n\n" + (f"{details}\n" if details else "")
                + f"*Where:* {where}\n\n")
        body, facts = rule_markdown(_explanation(finding))
        if body:
            text += "---\n\n" + body + "\n\n"
        facts = [f"Rule {finding.rule_id}"] + facts
        return text + "*" + md_escape(" · ".join(facts)) + "*\n"

    def detail_html(self, finding) -> str:
        """The detail as HTML (for reports and tests that want markup)."""
        document = QTextDocument()
        document.setMarkdown(self.detail_markdown(finding))
        return document.toHtml()


MD_SPECIAL = "\\`*_{}[]<>#|"


def md_escape(text: str) -> str:
    """``text`` with Markdown's special characters escaped."""
    return "".join("\\" + c if c in MD_SPECIAL else c for c in str(text))


def rule_markdown(text: str) -> tuple[str, list[str]]:
    """A rule's explanation (prose in sections: a short heading line, then a hard-wrapped paragraph)
    as Markdown with headings; the title line and the metadata lines ("Rubric: ...", "Topics: ...")
    are returned apart, to be shown after the text rather than before it."""
    blocks = [b.strip("\n") for b in text.replace("\r\n", "\n").split("\n\n") if b.strip()]
    facts: list[str] = []
    out: list[str] = []
    for index, block in enumerate(blocks):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if index == 0:  # "ID: title" then metadata lines
            kept = []
            for line in lines:
                if line.split(":", 1)[0] in ("Rubric", "Topics") or " | " in line:
                    facts.extend(part.strip() for part in line.split(" | ")
                                 if not part.strip().startswith(("Severity:", "Points:")))  # shown above
                elif not kept and not out and ":" in line and line.split(":", 1)[0].replace("-", "").isalnum():
                    continue  # the rule's id and title repeat the heading above
                else:
                    kept.append(line)
            lines = kept
            if not lines:
                continue
        head = lines[0]
        if len(lines) > 1 and len(head) <= 60 and not head.endswith((".", ":", ";", ",")):
            out.append(f"#### {md_escape(head)}\n\n" + md_escape(" ".join(lines[1:])))
        elif all(line.startswith(("- ", "* ")) for line in lines):
            out.append("\n".join("- " + md_escape(line[2:]) for line in lines))
        else:
            out.append(md_escape(" ".join(lines)))
    return "\n\n".join(out), facts
