"""What sealing needs to know about the ledger, without parsing and re-walking it for every seal:
its size, its last line (the head), and the record hashes and paths it already holds.

`LedgerIndex.load` reads the ledger's bytes and walks the chain once (`ledger.read_ledger`),
unless the head file (`HEAD_FILE`, in the store's cache folder) says that exactly these bytes,
by their SHA-256, were walked and found intact before; then only the hashes and paths are
picked out of the canonical lines. A seal in the same process then checks only the ledger's
size and last line (`current`): unchanged, it appends to what it knows; changed (another
sealer, an edit), it loads again. So sealing costs the same for the ten-thousandth record as for
the first. Whether a hash or path is sealed already is first answered by a search of the
ledger's bytes (a fresh `benchledger seal` asks twice: 0.4 ms each at 10,000 lines, where
picking all 10,000 out took 30 ms); an index asked more often builds its tables once. The head
file is a cache: missing, stale or unreadable, the chain is walked again; `verify` never
trusts it. Only a successful append writes it, so a refused seal changes nothing on disk."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.atomic import open_making_folders, write_all
from benchledger.errors import LedgerError
from benchledger.records.digest import sha256_hex
from benchledger.records.ledger import GENESIS_SHA256, LedgerEntry, read_ledger, read_ledger_file

HEAD_FILE = "ledger-head.json"
# The start of a canonical line (`ledger.encode_line`: fixed key order, no spaces, ASCII).
_LINE_START = re.compile(rb'\{"position":([0-9]+),"path":("(?:[^"\\]|\\.)*"),"sha256":"([0-9a-f]{64})"')


@dataclass
class LedgerIndex:
    """The ledger as sealing sees it (see module docstring)."""

    size_bytes: int
    tail: bytes  # the last line, without its newline (b"" for an empty ledger)
    last: LedgerEntry | None
    raw: bytearray = field(default_factory=bytearray)  # the ledger's bytes: intact, canonical lines
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)  # SHA-256 of the ledger bytes so far
    _hashes: dict[str, tuple[int, str]] | None = None  # record sha256 -> (position, path), once built
    _paths: dict[str, int] | None = None  # path -> position, once built
    _searches: int = 0

    @property
    def count(self) -> int:
        return self.last.position + 1 if self.last is not None else 0

    @property
    def head_sha256(self) -> str:
        return self.last.entry_sha256 if self.last is not None else GENESIS_SHA256

    def sealed_as(self, record_sha256: str) -> tuple[int, str] | None:
        """(position, path) of the entry holding these record bytes, None when none does."""
        if self._tables():
            return self._hashes.get(record_sha256)
        return self._search(b'"sha256":"' + record_sha256.encode("ascii") + b'"', lambda _, sha: sha == record_sha256)

    def position_of(self, path: str) -> int | None:
        """The position of the entry sealed at store path `path`, None when none is."""
        if self._tables():
            return self._paths.get(path)
        found = self._search(b'"path":' + json.dumps(path).encode("ascii") + b",", lambda at, _: at == path)
        return found[0] if found is not None else None

    def _tables(self) -> bool:
        """Whether the tables are built; built from the third question on (see module docstring)."""
        if self._hashes is None:
            self._searches += 1
            if self._searches <= 2:
                return False
            self._hashes, self._paths = {}, {}
            for position, path, sha in _line_starts(self.raw):
                self._hashes[sha] = (position, path)
                self._paths[path] = position
        return True

    def _search(self, needle: bytes, matches) -> tuple[int, str] | None:
        """The first line whose text holds `needle` and whose (path, sha256) `matches`."""
        at = self.raw.find(needle)
        while at != -1:
            start = self.raw.rfind(b"\n", 0, at) + 1
            position, path, sha = next(_line_starts(self.raw, start))
            if matches(path, sha):
                return position, path
            at = self.raw.find(needle, at + 1)
        return None

    @classmethod
    def load(cls, ledger_path: Path, cache_dir: Path | None) -> "LedgerIndex":
        """The index of the ledger at `ledger_path` (missing: empty); raises LedgerError when
        the ledger is broken (the chain is walked unless the head file vouches for the bytes)."""
        raw = read_ledger_file(ledger_path)
        digest = hashlib.sha256(raw)
        tail = _last_line(raw)
        if _head_file_vouches(cache_dir, raw, digest.hexdigest()):
            last = LedgerEntry(entry_sha256=sha256_hex(tail), **json.loads(tail)) if tail else None
        else:
            read = read_ledger(raw, ledger_path.as_posix())  # canonical lines, or problems
            if read.problems:
                raise LedgerError(read.problems, f"{ledger_path.as_posix()} is broken ({len(read.problems)} problem(s)); run `benchledger verify`")
            last = read.entries[-1] if read.entries else None
        # the head file is written by the next append, never by a mere read
        return cls(len(raw), tail, last, bytearray(raw), digest)

    def current(self, ledger_path: Path) -> bool:
        """Whether the ledger still ends where this index does: same size, same last line."""
        try:  # plain os calls on one descriptor: this runs for every seal
            fd = os.open(ledger_path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return self.size_bytes == 0
        try:
            size = os.fstat(fd).st_size
            if size != self.size_bytes:
                return False
            # one byte more than should be left: a line appended meanwhile shows
            return not size or os.pread(fd, len(self.tail) + 2, size - len(self.tail) - 1) == self.tail + b"\n"
        finally:
            os.close(fd)

    def appended(self, entry: LedgerEntry, line: bytes, cache_dir: Path | None) -> None:
        """Take in the line just appended for `entry` (and update the head file)."""
        self.size_bytes += len(line) + 1
        self.tail, self.last = line, entry
        self.raw += line + b"\n"
        if self._hashes is not None:
            self._hashes[entry.sha256] = (entry.position, entry.path)
            self._paths[entry.path] = entry.position
        self.digest.update(line + b"\n")
        self.save(cache_dir)

    def save(self, cache_dir: Path | None) -> None:
        """Write the head file: these ledger bytes (by SHA-256) were found intact. A cache that
        cannot be written only costs a chain walk next time."""
        if cache_dir is None:
            return
        note = {"ledger_sha256": self.digest.hexdigest(), "size_bytes": self.size_bytes, "entries": self.count,
                "head_sha256": self.head_sha256}
        # Rewritten in place (a seal's cost; a temp file and a rename cost 0.04 ms more): only a
        # sealer holding the seal lock reads or writes it, and a torn write (a crash) reads as no
        # note, since a note vouches only for ledger bytes whose SHA-256 it holds.
        try:
            fd = open_making_folders(cache_dir / HEAD_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW)
            try:
                write_all(fd, json.dumps(note, sort_keys=True).encode() + b"\n")
            finally:
                os.close(fd)
        except OSError:
            pass


def _line_starts(raw: bytearray, start: int = 0):
    """(position, path, record sha256) of each canonical line from offset `start` on."""
    for match in _LINE_START.finditer(raw, start):
        quoted = bytes(match.group(2))  # store paths are letters, digits and -_./: no escapes to decode
        path = quoted[1:-1].decode() if b"\\" not in quoted else json.loads(quoted)
        yield int(match.group(1)), path, match.group(3).decode()


def _last_line(raw: bytes) -> bytes:
    return raw[raw.rfind(b"\n", 0, len(raw) - 1) + 1 : -1] if raw else b""


def _head_file_vouches(cache_dir: Path | None, raw: bytes, ledger_sha256: str) -> bool:
    """Whether the head file names exactly these ledger bytes (and its head is their last line)."""
    if cache_dir is None or not raw:
        return False
    try:
        note = json.loads((cache_dir / HEAD_FILE).read_bytes())
        return (isinstance(note, dict) and note.get("ledger_sha256") == ledger_sha256
                and note.get("size_bytes") == len(raw)
                and note.get("head_sha256") == sha256_hex(_last_line(raw)))
    except (OSError, ValueError):
        return False
