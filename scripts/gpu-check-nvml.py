#!/usr/bin/env python3
"""Run the collector's real NVML path on a machine with an NVIDIA GPU and print what it read.

Nothing is installed or downloaded. Needs the repository (this script imports collector/ from it),
pynvml (the nvidia-ml-py distribution) and psutil; torch with CUDA is optional (it loads the GPU).
Without pynvml or psutil it says so in one line and exits 2.

First it prints the device as NVML opened it (name, UUID, PCI bus id, driver, MIG mode,
CUDA_VISIBLE_DEVICES: NVML's index ignores CUDA's ordering), the metrics this GPU does not
support and why, and the raw answers of the calls the test double imitates (return types, field
value valueType/nvmlReturn), so a difference from tests/collector/fake_pynvml.py shows at once.
Then, for each power method (nvmlDeviceGetPowerUsage, field values INSTANT and AVERAGE), the GPU
sampler samples at --hz while the GPU idles and while torch multiplies matrices on it, and one
table row per method gives sample counts, gaps, read errors, idle and loaded watts, the trapezoid
energy of the loaded window beside the total-energy counter's rise over the same window, memory,
SM clock, utilisation and thermal-slowdown samples.

    python3 scripts/gpu-check-nvml.py [--seconds 6] [--hz 10] [--index 0]

Runtime is bounded: about 3 x (--seconds + 1) s plus torch start-up (18 s plus a few by default),
and a watchdog ends the run (exit 3) after 3 x (--seconds + 20) + 60 s, e.g. if an NVML call hangs. Exit status 0 when
NVML opened the GPU and every supported metric was read in every sample; 1 when the GPU is
unavailable (the reason is printed) or a read failed; 2 when a module is missing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import sys
import threading
import time
from pathlib import Path

NEEDED = {"pynvml": "nvidia-ml-py", "psutil": "psutil"}  # import name -> distribution


def missing_modules() -> list[str]:
    return [f"{mod} (pip: {dist})" for mod, dist in NEEDED.items() if importlib.util.find_spec(mod) is None]


class GpuLoad:
    """Matrix products on the GPU NVML samples, in a thread, until stop() (torch + CUDA only)."""

    def __init__(self, uuid: str | None, index: int):
        self.note = "idle only"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            import torch
        except ImportError:
            self.note = "torch not importable: idle only"
            return
        if not torch.cuda.is_available():
            self.note = "torch has no CUDA: idle only"
            return
        self.torch = torch
        self.device = self._cuda_device(uuid, index)

    def _cuda_device(self, uuid: str | None, index: int) -> str:
        """The CUDA device with NVML's UUID (CUDA's numbering differs from NVML's)."""
        torch = self.torch
        for i in range(torch.cuda.device_count()):
            cuda_uuid = getattr(torch.cuda.get_device_properties(i), "uuid", None)
            if uuid and cuda_uuid is not None and uuid.removeprefix("GPU-") == str(cuda_uuid):
                self.note = f"torch matmul load on cuda:{i} (UUID matches NVML)"
                return f"cuda:{i}"
        self.note = f"torch matmul load on cuda:{index} (UUID not matched: may not be NVML's GPU {index})"
        return f"cuda:{index}"

    @property
    def active(self) -> bool:
        return hasattr(self, "torch")

    def start(self) -> None:
        if not self.active:
            return
        torch, dev = self.torch, self.device

        def run():
            a = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
            while not self._stop.is_set():
                for _ in range(10):
                    a = (a @ a).clamp_(-1, 1)
                torch.cuda.synchronize(dev)

        self._stop.clear()
        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop and wait, so the next method's idle window is idle."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
            self._thread = None


