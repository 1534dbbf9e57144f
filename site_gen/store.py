"""The records store: a folder of sealed record files plus its ledger (`ledger.jsonl`).

Sealing validates a record, writes its exact bytes atomically (temp file, fsync, hard link so
an existing file is never overwritten) and appends one ledger line; any failure undoes every
step. Verifying re-hashes every file, walks the chain, validates every record against its
schema, runs the consistency checks and finds files the ledger does not list."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import stat
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from benchledger.errors import ConsistencyError, InputError, LedgerError, Problem, SchemaError, SealError
from site_gen import checks, schema
from site_gen.jsonread import read_json_bytes, read_record_bytes
from site_gen.ledger import LEDGER_NAME, LedgerEntry, LedgerRead, new_entry, read_ledger, store_path_problem
from site_gen.validation_cache import ValidationCache

# Row statuses of `verify`, most specific first.
OK, ALTERED, MISSING, UNSEALED, NOT_JSON, INVALID, INCONSISTENT, LEDGER = (
    "ok", "altered", "missing", "unsealed", "not-json", "invalid", "inconsistent", "ledger-broken")
PENDING = "pending"  # bytes match the ledger; validation not done yet (internal)
# Below this many records to validate, a process pool costs more than it saves.
PARALLEL_MIN_RECORDS = 200


@dataclass(frozen=True)
class SealedRecord:
    """A verified record: its ledger entry, exact bytes and parsed JSON."""

    entry: LedgerEntry
    raw: bytes
    data: Any


@dataclass(frozen=True)
class RecordStatus:
    """One row of `benchledger verify`: a file the ledger lists, or one it does not."""

    path: str
    schema: str  # "" for an unsealed file
    sha256: str  # what the ledger sealed ("" for an unsealed file)
    status: str
    problems: tuple[Problem, ...] = ()
    entry: LedgerEntry | None = None


@dataclass(frozen=True)
class VerifyReport:
    """Everything `verify` found; `ok` only when every record and the ledger hold."""

    root: str
    head_sha256: str
    entry_count: int
    records: list[RecordStatus]
    ledger_problems: list[Problem]  # chain or format problems not tied to one record's row
    data: dict[str, tuple[bytes, Any]] = field(default_factory=dict, repr=False)  # path -> (raw, parsed), when asked

    @property
    def problems(self) -> list[Problem]:
        """Every problem, ledger first, then per record in ledger order."""
        return self.ledger_problems + [p for r in self.records for p in r.problems]

    @property
    def ok(self) -> bool:
        return not self.problems


class Store:
    """A records folder and its ledger. `Store(Path("records"))`."""

    def __init__(self, root: Path | str, cache: ValidationCache | None = None):
        self.root = Path(root)
        self.ledger_path = self.root / LEDGER_NAME
        self.cache = cache if cache is not None else ValidationCache.default_for(self.root)
        # the last ledger bytes read or written and their parse: sealing many records in a row
        # then costs one byte comparison per seal instead of re-walking the whole chain
        self._known: tuple[bytes, LedgerRead] | None = None

    def shown(self, rel: str) -> str:
        """How a store path is named in messages: as the user would type it."""
        return (self.root / rel).as_posix()

    # --- reading the ledger ------------------------------------------------------------------

    def read(self) -> LedgerRead:
        """The ledger as it is on disk (a missing ledger is an empty one); never raises for contents."""
        if not self.root.is_dir():
            raise InputError(self.root.as_posix(), "", "no such records folder")
        try:
            raw = self.ledger_path.read_bytes()
        except FileNotFoundError:
            raw = b""
        except OSError as err:
            raise InputError(self.ledger_path.as_posix(), "", f"cannot read: {err.strerror}") from None
        if self._known is None or self._known[0] != raw:
            self._known = (raw, read_ledger(raw, self.ledger_path.as_posix()))
        return self._known[1]

    def _intact(self) -> LedgerRead:
        read = self.read()
        if read.problems:
            raise LedgerError(read.problems, f"{self.ledger_path.as_posix()} is broken ({len(read.problems)} problem(s)); run `benchledger verify`")
        return read

    def entries(self) -> list[LedgerEntry]:
        """The ledger's entries, in order; raises LedgerError when the ledger itself is broken."""
        return list(self._intact().entries)

    def head_sha256(self) -> str:
        """SHA-256 of the last ledger line: pins the whole history ("0"*64 when empty)."""
        return self._intact().head_sha256

    def find(self, hash_or_path: str) -> LedgerEntry:
        """The entry for a record sha256 (a unique prefix of >= 12 hex digits) or a path."""
        entries = self.entries()
        key = hash_or_path.strip()
        if 12 <= len(key) <= 64 and all(c in "0123456789abcdef" for c in key):
            hits = [e for e in entries if e.sha256.startswith(key)]
            if len(hits) > 1:
                raise InputError(key, "", f"sha256 prefix matches {len(hits)} records: {', '.join(e.path for e in hits)}")
            if hits:
                return hits[0]
        candidates = {key, key.removeprefix("./")}
        # a path as typed from the current folder, e.g. records/llm-cpu-offload/2026-09-27.json
        try:
            candidates.add(Path(key).resolve().relative_to(self.root.resolve()).as_posix())
        except ValueError:
            pass
        for entry in entries:
            if entry.path in candidates:
                return entry
        raise InputError(key, "", f"no record in {self.ledger_path.as_posix()} has this path or sha256 (prefixes need >= 12 hex digits)")

    # --- sealing ---------------------------------------------------------------------------

    def seal(self, source: Path, schema_id: str, as_path: str | None = None) -> LedgerEntry:
        """Seal the file `source` as `as_path` (default: its file name) under `schema_id`."""
        source = Path(source)
        raw = read_record_bytes(source, source.as_posix())
        return self.seal_bytes(raw, schema_id, as_path or source.name, shown=source.as_posix())

    def seal_bytes(self, raw: bytes, schema_id: str, as_path: str, shown: str | None = None) -> LedgerEntry:
        """Validate `raw`, write it to `as_path` and append its ledger entry; all or nothing.

        When `as_path` already holds exactly `raw` and no ledger entry names it, that file is
        adopted (sealed in place) instead of refused: it lets a store shipped with its files
        be sealed without moving them."""
        shown = shown or as_path
        reason = store_path_problem(as_path)
        if reason:
            raise SealError(f"{shown}: target path {as_path!r} {reason}")
        self._validate(raw, schema_id, shown)
        sha256 = hashlib.sha256(raw).hexdigest()
        with self._locked():
            read = self._intact()
            for entry in read.entries:
                if entry.sha256 == sha256:
                    raise SealError(f"{shown}: these exact bytes are already sealed as {entry.path} (ledger line {entry.position + 1}); a record is sealed once")
                if entry.path == as_path:
                    raise SealError(f"{shown}: {self.shown(as_path)} is already sealed (ledger line {entry.position + 1}); sealed files are never overwritten")
            entry, line = new_entry(read.entries, as_path, sha256, len(raw), schema_id)
            target = self.root / as_path
            created = self._place(raw, target, shown)
            try:
                self._append(line)
            except BaseException:
                if created:
                    created.undo()
                raise
            self._known = (self._known[0] + line + b"\n", LedgerRead(
                read.entries + [entry], read.entry_lines + [len(read.entries) + 1], [], entry.entry_sha256, {}))
        self.cache.remember(sha256, schema_id)
        return entry

    def _validate(self, raw: bytes, schema_id: str, shown: str) -> None:
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
    def _locked(self) -> Iterator[None]:
        """An exclusive lock on the store folder, so two sealers cannot fork the chain."""
        if not self.root.is_dir():
            raise InputError(self.root.as_posix(), "", "no such records folder")
        fd = os.open(self.root, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _place(self, raw: bytes, target: Path, shown: str) -> "_Placed | None":
        """Write `raw` at `target` atomically, never over an existing file; None when adopting."""
        rel = target.relative_to(self.root).as_posix()
        if os.path.lexists(target):
            if target.is_file() and not target.is_symlink() and target.read_bytes() == raw:
                return None  # adopt: the exact bytes are already there, unsealed
            raise SealError(f"{shown}: {self.shown(rel)} already exists with other content; sealed files are never overwritten")
        placed = _Placed(self.root)
        try:
            placed.make_parents(target.parent)
            if not target.parent.resolve().is_relative_to(self.root.resolve()):
                raise SealError(f"{shown}: target {self.shown(rel)} leaves the store through a symbolic link")
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
            _fsync_dir(target.parent)
        except BaseException as err:
            placed.undo()
            if isinstance(err, OSError):
                raise SealError(f"{shown}: cannot write {self.shown(rel)}: {err.strerror or err}; nothing was sealed") from None
            raise
        return placed

    def _append(self, line: bytes) -> None:
        """Append one line to the ledger; on failure cut the ledger back to its previous size."""
        existed = self.ledger_path.exists()
        fd = os.open(self.ledger_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
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
                self.ledger_path.unlink()
            if isinstance(err, OSError):
                raise SealError(f"cannot append to {self.ledger_path.as_posix()}: {err.strerror or err}; nothing was sealed") from None
            raise
        os.close(fd)
        if not existed:
            _fsync_dir(self.root)

    # --- verifying ---------------------------------------------------------------------------

    def verify(self, keep_data: bool = False) -> VerifyReport:
        """Check everything; never raises for what the store contains (only for a missing store)."""
        read = self.read()
        jobs = list(zip(read.entries, read.entry_lines))
        workers = min(os.cpu_count() or 1, 8)
        if keep_data or workers < 2 or len(jobs) < PARALLEL_MIN_RECORDS:
            results = [self._check_one(entry, line, keep_data) for entry, line in jobs]
        else:  # each worker reads, hashes and validates its records: the bytes never cross processes
            with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(self.root, self.cache.folder)) as pool:
                results = list(pool.map(_check_in_worker, jobs, chunksize=64))
        rows: list[RecordStatus] = []
        data: dict[str, tuple[bytes, Any]] = {}
        for (entry, line), (status, problems, payload, passed_now) in zip(jobs, results):
            if passed_now:
                self.cache.remember(entry.sha256, entry.schema)
            line_problems = read.line_problems.get(line, [])
            if line_problems and status == OK:
                status = LEDGER
            rows.append(RecordStatus(entry.path, entry.schema, entry.sha256, status, tuple(line_problems + problems), entry))
            if keep_data and status == OK:
                data[entry.path] = payload
        in_rows = [p for line in read.entry_lines for p in read.line_problems.get(line, [])]
        ledger_problems = [p for p in read.problems if p not in in_rows]
        sealed = {e.path for e in read.entries}
        for rel in self._files():
            if rel not in sealed:
                rows.append(RecordStatus(rel, "", "", UNSEALED, (Problem(self.shown(rel), "", "unsealed: the ledger does not list this file; seal it with `benchledger seal` or remove it"),)))
        return VerifyReport(self.root.as_posix(), read.head_sha256, len(read.entries), rows, ledger_problems, data)

    def _check_one(self, entry: LedgerEntry, line: int, keep_data: bool) -> tuple[str, list[Problem], tuple[bytes, Any] | None, bool]:
        """(status, problems, (bytes, parsed) when kept, whether it newly passed) for one entry."""
        status, problems, raw = self._check_bytes(entry, line)
        if status != PENDING:
            return status, problems, None, False
        if self.cache.passed(entry.sha256, entry.schema):
            # a cached pass proves these exact bytes are strict JSON: the fast parser reads them the same
            return OK, [], (raw, json.loads(raw)) if keep_data else None, False
        status, problems, parsed = validate_record((raw, entry.schema, self.shown(entry.path)))
        return status, problems, (raw, parsed) if keep_data and status == OK else None, status == OK

    def _check_bytes(self, entry: LedgerEntry, line: int) -> tuple[str, list[Problem], bytes | None]:
        """The file's bytes against the ledger: (PENDING, [], bytes) when they match."""
        shown = self.shown(entry.path)
        path = self.root / entry.path
        where = f"ledger line {line}"
        try:
            info = path.lstat()
        except FileNotFoundError:
            return MISSING, [Problem(shown, "", f"missing: sealed on {where} but the file is gone")], None
        if not stat.S_ISREG(info.st_mode):
            return ALTERED, [Problem(shown, "", f"is not a regular file; {where} sealed a file")], None
        if info.st_size != entry.size_bytes:
            return ALTERED, [Problem(shown, "", f"altered: {info.st_size} bytes but {where} sealed {entry.size_bytes} bytes")], None
        try:
            raw = path.read_bytes()
        except OSError as err:
            return MISSING, [Problem(shown, "", f"cannot read: {err.strerror}")], None
        sha256 = hashlib.sha256(raw).hexdigest()
        if sha256 != entry.sha256 or len(raw) != entry.size_bytes:
            return ALTERED, [Problem(shown, "", f"altered: sha256 is {sha256[:12]} ({len(raw)} bytes) but {where} sealed {entry.sha256[:12]} ({entry.size_bytes} bytes)")], None
        return PENDING, [], raw

    def _files(self) -> list[str]:
        """Every file under the store except the ledger, as sorted posix paths (symlinks included)."""
        out = []
        for folder, dirs, files in os.walk(self.root):
            base = Path(folder)
            out += [(base / f).relative_to(self.root).as_posix() for f in files]
            out += [(base / d).relative_to(self.root).as_posix() for d in dirs if (base / d).is_symlink()]
        return sorted(p for p in out if p != LEDGER_NAME)

    def load_verified(self) -> list[SealedRecord]:
        """Every record, verified; raises LedgerError listing everything wrong otherwise."""
        report = self.verify(keep_data=True)
        if not report.ok:
            raise LedgerError(report.problems, f"{len(report.problems)} problem(s) in {report.root}; nothing was loaded")
        return [SealedRecord(r.entry, *report.data[r.path]) for r in report.records]


def validate_record(job: tuple[bytes, str, str]) -> tuple[str, list[Problem], Any]:
    """(status, problems, parsed) for exact record bytes: strict JSON, schema, consistency."""
    raw, schema_id, shown = job
    try:
        parsed = read_json_bytes(raw, shown)
    except InputError as err:
        return NOT_JSON, err.problems, None
    problems = schema.validate(parsed, schema_id, shown)
    if problems:
        return INVALID, problems, None
    problems = checks.check_record(parsed, schema_id, shown)
    if problems:
        return INCONSISTENT, problems, None
    return OK, [], parsed


_worker_store: Store | None = None


def _start_worker(root: Path, cache_folder: Path | None) -> None:
    global _worker_store
    _worker_store = Store(root, ValidationCache(cache_folder))


def _check_in_worker(job: tuple[LedgerEntry, int]) -> tuple[str, list[Problem], None, bool]:
    status, problems, _, passed_now = _worker_store._check_one(*job, keep_data=False)
    return status, problems, None, passed_now


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


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
