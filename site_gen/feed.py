"""The Atom feed of authored articles (RFC 4287). Deterministic: nothing depends on the clock;
`updated` is the newest article's date. Links are absolute when the site URL is configured,
relative to the feed otherwise."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

if TYPE_CHECKING:
    from site_gen.articles import Article


def _stamp(article: "Article") -> str:
    return f"{article.date.isoformat()}T00:00:00Z"


def article_url(site_url: str, page_path: str) -> str:
    """The published URL of the page at docs path `page_path` (`.md` -> `.html`), absolute
    under `site_url`, or the bare site path when there is none."""
    path = page_path[: -len(".md")] + ".html" if page_path.endswith(".md") else page_path
    return f"{site_url.rstrip('/')}/{path}" if site_url else path


def atom_feed(
    articles: list["Article"],
    *,
    feed_path: str,
    page_paths: dict[str, str],
    site_name: str,
    site_url: str = "",
) -> bytes:
    """The feed at docs path `feed_path`: one entry per article, newest first. `page_paths`
    maps an article's slug to its page's docs path."""
    ordered = sorted(articles, key=lambda a: (-a.date.toordinal(), a.slug))

    def href(page_path: str) -> str:
        if site_url:
            return article_url(site_url, page_path)
        return posixpath.relpath(article_url("", page_path), posixpath.dirname(feed_path) or ".")

    feed_id = article_url(site_url, feed_path) if site_url else f"urn:benchledger:{xml_escape(site_name)}:feed"
    out = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{xml_escape(site_name)}: articles</title>",
        f"  <id>{xml_escape(feed_id)}</id>",
        f"  <updated>{_stamp(ordered[0]) if ordered else '1970-01-01T00:00:00Z'}</updated>",
        f'  <link rel="self" href={quoteattr(href(feed_path))}/>',
        "  <generator>benchledger</generator>",
    ]
    for a in ordered:
        link = href(page_paths[a.slug])
        entry_id = link if site_url else f"urn:benchledger:article:{a.slug}"
        out += [
            "  <entry>",
            f"    <title>{xml_escape(a.title)}</title>",
            f'    <link rel="alternate" type="text/html" href={quoteattr(link)}/>',
            f"    <id>{xml_escape(entry_id)}</id>",
            f"    <published>{_stamp(a)}</published>",
            f"    <updated>{_stamp(a)}</updated>",
            *(f"    <author><name>{xml_escape(name)}</name></author>" for name in a.authors),
            *(f"    <category term={quoteattr(tag)}/>" for tag in a.tags),
            f"    <summary>{xml_escape(a.summary)}</summary>",
            "  </entry>",
        ]
    out.append("</feed>")
    return ("\n".join(out) + "\n").encode("utf-8")
