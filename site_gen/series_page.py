"""What the history pages state about series besides their claims (site_gen/claim.py), as the
HTML the pages write: a series page's lede, the setup every record shares, the records along the
series and a row per track not charted; the index's table of every series. Tables come as
column names and rows of HTML cells: the page kind (pages/series.py) renders them, and `verify
--site` makes them again from the served records and finds them on the page
(`tables.table_html`, `tables.html_row`)."""

from __future__ import annotations

from typing import Callable, Sequence

from benchledger.cases.base import Role
from benchledger.cases.registry import KINDS
from site_gen import escape
from site_gen.changes.claims import CHANGED
from site_gen.claim import claim_html, claim_text, has_change, no_change_text
from site_gen.history import HISTORY_INDEX, SeriesReport, series_path, setup_items
from site_gen.quantity import counted, format_value
from site_gen.templating import url

UNCHARTED_COLUMNS = ("track", "records", "first", "last", "found")


def lede(report: SeriesReport, path: str) -> str:
    """The page's first paragraph (HTML): how many cases from how many records of which kind,
    what they agree on, what orders them, and a link to the rule (`path`: the page's)."""
    series = report.series
    field_label = escape.html(KINDS[series.schema].field(series.field).label)
    return (f'<p class="bl-lede">{counted(len(series.cases), "case")} from {counted(len(series.records), "record")} of '
            f"<code>{series.schema}</code> that agree on every identity field"
            + (f" and on every other axis field, ordered by {field_label}." if series.along_axis else
               f" and on every axis field (repeats of one setup), ordered by {field_label}.")
            + f' How changes are found and called: <a href="{url(path, "methodology.md")}#change-detection">methodology</a>.</p>')


def setup_table(report: SeriesReport) -> tuple[list[str], list[list[str]]]:
    """The setup every record of the series shares: each identity field and each axis field
    held fixed, with its value."""
    kind = KINDS[report.series.schema]
    rows = [[escape.html(kind.field(n).label), escape.html(v), "identity"] for n, v in report.series.identity]
    rows += [[escape.html(kind.field(n).label), escape.html(v), "held fixed"] for n, v in report.series.fixed if v != "n/a"]
    return ["field", "value", "role"], rows


def records_table(report: SeriesReport, labels: list[str], path: str,
                  page_of: Callable[[str], str]) -> tuple[list[str], list[list[str]]]:
    """One row per case along the series: its place, its label (`labels`, history.case_labels),
    its date where the kind has one besides the series field, its record linked to the record's
    page (`page_of`: a record sha256's page path; `path`: this page's), its case and its hash."""
    kind = KINDS[report.series.schema]
    series = report.series
    date = next((f.name for f in kind.fields_of(Role.CONTEXT) if f.ordered and f.name != series.field
                 and f.name in series.cases[0].values), None)
    columns = ["#", kind.field(series.field).label] + ([kind.field(date).label] if date else []) + ["record", "case", "sha256"]
    rows = []
    for i, case in enumerate(series.cases):
        rows.append([str(i + 1), escape.html(labels[i])] + ([escape.html(case.values[date].text)] if date else []) + [
            f'<a href="{url(path, page_of(case.record_sha256))}">{escape.html(case.record_path)}</a>',
            escape.html(case.label),
            f'<code title="{case.record_sha256}">{case.record_sha256[:12]}</code>',
        ])
    return columns, rows


def uncharted_row(report: SeriesReport, labels: list[str], index: int) -> list[str]:
    """A track's row (HTML cells, UNCHARTED_COLUMNS) where its series page has no room for its
    chart: its anchor (`change` citations link to it), how many records have it, the first and
    last of them with their values, and what was found."""
    track, findings = report.tracks[index], report.findings_of(index)
    first, last = track.observations[0], track.observations[-1]
    return [
        f'<span id="track-{index}">{escape.html(track.label)}</span>',
        str(len(track.observations)),
        escape.html(f"{labels[track.positions[0]]}: {format_value(first.value, track.metric.unit)}"),
        escape.html(f"{labels[track.positions[-1]]}: {format_value(last.value, track.metric.unit)}"),
        "; ".join(claim_html(f) for f in findings) if has_change(findings) else escape.html(no_change_text(track, report.rule)),
    ]


def chart_alt(report: SeriesReport, labels: list[str], index: int) -> str:
    """The alt text of a track's chart (before `charts.series_chart` adds that a dense chart
    leaves its ranges to the table): the track, how many records along which field, and each
    change it marks from the first record after it, or that none was detected. `verify --site`
    makes it again from the served records."""
    track, kind = report.tracks[index], KINDS[report.series.schema]
    changed = [f"from {labels[track.positions[f.claim.comparison.after.start]]}: {claim_text(f)}"
               for f in report.findings_of(index) if f.claim.verdict == CHANGED]
    return (f"{track.label} over {counted(len(track.observations), 'record')} along {kind.field(report.series.field).label}: "
            + ("; ".join(changed) if changed else "no change detected") + ".")


def index_href(report: SeriesReport) -> str:
    """The URL of a series' page from the history index."""
    return url(HISTORY_INDEX, series_path(report.series))


def index_table(reports: Sequence[SeriesReport]) -> tuple[str, tuple[list[str], list[list[str]]]]:
    """The history index's table of every series (each linked by `index_href`), and the paragraph above it naming what every series holds fixed ("" when nothing is): said
    once there, each row keeps its own (three series of one setup repeated 300 characters each,
    differing in GPU layers)."""
    setups = [setup_items(report.series) for report in reports]
    shared = [item for item in setups[0] if all(item in setup for setup in setups)] if len(setups) > 1 else []
    rows = [[f'<a href="{index_href(report)}">{escape.html(report.title)}</a>',
             escape.html(", ".join(item for item in setup if item not in shared) or "as above"),
             str(len(report.series.records)),
             # no break inside "b11146 → b11500" (escape.html folds record text's own spaces)
             escape.html(report.series.shown_of(report.series.cases[0])) + "&nbsp;→&nbsp;"
             + escape.html(report.series.shown_of(report.series.cases[-1])),
             str(len(report.changes))] for report, setup in zip(reports, setups)]
    above = f'<p class="bl-lede">Every series below holds fixed: {escape.html(", ".join(shared))}.</p>' if shared else ""
    return above, (["series", "setup", "records", "from → to", "changes"], rows)
