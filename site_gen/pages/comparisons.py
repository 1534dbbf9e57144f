"""Comparison pages, one per (record kind, identity key, axis), and the comparisons index.

A page sets side by side cases of different records that agree on every identity field and on
every other axis field (`benchledger.cases.comparison`): per headline metric a chart (one line per
axis value, over the points: context or token length) and a table with each number traced to
(sha256, pointer), its range and n where the record has them, the ratio to the baseline (the
first axis value in sort order) as a derived number with formula and inputs, and the verdict of
the rule for calling a difference (`benchledger.cases.evidence`). The limitations of every
contributing record are placed beside what they limit: those of a number under its metric's
table, those of a case under the cases table, record-wide ones at the end, naming the record."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Iterable

from benchledger.cases import evidence
from benchledger.cases.base import Case, CaseKind, Measure, Metric, Role, Scope
from benchledger.records.display import names_unix_time, utc_date
from benchledger.records.numbers import is_number
from site_gen import escape, raw_html
from site_gen.comparisons import comparisons_of, kind_slug
from site_gen.charts import Series, chart_html, line_chart, wide_range
from site_gen.templating import url
from site_gen.limitations import Limitation, limitations_for
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.registry import renderer_for
from site_gen.quantity import Trace, axis_number, counted, traced, traced_range, traced_text, unit_for
from site_gen.tables import frame, html_table

if TYPE_CHECKING:
    from benchledger.cases.comparison import Comparison
    from site_gen.comparisons import ComparisonPage
    from site_gen.context import SiteContext

INDEX = "comparisons/index.md"
# Bounds that keep a page readable (and its size bounded) when one setup was measured many
# times: cases shown per axis value (the rest are named as left out), and the number of cases
# up to which a table has a column group per case (beyond it, a row per case).
MAX_CASES_PER_VALUE = 3
WIDE_CASES = 4
# Lines one chart draws: past this, colours repeat, Vega cuts the legend (39 GPU-layer values made
# 39 lines on each chart) and no line can be told from another.
MAX_CHART_LINES = 10


def case_href(site: "SiteContext", from_page: str, case: Case) -> str:
    """Link from `from_page` to `case` on its record's article (its anchor where it has one)."""
    view = site.view(case.record_sha256)
    anchor = renderer_for(view.schema, view.entry.path).case_anchor(case.pointer)
    return url(from_page, view.page_path) + (f"#{anchor}" if anchor else "")


def _trace(case: Case, m: Measure, x_pointer: str | None = None) -> Trace:
    """Where a charted number comes from (and its x, the value at `x_pointer` of its record)."""
    if m.pointer is not None:
        return Trace(case.record_sha256, m.pointer, x_pointer=x_pointer)
    return Trace(case.record_sha256, formula=m.metric.formula, inputs=tuple(m.inputs), x_pointer=x_pointer)


def _number(case: Case, m: Measure) -> str:
    """The traced number of one measure (derived ones with formula and input pointers)."""
    metric = m.metric
    if m.value is None and m.available_pointer is not None:
        return traced(None, metric.unit, case.record_sha256, m.available_pointer, text="unavailable")
    if m.pointer is None and metric.formula is not None:
        return traced(m.value, metric.unit, case.record_sha256, None, formula=metric.formula, inputs=dict(m.inputs))
    return traced(m.value, metric.unit, case.record_sha256, m.pointer)


def _range(case: Case, m: Measure) -> str:
    if not m.has_range:
        return "n/a"
    sha = case.record_sha256
    # a count of raw values is derived from them, not a value the record holds (verify --site reads it so)
    formula = "count of values" if m.metric.sample is None else "count of the entries that give a value"
    count = (traced(m.count, "", sha, None, formula=formula, inputs={"values": m.count_pointer})
             if m.counted else traced(m.count, "", sha, m.count_pointer))
    return f"{traced_range(m.minimum, m.maximum, m.metric.unit, sha, (m.minimum_pointer, m.maximum_pointer))} (n = {count})"


