"""The templates a new design can start from: a blank canvas and every bundled example, each with
the title and one line the gallery shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from inferboard.paths import data_dir


BLANK = "blank"


@dataclass(frozen=True)
class Template:
    """A template as the gallery shows it: a title and one line, never the file's slug."""

    name: str
    title: str
    summary: str
    path: Path | None


BLANK_TEMPLATE = Template(BLANK, "Blank design", "An empty canvas: start from the palette.", None)


def first_sentence(text: str, limit: int = 72) -> str:
    """The first sentence, cut at its last clause (or word) that fits in ``limit`` characters."""
    text = " ".join(text.split())
    end = text.find(". ")
    line = text if end < 0 else text[:end + 1]
    if len(line) <= limit:
        return line
    clause = line[:limit].rfind(", ")
    if clause > limit // 2:
        return line[:clause] + "."
    return line[:line[:limit - 1].rfind(" ")].rstrip(",;:") + "…"


def template_list() -> list[Template]:
    """The blank design, then every bundled example with its own title and first sentence."""
    out = [BLANK_TEMPLATE]
    ordered = sorted(templates().items(), key=lambda item: (item[0] != "starter", item[0]))
    for name, path in ordered:
        if path is None:
            continue
        try:
            metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError):
            metadata = {}
        title = str(metadata.get("title") or name.replace("-", " ").capitalize())
        short, _, rest = title.partition(": ")
        out.append(Template(name, short if rest else title,
                            first_sentence(str(metadata.get("notes") or rest or "")), path))
    return out


def is_bundled(path: Path | str) -> bool:
    """Whether ``path`` is one of the files shipped with Inferboard (examples, references)."""
    try:
        return Path(path).resolve().is_relative_to(data_dir("assets").resolve())
    except (OSError, FileNotFoundError):
        return False


def templates() -> dict[str, Path | None]:
    """Template name -> example file (``blank`` is an empty design)."""
    found: dict[str, Path | None] = {BLANK: None}
    folder = data_dir("assets") / "examples"
    for path in sorted(folder.glob("*.json")):
        found[path.stem] = path
    return found
