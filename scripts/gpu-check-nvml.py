#!/usr/bin/env python3
"""Run the collector's real NVML path on a machine with an NVIDIA GPU and print what it read.

Nothing is installed or downloaded. For each power method (nvmlDeviceGetPowerUsage, field values
INSTANT and AVERAGE) the GPU sampler samples at --hz for --seconds while the GPU idles and, when
torch with CUDA is importable, while it multiplies matrices; then it prints the device info,
sample counts, gaps, watts/memory/clock/utilisation statistics, thermal-slowdown states, the
trapezoid energy over the loaded window and, where the GPU has one, the total-energy counter's
difference over the same window (the two energy methods side by side).

    .venv/bin/python scripts/gpu-check-nvml.py [--seconds 6] [--hz 10] [--index 0]

Exit status 0 when NVML sampled the GPU, 1 when it is unavailable (the reason is printed).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from collector.intervals import Interval  # noqa: E402
from collector.resources import resources_block  # noqa: E402
from collector.telemetry import telemetry_summary  # noqa: E402
from collector.telemetry.gpu import POWER_METHODS, GpuSampler  # noqa: E402


def gpu_load(stop: threading.Event, index: int) -> str:
    """Keep the GPU busy with matrix products until stop is set (torch + CUDA only)."""
    try:
        import torch
    except ImportError:
        return "torch not importable: idle only"
    if not torch.cuda.is_available():
        return "torch has no CUDA: idle only"

    def run():
        dev = torch.device(f"cuda:{index}")
        a = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
        while not stop.is_set():
            for _ in range(20):
                a = (a @ a).clamp_(-1, 1)
            torch.cuda.synchronize(dev)

    threading.Thread(target=run, daemon=True).start()
    return "torch matmul load"


def check(method: str, args) -> bool:
    g = GpuSampler(args.hz, args.index, method)
    info = g.open()
    print(f"\n== power method {method}: {POWER_METHODS[method]}")
    for key, value in vars(info).items():
        print(f"  {key}: {value}")
    if not info.available:
        return False
    g.start()
    time.sleep(args.seconds / 2)  # idle
    idle = Interval(g.samples()[0].t, time.monotonic())
    stop = threading.Event()
    load = gpu_load(stop, args.index)
    time.sleep(1.0)  # let the load ramp up
    t0 = time.monotonic()
    e0 = g.sample_now().energy_mj
    time.sleep(args.seconds / 2)
    e1 = g.sample_now().energy_mj
    t1 = time.monotonic()
    stop.set()
    g.stop()
    samples = g.samples()
    summary = telemetry_summary([], samples, info, "not sampled here")
    print(f"  samples: {summary['gpu_samples']}, largest gap {summary['maximum_gpu_gap_seconds']:.3f} s, read errors {g.read_errors}")
    print(f"  thermal slowdown states: {summary['thermal_slowdown_states']}")
    for label, iv in (("idle", idle), (load, Interval(t0, t1))):
        block = resources_block([iv], [], samples, info)
        print(f"  [{label}] {iv.seconds:.2f} s, {block['gpu_sample_count']} samples")
        for name, stat in block["metrics"].items():
            if name.startswith("gpu_") and stat:
                print(f"    {name}: min {stat['minimum']:.6g} median {stat['median']:.6g} mean {stat['mean']:.6g} max {stat['maximum']:.6g}")
        e = block["gpu_energy"]
        if e["available"]:
            print(f"    trapezoid energy: {e['joules']:.2f} J over {e['trapezoid_pieces']} pieces, mean {e['time_weighted_mean_watts']:.2f} W")
        else:
            print(f"    trapezoid energy unavailable: {e['reason']}")
    if e0 is not None and e1 is not None:
        print(f"  energy counter (nvmlDeviceGetTotalEnergyConsumption) over the load window: {(e1 - e0) / 1000:.2f} J")
    else:
        print("  energy counter: not available on this GPU")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description="Run the real NVML sampling path and print what it read.")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--hz", type=float, default=10.0)
    parser.add_argument("--index", type=int, default=0)
    args = parser.parse_args()
    ok = [check(method, args) for method in POWER_METHODS]
    print(f"\nnvml_sampled={all(ok)} methods_ok={sum(ok)}/{len(ok)}")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
