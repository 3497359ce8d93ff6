"""Text as text: rule explanations in headed sections with the metadata after them, components by
their labels, follow-up faults in words, no title or value cut at 1600x1000, and a toolbar whose
Undo button keeps its width whatever the command."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from inferboard.cli import templates
from inferboard.model import ops
from inferboard.sim.plain_words import fault_words
from inferboard.store import read_design

from desktop.canvas.node_item import SMALLEST_TITLE_PT
from desktop.findings_dock import rule_markdown


def test_a_rule_explanation_becomes_headed_sections_with_its_metadata_last():
    from inferboard.rules import explain_rule

    text = explain_rule("REQ-006")
    body, facts = rule_markdown(text)
    assert body.startswith("#### What it checks\n\n")
    assert "#### The trade-off\n\nA small model" in body  # no heading run into its text
    assert "Rubric:" not in body and "REQ-006" not in body
    assert facts[0] == "Rubric: Requirements and SLOs" and not any(f.startswith("Severity") for f in facts)


def test_the_finding_detail_names_components_by_label_and_renders_headings(make_window, qtbot):
    from types import SimpleNamespace

    design = read_design(templates()["starter"])[0]
    window = make_window(design)
    window.document.execute(ops.SetLabel("gpus", "Image GPUs"), "label")
    finding = SimpleNamespace(rule_id="REQ-006", title="Model size not stated", severity="minor", points=2,
                              message="Declare model_size_gb.", node_ids=("gpus",), details=(), explanation="")
    panel = window.findings
    panel.detail.setMarkdown(panel.detail_markdown(finding))
    text = panel.detail.toPlainText()
    assert "Where: Image GPUs" in text and "gpus" not in text.replace("GPUs", "")
    assert text.index("What it checks") < text.index("Rubric: Requirements and SLOs")
    html = panel.detail_html(finding)
    assert "<h4" in html and "model_size_gb" in text


def test_follow_up_faults_read_as_words():
    assert fault_words("dependency_errors*0.2:kind=feature_service") == \
        "Dependency error burst on every feature service: 20% of requests fail"
    assert fault_words("region_outage:us-east@2h+30m") == "Region outage on us-east (from 2h into the day, for 30m)"
    assert fault_words("traffic_surge*3:*") == "Traffic surge everywhere: 3x the traffic"


def test_palette_and_card_titles_are_not_cut_at_1600x1000(make_window, qtbot):
    window = make_window(read_design(templates()["multi-region"])[0])
    window.resize(1600, 1000)
    window.default_dock_sizes()
    QApplication.processEvents()
    tree = window.component_palette.tree
    for item in window.component_palette.kind_items():
        rect = tree.visualItemRect(item)
        text_rect = QRect(rect.left() + tree.iconSize().width() + 8, rect.top(), rect.width() - tree.iconSize().width()
                          - 12, 10_000)
        needed = tree.fontMetrics().boundingRect(text_rect, int(Qt.TextFlag.TextWordWrap), item.text(0))
        assert needed.height() <= rect.height() + 1, item.text(0)  # wrapped onto lines it has room for
    for node_id, item in window.scene.nodes.items():
        if hasattr(item, "title_font"):  # cards: the title shrinks to fit before anything is cut
            font = item.title_font()
            fits = QFontMetricsF(font).horizontalAdvance(item.title()) <= item.width - 46
            assert fits or font.pointSizeF() <= SMALLEST_TITLE_PT, (node_id, item.title())
            assert font.pointSizeF() > SMALLEST_TITLE_PT or len(item.title()) > 24, node_id


def test_the_undo_button_keeps_its_width_whatever_the_command(make_window, qtbot):
    window = make_window(read_design(templates()["starter"])[0])
    toolbar = window.findChild(type(window.addToolBar("probe")), "main_toolbar")
    button = toolbar.widgetForAction(window.actions_by_id["edit.undo"])
    width = button.sizeHint().width()
    window.document.execute(ops.SetLabel("gpus", "A very long label for the GPU pool that serves images"),
                            "Rename gpus to A very long label for the GPU pool that serves images")
    QApplication.processEvents()
    assert button.text() == "Undo" and button.sizeHint().width() == width
    assert len(button.toolTip()) <= len("Undo ") + 40
    assert "A very long label" in window.actions_by_id["edit.undo"].text()  # the menu still says what


def test_tabbing_through_the_requirements_never_scrolls_sideways(make_window, qtbot):
    window = make_window(read_design(templates()["starter"])[0])
    window.resize(1366, 768)
    window.docks["requirements"].raise_()
    editor = window.requirements
    qtbot.waitUntil(editor.isVisible)
    bar = editor.scroll.horizontalScrollBar()
    editor.title.setFocus()
    for _ in range(len(editor.fields) + 4):
        QTest.keyClick(QApplication.focusWidget() or editor.title, Qt.Key.Key_Tab)
        QApplication.processEvents()
        assert bar.value() == 0 and bar.maximum() == 0
    assert editor.scroll.widget().width() <= editor.scroll.viewport().width()
