"""`benchledger show HASH-OR-PATH`: a record's ledger entry and the upstream hashes it claims."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterator

from benchledger.cli.arguments import text
from benchledger.cli.locations import records_dir
from benchledger.errors import LedgerError
from benchledger.records.digest import is_sha256, sha256_hex
from benchledger.records.display import readable
from benchledger.records.jsonread import read_json_bytes
from benchledger.records.pointer import to_pointer, walk
from benchledger.records.store import Store
from benchledger.records.verification import altered_problem

HELP = "print a record's ledger entry and the upstream hashes it claims"


def add_arguments(parser):
    parser.add_argument("record", type=text, metavar="HASH-OR-PATH", help="a record's sha256 (or a unique prefix of >= 12 digits) or its path")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--json", action="store_true", help="print as JSON on stdout")


def claimed_hashes(data: Any) -> Iterator[tuple[str, str]]:
    """(JSON pointer, sha256) for every SHA-256 the record mentions: claims about files we do not have."""
    for parts, value in walk(data):
        if isinstance(value, str) and is_sha256(value):
            yield to_pointer(parts), value


def run(args) -> int:
    store = Store(records_dir(args))
    entry = store.find(args.record)
    shown = store.shown(entry.path)
    raw = store.read_sealed(entry)
    actual = sha256_hex(raw)
    intact = actual == entry.sha256
    claims = list(claimed_hashes(read_json_bytes(raw, shown))) if intact else []
    fields = dataclasses.asdict(entry)
    bytes_state = "match the ledger" if intact else f"ALTERED (sha256 now {actual}); run `benchledger verify`"
    if args.json:
        print(json.dumps({"entry": fields, "bytes_match": intact,
                          "claimed_hashes": [{"pointer": p, "sha256": h} for p, h in claims]}, indent=2))
    else:
        width = max(map(len, fields))
        for key, value in fields.items():
            print(f"{key.ljust(width)}  {value}")
        print(f"{'file'.ljust(width)}  {shown}: bytes {bytes_state}")
        print(f"\nclaimed upstream hashes ({len(claims)}; as the record states them, not verified here):")
        for pointer, sha in claims:
            print(f"  {sha}  {readable(pointer)}")  # a pointer spells the record's own keys
    if not intact:  # on stderr too, as every failing command says why there
        raise LedgerError([altered_problem(store, entry, raw, actual, entry.position + 1)])
    return 0
