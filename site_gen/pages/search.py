"""The search page: Pagefind's search box and results (site_gen/search_index.py builds the index)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.search_index import BUNDLE_DIR, SHARDS_MANIFEST

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class SearchPage(PageKind):
    name = "search"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        yield Page("search.md", "Search", site.render("search.md.j2", bundle=BUNDLE_DIR, shards=SHARDS_MANIFEST))
