"""Time intervals on the monotonic clock and their unions (all statistics are taken over a union
of declared intervals, never over overlapping time twice)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True, order=True)
class Interval:
    """A closed interval [start, end] of monotonic seconds."""

    start: float
    end: float

    def __post_init__(self) -> None:
        if not self.end >= self.start:
            raise ValueError(f"interval ends before it starts: [{self.start}, {self.end}]")

    @property
    def seconds(self) -> float:
        return self.end - self.start


def union(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Sorted, disjoint intervals covering exactly the same time (touching intervals merge)."""
    merged: list[Interval] = []
    for iv in sorted(intervals):
        if merged and iv.start <= merged[-1].end:
            if iv.end > merged[-1].end:
                merged[-1] = Interval(merged[-1].start, iv.end)
        else:
            merged.append(iv)
    return tuple(merged)


def union_seconds(intervals: Iterable[Interval]) -> float:
    """Total length of the union of the intervals, in seconds."""
    return sum(iv.seconds for iv in union(intervals))


def outer_span_seconds(intervals: Iterable[Interval]) -> float:
    """From the earliest start to the latest end (0.0 for no intervals)."""
    ivs = list(intervals)
    return max(iv.end for iv in ivs) - min(iv.start for iv in ivs) if ivs else 0.0
