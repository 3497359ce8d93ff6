"""tools/own_words.py, the developer's check that shipped prose is in the project's own words, run
here against notes written by the test (the real notes live outside the repository)."""

from __future__ import annotations

from pathlib import Path

from tools import own_words


def test_it_checks_every_kind_of_shipped_prose():
    paths = own_words.shipped_prose()
    kinds = {p.relative_to(own_words.ROOT).parts[:2] if "assets" in p.parts else p.relative_to(own_words.ROOT).parts[:1]
             for p in paths}
    assert {("assets", "scenarios"), ("assets", "drills"), ("assets", "help"), ("rubrics",), ("docs",),
            ("README.md",)} <= kinds
    assert len([p for p in paths if "drills" in p.parts]) >= 12
    assert len([p for p in paths if "scenarios" in p.parts]) >= 8


def test_a_sentence_copied_from_the_notes_is_reported_with_its_file(tmp_path: Path, capsys):
    shipped = own_words.ROOT / "docs" / "simulator.md"
    sentence = " ".join(own_words.shingles(shipped.read_text(encoding="utf-8")).pop())
    seed = tmp_path / "notes.txt"
    seed.write_text("Some notes. " + sentence + ". More notes.", encoding="utf-8")
    assert own_words.main(["--seed", str(seed)]) == 1
    assert "docs/simulator.md" in capsys.readouterr().out


def test_notes_sharing_no_run_of_eight_words_pass(tmp_path: Path, capsys):
    seed = tmp_path / "notes.txt"
    seed.write_text("zebra quokka " * 40, encoding="utf-8")
    assert own_words.main(["--seed", str(seed)]) == 0
    assert "no run of 8 words" in capsys.readouterr().out


def test_a_run_of_seven_shared_words_is_not_a_copy():
    assert not own_words.shingles("one two three four five six seven") & own_words.shingles(
        "one two three four five six seven")
    assert own_words.shingles("a b c d e f g h") == {tuple("abcdefgh")}


def test_missing_notes_are_one_line_and_exit_2(tmp_path: Path, capsys):
    assert own_words.main(["--seed", str(tmp_path / "absent.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "absent.txt" in err[0]
