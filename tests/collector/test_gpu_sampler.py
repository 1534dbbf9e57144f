"""The GPU sampler's real code against the pynvml test double (tests/collector/fake_pynvml.py):
fields and units, the power method recorded, thermal states, per-call errors, metrics the GPU does
not support, and every way NVML can be unavailable (recorded with a reason, never as zeros). The
double itself is checked against the installed nvidia-ml-py binding."""

import inspect
import threading
import time

import pynvml
import pytest
from fake_pynvml import FakeNvml, nvml_error

from collector.intervals import Interval
from collector.resources import resources_block
from collector.telemetry import telemetry_summary
from collector.telemetry.gpu import FIELD_VALUE_MEMBERS, HW_THERMAL, SW_THERMAL, GpuSampler

GPU_LOST, UNKNOWN, NOT_SUPPORTED = pynvml.NVML_ERROR_GPU_IS_LOST, pynvml.NVML_ERROR_UNKNOWN, pynvml.NVML_ERROR_NOT_SUPPORTED
GPU_FIELDS = ("board_watts", "memory_used_bytes", "sm_clock_mhz", "utilization_percent")


def test_the_double_has_the_real_bindings_calls_signatures_and_errors():
    fake_calls = [n for n, v in vars(FakeNvml).items() if n.startswith("nvml") and callable(v)]
    assert len(fake_calls) >= 15
    for name in fake_calls:
        real_params = list(inspect.signature(getattr(pynvml, name)).parameters.values())
        fake_params = list(inspect.signature(getattr(FakeNvml, name)).parameters.values())[1:]
        assert [(p.name, p.default) for p in fake_params] == [(p.name, p.default) for p in real_params], name
    for const in ("NVML_CLOCK_SM", "NVML_FI_DEV_POWER_AVERAGE", "NVML_FI_DEV_POWER_INSTANT", "nvmlMemory_v2"):
        assert getattr(FakeNvml, const) == getattr(pynvml, const)
    assert FakeNvml.NVMLError is pynvml.NVMLError and type(nvml_error(NOT_SUPPORTED)) is pynvml.NVMLError_NotSupported
    assert str(nvml_error(NOT_SUPPORTED)) == "Not Supported"
    # the valueType -> union member table the sampler decodes field values with
    assert {t: m for t, m in FIELD_VALUE_MEMBERS.items()} == {
        pynvml.NVML_VALUE_TYPE_DOUBLE: "dVal", pynvml.NVML_VALUE_TYPE_UNSIGNED_INT: "uiVal", pynvml.NVML_VALUE_TYPE_UNSIGNED_LONG: "ulVal",
        pynvml.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: "ullVal", pynvml.NVML_VALUE_TYPE_SIGNED_LONG_LONG: "sllVal",
        pynvml.NVML_VALUE_TYPE_SIGNED_INT: "siVal", pynvml.NVML_VALUE_TYPE_UNSIGNED_SHORT: "usVal"}
    assert [f for f, _ in pynvml.c_nvmlValue_t._fields_] == list(FIELD_VALUE_MEMBERS.values())
    assert (HW_THERMAL, SW_THERMAL) == (pynvml.nvmlClocksEventReasonHwThermalSlowdown, pynvml.nvmlClocksEventReasonSwThermalSlowdown)


