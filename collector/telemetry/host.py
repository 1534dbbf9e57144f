"""Host and process sampling through psutil, /proc and cgroup files: memory available, the
cgroup's memory (v2 `memory.current` or v1 `memory.usage_in_bytes`), and for the tracked process
RSS, CPU seconds, major faults (/proc/PID/stat field 12) and I/O counters. PSS comes from
`memory_full_info` (reads smaps_rollup, slow on huge mappings), so only on request, at phase
boundaries."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

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


def read_major_faults(pid: int) -> int | None:
    """majflt, field 12 of /proc/PID/stat (counted after the parenthesised command name)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    rest = stat[stat.rfind(b")") + 2 :].split()
    return int(rest[9])  # fields 3.. follow ")"; field 12 is index 12 - 3


class HostSampler(PeriodicSampler[HostSample]):
    thread_name = "host-sampler"

    def __init__(self, hz: float, clock=time.monotonic, cgroup: CgroupMemory | None = None, pss_every_sample: bool = True):
        super().__init__(hz, clock)
        self.pss_every_sample = pss_every_sample
        self.cgroup = cgroup if cgroup is not None else find_cgroup_memory()
        self._process: psutil.Process | None = None
        self._process_lock = threading.Lock()
        self.process_error: str | None = None  # why process samples stopped, if they did
        self._want_pss = False

    def track_process(self, pid: int | None) -> None:
        """Sample this process from now on (None: stop tracking)."""
        with self._process_lock:
            self._process = psutil.Process(pid) if pid is not None else None
            self.process_error = None

    @property
    def tracked_pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def sample_with_pss(self) -> HostSample | None:
        """An immediate sample that also reads PSS (memory_full_info): for phase boundaries."""
        self._want_pss = True
        try:
            return self.sample_now()
        finally:
            self._want_pss = False

    def cpu_snapshot(self) -> CpuSnapshot | None:
        """CPU seconds of the tracked process now (None when no live process is tracked)."""
        proc = self._process
        if proc is None:
            return None
        try:
            t = self.clock()
            ct = proc.cpu_times()
        except psutil.Error:
            return None
        return CpuSnapshot(t, ct.user + ct.system)

    def read(self, t: float) -> HostSample:
        return HostSample(t, psutil.virtual_memory().available, self.cgroup.read(), self._read_process())

    def _read_process(self) -> ProcessSample | None:
        with self._process_lock:
            proc = self._process
        if proc is None:
            return None
        try:
            with proc.oneshot():
                rss = proc.memory_info().rss
                ct = proc.cpu_times()
                try:
                    io = proc.io_counters()
                except (psutil.AccessDenied, AttributeError):
                    io = None
                pss = getattr(proc.memory_full_info(), "pss", None) if self._want_pss or self.pss_every_sample else None
            majflt = read_major_faults(proc.pid)
        except psutil.NoSuchProcess:
            self.process_error = f"process {proc.pid} exited"
            return None
        except psutil.Error as err:
            self.process_error = f"process {proc.pid}: {type(err).__name__}"
            return None
        return ProcessSample(
            pid=proc.pid,
            rss_bytes=rss,
            pss_bytes=pss,
            cpu_seconds=ct.user + ct.system,
            major_faults=majflt,
            read_syscall_bytes=getattr(io, "read_chars", None),
            storage_read_bytes=getattr(io, "read_bytes", None),
            storage_write_bytes=getattr(io, "write_bytes", None),
        )
