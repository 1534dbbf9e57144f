"""Charts: Vega-Lite specs (made by site_gen.chart_specs), drawn interactively in the browser by
the Vega bundle the site serves itself, with a static SVG fallback, alt text and the data table
behind each chart.

SVG renderings (and the Vega bundle) are cached on disk by the hash of what produced them, so
an unchanged chart is never rendered twice across builds."""

from __future__ import annotations

import os
import re
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import pandas as pd
import vl_convert

from benchledger.atomic import write_atomic
from benchledger.errors import BuildError
from benchledger.records import cache_mac
from benchledger.records.digest import sha256_hex
from site_gen import escape
from site_gen.chart_labels import LOG_SCALE, chart_label, numbered, points_text
from site_gen.chart_specs import DENSE_RANGES_ALT, line_spec, ranges_undrawn, series_spec
from site_gen.chart_workers import FONT_SETUP, ChartWorkers
from site_gen.eviction import sweep
from site_gen.page import PendingAsset
from site_gen.quantity import Trace, origin_text
from site_gen.static_chart import canonical_json, static_sha256, static_spec, svg_path
from site_gen.tables import data_cell, html_table, object_frame
from site_gen.templating import url


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


# Values spanning this factor or more go on a log axis unless the page chose: on a linear one
# 0.74 and 1.08 tokens/s (20 and 40 GPU layers) lay on one line beside 25.8 (all 81).
WIDE_RANGE = 20


def wide_range(values: Sequence[float]) -> bool:
    """Whether positive `values` span WIDE_RANGE or more (a log axis shows them all apart)."""
    return bool(values) and log_drawable(values) and max(values) / min(values) >= WIDE_RANGE


def log_drawable(values: Iterable[float]) -> bool:
    """Whether a log axis can place every one of `values`: none is 0 or less (Vega draws such a
    point at the axis' far end, with no ticks, as if it were the largest)."""
    return all(value > 0 for value in values)


def log_y_drawable(series: Sequence[Series]) -> bool:
    """Whether a log y axis can place every point `series` draws (`log_drawable`): what a page
    that prefers one asks `line_chart` for."""
    return log_drawable(y for s in series for _, y, _ in s.points if y is not None)


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
    labels = numbered(text(s.label) for s in series)  # two tests alike in a record: two lines, not one zigzag
    rows = [
        {"x": x, "y": y, "series": label, "trace": trace.fields(),
         **({"x_trace": x_trace} if (x_trace := trace.x_fields()) else {})}
        for s, label in zip(series, labels)
        for x, y, trace in s.points
        if x is not None and y is not None
    ]
    if rows:
        alt_text = f"{alt_text} {points_text(rows, unit)}."
    rule = [reference[0]] if reference is not None else []
    for axis, log, values in (("x", log_x, [r["x"] for r in rows]), ("y", log_y, [r["y"] for r in rows] + rule)):
        if log and not log_drawable(values):  # callers ask for a log axis only where `log_drawable`
            raise ValueError(f"a log {axis} axis cannot place {axis} values of 0 or less (chart {chart_id})")
    if log_y is None:
        log_y = wide_range([r["y"] for r in rows]) and log_drawable(rule)
        if log_y:  # chosen here, so said here: the page's caller wrote its titles for a linear axis
            y_title, alt_text = f"{y_title}{LOG_SCALE}", f"{alt_text} Log scale."
    x_title, y_title, series_title = text(x_title), text(y_title), text(series_title)
    datasets = {"points": rows}
    if reference is not None:
        datasets["reference"] = [{"y": reference[0], "label": text(reference[1])}]
    spec = line_spec(datasets, x_title=x_title, y_title=y_title, series_title=series_title,
                     series=labels, log_x=log_x, log_y=log_y, unit=unit)
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


@dataclass(frozen=True)
class SeriesMark:
    """A claim drawn on a series chart: a vertical rule at the first record after it, in the
    colour of its kind (`chart_specs.CLAIM_COLOURS`), with `label` beside it and `text` (the whole claim)
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
    if ranges_undrawn(rows):
        alt_text += DENSE_RANGES_ALT
    spec = series_spec(datasets, x_title=x_title, y_title=y_title)
    table = object_frame([[r["label"], r["value"], r["low"], r["high"], origin_text(r["trace"])] for r in rows],
                         [x_title, y_title, "minimum", "maximum", "source"])
    return Chart(chart_id, title, alt_text, spec, table)
