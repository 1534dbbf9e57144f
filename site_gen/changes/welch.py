"""Welch's interval for a ratio, computed on log values: the ratio of geometric means of two
samples, its confidence interval, a two-sided p-value for "no change" and the minimum
detectable effect. On log values the interval keeps its coverage at n = 5 where a percentile
bootstrap of the ratio does not (about 86% for a nominal 95%)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from site_gen.changes.distributions import t_ppf, t_sf


@dataclass(frozen=True)
class LogRatio:
    """`after / before` on a log scale: estimate `log_ratio` with standard error `se` on `df`
    Welch-Satterthwaite degrees of freedom, from `n_before` and `n_after` values."""

    log_ratio: float
    se: float
    df: float
    n_before: int
    n_after: int
    noise: float  # pooled within-sample standard deviation of the log values (about the CV)

    def __post_init__(self) -> None:
        if not (self.se > 0 and self.df > 0 and math.isfinite(self.log_ratio)):
            raise ValueError("a LogRatio needs a finite estimate, se > 0 and df > 0")

    @property
    def ratio(self) -> float:
        """The estimated ratio after / before (of geometric means)."""
        return math.exp(self.log_ratio)

    def interval(self, confidence: float) -> tuple[float, float]:
        """The two-sided `confidence` interval of the ratio."""
        half = t_ppf(0.5 + confidence / 2, self.df) * self.se
        return math.exp(self.log_ratio - half), math.exp(self.log_ratio + half)

    @property
    def p_value(self) -> float:
        """Two-sided p-value of "the ratio is 1" (Welch's t-test on log values)."""
        return 2 * t_sf(abs(self.log_ratio) / self.se, self.df)

    def minimum_detectable(self, confidence: float, power: float, beyond: float = 0.0) -> float:
        """The smallest relative change (0.05 = 5%) whose interval at `confidence` would lie
        beyond ±`beyond` (a relative change; 0: would exclude no change, a two-sided test)
        with probability `power`, at this spread and these sample sizes."""
        z = t_ppf(0.5 + confidence / 2, self.df) + t_ppf(power, self.df)
        return math.expm1(math.log1p(beyond) + z * self.se)


def welch_log_ratio(before: Sequence[float], after: Sequence[float]) -> LogRatio | None:
    """The ratio after / before of two samples of positive values, or None when the data cannot
    support an interval: fewer than two values on a side, or no spread at all."""
    a = np.log(np.asarray(before, dtype=float))
    b = np.log(np.asarray(after, dtype=float))
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    va, vb = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
    se2 = va / na + vb / nb
    if se2 <= 0 or not math.isfinite(se2):
        return None
    # Welch-Satterthwaite; a side without spread contributes no term
    denominator = sum(term**2 / (n - 1) for term, n in ((va / na, na), (vb / nb, nb)) if term > 0)
    df = se2**2 / denominator
    noise = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    return LogRatio(float(b.mean() - a.mean()), math.sqrt(se2), df, na, nb, noise)
