"""Charts: specs without remote references, SVG renderings cached by spec hash (an unchanged
chart is never rendered twice, across builds too), script-safe embedded specs."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
import vl_convert

from benchledger.errors import BuildError
from site_gen.chart_labels import chart_label, points_text
from site_gen.charts import Chart, ChartCache, Series, SeriesMark, SeriesPoint, chart_html, line_chart, series_chart
from site_gen.page import Page
from site_gen.quantity import Trace
from site_gen.static_chart import static_spec

SHA = "ab" * 32


def at(pointer: str) -> Trace:
    """A point's trace: `pointer` in a record whose sha256 is SHA."""
    return Trace(SHA, pointer)


def svg_of(made: Chart, tmp_path) -> str:
    """The static SVG vl-convert draws for `made` (a cache of its own, closed after)."""
    cache = ChartCache(tmp_path)
    try:
        return cache.svg(made).decode()
    finally:
        cache.close()


def chart(label: str = "a</script><b>") -> Chart:
    return line_chart("c", "Title", [Series(label, [(1, 2.0, at("/x/0")), (4, 8.0, at("/x/1"))])],
                      x_title="tokens", y_title="ms", series_title="path", log_x=True, alt_text="alt text")


def test_spec_names_no_remote_url():
    spec = chart().spec
    assert "$schema" not in spec
    assert not re.search(r"https?://", json.dumps(spec))
    assert [layer["encoding"]["x"]["scale"]["type"] for layer in spec["layer"]] == ["log", "log"]


def test_a_log_axis_is_ticked_at_the_measured_lengths_and_ends_at_the_data(tmp_path):
    """Graph replay's token lengths on a log axis: labelled 64, 512, 4,096, not 100 and 1,000,
    and the axis stops at 4,096 instead of running on to 10,000."""
    lengths = (64, 512, 4096)
    series = [Series(path, [(n, ms * n, at(f"/{path}/{i}")) for i, n in enumerate(lengths)]) for path, ms in (("eager", 2.0), ("graph", 1.0))]
    made = line_chart("r", "Replay", series, x_title="tokens", y_title="ms", series_title="path", log_x=True, alt_text="alt")
    svg = svg_of(made, tmp_path)
    ticks = re.findall(r">([\d,]+)</text>", svg[:svg.index(">tokens</text>")])
    assert ticks[-3:] == ["64", "512", "4,096"], ticks
    assert "10,000" not in ticks and "100" not in ticks


def test_a_ratio_chart_draws_its_one_as_a_labelled_rule_inside_its_axis(tmp_path):
    """Graph replay's speedup fell to 1.00x from 16,384 tokens on, and nothing on the chart said
    where "no speedup" was; a ratio that stays above 3 still has its 1x in view."""
    series = [Series("eager / graph", [(322, 4.04, at("/m/0")), (1024, 3.1, at("/m/1"))])]
    made = line_chart("s", "Speedup", series, x_title="tokens", y_title="speedup (×)", series_title="ratio",
                      log_x=True, alt_text="alt", reference=(1.0, "1× (no speedup)"))
    assert made.spec["datasets"]["reference"] == [{"y": 1.0, "label": "1× (no speedup)"}]
    svg = svg_of(made, tmp_path)
    assert "1× (no speedup)</text>" in svg
    ticks = re.findall(r">([\d.]+)</text>", svg[:svg.index(">speedup (×)</text>")])
    assert "1.0" in ticks or "1" in ticks, ticks
    assert "reference" not in chart().spec["datasets"]  # only where the page asks for one


