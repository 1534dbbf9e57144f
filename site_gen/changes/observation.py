"""One record's number for one metric, with the evidence behind it: the sample count and the
range of the values it summarises where the record has them, and the raw values themselves
where the record carries them."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from benchledger.records.numbers import is_integer, is_number

# A summary is compared to the values it claims to summarise with the records core's tolerance
# (floating-point rounding only).
_REL = 1e-9

STATISTICS = ("median", "mean", "")  # how `value` summarises `values` ("" : a single number)


def _positive(name: str, value: object) -> None:
    if not is_number(value) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (changes are ratios on a log scale), not {value!r}")


def summarise(values: Sequence[float], statistic: str) -> float:
    """The `statistic` ("median" or "mean") of `values`."""
    if statistic == "median":
        return float(statistics.median(values))
    if statistic == "mean":
        return math.fsum(values) / len(values)
    raise ValueError(f"cannot summarise values by {statistic!r}")


@dataclass(frozen=True)
class Observation:
    """A record's `value` for a metric (its median, its mean, or a single number), with the
    `count` and range (`minimum`, `maximum`) of what it summarises where known, and the raw
    `values` where the record carries them (then count, range and value must follow from
    them). Every number must be > 0: changes are measured as ratios."""

    value: float
    count: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    values: tuple[float, ...] | None = None
    statistic: str = ""

    def __post_init__(self) -> None:
        _positive("value", self.value)
        if self.statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {STATISTICS}, not {self.statistic!r}")
        if self.count is not None and (not is_integer(self.count) or self.count < 1):
            raise ValueError(f"count must be an integer >= 1, not {self.count!r}")
        if (self.minimum is None) != (self.maximum is None):
            raise ValueError("give both minimum and maximum, or neither")
        if self.minimum is not None:
            _positive("minimum", self.minimum)
            _positive("maximum", self.maximum)
            tol = _REL * self.maximum
            if not self.minimum - tol <= self.value <= self.maximum + tol:
                raise ValueError(f"value {self.value!r} outside its range {self.minimum!r}..{self.maximum!r}")
        if self.values is not None:
            if not self.values:
                raise ValueError("values, when given, are not empty")
            for v in self.values:
                _positive("every value", v)
            if not self.statistic:
                raise ValueError("values need the statistic that summarises them")
            if self.count is not None and len(self.values) != self.count:
                raise ValueError(f"{len(self.values)} values for a count of {self.count}")
            expected = [summarise(self.values, self.statistic)]
            found = [self.value]
            if self.minimum is not None:
                expected += [min(self.values), max(self.values)]
                found += [self.minimum, self.maximum]
            if not all(math.isclose(e, f, rel_tol=_REL) for e, f in zip(expected, found)):
                raise ValueError(f"the summary {found} does not follow from the values (expected {expected})")

    @classmethod
    def from_values(cls, values: Sequence[float], statistic: str = "mean") -> "Observation":
        """The observation of raw `values`, summarised by `statistic`."""
        vals = tuple(float(v) for v in values)
        if not vals:
            raise ValueError("an observation needs at least one value")
        return cls(summarise(vals, statistic), len(vals), min(vals), max(vals), vals, statistic)

    @property
    def has_range(self) -> bool:
        """Whether the count and the range of the summarised values are known."""
        return self.count is not None and self.minimum is not None

    def summary_only(self) -> "Observation":
        """The same observation without its raw values (what an older record would carry)."""
        return Observation(self.value, self.count, self.minimum, self.maximum, None, self.statistic)
