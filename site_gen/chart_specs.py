"""The Vega-Lite specs benchledger writes: a line chart's and a series chart's, each a template
per shape (built by Altair once) filled with the chart's data, and the same spec rebuilt from a
page's own (`rebuilt_spec`), which `verify --site` compares with the page's. Apart from
site_gen.charts (pandas, vl-convert, the page's HTML), which draws and places them."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from site_gen.chart_labels import series_ticks
from site_gen.quantity import ORIGIN_EXPRESSION
from site_gen.static_chart import POINTS_UNIT, canonical_json

CHART_WIDTH = 560
CHART_HEIGHT = 260
# Records past which a series chart draws small dots and no range rules: 502 records' ranges on a
# 560-pixel axis were a solid grey wall (each range stays in the tooltip and the table below).
DENSE_SERIES_POINTS = 120
DENSE_RANGES_ALT = " Ranges are in the table, not drawn, at this many records."  # a dense series chart's alt text ends so

# A tooltip's numbers: six significant digits in decimal notation ("~g" wrote 32,768 tokens as
# "3.277e+4"), trailing zeros trimmed.
TOOLTIP_FORMAT = ",.6~r"


# Altair builds a chart's spec in about 15 ms (35 for a layered series chart), most of a cold
# build's own work at a thousand records. Specs are therefore built by Altair once per *shape*
# (the axes, titles and layers), with the data left out: the layers read named datasets
# ("points", ...) and the orders that follow from the data are placeholders. A chart's spec is
# that template with its datasets and orders filled in: the same chart, in microseconds.
_PLACEHOLDER = "\x00benchledger-placeholder:"


def _placeholder(name: str) -> list[str]:
    return [_PLACEHOLDER + name]


# Colours a spec names, chosen to read on white, each with the lighter one it takes on the dark
# (slate) scheme, where they read at 3:1 or less: claims worse, better and not called, grey text
# and rules. A spec carries the pairs it uses (usermeta, which Vega ignores); benchledger.js
# swaps them before drawing on slate.
DARK_COLOURS = {"#b3261e": "#ff8a80", "#1b7f3b": "#5cc97f", "#6b6b6b": "#a8a8a8", "#666666": "#aaaaaa", "#555555": "#b0b0b0"}


def _template_json(chart: Any) -> str:
    # Altair's own schema validation costs more than the rest of a page; the spec is built
    # from fixed encodings here, and vl-convert rejects an invalid one anyway.
    spec = chart.to_dict(validate=False)
    spec.pop("$schema", None)
    named = canonical_json(spec)
    dark = {light: dark for light, dark in DARK_COLOURS.items() if f'"{light}"' in named}
    if dark:
        spec["usermeta"] = {"darkColours": dark}
    return canonical_json(spec)


def _filled(template: str, datasets: dict[str, list], lists: dict[str, list]) -> dict:
    """The template's spec with its placeholder lists replaced by `lists` and its datasets set.
    Only a one-element list holding a placeholder is replaced: titles are strings, and the data,
    where a record's text could hold anything, is added after the walk."""

    def fill(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: fill(v) for k, v in node.items()}
        if isinstance(node, list):
            if len(node) == 1 and isinstance(node[0], str) and node[0].startswith(_PLACEHOLDER):
                return lists[node[0][len(_PLACEHOLDER):]]
            return [fill(v) for v in node]
        return node

    spec = fill(json.loads(template))
    spec["datasets"] = datasets
    return spec


# An x axis with at most this many measured values is labelled at them (20, 40, 81 GPU layers;
# 64, 512, 4096 tokens on a log axis), not at round numbers that were never measured.
MEASURED_TICKS_MAX = 12


