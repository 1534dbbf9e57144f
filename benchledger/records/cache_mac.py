"""Cache entries a forger cannot make: every cache entry benchledger writes (validation passes,
renderings, charts, the Vega bundle) carries an HMAC-SHA256 under a secret of this user's,
kept outside the project (a pre-filled or edited `.cache/` is then only a miss, re-computed).

The secret is `$BENCHLEDGER_CACHE_SECRET` (a file path) when set, else
`~/.config/benchledger/cache-secret` (created once, mode 0600); when neither can be written it
lives for this process only, and caches then help only within it."""

from __future__ import annotations

import hmac
import os
import secrets
from functools import cache
from pathlib import Path

from benchledger.atomic import write_atomic, write_new

_TAG = b"blmac1 "
_SECRET_BYTES = 32


@cache
def _secret() -> bytes:
    env = os.environ.get("BENCHLEDGER_CACHE_SECRET")
    path = Path(env) if env else Path.home() / ".config" / "benchledger" / "cache-secret"
    found = _read(path)
    if found is not None and len(found) >= _SECRET_BYTES:
        return found
    fresh = secrets.token_bytes(_SECRET_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # whole or not at all: a file cut short (a process killed between creating and writing
        # it) made every later process draw a secret of its own, and no cache entry ever hit
        if found is None:
            write_new(path, fresh, mode=0o600)  # FileExistsError: another process made it meanwhile
        else:
            write_atomic(path, fresh, mode=0o600)  # shorter than any secret this writes: a torn one
    except FileExistsError:
        pass
    except OSError:
        return fresh
    settled = _read(path)  # the one on disk, whichever process wrote it
    return settled if settled is not None and len(settled) >= _SECRET_BYTES else fresh


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def mac(data: bytes) -> str:
    """The hex HMAC of `data` under this user's cache secret."""
    return hmac.digest(_secret(), data, "sha256").hex()  # one-shot: a third of hmac.new's cost


def holds(data: bytes, tag: str | bytes) -> bool:
    """Whether `tag`, as read back from a cache file (any text, even not ASCII), is the MAC of
    `data`: compared as bytes, so a garbled file is a miss rather than a TypeError."""
    raw = tag.encode("utf-8", errors="replace") if isinstance(tag, str) else tag
    return hmac.compare_digest(raw, mac(data).encode())


def seal(data: bytes) -> bytes:
    """`data` with its MAC in front, as a cache file holds it."""
    return _TAG + mac(data).encode() + b"\n" + data


def unseal(blob: bytes) -> bytes | None:
    """The data of a cache file, or None when its MAC does not hold (edited, forged, or written
    under another secret): the caller treats that as a miss and computes the entry again."""
    if not blob.startswith(_TAG):
        return None
    head, sep, data = blob.partition(b"\n")
    if not sep or not holds(data, head[len(_TAG):]):
        return None
    return data
