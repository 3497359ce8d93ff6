"""File > New, the template gallery and the welcome screen; bundled examples open as untitled
copies that can never be saved over; the empty canvas says what to do; Help > Getting Started."""

from __future__ import annotations

import json

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop.shell.templates import is_bundled, templates


def test_file_new_gives_a_blank_untitled_design(window):
    window.files.ask_unsaved = lambda: "discard"
    window.actions_by_id["file.new"].trigger()
    assert not window.document.design.nodes and window.document.path is None
    assert window.view.showing_empty_hint()
    assert "Palette" in window.view.EMPTY_HINT
    window.component_palette.kind_activated.emit("cache")
    assert not window.view.showing_empty_hint()


def test_the_gallery_shows_titles_pictures_and_one_line_never_slugs(window, qtbot):
    from desktop.shell.welcome import NAME_ROLE, TemplateDialog

    dialog = TemplateDialog(window)
    gallery = dialog.gallery
    names = [gallery.item(row).data(NAME_ROLE) for row in range(gallery.count())]
    assert set(names) == set(templates())
    for row in range(gallery.count()):
        item = gallery.item(row)
        title, _, line = item.text().partition("\n")
        assert title and line and title not in templates(), item.text()  # a title, not "multi-region"
        assert not item.icon().isNull()
        assert "\n" not in line and len(line) <= 73
    multi = json.loads(templates()["multi-region"].read_text())["metadata"]["title"]
    assert any(multi.startswith(t.partition("\n")[0]) for t in gallery.titles())
    assert gallery.current_name() == "starter"
    dialog.deleteLater()


def test_new_from_template_uses_the_gallery_choice(window, monkeypatch):
    from desktop.shell import files, welcome

    class Pick(welcome.TemplateDialog):
        def exec(self):
            self.gallery.select("cpu-small")
            return 1

    monkeypatch.setattr(files, "TemplateDialog", Pick)
    window.files.ask_unsaved = lambda: "discard"
    assert window.new_design()
    assert window.document.path is None
    assert window.document.design.metadata["title"].startswith("CPU-only")


def test_an_opened_example_is_an_untitled_copy_and_the_bundled_file_is_untouched(window, tmp_path):
    from inferboard.model import ops

    example = templates()["starter"]
    original = example.read_bytes()
    assert is_bundled(example)
    window.files.ask_unsaved = lambda: "discard"
    assert window.files.open(example)
    assert window.document.path is None and "Untitled" in window.windowTitle()
    window.document.execute(ops.SetLabel(next(iter(window.document.design.nodes)), "changed"), "label")
    window.files.ask_save_path = lambda: str(example)  # even pointed at it, Save refuses
    errors = []
    window.files.report_error = lambda title, text: errors.append(text)
    assert not window.files.save()
    assert errors and "shipped with Inferboard" in errors[0]
    assert example.read_bytes() == original
    window.files.ask_save_path = lambda: str(tmp_path / "mine.json")
    assert window.files.save()
    assert (tmp_path / "mine.json").exists() and example.read_bytes() == original
    assert str(example) not in window.recent.paths()


def _answer_welcome(window, action):
    def answer():
        dialog = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "welcome" and w.isVisible())
        action(dialog)
    QTimer.singleShot(0, answer)


def test_the_welcome_screen_starts_from_a_template_or_closes(window, qtbot):
    window.files.ask_unsaved = lambda: "discard"

    def pick_multi(dialog):
        dialog.gallery.select("multi-region")
        dialog.create_button.click()

    _answer_welcome(window, pick_multi)
    assert window.show_welcome() == "template:multi-region"
    assert "us-east" in window.document.design.nodes and window.document.path is None

    def untick_and_close(dialog):
        dialog.show_at_start.setChecked(False)
        dialog.reject()

    _answer_welcome(window, untick_and_close)
    assert window.show_welcome() is None
    assert str(window.settings.value("view/welcome")) == "false"


def test_getting_started_is_in_the_help_menu_and_closes_with_escape(window, qtbot):
    from PySide6.QtCore import Qt

    help_titles = [a.text() for a in window.menus["&Help"].actions()]
    assert "&Getting Started" in help_titles
    window.actions_by_id["help.getting_started"].trigger()
    dialog = window.guide_dialog
    qtbot.waitExposed(dialog)
    text = dialog.text.toPlainText()
    assert "Getting started" in text and "Planned Faults" in text
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())
