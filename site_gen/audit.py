"""`benchledger verify --site DIR`: check a built (or downloaded) copy of the site against the
ledger it serves. Every hash a page states must be a sealed record's (or the ledger's head),
every served record must have the bytes and size the ledger states, the ledger's chain must hold,
and SHA256SUMS must agree with it. Reports every problem at once."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Sequence

from benchledger.errors import Problem
from benchledger.records.keys import VerifierKey
from benchledger.records.digest import SHA256_HEX
from benchledger.records.ledger import LEDGER_NAME, read_ledger
from site_gen.log_audit import check_site_log
from site_gen.pages.audit import SUMS_NAME, sha256sums

RECORDS = "records"
# Hashes a page states about records: traced numbers and audit blocks carry data-sha256.
_STATED = re.compile(f'data-sha256="({SHA256_HEX})"')
_AUDIT_BLOCK = re.compile(f'<div class="bl-audit" data-sha256="({SHA256_HEX})" data-src="([^"]+)">')
_HEAD = re.compile(f'<code class="bl-hash-full">({SHA256_HEX})</code>')


def verify_site(site_dir: Path | str, *, pinned: Sequence[VerifierKey] = (),
                kept: tuple[str, bytes] | None = None) -> list[Problem]:
    """Every problem found in the site at `site_dir` (empty when it holds). `pinned` and `kept`
    are the auditor's verifier keys and earlier checkpoint, for the transparency-log steps."""
    site = Path(site_dir)
    problems: list[Problem] = []
    ledger_file = site / RECORDS / LEDGER_NAME
    shown = ledger_file.as_posix()
    if not ledger_file.is_file():
        return [Problem(shown, "", "missing: a benchledger site serves its ledger here")]
    read = read_ledger(ledger_file.read_bytes(), shown)
    problems += read.problems
    sealed = {e.sha256: e for e in read.entries}

    # Every served record has the bytes and size the ledger states.
    for entry in read.entries:
        served = site / RECORDS / entry.path
        if not served.is_file():
            problems.append(Problem(served.as_posix(), "", f"missing: the ledger seals {entry.sha256[:12]} here"))
            continue
        raw = served.read_bytes()
        actual = hashlib.sha256(raw).hexdigest()
        if actual != entry.sha256 or len(raw) != entry.size_bytes:
            problems.append(Problem(served.as_posix(), "", f"altered: sha256 is {actual[:12]} ({len(raw)} bytes) but the ledger "
                                                           f"states {entry.sha256[:12]} ({entry.size_bytes} bytes)"))

    # SHA256SUMS says the same as the ledger.
    sums_file = site / RECORDS / SUMS_NAME
    if not sums_file.is_file():
        problems.append(Problem(sums_file.as_posix(), "", "missing"))
    elif sums_file.read_text(encoding="utf-8", errors="replace") != sha256sums(read.entries).decode():
        problems.append(Problem(sums_file.as_posix(), "", "does not list the ledger's records and hashes"))

    # Every page's stated hashes are the ledger's; each audit block points at the right bytes.
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        html = page.read_text(encoding="utf-8", errors="replace")
        for sha in sorted(set(_STATED.findall(html))):
            if sha not in sealed:
                problems.append(Problem(rel, "", f"states record sha256 {sha[:12]}, which the ledger does not seal"))
        for sha, src in _AUDIT_BLOCK.findall(html):
            target = (page.parent / src).resolve()
            entry = sealed.get(sha)
            if entry is not None and target != (site / RECORDS / entry.path).resolve():
                problems.append(Problem(rel, "", f"its audit block for {sha[:12]} links {src}, not {RECORDS}/{entry.path}"))
        if rel == "audit.html":
            heads = _HEAD.findall(html)
            if heads and heads[0] != read.head_sha256:
                problems.append(Problem(rel, "", f"states ledger head {heads[0][:12]} but the served ledger's head is {read.head_sha256[:12]}"))
    # The signed transparency log (ledger/): its own steps, in site_gen.log_audit.
    problems += check_site_log(site, read.entries, shown, pinned=pinned, kept=kept)
    return problems
