"""One article page per sealed record, rendered by its schema's renderer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from site_gen.pages.base import Page, PageKind
from site_gen.pages.records.base import ArticleWriter
from site_gen.pages.records.registry import renderer_for

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class RecordArticles(PageKind):
    name = "record-article"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        for view in site.views:
            renderer = renderer_for(view.schema, view.entry.path)
            summary = renderer.summary(view)
            page = ArticleWriter(view, site)
            page.add(site.render("article_head.md.j2", view=view, summary=summary, page_path=view.page_path))
            renderer.body(page)
            yield Page(view.page_path, summary.title, page.markdown(), page.assets)
