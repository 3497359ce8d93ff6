"""The basis of an interview's numbers, so each window can say it: the candidate's figures run at
the traffic the candidate has stated (a placeholder until they state one), the interviewer also
sees the design at the scenario's true traffic; both under the conditions the follow-ups played so
far have set (new requirements, faults)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from inferboard import humanize
from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.practice.scenario import FollowUp, Scenario
from inferboard.practice.whatif import Readout, load_rate, plan_faults, readout, with_requirements
from inferboard.sim.design.compile import ASSUMED_RPS


def stated_traffic(requirements: Requirements) -> str | None:
    """The traffic as stated ("900 req/s mean, 2,400 req/s peak"), or None when none is."""
    parts = [f"{humanize.rate(value)} {name}" for name, value in (("mean", requirements.mean_rps),
                                                                   ("peak", requirements.peak_rps))
             if value is not None]
    return ", ".join(parts) or None


def candidate_basis(requirements: Requirements) -> str:
    """One line for the candidate's window: what their figures run at."""
    stated = stated_traffic(requirements)
    if stated is None:
        return (f"No traffic stated yet: the figures use a placeholder {humanize.rate(ASSUMED_RPS)} until you "
                "state a mean and peak rate in Requirements.")
    return f"Your figures run at the traffic you stated: {stated} (Requirements)."


@dataclass
class Basis:
    """The candidate's design read at their stated traffic (None: none stated) and at the true one."""

    stated: str | None
    at_stated: Readout | None
    true_traffic: str
    at_true: Readout


def conditions(design: Design, follow_ups: Sequence[FollowUp]) -> list:
    """The faults the follow-ups played so far set on ``design``."""
    return [fault for follow_up in follow_ups for fault in plan_faults(design, follow_up)[0]]


def interview_basis(scenario: Scenario, design: Design, follow_ups: Sequence[FollowUp]) -> Basis:
    """Both readings of ``design`` under the played ``follow_ups`` (two steady-state evaluations)."""
    faults = conditions(design, follow_ups)
    stated = stated_traffic(design.requirements)
    at_stated = readout(design, load_rate(design.requirements), faults) if stated is not None else None
    truth = scenario.requirements_after(*follow_ups)
    at_true = readout(with_requirements(design, truth), load_rate(truth), faults)
    return Basis(stated, at_stated, stated_traffic(truth) or humanize.rate(load_rate(truth)), at_true)
