"""The host/process sampler running for real on this machine against a child process whose
memory, CPU, reads and writes we control; cgroup v1/v2 discovery against fake /proc trees."""

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collector.telemetry.host import HostSampler, find_cgroup_memory

CHILD = r"""
import os, sys, time
held = []
for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "alloc":
        b = bytearray(int(arg) << 20)
        for i in range(0, len(b), 4096):
            b[i] = 1
        held.append(b)
    elif cmd == "burn":
        t = time.process_time()
        while time.process_time() - t < float(arg):
            pass
    elif cmd == "read":
        open(arg, "rb").read()
    elif cmd == "write":
        with open(arg, "wb") as f:
            f.write(os.urandom(1 << 20)); f.flush(); os.fsync(f.fileno())
    print("ok", flush=True)
"""


def fs_type(path: Path) -> str:
    """Filesystem type of the longest mount point containing path (from /proc/mounts)."""
    best = ("", "")
    for line in Path("/proc/mounts").read_text().splitlines():
        _, mnt, kind = line.split()[:3]
        if str(path.resolve()).startswith(mnt) and len(mnt) > len(best[0]):
            best = (mnt, kind)
    return best[1]


def ask(proc, cmd):
    proc.stdin.write(cmd + "\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "ok"


# where the periodic ticks are read: in Python, or in C without the GIL (collector/telemetry/_ticks.c)
@pytest.fixture(params=[pytest.param(False, id="python-ticks"), pytest.param(True, id="compiled-ticks")])
def compiled_ticks(request) -> bool:
    return request.param


def test_process_fields_follow_what_the_child_does(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(300_000))
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        s = HostSampler(20)
        s.track_process(proc.pid)
        s.start()
        first = s.sample_with_pss()
        ask(proc, "alloc 64")
        ask(proc, "burn 0.3")
        ask(proc, f"read {data}")
        ask(proc, f"write {tmp_path / 'out.bin'}")
        time.sleep(0.1)
        last = s.sample_with_pss()
        s.stop()
    finally:
        proc.kill()
        proc.wait()
    samples = s.samples()
    assert len(samples) >= 5  # 20 Hz over > 0.4 s plus start/boundary/stop samples (fewer under load)
    assert all(a.t <= b.t for a, b in zip(samples, samples[1:]))
    a, b = first.process, last.process
    assert a.pid == proc.pid and a.pss_bytes is not None and b.pss_bytes is not None
    assert b.rss_bytes - a.rss_bytes >= 60 << 20
    assert b.pss_bytes - a.pss_bytes >= 60 << 20
    assert b.cpu_seconds - a.cpu_seconds >= 0.25
    assert b.read_syscall_bytes - a.read_syscall_bytes >= 300_000
    if fs_type(tmp_path) not in ("tmpfs", "ramfs"):  # memory filesystems cause no storage I/O
        assert b.storage_write_bytes - a.storage_write_bytes >= 1 << 20  # the fsynced MiB
    assert a.major_faults is not None and b.major_faults >= a.major_faults
    assert all(x.mem_available_bytes > 0 for x in samples)
    # the child has exited: the sampler records no process rather than stale or zero values
    gone = s.sample_now()
    assert gone.process is None and s.process_error == f"process {proc.pid} exited"


def test_major_faults_field_matches_getrusage_for_this_process():
    s = HostSampler(10)
    s.track_process(os.getpid())
    assert s.sample_now().process.major_faults == resource.getrusage(resource.RUSAGE_SELF).ru_majflt


def test_cpu_snapshot_and_no_process():
    s = HostSampler(10)
    assert s.cpu_snapshot() is None and s.sample_now().process is None
    s.track_process(os.getpid())
    snap = s.cpu_snapshot()
    assert snap is not None and snap.process_cpu_seconds > 0


def test_cgroup_of_this_machine_is_found_and_read():
    cg = find_cgroup_memory()
    if cg.path is None:  # some sandboxes expose no cgroup files: then the reason is recorded
        assert cg.source == "unavailable" and cg.reason
    else:
        assert cg.source in ("cgroup_v2:memory.current", "cgroup_v1:memory.usage_in_bytes")
        assert cg.read() > 0


def fake_proc(tmp_path: Path, cgroup: str, mountinfo: str) -> Path:
    proc = tmp_path / "proc" / "42"
    proc.mkdir(parents=True)
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(mountinfo)
    return tmp_path / "proc"


def test_cgroup_v2_and_v1_discovery(tmp_path):
    v2root = tmp_path / "cg2"
    (v2root / "user.slice" / "a.scope").mkdir(parents=True)
    (v2root / "user.slice" / "a.scope" / "memory.current").write_text("123456\n")
    proc = fake_proc(tmp_path / "v2", "0::/user.slice/a.scope\n", f"30 23 0:26 / {v2root} rw - cgroup2 cgroup2 rw\n")
    cg = find_cgroup_memory(42, proc)
    assert cg.source == "cgroup_v2:memory.current" and cg.read() == 123456

    v1root = tmp_path / "cg1mem"
    (v1root / "job").mkdir(parents=True)
    (v1root / "job" / "memory.usage_in_bytes").write_text("777\n")
    proc = fake_proc(tmp_path / "v1", "5:cpu:/\n4:memory:/job\n0::/\n", f"35 31 0:32 / {v1root} rw,relatime - cgroup cgroup rw,memory\n")
    cg = find_cgroup_memory(42, proc)
    assert cg.source == "cgroup_v1:memory.usage_in_bytes" and cg.read() == 777

    proc = fake_proc(tmp_path / "none", "0::/\n", "")
    cg = find_cgroup_memory(42, proc)
    assert cg.path is None and cg.source == "unavailable" and cg.reason


def test_the_figures_read_from_proc_are_the_ones_psutil_reports(tmp_path, compiled_ticks):
    """The sampler reads /proc/PID/{stat,statm,io} itself (cheaper than psutil's calls); for a
    still child, each figure equals what psutil's memory_info, cpu_times and io_counters say."""
    import psutil

    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ask(child, "alloc 24")
        ask(child, "burn 0.2")
        ask(child, f"read {sys.executable}")
        sampler = HostSampler(50, pss_every_sample=False, compiled_ticks=compiled_ticks)
        sampler.track_process(child.pid)
        sampler.start()
        deadline = time.monotonic() + 10
        while len(sampler.samples()) < 2 and time.monotonic() < deadline:  # a periodic tick too, compiled or not
            time.sleep(0.02)
        ticked = sampler.samples()[1].process
        ours = sampler.sample_now().process
        theirs = psutil.Process(child.pid)
        io = theirs.io_counters()
        times = theirs.cpu_times()
        assert ours.rss_bytes == theirs.memory_info().rss
        assert ours.cpu_seconds == pytest.approx(times.user + times.system, abs=1e-9)  # ticks / CLK_TCK both
        assert (ours.read_syscall_bytes, ours.storage_read_bytes, ours.storage_write_bytes) == (io.read_chars, io.read_bytes, io.write_bytes)
        assert ours.rss_bytes > 24 << 20 and ours.cpu_seconds >= 0.2
        assert ticked == ours  # the child is still: a periodic tick read the same figures
        sampler.stop()
    finally:
        child.kill()
        child.wait()


def test_a_sampler_stopped_and_started_again_samples_again(compiled_ticks):
    sampler = HostSampler(50, pss_every_sample=False, compiled_ticks=compiled_ticks)
    for _ in range(2):
        before = len(sampler.samples())
        sampler.start()
        time.sleep(0.2)
        sampler.stop()
        assert len(sampler.samples()) - before >= 5  # first + periodic + last


def test_stop_returns_at_once_and_nothing_is_captured_after_its_last_sample(compiled_ticks):
    """stop() does not wait for the sleeping thread: it sets its flag under the lock, takes the
    last sample, and the thread ends at its next deadline without capturing."""
    import threading

    sampler = HostSampler(2, pss_every_sample=False, compiled_ticks=compiled_ticks)  # a 0.5 s period
    sampler.start()
    time.sleep(0.6)  # one periodic tick, then the thread sleeps again
    started = time.monotonic()
    sampler.stop()
    assert time.monotonic() - started < 0.25  # not a wait for the thread's next deadline
    last = sampler.samples()
    time.sleep(0.7)  # past that deadline: the thread woke, saw the flag, captured nothing
    assert sampler.samples() == last and last[-1].t == max(x.t for x in last)
    assert not any(t.name == HostSampler.thread_name for t in threading.enumerate())


def test_ticks_are_decoded_in_order_before_samples_are_handed_out(compiled_ticks):
    """The thread only copies the files' text; samples() (and sample_now) decode what is held,
    so nothing captured is missing or out of order, whatever the batch has reached."""
    s = HostSampler(200, pss_every_sample=False, compiled_ticks=compiled_ticks)
    s.track_process(os.getpid())
    s.start()
    time.sleep(0.3)
    now = s.sample_now()  # decodes the held captures first, then itself
    held = s.samples()
    s.stop()
    times = [x.t for x in held]
    # the thread keeps ticking at 200 Hz: a tick may land between any two of these calls, so
    # `now` is not always the last sample, but every capture before it is decoded before it
    assert len(held) >= 3 and times == sorted(times) and any(x is now for x in held)  # 60 ticks unless starved
    assert all(x.process is not None and x.process.pid == os.getpid() for x in held)
    final = s.samples()
    assert all(a is b for a, b in zip(final, held)) and len(final) > len(held)  # stop()'s last sample, after them
    assert [x.t for x in final] == sorted(x.t for x in final)


def test_switching_process_keeps_the_exit_of_the_old_one_out_of_the_new_ones_state(compiled_ticks):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    s = HostSampler(200, pss_every_sample=False, compiled_ticks=compiled_ticks)
    s.track_process(proc.pid)
    proc.wait()
    s.start()
    time.sleep(0.05)  # ticks capture the exited process, held undecoded
    s.track_process(os.getpid())  # decodes them (process_error set), then resets it
    assert s.process_error is None
    time.sleep(0.05)
    s.stop()
    samples = s.samples()
    assert s.process_error is None and samples[-1].process.pid == os.getpid()
    assert any(x.process is None for x in samples)  # the old process's ticks: no stale values


def test_cpu_snapshots_resolve_less_than_a_clock_tick_and_count_every_thread():
    """A busy child's CPU seconds between snapshots a few ms apart: not whole 10 ms ticks (a
    request's 18 ms window read 0 or 10 ms), and its two spinning threads both counted."""
    # hashing a MiB at a time lets go of the GIL: the two threads run at once
    code = ("import hashlib, threading, time\n"
            "def spin():\n    h, block, end = hashlib.sha256(), bytes(2**20), time.monotonic() + 3\n"
            "    while time.monotonic() < end: h.update(block)\n"
            "threads = [threading.Thread(target=spin) for _ in range(2)]\n"
            "[t.start() for t in threads]; [t.join() for t in threads]\n")
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        time.sleep(0.3)
        s = HostSampler(10)
        s.track_process(child.pid)
        snaps = []
        for _ in range(20):
            snaps.append(s.cpu_snapshot())
            time.sleep(0.003)
        deltas = [b.process_cpu_seconds - a.process_cpu_seconds for a, b in zip(snaps, snaps[1:])]
        # a loaded machine may leave the child unscheduled for one 3 ms window (a 0.0 seen beside
        # another test run); most windows must still count its CPU time
        assert sum(1 for d in deltas if d > 0) >= len(deltas) * 3 // 4, deltas
        assert sum(1 for d in deltas if abs(d / 0.01 - round(d / 0.01)) > 0.01) > len(deltas) // 2
        cpu_s = snaps[-1].process_cpu_seconds - snaps[0].process_cpu_seconds
        wall_s = snaps[-1].t - snaps[0].t
        # the spinning threads, not the main one (it waits in join()): the clock is the process's
        assert cpu_s / wall_s > 0.5
    finally:
        child.kill()
        child.wait()


def test_the_compiled_ticks_are_used_where_they_read_what_python_ticks_read():
    """The development install compiled _ticks.c (setup.py); a sampler uses it by default unless
    it must read PSS in every tick (psutil) or keeps another clock than time.monotonic."""
    assert HostSampler(10, pss_every_sample=False).compiled_ticks is True
    assert HostSampler(10, pss_every_sample=True).compiled_ticks is False
    assert HostSampler(10, clock=lambda: 0.0, pss_every_sample=False).compiled_ticks is False
    with pytest.raises(ValueError, match="pss_every_sample=False"):
        HostSampler(10, pss_every_sample=True, compiled_ticks=True)


def test_a_compiled_tick_that_could_not_read_a_process_file_is_decoded_as_a_python_tick_would_be():
    """A compiled tick hands over errno values where Python would have caught an OSError: io not
    permitted (another user's process) leaves the I/O counters out and keeps the rest; a process
    gone (ESRCH, or a file that could not be opened) is a sample without a process."""
    import errno

    s = HostSampler(10, pss_every_sample=False, compiled_ticks=True)
    s.track_process(os.getpid())
    meminfo = Path("/proc/meminfo").read_bytes()
    stat, statm = Path("/proc/self/stat").read_bytes(), Path("/proc/self/statm").read_bytes()

    not_permitted = s.decode(s._capture_of(1.0, (None, meminfo, statm, errno.EACCES, stat)))
    assert not_permitted.process is not None and not_permitted.process.read_syscall_bytes is None
    assert not_permitted.process.rss_bytes > 0 and not_permitted.cgroup_memory_current_bytes is None
    for reads in ((b"1\n", meminfo, statm, errno.ESRCH, stat), (b"1\n", meminfo, None, None, None)):
        gone = s.decode(s._capture_of(2.0, reads))
        assert gone.process is None and gone.cgroup_memory_current_bytes == 1
        assert s.process_error == f"process {os.getpid()} exited"