def _ratio(base_case: Case, base: Measure, case: Case, m: Measure) -> str:
    """B / A as a derived number whose inputs name both records."""
    if base.value is None or m.value is None or base.value == 0:
        return "n/a"
    inputs, records = {}, {}
    for name, c, measure in (("A", base_case, base), ("B", case, m)):
        if measure.pointer is not None:
            inputs[name] = measure.pointer
            records[name] = c.record_sha256
        else:  # a derived input: its own inputs, each from the same record
            for sub, ptr in measure.inputs:
                inputs[f"{name}.{sub}"] = ptr
                records[f"{name}.{sub}"] = c.record_sha256
    formula = "B / A" if base.pointer is not None and m.pointer is not None else f"B / A, each {m.metric.formula}"
    return traced(m.value / base.value, "×", case.record_sha256, None, formula=formula, inputs=inputs, input_records=records)


def _verdict_html(v: evidence.Verdict) -> str:
    return f'<span class="bl-verdict bl-verdict-{v.status}" title="{escape.shown_attr(v.text)}">{escape.html(v.short)}</span>'


def _point_label(kind: CaseKind, key: tuple[tuple[str, str], ...]) -> str:
    """A point as readers name it: "tokens 16,384, length kind frozen_longest" (plain text)."""
    def shown(text: str) -> str:
        return f"{int(text):,}" if text.isascii() and text.isdigit() else text
    return ", ".join(f"{kind.field(name).label} {shown(text)}" for name, text in key) or "all"


def _strictly_inside(scope: str, case_pointer: str) -> bool:
    return scope.startswith(case_pointer + "/")  # '/' only separates tokens (RFC 6901)


class _Placed:
    """The limitations placed on one page so far: each (record, limitation) once."""

    def __init__(self, site: "SiteContext", page_path: str):
        self.site, self.page_path, self.seen = site, page_path, set()

    def block(self, items: list[tuple[Case, Limitation]], title: str) -> str:
        fresh = []
        for case, lim in items:
            key = (case.record_sha256, lim)
            if key not in self.seen:
                self.seen.add(key)
                fresh.append((case, lim))
        if not fresh:
            return ""
        by_text: dict[tuple[str, str], list[tuple[Case, Limitation]]] = {}
        for case, lim in fresh:
            by_text.setdefault((lim.rule_id, lim.text), []).append((case, lim))
        lis = []
        for (rule_id, text), where in by_text.items():
            places = "; ".join(lim.place(c.record_path) for c, lim in where[:4])
            more = f" and {len(where) - 4} more" if len(where) > 4 else ""
            lis.append(f'<li class="bl-lim bl-lim-{where[0][1].source}"><span class="bl-lim-rule">{escape.html(rule_id)}</span> '
                       f'{escape.html(text)} <span class="bl-lim-where">({escape.html(places + more)})</span></li>')
        return f'<div class="bl-limits"><p class="bl-limits-title">{escape.html(title)}</p><ul>{"".join(lis)}</ul></div>\n'


def _measure_pointers(m: Measure) -> list[str]:
    ptrs = [p for p in (m.pointer, m.available_pointer, m.minimum_pointer, m.maximum_pointer, m.count_pointer) if p]
    return ptrs + [p for _, p in m.inputs]


