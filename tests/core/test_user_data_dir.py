"""One data folder for every store: settings, practice history, imported packs and workshop cohorts
all live under ``inferboard.paths.user_data_dir()``."""

from __future__ import annotations

import platformdirs

from inferboard import paths
from inferboard.practice.history import History
from inferboard.practice.library import user_packs_dir
from inferboard.workshop.cohorts import CohortStore


def test_the_environment_variable_names_the_folder_and_it_is_created(tmp_path, monkeypatch):
    folder = tmp_path / "mine" / "inferboard"
    monkeypatch.setenv("INFERBOARD_DATA_DIR", str(folder))
    assert paths.user_data_dir() == folder and folder.is_dir()
    assert paths.user_data_dir(tmp_path / "given") == tmp_path / "given"


def test_without_the_variable_it_is_the_platform_folder_with_no_vendor_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("INFERBOARD_DATA_DIR", raising=False)
    seen = []

    def platform_folder(appname, appauthor=None):
        seen.append((appname, appauthor))
        return str(tmp_path / "platform" / appname)

    monkeypatch.setattr(platformdirs, "user_data_dir", platform_folder)
    assert paths.user_data_dir() == tmp_path / "platform" / "inferboard"
    assert seen == [("inferboard", False)]


def test_every_store_opens_in_the_one_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("INFERBOARD_DATA_DIR", str(tmp_path / "data"))
    with History() as history:
        assert history.path.parent == tmp_path / "data"
    with CohortStore() as cohorts:
        assert cohorts.path.parent == tmp_path / "data"
    assert user_packs_dir() == tmp_path / "data" / "scenarios"
