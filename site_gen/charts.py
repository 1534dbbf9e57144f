"""Charts: Altair (Vega-Lite) specs, drawn interactively in the browser by the Vega bundle the
site serves itself, with a static SVG fallback, alt text and the data table behind each chart.

SVG renderings (and the Vega bundle) are cached on disk by the hash of what produced them, so
an unchanged chart is never rendered twice across builds."""

from __future__ import annotations

import json
import os
import re
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import pandas as pd
import vl_convert

from benchledger.atomic import write_atomic
from benchledger.errors import BuildError
from benchledger.records import cache_mac
from benchledger.records.digest import sha256_hex
from site_gen import escape
from site_gen.chart_labels import chart_label, points_text, series_ticks
from site_gen.chart_workers import FONT_SETUP, ChartWorkers
from site_gen.eviction import sweep
from site_gen.page import PendingAsset
from site_gen.quantity import ORIGIN_EXPRESSION, Trace, origin_text
from site_gen.static_chart import POINTS_UNIT, canonical_json, static_sha256, static_spec, svg_path
from site_gen.tables import data_cell, html_table, object_frame
from site_gen.templating import url

CHART_WIDTH = 560
CHART_HEIGHT = 260
# Records past which a series chart draws small dots and no range rules: 502 records' ranges on a
# 560-pixel axis were a solid grey wall (each range stays in the tooltip and the table below).
DENSE_SERIES_POINTS = 120
DENSE_RANGES_ALT = " Ranges are in the table, not drawn, at this many records."  # a dense series chart's alt text ends so


@dataclass(frozen=True)
class Series:
    """One line of a chart: its label and its points (x, y, where y comes from)."""

    label: str
    points: Sequence[tuple[float, float, Trace]]


@dataclass(frozen=True)
class Chart:
    """A chart ready to place on a page."""

    id: str  # unique within its page, [a-z0-9-]
    title: str
    alt: str  # a sentence saying what the chart shows, for screen readers and the fallback
    spec: dict  # the Vega-Lite spec (no $schema: nothing in a page names a remote URL)
    table: pd.DataFrame  # the data behind it, with units in the column names
    notes: Sequence[str] = field(default_factory=tuple)  # already-rendered HTML shown under it

    def __post_init__(self) -> None:
        # the id lands in HTML ids and attributes unescaped: make it with escape.anchor()
        if escape.anchor(self.id) != self.id:
            raise ValueError(f"chart id {self.id!r} is not an anchor; build it with escape.anchor()")

    @cached_property
    def static_spec(self) -> dict:
        """The spec its static SVG is drawn from (`static_chart.static_spec`)."""
        return static_spec(self.spec)

    @cached_property  # serialised and hashed once, for the cache key and the file name
    def static_sha256(self) -> str:
        """The hash of `static_spec`, which names the SVG: charts that draw alike (the same
        points from different records: their traces differ) share one file, drawn once."""
        return static_sha256(self.static_spec)


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


# Values spanning this factor or more go on a log axis unless the page chose: on a linear one
# 0.74 and 1.08 tokens/s (20 and 40 GPU layers) lay on one line beside 25.8 (all 81).
WIDE_RANGE = 20


def wide_range(values: Sequence[float]) -> bool:
    """Whether positive `values` span WIDE_RANGE or more (a log axis shows them all apart)."""
    return bool(values) and min(values) > 0 and max(values) / min(values) >= WIDE_RANGE


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


