"""Pack zips: written deterministically, read defensively.

An imported zip is untrusted. It is refused whole, with the offending entry named, when it is too
large, holds too many entries, an entry larger than the limit (checked while reading, not just from
the header), a path that is absolute or climbs out with ``..``, a symbolic link, a device, pipe or
socket, or a file type a pack never contains. The same checks open zips of workshop submissions
(``inferboard.workshop.submissions``).
"""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

import yaml

from inferboard.errors import InferboardError
from inferboard.store.atomic import atomic_write

MAX_ZIP_BYTES = 32 * 1024 * 1024
MAX_ENTRIES = 500
MAX_ENTRY_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
ALLOWED_SUFFIXES = (".yaml", ".yml", ".json", ".md", ".txt")
#: A fixed timestamp so the same pack always zips to the same bytes.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


class PackError(InferboardError):
    """A pack could not be imported, exported or read; the message names the file and field."""


class PackZipError(PackError):
    """A pack zip is unsafe or unreadable; the message names the zip and the entry."""


def _safe_name(name: str, source: Path, max_depth: int = 4) -> PurePosixPath:
    if "\\" in name or "\x00" in name:
        raise PackZipError(f"{source}: entry '{name[:200]}': backslashes and NUL are not allowed in names")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/") or (path.parts and ":" in path.parts[0]):
        raise PackZipError(f"{source}: entry '{name[:200]}': absolute paths are not allowed")
    if any(part in ("..", ".") for part in path.parts) or not path.parts:
        raise PackZipError(f"{source}: entry '{name[:200]}': '..' would write outside the pack")
    if len(path.parts) > max_depth or len(name) > 300:
        raise PackZipError(f"{source}: entry '{name[:200]}': nested too deep or named too long")
    return path


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return stat.S_ISLNK(mode)


def special_file_kind(info: zipfile.ZipInfo) -> str | None:
    """What an entry is when it is neither a regular file nor a folder (a link, a device, a pipe, a
    socket), from the Unix mode kept in its header; None for an ordinary entry."""
    mode = info.external_attr >> 16
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None


def safe_entry_name(name: str, source: Path, max_depth: int = 4) -> PurePosixPath:
    """An entry's name as a relative path, or PackZipError when it is absolute, climbs out with
    ``..``, holds a backslash or NUL, or is nested deeper than ``max_depth``."""
    return _safe_name(name, source, max_depth)


def read_entry_limited(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: Path, limit: int) -> bytes:
    """Read an entry, stopping as soon as it passes ``limit`` bytes (headers can lie)."""
    return _read_limited(archive, info, source, limit)


def extract_pack_zip(source: Path, destination: Path) -> Path:
    """Extract ``source`` into the empty folder ``destination``; return the pack's root folder
    (``destination`` itself, or its single top-level folder). Raise PackZipError when unsafe."""
    source = Path(source)
    try:
        size = source.stat().st_size
    except OSError as error:
        raise PackZipError(f"{source}: cannot be read: {error.strerror or error}") from None
    if size > MAX_ZIP_BYTES:
        raise PackZipError(f"{source}: {size} bytes is larger than the {MAX_ZIP_BYTES}-byte limit for packs")
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise PackZipError(f"{source}: not a zip file ({error})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:
            raise PackZipError(f"{source}: {len(infos)} entries is more than the limit of {MAX_ENTRIES}")
        planned = _plan(infos, source)
        total = 0
        for info, path in planned:
            target = destination.joinpath(*path.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            data = _read_limited(archive, info, source)
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise PackZipError(f"{source}: unpacks to more than {MAX_TOTAL_BYTES} bytes")
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as handle:  # "x": never overwrite or follow an existing link
                handle.write(data)
    return _pack_root(destination, source)


def _plan(infos: list[zipfile.ZipInfo], source: Path) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    planned = []
    seen: set[str] = set()
    for info in infos:
        path = _safe_name(info.filename, source)
        if _is_symlink(info):
            raise PackZipError(f"{source}: entry '{info.filename}': symbolic links are not allowed in a pack")
        special = special_file_kind(info)
        if special is not None:
            raise PackZipError(f"{source}: entry '{info.filename}': {special} is not allowed in a pack")
        if not info.is_dir():
            if path.suffix.lower() not in ALLOWED_SUFFIXES:
                raise PackZipError(f"{source}: entry '{info.filename}': only {', '.join(ALLOWED_SUFFIXES)} "
                                   "files belong in a pack")
            if info.file_size > MAX_ENTRY_BYTES:
                raise PackZipError(f"{source}: entry '{info.filename}': {info.file_size} bytes is larger than "
                                   f"the {MAX_ENTRY_BYTES}-byte limit")
        key = str(path).lower()
        if key in seen:
            raise PackZipError(f"{source}: entry '{info.filename}': appears twice")
        seen.add(key)
        planned.append((info, path))
    return planned


def _read_limited(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: Path,
                  limit: int = MAX_ENTRY_BYTES) -> bytes:
    """Read an entry, stopping as soon as it exceeds the limit (headers can lie)."""
    buffer = io.BytesIO()
    try:
        with archive.open(info) as handle:
            while True:
                chunk = handle.read(65536)
                if not chunk:
                    break
                buffer.write(chunk)
                if buffer.tell() > limit:
                    raise PackZipError(f"{source}: entry '{info.filename}': unpacks to more than the "
                                       f"{limit}-byte limit")
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        raise PackZipError(f"{source}: entry '{info.filename}': cannot be read ({error})") from None
    return buffer.getvalue()


def _pack_root(destination: Path, source: Path) -> Path:
    if (destination / "pack.yaml").is_file():
        return destination
    children = [p for p in destination.iterdir()]
    if len(children) == 1 and children[0].is_dir() and (children[0] / "pack.yaml").is_file():
        return children[0]
    raise PackZipError(f"{source}: no pack.yaml at the top of the zip or of its single folder")


def pack_zip_bytes(info: dict[str, Any], scenario_folders: Iterable[Path]) -> bytes:
    """The zip of a pack: ``<pack-id>/pack.yaml`` and ``<pack-id>/<scenario>/...`` (regular files
    with allowed suffixes only; names sorted; fixed timestamps)."""
    root = info["id"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        def add(name: str, data: bytes) -> None:
            entry = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            entry.external_attr = (stat.S_IFREG | 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)

        add(f"{root}/pack.yaml", yaml.safe_dump(info, sort_keys=False, allow_unicode=True).encode("utf-8"))
        for folder in sorted(scenario_folders, key=lambda p: p.name):
            for path in sorted(folder.iterdir()):
                if path.is_symlink() or not path.is_file() or path.suffix.lower() not in ALLOWED_SUFFIXES:
                    continue
                if path.name.startswith(".") or path.name.endswith(".bak"):
                    continue
                add(f"{root}/{folder.name}/{path.name}", path.read_bytes())
    return buffer.getvalue()


def write_pack_zip(target: Path, info: dict[str, Any], scenario_folders: Iterable[Path]) -> Path:
    """Write a pack zip of ``scenario_folders`` with pack info ``info`` to ``target`` (atomically); returns it."""
    target = Path(target)
    atomic_write(target, pack_zip_bytes(info, scenario_folders), keep_backup=False)
    return target
