"""GPU energy against exact answers: piecewise-linear watt series (the trapezoid rule is exact
for them, including at linearly interpolated boundaries), unions, unbracketed boundaries and
empty unions; plus hypothesis properties."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.energy import INTERPOLATION, SCOPE, trapezoid_energy
from collector.intervals import Interval

# watts rise linearly 100 -> 200 W over t = 0..10 s, then stay at 200 W until t = 20 s
TIMES = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0]


def watts_at(t):
    return 100.0 + 10.0 * t if t <= 10 else 200.0


WATTS = [watts_at(t) for t in TIMES]


def exact_joules(a, b):
    """Integral of watts_at over [a, b], by hand."""
    def prim(t):  # antiderivative
        return 100 * t + 5 * t * t if t <= 10 else 1500 + 200 * (t - 10)
    return prim(b) - prim(a)


def test_single_interval_with_interpolated_boundaries():
    e = trapezoid_energy(TIMES, WATTS, [Interval(1.0, 13.0)])
    assert e["available"] is True
    assert e["joules"] == pytest.approx(exact_joules(1.0, 13.0), rel=1e-12)
    assert e["response_union_seconds"] == 12.0
    # samples strictly inside (1, 13): 2, 4, 6, 8, 10, 12 -> 6 samples + 1 = 7 pieces
    assert e["trapezoid_pieces"] == 7
    assert e["watt_hours"] == pytest.approx(e["joules"] / 3600)
    assert e["time_weighted_mean_watts"] == pytest.approx(e["joules"] / 12.0)
    assert e["interpolation"] == INTERPOLATION and e["scope"] == SCOPE and e["reason"] is None


def test_overlapping_intervals_are_integrated_once():
    e = trapezoid_energy(TIMES, WATTS, [Interval(1.0, 5.0), Interval(3.0, 7.0), Interval(14.0, 16.0), Interval(15.5, 15.7)])
    assert e["joules"] == pytest.approx(exact_joules(1, 7) + exact_joules(14, 16), rel=1e-12)
    assert e["response_union_seconds"] == pytest.approx(8.0)
    # (1,7): samples 2,4,6 -> 4 pieces; (14,16): sample 15 -> 2 pieces
    assert e["trapezoid_pieces"] == 6


def test_boundaries_on_samples_need_no_interpolation():
    e = trapezoid_energy(TIMES, WATTS, [Interval(2.0, 6.0)])
    assert e["joules"] == pytest.approx(exact_joules(2, 6))
    assert e["trapezoid_pieces"] == 2  # sample 4 inside; 2 and 6 are the boundaries themselves


def test_unbracketed_boundary_at_either_end():
    for iv in (Interval(-0.5, 3.0), Interval(18.0, 20.5)):
        e = trapezoid_energy(TIMES, WATTS, [Interval(5, 6), iv])
        assert e == {"available": False, "joules": None, "reason": "unbracketed_boundary"}


def test_empty_union_and_no_samples():
    assert trapezoid_energy(TIMES, WATTS, []) == {"available": False, "joules": None, "reason": "empty_interval_union"}
    assert trapezoid_energy([], [], [Interval(0, 1)])["reason"] == "unbracketed_boundary"


def test_zero_length_interval_is_zero_joules():
    e = trapezoid_energy(TIMES, WATTS, [Interval(3.0, 3.0)])
    assert e["joules"] == 0.0 and e["time_weighted_mean_watts"] is None


@st.composite
def series_and_intervals(draw):
    n = draw(st.integers(2, 30))
    gaps = draw(st.lists(st.floats(0.01, 5.0), min_size=n - 1, max_size=n - 1))
    times = [0.0]
    for g in gaps:
        times.append(times[-1] + g)
    watts = draw(st.lists(st.floats(0.0, 1000.0), min_size=n, max_size=n))
    k = draw(st.integers(1, 5))
    ivs = []
    for _ in range(k):
        a = draw(st.floats(0.0, times[-1]))
        b = draw(st.floats(a, times[-1]))
        ivs.append(Interval(a, b))
    return times, watts, ivs


def piecewise(times, watts, t):
    for i in range(len(times) - 1):
        if times[i] <= t <= times[i + 1]:
            return watts[i] + (watts[i + 1] - watts[i]) * (t - times[i]) / (times[i + 1] - times[i])
    raise AssertionError


@settings(max_examples=150, deadline=None)
@given(series_and_intervals())
def test_matches_fine_riemann_sum_and_bounds(data):
    times, watts, ivs = data
    e = trapezoid_energy(times, watts, ivs)
    assert e["available"]
    # bounded by min/max watts times the union length
    assert min(watts) * e["response_union_seconds"] - 1e-6 <= e["joules"] <= max(watts) * e["response_union_seconds"] + 1e-6
    # the trapezoid rule is exact for the linear interpolant: compare with a midpoint sum over
    # the union split at every sample (exact on each linear piece)
    from collector.intervals import union

    total = 0.0
    for iv in union(ivs):
        cuts = sorted({iv.start, iv.end, *(t for t in times if iv.start < t < iv.end)})
        total += sum((b - a) * piecewise(times, watts, (a + b) / 2) for a, b in zip(cuts, cuts[1:]))
    assert math.isclose(e["joules"], total, rel_tol=1e-9, abs_tol=1e-6)


@settings(max_examples=100, deadline=None)
@given(series_and_intervals(), st.floats(0.0, 500.0))
def test_additive_over_disjoint_pieces_and_linear_in_offset(data, offset):
    times, watts, ivs = data
    whole = trapezoid_energy(times, watts, ivs)
    shifted = trapezoid_energy(times, [w + offset for w in watts], ivs)
    assert math.isclose(shifted["joules"], whole["joules"] + offset * whole["response_union_seconds"], rel_tol=1e-9, abs_tol=1e-6)


def test_energy_counter_difference_with_interpolated_boundaries():
    from collector.energy import counter_energy_joules

    times = [0.0, 1.0, 2.0, 3.0]
    counter_mj = [0.0, 100_000.0, 300_000.0, 600_000.0]  # 100 J, 200 J, 300 J per second
    assert counter_energy_joules(times, counter_mj, [Interval(0.5, 2.5)]) == pytest.approx(50 + 200 + 150)
    assert counter_energy_joules(times, counter_mj, [Interval(0.5, 1.0), Interval(0.8, 1.5)]) == pytest.approx(50 + 100)
    assert counter_energy_joules(times, counter_mj, [Interval(2.5, 3.5)]) is None
    assert counter_energy_joules(times, counter_mj, []) is None
