"""What Find on Canvas (Ctrl+F) finds: components by id, label, kind or a parameter's value, and
findings by rule id. Plain data from the model and the last report; the bar that shows them is
``desktop.shell.canvas_find``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from inferboard.model import Design, Node


@dataclass(frozen=True)
class Match:
    """One hit: a component (``node_ids`` holds it) or a finding (``finding`` set, ``node_ids`` the
    components it names). ``where`` says what matched, for the status line."""

    node_ids: tuple[str, ...]
    where: str
    finding: Any = None
    edge_ids: tuple[str, ...] = ()


def value_text(value: Any) -> str:
    """A parameter value as the inspector shows it: booleans as yes/no, whole floats without ".0"."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def node_match(design: Design, node: Node, query: str) -> str | None:
    """What of ``node`` matches the lower-case ``query`` ("name=value" asks for one parameter's
    exact value), or None."""
    if "=" in query:
        name, _, wanted = (part.strip() for part in query.partition("="))
        for key, value in node.params.items():
            if name in key.lower() and value_text(value).lower() == wanted:
                return f"{key} = {value_text(value)}"
        return None
    kind = design.catalog.kinds.get(node.kind)
    for what, text in (("id", node.id), ("label", node.label), ("kind", node.kind),
                       ("kind", kind.title if kind else "")):
        if text and query in text.lower():
            return f"{what} {text}"
    for key, value in node.params.items():
        if query in value_text(value).lower():
            return f"{key} = {value_text(value)}"
    return None


def find_matches(design: Design, query: str, findings: Iterable[Any] = ()) -> list[Match]:
    """Every component matching ``query`` (case-insensitive, in design order), then every finding
    whose rule id contains it. An empty query matches nothing."""
    query = query.strip().lower()
    if not query:
        return []
    out = []
    for node in design.nodes.values():
        where = node_match(design, node, query)
        if where is not None:
            out.append(Match((node.id,), where))
    for finding in findings:
        if query in finding.rule_id.lower():
            nodes = tuple(n for n in finding.node_ids if n in design.nodes)
            out.append(Match(nodes, f"finding {finding.rule_id}", finding, tuple(finding.edge_ids)))
    return out
