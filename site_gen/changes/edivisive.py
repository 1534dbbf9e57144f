"""E-Divisive means change-point detection as Apache Otava (MongoDB's Hunter) runs it,
reimplemented from its documented recurrences (Otava docs/MATH.md; Matteson & James 2014;
Fleming et al. 2023, "Hunter"):

- Q(s, tau, kappa), the scaled energy divergence between Z[s:tau] and Z[tau:kappa] (alpha = 1),
  is A - B - C: A the mean distance between the two sides, B and C the mean distances within
  each, each updated from its neighbour in tau (A and B as tau grows, C as it shrinks).
- The split step runs E-Divisive on overlapping windows (length `window`, step window / 2): in
  each, the (tau, kappa) with the largest Q proposes tau; it is kept when a two-sided Student
  t-test between the sides of its interval gives p <= `first_pass_pvalue`, and the search goes on
  in the pieces. The union of all windows' points are the "weak" change points.
- The merge step then drops, one at a time, the weakest point (largest p-value, each point
  tested between its neighbouring points) until every point has p <= `max_pvalue`.

Differences from Otava, on purpose: no segment is shorter than `min_segment` (so every t-test
has a spread on both sides); the t-test uses the sample standard deviation (ddof = 1); the split
step tests a candidate's left side against its right side up to the kappa that maximised Q, not
to the end of its piece (a regression that recovered a few records later was hidden by the
recovery's spread: found in 1 of 200 noisy series, 198 so); after a point is dropped every
remaining point is re-tested; ties go to the earliest index; where the caller says which indices
may start a segment (`allowed`: where the series' field changes value), only those are
candidates, so a jump between repeats of one value never takes a split or a neighbour's place
in another point's test. Everything
is deterministic: no permutations, no random numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from site_gen.changes.distributions import t_sf


@dataclass(frozen=True)
class Candidate:
    """The best split of one interval: `index` is the first point of the new segment."""

    index: int
    kappa: int  # end (exclusive) of the right side that maximised Q
    qhat: float


@dataclass(frozen=True)
class ChangePoint:
    """A change point with the t-test between its neighbouring segments."""

    index: int  # first point of the new segment
    pvalue: float
    mean_before: float
    mean_after: float


def _q_rows(series: Sequence[float], start: int, stop: int, min_segment: int):
    """(kappa, taus, Q at each tau) for each kappa of series[start:stop] (see q_matrix)."""
    z = np.asarray(series, dtype=float)[start:stop]
    seg = max(min_segment, 1)
    upper = np.triu(np.abs(z[:, None] - z[None, :]), k=1)  # D_ij for i < j
    v_all = upper.sum(axis=0)  # V(t): distances from point t to the points before it
    for length in range(2 * seg, len(z) + 1):  # kappa = start + length
        v = v_all[:length]
        h = upper[:length, :length].sum(axis=1)  # H(t): distances from t to the points after it, up to kappa
        # A and B grow with tau (point tau-1 moves from the right side to the left):
        #   between(tau) = between(tau-1) - V(tau-1) + H(tau-1), within_left(tau) = within_left(tau-1) + V(tau-1)
        between = np.concatenate(([0.0], np.cumsum(h - v)))
        within_left = np.concatenate(([0.0], np.cumsum(v)))
        # C shrinks with tau (point tau joins the right side): within_right(tau) = within_right(tau+1) + H(tau)
        within_right = np.concatenate((np.cumsum(h[::-1])[::-1], [0.0]))
        taus = np.arange(seg, length - seg + 1)
        m, n = taus.astype(float), (length - taus).astype(float)
        a = 2 / length * between[taus]
        b = np.where(m > 1, 2 * n / (length * np.maximum(m - 1, 1)) * within_left[taus], 0.0)
        c = np.where(n > 1, 2 * m / (length * np.maximum(n - 1, 1)) * within_right[taus], 0.0)
        yield start + length, start + taus, a - b - c


def q_matrix(series: Sequence[float], start: int, stop: int, min_segment: int = 1) -> dict[tuple[int, int], float]:
    """Q(start, tau, kappa) for every start + min_segment <= tau <= kappa - min_segment,
    kappa <= stop, by the recurrences (alpha = 1, distances |Z_i - Z_j|), each run as a
    cumulative sum over tau as Otava's calculator does."""
    out: dict[tuple[int, int], float] = {}
    for kappa, taus, q in _q_rows(series, start, stop, min_segment):
        for tau, value in zip(taus.tolist(), q.tolist()):
            out[(tau, kappa)] = value
    return out


def q_direct(series: Sequence[float], start: int, tau: int, kappa: int) -> float:
    """Q by its definition (Matteson & James): mn/(m+n) x (2 x mean between-distance - mean
    within-left - mean within-right). For tests of `q_matrix`; O(n^2) per value."""
    x, y = list(series[start:tau]), list(series[tau:kappa])
    m, n = len(x), len(y)
    between = sum(abs(a - b) for a in x for b in y) / (m * n)
    wx = sum(abs(x[i] - x[j]) for i in range(m) for j in range(i + 1, m)) / math.comb(m, 2) if m > 1 else 0.0
    wy = sum(abs(y[i] - y[j]) for i in range(n) for j in range(i + 1, n)) / math.comb(n, 2) if n > 1 else 0.0
    return m * n / (m + n) * (2 * between - wx - wy)


