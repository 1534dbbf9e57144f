"""History pages: one per series (a record kind and identity key along an ordered field, the
rest of the setup fixed), with every tracked metric charted along it (each record's value and
range, segment medians, each claim marked; up to MAX_TRACK_CHARTS charts, then a row per
track) and its claims traceable on hover; and an index of every series and every detected
change."""

from __future__ import annotations

import dataclasses

import statistics
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable, Sequence

from benchledger.cases.base import Measure
from benchledger.cases.registry import KINDS
from site_gen import escape, raw_html
from site_gen.changes.claims import CHANGED
from site_gen.changes.detection import E_DIVISIVE
from site_gen.changes.observation import Observation
from site_gen.charts import SeriesMark, SeriesPoint, chart_html, series_chart
from site_gen.claim import changes_block, claim_kind, claim_label, claim_text, has_change, index_changes, track_findings
from site_gen.history import HISTORY_INDEX, Finding, SeriesReport, Track, case_labels, series_path
from site_gen.page import Page
from site_gen.pages.base import RENDER_WORKERS, PageKind
from site_gen.series_page import (UNCHARTED_COLUMNS, chart_alt, index_href, index_table, lede, records_table, setup_table,
                                  uncharted_row)
from site_gen.quantity import Trace
from site_gen.tables import html_table, object_frame
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import SiteContext

# A page past this many charts is a wall no reader scrolls through, and a minute of drawing: one
# synthetic series of 500 records with a token length per record had 2,550 tracks (17 MB of
# HTML). Past it, the tracks with a detected change are charted first, then the others in page
# order; the rest get one row each in a table (see `charted_tracks`).
MAX_TRACK_CHARTS = 48


def page_path(report: SeriesReport) -> str:
    """The docs path of a series' page."""
    return series_path(report.series)


def _chart(site: "SiteContext", report: SeriesReport, labels: list[str], track: Track, findings: Sequence[Finding], index: int,
           path: str) -> tuple[str, dict[str, bytes]]:
    kind = KINDS[report.series.schema]
    points = []
    for i, (measure, obs) in enumerate(zip(track.measures, track.observations)):
        case = track.case_at(i)
        trace = Trace(case.record_sha256, measure.pointer) if measure.pointer is not None else \
            Trace(case.record_sha256, formula=measure.metric.formula, inputs=tuple(measure.inputs))
        low, high, range_trace = _range(case.record_sha256, measure, obs)
        points.append(SeriesPoint(labels[track.positions[i]], obs.value, low, high, trace, range_trace))
    segments = []
    if track.detection.algorithm == E_DIVISIVE:
        for seg in track.detection.segments:
            values = [o.value for o in track.observations[seg.start:seg.stop]]
            segments.append((points[seg.start].label, points[seg.stop - 1].label, float(statistics.median(values))))
    marks = [SeriesMark(points[f.claim.comparison.after.start].label, claim_text(f), claim_kind(f), claim_label(f))
             for f in findings if f.claim.verdict == CHANGED or track.detection.algorithm == E_DIVISIVE]
    chart = series_chart(f"track-{index}", track.label, points, segments, marks,
                         x_title=kind.field(report.series.field).label, y_title=f"{track.metric.label} ({track.metric.unit})",
                         alt_text=chart_alt(report, labels, index))
    return chart_html(chart, path, site.charts)


def _range(sha256: str, measure: Measure, obs: Observation) -> tuple[float | None, float | None, tuple[Trace, Trace] | None]:
    """A point's range and where its ends are in the record; none where an end is not a value of
    its own there (raw values whose element holding the extreme is not known), so that every
    range a chart draws is one `verify --site` can check."""
    low_at, high_at = measure.minimum_pointer, measure.maximum_pointer
    if obs.minimum is None or obs.maximum is None or low_at is None or high_at is None \
            or (measure.counted and measure.count_pointer in (low_at, high_at)):
        return None, None, None
    return obs.minimum, obs.maximum, (Trace(sha256, low_at), Trace(sha256, high_at))


def _track_section(site: "SiteContext", report: SeriesReport, labels: list[str], track: Track, index: int,
                   path: str) -> tuple[str, dict[str, bytes]]:
    html, assets = _chart(site, report, labels, track, report.findings_of(index), index, path)
    return f"{track_findings(report, labels, index)}{html}\n", assets


def charted_tracks(report: SeriesReport) -> list[int]:
    """The indices (into `report.tracks`) of the tracks drawn as charts, in page order: every
    track when there are at most MAX_TRACK_CHARTS, else the tracks with a detected change
    first and then the others in page order, up to that many."""
    if len(report.tracks) <= MAX_TRACK_CHARTS:
        return list(range(len(report.tracks)))
    ranked = sorted(range(len(report.tracks)),
                    key=lambda i: not has_change(report.findings_of(i)))
    return sorted(ranked[:MAX_TRACK_CHARTS])


