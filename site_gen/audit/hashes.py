"""`verify --site`'s steps on files and hashes: every file against SHA256SUMS, the served records
against the ledger, every hash a page states, and the ledger's head."""

from __future__ import annotations

import re

from benchledger.errors import Problem
from benchledger.records.digest import SHA256_HEX, distinct_prefixes, sha256_hex
from site_gen import escape
from site_gen.audit.site import RECORDS, SiteAudit
from site_gen.checksums import check_site_files
from site_gen.pages.audit import SUMS_NAME, sha256sums


# Hashes a page states about records: traced numbers and audit blocks carry data-sha256.
_STATED = re.compile(r"""data-sha256\s*=\s*["']?([0-9a-fA-F]{64})""")
_HEAD = re.compile(f'<code class="bl-hash-full">({SHA256_HEX})</code>')
# Hashes a page states in its own words, as the generator writes them: a short hash with the
# full one in its title, a full one, the full one a copy button copies. (A hash inside a
# record's text, such as a model file's, is the record's claim, shown in a bl-text span.)
_TITLED_HASH = re.compile(r'<code class="bl-hash" title="([^"]*)">([^<]*)</code>')
_FULL_HASH = re.compile(r'<code class="bl-hash-full">([^<]*)</code>')
_COPIED_HASH = re.compile(r'<button type="button" class="bl-copy" data-copy="([^"]*)"')
_ANY_HASH = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])")
_SUMS_LISTING = re.compile(r'<pre class="bl-sums bl-listing"><code>(.*?)</code></pre>', re.S)
AUDIT_PAGE = "audit.html"


def check_every_file(audit: SiteAudit) -> list[Problem]:
    """Every file of the site against the site-wide SHA256SUMS: listed files missing or
    altered, and files present but not listed (site_gen.checksums). The served records are
    left to `check_served_records`, which holds them to the ledger."""
    return check_site_files(audit.site, frozenset(f"{RECORDS}/{e.path}" for e in audit.read.entries))


def check_served_records(audit: SiteAudit) -> list[Problem]:
    """Every served record has the bytes and size the ledger states."""
    problems = []
    for entry in audit.read.entries:
        served = audit.site / RECORDS / entry.path
        if not served.is_file():
            problems.append(Problem(served.as_posix(), "", f"missing: the ledger seals {entry.sha256[:12]} here"))
            continue
        raw = served.read_bytes()
        actual = sha256_hex(raw)
        if actual != entry.sha256 or len(raw) != entry.size_bytes:
            now, sealed = distinct_prefixes(actual, entry.sha256)
            problems.append(Problem(served.as_posix(), "", f"altered: sha256 is {now} ({len(raw)} bytes) but the ledger "
                                                           f"states {sealed} ({entry.size_bytes} bytes)"))
    return problems


def check_sums(audit: SiteAudit) -> list[Problem]:
    """SHA256SUMS lists exactly the ledger's records and hashes."""
    sums_file = audit.site / RECORDS / SUMS_NAME
    if not sums_file.is_file():
        return [Problem(sums_file.as_posix(), "", "missing")]
    if sums_file.read_text(encoding="utf-8", errors="replace") != sha256sums(audit.read.entries).decode():
        return [Problem(sums_file.as_posix(), "", "does not list the ledger's records and hashes")]
    return []


def check_stated_hashes(audit: SiteAudit) -> list[Problem]:
    """Every hash a page states is one the ledger holds, in its attributes and in the words a
    reader compares (a hash with its short form, an audit block's hashes, the audit page's
    tables and its copy of records/SHA256SUMS); each audit block links the right served bytes."""
    problems = []
    for rel, page, html in audit.pages:
        shown = audit.shown(rel)
        for sha in sorted(set(_STATED.findall(html))):
            if sha not in audit.sealed:
                problems.append(Problem(shown, "", f"states record sha256 {sha}, which the ledger does not seal"))
        if page.suffix.lower() == ".svg":
            continue  # a chart: it states no hash in words (and charts are most of a site's bytes)
        for full, short in _TITLED_HASH.findall(html):
            if full not in audit.ledger_hashes:
                problems.append(Problem(shown, "", f"states sha256 {full} (shown as {short}), which the ledger does not hold"))
            elif not full.startswith(short):
                problems.append(Problem(shown, "", f"shows {short} as the short form of {full}"))
        for sha in _COPIED_HASH.findall(html):
            if sha not in audit.sealed:
                problems.append(Problem(shown, "", f"copies record sha256 {sha}, which the ledger does not seal"))
        if rel == AUDIT_PAGE:  # the ledger's own page: every hash on it is the ledger's (its head: check_head)
            unknown = sorted(set(_ANY_HASH.findall(html)) - audit.ledger_hashes - set(_HEAD.findall(html)[:1]))
            problems += [Problem(shown, "", f"states sha256 {sha}, which the ledger does not hold") for sha in unknown]
            listing = _SUMS_LISTING.search(html)
            if not unknown and listing and listing.group(1) != escape.pre(sha256sums(audit.read.entries).decode()):
                problems.append(Problem(shown, "", f"its copy of {RECORDS}/{SUMS_NAME} is not the served ledger's list of records and hashes"))
        for sha, src, block in audit.audit_blocks.get(rel, ()):
            target = (page.parent / src).resolve()
            entry = audit.sealed.get(sha)
            if entry is None:
                continue  # said above, from its data-sha256
            if target != (audit.site / RECORDS / entry.path).resolve():
                problems.append(Problem(shown, "", f"its audit block for {sha[:12]} links {src}, not {RECORDS}/{entry.path}"))
            # the block's words: the record's hash, its ledger entry's and the one before
            others = sorted(set(_ANY_HASH.findall(block)) - {sha, entry.entry_sha256, entry.prev_sha256})
            problems += [Problem(shown, "", f"its audit block for {sha[:12]} states sha256 {other}, which is not the record's, "
                                            f"its ledger entry's ({entry.entry_sha256[:12]}) or the one before")
                         for other in others]
            if not others and _FULL_HASH.findall(block) != [sha]:
                problems.append(Problem(shown, "", f"its audit block for {sha[:12]} does not state the record's sha256 {sha} in full"))
    return problems


def check_head(audit: SiteAudit) -> list[Problem]:
    """The audit page states the served ledger's head, and it is the one the auditor expects."""
    problems = []
    for rel, _, html in audit.pages:
        if rel == AUDIT_PAGE:
            heads = _HEAD.findall(html)
            if heads and heads[0] != audit.read.head_sha256:
                stated, served = distinct_prefixes(heads[0], audit.read.head_sha256)
                problems.append(Problem(audit.shown(rel), "", f"states ledger head {stated} but the served ledger's head is {served}"))
    if audit.expect_head is not None and audit.expect_head != audit.read.head_sha256:
        problems.append(Problem(audit.ledger_shown, "", f"head is {audit.read.head_sha256} but {audit.expect_head} was expected: "
                                                        "entries were appended, removed or changed"))
    return problems