def best_split(series: Sequence[float], start: int, stop: int, min_segment: int,
               allowed: np.ndarray | None = None) -> Candidate | None:
    """The (tau, kappa) of series[start:stop] with the largest Q (earliest on ties), tau among
    the `allowed` indices (a boolean mask over the series; None: any), or None when the
    interval cannot hold two segments."""
    if stop - start < 2 * min_segment:
        return None
    # a row's maximum at its first tau, then the rows by kappa: the pair a scan of every
    # (tau, kappa) in order would keep, without building (and sorting) all of them
    best: Candidate | None = None
    for kappa, taus, q in _q_rows(series, start, stop, min_segment):
        if allowed is not None:
            usable = allowed[taus]
            if not usable.any():
                continue
            q = np.where(usable, q, -np.inf)
        i = int(np.argmax(q))
        tau, value = int(taus[i]), float(q[i])
        if best is None or value > best.qhat or (value == best.qhat and (tau, kappa) < (best.index, best.kappa)):
            best = Candidate(tau, kappa, value)
    return best


def t_test(left: Sequence[float], right: Sequence[float]) -> float:
    """Two-sided Student t-test p-value between two sides (1.0 when it cannot be computed;
    0.0 for two constant sides that differ)."""
    na, nb = len(left), len(right)
    if na < 2 or nb < 2:
        return 1.0
    a, b = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    pooled = (float(np.sum((a - a.mean()) ** 2)) + float(np.sum((b - b.mean()) ** 2))) / (na + nb - 2)
    diff = float(b.mean() - a.mean())
    if pooled == 0:
        return 0.0 if diff != 0 else 1.0
    t = diff / math.sqrt(pooled * (1 / na + 1 / nb))
    return 2 * t_sf(abs(t), na + nb - 2)


def _bounds(points: Sequence[int], length: int) -> list[int]:
    return [0, *sorted(points), length]


def _tested(series: Sequence[float], points: Sequence[int]) -> list[ChangePoint]:
    """Each point tested between its neighbouring points (or the series ends)."""
    bounds = _bounds(points, len(series))
    out = []
    for i in range(1, len(bounds) - 1):
        left, right = series[bounds[i - 1]:bounds[i]], series[bounds[i]:bounds[i + 1]]
        out.append(ChangePoint(bounds[i], t_test(left, right), float(np.mean(left)), float(np.mean(right))))
    return out


def _divide(series: Sequence[float], start: int, stop: int, pvalue: float, min_segment: int,
            allowed: np.ndarray | None) -> list[int]:
    """E-Divisive on series[start:stop]: split at the best candidate of all pieces while the
    t-test between the candidate's sides (from its piece's start to its kappa) passes `pvalue`."""
    points: list[int] = []
    while True:
        bounds = [start, *sorted(points), stop]
        candidates = []
        for lo, hi in zip(bounds, bounds[1:]):
            c = best_split(series, lo, hi, min_segment, allowed)
            if c is not None:
                candidates.append((c, lo, hi))
        if not candidates:
            return sorted(points)
        # the largest Q over all pieces; ties to the earliest index
        cand, lo, hi = max(candidates, key=lambda item: (item[0].qhat, -item[0].index))
        if t_test(series[lo:cand.index], series[cand.index:cand.kappa]) > pvalue:
            return sorted(points)
        points.append(cand.index)


def split(series: Sequence[float], window: int, pvalue: float, min_segment: int,
          allowed: np.ndarray | None = None) -> list[int]:
    """The weak change points: E-Divisive over overlapping windows, united (each at an
    `allowed` index, a boolean mask over the series; None: any)."""
    found: set[int] = set()
    start, step = 0, max(window // 2, 1)
    while start < len(series):
        stop = min(start + window, len(series))
        new = _divide(series, start, stop, pvalue, min_segment, allowed)
        found.update(new)
        start = max(new[-1] if new else 0, start + step)
    # windows may propose points closer together than a minimum segment: keep the earlier one
    kept: list[int] = []
    for index in sorted(found):
        if index >= min_segment and len(series) - index >= min_segment and (not kept or index - kept[-1] >= min_segment):
            kept.append(index)
    return kept


def merge(series: Sequence[float], points: Sequence[int], max_pvalue: float) -> list[ChangePoint]:
    """Drop the weakest point (largest p-value, earliest on ties) until all pass `max_pvalue`."""
    current = list(points)
    while current:
        tested = _tested(series, current)
        weakest = max(tested, key=lambda cp: (cp.pvalue, -cp.index))
        if weakest.pvalue <= max_pvalue:
            return tested
        current.remove(weakest.index)
    return []


def change_points(series: Sequence[float], *, window: int, max_pvalue: float, first_pass_pvalue: float,
                  min_segment: int, allowed: Sequence[int] | None = None) -> list[ChangePoint]:
    """Otava's compute_change_points: split (weak points at `first_pass_pvalue`) then merge
    (at `max_pvalue`). `series` is one value per record, in axis order; `allowed`, when given,
    the only indices a new segment may start at."""
    values = [float(v) for v in series]
    if not all(math.isfinite(v) for v in values):
        raise ValueError("E-Divisive needs finite values")
    mask = None
    if allowed is not None:
        mask = np.zeros(len(values) + 1, dtype=bool)
        mask[[i for i in allowed if 0 <= i <= len(values)]] = True
    return merge(values, split(values, window, first_pass_pvalue, min_segment, mask), max_pvalue)
