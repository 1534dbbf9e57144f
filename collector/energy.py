"""GPU board energy: the trapezoid integral of sampled board watts over a union of intervals,
with the watts at each interval boundary linearly interpolated between the samples that bracket
it. A boundary without a sample on one side makes the figure unavailable
(`unbracketed_boundary`); there is no extrapolation."""

from __future__ import annotations

import bisect
import math
from typing import Any, Sequence

from collector.intervals import Interval, union

SCOPE = "GPU board only; not whole-server AC energy"
INTERPOLATION = "linear_at_bracketed_boundaries"


def unavailable(reason: str) -> dict[str, Any]:
    """The seed's shape for an energy figure that cannot be given."""
    return {"available": False, "joules": None, "reason": reason}


def _at(times: Sequence[float], watts: Sequence[float], t: float) -> float | None:
    """Watts at t, interpolated between the samples bracketing t (None if t is not bracketed)."""
    i = bisect.bisect_left(times, t)
    if i < len(times) and times[i] == t:
        return watts[i]
    if i == 0 or i == len(times):
        return None
    t0, t1 = times[i - 1], times[i]
    return watts[i - 1] + (watts[i] - watts[i - 1]) * (t - t0) / (t1 - t0)


def counter_energy_joules(times: Sequence[float], counter_mj: Sequence[float], intervals: Sequence[Interval]) -> float | None:
    """Energy from the GPU's cumulative energy counter (mJ): the counter's rise over each interval
    of the union, linearly interpolated between the samples that bracket each boundary (None
    when a boundary is not bracketed or there are no intervals)."""
    spans = union(intervals)
    if not spans:
        return None
    total = 0.0
    for iv in spans:
        a, b = _at(times, counter_mj, iv.start), _at(times, counter_mj, iv.end)
        if a is None or b is None:
            return None
        total += (b - a) / 1000.0
    return total


def trapezoid_energy(times: Sequence[float], watts: Sequence[float], intervals: Sequence[Interval]) -> dict[str, Any]:
    """Energy over the union of `intervals` from (time, watts) samples sorted by time."""
    spans = union(intervals)
    if not spans:
        return unavailable("empty_interval_union")
    joules = 0.0
    pieces = 0
    for iv in spans:
        w_start, w_end = _at(times, watts, iv.start), _at(times, watts, iv.end)
        if w_start is None or w_end is None:
            return unavailable("unbracketed_boundary")
        lo, hi = bisect.bisect_right(times, iv.start), bisect.bisect_left(times, iv.end)
        pts = [(iv.start, w_start), *zip(times[lo:hi], watts[lo:hi]), (iv.end, w_end)]
        joules += math.fsum((b[0] - a[0]) * (a[1] + b[1]) / 2.0 for a, b in zip(pts, pts[1:]))
        pieces += len(pts) - 1
    seconds = math.fsum(iv.seconds for iv in spans)
    return {
        "available": True,
        "interpolation": INTERPOLATION,
        "joules": joules,
        "reason": None,
        "response_union_seconds": seconds,
        "scope": SCOPE,
        "time_weighted_mean_watts": joules / seconds if seconds > 0 else None,
        "trapezoid_pieces": pieces,
        "watt_hours": joules / 3600.0,
    }
