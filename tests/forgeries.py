"""Forged histories, as someone with write access to a store or a hosted site (but not the
signing key) could make them: the ledger's chain recomputed after an edit or a removal, or the
whole history rewritten and re-signed with another key."""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.records.checkpoint import Checkpoint, sign_checkpoint
from benchledger.records.keys import SignerKey
from benchledger.records.ledger import FIELDS, new_entry, read_ledger
from benchledger.records.tlog import inclusion_document, ledger_tree

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


def republish_proofs(site: Path) -> None:
    """Inclusion proofs of a site made again from its (forged) served ledger, into a tree of the
    ledger's size, as a forger without the signing key can (the checkpoint stays as signed)."""
    entries = read_ledger((site / "records" / "ledger.jsonl").read_bytes(), "ledger").entries
    tree = ledger_tree(entries)
    for e in entries:
        doc = inclusion_document(tree, entries, e.position, len(entries))
        (site / "ledger" / "inclusion" / f"{e.sha256}.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")


def forged_store(tmp: Path) -> tuple[Path, SignerKey]:
    """A copy of the shipped store with its history rewritten (line 1 edited, chain recomputed)
    and its log re-made from scratch, signed by a key of the forger's (who also replaced the
    verifier keys): a store, and so a site, that holds together except against an earlier
    checkpoint or a pinned key."""
    import shutil

    from benchledger.records.signing import append_checkpoint
    from benchledger.records.store import Store
    from tests.store_copies import SHIPPED

    records = Path(shutil.copytree(SHIPPED, tmp / "forged-records"))
    edit_line_rechained(records / "ledger.jsonl")
    shutil.rmtree(records / "checkpoints")
    forger = SignerKey.generate("demo.benchledger.invalid/DEMONSTRATION-KEY-NOT-SECRET")  # same name, other key
    append_checkpoint(Store(records), forger)
    return records, forger
