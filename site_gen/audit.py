"""`benchledger verify --site DIR`: check a built (or downloaded) copy of the site against the
ledger it serves: every file against the site-wide SHA256SUMS (none missing, altered or added);
the ledger's chain; every served record's bytes against the ledger and
SHA256SUMS; every hash a page states; the head against the audit page and `--expect-head`; every
displayed number against the value in the served record under the formatting rule; every
record's limitations on its page; every chart's data; what the series pages, the history index,
the feed and any claim say against change detection run again on the served records; no load
from another host; and the signed log (site_gen.log_audit). Reports every problem at once."""

from __future__ import annotations

import html as htmllib
import json
import math
import posixpath
import re
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property, lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import unquote

from benchledger.cases.base import Case, CaseKind, value_text
from benchledger.cases.registry import KINDS, kind_for
from benchledger.cases.series import position_key
from benchledger.errors import InputError, Problem
from benchledger.records.jsonread import read_json_bytes
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from benchledger.records.keys import VerifierKey
from benchledger.records.digest import SHA256_HEX, distinct_prefixes, sha256_hex
from benchledger.records.display import readable
from benchledger.records.ledger import LEDGER_NAME, LedgerRead, read_ledger
from benchledger.records.verification import pool_workers
from site_gen import escape, urls
from site_gen.chart_labels import chart_label, series_ticks
from site_gen.chart_redraw import ShownChart, redraw_problems
from site_gen.checksums import check_site_files
from site_gen.explorer import ASSETS_DIR as EXPLORER_DATA, rounded
from site_gen.formula import recompute
from site_gen.log_audit import check_site_log
from site_gen.page import output_path
from site_gen.pages.audit import SUMS_NAME, sha256sums
from site_gen.quantity import DIGITS, MAX_DIGITS, Formatted, axis_number, declared_unit, format_value, ladder, rescaled
from site_gen.static_chart import static_sha256, static_spec, svg_path
from site_gen.tables import cell_text, data_cell

RECORDS = "records"
# Hashes a page states about records: traced numbers and audit blocks carry data-sha256.
_STATED = re.compile(r"""data-sha256\s*=\s*["']?([0-9a-fA-F]{64})""")
_PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".shtml", ".svg", ".xml"}
_AUDIT_BLOCK = re.compile(f'<div class="bl-audit" data-sha256="({SHA256_HEX})" data-src="([^"]+)">(.*?)</div>', re.S)
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
# An explorer data script: the JSON after its registration; a row's cells start after its
# record, point pointer, case label and anchor (explorer.js: `offset`, column 0 being the link).
_EXPLORER_BODY = re.compile(r"window\.benchledgerExplorer\[[^\]]*\]=(.*);\n?\Z", re.S)
EXPLORER_ROW_OFFSET = 3


def verify_site(site_dir: Path | str, *, pinned: Sequence[VerifierKey] = (),
                kept: tuple[str, bytes] | None = None, expect_head: str | None = None,
                redraw_charts: bool = False) -> list[Problem]:
    """Every problem found in the site at `site_dir` (empty when it holds). `pinned` and `kept`
    are the auditor's verifier keys and earlier checkpoint, for the transparency-log steps;
    `expect_head` the ledger head the auditor was told to expect; `redraw_charts`: draw every
    checked chart's SVG again and compare its bytes (site_gen/chart_redraw.py; vl-convert, a
    minute of CPU at 1,000 articles). Each step is a function of its own (`STEPS` below the
    ledger): add one by writing it and listing it there."""
    site = Path(site_dir)
    ledger_file = site / RECORDS / LEDGER_NAME
    shown = ledger_file.as_posix()
    if not site.is_dir():
        given = str(site_dir)  # as typed: Path() would turn "ftp://x" into "ftp:/x"
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", given)
        what = (f"{scheme.group(1)}:// addresses are not fetched (only http:// and https://)" if scheme
                else "a file, not a site folder" if site.exists() else "no such site folder")
        return [Problem(given, "", f"{what}: give the folder `benchledger build --out` wrote, or an http(s) URL")]
    if not ledger_file.is_file():
        return [Problem(shown, "", "missing: a benchledger site serves its ledger here")]
    read = read_ledger(ledger_file.read_bytes(), shown)
    audit = SiteAudit(site, read, shown, expect_head)
    problems = list(read.problems)
    for step in STEPS:
        problems += step(audit)
    if redraw_charts:  # the images of the charts whose data the steps above checked
        problems += redraw_problems(site, audit.charts)
    # The signed transparency log (ledger/): its own steps, in site_gen.log_audit.
    problems += check_site_log(site, read.entries, shown, pinned=pinned, kept=kept)
    return problems


class SiteAudit:
    """What every step reads: the site folder, its served ledger, and its pages (parsed once)."""

    def __init__(self, site: Path, read: LedgerRead, ledger_shown: str, expect_head: str | None):
        self.site = site
        self.read = read
        self.ledger_shown = ledger_shown
        self.expect_head = expect_head
        self.sealed = {e.sha256: e for e in read.entries}
        # every hash the ledger holds: a page may state any of them (records, entries, genesis)
        self.ledger_hashes = set(self.sealed) | {h for e in read.entries for h in (e.entry_sha256, e.prev_sha256)}
        self._records: dict[str, Any] = {}
        self._cases: dict[str, tuple[CaseKind, list[Case]] | None] = {}
        self._case_labels: dict[str, dict[tuple[str, str], str] | None] = {}
        self._series_labels: dict[str, list[str]] = {}
        self._limitations: dict[str, list | None] = {}
        # each SVG a checked chart shows (its site path) -> the first such chart: what
        # --redraw-charts draws again
        self.charts: dict[str, ShownChart] = {}

    def shown(self, rel: str) -> str:
        """A site file as problems name it: under the site folder as given, as the other
        steps (SHA256SUMS, the served records) name theirs."""
        return (self.site / rel).as_posix()

    @cached_property
    def texts(self) -> dict[str, str]:
        """Each page's text by its site path (`pages`)."""
        return {rel: text for rel, _, text in self.pages}

    @cached_property
    def pages(self) -> list[tuple[str, Path, str]]:
        """(site-relative path, file, text) of every file a browser would open as a page: HTML
        under any of its names, and SVG (which can hold script and load from elsewhere too)."""
        return [(p.relative_to(self.site).as_posix(), p, p.read_text(encoding="utf-8", errors="replace"))
                for p in sorted(self.site.rglob("*")) if p.suffix.lower() in _PAGE_SUFFIXES and p.is_file()]

    @cached_property
    def record_pages(self) -> dict[str, str]:
        """The site path of each record's page, by the record's sha256: the first page holding
        the record's audit block."""
        out: dict[str, str] = {}
        for rel, page, text in self.pages:
            if page.suffix.lower() != ".svg" and 'class="bl-audit"' in text:
                for sha, _, _ in _AUDIT_BLOCK.findall(text):
                    out.setdefault(sha, rel)
        return out

    def scan(self, rel: str) -> "Scanned":
        """What the page at `rel` loads and the traced numbers it shows (every page parsed once,
        for every step that reads its elements)."""
        return self._scans[rel]

    @cached_property
    def _scans(self) -> dict[str, "Scanned"]:
        # Parsing is most of an audit (about 30 s for 1,000 articles' pages and charts on one
        # CPU): past a few hundred pages, each worker parses its share, reading the files itself.
        paths = [path for _, path, _ in self.pages]
        workers = pool_workers(len(paths))
        if workers < 2:
            found = [scan_page(text) for _, _, text in self.pages]
        else:
            with ProcessPoolExecutor(workers) as pool:
                found = list(pool.map(_scan_file, paths, chunksize=32))
        return {rel: scanned for (rel, _, _), scanned in zip(self.pages, found)}

    def record_cases(self, sha256: str) -> tuple[CaseKind, list[Case]] | None:
        """The case table of the served record with this sha256 and its cases, as the site
        reads them (None when not served intact, or of a kind no case table lists)."""
        if sha256 not in self._cases:
            data, kind = self.record_data(sha256), kind_for(self.sealed[sha256].schema) if sha256 in self.sealed else None
            self._cases[sha256] = (kind, kind.cases(data, sha256)) if data is not None and kind is not None else None
        return self._cases[sha256]

    def schema_cases(self, schema: str) -> int:
        """How many cases the served records of `schema` hold (what no series can number past)."""
        return sum(len(found[1]) for e in self.read.entries if e.schema == schema
                   for found in [self.record_cases(e.sha256)] if found is not None)

    @cached_property
    def series(self) -> dict[str, Any] | None:
        """Each series the served records hold (a `history.SeriesReport`), by the site path of
        its page, as change detection finds it again; None when a record is not served intact
        (the steps that read records say so), since no series can then be made again."""
        from site_gen.history import history, series_path  # change detection: numpy and scipy, for these steps only

        records = []
        for entry in self.read.entries:
            data = self.record_data(entry.sha256)
            if data is None:
                return None
            records.append((data, entry.sha256, entry.path, entry.schema))
        return {output_path(series_path(report.series)): report for report in history(records)}

    def case_labels(self, rel: str) -> dict[tuple[str, str], str] | None:
        """Each case's label on the charts of the series page at `rel`, by (record sha256, case
        pointer), as the build cuts it (`chart_labels.chart_label`); None for no series' page.
        Made once per page: each of its charts asks."""
        if rel not in self._case_labels:
            report = (self.series or {}).get(rel)
            self._case_labels[rel] = None if report is None else {
                (case.record_sha256, case.pointer): chart_label(label)
                for case, label in zip(report.series.cases, self.series_labels(rel))}
        return self._case_labels[rel]

    def series_labels(self, rel: str) -> list[str]:
        """The case labels of the series whose page is at `rel`, in series order, as its page
        writes them (`history.case_labels`); made once per page."""
        if rel not in self._series_labels:
            from site_gen.history import case_labels

            self._series_labels[rel] = case_labels(self.series[rel].series)
        return self._series_labels[rel]

    def limitations(self, sha256: str) -> list | None:
        """Every limitation of the served record with this sha256 (site_gen.limitations), made
        once per record; None when it is not served intact."""
        if sha256 not in self._limitations:
            from site_gen.limitations import find_limitations

            data = self.record_data(sha256)
            self._limitations[sha256] = None if data is None else find_limitations(data)
        return self._limitations[sha256]

    def record_data(self, sha256: str) -> Any:
        """The parsed served record with this sha256 (None when not served intact)."""
        if sha256 not in self._records:
            entry = self.sealed.get(sha256)
            data = None
            if entry is not None:
                try:
                    raw = (self.site / RECORDS / entry.path).read_bytes()
                    if sha256_hex(raw) == sha256:
                        data = read_json_bytes(raw, entry.path)
                except (OSError, InputError):
                    data = None
            self._records[sha256] = data
        return self._records[sha256]


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
        for sha, src, block in _AUDIT_BLOCK.findall(html):
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