@lru_cache(maxsize=1024)
def _line_template(x_title: str, y_title: str, series_title: str, log_x: bool, log_y: bool, measured_ticks: bool = False,
                   reference: bool = False, legend: bool = True) -> str:
    import altair as alt  # here, not at the top: a process that builds no chart spec never loads it (0.16 s)

    # Ticked at the measured values, the axis ends at the data (a few px beyond, for the points)
    # instead of running on to a round number nobody measured (a log axis to the next power of 10).
    scale_x = alt.Scale(type="log" if log_x else "linear", zero=False, nice=False, padding=12) if measured_ticks \
        else alt.Scale(type="log") if log_x else alt.Scale(zero=False)
    # a log y axis also ends at the data: running on to the powers of ten around 0.74-25.8
    # tokens/s left half the plot empty
    scale_y = alt.Scale(type="log", nice=False, padding=12) if log_y else alt.Scale(zero=True)
    # a log axis labels 100, 200, 300 ...: at a phone's width they touched ("100200"); labels
    # closer than this many px are hidden, the first and last kept
    axis_x = (alt.Axis(values=_placeholder("x_ticks"), labelSeparation=4) if measured_ticks
              else alt.Axis(labelSeparation=4) if log_x else alt.Undefined)
    axis_y = alt.Axis(labelSeparation=4) if log_y else alt.Undefined
    # One explicit domain for colour, dash and shape: Vega-Lite merges legends over the same
    # domain, so the one legend shows each series' colour, dash and point shape together.
    # (one line needs no legend: the chart's title and y axis name it, its tooltip too)
    series = {"title": series_title, "scale": alt.Scale(domain=_placeholder("series")), **({} if legend else {"legend": None})}
    base = alt.Chart(alt.NamedData("points")).encode(
        x=alt.X("x:Q", title=x_title, scale=scale_x, axis=axis_x),
        y=alt.Y("y:Q", title=y_title, scale=scale_y, axis=axis_y),
    )
    # A series whose points lie on another's (GPU utilisation at two contexts) still shows: each
    # has its own dash and point shape besides its colour.
    lines = base.mark_line().encode(color=alt.Color("series:N", **series), strokeDash=alt.StrokeDash("series:N", **series))
    # each point's source, made from its trace where the tooltip shows it (quantity.ORIGIN_EXPRESSION)
    points = base.transform_calculate(origin=ORIGIN_EXPRESSION).mark_point(size=60, filled=True, opacity=1).encode(
        color=alt.Color("series:N", **series),
        shape=alt.Shape("series:N", **series),
        tooltip=[
            alt.Tooltip("series:N", title=series_title),
            alt.Tooltip("x:Q", title=x_title, format=TOOLTIP_FORMAT),
            alt.Tooltip("y:Q", title=y_title, format=TOOLTIP_FORMAT),
            alt.Tooltip("origin:N", title="source"),
        ],
    )
    layers = [lines, points]
    if reference:
        # grey on either scheme's background; drawn under the lines, its label above the rule
        rule = alt.Chart(alt.NamedData("reference")).encode(y=alt.Y("y:Q", scale=scale_y))
        # grey that reads at 5.7:1 on white (#888 was 3.5:1); benchledger.js lightens it on slate
        layers[:0] = [rule.mark_rule(strokeDash=[2, 3], color="#666666"),
                      rule.mark_text(align="left", baseline="bottom", dx=4, dy=-3, fontSize=11, color="#666666")
                      .encode(x=alt.value(0), text="label:N")]
    return _template_json(
        # No title inside the chart: the page shows it once, above, as text that wraps on a
        # narrow screen; the alt text repeats it for the static SVG.
        alt.layer(*layers, width=CHART_WIDTH, height=CHART_HEIGHT)
        .configure_view(stroke=None)
        .configure_axis(grid=True, gridOpacity=0.4)
    )


# A claim's kind on a series chart and its colour, in the light scheme; 4.5:1 on white at least
# (the chart's text is 11 px); each has its lighter one in DARK_COLOURS.
CLAIM_COLOURS = {"worse": "#b3261e", "better": "#1b7f3b", "no change called": "#6b6b6b"}


