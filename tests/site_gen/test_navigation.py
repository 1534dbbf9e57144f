"""What a reader follows besides the navigation, in real builds: the Atom feed linked from every
page's head (a theme override written by site_gen/build.py, not a plugin)."""

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

