"""Forcing the process-pool path in a test, whatever runner it is on."""

import pytest


def force_process_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validate records and parse pages in a pool of two worker processes from two jobs on. The
    pool needs a job count (PARALLEL_MIN_RECORDS) and two usable CPUs: on a one-CPU runner, or
    under `taskset -c 0`, lowering the count alone left "pool versus one process" comparing one
    process with itself. Two workers on one CPU still are two processes."""
    monkeypatch.setattr("benchledger.records.verification.PARALLEL_MIN_RECORDS", 2)
    monkeypatch.setattr("benchledger.records.verification.usable_cpus", lambda: 2)
    from benchledger.records.verification import pool_workers

    assert pool_workers(2) == 2