def check_displayed_numbers(audit: SiteAudit) -> list[Problem]:
    """Every number shown with `data-sha256` and `data-pointer` reads, under the site's
    formatting rule (`quantity.format_value`), as the value at that pointer in that served
    record: an edited page number (25.8 -> 99.9) no longer passes."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).numbers:
            if span.sha256 not in audit.sealed:
                if not re.fullmatch(r"[0-9a-fA-F]{64}", span.sha256):  # a hash, unsealed: check_stated_hashes said so
                    problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} as a traced number without a record's sha256 "
                                                     f"(data-sha256={span.sha256[:70]!r}): the page was edited"))
                continue
            data = audit.record_data(span.sha256)
            if data is None:
                continue  # not served intact: reported by the steps above
            value = resolve(data, span.pointer, default=_MISSING)
            if value is _MISSING:
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} from {span.sha256[:12]} {span.pointer}, which that record does not have"))
            elif not _reads_as(span.text, value, span.pointer):
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} for {span.sha256[:12]} {span.pointer}, but the record holds "
                                                 f"{value!r} ({_expected(span.text, value, span.pointer)} under the formatting rule): the page was edited"))
    return problems


def check_displayed_text(audit: SiteAudit) -> list[Problem]:
    """Every piece of record text shown with its record and pointer (a GPU's name, a model, a
    setting: `bl-text` spans) reads as the record's value there: an edited "NVIDIA H200" ->
    "NVIDIA B200" no longer passes."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).texts:
            data = audit.record_data(span.sha256)
            if data is None or not span.pointer:
                continue  # not served intact (said above), or a field the record lacks ("n/a")
            value = resolve(data, span.pointer, default=_MISSING)
            if value is _MISSING:
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} from {span.sha256[:12]} {span.pointer}, which that record does not have"))
            elif span.text != _as_text(value):
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} for {span.sha256[:12]} {span.pointer}, but the record holds "
                                                              f"{_q(_as_text(value))}: the page was edited"))
    return problems


def _as_text(value: Any) -> str:
    """A record value as a page shows it as text, read back as a browser reads it: its
    canonical text (`value_text`), whitespace folded as site_gen.escape writes it."""
    return htmllib.unescape(escape.shown_attr(value_text(value)))


def check_limitations(audit: SiteAudit) -> list[Problem]:
    """Each record's page (the one holding its audit block) shows every limitation of the record,
    what it says of itself and what the generator's rules find in it (site_gen.limitations),
    each under its anchor with its rule and its words; and every served record has its page. A
    caveat cut from a record's page, or reworded, no longer passes."""
    problems = []
    for sha, rel in audit.record_pages.items():
        lims = audit.limitations(sha)
        if lims is None:
            continue  # not served intact: said by the steps that read records
        text = audit.texts[rel]
        shown = {anchor: (source, rule, words) for source, anchors, rule, words in _LIMITATION_ITEM.findall(text)
                 for anchor in _LIMITATION_ID.findall(anchors)}
        # a note shows its text once, under the first rule of those with that text: a record may
        # say in its own words what a rule says
        named: dict[str, set[tuple[str, str]]] = {}
        for lim in lims:
            named.setdefault(lim.text, set()).add((lim.source, escape.html(lim.rule_id)))
        for lim in lims:
            found = shown.get(lim.anchor)
            if found is None:
                problems.append(Problem(audit.shown(rel), "", f"lacks the limitation {lim.anchor} of {sha[:12]} ({lim.rule_id}: "
                                                              f"{_q(lim.text[:80])}): a caveat of the record was cut from its page"))
            elif found[2] != escape.html(lim.text) or found[:2] not in named[lim.text]:
                problems.append(Problem(audit.shown(rel), "", f"shows the limitation {lim.anchor} of {sha[:12]} as "
                                                              f"{_q(htmllib.unescape(found[2])[:80])}, but the record's reads "
                                                              f"{_q(lim.text[:80])} ({lim.rule_id}): the page was edited"))
        problems += _marker_problems(audit.shown(rel), sha, lims, _LIMITATION_MARK.findall(text))
    for entry in audit.read.entries:
        if entry.sha256 not in audit.record_pages and audit.record_data(entry.sha256) is not None:
            problems.append(Problem(audit.shown(f"{RECORDS}/{entry.path}"), "", "no page shows this record's audit block and "
                                                                                "limitations: its page was removed or cut"))
    return problems + _placed_problems(audit)


