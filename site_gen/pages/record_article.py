"""One article page per sealed record, rendered by its schema's renderer."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable

from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.base import ArticleWriter
from site_gen.pages.records.registry import renderer_for

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext

# Articles render in a few threads: SVG rendering (vl-convert) releases the GIL, so a cold build
# overlaps chart renderings. Output order stays the ledger's (map keeps order).
WORKERS = min(4, os.cpu_count() or 1)


def article_page(site: "SiteContext", view: "RecordView") -> Page:
    """The article of one record."""
    renderer = renderer_for(view.schema, view.entry.path)
    summary = renderer.summary(view)
    page = ArticleWriter(view, site)
    page.add(site.render("article_head.md.j2", view=view, summary=summary, page_path=view.page_path))
    renderer.body(page)
    return Page(view.page_path, summary.title, page.markdown(), page.assets)


class RecordArticles(PageKind):
    name = "record-article"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        with ThreadPoolExecutor(WORKERS) as pool:
            return list(pool.map(
                lambda view: site.render_cache.page(view, "article", lambda: article_page(site, view)), site.views))
