"""What every step of `verify --site` reads (`SiteAudit`): the site folder, its served ledger and
records, its pages (each parsed once) and what the generator makes again from the records
(cases, series, limitations), each made once per audit."""

from __future__ import annotations

import json
import posixpath
import re
from concurrent.futures import ProcessPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from benchledger.cases.base import Case, CaseKind
from benchledger.cases.registry import kind_for
from benchledger.errors import InputError
from benchledger.records.digest import SHA256_HEX, sha256_hex
from benchledger.records.jsonread import read_json_bytes
from benchledger.records.ledger import LedgerRead
from benchledger.records.verification import pool_workers
from site_gen import urls
from site_gen.audit.redraw import ShownChart
from site_gen.audit.scan import Scanned, scan_file, scan_page
from site_gen.chart_labels import chart_label
from site_gen.page import output_path

if TYPE_CHECKING:
    from site_gen.context import RecordView

RECORDS = "records"
_PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".shtml", ".svg", ".xml"}
# A record's audit block (pages/records/base.py): its sha256, the link to its served bytes, its words.
_AUDIT_BLOCK = re.compile(f'<div class="bl-audit" data-sha256="({SHA256_HEX})" data-src="([^"]+)">(.*?)</div>', re.S)


def link_target(rel: str, ref: str) -> tuple[str, str] | None:
    """(site path, fragment) that a link `ref` (as the parser read it) on the page at `rel`
    leads to, normalised ("../x" where it leaves the site's folder; `rel` itself for a bare
    fragment; a folder's link keeps its closing "/"); None for another host, a scheme (mailto:) or a site path (/x), which depend on
    where the site is served."""
    if urls.scheme(ref) is not None or urls.other_host(ref):
        return None
    parts = urlsplit(ref)
    path = unquote(parts.path)
    if path.startswith("/"):
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path)) if path else rel
    return target + ("/" if path.endswith("/") else ""), unquote(parts.fragment)


# JSON nested deeper than this is none benchledger writes (a chart spec, the explorer's data and
# a log proof nest under 10 levels); deeper, a walk of it would exhaust Python's recursion.
MAX_JSON_DEPTH = 32


def site_json(text: str | bytes) -> Any:
    """JSON a file of the site holds (a chart's spec, the explorer's data, a log proof), parsed;
    ValueError where it is not JSON or nests deeper than MAX_JSON_DEPTH, which a hostile page
    could use to stop the audit (json itself gives up past about a thousand levels)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep") from None
    stack = [(value, 1)]
    while stack:  # iteratively: the depth is what is being checked
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= MAX_JSON_DEPTH:
                    raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
                stack.append((child, depth + 1))
    return value


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
        self._views: dict[str, RecordView | None] = {}
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
    def audit_blocks(self) -> dict[str, list[tuple[str, str, str]]]:
        """The audit blocks of each page that has one, by its site path: (record sha256, the link
        to its served bytes, the block's HTML) each, as pages/records/base.py writes them."""
        return {rel: _AUDIT_BLOCK.findall(text) for rel, page, text in self.pages
                if page.suffix.lower() != ".svg" and 'class="bl-audit"' in text}

    @cached_property
    def record_pages(self) -> dict[str, str]:
        """The site path of each record's page, by the record's sha256: the first page holding
        the record's audit block."""
        out: dict[str, str] = {}
        for rel, blocks in self.audit_blocks.items():
            for sha, _, _ in blocks:
                out.setdefault(sha, rel)
        return out

    @property
    def in_workers(self) -> bool:
        """Whether the pages are parsed in worker processes (past a few hundred, with 2 CPUs or more)."""
        return pool_workers(len(self.pages)) >= 2

    def parse_pages(self) -> None:
        """Every page parsed now, not at its first step (and the records read meanwhile)."""
        self._scans  # noqa: B018 (a cached property)

    def scan(self, rel: str) -> "Scanned":
        """What the page at `rel` loads and the traced numbers it shows (every page parsed once,
        for every step that reads its elements)."""
        return self._scans[rel]

    @cached_property
    def _scans(self) -> dict[str, "Scanned"]:
        # Parsing is most of an audit (about 30 s for 1,000 articles' pages and charts on one
        # CPU): past a few hundred pages, each worker parses its share, reading the files itself.
        paths = [path for _, path, _ in self.pages]
        if not self.in_workers:
            found = [scan_page(text) for _, _, text in self.pages]
        else:
            with ProcessPoolExecutor(pool_workers(len(paths))) as pool:
                scanning = pool.map(scan_file, paths, chunksize=32)
                self._read_records()  # meanwhile, what the steps after need of the records, but no page
                found = list(scanning)
        return {rel: scanned for (rel, _, _), scanned in zip(self.pages, found)}

    def _read_records(self) -> None:
        """Every served record's cases and limitations and the site's series made now, as the
        steps would make them on first use: while workers parse the pages, this process would
        otherwise wait (12 s of its 23 after the parse at 1,000 articles, on 2 CPUs)."""
        for entry in self.read.entries:
            self.record_cases(entry.sha256)
            self.limitations(entry.sha256)
        self.series  # noqa: B018 (a cached property: made here, read by the series steps)

    def record_cases(self, sha256: str) -> tuple[CaseKind, list[Case]] | None:
        """The case table of the served record with this sha256 and its cases, as the site
        reads them (None when not served intact, or of a kind no case table lists)."""
        if sha256 not in self._cases:
            data, kind = self.record_data(sha256), kind_for(self.sealed[sha256].schema) if sha256 in self.sealed else None
            # with its path, as the build reads it: a record that is one case is labelled by it
            self._cases[sha256] = (kind, kind.cases(data, sha256, self.sealed[sha256].path)) \
                if data is not None and kind is not None else None
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
        view = self.view(sha256)
        return None if view is None else view.limitations

    def view(self, sha256: str) -> "RecordView | None":
        """The served record with this sha256 as the generator's pages see it (`RecordView`, its
        limitations made once); None when it is not served intact."""
        if sha256 not in self._views:
            from benchledger.records.verification import SealedRecord
            from site_gen.context import BuildOptions, RecordView

            data = self.record_data(sha256)
            # what the audit makes again from a record reads its data, never its bytes (their
            # hash is checked by check_served_records)
            self._views[sha256] = None if data is None else RecordView(SealedRecord(self.sealed[sha256], b"", data), BuildOptions())
        return self._views[sha256]

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
