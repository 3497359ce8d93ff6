"""Numbers for people: the one place that decides how a latency, a rate, a share or a price reads.

The window's tiles, status line, plots and explanations and the command line's plain-words
explanations all format through these functions, so one figure reads the same everywhere:
``60 s`` not ``60023 ms``, ``$1.2k/h``, ``3.4M req/day``, ``46.7%``."""

from __future__ import annotations

import math
import re

DASH = "—"


def _finite(value: float | None) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def compact(value: float) -> str:
    """``950``, ``1.2k``, ``34k``, ``3.4M``, ``1.2B``: a short form with one decimal at most."""
    sign, value = ("-" if value < 0 else ""), abs(value)
    for limit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= limit * 0.99995:
            scaled = value / limit
            text = f"{scaled:.1f}" if scaled < 99.95 else f"{scaled:,.0f}"
            return sign + text.removesuffix(".0") + suffix
    if value >= 99.95 or value == int(value):
        return f"{sign}{value:.0f}"
    return f"{sign}{value:.1f}" if value >= 1 else f"{sign}{value:.2g}"


def duration_ms(ms: float | None) -> str:
    """A latency or wait given in milliseconds: ``0.42 ms``, ``17 ms``, ``1.2 s``, ``60 s``, ``2.5 min``, ``3.1 h``."""
    ms = _finite(ms)
    if ms is None:
        return DASH
    if ms < 0:
        return "-" + duration_ms(-ms)
    if ms == 0:
        return "0 ms"
    if ms < 1:
        return f"{ms:.2f} ms"
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 999.5:
        return f"{ms:.0f} ms"
    seconds = ms / 1000.0
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    if seconds < 99.5:
        return f"{seconds:.0f} s"
    minutes = seconds / 60.0
    if minutes < 59.5:
        return f"{minutes:.1f} min" if minutes < 9.95 else f"{minutes:.0f} min"
    hours = minutes / 60.0
    return f"{hours:.1f} h" if hours < 99.5 else f"{hours:,.0f} h"


def rate(rps: float | None, unit: str = "req/s") -> str:
    """A request rate: ``0.5 req/s``, ``300 req/s``, ``2,500 req/s``, ``12k req/s``."""
    rps = _finite(rps)
    if rps is None:
        return DASH
    if abs(rps) < 10_000:
        text = f"{rps:,.0f}" if abs(rps) >= 10 else (f"{rps:.1f}".rstrip("0").rstrip(".") if rps else "0")
    else:
        text = compact(rps)
    return f"{text} {unit}" if unit else text


def per_day(rps: float | None) -> str:
    """A rate as requests per day: ``3.4M req/day``."""
    rps = _finite(rps)
    return DASH if rps is None else f"{compact(rps * 86_400)} req/day"


def share(fraction: float | None) -> str:
    """A fraction as a percentage: ``0%``, ``<0.01%``, ``0.05%``, ``4.2%``, ``46.7%``, ``100%``."""
    fraction = _finite(fraction)
    if fraction is None:
        return DASH
    pct = fraction * 100.0
    if pct == 0:
        return "0%"
    if abs(pct) < 0.01:
        return "<0.01%"
    if abs(pct) < 1:
        return f"{pct:.2f}%"
    if abs(pct) < 99.95 and pct != int(pct):
        return f"{pct:.1f}%"
    return f"{pct:.0f}%"


def money(dollars: float | None) -> str:
    """An amount of money: ``$0.0042``, ``$0.41``, ``$27.68``, ``$1.2k``, ``$3.4M``."""
    dollars = _finite(dollars)
    if dollars is None:
        return DASH
    sign = "-" if dollars < 0 else ""
    dollars = abs(dollars)
    if dollars == 0:
        return "$0"
    if dollars < 0.01:
        return f"{sign}${dollars:.2g}" if dollars < 0.001 else f"{sign}${dollars:.4f}"
    if dollars < 0.1:
        return f"{sign}${dollars:.3f}"
    if dollars < 1000:
        return f"{sign}${dollars:,.2f}"
    return f"{sign}${compact(dollars)}"


def money_per_hour(dollars: float | None) -> str:
    """Dollars per hour in words ("$4.20/h"), or a dash when unknown."""
    text = money(dollars)
    return text if text == DASH else f"{text}/h"


def count(n: float | None) -> str:
    """A number of things: ``950``, ``50,000``, ``1M``."""
    n = _finite(n)
    if n is None:
        return DASH
    return f"{n:,.0f}" if abs(n) < 1_000_000 else compact(n)


def clock(seconds: float | None) -> str:
    """A moment of the simulated day: ``14:20`` (``1d 02:00`` past the first day)."""
    seconds = _finite(seconds)
    if seconds is None:
        return DASH
    minutes = int(round(seconds / 60.0))
    days, minutes = divmod(minutes, 24 * 60)
    text = f"{minutes // 60:02d}:{minutes % 60:02d}"
    return f"{days}d {text}" if days else text


#: figure key -> formatter; the keys are the simulator's result fields.
FORMATS = {
    "p50_ms": duration_ms, "p95_ms": duration_ms, "p99_ms": duration_ms, "mean_ms": duration_ms,
    "throughput_rps": rate, "offered_rps": rate, "shed_rate": share, "error_rate": share,
    "timeout_rate": share, "cost_per_hour": money_per_hour, "cost_per_1k": money,
}


def figure(key: str, value: float | None) -> str:
    """Any headline figure by its result key (``p99_ms``, ``shed_rate``, ``cost_per_hour``...)."""
    return FORMATS.get(key, lambda v: DASH if _finite(v) is None else compact(float(v)))(value)


_MS = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?) ?ms\b")
_PERCENT = re.compile(r"(?<![\w.])(\d+\.\d{2,})%")


def in_text(text: str) -> str:
    """Numbers inside a sentence written by the simulator, made readable:
    "p99 30169.9 ms exceeds the 50 ms SLO" -> "p99 30 s exceeds the 50 ms SLO", "46.67%" -> "46.7%"."""
    text = _MS.sub(lambda m: duration_ms(float(m.group(1).replace(",", ""))), text)
    return _PERCENT.sub(lambda m: share(float(m.group(1)) / 100.0), text)
