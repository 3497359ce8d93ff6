"""The one guarded way the app and the command line read a user's file: regular files only (a FIFO
or device is refused by its status, before any read), a size cap enforced while reading, and strict
JSON (a duplicate key, a number too long or too large, NaN or Infinity is refused). Every refusal
is one line naming the file and the item."""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from inferboard.printable import shown

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
#: the most digits a JSON number may have: past ~308 a number no longer fits a float
MAX_NUMBER_DIGITS = 300
DEFAULT_MAX_DEPTH = 64
_CHUNK = 1 << 20
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class FileRefused(ValueError):
    """A file was refused; ``str()`` is one line naming the file, the item (if any) and what is wrong."""

    def __init__(self, source: str, message: str, item: str = ""):
        self.source, self.item, self.message = str(source), item, message
        where = f"{shown(self.source)}: {shown(item)}: " if item else f"{shown(self.source)}: "
        super().__init__(where + shown(message))


def file_kind(mode: int) -> str:
    """What a status mode is, in words: "a named pipe", "a folder", "a regular file"..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "another kind of file")


def _not_regular(mode: int) -> str | None:
    return None if stat.S_ISREG(mode) else f"not a regular file: it is {file_kind(mode)}"


def read_bounded(path: Path | str, max_bytes: int = DEFAULT_MAX_BYTES, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` (a pipe, device or folder is
    refused by its status at once, a symbolic link too unless ``follow_links``; a file that grows
    past the cap while read is refused as well)."""
    source = str(path)
    try:
        problem = _not_regular((os.stat if follow_links else os.lstat)(path).st_mode)
        if problem:
            raise FileRefused(source, problem)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
                     | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0)))
        try:
            info = os.fstat(fd)
            problem = _not_regular(info.st_mode)  # swapped for something else since the stat
            if problem:
                raise FileRefused(source, problem)
            if info.st_size > max_bytes:
                raise FileRefused(source, f"{info.st_size} bytes is larger than the {max_bytes}-byte limit")
            return _read_capped(fd, source, max_bytes)
        finally:
            os.close(fd)
    except OSError as error:
        raise FileRefused(source, f"cannot be read: {error.strerror or error}") from None


def _read_capped(fd: int, source: str, max_bytes: int) -> bytes:
    chunks, total = [], 0
    while True:
        chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise FileRefused(source, f"larger than the {max_bytes}-byte limit")


def decode_text(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark is dropped), or FileRefused."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FileRefused(source, f"not UTF-8 text (invalid byte at offset {error.start})") from None


class _Refusal(Exception):
    """Raised inside the JSON parser's hooks; turned into FileRefused with the file's name."""


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        owner = result.get("id")
        where = f" (the object with id '{owner[:64]}')" if isinstance(owner, str) and duplicate != "id" else ""
        raise _Refusal(f"key '{duplicate[:64]}' appears twice in one object{where}")
    return result


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Refusal(f"a number of {len(text.lstrip('-'))} digits (at most {MAX_NUMBER_DIGITS} allowed)")
    return int(text)


def _finite_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 20:
        raise _Refusal(f"a number written with {len(text)} characters (at most {MAX_NUMBER_DIGITS + 20})")
    value = float(text)
    if not math.isfinite(value):
        raise _Refusal(f"the number {text[:40]} is too large")
    return value


def _refuse_constant(name: str) -> float:
    raise _Refusal(f"{name} is not a number JSON allows")


def nesting_depth(value: Any) -> int:
    """How deeply lists and dicts nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(data: bytes, source: str, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Strictly parse JSON bytes: duplicate keys, numbers of more than MAX_NUMBER_DIGITS digits or
    beyond a float's range, NaN/Infinity and nesting deeper than ``max_depth`` are refused."""
    text = decode_text(data, source)
    try:
        value = json.loads(text, object_pairs_hook=_unique_object, parse_int=_bounded_int,
                           parse_float=_finite_float, parse_constant=_refuse_constant)
    except _Refusal as refusal:
        raise FileRefused(source, f"not valid JSON: {refusal}") from None
    except RecursionError:
        raise FileRefused(source, f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as error:
        truncated = error.msg.startswith("Expecting") and error.pos >= len(text.rstrip())
        hint = " - the file may be truncated" if truncated else ""
        raise FileRefused(source, f"not valid JSON (line {error.lineno}, column {error.colno}): "
                                  f"{error.msg}{hint}") from None
    if nesting_depth(value) > max_depth:
        raise FileRefused(source, f"nested deeper than {max_depth} levels")
    return value
