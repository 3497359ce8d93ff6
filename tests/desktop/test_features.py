"""Menus above the shell arrive as features: their actions land in the menus (Help stays last),
their handlers become methods of the window, and a feature cannot take over a window's own method
or name a handler it does not bring."""

from __future__ import annotations

import pytest

from desktop.shell.actions import ActionSpec
from desktop.shell.features import Feature


def test_a_feature_adds_its_menu_and_binds_its_handlers(make_window):
    calls = []
    hello = ActionSpec("extra.hello", "&Hello", "&Extra", "Ctrl+Alt+H", "say_hello")
    feature = Feature("extra", (hello,), {"say_hello": lambda window, *args: calls.append((window, args))})
    window = make_window(features=(feature,))
    assert list(window.menus)[-2:] == ["&Extra", "&Help"]
    assert [a.objectName() for a in window.menus["&Extra"].actions()] == ["extra.hello"]
    window.actions_by_id["extra.hello"].trigger()
    window.say_hello(1, 2)
    assert calls == [(window, ()), (window, (1, 2))]
    assert hello in window.action_specs


def test_the_app_installs_practice_drills_and_workshop_menus(make_window):
    window = make_window()  # the test windows get the app's features, as the app's own do
    assert list(window.menus)[-3:] == ["&Practice", "&Workshop", "&Help"]
    practice = [a.objectName() for a in window.menus["&Practice"].actions() if a.objectName()]
    assert practice[:5] == ["practice.start", "practice.mock", "practice.host", "practice.join", "practice.history"]
    assert "practice.drill" in practice and callable(window.open_drill)


def test_a_feature_may_not_shadow_a_window_method(qapp, data_folder):
    from desktop.shell.main_window import MainWindow

    saving = Feature("bad", (ActionSpec("bad.save", "Save", "&Bad", "", "save_design"),),
                     {"save_design": lambda window: None})
    with pytest.raises(ValueError, match="'save_design' is already a method of the window"):
        MainWindow(data_folder, evaluate=False, restore_layout=False, features=(saving,))


def test_a_feature_must_bring_the_handlers_its_actions_name():
    with pytest.raises(ValueError, match=r"lacks: \['missing'\]"):
        Feature("x", (ActionSpec("x.a", "A", "&X", "", "missing"),), {})
