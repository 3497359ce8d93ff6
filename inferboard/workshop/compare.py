"""Two graded designs side by side: how their structure differs (component kinds, components only
one has, parameters changed on a component both have, wires) and their figures next to each other."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from inferboard.safe_read import FileRefused, parse_json
from inferboard.workshop.grading import SubmissionResult

#: (label, figures key, unit) of the simulated figures compared.
FIGURES = (("p99 at the peak", "p99_ms", "ms"), ("p99 SLO", "slo_p99_ms", "ms"), ("Cost per 1k", "cost_per_1k", "$"),
           ("Cost per hour", "cost_per_hour", "$"), ("Lost at the peak", "lost_pct", "%"),
           ("Served after a region loss", "region_loss_served_pct", "%"),
           ("p99 after a region loss", "region_loss_p99_ms", "ms"))


@dataclass
class DesignDifferences:
    """How two designs differ: kind counts, nodes only in one, parameters and wires."""

    #: kind -> (count in A, count in B), kinds whose counts differ
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)
    only_a: list[tuple[str, str]] = field(default_factory=list)  # (node id, kind)
    only_b: list[tuple[str, str]] = field(default_factory=list)
    #: (node id, parameter, value in A, value in B) for components with the same id and kind
    params: list[tuple[str, str, Any, Any]] = field(default_factory=list)
    wires_only_a: list[str] = field(default_factory=list)  # "source -> target"
    wires_only_b: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        """Whether the two designs have the same structure and parameters."""
        return not (self.kinds or self.only_a or self.only_b or self.params or self.wires_only_a
                    or self.wires_only_b)


def _nodes(design: str) -> tuple[dict[str, dict[str, Any]], set[str]]:
    try:
        data = parse_json((design or "{}").encode("utf-8", "replace"), "design")
    except FileRefused:
        data = {}
    data = data if isinstance(data, dict) else {}
    nodes = {str(n.get("id")): n for n in data.get("nodes", []) if isinstance(n, dict)}
    wires = {f"{e.get('source')} -> {e.get('target')}" for e in data.get("edges", []) if isinstance(e, dict)}
    return nodes, wires


def design_differences(design_a: str, design_b: str) -> DesignDifferences:
    """The structural differences between two design files' texts."""
    nodes_a, wires_a = _nodes(design_a)
    nodes_b, wires_b = _nodes(design_b)
    count_a = Counter(str(n.get("kind")) for n in nodes_a.values())
    count_b = Counter(str(n.get("kind")) for n in nodes_b.values())
    out = DesignDifferences()
    out.kinds = {k: (count_a[k], count_b[k]) for k in sorted(set(count_a) | set(count_b)) if count_a[k] != count_b[k]}
    for node_id in sorted(set(nodes_a) | set(nodes_b)):
        a, b = nodes_a.get(node_id), nodes_b.get(node_id)
        if a is not None and (b is None or b.get("kind") != a.get("kind")):
            out.only_a.append((node_id, str(a.get("kind"))))
        if b is not None and (a is None or a.get("kind") != b.get("kind")):
            out.only_b.append((node_id, str(b.get("kind"))))
        if a is not None and b is not None and a.get("kind") == b.get("kind"):
            pa, pb = a.get("params") or {}, b.get("params") or {}
            for name in sorted(set(pa) | set(pb)):
                if pa.get(name) != pb.get(name):
                    out.params.append((node_id, name, pa.get(name), pb.get(name)))
            if a.get("region") != b.get("region"):
                out.params.append((node_id, "region", a.get("region"), b.get("region")))
    out.wires_only_a = sorted(wires_a - wires_b)
    out.wires_only_b = sorted(wires_b - wires_a)
    return out


def figure_rows(a: SubmissionResult, b: SubmissionResult,
                titles: dict[str, str] | None = None) -> list[tuple[str, Any, Any]]:
    """(label, value of A, value of B): overall, each rubric (``titles``: rubric -> title), then
    the simulated figures."""
    titles = titles or {}
    rows: list[tuple[str, Any, Any]] = [("Overall", a.overall, b.overall), ("Grade", a.grade, b.grade)]
    for rubric in dict.fromkeys([*a.rubrics, *b.rubrics]):
        rows.append((titles.get(rubric) or rubric.replace("_", " ").capitalize(), a.rubrics.get(rubric),
                     b.rubrics.get(rubric)))
    for label, key, _ in FIGURES:
        rows.append((label, a.figures.get(key), b.figures.get(key)))
    rows.append(("Follow-ups held", f"{a.follow_ups_held}/{len(a.follow_ups)}", f"{b.follow_ups_held}/{len(b.follow_ups)}"))
    rows.append(("Components", a.nodes, b.nodes))
    return rows
