"""vl-convert worker processes: each caller gets its own chart, drawn with vl-convert's
bundled fonts only; errors carried back, a dead worker replaced, every process ended."""

import json
import os
import re
import signal
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import vl_convert
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.errors import BuildError
from site_gen.chart_workers import ChartWorkers, ShapeCompiler


def spec(n: int) -> dict:
    return {"data": {"values": [{"x": i, "y": i * n} for i in range(5)]}, "mark": "line",
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative", "title": f"chart {n}"}}}


@pytest.fixture
def workers():
    pool = ChartWorkers(2)
    yield pool
    pool.close()


def texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter() if t.tag.endswith("text")]


def test_many_threads_each_get_their_own_chart(workers):
    with ThreadPoolExecutor(6) as threads:
        drawn = list(threads.map(lambda n: workers.svg(spec(n)), range(12)))
    # the same marks and words as vl-convert here draws (positions follow the fonts: see below)
    assert [texts(svg) for svg in drawn] == [texts(vl_convert.vegalite_to_svg(spec(n))) for n in range(12)]
    assert all(f"chart {n}" in texts(svg) for n, svg in enumerate(drawn))
    assert len(workers._all) == 2  # grown to the limit, not past it


def test_workers_load_no_system_font_and_draw_the_same_bytes_each_time(workers):
    first = workers.svg(spec(3))
    (worker,) = workers._all
    env = Path(f"/proc/{worker.process.pid}/environ").read_bytes().split(b"\0")
    conf = next(v for v in env if v.startswith(b"FONTCONFIG_FILE=")).split(b"=", 1)[1].decode()
    (folder,) = re.findall(r"<dir>(.*)</dir>", Path(conf).read_text())
    assert list(Path(folder).iterdir()) == []  # fontdb finds no font file: only vl-convert's own
    again = ChartWorkers(1)
    try:
        assert again.svg(spec(3)) == first
    finally:
        again.close()


def test_an_invalid_spec_is_vl_convert_s_error_and_the_pool_goes_on(workers):
    with pytest.raises(ValueError) as err:
        workers.svg({"mark": "no-such-mark"})
    with pytest.raises(ValueError) as here:
        vl_convert.vegalite_to_svg({"mark": "no-such-mark"})
    assert str(err.value) == str(here.value)
    assert workers.svg(spec(1)) == vl_convert.vegalite_to_svg(spec(1))


def named(rows: list[dict], title: str = "y", ticks: list | None = None) -> dict:
    """A chart reading the named dataset "points", as the site's charts do, its x axis labelled
    at `ticks` where given (the site's charts label at most a few measured values so)."""
    x = {"field": "x", "type": "quantitative", "scale": {"type": "log"}}
    return {"data": {"name": "points"}, "datasets": {"points": rows}, "mark": {"type": "line", "point": True},
            "encoding": {"x": {**x, "axis": {"values": ticks}} if ticks is not None else x,
                         "y": {"field": "y", "type": "quantitative", "title": title},
                         "color": {"field": "series", "type": "nominal", "sort": ["b", "a"]}}}


def test_charts_of_one_shape_are_drawn_from_its_vega_with_vega_lite_s_bytes():
    compiler = ShapeCompiler()
    for n in range(1, 4):
        rows = [{"x": 2 ** i, "y": i * n + 0.5, "series": "ab"[i % 2]} for i in range(1, 6)]
        assert compiler.svg(named(rows)) == vl_convert.vegalite_to_svg(named(rows))
    assert compiler.svg(named(rows, "other")) == vl_convert.vegalite_to_svg(named(rows, "other"))
    # two shapes (the title differs), each compiled without rows and used for its charts
    assert [template is not None for template in compiler._shapes.values()] == [True, True]


def test_charts_whose_axes_name_other_ticks_share_one_shape():
    compiler = ShapeCompiler()
    charts = [named([{"x": x, "y": x / 3, "series": "a"} for x in ticks], ticks=ticks)
              for ticks in ([2, 4, 8], [3, 5, 7, 11, 13], [1.5, 2.25])]
    # the same chart with its keys in another order: its ticks are put back where they belong
    charts.append(json.loads(json.dumps(charts[1], sort_keys=True)))
    assert [compiler.svg(chart) for chart in charts] == [vl_convert.vegalite_to_svg(chart) for chart in charts]
    (template,) = compiler._shapes.values()
    assert template is not None and len(template.holes) == 2  # the axis, and its grid's axis


def test_ticks_vega_lite_rewrites_leave_the_shape_to_vega_lite():
    # on a time axis Vega-Lite turns each tick into an expression: not copied, so not put in
    def dated(ticks: list) -> dict:
        return {"data": {"name": "points"}, "datasets": {"points": [{"x": "2026-01-05", "y": 1}, {"x": "2026-03-05", "y": 2}]},
                "mark": "line", "encoding": {"x": {"field": "x", "type": "temporal", "axis": {"values": ticks}},
                                             "y": {"field": "y", "type": "quantitative"}}}
    compiler = ShapeCompiler()
    for ticks in (["2026-01-01", "2026-02-01"], ["2026-03-01"]):
        assert compiler.svg(dated(ticks)) == vl_convert.vegalite_to_svg(dated(ticks))
    assert list(compiler._shapes.values()) == [None]


label = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=8)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.fixed_dictionaries({"x": st.floats(1e-3, 1e9), "y": st.floats(-1e12, 1e12),
                                       "series": st.sampled_from(["a", "b"]) | label}), max_size=12), label,
       st.none() | st.lists(st.floats(1e-3, 1e9), min_size=1, max_size=8))
def test_a_chart_drawn_from_its_shape_is_the_chart_vega_lite_draws(rows, title, ticks):
    compiler = ShapeCompiler()
    # the shape learnt from another chart, with other ticks where the chart names some
    compiler.svg(named([{"x": 1, "y": 1, "series": "a"}], title, [10.0, 100.0] if ticks else None))
    assert compiler.svg(named(rows, title, ticks)) == vl_convert.vegalite_to_svg(named(rows, title, ticks))


def test_a_shape_whose_vega_differs_with_its_rows_is_drawn_from_vega_lite():
    # JavaScript holds no integer past 2**53: the chart's own Vega carries another number than
    # its rows, so the shape's Vega with the rows put in is not that Vega
    rows = [{"x": 2 ** 60 + 1, "y": 1, "series": "a"}]
    compiler = ShapeCompiler()
    assert compiler.svg(named(rows)) == vl_convert.vegalite_to_svg(named(rows))
    assert list(compiler._shapes.values()) == [None]
    assert compiler.svg(named(rows)) == vl_convert.vegalite_to_svg(named(rows))


def test_an_invalid_spec_with_rows_is_vl_convert_s_own_error():
    bad = {**named([{"x": 1, "y": 1, "series": "a"}]), "mark": "no-such-mark"}
    with pytest.raises(ValueError) as mine:
        ShapeCompiler().svg(bad)
    with pytest.raises(ValueError) as theirs:
        vl_convert.vegalite_to_svg(bad)
    assert str(mine.value) == str(theirs.value)


def slow_spec() -> dict:
    """A chart that takes a worker seconds to draw: time enough to kill it meanwhile."""
    return {"data": {"values": [{"x": i, "y": i % 97} for i in range(40000)]}, "mark": "point",
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}}


def test_a_worker_that_dies_while_drawing_is_reported_and_replaced():
    workers = ChartWorkers(1)
    try:
        workers.svg(spec(1))
        (only,) = workers._all
        drawing, waiting = workers.submit(slow_spec()), workers.submit(spec(2))
        os.kill(only.process.pid, signal.SIGKILL)
        for future in (drawing, waiting):  # both were sent to it: both are lost, and said so
            with pytest.raises(BuildError, match="chart worker process .vl-convert. ended with exit status -9 .*Run the command again$"):
                future.result(timeout=60)
        assert workers.svg(spec(2)) == vl_convert.vegalite_to_svg(spec(2))
        assert workers._all[0] is not only
    finally:
        workers.close()


def test_requests_past_the_pipeline_wait_for_a_worker_and_a_dead_idle_one_is_no_loss():
    workers = ChartWorkers(1)
    try:
        futures = [workers.submit(spec(n)) for n in range(3 * ChartWorkers.IN_FLIGHT)]
        assert [f.result(timeout=60) for f in futures] == [vl_convert.vegalite_to_svg(spec(n)) for n in range(len(futures))]
        (only,) = workers._all
        os.kill(only.process.pid, signal.SIGKILL)
        for thread in only.threads:  # the pool has seen it end
            thread.join(timeout=30)
        assert workers.svg(spec(5)) == vl_convert.vegalite_to_svg(spec(5))  # drawn by its replacement
    finally:
        workers.close()


def test_close_ends_every_worker():
    workers = ChartWorkers(2)
    workers.svg(spec(1))
    started = list(workers._all)
    workers.close()
    assert all(w.process.returncode is not None for w in started) and workers._all == []


def test_the_vega_bundle_is_made_by_a_worker_as_vl_convert_makes_it_here(workers):
    assert workers.vega_bundle() == vl_convert.javascript_bundle()
    assert workers.svg(spec(1)) == vl_convert.vegalite_to_svg(spec(1))  # the same worker draws on


def test_the_site_s_charts_of_other_measurements_share_one_shape():
    """Two line charts the site draws of one kind of measurement, at other lengths and times,
    differ in their rows and ticks only, so the workers compile Vega-Lite once for both. A part
    of the spec made per chart would make each chart a shape of its own, as the measured ticks
    did (12-05/06): the workers then compiled nearly every chart twice, 17 of their 47 s at
    1,000 articles."""
    from site_gen.charts import Series, line_chart
    from site_gen.quantity import Trace

    def replay(lengths: tuple[int, ...], ms: float) -> dict:
        series = [Series(path, [(n, k * ms * n, Trace("ab" * 32, f"/{path}/{i}")) for i, n in enumerate(lengths)])
                  for path, k in (("eager", 2.0), ("graph", 1.0))]
        return line_chart("r", "Replay", series, x_title="tokens", y_title="ms", series_title="path", log_x=True,
                          log_y=False, alt_text="alt").static_spec

    specs = [replay((64, 512, 4096), 1.0), replay((128, 1024, 2048, 8192), 3.0)]
    assert specs[0] != specs[1]
    compiler = ShapeCompiler()
    assert [compiler.svg(spec) for spec in specs] == [vl_convert.vegalite_to_svg(spec) for spec in specs]
    assert len(compiler._shapes) == 1 and None not in compiler._shapes.values()
