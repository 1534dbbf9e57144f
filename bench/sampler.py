"""Sampler CPU overhead: the collector's telemetry (host + process sampler, and the GPU sampler
where NVML finds a GPU) tracking an idle child process, at 1, 10 and 100 Hz, with PSS read as in
the default plan (pss_mode "boundaries": not in periodic samples) unless --pss-mode every_sample. The main thread sleeps, so this process's CPU time is the samplers' cost; it is printed
as a percent of one core, beside the floor (the same wait, a sleep to each deadline, at 10 Hz reading
nothing) and a bare psutil loop at 10 Hz reading the same fields. The last line is
`hz=10 cpu_percent_of_core=P wait_floor_percent=F psutil_loop_percent=Q` (goal: P <= 0.2).

    .venv/bin/python bench/sampler.py [--seconds 30] [--pss-mode every_sample|boundaries]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import psutil

from collector.telemetry import Telemetry


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@contextmanager
def idle_child() -> Iterator[int]:
    """The pid of a sleeping child process to track, ended by its pid afterwards."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


def measure(hz: float, seconds: float, pss_every_sample: bool) -> tuple[float, int, str]:
    with idle_child() as pid:
        telemetry = Telemetry(host_hz=hz, gpu_hz=hz, pss_every_sample=pss_every_sample)
        telemetry.track_process(pid)
        wall0, cpu0 = time.monotonic(), cpu_seconds()
        telemetry.start()
        time.sleep(seconds)
        telemetry.stop()
        wall, cpu = time.monotonic() - wall0, cpu_seconds() - cpu0
    gpu = "gpu sampled" if telemetry.gpu_info.available else f"gpu unavailable ({telemetry.gpu_info.reason})"
    return cpu / wall * 100.0, len(telemetry.host_samples()), gpu


def measure_loop(hz: float, seconds: float, tick: Callable[[], object] = lambda: None) -> float:
    """A loop with the sampler's wait (a sleep to each tick's deadline) at `hz` calling `tick`
    each time, on a thread of its own (percent of a core). With the default `tick`, reading
    nothing, it is the floor: what waking alone costs."""

    def wait() -> None:
        period = 1.0 / hz
        next_t = time.monotonic() + period
        end = time.monotonic() + seconds
        while next_t < end:
            delay = next_t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            tick()
            next_t += period

    thread = threading.Thread(target=wait)
    wall0, cpu0 = time.monotonic(), cpu_seconds()
    thread.start()
    thread.join()
    return (cpu_seconds() - cpu0) / (time.monotonic() - wall0) * 100.0


def measure_psutil_loop(hz: float, seconds: float) -> float:
    """The same loop reading through psutil what a tick reads about the host and the tracked
    process (available memory, RSS, I/O counters, CPU times; not the cgroup's memory, which
    psutil does not read): the reference issue 13 gave, at about 0.11 %."""
    with idle_child() as pid:
        process = psutil.Process(pid)

        def tick() -> None:
            psutil.virtual_memory()
            process.memory_info()
            process.io_counters()
            process.cpu_times()

        return measure_loop(hz, seconds, tick)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="duration per rate (default 30)")
    parser.add_argument("--pss-mode", choices=["every_sample", "boundaries"], default="boundaries")
    args = parser.parse_args()
    results = {}
    for hz in (1, 100, 10):  # 10 Hz last: its line ends the output
        percent, samples, gpu = measure(hz, args.seconds, args.pss_mode == "every_sample")
        results[hz] = percent
        print(f"# hz={hz} seconds={args.seconds:g} host_samples={samples} pss_mode={args.pss_mode} {gpu}", flush=True)
    floor = measure_loop(10, args.seconds)
    print(f"# floor: waking at 10 Hz and reading nothing costs {floor:.3f}% of a core here")
    bare_psutil = measure_psutil_loop(10, args.seconds)
    print(f"# a bare psutil loop at 10 Hz reading the same host and process fields costs {bare_psutil:.3f}% of a core here")
    for hz in (1, 100, 10):
        print(f"hz={hz} cpu_percent_of_core={results[hz]:.3f}" + (f" wait_floor_percent={floor:.3f} psutil_loop_percent={bare_psutil:.3f}" if hz == 10 else ""))


if __name__ == "__main__":
    main()
