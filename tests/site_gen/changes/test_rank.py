"""The summary rule: disjoint ranges give the exact rank p-value, overlapping ones nothing."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from site_gen.changes.observation import Observation
from site_gen.changes.rank import expected_range, range_noise, separation, smallest_rank_p


def summary_only(values):
    return Observation.from_values(values, "median").summary_only()


def test_the_field_notes_number():
    assert smallest_rank_p(5, 5) == pytest.approx(2 / 252)
    assert smallest_rank_p(5, 5) == pytest.approx(0.0079365, rel=1e-4)
    assert smallest_rank_p(1, 1) == 1.0
    assert smallest_rank_p(3, 3) == pytest.approx(0.1)


def test_disjoint_and_overlapping_ranges():
    before = summary_only([25.6, 25.7, 25.78, 26.0, 26.2])
    drop = separation(before, summary_only([22.5, 22.6, 22.7, 22.9, 23.0]))
    assert drop.disjoint and drop.p_value == pytest.approx(2 / 252) and drop.direction == -1
    assert drop.gap == pytest.approx(23.0 / 25.6)
    rise = separation(before, summary_only([26.3, 26.4, 26.5, 26.6, 26.7]))
    assert rise.disjoint and rise.direction == 1 and rise.gap == pytest.approx(26.3 / 26.2)
    overlap = separation(before, summary_only([25.9, 26.0, 26.1, 26.3, 26.4]))
    assert not overlap.disjoint and overlap.p_value is None and overlap.gap is None and overlap.direction == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=1, max_value=100), min_size=1, max_size=7, unique=True),
       st.lists(st.floats(min_value=1, max_value=100), min_size=1, max_size=7, unique=True))
def test_disjoint_p_equals_scipys_exact_mann_whitney(a, b):
    sep = separation(summary_only(a), summary_only(b))
    if sep.disjoint:
        exact = stats.mannwhitneyu(a, b, alternative="two-sided", method="exact").pvalue
        assert sep.p_value == pytest.approx(min(1.0, exact), rel=1e-9)
    else:
        assert sep.p_value is None


def test_expected_range_constants():
    # the control-chart constants d2(n)
    assert expected_range(2) == pytest.approx(1.128, abs=1e-3)
    assert expected_range(5) == pytest.approx(2.326, abs=1e-3)
    assert expected_range(10) == pytest.approx(3.078, abs=1e-3)
    with pytest.raises(ValueError):
        expected_range(1)


# at large n quad warns it may not reach the asked tolerance; it still lands within 1e-10
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@given(st.integers(min_value=2, max_value=1_000_000))
def test_expected_range_is_scipys_integral(n):
    from scipy import integrate

    from site_gen.changes.distributions import norm_cdf, norm_sf

    # quad's default tolerance leaves errors of 4e-10 here (n = 9433): asked for more, it agrees
    exact, _ = integrate.quad(lambda x: 1 - norm_cdf(x) ** n - norm_sf(x) ** n, -math.inf, math.inf,
                              epsabs=1e-14, epsrel=1e-13, limit=500)
    assert expected_range(n) == pytest.approx(exact, rel=1e-10)


def test_range_noise():
    o = summary_only([99.0, 100.0, 101.0, 100.5, 99.5])
    assert range_noise(o) == pytest.approx(2.0 / expected_range(5) / 100.0)
    assert range_noise(summary_only([3.0])) is None
    assert range_noise(Observation(3.0)) is None
    with pytest.raises(ValueError, match="count and a range"):
        separation(Observation(3.0), o)
    assert math.isfinite(range_noise(summary_only([3.0, 3.0])))
