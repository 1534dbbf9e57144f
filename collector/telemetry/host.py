"""Host and process sampling through psutil and the cgroup's memory files.

Each sample holds MemAvailable, the cgroup's memory (v2 `memory.current` or v1
`memory.usage_in_bytes`: psutil has no cgroup API, so these files are read directly), and for the
tracked process, from its /proc files held open since tracking started: RSS (statm), CPU seconds
and major faults (stat; psutil 7 has no major-fault field), I/O counters (io: read_chars,
read_bytes, write_bytes), each the figure psutil's `memory_info`, `cpu_times` and `io_counters`
give; PSS comes from psutil's `memory_full_info` (smaps_rollup: slow on huge mappings, so
`pss_every_sample=False` reads it only at phase boundaries).

Cost as a percent of one core (bench/sampler.py, 30 s per rate, PSS at boundaries, no GPU, on
the 2-core build machine; an idle machine reads highest, each wake-up then finds cold caches):

    sampler                                                     1 Hz    10 Hz   100 Hz
    /proc files opened per read, no psutil (first version)      0.08-0.12  0.35-0.54  3.3-4.8
    psutil in oneshot(), MemAvailable, files held open          0.09-0.12  0.38-0.54  3.6-5.1
    /proc/PID/{stat,statm,io} read here, timed lock wait        0.074      0.308      2.56
    the same, parsed 16 ticks at a time                         0.069      0.261      2.42
    a sleep to each deadline, no frozen dataclass a tick         0.074      0.211      1.763
    io and stat parsed with less splitting (now)                0.079      0.212      1.662
    the wait alone at 10 Hz, reading nothing (the floor)                   0.086 (a sleep; a timed lock 0.111-0.126)

(In 20 s runs back to back at 10 Hz, the row above "now" read 0.278-0.287 and "now" 0.223-0.232:
the machine's figures drift by a third over a day.) The five reads alone,
inline in the leanest loop Python allows, cost 0.19-0.22 % here: the rest is the kernel
generating meminfo and stat text on a cold wake-up (about 21 us each, 48 us for the first read
of a tick), so 0.2 % is about where Python reading these files at 10 Hz ends on this machine.

A tick costs about 135 us over the floor here: the five reads (meminfo, the cgroup file, stat,
statm, io) are 20-25 us each on a wake-up to cold caches (5 us each in a loop), and the few
Python lines around them the rest. Parsing is deferred to `decode()` and run for 16 ticks at a
time (and before any sample is handed out), on warm caches: that took 50 us a tick.

Reading the tracked process's figures from its held-open /proc files takes 14 us a sample
where psutil's memory_info, cpu_times and io_counters inside oneshot() took 55 (a test holds
the figures equal to psutil's); the thread sleeps to each tick's deadline (see sampler.py).
MemAvailable is read from /proc/meminfo (psutil's `virtual_memory().available` on Linux)
without parsing the other fifty lines, and every file stays open and is re-read with pread.
psutil still reads PSS (`memory_full_info`) and the CPU snapshots at phase boundaries.

Since 12-07 the periodic ticks are read in C where `_ticks.c` was compiled (setup.py): a loop
that sleeps to each deadline and reads the five files without the GIL, 16 ticks to a ring, so
the Python thread wakes once a ring to parse it. Five alternating 20 s rounds at 10 Hz: 0.121-0.177 %
of a core (median 0.130) against 0.177-0.205 % (median 0.193) for the same sampler ticking in
Python (waking alone, in Python, 0.074-0.090 %); the same loop in C costs about 0.05 % waking
alone, so what is left is mostly the kernel making the files' text. Immediate samples (phase boundaries, window edges) are still
read here, holding the ring so that no tick falls between and samples stay in time order.
"""

from __future__ import annotations

import errno
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import psutil

from benchledger.errors import os_reason
from collector.phases import CpuSnapshot
from collector.telemetry.sampler import PeriodicSampler

try:
    # the ticks read in C without the GIL (_ticks.c): compiled where the package is installed
    # from source with a C compiler (setup.py)
    from collector.telemetry._ticks import Ticker
