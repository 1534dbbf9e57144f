"""Merging stores: every record another store holds and this one does not (by SHA-256) is
sealed here under the same path, in the other store's ledger order, through the ordinary
sealing (atomic, never overwriting, one ledger line each). The other store must verify first,
and so must this one. A record whose path here already holds other bytes is reported, never
overwritten; the rest are still merged. This is how records collected on separate machines
without a cluster come together (the asv way)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from benchledger.errors import LedgerError, Problem
from benchledger.records.digest import sha256_hex
from benchledger.records.ledger import LedgerEntry
from benchledger.records.store import Store


@dataclass
class MergeReport:
    """What `merge` did: entries sealed here, entries already held, and paths in conflict."""

    added: list[LedgerEntry] = field(default_factory=list)
    held: list[LedgerEntry] = field(default_factory=list)  # the other store's entries this one had
    conflicts: list[Problem] = field(default_factory=list)


def _must_verify(store: Store, what: str) -> None:
    report = store.verify()
    if not report.ok:
        problems = report.problems + [Problem(store.root.as_posix(), "", f"the {what} store does not verify ({len(report.problems)} problem(s)); run `benchledger verify --records {store.root.as_posix()}`")]
        raise LedgerError(problems, f"{store.root.as_posix()}: nothing was merged")


def merge(store: Store, other: Store) -> MergeReport:
    """Seal into `store` every record of `other` it lacks (see the module docstring)."""
    if store.root.resolve() == other.root.resolve():
        raise LedgerError([Problem(other.root.as_posix(), "", "is the store being merged into; pass another store")])
    _must_verify(other, "other")
    _must_verify(store, "target")
    report = MergeReport()
    ours = {e.sha256: e for e in store.entries()}
    sealed_paths = {e.path: e for e in ours.values()}
    for entry in other.entries():
        if entry.sha256 in ours:
            report.held.append(entry)
            continue
        raw = other.read_sealed(entry)
        if sha256_hex(raw) != entry.sha256:  # changed since it was verified
            raise LedgerError([Problem(other.shown(entry.path), "", "changed while merging; nothing more was merged")])
        target = store.root / entry.path
        plain = target.is_file() and not target.is_symlink()
        if entry.path in sealed_paths or (os.path.lexists(target) and not (plain and target.read_bytes() == raw)):
            held = sealed_paths.get(entry.path)
            why = (f"sealed here with sha256 {held.sha256}" if held else "exists here with other bytes (not sealed)" if plain
                   else "exists here and is not a plain file (a folder or a link)")
            report.conflicts.append(Problem(store.shown(entry.path), "",
                                            f"{why}; the other store's record {entry.sha256} was not merged (sealed files are never overwritten)"))
            continue
        added = store.seal_bytes(raw, entry.schema, entry.path, shown=other.shown(entry.path))
        ours[added.sha256] = sealed_paths[added.path] = added
        report.added.append(added)
    _must_verify(store, "merged")
    return report

