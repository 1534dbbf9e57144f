"""A test double of the `pynvml` module (nvidia-ml-py), at the level of the NVML calls the GPU
sampler makes. It is handed to `GpuSampler(nvml=...)` / `Telemetry(nvml=...)` /
`Runner(nvml=...)` in place of the real module (dependency injection, not patching), so the
sampler's real code runs against scripted device answers.

What it answers is built from the real binding, so the shapes cannot drift from it: the NVML
constants, the `NVMLError` class (whose constructor takes the NVML return code and maps it to the
subclass, e.g. `NVMLError(3)` is an `NVMLError_NotSupported`), and the ctypes structures the
binding returns (`c_nvmlMemory_t` / `c_nvmlMemory_v2_t`, `c_nvmlUtilization_t`, arrays of
`c_nvmlFieldValue_t` with `valueType`, `nvmlReturn` and the `value` union, `nvmlPciInfo_t`).
Importing pynvml loads no library. Like the real library, every device call before nvmlInit or
after the matching nvmlShutdown raises NVMLError_Uninitialized, an unknown handle raises
NVMLError_InvalidArgument, and an unsupported field comes back with its own `nvmlReturn` while the
call itself succeeds. Only the calls and constants the collector uses exist here; anything else
raises AttributeError. The real path is exercised by scripts/gpu-check-nvml.py on a machine with
an NVIDIA GPU."""

from __future__ import annotations

import pynvml as real

NVMLError = real.NVMLError


def nvml_error(code: int) -> real.NVMLError:
    """The exception the real binding raises for an NVML return code (its subclass)."""
    return real.NVMLError(code)


