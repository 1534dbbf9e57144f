"""`benchledger import TOOL FILE [--as PATH] [--limitation TEXT ...]`: seal another tool's
results (llama-bench -o json / -o jsonl) as a record, with the exact file's sha256."""

from __future__ import annotations

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import records_dir

HELP = "import another tool's results (llama-bench -o json or -o jsonl) as a sealed record"


def add_arguments(parser):
    from collector.importers.registry import IMPORTERS

    parser.add_argument("tool", choices=sorted(IMPORTERS), help="the tool that wrote FILE")
    parser.add_argument("file", type=path, help="the tool's output file, imported exactly (its sha256 is recorded)")
    parser.add_argument("--as", type=text, dest="as_path", metavar="PATH",
                        help="path inside the store (default: <tool>/<date of the first test>-<sha256 prefix>.json)")
    parser.add_argument("--limitation", type=text, action="append", default=[], metavar="TEXT",
                        help="a limitation to record beside the importer's own (repeatable)")
    parser.add_argument("--imported-by", type=text, metavar="NAME", help="who imports it (default: the login name)")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")


def run(args) -> int:
    from benchledger.records.store import Store
    from collector.importers.base import import_file, read_source
    from collector.importers.registry import importer_for

    importer = importer_for(args.tool)
    source = read_source(args.file, imported_by=args.imported_by)
    store = Store(records_dir(args))
    entry = import_file(importer, source, store, args.as_path, args.limitation)
    print(f"sealed {store.shown(entry.path)}  sha256 {entry.sha256}  schema {entry.schema}")
    print(f"imported {source.shown} ({args.tool} output; that file's own sha256 {source.sha256}, kept in the record as its "
          f"source); ledger line {entry.position + 1}, head {entry.entry_sha256}")
    return 0
