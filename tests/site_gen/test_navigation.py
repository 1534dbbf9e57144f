"""What a reader follows besides the navigation, in real builds: the Atom feed linked from every
page's head (a theme override written by site_gen/build.py, not a plugin), and each record's
article linking the runs before and after it in its article series (site_gen/article_series.py),
escaped, absent at the ends, and updated by a warm build when one more run is sealed."""

from __future__ import annotations

import os
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from benchledger.records.store import Store
from site_gen.build import build_site, mkdocs_config
from site_gen.context import BuildOptions
from site_gen.feed import feed_title
from tests.site_gen.site_support import GRAPH_PAGE, OFFLOAD_PAGE, ROOT, serve
from tests.store_copies import GSH, TGR, shipped_copy, tree_digest
from tests.variants import H200, encoded, graph_variant, llm_variant

# a site name with what ends an attribute or starts an entity
SITE_NAME = 'Lab "A&B" bench'
# record text that would be markup, an attribute's end or Markdown if it reached the page as is
HOSTILE_GPU = '<img src=x onerror=alert(1)> "q" & *em* [l](javascript:alert(1))'
FEED_FILE = "posts/feed.xml"
OFFLOAD = "articles/llm-cpu-offload"


class _Links(HTMLParser):
    """Every tag's attributes, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def _tags(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Links()
    parser.feed(html)
    parser.close()
    return parser.tags


def _feed_links(html: str) -> list[dict[str, str]]:
    """The head's links to an Atom feed, found as feed readers find them (rel is a set of tokens)."""
    return [a for tag, a in _tags(html) if tag == "link" and "alternate" in a.get("rel", "").lower().split()
            and a.get("type") == "application/atom+xml"]


def _runs(html: str) -> str | None:
    """The article's block of links to the runs before and after it, None when it has none."""
    found = re.findall(r'<nav class="bl-runs".*?</nav>', html, re.S)
    assert len(found) <= 1
    return found[0] if found else None


def _run_links(site: Path, page: str) -> dict[str, str]:
    """rel ("prev"/"next") -> the site path the runs block's link leads to."""
    block = _runs((site / page).read_text(encoding="utf-8"))
    if block is None:
        return {}
    return {a["rel"]: posixpath.normpath(posixpath.join(posixpath.dirname(page), a["href"]))
            for tag, a in _tags(block) if tag == "a"}


def _seal_runs(records: Path) -> None:
    """Around the LLM seed (2026-09-27): an earlier run on other (hostile) hardware, and two later
    runs of one day (ordered by sealing); beside the graph-replay seed, a run in its folder."""
    store = Store(records)
    store.seal_bytes(encoded(llm_variant(tested_at="2026-10-01")), GSH, "llm-cpu-offload/2026-10-01.json")
    store.seal_bytes(encoded(llm_variant(tested_at="2026-09-01", gpu=HOSTILE_GPU)), GSH, "llm-cpu-offload/2026-09-01.json")
    store.seal_bytes(encoded(llm_variant(tested_at="2026-10-01", decode_factor=1.1)), GSH, "llm-cpu-offload/2026-10-01-2.json")
    store.seal_bytes(encoded(graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7)), TGR, "torch-graph-replay/h200.json")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("navigation")
    records = shipped_copy(tmp)
    _seal_runs(records)
    options = BuildOptions(site_name=SITE_NAME, articles_dir=ROOT / "docs" / "articles")
    return build_site(records, tmp / "site", cache_dir=tmp / "cache", options=options).out_dir


def test_every_page_head_links_the_feed_by_a_path_that_works_from_its_depth(site):
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html")
    depths = {page.count("/") for page in pages}
    assert {0, 1, 2} <= depths  # index.html, posts/index.html, articles/<key>/<date>.html
    for page in pages:
        links = _feed_links((site / page).read_text(encoding="utf-8"))
        assert len(links) == 1, page
        # relative (file:// and a site under a sub-path both work), and it reaches the feed
        href = links[0]["href"]
        assert not href.startswith("/") and "://" not in href, (page, href)
        assert posixpath.normpath(posixpath.join(posixpath.dirname(page), href)) == FEED_FILE, (page, href)
        # the site name is the project's text: escaped, it reads back as written
        assert links[0]["title"] == feed_title(SITE_NAME), page
    assert (site / FEED_FILE).is_file()
    assert f'title="{feed_title("Lab &#34;A&amp;B&#34; bench")}"' in (site / "index.html").read_text(encoding="utf-8")


def test_without_a_feed_the_config_names_no_theme_override_and_no_feed():
    plain = yaml.safe_load(mkdocs_config(BuildOptions(), Path("/tmp/site")))
    assert "custom_dir" not in plain["theme"] and "benchledger_feed" not in plain["extra"]
    fed = yaml.safe_load(mkdocs_config(BuildOptions(site_name=SITE_NAME), Path("/tmp/site"), feed=FEED_FILE))
    assert fed["theme"]["custom_dir"] == "theme"
    assert fed["extra"]["benchledger_feed"] == FEED_FILE and fed["extra"]["benchledger_feed_title"] == feed_title(SITE_NAME)


