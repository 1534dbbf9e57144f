"""MkDocs' dirty mode in real builds (site_gen/dirty_build.py): after one more record is sealed
the MkDocs step reuses the unchanged pages and the site is byte for byte a clean build's; a
site folder touched since the last build is rebuilt clean; a link into a reused article is still
checked against that article's anchors; the search index is rebuilt only when a byte changed."""

from __future__ import annotations

import os
import shutil

import pytest

from benchledger.errors import BuildError
from benchledger.records.store import Store
from site_gen.build import build_site
from site_gen import search_index
from site_gen.context import BuildOptions
from site_gen.search_index import BUNDLE_DIR, bundle_of
from tests.site_gen.site_support import OFFLOAD_PAGE, ROOT
from tests.store_copies import TGR, shipped_copy, tree_digest
from tests.variants import H200, encoded, graph_variant

ARTICLES = ROOT / "docs" / "articles"


def _mtimes(site):
    return {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


def _build(records, tmp, name="site", cache="cache", articles=ARTICLES):
    return build_site(records, tmp / name, cache_dir=tmp / cache, options=BuildOptions(articles_dir=articles))


def test_one_more_record_reuses_unchanged_pages_and_gives_a_clean_builds_bytes(tmp_path):
    records = shipped_copy(tmp_path)
    first = _build(records, tmp_path)
    assert not first.mkdocs_dirty and "no state" in first.mkdocs_mode
    built = tree_digest(first.out_dir)
    written = _mtimes(first.out_dir)
    warm = _build(records, tmp_path)
    assert warm.mkdocs_dirty and warm.mkdocs_mode.endswith(" unchanged pages reused")
    # every page whose last build checked no link to another page is reused: the articles, and
    # the generated site-wide pages too (their links are all inside raw HTML blocks)
    kept = {rel for rel, mtime in _mtimes(warm.out_dir).items() if written.get(rel) == mtime}
    assert {OFFLOAD_PAGE, "index.html", "comparisons/index.html", "series/index.html", "audit.html"} <= kept
    assert first.search_indexed and not warm.search_indexed  # every byte as before: Pagefind not rerun
    assert tree_digest(warm.out_dir) == built
    Store(records).seal_bytes(encoded(graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7)), TGR,
                              "torch-graph-replay/h200.json")
    more = _build(records, tmp_path)
    # the graph-replay seed's article now links to its comparison; the LLM seed's is unchanged
    assert more.mkdocs_dirty and 0 < int(more.mkdocs_mode.split()[0]) < int(warm.mkdocs_mode.split()[0])
    assert more.search_indexed
    clean = _build(records, tmp_path, name="clean", cache="cache-clean")
    assert not clean.mkdocs_dirty
    assert tree_digest(more.out_dir) == tree_digest(clean.out_dir)  # search index and SHA256SUMS too