def _placed_problems(audit: SiteAudit) -> list[Problem]:
    """A limitation shown where records are compared (pages/comparisons.py: its rule and words,
    then the records it applies to) is one the first record it names has, in those words."""
    by_path = {entry.path: entry.sha256 for entry in audit.read.entries}
    problems = []
    for rel, _, text in audit.pages:
        if "bl-lim-where" not in text:
            continue
        for source, rule, words, where in _PLACED_LIMITATION.findall(text):
            path = htmllib.unescape(where).split(" ", 1)[0]  # a store path holds no space
            sha = by_path.get(path)
            lims = audit.limitations(sha) if sha is not None else None
            if sha is None:
                problems.append(Problem(audit.shown(rel), "", f"shows a limitation of {_q(path[:80])}, which the ledger does not "
                                                              f"seal: the page was edited"))
            elif lims is not None and not any(lim.source == source and escape.html(lim.rule_id) == rule
                                              and escape.html(lim.text) == words for lim in lims):
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(htmllib.unescape(words)[:80])} ({htmllib.unescape(rule)[:80]}) "
                                                              f"as a limitation of {path}, which it is not: the page was edited"))
    return problems


def _marker_problems(shown: str, sha: str, lims: list, marks: list[tuple[str, str, str]]) -> list[Problem]:
    """A record page's ⚠ markers beside its numbers (`quantity.limitations_marker`): each links
    to one of the record's limitations, and its hover lists that limitation's words first, then
    the others it counts, each a limitation of the record. (The words are compared one by one
    where no limitation's words are empty or hold the "·" that joins them.)"""
    by_anchor = {lim.anchor: lim for lim in lims}
    texts = {readable(lim.text) for lim in lims}
    plain = all(text and "·" not in text for text in texts)
    problems = []
    for anchor, title, count in marks:
        lim = by_anchor.get(anchor)
        words = htmllib.unescape(title).split(" · ")
        if lim is None:
            problems.append(Problem(shown, "", f"marks a number with {anchor}, which is no limitation of {sha[:12]}: "
                                               f"the page was edited"))
        elif plain and (len(words) != int(count or 1) or words[0] != readable(lim.text) or not set(words) <= texts):
            problems.append(Problem(shown, "", f"marks a number with {anchor} of {sha[:12]}, whose hover reads "
                                               f"{_q(htmllib.unescape(title)[:80])}, not the record's limitations: "
                                               f"the page was edited"))
    return problems


def check_explorer_data(audit: SiteAudit) -> list[Problem]:
    """Every number of the explorer's data scripts (`assets/explore/*.js`) is its record's value
    at its row's point and its column's pointer, or its column's formula recomputed there, to
    the explorer's significant digits: the explorer shows them, and the hover names the record."""
    problems = []
    for script in sorted((audit.site / EXPLORER_DATA).glob("*.js")):
        shown = script.as_posix()
        body = _EXPLORER_BODY.search(script.read_text(encoding="utf-8", errors="replace"))
        try:
            data = json.loads(body.group(1)) if body else None
            records, columns, rows = data["records"], data["columns"], data["rows"]
        except (ValueError, TypeError, KeyError):
            problems.append(Problem(shown, "", "not an explorer data script benchledger writes"))
            continue
        for number, row in enumerate(rows):
            try:
                problems += _explorer_row(audit, shown, number, row, records, columns)
            except (IndexError, KeyError, TypeError, AttributeError):  # a script edited out of shape
                problems.append(Problem(shown, f"$.rows[{number}]", "is not a row benchledger writes (record, point, cells)"))
    return problems


def _explorer_row(audit: SiteAudit, shown: str, number: int, row: list, records: list, columns: list) -> list[Problem]:
    """One row's numbers against its record (raises TypeError, IndexError... for a row out of
    the shape benchledger writes)."""
    sha256, point = records[row[0]][0], row[1]
    if not isinstance(sha256, str) or not isinstance(point, str):
        raise TypeError("not a record's sha256 and a point's pointer")
    if sha256 not in audit.sealed:
        return [Problem(shown, f"$.rows[{number}]", f"names record {sha256[:70]}, which the ledger does not seal")]
    record = audit.record_data(sha256)
    if record is None:
        return []  # not served intact: the records' own step says so
    problems = []
    for c, column in enumerate(columns):
        if column.get("type") != "number" or c + EXPLORER_ROW_OFFSET >= len(row):
            continue
        stored = row[c + EXPLORER_ROW_OFFSET]
        if "pointer" in column:
            where = point + column["pointer"]
            value = resolve(record, where, default=None)
        else:
            value = _recomputed(audit, column.get("formula", ""), {name: (sha256, point + rel) for name, rel in column.get("inputs", [])})
            where = f"{column.get('formula')} at {point}"
        if is_number(value) and stored != rounded(value):
            problems.append(Problem(shown, f"$.rows[{number}]", f"holds {stored!r} for {sha256[:12]} {where}, but the record "
                                                                f"gives {value!r} ({rounded(value)!r} to the explorer's digits)"))
    return problems


