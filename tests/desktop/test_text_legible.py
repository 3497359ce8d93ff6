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
from inferboard.sim.explain.plain_words import fault_words
from inferboard.store import read_design

from desktop.editor.canvas.node_item import SMALLEST_TITLE_PT
from desktop.findings.dock import rule_markdown


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
        if hasattr(item, "title_lines"):  # cards: the title shrinks, then takes two lines, before anything is cut
            assert_title_whole(item)


def assert_title_whole(item) -> None:
    font, lines = item.title_lines()
    metrics = QFontMetricsF(font)
    assert " ".join(lines) == " ".join(item.title().split()), item.title()  # every word, none cut
    assert len(lines) <= 2 and font.pointSizeF() >= SMALLEST_TITLE_PT, (item.title(), font.pointSizeF())
    for line in lines:
        assert metrics.horizontalAdvance(line) <= item.width - 46, (item.title(), line)


LONG_LABELS = ("Regional load balancer / API gateway for Europe", "Preprocessing / feature service (EU shard)",
               "Fallback ranking model (CPU, distilled)", "Canary GPUs for the next model version")


def test_long_card_titles_take_two_lines_instead_of_being_cut(make_window, qtbot):
    """Every kind's title, and labels longer than any kind's, are drawn whole (two lines at most,
    never smaller than the smallest title size); a title that fits stays on one line at 8 pt or more."""
    from inferboard.model import Design, ops

    from desktop.editor.canvas.node_item import ONE_LINE_PT

    design = Design()
    kinds = [k for k in design.catalog.kinds.values() if not k.container]
    for index, kind in enumerate(kinds):
        design.add_node(kind.id, (index % 6) * 220, (index // 6) * 200, node_id=f"k{index}")
    for index, label in enumerate(LONG_LABELS):
        design.add_node("gpu_pool", index * 220, 1400, node_id=f"long{index}")
        design.apply(ops.SetLabel(f"long{index}", label))
    window = make_window(design)
    two_line = 0
    for item in window.scene.nodes.values():
        assert_title_whole(item)
        font, lines = item.title_lines()
        if len(lines) == 1:
            assert font.pointSizeF() >= ONE_LINE_PT, item.title()
        two_line += len(lines) == 2
    assert two_line >= len(LONG_LABELS)  # the long labels needed (and got) the second line


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


def test_card_parameter_values_are_never_cut(make_window, qtbot):
    """Every kind's card rows, with every choice each shown parameter offers and large numbers, are
    drawn whole: a label and value side by side fit the card, and where they do not, the value takes
    the next line and the card grows to hold it."""
    from inferboard.model import Design

    from desktop.editor.canvas import style
    from desktop.editor.canvas.node_item import ROW_GAP, ROW_INSET, card_fonts

    design = Design()
    count = 0
    for kind in (k for k in design.catalog.kinds.values() if not k.container):
        variants = [{}]
        for name in kind.card_params:
            spec = kind.param(name)
            if spec is not None and spec.choices:
                variants += [{name: choice} for choice in spec.choices]
            elif spec is not None and spec.type == "int" and spec.max is not None:
                variants.append({name: int(spec.max)})
        for params in variants:
            design.add_node(kind.id, (count % 8) * 220, (count // 8) * 220, params=params, node_id=f"n{count}")
            count += 1
    window = make_window(design)
    labels, values = QFontMetricsF(card_fonts()["label"]), QFontMetricsF(card_fonts()["value"])
    inner = style.CARD_WIDTH - 2 * ROW_INSET
    two_line = 0
    for item in window.scene.nodes.values():
        shown = {name: item.node.params.get(name) for name in item.kind.card_params}
        for row, name in zip(item.rows, item.kind.card_params):
            spec = item.kind.param(name)
            assert row.value == style.format_value(spec, shown[name]) and row.label == (spec.title if spec else name)
            if row.two_lines:
                two_line += 1
                assert labels.horizontalAdvance(row.label) <= inner and values.horizontalAdvance(row.value) <= inner
            else:
                assert labels.horizontalAdvance(row.label) + ROW_GAP + values.horizontalAdvance(row.value) <= inner
        lines = len(item.rows) + sum(row.two_lines for row in item.rows)
        assert style.HEADER_HEIGHT + 8 + lines * style.LINE_HEIGHT <= item.boundingRect().height(), item.node.id
    assert two_line > 0  # some values (the balancing policies) did need their own line


def test_a_label_of_fixed_lines_ends_a_long_text_with_an_ellipsis_not_half_a_line(qtbot):
    """The sentences under the readouts' tiles keep their height on a laptop: a text longer than
    their lines is cut at a word with "…" (no half-shown last line); the whole text stays readable
    through ``text()`` (and so their tooltips)."""
    from PySide6.QtCore import QRect, Qt

    from desktop.wrapping import LinesLabel

    long_text = " ".join(["replicas as the autoscalers set them, faults in force then"] * 6)
    label = LinesLabel(long_text)
    qtbot.addWidget(label)
    label.setFixedSize(300, label.fontMetrics().lineSpacing() * 2 + 4)
    label.show()
    qtbot.waitExposed(label)
    shown = shown_text(label)
    assert label.text() == long_text and shown.endswith("…") and len(shown) < len(long_text)
    flags = int(Qt.TextFlag.TextWordWrap)
    needed = label.fontMetrics().boundingRect(QRect(0, 0, label.contentsRect().width(), 10_000), flags, shown)
    assert needed.height() <= label.contentsRect().height() + 1
    assert long_text.startswith(shown[:-1])
    label.setFixedSize(3000, label.height())
    qtbot.waitUntil(lambda: shown_text(label) == long_text)  # room again: the whole text


def shown_text(label) -> str:
    """What a label shows (QLabel's own text, under any override)."""
    from PySide6.QtWidgets import QLabel

    return QLabel.text(label)
