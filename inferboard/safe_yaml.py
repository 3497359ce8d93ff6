"""YAML reading for declarative files: safe loading only, aliases refused, size capped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_YAML_BYTES = 2_000_000


class YamlFileError(ValueError):
    """A YAML file could not be read; the message names the file and what is wrong."""


class _NoAliasLoader(yaml.SafeLoader):
    """A SafeLoader that refuses aliases, so an alias bomb is rejected at once."""

    def compose_node(self, parent, index):  # noqa: D401 - PyYAML hook
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in Inferboard files", event.start_mark
            )
        return super().compose_node(parent, index)


def load_yaml_text(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        raise YamlFileError(f"{source}: not valid YAML: {error}") from None


def load_yaml_file(path: Path) -> Any:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise YamlFileError(f"{path}: {size} bytes is larger than the {MAX_YAML_BYTES}-byte limit")
        raw = path.read_bytes()
    except OSError as error:
        raise YamlFileError(f"{path}: cannot be read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise YamlFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    return load_yaml_text(text, str(path))