@lru_cache(maxsize=1024)
def _series_template(x_title: str, y_title: str, segments: bool, marks: bool, thinned: bool, has_ranges: bool,
                     dense: bool) -> str:
    import altair as alt  # see _line_template

    # every layer's x is placed by one explicit domain, the records in series order: sorting each
    # field instead left the segments' x2 unsorted, and Vega warned of conflicting sorts
    x_scale = alt.Scale(domain=_placeholder("order"))
    axis = alt.Axis(labelAngle=-45, values=_placeholder("ticks")) if thinned else alt.Axis(labelAngle=-45)
    x = alt.X("label:N", scale=x_scale, title=x_title, axis=axis)
    y_scale = alt.Scale(zero=False)
    base = alt.Chart(alt.NamedData("points"))
    ranges = base.transform_filter("isValid(datum.low)").mark_rule(color="#7f8c8d").encode(
        x=x, y=alt.Y("low:Q", scale=y_scale, title=y_title), y2="high:Q")
    # a track whose records give no range has no range layer and no range in its tooltip: an
    # all-null field made Vega warn of an infinite extent on every such page
    tooltip = [alt.Tooltip("label:N", title=x_title), alt.Tooltip("value:Q", title=y_title, format=TOOLTIP_FORMAT)]
    if has_ranges:
        tooltip += [alt.Tooltip("low:Q", title="minimum", format=TOOLTIP_FORMAT), alt.Tooltip("high:Q", title="maximum", format=TOOLTIP_FORMAT)]
    tooltip.append(alt.Tooltip("origin:N", title="record"))
    dots = base.transform_calculate(origin=ORIGIN_EXPRESSION).mark_point(filled=True, size=14 if dense else 60, color="#2c7fb8").encode(
        x=x, y=alt.Y("value:Q", scale=y_scale, title=y_title), tooltip=tooltip)
    layers = [ranges, dots] if has_ranges and not dense else [dots]
    if segments:
        layers.append(alt.Chart(alt.NamedData("segments")).mark_rule(strokeWidth=2, color="#555555").encode(
            x=alt.X("first:N", scale=x_scale), x2="last:N", y=alt.Y("median:Q", scale=y_scale),
            tooltip=[alt.Tooltip("first:N", title="segment from"), alt.Tooltip("last:N", title="to"),
                     alt.Tooltip("median:Q", title="segment median", format=TOOLTIP_FORMAT)]))
    if marks:
        colour = alt.Color("kind:N", scale=alt.Scale(domain=list(CLAIM_COLOURS), range=list(CLAIM_COLOURS.values())),
                           legend=None)
        claims = alt.Chart(alt.NamedData("claims"))
        layers.append(claims.mark_rule(strokeDash=[4, 3], strokeWidth=2).encode(
            x=alt.X("at:N", scale=x_scale), color=colour, tooltip=[alt.Tooltip("claim:N", title="claim")]))
        for side, dx in (("left", 4), ("right", -4)):  # cut with an ellipsis to the half it runs into
            layers.append(claims.transform_filter(f"datum.side === '{side}'").mark_text(
                align=side, dx=dx, fontSize=11, limit=alt.ExprRef("width / 2 - 8")).encode(
                x=alt.X("at:N", scale=x_scale), y=alt.Y("line_px:Q", scale=None), text="text:N", color=colour))
    return _template_json(alt.layer(*layers, width=CHART_WIDTH, height=CHART_HEIGHT)
                          .configure_view(stroke=None).configure_axis(grid=True, gridOpacity=0.4))


def line_spec(datasets: dict[str, list], *, x_title: str, y_title: str, series_title: str, series: Sequence[str],
              log_x: bool, log_y: bool, unit: str) -> dict:
    """A line chart's spec: its rows (`datasets["points"]`: x, y, series, trace) joined by lines, one
    colour, dash and point shape per label of `series` (the legend's order; one label, no legend),
    the x axis ticked at the measured x where there are few (`MEASURED_TICKS_MAX`), a labelled
    rule where `datasets` has a "reference", and `unit` (the y values') in `usermeta`. Titles and
    labels are drawn as given (`chart_labels.chart_label` them first)."""
    xs = sorted({row["x"] for row in datasets["points"]})
    template = _line_template(x_title, y_title, series_title, log_x, log_y, len(xs) <= MEASURED_TICKS_MAX,
                              "reference" in datasets, legend=len(series) > 1)
    spec = _filled(template, datasets, {"series": list(series), "x_ticks": xs})
    spec["usermeta"] = {**spec.get("usermeta", {}), POINTS_UNIT: unit}
    return spec


