"""Comparison pages: cases from different records side by side, only where their comparison key
(model, quantisation, runtime, settings that matter, hardware) agrees. Where records of one
schema have keys that differ, the index says what differs instead of drawing one chart."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from site_gen import escape
from site_gen.charts import Series, chart_html, line_chart
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.base import CaseKey
from site_gen.pages.records.registry import renderer_for
from site_gen.quantity import traced
from site_gen.tables import frame, html_table
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext


@dataclass(frozen=True)
class Group:
    """Cases (from at least two records) whose comparison keys agree."""

    schema: str
    key: tuple[tuple[str, str], ...]
    cases: tuple[CaseKey, ...]

    @property
    def slug(self) -> str:
        digest = hashlib.sha256(repr((self.schema, self.key)).encode()).hexdigest()[:12]
        return f"comparisons/{digest}.md"


def _differences(a: CaseKey, b: CaseKey) -> list[str]:
    left, right = dict(a.key), dict(b.key)
    return [f"{k}: {left.get(k)} vs {right.get(k)}" for k in sorted(set(left) | set(right)) if left.get(k) != right.get(k)]


class ComparisonPages(PageKind):
    name = "comparisons"

    def groups(self, keyed: list[tuple["RecordView", list[CaseKey]]]) -> tuple[list[Group], list[tuple[CaseKey, CaseKey, list[str]]]]:
        """From each record's case keys: comparable groups (cases of at least two records
        sharing a key), and, per schema, how each further key differs from the first one seen
        (one row per distinct key, so the list grows with the number of distinct setups, not
        with pairs of records)."""
        by_key: dict[tuple, list[CaseKey]] = {}
        for view, cases in keyed:
            for case in cases:
                by_key.setdefault((view.schema, case.key), []).append(case)
        groups = [
            Group(schema, key, tuple(cases))
            for (schema, key), cases in by_key.items()
            if len({c.record_sha256 for c in cases}) > 1
        ]
        first_of_schema: dict[str, CaseKey] = {}
        differing = []
        for (schema, _), cases in by_key.items():
            first = first_of_schema.setdefault(schema, cases[0])
            if first is not cases[0] and first.record_sha256 != cases[0].record_sha256:
                differing.append((first, cases[0], _differences(first, cases[0])))
        return groups, differing

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        keyed = [(view, renderer_for(view.schema, view.entry.path).case_keys(view)) for view in site.views]
        groups, differing = self.groups(keyed)
        index_path = "comparisons/index.md"
        links = []
        for group in groups:
            page = self._group_page(site, group)
            links.append({"href": url(index_path, group.slug), "title": page.title, "count": len(group.cases)})
            yield page
        not_compared = []
        for a, b, diff in differing:
            not_compared.append({
                "a": site.view(a.record_sha256), "b": site.view(b.record_sha256), "differences": diff,
            })
        kinds: dict[str, dict[str, set]] = {}
        for view, cases in keyed:
            kind = kinds.setdefault(view.schema, {"records": set(), "keys": set()})
            kind["records"].add(view.sha256)
            kind["keys"].update(c.key for c in cases)
        schemas = [{"schema": k, "record_count": len(v["records"]), "key_count": len(v["keys"])} for k, v in sorted(kinds.items())]
        yield Page(index_path, "Comparisons", site.render(
            "comparisons.md.j2", links=links, not_compared=not_compared, schemas=schemas, page_path=index_path))

    def _group_page(self, site: "SiteContext", group: Group) -> Page:
        key_text = ", ".join(f"{k} {v}" for k, v in group.key[:3])
        title = f"Compared: {key_text}"
        metric_names = list(dict.fromkeys(m for c in group.cases for m in c.metrics))
        rows = []
        for case in group.cases:
            view = site.view(case.record_sha256)
            row = {
                "record": f'<a href="{url(group.slug, view.page_path)}">{escape.html(view.entry.path)}</a>',
                "case": escape.html(case.label),
                "axis": escape.html(f"{case.axis} {case.axis_value}" if case.axis else ""),
            }
            for name in metric_names:
                if name in case.metrics:
                    value, unit, pointer = case.metrics[name]
                    row[name] = traced(value, unit, case.record_sha256, pointer)
            rows.append(row)
        parts = [f"# {escape.text(title)}\n",
                 '<p class="bl-lede">These cases come from different records and agree on every field of '
                 "their comparison key:</p>\n",
                 html_table(frame([{"field": escape.html(k), "value": escape.html(v)} for k, v in group.key], ["field", "value"])),
                 "\n\n", '<div class="bl-scroll">', html_table(frame(rows, ["record", "case", "axis"] + metric_names)), "</div>\n\n"]
        assets: dict[str, bytes] = {}
        axis = group.cases[0].axis
        if axis and all(isinstance(c.axis_value, (int, float)) for c in group.cases):
            series = []
            for name in metric_names:
                points = [(c.axis_value, c.metrics[name][0], c.metrics[name][2]) for c in group.cases
                          if name in c.metrics and isinstance(c.metrics[name][0], (int, float))]
                series.append(Series(name, sorted(points, key=lambda p: p[0])))
            unit = next(iter(group.cases[0].metrics.values()))[1] if group.cases[0].metrics else ""
            chart = line_chart("compared", f"Across records along {axis}", series, x_title=axis,
                               y_title=f"value ({unit})", series_title="metric",
                               alt_text=f"{len(group.cases)} cases from {len({c.record_sha256 for c in group.cases})} records along {axis}.")
            html, assets = chart_html(chart, group.slug, site.charts)
            parts.append(html)
        return Page(group.slug, title, "".join(parts), assets)