class ComparisonPages(PageKind):
    name = "comparisons"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        compared = comparisons_of(site)
        for cp in compared.pages:
            yield self._page(site, cp)
        kinds = []
        for kind in compared.kinds:
            cases = compared.cases[kind.schema]
            pages = [cp for cp in compared.pages if cp.kind is kind]
            kinds.append({
                "kind": kind,
                "records": len({c.record_sha256 for c in cases}),
                "cases": len(cases),
                "comparisons": [{"href": url(INDEX, cp.path), "title": cp.title, "axis": kind.field(cp.axis).label,
                                 "axis_values": cp.values, "records": len(cp.records), "sections": len(cp.sections)}
                                for cp in pages],
                "confounded": [{
                    "a": [(site.view(sha), path) for sha, path in conf.a],
                    "b": [(site.view(sha), path) for sha, path in conf.b],
                    "differences": [f"{kind.field(d.field).label}: {d.a} vs {d.b}" for d in conf.differences],
                } for conf in compared.confounded.get(kind.schema, [])],
                "explorer": url(INDEX, f"explore/{kind_slug(kind.schema)}.md"),
            })
        yield Page(INDEX, "Comparisons", site.render(
            "comparisons.md.j2", kinds=kinds, uncompared=compared.uncompared_schemas, page_path=INDEX))

    # -- one comparison page ------------------------------------------------------------------
    def _page(self, site: "SiteContext", cp: "ComparisonPage") -> Page:
        kind, path = cp.kind, cp.path
        axis = kind.field(cp.axis)
        placed = _Placed(site, path)
        # (is generated HTML, text): headings stay Markdown, HTML runs become raw blocks
        parts: list[tuple[bool, str]] = [(False, f"# {escape.text(cp.title)}")]
        parts.append((True, f'<p class="bl-lede">Cases from {counted(len(cp.records), "record")} of kind <code>{escape.html(kind.schema)}</code> '
                 f"that agree on every identity field and on every other axis field: they differ only in "
                 f"<strong>{escape.html(axis.label)}</strong>{self._context_differing(kind, cp)}. Ratios are to the baseline "
                 f"{escape.html(axis.label)} <strong>{escape.html(cp.values[0])}</strong> (the first in sort order). "
                 f'A difference is called only as the rule on the <a href="{url(path, "methodology.md")}#comparisons">'
                 f"methodology page</a> allows; otherwise the table says why not.</p>"))
        identity_rows = [{"field": escape.html(kind.field(n).label), "value": escape.html(v)} for n, v in cp.identity]
        parts.append((True, '<details class="bl-settings"><summary>What agrees in every case (identity fields)</summary>\n'
                      + html_table(frame(identity_rows, ["field", "value"])) + "\n</details>"))
        varying = self._varying_fixed(cp)
        assets: dict[str, bytes] = {}
        shown: list[Case] = []  # the cases the page shows: only their records' limitations are listed
        for s, section in enumerate(cp.sections):
            if len(cp.sections) > 1:
                label = ", ".join(f"{kind.field(n).label} {v}" for n, v in section.fixed if n in varying)
                parts.append((False, f"## With {escape.text(label)} {{#section-{s}}}"))
            section, left_out = _trimmed(section)
            if left_out:
                explorer = url(path, f"explore/{kind_slug(kind.schema)}.md")
                parts.append((True, f'<p class="bl-left-out">Each {escape.html(axis.label)} value shows at most {MAX_CASES_PER_VALUE} cases here '
                             f"(the last sealed); left out of this section's tables and charts: "
                             + "; ".join(f"{n} more with {escape.html(v)}" for v, n in left_out)
                             + f'. <a href="{explorer}">The explorer</a> lists every case.</p>'))
            shown += section.cases
            parts.append((True, self._members(site, kind, path, section, placed)))
            for name in kind.headline:
                # a metric's heading sits under its section's (##), or under the page's own (#)
                level = "###" if len(cp.sections) > 1 else "##"
                metric_parts, chart_assets = self._metric(site, kind, path, section, kind.metric(name), s, placed, level)
                parts += metric_parts
                assets.update(chart_assets)
        record_wide = [(c, lim) for c in shown for lim in site.view(c.record_sha256).limitations if lim.scope == ""]
        parts.append((True, placed.block(record_wide, "Limitations of the compared records (each applies to all of its numbers)")))
        return Page(path, cp.title, raw_html.join(parts), assets)

    @staticmethod
    def _varying_fixed(cp: "ComparisonPage") -> set[str]:
        values: dict[str, set[str]] = {}
        for section in cp.sections:
            for n, v in section.fixed:
                values.setdefault(n, set()).add(v)
        return {n for n, vs in values.items() if len(vs) > 1} or {n for n, _ in cp.sections[0].fixed[:1]}

    @staticmethod
    def _context_differing(kind: CaseKind, cp: "ComparisonPage") -> str:
        """"; context fields differ too (...): X, Y", or "": what else a reader should weigh."""
        cases = [c for section in cp.sections for c in section.cases]
        labels = [f.label for f in kind.fields_of(Role.CONTEXT) if len({c.values[f.name].text for c in cases}) > 1]
        if not labels:
            return ""
        return (f"; context fields differ too (shown in the tables below, never required to agree): "
                f"{escape.html(', '.join(labels))}")

    def _members(self, site: "SiteContext", kind: CaseKind, path: str, section: "Comparison", placed: _Placed) -> str:
        axis = kind.field(section.axis)
        context = kind.fields_of(Role.CONTEXT)
        rows = []
        # a record that is one case names the case by its path: the record column says it already
        whole = all(case.pointer == "" for case in section.cases)
        for case in section.cases:
            view = site.view(case.record_sha256)
            row = {
                axis.label: escape.html(section.value_of(case)),
                "record": f'<a href="{url(path, view.page_path)}">{escape.html(view.entry.path)}</a>',
                "sha256": f'<code class="bl-hash" title="{view.sha256}">{view.sha256[:12]}</code>',
            }
            if not whole:
                row["case"] = f'<a href="{escape.attr(case_href(site, path, case))}">{escape.html(case.label)}</a>'
            for f in context:
                value = case.values[f.name]
                if value.pointer and is_number(value.value) and unit_for(f.name):
                    # a size in its unit, as an article shows it ("GPU memory 102641958912" named none)
                    row[f.label] = traced(value.value, unit_for(f.name), case.record_sha256, value.pointer)
                    continue
                # a Unix time with its date, as an article's field table shows it
                date = utc_date(value.value) if names_unix_time(value.pointer or "") else ""
                row[f.label] = (traced_text(value.text, case.record_sha256, value.pointer, name_record=False)
                                + (f" ({date} UTC)" if date else ""))
            rows.append(row)
        # Context fields: those whose values differ between the cases in the main table, the rest
        # folded (by value: each cell names its own record and pointer)
        differing = [f.label for f in context if len({case.values[f.name].text for case in section.cases}) > 1]
        same = [f.label for f in context if f.label not in differing]
        columns = [axis.label, "record", "sha256"] + ([] if whole else ["case"]) + differing
        out = ['<div class="bl-scroll">', html_table(frame(rows, columns)), "</div>\n"]
        if same:
            first = rows[0]
            out.append('<details class="bl-settings"><summary>Context shared by these cases (shown, never required to agree)</summary>\n'
                       + html_table(frame([{"field": escape.html(label), "value": first[label]} for label in same], ["field", "value"]))
                       + "\n</details>\n")
        case_lims = []
        for case in section.cases:
            wide = [case.pointer + rel for rel in kind.case_limits]
            for lim in site.view(case.record_sha256).limitations:
                if (lim.scope == case.pointer and case.pointer != "") or any(
                        lim.scope == w or _strictly_inside(lim.scope, w) for w in wide):
                    case_lims.append((case, lim))
        out.append(placed.block(case_lims, "Limitations of these cases"))
        return "\n".join(out) + "\n"

    def _metric(self, site: "SiteContext", kind: CaseKind, path: str, section: "Comparison", metric: Metric, s: int,
                placed: _Placed, level: str) -> tuple[list[tuple[bool, str]], dict[str, bytes]]:
        axis = kind.field(section.axis)
        base_case = _baseline(section, metric)
        base_points = {p.key: p for p in base_case.points}
        by_value = section.by_value()
        repeated = any(len(cases) > 1 for _, cases in by_value)
        point_field = next((f for f in kind.fields if f.scope is Scope.POINT), None)
        # One row per point (context or token length), one column group per case: its number
        # with range and n, then its ratio to the baseline case and the verdict on the difference.
        keys = sorted({p.key for c in section.cases for p in c.points}, key=lambda k: tuple(_sort_value(v) for _, v in k))
        wide = len(section.cases) <= WIDE_CASES
        # Few cases: one row per point (context or token length), one column group per case (its
        # number with range and n, its ratio to the baseline case, the verdict). Many: one row per
        # point and case.
        rows: dict[tuple, dict[str, str]] = {k: {"point": escape.html(_point_label(kind, k))} for k in keys}
        long_rows: list[dict[str, str]] = []
        columns = ["point"] if wide else ["point", axis.label, "record", metric.label, "ratio to baseline", "difference"]
        series, lims = [], []
        # many axis values, each a number (GPU layers, threads): the chart turns, the axis on x
        # and a line per point (one line per case, or per value when values repeat, is too many)
        turned = (len(by_value) if repeated else len(section.cases)) > MAX_CHART_LINES and 0 < len(keys) <= MAX_CHART_LINES \
            and all(axis_number(value) is not None for value, _ in by_value)
        along_axis: dict[tuple, list[tuple[float, float, Trace]]] = {k: [] for k in keys}  # when turned: x the axis value
        # each verdict's cell, filled once the table's tests are all known (false-discovery control)
        pending: list[tuple[dict[str, str], str, Measure, Measure]] = []
        for value, cases in by_value:
            points = []
            axis_x = axis_number(value) if turned else None  # the value's place on x
            for case in cases:
                label = value if not repeated else f"{value} · {case.record_path}"
                head = str(label)  # a column name: plain text, escaped by html_table
                is_base = case is base_case
                repeat = not is_base and value == section.value_of(base_case)  # never a difference along the axis
                if wide:
                    columns.append(head)
                    if not is_base:
                        columns += [f"{head}: ratio to baseline", f"{head}: difference"]
                for point in case.points:
                    m = point.measures[metric.name]
                    number = _number(case, m) + (f'<br><small class="bl-range">{_range(case, m)}</small>' if m.has_range else "")
                    ratio = verdict = ""
                    base = None
                    if not is_base:
                        base_point = base_points.get(point.key)
                        base = base_point.measures[metric.name] if base_point is not None else None
                        ratio = _ratio(base_case, base, case, m) if base else "no baseline point"
                        verdict = _verdict_html(evidence.Verdict(evidence.REPEAT)) if repeat else "" if base else "no baseline point"
                    if wide:
                        row = rows[point.key]
                        row[head] = number
                        if not is_base:
                            row[f"{head}: ratio to baseline"], row[f"{head}: difference"] = ratio, verdict
                        cell = (row, f"{head}: difference")
                    else:
                        long_rows.append({
                            "_key": point.key, "point": rows[point.key]["point"], axis.label: escape.html(value),
                            # a record that is one case is labelled by its path: named once ("x.json x.json")
                            "record": f'<a href="{escape.attr(case_href(site, path, case))}">{escape.html(case.record_path)}'
                                      + (f" {escape.html(case.label)}" if case.label != case.record_path else "") + "</a>",
                            metric.label: number, "ratio to baseline": "baseline" if is_base else ratio, "difference": verdict})
                        cell = (long_rows[-1], "difference")
                    if base and not repeat:
                        pending.append((*cell, base, m))
                    x = _x_value(point, point_field.name if point_field else None)
                    if m.value is not None and x is not None:
                        points.append((x, m.value, _trace(case, m, point.key_pointers.get(point_field.name))))
                    if m.value is not None and axis_x is not None:
                        along_axis[point.key].append((axis_x, m.value, _trace(case, m, case.values[axis.name].pointer)))
                    view = site.view(case.record_sha256)
                    for ptr in _measure_pointers(m):
                        for lim in limitations_for(view.data, ptr, view.limitations):
                            if _strictly_inside(lim.scope, case.pointer):  # case- and record-wide ones go elsewhere
                                lims.append((case, lim))
                if not repeated:
                    series.append(Series(label, sorted(points, key=lambda p: p[0])))
                    points = []
            if repeated:  # one line per axis value, through the points of all its cases
                series.append(Series(value, sorted(points, key=lambda p: p[0])))
        verdicts = evidence.control_false_discoveries([evidence.verdict(base, m) for _, _, base, m in pending])
        for (target, key, _, _), v in zip(pending, verdicts):
            target[key] = _verdict_html(v)
        # columns saying "no range: no claim" in every row say nothing one sentence cannot
        judged = {(id(target), key) for target, key, _, _ in pending}
        no_range = wide and verdicts and all(v.status == evidence.NO_RANGE for v in verdicts) and all(
            (id(row), c) in judged for row in rows.values() for c in columns if c.endswith(": difference"))
        if no_range:
            columns = [c for c in columns if not c.endswith(": difference")]
        long_rows.sort(key=lambda r: tuple(_sort_value(v) for _, v in r["_key"]))  # stable: axis order within a point
        parts = [f"{level} {escape.text(metric.label)} {{#s{s}-{metric.name.replace('_', '-')}}}"]
        assets: dict[str, bytes] = {}
        if turned:
            series = [Series(_point_label(kind, k), sorted(along_axis[k], key=lambda p: p[0])) for k in keys if along_axis[k]]
            line_field, x_field = point_field, axis
        else:
            line_field, x_field = axis, point_field
        if len(series) > MAX_CHART_LINES:
            parts.append(f'<p class="bl-lede">{len(series)} values of {escape.html(axis.label)} are too many lines for one '
                         "chart; the table below gives every number.</p>\n")
        elif any(sr.points for sr in series) and x_field is not None:
            xs = [x for sr in series for x, _, _ in sr.points]
            line_title = line_field.label if line_field is not None else "point"
            chart = line_chart(
                f"s{s}-{metric.name}".replace("_", "-"), f"{metric.label} by {x_field.label}, one line per {line_title}",
                series, x_title=x_field.label, y_title=f"{metric.label} ({metric.unit})", series_title=line_title,
                log_x=wide_range(xs),
                alt_text=f"{metric.label} against {x_field.label} for each {line_title}.", unit=metric.unit)
            html, assets = chart_html(chart, path, site.charts)
            parts.append(html)
        parts.append('<div class="bl-scroll">' + html_table(frame(rows.values() if wide else long_rows, columns)) + "</div>\n")
        if no_range:
            parts.append('<p class="bl-lede">No difference is called here: the records give these numbers without their '
                         "spread (no minimum and maximum of the runs), which the rule needs.</p>\n")
        parts.append(_repeats_disagree(by_value, metric, axis.label))
        parts.append(placed.block(lims, f"Limitations of these numbers ({metric.label})"))
        return [(False, parts[0]), (True, "".join(parts[1:]))], assets


