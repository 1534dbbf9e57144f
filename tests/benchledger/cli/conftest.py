"""Fixtures for the CLI tests: a private copy of the shipped store, and the CLI run in-process
(the real argument parsing and error printing of benchledger.cli.main)."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchledger.cli.main import main
from benchledger.records.ledger import new_entry, read_ledger
from tests.store_copies import shipped_copy


@dataclass
class Result:
    code: int
    out: str
    err: list[str]  # stderr lines


@pytest.fixture
def records(tmp_path) -> Path:
    """A copy of records/ (tests never touch the real one); its cache lands in tmp_path/.cache."""
    return shipped_copy(tmp_path)


@pytest.fixture
def valid(records, tmp_path):
    """A valid new torch-graph-replay record beside the store."""
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["finished_epoch"] = 1800000000.5
    path = tmp_path / "new.json"
    path.write_text(json.dumps(data, indent=1))
    return path


@pytest.fixture
def cli(capsys, monkeypatch, tmp_path):
    """Run `benchledger ARGS...` from tmp_path, so paths print as `records/...`."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> Result:
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err.splitlines())

    return run


def append_unchecked(records: Path, rel: str, raw: bytes, schema_id: str) -> None:
    """Put a file and a correctly chained ledger line in place WITHOUT seal's checks, as a
    tamperer with write access could: verify must still catch what is wrong with the record."""
    entries = read_ledger((records / "ledger.jsonl").read_bytes(), "ledger").entries
    _, line = new_entry(entries, rel, hashlib.sha256(raw).hexdigest(), len(raw), schema_id, "2026-11-01T00:00:00Z")
    (records / rel).parent.mkdir(parents=True, exist_ok=True)
    (records / rel).write_bytes(raw)
    with open(records / "ledger.jsonl", "ab") as out:
        out.write(line + b"\n")
