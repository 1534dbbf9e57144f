"""One record's measurements of one metric: its summary (what every record has) and, where the
record carries them, the raw values the summary was computed from."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

# Summaries are compared to the values they claim to summarise with the records core's
# tolerance (floating-point rounding only).
_REL = 1e-9


def _finite_positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (changes are ratios on a log scale), not {value!r}")


@dataclass(frozen=True)
class Observation:
    """A record's `count` measurements of one metric, summarised as minimum/median/mean/maximum,
    with the `values` themselves when the record carries them (then the summary must follow
    from them). Values must be > 0: changes are measured as ratios."""

    count: int
    minimum: float
    median: float
    mean: float
    maximum: float
    values: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"count must be an integer >= 1, not {self.count!r}")
        for name in ("minimum", "median", "mean", "maximum"):
            _finite_positive(name, getattr(self, name))
        low, high = self.minimum, self.maximum
        tol = _REL * high
        if not (low - tol <= self.median <= high + tol and low - tol <= self.mean <= high + tol):
            raise ValueError(f"summary out of order: minimum {low!r}, median {self.median!r}, mean {self.mean!r}, maximum {high!r}")
        if self.values is not None:
            if len(self.values) != self.count:
                raise ValueError(f"{len(self.values)} values for a count of {self.count}")
            for v in self.values:
                _finite_positive("every value", v)
            expected = (min(self.values), statistics.median(self.values), math.fsum(self.values) / len(self.values), max(self.values))
            found = (self.minimum, self.median, self.mean, self.maximum)
            if not all(math.isclose(e, f, rel_tol=_REL) for e, f in zip(expected, found)):
                raise ValueError(f"the summary {found} does not follow from the values (expected {expected})")

    @classmethod
    def from_values(cls, values: Sequence[float]) -> "Observation":
        """The observation of raw `values` (summary computed here)."""
        vals = tuple(float(v) for v in values)
        if not vals:
            raise ValueError("an observation needs at least one value")
        return cls(len(vals), min(vals), statistics.median(vals), math.fsum(vals) / len(vals), max(vals), vals)

    @property
    def point(self) -> float:
        """The record's value in a series: its mean (every record has one)."""
        return self.mean