def test_values_spanning_twenty_times_go_on_a_log_axis_that_says_so(tmp_path):
    """Decode speed at 20, 40 and 81 GPU layers (0.738, 1.08, 25.8 tokens/s): on a linear axis
    the first two lay on one line at the bottom; on a log axis each step shows, and the axis
    ends near the data instead of at 0.1 and 100."""
    series = [Series("context 2048", [(20, 0.738, at("/c/2")), (40, 1.08, at("/c/1")), (81, 25.8, at("/c/0"))])]
    made = line_chart("d", "Decode", series, x_title="GPU layers", y_title="speed (tokens/s)", series_title="context",
                      alt_text="Speed.")
    (y_scale,) = {json.dumps(layer["encoding"]["y"]["scale"]) for layer in made.spec["layer"]}
    assert json.loads(y_scale)["type"] == "log"
    assert {layer["encoding"]["y"]["title"] for layer in made.spec["layer"]} == {"speed (tokens/s), log scale"}
    assert made.alt == "Speed. context 2048: 20 → 0.738, 40 → 1.08, 81 → 25.8. Log scale."
    svg = svg_of(made, tmp_path)
    ticks = re.findall(r">([\d.]+)</text>", svg[:svg.index("log scale</text>")])
    assert "1" in ticks and "10" in ticks and "0.1" not in ticks and "100" not in ticks, ticks
    # a narrow range, a zero, or the page's own choice stay linear
    for values, chosen in (((1.0, 19.9), None), ((0.0, 25.8), None), ((0.738, 25.8), False)):
        flat = line_chart("f", "F", [Series("s", [(i, v, at(f"/{i}")) for i, v in enumerate(values)])], x_title="x",
                          y_title="y", series_title="s", log_y=chosen, alt_text="a")
        assert "type" not in flat.spec["layer"][0]["encoding"]["y"]["scale"], values


def test_one_line_has_no_legend_and_two_have_one(tmp_path):
    """A speedup chart's legend said "ratio: eager / graph" beside its one line, the title and
    y axis already naming it."""
    one = chart("eager / graph")
    assert all(layer["encoding"]["color"].get("legend", {}) is None for layer in one.spec["layer"] if "color" in layer["encoding"])
    assert "eager / graph</text>" not in svg_of(one, tmp_path)
    two = layers_chart()
    assert not any(layer["encoding"]["color"].get("legend", {}) is None for layer in two.spec["layer"] if "color" in layer["encoding"])
    assert "context 2048</text>" in svg_of(two, tmp_path)


def layers_chart() -> Chart:
    """GPU layers as the seed measured them: two series whose values coincide at 81 layers."""
    series = [Series(f"context {c}", [(20, 6.0 + k, at(f"/cases/2/groups/{k}")), (40, 6.0 + k, at(f"/cases/1/groups/{k}")),
                                      (81, 100.0, at(f"/cases/0/groups/{k}"))]) for k, c in enumerate((2048, 8192))]
    return line_chart("u", "GPU utilisation", series, x_title="GPU layers", y_title="%", series_title="context", alt_text="alt")


def test_a_few_measured_x_values_are_the_axis_ticks(tmp_path):
    spec = layers_chart().spec
    assert {json.dumps(layer["encoding"]["x"]["axis"]["values"]) for layer in spec["layer"]} == {"[20, 40, 81]"}
    svg = svg_of(layers_chart(), tmp_path)
    ticks = re.findall(r">(\d+)</text>", svg[:svg.index("GPU layers")])
    assert ticks[-3:] == ["20", "40", "81"], ticks  # not 20, 25, 30 ... 85


def test_each_series_has_its_own_dash_and_point_shape_shown_in_one_legend(tmp_path):
    spec = layers_chart().spec
    lines, points = spec["layer"]
    assert lines["mark"]["type"] == "line" and lines["encoding"]["strokeDash"]["field"] == "series"
    assert points["mark"]["type"] == "point" and points["encoding"]["shape"]["field"] == "series"
    svg = svg_of(layers_chart(), tmp_path)
    assert len(set(re.findall(r'stroke-dasharray="([^"]*)"', svg))) >= 1  # the second series is dashed
    assert svg.count(">context 2048</text>") == svg.count(">context 8192</text>") == 1  # one legend
    symbols = re.findall(r'role-legend-symbol"[^>]*><path transform="[^"]*" d="([^"]*)"[^>]*stroke-dasharray="([^"]*)"', svg)
    assert len(symbols) == 2, symbols
    (shape_a, dash_a), (shape_b, dash_b) = symbols
    assert shape_a != shape_b and dash_a != dash_b  # the legend shows each series' point shape and dash


