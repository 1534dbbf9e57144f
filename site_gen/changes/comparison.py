"""A comparison of two adjacent segments of a series (records before and after a change
point, or two neighbouring records), by the strongest method the data supports:

- `welch-records`: both segments have >= 2 records: Welch's interval on the log of each
  record's value (its median or mean; between-run variance is in it);
- `welch-values`: two single records that carry their raw values: Welch's interval on the log
  of those values (only the spread within one run is in it);
- `rank-summary`: otherwise, the summaries' ranges (see `rank`): an exact p-value for disjoint
  ranges and no interval, nothing at all for overlapping ones;
- `no-range`: two single records without a count and range (an aggregate, a derived number):
  the ratio is shown, nothing is tested.

A comparison is a statistic and its inputs; the verdict comes from `claims.assess`, which sees
every comparison of a page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from site_gen.changes.observation import Observation
from site_gen.changes.rank import Separation, range_noise, separation
from site_gen.changes.rule import Rule
from site_gen.changes.welch import LogRatio, welch_log_ratio

WELCH_RECORDS = "welch-records"
WELCH_VALUES = "welch-values"
RANK_SUMMARY = "rank-summary"
NO_RANGE = "no-range"

STATISTICS = {
    WELCH_RECORDS: "ratio of geometric means of the records' values, after / before; Welch interval on log values",
    WELCH_VALUES: "ratio of geometric means of the two records' raw values, after / before; Welch interval on log values "
                  "(spread within one run only: between-run variance is not in it)",
    RANK_SUMMARY: "ratio of the records' values, after / before; ranges compared: an exact rank p-value when they do not "
                  "overlap, no interval",
    NO_RANGE: "ratio of the records' values, after / before; the records give no range of values: no test, no interval",
}


@dataclass(frozen=True)
class Segment:
    """Records start..stop-1 of a series (positions in axis order)."""

    start: int
    stop: int

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.stop:
            raise ValueError(f"a segment needs 0 <= start < stop, not {self.start}..{self.stop}")

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class Comparison:
    """`after` against `before`: the estimated `ratio` (after / before), the method's p-value
    for "no change" (None where the data support none), its `log_ratio` statistic for
    intervals (Welch methods), the `separation` of ranges (rank rule), the within-segment
    `noise` (relative)."""

    method: str
    before: Segment
    after: Segment
    ratio: float
    p_value: float | None
    noise: float | None
    log_ratio: LogRatio | None = None
    separation: Separation | None = None

    def __post_init__(self) -> None:
        if self.method not in STATISTICS:
            raise ValueError(f"unknown comparison method {self.method!r}")
        if self.before.stop != self.after.start:
            raise ValueError("the segments of a comparison must be adjacent")

    def delta_floor(self, rule: Rule) -> float:
        """The floor of delta: higher between two single records, whose spread is one run's."""
        return rule.single_run_delta_floor if self.before.size == 1 and self.after.size == 1 else rule.delta_floor

    def delta(self, rule: Rule) -> float:
        """The smallest relative change this comparison may call a change:
        max(its delta floor, noise_factor x noise)."""
        noise = self.noise if self.noise is not None else 0.0
        return max(self.delta_floor(rule), rule.noise_factor * noise)

    def minimum_detectable(self, rule: Rule) -> float | None:
        """The smallest relative change the rule would call *changed* here with probability
        `rule.power` (Welch methods): its interval must lie beyond ±delta, so this is delta
        plus what the interval's width asks. None for the rank rule, whose threshold is
        separation of the ranges."""
        if self.log_ratio is None:
            return None
        return self.log_ratio.minimum_detectable(rule.confidence, rule.power, beyond=self.delta(rule))


def compare(series: Sequence[Observation], before: Segment, after: Segment) -> Comparison:
    """Compare two adjacent segments of `series` by the strongest method their data support."""
    if before.size >= 2 and after.size >= 2:
        a = [o.value for o in series[before.start:before.stop]]
        b = [o.value for o in series[after.start:after.stop]]
        lr = welch_log_ratio(a, b)
        if lr is not None:
            return Comparison(WELCH_RECORDS, before, after, lr.ratio, lr.p_value, lr.noise, lr, None)
    if before.size == 1 and after.size == 1:
        x, y = series[before.start], series[after.start]
        if x.values is not None and y.values is not None:
            lr = welch_log_ratio(x.values, y.values)
            if lr is not None:
                return Comparison(WELCH_VALUES, before, after, lr.ratio, lr.p_value, lr.noise, lr, None)
        if not (x.has_range and y.has_range):
            return Comparison(NO_RANGE, before, after, y.value / x.value, None, None, None, None)
        sep = separation(x, y)
        noises = [n for n in (range_noise(x), range_noise(y)) if n is not None]
        noise = max(noises) if noises else None
        return Comparison(RANK_SUMMARY, before, after, y.value / x.value, sep.p_value, noise, None, sep)
    # segments of several records without any spread (or of unequal sizes): the summary rule on
    # the records' values, one per record
    x = Observation.from_values([o.value for o in series[before.start:before.stop]])
    y = Observation.from_values([o.value for o in series[after.start:after.stop]])
    sep = separation(x, y)
    return Comparison(RANK_SUMMARY, before, after, y.value / x.value, sep.p_value, None, None, sep)
