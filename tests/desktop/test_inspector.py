"""The inspector and the requirements editor: accepted values are one undo step each; refused
values show why and never reach the model."""

from __future__ import annotations

from inferboard.store import design_to_bytes


def edit(editor, text: str) -> None:
    editor.edit.setText(text)
    editor.edit.editingFinished.emit()


def test_inspector_shows_the_selected_node_with_editors_from_the_schema(window):
    window.scene.select_ids(["gpus"])
    inspector = window.inspector
    assert inspector.node_id == "gpus"
    kind = window.document.design.catalog.kind("gpu_pool")
    assert list(inspector.editors) == [p.name for p in kind.params]
    assert inspector.editors["replicas"].edit.text() == str(window.document.design.node("gpus").params["replicas"])
    gpu_choices = [inspector.editors["gpu_type"].combo.itemData(i)
                   for i in range(inspector.editors["gpu_type"].combo.count())]
    assert gpu_choices == kind.param("gpu_type").choices
    window.scene.select_ids(["gpus", "lb"])
    assert inspector.node_id is None and not inspector.editors


def test_inspector_edit_then_undo(window):
    window.scene.select_ids(["gpus"])
    design = window.document.design
    before = design_to_bytes(design)
    edit(window.inspector.editors["replicas"], "7")
    assert design.node("gpus").params["replicas"] == 7
    assert window.document.undo_stack.count() == 1
    assert window.scene.nodes["gpus"].node.params["replicas"] == 7  # the card follows the model
    window.document.undo_stack.undo()
    assert design_to_bytes(design) == before
    assert window.inspector.editors["replicas"].edit.text() == str(design.node("gpus").params["replicas"])


def test_an_invalid_value_is_refused_with_a_message_and_never_reaches_the_model(window):
    window.scene.select_ids(["gpus"])
    design = window.document.design
    before = design_to_bytes(design)
    editor = window.inspector.editors["replicas"]
    for text, words in (("-3", "minimum"), ("2.5", "whole number"), ("many", "not a number"), ("", "number")):
        edit(editor, text)
        assert words in window.inspector.error_text("replicas")
        assert design_to_bytes(design) == before
    assert window.document.undo_stack.count() == 0
    edit(editor, "4")
    assert window.inspector.error_text("replicas") == ""
    assert design.node("gpus").params["replicas"] == 4


def test_choice_bool_fraction_and_label_editors(window):
    window.scene.select_ids(["gpus"])
    inspector = window.inspector
    design = window.document.design
    combo = inspector.editors["gpu_type"].combo
    combo.setCurrentIndex((combo.currentIndex() + 1) % combo.count())
    combo.activated.emit(combo.currentIndex())
    assert design.node("gpus").params["gpu_type"] == combo.currentData()
    edit(inspector.editors["spot_share"], "25%")
    assert design.node("gpus").params["spot_share"] == 0.25
    inspector.label_edit.setText("Primary GPUs")
    inspector.label_edit.editingFinished.emit()
    assert design.node("gpus").label == "Primary GPUs"
    assert window.document.undo_stack.count() == 3
    window.scene.select_ids(["users"])
    assert window.inspector.node_id == "users"


def test_unchanged_value_pushes_nothing(window):
    window.scene.select_ids(["gpus"])
    editor = window.inspector.editors["replicas"]
    edit(editor, editor.edit.text())
    edit(editor, " " + editor.edit.text() + " ")
    assert window.document.undo_stack.count() == 0


def test_requirements_editor_validates_then_applies(window):
    req_editor = window.requirements
    design = window.document.design
    field = req_editor.fields["slo_p50_ms"]
    field.setText("500")  # above the p99 SLO of 300: refused by the Requirements record
    field.editingFinished.emit()
    assert "must not decrease" in req_editor.error_text("slo_p50_ms")
    assert design.requirements.slo_p50_ms is None
    assert window.document.undo_stack.count() == 0
    field.setText("80")
    field.editingFinished.emit()
    assert design.requirements.slo_p50_ms == 80
    req_editor.region_boxes["eu-west"].setChecked(True)
    assert design.requirements.allowed_regions == ["eu-west"]
    req_editor.title.setText("Fraud scoring")
    req_editor.title.editingFinished.emit()
    assert design.metadata["title"] == "Fraud scoring"
    assert "Fraud scoring" in window.windowTitle()
    assert window.document.undo_stack.count() == 3
    for _ in range(3):
        window.document.undo_stack.undo()
    assert req_editor.fields["slo_p50_ms"].text() == ""
    assert not req_editor.region_boxes["eu-west"].isChecked()


def _field_room(field) -> int:
    """The width a field has for its text (a combo's edit area; a line edit's inside its margins)."""
    from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

    if isinstance(field, QComboBox):
        option = QStyleOptionComboBox()
        field.initStyleOption(option)
        return field.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, field).width()
    margins = field.textMargins()
    return field.contentsRect().width() - margins.left() - margins.right() - 4


def test_no_parameter_value_or_unit_is_cut_even_at_the_inspectors_least_width(make_window, qtbot):
    """Every kind's parameters at the inspector's minimum width and at its usual one: each choice of
    a combo, each typed value and each unit fits its field (a row too wide goes under its label)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit

    from inferboard.model import Design

    design = Design()
    kinds = list(design.catalog.kinds.values())
    for index, kind in enumerate(kinds):
        design.add_node(kind.id, index * 300, 0, node_id=f"n{index}")
    window = make_window(design)
    window.resize(1600, 1000)
    inspector = window.inspector
    checked = 0
    for width in (inspector.minimumWidth(), 360):
        window.resizeDocks([window.docks["inspector"]], [width], Qt.Orientation.Horizontal)
        QApplication.processEvents()
        assert inspector.width() <= width + 12
        for index, kind in enumerate(kinds):
            window.scene.select_ids([f"n{index}"])
            qtbot.waitUntil(lambda: inspector.node_id == f"n{index}")
            QApplication.processEvents()
            for name, editor in inspector.editors.items():
                field = editor.field
                if isinstance(field, QComboBox):
                    texts = [field.itemText(i) for i in range(field.count())]
                elif isinstance(field, QLineEdit):
                    texts = [field.text()]
                else:
                    continue
                for text in texts:
                    assert field.fontMetrics().horizontalAdvance(text) <= _field_room(field), (width, kind.id, name,
                                                                                               text)
                    checked += 1
                unit = getattr(editor, "unit_label", None)
                if unit is not None:
                    assert unit.fontMetrics().horizontalAdvance(unit.text()) <= unit.contentsRect().width(), (
                        width, kind.id, name, unit.text())
            for label in inspector.body.findChildren(QLabel):
                if label.isVisible() and label.text() and not label.wordWrap() and "<" not in label.text():
                    text = label.text().replace("&", "")
                    assert label.fontMetrics().horizontalAdvance(text) <= label.contentsRect().width(), (
                        width, kind.id, text)
            # nothing is hidden to the right either: the form is no wider than the panel shows
            assert inspector.body.width() <= inspector.scroll.viewport().width()
    assert checked > 100