def check_derived_numbers(audit: SiteAudit) -> list[Problem]:
    """Every derived number (a ratio, a difference, a sum, a count) reads, under the formatting
    rule, as its formula recomputed from its inputs' values in their served records
    (site_gen.formula): an edited ratio (0.714 -> 0.914) no longer passes. A formula of a shape
    it does not know, or inputs it cannot read, leave the number unchecked."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).derived:
            inputs, records = _named(span.inputs), _named(span.input_sha256)
            value = _recomputed(audit, span.formula, {name: (records.get(name, span.sha256), pointer) for name, pointer in inputs.items()})
            if value is _MISSING:
                continue  # an input not served intact, or absent: the numbers' own steps say so
            first = next(iter(inputs.values()))
            if value is not None and not _reads_as(span.text, value, first):
                problems.append(Problem(audit.shown(rel), "", f"shows {_q(span.text)} for {span.formula} ({span.inputs}), but its inputs "
                                                              f"give {value!r} ({_expected(span.text, value, first)} under the formatting "
                                                              "rule): the page was edited"))
    return problems


# A chart's data rows, by kind (a line chart's or a series chart's): the key of the charted
# value, and the row's keys in the order of its data table's columns.
_CHART_ROWS = {"y": ("x", "y", "series", "origin"), "value": ("label", "value", "low", "high", "origin")}


def check_chart_data(audit: SiteAudit) -> list[Problem]:
    """Every charted point is its record's value (rescaled to the unit its trace names) or its
    formula recomputed from its inputs, a line chart's point at the x its record gives (`_chart_x`),
    a series chart's point labelled by its record's value of the series field, in series order
    (`_chart_labels`), and the table behind each chart shows the chart's own rows: an edited spec or table
    (18.98 -> 9.98 ms, 322 -> 1,024 tokens) no longer passes. A spec drawing data of its
    own (`values`) instead of traced rows is named too."""
    problems = []
    for rel, _, _ in audit.pages:
        scanned = audit.scan(rel)
        if len(scanned.specs) != len(scanned.tables):
            problems.append(Problem(audit.shown(rel), "", f"has {len(scanned.specs)} chart specs and {len(scanned.tables)} tables "
                                                          "behind charts: the page was edited (each chart shows its data below it)"))
        checked: dict[str, dict] = {}  # spec id -> spec, of the specs whose data passed
        for n, (script_id, text) in enumerate(scanned.specs):
            where = f"script {script_id or n}"
            try:
                spec = json.loads(text)
                rows = spec["datasets"]["points"]
                if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
                    raise TypeError
            except (ValueError, TypeError, KeyError):
                problems.append(Problem(audit.shown(rel), where, "is not a chart spec benchledger writes (its points in datasets.points)"))
                continue
            found = len(problems)
            if _inline_data(spec):
                problems.append(Problem(audit.shown(rel), where, "draws data of its own (data.values), which no record traces: the page was edited"))
            for i, row in enumerate(rows):
                problems += _chart_point(audit, audit.shown(rel), f"{where} $.datasets.points[{i}]", row)
                if "y" in row:  # a line chart's point: its x is a record's too
                    problems += _chart_x(audit, audit.shown(rel), f"{where} $.datasets.points[{i}].x", row)
                for end in ("low", "high"):  # a series point's range: each end from a pointer of the point's record
                    if row.get(end) is not None or f"{end}_trace" in row:
                        problems += _chart_value(audit, audit.shown(rel), f"{where} $.datasets.points[{i}].{end}", row.get(end),
                                                 row.get(f"{end}_trace"), of=row.get("trace"))
            if rows and not any("y" in row for row in rows):  # a series chart: its x is its records' too
                problems += _chart_labels(audit, rel, where, spec, rows)
            problems += _chart_segments(audit.shown(rel), where, spec["datasets"], rows)
            if len(problems) == found:  # an edited spec's image differs too: one finding, its data's, says so
                checked[script_id] = spec
            if n < len(scanned.tables):
                problems += _chart_table(audit.shown(rel), where, rows, scanned.tables[n])
        # every chart view's image, a second view of one spec too (a dict would keep only the last)
        problems += [p for view, src in scanned.images if view in checked
                     for p in _chart_image(audit, rel, f"script {view}", checked[view], src)]
    return problems


# A repeat's label: its value's, numbered ("b11146 #2"); the number kept to what int() reads.
_REPEAT = re.compile(r"(.*) #([1-9][0-9]{0,8})", re.S)


def _chart_labels(audit: SiteAudit, rel: str, where: str, spec: dict, rows: list[dict]) -> list[Problem]:
    """A series chart's x against its points' records: each point's label is its case's value of
    the ordered field the x axis is titled by, as the series page shows it (`FieldValue.shown`
    cut as `chart_labels.chart_label` cuts it), numbered #2, #3 ... for repeats of one value, the
    numbers rising along the chart (a track can skip a record, so a number may skip too); the
    points in series order (`series.position_key`); and the spec places them by those labels
    in row order. Two points' labels swapped (a regression moved to another release or date)
    no longer pass. On a series' page, each label is the one its case has among the series'
    served records (`SiteAudit.case_labels`), numbers included: a repeat numbered past its
    place, or two repeats of one value trading places and numbers, no longer pass either."""
    shown, exact = audit.shown(rel), audit.case_labels(rel)
    problems = _chart_order(shown, where, spec, rows)
    titles = sorted({str(x.get("title")) for _, x in _x_encodings(spec) if "title" in x})
    numbered: dict[str, int] = {}  # a value -> the last number a label of it had on this chart
    last: tuple | None = None  # the last point's (series position, label)
    for i, row in enumerate(rows):
        at, label, trace = f"{where} $.datasets.points[{i}].label", row.get("label"), row.get("trace")
        found = _point_case(audit, trace)
        if found is None:
            continue  # no record served intact to read it from: the point's own check says so
        kind, case = found
        if case is None:
            problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} a value of {trace['sha256'][:12]} in none of its cases "
                                               "(a series charts its cases' values): the page was edited"))
            continue
        field = next((f for f in kind.fields if f.ordered and f.name in case.values and [chart_label(f.label)] == titles), None)
        if field is None:
            return problems + [Problem(shown, where, f"titles its x axis {', '.join(titles)[:70]!r}, which names no ordered "
                                                     f"field of a {kind.schema} record: the page was edited")]
        value = case.values[field.name].shown
        number = _repeat_number(label, value, lambda: audit.schema_cases(kind.schema))
        if number is None:
            problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} the point of {case.record_sha256[:12]} "
                                               f"{case.pointer or '(the record)'}, whose {field.label} is {value[:80]!r}: "
                                               "the page was edited"))
        elif number <= numbered.get(value, 0):
            problems.append(Problem(shown, at, f"numbers {str(label)[:80]!r} repeat {number} of {value[:80]!r} after repeat "
                                               f"{numbered[value]} (repeats are numbered in series order): the page was edited"))
        else:
            numbered[value] = number
            wanted = exact.get((case.record_sha256, case.pointer)) if exact is not None else None
            if wanted is not None and label != wanted:
                problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} the point of {case.record_sha256[:12]} "
                                                   f"{case.pointer or '(the record)'}, which the series' served records, in "
                                                   f"order, label {wanted[:80]!r}: the page was edited"))
        key = position_key(kind, field.name, case)
        if last is not None and key < last[0]:
            problems.append(Problem(shown, at, f"charts {str(label)[:80]!r} after {str(last[1])[:80]!r}, but its {field.label} comes "
                                               "before that one's in the series' order: the page was edited"))
        last = (key, label)
    return problems


def _point_case(audit: SiteAudit, trace: Any) -> tuple[CaseKind, Case | None] | None:
    """The case a traced point is of: the one whose pointer its value's (a formula's first input's)
    lies under; (kind, None) where none holds it, None where the record is not read (no trace, not
    served intact, of no case table)."""
    if not isinstance(trace, dict) or not isinstance(trace.get("sha256"), str):
        return None
    found = audit.record_cases(trace["sha256"])
    pointer = trace.get("pointer", next(iter(_named(str(trace.get("inputs", ""))).values()), None))
    if found is None or not isinstance(pointer, str):
        return None
    kind, cases = found
    under = [c for c in cases if pointer == c.pointer or pointer.startswith(c.pointer + "/")]
    return kind, max(under, key=lambda c: len(c.pointer), default=None)


def _repeat_number(label: Any, value: str, most: Callable[[], int]) -> int | None:
    """Which repeat of `value` `label` names (1 for the value itself, k for "value #k"), None
    when it is no label of `value`; a label cut to MAX_LABEL_CHARS is looked up among the cut
    labels of the repeats a kind with `most()` cases can have."""
    if not isinstance(label, str):
        return None
    if label == chart_label(value):
        return 1
    repeat = _REPEAT.fullmatch(label)
    if repeat and label == chart_label(f"{value} #{repeat.group(2)}"):
        return int(repeat.group(2))
    return _cut_repeats(value, most()).get(label) if "…" in label else None


@lru_cache(maxsize=256)
def _cut_repeats(value: str, most: int) -> dict[str, int]:
    """The labels of `value`'s repeats #2 to #`most` as a chart cuts them, to their numbers: a
    cut label hides its number in the hash it ends with. Once per value: its every chart and
    point asks again."""
    return {chart_label(f"{value} #{k}"): k for k in range(2, most + 1)}


def _chart_order(shown: str, where: str, spec: dict, rows: list[dict]) -> list[Problem]:
    """A series chart places its records by one x domain, its points' labels in row order, in
    every layer, and labels the axis ticks `chart_labels.series_ticks` picks of them: a domain of
    another order drew each point at another record's place, whatever its label says."""
    order = [row.get("label") for row in rows]
    layers = _x_encodings(spec)
    if not layers:
        return [Problem(shown, where, "places its points by no x axis of theirs (a series chart has one per layer): the page was edited")]
    for at, x in layers:
        scale, axis = x.get("scale"), x.get("axis")
        if not isinstance(scale, dict) or scale.get("domain") != order:
            return [Problem(shown, f"{where} {at}.scale.domain", "places the points in another order than its rows' labels "
                                                                 "(a series chart's x domain is its points' labels in row order): "
                                                                 "the page was edited")]
        if isinstance(axis, dict) and "values" in axis and axis["values"] != series_ticks(order):
            return [Problem(shown, f"{where} {at}.axis.values", "labels other ticks than its points' labels in row order, "
                                                                "every so many (chart_labels.series_ticks): the page was edited")]
    return []


def _x_encodings(spec: dict) -> list[tuple[str, dict]]:
    """Each layer's x channel ($.layer[i].encoding.x) of a spec; none where it is not layered so."""
    layers = spec.get("layer")
    out = []
    for i, layer in enumerate(layers if isinstance(layers, list) else []):
        x = layer.get("encoding", {}).get("x") if isinstance(layer, dict) and isinstance(layer.get("encoding"), dict) else None
        out.append((f"$.layer[{i}].encoding.x", x if isinstance(x, dict) else {}))
    return out


