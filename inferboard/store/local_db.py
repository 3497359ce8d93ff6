"""The local SQLite databases (practice history, workshop cohorts): opened in WAL mode with a busy
timeout and an integrity check, their tables created or given their missing columns in one write
transaction. A database another process is using is waited for, never taken for a damaged one; only
a database that fails SQLite's integrity check (or is not a database at all) is moved aside to
``<name>.corrupt-<timestamp>`` (with its WAL, shared-memory and journal files) so a fresh one can
start."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import sqlite_utils

from inferboard.errors import InferboardError
from inferboard.store.atomic import folder_lock

#: How long a write waits for another process's write to finish before giving up.
BUSY_TIMEOUT_S = 30.0
#: SQLite's primary result codes that mean the file itself is damaged or not a database.
_DAMAGED_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class DatabaseDamaged(sqlite3.DatabaseError):
    """The database failed SQLite's integrity check."""


class DatabaseUnavailable(InferboardError):
    """The database cannot be opened (read-only, no space...) although it is not damaged."""


class DatabaseBusy(DatabaseUnavailable):
    """Another process kept the database locked for longer than the busy timeout."""


#: SQLite's primary result codes for "another connection holds the lock".
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED


def is_damaged(error: sqlite3.Error) -> bool:
    """True when ``error`` says the file is damaged; "locked" or "busy" never is."""
    if isinstance(error, DatabaseDamaged):
        return True
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _DAMAGED_CODES


def integrity_problem(conn: sqlite3.Connection) -> str:
    """SQLite's quick check of ``conn``: "" when the database is sound, else what is wrong."""
    try:
        check = conn.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as error:
        if not is_damaged(error):
            raise
        return str(error)
    return "" if check and check[0] == "ok" else f"integrity check failed: {check[0] if check else 'no answer'}"


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, its write lock taken at the start (waiting up to the busy timeout),
    committed as a whole or not at all."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


def open_database(path: Path, tables: Mapping[str, Mapping[str, Any]], schema_version: int,
                  indexed: Sequence[str] = (), index_column: str = "",
                  primary_keys: Mapping[str, str] | None = None) -> sqlite_utils.Database:
    """Open ``path`` (WAL, synchronous writes, busy timeout) after SQLite's quick check; create
    ``tables`` (primary key ``id`` unless ``primary_keys`` names another) or add the columns they
    lack; index ``index_column`` of the ``indexed`` tables. Raises DatabaseDamaged (or another
    damage error) when the file cannot be read or fails the check, and ``sqlite3.OperationalError``
    when it stays locked."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    try:
        problem = integrity_problem(conn)
        if problem:
            raise DatabaseDamaged(problem)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        db = sqlite_utils.Database(conn)
        with write_transaction(conn):
            for name, columns in tables.items():
                db[name].create(dict(columns), pk=(primary_keys or {}).get(name, "id"), if_not_exists=True)
                missing = {c: t for c, t in columns.items() if c not in db[name].columns_dict}
                if missing:
                    db[name].add_missing_columns([missing])
            for name in indexed:
                db[name].create_index([index_column], if_not_exists=True)
            conn.execute(f"PRAGMA user_version={schema_version}")
        return db
    except BaseException:
        conn.close()
        raise


def open_or_recover(path: Path, connect: Callable[[], sqlite_utils.Database],
                    what: str) -> tuple[sqlite_utils.Database, Path | None, str]:
    """``connect()``; when the database is damaged, move it aside and start a fresh one. Returns the
    database, where a damaged one went (or None) and the notice for the user. Raises DatabaseBusy
    when another process keeps it locked past the busy timeout, DatabaseUnavailable when it cannot
    be written for another reason (a read-only folder, say); neither moves anything aside."""
    try:
        try:
            return connect(), None, ""
        except sqlite3.DatabaseError as error:
            if not is_damaged(error):
                raise
            reason = str(error)
        moved = move_aside_if_damaged(path)
        notice = "" if moved is None else (f"The {what} at {path} could not be read ({reason}). It was moved to "
                                           f"{moved} and a new, empty one was started.")
        return connect(), moved, notice
    except sqlite3.OperationalError as error:
        raise unavailable(error, path, what, "opened") from None


def unavailable(error: sqlite3.OperationalError, path: Path, what: str, doing: str) -> DatabaseUnavailable:
    """The one-line error for an operation on the database at ``path`` that SQLite refused:
    DatabaseBusy when another process kept it locked past the busy timeout."""
    if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF in _BUSY_CODES:
        return DatabaseBusy(f"{path}: the {what} is in use by another process and stayed locked for "
                            f"{BUSY_TIMEOUT_S:g} s ({error}); close the other program and try again")
    return DatabaseUnavailable(f"{path}: the {what} cannot be {doing} ({error})")


def move_aside_if_damaged(path: Path) -> Path | None:
    """Under the folder's lock, check ``path`` again and move it aside only if it still fails the
    check (another process may have replaced it already). Returns where it went, or None."""
    with folder_lock(path.parent):
        if path.exists():
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
            try:
                problem = integrity_problem(conn)
            finally:
                conn.close()
            if not problem:
                return None
        return move_aside(path)


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
