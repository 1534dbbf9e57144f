"""collector.provenance: streamed file hashes, the machine's facts read from /proc, sysfs and
os-release (real files, here written by the test where a machine's own would not vary), and the
collector's own fingerprint (`runner_sha256`)."""

import hashlib
import os
import platform
import re
from pathlib import Path

import psutil
import pytest

from collector import provenance
from collector.provenance import CHUNK_BYTES, collector_sha256, cpu_model, environment, hardware, installed_ram_bytes, os_release, sha256_file
from collector.telemetry import GpuInfo

COLLECTOR = Path(provenance.__file__).resolve().parent


@pytest.mark.parametrize("size", [0, 1, CHUNK_BYTES - 1, CHUNK_BYTES, 2 * CHUNK_BYTES + 7])
def test_a_file_is_hashed_in_chunks_to_the_sha256_of_its_bytes(tmp_path, size):
    data = os.urandom(size)
    path = tmp_path / "model.gguf"
    path.write_bytes(data)
    digest = sha256_file(str(path))
    assert digest.sha256 == hashlib.sha256(data).hexdigest()
    assert digest.size_bytes == size
    assert digest.path == path


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        sha256_file(tmp_path / "absent.bin")


def test_the_cpu_model_comes_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Example CPU @ 3.00GHz: rev 2\n\nprocessor\t: 1\nmodel name\t: other\n")
    assert cpu_model(cpuinfo) == "Example CPU @ 3.00GHz: rev 2"  # the first, split at the first ':'


def test_without_cpuinfo_the_platform_names_the_cpu(tmp_path):
    assert cpu_model(tmp_path / "absent") == (platform.processor() or platform.machine())
    (tmp_path / "nomodel").write_text("processor\t: 0\n")
    assert cpu_model(tmp_path / "nomodel") == (platform.processor() or platform.machine())


def test_installed_ram_counts_every_memory_block(tmp_path):
    (tmp_path / "block_size_bytes").write_text("8000000\n")  # hex, as the kernel writes it
    for name in ("memory0", "memory1", "memory7", "memory32"):
        (tmp_path / name).mkdir()
    (tmp_path / "memory_hotplug").mkdir()  # not a block
    (tmp_path / "memory9").write_text("")  # not a folder
    assert installed_ram_bytes(tmp_path) == 4 * 0x8000000


@pytest.mark.parametrize("block", [None, "not hex", "8000000"])
def test_installed_ram_is_none_where_sysfs_lists_no_blocks(tmp_path, block):
    if block is not None:
        (tmp_path / "block_size_bytes").write_text(block)
    assert installed_ram_bytes(tmp_path) is None


def test_this_machine_reports_ram_at_least_what_the_kernel_manages():
    found = installed_ram_bytes()
    if found is None:
        pytest.skip("this kernel lists no memory blocks in sysfs")
    assert found >= psutil.virtual_memory().total * 0.9


def test_os_release_fields_with_and_without_quotes(tmp_path):
    path = tmp_path / "os-release"
    path.write_text('NAME="Debian GNU/Linux"\nID=debian\n# comment\nVERSION_ID="13"\nPRETTY_NAME="Debian 13"\nnot a pair\n')
    assert os_release(path) == {"id": "debian", "name": "Debian GNU/Linux", "version_id": "13"}
    assert os_release(tmp_path / "absent") == {"id": None, "name": None, "version_id": None}


def test_without_a_gpu_the_hardware_block_says_why_and_has_no_gpu_numbers():
    gpu = GpuInfo(False, "NVML init failed: NVML Shared Library Not Found", 0, "nvml_unavailable")
    block = hardware(gpu)
    assert block["gpu"] is None and block["gpu_vram_bytes"] is None
    assert block["gpu_unavailable_reason"] == "NVML init failed: NVML Shared Library Not Found"
    assert block["logical_cpu_count"] == psutil.cpu_count(logical=True)
    assert block["kernel_mem_total_bytes"] == psutil.virtual_memory().total
    assert block["cpu"] == cpu_model()


def test_the_environment_block():
    gpu = GpuInfo(True, None, 0, name="GPU", memory_total_bytes=1, driver_version="580.1")
    env = environment(gpu)
    assert env["nvidia_driver"] == "580.1"
    assert env["python"] == platform.python_version() and env["kernel"] == platform.release()
    assert set(env["os"]) == {"id", "name", "version_id"}


def test_runner_sha256_is_reproducible_from_the_collector_sources_alone():
    # anyone can recompute it: path NUL bytes NUL over collector/**/*.py, in sorted order
    digest = hashlib.sha256()
    for path in sorted(COLLECTOR.rglob("*.py")):
        digest.update(path.relative_to(COLLECTOR).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    assert collector_sha256() == digest.hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", collector_sha256())