def _chart_segments(shown: str, where: str, datasets: dict, rows: list[dict]) -> list[Problem]:
    """A series chart's segment medians and claim rules against its own points, which are traced:
    each segment's median is the median of the points from its first record to its last, and
    each claim stands at one of the chart's records."""
    labels = [row.get("label") for row in rows]
    problems = []
    segments = datasets.get("segments", [])
    for i, seg in enumerate(segments if isinstance(segments, list) else [segments]):
        at = f"{where} $.datasets.segments[{i}]"
        try:
            first, last = labels.index(seg["first"]), labels.index(seg["last"])
            median = statistics.median(row["value"] for row in rows[first:last + 1])
        except (TypeError, KeyError, ValueError, statistics.StatisticsError):
            problems.append(Problem(shown, at, "is not a run of this chart's records (first and last as its points' labels): "
                                               "the page was edited"))
            continue
        if not (is_number(seg.get("median")) and is_number(median) and math.isclose(seg["median"], median, rel_tol=1e-12)):
            problems.append(Problem(shown, at, f"draws the median of {seg['first']!r} to {seg['last']!r} as {seg.get('median')!r}, "
                                               f"but the chart's points there give {median!r}: the page was edited"))
    claims = datasets.get("claims", [])
    for i, claim in enumerate(claims if isinstance(claims, list) else [claims]):
        if not isinstance(claim, dict) or claim.get("at") not in labels:
            problems.append(Problem(shown, f"{where} $.datasets.claims[{i}]", "marks a claim at no record of this chart: the page was edited"))
    return problems


def _chart_image(audit: SiteAudit, rel: str, where: str, spec: dict, src: str) -> list[Problem]:
    """The static SVG a chart shows (an <img> until benchledger.js draws the spec, and all a
    reader without scripts sees) against the spec checked here: the site names each SVG by the
    hash of the spec it is drawn from (`static_chart.svg_path`), so an image of other data, or of
    another chart, is named otherwise. Its bytes are not drawn again (vl-convert: 20-30 ms of CPU a
    chart, two thousand at 1,000 articles) unless the auditor asks for it (`--redraw-charts`), so
    an SVG file edited in place, with SHA256SUMS listed again, passes without."""
    try:
        static = static_spec(spec)
        expected = svg_path(static_sha256(static))
    except (TypeError, ValueError, AttributeError):
        return [Problem(audit.shown(rel), where, "is not a chart spec benchledger draws a static SVG of: the page was edited")]
    if posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(src))) != expected:
        return [Problem(audit.shown(rel), f"{where} <img>", f"shows {src[:70]!r}, but this spec is drawn as {expected}: "
                                                            "the image is not of the data checked here (the page was edited)")]
    if not (audit.site / expected).is_file():
        return [Problem(audit.shown(rel), f"{where} <img>", f"shows {expected}, which the site does not hold")]
    audit.charts.setdefault(expected, ShownChart(static, audit.shown(rel), where))
    return []


def _inline_data(node: Any) -> bool:
    """Whether a spec draws data written into it (`"data": {"values": ...}` in any layer)
    rather than its named datasets."""
    if isinstance(node, list):
        return any(_inline_data(v) for v in node)
    if not isinstance(node, dict):
        return False
    data = node.get("data")
    return (isinstance(data, dict) and "values" in data) or any(_inline_data(v) for k, v in node.items() if k != "datasets")


def _chart_point(audit: SiteAudit, shown: str, where: str, row: dict) -> list[Problem]:
    """One charted point's value against its trace (`quantity.Trace.fields`)."""
    return _chart_value(audit, shown, where, row.get("y" if "y" in row else "value"), row.get("trace"))


def _chart_x(audit: SiteAudit, shown: str, where: str, row: dict) -> list[Problem]:
    """A line chart point's x against where it comes from in its point's record
    (`quantity.Trace.x_fields`): the value there, read as the chart reads an axis value, or the
    place (1-based) of the point's own value in its array."""
    x, x_trace, trace = row.get("x"), row.get("x_trace"), row.get("trace")
    if not isinstance(trace, dict) or not isinstance(trace.get("sha256"), str):
        return []  # no record to read x from: the point's own check names its trace
    # only the shapes the generator writes: any other key (a "sha256" of another record, a
    # "unit") would chart x from somewhere the point's record does not say
    kind = next(iter(x_trace), None) if isinstance(x_trace, dict) and len(x_trace) == 1 else None
    if kind not in ("pointer", "position"):
        return _chart_value(audit, shown, where, x, None)
    if kind == "pointer":
        return _chart_value(audit, shown, where, x, {"sha256": trace["sha256"], "pointer": x_trace["pointer"]}, axis=True)
    position = x_trace["position"]
    if not isinstance(position, str) or position != trace.get("pointer"):
        return [Problem(shown, where, f"charts {x!r} as the place of {str(position)[:70]!r}, not of its point's value "
                                      f"{str(trace.get('pointer'))[:70]!r}: the page was edited")]
    head, _, last = position.rpartition("/")
    data = audit.record_data(trace["sha256"])
    if data is None or not isinstance(resolve(data, head, default=None), list):
        return []  # not served intact, or no value there: the point's own check says so
    index = int(last) if last.isascii() and last.isdigit() else None  # "³" is a digit int() cannot read
    if not (is_number(x) and index is not None and x == index + 1):
        return [Problem(shown, where, f"charts {x!r} as the place of {trace['sha256'][:12]} {position[:70]!r} in its array, "
                                      f"but it is number {index + 1 if index is not None else last[:70]!r} there: the page was edited")]
    return []


def _chart_value(audit: SiteAudit, shown: str, where: str, charted: Any, trace: Any, of: Any = None,
                 axis: bool = False) -> list[Problem]:
    """One charted number (a point, a range's end, an x) against its trace; a range's end must
    come from the record of the point (`of`, the point's trace) it belongs to; an x (`axis`) is
    the record's value read as the chart reads an axis value (`quantity.axis_number`: 2048 for
    "2048")."""
    if isinstance(of, dict) and isinstance(trace, dict) and "sha256" not in trace:
        trace = {"sha256": of.get("sha256"), **trace}  # a range's end names no record: its point's (`Trace.range_fields`)
    if not isinstance(trace, dict) or not all(isinstance(v, str) for v in trace.values()):
        return [Problem(shown, where, f"charts {charted!r} without the record and pointer it comes from: the page was edited")]
    sha256 = trace.get("sha256", "")
    if isinstance(of, dict) and of.get("sha256") != sha256:
        return [Problem(shown, where, f"charts {charted!r} from record {sha256[:12]!r}, not from its point's record "
                                      f"{str(of.get('sha256'))[:12]!r}: the page was edited")]
    if sha256 not in audit.sealed:
        return [Problem(shown, where, f"charts {charted!r} from record {sha256[:70]!r}, which the ledger does not seal")]
    if audit.record_data(sha256) is None:
        return []  # not served intact: the records' own step says so
    if "pointer" in trace:
        value = resolve(audit.record_data(sha256), trace["pointer"], default=_MISSING)
        what = f"{sha256[:12]} {trace['pointer']}"
        if is_number(value) and trace.get("unit"):
            try:
                value = rescaled(value, declared_unit(trace["pointer"]), trace["unit"])
            except ValueError as err:
                return [Problem(shown, where, f"charts {what} in {trace['unit']!r}, but {err}")]
    else:
        value = _recomputed(audit, trace.get("formula", ""), {name: (sha256, pointer) for name, pointer in _named(trace.get("inputs", "")).items()})
        what = f"{trace.get('formula')!r} over {sha256[:12]} {trace.get('inputs')}"
    if value is _MISSING or value is None:
        return [Problem(shown, where, f"charts {charted!r} from {what}, which that record does not give")]
    if axis and (read := axis_number(value_text(value))) is not None:
        value = read
    # a pointer moved to text ("/model") gives no number: math.isclose would raise on it
    if not (is_number(charted) and is_number(value) and math.isclose(charted, value, rel_tol=1e-12, abs_tol=0.0)):
        return [Problem(shown, where, f"charts {charted!r} for {what}, but the record gives {value!r}: the page was edited")]
    return []


