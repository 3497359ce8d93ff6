"""A scenario written the way the authoring form writes one: a draft around a shipped example design."""

from __future__ import annotations

from inferboard.cli import templates
from inferboard.practice.authoring import new_draft
from inferboard.store import read_design


def example_design():
    return read_design(templates()["cpu-small"])[0]


def complete_draft(design=None) -> dict:
    design = design if design is not None else example_design()
    draft = new_draft(design, "Card checks in Europe")
    draft.update({
        "summary": "Score card payments for a European bank inside 50 ms, on CPUs.",
        "tags": ["cpu", "latency"],
        "prompt": "A European bank wants every card payment scored before it is approved. Design the service.",
        "facts": [
            {"id": "volume", "category": "traffic", "text": "About 500 payments a second, 1,500 at the peak.",
             "sets": ["mean_rps", "peak_rps"]},
            {"id": "latency", "category": "latency", "text": "The network allows 50 ms at p99 for the call.",
             "sets": ["slo_p99_ms"]},
        ],
        "questions": [
            {"id": "volume", "text": "How many payments per second?", "category": "traffic",
             "reveals": ["volume"], "key": True, "points": 2.0},
            {"id": "latency", "text": "What latency budget do we have?", "category": "latency",
             "reveals": ["latency"], "key": True, "points": 1.0},
        ],
        "rubrics": [{"rubric": "requirements", "weight": 1.5}, {"rubric": "latency", "weight": 1.0},
                    {"rubric": "capacity_cost", "weight": 1.0}],
        "follow_ups": [
            {"id": "region-down", "title": "eu-west goes down", "phase": "tradeoffs",
             "prompt": "eu-west is unreachable at the evening peak. What happens to payments?",
             "faults": ["region_outage:kind=region,location=eu-west"], "requirement_changes": {},
             "look_for": "A second region sized for the whole peak and global routing with health checks."},
        ],
    })
    for phase, goal in zip(draft["phases"], ("Learn the volume and the latency budget.",
                                             "Draw the path from the gateway to the scorers.",
                                             "Size the CPU pool for the peak.",
                                             "Discuss a region loss and the fallback.")):
        phase["goal"] = goal
    draft["reference"]["notes"] = "One region with a gateway, features and a CPU pool that scales on load."
    return draft
