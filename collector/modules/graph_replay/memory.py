"""Device memory of one measurement from `torch.cuda` memory statistics: allocated and reserved
bytes before and after graph capture, their increases, the figures at the end of the
measurement, and the peaks since it began. Without CUDA every figure is None: there is no
device memory to report, and zero would claim there was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class MemorySnapshot:
    """The caching allocator's figures at one moment."""

    allocated_bytes: int  # bytes in live tensors
    reserved_bytes: int  # bytes the caching allocator holds from the driver

    @classmethod
    def take(cls, device: "torch.device") -> "MemorySnapshot":
        """Read the figures after the device has finished its queued work."""
        import torch

        torch.cuda.synchronize(device)
        return cls(torch.cuda.memory_allocated(device), torch.cuda.memory_reserved(device))


def reset_peaks(device: "torch.device") -> None:
    """Start a new peak window (peaks are per measurement)."""
    import torch

    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)


@dataclass
class MeasurementMemory:
    """Memory figures of one measurement; None where not measured."""

    before_capture: MemorySnapshot | None = None
    after_capture: MemorySnapshot | None = None
    end: MemorySnapshot | None = None
    peak_allocated_bytes: int | None = None
    peak_reserved_bytes: int | None = None

    def finish(self, device: "torch.device") -> None:
        """Record the end-of-measurement figures and the peaks since `reset_peaks`."""
        import torch

        self.end = MemorySnapshot.take(device)
        self.peak_allocated_bytes = torch.cuda.max_memory_allocated(device)
        self.peak_reserved_bytes = torch.cuda.max_memory_reserved(device)

    def capture_fields(self) -> dict[str, Any]:
        """The seed's before/after-capture fields and their increases."""
        before, after = self.before_capture, self.after_capture
        captured = before is not None and after is not None
        return {
            "before_capture_allocated_bytes": before.allocated_bytes if before else None,
            "before_capture_reserved_bytes": before.reserved_bytes if before else None,
            "after_capture_allocated_bytes": after.allocated_bytes if after else None,
            "after_capture_reserved_bytes": after.reserved_bytes if after else None,
            "capture_allocated_increase_bytes":
                after.allocated_bytes - before.allocated_bytes if captured else None,
            "capture_reserved_increase_bytes":
                after.reserved_bytes - before.reserved_bytes if captured else None,
        }

    def usage_fields(self) -> dict[str, Any]:
        """The seed's end-of-measurement and peak fields."""
        end = self.end
        return {
            "allocated_bytes": end.allocated_bytes if end else None,
            "reserved_bytes": end.reserved_bytes if end else None,
            "peak_allocated_bytes": self.peak_allocated_bytes,
            "peak_reserved_bytes": self.peak_reserved_bytes,
        }
