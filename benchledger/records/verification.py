"""Verification: every file of a store re-hashed against its ledger entry, the chain walked,
every record validated against its schema and checked for consistency, and the files the
ledger does not list found. Nothing here raises for what the store contains: every problem
becomes a row of the report."""

from __future__ import annotations

import multiprocessing
import os
import stat
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from benchledger.cpus import usable_cpus
from benchledger.errors import InputError, LedgerError, Problem, os_reason
from benchledger.records import checks, lock, schema, tlog
from benchledger.records.digest import distinct_prefixes, sha256_hex
from benchledger.records.jsonread import count_colons_with_numpy, cycle_collection_paused, parse_json_bytes
from benchledger.records.ledger import CHECKPOINTS_DIR, LEDGER_NAME, TEMP_NAME, TEMP_NAME_TAKEN, LedgerEntry, LedgerRead, is_seal_temp
from benchledger.records.validation_cache import ValidationCache

if TYPE_CHECKING:
    from benchledger.records.store import Store

# Row statuses of `verify`, most specific first.
OK, ALTERED, MISSING, UNSEALED, NOT_JSON, INVALID, INCONSISTENT, LEDGER, STALE_TEMP = (
    "ok", "altered", "missing", "unsealed", "not-json", "invalid", "inconsistent", "ledger-broken", "stale-temp")
PENDING = "pending"  # bytes match the ledger; validation not done yet (internal)
# Below this many records to validate, a process pool costs more than it saves.
PARALLEL_MIN_RECORDS = 200
MAX_POOL_WORKERS = 8


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
    # the signed checkpoints' problems (records/checkpoints/, see tlog.py)
    log_problems: list[Problem] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        """Every problem, ledger first, then per record in ledger order, then the checkpoints'."""
        return self.ledger_problems + [p for r in self.records for p in r.problems] + self.log_problems

    @property
    def ok(self) -> bool:
        return not self.problems


def pool_workers(jobs: int) -> int:
    """How many processes validate `jobs` records: one per CPU this process may use (up to
    MAX_POOL_WORKERS), or 1, this one alone, below PARALLEL_MIN_RECORDS."""
    return min(usable_cpus(), MAX_POOL_WORKERS) if jobs >= PARALLEL_MIN_RECORDS else 1


def worker_pool(workers: int, initializer: Callable[..., None], initargs: tuple) -> ProcessPoolExecutor:
    """A pool of `workers` processes, forked where the platform can fork: a forked worker
    starts with `initargs` in its memory (they are not pickled then), so the jobs it is given
    there can be sent as their numbers alone."""
    fork = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(workers, mp_context=fork, initializer=initializer, initargs=initargs)


