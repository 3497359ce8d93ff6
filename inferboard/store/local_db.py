"""The local SQLite databases (practice history, workshop cohorts): opened with an integrity check,
their tables created or given their missing columns, and a database SQLite cannot read moved aside
to ``<name>.corrupt-<timestamp>`` (with its WAL, shared-memory and journal files) so a fresh one can
start."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

import sqlite_utils


def open_database(path: Path, tables: Mapping[str, Mapping[str, Any]], schema_version: int,
                  indexed: Sequence[str] = (), index_column: str = "",
                  primary_keys: Mapping[str, str] | None = None) -> sqlite_utils.Database:
    """Open ``path`` (WAL, synchronous writes) after SQLite's quick check; create ``tables`` (primary
    key ``id`` unless ``primary_keys`` names another) or add the columns they lack; index
    ``index_column`` of the ``indexed`` tables. Raises ``sqlite3.DatabaseError`` when the file
    cannot be read or fails the check."""
    conn = sqlite3.connect(str(path), timeout=5.0, check_same_thread=False)
    try:
        check = conn.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else 'no answer'}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        db = sqlite_utils.Database(conn)
        for name, columns in tables.items():
            db[name].create(dict(columns), pk=(primary_keys or {}).get(name, "id"), if_not_exists=True)
            missing = {c: t for c, t in columns.items() if c not in db[name].columns_dict}
            if missing:
                db[name].add_missing_columns([missing])
        for name in indexed:
            db[name].create_index([index_column], if_not_exists=True)
        conn.execute(f"PRAGMA user_version={schema_version}")
        conn.commit()
        return db
    except sqlite3.DatabaseError:
        conn.close()
        raise


def move_aside(path: Path) -> Path:
    """Rename the database at ``path`` and its side files to ``<name>.corrupt-<UTC time>[-n]``;
    return the new path of the database."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    if path.exists():
        path.replace(target)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.replace(target.with_name(target.name + suffix))
    return target
