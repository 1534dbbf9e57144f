"""The GPU sampler's real code against the pynvml test double (tests/collector/fake_pynvml.py):
fields and units, the power method recorded, thermal states, per-call errors, and every way NVML
can be unavailable (recorded with a reason, never as zeros)."""

import time

from collector.intervals import Interval
from collector.resources import resources_block
from collector.telemetry import telemetry_summary
from collector.telemetry.gpu import GpuSampler
from fake_pynvml import FakeNvml, NVMLError


def test_samples_fields_in_units_with_methods_recorded():
    nvml = FakeNvml(power_mw=[100_000, 150_500], used_bytes=[2**30], sm_clock=[1500], util=[42], reasons=[0x40, 0x20, 0x60, 0], energy_mj=[5000, 6000])
    g = GpuSampler(50, nvml=nvml)
    info = g.open()
    assert info.available and info.reason is None
    assert info.name == "Fake RTX 9000" and info.driver_version == "999.99" and info.memory_total_bytes == 24 * 2**30
    assert info.power_method == "nvmlDeviceGetPowerUsage" and info.memory_info_version == "v2"
    assert info.energy_counter == "nvmlDeviceGetTotalEnergyConsumption"
    samples = [g.sample_now() for _ in range(4)]
    g.stop()
    assert nvml.initialised == 0  # shut down
    assert samples[0].board_watts == 150.5  # the probe in open() consumed the first value (mW -> W)
    assert samples[0].memory_used_bytes == float(2**30) and samples[0].sm_clock_mhz == 1500.0 and samples[0].utilization_percent == 42.0
    states = [(s.thermal_hardware, s.thermal_software) for s in samples]
    assert states == [("active", "not_active"), ("not_active", "active"), ("active", "active"), ("not_active", "not_active")]
    summary = telemetry_summary([], samples, info, "x")
    assert summary["thermal_slowdown_states"]["hardware"] == {"active": 2, "not_active": 2, "unavailable": 0}
    assert summary["thermal_slowdown_observed_samples"] == 3
    assert summary["thermal_slowdown_fully_available"] is True


def test_field_value_power_method_and_v1_memory():
    nvml = FakeNvml(power_mw=[80_000], memory_v2=False)
    g = GpuSampler(10, power="instant", nvml=nvml)
    info = g.open()
    assert info.power_method == "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)"
    assert info.memory_info_version == "v1" and info.energy_counter is None
    assert g.sample_now().board_watts == 80.0 and g.sample_now().energy_mj is None
    assert "nvmlDeviceGetFieldValues[186]" in nvml.calls and "nvmlDeviceGetPowerUsage" not in nvml.calls


def test_a_failing_call_leaves_only_that_field_unknown():
    nvml = FakeNvml(power_mw=[100_000, NVMLError(15, "GPU is lost"), 120_000], reasons=[NVMLError(3, "Not Supported"), 0])
    g = GpuSampler(10, nvml=nvml)
    g.open()
    a, b = g.sample_now(), g.sample_now()
    assert a.board_watts is None and a.thermal_hardware == "unavailable" and a.thermal_software == "unavailable"
    assert a.sm_clock_mhz == 1800.0
    assert b.board_watts == 120.0 and b.thermal_hardware == "not_active"
    assert g.read_errors == 2
    assert telemetry_summary([], [a, b], g.info, "x")["thermal_slowdown_fully_available"] is False


def test_unavailable_nvml_is_recorded_with_reason_never_zeros():
    cases = [
        (FakeNvml(library=False), "nvml_unavailable", "NVML Shared Library Not Found"),
        (FakeNvml(device_count=0), "no_gpu", "no GPU with index 0"),
        (FakeNvml(power_mw=[NVMLError(3, "Not Supported")]), "nvml_error", "not supported"),
    ]
    for nvml, code, text in cases:
        g = GpuSampler(10, nvml=nvml)
        info = g.open()
        assert not info.available and info.reason_code == code and text in info.reason
        g.start()
        assert g.sample_now() is None
        g.stop()
        assert g.samples() == [] and nvml.initialised == 0
        block = resources_block([Interval(0, 1)], [], g.samples(), info)
        assert block["gpu_energy"] == {"available": False, "joules": None, "reason": code}
        assert block["gpu_sample_count"] == 0
        assert all(block["metrics"][k] is None for k in ("gpu_board_watts", "gpu_memory_used_bytes", "gpu_sm_clock_mhz", "gpu_utilization_percent"))
        t = telemetry_summary([], [], info, "x")
        assert t["gpu"]["available"] is False and t["gpu"]["reason"] == info.reason and t["maximum_gpu_gap_seconds"] is None


def test_background_thread_samples_at_rate_and_energy_integrates():
    nvml = FakeNvml(power_mw=[200_000])
    g = GpuSampler(50, nvml=nvml)
    g.open()
    t0 = time.monotonic()
    g.start()
    time.sleep(0.5)
    t1 = time.monotonic()
    time.sleep(0.05)
    g.stop()
    samples = g.samples()
    assert 8 <= len(samples) <= 32  # 50 Hz for ~0.55 s plus start and stop samples (ticks skip under load)
    assert all(a.t < b.t for a, b in zip(samples, samples[1:]))
    block = resources_block([Interval(t0 + 0.1, t1)], [], samples, g.info)
    assert block["gpu_energy"]["available"] is True
    assert abs(block["gpu_energy"]["joules"] - 200.0 * (t1 - t0 - 0.1)) < 1e-6
    assert block["metrics"]["gpu_board_watts"]["minimum"] == 200.0
