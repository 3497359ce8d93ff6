"""Where the shipped data lives: inside the installed package, or beside it in a source tree."""

from __future__ import annotations

from pathlib import Path

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
