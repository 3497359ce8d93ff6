"""A pack import killed at any moment leaves the old pack or the new one, and the next start
removes the staging folders and the copies it left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from inferboard.practice.library import ScenarioLibrary
from inferboard.practice.pack_install import recover_installs
from tests.practice.conftest import ROOT, copy_pack

DYING_IMPORT = textwrap.dedent("""
    import os, shutil, sys
    from pathlib import Path
    from inferboard.practice import packzip
    from inferboard.practice.library import ScenarioLibrary

    point, renames, reads = sys.argv[3], [], []
    real_rename, real_rmtree, real_read = Path.rename, shutil.rmtree, packzip._read_limited

    def rename(self, target):
        renames.append(self)
        if point == f"before-rename-{len(renames)}":
            os._exit(9)
        moved = real_rename(self, target)
        if point == f"after-rename-{len(renames)}":
            os._exit(9)
        return moved

    def rmtree(path, *args, **kwargs):
        if point == "removing-old" and Path(path).name.startswith(".replaced-"):
            real_rmtree(next(p for p in Path(path).iterdir() if p.is_dir()))
            os._exit(9)
        return real_rmtree(path, *args, **kwargs)

    def read(*args, **kwargs):
        reads.append(1)
        if point == "extracting" and len(reads) == 3:
            os._exit(9)
        return real_read(*args, **kwargs)

    Path.rename, shutil.rmtree, packzip._read_limited = rename, rmtree, read
    ScenarioLibrary(user_packs=Path(sys.argv[1])).import_pack(Path(sys.argv[2]), replace=True)
""")

#: Where the import dies, and which title the pack has at the next start.
CRASH_POINTS = [("extracting", "Old title"), ("before-rename-1", "Old title"), ("after-rename-1", "Old title"),
                ("after-rename-2", "New title"), ("removing-old", "New title")]


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    """The same pack installed (old title) and as a zip with a new title."""
    folder = tmp_path_factory.mktemp("zips")
    made = {}
    for title in ("Old title", "New title"):
        pack = copy_pack(folder / title.split()[0] / "extra", ["fraud-scoring-cpu", "bursty-speech"], title=title)
        made[title] = ScenarioLibrary(user_packs=pack.parent).load().export("extra", folder / f"{title.split()[0]}.zip")
    return made


@pytest.mark.slow  # one Python process per crash point
@pytest.mark.parametrize("point, title", CRASH_POINTS)
def test_an_import_killed_at_any_point_leaves_the_old_or_the_new_pack(tmp_path, zips, point, title):
    user = tmp_path / "user"
    ScenarioLibrary(user_packs=user).import_pack(zips["Old title"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    died = subprocess.run([sys.executable, "-c", DYING_IMPORT, str(user), str(zips["New title"]), point],
                          capture_output=True, text=True, timeout=120, env=env)
    assert died.returncode == 9, died.stderr
    library = ScenarioLibrary(user_packs=user).load()  # the next start
    assert library.packs["extra"].info.title == title
    assert {"extra-fraud-scoring-cpu", "extra-bursty-speech"} <= set(library.entries)
    assert sorted(p.name for p in user.iterdir()) == ["extra"]


def test_the_next_start_puts_back_a_replaced_pack_and_removes_staging_folders(tmp_path, zips):
    user = tmp_path / "user"
    ScenarioLibrary(user_packs=user).import_pack(zips["Old title"])
    (user / "extra").rename(user / ".replaced-extra")  # killed between the two renames
    (user / ".import-x1" / "extra").mkdir(parents=True)  # and a half-unpacked zip
    assert "extra" not in ScenarioLibrary(user_packs=None).load().packs
    done = recover_installs(user)
    assert len(done) == 2 and any("put back" in line for line in done)
    assert sorted(p.name for p in user.iterdir()) == ["extra"]
    assert ScenarioLibrary(user_packs=user).load().packs["extra"].info.title == "Old title"


def test_a_leftover_copy_beside_the_new_pack_is_removed(tmp_path, zips):
    user = tmp_path / "user"
    library = ScenarioLibrary(user_packs=user)
    library.import_pack(zips["Old title"])
    (user / ".replaced-.import-abc").mkdir()  # an older version's name for the replaced copy
    (user / ".replaced-.import-abc" / "pack.yaml").write_text("id: extra\ntitle: Old title\n")
    library.import_pack(zips["New title"], replace=True)
    assert sorted(p.name for p in user.iterdir()) == ["extra"]
    assert library.packs["extra"].info.title == "New title"
    library.remove_pack("extra")
    assert list(user.iterdir()) == [] and "extra" not in library.packs
