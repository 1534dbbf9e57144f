"""`benchledger prove HASH`: a record's inclusion proof into the latest signed checkpoint."""

from __future__ import annotations

import json

from benchledger.cli.arguments import text
from benchledger.cli.locations import records_dir
from benchledger.errors import InputError, LedgerError
from benchledger.records.store import Store
from benchledger.records.tlog import check_store, inclusion_document, ledger_tree, store_checkpoints

HELP = "print a record's inclusion proof (JSON) into the latest signed checkpoint"


def add_arguments(parser):
    parser.add_argument("record", type=text, metavar="HASH-OR-PATH", help="a record's sha256 (or a unique prefix of >= 12 digits) or its path")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    entry = store.find(args.record)
    entries = store.entries()
    problems = check_store(store, entries)
    if problems:
        raise LedgerError(problems, f"the stored checkpoints do not hold ({len(problems)} problem(s)); run `benchledger verify`")
    checkpoints, _ = store_checkpoints(store)
    if not checkpoints:
        raise InputError(store.shown("checkpoints"), "", "no signed checkpoint yet: run `benchledger checkpoint --key FILE`")
    latest = checkpoints[-1].checkpoint
    if entry.position >= latest.size:
        raise InputError(entry.path, "", f"sealed after the latest checkpoint (tree size {latest.size}): "
                                         "run `benchledger checkpoint` to sign a tree that includes it")
    print(json.dumps(inclusion_document(ledger_tree(entries), entries, entry.position, latest.size), indent=2))
    return 0
