"""What a measuring module gets from the core while it runs.

`CaseSession` (one per case, passed to `run_case`): telemetry already sampling, the phase
timeline, a per-case run directory for logs, progress, and the summary helpers that turn samples
into the seed's blocks. `RunSession` (passed to `assemble`): plan, run directory, times,
hardware/environment provenance and file hashing."""

from __future__ import annotations

import ctypes
import json
import signal
import subprocess
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence
from zoneinfo import ZoneInfo

import psutil

from benchledger.errors import CollectError, os_reason
from collector import provenance
from collector.intervals import Interval, outer_span_seconds, union_seconds
from collector.phases import Timeline, Window
from collector.plan import CaseSpec, Plan
from collector.progress import Progress
from collector.resources import resources_block
from collector.statistics import cpu_snapshot_intervals
from collector.telemetry import GpuInfo, Telemetry, telemetry_summary

RAW_FILE = "telemetry.json"
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: ask Linux for SIGKILL when the parent dies (prctl)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: nothing to ask for
        pass


class WindowHandle:
    """Yielded by `CaseSession.window`; `fail()` marks the request failed, `.window` is set on exit."""

    def __init__(self) -> None:
        self.completed = True
        self.window: Window | None = None

    def fail(self) -> None:
        self.completed = False


class CaseSession:
    """One case's measuring context. Sampling runs from construction + start() until stop();
    the summary helpers (resources, resources_by_phase, response_group, telemetry,
    cpu_snapshot_intervals, case_wall_seconds) stop it on first use, so call them after the last phase: entering a phase
    or window afterwards raises RuntimeError rather than silently measuring nothing."""

    def __init__(self, plan: Plan, case: CaseSpec, run_dir: Path, progress: Progress, nvml: Any = None, clock=time.monotonic,
                 ran_here: bool = True):
        self.plan = plan
        self.case = case
        # False for the failed result a Ray driver makes when the case's worker returned none (a
        # timeout, spent retries): the case ran elsewhere, so nothing this machine could measure
        # or inspect (its binary, its telemetry, a few microseconds of wall time) describes it
        self.ran_here = ran_here
        self.run_dir = run_dir  # per-case directory for logs and artifacts; created here
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.progress = progress
        self.clock = clock
        s = case.settings
        self.telemetry = Telemetry(s.host_sample_hz, s.gpu_sample_hz, s.gpu_index, s.gpu_power_method, nvml=nvml, clock=clock, pss_every_sample=s.pss_mode == "every_sample")
        self.timeline = Timeline()
        self.logical_cpus = psutil.cpu_count(logical=True) or 1
        self._started: float | None = None
        self._stopped: float | None = None
        self._children: list[subprocess.Popen] = []

    # -- lifecycle (the runner calls start/stop; modules normally do not) --

    def start(self) -> None:
        self.telemetry.start()
        self._started = self.clock()

    def stop(self) -> None:
        """Stop sampling (idempotent); takes a last sample so the last interval is bracketed.
        The raw samples and the timeline are kept in the run directory (RAW_FILE) for audit."""
        if self._stopped is None:
            self._stopped = self.clock()
            self.telemetry.stop()
            self.write_raw()
            for child in self._children:
                if child.poll() is None:
                    child.kill()
                    child.wait()

    def write_raw(self) -> None:
        """Every sample, phase and window of the case as JSON (monotonic seconds)."""
        raw = {
            "gpu_info": asdict(self.gpu_info),
            "gpu_samples": [asdict(s) for s in self.telemetry.gpu_samples()],
            "host_samples": [asdict(s) for s in self.telemetry.host_samples()],
            "phases": [{"name": n, "start": iv.start, "end": iv.end} for n, iv in self.timeline.phases],
            "windows": [asdict(w) for w in self.timeline.windows],
        }
        (self.run_dir / RAW_FILE).write_text(json.dumps(raw, allow_nan=False, default=str))

    @property
    def gpu_info(self) -> GpuInfo:
        return self.telemetry.gpu_info

    def log_path(self, name: str) -> Path:
        """A file in the case's run directory (e.g. the server log)."""
        return self.run_dir / name

    def popen(self, args: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        """subprocess.Popen for the case's workload (a server, a child): on Linux the child gets
        SIGKILL when the collector dies, even by kill -9, so no orphan outlives a killed run;
        and it is killed when the case ends if the module left it running. Call it from the
        thread that runs the case (the death signal follows the thread that started it)."""
        proc = subprocess.Popen(args, preexec_fn=_die_with_parent, **kwargs)
        self._children.append(proc)
        return proc

    def track_process(self, pid: int | None) -> None:
        """Sample this process (RSS, PSS at boundaries, CPU, faults, I/O) from now on; e.g. the
        server the module started, or os.getpid() for in-process workloads. A first sample
        (with PSS) is taken at once, so counters start from the process's beginning."""
        self.telemetry.track_process(pid)
        if pid is not None:
            self.telemetry.host.sample_with_pss()

    # -- declaring intervals --

    def _check_running(self) -> None:
        if self._started is None or self._stopped is not None:
            raise RuntimeError("sampling is not running: declare phases and windows before computing resources")

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Declare a phase (baseline, load, ready, warmup, responses, cleanup) around the body.
        Immediate samples (with PSS and GPU) are taken just inside both ends. The interval is
        recorded even when the body raises."""
        self._check_running()
        self.progress.phase(name)
        start = self.clock()
        self.telemetry.boundary()
        try:
            yield
        finally:
            self.telemetry.boundary()
            self.timeline.add_phase(name, Interval(start, self.clock()))

    @contextmanager
    def window(self, kind: str = "measured", group: Any = None, round: int | None = None) -> Iterator[WindowHandle]:
        """Declare one request window. CPU snapshots are taken just outside it (for
        cpu_snapshot_intervals) and host/process samples just inside (counter endpoints). If
        the body raises or calls handle.fail(), the window is recorded as not completed."""
        self._check_running()
        handle = WindowHandle()
        before = self.telemetry.cpu_snapshot()
        start = self.clock()
        self.telemetry.window_edge()
        try:
            yield handle
        except BaseException:
            handle.completed = False
            raise
        finally:
            self.telemetry.window_edge()
            end = self.clock()
            handle.window = Window(kind, group, round, Interval(start, end), before, self.telemetry.cpu_snapshot(), handle.completed)
            self.timeline.windows.append(handle.window)

    def windows(self, kind: str | None = None, group: Any = None, completed: bool | None = True) -> list[Window]:
        """Recorded windows (by default only completed ones)."""
        return self.timeline.select(kind, group, completed)

    # -- summaries in the seed's shapes --

    def resources(self, spans: Sequence[Interval | Window]) -> dict[str, Any]:
        """The seed's resources block over the union of these intervals or windows."""
        self.stop()
        intervals = [s.interval if isinstance(s, Window) else s for s in spans]
        return resources_block(intervals, self.telemetry.host_samples(), self.telemetry.gpu_samples(), self.gpu_info, self.telemetry.host.pss_every_sample)

    def resources_by_phase(self) -> dict[str, Any]:
        """{phase: resources block} for every phase that occurred."""
        return {name: self.resources(self.timeline.phase_intervals(name)) for name in self.timeline.phase_names()}

    def cpu_snapshot_intervals(self, windows: Sequence[Window]) -> dict[str, Any]:
        """The seed's cpu_snapshot_intervals block over these windows."""
        return cpu_snapshot_intervals(windows, self.logical_cpus)

    def response_group(self, windows: Sequence[Window], output_tokens: int) -> dict[str, Any]:
        """The parts of a seed `groups[]` entry that come from its completed measured windows and
        the tokens they produced: resources, CPU snapshots, union and outer span of the windows,
        and aggregate output tokens/s over that union (null when the union is empty)."""
        union_s = union_seconds(w.interval for w in windows)
        return {
            "aggregate_output_tokens_per_second": output_tokens / union_s if union_s > 0 else None,
            "completed_output_tokens": output_tokens,
            "cpu_snapshot_intervals": self.cpu_snapshot_intervals(windows),
            "resources": self.resources(windows),
            "response_outer_span_seconds": outer_span_seconds(w.interval for w in windows),
            "response_window_union_seconds": union_s,
        }

    def telemetry_summary(self) -> dict[str, Any]:
        """The seed's case `telemetry` block (with GPU availability and reason)."""
        self.stop()
        return telemetry_summary(self.telemetry.host_samples(), self.telemetry.gpu_samples(), self.gpu_info, self.telemetry.host.cgroup.source)

    def case_wall_seconds(self) -> float:
        """From the start of sampling to stop (or now)."""
        assert self._started is not None
        return (self._stopped if self._stopped is not None else self.clock()) - self._started


@dataclass
class RunSession:
    """What `assemble` gets: the plan, where the run lives, when it ran, and provenance."""

    plan: Plan
    run_dir: Path
    started_at: datetime  # UTC
    finished_at: datetime  # UTC
    gpu_info: GpuInfo

    @property
    def tested_at(self) -> str:
        """The date of the run's start in the plan's time zone (YYYY-MM-DD)."""
        return self.started_at.astimezone(ZoneInfo(self.plan.timezone)).date().isoformat()

    def hardware(self) -> dict[str, Any]:
        return provenance.hardware(self.gpu_info)

    def environment(self) -> dict[str, Any]:
        return provenance.environment(self.gpu_info)

    def file_sha256(self, path: str | Path) -> provenance.FileDigest:
        """Streamed sha256 and size of a file (model, binary...). A file gone or unreadable
        since the plan was checked is a CollectError; the case results stay for a re-run."""
        try:
            return provenance.sha256_file(path)
        except OSError as err:
            raise CollectError(f"{path}: cannot read it for its sha256 ({os_reason(err)}); restore it and run the plan again (completed cases are kept)") from None

    def sources(self) -> dict[str, Any]:
        """The core's part of a `sources` entry: plan hash and id, collector hash, times."""
        return {
            "finished_at": self.finished_at.isoformat(),
            "plan_id": f"{self.plan.article_key}-{self.started_at.strftime('%Y%m%dt%H%M%S')}-{self.plan.sha256[:8]}",
            "plan_sha256": self.plan.sha256,
            "runner_sha256": provenance.collector_sha256(),
            "started_at": self.started_at.isoformat(),
        }

    def article_fields(self, case_results: list[dict[str, Any]]) -> dict[str, Any]:
        """The article-level fields every record of the gsh-llm-core-article kind shares: key,
        status (completed / partial / failed from the cases), dates, comparisons, machine and
        sources. A module adds cases, models, runtime, protocol, limitations and schema."""
        statuses = {c.get("status") for c in case_results}
        status = "completed" if statuses == {"completed"} else ("partial" if "completed" in statuses else "failed")
        return {
            "article_key": self.plan.article_key,
            "comparisons": [{"axis": c.axis, "cases": list(c.cases)} for c in self.plan.comparisons],
            "environment": self.environment(),
            "hardware": self.hardware(),
            "historical_results_pooled": False,
            "sources": [self.sources()],
            "status": status,
            "test_date_timezone": self.plan.timezone,
            "tested_at": self.tested_at,
        }

    def models(self) -> list[dict[str, Any]]:
        """The plan's models used by its cases: metadata (its name defaults to the model id)
        plus streamed file hashes and sizes."""
        used = {c.model.id for c in self.plan.cases if c.model is not None}
        out = []
        for mid in sorted(used):
            spec = self.plan.models[mid]
            files = [self.file_sha256(p) for p in spec.files]
            out.append({"name": mid, **spec.metadata, "id": mid, "files": [{"bytes": d.size_bytes, "name": d.path.name, "sha256": d.sha256} for d in files]})
        return out


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
