"""Where the desktop app keeps its own files (settings, recent files, autosaves).

Everything lives under one folder: ``$INFERBOARD_DATA_DIR`` when set (tests point it at a temporary
folder so they never touch the real home), otherwise the platform's user data folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

from inferboard.paths import user_data_dir


def app_settings(folder: Path | None = None) -> QSettings:
    """The app's settings, as an INI file in the data folder (never the registry or ~/.config)."""
    return QSettings(str((folder or user_data_dir()) / "settings.ini"), QSettings.Format.IniFormat)


class RecentFiles:
    """The most recently opened or saved design files, newest first, kept in the settings."""

    KEY = "files/recent"

    def __init__(self, settings: QSettings, limit: int = 10):
        self.settings = settings
        self.limit = limit

    def paths(self) -> list[str]:
        """The remembered paths, newest first."""
        value = self.settings.value(self.KEY, [])
        if isinstance(value, str):
            value = [value] if value else []
        return [str(p) for p in (value or [])]

    def add(self, path: str | os.PathLike) -> None:
        """Put ``path`` (resolved) first, dropping any older mention and the oldest beyond the limit."""
        path = str(Path(path).resolve())
        paths = [p for p in self.paths() if p != path]
        self.settings.setValue(self.KEY, [path, *paths][: self.limit])

    def remove(self, path: str) -> None:
        """Forget ``path`` (a file that no longer opens, say)."""
        self.settings.setValue(self.KEY, [p for p in self.paths() if p != path])

    def clear(self) -> None:
        """Forget every recent file."""
        self.settings.setValue(self.KEY, [])
