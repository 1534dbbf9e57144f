"""`benchledger seal FILE --schema ID [--as PATH]`: validate a record and seal its exact bytes."""

from __future__ import annotations

from pathlib import Path

from benchledger.cli.locations import records_dir
from benchledger.records.store import Store

HELP = "validate a record, copy its exact bytes into the store and append its ledger entry"


def add_arguments(parser):
    parser.add_argument("file", type=Path, help="the record file to seal (its bytes are kept exactly)")
    parser.add_argument("--schema", required=True, metavar="ID", help="schema id, e.g. gsh-llm-core-article/1")
    parser.add_argument("--as", dest="as_path", metavar="PATH",
                        help="path inside the store, e.g. llm-cpu-offload/2026-09-27.json (default: the file's name)")
    parser.add_argument("--records", default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    store = Store(records_dir(args))
    entry = store.seal(args.file, args.schema, args.as_path)
    print(f"sealed {store.shown(entry.path)}  sha256 {entry.sha256}  {entry.size_bytes} bytes  schema {entry.schema}")
    print(f"ledger line {entry.position + 1}, head {entry.entry_sha256}")
    return 0
