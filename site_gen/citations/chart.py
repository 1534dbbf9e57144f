"""`chart`: a line chart drawn from one record, or from several whose comparison keys agree.

    {{ chart("offload", rows="/cases/*/groups/*", x="/cases/{0}/placement/gpu_layers",
             y="server_decode_tokens_per_second/mean", series="context_tokens",
             x_title="GPU layers (of 81)", y_title="decode tokens/s", series_title="context tokens",
             unit="tokens/s") }}

`rows`, `x`, `y` and `series` follow `table`'s pointer rules; `series="{1}"` labels each line
with the key the second `*` of `rows` matched (e.g. "eager" and "graph"). With a list of records, the same
pointers are read in each, the series label names the record, and the build refuses when the
records' comparison keys differ (saying which key). The alt text, which a screen reader reads in
place of the chart, is `alt` (or "y_title against x_title") and then every point the chart
draws, its y in `unit` as `cite` would write it ("" for a plain number, as `cite`'s default)."""

from __future__ import annotations

from typing import Any

from benchledger.records.numbers import is_number
from site_gen import escape, quantity
from site_gen.chart_labels import title_unit
from site_gen.charts import Series, chart_html, line_chart
from site_gen.citations.base import CitationEnv, CitationKind, CitationProblem, check_unit
from site_gen.citations.table import expand_rows, place


class ChartBlock(CitationKind):
    name = "chart"
    block = True

    def render(
        self,
        env: CitationEnv,
        records: str | list,
        rows: str,
        x: str,
        y: str,
        x_title: str,
        y_title: str,
        series: str | None = None,
        series_title: str = "series",
        title: str = "",
        alt: str = "",
        log_x: bool = False,
        log_y: bool | None = None,
        rule: float | None = None,
        rule_label: str = "",
        unit: str = "",
    ) -> str:
        names = [records] if isinstance(records, str) else records
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise CitationProblem("records must be a record name or a list of record names")
        for label, value in (("x_title", x_title), ("y_title", y_title), ("series_title", series_title), ("title", title), ("alt", alt),
                             ("rule_label", rule_label), ("unit", unit)):
            if not isinstance(value, str):
                raise CitationProblem(f"{label} must be text")
        if rule is not None and not is_number(rule):
            raise CitationProblem("rule must be a number: the y value of the horizontal rule (1 for a ratio's no change)")
        if len(names) > 1:
            check_comparable(env, names)
        lines: dict[str, list[tuple[float, float, quantity.Trace]]] = {}
        # "eager mean (ms)": an axis shows the values as the records give them
        y_unit, x_unit = title_unit(y_title), title_unit(x_title)
        read_as: dict[str, Any] = {}  # each line's label -> the series value it stands for
        for name in names:
            rec = env.record(name)
            for row_pointer, stars in expand_rows(rec.data, rows):
                px, py = place(x, row_pointer, stars), place(y, row_pointer, stars)
                check_unit(unit, py)  # the alt text reads each point in `unit`
                for argument, said, pointer in (("y_title", y_unit, py), ("x_title", x_unit, px)):
                    if said is not None:
                        check_unit(said, pointer, argument)
                vx, vy = env.number(name, px).value, env.number(name, py, allow_null=True).value
                label, value = _series_label(env, name, series, row_pointer, stars) if series else (y_title, y_title)
                if len(names) > 1:
                    label = f"{name}: {label}"
                if read_as.setdefault(label, value) != value:  # 1.0771 and 1.0794 both read "1.08"
                    raise CitationProblem(f"series values {read_as[label]!r} and {value!r} both read {label!r}: their points would "
                                          "be joined as one line; name a series field whose values read apart")
                lines.setdefault(label, []).append((vx, vy, quantity.Trace(rec.entry.sha256, py, x_pointer=px)))
        drawn = [(vy, trace) for points in lines.values() for _, vy, trace in points]  # one row at least (expand_rows)
        if all(vy is None for vy, _ in drawn):  # an empty plot, said as a chart
            raise CitationProblem(f"draws no point: y is null in every row ({drawn[0][1].pointer} and the rest); chart a value "
                                  "the rows give")
        for name, wanted, index in (("log_x", log_x, 0), ("log_y", log_y, 1)):
            off = next((point for points in lines.values() for point in points if point[index] is not None and point[index] <= 0), None)
            if wanted and off is not None:  # Vega would draw it at the axis' far end, as if it were the largest
                pointer = off[2].x_pointer if index == 0 else off[2].pointer
                raise CitationProblem(f"{name}=True, but {pointer} is {off[index]!r}: a log axis cannot place 0 or less; "
                                      f"leave {name} out or set it False")
        if log_y and rule is not None and rule <= 0:
            raise CitationProblem(f"rule={rule!r} cannot be drawn on a log y axis (0 or less); leave log_y out or set it False")
        env.charts += 1
        chart_id = escape.anchor(f"{env.article.slug}-{env.charts}")  # a long file name makes a long slug
        chart = line_chart(
            chart_id,
            title or f"{y_title} against {x_title}",
            # along x, as the lines are drawn, so the alt text reads the points in the chart's order
            [Series(label, sorted(pts, key=lambda p: p[0])) for label, pts in lines.items()],
            x_title=x_title,
            y_title=y_title,
            series_title=series_title,
            log_x=bool(log_x),
            log_y=None if log_y is None else bool(log_y),  # left out: log where the values span 20x
            reference=None if rule is None else (rule, rule_label),
            alt_text=_sentence(alt or f"{y_title} against {x_title}" + (f", one line per {series_title}" if series else "")),
            unit=unit,
        )
        if env.site is None:
            raise CitationProblem("charts need the site's chart cache (build the site)")
        html, assets = chart_html(chart, env.page_path, env.site.charts)
        env.assets.update(assets)
        return html


