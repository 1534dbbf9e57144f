"""Host and process sampling from /proc and cgroup files (psutil's sources, read directly for a
third of psutil's cost): MemAvailable, the cgroup's memory (v2 `memory.current` or v1
`memory.usage_in_bytes`), and for the tracked process RSS, CPU seconds and major faults
(/proc/PID/stat), I/O counters (/proc/PID/io: rchar, read_bytes, write_bytes) and PSS
(/proc/PID/smaps_rollup, what psutil's memory_full_info reads: slow on huge mappings, so
`pss_every_sample=False` reads it only at phase boundaries)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from collector.phases import CpuSnapshot
from collector.telemetry.sampler import PeriodicSampler


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


@dataclass(frozen=True)
class CgroupMemory:
    """Where the cgroup memory figure comes from (v2 or v1), or why there is none."""

    path: Path | None
    source: str  # "cgroup_v2:memory.current", "cgroup_v1:memory.usage_in_bytes" or "unavailable"
    reason: str | None

    def read(self) -> int | None:
        if self.path is None:
            return None
        try:
            return int(self.path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


def find_cgroup_memory(pid: int | None = None, proc: Path = Path("/proc")) -> CgroupMemory:
    """Locate the memory-usage file of the cgroup of `pid` (default: this process) through
    /proc/PID/cgroup and /proc/PID/mountinfo; cgroup v2 first, then v1."""
    pid = pid or os.getpid()
    try:
        groups = (proc / str(pid) / "cgroup").read_text().splitlines()
        mounts = (proc / str(pid) / "mountinfo").read_text().splitlines()
    except OSError as err:
        return CgroupMemory(None, "unavailable", f"cannot read cgroup of pid {pid}: {err.strerror}")
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


PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _kib_field(text: bytes, name: bytes) -> int | None:
    """`Name:   123 kB` from a /proc key-value file, in bytes."""
    i = text.find(b"\n" + name + b":")
    if i < 0 and not text.startswith(name + b":"):
        return None
    i = text.find(b":", max(i, 0)) + 1
    return int(text[i : text.index(b"kB", i)]) * 1024


@dataclass(frozen=True, slots=True)
class ProcStat:
    """The fields of one read of /proc/PID/stat (numbered as in proc(5))."""

    rss_bytes: int  # field 24, pages
    cpu_seconds: float  # fields 14 + 15, utime + stime in clock ticks
    major_faults: int  # field 12
    start_ticks: int  # field 22: with the pid, identifies the process (pids are reused)


def read_stat(pid: int) -> ProcStat:
    stat = _read(f"/proc/{pid}/stat")
    rest = stat[stat.rfind(b")") + 2 :].split()  # fields after "(comm)": rest[0] is field 3
    return ProcStat(int(rest[21]) * PAGE_BYTES, (int(rest[11]) + int(rest[12])) / CLOCK_TICKS, int(rest[9]), int(rest[19]))


def read_major_faults(pid: int) -> int | None:
    """majflt, field 12 of /proc/PID/stat."""
    try:
        return read_stat(pid).major_faults
    except OSError:
        return None


class HostSampler(PeriodicSampler[HostSample]):
    thread_name = "host-sampler"

    def __init__(self, hz: float, clock=time.monotonic, cgroup: CgroupMemory | None = None, pss_every_sample: bool = True):
        super().__init__(hz, clock)
        self.pss_every_sample = pss_every_sample
        self.cgroup = cgroup if cgroup is not None else find_cgroup_memory()
        self._process: tuple[int, int] | None = None  # (pid, start_ticks), replaced atomically
        self.process_error: str | None = None  # why process samples stopped, if they did

    def track_process(self, pid: int | None) -> None:
        """Sample this process from now on (None: stop tracking)."""
        if pid is not None:
            try:
                start = read_stat(pid).start_ticks
            except OSError:
                raise ProcessLookupError(f"no process {pid} to track") from None
        self._process = (pid, start) if pid is not None else None
        self.process_error = None

    def sample_with_pss(self) -> HostSample | None:
        """An immediate sample that also reads PSS (smaps_rollup): for phase boundaries."""
        return self.sample_now(pss=True)

    def cpu_snapshot(self) -> CpuSnapshot | None:
        """CPU seconds of the tracked process now (None when no live process is tracked)."""
        proc = self._process
        if proc is None:
            return None
        try:
            t = self.clock()
            stat = read_stat(proc[0])
        except OSError:
            return None
        return CpuSnapshot(t, stat.cpu_seconds) if stat.start_ticks == proc[1] else None

    def read(self, t: float, pss: bool = False) -> HostSample:
        return HostSample(t, _kib_field(_read("/proc/meminfo"), b"MemAvailable"), self.cgroup.read(), self._read_process(pss or self.pss_every_sample))

    def _read_process(self, pss: bool) -> ProcessSample | None:
        """Reads /proc directly (the files psutil reads, at about a third of its cost, which
        keeps 10 Hz sampling under 0.5% of a core; see bench/sampler.py)."""
        proc = self._process
        if proc is None:
            return None
        pid, start_ticks = proc
        try:
            stat = read_stat(pid)
            if stat.start_ticks != start_ticks:  # the pid now belongs to another process
                raise ProcessLookupError
            try:
                io = _read(f"/proc/{pid}/io")
                fields = dict(line.split(b": ", 1) for line in io.splitlines())
                counters = [int(fields[k]) if k in fields else None for k in (b"rchar", b"read_bytes", b"write_bytes")]
            except PermissionError:
                counters = [None, None, None]
            pss_bytes = _kib_field(_read(f"/proc/{pid}/smaps_rollup"), b"Pss") if pss else None
        except (FileNotFoundError, ProcessLookupError):
            self.process_error = f"process {pid} exited"
            return None
        except OSError as err:
            self.process_error = f"process {pid}: {err.strerror}"
            return None
        return ProcessSample(pid, stat.rss_bytes, pss_bytes, stat.cpu_seconds, stat.major_faults, *counters)
