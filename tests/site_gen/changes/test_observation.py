"""Observations validate on construction: positive numbers, a value inside its range, raw
values that the summary follows from."""

import pytest

from site_gen.changes.observation import Observation


def test_from_values():
    o = Observation.from_values([1.0, 2.0, 4.0])
    assert (o.value, o.count, o.minimum, o.maximum, o.statistic) == (7 / 3, 3, 1.0, 4.0, "mean")
    assert o.values == (1.0, 2.0, 4.0) and o.has_range
    m = Observation.from_values([1.0, 2.0, 4.0, 5.0], "median")
    assert m.value == 3.0
    assert m.summary_only() == Observation(3.0, 4, 1.0, 5.0, None, "median")
    assert not Observation(3.0).has_range


@pytest.mark.parametrize("kwargs, message", [
    (dict(value=0.0), "value"),
    (dict(value=float("nan")), "value"),
    (dict(value=1.0, count=0), "count"),
    (dict(value=1.0, minimum=1.0), "both"),
    (dict(value=3.0, count=2, minimum=1.0, maximum=2.0), "outside its range"),
    (dict(value=1.5, count=2, minimum=1.0, maximum=2.0, values=(1.0,), statistic="mean"), "1 values"),
    (dict(value=1.5, count=2, minimum=1.0, maximum=2.0, values=(1.0, 3.0), statistic="mean"), "does not follow"),
    (dict(value=1.5, count=2, minimum=1.0, maximum=2.0, values=(1.0, -2.0), statistic="mean"), "every value"),
    (dict(value=1.5, values=(1.0, 2.0)), "statistic"),
    (dict(value=1.5, statistic="mode"), "statistic must be"),
])
def test_bad_observations_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Observation(**kwargs)
