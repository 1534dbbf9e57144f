"""collector.estimate: an estimate reads least <= typical <= most, H:MM:SS never reads shorter
than the seconds, and a plan's total adds cases up (or takes the longest, side by side)."""

import math

import pytest
from hypothesis import given, strategies as st

from collector.estimate import Estimate, describe, hms, total


def test_an_estimate_is_validated_on_construction():
    with pytest.raises(ValueError, match="least <= typical <= most"):
        Estimate(5.0, 3.0, 10.0)
    with pytest.raises(ValueError, match="finite"):
        Estimate(math.inf)
    with pytest.raises(ValueError, match="says why"):
        Estimate(1.0)  # no upper bound and no reason
    with pytest.raises(ValueError, match="says why"):
        Estimate(1.0, None, 2.0, "no limit")


def test_hms_rounds_up_and_counts_hours_past_a_day():
    assert [hms(x) for x in (0, 0.2, 59.0, 60.0001, 3599.5, 90061)] == ["0:00:00", "0:00:01", "0:00:59", "0:01:01", "1:00:00", "25:01:01"]


def test_total_adds_cases_and_names_the_cases_without_a_bound():
    cases = [("a", Estimate(2, 3, 10)), ("b", Estimate(5, None, 20)), ("c", Estimate(1, 1, None, "no limit"))]
    assert total(cases[:2]) == Estimate(7, None, 30)
    assert total(cases[::2]) == Estimate(3, 4, None, "case c: no limit")
    assert total(cases[:2], parallel=True) == Estimate(5, None, 30)
    assert describe(total(cases)) == "at least 0:00:08, no upper bound: case c: no limit"
    assert Estimate(2, 3, None, "no limit").capped(60) == Estimate(2, 3, 60)
    assert Estimate(2, 3, 10).capped(60) == Estimate(2, 3, 10)


@given(st.floats(0, 1e7), st.floats(0, 1e7), st.floats(0, 1e7))
def test_the_figures_keep_their_order_when_shown(a, b, c):
    least, typical, most = sorted((a, b, c))
    shown = describe(Estimate(least, typical, most))
    figures = [part.split()[-1] for part in shown.replace(" (every step to its time limit)", "").split(", ")]
    seconds = [sum(int(x) * 60 ** i for i, x in enumerate(reversed(f.split(":")))) for f in figures]
    assert seconds == sorted(seconds) and seconds[-1] >= most
