"""Merging stores: every record another store holds and this one does not (by SHA-256) is
sealed here under the same path, in the other store's ledger order, through the ordinary
sealing (atomic, never overwriting, one ledger line each). The other store must verify first,
and so must this one. A record whose path here already holds other bytes is reported, never
overwritten; the rest are still merged. This is how records collected on separate machines
without a cluster come together (the asv way)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from benchledger.errors import LedgerError, Problem, SealError
from benchledger.records.digest import sha256_hex
from benchledger.records.ledger import LedgerEntry
from benchledger.records.store import Store
from benchledger.records.verification import STALE_TEMP, UNSEALED, RecordStatus


@dataclass
class MergeReport:
    """What `merge` did: entries sealed here, entries already held, and paths in conflict."""

    added: list[LedgerEntry] = field(default_factory=list)
    held: list[LedgerEntry] = field(default_factory=list)  # the other store's entries this one had
    conflicts: list[Problem] = field(default_factory=list)


def _must_verify(store: Store, what: str, outcome: str = "nothing was merged", finishing: Store | None = None) -> None:
    """LedgerError unless `store` verifies. With `finishing` (the other store of a merge), what
    a merge of it killed part-way left is not held against it, as the next seal recovers it: a
    seal's temp file, and an unsealed file holding the bytes the other store sealed at its path."""
    report = store.verify()
    problems = report.problems
    if finishing is not None:
        sealed_there = {e.path: e.sha256 for e in finishing.entries()}
        left = {id(p) for r in report.records if _left_by_a_merge(store, r, sealed_there) for p in r.problems}
        problems = [p for p in problems if id(p) not in left]
    if problems:
        problems = problems + [Problem(store.root.as_posix(), "", f"the {what} store does not verify ({len(problems)} problem(s)); run `benchledger verify --records {store.root.as_posix()}`")]
        raise LedgerError(problems, f"{store.root.as_posix()}: {outcome}")


def _left_by_a_merge(store: Store, row: RecordStatus, sealed_there: dict[str, str]) -> bool:
    """Whether `row` is a seal's temp file, or an unsealed file holding the bytes the other store
    sealed at its path (`sealed_there`: path -> sha256)."""
    if row.status == STALE_TEMP:
        return True
    path = store.root / row.path
    return (row.status == UNSEALED and row.path in sealed_there and path.is_file() and not path.is_symlink()
            and sha256_hex(path.read_bytes()) == sealed_there[row.path])


def merge(store: Store, other: Store) -> MergeReport:
    """Seal into `store` every record of `other` it lacks (see the module docstring)."""
    if store.root.resolve() == other.root.resolve():
        raise LedgerError([Problem(other.root.as_posix(), "", "is the store being merged into; pass another store")])
    _must_verify(other, "other")
    _must_verify(store, "target", finishing=other)  # a merge killed part-way is finished by running it again
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
        try:
            added = store.seal_bytes(raw, entry.schema, entry.path, shown=other.shown(entry.path))
        except SealError:
            # another sealer took these bytes or this path since the look above: held, or a conflict
            now = {e.sha256: e for e in store.entries()}
            if entry.sha256 in now:
                report.held.append(entry)
                ours[entry.sha256] = sealed_paths[now[entry.sha256].path] = now[entry.sha256]
                continue
            held = next((e for e in now.values() if e.path == entry.path), None)
            if held is None:
                raise
            report.conflicts.append(Problem(store.shown(entry.path), "", f"sealed here with sha256 {held.sha256} while merging; the other "
                                                                          f"store's record {entry.sha256} was not merged (sealed files are never overwritten)"))
            continue
        ours[added.sha256] = sealed_paths[added.path] = added
        report.added.append(added)
    _must_verify(store, "merged", outcome=f"{len(report.added)} record(s) were merged (each sealed as usual), but the store does not "
                                          "verify now")
    return report

