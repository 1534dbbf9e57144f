"""The search index in bundles (site_gen/search_index.py), with the real Pagefind binary over a
folder of small HTML pages: the shard a page goes to, a rebuild that indexes again only the
bundles whose pages changed, and bundles that are the same bytes as a fresh index of the same
pages."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from site_gen import search_index
from site_gen.search_index import (BUNDLE_DIR, MAX_SHARDS, RUNS_NAV, SHARDS_DIR, SHARDS_MANIFEST, bundle_of, index_site,
                                   indexed_sha256, shard_count)


def _page(title: str, words: str, runs: str = "") -> bytes:
    """An HTML page as the site's; `runs`: the text of an article series' run links in it."""
    nav = f"{RUNS_NAV}<p>{runs}</p></nav>" if runs else ""
    return (f'<!doctype html><html lang="en"><head><title>{title}</title></head><body>'
            f'<article class="md-content__inner"><h1 id="top">{title}</h1>{nav}<p>{words}</p></article></body></html>').encode()


def _site(root: Path, pages: dict[str, bytes]) -> dict[str, str]:
    for rel, data in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in pages.items()}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


PAGES = {
    "index.html": _page("Home", "every record of the site"),
    "search.html": _page("Search", "find a record"),
    **{f"articles/kind/record-{i:02d}.html": _page(f"Record {i}", f"uniqueword{i} measured on a gpu") for i in range(8)},
}


def test_shards_follow_the_number_of_articles():
    per = search_index.PAGES_PER_SHARD
    assert shard_count(0) == 0
    assert shard_count(2 * per - 1) == 0  # under two shards' worth: one bundle, ranked as one
    assert shard_count(2 * per) == 2
    assert shard_count(5 * per + per // 2) == 5
    assert shard_count(1000 * per) == MAX_SHARDS


@given(st.text(min_size=1, max_size=40), st.integers(min_value=2, max_value=MAX_SHARDS))
def test_a_page_has_one_bundle_whatever_else_the_site_holds(name, shards):
    article = f"articles/{name}.html"
    folder = bundle_of(article, shards)
    assert folder == bundle_of(article, shards)  # a function of the path alone
    assert folder.startswith(SHARDS_DIR + "/") and 0 <= int(folder.rsplit("/", 1)[1]) < shards
    assert bundle_of(f"series/{name}.html", shards) == BUNDLE_DIR  # site-wide pages stay in the primary
    assert bundle_of(article, 0) == BUNDLE_DIR


def test_a_small_site_is_one_bundle(tmp_path):
    site = tmp_path / "site"
    made = index_site(site, tmp_path / "work", _site(site, PAGES))
    assert list(made.digests) == [BUNDLE_DIR] and made.indexed == (BUNDLE_DIR,)
    assert (site / BUNDLE_DIR / "pagefind-entry.json").is_file() and (site / BUNDLE_DIR / "pagefind-ui.js").is_file()
    assert json.loads((site / SHARDS_MANIFEST).read_bytes()) == []


def test_the_installed_pagefinds_excerpts_escape_ampersands(tmp_path):
    """The installed Pagefind's two scripts that build excerpts hold the code this build
    mends, once each, and leave the index with it mended (an upgrade that changed it fails here)."""
    site = tmp_path / "site"
    index_site(site, tmp_path / "work", _site(site, PAGES))
    for script in search_index.UI_SCRIPTS:
        text = (site / BUNDLE_DIR / script).read_text(encoding="utf-8")
        assert text.count('fragment.content.replace(/&/g,"&amp;").replace(/</g,"&lt;")') == 1, script
        assert not search_index.escape_ampersands_in_excerpts(site / BUNDLE_DIR / script)  # once only


def test_a_rebuild_indexes_again_only_the_bundles_whose_pages_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(search_index, "PAGES_PER_SHARD", 2)  # 8 articles: 4 shards
    site = tmp_path / "site"
    sums = _site(site, PAGES)
    made = index_site(site, tmp_path / "work", sums)
    first = made.digests
    shards = sorted(f for f in first if f != BUNDLE_DIR)
    assert json.loads((site / SHARDS_MANIFEST).read_bytes()) == [f.rsplit("/", 1)[1] for f in shards]
    for folder in shards:  # a merged bundle: its index, no second copy of the UI
        names = {p.name for p in (site / folder).iterdir()}
        assert "pagefind-entry.json" in names and "fragment" in names and "pagefind-ui.js" not in names
    stamps = {f: (site / f / "pagefind-entry.json").stat().st_mtime_ns for f in first}

    changed = "articles/kind/record-03.html"
    sums = {**sums, **_site(site, {changed: _page("Record 3", "uniqueword3 measured again, now on two gpus")})}
    again = index_site(site, tmp_path / "work", sums, made.state())
    second = again.digests
    touched = bundle_of(changed, len(shards))
    assert {f for f in first if first[f] != second[f]} == {touched}
    assert again.indexed == (touched,)
    assert index_site(site, tmp_path / "work", sums, again.state()).indexed == ()
    for folder in first:  # only the changed page's shard was indexed again
        assert ((site / folder / "pagefind-entry.json").stat().st_mtime_ns == stamps[folder]) == (folder != touched), folder

    # what was kept and what was remade are the bytes a fresh index of the same pages gives
    fresh = tmp_path / "fresh"
    index_site(fresh, tmp_path / "work-fresh", _site(fresh, {**PAGES, changed: (site / changed).read_bytes()}))
    assert _files(site / BUNDLE_DIR) == _files(fresh / BUNDLE_DIR)


def test_a_bundle_gone_from_the_site_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setattr(search_index, "PAGES_PER_SHARD", 2)
    site = tmp_path / "site"
    sums = _site(site, PAGES)
    made = index_site(site, tmp_path / "work", sums)
    victim = next(f for f in made.digests if f != BUNDLE_DIR)
    expected = _files(site / victim)
    for path in sorted((site / victim).rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    assert index_site(site, tmp_path / "work", sums, made.state()).indexed == (victim,)
    assert _files(site / victim) == expected


def test_pagefind_failing_is_a_build_error_naming_the_site(tmp_path):
    from benchledger.errors import BuildError

    site = tmp_path / "site"
    with pytest.raises(BuildError, match="search indexing"):
        index_site(site, tmp_path / "work", {})  # no page at all: Pagefind refuses an empty site


def test_a_page_whose_run_links_alone_changed_keeps_its_bundle(tmp_path, monkeypatch):
    """Sealing a run adds a "later run" link to the previous run's article, inside a nav Pagefind
    skips: its shard is kept, and is the bytes a fresh index of the new pages gives (the real
    Pagefind, so a nav it did read would fail here). Text outside the nav is indexed again."""
    monkeypatch.setattr(search_index, "PAGES_PER_SHARD", 2)
    pages = {**PAGES, "articles/kind/record-05.html": _page("Record 5", "uniqueword5 measured on a gpu", "earlier run: 2026-01-02")}
    site = tmp_path / "site"
    sums = _site(site, pages)
    made = index_site(site, tmp_path / "work", sums)
    assert made.page_keys[sums["articles/kind/record-05.html"]] != sums["articles/kind/record-05.html"]
    linked = {"articles/kind/record-05.html": _page("Record 5", "uniqueword5 measured on a gpu",
                                                    "earlier run: 2026-01-02 · later run: 2026-02-03 zebraword")}
    sums = {**sums, **_site(site, linked)}
    again = index_site(site, tmp_path / "work", sums, made.state())
    assert again.indexed == () and again.digests == made.digests
    fresh = tmp_path / "fresh"
    index_site(fresh, tmp_path / "work-fresh", _site(fresh, {**pages, **linked}))
    assert _files(site / BUNDLE_DIR) == _files(fresh / BUNDLE_DIR)

    reworded = {"articles/kind/record-05.html": _page("Record 5", "uniqueword5 measured on two gpus",
                                                      "earlier run: 2026-01-02 · later run: 2026-02-03 zebraword")}
    sums = {**sums, **_site(site, reworded)}
    assert index_site(site, tmp_path / "work", sums, again.state()).indexed == (bundle_of("articles/kind/record-05.html", 4),)


_TEXT = st.text(alphabet=st.characters(blacklist_characters="<>&", blacklist_categories=("Cs",)), max_size=30)  # pages are UTF-8


@given(_TEXT, _TEXT, _TEXT, _TEXT)
def test_a_pages_key_leaves_out_its_run_links_and_nothing_else(before, after, runs, other_runs):
    page = lambda words, runs: f"<article>{before}{RUNS_NAV}<p>{runs}</p></nav>{words}</article>".encode()  # noqa: E731
    assert indexed_sha256(page(after, runs)) == indexed_sha256(page(after, other_runs))
    assert (indexed_sha256(page(after, runs)) == indexed_sha256(page(after + "x", runs))) is False
    assert indexed_sha256(f"<article>{before}{after}</article>".encode()) is None  # no nav: the page's own hash
    # a page that gained the block, with the line end after it, is keyed as it was without
    without = f"<article>{before}\n{after}</article>".encode()
    assert indexed_sha256(f"<article>{before}\n{RUNS_NAV}<p>{runs}</p></nav>\n{after}</article>".encode()) == \
        hashlib.sha256(without).hexdigest()
    unclosed = f"<article>{before}{RUNS_NAV}{runs}".encode()  # no end tag: nothing is cut
    assert indexed_sha256(unclosed) == hashlib.sha256(unclosed).hexdigest()