class FakeNvml:
    """One fake GPU. `power_mw`, `reasons` and friends are lists consumed one value per call
    (the last value repeats; `open()` probes each metric once, consuming a value); an exception
    instance in a list is raised for that call. A series given as None is NOT_SUPPORTED on this
    GPU. `power_fields` maps a field id to the nvmlReturn of that field (default success) and
    `power_value_type` is the valueType the power fields come back with."""

    NVML_CLOCK_SM = real.NVML_CLOCK_SM
    NVML_FI_DEV_POWER_AVERAGE = real.NVML_FI_DEV_POWER_AVERAGE
    NVML_FI_DEV_POWER_INSTANT = real.NVML_FI_DEV_POWER_INSTANT
    nvmlMemory_v2 = real.nvmlMemory_v2
    NVMLError = real.NVMLError

    def __init__(
        self,
        *,
        library: bool = True,
        device_count: int = 1,
        name: str = "Fake RTX 9000",
        total_bytes: int = 24 * 2**30,
        power_mw=(250_000,),
        used_bytes=(2**30,),
        sm_clock=(1800,),
        util=(90,),
        reasons=(0,),
        energy_mj=None,
        memory_v2: bool = True,
        clocks_event_reasons: bool = True,
        mig_mode: int | None = None,
        power_fields: dict[int, int] | None = None,
        power_value_type: int = real.NVML_VALUE_TYPE_UNSIGNED_INT,
        compute_pids=(),
        graphics_pids=None,
    ):
        self.library = library
        self.device_count = device_count
        self.name = name
        self.total_bytes = total_bytes
        self.series = {
            "power": _series(power_mw),
            "used": _series(used_bytes),
            "clock": _series(sm_clock),
            "util": _series(util),
            "reasons": _series(reasons),
            "energy": _series(energy_mj),
        }
        self.memory_v2 = memory_v2
        self.clocks_event_reasons = clocks_event_reasons  # False: a driver older than that name
        self.mig_mode = mig_mode
        self.power_fields = power_fields or {}
        self.power_value_type = power_value_type
        self.compute_pids = list(compute_pids)
        self.graphics_pids = graphics_pids  # None: NOT_SUPPORTED (a compute-only board)
        self.calls: list[str] = []
        self.initialised = 0
        self._handles = [real.c_nvmlDevice_t() for _ in range(device_count)]

    def _next(self, key):
        values = self.series[key]
        if values is None:
            raise nvml_error(real.NVML_ERROR_NOT_SUPPORTED)
        value = values.pop(0) if len(values) > 1 else values[0]
        if isinstance(value, Exception):
            raise value
        return value

    def _device(self, handle):
        """The checks the library makes on every device call."""
        if self.initialised <= 0:
            raise nvml_error(real.NVML_ERROR_UNINITIALIZED)
        if not any(handle is h for h in self._handles):
            raise nvml_error(real.NVML_ERROR_INVALID_ARGUMENT)

    def nvmlInit(self):
        self.calls.append("nvmlInit")
        if not self.library:
            raise nvml_error(real.NVML_ERROR_LIBRARY_NOT_FOUND)
        self.initialised += 1

    def nvmlShutdown(self):
        self.calls.append("nvmlShutdown")
        if self.initialised <= 0:
            raise nvml_error(real.NVML_ERROR_UNINITIALIZED)
        self.initialised -= 1

    def nvmlDeviceGetCount(self):
        if self.initialised <= 0:
            raise nvml_error(real.NVML_ERROR_UNINITIALIZED)
        return self.device_count

    def nvmlDeviceGetHandleByIndex(self, index):
        if self.initialised <= 0:
            raise nvml_error(real.NVML_ERROR_UNINITIALIZED)
        if index >= self.device_count:
            raise nvml_error(real.NVML_ERROR_INVALID_ARGUMENT)
        return self._handles[index]

    def nvmlDeviceGetName(self, handle):
        self._device(handle)
        return self.name  # nvidia-ml-py decodes char arrays to str

    def nvmlSystemGetDriverVersion(self):
        if self.initialised <= 0:
            raise nvml_error(real.NVML_ERROR_UNINITIALIZED)
        return "999.99"

    def nvmlDeviceGetUUID(self, handle):
        self._device(handle)
        return "GPU-00000000-0000-0000-0000-000000000000"

    def nvmlDeviceGetPciInfo(self, handle):
        self._device(handle)
        info = real.nvmlPciInfo_t()
        info.busId = b"00000000:01:00.0"
        return info

    def nvmlDeviceGetMigMode(self, device):
        self._device(device)
        if self.mig_mode is None:
            raise nvml_error(real.NVML_ERROR_NOT_SUPPORTED)
        return [self.mig_mode, self.mig_mode]

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        self._device(handle)
        used = self._next("used")
        if not version:
            return real.c_nvmlMemory_t(total=self.total_bytes, free=self.total_bytes - used, used=used)
        if not self.memory_v2:  # the binding asks for nvmlDeviceGetMemoryInfo_v2, which an old driver lacks
            raise nvml_error(real.NVML_ERROR_FUNCTION_NOT_FOUND)
        if version != real.nvmlMemory_v2:
            raise nvml_error(real.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
        reserved = 2**28
        return real.c_nvmlMemory_v2_t(version=version, total=self.total_bytes, reserved=reserved, free=self.total_bytes - used - reserved, used=used)

    def nvmlDeviceGetPowerUsage(self, handle):
        self._device(handle)
        self.calls.append("nvmlDeviceGetPowerUsage")
        return self._next("power")

    def nvmlDeviceGetFieldValues(self, handle, fieldIds):
        self._device(handle)
        self.calls.append(f"nvmlDeviceGetFieldValues{list(fieldIds)}")
        values = (real.c_nvmlFieldValue_t * len(fieldIds))()
        for v, field_id in zip(values, fieldIds):
            v.fieldId, v.scopeId = field_id if isinstance(field_id, tuple) else (field_id, 0)
            v.nvmlReturn = self.power_fields.get(field_id, real.NVML_SUCCESS)
            if v.nvmlReturn == real.NVML_SUCCESS and v.fieldId in (self.NVML_FI_DEV_POWER_INSTANT, self.NVML_FI_DEV_POWER_AVERAGE):
                v.valueType = self.power_value_type
                member = {real.NVML_VALUE_TYPE_DOUBLE: "dVal", real.NVML_VALUE_TYPE_UNSIGNED_INT: "uiVal", real.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: "ullVal"}[self.power_value_type]
                setattr(v.value, member, self._next("power"))
            elif v.nvmlReturn == real.NVML_SUCCESS:
                v.nvmlReturn = real.NVML_ERROR_NOT_SUPPORTED  # only the power fields are scripted
        return values

    def nvmlDeviceGetClockInfo(self, handle, type):
        self._device(handle)
        assert type == real.NVML_CLOCK_SM
        return self._next("clock")

    def nvmlDeviceGetUtilizationRates(self, handle):
        self._device(handle)
        if self.mig_mode == real.NVML_DEVICE_MIG_ENABLE:  # as NVML answers in MIG mode
            raise nvml_error(real.NVML_ERROR_NOT_SUPPORTED)
        return real.c_nvmlUtilization_t(gpu=self._next("util"), memory=0)

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle):
        if not self.clocks_event_reasons:
            raise nvml_error(real.NVML_ERROR_FUNCTION_NOT_FOUND)
        self._device(handle)
        return self._next("reasons")

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle):
        self._device(handle)
        return self._next("reasons")

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        self._device(handle)
        return self._next("energy")


    def _processes(self, handle, pids):
        self._device(handle)
        if pids is None:
            raise nvml_error(real.NVML_ERROR_NOT_SUPPORTED)
        return [real.nvmlStructToFriendlyObject(real.c_nvmlProcessInfo_v3_t(pid=pid, usedGpuMemory=256 << 20)) for pid in pids]

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        return self._processes(handle, self.compute_pids)

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle):
        return self._processes(handle, self.graphics_pids)


def _series(values):
    return None if values is None else list(values)
