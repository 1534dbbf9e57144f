"""detect() with the series' field values: changes and the halves' comparison are only ever cut
where the value changes, so repeats of one value stay on one side."""

import math
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.changes.comparison import Segment
from site_gen.changes.detection import E_DIVISIVE, detect
from site_gen.changes.edivisive import t_test
from site_gen.changes.observation import Observation
from site_gen.changes.rule import DEFAULT_RULE


def observations(levels, seed=0):
    rng = random.Random(seed)
    return [Observation.from_values([v * (1 + rng.uniform(-0.01, 0.01)) for _ in range(5)], "median") for v in levels]


def assert_tested_between_final_neighbours(d, series):
    logs = [math.log(o.value) for o in series]
    bounds = [0, *(cp.index for cp in d.change_points), len(series)]
    for i, cp in enumerate(d.change_points, start=1):
        left, right = logs[bounds[i - 1]:bounds[i]], logs[bounds[i]:bounds[i + 1]]
        assert cp.pvalue == t_test(left, right)
        assert cp.mean_before == float(np.mean(left)) and cp.mean_after == float(np.mean(right))


def test_a_jump_between_repeats_of_one_release_neither_counts_nor_shapes_the_real_change():
    # release a: five records at 1.0, then five at 1.3 (another machine, the same release);
    # release b: ten records at 2.0
    levels = [1.0] * 5 + [1.3] * 5 + [2.0] * 10
    series = observations(levels)
    d = detect(series, DEFAULT_RULE, ["a"] * 10 + ["b"] * 10)
    assert d.algorithm == E_DIVISIVE
    assert [cp.index for cp in d.change_points] == [10]
    # the point's test is between the whole of release a and release b, not from the jump at 5
    assert_tested_between_final_neighbours(d, series)
    assert d.comparisons[0].before == Segment(0, 10)


def test_the_halves_are_cut_where_the_value_changes_nearest_the_middle():
    series = observations([1.0] * 9)
    d = detect(series, DEFAULT_RULE, ["a"] * 3 + ["b"] * 6)
    assert d.change_points == ()
    assert d.halves.before == Segment(0, 3) and d.halves.after == Segment(3, 9)
    plain = detect(series, DEFAULT_RULE)  # every record its own value: the middle itself
    assert plain.halves.before == Segment(0, 4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.sampled_from([1.0, 1.0, 1.15, 0.85])), min_size=2, max_size=8),
       st.integers(0, 1000))
def test_every_change_is_at_a_value_change_and_tested_between_its_final_neighbours(runs, seed):
    rng = random.Random(seed)
    levels, values = [], []
    for k, (length, level) in enumerate(runs):
        for _ in range(length):
            levels.append(level * (1.2 if rng.random() < 0.2 else 1.0))  # some repeats off by 20%
            values.append(f"r{k}")
    series = observations(levels, seed)
    d = detect(series, DEFAULT_RULE, values)
    starts = {i for i in range(1, len(values)) if values[i] != values[i - 1]}
    assert {cp.index for cp in d.change_points} <= starts
    if d.algorithm == E_DIVISIVE:
        assert_tested_between_final_neighbours(d, series)
        if d.halves is not None:
            assert d.halves.after.start in starts
