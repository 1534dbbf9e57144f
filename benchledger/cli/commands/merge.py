"""`benchledger merge OTHER_STORE`: seal here every record of another store this one lacks."""

from __future__ import annotations

from pathlib import Path

from benchledger.cli.locations import records_dir
from benchledger.errors import MergeError
from benchledger.records.merge import merge
from benchledger.records.store import Store

HELP = "append to this store every record of another store it does not hold yet (by sha256); both must verify"


def add_arguments(parser):
    parser.add_argument("other", type=Path, help="the other records store (a folder with ledger.jsonl)")
    parser.add_argument("--records", default=None, help="the store merged into (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    report = merge(store, Store(args.other))
    for entry in report.added:
        print(f"merged {store.shown(entry.path)}  sha256 {entry.sha256}")
    print(f"{len(report.added)} record(s) merged, {len(report.held)} already held, {len(report.conflicts)} in conflict; "
          f"{store.ledger_path.as_posix()} verifies, head {store.head_sha256()}")
    if report.conflicts:
        raise MergeError(report.conflicts, f"{len(report.conflicts)} record(s) not merged: their paths hold other bytes here (nothing was overwritten)")
    return 0
