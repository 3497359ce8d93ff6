"""Timeline actions a drill needs beyond :mod:`inferboard.sim.timeline.actions`: a parameter change (a
config push, or reverting one) and ending faults early (restarting leaking replicas, warming a
flushed cache, moving off a shared GPU). Both follow the actions' contract (``apply_to(state)``,
``describe()``, ``target``) so snapshots and replays treat them like any other action."""

from __future__ import annotations

from dataclasses import dataclass

from inferboard.sim.design.faults import TimedFault
from inferboard.sim.timeline.timeline_state import TimelineState
from inferboard.store.design_files import design_to_bytes, parse_design


@dataclass(frozen=True)
class SetParams:
    """Set parameters of one node from now on (a new design revision)."""

    target: str
    params: tuple[tuple[str, object], ...]

    def apply_to(self, state: TimelineState) -> None:
        """Apply the parameter change to ``state`` from its current tick (a new design revision)."""
        if self.target not in state.design.nodes:
            raise ValueError(f"'{self.target}' is not a node of this design")
        copy = parse_design(design_to_bytes(state.design), "<drill>", state.design.catalog)
        copy.set_params(self.target, **dict(self.params))
        state.reconfigure(copy)

    def describe(self) -> str:
        """The change in words, for the timeline's log."""
        return f"{self.target}: " + ", ".join(f"{k} = {v}" for k, v in self.params)


@dataclass(frozen=True)
class ClearFaults:
    """End the timed faults of ``kinds`` on ``target`` now (later ones never start)."""

    target: str
    kinds: tuple[str, ...]

    def apply_to(self, state: TimelineState) -> None:
        """End the target's faults of the given kinds now."""
        now = state.now_s
        kept = []
        for f in state.timed:
            if f.kind in self.kinds and f.target == self.target and f.start_s + f.duration_s > now:
                if f.start_s < now:
                    kept.append(TimedFault(f.kind, f.target, f.magnitude, f.start_s, now - f.start_s))
                continue
            kept.append(f)
        state.timed[:] = kept

    def describe(self) -> str:
        """The operation in words, for the timeline's log."""
        return f"{self.target}: {', '.join(k.replace('_', ' ') for k in self.kinds)} cleared"