def verify(store: "Store", keep_data: bool = False) -> VerifyReport:
    """Check everything; never raises for what the store contains (only for a missing store)."""
    # one state of the ledger, the folder and the checkpoints, none of them half-way through a
    # seal or a checkpoint (a live seal's temp file read as stale, its record as unsealed, a
    # checkpoint signed in between as entries removed); sealed files are never rewritten, so
    # they are read after
    with lock.shared(store.root):
        read = store.read()
        unlisted = unlisted_files(store, read)
        missing = store.missing_ledger_problem() if not read.entries else None
        log_problems = tlog.check_store(store, read.entries)
    jobs = list(zip(read.entries, read.entry_lines))
    workers = pool_workers(len(jobs))
    if keep_data or workers < 2:
        results = [check_one(store, entry, line, keep_data) for entry, line in jobs]
    else:  # each worker reads, hashes and validates its records: the bytes never cross processes
        # and, where it can fork, neither do the ledger entries (pickled for each job they cost
        # 0.03-0.06 s of this process's CPU at 10,000 records, 1 % of the wall time)
        with worker_pool(workers, _start_worker, (type(store), store.root, store.cache.folder, jobs)) as pool:
            results = list(pool.map(_check_in_worker, range(len(jobs)), chunksize=64))
    rows: list[RecordStatus] = []
    data: dict[str, tuple[bytes, Any]] = {}
    passes: list[tuple[str, str]] = []
    for (entry, line), (status, problems, payload, passed_now) in zip(jobs, results):
        if passed_now:
            passes.append((entry.sha256, entry.schema))
        line_problems = read.line_problems.get(line, [])
        if line_problems and status == OK:
            status = LEDGER
        rows.append(RecordStatus(entry.path, entry.schema, entry.sha256, status, tuple(line_problems + problems), entry))
        if keep_data and status == OK:
            data[entry.path] = payload
    store.cache.remember_all(passes)  # one append for them all
    in_rows = [p for line in read.entry_lines for p in read.line_problems.get(line, [])]
    ledger_problems = [p for p in read.problems if p not in in_rows]
    if missing is not None:
        ledger_problems.append(missing)
    # with the ledger gone every file looks unsealed: sealing or removing them would lose the history
    if missing is not None:
        unsealed = "unsealed: not listed, as the ledger is missing; restore the ledger first, and do not seal or remove this file"
    elif read.problems:  # a line cut short may be this file's: removing it could lose a record
        unsealed = ("unsealed: not listed by the ledger, whose lines do not hold (see its problems); mend the ledger first "
                    "(`benchledger repair` says how for a last line cut short), and do not remove this file")
    else:
        # a ledger that lost its last lines holds together too: sealing the file again would give
        # the history a new head, so the way back (a copy of the ledger) is named first
        unsealed = ("unsealed: the ledger does not list this file; if it was sealed before (a published ledger, such as a "
                    "built site's records/ledger.jsonl, lists it), restore the ledger from that copy; otherwise seal it "
                    "with `benchledger seal` or move it out of the store")
    for rel in unlisted:
        if rel == TEMP_NAME and (store.root / rel).is_dir() and not (store.root / rel).is_symlink():
            rows.append(RecordStatus(rel, "", "", UNSEALED, (Problem(store.shown(rel), "", TEMP_NAME_TAKEN),)))
        elif is_seal_temp(rel):
            rows.append(RecordStatus(rel, "", "", STALE_TEMP, (Problem(store.shown(rel), "", "a temp file left by an interrupted seal (it holds nothing sealed): the next `benchledger seal` or `benchledger repair` removes it"),)))
        else:
            rows.append(RecordStatus(rel, "", "", UNSEALED, (Problem(store.shown(rel), "", unsealed),)))
    return VerifyReport(store.root.as_posix(), read.head_sha256, len(read.entries), rows, ledger_problems, data, log_problems)


def check_one(store: "Store", entry: LedgerEntry, line: int, keep_data: bool) -> tuple[str, list[Problem], tuple[bytes, Any] | None, bool]:
    """(status, problems, (bytes, parsed) when kept, whether it newly passed) for one entry."""
    shown = store.shown(entry.path)
    status, problems, raw = _check_bytes(store, entry, line, shown)
    if status != PENDING:
        return status, problems, None, False
    if store.cache.passed(entry.sha256, entry.schema):
        # a cached pass proves these exact bytes are strict JSON: read as a cold verify reads them
        return OK, [], (raw, parse_json_bytes(raw, shown)[0]) if keep_data else None, False
    job = (raw, entry.schema, shown)
    if not keep_data:
        status, problems = record_verdict(job)
        return status, problems, None, status == OK
    status, problems, parsed = validate_record(job)
    return status, problems, (raw, parsed) if status == OK else None, status == OK


# A sealed file is never rewritten: the way back from a changed or lost one is a copy of its bytes.
RESTORE = "; restore the sealed bytes from a copy (a built site serves them under records/, with the same path)"


def sealed_bytes_problems(store: "Store", read: LedgerRead) -> list[Problem]:
    """Every sealed file missing or not holding its sealed bytes (hashed, not parsed): what
    `repair` cannot mend and says so."""
    return [p for entry, line in zip(read.entries, read.entry_lines) for p in _check_bytes(store, entry, line, store.shown(entry.path))[1]]


def _check_bytes(store: "Store", entry: LedgerEntry, line: int, shown: str) -> tuple[str, list[Problem], bytes | None]:
    """The file's bytes against the ledger (`shown`: its path as messages name it): (PENDING, [],
    bytes) when they match."""
    path = store.root / entry.path
    where = f"ledger line {line}"
    try:
        info = path.lstat()
    except FileNotFoundError:
        return MISSING, [Problem(shown, "", f"missing: sealed on {where} but the file is gone{RESTORE}")], None
    if not stat.S_ISREG(info.st_mode):
        return ALTERED, [Problem(shown, "", f"is not a regular file; {where} sealed a file")], None
    if info.st_size != entry.size_bytes:
        return ALTERED, [Problem(shown, "", f"altered: {info.st_size} bytes but {where} sealed {entry.size_bytes} bytes{RESTORE}")], None
    try:
        raw = path.read_bytes()
    except OSError as err:
        return MISSING, [Problem(shown, "", f"cannot read: {os_reason(err)}")], None
    altered = altered_problem(store, entry, raw, sha256_hex(raw), line)
    if altered is not None:
        return ALTERED, [altered], None
    return PENDING, [], raw


