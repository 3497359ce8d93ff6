"""Where Inferboard's files live: the shipped data (inside the installed package, or beside it in a
source tree) and the user's own data folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder of shipped data called ``name`` (``components``, ``rubrics``, ``assets``).

    An installed wheel carries the data under ``inferboard/_data/<name>``; a source checkout or an
    editable install finds it at the project's top level.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"Inferboard's {name!r} data folder is missing from this installation")


#: Set to a folder to keep every user file there (the tests point it at a temporary folder).
USER_DATA_ENV = "INFERBOARD_DATA_DIR"


def user_data_dir(override: str | os.PathLike | None = None) -> Path:
    """Return the folder every store keeps the user's own files in, created if missing.

    ``override`` when given, else ``$INFERBOARD_DATA_DIR`` when set, else the platform's user data
    folder for "inferboard" (no vendor folder on Windows). Settings, autosaves, practice history,
    imported scenario packs and workshop cohorts all live under it.
    """
    if override is not None:
        folder = Path(override)
    elif os.environ.get(USER_DATA_ENV):
        folder = Path(os.environ[USER_DATA_ENV])
    else:
        folder = Path(platformdirs.user_data_dir("inferboard", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