def line_chart(
    chart_id: str,
    title: str,
    series: Sequence[Series],
    *,
    x_title: str,
    y_title: str,
    series_title: str,
    log_x: bool = False,
    log_y: bool | None = None,
    alt_text: str,
    unit: str = "",
    reference: tuple[float, str] | None = None,
) -> Chart:
    """Points joined by lines, one colour per series; log scales on request, and on y where
    `log_y` is None and the values span a wide range (`wide_range`); `reference` (y, label) draws
    a labelled horizontal rule (a ratio's 1x: "no speedup"). The alt text is `alt_text` (a
    sentence saying what is charted against what) and then every drawn point (`points_text`, y
    in `unit`), so a screen reader reads the numbers the chart shows."""
    text = chart_label
    rows = [
        {"x": x, "y": y, "series": text(s.label), "trace": trace.fields(),
         **({"x_trace": x_trace} if (x_trace := trace.x_fields()) else {})}
        for s in series
        for x, y, trace in s.points
        if x is not None and y is not None
    ]
    if rows:
        alt_text = f"{alt_text} {points_text(rows, unit)}."
    if log_y is None:
        log_y = wide_range([r["y"] for r in rows])
        if log_y:  # chosen here, so said here: the page's caller wrote its titles for a linear axis
            y_title, alt_text = f"{y_title}, log scale", f"{alt_text} Log scale."
    x_title, y_title, series_title = text(x_title), text(y_title), text(series_title)
    xs = sorted({r["x"] for r in rows})
    measured_ticks = len(xs) <= MEASURED_TICKS_MAX
    datasets = {"points": rows}
    if reference is not None:
        datasets["reference"] = [{"y": reference[0], "label": text(reference[1])}]
    spec = _filled(_line_template(x_title, y_title, series_title, log_x, log_y, measured_ticks, reference is not None,
                                  legend=len(series) > 1), datasets, {"series": [text(s.label) for s in series], "x_ticks": xs})
    spec["usermeta"] = {**spec.get("usermeta", {}), POINTS_UNIT: unit}
    # built under the shown column names: a rename afterwards cost as much as the frame
    table = object_frame([[r["x"], r["y"], r["series"], origin_text(r["trace"])] for r in rows],
                         [x_title, y_title, series_title, "source"])
    return Chart(chart_id, title, alt_text, spec, table)


# What an SVG is drawn from besides its spec: the fonts, and the static spec's own settings.
_STATIC_SETUP = sha256_hex(f"{FONT_SETUP}; aria off".encode())[:12]
# The names this cache gives its entries (any vl-convert version): the only ones sweep() removes.
_CACHE_NAME = re.compile(r"svg-[0-9A-Za-z.+_]+-[0-9a-f]{12}-[0-9a-f]{64}\.svg|vega-bundle-[0-9A-Za-z.+_]+\.js")
# This vl-convert's and setup's entries: the SVG of a spec is _SVG_KEY + its sha256 + ".svg"
_SVG_KEY = f"svg-{vl_convert.__version__}-{_STATIC_SETUP}-"
_BUNDLE_KEY = f"vega-bundle-{vl_convert.__version__}.js"


