"""`benchledger repair [--records DIR]`: recover a store from an interrupted seal or checkpoint.

A seal killed part-way leaves at most a temp file (removed here, or by the next seal) and a
record file linked into place whose ledger line was never written (reported by `verify` as
unsealed; sealing the same bytes to the same path again adopts it); a checkpoint killed
part-way leaves a temp file in checkpoints/ (removed here). Sealed files and the ledger are
never changed: a sealed file changed or lost, or a ledger broken in a way no interrupted seal
leaves, is named with the way back (exit 1)."""

from __future__ import annotations

import dataclasses

from benchledger.cli.arguments import text
from benchledger.cli.locations import records_dir
from benchledger.errors import LedgerError, Problem
from benchledger.records.ledger import CHECKPOINTS_DIR, is_seal_temp, read_ledger, read_ledger_file
from benchledger.records.store import Store
from benchledger.records.verification import sealed_bytes_problems, unlisted_files

HELP = "remove temp files an interrupted seal or checkpoint left in the store and list files still waiting to be sealed"


def add_arguments(parser):
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    ledger = read_ledger_file(store.ledger_path)
    shown = store.ledger_path.as_posix()
    if ledger and not ledger.endswith(b"\n"):
        keep = ledger.rfind(b"\n") + 1
        if not read_ledger(ledger + b"\n", shown).problems:
            # the whole entry was written, all but its newline: it is sealed, and cutting it would
            # drop a sealed (perhaps signed) entry
            raise LedgerError([Problem(shown, "", "its last entry is whole and continues the chain, but lacks its newline: "
                                       f"add it with `printf '\\n' >> {shown}` (never cut the entry: it is sealed), then run "
                                       "`benchledger verify`")])
        # an append cut short (a crash mid-write): its bytes hold no complete entry. Cutting them
        # is the user's call: a ledger edited by hand would look the same
        raise LedgerError([Problem(shown, "", f"its last line is cut short ({len(ledger) - keep} bytes after "
                                   f"the last newline, no complete entry): if a seal was interrupted, cut them off with "
                                   f"`truncate -s {keep} {shown}`, then run `benchledger repair` again "
                                   "and seal the file it lists; if not, restore the ledger from a copy")])
    removed = store.repair()
    for rel in removed:
        print(f"removed {store.shown(rel)} (a temp file of an interrupted {'checkpoint' if rel.startswith(CHECKPOINTS_DIR + '/') else 'seal'}; "
              "it held nothing sealed)")
    broken = store.read().problems
    if broken:  # what repair cannot undo: the ledger was edited, converted or mixed with another
        advice = ("repair never edits the ledger: restore it from where the store came from (git, a backup, a built site's "
                  "records/ledger.jsonl)")
        if len(broken) == 1:  # printed alone, without a summary: the way forward goes with it
            raise LedgerError([dataclasses.replace(broken[0], message=f"{broken[0].message}; {advice}")])
        raise LedgerError(broken, f"{shown} is broken ({len(broken)} problems), which no interrupted seal leaves; {advice}")
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
