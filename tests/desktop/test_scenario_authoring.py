"""The scenario form, driven by keys and clicks: a scenario written from the open design, checked as
the user types (a bad value names its field, marks the widget and disables Save), a fault aimed at
a component clicked on the canvas, saved into the library and exported as a pack that imports and
grades the same."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from inferboard.practice.grading import score_design
from inferboard.practice.library import ScenarioLibrary
from tests.desktop.gestures import click, header_of
from tests.practice.authored import example_design


def type_into(qtbot, widget, text: str, clear: bool = True) -> None:
    widget.setFocus()
    if clear:
        qtbot.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(widget, Qt.Key.Key_Delete)
    qtbot.keyClicks(widget, text)


def click_button(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


@pytest.fixture
def form(make_window, qtbot):
    window = make_window(example_design())
    window.actions_by_id["workshop.new_scenario"].trigger()
    dialog = window._authoring_dialog
    qtbot.waitExposed(dialog)
    yield window, dialog
    dialog.close()


def fill_in(qtbot, dialog) -> None:
    type_into(qtbot, dialog.title_edit, "Card checks in Europe")
    type_into(qtbot, dialog.summary, "Score card payments for a European bank inside 50 ms, on CPUs.")
    type_into(qtbot, dialog.prompt, "A European bank wants every card payment scored before it is approved.")
    type_into(qtbot, dialog.notes, "One region with a gateway, features and a CPU pool that scales on load.")
    click_button(qtbot, dialog.facts.add_button)
    type_into(qtbot, dialog.facts.widget(0, "id"), "volume")
    dialog.facts.widget(0, "category").setCurrentIndex(dialog.facts.widget(0, "category").findData("traffic"))
    type_into(qtbot, dialog.facts.widget(0, "sets"), "mean_rps, peak_rps")
    type_into(qtbot, dialog.facts.widget(0, "text"), "About 500 payments a second, 1,500 at the peak.")
    click_button(qtbot, dialog.questions.add_button)
    type_into(qtbot, dialog.questions.widget(0, "id"), "volume")
    type_into(qtbot, dialog.questions.widget(0, "reveals"), "volume")
    points = dialog.questions.widget(0, "points")
    type_into(qtbot, points, "2")
    type_into(qtbot, dialog.questions.widget(0, "text"), "How many payments per second?")
    goals = ("Learn the volume and the latency budget.", "Draw the path from the gateway to the scorers.",
             "Size the CPU pool for the peak.", "Discuss a region loss and the fallback.")
    for n, goal in enumerate(goals):
        type_into(qtbot, dialog.phases.widget(n, "goal"), goal)


def test_the_menu_opens_the_form_with_the_design_as_reference(form):
    window, dialog = form
    assert dialog.isVisible() and not dialog.isModal()
    assert sorted(dialog.reference.nodes) == sorted(window.document.design.nodes)
    assert "p99 latency SLO 50 ms" in dialog.requirements_label.text()
    assert "slo_p99_ms" not in dialog.requirements_label.text()
    assert not dialog.save_button.isEnabled()  # an empty form is not a scenario
    assert {"id", "title", "prompt", "facts"} <= {p.field for p in dialog.problems}


def test_filling_the_form_by_keyboard_makes_a_valid_scenario(form, qtbot):
    _window, dialog = form
    fill_in(qtbot, dialog)
    assert dialog.id_edit.text() == "card-checks-in-europe"  # follows the title until typed over
    assert dialog.problems == [], [p.text() for p in dialog.problems]
    assert dialog.save_button.isEnabled() and dialog.export_button.isEnabled()
    scenario = dialog.check.scenario
    assert scenario.questions[0].points == 2.0 and scenario.questions[0].key
    assert scenario.facts[0].sets == ["mean_rps", "peak_rps"] and scenario.facts[0].category == "traffic"
    assert [p.minutes for p in scenario.phases] == [8, 12, 15, 10]


def test_an_invalid_value_shows_a_message_naming_the_field_and_disables_save(form, qtbot):
    _window, dialog = form
    fill_in(qtbot, dialog)
    assert dialog.save_button.isEnabled()
    reveals = dialog.questions.widget(0, "reveals")
    type_into(qtbot, reveals, "volume, weather")
    assert not dialog.save_button.isEnabled() and not dialog.export_button.isEnabled()
    texts = [dialog.messages.item(n).text() for n in range(dialog.messages.count())]
    assert "Questions 1, reveals: unknown fact 'weather'" in texts
    assert reveals.property("invalid") is True and "weather" in reveals.toolTip()
    # Clicking the message goes to the field.
    dialog.tabs.setCurrentIndex(0)
    dialog.messages.itemClicked.emit(dialog.messages.item(texts.index("Questions 1, reveals: unknown fact 'weather'")))
    assert dialog.tabs.currentIndex() == 1
    qtbot.keyClick(reveals, Qt.Key.Key_Backspace)  # still wrong while typing: "weathe"
    assert not dialog.save_button.isEnabled()
    type_into(qtbot, reveals, "volume")
    assert dialog.save_button.isEnabled() and reveals.property("invalid") is False
    # A value out of the schema's range names its field too.
    type_into(qtbot, dialog.phases.widget(0, "minutes"), "0")
    assert any(p.field == "phases.0.minutes" for p in dialog.problems)
    assert not dialog.save_button.isEnabled()


def test_a_follow_up_fault_is_aimed_at_the_component_clicked_on_the_canvas(form, qtbot):
    window, dialog = form
    fill_in(qtbot, dialog)
    dialog.tabs.setCurrentIndex(3)
    click_button(qtbot, dialog.follow_ups.add_button)
    item = dialog.follow_ups.items[0]
    type_into(qtbot, item.widgets["id"], "features-fail")
    type_into(qtbot, item.widgets["title"], "The feature store fails")
    type_into(qtbot, item.widgets["prompt"], "The feature store starts failing one request in five. What now?")
    type_into(qtbot, item.widgets["look_for"], "A fallback that scores with the features at hand, and alerts.")
    assert not dialog.save_button.isEnabled()  # a follow-up needs a fault or a requirement change
    assert any(p.field == "follow_ups.0" for p in dialog.problems)
    kind = item.widgets["_fault_kind"]
    kind.setCurrentIndex(kind.findData("dependency_errors"))
    type_into(qtbot, item.widgets["_magnitude"], "0.2")
    click_button(qtbot, item.widgets["_on_selected"])
    assert "Select a component" in item.widgets["_fault_status"].text()
    window.view.fit_all()
    click(window.view, header_of(window, "features"))
    assert window.scene.selected_node_ids() == ["features"]
    kind.setCurrentIndex(kind.findData("region_outage"))
    click_button(qtbot, item.widgets["_on_selected"])
    assert "cannot hit features" in item.widgets["_fault_status"].text() and item.widgets["faults"].text() == ""
    kind.setCurrentIndex(kind.findData("dependency_errors"))
    click_button(qtbot, item.widgets["_on_selected"])
    assert item.widgets["faults"].text() == "dependency_errors*0.2:kind=feature_service,location=eu-west"
    type_into(qtbot, item.widgets["requirement_changes"], "peak_rps=2000")
    assert dialog.save_button.isEnabled(), [p.text() for p in dialog.problems]
    follow_up = dialog.check.scenario.follow_ups[0]
    assert follow_up.faults == ["dependency_errors*0.2:kind=feature_service,location=eu-west"]
    assert follow_up.requirement_changes == {"peak_rps": 2000}
    type_into(qtbot, item.widgets["requirement_changes"], "peak_rps=lots")
    assert any(p.field.startswith("follow_ups.0.requirement_changes") for p in dialog.problems)


def test_save_then_export_round_trips_through_the_pack_importer(form, qtbot, tmp_path, data_folder):
    window, dialog = form
    fill_in(qtbot, dialog)
    design = example_design()
    click_button(qtbot, dialog.save_button)
    assert "Saved to My scenarios" in dialog.result.text()
    library = ScenarioLibrary(user_packs=data_folder / "scenarios").load()
    entry = library.get("card-checks-in-europe")
    assert entry.pack_id == "my-scenarios" and entry.scenario == dialog.check.scenario
    assert dialog.save_button.isEnabled()  # saving again replaces its own scenario
    # Another scenario with the same id would clash.
    target = tmp_path / "card-checks.zip"
    assert dialog.export(target) == target
    before = score_design(design, dialog.check.scenario)
    elsewhere = ScenarioLibrary(user_packs=tmp_path / "room-laptop").load()
    elsewhere.import_pack(target)
    imported = elsewhere.get("card-checks-in-europe")
    assert imported.scenario == dialog.check.scenario
    after = score_design(imported.reference_design(), imported.scenario)
    assert after.overall == pytest.approx(before.overall, abs=1e-9)
    assert [(f.rule_id, f.node_ids) for f in after.findings] == [(f.rule_id, f.node_ids) for f in before.findings]
    QApplication.processEvents()
