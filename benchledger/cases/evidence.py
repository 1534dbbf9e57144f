"""When a difference between two measured numbers may be called, and when it may not.

A record gives, per number, a summary (median or mean), for some numbers the sample count n
and the range (minimum, maximum) of the n values, and in records of newer collectors the n
values themselves (per request, per repetition). So:

- If both sides carry their values, the two-sided Mann-Whitney rank test runs on them: exact
  when no value is tied; with ties, exact over every split of the pooled values while there are
  at most EXACT_SPLITS of them, else the normal approximation with tie correction (as scipy
  computes them). The approximation undercuts what small samples allow (5 tied values against 5
  gave p = 0.004, below the 2/252 = 0.0079 a split can reach). The difference is *called* when
  p <= ALPHA, in the direction of the rank sums, and otherwise reported as "no difference shown"
  with its p.

- If both sides have n and a range, and the ranges are disjoint (every value of one side lies
  beyond every value of the other), the exact two-sided rank test (Mann-Whitney) of "no
  difference" gives p = 2 / C(n_a + n_b, n_a): the chance that, with no difference, the n_a + n_b
  values happen to split that cleanly. The difference is *called* when that p <= ALPHA (at
  n = 5 per side p = 2/252 = 0.0079); disjoint ranges with too few values (p > ALPHA, e.g. 3 vs 3
  gives 0.1) are reported as such, without a claim.
- If the ranges overlap (or touch), nothing is claimed: the page says "ranges overlap".
- If a side has no range or no count (a mean without its values, a single aggregate, a derived
  number), nothing is claimed: "no range in the record".

Every table of verdicts (a comparison page's metric, `benchledger compare`'s report) then goes
through Benjamini-Hochberg at ALPHA over all its tests (`control_false_discoveries`): a
difference stays called only when its adjusted p <= ALPHA.

A clear difference smaller than PRACTICAL_PERCENT between the two summaries (medians) is not
called either: it is SMALL, "higher by 0.21 %, under the 1 % this site calls a difference". The
test's values come from one process per side (below), so it finds differences far smaller than
what separates two installations of one setup; a reader comparing hardware should see such a
difference is there without reading it as one that matters.

The p-value treats the n values of a side as independent draws. Repeated rounds of one record
share one server process (or one Python process), so between-run variation is not in them; a
called difference says the two runs differ, not that every installation would.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import comb
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

from benchledger.cases.base import Measure

ALPHA = 0.05
# Splits of the pooled values an exact test with ties enumerates at most (8 + 8 values: 12,870,
# about 0.1 s); past that the normal approximation is close.
EXACT_SPLITS = 20_000

CALLED, TOO_FEW, OVERLAP, NO_RANGE, MISSING = "called", "too-few", "overlap", "no-range", "missing"
NOT_SHOWN = "not-shown"  # the rank test on the values themselves gave p > ALPHA
SMALL = "small"  # clear, but the summaries differ by less than PRACTICAL_PERCENT
REPEAT = "repeat"  # B has A's value of the axis: a repeat of its setup, whose gap is run-to-run variation
# The smallest difference between two summaries, in percent of A's, that a comparison calls.
PRACTICAL_PERCENT = 1.0


@dataclass(frozen=True)
class Verdict:
    """What may be said about B against A."""

    status: str  # CALLED, SMALL, TOO_FEW, OVERLAP, NO_RANGE, NOT_SHOWN, REPEAT or MISSING
    direction: str = ""  # "higher" / "lower" (B against A) when the ranges are disjoint
    p: float | None = None  # the exact rank-test p, only when the ranges are disjoint
    n_a: int | None = None
    n_b: int | None = None
    method: str = "range"  # "range" (from min/max and n), or "exact" / "asymptotic" (on the values)
    adjusted_p: float | None = None  # Benjamini-Hochberg over the `tests` of its table (control_false_discoveries)
    tests: int = 1
    change_percent: float | None = None  # |B / A - 1| x 100 of the summaries, for a SMALL verdict

    @property
    def _small(self) -> str:
        return f"{self.direction} by {self.change_percent:.2g} %, under the {PRACTICAL_PERCENT:g} % this site calls a difference"

    @property
    def _control(self) -> str:
        if self.adjusted_p is None:
            return ""
        return f"; Benjamini-Hochberg adjusted p = {self.adjusted_p:.2g} over the {self.tests} tests of this table"

    @property
    def text(self) -> str:
        if self.method != "range":
            test = (f"two-sided Mann-Whitney test on the {self.n_a} values of A and {self.n_b} of B "
                    f"({self.method}), p = {self.p:.2g}")
            if self.status == CALLED:
                return f"B is {self.direction}: {test}{self._control}"
            if self.status == SMALL:
                return f"B is {self._small}: {test}{self._control}"
            return f"no difference shown: {test}{self._control}, above {ALPHA}"
        if self.status == SMALL:
            return (f"B is {self._small}: all {self.n_b} values of B lie {'above' if self.direction == 'higher' else 'below'} "
                    f"all {self.n_a} of A (exact rank test p = 2/C({self.n_a + self.n_b},{self.n_a}) = {self.p:.2g}{self._control})")
        if self.status in (CALLED, NOT_SHOWN):
            assert self.n_a is not None and self.n_b is not None and self.p is not None
            disjoint = (f"all {self.n_b} values of B lie {'above' if self.direction == 'higher' else 'below'} all {self.n_a} of A "
                        f"(exact rank test p = 2/C({self.n_a + self.n_b},{self.n_a}) = {self.p:.2g}{self._control})")
            return f"B is {self.direction}: {disjoint}" if self.status == CALLED else f"no difference shown: {disjoint}, above {ALPHA}"
        if self.status == TOO_FEW:
            return (f"ranges disjoint, but {self.n_a} and {self.n_b} values cannot reach p <= {ALPHA} "
                    f"(p = {self.p:.2g}): no claim")
        if self.status == OVERLAP:
            return "ranges overlap: no claim"
        if self.status == NO_RANGE:
            return "no range of values in the record: no claim"
        if self.status == REPEAT:
            return ("B repeats A's setup (the same value of the compared field): the gap between them is run-to-run "
                    "variation, not a difference along the field: no claim")
        return "not measured on both sides"


    @property
    def short(self) -> str:
        """A few words for a table cell (the full `text` goes in a hover or a note)."""
        p = "" if self.p is None else f"p = {self.p:.2g}" + (f", adjusted {self.adjusted_p:.2g}" if self.adjusted_p is not None else "")
        if self.status == CALLED:
            return f"{self.direction} ({p})"
        if self.status == SMALL:
            return f"small: {self.direction} by {self.change_percent:.2g} % ({p})"
        if self.status == NOT_SHOWN:
            return f"no difference shown ({p})"
        if self.status == TOO_FEW:
            return f"disjoint, too few values: no claim (p = {self.p:.2g})"
        return {OVERLAP: "ranges overlap: no claim", NO_RANGE: "no range: no claim",
                REPEAT: "repeat of the baseline: no claim"}.get(self.status, "n/a")


def control_false_discoveries(verdicts: Sequence[Verdict], q: float = ALPHA) -> list[Verdict]:
    """The verdicts of one table after Benjamini-Hochberg at `q` over all its tests (a cell whose
    ranges overlap counts as a test with p = 1): a difference stays called only when its
    adjusted p <= q. Tested alone at 0.05, one cell in twenty differs by chance, and an audit
    found a false "higher" or "lower" on half of the comparison pages of identical runs."""
    tested = [i for i, v in enumerate(verdicts) if v.p is not None or v.status == OVERLAP]
    out = list(verdicts)
    if len(tested) < 2:
        return out
    adjusted = bh_adjusted([1.0 if verdicts[i].p is None else verdicts[i].p for i in tested])
    for i, adj in zip(tested, adjusted):
        v = verdicts[i]
        if v.p is not None:
            status = NOT_SHOWN if v.status in (CALLED, SMALL) and adj > q else v.status
            out[i] = replace(v, status=status, adjusted_p=float(adj), tests=len(tested))
    return out


def bh_adjusted(ps: Sequence[float]) -> "np.ndarray":
    """Benjamini-Hochberg adjusted p-values, in the order given (scipy.stats
    false_discovery_control(ps, method="bh")): p x m / rank, then the running minimum from the
    largest p down, capped at 1."""
    import numpy as np  # loaded where p-values are adjusted, not by every command that reads a case

    ps = np.asarray(ps, dtype=float)
    if ps.size <= 1:
        return ps
    if not np.all((ps >= 0) & (ps <= 1)):
        raise ValueError("p-values must lie between 0 and 1")
    order = np.argsort(ps)
    adjusted = ps[order] * (ps.size / np.arange(1, ps.size + 1, dtype=float))
    np.minimum.accumulate(adjusted[::-1], out=adjusted[::-1])
    return np.clip(adjusted[order.argsort()], 0, 1)


def rank_test_p(n_a: int, n_b: int) -> float:
    """Two-sided exact Mann-Whitney p when the two samples do not interleave at all."""
    return min(1.0, 2 / comb(n_a + n_b, n_a))


def verdict(a: Measure, b: Measure) -> Verdict:
    """The verdict on B against A (see the module docstring for the rule)."""
    found = _tested(a, b)
    if found.status == CALLED and a.value:
        change = abs(b.value / a.value - 1) * 100
        if change < PRACTICAL_PERCENT:
            return replace(found, status=SMALL, change_percent=change)
    return found


def _tested(a: Measure, b: Measure) -> Verdict:
    """The verdict of the tests alone, whatever the size of the difference."""
    if a.value is None or b.value is None:
        return Verdict(MISSING)
    if a.samples and b.samples:
        return _rank_test(a.samples, b.samples)
    if not (a.has_range and b.has_range) or not a.count or not b.count:
        return Verdict(NO_RANGE)
    assert a.minimum is not None and a.maximum is not None and b.minimum is not None and b.maximum is not None
    if b.minimum > a.maximum:
        direction = "higher"
    elif b.maximum < a.minimum:
        direction = "lower"
    else:
        return Verdict(OVERLAP, n_a=a.count, n_b=b.count)
    p = rank_test_p(a.count, b.count)
    return Verdict(CALLED if p <= ALPHA else TOO_FEW, direction, p, a.count, b.count)


def _rank_test(a: tuple[float, ...], b: tuple[float, ...]) -> Verdict:
    """Mann-Whitney on the values themselves (see the module docstring)."""
    from scipy.stats import mannwhitneyu  # imported when a record carries its values

    tied = len(set(a) | set(b)) < len(a) + len(b)
    if not tied:
        method, how = "exact", "exact"
    elif comb(len(a) + len(b), len(a)) <= EXACT_SPLITS:
        from scipy.stats import PermutationMethod

        method, how = "exact", PermutationMethod(n_resamples=float("inf"))  # every split: deterministic
    else:
        method, how = "asymptotic", "asymptotic"
    result = mannwhitneyu(b, a, alternative="two-sided", method=how)
    p = float(result.pvalue)
    half = len(a) * len(b) / 2
    direction = "higher" if result.statistic > half else "lower" if result.statistic < half else ""
    status = CALLED if p <= ALPHA and direction else NOT_SHOWN
    return Verdict(status, direction, p, len(a), len(b), method)
