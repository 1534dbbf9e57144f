"""How long a case, and a plan, should take, read from the plan alone (`collect --dry-run`).

Each measuring module says what its plan keys imply (`MeasuringModule.estimate`): the time the
plan fixes (idle waits such as `baseline_seconds` and `ready_seconds`: a lower bound), a typical
figure when the plan fixes the work too, and an upper bound when every step has a time limit
(each wait running to its timeout). Nothing is measured, so where the work's length depends on
the machine (decode speed), only the bounds are given, and where a step has no time limit, the
estimate says which step that is instead of inventing a bound."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Estimate:
    """A case's expected duration in seconds: at least `least_s`; `typical_s` when the plan
    fixes the work; at most `most_s` when every step has a time limit, else `unbounded` says
    which step has none."""

    least_s: float
    typical_s: float | None = None
    most_s: float | None = None
    unbounded: str = ""

    def __post_init__(self) -> None:
        figures = [self.least_s] + [x for x in (self.typical_s, self.most_s) if x is not None]
        if not all(math.isfinite(x) and x >= 0 for x in figures):
            raise ValueError(f"an estimate is a finite number of seconds >= 0, got {figures}")
        if figures != sorted(figures):
            raise ValueError(f"an estimate must read least <= typical <= most, got {figures}")
        if (self.most_s is None) != bool(self.unbounded):
            raise ValueError("an estimate without an upper bound says why (`unbounded`), and only then")

    def capped(self, limit_s: float | None) -> "Estimate":
        """This estimate under a time limit that ends the case (e.g. a Ray dispatch timeout)."""
        if limit_s is None or (self.most_s is not None and self.most_s <= limit_s):
            return self
        least = min(self.least_s, limit_s)
        typical = None if self.typical_s is None else min(self.typical_s, limit_s)
        return Estimate(least, typical, limit_s)


def total(estimates: Iterable[tuple[str, Estimate]], parallel: bool = False) -> Estimate:
    """The estimate of (case id, estimate) pairs run one after another: least and typical add up
    (typical only when every case has one), and so does the upper bound, which a case without
    one takes away (named by its id). Run side by side (`parallel`), the least is the longest
    case's, there is no typical figure (it depends on the room the cluster has), and the sum
    still bounds the whole."""
    items = list(estimates)
    if parallel:
        least = max((e.least_s for _, e in items), default=0.0)
        typical = None
    else:
        least = sum(e.least_s for _, e in items)
        typical = sum(e.typical_s for _, e in items) if all(e.typical_s is not None for _, e in items) else None
    unbounded = [f"case {cid}: {e.unbounded}" for cid, e in items if e.most_s is None]
    if unbounded:
        return Estimate(least, typical, None, "; ".join(unbounded))
    return Estimate(least, typical, sum(e.most_s for _, e in items))


def hms(seconds: float) -> str:
    """Seconds as H:MM:SS, rounded up to the whole second (an estimate never reads as shorter)."""
    whole = math.ceil(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def describe(estimate: Estimate) -> str:
    """One line: `at least 0:00:03, typical 0:00:04, at most 0:10:12 (every step to its time
    limit)`, or `..., no upper bound: <why>`."""
    parts = [f"at least {hms(estimate.least_s)}"]
    if estimate.typical_s is not None:
        parts.append(f"typical {hms(estimate.typical_s)}")
    if estimate.most_s is not None:
        parts.append(f"at most {hms(estimate.most_s)} (every step to its time limit)")
    else:
        parts.append(f"no upper bound: {estimate.unbounded}")
    return ", ".join(parts)
