"""The few distribution functions change detection uses, computed as scipy.stats computes them
(its `t` and `norm`) from scipy.special: importing scipy.stats took 0.45 s of every build and
`check`, for four formulas. A test holds each equal to scipy.stats. (Benjamini-Hochberg, which
comparison pages use too, is `benchledger.cases.evidence.bh_adjusted`.)"""

from __future__ import annotations

from scipy import special


def t_sf(x: float, df: float) -> float:
    """P(T > x) for Student's t on `df` degrees of freedom (scipy.stats.t.sf)."""
    return float(special.stdtr(df, -x))


def t_ppf(q: float, df: float) -> float:
    """The q-quantile of Student's t on `df` degrees of freedom (scipy.stats.t.ppf)."""
    return float(special.stdtrit(df, q))


def norm_cdf(x: float) -> float:
    """P(Z <= x) for the standard normal (scipy.stats.norm.cdf)."""
    return special.ndtr(x)


def norm_sf(x: float) -> float:
    """P(Z > x) for the standard normal (scipy.stats.norm.sf)."""
    return special.ndtr(-x)
