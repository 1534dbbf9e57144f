"""One article page per sealed record, rendered by its schema's renderer."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable

from site_gen import escape, raw_html
from site_gen.article_series import Neighbours, neighbours
from site_gen.comparisons import comparisons_of
from site_gen.page import Page
from site_gen.pages.base import RENDER_WORKERS, PageKind
from site_gen.pages.home import cards_of
from site_gen.pages.records.base import ArticleWriter
from site_gen.pages.records.registry import renderer_for, summary_of
from site_gen.search_index import RUNS_NAV
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext

# Where the links to the runs before and after the record and to its comparisons go: filled
# after the (cached) rendering, since they depend on the other records, not on this one (sealing
# one more run then rewrites the last run's page, and no cached rendering goes stale).
COMPARED_MARK = "<!-- bl-compared -->\n\n"


def article_page(site: "SiteContext", view: "RecordView") -> Page:
    """The article of one record."""
    renderer = renderer_for(view.schema, view.entry.path)
    summary = summary_of(site, view)
    # the tab and search results name the date too: repeated runs of one setup (a nightly job)
    # share their title, and 502 search results read alike at 1,000 records
    title = f"{summary.title} ({summary.date})" if summary.date else summary.title
    page = ArticleWriter(view, site)
    page.add(site.render("article_head.md.j2", view=view, summary=summary, page_title=title, page_path=view.page_path))
    page.add(COMPARED_MARK)
    renderer.body(page)
    return Page(view.page_path, title, page.markdown(), page.assets)


class RecordArticles(PageKind):
    name = "record-article"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        with ThreadPoolExecutor(RENDER_WORKERS) as pool:
            pages = list(pool.map(
                lambda view: site.render_cache.page(view, "article", lambda: article_page(site, view)), site.views))
        return [Page(p.path, p.title, p.markdown.replace(COMPARED_MARK, runs_block(site, view) + compared_block(site, view), 1),
                     p.assets) for p, view in zip(pages, site.views)]


def _neighbours(site: "SiteContext") -> dict[str, Neighbours]:
    """Every record's neighbours in its article series, found once per build."""
    if "neighbours" not in site.derived:
        cards = cards_of(site)
        site.derived["neighbours"] = neighbours((view, cards[view.sha256]["summary"]["date"]) for view in site.views)
    return site.derived["neighbours"]


def runs_block(site: "SiteContext", view: "RecordView") -> str:
    """Links to the runs before and after `view`'s record in its article series ('' when it
    has neither), each named by its test date, its hardware where that differs from this run's,
    and its hash (two runs of one day on one machine differ only there). Left out of the search
    index: searching a hash finds its own article, not its neighbours'."""
    found = _neighbours(site).get(view.sha256)
    if found is None:
        return ""
    cards = cards_of(site)
    hardware = cards[view.sha256]["summary"]["hardware"]

    def link(other: "RecordView", rel: str, before: str, after: str) -> str:
        summary = cards[other.sha256]["summary"]
        label = (summary["date"] or "undated") + (f", {summary['hardware']}" if summary["hardware"] != hardware else "")
        return (f'<a href="{escape.attr(url(view.page_path, other.page_path))}" rel="{rel}">{before}{escape.html(label)} '
                f'<code class="bl-hash" title="{other.sha256}">{other.sha256[:12]}</code>{after}</a>')

    links = ([link(found.before, "prev", "← earlier run: ", "")] if found.before else []) + \
            ([link(found.after, "next", "later run: ", " →")] if found.after else [])
    # RUNS_NAV: Pagefind skips it, and the search index keys the page without it
    return raw_html.block(f'{RUNS_NAV}<p>Runs of <code>{escape.html(found.key)}</code>, by test date: {" · ".join(links)}</p></nav>') + "\n\n"


def compared_block(site: "SiteContext", view: "RecordView") -> str:
    """Links to every comparison page that includes a case of `view`'s record ('' if none).
    Titled without values or record counts: sealing a record that joins a comparison then
    rewrites no article but its own (with counts, one more record rewrote every article of its
    kind, and a dirty MkDocs build rendered them all again)."""
    pages = comparisons_of(site).pages_of_record(view.sha256)
    if not pages:
        return ""
    items = "".join(f'<li><a href="{escape.attr(url(view.page_path, cp.path))}">{escape.html(cp.link_title)}</a></li>' for cp in pages)
    return raw_html.block(f'<div class="bl-compared"><p class="bl-limits-title">Compared with other records, one difference at a time</p>'
                          f"<ul>{items}</ul></div>") + "\n\n"