def _chart_table(shown: str, where: str, rows: list[dict], table: tuple[tuple[str, ...], ...]) -> list[Problem]:
    """The table behind a chart against the chart's rows: the same cells, row by row."""
    keys = _CHART_ROWS["y" if rows and "y" in rows[0] else "value"]
    expected = [tuple(htmllib.unescape(cell_text(data_cell(row.get(k)))) for k in keys) for row in rows]
    if len(table) != len(expected):
        return [Problem(shown, where, f"charts {len(expected)} points, but the table behind it has {len(table)} rows: the page was edited")]
    for i, (got, want) in enumerate(zip(table, expected)):
        if got != want:
            column = next((k for k, a, b in zip(keys, got, want) if a != b), keys[-1])
            return [Problem(shown, where, f"the table behind this chart shows row {i + 1} as {got!r}, but the chart's "
                                          f"{column} there is {want[keys.index(column)]!r}: the page was edited")]
    return []


def _recomputed(audit: SiteAudit, formula: str, inputs: dict[str, tuple[str, str]]) -> Any:
    """`formula` recomputed (site_gen.formula) over its inputs, each (record sha256, pointer):
    None where the formula gives none, _MISSING where there is no input or one is not in a record
    served intact. What a derived number, a charted point and an explorer cell are checked by."""
    values = {}
    for name, (sha256, pointer) in inputs.items():
        data = audit.record_data(sha256)
        values[name] = _MISSING if data is None else resolve(data, pointer, default=_MISSING)
        if values[name] is _MISSING:
            return _MISSING
    return recompute(formula, values) if values else _MISSING


def _named(text: str) -> dict[str, str]:
    """"name = value; name = value" as a dict ({} when it does not read so)."""
    pairs = [part.partition(" = ") for part in text.split("; ")] if text else []
    return {name: value for name, sep, value in pairs if sep} if all(sep for _, sep, _ in pairs) else {}


def external_loads(html: str) -> list[tuple[str, str]]:
    """(tag, URL) of everything `html` would load from another host."""
    return list(scan_page(html).loads)


def local_references(html: str) -> list[str]:
    """Every URL `html` loads or links that is not on another host, as written (relative paths,
    site paths, fragments, mailto: and the like), in document order."""
    parser = _Loads(keep_local=True)
    parser.feed(html)
    parser.close()
    return parser.local


def check_series_pages(audit: SiteAudit) -> list[Problem]:
    """Each series page says, to the byte, what change detection (site_gen.history, with the rule
    every site uses) finds in the served records: its "Detected changes", or that none was found,
    and along each track its claims or what it could have found (above the track's chart, or in
    its row of the tracks not charted, with its first and last values); and it states the series
    as the served records give it: its lede, the setup every record shares and the records along
    it (site_gen/series_page.py). A change left out, added, moved to another record or retold (a
    regression called an improvement) no longer passes, and neither does a series' page removed,
    a track's findings cut from it, or a record or a setting of the series edited on it."""
    from site_gen.claim import changes_block, track_findings
    from site_gen.series_page import lede, records_table, setup_table, uncharted_row
    from site_gen.tables import html_row, table_html

    texts = audit.texts
    problems = []
    for rel, report in (audit.series or {}).items():
        found = f"{len(report.changes)} change(s)" + (f" ({', '.join(c.slug for c in report.changes)})" if report.changes else "")
        text = texts.get(rel)
        if text is None:
            problems.append(Problem(audit.shown(rel), "", f"missing: the served records hold the series {report.title[:80]!r}, in "
                                                          f"which change detection finds {found}, and this is its page"))
            continue
        if changes_block(report, KINDS[report.series.schema].field(report.series.field).label) not in text:
            problems.append(Problem(audit.shown(rel), "", f"does not say what change detection finds in the served records of "
                                                          f"this series, {found}: its \"Detected changes\" was edited"))
        labels = audit.series_labels(rel)
        paged = all(sha in audit.record_pages for sha in report.series.records)  # else said by check_limitations
        for what, expected in (("lede", lede(report, rel)), ("setup table", table_html(*setup_table(report))),
                               ("records table", table_html(*records_table(report, labels, rel, audit.record_pages.get))
                                if paged else "")):
            if expected not in text:
                problems.append(Problem(audit.shown(rel), "", f"does not state the series {report.title[:80]!r} as its served "
                                                              f"records give it: its {what} was edited"))
        anchors: dict[int, re.Match] = {}
        for anchor in _TRACK_ANCHOR.finditer(text):  # one scan of the page for every track's place
            anchors.setdefault(int(anchor.group(2)), anchor)
        for i, track in enumerate(report.tracks):
            # a track is charted under its heading, or has its row in the table of the others
            anchor = anchors.get(i)
            expected = "" if anchor is None else track_findings(report, labels, i) if anchor.group(1) == "<h3" else \
                html_row(uncharted_row(report, labels, i))
            if not (expected and text.startswith(expected, anchor.start())):
                claims = len(report.findings_of(i))
                problems.append(Problem(audit.shown(rel), f"track-{i}",
                                        f"does not say what change detection finds along {track.label[:80]!r} in the served "
                                        f"records ({claims} claim(s)), above its chart or in its row: the page was edited"))
    return problems


def check_change_listings(audit: SiteAudit) -> list[Problem]:
    """Where else series and their detected changes are told, each as the served records and
    change detection run on them make it again, to the byte: the history index's table of every
    series and list of every change, each change's entry in the Atom feed (none added), and every
    claim any page shows (a write-up's `change` citation as much as a series page's)."""
    from site_gen.claim import change_entries, claim_html, index_changes
    from site_gen.feed import FEED, entry_lines, written_site_url
    from site_gen.history import HISTORY_INDEX
    from site_gen.series_page import index_href, index_table
    from site_gen.tables import table_html

    if audit.series is None:
        return []  # a record not served intact: the steps that read records say so
    reports = list(audit.series.values())
    problems = []
    texts = audit.texts
    index = output_path(HISTORY_INDEX)

    if reports and index in texts:
        if index_changes(reports, index_href) not in texts[index]:
            problems.append(Problem(audit.shown(index), "", f"does not list what change detection finds in the served records, "
                                                            f"{sum(len(r.changes) for r in reports)} change(s): its \"Detected "
                                                            f"changes\" was edited"))
        fixed_by_all, table = index_table(reports, index_href)
        if fixed_by_all not in texts[index] or table_html(*table) not in texts[index]:
            problems.append(Problem(audit.shown(index), "", f"does not list the {len(reports)} series the served records hold as "
                                                            f"they give them: its table of series was edited"))
    feed_file = audit.site / FEED
    if feed_file.is_file():
        feed = feed_file.read_text(encoding="utf-8", errors="replace")
        site_url = written_site_url(feed, FEED)
        entries = change_entries(reports, {e.sha256: e.sealed_at for e in audit.read.entries})
        if site_url is None:
            problems.append(Problem(audit.shown(FEED), "", "has no self link as benchledger writes one, so its change entries "
                                                           "cannot be made again: the feed was edited"))
        else:
            for entry in entries:
                if "\n".join(entry_lines(entry, feed_path=FEED, site_url=site_url)) not in feed:
                    problems.append(Problem(audit.shown(FEED), "", f"lacks the entry of the change {entry.title[:80]!r} as change "
                                                                   f"detection finds it in the served records: the feed was edited"))
            told = feed.count('\n    <category term="change"/>\n')
            if told > len(entries):
                problems.append(Problem(audit.shown(FEED), "", f"tells {told} changes, and change detection finds "
                                                               f"{len(entries)} in the served records: the feed was edited"))
    claims = {claim_html(f) for report in reports for f in report.findings}
    for rel, _, text in audit.pages:
        if "bl-claim" not in text:
            continue
        for shown in _CLAIM_SPAN.findall(text):
            if shown not in claims:
                problems.append(Problem(audit.shown(rel), "", f"shows a claim change detection does not make from the served "
                                                              f"records, {htmllib.unescape(re.sub('<[^>]*>', '', shown))[:80]!r}: "
                                                              f"the page was edited"))
    return problems


