"""Sealing: a record's exact bytes written atomically into the store and one ledger line
appended. Temp file, fsync, hard link (an existing file is never overwritten), then the ledger
append, all under an exclusive lock on the store folder; any failure undoes every step, so the
store is left as it was.

A crash (kill -9, power loss) can stop a seal between any two steps; every such state is
recovered by the next seal (or `benchledger repair`), never by hand:
- the temp file has one fixed name, `TEMP_NAME` in the store root, and only a sealer holding the
  lock writes it, so whoever holds the lock next removes a stale one;
- a file linked into place whose ledger line never got written holds exactly the bytes being
  sealed when the same seal (or `collect` resume) runs again, and is adopted in place."""

from __future__ import annotations

import errno
import os
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchledger.atomic import fsync_dir, write_all
from benchledger.errors import ConsistencyError, InputError, LedgerError, Problem, ProblemsError, SchemaError, SealError, os_reason
from benchledger.records import lock, schema
from benchledger.records.digest import sha256_hex
from benchledger.records.jsonread import count_colons_with_numpy
from benchledger.records.ledger import (CHECKPOINTS_DIR, LEDGER_NAME, TEMP_NAME, TEMP_NAME_TAKEN, LedgerEntry, entry_after,
                                       is_checkpoint_temp, is_seal_temp, store_path_problem)
from benchledger.records.tlog import largest_checkpoint_size
from benchledger.records.verification import INCONSISTENT, INVALID, NOT_JSON, pool_workers, record_verdict, stored_files, worker_pool

if TYPE_CHECKING:
    from benchledger.records.store import Store

# Test hook: `BENCHLEDGER_CRASH_AT=<point>` kills the sealing process with SIGKILL right after
# that durable step, so tests can stop a seal at every crash point (see `_crash_point`).
CRASH_POINTS = ("temp-written", "linked", "temp-removed", "appended")


