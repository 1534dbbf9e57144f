"""What sealing needs to know about the ledger, without parsing and re-walking it for every seal:
its size, its last line (the head), and the record hashes and paths it already holds.

`LedgerIndex.load` reads the ledger's bytes and walks the chain once (`ledger.read_ledger`),
unless the head file (`HEAD_FILE`, in the store's cache folder) says that exactly these bytes,
by their SHA-256, were walked and found intact before; then only the hashes and paths are
picked out of the canonical lines. A seal in the same process then checks only the ledger's
size and last line (`current`): unchanged, it appends to what it knows; changed (another
sealer, an edit), it loads again. So sealing costs the same for the ten-thousandth record as for
the first. The head file is a cache: missing, stale or unreadable, the chain is walked again;
`verify` never trusts it. Only a successful append writes it, so a refused seal changes
nothing on disk."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.atomic import write_atomic
from benchledger.errors import LedgerError
from benchledger.records.ledger import GENESIS_SHA256, LedgerEntry, read_ledger

HEAD_FILE = "ledger-head.json"
# The start of a canonical line (`ledger.encode_line`: fixed key order, no spaces, ASCII).
_LINE_START = re.compile(rb'\{"position":([0-9]+),"path":("(?:[^"\\]|\\.)*"),"sha256":"([0-9a-f]{64})"')


@dataclass
class LedgerIndex:
    """The ledger as sealing sees it (see module docstring)."""

    size_bytes: int
    tail: bytes  # the last line, without its newline (b"" for an empty ledger)
    last: LedgerEntry | None
    hashes: dict[str, tuple[int, str]] = field(default_factory=dict)  # record sha256 -> (position, path)
    paths: dict[str, int] = field(default_factory=dict)  # path -> position
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)  # SHA-256 of the ledger bytes so far

    @property
    def count(self) -> int:
        return len(self.paths)

    @property
    def head_sha256(self) -> str:
        return self.last.entry_sha256 if self.last is not None else GENESIS_SHA256

    @classmethod
    def load(cls, ledger_path: Path, cache_dir: Path | None) -> "LedgerIndex":
        """The index of the ledger at `ledger_path` (missing: empty); raises LedgerError when
        the ledger is broken (the chain is walked unless the head file vouches for the bytes)."""
        try:
            raw = ledger_path.read_bytes()
        except FileNotFoundError:
            raw = b""
        digest = hashlib.sha256(raw)
        if _head_file_vouches(cache_dir, raw, digest.hexdigest()):
            index = cls._from_canonical(raw)
        else:
            read = read_ledger(raw, ledger_path.as_posix())
            if read.problems:
                raise LedgerError(read.problems, f"{ledger_path.as_posix()} is broken ({len(read.problems)} problem(s)); run `benchledger verify`")
            index = cls(len(raw), _last_line(raw), read.entries[-1] if read.entries else None)
            for entry in read.entries:
                index.hashes[entry.sha256] = (entry.position, entry.path)
                index.paths[entry.path] = entry.position
        index.digest = digest  # the head file is written by the next append, never by a mere read
        return index

    @classmethod
    def _from_canonical(cls, raw: bytes) -> "LedgerIndex":
        """From bytes known to be an intact ledger: hashes and paths picked out of each line."""
        index = cls(len(raw), _last_line(raw), None)
        for match in _LINE_START.finditer(raw):
            quoted = match.group(2)  # store paths are letters, digits and -_./: no escapes to decode
            path = quoted[1:-1].decode() if b"\\" not in quoted else json.loads(quoted)
            position = int(match.group(1))
            index.hashes[match.group(3).decode()] = (position, path)
            index.paths[path] = position
        if index.tail:
            fields = json.loads(index.tail)
            index.last = LedgerEntry(entry_sha256=hashlib.sha256(index.tail).hexdigest(), **fields)
        return index

    def current(self, ledger_path: Path) -> bool:
        """Whether the ledger still ends where this index does: same size, same last line."""
        try:
            size = os.stat(ledger_path).st_size
        except FileNotFoundError:
            size = 0
        if size != self.size_bytes:
            return False
        if not size:
            return True
        with open(ledger_path, "rb") as f:
            f.seek(size - len(self.tail) - 1)
            return f.read() == self.tail + b"\n"

    def appended(self, entry: LedgerEntry, line: bytes, cache_dir: Path | None) -> None:
        """Take in the line just appended for `entry` (and update the head file)."""
        self.size_bytes += len(line) + 1
        self.tail, self.last = line, entry
        self.hashes[entry.sha256] = (entry.position, entry.path)
        self.paths[entry.path] = entry.position
        self.digest.update(line + b"\n")
        self.save(cache_dir)

    def save(self, cache_dir: Path | None) -> None:
        """Write the head file: these ledger bytes (by SHA-256) were found intact. A cache that
        cannot be written only costs a chain walk next time."""
        if cache_dir is None:
            return
        note = {"ledger_sha256": self.digest.hexdigest(), "size_bytes": self.size_bytes, "entries": self.count,
                "head_sha256": self.head_sha256}
        try:
            write_atomic(cache_dir / HEAD_FILE, json.dumps(note, sort_keys=True).encode() + b"\n", durable=False)
        except OSError:
            pass


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
                and note.get("head_sha256") == hashlib.sha256(_last_line(raw)).hexdigest())
    except (OSError, ValueError):
        return False
