"""The Atom feed of authored articles: valid Atom, newest first, deterministic, absolute links
when a site URL is configured and relative ones otherwise, text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from site_gen.articles import Article
from site_gen.feed import atom_feed, written_site_url

from .authored_support import build_pages, copy_project, write_article

ATOM = "{http://www.w3.org/2005/Atom}"


def article(slug: str, date: str, title: str = "T") -> Article:
    return Article.parse(
        f"docs/articles/{slug}.md",
        f'---\ntitle: "{title}"\ndate: {date}\nauthors: [A & B]\ntags: [t]\nsummary: "x < y"\nrecords:\n  r: "{"a" * 12}"\n---\n',
    )


def feed(articles, site_url=""):
    return atom_feed(articles, feed_path="posts/feed.xml", page_paths={a.slug: f"posts/{a.slug}.md" for a in articles},
                     site_name="benchledger", site_url=site_url)


def test_entries_newest_first_and_updated_is_newest_date():
    root = ET.fromstring(feed([article("old", "2026-01-01"), article("new", "2026-03-01")]))
    assert root.tag == f"{ATOM}feed"
    assert root.find(f"{ATOM}updated").text == "2026-03-01T00:00:00Z"
    entries = root.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}id").text for e in entries] == ["urn:benchledger:article:new", "urn:benchledger:article:old"]


def test_absolute_links_with_site_url_relative_without():
    a = [article("one", "2026-01-01")]
    with_url = ET.fromstring(feed(a, "https://bench.example/sub/"))
    link = with_url.find(f"{ATOM}entry/{ATOM}link").get("href")
    assert link == "https://bench.example/sub/posts/one.html"
    assert with_url.find(f"{ATOM}entry/{ATOM}id").text == link
    assert with_url.find(f"{ATOM}link").get("href") == "https://bench.example/sub/posts/feed.xml"
    without = ET.fromstring(feed(a))
    assert without.find(f"{ATOM}entry/{ATOM}link").get("href") == "one.html"


@pytest.mark.parametrize("site_url", ["", "https://bench.example/sub", "https://bench.example/a&b/", 'https://bench.example/"q"/'])
def test_the_site_url_is_read_back_from_the_self_link(site_url):
    """`verify --site` makes a feed's change entries again from the site URL it was written with
    (a quote in it makes xml_attr quote the link with apostrophes)."""
    written = feed([article("one", "2026-01-01")], site_url).decode()
    assert written_site_url(written, "posts/feed.xml") == site_url.rstrip("/")
    assert written_site_url(written.replace('<link rel="self"', '<link rel="alternate"'), "posts/feed.xml") is None


def test_text_is_escaped_and_output_deterministic():
    a = [article("one", "2026-01-01", title="<b>R&D</b>")]
    raw = feed(a)
    assert raw == feed(list(a))
    root = ET.fromstring(raw)
    assert root.find(f"{ATOM}entry/{ATOM}title").text == "<b>R&D</b>"
    assert root.find(f"{ATOM}entry/{ATOM}author/{ATOM}name").text == "A & B"
    assert b"<b>" not in raw


def test_control_and_bidi_characters_leave_the_feed_well_formed():
    """A sealed record's release (a change entry's title) or an article's title holding a
    control character made the feed ill-formed, which feed readers reject whole; a right-to-left
    override went through raw."""
    from site_gen.feed import FeedEntry

    change = FeedEntry("change:1", "Regression from b11151\x01\x0b\x1b\ufffe\u202eZ\nnl", "series/x.md", "c1",
                       "2026-12-01T00:00:00Z", "decode \x00 slower", ("regression\x1b",))
    raw = atom_feed([article("one", "2026-01-01")], feed_path="posts/feed.xml", page_paths={"one": "posts/one.md"},
                    site_name="lab\u202e", extra=[change])
    root = ET.fromstring(raw)  # well-formed
    entry = next(e for e in root.findall(f"{ATOM}entry") if e.find(f"{ATOM}id").text == "urn:benchledger:change:1")
    assert entry.find(f"{ATOM}title").text == "Regression from b11151[U+0001] [U+001B]\ufffd[U+202E]Z nl"
    assert entry.find(f"{ATOM}summary").text == "decode [U+0000] slower"
    assert entry.find(f"{ATOM}category").get("term") == "regression[U+001B]"
    assert root.find(f"{ATOM}title").text == "lab[U+202E]: articles and detected changes"
    assert root.find(f"{ATOM}id").text == "urn:benchledger:lab[U+202E]:feed"


def test_feed_published_with_the_index_and_identical_across_builds(tmp_path):
    records, articles = copy_project(tmp_path)
    write_article(articles, "extra", "No citations here.", {"r": "ebcfc483a547"}, date="2027-01-01")
    first = build_pages(records, articles, site_url="https://bench.example")["posts/index.md"].assets["posts/feed.xml"]
    second = build_pages(records, articles, site_url="https://bench.example")["posts/index.md"].assets["posts/feed.xml"]
    assert first == second
    titles = [e.find(f"{ATOM}title").text for e in ET.fromstring(first).findall(f"{ATOM}entry")]
    assert titles[0] == "extra" and len(titles) == 3


def test_every_detected_change_gets_an_entry(tmp_path):
    """The issue's eight records: one change, one entry, dated by the last record it rests on."""
    import json

    from benchledger.records.store import Store
    from tests.history import llm_history

    records = tmp_path / "records"
    records.mkdir()
    store = Store(records)
    for data in llm_history(8, drop_from=6):
        store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1",
                         f"history/{data['runtime']['release']}.json")
    articles = tmp_path / "articles"
    articles.mkdir()
    write_article(articles, "note", "Nothing cited.\n", {"r": store.entries()[0].sha256[:12]}, date="2026-01-01")
    pages = build_pages(records, articles, site_url="https://bench.example/")
    root = ET.fromstring(pages["posts/index.md"].assets["posts/feed.xml"])
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 2  # the article and the change
    change = entries[0]  # sealed today: newer than the article
    assert change.find(f"{ATOM}title").text == ("Regression: Qwen2.5-72B-Instruct Q4_K_M, GPU layers 81: LLM server along runtime release "
                                                "from b11151")
    assert change.find(f"{ATOM}link").get("href") == "https://bench.example/series/bc915e547af1.html#change-bc915e547af1-5"
    assert change.find(f"{ATOM}updated").text == store.entries()[-1].sealed_at
    summary = change.find(f"{ATOM}summary").text
    assert store.entries()[5].sha256 in summary and "server decode (median) at context 2048: −1" in summary
    assert [c.get("term") for c in change.findall(f"{ATOM}category")] == ["change", "regression"]
    assert root.find(f"{ATOM}updated").text == store.entries()[-1].sealed_at