def ranges_undrawn(rows: Sequence[dict]) -> bool:
    """Whether a series chart of these rows leaves its ranges to the table (`DENSE_SERIES_POINTS`)."""
    return len(rows) > DENSE_SERIES_POINTS and any(row["low"] is not None for row in rows)


def series_spec(datasets: dict[str, list], *, x_title: str, y_title: str) -> dict:
    """A series chart's spec: its rows (`datasets["points"]`: label, value, low, high, trace) placed
    along x in their order, with their ranges (not drawn past DENSE_SERIES_POINTS), and the
    segments' medians and the claims where `datasets` has them. Titles drawn as given."""
    rows = datasets["points"]
    order = [row["label"] for row in rows]
    ticks = series_ticks(order)
    has_ranges = any(row["low"] is not None for row in rows)
    template = _series_template(x_title, y_title, "segments" in datasets, "claims" in datasets, len(ticks) < len(order),
                                has_ranges, len(rows) > DENSE_SERIES_POINTS)
    return _filled(template, datasets, {"order": order, "ticks": ticks})


def point_layer(spec: dict) -> int:
    """The index of the layer that draws a chart's points (either kind has one), whose encodings
    hold its titles; StopIteration, KeyError or TypeError in a spec of another shape."""
    return next(n for n, layer in enumerate(spec["layer"]) if layer["mark"]["type"] == "point")


def rebuilt_spec(spec: dict) -> dict:
    """The spec `line_spec` or `series_spec` writes for `spec`'s own data, titles, legend order,
    log axes and unit: equal to `spec` wherever benchledger wrote it. Everything else a spec
    holds (marks, encodings, scales, filters, transforms, layers) follows from those, so an edit
    to it shows as a difference from this (`verify --site`). A line chart's legend order is kept
    as `spec` gives it, with any line it leaves out added at its end. Raises ValueError where
    `spec` has none of the parts a benchledger chart reads these from."""
    try:
        datasets = spec["datasets"]
        view = spec["layer"][point_layer(spec)]
        x, y = view["encoding"]["x"], view["encoding"]["y"]
        x_title, y_title = x["title"], y["title"]
        _all_text(x_title, y_title)
        if x["field"] != "x":
            return series_spec(datasets, x_title=x_title, y_title=y_title)
        colour = view["encoding"]["color"]
        series_title, labels = colour["title"], list(colour["scale"]["domain"])
        _all_text(series_title, *labels)
        # a point on no line (its series not text) is the alt text's check's to name
        drawn = dict.fromkeys(row.get("series") for row in datasets["points"] if isinstance(row.get("series"), str))
        labels += [label for label in drawn if label not in labels]
        usermeta = spec.get("usermeta", {})
        rebuilt = line_spec(datasets, x_title=x_title, y_title=y_title, series_title=series_title, series=labels,
                            log_x=x["scale"].get("type") == "log", log_y=y["scale"].get("type") == "log",
                            unit=usermeta.get(POINTS_UNIT))
        if POINTS_UNIT not in usermeta:  # no unit named: the alt text's check says so
            del rebuilt["usermeta"][POINTS_UNIT]
        return rebuilt
    except (KeyError, IndexError, TypeError, AttributeError, StopIteration) as err:
        raise ValueError("not a chart benchledger writes") from err


def _all_text(*values: Any) -> None:
    """Raises TypeError unless every value is text (a title or a label read from a page's spec)."""
    if not all(isinstance(value, str) for value in values):
        raise TypeError("a title or label that is not text")