def _table(columns: list[str], rows: list[list[str]]) -> str:
    """A table of the page (site_gen/series_page.py), through pandas as every page's."""
    return html_table(object_frame(rows, columns))


def series_page(site: "SiteContext", report: SeriesReport) -> Page:
    """The page of one series."""
    path = page_path(report)
    title = report.title
    field_label = KINDS[report.series.schema].field(report.series.field).label
    # (is generated HTML, text): headings stay Markdown, HTML runs become raw blocks
    parts: list[tuple[bool, str]] = [(False, f"# {escape.text(title)}")]
    parts.append((True, lede(report, path)))
    parts.append((True, changes_block(report, field_label)))
    parts.append((True, "<details class=\"bl-setup\"><summary>The setup every record shares</summary>\n"
                  + _table(*setup_table(report)) + "\n</details>"))
    parts.append((False, "## Records"))
    labels = case_labels(report.series)  # once per page: every track and the records table use them
    records = records_table(report, labels, path, lambda sha256: site.view(sha256).page_path)
    parts.append((True, "<div class=\"bl-scroll bl-listing\">" + _table(*records) + "</div>"))
    parts.append((False, "## Metrics along the series"))
    charted = charted_tracks(report)
    uncharted = sorted(set(range(len(report.tracks))) - set(charted))
    if uncharted:
        parts.append((True, f'<p class="bl-capped">{len(report.tracks):,} tracks (a metric at one point) run along this '
                            f"series. The {len(charted)} charted below are those with a detected change first, then the "
                            f'others in page order; <a href="#uncharted">the other {len(uncharted):,}</a> have a row each '
                            f"after the charts, with their first and last records and what was found.</p>"))
    assets: dict[str, bytes] = {}
    # the tracks' charts side by side (one long series' page was a minute of charts, one by one)
    with ThreadPoolExecutor(min(RENDER_WORKERS, len(charted) or 1)) as pool:
        sections = list(pool.map(lambda i: _track_section(site, report, labels, report.tracks[i], i, path), charted))
    for html, more in sections:
        parts.append((True, html))
        assets.update(more)
    if uncharted:
        parts.append((False, "### Tracks not charted {#uncharted}"))
        rows = [uncharted_row(report, labels, i) for i in uncharted]
        parts.append((True, "<div class=\"bl-scroll bl-listing\">" + _table(list(UNCHARTED_COLUMNS), rows) + "</div>"))
    return Page(path, title, raw_html.join(parts), assets)


def _page_inputs(site: "SiteContext", report: SeriesReport) -> list:
    """What a series page is made from, for the render cache: its records' ledger entries and
    page paths in series order (the cases, their order and the tracks follow from those bytes),
    its title (which can name what tells it from a sibling series), the rule and the options."""
    views = [site.view(sha) for sha in report.series.records]
    return [report.series.slug, report.title, repr(report.rule), repr(site.options),
            [[dataclasses.asdict(v.entry), v.page_path] for v in views]]


class SeriesPages(PageKind):
    name = "series"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        # pages side by side too: most series are short, and one page's few charts would leave
        # the chart workers idle
        with ThreadPoolExecutor(RENDER_WORKERS) as pool:
            yield from pool.map(lambda report: site.render_cache.page_inputs(_page_inputs(site, report), "series",
                                                                             lambda: series_page(site, report)), site.history)
        fixed_by_all, table = index_table(site.history)
        parts: list[tuple[bool, str]] = [(False, "# History"), (True,
                 '<p class="bl-lede">A series is a comparison whose axis is ordered: records of one kind that agree on every '
                 "identity field and differ only in a runtime release, a driver, a library version, or (for repeats of one "
                 f'setup) the test date. The rule that calls a change is on the <a href="{url(HISTORY_INDEX, "methodology.md")}#change-detection">'
                 "methodology page</a>.</p>")]
        if site.history:
            if fixed_by_all:
                parts.append((True, fixed_by_all))
            parts.append((True, "<div class=\"bl-scroll\">" + _table(*table) + "</div>"))
            parts.append((False, "## Detected changes"))
            parts.append((True, index_changes(site.history, index_href)))
        else:
            parts.append((True, '<p class="bl-no-change">No series yet: no two records of one kind differ only along an ordered field.</p>'))
        yield Page(HISTORY_INDEX, "History", raw_html.join(parts))

