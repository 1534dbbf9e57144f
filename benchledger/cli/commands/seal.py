"""`benchledger seal FILE... --schema ID [--as PATH]`: validate records and seal their exact bytes
(many files in one run: every one checked first, all problems at once, then each sealed)."""

from __future__ import annotations

from pathlib import Path

from benchledger.cli.locations import records_dir
from benchledger.records.schema import schema_ids
from benchledger.records.store import Store

HELP = "validate a record, copy its exact bytes into the store and append its ledger entry"


def add_arguments(parser):
    parser.add_argument("files", type=Path, nargs="+", metavar="FILE",
                        help="the record files to seal (their bytes are kept exactly), in ledger order")
    parser.add_argument("--schema", required=True, metavar="ID", help=f"schema id: one of {', '.join(schema_ids())}")
    parser.add_argument("--as", dest="as_path", metavar="PATH",
                        help="path inside the store, e.g. llm-cpu-offload/2026-09-27.json, for one FILE (default: each file's name)")
    parser.add_argument("--records", default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    entries = store.seal_files(args.files, args.schema, args.as_path)
    for entry in entries:
        print(f"sealed {store.shown(entry.path)}  sha256 {entry.sha256}  {entry.size_bytes} bytes  schema {entry.schema}")
    print(f"ledger line {entries[-1].position + 1}, head {entries[-1].entry_sha256}")
    return 0
