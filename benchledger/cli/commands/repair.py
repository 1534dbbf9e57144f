"""`benchledger repair [--records DIR]`: recover a store from an interrupted seal.

A seal killed part-way leaves at most a temp file (removed here, or by the next seal) and a
record file linked into place whose ledger line was never written (reported by `verify` as
unsealed; sealing the same bytes to the same path again adopts it). Sealed files and the
ledger are never changed: a sealed file changed or lost is named, with the way back (exit 1)."""

from __future__ import annotations

from benchledger.cli.locations import records_dir
from benchledger.errors import LedgerError, Problem
from benchledger.records.ledger import is_seal_temp, read_ledger_file
from benchledger.records.store import Store
from benchledger.records.verification import sealed_bytes_problems, unlisted_files

HELP = "remove temp files an interrupted seal left in the store and list files still waiting to be sealed"


def add_arguments(parser):
    parser.add_argument("--records", default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    ledger = read_ledger_file(store.ledger_path)
    if ledger and not ledger.endswith(b"\n"):
        # an append cut short (a crash mid-write): its bytes hold no complete entry. Cutting them
        # is the user's call: a ledger edited by hand would look the same
        keep = ledger.rfind(b"\n") + 1
        raise LedgerError([Problem(store.ledger_path.as_posix(), "", f"its last line is cut short ({len(ledger) - keep} bytes after "
                                   f"the last newline, no complete entry): if a seal was interrupted, cut them off with "
                                   f"`truncate -s {keep} {store.ledger_path.as_posix()}`, then run `benchledger repair` again "
                                   "and seal the file it lists; if not, restore the ledger from a copy")])
    removed = store.repair()
    for rel in removed:
        print(f"removed {store.shown(rel)} (a temp file of an interrupted seal; it held nothing sealed)")
    # what the ledger does not list, without validating every record as `verify` would
    unsealed = [rel for rel in unlisted_files(store, store.read()) if not is_seal_temp(rel)]
    for rel in unsealed:
        print(f"unsealed: {store.shown(rel)}: if an interrupted seal put it there, run the same seal again "
              f"(`benchledger seal {store.shown(rel)} --schema ID --as {rel} --records {store.root.as_posix()}` adopts it); "
              "if it was sealed before and the ledger lost its line, restore the ledger from a copy (a built site's "
              "records/ledger.jsonl) instead; otherwise move it out of the store")
    # sealed files are never rewritten here: one changed or lost is named, with the way back
    damaged = sealed_bytes_problems(store, store.read())
    if damaged:
        raise LedgerError(damaged, f"{store.root.as_posix()}: {len(damaged)} sealed file(s) changed or missing; "
                                   "repair never rewrites a sealed file")
    if not removed and not unsealed:
        print(f"{store.root.as_posix()}: nothing to repair")
    return 0