def test_title_shown_once_above_the_chart_not_inside_it(tmp_path):
    html, _ = chart_html(chart(), "x.md", ChartCache(tmp_path))
    assert "title" not in chart().spec
    assert html.count(">Title<") == 1 and '<p class="bl-chart-title">Title</p>' in html


def test_svg_rendered_once_per_spec_across_caches(tmp_path):
    first = ChartCache(tmp_path)
    svg = first.svg(chart())
    assert svg.startswith(b"<svg") and first.rendered == 1
    first.svg(chart())
    assert first.rendered == 1
    second = ChartCache(tmp_path)  # a later build with the same cache dir
    assert second.svg(chart()) == svg and second.rendered == 0
    second.svg(chart("other"))
    assert second.rendered == 1


def test_pages_asking_for_one_chart_at_once_get_it_drawn_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    cache = ChartCache(tmp_path)
    try:
        with ThreadPoolExecutor(6) as threads:
            drawn = list(threads.map(lambda _: cache.svg(chart()), range(6)))
    finally:
        cache.close()
    assert cache.rendered == 1 and len(set(drawn)) == 1


def test_chart_html_has_fallback_alt_data_table_and_safe_spec(tmp_path):
    html, assets = chart_html(chart(), "articles/x/y.md", ChartCache(tmp_path))
    (path, svg), = assets.items()
    assert path.startswith("assets/charts/") and svg.result().startswith(b"<svg")
    assert f'src="../../{path}"' in html and 'alt="alt text a&lt;/script&gt;&lt;b&gt;: 1 → 2.00, 4 → 8.00."' in html
    assert "Data behind this chart" in html and "&lt;/script&gt;" in html
    embedded = re.search(r'<script type="application/json" id="spec-c">(.*?)</script>', html, re.S).group(1)
    assert "</" not in embedded
    assert json.loads(embedded)["datasets"]


def drawn(chart: Chart) -> tuple[int, list[str]]:
    """(point symbols, texts) of the chart's static SVG."""
    cache = ChartCache(None)
    try:
        svg = cache.svg(chart).decode()
    finally:
        cache.close()
    assert "aria-label" not in svg  # an <img>: its alt text speaks for it (the live chart keeps ARIA)
    symbols = re.findall(r'<g class="mark-symbol role-mark[^"]*"[^>]*>(.*?)</g>', svg, re.S)
    return sum(group.count("<path") for group in symbols), re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def series(n: int) -> Chart:
    from site_gen.charts import SeriesMark, SeriesPoint, series_chart

    points = [SeriesPoint(f"b{i}", 10.0 + i % 5, 9.5 + i % 5, 10.5 + i % 5, Trace(f"{i:064x}", "/x"), (Trace(f"{i:064x}", "/lo"), Trace(f"{i:064x}", "/hi")))
              for i in range(n)]
    return series_chart("track-0", "decode", points, [("b0", f"b{n - 1}", 11.5)], [SeriesMark("b2", "-12% [-14%, -10%], changed, worse", "worse", "-12%, worse")],
                        x_title="release", y_title="tokens/s", alt_text="a")


def test_specs_are_filled_templates_that_draw_every_point_from_their_datasets():
    """Specs come from one Altair template per chart shape, data filled in: every point, claim
    and label must still reach the drawing, and no placeholder the page."""
    for chart_ in (chart(), series(4), series(40)):
        assert "benchledger-placeholder" not in json.dumps(chart_.spec)
    two = line_chart("c", "Title", [Series("a</script><b>", [(1, 2.0, at("/x/0")), (4, 8.0, at("/x/1"))]), Series("c", [(1, 3.0, at("/y/0"))])],
                     x_title="tokens", y_title="ms", series_title="path", log_x=True, alt_text="alt text")
    points, texts = drawn(two)
    assert points == 3 and "a&lt;/script&gt;&lt;b&gt;" in texts  # the legend names the series (XML-escaped)
    points, texts = drawn(series(4))
    assert points == 4 and {"b0", "b1", "b2", "b3", "-12%, worse", "release", "tokens/s"} <= set(texts)
    assert list(series(4).table.columns) == ["release", "tokens/s", "minimum", "maximum", "source"]


