"""Work-arounds for bugs in the Qt bindings, applied once per process.

PySide6 6.12.0 on CPython before 3.12 hands back ``None`` from every void method (``setPos``,
``setText``, ``update`` ...), and ``True``/``False`` from some others, without taking a new
reference. Python 3.12 made these singletons immortal, which hides this; on 3.11 each such call
drops a reference count by one, and after some tens of thousands of calls the interpreter aborts
("none_dealloc: deallocating None", "bool_dealloc: deallocating True or False"). PySide6 6.11
does not have the bug. Until the project pins a good release, we give the singletons reference
counts no session can exhaust, which is what Python 3.12 does anyway.
"""

from __future__ import annotations

import ctypes
import platform
import sys

import PySide6

#: References added to each singleton (2**40: a call per microsecond for twelve days).
NONE_HEADROOM = 1 << 40
SINGLETONS = (None, True, False, NotImplemented, Ellipsis)
_applied = False


def pyside_version() -> tuple[int, ...]:
    """PySide6's (major, minor) version."""
    return tuple(int(part) for part in PySide6.__version__.split(".")[:2] if part.isdigit())


def affected() -> bool:
    """Whether this Python and PySide6 need the reference-count workaround (CPython 3.11 with PySide6 6.12+)."""
    return (sys.version_info < (3, 12) and platform.python_implementation() == "CPython"
            and pyside_version() >= (6, 12))


def protect_none_refcount() -> bool:
    """Apply the work-around if this PySide6 and Python need it; True if applied (now or before)."""
    global _applied
    if _applied:
        return True
    if not affected():
        return False
    for singleton in SINGLETONS:
        ctypes.c_ssize_t.from_address(id(singleton)).value += NONE_HEADROOM
    _applied = True
    return True


protect_none_refcount()
