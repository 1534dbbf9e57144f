"""The audit page: the ledger as a table, its head hash, SHA256SUMS of every record, and how to
verify a downloaded copy of the site. Also serves the ledger and SHA256SUMS as files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from benchledger.records.ledger import LEDGER_NAME
from site_gen.checksums import SUMS_NAME, format_sums
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.resources import guide_text

if TYPE_CHECKING:
    from benchledger.records.ledger import LedgerEntry
    from site_gen.context import SiteContext

def sha256sums(entries: Iterable["LedgerEntry"]) -> bytes:
    """`sha256sum -c`-compatible lines for these records, paths relative to records/."""
    return format_sums((e.sha256, e.path) for e in entries)


class AuditPage(PageKind):
    name = "audit"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        prefix = site.options.records_prefix
        guide = guide_text("auditing.md")
        sums = sha256sums(v.entry for v in site.views)
        assets = {f"{prefix}/{SUMS_NAME}": sums, f"{prefix}/{LEDGER_NAME}": site.ledger_bytes}
        # The exact sealed bytes of every record, where each article's audit block links.
        assets.update({v.raw_path: v.record.raw for v in site.views})
        markdown = site.render(
            "audit.md.j2", guide=guide, sums=sums.decode(), page_path="audit.md",
            sums_path=f"{prefix}/{SUMS_NAME}", ledger_path=f"{prefix}/{LEDGER_NAME}",
        )
        yield Page("audit.md", "Audit", markdown, assets)
