"""`benchledger verify --site` on where a site tells its detected changes besides the series
page: the history index's list, the Atom feed's change entries (here with absolute links, the
site URL configured) and a write-up's `change` citation. Each edited, with SHA256SUMS listed
again, passed before: only the series pages were checked against change detection."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from site_gen.audit import verify_site
from site_gen.build import build_site
from site_gen.context import BuildOptions
from site_gen.feed import FEED
from tests.site_gen.authored_support import write_article
from tests.site_gen.site_support import audited_after_edit
from tests.site_gen.test_change_citation import CITE, _records, _store

SITE_URL = "https://bench.example/ledger/"
WRITE_UP = "posts/slower.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("changes-audit")
    records, hashes = _store(tmp, _records(3))
    articles = tmp / "articles"
    articles.mkdir()
    write_article(articles, "slower", CITE, {"dropped": hashes[2][:12]})
    return build_site(records, tmp / "site", cache_dir=tmp / "cache",
                      options=BuildOptions(articles_dir=articles, site_url=SITE_URL)).out_dir


def _entry(feed: str) -> str:
    [entry] = re.findall(r"  <entry>\n(?:(?!  <entry>).)*?<category term=\"change\"/>.*?</entry>\n", feed, re.S)
    return entry


def test_the_site_as_built_passes_and_tells_its_change_everywhere(built):
    assert verify_site(built) == []
    feed = (built / FEED).read_text(encoding="utf-8")
    assert f'href="{SITE_URL}series/' in _entry(feed) and "<title>Regression: " in _entry(feed)
    assert "(worse)" in (built / "series/index.html").read_text(encoding="utf-8")
    assert 'class="bl-claim bl-claim-changed bl-claim-worse"' in (built / WRITE_UP).read_text(encoding="utf-8")


def test_the_history_index_s_list_edited_is_reported(built, tmp_path):
    messages = audited_after_edit(built, tmp_path, "series/index.html", lambda text: text.replace("(worse)", "(better)", 1))
    assert messages == ["SITE/series/index.html: does not list what change detection finds in the served records, "
                        '1 change(s): its "Detected changes" was edited']


def test_the_history_index_s_table_of_series_edited_is_reported(built, tmp_path):
    """Its rows (each series' setup, records, first and last values, changes) are made again."""
    def edit(text):
        last = re.search(r"&nbsp;→&nbsp;([^<]*)</td>", text).group(1)
        return text.replace(f"&nbsp;→&nbsp;{last}</td>", "&nbsp;→&nbsp;b99999</td>", 1)

    messages = audited_after_edit(built, tmp_path, "series/index.html", edit)
    count = len(re.findall(r'<a href="[0-9a-f]{12}\.html">', (built / "series/index.html").read_text(encoding="utf-8")))
    assert messages == [f"SITE/series/index.html: does not list the {count} series the served records hold as they give "
                        "them: its table of series was edited"]


@pytest.mark.parametrize("edit", ["retold", "removed", "added"])
def test_a_feed_change_entry_edited_is_reported(built, tmp_path, edit):
    feed = (built / FEED).read_text(encoding="utf-8")
    entry = _entry(feed)
    title = re.search(r"<title>(.*)</title>", entry).group(1)
    new = {"retold": entry.replace("<title>Regression: ", "<title>Change: ", 1).replace('    <category term="regression"/>\n', ""),
           "removed": "", "added": entry + entry.replace("Regression: ", "Regression again: ")}[edit]
    messages = audited_after_edit(built, tmp_path, FEED, lambda text: text.replace(entry, new, 1))
    lacks = f"SITE/{FEED}: lacks the entry of the change {title[:80]!r} as change detection finds it in the served records: the feed was edited"
    assert messages == ([f"SITE/{FEED}: tells 2 changes, and change detection finds 1 in the served records: the feed was edited"]
                        if edit == "added" else [lacks])


def test_a_cited_claim_edited_in_a_write_up_is_reported(built, tmp_path):
    def edit(text):
        claim = re.search(r'<span class="bl-claim [^>]*>[^<]*</span>', text).group(0)
        return text.replace(claim, claim.replace("changed, worse</span>", "changed, better</span>"), 1)

    messages = audited_after_edit(built, tmp_path, WRITE_UP, edit)
    assert len(messages) == 1 and re.fullmatch(
        rf"SITE/{WRITE_UP}: shows a claim change detection does not make from the served records, "
        r"'−1\d\.\d%, changed, better': the page was edited", messages[0]), messages


def test_a_feed_whose_self_link_is_not_benchledger_s_is_reported(built, tmp_path):
    """Its change entries' links are made from the site URL its self link was written with."""
    messages = audited_after_edit(built, tmp_path, FEED, lambda text: re.sub(r'<link rel="self" href="[^"]*"/>', "<link rel='self'/>", text))
    assert messages == [f"SITE/{FEED}: has no self link as benchledger writes one, so its change entries cannot be made "
                        "again: the feed was edited"]
