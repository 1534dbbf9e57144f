"""The dispatch journal: one JSON line per event of an attempt, appended and fsynced by the
driver, in the run folder (`dispatch.jsonl`). Every line is keyed by (plan sha256, case,
attempt), so a driver killed at any moment (kill -9 included) finds on restart which attempts
were in flight (submitted, no outcome) and numbers the next attempts after every earlier one;
a line torn by the kill is cut off when the journal is opened again.

Events: `submitted`, `started` (with the host), then one outcome: `completed`, `failed` (the
case ran and failed), `system_failure` (worker or node died, object lost, out of memory),
`timeout`, `host_unavailable`, `driver_lost` (the driver died while it was in flight), or
`forgotten` (a `--fresh` run dropped the case's earlier attempts from its record)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

OUTCOMES = ("completed", "failed", "system_failure", "timeout", "host_unavailable", "driver_lost")
EVENTS = ("submitted", "started", *OUTCOMES, "forgotten")


@dataclass
class Attempt:
    """One attempt of one case, folded from its journal lines."""

    case: str
    number: int
    submitted_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    outcome: str | None = None  # None: still in flight (or lost with its driver)
    reason: str | None = None
    host: dict[str, Any] = field(default_factory=dict)  # hostname, label, ray_node_id

    def lost_with_driver(self) -> str:
        """Why this attempt, in flight when its driver died, has no result (its `driver_lost`
        reason): it had reported its start from a host, or it had not (still waiting for one,
        or starting)."""
        when = ("while this attempt ran" if self.started_at is not None else
                "before this attempt reported its start (it waited for a host, or was starting)")
        return f"the driver stopped {when}; Ray ends a dead driver's tasks; run again as a new attempt"

    def as_record(self) -> dict[str, Any]:
        """The attempt as a record's `attempts[]` entry."""
        return {
            "attempt": self.number,
            "finished_at": self.finished_at,
            "host_label": self.host.get("label"),
            "hostname": self.host.get("hostname"),
            "outcome": self.outcome,
            "ray_node_id": self.host.get("ray_node_id"),
            "reason": self.reason,
            "started_at": self.started_at,
            "submitted_at": self.submitted_at,
        }


def utc_iso() -> str:
    """Now, UTC, ISO 8601 with microseconds (what journal and attempts carry)."""
    return datetime.now(timezone.utc).isoformat()


class Journal:
    """The journal of one plan's dispatch in `path`; only lines of `plan_sha256` count."""

    def __init__(self, path: Path, plan_sha256: str):
        self.path = Path(path)
        self.plan_sha256 = plan_sha256
        self.lines: list[dict[str, Any]] = []
        self._read()

    def _read(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        whole = raw[: raw.rfind(b"\n") + 1]  # a last line without its newline was torn by a kill
        if len(whole) != len(raw):
            with self.path.open("r+b") as f:
                f.truncate(len(whole))
                os.fsync(f.fileno())
        for line in whole.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # not ours to repair; every complete line was written whole
            if isinstance(entry, dict) and entry.get("plan_sha256") == self.plan_sha256 and entry.get("event") in EVENTS:
                self.lines.append(entry)

    def append(self, case: str, attempt: int, event: str, **details: Any) -> dict[str, Any]:
        """Append one event durably (write, fsync) before the driver acts on it."""
        if event not in EVENTS:
            raise ValueError(f"unknown journal event {event!r}")
        entry = {"at": utc_iso(), "attempt": attempt, "case": case, "event": event, "plan_sha256": self.plan_sha256, **details}
        data = (json.dumps(entry, sort_keys=True, allow_nan=False) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        self.lines.append(entry)
        return entry

    def attempts(self, case: str) -> list[Attempt]:
        """The case's attempts since it was last forgotten, in order."""
        by_number: dict[int, Attempt] = {}
        for entry in self.lines:
            if entry["case"] != case:
                continue
            if entry["event"] == "forgotten":
                by_number.clear()
                continue
            a = by_number.setdefault(entry["attempt"], Attempt(case, entry["attempt"]))
            if entry["event"] == "submitted":
                a.submitted_at = entry["at"]
            elif entry["event"] == "started":
                a.started_at = entry.get("started_at", entry["at"])
                a.host = {k: entry.get(k) for k in ("hostname", "label", "ray_node_id")}
            elif a.outcome is None:  # the first outcome stands
                a.outcome, a.reason = entry["event"], entry.get("reason")
                a.finished_at = entry.get("finished_at", entry["at"])
        return [by_number[n] for n in sorted(by_number)]

    def next_attempt(self, case: str) -> int:
        """1 + the highest attempt number ever journaled for the case (forgotten ones too), so
        (plan sha256, case, attempt) stays a unique key."""
        return 1 + max((e["attempt"] for e in self.lines if e["case"] == case), default=0)

    def in_flight(self, case: str) -> list[Attempt]:
        """The case's attempts with no outcome: their driver died while they ran."""
        return [a for a in self.attempts(case) if a.outcome is None]
