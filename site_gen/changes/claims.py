"""Claims: every comparison of one page with its verdict, the false-discovery rate controlled
across the page.

The rule, as the methodology page states it: each claim compares two adjacent segments (the
ratio after / before, with a Welch interval on log values where the data support one);
Benjamini-Hochberg at q selects the significant claims of a page (overlapping ranges count as
tests with p = 1), whose intervals are widened to the false-coverage level 1 - R q / m (R
selected of m tests). A claim is *changed* when it is
selected and its interval lies beyond ±delta, *equivalent* when its interval lies within ±delta,
otherwise *inconclusive*; delta = max(3%, 2 x the noise within the segments). A summary-only
comparison (no interval) is *changed* only when its ranges do not overlap, it is selected and
the gap between the ranges exceeds delta; it is never *equivalent*."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from site_gen.changes.comparison import NO_RANGE, RANK_SUMMARY, Comparison
from site_gen.changes.detection import Detection
from benchledger.cases.evidence import bh_adjusted
from site_gen.changes.rule import Rule

CHANGED = "changed"
EQUIVALENT = "equivalent"
INCONCLUSIVE = "inconclusive"
VERDICTS = (CHANGED, EQUIVALENT, INCONCLUSIVE)


@dataclass(frozen=True)
class Claim:
    """One comparison with its verdict. `interval` (ratio after / before) is at `confidence`:
    the false-coverage level for a selected claim, the rule's confidence otherwise; None where
    the data support no interval (the rank rule)."""

    comparison: Comparison
    verdict: str
    delta: float
    adjusted_p: float | None  # Benjamini-Hochberg over the page; None where no p-value exists
    tests_on_page: int  # m
    selected_on_page: int  # R
    confidence: float | None
    interval: tuple[float, float] | None
    minimum_detectable: float | None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")

    @property
    def ratio(self) -> float:
        return self.comparison.ratio

    @property
    def direction(self) -> int:
        """+1 when the metric went up, -1 when it went down (by the estimate), 0 when equal."""
        return (self.ratio > 1) - (self.ratio < 1)


def _verdict(comparison: Comparison, selected: bool, interval: tuple[float, float] | None,
             interval_plain: tuple[float, float] | None, delta: float) -> str:
    if comparison.method == NO_RANGE:
        return INCONCLUSIVE
    if comparison.method == RANK_SUMMARY:
        sep = comparison.separation
        if selected and sep is not None and sep.disjoint and sep.gap is not None and (sep.gap > 1 + delta or sep.gap < 1 - delta):
            return CHANGED
        return INCONCLUSIVE
    assert interval is not None and interval_plain is not None
    low, high = interval
    if selected and (low > 1 + delta or high < 1 - delta):
        return CHANGED
    low, high = interval_plain
    if 1 - delta <= low and high <= 1 + delta:
        return EQUIVALENT
    return INCONCLUSIVE


def assess(detections: Sequence[Detection], rule: Rule) -> list[list[Claim]]:
    """The claims of one page: for each detection, one claim per comparison (same order)."""
    flat = [c for d in detections for c in d.comparisons]
    # Every comparison that was looked at is one of the m tests; overlapping ranges (no p-value
    # is printed) enter with p = 1, their least favourable value, so that small-n pages cannot
    # make their few disjoint ranges look stronger than they are.
    tested = [i for i, c in enumerate(flat) if c.p_value is not None or c.method == RANK_SUMMARY]
    adjusted: dict[int, float] = {}
    if tested:
        ps = [flat[i].p_value if flat[i].p_value is not None else 1.0 for i in tested]
        values = bh_adjusted(ps)
        adjusted = {i: float(p) for i, p in zip(tested, values) if flat[i].p_value is not None}
    m = len(tested)
    selected = sum(1 for p in adjusted.values() if p <= rule.fdr_q)
    claims: list[Claim] = []
    for i, comparison in enumerate(flat):
        adj = adjusted.get(i)
        chosen = adj is not None and adj <= rule.fdr_q
        delta = comparison.delta(rule)
        interval = plain = None
        confidence = None
        if comparison.log_ratio is not None:
            plain = comparison.log_ratio.interval(rule.confidence)
            confidence = 1 - selected * rule.fdr_q / m if chosen else rule.confidence
            interval = comparison.log_ratio.interval(confidence) if chosen else plain
        claims.append(Claim(comparison, _verdict(comparison, chosen, interval, plain, delta), delta, adj, m, selected,
                            confidence, interval, comparison.minimum_detectable(rule)))
    out: list[list[Claim]] = []
    pos = 0
    for d in detections:
        out.append(claims[pos:pos + len(d.comparisons)])
        pos += len(d.comparisons)
    return out
