"""Forged histories, as someone with write access to a store or a hosted site (but not the
signing key) could make them: the ledger's chain recomputed after an edit or a removal, or the
whole history rewritten and re-signed with another key."""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.records.checkpoint import Checkpoint, sign_checkpoint
from benchledger.records.keys import SignerKey
from benchledger.records.ledger import FIELDS, new_entry, read_ledger
from benchledger.records.tlog import ledger_tree

REPO = Path(__file__).resolve().parents[1]
DEMO_KEY_FILE = REPO / "keys" / "DEMONSTRATION-KEY-NOT-SECRET.key"


def demo_key() -> SignerKey:
    return SignerKey.parse(DEMO_KEY_FILE.read_text(), DEMO_KEY_FILE.as_posix())


def rechain(ledger: Path, fields: list[dict]) -> None:
    """Write `fields` (one dict per line) as a ledger whose positions and chain are recomputed."""
    entries, lines = [], []
    for f in fields:
        entry, line = new_entry(entries, f["path"], f["sha256"], f["size_bytes"], f["schema"], f["sealed_at"])
        entries.append(entry)
        lines.append(line + b"\n")
    ledger.write_bytes(b"".join(lines))


def ledger_fields(ledger: Path) -> list[dict]:
    return [{k: json.loads(line)[k] for k in FIELDS} for line in ledger.read_bytes().splitlines()]


def edit_line_rechained(ledger: Path) -> None:
    """Line 1's sealing time changed and every later line re-chained: the chain holds."""
    fields = ledger_fields(ledger)
    fields[0]["sealed_at"] = "2020-01-01T00:00:00Z"
    rechain(ledger, fields)


def remove_line_rechained(ledger: Path) -> str:
    """Line 1 removed (and its record file with it), the rest re-chained; returns the removed path."""
    fields = ledger_fields(ledger)
    rechain(ledger, fields[1:])
    (ledger.parent / fields[0]["path"]).unlink()
    return fields[0]["path"]


def resign(ledger: Path, checkpoint_file: Path, signer: SignerKey, origin: str) -> bytes:
    """A checkpoint of the ledger as it now is, signed by `signer`, written over `checkpoint_file`."""
    entries = read_ledger(ledger.read_bytes(), "ledger").entries
    tree = ledger_tree(entries)
    raw = sign_checkpoint(Checkpoint(origin, tree.size, tree.root()), signer).encoded
    checkpoint_file.write_bytes(raw)
    return raw
