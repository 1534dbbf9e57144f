"""Timing of one whole scoring path per repetition, and its summary (mean, median, p95).

On CUDA the time is read from a pair of CUDA events recorded on the current stream around the
path (host-to-device copy, scoring, finite validation, device-to-host copy), after the stream is
idle, and read only after the end event has completed. On the CPU every operation is
synchronous, so `time.perf_counter_ns` around the call measures the same scope.
"""

from __future__ import annotations

import statistics
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from benchledger.records.summaries import percentile, timing_summary  # noqa: F401  (percentile is part of this module's API)

if TYPE_CHECKING:
    import torch

# MLPerf LoadGen's early-stopping rule needs at least 130 samples before it reports a p95; below
# that the p95 here is an interpolated order statistic of few samples, and is marked as such.
P95_MINIMUM_SAMPLES = 130


class Clock(ABC):
    """Times one call of a scoring path, in milliseconds."""

    name: str

    @abstractmethod
    def time_ms(self, call: Callable[[], None]) -> float:
        """Run `call` once and return how long its work took; its results are ready on return."""


class PerfCounterClock(Clock):
    """Host wall clock around a synchronous (CPU) call."""

    name = "time.perf_counter_ns"

    def time_ms(self, call: Callable[[], None]) -> float:
        start = time.perf_counter_ns()
        call()
        return (time.perf_counter_ns() - start) / 1e6


class CudaEventClock(Clock):
    """CUDA events around the work `call` enqueues on the current stream."""

    name = "torch.cuda.Event(enable_timing=True)"

    def __init__(self, device: "torch.device"):
        import torch

        self._torch = torch
        self._device = device
        self._start = torch.cuda.Event(enable_timing=True)
        self._end = torch.cuda.Event(enable_timing=True)

    def time_ms(self, call: Callable[[], None]) -> float:
        cuda = self._torch.cuda
        cuda.synchronize(self._device)  # nothing earlier may overlap the timed window
        stream = cuda.current_stream(self._device)
        self._start.record(stream)
        call()
        self._end.record(stream)
        self._end.synchronize()  # the device-to-host copy has landed; the events are complete
        return self._start.elapsed_time(self._end)


@dataclass(frozen=True)
class PathTiming:
    """The milliseconds of every repetition of one path."""

    samples_ms: tuple[float, ...]

    @property
    def p95_few_samples(self) -> bool:
        """True when the p95 rests on fewer than P95_MINIMUM_SAMPLES repetitions."""
        return len(self.samples_ms) < P95_MINIMUM_SAMPLES

    @property
    def mean_ms(self) -> float:
        return statistics.fmean(self.samples_ms)

    def as_record(self) -> dict[str, Any]:
        """The seed's `timing.eager` / `timing.graph` shape, with every repetition's time in
        `samples_ms` (in order) so that comparisons can estimate intervals from them."""
        return {**timing_summary(self.samples_ms), "samples_ms": list(self.samples_ms)}


def mean_speedup(eager: PathTiming, graph: PathTiming | None) -> float | None:
    """eager mean / graph mean; None when no graph was timed (never a speedup not measured)."""
    if graph is None or not graph.samples_ms or graph.mean_ms <= 0:
        return None
    return eager.mean_ms / graph.mean_ms
