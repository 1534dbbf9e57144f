"""A cache of validation passes, so `verify` does not re-validate unchanged records.

A key is the SHA-256 of (record sha256, schema file sha256, fingerprint of the validating code:
the strict JSON reader, the schema module, the checks and the compiled proofs). Only passes are
stored, and a key can only match the exact bytes, the exact schema and the exact code that
passed, and a line counts only with its HMAC under this user's secret (`cache_mac`): no line
written by anyone else (a forged ledger entry plus one appended line) can turn a failing record
into a passing one. The cache lives outside the store, in the folder `default_cache_dir` names,
and losing it only costs time."""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path
from typing import Iterable

from benchledger.atomic import open_making_folders
from benchledger.records import cache_mac, checks, jsonread, ledger, schema
from benchledger.records.digest import named_bytes_sha256, sha256_hex

_FILE = "validation-passes.txt"


def default_cache_dir(records_dir: Path) -> Path:
    """The one cache folder of a records folder, shared by validation passes, charts, renderings
    and MkDocs' work tree: $BENCHLEDGER_CACHE_DIR when set, else `.cache/benchledger` beside the
    (symlink-resolved) records folder, which .gitignore leaves out."""
    env = os.environ.get("BENCHLEDGER_CACHE_DIR")
    if env:
        return Path(env).resolve()
    return Path(records_dir).resolve().parent / ".cache" / "benchledger"


# Compiled proofs decide too (which parse is trusted, which rules need not run): their built
# files are fingerprinted, as their C sources are not installed. Each is imported, where it was
# built, by jsonread or checks (both imported above).
COMPILED_PROOFS = ("benchledger.records._memberproof", "benchledger.records._statsproof")


@cache
def code_fingerprint() -> str:
    """SHA-256 over the source of every module that decides whether a record passes."""
    # verification.py by file, not by import: it stands on this module
    sources = [Path(module.__file__) for module in (jsonread, schema, checks, ledger)] + [Path(__file__).with_name("verification.py")]
    sources += [Path(sys.modules[name].__file__) for name in COMPILED_PROOFS if name in sys.modules]
    return named_bytes_sha256((path.name, path.read_bytes()) for path in sources)


class ValidationCache:
    """The set of (record, schema, code) keys known to pass; `ValidationCache(None)` caches nothing."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._keys: set[str] | None = None

    @classmethod
    def default_for(cls, records_root: Path) -> "ValidationCache":
        """The cache in the default folder for this records folder."""
        return cls(default_cache_dir(records_root))

    @staticmethod
    def key(record_sha256: str, schema_id: str) -> str:
        """The pass's name: the record, its schema's bytes and the checking code, so a pass
        recorded under other rules never vouches for a record."""
        schema_sha256 = schema.loaded(schema_id).sha256
        return sha256_hex(f"{record_sha256}:{schema_sha256}:{code_fingerprint()}".encode())

    def _load(self) -> set[str]:
        if self._keys is None:
            self._keys = set()
            if self.folder is not None:
                try:
                    lines = (self.folder / _FILE).read_text("ascii", errors="replace").splitlines()
                except OSError:
                    lines = []
                # a line counts only with this user's MAC: an appended or forged line is ignored
                self._keys = {key for key, _, tag in (line.partition(" ") for line in lines)
                              if tag and cache_mac.holds(key.encode(), tag)}
        return self._keys

    def passed(self, record_sha256: str, schema_id: str) -> bool:
        """Whether exactly these bytes passed under exactly this schema and code before."""
        if self.folder is None or schema_id not in schema.schema_ids():
            return False
        return self.key(record_sha256, schema_id) in self._load()

    def remember(self, record_sha256: str, schema_id: str) -> None:
        """Record a pass; a cache that cannot be written is skipped (it only saves time)."""
        self.remember_all([(record_sha256, schema_id)])

    def remember_all(self, passes: Iterable[tuple[str, str]]) -> None:
        """Record passes, (record sha256, schema id) each, in one append: a cold verify or a batch
        seal passes thousands at once, and a file opened and written for each took 0.11 s of a
        10,000-record verify. A cache that cannot be written is skipped (it only saves time)."""
        if self.folder is None:
            return
        lines = []
        for record_sha256, schema_id in passes:
            key = self.key(record_sha256, schema_id)
            # not loaded (a seal in a fresh process): append without reading every earlier pass;
            # a repeated line is harmless, the keys are a set
            if self._keys is not None:
                if key in self._keys:
                    continue
                self._keys.add(key)
            lines.append(f"{key} {cache_mac.mac(key.encode())}\n")
        if not lines:
            return
        data = "".join(lines).encode("ascii")
        try:
            fd = open_making_folders(self.folder / _FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                # O_APPEND keeps each write whole; a line cut short by a full disk fails its MAC
                # and is read as a miss
                while data:
                    data = data[os.write(fd, data):]
            finally:
                os.close(fd)
        except OSError:
            pass
