"""How a change claim reads on a page: a short visible text (the change, its interval, its
verdict) and, on hover and in data attributes, everything it was computed from: the records'
hashes and pointers, the statistic and its inputs, the algorithm and its parameters, the
false-discovery control. One place, so series pages, article citations and the feed say the
same thing."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from benchledger.cases.registry import KINDS
from site_gen import escape
from site_gen.changes.claims import CHANGED, EQUIVALENT
from site_gen.feed import FeedEntry
from site_gen.history import Finding, SeriesReport, finding_json, series_path
from site_gen.quantity import format_number


def percent(ratio: float) -> str:
    """A ratio as a signed change: 0.884 -> "−11.6%" (a real minus sign)."""
    value = (ratio - 1) * 100
    return f"{'+' if value >= 0 else '−'}{abs(value):.1f}%"


def claim_text(finding: Finding) -> str:
    """The visible words of a claim (plain text): "−11.6% [−12.4%, −10.8%], changed"."""
    claim = finding.claim
    shown = percent(claim.ratio)
    if claim.interval is not None:
        shown += f" [{percent(claim.interval[0])}, {percent(claim.interval[1])}]"
    verdict = claim.verdict
    if claim.verdict == CHANGED and finding.regression:
        verdict += ", worse"
    elif claim.verdict == CHANGED:
        verdict += ", better"
    elif claim.verdict == EQUIVALENT and claim.interval is not None and not claim.interval[0] <= 1 <= claim.interval[1]:
        # a real shift, smaller than the rule's delta: say both, "equivalent" alone reads as "no shift"
        verdict += f" (within ±{claim.delta:.1%}, though the interval excludes no change)"
    return f"{shown}, {verdict}"


def claim_kind(finding: Finding) -> str:
    """How a series chart draws the claim: "worse", "better" or "no change called"."""
    if finding.claim.verdict != CHANGED:
        return "no change called"
    return "worse" if finding.regression else "better"


def claim_label(finding: Finding) -> str:
    """The claim in the few words a chart has room for beside its rule: "−11.6%, worse" (the
    interval and the whole verdict are in its tooltip, `claim_text`)."""
    kind = claim_kind(finding)
    return f"{percent(finding.claim.ratio)}, {kind if kind != 'no change called' else finding.claim.verdict}"


def _side(name: str, rows: list[dict], field: str) -> str:
    parts = []
    for r in rows:
        where = r["value_pointer"] or "; ".join(f"{k} = {v}" for k, v in (r["inputs"] or {}).items())
        spread = f" (n {r['count']}, range {format_number(r['range'][0])}–{format_number(r['range'][1])})" if r["range"] else ""
        raw = f", raw values at {r['samples_pointer']}" if r["samples_pointer"] else ""
        parts.append(f"{r[field]}: record sha256 {r['sha256']} {r['path']} pointer {where} = {r['value']!r}{spread}{raw}")
    return f"{name}: " + " | ".join(parts)


def claim_title(finding: Finding) -> str:
    """The hover text: every input and parameter of the claim (plain text, escape for the
    attribute it lands in)."""
    data = finding_json(finding)
    claim = finding.claim
    field = finding.track.series.field
    stat = data["statistic"]
    algo = data["algorithm"]
    lines = [f"{data['metric_label']} ({data['unit']}, {data['better']} is better): {claim_text(finding)}"]
    if claim.interval is not None:
        lines.append(f"ratio after/before {claim.ratio!r}, interval {claim.interval[0]!r}–{claim.interval[1]!r} "
                     f"at {claim.confidence:.4g} confidence")
    else:
        lines.append(f"ratio after/before {claim.ratio!r}; no interval: the records give ranges only")
    if claim.comparison.separation is not None and claim.comparison.separation.disjoint:
        lines.append(f"ranges disjoint: every later value is {percent(claim.comparison.separation.gap)} or more away "
                     f"from every earlier one (ratio of the nearer range ends)")
    elif claim.comparison.separation is not None:
        lines.append("ranges overlap: no p-value, no claim")
    lines.append(f"delta ±{claim.delta:.4g} = max({claim.comparison.delta_floor(finding.rule)}, {finding.rule.noise_factor} x within-segment noise "
                 f"{stat['noise']!r})" if stat["noise"] is not None else f"delta ±{claim.delta:.4g} (floor; no within-segment noise known)")
    if claim.comparison.p_value is not None:
        lines.append(f"p {claim.comparison.p_value:.3g}; Benjamini-Hochberg adjusted {claim.adjusted_p:.3g} over "
                     f"{claim.tests_on_page} tests on this page ({claim.selected_on_page} selected at q {finding.rule.fdr_q})")
    if claim.minimum_detectable is not None and claim.verdict != CHANGED:
        lines.append(f"smallest change this rule would call changed here (power {finding.rule.power:.0%}): "
                     f"{claim.minimum_detectable:.1%}")
    lines.append(f"statistic ({stat['method']}): {stat['text']}" + (f", df {stat['df']:.3g}" if stat["df"] else ""))
    lines.append(f"algorithm ({algo['name']}): {algo['text']}; {algo['records_in_series']} records"
                 + (f", change point t-test p {algo['change_point_p']:.3g}" if algo["change_point_p"] is not None else ""))
    lines.append("parameters: " + ", ".join(f"{k} {v}" for k, v in algo["parameters"].items()))
    lines.append(_side("before", data["before"], field))
    lines.append(_side("after", data["after"], field))
    return " · ".join(lines)


def claim_html(finding: Finding) -> str:
    """Inline HTML for one claim: its text, with its provenance on hover and in data-*
    attributes (the records' hashes, so the audit can follow them)."""
    claim = finding.claim
    records = " ".join(finding.records)
    css = "bl-claim" + (f" bl-claim-{claim.verdict}") + (" bl-claim-worse" if finding.regression else "")
    return (f'<span class="{css}" data-verdict="{claim.verdict}" data-records="{records}" '
            f'data-series="{finding.track.series.slug}" title="{escape.shown_attr(claim_title(finding))}">'
            f"{escape.html(claim_text(finding))}</span>")


def changes_block(report: SeriesReport, field_label: str) -> str:
    """A series page's "Detected changes" (HTML): each change the report found, from the case
    it starts at (`field_label` names the series' field), with its claims; or that none was
    found. `verify --site` makes it again from the served records and finds it on the page."""
    if not report.changes:
        return '<p class="bl-no-change" id="changes">No change detected in this series.</p>'
    items = []
    for change in report.changes:
        at = report.series.shown_of(change.at)
        claims = "; ".join(f"{escape.html(f.track.label)}: {claim_html(f)}" for f in change.findings)
        items.append(f'<li class="bl-change{" bl-change-worse" if change.regression else ""}" id="change-{change.slug}">'
                     f"from {escape.html(field_label)} {escape.html(at)} "
                     f"(<code>{change.at.record_sha256[:12]}</code>): {claims}</li>\n")
    return '<div class="bl-changes" id="changes"><p><strong>Detected changes</strong></p><ul>\n' + "".join(items) + "</ul></div>"


def index_changes(reports: Sequence[SeriesReport], href: Callable[[SeriesReport], str]) -> str:
    """The history index's list of every detected change (HTML), each linked to its place on its
    series' page (`href`: that page's URL from the index). `verify --site` makes it again."""
    changes = []
    for report in reports:
        field = escape.html(KINDS[report.series.schema].field(report.series.field).label)
        for change in report.changes:
            worse = "worse" if change.regression else "better"
            changes.append(f'<li><a href="{href(report)}#change-{change.slug}">{escape.html(report.title)}</a>: '
                           f"from {field} {escape.html(report.series.shown_of(change.at))} ({worse}): "
                           + "; ".join(f"{escape.html(f.track.label)} {escape.html(claim_text(f))}" for f in change.findings)
                           + "</li>")
    return f'<ul class="bl-changes">\n{"".join(changes)}\n</ul>' if changes else \
        '<p class="bl-no-change">No change detected in any series.</p>'


def change_entries(reports: Sequence[SeriesReport], sealed_at: Mapping[str, str]) -> list[FeedEntry]:
    """One Atom entry per detected change, dated by the sealing time (`sealed_at`, by record
    sha256) of the last record it was computed from: when the ledger first held everything the
    change rests on. `verify --site` makes them again."""
    out = []
    for report in reports:
        for change in report.changes:
            at = report.series.shown_of(change.at)
            claims = "; ".join(f"{f.track.label}: {claim_text(f)}" for f in change.findings)
            out.append(FeedEntry(
                key=f"change:{change.slug}:{change.at.record_sha256[:16]}",
                title=f"{'Regression' if change.regression else 'Change'}: {report.title} from {at}",
                page_path=series_path(report.series),
                anchor=f"change-{change.slug}",
                stamp=max(sealed_at.get(sha, "") for sha in change.records),
                summary=f"From {KINDS[report.series.schema].field(report.series.field).label} {at} "
                        f"({change.at.record_path}, sha256 {change.at.record_sha256}): {claims}",
                categories=("change", "regression") if change.regression else ("change",),
            ))
    return out


def has_change(findings) -> bool:
    """Whether one of a track's findings is a detected change."""
    return any(f.claim.verdict == CHANGED for f in findings)


def _span(labels: list[str], track, segment) -> str:
    """A segment's records by their labels: "b11146" or "b11146–b11150"."""
    first, last = labels[track.positions[segment.start]], labels[track.positions[segment.stop - 1]]
    return first if first == last else f"{first}–{last}"


def track_findings(report: SeriesReport, labels: list[str], index: int) -> str:
    """A charted track's heading on its series page and what was found along it (HTML): each
    claim between the segments it compares, or that no change was found and the smallest one
    that would have been. `labels`: the series' case labels (`history.case_labels`). `verify
    --site` makes it again from the served records and finds it on the page."""
    track, findings = report.tracks[index], report.findings_of(index)
    items = [f"<li>{escape.html(_span(labels, track, f.claim.comparison.before))} → "
             f"{escape.html(_span(labels, track, f.claim.comparison.after))}: {claim_html(f)}</li>" for f in findings]
    summary = "" if has_change(findings) else f'<p class="bl-no-change">{escape.html(no_change_text(track, report.rule))}</p>\n'
    claims = f'<ul class="bl-claims">\n{"".join(items)}\n</ul>\n' if items else ""
    return f'<h3 id="track-{index}">{escape.html(track.label)}</h3>\n{summary}{claims}'


def no_change_text(track, rule) -> str:
    """What a track without a detected change says, with the smallest change it could have found."""
    d = track.detection
    if d.halves is not None and d.halves.log_ratio is not None:
        mde = d.halves.minimum_detectable(rule)
        return (f"no change beyond ±delta found over {d.size} records; a step of about {mde:.1%} between the halves "
                f"would have been found (its interval beyond ±delta with power {rule.power:.0%})")
    if d.halves is not None:
        return f"no change found over {d.size} records; the values have no spread, so no interval is estimated"
    if not d.comparisons:
        return "one record: nothing to compare"
    mdes = [m for m in (c.minimum_detectable(rule) for c in d.comparisons) if m is not None]
    if mdes:
        low, high = f"{min(mdes):.1%}", f"{max(mdes):.1%}"
        return (f"no change beyond ±delta found between neighbouring records; changes of about "
                f"{low if low == high else f'{low}–{high}'} would have been found (their interval beyond ±delta with "
                f"power {rule.power:.0%}; spread within one run only)")
    separations = [c.separation for c in d.comparisons if c.separation is not None]
    if separations:
        best = min(sep.smallest_p for sep in separations)
        return (f"no change found between neighbouring records; with only the ranges of n values a change shows only "
                f"when the ranges separate, and then the exact rank p-value is {best:.2g} at best")
    return "no change found between neighbouring records; the records give no range of values, so nothing is tested"


