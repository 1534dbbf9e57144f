"""Record bytes: serialised once (sorted keys, no NaN), written atomically (by the runner,
through `benchledger.atomic`), validated against the record's schema, and sealed in the store through
`benchledger.records.store.Store.seal_bytes`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from benchledger.errors import CollectError, SchemaError
from benchledger.records.jsonread import first_lone_surrogate

# Where text that is not Unicode comes from: Python keeps each undecodable byte of a file name or
# argument as a lone surrogate ('\\udcff'), which UTF-8 cannot write.
UNDECODABLE = ("a file name or argument holds bytes that are not UTF-8; rename the file, or pass the text in UTF-8")


def encode(record: dict[str, Any]) -> bytes:
    """The record's bytes: UTF-8 JSON, sorted keys, one line plus a newline. NaN or infinity is
    refused (not JSON), and so is text that is not Unicode (no UTF-8 can hold it)."""
    try:
        text = json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as err:
        raise CollectError(f"record contains a non-finite number ({err}); refusing to write it") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:  # a ValueError too, but no number: a lone surrogate
        raise CollectError(f"record {first_lone_surrogate(record)} holds {err.object[err.start:err.end]!r}, which is not valid "
                           f"Unicode: {UNDECODABLE}; refusing to write it") from None


def validate(record: dict[str, Any], schema_id: str, file: str) -> None:
    """Raise SchemaError listing every violation of the schema."""
    from benchledger.records.schema import validate as schema_validate

    problems = schema_validate(record, schema_id, file)
    if problems:
        raise SchemaError(problems, f"{file}: the assembled record violates {schema_id} ({len(problems)} problem(s)); nothing was sealed")


def store_path(records_dir: Path, article_key: str, tested_at: str, taken: set[str], raw: bytes) -> str:
    """`<article_key>/<tested_at>.json`, or `-2`, `-3`... when that path is already used."""
    n = 1
    while True:
        rel = f"{article_key}/{tested_at}{'' if n == 1 else f'-{n}'}.json"
        if rel not in taken and path_free_for(records_dir, rel, raw):
            return rel
        n += 1


def path_free_for(records_dir: Path, rel: str, raw: bytes) -> bool:
    """Whether `raw` can be sealed at `rel`: nothing is there, or exactly these bytes are (a seal
    that crashed after linking the file and before its ledger line; sealing again adopts it)."""
    path = records_dir / rel
    if not os.path.lexists(path):
        return True
    return path.is_file() and not path.is_symlink() and path.stat().st_size == len(raw) and path.read_bytes() == raw


def seal(records_dir: Path, raw: bytes, schema_id: str, as_path: str):
    """Seal the bytes in the store; returns the ledger entry."""
    from benchledger.records.store import Store

    return Store(records_dir).seal_bytes(raw, schema_id, as_path)