except ImportError:
    Ticker = None


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds of process `pid`, all its threads, to the nanosecond: the kernel's CPU clock
    of that process (the id clock_getcpuclockid(3) gives, made as glibc makes it). psutil's
    cpu_times count 10 ms clock ticks: over a request's 18 ms window they read 0 or 10 ms, and a
    case's CPU percent came out 141.6 % where the server was on a CPU 90.6 % of the time.
    OSError once the process is gone."""
    return time.clock_gettime(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the whole thread group


@dataclass(frozen=True, slots=True)
class ProcessSample:
    pid: int
    rss_bytes: int
    pss_bytes: int | None  # every sample, or only boundary samples (pss_every_sample=False)
    cpu_seconds: float  # user + system
    major_faults: int | None
    read_syscall_bytes: int | None  # read_chars: bytes passed to read() syscalls
    storage_read_bytes: int | None
    storage_write_bytes: int | None


@dataclass(frozen=True, slots=True)
class HostSample:
    t: float
    mem_available_bytes: int
    cgroup_memory_current_bytes: int | None
    process: ProcessSample | None  # None before a process is tracked or after it exited


_pread = os.pread  # a tick runs on cold caches: one lookup fewer per read


class ProcFile:
    """A /proc or cgroup file held open and re-read whole with pread at offset 0: the kernel
    regenerates its text on every such read. Opened on the first read, again after close(). A
    /proc/PID file keeps referring to the process it was opened for: once that process is gone
    reads fail with ESRCH, even if its pid has been reused. Not thread-safe: the sampler calls it
    under its lock."""

    __slots__ = ("path", "_fd")

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self._fd: int | None = None

    def fileno(self) -> int:
        """The descriptor, opened if it is not yet."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        return self._fd

    def read(self) -> bytes:
        fd = self._fd
        if fd is None:
            fd = self.fileno()
        return _pread(fd, 16384, 0)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    __del__ = close


def first_int(raw: bytes) -> int | None:
    """The first number of a cgroup file such as memory.current (None if there is none)."""
    try:
        return int(raw.split()[0])
    except (ValueError, IndexError):
        return None


@dataclass(frozen=True)
class CgroupMemory:
    """Where the cgroup memory figure comes from (v2 or v1), or why there is none."""

    path: Path | None
    source: str  # "cgroup_v2:memory.current", "cgroup_v1:memory.usage_in_bytes" or "unavailable"
    reason: str | None

    def read(self) -> int | None:
        """The figure now, in bytes (None when unavailable or unreadable); one-off, opens the file."""
        if self.path is None:
            return None
        try:
            return first_int(self.path.read_bytes())
        except OSError:
            return None


def find_cgroup_memory(pid: int | None = None, proc: Path = Path("/proc")) -> CgroupMemory:
    """Locate the memory-usage file of the cgroup of `pid` (default: this process) through
    /proc/PID/cgroup and /proc/PID/mountinfo; cgroup v2 first, then v1."""
    pid = pid or os.getpid()
    try:
        groups = (proc / str(pid) / "cgroup").read_text().splitlines()
        mounts = (proc / str(pid) / "mountinfo").read_text().splitlines()
    except OSError as err:
        return CgroupMemory(None, "unavailable", f"cannot read cgroup of pid {pid}: {os_reason(err)}")
    v2_mount = v1_mount = None
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if len(fields) < 5 or len(rfields) < 3:
            continue
        if rfields[0] == "cgroup2" and v2_mount is None:
            v2_mount = Path(fields[4])
        elif rfields[0] == "cgroup" and "memory" in rfields[2].split(","):
            v1_mount = Path(fields[4])
    for line in groups:
        hid, controllers, rel = (line.split(":", 2) + ["", ""])[:3]
        rel = rel.lstrip("/")
        if hid == "0" and controllers == "" and v2_mount is not None:
            f = v2_mount / rel / "memory.current"
            if f.is_file():
                return CgroupMemory(f, "cgroup_v2:memory.current", None)
        if "memory" in controllers.split(",") and v1_mount is not None:
            f = v1_mount / rel / "memory.usage_in_bytes"
            if f.is_file():
                return CgroupMemory(f, "cgroup_v1:memory.usage_in_bytes", None)
    return CgroupMemory(None, "unavailable", "no readable memory.current (v2) or memory.usage_in_bytes (v1) for this process's cgroup")


