"""The importer interface (one module per source tool) and the workflow they share.

An importer reads the exact bytes of another tool's output file and either lists every problem
with it (`FILE: $[3].avg_ts: expected a number`, all at once) or returns a record of its own
schema. `import_file` does the rest for every tool: it hashes the file, asks the importer for
the record, validates it against the schema and the consistency checks with every problem named
in the imported file's own terms, and seals it; anything wrong seals nothing.

Adding a tool: write `collector/importers/<tool>.py` with a subclass of `Importer` and list it
in `collector/importers/registry.py`."""

from __future__ import annotations

import dataclasses
import getpass
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Sequence

from benchledger import __version__
from benchledger.errors import ConsistencyError, InputError, Problem, SchemaError, SealError
from benchledger.records import checks, schema
from benchledger.files import read_input
from benchledger.records.digest import sha256_hex
from benchledger.records.jsonread import read_json_bytes
from benchledger.records.ledger import utc_timestamp
from benchledger.records.store import LedgerEntry, Store
from collector.record import encode

# Another tool's output is at most as large as a record may be (the record keeps every row).
MAX_SOURCE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    """The file being imported, and who imports it when."""

    shown: str  # how messages name it (as the user typed it)
    name: str  # its base name, kept in the record
    raw: bytes
    imported_at: str  # RFC 3339, UTC, seconds
    imported_by: str

    @property
    def sha256(self) -> str:
        return sha256_hex(self.raw)


class Importer(ABC):
    """Turns one tool's output file into a record of `schema`."""

    tool: ClassVar[str]  # the name `benchledger import TOOL` takes, e.g. "llama-bench"
    schema: ClassVar[str]  # the schema id of the records it makes
    version: ClassVar[int]  # bumped when the same file would give a different record

    @abstractmethod
    def record(self, source: Source, limitations: Sequence[str]) -> dict[str, Any]:
        """The record for `source`, with `limitations` added to the importer's own; raises a
        ProblemsError listing every problem with the file (nothing half-read is returned)."""

    @abstractmethod
    def store_path(self, record: dict[str, Any], source: Source) -> str:
        """The default path inside the store (`--as` overrides it)."""

    def source_path(self, record_path: str) -> str | None:
        """Where a place in the record (`$.tests[3].avg_ts`) is in the imported file (`$[3].avg_ts`);
        None when it is not from the file (then the message names the record)."""
        return None

    def source_of(self, record: dict[str, Any]) -> str | None:
        """The sha256 of the file a sealed record of this importer was made from."""
        return None

    @property
    def importer_id(self) -> str:
        return f"benchledger {__version__}, importer {self.tool}/{self.version}"


def current_user() -> str:
    """The login name of whoever runs the import ('unknown' where the system has none)."""
    try:
        return getpass.getuser() or "unknown"
    except (KeyError, OSError):
        return "unknown"


def read_source(path: Path, imported_at: str | None = None, imported_by: str | None = None) -> Source:
    """The exact bytes of the file to import; InputError when it is missing, too large or unreadable."""
    shown = path.as_posix()
    raw = read_input(path, shown, MAX_SOURCE_BYTES, "a file to import")
    return Source(shown, path.name, raw, imported_at or utc_timestamp(), imported_by or current_user())


def _in_source(importer: Importer, problems: list[Problem], source: Source, record_name: str) -> list[Problem]:
    """Problems found in the record, named where they are in the imported file when they come from it."""
    out = []
    for p in problems:
        where = importer.source_path(p.path)
        out.append(dataclasses.replace(p, file=source.shown, path=where) if where is not None
                   else dataclasses.replace(p, file=f"{record_name} (made from {source.shown})"))
    return out


def build_record(importer: Importer, source: Source, limitations: Sequence[str] = ()) -> bytes:
    """The record bytes for `source`, valid against the importer's schema and its checks; raises
    (every problem listed, each named in the imported file) otherwise."""
    bad = [i for i, text in enumerate(limitations) if not text.strip()]
    if bad:
        raise InputError("--limitation", "", "a limitation needs some text")
    data = importer.record(source, [text.strip() for text in limitations])
    name = f"{importer.schema} record"
    problems = schema.validate(data, importer.schema, name)
    if problems:
        raise SchemaError(_in_source(importer, problems, source, name),
                          f"{source.shown}: {len(problems)} problem(s) against {importer.schema}; nothing was sealed")
    problems = checks.check_record(data, importer.schema, name)
    if problems:
        raise ConsistencyError(_in_source(importer, problems, source, name),
                               f"{source.shown}: {len(problems)} consistency failure(s); nothing was sealed")
    return encode(data)


def import_file(importer: Importer, source: Source, store: Store, as_path: str | None = None,
                limitations: Sequence[str] = ()) -> LedgerEntry:
    """Import `source` as a sealed record of `importer.schema` in `store`; all or nothing. The
    same file (by sha256) is imported once."""
    raw = build_record(importer, source, limitations)
    for entry in store.entries():
        if entry.schema != importer.schema:
            continue
        try:
            sealed = read_json_bytes(store.read_sealed(entry), entry.path)
        except InputError:
            continue  # `verify` reports a broken store; this only looks for an earlier import
        if importer.source_of(sealed) == source.sha256:
            raise SealError(f"{source.shown}: this exact file (sha256 {source.sha256}) was already imported as "
                            f"{store.shown(entry.path)}; a result is imported once")
    target = as_path or importer.store_path(json.loads(raw), source)
    return store.seal_bytes(raw, importer.schema, target, shown=source.shown)
