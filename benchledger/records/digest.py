"""SHA-256 as benchledger spells it: a record is named by the SHA-256 of its exact bytes, as 64
lowercase hex digits, or by a unique prefix of at least `MIN_PREFIX_HEX` of them; code and
resources are fingerprinted as one digest over (name, bytes) pairs. One pattern, used by the
ledger, the store, articles, `show` and the site audit alike."""

from __future__ import annotations

import hashlib
import re
from typing import Iterable

MIN_PREFIX_HEX = 12
SHA256_HEX = "[0-9a-f]{64}"  # for embedding in a larger pattern (e.g. an HTML attribute)
_SHA256 = re.compile(SHA256_HEX)
_PREFIX = re.compile(f"[0-9a-f]{{{MIN_PREFIX_HEX},64}}")


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()


def is_sha256(text: object) -> bool:
    """Whether `text` is a SHA-256 as stored: exactly 64 lowercase hex digits."""
    return isinstance(text, str) and _SHA256.fullmatch(text) is not None


def is_sha256_prefix(text: object) -> bool:
    """Whether `text` can name a record: 12 to 64 lowercase hex digits."""
    return isinstance(text, str) and _PREFIX.fullmatch(text) is not None


def short_id(key: object) -> str:
    """A stable 12-hex id of a key (a tuple of strings): the same key gives the same id in every
    build and on every machine, for a page's path or a series' slug."""
    return hashlib.sha256(repr(key).encode()).hexdigest()[:MIN_PREFIX_HEX]


def distinct_prefixes(a: str, b: str, length: int = MIN_PREFIX_HEX) -> tuple[str, str]:
    """Short forms of two hashes for a message that says they differ: `length` hex digits each,
    or more, up to the first digit that differs (a digit changed near the end of a hash left two
    identical 12-digit prefixes: "is a3e89ae3a225 but ... is a3e89ae3a225")."""
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    shown = max(length, first + 1)
    return a[:shown], b[:shown]


def named_bytes_sha256(items: Iterable[tuple[str, bytes]]) -> str:
    """One SHA-256 over (name, bytes) pairs in the order given, each as name NUL bytes NUL: a
    fingerprint of a set of files (sources, templates) that changes when any name or byte does."""
    digest = hashlib.sha256()
    for name, data in items:
        digest.update(name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()
