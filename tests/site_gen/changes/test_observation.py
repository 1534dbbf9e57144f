"""Observations validate on construction: positive numbers, ordered summaries, values that the
summary follows from."""

import pytest

from site_gen.changes.observation import Observation


def test_from_values_and_point():
    o = Observation.from_values([1.0, 2.0, 4.0])
    assert (o.count, o.minimum, o.median, o.mean, o.maximum) == (3, 1.0, 2.0, 7 / 3, 4.0)
    assert o.point == o.mean and o.values == (1.0, 2.0, 4.0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(count=0, minimum=1, median=1, mean=1, maximum=1), "count"),
    (dict(count=2, minimum=0.0, median=1, mean=1, maximum=1), "minimum"),
    (dict(count=2, minimum=1, median=1, mean=float("nan"), maximum=1), "mean"),
    (dict(count=2, minimum=2, median=1, mean=2, maximum=3), "out of order"),
    (dict(count=2, minimum=1, median=1.5, mean=1.5, maximum=2, values=(1.0,)), "1 values"),
    (dict(count=2, minimum=1, median=1.5, mean=1.5, maximum=2, values=(1.0, 3.0)), "does not follow"),
    (dict(count=2, minimum=1, median=1.5, mean=1.5, maximum=2, values=(1.0, -2.0)), "every value"),
])
def test_bad_observations_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Observation(**kwargs)