class ChartCache:
    """SVG renderings keyed by spec hash, on disk under `cache_dir` (or in memory only), drawn
    by vl-convert worker processes (site_gen/chart_workers.py), which `close()` ends.

    `svg_soon` hands a chart to the workers and returns at once: the pages go on rendering (the
    GIL-bound Python of a cold build) while the workers draw (their own processes), and a
    page's SVG is waited for only when the site's files are collected."""

    def __init__(self, cache_dir: Path | None = None, workers: ChartWorkers | None = None):
        self.cache_dir = cache_dir
        self.workers = workers or ChartWorkers()
        self.rendered = 0  # renderings done by this cache (a warm build does none)
        self._lock = threading.Lock()  # pages render in threads
        self._soon: dict[str, Future] = {}  # by cache key: a chart asked for twice is drawn once

    def svg(self, chart: Chart) -> bytes:
        """The static SVG of `chart`, rendered once per distinct spec (and vl-convert version)."""
        return self.svg_soon(chart).result()

    def svg_soon(self, chart: Chart) -> Future:
        """The static SVG of `chart` (bytes), drawn meanwhile by a worker; the future's error
        is vl-convert's ValueError when it cannot be drawn."""
        return self._soon_made(f"{_SVG_KEY}{chart.static_sha256}.svg", lambda: self.workers.submit(chart.static_spec))

    def vega_bundle(self) -> bytes:
        """vl-convert's self-contained Vega + Vega-Lite + vega-embed script (no CDN)."""
        return self._soon_made(_BUNDLE_KEY, self.workers.submit_bundle).result()

    def _soon_made(self, key: str, ask: Callable[[], Future]) -> Future:
        """The future bytes of cache entry `key`: in memory, on disk, or made by the workers
        (`ask`) once, however many pages ask."""
        with self._lock:
            future = self._soon.get(key)
            if future is not None:
                return future
            future = self._soon[key] = Future()
            data = self._read(key)
            if data is not None:
                future.set_result(data)
                return future
        ask().add_done_callback(lambda made: self._made(key, made, future))
        return future

    def _made(self, key: str, made: Future, future: Future) -> None:
        """Keep what a worker made (on disk too) and complete the entry's future with it."""
        try:
            data = made.result().encode()
            self._write(key, data)
        except BaseException as err:  # vl-convert's ValueError, a dead worker's BuildError, an OSError
            future.set_exception(err)
            return
        if key != _BUNDLE_KEY:
            with self._lock:
                self.rendered += 1
        future.set_result(data)

    def _read(self, key: str) -> bytes | None:
        path = self.cache_dir / key if self.cache_dir else None
        # an entry whose MAC fails (edited, e.g. a beacon added to the Vega bundle) is a miss
        return cache_mac.unseal(path.read_bytes()) if path is not None and path.is_file() else None

    def _write(self, key: str, data: bytes) -> None:
        if self.cache_dir is not None:
            write_atomic(self.cache_dir / key, cache_mac.seal(data), durable=False)

    def sweep(self, site_files: Iterable[str]) -> int:
        """After a successful build whose docs hold `site_files` (docs-relative paths): remove
        the SVGs of charts no page of it shows, those drawn by another vl-convert or setup, and
        other versions' Vega bundles (see site_gen/eviction.py); returns how many. A page the
        render cache gave this build names its charts all the same (assets/charts/<spec sha256
        prefix>.svg), so a page rendered again next time finds each of them here."""
        if self.cache_dir is None or not self.cache_dir.is_dir():
            return 0
        shown = set(site_files)
        keep = {_BUNDLE_KEY}
        with os.scandir(self.cache_dir) as entries:
            keep.update(entry.name for entry in entries if entry.name.startswith(_SVG_KEY)
                        and svg_path(entry.name[len(_SVG_KEY):]) in shown)
        return sweep(self.cache_dir, keep, _CACHE_NAME)

    def close(self) -> None:
        """Stop drawing (charts not begun yet are dropped) and end the worker processes (a later
        rendering starts them again)."""
        self.workers.close()
        with self._lock:  # what did not get made is asked for again next time
            self._soon = {key: f for key, f in self._soon.items() if f.done() and f.exception() is None}


def _script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' survive literally,
    so record text in a spec cannot close the script element."""
    return (
        canonical_json(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )


def chart_html(chart: Chart, page_path: str, cache: ChartCache) -> tuple[str, dict[str, PendingAsset]]:
    """The chart's HTML block for the page at `page_path` and the asset files it needs, their
    bytes still being drawn (`PendingAsset.result` waits for them); a chart vl-convert cannot draw is
    then a BuildError naming the page, the chart and vl-convert's reason."""

    def failed(err: ValueError) -> BuildError:
        reason = next((line.strip() for line in str(err).splitlines()[1:] if line.strip()), str(err).strip())
        return BuildError(f"{page_path}: chart {chart.title!r} (#chart-{chart.id}) cannot be drawn: {reason}. "
                          "Please report it with the record that made it")

    svg = PendingAsset(cache.svg_soon(chart), failed)
    svg_file = svg_path(chart.static_sha256)
    notes = "".join(f'<p class="bl-chart-note">{note}</p>' for note in chart.notes)
    html = (
        f'<div class="bl-chart" id="chart-{chart.id}">\n'
        f'<p class="bl-chart-title">{escape.html(chart.title)}</p>\n'
        f'<div class="bl-chart-view" data-spec="spec-{chart.id}">'
        f'<img src="{url(page_path, svg_file)}" alt="{escape.shown_attr(chart.alt)}" loading="lazy"></div>\n'
        f'<script type="application/json" id="spec-{chart.id}">{_script_json(chart.spec)}</script>\n'
        f"{notes}"
        f'<details class="bl-chart-data"><summary>Data behind this chart</summary>\n'
        f"{html_table(chart.table, cell=data_cell)}\n"
        f"</details>\n"
        f"</div>\n"
    )
    return html, {svg_file: svg}


