"""Statistics over samples inside a union of declared intervals, exactly as the seed reports
them: {maximum, mean, median, minimum, sample_count} (mean is the arithmetic sample mean, the
median of an even count is the mean of the middle two), counter deltas that exclude the
unsampled edges of each interval, and CPU percentages from snapshots bracketing each window."""

from __future__ import annotations

import bisect
import math
from typing import Any, Iterable, Protocol, Sequence, TypeVar

from benchledger.records.summaries import summarize  # noqa: F401  (the collector's summaries are the records core's)
from collector.intervals import Interval, union
from collector.phases import Window

CPU_MEANING = "Weighted CPU counter rate across round-bracketing snapshots, not exact token time."
COUNTERS = ("major_faults", "read_syscall_bytes", "storage_read_bytes", "storage_write_bytes")


class Timed(Protocol):
    t: float


T = TypeVar("T", bound=Timed)


def samples_in(samples: Sequence[T], intervals: Iterable[Interval]) -> list[T]:
    """Samples (sorted by t) whose time lies in the union of the closed intervals; each sample
    at most once even where intervals overlap."""
    times = [s.t for s in samples]
    out: list[T] = []
    for iv in union(intervals):
        out.extend(samples[bisect.bisect_left(times, iv.start) : bisect.bisect_right(times, iv.end)])
    return out


def counter_deltas(host_samples: Sequence[Any], intervals: Sequence[Interval]) -> dict[str, Any]:
    """Counter deltas summed over the declared intervals. Each interval contributes
    (last - first) of the process samples inside it, so the edges before its first and after its
    last sample are excluded; an interval with fewer than two samples of one process is not
    observed. `deltas` is null when no interval was observed."""
    times = [s.t for s in host_samples]
    totals = dict.fromkeys(COUNTERS, 0)
    observed = 0
    seconds = 0.0
    for iv in intervals:
        inside = [
            s
            for s in host_samples[bisect.bisect_left(times, iv.start) : bisect.bisect_right(times, iv.end)]
            if s.process is not None and all(getattr(s.process, c) is not None for c in COUNTERS)
        ]
        if len(inside) < 2:
            continue
        first, last = inside[0], inside[-1]
        if first.process.pid != last.process.pid:  # a restarted process resets its counters
            continue
        observed += 1
        seconds += last.t - first.t
        for c in COUNTERS:
            totals[c] += getattr(last.process, c) - getattr(first.process, c)
    return {
        "deltas": totals if observed else None,
        "observed_endpoint_seconds": seconds,
        "observed_intervals": observed,
        "requested_intervals": len(intervals),
    }


def cpu_snapshot_intervals(windows: Sequence[Window], logical_cpus: int) -> dict[str, Any]:
    """Process CPU seconds over the summed snapshot-to-snapshot time of the windows that have both
    bracketing snapshots: a weighted rate, as a percent of one logical CPU and of the host."""
    usable = [w for w in windows if w.cpu_before is not None and w.cpu_after is not None]
    interval_s = math.fsum(w.cpu_after.t - w.cpu_before.t for w in usable)
    cpu_s = math.fsum(w.cpu_after.process_cpu_seconds - w.cpu_before.process_cpu_seconds for w in usable)
    out: dict[str, Any] = {
        "interval_count": len(usable),
        "interval_seconds": interval_s,
        "meaning": CPU_MEANING,
        "process_cpu_seconds": cpu_s,
    }
    if interval_s > 0:  # the rates are left out, not zeroed, when nothing was bracketed
        out["one_logical_cpu_percent"] = cpu_s / interval_s * 100.0
        out["host_capacity_percent"] = out["one_logical_cpu_percent"] / logical_cpus
    return dict(sorted(out.items()))
