"""LLM (generation) pools tick by tick, from the steady state's FLOPs/HBM replica model (:mod:`llm`).

The queueing station of a generation pool has one server per KV-cache slot, so its busy fraction
is slot occupancy, which understates the load (each request's time grows with the load). As in
the steady state, a tick's utilisation is the pool's served rate over its capacity, the ready
replicas times one replica's capacity from :func:`llm.replica_state`; time to first token is the
wait for a slot (the station's wait, backlog included) plus the prefill engine's M/D/1 wait and the
prefill at the tick's rate per ready replica; time per output token
likewise. The pool's backlog builds against the same capacity (``timeline_stations``: the fluid
queue is given it instead of the slots over their hold time). The replica model is solved once per pool plan on a grid of rates per replica (cached
per process) and read by interpolation.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from inferboard.sim.llm import llm

__all__ = ["llm_tick_figures"]

#: rates per replica, as fractions of one replica's capacity, the replica model is solved at
RATE_GRID = np.concatenate([np.linspace(0.0, 0.9, 46), np.linspace(0.91, 1.0, 10)])


@lru_cache(maxsize=256)
def _replica_table(engine: llm.Engine, prompt: int, out: int, slots: int, capacity: float):
    rates = RATE_GRID * capacity
    states = [llm.replica_state(engine, float(r), prompt, out, slots) for r in rates]
    ttft = np.array([s.ttft_s for s in states])
    tpot = np.array([s.tpot_s for s in states])
    return rates, ttft, tpot


def llm_tick_figures(plan, lam: np.ndarray, ready: np.ndarray) -> dict[str, np.ndarray] | None:
    """Per tick the pool's utilisation, the part of the time to first token after the slot wait,
    and the time per output token (seconds); None for a plan without the replica model."""
    replica = getattr(plan, "replica", None)
    if replica is None or plan.engine is None or replica.capacity_rps <= 0:
        return None
    cap = float(replica.capacity_rps)
    rates, ttft, tpot = _replica_table(plan.engine, replica.prompt_tokens or 1, replica.output_tokens or 1,
                                       int(replica.slots), cap)
    ready = np.asarray(ready, dtype=float)
    per_replica = np.where(ready > 0, np.asarray(lam, dtype=float) / np.maximum(ready, 1e-12), 0.0)
    at = np.minimum(per_replica, cap)
    return {"utilisation": np.where(ready > 0, np.minimum(per_replica / cap, 1.0), 0.0),
            "ttft_s": np.interp(at, rates, ttft), "tpot_s": np.interp(at, rates, tpot)}