def test_samples_fields_in_units_with_methods_recorded():
    # open() probes every metric once: the first value of each series goes to the probe
    nvml = FakeNvml(power_mw=[100_000, 150_500], used_bytes=[2**30], sm_clock=[1500], util=[42], reasons=[0, 0x40, 0x20, 0x60, 0], energy_mj=[4000, 5000, 6000])
    g = GpuSampler(50, nvml=nvml)
    info = g.open()
    assert info.available and info.reason is None and info.unavailable_metrics == {}
    assert info.name == "Fake RTX 9000" and info.driver_version == "999.99" and info.memory_total_bytes == 24 * 2**30
    assert info.power_method == "nvmlDeviceGetPowerUsage" and info.memory_info_version == "v2"
    assert info.energy_counter == "nvmlDeviceGetTotalEnergyConsumption" and info.thermal_method == "nvmlDeviceGetCurrentClocksEventReasons"
    assert info.uuid.startswith("GPU-") and info.pci_bus_id == "00000000:01:00.0" and info.mig_mode is None
    samples = [g.sample_now() for _ in range(4)]
    g.stop()
    assert nvml.initialised == 0  # shut down
    assert samples[0].board_watts == 150.5  # mW -> W
    assert samples[0].memory_used_bytes == float(2**30) and samples[0].sm_clock_mhz == 1500.0 and samples[0].utilization_percent == 42.0
    assert [s.energy_mj for s in samples] == [5000, 6000, 6000, 6000]
    states = [(s.thermal_hardware, s.thermal_software) for s in samples]
    assert states == [("active", "not_active"), ("not_active", "active"), ("active", "active"), ("not_active", "not_active")]
    summary = telemetry_summary([], samples, info, "x")
    assert summary["thermal_slowdown_states"]["hardware"] == {"active": 2, "not_active": 2, "unavailable": 0}
    assert summary["thermal_slowdown_observed_samples"] == 3
    assert summary["thermal_slowdown_fully_available"] is True
    assert g.read_errors == 0


@pytest.mark.parametrize("method,field_id,value_type,raw,watts", [
    ("instant", 186, pynvml.NVML_VALUE_TYPE_UNSIGNED_INT, 80_000, 80.0),
    ("average", 185, pynvml.NVML_VALUE_TYPE_UNSIGNED_INT, 612_345, 612.345),
    ("instant", 186, pynvml.NVML_VALUE_TYPE_DOUBLE, 80_500.5, 80.5005),  # decoded by valueType, not assumed uiVal
    ("average", 185, pynvml.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, 2**33, 2**33 / 1000),
])
def test_field_value_power_methods_decode_the_value_union(method, field_id, value_type, raw, watts):
    nvml = FakeNvml(power_mw=[raw], memory_v2=False, power_value_type=value_type)
    g = GpuSampler(10, power=method, nvml=nvml)
    info = g.open()
    assert info.power_method == f"nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_{method.upper()})"
    assert info.memory_info_version == "v1" and info.energy_counter is None
    assert info.unavailable_metrics == {"energy_mj": "nvmlDeviceGetTotalEnergyConsumption: Not Supported"}
    s = g.sample_now()
    assert s.board_watts == watts and s.energy_mj is None and s.memory_used_bytes == float(2**30)
    assert f"nvmlDeviceGetFieldValues[{field_id}]" in nvml.calls and "nvmlDeviceGetPowerUsage" not in nvml.calls
    g.stop()


def test_a_field_the_gpu_does_not_support_degrades_only_board_watts():
    # e.g. NVML_FI_DEV_POWER_AVERAGE on GA100: the call succeeds, the field's own nvmlReturn says no
    nvml = FakeNvml(power_fields={pynvml.NVML_FI_DEV_POWER_AVERAGE: NOT_SUPPORTED}, energy_mj=[1000])
    g = GpuSampler(10, power="average", nvml=nvml)
    info = g.open()
    assert info.available and info.unavailable_metrics == {"board_watts": "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE): Not Supported"}
    s = g.sample_now()
    g.stop()
    assert s.board_watts is None and s.sm_clock_mhz == 1800.0 and s.utilization_percent == 90.0 and s.energy_mj == 1000
    assert g.read_errors == 0 and nvml.calls.count("nvmlDeviceGetFieldValues[185]") == 1  # probed once, never re-read


