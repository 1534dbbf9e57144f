"""Where a case ran, and the check that no foreign process uses its GPU: the GPU sampler's NVML
code driven by the pynvml test double (no GPU here); the real path is scripts/gpu-check-nvml.py."""

import os
import platform
import sys
from pathlib import Path

from collector.dispatch.host import host_facts, host_name

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fake_pynvml import FakeNvml  # noqa: E402


def test_a_foreign_process_on_the_given_gpu_is_found():
    facts, foreign = host_facts([0], "node-a", "n1", {os.getpid()}, nvml=FakeNvml(compute_pids=[os.getpid(), 4242]))
    assert foreign == [{"kind": "compute", "nvml_index": 0, "pid": 4242, "used_memory_bytes": 256 << 20, "uuid": facts["gpus"][0]["uuid"]}]
    assert facts["gpu_check"] == "foreign processes found" and facts["gpus"][0]["name"] == "Fake RTX 9000"
    assert facts["kernel"] == platform.release() and facts["label"] == "node-a" and host_name(facts) == "node-a"


def test_an_idle_gpu_passes_and_without_nvml_the_check_says_why_not():
    facts, foreign = host_facts([0], None, None, {os.getpid()}, nvml=FakeNvml(graphics_pids=[]))
    assert foreign == [] and facts["gpu_check"] == "no foreign process" and facts["nvidia_driver"]
    facts, foreign = host_facts([0], None, None, {os.getpid()}, nvml=FakeNvml(library=False))
    assert foreign == [] and facts["gpus"] == [] and facts["gpu_check"].startswith("unavailable: GPU 0: NVML init failed")
    assert host_name(facts) == facts["hostname"]
    facts, _ = host_facts([], None, None, {os.getpid()})
    assert facts["gpu_check"] == "no GPU requested"

