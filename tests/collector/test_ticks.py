"""The host sampler's ticks read in C (collector/telemetry/_ticks.c): its deadlines, its reads,
its ring and what it refuses, on real files and descriptors."""

import errno
import os
import threading
import time

import pytest

from collector.telemetry._ticks import Ticker


def _ticker(period_s: float, capacity: int, fds) -> Ticker:
    ticker = Ticker(period_s, capacity)
    with ticker:
        ticker.set_files(fds)
    return ticker


def test_a_full_ring_holds_each_tick_s_time_and_each_file_s_text(tmp_path):
    (tmp_path / "a").write_bytes(b"first file\n")
    (tmp_path / "b").write_bytes(b"x" * 20000)  # longer than a read: the first 16 KiB, as ProcFile reads
    a, b = (os.open(tmp_path / name, os.O_RDONLY) for name in ("a", "b"))
    closed = os.open(tmp_path / "a", os.O_RDONLY)
    os.close(closed)
    try:
        ticker = _ticker(0.01, 4, [a, -1, b, closed])
        started = time.monotonic()
        assert ticker.run() is True  # the ring is full
        with ticker:
            ticks = ticker.take()
            assert ticker.take() == []
    finally:
        os.close(a)
        os.close(b)
    times = [t for t, _ in ticks]
    assert len(ticks) == 4 and times == sorted(times)
    assert started + 0.01 <= times[0] and times[-1] <= time.monotonic()  # time.monotonic's clock
    assert all(later - earlier >= 0.009 for earlier, later in zip(times, times[1:]))  # a deadline each, no burst
    assert all(reads == (b"first file\n", None, b"x" * 16384, errno.EBADF) for _, reads in ticks)


def test_stop_ends_the_loop_at_its_next_deadline_without_reading():
    ticker = _ticker(0.2, 8, [])
    result = []
    thread = threading.Thread(target=lambda: result.append(ticker.run()))
    thread.start()
    time.sleep(0.3)  # one tick read
    with ticker:
        ticker.stop()
        held = ticker.take()
    thread.join(timeout=2)
    assert result == [False] and len(held) == 1
    with ticker:
        assert ticker.take() == []  # nothing read after stop()


def test_the_loop_lets_the_gil_go_and_waits_while_the_ring_is_held():
    ticker = _ticker(0.02, 3, [])
    thread = threading.Thread(target=ticker.run)
    started = time.monotonic()
    thread.start()
    spins = 0
    while time.monotonic() - started < 0.03:  # Python runs on while the loop sleeps
        spins += 1
    with ticker:  # held: the loop's tick waits for it
        time.sleep(0.1)
        assert len(ticker.take()) <= 1
    thread.join(timeout=2)
    assert not thread.is_alive() and spins > 1000
    with ticker:
        after = [t for t, _ in ticker.take()]
    # the ticks after the hold, one per deadline: the deadlines missed while it waited are
    # skipped, not read in a burst
    assert len(after) == 3 and all(later - earlier >= 0.015 for earlier, later in zip(after, after[1:]))


def test_what_it_refuses():
    with pytest.raises(ValueError):
        Ticker(0, 4)
    with pytest.raises(ValueError):
        Ticker(0.1, 0)
    ticker = Ticker(0.001, 2)
    for call in (ticker.take, ticker.stop, lambda: ticker.set_files([])):
        with pytest.raises(RuntimeError, match="hold the ticker first"):
            call()
    with ticker:
        with pytest.raises(RuntimeError, match="holds the ticker already"):
            ticker.__enter__()  # a second hold would wait for itself forever
        with pytest.raises(RuntimeError, match="run\\(\\) would wait for itself"):
            ticker.run()
        with pytest.raises(ValueError):
            ticker.set_files([-2])
        with pytest.raises(ValueError):
            ticker.set_files([-1] * 9)
        ticker.set_files([-1])
    ticker.run()
    with ticker:
        with pytest.raises(RuntimeError, match="take\\(\\) the ring before set_files"):
            ticker.set_files([])  # its ticks were read from the old files
        assert len(ticker.take()) == 2
