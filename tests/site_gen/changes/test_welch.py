"""Welch's interval on log values: exact values against scipy's Welch t-test, symmetry and
scale properties, and when no interval may be given."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from site_gen.changes.welch import welch_log_ratio

BEFORE = [25.605412361610277, 25.7, 25.778169650885744, 26.0, 26.211279772416194]
AFTER = [22.6, 22.7, 22.9, 23.0, 23.1]

POSITIVE = st.floats(min_value=0.1, max_value=1e4, allow_nan=False, allow_infinity=False)
SAMPLE = st.lists(POSITIVE, min_size=2, max_size=12).filter(lambda xs: max(xs) > min(xs) * (1 + 1e-6))


def test_exact_values_agree_with_scipys_welch_test():
    lr = welch_log_ratio(BEFORE, AFTER)
    ref = stats.ttest_ind(np.log(AFTER), np.log(BEFORE), equal_var=False)
    assert lr.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert lr.df == pytest.approx(ref.df, rel=1e-12)
    low, high = ref.confidence_interval(0.95)
    assert lr.interval(0.95) == pytest.approx((math.exp(low), math.exp(high)), rel=1e-12)
    geo = math.exp(np.mean(np.log(AFTER)) - np.mean(np.log(BEFORE)))
    assert lr.ratio == pytest.approx(geo, rel=1e-12)
    assert lr.n_before == lr.n_after == 5


def test_minimum_detectable_effect_is_about_twice_the_cv_at_n5():
    # a CV of 2% per side, n = 5: the field note's figure, about 2.0x the CV (4%)
    rng = np.random.default_rng(7)
    spread = [math.exp(v) for v in rng.normal(0, 0.02, 5)]
    lr = welch_log_ratio(spread, [v * 1.0 for v in reversed(spread)])
    cv = lr.noise
    mde = lr.minimum_detectable(0.95, 0.8)
    assert 1.8 * cv < mde < 2.3 * cv


def test_no_interval_without_two_values_per_side_or_without_spread():
    assert welch_log_ratio([1.0], [1.0, 2.0]) is None
    assert welch_log_ratio([2.0, 2.0], [3.0, 3.0]) is None
    one_sided = welch_log_ratio([2.0, 2.0], [3.0, 3.1])
    assert one_sided is not None and one_sided.df == pytest.approx(1.0)


@settings(max_examples=80, deadline=None)
@given(SAMPLE, SAMPLE, st.floats(min_value=0.01, max_value=100))
def test_properties(a, b, scale):
    lr = welch_log_ratio(a, b)
    low, high = lr.interval(0.95)
    assert low <= lr.ratio <= high
    assert math.log(lr.ratio) - math.log(low) == pytest.approx(math.log(high) - math.log(lr.ratio), rel=1e-6, abs=1e-12)
    wider = lr.interval(0.99)
    assert wider[0] <= low and high <= wider[1]
    # swapping the sides inverts the ratio and keeps the p-value
    back = welch_log_ratio(b, a)
    assert back.ratio == pytest.approx(1 / lr.ratio, rel=1e-9)
    assert back.p_value == pytest.approx(lr.p_value, rel=1e-9, abs=1e-300)
    # a common unit change leaves everything as it was
    scaled = welch_log_ratio([v * scale for v in a], [v * scale for v in b])
    assert scaled.ratio == pytest.approx(lr.ratio, rel=1e-9)
    assert scaled.p_value == pytest.approx(lr.p_value, rel=1e-6, abs=1e-12)
    assert 0 <= lr.p_value <= 1
    assert (lr.p_value < 0.05) == (high < 1 or low > 1) or math.isclose(lr.p_value, 0.05, rel_tol=1e-6)