def _repeats_disagree(by_value: list[tuple[str, list[Case]]], metric: Metric, axis_label: str) -> str:
    """A note where repeats of one setup (cases of one axis value) differ beyond what the spread
    within each run allows: the tests here judge a difference by that spread, so a difference as
    large as the repeats' own may be run-to-run variation (an audit's two runs of one setup, 12
    days apart, differed by 9.4 % while the page called 3 % differences between GPUs)."""
    gaps = []
    for value, cases in by_value:
        first = {p.key: p.measures[metric.name] for p in cases[0].points}
        for case in cases[1:]:
            for point in case.points:
                a, b = first.get(point.key), point.measures[metric.name]
                if a is not None and a.value and b.value is not None and evidence.verdict(a, b).status == evidence.CALLED:
                    gaps.append((value, abs(b.value / a.value - 1) * 100))
    if not gaps:
        return ""
    values = list(dict.fromkeys(value for value, _ in gaps))
    return (f'<p class="bl-lede bl-repeats-note">Repeats of one setup disagree here: the records of '
            f"{escape.html(', '.join(values))} differ from each other by up to {max(g for _, g in gaps):.1f} %, beyond the "
            f"spread within each run. A difference along {escape.html(axis_label)} that is not larger than that may be "
            "run-to-run variation, whatever the test within runs says.</p>\n")


