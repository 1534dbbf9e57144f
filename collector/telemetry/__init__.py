"""Telemetry of one case: a host/process sampler and a GPU sampler running in background
threads on the monotonic clock, plus the case-level `telemetry` summary of the seed (sample
counts, largest gaps, thermal-slowdown state counts)."""

from __future__ import annotations

import time
from typing import Any

from collector.phases import CpuSnapshot
from collector.telemetry.gpu import GpuInfo, GpuSample, GpuSampler
from collector.telemetry.host import HostSample, HostSampler, ProcessSample

TELEMETRY_MEANING = "Sampled observations; no numeric temperatures published and no warranty between samples."

__all__ = ["Telemetry", "GpuInfo", "GpuSample", "HostSample", "ProcessSample", "TELEMETRY_MEANING"]


class Telemetry:
    """Both samplers together. `nvml` is the pynvml module or a test double (see gpu.py)."""

    def __init__(self, host_hz: float = 10.0, gpu_hz: float = 10.0, gpu_index: int = 0, gpu_power: str = "power_usage", nvml: Any = None, clock=time.monotonic, pss_every_sample: bool = True):
        self.host = HostSampler(host_hz, clock, pss_every_sample=pss_every_sample)
        self.gpu = GpuSampler(gpu_hz, gpu_index, gpu_power, nvml=nvml, clock=clock)

    @property
    def gpu_info(self) -> GpuInfo:
        """What the GPU sampler found when it opened NVML (or why there is no GPU)."""
        return self.gpu.info

    def start(self) -> None:
        self.gpu.open()
        self.gpu.start()
        self.host.start()

    def stop(self) -> None:
        self.host.stop()
        self.gpu.stop()

    def track_process(self, pid: int | None) -> None:
        self.host.track_process(pid)

    def boundary(self) -> None:
        """Immediate samples at a phase boundary: host + process with PSS, and the GPU."""
        self.host.sample_with_pss()
        self.gpu.sample_now()

    def window_edge(self) -> None:
        """An immediate host/process sample at a request-window edge (counter endpoints)."""
        self.host.sample_now()

    def cpu_snapshot(self) -> CpuSnapshot | None:
        return self.host.cpu_snapshot()

    def host_samples(self) -> list[HostSample]:
        return self.host.samples()

    def gpu_samples(self) -> list[GpuSample]:
        return self.gpu.samples()


def max_gap_seconds(times: list[float]) -> float | None:
    """Largest time between consecutive samples (None with fewer than two samples)."""
    return max((b - a for a, b in zip(times, times[1:])), default=None)


def telemetry_summary(host: list[HostSample], gpu: list[GpuSample], gpu_info: GpuInfo, cgroup_source: str) -> dict[str, Any]:
    """The seed's case `telemetry` block, plus `gpu` (availability, reason, NVML methods) and
    `host` (cgroup memory source) so an unavailable figure always says why."""
    states = {
        "hardware": {"active": 0, "not_active": 0, "unavailable": 0},
        "software": {"active": 0, "not_active": 0, "unavailable": 0},
    }
    observed = 0
    for s in gpu:
        states["hardware"][s.thermal_hardware] += 1
        states["software"][s.thermal_software] += 1
        observed += s.thermal_hardware == "active" or s.thermal_software == "active"
    fully = bool(gpu) and states["hardware"]["unavailable"] == 0 and states["software"]["unavailable"] == 0
    return {
        "gpu_samples": len(gpu),
        "host_samples": len(host),
        "maximum_gpu_gap_seconds": max_gap_seconds([s.t for s in gpu]),
        "maximum_host_gap_seconds": max_gap_seconds([s.t for s in host]),
        "meaning": TELEMETRY_MEANING,
        "thermal_slowdown_fully_available": fully,
        "thermal_slowdown_observed_samples": observed,
        "thermal_slowdown_states": states,
        "gpu": {
            "available": gpu_info.available,
            "reason": gpu_info.reason,
            "name": gpu_info.name,
            "power_method": gpu_info.power_method,
            "memory_info_version": gpu_info.memory_info_version,
            "energy_counter": gpu_info.energy_counter,
            "thermal_method": gpu_info.thermal_method,
            "uuid": gpu_info.uuid,
            "pci_bus_id": gpu_info.pci_bus_id,
            "mig_mode": gpu_info.mig_mode,
            "cuda_visible_devices": gpu_info.cuda_visible_devices,
            "unavailable_metrics": dict(sorted(gpu_info.unavailable_metrics.items())),
        },
        "cgroup_memory_source": cgroup_source,
    }