def test_not_supported_for_one_metric_keeps_the_gpu_sampled():
    nvml = FakeNvml(power_mw=[nvml_error(NOT_SUPPORTED)], util=None)
    g = GpuSampler(10, nvml=nvml)
    info = g.open()
    assert info.available and info.reason is None
    assert info.unavailable_metrics == {
        "board_watts": "nvmlDeviceGetPowerUsage: Not Supported",
        "utilization_percent": "nvmlDeviceGetUtilizationRates: Not Supported",
        "energy_mj": "nvmlDeviceGetTotalEnergyConsumption: Not Supported",
    }
    samples = [g.sample_now(), g.sample_now()]
    g.stop()
    assert all(s.board_watts is None and s.utilization_percent is None for s in samples)
    assert all(s.memory_used_bytes == float(2**30) and s.sm_clock_mhz == 1800.0 and s.thermal_hardware == "not_active" for s in samples)
    assert g.read_errors == 0 and nvml.calls.count("nvmlDeviceGetPowerUsage") == 1
    block = resources_block([Interval(samples[0].t, samples[1].t)], [], samples, info)
    assert block["metrics"]["gpu_board_watts"] is None and block["metrics"]["gpu_sm_clock_mhz"]["sample_count"] == 2
    assert block["gpu_energy"] == {"available": False, "joules": None, "reason": "power_not_supported"}
    # the sealed record's telemetry names each missing metric with its reason
    gpu = telemetry_summary([], samples, info, "unavailable")["gpu"]
    assert gpu["available"] is True and gpu["unavailable_metrics"] == dict(sorted(info.unavailable_metrics.items()))


def test_a_transient_failing_call_leaves_only_that_field_of_that_sample_unknown():
    nvml = FakeNvml(power_mw=[100_000, nvml_error(GPU_LOST), 120_000], reasons=[0, nvml_error(UNKNOWN), 0])
    g = GpuSampler(10, nvml=nvml)
    g.open()
    a, b = g.sample_now(), g.sample_now()
    g.stop()
    assert a.board_watts is None and a.thermal_hardware == "unavailable" and a.thermal_software == "unavailable"
    assert a.sm_clock_mhz == 1800.0
    assert b.board_watts == 120.0 and b.thermal_hardware == "not_active"
    assert g.read_errors == 2 and g.info.unavailable_metrics == {"energy_mj": "nvmlDeviceGetTotalEnergyConsumption: Not Supported"}
    assert telemetry_summary([], [a, b], g.info, "x")["thermal_slowdown_fully_available"] is False


def test_driver_without_clocks_event_reasons_falls_back_to_throttle_reasons():
    nvml = FakeNvml(clocks_event_reasons=False, reasons=[0, 0x40])
    g = GpuSampler(10, nvml=nvml)
    info = g.open()
    assert info.thermal_method == "nvmlDeviceGetCurrentClocksThrottleReasons" and "thermal_slowdown" not in info.unavailable_metrics
    assert g.sample_now().thermal_hardware == "active"
    g.stop()


def test_thermal_reasons_not_supported_are_unavailable_with_the_reason():
    nvml = FakeNvml(reasons=None)
    g = GpuSampler(10, nvml=nvml)
    info = g.open()
    assert info.thermal_method is None
    assert info.unavailable_metrics["thermal_slowdown"] == "nvmlDeviceGetCurrentClocksEventReasons: Not Supported"
    s = g.sample_now()
    g.stop()
    assert (s.thermal_hardware, s.thermal_software) == ("unavailable", "unavailable") and g.read_errors == 0


def test_mig_mode_is_recorded_and_utilization_is_unavailable():
    nvml = FakeNvml(mig_mode=pynvml.NVML_DEVICE_MIG_ENABLE)
    g = GpuSampler(10, nvml=nvml)
    info = g.open()
    assert info.mig_mode == "enabled"
    assert info.unavailable_metrics["utilization_percent"] == "nvmlDeviceGetUtilizationRates: Not Supported"
    s = g.sample_now()
    g.stop()
    assert s.utilization_percent is None and s.board_watts == 250.0


