"""`benchledger seal FILE... --schema ID [--as PATH] [--skip-sealed]`: validate records and seal
their exact bytes (many files in one run: every one checked first, all problems at once, then each
sealed; with --skip-sealed, files sealed already at their paths are left out, so a stopped run
can be run again as it was)."""

from __future__ import annotations

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import records_dir
from benchledger.records.display import readable
from benchledger.records.schema import schema_ids
from benchledger.records.store import Store

HELP = "validate a record, copy its exact bytes into the store and append its ledger entry"


def add_arguments(parser):
    parser.add_argument("files", type=path, nargs="+", metavar="FILE",
                        help="the record files to seal (their bytes are kept exactly), in ledger order")
    parser.add_argument("--schema", type=text, required=True, metavar="ID", help=f"schema id: one of {', '.join(schema_ids())}")
    parser.add_argument("--as", type=text, dest="as_path", metavar="PATH",
                        help="path inside the store, e.g. llm-cpu-offload/2026-09-27.json, for one FILE (default: each file's name)")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--skip-sealed", action="store_true",
                        help="leave out each FILE whose exact bytes are sealed already at its store path, instead of "
                             "refusing the run (to run a stopped `seal FILE...` again)")


def run(args) -> int:
    store = Store(records_dir(args))
    outcome = store.seal_files(args.files, args.schema, args.as_path, args.skip_sealed)
    for skipped in outcome.already:
        print(f"already sealed {store.shown(skipped.path)}  sha256 {skipped.sha256}  (ledger line {skipped.position + 1}; "
              f"{readable(skipped.shown)} left out)")
    for entry in outcome.sealed:
        print(f"sealed {store.shown(entry.path)}  sha256 {entry.sha256}  {entry.size_bytes} bytes  schema {entry.schema}")
    if outcome.sealed:
        print(f"ledger line {outcome.sealed[-1].position + 1}, head {outcome.sealed[-1].entry_sha256}")
    else:
        print("nothing new to seal: every file is sealed already")
    return 0
