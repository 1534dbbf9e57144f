"""Statistics over interval unions against exact answers, and properties of unions."""

import statistics as pystats

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.intervals import Interval, outer_span_seconds, union, union_seconds
from collector.phases import CpuSnapshot, Window
from collector.statistics import counter_deltas, cpu_snapshot_intervals, samples_in, summarize
from collector.telemetry.host import HostSample, ProcessSample


def host(t, rss=100, faults=0, rchars=0, rbytes=0, wbytes=0, pid=7, process=True):
    proc = ProcessSample(pid, rss, rss, 0.0, faults, rchars, rbytes, wbytes) if process else None
    return HostSample(t, 1000, 500, proc)


def test_summarize_exact():
    assert summarize([]) is None
    assert summarize([3, 1, 2, 10]) == {"maximum": 10, "mean": 4.0, "median": 2.5, "minimum": 1, "sample_count": 4}
    assert summarize([5]) == {"maximum": 5, "mean": 5.0, "median": 5, "minimum": 5, "sample_count": 1}


def test_union_merges_overlapping_and_touching():
    u = union([Interval(5, 6), Interval(0, 2), Interval(1, 3), Interval(3, 4), Interval(7, 7)])
    assert u == (Interval(0, 4), Interval(5, 6), Interval(7, 7))
    assert union_seconds([Interval(0, 2), Interval(1, 3)]) == 3
    assert outer_span_seconds([Interval(1, 2), Interval(5, 9)]) == 8
    assert union([]) == () and union_seconds([]) == 0 and outer_span_seconds([]) == 0
    with pytest.raises(ValueError):
        Interval(2, 1)


def test_samples_in_counts_each_sample_once_and_includes_edges():
    samples = [host(t) for t in (0, 1, 2, 3, 4, 5)]
    got = samples_in(samples, [Interval(1, 3), Interval(2, 4), Interval(10, 11)])
    assert [s.t for s in got] == [1, 2, 3, 4]
    assert samples_in(samples, []) == []


def test_counter_deltas_exclude_unsampled_edges():
    samples = [
        host(0.5, faults=1, rchars=10, rbytes=0, wbytes=0),
        host(1.0, faults=2, rchars=20, rbytes=4096, wbytes=0),
        host(2.0, faults=5, rchars=70, rbytes=8192, wbytes=512),
        host(2.5, faults=9, rchars=100, rbytes=8192, wbytes=1024),  # between intervals
        host(3.2, faults=10, rchars=110, rbytes=8192, wbytes=1024),
        host(3.8, faults=10, rchars=150, rbytes=12288, wbytes=4096),
        host(5.5, faults=11, rchars=160, rbytes=12288, wbytes=4096),  # single sample in [5, 6]
    ]
    r = counter_deltas(samples, [Interval(0.8, 2.2), Interval(3.0, 4.0), Interval(5.0, 6.0), Interval(7, 8)])
    assert r["requested_intervals"] == 4
    assert r["observed_intervals"] == 2
    assert r["observed_endpoint_seconds"] == pytest.approx((2.0 - 1.0) + (3.8 - 3.2))
    assert r["deltas"] == {"major_faults": 3 + 0, "read_syscall_bytes": 50 + 40, "storage_read_bytes": 4096 + 4096, "storage_write_bytes": 512 + 3072}


def test_counter_deltas_null_without_observed_intervals_or_across_restarts():
    assert counter_deltas([host(1.0)], [Interval(0, 2)])["deltas"] is None
    assert counter_deltas([host(1.0, process=False), host(1.5, process=False)], [Interval(0, 2)])["deltas"] is None
    restarted = counter_deltas([host(1.0, pid=1, faults=9), host(1.5, pid=2, faults=0)], [Interval(0, 2)])
    assert restarted["observed_intervals"] == 0 and restarted["deltas"] is None


def test_cpu_snapshot_intervals_weighted_rate():
    def win(t0, c0, t1, c1):
        return Window("measured", 1, 0, Interval(t0 + 0.01, t1 - 0.01), CpuSnapshot(t0, c0), CpuSnapshot(t1, c1))

    r = cpu_snapshot_intervals([win(0, 10.0, 2, 11.5), win(5, 20.0, 7, 21.5), Window("measured", 1, 2, Interval(8, 9), None, None)], logical_cpus=4)
    assert r["interval_count"] == 2
    assert r["interval_seconds"] == pytest.approx(4.0)
    assert r["process_cpu_seconds"] == pytest.approx(3.0)
    assert r["one_logical_cpu_percent"] == pytest.approx(75.0)
    assert r["host_capacity_percent"] == pytest.approx(18.75)
    empty = cpu_snapshot_intervals([], logical_cpus=4)
    assert empty["interval_count"] == 0 and "one_logical_cpu_percent" not in empty


interval_lists = st.lists(st.tuples(st.floats(0, 100), st.floats(0, 20)).map(lambda p: Interval(p[0], p[0] + p[1])), max_size=8)


@settings(max_examples=200, deadline=None)
@given(interval_lists, st.lists(st.floats(0, 130), max_size=40))
def test_union_and_samples_in_agree_with_brute_force(ivs, times):
    u = union(ivs)
    assert all(a.end < b.start for a, b in zip(u, u[1:]))  # disjoint, sorted, gaps between
    for t in times:
        assert any(iv.start <= t <= iv.end for iv in ivs) == any(iv.start <= t <= iv.end for iv in u)
    samples = [host(t) for t in sorted(times)]
    got = samples_in(samples, ivs)
    expected = [s for s in samples if any(iv.start <= s.t <= iv.end for iv in ivs)]
    assert got == expected
    assert union_seconds(ivs) <= sum(iv.seconds for iv in ivs) + 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50))
def test_summarize_agrees_with_statistics_module(values):
    s = summarize(values)
    assert s["minimum"] <= s["median"] <= s["maximum"]
    assert s["median"] == pystats.median(values)
    assert s["mean"] == pytest.approx(pystats.fmean(values), rel=1e-9, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 50), st.integers(0, 1000)), min_size=0, max_size=30), interval_lists)
def test_counter_deltas_bounded_by_the_counters_total_rise(points, ivs):
    points = sorted(points)
    total = 0
    samples = []
    for t, step in points:  # a monotone counter
        total += step
        samples.append(host(t, faults=total, rchars=2 * total, rbytes=0, wbytes=total))
    r = counter_deltas(samples, ivs)
    assert r["observed_intervals"] <= r["requested_intervals"] == len(ivs)
    assert r["observed_endpoint_seconds"] <= sum(iv.seconds for iv in ivs) + 1e-9
    assert (r["deltas"] is None) == (r["observed_intervals"] == 0)
    if r["deltas"] is not None and len(union(ivs)) == len(ivs):  # disjoint intervals: no double count
        assert 0 <= r["deltas"]["major_faults"] <= total
        assert r["deltas"]["read_syscall_bytes"] == 2 * r["deltas"]["major_faults"]
