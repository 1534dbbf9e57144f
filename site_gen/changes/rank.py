"""The summary rule, for records that carry only min/median/mean/max of n values: the one
thing such summaries can show is that two ranges do not overlap. Then every value of one side
lies beyond every value of the other, and the exact two-sided rank (Mann-Whitney) p-value of
that arrangement is 2 / C(n_a + n_b, n_a) (2/252 = 0.0079 at 5 vs 5). Overlapping ranges
support no claim at all: no p-value, no interval."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from benchledger.cases.evidence import rank_test_p
from site_gen.changes.distributions import norm_cdf, norm_sf
from site_gen.changes.observation import Observation


@dataclass(frozen=True)
class Separation:
    """How two summarised samples relate: `disjoint` ranges (with the exact rank p-value and the
    `gap`, the ratio of the nearer range ends, after / before) or overlapping ones."""

    disjoint: bool
    p_value: float | None  # only for disjoint ranges
    gap: float | None  # after.minimum / before.maximum (rise) or after.maximum / before.minimum (drop)
    smallest_p: float  # the smallest p-value any arrangement of these counts can reach

    @property
    def direction(self) -> int:
        """+1 when every later value is higher, -1 when lower, 0 for overlapping ranges."""
        if not self.disjoint or self.gap is None:
            return 0
        return 1 if self.gap > 1 else -1


def smallest_rank_p(n_before: int, n_after: int) -> float:
    """2 / C(n_before + n_after, n_before), capped at 1: the exact two-sided p-value of complete
    separation, the smallest any rank test of these sizes can give (the comparisons' rule)."""
    return rank_test_p(n_before, n_after)


def separation(before: Observation, after: Observation) -> Separation:
    """Compare two summaries by their ranges (both must have a count and a range)."""
    if not (before.has_range and after.has_range):
        raise ValueError("the summary rule needs a count and a range on both sides")
    assert before.count is not None and after.count is not None
    assert before.minimum is not None and before.maximum is not None and after.minimum is not None and after.maximum is not None
    smallest = smallest_rank_p(before.count, after.count)
    if after.minimum > before.maximum:
        return Separation(True, smallest, after.minimum / before.maximum, smallest)
    if after.maximum < before.minimum:
        return Separation(True, smallest, after.maximum / before.minimum, smallest)
    return Separation(False, None, None, smallest)


@lru_cache(maxsize=None)
def expected_range(n: int) -> float:
    """d2(n): the expected range of n standard normal values (2.326 at n = 5), so that
    range / d2(n) estimates a standard deviation from a min/max summary."""
    if n < 2:
        raise ValueError("a range needs at least two values")
    # The integral of 1 - P(all below x) - P(all above x) by Simpson's rule on [-12, 12] at
    # 1/128 steps: beyond, the integrand is under 1e-25 for any n up to 1e6, and a test holds
    # it to scipy's adaptive quad within 1e-10, closer than quad's default tolerance (importing
    # scipy.integrate took 0.26 s of every build, for this one integral).
    x = np.linspace(-12.0, 12.0, 3073)
    y = 1 - norm_cdf(x) ** n - norm_sf(x) ** n
    value = (x[1] - x[0]) / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())
    return float(value)


def range_noise(observation: Observation) -> float | None:
    """The relative spread (about the CV) a summary implies: (max - min) / d2(n) / value, or
    None without a range of at least two values."""
    if not observation.has_range or observation.count is None or observation.count < 2:
        return None
    assert observation.minimum is not None and observation.maximum is not None
    return (observation.maximum - observation.minimum) / expected_range(observation.count) / observation.value