def raw_answers(nvml, index: int) -> list[str]:
    """What the calls the double imitates return on this GPU (types and shapes)."""
    lines = []

    def show(label, fn):
        try:
            value = fn()
            lines.append(f"  {label}: {type(value).__name__} {value}")
        except Exception as err:  # noqa: BLE001 - the point is to print whatever NVML answers
            lines.append(f"  {label}: raises {type(err).__name__}: {err}")

    nvml.nvmlInit()
    try:
        h = nvml.nvmlDeviceGetHandleByIndex(index)
        show("nvmlDeviceGetPowerUsage (mW)", lambda: nvml.nvmlDeviceGetPowerUsage(h))
        for name in ("NVML_FI_DEV_POWER_INSTANT", "NVML_FI_DEV_POWER_AVERAGE"):
            def field(name=name):
                v = nvml.nvmlDeviceGetFieldValues(h, [getattr(nvml, name)])[0]
                return f"fieldId={v.fieldId} scopeId={v.scopeId} valueType={v.valueType} nvmlReturn={v.nvmlReturn} uiVal={v.value.uiVal} dVal={v.value.dVal}"
            show(f"nvmlDeviceGetFieldValues({name})", field)
        show("nvmlDeviceGetMemoryInfo v1", lambda: nvml.nvmlDeviceGetMemoryInfo(h))
        show("nvmlDeviceGetMemoryInfo v2", lambda: nvml.nvmlDeviceGetMemoryInfo(h, version=nvml.nvmlMemory_v2))
        show("nvmlDeviceGetUtilizationRates", lambda: nvml.nvmlDeviceGetUtilizationRates(h))
        show("nvmlDeviceGetClockInfo(SM) (MHz)", lambda: nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM))
        show("nvmlDeviceGetCurrentClocksEventReasons", lambda: hex(nvml.nvmlDeviceGetCurrentClocksEventReasons(h)))
        show("nvmlDeviceGetTotalEnergyConsumption (mJ)", lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(h))
        show("nvmlDeviceGetMigMode", lambda: nvml.nvmlDeviceGetMigMode(h))
    finally:
        nvml.nvmlShutdown()
    return lines


def binding_version() -> str:
    try:
        return importlib.metadata.version("nvidia-ml-py")
    except importlib.metadata.PackageNotFoundError:
        return "not installed as a distribution"


