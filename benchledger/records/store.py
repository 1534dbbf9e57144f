"""The records store: a folder of sealed record files plus its ledger (`ledger.jsonl`).

`Store` names the folder and reads its ledger; writing goes through `sealing`, checking
through `verification`."""

from __future__ import annotations

import os
from pathlib import Path

from benchledger.errors import InputError, LedgerError, Problem, ProblemsError
from benchledger.files import read_input
from benchledger.folders import within
from benchledger.records import sealing, verification
from benchledger.records.digest import is_sha256_prefix
from benchledger.records.jsonread import MAX_RECORD_BYTES, read_record_bytes
from benchledger.records.ledger_index import LedgerIndex
from benchledger.records.ledger import LEDGER_NAME, NO_STORE, LedgerEntry, LedgerRead, is_seal_temp, read_ledger, read_ledger_file
from benchledger.records.validation_cache import ValidationCache
from benchledger.records.verification import RecordStatus, SealedRecord, VerifyReport

__all__ = ["Store", "LedgerEntry", "RecordStatus", "SealedRecord", "VerifyReport"]


class Store:
    """A records folder and its ledger. `Store(Path("records"))`."""

    def __init__(self, root: Path | str, cache: ValidationCache | None = None):
        self.root = Path(root)
        self.ledger_path = self.root / LEDGER_NAME
        self.cache = cache if cache is not None else ValidationCache.default_for(self.root)
        folder = self.cache.folder
        if folder is not None and within(folder, self.root):
            # its files would be unsealed files of the store: every later verify fails on them
            raise InputError(Path(folder).as_posix(), "", f"the cache folder lies inside the records store {self.root.as_posix()}; "
                                                          "choose one outside it (--cache DIR or BENCHLEDGER_CACHE_DIR)")
        # the last ledger bytes read and their parse (verify, show and build read it once)
        self._known: tuple[bytes, LedgerRead] | None = None
        # what sealing knows of the ledger: many seals in a row cost the same each
        self._index: LedgerIndex | None = None

    def shown(self, rel: str) -> str:
        """How a store path is named in messages: as the user would type it."""
        return (self.root / rel).as_posix()

    # --- reading the ledger ------------------------------------------------------------------

    def read(self) -> LedgerRead:
        """The ledger as it is on disk (a missing ledger is an empty one); never raises for contents."""
        if not self.root.is_dir():
            raise InputError(self.root.as_posix(), "", NO_STORE)
        raw = read_ledger_file(self.ledger_path)
        if self._known is None or self._known[0] != raw:
            self._known = (raw, read_ledger(raw, self.ledger_path.as_posix()))
        return self._known[1]

    def intact(self) -> LedgerRead:
        """The ledger as on disk; raises LedgerError when the ledger itself is broken."""
        read = self.read()
        if read.problems:
            raise LedgerError(read.problems, f"{self.ledger_path.as_posix()} is broken ({len(read.problems)} problem(s)); run `benchledger verify`")
        return read

    def entries(self) -> list[LedgerEntry]:
        """The ledger's entries, in order; raises LedgerError when the ledger itself is broken."""
        return list(self.intact().entries)

    def head_sha256(self) -> str:
        """SHA-256 of the last ledger line: pins the whole history ("0"*64 when empty)."""
        return self.intact().head_sha256

    def find(self, hash_or_path: str) -> LedgerEntry:
        """The entry for a record sha256 (a unique prefix of >= 12 hex digits) or a path."""
        entries = self.entries()
        key = hash_or_path.strip()
        if not key:  # the message would otherwise name nothing
            raise InputError("HASH-OR-PATH", "", "empty: give a record's sha256 (or a unique prefix of >= 12 hex digits) or its path")
        if is_sha256_prefix(key.lower()):  # a hash copied from a tool that prints upper case
            hits = [e for e in entries if e.sha256.startswith(key.lower())]
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

    def read_sealed(self, entry: LedgerEntry) -> bytes:
        """The bytes stored at `entry`'s path, unchecked (callers compare them with
        entry.sha256); InputError when the file is missing, a link, a folder, a device or a
        FIFO, or larger than any record may be."""
        return read_input(self.root / entry.path, self.shown(entry.path), MAX_RECORD_BYTES, "a sealed record",
                          follow_symlinks=False)

    def ledger_index(self) -> LedgerIndex:
        """What sealing knows of the ledger (call under the seal lock): kept between seals of
        this Store while the ledger still ends where it did, else loaded again (see
        ledger_index.py); raises LedgerError when the ledger is broken."""
        if self._index is None or not self._index.current(self.ledger_path):
            if not self.root.is_dir():
                raise InputError(self.root.as_posix(), "", NO_STORE)
            self._index = LedgerIndex.load(self.ledger_path, self.cache.folder)
        return self._index

    def missing_ledger_problem(self, adopting: str | None = None) -> Problem | None:
        """A problem when the ledger file is missing or empty while the store holds files other
        than seal temp files and `adopting` (the file a first seal that crashed before its
        ledger line left, sealed again): a ledger lost or emptied in a copy or a checkout. Else
        None."""
        try:
            if self.ledger_path.stat().st_size > 0:
                return None
            state = "empty"
        except FileNotFoundError:
            state = "missing"
        for folder, _, files in os.walk(self.root):
            for name in files:
                rel = (Path(folder) / name).relative_to(self.root).as_posix()
                if not is_seal_temp(rel) and rel not in (adopting, LEDGER_NAME):
                    return Problem(self.shown(LEDGER_NAME), "", f"{state}, while the store holds files ({rel}, ...): restore "
                                   "the ledger from where the store came from (git, a backup); a seal now would start "
                                   "a new chain that leaves them out")
        return None

    def seal(self, source: Path, schema_id: str, as_path: str | None = None) -> LedgerEntry:
        """Seal the file `source` as `as_path` (default: its file name) under `schema_id`."""
        source = Path(source)
        raw = read_record_bytes(source, source.as_posix())
        return sealing.seal_bytes(self, raw, schema_id, as_path or source.name, shown=source.as_posix())

    def seal_files(self, sources: list[Path], schema_id: str, as_path: str | None = None,
                   skip_sealed: bool = False) -> sealing.SealRun:
        """Seal many files in one run (`sealing.seal_many`): all checked first, every problem
        reported at once and none sealed, else each sealed in order. Each is stored under its
        file name unless one file is given with `as_path`. `skip_sealed` leaves out the files
        whose exact bytes are sealed already at their paths (see `seal_many`)."""
        if as_path is not None and len(sources) != 1:
            raise InputError("--as", "", f"names one store path, but {len(sources)} files were given; seal them without --as (each keeps its file name)")
        if len(sources) == 1 and not skip_sealed:  # one file: its own errors, as `seal` always reported them
            return sealing.SealRun([self.seal(sources[0], schema_id, as_path)])
        jobs, unreadable = [], []
        for source in map(Path, sources):
            try:
                raw = read_record_bytes(source, source.as_posix())
            except InputError as err:
                unreadable.extend(err.problems)
                continue
            jobs.append((raw, schema_id, as_path or source.name, source.as_posix()))
        if unreadable:
            raise ProblemsError(unreadable, f"{len(unreadable)} file(s) cannot be read; nothing was sealed")
        return sealing.seal_many(self, jobs, skip_sealed)

    def seal_bytes(self, raw: bytes, schema_id: str, as_path: str, shown: str | None = None) -> LedgerEntry:
        """Validate `raw`, write it to `as_path` and append its ledger entry; all or nothing."""
        return sealing.seal_bytes(self, raw, schema_id, as_path, shown)

    def repair(self) -> list[str]:
        """Remove the temp files interrupted seals left; returns the store paths removed."""
        return sealing.repair(self)

    def verify(self, keep_data: bool = False) -> VerifyReport:
        """Check everything; never raises for what the store contains (only for a missing store)."""
        return verification.verify(self, keep_data)

    def load_verified(self) -> list[SealedRecord]:
        """Every record, verified; raises LedgerError listing everything wrong otherwise."""
        return verification.load_verified(self)