def test_cuda_visible_devices_is_recorded_because_nvml_ignores_it(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,0")
    g = GpuSampler(10, nvml=FakeNvml(device_count=2))
    assert g.open().cuda_visible_devices == "1,0" and g.info.index == 0
    g.stop()


def test_an_energy_counter_that_goes_backwards_is_dropped_from_then_on():
    nvml = FakeNvml(energy_mj=[1000, 2000, 3000, 500, 600])  # a driver reload reset the counter
    g = GpuSampler(10, nvml=nvml)
    info = g.open()
    samples = [g.sample_now() for _ in range(4)]
    g.stop()
    assert [s.energy_mj for s in samples] == [2000, 3000, None, None]
    assert "went backwards (3000 -> 500 mJ" in g.info.unavailable_metrics["energy_mj"]
    assert info.energy_counter == "nvmlDeviceGetTotalEnergyConsumption"  # it existed; later readings are gone
    # an interval after the reset has no counter readings around it: no counter energy, not a negative one
    block = resources_block([Interval(samples[1].t, samples[3].t)], [], samples, g.info)
    assert block["gpu_energy"]["available"] is True and block["gpu_energy"]["energy_counter"] is None


def test_open_twice_initialises_once_and_a_sample_after_stop_reads_nothing():
    nvml = FakeNvml()
    g = GpuSampler(10, nvml=nvml)
    assert g.open() is g.open()
    g.stop()
    assert nvml.calls.count("nvmlInit") == 1 and nvml.calls.count("nvmlShutdown") == 1 and nvml.initialised == 0
    assert g.sample_now() is None and g.read_errors == 0


class SlowMemoryNvml(FakeNvml):
    """A device whose memory read blocks until released (to hold a read in progress)."""

    def __init__(self):
        super().__init__()
        self.entered, self.release = threading.Event(), threading.Event()

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        if self.entered.is_set():  # the probe in open() passes straight through
            self.release.wait(5)
        result = super().nvmlDeviceGetMemoryInfo(handle, version)
        self.entered.set()
        return result


def test_stop_waits_for_a_boundary_sample_in_progress_on_another_thread():
    nvml = SlowMemoryNvml()
    g = GpuSampler(10, nvml=nvml)
    g.open()
    got = []
    reader = threading.Thread(target=lambda: got.append(g.sample_now()))
    reader.start()
    time.sleep(0.05)  # the reader is now inside nvmlDeviceGetMemoryInfo
    stopper = threading.Thread(target=g.stop)
    stopper.start()
    time.sleep(0.1)
    assert nvml.initialised == 1  # nvmlShutdown has not pulled the device from under the read
    nvml.release.set()
    reader.join(5)
    stopper.join(5)
    assert nvml.initialised == 0 and g.read_errors == 0
    assert all(getattr(got[0], f) is not None for f in GPU_FIELDS)


class LostGpu(FakeNvml):
    def nvmlDeviceGetHandleByIndex(self, index):
        raise nvml_error(GPU_LOST)


def test_unavailable_nvml_is_recorded_with_reason_never_zeros():
    cases = [
        (FakeNvml(library=False), "nvml_unavailable", "NVML Shared Library Not Found"),
        (FakeNvml(device_count=0), "no_gpu", "no GPU with index 0"),
        (LostGpu(), "nvml_error", "NVML error on GPU 0: GPU is lost"),
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
        assert all(block["metrics"][f"gpu_{k}"] is None for k in GPU_FIELDS)
        t = telemetry_summary([], [], info, "x")
        assert t["gpu"]["available"] is False and t["gpu"]["reason"] == info.reason and t["maximum_gpu_gap_seconds"] is None


def test_the_real_binding_on_this_machine_says_why_there_is_no_gpu():
    g = GpuSampler(10)  # the installed pynvml, for real
    info = g.open()
    g.stop()
    if info.available:
        pytest.skip(f"this machine has an NVIDIA GPU: {info.name}")
    assert info.reason_code == "nvml_unavailable" and info.reason.startswith("NVML init failed: ")


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