def _series_label(env: CitationEnv, name: str, series: Any, row_pointer: str, stars: list[str]) -> tuple[str, Any]:
    """(the label of the row's line, the series value it reads)."""
    if not isinstance(series, str):
        raise CitationProblem(f"series must be a pointer, or \"{{0}}\" for the key a '*' of rows matched; not {series!r}")
    if series.startswith("{") and series.endswith("}") and series[1:-1].isdigit():
        index = int(series[1:-1])
        if index >= len(stars):
            raise CitationProblem(f"series {series}: rows has only {len(stars)} '*'")
        return stars[index], stars[index]
    pointer = place(series, row_pointer, stars)
    value = env.value(name, pointer).value
    if is_number(value):
        return quantity.format_number(value), value
    if isinstance(value, str):
        return value, value
    raise CitationProblem(f"series {pointer} in record {name} is not a number or text")


def check_comparable(env: CitationEnv, names: list[str]) -> None:
    """Refuse to draw records on one chart unless the comparisons would set them side by side:
    the same kind, every case of each record agreeing on identity with a case of the first and
    differing from it in at most one axis field (`benchledger.cases`, as the comparison pages)."""
    from benchledger.cases.comparison import differences
    from benchledger.cases.registry import kind_for

    if env.site is None:
        raise CitationProblem("charts across records need the site's records (build the site)")
    views = {name: env.site.view(env.record(name).entry.sha256) for name in names}
    first = names[0]
    for name in names[1:]:
        if views[name].schema != views[first].schema:
            raise CitationProblem(f"records {first} and {name} cannot share a chart: schema differs "
                                  f"({views[first].schema} vs {views[name].schema})")
    kind = kind_for(views[first].schema)
    if kind is None:
        raise CitationProblem(f"records {first} and {names[1]} cannot share a chart: their schema has no case table "
                              "(benchledger/cases/registry.py)")
    cases = {name: kind.cases(v.data, v.sha256, v.entry.path) for name, v in views.items()}
    for name in names[1:]:
        for case in cases[name]:
            peers = [a for a in cases[first] if a.identity == case.identity]
            if not peers:
                ref = dict(cases[first][0].identity) if cases[first] else {}
                differs = [(n, ref.get(n), v) for n, v in case.identity if ref.get(n) != v]
                raise CitationProblem(
                    f"records {first} and {name} cannot share a chart: identity field "
                    + "; ".join(f"{kind.field(n).label!r} differs ({a!r} vs {b!r})" for n, a, b in differs))
            closest = min((differences(a, case) for a in peers), key=len)
            if len(closest) > 1:
                raise CitationProblem(
                    f"records {first} and {name} cannot share a chart: confounded, they differ in "
                    + "; ".join(f"{kind.field(d.field).label!r} ({d.a!r} vs {d.b!r})" for d in closest))


def _sentence(text: str) -> str:
    """`text` ending as a sentence does, so the points the alt text lists after it read apart."""
    stripped = text.rstrip()
    return stripped if not stripped or stripped[-1] in ".!?" else f"{stripped}."