def parse_mem_available(meminfo: bytes) -> int:
    """MemAvailable from the text of /proc/meminfo, in bytes: the figure
    `psutil.virtual_memory().available` returns on Linux, without parsing the other fifty lines."""
    i = meminfo.index(b"MemAvailable:")
    return int(meminfo[i + 13 : meminfo.index(b"kB", i)]) * 1024


_IO_LINE = re.compile(rb"^(\w+): (\d+)$", re.M)
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class ProcStat:
    """The fields the sampler takes from /proc/PID/stat (numbered as in proc(5))."""

    major_faults: int  # field 12, majflt
    cpu_seconds: float  # fields 14 + 15, utime + stime, in clock ticks / SC_CLK_TCK (as psutil's cpu_times)
    start_ticks: int  # field 22: with the pid, identifies the process (pids are reused)


def parse_stat(stat: bytes) -> ProcStat:
    """Major faults, CPU seconds and start time from the text of /proc/PID/stat. psutil 7 (the
    newest release) has no major-fault field (psutil 8 adds `Process.page_faults()`); the start
    time says whether the pid still belongs to the tracked process, at about half the cost of
    `Process.is_running()`, which builds a second Process and reads this file again. (Its rss
    field is not used: on Linux 6 it is the kernel's approximate per-CPU sum, pages off statm's.)"""
    # fields after "(comm)": rest[0] is field 3; split no further than field 22, the last one used
    rest = stat[stat.rfind(b")") + 2 :].split(maxsplit=20)
    return ProcStat(int(rest[9]), (int(rest[11]) + int(rest[12])) / _CLOCK_TICKS, int(rest[19]))


def parse_statm_rss(statm: bytes) -> int:
    """Resident set size in bytes from /proc/PID/statm (its second field, in pages): psutil's
    `memory_info().rss` on Linux."""
    return int(statm.split(maxsplit=2)[1]) * _PAGE_BYTES


def parse_io(io: bytes) -> tuple[int, int, int]:
    """(rchar, read_bytes, write_bytes) from /proc/PID/io: psutil's `io_counters()` read_chars,
    read_bytes and write_bytes on Linux."""
    fields = dict(_IO_LINE.findall(io))  # one C-level scan: splitting line by line took 6 us a sample
    return int(fields[b"rchar"]), int(fields[b"read_bytes"]), int(fields[b"write_bytes"])


@dataclass(slots=True)
class TrackedProcess:
    """A tracked pid: its psutil.Process (PSS, CPU snapshots) and its /proc files held open."""

    process: psutil.Process
    stat: ProcFile
    statm: ProcFile
    io: ProcFile
    start_ticks: int

    def close(self) -> None:
        for file in (self.stat, self.statm, self.io):
            file.close()


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object.__setattr__, every tick
class ProcessCapture:
    """What one tick read of the tracked process, undecoded: the files' text (io None when not
    permitted), PSS when read, or the error that stopped the reading."""

    tracked: TrackedProcess
    stat: bytes | None
    statm: bytes | None
    io: bytes | None
    pss_bytes: int | None
    error: Exception | None