def fmt(value, spec: str = ".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def measure(method: str, args, nvml, load: GpuLoad):
    """Sample idle then loaded with one power method; the table row's figures."""
    from collector.intervals import Interval
    from collector.resources import resources_block
    from collector.telemetry.gpu import GpuSampler

    g = GpuSampler(args.hz, args.index, method, nvml=nvml)
    info = g.open()
    if not info.available:
        return info, None
    g.start()
    time.sleep(args.seconds / 2)
    idle = Interval(g.samples()[0].t, time.monotonic())
    load.start()
    if load.active:
        time.sleep(1.0)  # let the load ramp up
    t0 = time.monotonic()
    e0 = g.sample_now().energy_mj
    time.sleep(args.seconds / 2)
    e1 = g.sample_now().energy_mj
    t1 = time.monotonic()
    load.stop()
    g.stop()
    samples = g.samples()
    idle_block = resources_block([idle], [], samples, info)
    busy = resources_block([Interval(t0, t1)], [], samples, info)

    def median(block, name, scale=1.0):
        stat = block["metrics"][name]
        return None if stat is None else stat["median"] / scale

    energy = busy["gpu_energy"]
    counter_j = None if e0 is None or e1 is None else (e1 - e0) / 1000.0
    gaps = [b.t - a.t for a, b in zip(samples, samples[1:])]
    row = {
        "samples": len(samples),
        "max_gap_s": max(gaps, default=None),
        "read_errors": g.read_errors,
        "idle_w": median(idle_block, "gpu_board_watts"),
        "load_w": median(busy, "gpu_board_watts"),
        "trapezoid_j": energy["joules"] if energy["available"] else None,
        "counter_j": counter_j,
        "mem_gib": median(busy, "gpu_memory_used_bytes", 2**30),
        "sm_mhz": median(busy, "gpu_sm_clock_mhz"),
        "util": median(busy, "gpu_utilization_percent"),
        "thermal": f"{sum(s.thermal_hardware == 'active' for s in samples)}/{sum(s.thermal_software == 'active' for s in samples)}",
    }
    return g.info, row


def main() -> int:
    parser = argparse.ArgumentParser(description="Run the real NVML sampling path and print what it read.")
    parser.add_argument("--seconds", type=float, default=6.0, help="sampling time per power method, half idle, half loaded (1-120)")
    parser.add_argument("--hz", type=float, default=10.0)
    parser.add_argument("--index", type=int, default=0, help="NVML device index (PCI bus order, not CUDA's)")
    args = parser.parse_args()
    if not 1 <= args.seconds <= 120 or not 0 < args.hz <= 1000:
        parser.error("--seconds must be 1-120 and --hz 0-1000")
    missing = missing_modules()
    if missing:
        print(f"gpu-check-nvml: {sys.executable} cannot import {', '.join(missing)}; run it with a python that has them "
              "(e.g. the project's .venv/bin/python, or PYTHONPATH=DIR after 'pip install --target DIR nvidia-ml-py psutil' elsewhere)")
        return 2
    limit = int(3 * (args.seconds + 20) + 60)

    def give_up():  # a thread, not SIGALRM: a signal handler cannot run while an NVML call hangs the main thread
        print(f"\ngpu-check-nvml: gave up after {limit} s (a hung NVML call or GPU load?)", flush=True)
        os._exit(3)

    watchdog = threading.Timer(limit, give_up)
    watchdog.daemon = True
    watchdog.start()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import pynvml

    return report(args, pynvml)


def report(args, nvml) -> int:
    """Everything after the checks; `nvml` is pynvml (a test passes its double)."""
    from collector.telemetry.gpu import POWER_METHODS, GpuSampler

    probe = GpuSampler(1.0, args.index, nvml=nvml)
    info = probe.open()
    probe.stop()
    if not info.available:
        print(f"GPU {args.index}: unavailable: {info.reason}")
        return 1
    print(f"GPU {info.index} (NVML index): {info.name}, {info.uuid}, PCI {info.pci_bus_id}, {fmt(info.memory_total_bytes and info.memory_total_bytes / 2**30)} GiB, "
          f"driver {info.driver_version}, MIG {info.mig_mode or 'n/a'}, CUDA_VISIBLE_DEVICES={info.cuda_visible_devices}")
    print(f"pynvml from {getattr(nvml, '__file__', type(nvml).__name__)} (nvidia-ml-py {binding_version()}); memory info {info.memory_info_version}; thermal {info.thermal_method}; "
          f"energy counter {info.energy_counter}")
    print("raw NVML answers (compare with tests/collector/fake_pynvml.py):")
    print("\n".join(raw_answers(nvml, args.index)))

    load = GpuLoad(info.uuid, args.index)
    print(f"load: {load.note}")
    head = (f"{'power method':<52} {'samples':>7} {'max gap s':>9} {'errors':>6} {'idle W':>7} {'load W':>7} {'trapezoid J':>11} "
            f"{'counter J':>9} {'diff %':>6} {'mem GiB':>7} {'SM MHz':>6} {'util %':>6} {'thermal hw/sw':>13}")
    rows, unavailable, ok = [], [], True
    for method in POWER_METHODS:
        opened, row = measure(method, args, nvml, load)
        unavailable += [f"{metric}: {why}" for metric, why in opened.unavailable_metrics.items() if f"{metric}: {why}" not in unavailable]
        if row is None:
            ok = False
            rows.append(f"{POWER_METHODS[method]:<52} unavailable: {opened.reason}")
            continue
        ok = ok and row["read_errors"] == 0 and row["samples"] > 0
        diff = None
        if row["trapezoid_j"] is not None and row["counter_j"]:
            diff = 100.0 * (row["trapezoid_j"] - row["counter_j"]) / row["counter_j"]
        rows.append(f"{POWER_METHODS[method]:<52} {row['samples']:>7} {fmt(row['max_gap_s'], '.3f'):>9} {row['read_errors']:>6} "
                    f"{fmt(row['idle_w']):>7} {fmt(row['load_w']):>7} {fmt(row['trapezoid_j']):>11} {fmt(row['counter_j']):>9} "
                    f"{fmt(diff):>6} {fmt(row['mem_gib'], '.2f'):>7} {fmt(row['sm_mhz'], '.0f'):>6} {fmt(row['util'], '.0f'):>6} {row['thermal']:>13}")
    print()
    print(head)
    print("-" * len(head))
    print("\n".join(rows))
    for line in unavailable:
        print(f"not read on this GPU: {line}")
    print(f"\nnvml_sampled={ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
