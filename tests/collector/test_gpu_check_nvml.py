"""scripts/gpu-check-nvml.py on this CPU-only machine: its whole report (device facts, raw NVML
answers, the table) driven through the pynvml test double, the one line it prints without its
modules, and what the real binding says here. The real GPU run needs a machine with NVIDIA GPU."""

import importlib.util
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pynvml

from fake_pynvml import FakeNvml

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu-check-nvml.py"


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_check_nvml", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_prints_device_raw_answers_and_one_table_row_per_power_method(capsys):
    nvml = FakeNvml(power_mw=[150_000], energy_mj=[1000 * i for i in range(1, 500)], power_fields={pynvml.NVML_FI_DEV_POWER_AVERAGE: pynvml.NVML_ERROR_NOT_SUPPORTED})
    code = load_script().report(Namespace(seconds=1.0, hz=20.0, index=0), nvml)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "nvml_sampled=True"
    assert lines[0].startswith("GPU 0 (NVML index): Fake RTX 9000, GPU-0000") and "PCI 00000000:01:00.0, 24.0 GiB, driver 999.99, MIG n/a" in lines[0]
    assert "  nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT): str fieldId=186 scopeId=0 valueType=1 nvmlReturn=0 uiVal=150000" in out
    assert "  nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE): str fieldId=185 scopeId=0 valueType=0 nvmlReturn=3" in out
    assert "  nvmlDeviceGetMigMode: raises NVMLError_NotSupported: Not Supported" in out
    head = next(i for i, line in enumerate(lines) if line.startswith("power method"))
    rows = lines[head + 2:head + 5]
    assert [r.split()[0] for r in rows] == ["nvmlDeviceGetPowerUsage", "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)", "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE)"]
    usage = rows[0].split()
    assert usage[3] == "0" and usage[4] == usage[5] == "150.0" and usage[12] == "0/0"  # no read errors; idle and load watts
    assert rows[2].split()[4:7] == ["n/a", "n/a", "n/a"]  # the average field is not supported on this GPU
    assert "not read on this GPU: board_watts: nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE): Not Supported" in lines
    assert nvml.initialised == 0


def test_without_pynvml_and_psutil_it_says_so_in_one_line():
    # -S: no site-packages, so neither pynvml nor psutil can be imported
    proc = subprocess.run([sys.executable, "-S", str(SCRIPT), "--seconds", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == ""
    assert proc.stdout.count("\n") == 1 and "cannot import pynvml (pip: nvidia-ml-py), psutil (pip: psutil)" in proc.stdout


def test_with_the_real_binding_it_prints_the_table_or_why_not():
    """Without a GPU (this machine): why, and exit 1. With one: the device line and the table,
    as the fake-driven test above reads them, and exit 0."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--seconds", "1"], capture_output=True, text=True, timeout=120)
    if proc.returncode == 0:  # a machine with an NVIDIA GPU: the table was printed for real
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("GPU 0 (NVML index): ") and lines[-1] == "nvml_sampled=True"
        assert any(line.startswith("power method") for line in lines) and "nvmlDeviceGetPowerUsage" in proc.stdout
        return
    assert proc.returncode == 1 and proc.stdout.startswith("GPU 0: unavailable: NVML init failed: ") and proc.stderr == ""
