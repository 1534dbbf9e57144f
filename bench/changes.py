"""The change rule's statistics, measured: interval coverage at small n, the minimum detectable
effect, E-Divisive's error rates on synthetic series, and its running time.

    .venv/bin/python bench/changes.py [--trials 2000] [--seed 15]

Prints, for samples of n = 5 and 10 per side at a CV of 2%: how often a nominal 95% interval
of the ratio covers the true ratio (Welch on log values, as the rule uses, against a percentile
bootstrap of the ratio of means), and the Welch minimum detectable effect as a multiple of the
CV; then, over series of 8 records at ±1% noise, how often E-Divisive reports a change where
there is none (and how many of those the rule calls *changed*) and finds a 12% step (and at the
right record); then the time to run detection on series of 50, 200 and 1,000 records, with the
points found and their verdicts. Seeded: the same figures every run."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from site_gen.changes.claims import CHANGED, assess  # noqa: E402
from site_gen.changes.detection import detect  # noqa: E402
from site_gen.changes.observation import Observation  # noqa: E402
from site_gen.changes.rule import DEFAULT_RULE  # noqa: E402
from site_gen.changes.welch import welch_log_ratio  # noqa: E402


def coverage(rng: np.random.Generator, n: int, cv: float, trials: int, boot: int = 1000) -> tuple[float, float, float]:
    """(Welch-on-logs coverage, percentile-bootstrap coverage, Welch MDE / CV) for a true ratio 1.1."""
    true_ratio = 1.1
    welch_hits = boot_hits = 0
    mdes = []
    for _ in range(trials):
        a = np.exp(rng.normal(0, cv, n))
        b = np.exp(rng.normal(math.log(true_ratio), cv, n))
        lr = welch_log_ratio(a, b)
        low, high = lr.interval(0.95)
        welch_hits += low <= true_ratio <= high
        mdes.append(lr.minimum_detectable(0.95, 0.8) / cv)
        ia = rng.integers(0, n, (boot, n))
        ib = rng.integers(0, n, (boot, n))
        ratios = b[ib].mean(axis=1) / a[ia].mean(axis=1)
        lo, hi = np.percentile(ratios, [2.5, 97.5])
        boot_hits += lo <= true_ratio <= hi
    return welch_hits / trials, boot_hits / trials, float(np.median(mdes))


def series(rng: np.random.Generator, n: int, drop_from: int | None) -> list[Observation]:
    values = rng.uniform(0.99, 1.01, n) * 25.0
    if drop_from is not None:
        values[drop_from:] *= 0.88
    return [Observation(float(v)) for v in values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"load average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    for n in (5, 10):
        welch, boot, mde = coverage(rng, n, 0.02, args.trials)
        print(f"n={n} per side, CV 2%: 95% interval coverage welch_log={welch:.3f} percentile_bootstrap={boot:.3f}; "
              f"welch MDE = {mde:.2f} x CV")
    false = false_changed = 0
    for _ in range(args.trials):
        d = detect(series(rng, 8, None), DEFAULT_RULE)
        false += bool(d.change_points)
        false_changed += any(c.verdict == CHANGED for c in assess([d], DEFAULT_RULE)[0])
    found = right = 0
    for _ in range(args.trials):
        points = detect(series(rng, 8, 5), DEFAULT_RULE).change_points
        found += bool(points)
        right += [p.index for p in points] == [5]
    print(f"8 records, ±1% noise: change points where there is none {false / args.trials:.4f} (of them called "
          f"'changed': {false_changed / args.trials:.4f}); 12% step from the 6th record found {found / args.trials:.3f}, "
          f"exactly there {right / args.trials:.3f}")
    for n in (50, 200, 1000):
        s = series(rng, n, n // 2)
        start = time.perf_counter()
        d = detect(s, DEFAULT_RULE)
        seconds = time.perf_counter() - start
        verdicts = [c.verdict for c in assess([d], DEFAULT_RULE)[0]]
        print(f"detect on {n} records (one 12% step at {n // 2}): {seconds:.3f} s, change points "
              f"{[p.index for p in d.change_points]}, verdicts {verdicts}")


if __name__ == "__main__":
    main()
