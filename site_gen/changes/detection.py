"""Where a series changes: E-Divisive means over the log of the records' values for series of at least
`rule.edivisive_min_records` records, neighbouring pairs for shorter ones; then one
`Comparison` of the segments on either side of each change (or of each pair)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from site_gen.changes.comparison import Comparison, Segment, compare
from site_gen.changes.edivisive import ChangePoint, change_points
from site_gen.changes.observation import Observation
from site_gen.changes.rule import Rule

E_DIVISIVE = "e-divisive"
NEIGHBOUR_PAIRS = "neighbour-pairs"
SINGLE = "single-record"

ALGORITHMS = {
    E_DIVISIVE: "E-Divisive means (Otava/Hunter): windowed split at the first-pass p-value, t-test merge at the maximum "
                "p-value, minimum segment length; on the log of each record's value",
    NEIGHBOUR_PAIRS: "each record against the one before it, repeats of one value taken together (too few records for "
                     "change-point search)",
    SINGLE: "one record, or repeats of one value: nothing to compare along the field",
}


@dataclass(frozen=True)
class Detection:
    """The outcome of change detection on one series of one metric."""

    algorithm: str
    size: int  # records in the series
    change_points: tuple[ChangePoint, ...]  # E-Divisive's points, with its own t-test p-values
    comparisons: tuple[Comparison, ...]
    # When E-Divisive found nothing: the comparison of the series' halves (cut where the value
    # changes nearest the middle), for its minimum detectable effect (how large a step could
    # have been found at this spread and length).
    halves: Comparison | None = None

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The series cut at its change points (E-Divisive), or one segment per record (pairs)."""
        if self.algorithm == E_DIVISIVE:
            bounds = [0, *(cp.index for cp in self.change_points), self.size]
            return tuple(Segment(a, b) for a, b in zip(bounds, bounds[1:]))
        return tuple(Segment(i, i + 1) for i in range(self.size))


def detect(series: Sequence[Observation], rule: Rule, values: Sequence[str] | None = None) -> Detection:
    """Change detection on `series` (one observation per record, in axis order). With `values`
    (each record's value of the series' field), a change is only ever found where the value
    changes: two records of one release are repeats, and a gap between them is run-to-run
    variation, not the release's doing (an audit saw "b11146 -> b11146 #2: -9.4%, changed")."""
    n = len(series)
    starts = [i for i in range(1, n) if values is None or values[i] != values[i - 1]]  # where a new value begins
    if n < 2 or not starts:
        return Detection(SINGLE, n, (), ())
    if n < rule.edivisive_min_records:
        runs = [0, *starts, n]
        pairs = tuple(compare(series, Segment(a, b), Segment(b, c)) for a, b, c in zip(runs, runs[1:], runs[2:]))
        return Detection(NEIGHBOUR_PAIRS, n, (), pairs)
    points = change_points([math.log(o.value) for o in series], window=rule.window_records, max_pvalue=rule.max_pvalue,
                           first_pass_pvalue=rule.first_pass_pvalue, min_segment=rule.min_segment_records,
                           allowed=None if values is None else starts)
    bounds = [0, *(cp.index for cp in points), n]
    comparisons = tuple(compare(series, Segment(bounds[i - 1], bounds[i]), Segment(bounds[i], bounds[i + 1]))
                        for i in range(1, len(bounds) - 1))
    middle = min(starts, key=lambda s: (abs(2 * s - n), s))  # the value change nearest the middle: repeats stay together
    halves = None if points else compare(series, Segment(0, middle), Segment(middle, n))
    return Detection(E_DIVISIVE, n, tuple(points), comparisons, halves)
