"""Showing user-supplied text safely: control, format, unassigned and bidirectional-override
characters are written as escapes (``\\x1b``, ``\\u202e``) so an id or file name cannot drive the terminal or reorder a line."""

from __future__ import annotations

import unicodedata

#: Unicode's explicit bidirectional formatting characters (embeddings, overrides, isolates, marks)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    return char in _BIDI or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def shown(text: object, keep_newlines: bool = False) -> str:
    """``text`` as a string with every control, format and bidi character escaped
    (newlines kept when ``keep_newlines``, for messages of several lines)."""
    text = str(text)
    if text.isprintable():  # the common case, checked at C speed
        return text
    return "".join(char if char == " " or (keep_newlines and char == "\n") or not _unsafe(char) else _escape(char)
                   for char in text)
