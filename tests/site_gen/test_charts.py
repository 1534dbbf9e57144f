"""Charts: specs without remote references, SVG renderings cached by spec hash (an unchanged
chart is never rendered twice, across builds too), script-safe embedded specs."""

from __future__ import annotations

import json
import re

from site_gen.charts import Chart, ChartCache, Series, chart_html, line_chart


def chart(label: str = "a</script><b>") -> Chart:
    return line_chart("c", "Title", [Series(label, [(1, 2.0, "/x/0"), (4, 8.0, "/x/1")])],
                      x_title="tokens", y_title="ms", series_title="path", log_x=True, alt_text="alt text")


def test_spec_names_no_remote_url():
    spec = chart().spec
    assert "$schema" not in spec
    assert not re.search(r"https?://", json.dumps(spec))
    assert spec["encoding"]["x"]["scale"]["type"] == "log"


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


def test_chart_html_has_fallback_alt_data_table_and_safe_spec(tmp_path):
    html, assets = chart_html(chart(), "articles/x/y.md", ChartCache(tmp_path))
    (path, svg), = assets.items()
    assert path.startswith("assets/charts/") and svg.startswith(b"<svg")
    assert f'src="../../{path}"' in html and 'alt="alt text"' in html
    assert "Data behind this chart" in html and "&lt;/script&gt;" in html
    embedded = re.search(r'<script type="application/json" id="spec-c">(.*?)</script>', html, re.S).group(1)
    assert "</" not in embedded
    assert json.loads(embedded)["datasets"]
