"""Typed errors shared by the core. Each message names the file, the item and the field."""

from __future__ import annotations

from dataclasses import dataclass

from inferboard.printable import shown


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: where it is and what is wrong."""

    item: str  # e.g. "node 'gpu-1'", "edge 'e3'", "requirements"
    field: str  # e.g. "params.replicas"; "" when the whole item is wrong
    message: str

    def text(self, source: str = "") -> str:
        """One line: file, item, field and message, with control and bidi characters escaped."""
        where = " ".join(part for part in (self.item, f"field '{self.field}'" if self.field else "") if part)
        prefix = f"{source}: " if source else ""
        return shown(f"{prefix}{where}: {self.message}" if where else f"{prefix}{self.message}")


class InferboardError(Exception):
    """Base class of every error the core raises on purpose."""

    #: the command line's exit status when this error ends a command
    exit_code = 1


class ValidationFailed(InferboardError):
    """An input failed validation; ``problems`` lists every fault found."""

    #: an input that cannot be used is exit status 2 in every command
    exit_code = 2

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = list(problems)
        lines = [p.text(source) for p in self.problems[:50]]
        if len(self.problems) > 50:
            lines.append(f"{shown(source)}: ... and {len(self.problems) - 50} more problems")
        super().__init__("\n".join(lines) if lines else f"{shown(source)}: invalid")
