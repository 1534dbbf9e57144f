"""GPU sampling through NVML (`import pynvml`, from the nvidia-ml-py distribution).

The NVML module is passed in (`nvml=`), so tests drive this exact code with a test double that
implements the same pynvml calls (tests/collector/fake_pynvml.py); by default the real pynvml is
imported. Without an NVML library, without a GPU, or on an NVML error while opening the device,
`open()` returns a GpuInfo saying unavailable and why, and no samples are taken: the record then
says "unavailable", never zeros.

Once the device is open, each metric stands alone. A metric whose call the GPU, driver or binding
does not support (NVML_ERROR_NOT_SUPPORTED, FUNCTION_NOT_FOUND, NO_PERMISSION, or a call the
installed pynvml lacks) is named with its reason in `GpuInfo.unavailable_metrics` and stays None
in every sample; any other failing call leaves only that field of that sample None (counted in
`read_errors`).

Units as NVML gives them, converted once here: power mW -> W, memory bytes, clocks MHz,
utilisation percent, the energy counter mJ (uint64 since driver load: it does not wrap in
practice, but a driver reload resets it, so a counter that goes backwards is dropped from then on).

Which GPU: `index` is NVML's index, which follows PCI bus order and ignores CUDA_VISIBLE_DEVICES
and CUDA_DEVICE_ORDER, so on a multi-GPU machine NVML's GPU 0 need not be the process's cuda:0.
GpuInfo records the UUID and PCI bus id (compare them with `nvidia-smi -L` or torch) and the
CUDA_VISIBLE_DEVICES seen at open. With MIG enabled, NVML reads the whole physical GPU: power,
memory and clocks are device-wide, and utilisation is not supported (listed as unavailable).

NVML is thread-safe; all reads and the shutdown happen under the sampler lock, so a boundary sample
from another thread never races nvmlShutdown."""

from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from collector.telemetry.sampler import PeriodicSampler

HW_THERMAL = 0x40  # nvmlClocksEventReasonHwThermalSlowdown
SW_THERMAL = 0x20  # nvmlClocksEventReasonSwThermalSlowdown
POWER_METHODS = {
    # plan setting -> the NVML call recorded with every power figure
    "power_usage": "nvmlDeviceGetPowerUsage",
    "instant": "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)",
    "average": "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_AVERAGE)",
}
ENERGY_COUNTER = "nvmlDeviceGetTotalEnergyConsumption"
THERMAL_CALLS = ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")  # new name, pre-12.535 name
# NVML return codes meaning "this device/driver/binding cannot give this metric" (not a transient error)
NOT_SUPPORTED, NO_PERMISSION, FUNCTION_NOT_FOUND = 3, 4, 13
# c_nvmlFieldValue_t.valueType -> the member of its value union (nvmlValueType_t, NVML ABI)
FIELD_VALUE_MEMBERS = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}


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
    index: int  # NVML index (PCI bus order; not the CUDA ordinal)
    reason_code: str | None = None  # "nvml_unavailable" | "no_gpu" | "nvml_error" (energy reasons)
    name: str | None = None
    memory_total_bytes: int | None = None
    driver_version: str | None = None
    power_method: str | None = None  # NVML call behind board watts
    memory_info_version: str | None = None  # "v2" or "v1" (they disagree on `used`)
    energy_counter: str | None = None  # NVML call behind energy_mj, None when the GPU has none
    thermal_method: str | None = None  # NVML call behind the thermal-slowdown states
    uuid: str | None = None  # to match NVML's device with CUDA's (`nvidia-smi -L`)
    pci_bus_id: str | None = None
    mig_mode: str | None = None  # "enabled" | "disabled"; None where the GPU has no MIG
    cuda_visible_devices: str | None = None  # the environment at open (NVML ignores it)
    unavailable_metrics: dict[str, str] = field(default_factory=dict)  # metric -> why it is never read


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _error_text(err: BaseException) -> str:
    return _text(err) or type(err).__name__


def _unsupported(err: BaseException) -> bool:
    """The call can never answer on this device/driver/binding (as opposed to a transient error)."""
    return isinstance(err, (AttributeError, TypeError)) or getattr(err, "value", None) in (NOT_SUPPORTED, NO_PERMISSION, FUNCTION_NOT_FOUND)


