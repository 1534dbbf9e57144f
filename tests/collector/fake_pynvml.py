"""A test double of the `pynvml` module (nvidia-ml-py), at the level of the NVML calls the GPU
sampler makes. It is handed to `GpuSampler(nvml=...)` / `Telemetry(nvml=...)` /
`Runner(nvml=...)` in place of the real module (dependency injection, not patching), so the
sampler's real code runs against scripted device answers. Only the calls and constants the
collector uses exist here; anything else raises AttributeError, so the double cannot silently
drift from what the sampler needs. The real path is exercised by scripts/gpu-check-nvml.py on a
machine with an NVIDIA GPU."""

from __future__ import annotations

from types import SimpleNamespace

NVML_CLOCK_SM = 1
NVML_FI_DEV_POWER_AVERAGE = 185
NVML_FI_DEV_POWER_INSTANT = 186
nvmlMemory_v2 = 0x02000028
nvmlClocksEventReasonSwThermalSlowdown = 0x20
nvmlClocksEventReasonHwThermalSlowdown = 0x40


class NVMLError(Exception):
    def __init__(self, value: int, text: str):
        super().__init__(text)
        self.value = value


class NVMLError_LibraryNotFound(NVMLError):
    def __init__(self):
        super().__init__(12, "NVML Shared Library Not Found")


class NVMLError_NotSupported(NVMLError):
    def __init__(self):
        super().__init__(3, "Not Supported")


class FakeNvml:
    """One fake GPU. `power_mw`, `reasons` and friends are lists consumed one value per call
    (the last value repeats); an exception instance in a list is raised for that call."""

    NVML_CLOCK_SM = NVML_CLOCK_SM
    NVML_FI_DEV_POWER_AVERAGE = NVML_FI_DEV_POWER_AVERAGE
    NVML_FI_DEV_POWER_INSTANT = NVML_FI_DEV_POWER_INSTANT
    nvmlMemory_v2 = nvmlMemory_v2
    NVMLError = NVMLError

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
    ):
        self.library = library
        self.device_count = device_count
        self.name = name
        self.total_bytes = total_bytes
        self.series = {"power": list(power_mw), "used": list(used_bytes), "clock": list(sm_clock), "util": list(util), "reasons": list(reasons), "energy": list(energy_mj) if energy_mj else None}
        self.memory_v2 = memory_v2
        self.calls: list[str] = []
        self.initialised = 0

    def _next(self, key):
        values = self.series[key]
        if values is None:
            raise NVMLError_NotSupported()
        value = values.pop(0) if len(values) > 1 else values[0]
        if isinstance(value, Exception):
            raise value
        return value

    def nvmlInit(self):
        self.calls.append("nvmlInit")
        if not self.library:
            raise NVMLError_LibraryNotFound()
        self.initialised += 1

    def nvmlShutdown(self):
        self.calls.append("nvmlShutdown")
        self.initialised -= 1

    def nvmlDeviceGetCount(self):
        return self.device_count

    def nvmlDeviceGetHandleByIndex(self, index):
        if index >= self.device_count:
            raise NVMLError(2, "Invalid Argument")
        return ("handle", index)

    def nvmlDeviceGetName(self, handle):
        return self.name.encode()  # older pynvml returns bytes

    def nvmlSystemGetDriverVersion(self):
        return "999.99"

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        if version is not None and not self.memory_v2:
            raise NVMLError(13, "Function Not Found")
        return SimpleNamespace(total=self.total_bytes, used=self._next("used"), free=0)

    def nvmlDeviceGetPowerUsage(self, handle):
        self.calls.append("nvmlDeviceGetPowerUsage")
        return self._next("power")

    def nvmlDeviceGetFieldValues(self, handle, field_ids):
        self.calls.append(f"nvmlDeviceGetFieldValues{list(field_ids)}")
        return [SimpleNamespace(fieldId=f, nvmlReturn=0, value=SimpleNamespace(uiVal=self._next("power"))) for f in field_ids]

    def nvmlDeviceGetClockInfo(self, handle, clock_type):
        assert clock_type == NVML_CLOCK_SM
        return self._next("clock")

    def nvmlDeviceGetUtilizationRates(self, handle):
        return SimpleNamespace(gpu=self._next("util"), memory=0)

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle):
        return self._next("reasons")

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        return self._next("energy")