def _baseline(section: "Comparison", metric: Metric) -> Case:
    """The case every other is set against: of the first axis value's cases (repeats of one
    setup), the first whose record carries the metric's raw values, so that a difference can be
    tested on them; the first case where none does. A summary-only first record left a whole
    page without a verdict where the others carried their values."""
    _, cases = section.by_value()[0]
    return next((c for c in cases if any(p.measures[metric.name].samples for p in c.points)), cases[0])


def _trimmed(section: "Comparison") -> tuple["Comparison", list[tuple[str, int]]]:
    """The section with at most MAX_CASES_PER_VALUE cases per axis value, the last sealed (a
    setup run nightly showed its three oldest runs of 500), and (value, count left out) for the
    values that had more."""
    kept, left_out = [], []
    for value, cases in section.by_value():
        kept += cases[-MAX_CASES_PER_VALUE:]
        if len(cases) > MAX_CASES_PER_VALUE:
            left_out.append((value, len(cases) - MAX_CASES_PER_VALUE))
    return dataclasses.replace(section, cases=tuple(kept)), left_out


def _sort_value(text: str) -> tuple:
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def _x_value(point, name: str | None) -> float | None:
    """A point's position on the chart's x axis: its key's number."""
    return axis_number(dict(point.key).get(name) if name else None)



