"""Saves racing each other: compare-and-swap under one lock, nothing lost, nothing torn, the file's
mode and symlinks kept, and temporary files a crash left removed by the next save."""

import multiprocessing
import os
import stat

import pytest

from inferboard.store import FileStamp, SaveConflict, atomic_write
from inferboard.store.atomic import TEMP_SUFFIX, backup_path, sweep_temporaries

ROUNDS = 100


def _racer(folder, who, barrier, results):
    """For each round, read the file's stamp, wait for the other writer, then save against it."""
    for number in range(ROUNDS):
        path = os.path.join(folder, f"r{number}.json")
        stamp = FileStamp.read(path)
        barrier.wait(timeout=20)
        try:
            atomic_write(path, f"{who}-{number}".encode(), expected=stamp)
            results.put((number, who, "saved"))
        except SaveConflict:
            results.put((number, who, "conflict"))
        except Exception as error:  # reported to the test, which fails on it
            results.put((number, who, repr(error)))


def _spawn(target, *args):
    process = multiprocessing.get_context("spawn").Process(target=target, args=args, daemon=True)
    process.start()
    return process


def test_two_writers_racing_never_lose_an_edit(tmp_path):
    for number in range(ROUNDS):
        (tmp_path / f"r{number}.json").write_bytes(b"original")
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    racers = [_spawn(_racer, str(tmp_path), who, barrier, results) for who in ("a", "b")]
    outcomes = [results.get(timeout=60) for _ in range(2 * ROUNDS)]
    for racer in racers:
        racer.join(timeout=20)
    by_round: dict[int, dict[str, str]] = {}
    for number, who, outcome in outcomes:
        by_round.setdefault(number, {})[who] = outcome
    for number, seen in by_round.items():
        assert sorted(seen.values()) == ["conflict", "saved"], (number, seen)
        winner = next(who for who, outcome in seen.items() if outcome == "saved")
        assert (tmp_path / f"r{number}.json").read_bytes() == f"{winner}-{number}".encode()
    assert len(by_round) == ROUNDS
    assert not [p for p in os.listdir(tmp_path) if p.endswith(TEMP_SUFFIX)]


def _loop_writer(path, payload, count, errors):
    for _ in range(count):
        try:
            atomic_write(path, payload)
        except Exception as error:
            errors.put(repr(error))
    errors.put("done")


def test_a_reader_never_sees_a_torn_file_while_two_writers_loop(tmp_path):
    path = tmp_path / "d.json"
    big, small = b"B" * 200_000, b"small"
    path.write_bytes(small)
    context = multiprocessing.get_context("spawn")
    errors = context.Queue()
    writers = [_spawn(_loop_writer, str(path), payload, 150, errors) for payload in (big, small)]
    reads, done, problems = 0, 0, []
    while done < 2:
        assert path.read_bytes() in (big, small)
        reads += 1
        while not errors.empty():
            message = errors.get()
            done += message == "done"
            problems += [] if message == "done" else [message]
    for writer in writers:
        writer.join(timeout=20)
    assert problems == [] and reads > 0
    assert not [p for p in os.listdir(tmp_path) if p.endswith(TEMP_SUFFIX)]


def test_a_save_keeps_the_files_mode_and_a_new_file_follows_the_umask(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(b"old")
    path.chmod(0o664)
    atomic_write(path, b"new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o664 and path.read_bytes() == b"new"
    old_umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "report.html", b"<p>", keep_backup=False)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o644


def test_a_save_through_a_symlink_writes_its_target(tmp_path):
    real_folder = tmp_path / "real"
    real_folder.mkdir()
    real = real_folder / "design.json"
    real.write_bytes(b"version 1")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    stamp = FileStamp.read(link)
    atomic_write(link, b"version 2", expected=stamp)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"version 2"
    assert backup_path(real).read_bytes() == b"version 1"
    with pytest.raises(SaveConflict):
        atomic_write(link, b"version 3", expected=stamp)
    assert real.read_bytes() == b"version 2"


def test_temporary_files_left_by_a_crash_go_at_the_next_save_or_sweep(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(b"old")
    crashed = tmp_path / f".d.json.dead{TEMP_SUFFIX}"
    crashed.write_bytes(b"half a desi")
    atomic_write(path, b"new")
    assert not crashed.exists() and path.read_bytes() == b"new"
    crashed.write_bytes(b"half")
    keep = tmp_path / ".hidden-but-mine"
    keep.write_bytes(b"x")
    assert sweep_temporaries(tmp_path) == [crashed.name]
    assert not crashed.exists() and keep.exists()


def test_a_backup_already_linked_to_the_file_leaves_no_staging_file(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(b"one")
    os.link(path, backup_path(path))  # a kill after the backup was made, before the rename
    atomic_write(path, b"two")
    assert path.read_bytes() == b"two" and backup_path(path).read_bytes() == b"one"
    assert sorted(os.listdir(tmp_path)) == ["d.json", "d.json.bak"]


def test_a_folder_that_cannot_be_locked_itself_uses_a_lock_file(tmp_path, monkeypatch):
    from inferboard.store import atomic

    real_flock = atomic.fcntl.flock

    def no_folder_locks(fd, mode):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(37, "No locks available")
        return real_flock(fd, mode)

    monkeypatch.setattr(atomic.fcntl, "flock", no_folder_locks)
    stamp = atomic_write(tmp_path / "d.json", b"one")
    with pytest.raises(SaveConflict):
        atomic_write(tmp_path / "d.json", b"two", expected=FileStamp.of_bytes(tmp_path / "d.json", b"other"))
    atomic_write(tmp_path / "d.json", b"three", expected=stamp)
    assert (tmp_path / "d.json").read_bytes() == b"three" and (tmp_path / atomic.FALLBACK_LOCK).exists()


def test_temporary_files_named_by_earlier_saves_go_too_and_nothing_else(tmp_path):
    """Earlier versions named a save's temporary file ``.<name>.<8 random>.tmp`` and the backup being
    made ``.<name>.bak.tmp``: those beside their file go at the next sweep; the same names with no
    such file, or any other name, stay."""
    (tmp_path / "d.json").write_bytes(b"design")
    (tmp_path / "notes.txt").write_bytes(b"mine")
    old = [".d.json.k3x_9q0a.tmp", ".d.json.bak.tmp"]
    kept = [".gone.json.k3x_9q0a.tmp",  # its design is not there
            ".d.json.k3x9q0a.tmp", ".d.json.K3X_9Q0A.tmp", ".d.json.k3x-9q0a.tmp",  # not 8 of mkstemp's letters
            ".notes.txt.backup.tmp", "d.json.k3x_9q0a.tmp", ".d.json.k3x_9q0a.tmp.swp", ".tmp", "..tmp"]
    for name in old + kept:
        (tmp_path / name).write_bytes(b"x")
    link = tmp_path / ".d.json.linkedxx.tmp"
    link.symlink_to(tmp_path / "notes.txt")  # a link is never removed
    assert sorted(sweep_temporaries(tmp_path)) == sorted(old)
    assert all((tmp_path / name).exists() for name in kept) and link.is_symlink()
    assert (tmp_path / "d.json").read_bytes() == b"design"