def test_a_site_folder_touched_since_the_last_build_is_rebuilt_clean(tmp_path):
    records = shipped_copy(tmp_path)
    first = _build(records, tmp_path)
    expected = tree_digest(first.out_dir)
    page = first.out_dir / OFFLOAD_PAGE
    page.write_bytes(page.read_bytes().replace(b"</body>", b"<script>injected()</script></body>"))
    (first.out_dir / "extra.html").write_text("not made by the build")
    again = _build(records, tmp_path)
    assert not again.mkdocs_dirty and again.mkdocs_mode == "the site folder changed since the last build"
    assert tree_digest(again.out_dir) == expected
    assert _build(records, tmp_path).mkdocs_dirty  # and the next one may reuse again
    # an edit of the same size whose mtime is set back, as `touch -r` does, is seen too
    audit = first.out_dir / "audit.html"
    stat = audit.stat()
    audit.write_bytes(audit.read_bytes().replace(b"<title>", b"<titlE>", 1))
    os.utime(audit, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert audit.stat().st_size == stat.st_size
    assert not _build(records, tmp_path).mkdocs_dirty
    assert tree_digest(first.out_dir) == expected


def test_a_link_into_a_reused_article_is_still_checked_against_its_anchors(tmp_path):
    records = shipped_copy(tmp_path)
    articles = tmp_path / "articles"
    articles.mkdir()
    source = (ARTICLES / "llama-cpp-cpu-offload-72b.md").read_text(encoding="utf-8")
    post = articles / "llama-cpp-cpu-offload-72b.md"
    link = "\n\nSee [how to audit the record](../articles/llm-cpu-offload/2026-09-27.md#{anchor}).\n"
    post.write_text(source + link.format(anchor="audit-this-page"), encoding="utf-8")
    _build(records, tmp_path, articles=articles)
    article = tmp_path / "site" / "articles" / "llm-cpu-offload" / "2026-09-27.html"
    before = article.stat().st_mtime_ns
    post.write_text(source + link.format(anchor="audit-this-page") + "\nEdited.\n", encoding="utf-8")
    assert _build(records, tmp_path, articles=articles).mkdocs_dirty
    assert article.stat().st_mtime_ns == before  # reused, not rendered: its anchors came from the state
    post.write_text(source + link.format(anchor="no-such-anchor"), encoding="utf-8")
    # the article is unchanged, so a dirty build would not render it: its anchors come from the state
    with pytest.raises(BuildError, match="no-such-anchor"):
        _build(records, tmp_path, articles=articles)
    shutil.rmtree(tmp_path / "site")
    with pytest.raises(BuildError, match="no-such-anchor"):  # as a clean build says
        _build(records, tmp_path, name="site", cache="cache-clean", articles=articles)


def test_a_state_without_this_users_cache_mac_is_not_trusted(tmp_path):
    from benchledger.records import cache_mac
    from site_gen.dirty_build import STATE_NAME

    records = shipped_copy(tmp_path)
    _build(records, tmp_path)
    state = tmp_path / "cache" / STATE_NAME
    state.write_bytes(cache_mac.unseal(state.read_bytes()))  # the same state, unsealed (as a forger writes it)
    again = _build(records, tmp_path)
    assert not again.mkdocs_dirty and again.mkdocs_mode == "no state of an earlier build"


def test_a_later_run_keeps_the_search_shard_of_the_run_before_it(tmp_path, monkeypatch):
    """Sealing a later run of a series adds a "later run" link to the previous run's article, in
    a block Pagefind skips: that article's shard is not indexed again (two shards here, and the
    new record's path chosen so that the two articles fall in different ones), and the site is
    still a clean build's bytes."""
    monkeypatch.setattr(search_index, "PAGES_PER_SHARD", 1)
    monkeypatch.setattr(search_index, "MAX_SHARDS", 2)  # 2 articles or more: two shards, whatever is sealed
    records = shipped_copy(tmp_path)
    first = _build(records, tmp_path)
    before = {rel: p.read_bytes() for rel, p in _articles(first.out_dir).items()}
    previous = next(rel for rel in before if rel.startswith("articles/torch-graph-replay/"))
    as_path = next(f"torch-graph-replay/later-{k}.json" for k in range(100)
                   if bundle_of(f"articles/torch-graph-replay/later-{k}.html", 2) != bundle_of(previous, 2))
    entries = _bundle_stamps(first.out_dir)
    Store(records).seal_bytes(encoded(graph_variant(eager_factor=1.01, finished_offset_s=86400)), TGR, as_path)
    more = _build(records, tmp_path)
    after = _articles(more.out_dir)
    new = next(rel for rel in after if rel not in before)
    assert bundle_of(new, 2) != bundle_of(previous, 2)
    assert b'rel="next"' in after[previous].read_bytes() and after[previous].read_bytes() != before[previous]
    reindexed = {f for f, mtime in _bundle_stamps(more.out_dir).items() if entries.get(f) != mtime}
    assert reindexed == {BUNDLE_DIR, bundle_of(new, 2)}, (previous, new)
    clean = _build(records, tmp_path, name="clean", cache="cache-clean")
    assert tree_digest(more.out_dir) == tree_digest(clean.out_dir)


def _articles(site):
    return {p.relative_to(site).as_posix(): p for p in (site / "articles").rglob("*.html")}


def _bundle_stamps(site):
    """Each search bundle's folder -> when its entry file was written."""
    return {p.parent.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in (site / BUNDLE_DIR).rglob("pagefind-entry.json")}