def _crash_point(name: str) -> None:
    if os.environ.get("BENCHLEDGER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


def seal_bytes(store: "Store", raw: bytes, schema_id: str, as_path: str, shown: str | None = None) -> LedgerEntry:
    """Validate `raw`, write it to `as_path` in `store` and append its ledger entry; all or nothing.

    When `as_path` already holds exactly `raw` and no ledger entry names it, that file is
    adopted (sealed in place) instead of refused: it lets a store shipped with its files
    be sealed without moving them."""
    shown = shown or as_path
    reason = store_path_problem(as_path)
    if reason:
        raise SealError(f"{shown}: target path {as_path!r} {reason}")
    result, sha256 = _validated((raw, schema_id, shown))
    _raise_if_invalid(schema_id, shown, result)
    return _seal_valid(store, raw, schema_id, as_path, shown, sha256)


@dataclass(frozen=True)
class AlreadySealed:
    """A file a `seal_many` run with `skip_sealed` left out: its exact bytes are sealed at its path."""

    shown: str  # the file as the user named it
    path: str  # its store path
    position: int  # its ledger entry's position, from 0 (it is on ledger line position + 1)
    sha256: str


@dataclass(frozen=True)
class SealRun:
    """What one `seal_many` run did: the entries it appended, in order, and the files it left out."""

    sealed: list[LedgerEntry]
    already: list[AlreadySealed] = field(default_factory=list)


def seal_many(store: "Store", jobs: list[tuple[bytes, str, str, str]], skip_sealed: bool = False) -> SealRun:
    """Seal several records (raw, schema id, store path, shown name) in one run, in order. Every
    one is checked first (path, JSON, schema, consistency, not sealed yet, no two alike) and every
    problem of every one is reported at once, sealing none; then each is sealed as `seal_bytes`
    would, at the cost of one seal each (the ledger is not walked again between them). One lock
    is held from the ledger check to the last seal: another sealer's records cannot slip in
    between and fail this run half-way (it waits, or this one does).

    `skip_sealed`: a record whose exact bytes are sealed already at its own store path is left
    out (listed in `SealRun.already`) instead of refused, so a run that was stopped half-way
    can be run again as it was typed. Nothing about it is written or changed."""
    validated = _validated_all(jobs)  # the costly part, before the lock
    sealed: list[LedgerEntry] = []
    already: list[AlreadySealed] = []
    with lock.exclusive(store.root):
        index = store.ledger_index()
        problems: list[Problem] = []
        seen_hashes: dict[str, str] = {}
        seen_paths: dict[str, str] = {}
        to_seal = []
        for job, (result, sha256) in zip(jobs, validated):
            raw, schema_id, as_path, shown = job
            try:
                reason = store_path_problem(as_path)
                if reason:
                    raise SealError(f"{shown}: target path {as_path!r} {reason}")
                _raise_if_invalid(schema_id, shown, result)
                found = index.sealed_as(sha256)
                if found is not None and found[1] == as_path:  # a run again, probably
                    if skip_sealed:
                        already.append(AlreadySealed(shown, as_path, found[0], sha256))
                        continue
                    raise SealError(f"{shown}: these exact bytes are already sealed as {as_path} (ledger line {found[0] + 1}); "
                                    "if a run that sealed it was stopped half-way, add --skip-sealed to seal the rest")
                _refuse_sealed(store, index, sha256, as_path, shown)
                if sha256 in seen_hashes:
                    raise SealError(f"{shown}: has the same bytes as {seen_hashes[sha256]}; a record is sealed once")
                if as_path in seen_paths:
                    raise SealError(f"{shown}: {seen_paths[as_path]} is sealed as {store.shown(as_path)} too; give each its own --as path")
                seen_hashes[sha256], seen_paths[as_path] = shown, shown
                to_seal.append((job, sha256))
            except ProblemsError as err:
                problems.extend(err.problems)
            except SealError as err:
                problems.append(Problem(shown, "", str(err).removeprefix(f"{shown}: ")))
        if problems:
            raise ProblemsError(problems, f"{len(problems)} problem(s) in {len(jobs)} record(s); nothing was sealed")
        for (raw, schema_id, as_path, shown), sha256 in to_seal:
            try:
                sealed.append(_seal_locked(store, raw, schema_id, as_path, shown, sha256))
            except SealError as err:  # a write that failed (a full disk): the seals before it hold
                if not sealed:
                    raise
                raise SealError(f"{err} (this record); the {len(sealed)} before it were sealed: "
                                + ", ".join(store.shown(e.path) for e in sealed)) from None
    store.cache.remember_all((entry.sha256, entry.schema) for entry in sealed)
    return SealRun(sealed, already)


def _refuse_sealed(store: "Store", index, sha256: str, as_path: str, shown: str) -> None:
    """SealError when these bytes or this path are in the ledger already."""
    sealed = index.sealed_as(sha256)
    if sealed is not None:
        position, path = sealed
        raise SealError(f"{shown}: these exact bytes are already sealed as {path} (ledger line {position + 1}); a record is sealed once")
    position = index.position_of(as_path)
    if position is not None:
        raise SealError(f"{shown}: {store.shown(as_path)} is already sealed (ledger line {position + 1}); sealed files are never overwritten")


def _seal_valid(store: "Store", raw: bytes, schema_id: str, as_path: str, shown: str, sha256: str) -> LedgerEntry:
    """Seal bytes already validated for `schema_id`, whose SHA-256 is `sha256` (see `seal_bytes`)."""
    with lock.exclusive(store.root):
        entry = _seal_locked(store, raw, schema_id, as_path, shown, sha256)
    store.cache.remember(sha256, schema_id)
    return entry


def _seal_locked(store: "Store", raw: bytes, schema_id: str, as_path: str, shown: str, sha256: str) -> LedgerEntry:
    """`_seal_valid`'s work, for a caller that holds the seal lock."""
    remove_stale_temp(store)
    index = store.ledger_index()
    if index.count == 0 and (missing := store.missing_ledger_problem(adopting=as_path)) is not None:
        raise LedgerError([missing], f"{missing.message}; nothing was sealed")
    if (signed := largest_checkpoint_size(store)) > index.count:
        # an older ledger restored, or lines cut: appending would fork the signed history for good
        held = f"{index.count} entr{'y' if index.count == 1 else 'ies'}"
        raise LedgerError([Problem(store.shown(LEDGER_NAME), "", f"holds {held}, but {store.shown(CHECKPOINTS_DIR)}/{signed} signs "
                                   f"{signed}: the ledger lost entries; restore it from where the store came from (git, a backup, "
                                   "a built site's records/ledger.jsonl), then seal; nothing was sealed")], "nothing was sealed")
    _refuse_sealed(store, index, sha256, as_path, shown)
    entry, line = entry_after(index.last, index.count, as_path, sha256, len(raw), schema_id)
    created = _place(store, raw, as_path, shown)
    try:
        _append(store.ledger_path, line)
    except BaseException:
        if created:
            created.undo()
        raise
    _crash_point("appended")
    index.appended(entry, line, store.cache.folder)
    return entry


def _validated_all(jobs: list[tuple[bytes, str, str, str]]) -> list[tuple[tuple[str, list[Problem]] | None, str]]:
    """`_validated` of every job, in order: in a pool of processes when there are
    enough jobs to pay for it (`pool_workers`). Validation is all of a seal's work but the
    writing (parsing, schema, checks: 1.2 of 1.8 ms for a 130 KB record), and each record's is
    its own."""
    validations = [(raw, schema_id, shown) for raw, schema_id, _, shown in jobs]
    workers = pool_workers(len(jobs))
    if workers < 2:
        return [_validated(job) for job in validations]
    # each job is sent as its number, not 125 KB of bytes the worker would unpickle again
    with worker_pool(workers, _start_validating, (validations,)) as pool:
        return list(pool.map(_validate_job, range(len(validations)), chunksize=16))


def _validated(job: tuple[bytes, str, str]) -> tuple[tuple[str, list[Problem]] | None, str]:
    """((status, problems) of `validate_record`, or None for a schema id this version does not
    ship; the bytes' sha256) for (raw, schema id, shown). Without the parsed record: a pool
    worker sends back only this."""
    raw, schema_id, _ = job
    sha256 = sha256_hex(raw)
    if schema_id not in schema.schema_ids():
        return None, sha256
    return record_verdict(job), sha256


_worker_jobs: list[tuple[bytes, str, str]] = []  # a validating worker's jobs (`_start_validating`)


def _start_validating(jobs: list[tuple[bytes, str, str]]) -> None:
    global _worker_jobs
    _worker_jobs = jobs
    count_colons_with_numpy()  # a worker reads hundreds of records


def _validate_job(number: int) -> tuple[tuple[str, list[Problem]] | None, str]:
    return _validated(_worker_jobs[number])


def _raise_if_invalid(schema_id: str, shown: str, result: tuple[str, list[Problem]] | None) -> None:
    """Raise what `_validated`'s `result` for `shown` says is wrong with it, if anything."""
    if result is None:
        raise InputError(schema_id, "", schema.unknown_schema_message())
    status, problems = result
    if status == NOT_JSON:
        raise InputError(shown, problems[0].path, problems[0].message, problems[0].line)
    if status == INVALID:
        raise SchemaError(problems, f"{shown}: {len(problems)} violation(s) of schema {schema_id}; nothing was sealed")
    if status == INCONSISTENT:
        raise ConsistencyError(problems, f"{shown}: {len(problems)} consistency failure(s); nothing was sealed")


def remove_stale_temp(store: "Store") -> list[str]:
    """Remove the temp file an interrupted seal left (call with the lock held); returns what
    was removed. Only the lock holder writes `TEMP_NAME`, so under the lock any one is stale."""
    tmp = os.path.join(store.root, TEMP_NAME)
    try:
        mode = os.lstat(tmp).st_mode  # one lstat on a string: every seal asks
    except FileNotFoundError:
        return []
    if stat.S_ISDIR(mode):
        raise SealError(f"{store.shown(TEMP_NAME)} {TEMP_NAME_TAKEN}")
    _unlink_temp(store, TEMP_NAME)
    return [TEMP_NAME]


def _unlink_temp(store: "Store", rel: str) -> None:
    """Remove a temp file an interrupted seal or checkpoint left; a SealError naming it when the
    store may not be written (a store another user owns)."""
    try:
        os.unlink(os.path.join(store.root, rel))
    except OSError as err:
        raise SealError(f"cannot remove {store.shown(rel)}, a temp file an interrupted seal or checkpoint left: {os_reason(err)}; "
                        "run `benchledger repair` as a user who may write the store") from None


def repair(store: "Store") -> list[str]:
    """Remove every temp file interrupted seals left in `store` (this version's and the
    `.<name>.json.<pid>.tmp` of earlier ones) and interrupted checkpoints left in its
    checkpoints folder, under the seal lock (which checkpoints are signed under too); returns
    the store paths removed. Sealed files, checkpoints and the ledger are never touched."""
    with lock.exclusive(store.root):
        removed = remove_stale_temp(store)
        for rel in stored_files(store):
            if rel != TEMP_NAME and (is_seal_temp(rel) or is_checkpoint_temp(rel)) and (store.root / rel).is_file():
                _unlink_temp(store, rel)
                removed.append(rel)
    return removed


def _place(store: "Store", raw: bytes, rel: str, shown: str) -> "_Placed | None":
    """Write `raw` at the store path `rel` atomically, never over an existing file; None when
    adopting. (Plain os calls on strings: pathlib's objects and resolve() were a third of a
    seal's writing.)"""
    root = os.fspath(store.root)
    target = os.path.join(root, rel)
    folder = os.path.dirname(rel)
    # before anything is read or adopted: a symlinked folder could lead out of the store
    if not _inside(root, folder):
        raise SealError(f"{shown}: target {store.shown(rel)} leaves the store through a symbolic link")
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        mode = None
    if mode is not None:
        if not stat.S_ISREG(mode):
            what = "a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise SealError(f"{shown}: {store.shown(rel)} is {what}; a record is sealed into a new file: choose another --as path")
        with open(target, "rb") as existing:
            if existing.read() == raw:
                return None  # adopt: the exact bytes are already there, unsealed (e.g. a seal that crashed after linking)
        raise SealError(f"{shown}: {store.shown(rel)} already exists with other content; sealed files are never overwritten")
    placed = _Placed(root)
    try:
        # folders just made could have raced a symlink in: look again (nothing made, nothing new)
        if placed.make_parents(folder) and not _inside(root, folder):
            raise SealError(f"{shown}: target {store.shown(rel)} leaves the store through a symbolic link")
        tmp = os.path.join(root, TEMP_NAME)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        placed.tmp = tmp
        try:
            write_all(fd, raw)
            os.fsync(fd)
        finally:
            os.close(fd)
        _crash_point("temp-written")
        os.link(tmp, target)  # fails if target appeared meanwhile: never overwrites
        placed.target = target
        fsync_dir(os.path.dirname(target))
        _crash_point("linked")
        os.unlink(tmp)
        placed.tmp = None
        _crash_point("temp-removed")
    except BaseException as err:
        placed.undo()
        if isinstance(err, OSError):
            raise SealError(f"{shown}: cannot write {store.shown(rel)}: {os_reason(err)}; nothing was sealed") from None
        raise
    return placed


def _inside(root: str, folder: str) -> bool:
    """Whether the store folder `folder` ("" for the root), symlinks resolved, lies in the store
    at `root`; a missing folder is judged by its nearest existing ancestor. Store paths hold no
    "..", so folders below the root that are no symbolic links are inside: each is looked at
    with one lstat, and paths are resolved only from the first link met."""
    path = root
    for part in folder.split("/") if folder else ():
        path = os.path.join(path, part)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return _resolves_inside(os.path.realpath(root), os.path.join(root, folder))
        except OSError:  # missing (or under a file): everything above it is inside
            return True
    return True


def _resolves_inside(root_real: str, path: str) -> bool:
    """Whether `path`, or its nearest existing ancestor, resolves into `root_real`."""
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip("/") + "/")


