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
    first_values, first_blobs = _names(render / "values"), _names(render / "blobs")
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
