"""The phase timeline of one case: named phases (baseline, load, ready, warmup, responses,
cleanup) and request windows, each a declared interval on the monotonic clock. A phase may occur
several times (e.g. `ready` between context groups); its statistics use the union of its
intervals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchledger.cases.llm_core import PHASES
from collector.intervals import Interval

__all__ = ["PHASES", "CpuSnapshot", "Window", "Timeline"]


@dataclass(frozen=True)
class CpuSnapshot:
    """CPU seconds (user + system) of the tracked process, read at monotonic time t."""

    t: float
    process_cpu_seconds: float


@dataclass(frozen=True)
class Window:
    """One request (or round) window: its interval plus CPU snapshots taken just outside it."""

    kind: str  # "measured" or "warmup" (free text; modules select by it)
    group: Any  # e.g. the context length; None when the module has no groups
    round: int | None
    interval: Interval
    cpu_before: CpuSnapshot | None
    cpu_after: CpuSnapshot | None
    completed: bool = True  # False when the request failed (the body raised or called fail())


@dataclass
class Timeline:
    phases: list[tuple[str, Interval]] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)

    def add_phase(self, name: str, interval: Interval) -> None:
        if name not in PHASES:
            raise ValueError(f"unknown phase {name!r}; phases are {', '.join(PHASES)}")
        self.phases.append((name, interval))

    def phase_intervals(self, name: str) -> list[Interval]:
        """Every interval declared for phase `name`, in order."""
        return [iv for n, iv in self.phases if n == name]

    def phase_names(self) -> list[str]:
        """The phases that occurred, in the canonical order of PHASES."""
        seen = {n for n, _ in self.phases}
        return [n for n in PHASES if n in seen]

    def select(self, kind: str | None = None, group: Any = None, completed: bool | None = True) -> list[Window]:
        """Windows of the given kind, group and completion (None matches any); by default only
        completed windows."""
        return [
            w
            for w in self.windows
            if (kind is None or w.kind == kind) and (group is None or w.group == group) and (completed is None or w.completed == completed)
        ]