def test_each_run_links_the_runs_before_and_after_it_in_test_date_then_sealing_order(site):
    chain = [f"{OFFLOAD}/{d}.html" for d in ("2026-09-01", "2026-09-27", "2026-10-01", "2026-10-01-2")]
    for i, page in enumerate(chain):
        expected = {**({"prev": chain[i - 1]} if i else {}), **({"next": chain[i + 1]} if i + 1 < len(chain) else {})}
        assert _run_links(site, page) == expected, page
    # the order is the article list's, newest first there
    home = (site / "index.html").read_text(encoding="utf-8")
    listed = [a["href"] for tag, a in _tags(home) if tag == "a" and a.get("href", "").startswith(f"{OFFLOAD}/")
              and a["href"].endswith(".html")]
    assert list(dict.fromkeys(listed)) == chain[::-1]
    # a series named by the store folder, for a schema whose records hold no article_key
    assert _run_links(site, GRAPH_PAGE) == {"next": "articles/torch-graph-replay/h200.html"}
    assert _run_links(site, "articles/torch-graph-replay/h200.html") == {"prev": GRAPH_PAGE}


def test_a_run_link_names_the_date_hash_and_other_hardware_all_escaped(site):
    seed = (site / OFFLOAD_PAGE).read_text(encoding="utf-8")
    block = _runs(seed)
    assert block is not None and "<img" not in block
    earlier, later = re.findall(r"<a .*?</a>", block, re.S)
    # the earlier run's hardware differs from this run's: named, as literal text
    assert "2026-09-01, &lt;img src=x onerror=alert(1)&gt; &quot;q&quot; &amp; &#42;em&#42; &#91;l&#93;(javascript:alert(1))" in earlier
    assert "2026-10-01 <code" in later and "RTX" not in later  # same hardware as this run: not repeated
    for link in (earlier, later):
        (_, code), = [(t, a) for t, a in _tags(link) if t == "code"]
        assert code["class"] == "bl-hash" and len(code["title"]) == 64  # verify --site checks the short form
    # the hostile text stays text on the page MkDocs made of it, no element of its own
    assert not any(tag == "img" for tag, _ in _tags(block))


def test_a_record_alone_in_its_series_or_at_the_stores_root_links_no_run(tmp_path):
    records = shipped_copy(tmp_path)
    Store(records).seal_bytes(encoded(llm_variant(tested_at="2026-10-01")), GSH, "elsewhere/2026-10-01.json")
    Store(records).seal_bytes(encoded(graph_variant(device=H200)), TGR, "h200.json")
    site = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache").out_dir
    # the LLM variant keeps the seed's article_key: one series across two folders
    assert _run_links(site, OFFLOAD_PAGE) == {"next": "articles/elsewhere/2026-10-01.html"}
    assert _run_links(site, GRAPH_PAGE) == {} and _run_links(site, "articles/h200.html") == {}
    assert "bl-runs" not in (site / GRAPH_PAGE).read_text(encoding="utf-8")


def test_one_more_run_sealed_updates_the_last_runs_article_in_a_warm_build(tmp_path):
    records = shipped_copy(tmp_path)
    first = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert _run_links(first.out_dir, OFFLOAD_PAGE) == {}
    Store(records).seal_bytes(encoded(llm_variant(tested_at="2026-10-01")), GSH, "llm-cpu-offload/2026-10-01.json")
    more = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert more.mkdocs_dirty and more.renderings_reused  # the warm path, not a clean rebuild
    assert _run_links(more.out_dir, OFFLOAD_PAGE) == {"next": f"{OFFLOAD}/2026-10-01.html"}
    assert _run_links(more.out_dir, f"{OFFLOAD}/2026-10-01.html") == {"prev": OFFLOAD_PAGE}
    clean = build_site(records, tmp_path / "clean", cache_dir=tmp_path / "cache-clean")
    assert tree_digest(more.out_dir) == tree_digest(clean.out_dir)


@pytest.mark.browser
@pytest.mark.skipif(not os.access("/usr/bin/chromium", os.X_OK), reason="needs Debian's chromium (make chromium)")
def test_a_reader_steps_through_the_runs_by_the_next_link(site):
    from playwright.sync_api import sync_playwright

    from tests.site_gen.test_browser import ARGS, CHROMIUM, Watch

    with serve(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page()
            watch = Watch(page, base)
            missing = []
            page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
            page.goto(base + OFFLOAD_PAGE)
            page.locator('.bl-runs a[rel="next"]').click()
            page.wait_for_url(base + f"{OFFLOAD}/2026-10-01.html")
            page.locator('.bl-runs a[rel="next"]').click()
            page.wait_for_url(base + f"{OFFLOAD}/2026-10-01-2.html")
            assert page.locator('.bl-runs a[rel="next"]').count() == 0  # the newest run
            page.locator('.bl-runs a[rel="prev"]').click()
            page.wait_for_url(base + f"{OFFLOAD}/2026-10-01.html")
            assert not watch.errors and not watch.outside, missing
        finally:
            browser.close()
