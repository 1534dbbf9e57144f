"""Where a case ran, measured from inside the process that ran it: hostname, CPU model, kernel,
the GPUs it was given (UUID, name, PCI bus, driver, from NVML through the GPU sampler) and
whether any foreign process was using them before the case started."""

from __future__ import annotations

import os
import platform
import socket
from typing import Any

from collector import provenance
from collector.telemetry.gpu import GpuSampler


def host_facts(gpu_indices: list[int], label: str | None, node_id: str | None, own_pids: set[int], nvml: Any = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The case's `host` block and the foreign GPU processes found (each with its GPU's NVML
    index). `gpu_indices` are the NVML indexes the case was given (Ray's GPU ids); each is
    opened once, read and closed again, before the case's own sampler opens it."""
    gpus: list[dict[str, Any]] = []
    foreign: list[dict[str, Any]] = []
    unchecked: list[str] = []
    driver = None
    for index in gpu_indices:
        sampler = GpuSampler(1.0, index, nvml=nvml)
        info = sampler.open()
        try:
            if not info.available:
                unchecked.append(f"GPU {index}: {info.reason}")
                continue
            driver = info.driver_version
            gpus.append({"name": info.name, "nvml_index": index, "pci_bus_id": info.pci_bus_id, "uuid": info.uuid})
            found, why = sampler.foreign_processes(own_pids)
            if why is not None:
                unchecked.append(f"GPU {index}: {why}")
            foreign += [{**proc, "nvml_index": index, "uuid": info.uuid} for proc in found]
        finally:
            sampler.stop()
    facts = {
        "collector_sha256": provenance.collector_sha256(),
        "cpu": provenance.cpu_model(),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "gpu_check": ("no GPU requested" if not gpu_indices
                      else "unavailable: " + "; ".join(unchecked) if unchecked
                      else "foreign processes found" if foreign else "no foreign process"),
        "gpus": gpus,
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "label": label,
        "nvidia_driver": driver,
        "pid": os.getpid(),
        "ray_node_id": node_id,
    }
    return facts, foreign


def host_name(facts: dict[str, Any]) -> str:
    """How a host is named in messages and compared across cases: its label, else its hostname."""
    return str(facts.get("label") or facts.get("hostname") or "?")
