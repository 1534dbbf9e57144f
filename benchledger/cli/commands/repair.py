"""`benchledger repair [--records DIR]`: recover a store from an interrupted seal.

A seal killed part-way leaves at most a temp file (removed here, or by the next seal) and a
record file linked into place whose ledger line was never written (reported by `verify` as
unsealed; sealing the same bytes to the same path again adopts it). Sealed files and the
ledger are never changed."""

from __future__ import annotations

from benchledger.cli.locations import records_dir
from benchledger.records.store import Store
from benchledger.records.verification import UNSEALED

HELP = "remove temp files an interrupted seal left in the store and list files still waiting to be sealed"


def add_arguments(parser):
    parser.add_argument("--records", default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    removed = store.repair()
    for rel in removed:
        print(f"removed {store.shown(rel)} (a temp file of an interrupted seal; it held nothing sealed)")
    unsealed = [r.path for r in store.verify().records if r.status == UNSEALED]
    for rel in unsealed:
        print(f"unsealed: {store.shown(rel)}: if an interrupted seal put it there, run the same seal again "
              f"(`benchledger seal {store.shown(rel)} --schema ID --as {rel} --records {store.root.as_posix()}` adopts it); "
              "otherwise move it out of the store")
    if not removed and not unsealed:
        print(f"{store.root.as_posix()}: nothing to repair")
    return 0