def _append(ledger_path: Path, line: bytes) -> None:
    """Append one line to the ledger; on failure cut the ledger back to its previous size."""
    existed = ledger_path.exists()
    try:
        # never through a symbolic link (records are refused as links too): it appended to a file outside the store
        fd = os.open(ledger_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as err:  # a ledger the user may not write: the caller undoes the record's placing
        reason = "it is a symbolic link; the ledger is a plain file in the store" if err.errno == errno.ELOOP else os_reason(err)
        raise SealError(f"cannot append to {ledger_path.as_posix()}: {reason}; nothing was sealed") from None
    size = os.fstat(fd).st_size
    try:
        write_all(fd, line + b"\n")
        os.fsync(fd)
    except BaseException as err:
        os.ftruncate(fd, size)
        os.close(fd)
        if not existed:
            ledger_path.unlink()
        if isinstance(err, OSError):
            raise SealError(f"cannot append to {ledger_path.as_posix()}: {os_reason(err)}; nothing was sealed") from None
        raise
    os.close(fd)
    if not existed:
        fsync_dir(ledger_path.parent)


class _Placed:
    """What `_place` created (folders, temp file, target), so a later failure can undo it."""

    def __init__(self, root: str):
        self.root = root
        self.folders: list[str] = []
        self.tmp: str | None = None
        self.target: str | None = None

    def make_parents(self, folder: str) -> bool:
        """Create the missing folders down to the store folder `folder`; whether any was missing."""
        missing = []
        path = os.path.join(self.root, folder) if folder else self.root
        while path != self.root and not os.path.exists(path):
            missing.append(path)
            path = os.path.dirname(path)
        for made in reversed(missing):
            os.mkdir(made)
            self.folders.append(made)
        return bool(missing)

    def undo(self) -> None:
        for path in (self.tmp, self.target):
            if path is not None:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        for folder in reversed(self.folders):
            os.rmdir(folder)