@dataclass(frozen=True)
class SeriesPoint:
    """One record's number in a series chart: its axis label (unique in the chart), value,
    range (None without one), where the value comes from (shown on hover) and where the range's
    ends come from (`verify --site` checks them too, so a range is drawn only with them)."""

    label: str
    value: float
    low: float | None
    high: float | None
    trace: Trace
    range_trace: tuple[Trace, Trace] | None = None  # (low's, high's)

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None) or (self.low is None) != (self.range_trace is None):
            raise ValueError(f"series point {self.label!r}: give low, high and range_trace together, or none of them")
        if self.range_trace is not None and any(end.sha256 != self.trace.sha256 for end in self.range_trace):
            raise ValueError(f"series point {self.label!r}: a range's ends come from the point's own record")


# A claim's kind on a series chart and its colour, in the light scheme; 4.5:1 on white at least
# (the chart's text is 11 px); each has its lighter one in DARK_COLOURS.
CLAIM_COLOURS = {"worse": "#b3261e", "better": "#1b7f3b", "no change called": "#6b6b6b"}


@dataclass(frozen=True)
class SeriesMark:
    """A claim drawn on a series chart: a vertical rule at the first record after it, in the
    colour of its kind (`CLAIM_COLOURS`), with `label` beside it and `text` (the whole claim)
    in its tooltip."""

    at: str  # label of the first record after the change
    text: str
    kind: str  # a key of CLAIM_COLOURS: a detected change (worse, better) or one looked at, not called
    label: str = ""  # the words beside the rule, short enough for half a phone's chart ("" for `text`)


CLAIM_LINE_PX = 14  # a claim label's line on a series chart: 11 px text and its leading


def series_chart(chart_id: str, title: str, points: Sequence[SeriesPoint], segments: Sequence[tuple[str, str, float]],
                 marks: Sequence[SeriesMark], *, x_title: str, y_title: str, alt_text: str) -> Chart:
    """A metric along a series: each record's value with its range, each segment's median as a
    horizontal rule, and each claim as a vertical rule at its first record after the change."""
    text = chart_label
    x_title, y_title = text(x_title), text(y_title)
    rows = [{"label": text(p.label), "value": p.value, "low": p.low, "high": p.high,
             "trace": p.trace.fields(),
             **({"low_trace": p.range_trace[0].range_fields(), "high_trace": p.range_trace[1].range_fields()} if p.range_trace else {})}
            for p in points]
    order = [row["label"] for row in rows]
    ticks = series_ticks(order)
    datasets = {"points": rows}
    if segments:
        datasets["segments"] = [{"first": text(a), "last": text(b), "median": m} for a, b, m in segments]
    if marks:
        # a label runs from its rule toward the wider side of the plot, or one near the last
        # records ran past the plot, widening the SVG (a phone then scaled all its text down)
        position = {label: i for i, label in enumerate(order)}
        # and each claim's label takes the next of three lines from the top: two changes a
        # record apart wrote their labels over each other ("worse+13.4%")
        datasets["claims"] = [{"at": text(m.at), "text": m.label or m.text, "claim": m.text, "kind": m.kind,
                               "side": "right" if 2 * position.get(text(m.at), 0) >= len(order) else "left",
                               "line_px": 8 + CLAIM_LINE_PX * (k % 3)}
                              for k, m in enumerate(sorted(marks, key=lambda m: position.get(text(m.at), 0)))]
    has_ranges = any(row["low"] is not None for row in rows)
    dense = len(rows) > DENSE_SERIES_POINTS
    if dense and has_ranges:
        alt_text += DENSE_RANGES_ALT
    spec = _filled(_series_template(x_title, y_title, bool(segments), bool(marks), len(ticks) < len(order), has_ranges, dense),
                   datasets, {"order": order, "ticks": ticks})
    table = object_frame([[r["label"], r["value"], r["low"], r["high"], origin_text(r["trace"])] for r in rows],
                         [x_title, y_title, "minimum", "maximum", "source"])
    return Chart(chart_id, title, alt_text, spec, table)


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