def field_value_number(value: Any) -> float | int:
    """The number in a c_nvmlFieldValue_t, read from the union member its valueType names."""
    member = FIELD_VALUE_MEMBERS.get(value.valueType)
    if member is None:
        raise ValueError(f"NVML field {value.fieldId}: unknown valueType {value.valueType}")
    return getattr(value.value, member)


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
        self._thermal_call: str | None = None
        self._last_energy_mj: int | None = None
        self.info = GpuInfo(False, "not opened", index, "nvml_unavailable")
        self.read_errors = 0  # individual NVML calls that failed while sampling

    def open(self) -> GpuInfo:
        """Initialise NVML and probe the device and each metric once; never raises. Calling it
        again while open returns the same info (one nvmlInit, one nvmlShutdown)."""
        if self._initialised:
            return self.info
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
            self.info = GpuInfo(False, f"NVML init failed: {_error_text(err)}", self.index, "nvml_unavailable")
            return self.info
        try:
            count = nvml.nvmlDeviceGetCount()
            if self.index >= count:
                self.info = GpuInfo(False, f"no GPU with index {self.index} ({count} found by NVML)", self.index, "no_gpu")
                self._shutdown()
                return self.info
            handle = nvml.nvmlDeviceGetHandleByIndex(self.index)
        except Exception as err:
            self.info = GpuInfo(False, f"NVML error on GPU {self.index}: {_error_text(err)}", self.index, "nvml_error")
            self._shutdown()
            return self.info
        self._handle = handle
        self.info = self._probe(nvml, handle)
        return self.info

    def _probe(self, nvml: Any, h: Any) -> GpuInfo:
        """Device facts, and which metric calls this GPU answers (one trial read of each)."""
        unavailable: dict[str, str] = {}

        def attempt(metric: str, call: str, fn: Callable[[], Any]) -> Any:
            try:
                return fn()
            except Exception as err:
                if _unsupported(err):
                    unavailable[metric] = f"{call}: {_error_text(err)}"
                return None  # a transient error: keep sampling the metric

        def optional(fn: Callable[..., Any], *args: Any) -> Any:
            try:
                return fn(*args)
            except Exception:  # a descriptive fact, not a metric: null when NVML cannot say
                return None

        def optional_text(fn: Callable[..., Any], *args: Any) -> str | None:
            value = optional(fn, *args)
            return None if value is None else _text(value)

        memory = None
        try:
            memory = nvml.nvmlDeviceGetMemoryInfo(h, version=nvml.nvmlMemory_v2)
            self._mem_version = "v2"
        except Exception:  # driver or binding without the v2 call
            self._mem_version = "v1"
            memory = attempt("memory_used_bytes", "nvmlDeviceGetMemoryInfo", lambda: nvml.nvmlDeviceGetMemoryInfo(h))
        attempt("board_watts", POWER_METHODS[self.power], self._read_power)
        attempt("sm_clock_mhz", "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)", lambda: nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM))
        attempt("utilization_percent", "nvmlDeviceGetUtilizationRates", lambda: nvml.nvmlDeviceGetUtilizationRates(h))
        self._thermal_call, why = self._choose_thermal_call(nvml, h)
        if why is not None:
            unavailable["thermal_slowdown"] = why
        attempt("energy_mj", ENERGY_COUNTER, lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(h))
        mig = optional(nvml.nvmlDeviceGetMigMode, h)
        pci = optional(nvml.nvmlDeviceGetPciInfo, h)
        return GpuInfo(
            available=True,
            reason=None,
            index=self.index,
            name=optional_text(nvml.nvmlDeviceGetName, h),
            memory_total_bytes=None if memory is None else int(memory.total),
            driver_version=optional_text(nvml.nvmlSystemGetDriverVersion),
            power_method=POWER_METHODS[self.power],
            memory_info_version=self._mem_version,
            energy_counter=None if "energy_mj" in unavailable else ENERGY_COUNTER,
            thermal_method=self._thermal_call,
            uuid=optional_text(nvml.nvmlDeviceGetUUID, h),
            pci_bus_id=None if pci is None else _text(pci.busId),
            mig_mode=None if mig is None else ("enabled" if mig[0] == 1 else "disabled"),  # NVML_DEVICE_MIG_ENABLE
            cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES"),
            unavailable_metrics=unavailable,
        )

    @staticmethod
    def _choose_thermal_call(nvml: Any, h: Any) -> tuple[str | None, str | None]:
        """The clock-event-reasons call this driver and binding answer, else None and why."""
        why = None
        for call in THERMAL_CALLS:
            try:
                getattr(nvml, call)(h)
                return call, None
            except Exception as err:
                if not _unsupported(err):
                    return call, None  # a transient error: sample it anyway
                why = f"{call}: {_error_text(err)}"
                if getattr(err, "value", None) == NOT_SUPPORTED:
                    break  # the GPU itself has no reasons; the older name will not help
        return None, why

    def foreign_processes(self, own_pids: set[int]) -> tuple[list[dict[str, Any]], str | None]:
        """Processes other than `own_pids` that NVML lists on the open GPU (compute and
        graphics), as [{"pid", "used_memory_bytes", "kind"}], and None; or [] and why NVML
        cannot say (not open, no such call, an NVML error). Call it before the case touches the
        GPU: then every listed process is foreign, whichever PID namespace NVML reports in."""
        with self._lock:
            if self._handle is None:
                return [], f"GPU not open: {self.info.reason or 'not opened'}"
            found: list[dict[str, Any]] = []
            for kind, call in (("compute", "nvmlDeviceGetComputeRunningProcesses"), ("graphics", "nvmlDeviceGetGraphicsRunningProcesses")):
                try:
                    procs = getattr(self._nvml, call)(self._handle)
                except Exception as err:
                    if kind == "graphics" and _unsupported(err):
                        continue  # compute-only boards (most data-centre GPUs) have no graphics list
                    return [], f"{call}: {_error_text(err)}"
                for proc in procs:
                    if int(proc.pid) not in own_pids:
                        used = getattr(proc, "usedGpuMemory", None)
                        found.append({"kind": kind, "pid": int(proc.pid), "used_memory_bytes": None if used is None else int(used)})
            return found, None

    def start(self) -> None:
        if self.info.available:
            super().start()

    def stop(self) -> None:
        super().stop()
        self._shutdown()

    def _shutdown(self) -> None:
        with self._lock:  # not while a read is using the handle
            if self._initialised:
                try:
                    self._nvml.nvmlShutdown()
                except self._nvml.NVMLError:  # the driver gone mid-run: nothing is left to release
                    pass
            self._initialised = False
            self._handle = None

    def _read_power(self) -> float:
        """Board watts by the plan's method (NVML gives milliwatts); raises the NVML error."""
        nvml, h = self._nvml, self._handle
        if self.power == "power_usage":
            return nvml.nvmlDeviceGetPowerUsage(h) / 1000.0
        field_id = nvml.NVML_FI_DEV_POWER_INSTANT if self.power == "instant" else nvml.NVML_FI_DEV_POWER_AVERAGE
        value = nvml.nvmlDeviceGetFieldValues(h, [field_id])[0]
        if value.nvmlReturn != 0:  # the call succeeds while the field itself fails
            raise nvml.NVMLError(value.nvmlReturn)
        return field_value_number(value) / 1000.0

    def _read_energy(self) -> int | None:
        """The energy counter (mJ); None from the first time it goes backwards (a driver reload
        reset it, so differences across the reset would be wrong)."""
        mj = self._nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle)
        if self._last_energy_mj is not None and mj < self._last_energy_mj:
            why = f"{ENERGY_COUNTER}: went backwards ({self._last_energy_mj} -> {mj} mJ, driver reset?); readings dropped from then on"
            self.info = replace(self.info, unavailable_metrics={**self.info.unavailable_metrics, "energy_mj": why})
            return None
        self._last_energy_mj = mj
        return mj

    def capture(self, t: float, **options) -> GpuSample | None:
        if self._handle is None:  # not open, or shut down (capture runs under the sampler lock)
            return None
        nvml, h = self._nvml, self._handle
        skip = self.info.unavailable_metrics

        def get(metric: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            if metric in skip:
                return None
            try:
                return fn(*args, **kwargs)
            except Exception:
                self.read_errors += 1
                return None

        mem_kwargs = {"version": nvml.nvmlMemory_v2} if self._mem_version == "v2" else {}
        mem = get("memory_used_bytes", nvml.nvmlDeviceGetMemoryInfo, h, **mem_kwargs)
        util = get("utilization_percent", nvml.nvmlDeviceGetUtilizationRates, h)
        clock = get("sm_clock_mhz", nvml.nvmlDeviceGetClockInfo, h, nvml.NVML_CLOCK_SM)
        reasons = get("thermal_slowdown", getattr(nvml, self._thermal_call), h) if self._thermal_call else None
        energy = get("energy_mj", self._read_energy)
        return GpuSample(
            t=t,
            board_watts=get("board_watts", self._read_power),
            memory_used_bytes=None if mem is None else float(mem.used),
            sm_clock_mhz=None if clock is None else float(clock),
            utilization_percent=None if util is None else float(util.gpu),
            thermal_hardware="unavailable" if reasons is None else ("active" if reasons & HW_THERMAL else "not_active"),
            thermal_software="unavailable" if reasons is None else ("active" if reasons & SW_THERMAL else "not_active"),
            energy_mj=energy,
        )
