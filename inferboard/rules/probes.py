"""``rubrics/probes.yaml``: the mistakes an experienced interviewer probes in an ML-serving design,
each with the rules that catch it, and those no rule catches yet. docs/rules.md lists both."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError

from inferboard.rules.loader import RuleFileError, RuleSet
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import StrictModel, validation_problems

PROBES_FILE = "probes.yaml"


class Probe(StrictModel):
    """One mistake and the rules that flag it."""

    mistake: str = Field(min_length=10, max_length=200)
    rules: list[str] = Field(min_length=1)


class ProbeList(StrictModel):
    """The whole file: probes with their rules, and mistakes not covered yet."""

    probes: list[Probe] = Field(min_length=1)
    not_covered: list[str] = []


def load_probes(rules: RuleSet, folder: Path | None = None) -> ProbeList:
    """The probe list beside the rules, every rule id checked; raises RuleFileError naming the item."""
    path = (folder or rules.folder) / PROBES_FILE
    try:
        probes = ProbeList.model_validate(load_yaml_file(path))
    except YamlFileError as error:
        raise RuleFileError(path, "-", "", str(error).split(": ", 1)[-1]) from None
    except ValidationError as error:
        loc, msg = validation_problems(error)[0]
        raise RuleFileError(path, "-", loc, msg) from None
    for n, probe in enumerate(probes.probes):
        for k, rule_id in enumerate(probe.rules):
            if rule_id not in rules:
                raise RuleFileError(path, "-", f"probes.{n}.rules.{k}", f"unknown rule '{rule_id}'")
    return probes
