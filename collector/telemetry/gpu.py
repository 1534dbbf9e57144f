"""GPU sampling through NVML (`import pynvml`, from the nvidia-ml-py distribution).

The NVML module is passed in (`nvml=`), so tests drive this exact code with a test double that
implements the same pynvml calls (tests/collector/fake_pynvml.py); by default the real pynvml is
imported. Without an NVML library, without a GPU, or on an NVML error, `open()` returns a GpuInfo
saying unavailable and why, and no samples are taken: the record then says "unavailable", never
zeros. A single failing call inside a sample leaves only that field None."""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from typing import Any

from collector.telemetry.sampler import PeriodicSampler

HW_THERMAL = 0x40  # nvmlClocksEventReasonHwThermalSlowdown
SW_THERMAL = 0x20  # nvmlClocksEventReasonSwThermalSlowdown
POWER_METHODS = {
    # plan setting -> the NVML call recorded with every power figure
    "power_usage": "nvmlDeviceGetPowerUsage",
    "instant": "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)",
    "average": "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE)",
}


@dataclass(frozen=True, slots=True)
class GpuSample:
    t: float
    board_watts: float | None
    memory_used_bytes: float | None
    sm_clock_mhz: float | None
    utilization_percent: float | None
    thermal_hardware: str  # "active" | "not_active" | "unavailable"
    thermal_software: str
    energy_mj: int | None  # nvmlDeviceGetTotalEnergyConsumption (mJ since driver load)


@dataclass(frozen=True)
class GpuInfo:
    available: bool
    reason: str | None  # why unavailable, e.g. "NVML init failed: NVML Shared Library Not Found"
    index: int
    reason_code: str | None = None  # "nvml_unavailable" | "no_gpu" | "nvml_error" (energy reasons)
    name: str | None = None
    memory_total_bytes: int | None = None
    driver_version: str | None = None
    power_method: str | None = None  # NVML call behind board watts
    memory_info_version: str | None = None  # "v2" or "v1" (they disagree on `used`)
    energy_counter: str | None = None  # NVML call behind energy_mj, None when the GPU has none


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class GpuSampler(PeriodicSampler[GpuSample]):
    thread_name = "gpu-sampler"

    def __init__(self, hz: float, index: int = 0, power: str = "power_usage", nvml: Any = None, clock=time.monotonic):
        super().__init__(hz, clock)
        if power not in POWER_METHODS:
            raise ValueError(f"unknown power method {power!r}; expected one of {', '.join(POWER_METHODS)}")
        self.index = index
        self.power = power
        self._nvml = nvml
        self._handle = None
        self._initialised = False
        self._mem_version = "v1"
        self.info = GpuInfo(False, "not opened", index, "nvml_unavailable")
        self.read_errors = 0  # individual NVML calls that failed while sampling

    def open(self) -> GpuInfo:
        """Initialise NVML and probe the device; never raises."""
        try:
            nvml = self._nvml if self._nvml is not None else importlib.import_module("pynvml")
        except ImportError as err:
            self.info = GpuInfo(False, f"pynvml not importable: {err}", self.index, "nvml_unavailable")
            return self.info
        self._nvml = nvml
        try:
            nvml.nvmlInit()
            self._initialised = True
        except Exception as err:  # pynvml raises NVMLError subclasses; a missing library too
            self.info = GpuInfo(False, f"NVML init failed: {_text(err) or type(err).__name__}", self.index, "nvml_unavailable")
            return self.info
        try:
            count = nvml.nvmlDeviceGetCount()
            if self.index >= count:
                self.info = GpuInfo(False, f"no GPU with index {self.index} ({count} found by NVML)", self.index, "no_gpu")
                self._shutdown()
                return self.info
            handle = nvml.nvmlDeviceGetHandleByIndex(self.index)
            name = _text(nvml.nvmlDeviceGetName(handle))
            driver = _text(nvml.nvmlSystemGetDriverVersion())
            self._handle = handle
            mem_version = "v2"
            try:
                total = nvml.nvmlDeviceGetMemoryInfo(handle, version=nvml.nvmlMemory_v2).total
            except Exception:
                mem_version = "v1"
                total = nvml.nvmlDeviceGetMemoryInfo(handle).total
            self._mem_version = mem_version
            if self._power_watts() is None:
                raise RuntimeError(f"{POWER_METHODS[self.power]} is not supported on this GPU")
            try:
                nvml.nvmlDeviceGetTotalEnergyConsumption(handle)
                counter = "nvmlDeviceGetTotalEnergyConsumption"
            except Exception:
                counter = None
        except Exception as err:
            self.info = GpuInfo(False, f"NVML error on GPU {self.index}: {_text(err) or type(err).__name__}", self.index, "nvml_error")
            self._shutdown()
            return self.info
        self.info = GpuInfo(
            available=True,
            reason=None,
            index=self.index,
            name=name,
            memory_total_bytes=int(total),
            driver_version=driver,
            power_method=POWER_METHODS[self.power],
            memory_info_version=mem_version,
            energy_counter=counter,
        )
        return self.info

    def start(self) -> None:
        if self.info.available:
            super().start()

    def stop(self) -> None:
        super().stop()
        self._shutdown()

    def sample_now(self, **options) -> GpuSample | None:
        return super().sample_now(**options) if self.info.available and self._handle is not None else None

    def _shutdown(self) -> None:
        if self._initialised:
            try:
                self._nvml.nvmlShutdown()
            except Exception:
                pass
        self._initialised = False
        self._handle = None

    def _call(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            self.read_errors += 1
            return None

    def _power_watts(self) -> float | None:
        nvml, h = self._nvml, self._handle
        if self.power == "power_usage":
            mw = self._call(nvml.nvmlDeviceGetPowerUsage, h)
            return None if mw is None else mw / 1000.0
        field = nvml.NVML_FI_DEV_POWER_INSTANT if self.power == "instant" else nvml.NVML_FI_DEV_POWER_AVERAGE
        values = self._call(nvml.nvmlDeviceGetFieldValues, h, [field])
        if not values or values[0].nvmlReturn != 0:
            return None
        return values[0].value.uiVal / 1000.0

    def read(self, t: float, **options) -> GpuSample:
        nvml, h = self._nvml, self._handle
        mem = self._call(nvml.nvmlDeviceGetMemoryInfo, h, **({"version": nvml.nvmlMemory_v2} if self._mem_version == "v2" else {}))
        util = self._call(nvml.nvmlDeviceGetUtilizationRates, h)
        clock = self._call(nvml.nvmlDeviceGetClockInfo, h, nvml.NVML_CLOCK_SM)
        reasons = self._call(nvml.nvmlDeviceGetCurrentClocksEventReasons, h)
        energy = self._call(nvml.nvmlDeviceGetTotalEnergyConsumption, h) if self.info.energy_counter else None
        return GpuSample(
            t=t,
            board_watts=self._power_watts(),
            memory_used_bytes=None if mem is None else float(mem.used),
            sm_clock_mhz=None if clock is None else float(clock),
            utilization_percent=None if util is None else float(util.gpu),
            thermal_hardware="unavailable" if reasons is None else ("active" if reasons & HW_THERMAL else "not_active"),
            thermal_software="unavailable" if reasons is None else ("active" if reasons & SW_THERMAL else "not_active"),
            energy_mj=energy,
        )
