"""The distribution functions change detection computes from scipy.special give exactly what
scipy.stats gives: the site's p-values, intervals and claims are scipy's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchledger.cases.evidence import bh_adjusted
from site_gen.changes.distributions import norm_cdf, norm_sf, t_ppf, t_sf

X = st.floats(min_value=-60, max_value=60, allow_nan=False)
DF = st.floats(min_value=0.5, max_value=1e4, allow_nan=False)
Q = st.floats(min_value=1e-12, max_value=1 - 1e-12)


@settings(max_examples=300, deadline=None)
@given(X, DF, Q)
def test_t_and_normal_equal_scipy_stats(x, df, q):
    assert t_sf(x, df) == stats.t.sf(x, df)
    assert t_ppf(q, df) == stats.t.ppf(q, df)
    assert norm_cdf(x) == stats.norm.cdf(x) and norm_sf(x) == stats.norm.sf(x)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1) | st.sampled_from([0.0, 0.01, 0.05, 1.0]), max_size=40))
def test_benjamini_hochberg_equals_scipy_false_discovery_control(ps):
    ours = bh_adjusted(ps)
    theirs = stats.false_discovery_control(np.array(ps, dtype=float), method="bh") if ps else np.array([])
    assert np.array_equal(ours, np.asarray(theirs, dtype=float))
