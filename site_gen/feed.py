"""The Atom feed (RFC 4287) of authored articles and of every detected change in the history.
Deterministic: nothing depends on the clock; `updated` is the newest entry's date (an article's
date, or the sealing time of the last record a change was computed from). Links are absolute
when the site URL is configured, relative to the feed otherwise."""

from __future__ import annotations

import html as htmllib
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Sequence

from site_gen.escape import xml_attr, xml_text
from site_gen.page import output_path

if TYPE_CHECKING:
    from site_gen.articles import Article


FEED = "posts/feed.xml"  # its docs path: beside the write-ups (pages/authored.py)


def _stamp(article: "Article") -> str:
    return f"{article.date.isoformat()}T00:00:00Z"


@dataclass(frozen=True)
class FeedEntry:
    """A feed entry that is not an authored article (a detected change): all text is plain."""

    key: str  # unique and stable: the entry's id is urn:benchledger:<key> without a site URL
    title: str
    page_path: str  # docs path of the page it links to
    anchor: str  # fragment on that page ("" for none)
    stamp: str  # RFC 3339 UTC, e.g. the sealing time of the record that made it known
    summary: str
    categories: tuple[str, ...] = ()


class _Block(NamedTuple):
    """One feed entry's lines and what orders it."""

    stamp: str  # RFC 3339, UTC
    rank: int  # on equal stamps: 0 an article, 1 another entry
    key: str  # then: the article's slug or the entry's key
    lines: list[str]


def article_url(site_url: str, page_path: str) -> str:
    """The published URL of the page at docs path `page_path` (`.md` -> `.html`), absolute
    under `site_url`, or the bare site path when there is none."""
    path = output_path(page_path)
    return f"{site_url.rstrip('/')}/{path}" if site_url else path


def feed_link(page_path: str, *, feed_path: str, site_url: str) -> str:
    """How the feed at `feed_path` links the page at docs path `page_path`: absolute under
    `site_url`, else relative to the feed."""
    if site_url:
        return article_url(site_url, page_path)
    return posixpath.relpath(article_url("", page_path), posixpath.dirname(feed_path) or ".")


def written_site_url(feed: str, feed_path: str) -> str | None:
    """The site URL the feed at `feed_path` was written with ("" for none), read back from its
    self link (`verify --site` makes its entries again so); None when it has no self link as
    `atom_feed` writes one."""
    found = re.search(r"""\n  <link rel="self" href=("[^"]*"|'[^']*')/>\n""", feed)  # xml_attr quotes either way
    self_link = htmllib.unescape(found.group(1)[1:-1]) if found else None
    if self_link is None or xml_attr(self_link) != found.group(1):
        return None
    if self_link == feed_link(feed_path, feed_path=feed_path, site_url=""):
        return ""
    return self_link[: -len(feed_path) - 1] if self_link.endswith(f"/{feed_path}") else None


def entry_lines(e: FeedEntry, *, feed_path: str, site_url: str) -> list[str]:
    """The lines of the feed entry of `e` (not an authored article), as `atom_feed` writes it."""
    link = feed_link(e.page_path, feed_path=feed_path, site_url=site_url) + (f"#{e.anchor}" if e.anchor else "")
    entry_id = link if site_url else f"urn:benchledger:{e.key}"
    return [
        "  <entry>",
        f"    <title>{xml_text(e.title)}</title>",
        f'    <link rel="alternate" type="text/html" href={xml_attr(link)}/>',
        f"    <id>{xml_text(entry_id)}</id>",
        f"    <published>{xml_text(e.stamp)}</published>",
        f"    <updated>{xml_text(e.stamp)}</updated>",
        *(f"    <category term={xml_attr(c)}/>" for c in e.categories),
        f"    <summary>{xml_text(e.summary)}</summary>",
        "  </entry>",
    ]


def feed_title(site_name: str) -> str:
    """The feed's title (plain text): in the feed and in the link to it in every page's head."""
    return f"{site_name}: articles and detected changes"


def atom_feed(
    articles: list["Article"],
    *,
    feed_path: str,
    page_paths: dict[str, str],
    site_name: str,
    site_url: str = "",
    extra: Sequence[FeedEntry] = (),
) -> bytes:
    """The feed at docs path `feed_path`: one entry per article and per `extra` entry, newest
    first. `page_paths` maps an article's slug to its page's docs path."""
    ordered = sorted(articles, key=lambda a: (-a.date.toordinal(), a.slug))

    def href(page_path: str) -> str:
        return feed_link(page_path, feed_path=feed_path, site_url=site_url)

    # Articles and other entries interleaved newest first; on equal times articles first, then
    # by slug or key, so the order never depends on the input's.
    blocks: list[_Block] = []
    for a in ordered:
        link = href(page_paths[a.slug])
        entry_id = link if site_url else f"urn:benchledger:article:{a.slug}"
        blocks.append(_Block(_stamp(a), 0, a.slug, [
            "  <entry>",
            f"    <title>{xml_text(a.title)}</title>",
            f'    <link rel="alternate" type="text/html" href={xml_attr(link)}/>',
            f"    <id>{xml_text(entry_id)}</id>",
            f"    <published>{_stamp(a)}</published>",
            f"    <updated>{_stamp(a)}</updated>",
            *(f"    <author><name>{xml_text(name)}</name></author>" for name in a.authors),
            *(f"    <category term={xml_attr(tag)}/>" for tag in a.tags),
            f"    <summary>{xml_text(a.summary)}</summary>",
            "  </entry>",
        ]))
    for e in extra:
        blocks.append(_Block(e.stamp, 1, e.key, entry_lines(e, feed_path=feed_path, site_url=site_url)))
    blocks.sort(key=lambda b: (b.rank, b.key))
    blocks.sort(key=lambda b: b.stamp, reverse=True)

    feed_id = article_url(site_url, feed_path) if site_url else f"urn:benchledger:{site_name}:feed"
    out = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{xml_text(feed_title(site_name))}</title>",
        f"  <id>{xml_text(feed_id)}</id>",
        f"  <updated>{blocks[0].stamp if blocks else '1970-01-01T00:00:00Z'}</updated>",
        f'  <link rel="self" href={xml_attr(href(feed_path))}/>',
        "  <generator>benchledger</generator>",
    ]
    for block in blocks:
        out += block.lines
    out.append("</feed>")
    return ("\n".join(out) + "\n").encode("utf-8")
