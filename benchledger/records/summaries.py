"""How a record summarises repeated values, in one place: the collector writes summaries with
these functions and the consistency checks recompute them from the raw values a record carries
(per-request figures, per-repetition timings)."""

from __future__ import annotations

import math
import statistics
from typing import Any, Sequence


def summarize(values: Sequence[float]) -> dict[str, Any] | None:
    """The seed's statistic block {maximum, mean, median, minimum, sample_count} (mean the
    arithmetic mean, median of an even count the mean of the middle two), or None (JSON null)
    when there are no values."""
    if not values:
        return None
    return {
        "maximum": max(values),
        "mean": math.fsum(values) / len(values),
        "median": statistics.median(values),
        "minimum": min(values),
        "sample_count": len(values),
    }


def percentile(values: Sequence[float], fraction: float) -> float:
    """Linearly interpolated order statistic (numpy's default 'linear' method)."""
    ordered = sorted(values)
    rank = fraction * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def timing_summary(values_ms: Sequence[float]) -> dict[str, Any]:
    """The graph-replay seed's timing block {repetitions, mean_ms, median_ms, p95_ms}."""
    values = list(values_ms)
    return {
        "repetitions": len(values),
        "mean_ms": statistics.fmean(values),
        "median_ms": statistics.median(values),
        "p95_ms": percentile(values, 0.95),
    }