def test_claims_a_record_apart_write_their_labels_on_different_lines(tmp_path):
    """Changes at b3 and b4 of five records: both labels ran left from their rules at the same
    height and were drawn over each other ("worse+13.4%")."""
    from site_gen.charts import SeriesMark, SeriesPoint, series_chart

    points = [SeriesPoint(f"b{i}", 10.0 + i, 9.5 + i, 10.5 + i, Trace(f"{i:064x}", "/x"), (Trace(f"{i:064x}", "/lo"), Trace(f"{i:064x}", "/hi")))
              for i in range(5)]
    made = series_chart("t", "decode", points, [], [SeriesMark("b4", "+13.4%, changed, better", "better", "+13.4%, better"), SeriesMark("b3", "-7.6%, changed, worse", "worse", "-7.6%, worse")],
                        x_title="release", y_title="tokens/s", alt_text="a")
    svg = svg_of(made, tmp_path)

    def label_y(text: str) -> float:
        tag = re.search(rf'<text[^>]*transform="translate\(([\d.]+),([\d.]+)\)"[^>]*>{re.escape(text)}</text>', svg)
        assert tag, text
        return float(tag.group(2))

    assert abs(label_y("-7.6%, worse") - label_y("+13.4%, better")) >= 11  # a line of 11 px text apart
    # each in the colour of its kind: a gain was drawn in the same red as a loss
    fills = {text: fill for fill, text in re.findall(r'<text[^>]*fill="(#[0-9a-f]+)"[^>]*>([^<]*)</text>', svg)}
    assert (fills["-7.6%, worse"], fills["+13.4%, better"]) == ("#b3261e", "#1b7f3b")


def test_a_long_series_labels_at_most_24_of_its_records_and_draws_them_all():
    points, texts = drawn(series(100))
    labels = [t for t in texts if re.fullmatch(r"b\d+", t)]
    assert points == 100 and 0 < len(labels) <= 24 and "b0" in labels
    assert drawn(series(24))[1].count("b23") == 1  # up to 24, every record is labelled