def altered_problem(store: "Store", entry: LedgerEntry, raw: bytes, sha256: str, line: int) -> Problem | None:
    """The Problem of `raw` (whose SHA-256 is `sha256`) not being the bytes ledger line `line`
    sealed for `entry`; None when they are."""
    if sha256 == entry.sha256 and len(raw) == entry.size_bytes:
        return None
    now, sealed = distinct_prefixes(sha256, entry.sha256)
    return Problem(store.shown(entry.path), "", f"altered: sha256 is {now} ({len(raw)} bytes) but ledger line {line} sealed "
                                                f"{sealed} ({entry.size_bytes} bytes){RESTORE}")


def unlisted_files(store: "Store", read: LedgerRead) -> list[str]:
    """The store's files that the ledger `read` does not list, sorted: unsealed records and temp
    files of interrupted seals (the signed checkpoints' folder is not records: tlog checks it)."""
    sealed = {e.path for e in read.entries}
    return [rel for rel in stored_files(store)
            if rel not in sealed and rel != CHECKPOINTS_DIR and not rel.startswith(f"{CHECKPOINTS_DIR}/")]


def stored_files(store: "Store") -> list[str]:
    """Every file under the store except the ledger, as sorted posix paths (symlinks included)."""
    # joined as strings: pathlib's joins and relative_to took 0.3 s of a 10,000-record verify
    root = os.fspath(store.root)
    out = []
    for folder, dirs, files in os.walk(root):
        prefix = "" if folder == root else folder[len(root) + 1:].replace(os.sep, "/") + "/"
        out += [prefix + f for f in files]
        out += [prefix + d for d in dirs if os.path.islink(os.path.join(folder, d))]
        if folder == root and TEMP_NAME in dirs and not os.path.islink(os.path.join(folder, TEMP_NAME)):
            # a folder where seal writes its temp file: it stops every seal, so verify names it
            out.append(TEMP_NAME)
    return sorted(p for p in out if p != LEDGER_NAME)


def load_verified(store: "Store") -> list[SealedRecord]:
    """Every record, verified; raises LedgerError listing everything wrong otherwise."""
    report = verify(store, keep_data=True)
    if not report.ok:
        raise LedgerError(report.problems, f"{len(report.problems)} problem(s) in {report.root}; nothing was loaded")
    return [SealedRecord(r.entry, *report.data[r.path]) for r in report.records]


def record_verdict(job: tuple[bytes, str, str]) -> tuple[str, list[Problem]]:
    """`validate_record`'s (status, problems) alone, for a caller that keeps nothing of the
    record: it is dropped before the cyclic collector resumes (`cycle_collection_paused`)."""
    with cycle_collection_paused():
        return validate_record(job)[:2]


def validate_record(job: tuple[bytes, str, str]) -> tuple[str, list[Problem], Any]:
    """(status, problems, parsed) for exact record bytes: strict JSON, schema, consistency."""
    raw, schema_id, shown = job
    try:
        parsed, integers_fit_64_bits = parse_json_bytes(raw, shown)
    except InputError as err:
        return NOT_JSON, err.problems, None
    problems = schema.validate(parsed, schema_id, shown, integers_fit_64_bits)
    if problems:
        return INVALID, problems, None
    problems = checks.check_record(parsed, schema_id, shown)
    if problems:
        return INCONSISTENT, problems, None
    return OK, [], parsed


_worker_store: "Store | None" = None
_worker_jobs: list[tuple[LedgerEntry, int]] = []  # a verify worker's jobs (`_start_worker`)


def _start_worker(store_class: "type[Store]", root: Path, cache_folder: Path | None, jobs: list[tuple[LedgerEntry, int]]) -> None:
    # the class comes from the caller (pickled by name): the store module stands on this one
    global _worker_store, _worker_jobs
    count_colons_with_numpy()  # a worker reads hundreds of records
    _worker_store = store_class(root, ValidationCache(cache_folder))
    _worker_jobs = jobs


def _check_in_worker(number: int) -> tuple[str, list[Problem], None, bool]:
    status, problems, _, passed_now = check_one(_worker_store, *_worker_jobs[number], keep_data=False)
    return status, problems, None, passed_now


