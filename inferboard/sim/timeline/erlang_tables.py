"""Erlang B for any server count at any load, from per-server-count tables of the stable recursion
``B_k = a·B_{k-1}/(k + a·B_{k-1})`` on a fixed grid of loads per server (cached), interpolated in the
load; so the cost per tick of the timeline does not grow with the number of servers."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["log_erlang_b"]

_GRID = np.unique(np.concatenate([[0.0], np.geomspace(1e-8, 1 / 1024, 96, endpoint=False),
                                  np.linspace(1 / 1024, 2.0, 2048, endpoint=False), np.geomspace(2.0, 1e7, 320)]))
_TABLES: dict[int, np.ndarray] = {}


def _log_b_table(n: int) -> np.ndarray:
    """log B(n, x*n) on the load grid x, by the recursion started where it has converged."""
    table = _TABLES.get(n)
    if table is None:
        a = _GRID * n
        start = max(0, n - int(17 * math.sqrt(n) + 30))  # earlier terms are forgotten (contraction)
        b = np.ones_like(a)
        for k in range(start + 1, n + 1):
            ab = a * b
            b = ab / (k + ab)
        table = np.log(np.maximum(b, 1e-320))
        if len(_TABLES) > 4096:
            _TABLES.clear()
        _TABLES[n] = table
    return table


def log_erlang_b(n: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Elementwise log of Erlang B for ``n`` servers (integers >= 0) offered ``a`` Erlangs."""
    n = np.asarray(n, dtype=np.int64)
    a = np.asarray(a, dtype=float)
    out = np.zeros(np.broadcast(n, a).shape)
    if n.size and n.min() == n.max():  # one server count: one interpolation
        value = int(n.flat[0])
        if value > 0:
            out[...] = np.interp(a / value, _GRID, _log_b_table(value))
        return out
    n, a = np.broadcast_to(n, out.shape), np.broadcast_to(a, out.shape)
    for value in np.unique(n):
        if value <= 0:
            continue
        mask = n == value
        out[mask] = np.interp(a[mask] / value, _GRID, _log_b_table(int(value)))
    return out

