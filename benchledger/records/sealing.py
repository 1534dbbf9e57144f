"""Sealing: a record's exact bytes written atomically into the store and one ledger line
appended. Temp file, fsync, hard link (an existing file is never overwritten), then the ledger
append, all under an exclusive lock on the store folder; any failure undoes every step, so the
store is left as it was."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from benchledger.errors import ConsistencyError, InputError, SchemaError, SealError
from benchledger.records import schema
from benchledger.records.ledger import LedgerEntry, LedgerRead, new_entry, store_path_problem
from benchledger.records.verification import INCONSISTENT, INVALID, NOT_JSON, validate_record

if TYPE_CHECKING:
    from benchledger.records.store import Store


def seal_bytes(store: "Store", raw: bytes, schema_id: str, as_path: str, shown: str | None = None) -> LedgerEntry:
    """Validate `raw`, write it to `as_path` in `store` and append its ledger entry; all or nothing.

    When `as_path` already holds exactly `raw` and no ledger entry names it, that file is
    adopted (sealed in place) instead of refused: it lets a store shipped with its files
    be sealed without moving them."""
    shown = shown or as_path
    reason = store_path_problem(as_path)
    if reason:
        raise SealError(f"{shown}: target path {as_path!r} {reason}")
    _validate(raw, schema_id, shown)
    sha256 = hashlib.sha256(raw).hexdigest()
    with _locked(store.root):
        read = store.intact()
        for entry in read.entries:
            if entry.sha256 == sha256:
                raise SealError(f"{shown}: these exact bytes are already sealed as {entry.path} (ledger line {entry.position + 1}); a record is sealed once")
            if entry.path == as_path:
                raise SealError(f"{shown}: {store.shown(as_path)} is already sealed (ledger line {entry.position + 1}); sealed files are never overwritten")
        entry, line = new_entry(read.entries, as_path, sha256, len(raw), schema_id)
        target = store.root / as_path
        created = _place(store, raw, target, shown)
        try:
            _append(store.ledger_path, line)
        except BaseException:
            if created:
                created.undo()
            raise
        store.remember_append(line, LedgerRead(
            read.entries + [entry], read.entry_lines + [len(read.entries) + 1], [], entry.entry_sha256, {}))
    store.cache.remember(sha256, schema_id)
    return entry


def _validate(raw: bytes, schema_id: str, shown: str) -> None:
    if schema_id not in schema.schema_ids():
        raise InputError(schema_id, "", schema.unknown_schema_message())
    status, problems, _ = validate_record((raw, schema_id, shown))
    if status == NOT_JSON:
        raise InputError(shown, problems[0].path, problems[0].message, problems[0].line)
    if status == INVALID:
        raise SchemaError(problems, f"{shown}: {len(problems)} violation(s) of schema {schema_id}; nothing was sealed")
    if status == INCONSISTENT:
        raise ConsistencyError(problems, f"{shown}: {len(problems)} consistency failure(s); nothing was sealed")


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """An exclusive lock on the store folder, so two sealers cannot fork the chain."""
    if not root.is_dir():
        raise InputError(root.as_posix(), "", "no such records folder")
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _place(store: "Store", raw: bytes, target: Path, shown: str) -> "_Placed | None":
    """Write `raw` at `target` atomically, never over an existing file; None when adopting."""
    rel = target.relative_to(store.root).as_posix()
    if os.path.lexists(target):
        if target.is_file() and not target.is_symlink() and target.read_bytes() == raw:
            return None  # adopt: the exact bytes are already there, unsealed
        raise SealError(f"{shown}: {store.shown(rel)} already exists with other content; sealed files are never overwritten")
    placed = _Placed(store.root)
    try:
        placed.make_parents(target.parent)
        if not target.parent.resolve().is_relative_to(store.root.resolve()):
            raise SealError(f"{shown}: target {store.shown(rel)} leaves the store through a symbolic link")
        tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
        with open(tmp, "xb") as out:
            placed.tmp = tmp
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.link(tmp, target)  # fails if target appeared meanwhile: never overwrites
        placed.target = target
        os.unlink(tmp)
        placed.tmp = None
        fsync_dir(target.parent)
    except BaseException as err:
        placed.undo()
        if isinstance(err, OSError):
            raise SealError(f"{shown}: cannot write {store.shown(rel)}: {err.strerror or err}; nothing was sealed") from None
        raise
    return placed


def _append(ledger_path: Path, line: bytes) -> None:
    """Append one line to the ledger; on failure cut the ledger back to its previous size."""
    existed = ledger_path.exists()
    fd = os.open(ledger_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    size = os.fstat(fd).st_size
    try:
        data = line + b"\n"
        if os.write(fd, data) != len(data):
            raise OSError(errno.EIO, "short write")
        os.fsync(fd)
    except BaseException as err:
        os.ftruncate(fd, size)
        os.close(fd)
        if not existed:
            ledger_path.unlink()
        if isinstance(err, OSError):
            raise SealError(f"cannot append to {ledger_path.as_posix()}: {err.strerror or err}; nothing was sealed") from None
        raise
    os.close(fd)
    if not existed:
        fsync_dir(ledger_path.parent)


class _Placed:
    """What `_place` created (folders, temp file, target), so a later failure can undo it."""

    def __init__(self, root: Path):
        self.root = root
        self.folders: list[Path] = []
        self.tmp: Path | None = None
        self.target: Path | None = None

    def make_parents(self, folder: Path) -> None:
        missing = []
        while not folder.exists() and folder != self.root:
            missing.append(folder)
            folder = folder.parent
        for f in reversed(missing):
            f.mkdir()
            self.folders.append(f)

    def undo(self) -> None:
        for path in (self.tmp, self.target):
            if path is not None:
                path.unlink(missing_ok=True)
        for folder in reversed(self.folders):
            folder.rmdir()


def fsync_dir(folder: Path) -> None:
    """Make a new or removed directory entry durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
