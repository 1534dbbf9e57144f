"""`verify --site`'s steps on series and their changes: each series page, the history index,
the feed's change entries and every claim a page shows, as change detection (site_gen.history)
run again on the served records makes them."""

from __future__ import annotations

import re
from typing import Any

from benchledger.cases.registry import KINDS
from benchledger.errors import Problem
from benchledger.records.display import readable
from site_gen.audit.numbers import quoted, read_words
from site_gen.audit.site import SiteAudit, site_json
from site_gen.page import output_path


# A claim as claim.claim_html writes it: its text and title escaped, so its first </span> ends it.
_CLAIM_SPAN = re.compile(r'<span class="bl-claim[ "][^>]*>[^<]*</span>')
# Where a series page tells a track's findings: under its chart's heading, or in its row of the
# tracks not charted (claim.track_findings, claim.uncharted_row), the first such place a track has.
_TRACK_ANCHOR = re.compile(r'(<h3|      <td><span) id="track-(\d+)">')


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
        alts = {view: alt for view, _, alt in audit.scan(rel).images}
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
            elif anchor.group(1) == "<h3" and (wrong := _alt_problem(audit, rel, report, labels, i, alts)) is not None:
                problems.append(Problem(audit.shown(rel), f"track-{i}", wrong))
    return problems


def _alt_problem(audit: SiteAudit, rel: str, report: Any, labels: list[str], index: int, alts: dict[str, str]) -> str | None:
    """What is wrong with a charted track's alt text, which a screen reader reads in place of the
    chart (None where nothing is): it must be `series_page.chart_alt` of the served records, and
    say that the ranges are left to the table exactly where the chart leaves them there (more
    than DENSE_SERIES_POINTS records, some with a range)."""
    from site_gen.chart_specs import DENSE_RANGES_ALT, DENSE_SERIES_POINTS
    from site_gen.series_page import chart_alt

    view = f"spec-track-{index}"
    if view not in alts:
        return None  # no chart view: the chart step counts the page's charts and images
    made = chart_alt(report, labels, index)
    if len(report.tracks[index].observations) > DENSE_SERIES_POINTS:
        spec = next((text for script, text in audit.scan(rel).specs if script == view), "")
        try:
            if any(row.get("low") is not None for row in site_json(spec)["datasets"]["points"]):
                made += DENSE_RANGES_ALT
        except (ValueError, TypeError, KeyError, AttributeError):
            return None  # not a spec benchledger writes: the chart step says so
    if alts[view] == readable(made):
        return None
    return (f"describes its chart to a screen reader as {quoted(alts[view][:160])}, but the served records make "
            f"{quoted(readable(made)[:160])}: the page was edited")


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
        fixed_by_all, table = index_table(reports)
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
                                                              f"records, {read_words(shown)[:80]!r}: "
                                                              f"the page was edited"))
    return problems