def check_no_external_loads(audit: SiteAudit) -> list[Problem]:
    """No page, script or style sheet loads anything from another host (links may point out)."""
    problems = []
    for rel, _, _ in audit.pages:
        problems += [Problem(audit.shown(rel), "", f"loads {url} from outside the site (<{tag}>)") for tag, url in audit.scan(rel).loads]
    for sheet in sorted(audit.site.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        for url in _css_urls(text):
            if _is_external(url):
                problems.append(Problem(sheet.as_posix(), "", f"loads {url} from outside the site (CSS)"))
    return problems


def check_every_file(audit: SiteAudit) -> list[Problem]:
    """Every file of the site against the site-wide SHA256SUMS: listed files missing or
    altered, and files present but not listed (site_gen.checksums). The served records are
    left to `check_served_records`, which holds them to the ledger."""
    return check_site_files(audit.site, frozenset(f"{RECORDS}/{e.path}" for e in audit.read.entries))


STEPS = (check_every_file, check_served_records, check_sums, check_stated_hashes, check_head, check_displayed_numbers,
         check_derived_numbers, check_displayed_text, check_limitations, check_explorer_data, check_chart_data,
         check_series_pages, check_change_listings, check_no_external_loads)

_MISSING = object()
# A claim as claim.claim_html writes it: its text and title escaped, so its first </span> ends it.
_CLAIM_SPAN = re.compile(r'<span class="bl-claim[ "][^>]*>[^<]*</span>')
# A record page's limitation note as pages/records/base.py writes it (its words escaped, so
# no "<" inside): source, its anchors, rule id, words; and each anchor.
_LIMITATION_ITEM = re.compile(r'<li class="bl-lim bl-lim-([a-z]+)">((?:<span id="lim-[0-9a-f]+"></span>)+)'
                              r'<span class="bl-lim-rule" title="[^"]*">([^<]*)</span> ([^<]*)</li>')
_LIMITATION_ID = re.compile(r'<span id="(lim-[0-9a-f]+)"></span>')
# A limitation where records are compared (pages/comparisons.py): source, rule id, words, and
# the records it applies to ("path pointer; ..."), all escaped.
_PLACED_LIMITATION = re.compile(r'<li class="bl-lim bl-lim-([a-z]+)"><span class="bl-lim-rule">([^<]*)</span> ([^<]*) '
                                r'<span class="bl-lim-where">\(([^<]*)\)</span></li>')
# A marker beside a number linking to a note on its page (quantity.limitations_marker): its
# anchor, its hover (the limitations' words, escaped) and how many it counts (none: one).
_LIMITATION_MARK = re.compile(r'<a class="bl-lim-mark" href="#(lim-[0-9a-f]+)" aria-label="[^"]*" title="([^"]*)">'
                              r"&#9888;(?:<sup>(\d+)</sup>)?</a>")
# Where a series page tells a track's findings: under its chart's heading, or in its row of the
# tracks not charted (claim.track_findings, claim.uncharted_row), the first such place a track has.
_TRACK_ANCHOR = re.compile(r'(<h3|      <td><span) id="track-(\d+)">')
_SPEC_URL = re.compile(r'"url"\s*:\s*"((?:[^"\\]|\\.)*)"')
_CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""")
# Elements whose URL attribute the browser fetches on load (a plain <a href> only navigates).
_LOAD_ATTRS = {"script": "src", "img": "src", "iframe": "src", "frame": "src", "embed": "src", "source": "src",
               "audio": "src", "video": "src", "track": "src", "object": "data", "input": "src"}
_LINK_LOADS = {"stylesheet", "preload", "prefetch", "icon", "modulepreload", "manifest", "apple-touch-icon"}
# SVG presentation attributes whose url() Chromium fetches from another host too (fill, stroke,
# mask, clip-path, markers and cursor did, in a test of an SVG opened as a page)
_PRESENTATION_URLS = ("fill", "stroke", "filter", "mask", "clip-path", "marker", "marker-start", "marker-mid",
                      "marker-end", "cursor")


def _is_external(url: str) -> bool:
    """Whether a browser would fetch `url` from another host (site_gen/urls.py: as it reads it)."""
    return urls.as_read(url).startswith(("http:", "https:", "//", "ftp:", "ws:", "wss:"))


def _css_urls(css: str) -> list[str]:
    """The URLs a style sheet or style attribute loads, its CSS escapes (\\68 for h) decoded."""
    if "(" not in css and "@" not in css:  # no url( and no @import, however escaped: most values
        return []
    decoded = re.sub(r"\\([0-9a-fA-F]{1,6})\s?", lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) <= 0x10FFFF else "", css)
    return _CSS_URL.findall(decoded)


class _Loads(HTMLParser):
    """What a page loads from another host: (tag, URL) in `external`. A <base> that names
    another host, inline <style> and srcdoc documents are looked at too; any attribute that
    holds a URL the browser fetches without a click counts, whatever the element."""

    def __init__(self, keep_local: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.external: list[tuple[str, str]] = []
        # with keep_local, every other URL it loads or links too (`local_references`)
        self.local: list[str] | None = [] if keep_local else None
        self._in_style = self._in_spec = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        urls = []
        if tag in _LOAD_ATTRS:
            urls.append(values.get(_LOAD_ATTRS[tag], ""))
        if tag in ("link", "base") and (tag == "base" or set(values.get("rel", "").lower().split()) & _LINK_LOADS):
            urls.append(values.get("href", ""))  # a <base> on another host makes every relative load go there
        if tag in ("image", "use", "feimage"):  # HTML's <image> is <img>; SVG's load their href
            urls += [values.get("src", ""), values.get("href", ""), values.get("xlink:href", "")]
        urls += [values.get(name, "") for name in ("poster", "background", "data")]
        if tag in ("img", "source"):
            urls += [part.split()[0] for part in values.get("srcset", "").split(",") if part.strip()]
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            urls.append(values.get("content", "").partition("=")[2].strip("'\" "))
        if values.get("srcdoc"):  # a document of its own, loaded with the page
            self.external += [(tag, u) for _, u in external_loads(values["srcdoc"])]
        urls += _css_urls(values.get("style", ""))
        urls += [u for name in _PRESENTATION_URLS if name in values for u in _css_urls(values[name])]
        self.external += [(tag, u) for u in urls if u and _is_external(u)]
        if self.local is not None:
            links = [values.get("href", "")] if tag in ("a", "area") else []
            self.local += [u for u in urls + links if u and not _is_external(u)]
        self._in_style = tag == "style"
        # a chart's spec: Vega fetches a "url" it names (data from another host, drawn as the record's)
        self._in_spec = tag == "script" and values.get("type", "").lower() == "application/json"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = self._in_spec = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.external += [("style", u) for u in _css_urls(data) if _is_external(u)]
        elif self._in_spec:
            self.external += [("script", u) for u in _SPEC_URL.findall(data) if _is_external(u.replace("\\/", "/"))]


@dataclass(frozen=True)
class _Shown:
    sha256: str
    pointer: str
    text: str


@dataclass(frozen=True)
class _Derived:
    """A derived number as its page states it: record, formula, inputs ("name = pointer; ..."),
    the inputs' records where they are not `sha256`'s ("name = sha256; ..."), and its text."""

    sha256: str
    formula: str
    inputs: str
    input_sha256: str
    text: str


class _Numbers(HTMLParser):
    """The traced numbers of a page: `<span class="bl-num" data-sha256 data-pointer>TEXT` in
    `found`, and those derived by a formula (`data-formula`, `data-inputs`) in `derived`; and
    its record text, `<span class="bl-text" data-sha256 data-pointer>TEXT`, in `texts`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[_Shown] = []
        self.derived: list[_Derived] = []
        self.texts: list[_Shown] = []  # record text: <span class="bl-text" data-sha256 data-pointer>
        self._open: dict[str, str] | None = None  # the open span's attributes
        self._kind = ""  # and what it shows: "number", "derived" or "text"
        self._text: list[str] = []
        self._depth = 0  # spans opened inside the traced one: its text is all of theirs too

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._open is not None:
            self._depth += tag == "span"
            return
        if tag != "span":  # most of a page's millions of tags: looked at no further
            return
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if "bl-text" in classes and "data-sha256" in values:  # record text shown with its origin
            self._kind = "text"
        elif "bl-num" in classes:
            self._kind = "derived" if "bl-derived" in classes or "data-formula" in values else "number"
        else:
            return
        # a traced number that names no record or pointer is shown as "" for "": it fails the check
        self._open, self._text = values, []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._open is not None:
            if self._depth:
                self._depth -= 1
                return
            # a range's first end shows its number only, its unit written once after the range
            text, attr = "".join(self._text), self._open.get
            if self._kind == "text":
                self.texts.append(_Shown(attr("data-sha256", ""), attr("data-pointer", ""), text))
            elif self._kind == "derived":
                self.derived.append(_Derived(attr("data-sha256", ""), attr("data-formula", ""), attr("data-inputs", ""),
                                             attr("data-input-sha256", ""), text))
            else:
                unit = attr("data-unit", "")
                self.found.append(_Shown(attr("data-sha256", ""), attr("data-pointer", ""), str(Formatted(text, unit)) if unit else text))
            self._open = None


class _Charts(HTMLParser):
    """A page's chart data as the browser gets it: the text of every JSON script but MkDocs'
    own configuration (`specs`: (id, text), each a chart spec benchledger.js may draw), the
    cells of every table behind a chart (`tables`, in page order: rows of cell text), and the
    static image each chart view shows until its spec is drawn (`images`: (spec id, src))."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.specs: list[tuple[str, str]] = []
        self.tables: list[list[list[str]]] = []
        self.images: list[tuple[str, str]] = []
        self._view: str | None = None  # the data-spec of the chart view just opened, until its <img>
        self._script: tuple[str, list[str]] | None = None
        self._details = 0  # depth inside <details class="bl-chart-data">
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            values = {k: v or "" for k, v in attrs}
            if values.get("type", "").strip().lower() == "application/json" and values.get("id") != "__config":
                self._script = (values.get("id", ""), [])
        elif tag == "div" and "bl-chart-view" in ({k: v or "" for k, v in attrs}.get("class") or "").split():
            self._view = {k: v or "" for k, v in attrs}.get("data-spec", "")
        elif tag == "img" and self._view is not None:
            self.images.append((self._view, {k: v or "" for k, v in attrs}.get("src", "")))
            self._view = None
        elif tag == "details":
            if self._details or "bl-chart-data" in ({k: v or "" for k, v in attrs}.get("class") or "").split():
                self._details += 1
                if self._details == 1:
                    self.tables.append([])
        elif self._details and tag == "tr":
            self.tables[-1].append([])
        elif self._details and tag == "td" and self.tables[-1]:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.specs.append((self._script[0], "".join(self._script[1])))
            self._script = None
        elif tag == "div":
            self._view = None
        elif tag == "details" and self._details:
            self._details -= 1
        elif tag == "td" and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script[1].append(data)
        elif self._cell is not None:
            self._cell.append(data)


class _PageScan(HTMLParser):
    """One pass over a page for every step that reads its elements: what it loads (`loads`, a
    `_Loads`), its traced numbers (`numbers`, a `_Numbers`) and its charts' data (`charts`, a
    `_Charts`). At 1,000 articles the pages and
    chart SVGs are tens of megabytes, and parsing them was most of `verify --site`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads, self.numbers, self.charts = _Loads(), _Numbers(), _Charts()

    def updatepos(self, i: int, j: int) -> int:
        """Where the parser is, without the line and column it would count: no finding names a
        line, and counting the newlines before every tag was a tenth of a page's scan."""
        return j

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.loads.handle_starttag(tag, attrs)
        self.numbers.handle_starttag(tag, attrs)
        self.charts.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.loads.handle_endtag(tag)
        self.numbers.handle_endtag(tag)
        self.charts.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        self.loads.handle_data(data)
        self.numbers.handle_data(data)
        self.charts.handle_data(data)