def test_text_xml_cannot_hold_renders_instead_of_aborting_the_process(tmp_path):
    """Issue 11, keep going: a NUL (or another character XML 1.0 cannot hold) in a chart's
    titles or labels made vl-convert panic and abort the whole build, with no message. Run in
    a process of its own, so that an abort fails this test instead of ending the suite."""
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    code = (
        "import sys\n"
        "from site_gen.charts import ChartCache, Series, line_chart\n"
        "from tests.site_gen.test_charts import at\n"
        "c = line_chart('c', 'T', [Series('a\\x00b\\x01\\ufffe', [(1, 2.0, at('/x/0')), (4, 8.0, at('/x/1'))]), Series('c', [(1, 3.0, at('/y/0'))])],\n"
        "               x_title='x\\x00', y_title='\\x1f y', series_title='s\\x0b', alt_text='alt')\n"
        "sys.stdout.buffer.write(ChartCache(None).svg(c))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-500:]
    svg = ET.fromstring(done.stdout)  # well-formed XML
    texts = " ".join(t.text or "" for t in svg.iter() if t.tag.endswith("text"))
    # controls are shown as their code points (escape.chart_text), U+FFFE as U+FFFD (escape.xml_chars)
    assert "a[U+0000]b[U+0001]\ufffd" in texts and "x[U+0000]" in texts


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\n", "\r"])
def test_a_line_separator_in_labels_and_titles_draws_both_charts(separator):
    """Vega-Lite writes labels (as a sort order) and titles (as tooltip keys) into Vega
    expressions without escaping JavaScript's line terminators (U+2028, U+2029, a newline, a
    return), which end a line there: a record label or axis name holding one failed the build.
    Each is shown as a space, in the data the labels sort too."""
    line = line_chart("c", "T", [Series(f"a{separator}b", [(1, 2.0, at("o"))]), Series("c", [(1, 3.0, at("o"))])],
                      x_title=f"x{separator}", y_title="y", series_title=f"s{separator}", alt_text="a")
    series = series_chart("s", "T", [SeriesPoint(f"r{separator}1", 1.0, None, None, at("o")), SeriesPoint("r2", 2.0, 1.5, 2.5, at("o"), (at("l"), at("h")))],
                          [(f"r{separator}1", "r2", 1.5)], [SeriesMark("r2", "t", True)],
                          x_title=f"x{separator}", y_title="y", alt_text="a")
    cache = ChartCache(None)
    try:
        for chart in (line, series):
            vl_convert.vegalite_to_vega(chart.spec)  # the live chart compiles, as the browser's Vega-Lite does
            svg = ET.fromstring(cache.svg(chart))
            texts = [t.text or "" for t in svg.iter() if t.tag.endswith("text")]
            assert not any(separator in t for t in texts)
    finally:
        cache.close()
    assert [r["series"] for r in line.spec["datasets"]["points"]] == ["a b", "c"]
    assert [r["label"] for r in series.spec["datasets"]["points"]] == ["r 1", "r2"]


def test_a_chart_vl_convert_cannot_draw_is_a_build_error_naming_page_and_chart(tmp_path):
    bad = Chart("c-1", "Decode rate", "alt", {"mark": "no-such-mark"}, chart().table)
    cache = ChartCache(tmp_path)
    try:
        html, assets = chart_html(bad, "articles/x.md", cache)  # drawn meanwhile: no error yet
        page = Page("articles/x.md", "x", html, assets)
        with pytest.raises(BuildError) as err:
            page.finished()
    finally:
        cache.close()
    message = str(err.value)
    assert message.startswith("articles/x.md: chart 'Decode rate' (#chart-c-1) cannot be drawn: ")
    with pytest.raises(ValueError) as here:
        vl_convert.vegalite_to_svg(bad.spec)
    reason = str(here.value).splitlines()[1].strip()  # vl-convert's own words, without its stack
    assert message.endswith(f"cannot be drawn: {reason}. Please report it with the record that made it")
    assert "\n" not in message


def test_alt_text_writes_the_x_values_as_pages_write_numbers():
    """An alt text read "32768 -> 705 ms" beside "32,768 tokens" in the headline (and `:g` would
    write a million as "1e+06")."""
    series = [Series("eager", [(322, 19.0, at("/a")), (32768, 704.59, at("/b")), (1e6, 0.5, at("/c"))])]
    made = line_chart("c", "T", series, x_title="tokens", y_title="ms", series_title="path", alt_text="Time.", unit="ms", log_y=False)
    assert made.alt == "Time. eager: 322 → 19.0\u202fms, 32,768 → 705\u202fms, 1,000,000 → 0.500\u202fms."


def test_alt_text_lists_the_drawn_points_as_the_spec_holds_them():
    """The alt text's points are made from the chart's data rows, so `verify --site` makes them
    again from a page's spec: after a JSON round trip (4096.0 and 4096 alike), series by series,
    points without a value left out as the chart leaves them, labels as the legend draws them."""
    long_label = "a" * 120
    series = [Series(long_label, [(4096.0, 2.5, at("/a")), (8192, None, at("/b"))]),
              Series("b", [(1, 1048576, at("/c")), (2, 3.0, at("/d"))])]
    made = line_chart("c", "T", series, x_title="x", y_title="y", series_title="s", alt_text="Lead.", unit="B", log_y=False)
    rows = json.loads(json.dumps(made.spec))["datasets"]["points"]
    assert made.spec["usermeta"]["pointsUnit"] == "B"
    assert made.alt == f"Lead. {points_text(rows, 'B')}."
    assert made.alt == (f"Lead. {chart_label(long_label)}: 4,096 → 2\u202fB; b: 1 → 1.00\u202fMiB, 2 → 3\u202fB.")
    assert "pointsUnit" not in json.dumps(static_spec(made.spec))


def test_a_spec_names_the_dark_schemes_colour_for_each_colour_it_uses():
    """On slate the page swaps each colour a spec names for a lighter one the spec carries; the
    page held a copy of that table of its own, which a new colour would have missed."""
    from site_gen.chart_specs import CLAIM_COLOURS, DARK_COLOURS

    marked = series(4).spec
    assert marked["usermeta"]["darkColours"] == {c: DARK_COLOURS[c] for c in DARK_COLOURS if f'"{c}"' in json.dumps(marked)}
    assert set(CLAIM_COLOURS.values()) <= set(marked["usermeta"]["darkColours"])
    ruled = line_chart("c", "T", [Series("a", [(1, 2.0, at("/x/0")), (4, 8.0, at("/x/1"))])], x_title="x", y_title="y",
                       series_title="s", alt_text="a", reference=(1.0, "1x"))
    assert ruled.spec["usermeta"]["darkColours"] == {"#666666": DARK_COLOURS["#666666"]}
    plain = line_chart("c", "T", [Series("a", [(1, 2.0, at("/x/0")), (4, 8.0, at("/x/1"))])], x_title="x", y_title="y",
                       series_title="s", alt_text="a")
    assert plain.spec["usermeta"] == {"pointsUnit": ""}


def test_a_long_series_draws_small_dots_without_range_rules_and_says_so():
    """502 records' ranges on a 560-pixel axis drew a solid grey wall: past DENSE_SERIES_POINTS
    the chart draws small dots only; the ranges stay in its data (tooltip, table behind it)."""
    from site_gen.chart_specs import DENSE_SERIES_POINTS

    def rules(spec: dict) -> list:
        return [layer for layer in spec["layer"] if (layer.get("mark") or {}).get("type") == "rule"
                and "y2" in layer.get("encoding", {})]

    short, long = series(DENSE_SERIES_POINTS), series(DENSE_SERIES_POINTS + 1)
    assert len(rules(short.spec)) == 1 and "Ranges are in the table" not in short.alt
    assert rules(long.spec) == [] and long.alt.endswith("Ranges are in the table, not drawn, at this many records.")
    assert all(row["low"] is not None for row in long.spec["datasets"]["points"])  # still in the data
    assert list(long.table["minimum"]) == [9.5 + i % 5 for i in range(DENSE_SERIES_POINTS + 1)]


def test_long_record_text_is_cut_in_chart_labels_and_cut_labels_stay_apart():
    """A 300,000-character setting became a legend entry that vl-convert measured for over 15
    minutes; labels past MAX_LABEL_CHARS are cut, each with a digest of its whole text."""
    from site_gen.chart_labels import MAX_LABEL_CHARS, chart_label

    long_a, long_b = "a" * 300_000, "a" * 299_999 + "b"
    assert len(chart_label(long_a)) == MAX_LABEL_CHARS and chart_label(long_a) != chart_label(long_b)
    assert chart_label("b11146") == "b11146"
    two = line_chart("c", "T", [Series(long_a, [(1, 2.0, at("/x/0"))]), Series(long_b, [(1, 3.0, at("/y/0"))])],
                     x_title="tokens", y_title="ms", series_title="setting", alt_text="alt")
    labels = {row["series"] for row in two.spec["datasets"]["points"]}
    assert len(labels) == 2 and all(len(label) == MAX_LABEL_CHARS for label in labels)


_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x2FF), min_size=1, max_size=12)
_TRACES = st.one_of(
    st.builds(lambda p, u: Trace(SHA, p, unit=u), st.one_of(st.just(""), _TEXT.map(lambda t: "/" + t)), st.one_of(st.just(""), _TEXT)),
    st.builds(lambda f, names: Trace(SHA, None, formula=f, inputs=tuple((n, f"/{n}") for n in names)),
              _TEXT, st.lists(_TEXT, max_size=2)),
)


