"""YAML reading for declarative files: safe loading only (libyaml's C parser when installed, PyYAML's
pure-Python one otherwise), with aliases, unknown tags, deep nesting, over-long numbers and
oversized files refused, and every parser or constructor error turned into one line naming the file."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from inferboard.safe_read import MAX_NUMBER_DIGITS, FileRefused, decode_text, read_bounded

MAX_YAML_BYTES = 2_000_000
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 200_000
_CORE = "tag:yaml.org,2002:"
ALLOWED_TAGS = frozenset(_CORE + name for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp"))


class YamlFileError(FileRefused):
    """A YAML file could not be read; the message names the file and what is wrong."""


def make_loader(base: type) -> type:
    """A safe loader class on ``base`` (libyaml's CSafeLoader or PyYAML's SafeLoader) whose constructors
    refuse over-long integers and non-finite floats and report any conversion error (a bad date, a
    bad !!float) at the node's line."""

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        def construct_object(self, node, deep=False):  # noqa: D401 - PyYAML hook
            try:
                return super().construct_object(node, deep)
            except (ValueError, TypeError, OverflowError, ArithmeticError) as error:
                raise yaml.constructor.ConstructorError(None, None, f"{node.value!s:.40} is not a valid "
                                                        f"{node.tag.rsplit(':', 1)[-1]}: {error}", node.start_mark)

        def construct_yaml_int(self, node):  # noqa: D401 - PyYAML hook
            digits = sum(char.isalnum() for char in str(node.value))
            if digits > MAX_NUMBER_DIGITS:
                raise ValueError(f"{digits} digits (at most {MAX_NUMBER_DIGITS} allowed)")
            return super().construct_yaml_int(node)

        def construct_yaml_float(self, node):  # noqa: D401 - PyYAML hook
            value = super().construct_yaml_float(node)
            if not math.isfinite(value):
                raise ValueError("not a finite number")
            return value

    StrictLoader.add_constructor(_CORE + "int", StrictLoader.construct_yaml_int)
    StrictLoader.add_constructor(_CORE + "float", StrictLoader.construct_yaml_float)
    return StrictLoader


#: the loader every YAML file goes through: libyaml's C parser when installed, else pure Python
_StrictLoader = make_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _where(mark: Any) -> str:
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def _one_line(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        text = " ".join(part for part in (error.context, error.problem) if part)
        return " ".join(text.split()) + _where(error.problem_mark or error.context_mark)
    return " ".join(str(error).split())


def _check_tree(root: yaml.Node, source: str) -> None:
    """Refuse aliases, tags outside YAML's plain types, and trees too deep or too large."""
    seen: set[int] = set()
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise YamlFileError(source, f"aliases (*name) are not allowed in Inferboard files{_where(node.start_mark)}")
        seen.add(id(node))
        if node.tag not in ALLOWED_TAGS:
            tag = node.tag.replace(_CORE, "!!")[:60]
            raise YamlFileError(source, f"the tag {tag} is not allowed{_where(node.start_mark)}")
        if depth > MAX_YAML_DEPTH:
            raise YamlFileError(source, f"nested deeper than {MAX_YAML_DEPTH} levels{_where(node.start_mark)}")
        if len(seen) > MAX_YAML_NODES:
            raise YamlFileError(source, f"more than {MAX_YAML_NODES} values")
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, depth + 1) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)


def load_yaml_text(text: str, source: str) -> Any:
    """Parse one YAML document from ``text``; raise YamlFileError naming ``source`` on any problem."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate: no file can hold it
            raise YamlFileError(source, f"not valid text (character {error.start})") from None
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_tree(node, source)
        return loader.construct_document(node)
    except yaml.YAMLError as error:
        raise YamlFileError(source, f"not valid YAML: {_one_line(error)}") from None
    except RecursionError:
        raise YamlFileError(source, f"nested deeper than {MAX_YAML_DEPTH} levels") from None
    finally:
        loader.dispose()


def load_yaml_file(path: Path | str) -> Any:
    """Read and parse the YAML file at ``path`` (a regular file of at most MAX_YAML_BYTES)."""
    try:
        text = decode_text(read_bounded(path, MAX_YAML_BYTES), str(path))
    except FileRefused as refusal:
        raise YamlFileError(refusal.source, refusal.message) from None
    return load_yaml_text(text, str(path))