class HostSampler(PeriodicSampler[HostSample]):
    """Host and process samples. Where `_ticks.c` was compiled, the periodic ticks are read in C
    without the GIL, 16 at a time (`compiled_ticks`), and parsed here as Python's own ticks are;
    a clock other than time.monotonic (tests) or PSS in every sample (psutil, each tick) ticks
    in Python."""

    thread_name = "host-sampler"
    decode_batch = 16  # a tick copies the files' text; parsing runs once per 16 ticks, on warm caches

    def __init__(self, hz: float, clock=time.monotonic, cgroup: CgroupMemory | None = None, pss_every_sample: bool = True,
                 compiled_ticks: bool | None = None):
        super().__init__(hz, clock)
        self.pss_every_sample = pss_every_sample
        usable = Ticker is not None and clock is time.monotonic and not pss_every_sample
        if compiled_ticks and not usable:
            raise ValueError("compiled ticks need collector/telemetry/_ticks.c compiled, the time.monotonic clock and PSS "
                             "read at boundaries only (pss_every_sample=False)")
        self.compiled_ticks = usable if compiled_ticks is None else compiled_ticks
        self.cgroup = cgroup if cgroup is not None else find_cgroup_memory()
        self._meminfo = ProcFile("/proc/meminfo")
        self._cgroup_file = ProcFile(self.cgroup.path) if self.cgroup.path is not None else None
        self._process: TrackedProcess | None = None  # replaced and read under self._lock
        self.process_error: str | None = None  # why process samples stopped, if they did
        self._ticker = None  # the compiled ticks' Ticker while they run; replaced under self._lock

    def track_process(self, pid: int | None) -> None:
        """Sample this process from now on (None: stop tracking)."""
        tracked = None
        if pid is not None:
            stat = ProcFile(f"/proc/{pid}/stat")
            try:
                tracked = TrackedProcess(psutil.Process(pid), stat, ProcFile(f"/proc/{pid}/statm"), ProcFile(f"/proc/{pid}/io"),
                                         parse_stat(stat.read()).start_ticks)
            except (psutil.NoSuchProcess, OSError):
                stat.close()
                raise ProcessLookupError(f"no process {pid} to track") from None
        with self._lock, self._held():
            self._decode_pending()  # the old process's captures, before process_error is reset
            old, self._process = self._process, tracked
            self.process_error = None
            if self._ticker is not None:  # before the old files close: no tick reads a closed descriptor
                self._ticker.set_files(self._tick_files())
            if old is not None:
                old.close()

    def start(self) -> None:
        if self._thread is None and self.compiled_ticks:
            ticker = Ticker(1.0 / self.hz, self.decode_batch)
            with self._lock, ticker:
                ticker.set_files(self._tick_files())
                self._ticker = ticker
        super().start()

    def stop(self) -> None:
        """Stop sampling (a last sample included) and close the files held open; a later read
        opens them again."""
        ticker = self._ticker
        if ticker is not None:
            with self._lock, ticker:
                self._take(ticker)  # its last ticks; it reads nothing more
                ticker.stop()
                self._ticker = None
        super().stop()
        with self._lock:
            self._meminfo.close()
            if self._cgroup_file is not None:
                self._cgroup_file.close()
            if self._process is not None:
                self._process.close()

    def sample_with_pss(self) -> HostSample | None:
        """An immediate sample that also reads PSS (memory_full_info): for phase boundaries."""
        return self.sample_now(pss=True)

    def cpu_snapshot(self) -> CpuSnapshot | None:
        """CPU seconds of the tracked process now (None when no live process is tracked)."""
        with self._lock:
            tracked = self._process
            if tracked is None:
                return None
            try:
                t = self.clock()
                cpu_s = process_cpu_seconds(tracked.process.pid)
                if parse_stat(tracked.stat.read()).start_ticks != tracked.start_ticks:
                    return None
            except (psutil.Error, OSError):
                return None
        return CpuSnapshot(t, cpu_s)

    def capture(self, t: float, pss: bool = False) -> tuple:
        """The files' text as the kernel gives it now; parsed later, by decode()."""
        cgroup = None
        cgroup_file = self._cgroup_file
        if cgroup_file is not None:
            try:
                cgroup = cgroup_file.read()
            except OSError:
                pass
        return t, self._meminfo.read(), cgroup, self._capture_process(pss or self.pss_every_sample)

    def _capture_process(self, pss: bool) -> ProcessCapture | None:
        tracked = self._process
        if tracked is None:
            return None
        io = pss_bytes = None
        try:
            statm = tracked.statm.read()
            try:
                io = tracked.io.read()
            except PermissionError:  # another user's process: no I/O counters, the rest still
                pass
            pss_bytes = tracked.process.memory_full_info().pss if pss else None
            stat = tracked.stat.read()  # last: if the pid is still the tracked process's, all of the above was its
        except (psutil.Error, OSError) as err:
            return ProcessCapture(tracked, None, None, None, None, err)
        return ProcessCapture(tracked, stat, statm, io, pss_bytes, None)

    def _loop(self, stopping: list[bool]) -> None:
        ticker = self._ticker
        if ticker is None:
            return super()._loop(stopping)
        while ticker.run():  # sleeps and reads without the GIL until its ring is full: one wake-up a ring
            with self._lock, ticker:
                self._take(ticker)
                self._decode_pending()

    @contextmanager
    def _held(self) -> Iterator[None]:
        ticker = self._ticker
        if ticker is None:
            yield
            return
        with ticker:
            self._take(ticker)
            yield

    def _take(self, ticker) -> None:
        """The compiled ticks' captures, added to the held ones (the lock and the ticker held)."""
        self._pending.extend(self._capture_of(t, reads) for t, reads in ticker.take())

    def _tick_files(self) -> list[int]:
        """The descriptors a compiled tick reads, in the order a Python tick reads them (-1:
        none): the cgroup's memory, meminfo, and the tracked process's statm, io and stat. A
        process file that cannot be opened is read as gone, or for io as not permitted."""
        tracked = self._process
        files = [self._cgroup_file, self._meminfo] + ([None] * 3 if tracked is None else [tracked.statm, tracked.io, tracked.stat])
        fds = []
        for file in files:
            try:
                fds.append(-1 if file is None else file.fileno())
            except OSError:
                if file is self._meminfo:
                    raise
                fds.append(-1)
        return fds

    def _capture_of(self, t: float, reads: tuple) -> tuple:
        """A compiled tick's reads (bytes, None for no file, or an errno) as `capture` returns
        them."""
        cgroup, meminfo, statm, io, stat = reads
        if not isinstance(meminfo, bytes):
            raise OSError(meminfo or errno.EBADF, os.strerror(meminfo or errno.EBADF), "/proc/meminfo")
        tracked = self._process
        process = None
        if tracked is not None:
            if io in (errno.EACCES, errno.EPERM):  # another user's process: no I/O counters, the rest still
                io = None
            failed = next((read for read in (statm, io, stat) if isinstance(read, int)), None)
            if failed is None and (statm is None or stat is None):
                failed = errno.ESRCH  # not opened: the process was gone
            process = (ProcessCapture(tracked, stat, statm, io, None, None) if failed is None
                       else ProcessCapture(tracked, None, None, None, None, OSError(failed, os.strerror(failed))))
        return t, meminfo, cgroup if isinstance(cgroup, bytes) else None, process

    def decode(self, raw: tuple) -> HostSample:
        t, meminfo, cgroup, process = raw
        return HostSample(t, parse_mem_available(meminfo), None if cgroup is None else first_int(cgroup),
                          None if process is None else self._decode_process(process))

    def _decode_process(self, captured: ProcessCapture) -> ProcessSample | None:
        pid = captured.tracked.process.pid
        try:
            if captured.error is not None:
                raise captured.error
            stat = parse_stat(captured.stat)
            if stat.start_ticks != captured.tracked.start_ticks:
                raise psutil.NoSuchProcess(pid)
            rss = parse_statm_rss(captured.statm)
            counters: tuple[int | None, ...] = (None, None, None) if captured.io is None else parse_io(captured.io)
        except (psutil.NoSuchProcess, FileNotFoundError, ProcessLookupError):  # exited, or pid reused
            self.process_error = f"process {pid} exited"
            return None
        except (psutil.Error, OSError, ValueError, KeyError, IndexError) as err:
            self.process_error = f"process {pid}: {err}"
            return None
        return ProcessSample(pid, rss, captured.pss_bytes, stat.cpu_seconds, stat.major_faults, *counters)
