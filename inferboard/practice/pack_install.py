"""Installing a checked pack folder into the user packs folder so that a crash at any moment
leaves the old pack or the new one, never neither.

A pack is unpacked into a staging folder ``.import-*`` beside the installed packs. Replacing
``<id>`` renames it to ``.replaced-<id>`` first, then the new folder to ``<id>``, then removes the
old copy. All of it holds the packs folder's lock, so at the next start (``recover_installs``,
under the same lock) every staging folder is a crash's leftover and is removed, and a
``.replaced-<id>`` is put back when ``<id>`` is missing, or removed when the new one is in place."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from inferboard.practice.scenario import ID
from inferboard.safe_yaml import load_yaml_file
from inferboard.store.atomic import folder_lock

STAGING_PREFIX = ".import-"
REPLACED_PREFIX = ".replaced-"


def staging_folder(packs: Path) -> Path:
    """A new, empty staging folder inside ``packs`` (which holds its lock while it exists)."""
    return Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=packs))


def install_folder(root: Path, destination: Path) -> None:
    """Move the checked pack at ``root`` to ``destination``, replacing what is there. The caller
    holds the lock of ``destination.parent``."""
    old = destination.with_name(REPLACED_PREFIX + destination.name)
    if old.exists():  # left by a crash: put back if it is the only copy, else drop it
        if destination.exists():
            shutil.rmtree(old)
        else:
            old.rename(destination)
    _fsync_tree(root)
    if destination.exists():
        destination.rename(old)
        _fsync_folder(destination.parent)
    try:
        root.rename(destination)
    except OSError:
        if old.exists() and not destination.exists():
            old.rename(destination)
        raise
    _fsync_folder(destination.parent)
    shutil.rmtree(old, ignore_errors=True)


def recover_installs(packs: Path) -> list[str]:
    """Finish or undo installs a crash interrupted in ``packs``; return what was done, one line each.
    Does nothing while another process is installing a pack there."""
    if not packs.is_dir():
        return []
    try:
        with folder_lock(packs, wait=False):
            return _recover(packs)
    except (BlockingIOError, OSError):
        return []


def _recover(packs: Path) -> list[str]:
    done = []
    for child in sorted(packs.iterdir()):
        if child.is_symlink() or not child.is_dir():
            continue
        if child.name.startswith(STAGING_PREFIX):
            shutil.rmtree(child, ignore_errors=True)
            done.append(f"{child}: an interrupted import's staging folder was removed")
        elif child.name.startswith(REPLACED_PREFIX):
            destination = packs / _replaced_pack_id(child)
            if destination == packs or destination.exists():
                shutil.rmtree(child, ignore_errors=True)
                done.append(f"{child}: the copy an interrupted import replaced was removed")
            else:
                child.rename(destination)
                done.append(f"{destination}: put back after an interrupted import")
    return done


def _replaced_pack_id(folder: Path) -> str:
    """The id of the pack a ``.replaced-*`` folder held ("" when unknown). Older versions named it
    after the staging folder, so then it is read from its ``pack.yaml``."""
    name = folder.name[len(REPLACED_PREFIX):]
    if not name.startswith(STAGING_PREFIX):
        return name
    try:
        pack_id = load_yaml_file(folder / "pack.yaml").get("id")
    except Exception:  # an unreadable leftover: removed, since its pack id cannot be known
        return ""
    return pack_id if isinstance(pack_id, str) and re.fullmatch(ID, pack_id) else ""


def _fsync_tree(root: Path) -> None:
    """Make every file and folder under ``root`` durable before it is renamed into place."""
    for folder, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_folder(Path(folder))


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