_JS_WHITE_SPACE = " \t\n\v\f\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


@settings(max_examples=20, deadline=None)
@given(st.lists(_TRACES, min_size=1, max_size=12))
@example([Trace(SHA, None, formula="\xa0", inputs=(("\x85", "/\x85"), ("a\xa0", "/a\xa0")))])  # found by hypothesis
def test_a_tooltip_s_source_is_what_origin_text_writes(traces):
    """A chart point's source is made by Vega, in the browser, from its trace
    (`quantity.ORIGIN_EXPRESSION`); the table behind the chart and `verify --site` spell it with
    `quantity.origin_text`. Vega itself (vl-convert's) evaluates the expression over traces of every
    kind, a record's pointer ("" included), with a unit, a formula and its inputs, to the same text."""
    from site_gen.quantity import ORIGIN_EXPRESSION, origin_text

    rows = [{"i": i, "trace": t.fields()} for i, t in enumerate(traces)]
    spec = {"data": {"values": rows}, "transform": [{"calculate": ORIGIN_EXPRESSION, "as": "origin"}],
            "mark": {"type": "text", "align": "left"}, "encoding": {"y": {"field": "i", "type": "ordinal", "axis": None},
                                                                    "text": {"field": "origin"}}, "width": 20}
    drawn = ET.fromstring(vl_convert.vegalite_to_svg(spec))
    texts = [el.text for el in drawn.iter("{http://www.w3.org/2000/svg}text")]
    # the SVG drops a text's trailing white space ("· pointer " of the pointer ""), as JavaScript's
    # trim() reads it: a no-break space is, a next-line ("\x85", to Python's rstrip) is not
    assert texts == [origin_text(t.fields()).rstrip(_JS_WHITE_SPACE) for t in traces]


