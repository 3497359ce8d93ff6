"""The result screen's pages, all read from ``Result.to_dict()`` (what the history keeps): the
rubric scores and the clarifying questions, every lost point traced to its finding, the reference
design beside the user's with the missing components called out, and the follow-ups replayed."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QListWidget, QListWidgetItem,
                               QProgressBar, QPushButton, QSplitter, QTableWidget, QTableWidgetItem, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from inferboard.sim.explain.plain_words import fault_words

from desktop.practice.common import ReadOnlyCanvas, esc, pct, phase_name, wrap_tree, wrapped_label
from desktop.theme import LIGHT
from desktop.theme import LIGHT_INK

LOST_ROLE = Qt.ItemDataRole.UserRole


def _table(parent: QWidget, name: str, headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.setWordWrap(True)
    return table


def _cell(text: str, tip: str = "", colour: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(tip or text)
    if colour:
        item.setForeground(QBrush(QColor(colour)))
    return item


def rubric_titles(result: Mapping[str, Any]) -> dict[str, str]:
    """Each rubric's title by name, from a result's grade."""
    return {r["rubric"]: r["title"] for r in result.get("grade", {}).get("rubrics", [])}


def score_colour(percent: float | None) -> str:
    """The ink for a score: good at 80% and over, caution from 60%, bad below (muted for none)."""
    if percent is None:
        return LIGHT_INK.muted
    return LIGHT_INK.good if percent >= 80 else LIGHT_INK.caution if percent >= 60 else LIGHT_INK.bad


# ------------------------------------------------------------------------------ scores
class ScoresPage(QWidget):
    """The scores page: each rubric's score, weight and points lost, and the clarifying questions' credit."""

    def __init__(self, result: Mapping[str, Any], parent: QWidget | None = None):
        super().__init__(parent)
        grade = result.get("grade", {})
        lost_by_rubric: dict[str, float] = {}
        for item in grade.get("lost", []):
            lost_by_rubric[item["rubric"]] = lost_by_rubric.get(item["rubric"], 0.0) + float(item["points"])
        self.table = _table(self, "Rubric scores", ["Rubric", "Score", "", "Weight", "Points lost"])
        rubrics = grade.get("rubrics", [])
        self.table.setRowCount(len(rubrics))
        for row, line in enumerate(rubrics):
            percent = line.get("percent")
            self.table.setItem(row, 0, _cell(line["title"], f"{line['title']} ({line['rubric']})"))
            self.table.setItem(row, 1, _cell(pct(percent), colour=score_colour(percent)))
            bar = QProgressBar(self.table)
            bar.setRange(0, 100)
            bar.setValue(0 if percent is None else round(percent))
            bar.setTextVisible(False)
            bar.setAccessibleName(f"{line['title']} score {pct(percent)}")
            self.table.setCellWidget(row, 2, bar)
            self.table.setItem(row, 3, _cell(f"{line['weight']:g}"))
            lost = lost_by_rubric.get(line["rubric"], 0.0)
            self.table.setItem(row, 4, _cell(f"−{lost:g}" if lost else "—"))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 70), (2, 200), (3, 70), (4, 100)):
            self.table.setColumnWidth(column, width)
        self.questions = _table(self, "Key clarifying questions", ["Key question", "Area", "Asked", "Points"])
        clarify = grade.get("clarify") or {}
        lines = clarify.get("questions", [])
        self.questions.setRowCount(len(lines))
        for row, q in enumerate(lines):
            when = "never asked" if q["asked_phase"] is None else phase_name(q["asked_phase"])
            earned = q["credit"] * q["points"]
            colour = LIGHT_INK.good if q["credit"] >= 1 else LIGHT_INK.caution if q["credit"] > 0 else LIGHT_INK.bad
            self.questions.setItem(row, 0, _cell(q["text"]))
            self.questions.setItem(row, 1, _cell(q["category"]))
            self.questions.setItem(row, 2, _cell(when, colour=colour))
            self.questions.setItem(row, 3, _cell(f"{earned:g} / {q['points']:g}", colour=colour))
        qheader = self.questions.horizontalHeader()
        qheader.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 100), (2, 170), (3, 80)):
            self.questions.setColumnWidth(column, width)
        asked = len(result.get("asked", []))
        caption = (f"Clarifying questions: {pct(clarify.get('percent'))} — {asked} question(s) asked. Key questions "
                   "earn full points in the clarify phase before you start drawing, less later."
                   if clarify else "No clarifying-question score for this attempt.")
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 3)
        layout.addWidget(wrapped_label(caption, self, "Clarifying score"))
        layout.addWidget(self.questions, 2)


# ------------------------------------------------------------------------------ lost points
class LostPointsPage(QWidget):
    """Every lost point grouped by rubric; the selected one's explanation below."""

    def __init__(self, result: Mapping[str, Any], parent: QWidget | None = None,
                 show_nodes: Callable[[list[str]], None] | None = None):
        super().__init__(parent)
        self.show_nodes = show_nodes
        grade = result.get("grade", {})
        titles = rubric_titles(result)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("lost_points")
        self.tree.setAccessibleName("Lost points")
        self.tree.setHeaderLabels(["Where the points went", "Points"])
        wrap_tree(self.tree)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(1, 70)
        self.items: list[QTreeWidgetItem] = []
        groups: dict[str, QTreeWidgetItem] = {}
        for lost in grade.get("lost", []):
            rubric = lost["rubric"]
            top = groups.get(rubric)
            if top is None:
                top = QTreeWidgetItem([titles.get(rubric, rubric), ""])
                font = top.font(0)
                font.setBold(True)
                top.setFont(0, font)
                self.tree.addTopLevelItem(top)
                groups[rubric] = top
            source = lost["source"]
            item = QTreeWidgetItem([f"{lost['title']}: {lost['message']}", f"−{lost['points']:g}"])
            item.setData(0, LOST_ROLE, dict(lost))
            item.setToolTip(0, f"{source}\n{lost['message']}")
            item.setForeground(1, QBrush(QColor(LIGHT_INK.bad)))
            top.addChild(item)
            self.items.append(item)
        for top in groups.values():
            total = sum(float(top.child(n).data(0, LOST_ROLE)["points"]) for n in range(top.childCount()))
            top.setText(1, f"−{total:g}")
            top.setExpanded(True)
        self.detail = QTextBrowser(self)
        self.detail.setAccessibleName("Why the points were lost")
        self.detail.setPlaceholderText("Select a lost point to see the finding behind it and how to fix it.")
        self.show_button = QPushButton("Show in &my design", self)
        self.show_button.setAccessibleName("Show the components in my design")
        self.show_button.setEnabled(False)
        self.show_button.clicked.connect(self._show_in_design)
        self.show_button.setVisible(show_nodes is not None)
        self.tree.currentItemChanged.connect(lambda item, _p: self.show_item(item))
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.detail)
        splitter.setSizes([420, 260])
        row = QHBoxLayout()
        row.addWidget(wrapped_label("No points lost." if not self.items else
                                    f"{len(self.items)} cause(s) of lost points, each traced to the rule or question "
                                    "behind it.", self, "Lost points summary"), 1)
        row.addWidget(self.show_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(splitter, 1)
        if self.items:
            self.tree.setCurrentItem(self.items[0])

    def current_lost(self) -> dict | None:
        """The lost point selected, or None."""
        item = self.tree.currentItem()
        return None if item is None else item.data(0, LOST_ROLE)

    def show_item(self, item: QTreeWidgetItem | None) -> None:
        """Show the selected lost point's finding and explanation, enabling Show on canvas when it names nodes."""
        lost = None if item is None else item.data(0, LOST_ROLE)
        self.show_button.setEnabled(bool(lost and lost.get("node_ids")))
        if not lost:
            self.detail.clear()
            return
        source = lost["source"]
        kind = "Clarifying question" if source.startswith("question:") else "Rule"
        nodes = ", ".join(lost.get("node_ids") or [])
        explanation = esc(lost.get("explanation") or "").replace("\n", "<br>")
        self.detail.setHtml(
            f"<h3 style='margin-bottom:2px'>{esc(lost['title'])} <span style='color:{LIGHT_INK.bad}'>−{lost['points']:g}"
            f"</span></h3><p style='color:{LIGHT_INK.muted}'>{kind} <code>{esc(source)}</code></p><p>{esc(lost['message'])}</p>"
            + (f"<p><b>Components:</b> {esc(nodes)}</p>" if nodes else "")
            + (f"<p><b>Why it matters and how to fix it</b></p><p>{explanation}</p>" if explanation else ""))

    def _show_in_design(self) -> None:
        lost = self.current_lost()
        if lost and self.show_nodes is not None:
            self.show_nodes(list(lost.get("node_ids") or []))


# ------------------------------------------------------------------------------ reference
class ComparePage(QWidget):
    """Your design beside the reference, the missing component kinds called out with the reason."""

    def __init__(self, result: Mapping[str, Any], parent: QWidget | None = None, theme=None):
        super().__init__(parent)

        grade = result.get("grade", {})
        flagged = sorted({n for item in grade.get("lost", []) for n in item.get("node_ids", [])})
        self.yours = ReadOnlyCanvas("Your design", self, theme or LIGHT,
                                    "<b>Your design</b> — components named by lost points are outlined")
        self.yours.set_design(result.get("design"), fit=True)
        self.yours.highlight(flagged)
        self.reference = ReadOnlyCanvas("Reference design", self, theme or LIGHT, "<b>Reference design</b>")
        self.reference.set_design(result.get("reference"), fit=True)
        diff = grade.get("diff") or {}
        self.missing = QListWidget(self)
        self.missing.setAccessibleName("Missing compared with the reference")
        self.missing.setWordWrap(True)
        notes = diff.get("notes", {})
        for kind, count in (diff.get("missing") or {}).items():
            name = kind.replace("_", " ")
            text = f"Missing: {name} × {count}" + (f" — {notes[kind]}" if kind in notes else "")
            item = QListWidgetItem(text)
            item.setForeground(QBrush(QColor(LIGHT_INK.bad)))
            item.setToolTip(text)
            self.missing.addItem(item)
        for kind, count in (diff.get("extra") or {}).items():
            item = QListWidgetItem(f"Extra in yours: {kind.replace('_', ' ')} × {count}")
            item.setForeground(QBrush(QColor(LIGHT_INK.muted)))
            self.missing.addItem(item)
        if not self.missing.count():
            self.missing.addItem("Your design has every kind of component the reference uses.")
        self.notes = QTextBrowser(self)
        self.notes.setAccessibleName("Reference notes")
        self.notes.setPlainText(str(result.get("reference_notes", "")))
        canvases = QSplitter(Qt.Orientation.Horizontal, self)
        canvases.addWidget(self.yours)
        canvases.addWidget(self.reference)
        below = QSplitter(Qt.Orientation.Horizontal, self)
        below.addWidget(self.missing)
        below.addWidget(self.notes)
        outer = QSplitter(Qt.Orientation.Vertical, self)
        outer.addWidget(canvases)
        outer.addWidget(below)
        outer.setSizes([520, 200])
        layout = QVBoxLayout(self)
        layout.addWidget(outer)


# ------------------------------------------------------------------------------ follow-ups
def readout_text(readout: Mapping[str, Any]) -> str:
    """A what-if readout in words (p99, cost, lost traffic, busiest pool), or "not available"."""
    if readout.get("source") == "unavailable":
        return "not available"
    parts = []
    if readout.get("p99_ms") is not None:
        parts.append(f"p99 {readout['p99_ms']:.0f} ms")
    lost = sum(float(readout.get(k) or 0.0) for k in ("shed_rate", "error_rate", "timeout_rate"))
    parts.append(f"lost {100 * lost:.1f}%")
    if readout.get("max_utilisation") is not None:
        parts.append(f"busiest {100 * readout['max_utilisation']:.0f}%")
    if readout.get("cost_per_hour") is not None:
        parts.append(f"${readout['cost_per_hour']:.2f}/h")
    return " · ".join(parts)


class WhatIfPage(QWidget):
    """The scenario's follow-ups replayed against the user's design: before, after, verdict."""

    def __init__(self, what_ifs: list[Mapping[str, Any]], parent: QWidget | None = None,
                 empty_text: str = "This scenario has no follow-ups."):
        super().__init__(parent)
        self.table = _table(self, "Follow-ups replayed on your design", ["Follow-up", "Before", "After", "Verdict"])
        self.what_ifs = list(what_ifs)
        self.table.setRowCount(len(self.what_ifs))
        for row, w in enumerate(self.what_ifs):
            held = str(w.get("verdict", "")).startswith(("Holds", "No measurable"))
            self.table.setItem(row, 0, _cell(w["title"], w.get("prompt", "")))
            self.table.setItem(row, 1, _cell(readout_text(w["before"])))
            self.table.setItem(row, 2, _cell(readout_text(w["after"])))
            self.table.setItem(row, 3, _cell(w.get("verdict", ""), colour=LIGHT_INK.good if held else LIGHT_INK.bad))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 230), (1, 250), (2, 250)):
            self.table.setColumnWidth(column, width)
        header.sectionResized.connect(lambda *_: self.table.resizeRowsToContents())
        self.detail = QTextBrowser(self)
        self.detail.setAccessibleName("Follow-up details")
        self.detail.setPlaceholderText("Select a follow-up to read what the interviewer would say.")
        self.table.currentCellChanged.connect(lambda row, *_: self.show_row(row))
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(empty_text if not self.what_ifs else
                                "Each follow-up was run on your final design with the simulator "
                                "(directional numbers).", self))
        layout.addWidget(self.table, 3)
        layout.addWidget(self.detail, 1)
        if self.what_ifs:
            self.table.setCurrentCell(0, 0)

    def showEvent(self, event) -> None:
        """Fit the rows to their wrapped text once shown."""
        super().showEvent(event)
        self.table.resizeRowsToContents()

    def show_row(self, row: int) -> None:
        """Show follow-up ``row``'s what-if: before and after, and whether the design held."""
        if not 0 <= row < len(self.what_ifs):
            return
        w = self.what_ifs[row]
        changes = ", ".join(f"{k} → {v}" for k, v in (w.get("requirement_changes") or {}).items())
        faults = "; ".join(fault_words(text) for text in w.get("faults") or [])
        unmatched = "; ".join(fault_words(text) for text in w.get("unmatched") or [])
        self.detail.setHtml(f"<p><b>{esc(w['title'])}</b></p><p>{esc(w.get('prompt', ''))}</p>"
                            + (f"<p><b>Requirement changes:</b> {esc(changes)}</p>" if changes else "")
                            + (f"<p><b>Faults:</b> {esc(faults)}</p>" if faults else "")
                            + (f"<p><b>Matched nothing in your design:</b> {esc(unmatched)}</p>" if unmatched else "")
                            + f"<p>{esc(w.get('verdict', ''))}</p>")
