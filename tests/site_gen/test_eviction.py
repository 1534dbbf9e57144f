"""Cache eviction (site_gen/eviction.py) in real builds: the render cache holds only what the
last build used (renderings for other options, or superseded by one more record, are gone), a
file benchledger did not make stays, and the next build still renders nothing."""

from __future__ import annotations

from benchledger.records.store import Store
from site_gen.build import build_site
from site_gen.context import BuildOptions
from tests.site_gen.site_support import ROOT
from tests.store_copies import TGR, shipped_copy
from tests.variants import H200, encoded, graph_variant


def _build(records, tmp, site_url=""):
    return build_site(records, tmp / "site", cache_dir=tmp / "cache",
                      options=BuildOptions(articles_dir=ROOT / "docs" / "articles", site_url=site_url))


def _names(folder):
    return {p.name for p in folder.iterdir()}


def test_the_render_cache_keeps_what_the_last_build_used(tmp_path):
    records = shipped_copy(tmp_path)
    _build(records, tmp_path, site_url="https://one.example/")
    render = tmp_path / "cache" / "render"
    first_values = _names(render / "values")
    (render / "values" / "notes.txt").write_text("mine")
    (render / "blobs" / ("0" * 63 + "g")).write_text("not a blob name")
    _build(records, tmp_path)  # other options: every rendering is made again
    values, blobs = _names(render / "values"), _names(render / "blobs")
    assert not (first_values & values)  # what only the first build used is gone
    assert "notes.txt" in values and "0" * 63 + "g" in blobs  # not benchledger's: left alone
    Store(records).seal_bytes(encoded(graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7)), TGR,
                              "torch-graph-replay/h200.json")
    more = _build(records, tmp_path)
    after_more = _names(render / "values"), _names(render / "blobs")
    assert more.renderings_reused >= 4 and (values - {"notes.txt"}) & after_more[0]  # the unchanged ones kept
    warm = _build(records, tmp_path)
    assert (warm.files_written, warm.charts_rendered) == (0, 0) and warm.renderings_reused >= 4
    assert (_names(render / "values"), _names(render / "blobs")) == after_more  # a warm build used all of it


def test_the_chart_cache_keeps_the_charts_the_site_shows(tmp_path):
    """A chart no page shows any more (its record's numbers changed) leaves the chart cache, as
    do other vl-convert versions' entries; a warm build, which draws nothing, keeps every chart
    of the site, so a page rendered again finds them; a file benchledger did not make stays."""

    def store(name: str, eager: float, graph: float):
        records = shipped_copy(tmp_path / name)
        Store(records).seal_bytes(encoded(graph_variant(device=H200, eager_factor=eager, graph_factor=graph)), TGR,
                                  "torch-graph-replay/h200.json")
        return records

    def entries():
        return {p.name for p in charts.glob("svg-*.svg")}

    def site_charts(result):
        return {p.stem for p in (result.out_dir / "assets" / "charts").glob("*.svg")}

    first_store, second_store = store("one", 0.6, 0.7), store("two", 0.5, 0.8)  # the same H200 record, other numbers
    first = _build(first_store, tmp_path)
    charts = tmp_path / "cache" / "charts"
    drawn = entries()
    assert drawn and {name.rsplit("-", 1)[1][:20] for name in drawn} == site_charts(first)  # one entry per chart shown
    older = "svg-0.0.1-" + "a" * 12 + "-" + "b" * 64 + ".svg"  # what another vl-convert drew
    (charts / older).write_text("<svg/>")
    (charts / "mine.txt").write_text("mine")
    warm = _build(first_store, tmp_path)
    assert warm.charts_rendered == 0 and entries() == drawn and older not in _names(charts)
    changed = _build(second_store, tmp_path)  # its H200 article's charts are drawn anew
    now = entries()
    assert changed.charts_rendered > 0 and now - drawn and drawn - now  # the first H200 charts are gone
    assert {name.rsplit("-", 1)[1][:20] for name in now} == site_charts(changed)
    assert "mine.txt" in _names(charts)
