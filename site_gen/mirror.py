"""A deployed site copied into a local folder, so that `verify --site URL` audits exactly what a
reader downloads: every file the site-wide SHA256SUMS lists, every page reachable by links from
the home page (and the files they link and load, listed or not, so an injected file a page
links is copied and reported), the served ledger and records/SHA256SUMS, every record the
ledger names, and the transparency log's files (checkpoint, verifier key, stored checkpoints,
inclusion and consistency proofs). A file the server does not have is simply absent from the copy: the audit then names it."""

from __future__ import annotations

import html
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from pathlib import Path

from benchledger.errors import InputError
from benchledger.project import split_url
from benchledger.records.ledger import LEDGER_NAME, read_ledger
from site_gen.checksums import SUMS_NAME, parse_sums
from site_gen.pages.transparency import CHECKPOINT, VKEY, inclusion_path

START = (SUMS_NAME, "index.html", f"records/{LEDGER_NAME}", "records/SHA256SUMS", CHECKPOINT, VKEY, "transparency.html", "audit.html")
_LINK = re.compile(r'(?:href|src)="([^"#?]*)[^"]*"')
MAX_FILES = 200_000
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 ** 3  # a copy never fills the auditor's disk (a site of 100 articles is tens of MB)
TIMEOUT_S = 30  # each wait for the server
FILE_DEADLINE_S = 300  # a whole file: a server trickling a byte per wait cannot hold the audit for ever
_CHUNK = 1 << 20


def is_url(where: str) -> bool:
    """Whether `where` names a site by http(s) URL rather than a folder."""
    return where.startswith(("http://", "https://"))


def _get(url: str) -> bytes | None:
    """The body at `url`, None when the server has no such file (HTTP 404/410)."""
    deadline = time.monotonic() + FILE_DEADLINE_S
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            chunks, size = [], 0
            while size <= MAX_FILE_BYTES:
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() > deadline:
                    raise InputError(url, "", f"took more than {FILE_DEADLINE_S} s to download: the server is too slow to audit")
            data = b"".join(chunks)
    except urllib.error.HTTPError as err:
        if err.code in (404, 410):
            return None
        raise InputError(url, "", f"HTTP {err.code} {err.reason}") from None
    except (urllib.error.URLError, OSError) as err:
        raise InputError(url, "", f"cannot fetch: {getattr(err, 'reason', None) or err}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(url, "", f"larger than {MAX_FILE_BYTES} bytes: not a file of a benchledger site")
    return data


def _relative(base: str, page_url: str, link: str) -> str | None:
    """The site path `link` (on the page at `page_url`) names, None when it leaves the site."""
    target = urllib.parse.urljoin(page_url, html.unescape(link))
    if not target.startswith(base):
        return None
    rel = urllib.parse.unquote(target[len(base):])
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return rel if _inside(rel) else None


def _inside(rel: str) -> bool:
    """Whether the site path `rel` names a file inside the site (no empty, '.' or '..' part)."""
    return not any(p in ("", ".", "..") for p in rel.split("/"))


def mirror_site(url: str, into: Path, max_total_bytes: int = MAX_TOTAL_BYTES) -> int:
    """Copy the site at `url` into the folder `into`; returns the number of files copied."""
    try:
        parts = split_url(url)
    except ValueError as err:
        raise InputError(url, "", f"not a URL a site can be read from: {err}") from None
    if not parts.hostname:
        raise InputError(url, "", "not a URL a site can be read from: no host")
    base = url if url.endswith("/") else url + "/"
    queue, seen, copied, total = deque(START), set(START), 0, 0
    while queue:
        if len(seen) > MAX_FILES:
            raise InputError(url, "", f"more than {MAX_FILES} files: not a benchledger site")
        rel = queue.popleft()
        data = _get(base + urllib.parse.quote(rel))
        if data is None:
            continue
        total += len(data)
        if total > max_total_bytes:
            raise InputError(url, "", f"more than {max_total_bytes} bytes in all: not a benchledger site (the copy stops here)")
        target = into / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except (OSError, ValueError):  # a name no file can have here ("index.html/x", a NUL): the audit names it missing
            continue
        copied += 1
        found: list[str] = []
        if rel.endswith(".html"):
            page = data.decode("utf-8", errors="replace")
            found = [r for r in (_relative(base, base + rel, link) for link in _LINK.findall(page)) if r]
        elif rel == SUMS_NAME:  # a path that would leave the site is left out (and reported missing)
            found = [r for r in parse_sums(data, rel)[0] if _inside(r)]
        elif rel == f"records/{LEDGER_NAME}":
            entries = read_ledger(data, rel).entries
            found = [f"records/{e.path}" for e in entries] + [inclusion_path(e.sha256) for e in entries]
        for r in found:
            if r not in seen:
                seen.add(r)
                queue.append(r)
    return copied
