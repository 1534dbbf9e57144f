"""Provenance: the hardware and environment a run used, and streamed sha256 of the files that
define it (plan, runtime binary, model files), so a 40 GB model is hashed in 1 MiB chunks."""

from __future__ import annotations

import hashlib
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from benchledger.records.digest import named_bytes_sha256
from collector.telemetry import GpuInfo

CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class FileDigest:
    path: Path
    sha256: str
    size_bytes: int


def sha256_file(path: str | Path) -> FileDigest:
    """sha256 of a file's bytes, read in chunks (constant memory)."""
    path = Path(path)
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            h.update(chunk)
            size += len(chunk)
    return FileDigest(path, h.hexdigest(), size)


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's marketing name ("model name" in /proc/cpuinfo), else platform.processor()."""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def installed_ram_bytes(sysfs: Path = Path("/sys/devices/system/memory")) -> int | None:
    """RAM the kernel sees as memory blocks (online or not), which counts memory the kernel
    reserves for itself; None where sysfs does not list blocks."""
    try:
        block = int((sysfs / "block_size_bytes").read_text().strip(), 16)
        blocks = [p for p in sysfs.glob("memory[0-9]*") if p.is_dir()]
    except (OSError, ValueError):
        return None
    return block * len(blocks) if blocks else None


def os_release(path: Path = Path("/etc/os-release")) -> dict[str, str | None]:
    """id, name and version_id from os-release (None where missing)."""
    fields: dict[str, str] = {}
    try:
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep:
                fields[key.strip()] = value.strip().strip('"')
    except OSError:
        pass
    return {"id": fields.get("ID"), "name": fields.get("NAME"), "version_id": fields.get("VERSION_ID")}


def hardware(gpu: GpuInfo) -> dict[str, Any]:
    """The seed's `hardware` block; GPU fields are null with `gpu_unavailable_reason` when NVML
    saw no GPU."""
    return {
        "cpu": cpu_model(),
        "gpu": gpu.name,
        "gpu_unavailable_reason": gpu.reason,
        "gpu_vram_bytes": gpu.memory_total_bytes,
        "installed_ram_bytes": installed_ram_bytes(),
        "kernel_mem_total_bytes": psutil.virtual_memory().total,
        "logical_cpu_count": psutil.cpu_count(logical=True),
        "physical_cpu_count": psutil.cpu_count(logical=False),
    }


def environment(gpu: GpuInfo) -> dict[str, Any]:
    """The seed's `environment` block (OS, kernel, NVIDIA driver or null) plus Python."""
    return {
        "kernel": platform.release(),
        "nvidia_driver": gpu.driver_version,
        "os": os_release(),
        "python": platform.python_version(),
    }


def collector_sha256() -> str:
    """sha256 over the collector's own sources (path + bytes, sorted): the `runner_sha256`."""
    root = Path(__file__).resolve().parent
    return named_bytes_sha256((p.relative_to(root).as_posix(), p.read_bytes()) for p in sorted(root.rglob("*.py")))