@dataclass(frozen=True)
class Scanned:
    """What one page loads from another host, (tag, URL) each, its traced numbers, plain and
    derived, its record text, and its charts' specs and data tables (`_Charts`)."""

    loads: tuple[tuple[str, str], ...]
    numbers: tuple["_Shown", ...]
    derived: tuple["_Derived", ...]
    texts: tuple["_Shown", ...]
    specs: tuple[tuple[str, str], ...]
    tables: tuple[tuple[tuple[str, ...], ...], ...]
    images: tuple[tuple[str, str], ...]


def scan_page(html: str) -> Scanned:
    """`html` parsed once, for what it loads and the traced numbers it shows (plain data, which
    a pool worker sends back)."""
    parser = _PageScan()
    parser.feed(html)
    parser.close()
    return Scanned(tuple(parser.loads.external), tuple(parser.numbers.found), tuple(parser.numbers.derived),
                   tuple(parser.numbers.texts), tuple(parser.charts.specs),
                   tuple(tuple(tuple(row) for row in table if row) for table in parser.charts.tables),  # not the header's
                   tuple(parser.charts.images))


def _scan_file(path: Path) -> Scanned:
    """A pool worker's part: one page file read (as `SiteAudit.pages` reads it) and parsed."""
    return scan_page(path.read_text(encoding="utf-8", errors="replace"))


# What a traced number may show instead of its value: a label chosen by the page, never a number.
_LABELS = re.compile(r"[^0-9]*")  # and no digit of any script either (see _reads_as)


def _reads_as(text: str, value: Any, pointer: str) -> bool:
    """Whether `text` is how the site shows `value`: `format_value(value, unit)` for the unit
    the text names (bytes rescaled), or a label without digits (e.g. "withheld")."""
    if _LABELS.fullmatch(text) and not any(c.isnumeric() for c in text):  # "９９.９" is no label
        return True
    return text in _candidates(text, value, pointer)


def _candidates(text: str, value: Any, pointer: str) -> Iterator[str]:
    """How the site may show `value` where a page shows `text`, the likeliest first: made one at
    a time, since nearly every number reads as the first (a page shows hundreds of thousands)."""
    number, _, unit = text.partition("\u202f")
    if not unit and text.endswith("%"):
        unit = "%"
    # A size or a duration is shown rescaled from the unit its field declares, or the nearest
    # key above it (reported_mib: 41,298 MiB shows as 40.3 GiB; capture_seconds: 0.048 s as
    # 48.0 ms; process_rss_bytes/maximum in bytes), or from any unit of its ladder where no key
    # declares one (the page chose it: fit_target in MiB).
    declared, units = declared_unit(pointer), ladder(unit)
    units = [declared] if declared in units else list(units or [unit])
    for u in units:
        try:
            shown = format_value(value, u)
        except (TypeError, ValueError, OverflowError):
            continue
        yield str(shown)
        try:
            # a range's ends may carry more digits, where fewer would read alike (range_digits)
            more = [str(format_value(value, u, digits)) for digits in range(DIGITS + 1, MAX_DIGITS + 1)]
        except (TypeError, ValueError, OverflowError):
            continue
        yield from more
        if ladder(u):
            continue  # a rescaled unit is the one the value reads in, never a label the caller chose
        # a caller's label after the number ("330 tokens" cited as "330 tokens" or "1,024 token")
        yield shown.number + ("\u202f" + unit if unit else "")
        yield shown.number + (" " + text.split(" ", 1)[1] if " " in text else "")


def _q(text: str) -> str:
    """Page text quoted for a message (the narrow space between number and unit as a space)."""
    return '"' + text.replace("\u202f", " ") + '"'


def _expected(text: str, value: Any, pointer: str) -> str:
    first = next(_candidates(text, value, pointer), None)
    return _q(first) if first is not None else "no text"
