"""The seed's `resources` block for a union of declared intervals: sample statistics per
metric, sample counts per source, counter deltas and GPU energy."""

from __future__ import annotations

from typing import Any, Sequence

from collector.energy import counter_energy_joules, trapezoid_energy, unavailable
from collector.intervals import Interval, union_seconds
from collector.statistics import counter_deltas, samples_in, summarize
from collector.telemetry import GpuInfo, GpuSample, HostSample

RESOURCES_MEANING = (
    "Samples inside declared interval union. Means are arithmetic sample means; peaks need not coincide. "
    "Counter deltas exclude unsampled edges; not minimum required RAM."
)
GPU_METRICS = {
    "gpu_board_watts": "board_watts",
    "gpu_memory_used_bytes": "memory_used_bytes",
    "gpu_sm_clock_mhz": "sm_clock_mhz",
    "gpu_utilization_percent": "utilization_percent",
}


def resources_block(intervals: Sequence[Interval], host: Sequence[HostSample], gpu: Sequence[GpuSample], gpu_info: GpuInfo, pss_every_sample: bool = True) -> dict[str, Any]:
    """Resources over the union of `intervals` (samples sorted by time). Metrics with no sample
    inside are null; GPU energy is unavailable with a reason when the GPU was not sampled. When
    PSS was read only at phase boundaries (pss_mode "boundaries"), metrics.process_pss_bytes is
    null and those readings are summarised beside the metrics as boundary_pss_bytes, with their
    own sample_count (a metric's count always equals its source's sample count)."""
    h = samples_in(host, intervals)
    g = samples_in(gpu, intervals)
    procs = [s.process for s in h if s.process is not None]

    def stat(values):
        return summarize([v for v in values if v is not None])

    metrics = {
        "cgroup_memory_current_bytes": stat(s.cgroup_memory_current_bytes for s in h),
        "host_mem_available_bytes": stat(s.mem_available_bytes for s in h),
        "process_pss_bytes": stat(p.pss_bytes for p in procs),
        "process_rss_bytes": stat(p.rss_bytes for p in procs),
    }
    boundary_pss = None
    if not pss_every_sample:
        boundary_pss, metrics["process_pss_bytes"] = metrics["process_pss_bytes"], None
    for key, attr in GPU_METRICS.items():
        metrics[key] = stat(getattr(s, attr) for s in g)
    if not gpu_info.available:
        energy = unavailable(gpu_info.reason_code or "no_gpu")
    elif "board_watts" in gpu_info.unavailable_metrics:  # the GPU is there but gives no power
        energy = unavailable("power_not_supported")
    else:
        powered = [s for s in gpu if s.board_watts is not None]
        energy = trapezoid_energy([s.t for s in powered], [s.board_watts for s in powered], intervals)
        if energy["available"]:  # which NVML reading each energy figure comes from
            energy["power_method"] = gpu_info.power_method
            counted = [s for s in gpu if s.energy_mj is not None]
            joules = counter_energy_joules([s.t for s in counted], [s.energy_mj for s in counted], intervals) if gpu_info.energy_counter else None
            energy["energy_counter"] = None if joules is None else {"joules": joules, "method": gpu_info.energy_counter}
    block = {
        "gpu_energy": energy,
        "gpu_sample_count": len(g),
        "host_sample_count": len(h),
        "meaning": RESOURCES_MEANING,
        "metrics": dict(sorted(metrics.items())),
        "process_sample_count": len(procs),
        "response_union_seconds": union_seconds(intervals),
        "sampled_counter_deltas": counter_deltas(host, intervals),
    }
    if not pss_every_sample:
        block["boundary_pss_bytes"] = boundary_pss
    return block
