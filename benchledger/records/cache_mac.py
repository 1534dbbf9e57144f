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

_TAG = b"blmac1 "


@cache
def _secret() -> bytes:
    env = os.environ.get("BENCHLEDGER_CACHE_SECRET")
    path = Path(env) if env else Path.home() / ".config" / "benchledger" / "cache-secret"
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    fresh = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(fresh)
        return fresh
    except FileExistsError:  # another process made it meanwhile
        return path.read_bytes() if len(path.read_bytes()) >= 32 else fresh
    except OSError:
        return fresh


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