_RECORD_TEXT = st.text(max_size=90)  # any text a record can name an axis, a series or a unit by


@settings(max_examples=25, deadline=None)
@given(titles=st.lists(_RECORD_TEXT, min_size=3, max_size=3), labels=st.lists(_RECORD_TEXT, min_size=1, max_size=3),
       xs=st.lists(st.floats(0.5, 1e6), min_size=1, max_size=14), log_x=st.booleans(), log_y=st.sampled_from([None, False, True]),
       unit=_RECORD_TEXT, reference=st.booleans())
def test_a_line_chart_s_spec_is_what_verify_rebuilds_from_its_data_and_titles(titles, labels, xs, log_x, log_y, unit, reference):
    """`verify --site` holds each chart's spec to the one `chart_specs.rebuilt_spec` makes of the
    spec's own rows, titles, legend order, log axes and unit: every line chart benchledger writes,
    whatever its record's text, is that spec again once on a page (a JSON round trip)."""
    from site_gen.chart_specs import rebuilt_spec
    from site_gen.static_chart import canonical_json

    x_title, y_title, series_title = titles
    series = [Series(label, [(x, x * (i + 1), Trace(SHA, f"/x/{i}")) for x in xs]) for i, label in enumerate(labels)]
    made = line_chart("c", "t", series, x_title=x_title, y_title=y_title, series_title=series_title, log_x=log_x, log_y=log_y,
                      alt_text="a", unit=unit, reference=(1.0, series_title) if reference else None)
    on_page = json.loads(json.dumps(made.spec))
    assert canonical_json(rebuilt_spec(on_page)) == canonical_json(made.spec)


@settings(max_examples=25, deadline=None)
@given(titles=st.lists(_RECORD_TEXT, min_size=2, max_size=2), count=st.integers(1, 130), ranged=st.booleans(),
       claim=st.one_of(st.none(), _RECORD_TEXT))
def test_a_series_chart_s_spec_is_what_verify_rebuilds_from_its_data_and_titles(titles, count, ranged, claim):
    """The same for a series chart, with or without ranges, segments and claims, thinned ticks
    and small dots past DENSE_SERIES_POINTS records."""
    from site_gen.chart_specs import rebuilt_spec
    from site_gen.static_chart import canonical_json

    points = [SeriesPoint(f"{titles[0]} {i}", 10.0 + i % 5, *((9.5, 10.5) if ranged else (None, None)), Trace(SHA, "/x"),
                          (Trace(SHA, "/lo"), Trace(SHA, "/hi")) if ranged else None) for i in range(count)]
    marks = [SeriesMark(points[-1].label, claim, "worse")] if claim is not None else []
    segments = [(points[0].label, points[-1].label, 11.0)] if claim is not None else []
    made = series_chart("track-0", "t", points, segments, marks, x_title=titles[0], y_title=titles[1], alt_text="a")
    on_page = json.loads(json.dumps(made.spec))
    assert canonical_json(rebuilt_spec(on_page)) == canonical_json(made.spec)
